/* The placement-phase solution: a small game (2 goats, 2 captures win) built completely in
 * both phases, and the last layers of the real game (one to three goats in hand; under the
 * sanitizers one and two) built on the real movement database. Every value of the generator's layers is checked against its
 * children, found with the test suite's own rules (tests/support/reference.c), at one ply;
 * terminal positions by the rules; the file against the layers entry by entry; the probe in
 * every orientation of the board; and the small game's start against a plain search. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baghchal.h"
#include "pipe.h"
#include "reference.h"
#include "sanitized.h"
#include "tb_build.h"
#include "tb_place_code.h"
#include "tree.h"

static char current_dir[128];

static void cleanup(void)
{
    if (current_dir[0])
        tree_remove(current_dir);
}

TestSuite(tb_place, .fini = cleanup, .timeout = 900);

static void make_dir(char *out, size_t len)
{
    snprintf(out, len, "/tmp/test_tbplace.XXXXXX");
    cr_assert_not_null(mkdtemp(out));
    snprintf(current_dir, sizeof current_dir, "%s", out);
}

/* ---- The game being checked ---------------------------------------------------------- */

typedef struct {
    int n, k;            /* goats, captures that win */
    int top, min_goats;  /* the layers built (tbp_gen_options_t) */
    const tb_t *movement;
    const tb_index_t *ix;
    tbp_rank_t rk;
    tbp_layer_t layer[SIDE_NB][TBP_MAX_IN_HAND + 1][TB_MAX_SLICES];
} pgame_t;

static void load_layers(pgame_t *g, const char *work)
{
    tbp_rank_init(&g->rk);
    for (int side = 0; side < SIDE_NB; side++)
        for (int h = 1; h <= g->top; h++)
            for (int c = 0; c < g->k; c++) {
                tbp_layer_t *l = &g->layer[side][h][c];
                l->bits = NULL;
                if (!tbp_layer_exists(g->n, g->k, side, h, c) || !tbp_layer_in_scope(g->n, side, h, c, g->top, g->min_goats))
                    continue;
                tbp_layer_shape(l, &g->rk, g->n, side, h, c);
                char msg[256];
                cr_assert_eq(tbp_layer_load(work, l, g->n, g->k, msg, sizeof msg), TB_OK, "%s", msg);
            }
}

static void free_layers(pgame_t *g)
{
    for (int side = 0; side < SIDE_NB; side++)
        for (int h = 0; h <= TBP_MAX_IN_HAND; h++)
            for (int c = 0; c < TB_MAX_SLICES; c++)
                free(g->layer[side][h][c].bits);
}

static void ref_points(const ref_pos_t *r, bb_t *tigers, bb_t *goats)
{
    *tigers = *goats = 0;
    for (int i = 0; i < REF_POINTS; i++) {
        if (r->board[i] == 'T')
            *tigers |= bb_square(i);
        else if (r->board[i] == 'G')
            *goats |= bb_square(i);
    }
}

/* The value (0 loss, 1 draw, 2 win for its side to move) of a position the checks reach:
 * over by captures, in the movement database, or in a layer. */
static int value_of(const pgame_t *g, const ref_pos_t *r)
{
    int side = r->side == 'g' ? GOATS : TIGERS;
    if (r->captured >= g->k)
        return side == GOATS ? 0 : 2;
    bb_t t, gs;
    ref_points(r, &t, &gs);
    if (r->in_hand == 0) {
        position_t p = {.tigers = t, .goats = gs, .side = (uint8_t)side, .in_hand = 0, .captured = (uint8_t)r->captured};
        tb_value_t v;
        cr_assert(tb_probe(g->movement, &p, &v), "movement position not covered");
        return v.wdl + 1;
    }
    const tbp_layer_t *l = &g->layer[side][r->in_hand][r->captured];
    cr_assert_not_null(l->bits, "no layer for %c h=%d c=%d", r->side, r->in_hand, r->captured);
    uint64_t i = tbp_entry_of(g->ix, &g->rk, t, gs);
    return (int)tbp_get(l->bits + (i / l->ng) * l->wpc, (uint32_t)(i % l->ng));
}

