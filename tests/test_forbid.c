/* The no-repetition rule with the draw-rule solution (engine/forbid.c), checked against an
 * exhaustive search of the game with its history, written on the suite's own rules
 * (tests/support/reference.c) and knowing nothing of the database. Small games where that
 * search finishes: 20 goats with the first capture winning (one empty point in the movement
 * phase; the placement phase with one and two goats in hand), and 20 goats with two
 * captures winning. Every result the prover proves, every database value the history's
 * bound lets stand, and what fb_settle says of positions after random histories, must be
 * the exhaustive search's. */
#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baghchal.h"
#include "pipe.h"
#include "reference.h"
#include "tb_build.h"
#include "tree.h"

#define TBGEN BAGHCHAL_BIN_DIR "/baghchal-tbgen"

enum {
    TOOL_MS = 300000,
    REF_DEPTH = 500,          /* the exhaustive search gives up deeper (its stack) */
    REF_NODES = 300000,       /* and after this many positions */
    PROVE_NODES = 200000
};

static char dirs[2][128];
static uint64_t ref_nodes = REF_NODES; /* the exhaustive search's budget per position */

static void cleanup(void)
{
    for (int i = 0; i < 2; i++)
        if (dirs[i][0])
            tree_remove(dirs[i]);
}

TestSuite(forbid, .fini = cleanup, .timeout = 900);

/* Builds a small game with baghchal-tbgen (the placement phase up to max_in_hand goats in
 * hand when max_in_hand > 0) in a new folder, and opens it. */
static tb_t *build_game(int slot, int captures, int max_in_hand)
{
    snprintf(dirs[slot], sizeof dirs[slot], "/tmp/test_forbid.XXXXXX");
    cr_assert_not_null(mkdtemp(dirs[slot]));
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s %s --goats 20 --captures-to-win %d >/dev/null 2>&1", TBGEN, dirs[slot], captures);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    if (max_in_hand) {
        snprintf(cmd, sizeof cmd, "%s %s --goats 20 --captures-to-win %d --placement --max-in-hand %d >/dev/null 2>&1",
                 TBGEN, dirs[slot], captures, max_in_hand);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
    }
    tb_t *tb;
    char msg[256];
    cr_assert_eq(tb_open(dirs[slot], &tb, msg, sizeof msg), TB_OK, "%s", msg);
    return tb;
}

/* ---- The exhaustive search ------------------------------------------------------------ */

typedef struct {
    int captures_to_win;
    ref_pos_t line[REF_DEPTH + 8]; /* the game's history, then the line searched */
    int n;
    uint64_t nodes;
} xs_t;

/* A position (board and side to move) that the game or the line already had. */
static bool xs_seen(const xs_t *x, const ref_pos_t *c)
{
    for (int i = 0; i < x->n; i++)
        if (x->line[i].side == c->side && memcmp(x->line[i].board, c->board, REF_POINTS) == 0)
            return true;
    return false;
}

/* 1: the side to move of r wins under forbid; 0: it loses; -1: the search gave up. Captures
 * are tried first: with few captures to win they end lines at once. */
static int xs_solve(xs_t *x, const ref_pos_t *r)
{
    if (r->captured >= x->captures_to_win)
        return r->side == 'g' ? 0 : 1;
    if (++x->nodes > ref_nodes || x->n >= REF_DEPTH)
        return -1;
    ref_move_t mv[REF_MAX_MOVES];
    int n = ref_gen(r, mv), legal = 0;
    bool unknown = false;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            if ((mv[i].kind == REF_JUMP) != (pass == 0))
                continue;
            ref_pos_t c;
            ref_make(r, mv[i], &c);
            /* Forbid: once all goats are placed, no move recreates an earlier position. */
            if (r->in_hand == 0 && xs_seen(x, &c))
                continue;
            legal++;
            x->line[x->n++] = c;
            int v = xs_solve(x, &c);
            x->n--;
            if (v == 0)
                return 1;
            unknown |= v < 0;
        }
    if (!legal)
        return 0; /* no legal move: the side to move loses */
    return unknown ? -1 : 0;
}

/* The exhaustive result for g's current position, with g's history. */
static int xs_game(const game_t *g, int captures_to_win)
{
    xs_t *x = calloc(1, sizeof *x);
    cr_assert_not_null(x);
    x->captures_to_win = captures_to_win;
    for (size_t i = 0; i <= g->count; i++)
        ref_from_position(&g->history[i], &x->line[x->n++]);
    int v = xs_solve(x, &x->line[x->n - 1]);
    free(x);
    return v;
}

static uint64_t rng_next(uint64_t *s) { return ref_rand(s); }

