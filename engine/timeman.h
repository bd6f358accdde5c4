/* Time management: from the clock of the side to move, an optimum time to aim for and a
 * maximum never to pass. */
#ifndef BAGHCHAL_TIMEMAN_H
#define BAGHCHAL_TIMEMAN_H

#include <stdint.h>

typedef struct {
    int64_t optimum_ms, maximum_ms;
} tm_budget_t;

/* time_left and inc for the side to move (ms), movestogo (0 = unknown), overhead (the
 * Move Overhead option), ply = half-moves played so far (-1 unknown), in_hand = goats
 * still to place. */
tm_budget_t tm_init(int64_t time_left, int64_t inc, int movestogo, int64_t overhead, int in_hand);

/* Scales the optimum by how unsettled the search is: best move changes and a falling
 * score ask for more time (factor in percent, 100 = as planned). */
int64_t tm_adjusted(const tm_budget_t *b, int percent);

#endif
