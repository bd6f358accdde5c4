/* The retrograde generator. One slice (goats captured) at a time, from the most captured
 * down to 0: captures are resolved at once from the finished slice above; then positions
 * are resolved by increasing distance, pushing each newly resolved position to its
 * predecessors (un-moves). Threads share a pass by taking units of work (runs of tiger
 * classes) one at a time. */
#define _POSIX_C_SOURCE 200809L
#include "tb_build.h"
#include "message.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    UNKNOWN = 0xFF, /* not resolved yet; what is left at the end is a draw (stored as 0xFF) */
    REPEAT = 0xFE,  /* an entry that repeats a symmetric one; copied at the end */
    NOLOSS = 0xFF,  /* ext: a capture reaches a draw, so the tigers cannot lose */
    CHUNK_WORDS = 256, /* bitmap words (64 entries each) per unit of work */
    MAX_WORKERS = 64
};

typedef struct gen gen_t;

typedef struct {
    gen_t *g;
    uint64_t resolved;
    uint64_t ext_hist[256];
    bool overflow;
} worker_t;

struct gen {
    const tb_index_t *ix;
    int c, k;           /* captured, empty points (21 - goats + c) */
    uint32_t ng, n;     /* goat sets per class, entries per side */
    uint8_t *val;       /* 2n: goats to move, then tigers to move */
    uint8_t *cnt;       /* 2n: weighted count of in-slice children not yet known to win */
    uint8_t *ext;       /* n: what the captures of a tigers-to-move entry give */
    const uint8_t *lower; /* goats-to-move values of slice c + 1; NULL when that slice is won */
    const bb_t (*sym_steps)[SQUARE_NB]; /* per class and empty point: the tigers whose step
                                         * there leads into a class with symmetries */
    uint32_t *subsets;  /* ng: the free-point mask (21 bits) of each rank */
    uint32_t lower_ng;
    uint64_t *bm[2];    /* entries resolved at the previous and at the current distance */
    size_t words;
    int level, threads;
    uint64_t resolved;  /* entries won or lost so far */
    uint32_t unit_classes; /* classes per unit of work of a distance pass */
    uint64_t next_unit; /* atomic: the next unit of work of a pass */
    void (*pass)(worker_t *w, uint64_t unit);
    uint64_t units;
    worker_t *workers;  /* threads of them */
    pthread_t tid[MAX_WORKERS];
    bool started[MAX_WORKERS];
};

#define fail(e, ...) ((tb_error_t)bc_fail((e), __VA_ARGS__))

/* ---- Threads ------------------------------------------------------------------------ */

static void *worker_main(void *arg)
{
    worker_t *w = arg;
    gen_t *g = w->g;
    for (;;) {
        uint64_t u = __atomic_fetch_add(&g->next_unit, 1, __ATOMIC_RELAXED);
        if (u >= g->units)
            break;
        g->pass(w, u);
    }
    return NULL;
}

/* Runs one pass over units of work on the calling thread and threads - 1 helpers and sums
 * what the workers found into *total. A helper that cannot start leaves its share to the
 * others: units are handed out one at a time. */
static void run_pass(gen_t *g, void (*pass)(worker_t *, uint64_t), uint64_t units, worker_t *total)
{
    worker_t *w = g->workers;
    int nt = g->threads;
    g->pass = pass;
    g->units = units;
    g->next_unit = 0;
    for (int i = 0; i < nt; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].g = g;
        g->started[i] = false;
    }
    for (int i = 1; i < nt; i++)
        g->started[i] = pthread_create(&g->tid[i], NULL, worker_main, &w[i]) == 0;
    worker_main(&w[0]);
    for (int i = 1; i < nt; i++)
        if (g->started[i])
            pthread_join(g->tid[i], NULL);
    for (int i = 0; i < nt; i++) {
        total->resolved += w[i].resolved;
        total->overflow |= w[i].overflow;
        for (int b = 0; b < 256; b++)
            total->ext_hist[b] += w[i].ext_hist[b];
    }
}

/* ---- Shared state updates ------------------------------------------------------------ */

static inline void mark(gen_t *g, uint32_t i)
{
    __atomic_fetch_or(&g->bm[g->level & 1][i >> 6], (uint64_t)1 << (i & 63), __ATOMIC_RELAXED);
}