/* Every entry of every built layer against its children, by the reference rules. */
static void check_layers(const pgame_t *g, uint64_t counts[3])
{
    for (int side = 0; side < SIDE_NB; side++)
        for (int h = 1; h <= g->top; h++)
            for (int c = 0; c < g->k; c++) {
                const tbp_layer_t *l = &g->layer[side][h][c];
                if (!l->bits)
                    continue;
                uint64_t n = (uint64_t)l->ng * TB_TIGER_CLASSES;
                for (uint64_t i = 0; i < n; i++) {
                    bb_t t, gs;
                    tbp_entry_points(g->ix, &g->rk, l->goats, i, &t, &gs);
                    cr_assert_eq(tbp_entry_of(g->ix, &g->rk, t, gs), i, "entry -> points -> entry");
                    ref_pos_t r = {.side = side == GOATS ? 'g' : 't', .in_hand = h, .captured = c};
                    for (int q = 0; q < REF_POINTS; q++)
                        r.board[q] = (t >> q & 1) ? 'T' : (gs >> q & 1) ? 'G' : 'X';
                    ref_move_t moves[REF_MAX_MOVES];
                    int nm = ref_gen(&r, moves), best = 0; /* no move: lost */
                    for (int m = 0; m < nm && best < 2; m++) {
                        ref_pos_t child;
                        ref_make(&r, moves[m], &child);
                        int v = 2 - value_of(g, &child);
                        best = v > best ? v : best;
                    }
                    int got = (int)tbp_get(l->bits + (i / l->ng) * l->wpc, (uint32_t)(i % l->ng));
                    cr_assert_eq(got, best, "%c h=%d c=%d entry %llu: stored %d, children give %d", r.side, h, c,
                                 (unsigned long long)i, got, best);
                    counts[got]++;
                }
            }
}

/* tb_rank_moves on a placement position against a probe of each child (the goats' placements
 * are read at once, and so are a tigers-to-move position's goats-to-move children), and its
 * best value against the position's own. */
static void check_ranking(const tb_t *tb, const position_t *p, tb_value_t v)
{
    move_t moves[MAX_MOVES];
    tb_move_value_t ranked[MAX_MOVES];
    int n = gen_moves(p, moves);
    int keep = tb_rank_moves(tb, p, moves, n, ranked);
    cr_assert(n == 0 || (keep >= 1 && keep <= n), "tb_rank_moves gave %d of %d", keep, n);
    for (int j = 0; j < n; j++) {
        position_t child = *p;
        position_make(&child, ranked[j].move);
        tb_value_t cv;
        cr_assert(tb_probe(tb, &child, &cv));
        cv = tb_value_after_move(cv);
        cr_assert(cv.wdl == ranked[j].value.wdl && cv.distance == ranked[j].value.distance,
                  "h=%d c=%d move %d: ranked %d/%d, the child's probe %d/%d", p->in_hand, p->captured, j,
                  ranked[j].value.wdl, ranked[j].value.distance, cv.wdl, cv.distance);
    }
    if (n)
        cr_assert_eq(ranked[0].value.wdl, v.wdl, "the best move's value is the position's");
}

/* The reader against itself over every array of dir's file: each class's values read one at
 * a time through the reader's directory (tbp_runs_build) and through the file's group offsets
 * alone, against the whole class decoded at once, and the children of sampled masks
 * (tbp_array_children) against their values one at a time. */
