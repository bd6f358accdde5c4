/* Match statistics: logistic Elo with its 95% error, likelihood of superiority, and the
 * sequential probability ratio test (trinomial and pentanomial generalized SPRT). */
#ifndef REFEREE_STATS_H
#define REFEREE_STATS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int64_t wins, losses, draws;
} wld_t;

typedef struct {
    double score; /* (W + D/2) / N, 0.5 without games */
    double elo;   /* -400 log10(1/score - 1); +-INFINITY at a score of 1 or 0 */
    double error; /* half the width of the 95% interval, in Elo; INFINITY when unbounded */
    double los;   /* likelihood of superiority, 0..1 */
} elo_t;

/* -400 log10(1/s - 1). */
double elo_from_score(double s);
/* 1 / (1 + 10^(-elo/400)). */
double score_from_elo(double elo);
elo_t elo_estimate(wld_t r);

/* Pentanomial counts: n[k] pairs (an opening played with both colours) in which the engine
 * scored k/2 points, k = 0..4 (0, 0.5, 1, 1.5, 2). */
typedef struct {
    int64_t n[5];
} penta_t;

typedef struct {
    int64_t pairs;
    double score;      /* mean score per game, 0.5 without pairs */
    double elo;        /* logistic Elo of that score */
    double error;      /* 95% half-width from the variance of the pair scores; INFINITY when unbounded */
    double nelo;       /* normalized Elo: (score - 1/2) / sqrt(2 var) * 800 / ln 10, var per pair */
    double nelo_error; /* its 95% half-width */
    double los;        /* likelihood of superiority from the pair variance */
} penta_elo_t;

penta_elo_t penta_estimate(penta_t p);

typedef enum { SPRT_CONTINUE = 0, SPRT_H0, SPRT_H1 } sprt_verdict_t;

/* log(beta / (1 - alpha)) and log((1 - beta) / alpha). */
void sprt_bounds(double alpha, double beta, double *lower, double *upper);
/* The generalized SPRT of fishtest and fastchess for logistic Elo: the log-likelihood ratio
 * of the maximum-likelihood outcome distributions whose mean score is s0 (elo0) and s1
 * (elo1), given the observed frequencies (a count of 0 counts as 0.001, as fastchess does);
 * 0 without games. Trinomial: games scored 0, 1/2, 1. */
double sprt_llr(wld_t r, double elo0, double elo1);
/* The same over pairs scored 0, 1/4, 1/2, 3/4, 1 per game (a pair 1-1 and a pair of two
 * draws both count as 1/2, as in fastchess). */
double sprt_llr_penta(penta_t p, double elo0, double elo1);
sprt_verdict_t sprt_decide(double llr, double lower, double upper);
const char *sprt_verdict_name(sprt_verdict_t v);

#endif
