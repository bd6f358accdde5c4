/* Move generation and counting on bitboards. */
#include "movegen.h"

static inline int count_steps(bb_t from, bb_t empty)
{
    int n = 0;
    for (int d = 0; d < BC_DIR_NB; d++)
        n += bb_count(bb_shift(from & BC_DIRS[d].step_from, BC_DIRS[d].shift) & empty);
    return n;
}

int count_tiger_moves(bb_t tigers, bb_t goats)
{
    bb_t empty = BB_ALL & ~(tigers | goats);
    int n = 0;
    for (int d = 0; d < BC_DIR_NB; d++) {
        int s = BC_DIRS[d].shift;
        n += bb_count(bb_shift(tigers & BC_DIRS[d].step_from, s) & empty);
        bb_t over = bb_shift(tigers & BC_DIRS[d].jump_from, s) & goats;
        n += bb_count(bb_shift(over, s) & empty);
    }
    return n;
}

bb_t capturable_goats(bb_t tigers, bb_t goats)
{
    bb_t empty = BB_ALL & ~(tigers | goats);
    bb_t hit = 0;
    for (int d = 0; d < BC_DIR_NB; d++) {
        int s = BC_DIRS[d].shift;
        bb_t over = bb_shift(tigers & BC_DIRS[d].jump_from, s) & goats;
        /* Shift the landing points back onto the goats they jump. */
        hit |= bb_shift(bb_shift(over, s) & empty, -s);
    }
    return hit;
}

int count_moves(const position_t *p)
{
    if (p->captured >= BC_CAPTURES_TO_WIN)
        return 0;
    if (p->side == TIGERS)
        return count_tiger_moves(p->tigers, p->goats);
    bb_t empty = position_empty(p);
    if (p->in_hand)
        return bb_count(empty);
    return count_steps(p->goats, empty);
}

int gen_captures(const position_t *p, move_t *out)
{
    int n = 0;
    if (p->side != TIGERS || p->captured >= BC_CAPTURES_TO_WIN)
        return 0;
    bb_t empty = position_empty(p);
    for (bb_t t = p->tigers; t; t &= t - 1) {
        int from = bb_first(t);
        const bc_jump_t *j = BC_JUMPS[from];
        for (int k = 0; k < BC_JUMP_COUNT[from]; k++)
            if ((p->goats & bb_square(j[k].over)) && (empty & bb_square(j[k].to)))
                out[n++] = move_make(MOVE_JUMP, from, j[k].to);
    }
    return n;
}

int gen_moves(const position_t *p, move_t *out)
{
    int n = 0;
    if (p->captured >= BC_CAPTURES_TO_WIN)
        return 0;
    bb_t empty = position_empty(p);
    if (p->side == GOATS) {
        if (p->in_hand) {
            for (bb_t b = empty; b; b &= b - 1)
                out[n++] = move_make(MOVE_PLACE, bb_first(b), bb_first(b));
            return n;
        }
        for (bb_t g = p->goats; g; g &= g - 1) {
            int from = bb_first(g);
            for (bb_t b = BC_STEPS[from] & empty; b; b &= b - 1)
                out[n++] = move_make(MOVE_STEP, from, bb_first(b));
        }
        return n;
    }
    for (bb_t t = p->tigers; t; t &= t - 1) {
        int from = bb_first(t);
        for (bb_t b = BC_STEPS[from] & empty; b; b &= b - 1)
            out[n++] = move_make(MOVE_STEP, from, bb_first(b));
    }
    return n + gen_captures(p, out + n);
}

bool move_is_pseudo_legal(const position_t *p, move_t m)
{
    move_t list[MAX_MOVES];
    int n = gen_moves(p, list);
    for (int i = 0; i < n; i++)
        if (list[i] == m)
            return true;
    return false;
}

/* With goats to place and tigers answering, the leaf count two plies down is the sum over
 * the empty points of the tiger moves after a goat lands there. */
static uint64_t perft_place_then_tigers(const position_t *p)
{
    uint64_t n = 0;
    bb_t empty = position_empty(p);
    for (bb_t b = empty; b; b &= b - 1)
        n += (uint64_t)count_tiger_moves(p->tigers, p->goats | (b & -b));
    return n;
}

uint64_t perft(position_t *p, int depth)
{
    if (depth <= 0)
        return 1;
    if (depth == 1)
        return (uint64_t)count_moves(p);
    if (depth == 2 && p->side == GOATS && p->in_hand && p->captured < BC_CAPTURES_TO_WIN)
        return perft_place_then_tigers(p);
    move_t list[MAX_MOVES];
    int n = gen_moves(p, list);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        position_make(p, list[i]);
        total += perft(p, depth - 1);
        position_unmake(p, list[i]);
    }
    return total;
}
