/* The board: geometry tables against coordinates, the start position, make/unmake, Zobrist
 * keys, position_is_ok and point names. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "baghchal.h"
#include "reference.h"

static int col_of(int sq) { return sq % 5; }
static int row_of(int sq) { return sq / 5; }

static bool same_fields(const position_t *a, const position_t *b)
{
    return a->tigers == b->tigers && a->goats == b->goats && a->side == b->side && a->in_hand == b->in_hand &&
           a->captured == b->captured && a->key == b->key;
}

Test(board, step_count_is_112)
{
    int n = 0;
    for (int sq = 0; sq < SQUARE_NB; sq++)
        n += bb_count(BC_STEPS[sq]);
    cr_assert_eq(n, 112);
}

Test(board, jump_count_is_80)
{
    int n = 0;
    for (int sq = 0; sq < SQUARE_NB; sq++) {
        cr_assert_leq(BC_JUMP_COUNT[sq], BC_MAX_JUMPS);
        n += BC_JUMP_COUNT[sq];
    }
    cr_assert_eq(n, 80);
}

Test(board, steps_are_symmetric_and_on_the_board)
{
    for (int a = 0; a < SQUARE_NB; a++) {
        cr_assert_eq(BC_STEPS[a] & ~BB_ALL, 0, "step off the board from %d", a);
        cr_assert_eq(BC_STEPS[a] & bb_square(a), 0, "step from %d to itself", a);
        for (int b = 0; b < SQUARE_NB; b++)
            cr_assert_eq(!!(BC_STEPS[a] & bb_square(b)), !!(BC_STEPS[b] & bb_square(a)), "%d-%d one way only", a, b);
    }
}

Test(board, steps_match_the_coordinates)
{
    for (int a = 0; a < SQUARE_NB; a++)
        for (int b = 0; b < SQUARE_NB; b++) {
            char na[3], nb[3];
            square_name(a, na);
            square_name(b, nb);
            cr_assert_eq(!!(BC_STEPS[a] & bb_square(b)), ref_is_step(a, b), "step %s%s", na, nb);
        }
}

Test(board, degrees)
{
    cr_assert_eq(bb_count(BC_STEPS[square_parse("C3")]), 8);
    cr_assert_eq(bb_count(BC_STEPS[square_parse("B2")]), 8);
    cr_assert_eq(bb_count(BC_STEPS[square_parse("B1")]), 3);
    cr_assert_eq(bb_count(BC_STEPS[square_parse("A1")]), 3);
    cr_assert_eq(bb_count(BC_STEPS[square_parse("C1")]), 5);
    cr_assert_eq(bb_count(BC_STEPS[square_parse("C2")]), 4);
    /* The reference agrees from its own coordinates. */
    cr_assert_eq(ref_degree(12), 8);
    cr_assert_eq(ref_degree(6), 8);
    cr_assert_eq(ref_degree(1), 3);
    cr_assert_eq(ref_degree(0), 3);
}

/* Each jump: the over point is the midpoint, both legs are steps, both go the same way. */
Test(board, jumps_are_straight_through_the_midpoint)
{
    for (int from = 0; from < SQUARE_NB; from++) {
        for (int k = 0; k < BC_JUMP_COUNT[from]; k++) {
            int over = BC_JUMPS[from][k].over, to = BC_JUMPS[from][k].to;
            cr_assert_lt(over, SQUARE_NB);
            cr_assert_lt(to, SQUARE_NB);
            cr_assert_neq(to, from);
            cr_assert_eq(col_of(from) + col_of(to), 2 * col_of(over), "jump %d over %d to %d", from, over, to);
            cr_assert_eq(row_of(from) + row_of(to), 2 * row_of(over), "jump %d over %d to %d", from, over, to);
            cr_assert(BC_STEPS[from] & bb_square(over), "first leg %d-%d is no step", from, over);
            cr_assert(BC_STEPS[over] & bb_square(to), "second leg %d-%d is no step", over, to);
            cr_assert_eq(col_of(over) - col_of(from), col_of(to) - col_of(over));
            cr_assert_eq(row_of(over) - row_of(from), row_of(to) - row_of(over));
            cr_assert_eq(move_over(move_make(MOVE_JUMP, from, to)), over);
            for (int j = 0; j < k; j++)
                cr_assert_neq(BC_JUMPS[from][j].to, to, "jump %d to %d listed twice", from, to);
        }
    }
}

