/* Games: repetition under `forbid` and `draw`, results, the OBX meta fields and move text.
 * Every hand-made position below is explained by the rules next to it. */
#include <criterion/criterion.h>

#include <string.h>

#include "baghchal.h"
#include "reference.h"

static void start_game(game_t *g, const char *obx, rep_rule_t rule)
{
    position_t p;
    char msg[128] = "";
    cr_assert_eq(obx_parse(obx, &p, NULL, msg, sizeof msg), BC_OK, "%s: %s", obx, msg);
    cr_assert(game_init(g, &p, NULL, rule));
}

static move_t text_move(const char *text)
{
    move_t m;
    cr_assert_eq(move_parse_text(text, &m, NULL, 0), BC_OK, "%s", text);
    return m;
}

static void play(game_t *g, const char *text)
{
    char msg[128] = "";
    bc_error_t e = game_play_text(g, text, msg, sizeof msg);
    cr_assert_eq(e, BC_OK, "%s refused: %s (%s)", text, bc_error_name(e), msg);
}

static bool same_fields(const position_t *a, const position_t *b)
{
    return a->tigers == b->tigers && a->goats == b->goats && a->side == b->side && a->in_hand == b->in_hand &&
           a->captured == b->captured && a->key == b->key;
}

static bool contains(const move_t *list, int n, move_t m)
{
    for (int i = 0; i < n; i++)
        if (list[i] == m)
            return true;
    return false;
}

/* m is refused with code e and nothing about the game changes. */
static void assert_refused(game_t *g, move_t m, bc_error_t e)
{
    size_t count = g->count;
    position_t before = *game_position(g);
    obx_meta_t meta = game_meta(g);
    char msg[160] = "";
    bc_error_t got = game_play(g, m, msg, sizeof msg);
    cr_assert_eq(got, e, "expected %s, got %s (%s)", bc_error_name(e), bc_error_name(got), msg);
    cr_assert_neq(msg[0], '\0', "no message for %s", bc_error_name(e));
    cr_assert_eq(g->count, count);
    cr_assert(same_fields(game_position(g), &before));
    cr_assert_eq(game_meta(g).last_move, meta.last_move);
    cr_assert_eq(game_meta(g).ply, meta.ply);
}

static void assert_text_refused(game_t *g, const char *text, bc_error_t e)
{
    size_t count = g->count;
    position_t before = *game_position(g);
    char msg[160] = "";
    bc_error_t got = game_play_text(g, text, msg, sizeof msg);
    cr_assert_eq(got, e, "'%s': expected %s, got %s (%s)", text, bc_error_name(e), bc_error_name(got), msg);
    cr_assert_neq(msg[0], '\0', "'%s': no message", text);
    cr_assert_eq(g->count, count, "'%s' changed the game", text);
    cr_assert(same_fields(game_position(g), &before), "'%s' changed the position", text);
}

static void assert_result(const game_t *g, result_reason_t reason, int winner)
{
    game_result_t r = game_result(g);
    cr_assert_eq(r.reason, reason, "reason %d, expected %d", r.reason, reason);
    cr_assert_eq(r.winner, winner, "winner %d, expected %d", r.winner, winner);
    if (reason == RESULT_NONE)
        cr_assert_str_empty(result_describe(r));
    else
        cr_assert_str_not_empty(result_describe(r));
}

/* Movement phase, 17 goats and 3 captured. The goat C2 steps up to C1, the E1 tiger steps to
 * D1, the goat steps back: the tiger's D1E1 would recreate the start (board and goats to move). */
#define CYCLE_POS "TGXXT/GGGGG/GGGGG/GGGGG/TXXGT g @0 c3"

Test(game, forbid_removes_and_refuses_a_repeating_move)
{
    game_t g;
    start_game(&g, CYCLE_POS, REP_FORBID);
    play(&g, "C2C1");
    play(&g, "E1D1");
    play(&g, "C1C2");
    move_t back = text_move("D1E1");
    move_t pseudo[MAX_MOVES], legal[MAX_MOVES];
    int np = gen_moves(game_position(&g), pseudo);
    int nl = game_legal_moves(&g, legal);
    cr_assert(contains(pseudo, np, back));
    cr_assert_not(contains(legal, nl, back));
    cr_assert_eq(nl, np - 1, "only D1E1 recreates an earlier position");
    for (int i = 0; i < nl; i++)
        cr_assert(contains(pseudo, np, legal[i]));
    cr_assert(game_move_repeats(&g, back));
    cr_assert_not(game_move_repeats(&g, text_move("A5B5")));
    assert_refused(&g, back, MOVE_ERR_REPETITION);
    assert_text_refused(&g, "d1e1", MOVE_ERR_REPETITION);
    cr_assert_eq(g.count, 3);
    assert_result(&g, RESULT_NONE, -1);
    /* Another move is still fine. */
    play(&g, "A5B5");
    cr_assert_eq(g.count, 4);
    game_free(&g);
}

