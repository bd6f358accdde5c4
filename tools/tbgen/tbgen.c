/* baghchal-tbgen: builds the movement-phase database (and with --placement the placement
 * solution) with a progress display and prints its per-slice statistics; --stats prints them
 * for a finished database, with the placement layers' when their file is there, and
 * --bench-probe times the probe over random positions and the choice of a move. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "bitbase.h"
#include "cli.h"
#include "eval.h"
#include "forbid.h"
#include "movegen.h"
#include "tb_build.h"
#include "tb_forbid.h"

static const char *const USAGE =
    "usage: baghchal-tbgen [<dir>] [--threads N] [--slice K] [--restart] [--placement]\n"
    "                      [--keep-work] [--max-in-hand H] [--min-goats G] [--captures-to-win N] [--goats N]\n"
    "                      [--stop-after N] [--stop-after-arrays N]\n"
    "       baghchal-tbgen <dir> --forbid [--placement] [--restart] [--root-nodes N] [--prove-nodes N]\n"
    "       baghchal-tbgen <dir> --forbid-check N [--prove-nodes N]\n"
    "       baghchal-tbgen --stats [<dir>]\n"
    "       baghchal-tbgen --bench-probe [<dir>] [--count N] [--by-layer]\n"
    "       baghchal-tbgen --bitbase <file.c> [<dir>]\n"
    "Without <dir>: the standard folder ($" TB_PATH_ENV ", else $XDG_DATA_HOME/baghchal or\n"
    "~/.local/share/baghchal), where the engine finds the databases; a build there makes both files.\n";

/* Lim & Nievergelt's figures for the real game (issue 6), W / D / L per side to move. */
static const uint64_t PUBLISHED[5][2][3] = {
    {{242854, 22336, 460}, {1128, 75129, 189393}},
    {{2013416, 642400, 684}, {51540, 1575984, 1028976}},
    {{7051688, 9582208, 190604}, {3720584, 10820478, 2283438}},
    {{10513073, 49786398, 15410779}, {50052662, 23328893, 2328695}},
    {{7300992, 64348405, 185765453}, {243675838, 12547786, 1191226}},
};
static const int PUBLISHED_LONGEST[5] = {116, 137, 137, 134, 77};
static const uint64_t PUBLISHED_CLASSES = 88260972;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Prints "baghchal-tbgen: <reason>" and returns 1: a database that cannot be built or read. */
static int fail1(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail1(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("baghchal-tbgen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

/* "1,234,567" */
static const char *commas(uint64_t v, char *buf)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = '\0';
    return buf;
}

/* ---- Progress ----------------------------------------------------------------------- */

typedef struct {
    double start, last;
    bool tty;
} progress_t;

static void on_progress(void *ctx, const tb_progress_t *p)
{
    progress_t *pr = ctx;
    double t = now_s(), elapsed = t - pr->start;
    char a[32], b[32], line[200];
    if (p->phase == TB_PHASE_SKIP) {
        fprintf(stderr, "%sslice %d: already built, checksum verified\n", pr->tty ? "\r\033[K" : "", p->slice);
        return;
    }
    if (p->phase == TB_PHASE_WRITE) {
        fprintf(stderr, "%sslice %d: done in %d passes, %s of %s entries won or lost, %.1f s elapsed\n",
                pr->tty ? "\r\033[K" : "", p->slice, p->pass, commas(p->resolved, a), commas(p->entries, b), elapsed);
        return;
    }
    /* Redraw a terminal line at most 10 times a second; a log gets a line every 2 s. */
    if (p->phase != TB_PHASE_INIT && t - pr->last < (pr->tty ? 0.1 : 2.0))
        return;
    pr->last = t;
    double eta = p->work_done > 0 ? elapsed * (p->work_total - p->work_done) / p->work_done : 0;
    snprintf(line, sizeof line, "slice %d  %s %3d  resolved %s / %s  elapsed %.1f s  estimate %.0f s left", p->slice,
             p->phase == TB_PHASE_INIT ? "init" : "pass", p->pass, commas(p->resolved, a), commas(p->entries, b),
             elapsed, eta);
    if (pr->tty)
        fprintf(stderr, "\r%s\033[K", line);
    else
        fprintf(stderr, "%s\n", line);
}

/* ---- Statistics --------------------------------------------------------------------- */

static const char *wdl_counts(const uint64_t count[3], char *buf, size_t len)
{
    char a[32], b[32], c[32];
    snprintf(buf, len, "%s / %s / %s", commas(count[2], a), commas(count[1], b), commas(count[0], c));
    return buf;
}

/* The placement layers' W / D / L for the side to move over positions (the layer table's
 * counts), a row per goats in hand and captured count, and the value of the start. Returns
 * 1 when the file cannot be read, or the real game's start is not the published draw. */
static int print_placement_stats(const tb_t *tb, const char *dir, bool real)
{
    char msg[256];
    tbp_header_t *x = malloc(sizeof *x);
    if (!x)
        return fail1("out of memory");
    if (tbp_read_header(dir, x, msg, sizeof msg) != TB_OK) {
        free(x);
        return fail1("%s", msg);
    }
    int n = (int)x->goats_total, k = (int)x->captures_to_win;
    const tbp_layer_info_t *at[SIDE_NB][TBP_MAX_IN_HAND + 1][TB_MAX_SLICES] = {{{NULL}}};
    uint64_t total[SIDE_NB] = {0};
    for (uint32_t i = 0; i < x->layer_count; i++) {
        const tbp_layer_info_t *l = &x->layer[i];
        at[l->side][l->h][l->c] = l;
        total[l->side] += l->count[0] + l->count[1] + l->count[2];
    }
    printf("placement phase (%s): %u layers, W / D / L for the side to move, over positions\n", TBP_FILE_NAME,
           x->layer_count);
    printf("| in hand | captured | goats to move W / D / L | tigers to move W / D / L |\n");
    printf("|---|---|---|---|\n");
    for (int h = n; h >= 1; h--)
        for (int c = 0; c < k; c++) {
            if (!at[GOATS][h][c] && !at[TIGERS][h][c])
                continue;
            char g[100], t[100];
            printf("| %d | %d | %s | %s |\n", h, c,
                   at[GOATS][h][c] ? wdl_counts(at[GOATS][h][c]->count, g, sizeof g) : "-",
                   at[TIGERS][h][c] ? wdl_counts(at[TIGERS][h][c]->count, t, sizeof t) : "-");
        }
    char a[32], b[32];
    printf("placement positions: goats to move %s, tigers to move %s\n", commas(total[GOATS], a),
           commas(total[TIGERS], b));
    /* The start is answered from its own layer or by one ply into the tigers' layer below
     * it; a file without those (a partial build) would send the probe down every layer. */
    const tbp_layer_info_t *g = at[GOATS][n][0], *t = n > 1 ? at[TIGERS][n - 1][0] : NULL;
    bool answerable = (g && g->stored) || n == 1 || (t && t->stored);
    free(x);
    position_t start;
    tbp_start_position(n, &start);
    tb_value_t v;
    if (!answerable || !tb_probe(tb, &start, &v)) {
        printf("start position (goats to move, %d in hand, tigers on A1 E1 A5 E5): not covered\n", n);
        return real ? 1 : 0;
    }
    printf("start position (goats to move, %d in hand, tigers on A1 E1 A5 E5): %s", n,
           v.wdl == TB_DRAW ? "draw" : v.wdl == TB_WIN ? "the goats win" : "the tigers win");
    if (real)
        printf(" (Lim & Nievergelt: a draw; %s)", v.wdl == TB_DRAW ? "the same" : "DIFFERENT");
    printf("\n");
    return real && v.wdl != TB_DRAW ? 1 : 0;
}

static int print_stats(const char *dir)
{
    char msg[256];
    tb_t *tb;
    tb_error_t e = tb_open(dir, &tb, msg, sizeof msg);
    if (e != TB_OK) {
        fprintf(stderr, "baghchal-tbgen: %s\n", msg);
        return 1;
    }
    int n = tb_slice_count(tb);
    bool real = tb_captures_to_win(tb) == BC_CAPTURES_TO_WIN && tb_goats_total(tb) == BC_GOATS_TOTAL, all_match = real;
    uint64_t entries = 0, classes = 0, positions = 0;
    printf("goats: %d, captures to win: %d\n", tb_goats_total(tb), tb_captures_to_win(tb));
    printf("| captured | goats to move W / D / L | tigers to move W / D / L | longest |%s\n",
           real ? " published |" : "");
    printf("|---|---|---|---|%s\n", real ? "---|" : "");
    for (int c = 0; c < n; c++) {
        tb_slice_stats_t s;
        tb_slice_stats(tb, c, &s);
        char x[6][32];
        for (int side = 0; side < SIDE_NB; side++)
            for (int k = 0; k < 3; k++)
                commas(s.count[side][k], x[side * 3 + k]);
        bool match = real && s.longest == PUBLISHED_LONGEST[c] && !memcmp(s.count, PUBLISHED[c], sizeof s.count);
        all_match &= match;
        printf("| %d | %s / %s / %s | %s / %s / %s | %d |%s\n", c, x[0], x[1], x[2], x[3], x[4], x[5], s.longest,
               real ? (match ? " same |" : " DIFFERENT |") : "");
        entries += s.entries, classes += s.classes, positions += s.positions;
    }
    char a[32], b[32], d[32];
    printf("positions %s, stored entries %s, with every symmetry removed %s\n", commas(positions, a),
           commas(entries, b), commas(classes, d));
    if (real) {
        all_match &= classes == PUBLISHED_CLASSES;
        printf("published figures (Lim & Nievergelt): %s\n", all_match ? "all reproduced" : "NOT reproduced");
    }
    int rc = real && !all_match ? 1 : 0;
    if (tb_has_placement(tb)) {
        int prc = print_placement_stats(tb, dir, real);
        rc = prc > rc ? prc : rc;
    }
    tb_close(tb);
    return rc;
}

/* ---- Probe benchmark ---------------------------------------------------------------- */

static bb_t random_points(uint64_t *s, bb_t from, int k)
{
    bb_t out = 0;
    while (k) {
        int sq = (int)(cli_rng_next(s) % SQUARE_NB);
        if ((from & bb_square(sq)) && !(out & bb_square(sq)))
            out |= bb_square(sq), k--;
    }
    return out;
}

/* A random position of a placement layer: four tigers and the layer's goats anywhere. */
static void random_placement(uint64_t *seed, const tbp_layer_info_t *l, int goats_total, position_t *p)
{
    memset(p, 0, sizeof *p);
    p->tigers = random_points(seed, BB_ALL, BC_TIGERS_NB);
    p->goats = random_points(seed, BB_ALL & ~p->tigers, goats_total - l->h - l->c);
    p->side = l->side;
    p->in_hand = l->h;
    p->captured = l->c;
    p->key = position_compute_key(p);
}

/* Best of 3 rounds of tb_probe over pos: seconds per probe; the values found (first round)
 * go to wdl[loss, draw, win], the positions not covered to *missed. */
static double time_probes(const tb_t *tb, const position_t *pos, long count, uint64_t wdl[3], uint64_t *missed)
{
    double best = 1e9;
    for (int round = 0; round < 3; round++) {
        double t0 = now_s();
        for (long i = 0; i < count; i++) {
            tb_value_t v;
            bool hit = tb_probe(tb, &pos[i], &v);
            if (round == 0) {
                if (hit)
                    wdl[v.wdl + 1]++;
                else
                    (*missed)++;
            }
        }
        double dt = now_s() - t0;
        best = dt < best ? dt : best;
    }
    return count ? best / (double)count : 0;
}

/* The placement probe over random positions of every layer (the same number from each
 * layer of a side, half the positions for each side), and tb_rank_moves over every legal
 * move of random placement positions: what choosing a move from the solution costs. */
static int bench_placement(const tb_t *tb, const char *dir, long count, bool by_layer)
{
    char msg[256], a[32], b[32], c[32];
    tbp_header_t *x = malloc(sizeof *x);
    position_t *pos = malloc((size_t)count * sizeof *pos);
    if (!x || !pos) {
        free(x), free(pos);
        return fail1("out of memory");
    }
    if (tbp_read_header(dir, x, msg, sizeof msg) != TB_OK) {
        free(x), free(pos);
        return fail1("%s", msg);
    }
    int layers[SIDE_NB][TBP_MAX_LAYERS], nl[SIDE_NB] = {0, 0}, n = (int)x->goats_total;
    for (uint32_t i = 0; i < x->layer_count; i++)
        layers[x->layer[i].side][nl[x->layer[i].side]++] = (int)i;
    uint64_t seed = 54321;
    double ns[SIDE_NB] = {0, 0};
    long per_side[SIDE_NB] = {0, 0};
    for (int side = 0; side < SIDE_NB; side++) {
        if (!nl[side])
            continue;
        per_side[side] = count / 2;
        for (long i = 0; i < per_side[side]; i++)
            random_placement(&seed, &x->layer[layers[side][i % nl[side]]], n, &pos[i]);
        uint64_t wdl[3] = {0, 0, 0}, missed = 0;
        ns[side] = time_probes(tb, pos, per_side[side], wdl, &missed) * 1e9;
        bool stored = x->layer[layers[side][0]].stored;
        printf("placement probe, %s to move (%s, %d layers): %ld random positions, best of 3 rounds: %.1f ns per "
               "probe (W %s D %s L %s, not covered %llu)\n",
               side == GOATS ? "goats" : "tigers", stored ? "stored" : "one ply of probes", nl[side], per_side[side],
               ns[side], commas(wdl[2], a), commas(wdl[1], b), commas(wdl[0], c), (unsigned long long)missed);
    }
    if (per_side[GOATS] + per_side[TIGERS])
        printf("placement probe, both sides: %.1f ns per probe\n",
               (ns[GOATS] * (double)per_side[GOATS] + ns[TIGERS] * (double)per_side[TIGERS]) /
                   (double)(per_side[GOATS] + per_side[TIGERS]));
    /* Each layer alone: a fiftieth of the probes of random positions of it. */
    long each = count / 50 > 0 ? count / 50 : 1;
    for (uint32_t i = 0; by_layer && i < x->layer_count; i++) {
        const tbp_layer_info_t *l = &x->layer[i];
        for (long j = 0; j < each; j++)
            random_placement(&seed, l, n, &pos[j]);
        uint64_t wdl[3] = {0, 0, 0}, missed = 0;
        double t = time_probes(tb, pos, each, wdl, &missed) * 1e9;
        printf("layer %s h=%2d c=%d (%2d goats on the board): %ld random positions, %.1f ns per probe (W %s D %s L %s, "
               "not covered %llu)\n",
               l->side == GOATS ? "goats " : "tigers", l->h, l->c, n - l->h - l->c, each, t, commas(wdl[2], a),
               commas(wdl[1], b), commas(wdl[0], c), (unsigned long long)missed);
    }

    /* Choosing a move: as many positions as a hundredth of the probes, every layer in turn,
     * each timed alone; the best of 3 rounds over the same positions, as for the probes. */
    long ranks = count / 100 > 0 ? count / 100 : 1;
    if (ranks > count)
        ranks = count; /* pos[] holds count positions */
    double sum = 0, worst = 0, side_sum[SIDE_NB] = {0, 0};
    long missed = 0, agree = 0, side_count[SIDE_NB] = {0, 0};
    for (long i = 0; i < ranks && x->layer_count; i++)
        random_placement(&seed, &x->layer[i % (long)x->layer_count], n, &pos[i]);
    for (int round = 0; round < 3 && x->layer_count; round++) {
        double r_sum = 0, r_worst = 0, r_side[SIDE_NB] = {0, 0};
        for (long i = 0; i < ranks; i++) {
            const position_t *p = &pos[i];
            move_t moves[MAX_MOVES];
            tb_move_value_t ranked[MAX_MOVES];
            int nm = gen_moves(p, moves);
            double t0 = now_s();
            int keep = tb_rank_moves(tb, p, moves, nm, ranked);
            double dt = now_s() - t0;
            r_sum += dt, r_worst = dt > r_worst ? dt : r_worst;
            r_side[p->side] += dt;
            if (round)
                continue;
            side_count[p->side]++;
            tb_value_t v;
            if (keep < 0)
                missed++;
            else if (tb_probe(tb, p, &v) && (nm ? ranked[0].value.wdl == v.wdl : v.wdl == TB_LOSS))
                agree++;
        }
        if (round == 0 || r_sum < sum)
            sum = r_sum, worst = r_worst, side_sum[0] = r_side[0], side_sum[1] = r_side[1];
    }
    printf("choosing a move (tb_rank_moves over every legal move): %ld random placement positions of every layer, "
           "best of 3 rounds: %.2f us average, %.1f us max (not covered %ld; best move's value = the probe's in %ld)\n",
           ranks, sum * 1e6 / (double)ranks, worst * 1e6, missed, agree);
    printf("choosing a move by the side to move: goats %.2f us average over %ld positions, tigers %.2f us over %ld\n",
           side_count[GOATS] ? side_sum[GOATS] * 1e6 / (double)side_count[GOATS] : 0, side_count[GOATS],
           side_count[TIGERS] ? side_sum[TIGERS] * 1e6 / (double)side_count[TIGERS] : 0, side_count[TIGERS]);
    free(x), free(pos);
    return 0;
}

static int bench_probe(const char *dir, long count, bool by_layer)
{
    char msg[256];
    tb_t *tb;
    double t_open = now_s();
    if (tb_open(dir, &tb, msg, sizeof msg) != TB_OK)
        return fail1("%s", msg);
    printf("open (map and check every checksum): %.1f ms\n", (now_s() - t_open) * 1e3);
    position_t *pos = malloc((size_t)count * sizeof *pos);
    if (!pos) {
        tb_close(tb);
        return fail1("out of memory");
    }
    /* Positions uniform over all positions of the database: slices weighted by size. */
    int goats = tb_goats_total(tb);
    uint64_t total = 0, seed = 12345;
    int n = tb_slice_count(tb);
    for (int c = 0; c < n; c++)
        total += tb_slice_size_game(goats, c);
    for (long i = 0; i < count; i++) {
        uint64_t r = cli_rng_next(&seed) % total;
        int c = 0;
        while (r >= tb_slice_size_game(goats, c))
            r -= tb_slice_size_game(goats, c++);
        position_t *p = &pos[i];
        p->tigers = random_points(&seed, BB_ALL, BC_TIGERS_NB);
        p->goats = BB_ALL & ~p->tigers & ~random_points(&seed, BB_ALL & ~p->tigers, 21 - goats + c);
        p->side = (uint8_t)(cli_rng_next(&seed) & 1);
        p->in_hand = 0;
        p->captured = (uint8_t)c;
        p->key = position_compute_key(p);
    }
    uint64_t sum = 0;
    double best = 1e9;
    for (int round = 0; round < 3; round++) {
        double t0 = now_s();
        for (long i = 0; i < count; i++) {
            tb_value_t v;
            if (tb_probe(tb, &pos[i], &v))
                sum += (uint64_t)(v.wdl + 1) * 256 + v.distance;
        }
        double dt = now_s() - t0;
        best = dt < best ? dt : best;
    }
    printf("probe: %ld random positions, best of 3 rounds: %.1f ns per probe (checksum %llu)\n", count,
           best * 1e9 / (double)count, (unsigned long long)sum);
    free(pos);
    int rc = 0;
    if (tb_has_placement(tb))
        rc = bench_placement(tb, dir, count, by_layer);
    else
        printf("no placement file (%s): the movement phase only\n", TBP_FILE_NAME);
    tb_close(tb);
    return rc;
}

/* ---- The placement phase ------------------------------------------------------------ */

static void on_place_progress(void *ctx, const tbp_progress_t *p)
{
    (void)ctx;
    char a[32], b[32], c[32], d[32];
    double eta = p->work_done > 0 ? p->elapsed * (p->work_total - p->work_done) / p->work_done : 0;
    fprintf(stderr, "layer %s h=%2d c=%d: %s entries %s in %.1f s (elapsed %.0f s, about %.0f s left): W %s D %s L %s\n",
            p->side == 0 ? "goats " : "tigers", p->h, p->c, commas(p->entries, a), p->built ? "built" : "loaded",
            p->seconds, p->elapsed, eta, commas(p->count[2], b), commas(p->count[1], c), commas(p->count[0], d));
}

static void on_merge_progress(void *ctx, int c, uint64_t bytes)
{
    (void)ctx;
    char a[32];
    if (bytes)
        fprintf(stderr, "packed the tigers-to-move layers with %d captured: %s bytes\n", c, commas(bytes, a));
}

/* The packed layers are no longer needed once the file is written. */
static void remove_work(const char *work)
{
    DIR *d = opendir(work);
    if (!d)
        return;
    struct dirent *e;
    char path[4400];
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".pk") || strstr(e->d_name, ".rec")) {
            snprintf(path, sizeof path, "%s/%s", work, e->d_name);
            unlink(path);
        }
    closedir(d);
    if (rmdir(work) == 0)
        fprintf(stderr, "removed %s\n", work);
}

