/* The search, the transposition table, time management and the evaluation at library level:
 * forced wins at their exact mate distance in hand-made positions, games against a random
 * player, reproducible node-limited searches, table replacement and aging, clock budgets and
 * the symmetry of the evaluation. */
#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baghchal.h"
#include "reference.h"

/* Timing limits hold for the optimised build; sanitizers and -O0 slow everything down. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SEARCH_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SEARCH_SANITIZED 1
#endif
#endif
#ifndef SEARCH_SANITIZED
#define SEARCH_SANITIZED 0
#endif
#if SEARCH_SANITIZED
#define SLOW 10
#elif !defined(__OPTIMIZE__) || defined(BAGHCHAL_TSAN_BUILD)
/* Unoptimised, or an uninstrumented search among ThreadSanitizer's programs run beside it
 * (ctest -j): a 50 ms clock search was seen to report 56 ms there. */
#define SLOW 3
#else
#define SLOW 1
#endif

TestSuite(search, .timeout = 300);

/* ---- running searches ---- */

typedef struct {
    int ninfo;
    search_info_t info[4 * MAX_PLY];
    int nbest;
    move_t best, ponder;
    search_info_t final;
} record_t;

static void on_info(void *ctx, const search_info_t *info)
{
    record_t *r = ctx;
    if (r->ninfo < 4 * MAX_PLY)
        r->info[r->ninfo] = *info;
    r->ninfo++;
}

static void on_best(void *ctx, move_t best, move_t ponder, const search_info_t *final)
{
    record_t *r = ctx;
    r->nbest++;
    r->best = best;
    r->ponder = ponder;
    r->final = *final;
}

static void game_from(game_t *g, const char *obx, rep_rule_t rule)
{
    position_t p;
    obx_meta_t meta = {MOVE_NONE, 0};
    char msg[256];
    if (obx)
        cr_assert_eq(obx_parse(obx, &p, &meta, msg, sizeof msg), BC_OK, "%s: %s", obx, msg);
    else
        position_set_start(&p);
    cr_assert(game_init(g, &p, &meta, rule));
}

static void play_text(game_t *g, const char *text)
{
    char msg[256];
    cr_assert_eq(game_play_text(g, text, msg, sizeof msg), BC_OK, "%s: %s", text, msg);
}

/* Searches g to `depth` (or `nodes`) with e and records what was reported. */
static void search_game(engine_t *e, const game_t *g, int depth, uint64_t nodes, record_t *r)
{
    memset(r, 0, sizeof *r);
    cr_assert(engine_set_game(e, g));
    search_limits_t l;
    search_limits_init(&l);
    l.depth = depth;
    l.nodes = nodes;
    search_report_t rep = {on_info, on_best, r};
    engine_search_sync(e, &l, &rep);
    cr_assert_eq(r->nbest, 1, "%d bestmove reports for one search", r->nbest);
}

/* Runs the search of limits l with e, recording what was reported into r: the milliseconds it
 * took on the wall clock. */
static int64_t timed_search(engine_t *e, const search_limits_t *l, record_t *r)
{
    memset(r, 0, sizeof *r);
    search_report_t rep = {on_info, on_best, r};
    int64_t t0 = search_now_ms();
    engine_search_sync(e, l, &rep);
    return search_now_ms() - t0;
}

static int mate_of(const search_info_t *in)
{
    cr_assert(score_is_mate(in->score), "score %d is not a mate score", in->score);
    return score_mate_moves(in->score);
}

static void move_name(move_t m, char *buf) { move_format(m, buf); }

/* ---- an independent check of mate distances ---- */

/* Does the side to move of r win within n of its own moves (reference rules, no repetition:
 * these positions are all far too short for one)? */
static bool ref_wins_within(const ref_pos_t *r, int n);

static bool ref_is_lost(const ref_pos_t *r)
{
    ref_move_t l[REF_MAX_MOVES];
    return r->captured >= BC_CAPTURES_TO_WIN || ref_gen(r, l) == 0;
}

static bool ref_loses_within(const ref_pos_t *r, int n)
{
    if (ref_is_lost(r))
        return true;
    if (n == 0)
        return false;
    ref_move_t l[REF_MAX_MOVES];
    int k = ref_gen(r, l);
    for (int i = 0; i < k; i++) {
        ref_pos_t q;
        ref_make(r, l[i], &q);
        if (!ref_wins_within(&q, n))
            return false;
    }
    return true;
}

static bool ref_wins_within(const ref_pos_t *r, int n)
{
    if (n == 0 || ref_is_lost(r))
        return false;
    ref_move_t l[REF_MAX_MOVES];
    int k = ref_gen(r, l);
    for (int i = 0; i < k; i++) {
        ref_pos_t q;
        ref_make(r, l[i], &q);
        if (ref_loses_within(&q, n - 1))
            return true;
    }
    return false;
}

/* The mate value of a position by exhaustive search: N > 0 wins in N moves, -N loses in N
 * moves (N >= 1), 0 when neither happens within `horizon` moves. */
static int ref_mate_value(const char *obx, int horizon)
{
    ref_pos_t r;
    cr_assert(ref_parse(obx, &r), "the reference rejects %s", obx);
    for (int n = 1; n <= horizon; n++) {
        if (ref_wins_within(&r, n))
            return n;
        if (ref_loses_within(&r, n))
            return -n;
    }
    return 0;
}

/* ---- forced wins in hand-made positions ---- */

typedef struct {
    const char *obx;
    int mate;         /* for the side to move: N > 0 wins in N moves, -N loses in N */
    const char *best; /* the only move that keeps that value, or NULL when several do */
} mate_case_t;

/* Points: columns A..E, rows 1..5 from the top; lines along rows and columns everywhere and
 * along diagonals through A1 C1 E1 B2 D2 A3 C3 E3 B4 D4 A5 C5 E5. */
