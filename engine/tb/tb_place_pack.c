/* Writing the placement file (version 4): the code of tb_place_code.h, and the merge of a
 * build's packed layers into the file, one array per captured count. */
#define _POSIX_C_SOURCE 200809L
#include "tb_build.h"
#include "tb_place_code.h"
#include "message.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define fail(e, ...) ((tb_error_t)bc_fail((e), __VA_ARGS__))

enum { ALIGN = 4096, CHUNK = 64, TABLE_SAMPLE = 7 };

/* ---- The code of version 4 (tb_place_code.h) -------------------------------------------- */

void tbp_bits_put(tbp_bits_t *w, uint64_t v, int n)
{
    if (w->failed || n == 0)
        return;
    if ((w->bits + (uint64_t)n) / 8 + 16 >= w->cap) {
        /* From 256 bytes: a block's code, a small layer's class, is often that short, and
         * the class coder makes eight strings for every class. */
        uint64_t cap = w->cap ? w->cap * 2 : 256;
        uint8_t *b = realloc(w->buf, cap);
        if (!b) {
            w->failed = true;
            return;
        }
        memset(b + w->cap, 0, cap - w->cap);
        w->buf = b, w->cap = cap;
    }
    if (n < 64)
        v &= (1ull << n) - 1;
    /* Up to 64 bits land in at most 9 bytes. */
    uint64_t at = w->bits >> 3;
    int sh = (int)(w->bits & 7);
    uint64_t lo = v << sh, cur;
    memcpy(&cur, w->buf + at, 8);
    cur |= lo;
    memcpy(w->buf + at, &cur, 8);
    if (sh && n + sh > 64)
        w->buf[at + 8] |= (uint8_t)(v >> (64 - sh));
    w->bits += (uint64_t)n;
}

/* Empties w, keeping its memory (the bytes used are zeroed: puts OR into them). */
static void bits_reset(tbp_bits_t *w)
{
    if (w->buf)
        memset(w->buf, 0, w->bits / 8 + 16 < w->cap ? w->bits / 8 + 16 : w->cap);
    w->bits = 0, w->failed = false;
}

void tbp_bits_free(tbp_bits_t *w)
{
    free(w->buf);
    memset(w, 0, sizeof *w);
}

/* Resolves the don't-care masks of a block (a copy of the first parent) into val[]. */
static void block_values(const uint8_t *v, uint32_t base, uint32_t valid, uint8_t *val)
{
    for (uint32_t s = 0; s < TBP_CODE_BLOCK; s++) {
        uint32_t g = (uint32_t)__builtin_popcount(base | s);
        val[s] = valid >> g & 1 ? v[s] : s ? val[s & (s - 1)] : 1;
    }
}

/* Whether a block holds a mask of a layer the array has: its masks have from
 * popcount(base) to popcount(base) + TBP_CODE_BITS bits. */
static inline bool block_held(uint32_t base, uint32_t valid)
{
    return (valid >> __builtin_popcount(base)) & ((1u << (TBP_CODE_BITS + 1)) - 1);
}

void tbp_code_count(const uint8_t *v, uint32_t valid, uint64_t (*counts)[3])
{
    uint8_t val[TBP_CODE_BLOCK + 1];
    val[TBP_CODE_BLOCK] = 3;
    for (uint32_t base = 0; base < TBP_MASKS; base += TBP_CODE_BLOCK) {
        if (!block_held(base, valid))
            continue;
        block_values(v + base, base, valid, val);
        for (uint32_t s = 0; s < TBP_CODE_BLOCK; s++) {
            uint32_t g = (uint32_t)__builtin_popcount(base | s);
            if (valid >> g & 1)
                counts[tbp_context(val, s, g)][val[s]]++;
        }
    }
}