Test(game, draw_allows_the_repeating_move_and_draws_on_the_third_time)
{
    static const char *const cycle[] = {"C2C1", "E1D1", "C1C2", "D1E1"};
    game_t g;
    start_game(&g, CYCLE_POS, REP_DRAW);
    move_t legal[MAX_MOVES], pseudo[MAX_MOVES];
    for (int i = 0; i < 3; i++)
        play(&g, cycle[i]);
    cr_assert_not(game_move_repeats(&g, text_move("D1E1")));
    int nl = game_legal_moves(&g, legal);
    cr_assert_eq(nl, gen_moves(game_position(&g), pseudo));
    cr_assert(contains(legal, nl, text_move("D1E1")));
    play(&g, "D1E1");
    cr_assert(position_same(game_position(&g), &g.history[0]));
    cr_assert_eq(game_occurrences(&g), 2);
    assert_result(&g, RESULT_NONE, -1);
    for (int i = 0; i < 3; i++) {
        play(&g, cycle[i]);
        assert_result(&g, RESULT_NONE, -1);
        cr_assert_eq(game_occurrences(&g), 2);
    }
    play(&g, "D1E1");
    cr_assert_eq(game_occurrences(&g), 3);
    assert_result(&g, RESULT_REPETITION_DRAW, -1);
    cr_assert_eq(game_legal_moves(&g, legal), 0);
    cr_assert_gt(gen_moves(game_position(&g), pseudo), 0);
    assert_refused(&g, text_move("C2C1"), MOVE_ERR_GAME_OVER);
    game_free(&g);
}

/* Start position: goat B1, A1C1 captures it, goat B1 again, C1A1 captures it: the board
 * and side are those of the start, during placement, so it stands. */
Test(game, nothing_is_forbidden_during_placement)
{
    game_t g;
    position_t start;
    position_set_start(&start);
    cr_assert(game_init(&g, &start, NULL, REP_FORBID));
    play(&g, "B1");
    play(&g, "A1C1");
    play(&g, "B1");
    move_t back = text_move("C1A1"), legal[MAX_MOVES];
    cr_assert_not(game_move_repeats(&g, back));
    cr_assert(contains(legal, game_legal_moves(&g, legal), back));
    play(&g, "C1A1");
    cr_assert(position_same(game_position(&g), &start));
    cr_assert_eq(game_position(&g)->in_hand, 18);
    cr_assert_eq(game_position(&g)->captured, 2);
    cr_assert_eq(game_occurrences(&g), 2);
    assert_result(&g, RESULT_NONE, -1);
    game_free(&g);
}

/* The same capture cycle with 2 goats in hand: the last goat is placed on B1 and the tiger
 * move C1A1 that follows would recreate the start board with goats to move. All goats are
 * placed by then, so forbid applies. E5D5 keeps the tigers a legal move. */
Test(game, forbid_applies_from_the_first_move_after_the_last_placement)
{
    game_t g;
    start_game(&g, "TXXGT/GGGGG/GGGGG/GGGGG/TGGXT g @2 c0", REP_FORBID);
    play(&g, "B1");
    play(&g, "A1C1");
    play(&g, "B1");
    cr_assert_eq(game_position(&g)->in_hand, 0);
    move_t back = text_move("C1A1"), legal[MAX_MOVES];
    cr_assert(game_move_repeats(&g, back));
    int nl = game_legal_moves(&g, legal);
    cr_assert_eq(nl, 1);
    cr_assert_eq(legal[0], text_move("E5D5"));
    assert_refused(&g, back, MOVE_ERR_REPETITION);
    game_free(&g);
}

/* Movement phase, tigers A1 D5 E4 E5, 17 goats, 3 captured. E4, D5 and E5 are boxed in
 * (D4 C3 C4 C5 B5 D3 E3 E2 are goats); the A1 tiger's only move is A1B1 and from B1 its only
 * move is back (C1 D1 B2 B3 are goats). The goats shuffle A4A5, A5A4: B1A1 would then
 * recreate the start position, so the tigers have no legal move and lose. */