static inline bool resolve(gen_t *g, uint32_t i)
{
    uint8_t expect = UNKNOWN;
    if (!__atomic_compare_exchange_n(&g->val[i], &expect, (uint8_t)g->level, false, __ATOMIC_RELAXED,
                                     __ATOMIC_RELAXED))
        return false;
    mark(g, i);
    return true;
}

/* A tigers-to-move parent (index i) of a goats-to-move child resolved at level - 1. Other
 * threads reach the same parent through children of other classes: atomics. */
static inline void push_tiger_parent(gen_t *g, worker_t *w, uint32_t i, bool child_lost)
{
    if (__atomic_load_n(&g->val[i], __ATOMIC_RELAXED) != UNKNOWN)
        return;
    if (child_lost) {
        w->resolved += resolve(g, i);
        return;
    }
    if (__atomic_fetch_sub(&g->cnt[i], 1, __ATOMIC_RELAXED) != 1)
        return;
    /* A capture that wins or draws keeps the tigers from losing; a capture that loses later
     * than now delays the loss to its own distance (the ext scan resolves it then). */
    uint8_t x = g->ext[i - g->n];
    if ((x & 1) || x > g->level)
        return;
    w->resolved += resolve(g, i);
}

/* A goats-to-move parent (index i) of a tigers-to-move child resolved at level - 1. A goat
 * move keeps the tigers, so parent and child share a class, and the unit of work that owns
 * the class is the only one to touch the parent in this pass: plain accesses. */
static inline void push_goat_parent(gen_t *g, worker_t *w, uint32_t i, bool child_lost)
{
    if (g->val[i] != UNKNOWN)
        return;
    if (!child_lost && --g->cnt[i] != 0)
        return;
    g->val[i] = (uint8_t)g->level;
    mark(g, i);
    w->resolved++;
}

/* ---- Initial pass: move counts, captures, distance 0 ---------------------------------- */

static inline bb_t expand(const tb_class_t *c, uint32_t m)
{
    bb_t e = 0;
    for (; m; m &= m - 1)
        e |= bb_square(c->free_sq[bb_first(m)]);
    return e;
}

static inline uint32_t next_subset(uint32_t m)
{
    uint32_t low = m & -m, r = m + low;
    return (((r ^ m) >> 2) / low) | r;
}

/* The move counters. Only canonical positions are stored and un-moved, so a parent P is
 * reached from the canonical child C of a class once per un-move of C that lands in P's
 * class: |moves of P into C's class| * s(C) / s(P) times, s being the number of symmetries
 * that fix a position. A counter therefore starts at (sum over the moves of P of s(child))
 * / s(P), and each un-move that reaches P from a won child takes one off. Without
 * symmetric positions around, that is simply the number of moves. */

/* Sum over the goat moves of the stabilizer sizes of the children (same class). */
static uint32_t goat_children_weight(const gen_t *g, const tb_class_t *c, bb_t e, bb_t goats)
{
    uint32_t sum = 0;
    for (bb_t a = e; a; a &= a - 1) {
        int to = bb_first(a);
        for (bb_t f = BC_STEPS[to] & goats; f; f &= f - 1) {
            int s;
            tbi_canon_free(g->ix, c, e ^ bb_square(to) ^ (f & -f), &s);
            sum += (uint32_t)s;
        }
    }
    return sum;
}

/* The same for the tiger steps: only steps into a class with symmetries weigh more than 1. */
static uint32_t tiger_children_weight(const gen_t *g, int k, bb_t t, bb_t e)
{
    uint32_t sum = 0;
    for (bb_t a = e; a; a &= a - 1) {
        int to = bb_first(a);
        sum += (uint32_t)bb_count(BC_STEPS[to] & t);
        for (bb_t f = g->sym_steps[k][to]; f; f &= f - 1) {
            bb_t x = bb_square(to) | (f & -f);
            int s;
            tbi_entry(g->ix, t ^ x, e ^ x, g->ng, &s);
            sum += (uint32_t)s - 1;
        }
    }
    return sum;
}

static void find_sym_steps(const tb_index_t *ix, bb_t (*out)[SQUARE_NB])
{
    for (int k = 0; k < TB_TIGER_CLASSES; k++) {
        bb_t t = ix->cls[k].tigers;
        for (int to = 0; to < SQUARE_NB; to++) {
            out[k][to] = 0;
            if (t & bb_square(to))
                continue;
            for (bb_t f = BC_STEPS[to] & t; f; f &= f - 1) {
                tb_tmap_t m = ix->tmap[tbi_tiger_rank(ix, t ^ bb_square(to) ^ (f & -f))];
                if (ix->cls[m.cls].nstab)
                    out[k][to] |= f & -f;
            }
        }
    }
}

