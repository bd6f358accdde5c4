/* Static evaluation in centi-goats: each term named, all weights in one table, tapered
 * between the placement phase (goats in hand) and the movement phase. */
#ifndef BAGHCHAL_EVAL_H
#define BAGHCHAL_EVAL_H

#include "board.h"

typedef enum {
    EV_CAPTURED,          /* goats already captured */
    EV_TIGER_MOBILITY,    /* tiger moves available (steps and captures) */
    EV_TRAPPED_TIGERS,    /* tigers with no move at all */
    EV_CAPTURABLE,        /* distinct goats a tiger could capture at once */
    EV_HANGING,           /* tigers to move with a capture, or goats facing two or more threats */
    EV_VULNERABLE,        /* goats on a line whose both ends are open (not goats) */
    EV_SAFE_GOATS,        /* goats with every line through them closed by a goat or an edge */
    EV_EDGE_GOATS,        /* goats on the border (cannot be jumped across the edge) */
    EV_CORNER_GOATS,      /* goats on the four corners (can never be jumped) */
    EV_TIGER_SPACE,       /* empty points the tigers can reach through empty points */
    EV_TIGER_CENTRE,      /* tigers on the eight-line points (more moves and jumps) */
    EV_TEMPO,             /* side to move */
    EV_TERM_NB
} eval_term_t;

/* Weight per unit of each term, for the placement (mg) and movement (eg) phases, in
 * centi-goats from the goats' point of view. */
typedef struct {
    const char *name;
    int mg, eg;
} eval_weight_t;

extern const eval_weight_t EVAL_WEIGHTS[EV_TERM_NB];

typedef struct {
    int count[EV_TERM_NB]; /* the term's raw count in this position */
    int value[EV_TERM_NB]; /* its tapered contribution, goats' point of view */
    int total;             /* the sum, goats' point of view */
} eval_trace_t;

/* The evaluation from the side to move's point of view. */
int eval_position(const position_t *p);
/* The same number, goats' point of view, with every term written to trace. */
int eval_trace(const position_t *p, eval_trace_t *trace);

#endif