Test(game, tigers_lose_when_every_move_repeats)
{
    game_t g;
    move_t legal[MAX_MOVES], pseudo[MAX_MOVES];
    start_game(&g, "TXGGG/GGXXG/GGGGG/GGGGT/XGGTT g @0 c3", REP_FORBID);
    play(&g, "A4A5");
    cr_assert_eq(game_legal_moves(&g, legal), 1);
    cr_assert_eq(legal[0], text_move("A1B1"));
    play(&g, "A1B1");
    play(&g, "A5A4");
    cr_assert_eq(gen_moves(game_position(&g), pseudo), 1);
    cr_assert_eq(pseudo[0], text_move("B1A1"));
    cr_assert_eq(game_legal_moves(&g, legal), 0);
    assert_result(&g, RESULT_REPETITION_BLOCKED, GOATS);
    assert_refused(&g, text_move("B1A1"), MOVE_ERR_GAME_OVER);
    game_free(&g);

    /* Under draw the same game goes on. */
    start_game(&g, "TXGGG/GGXXG/GGGGG/GGGGT/XGGTT g @0 c3", REP_DRAW);
    play(&g, "A4A5");
    play(&g, "A1B1");
    play(&g, "A5A4");
    cr_assert_eq(game_legal_moves(&g, legal), 1);
    assert_result(&g, RESULT_NONE, -1);
    play(&g, "B1A1");
    game_free(&g);
}

/* Movement phase, tigers A2 B2 E1 E5, 19 goats, 1 captured, empty A1 and C1. The tiger
 * steps A2A1, the goat B1C1, the tiger back A1A2: now A1 and B1 are empty, A1 touches only
 * tigers and B1 only the C1 goat, whose C1B1 would recreate the start. The goats lose. */
Test(game, goats_lose_when_every_move_repeats)
{
    game_t g;
    move_t legal[MAX_MOVES], pseudo[MAX_MOVES];
    start_game(&g, "XGXGT/TTGGG/GGGGG/GGGGG/GGGGT t @0 c1", REP_FORBID);
    play(&g, "A2A1");
    play(&g, "B1C1");
    play(&g, "A1A2");
    cr_assert_eq(gen_moves(game_position(&g), pseudo), 1);
    cr_assert_eq(pseudo[0], text_move("C1B1"));
    cr_assert_eq(game_legal_moves(&g, legal), 0);
    assert_result(&g, RESULT_REPETITION_BLOCKED, TIGERS);
    assert_refused(&g, text_move("C1B1"), MOVE_ERR_GAME_OVER);
    game_free(&g);
}

/* The last capture: A1 jumps the B1 goat to the empty C1, the fifth capture. */
Test(game, five_captured_wins_for_the_tigers)
{
    game_t g;
    move_t legal[MAX_MOVES];
    start_game(&g, "TGXXT/GGGGG/GGGGG/GGGGG/TXXXT t @0 c4", REP_FORBID);
    assert_result(&g, RESULT_NONE, -1);
    play(&g, "mA1C1(B1)");
    cr_assert_eq(game_position(&g)->captured, 5);
    assert_result(&g, RESULT_FIVE_CAPTURED, TIGERS);
    cr_assert_eq(game_legal_moves(&g, legal), 0);
    assert_refused(&g, text_move("C2C1"), MOVE_ERR_GAME_OVER);
    game_free(&g);

    start_game(&g, "TXGTG/XXGXG/GGTXG/GGGGX/GGGTG g @0 c5", REP_DRAW);
    assert_result(&g, RESULT_FIVE_CAPTURED, TIGERS);
    cr_assert_eq(game_legal_moves(&g, legal), 0);
    assert_refused(&g, text_move("C1D1"), MOVE_ERR_GAME_OVER);
    game_free(&g);
}

/* Tigers on the four corners. Each corner tiger has three neighbours (A1: B1 A2 B2) and three
 * jump landings (A1: C1 A3 C3); all twelve neighbours and C1 A3 C3 E3 C5 are goats. */
