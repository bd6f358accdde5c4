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

/* The parents of each entry of a block: the entry without its lowest, second lowest, ...
 * bit; TBP_CODE_BLOCK (a slot holding 3) when it has fewer bits. */
const uint16_t tbp_parents[TBP_CODE_BLOCK][TBP_PARENTS] = {
    {256, 256, 256, 256, 256}, {0, 256, 256, 256, 256}, {0, 256, 256, 256, 256}, {2, 1, 256, 256, 256},
    {0, 256, 256, 256, 256}, {4, 1, 256, 256, 256}, {4, 2, 256, 256, 256}, {6, 5, 3, 256, 256},
    {0, 256, 256, 256, 256}, {8, 1, 256, 256, 256}, {8, 2, 256, 256, 256}, {10, 9, 3, 256, 256},
    {8, 4, 256, 256, 256}, {12, 9, 5, 256, 256}, {12, 10, 6, 256, 256}, {14, 13, 11, 7, 256},
    {0, 256, 256, 256, 256}, {16, 1, 256, 256, 256}, {16, 2, 256, 256, 256}, {18, 17, 3, 256, 256},
    {16, 4, 256, 256, 256}, {20, 17, 5, 256, 256}, {20, 18, 6, 256, 256}, {22, 21, 19, 7, 256},
    {16, 8, 256, 256, 256}, {24, 17, 9, 256, 256}, {24, 18, 10, 256, 256}, {26, 25, 19, 11, 256},
    {24, 20, 12, 256, 256}, {28, 25, 21, 13, 256}, {28, 26, 22, 14, 256}, {30, 29, 27, 23, 15},
    {0, 256, 256, 256, 256}, {32, 1, 256, 256, 256}, {32, 2, 256, 256, 256}, {34, 33, 3, 256, 256},
    {32, 4, 256, 256, 256}, {36, 33, 5, 256, 256}, {36, 34, 6, 256, 256}, {38, 37, 35, 7, 256},
    {32, 8, 256, 256, 256}, {40, 33, 9, 256, 256}, {40, 34, 10, 256, 256}, {42, 41, 35, 11, 256},
    {40, 36, 12, 256, 256}, {44, 41, 37, 13, 256}, {44, 42, 38, 14, 256}, {46, 45, 43, 39, 15},
    {32, 16, 256, 256, 256}, {48, 33, 17, 256, 256}, {48, 34, 18, 256, 256}, {50, 49, 35, 19, 256},
    {48, 36, 20, 256, 256}, {52, 49, 37, 21, 256}, {52, 50, 38, 22, 256}, {54, 53, 51, 39, 23},
    {48, 40, 24, 256, 256}, {56, 49, 41, 25, 256}, {56, 50, 42, 26, 256}, {58, 57, 51, 43, 27},
    {56, 52, 44, 28, 256}, {60, 57, 53, 45, 29}, {60, 58, 54, 46, 30}, {62, 61, 59, 55, 47},
    {0, 256, 256, 256, 256}, {64, 1, 256, 256, 256}, {64, 2, 256, 256, 256}, {66, 65, 3, 256, 256},
    {64, 4, 256, 256, 256}, {68, 65, 5, 256, 256}, {68, 66, 6, 256, 256}, {70, 69, 67, 7, 256},
    {64, 8, 256, 256, 256}, {72, 65, 9, 256, 256}, {72, 66, 10, 256, 256}, {74, 73, 67, 11, 256},
    {72, 68, 12, 256, 256}, {76, 73, 69, 13, 256}, {76, 74, 70, 14, 256}, {78, 77, 75, 71, 15},
    {64, 16, 256, 256, 256}, {80, 65, 17, 256, 256}, {80, 66, 18, 256, 256}, {82, 81, 67, 19, 256},
    {80, 68, 20, 256, 256}, {84, 81, 69, 21, 256}, {84, 82, 70, 22, 256}, {86, 85, 83, 71, 23},
    {80, 72, 24, 256, 256}, {88, 81, 73, 25, 256}, {88, 82, 74, 26, 256}, {90, 89, 83, 75, 27},
    {88, 84, 76, 28, 256}, {92, 89, 85, 77, 29}, {92, 90, 86, 78, 30}, {94, 93, 91, 87, 79},
    {64, 32, 256, 256, 256}, {96, 65, 33, 256, 256}, {96, 66, 34, 256, 256}, {98, 97, 67, 35, 256},
    {96, 68, 36, 256, 256}, {100, 97, 69, 37, 256}, {100, 98, 70, 38, 256}, {102, 101, 99, 71, 39},
    {96, 72, 40, 256, 256}, {104, 97, 73, 41, 256}, {104, 98, 74, 42, 256}, {106, 105, 99, 75, 43},
    {104, 100, 76, 44, 256}, {108, 105, 101, 77, 45}, {108, 106, 102, 78, 46}, {110, 109, 107, 103, 79},
    {96, 80, 48, 256, 256}, {112, 97, 81, 49, 256}, {112, 98, 82, 50, 256}, {114, 113, 99, 83, 51},
    {112, 100, 84, 52, 256}, {116, 113, 101, 85, 53}, {116, 114, 102, 86, 54}, {118, 117, 115, 103, 87},
    {112, 104, 88, 56, 256}, {120, 113, 105, 89, 57}, {120, 114, 106, 90, 58}, {122, 121, 115, 107, 91},
    {120, 116, 108, 92, 60}, {124, 121, 117, 109, 93}, {124, 122, 118, 110, 94}, {126, 125, 123, 119, 111},
    {0, 256, 256, 256, 256}, {128, 1, 256, 256, 256}, {128, 2, 256, 256, 256}, {130, 129, 3, 256, 256},
    {128, 4, 256, 256, 256}, {132, 129, 5, 256, 256}, {132, 130, 6, 256, 256}, {134, 133, 131, 7, 256},
    {128, 8, 256, 256, 256}, {136, 129, 9, 256, 256}, {136, 130, 10, 256, 256}, {138, 137, 131, 11, 256},
    {136, 132, 12, 256, 256}, {140, 137, 133, 13, 256}, {140, 138, 134, 14, 256}, {142, 141, 139, 135, 15},
    {128, 16, 256, 256, 256}, {144, 129, 17, 256, 256}, {144, 130, 18, 256, 256}, {146, 145, 131, 19, 256},
    {144, 132, 20, 256, 256}, {148, 145, 133, 21, 256}, {148, 146, 134, 22, 256}, {150, 149, 147, 135, 23},
    {144, 136, 24, 256, 256}, {152, 145, 137, 25, 256}, {152, 146, 138, 26, 256}, {154, 153, 147, 139, 27},
    {152, 148, 140, 28, 256}, {156, 153, 149, 141, 29}, {156, 154, 150, 142, 30}, {158, 157, 155, 151, 143},
    {128, 32, 256, 256, 256}, {160, 129, 33, 256, 256}, {160, 130, 34, 256, 256}, {162, 161, 131, 35, 256},
    {160, 132, 36, 256, 256}, {164, 161, 133, 37, 256}, {164, 162, 134, 38, 256}, {166, 165, 163, 135, 39},
    {160, 136, 40, 256, 256}, {168, 161, 137, 41, 256}, {168, 162, 138, 42, 256}, {170, 169, 163, 139, 43},
    {168, 164, 140, 44, 256}, {172, 169, 165, 141, 45}, {172, 170, 166, 142, 46}, {174, 173, 171, 167, 143},
    {160, 144, 48, 256, 256}, {176, 161, 145, 49, 256}, {176, 162, 146, 50, 256}, {178, 177, 163, 147, 51},
    {176, 164, 148, 52, 256}, {180, 177, 165, 149, 53}, {180, 178, 166, 150, 54}, {182, 181, 179, 167, 151},
    {176, 168, 152, 56, 256}, {184, 177, 169, 153, 57}, {184, 178, 170, 154, 58}, {186, 185, 179, 171, 155},
    {184, 180, 172, 156, 60}, {188, 185, 181, 173, 157}, {188, 186, 182, 174, 158}, {190, 189, 187, 183, 175},
    {128, 64, 256, 256, 256}, {192, 129, 65, 256, 256}, {192, 130, 66, 256, 256}, {194, 193, 131, 67, 256},
    {192, 132, 68, 256, 256}, {196, 193, 133, 69, 256}, {196, 194, 134, 70, 256}, {198, 197, 195, 135, 71},
    {192, 136, 72, 256, 256}, {200, 193, 137, 73, 256}, {200, 194, 138, 74, 256}, {202, 201, 195, 139, 75},
    {200, 196, 140, 76, 256}, {204, 201, 197, 141, 77}, {204, 202, 198, 142, 78}, {206, 205, 203, 199, 143},
    {192, 144, 80, 256, 256}, {208, 193, 145, 81, 256}, {208, 194, 146, 82, 256}, {210, 209, 195, 147, 83},
    {208, 196, 148, 84, 256}, {212, 209, 197, 149, 85}, {212, 210, 198, 150, 86}, {214, 213, 211, 199, 151},
    {208, 200, 152, 88, 256}, {216, 209, 201, 153, 89}, {216, 210, 202, 154, 90}, {218, 217, 211, 203, 155},
    {216, 212, 204, 156, 92}, {220, 217, 213, 205, 157}, {220, 218, 214, 206, 158}, {222, 221, 219, 215, 207},
    {192, 160, 96, 256, 256}, {224, 193, 161, 97, 256}, {224, 194, 162, 98, 256}, {226, 225, 195, 163, 99},
    {224, 196, 164, 100, 256}, {228, 225, 197, 165, 101}, {228, 226, 198, 166, 102}, {230, 229, 227, 199, 167},
    {224, 200, 168, 104, 256}, {232, 225, 201, 169, 105}, {232, 226, 202, 170, 106}, {234, 233, 227, 203, 171},
    {232, 228, 204, 172, 108}, {236, 233, 229, 205, 173}, {236, 234, 230, 206, 174}, {238, 237, 235, 231, 207},
    {224, 208, 176, 112, 256}, {240, 225, 209, 177, 113}, {240, 226, 210, 178, 114}, {242, 241, 227, 211, 179},
    {240, 228, 212, 180, 116}, {244, 241, 229, 213, 181}, {244, 242, 230, 214, 182}, {246, 245, 243, 231, 215},
    {240, 232, 216, 184, 120}, {248, 241, 233, 217, 185}, {248, 242, 234, 218, 186}, {250, 249, 243, 235, 219},
    {248, 244, 236, 220, 188}, {252, 249, 245, 237, 221}, {252, 250, 246, 238, 222}, {254, 253, 251, 247, 239},
};

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
    a->valid = valid;
}