void tbp_code_table(const uint64_t (*counts)[3], uint8_t *table)
{
    for (uint32_t ctx = 0; ctx < TBP_CONTEXTS; ctx++) {
        const uint64_t *n = counts[ctx];
        uint32_t first = (ctx >> 8) & 3;
        uint8_t order[3] = {0, 1, 2}, lead = first < 3 ? (uint8_t)first : 1;
        if (n[0] + n[1] + n[2]) {
            /* By count, the lower value first among equals (a stable sort of three). */
            for (int i = 1; i < 3; i++)
                for (int j = i; j > 0 && n[order[j]] > n[order[j - 1]]; j--) {
                    uint8_t t = order[j];
                    order[j] = order[j - 1], order[j - 1] = t;
                }
        } else {
            order[0] = lead;
            for (uint8_t x = 0, i = 1; x < 3; x++)
                if (x != lead)
                    order[i++] = x;
        }
        table[ctx] = (uint8_t)(order[0] | order[1] << 2 | order[2] << 4);
    }
}

static void put_gamma(tbp_bits_t *w, uint32_t x)
{
    int n = 31 - __builtin_clz(x);
    tbp_bits_put(w, 1ull << n, n + 1); /* n zeros, then a one */
    tbp_bits_put(w, x & ((1u << n) - 1), n);
}

/* Codes one block into w; the value of each held mask is v[s]. */
static void encode_block2(const uint8_t *v, uint32_t base, uint32_t valid, const uint8_t *table, tbp_bits_t *w)
{
    if (!block_held(base, valid)) { /* nothing held: any value, the shortest code */
        tbp_bits_put(w, 1, 3);
        return;
    }
    uint8_t val[TBP_CODE_BLOCK + 1];
    val[TBP_CODE_BLOCK] = 3;
    block_values(v, base, valid, val);
    /* One value everywhere it matters: no prediction needed. */
    int constant = -2;
    for (uint32_t s = 0; s < TBP_CODE_BLOCK && constant != -1; s++)
        if (valid >> __builtin_popcount(base | s) & 1)
            constant = constant == -2 || constant == val[s] ? val[s] : -1;
    if (constant != -1) {
        tbp_bits_put(w, 1, 1);
        tbp_bits_put(w, (uint64_t)(constant < 0 ? 0 : constant), 2);
        return;
    }
    /* The exceptions of each kind, by mask. */
    uint32_t at[2][TBP_CODE_BLOCK], k[2] = {0, 0};
    /* and whether a held mask is a loss for the tigers: a goats' position whose placements
     * lead here need not read the block once it has a placement worth a draw or less */
    bool loss = false;
    for (uint32_t s = 0; s < TBP_CODE_BLOCK; s++) {
        uint32_t g = (uint32_t)__builtin_popcount(base | s);
        if (!(valid >> g & 1))
            continue;
        loss |= val[s] == 0;
        uint32_t t = table[tbp_context(val, s, g)];
        if (val[s] != tbp_table_value(t, 0)) {
            int kind = val[s] == tbp_table_value(t, 1) ? 0 : 1;
            at[kind][k[kind]++] = s;
        }
    }
    tbp_bits_put(w, 0, 1);
    tbp_bits_put(w, loss, 1);
    put_gamma(w, k[1] + 1);
    put_gamma(w, k[0] + 1);
    for (int kind = 1; kind >= 0; kind--) {
        int r = tbp_rice(k[kind]);
        int32_t prev = -1;
        for (uint32_t i = 0; i < k[kind]; i++) {
            uint32_t gap = (uint32_t)((int32_t)at[kind][i] - prev - 1), q = gap >> r;
            prev = (int32_t)at[kind][i];
            for (; q >= 32; q -= 32)
                tbp_bits_put(w, 0, 32);
            tbp_bits_put(w, 1ull << q, (int)q + 1);
            tbp_bits_put(w, gap & ((1u << r) - 1), r);
        }
    }
}

/* The code of a group none of whose blocks is held, as the loop below writes it: each block
 * '1' and the value 0 (3 bits), so the lengths' width 2, then the first seven blocks' lengths
 * (3), then the eight blocks. Most groups of a small game's array (a layer or two of few
 * goats) are such, and written at once. */
_Static_assert(4 + 2 * (TBP_CODE_GROUP - 1) + 3 * TBP_CODE_GROUP <= 64, "an empty group is one put");
static uint64_t empty_group(int *bits)
{
    uint64_t x = 2;
    int n = 4;
    for (int i = 0; i < TBP_CODE_GROUP - 1; i++, n += 2)
        x |= 3ull << n;
    for (int i = 0; i < TBP_CODE_GROUP; i++, n += 3)
        x |= 1ull << n;
    *bits = n;
    return x;
}

