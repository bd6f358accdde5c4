/* The movement-phase database in the engine, over the protocol against the real baghchal
 * executable: TablebasePath (load, refuse, unload; a FIFO or a directory in a file's place
 * refused at once), tbprobe against the library's probe and
 * ranking, value-keeping moves with mate scores and database lines at database roots
 * (depth, nodes, searchmoves, a search stopped at once, Threads 2), tbhits, legality under
 * Repetition forbid and scores under Repetition draw when the history matters, and search
 * in the placement phase and without a database.
 *
 * The database: $BAGHCHAL_TB_DIR when it holds a valid one; otherwise the first test that
 * needs it builds one with baghchal-tbgen into a temporary directory that the runner creates
 * before the tests (a file lock keeps the parallel tests to one build) and removes after. */
#include <criterion/criterion.h>
#include <criterion/hooks.h>

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baghchal.h"
#include "pipe.h"
#include "sanitized.h"
#include "tb_build.h"

#define ENGINE BAGHCHAL_BIN_DIR "/baghchal"
#define TBGEN BAGHCHAL_BIN_DIR "/baghchal-tbgen"
/* Set by the runner for its test processes: where a missing database is built. */
#define BUILD_DIR_ENV "BAGHCHAL_TEST_TBENGINE_DIR"

/* Generous bounds: sanitizer builds on a shared two-core machine are slow. */
enum { REPLY_MS = 10000, GO_MS = 120000, BUILD_MS = 540000, EXIT_MS = 10000 };
enum { MAX_LINE = 256 };

/* ---- The database ------------------------------------------------------------------- */

static void remove_build_dir(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, TB_FILE_NAME);
    unlink(path);
    snprintf(path, sizeof path, "%s/lock", dir);
    unlink(path);
    rmdir(dir);
}

/* In the runner, before any test process starts (they inherit the environment). */
ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    char dir[] = "/tmp/test_tbengine.XXXXXX";
    if (mkdtemp(dir))
        setenv(BUILD_DIR_ENV, dir, 1);
}

/* In the runner, after every test process has ended. */
ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    (void)stats;
    const char *dir = getenv(BUILD_DIR_ENV);
    if (dir && strncmp(dir, "/tmp/test_tbengine.", 19) == 0)
        remove_build_dir(dir);
}

static char tb_dir[256]; /* the directory given to the engine */
static tb_t *tb;         /* the same database, opened by the library in this process */

static bool open_database(const char *dir)
{
    char msg[256] = "";
    tb_t *t = NULL;
    if (tb_open(dir, &t, msg, sizeof msg) != TB_OK)
        return false;
    if (tb_captures_to_win(t) != BC_CAPTURES_TO_WIN) {
        tb_close(t);
        return false;
    }
    tb = t;
    snprintf(tb_dir, sizeof tb_dir, "%s", dir);
    return true;
}

static void build_database(const char *dir)
{
    char *argv[] = {(char *)TBGEN, (char *)dir, NULL};
    pipe_proc_t *gen = pipe_start(argv, 0);
    cr_assert_not_null(gen, "cannot start %s: %s", TBGEN, strerror(errno));
    double end = pipe_now_ms() + BUILD_MS;
    char *line;
    pipe_status_t s;
    while ((s = pipe_read_line(gen, (int)(end - pipe_now_ms()) + 1, &line)) == PIPE_LINE)
        ;
    cr_assert_eq(s, PIPE_EOF, "%s %s: %s", TBGEN, dir, pipe_status_name(s));
    pipe_exit_t x = pipe_wait(gen, EXIT_MS);
    pipe_free(gen);
    cr_assert(x.exited && x.code == 0, "%s %s ended with status %d, signal %d", TBGEN, dir, x.code, x.signal);
}

/* Opens the database (building it first when needed) into tb and tb_dir. */
static void need_database(void)
{
    if (tb)
        return;
    /* This suite checks the movement database alone (the placement phase not covered): a
     * folder that holds the whole solution lends its movement file through a link. */
    const char *env = getenv("BAGHCHAL_TB_DIR");
    bool whole = false;
    if (env && *env && open_database(env)) {
        if (!tb_has_placement(tb))
            return;
        tb_close(tb);
        tb = NULL;
        whole = true;
    }
    const char *dir = getenv(BUILD_DIR_ENV);
    cr_assert_not_null(dir, "no valid database in BAGHCHAL_TB_DIR and no build directory from the runner");
    char lock_path[512];
    snprintf(lock_path, sizeof lock_path, "%s/lock", dir);
    int fd = open(lock_path, O_RDWR | O_CREAT, 0600);
    cr_assert_geq(fd, 0, "%s: %s", lock_path, strerror(errno));
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    while (fcntl(fd, F_SETLKW, &fl) != 0)
        cr_assert_eq(errno, EINTR, "locking %s: %s", lock_path, strerror(errno));
    if (whole && !open_database(dir)) {
        char from[600], to[600];
        snprintf(from, sizeof from, "%s/%s", env, TB_FILE_NAME);
        snprintf(to, sizeof to, "%s/%s", dir, TB_FILE_NAME);
        cr_assert(symlink(from, to) == 0 || errno == EEXIST, "%s: %s", to, strerror(errno));
    }
    if (!open_database(dir)) {
        cr_log_info("building the database in %s", dir);
        build_database(dir);
        cr_assert(open_database(dir), "%s built no valid database in %s", TBGEN, dir);
    }
    fl.l_type = F_UNLCK;
    fcntl(fd, F_SETLK, &fl);
    close(fd);
}

/* ---- The engine over pipes -------------------------------------------------------- */

static pipe_proc_t *eng;

static void teardown(void)
{
    pipe_free(eng);
    eng = NULL;
    if (tb)
        tb_close(tb);
    tb = NULL;
}

TestSuite(tbengine, .fini = teardown, .timeout = 400);

static void send_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void send_line(const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cr_assert(n >= 0 && (size_t)n < sizeof buf);
    cr_assert_eq(pipe_send(eng, "%s", buf), 0, "sending '%.60s': %s", buf, strerror(errno));
}

/* Sends isready and collects every line printed before readyok. */
static void sync_collect(pipe_lines_t *out)
{
    char *line;
    send_line("isready");
    pipe_status_t s = pipe_read_until(eng, "readyok", REPLY_MS, out, &line);
    cr_assert_eq(s, PIPE_LINE, "no readyok: %s", pipe_status_name(s));
    cr_assert_str_eq(line, "readyok");
}

/* Sends one command and returns (in out) every line it printed. */
static void exchange(pipe_lines_t *out, const char *cmd)
{
    send_line("%s", cmd);
    sync_collect(out);
}

static void expect_silent(const char *cmd)
{
    pipe_lines_t out = {0};
    exchange(&out, cmd);
    cr_assert_eq(out.count, 0, "'%.80s' printed %zu line(s), first: '%s'", cmd, out.count,
                 out.count ? out.line[0] : "");
    pipe_lines_free(&out);
}

/* The command prints exactly the one line want. */
static void expect_line(const char *cmd, const char *want)
{
    pipe_lines_t out = {0};
    exchange(&out, cmd);
    cr_assert_eq(out.count, 1, "'%.80s' printed %zu lines (first: '%s'), expected '%s'", cmd, out.count,
                 out.count ? out.line[0] : "", want);
    cr_assert_str_eq(out.line[0], want, "'%.80s' printed '%s'", cmd, out.line[0]);
    pipe_lines_free(&out);
}

/* The command prints exactly one line starting with prefix, followed by some text. */
static void expect_one_line_starting(const char *cmd, const char *prefix)
{
    pipe_lines_t out = {0};
    exchange(&out, cmd);
    cr_assert_eq(out.count, 1, "'%.80s' printed %zu lines, expected one '%s...'", cmd, out.count, prefix);
    cr_assert(strncmp(out.line[0], prefix, strlen(prefix)) == 0 && strlen(out.line[0]) > strlen(prefix),
              "'%.80s' printed '%s', expected '%s<reason>'", cmd, out.line[0], prefix);
    pipe_lines_free(&out);
}

static void expect_no_error(const char *cmd)
{
    pipe_lines_t out = {0};
    exchange(&out, cmd);
    for (size_t i = 0; i < out.count; i++)
        cr_assert(strncmp(out.line[i], "info string error", 17) != 0, "'%.80s' printed '%s'", cmd, out.line[i]);
    pipe_lines_free(&out);
}

static void start_engine(void)
{
    char *argv[] = {(char *)ENGINE, NULL};
    eng = pipe_start(argv, PIPE_KEEP_STDERR);
    cr_assert_not_null(eng, "cannot start %s: %s", ENGINE, strerror(errno));
    expect_silent("setoption name Hash value 16");
}

/* quit: the engine ends at once with status 0 (a sanitizer report would change it). */
static void end_engine(void)
{
    send_line("quit");
    char *line;
    pipe_status_t s;
    while ((s = pipe_read_line(eng, EXIT_MS, &line)) == PIPE_LINE)
        cr_assert(strncmp(line, "bestmove", 8) == 0 || strncmp(line, "info ", 5) == 0, "after quit: '%s'", line);
    cr_assert_eq(s, PIPE_EOF, "no end of output after quit: %s", pipe_status_name(s));
    pipe_exit_t x = pipe_wait(eng, EXIT_MS);
    cr_assert(x.exited && x.code == 0, "the engine ended with status %d, signal %d", x.code, x.signal);
    pipe_free(eng);
    eng = NULL;
}

static void load_database(void)
{
    need_database();
    char cmd[600], want[600];
    snprintf(cmd, sizeof cmd, "setoption name TablebasePath value %s", tb_dir);
    snprintf(want, sizeof want, "info string tablebase loaded from %s", tb_dir);
    expect_line(cmd, want);
}

static void start_with_database(void)
{
    need_database();
    start_engine();
    load_database();
}

static const char NO_TB_ERROR[] = "info string error: no tablebase loaded (setoption name TablebasePath value <dir>)";

/* ---- Games: a start (OBX or the start position) and moves --------------------------- */

typedef struct {
    char obx[OBX_MAX_LEN]; /* "" for the start position */
    move_t moves[MAX_LINE];
    int n;
} line_t;

static void line_init(line_t *l, const char *obx)
{
    memset(l, 0, sizeof *l);
    if (obx)
        snprintf(l->obx, sizeof l->obx, "%s", obx);
}

static void line_add_text(line_t *l, const char *text)
{
    move_t m;
    cr_assert_eq(move_parse_text(text, &m, NULL, 0), BC_OK, "bad move text %s", text);
    cr_assert_lt(l->n, MAX_LINE);
    l->moves[l->n++] = m;
}

static void position_command(const line_t *l, char *buf, size_t len)
{
    size_t k = l->obx[0] ? (size_t)snprintf(buf, len, "position obx %s", l->obx)
                         : (size_t)snprintf(buf, len, "position startpos");
    if (l->n)
        k += (size_t)snprintf(buf + k, len - k, " moves");
    for (int i = 0; i < l->n; i++) {
        char t[MOVE_TEXT_LEN];
        move_format(l->moves[i], t);
        k += (size_t)snprintf(buf + k, len - k, " %s", t);
    }
    cr_assert_lt(k, len);
}

static void library_game(const line_t *l, rep_rule_t rule, game_t *g)
{
    position_t start;
    obx_meta_t meta = {MOVE_NONE, 0};
    char msg[256];
    if (l->obx[0])
        cr_assert_eq(obx_parse(l->obx, &start, &meta, msg, sizeof msg), BC_OK, "%s: %s", l->obx, msg);
    else
        position_set_start(&start);
    cr_assert(game_init(g, &start, &meta, rule));
    for (int i = 0; i < l->n; i++)
        cr_assert_eq(game_play(g, l->moves[i], msg, sizeof msg), BC_OK, "move %d: %s", i + 1, msg);
}

/* Sends the game to the engine (it must be accepted silently). */
static void send_position(const line_t *l)
{
    char cmd[MAX_LINE * 6 + 128];
    position_command(l, cmd, sizeof cmd);
    expect_silent(cmd);
}