static const mate_case_t MATES[] = {
    /* Tigers to move, 4 goats captured, goats on B1 and C3. A1 jumps B1 along row 1 to the
     * empty C1: the fifth capture. No other tiger touches a goat (C3 is next to none of
     * A1 E1 A5 E5), so A1C1 is the one winning move: mate 1. */
    {"TGXXT/XXXXX/XXGXX/XXXXX/TXXXT t @14 c4", 1, "A1C1"},
    /* Tigers to move, 4 captured, goats on C2 and B3, tigers D4 E1 A5 E5; no tiger touches a
     * goat now, so there is no mate 1. D4-C3 (a diagonal) attacks C2 (landing C1) and B3
     * (landing A3) at once. The goats are placing: they can fill one landing point but can
     * neither move a goat nor fill both, so the next tiger move captures the fifth goat:
     * mate 2. The other tiger moves make one threat at most (E1-D2 hits C2 towards B2, A5-B4
     * hits B3 towards B2), which one placement answers: D4C3 is the only mate 2. */
    {"XXXXT/XXGXX/XGXXX/XXXTX/TXXXT t @14 c4", 2, "D4C3"},
    /* The same after D4C3, goats to move: whatever they place, C3 captures C2 or B3 next:
     * the goats lose in 1. */
    {"XXXXT/XXGXX/XGTXX/XXXXX/TXXXT g @14 c4", -1, NULL},
    /* Goats to move (placing). Tigers A1 B1 A2 B2 in the corner; every point next to them is
     * a goat (C1 C2 A3 B3 C3) and every jump over those is blocked (B1-C1-D1, B2-C2-D2,
     * A2-A3-A4, B2-B3-B4 end on goats; B2-C1 and B2-A3 leave the board) except B2 over C3 to
     * the empty D4. Placing a goat on D4 leaves the tigers without a move: mate 1, and D4
     * is the only placement that does it. */
    {"TTGGX/TTGGX/GGGXX/GGXXX/XXXXX g @11 c0", 1, "D4"},
    /* The same wall in the movement phase: 20 goats, the only empty point D4. Moving a goat
     * into D4 from D3, C4, E4, D5, E3, C5 or E5 empties a point no tiger can reach (nor jump
     * to), and the tigers are trapped: mate 1. C3-D4 would open C3 to B2, so not every move
     * wins. */
    {"TTGGG/TTGGG/GGGGG/GGGXG/GGGGG g @0 c0", 1, NULL},
    /* Goats to move (placing). Tigers A1 B1 A2 around the empty B2, otherwise shut in (C1
     * backed by D1, A3 by A4); tiger E1 next to goats D1 (backed by C1) and D2 (backed by C3)
     * and the empty E2. Two escapes, B2 and E2: no single placement closes both, so no
     * mate 1. A goat on B2 (the jumps over it, B1-B2-B3, A2-B2-C2 and A1-B2-C3, all land on
     * goats) leaves the tigers only E1-E2; then a goat on E1 traps E2 (E3 backed by E4, D2
     * backed by C2, E1 against the edge): mate 2, and B2 is the only first move forcing it. */
    {"TTGGT/TXGGX/GGGXG/GXXXG/XXXXX g @10 c0", 2, "B2"},
    /* The same after B2, tigers to move: E1E2 is forced and the goats close E1: the tigers
     * lose in 1. */
    {"TTGGT/TGGGX/GGGXG/GXXXG/XXXXX t @9 c0", -1, "E1E2"},
    /* Tigers to move. A5 A4 B5 are walled in (B4 backed by C3, B3 and C4, A3 by A2, C5 by D5).
     * E1 can only step to E2 (D1 and D2 are backed by C1 and C3). The goats place on E1; the
     * tiger at E2 can only go on to E3 (D2 is backed by C2); the goats place on E2, and at E3
     * every neighbour (E2 E4 D2 D3 D4) is a goat backed by a goat (E1 E5 C1 C3 C5): the
     * tigers lose in 2. */
    {"XXGGT/GXGGX/GGGGX/TGGGG/TTGGG t @4 c0", -2, "E1E2"},
    /* The same after E1E2, goats to move: the tiger on E2 has two exits, E1 and E3, so one
     * placement does not trap it, but E1 (or E3) then E2 (or E1) does: mate 2. */
    {"XXGGX/GXGGT/GGGGX/TGGGG/TTGGG g @4 c0", 2, NULL},
    /* Mate 1 against a slower win: the fork D4C3 of the second position still wins in 2, but
     * A5 jumps the new goat on A4 to the empty A3 at once: mate 1 with A5A3. */
    {"XXXXT/XXGXX/XGXXX/GXXTX/TXXXT t @13 c4", 1, "A5A3"},
};
enum { MATES_COUNT = sizeof MATES / sizeof *MATES };

Test(search, hand_made_positions_are_what_their_comments_say)
{
    for (int i = 0; i < MATES_COUNT; i++) {
        int v = ref_mate_value(MATES[i].obx, 3);
        cr_assert_eq(v, MATES[i].mate, "%s: the reference finds %d, the comment says %d", MATES[i].obx, v,
                     MATES[i].mate);
        /* A named best move is the only winning one, or the loser's only move. */
        if (!MATES[i].best)
            continue;
        ref_pos_t r;
        cr_assert(ref_parse(MATES[i].obx, &r));
        ref_move_t l[REF_MAX_MOVES];
        int n = ref_gen(&r, l), winning = 0;
        move_t want;
        cr_assert_eq(move_parse_text(MATES[i].best, &want, NULL, 0), BC_OK);
        if (MATES[i].mate < 0) {
            cr_assert_eq(n, 1, "%s: the loser has %d moves, not only %s", MATES[i].obx, n, MATES[i].best);
            cr_assert_eq(ref_move_encode(l[0]), want, "%s: the loser's only move is not %s", MATES[i].obx,
                         MATES[i].best);
            continue;
        }
        for (int k = 0; k < n; k++) {
            ref_pos_t q;
            ref_make(&r, l[k], &q);
            if (ref_loses_within(&q, MATES[i].mate - 1)) {
                winning++;
                cr_assert_eq(ref_move_encode(l[k]), want, "%s: another move also wins in %d", MATES[i].obx,
                             MATES[i].mate);
            }
        }
        cr_assert_eq(winning, 1, "%s: %d moves win in %d", MATES[i].obx, winning, MATES[i].mate);
    }
}

static void check_mate_search_rule(engine_t *e, const mate_case_t *c, int depth, rep_rule_t rule)
{
    game_t g;
    record_t r;
    char name[MOVE_TEXT_LEN];
    game_from(&g, c->obx, rule);
    search_game(e, &g, depth, 0, &r);
    move_name(r.best, name);
    cr_assert(game_is_legal_move(&g, r.best), "%s: bestmove %s is not legal", c->obx, name);
    cr_assert_eq(mate_of(&r.final), c->mate, "%s at depth %d: mate %d, expected mate %d", c->obx, depth,
                 score_mate_moves(r.final.score), c->mate);
    cr_assert_eq(r.final.bound, BOUND_EXACT, "%s: the mate score is a bound", c->obx);
    if (c->best)
        cr_assert_str_eq(name, c->best, "%s at depth %d", c->obx, depth);
    /* The reported line plays out to the end of the game, won by the right side. */
    cr_assert_eq(r.final.pv[0], r.best);
    int plies = c->mate > 0 ? 2 * c->mate - 1 : -2 * c->mate;
    cr_assert_eq(r.final.pv_len, plies, "%s: a pv of %d moves for mate %d", c->obx, r.final.pv_len, c->mate);
    side_t us = game_position(&g)->side;
    for (int k = 0; k < r.final.pv_len; k++)
        cr_assert_eq(game_play(&g, r.final.pv[k], NULL, 0), BC_OK, "%s: pv move %d is illegal", c->obx, k + 1);
    game_result_t res = game_result(&g);
    cr_assert_neq(res.reason, RESULT_NONE, "%s: the pv does not end the game", c->obx);
    cr_assert_eq(res.winner == (int)us, c->mate > 0, "%s: the pv ends with the wrong winner", c->obx);
    /* No iteration claims a quicker result than the truth or the other side's win, and from
     * depth 2N (what `go mate N` searches) every iteration has the exact distance. */
    int n = abs(c->mate);
    for (int i = 0; i < r.ninfo && i < 4 * MAX_PLY; i++) {
        if (!score_is_mate(r.info[i].score))
            continue;
        int v = score_mate_moves(r.info[i].score);
        cr_assert((v > 0) == (c->mate > 0) && abs(v) >= n, "%s: depth %d says mate %d, the truth is mate %d", c->obx,
                  r.info[i].depth, v, c->mate);
        if (r.info[i].depth >= 2 * n)
            cr_assert_eq(v, c->mate, "%s: depth %d says mate %d", c->obx, r.info[i].depth, v);
    }
    game_free(&g);
}

