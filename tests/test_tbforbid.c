/* Reduced games solved under `forbid` (engine/tb/tb_forbid.h): every movement position of the
 * 20-goat game that one capture wins, taken as a game's start, against a plain search of
 * positions with their history written here on the test suite's own rules
 * (tests/support/reference.c); a small game's placement phase and start; the file, its
 * resume and its errors. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "forbid.h"
#include "reference.h"
#include "tb_forbid.h"
#include "tree.h"

static char current_dir[128];
static tb_t *tbf_test_tb; /* the database the settler's prover reads */

static void cleanup(void)
{
    if (current_dir[0])
        tree_remove(current_dir);
}

TestSuite(tb_forbid, .fini = cleanup, .timeout = 300);

static void build_game(char *dir, size_t len, int goats, int k, bool placement)
{
    snprintf(dir, len, "/tmp/test_tbforbid.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(current_dir, sizeof current_dir, "%s", dir);
    char msg[256];
    tb_gen_options_t o;
    tb_gen_options_init(&o, dir);
    o.threads = 1, o.goats_total = goats, o.captures_to_win = k;
    cr_assert_eq(tb_generate(&o, msg, sizeof msg), TB_OK, "%s", msg);
    if (placement) {
        char work[256];
        snprintf(work, sizeof work, "%s/placement-work", dir);
        cr_assert_eq(mkdir(work, 0777), 0);
        tb_t *tb;
        cr_assert_eq(tb_open_movement(dir, &tb, msg, sizeof msg), TB_OK, "%s", msg);
        tbp_gen_options_t po;
        tbp_gen_options_init(&po, work);
        cr_assert_eq(tbp_generate(&po, tb, msg, sizeof msg), TB_OK, "%s", msg);
        char file[256];
        snprintf(file, sizeof file, "%s/%s", dir, TBP_FILE_NAME);
        tbp_merge_options_t m;
        tbp_merge_options_init(&m, work, file, goats, k);
        cr_assert_eq(tbp_merge(&m, msg, sizeof msg), TB_OK, "%s", msg);
        tb_close(tb);
    }
}

/* ---- The plain search: a game with its history, every line tried ----------------------- */

enum { MEMO_BITS = 22 };

typedef struct {
    int k;                 /* captures that win */
    ref_pos_t line[4096];  /* the game so far, the current position last */
    uint64_t hash[4096][2]; /* two hashes of each */
    int n;
    uint64_t nodes;
    /* What the search found, by (position, the set of positions before it): two 64-bit
     * hashes of each, the set's as a sum of its positions'; 0 empty, 1 loss, 2 win. */
    struct {
        uint64_t a, b;
        uint8_t v;
    } memo[1u << MEMO_BITS];
} line_t;

static bool same(const ref_pos_t *a, const ref_pos_t *b)
{
    return a->side == b->side && !memcmp(a->board, b->board, REF_POINTS);
}

static uint64_t fnv(const ref_pos_t *r, uint64_t basis)
{
    uint64_t h = basis;
    for (int i = 0; i < REF_POINTS; i++)
        h = (h ^ (uint8_t)r->board[i]) * 0x100000001B3ull;
    h = (h ^ (uint8_t)r->side) * 0x100000001B3ull;
    return h ^ h >> 29;
}

static void hash_last(line_t *g)
{
    g->hash[g->n - 1][0] = fnv(&g->line[g->n - 1], 0xCBF29CE484222325ull);
    g->hash[g->n - 1][1] = fnv(&g->line[g->n - 1], 0x84222325CBF29CE4ull);
}

/* Whether the side to move of the game's last position wins under forbid: a move made with
 * no goat in hand may not recreate any position of the game (board and side to move, the
 * placement phase's included); a side with no legal move loses; k captures win. */
static bool search_wins(line_t *g);

static bool wins(line_t *g)
{
    /* The set before the last position: movement positions only matter, but all are kept. */
    uint64_t a = g->hash[g->n - 1][0] * 0x9E3779B97F4A7C15ull, b = g->hash[g->n - 1][1] * 0xC2B2AE3D27D4EB4Full;
    for (int j = 0; j < g->n - 1; j++)
        a += g->hash[j][0], b += g->hash[j][1];
    uint32_t slot = (uint32_t)(a >> (64 - MEMO_BITS));
    if (g->memo[slot].v && g->memo[slot].a == a && g->memo[slot].b == b)
        return g->memo[slot].v == 2;
    bool w = search_wins(g);
    g->memo[slot].a = a, g->memo[slot].b = b, g->memo[slot].v = w ? 2 : 1;
    return w;
}

static bool search_wins(line_t *g)
{
    const ref_pos_t *r = &g->line[g->n - 1];
    g->nodes++;
    cr_assert_lt(g->n, 4096);
    ref_move_t mv[REF_MAX_MOVES];
    int nm = ref_gen(r, mv);
    /* Captures that end the game first: the search needs no order, this only makes it shorter. */
    for (int i = 0; i < nm; i++)
        if (mv[i].kind == REF_JUMP && r->captured + 1 >= g->k)
            return true;
    for (int i = 0; i < nm; i++) {
        ref_make(r, mv[i], &g->line[g->n]);
        bool legal = true;
        for (int j = 0; legal && r->in_hand == 0 && j < g->n; j++)
            legal = !same(&g->line[j], &g->line[g->n]);
        if (!legal)
            continue;
        g->n++;
        hash_last(g);
        bool lost = !wins(g);
        g->n--;
        if (lost)
            return true;
    }
    return false;
}

static void ref_of(int goats, const bb_t tigers, bb_t goatbb, int side, int captured, ref_pos_t *r)
{
    for (int i = 0; i < REF_POINTS; i++)
        r->board[i] = tigers >> i & 1 ? 'T' : goatbb >> i & 1 ? 'G' : 'X';
    r->side = side == GOATS ? 'g' : 't';
    r->in_hand = 0;
    r->captured = captured + (REF_GOATS - goats);
}

/* 20 goats, the first capture wins: slice 0 has one empty point, so a game from any of its
 * positions is short enough to try every line; 2,352 of its positions are the draw rule's
 * draws. Every entry, both sides, against the plain search from a fresh history. */
Test(tb_forbid, one_capture_game_every_position_against_the_plain_search)
{
    char dir[128], msg[256];
    build_game(dir, sizeof dir, 20, 1, false);
    tbf_build_options_t o;
    memset(&o, 0, sizeof o);
    o.dir = dir, o.threads = 1;
    tbf_options_init(&o.solve);
    tbf_header_t h;
    cr_assert_eq(tbf_build(&o, &h, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert_eq(h.slice[0].stats.draws[GOATS] + h.slice[0].stats.draws[TIGERS], 2352);
    cr_assert_eq(h.slice[0].stats.open[GOATS] + h.slice[0].stats.open[TIGERS], 0);
    tb_t *tb;
    cr_assert_eq(tb_open_movement(dir, &tb, msg, sizeof msg), TB_OK, "%s", msg);
    uint64_t size = tb_slice_entries(tb, 0);
    uint8_t *v = malloc(2 * size);
    cr_assert_not_null(v);
    cr_assert_eq(tbf_read_slice(dir, &h, 0, v, msg, sizeof msg), TB_OK, "%s", msg);
    line_t *g = calloc(1, sizeof *g);
    cr_assert_not_null(g);
    g->k = 1 + (REF_GOATS - 20);
    uint64_t checked = 0, draws = 0, won[SIDE_NB] = {0};
    for (int side = 0; side < SIDE_NB; side++) {
        const uint8_t *db = tb_slice_values(tb, 0, side);
        for (uint64_t i = 0; i < size; i++) {
            position_t p;
            if (!tb_index_position_game(tb_index(tb), 20, 0, side, i, &p))
                continue;
            if (db[i] != 0xFF) {
                /* The draw rule's wins and losses keep their value. */
                cr_assert_eq(v[(uint64_t)side * size + i], (db[i] & 1) ? TBF_WIN : TBF_LOSS);
                checked++;
                continue;
            }
            ref_of(20, p.tigers, p.goats, side, 0, &g->line[0]);
            g->n = 1;
            hash_last(g);
            bool w = wins(g);
            uint8_t want = w ? TBF_WIN : TBF_LOSS;
            cr_assert_eq(v[(uint64_t)side * size + i], want, "side %d entry %llu: the file says %d, the search %d", side,
                         (unsigned long long)i, v[(uint64_t)side * size + i], want);
            if (db[i] != 0xFF)
                cr_assert_eq(w, (db[i] & 1) == 1, "a draw-rule win or loss changed");
            draws += db[i] == 0xFF, won[side] += db[i] == 0xFF && w;
            checked++;
        }
    }
    /* Both sides win some draws: the rule decides them both ways. */
    cr_assert_gt(draws, 200);
    cr_assert_gt(won[GOATS], 0);
    cr_assert_gt(won[TIGERS], 0);
    cr_assert_gt(checked, 60000);
    free(g), free(v);
    tb_close(tb);
}

/* The settler: the prover, on the draw rule's database with the slice above at captures,
 * each position a game's start. */
static int prove(void *ctx, const position_t *p, const tbf_above_t *above)
{
    game_t g;
    cr_assert(game_init(&g, p, NULL, REP_FORBID));
    fb_limits_t lim = {1000000, 0, NULL, above ? tbf_above_leaf : NULL, (void *)above};
    fb_proof_t proof;
    fb_result_t r = fb_prove(ctx, tbf_test_tb, &g, &lim, &proof);
    game_free(&g);
    return r == FB_WIN ? TBF_WIN : r == FB_LOSS ? TBF_LOSS : TBF_OPEN;
}

/* The options of a build again from scratch in which the search gives up at once, so every
 * root goes to the prover (on the database of dir, opened into tbf_test_tb): returns it. */
static fb_prover_t *every_root_to_the_prover(const char *dir, tbf_build_options_t *o)
{
    char msg[256];
    cr_assert_eq(tb_open_movement(dir, &tbf_test_tb, msg, sizeof msg), TB_OK, "%s", msg);
    fb_prover_t *pr = fb_prover_new(16);
    cr_assert_not_null(pr);
    o->restart = true;
    o->solve.root_nodes = 1;
    o->solve.settle = prove, o->solve.settle_ctx = pr;
    return pr;
}

/* The settling's progress: calls, the last count given and the total. */
static uint64_t settle_calls, settle_last, settle_total;
static void on_settle(void *ctx, int c, uint64_t done, uint64_t total)
{
    (void)ctx, (void)c;
    cr_assert_eq(done, settle_last + 1, "one call a root, in order");
    settle_calls++, settle_last = done, settle_total = total;
}

/* The one-capture game of 20 goats built in a new folder, and build options for it. */
static void one_capture_game(char *dir, size_t len, tbf_build_options_t *o)
{
    build_game(dir, len, 20, 1, false);
    memset(o, 0, sizeof *o);
    o->dir = dir, o->threads = 1;
    tbf_options_init(&o->solve);
}

/* With a search budget of one position every draw the retrograde pass leaves goes to the
 * prover: the file comes out the same, byte for byte, as the search's. */
Test(tb_forbid, the_prover_settles_what_the_search_leaves_open_the_same_way)
{
    char dir[128], msg[256];
    tbf_build_options_t o;
    one_capture_game(dir, sizeof dir, &o);
    tbf_header_t a, b;
    cr_assert_eq(tbf_build(&o, &a, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert_eq(a.slice[0].stats.settled, 0);
    fb_prover_t *pr = every_root_to_the_prover(dir, &o);
    o.solve.settle_progress = on_settle;
    cr_assert_eq(tbf_build(&o, &b, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert_eq(settle_calls, a.slice[0].stats.core, "a progress call for each root given to the prover");
    cr_assert_eq(settle_total, a.slice[0].stats.core);
    cr_assert_eq(b.slice[0].stats.aborted, a.slice[0].stats.core, "every root ran out of its budget");
    cr_assert_eq(b.slice[0].stats.settled, a.slice[0].stats.core, "and the prover settled each");
    cr_assert_eq(b.slice[0].checksum, a.slice[0].checksum);
    /* The same on two threads, each with its own prover. */
    fb_prover_t *pr2 = fb_prover_new(16);
    cr_assert_not_null(pr2);
    void *ctxs[2] = {pr, pr2};
    o.solve.settle_threads = 2, o.solve.settle_ctxs = ctxs;
    settle_calls = settle_last = settle_total = 0;
    tbf_header_t t2;
    cr_assert_eq(tbf_build(&o, &t2, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert_eq(settle_calls, a.slice[0].stats.core);
    cr_assert_eq(t2.slice[0].stats.settled, a.slice[0].stats.core);
    cr_assert_eq(t2.slice[0].checksum, a.slice[0].checksum);
    fb_prover_free(pr2);
    fb_prover_free(pr);
    tb_close(tbf_test_tb);
}

/* A slice stopped in the middle (of the search, then of the settling) goes on from its
 * checkpoint to the same bytes; a checkpoint for other budgets, or damaged, is not used. */
Test(tb_forbid, a_slice_stopped_in_the_middle_resumes_from_its_checkpoint)
{
    char dir[128], msg[256], ck[256];
    tbf_build_options_t o;
    one_capture_game(dir, sizeof dir, &o);
    snprintf(ck, sizeof ck, "%s/forbid-slice-0.ckpt", dir);
    tbf_header_t whole, h;
    cr_assert_eq(tbf_build(&o, &whole, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert_neq(access(ck, F_OK), 0, "no checkpoint left once the slice is kept");
    uint64_t core = whole.slice[0].stats.core;
    cr_assert_gt(core, 150);

    /* Stopped after 100 roots searched: the checkpoint is there, the slice is not. */
    o.restart = true;
    o.solve.stop_after = 100;
    cr_assert_eq(tbf_build(&o, &h, msg, sizeof msg), TB_ERR_LIMIT);
    cr_assert_eq(access(ck, F_OK), 0, "the checkpoint is written when the solve stops");
    cr_assert_eq(h.slice[0].built, 0);
    o.restart = false, o.solve.stop_after = 0;
    cr_assert_eq(tbf_build(&o, &h, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert_eq(h.slice[0].stats.resumed, 100, "the 100 roots are read back, not searched again");
    cr_assert_eq(h.slice[0].checksum, whole.slice[0].checksum);
    cr_assert_eq(memcmp(h.slice[0].stats.won, whole.slice[0].stats.won, sizeof h.slice[0].stats.won), 0);
    cr_assert_neq(access(ck, F_OK), 0);

    /* Every root to the prover, stopped 50 roots into the settling. */
    fb_prover_t *pr = every_root_to_the_prover(dir, &o);
    o.solve.stop_after = core + 50;
    cr_assert_eq(tbf_build(&o, &h, msg, sizeof msg), TB_ERR_LIMIT);
    o.restart = false, o.solve.stop_after = 0;
    cr_assert_eq(tbf_build(&o, &h, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert_eq(h.slice[0].stats.resumed, core + 50, "every search and 50 settlings read back");
    cr_assert_eq(h.slice[0].stats.settled, core, "the settled ones read back count as settled");
    cr_assert_eq(h.slice[0].stats.aborted, core);
    cr_assert_eq(h.slice[0].checksum, whole.slice[0].checksum);

    /* A checkpoint written with another budget is not used. */
    o.restart = true, o.solve.stop_after = 100;
    cr_assert_eq(tbf_build(&o, &h, msg, sizeof msg), TB_ERR_LIMIT);
    o.restart = false, o.solve.stop_after = 0, o.solve.root_nodes = 0;
    o.solve.settle = NULL;
    cr_assert_eq(tbf_build(&o, &h, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert_eq(h.slice[0].stats.resumed, 0);
    cr_assert_eq(h.slice[0].checksum, whole.slice[0].checksum);

    /* A damaged one neither. */
    o.restart = true, o.solve.stop_after = 100;
    cr_assert_eq(tbf_build(&o, &h, msg, sizeof msg), TB_ERR_LIMIT);
    FILE *f = fopen(ck, "r+b");
    cr_assert_not_null(f);
    fseek(f, 64 + 7, SEEK_SET);
    int b = fgetc(f);
    fseek(f, 64 + 7, SEEK_SET);
    fputc(b ^ 0x40, f);
    fclose(f);
    o.restart = false, o.solve.stop_after = 0;
    cr_assert_eq(tbf_build(&o, &h, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert_eq(h.slice[0].stats.resumed, 0);
    cr_assert_eq(h.slice[0].checksum, whole.slice[0].checksum);
    fb_prover_free(pr);
    tb_close(tbf_test_tb);
}

/* A game with its placement phase: the start under forbid, the layers' counts, the resume
 * (a finished slice is read back, not solved again) and a damaged slice solved again. */
static int slices_built;
static void on_slice(void *ctx, int c, const tbf_header_t *h, bool built)
{
    (void)ctx, (void)c, (void)h;
    slices_built += built;
}

Test(tb_forbid, small_game_placement_resume_and_damage)
{
    char dir[128], msg[256];
    build_game(dir, sizeof dir, 2, 2, true);
    tbf_build_options_t o;
    memset(&o, 0, sizeof o);
    o.dir = dir, o.threads = 1, o.placement = true, o.on_slice = on_slice;
    tbf_options_init(&o.solve);
    tbf_header_t h, again;
    slices_built = 0;
    cr_assert_eq(tbf_build(&o, &h, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert_eq(slices_built, 2);
    cr_assert_eq(h.placement_built, 1);
    cr_assert_eq(h.placement_twins, 1);
    /* Two goats cannot hold the tigers under the draw rule. Under forbid the first goat's
     * board (one goat on it, one in hand) can come back after a capture, so that layer is
     * given each side's loss in turn: the goats lose the start when it is theirs, win it
     * when it is the tigers'. The bound is honest, and here it decides nothing. */
    cr_assert_eq(h.start_draw_rule, -1);
    cr_assert_eq(h.start_value[0], TBF_LOSS);
    cr_assert_eq(h.start_value[1], TBF_WIN);
    cr_assert_eq(h.place_layers, 5, "in hand 1 with 0 or 1 captured, each side to move; the start's");
    int with_twins = 0;
    for (uint32_t i = 0; i < h.place_layers; i++) {
        const tbf_place_info_t *p = &h.place[i];
        uint64_t all = p->count[0][0] + p->count[0][1] + p->count[0][2];
        cr_assert_eq(p->count[0][1] + p->count[1][1], 0, "no placement position is drawn");
        if (p->h == 2) {
            /* The start's layer: each first goat lands in a layer of twins. */
            cr_assert(p->side == GOATS && p->c == 0 && !tbp_layer_has_twins(2, p->h, p->c));
            cr_assert_eq(p->count[0][0], all);
            cr_assert_eq(p->count[1][2], all);
            continue;
        }
        cr_assert_eq(p->h, 1);
        if (tbp_layer_has_twins(2, p->h, p->c)) {
            with_twins++;
            cr_assert_eq(p->c, 0);
            /* Variant 0: every goat loses; variant 1: every goat wins (for the side to move). */
            int lose = p->side == GOATS ? 0 : 2, win = 2 - lose;
            cr_assert_eq(p->count[0][lose], all);
            cr_assert_eq(p->count[1][win], all);
        } else {
            cr_assert_eq(p->c, 1);
            /* One goat against four tigers, one capture from the end: no variant differs. */
            cr_assert_eq(memcmp(p->count[0], p->count[1], sizeof p->count[0]), 0);
        }
    }
    cr_assert_eq(with_twins, 2);
    cr_assert(!tbp_layer_has_twins(2, 0, 0), "the movement phase is not a placement layer");
    cr_assert(!tbp_layer_has_twins(2, 2, 0) && !tbp_layer_has_twins(2, 1, 1));
    cr_assert(tbp_layer_has_twins(3, 2, 0) && tbp_layer_has_twins(3, 1, 1) && !tbp_layer_has_twins(3, 2, 1));
    cr_assert(!tbp_layer_has_twins(1, 1, 0), "one capture to win: no board comes back");
    char work[256];
    snprintf(work, sizeof work, "%s/forbid-work-0", dir);
    cr_assert_neq(access(work, F_OK), 0, "the work folders are removed");
    /* Again: nothing solved again. */
    slices_built = 0;
    cr_assert_eq(tbf_build(&o, &again, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert_eq(slices_built, 0);
    cr_assert_eq(again.slice[1].checksum, h.slice[1].checksum);
    /* A file whose placement was built before the twins were bounded (0 at the flag, as the
     * first files have): the placement is built again, the slices kept. */
    {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, TBF_FILE_NAME);
        FILE *f = fopen(path, "r+b");
        cr_assert_not_null(f);
        uint8_t *hb = malloc(TBF_HEADER_SIZE);
        cr_assert_not_null(hb);
        cr_assert_eq(fread(hb, 1, TBF_HEADER_SIZE, f), TBF_HEADER_SIZE);
        cr_assert_eq(hb[TBF_HEADER_SIZE - 16], 1);
        memset(hb + TBF_HEADER_SIZE - 16, 0, 4);
        uint64_t sum = tb_checksum(hb, TBF_HEADER_SIZE - 8);
        for (int i = 0; i < 8; i++)
            hb[TBF_HEADER_SIZE - 8 + i] = (uint8_t)(sum >> (8 * i));
        fseek(f, 0, SEEK_SET);
        cr_assert_eq(fwrite(hb, 1, TBF_HEADER_SIZE, f), TBF_HEADER_SIZE);
        fclose(f);
        free(hb);
        tbf_header_t old;
        cr_assert_eq(tbf_read_header(dir, &old, msg, sizeof msg), TB_OK, "%s", msg);
        cr_assert_eq(old.placement_twins, 0);
        slices_built = 0;
        cr_assert_eq(tbf_build(&o, &again, msg, sizeof msg), TB_OK, "%s", msg);
        cr_assert_eq(slices_built, 0);
        cr_assert_eq(again.placement_twins, 1);
        cr_assert_eq(again.start_value[1], TBF_WIN);
        cr_assert_eq(memcmp(again.place, h.place, sizeof h.place), 0);
    }
    /* A damaged byte in slice 1: that slice is solved again, to the same bytes. */
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, TBF_FILE_NAME);
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    fseek(f, (long)h.slice[1].offset + 5, SEEK_SET);
    int b = fgetc(f);
    fseek(f, (long)h.slice[1].offset + 5, SEEK_SET);
    fputc(b ^ 3, f);
    fclose(f);
    uint8_t buf[16];
    (void)buf;
    uint8_t *v = malloc(h.slice[1].length);
    cr_assert_not_null(v);
    cr_assert_eq(tbf_read_slice(dir, &h, 1, v, msg, sizeof msg), TB_ERR_CHECKSUM);
    slices_built = 0;
    cr_assert_eq(tbf_build(&o, &again, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert_eq(slices_built, 1);
    cr_assert_eq(again.slice[1].checksum, h.slice[1].checksum);
    cr_assert_eq(tbf_read_slice(dir, &again, 1, v, msg, sizeof msg), TB_OK, "%s", msg);
    free(v);
}

/* The same prover blind to the slice above: past a capture it reads the draw rule's
 * database only. */
static int prove_blind(void *ctx, const position_t *p, const tbf_above_t *above)
{
    (void)above;
    return prove(ctx, p, NULL);
}

/* The prover's leaves at captures are the slice above's values. Two captures win the 20-goat
 * game; slice 1 is given made-up values (the draw rule's wins and losses, and a win or a loss
 * drawn at random for each of its draws), so that only a solve that reads them can match
 * the search's, which takes them as its leaves. Every root sent to the prover comes out as
 * the search has it, byte for byte; the prover blind to them does not. */
Test(tb_forbid, the_prover_takes_the_slice_above_as_its_leaves_at_captures)
{
    char dir[128], msg[256];
    build_game(dir, sizeof dir, 20, 2, false);
    cr_assert_eq(tb_open_movement(dir, &tbf_test_tb, msg, sizeof msg), TB_OK, "%s", msg);
    tb_t *tb = tbf_test_tb;
    uint64_t up_size = tb_slice_entries(tb, 1), size = tb_slice_entries(tb, 0), seed = 0x2545F4914F6CDD1Dull;
    uint8_t *up = malloc(up_size), *out[3][SIDE_NB];
    cr_assert_not_null(up);
    uint64_t up_draws = 0;
    for (uint64_t i = 0; i < up_size; i++) {
        uint8_t b = tb_slice_values(tb, 1, GOATS)[i];
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        up[i] = b != 0xFF ? ((b & 1) ? TBF_WIN : TBF_LOSS) : (seed >> 32 & 1) ? TBF_WIN : TBF_LOSS;
        up_draws += b == 0xFF;
    }
    cr_assert_gt(up_draws, 1000);
    for (int k = 0; k < 3; k++)
        for (int side = 0; side < SIDE_NB; side++)
            cr_assert_not_null(out[k][side] = malloc(size));
    fb_prover_t *pr = fb_prover_new(16);
    cr_assert_not_null(pr);
    tbf_layer_stats_t st[3];
    tbf_options_t o;
    /* 0: the search alone; 1: every root to the prover; 2: every root to the blind prover. */
    for (int k = 0; k < 3; k++) {
        tbf_options_init(&o);
        if (k) {
            o.root_nodes = 1;
            o.settle = k == 1 ? prove : prove_blind, o.settle_ctx = pr;
        }
        cr_assert_eq(tbf_solve_slice(tb, 0, up, &o, out[k], &st[k], msg, sizeof msg), TB_OK, "%s", msg);
    }
    cr_assert_gt(st[0].core, 20, "the search has roots to settle");
    cr_assert_eq(st[0].open[GOATS] + st[0].open[TIGERS], 0, "and settles them all");
    cr_assert_eq(st[1].core, st[0].core);
    cr_assert_eq(st[1].settled, st[1].core, "the prover settles every root");
    for (int side = 0; side < SIDE_NB; side++)
        cr_assert_eq(memcmp(out[1][side], out[0][side], size), 0, "side %d: the prover's values are the search's",
                     side);
    bool differ = false;
    for (int side = 0; side < SIDE_NB; side++)
        differ |= memcmp(out[2][side], out[0][side], size) != 0;
    cr_assert(differ, "blind to the slice above, the prover finds other values");
    fb_prover_free(pr);
    for (int k = 0; k < 3; k++)
        for (int side = 0; side < SIDE_NB; side++)
            free(out[k][side]);
    free(up);
    tb_close(tb);
}

Test(tb_forbid, header_errors)
{
    char dir[128], msg[256];
    snprintf(dir, sizeof dir, "/tmp/test_tbforbid.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(current_dir, sizeof current_dir, "%s", dir);
    tbf_header_t h;
    cr_assert_eq(tbf_read_header(dir, &h, msg, sizeof msg), TB_ERR_MISSING);
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, TBF_FILE_NAME);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fputs("BAGHCHTB", f);
    fclose(f);
    cr_assert_eq(tbf_read_header(dir, &h, msg, sizeof msg), TB_ERR_FORMAT);
    /* A movement database is needed. */
    tbf_build_options_t o;
    memset(&o, 0, sizeof o);
    o.dir = dir, o.threads = 1;
    cr_assert_neq(tbf_build(&o, &h, msg, sizeof msg), TB_OK);
    cr_assert_gt(strlen(msg), 0);
}