static const char *value_text(tb_value_t v, char *buf, size_t len)
{
    if (v.wdl == TB_DRAW)
        snprintf(buf, len, "draw");
    else
        snprintf(buf, len, "%s in %d", v.wdl == TB_WIN ? "win" : "loss", v.distance);
    return buf;
}

static const char *side_name(int side) { return side == GOATS ? "goats" : "tigers"; }

/* ---- Seeded random games ---------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static bool key_in(const uint64_t *keys, int n, uint64_t k)
{
    for (int i = 0; i < n; i++)
        if (keys[i] == k)
            return true;
    return false;
}

/* A random game from the start that never visits a position twice (so it is legal and
 * still going under both repetition rules) and never lets the side to move run out of
 * moves. The tigers capture eagerly until want_captured goats are taken and never more.
 * It ends when in_hand goats are left in hand (in_hand > 0), or after `extra` plies of the
 * movement phase (in_hand == 0). Returns false at a dead end. */
static bool random_line(uint64_t seed, int want_captured, int in_hand, int extra, line_t *l)
{
    line_init(l, NULL);
    position_t p;
    position_set_start(&p);
    uint64_t keys[MAX_LINE + 1];
    int nk = 0, movement = 0;
    keys[nk++] = p.key;
    for (;;) {
        if (in_hand > 0 && p.in_hand == in_hand)
            return true;
        if (in_hand == 0 && p.in_hand == 0 && movement >= extra)
            return true;
        if (l->n >= MAX_LINE - 1)
            return false;
        move_t list[MAX_MOVES], ok[MAX_MOVES], captures[MAX_MOVES];
        int c = gen_moves(&p, list), k = 0, kc = 0;
        for (int i = 0; i < c; i++) {
            bool capture = move_kind(list[i]) == MOVE_JUMP;
            if (capture && p.captured + 1 > want_captured)
                continue;
            position_t q = p;
            position_make(&q, list[i]);
            if (key_in(keys, nk, q.key) || count_moves(&q) == 0)
                continue;
            ok[k++] = list[i];
            if (capture)
                captures[kc++] = list[i];
        }
        if (k == 0)
            return false;
        uint64_t r = rng_next(&seed);
        move_t m = kc && (r & 3) ? captures[(r >> 8) % (uint64_t)kc] : ok[(r >> 8) % (uint64_t)k];
        bool was_movement = p.in_hand == 0;
        position_make(&p, m);
        keys[nk++] = p.key;
        l->moves[l->n++] = m;
        movement += was_movement;
    }
}

/* A random movement-phase game by seed: captured 0..4 and the side to move spread out.
 * Returns false when the seed gives no such game (try the next). */
static bool random_movement_game(uint64_t seed, line_t *l, rep_rule_t rule)
{
    uint64_t s = seed * 0x2545f4914f6cdd1dull + 17;
    int want = (int)(rng_next(&s) % 5), extra = (int)(rng_next(&s) % 24);
    if (!random_line(rng_next(&s), want, 0, extra, l))
        return false;
    game_t g;
    library_game(l, rule, &g);
    bool ok = game_result(&g).reason == RESULT_NONE && game_position(&g)->in_hand == 0;
    game_free(&g);
    return ok;
}

/* ---- tbprobe -------------------------------------------------------------------------- */

/* What tbprobe must print for the game g, by the library: the database value and every
 * legal move of the game ranked; a finished game is a loss in 0 with no move. */
/* Under forbid: what the library settles for this game (forbid.h), with the budget that honest
 * output uses. */
static void expected_tbprobe_forbid(const game_t *g, move_t *moves, int n, pipe_lines_t *want)
{
    fb_prover_t *pr = fb_prover_new(FB_SETTLE_MB);
    cr_assert_not_null(pr);
    fb_settled_t root, vals[MAX_MOVES];
    char buf[96], text[64];
    fb_settle(pr, tb, g, MOVE_NONE, FB_SETTLE_NODES, &root);
    fb_settle_moves(pr, tb, g, moves, n, FB_SETTLE_NODES, vals);
    want->line = realloc(want->line, (size_t)(n + 2) * sizeof *want->line);
    cr_assert_not_null(want->line);
    fb_settled_text(&root, false, text, sizeof text);
    snprintf(buf, sizeof buf, "Value: %s", text);
    want->line[0] = strdup(buf);
    snprintf(buf, sizeof buf, "Moves (%d):", n);
    want->line[1] = strdup(buf);
    for (int i = 0; i < n; i++) {
        char t[MOVE_TEXT_LEN];
        move_format(moves[i], t);
        fb_settled_text(&vals[i], true, text, sizeof text);
        snprintf(buf, sizeof buf, "%s: %s", t, text);
        want->line[i + 2] = strdup(buf);
        /* Never a draw under forbid, and never a move that repeats. */
        cr_assert(strcmp(text, "draw") != 0);
        cr_assert_not(game_move_repeats(g, moves[i]));
    }
    cr_assert(strcmp(want->line[0], "Value: draw") != 0);
    want->count = (size_t)n + 2;
    fb_prover_free(pr);
}

static void expected_tbprobe(const game_t *g, pipe_lines_t *want)
{
    char buf[64], v[32];
    const position_t *p = game_position(g);
    tb_value_t value;
    if (!tb_probe(tb, p, &value)) {
        snprintf(buf, sizeof buf, "Value: not covered (goats in hand)");
        want->line = realloc(want->line, sizeof *want->line);
        want->line[0] = strdup(buf);
        want->count = 1;
        return;
    }
    move_t moves[MAX_MOVES];
    tb_move_value_t ranked[MAX_MOVES];
    int n = game_legal_moves(g, moves);
    if (game_result(g).reason != RESULT_NONE) {
        cr_assert_eq(n, 0);
        value = (tb_value_t){TB_LOSS, 0};
    } else if (g->rule == REP_FORBID) {
        expected_tbprobe_forbid(g, moves, n, want);
        return;
    }
    if (n)
        cr_assert_geq(tb_rank_moves(tb, p, moves, n, ranked), 1);
    /* Under draw a move that makes a third occurrence ends the game: a draw, ranked as one
     * (best first: wins, then draws, then losses; the database's order among equals). */
    if (g->rule == REP_DRAW) {
        tb_move_value_t wins[MAX_MOVES], draws[MAX_MOVES], losses[MAX_MOVES];
        int nw = 0, nd = 0, nl = 0;
        for (int i = 0; i < n; i++) {
            tb_move_value_t mv = ranked[i];
            position_t next = *p;
            position_make(&next, mv.move);
            int seen = 0;
            for (size_t k = 0; k <= g->count; k++)
                seen += position_same(&g->history[k], &next);
            if (seen >= 2)
                mv.value = (tb_value_t){TB_DRAW, 0};
            if (mv.value.wdl == TB_WIN)
                wins[nw++] = mv;
            else if (mv.value.wdl == TB_DRAW)
                draws[nd++] = mv;
            else
                losses[nl++] = mv;
        }
        /* Values that changed are draws now; the wins and losses keep their order. */
        memcpy(ranked, wins, (size_t)nw * sizeof *ranked);
        memcpy(ranked + nw, draws, (size_t)nd * sizeof *ranked);
        memcpy(ranked + nw + nd, losses, (size_t)nl * sizeof *ranked);
    }
    want->line = realloc(want->line, (size_t)(n + 2) * sizeof *want->line);
    cr_assert_not_null(want->line);
    snprintf(buf, sizeof buf, "Value: %s", value_text(value, v, sizeof v));
    want->line[0] = strdup(buf);
    snprintf(buf, sizeof buf, "Moves (%d):", n);
    want->line[1] = strdup(buf);
    for (int i = 0; i < n; i++) {
        char t[MOVE_TEXT_LEN];
        move_format(ranked[i].move, t);
        snprintf(buf, sizeof buf, "%s: %s", t, value_text(ranked[i].value, v, sizeof v));
        want->line[i + 2] = strdup(buf);
    }
    want->count = (size_t)n + 2;
}

/* tbprobe on the engine's current game prints exactly what the library says about g. */
static void check_tbprobe(const game_t *g, const char *what)
{
    pipe_lines_t got = {0}, want = {0};
    exchange(&got, "tbprobe");
    expected_tbprobe(g, &want);
    for (size_t i = 0; i < got.count && i < want.count; i++)
        cr_assert_str_eq(got.line[i], want.line[i], "%s: tbprobe line %zu", what, i + 1);
    cr_assert_eq(got.count, want.count, "%s: tbprobe printed %zu lines, expected %zu (first extra: '%s')", what,
                 got.count, want.count,
                 got.count > want.count ? got.line[want.count] : want.line[got.count]);
    pipe_lines_free(&got);
    pipe_lines_free(&want);
}

/* ---- go: info lines and bestmove ------------------------------------------------------- */

typedef struct {
    int depth;
    bool mate;
    int score;
    bool bound; /* lowerbound or upperbound */
    unsigned long long tbhits;
    int npv;
    char pv[MAX_PLY][MOVE_TEXT_LEN];
} info_t;

typedef struct {
    info_t last; /* the final info line */
    int ninfo;
    unsigned long long min_tbhits; /* over the info lines */
    char best[MOVE_TEXT_LEN], ponder[MOVE_TEXT_LEN];
} go_t;

/* Parses an info line of a search; with tb set, `tbhits N` must follow hashfull, without
 * it there must be no tbhits at all. */
static void parse_info(const char *line, bool with_tb, info_t *in)
{
    char buf[4096], *save = NULL, *w[MAX_PLY + 40];
    int n = 0;
    memset(in, 0, sizeof *in);
    in->depth = -1;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *t = strtok_r(buf, " ", &save); t && n < MAX_PLY + 40; t = strtok_r(NULL, " ", &save))
        w[n++] = t;
    bool score = false, hashfull = false;
    for (int i = 1; i < n; i++) {
        if (strcmp(w[i], "depth") == 0 && i + 1 < n) {
            in->depth = atoi(w[++i]);
        } else if (strcmp(w[i], "score") == 0 && i + 2 < n) {
            cr_assert(strcmp(w[i + 1], "cp") == 0 || strcmp(w[i + 1], "mate") == 0, "bad score in '%s'", line);
            in->mate = strcmp(w[i + 1], "mate") == 0;
            in->score = atoi(w[i + 2]);
            i += 2;
            if (i + 1 < n && (strcmp(w[i + 1], "lowerbound") == 0 || strcmp(w[i + 1], "upperbound") == 0)) {
                in->bound = true;
                i++;
            }
            score = true;
        } else if (strcmp(w[i], "hashfull") == 0 && i + 1 < n) {
            i++;
            hashfull = true;
            if (with_tb) {
                cr_assert(i + 2 < n && strcmp(w[i + 1], "tbhits") == 0, "no 'tbhits N' right after hashfull in '%s'",
                          line);
                char *end;
                in->tbhits = strtoull(w[i + 2], &end, 10);
                cr_assert(*w[i + 2] && !*end, "bad tbhits in '%s'", line);
                i += 2;
            }
        } else if (strcmp(w[i], "tbhits") == 0) {
            cr_assert(with_tb, "tbhits without a database: '%s'", line);
            cr_assert_fail("tbhits not right after hashfull: '%s'", line);
        } else if (strcmp(w[i], "pv") == 0) {
            for (i++; i < n && in->npv < MAX_PLY; i++)
                snprintf(in->pv[in->npv++], MOVE_TEXT_LEN, "%s", w[i]);
        }
    }
    cr_assert(score && hashfull && in->depth >= 1, "incomplete info line '%s'", line);
    cr_assert_gt(in->npv, 0, "no pv in '%s'", line);
}

