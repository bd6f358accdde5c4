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
#include <unistd.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#define fail(e, ...) ((tb_error_t)bc_fail((e), __VA_ARGS__))

enum { FREE_MASK = (1u << 21) - 1, TBP_FREE_POINTS = 21, MAX_WORKERS = 64 };

/* ---- Threads ------------------------------------------------------------------------ */

typedef struct pgen pgen_t;

typedef struct {
    pgen_t *g;
    uint8_t *best; /* one class block of results, a byte an entry */
    uint32_t *act, *actm; /* the entries a tiger move is open to, and their masks */
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
    uint32_t *masks; /* the goat sets of the layer being built, by rank (points 0..20) */
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

/* The sets of k points among 21 in colex order (rank r at masks[r]). */
static void fill_masks(uint32_t *masks, int k, uint32_t ng)
{
    uint32_t m = (1u << k) - 1;
    for (uint32_t r = 0; r < ng; r++, m = m ? next_subset(m) : m)
        masks[r] = m;
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
 * draws; else every placement loses. Every entry of a layer has as many placements (the
 * free points), so the loop over them runs without an early exit and predicts well. */
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
/* goat_block sixteen entries at a time: the rank of each placement's set from running sums
 * over the points in order (rank(m + j) = the terms of m's points below j, C(j, points
 * below j + 1), and the terms of the points above j with their index one higher), the
 * binomials of point j taken from two registers. Returns the entries done. */
static uint32_t goat_block16(uint8_t *best, const uint32_t *masks, uint32_t ng, const tbp_rank_t *rk,
                             const uint64_t *child)
{
    __m512i lo[TBP_FREE_POINTS], hi[TBP_FREE_POINTS];
    for (int j = 0; j < TBP_FREE_POINTS; j++) {
        uint32_t row[32] = {0};
        for (int q = 0; q < 22; q++)
            row[q] = rk->binom[j][q];
        lo[j] = _mm512_loadu_si512(row), hi[j] = _mm512_loadu_si512(row + 16);
    }
    const __m512i one = _mm512_set1_epi32(1), two = _mm512_set1_epi32(2), three = _mm512_set1_epi32(3);
    const __m512i fifteen = _mm512_set1_epi32(15), zero = _mm512_setzero_si512();
    uint32_t r = 0;
    for (; r + 16 <= ng; r += 16) {
        __m512i m = _mm512_loadu_si512(masks + r);
        /* The sum over m's points of C(point, index + 1). */
        __m512i cnt = zero, up = zero;
        for (int j = 0; j < TBP_FREE_POINTS; j++) {
            __mmask16 in = _mm512_test_epi32_mask(m, _mm512_set1_epi32(1 << j));
            cnt = _mm512_mask_add_epi32(cnt, in, cnt, one);
            up = _mm512_mask_add_epi32(up, in, up, _mm512_permutex2var_epi32(lo[j], _mm512_add_epi32(cnt, one), hi[j]));
        }
        __m512i below = zero, belowup = zero, best16 = zero;
        cnt = zero;
        for (int j = 0; j < TBP_FREE_POINTS; j++) {
            __mmask16 in = _mm512_test_epi32_mask(m, _mm512_set1_epi32(1 << j));
            __m512i c1 = _mm512_permutex2var_epi32(lo[j], _mm512_add_epi32(cnt, one), hi[j]);
            /* A placement on j: its set's rank, and the child's value there. */
            __mmask16 out = (__mmask16)~in;
            __m512i rank = _mm512_add_epi32(_mm512_add_epi32(below, c1), _mm512_sub_epi32(up, belowup));
            __m512i v = _mm512_mask_i32gather_epi32(zero, out, _mm512_srli_epi32(rank, 4), child, 4);
            v = _mm512_srlv_epi32(v, _mm512_slli_epi32(_mm512_and_si512(rank, fifteen), 1));
            v = _mm512_sub_epi32(two, _mm512_and_si512(v, three));
            best16 = _mm512_mask_max_epu32(best16, out, best16, v);
            /* A point of m: the running sums go past it. */
            __m512i c2 = _mm512_permutex2var_epi32(lo[j], _mm512_add_epi32(cnt, two), hi[j]);
            below = _mm512_mask_add_epi32(below, in, below, c1);
            belowup = _mm512_mask_add_epi32(belowup, in, belowup, c2);
            cnt = _mm512_mask_add_epi32(cnt, in, cnt, one);
        }
        _mm_storeu_si128((__m128i *)(best + r), _mm512_cvtepi32_epi8(best16));
    }
    return r;
}
#endif

static void goat_block(pworker_t *w, uint32_t k)
{
    pgen_t *g = w->g;
    const tbp_rank_t *rk = g->rk;
    const tbp_layer_t *in = g->in_same;
    const uint64_t *child = in->bits + (uint64_t)k * in->wpc;
    const uint32_t *masks = g->masks;
    uint32_t ng = g->out->ng, r = 0;
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
    r = goat_block16(w->best, masks, ng, rk, child);
#endif
    for (; r < ng; r++) {
        uint32_t m = masks[r], best = 0;
        for (uint32_t f = ~m & FREE_MASK; f; f &= f - 1) {
            uint32_t o = 2 - tbp_get(child, tbp_rank(rk, m | (f & -f)));
            best = o > best ? o : best;
        }
        w->best[r] = (uint8_t)best;
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

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512VPOPCNTDQ__)
/* tiger_move with AVX-512: first the entries the move is open to (legal, not won yet) are
 * gathered into act[] (with their masks), then their children are looked up sixteen at a
 * time. Returns the entries done (a multiple of 16; the rest is left to the plain loop). */
static uint32_t tiger_move16(uint8_t *best, const uint32_t *masks, uint32_t ng, const xlat_t *x, const tbp_rank_t *rk,
                             const uint64_t *child, uint32_t ubit, uint32_t sbit, uint32_t *act, uint32_t *actm)
{
    const __m512i need = _mm512_set1_epi32((int)(ubit | sbit)), want = _mm512_set1_epi32((int)sbit);
    const __m512i keep = _mm512_set1_epi32((int)~sbit), m127 = _mm512_set1_epi32(127);
    const __m512i eight = _mm512_set1_epi32(8), fifteen = _mm512_set1_epi32(15), two = _mm512_set1_epi32(2);
    const __m512i zero = _mm512_setzero_si512(), lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m128i won = _mm_set1_epi8(2);
    uint32_t r = 0, n = 0;
    for (; r + 16 <= ng; r += 16) {
        __mmask16 open = (__mmask16)~_mm_cmpeq_epi8_mask(_mm_loadu_si128((const __m128i *)(best + r)), won);
        __m512i m = _mm512_loadu_si512(masks + r);
        __mmask16 ok = _mm512_mask_cmpeq_epi32_mask(open, _mm512_and_si512(m, need), want);
        /* Compressed in a register and stored whole (act and actm have 16 entries to spare): a
         * compressing store to memory is microcoded on some processors, many times slower. */
        _mm512_storeu_si512(act + n, _mm512_maskz_compress_epi32(ok, _mm512_add_epi32(_mm512_set1_epi32((int)r), lanes)));
        _mm512_storeu_si512(actm + n, _mm512_maskz_compress_epi32(ok, m));
        n += (uint32_t)__builtin_popcount(ok);
    }
    for (uint32_t i = 0; i < n; i += 16) {
        __mmask16 ok = n - i >= 16 ? 0xFFFF : (__mmask16)((1u << (n - i)) - 1);
        __m512i m = _mm512_and_si512(_mm512_maskz_loadu_epi32(ok, actm + i), keep);
        __m512i c = _mm512_mask_i32gather_epi32(zero, ok, _mm512_and_si512(m, m127), x->t0, 4);
        c = _mm512_or_si512(c, _mm512_mask_i32gather_epi32(zero, ok, _mm512_and_si512(_mm512_srli_epi32(m, 7), m127),
                                                             x->t1, 4));
        c = _mm512_or_si512(c, _mm512_mask_i32gather_epi32(zero, ok, _mm512_srli_epi32(m, 14), x->t2, 4));
        /* The rank of c: three 7-bit pieces, each after the points below it. */
        __m512i a = _mm512_and_si512(c, m127), bb = _mm512_and_si512(_mm512_srli_epi32(c, 7), m127);
        __m512i hi = _mm512_srli_epi32(c, 14), na = _mm512_popcnt_epi32(a), nb = _mm512_popcnt_epi32(bb);
        __m512i rank = _mm512_mask_i32gather_epi32(zero, ok, a, rk->lo, 4);
        rank = _mm512_add_epi32(rank, _mm512_mask_i32gather_epi32(
                                          zero, ok, _mm512_add_epi32(_mm512_mullo_epi32(bb, eight), na), rk->mid, 4));
        rank = _mm512_add_epi32(
            rank, _mm512_mask_i32gather_epi32(
                      zero, ok, _mm512_add_epi32(_mm512_mullo_epi32(hi, fifteen), _mm512_add_epi32(na, nb)), rk->hi, 4));
        /* The child's value: 2 bits of its block, read as 32-bit words (little-endian). */
        __m512i v = _mm512_mask_i32gather_epi32(zero, ok, _mm512_srli_epi32(rank, 4), child, 4);
        v = _mm512_srlv_epi32(v, _mm512_slli_epi32(_mm512_and_si512(rank, _mm512_set1_epi32(15)), 1));
        v = _mm512_sub_epi32(two, _mm512_and_si512(v, _mm512_set1_epi32(3)));
        uint32_t o[16];
        _mm512_storeu_si512(o, v);
        for (uint32_t q = 0; q < 16 && i + q < n; q++) {
            uint8_t *b = best + act[i + q];
            *b = (uint8_t)(o[q] > *b ? o[q] : *b);
        }
    }
    return r;
}
#endif

/* One tiger move of a class block: best[r] = max(best[r], 2 - child value) over the entries
 * where the move is legal (its target empty; for a capture, a goat to jump). Entries are
 * taken eight at a time, and eight already won are skipped whole; the rest runs without
 * branches, an illegal entry reading the child's entry 0 and counting for nothing. */
static void tiger_move(uint8_t *best, const uint32_t *masks, uint32_t ng, const xlat_t *x, const tbp_rank_t *rk,
                       const uint64_t *child, uint32_t ubit, uint32_t sbit, uint32_t *act, uint32_t *actm)
{
    (void)act, (void)actm;
    uint32_t need = ubit | sbit, want = sbit, r0 = 0;
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512VPOPCNTDQ__)
    r0 = tiger_move16(best, masks, ng, x, rk, child, ubit, sbit, act, actm);
#endif
    for (; r0 < ng; r0 += 8) {
        uint32_t n = ng - r0 < 8 ? ng - r0 : 8;
        uint64_t b8;
        if (n == 8) {
            memcpy(&b8, best + r0, 8);
            if (b8 == 0x0202020202020202ull)
                continue;
        }
        for (uint32_t r = r0; r < r0 + n; r++) {
            uint32_t m = masks[r];
            uint32_t ok = (m & need) == want;
            uint32_t idx = tbp_rank(rk, xlat(x, m & ~sbit)) & (0u - ok);
            uint32_t o = (2 - tbp_get(child, idx)) & (0u - ok);
            best[r] = (uint8_t)(o > best[r] ? o : best[r]);
        }
    }
}

/* The same for the capture that wins: every entry with a goat to jump and room behind. */
static void tiger_winning_capture(uint8_t *best, const uint32_t *masks, uint32_t ng, uint32_t ubit, uint32_t sbit)
{
    for (uint32_t r = 0; r < ng; r++)
        if ((masks[r] & (ubit | sbit)) == sbit)
            best[r] = 2;
}

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
                if (capture && g->in_cap == NULL) {
                    tiger_winning_capture(best, g->masks, ng, ubit, sbit);
                    continue;
                }
                bb_t t2 = t ^ bb_square(from) ^ bb_square(to);
                tb_tmap_t tm = ix->tmap[tbi_tiger_rank(ix, t2)];
                const tbp_layer_t *in = capture ? g->in_cap : g->in_same;
                xlat_init(&x, ix, c, &ix->cls[tm.cls], tm.sym);
                tiger_move(best, g->masks, ng, &x, rk, in->bits + (uint64_t)tm.cls * in->wpc, ubit, sbit, w->act, w->actm);
            }
        }
    }
    store_block(w, g->out, k);
}

