/* One game between two players: clocks, limits, the rules of the match through
 * libbaghchal, adjudication, and every fault turned into a result. */
#ifndef REFEREE_PLAY_H
#define REFEREE_PLAY_H

#include "adjudicate.h"
#include "openings.h"
#include "player.h"
#include "util.h"

typedef struct {
    int64_t index;          /* 0-based game number of the run */
    int64_t round;          /* 0-based round: the opening */
    int pairing;            /* index of the engine pair */
    int engine[SIDE_NB];    /* engine index playing goats, tigers */
} game_spec_t;

/* A game is played once both engines are running and ready for it (readyok after
 * ucinewgame); only played games are counted. */
typedef struct {
    bool aborted;            /* the run stopped during the game: not counted */
    bool not_started;        /* the run stopped while the engines were made ready: not counted */
    bool start_failed;       /* an engine failed to start or get ready: not played (reason, term, failed) */
    bool unplayed;           /* an engine had been dropped: not played */
    int winner;              /* GOATS, TIGERS, or -1 for a draw */
    term_t term;
    char reason[512];        /* one line: what happened */
    bool failed[SIDE_NB];    /* the engine's process had to be killed or died */
    bool started[SIDE_NB];   /* a process was started for the side before the game */
    bool restarted[SIDE_NB]; /* ... to replace one of the same engine that had failed */
    size_t plies;
    char *record;            /* the game as written to the records file */
    char *pgn;               /* the game as PGN (with -pgnout), else NULL */
} outcome_t;

typedef struct {
    const config_t *cfg;
    const player_env_t *env;
    const openings_t *openings;
    const adjudicator_t *adj; /* NULL: no database */
} play_ctx_t;

/* Plays spec with players[GOATS], players[TIGERS] (started here if not running) and fills
 * out. Returns false only when the referee itself fails (out of memory). */
bool play_game(const play_ctx_t *ctx, const game_spec_t *spec, player_t *players[SIDE_NB], outcome_t *out);
void outcome_free(outcome_t *o);

#endif
