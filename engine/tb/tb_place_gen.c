/* The placement-phase generator: the value of every position with goats still in hand,
 * layer by layer from the movement database up to the start. Placing a goat lowers the
 * goats in hand, so the positions form layers without cycles and one pass per layer is
 * exact:
 *   goats to move, h in hand, c captured  <- tigers to move, h - 1 in hand, c captured
 *   tigers to move, h in hand, c captured <- goats to move, h in hand, c (step) or c + 1
 *                                            (capture) captured
 * A placement keeps the tigers, so a goats-to-move class block reads only its own block of
 * the layer below; a tiger move maps a whole class block onto one block of the child layer
 * (one symmetry, one translation of the free points), so each (class, move) pair is a pass
 * over two blocks that stay in cache. Layers are kept in memory at 2 bits an entry and
 * written to a work folder as they are finished, so a build resumes at the last finished
 * layer. */
#define _POSIX_C_SOURCE 200809L
#include "tb_build.h"
#include "message.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define fail(e, ...) ((tb_error_t)bc_fail((e), __VA_ARGS__))

enum { FREE_MASK = (1u << 21) - 1, MAX_WORKERS = 64, RAW_HEADER = 64 };

/* ---- Threads ------------------------------------------------------------------------ */

typedef struct pgen pgen_t;

typedef struct {
    pgen_t *g;
    uint8_t *best; /* one class block of results, a byte an entry */
    uint64_t count[3];
} pworker_t;

struct pgen {
    const tb_index_t *ix;
    const tbp_rank_t *rk;
    int goats_total, captures_to_win, threads;
    /* the layer being computed and its inputs */
    tbp_layer_t *out;
    const tbp_layer_t *in_same; /* goats: T(h-1, c); tigers: G(h, c) */
    const tbp_layer_t *in_cap;  /* tigers: G(h, c + 1), NULL when a capture wins */
    void (*unit)(pworker_t *w, uint32_t k);
    uint32_t next; /* atomic: next class */
    pworker_t workers[MAX_WORKERS];
};

static void *worker_main(void *arg)
{
    pworker_t *w = arg;
    pgen_t *g = w->g;
    for (;;) {
        uint32_t k = __atomic_fetch_add(&g->next, 1, __ATOMIC_RELAXED);
        if (k >= TB_TIGER_CLASSES)
            break;
        g->unit(w, k);
    }
    return NULL;
}

static void run_layer(pgen_t *g, void (*unit)(pworker_t *, uint32_t), uint64_t count[3])
{
    pthread_t tid[MAX_WORKERS];
    bool started[MAX_WORKERS] = {false};
    g->unit = unit;
    g->next = 0;
    for (int i = 0; i < g->threads; i++)
        memset(g->workers[i].count, 0, sizeof g->workers[i].count);
    for (int i = 1; i < g->threads; i++)
        started[i] = pthread_create(&tid[i], NULL, worker_main, &g->workers[i]) == 0;
    worker_main(&g->workers[0]);
    for (int i = 1; i < g->threads; i++)
        if (started[i])
            pthread_join(tid[i], NULL);
    for (int i = 0; i < g->threads; i++)
        for (int v = 0; v < 3; v++)
            count[v] += g->workers[i].count[v];
}

/* The next set of as many points in colex order (m != 0), without a division. */
static inline uint32_t next_subset(uint32_t m)
{
    uint32_t t = m | (m - 1);
    return (t + 1) | (((~t & -~t) - 1) >> (__builtin_ctz(m) + 1));
}

/* Packs a block of byte results into the layer and counts them over positions. */
static void store_block(pworker_t *w, tbp_layer_t *l, uint32_t k)
{
    uint64_t *o = l->bits + (uint64_t)k * l->wpc;
    uint32_t orbit = w->g->ix->cls[k].orbit;
    memset(o, 0, l->wpc * sizeof *o);
    for (uint32_t r = 0; r < l->ng; r++) {
        o[r >> 5] |= (uint64_t)w->best[r] << ((r & 31) * 2);
        w->count[w->best[r]] += orbit;
    }
}