Test(game, trapped_tigers_lose)
{
    game_t g;
    move_t legal[MAX_MOVES];
    ref_pos_t r;
    ref_move_t rl[REF_MAX_MOVES];
    start_game(&g, "TGGGT/GGXGG/GXGXG/GGXGG/TGGGT t @0 c3", REP_FORBID);
    ref_from_position(game_position(&g), &r);
    cr_assert_eq(ref_gen(&r, rl), 0);
    assert_result(&g, RESULT_TIGERS_TRAPPED, GOATS);
    cr_assert_eq(game_legal_moves(&g, legal), 0);
    assert_refused(&g, text_move("A1B1"), MOVE_ERR_GAME_OVER);
    game_free(&g);

    /* During placement: C1 is the only way out (A1C1 over B1, E1C1 over D1); a goat on C1
     * closes it. */
    start_game(&g, "TGXGT/GGXGG/GXGXG/GGXGG/TGGGT g @3 c1", REP_FORBID);
    play(&g, "C1");
    assert_result(&g, RESULT_TIGERS_TRAPPED, GOATS);
    assert_refused(&g, text_move("A1C1"), MOVE_ERR_GAME_OVER);
    game_free(&g);

    /* The tigers on the line B1 C2 D3 E4, boxed in by goats on their eight neighbours and
     * the six points beyond them (D1 B3 A2 E2 C4 D5). */
    start_game(&g, "GTGGX/GGTGG/XGGTG/GXGGT/GGXGG t @0 c3", REP_DRAW);
    assert_result(&g, RESULT_TIGERS_TRAPPED, GOATS);
    game_free(&g);
}

/* Movement phase, 20 goats: the only empty point A1 touches B1 A2 B2, all tigers. */
Test(game, stuck_goats_lose)
{
    game_t g;
    move_t legal[MAX_MOVES];
    start_game(&g, "XTGGG/TTGGG/GGGGG/GGGGG/GGGGT g @0 c0", REP_FORBID);
    assert_result(&g, RESULT_GOATS_STUCK, TIGERS);
    cr_assert_eq(game_legal_moves(&g, legal), 0);
    assert_refused(&g, text_move("C1B1"), MOVE_ERR_GAME_OVER);
    game_free(&g);

    /* Two empty points, A1 and B1; their neighbours A2 B2 C1 are tigers. */
    start_game(&g, "XXTGG/TTGGG/GGGGG/GGGGG/GGGGT g @0 c1", REP_DRAW);
    assert_result(&g, RESULT_GOATS_STUCK, TIGERS);
    game_free(&g);

    /* The same board with the tigers to move is a game going on (B1A1, A2A1, B2A1). */
    start_game(&g, "XTGGG/TTGGG/GGGGG/GGGGG/GGGGT t @0 c0", REP_FORBID);
    assert_result(&g, RESULT_NONE, -1);
    cr_assert_eq(game_legal_moves(&g, legal), 3);
    game_free(&g);
}

Test(game, illegal_moves_leave_the_game_unchanged)
{
    game_t g;
    start_game(&g, "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0", REP_FORBID);
    assert_refused(&g, text_move("D4"), MOVE_ERR_ILLEGAL);     /* tigers do not place */
    assert_refused(&g, text_move("A1C3"), MOVE_ERR_ILLEGAL);   /* B2 holds no goat */
    assert_refused(&g, text_move("C3C4"), MOVE_ERR_ILLEGAL);   /* not a tiger */
    assert_refused(&g, move_make(MOVE_STEP, 0, 2), MOVE_ERR_ILLEGAL); /* a jump line coded as a step */
    game_free(&g);
}

