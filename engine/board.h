/* The board: constant geometry tables, the position, make/unmake and Zobrist keys. */
#ifndef BAGHCHAL_BOARD_H
#define BAGHCHAL_BOARD_H

#include "types.h"

typedef struct {
    uint8_t over, to;
} bc_jump_t;

/* One of the eight line directions: the index shift of one step, the points a step can
 * start from and the points a jump can start from. */
typedef struct {
    int shift;
    bb_t step_from, jump_from;
} bc_dir_t;

extern const bb_t BC_STEPS[SQUARE_NB];
extern const uint8_t BC_JUMP_COUNT[SQUARE_NB];
extern const bc_jump_t BC_JUMPS[SQUARE_NB][BC_MAX_JUMPS];
extern const bc_dir_t BC_DIRS[BC_DIR_NB];
extern const uint64_t BC_ZOBRIST_TIGER[SQUARE_NB];
extern const uint64_t BC_ZOBRIST_GOAT[SQUARE_NB];
extern const uint64_t BC_ZOBRIST_SIDE;
extern const uint64_t BC_ZOBRIST_HAND[BC_GOATS_TOTAL + 1];

/* A position. `key` hashes the board and the side to move only (what repetition compares);
 * position_hash() adds the goats in hand for the transposition table. */
typedef struct {
    bb_t tigers, goats;
    uint8_t side;     /* side_t */
    uint8_t in_hand;  /* goats not yet placed, 0..20 */
    uint8_t captured; /* goats captured, 0..5 */
    uint64_t key;
} position_t;

static inline bb_t bb_shift(bb_t b, int shift)
{
    return shift > 0 ? (b << shift) & BB_ALL : b >> -shift;
}

static inline bb_t position_empty(const position_t *p) { return BB_ALL & ~(p->tigers | p->goats); }

static inline uint64_t position_hash(const position_t *p) { return p->key ^ BC_ZOBRIST_HAND[p->in_hand]; }

static inline bool position_same(const position_t *a, const position_t *b)
{
    return a->tigers == b->tigers && a->goats == b->goats && a->side == b->side;
}

void position_set_start(position_t *p);
uint64_t position_compute_key(const position_t *p);
/* The full invariant: piece counts, disjoint sets, goat total, key. */
bool position_is_ok(const position_t *p);
/* The key of the position after m, without making it. */
uint64_t position_key_after(const position_t *p, move_t m);

void position_make(position_t *p, move_t m);
void position_unmake(position_t *p, move_t m);

/* "A1" .. "E5"; writes 3 bytes including the terminator. */
void square_name(int sq, char out[3]);
/* Parses a point name (case-insensitive) at s; returns the square or -1. */
int square_parse(const char *s);

#endif