/* Runs `go <limits>` to its bestmove. */
static void go(const char *limits, bool with_tb, go_t *r)
{
    memset(r, 0, sizeof *r);
    r->min_tbhits = ~0ull;
    send_line("go %s", limits);
    pipe_lines_t lines = {0};
    char *best;
    pipe_status_t s = pipe_read_until(eng, "bestmove ", GO_MS, &lines, &best);
    cr_assert_eq(s, PIPE_LINE, "go %s: no bestmove (%s)", limits, pipe_status_name(s));
    int k = sscanf(best, "bestmove %11s ponder %11s", r->best, r->ponder);
    cr_assert(k >= 1, "bad line '%s'", best);
    cr_assert(k == 1 || strstr(best, " ponder ") != NULL);
    for (size_t i = 0; i < lines.count; i++) {
        const char *l = lines.line[i];
        cr_assert(strncmp(l, "info ", 5) == 0, "go %s printed '%s'", limits, l);
        cr_assert(strncmp(l, "info string", 11) != 0, "go %s printed '%s'", limits, l);
        parse_info(l, with_tb, &r->last);
        if (r->last.tbhits < r->min_tbhits)
            r->min_tbhits = r->last.tbhits;
        r->ninfo++;
    }
    cr_assert_gt(r->ninfo, 0, "go %s: no info line before '%s'", limits, best);
    cr_assert_str_eq(r->last.pv[0], r->best, "the last pv does not start with the bestmove");
    if (r->ponder[0] && r->last.npv >= 2)
        cr_assert_str_eq(r->ponder, r->last.pv[1], "the ponder move is not the second pv move");
    pipe_lines_free(&lines);
}

static bool move_in(const char *text, const move_t *moves, int n)
{
    for (int i = 0; i < n; i++) {
        char t[MOVE_TEXT_LEN];
        move_format(moves[i], t);
        if (strcmp(t, text) == 0)
            return true;
    }
    return false;
}

static void format_moves(const move_t *moves, int n, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && k + MOVE_TEXT_LEN < len; i++) {
        char t[MOVE_TEXT_LEN];
        move_format(moves[i], t);
        k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? " " : "", t);
    }
}

/* What the root checks saw, and what failed: each kind of failure is counted with its
 * first example, so that one run shows every kind that occurs. */
enum { F_KEEP, F_SCORE, F_PV, F_TBHITS, F_NB };
static const char *const FAILURE_NAMES[F_NB] = {"bestmove keeps the value", "score is the database value",
                                                "pv legal and to the end of the game", "tbhits > 0"};

typedef struct {
    int positions, win, draw, loss, side[SIDE_NB], captured[BC_CAPTURES_TO_WIN];
    int pv_plies, blocked_lines, forbid_mates;
    int failed[F_NB];
    char first[F_NB][400];
} checks_t;

static void fail(checks_t *c, int kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(checks_t *c, int kind, const char *fmt, ...)
{
    if (c->failed[kind]++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->first[kind], sizeof c->first[kind], fmt, ap);
        va_end(ap);
    }
}

static void expect_no_failure(const char *what, const checks_t *c)
{
    cr_log_info("%s: %d roots (win %d, draw %d, loss %d; goats %d, tigers %d to move; captured %d/%d/%d/%d/%d), "
                "%d pv plies replayed, %d database lines blocked by the history",
                what, c->positions, c->win, c->draw, c->loss, c->side[GOATS], c->side[TIGERS], c->captured[0],
                c->captured[1], c->captured[2], c->captured[3], c->captured[4], c->pv_plies, c->blocked_lines);
    for (int k = 0; k < F_NB; k++)
        cr_expect_eq(c->failed[k], 0, "%s: '%s' failed at %d of %d roots; the first: %s", what, FAILURE_NAMES[k],
                     c->failed[k], c->positions, c->first[k]);
}

static void copy_game(const game_t *g, game_t *out)
{
    cr_assert(game_init(out, &g->history[0], &g->start_meta, g->rule));
    char msg[256];
    for (size_t i = 0; i < g->count; i++)
        cr_assert_eq(game_play(out, g->moves[i], msg, sizeof msg), BC_OK, "%s", msg);
}

/* Plays first, then the database's best legal move (game_legal_moves: under forbid the
 * history counts) to the end of the game: does that line end after value.distance plies
 * with winner winning? */
static bool database_line_keeps(const game_t *g, move_t first, tb_value_t value, int winner)
{
    game_t line;
    copy_game(g, &line);
    char msg[256];
    cr_assert_eq(game_play(&line, first, msg, sizeof msg), BC_OK, "%s", msg);
    int plies = 1;
    for (; plies <= TB_MAX_DISTANCE && game_result(&line).reason == RESULT_NONE; plies++) {
        move_t moves[MAX_MOVES];
        tb_move_value_t ranked[MAX_MOVES];
        int n = game_legal_moves(&line, moves);
        cr_assert_geq(tb_rank_moves(tb, game_position(&line), moves, n, ranked), 1);
        cr_assert_eq(game_play(&line, ranked[0].move, msg, sizeof msg), BC_OK, "%s", msg);
    }
    bool keeps = plies == value.distance && game_result(&line).winner == winner;
    game_free(&line);
    return keeps;
}

static move_t parse_move(const char *text)
{
    move_t m;
    cr_assert_eq(move_parse_text(text, &m, NULL, 0), BC_OK, "bad move '%s'", text);
    return m;
}

/* The engine's game is g (a database root, the game going on): searches it with `go
 * <limits>` and checks that the bestmove keeps the best value the legal moves have, that
 * the score is that value (mate N for a win in d with N = (d + 1) / 2, mate -N for a loss
 * in d with N = d / 2, cp 0 for a draw), that the pv is legal move by move under the game's
 * rule and history and, for a win or a loss, ends the game after exactly d plies with the
 * right winner, and that every info line has tbhits > 0. */
static void check_root_moves(const game_t *g, const move_t *only, int nonly, const char *limits, const char *what,
                             checks_t *c)
{
    const position_t *p = game_position(g);
    tb_value_t root;
    cr_assert(tb_probe(tb, p, &root), "%s: not a database root", what);
    move_t legal[MAX_MOVES];
    tb_move_value_t ranked[MAX_MOVES];
    int n = game_legal_moves(g, legal);
    cr_assert_gt(n, 0, "%s: no legal move", what);
    if (only) {
        memcpy(legal, only, (size_t)nonly * sizeof *only);
        n = nonly;
    }
    int keep = tb_rank_moves(tb, p, legal, n, ranked);
    cr_assert(keep >= 1 && keep <= n, "%s: tb_rank_moves gave %d", what, keep);
    move_t best[MAX_MOVES];
    for (int i = 0; i < keep; i++)
        best[i] = ranked[i].move;
    tb_value_t value = ranked[0].value;
    /* Under forbid a win or loss is the engine's claim only when it holds for this game's
     * history (forbid.h); the moves kept are those whose value holds, when some do. */
    bool holds = true;
    if (g->rule == REP_FORBID) {
        fb_history_t h;
        fb_history_init(&h, tb, g);
        fb_move_value_t fr[MAX_MOVES];
        int fk = fb_rank_moves(tb, g, &h, legal, n, 0, fr), k = 0;
        cr_assert_eq(fk, keep, "%s: fb_rank_moves and tb_rank_moves disagree", what);
        for (int i = 0; i < fk; i++)
            if (fr[i].holds)
                best[k++] = fr[i].move;
        holds = k > 0;
        if (k)
            keep = k;
    }
    c->positions++;
    c->win += value.wdl == TB_WIN;
    c->draw += value.wdl == TB_DRAW;
    c->loss += value.wdl == TB_LOSS;
    c->side[p->side]++;
    c->captured[p->captured]++;

    go_t r;
    go(limits, true, &r);
    char list[MAX_MOVES * 6], vt[32];
    format_moves(best, keep, list, sizeof list);
    value_text(value, vt, sizeof vt);
    if (!move_in(r.best, best, keep))
        fail(c, F_KEEP, "%s: bestmove %s does not keep the value (%s); the moves that do: %s", what, r.best, vt, list);
    /* A root whose best moves take the fifth goat has a test of its own
     * (tbhits_at_a_root_won_by_the_fifth_capture). */
    if (r.min_tbhits == 0 && !(value.wdl == TB_WIN && value.distance == 1 && p->captured == BC_CAPTURES_TO_WIN - 1))
        fail(c, F_TBHITS, "%s: an info line with tbhits 0 at a database root (%s)", what, vt);
    /* Under forbid the history can make a database draw a forced win or loss (the drawing
     * moves repeat): then a mate is allowed, and its line is checked below. */
    bool forbid_mate = (value.wdl == TB_DRAW || !holds) && g->rule == REP_FORBID && r.last.mate && !r.last.bound;
    if (value.wdl == TB_DRAW) {
        /* Under forbid no root is drawn: the search's own score, never cp 0 as a claim of a
         * draw is required (any cp is an estimate). */
        if (g->rule == REP_DRAW && (r.last.mate || r.last.score != 0 || r.last.bound))
            fail(c, F_SCORE, "%s: a drawn root scored %s %d%s", what, r.last.mate ? "mate" : "cp", r.last.score,
                 r.last.bound ? " (a bound)" : "");
    } else if (!holds) {
        /* A database result the history might block: a large score of the right sign that is
         * not a proof, unless the search found a mate itself (checked with its line below). */
        int sign = value.wdl == TB_WIN ? 1 : -1;
        bool likely = !r.last.mate && r.last.score * sign > SCORE_TB_LIKELY - MAX_PLY &&
                      r.last.score * sign <= SCORE_TB_LIKELY;
        if (!likely && !(forbid_mate && r.last.score * sign > 0))
            fail(c, F_SCORE, "%s: a root with %s that the history might block scored %s %d", what, vt,
                 r.last.mate ? "mate" : "cp", r.last.score);
    } else {
        int want = value.wdl == TB_WIN ? (value.distance + 1) / 2 : -(value.distance / 2);
        if (!r.last.mate || r.last.score != want || r.last.bound)
            fail(c, F_SCORE, "%s: a root with %s scored %s %d%s, expected mate %d", what, vt,
                 r.last.mate ? "mate" : "cp", r.last.score, r.last.bound ? " (a bound)" : "", want);
    }

    /* Replayed on a copy of the whole game: the history matters under forbid. */
    game_t replay;
    copy_game(g, &replay);
    char msg[256];
    bool legal_pv = true;
    for (int i = 0; i < r.last.npv && legal_pv; i++)
        if (game_play_text(&replay, r.last.pv[i], msg, sizeof msg) != BC_OK) {
            fail(c, F_PV, "%s: pv move %d %s is illegal (root %s, pv of %d plies): %s", what, i + 1, r.last.pv[i], vt,
                 r.last.npv, msg);
            legal_pv = false;
        }
    if (legal_pv && forbid_mate) {
        game_result_t res = game_result(&replay);
        int winner = r.last.score > 0 ? p->side : !p->side;
        /* The line may stop where the table cut it, but if it ends the game, the mate's side wins. */
        if (res.reason != RESULT_NONE && res.winner != winner)
            fail(c, F_PV, "%s: a drawn root scored mate %d under forbid; its pv of %d plies ends in '%s'", what,
                 r.last.score, r.last.npv, result_describe(res));
        c->forbid_mates++;
    }
    if (legal_pv && value.wdl != TB_DRAW && holds) {
        game_result_t res = game_result(&replay);
        int winner = value.wdl == TB_WIN ? p->side : !p->side;
        /* Under forbid the history can block every best continuation further on: then
         * the line cannot have the database's length, but it still ends the game. */
        bool exact = g->rule == REP_DRAW || database_line_keeps(g, parse_move(r.last.pv[0]), value, winner);
        if ((exact && r.last.npv != value.distance) || res.reason == RESULT_NONE || res.winner != winner)
            fail(c, F_PV, "%s: the root is a %s; its pv of %d plies ends in '%s'", what, vt, r.last.npv,
                 res.reason == RESULT_NONE ? "a game going on" : result_describe(res));
        else
            c->pv_plies += r.last.npv;
        c->blocked_lines += !exact;
    }
    game_free(&replay);
}

static void check_root_search(const game_t *g, const char *limits, const char *what, checks_t *c)
{
    check_root_moves(g, NULL, 0, limits, what, c);
}

/* Searches `count` random movement-phase games from seed on. */
static void search_random_roots(uint64_t seed, int count, rep_rule_t rule, const char *limits, checks_t *c)
{
    int done = 0;
    for (uint64_t s = seed; done < count; s++) {
        cr_assert_lt(s, seed + (uint64_t)count * 4, "too few random games");
        line_t l;
        if (!random_movement_game(s, &l, rule))
            continue;
        game_t g;
        library_game(&l, rule, &g);
        send_position(&l);
        char what[64];
        snprintf(what, sizeof what, "seed %llu, %s, go %s", (unsigned long long)s,
                 rule == REP_DRAW ? "draw" : "forbid", limits);
        check_root_search(&g, limits, what, c);
        game_free(&g);
        done++;
    }
}

