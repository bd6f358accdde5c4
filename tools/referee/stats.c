/* Elo, error, LOS and SPRT from win/loss/draw counts. */
#include "stats.h"

#include <math.h>

/* The two-sided 95% quantile of the normal distribution. */
#define Z95 1.959963984540054

double elo_from_score(double s)
{
    if (s <= 0.0)
        return -INFINITY;
    if (s >= 1.0)
        return INFINITY;
    return -400.0 * log10(1.0 / s - 1.0);
}

double score_from_elo(double elo) { return 1.0 / (1.0 + pow(10.0, -elo / 400.0)); }

/* Mean and variance of one game's score (1, 1/2, 0). */
static void score_moments(wld_t r, double *mean, double *var)
{
    double n = (double)(r.wins + r.losses + r.draws);
    double s = ((double)r.wins + 0.5 * (double)r.draws) / n;
    *mean = s;
    *var = ((double)r.wins * (1.0 - s) * (1.0 - s) + (double)r.draws * (0.5 - s) * (0.5 - s) +
            (double)r.losses * s * s) / n;
}

elo_t elo_estimate(wld_t r)
{
    elo_t e = {0.5, 0.0, INFINITY, 0.5};
    int64_t n = r.wins + r.losses + r.draws;
    if (r.wins + r.losses > 0)
        e.los = 0.5 * (1.0 + erf((double)(r.wins - r.losses) / sqrt(2.0 * (double)(r.wins + r.losses))));
    if (n == 0)
        return e;
    double s, var;
    score_moments(r, &s, &var);
    e.score = s;
    e.elo = elo_from_score(s);
    double half = Z95 * sqrt(var / (double)n);
    double hi = s + half, lo = s - half;
    if (lo <= 0.0 || hi >= 1.0)
        e.error = INFINITY;
    else
        e.error = (elo_from_score(hi) - elo_from_score(lo)) / 2.0;
    return e;
}

void sprt_bounds(double alpha, double beta, double *lower, double *upper)
{
    *lower = log(beta / (1.0 - alpha));
    *upper = log((1.0 - beta) / alpha);
}

double sprt_llr(wld_t r, double elo0, double elo1)
{
    int64_t n = r.wins + r.losses + r.draws;
    if (n == 0)
        return 0.0;
    double s, var;
    score_moments(r, &s, &var);
    if (var <= 0.0)
        return 0.0;
    double s0 = score_from_elo(elo0), s1 = score_from_elo(elo1);
    return (double)n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var);
}

sprt_verdict_t sprt_decide(double llr, double lower, double upper)
{
    if (llr >= upper)
        return SPRT_H1;
    if (llr <= lower)
        return SPRT_H0;
    return SPRT_CONTINUE;
}

const char *sprt_verdict_name(sprt_verdict_t v)
{
    return v == SPRT_H1 ? "H1 accepted" : v == SPRT_H0 ? "H0 accepted" : "continue";
}
