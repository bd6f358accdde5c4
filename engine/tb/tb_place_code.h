/* The placement file's code (version 4), shared by its reader (tb_place_code.c) and its
 * writer (tb_place_pack.c). Internal to engine/tb.
 *
 * The tigers-to-move values of one captured count c, every goats-in-hand count at once, form
 * one array per tiger class: the entry of a position is its goats' mask over the 21 points
 * the class's representative leaves free, each point a bit, the points ordered from the
 * farthest from the tigers (bit 0) to the nearest (bit 20). The mask's number of bits is the
 * goats on the board, so the layers of c interleave; a mask whose layer the file does not
 * hold is "don't care". A mask and the masks with one goat fewer (its parents) usually share
 * their value: the code predicts each value from a few of those and stores the exceptions.
 *
 * Blocks of TBP_CODE_BLOCK consecutive masks (the low TBP_CODE_BITS bits varying) are coded
 * alone. The value of mask s of a block is predicted from its context: the layer (goats on
 * the board) and the values of five masks of the block below it: s without its lowest bit
 * (in the block), without its highest, without its two lowest, its two highest, its lowest
 * and highest (3 for a mask that s has too few bits for: the first two need one bit, the
 * others two). Each of those is again s's bits minus some lowest and some highest ones, so a
 * value needs only the block's masks made of a run of consecutive bits of s (its
 * "runs": p(p+1)/2 + 1 of them for p bits), each found after the runs it is predicted from. A
 * don't-care mask copies its first parent (s without its lowest bit; the root, a draw).
 *
 * The prediction table of each c is in the file: a byte per context, the context's three
 * values two bits each, the most frequent first (the prediction), then the second (the value
 * of a first-kind exception), then the third (a second-kind exception's).
 *
 * A block: '1' and two bits v: every value of the block's layers is v; or '0', a bit that
 * says whether a value of the block's layers is a loss for the tigers, Elias gamma codes of
 * k2 + 1 and k1 + 1, then the k2 exceptions of the second kind, then the k1 of the first,
 * each list the gaps from the previous exception (or from -1) in a Rice code of parameter
 * r = tbp_rice(k) (the gap >> r in unary as zeros and a one, then its r low bits). The
 * second kind, the rarer, comes first, so that a reader can stop the first kind's list at
 * the mask it needs. The loss bit lets the least of a goats' position's placements skip the
 * blocks without a loss once a placement worth a draw or less is found. */
#ifndef BAGHCHAL_TB_PLACE_CODE_H
#define BAGHCHAL_TB_PLACE_CODE_H

#include "tb_build.h"

enum {
    TBP_FREE = 21,
    TBP_MASKS = 1 << TBP_FREE,
    TBP_CODE_BITS = 8,
    TBP_CODE_BLOCK = 1 << TBP_CODE_BITS,
    TBP_CODE_GROUP = 8, /* blocks per directory word */
    TBP_CLASS_BLOCKS = TBP_MASKS / TBP_CODE_BLOCK,
    TBP_CLASS_GROUPS = TBP_CLASS_BLOCKS / TBP_CODE_GROUP,
    TBP_PARENTS = 5, /* the values of a context */
    TBP_CONTEXTS = 32 << (2 * TBP_PARENTS),
    TBP_DONT_CARE = 3
};

/* The bit of every point in each class's masks (0xFF for the tigers' points). */
typedef struct {
    uint8_t bit[TB_TIGER_CLASSES][SQUARE_NB];
    uint8_t square[TB_TIGER_CLASSES][TBP_FREE]; /* bit -> point */
} tbp_order_t;

void tbp_order_init(tbp_order_t *o, const tb_index_t *ix);

/* The mask of goats (in the class's orientation already) of class k. */
static inline uint32_t tbp_order_mask(const tbp_order_t *o, uint32_t k, bb_t goats)
{
    uint32_t m = 0;
    for (; goats; goats &= goats - 1)
        m |= 1u << o->bit[k][bb_first(goats)];
    return m;
}