static void check_mate_search(engine_t *e, const mate_case_t *c, int depth)
{
    check_mate_search_rule(e, c, depth, REP_FORBID);
}

Test(search, finds_forced_wins_at_the_right_distance)
{
    engine_t *e = engine_new();
    cr_assert_not_null(e);
    for (int i = 0; i < MATES_COUNT; i++) {
        int depths[] = {2 * abs(MATES[i].mate), 2 * abs(MATES[i].mate) + 1, 8, 16};
        for (int d = 0; d < 4; d++) {
            engine_clear(e);
            check_mate_search(e, &MATES[i], depths[d]);
        }
        /* With what the table learnt from the other positions and depths. */
        check_mate_search(e, &MATES[i], 12);
    }
    engine_free(e);
}

/* Forced wins of the movement phase, their distances from the movement database under the
 * draw rule (positions of random games, side to move with at least 6 moves). Pruning that
 * assumes moving never hurts (null-move pruning) gets the first three wrong: where every
 * move hurts, a pass is the one thing a side cannot do. */
static const mate_case_t MOVEMENT_MATES[] = {
    {"GGTXG/TXXGG/GGXGT/GGGGX/GGTGG g @0 c4", -4, NULL},
    {"GGXGG/GGXTX/TGGTG/GGGXT/GGGGG t @0 c3", 5, NULL},
    {"GTGTG/GGGGX/GXTXT/GGGXG/GGGGG g @0 c3", -4, NULL},
    {"GGGGG/GXTGG/TGGGG/GXGGX/GGTTG g @0 c2", 5, NULL},
    {"GGGXT/TGGGG/GXTGG/GXGGG/GGGTG g @0 c2", 5, NULL},
    {"GGGGG/TGGTG/GGXGX/TGGGG/GTGGX g @0 c2", 5, NULL},
    {"GXTGG/TGGGG/GGGXG/GGGGT/TGGGG g @0 c1", 5, NULL},
    {"GGGGT/GGGTX/GGXGG/XTGXG/GTGGX g @0 c4", -4, NULL},
    {"GGGGG/XGGGT/XGXGG/GTXGX/GTTGG g @0 c4", -4, NULL},
    {"TXXTG/GGGGG/XGGGG/GTTGG/XXGGG g @0 c4", -4, NULL},
    {"TXTGG/XXGGG/TGXGG/GGGGG/GGTGG t @0 c3", 4, NULL},
};

Test(search, finds_the_movement_databases_forced_wins)
{
    engine_t *e = engine_new();
    cr_assert_not_null(e);
    for (size_t i = 0; i < sizeof MOVEMENT_MATES / sizeof *MOVEMENT_MATES; i++) {
        engine_clear(e);
        check_mate_search_rule(e, &MOVEMENT_MATES[i], 12, REP_DRAW);
    }
    engine_free(e);
}

Test(search, mate_scores_stay_right_through_the_table)
{
    /* Search a forced win deeply, then the positions along its line without clearing the
     * table: the scores found at other plies are stored relative to their node. */
    static const char *const lines[][4] = {
        {"XXXXT/XXGXX/XGXXX/XXXTX/TXXXT t @14 c4", "D4C3", "A1", NULL},
        {"XXGGT/GXGGX/GGGGX/TGGGG/TTGGG t @4 c0", "E1E2", "E1", "E2E3"},
    };
    engine_t *e = engine_new();
    cr_assert_not_null(e);
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        engine_clear(e);
        game_t g;
        game_from(&g, lines[i][0], REP_FORBID);
        int want = ref_mate_value(lines[i][0], 3);
        cr_assert_neq(want, 0);
        record_t r;
        search_game(e, &g, 14, 0, &r);
        cr_assert_eq(mate_of(&r.final), want);
        for (int k = 1; k < 4 && lines[i][k]; k++) {
            play_text(&g, lines[i][k]);
            /* A win in N is a loss in N - 1 for the opponent once the winner has moved, a loss
             * in N is the opponent's win in N. */
            int next = want > 0 ? -(want - 1) : -want;
            char obx[OBX_MAX_LEN];
            obx_format(game_position(&g), NULL, OBX_V2, obx, sizeof obx);
            cr_assert_eq(ref_mate_value(obx, 3), next, "%s: the reference disagrees", obx);
            want = next;
            for (int depth = 2 * abs(want); depth <= 14; depth += 6) {
                search_game(e, &g, depth, 0, &r);
                cr_assert(score_is_mate(r.final.score), "%s then %d moves, depth %d: score %d", lines[i][0], k, depth,
                          r.final.score);
                cr_assert_eq(mate_of(&r.final), want, "%s then %d moves, depth %d: mate %d, expected %d",
                             lines[i][0], k, depth, score_mate_moves(r.final.score), want);
            }
        }
        game_free(&g);
    }
    engine_free(e);
}

/* ---- against a random player ---- */

static uint32_t rng_next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

typedef struct {
    int wins, draws, losses;
} score_t;

/* One game: the engine at `depth` plays `side`, the other side picks uniformly among the legal
 * moves. A game still going after MAX_PLIES counts as a draw. */