Test(game, meta_follows_the_moves)
{
    game_t g;
    position_t p;
    obx_meta_t meta;
    cr_assert_eq(obx_parse("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1", &p, &meta, NULL, 0), BC_OK);
    cr_assert_eq(meta.ply, 1);
    cr_assert(game_init(&g, &p, &meta, REP_FORBID));
    cr_assert_eq(game_meta(&g).last_move, text_move("C3"));
    cr_assert_eq(game_meta(&g).ply, 1);
    play(&g, "A1B2");
    cr_assert_eq(game_meta(&g).last_move, move_make(MOVE_STEP, 0, 6));
    cr_assert_eq(game_meta(&g).ply, 2);
    play(&g, "D4");
    cr_assert_eq(game_meta(&g).last_move, move_make(MOVE_PLACE, 18, 18));
    cr_assert_eq(game_meta(&g).ply, 3);
    game_free(&g);

    /* A later start: "#t7" is half-move 14. */
    cr_assert_eq(obx_parse("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT g @19 c0 mA1B2 #t7", &p, &meta, NULL, 0), BC_OK);
    cr_assert(game_init(&g, &p, &meta, REP_FORBID));
    cr_assert_eq(game_meta(&g).ply, 14);
    play(&g, "E3");
    cr_assert_eq(game_meta(&g).ply, 15);
    game_free(&g);

    /* An unknown move number stays unknown. */
    cr_assert_eq(obx_parse("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 - -", &p, &meta, NULL, 0), BC_OK);
    cr_assert(game_init(&g, &p, &meta, REP_FORBID));
    cr_assert_eq(game_meta(&g).last_move, MOVE_NONE);
    play(&g, "A1B1");
    cr_assert_eq(game_meta(&g).ply, -1);
    cr_assert_eq(game_meta(&g).last_move, move_make(MOVE_STEP, 0, 1));
    game_free(&g);

    /* No meta: the start of a game. */
    position_set_start(&p);
    cr_assert(game_init(&g, &p, NULL, REP_FORBID));
    cr_assert_eq(game_meta(&g).last_move, MOVE_NONE);
    cr_assert_eq(game_meta(&g).ply, 0);
    play(&g, "C3");
    play(&g, "A1B1");
    cr_assert_eq(game_meta(&g).ply, 2);
    cr_assert_eq(g.moves[0], text_move("C3"));
    game_free(&g);
}

Test(game, play_text_accepts_the_move_forms)
{
    game_t g;
    start_game(&g, "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0", REP_FORBID);
    play(&g, "a1b2");
    cr_assert_eq(g.count, 1);
    cr_assert_eq(g.moves[0], move_make(MOVE_STEP, 0, 6));
    cr_assert_eq(game_position(&g)->tigers & bb_square(6), bb_square(6));
    game_free(&g);

    /* A1 jumps the B2 goat to C3. */
    static const char *const forms[] = {"mA1C3(B2)", "a1c3", "A1C3", "Ma1c3(b2)", "mA1C3"};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        start_game(&g, "TXXXT/XGXXX/XXXXX/XXXXX/TXXXT t @19 c0", REP_FORBID);
        play(&g, forms[i]);
        cr_assert_eq(g.moves[0], move_make(MOVE_JUMP, 0, 12), "%s", forms[i]);
        cr_assert_eq(game_position(&g)->captured, 1, "%s", forms[i]);
        cr_assert_eq(game_position(&g)->goats, 0, "%s", forms[i]);
        game_free(&g);
    }
}

Test(game, play_text_rejects_bad_text_unchanged)
{
    static const struct {
        const char *text;
        bc_error_t e;
    } bad[] = {
        {"", MOVE_ERR_SYNTAX},           {"z9", MOVE_ERR_SYNTAX},
        {"a1c3x", MOVE_ERR_SYNTAX},      {"a1c3(b2", MOVE_ERR_SYNTAX},
        {"a1 c3", MOVE_ERR_SYNTAX},      {"mA1C3(B1)", MOVE_ERR_SUFFIX},
        {"a1b1(b1)", MOVE_ERR_SUFFIX},   {"a1e5", MOVE_ERR_NOT_A_LINE},
        {"a1a1", MOVE_ERR_NOT_A_LINE},   {"b1d2", MOVE_ERR_NOT_A_LINE},
        {"b1c1", MOVE_ERR_ILLEGAL},      {"d4", MOVE_ERR_ILLEGAL},
        {"e1c3", MOVE_ERR_ILLEGAL},      {"mB2", MOVE_ERR_ILLEGAL},
    };
    game_t g;
    start_game(&g, "TXXXT/XGXXX/XXXXX/XXXXX/TXXXT t @19 c0", REP_FORBID);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_text_refused(&g, bad[i].text, bad[i].e);
    /* A good move after all of them still plays from the untouched position. */
    play(&g, "a1c3");
    cr_assert_eq(g.count, 1);
    game_free(&g);
}

/* g and a game replayed from its start with the same moves agree on everything the
 * repetition rules read: positions, occurrence counts, legal moves and the result. */
