/* The database adjudication hook: a decided movement-phase position ends the game at once. */
#ifndef REFEREE_ADJUDICATE_H
#define REFEREE_ADJUDICATE_H

#include <stdbool.h>
#include <stddef.h>

#include "board.h"

typedef struct adjudicator adjudicator_t;

/* Opens the database in dir; NULL with a reason in msg. */
adjudicator_t *adj_open(const char *dir, char *msg, size_t msglen);
void adj_close(adjudicator_t *a);
/* The winner (GOATS or TIGERS) of p with perfect play, or -1 when the database does not
 * cover p or p is a draw (draws are played on). The referee's only way to the database:
 * it adjudicates as soon as the database covers the position. Safe to call from several
 * threads at once. */
int adj_probe(const adjudicator_t *a, const position_t *p);

#endif