static void play_random_game(engine_t *e, side_t side, uint32_t seed, int depth, rep_rule_t rule, score_t *s)
{
    enum { MAX_PLIES = 400 };
    game_t g;
    game_from(&g, NULL, rule);
    engine_clear(e);
    while (game_result(&g).reason == RESULT_NONE && g.count < MAX_PLIES) {
        move_t m;
        if (game_position(&g)->side == side) {
            record_t r;
            search_game(e, &g, depth, 0, &r);
            m = r.best;
            cr_assert(game_is_legal_move(&g, m), "seed %u ply %zu: the engine plays an illegal move", seed, g.count);
        } else {
            move_t list[MAX_MOVES];
            int n = game_legal_moves(&g, list);
            cr_assert_gt(n, 0);
            m = list[rng_next(&seed) % (uint32_t)n];
        }
        cr_assert_eq(game_play(&g, m, NULL, 0), BC_OK);
    }
    game_result_t res = game_result(&g);
    if (res.reason == RESULT_NONE || res.winner < 0)
        s->draws++;
    else if (res.winner == (int)side)
        s->wins++;
    else
        s->losses++;
    game_free(&g);
}

Test(search, never_loses_to_a_random_player)
{
    enum { GAMES = 100, DEPTH = 3 };
    engine_t *e = engine_new();
    cr_assert_not_null(e);
    cr_assert(engine_set_hash(e, 8));
    for (int side = GOATS; side <= TIGERS; side++) {
        score_t s = {0, 0, 0};
        for (int i = 0; i < GAMES; i++)
            play_random_game(e, (side_t)side, 0x9E3779B9u * (uint32_t)(i + 1) + (uint32_t)side, DEPTH, REP_FORBID, &s);
        cr_assert_eq(s.wins + s.draws + s.losses, GAMES);
        cr_assert_eq(s.losses, 0, "as %s at depth %d: %d wins, %d draws, %d losses", side ? "tigers" : "goats", DEPTH,
                     s.wins, s.draws, s.losses);
        /* A random player blunders goats and lets tigers be trapped: most games are won. */
        cr_assert_geq(s.wins, GAMES * 9 / 10, "as %s at depth %d: only %d wins, %d draws", side ? "tigers" : "goats",
                      DEPTH, s.wins, s.draws);
    }
    /* And under the draw rule. */
    for (int side = GOATS; side <= TIGERS; side++) {
        score_t s = {0, 0, 0};
        for (int i = 0; i < 20; i++)
            play_random_game(e, (side_t)side, 12345u + 977u * (uint32_t)i, DEPTH, REP_DRAW, &s);
        cr_assert_eq(s.losses, 0, "Repetition draw, as %s: %d wins, %d draws, %d losses", side ? "tigers" : "goats",
                     s.wins, s.draws, s.losses);
    }
    engine_free(e);
}

/* ---- reproducibility ---- */

static void check_same_record(const record_t *a, const record_t *b, const char *what)
{
    cr_assert_eq(a->best, b->best, "%s: a different bestmove", what);
    cr_assert_eq(a->ponder, b->ponder, "%s: a different ponder move", what);
    cr_assert_eq(a->final.nodes, b->final.nodes, "%s: %" PRIu64 " nodes, then %" PRIu64, what, a->final.nodes,
                 b->final.nodes);
    cr_assert_eq(a->ninfo, b->ninfo, "%s: %d info reports, then %d", what, a->ninfo, b->ninfo);
    for (int i = 0; i < a->ninfo && i < 4 * MAX_PLY; i++) {
        const search_info_t *x = &a->info[i], *y = &b->info[i];
        cr_assert(x->depth == y->depth && x->seldepth == y->seldepth && x->multipv == y->multipv &&
                      x->score == y->score && x->bound == y->bound && x->nodes == y->nodes && x->pv_len == y->pv_len &&
                      memcmp(x->pv, y->pv, (size_t)x->pv_len * sizeof(move_t)) == 0,
                  "%s: info %d differs", what, i + 1);
    }
}

Test(search, node_limited_search_is_deterministic)
{
    static const char *const moves[] = {"C3", "A1B2", "D4", "E5D5", "B4"};
    engine_t *e = engine_new(), *f = engine_new();
    cr_assert(e && f);
    game_t g;
    game_from(&g, NULL, REP_FORBID);
    for (int pass = 0; pass < 2; pass++) {
        record_t a, b, c;
        engine_clear(e);
        search_game(e, &g, 0, 20000, &a);
        cr_assert_eq(a.final.nodes, 20000, "nodes 20000 searched %" PRIu64 " nodes", a.final.nodes);
        cr_assert(game_is_legal_move(&g, a.best));
        engine_clear(e);
        search_game(e, &g, 0, 20000, &b);
        check_same_record(&a, &b, "the same engine after engine_clear");
        /* Engines share nothing: another one searches the same tree. */
        engine_clear(f);
        search_game(f, &g, 0, 20000, &c);
        check_same_record(&a, &c, "a second engine");
        for (size_t i = 0; pass == 0 && i < sizeof moves / sizeof *moves; i++)
            play_text(&g, moves[i]);
    }
    game_free(&g);
    engine_free(e);
    engine_free(f);
}

Test(search, two_threads_search_legally)
{
    engine_t *e = engine_new();
    cr_assert_not_null(e);
    cr_assert(engine_set_threads(e, 2));
    uint32_t seed = 4242u;
    for (int k = 0; k < 20; k++) {
        game_t g;
        game_from(&g, NULL, REP_FORBID);
        int len = (int)(rng_next(&seed) % 80);
        for (int i = 0; i < len && game_result(&g).reason == RESULT_NONE; i++) {
            move_t list[MAX_MOVES];
            int n = game_legal_moves(&g, list);
            move_t m = list[rng_next(&seed) % (uint32_t)n];
            if (move_kind(m) == MOVE_JUMP && game_position(&g)->captured == 4)
                break;
            cr_assert_eq(game_play(&g, m, NULL, 0), BC_OK);
        }
        if (game_result(&g).reason == RESULT_NONE) {
            record_t r;
            search_game(e, &g, k % 2 ? 7 : 0, k % 2 ? 0 : 30000, &r);
            cr_assert(game_is_legal_move(&g, r.best), "two threads: an illegal bestmove");
            cr_assert_eq(r.final.pv[0], r.best);
        }
        game_free(&g);
    }
    /* The mates are found with two threads too. */
    for (int i = 0; i < MATES_COUNT; i++) {
        engine_clear(e);
        check_mate_search(e, &MATES[i], 10);
    }
    engine_free(e);
}

/* ---- transposition table ---- */