/* What the captures of a tigers-to-move position give: the distance of the fastest winning
 * capture (odd), else NOLOSS if one reaches a draw, else the distance of the slowest losing
 * capture (even), else 0 (no capture). */
static uint8_t capture_outcome(const gen_t *g, bb_t t, bb_t e, bb_t goats)
{
    int win = 0, loss = 0;
    bool draw = false;
    for (bb_t a = e; a; a &= a - 1) {
        int to = bb_first(a);
        const bc_jump_t *j = BC_JUMPS[to];
        for (int q = 0; q < BC_JUMP_COUNT[to]; q++) {
            if (!(t & bb_square(j[q].to)) || !(goats & bb_square(j[q].over)))
                continue;
            int v = 0; /* the last slice: the capture wins the game, goats to move have lost */
            if (g->lower) {
                int s;
                bb_t t2 = t ^ bb_square(to) ^ bb_square(j[q].to);
                bb_t e2 = e ^ bb_square(to) ^ bb_square(j[q].to) ^ bb_square(j[q].over);
                v = g->lower[tbi_entry(g->ix, t2, e2, g->lower_ng, &s)];
            }
            if (v == UNKNOWN)
                draw = true;
            else if (v & 1)
                loss = v + 1 > loss ? v + 1 : loss;
            else if (!win || v + 1 < win)
                win = v + 1;
        }
    }
    if (win)
        return (uint8_t)win;
    if (draw)
        return NOLOSS;
    return (uint8_t)loss;
}

static void init_class(worker_t *w, uint64_t unit)
{
    gen_t *g = w->g;
    int side = (int)(unit / TB_TIGER_CLASSES), k = (int)(unit % TB_TIGER_CLASSES);
    const tb_class_t *c = &g->ix->cls[k];
    bb_t t = c->tigers;
    uint32_t base = (uint32_t)side * g->n + (uint32_t)k * g->ng;
    for (uint32_t r = 0; r < g->ng; r++) {
        uint32_t i = base + r;
        bb_t e = expand(c, g->subsets[r]), goats = BB_ALL & ~(t | e);
        int sp = 1;
        if (c->nstab && tbi_canon_free(g->ix, c, e, &sp) != e) {
            g->val[i] = REPEAT;
            g->cnt[i] = 0;
            if (side)
                g->ext[i - g->n] = 0;
            continue;
        }
        uint32_t count, x = 0;
        if (side == GOATS) {
            if (c->nstab) {
                count = goat_children_weight(g, c, e, goats) / (uint32_t)sp;
            } else {
                count = 0;
                for (bb_t a = e; a; a &= a - 1)
                    count += (uint32_t)bb_count(BC_STEPS[bb_first(a)] & goats);
            }
        } else {
            count = tiger_children_weight(g, k, t, e) / (uint32_t)sp;
            x = capture_outcome(g, t, e, goats);
            g->ext[i - g->n] = (uint8_t)x;
            w->ext_hist[x]++;
        }
        if (count > 255)
            w->overflow = true;
        g->cnt[i] = (uint8_t)count;
        g->val[i] = UNKNOWN;
        if (count == 0 && x == 0) {
            g->val[i] = 0;
            mark(g, i);
            w->resolved++;
        }
    }
}

/* ---- Distance passes ---------------------------------------------------------------- */

static void push_entry(gen_t *g, worker_t *w, uint32_t i, bool child_lost)
{
    bool tigers_to_move = i >= g->n;
    uint32_t j = i - (tigers_to_move ? g->n : 0), k = j / g->ng;
    const tb_class_t *c = &g->ix->cls[k];
    bb_t t = c->tigers, e = expand(c, g->subsets[j % g->ng]);
    int s;
    if (!tigers_to_move) {
        /* The tigers just moved: un-step a tiger back to an empty neighbour. */
        for (bb_t f = t; f; f &= f - 1) {
            int from = bb_first(f);
            for (bb_t a = BC_STEPS[from] & e; a; a &= a - 1) {
                bb_t x = bb_square(from) | (a & -a);
                push_tiger_parent(g, w, g->n + tbi_entry(g->ix, t ^ x, e ^ x, g->ng, &s), child_lost);
            }
        }
        return;
    }
    /* The goats just moved: un-step a goat back to an empty neighbour (same tigers). */
    bb_t goats = BB_ALL & ~(t | e);
    for (bb_t a = e; a; a &= a - 1) {
        int back = bb_first(a);
        for (bb_t f = BC_STEPS[back] & goats; f; f &= f - 1) {
            bb_t e2 = e ^ bb_square(back) ^ (f & -f);
            if (c->nstab)
                e2 = tbi_canon_free(g->ix, c, e2, &s);
            push_goat_parent(g, w, k * g->ng + tbi_rank_free(g->ix, c, e2), child_lost);
        }
    }
}