Test(board, jumps_match_the_coordinates)
{
    for (int from = 0; from < SQUARE_NB; from++)
        for (int to = 0; to < SQUARE_NB; to++) {
            int over = -1;
            for (int k = 0; k < BC_JUMP_COUNT[from]; k++)
                if (BC_JUMPS[from][k].to == to)
                    over = BC_JUMPS[from][k].over;
            cr_assert_eq(over, ref_jump_over(from, to), "jump %d to %d", from, to);
        }
}

/* The shift tables used by the bitboard generators: each direction's step and jump origins
 * are exactly the points with a line going that way. */
Test(board, directions_match_the_coordinates)
{
    bb_t step_union = 0;
    for (int d = 0; d < BC_DIR_NB; d++) {
        int shift = BC_DIRS[d].shift;
        /* Shifts 1, 5, 6, 4 and their negatives: column and row deltas of the direction. */
        int dc = 0, dr = 0;
        switch (abs(shift)) {
        case 1: dc = 1; break;
        case 5: dr = 1; break;
        case 6: dc = 1; dr = 1; break;
        case 4: dc = -1; dr = 1; break;
        default: cr_assert_fail("unexpected shift %d", shift);
        }
        if (shift < 0) {
            dc = -dc;
            dr = -dr;
        }
        bb_t steps = 0, jumps = 0;
        for (int sq = 0; sq < SQUARE_NB; sq++) {
            int one = ref_point(col_of(sq) + dc, row_of(sq) + dr);
            int two = ref_point(col_of(sq) + 2 * dc, row_of(sq) + 2 * dr);
            if (one >= 0 && ref_is_step(sq, one))
                steps |= bb_square(sq);
            if (two >= 0 && ref_jump_over(sq, two) == one)
                jumps |= bb_square(sq);
        }
        cr_assert_eq(BC_DIRS[d].step_from, steps, "direction %d (shift %d) steps", d, shift);
        cr_assert_eq(BC_DIRS[d].jump_from, jumps, "direction %d (shift %d) jumps", d, shift);
        for (int e = 0; e < d; e++)
            cr_assert_neq(BC_DIRS[e].shift, shift, "direction listed twice");
        step_union |= steps;
    }
    cr_assert_eq(step_union, BB_ALL);
}

Test(board, start_position)
{
    position_t p;
    memset(&p, 0xAB, sizeof p);
    position_set_start(&p);
    cr_assert_eq(p.tigers, bb_square(0) | bb_square(4) | bb_square(20) | bb_square(24));
    cr_assert_eq(p.goats, 0);
    cr_assert_eq(p.side, GOATS);
    cr_assert_eq(p.in_hand, 20);
    cr_assert_eq(p.captured, 0);
    cr_assert_eq(p.key, position_compute_key(&p));
    cr_assert(position_is_ok(&p));
    ref_pos_t r;
    ref_start(&r);
    cr_assert(ref_same_as_position(&r, &p));
}

/* Random games: after every move the incremental key is the computed one and the one
 * position_key_after predicted for every move; unmake restores every field. */