Test(search, tt_store_and_probe_round_trip)
{
    tt_t tt;
    tt_init(&tt);
    cr_assert(tt_resize(&tt, 1));
    cr_assert_gt(tt.count, 0);
    tt_new_search(&tt);
    static const struct {
        uint64_t key;
        int score, eval, depth, bound;
    } cases[] = {
        {0x0123456789ABCDEFull, 37, -12, 5, BOUND_EXACT},
        {0xFEDCBA9876543210ull, -250, 400, 1, BOUND_LOWER},
        {0x1111222233334444ull, SCORE_MATE - 3, -32000, 60, BOUND_UPPER},
        {0x5555666677778888ull, -(SCORE_MATE - 8), 0, 0, BOUND_EXACT},
        {0x9999AAAABBBBCCCCull, 0, 31000, 127, BOUND_LOWER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        move_t m = move_make(MOVE_STEP, (int)i, (int)i + 5);
        tt_store(&tt, cases[i].key, m, cases[i].score, cases[i].eval, cases[i].depth, cases[i].bound);
    }
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tt_hit_t h;
        cr_assert(tt_probe(&tt, cases[i].key, &h), "entry %zu not found", i);
        cr_assert_eq(h.move, move_make(MOVE_STEP, (int)i, (int)i + 5));
        cr_assert_eq(h.score, cases[i].score, "entry %zu: score %d, stored %d", i, h.score, cases[i].score);
        cr_assert_eq(h.eval, cases[i].eval);
        cr_assert_eq(h.depth, cases[i].depth);
        cr_assert_eq(h.bound, cases[i].bound);
    }
    tt_hit_t h;
    cr_assert(!tt_probe(&tt, 0x0123456789ABCDEEull, &h), "a key never stored is found");
    /* A key sharing the bucket but not the rest is not confused with the stored one. */
    cr_assert(!tt_probe(&tt, cases[0].key ^ ((uint64_t)1 << 60), &h), "a different key of the same bucket is found");
    tt_clear(&tt);
    cr_assert(!tt_probe(&tt, cases[0].key, &h), "found after tt_clear");
    tt_free(&tt);
}

/* Eager tables of 2 MB and more are laid on 2 MB boundaries (for huge pages) and written
 * through when made and when cleared, lazy ones are fresh zero pages: every size, either way
 * and after a change of way, keeps and forgets entries alike. */
Test(search, tt_large_tables_are_aligned_and_cleared)
{
    tt_t tt;
    tt_init(&tt);
    cr_assert_not(tt.eager, "a new table is eager");
    static const size_t sizes[] = {1, 4, 8, 2, 4, 16, 8};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        if (s == 2)
            tt_set_eager(&tt, true); /* from 8 MB on, eager; lazy again for the last two */
        if (s == 5)
            tt_set_eager(&tt, false);
        cr_assert(tt_resize(&tt, sizes[s]), "a table of %zu MB was refused", sizes[s]);
        cr_assert_eq(tt.count * sizeof(tt_bucket_t), sizes[s] << 20);
        size_t align = tt.eager && sizes[s] >= 2 ? (size_t)2 << 20 : 64;
        cr_assert_eq((uintptr_t)tt.buckets % align, 0, "a %zu MB table at %p", sizes[s], (void *)tt.buckets);
        tt_hit_t h;
        uint64_t key = 0x0123456789ABCDEFull + s;
        cr_assert(!tt_probe(&tt, key - 1, &h), "a new %zu MB table holds the last table's entry", sizes[s]);
        tt_new_search(&tt);
        tt_store(&tt, key, move_make(MOVE_PLACE, 7, 7), 11, 22, 3, BOUND_EXACT);
        tt_store(&tt, ~key, MOVE_NONE, -5, 0, 1, BOUND_UPPER);
        cr_assert(tt_probe(&tt, key, &h) && h.score == 11 && h.depth == 3);
        tt_clear(&tt);
        cr_assert(!tt_probe(&tt, key, &h) && !tt_probe(&tt, ~key, &h), "found after clearing a %zu MB table", sizes[s]);
        tt_store(&tt, key, MOVE_NONE, 1, 0, 1, BOUND_LOWER); /* left for the next size */
    }
    /* A change of way empties the table; setting the same way again keeps it. */
    tt_hit_t h;
    uint64_t key = 0x0123456789ABCDEFull + 6;
    cr_assert(tt_probe(&tt, key, &h));
    tt_set_eager(&tt, false);
    cr_assert(tt_probe(&tt, key, &h), "setting the way the table already has emptied it");
    tt_set_eager(&tt, true);
    cr_assert_not(tt_probe(&tt, key, &h), "found after the table became eager");
    tt_store(&tt, key, MOVE_NONE, 1, 0, 1, BOUND_LOWER);
    tt_set_eager(&tt, false);
    cr_assert_not(tt_probe(&tt, key, &h), "found after the table became lazy");
    tt_free(&tt);
}

Test(search, tt_keeps_deep_entries_and_ages_them)
{
    tt_t tt;
    tt_init(&tt);
    cr_assert(tt_resize(&tt, 1));
    tt_new_search(&tt);
    /* Keys with the same low bits share a bucket. */
    uint64_t base = 0x00C0FFEE00000000ull | 77u, step = (uint64_t)tt.count;
    move_t deep_move = move_make(MOVE_PLACE, 12, 12);
    tt_store(&tt, base, deep_move, 55, 10, 20, BOUND_EXACT);
    for (uint64_t i = 1; i <= 40; i++)
        tt_store(&tt, base + i * step * 0x10001ull, move_make(MOVE_PLACE, 3, 3), -5, 0, 1, BOUND_UPPER);
    tt_hit_t h;
    cr_assert(tt_probe(&tt, base, &h), "40 shallow entries pushed out a depth 20 entry");
    cr_assert_eq(h.depth, 20);
    cr_assert_eq(h.move, deep_move);
    cr_assert_eq(h.score, 55);
    /* The newest shallow entry is kept somewhere too. */
    cr_assert(tt_probe(&tt, base + 40 * step * 0x10001ull, &h), "the latest entry was not stored");

    /* Many searches later the deep entry is old and gives way to fresh ones. */
    for (int i = 0; i < 30; i++)
        tt_new_search(&tt);
    for (uint64_t i = 41; i <= 48; i++)
        tt_store(&tt, base + i * step * 0x10001ull, move_make(MOVE_PLACE, 4, 4), 1, 0, 1, BOUND_UPPER);
    cr_assert(!tt_probe(&tt, base, &h), "an entry 30 searches old is never replaced");
    tt_free(&tt);
}

Test(search, tt_hashfull_counts_this_search)
{
    tt_t tt;
    tt_init(&tt);
    cr_assert(tt_resize(&tt, 1));
    tt_new_search(&tt);
    cr_assert_eq(tt_hashfull(&tt), 0, "an empty table is %d permille full", tt_hashfull(&tt));
    uint32_t seed = 99u;
    int last = 0;
    for (int round = 0; round < 4; round++) {
        for (size_t i = 0; i < tt.count; i++) {
            uint64_t key = (uint64_t)rng_next(&seed) << 32 | rng_next(&seed);
            tt_store(&tt, key, MOVE_NONE, 0, 0, 1 + round, BOUND_EXACT);
        }
        int now = tt_hashfull(&tt);
        cr_assert_gt(now, last, "hashfull %d after round %d, %d before", now, round + 1, last);
        cr_assert_leq(now, 1000);
        last = now;
    }
    cr_assert_geq(last, 500, "four entries per bucket written, hashfull only %d", last);
    tt_new_search(&tt);
    cr_assert_eq(tt_hashfull(&tt), 0, "hashfull counts the earlier search: %d", tt_hashfull(&tt));
    tt_free(&tt);
}

