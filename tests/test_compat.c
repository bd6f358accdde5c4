/* The Python `baghchal` package's notation (engine/compat.h): its FEN, PGN, move tokens and
 * 217 actions, checked against games the package itself recorded (tests/data/
 * compat_pkg_games.txt), games our engine played (tests/data/compat_engine_games.txt) and
 * random games of our own. */
#include <criterion/criterion.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baghchal.h"
#include "tree.h"

static position_t obx(const char *text)
{
    position_t p;
    char msg[128] = "";
    cr_assert_eq(obx_parse(text, &p, NULL, msg, sizeof msg), BC_OK, "%s: %s", text, msg);
    return p;
}

static bool same_position(const position_t *a, const position_t *b)
{
    return a->tigers == b->tigers && a->goats == b->goats && a->side == b->side && a->in_hand == b->in_hand &&
           a->captured == b->captured && a->key == b->key;
}

static move_t text_move(const char *text)
{
    move_t m;
    cr_assert_eq(move_parse_text(text, &m, NULL, 0), BC_OK, "%s", text);
    return m;
}

static void fen_of(const position_t *p, int ply, char *buf)
{
    char err[160] = "";
    compat_error_t e = compat_fen_format(p, ply, buf, COMPAT_FEN_LEN, err, sizeof err);
    cr_assert_eq(e, COMPAT_OK, "fen_format: %s (%s)", compat_error_name(e), err);
}

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* ---- FEN ------------------------------------------------------------------------- */

Test(compat, start_fen)
{
    position_t start, p;
    position_set_start(&start);
    char buf[COMPAT_FEN_LEN];
    fen_of(&start, 0, buf);
    cr_assert_str_eq(buf, "B3B/5/5/5/B3B G 0");
    fen_of(&start, -1, buf); /* the placement phase needs no ply */
    cr_assert_str_eq(buf, "B3B/5/5/5/B3B G 0");
    int ply = -5;
    cr_assert_eq(compat_fen_parse("B3B/5/5/5/B3B G 0", &p, &ply, NULL, 0), COMPAT_OK);
    cr_assert(same_position(&p, &start));
    cr_assert_eq(ply, 0);
}

/* Positions of the package's own games, and what they are in OBX. */
Test(compat, known_fens)
{
    static const struct {
        const char *fen, *obx;
        int ply;
    } cases[] = {
        {"B3B/5/2G2/5/B3B B 1", "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0", 1},
        {"4B/1B3/2G2/3G1/B3B B 2", "XXXXT/XTXXX/XXGXX/XXXGX/TXXXT t @18 c0", 3},
        /* 23 goat moves, 15 goats on the board: 5 captured, the game is over */
        {"GG1G1/GGGB1/GGB1B/1GGG1/BGGGG G 23", "GGXGX/GGGTX/GGTXT/XGGGX/TGGGG g @0 c5", 46},
        /* the 20th placement just made */
        {"GGGGB/GGGGG/GBGG1/G1GG1/GBGGB B 20", "GGGGT/GGGGG/GTGGX/GXGGX/GTGGT t @0 c2", 39},
        /* a placement-phase capture: 3 goat moves, 2 goats left on the board */
        {"4B/1B3/2G2/3G1/B3B G 3", "XXXXT/XTXXX/XXGXX/XXXGX/TXXXT g @17 c1", 6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        position_t p, want = obx(cases[i].obx);
        int ply = -5;
        char err[160] = "", buf[COMPAT_FEN_LEN];
        cr_assert_eq(compat_fen_parse(cases[i].fen, &p, &ply, err, sizeof err), COMPAT_OK, "%s: %s", cases[i].fen, err);
        cr_assert(same_position(&p, &want), "%s", cases[i].fen);
        cr_assert_eq(ply, cases[i].ply, "%s: ply %d", cases[i].fen, ply);
        fen_of(&p, ply, buf);
        cr_assert_str_eq(buf, cases[i].fen);
    }
    /* Spaces and tabs between the fields are read, one space written. */
    position_t p;
    cr_assert_eq(compat_fen_parse("  B3B/5/5/5/B3B \t G   0 \n", &p, NULL, NULL, 0), COMPAT_OK);
}

Test(compat, fen_errors_leave_the_position)
{
    static const struct {
        const char *fen;
        compat_error_t code;
    } cases[] = {
        {"", COMPAT_ERR_SYNTAX},
        {"B3B/5/5/5/B3B G", COMPAT_ERR_SYNTAX},
        {"B3B/5/5/5/B3B G 0 0", COMPAT_ERR_SYNTAX},
        {"B3B/5/5/5 G 0", COMPAT_ERR_SYNTAX},
        {"B3B/5/5/5/B3B/5 G 0", COMPAT_ERR_SYNTAX},
        {"B4B/5/5/5/B3B G 0", COMPAT_ERR_SYNTAX},
        {"B3B/4/5/5/B3B G 0", COMPAT_ERR_SYNTAX},
        {"B3T/5/5/5/B3B G 0", COMPAT_ERR_SYNTAX},
        {"B3B/5/5/5/B3B g 0", COMPAT_ERR_SYNTAX},
        {"B3B/5/5/5/B3B T 0", COMPAT_ERR_SYNTAX},
        {"B3B/5/5/5/B3B G -1", COMPAT_ERR_SYNTAX},
        {"B3B/5/5/5/B3B G 1000000000", COMPAT_ERR_SYNTAX},
        {"B3B/5/5/5/B3B G x", COMPAT_ERR_SYNTAX},
        {"B3B/5/5/5/B4 G 0", COMPAT_ERR_POSITION},
        {"BB2B/5/5/5/B3B G 0", COMPAT_ERR_POSITION},
        {"B3B/5/5/5/B3B B 0", COMPAT_ERR_POSITION},
        {"BGGGB/5/5/5/B3B G 2", COMPAT_ERR_POSITION},  /* 3 goats, 2 placed */
        {"B3B/5/5/5/B3B G 6", COMPAT_ERR_POSITION},    /* 6 captured */
        {"B3B/5/5/5/B3B B 5", COMPAT_ERR_POSITION},    /* tigers to move, 5 captured... */
        {"B3B/5/5/5/B3B B 2", COMPAT_ERR_POSITION},    /* 2 captured in 1 tiger move */
        {"GGGGB/GGGGG/GBGGG/GGGG1/GBGGB B 19", COMPAT_ERR_POSITION}, /* 20 goats, 19 placed */
    };
    position_t start, p;
    position_set_start(&start);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        p = start;
        int ply = 77;
        char err[160] = "";
        compat_error_t e = compat_fen_parse(cases[i].fen, &p, &ply, err, sizeof err);
        cr_assert_eq(e, cases[i].code, "'%s': %s, expected %s (%s)", cases[i].fen, compat_error_name(e),
                     compat_error_name(cases[i].code), err);
        cr_assert_neq(err[0], '\0', "'%s': no message", cases[i].fen);
        cr_assert_null(strchr(err, '\n'));
        cr_assert(same_position(&p, &start), "'%s' changed the position", cases[i].fen);
        cr_assert_eq(ply, 77);
    }
    /* Valid at the edges: five captured with the goats to move, and the counts that allow it. */
    cr_assert_eq(compat_fen_parse("B3B/5/5/5/B3B G 5", &p, NULL, NULL, 0), COMPAT_OK);
    cr_assert_eq(p.captured, 5);
    cr_assert_eq(p.in_hand, 15);
    cr_assert_eq(compat_fen_parse("B3B/1G3/5/5/B3B B 3", &p, NULL, NULL, 0), COMPAT_OK);
    cr_assert_eq(p.captured, 2);
}

