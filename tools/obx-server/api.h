/* The OBX API without the transport: reading request fields (JSON body or query string),
 * building the game they describe, running one search, and writing every JSON answer. */
#ifndef OBX_SERVER_API_H
#define OBX_SERVER_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baghchal.h"

/* A request's "moves" have no count limit of their own: the body (--max-body) or the request
 * target (2048 bytes) bounds them. */
enum { API_MAX_DEPTH = MAX_PLY - 1 };

/* The error strings of the API; "error" is fixed per kind, "detail" says what was wrong. */
#define API_ERR_OBX "Invalid OBX format."
#define API_ERR_MOVE "Illegal move detected."
#define API_ERR_PARAM "Invalid request."

typedef struct {
    unsigned status;  /* HTTP status; 0 = no error */
    const char *error; /* one of the fixed strings */
    char code[32];    /* a short machine name: "tiger-count", "bad-json", ... */
    char detail[256];
} api_error_t;

void api_error_set(api_error_t *err, unsigned status, const char *error, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The fields of an /obx or /legal request. Numbers are 0 when not given. */
typedef struct {
    char *obx;
    char *move;
    char **moves;
    int moves_nb, moves_cap;
    int64_t movetime;
    int depth, multipv;
    int skill; /* Skill Level 0..20; SKILL_MAX when not given */
    int elo;   /* UCI_Elo with UCI_LimitStrength, SKILL_MIN_ELO..SKILL_MAX_ELO; 0 when not given */
    int64_t time[SIDE_NB], inc[SIDE_NB]; /* the clocks (gtime/ttime, ginc/tinc) in ms; -1 / 0 when not given */
    rep_rule_t rule; /* "repetition": forbid (the default) or draw */
} api_params_t;

/* From a JSON object. False with err filled (400) when the text is not a JSON object or a
 * field has the wrong type or range; out is then empty. */
bool api_params_from_json(const char *text, size_t len, api_params_t *out, api_error_t *err);

/* From query arguments: lookup returns the value of a key (its length in *len) or NULL.
 * "moves" is a list separated by commas or spaces. A value holding a NUL is a 400. */
typedef const char *(*api_lookup_fn)(void *ctx, const char *key, size_t *len);
bool api_params_from_query(api_lookup_fn lookup, void *ctx, api_params_t *out, api_error_t *err);

void api_params_free(api_params_t *p);

/* The game of the request: the OBX position, then "moves" in order, then "move". The game
 * has no history before the OBX position; the repetition rule is the request's (`forbid`
 * unless it says `draw`). False with err
 * filled (400 for the position, 422 for a move, 500 for memory); g is then empty. */
bool api_build_game(const api_params_t *p, game_t *g, api_error_t *err);

/* Search limits: movetime defaults to default_ms and is capped at max_ms; a depth search
 * is also stopped at max_ms. With clocks and no movetime the engine manages its time on the
 * clocks of g's side to move, scaled down when they would let it think longer than max_ms. */
typedef struct {
    int64_t default_movetime_ms, max_movetime_ms;
} api_config_t;
void api_limits(const api_params_t *p, const api_config_t *cfg, const game_t *g, search_limits_t *out);

/* Makes a JSON text valid UTF-8: each byte that is not part of a valid UTF-8 sequence (only
 * strings can hold one) is written as the escape \ufffd. Takes text over and returns it or
 * its copy; NULL (text freed) when memory runs out. Every builder below applies it. */
char *api_json_utf8(char *text);

/* Every builder returns a JSON text to free(), or NULL when memory runs out. */
char *api_error_json(const api_error_t *err);
/* /obx when the game is already over: no move, the result. */
char *api_over_json(const char *input, const game_t *g);
/* /legal: the position, its legal moves and result. */
char *api_legal_json(const game_t *g);

/* Runs one search of g on e at the given Skill Level, or at the level of elo when elo is not
 * 0 (UCI_LimitStrength), the table cleared first so answers do not depend on earlier
 * requests, and writes the /obx answer. On failure returns NULL and fills err. */
char *api_search_json(engine_t *e, const char *input, const game_t *g, const search_limits_t *limits,
                      int multipv, int skill, int elo, api_error_t *err);

/* The database's value of every legal move of g (moves, n of them), best first, into out:
 * returns n, or -1 when no database covers the position (none loaded, goats in hand). The
 * one place the server asks the library for per-move database values, so a database for
 * the placement phase slots in here. */
int api_db_move_values(const tb_t *tb, const game_t *g, const move_t *moves, int n, tb_move_value_t *out);

/* /analysis: every legal move of g with its value, from the database when it covers the
 * position ("source": "database": wdl and distance in plies; under g's rule `forbid` a
 * database draw is "open", a value the draw-rule database cannot give), else from one MultiPV search
 * of every move on e within limits ("source": "search": score, and wdl/distance when the
 * score is a forced result). NULL with err filled on failure. */
char *api_analysis_json(engine_t *e, const char *input, const game_t *g, const search_limits_t *limits,
                        api_error_t *err);

#endif
