/* Move generation and perft: the start counts of RULES.md, the positions of tests/data/perft.txt,
 * and the engine's move lists against the reference model over random games. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baghchal.h"
#include "reference.h"

typedef struct {
    char obx[96];
    uint64_t counts[4];
    int line;
} perft_case_t;

enum { MAX_CASES = 256 };

static int load_cases(perft_case_t *cases)
{
    FILE *f = fopen(BAGHCHAL_TEST_DATA "/perft.txt", "r");
    cr_assert_not_null(f, "cannot open %s", BAGHCHAL_TEST_DATA "/perft.txt");
    char line[256];
    int n = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[strspn(line, " \t")] == '\0')
            continue;
        cr_assert_lt(n, MAX_CASES);
        char *semi = strchr(line, ';');
        cr_assert_not_null(semi, "perft.txt:%d has no ';'", lineno);
        *semi = '\0';
        perft_case_t *c = &cases[n++];
        cr_assert_lt(strlen(line), sizeof c->obx);
        strcpy(c->obx, line);
        c->line = lineno;
        char *s = semi + 1, *end;
        for (int d = 0; d < 4; d++) {
            c->counts[d] = strtoull(s, &end, 10);
            cr_assert_neq(end, s, "perft.txt:%d: missing count for depth %d", lineno, d + 1);
            s = end;
        }
        cr_assert_eq(s[strspn(s, " \t")], '\0', "perft.txt:%d: text after the counts", lineno);
    }
    fclose(f);
    return n;
}

static void parse_case(const perft_case_t *c, position_t *p, ref_pos_t *r)
{
    char msg[128] = "";
    cr_assert_eq(obx_parse(c->obx, p, NULL, msg, sizeof msg), BC_OK, "perft.txt:%d: %s", c->line, msg);
    cr_assert(ref_parse(c->obx, r), "perft.txt:%d: the reference rejects the position", c->line);
    cr_assert(ref_same_as_position(r, p), "perft.txt:%d: engine and reference read it differently", c->line);
}

static bool same_fields(const position_t *a, const position_t *b)
{
    return a->tigers == b->tigers && a->goats == b->goats && a->side == b->side && a->in_hand == b->in_hand &&
           a->captured == b->captured && a->key == b->key;
}

Test(movegen, perft_start_depths_1_to_6)
{
    static const uint64_t expected[] = {21, 252, 5052, 68204, 1304788, 18592000};
    position_t p, before;
    position_set_start(&p);
    before = p;
    for (int d = 1; d <= 6; d++) {
        cr_assert_eq(perft(&p, d), expected[d - 1], "perft %d", d);
        cr_assert(same_fields(&p, &before), "perft %d changed the position", d);
    }
}

Test(movegen, perft_depth_0_is_one_leaf)
{
    position_t p;
    position_set_start(&p);
    cr_assert_eq(perft(&p, 0), 1);
}

Test(movegen, reference_start_perft_matches_rules)
{
    static const uint64_t expected[] = {21, 252, 5052, 68204};
    ref_pos_t r;
    ref_start(&r);
    for (int d = 1; d <= 4; d++)
        cr_assert_eq(ref_perft(&r, d), expected[d - 1], "reference perft %d", d);
}

Test(movegen, data_file_engine_perft_1_to_4)
{
    static perft_case_t cases[MAX_CASES];
    int n = load_cases(cases);
    cr_assert_geq(n, 30);
    for (int i = 0; i < n; i++) {
        position_t p, before;
        ref_pos_t r;
        parse_case(&cases[i], &p, &r);
        before = p;
        for (int d = 1; d <= 4; d++) {
            uint64_t got = perft(&p, d);
            cr_assert_eq(got, cases[i].counts[d - 1], "perft.txt:%d (%s) depth %d: engine %llu, file %llu",
                         cases[i].line, cases[i].obx, d, (unsigned long long)got,
                         (unsigned long long)cases[i].counts[d - 1]);
        }
        cr_assert(same_fields(&p, &before), "perft.txt:%d: perft changed the position", cases[i].line);
    }
}

Test(movegen, data_file_reference_perft_1_to_3)
{
    static perft_case_t cases[MAX_CASES];
    int n = load_cases(cases);
    for (int i = 0; i < n; i++) {
        position_t p;
        ref_pos_t r;
        parse_case(&cases[i], &p, &r);
        for (int d = 1; d <= 3; d++)
            cr_assert_eq(ref_perft(&r, d), cases[i].counts[d - 1], "perft.txt:%d (%s) depth %d: reference",
                         cases[i].line, cases[i].obx, d);
    }
}

/* The file keeps the kinds of positions it was written to cover. */
Test(movegen, data_file_covers_the_cases)
{
    static perft_case_t cases[MAX_CASES];
    int n = load_cases(cases);
    int placement = 0, movement = 0, goats_move = 0, tigers_move = 0, captures = 0, trapped = 0,
        nearly_trapped = 0, stuck = 0, four = 0, five = 0;
    for (int i = 0; i < n; i++) {
        position_t p;
        ref_pos_t r;
        ref_move_t list[REF_MAX_MOVES];
        parse_case(&cases[i], &p, &r);
        cr_assert_neq(strncmp(cases[i].obx, "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20", 35), 0,
                      "perft.txt:%d: the start position belongs to the start test", cases[i].line);
        int moves = ref_gen(&r, list), jumps = 0;
        for (int k = 0; k < moves; k++)
            jumps += list[k].kind == REF_JUMP;
        placement += r.in_hand > 0;
        movement += r.in_hand == 0;
        goats_move += r.side == 'g';
        tigers_move += r.side == 't';
        captures += jumps > 0;
        trapped += r.side == 't' && r.captured < 5 && moves == 0;
        nearly_trapped += r.side == 't' && moves > 0 && moves <= 2;
        stuck += r.side == 'g' && r.captured < 5 && moves == 0;
        four += r.captured == 4;
        five += r.captured == 5;
        cr_assert_eq(moves == 0, cases[i].counts[0] == 0);
    }
    cr_assert_geq(placement, 10);
    cr_assert_geq(movement, 10);
    cr_assert_geq(goats_move, 10);
    cr_assert_geq(tigers_move, 10);
    cr_assert_geq(captures, 8);
    cr_assert_geq(trapped, 2);
    cr_assert_geq(nearly_trapped, 2);
    cr_assert_geq(stuck, 2);
    cr_assert_geq(four, 4);
    cr_assert_geq(five, 2);
}