/* Whether dir's placement file is whole and right (every checksum) and holds exactly the
 * layers a build with these limits makes. */
static bool placement_done(const char *dir, int max_in_hand, int min_goats)
{
    tb_t *tb;
    char msg[256];
    if (tb_open(dir, &tb, msg, sizeof msg) != TB_OK)
        return false;
    bool has = tb_has_placement(tb);
    int n = tb_goats_total(tb), k = tb_captures_to_win(tb);
    tb_close(tb);
    tbp_header_t *x = malloc(sizeof *x);
    if (!has || !x || tbp_read_header(dir, x, msg, sizeof msg) != TB_OK) {
        free(x);
        return false;
    }
    uint32_t want = 0;
    bool same = true;
    for (int side = 0; side < SIDE_NB; side++)
        for (int h = 1; h <= n; h++)
            for (int c = 0; c < k; c++)
                if (tbp_layer_exists(n, k, side, h, c) && tbp_layer_in_scope(n, side, h, c, max_in_hand, min_goats)) {
                    same &= want < x->layer_count && x->layer[want].side == side && x->layer[want].h == h &&
                            x->layer[want].c == c;
                    want++;
                }
    same &= want == x->layer_count;
    free(x);
    return same;
}

/* A placement file of a newer format than this program writes is not built over (the
 * program is the older one) unless asked: returns its version, or 0. */
