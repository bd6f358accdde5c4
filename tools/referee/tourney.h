/* A run: the schedule of games, the worker threads that play them, results counted in game
 * order (so they do not depend on -concurrency), SPRT stopping, engine restarts and drops,
 * the records file, progress, Ctrl-C and the final report. */
#ifndef REFEREE_TOURNEY_H
#define REFEREE_TOURNEY_H

#include "cli.h"

/* Runs the tournament cfg describes; returns the process exit status
 * (0 done, 1 bad input such as an openings file, 2 failed during the run, 130 interrupted). */
int tourney_run(const config_t *cfg);

#endif
