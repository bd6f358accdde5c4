/* Shared small types of libbaghchal: bitboards, squares, sides, moves, scores. */
#ifndef BAGHCHAL_TYPES_H
#define BAGHCHAL_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#define BAGHCHAL_VERSION "0.1.0"

/* A set of board points: bit i is point i (A1 = 0, E1 = 4, A5 = 20, E5 = 24). */
typedef uint32_t bb_t;

enum {
    SQUARE_NB = 25,
    BC_GOATS_TOTAL = 20,
    BC_TIGERS_NB = 4,
    BC_CAPTURES_TO_WIN = 5,
    BC_MAX_JUMPS = 8,
    BC_DIR_NB = 8,
    /* Hard upper bound on the moves of one position (4 tigers x 8 steps x 2 is 64;
     * placements are at most 21). */
    MAX_MOVES = 64
};

#define BB_ALL ((bb_t)0x1FFFFFFu)

typedef enum { GOATS = 0, TIGERS = 1, SIDE_NB = 2 } side_t;

/* A move in 16 bits: to (bits 0-4), from (bits 5-9), kind (bits 10-11).
 * A placement has from == to; the goat jumped by a capture is the midpoint of from and to. */
typedef uint16_t move_t;

typedef enum { MOVE_KIND_NONE = 0, MOVE_PLACE = 1, MOVE_STEP = 2, MOVE_JUMP = 3 } move_kind_t;

#define MOVE_NONE ((move_t)0)

static inline move_t move_make(move_kind_t kind, int from, int to)
{
    return (move_t)(to | (from << 5) | ((int)kind << 10));
}
static inline int move_to(move_t m) { return m & 31; }
static inline int move_from(move_t m) { return (m >> 5) & 31; }
static inline move_kind_t move_kind(move_t m) { return (move_kind_t)((m >> 10) & 3); }
static inline int move_over(move_t m) { return (move_from(m) + move_to(m)) / 2; }

static inline int bb_count(bb_t b) { return __builtin_popcount(b); }
static inline int bb_first(bb_t b) { return __builtin_ctz(b); }
static inline bb_t bb_square(int sq) { return (bb_t)1u << sq; }

#endif