/* ======================================================================================== */
/* TablebasePath                                                                          */

Test(tbengine, uci_lists_the_option)
{
    start_engine();
    pipe_lines_t out = {0};
    char *line;
    send_line("uci");
    cr_assert_eq(pipe_read_until(eng, "uciok", REPLY_MS, &out, &line), PIPE_LINE);
    int found = 0;
    for (size_t i = 0; i < out.count; i++)
        if (strstr(out.line[i], "TablebasePath")) {
            cr_assert_str_eq(out.line[i], "option name TablebasePath type string default <empty>");
            found++;
        }
    cr_assert_eq(found, 1, "uci listed TablebasePath %d times", found);
    pipe_lines_free(&out);
    /* No database by default. */
    expect_line("tbprobe", NO_TB_ERROR);
    end_engine();
}

static void make_tmp_dir(char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/test_tbengine_opt.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(data, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/* The first `len` bytes of the database, copied to path. */
static void copy_prefix(const char *path, size_t len)
{
    char src[600];
    snprintf(src, sizeof src, "%s/%s", tb_dir, TB_FILE_NAME);
    FILE *f = fopen(src, "rb");
    cr_assert_not_null(f);
    char *buf = malloc(len);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, len, f), len);
    fclose(f);
    write_file(path, buf, len);
    free(buf);
}

static const char WIN3_OBX[] = "GGGGX/GTGTG/XGXGX/GTGTG/XGGGG t @0 c4";

/* tbprobe works on the PROTOCOL.md example: the database is in use. */
static void expect_probe_works(void)
{
    send_line("position obx %s", WIN3_OBX);
    pipe_lines_t out = {0};
    exchange(&out, "tbprobe");
    cr_assert_geq(out.count, 3, "tbprobe printed %zu lines", out.count);
    cr_assert_str_eq(out.line[0], "Value: win in 3");
    cr_assert_str_eq(out.line[1], "Moves (10):");
    cr_assert_str_eq(out.line[2], "B2A3: win in 3");
    pipe_lines_free(&out);
}

Test(tbengine, load_refuse_and_unload)
{
    start_with_database();
    expect_probe_works();

    /* Directories without a valid database: one error line each, the database stays. */
    char dir[64], path[256], cmd[700];
    make_tmp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s", dir, TB_FILE_NAME);
    const char *prefix = "info string error: tablebase not loaded: ";

    snprintf(cmd, sizeof cmd, "setoption name TablebasePath value %s/missing", dir);
    expect_one_line_starting(cmd, prefix);
    expect_probe_works();

    snprintf(cmd, sizeof cmd, "setoption name TablebasePath value %s", dir); /* empty directory */
    expect_one_line_starting(cmd, prefix);
    expect_probe_works();

    write_file(path, "not a database\n", 15);
    expect_one_line_starting(cmd, prefix);
    expect_probe_works();

    copy_prefix(path, 2 * TB_HEADER_SIZE); /* a real header, the slices cut off */
    expect_one_line_starting(cmd, prefix);
    expect_probe_works();

    /* A database built for one capture only is not the real game's. */
    unlink(path);
    char *argv[] = {(char *)TBGEN, dir, (char *)"--captures-to-win", (char *)"1", NULL};
    pipe_proc_t *gen = pipe_start(argv, 0);
    cr_assert_not_null(gen);
    char *line;
    while (pipe_read_line(gen, GO_MS, &line) == PIPE_LINE)
        ;
    pipe_exit_t x = pipe_wait(gen, EXIT_MS);
    pipe_free(gen);
    cr_assert(x.exited && x.code == 0, "building the 1-capture variant failed");
    expect_one_line_starting(cmd, prefix);
    expect_probe_works();
    unlink(path);
    rmdir(dir);

    /* The path is taken as written: case kept, spaces inside. */
    make_tmp_dir(dir, sizeof dir);
    char spaced[128], target[1024];
    snprintf(spaced, sizeof spaced, "%s/My Tb", dir);
    cr_assert_eq(mkdir(spaced, 0700), 0);
    snprintf(path, sizeof path, "%s/%s", spaced, TB_FILE_NAME);
    snprintf(target, sizeof target, "%s/%s", tb_dir, TB_FILE_NAME);
    if (target[0] != '/') {
        char cwd[512];
        cr_assert_not_null(getcwd(cwd, sizeof cwd));
        snprintf(target, sizeof target, "%s/%s/%s", cwd, tb_dir, TB_FILE_NAME);
    }
    cr_assert_eq(symlink(target, path), 0, "%s", strerror(errno));
    char want[400];
    snprintf(cmd, sizeof cmd, "setoption name TablebasePath value %s", spaced);
    snprintf(want, sizeof want, "info string tablebase loaded from %s", spaced);
    expect_line(cmd, want);
    expect_probe_works();
    unlink(path);
    rmdir(spaced);
    rmdir(dir);

    /* <empty> unloads, so does no value; loading again works. */
    expect_no_error("setoption name TablebasePath value <empty>");
    expect_line("tbprobe", NO_TB_ERROR);
    load_database();
    expect_probe_works();
    expect_no_error("setoption name TablebasePath");
    expect_line("tbprobe", NO_TB_ERROR);
    /* A bad directory with nothing loaded leaves nothing loaded. */
    expect_one_line_starting("setoption name TablebasePath value /nonexistent/baghchal", prefix);
    expect_line("tbprobe", NO_TB_ERROR);
    /* The option name is matched without case. */
    snprintf(cmd, sizeof cmd, "setoption name tablebasepath value %s", tb_dir);
    snprintf(want, sizeof want, "info string tablebase loaded from %s", tb_dir);
    expect_line(cmd, want);
    expect_probe_works();
    end_engine();
}

/* Sends setoption TablebasePath dir, then isready: want is among the lines before readyok. */
static void expect_refused_then_ready(const char *dir, const char *want)
{
    send_line("setoption name TablebasePath value %s", dir);
    pipe_lines_t out = {0};
    sync_collect(&out);
    bool found = false;
    for (size_t i = 0; i < out.count; i++) {
        found |= strcmp(out.line[i], want) == 0;
        if (!found)
            cr_log_info("line %zu: %s", i, out.line[i]);
    }
    cr_assert(found, "no '%s' before readyok", want);
    pipe_lines_free(&out);
}

/* A FIFO in a database file's place once held the engine in open() for good: no readyok,
 * quit and the end of input never read. It is refused at once with its reason, as a
 * directory in its place is; the movement file's name and the placement file's. */
Test(tbengine, a_fifo_or_directory_in_a_files_place_is_refused_at_once)
{
    need_database();
    char dir[64], path[256], placement[256], want[600], target[1024];
    make_tmp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s", dir, TB_FILE_NAME);
    snprintf(placement, sizeof placement, "%s/%s", dir, TBP_FILE_NAME);
    const char *prefix = "info string error: tablebase not loaded: ";

    cr_assert_eq(mkfifo(path, 0600), 0, "%s", strerror(errno));
    snprintf(want, sizeof want, "%s%s is a FIFO, not a regular file", prefix, path);
    start_engine();
    expect_refused_then_ready(dir, want);
    end_engine(); /* quit is read and obeyed */
    start_engine();
    expect_refused_then_ready(dir, want);
    pipe_close_stdin(eng); /* so is the end of input */
    pipe_exit_t x = pipe_wait(eng, EXIT_MS);
    cr_assert(x.exited && x.code == 0, "after the end of input: status %d, signal %d", x.code, x.signal);
    pipe_free(eng);
    eng = NULL;

    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(mkdir(path, 0700), 0);
    snprintf(want, sizeof want, "%s%s is a directory, not a file", prefix, path);
    start_engine();
    expect_refused_then_ready(dir, want);
    end_engine();
    cr_assert_eq(rmdir(path), 0);

    /* A good movement file, and a FIFO named as the placement file beside it. */
    snprintf(target, sizeof target, "%s/%s", tb_dir, TB_FILE_NAME);
    if (target[0] != '/') {
        char cwd[512];
        cr_assert_not_null(getcwd(cwd, sizeof cwd));
        snprintf(target, sizeof target, "%s/%s/%s", cwd, tb_dir, TB_FILE_NAME);
    }
    cr_assert_eq(symlink(target, path), 0, "%s", strerror(errno));
    cr_assert_eq(mkfifo(placement, 0600), 0, "%s", strerror(errno));
    snprintf(want, sizeof want, "%s%s is a FIFO, not a regular file", prefix, placement);
    start_engine();
    expect_refused_then_ready(dir, want);
    end_engine();
    unlink(placement);
    unlink(path);
    rmdir(dir);
}

/* ======================================================================================== */
/* tbprobe                                                                                */

Test(tbengine, tbprobe_hand_picked_positions)
{
    start_with_database();
    game_t g;
    line_t l;

    /* PROTOCOL.md's example, in full. */
    line_init(&l, WIN3_OBX);
    send_position(&l);
    library_game(&l, REP_FORBID, &g);
    check_tbprobe(&g, WIN3_OBX);
    game_free(&g);

    /* The placement phase is not covered, to the last goat in hand. */
    line_init(&l, NULL);
    send_position(&l);
    expect_line("tbprobe", "Value: not covered (goats in hand)");
    expect_silent("position obx TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0");
    expect_line("tbprobe", "Value: not covered (goats in hand)");
    cr_assert(random_line(5, 2, 1, 0, &l));
    send_position(&l);
    expect_line("tbprobe", "Value: not covered (goats in hand)");

    /* Finished games: the side to move has lost. */
    static const struct {
        const char *obx, *moves[4];
        int nmoves;
        result_reason_t reason;
    } over[] = {
        {"GGGGX/GTGTG/XGXGX/GTGTG/XGGGG t @0 c4", {"B2A3", "A1B2", "A3C3"}, 3, RESULT_FIVE_CAPTURED},
        {"TXGTG/XXGXG/GGTXG/GGGGX/GGGTG g @0 c5", {0}, 0, RESULT_FIVE_CAPTURED},
        {"TGGGT/GGXGG/GXGXG/GGXGG/TGGGT t @0 c3", {0}, 0, RESULT_TIGERS_TRAPPED},
        {"XTGGG/TTGGG/GGGGG/GGGGG/GGGGT g @0 c0", {0}, 0, RESULT_GOATS_STUCK},
    };
    for (size_t i = 0; i < sizeof over / sizeof over[0]; i++) {
        line_init(&l, over[i].obx);
        for (int k = 0; k < over[i].nmoves; k++)
            line_add_text(&l, over[i].moves[k]);
        library_game(&l, REP_FORBID, &g);
        cr_assert_eq(game_result(&g).reason, over[i].reason, "%s", over[i].obx);
        send_position(&l);
        pipe_lines_t out = {0};
        exchange(&out, "tbprobe");
        cr_assert_eq(out.count, 2, "%s: tbprobe printed %zu lines", over[i].obx, out.count);
        cr_assert_str_eq(out.line[0], "Value: loss in 0", "%s", over[i].obx);
        cr_assert_str_eq(out.line[1], "Moves (0):", "%s", over[i].obx);
        pipe_lines_free(&out);
        check_tbprobe(&g, over[i].obx);
        send_line("go depth 3");
        char *line;
        pipe_lines_t before = {0};
        cr_assert_eq(pipe_read_until(eng, "bestmove", GO_MS, &before, &line), PIPE_LINE);
        cr_assert_str_eq(line, "bestmove (none)");
        cr_assert(before.count >= 1 && strcmp(before.line[before.count - 1], "info depth 0 score mate 0") == 0,
                  "%s: '%s' before bestmove (none)", over[i].obx, before.count ? before.line[before.count - 1] : "");
        pipe_lines_free(&before);
        game_free(&g);
    }
    end_engine();
}

/* The tigers' only move B1A1 would recreate the start (Repetition forbid): the game is over
 * and the tigers have lost, whatever the database says of the board. */