static unsigned newer_placement(const char *path)
{
    uint8_t head[12];
    int fd = tb_open_regular(path, O_RDONLY, NULL, 0);
    if (fd < 0)
        return 0;
    bool ok = tb_pread_all(fd, head, sizeof head, 0);
    close(fd);
    unsigned v = ok && !memcmp(head, "BAGHCHPL", 8) ? (unsigned)tb_get_le(head + 8, 4) : 0;
    return v > TBP_FILE_VERSION ? v : 0;
}

/* What the build writes must be a regular file or missing, its work folder a folder: found
 * before the build, not after minutes of it. */
static int check_outputs(const char *path, const char *work)
{
    char sp[TB_PATH_SHOWN];
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return fail1("%s is %s: remove it", tb_path_shown(path, sp),
                     S_ISDIR(st.st_mode)    ? "a directory, not a file"
                     : S_ISFIFO(st.st_mode) ? "a FIFO, not a regular file"
                                            : "not a regular file");
    if (stat(work, &st) == 0 && !S_ISDIR(st.st_mode))
        return fail1("%s is not a directory: remove it", tb_path_shown(work, sp));
    return 0;
}

/* What a placement build will write, looked at before anything is built: 1 (with the
 * reason said) when it cannot or must not be written. */
static int placement_writable(const char *dir, bool restart)
{
    char work[TB_PATH_MAX + 32], path[TB_PATH_MAX + 32], sp[TB_PATH_SHOWN];
    snprintf(path, sizeof path, "%s/%s", dir, TBP_FILE_NAME);
    snprintf(work, sizeof work, "%s/placement-work", dir);
    if (check_outputs(path, work))
        return 1;
    unsigned newer = newer_placement(path);
    if (newer && !restart)
        return fail1("%s is version %u, newer than this program (version %d): not built over; use the newer "
                     "program (--restart replaces it with version %d)",
                     tb_path_shown(path, sp), newer, TBP_FILE_VERSION, TBP_FILE_VERSION);
    return 0;
}