/* Goats to move: the best placement. A child the tigers lose is a win; else a drawn child
 * draws; else every placement loses. There is always a free point to place on. */
static void goat_block(pworker_t *w, uint32_t k)
{
    pgen_t *g = w->g;
    const tbp_rank_t *rk = g->rk;
    const tbp_layer_t *in = g->in_same;
    const uint64_t *child = in->bits + (uint64_t)k * in->wpc;
    uint32_t ng = g->out->ng, m = (1u << g->out->goats) - 1;
    for (uint32_t r = 0; r < ng; r++) {
        uint8_t best = 0;
        for (uint32_t f = ~m & FREE_MASK; f; f &= f - 1) {
            uint32_t v = tbp_get(child, tbp_rank(rk, m | (f & -f)));
            if (v == 0) {
                best = 2;
                break;
            }
            best |= (uint8_t)(v == 1);
        }
        w->best[r] = best;
        if (m)
            m = next_subset(m);
    }
    store_block(w, g->out, k);
}

/* The translation of a class's free points into a child class's free points under a tiger
 * move, as three 7-bit lookup tables. */
typedef struct {
    uint32_t t0[128], t1[128], t2[128];
} xlat_t;

static void xlat_init(xlat_t *x, const tb_index_t *ix, const tb_class_t *from, const tb_class_t *to, int sym)
{
    uint32_t map[21];
    for (int i = 0; i < 21; i++) {
        int sq = ix->perm[sym][from->free_sq[i]];
        map[i] = to->cpos[sq] == 0xFF ? 0 : 1u << to->cpos[sq];
    }
    for (uint32_t b = 0; b < 128; b++) {
        x->t0[b] = x->t1[b] = x->t2[b] = 0;
        for (int q = 0; q < 7; q++)
            if (b >> q & 1) {
                x->t0[b] |= map[q];
                x->t1[b] |= map[7 + q];
                x->t2[b] |= map[14 + q];
            }
    }
}

static inline uint32_t xlat(const xlat_t *x, uint32_t m) { return x->t0[m & 127] | x->t1[(m >> 7) & 127] | x->t2[m >> 14]; }

/* Tigers to move: every step and capture of the class's tigers, one pass over the block per
 * move; captures first, as they decide most positions. */
static void tiger_block(pworker_t *w, uint32_t k)
{
    pgen_t *g = w->g;
    const tb_index_t *ix = g->ix;
    const tbp_rank_t *rk = g->rk;
    const tb_class_t *c = &ix->cls[k];
    const bb_t t = c->tigers;
    uint32_t ng = g->out->ng, goats = g->out->goats;
    uint8_t *best = w->best;
    memset(best, 0, ng); /* no move: the tigers have lost */
    xlat_t x;
    for (int pass = 0; pass < 2; pass++) {
        bool capture = pass == 0;
        if (capture && goats == 0)
            continue;
        for (bb_t tf = t; tf; tf &= tf - 1) {
            int from = bb_first(tf);
            int nmoves = capture ? BC_JUMP_COUNT[from] : bb_count(BC_STEPS[from] & ~t);
            bb_t steps = BC_STEPS[from] & ~t;
            for (int q = 0; q < nmoves; q++) {
                int to, over = -1;
                if (capture) {
                    to = BC_JUMPS[from][q].to, over = BC_JUMPS[from][q].over;
                    if ((t & bb_square(to)) || (t & bb_square(over)))
                        continue;
                } else {
                    to = bb_first(steps);
                    steps &= steps - 1;
                }
                uint32_t ubit = 1u << c->cpos[to];
                uint32_t sbit = over >= 0 ? 1u << c->cpos[over] : 0;
                bb_t t2 = t ^ bb_square(from) ^ bb_square(to);
                tb_tmap_t tm = ix->tmap[tbi_tiger_rank(ix, t2)];
                const tb_class_t *c2 = &ix->cls[tm.cls];
                bool wins = capture && g->in_cap == NULL;
                const tbp_layer_t *in = capture ? g->in_cap : g->in_same;
                const uint64_t *child = wins ? NULL : in->bits + (uint64_t)tm.cls * in->wpc;
                if (!wins)
                    xlat_init(&x, ix, c, c2, tm.sym);
                uint32_t m = (1u << goats) - 1;
                for (uint32_t r = 0; r < ng; r++, m = m ? next_subset(m) : m) {
                    if (best[r] == 2 || (m & ubit) || (capture && !(m & sbit)))
                        continue;
                    if (wins) {
                        best[r] = 2;
                        continue;
                    }
                    uint8_t o = (uint8_t)(2 - tbp_get(child, tbp_rank(rk, xlat(&x, m & ~sbit))));
                    if (o > best[r])
                        best[r] = o;
                }
            }
        }
    }
    store_block(w, g->out, k);
}