Test(tbengine, tbprobe_game_lost_by_repetition)
{
    start_with_database();
    line_t l;
    line_init(&l, "TXGGG/GGXXG/GGGGG/GGGGT/XGGTT g @0 c3");
    line_add_text(&l, "A4A5");
    line_add_text(&l, "A1B1");
    line_add_text(&l, "A5A4");
    game_t g;
    library_game(&l, REP_FORBID, &g);
    cr_assert_eq(game_result(&g).reason, RESULT_REPETITION_BLOCKED);
    send_position(&l);
    pipe_lines_t out = {0};
    exchange(&out, "tbprobe");
    cr_assert_eq(out.count, 2, "tbprobe printed %zu lines", out.count);
    cr_assert_str_eq(out.line[1], "Moves (0):");
    cr_assert_str_eq(out.line[0], "Value: loss in 0", "a finished game (every tiger move repeats)");
    pipe_lines_free(&out);
    game_free(&g);
    end_engine();
}

/* 300 random games, each probed through the engine: values, not threads (disabled under
 * ThreadSanitizer, where the other tests drive the same engine). */
Test(tbengine, tbprobe_random_games, .disabled = UNDER_TSAN)
{
    start_with_database();
    checks_t seen = {0};
    int done = 0, forbidden = 0;
    for (uint64_t s = 1000; done < 300; s++) {
        cr_assert_lt(s, 3000u, "too few random games");
        line_t l;
        rep_rule_t rule = s & 1 ? REP_DRAW : REP_FORBID;
        if (!random_movement_game(s, &l, rule))
            continue;
        expect_silent(rule == REP_DRAW ? "setoption name Repetition value draw"
                                       : "setoption name Repetition value forbid");
        game_t g;
        library_game(&l, rule, &g);
        send_position(&l);
        char what[64];
        snprintf(what, sizeof what, "seed %llu", (unsigned long long)s);
        check_tbprobe(&g, what);
        const position_t *p = game_position(&g);
        seen.positions++;
        seen.side[p->side]++;
        seen.captured[p->captured]++;
        tb_value_t v;
        cr_assert(tb_probe(tb, p, &v));
        seen.win += v.wdl == TB_WIN;
        seen.draw += v.wdl == TB_DRAW;
        seen.loss += v.wdl == TB_LOSS;
        move_t moves[MAX_MOVES];
        forbidden += game_legal_moves(&g, moves) < gen_moves(p, moves);
        game_free(&g);
        done++;
    }
    cr_log_info("tbprobe: %d games (win %d, draw %d, loss %d; goats %d, tigers %d to move; captured %d/%d/%d/%d/%d), "
                "%d with a move forbidden by the history",
                seen.positions, seen.win, seen.draw, seen.loss, seen.side[GOATS], seen.side[TIGERS],
                seen.captured[0], seen.captured[1], seen.captured[2], seen.captured[3], seen.captured[4], forbidden);
    cr_assert_gt(forbidden, 0);
    for (int side = 0; side < SIDE_NB; side++)
        cr_assert_geq(seen.side[side], 50, "%s to move: %d", side_name(side), seen.side[side]);
    for (int c = 0; c < BC_CAPTURES_TO_WIN; c++)
        cr_assert_geq(seen.captured[c], 10, "captured %d: %d", c, seen.captured[c]);
    cr_assert(seen.win && seen.draw && seen.loss);
    end_engine();
}

/* A tbreport value's fields say what its text says: "win in 7" is a win at distance 7, "win"
 * one of unknown distance, "open ..." an open one, "draw" a draw. */
static void check_tbr_fields(const tbr_value_t *v, const char *what)
{
    int d = -1;
    char word[8] = "";
    if (strncmp(v->text, "open", 4) == 0) {
        cr_assert_eq(v->result, TBR_OPEN, "%s: '%s'", what, v->text);
        cr_assert_eq(v->distance, TB_DISTANCE_UNKNOWN, "%s: '%s'", what, v->text);
    } else if (sscanf(v->text, "%7s in %d", word, &d) == 2) {
        cr_assert_str_eq(word, tbr_result_name(v->result), "%s: '%s'", what, v->text);
        cr_assert_eq(v->distance, d, "%s: '%s'", what, v->text);
    } else {
        cr_assert_str_eq(v->text, tbr_result_name(v->result), "%s", what);
        cr_assert(v->result == TBR_DRAW || v->distance == TB_DISTANCE_UNKNOWN, "%s: '%s'", what, v->text);
    }
    cr_assert(!v->proved || (v->result != TBR_OPEN && v->result != TBR_DRAW), "%s: '%s'", what, v->text);
}

/* tbr_position and tbr_moves (what tbprobe prints and the Python package returns): the
 * database's values under draw, never a draw under forbid, every legal move once, and the
 * statuses of positions not covered or over. */
Test(tbengine, tbreport_values)
{
    need_database();
    fb_prover_t *pr = NULL;
    tbr_value_t v, vals[MAX_MOVES];
    int n = -1, open = 0, proved = 0;
    game_t g;
    position_t p;
    position_set_start(&p);
    cr_assert(game_init(&g, &p, NULL, REP_FORBID));
    cr_assert_eq(tbr_position(tb, &pr, &g, &v), TBR_NOT_COVERED);
    cr_assert_eq(tbr_moves(tb, &pr, &g, vals, &n), TBR_NOT_COVERED);
    cr_assert_eq(n, 0);
    cr_assert_null(pr, "no prover for a position the database does not know");
    game_free(&g);
    line_t l;
    line_init(&l, "TGGGT/GGXGG/GXGXG/GGXGG/TGGGT t @0 c3");
    library_game(&l, REP_DRAW, &g);
    cr_assert_eq(tbr_position(tb, &pr, &g, &v), TBR_OK);
    cr_assert_str_eq(v.text, "loss in 0");
    cr_assert(v.result == TBR_LOSS && v.distance == 0 && !v.proved);
    cr_assert_eq(tbr_moves(tb, &pr, &g, vals, &n), TBR_OK);
    cr_assert_eq(n, 0);
    cr_assert_null(pr, "no prover for a game over");
    game_free(&g);
    for (uint64_t s = 1000; s < 1160; s++) {
        rep_rule_t rule = s & 1 ? REP_DRAW : REP_FORBID;
        if (!random_movement_game(s, &l, rule))
            continue;
        library_game(&l, rule, &g);
        char what[64];
        snprintf(what, sizeof what, "seed %llu", (unsigned long long)s);
        tb_value_t db;
        cr_assert(tb_probe(tb, game_position(&g), &db));
        cr_assert_eq(tbr_position(tb, &pr, &g, &v), TBR_OK, "%s", what);
        cr_assert_eq(v.move, MOVE_NONE);
        check_tbr_fields(&v, what);
        if (rule == REP_DRAW) {
            cr_assert(v.result == (tbr_result_t)db.wdl && v.distance == db.distance, "%s", what);
        } else {
            cr_assert_neq(v.result, TBR_DRAW, "%s", what);
            cr_assert_not_null(pr, "%s", what);
            open += v.result == TBR_OPEN;
            proved += v.proved;
        }
        move_t legal[MAX_MOVES];
        int nl = game_legal_moves(&g, legal);
        cr_assert_eq(tbr_moves(tb, &pr, &g, vals, &n), TBR_OK, "%s", what);
        cr_assert_eq(n, nl, "%s", what);
        for (int i = 0; i < n; i++) {
            check_tbr_fields(&vals[i], what);
            cr_assert(rule == REP_DRAW || vals[i].result != TBR_DRAW, "%s", what);
            int found = 0;
            for (int k = 0; k < nl; k++)
                found += legal[k] == vals[i].move;
            for (int k = 0; k < i; k++)
                found += vals[k].move == vals[i].move;
            cr_assert_eq(found, 1, "%s: move %d", what, i);
        }
        /* Best first: under draw the best move keeps the position's value. */
        if (n && rule == REP_DRAW)
            cr_assert_eq(vals[0].result, v.result, "%s: '%s' for '%s'", what, vals[0].text, v.text);
        game_free(&g);
    }
    cr_log_info("tbreport: %d open and %d proved under forbid", open, proved);
    cr_assert_gt(open + proved, 0);
    fb_prover_free(pr);
}

/* Database entries of every slice, as OBX positions without history. */
/* 250 database entries, each probed through the engine: values, not threads (disabled under
 * ThreadSanitizer, where the other tests drive the same engine). */
Test(tbengine, tbprobe_database_entries, .disabled = UNDER_TSAN)
{
    start_with_database();
    uint64_t seed = 42;
    int done = 0, over = 0;
    while (done < 250) {
        int c = (int)(rng_next(&seed) % BC_CAPTURES_TO_WIN), side = (int)(rng_next(&seed) & 1);
        uint64_t i = rng_next(&seed) % tb_slice_size(c);
        position_t p;
        tb_value_t v;
        tb_entry(tb, c, side, i, &p, &v);
        line_t l;
        char obx[OBX_MAX_LEN];
        obx_format(&p, NULL, OBX_V2, obx, sizeof obx);
        position_t back;
        if (obx_parse(obx, &back, NULL, NULL, 0) != BC_OK)
            continue;
        line_init(&l, obx);
        game_t g;
        library_game(&l, REP_FORBID, &g);
        send_position(&l);
        check_tbprobe(&g, obx);
        over += game_result(&g).reason != RESULT_NONE;
        game_free(&g);
        done++;
    }
    cr_log_info("tbprobe: %d database entries, %d of them finished games", done, over);
    end_engine();
}

/* ======================================================================================== */
/* Search at database roots                                                               */

Test(tbengine, depth_3_keeps_the_value_under_forbid)
{
    start_with_database();
    checks_t c = {0};
    search_random_roots(1, 200, REP_FORBID, "depth 3", &c);
    expect_no_failure("depth 3, forbid", &c);
    cr_assert(c.win >= 5 && c.draw >= 5 && c.loss >= 5);
    end_engine();
}

Test(tbengine, depth_3_keeps_the_value_under_draw)
{
    start_with_database();
    expect_silent("setoption name Repetition value draw");
    checks_t c = {0};
    search_random_roots(5001, 200, REP_DRAW, "depth 3", &c);
    expect_no_failure("depth 3, draw", &c);
    cr_assert(c.win >= 5 && c.draw >= 5 && c.loss >= 5);
    end_engine();
}

Test(tbengine, nodes_5000_keeps_the_value)
{
    start_with_database();
    checks_t c = {0};
    search_random_roots(9001, 50, REP_FORBID, "nodes 5000", &c);
    expect_silent("setoption name Repetition value draw");
    search_random_roots(9501, 50, REP_DRAW, "nodes 5000", &c);
    expect_no_failure("nodes 5000", &c);
    cr_assert(c.win && c.draw && c.loss);
    end_engine();
}

/* Long wins and losses from positions without history (database entries), under both
 * rules: the database continues the pv to the end of the game. */
Test(tbengine, long_database_lines)
{
    start_with_database();
    expect_silent("setoption name Repetition value draw");
    uint64_t seed = 77;
    int done = 0, longest = 0;
    checks_t c = {0};
    for (int tries = 0; done < 40 && tries < 200000; tries++) {
        int slice = 1 + (int)(rng_next(&seed) % 3), side = (int)(rng_next(&seed) & 1);
        position_t p;
        tb_value_t v;
        tb_entry(tb, slice, side, rng_next(&seed) % tb_slice_size(slice), &p, &v);
        if (v.wdl == TB_DRAW || v.distance < (done % 2 ? 20 : 50))
            continue;
        char obx[OBX_MAX_LEN];
        obx_format(&p, NULL, OBX_V2, obx, sizeof obx);
        position_t back;
        if (obx_parse(obx, &back, NULL, NULL, 0) != BC_OK)
            continue;
        rep_rule_t rule = done < 20 ? REP_DRAW : REP_FORBID;
        if (done == 20)
            expect_silent("setoption name Repetition value forbid");
        line_t l;
        line_init(&l, obx);
        game_t g;
        library_game(&l, rule, &g);
        send_position(&l);
        check_root_search(&g, done & 1 ? "depth 2" : "depth 4", obx, &c);
        game_free(&g);
        if (v.distance > longest)
            longest = v.distance;
        done++;
    }
    cr_assert_eq(done, 40);
    expect_no_failure("long lines", &c);
    cr_log_info("longest database line checked: %d plies", longest);
    cr_assert_geq(longest, 40);
    end_engine();
}

