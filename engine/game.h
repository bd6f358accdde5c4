/* A game: a start position and the moves played from it, with the repetition rules and
 * the result. The history is what makes moves illegal under `forbid` and draws under `draw`. */
#ifndef BAGHCHAL_GAME_H
#define BAGHCHAL_GAME_H

#include <stddef.h>

#include "notation.h"

typedef enum { REP_FORBID = 0, REP_DRAW = 1 } rep_rule_t;

typedef enum {
    RESULT_NONE = 0,
    RESULT_FIVE_CAPTURED,      /* tigers win */
    RESULT_TIGERS_TRAPPED,     /* goats win: tigers to move and no tiger can move */
    RESULT_GOATS_STUCK,        /* tigers win: goats to move and no goat can move */
    RESULT_REPETITION_BLOCKED, /* forbid: every move of the side to move repeats; it loses */
    RESULT_REPETITION_DRAW     /* draw: the position occurred for the third time */
} result_reason_t;

typedef struct {
    result_reason_t reason;
    int winner; /* GOATS or TIGERS; -1 for a draw or a game still going */
} game_result_t;

/* One distinct position of a game and how often it occurred (a slot of game_t's table). */
typedef struct {
    size_t first; /* index + 1 in history of its first occurrence; 0: an empty slot */
    size_t count;
} game_seen_t;

typedef struct {
    position_t *history; /* history[0] = start, history[count] = current position */
    move_t *moves;       /* moves[i] leads from history[i] to history[i + 1] */
    size_t count, cap;
    /* Every position of the history by its key, so that the repetition rules cost the same
     * at ply 30,000 as at ply 30: an open-addressing table, a power of two in size. */
    game_seen_t *seen;
    size_t seen_cap, seen_used;
    obx_meta_t start_meta; /* last move and half-move count of the start position */
    rep_rule_t rule;
} game_t;

/* Starts a game at start; meta gives its OBX last move and half-move count (NULL: none
 * and 0, as at the start of a game). Returns false (g left empty) when memory runs out. */
bool game_init(game_t *g, const position_t *start, const obx_meta_t *meta, rep_rule_t rule);
void game_free(game_t *g);
/* Exchanges the contents of two games (how a caller commits a fully checked new game). */
void game_swap(game_t *a, game_t *b);
/* Makes dst (uninitialised) an exact copy of src, in time linear in its length, without
 * checking the moves again (a game whose rule changed may hold repetitions the new rule
 * would refuse). Returns false (dst left empty) when memory runs out. */
bool game_copy(game_t *dst, const game_t *src);

static inline const position_t *game_position(const game_t *g) { return &g->history[g->count]; }

/* The moves legal now: the rules of the position, minus under `forbid` the moves that
 * recreate an earlier position once all goats are placed. None once the game is over. */
int game_legal_moves(const game_t *g, move_t *out);
/* Is m among game_legal_moves(g)? Without generating the repetition-checked list. */
bool game_is_legal_move(const game_t *g, move_t m);
/* Does m (made from the position before it) recreate an earlier position illegally? */
bool game_move_repeats(const game_t *g, move_t m);
/* Number of times the current position (board and side to move) occurred, itself included. */
int game_occurrences(const game_t *g);
/* Number of times p (board and side to move) occurs in the game's history, the current
 * position included. Constant time. */
int game_count_position(const game_t *g, const position_t *p);
/* Under `draw`, does m (made from the current position) end the game by a third occurrence? */
bool game_move_draws(const game_t *g, move_t m);

/* Parses move text and plays it if legal; on error the game is unchanged. */
bc_error_t game_play_text(game_t *g, const char *text, char *msg, size_t msglen);
/* Plays m if legal; on error the game is unchanged. */
bc_error_t game_play(game_t *g, move_t m, char *msg, size_t msglen);
/* Takes back the last move (what game_play added), in constant time; returns it, or
 * MOVE_NONE (the game unchanged) when no move has been played. */
move_t game_pop(game_t *g);

game_result_t game_result(const game_t *g);
/* "tigers win: five goats captured" and the like; "" for a game still going. */
const char *result_describe(game_result_t r);

/* The OBX meta fields of the current position: last move and half-move count. */
obx_meta_t game_meta(const game_t *g);

#endif
