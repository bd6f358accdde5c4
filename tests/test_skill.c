/* Skill Level: the pick among the best lines (skill.h) and the engine playing below full
 * strength through the facade: moves from the best lines only, reproducible after a clear,
 * weaker than full strength in some positions, UCI_Elo standing for a level, and level 20
 * searching exactly as before. */
#include <criterion/criterion.h>

#include <string.h>

#include "baghchal.h"

Test(skill, elo_maps_linearly_onto_levels)
{
    cr_assert_float_eq(skill_level_from_elo(SKILL_MIN_ELO), 0.0, 1e-9);
    cr_assert_float_eq(skill_level_from_elo(SKILL_MAX_ELO), 19.5, 1e-9);
    cr_assert_float_eq(skill_level_from_elo(1500), 9.75, 1e-9);
    cr_assert_float_eq(skill_level_from_elo(1), 0.0, 1e-9);
    cr_assert(skill_enabled(19.5));
    cr_assert(!skill_enabled(20));
    cr_assert_eq(skill_pick_depth(0), 1);
    cr_assert_eq(skill_pick_depth(9.75), 10);
}

Test(skill, weak_levels_spread_strong_levels_keep_the_best)
{
    const int close[4] = {40, 30, 20, 10};
    int weak[4] = {0}, strong[4] = {0};
    uint64_t a = SKILL_SEED, b = SKILL_SEED;
    for (int i = 0; i < 2000; i++) {
        weak[skill_pick(close, 4, 0, &a)]++;
        strong[skill_pick(close, 4, 19, &b)]++;
    }
    for (int k = 0; k < 4; k++)
        cr_assert_gt(weak[k], 100, "level 0 chose line %d only %d times in 2000", k + 1, weak[k]);
    cr_assert_gt(strong[0], weak[0], "level 19 should keep the best line more often than level 0");
    /* A lost line is never chosen, however weak the level. */
    const int lost[4] = {0, -10, -20, -(SCORE_MATE - 9)};
    uint64_t c = SKILL_SEED;
    for (int i = 0; i < 2000; i++)
        cr_assert_neq(skill_pick(lost, 4, 0, &c), 3, "level 0 walked into a lost line");
    /* The same seed gives the same choices. */
    uint64_t d = SKILL_SEED, e = SKILL_SEED;
    for (int i = 0; i < 100; i++)
        cr_assert_eq(skill_pick(close, 4, 3, &d), skill_pick(close, 4, 3, &e));
}

typedef struct {
    move_t best;
    int lines_seen; /* info lines with multipv > 1 */
    uint64_t nodes;
    move_t firsts[MAX_MULTIPV]; /* the first move of each line at the last depth */
    int depth_of[MAX_MULTIPV];
} seen_t;

static void on_info(void *ctx, const search_info_t *info)
{
    seen_t *s = ctx;
    if (info->multipv > 1)
        s->lines_seen++;
    if (info->multipv >= 1 && info->multipv <= MAX_MULTIPV && info->pv_len > 0) {
        s->firsts[info->multipv - 1] = info->pv[0];
        s->depth_of[info->multipv - 1] = info->depth;
    }
}

static void on_best(void *ctx, move_t best, move_t ponder, const search_info_t *final)
{
    (void)ponder;
    seen_t *s = ctx;
    s->best = best;
    s->nodes = final->nodes;
}

static seen_t search(engine_t *e, const game_t *g, int depth)
{
    seen_t s;
    memset(&s, 0, sizeof s);
    search_limits_t l;
    search_limits_init(&l);
    l.depth = depth;
    engine_clear(e);
    cr_assert(engine_set_game(e, g));
    search_report_t r = {on_info, on_best, &s};
    engine_search_sync(e, &l, &r);
    return s;
}

static const char *const OPENING[] = {"C3", "A1B1", "B3", "E5D4", "D3", "A5B4", "C2", "E1E2"};
enum { OPENING_NB = sizeof OPENING / sizeof *OPENING };

Test(skill, level_0_plays_among_the_best_lines_reproducibly)
{
    engine_t *e = engine_new();
    cr_assert_not_null(e);
    cr_assert(engine_set_hash(e, 4));
    position_t start;
    position_set_start(&start);
    game_t g;
    cr_assert(game_init(&g, &start, NULL, REP_FORBID));
    int differs = 0;
    for (int ply = 0; ply <= OPENING_NB; ply++) {
        /* The lines the pick looks at: MultiPV 4 at depth 1 (level 0's pick depth). */
        engine_set_skill(e, SKILL_MAX, false, SKILL_MAX_ELO);
        engine_set_multipv(e, SKILL_MULTIPV);
        seen_t lines = search(e, &g, 1);
        engine_set_multipv(e, 1);
        seen_t full = search(e, &g, 5);
        engine_set_skill(e, 0, false, SKILL_MAX_ELO);
        seen_t weak = search(e, &g, 5);
        seen_t again = search(e, &g, 5);
        cr_assert_eq(weak.lines_seen, 0, "lines searched for the pick were reported");
        cr_assert_eq(weak.best, again.best, "Skill Level 0 is not reproducible after engine_clear");
        bool among = false;
        for (int k = 0; k < SKILL_MULTIPV; k++)
            among = among || lines.firsts[k] == weak.best;
        char text[MOVE_TEXT_LEN];
        move_format(weak.best, text);
        cr_assert(among, "ply %d: level 0 played %s, not one of the 4 best lines at depth 1", ply, text);
        differs += weak.best != full.best;
        /* UCI_Elo at its lowest stands for level 0. */
        engine_set_skill(e, SKILL_MAX, true, SKILL_MIN_ELO);
        seen_t elo = search(e, &g, 5);
        cr_assert_eq(elo.best, weak.best);
        if (ply < OPENING_NB)
            cr_assert_eq(game_play_text(&g, OPENING[ply], NULL, 0), BC_OK);
    }
    cr_assert_gt(differs, 0, "level 0 played the full-strength move in all %d positions", OPENING_NB + 1);
    game_free(&g);
    engine_free(e);
}

Test(skill, level_20_searches_as_before)
{
    engine_t *e = engine_new();
    cr_assert_not_null(e);
    cr_assert(engine_set_hash(e, 4));
    position_t start;
    position_set_start(&start);
    game_t g;
    cr_assert(game_init(&g, &start, NULL, REP_FORBID));
    seen_t plain = search(e, &g, 6);
    engine_set_skill(e, 0, false, SKILL_MAX_ELO);
    (void)search(e, &g, 6);
    engine_set_skill(e, 20, false, SKILL_MAX_ELO);
    seen_t back = search(e, &g, 6);
    cr_assert_eq(back.best, plain.best);
    cr_assert_eq(back.nodes, plain.nodes, "level 20 searched %llu nodes, full strength %llu",
                 (unsigned long long)back.nodes, (unsigned long long)plain.nodes);
    game_free(&g);
    engine_free(e);
}