bool tbp_code_class(const uint8_t *v, uint32_t valid, const uint8_t *table, tbp_bits_t *w,
                    uint32_t groups[TBP_CLASS_GROUPS])
{
    int empty_bits;
    uint64_t empty = empty_group(&empty_bits);
    tbp_bits_t blk[TBP_CODE_GROUP];
    memset(blk, 0, sizeof blk);
    if (w->bits & 7)
        tbp_bits_put(w, 0, 8 - (int)(w->bits & 7));
    uint64_t start = w->bits;
    for (uint32_t gi = 0; gi < TBP_CLASS_GROUPS && !w->failed; gi++) {
        groups[gi] = (uint32_t)(w->bits - start);
        bool held = false;
        for (int i = 0; i < TBP_CODE_GROUP && !held; i++)
            held = block_held((gi * TBP_CODE_GROUP + (uint32_t)i) << TBP_CODE_BITS, valid);
        if (!held) {
            tbp_bits_put(w, empty, empty_bits);
            continue;
        }
        uint64_t longest = 0;
        for (int i = 0; i < TBP_CODE_GROUP; i++) {
            uint32_t base = (gi * TBP_CODE_GROUP + (uint32_t)i) << TBP_CODE_BITS;
            bits_reset(&blk[i]);
            encode_block2(v + base, base, valid, table, &blk[i]);
            w->failed |= blk[i].failed;
            if (i < TBP_CODE_GROUP - 1 && blk[i].bits > longest)
                longest = blk[i].bits;
        }
        int width = 0;
        while ((1ull << width) <= longest)
            width++;
        tbp_bits_put(w, (uint64_t)width, 4);
        for (int i = 0; i < TBP_CODE_GROUP - 1; i++)
            tbp_bits_put(w, blk[i].bits, width);
        for (int i = 0; i < TBP_CODE_GROUP; i++)
            for (uint64_t b = 0; b < blk[i].bits; b += 56) {
                int n = blk[i].bits - b < 56 ? (int)(blk[i].bits - b) : 56;
                uint64_t x;
                memcpy(&x, blk[i].buf + (b >> 3), 8);
                tbp_bits_put(w, x >> (b & 7), n);
            }
    }
    for (int i = 0; i < TBP_CODE_GROUP; i++)
        tbp_bits_free(&blk[i]);
    if (w->bits & 7)
        tbp_bits_put(w, 0, 8 - (int)(w->bits & 7));
    return !w->failed;
}

/* ---- The merge: packed layers -> the file ------------------------------------------------ */

void tbp_merge_options_init(tbp_merge_options_t *o, const char *work, const char *path, int goats_total,
                            int captures_to_win)
{
    memset(o, 0, sizeof *o);
    o->work = work, o->path = path;
    o->goats_total = goats_total, o->captures_to_win = captures_to_win;
    o->threads = 1;
}

static const char RECORD_MAGIC[8] = {'B', 'C', 'P', 'L', 'A', 'R', 'R', 'Y'};
enum { RECORD = 64 + 24 * (TBP_MAX_IN_HAND + 1) + 8 };

/* What is known of captured count c once its array is written: where it is and the counts of
 * its layers (their packed files may be gone). */
typedef struct {
    tbp_array_info_t info;
    uint64_t count[TBP_MAX_IN_HAND + 1][3]; /* the tigers-to-move layers by goats in hand */
} record_t;

static void record_path(char *buf, size_t len, const char *work, int c) { snprintf(buf, len, "%s/array-%d.rec", work, c); }

