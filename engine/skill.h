/* Playing below full strength, the way Stockfish's Skill Level does it: the search runs with
 * at least SKILL_MULTIPV lines, and once the depth 1 + level is done the engine picks one of
 * those lines, adding to each a margin that grows with the line's distance from the best and
 * a random part, both larger at weaker levels. The random numbers come from a generator the
 * caller seeds, so a game replays the same way. */
#ifndef BAGHCHAL_SKILL_H
#define BAGHCHAL_SKILL_H

#include <stdbool.h>
#include <stdint.h>

#include "search.h"

enum {
    SKILL_MAX = 20,     /* full strength: no picking */
    SKILL_MULTIPV = 4,  /* lines searched at least while picking */
    SKILL_MIN_ELO = 600,
    SKILL_MAX_ELO = 2400
};

/* The level (0 .. 19.x) that an UCI_Elo setting stands for: linear over the Elo range, so
 * SKILL_MIN_ELO is level 0 and SKILL_MAX_ELO level 19.5. */
double skill_level_from_elo(int elo);

static inline bool skill_enabled(double level) { return level < SKILL_MAX; }
/* The iteration whose lines the pick looks at. */
static inline int skill_pick_depth(double level) { return 1 + (int)level; }

/* xorshift64*: state must not be 0. */
uint64_t skill_rand(uint64_t *state);

/* scores: the lines' scores, best first (n >= 1). Returns the index of the line to play. */
int skill_pick(const int *scores, int n, double level, uint64_t *rng);

/* The engine's strength settings and, during a search, the lines seen and the pick. */
#define SKILL_SEED UINT64_C(0x9E3779B97F4A7C15)
typedef struct {
    int skill_level, elo;
    bool limit_strength;
    double level;  /* what the settings stand for */
    uint64_t rng;  /* reseeded by engine_clear (ucinewgame) */
    bool active, picked;
    int lines_nb;  /* lines each iteration reports */
    bool have[MAX_MULTIPV];
    search_info_t lines[MAX_MULTIPV];
    search_info_t pick;
} skill_state_t;

void skill_init(skill_state_t *s);
void skill_set(skill_state_t *s, int skill_level, bool limit_strength, int elo);
/* Before a search: the MultiPV the search must run with (the caller's, or more to pick from). */
int skill_prepare(skill_state_t *s, const game_t *g, int multipv);
/* Each info: remembers the line and picks once its iteration is done at the pick depth.
 * True when the line is one the caller asked for (multipv <= user_multipv). */
bool skill_on_info(skill_state_t *s, const search_info_t *info, int user_multipv);
/* At bestmove: the picked line's move, reply and information replace the search's. */
void skill_on_bestmove(skill_state_t *s, move_t *best, move_t *ponder, const search_info_t **final);

#endif
