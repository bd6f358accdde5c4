/* A placement build's work folder: each finished layer packed in its own file (`tHH-C.pk`,
 * `gHH-C.pk`), so that a build resumes at the first layer it had not finished and the file
 * is assembled from them (tb_place_pack.c). A packed layer holds its counts and, for the
 * layers the file needs (the tigers to move) or when asked, its values: each tiger class's
 * block in a block code of its own (blocks of 32 entries: one value, two values and a bit
 * each, or all three in base 3), so that classes are packed and unpacked on every core. */
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

enum { HEADER = 64, BLOCK = 32 };

static const char MAGIC[8] = {'B', 'C', 'P', 'L', 'P', 'A', 'C', 'K'};

/* ---- The block code of a class -------------------------------------------------------- */

static const uint8_t DATA_BITS[8] = {0, 0, 0, 32, 32, 32, 52, 0};
static const uint8_t PAIR_LO[3] = {0, 0, 1}, PAIR_HI[3] = {1, 2, 2};

static inline uint64_t bits_at(const uint8_t *p, uint64_t pos)
{
    return tb_get_le(p + (pos >> 3), 8) >> (pos & 7);
}

/* One block of n <= 32 values: a 3-bit type, then its data. */
static void put_block(tbp_bits_t *w, const uint8_t *v, int n)
{
    int seen = 0;
    for (int j = 0; j < n; j++)
        seen |= 1 << v[j];
    if (seen == 1 || seen == 2 || seen == 4) {
        tbp_bits_put(w, (uint64_t)__builtin_ctz((unsigned)seen), 3);
        return;
    }
    if (seen != 7) {
        int type = seen == 3 ? 3 : seen == 5 ? 4 : 5;
        uint64_t bits = 0;
        for (int j = 0; j < n; j++)
            bits |= (uint64_t)(v[j] == PAIR_HI[type - 3]) << j;
        tbp_bits_put(w, (uint64_t)type, 3);
        tbp_bits_put(w, bits, 32);
        return;
    }
    uint64_t bits = 0;
    for (int q = 0; q < 6; q++) {
        uint64_t byte = 0;
        for (int j = 4; j >= 0; j--)
            byte = byte * 3 + (q * 5 + j < n ? v[q * 5 + j] : 0);
        bits |= byte << (8 * q);
    }
    for (int j = 30; j < 32; j++)
        bits |= (uint64_t)(j < n ? v[j] : 0) << (48 + 2 * (j - 30));
    tbp_bits_put(w, 6, 3);
    tbp_bits_put(w, bits, 52);
}

/* The ng values of a class block from its code at bit pos. */
static void get_class(const uint8_t *code, uint64_t pos, uint32_t ng, uint8_t *out)
{
    for (uint32_t i = 0; i < ng; i += BLOCK) {
        uint64_t w = bits_at(code, pos);
        uint32_t type = w & 7, n = ng - i < BLOCK ? ng - i : BLOCK;
        uint64_t d = w >> 3;
        uint8_t *o = out + i;
        if (type < 3) {
            memset(o, (int)type, n);
        } else if (type < 6) {
            uint8_t lo = PAIR_LO[type - 3], hi = PAIR_HI[type - 3];
            for (uint32_t j = 0; j < n; j++)
                o[j] = (d >> j & 1) ? hi : lo;
        } else {
            for (uint32_t q = 0; q < 6 && q * 5 < n; q++) {
                uint32_t byte = (uint32_t)(d >> (8 * q)) & 0xFF;
                for (uint32_t j = 0; j < 5 && q * 5 + j < n; j++, byte /= 3)
                    o[q * 5 + j] = (uint8_t)(byte % 3);
            }
            for (uint32_t j = 30; j < n; j++)
                o[j] = (uint8_t)(d >> (48 + 2 * (j - 30))) & 3;
        }
        pos += 3 + DATA_BITS[type];
    }
}

/* ---- Classes packed and unpacked on several threads ------------------------------------ */

typedef struct {
    const tbp_layer_t *l;
    tbp_bits_t *code;   /* one per class */
    uint32_t next;      /* atomic: next class */
    bool unpack;        /* else pack */
    const uint8_t *in;  /* unpack: the code and the classes' bit offsets */
    const uint8_t *off;
    uint64_t *out;      /* unpack: the layer's words */
} job_t;

static void *work_classes(void *arg)
{
    job_t *j = arg;
    uint32_t ng = j->l->ng;
    uint8_t *v = malloc(ng ? ng : 1);
    if (!v)
        return (void *)1;
    for (;;) {
        uint32_t k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (k >= TB_TIGER_CLASSES)
            break;
        if (j->unpack) {
            get_class(j->in, tb_get_le(j->off + 8 * (size_t)k, 8), ng, v);
            uint64_t *o = j->out + (uint64_t)k * j->l->wpc;
            memset(o, 0, j->l->wpc * sizeof *o);
            for (uint32_t r = 0; r < ng; r++)
                o[r >> 5] |= (uint64_t)v[r] << ((r & 31) * 2);
            continue;
        }
        const uint64_t *b = j->l->bits + (uint64_t)k * j->l->wpc;
        for (uint32_t r = 0; r < ng; r++)
            v[r] = (uint8_t)tbp_get(b, r);
        tbp_bits_t *w = &j->code[k];
        for (uint32_t r = 0; r < ng; r += BLOCK)
            put_block(w, v + r, ng - r < BLOCK ? (int)(ng - r) : BLOCK);
    }
    free(v);
    return NULL;
}