/* s without its highest bit (0 for 0). */
static inline uint32_t tbp_drop_high(uint32_t s) { return s ? s & ~(0x80000000u >> __builtin_clz(s)) : 0; }

/* The context of entry s of a block (base | s has g bits) from the values val[] of the
 * masks below it, by mask (val[TBP_CODE_BLOCK] is 3): the reference the writer and the
 * decoding of a whole class use; a probe finds the same from s's runs. */
static inline uint32_t tbp_context(const uint8_t *val, uint32_t s, uint32_t g)
{
    const uint32_t none = TBP_CODE_BLOCK;
    uint32_t l = s & (s - 1), h = tbp_drop_high(s);
    bool one = s != 0, two = l != 0;
    return g << 10 | (uint32_t)val[one ? l : none] << 8 | (uint32_t)val[one ? h : none] << 6 |
           (uint32_t)val[two ? l & (l - 1) : none] << 4 | (uint32_t)val[two ? tbp_drop_high(h) : none] << 2 |
           (uint32_t)val[two ? tbp_drop_high(l) : none];
}

/* The value of an entry of context byte t (tbp_code_table) that is not an exception (exc 0),
 * or an exception of the first (1) or second kind (2). */
static inline uint32_t tbp_table_value(uint32_t t, uint32_t exc) { return t >> (2 * exc) & 3; }

/* The Rice parameter of the gaps between k exceptions of a block: the largest r (at most
 * TBP_CODE_BITS) with TBP_CODE_BLOCK >> (r + 1) at least 2k, found without a loop. */
static inline int tbp_rice(uint32_t k)
{
    if (!k)
        return TBP_CODE_BITS;
    int c = k > 1 ? 32 - __builtin_clz(k - 1) : 0, r = TBP_CODE_BITS - 1 - c; /* c: log2 k rounded up */
    return r > 0 ? r : 0;
}

/* One c of the file, as the reader uses it. */
typedef struct {
    const uint8_t *table;     /* TBP_CONTEXTS predictions */
    const uint8_t *class_off; /* TB_TIGER_CLASSES little-endian u64: byte offset of the class's code */
    const uint8_t *group_off; /* TB_TIGER_CLASSES x TBP_CLASS_GROUPS u32: bit offset of a group in its class */
    const uint8_t *code;
    const uint8_t *runs;      /* the reader's directory (tbp_runs_build), or NULL: group_off alone */
    uint32_t valid;           /* bit g: the layer with g goats on the board is held */
    /* plain[g][L][r]: the value of a mask of L bits of a block whose first mask has g bits
     * and the value r, when none of the mask's runs is an exception: every run of one bit
     * count then has the same value (tbp_array_view makes it). */
    uint8_t plain[TBP_FREE + 1][TBP_CODE_BITS + 1][3];
} tbp_array_t;

/* The reader's directory of an array, made from the file's when it is opened: per class, per
 * run of TBP_RUN groups, 16 bytes: the bit offset of the run's first group (u32), then the
 * other groups' distances from it in bits (u16 each). A probe's first read is then one line
 * of a table little more than half the size of the file's group offsets (20 MB for the whole
 * file against 34 MB), of which the processor's last cache holds more. */
enum {
    TBP_RUN = 7,
    TBP_CLASS_RUNS = (TBP_CLASS_GROUPS + TBP_RUN - 1) / TBP_RUN,
    TBP_RUNS_SIZE = 16 * TB_TIGER_CLASSES * TBP_CLASS_RUNS /* bytes per array */
};

/* Fills runs (TBP_RUNS_SIZE bytes) from a's group offsets. False when a run is too long for
 * its distances (then the array is read through its group offsets alone). */
bool tbp_runs_build(const tbp_array_t *a, uint8_t *runs);

/* Sizes of an array's parts in bytes, from its start: table, class offsets, group offsets. */
enum {
    TBP_ARRAY_TABLE = 0,
    TBP_ARRAY_CLASSES = TBP_CONTEXTS,
    TBP_ARRAY_GROUPS = TBP_ARRAY_CLASSES + 8 * TB_TIGER_CLASSES,
    TBP_ARRAY_CODE = TBP_ARRAY_GROUPS + 4 * TB_TIGER_CLASSES * TBP_CLASS_GROUPS
};