/* Pushes the entries of [from, to) resolved at level - 1. */
static void push_range(gen_t *g, worker_t *w, uint32_t from, uint32_t to, bool child_lost)
{
    const uint64_t *prev = g->bm[(g->level - 1) & 1];
    for (uint32_t q = from >> 6; q <= (to - 1) >> 6; q++) {
        uint64_t b = prev[q];
        if (q == from >> 6)
            b &= ~(uint64_t)0 << (from & 63);
        if (q == (to - 1) >> 6 && (to & 63))
            b &= ~(~(uint64_t)0 << (to & 63));
        for (; b; b &= b - 1)
            push_entry(g, w, q * 64 + (uint32_t)__builtin_ctzll(b), child_lost);
    }
}

/* A unit is a run of whole classes, both sides: the goats-to-move parents of its
 * tigers-to-move children are then its own. */
static void level_chunk(worker_t *w, uint64_t unit)
{
    gen_t *g = w->g;
    bool child_lost = ((g->level - 1) & 1) == 0;
    uint32_t k0 = (uint32_t)unit * g->unit_classes, k1 = k0 + g->unit_classes;
    if (k1 > TB_TIGER_CLASSES)
        k1 = TB_TIGER_CLASSES;
    push_range(g, w, k0 * g->ng, k1 * g->ng, child_lost);
    push_range(g, w, g->n + k0 * g->ng, g->n + k1 * g->ng, child_lost);
}

/* Tigers-to-move entries whose captures decide them at this distance. */
static void ext_chunk(worker_t *w, uint64_t unit)
{
    gen_t *g = w->g;
    uint32_t len = CHUNK_WORDS * 64, from = (uint32_t)unit * len;
    uint32_t to = g->n - from < len ? g->n : from + len;
    uint8_t want = (uint8_t)g->level;
    for (uint32_t i = from; i < to; i++) {
        if (g->ext[i] != want)
            continue;
        uint32_t p = g->n + i;
        if (__atomic_load_n(&g->val[p], __ATOMIC_RELAXED) != UNKNOWN)
            continue;
        if ((want & 1) || __atomic_load_n(&g->cnt[p], __ATOMIC_RELAXED) == 0)
            w->resolved += resolve(g, p);
    }
}

static void copy_repeats(worker_t *w, uint64_t unit)
{
    gen_t *g = w->g;
    int side = (int)(unit / TB_TIGER_CLASSES), k = (int)(unit % TB_TIGER_CLASSES);
    const tb_class_t *c = &g->ix->cls[k];
    if (!c->nstab)
        return;
    uint32_t base = (uint32_t)side * g->n + (uint32_t)k * g->ng;
    for (uint32_t r = 0; r < g->ng; r++) {
        if (g->val[base + r] != REPEAT)
            continue;
        int s;
        bb_t e = tbi_canon_free(g->ix, c, tbi_unrank_free(g->ix, c, r, g->k), &s);
        g->val[base + r] = g->val[base + tbi_rank_free(g->ix, c, e)];
    }
}

/* ---- One slice ---------------------------------------------------------------------- */

typedef struct {
    const tb_gen_options_t *o;
    double work_done, work_total;
} build_ctx_t;

static void report(build_ctx_t *b, const gen_t *g, tb_phase_t phase, uint64_t resolved, double work)
{
    if (!b->o->progress)
        return;
    tb_progress_t p = {g->c, phase, g->level, resolved, 2 * (uint64_t)g->n, b->work_done + work, b->work_total};
    b->o->progress(b->o->ctx, &p);
}