static int build_placement(const char *dir, int threads, bool restart, int max_in_hand, int min_goats, bool keep_work,
                           int stop_after, int stop_after_arrays)
{
    char msg[256], work[TB_PATH_MAX + 32], path[TB_PATH_MAX + 32], sp[TB_PATH_SHOWN];
    snprintf(path, sizeof path, "%s/%s", dir, TBP_FILE_NAME);
    snprintf(work, sizeof work, "%s/placement-work", dir);
    if (!restart && placement_done(dir, max_in_hand, min_goats)) {
        fprintf(stderr, "%s: already built, every checksum verified\n", path);
        return 0;
    }
    tb_t *tb;
    if (tb_open_movement(dir, &tb, msg, sizeof msg) != TB_OK)
        return fail1("%s", msg);
    if (restart)
        unlink(path); /* built again from the first layer: the old file is no longer the result */
    if (mkdir(work, 0755) != 0 && errno != EEXIST) {
        tb_close(tb);
        return fail1("cannot create %s: %s", tb_path_shown(work, sp), strerror(errno));
    }
    tbp_gen_options_t o;
    tbp_gen_options_init(&o, work);
    o.threads = threads;
    o.restart = restart;
    o.max_in_hand = max_in_hand;
    o.min_goats = min_goats;
    o.stop_after = stop_after;
    o.file = path; /* an interrupted merge goes on: its arrays are not built again */
    o.keep_goats = keep_work; /* kept for checks: the goats' values too */
    o.progress = on_place_progress;
    double t0 = now_s();
    tb_error_t e = tbp_generate(&o, tb, msg, sizeof msg);
    if (e != TB_OK) {
        tb_close(tb);
        return fail1("%s", msg);
    }
    fprintf(stderr, "placement layers built in %.1f s\n", now_s() - t0);
    t0 = now_s();
    tbp_merge_options_t m;
    tbp_merge_options_init(&m, work, path, tb_goats_total(tb), tb_captures_to_win(tb));
    m.max_in_hand = max_in_hand, m.min_goats = min_goats, m.threads = threads;
    m.remove_packed = !keep_work;
    m.stop_after = stop_after_arrays;
    m.progress = on_merge_progress;
    e = tbp_merge(&m, msg, sizeof msg);
    tb_close(tb);
    if (e != TB_OK)
        return fail1("%s", msg);
    fprintf(stderr, "wrote %s in %.1f s\n", path, now_s() - t0);
    if (!keep_work)
        remove_work(work);
    return 0;
}

/* ---- The build ------------------------------------------------------------------------ */

typedef struct {
    const char *dir;
    bool placement, default_dir;
    int max_in_hand, min_goats;
    bool keep_work;
    int stop_after, stop_after_arrays;
} build_t;

