/* The endgame bitbase built into the library (engine/bitbase.h): checked at load (a damaged
 * one refused with its reason, probing nothing), the positions it covers, every value against
 * the movement database ($BAGHCHAL_TB_DIR) and in each of the board's symmetries, and the
 * search without a database using it: a won position's known-win score and move, the mates
 * the search finds below it, and its draws under the draw rule. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "baghchal.h"
#include "tb_build.h"

TestSuite(bitbase, .timeout = 300);

static uint32_t entries_wanted(void)
{
    uint32_t n = 0;
    for (int c = 0; c <= BITBASE_MAX_CAPTURED; c++)
        n += (uint32_t)tb_slice_size(c);
    return n;
}

static position_t from_obx(const char *obx)
{
    position_t p;
    obx_meta_t meta = {MOVE_NONE, 0};
    char msg[256];
    cr_assert_eq(obx_parse(obx, &p, &meta, msg, sizeof msg), BC_OK, "%s: %s", obx, msg);
    return p;
}

Test(bitbase, the_built_in_one_loads_with_every_entry)
{
    bitbase_t b;
    char msg[160];
    cr_assert(bitbase_load(&b, BITBASE_DATA, BITBASE_SIZE, msg, sizeof msg), "refused: %s", msg);
    cr_assert_eq(b.entries, entries_wanted());
    cr_assert_eq(BITBASE_SIZE, BITBASE_HEADER + (entries_wanted() + 3) / 4 + 4);
    bitbase_free(&b);
}

/* Loads data and checks that it is refused with a message holding want, and probes nothing. */
static void check_refused(const uint8_t *data, size_t len, const char *want)
{
    bitbase_t b;
    char msg[160] = "";
    cr_assert_not(bitbase_load(&b, data, len, msg, sizeof msg), "a damaged bitbase (%s) was taken", want);
    cr_assert(strstr(msg, want), "refused with '%s', expected '%s'", msg, want);
    position_t p = from_obx("GGGGG/GGTGG/GGGTX/GGTXG/GTGGG t @0 c1");
    int wdl;
    cr_assert_not(bitbase_probe(&b, &p, &wdl), "a refused bitbase answered a probe");
    bitbase_free(&b);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

/* The copy's checksum made right again, so that only the field changed is wrong. */
static void reseal(uint8_t *d, size_t len) { put32(d + len - 4, eval_fnv1a(d, len - 4, EVAL_FNV_START)); }

Test(bitbase, a_damaged_one_is_refused_with_its_reason)
{
    size_t len = BITBASE_SIZE;
    uint8_t *d = malloc(len);
    cr_assert_not_null(d);

    memcpy(d, BITBASE_DATA, len);
    check_refused(d, len - 1, "wrong size");
    check_refused(d, 8, "not a bitbase");
    d[len / 2] ^= 0x10;
    check_refused(d, len, "checksum mismatch");

    memcpy(d, BITBASE_DATA, len);
    d[0] = 'X';
    check_refused(d, len, "not a bitbase");

    memcpy(d, BITBASE_DATA, len);
    d[4] = BITBASE_VERSION + 1;
    reseal(d, len);
    check_refused(d, len, "another version");

    memcpy(d, BITBASE_DATA, len);
    d[6] = BITBASE_MAX_CAPTURED + 1;
    reseal(d, len);
    check_refused(d, len, "another number of captures");

    memcpy(d, BITBASE_DATA, len);
    put32(d + 8, entries_wanted() - 1);
    reseal(d, len);
    check_refused(d, len, "wrong entry count");
    free(d);
}

Test(bitbase, covers_the_movement_phase_with_tigers_to_move_and_one_capture_at_most)
{
    bitbase_t b;
    char msg[160];
    cr_assert(bitbase_load(&b, BITBASE_DATA, BITBASE_SIZE, msg, sizeof msg), "refused: %s", msg);
    static const struct {
        const char *obx;
        bool covered;
    } cases[] = {
        {"GGGGG/GGTGG/GGGTX/GGTXG/GTGGG t @0 c1", true},
        {"GGGGG/GGTGG/GGGTG/GGTXG/GTGGG t @0 c0", true},
        {"GGGGG/GGTGG/GGGTX/GGTXG/GTGGG g @0 c1", false}, /* goats to move */
        {"GGGGG/GGTGX/GGGTX/GGTXG/GTGGG t @0 c2", false}, /* two captured */
        {"GGGGG/GGTGG/GGGTX/GGTXX/GTGGG t @2 c0", false}, /* goats in hand */
        {"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        position_t p = from_obx(cases[i].obx);
        int wdl = 9;
        cr_assert_eq(bitbase_probe(&b, &p, &wdl), cases[i].covered, "%s", cases[i].obx);
        if (cases[i].covered)
            cr_assert(wdl >= -1 && wdl <= 1);
    }
    bitbase_free(&b);
}

/* Every entry against the movement database it was made from, each in one of the board's
 * symmetries too (drawn from the entry's index), so that the probe's own canonical form is
 * checked as well as the table. */
Test(bitbase, every_value_is_the_movement_databases)
{
    const char *dir = getenv("BAGHCHAL_TB_DIR");
    if (!dir || !*dir)
        cr_skip_test("BAGHCHAL_TB_DIR is not set (tools/run-tests.sh sets it)");
    tb_t *tb;
    char msg[256];
    cr_assert_eq(tb_open_game(dir, &tb, msg, sizeof msg), TB_OK, "%s", msg);
    bitbase_t b;
    cr_assert(bitbase_load(&b, BITBASE_DATA, BITBASE_SIZE, msg, sizeof msg), "refused: %s", msg);
    uint64_t count[3] = {0, 0, 0};
    for (int c = 0; c <= BITBASE_MAX_CAPTURED; c++)
        for (uint64_t i = 0; i < tb_slice_size(c); i++) {
            position_t p;
            tb_value_t v;
            tb_entry(tb, c, TIGERS, i, &p, &v);
            cr_assert_eq(p.side, TIGERS);
            int wdl = 9;
            cr_assert(bitbase_probe(&b, &p, &wdl), "entry %d/%llu not covered", c, (unsigned long long)i);
            cr_assert_eq(wdl, v.wdl, "entry %d/%llu: the bitbase says %d, the database %d", c,
                         (unsigned long long)i, wdl, v.wdl);
            count[wdl + 1]++;
            int s = (int)(i % TB_SYM_NB);
            position_t q = p;
            q.tigers = tb_transform(b.ix, s, p.tigers);
            q.goats = tb_transform(b.ix, s, p.goats);
            cr_assert(bitbase_probe(&b, &q, &wdl));
            cr_assert_eq(wdl, v.wdl, "entry %d/%llu in symmetry %d: %d, the database %d", c, (unsigned long long)i,
                         s, wdl, v.wdl);
        }
    /* Both sides win somewhere, and most positions are decided: the table is not all one value. */
    cr_assert(count[0] > 100000 && count[1] > 100000 && count[2] > 1000, "loss %llu draw %llu win %llu",
              (unsigned long long)count[0], (unsigned long long)count[1], (unsigned long long)count[2]);
    bitbase_free(&b);
    tb_close(tb);
}

typedef struct {
    int score;
    move_t best;
    int nbest;
} result_t;

static void on_info(void *ctx, const search_info_t *info)
{
    (void)ctx;
    (void)info;
}

static void on_best(void *ctx, move_t best, move_t ponder, const search_info_t *final)
{
    (void)ponder;
    result_t *r = ctx;
    r->nbest++;
    r->best = best;
    r->score = final->score;
}

static result_t search_obx_rule(engine_t *e, const char *obx, int depth, rep_rule_t rule)
{
    game_t g;
    position_t p = from_obx(obx);
    obx_meta_t meta = {MOVE_NONE, 0};
    cr_assert(game_init(&g, &p, &meta, rule));
    cr_assert(engine_set_game(e, &g));
    engine_clear(e);
    search_limits_t l;
    search_limits_init(&l);
    l.depth = depth;
    result_t r = {0, MOVE_NONE, 0};
    search_report_t rep = {on_info, on_best, &r};
    engine_search_sync(e, &l, &rep);
    cr_assert_eq(r.nbest, 1);
    game_free(&g);
    return r;
}

static result_t search_obx(engine_t *e, const char *obx, int depth) { return search_obx_rule(e, obx, depth, REP_DRAW); }

/* The positions within plies moves of p that the bitbase says are won or lost. */
static long decided_within(const bitbase_t *b, const position_t *p, int plies)
{
    int wdl;
    long n = bitbase_probe(b, p, &wdl) && wdl != 0;
    if (plies == 0 || p->captured >= BC_CAPTURES_TO_WIN)
        return n;
    move_t moves[MAX_MOVES];
    int count = gen_moves(p, moves);
    for (int i = 0; i < count; i++) {
        position_t q = *p;
        position_make(&q, moves[i]);
        n += decided_within(b, &q, plies - 1);
    }
    return n;
}

static long bitbase_decided_within(const char *obx, int plies)
{
    bitbase_t b;
    char msg[160];
    cr_assert(bitbase_load(&b, BITBASE_DATA, BITBASE_SIZE, msg, sizeof msg), "refused: %s", msg);
    position_t p = from_obx(obx);
    long n = decided_within(&b, &p, plies);
    bitbase_free(&b);
    return n;
}

/* Goats to move with one winning move (C3D4, after which the tigers are lost by the bitbase,
 * far from a mate); every other move draws. */
Test(bitbase, the_search_without_database_keeps_a_win_it_only_knows_from_the_bitbase)
{
    engine_t *e = engine_new();
    cr_assert_not_null(e);
    cr_assert_null(engine_bitbase_error(e));
    const char *obx = "GGGGG/GGTGG/GGGTX/GGTXG/GTGGG g @0 c1";
    result_t r = search_obx(e, obx, 6);
    char name[8];
    move_format(r.best, name);
    cr_assert_str_eq(name, "C3D4");
    cr_assert(r.score >= SCORE_KNOWN_WIN - SCORE_KNOWN_MARGIN && r.score <= SCORE_KNOWN_WIN + SCORE_KNOWN_MARGIN,
              "score %d is not a known win", r.score);
    /* Without it the same search has only the evaluation's idea of the position. */
    engine_use_bitbase(e, false);
    r = search_obx(e, obx, 6);
    cr_assert(r.score < SCORE_KNOWN_WIN - SCORE_KNOWN_MARGIN, "score %d without the bitbase", r.score);
    engine_use_bitbase(e, true);
    /* A mate below bitbase positions is still found at its distance (the database: mate in 5). */
    r = search_obx(e, "GXTGG/TGGGG/GGGXG/GGGGT/TGGGG g @0 c1", 12);
    cr_assert_eq(score_mate_moves(r.score), 5, "score %d", r.score);
    engine_free(e);
}

/* Tigers to move with one goat captured, drawn (the bitbase says so): E3E2 is the one move
 * that keeps the draw. The capture B3B5 leads to a position with two captured, beyond the
 * bitbase, that the goats win far beyond the search's horizon, and the evaluation prefers
 * it to the cramped positions after E3E2. Under the draw rule the bitbase's draws below
 * E3E2 score within SCORE_KNOWN_DRAW_SPAN of 0, which keeps the draw. */
Test(bitbase, its_draws_keep_a_drawing_move_under_the_draw_rule)
{
    const char *obx = "GGGGG/GGGGX/GTGTT/GGGGT/GXGGG t @0 c1";
    bitbase_t b;
    char msg[160];
    cr_assert(bitbase_load(&b, BITBASE_DATA, BITBASE_SIZE, msg, sizeof msg), "refused: %s", msg);
    position_t p = from_obx(obx);
    int wdl = 2;
    cr_assert(bitbase_probe(&b, &p, &wdl));
    cr_assert_eq(wdl, 0, "%s is not a draw in the bitbase", obx);
    bitbase_free(&b);

    engine_t *e = engine_new();
    cr_assert_not_null(e);
    char name[8];
    for (int depth = 8; depth <= 16; depth += 4) {
        result_t r = search_obx(e, obx, depth);
        move_format(r.best, name);
        cr_assert_str_eq(name, "E3E2", "depth %d", depth);
        cr_assert(r.score >= -SCORE_KNOWN_DRAW_SPAN && r.score <= SCORE_KNOWN_DRAW_SPAN, "depth %d: score %d", depth,
                  r.score);
    }
    /* Without the bitbase, only the evaluation's idea of those positions (far below a draw). */
    engine_use_bitbase(e, false);
    result_t r = search_obx(e, obx, 12);
    cr_assert(r.score < -SCORE_KNOWN_DRAW_SPAN, "score %d without the bitbase", r.score);
    /* At depth 2 the search probes the bitbase two plies down, in drawn positions, and its
     * quiescence search goes on from there only by captures, beyond the bitbase (two goats
     * captured); no win or loss of the bitbase is within three plies, so nothing else of it
     * is reached, whatever the evaluation. Under the draw rule those draws keep E3E2 there
     * too: the goats' replies are not cut on the evaluation's value (reverse futility) where
     * every child is the bitbase's. */
    cr_assert_eq(bitbase_decided_within(obx, 3), 0);
    engine_use_bitbase(e, true);
    result_t on = search_obx_rule(e, obx, 2, REP_DRAW);
    move_format(on.best, name);
    cr_assert_str_eq(name, "E3E2", "depth 2");
    cr_assert(on.score >= -SCORE_KNOWN_DRAW_SPAN && on.score <= SCORE_KNOWN_DRAW_SPAN, "depth 2: score %d", on.score);
    /* Under forbid the bitbase's draws are not draws, and say nothing: the same search with
     * and without it. */
    on = search_obx_rule(e, obx, 2, REP_FORBID);
    engine_use_bitbase(e, false);
    result_t off = search_obx_rule(e, obx, 2, REP_FORBID);
    cr_assert_eq(on.score, off.score);
    cr_assert_eq(on.best, off.best);
    engine_free(e);
}