Test(tbengine, threads_2_keep_the_value)
{
    start_with_database();
    expect_silent("setoption name Threads value 2");
    checks_t c = {0};
    search_random_roots(20001, 30, REP_FORBID, "depth 4", &c);
    search_random_roots(21001, 10, REP_FORBID, "nodes 20000", &c);
    expect_no_failure("Threads 2", &c);
    cr_assert(c.win && c.draw && c.loss);
    end_engine();
}

/* searchmoves at a database root: the best value among the given moves is kept. */
Test(tbengine, searchmoves_keep_the_best_value_among_them)
{
    start_with_database();
    checks_t c = {0};
    uint64_t rng = 99;
    int done = 0;
    for (uint64_t s = 30001; done < 60; s++) {
        cr_assert_lt(s, 30500u, "too few random games");
        line_t l;
        if (!random_movement_game(s, &l, REP_FORBID))
            continue;
        game_t g;
        library_game(&l, REP_FORBID, &g);
        move_t legal[MAX_MOVES], only[3];
        int n = game_legal_moves(&g, legal), k = 1 + (int)(rng_next(&rng) % 3);
        if (k > n)
            k = n;
        for (int i = 0; i < k; i++) { /* k distinct moves */
            int j = i + (int)(rng_next(&rng) % (uint64_t)(n - i));
            move_t t = legal[i];
            legal[i] = legal[j];
            legal[j] = t;
            only[i] = legal[i];
        }
        char limits[96], list[64];
        format_moves(only, k, list, sizeof list);
        snprintf(limits, sizeof limits, "depth 3 searchmoves %s", list);
        send_position(&l);
        char what[160];
        snprintf(what, sizeof what, "seed %llu, go %s", (unsigned long long)s, limits);
        check_root_moves(&g, only, k, limits, what, &c);
        game_free(&g);
        done++;
    }
    expect_no_failure("searchmoves", &c);
    cr_assert(c.win && c.draw && c.loss);
    end_engine();
}

/* A search stopped at its first node (go nodes 1) still plays a value-keeping move and
 * reports the database value: the root's moves and value are known before searching. */
Test(tbengine, search_stopped_at_once_reports_the_database_value)
{
    start_with_database();
    checks_t c = {0};
    search_random_roots(40001, 40, REP_FORBID, "nodes 1", &c);
    expect_no_failure("nodes 1", &c);
    cr_assert(c.win && c.draw && c.loss);
    end_engine();
}

/* The tigers take the fifth goat at once (win in 1): the root's moves are chosen by the
 * database, so the info lines count probes too. */
Test(tbengine, tbhits_at_a_root_won_by_the_fifth_capture)
{
    start_with_database();
    line_t l;
    line_init(&l, WIN3_OBX);
    line_add_text(&l, "B2A3");
    line_add_text(&l, "A1B2");
    game_t g;
    library_game(&l, REP_FORBID, &g);
    tb_value_t v;
    cr_assert(tb_probe(tb, game_position(&g), &v));
    cr_assert(v.wdl == TB_WIN && v.distance == 1);
    send_position(&l);
    move_t legal[MAX_MOVES], best[MAX_MOVES];
    tb_move_value_t ranked[MAX_MOVES];
    int n = game_legal_moves(&g, legal), keep = tb_rank_moves(tb, game_position(&g), legal, n, ranked);
    cr_assert_eq(keep, 3, "A3C3, A3A5 and A3A1 take the fifth goat");
    for (int i = 0; i < keep; i++)
        best[i] = ranked[i].move;
    go_t r;
    go("depth 3", true, &r);
    cr_assert(move_in(r.best, best, keep), "bestmove %s", r.best);
    cr_assert(r.last.mate && r.last.score == 1, "score %s %d", r.last.mate ? "mate" : "cp", r.last.score);
    cr_assert_gt(r.min_tbhits, 0, "a database root reports tbhits 0");
    game_free(&g);
    end_engine();
}

/* After bestmove no search runs: options can be changed at once. (A race: the engine may
 * still count itself searching for a moment after writing bestmove; how often this catches
 * it depends on the load of the machine.) */
Test(tbengine, option_change_right_after_bestmove)
{
    start_with_database();
    char load[600], loaded[600];
    snprintf(load, sizeof load, "setoption name TablebasePath value %s", tb_dir);
    snprintf(loaded, sizeof loaded, "info string tablebase loaded from %s", tb_dir);
    send_line("position obx %s", WIN3_OBX);
    for (int i = 0; i < 300; i++) {
        send_line("go depth %d", 1 + i % 2);
        char *line;
        cr_assert_eq(pipe_read_until(eng, "bestmove ", GO_MS, NULL, &line), PIPE_LINE);
        /* Sent the moment bestmove arrives, before anything else. */
        pipe_lines_t out = {0};
        if (i % 50 == 0) { /* unload and load the database */
            send_line("setoption name TablebasePath value <empty>");
            exchange(&out, "tbprobe");
            cr_assert(out.count == 1 && strcmp(out.line[0], NO_TB_ERROR) == 0,
                      "round %d: unloading right after bestmove, then tbprobe: %zu lines, the first '%s'", i + 1,
                      out.count, out.count ? out.line[0] : "");
            pipe_lines_free(&out);
            send_line("go depth 1");
            cr_assert_eq(pipe_read_until(eng, "bestmove ", GO_MS, NULL, &line), PIPE_LINE);
            exchange(&out, load);
            cr_assert(out.count == 1 && strcmp(out.line[0], loaded) == 0,
                      "round %d: loading right after bestmove printed '%s'", i + 1, out.count ? out.line[0] : "");
        } else {
            exchange(&out, i % 2 ? "setoption name Repetition value draw" : "setoption name Repetition value forbid");
            cr_assert_eq(out.count, 0, "round %d: a Repetition change right after bestmove printed '%s'", i + 1,
                         out.line[0]);
        }
        pipe_lines_free(&out);
    }
    end_engine();
}

/* ======================================================================================== */
/* Repetition forbid: legality follows the history                                        */

/* A game that ends in p and in which m (a step of p's side to move, a-b) would recreate a
 * position: it starts at Q = p + m and goes y (a step c-d of the other side), b-a, d-c back
 * to p. Returns false when p has no such y. */
static bool repeat_back(const position_t *p, move_t m, line_t *l)
{
    int a = move_from(m), b = move_to(m);
    position_t q = *p;
    position_make(&q, m);
    move_t ys[MAX_MOVES];
    int ny = gen_moves(&q, ys);
    for (int k = 0; k < ny; k++) {
        move_t y = ys[k];
        if (move_kind(y) != MOVE_STEP || move_to(y) == a)
            continue;
        move_t x = move_make(MOVE_STEP, b, a), y2 = move_make(MOVE_STEP, move_to(y), move_from(y));
        position_t r = q;
        position_make(&r, y);
        if (!move_is_pseudo_legal(&r, x))
            continue;
        position_t s = r;
        position_make(&s, x);
        if (!move_is_pseudo_legal(&s, y2))
            continue;
        char obx[OBX_MAX_LEN];
        obx_format(&q, NULL, OBX_V2, obx, sizeof obx);
        position_t back;
        if (obx_parse(obx, &back, NULL, NULL, 0) != BC_OK)
            continue;
        line_init(l, obx);
        l->moves[l->n++] = y;
        l->moves[l->n++] = x;
        l->moves[l->n++] = y2;
        game_t g;
        library_game(l, REP_FORBID, &g);
        bool ok = game_position(&g)->key == p->key && game_result(&g).reason == RESULT_NONE && game_move_repeats(&g, m);
        game_free(&g);
        if (ok)
            return true;
    }
    return false;
}

/* Finds a movement-phase position P (database entry) whose only best move m is a step a-b,
 * and a game Q y (b-a) y' where Q = P + m, y = c-d a step of the other side, y' = d-c: the
 * game ends in P and m would recreate Q. Returns the game and m. */
static void find_forbidden_best(uint64_t seed, line_t *l, move_t *forbidden, tb_wdl_t want)
{
    for (int tries = 0; tries < 200000; tries++) {
        int c = 1 + (int)(rng_next(&seed) % 3), side = (int)(rng_next(&seed) & 1);
        position_t p;
        tb_value_t v;
        tb_entry(tb, c, side, rng_next(&seed) % tb_slice_size(c), &p, &v);
        if (v.wdl != want || (v.wdl != TB_DRAW && v.distance < 3))
            continue;
        move_t moves[MAX_MOVES];
        tb_move_value_t ranked[MAX_MOVES];
        int n = gen_moves(&p, moves);
        if (n < 2 || tb_rank_moves(tb, &p, moves, n, ranked) != 1 || move_kind(ranked[0].move) != MOVE_STEP)
            continue;
        if (repeat_back(&p, ranked[0].move, l)) {
            *forbidden = ranked[0].move;
            return;
        }
    }
    cr_assert_fail("no position found whose only best move repeats");
}

/* Under forbid: m is not legal; tbprobe leaves it out; the engine plays a legal move that
 * keeps the best value the legal moves have, with that value as its score. */
static void check_forbidden_best(uint64_t seed, tb_wdl_t want)
{
    line_t l;
    move_t m;
    find_forbidden_best(seed, &l, &m, want);
    char mt[MOVE_TEXT_LEN], cmd[256];
    move_format(m, mt);
    position_command(&l, cmd, sizeof cmd);
    cr_log_info("%s: the database's only best move %s repeats", cmd, mt);
    game_t g;
    library_game(&l, REP_FORBID, &g);
    move_t legal[MAX_MOVES];
    int n = game_legal_moves(&g, legal);
    cr_assert_not(move_in(mt, legal, n));
    send_position(&l);
    check_tbprobe(&g, cmd);
    pipe_lines_t out = {0};
    exchange(&out, "tbprobe");
    for (size_t i = 0; i < out.count; i++)
        cr_assert(strncmp(out.line[i], mt, strlen(mt)) != 0, "tbprobe lists the repeating move: '%s'", out.line[i]);
    pipe_lines_free(&out);
    checks_t c = {0};
    check_root_search(&g, "depth 3", cmd, &c);
    send_position(&l);
    check_root_search(&g, "nodes 5000", cmd, &c);
    expect_no_failure("forbid, the best move repeats", &c);
    game_free(&g);
}

/* The same games under draw: m is legal (its position comes back a second time only) and
 * the only best move; the score and the line are the database's. */
static void check_best_move_back_to_a_seen_position(uint64_t seed, tb_wdl_t want)
{
    line_t l;
    move_t m;
    find_forbidden_best(seed, &l, &m, want);
    char mt[MOVE_TEXT_LEN], cmd[256];
    move_format(m, mt);
    position_command(&l, cmd, sizeof cmd);
    cr_log_info("%s: the database's only best move %s comes back to the start", cmd, mt);
    expect_silent("setoption name Repetition value draw");
    game_t g;
    library_game(&l, REP_DRAW, &g);
    send_position(&l);
    check_tbprobe(&g, cmd);
    go_t r;
    go("depth 1", true, &r);
    cr_assert_str_eq(r.best, mt, "the only best move is %s", mt);
    checks_t c = {0};
    check_root_search(&g, "depth 3", cmd, &c);
    send_position(&l);
    check_root_search(&g, "nodes 5000", cmd, &c);
    expect_no_failure("draw, the best move comes back to a position seen once", &c);
    game_free(&g);
}

Test(tbengine, forbid_repeating_best_move_of_a_win)
{
    start_with_database();
    check_forbidden_best(3, TB_WIN);
    end_engine();
}

Test(tbengine, forbid_repeating_best_move_of_a_loss)
{
    start_with_database();
    check_forbidden_best(11, TB_LOSS);
    end_engine();
}

Test(tbengine, draw_best_move_of_a_win_back_to_a_seen_position)
{
    start_with_database();
    check_best_move_back_to_a_seen_position(3, TB_WIN);
    end_engine();
}