Test(board, make_unmake_and_keys_over_random_games)
{
    uint64_t seed = 0xb0a4d001u;
    int made = 0, movement = 0, captures = 0;
    for (int g = 0; g < 60; g++) {
        static position_t stack[256];
        static move_t played[256];
        int ply = 0;
        position_set_start(&stack[0]);
        position_t p = stack[0];
        ref_pos_t r;
        ref_start(&r);
        ref_play_t style = g % 2 ? REF_PLAY_CAREFUL : REF_PLAY_UNIFORM;
        while (ply < 200) {
            move_t list[MAX_MOVES];
            int n = gen_moves(&p, list);
            /* Every move: key_after equals the key once made, and unmake restores p. */
            for (int i = 0; i < n; i++) {
                uint64_t predicted = position_key_after(&p, list[i]);
                position_make(&p, list[i]);
                cr_assert_eq(p.key, predicted, "key_after at ply %d of game %d", ply, g);
                cr_assert_eq(p.key, position_compute_key(&p));
                cr_assert(position_is_ok(&p));
                position_unmake(&p, list[i]);
                cr_assert(same_fields(&p, &stack[ply]), "unmake at ply %d of game %d", ply, g);
            }
            ref_move_t rl[REF_MAX_MOVES];
            int nr = ref_gen(&r, rl);
            if (nr == 0)
                break;
            ref_move_t rm = ref_pick_move(&r, rl, nr, style, &seed);
            ref_pos_t next;
            ref_make(&r, rm, &next);
            r = next;
            move_t m = ref_move_encode(rm);
            position_make(&p, m);
            cr_assert(ref_same_as_position(&r, &p), "make disagrees with the rules at ply %d of game %d", ply, g);
            played[ply++] = m;
            stack[ply] = p;
            made++;
            movement += p.in_hand == 0;
            captures += move_kind(m) == MOVE_JUMP;
        }
        /* Unwind the whole game. */
        while (ply > 0) {
            position_unmake(&p, played[--ply]);
            cr_assert(same_fields(&p, &stack[ply]), "unwinding to ply %d of game %d", ply, g);
        }
    }
    cr_assert_geq(made, 3000);
    cr_assert_geq(movement, 1000);
    cr_assert_geq(captures, 100);
}

Test(board, key_depends_on_board_and_side_only)
{
    position_t a, b;
    cr_assert_eq(obx_parse("TGXXT/XXXXX/XXGXX/XXXXX/TXXXT t @18 c0", &a, NULL, NULL, 0), BC_OK);
    b = a;
    b.side = GOATS;
    cr_assert_neq(position_compute_key(&a), position_compute_key(&b));
    b = a;
    b.in_hand = 17;
    b.captured = 1;
    cr_assert_eq(position_compute_key(&a), position_compute_key(&b));
    cr_assert_neq(position_hash(&a), position_hash(&b));
    b = a;
    b.goats ^= bb_square(1) | bb_square(2);
    cr_assert_neq(position_compute_key(&a), position_compute_key(&b));
    b = a;
    b.tigers ^= bb_square(0) | bb_square(6);
    cr_assert_neq(position_compute_key(&a), position_compute_key(&b));
}

static position_t valid_position(void)
{
    position_t p;
    cr_assert_eq(obx_parse("TGXXT/GGGGG/GGGGG/GGGGG/TXXGT t @0 c3", &p, NULL, NULL, 0), BC_OK);
    cr_assert(position_is_ok(&p));
    return p;
}

static void assert_rejected(position_t p, bool rekey, const char *why)
{
    if (rekey)
        p.key = position_compute_key(&p);
    cr_assert_not(position_is_ok(&p), "accepted: %s", why);
}