Test(search, hashfull_is_reported_by_the_search)
{
    engine_t *e = engine_new();
    cr_assert_not_null(e);
    cr_assert(engine_set_hash(e, 1));
    game_t g;
    game_from(&g, NULL, REP_FORBID);
    play_text(&g, "C3");
    record_t r;
    search_game(e, &g, 0, 200000, &r);
    cr_assert_gt(r.final.hashfull, 0, "200000 nodes in 1 MB and hashfull 0");
    cr_assert_leq(r.final.hashfull, 1000);
    for (int i = 1; i < r.ninfo && i < 4 * MAX_PLY; i++)
        cr_assert_geq(r.info[i].hashfull, r.info[i - 1].hashfull, "hashfull fell during one search");
    game_free(&g);
    engine_free(e);
}

/* ---- time management ---- */

Test(search, timeman_keeps_the_overhead)
{
    /* 50 ms left, 30 ms overhead: at most a third of the remaining 20 ms. */
    for (int in_hand = 0; in_hand <= 20; in_hand++) {
        tm_budget_t b = tm_init(50, 0, 0, 30, in_hand);
        cr_assert_lt(b.maximum_ms, 20, "in hand %d: maximum %" PRId64 " ms of 50 with 30 overhead", in_hand,
                     b.maximum_ms);
        cr_assert_leq(b.maximum_ms * 3, 20, "in hand %d: maximum %" PRId64 " ms, more than a third of 20", in_hand,
                      b.maximum_ms);
        cr_assert_leq(b.optimum_ms, b.maximum_ms);
        cr_assert_gt(b.optimum_ms, 0);
    }
    static const int64_t times[] = {0, 1, 10, 29, 30, 31, 50, 100, 1000, 10000, 60000, 600000, 36000000};
    static const int64_t incs[] = {0, 10, 100, 1000, 5000};
    static const int mtgs[] = {0, 1, 2, 10, 40, 1000};
    static const int64_t overheads[] = {0, 30, 100, 1000, 5000};
    for (size_t a = 0; a < sizeof times / sizeof *times; a++)
        for (size_t b = 0; b < sizeof incs / sizeof *incs; b++)
            for (size_t c = 0; c < sizeof mtgs / sizeof *mtgs; c++)
                for (size_t d = 0; d < sizeof overheads / sizeof *overheads; d++)
                    for (int in_hand = 0; in_hand <= 20; in_hand += 10) {
                        tm_budget_t t = tm_init(times[a], incs[b], mtgs[c], overheads[d], in_hand);
                        cr_assert(t.optimum_ms > 0 && t.optimum_ms <= t.maximum_ms,
                                  "tm_init(%" PRId64 ", %" PRId64 ", %d, %" PRId64 ", %d): optimum %" PRId64
                                  ", maximum %" PRId64,
                                  times[a], incs[b], mtgs[c], overheads[d], in_hand, t.optimum_ms, t.maximum_ms);
                        int64_t usable = times[a] - overheads[d];
                        if (usable > 1)
                            cr_assert_leq(t.maximum_ms, usable,
                                          "tm_init(%" PRId64 ", %" PRId64 ", %d, %" PRId64 ", %d): maximum %" PRId64
                                          " lets the clock fall below the overhead",
                                          times[a], incs[b], mtgs[c], overheads[d], in_hand, t.maximum_ms);
                    }
}

Test(search, timeman_budgets_follow_the_clock)
{
    for (int in_hand = 0; in_hand <= 20; in_hand += 5) {
        tm_budget_t plain = tm_init(10000, 0, 0, 30, in_hand);
        tm_budget_t inc = tm_init(10000, 1000, 0, 30, in_hand);
        cr_assert_gt(inc.optimum_ms, plain.optimum_ms, "an increment does not raise the optimum");
        cr_assert_gt(inc.maximum_ms, plain.maximum_ms, "an increment does not raise the maximum");
        tm_budget_t more = tm_init(60000, 0, 0, 30, in_hand);
        cr_assert_gt(more.optimum_ms, plain.optimum_ms, "more time left, no more time planned");
        cr_assert_geq(more.maximum_ms, plain.maximum_ms);
        /* The last move before the time control may use most of what is left. */
        tm_budget_t last = tm_init(10000, 0, 1, 30, in_hand);
        cr_assert_gt(last.maximum_ms, (10000 - 30) / 2, "movestogo 1: maximum %" PRId64 " of 9970 ms",
                     last.maximum_ms);
        cr_assert_gt(last.optimum_ms, (10000 - 30) / 2, "movestogo 1: optimum %" PRId64 " of 9970 ms",
                     last.optimum_ms);
        cr_assert_leq(last.maximum_ms, 10000 - 30);
        tm_budget_t ten = tm_init(10000, 0, 10, 30, in_hand);
        cr_assert_gt(last.optimum_ms, ten.optimum_ms);
        cr_assert_gt(ten.optimum_ms, plain.optimum_ms, "10 moves to the control get no more than a whole game");
        /* A larger overhead leaves less to spend. */
        tm_budget_t careful = tm_init(10000, 0, 0, 3000, in_hand);
        cr_assert_lt(careful.maximum_ms, plain.maximum_ms);
    }
    /* With goats still to place the plan covers more moves: no more time per move. */
    tm_budget_t placing = tm_init(60000, 0, 0, 30, 20), moving = tm_init(60000, 0, 0, 30, 0);
    cr_assert_leq(placing.optimum_ms, moving.optimum_ms);
    /* tm_adjusted scales the optimum and never passes the maximum. */
    tm_budget_t b = tm_init(60000, 0, 0, 30, 10);
    cr_assert_eq(tm_adjusted(&b, 100), b.optimum_ms);
    cr_assert_lt(tm_adjusted(&b, 50), b.optimum_ms);
    cr_assert_gt(tm_adjusted(&b, 150), b.optimum_ms);
    cr_assert_eq(tm_adjusted(&b, 100000), b.maximum_ms);
}

