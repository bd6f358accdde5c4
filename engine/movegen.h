/* Move generation for both phases and both sides, move counting and perft.
 * These functions know the rules of a single position; repetition, which depends on
 * the game's history, is applied by game.h on top of them. */
#ifndef BAGHCHAL_MOVEGEN_H
#define BAGHCHAL_MOVEGEN_H

#include "board.h"

/* Writes the moves of p to out (room for MAX_MOVES) and returns their number.
 * Goats: placements while goats are in hand, else steps. Tigers: steps, then captures.
 * A finished game (5 captured) has no moves. */
int gen_moves(const position_t *p, move_t *out);
/* Only the captures (tigers to move) into out; 0 for goats. */
int gen_captures(const position_t *p, move_t *out);
/* The number of moves gen_moves would write, computed with bitboards. */
int count_moves(const position_t *p);
/* Number of tiger moves (steps and captures) available to the tigers of p. */
int count_tiger_moves(bb_t tigers, bb_t goats);
/* The set of goats that some tiger could capture at once if the tigers were to move. */
bb_t capturable_goats(bb_t tigers, bb_t goats);
/* Leaf count of the move tree to depth (repetition is not applied: perft counts the
 * tree of the rules of a single position). */
uint64_t perft(position_t *p, int depth);
/* Is m one of the moves of p? */
bool move_is_pseudo_legal(const position_t *p, move_t m);

#endif
