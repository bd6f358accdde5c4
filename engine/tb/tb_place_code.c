/* The placement file's code (version 4): the order of each class's points and the reader of
 * an array (tb_place_code.h says how the values are coded). */
#include "tb_place_code.h"

#include <string.h>

/* ---- The points' order ---------------------------------------------------------------- */

void tbp_order_init(tbp_order_t *o, const tb_index_t *ix)
{
    /* Steps between points along the lines (breadth first from each point). */
    uint8_t dist[SQUARE_NB][SQUARE_NB];
    for (int a = 0; a < SQUARE_NB; a++) {
        memset(dist[a], 0xFF, sizeof dist[a]);
        int queue[SQUARE_NB], head = 0, tail = 0;
        dist[a][a] = 0;
        queue[tail++] = a;
        while (head < tail) {
            int p = queue[head++];
            for (bb_t s = BC_STEPS[p]; s; s &= s - 1) {
                int q = bb_first(s);
                if (dist[a][q] == 0xFF) {
                    dist[a][q] = (uint8_t)(dist[a][p] + 1);
                    queue[tail++] = q;
                }
            }
        }
    }
    for (int k = 0; k < TB_TIGER_CLASSES; k++) {
        const tb_class_t *c = &ix->cls[k];
        int near[TBP_FREE];
        for (int i = 0; i < TBP_FREE; i++) {
            int sq = c->free_sq[i], d = 0xFF;
            for (bb_t t = c->tigers; t; t &= t - 1)
                d = dist[sq][bb_first(t)] < d ? dist[sq][bb_first(t)] : d;
            near[i] = d;
        }
        /* Bit 0 is the farthest point from the tigers; ties by point. */
        int order[TBP_FREE];
        for (int i = 0; i < TBP_FREE; i++) {
            int j = i;
            for (; j > 0 && (near[order[j - 1]] < near[i]); j--)
                order[j] = order[j - 1];
            order[j] = i;
        }
        memset(o->bit[k], 0xFF, sizeof o->bit[k]);
        for (int b = 0; b < TBP_FREE; b++) {
            int sq = c->free_sq[order[b]];
            o->bit[k][sq] = (uint8_t)b;
            o->square[k][b] = (uint8_t)sq;
        }
    }
}

/* ---- Reading -------------------------------------------------------------------------- */