/* The movement database, then with b->placement the placement solution; then statistics. */
static int build(tb_gen_options_t *o, progress_t *pr, const build_t *b)
{
    const char *dir = b->dir;
    char msg[256];
    if (b->placement && placement_writable(dir, o->restart))
        return 1;
    fprintf(stderr, "building %s/%s: %d captures win, %d thread%s\n", dir, TB_FILE_NAME, o->captures_to_win,
            o->threads, o->threads == 1 ? "" : "s");
    tb_error_t e = tb_generate(o, msg, sizeof msg);
    if (e != TB_OK) {
        fprintf(stderr, "%sbaghchal-tbgen: %s\n", pr->tty ? "\r\033[K" : "", msg);
        return 1;
    }
    fprintf(stderr, "built in %.1f s\n", now_s() - pr->start);
    if (b->placement) {
        int rc = build_placement(dir, o->threads, o->restart, b->max_in_hand, b->min_goats, b->keep_work,
                                 b->stop_after, b->stop_after_arrays);
        if (!rc && b->default_dir)
            fprintf(stderr, "baghchal, baghchal-server and baghchal-referee find the databases in %s\n", dir);
        return rc ? rc : print_stats(dir);
    }
    if (o->slice >= 0) {
        tb_t *tb;
        if (tb_open(dir, &tb, msg, sizeof msg) != TB_OK) {
            printf("statistics follow once every slice is built (%s)\n", msg);
            return 0;
        }
        tb_close(tb);
    }
    return print_stats(dir);
}

/* ---- Under the rule books' rule (--forbid) --------------------------------------------- */

/* A progress line of the solve: what runs on slice c, done of total. */
static void forbid_progress(progress_t *pr, int c, const char *what, uint64_t done, uint64_t total)
{
    double t = now_s();
    if (done < total && t - pr->last < (pr->tty ? 0.1 : 2.0))
        return;
    pr->last = t;
    char a[32], b[32];
    fprintf(stderr, "%sslice %d: %s %s / %s, elapsed %.1f s%s", pr->tty ? "\r\033[K" : "", c, what, commas(done, a),
            commas(total, b), t - pr->start, pr->tty ? "" : "\n");
}

static void on_forbid_search(void *ctx, int c, uint64_t done, uint64_t total)
{
    forbid_progress(ctx, c, "search with the history, draws", done, total);
}

static void on_forbid_settle(void *ctx, int c, uint64_t done, uint64_t total)
{
    forbid_progress(ctx, c, "the prover on what the search left open,", done, total);
}

static void on_forbid_slice(void *ctx, int c, const tbf_header_t *h, bool built)
{
    progress_t *pr = ctx;
    const tbf_layer_stats_t *s = &h->slice[c].stats;
    char a[32], b[32], d[32];
    char f[32], o[32], r[96] = "";
    if (built && s->resumed)
        snprintf(r, sizeof r, " (%s of its roots' work read back from the checkpoint)", commas(s->resumed, a));
    fprintf(stderr,
            "%sslice %d: %s%s, %s draws, %s entries left to the history search (%s positions), %s of them settled "
            "by the prover, %s positions open, %.1f s\n",
            pr->tty ? "\r\033[K" : "", c, built ? "solved" : "already solved, checksum verified", r,
            commas(s->draws[0] + s->draws[1], a), commas(s->core, b), commas(s->search_nodes, d),
            commas(s->settled, f), commas(s->open[0] + s->open[1], o), h->slice[c].seconds);
}

static void on_forbid_place(void *ctx, int variant, const tbp_progress_t *p)
{
    progress_t *pr = ctx;
    char a[32];
    fprintf(stderr, "%splacement (open = %s lose): layer %s h=%2d c=%d: %s entries %s in %.1f s (elapsed %.0f s)\n",
            pr->tty ? "\r\033[K" : "", variant ? "tigers" : "goats", p->side == GOATS ? "goats " : "tigers", p->h,
            p->c, commas(p->entries, a), p->built ? "built" : "loaded", p->seconds, now_s() - pr->start);
}

static const char *start_text(int v) { return v > 0 ? "the goats win" : v < 0 ? "the tigers win" : "a draw"; }

/* The counts of a placement layer under the draw rule, from the placement file. */
static const tbp_layer_info_t *draw_layer(const tbp_header_t *x, int side, int h, int c)
{
    for (uint32_t i = 0; i < x->layer_count; i++)
        if (x->layer[i].side == side && x->layer[i].h == h && x->layer[i].c == c)
            return &x->layer[i];
    return NULL;
}