static const char *obx_of(const position_t *p, char *buf, size_t len)
{
    obx_format(p, NULL, OBX_V2, buf, len);
    return buf;
}

/* A random position of the game's database of one layer (movement: in_hand 0), and its
 * draw-rule value. */
static void random_position(const tb_t *tb, const tbp_rank_t *rk, int in_hand, uint64_t *seed, position_t *p,
                            tb_value_t *v)
{
    int side = (int)(rng_next(seed) & 1);
    if (in_hand <= 0) {
        /* in_hand -1: the movement phase with no goat captured yet. */
        int c = in_hand < 0 ? 0 : (int)(rng_next(seed) % (uint64_t)tb_captures_to_win(tb));
        tb_entry(tb, c, side, rng_next(seed) % tb_slice_entries(tb, c), p, v);
        return;
    }
    uint64_t sets = 1;
    for (int j = 0; j < 20 - in_hand; j++)
        sets = sets * (uint64_t)(21 - j) / (uint64_t)(j + 1);
    for (;;) {
        tbp_entry_position(tb_index(tb), rk, 20, side, in_hand, 0, rng_next(seed) % (sets * TB_TIGER_CLASSES), p);
        if (tb_probe(tb, p, v))
            return;
    }
}

/* A random legal move of g that captures nothing (the histories stay in one slice and go
 * on: with one empty point a random tiger would soon capture), or MOVE_NONE. */
static move_t random_quiet_move(const game_t *g, uint64_t *seed)
{
    move_t m[MAX_MOVES], quiet[MAX_MOVES];
    int n = game_legal_moves(g, m), k = 0;
    for (int i = 0; i < n; i++)
        if (move_kind(m[i]) != MOVE_JUMP)
            quiet[k++] = m[i];
    return k ? quiet[rng_next(seed) % (uint64_t)k] : MOVE_NONE;
}

typedef struct {
    int sampled, exhaustive, proved, compared;
} tally_t;

/* The prover on `count` drawn positions of a layer, each against the exhaustive search. */
static void prove_draws(const tb_t *tb, int in_hand, int count, uint64_t seed, tally_t *t)
{
    tbp_rank_t rk;
    tbp_rank_init(&rk);
    fb_prover_t *pr = fb_prover_new(16);
    cr_assert_not_null(pr);
    while (t->sampled < count) {
        position_t p;
        tb_value_t v;
        random_position(tb, &rk, in_hand, &seed, &p, &v);
        if (v.wdl != TB_DRAW || count_moves(&p) == 0)
            continue;
        t->sampled++;
        game_t g;
        cr_assert(game_init(&g, &p, NULL, REP_FORBID));
        int x = xs_game(&g, tb_captures_to_win(tb));
        fb_limits_t lim = {PROVE_NODES, 0, NULL, NULL, NULL};
        fb_proof_t proof;
        fb_result_t r = fb_prove(pr, tb, &g, &lim, &proof);
        t->exhaustive += x >= 0;
        t->proved += r != FB_OPEN;
        if (x >= 0 && r != FB_OPEN) {
            char obx[OBX_MAX_LEN];
            cr_assert_eq(r == FB_WIN, x == 1, "%s: the prover says %s, the exhaustive search %s", obx_of(&p, obx, sizeof obx),
                         r == FB_WIN ? "win" : "loss", x ? "win" : "loss");
            t->compared++;
        }
        /* A proven win comes with a first move that wins: the position after it is lost. */
        if (r == FB_WIN) {
            fb_proof_t after;
            cr_assert_eq(fb_prove_after(pr, tb, &g, proof.move, &lim, &after), FB_LOSS);
        }
        game_free(&g);
    }
    fb_prover_free(pr);
    cr_log_info("%d drawn positions with %d in hand (-1: none captured): the exhaustive search settled %d, the prover %d, compared %d",
                t->sampled, in_hand, t->exhaustive, t->proved, t->compared);
}

Test(forbid, prover_agrees_with_the_exhaustive_search_first_capture_wins)
{
    tb_t *tb = build_game(0, 1, 2);
    for (int in_hand = 0; in_hand <= 2; in_hand++) {
        tally_t t = {0};
        prove_draws(tb, in_hand, in_hand == 0 ? 300 : in_hand == 1 ? 100 : 30, 11 + (uint64_t)in_hand, &t);
        /* Small regions: both settle nearly all of them. */
        cr_assert_geq(t.compared, t.sampled * 9 / 10, "only %d of %d compared", t.compared, t.sampled);
    }
    tb_close(tb);
}

/* A game of `plies` random moves that capture nothing from a random movement-phase position,
 * still going; false when the dice make none (g is then freed). */