static void check_reader(const char *dir)
{
    char path[300], msg[256];
    snprintf(path, sizeof path, "%s/%s", dir, TBP_FILE_NAME);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long len = ftell(f);
    uint8_t *bytes = malloc((size_t)len), *runs = malloc(TBP_RUNS_SIZE), *all = malloc(TBP_MASKS);
    tbp_header_t *x = malloc(sizeof *x);
    cr_assert(bytes && runs && all && x);
    rewind(f);
    cr_assert_eq(fread(bytes, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    cr_assert_eq(tbp_read_header(dir, x, msg, sizeof msg), TB_OK, "%s", msg);
    uint64_t seed = 11;
    int arrays = 0;
    for (uint32_t c = 0; c < x->captures_to_win; c++) {
        if (!x->array[c].valid)
            continue;
        arrays++;
        tbp_array_t plain, fast;
        tbp_array_view(&plain, bytes + x->array[c].offset, x->array[c].valid);
        fast = plain;
        cr_assert(tbp_runs_build(&plain, runs));
        fast.runs = runs;
        for (int n = 0; n < 12; n++) {
            uint32_t k = (uint32_t)ref_rand_below(&seed, TB_TIGER_CLASSES);
            tbp_array_class(&fast, k, all);
            for (int i = 0; i < 4000; i++) {
                uint32_t m = (uint32_t)ref_rand_below(&seed, TBP_MASKS), g = (uint32_t)__builtin_popcount(m);
                if (!(x->array[c].valid >> g & 1))
                    continue;
                uint32_t v = tbp_array_value(&fast, k, m);
                cr_assert_eq(v, all[m], "c=%u class %u mask %06x: %u, the class decoded %u", c, k, m, v, all[m]);
                cr_assert_eq(tbp_array_value(&plain, k, m), v, "c=%u class %u mask %06x", c, k, m);
                /* Its children where their layer is held: every free bit, or a random part. */
                if (!(x->array[c].valid >> (g + 1) & 1))
                    continue;
                uint32_t e = (TBP_MASKS - 1) & ~m;
                if (i & 1)
                    e &= (uint32_t)ref_rand_below(&seed, TBP_MASKS);
                uint8_t out[TBP_FREE];
                tbp_array_children(i & 2 ? &fast : &plain, k, m, e, out);
                int o = 0;
                uint32_t least = 3;
                for (uint32_t y = e; y; y &= y - 1, o++) {
                    cr_assert_eq(out[o], all[m | (y & (0u - y))], "c=%u class %u mask %06x child bit %d", c, k, m,
                                 __builtin_ctz(y));
                    least = out[o] < least ? out[o] : least;
                }
                /* The least of them, which stops at the first child of the floor given: any value
                 * no child is below. */
                for (uint32_t floor = 0; floor <= least && floor <= 2; floor++)
                    cr_assert_eq(tbp_array_least(i & 4 ? &fast : &plain, k, m, e, floor), least,
                                 "c=%u class %u mask %06x floor %u", c, k, m, floor);
            }
        }
    }
    cr_assert_gt(arrays, 0);
    free(bytes), free(runs), free(all), free(x);
}

/* The least value of a layer's entries (3 for an empty layer). */
static int layer_least(const tbp_layer_t *l)
{
    int least = 3;
    for (uint64_t i = 0; l->bits && i < (uint64_t)l->ng * TB_TIGER_CLASSES; i++) {
        int v = (int)tbp_get(l->bits + (i / l->ng) * l->wpc, (uint32_t)(i % l->ng));
        least = v < least ? v : least;
    }
    return least;
}

/* The file against the layers: every stored entry, and the probe of every position in a
 * random orientation of the board for both sides (the other side by one ply of probes), the
 * goats' both with the layers' counts trusted (a probe stops at the first placement of the
 * least value they allow) and without. Returns how many goats' positions the counts bounded. */
static int check_file(const pgame_t *g, const char *dir)
{
    tb_t *tb, *strict;
    char msg[256];
    cr_assert_eq(tb_open(dir, &tb, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert_eq(tb_open(dir, &strict, msg, sizeof msg), TB_OK, "%s", msg);
    tb_trust_layer_counts(strict, false);
    cr_assert(tb_has_placement(tb));
    int bounded = 0; /* goats' positions whose placements all lead to a layer without 0 */
    const tb_index_t *ix = tb_index(tb);
    uint64_t seed = 7;
    for (int side = 0; side < SIDE_NB; side++)
        for (int h = 1; h <= g->top; h++)
            for (int c = 0; c < g->k; c++) {
                const tbp_layer_t *l = &g->layer[side][h][c];
                if (!l->bits)
                    continue;
                uint64_t n = (uint64_t)l->ng * TB_TIGER_CLASSES, step = side == TIGERS ? 1 : 1 + n / 20000;
                int floor = side == GOATS && h > 1 ? layer_least(&g->layer[TIGERS][h - 1][c]) : 0;
                for (uint64_t i = 0; i < n; i += step) {
                    bb_t t, gs;
                    tbp_entry_points(ix, &g->rk, l->goats, i, &t, &gs);
                    int s = ref_rand_below(&seed, TB_SYM_NB);
                    position_t p = {.tigers = tb_transform(ix, s, t), .goats = tb_transform(ix, s, gs),
                                    .side = (uint8_t)side, .in_hand = (uint8_t)h, .captured = (uint8_t)c};
                    p.key = position_compute_key(&p);
                    tb_value_t v;
                    cr_assert(tb_probe(tb, &p, &v), "%d h=%d c=%d entry %llu not covered", side, h, c,
                              (unsigned long long)i);
                    int want = (int)tbp_get(l->bits + (i / l->ng) * l->wpc, (uint32_t)(i % l->ng));
                    cr_assert_eq(v.wdl + 1, want, "%s h=%d c=%d entry %llu (symmetry %d): probe %d, layer %d",
                                 side == GOATS ? "goats" : "tigers", h, c, (unsigned long long)i, s, v.wdl + 1, want);
                    if (v.wdl != TB_DRAW && (side == TIGERS || h > 1))
                        cr_assert_eq(v.distance, TB_DISTANCE_UNKNOWN);
                    if (floor > 0 && floor < 3) {
                        tb_value_t w;
                        cr_assert(tb_probe(strict, &p, &w));
                        cr_assert_eq(w.wdl, v.wdl, "every placement read: %d, %d", w.wdl, v.wdl);
                        bounded++;
                    }
                    if (side == GOATS || i % 13 == 0)
                        check_ranking(tb, &p, v);
                }
            }
    tb_close(tb);
    tb_close(strict);
    return bounded;
}

static void on_progress(void *ctx, const tbp_progress_t *p)
{
    int *layers = ctx;
    (*layers)++;
    cr_assert(p->built || p->entries > 0);
}

static void build_placement(const tb_t *movement, const char *dir, int top, int min_goats, int *layers)
{
    char work[256], path[256], msg[256];
    snprintf(work, sizeof work, "%s/work", dir);
    cr_assert_eq(mkdir(work, 0755), 0);
    tbp_gen_options_t o;
    tbp_gen_options_init(&o, work);
    o.threads = 2;
    o.max_in_hand = top;
    o.min_goats = min_goats;
    o.keep_goats = true; /* the checks read the goats' layers too */
    o.progress = on_progress;
    o.ctx = layers;
    cr_assert_eq(tbp_generate(&o, movement, msg, sizeof msg), TB_OK, "%s", msg);
    snprintf(path, sizeof path, "%s/%s", dir, TBP_FILE_NAME);
    cr_assert_eq(tbp_pack(work, path, tb_goats_total(movement), tb_captures_to_win(movement), top, min_goats, TIGERS, NULL, NULL,
                          msg, sizeof msg),
                 TB_OK, "%s", msg);
}

/* ---- A plain search down to the movement database ------------------------------------ */

/* The value of r by minimax over the reference rules through the whole placement phase,
 * with the movement database's values at its end: no layer is read. */
static int search_value(const pgame_t *g, const ref_pos_t *r)
{
    if (r->captured >= g->k || r->in_hand == 0)
        return value_of(g, r);
    ref_move_t moves[REF_MAX_MOVES];
    int nm = ref_gen(r, moves), best = 0;
    for (int m = 0; m < nm && best < 2; m++) {
        ref_pos_t child;
        ref_make(r, moves[m], &child);
        int v = 2 - search_value(g, &child);
        best = v > best ? v : best;
    }
    return best;
}

/* ---- The small game, both phases ------------------------------------------------------ */

Test(tb_place, small_game_both_phases_every_position)
{
    char dir[128], msg[256];
    make_dir(dir, sizeof dir);
    tb_gen_options_t mo;
    tb_gen_options_init(&mo, dir);
    mo.goats_total = 2;
    mo.captures_to_win = 2;
    mo.threads = 2;
    cr_assert_eq(tb_generate(&mo, msg, sizeof msg), TB_OK, "%s", msg);
    tb_t *movement;
    cr_assert_eq(tb_open(dir, &movement, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert_eq(tb_goats_total(movement), 2);
    /* Every movement entry by the rules and its children. */
    for (int c = 0; c < 2; c++)
        for (int side = 0; side < SIDE_NB; side++)
            for (uint64_t i = 0; i < tb_slice_entries(movement, c); i++) {
                position_t p;
                tb_value_t v;
                tb_entry(movement, c, side, i, &p, &v);
                tb_check_t kind;
                cr_assert_eq(tb_verify_position(movement, &p, &kind, msg, sizeof msg), TB_OK, "slice %d: %s", c, msg);
            }
    int layers = 0;
    build_placement(movement, dir, 2, 0, &layers);
    cr_assert_eq(layers, 5, "G(1,0) T(1,0) G(1,1) T(1,1) G(2,0)");
    pgame_t *g = calloc(1, sizeof *g);
    cr_assert_not_null(g);
    g->n = 2, g->k = 2, g->top = 2, g->movement = movement, g->ix = tb_index(movement);
    char work[256];
    snprintf(work, sizeof work, "%s/work", dir);
    load_layers(g, work);
    uint64_t counts[3] = {0};
    check_layers(g, counts);
    cr_assert_gt(check_file(g, dir), 0, "goats' positions whose placements lead to a layer without a tigers' loss");
    check_reader(dir);
    /* The start: goats to move, two in hand. The plain search proves the tigers' win. */
    ref_pos_t start;
    ref_start(&start);
    start.in_hand = 2;
    cr_assert_eq(value_of(g, &start), 0, "the goats lose the small game");
    cr_assert_eq(search_value(g, &start), 0, "the plain search agrees");
    tb_t *tb;
    cr_assert_eq(tb_open(dir, &tb, msg, sizeof msg), TB_OK, "%s", msg);
    position_t p = {.tigers = bb_square(0) | bb_square(4) | bb_square(20) | bb_square(24), .side = GOATS, .in_hand = 2};
    p.key = position_compute_key(&p); /* the probe makes moves from it */
    tb_value_t v;
    cr_assert(tb_probe(tb, &p, &v));
    cr_assert_eq(v.wdl, TB_LOSS);
    tb_close(tb);
    free_layers(g);
    free(g);
    tb_close(movement);
}

/* ---- The engine over pipes with the placement file ----------------------------------------- */

#define ENGINE BAGHCHAL_BIN_DIR "/baghchal"
enum { REPLY_MS = 20000 };

/* Sends the line and collects what the engine prints up to the line starting with until
 * (kept in matched) and up to readyok. */
static char matched[1024];

static void talk(pipe_proc_t *e, const char *cmd, const char *until, pipe_lines_t *out)
{
    char *line;
    cr_assert_eq(pipe_send(e, "%s", cmd), 0);
    matched[0] = '\0';
    if (until) {
        cr_assert_eq(pipe_read_until(e, until, REPLY_MS, out, &line), PIPE_LINE, "no '%s' after '%s'", until, cmd);
        snprintf(matched, sizeof matched, "%s", line);
    }
    cr_assert_eq(pipe_send(e, "isready"), 0);
    cr_assert_eq(pipe_read_until(e, "readyok", REPLY_MS, out, &line), PIPE_LINE);
}

static const char *last_with(const pipe_lines_t *l, const char *prefix)
{
    for (size_t i = l->count; i-- > 0;)
        if (strncmp(l->line[i], prefix, strlen(prefix)) == 0)
            return l->line[i];
    return NULL;
}

/* The share of the opponent's replies that lose for them after m (out of 1). */
static double losing_share(const tb_t *tb, const position_t *p, move_t m)
{
    position_t c = *p;
    position_make(&c, m);
    move_t r[MAX_MOVES];
    int n = gen_moves(&c, r), lose = 0;
    for (int i = 0; i < n; i++) {
        position_t x = c;
        position_make(&x, r[i]);
        tb_value_t v;
        cr_assert(tb_probe(tb, &x, &v));
        lose += v.wdl == TB_WIN;
    }
    return n ? (double)lose / n : 0;
}

/* Drawn and won positions two goats from the movement phase: the engine keeps the value,
 * prefers the draw that leaves the most losing replies, scores a placement win as
 * SCORE_TB_WIN less the plies, and tbprobe lists every move's value. */
static void check_engine(const char *dir, const pgame_t *g)
{
    tb_t *tb;
    char msg[256];
    cr_assert_eq(tb_open_game(dir, &tb, msg, sizeof msg), TB_OK, "%s", msg);
    char *argv[] = {(char *)ENGINE, NULL};
    pipe_proc_t *e = pipe_start(argv, 0);
    cr_assert_not_null(e);
    pipe_lines_t out = {0};
    char cmd[512];
    snprintf(cmd, sizeof cmd, "setoption name TablebasePath value %s", dir);
    talk(e, cmd, "info string tablebase loaded", &out);
    pipe_lines_free(&out);
    /* The draw rule first: the database's values are that rule's (forbid follows below). */
    talk(e, "setoption name Repetition value draw", NULL, &out);
    pipe_lines_free(&out);
    fb_prover_t *pr = fb_prover_new(FB_SETTLE_MB);
    cr_assert_not_null(pr);
    const tbp_layer_t *l = &g->layer[GOATS][2][0];
    int found_draw = 0, found_win = 0;
    for (uint64_t i = 0; i < (uint64_t)l->ng * TB_TIGER_CLASSES && (found_draw < 3 || found_win < 2); i += 997) {
        position_t p = {.side = GOATS, .in_hand = 2};
        tbp_entry_points(g->ix, &g->rk, l->goats, i, &p.tigers, &p.goats);
        p.key = position_compute_key(&p);
        tb_value_t v;
        cr_assert(tb_probe(tb, &p, &v));
        move_t moves[MAX_MOVES];
        tb_move_value_t ranked[MAX_MOVES];
        int n = gen_moves(&p, moves), keep = tb_rank_moves(tb, &p, moves, n, ranked);
        cr_assert_gt(keep, 0);
        double best_share = -1, share[MAX_MOVES];
        for (int k = 0; k < keep; k++) {
            share[k] = losing_share(tb, &p, ranked[k].move);
            best_share = share[k] > best_share ? share[k] : best_share;
        }
        bool distinct = false;
        for (int k = 0; k < keep; k++)
            distinct |= share[k] != best_share;
        if (v.wdl == TB_DRAW ? (found_draw >= 3 || !distinct) : (v.wdl != TB_WIN || found_win >= 2))
            continue;
        char obx[128];
        obx_format(&p, NULL, 2, obx, sizeof obx);
        snprintf(cmd, sizeof cmd, "position obx %s", obx);
        talk(e, cmd, NULL, &out);
        pipe_lines_free(&out);
        talk(e, "go depth 4", "bestmove", &out);
        const char *bm = matched;
        move_t played = MOVE_NONE;
        for (int k = 0; k < n; k++) {
            char text[MOVE_TEXT_LEN];
            move_format(moves[k], text);
            if (strncmp(bm + 9, text, strlen(text)) == 0 && (bm[9 + strlen(text)] == ' ' || !bm[9 + strlen(text)]))
                played = moves[k];
        }
        bool kept = false;
        for (int k = 0; k < keep; k++)
            if (ranked[k].move == played)
                kept = v.wdl != TB_DRAW || share[k] == best_share;
        cr_assert(kept, "%s: '%s' does not keep the value (or is not the draw with the most losing replies)", obx, bm);
        const char *info = last_with(&out, "info depth");
        cr_assert_not_null(info);
        if (v.wdl == TB_DRAW) {
            cr_assert_not_null(strstr(info, " score cp 0 "), "%s: drawn, but '%s'", obx, info);
            found_draw++;
        } else {
            cr_assert_not_null(strstr(info, " score cp 19999 "), "%s: a placement win one ply away, but '%s'", obx, info);
            found_win++;
        }
        pipe_lines_free(&out);
        talk(e, "tbprobe", "Moves (", &out);
        const char *value = last_with(&out, "Value: ");
        cr_assert_not_null(value);
        cr_assert_str_eq(value, v.wdl == TB_DRAW ? "Value: draw" : "Value: win");
        char want[32];
        snprintf(want, sizeof want, "Moves (%d):", n);
        cr_assert_str_eq(matched, want);
        pipe_lines_free(&out);

        /* Under forbid (the placement phase cannot repeat) a win is still a win, and a draw is
         * open unless the prover settles it: the engine keeps the database's value, claims no
         * draw, and tbprobe says what the library settles. */
        talk(e, "setoption name Repetition value forbid", NULL, &out);
        pipe_lines_free(&out);
        talk(e, cmd, NULL, &out);
        pipe_lines_free(&out);
        talk(e, "go depth 4", "bestmove", &out);
        bm = matched;
        played = MOVE_NONE;
        for (int k = 0; k < n; k++) {
            char text[MOVE_TEXT_LEN];
            move_format(moves[k], text);
            if (strncmp(bm + 9, text, strlen(text)) == 0 && (bm[9 + strlen(text)] == ' ' || !bm[9 + strlen(text)]))
                played = moves[k];
        }
        kept = false;
        for (int k = 0; k < keep; k++)
            kept |= ranked[k].move == played;
        cr_assert(kept, "%s, forbid: '%s' does not keep the value", obx, bm);
        info = last_with(&out, "info depth");
        cr_assert_not_null(info);
        if (v.wdl != TB_DRAW)
            cr_assert_not_null(strstr(info, " score cp 19999 "), "%s, forbid: a win one ply away, but '%s'", obx, info);
        pipe_lines_free(&out);
        talk(e, "tbprobe", "Moves (", &out);
        game_t gm;
        cr_assert(game_init(&gm, &p, NULL, REP_FORBID));
        fb_settled_t sv;
        fb_settle(pr, tb, &gm, MOVE_NONE, FB_SETTLE_NODES, &sv);
        char text[64], wantv[80];
        fb_settled_text(&sv, false, text, sizeof text);
        snprintf(wantv, sizeof wantv, "Value: %s", text);
        cr_assert_str_eq(last_with(&out, "Value: "), wantv);
        cr_assert_str_neq(wantv, "Value: draw");
        game_free(&gm);
        pipe_lines_free(&out);
        talk(e, "setoption name Repetition value draw", NULL, &out);
        pipe_lines_free(&out);
    }
    fb_prover_free(pr);
    cr_assert_eq(found_draw, 3, "drawn positions with drawing moves of different chances");
    cr_assert_eq(found_win, 2);
    cr_assert_eq(pipe_send(e, "quit"), 0);
    pipe_exit_t x = pipe_finish(e, REPLY_MS);
    pipe_free(e);
    cr_assert(x.exited && x.code == 0);
    tb_close(tb);
}

/* ---- The real game's last placement layers -------------------------------------------- */

static tb_t *real_movement(char *dir_out, size_t len)
{
    const char *env = getenv("BAGHCHAL_TB_DIR");
    char msg[256];
    tb_t *tb;
    if (env && *env && tb_open_game(env, &tb, msg, sizeof msg) == TB_OK) {
        snprintf(dir_out, len, "%s", env);
        return tb;
    }
    snprintf(dir_out, len, "%s", current_dir);
    tb_gen_options_t o;
    tb_gen_options_init(&o, current_dir);
    o.threads = 2;
    cr_assert_eq(tb_generate(&o, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert_eq(tb_open_game(current_dir, &tb, msg, sizeof msg), TB_OK, "%s", msg);
    return tb;
}

/* The release build checks the layers with at least 18 goats on the board (tigers to move;
 * 17 for goats to move, as the tigers' captures lead there): h + c <= 2, and h + c = 3 for
 * goats to move, 9 layers. The sanitized builds run the same checks, every entry, on the
 * layers with at least 19 (h + c <= 1, and h + c = 2 for goats to move, 4 layers, about a
 * fifth of the entries): the larger ones are the same code over more entries, and
 * AddressSanitizer's build took two and a half minutes of CPU over them. */
#ifdef SANITIZED
enum { REAL_TOP = 2, REAL_MIN_GOATS = 19, REAL_LAYERS = 4 };
#define REAL_LAYERS_ARE "tigers: (1,0); goats: (1,0) (1,1) (2,0)"
#else
enum { REAL_TOP = 3, REAL_MIN_GOATS = 18, REAL_LAYERS = 9 };
#define REAL_LAYERS_ARE "tigers: (1,0) (1,1) (2,0); goats: those and (1,2) (2,1) (3,0)"
#endif

Test(tb_place, real_game_last_layers_every_entry)
{
    char dir[128], mdir[256], msg[256];
    make_dir(dir, sizeof dir);
    tb_t *movement = real_movement(mdir, sizeof mdir);
    int layers = 0;
    build_placement(movement, dir, REAL_TOP, REAL_MIN_GOATS, &layers);
    cr_assert_eq(layers, REAL_LAYERS, REAL_LAYERS_ARE);
    pgame_t *g = calloc(1, sizeof *g);
    cr_assert_not_null(g);
    g->n = 20, g->k = 5, g->top = REAL_TOP, g->min_goats = REAL_MIN_GOATS, g->movement = movement,
    g->ix = tb_index(movement);
    char work[256];
    snprintf(work, sizeof work, "%s/work", dir);
    load_layers(g, work);
    uint64_t counts[3] = {0};
    check_layers(g, counts);
    cr_assert(counts[0] && counts[1] && counts[2], "every value occurs");
    /* A sample of the second layer by the plain search, two plies deeper than the check. */
    uint64_t seed = 11;
    for (int side = 0; side < SIDE_NB; side++)
        for (int c = 0; c < g->k; c++) {
            const tbp_layer_t *l = &g->layer[side][2][c];
            if (!l->bits)
                continue;
            for (int q = 0; q < 2000; q++) {
                uint64_t i = ref_rand(&seed) % ((uint64_t)l->ng * TB_TIGER_CLASSES);
                bb_t t, gs;
                tbp_entry_points(g->ix, &g->rk, l->goats, i, &t, &gs);
                ref_pos_t r = {.side = side == GOATS ? 'g' : 't', .in_hand = 2, .captured = c};
                for (int x = 0; x < REF_POINTS; x++)
                    r.board[x] = (t >> x & 1) ? 'T' : (gs >> x & 1) ? 'G' : 'X';
                cr_assert_eq(search_value(g, &r), value_of(g, &r), "h=2 c=%d side %d entry %llu", c, side,
                             (unsigned long long)i);
            }
        }
    /* The same counts as the generator's statistics (positions: entries * orbit). */
    cr_assert_eq(g->layer[GOATS][1][0].count[0] + g->layer[GOATS][1][0].count[1] + g->layer[GOATS][1][0].count[2],
                 12650ull * 210, "goats to move, 1 in hand, none captured: 12,650 tiger sets x C(21,19)");
    /* The file beside the real movement file. */
    if (strcmp(mdir, dir) != 0) {
        char from[512], to[512];
        snprintf(from, sizeof from, "%s/%s", mdir, TB_FILE_NAME);
        snprintf(to, sizeof to, "%s/%s", dir, TB_FILE_NAME);
        cr_assert_eq(symlink(from, to), 0);
    }
    check_file(g, dir);
    check_reader(dir);
    check_engine(dir, g);
    free_layers(g);
    free(g);
    tb_close(movement);
    (void)msg;
}
