/* The placement file's code (version 3): the order of each class's points and the reader of
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
    uint32_t r = group / TBP_RUN, i = group % TBP_RUN;
    const uint8_t *o = a->runs + 16 * ((size_t)k * TBP_CLASS_RUNS + r);
    return (uint64_t)tb_le32(o) + (i ? tb_le16(o + 2 + 2 * i) : 0);
}

/* The memory a probe of group `group` reads first. */
static inline const uint8_t *group_dir(const tbp_array_t *a, uint32_t k, uint32_t group)
{
    if (!a->runs)
        return a->group_off + 4 * ((size_t)k * TBP_CLASS_GROUPS + group);
    return a->runs + 16 * ((size_t)k * TBP_CLASS_RUNS + group / TBP_RUN);
}

/* A block being read: its exceptions (bit m of exc[kind - 1]: mask m is one of that kind). */
typedef struct {
    uint32_t base;    /* the mask of its first entry */
    int constant;     /* the value of every held mask, or -1 */
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

/* Reads a list of k exceptions into bits[] (zero) up to mask last (all of them when last is
 * the block's last mask). The gaps are taken from a window of the code held in a register,
 * and the bitmap's word being filled too: a gap costs a few operations on registers. */
static inline void read_list(const uint8_t *code, uint64_t *pos, uint32_t k, uint32_t last, uint64_t *bits)
{
    int r = tbp_rice(k);
    uint32_t rmask = (1u << r) - 1, p = UINT32_MAX, word = 0;
    uint64_t at = *pos, win = bits_at(code, at), cur = 0;
    uint32_t avail = 57; /* bits of win that are the code's */
    for (uint32_t i = 0; i < k; i++) {
        if (avail < 32) {
            win = bits_at(code, at);
            avail = 57;
        }
        uint32_t q = win ? (uint32_t)__builtin_ctzll(win) : 64, n = q + (uint32_t)r + 1;
        if (n > avail) { /* a long quotient: bit by bit */
            q = read_unary(code, &at);
            p += ((q << r) | (uint32_t)read_bits(code, &at, r)) + 1;
            win = bits_at(code, at);
            avail = 57;
        } else {
            p += ((q << r) | ((uint32_t)(win >> (q + 1)) & rmask)) + 1;
            win >>= n;
            avail -= n;
            at += n;
        }
        if (p > last)
            break;
        if (p >> 6 != word) {
            bits[word] |= cur;
            word = p >> 6, cur = 0;
        }
        cur |= 1ull << (p & 63);
    }
    bits[word] |= cur;
    *pos = at;
}

/* Opens block bi of class k: its exceptions at masks up to last (the ones a value at or
 * below last can need: the masks below a mask are smaller). */
static void block_open(const tbp_array_t *a, uint32_t k, uint32_t bi, uint32_t last, block_t *b)
{
    const uint8_t *code = a->code + tb_le64(a->class_off + 8 * (size_t)k);
    uint32_t group = bi / TBP_CODE_GROUP, in = bi % TBP_CODE_GROUP;
    uint64_t pos = group_pos(a, k, group);
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
        return;
    }
    b->constant = -1;
    memset(b->exc, 0, sizeof b->exc);
    uint32_t k2 = read_gamma(code, &pos) - 1, k1 = read_gamma(code, &pos) - 1;
    read_list(code, &pos, k2, TBP_CODE_BLOCK - 1, b->exc[1]);
    read_list(code, &pos, k1, last, b->exc[0]);
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
    return a->valid >> g0 & 1 ? tbp_table_value(a->table[g0 << 10 | 0x3FF], block_exc(b, 0)) : 1;
}

/* The values of an entry s of an open block (not constant) and of its runs: v[i][L + 2] is
 * the value of the mask of the L bits of s from its i-th lowest (columns 0 and 1: 3, for the
 * masks below the block's first one). */
typedef struct {
    uint32_t p;                       /* s's bits */
    uint32_t cum[TBP_CODE_BITS + 1];  /* cum[i]: s's i lowest bits */
    uint8_t v[TBP_CODE_BITS + 2][TBP_CODE_BITS + 3];
} runs_t;

/* Finds s's runs by their bit count. With from (the runs of s without its q-th lowest bit),
 * the runs without that bit are copied from there: a placement's child in the block needs
 * only the runs through its new goat. */
static void runs_fill(const tbp_array_t *a, const block_t *b, uint32_t s, const runs_t *from, uint32_t q, runs_t *r)
{
    uint32_t p = 0;
    r->cum[0] = 0;
    for (uint32_t x = s; x; x &= x - 1, p++)
        r->cum[p + 1] = r->cum[p] | (x & (0u - x));
    r->p = p;
    const uint8_t *restrict table = a->table;
    uint32_t valid = a->valid, g0 = (uint32_t)__builtin_popcount(b->base), root = block_root(a, b);
    for (uint32_t i = 0; i <= p + 1; i++)
        r->v[i][0] = r->v[i][1] = 3, r->v[i][2] = (uint8_t)root;
    for (uint32_t L = 1; L <= p; L++) {
        uint32_t g = g0 + L;
        bool held = valid >> g & 1;
        for (uint32_t i = 0; i + L <= p; i++) {
            uint32_t v;
            if (from && (i + L <= q || i > q))
                v = from->v[i > q ? i - 1 : i][L + 2];
            else if (!held) /* don't care: the first parent */
                v = r->v[i + 1][L + 1];
            else
                v = tbp_table_value(table[g << 10 | (uint32_t)r->v[i + 1][L + 1] << 8 | (uint32_t)r->v[i][L + 1] << 6 |
                                          (uint32_t)r->v[i + 2][L] << 4 | (uint32_t)r->v[i][L] << 2 |
                                          (uint32_t)r->v[i + 1][L]],
                                    block_exc(b, r->cum[i + L] ^ r->cum[i]));
            r->v[i][L + 2] = (uint8_t)v;
        }
    }
}