static bool run_job(job_t *j, int threads)
{
    void *argv[TB_MAX_THREADS];
    threads = threads < 1 ? 1 : threads > TB_MAX_THREADS ? TB_MAX_THREADS : threads;
    j->next = 0;
    for (int i = 0; i < threads; i++)
        argv[i] = j;
    return tb_run_threads(threads, work_classes, argv);
}

/* ---- Files ----------------------------------------------------------------------------- */

static void layer_path(char *buf, size_t len, const char *dir, int side, int h, int c)
{
    snprintf(buf, len, "%s/%c%02d-%d.pk", dir, side == GOATS ? 'g' : 't', h, c);
}

static void put_header(uint8_t hdr[HEADER], const tbp_layer_t *l, int goats_total, int captures_to_win, bool values)
{
    memset(hdr, 0, HEADER);
    memcpy(hdr, MAGIC, 8);
    tb_put_le(hdr + 8, (uint64_t)goats_total, 4);
    tb_put_le(hdr + 12, (uint64_t)captures_to_win, 4);
    tb_put_le(hdr + 16, (uint64_t)l->side, 4);
    tb_put_le(hdr + 20, (uint64_t)l->h, 4);
    tb_put_le(hdr + 24, (uint64_t)l->c, 4);
    tb_put_le(hdr + 28, l->ng, 4);
    tb_put_le(hdr + 32, values, 4);
    for (int v = 0; v < 3; v++)
        tb_put_le(hdr + 40 + 8 * v, l->count[v], 8);
}

tb_error_t tbp_layer_pack(const char *dir, const tbp_layer_t *l, int goats_total, int captures_to_win, bool values,
                          int threads, char *msg, size_t msglen)
{
    char path[4096], tmp[4100], sp[TB_PATH_SHOWN];
    layer_path(path, sizeof path, dir, l->side, l->h, l->c);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    size_t offs = values ? 8 * ((size_t)TB_TIGER_CLASSES + 1) : 0;
    uint8_t *buf = NULL;
    tbp_bits_t *code = values ? calloc(TB_TIGER_CLASSES, sizeof *code) : NULL;
    tb_error_t e = TB_OK;
    uint64_t bytes = HEADER + offs;
    if (values) {
        job_t j = {.l = l, .code = code};
        bool ok = code && run_job(&j, threads);
        for (int k = 0; ok && k < TB_TIGER_CLASSES; k++)
            ok = !code[k].failed;
        if (!ok)
            e = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory packing %s", tb_path_shown(path, sp));
        for (int k = 0; ok && k < TB_TIGER_CLASSES; k++)
            bytes += (code[k].bits + 7) / 8;
        bytes += 8; /* padding: every 8-byte read inside */
    }
    if (e == TB_OK && !(buf = calloc(1, bytes + 8)))
        e = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory packing %s", tb_path_shown(path, sp));
    if (e == TB_OK) {
        put_header(buf, l, goats_total, captures_to_win, values);
        if (values) {
            uint64_t at = 0; /* bits, each class starting on a byte */
            uint8_t *c0 = buf + HEADER + offs;
            for (int k = 0; k < TB_TIGER_CLASSES; k++) {
                tb_put_le(buf + HEADER + 8 * (size_t)k, at, 8);
                memcpy(c0 + at / 8, code[k].buf, (code[k].bits + 7) / 8);
                at += (code[k].bits + 7) / 8 * 8;
            }
            tb_put_le(buf + HEADER + 8 * (size_t)TB_TIGER_CLASSES, at, 8);
        }
        tb_put_le(buf + bytes, tb_checksum(buf, bytes), 8);
        int fd = tb_open_regular(tmp, O_WRONLY | O_CREAT | O_TRUNC, msg, msglen);
        if (fd < 0) {
            e = TB_ERR_IO;
        } else {
            /* No sync: a layer cut short by a crash fails its checksum and is built again. */
            bool ok = tb_pwrite_all(fd, buf, bytes + 8, 0);
            ok = close(fd) == 0 && ok;
            if (!ok || rename(tmp, path) != 0) {
                unlink(tmp);
                e = fail(TB_ERR_IO, msg, msglen, "cannot write %s: %s", tb_path_shown(path, sp), strerror(errno));
            }
        }
    }
    if (code)
        for (int k = 0; k < TB_TIGER_CLASSES; k++)
            tbp_bits_free(&code[k]);
    free(code);
    free(buf);
    return e;
}