static tb_error_t record_write(const tbp_merge_options_t *o, int c, const record_t *r, char *msg, size_t msglen)
{
    uint8_t b[RECORD];
    memset(b, 0, sizeof b);
    memcpy(b, RECORD_MAGIC, 8);
    tb_put_le(b + 8, (uint64_t)o->goats_total, 4);
    tb_put_le(b + 12, (uint64_t)o->captures_to_win, 4);
    tb_put_le(b + 16, (uint64_t)c, 4);
    tb_put_le(b + 24, r->info.offset, 8);
    tb_put_le(b + 32, r->info.length, 8);
    tb_put_le(b + 40, r->info.checksum, 8);
    tb_put_le(b + 48, r->info.valid, 4);
    for (int h = 0; h <= TBP_MAX_IN_HAND; h++)
        for (int v = 0; v < 3; v++)
            tb_put_le(b + 64 + 24 * h + 8 * v, r->count[h][v], 8);
    tb_put_le(b + RECORD - 8, tb_checksum(b, RECORD - 8), 8);
    char path[4096], tmp[4100];
    record_path(path, sizeof path, o->work, c);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = tb_open_regular(tmp, O_WRONLY | O_CREAT | O_TRUNC, msg, msglen);
    if (fd < 0)
        return TB_ERR_IO;
    bool ok = tb_pwrite_all(fd, b, sizeof b, 0) && fdatasync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        char sp[TB_PATH_SHOWN];
        unlink(tmp);
        return fail(TB_ERR_IO, msg, msglen, "cannot write %s: %s", tb_path_shown(path, sp), strerror(errno));
    }
    return TB_OK;
}

static bool record_read(const tbp_merge_options_t *o, int c, record_t *r)
{
    char path[4096];
    record_path(path, sizeof path, o->work, c);
    int fd = tb_open_regular(path, O_RDONLY, NULL, 0);
    if (fd < 0)
        return false;
    uint8_t b[RECORD];
    bool ok = tb_pread_all(fd, b, sizeof b, 0);
    close(fd);
    if (!ok || memcmp(b, RECORD_MAGIC, 8) != 0 || tb_get_le(b + RECORD - 8, 8) != tb_checksum(b, RECORD - 8) ||
        tb_get_le(b + 8, 4) != (uint64_t)o->goats_total || tb_get_le(b + 12, 4) != (uint64_t)o->captures_to_win ||
        tb_get_le(b + 16, 4) != (uint64_t)c)
        return false;
    r->info.offset = tb_get_le(b + 24, 8);
    r->info.length = tb_get_le(b + 32, 8);
    r->info.checksum = tb_get_le(b + 40, 8);
    r->info.valid = (uint32_t)tb_get_le(b + 48, 4);
    for (int h = 0; h <= TBP_MAX_IN_HAND; h++)
        for (int v = 0; v < 3; v++)
            r->count[h][v] = tb_get_le(b + 64 + 24 * h + 8 * v, 8);
    return true;
}

/* One captured count being merged. */
typedef struct {
    int c;
    uint32_t valid;
    tbp_packed_t *layer[TBP_FREE + 1]; /* the tigers' layers of c by goats on the board */
    const tb_index_t *ix;
    const tbp_order_t *ord;
    uint8_t *table;
    uint64_t (*counts)[TBP_CONTEXTS][3]; /* per thread, for the table */
    tbp_bits_t *code;                    /* per class of the chunk */
    uint32_t *groups;                    /* every class's group offsets */
    uint32_t k0, k1, next;               /* the chunk's classes; atomic: the next one */
    bool counting, failed;
} merge_t;

static inline uint32_t next_set(uint32_t m)
{
    uint32_t t = m | (m - 1);
    return (t + 1) | (((~t & -~t) - 1) >> (__builtin_ctz(m) + 1));
}

/* Class k's values by mask: every layer of the array, its entries moved from their rank
 * (points in the index's order) to their mask (points by distance from the tigers). Every
 * mask of a layer the array has is written, and no other is read (the coder reads a mask
 * only when its goats' count is a layer of the array): v is filled with don't-cares once,
 * by the caller, not for every class. */
static void class_values(const merge_t *m, uint32_t k, uint8_t *v, uint8_t *tmp)
{
    const tb_class_t *cl = &m->ix->cls[k];
    uint32_t t[3][128];
    for (int part = 0; part < 3; part++)
        for (uint32_t x = 0; x < 128; x++) {
            uint32_t y = 0;
            for (int q = 0; q < 7; q++)
                if (x >> q & 1)
                    y |= 1u << m->ord->bit[k][cl->free_sq[7 * part + q]];
            t[part][x] = y;
        }
    for (int g = 0; g <= TBP_FREE; g++) {
        if (!(m->valid >> g & 1))
            continue;
        const tbp_layer_t *l = tbp_packed_layer(m->layer[g]);
        tbp_packed_class(m->layer[g], k, tmp);
        uint32_t s = (1u << g) - 1;
        for (uint32_t r = 0; r < l->ng; r++, s = s ? next_set(s) : s)
            v[t[0][s & 127] | t[1][(s >> 7) & 127] | t[2][s >> 14]] = tmp[r];
    }
}

