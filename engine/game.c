/* Game history, repetition rules and results. */
#include "game.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"

/* ---- the table of positions seen ----------------------------------------------- */

/* The slot holding p, or the empty slot where it would go. */
static size_t seen_slot(const game_seen_t *seen, size_t cap, const position_t *history, const position_t *p)
{
    size_t i = (size_t)p->key & (cap - 1);
    while (seen[i].first && !position_same(&history[seen[i].first - 1], p))
        i = (i + 1) & (cap - 1);
    return i;
}

static bool seen_resize(game_t *g, size_t cap)
{
    game_seen_t *t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < g->seen_cap; i++)
        if (g->seen[i].first)
            t[seen_slot(t, cap, g->history, &g->history[g->seen[i].first - 1])] = g->seen[i];
    free(g->seen);
    g->seen = t;
    g->seen_cap = cap;
    return true;
}

/* Records history[index]; the table stays at most half full. */
static bool seen_add(game_t *g, size_t index)
{
    if ((g->seen_used + 1) * 2 > g->seen_cap && !seen_resize(g, g->seen_cap * 2))
        return false;
    game_seen_t *e = &g->seen[seen_slot(g->seen, g->seen_cap, g->history, &g->history[index])];
    if (!e->first) {
        e->first = index + 1;
        g->seen_used++;
    }
    e->count++;
    return true;
}

int game_count_position(const game_t *g, const position_t *p)
{
    const game_seen_t *e = &g->seen[seen_slot(g->seen, g->seen_cap, g->history, p)];
    return e->first ? (int)e->count : 0;
}

/* ---- games ---------------------------------------------------------------------- */

bool game_init(game_t *g, const position_t *start, const obx_meta_t *meta, rep_rule_t rule)
{
    memset(g, 0, sizeof *g);
    g->cap = 64;
    g->seen_cap = 128;
    g->history = malloc(g->cap * sizeof *g->history);
    g->moves = malloc(g->cap * sizeof *g->moves);
    g->seen = calloc(g->seen_cap, sizeof *g->seen);
    if (!g->history || !g->moves || !g->seen) {
        game_free(g);
        return false;
    }
    g->history[0] = *start;
    g->start_meta = meta ? *meta : (obx_meta_t){MOVE_NONE, 0};
    g->rule = rule;
    seen_add(g, 0);
    return true;
}

void game_free(game_t *g)
{
    free(g->history);
    free(g->moves);
    free(g->seen);
    memset(g, 0, sizeof *g);
}

void game_swap(game_t *a, game_t *b)
{
    game_t t = *a;
    *a = *b;
    *b = t;
}

bool game_copy(game_t *dst, const game_t *src)
{
    *dst = *src;
    dst->history = malloc(src->cap * sizeof *dst->history);
    dst->moves = malloc(src->cap * sizeof *dst->moves);
    dst->seen = malloc(src->seen_cap * sizeof *dst->seen);
    if (!dst->history || !dst->moves || !dst->seen) {
        game_free(dst);
        return false;
    }
    memcpy(dst->history, src->history, (src->count + 1) * sizeof *dst->history);
    memcpy(dst->moves, src->moves, src->count * sizeof *dst->moves);
    memcpy(dst->seen, src->seen, src->seen_cap * sizeof *dst->seen);
    return true;
}

bool game_move_repeats(const game_t *g, move_t m)
{
    const position_t *cur = game_position(g);
    if (g->rule != REP_FORBID || cur->in_hand)
        return false;
    position_t next = *cur;
    position_make(&next, m);
    return game_count_position(g, &next) > 0;
}

int game_occurrences(const game_t *g) { return game_count_position(g, game_position(g)); }

bool game_move_draws(const game_t *g, move_t m)
{
    if (g->rule != REP_DRAW)
        return false;
    position_t next = *game_position(g);
    position_make(&next, m);
    return game_count_position(g, &next) >= 2;
}

static bool game_is_over_by_draw(const game_t *g)
{
    return g->rule == REP_DRAW && game_occurrences(g) >= 3;
}

int game_legal_moves(const game_t *g, move_t *out)
{
    if (game_is_over_by_draw(g))
        return 0;
    int n = gen_moves(game_position(g), out), k = 0;
    for (int i = 0; i < n; i++)
        if (!game_move_repeats(g, out[i]))
            out[k++] = out[i];
    return k;
}

bool game_is_legal_move(const game_t *g, move_t m)
{
    return !game_is_over_by_draw(g) && move_is_pseudo_legal(game_position(g), m) && !game_move_repeats(g, m);
}

