/* Elo, error, LOS and SPRT from win/loss/draw counts and from pair (pentanomial) counts. */
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

/* The distribution closest to the observed one (maximum likelihood) among those with mean
 * score s: q_i = p_i / (1 + theta (a_i - s)), theta solving sum p_i (a_i - s) / (1 + theta
 * (a_i - s)) = 0 (M. Van den Bergh, "Comments on Normalized Elo", proposition 1.1). The sum
 * falls from +inf to -inf across the admissible theta, so bisection finds the root. */
static void mle_with_mean(const double *a, const double *p, int n, double s, double *q)
{
    double lo = -1.0 / (a[n - 1] - s), hi = -1.0 / (a[0] - s);
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi), f = 0.0;
        if (mid <= lo || mid >= hi)
            break;
        for (int i = 0; i < n; i++)
            f += p[i] * (a[i] - s) / (1.0 + mid * (a[i] - s));
        if (f > 0)
            lo = mid;
        else
            hi = mid;
    }
    double theta = 0.5 * (lo + hi);
    for (int i = 0; i < n; i++)
        q[i] = p[i] / (1.0 + theta * (a[i] - s));
}

/* counts[i] of outcomes scored a[i] (ascending, a[0] = 0, a[n-1] = 1). */
static double gsprt_llr(const int64_t *counts, const double *a, int n, double elo0, double elo1)
{
    double c[5], p[5], q0[5], q1[5], total = 0.0;
    int64_t seen = 0;
    for (int i = 0; i < n; i++) {
        seen += counts[i];
        c[i] = counts[i] > 0 ? (double)counts[i] : 1e-3;
        total += c[i];
    }
    if (seen == 0)
        return 0.0;
    for (int i = 0; i < n; i++)
        p[i] = c[i] / total;
    mle_with_mean(a, p, n, score_from_elo(elo0), q0);
    mle_with_mean(a, p, n, score_from_elo(elo1), q1);
    double llr = 0.0;
    for (int i = 0; i < n; i++)
        llr += p[i] * (log(q1[i]) - log(q0[i]));
    return total * llr;
}

double sprt_llr(wld_t r, double elo0, double elo1)
{
    static const double a[3] = {0.0, 0.5, 1.0};
    int64_t counts[3] = {r.losses, r.draws, r.wins};
    return gsprt_llr(counts, a, 3, elo0, elo1);
}

double sprt_llr_penta(penta_t p, double elo0, double elo1)
{
    static const double a[5] = {0.0, 0.25, 0.5, 0.75, 1.0};
    return gsprt_llr(p.n, a, 5, elo0, elo1);
}

penta_elo_t penta_estimate(penta_t p)
{
    penta_elo_t e = {0, 0.5, 0.0, INFINITY, 0.0, INFINITY, 0.5};
    for (int k = 0; k < 5; k++)
        e.pairs += p.n[k];
    if (e.pairs == 0)
        return e;
    double n = (double)e.pairs, s = 0.0, var = 0.0;
    for (int k = 0; k < 5; k++)
        s += (double)p.n[k] * (k / 4.0) / n;
    for (int k = 0; k < 5; k++)
        var += (double)p.n[k] * (k / 4.0 - s) * (k / 4.0 - s) / n;
    e.score = s;
    e.elo = elo_from_score(s);
    double half = Z95 * sqrt(var / n), hi = s + half, lo = s - half;
    if (var > 0.0 && lo > 0.0 && hi < 1.0)
        e.error = (elo_from_score(hi) - elo_from_score(lo)) / 2.0;
    const double k_nelo = 800.0 / log(10.0);
    if (var > 0.0) {
        e.nelo = (s - 0.5) / sqrt(2.0 * var) * k_nelo;
        e.nelo_error = half / sqrt(2.0 * var) * k_nelo;
        e.los = (1.0 - erf(-(s - 0.5) / sqrt(2.0 * var / n))) / 2.0;
    } else {
        e.nelo = s > 0.5 ? INFINITY : s < 0.5 ? -INFINITY : 0.0;
        e.los = s > 0.5 ? 1.0 : s < 0.5 ? 0.0 : 0.5;
    }
    return e;
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