static void *merge_worker(void *arg)
{
    void **a = arg;
    merge_t *m = a[0];
    uint64_t (*counts)[3] = a[1];
    uint8_t *v = malloc(TBP_MASKS), *tmp = malloc(352716);
    if (!v || !tmp) {
        free(v), free(tmp);
        return (void *)1;
    }
    memset(v, TBP_DONT_CARE, TBP_MASKS);
    void *rc = NULL;
    for (;;) {
        uint32_t k = __atomic_fetch_add(&m->next, 1, __ATOMIC_RELAXED);
        if (k >= m->k1)
            break;
        if (m->counting && k % TABLE_SAMPLE)
            continue;
        class_values(m, k, v, tmp);
        if (m->counting) {
            tbp_code_count(v, m->valid, counts);
            continue;
        }
        tbp_bits_t *w = &m->code[k - m->k0];
        bits_reset(w);
        if (!tbp_code_class(v, m->valid, m->table, w, m->groups + (size_t)k * TBP_CLASS_GROUPS))
            rc = (void *)1;
    }
    free(v), free(tmp);
    return rc;
}

static bool merge_run(merge_t *m, int threads)
{
    void *args[TB_MAX_THREADS][2], *argv[TB_MAX_THREADS];
    m->next = m->k0;
    for (int i = 0; i < threads; i++)
        args[i][0] = m, args[i][1] = m->counts ? m->counts[i] : NULL, argv[i] = args[i];
    return tb_run_threads(threads, merge_worker, argv);
}

/* Writes the array of m->c at `at` in fd: the table (from a sample of the classes), the
 * classes' code in chunks, then the offsets; fills info. */