/* ---- The movement database's tigers-to-move values as layer T(0, c) -------------------- */

static tb_error_t movement_layer(const tb_t *tb, const uint8_t *values, const tb_index_t *ix, const tbp_rank_t *rk,
                                 int goats_total, int c, tbp_layer_t *l, char *msg, size_t msglen)
{
    tbp_layer_shape(l, rk, goats_total, TIGERS, 0, c);
    const uint8_t *v = values ? values : tb_slice_values(tb, c, TIGERS);
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

/* Work of a layer, for the estimate: tiger layers cost about six times a goat layer. */
static double layer_work(const tbp_layer_t *l) { return (double)l->ng * TB_TIGER_CLASSES * (l->side == TIGERS ? 6 : 1); }

static void layer_free(tbp_layer_t *l)
{
    if (l) {
        free(l->bits);
        l->bits = NULL;
    }
}

/* What the build keeps in memory: per captured count, the tigers' layer of h - 1 (prev_t),
 * and the goats' and tigers' layers of h (cur_g, cur_t). */
typedef struct {
    const tbp_gen_options_t *o;
    const tb_t *movement;
    pgen_t *g;
    const tbp_rank_t *rk;
    int n, K, top;
    tbp_layer_t prev_t[TB_MAX_SLICES], cur_g[TB_MAX_SLICES], cur_t[TB_MAX_SLICES];
    double work_done, work_total, start;
    int built;
    /* An interrupted merge: the captured counts below `merged` have their arrays written,
     * and these counts of their tigers' layers (whose packed files may be gone). */
    int merged;
    uint64_t merged_count[TB_MAX_SLICES][TBP_MAX_IN_HAND + 1][3];
} build_t;

static bool wanted(const build_t *b, int side, int h, int c)
{
    return tbp_layer_exists(b->n, b->K, side, h, c) && tbp_layer_in_scope(b->n, side, h, c, b->top, b->o->min_goats);
}

bool tbp_layer_has_twins(int captures_to_win, int h, int c) { return h >= 1 && h + c < captures_to_win; }

/* Layer l's every position given one value for the side to move: the twins' bound. */
static void force_layer(tbp_layer_t *l, int twins)
{
    bool goats_win = twins == TBP_TWINS_GOATS_WIN;
    int v = (l->side == GOATS) == goats_win ? 2 : 0;
    memset(l->bits, v == 2 ? 0xAA : 0x00, l->words * 8);
    uint64_t all = l->count[0] + l->count[1] + l->count[2];
    l->count[0] = l->count[1] = l->count[2] = 0;
    l->count[v] = all;
}

/* Computes layer (side, h, c) into l from the layers in memory. */
static tb_error_t compute(build_t *b, tbp_layer_t *l, int side, int h, int c, char *msg, size_t msglen)
{
    pgen_t *g = b->g;
    tbp_layer_shape(l, b->rk, b->n, side, h, c);
    if (!(l->bits = malloc(l->words ? l->words * 8 : 8)))
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    g->out = l;
    fill_masks(g->masks, l->goats, l->ng);
    if (side == GOATS) {
        g->in_same = &b->prev_t[c];
        run_layer(g, goat_block, l->count);
    } else {
        g->in_same = &b->cur_g[c];
        g->in_cap = c + 1 < b->K ? &b->cur_g[c + 1] : NULL;
        run_layer(g, tiger_block, l->count);
    }
    if (b->o->twins && tbp_layer_has_twins(b->K, h, c))
        force_layer(l, b->o->twins);
    return TB_OK;
}

static void report(build_t *b, const tbp_layer_t *l, bool built, double t0)
{
    b->work_done += layer_work(l);
    if (b->o->progress) {
        double now = tb_now_s();
        tbp_progress_t p = {l->side, l->h, l->c, (uint64_t)l->ng * TB_TIGER_CLASSES, built, now - t0, now - b->start,
                            b->work_done, b->work_total, {l->count[0], l->count[1], l->count[2]}};
        b->o->progress(b->o->ctx, &p);
    }
}

/* Unpacks a finished layer into l (for the layers a resumed build needs in memory). */
static tb_error_t unpack(build_t *b, tbp_layer_t *l, int side, int h, int c, char *msg, size_t msglen)
{
    tbp_packed_t *p;
    tb_error_t e = tbp_packed_open(b->o->dir, side, h, c, b->n, b->K, &p, msg, msglen);
    if (e == TB_OK) {
        e = tbp_packed_unpack(p, l, b->o->threads, msg, msglen);
        tbp_packed_close(p);
    }
    return e;
}

/* The finished layers: reported as loaded, up to the first layer not finished (*h, *c,
 * *side); false when every layer is. A tigers' layer whose array the merge has written is
 * finished, packed or not. */
static bool find_resume(build_t *b, int *rh, int *rc, int *rside)
{
    for (int h = 1; h <= b->top; h++)
        for (int c = b->K - 1; c >= 0; c--)
            for (int side = GOATS; side <= TIGERS; side++) {
                if (!wanted(b, side, h, c))
                    continue;
                tbp_packed_t *p = NULL;
                bool done = !b->o->restart &&
                            tbp_packed_open(b->o->dir, side, h, c, b->n, b->K, &p, NULL, 0) == TB_OK &&
                            (tbp_packed_has_values(p) || (side == GOATS && !b->o->keep_goats));
                if (!done && side == TIGERS && c < b->merged) {
                    tbp_layer_t l;
                    tbp_layer_shape(&l, b->rk, b->n, side, h, c);
                    memcpy(l.count, b->merged_count[c][h], sizeof l.count);
                    report(b, &l, false, tb_now_s());
                    tbp_packed_close(p);
                    continue;
                }
                if (!done) {
                    tbp_packed_close(p);
                    *rh = h, *rc = c, *rside = side;
                    return true;
                }
                report(b, tbp_packed_layer(p), false, tb_now_s());
                tbp_packed_close(p);
            }
    return false;
}

/* Where an interrupted merge stands (tbp_gen_options_t.file): the arrays it wrote replace
 * their tigers' layers. A build started again (restart) forgets them. */
static void find_merged(build_t *b)
{
    if (!b->o->file)
        return;
    tbp_merge_options_t m;
    tbp_merge_options_init(&m, b->o->dir, b->o->file, b->n, b->K);
    m.max_in_hand = b->o->max_in_hand, m.min_goats = b->o->min_goats;
    if (b->o->restart)
        tbp_merge_forget(&m);
    else
        b->merged = tbp_merge_done(&m, b->merged_count);
}

/* A layer missing below a merged count's (the work folder changed by hand): the arrays are
 * made again from layers built again, so the merge's are forgotten. */
static void forget_merged(build_t *b)
{
    tbp_merge_options_t m;
    tbp_merge_options_init(&m, b->o->dir, b->o->file, b->n, b->K);
    tbp_merge_forget(&m);
    b->merged = 0;
    b->work_done = 0;
}

/* Brings the memory to what the build holds just before layer (side, h, c): the tigers'
 * layers of h - 1 it still needs, those of h already finished, and the goats' layers the
 * next tigers' layer reads (built again: only their counts were kept). */
static tb_error_t resume_at(build_t *b, int side, int h, int c, char *msg, size_t msglen)
{
    tb_error_t e = TB_OK;
    for (int q = 0; q < b->K && e == TB_OK; q++) {
        if (h == 1)
            e = movement_layer(b->movement, b->o->movement_tigers[q], b->g->ix, b->rk, b->n, q, &b->prev_t[q], msg,
                               msglen);
        else if (q <= c + 1 && wanted(b, TIGERS, h - 1, q))
            e = unpack(b, &b->prev_t[q], TIGERS, h - 1, q, msg, msglen);
    }
    for (int q = c + 1; q < b->K && e == TB_OK; q++)
        if (wanted(b, TIGERS, h, q))
            e = unpack(b, &b->cur_t[q], TIGERS, h, q, msg, msglen);
    if (e == TB_OK && c + 1 < b->K && wanted(b, GOATS, h, c + 1) && wanted(b, TIGERS, h, c))
        e = compute(b, &b->cur_g[c + 1], GOATS, h, c + 1, msg, msglen);
    if (c + 1 < b->K)
        layer_free(&b->prev_t[c + 1]);
    if (e == TB_OK && side == TIGERS)
        e = compute(b, &b->cur_g[c], GOATS, h, c, msg, msglen);
    return e;
}

/* Builds and packs one layer; false when the build is to stop there (stop_after). */
static tb_error_t build_layer(build_t *b, int side, int h, int c, char *msg, size_t msglen)
{
    tbp_layer_t *l = side == GOATS ? &b->cur_g[c] : &b->cur_t[c];
    double t0 = tb_now_s();
    tb_error_t e = compute(b, l, side, h, c, msg, msglen);
    if (e == TB_OK)
        e = tbp_layer_pack(b->o->dir, l, b->n, b->K, side == TIGERS || b->o->keep_goats, b->o->threads, msg, msglen);
    if (e != TB_OK)
        return e;
    report(b, l, true, t0);
    if (b->o->stop_after > 0 && ++b->built >= b->o->stop_after)
        return fail(TB_ERR_LIMIT, msg, msglen, "stopped after %d layers, as asked", b->built);
    return TB_OK;
}

tb_error_t tbp_generate(const tbp_gen_options_t *o, const tb_t *movement, char *msg, size_t msglen)
{
    int n = tb_goats_total(movement), K = tb_captures_to_win(movement);
    if (o->threads < 1 || o->threads > MAX_WORKERS)
        return fail(TB_ERR_ARGUMENT, msg, msglen, "threads must be 1..%d", MAX_WORKERS);
    tbp_rank_t *rk = malloc(sizeof *rk);
    pgen_t *g = calloc(1, sizeof *g);
    build_t *b = calloc(1, sizeof *b);
    bool ok = rk && g && b;
    if (ok) {
        tbp_rank_init(rk);
        ok = (g->masks = malloc(rk->binom[21][10] * sizeof *g->masks)) != NULL;
    }
    for (int i = 0; ok && i < o->threads; i++) {
        pworker_t *w = &g->workers[i];
        w->g = g;
        w->best = malloc(rk->binom[21][10] + 16);
        w->act = malloc((rk->binom[21][10] + 16) * sizeof *w->act);
        w->actm = malloc((rk->binom[21][10] + 16) * sizeof *w->actm);
        ok = w->best && w->act && w->actm;
    }
    tb_error_t e = TB_OK;
    if (!ok) {
        e = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    } else {
        g->ix = tb_index(movement), g->rk = rk, g->goats_total = n, g->captures_to_win = K, g->threads = o->threads;
        b->o = o, b->movement = movement, b->g = g, b->rk = rk, b->n = n, b->K = K;
        b->top = o->max_in_hand > 0 && o->max_in_hand < n ? o->max_in_hand : n;
        b->start = tb_now_s();
        for (int h = 1; h <= b->top; h++)
            for (int c = 0; c < K; c++)
                for (int side = 0; side < SIDE_NB; side++)
                    if (wanted(b, side, h, c)) {
                        tbp_layer_t l;
                        tbp_layer_shape(&l, rk, n, side, h, c);
                        b->work_total += layer_work(&l);
                    }
        int rh, rc, rside;
        find_merged(b);
        bool todo = find_resume(b, &rh, &rc, &rside);
        if (todo && b->merged) {
            forget_merged(b);
            todo = find_resume(b, &rh, &rc, &rside);
        }
        if (todo) {
            e = resume_at(b, rside, rh, rc, msg, msglen);
            for (int h = rh; h <= b->top && e == TB_OK; h++) {
                for (int c = h == rh ? rc : K - 1; c >= 0 && e == TB_OK; c--) {
                    for (int side = h == rh && c == rc ? rside : GOATS; side <= TIGERS && e == TB_OK; side++)
                        if (wanted(b, side, h, c))
                            e = build_layer(b, side, h, c, msg, msglen);
                    /* T(h - 1, c) made G(h, c); G(h, c + 1) made T(h, c + 1) and T(h, c). */
                    layer_free(&b->prev_t[c]);
                    if (c + 1 < K)
                        layer_free(&b->cur_g[c + 1]);
                }
                /* The next h reads T(h, *) only. */
                for (int c = 0; c < K; c++) {
                    layer_free(&b->prev_t[c]);
                    layer_free(&b->cur_g[c]);
                    b->prev_t[c] = b->cur_t[c];
                    b->cur_t[c].bits = NULL;
                }
            }
        }
        for (int c = 0; c < K; c++) {
            layer_free(&b->prev_t[c]);
            layer_free(&b->cur_g[c]);
            layer_free(&b->cur_t[c]);
        }
    }
    if (g) {
        for (int i = 0; i < o->threads && i < MAX_WORKERS; i++)
            free(g->workers[i].best), free(g->workers[i].act), free(g->workers[i].actm);
        free(g->masks);
    }
    free(rk), free(g), free(b);
    return e;
}