/* Points a reader at an array of the file (its bytes from `at`). */
void tbp_array_view(tbp_array_t *a, const uint8_t *at, uint32_t valid);
/* The value (0 loss, 1 draw, 2 win for the tigers) of mask m of class k. */
uint32_t tbp_array_value(const tbp_array_t *a, uint32_t k, uint32_t m);
/* Every value of class k, by mask (TBP_DONT_CARE where the file holds no layer). */
void tbp_array_class(const tbp_array_t *a, uint32_t k, uint8_t out[TBP_MASKS]);

/* The values of the children m | b of mask m of class k, for each bit b of e (the points
 * where a goat may be placed), in increasing order of b, into out[]: the goats' placements of
 * one position, which all lie in one class. */
void tbp_array_children(const tbp_array_t *a, uint32_t k, uint32_t m, uint32_t e, uint8_t *out);
/* The least of those values (3 when e is empty): what a goats-to-move position is worth.
 * floor is a value no child is below (0, or the least value of the children's layer in the
 * file: its header counts them): the reading stops at the first child of that value, and with
 * 2 reads nothing. Once the least is a draw or less, a block without a loss is not read. */
uint32_t tbp_array_least(const tbp_array_t *a, uint32_t k, uint32_t m, uint32_t e, uint32_t floor);
/* The same in three stages, so that several positions' reads can overlap: start finds the
 * blocks of the children and asks for their directory lines; locate (once those have come)
 * finds the blocks' groups, and with fetch asks for their code; read (once that has come)
 * reads them: the children's values into out[] (when not NULL) and their least, no further
 * than the first of value floor or below (-1: every child; see tbp_array_least). Read first asks for whatever code of c was not asked for, and
 * then, before each block it reads, for one block's code of next (located without fetch, or
 * NULL): the processor drops prefetches beyond the few lines it can fetch at a time, so a
 * position's code is best asked for a little at a time while the one before is read. */
typedef struct {
    const tbp_array_t *a;
    const uint8_t *code; /* the class's */
    uint32_t k, m, e;
    int nb, fetched;               /* blocks; of them, whose code was asked for */
    uint32_t blocks[TBP_FREE + 1]; /* m's own first when a child is in it */
    uint64_t pos[TBP_FREE + 1];    /* the bit where each block's group starts */
} tbp_children_t;

void tbp_children_start(const tbp_array_t *a, uint32_t k, uint32_t m, uint32_t e, tbp_children_t *c);
void tbp_children_locate(tbp_children_t *c, bool fetch);
uint32_t tbp_children_read(tbp_children_t *c, uint8_t *out, int floor, tbp_children_t *next);

/* ---- Writing (tb_place_pack.c) --------------------------------------------------------- */

/* Adds the contexts of class values v[] (by mask; TBP_DONT_CARE where no layer is held) to
 * counts[context][value]. */
void tbp_code_count(const uint8_t *v, uint32_t valid, uint64_t (*counts)[3]);
/* The prediction table: each context's values by frequency, most frequent first, two bits
 * each (a context never seen predicts its first parent's value, or a draw, then the others
 * in increasing order). */
void tbp_code_table(const uint64_t (*counts)[3], uint8_t *table);

/* A growing bit string, lowest bit first. */
typedef struct {
    uint8_t *buf;
    uint64_t bits, cap; /* cap in bytes */
    bool failed;        /* out of memory */
} tbp_bits_t;

void tbp_bits_put(tbp_bits_t *w, uint64_t v, int n);
void tbp_bits_free(tbp_bits_t *w);

/* Appends the code of class values v[] to w (starting at a byte boundary, ending padded to
 * one) and writes the bit offset of each group from the class's start to groups[]. False
 * when out of memory. */
bool tbp_code_class(const uint8_t *v, uint32_t valid, const uint8_t *table, tbp_bits_t *w,
                    uint32_t groups[TBP_CLASS_GROUPS]);

#endif