static inline uint64_t bits_at(const uint8_t *p, uint64_t pos)
{
    uint64_t v;
    memcpy(&v, p + (pos >> 3), 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v >> (pos & 7);
}


void tbp_array_view(tbp_array_t *a, const uint8_t *at, uint32_t valid)
{
    a->table = at + TBP_ARRAY_TABLE;
    a->class_off = at + TBP_ARRAY_CLASSES;
    a->group_off = at + TBP_ARRAY_GROUPS;
    a->code = at + TBP_ARRAY_CODE;
    a->runs = NULL;
    a->valid = valid;
    /* The runs of a mask without exceptions, by bit count: each from the value of the runs
     * one and two bits shorter (tbp_context's five masks), 3 below the first mask. */
    for (uint32_t g0 = 0; g0 <= TBP_FREE; g0++)
        for (uint32_t r = 0; r < 3; r++) {
            uint32_t v[TBP_CODE_BITS + 3] = {3, 3, r}; /* v[L + 2]: L bits */
            for (uint32_t L = 1; L <= TBP_CODE_BITS; L++) {
                uint32_t g = g0 + L;
                if (g > TBP_FREE || !(valid >> g & 1))
                    v[L + 2] = v[L + 1]; /* don't care: the first parent */
                else
                    v[L + 2] = tbp_table_value(a->table[g << 10 | v[L + 1] << 8 | v[L + 1] << 6 | v[L] << 4 |
                                                        v[L] << 2 | v[L]],
                                               0);
            }
            for (uint32_t L = 0; L <= TBP_CODE_BITS; L++)
                a->plain[g0][L][r] = (uint8_t)v[L + 2];
        }
}

bool tbp_runs_build(const tbp_array_t *a, uint8_t *runs)
{
    for (uint32_t k = 0; k < TB_TIGER_CLASSES; k++)
        for (uint32_t r = 0; r < TBP_CLASS_RUNS; r++) {
            uint8_t *o = runs + 16 * ((size_t)k * TBP_CLASS_RUNS + r);
            const uint8_t *g = a->group_off + 4 * ((size_t)k * TBP_CLASS_GROUPS + (size_t)r * TBP_RUN);
            uint32_t base = tb_le32(g);
            tb_put_le(o, base, 4);
            for (uint32_t i = 1; i < TBP_RUN; i++) {
                uint32_t d = r * TBP_RUN + i < TBP_CLASS_GROUPS ? tb_le32(g + 4 * i) - base : 0;
                if (d > UINT16_MAX)
                    return false;
                tb_put_le(o + 2 + 2 * i, d, 2);
            }
        }
    return true;
}

/* Where group `group` of class k starts, in bits from the class's code. */
static inline uint64_t group_pos(const tbp_array_t *a, uint32_t k, uint32_t group)
{
    if (!a->runs)
        return tb_le32(a->group_off + 4 * ((size_t)k * TBP_CLASS_GROUPS + group));
    /* group / TBP_RUN and its remainder by a product (exact below 13,110) */
    uint32_t r = group * 9363 >> 16, i = group - r * TBP_RUN;
    const uint8_t *o = a->runs + 16 * ((size_t)k * TBP_CLASS_RUNS + r);
    return (uint64_t)tb_le32(o) + (i ? tb_le16(o + 2 + 2 * i) : 0);
}

_Static_assert(TBP_RUN == 7 && TBP_CLASS_GROUPS <= 13110, "group_pos divides by 7 with a product");

/* The memory a probe of group `group` reads first. */
static inline const uint8_t *group_dir(const tbp_array_t *a, uint32_t k, uint32_t group)
{
    if (!a->runs)
        return a->group_off + 4 * ((size_t)k * TBP_CLASS_GROUPS + group);
    return a->runs + 16 * ((size_t)k * TBP_CLASS_RUNS + group / TBP_RUN);
}

/* The code of class k. */
static inline const uint8_t *class_code(const tbp_array_t *a, uint32_t k)
{
    return a->code + tb_le64(a->class_off + 8 * (size_t)k);
}

/* A block being read: its exceptions of each kind up to the mask it was opened for (at[kind -
 * 1], increasing masks; n of them), and, once block_map has made it, the same as bits (bit m
 * of exc[kind - 1]: mask m is one of that kind). */
typedef struct {
    uint32_t base;    /* the mask of its first entry */
    int constant;     /* the value of every held mask, or -1 */
    bool loss;        /* not constant: a held mask is a loss for the tigers */
    uint32_t k[2];    /* not constant: the exceptions of each kind in the block */
    uint32_t n[2];
    uint8_t at[2][TBP_CODE_BLOCK];
    uint64_t exc[2][TBP_CODE_BLOCK / 64];
} block_t;

/* Unary: the zeros before the next one. */
static inline uint32_t read_unary(const uint8_t *code, uint64_t *pos)
{
    uint32_t q = 0;
    for (;;) {
        uint64_t w = bits_at(code, *pos) & ((1ull << 56) - 1);
        if (w) {
            uint32_t z = (uint32_t)__builtin_ctzll(w);
            *pos += z + 1;
            return q + z;
        }
        q += 56, *pos += 56;
    }
}

static inline uint64_t read_bits(const uint8_t *code, uint64_t *pos, int n)
{
    uint64_t v = n ? bits_at(code, *pos) & ((1ull << n) - 1) : 0;
    *pos += (uint64_t)n;
    return v;
}

static inline uint32_t read_gamma(const uint8_t *code, uint64_t *pos)
{
    uint32_t n = read_unary(code, pos);
    return (uint32_t)((1ull << n) | read_bits(code, pos, (int)n));
}

/* Whether mask m (not 0) is a run of s: within s, with every bit of s between m's lowest and
 * highest. */
static inline bool run_of(uint32_t m, uint32_t s)
{
    uint32_t top = 0x80000000u >> __builtin_clz(m | 1);
    return (s & ((top << 1) - (m & (0u - m)))) == m;
}

/* The exceptions among the runs of a mask s: bit i of ek[kind][L] for the run of L bits from
 * s's i-th lowest; imax the last start of one, emin the first end (above s's bits: none). */
typedef struct {
    uint32_t ek[2][TBP_CODE_BITS + 1], imax, emin;
} runs_exc_t;

static inline void runs_exc_clear(runs_exc_t *x)
{
    memset(x->ek, 0, sizeof x->ek);
    x->imax = 0, x->emin = TBP_CODE_BITS + 1;
}

/* Adds exception m of a kind to x when it is a run of s (the root aside: block_root has it). */
static inline void runs_exc_add(runs_exc_t *x, uint32_t m, int kind, uint32_t s)
{
    if (m && run_of(m, s)) {
        uint32_t i0 = (uint32_t)__builtin_popcount(s & ((m & (0u - m)) - 1)), e0 = i0 + (uint32_t)__builtin_popcount(m);
        x->ek[kind][e0 - i0] |= 1u << i0;
        x->imax = i0 > x->imax ? i0 : x->imax;
        x->emin = e0 < x->emin ? e0 : x->emin;
    }
}

/* Reads a list of k exceptions, keeping in at[] those up to mask last; returns how many. With
 * all, reads the whole list (another follows it), else stops after last. The gaps are taken
 * from a window of the code held in a register: a gap costs a few operations on registers,
 * and a kept mask is stored without a branch. */
static inline uint32_t read_list(const uint8_t *code, uint64_t *pos, uint32_t k, uint32_t last, uint8_t *at, bool all,
                                 runs_exc_t *x, int kind)
{
    int r = tbp_rice(k);
    uint32_t rmask = (1u << r) - 1, p = UINT32_MAX, n = 0;
    uint64_t from = *pos, win = bits_at(code, from);
    uint32_t avail = 57; /* bits of win that are the code's */
    for (uint32_t i = 0; i < k; i++) {
        if (avail < 32) {
            win = bits_at(code, from);
            avail = 57;
        }
        uint32_t q = win ? (uint32_t)__builtin_ctzll(win) : 64, len = q + (uint32_t)r + 1;
        if (len > avail) { /* a long quotient: bit by bit */
            q = read_unary(code, &from);
            p += ((q << r) | (uint32_t)read_bits(code, &from, r)) + 1;
            win = bits_at(code, from);
            avail = 57;
        } else {
            p += ((q << r) | ((uint32_t)(win >> (q + 1)) & rmask)) + 1;
            win >>= len;
            avail -= len;
            from += len;
        }
        if (all) {
            at[n] = (uint8_t)p;
            n += p <= last;
        } else if (p > last) {
            break;
        } else {
            at[n++] = (uint8_t)p;
        }
        if (x)
            runs_exc_add(x, p, kind, last);
    }
    *pos = from;
    return n;
}

/* Reads the head of block bi of a class's code, whose group starts at bit pos: its constant
 * value, or whether it holds a loss and its exceptions' counts. Returns where its lists start. */
static inline uint64_t block_head(const uint8_t *code, uint64_t pos, uint32_t bi, block_t *b)
{
    uint32_t in = bi % TBP_CODE_GROUP;
    /* The group: the width w of its lengths, the lengths of its first seven blocks, the blocks. */
    int w = (int)read_bits(code, &pos, 4);
    uint64_t skip = 0, lens = bits_at(code, pos), mask = (1ull << w) - 1;
    if ((TBP_CODE_GROUP - 1) * w <= 56) {
        for (uint32_t i = 0; i < in; i++)
            skip += (lens >> (i * (uint32_t)w)) & mask;
    } else {
        for (uint32_t i = 0; i < in; i++)
            skip += bits_at(code, pos + (uint64_t)i * (uint64_t)w) & mask;
    }
    pos += (uint64_t)(TBP_CODE_GROUP - 1) * (uint64_t)w + skip;
    b->base = bi << TBP_CODE_BITS;
    if (read_bits(code, &pos, 1)) {
        b->constant = (int)read_bits(code, &pos, 2);
        return pos;
    }
    b->constant = -1;
    b->loss = read_bits(code, &pos, 1) != 0;
    b->k[1] = read_gamma(code, &pos) - 1;
    b->k[0] = read_gamma(code, &pos) - 1;
    return pos;
}

/* Reads the exceptions of a block whose head was read (not constant) at masks up to last (the
 * ones a value at or below last can need: the masks below a mask are smaller). */
static inline void block_lists(const uint8_t *code, uint64_t pos, uint32_t last, block_t *b, runs_exc_t *x)
{
    b->n[1] = b->k[1] ? read_list(code, &pos, b->k[1], last, b->at[1], true, x, 1) : 0;
    b->n[0] = read_list(code, &pos, b->k[0], last, b->at[0], false, x, 0);
}

/* Opens block bi of class k: its head, then its exceptions up to last (block_lists). */
static void block_open(const tbp_array_t *a, uint32_t k, uint32_t bi, uint32_t last, block_t *b, runs_exc_t *x)
{
    const uint8_t *code = class_code(a, k);
    uint64_t pos = block_head(code, group_pos(a, k, bi / TBP_CODE_GROUP), bi, b);
    if (b->constant < 0)
        block_lists(code, pos, last, b, x);
}

/* The exceptions of an open block (not constant) as bits, for block_exc. */
static void block_map(block_t *b)
{
    memset(b->exc, 0, sizeof b->exc);
    for (int kind = 0; kind < 2; kind++)
        for (uint32_t i = 0; i < b->n[kind]; i++)
            b->exc[kind][b->at[kind][i] >> 6] |= 1ull << (b->at[kind][i] & 63);
}

static inline uint32_t block_exc(const block_t *b, uint32_t m)
{
    return (uint32_t)(b->exc[0][m >> 6] >> (m & 63) & 1) | (uint32_t)(b->exc[1][m >> 6] >> (m & 63) & 1) << 1;
}

/* The value of the block's first mask (its context: the layer alone, every mask below it 3;
 * a draw when its layer is not held). */
static inline uint32_t block_root(const tbp_array_t *a, const block_t *b)
{
    uint32_t g0 = (uint32_t)__builtin_popcount(b->base);
    uint32_t exc = (uint32_t)(b->n[0] && !b->at[0][0]) | (uint32_t)(b->n[1] && !b->at[1][0]) << 1;
    return a->valid >> g0 & 1 ? tbp_table_value(a->table[g0 << 10 | 0x3FF], exc) : 1;
}

/* The value of entry s of an open block (not constant, opened up to s or beyond).
 *
 * Without an exception among s's runs (other than the block's first mask, which block_root
 * takes into account), every run of L bits has the value plain[g0][L][root] (tbp_array_view).
 * Otherwise only the runs that contain an exceptional one can differ: those that start at or
 * below the last start of one (imax) and end at or above the first end of one (emin) are
 * found again from their five masks below, in the order of their ends and then from the
 * shortest, so that what they read is found first; the others keep the plain value. */
static uint32_t runs_value(const tbp_array_t *a, const block_t *b, uint32_t s, const runs_exc_t *x)
{
    uint32_t g0 = (uint32_t)__builtin_popcount(b->base), root = block_root(a, b), p = (uint32_t)__builtin_popcount(s);
    const uint8_t(*plain)[3] = a->plain[g0];
    if (x->emin > p)
        return plain[p][root];
    /* w[L + 2][i]: the run of L bits from s's i-th lowest (rows 0 and 1: 3, for the masks
     * below the block's first; row 2: the first) */
    uint8_t w[TBP_CODE_BITS + 3][TBP_CODE_BITS + 2];
    memset(w[0], 3, sizeof w[0]);
    memset(w[1], 3, sizeof w[1]);
    memset(w[2], (int)root, sizeof w[2]);
    for (uint32_t L = 1; L <= p; L++)
        memset(w[L + 2], plain[L][root], sizeof w[L + 2]);
    const uint8_t *restrict table = a->table;
    for (uint32_t e = x->emin; e <= p; e++)
        for (uint32_t i = (x->imax < e - 1 ? x->imax : e - 1) + 1; i-- > 0;) {
            uint32_t L = e - i, g = g0 + L, first = w[L + 1][i + 1];
            uint32_t exc = (x->ek[0][L] >> i & 1) | (x->ek[1][L] >> i & 1) << 1;
            uint32_t v = tbp_table_value(table[g << 10 | first << 8 | (uint32_t)w[L + 1][i] << 6 |
                                               (uint32_t)w[L][i + 2] << 4 | (uint32_t)w[L][i] << 2 | (uint32_t)w[L][i + 1]],
                                         exc);
            w[L + 2][i] = (uint8_t)(a->valid >> g & 1 ? v : first); /* don't care: the first parent */
        }
    return w[p + 2][0];
}

static uint32_t block_value(const tbp_array_t *a, const block_t *b, uint32_t s)
{
    if (b->constant >= 0)
        return (uint32_t)b->constant;
    runs_exc_t x;
    runs_exc_clear(&x);
    for (int kind = 0; kind < 2; kind++)
        for (uint32_t j = 0; j < b->n[kind]; j++)
            runs_exc_add(&x, b->at[kind][j], kind, s);
    return runs_value(a, b, s, &x);
}

uint32_t tbp_array_value(const tbp_array_t *a, uint32_t k, uint32_t m)
{
    block_t b;
    runs_exc_t x;
    uint32_t s = m & (TBP_CODE_BLOCK - 1);
    runs_exc_clear(&x);
    block_open(a, k, m >> TBP_CODE_BITS, s, &b, &x);
    return b.constant >= 0 ? (uint32_t)b.constant : runs_value(a, &b, s, &x);
}

static inline void children_start(const tbp_array_t *a, uint32_t k, uint32_t m, uint32_t e, tbp_children_t *c)
{
    const uint32_t low = TBP_CODE_BLOCK - 1;
    c->a = a, c->k = k, c->m = m, c->e = e, c->nb = 0;
    /* m's own block for the children whose goat is among the low bits, then one each */
    if (e & low)
        c->blocks[c->nb++] = m >> TBP_CODE_BITS;
    for (uint32_t x = e & ~low; x; x &= x - 1)
        c->blocks[c->nb++] = (m | (x & (0u - x))) >> TBP_CODE_BITS;
    for (int i = 0; i < c->nb; i++)
        __builtin_prefetch(group_dir(a, k, c->blocks[i] / TBP_CODE_GROUP));
}

/* Asks for block i's code: its group's first lines (the block is nearly always there). */
static inline void children_fetch(tbp_children_t *c, int i)
{
    const uint8_t *at = c->code + c->pos[i] / 8;
    __builtin_prefetch(at);
    __builtin_prefetch(at + 64);
    __builtin_prefetch(at + 128);
}

static inline void children_locate(tbp_children_t *c, bool fetch)
{
    c->code = class_code(c->a, c->k);
    for (int i = 0; i < c->nb; i++) {
        c->pos[i] = group_pos(c->a, c->k, c->blocks[i] / TBP_CODE_GROUP);
        if (fetch)
            children_fetch(c, i);
    }
    c->fetched = fetch ? c->nb : 0;
}

/* Before each block read, the code of NEXT_BLOCKS blocks of the position to be read next. */
enum { NEXT_BLOCKS = 1 };

/* Asks for the code of the position to be read next, NEXT_BLOCKS blocks of it. */
static inline void fetch_next(tbp_children_t *next)
{
    for (int q = 0; next && q < NEXT_BLOCKS && next->fetched < next->nb; q++)
        children_fetch(next, next->fetched++);
}

/* The children in m's own block (goats among the low bits el, s the low bits of m): their
 * values into out[o...] (when out is not NULL), the least of them and least, no further than
 * the first of value floor or below; not read when out is NULL, least at most a draw and the
 * block without a loss. */
static inline uint32_t own_least(const tbp_children_t *c, uint32_t s, uint32_t el, uint8_t *out, int *o,
                                 uint32_t least, int floor)
{
    block_t b;
    uint64_t at = block_head(c->code, c->pos[0], c->blocks[0], &b);
    if (b.constant < 0) {
        if (!out && !b.loss && least <= 1)
            return least;
        /* read up to the largest child: the masks above it are runs of none */
        block_lists(c->code, at, s | (0x80000000u >> __builtin_clz(el)), &b, NULL);
        /* A child's runs are made of s's bits and its own: the exceptions with more than one
         * bit outside s concern none of them. */
        for (int kind = 0; kind < 2; kind++) {
            uint32_t n = 0;
            for (uint32_t j = 0; j < b.n[kind]; j++) {
                uint32_t m = b.at[kind][j], outside = m & ~s;
                b.at[kind][n] = (uint8_t)m;
                n += !(outside & (outside - 1));
            }
            b.n[kind] = n;
        }
    }
    for (uint32_t x = el; x; x &= x - 1) {
        uint32_t v = block_value(c->a, &b, s | (x & (0u - x)));
        if (out)
            out[(*o)++] = (uint8_t)v;
        least = v < least ? v : least;
        if ((int)least <= floor)
            break;
    }
    return least;
}

static inline uint32_t children_read(tbp_children_t *c, uint8_t *out, int floor, tbp_children_t *next)
{
    for (; c->fetched < c->nb; c->fetched++)
        children_fetch(c, c->fetched);
    const tbp_array_t *a = c->a;
    const uint32_t low = TBP_CODE_BLOCK - 1, s = c->m & low, el = c->e & low;
    uint32_t least = 3;
    /* A child in m's block has its goat among the low bits; a child in another block has the
     * low bits s. The children come in order of their bits when their values are wanted;
     * for their least alone, m's block, which holds several, comes last, when the others may
     * have found a draw that lets it go unread. */
    int o = 0;
    bool own_last = !out;
    if (el && !own_last) {
        fetch_next(next);
        least = own_least(c, s, el, out, &o, least, floor);
        if ((int)least <= floor)
            return least;
    }
    for (int j = el ? 1 : 0; j < c->nb; j++) {
        fetch_next(next);
        block_t b;
        uint64_t at = block_head(c->code, c->pos[j], c->blocks[j], &b);
        uint32_t v = (uint32_t)b.constant;
        if (b.constant < 0) {
            if (!out && !b.loss && least <= 1) /* the child is worth a draw or more */
                continue;
            runs_exc_t x;
            runs_exc_clear(&x);
            block_lists(c->code, at, s, &b, &x);
            v = runs_value(a, &b, s, &x);
        }
        if (out)
            out[o++] = (uint8_t)v;
        least = v < least ? v : least;
        if ((int)least <= floor)
            return least;
    }
    if (el && own_last)
        least = own_least(c, s, el, out, &o, least, floor);
    return least;
}

/* The three stages one after the other: nothing else to do while the memory comes. */
static uint32_t children_scan(const tbp_array_t *a, uint32_t k, uint32_t m, uint32_t e, uint8_t *out, int floor)
{
    tbp_children_t c;
    children_start(a, k, m, e, &c);
    children_locate(&c, true);
    return children_read(&c, out, floor, NULL);
}

void tbp_children_start(const tbp_array_t *a, uint32_t k, uint32_t m, uint32_t e, tbp_children_t *c)
{
    children_start(a, k, m, e, c);
}

void tbp_children_locate(tbp_children_t *c, bool fetch) { children_locate(c, fetch); }

uint32_t tbp_children_read(tbp_children_t *c, uint8_t *out, int floor, tbp_children_t *next)
{
    return children_read(c, out, floor, next);
}

void tbp_array_children(const tbp_array_t *a, uint32_t k, uint32_t m, uint32_t e, uint8_t *out)
{
    children_scan(a, k, m, e, out, -1);
}

uint32_t tbp_array_least(const tbp_array_t *a, uint32_t k, uint32_t m, uint32_t e, uint32_t floor)
{
    if (floor >= 2) /* every child a win for the tigers: nothing to read */
        return e ? 2 : 3;
    return children_scan(a, k, m, e, NULL, (int)floor);
}

void tbp_array_class(const tbp_array_t *a, uint32_t k, uint8_t out[TBP_MASKS])
{
    block_t b;
    uint8_t val[TBP_CODE_BLOCK + 1];
    val[TBP_CODE_BLOCK] = 3;
    for (uint32_t bi = 0; bi < TBP_CLASS_BLOCKS; bi++) {
        block_open(a, k, bi, TBP_CODE_BLOCK - 1, &b, NULL);
        if (b.constant < 0)
            block_map(&b);
        uint8_t *o = out + ((size_t)bi << TBP_CODE_BITS);
        /* Every entry in increasing order: the masks below one are smaller. */
        for (uint32_t s = 0; s < TBP_CODE_BLOCK; s++) {
            uint32_t g = (uint32_t)__builtin_popcount(b.base | s), v;
            if (!(a->valid >> g & 1))
                v = s ? val[s & (s - 1)] : 1;
            else if (b.constant >= 0)
                v = (uint32_t)b.constant;
            else
                v = tbp_table_value(a->table[tbp_context(val, s, g)], block_exc(&b, s));
            val[s] = (uint8_t)v;
            o[s] = (uint8_t)(a->valid >> g & 1 ? v : TBP_DONT_CARE);
        }
    }
}