static int cmp_move(const void *a, const void *b)
{
    return (int)*(const move_t *)a - (int)*(const move_t *)b;
}

static int sorted_copy(const move_t *in, int n, move_t *out)
{
    memcpy(out, in, (size_t)n * sizeof *in);
    qsort(out, (size_t)n, sizeof *out, cmp_move);
    return n;
}

static void assert_same_moves(const move_t *a, int na, const move_t *b, int nb, const char *what, const char *obx)
{
    move_t sa[REF_MAX_MOVES], sb[REF_MAX_MOVES];
    cr_assert_eq(na, nb, "%s: %d moves against %d in %s", what, na, nb, obx);
    sorted_copy(a, na, sa);
    sorted_copy(b, nb, sb);
    for (int i = 0; i < na; i++) {
        char ta[MOVE_TEXT_LEN], tb[MOVE_TEXT_LEN];
        move_format(sa[i], ta);
        move_format(sb[i], tb);
        cr_assert_eq(sa[i], sb[i], "%s: %s against %s in %s", what, ta, tb, obx);
    }
}

typedef struct {
    int positions, movement, with_captures, finished, no_moves, pseudo_checked;
} walk_stats_t;

/* Every question movegen.h answers about p, held against the reference. */
static void check_position(const position_t *p, const ref_pos_t *r, bool check_pseudo, walk_stats_t *st)
{
    char obx[OBX_MAX_LEN];
    obx_format(p, NULL, OBX_V2, obx, sizeof obx);

    move_t moves[MAX_MOVES], caps[MAX_MOVES], expected[REF_MAX_MOVES], jumps[REF_MAX_MOVES];
    ref_move_t ref[REF_MAX_MOVES];
    int n = gen_moves(p, moves);
    cr_assert_leq(n, MAX_MOVES);
    cr_assert_eq(count_moves(p), n, "count_moves %d, gen_moves %d in %s", count_moves(p), n, obx);

    move_t sorted[MAX_MOVES];
    sorted_copy(moves, n, sorted);
    for (int i = 1; i < n; i++)
        cr_assert_neq(sorted[i], sorted[i - 1], "duplicate move in %s", obx);

    int nr = ref_gen(r, ref), nj = 0;
    for (int i = 0; i < nr; i++) {
        expected[i] = ref_move_encode(ref[i]);
        if (ref[i].kind == REF_JUMP)
            jumps[nj++] = expected[i];
    }
    assert_same_moves(moves, n, expected, nr, "gen_moves", obx);

    int nc = gen_captures(p, caps);
    assert_same_moves(caps, nc, jumps, nj, "gen_captures", obx);
    for (int i = 0; i < nc; i++)
        cr_assert_eq(move_kind(caps[i]), MOVE_JUMP);

    ref_move_t tiger[REF_MAX_MOVES];
    int nt = ref_gen_tiger(r, tiger);
    cr_assert_eq(count_tiger_moves(p->tigers, p->goats), nt, "count_tiger_moves in %s", obx);
    cr_assert_eq(capturable_goats(p->tigers, p->goats), ref_capturable(r), "capturable_goats in %s", obx);

    for (int i = 0; i < n; i++)
        cr_assert(move_is_pseudo_legal(p, moves[i]));
    if (check_pseudo) {
        /* Every encodable move that is not in the list is refused. */
        for (int kind = MOVE_PLACE; kind <= MOVE_JUMP; kind++)
            for (int from = 0; from < SQUARE_NB; from++)
                for (int to = 0; to < SQUARE_NB; to++) {
                    move_t m = move_make((move_kind_t)kind, from, to);
                    bool listed = false;
                    for (int i = 0; i < nr; i++)
                        listed |= expected[i] == m;
                    cr_assert_eq(move_is_pseudo_legal(p, m), listed, "move_is_pseudo_legal in %s", obx);
                }
        st->pseudo_checked++;
    }

    st->positions++;
    st->movement += p->in_hand == 0;
    st->with_captures += nj > 0;
    st->finished += p->captured >= BC_CAPTURES_TO_WIN;
    st->no_moves += n == 0 && p->captured < BC_CAPTURES_TO_WIN;
}