/* Frees the work arrays, and the values too when the slice failed. */
static void gen_free(gen_t *g, bool values)
{
    if (values) {
        free(g->val);
        g->val = NULL;
    }
    free(g->cnt);
    free(g->ext);
    free(g->bm[0]);
    free(g->bm[1]);
    free(g->subsets);
    free(g->workers);
    g->cnt = g->ext = NULL;
    g->bm[0] = g->bm[1] = NULL;
    g->subsets = NULL;
    g->workers = NULL;
}

/* Builds slice c into g->val (2n bytes, allocated here). lower: the goats-to-move values of
 * slice c + 1, or NULL when c + 1 captures win. */
static tb_error_t build_slice(gen_t *g, build_ctx_t *b, char *msg, size_t msglen)
{
    uint64_t n2 = 2 * (uint64_t)g->n;
    g->words = (size_t)((n2 + 63) / 64);
    g->val = malloc(n2);
    g->cnt = malloc(n2);
    g->ext = malloc(g->n);
    g->bm[0] = calloc(g->words, sizeof(uint64_t));
    g->bm[1] = calloc(g->words, sizeof(uint64_t));
    g->subsets = malloc(g->ng * sizeof *g->subsets);
    g->workers = malloc((size_t)g->threads * sizeof *g->workers);
    if (!g->val || !g->cnt || !g->ext || !g->bm[0] || !g->bm[1] || !g->subsets || !g->workers) {
        gen_free(g, true);
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory building slice %d", g->c);
    }
    /* Colex order of the empty points is numeric order of their masks. */
    for (uint32_t r = 0, m = (1u << g->k) - 1; r < g->ng; r++, m = next_subset(m))
        g->subsets[r] = m;
    double slice_work = (double)n2 * 2;
    g->unit_classes = 16384 / g->ng + 1;
    g->level = 0;
    report(b, g, TB_PHASE_INIT, 0, 0);
    worker_t total = {0};
    run_pass(g, init_class, 2 * TB_TIGER_CLASSES, &total);
    if (total.overflow) {
        gen_free(g, true);
        return fail(TB_ERR_LIMIT, msg, msglen, "slice %d: a move counter exceeds 255", g->c);
    }
    int max_ext = 0;
    for (int x = 1; x < NOLOSS; x++)
        if (total.ext_hist[x])
            max_ext = x;
    uint64_t resolved = total.resolved, last = total.resolved;
    report(b, g, TB_PHASE_LEVEL, resolved, (double)n2);
    while (last || g->level < max_ext) {
        g->level++;
        if (g->level > TB_MAX_DISTANCE) {
            gen_free(g, true);
            return fail(TB_ERR_LIMIT, msg, msglen, "slice %d: distance beyond %d", g->c, TB_MAX_DISTANCE);
        }
        memset(g->bm[g->level & 1], 0, g->words * sizeof(uint64_t));
        worker_t lv = {0};
        if (total.ext_hist[g->level])
            run_pass(g, ext_chunk, (g->n + CHUNK_WORDS * 64 - 1) / (CHUNK_WORDS * 64), &lv);
        if (last)
            run_pass(g, level_chunk, (TB_TIGER_CLASSES + g->unit_classes - 1) / g->unit_classes, &lv);
        last = lv.resolved;
        resolved += last;
        report(b, g, TB_PHASE_LEVEL, resolved, (double)n2 + (double)resolved);
    }
    worker_t fill = {0};
    run_pass(g, copy_repeats, 2 * TB_TIGER_CLASSES, &fill);
    g->resolved = resolved;
    gen_free(g, false);
    b->work_done += slice_work;
    return TB_OK;
}

/* ---- The file ---------------------------------------------------------------------- */

static tb_error_t write_header(int fd, const tb_header_t *h, char *msg, size_t msglen)
{
    uint8_t buf[TB_HEADER_SIZE];
    tb_header_encode(h, buf);
    if (!tb_pwrite_all(fd, buf, sizeof buf, 0) || fsync(fd) != 0)
        return fail(TB_ERR_IO, msg, msglen, "cannot write the header: %s", strerror(errno));
    return TB_OK;
}

/* Reads a built slice and checks its checksum; *out is NULL when it does not match. */
static tb_error_t load_slice(int fd, const tb_header_t *h, int c, uint8_t **out, char *msg, size_t msglen)
{
    const tb_slice_info_t *s = &h->slice[c];
    *out = NULL;
    uint8_t *buf = malloc(s->length);
    if (!buf)
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory reading slice %d", c);
    if (!tb_pread_all(fd, buf, s->length, s->offset)) {
        free(buf);
        return fail(TB_ERR_IO, msg, msglen, "cannot read slice %d: %s", c, errno ? strerror(errno) : "short file");
    }
    if (tb_checksum(buf, s->length) != s->checksum) {
        free(buf);
        return TB_OK;
    }
    *out = buf;
    return TB_OK;
}