static tb_error_t merge_array(merge_t *m, const tbp_merge_options_t *o, int fd, uint64_t at, tbp_array_info_t *info,
                              char *msg, size_t msglen)
{
    int threads = o->threads < 1 ? 1 : o->threads > TB_MAX_THREADS ? TB_MAX_THREADS : o->threads;
    tb_error_t e = TB_OK;
    char sp[TB_PATH_SHOWN];
    m->table = calloc(TBP_CONTEXTS, 1);
    m->counts = calloc((size_t)threads, sizeof *m->counts);
    m->code = calloc(CHUNK, sizeof *m->code);
    m->groups = malloc((size_t)TB_TIGER_CLASSES * TBP_CLASS_GROUPS * sizeof *m->groups);
    uint8_t *offs = malloc(TBP_ARRAY_CODE - TBP_ARRAY_CLASSES);
    if (!m->table || !m->counts || !m->code || !m->groups || !offs)
        e = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    if (e == TB_OK) {
        m->counting = true, m->k0 = 0, m->k1 = TB_TIGER_CLASSES;
        if (!merge_run(m, threads))
            e = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
        for (int i = 1; i < threads; i++)
            for (uint32_t q = 0; q < TBP_CONTEXTS; q++)
                for (int v = 0; v < 3; v++)
                    m->counts[0][q][v] += m->counts[i][q][v];
        tbp_code_table((const uint64_t(*)[3])m->counts[0], m->table);
        free(m->counts);
        m->counts = NULL;
    }
    uint64_t code_at = 0; /* bytes from the code's start */
    m->counting = false;
    for (uint32_t k0 = 0; e == TB_OK && k0 < TB_TIGER_CLASSES; k0 += CHUNK) {
        m->k0 = k0, m->k1 = k0 + CHUNK < TB_TIGER_CLASSES ? k0 + CHUNK : TB_TIGER_CLASSES;
        if (!merge_run(m, threads)) {
            e = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
            break;
        }
        for (uint32_t k = m->k0; k < m->k1 && e == TB_OK; k++) {
            const tbp_bits_t *w = &m->code[k - k0];
            tb_put_le(offs + 8 * (size_t)k, code_at, 8);
            if (!tb_pwrite_all(fd, w->buf, w->bits / 8, at + TBP_ARRAY_CODE + code_at))
                e = fail(TB_ERR_IO, msg, msglen, "cannot write %s.part: %s", tb_path_shown(o->path, sp), strerror(errno));
            code_at += w->bits / 8;
        }
    }
    if (e == TB_OK) {
        uint8_t zero[8] = {0};
        for (size_t i = 0; i < (size_t)TB_TIGER_CLASSES * TBP_CLASS_GROUPS; i++)
            tb_put_le(offs + 8 * (size_t)TB_TIGER_CLASSES + 4 * i, m->groups[i], 4);
        if (!tb_pwrite_all(fd, m->table, TBP_CONTEXTS, at + TBP_ARRAY_TABLE) ||
            !tb_pwrite_all(fd, offs, TBP_ARRAY_CODE - TBP_ARRAY_CLASSES, at + TBP_ARRAY_CLASSES) ||
            !tb_pwrite_all(fd, zero, sizeof zero, at + TBP_ARRAY_CODE + code_at) || fdatasync(fd) != 0)
            e = fail(TB_ERR_IO, msg, msglen, "cannot write %s.part: %s", tb_path_shown(o->path, sp), strerror(errno));
    }
    if (e == TB_OK) {
        info->offset = at;
        info->length = TBP_ARRAY_CODE + code_at + 8;
        info->valid = m->valid;
        void *map = mmap(NULL, info->length, PROT_READ, MAP_SHARED, fd, (off_t)at);
        if (map == MAP_FAILED) {
            e = fail(TB_ERR_IO, msg, msglen, "cannot map %s.part: %s", tb_path_shown(o->path, sp), strerror(errno));
        } else {
            info->checksum = tb_checksum(map, info->length);
            munmap(map, info->length);
        }
    }
    if (m->code)
        for (int i = 0; i < CHUNK; i++)
            tbp_bits_free(&m->code[i]);
    free(m->table), free(m->counts), free(m->code), free(m->groups), free(offs);
    m->table = NULL, m->counts = NULL, m->code = NULL, m->groups = NULL;
    return e;
}

static uint32_t choose21(int k)
{
    uint64_t b = 1;
    for (int i = 1; i <= k; i++)
        b = b * (uint64_t)(21 - k + i) / (uint64_t)i;
    return (uint32_t)b;
}

static bool in_file(const tbp_merge_options_t *o, int side, int h, int c)
{
    return tbp_layer_exists(o->goats_total, o->captures_to_win, side, h, c) &&
           tbp_layer_in_scope(o->goats_total, side, h, c, o->max_in_hand, o->min_goats);
}

/* The tigers' layers the array of c holds: bit g, the layer with g goats on the board. */
static uint32_t array_layers(const tbp_merge_options_t *o, int c)
{
    uint32_t valid = 0;
    for (int h = 1; h <= o->goats_total; h++)
        if (in_file(o, TIGERS, h, c))
            valid |= 1u << (o->goats_total - h - c);
    return valid;
}

/* Whether an earlier run wrote the array of c at `at` in the .part file fd, whole: its record
 * (read into r) names that place and those layers, and the bytes there match its checksum. */
static bool array_kept(const tbp_merge_options_t *o, int fd, int c, uint64_t at, record_t *r)
{
    uint32_t valid = array_layers(o, c);
    if (!record_read(o, c, r) || r->info.valid != valid)
        return false;
    if (!valid)
        return true; /* no array: nothing in the file */
    if (r->info.offset != at)
        return false;
    /* Mapped only where the file has the bytes: a page past its end would be SIGBUS. */
    struct stat st;
    if (fstat(fd, &st) != 0 || r->info.length == 0 || (uint64_t)st.st_size < at + r->info.length)
        return false;
    void *map = mmap(NULL, r->info.length, PROT_READ, MAP_SHARED, fd, (off_t)at);
    if (map == MAP_FAILED)
        return false;
    bool same = tb_checksum(map, r->info.length) == r->info.checksum;
    munmap(map, r->info.length);
    return same;
}