Test(search, time_lost_before_the_search_counts)
{
    /* A go that arrived 60 ms before the search could start (a busy machine, a page fault):
     * movetime 100 leaves 20 ms of the 80 the engine aims at, counted from the go. */
    engine_t *e = engine_new();
    cr_assert_not_null(e);
    game_t g;
    game_from(&g, NULL, REP_FORBID);
    cr_assert(engine_set_game(e, &g));
    /* The fastest of three searches: a busy machine (the suites run two at a time, and the
     * first search touches the hash table's pages) only adds to each. */
    int64_t fastest = INT64_MAX;
    for (int run = 0; run < 3; run++) {
        search_limits_t l;
        search_limits_init(&l);
        l.movetime = 100;
        l.start_ms = search_now_ms() - 60;
        record_t r;
        int64_t spent = timed_search(e, &l, &r);
        fastest = spent < fastest ? spent : fastest;
        cr_assert_eq(r.nbest, 1);
        cr_assert_geq(r.final.time_ms, 75, "the time reported counts from the go: %" PRId64 " ms", r.final.time_ms);
    }
    /* Not counting the lost time would spend 80 ms each time; 30 ms of slack still tells the
     * two apart. */
    cr_assert_leq(fastest, 20 + 30 * SLOW, "the search took %" PRId64 " ms of the 20 left", fastest);
    game_free(&g);
    engine_free(e);
}

Test(search, a_clock_search_keeps_its_maximum)
{
    engine_t *e = engine_new();
    cr_assert_not_null(e);
    game_t g;
    game_from(&g, NULL, REP_FORBID);
    play_text(&g, "C3");
    play_text(&g, "A1B2");
    cr_assert(engine_set_game(e, &g));
    search_limits_t l;
    search_limits_init(&l);
    l.time[GOATS] = 50;
    l.time[TIGERS] = 50;
    record_t r;
    int64_t spent = timed_search(e, &l, &r);
    cr_assert_eq(r.nbest, 1);
    cr_assert(game_is_legal_move(&g, r.best));
    /* 50 ms left and 30 ms overhead: 20 ms at most, and a busy machine's scheduling (15 ms),
     * short of the 50 ms of a search that forgets the overhead. */
    cr_assert_leq(r.final.time_ms, 35 * SLOW, "a 50 ms clock search reports %" PRId64 " ms", r.final.time_ms);
    cr_assert_leq(spent, 35 * SLOW, "a 50 ms clock search took %" PRId64 " ms", spent);
    game_free(&g);
    engine_free(e);
}

/* ---- the poll ---- */

typedef struct {
    engine_t *e;
    int calls;
    int stop_at; /* engine_abort at this call; 0: never */
} polls_t;

static void count_polls(void *ctx)
{
    polls_t *p = ctx;
    if (++p->calls == p->stop_at) {
        engine_abort(p->e); /* a search of engine_search_sync */
        engine_stop(p->e);  /* a bench: the search of its private engine too */
    }
}

Test(search, the_poll_is_called_every_256_nodes_and_can_stop_the_search)
{
    engine_t *e = engine_new();
    cr_assert_not_null(e);
    game_t g;
    game_from(&g, NULL, REP_FORBID);
    /* Called every 256 nodes, and nothing else changes: the same search, node for node. */
    record_t plain, polled;
    search_game(e, &g, 0, 20000, &plain);
    polls_t p = {e, 0, 0};
    engine_set_poll(e, count_polls, &p);
    engine_clear(e);
    search_game(e, &g, 0, 20000, &polled);
    check_same_record(&plain, &polled, "a search with a poll");
    cr_assert_eq(p.calls, 20000 / 256, "%d polls in 20000 nodes", p.calls);
    /* A stop made in the poll ends the search there: a search to depth 60 ends after 10
     * polls, with a legal move. */
    engine_clear(e);
    p = (polls_t){e, 0, 10};
    record_t r;
    search_game(e, &g, 60, 0, &r);
    cr_assert_eq(p.calls, 10, "the search went on to poll %d times", p.calls);
    cr_assert_lt(r.final.nodes, 11 * 256, "%" PRIu64 " nodes after a stop at node 2560", r.final.nodes);
    cr_assert(game_is_legal_move(&g, r.best));
    /* NULL: no poll again. */
    engine_set_poll(e, NULL, NULL);
    p.calls = 0;
    search_game(e, &g, 0, 5000, &r);
    cr_assert_eq(p.calls, 0);
    game_free(&g);
    engine_free(e);
}

static void bench_into(void *ctx, const bench_result_t *r) { *(bench_result_t *)ctx = *r; }

Test(search, the_bench_polls_too)
{
    engine_t *e = engine_new();
    cr_assert_not_null(e);
    bench_result_t plain = {0}, polled = {0};
    cr_assert(engine_bench(e, 4, bench_into, &plain));
    engine_wait(e);
    polls_t p = {e, 0, 0};
    engine_set_poll(e, count_polls, &p);
    cr_assert(engine_bench(e, 4, bench_into, &polled));
    engine_wait(e);
    cr_assert_eq(polled.searched, BENCH_POSITIONS_COUNT);
    cr_assert_eq(polled.nodes, plain.nodes, "bench 4: %" PRIu64 " nodes with a poll, %" PRIu64 " without",
                 polled.nodes, plain.nodes);
    cr_assert(p.calls > 0 && (uint64_t)p.calls <= polled.nodes / 256, "%d polls in %" PRIu64 " nodes", p.calls,
              polled.nodes);
    /* And a stop made there ends it. */
    p = (polls_t){e, 0, 3};
    cr_assert(engine_bench(e, 12, bench_into, &polled));
    engine_wait(e);
    cr_assert(polled.stopped);
    cr_assert_eq(p.calls, 3);
    engine_free(e);
}

/* ---- evaluation ---- */

/* The weights the engine evaluates with: the tuned ones built into the library. */
static eval_params_t tuned_weights(void)
{
    eval_params_t w;
    char msg[160] = "";
    cr_assert(eval_params_load(&w, EVAL_TUNED_DATA, EVAL_TUNED_SIZE, msg, sizeof msg), "%s", msg);
    return w;
}

Test(search, eval_terms_are_named)
{
    for (int i = 0; i < EV_TERM_NB; i++) {
        cr_assert_not_null(EVAL_WEIGHTS[i].name, "term %d has no name", i);
        cr_assert_gt(strlen(EVAL_WEIGHTS[i].name), 0, "term %d has an empty name", i);
        cr_assert(EVAL_WEIGHTS[i].name[0] != ' ' && EVAL_WEIGHTS[i].name[strlen(EVAL_WEIGHTS[i].name) - 1] != ' ',
                  "term %d: '%s'", i, EVAL_WEIGHTS[i].name);
        for (int k = 0; k < i; k++)
            cr_assert_str_neq(EVAL_WEIGHTS[i].name, EVAL_WEIGHTS[k].name, "two terms named '%s'", EVAL_WEIGHTS[i].name);
    }
}

/* The trace adds up: each value is the count tapered by the goats placed, and the total is
 * the tapered sum. */
