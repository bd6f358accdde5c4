/* The database adjudication hook: a position the database decides ends the game at once. */
#ifndef REFEREE_ADJUDICATE_H
#define REFEREE_ADJUDICATE_H

#include <stdbool.h>
#include <stddef.h>

#include "game.h"

typedef struct adjudicator adjudicator_t;

/* Opens the database in dir; NULL with a reason in msg. */
adjudicator_t *adj_open(const char *dir, char *msg, size_t msglen);
void adj_close(adjudicator_t *a);
/* The winner (GOATS or TIGERS) of g's current position with perfect play, or -1 when the
 * database does not cover it or does not decide it. Under `draw` a database win or loss
 * decides; under `forbid` only one that holds after g's history (engine/forbid.h: the
 * history's bound, or a bounded search along the database's fastest lines), and a
 * database draw never does (no game is drawn under forbid: it is played on). The
 * referee's only way to the database. Safe to call from several threads at once. */
int adj_probe(const adjudicator_t *a, const game_t *g);

#endif