/* ---- Layer files (the work folder) ----------------------------------------------------- */

static void layer_path(char *buf, size_t len, const char *dir, int side, int h, int c)
{
    snprintf(buf, len, "%s/%c%02d-%d.raw", dir, side == GOATS ? 'g' : 't', h, c);
}

static const char RAW_MAGIC[8] = {'B', 'C', 'P', 'L', 'A', 'Y', 'E', 'R'};

static void raw_header(uint8_t hdr[RAW_HEADER], const tbp_layer_t *l, int goats_total, int captures_to_win)
{
    memset(hdr, 0, RAW_HEADER);
    memcpy(hdr, RAW_MAGIC, 8);
    tb_put_le(hdr + 8, (uint64_t)goats_total, 4);
    tb_put_le(hdr + 12, (uint64_t)captures_to_win, 4);
    tb_put_le(hdr + 16, (uint64_t)l->side, 4);
    tb_put_le(hdr + 20, (uint64_t)l->h, 4);
    tb_put_le(hdr + 24, (uint64_t)l->c, 4);
    tb_put_le(hdr + 28, l->words, 8);
    for (int v = 0; v < 3; v++)
        tb_put_le(hdr + 36 + 8 * v, l->count[v], 8);
}

/* Writes a finished layer: a header, the words, and the checksum of the words, to a
 * temporary name renamed into place, so a layer file is there only when it is whole. */
tb_error_t tbp_layer_save(const char *dir, const tbp_layer_t *l, int goats_total, int captures_to_win, char *msg,
                          size_t msglen)
{
    char path[4096], tmp[4100];
    layer_path(path, sizeof path, dir, l->side, l->h, l->c);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    uint8_t hdr[RAW_HEADER], sum[8];
    raw_header(hdr, l, goats_total, captures_to_win);
    tb_put_le(sum, tb_checksum(l->bits, l->words * 8), 8);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return fail(TB_ERR_IO, msg, msglen, "cannot create %s: %s", tmp, strerror(errno));
    uint64_t data = l->words * 8;
    bool ok = tb_pwrite_all(fd, hdr, sizeof hdr, 0) && tb_pwrite_all(fd, l->bits, data, RAW_HEADER) &&
              tb_pwrite_all(fd, sum, sizeof sum, RAW_HEADER + data) && fdatasync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return fail(TB_ERR_IO, msg, msglen, "cannot write %s: %s", path, strerror(errno));
    }
    return TB_OK;
}

/* Loads a finished layer into l (shaped already; bits allocated here). TB_ERR_MISSING when
 * there is no such file or it is not whole and right (then it is built again). */
