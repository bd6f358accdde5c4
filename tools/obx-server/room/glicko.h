/* Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", 2013), as lichess rates its
 * players: each game updates both players at once, as a rating period of one game. */
#ifndef ROOM_GLICKO_H
#define ROOM_GLICKO_H

#include <stdbool.h>

typedef struct {
    double rating;     /* on the Glicko scale: 1500 for a new player */
    double deviation;  /* RD: 350 for a new player; at least GLICKO_MIN_RD, at most GLICKO_MAX_RD */
    double volatility; /* sigma: 0.06 for a new player */
    int games;         /* rated games played */
} glicko_t;

enum { GLICKO_PROVISIONAL_RD = 110 }; /* above it a rating is shown with '?', as lichess does */
#define GLICKO_MIN_RD 45.0
#define GLICKO_MAX_RD 350.0
#define GLICKO_TAU 0.75 /* the system constant, lichess's */

/* A new player's rating: 1500, RD 350, volatility 0.06, no games. */
glicko_t glicko_new(void);

/* One opponent's result in a rating period. */
typedef struct {
    double rating, deviation; /* the opponent's, before the period */
    double score;             /* 1 win, 0.5 draw, 0 loss */
} glicko_result_t;

/* The rating after a period of n games (n may be 0: only the deviation grows), with the
 * system constant tau. Glickman's steps 1-8, the volatility found by the Illinois
 * algorithm (his step 5.1-5.5, epsilon 0.000001). The deviation is then kept within
 * GLICKO_MIN_RD .. GLICKO_MAX_RD; games grows by n. */
glicko_t glicko_update(glicko_t player, const glicko_result_t *results, int n, double tau);

/* Both players of one rated game at once (score_a: 1, 0.5 or 0 for a), with GLICKO_TAU.
 * Each is rated against the other's rating before the game. */
void glicko_game(glicko_t *a, glicko_t *b, double score_a);

/* The rating as shown: rounded to a whole number. */
int glicko_shown(const glicko_t *g);
bool glicko_provisional(const glicko_t *g);

#endif