tb_error_t tbp_layer_save(const char *dir, const tbp_layer_t *l, int goats_total, int captures_to_win, char *msg,
                          size_t msglen)
{
    return tbp_layer_pack(dir, l, goats_total, captures_to_win, true, 1, msg, msglen);
}

struct tbp_packed {
    uint8_t *map;
    size_t len;
    tbp_layer_t shape;
    bool values;
};

tb_error_t tbp_packed_open(const char *dir, int side, int h, int c, int goats_total, int captures_to_win,
                           tbp_packed_t **out, char *msg, size_t msglen)
{
    *out = NULL;
    char path[4096], sp[TB_PATH_SHOWN];
    layer_path(path, sizeof path, dir, side, h, c);
    int fd = tb_open_regular(path, O_RDONLY, msg, msglen);
    if (fd < 0)
        return TB_ERR_MISSING;
    struct stat st;
    tbp_packed_t *p = calloc(1, sizeof *p);
    tb_error_t e = TB_OK;
    if (!p)
        e = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    else if (fstat(fd, &st) != 0 || st.st_size < HEADER + 8)
        e = fail(TB_ERR_MISSING, msg, msglen, "%s is not a finished layer", tb_path_shown(path, sp));
    if (e == TB_OK) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED)
            e = fail(TB_ERR_IO, msg, msglen, "cannot map %s: %s", tb_path_shown(path, sp), strerror(errno));
        else
            p->map = m, p->len = (size_t)st.st_size;
    }
    close(fd);
    if (e == TB_OK) {
        tbp_rank_t rk;
        tbp_rank_init(&rk);
        tbp_layer_shape(&p->shape, &rk, goats_total, side, h, c);
        for (int v = 0; v < 3; v++)
            p->shape.count[v] = tb_get_le(p->map + 40 + 8 * v, 8);
        p->values = tb_get_le(p->map + 32, 4) == 1;
        uint8_t want[HEADER];
        put_header(want, &p->shape, goats_total, captures_to_win, p->values);
        size_t body = p->len - 8;
        bool ok = memcmp(want, p->map, HEADER) == 0 && tb_get_le(p->map + body, 8) == tb_checksum(p->map, body);
        if (ok && p->values) {
            uint64_t end = tb_get_le(p->map + HEADER + 8 * (size_t)TB_TIGER_CLASSES, 8);
            ok = HEADER + 8 * ((uint64_t)TB_TIGER_CLASSES + 1) + end / 8 + 8 == body;
        }
        if (!ok)
            e = fail(TB_ERR_MISSING, msg, msglen, "%s is not a finished layer", tb_path_shown(path, sp));
    }
    if (e != TB_OK) {
        tbp_packed_close(p);
        return e;
    }
    *out = p;
    return TB_OK;
}

void tbp_packed_close(tbp_packed_t *p)
{
    if (!p)
        return;
    if (p->map)
        munmap(p->map, p->len);
    free(p);
}

const tbp_layer_t *tbp_packed_layer(const tbp_packed_t *p) { return &p->shape; }
bool tbp_packed_has_values(const tbp_packed_t *p) { return p->values; }

void tbp_packed_class(const tbp_packed_t *p, uint32_t k, uint8_t *out)
{
    const uint8_t *offs = p->map + HEADER, *code = offs + 8 * ((size_t)TB_TIGER_CLASSES + 1);
    get_class(code, tb_get_le(offs + 8 * (size_t)k, 8), p->shape.ng, out);
}

tb_error_t tbp_packed_unpack(const tbp_packed_t *p, tbp_layer_t *l, int threads, char *msg, size_t msglen)
{
    *l = p->shape;
    l->bits = NULL;
    if (!p->values)
        return fail(TB_ERR_MISSING, msg, msglen, "layer %s h=%d c=%d: only its counts were kept",
                    l->side == GOATS ? "goats" : "tigers", l->h, l->c);
    if (!(l->bits = malloc(l->words ? l->words * 8 : 8)))
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    const uint8_t *offs = p->map + HEADER;
    job_t j = {.l = l, .unpack = true, .in = offs + 8 * ((size_t)TB_TIGER_CLASSES + 1), .off = offs, .out = l->bits};
    if (!run_job(&j, threads)) {
        free(l->bits);
        l->bits = NULL;
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    }
    return TB_OK;
}

tb_error_t tbp_layer_load(const char *dir, tbp_layer_t *l, int goats_total, int captures_to_win, char *msg,
                          size_t msglen)
{
    tbp_packed_t *p;
    tb_error_t e = tbp_packed_open(dir, l->side, l->h, l->c, goats_total, captures_to_win, &p, msg, msglen);
    if (e == TB_OK) {
        e = tbp_packed_unpack(p, l, 1, msg, msglen);
        tbp_packed_close(p);
    }
    return e;
}

void tbp_layer_remove(const char *dir, int side, int h, int c)
{
    char path[4096];
    layer_path(path, sizeof path, dir, side, h, c);
    unlink(path);
}