/* Whether one of s's runs other than the block's first mask is an exception: no exception
 * at a mask x (0 < x <= s) is a run of s (x within s, and every bit of s between x's lowest
 * and highest in x). */
static inline bool runs_exceptional(const block_t *b, uint32_t s)
{
    for (uint32_t w = 0; w <= s >> 6; w++)
        for (uint64_t x = b->exc[0][w] | b->exc[1][w]; x; x &= x - 1) {
            uint32_t m = w << 6 | (uint32_t)__builtin_ctzll(x);
            if (m > s)
                return false;
            uint32_t top = 0x80000000u >> __builtin_clz(m | 1), span = s & ((top << 1) - (m & (0u - m)));
            if (m && span == m)
                return true;
        }
    return false;
}

static uint32_t block_value(const tbp_array_t *a, const block_t *b, uint32_t s)
{
    if (!runs_exceptional(b, s)) {
        return a->plain[__builtin_popcount(b->base)][__builtin_popcount(s)][block_root(a, b)];
    }
    runs_t r;
    runs_fill(a, b, s, NULL, 0, &r);
    return r.v[0][r.p + 2];
}

uint32_t tbp_array_value(const tbp_array_t *a, uint32_t k, uint32_t m)
{
    block_t b;
    uint32_t s = m & (TBP_CODE_BLOCK - 1);
    block_open(a, k, m >> TBP_CODE_BITS, s, &b);
    return b.constant >= 0 ? (uint32_t)b.constant : block_value(a, &b, s);
}

/* The blocks of the children m | b (b in e): m's own for those in its block, then one each. */
static int children_blocks(uint32_t m, uint32_t e, uint32_t blocks[TBP_FREE + 1])
{
    const uint32_t low = TBP_CODE_BLOCK - 1;
    int nb = 0;
    if (e & low)
        blocks[nb++] = m >> TBP_CODE_BITS;
    for (uint32_t x = e & ~low; x; x &= x - 1)
        blocks[nb++] = (m | (x & (0u - x))) >> TBP_CODE_BITS;
    return nb;
}

void tbp_array_prefetch(const tbp_array_t *a, uint32_t k, uint32_t m, uint32_t e, int stage)
{
    uint32_t blocks[TBP_FREE + 1];
    int nb = children_blocks(m, e, blocks);
    const uint8_t *code = a->code + tb_le64(a->class_off + 8 * (size_t)k);
    for (int i = 0; i < nb; i++) {
        if (stage == 0) {
            __builtin_prefetch(group_dir(a, k, blocks[i] / TBP_CODE_GROUP));
        } else { /* the group's first lines: its block is nearly always there */
            const uint8_t *at = code + group_pos(a, k, blocks[i] / TBP_CODE_GROUP) / 8;
            __builtin_prefetch(at);
            __builtin_prefetch(at + 64);
            __builtin_prefetch(at + 128);
        }
    }
}

/* The children m | b (b in e) of mask m of class k: their values into out[] (when not NULL) in
 * increasing order of b, and the least of them; with stop, no further once one is 0. */
static uint32_t children_scan(const tbp_array_t *a, uint32_t k, uint32_t m, uint32_t e, uint8_t *out, bool stop)
{
    const uint32_t low = TBP_CODE_BLOCK - 1, s = m & low, el = e & low;
    uint32_t blocks[TBP_FREE + 1], least = 3;
    int nb = children_blocks(m, e, blocks);
    tbp_array_prefetch(a, k, m, e, 0);
    tbp_array_prefetch(a, k, m, e, 1);
    /* A child in m's block has its goat among the low bits; a child in another block has the
     * low bits s. */
    block_t b;
    int o = 0;
    if (el) {
        block_open(a, k, blocks[0], s | el, &b);
        runs_t base, child;
        if (b.constant < 0)
            runs_fill(a, &b, s, NULL, 0, &base);
        for (uint32_t x = el; x; x &= x - 1) {
            uint32_t bit = x & (0u - x), v = (uint32_t)b.constant;
            if (b.constant < 0) {
                /* The new goat is s's q-th lowest bit in the child. */
                runs_fill(a, &b, s | bit, &base, (uint32_t)__builtin_popcount(s & (bit - 1)), &child);
                v = child.v[0][child.p + 2];
            }
            if (out)
                out[o++] = (uint8_t)v;
            least = v < least ? v : least;
            if (stop && !least)
                return 0;
        }
    }
    for (int j = el ? 1 : 0; j < nb; j++) {
        block_open(a, k, blocks[j], s, &b);
        uint32_t v = b.constant >= 0 ? (uint32_t)b.constant : block_value(a, &b, s);
        if (out)
            out[o++] = (uint8_t)v;
        least = v < least ? v : least;
        if (stop && !least)
            return 0;
    }
    return least;
}

void tbp_array_children(const tbp_array_t *a, uint32_t k, uint32_t m, uint32_t e, uint8_t *out)
{
    children_scan(a, k, m, e, out, false);
}

uint32_t tbp_array_least(const tbp_array_t *a, uint32_t k, uint32_t m, uint32_t e)
{
    return children_scan(a, k, m, e, NULL, true);
}

void tbp_array_class(const tbp_array_t *a, uint32_t k, uint8_t out[TBP_MASKS])
{
    block_t b;
    uint8_t val[TBP_CODE_BLOCK + 1];
    val[TBP_CODE_BLOCK] = 3;
    for (uint32_t bi = 0; bi < TBP_CLASS_BLOCKS; bi++) {
        block_open(a, k, bi, TBP_CODE_BLOCK - 1, &b);
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