static int longest_of(const uint8_t *v, uint64_t len)
{
    int longest = 0;
    for (uint64_t i = 0; i < len; i++)
        if (v[i] != UNKNOWN && v[i] > longest)
            longest = v[i];
    return longest;
}

/* Opens or creates the file and returns its header: a file that is not a database, or is
 * for another capture count when everything is rebuilt, is started afresh. */
static tb_error_t open_file(const tb_gen_options_t *o, const char *path, int *fd_out, tb_header_t *h, char *msg,
                            size_t msglen)
{
    char sp[TB_PATH_SHOWN];
    int fd = tb_open_regular(path, O_RDWR | O_CREAT, msg, msglen);
    if (fd < 0)
        return TB_ERR_IO;
    uint8_t buf[TB_HEADER_SIZE];
    struct stat st;
    bool fresh = true, whole = fstat(fd, &st) == 0 && st.st_size >= TB_HEADER_SIZE && tb_pread_all(fd, buf, sizeof buf, 0);
    /* A file of a newer format than this program writes is not built over unless asked. */
    uint32_t version = whole && !memcmp(buf, "BAGHCHTB", 8) ? (uint32_t)tb_get_le(buf + 8, 4) : 0;
    if (version > TB_FILE_VERSION && !(o->restart && o->slice < 0)) {
        close(fd);
        return fail(TB_ERR_FORMAT, msg, msglen,
                    "%s is version %u, newer than this program (version %d): not built over; use the newer "
                    "program (--restart replaces it with version %d)",
                    tb_path_shown(path, sp), version, TB_FILE_VERSION, TB_FILE_VERSION);
    }
    if (whole && tb_header_decode(buf, sizeof buf, h, NULL, 0) == TB_OK) {
        fresh = false;
        if (h->captures_to_win != (uint32_t)o->captures_to_win || h->goats_total != (uint32_t)o->goats_total) {
            if (!(o->restart && o->slice < 0)) {
                close(fd);
                return fail(TB_ERR_MISMATCH, msg, msglen,
                            "%s holds a database for %u goats and %u captures (use --restart to replace it)",
                            tb_path_shown(path, sp), h->goats_total, h->captures_to_win);
            }
            fresh = true;
        }
    }
    if (fresh)
        tb_header_init(h, o->captures_to_win, o->goats_total);
    tb_error_t e = TB_OK;
    if (ftruncate(fd, (off_t)h->file_size) != 0)
        e = fail(TB_ERR_IO, msg, msglen, "cannot size %s: %s", tb_path_shown(path, sp), strerror(errno));
    else if (fresh)
        e = write_header(fd, h, msg, msglen);
    if (e != TB_OK) {
        close(fd);
        return e;
    }
    *fd_out = fd;
    return TB_OK;
}

void tb_gen_options_init(tb_gen_options_t *o, const char *dir)
{
    memset(o, 0, sizeof *o);
    o->dir = dir;
    o->threads = 1;
    o->captures_to_win = BC_CAPTURES_TO_WIN;
    o->goats_total = BC_GOATS_TOTAL;
    o->slice = -1;
}