game_result_t game_result(const game_t *g)
{
    const position_t *p = game_position(g);
    game_result_t r = {RESULT_NONE, -1};
    if (p->captured >= BC_CAPTURES_TO_WIN)
        return (game_result_t){RESULT_FIVE_CAPTURED, TIGERS};
    if (game_is_over_by_draw(g))
        return (game_result_t){RESULT_REPETITION_DRAW, -1};
    move_t list[MAX_MOVES];
    if (gen_moves(p, list) == 0) {
        r.reason = p->side == TIGERS ? RESULT_TIGERS_TRAPPED : RESULT_GOATS_STUCK;
        r.winner = !p->side;
    } else if (game_legal_moves(g, list) == 0) {
        r.reason = RESULT_REPETITION_BLOCKED;
        r.winner = !p->side;
    }
    return r;
}

const char *result_describe(game_result_t r)
{
    switch (r.reason) {
    case RESULT_FIVE_CAPTURED:
        return "tigers win: five goats captured";
    case RESULT_TIGERS_TRAPPED:
        return "goats win: the tigers cannot move";
    case RESULT_GOATS_STUCK:
        return "tigers win: the goats cannot move";
    case RESULT_REPETITION_BLOCKED:
        return r.winner == GOATS ? "goats win: every tiger move would repeat a position"
                                 : "tigers win: every goat move would repeat a position";
    case RESULT_REPETITION_DRAW:
        return "draw: the position occurred three times";
    default:
        return "";
    }
}

static bool game_grow(game_t *g)
{
    size_t cap = g->cap * 2;
    position_t *h = realloc(g->history, cap * sizeof *h);
    if (!h)
        return false;
    g->history = h;
    move_t *m = realloc(g->moves, cap * sizeof *m);
    if (!m)
        return false;
    g->moves = m;
    g->cap = cap;
    return true;
}

bc_error_t game_play(game_t *g, move_t m, char *msg, size_t msglen)
{
    const position_t *p = game_position(g);
    char t[MOVE_TEXT_LEN];
    move_format(m, t);
    /* A legal move proves the game goes on, so the full result (every move generated) is
     * only worked out for the message of a refused move: replay stays linear and cheap. */
    bool over = p->captured >= BC_CAPTURES_TO_WIN || game_is_over_by_draw(g);
    bc_error_t err = over                           ? MOVE_ERR_GAME_OVER
                     : !move_is_pseudo_legal(p, m) ? MOVE_ERR_ILLEGAL
                     : game_move_repeats(g, m)     ? MOVE_ERR_REPETITION
                                                   : BC_OK;
    if (err != BC_OK) {
        game_result_t r = game_result(g);
        if (r.reason != RESULT_NONE)
            snprintf(msg, msglen, "%s: the game is over (%s)", t, result_describe(r));
        else if (err == MOVE_ERR_ILLEGAL)
            snprintf(msg, msglen, "%s is not a legal move for the %s in this position", t,
                     p->side == GOATS ? "goats" : "tigers");
        else
            snprintf(msg, msglen, "%s recreates an earlier position (Repetition forbid)", t);
        return r.reason != RESULT_NONE ? MOVE_ERR_GAME_OVER : err;
    }
    if (g->count + 1 >= g->cap && !game_grow(g)) {
        snprintf(msg, msglen, "out of memory");
        return BC_ERR_NO_MEMORY;
    }
    g->history[g->count + 1] = g->history[g->count];
    position_make(&g->history[g->count + 1], m);
    if (!seen_add(g, g->count + 1)) {
        snprintf(msg, msglen, "out of memory");
        return BC_ERR_NO_MEMORY;
    }
    g->moves[g->count++] = m;
    return BC_OK;
}

/* Forgets one occurrence of history[index], the last one recorded; a slot left empty is
 * closed by moving later entries of its probe run back (linear probing keeps no tombstones). */
static void seen_remove(game_t *g, size_t index)
{
    size_t mask = g->seen_cap - 1, i = seen_slot(g->seen, g->seen_cap, g->history, &g->history[index]);
    if (--g->seen[i].count > 0)
        return;
    g->seen[i].first = 0;
    g->seen_used--;
    for (size_t j = (i + 1) & mask; g->seen[j].first; j = (j + 1) & mask) {
        size_t home = (size_t)g->history[g->seen[j].first - 1].key & mask;
        /* Entry j may move to the hole i unless its home lies cyclically in (i, j]. */
        bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        g->seen[i] = g->seen[j];
        g->seen[j] = (game_seen_t){0, 0};
        i = j;
    }
}

move_t game_pop(game_t *g)
{
    if (g->count == 0)
        return MOVE_NONE;
    seen_remove(g, g->count);
    return g->moves[--g->count];
}

bc_error_t game_play_text(game_t *g, const char *text, char *msg, size_t msglen)
{
    move_t m;
    bc_error_t e = move_parse_text(text, &m, msg, msglen);
    if (e != BC_OK)
        return e;
    return game_play(g, m, msg, msglen);
}

obx_meta_t game_meta(const game_t *g)
{
    obx_meta_t m;
    m.last_move = g->count ? g->moves[g->count - 1] : g->start_meta.last_move;
    m.ply = g->start_meta.ply < 0 ? -1 : g->start_meta.ply + (int)g->count;
    return m;
}
