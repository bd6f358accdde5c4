/* Glicko-2 against Glickman's worked example ("Example of the Glicko-2 system", 2013), and
 * the properties the room relies on: a win raises, a loss lowers, both players at once. */
#include <criterion/criterion.h>

#ifndef BAGHCHAL_ROOM
Test(glicko, not_built, .disabled = true) {}
#else
#include <math.h>

#include "glicko.h"

/* The paper's player: 1500, RD 200, sigma 0.06, tau 0.5, against 1400/30 (win), 1550/100
 * (loss), 1700/300 (loss): 1464.06, RD 151.52, sigma 0.05999. */
Test(glicko, glickmans_example)
{
    glicko_t p = {1500, 200, 0.06, 0};
    glicko_result_t r[3] = {{1400, 30, 1}, {1550, 100, 0}, {1700, 300, 0}};
    glicko_t n = glicko_update(p, r, 3, 0.5);
    cr_assert(fabs(n.rating - 1464.06) < 0.01, "rating %.4f", n.rating);
    cr_assert(fabs(n.deviation - 151.52) < 0.01, "RD %.4f", n.deviation);
    cr_assert(fabs(n.volatility - 0.05999) < 0.00001, "sigma %.6f", n.volatility);
    cr_assert_eq(n.games, 3);
}

Test(glicko, a_period_without_games_only_widens_the_deviation)
{
    glicko_t p = {1700, 60, 0.06, 12};
    glicko_t n = glicko_update(p, NULL, 0, GLICKO_TAU);
    cr_assert_eq(n.rating, 1700);
    cr_assert(n.deviation > 60 && n.deviation < 61, "RD %.4f", n.deviation);
    cr_assert_eq(n.games, 12);
    /* Never past the new player's deviation. */
    glicko_t q = glicko_update(glicko_new(), NULL, 0, GLICKO_TAU);
    cr_assert_eq(q.deviation, GLICKO_MAX_RD);
}

Test(glicko, one_game_moves_both_players_by_their_deviations)
{
    glicko_t a = glicko_new(), b = glicko_new();
    glicko_game(&a, &b, 1.0);
    /* Two new players: the winner gains what the loser loses (about 162.3 at RD 350). */
    cr_assert(a.rating > 1600 && a.rating < 1700, "%.2f", a.rating);
    cr_assert(fabs((a.rating - 1500) - (1500 - b.rating)) < 1e-9);
    cr_assert(a.deviation < 350 && b.deviation < 350);
    cr_assert_eq(a.games, 1);
    cr_assert_eq(b.games, 1);
    /* A draw between equals moves nobody; a settled player moves less than a new one. */
    glicko_t c = {1800, 50, 0.06, 100}, d = {1800, 300, 0.06, 2};
    glicko_game(&c, &d, 0.5);
    cr_assert(fabs(c.rating - 1800) < 1e-6 && fabs(d.rating - 1800) < 1e-6);
    glicko_t e = {1800, 50, 0.06, 100}, f = {1800, 300, 0.06, 2};
    glicko_game(&e, &f, 0.0);
    cr_assert(1800 - e.rating < f.rating - 1800, "the settled player lost %.2f, the new one gained %.2f",
              1800 - e.rating, f.rating - 1800);
    cr_assert(glicko_provisional(&f) == (f.deviation > GLICKO_PROVISIONAL_RD));
    cr_assert_not(glicko_provisional(&e));
    /* An upset against a much stronger player gains more than a win against an equal. */
    glicko_t g1 = {1500, 100, 0.06, 20}, h1 = {2000, 100, 0.06, 20};
    glicko_t g2 = {1500, 100, 0.06, 20}, h2 = {1500, 100, 0.06, 20};
    glicko_game(&g1, &h1, 1.0);
    glicko_game(&g2, &h2, 1.0);
    cr_assert(g1.rating - 1500 > g2.rating - 1500);
    cr_assert_eq(glicko_shown(&(glicko_t){1499.5, 50, 0.06, 1}), 1500);
}
#endif