static tb_error_t generate(const tb_gen_options_t *o, int fd, tb_header_t *h, const tb_index_t *ix,
                           const bb_t (*sym_steps)[SQUARE_NB], char *msg, size_t msglen)
{
    int n = o->captures_to_win;
    build_ctx_t b = {o, 0, 0};
    bool todo[TB_MAX_SLICES] = {false};
    for (int c = 0; c < n; c++) {
        todo[c] = o->slice < 0 || o->slice == c;
        if (todo[c] && o->restart)
            h->slice[c].built = 0;
        if (todo[c])
            b.work_total += 4.0 * (double)tb_slice_size_game(o->goats_total, c);
    }
    uint8_t *upper = NULL; /* slice c + 1, both sides */
    tb_error_t e = TB_OK;
    for (int c = n - 1; c >= 0 && e == TB_OK; c--) {
        if (o->slice >= 0 && (c > o->slice + 1 || c < o->slice))
            continue; /* only slice K is built, from slice K + 1 */
        gen_t g = {0};
        g.ix = ix, g.c = c, g.k = 21 - o->goats_total + c, g.threads = o->threads, g.sym_steps = sym_steps;
        g.ng = ix->binom[21][g.k];
        g.n = (uint32_t)tb_slice_size_game(o->goats_total, c);
        uint8_t *done = NULL;
        if (h->slice[c].built && (e = load_slice(fd, h, c, &done, msg, msglen)) != TB_OK)
            break;
        if (done || !todo[c]) {
            /* A finished slice is skipped (and kept for the slice below); a slice neither
             * finished nor asked for leaves nothing to build on. */
            free(upper);
            upper = done;
            if (done && todo[c]) {
                b.work_done += 4.0 * (double)g.n;
                report(&b, &g, TB_PHASE_SKIP, 0, 0);
            }
            continue;
        }
        g.lower = upper;
        g.lower_ng = c + 1 < n ? ix->binom[21][g.k + 1] : 0;
        if (c + 1 < n && !upper) {
            e = fail(TB_ERR_MISSING, msg, msglen, "slice %d must be built before slice %d", c + 1, c);
            break;
        }
        h->slice[c].built = 0;
        if ((e = write_header(fd, h, msg, msglen)) != TB_OK)
            break;
        if ((e = build_slice(&g, &b, msg, msglen)) != TB_OK)
            break;
        tb_slice_info_t *s = &h->slice[c];
        s->checksum = tb_checksum(g.val, s->length);
        s->longest = (uint32_t)longest_of(g.val, s->length);
        if (!tb_pwrite_all(fd, g.val, s->length, s->offset) || fdatasync(fd) != 0) {
            free(g.val);
            e = fail(TB_ERR_IO, msg, msglen, "cannot write slice %d: %s", c, strerror(errno));
            break;
        }
        s->built = 1;
        e = write_header(fd, h, msg, msglen);
        report(&b, &g, TB_PHASE_WRITE, g.resolved, 0);
        free(upper);
        upper = g.val;
    }
    free(upper);
    return e;
}

tb_error_t tb_generate(const tb_gen_options_t *o, char *msg, size_t msglen)
{
    if (o->captures_to_win < 1 || o->captures_to_win > TB_MAX_SLICES)
        return fail(TB_ERR_ARGUMENT, msg, msglen, "captures to win must be 1..%d", TB_MAX_SLICES);
    if (o->goats_total < o->captures_to_win || o->goats_total > BC_GOATS_TOTAL)
        return fail(TB_ERR_ARGUMENT, msg, msglen, "goats must be %d..%d", o->captures_to_win, BC_GOATS_TOTAL);
    if (o->threads < 1 || o->threads > MAX_WORKERS)
        return fail(TB_ERR_ARGUMENT, msg, msglen, "threads must be 1..%d", MAX_WORKERS);
    if (o->slice < -1 || o->slice >= o->captures_to_win)
        return fail(TB_ERR_ARGUMENT, msg, msglen, "slice must be 0..%d", o->captures_to_win - 1);
    size_t dl = strlen(o->dir), fl = strlen(TB_FILE_NAME);
    char *path = malloc(dl + fl + 2);
    tb_index_t *ix = tb_index_new();
    bb_t(*sym_steps)[SQUARE_NB] = malloc(TB_TIGER_CLASSES * sizeof *sym_steps);
    if (!path || !ix || !sym_steps) {
        free(path);
        free(sym_steps);
        tb_index_free(ix);
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    }
    memcpy(path, o->dir, dl);
    path[dl] = '/';
    memcpy(path + dl + 1, TB_FILE_NAME, fl + 1);
    int fd;
    tb_header_t h;
    char sp[TB_PATH_SHOWN];
    tb_error_t e = open_file(o, path, &fd, &h, msg, msglen);
    if (e == TB_OK) {
        find_sym_steps(ix, sym_steps);
        e = generate(o, fd, &h, ix, (const bb_t(*)[SQUARE_NB])sym_steps, msg, msglen);
        if (close(fd) != 0 && e == TB_OK)
            e = fail(TB_ERR_IO, msg, msglen, "cannot close %s: %s", tb_path_shown(path, sp), strerror(errno));
    }
    free(path);
    free(sym_steps);
    tb_index_free(ix);
    return e;
}