/* In the movement phase the FEN's number is the game's, so it needs the game's ply. */
Test(compat, fen_needs_the_goat_move_count_in_the_movement_phase)
{
    position_t p;
    int ply;
    char err[160], buf[COMPAT_FEN_LEN];
    cr_assert_eq(compat_fen_parse("GG1G1/GGGB1/GGB1B/1GGG1/BGGGG G 23", &p, &ply, NULL, 0), COMPAT_OK);
    const int bad[] = {-1, 45, 30, 38};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        strcpy(buf, "untouched");
        cr_assert_eq(compat_fen_format(&p, bad[i], buf, sizeof buf, err, sizeof err), COMPAT_ERR_UNREPRESENTABLE,
                     "ply %d", bad[i]);
        cr_assert_neq(err[0], '\0');
        cr_assert_str_eq(buf, "untouched");
    }
    fen_of(&p, 40, buf);
    cr_assert_str_eq(buf, "GG1G1/GGGB1/GGB1B/1GGG1/BGGGG G 20");
    fen_of(&p, 1000000, buf);
    cr_assert_str_eq(buf, "GG1G1/GGGB1/GGB1B/1GGG1/BGGGG G 500000");
    cr_assert_eq(compat_fen_parse("GG1G1/GGGB1/GGB1B/1GGG1/BGGGG B 2147483647", &p, &ply, NULL, 0), COMPAT_ERR_SYNTAX);
    cr_assert_eq(compat_fen_parse("GG1G1/GGGB1/GGB1B/1GGG1/BGGGG G 100000000", &p, &ply, NULL, 0), COMPAT_OK);
    cr_assert_eq(ply, 200000000);
    fen_of(&p, ply, buf);
    cr_assert_str_eq(buf, "GG1G1/GGGB1/GGB1B/1GGG1/BGGGG G 100000000");
    position_t q;
    cr_assert_eq(compat_fen_parse("GGGGB/GGGGG/GBGG1/G1GG1/GBGGB B 20", &q, NULL, NULL, 0), COMPAT_OK);
    fen_of(&q, INT_MAX, buf);
    cr_assert_str_eq(buf, "GGGGB/GGGGG/GBGG1/G1GG1/GBGGB B 1073741824");
    cr_assert_eq(compat_fen_format(&p, 46, buf, COMPAT_FEN_LEN - 1, err, sizeof err), COMPAT_ERR_BUFFER);

    /* A game keeps the count: started from the FEN, two plies later it says 24. */
    game_t g;
    cr_assert_eq(compat_fen_parse("GGGGB/GGGGG/GBGG1/G1GG1/GBGGB B 20", &p, &ply, NULL, 0), COMPAT_OK);
    cr_assert(game_init(&g, &p, &(obx_meta_t){MOVE_NONE, ply}, REP_FORBID));
    cr_assert_eq(game_play(&g, text_move("E5E4"), NULL, 0), BC_OK);
    cr_assert_eq(game_play(&g, text_move("D3E3"), NULL, 0), BC_OK);
    cr_assert_eq(compat_game_fen(&g, buf, sizeof buf, err, sizeof err), COMPAT_OK, "%s", err);
    cr_assert_str_eq(buf, "GGGGB/GGGGG/GBG1G/G1GGB/GBGG1 B 21");
    game_free(&g);
}

/* ---- move tokens ------------------------------------------------------------------ */