static uint64_t after_array(uint64_t at, const tbp_array_info_t *a)
{
    return a->valid ? (at + a->length + ALIGN - 1) / ALIGN * ALIGN : at;
}

int tbp_merge_done(const tbp_merge_options_t *o, uint64_t (*count)[TBP_MAX_IN_HAND + 1][3])
{
    int K = o->captures_to_win, done = 0;
    if (o->goats_total < 1 || o->goats_total > TBP_MAX_IN_HAND || K < 1 || K > TB_MAX_SLICES)
        return 0;
    char part[4200];
    snprintf(part, sizeof part, "%s.part", o->path);
    int fd = tb_open_regular(part, O_RDONLY, NULL, 0);
    if (fd < 0)
        return 0;
    uint64_t at = TBP_HEADER_SIZE;
    record_t r;
    for (; done < K && array_kept(o, fd, done, at, &r); done++) {
        if (count)
            memcpy(count[done], r.count, sizeof r.count);
        at = after_array(at, &r.info);
    }
    close(fd);
    return done;
}

void tbp_merge_forget(const tbp_merge_options_t *o)
{
    char path[4200];
    for (int c = 0; c < TB_MAX_SLICES; c++) {
        record_path(path, sizeof path, o->work, c);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s.part", o->path);
    unlink(path);
}

tb_error_t tbp_merge(const tbp_merge_options_t *o, char *msg, size_t msglen)
{
    int n = o->goats_total, K = o->captures_to_win;
    if (n < 1 || n > TBP_MAX_IN_HAND || K < 1 || K > TB_MAX_SLICES)
        return fail(TB_ERR_ARGUMENT, msg, msglen, "bad game: %d goats, %d captures", n, K);
    char part[4200], sp[TB_PATH_SHOWN];
    snprintf(part, sizeof part, "%s.part", o->path);
    tbp_header_t *x = malloc(sizeof *x);
    record_t *rec = calloc(TB_MAX_SLICES, sizeof *rec);
    tb_index_t *ix = tb_index_new();
    tbp_order_t *ord = malloc(sizeof *ord);
    if (!x || !rec || !ix || !ord) {
        free(x), free(rec), tb_index_free(ix), free(ord);
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    }
    tbp_order_init(ord, ix);
    tbp_header_init(x, n, K);
    tb_error_t e = TB_OK;
    int fd = tb_open_regular(part, O_RDWR | O_CREAT, msg, msglen);
    if (fd < 0)
        e = TB_ERR_IO;
    uint64_t at = TBP_HEADER_SIZE;
    int written = 0;
    for (int c = 0; c < K && e == TB_OK; c++) {
        merge_t m = {.c = c, .ix = ix, .ord = ord, .valid = array_layers(o, c)};
        record_t *r = &rec[c];
        /* An array written by an earlier run: kept when its bytes are still right. */
        if (array_kept(o, fd, c, at, r)) {
            x->array[c] = r->info;
            at = after_array(at, &r->info);
            continue;
        }
        memset(r, 0, sizeof *r);
        for (int h = 1; h <= n && e == TB_OK; h++) {
            if (!in_file(o, TIGERS, h, c))
                continue;
            int g = n - h - c;
            e = tbp_packed_open(o->work, TIGERS, h, c, n, K, &m.layer[g], msg, msglen);
            if (e == TB_OK && !tbp_packed_has_values(m.layer[g]))
                e = fail(TB_ERR_MISSING, msg, msglen, "layer tigers h=%d c=%d: packed without its values", h, c);
            if (e == TB_OK)
                memcpy(r->count[h], tbp_packed_layer(m.layer[g])->count, sizeof r->count[h]);
        }
        if (e == TB_OK && ftruncate(fd, (off_t)at) != 0)
            e = fail(TB_ERR_IO, msg, msglen, "cannot write %s: %s", tb_path_shown(part, sp), strerror(errno));
        if (e == TB_OK && m.valid)
            e = merge_array(&m, o, fd, at, &r->info, msg, msglen);
        for (int g = 0; g <= TBP_FREE; g++)
            tbp_packed_close(m.layer[g]);
        if (e == TB_OK)
            e = record_write(o, c, r, msg, msglen);
        if (e != TB_OK)
            break;
        x->array[c] = r->info;
        at = after_array(at, &r->info);
        if (o->remove_packed)
            for (int h = 1; h <= n; h++)
                if (in_file(o, TIGERS, h, c))
                    tbp_layer_remove(o->work, TIGERS, h, c);
        if (o->progress)
            o->progress(o->ctx, c, r->info.length);
        if (o->stop_after > 0 && ++written >= o->stop_after)
            e = fail(TB_ERR_LIMIT, msg, msglen, "stopped after writing %d array%s of the file, as asked", written,
                     written == 1 ? "" : "s");
    }
    /* The layer table: the goats' counts from their packed files, the tigers' from the records. */
    for (int side = 0; side < SIDE_NB && e == TB_OK; side++)
        for (int h = 1; h <= n && e == TB_OK; h++)
            for (int c = 0; c < K && e == TB_OK; c++) {
                if (!in_file(o, side, h, c))
                    continue;
                tbp_layer_info_t *li = &x->layer[x->layer_count++];
                li->side = (uint8_t)side, li->h = (uint8_t)h, li->c = (uint8_t)c;
                li->ng = choose21(n - h - c);
                if (side == TIGERS) {
                    li->stored = 1;
                    memcpy(li->count, rec[c].count[h], sizeof li->count);
                    continue;
                }
                tbp_packed_t *p;
                e = tbp_packed_open(o->work, side, h, c, n, K, &p, msg, msglen);
                if (e == TB_OK) {
                    memcpy(li->count, tbp_packed_layer(p)->count, sizeof li->count);
                    tbp_packed_close(p);
                }
            }
    if (e == TB_OK) {
        uint8_t *hdr = malloc(TBP_HEADER_SIZE);
        x->file_size = at;
        for (int c = 0; c < K; c++)
            if (x->array[c].valid)
                x->file_size = x->array[c].offset + x->array[c].length;
        if (!hdr) {
            e = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
        } else {
            tbp_header_encode(x, hdr);
            if (!tb_pwrite_all(fd, hdr, TBP_HEADER_SIZE, 0) || ftruncate(fd, (off_t)x->file_size) != 0 ||
                fsync(fd) != 0)
                e = fail(TB_ERR_IO, msg, msglen, "cannot write %s: %s", tb_path_shown(part, sp), strerror(errno));
            free(hdr);
        }
    }
    if (fd >= 0 && close(fd) != 0 && e == TB_OK)
        e = fail(TB_ERR_IO, msg, msglen, "cannot close %s: %s", tb_path_shown(part, sp), strerror(errno));
    if (e == TB_OK && rename(part, o->path) != 0)
        e = fail(TB_ERR_IO, msg, msglen, "cannot rename %s: %s", tb_path_shown(part, sp), strerror(errno));
    if (e == TB_OK)
        for (int c = 0; c < K; c++) {
            char path[4096];
            record_path(path, sizeof path, o->work, c);
            unlink(path);
        }
    free(x), free(rec), tb_index_free(ix), free(ord);
    return e;
}

typedef struct {
    void (*progress)(void *ctx, int side, int h, int c, uint64_t bytes);
    void *ctx;
} pack_ctx_t;

static void pack_progress(void *ctx, int c, uint64_t bytes)
{
    pack_ctx_t *p = ctx;
    p->progress(p->ctx, TIGERS, 0, c, bytes);
}

tb_error_t tbp_pack(const char *work, const char *path, int goats_total, int captures_to_win, int max_in_hand,
                    int min_goats, int stored_side, void (*progress)(void *ctx, int side, int h, int c, uint64_t bytes),
                    void *ctx, char *msg, size_t msglen)
{
    if (stored_side != TIGERS)
        return fail(TB_ERR_ARGUMENT, msg, msglen, "the file stores the tigers-to-move layers");
    tbp_merge_options_t o;
    tbp_merge_options_init(&o, work, path, goats_total, captures_to_win);
    o.max_in_hand = max_in_hand, o.min_goats = min_goats, o.threads = 2;
    pack_ctx_t pc = {progress, ctx};
    if (progress)
        o.progress = pack_progress, o.ctx = &pc;
    return tbp_merge(&o, msg, msglen);
}