/* Seeded random games from the start, played to the end (or a ply limit in long
 * movement-phase games), checking every position on the way. */
static void walk_random_games(uint64_t seed, int games, walk_stats_t *st)
{
    for (int g = 0; g < games; g++) {
        position_t p;
        ref_pos_t r;
        position_set_start(&p);
        ref_start(&r);
        ref_play_t goat_style = g % 3 ? REF_PLAY_CAREFUL : REF_PLAY_UNIFORM;
        ref_play_t tiger_style = g % 2 ? REF_PLAY_CAREFUL : REF_PLAY_UNIFORM;
        for (int ply = 0; ply < 160; ply++) {
            cr_assert(ref_same_as_position(&r, &p), "engine and reference diverged at ply %d of game %d", ply, g);
            check_position(&p, &r, st->positions % 29 == 0, st);
            ref_move_t list[REF_MAX_MOVES];
            int n = ref_gen(&r, list);
            if (n == 0)
                break;
            ref_move_t m = ref_pick_move(&r, list, n, r.side == 'g' ? goat_style : tiger_style, &seed);
            ref_pos_t next;
            ref_make(&r, m, &next);
            r = next;
            position_make(&p, ref_move_encode(m));
        }
    }
}

Test(movegen, moves_match_reference_over_random_games)
{
    walk_stats_t st = {0};
    walk_random_games(0x5eed0001u, 120, &st);
    cr_log_info("%d positions, %d in the movement phase, %d with captures, %d finished, %d without moves",
                st.positions, st.movement, st.with_captures, st.finished, st.no_moves);
    cr_assert_geq(st.positions, 3000);
    cr_assert_geq(st.movement, 1000);
    cr_assert_geq(st.with_captures, 300);
    cr_assert_geq(st.finished, 10);
    cr_assert_geq(st.no_moves, 10);
    cr_assert_geq(st.pseudo_checked, 100);
}

Test(movegen, finished_position_has_no_moves)
{
    position_t p;
    move_t list[MAX_MOVES];
    cr_assert_eq(obx_parse("TXGTG/XXGXG/GGTXG/GGGGX/GGGTG t @0 c5", &p, NULL, NULL, 0), BC_OK);
    /* The tigers could still move and capture on this board, but five captured ends the game. */
    cr_assert_gt(count_tiger_moves(p.tigers, p.goats), 0);
    cr_assert_neq(capturable_goats(p.tigers, p.goats), 0);
    cr_assert_eq(gen_moves(&p, list), 0);
    cr_assert_eq(gen_captures(&p, list), 0);
    cr_assert_eq(count_moves(&p), 0);
    cr_assert_eq(perft(&p, 3), 0);
}

Test(movegen, goats_have_no_captures)
{
    position_t p;
    move_t list[MAX_MOVES];
    /* Goats to move next to tigers with empty points beyond: still no captures for goats. */
    cr_assert_eq(obx_parse("TGXXT/XXXXX/XXXXX/XXXXX/TXXXT g @19 c0", &p, NULL, NULL, 0), BC_OK);
    cr_assert_eq(gen_captures(&p, list), 0);
    cr_assert_eq(capturable_goats(p.tigers, p.goats), bb_square(1));
}
