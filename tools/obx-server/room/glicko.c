/* Glicko-2 (see glicko.h): Glickman's steps, on the Glicko-2 scale (mu, phi) internally. */
#include "glicko.h"

#include <math.h>

#define SCALE 173.7178
#define PI 3.14159265358979323846

glicko_t glicko_new(void) { return (glicko_t){1500.0, GLICKO_MAX_RD, 0.06, 0}; }

static double g_of(double phi) { return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (PI * PI)); }

static double e_of(double mu, double mu_j, double phi_j) { return 1.0 / (1.0 + exp(-g_of(phi_j) * (mu - mu_j))); }

/* Step 5: the new volatility, by the Illinois algorithm. */
static double new_volatility(double phi, double sigma, double v, double delta, double tau)
{
    double a = log(sigma * sigma), eps = 0.000001;
    double d2 = delta * delta, p2 = phi * phi;
#define F(x) ((exp(x) * (d2 - p2 - v - exp(x))) / (2.0 * (p2 + v + exp(x)) * (p2 + v + exp(x))) - ((x)-a) / (tau * tau))
    double A = a, B;
    if (d2 > p2 + v) {
        B = log(d2 - p2 - v);
    } else {
        int k = 1;
        while (F(a - k * tau) < 0 && k < 1000)
            k++;
        B = a - k * tau;
    }
    double fA = F(A), fB = F(B);
    for (int i = 0; i < 1000 && fabs(B - A) > eps; i++) {
        double C = A + (A - B) * fA / (fB - fA), fC = F(C);
        if (fC * fB <= 0) {
            A = B, fA = fB;
        } else {
            fA /= 2.0;
        }
        B = C, fB = fC;
    }
#undef F
    return exp(A / 2.0);
}

glicko_t glicko_update(glicko_t player, const glicko_result_t *results, int n, double tau)
{
    double mu = (player.rating - 1500.0) / SCALE, phi = player.deviation / SCALE, sigma = player.volatility;
    glicko_t out = player;
    if (n <= 0) {
        /* A period without games: only the deviation grows (step 6). */
        double phi_star = sqrt(phi * phi + sigma * sigma);
        out.deviation = fmin(fmax(phi_star * SCALE, GLICKO_MIN_RD), GLICKO_MAX_RD);
        return out;
    }
    double v_inv = 0.0, sum = 0.0;
    for (int j = 0; j < n; j++) {
        double mu_j = (results[j].rating - 1500.0) / SCALE, phi_j = results[j].deviation / SCALE;
        double g = g_of(phi_j), e = e_of(mu, mu_j, phi_j);
        v_inv += g * g * e * (1.0 - e);
        sum += g * (results[j].score - e);
    }
    double v = 1.0 / v_inv, delta = v * sum;
    double sigma_new = new_volatility(phi, sigma, v, delta, tau);
    double phi_star = sqrt(phi * phi + sigma_new * sigma_new);
    double phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
    double mu_new = mu + phi_new * phi_new * sum;
    out.rating = mu_new * SCALE + 1500.0;
    out.deviation = fmin(fmax(phi_new * SCALE, GLICKO_MIN_RD), GLICKO_MAX_RD);
    out.volatility = sigma_new;
    out.games = player.games + n;
    return out;
}

void glicko_game(glicko_t *a, glicko_t *b, double score_a)
{
    glicko_result_t ra = {b->rating, b->deviation, score_a}, rb = {a->rating, a->deviation, 1.0 - score_a};
    glicko_t na = glicko_update(*a, &ra, 1, GLICKO_TAU), nb = glicko_update(*b, &rb, 1, GLICKO_TAU);
    *a = na, *b = nb;
}

int glicko_shown(const glicko_t *g) { return (int)lround(g->rating); }

bool glicko_provisional(const glicko_t *g) { return g->deviation > GLICKO_PROVISIONAL_RD; }
