/* What the database says of a game's position and of each of its legal moves under the game's
 * repetition rule: the value under `draw`, and under `forbid` what holds for the game's history
 * (forbid.h, with a small proof search). One implementation for the protocol's tbprobe and the
 * Python package's Tablebase.probe and rank_moves, which print or return these values. */
#ifndef BAGHCHAL_TBREPORT_H
#define BAGHCHAL_TBREPORT_H

#include "forbid.h"
#include "game.h"
#include "tb.h"

typedef enum { TBR_LOSS = -1, TBR_DRAW = 0, TBR_WIN = 1, TBR_OPEN = 2 } tbr_result_t;

typedef enum {
    TBR_OK = 0,
    TBR_NOT_COVERED,       /* the database does not know the position (goats in hand, no placement file) */
    TBR_CHILD_NOT_COVERED, /* a move leads to a position the database does not know */
    TBR_NO_MEMORY          /* the prover could not be made */
} tbr_status_t;

enum { TBR_TEXT_LEN = 64 };

typedef struct {
    move_t move;         /* the move (tbr_moves), MOVE_NONE for the position (tbr_position) */
    tbr_result_t result; /* for the side to move, or (tbr_moves) the side that makes the move;
                            TBR_DRAW only under `draw`, TBR_OPEN only under `forbid` */
    int distance;        /* plies to the end; TB_DISTANCE_UNKNOWN when not known (a placement-phase
                            value, a result the prover found, an open one) */
    bool proved;         /* the result is the prover's, the database alone did not settle it */
    char text[TBR_TEXT_LEN]; /* as tbprobe prints it: "win in 7", "draw", "open (draw rule: loss in 4)" */
} tbr_value_t;

/* The value of g's current position for its side to move: the game's result when it is over
 * ("win in 0", "loss in 0", "draw"), else the database's value under `draw`, or what holds under
 * `forbid` (fb_settle with FB_SETTLE_NODES). *pr is the caller's prover, made here at the first
 * need under `forbid` (fb_prover_new(FB_SETTLE_MB)); it may be NULL under `draw`. Returns
 * TBR_OK, TBR_NOT_COVERED or TBR_NO_MEMORY (out undefined then). */
tbr_status_t tbr_position(const tb_t *tb, fb_prover_t **pr, const game_t *g, tbr_value_t *out);

/* Every legal move of g's current position with its value for the side that makes it, best
 * first as tbprobe lists them (search_rank_tb_moves under `draw`, fb_settle_moves under
 * `forbid`); *n their number (0 once the game is over). out has room for MAX_MOVES. Returns
 * TBR_OK, TBR_NOT_COVERED (the position itself), TBR_CHILD_NOT_COVERED or TBR_NO_MEMORY
 * (*n is 0 then). */
tbr_status_t tbr_moves(const tb_t *tb, fb_prover_t **pr, const game_t *g, tbr_value_t *out, int *n);

/* "win", "loss", "draw" or "open". */
const char *tbr_result_name(tbr_result_t r);

#endif