static void assert_same_as_replayed(const game_t *g)
{
    game_t r;
    cr_assert(game_init(&r, &g->history[0], &g->start_meta, g->rule));
    for (size_t i = 0; i < g->count; i++) {
        char msg[128] = "";
        cr_assert_eq(game_play(&r, g->moves[i], msg, sizeof msg), BC_OK, "replay %zu: %s", i, msg);
    }
    for (size_t i = 0; i <= g->count; i++) {
        cr_assert(same_fields(&g->history[i], &r.history[i]));
        cr_assert_eq(game_count_position(g, &g->history[i]), game_count_position(&r, &r.history[i]), "ply %zu", i);
    }
    move_t a[MAX_MOVES], b[MAX_MOVES];
    int na = game_legal_moves(g, a), nb = game_legal_moves(&r, b);
    cr_assert_eq(na, nb);
    cr_assert_arr_eq(a, b, (size_t)na * sizeof *a);
    cr_assert_eq(game_result(g).reason, game_result(&r).reason);
    cr_assert_eq(g->seen_used, r.seen_used);
    game_free(&r);
}

Test(game, pop_takes_back_moves_as_if_never_played)
{
    static const char *const starts[] = {CYCLE_POS, "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0"};
    uint64_t rng = 0x2545F4914F6CDD1DULL;
    for (int s = 0; s < 2; s++)
        for (int rule = REP_FORBID; rule <= REP_DRAW; rule++) {
            game_t g;
            start_game(&g, starts[s], (rep_rule_t)rule);
            cr_assert_eq(game_pop(&g), MOVE_NONE, "nothing to take back");
            cr_assert_eq(g.count, 0);
            for (int step = 0; step < 3000; step++) {
                rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                move_t list[MAX_MOVES];
                int n = game_legal_moves(&g, list);
                /* Mostly forward, so games grow past the table's first sizes. */
                if (n == 0 || (g.count > 0 && rng % 4 == 0)) {
                    move_t last = g.moves[g.count - 1];
                    cr_assert_eq(game_pop(&g), last);
                } else {
                    char msg[128] = "";
                    cr_assert_eq(game_play(&g, list[(rng >> 8) % (uint64_t)n], msg, sizeof msg), BC_OK, "%s", msg);
                }
                if (step % 16 == 0)
                    assert_same_as_replayed(&g);
            }
            assert_same_as_replayed(&g);
            while (g.count)
                game_pop(&g);
            cr_assert_eq(g.seen_used, 1, "only the start is left");
            cr_assert_eq(game_occurrences(&g), 1);
            game_free(&g);
        }
}

/* game_is_legal_move says yes to exactly the moves game_legal_moves lists, for every move
 * code, along random games under both rules (through repetitions, blocked moves and ends). */
Test(game, is_legal_move_matches_the_legal_list)
{
    static const char *const starts[] = {CYCLE_POS, "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0",
                                         "GGGGX/GTGTG/XGXGX/GTGTG/XGGGG t @0 c4"};
    uint64_t rng = 0x9E3779B97F4A7C15ULL;
    int over = 0, refused_by_history = 0;
    for (size_t s = 0; s < sizeof starts / sizeof *starts; s++) {
        for (int rule = REP_FORBID; rule <= REP_DRAW; rule++) {
            game_t g;
            start_game(&g, starts[s], (rep_rule_t)rule);
            for (int ply = 0; ply < 120; ply++) {
                move_t list[MAX_MOVES], pseudo[MAX_MOVES];
                int n = game_legal_moves(&g, list), np = gen_moves(game_position(&g), pseudo);
                for (int code = 0; code < 1 << 12; code++)
                    cr_assert_eq(game_is_legal_move(&g, (move_t)code), contains(list, n, (move_t)code),
                                 "%s, ply %d: move code %d", starts[s], ply, code);
                for (int i = 0; i < np; i++)
                    refused_by_history += !contains(list, n, pseudo[i]);
                if (n == 0) {
                    over++;
                    break;
                }
                rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                char msg[128];
                cr_assert_eq(game_play(&g, list[rng % (uint64_t)n], msg, sizeof msg), BC_OK, "%s", msg);
            }
            game_free(&g);
        }
    }
    cr_assert_gt(over, 0);
    cr_assert_gt(refused_by_history, 0);
    /* A third occurrence under draw ends the game: no move is legal, though moves exist. */
    static const char *const cycle[] = {"C2C1", "E1D1", "C1C2", "D1E1"};
    game_t g;
    start_game(&g, CYCLE_POS, REP_DRAW);
    for (int i = 0; i < 8; i++)
        play(&g, cycle[i % 4]);
    assert_result(&g, RESULT_REPETITION_DRAW, -1);
    cr_assert(move_is_pseudo_legal(game_position(&g), text_move("C2C1")));
    for (int code = 0; code < 1 << 12; code++)
        cr_assert_not(game_is_legal_move(&g, (move_t)code), "move code %d after the draw", code);
    game_free(&g);
}