static int print_forbid(const char *dir, const tbf_header_t *h)
{
    char a[32], b[32], c3[32], d[32], e[32];
    printf("under forbid, every position a game's start (goats %u, %u captures win):\n", h->goats_total,
           h->captures_to_win);
    printf("| captured | side to move | draw-rule draws | goats win | tigers win | open | by the history search | time |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    for (int c = (int)h->captures_to_win - 1; c >= 0; c--) {
        const tbf_layer_stats_t *s = &h->slice[c].stats;
        for (int side = 0; side < SIDE_NB; side++) {
            uint64_t gw = side == GOATS ? s->won[side] : s->lost[side], tw = side == GOATS ? s->lost[side] : s->won[side];
            printf("| %d | %s | %s | %s | %s | %s | %s | %.1f s |\n", c, side == GOATS ? "goats" : "tigers",
                   commas(s->draws[side], a), commas(gw, b), commas(tw, c3), commas(s->open[side], d),
                   commas(s->draws[side] - s->by_retro[side], e), side ? h->slice[c].seconds : 0.0);
        }
    }
    if (!h->placement_built)
        return 0;
    tbp_header_t *x = malloc(sizeof *x);
    char msg[256];
    if (!x || tbp_read_header(dir, x, msg, sizeof msg) != TB_OK) {
        free(x);
        return fail1("%s", x ? msg : "out of memory");
    }
    printf("placement phase under forbid (the movement leaves above; each build counts what is open against one "
           "side%s):\n",
           h->placement_twins ? ", and gives the layers whose boards can come back that side's loss" : "");
    printf("| in hand | captured | side to move | boards can come back | positions | draw rule: goats win / draw / "
           "tigers win | forbid: goats win | tigers win | open |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    uint64_t tot[SIDE_NB][7] = {{0}};
    for (uint32_t i = 0; i < h->place_layers; i++) {
        const tbf_place_info_t *p = &h->place[i];
        const tbp_layer_info_t *l = draw_layer(x, p->side, p->h, p->c);
        if (!l)
            continue;
        /* Variant 0 is the goats' worst case, variant 1 the tigers'. */
        uint64_t all = p->count[0][0] + p->count[0][1] + p->count[0][2], gw, tw;
        uint64_t dgw = p->side == GOATS ? l->count[2] : l->count[0], dtw = p->side == GOATS ? l->count[0] : l->count[2];
        if (p->side == GOATS)
            gw = p->count[0][2], tw = p->count[1][0];
        else
            tw = p->count[1][2], gw = p->count[0][0];
        uint64_t open = all - gw - tw, row[7] = {all, dgw, l->count[1], dtw, gw, tw, open};
        char r[7][32];
        for (int k = 0; k < 7; k++)
            tot[p->side][k] += row[k], commas(row[k], r[k]);
        bool twin = h->placement_twins && tbp_layer_has_twins((int)h->captures_to_win, p->h, p->c);
        printf("| %d | %d | %s | %s | %s | %s / %s / %s | %s | %s | %s |\n", p->h, p->c,
               p->side == GOATS ? "goats" : "tigers", twin ? "yes" : "no", r[0], r[1], r[2], r[3], r[4], r[5], r[6]);
    }
    for (int side = 0; side < SIDE_NB; side++) {
        char r[7][32];
        for (int k = 0; k < 7; k++)
            commas(tot[side][k], r[k]);
        printf("| all | all | %s | | %s | %s / %s / %s | %s | %s | %s |\n", side == GOATS ? "goats" : "tigers", r[0], r[1],
               r[2], r[3], r[4], r[5], r[6]);
    }
    free(x);
    printf("start position: under the draw rule %s; under forbid %s\n", start_text(h->start_draw_rule),
           h->start_value[0] == h->start_value[1] ? start_text(h->start_value[0] == TBF_WIN ? 1 : -1)
                                                  : "open (the two builds differ: it depends on movement positions left "
                                                    "open or on boards that can come back)");
    uint64_t open = 0;
    for (uint32_t c = 0; c < h->captures_to_win; c++)
        open += h->slice[c].stats.open[GOATS] + h->slice[c].stats.open[TIGERS];
    printf("placement phase under forbid built in %.1f s (%s)\n", h->place_seconds,
           open || h->placement_twins ? "both builds" : "one build: nothing open, no board that can come back");
    return 0;
}

typedef struct {
    const tb_t *tb;
    fb_prover_t *pr;
    uint64_t nodes;
} settle_t;

/* The size of a settling prover's table for proofs of up to nodes positions: about 80 bytes
 * a position (a proof keeps one 24-byte entry for each position it expands), 1 to 64 MB. A
 * table much larger than the proofs only spreads them over more cache lines and pages: at the
 * default 100,000 positions, 8 MB settled the same three-capture positions 13% faster than
 * 64 MB. */
static size_t prover_mb(uint64_t nodes)
{
    uint64_t mb = nodes / 12500;
    return mb < 1 ? 1 : mb > 64 ? 64 : (size_t)mb;
}

/* The prover on a position the search left open, taken as a game's start (above: NULL for
 * --forbid-check, whose prover reads the draw rule's database only). */
static int settle_open(void *ctx, const position_t *p, const tbf_above_t *above)
{
    settle_t *x = ctx;
    game_t g;
    if (!game_init(&g, p, NULL, REP_FORBID))
        return TBF_OPEN;
    fb_limits_t lim = {x->nodes, 0, NULL, above ? tbf_above_leaf : NULL, (void *)above};
    fb_proof_t proof;
    fb_result_t r = fb_prove(x->pr, x->tb, &g, &lim, &proof);
    game_free(&g);
    return r == FB_WIN ? TBF_WIN : r == FB_LOSS ? TBF_LOSS : TBF_OPEN;
}

/* --forbid-check N: N draws of the draw rule drawn at random in each slice, the file's value
 * against the prover's (a game's start each); 1 when they ever disagree. */
static int check_forbid(const char *dir, uint64_t count, uint64_t prove_nodes)
{
    char msg[256];
    tb_t *tb;
    if (tb_open_movement(dir, &tb, msg, sizeof msg) != TB_OK)
        return fail1("%s", msg);
    tbf_header_t *h = malloc(sizeof *h);
    if (!prove_nodes)
        prove_nodes = 100000;
    settle_t st = {tb, fb_prover_new(prover_mb(prove_nodes)), prove_nodes};
    int rc = 0;
    if (!h || !st.pr)
        rc = fail1("out of memory");
    else if (tbf_read_header(dir, h, msg, sizeof msg) != TB_OK)
        rc = fail1("%s", msg);
    for (int c = 0; c < tb_captures_to_win(tb) && !rc; c++) {
        uint64_t size = tb_slice_entries(tb, c), draws = 0, agree = 0, differ = 0, open_here = 0, open_prover = 0;
        uint8_t *v = malloc(2 * size);
        if (!v || tbf_read_slice(dir, h, c, v, msg, sizeof msg) != TB_OK) {
            free(v);
            rc = fail1("%s", v ? msg : "out of memory");
            break;
        }
        uint64_t seed = cli_rng_stream(1, (uint64_t)c), all = 0;
        for (int side = 0; side < SIDE_NB; side++)
            for (uint64_t i = 0; i < size; i++)
                all += tb_slice_values(tb, c, side)[i] == 0xFF;
        while (draws < count && all) {
            uint64_t r = cli_rng_next(&seed) % (2 * size);
            int side = (int)(r / size);
            uint64_t i = r % size;
            if (tb_slice_values(tb, c, side)[i] != 0xFF)
                continue;
            position_t p;
            tb_index_position_game(tb_index(tb), tb_goats_total(tb), c, side, i, &p);
            int mine = v[r], theirs = settle_open(&st, &p, NULL);
            draws++;
            if (mine == TBF_OPEN)
                open_here++;
            else if (theirs == TBF_OPEN)
                open_prover++;
            else if (mine == theirs)
                agree++;
            else {
                differ++;
                fprintf(stderr, "slice %d side %d entry %llu: the file says %d, the prover %d\n", c, side,
                        (unsigned long long)i, mine, theirs);
            }
        }
        free(v);
        char a[32];
        printf("slice %d: %s draws sampled: %llu agree, %llu differ, %llu open in the file, %llu the prover leaves open\n",
               c, commas(draws, a), (unsigned long long)agree, (unsigned long long)differ,
               (unsigned long long)open_here, (unsigned long long)open_prover);
        if (differ)
            rc = 1;
    }
    fb_prover_free(st.pr);
    free(h);
    tb_close(tb);
    return rc;
}

static int build_forbid(const char *dir, const tb_gen_options_t *g, bool placement, uint64_t root_nodes,
                        uint64_t prove_nodes, bool game_given)
{
    char msg[256];
    tb_t *tb;
    if (tb_open_movement(dir, &tb, msg, sizeof msg) != TB_OK)
        return fail1("%s (build the draw rule's database there first)", msg);
    int K = tb_captures_to_win(tb), n = tb_goats_total(tb);
    /* A prover for each thread that settles (a prover is not shared). */
    int nt = g->threads < 1 ? 1 : g->threads > TB_MAX_THREADS ? TB_MAX_THREADS : g->threads;
    settle_t st[TB_MAX_THREADS];
    void *stp[TB_MAX_THREADS];
    bool ok = true;
    for (int t = 0; t < nt; t++) {
        st[t] = (settle_t){tb, prove_nodes ? fb_prover_new(prover_mb(prove_nodes)) : NULL, prove_nodes};
        stp[t] = &st[t];
        ok &= !prove_nodes || st[t].pr;
    }
    if (!ok || (game_given && (K != g->captures_to_win || n != g->goats_total))) {
        for (int t = 0; t < nt; t++)
            fb_prover_free(st[t].pr);
        tb_close(tb);
        if (!ok)
            return fail1("out of memory");
        return fail1("%s holds the game of %d goats and %d captures to win, not %d and %d", dir, n, K, g->goats_total,
                     g->captures_to_win);
    }
    /* The file, each slice's checkpoint and the placement's work folders: a FIFO among them
     * would otherwise be found (and wait for good) only after the search. */
    char path[TB_PATH_MAX + 64], work[TB_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, TBF_FILE_NAME);
    snprintf(work, sizeof work, "%s/forbid-work-0", dir);
    int bad = check_outputs(path, work);
    snprintf(work, sizeof work, "%s/forbid-work-1", dir);
    for (int c = 0; c < K && !bad; c++) {
        snprintf(path, sizeof path, "%s/forbid-slice-%d.ckpt", dir, c);
        bad = check_outputs(path, work);
    }
    if (bad) {
        for (int t = 0; t < nt; t++)
            fb_prover_free(st[t].pr);
        tb_close(tb);
        return bad;
    }
    progress_t pr = {now_s(), 0, isatty(STDERR_FILENO) != 0};
    tbf_build_options_t o;
    memset(&o, 0, sizeof o);
    o.dir = dir, o.threads = g->threads, o.restart = g->restart, o.placement = placement;
    tbf_options_init(&o.solve);
    o.solve.root_nodes = root_nodes;
    if (prove_nodes)
        o.solve.settle = settle_open, o.solve.settle_ctx = &st[0], o.solve.settle_threads = nt,
        o.solve.settle_ctxs = stp;
    o.solve.progress = on_forbid_search, o.solve.settle_progress = on_forbid_settle, o.solve.ctx = &pr;
    o.on_slice = on_forbid_slice, o.on_place = on_forbid_place, o.ctx = &pr;
    fprintf(stderr, "solving %s/%s under forbid: %d goats, %d captures win\n", dir, TBF_FILE_NAME, n, K);
    tbf_header_t *h = malloc(sizeof *h);
    tb_error_t e = h ? tbf_build(&o, h, msg, sizeof msg) : TB_ERR_NO_MEMORY;
    for (int t = 0; t < nt; t++)
        fb_prover_free(st[t].pr);
    tb_close(tb);
    if (!h)
        return fail1("out of memory");
    int rc = e == TB_OK ? print_forbid(dir, h) : fail1("%s", msg);
    if (e == TB_OK)
        fprintf(stderr, "done in %.1f s\n", now_s() - pr.start);
    free(h);
    return rc;
}

/* ---- Main ---------------------------------------------------------------------------- */

/* mkdir -p: the directory and any missing parents. */
static bool make_dirs(const char *dir)
{
    char *path = strdup(dir);
    if (!path)
        return false;
    bool ok = true;
    for (char *p = path + 1; ok; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        ok = mkdir(path, 0777) == 0 || errno == EEXIST;
        *p = c;
        if (!c)
            break;
    }
    free(path);
    return ok;
}

/* Writes the endgame bitbase (engine/bitbase.h) of the movement database in dir as the C
 * source the library builds in (engine/bitbase_data.c): every tigers-to-move entry with at
 * most BITBASE_MAX_CAPTURED goats captured, 2 bits each. */
static int write_bitbase(const char *dir, const char *path)
{
    char msg[256];
    tb_t *tb;
    if (tb_open_game(dir, &tb, msg, sizeof msg) != TB_OK)
        return fail1("%s", msg);
    uint32_t entries = 0;
    for (int c = 0; c <= BITBASE_MAX_CAPTURED; c++)
        entries += (uint32_t)tb_slice_size(c);
    size_t body = BITBASE_HEADER + ((size_t)entries + 3) / 4, len = body + 4;
    uint8_t *data = calloc(len, 1);
    if (!data) {
        tb_close(tb);
        return fail1("not enough memory for the bitbase (%zu bytes)", len);
    }
    memcpy(data, "BCBB", 4);
    tb_put_le(data + 4, BITBASE_VERSION, 2);
    tb_put_le(data + 6, BITBASE_MAX_CAPTURED, 2);
    tb_put_le(data + 8, entries, 4);
    uint64_t count[3] = {0, 0, 0};
    uint32_t at = 0;
    for (int c = 0; c <= BITBASE_MAX_CAPTURED; c++)
        for (uint64_t i = 0; i < tb_slice_size(c); i++, at++) {
            position_t pos;
            tb_value_t v;
            tb_entry(tb, c, TIGERS, i, &pos, &v);
            int code = v.wdl + 1;
            count[code]++;
            data[BITBASE_HEADER + at / 4] |= (uint8_t)(code << 2 * (at % 4));
        }
    tb_close(tb);
    tb_put_le(data + body, eval_fnv1a(data, body, EVAL_FNV_START), 4);
    FILE *f = fopen(path, "w");
    if (!f) {
        free(data);
        return fail1("cannot write '%s': %s", path, strerror(errno));
    }
    fprintf(f, "/* The endgame bitbase built into the library, in the format of bitbase.h (read and\n"
               " * checked by bitbase_load): the tigers-to-move values of the movement database with at\n"
               " * most %d goat captured, %u entries (tigers win %llu, draw %llu, lose %llu).\n"
               " * Generated: do not edit; made by\n"
               " *     baghchal-tbgen --bitbase engine/bitbase_data.c DIR */\n"
               "#include \"bitbase.h\"\n\nconst uint8_t BITBASE_DATA[] = {",
            BITBASE_MAX_CAPTURED, entries, (unsigned long long)count[2], (unsigned long long)count[1],
            (unsigned long long)count[0]);
    for (size_t i = 0; i < len; i++)
        fprintf(f, "%s0x%02X,", i % 16 ? " " : "\n    ", data[i]);
    fprintf(f, "\n};\nconst size_t BITBASE_SIZE = sizeof BITBASE_DATA;\n");
    free(data);
    if (fclose(f) != 0)
        return fail1("cannot write '%s': %s", path, strerror(errno));
    printf("bitbase: %u entries, %zu bytes, written to %s\n", entries, len, path);
    return 0;
}

int main(int argc, char **argv)
{
    cli_program = "baghchal-tbgen";
    const char *dir = NULL;
    char sp[TB_PATH_SHOWN], sp2[TB_PATH_SHOWN];
    bool stats_only = false, bench = false, by_layer = false, placement = false;
    int max_in_hand = 0, min_goats = 0;
    bool keep_work = false;
    int stop_after = 0, stop_after_arrays = 0;
    long count = 1000000;
    const char *bitbase = NULL;
    bool forbid = false, game_given = false;
    uint64_t root_nodes = 0, prove_nodes = 100000, forbid_check = 0;
    tb_gen_options_t o;
    tb_gen_options_init(&o, NULL);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o.threads = ncpu > 0 ? (int)(ncpu < 64 ? ncpu : 64) : 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--threads"))
            o.threads = (int)cli_int(a, i + 1 < argc ? argv[++i] : NULL, 1, 64);
        else if (!strcmp(a, "--slice"))
            o.slice = (int)cli_int(a, i + 1 < argc ? argv[++i] : NULL, 0, TB_MAX_SLICES - 1);
        else if (!strcmp(a, "--goats"))
            game_given = true, o.goats_total = (int)cli_int(a, i + 1 < argc ? argv[++i] : NULL, 1, BC_GOATS_TOTAL);
        else if (!strcmp(a, "--captures-to-win"))
            game_given = true, o.captures_to_win = (int)cli_int(a, i + 1 < argc ? argv[++i] : NULL, 1, TB_MAX_SLICES);
        else if (!strcmp(a, "--count"))
            count = cli_int(a, i + 1 < argc ? argv[++i] : NULL, 1, 100000000);
        else if (!strcmp(a, "--restart"))
            o.restart = true;
        else if (!strcmp(a, "--placement"))
            placement = true;
        else if (!strcmp(a, "--keep-work"))
            keep_work = true;
        else if (!strcmp(a, "--stop-after"))
            stop_after = (int)cli_int(a, i + 1 < argc ? argv[++i] : NULL, 1, 1000);
        else if (!strcmp(a, "--stop-after-arrays"))
            stop_after_arrays = (int)cli_int(a, i + 1 < argc ? argv[++i] : NULL, 1, TB_MAX_SLICES);
        else if (!strcmp(a, "--max-in-hand"))
            max_in_hand = (int)cli_int(a, i + 1 < argc ? argv[++i] : NULL, 1, BC_GOATS_TOTAL);
        else if (!strcmp(a, "--min-goats"))
            min_goats = (int)cli_int(a, i + 1 < argc ? argv[++i] : NULL, 0, BC_GOATS_TOTAL);
        else if (!strcmp(a, "--forbid"))
            forbid = true;
        else if (!strcmp(a, "--forbid-check"))
            forbid_check = (uint64_t)cli_int(a, i + 1 < argc ? argv[++i] : NULL, 1, 100000000);
        else if (!strcmp(a, "--prove-nodes"))
            prove_nodes = (uint64_t)cli_int(a, i + 1 < argc ? argv[++i] : NULL, 0, 1000000000000LL);
        else if (!strcmp(a, "--root-nodes"))
            root_nodes = (uint64_t)cli_int(a, i + 1 < argc ? argv[++i] : NULL, 1, 1000000000000LL);
        else if (!strcmp(a, "--stats"))
            stats_only = true;
        else if (!strcmp(a, "--bench-probe"))
            bench = true;
        else if (!strcmp(a, "--by-layer"))
            by_layer = true;
        else if (!strcmp(a, "--bitbase")) {
            if (i + 1 >= argc)
                cli_die("--bitbase needs a file name");
            bitbase = argv[++i];
        }
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(USAGE, stdout);
            return 0;
        } else if (a[0] == '-')
            cli_die("unknown option '%s'", a);
        else if (dir)
            cli_die("more than one directory given ('%s' and '%s')", tb_path_shown(dir, sp), tb_path_shown(a, sp2));
        else
            dir = a;
    }
    char standard[TB_PATH_MAX];
    bool default_dir = !dir;
    if (default_dir) {
        if (!tb_default_dir(standard, sizeof standard))
            cli_die("no directory given, and %s turns the standard folder off (see --help)", TB_PATH_ENV);
        dir = standard;
        placement = true; /* the standard folder gets the whole solution: one command to perfect play */
    }
    if (strlen(dir) > TB_PATH_MAX - 64)
        cli_die("cannot use the directory '%s': %s", tb_path_shown(dir, sp), strerror(ENAMETOOLONG));
    if (o.goats_total < o.captures_to_win)
        cli_die("--goats must be at least --captures-to-win (%d)", o.captures_to_win);
    if (o.slice >= o.captures_to_win)
        cli_die("--slice must be below --captures-to-win (%d)", o.captures_to_win);
    if (by_layer && !bench)
        cli_die("--by-layer goes with --bench-probe");
    if (stop_after_arrays && !placement)
        cli_die("--stop-after-arrays goes with --placement");
    if (forbid && (default_dir || bench || stats_only))
        cli_die("--forbid needs a folder, and goes with neither --stats nor --bench-probe");
    /* Nothing is created before the inputs are known good. --forbid and --forbid-check read the
     * draw rule's database from the folder, so they never create it. */
    bool reads_only = stats_only || bench || forbid_check || bitbase;
    struct stat dst;
    if ((forbid || forbid_check) && stat(dir, &dst) != 0)
        cli_fail("'%s' does not exist: build the draw rule's database there first (baghchal-tbgen %s)",
                tb_path_shown(dir, sp), tb_path_shown(dir, sp2));
    if (!reads_only && !forbid && !make_dirs(dir))
        cli_die("cannot create the directory '%s': %s", tb_path_shown(dir, sp), strerror(errno));
    if (!reads_only && access(dir, W_OK | X_OK) != 0)
        cli_die("'%s' is not a writable directory", tb_path_shown(dir, sp));
    if (forbid_check)
        return check_forbid(dir, forbid_check, prove_nodes);
    if (bench)
        return bench_probe(dir, count, by_layer);
    if (stats_only)
        return print_stats(dir);
    if (bitbase)
        return write_bitbase(dir, bitbase);

    /* One build at a time in a folder: two would write the same files (the lock is taken
     * before anything is read, and the system drops it however this process ends). */
    char msg[256];
    tb_dir_lock_t lock;
    if (tb_dir_lock(dir, &lock, msg, sizeof msg) != TB_OK)
        return fail1("%s", msg);
    if (forbid) {
        int rc = build_forbid(dir, &o, placement, root_nodes, prove_nodes, game_given);
        tb_dir_unlock(&lock);
        return rc;
    }
    progress_t pr = {now_s(), 0, isatty(STDERR_FILENO) != 0};
    o.dir = dir;
    o.progress = on_progress;
    o.ctx = &pr;
    build_t b = {dir, placement, default_dir, max_in_hand, min_goats, keep_work, stop_after, stop_after_arrays};
    int rc = build(&o, &pr, &b);
    tb_dir_unlock(&lock);
    return rc;
}