Test(board, is_ok_rejects_broken_positions)
{
    position_t p;

    p = valid_position();
    p.tigers |= bb_square(2); /* a fifth tiger on the empty C1; the goat total stays right */
    assert_rejected(p, true, "5 tigers");

    p = valid_position();
    p.tigers &= ~bb_square(0);
    assert_rejected(p, true, "3 tigers");

    p = valid_position();
    p.goats |= bb_square(0); /* a goat under the A1 tiger; take one off elsewhere to keep 17 */
    p.goats &= ~bb_square(5);
    assert_rejected(p, true, "tiger and goat on one point");

    p = valid_position();
    p.captured = 2;
    assert_rejected(p, true, "goat total 19");

    p = valid_position();
    p.in_hand = 1;
    assert_rejected(p, true, "goat total 21");

    p = valid_position();
    p.goats |= bb_square(25); /* no key for a point off the board: the old one stays */
    p.goats &= ~bb_square(5);
    assert_rejected(p, false, "goat off the board");

    p = valid_position();
    p.side = 2;
    assert_rejected(p, true, "no such side");

    p = valid_position();
    p.goats &= ~(bb_square(1) | bb_square(5) | bb_square(6));
    p.captured = 6;
    assert_rejected(p, true, "6 captured");

    p = valid_position();
    p.key ^= 1;
    assert_rejected(p, false, "stale key");

    p = valid_position();
    p.goats ^= bb_square(1) | bb_square(2); /* the B1 goat steps to C1 and the key stays */
    assert_rejected(p, false, "key of another board");

    p = valid_position();
    p.side = GOATS;
    assert_rejected(p, false, "key of the other side");

    position_set_start(&p);
    p.side = TIGERS;
    assert_rejected(p, true, "tigers to move with 20 in hand");

    /* The same shapes made valid are accepted, so the rejections above come from the defect. */
    position_set_start(&p);
    p.goats = bb_square(12);
    p.in_hand = 19;
    p.side = TIGERS;
    p.key = position_compute_key(&p);
    cr_assert(position_is_ok(&p));
}

/* The database tools play games with fewer goats (2 goats, 2 captures win): make and unmake
 * keep such a position whole, and in a debug build their invariant check accepts it. */
Test(board, make_unmake_in_a_game_with_fewer_goats)
{
    position_t p = {.tigers = bb_square(0) | bb_square(4) | bb_square(20) | bb_square(24), .side = GOATS,
                    .in_hand = 2};
    p.key = position_compute_key(&p);
    cr_assert_not(position_is_ok(&p), "not a position of the real game");
    move_t moves[MAX_MOVES];
    int n = gen_moves(&p, moves);
    cr_assert_eq(n, 21);
    for (int i = 0; i < n; i++) {
        position_t q = p;
        position_make(&q, moves[i]);
        cr_assert_eq(q.in_hand, 1);
        cr_assert_eq(bb_count(q.goats), 1);
        cr_assert_eq(q.key, position_compute_key(&q));
        /* A tiger's reply, then both undone. */
        move_t replies[MAX_MOVES];
        int nr = gen_moves(&q, replies);
        cr_assert_gt(nr, 0);
        for (int j = 0; j < nr; j++) {
            position_t r = q;
            position_make(&r, replies[j]);
            cr_assert_eq(bb_count(r.goats) + r.in_hand + r.captured, 2);
            position_unmake(&r, replies[j]);
            cr_assert(position_same(&r, &q) && r.key == q.key && r.in_hand == 1 && r.captured == 0);
        }
        position_unmake(&q, moves[i]);
        cr_assert(position_same(&q, &p) && q.key == p.key && q.in_hand == 2);
    }
}

Test(board, square_names_round_trip)
{
    static const char *const expected[] = {"A1", "E1", "A5", "E5", "C3", "B2"};
    static const int squares[] = {0, 4, 20, 24, 12, 6};
    for (int i = 0; i < 6; i++) {
        char name[3];
        square_name(squares[i], name);
        cr_assert_str_eq(name, expected[i]);
    }
    for (int sq = 0; sq < SQUARE_NB; sq++) {
        char name[3], lower[3];
        square_name(sq, name);
        cr_assert_eq(strlen(name), 2);
        cr_assert_eq(square_parse(name), sq, "%s", name);
        lower[0] = (char)(name[0] - 'A' + 'a');
        lower[1] = name[1];
        lower[2] = '\0';
        cr_assert_eq(square_parse(lower), sq, "%s", lower);
        cr_assert_eq(col_of(sq), name[0] - 'A');
        cr_assert_eq(row_of(sq), name[1] - '1');
    }
}

Test(board, bad_square_names_are_rejected)
{
    static const char *const bad[] = {"", "A", "F1", "A0", "A6", "1A", "Z9", "@1", "a", " A1", "e0", "f5", "AA"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(square_parse(bad[i]), -1, "'%s' accepted", bad[i]);
}
