/* Match statistics: logistic Elo with its 95% error, likelihood of superiority, and the
 * sequential probability ratio test (the trinomial GSPRT approximation). */
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

typedef enum { SPRT_CONTINUE = 0, SPRT_H0, SPRT_H1 } sprt_verdict_t;

/* log(beta / (1 - alpha)) and log((1 - beta) / alpha). */
void sprt_bounds(double alpha, double beta, double *lower, double *upper);
/* N (s1 - s0) (2 s - s0 - s1) / (2 var), with s0, s1 the scores of elo0 and elo1 and var
 * the variance of one game's score; 0 without games or without variance. */
double sprt_llr(wld_t r, double elo0, double elo1);
sprt_verdict_t sprt_decide(double llr, double lower, double upper);
const char *sprt_verdict_name(sprt_verdict_t v);

#endif