static void check_trace_sums(const position_t *p, const eval_trace_t *t)
{
    eval_params_t w = tuned_weights();
    int placed = BC_GOATS_TOTAL - p->in_hand;
    long mg = 0, eg = 0;
    for (int i = 0; i < EV_TERM_NB; i++) {
        long v = ((long)t->count[i] * w.mg[i] * p->in_hand + (long)t->count[i] * w.eg[i] * placed) / BC_GOATS_TOTAL;
        cr_assert_eq(t->value[i], v, "%s: value %d for count %d", EVAL_WEIGHTS[i].name, t->value[i], t->count[i]);
        mg += (long)t->count[i] * w.mg[i];
        eg += (long)t->count[i] * w.eg[i];
    }
    cr_assert_eq(t->total, (mg * p->in_hand + eg * placed) / BC_GOATS_TOTAL);
}

static void check_eval_symmetry(const position_t *given)
{
    eval_params_t w = tuned_weights();
    position_t g = *given, t = *given;
    g.side = GOATS;
    t.side = TIGERS;
    g.key = position_compute_key(&g);
    t.key = position_compute_key(&t);
    eval_trace_t tg, tt;
    int total_g = eval_trace(&w, &g, &tg), total_t = eval_trace(&w, &t, &tt);
    cr_assert_eq(total_g, tg.total);
    cr_assert_eq(eval_position(&w, &g), total_g, "goats to move: eval_position is not the goats' view");
    cr_assert_eq(eval_position(&w, &t), -total_t, "tigers to move: eval_position is not the tigers' view");
    check_trace_sums(&g, &tg);
    check_trace_sums(&t, &tt);
    /* Only the terms about who is to move differ. */
    for (int i = 0; i < EV_TERM_NB; i++) {
        if (i == EV_TEMPO || i == EV_HANGING)
            continue;
        cr_assert_eq(tg.count[i], tt.count[i], "%s counts %d with goats to move, %d with tigers", EVAL_WEIGHTS[i].name,
                     tg.count[i], tt.count[i]);
        cr_assert_eq(tg.value[i], tt.value[i]);
    }
    cr_assert_eq(tg.count[EV_TEMPO], 1);
    cr_assert_eq(tt.count[EV_TEMPO], -1);
    if (capturable_goats(g.tigers, g.goats) == 0) {
        /* Nothing hangs: the goats' view equals minus the tigers' view apart from the tempo
         * (the taper rounds both totals and both tempo values: that may move it by two). */
        cr_assert_eq(tg.count[EV_HANGING], 0);
        cr_assert_eq(tt.count[EV_HANGING], 0);
        int diff = eval_position(&w, &g) + eval_position(&w, &t) - (tg.value[EV_TEMPO] - tt.value[EV_TEMPO]);
        cr_assert(diff >= -2 && diff <= 2, "goats' view %d, tigers' view %d, tempo %d / %d", eval_position(&w, &g),
                  eval_position(&w, &t), tg.value[EV_TEMPO], tt.value[EV_TEMPO]);
    }
}

Test(search, eval_is_symmetric_apart_from_the_side_to_move)
{
    uint32_t seed = 31337u;
    int quiet = 0;
    for (int k = 0; k < 400; k++) {
        game_t g;
        game_from(&g, NULL, REP_FORBID);
        int len = 1 + (int)(rng_next(&seed) % 120);
        for (int i = 0; i < len && game_result(&g).reason == RESULT_NONE; i++) {
            move_t list[MAX_MOVES];
            int n = game_legal_moves(&g, list);
            cr_assert_eq(game_play(&g, list[rng_next(&seed) % (uint32_t)n], NULL, 0), BC_OK);
        }
        const position_t *p = game_position(&g);
        if (p->in_hand < BC_GOATS_TOTAL) {
            check_eval_symmetry(p);
            quiet += capturable_goats(p->tigers, p->goats) == 0;
        }
        game_free(&g);
    }
    cr_assert_geq(quiet, 20, "only %d positions without a capturable goat", quiet);
}

Test(search, eval_counts_what_its_terms_say)
{
    eval_params_t w = tuned_weights();
    position_t p;
    eval_trace_t t;
    /* The start: four corner tigers with three steps each, 21 empty points to reach, no goat. */
    position_set_start(&p);
    eval_trace(&w, &p, &t);
    cr_assert_eq(t.count[EV_CAPTURED], 0);
    cr_assert_eq(t.count[EV_TIGER_MOBILITY], 12);
    cr_assert_eq(t.count[EV_TRAPPED_TIGERS], 0);
    cr_assert_eq(t.count[EV_CAPTURABLE], 0);
    cr_assert_eq(t.count[EV_TIGER_SPACE], 21);
    cr_assert_eq(t.count[EV_TIGER_CENTRE], 4, "corners are eight-line points");
    cr_assert_eq(t.count[EV_TEMPO], 1);
    /* The four corner tigers walled in: no tiger move, all four trapped, nothing to capture. */
    cr_assert_eq(obx_parse("TTGGX/TTGGX/GGGXX/GGXGX/XXXXX t @10 c0", &p, NULL, NULL, 0), BC_OK);
    eval_trace(&w, &p, &t);
    cr_assert_eq(t.count[EV_TIGER_MOBILITY], 0);
    cr_assert_eq(t.count[EV_TRAPPED_TIGERS], 4);
    cr_assert_eq(t.count[EV_CAPTURABLE], 0);
    cr_assert_eq(t.count[EV_TIGER_SPACE], 0);
    cr_assert_eq(t.count[EV_TEMPO], -1);
    /* The fork: C3 attacks C2 and B3, four goats are gone, goats to move face two threats. */
    cr_assert_eq(obx_parse("XXXXT/XXGXX/XGTXX/XXXXX/TXXXT g @14 c4", &p, NULL, NULL, 0), BC_OK);
    eval_trace(&w, &p, &t);
    cr_assert_eq(t.count[EV_CAPTURED], 4);
    cr_assert_eq(t.count[EV_CAPTURABLE], 2);
    cr_assert_eq(t.count[EV_HANGING], 1);
    cr_assert_eq(t.count[EV_CORNER_GOATS], 0);
    /* Goats on the four corners are corner and edge goats and can never be captured. */
    cr_assert_eq(obx_parse("GXXXG/XTXTX/XXXXX/XTXTX/GXXXG t @16 c0", &p, NULL, NULL, 0), BC_OK);
    eval_trace(&w, &p, &t);
    cr_assert_eq(t.count[EV_CORNER_GOATS], 4);
    cr_assert_eq(t.count[EV_EDGE_GOATS], 4);
    cr_assert_eq(t.count[EV_CAPTURABLE], 0);
    cr_assert_eq(t.count[EV_TRAPPED_TIGERS], 0);
    /* More goats captured is worse for the goats, whoever is to move. */
    position_t a, b;
    cr_assert_eq(obx_parse("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0", &a, NULL, NULL, 0), BC_OK);
    cr_assert_eq(obx_parse("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @17 c2", &b, NULL, NULL, 0), BC_OK);
    cr_assert_gt(eval_position(&w, &b), eval_position(&w, &a), "tigers to move: two captures do not help them");
}