static bool random_history(const tb_t *tb, const tbp_rank_t *rk, int plies, uint64_t *seed, game_t *g)
{
    position_t p;
    tb_value_t v;
    random_position(tb, rk, 0, seed, &p, &v);
    if (count_moves(&p) == 0)
        return false;
    cr_assert(game_init(g, &p, NULL, REP_FORBID));
    char msg[256];
    bool ok = true;
    for (int i = 0; i < plies && ok; i++) {
        move_t mv = random_quiet_move(g, seed);
        ok = mv != MOVE_NONE && game_play(g, mv, msg, sizeof msg) == BC_OK && game_result(g).reason == RESULT_NONE;
    }
    if (!ok)
        game_free(g);
    return ok;
}

/* ---- Histories: what holds, what is blocked ---------------------------------------------- */

/* Random games of `plies` moves from random positions: the database's value where the
 * history's bound lets it stand, and whatever fb_settle settles, must be the exhaustive
 * search's; and the histories must change some database result (or the check proves
 * nothing). */
static void check_histories(const tb_t *tb, int games, int plies, uint64_t seed)
{
    tbp_rank_t rk;
    tbp_rank_init(&rk);
    fb_prover_t *pr = fb_prover_new(16);
    cr_assert_not_null(pr);
    int k = tb_captures_to_win(tb), done = 0, bound_holds = 0, settled = 0, compared = 0, changed = 0, verified = 0;
    char obx[OBX_MAX_LEN];
    while (done < games) {
        game_t g;
        if (!random_history(tb, &rk, plies, &seed, &g))
            continue;
        done++;
        const position_t *q = game_position(&g);
        int x = xs_game(&g, k);
        tb_value_t qv;
        cr_assert(tb_probe(tb, q, &qv));
        fb_history_t h;
        fb_history_init(&h, tb, &g);
        if (qv.wdl != TB_DRAW && fb_value_holds(&h, q, qv)) {
            bound_holds++;
            if (x >= 0)
                cr_assert_eq(x == 1, qv.wdl == TB_WIN, "%s: the bound lets the database's %s stand, the search says %s",
                             obx_of(q, obx, sizeof obx), qv.wdl == TB_WIN ? "win" : "loss", x ? "win" : "loss");
        } else if (qv.wdl != TB_DRAW && fb_verify(tb, &g, q, qv, 0)) {
            verified++;
            if (x >= 0)
                cr_assert_eq(x == 1, qv.wdl == TB_WIN, "%s: fb_verify lets the database's %s stand, the search says %s",
                             obx_of(q, obx, sizeof obx), qv.wdl == TB_WIN ? "win" : "loss", x ? "win" : "loss");
        }
        if (x >= 0 && qv.wdl != TB_DRAW && (x == 1) != (qv.wdl == TB_WIN))
            changed++;
        fb_settled_t s;
        fb_settle(pr, tb, &g, MOVE_NONE, PROVE_NODES, &s);
        settled += s.result != FB_OPEN;
        if (x >= 0 && s.result != FB_OPEN) {
            cr_assert_eq(s.result == FB_WIN, x == 1, "%s after %zu plies: settled as %s, the search says %s",
                         obx_of(q, obx, sizeof obx), g.count, s.result == FB_WIN ? "win" : "loss", x ? "win" : "loss");
            compared++;
        }
        game_free(&g);
    }
    fb_prover_free(pr);
    cr_log_info("%d games of %d plies: the bound let %d database values stand, fb_verify %d more; the history changed "
                "%d results; settled %d, compared %d",
                done, plies, bound_holds, verified, changed, settled, compared);
    cr_assert_geq(compared, games * 3 / 10);
    cr_assert_gt(bound_holds, 0);
}

Test(forbid, settled_values_hold_after_random_histories)
{
    tb_t *tb = build_game(0, 1, 0);
    check_histories(tb, 300, 6, 3);
    check_histories(tb, 300, 20, 4);
    tb_close(tb);
}

/* Histories long enough that the database's result changes: the settled value follows the
 * game, not the database. */