tb_error_t tbp_layer_load(const char *dir, tbp_layer_t *l, int goats_total, int captures_to_win, char *msg,
                          size_t msglen)
{
    char path[4096];
    layer_path(path, sizeof path, dir, l->side, l->h, l->c);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return fail(TB_ERR_MISSING, msg, msglen, "%s: %s", path, strerror(errno));
    uint8_t hdr[RAW_HEADER], want[RAW_HEADER], sum[8];
    tb_error_t e = TB_ERR_MISSING;
    l->bits = malloc(l->words ? l->words * 8 : 8);
    if (!l->bits) {
        close(fd);
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory loading %s", path);
    }
    uint64_t data = l->words * 8;
    if (tb_pread_all(fd, hdr, sizeof hdr, 0)) {
        for (int v = 0; v < 3; v++)
            l->count[v] = tb_get_le(hdr + 36 + 8 * v, 8);
        raw_header(want, l, goats_total, captures_to_win);
        if (memcmp(hdr, want, RAW_HEADER) == 0 && tb_pread_all(fd, l->bits, data, RAW_HEADER) &&
            tb_pread_all(fd, sum, 8, RAW_HEADER + data) &&
            tb_get_le(sum, 8) == tb_checksum(l->bits, l->words * 8))
            e = TB_OK;
    }
    close(fd);
    if (e != TB_OK) {
        free(l->bits);
        l->bits = NULL;
        return fail(e, msg, msglen, "%s is not a finished layer", path);
    }
    return TB_OK;
}

/* ---- The movement database's tigers-to-move values as layer T(0, c) -------------------- */

static tb_error_t movement_layer(const tb_t *tb, const tb_index_t *ix, const tbp_rank_t *rk, int goats_total, int c,
                                 tbp_layer_t *l, char *msg, size_t msglen)
{
    tbp_layer_shape(l, rk, goats_total, TIGERS, 0, c);
    const uint8_t *v = tb_slice_values(tb, c, TIGERS);
    int empties = 21 - l->goats;
    if (!v || rk->binom[21][empties] != tb_slice_goat_sets(tb, c))
        return fail(TB_ERR_MISMATCH, msg, msglen, "the movement database does not match %d goats", goats_total);
    l->bits = calloc(l->words ? l->words : 1, 8);
    if (!l->bits)
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    uint32_t mng = rk->binom[21][empties];
    for (uint32_t k = 0; k < TB_TIGER_CLASSES; k++) {
        uint64_t *o = l->bits + (uint64_t)k * l->wpc;
        uint32_t m = (1u << l->goats) - 1;
        for (uint32_t r = 0; r < l->ng; r++, m = m ? next_subset(m) : m) {
            uint8_t b = v[(uint64_t)k * mng + tbp_rank(rk, ~m & FREE_MASK)];
            uint64_t x = b == 0xFF ? 1 : (b & 1) ? 2 : 0;
            o[r >> 5] |= x << ((r & 31) * 2);
            l->count[x] += ix->cls[k].orbit;
        }
    }
    return TB_OK;
}

/* ---- The build ---------------------------------------------------------------------- */