Test(tbengine, draw_best_move_of_a_loss_back_to_a_seen_position)
{
    start_with_database();
    check_best_move_back_to_a_seen_position(11, TB_LOSS);
    end_engine();
}

/* ======================================================================================== */
/* Placement phase, no database                                                           */

Test(tbengine, placement_phase_search_with_a_database)
{
    start_with_database();
    int hits_seen = 0;
    for (uint64_t s = 1; s <= 24; s++) {
        line_t l;
        int in_hand = 1 + (int)(s % 4);
        if (!random_line(s * 7919, (int)(s % 3), in_hand, 0, &l))
            continue;
        game_t g;
        library_game(&l, REP_FORBID, &g);
        if (s % 3 == 0) { /* the goats to move: one tiger move more */
            move_t moves[MAX_MOVES];
            int n = game_legal_moves(&g, moves);
            cr_assert_gt(n, 0);
            l.moves[l.n++] = moves[s % (uint64_t)n];
            game_free(&g);
            library_game(&l, REP_FORBID, &g);
        }
        send_position(&l);
        go_t r;
        go(s % 2 ? "depth 3" : "nodes 3000", true, &r);
        move_t legal[MAX_MOVES];
        int n = game_legal_moves(&g, legal);
        cr_assert(move_in(r.best, legal, n), "seed %llu: bestmove %s is not legal", (unsigned long long)s, r.best);
        /* With one goat in hand the search reaches the database: after the goats' last
         * placement (depth 1), or after a tiger move and that placement (depth 2). */
        if (in_hand == 1 && game_result(&g).reason == RESULT_NONE) {
            cr_assert_gt(r.last.tbhits, 0, "seed %llu: one goat in hand, %s to move, tbhits 0",
                         (unsigned long long)s, side_name(game_position(&g)->side));
            hits_seen++;
        }
        game_free(&g);
    }
    cr_assert_gt(hits_seen, 0);
    /* The start position. */
    expect_silent("position startpos");
    go_t r;
    go("depth 4", true, &r);
    position_t start;
    position_set_start(&start);
    move_t legal[MAX_MOVES];
    int n = gen_moves(&start, legal);
    cr_assert(move_in(r.best, legal, n));
    end_engine();
}

Test(tbengine, search_without_a_database)
{
    start_with_database();
    expect_no_error("setoption name TablebasePath value <empty>");
    expect_line("tbprobe", NO_TB_ERROR);
    int done = 0;
    for (uint64_t s = 300; done < 12; s++) {
        line_t l;
        if (!random_movement_game(s, &l, REP_FORBID))
            continue;
        game_t g;
        library_game(&l, REP_FORBID, &g);
        send_position(&l);
        go_t r;
        go(done % 2 ? "depth 3" : "nodes 5000", false, &r);
        move_t legal[MAX_MOVES];
        int n = game_legal_moves(&g, legal);
        cr_assert(move_in(r.best, legal, n), "seed %llu: bestmove %s is not legal", (unsigned long long)s, r.best);
        game_free(&g);
        done++;
    }
    expect_silent("position startpos moves C3");
    go_t r;
    go("depth 4", false, &r);
    position_t p;
    position_set_start(&p);
    move_t c3;
    cr_assert_eq(move_parse(&p, "C3", &c3, NULL, 0), BC_OK);
    position_make(&p, c3);
    move_t legal[MAX_MOVES];
    cr_assert(move_in(r.best, legal, gen_moves(&p, legal)));
    /* Loaded again, tbhits come back. */
    load_database();
    line_t l;
    line_init(&l, WIN3_OBX);
    game_t g;
    library_game(&l, REP_FORBID, &g);
    send_position(&l);
    checks_t c = {0};
    check_root_search(&g, "depth 3", WIN3_OBX, &c);
    expect_no_failure(WIN3_OBX, &c);
    game_free(&g);
    end_engine();
}

/* The game's history comes before the database: under `draw` the only legal move makes the
 * third occurrence, so it draws (cp 0), the pv ends with it and there is no ponder move;
 * deeper in the search, a third occurrence is a draw even where the database says more. */
Test(tbengine, third_occurrence_beats_the_database)
{
    start_with_database();
    expect_silent("setoption name Repetition value draw");
    expect_silent("position obx GTGGX/GGGGT/GGGGG/GGGGG/TGTGG g @0 c0 moves D2E1 E2D2 E1E2 D2E1 E2D2 E1E2 D2E1 "
                  "E2D2 E1E2 D2E1 E2D2");
    /* tbprobe: the database's value of the position, the move's value in this game. */
    pipe_lines_t out = {0};
    exchange(&out, "tbprobe");
    cr_assert_eq(out.count, 3, "tbprobe printed %zu lines", out.count);
    cr_assert(strncmp(out.line[0], "Value: ", 7) == 0, "'%s'", out.line[0]);
    cr_assert_str_eq(out.line[1], "Moves (1):");
    cr_assert_str_eq(out.line[2], "E1E2: draw");
    pipe_lines_free(&out);
    const char *const limits[] = {"depth 1", "depth 3", "depth 8", "nodes 2000"};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        go_t r;
        go(limits[i], true, &r);
        cr_assert_str_eq(r.best, "E1E2", "go %s", limits[i]);
        cr_assert(!r.last.mate && r.last.score == 0, "go %s: score %s %d", limits[i], r.last.mate ? "mate" : "cp",
                  r.last.score);
        cr_assert_eq(r.last.npv, 1, "go %s: the pv runs past the end of the game (%d moves)", limits[i], r.last.npv);
        cr_assert_str_eq(r.ponder, "", "go %s: ponder move %s in a finished game", limits[i], r.ponder);
    }
    /* One move earlier the goats choose: E2D2 walks into the third occurrence next move.
     * Whatever they play, no reported line may score past that draw. */
    expect_silent("position obx GTGGX/GGGGT/GGGGG/GGGGG/TGTGG g @0 c0 moves D2E1 E2D2 E1E2 D2E1 E2D2 E1E2 D2E1 "
                  "E2D2 E1E2 D2E1");
    go_t r;
    go("depth 6", true, &r);
    if (strcmp(r.best, "E2D2") == 0)
        cr_assert(!r.last.mate || r.last.score > 0, "E2D2 leads to a draw at best: mate %d", r.last.score);
    end_engine();
}

/* A TablebasePath of any length is taken whole, and <empty> unloads in any case. */
Test(tbengine, long_path_and_empty_in_any_case)
{
    need_database();
    char base[] = "/tmp/tbengine_long.XXXXXX";
    cr_assert_not_null(mkdtemp(base));
    char dir[1024], file[1100], target[PATH_MAX + 64], real[PATH_MAX];
    int n = snprintf(dir, sizeof dir, "%s/", base);
    memset(dir + n, 'd', 150);
    dir[n + 150] = '\0';
    cr_assert_eq(mkdir(dir, 0700), 0, "%s", strerror(errno));
    n = (int)strlen(dir);
    dir[n] = '/';
    memset(dir + n + 1, 'e', 150);
    dir[n + 151] = '\0';
    cr_assert_eq(mkdir(dir, 0700), 0, "%s", strerror(errno));
    cr_assert_gt(strlen(dir), 300);
    /* The link needs the database's absolute path. */
    if (tb_dir[0] == '/')
        snprintf(real, sizeof real, "%s", tb_dir);
    else {
        cr_assert_not_null(getcwd(real, sizeof real - strlen(tb_dir) - 2));
        strcat(strcat(real, "/"), tb_dir);
    }
    snprintf(target, sizeof target, "%s/%s", real, TB_FILE_NAME);
    snprintf(file, sizeof file, "%s/%s", dir, TB_FILE_NAME);
    cr_assert_eq(symlink(target, file), 0, "%s", strerror(errno));

    start_engine();
    char cmd[1200], want[1200];
    snprintf(cmd, sizeof cmd, "setoption name TablebasePath value %s", dir);
    snprintf(want, sizeof want, "info string tablebase loaded from %s", dir);
    expect_line(cmd, want);
    expect_one_line_starting("tbprobe", "Value: ");
    expect_silent("setoption name TablebasePath value <EMPTY>");
    expect_line("tbprobe", NO_TB_ERROR);
    expect_line(cmd, want);
    expect_silent("setoption name TablebasePath value <Empty>");
    expect_line("tbprobe", NO_TB_ERROR);
    end_engine();

    unlink(file);
    rmdir(dir);
    dir[strlen(dir) - 151] = '\0';
    rmdir(dir);
    rmdir(base);
}

/* At a won or lost database root the values are exact from the first iteration on: the
 * search does not iterate to depth 100 to print the same line again. */
Test(tbengine, a_database_win_ends_the_iterations)
{
    start_with_database();
    expect_silent("position obx GGGGX/GTGTG/XGXGX/GTGTG/XGGGG t @0 c4");
    go_t r;
    go("depth 100", true, &r);
    cr_assert(r.last.mate && r.last.score == 2, "score %s %d", r.last.mate ? "mate" : "cp", r.last.score);
    cr_assert_leq(r.ninfo, 2, "%d info lines at a database root won in 3", r.ninfo);
    cr_assert_leq(r.last.depth, 1, "searched to depth %d", r.last.depth);
    end_engine();
}

#define TBVERIFY BAGHCHAL_BIN_DIR "/baghchal-tbverify"

/* Runs a tool to its end and returns its exit status. */
static int run_tool(char *const argv[])
{
    pipe_proc_t *p = pipe_start(argv, 0);
    cr_assert_not_null(p, "cannot start %s: %s", argv[0], strerror(errno));
    char *line;
    while (pipe_read_line(p, BUILD_MS, &line) == PIPE_LINE)
        ;
    pipe_exit_t x = pipe_wait(p, EXIT_MS);
    pipe_free(p);
    cr_assert(x.exited, "%s ended by signal %d", argv[0], x.signal);
    return x.code;
}

/* The tools' exit statuses are what tools/tbgen/README.md says: 2 for usage, 1 for a missing
 * or damaged database; and baghchal-tbgen makes the directory it is given. */
Test(tbengine, tool_exit_statuses_and_tbgen_makes_its_directory)
{
    need_database();
    char dir[64], nested[128], file[160];
    make_tmp_dir(dir, sizeof dir);
    char *usage[] = {(char *)TBVERIFY, "--bogus", NULL};
    cr_assert_eq(run_tool(usage), 2, "tbverify --bogus");
    char *missing[] = {(char *)TBVERIFY, dir, NULL};
    cr_assert_eq(run_tool(missing), 2, "tbverify on a directory without a database");
    snprintf(file, sizeof file, "%s/%s", dir, TB_FILE_NAME);
    copy_prefix(file, 100000);
    cr_assert_eq(run_tool(missing), 2, "tbverify on a truncated database");
    unlink(file);

    snprintf(nested, sizeof nested, "%s/new/deeper", dir);
    char *gen[] = {(char *)TBGEN, nested, "--captures-to-win", "1", NULL};
    cr_assert_eq(run_tool(gen), 0, "tbgen into a directory that does not exist");
    snprintf(file, sizeof file, "%s/%s", nested, TB_FILE_NAME);
    struct stat st;
    cr_assert_eq(stat(file, &st), 0, "%s: %s", file, strerror(errno));
    cr_assert_gt(st.st_size, 0);
    unlink(file);
    rmdir(nested);
    snprintf(nested, sizeof nested, "%s/new", dir);
    rmdir(nested);
    rmdir(dir);
}

/* One changed byte in a slice's data: the engine refuses the file when it loads it (every
 * slice's checksum is checked then) and keeps the database it had. */