Test(compat, move_tokens)
{
    static const struct {
        const char *ours;
        int side;
        const char *theirs;
    } cases[] = {
        {"C3", GOATS, "G33"},    {"B1", GOATS, "G12"},      {"E1", GOATS, "G15"},     {"A5", GOATS, "G51"},
        {"A1B2", TIGERS, "B1122"}, {"D4C4", GOATS, "G4443"}, {"A1C3", TIGERS, "Bx1133"}, {"E5E3", TIGERS, "Bx5535"},
        {"B1D1", TIGERS, "Bx1214"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[COMPAT_MOVE_TEXT_LEN];
        move_t m = text_move(cases[i].ours), back;
        cr_assert_eq(compat_move_format(m, cases[i].side, buf), strlen(cases[i].theirs));
        cr_assert_str_eq(buf, cases[i].theirs);
        int side = -1;
        cr_assert_eq(compat_move_parse_text(cases[i].theirs, &back, &side, NULL, 0), COMPAT_OK, "%s", cases[i].theirs);
        cr_assert_eq(back, m, "%s", cases[i].theirs);
        cr_assert_eq(side, cases[i].side);
    }
    char buf[COMPAT_MOVE_TEXT_LEN];
    cr_assert_eq(compat_move_format(MOVE_NONE, GOATS, buf), 0);
    cr_assert_str_eq(buf, "");
    cr_assert_eq(compat_move_format(text_move("A1C3"), GOATS, buf), 0);
    cr_assert_eq(compat_move_format(text_move("C3"), TIGERS, buf), 0);
}

Test(compat, move_token_errors)
{
    static const struct {
        const char *text;
        compat_error_t code;
    } cases[] = {
        {"", COMPAT_ERR_SYNTAX},      {"G", COMPAT_ERR_SYNTAX},       {"G3", COMPAT_ERR_SYNTAX},
        {"G334", COMPAT_ERR_SYNTAX},  {"G33444", COMPAT_ERR_SYNTAX},  {"G36", COMPAT_ERR_SYNTAX},
        {"G03", COMPAT_ERR_SYNTAX},   {"g33", COMPAT_ERR_SYNTAX},     {"T1122", COMPAT_ERR_SYNTAX},
        {"C3", COMPAT_ERR_SYNTAX},    {"Bx11", COMPAT_ERR_SYNTAX},    {"Bx113", COMPAT_ERR_SYNTAX},
        {"G33 ", COMPAT_ERR_SYNTAX},  {"Gx1133", COMPAT_ERR_ILLEGAL}, {"B33", COMPAT_ERR_ILLEGAL},
        {"B1133", COMPAT_ERR_ILLEGAL}, {"Bx1122", COMPAT_ERR_ILLEGAL}, {"G1133", COMPAT_ERR_ILLEGAL},
        {"G3345", COMPAT_ERR_ILLEGAL}, {"Bx1144", COMPAT_ERR_ILLEGAL}, {"B1223", COMPAT_ERR_ILLEGAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        move_t m = 12345;
        int side = 9;
        char err[160] = "";
        compat_error_t e = compat_move_parse_text(cases[i].text, &m, &side, err, sizeof err);
        cr_assert_eq(e, cases[i].code, "'%s': %s (%s)", cases[i].text, compat_error_name(e), err);
        cr_assert_neq(err[0], '\0');
        cr_assert_eq(m, 12345);
        cr_assert_eq(side, 9);
    }
    /* In a position: the side to move, the phase, the board. */
    position_t start, mid = obx("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0");
    position_set_start(&start);
    position_t over = obx("GGXGX/GGGTX/GGTXT/XGGGX/TGGGG g @0 c5");
    position_t moving = obx("GGGGT/GGGGG/GTGGX/GXGGX/GTGGT g @0 c2");
    const struct {
        const position_t *pos;
        const char *text;
        compat_error_t code;
    } in_pos[] = {
        {&start, "B1122", COMPAT_ERR_ILLEGAL},  {&mid, "G22", COMPAT_ERR_ILLEGAL},
        {&start, "G11", COMPAT_ERR_ILLEGAL},    {&start, "G1112", COMPAT_ERR_ILLEGAL},
        {&mid, "B3322", COMPAT_ERR_ILLEGAL},    {&mid, "Bx1133", COMPAT_ERR_ILLEGAL},
        {&moving, "G33", COMPAT_ERR_ILLEGAL},   {&moving, "G1112", COMPAT_ERR_ILLEGAL},
        {&over, "G1112", COMPAT_ERR_GAME_OVER},
    };
    for (size_t i = 0; i < sizeof in_pos / sizeof *in_pos; i++) {
        move_t m = 12345;
        char err[160] = "";
        compat_error_t e = compat_move_parse(in_pos[i].pos, in_pos[i].text, &m, err, sizeof err);
        cr_assert_eq(e, in_pos[i].code, "'%s': %s (%s)", in_pos[i].text, compat_error_name(e), err);
        cr_assert_neq(err[0], '\0');
        cr_assert_eq(m, 12345);
    }
    move_t m;
    cr_assert_eq(compat_move_parse(&moving, "G4342", &m, NULL, 0), COMPAT_OK);
    cr_assert_eq(m, text_move("C4B4"));
    cr_assert_eq(compat_move_parse(&mid, "B1122", &m, NULL, 0), COMPAT_OK);
}

/* ---- the 217 actions ------------------------------------------------------------- */

Test(compat, action_table)
{
    /* Entries of the package's lookup_table.action_space, by its own text. */
    static const struct {
        int action;
        const char *ours;
    } known[] = {
        {0, "A1"},     {12, "C3"},    {24, "E5"},    {25, "A1B1"},  {26, "A1A2"},  {27, "A1B2"},  {28, "A1C1"},
        {29, "A1A3"},  {30, "A1C3"},  {31, "B1C1"},  {35, "B1D1"},  {62, "B2B1"},  {72, "B2D2"},  {113, "C3B3"},
        {114, "C3D4"}, {127, "C3A1"}, {128, "C3E3"}, {146, "A4B4"}, {161, "B4B2"}, {215, "E5C3"}, {216, "E5C5"},
    };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        move_t m = text_move(known[i].ours);
        cr_assert_eq(compat_move_to_action(m), known[i].action, "%s", known[i].ours);
        cr_assert_eq(compat_action_to_move(known[i].action), m, "%d", known[i].action);
    }
    /* Every action is one move, every move along a line one action: 25 placements, then the
     * 112 steps and 80 jumps, grouped by their starting point in order. */
    bool seen[COMPAT_ACTION_NB] = {false};
    int steps = 0, jumps = 0, last_from = -1;
    for (int a = 0; a < COMPAT_ACTION_NB; a++) {
        move_t m = compat_action_to_move(a);
        cr_assert_neq(m, MOVE_NONE);
        cr_assert_eq(compat_move_to_action(m), a, "action %d", a);
        if (a < COMPAT_PLACE_ACTION_NB) {
            cr_assert_eq(m, move_make(MOVE_PLACE, a, a));
            continue;
        }
        cr_assert_geq(move_from(m), last_from, "action %d out of order", a);
        last_from = move_from(m);
        if (move_kind(m) == MOVE_STEP) {
            cr_assert(BC_STEPS[move_from(m)] & bb_square(move_to(m)));
            steps++;
        } else {
            cr_assert_eq(move_kind(m), MOVE_JUMP);
            jumps++;
        }
    }
    cr_assert_eq(steps, 112);
    cr_assert_eq(jumps, 80);
    for (int from = 0; from < SQUARE_NB; from++) {
        for (bb_t b = BC_STEPS[from]; b; b &= b - 1) {
            int a = compat_move_to_action(move_make(MOVE_STEP, from, bb_first(b)));
            cr_assert_geq(a, COMPAT_PLACE_ACTION_NB);
            cr_assert_not(seen[a]);
            seen[a] = true;
        }
        for (int k = 0; k < BC_JUMP_COUNT[from]; k++) {
            int a = compat_move_to_action(move_make(MOVE_JUMP, from, BC_JUMPS[from][k].to));
            cr_assert_geq(a, COMPAT_PLACE_ACTION_NB);
            cr_assert_not(seen[a]);
            seen[a] = true;
        }
    }
    cr_assert_eq(compat_action_to_move(-1), MOVE_NONE);
    cr_assert_eq(compat_action_to_move(COMPAT_ACTION_NB), MOVE_NONE);
    cr_assert_eq(compat_move_to_action(MOVE_NONE), -1);
    cr_assert_eq(compat_move_to_action(move_make(MOVE_STEP, 0, 12)), -1);  /* not neighbours */
    cr_assert_eq(compat_move_to_action(move_make(MOVE_JUMP, 0, 1)), -1);   /* a step */
    cr_assert_eq(compat_move_to_action(move_make(MOVE_PLACE, 0, 1)), -1);  /* malformed */
    cr_assert_eq(compat_move_to_action(move_make(MOVE_JUMP, 30, 12)), -1); /* off the board */
}

/* The mask is the legal moves, both ways, over the positions of many random games; every
 * action is legal somewhere among them. */
static void check_mask(const uint8_t *mask, int count, const move_t *list, int n)
{
    cr_assert_eq(count, n);
    int ones = 0;
    for (int a = 0; a < COMPAT_ACTION_NB; a++) {
        if (!mask[a])
            continue;
        ones++;
        move_t m = compat_action_to_move(a);
        bool found = false;
        for (int i = 0; i < n; i++)
            found |= list[i] == m;
        cr_assert(found, "action %d is not a legal move", a);
    }
    cr_assert_eq(ones, n);
    for (int i = 0; i < n; i++)
        cr_assert_eq(mask[compat_move_to_action(list[i])], 1);
}

Test(compat, masks_are_the_legal_moves)
{
    uint64_t rnd = 0x9e3779b97f4a7c15ull;
    long seen[COMPAT_ACTION_NB] = {0}, positions = 0;
    for (int game = 0; game < 400; game++) {
        game_t g;
        position_t start;
        position_set_start(&start);
        cr_assert(game_init(&g, &start, NULL, game % 2 ? REP_DRAW : REP_FORBID));
        for (int ply = 0; ply < 400; ply++) {
            move_t list[MAX_MOVES], plain[MAX_MOVES];
            uint8_t mask[COMPAT_ACTION_NB];
            int n = game_legal_moves(&g, list);
            check_mask(mask, compat_game_action_mask(&g, mask), list, n);
            int np = gen_moves(game_position(&g), plain);
            check_mask(mask, compat_action_mask(game_position(&g), mask), plain, np);
            positions++;
            for (int a = 0; a < COMPAT_ACTION_NB; a++)
                seen[a] += mask[a];
            if (n == 0)
                break;
            cr_assert_eq(game_play(&g, list[next_random(&rnd) % (uint64_t)n], NULL, 0), BC_OK);
        }
        game_free(&g);
    }
    for (int a = 0; a < COMPAT_ACTION_NB; a++)
        cr_assert_gt(seen[a], 0, "action %d never legal in %ld positions", a, positions);
}

/* ---- PGN and games ------------------------------------------------------------------ */

static void pgn_of(const game_t *g, char *buf, size_t len)
{
    char err[200] = "";
    compat_error_t e = compat_pgn_format(g, buf, len, NULL, err, sizeof err);
    cr_assert_eq(e, COMPAT_OK, "pgn_format: %s (%s)", compat_error_name(e), err);
}

static void read_pgn(const char *text, rep_rule_t rule, game_t *g)
{
    char err[200] = "";
    compat_error_t e = compat_pgn_parse(text, rule, g, err, sizeof err);
    cr_assert_eq(e, COMPAT_OK, "pgn_parse: %s (%s) in %.60s", compat_error_name(e), err, text);
}

/* The example of the package's own documentation. */
Test(compat, documented_pgn)
{
    static const char *const fens[] = {"B3B/5/5/5/B3B G 0", "B3B/5/2G2/5/B3B B 1", "4B/1B3/2G2/5/B3B G 1",
                                       "4B/1B3/2G2/3G1/B3B B 2"};
    game_t g;
    read_pgn("1.G33 B1122 2.G44", REP_FORBID, &g);
    cr_assert_eq(g.count, 3);
    cr_assert_eq(g.moves[0], text_move("C3"));
    cr_assert_eq(g.moves[1], text_move("A1B2"));
    cr_assert_eq(g.moves[2], text_move("D4"));
    for (size_t i = 0; i <= g.count; i++) {
        char buf[COMPAT_FEN_LEN];
        fen_of(&g.history[i], (int)i, buf);
        cr_assert_str_eq(buf, fens[i]);
    }
    char pgn[64];
    pgn_of(&g, pgn, sizeof pgn);
    cr_assert_str_eq(pgn, "1. G33 B1122 2. G44");
    game_free(&g);
    /* Board.pgn itself, with its leading space. */
    read_pgn(" 1. G33 B1122 2. G44", REP_FORBID, &g);
    cr_assert_eq(g.count, 3);
    game_free(&g);
    read_pgn("", REP_FORBID, &g);
    cr_assert_eq(g.count, 0);
    pgn_of(&g, pgn, sizeof pgn);
    cr_assert_str_eq(pgn, "");
    game_free(&g);
}

/* A whole data file in memory. */
static char *slurp(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", BAGHCHAL_TEST_DATA, name);
    return tree_read_file(path, NULL);
}

/* The next line of *s without its newline (the buffer is cut in place); NULL at the end. */
static char *next_line(char **s)
{
    if (!**s)
        return NULL;
    char *line = *s, *nl = strchr(line, '\n');
    if (nl) {
        *nl = '\0';
        *s = nl + 1;
    } else {
        *s += strlen(line);
    }
    return line;
}

/* The ply at which g, replayed under forbid, has its first move refused (0 when none is),
 * and why. */
static size_t first_forbidden_ply(const game_t *g, bc_error_t *why)
{
    game_t f;
    cr_assert(game_init(&f, &g->history[0], NULL, REP_FORBID));
    size_t ply = 0;
    for (size_t i = 0; i < g->count && !ply; i++)
        if ((*why = game_play(&f, g->moves[i], NULL, 0)) != BC_OK)
            ply = i + 1;
    game_free(&f);
    return ply;
}

static result_reason_t reason_named(const char *name)
{
    return !strcmp(name, "captured")         ? RESULT_FIVE_CAPTURED
           : !strcmp(name, "draw")           ? RESULT_REPETITION_DRAW
           : !strcmp(name, "tigers-trapped") ? RESULT_TIGERS_TRAPPED
           : !strcmp(name, "goats-stuck")    ? RESULT_GOATS_STUCK
                                             : RESULT_NONE;
}

/* Games the package played: every FEN, every mask, the PGN again and the result. */
Test(compat, package_games)
{
    char *data = slurp("compat_pkg_games.txt"), *s = data, *line;
    int games = 0, refused_by_forbid = 0, reasons[8] = {0};
    while ((line = next_line(&s))) {
        if (strncmp(line, "game ", 5))
            continue;
        result_reason_t reason = reason_named(line + 5);
        cr_assert_neq(reason, RESULT_NONE, "%s", line);
        reasons[reason]++;
        char *pgn = next_line(&s);
        cr_assert(pgn && !strncmp(pgn, "pgn ", 4));
        pgn += 4;
        game_t g;
        read_pgn(pgn, REP_DRAW, &g);
        size_t i = 0;
        while ((line = next_line(&s)) && strcmp(line, "end")) {
            cr_assert(!strncmp(line, "pos ", 4), "%s", line);
            char *colon = strstr(line, " : ");
            cr_assert_not_null(colon);
            *colon = '\0';
            cr_assert_leq(i, g.count, "more positions than moves in %.40s", pgn);
            char fen[COMPAT_FEN_LEN];
            fen_of(&g.history[i], (int)i, fen);
            cr_assert_str_eq(fen, line + 4, "game %d ply %zu", games + 1, i);
            position_t p;
            int ply;
            cr_assert_eq(compat_fen_parse(line + 4, &p, &ply, NULL, 0), COMPAT_OK);
            cr_assert(same_position(&p, &g.history[i]));
            cr_assert_eq(ply, (int)i);
            /* The package's mask: the moves of the position until its game is over, then none. */
            uint8_t want[COMPAT_ACTION_NB] = {0}, mask[COMPAT_ACTION_NB];
            int n = 0;
            for (char *t = colon + 3; *t;) {
                char *end;
                long a = strtol(t, &end, 10);
                if (end == t)
                    break;
                cr_assert(a >= 0 && a < COMPAT_ACTION_NB);
                want[a] = 1;
                n++;
                t = end;
            }
            game_t upto;
            cr_assert(game_copy(&upto, &g));
            upto.count = i;
            game_result_t r;
            cr_assert_eq(compat_game_result(&upto, &r, NULL, 0), COMPAT_OK);
            game_free(&upto);
            if (r.reason != RESULT_NONE) {
                cr_assert_eq(n, 0);
                cr_assert_eq(i, g.count, "the package's game is over before its last move");
            } else {
                cr_assert_eq(compat_action_mask(&g.history[i], mask), n, "game %d ply %zu", games + 1, i);
                cr_assert_arr_eq(mask, want, sizeof mask, "game %d ply %zu", games + 1, i);
            }
            i++;
        }
        cr_assert_eq(i, g.count + 1);
        game_result_t r;
        cr_assert_eq(compat_game_result(&g, &r, NULL, 0), COMPAT_OK);
        cr_assert_eq(r.reason, reason, "game %d: %d", games + 1, r.reason);
        size_t needed = 0, len = strlen(pgn);
        char *again = malloc(len + 1);
        cr_assert_not_null(again);
        cr_assert_eq(compat_pgn_format(&g, again, len + 1, &needed, NULL, 0), COMPAT_OK);
        cr_assert_str_eq(again, pgn);
        cr_assert_eq(needed, len);
        free(again);

        /* Under forbid the first repetition is refused, named by its ply. */
        bc_error_t why = BC_OK;
        size_t bad = first_forbidden_ply(&g, &why);
        game_t f;
        char err[200] = "", where[32];
        compat_error_t e = compat_pgn_parse(pgn, REP_FORBID, &f, err, sizeof err);
        if (bad) {
            refused_by_forbid++;
            /* the move recreates a position, or every move of the side to move would */
            cr_assert_eq(e, why == MOVE_ERR_REPETITION ? COMPAT_ERR_ILLEGAL : COMPAT_ERR_GAME_OVER, "%s", err);
            cr_assert(why == MOVE_ERR_REPETITION || why == MOVE_ERR_GAME_OVER);
            cr_assert(strstr(err, "Repetition forbid"), "%s", err);
            snprintf(where, sizeof where, "ply %zu (", bad);
            cr_assert_eq(strncmp(err, where, strlen(where)), 0, "%s", err);
        } else {
            cr_assert_eq(e, COMPAT_OK, "%s", err);
            game_free(&f);
        }
        if (reason == RESULT_REPETITION_DRAW)
            cr_assert(bad, "a package draw repeats a board with the same side to move");
        game_free(&g);
        games++;
    }
    free(data);
    cr_assert_eq(games, 12);
    cr_assert_gt(refused_by_forbid, 0);
    cr_assert_gt(reasons[RESULT_FIVE_CAPTURED], 0);
    cr_assert_gt(reasons[RESULT_REPETITION_DRAW], 0);
    cr_assert_gt(reasons[RESULT_TIGERS_TRAPPED], 0);
    cr_assert_gt(reasons[RESULT_GOATS_STUCK], 0);
}

/* Games our engine played: written as the package writes them, read back to the same game. */
Test(compat, engine_games_round_trip)
{
    char *data = slurp("compat_engine_games.txt"), *s = data, *line;
    int games = 0;
    while ((line = next_line(&s))) {
        if (line[0] == '#' || line[0] == ' ' || !line[0])
            continue;
        char *field[5];
        for (int k = 0; k < 5; k++) {
            field[k] = line;
            char *bar = strstr(line, " | ");
            if (k < 4) {
                cr_assert_not_null(bar, "%s", field[0]);
                *bar = '\0';
                line = bar + 3;
            }
        }
        rep_rule_t rule = !strcmp(field[0], "draw") ? REP_DRAW : REP_FORBID;
        position_t start;
        position_set_start(&start);
        game_t g;
        cr_assert(game_init(&g, &start, NULL, rule));
        for (char *t = strtok(field[4], " "); t; t = strtok(NULL, " "))
            cr_assert_eq(game_play_text(&g, t, NULL, 0), BC_OK, "%s", t);
        char final[OBX_MAX_LEN];
        obx_meta_t meta = game_meta(&g);
        obx_format(game_position(&g), &meta, OBX_V2, final, sizeof final);
        cr_assert_str_eq(final, field[3]);

        char *pkg = next_line(&s), *fen = next_line(&s);
        cr_assert(pkg && !strncmp(pkg, "  pkg ", 6) && fen && !strncmp(fen, "  fen ", 6));
        pkg += 6;
        fen += 6;
        size_t needed = 0;
        cr_assert_eq(compat_pgn_format(&g, NULL, 0, &needed, NULL, 0), COMPAT_ERR_BUFFER);
        cr_assert_eq(needed, strlen(pkg));
        char *pgn = malloc(needed + 1);
        cr_assert_not_null(pgn);
        pgn_of(&g, pgn, needed + 1);
        cr_assert_str_eq(pgn, pkg);
        char buf[COMPAT_FEN_LEN];
        cr_assert_eq(compat_game_fen(&g, buf, sizeof buf, NULL, 0), COMPAT_OK);
        cr_assert_str_eq(buf, fen);

        game_t back;
        read_pgn(pgn, rule, &back);
        cr_assert_eq(back.count, g.count);
        for (size_t i = 0; i < g.count; i++)
            cr_assert_eq(back.moves[i], g.moves[i], "game %d ply %zu", games + 1, i + 1);
        for (size_t i = 0; i <= g.count; i++) {
            cr_assert(same_position(&back.history[i], &g.history[i]));
            position_t p;
            int ply;
            fen_of(&g.history[i], (int)i, buf);
            cr_assert_eq(compat_fen_parse(buf, &p, &ply, NULL, 0), COMPAT_OK);
            cr_assert(same_position(&p, &g.history[i]), "%s", buf);
            cr_assert_eq(ply, (int)i);
        }
        game_result_t ours = game_result(&g), theirs;
        cr_assert_eq(compat_game_result(&g, &theirs, NULL, 0), COMPAT_OK);
        if (ours.reason == RESULT_FIVE_CAPTURED)
            cr_assert_eq(theirs.reason, RESULT_FIVE_CAPTURED);
        free(pgn);
        game_free(&back);
        game_free(&g);
        games++;
    }
    free(data);
    cr_assert_eq(games, 14);
}

/* A PGN that is refused leaves the caller's game as it was, and the message names the ply. */
Test(compat, pgn_errors)
{
    static const struct {
        const char *text;
        compat_error_t code;
        const char *starts;
    } cases[] = {
        {"1. G33 2. G44", COMPAT_ERR_SYNTAX, "ply 2:"},
        {"2. G33", COMPAT_ERR_SYNTAX, "ply 1:"},
        {"1. G33 B1122 3. G44", COMPAT_ERR_SYNTAX, "ply 3:"},
        {"1.", COMPAT_ERR_SYNTAX, "ply 1:"},
        {"1. B1122", COMPAT_ERR_SYNTAX, "ply 1:"},
        {"G33", COMPAT_ERR_SYNTAX, "ply 1:"},
        {"1. G33 G1122", COMPAT_ERR_SYNTAX, "ply 2:"},
        {"1. G33 B1122 2. G44 x", COMPAT_ERR_SYNTAX, "ply 4:"},
        {"1. G11", COMPAT_ERR_ILLEGAL, "ply 1 (1. G11)"},
        {"1. G3344", COMPAT_ERR_ILLEGAL, "ply 1 (1. G3344)"},
        {"1. G33 B3322", COMPAT_ERR_ILLEGAL, "ply 2 (1... B3322)"},
        {"1. G33 Bx1133", COMPAT_ERR_ILLEGAL, "ply 2 (1... Bx1133)"},
        {"1. G33 B1133", COMPAT_ERR_ILLEGAL, "ply 2 (1... B1133)"},
        {"1. G33 B1122 2. G4", COMPAT_ERR_SYNTAX, "ply 3 (2. G4)"},
        {"1. G33 B1122# 1-0", COMPAT_ERR_SYNTAX, "the result"},
        {"1. G33 B1122 #", COMPAT_ERR_SYNTAX, "'#'"},
        {"1. G33 B1122# 2-0", COMPAT_ERR_SYNTAX, "'#'"},
        {"1. G33 B1122 # 1-0 1-0", COMPAT_ERR_SYNTAX, "text after"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        game_t g;
        memset(&g, 0xA5, sizeof g);
        game_t copy = g;
        char err[200] = "";
        compat_error_t e = compat_pgn_parse(cases[i].text, REP_FORBID, &g, err, sizeof err);
        cr_assert_eq(e, cases[i].code, "'%s': %s (%s)", cases[i].text, compat_error_name(e), err);
        cr_assert_eq(strncmp(err, cases[i].starts, strlen(cases[i].starts)), 0, "'%s': %s", cases[i].text, err);
        cr_assert_eq(memcmp(&g, &copy, sizeof g), 0, "'%s' changed the game", cases[i].text);
    }

    /* A game the package ended: no move after it, and only its own result. */
    char *data = slurp("compat_pkg_games.txt"), *s = data, *line, *pgn = NULL;
    while ((line = next_line(&s)))
        if (!strcmp(line, "game captured")) {
            pgn = next_line(&s) + 4;
            break;
        }
    cr_assert_not_null(pgn);
    char *hash = strstr(pgn, "# 0-1");
    cr_assert(hash && hash[5] == '\0');
    char text[4096];
    game_t g;
    char err[200] = "";
    snprintf(text, sizeof text, "%.*s# 1-0", (int)(hash - pgn), pgn);
    cr_assert_eq(compat_pgn_parse(text, REP_DRAW, &g, err, sizeof err), COMPAT_ERR_SYNTAX);
    cr_assert(strstr(err, "ended 0-1 (five goats captured)"), "%s", err);
    snprintf(text, sizeof text, "%.*s # 0-1", (int)(hash - pgn), pgn);
    read_pgn(text, REP_DRAW, &g);
    int goat_moves = (int)(g.count + 1) / 2;
    game_free(&g);
    snprintf(text, sizeof text, "%.*s %d. G11", (int)(hash - pgn), pgn, goat_moves + 1);
    cr_assert_eq(compat_pgn_parse(text, REP_DRAW, &g, err, sizeof err), COMPAT_ERR_GAME_OVER);
    cr_assert(strstr(err, "over under the package's rules (five goats captured)"), "%s", err);
    free(data);
}

/* What the package cannot say: games from elsewhere, and moves after its end of the game. */
Test(compat, pgn_refuses_what_the_package_cannot_hold)
{
    game_t g;
    char err[200] = "", buf[8192];
    position_t p = obx("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0");
    cr_assert(game_init(&g, &p, NULL, REP_FORBID));
    cr_assert_eq(compat_pgn_format(&g, buf, sizeof buf, NULL, err, sizeof err), COMPAT_ERR_UNREPRESENTABLE);
    cr_assert(strstr(err, "start position"), "%s", err);
    game_free(&g);

    /* Random games under the draw rule until one goes on past the package's draw (a board
     * repeated with the other side to move, or a repetition our rule does not count). */
    uint64_t rnd = 12345;
    bool found = false;
    for (int tries = 0; tries < 2000 && !found; tries++) {
        position_set_start(&p);
        cr_assert(game_init(&g, &p, NULL, REP_DRAW));
        for (int ply = 0; ply < 300; ply++) {
            game_result_t r;
            cr_assert_eq(compat_game_result(&g, &r, NULL, 0), COMPAT_OK);
            move_t list[MAX_MOVES];
            int n = game_legal_moves(&g, list);
            if (n == 0)
                break;
            if (r.reason != RESULT_NONE) {
                cr_assert_eq(r.reason, RESULT_REPETITION_DRAW);
                size_t end = g.count;
                pgn_of(&g, buf, sizeof buf);
                cr_assert(strstr(buf, "# 1/2-1/2"), "%s", buf);
                cr_assert_eq(game_play(&g, list[0], NULL, 0), BC_OK);
                char want[64];
                snprintf(want, sizeof want, "after ply %zu (a board occurred for the third time)", end);
                cr_assert_eq(compat_pgn_format(&g, buf, sizeof buf, NULL, err, sizeof err), COMPAT_ERR_UNREPRESENTABLE);
                cr_assert(strstr(err, want), "%s", err);
                found = true;
                break;
            }
            cr_assert_eq(game_play(&g, list[next_random(&rnd) % (uint64_t)n], NULL, 0), BC_OK);
        }
        game_free(&g);
    }
    cr_assert(found);
}

/* The package ends the game whenever the four tigers are trapped; a position set up with
 * the goats to move shows the difference (no game from the start can reach it). */
Test(compat, tigers_trapped_with_the_goats_to_move)
{
    position_t p = obx("TGGGT/GGXGG/GGGGG/GGGGG/TGGGT g @0 c0");
    game_t g;
    cr_assert(game_init(&g, &p, NULL, REP_FORBID));
    game_result_t r;
    cr_assert_eq(compat_game_result(&g, &r, NULL, 0), COMPAT_OK);
    cr_assert_eq(r.reason, RESULT_TIGERS_TRAPPED);
    cr_assert_eq(r.winner, GOATS);
    cr_assert_eq(game_result(&g).reason, RESULT_NONE);
    game_free(&g);
}

Test(compat, pgn_buffer)
{
    game_t g;
    read_pgn("1. G33 B1122 2. G44", REP_FORBID, &g);
    char buf[10];
    size_t needed = 0;
    char err[120] = "";
    cr_assert_eq(compat_pgn_format(&g, buf, sizeof buf, &needed, err, sizeof err), COMPAT_ERR_BUFFER);
    cr_assert_eq(needed, strlen("1. G33 B1122 2. G44"));
    cr_assert_str_eq(buf, "1. G33 B1");
    cr_assert_neq(err[0], '\0');
    char exact[20];
    cr_assert_eq(compat_pgn_format(&g, exact, sizeof exact, &needed, NULL, 0), COMPAT_OK);
    cr_assert_str_eq(exact, "1. G33 B1122 2. G44");
    game_free(&g);
}

Test(compat, error_names)
{
    cr_assert_str_eq(compat_error_name(COMPAT_OK), "ok");
    cr_assert_str_eq(compat_error_name(COMPAT_ERR_UNREPRESENTABLE), "unrepresentable");
    cr_assert_str_eq(compat_error_name(COMPAT_ERROR_COUNT), "unknown");
    for (int e = 0; e < COMPAT_ERROR_COUNT; e++)
        cr_assert_not_null(compat_error_name((compat_error_t)e));
}

/* Damaged text never crashes a reader: each answer is a game or position that writes and
 * reads back the same, or an error with a one-line message and the output untouched. */
Test(compat, damaged_input)
{
    static const char alphabet[] = "GBx0123456789. #/-\t\n";
    char *data = slurp("compat_pkg_games.txt"), *s = data, *line;
    uint64_t rnd = 0x2545F4914F6CDD1Dull;
    int accepted = 0, refused = 0;
    char text[4096], again[4096], err[200];
    while ((line = next_line(&s))) {
        bool is_pgn = !strncmp(line, "pgn ", 4), is_fen = !strncmp(line, "pos ", 4);
        if (!is_pgn && !is_fen)
            continue;
        char *src = line + 4;
        if (is_fen)
            *strstr(src, " :") = '\0';
        size_t len = strlen(src);
        if (len >= sizeof text - 8)
            continue;
        for (int k = 0; k < (is_pgn ? 60 : 4); k++) {
            memcpy(text, src, len + 1);
            size_t n = len, at = next_random(&rnd) % (n + 1);
            switch (next_random(&rnd) % 4) {
            case 0: /* replace a character */
                if (at < n)
                    text[at] = alphabet[next_random(&rnd) % (sizeof alphabet - 1)];
                break;
            case 1: /* insert one */
                memmove(text + at + 1, text + at, n - at + 1);
                text[at] = alphabet[next_random(&rnd) % (sizeof alphabet - 1)];
                break;
            case 2: /* delete one */
                if (at < n)
                    memmove(text + at, text + at + 1, n - at);
                break;
            default: /* cut the text short */
                text[at] = '\0';
            }
            err[0] = '\0';
            if (is_pgn) {
                game_t g, sentinel;
                memset(&g, 0x5A, sizeof g);
                sentinel = g;
                compat_error_t e = compat_pgn_parse(text, REP_DRAW, &g, err, sizeof err);
                if (e != COMPAT_OK) {
                    cr_assert_neq(err[0], '\0', "'%s'", text);
                    cr_assert_null(strchr(err, '\n'));
                    cr_assert_eq(memcmp(&g, &sentinel, sizeof g), 0);
                    refused++;
                    continue;
                }
                accepted++;
                cr_assert_eq(compat_pgn_format(&g, again, sizeof again, NULL, err, sizeof err), COMPAT_OK, "%s", err);
                game_t back;
                read_pgn(again, REP_DRAW, &back);
                cr_assert_eq(back.count, g.count);
                cr_assert_eq(memcmp(back.moves, g.moves, g.count * sizeof *g.moves), 0);
                game_free(&back);
                game_free(&g);
            } else {
                position_t p, start;
                position_set_start(&start);
                p = start;
                int ply = -7;
                compat_error_t e = compat_fen_parse(text, &p, &ply, err, sizeof err);
                if (e != COMPAT_OK) {
                    cr_assert_neq(err[0], '\0', "'%s'", text);
                    cr_assert(same_position(&p, &start));
                    cr_assert_eq(ply, -7);
                    refused++;
                    continue;
                }
                accepted++;
                cr_assert(position_is_ok(&p), "'%s'", text);
                position_t q;
                int ply2;
                fen_of(&p, ply, again);
                cr_assert_eq(compat_fen_parse(again, &q, &ply2, NULL, 0), COMPAT_OK);
                cr_assert(same_position(&p, &q));
                cr_assert_eq(ply2, ply);
            }
        }
    }
    free(data);
    cr_assert_gt(accepted, 100);
    cr_assert_gt(refused, 100);
}