void tbp_gen_options_init(tbp_gen_options_t *o, const char *dir)
{
    memset(o, 0, sizeof *o);
    o->dir = dir;
    o->threads = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Work of a layer, for the estimate: tiger layers cost about six times a goat layer. */
static double layer_work(const tbp_layer_t *l) { return (double)l->ng * TB_TIGER_CLASSES * (l->side == TIGERS ? 6 : 1); }

static void layer_free(tbp_layer_t *l)
{
    if (l) {
        free(l->bits);
        l->bits = NULL;
    }
}

tb_error_t tbp_generate(const tbp_gen_options_t *o, const tb_t *movement, char *msg, size_t msglen)
{
    int n = tb_goats_total(movement), K = tb_captures_to_win(movement);
    int top = o->max_in_hand > 0 && o->max_in_hand < n ? o->max_in_hand : n;
    if (o->threads < 1 || o->threads > MAX_WORKERS)
        return fail(TB_ERR_ARGUMENT, msg, msglen, "threads must be 1..%d", MAX_WORKERS);
    const tb_index_t *ix = tb_index(movement);
    tbp_rank_t *rk = malloc(sizeof *rk);
    pgen_t *g = calloc(1, sizeof *g);
    /* Per (side, c): the layer of the current h. prev_t: T(h - 1, c). */
    tbp_layer_t *lay = calloc(4 * (size_t)TB_MAX_SLICES, sizeof *lay);
    bool ok = rk && g && lay;
    if (ok) {
        tbp_rank_init(rk);
        for (int i = 0; i < o->threads && ok; i++) {
            g->workers[i].g = g;
            ok = (g->workers[i].best = malloc(rk->binom[21][10])) != NULL;
        }
    }
    if (!ok) {
        if (g)
            for (int i = 0; i < o->threads; i++)
                free(g->workers[i].best);
        free(rk), free(g), free(lay);
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    }
    g->ix = ix, g->rk = rk, g->goats_total = n, g->captures_to_win = K, g->threads = o->threads;
    tbp_layer_t *prev_t = lay, *cur_g = lay + TB_MAX_SLICES, *cur_t = lay + 2 * TB_MAX_SLICES;
    tb_error_t e = TB_OK;
    double work_total = 0, work_done = 0, start = now_s();
    for (int h = 1; h <= top; h++)
        for (int c = 0; c < K; c++)
            for (int side = 0; side < SIDE_NB; side++)
                if (tbp_layer_exists(n, K, side, h, c) && tbp_layer_in_scope(n, side, h, c, top, o->min_goats)) {
                    tbp_layer_t l;
                    tbp_layer_shape(&l, rk, n, side, h, c);
                    work_total += layer_work(&l);
                }
    for (int c = 0; c < K && e == TB_OK; c++)
        e = movement_layer(movement, ix, rk, n, c, &prev_t[c], msg, msglen);
    for (int h = 1; h <= top && e == TB_OK; h++) {
        for (int c = K - 1; c >= 0 && e == TB_OK; c--) {
            for (int side = GOATS; side <= TIGERS && e == TB_OK; side++) {
                if (!tbp_layer_exists(n, K, side, h, c) || !tbp_layer_in_scope(n, side, h, c, top, o->min_goats))
                    continue;
                tbp_layer_t *l = side == GOATS ? &cur_g[c] : &cur_t[c];
                tbp_layer_shape(l, rk, n, side, h, c);
                double t0 = now_s();
                bool built = false;
                if (o->restart || (e = tbp_layer_load(o->dir, l, n, K, NULL, 0)) != TB_OK) {
                    if (e == TB_ERR_NO_MEMORY)
                        break;
                    e = TB_OK;
                    if (!(l->bits = malloc(l->words ? l->words * 8 : 8))) {
                        e = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
                        break;
                    }
                    g->out = l;
                    if (side == GOATS) {
                        g->in_same = &prev_t[c];
                        run_layer(g, goat_block, l->count);
                    } else {
                        g->in_same = &cur_g[c];
                        g->in_cap = c + 1 < K ? &cur_g[c + 1] : NULL;
                        run_layer(g, tiger_block, l->count);
                    }
                    e = tbp_layer_save(o->dir, l, n, K, msg, msglen);
                    built = true;
                }
                work_done += layer_work(l);
                if (o->progress) {
                    tbp_progress_t p = {side, h, c, (uint64_t)l->ng * TB_TIGER_CLASSES, built, now_s() - t0,
                                        now_s() - start, work_done, work_total, {l->count[0], l->count[1], l->count[2]}};
                    o->progress(o->ctx, &p);
                }
            }
            /* T(h - 1, c) made G(h, c); G(h, c + 1) made T(h, c + 1) and T(h, c). */
            layer_free(&prev_t[c]);
            if (c + 1 < K)
                layer_free(&cur_g[c + 1]);
        }
        /* T(h - 1, *) and G(h, *) are no longer needed: the next layer reads T(h, *). */
        for (int c = 0; c < K; c++) {
            layer_free(&prev_t[c]);
            layer_free(&cur_g[c]);
            prev_t[c] = cur_t[c];
            cur_t[c].bits = NULL;
        }
    }
    for (int i = 0; i < 3 * TB_MAX_SLICES; i++)
        layer_free(&lay[i]);
    for (int i = 0; i < o->threads; i++)
        free(g->workers[i].best);
    free(rk), free(g), free(lay);
    return e;
}