Test(tbengine, a_changed_data_byte_is_refused_at_load)
{
    need_database();
    char dir[64], src[600], dst[160];
    make_tmp_dir(dir, sizeof dir);
    snprintf(src, sizeof src, "%s/%s", tb_dir, TB_FILE_NAME);
    snprintf(dst, sizeof dst, "%s/%s", dir, TB_FILE_NAME);
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    cr_assert(in && out);
    static char buf[1 << 16];
    size_t n, total = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
        cr_assert_eq(fwrite(buf, 1, n, out), n);
        total += n;
    }
    fclose(in);
    cr_assert_eq(fclose(out), 0);
    /* The last slice (4 captured) fills the second half of the file. */
    int fd = open(dst, O_RDWR);
    cr_assert_geq(fd, 0);
    unsigned char b;
    off_t at = (off_t)(total * 3 / 4);
    cr_assert_eq(pread(fd, &b, 1, at), 1);
    b ^= 0x10;
    cr_assert_eq(pwrite(fd, &b, 1, at), 1);
    close(fd);

    start_with_database();
    char cmd[200];
    snprintf(cmd, sizeof cmd, "setoption name TablebasePath value %s", dir);
    expect_line(cmd, "info string error: tablebase not loaded: slice 4: data checksum mismatch");
    expect_one_line_starting("tbprobe", "Value: "); /* the database loaded before stays */
    end_engine();
    unlink(dst);
    rmdir(dir);
}

/* ---- go prove ------------------------------------------------------------------------- */

/* Runs `go prove <limits>` to its bestmove; returns the result word and the bestmove. */
static void run_prove(const char *limits, char *result, char *best, char pv[][MOVE_TEXT_LEN], int *npv)
{
    send_line("go prove %s", limits);
    pipe_lines_t out = {0};
    char *line;
    cr_assert_eq(pipe_read_until(eng, "bestmove ", GO_MS, &out, &line), PIPE_LINE, "go prove %s: no bestmove", limits);
    cr_assert_eq(sscanf(line, "bestmove %11s", best), 1, "'%s'", line);
    cr_assert_eq(out.count, 1, "go prove %s printed %zu lines before bestmove", limits, out.count);
    const char *info = out.line[0];
    unsigned long long nodes;
    long long ms;
    int used = 0;
    cr_assert_eq(sscanf(info, "info string prove result %7s nodes %llu time %lld%n", result, &nodes, &ms, &used), 3,
                 "'%s'", info);
    *npv = 0;
    const char *rest = info + used;
    if (strncmp(rest, " pv", 3) == 0) {
        rest += 3;
        int n;
        while (*npv < 64 && sscanf(rest, " %11s%n", pv[*npv], &n) == 1) {
            (*npv)++;
            rest += n;
        }
    } else {
        cr_assert_str_eq(rest, "", "'%s'", info);
    }
    pipe_lines_free(&out);
}

/* go prove settles what the library's prover settles, with the same budget and table, and
 * every move it names is legal in the game; a proven win is played through to a finished
 * or database-decided position the loser cannot escape. */
Test(tbengine, go_prove_matches_the_library)
{
    start_with_database();
    static const char *const GAMES[] = {
        "GXGTG/GGGTT/GTGGG/GGGGX/GGXXG g @0 c3", /* open under the draw rule; the goats lose */
        "GGGTG/TGGGG/TTGGG/GXGXX/XGXGG g @0 c4", /* open, wider */
        WIN3_OBX,                                 /* a database win that holds */
    };
    fb_prover_t *pr = fb_prover_new(64); /* the engine's table: Hash, 64 MB */
    cr_assert_not_null(pr);
    for (size_t i = 0; i < sizeof GAMES / sizeof *GAMES; i++) {
        line_t l;
        line_init(&l, GAMES[i]);
        send_position(&l);
        game_t g;
        library_game(&l, REP_FORBID, &g);
        char result[8], best[MOVE_TEXT_LEN], pv[64][MOVE_TEXT_LEN];
        int npv;
        run_prove("nodes 20000", result, best, pv, &npv);
        fb_limits_t lim = {20000, 0, NULL, NULL, NULL};
        fb_proof_t proof;
        fb_result_t r = fb_prove(pr, tb, &g, &lim, &proof);
        cr_assert_str_eq(result, r == FB_WIN ? "win" : r == FB_LOSS ? "loss" : "open", "%s", GAMES[i]);
        char want[MOVE_TEXT_LEN];
        move_format(proof.move, want);
        cr_assert_str_eq(best, want, "%s", GAMES[i]);
        cr_assert_eq(npv, proof.pv_len, "%s", GAMES[i]);
        /* Every pv move is legal in the game, in turn. */
        game_t replay;
        copy_game(&g, &replay);
        char msg[256];
        for (int k = 0; k < npv; k++)
            cr_assert_eq(game_play_text(&replay, pv[k], msg, sizeof msg), BC_OK, "%s: pv move %d %s: %s", GAMES[i],
                         k + 1, pv[k], msg);
        game_free(&replay);
        if (i == 0)
            cr_assert_str_eq(result, "loss", "a position the prover settles at once");
        if (i == 2)
            cr_assert_str_eq(result, "win", "a database win that holds is proven at once");
        game_free(&g);
    }
    fb_prover_free(pr);
    /* Refused: a finished game proves at once; the draw rule and no database are errors. */
    expect_silent("setoption name Repetition value draw");
    expect_one_line_starting("go prove nodes 10", "info string error: go prove proves results under Repetition forbid");
    expect_silent("setoption name Repetition value forbid");
    expect_one_line_starting("go prove nodes 10 depth 3", "info string error: go prove takes movetime, nodes");
    expect_silent("setoption name TablebasePath value <empty>");
    expect_one_line_starting("go prove nodes 10", "info string error: go prove needs the database");
}

/* go prove infinite runs until stop, and stop ends it with one bestmove. */
Test(tbengine, go_prove_stops)
{
    start_with_database();
    expect_silent("position obx GGGTG/TGGGG/TTGGG/GXGXX/XGXGG g @0 c4");
    send_line("go prove infinite");
    char *line;
    cr_assert_eq(pipe_read_line(eng, 300, &line), PIPE_TIMEOUT, "go prove infinite answered: '%s'", line);
    pipe_lines_t out = {0};
    sync_collect(&out);
    cr_assert_eq(out.count, 0, "'%s' while proving", out.count ? out.line[0] : "");
    pipe_lines_free(&out);
    send_line("stop");
    cr_assert_eq(pipe_read_until(eng, "bestmove ", REPLY_MS, &out, &line), PIPE_LINE);
    cr_assert_eq(out.count, 1);
    cr_assert(strncmp(out.line[0], "info string prove result ", 25) == 0, "'%s'", out.line[0]);
    pipe_lines_free(&out);
    expect_silent("isready");
}

/* ---- Under forbid, the history blocks the fastest win: the engine still wins ----------- */

/* A game ending in a movement-phase database win P whose only fastest move m recreates a
 * position of the history (P + m, then three more plies back to P), while another move of P
 * still wins. */
static bool find_blocked_win(uint64_t seed, line_t *l, move_t *blocked)
{
    for (int tries = 0; tries < 400000; tries++) {
        int c = 1 + (int)(rng_next(&seed) % 3), side = (int)(rng_next(&seed) & 1);
        position_t p;
        tb_value_t v;
        tb_entry(tb, c, side, rng_next(&seed) % tb_slice_size(c), &p, &v);
        if (v.wdl != TB_WIN || v.distance < 5)
            continue;
        move_t moves[MAX_MOVES];
        tb_move_value_t ranked[MAX_MOVES];
        int n = gen_moves(&p, moves);
        if (n < 2 || tb_rank_moves(tb, &p, moves, n, ranked) != 1 || move_kind(ranked[0].move) != MOVE_STEP ||
            ranked[1].value.wdl != TB_WIN)
            continue;
        if (repeat_back(&p, ranked[0].move, l)) {
            *blocked = ranked[0].move;
            return true;
        }
    }
    return false;
}

/* The engine plays the winner from P; the loser defends with the database's slowest legal
 * loss. The engine never plays a move that repeats, and it wins. */
Test(tbengine, forbid_blocked_fastest_win_still_wins)
{
    start_with_database();
    for (uint64_t seed = 5; seed < 8; seed++) {
        line_t l;
        move_t blocked;
        cr_assert(find_blocked_win(seed, &l, &blocked), "no position found whose fastest win the history blocks");
        game_t g;
        library_game(&l, REP_FORBID, &g);
        int winner = game_position(&g)->side;
        char msg[256], cmd[MAX_LINE * 6 + 128];
        for (int ply = 0; ply < 400 && game_result(&g).reason == RESULT_NONE; ply++) {
            move_t legal[MAX_MOVES];
            int n = game_legal_moves(&g, legal);
            move_t m;
            if (game_position(&g)->side == winner) {
                position_command(&l, cmd, sizeof cmd);
                expect_silent(cmd);
                go_t r;
                go("nodes 5000", true, &r);
                m = parse_move(r.best);
                cr_assert_not(game_move_repeats(&g, m), "the engine played %s, which repeats", r.best);
                if (ply == 0)
                    cr_assert_neq(m, blocked);
            } else {
                tb_move_value_t ranked[MAX_MOVES];
                cr_assert_geq(tb_rank_moves(tb, game_position(&g), legal, n, ranked), 1);
                m = ranked[0].move;
            }
            cr_assert_eq(game_play(&g, m, msg, sizeof msg), BC_OK, "%s", msg);
            cr_assert_lt(l.n, MAX_LINE);
            l.moves[l.n++] = m;
        }
        game_result_t res = game_result(&g);
        cr_assert_neq(res.reason, RESULT_NONE, "no result after %d plies", l.n);
        cr_assert_eq(res.winner, winner, "the winner lost: %s", result_describe(res));
        game_free(&g);
    }
}

/* MultiPV at a drawn root under the draw rule: every move that keeps the draw is a line (up to
 * MultiPV), not only those the single answer prefers (the ones that leave the opponent the
 * most losing replies); with one line the answer is still one of those. */
Test(tbengine, multipv_shows_every_move_that_keeps_the_draw)
{
    start_with_database();
    expect_silent("setoption name Repetition value draw");
    int checked = 0;
    for (uint64_t seed = 1; seed < 4000 && checked < 12; seed++) {
        line_t l;
        if (!random_movement_game(seed, &l, REP_DRAW))
            continue;
        game_t g;
        library_game(&l, REP_DRAW, &g);
        move_t moves[MAX_MOVES];
        tb_move_value_t ranked[MAX_MOVES];
        int n = game_legal_moves(&g, moves);
        int keep = search_rank_tb_moves(tb, &g, moves, n, ranked);
        game_free(&g);
        if (keep < 3 || ranked[0].value.wdl != TB_DRAW)
            continue;
        checked++;
        send_position(&l);
        int want = keep < 6 ? keep : 6;
        expect_silent("setoption name MultiPV value 6");
        send_line("go depth 3");
        pipe_lines_t out = {0};
        char *best;
        cr_assert_eq(pipe_read_until(eng, "bestmove ", GO_MS, &out, &best), PIPE_LINE);
        /* The last line of each multipv index at the last depth. */
        char first[7][MOVE_TEXT_LEN] = {{0}};
        int lines = 0;
        for (size_t i = 0; i < out.count; i++) {
            info_t in;
            parse_info(out.line[i], true, &in);
            const char *mp = strstr(out.line[i], " multipv ");
            cr_assert_not_null(mp, "no multipv in '%s'", out.line[i]);
            int k = atoi(mp + 9);
            cr_assert(k >= 1 && k <= 6, "'%s'", out.line[i]);
            cr_assert(!in.mate && in.score == 0, "a drawing line scored otherwise: '%s'", out.line[i]);
            snprintf(first[k], MOVE_TEXT_LEN, "%s", in.pv[0]);
            lines = k > lines ? k : lines;
        }
        cr_assert_eq(lines, want, "seed %llu: %d lines where %d moves keep the draw", (unsigned long long)seed, lines,
                     keep);
        for (int k = 1; k <= lines; k++) {
            cr_assert(move_in(first[k], moves, n), "line %d starts with '%s'", k, first[k]);
            bool draws = false;
            for (int i = 0; i < keep; i++) {
                char t[MOVE_TEXT_LEN];
                move_format(ranked[i].move, t);
                draws |= strcmp(t, first[k]) == 0;
            }
            cr_assert(draws, "line %d starts with %s, which does not keep the draw", k, first[k]);
            for (int j = 1; j < k; j++)
                cr_assert_str_neq(first[j], first[k], "two lines start with %s", first[k]);
        }
        pipe_lines_free(&out);
        expect_silent("setoption name MultiPV value 1");
    }
    cr_assert_geq(checked, 5, "only %d drawn roots with three drawing moves found", checked);
}