/* A block being read: its exceptions and the values found so far. */
typedef struct {
    uint32_t base; /* the mask of its first entry */
    int constant;  /* the value of every held mask, or -1 */
    uint64_t exc[TBP_CODE_BLOCK / 64], high[TBP_CODE_BLOCK / 64], done[TBP_CODE_BLOCK / 64];
    uint8_t val[TBP_CODE_BLOCK + 1]; /* the last: 3, for missing parents */
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

/* Opens block bi of class k: its exceptions at positions up to last (the ones a value at or
 * below last can need: every submask is smaller). */
static void block_open(const tbp_array_t *a, uint32_t k, uint32_t bi, uint32_t last, block_t *b)
{
    const uint8_t *code = a->code + tb_le64(a->class_off + 8 * (size_t)k);
    uint32_t group = bi / TBP_CODE_GROUP, in = bi % TBP_CODE_GROUP;
    uint64_t pos = tb_le32(a->group_off + 4 * ((size_t)k * TBP_CLASS_GROUPS + group));
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
    b->val[TBP_CODE_BLOCK] = 3;
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
    int r = tbp_rice(kx);
    int32_t p = -1;
    for (uint32_t i = 0; i < kx; i++) {
        uint32_t q = read_unary(code, &pos);
        p += (int32_t)((q << r) | (uint32_t)read_bits(code, &pos, r)) + 1;
        if ((uint32_t)p > last)
            break;
        uint64_t bit = 1ull << (p & 63);
        b->exc[p >> 6] |= bit;
        b->high[p >> 6] |= read_bits(code, &pos, 1) ? bit : 0;
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
    block_open(a, k, m >> TBP_CODE_BITS, m & (TBP_CODE_BLOCK - 1), &b);
    return block_value(a, &b, m & (TBP_CODE_BLOCK - 1), false);
}

void tbp_array_values(const tbp_array_t *a, uint32_t k, const uint32_t *ms, int n, uint8_t *out)
{
    /* The blocks' memory first, all at once: their groups' offsets, then their code. */
    const uint8_t *code = a->code + tb_le64(a->class_off + 8 * (size_t)k);
    const uint8_t *groups = a->group_off + 4 * (size_t)k * TBP_CLASS_GROUPS;
    for (int i = 0; i < n; i++)
        __builtin_prefetch(groups + 4 * ((ms[i] >> TBP_CODE_BITS) / TBP_CODE_GROUP));
    for (int i = 0; i < n; i++)
        __builtin_prefetch(code + tb_le32(groups + 4 * ((ms[i] >> TBP_CODE_BITS) / TBP_CODE_GROUP)) / 8);
    block_t b;
    uint32_t open = UINT32_MAX;
    for (int i = 0; i < n; i++) {
        /* Entries of one block follow each other when the caller sorts them; any order works. */
        uint32_t bi = ms[i] >> TBP_CODE_BITS;
        if (bi != open) {
            uint32_t last = 0;
            for (int j = i; j < n && ms[j] >> TBP_CODE_BITS == bi; j++)
                last = ms[j] & (TBP_CODE_BLOCK - 1);
            block_open(a, k, bi, last, &b);
            open = bi;
        }
        out[i] = (uint8_t)block_value(a, &b, ms[i] & (TBP_CODE_BLOCK - 1), true);
    }
}

void tbp_array_class(const tbp_array_t *a, uint32_t k, uint8_t out[TBP_MASKS])
{
    block_t b;
    for (uint32_t bi = 0; bi < TBP_CLASS_BLOCKS; bi++) {
        block_open(a, k, bi, TBP_CODE_BLOCK - 1, &b);
        uint8_t *o = out + ((size_t)bi << TBP_CODE_BITS);
        for (uint32_t s = 0; s < TBP_CODE_BLOCK; s++) {
            uint32_t g = (uint32_t)__builtin_popcount(b.base | s);
            uint32_t v = block_value(a, &b, s, true);
            o[s] = (uint8_t)(a->valid >> g & 1 ? v : TBP_DONT_CARE);
        }
    }
}