Test(forbid, the_history_can_change_a_database_result)
{
    tb_t *tb = build_game(0, 1, 0);
    tbp_rank_t rk;
    tbp_rank_init(&rk);
    fb_prover_t *pr = fb_prover_new(16);
    uint64_t seed = 99;
    int found = 0;
    for (int tries = 0; tries < 200000 && found < 3; tries++) {
        game_t g;
        if (!random_history(tb, &rk, 20, &seed, &g))
            continue;
        const position_t *q = game_position(&g);
        tb_value_t qv;
        if (tb_probe(tb, q, &qv) && qv.wdl != TB_DRAW) {
            int x = xs_game(&g, 1);
            if (x >= 0 && (x == 1) != (qv.wdl == TB_WIN)) {
                fb_history_t h;
                fb_history_init(&h, tb, &g);
                cr_assert_not(fb_value_holds(&h, q, qv), "the bound let a result stand that the history changed");
                cr_assert_not(fb_verify(tb, &g, q, qv, 0), "fb_verify let a result stand that the history changed");
                fb_settled_t s;
                fb_settle(pr, tb, &g, MOVE_NONE, PROVE_NODES, &s);
                cr_assert(s.result == FB_OPEN || (s.result == FB_WIN) == (x == 1));
                char text[64];
                fb_settled_text(&s, false, text, sizeof text);
                cr_assert(strncmp(text, qv.wdl == TB_WIN ? "win in" : "loss in", 6) != 0, "'%s'", text);
                found++;
            }
        }
        game_free(&g);
    }
    cr_assert_eq(found, 3, "only %d histories found that change a database result", found);
    fb_prover_free(pr);
    tb_close(tb);
}

/* The text of settled values: never a draw. */
Test(forbid, settled_text)
{
    char buf[64];
    fb_settled_t s = {.covered = true, .db = {TB_DRAW, 0}, .result = FB_OPEN, .distance = TB_DISTANCE_UNKNOWN};
    fb_settled_text(&s, false, buf, sizeof buf);
    cr_assert_str_eq(buf, "open");
    s.db = (tb_value_t){TB_WIN, 7};
    fb_settled_text(&s, false, buf, sizeof buf);
    cr_assert_str_eq(buf, "open (draw rule: win in 7)");
    fb_settled_text(&s, true, buf, sizeof buf);
    cr_assert_str_eq(buf, "open (draw rule: loss in 8)");
    s.result = FB_WIN;
    s.distance = 7;
    fb_settled_text(&s, false, buf, sizeof buf);
    cr_assert_str_eq(buf, "win in 7");
    fb_settled_text(&s, true, buf, sizeof buf);
    cr_assert_str_eq(buf, "loss in 8");
    s.distance = TB_DISTANCE_UNKNOWN;
    s.result = FB_LOSS;
    fb_settled_text(&s, false, buf, sizeof buf);
    cr_assert_str_eq(buf, "loss");
    fb_settled_text(&s, true, buf, sizeof buf);
    cr_assert_str_eq(buf, "win");
}

/* Two captures to win: lines that capture once go on in the next slice (the exhaustive
 * search settles few of its draws, whose regions are wide: random histories instead). */
Test(forbid, prover_agrees_with_the_exhaustive_search_two_captures_win)
{
    tb_t *tb = build_game(1, 2, 0);
    ref_nodes = 50000;
    check_histories(tb, 100, 8, 6);
    tb_close(tb);
}

/* baghchal-tbprove over a small game: every sampled position is accounted for, the prover
 * settles them (the regions are small), and bad usage is one line with status 2. */
static int run_tool(const char *cmd, char *out, size_t len)
{
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    size_t n = fread(out, 1, len - 1, f);
    out[n] = '\0';
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(forbid, tbprove_samples_and_counts)
{
    tb_t *tb = build_game(0, 1, 1);
    tb_close(tb);
    static char out[1 << 16];
    char cmd[512];
    for (int phase = 0; phase < 2; phase++) {
        snprintf(cmd, sizeof cmd, "%s/baghchal-tbprove %s --phase %s --sample 60 --nodes 200000 --threads 2 --seed 3 2>&1",
                 BAGHCHAL_BIN_DIR, dirs[0], phase ? "placement" : "movement");
        cr_assert_eq(run_tool(cmd, out, sizeof out), 0, "%s", out);
        const char *line = strstr(out, "60 positions: settled ");
        cr_assert_not_null(line, "%s", out);
        unsigned settled, gw, tw, open;
        cr_assert_eq(sscanf(line, "60 positions: settled %u (%*[^)]): goats win %u (%*[^)]), tigers win %u (%*[^)]); open %u",
                            &settled, &gw, &tw, &open),
                     4, "'%.200s'", line);
        cr_assert_eq(gw + tw, settled);
        cr_assert_eq(settled + open, 60);
        cr_assert_geq(settled, 55, "%s", out);
    }
    snprintf(cmd, sizeof cmd, "%s/baghchal-tbprove %s --sample 0 2>&1", BAGHCHAL_BIN_DIR, dirs[0]);
    cr_assert_eq(run_tool(cmd, out, sizeof out), 2);
    cr_assert_eq(strchr(out, '\n'), out + strlen(out) - 1, "more than one line: '%s'", out);
    snprintf(cmd, sizeof cmd, "%s/baghchal-tbprove /nonexistent 2>&1", BAGHCHAL_BIN_DIR);
    cr_assert_eq(run_tool(cmd, out, sizeof out), 2);
}
