/* Evaluation terms on bitboards. */
#include "eval.h"

#include <string.h>

#include "movegen.h"

const eval_weight_t EVAL_WEIGHTS[EV_TERM_NB] = {
    [EV_CAPTURED] = {"captured", -110, -140},
    [EV_TIGER_MOBILITY] = {"tiger mobility", -3, -6},
    [EV_TRAPPED_TIGERS] = {"trapped tigers", 25, 45},
    [EV_CAPTURABLE] = {"capturable goats", -30, -35},
    [EV_HANGING] = {"hanging goats", -60, -70},
    [EV_VULNERABLE] = {"vulnerable goats", -6, -8},
    [EV_SAFE_GOATS] = {"safe goats", 4, 6},
    [EV_EDGE_GOATS] = {"edge goats", 6, 2},
    [EV_CORNER_GOATS] = {"corner goats", 6, 0},
    [EV_TIGER_SPACE] = {"tiger space", -2, -3},
    [EV_TIGER_CENTRE] = {"tiger on 8-line points", -4, -4},
    [EV_TEMPO] = {"tempo (side to move)", 5, 5},
};

#define EDGE_POINTS ((bb_t)0x1F8C63Fu)
#define CORNER_POINTS ((bb_t)0x1100011u)
/* Points with (column + row) even: they have diagonal lines. */
#define EIGHT_LINE_POINTS ((bb_t)0x1555555u)

static bb_t neighbours(bb_t set)
{
    bb_t n = 0;
    for (int d = 0; d < BC_DIR_NB; d++)
        n |= bb_shift(set & BC_DIRS[d].step_from, BC_DIRS[d].shift);
    return n;
}

/* Goats g with some line a-g-b where neither a nor b holds a goat. */
static bb_t open_line_goats(bb_t goats)
{
    bb_t open = BB_ALL & ~goats, hit = 0;
    for (int d = 0; d < BC_DIR_NB; d++) {
        int s = BC_DIRS[d].shift;
        bb_t over = bb_shift(open & BC_DIRS[d].jump_from, s) & goats;
        hit |= bb_shift(bb_shift(over, s) & open, -s);
    }
    return hit;
}

/* Empty points connected to a tiger through empty points. */
static bb_t tiger_reach(bb_t tigers, bb_t empty)
{
    bb_t reach = neighbours(tigers) & empty, prev;
    do {
        prev = reach;
        reach |= neighbours(reach) & empty;
    } while (reach != prev);
    return reach;
}

static int trapped_tigers(bb_t tigers, bb_t goats)
{
    int n = 0;
    for (bb_t t = tigers; t; t &= t - 1) {
        bb_t one = t & -t;
        if (count_tiger_moves(one, goats | (tigers & ~one)) == 0)
            n++;
    }
    return n;
}

static inline int evaluate(const position_t *p, eval_trace_t *trace)
{
    int c[EV_TERM_NB];
    bb_t empty = position_empty(p);
    bb_t capturable = capturable_goats(p->tigers, p->goats);
    bb_t vulnerable = open_line_goats(p->goats);
    int ncap = bb_count(capturable);

    c[EV_CAPTURED] = p->captured;
    c[EV_TIGER_MOBILITY] = count_tiger_moves(p->tigers, p->goats);
    c[EV_TRAPPED_TIGERS] = trapped_tigers(p->tigers, p->goats);
    c[EV_CAPTURABLE] = ncap;
    c[EV_HANGING] = p->side == TIGERS ? (ncap > 0) : (ncap >= 2);
    c[EV_VULNERABLE] = bb_count(vulnerable & ~capturable);
    c[EV_SAFE_GOATS] = bb_count(p->goats & ~vulnerable);
    c[EV_EDGE_GOATS] = bb_count(p->goats & EDGE_POINTS);
    c[EV_CORNER_GOATS] = bb_count(p->goats & CORNER_POINTS);
    c[EV_TIGER_SPACE] = bb_count(tiger_reach(p->tigers, empty));
    c[EV_TIGER_CENTRE] = bb_count(p->tigers & EIGHT_LINE_POINTS);
    c[EV_TEMPO] = p->side == GOATS ? 1 : -1;

    int mg = 0, eg = 0;
    for (int i = 0; i < EV_TERM_NB; i++) {
        mg += c[i] * EVAL_WEIGHTS[i].mg;
        eg += c[i] * EVAL_WEIGHTS[i].eg;
    }
    int placed = BC_GOATS_TOTAL - p->in_hand;
    int total = (mg * p->in_hand + eg * placed) / BC_GOATS_TOTAL;
    if (trace) {
        memset(trace, 0, sizeof *trace);
        for (int i = 0; i < EV_TERM_NB; i++) {
            trace->count[i] = c[i];
            trace->value[i] = (c[i] * EVAL_WEIGHTS[i].mg * p->in_hand + c[i] * EVAL_WEIGHTS[i].eg * placed) /
                              BC_GOATS_TOTAL;
        }
        trace->total = total;
    }
    return total;
}

int eval_position(const position_t *p)
{
    int v = evaluate(p, NULL);
    return p->side == GOATS ? v : -v;
}

int eval_trace(const position_t *p, eval_trace_t *trace)
{
    return evaluate(p, trace);
}
