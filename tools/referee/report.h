/* What a run reports: the progress line, the final tables (per engine pair, by side,
 * Elo, LOS, SPRT, terminations) and the JSON summary. */
#ifndef REFEREE_REPORT_H
#define REFEREE_REPORT_H

#include <stdio.h>

#include "cli.h"
#include "stats.h"
#include "util.h"

typedef struct {
    int a, b; /* engine indices; results are counted from a's side */
} pairing_t;

typedef struct {
    wld_t as[SIDE_NB]; /* a's results when a played goats, tigers */
    penta_t penta;     /* a's points in the pairs (both colours of one opening) counted whole */
} pair_stats_t;

typedef struct {
    int failures; /* consecutive games in which its process failed */
    int restarts;
    bool dropped;
} engine_state_t;

typedef struct {
    const config_t *cfg;
    const pairing_t *pairings;
    int pairings_nb;
    const pair_stats_t *pairs;
    const engine_state_t *engines;
    int64_t terms[TERM_COUNT];
    int64_t scheduled; /* games in the schedule */
    int64_t counted;   /* games in the results */
    int64_t aborted;   /* stopped in progress by the end of the run */
    int64_t unplayed;  /* not played because an engine was dropped */
    int64_t discarded; /* finished after the SPRT decision, left out so results do not depend on timing */
    bool interrupted;
    double llr, lower, upper;
    sprt_verdict_t verdict;
    double seconds;
    const char *fatal; /* NULL, or why the run failed */
} summary_t;

wld_t pair_total(const pair_stats_t *p);
/* One line: games, score, Elo, LLR. */
void report_progress(const summary_t *s, char *buf, size_t len);
void report_print(const summary_t *s, FILE *out);
/* Writes the JSON summary; false with a reason in msg. */
bool report_json(const summary_t *s, const char *path, char *msg, size_t msglen);

#endif
