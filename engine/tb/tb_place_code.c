/* The placement file's code (version 2): the order of each class's points and the reader of
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

static inline uint32_t get32(const uint8_t *p) { return (uint32_t)tb_get_le(p, 4); }

void tbp_array_view(tbp_array_t *a, const uint8_t *at, uint32_t valid)
{
    a->table = at + TBP_ARRAY_TABLE;
    a->class_off = at + TBP_ARRAY_CLASSES;
    a->group_off = at + TBP_ARRAY_GROUPS;
    a->code = at + TBP_ARRAY_CODE;
    a->valid = valid;
}

/* A block being read: its exceptions and the values found so far. */
typedef struct {
    uint32_t base; /* the mask of its first entry */
    int constant;  /* the value of every held mask, or -1 */
    uint64_t exc[TBP_CODE_BLOCK / 64], high[TBP_CODE_BLOCK / 64], done[TBP_CODE_BLOCK / 64];
    uint8_t val[TBP_CODE_BLOCK];
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

/* Deposits the low bits of x at the set bits of mask, lowest first (BMI2's pdep). */
static inline uint64_t deposit(uint64_t x, uint64_t mask)
{
#if defined(__BMI2__)
    return __builtin_ia32_pdep_di(x, mask);
#else
    uint64_t r = 0;
    for (; mask; mask &= mask - 1, x >>= 1)
        r |= (x & 1) ? mask & -mask : 0;
    return r;
#endif
}

static void block_open(const tbp_array_t *a, uint32_t k, uint32_t bi, block_t *b)
{
    const uint8_t *code = a->code + tb_get_le(a->class_off + 8 * (size_t)k, 8);
    uint32_t group = bi / TBP_CODE_GROUP, in = bi % TBP_CODE_GROUP;
    uint64_t pos = get32(a->group_off + 4 * ((size_t)k * TBP_CLASS_GROUPS + group));
    /* The group: the width w of its lengths, the lengths of its first seven blocks, the blocks. */
    int w = (int)read_bits(code, &pos, 4);
    uint64_t skip = 0;
    for (uint32_t i = 0; i < TBP_CODE_GROUP - 1; i++) {
        uint64_t len = read_bits(code, &pos, w);
        skip += i < in ? len : 0;
    }
    pos += skip;
    b->base = bi << TBP_CODE_BITS;
    memset(b->done, 0, sizeof b->done);
    if (read_bits(code, &pos, 1)) {
        b->constant = (int)read_bits(code, &pos, 2);
        return;
    }
    b->constant = -1;
    memset(b->exc, 0, sizeof b->exc);
    memset(b->high, 0, sizeof b->high);
    uint32_t n = read_unary(code, &pos);
    uint32_t kx = (uint32_t)((1ull << n) | read_bits(code, &pos, (int)n)) - 1;
    if (!kx)
        return;
    int r = tbp_rice(kx);
    int32_t p = -1;
    for (uint32_t i = 0; i < kx; i++) {
        uint32_t q = read_unary(code, &pos);
        p += (int32_t)((q << r) | (uint32_t)read_bits(code, &pos, r)) + 1;
        b->exc[(p >> 6) & 3] |= 1ull << (p & 63);
    }
    /* Which of the two other values: one bit per exception, in order. */
    for (int q = 0; q < TBP_CODE_BLOCK / 64; q++) {
        int c = __builtin_popcountll(b->exc[q]);
        if (c) {
            uint64_t x = read_bits(code, &pos, c > 56 ? 32 : c);
            if (c > 56)
                x |= read_bits(code, &pos, c - 32) << 32;
            b->high[q] = deposit(x, b->exc[q]);
        }
    }
}

/* Finds entry t of the block from its parents' values. */
static inline void block_fill(const tbp_array_t *a, block_t *b, uint32_t t)
{
    uint32_t g = (uint32_t)__builtin_popcount(b->base | t), v;
    if (!(a->valid >> g & 1)) {
        v = t ? b->val[t & (t - 1)] : 1;
    } else {
        v = a->table[tbp_context(b->val, t, g)];
        uint32_t x = (uint32_t)(b->exc[t >> 6] >> (t & 63)) & 1, hi = (uint32_t)(b->high[t >> 6] >> (t & 63)) & 1;
        /* An exception takes the other value the bit names: for 0 (1, 2), for 1 (0, 2), for 2 (0, 1). */
        uint32_t alt = v == 0 ? 1 + hi : v == 1 ? 2 * hi : hi;
        v = x ? alt : v;
    }
    b->val[t] = (uint8_t)v;
}

/* The value of entry s of the block: its submasks first, in increasing order (a don't-care
 * mask copies its first parent). With memo, entries found for earlier calls on the same
 * block are not found again. */
static uint32_t block_value(const tbp_array_t *a, block_t *b, uint32_t s, bool memo)
{
    if (b->constant >= 0)
        return (uint32_t)b->constant;
    for (uint32_t t = 0;; t = ((t | ~s) + 1) & s) {
        if (!memo || !(b->done[t >> 6] >> (t & 63) & 1)) {
            block_fill(a, b, t);
            b->done[t >> 6] |= 1ull << (t & 63);
        }
        if (t == s)
            return b->val[s];
    }
}

uint32_t tbp_array_value(const tbp_array_t *a, uint32_t k, uint32_t m)
{
    block_t b;
    block_open(a, k, m >> TBP_CODE_BITS, &b);
    return block_value(a, &b, m & (TBP_CODE_BLOCK - 1), false);
}

void tbp_array_values(const tbp_array_t *a, uint32_t k, const uint32_t *ms, int n, uint8_t *out)
{
    block_t b;
    uint32_t open = UINT32_MAX;
    for (int i = 0; i < n; i++) {
        /* Entries of one block follow each other when the caller sorts them; any order works. */
        uint32_t bi = ms[i] >> TBP_CODE_BITS;
        if (bi != open) {
            block_open(a, k, bi, &b);
            open = bi;
        }
        out[i] = (uint8_t)block_value(a, &b, ms[i] & (TBP_CODE_BLOCK - 1), true);
    }
}

void tbp_array_class(const tbp_array_t *a, uint32_t k, uint8_t out[TBP_MASKS])
{
    block_t b;
    for (uint32_t bi = 0; bi < TBP_CLASS_BLOCKS; bi++) {
        block_open(a, k, bi, &b);
        uint8_t *o = out + ((size_t)bi << TBP_CODE_BITS);
        for (uint32_t s = 0; s < TBP_CODE_BLOCK; s++) {
            uint32_t g = (uint32_t)__builtin_popcount(b.base | s);
            uint32_t v = block_value(a, &b, s, true);
            o[s] = (uint8_t)(a->valid >> g & 1 ? v : TBP_DONT_CARE);
        }
    }
}
