/* baghchal-puzzles, driven as an executable: every puzzle it writes from the movement
 * database ($BAGHCHAL_TB_DIR) checked here against the database by the library's probes
 * (exactly one move keeps the win or the draw at each of the solver's turns, and it is the
 * line's; each reply is of the best value; the distance; no two puzzles alike up to the
 * board's symmetries; the quotas by level), the same file for the same seed, its own --check
 * of that file and of a file with a wrong move; the small game (2 goats, 2 captures win),
 * where no position has a single winning move, so the tool finds none; the shipped
 * web/puzzles.json's movement-phase puzzles checked the same way; and bad arguments. */
#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baghchal.h"
#include "pipe.h"
#include "tb_build.h"
#include "tree.h"

#define PUZZLES BAGHCHAL_BIN_DIR "/baghchal-puzzles"
#define TBGEN BAGHCHAL_BIN_DIR "/baghchal-tbgen"
#define SHIPPED BAGHCHAL_TEST_DATA "/../../tools/obx-server/web/puzzles.json"

enum { TOOL_MS = 300000, MAX_PUZZLES = 400, MAX_LINE = 10 };

static char current_dir[128];

static void cleanup(void)
{
    if (current_dir[0])
        tree_remove(current_dir);
}

TestSuite(puzzles, .fini = cleanup, .timeout = 600);

static const char *make_dir(void)
{
    snprintf(current_dir, sizeof current_dir, "/tmp/test_puzzles.XXXXXX");
    cr_assert_not_null(mkdtemp(current_dir));
    return current_dir;
}

/* ---- Running the tool ------------------------------------------------------------------ */

typedef struct {
    int code;
    pipe_lines_t out; /* standard output and standard error, merged */
} run_t;

static void run(run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run(run_t *r, const char *fmt, ...)
{
    char cmd[4096], full[4200];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    cr_assert(n > 0 && (size_t)n < sizeof cmd);
    snprintf(full, sizeof full, "exec %s 2>&1", cmd);
    char *argv[] = {"/bin/sh", "-c", full, NULL};
    pipe_proc_t *p = pipe_start(argv, 0);
    cr_assert_not_null(p, "cannot start: %s", cmd);
    pipe_close_stdin(p);
    memset(r, 0, sizeof *r);
    char *line;
    pipe_status_t st = pipe_read_until(p, "\x01never", TOOL_MS, &r->out, &line);
    cr_assert_eq(st, PIPE_EOF, "%s: %s before the end of its output", cmd, pipe_status_name(st));
    pipe_exit_t ex = pipe_wait(p, TOOL_MS);
    cr_assert(ex.exited, "%s did not exit normally (signal %d)", cmd, ex.signal);
    r->code = ex.code;
    pipe_free(p);
}

static void run_free(run_t *r) { pipe_lines_free(&r->out); }

static const char *last_line(const run_t *r) { return r->out.count ? r->out.line[r->out.count - 1] : ""; }


static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

/* ---- Reading a puzzle file (one puzzle a line) ------------------------------------------ */

typedef struct {
    int id, score, plausible, distance; /* distance -1: null */
    char level[16], phase[16], side[16], goal[16], obx[80];
    int nline;
    char line[MAX_LINE][8];
} puzzle_t;

static void str_field(const char *s, const char *key, char *out, size_t len)
{
    char pat[32];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *a = strstr(s, pat);
    cr_assert_not_null(a, "no %s in %s", key, s);
    a += strlen(pat);
    const char *e = strchr(a, '"');
    cr_assert(e && (size_t)(e - a) < len);
    memcpy(out, a, (size_t)(e - a));
    out[e - a] = '\0';
}

static int int_field(const char *s, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *a = strstr(s, pat);
    cr_assert_not_null(a, "no %s in %s", key, s);
    a += strlen(pat);
    return strncmp(a, "null", 4) == 0 ? -1 : atoi(a);
}

static int parse_puzzles(const char *text, puzzle_t *out, int max)
{
    int n = 0;
    for (const char *s = strstr(text, "{\"id\":"); s; s = strstr(s + 1, "{\"id\":")) {
        cr_assert_lt(n, max);
        puzzle_t *z = &out[n++];
        memset(z, 0, sizeof *z);
        z->id = int_field(s, "id");
        z->score = int_field(s, "score");
        z->plausible = int_field(s, "plausible");
        z->distance = int_field(s, "distance");
        str_field(s, "level", z->level, sizeof z->level);
        str_field(s, "phase", z->phase, sizeof z->phase);
        str_field(s, "side", z->side, sizeof z->side);
        str_field(s, "goal", z->goal, sizeof z->goal);
        str_field(s, "obx", z->obx, sizeof z->obx);
        const char *l = strstr(s, "\"line\":[");
        cr_assert_not_null(l);
        l += 8;
        while (*l == '"') {
            const char *e = strchr(l + 1, '"');
            cr_assert(e && e - l - 1 < 8 && z->nline < MAX_LINE);
            memcpy(z->line[z->nline], l + 1, (size_t)(e - l - 1));
            z->line[z->nline++][e - l - 1] = '\0';
            l = e + 1 + (e[1] == ',');
        }
        cr_assert_eq(*l, ']');
    }
    return n;
}

/* ---- The check, by the library's probes ------------------------------------------------- */

/* The value for the mover of each move of p (n moves into moves/val). */
static int values(const tb_t *tb, const position_t *p, move_t *moves, tb_value_t *val)
{
    int n = gen_moves(p, moves);
    for (int i = 0; i < n; i++) {
        position_t c = *p;
        position_make(&c, moves[i]);
        tb_value_t v;
        cr_assert(tb_probe(tb, &c, &v));
        val[i] = tb_value_after_move(v);
    }
    return n;
}

/* Checks puzzle z against the movement database exactly; returns the solver's moves. */
static int verify(const tb_t *tb, const puzzle_t *z)
{
    position_t p;
    char msg[128];
    cr_assert_eq(obx_parse(z->obx, &p, NULL, msg, sizeof msg), BC_OK, "puzzle %d: %s", z->id, msg);
    cr_assert_str_eq(z->phase, "movement");
    cr_assert_eq(p.in_hand, 0);
    cr_assert_str_eq(z->side, p.side == GOATS ? "goats" : "tigers");
    tb_value_t v;
    cr_assert(tb_probe(tb, &p, &v));
    cr_assert_neq(v.wdl, TB_LOSS, "puzzle %d is lost", z->id);
    cr_assert_str_eq(z->goal, v.wdl == TB_WIN ? "win" : "draw", "puzzle %d", z->id);
    cr_assert_eq(z->distance, v.wdl == TB_WIN ? v.distance : -1, "puzzle %d", z->id);
    cr_assert_geq(z->nline, 1);
    int solver = 0;
    for (int i = 0; i < z->nline; i++) {
        move_t moves[MAX_MOVES], m;
        tb_value_t val[MAX_MOVES];
        int n = values(tb, &p, moves, val);
        cr_assert_eq(move_parse(&p, z->line[i], &m, msg, sizeof msg), BC_OK, "puzzle %d move %d: %s", z->id, i + 1,
                     msg);
        if (i % 2 == 0) {
            int keep = 0, k = -1;
            for (int j = 0; j < n; j++)
                if (val[j].wdl == v.wdl)
                    keep++, k = j;
            cr_assert_geq(n, 2, "puzzle %d move %d: a forced move", z->id, i + 1);
            cr_assert_eq(keep, 1, "puzzle %d move %d: %d moves keep the value", z->id, i + 1, keep);
            cr_assert_eq(moves[k], m, "puzzle %d move %d (%s) is not the keeping move", z->id, i + 1, z->line[i]);
            solver++;
        } else {
            int best = -100000, mine = -100000;
            for (int j = 0; j < n; j++) {
                int o = tb_value_order(val[j]);
                best = o > best ? o : best;
                if (moves[j] == m)
                    mine = o;
            }
            cr_assert_eq(mine, best, "puzzle %d move %d (%s) is not a best reply", z->id, i + 1, z->line[i]);
        }
        position_make(&p, m);
    }
    cr_assert(z->score >= 0 && z->plausible >= 0);
    cr_assert_str_eq(z->level, z->score <= 3 ? "easy" : z->score <= 5 ? "medium" : "hard", "puzzle %d", z->id);
    return solver;
}

/* The symmetry class of a puzzle's position. */
static uint64_t class_of(const tb_t *tb, const puzzle_t *z)
{
    position_t p;
    cr_assert_eq(obx_parse(z->obx, &p, NULL, NULL, 0), BC_OK);
    uint64_t best = UINT64_MAX;
    for (int s = 0; s < TB_SYM_NB; s++) {
        uint64_t k = (uint64_t)tb_transform(tb_index(tb), s, p.tigers) << 25 | tb_transform(tb_index(tb), s, p.goats);
        best = k < best ? k : best;
    }
    return best * 64 + (uint64_t)p.side * 8 + p.captured;
}

static const tb_t *movement_db(void)
{
    static tb_t *tb;
    const char *dir = tree_database_dir();
    if (!dir)
        cr_skip_test("BAGHCHAL_TB_DIR is not set (tools/run-tests.sh sets it)");
    if (!tb) {
        char msg[256];
        cr_assert_eq(tb_open_game(dir, &tb, msg, sizeof msg), TB_OK, "%s", msg);
    }
    return tb;
}

/* ---- The movement database -------------------------------------------------------------- */

Test(puzzles, every_puzzle_exact_against_the_movement_database)
{
    const tb_t *tb = movement_db();
    const char *dir = make_dir(), *db = tree_database_dir();
    run_t r;
    run(&r, "%s %s --count 30 --seed 5 --out %s/a.json", PUZZLES, db, dir);
    cr_assert_eq(r.code, 0, "%s", last_line(&r));
    cr_assert_str_eq(last_line(&r) + strcspn(last_line(&r), ","),
                     ", 30 / 30 puzzles: movement easy 10 movement medium 10 movement hard 10 "
                     "(no placement file: movement-phase puzzles only)");
    run_free(&r);
    char path[256];
    snprintf(path, sizeof path, "%s/a.json", dir);
    char *text = tree_read_file(path, NULL);
    cr_assert(strstr(text, "\"goats\":20,\"captures\":5,\"command\":\"baghchal-puzzles DIR --count 30 --seed 5\""));
    static puzzle_t z[MAX_PUZZLES];
    int n = parse_puzzles(text, z, MAX_PUZZLES);
    cr_assert_eq(n, 30);
    int level[3] = {0}, longer = 0;
    uint64_t cls[30];
    for (int i = 0; i < n; i++) {
        cr_assert_eq(z[i].id, i + 1);
        longer += verify(tb, &z[i]) > 1;
        level[!strcmp(z[i].level, "medium") + 2 * !strcmp(z[i].level, "hard")]++;
        cls[i] = class_of(tb, &z[i]);
        for (int j = 0; j < i; j++)
            cr_assert_neq(cls[i], cls[j], "puzzles %d and %d are the same position up to symmetry", j + 1, i + 1);
        /* Easy first, then medium, then hard. */
        if (i)
            cr_assert_geq(strcmp(z[i].level, "easy") ? strcmp(z[i].level, "medium") ? 2 : 1 : 0,
                          strcmp(z[i - 1].level, "easy") ? strcmp(z[i - 1].level, "medium") ? 2 : 1 : 0);
    }
    cr_assert_eq(level[0], 10);
    cr_assert_eq(level[1], 10);
    cr_assert_eq(level[2], 10);
    cr_assert_gt(longer, 0, "no line with a second move to find");

    /* The same seed gives the same file; another seed another one. */
    run(&r, "%s %s --count 30 --seed 5 --out %s/b.json", PUZZLES, db, dir);
    cr_assert_eq(r.code, 0);
    run_free(&r);
    snprintf(path, sizeof path, "%s/b.json", dir);
    char *again = tree_read_file(path, NULL);
    cr_assert_str_eq(again, text);
    run(&r, "%s %s --count 30 --seed 6 --out %s/c.json", PUZZLES, db, dir);
    cr_assert_eq(r.code, 0);
    run_free(&r);
    snprintf(path, sizeof path, "%s/c.json", dir);
    char *other = tree_read_file(path, NULL);
    cr_assert_str_neq(other + strcspn(other, "\n"), text + strcspn(text, "\n"));

    /* The tool's own check agrees, and names a puzzle whose first move is not the keeping one. */
    run(&r, "%s --check %s/a.json %s", PUZZLES, dir, db);
    cr_assert_eq(r.code, 0, "%s", last_line(&r));
    cr_assert_eq(r.out.count, 1);
    cr_assert_str_eq(last_line(&r), "30 puzzles, 30 right, 0 wrong");
    run_free(&r);
    position_t p;
    cr_assert_eq(obx_parse(z[2].obx, &p, NULL, NULL, 0), BC_OK);
    move_t moves[MAX_MOVES], right;
    int nm = gen_moves(&p, moves);
    cr_assert_eq(move_parse(&p, z[2].line[0], &right, NULL, 0), BC_OK);
    char wrong[MOVE_TEXT_LEN], old[32], repl[32];
    move_format(moves[0] == right ? moves[nm - 1] : moves[0], wrong);
    snprintf(old, sizeof old, "\"line\":[\"%s\"", z[2].line[0]);
    snprintf(repl, sizeof repl, "\"line\":[\"%s\"", wrong);
    char *at = strstr(strstr(text, "{\"id\":3,"), old);
    cr_assert_not_null(at);
    size_t len = strlen(text) + 32;
    char *bad = malloc(len);
    cr_assert_not_null(bad);
    snprintf(bad, len, "%.*s%s%s", (int)(at - text), text, repl, at + strlen(old));
    snprintf(path, sizeof path, "%s/bad.json", dir);
    write_file(path, bad);
    run(&r, "%s --check %s %s", PUZZLES, path, db);
    cr_assert_eq(r.code, 1);
    char want[160];
    snprintf(want, sizeof want, "puzzle 3 fails: move 1 (%s) is not the move that keeps the %s", wrong, z[2].goal);
    cr_assert_eq(r.out.count, 2);
    cr_assert_str_eq(r.out.line[0], want);
    cr_assert_str_eq(r.out.line[1], "30 puzzles, 29 right, 1 wrong");
    run_free(&r);
    free(bad);
    free(other);
    free(again);
    free(text);
}

/* The shipped puzzles: every movement-phase one exact; the placement ones need the placement
 * file, which the tests do not have. */
Test(puzzles, shipped_movement_puzzles_exact)
{
    const tb_t *tb = movement_db();
    struct stat st;
    cr_assert_eq(stat(SHIPPED, &st), 0);
    cr_assert_lt(st.st_size, 100 * 1024, "the shipped file is %lld bytes", (long long)st.st_size);
    char *text = tree_read_file(SHIPPED, NULL);
    static puzzle_t z[MAX_PUZZLES];
    int n = parse_puzzles(text, z, MAX_PUZZLES), movement = 0, kinds[2][3] = {{0}}, goals[2] = {0};
    cr_assert_geq(n, 200);
    for (int i = 0; i < n; i++) {
        int ph = !strcmp(z[i].phase, "movement"), lv = !strcmp(z[i].level, "medium") + 2 * !strcmp(z[i].level, "hard");
        kinds[ph][lv]++;
        goals[!strcmp(z[i].goal, "win")]++;
        if (ph) {
            verify(tb, &z[i]);
            movement++;
        }
    }
    for (int ph = 0; ph < 2; ph++)
        for (int lv = 0; lv < 3; lv++)
            cr_assert_geq(kinds[ph][lv], 30, "phase %d level %d: %d puzzles", ph, lv, kinds[ph][lv]);
    cr_assert_gt(goals[0], 0);
    cr_assert_gt(goals[1], 0);
    cr_log_info("%d placement-phase puzzles not checked: they need baghchal-placement.tb "
                "(the full check: baghchal-puzzles --check web/puzzles.json DIR)",
                n - movement);
    run_t r;
    run(&r, "%s --check %s %s", PUZZLES, SHIPPED, tree_database_dir());
    char want[160];
    snprintf(want, sizeof want, "%d puzzles, %d right, 0 wrong, %d placement-phase puzzles not checked (no placement file)",
             n, movement, n - movement);
    cr_assert_eq(r.code, 0, "%s", last_line(&r));
    cr_assert_str_eq(last_line(&r), want);
    run_free(&r);
    free(text);
}

/* ---- The small game ---------------------------------------------------------------------- */

/* The small game (2 goats, 2 captures win) in a folder: the one ctest builds once
 * (BAGHCHAL_TB_SMALL), else built here. */
static const char *small_game(void)
{
    const char *built = getenv("BAGHCHAL_TB_SMALL");
    if (built && *built)
        return built;
    const char *dir = make_dir();
    run_t r;
    run(&r, "%s %s --goats 2 --captures-to-win 2 --placement --threads 2", TBGEN, dir);
    cr_assert_eq(r.code, 0, "%s", last_line(&r));
    run_free(&r);
    return dir;
}

/* In the small game the tigers win every position, and every winning position of theirs has
 * two winning moves or more: no puzzle exists, and the tool writes none. */
Test(puzzles, small_game_has_none)
{
    const char *dir = small_game();
    tb_t *tb;
    char msg[256];
    cr_assert_eq(tb_open(dir, &tb, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert(tb_has_placement(tb));
    uint64_t wins = 0, many = 0;
    move_t moves[MAX_MOVES];
    tb_value_t val[MAX_MOVES];
    for (int c = 0; c < tb_slice_count(tb); c++)
        for (uint64_t i = 0; i < tb_slice_entries(tb, c); i++) {
            position_t p;
            tb_value_t v;
            if (!tb_entry(tb, c, TIGERS, i, &p, &v))
                continue;
            p.side = TIGERS;
            p.key = position_compute_key(&p);
            cr_assert_eq(v.wdl, TB_WIN);
            wins++;
            int n = values(tb, &p, moves, val), keep = 0;
            for (int j = 0; j < n; j++)
                keep += val[j].wdl == TB_WIN;
            many += keep >= 2;
        }
    cr_assert_gt(wins, 0);
    cr_assert_eq(many, wins);
    tb_close(tb);

    const char *out = current_dir[0] ? current_dir : make_dir();
    run_t r;
    run(&r, "%s %s --count 12 --games 200 --out %s/small.json", PUZZLES, dir, out);
    cr_assert_eq(r.code, 0, "%s", last_line(&r));
    cr_assert_str_eq(last_line(&r), "200 games, 0 / 12 puzzles: placement easy 0 placement medium 0 placement hard 0 "
                                    "movement easy 0 movement medium 0 movement hard 0");
    cr_assert_eq(r.out.count, 3, "progress every 100 games, then the summary");
    cr_assert_str_eq(r.out.line[0], "100 games, 0 / 12 puzzles");
    run_free(&r);
    char path[256];
    snprintf(path, sizeof path, "%s/small.json", out);
    char *text = tree_read_file(path, NULL);
    cr_assert_str_eq(text, "{\"format\":\"baghchal-puzzles 1\",\"rule\":\"draw\",\"goats\":2,\"captures\":2,"
                           "\"command\":\"baghchal-puzzles DIR --count 12 --games 200\",\n\"puzzles\":[\n]}\n");
    free(text);

    /* A position of the small game where the tigers have several winning moves, given as a
     * puzzle: refused by the check, which counts them. */
    position_t p;
    cr_assert_eq(obx_parse("TGXXT/GXXXX/XXXXX/XXXXX/TXXXT t @18 c0", &p, NULL, NULL, 0), BC_OK);
    p.in_hand = 0;
    cr_assert_eq(tb_open(dir, &tb, msg, sizeof msg), TB_OK);
    int n = values(tb, &p, moves, val), keep = 0, k = 0;
    for (int j = 0; j < n; j++)
        if (val[j].wdl == TB_WIN)
            keep++, k = j;
    tb_value_t v;
    cr_assert(tb_probe(tb, &p, &v));
    cr_assert_eq(v.wdl, TB_WIN);
    tb_close(tb);
    cr_assert_gt(keep, 1);
    char mv[MOVE_TEXT_LEN], file[1024], want[128];
    move_format(moves[k], mv);
    snprintf(file, sizeof file,
             "{\"format\":\"baghchal-puzzles 1\",\"rule\":\"draw\",\"goats\":2,\"captures\":2,\"puzzles\":[\n"
             "{\"id\":7,\"level\":\"easy\",\"score\":0,\"phase\":\"movement\",\"side\":\"tigers\",\"goal\":\"win\","
             "\"distance\":%d,\"plausible\":0,\"obx\":\"TGXXT/GXXXX/XXXXX/XXXXX/TXXXT t @0 c0 - #\","
             "\"line\":[\"%s\"]}\n]}\n", v.distance, mv);
    snprintf(path, sizeof path, "%s/many.json", out);
    write_file(path, file);
    run(&r, "%s --check %s %s", PUZZLES, path, dir);
    cr_assert_eq(r.code, 1, "%s", last_line(&r));
    cr_assert_eq(r.out.count, 2);
    snprintf(want, sizeof want, "puzzle 7 fails: move 1 (%s): %d moves keep the win, not exactly one", mv, keep);
    cr_assert_str_eq(r.out.line[0], want);
    cr_assert_str_eq(r.out.line[1], "1 puzzles, 0 right, 1 wrong");
    run_free(&r);

    /* A file for another game is refused as a whole. */
    run(&r, "%s --check %s %s", PUZZLES, SHIPPED, dir);
    cr_assert_eq(r.code, 1);
    cr_assert_eq(r.out.count, 1);
    cr_assert(strstr(r.out.line[0], "is for a game of 20 goats, the database for 2"), "%s", r.out.line[0]);
    run_free(&r);
}

/* --check names what is wrong with a file as a whole: a rule other than the draw rule's, a
 * puzzle given twice (the same id, or the same position under another id), no puzzle at all,
 * a NUL byte, an id that is not a puzzle's, a puzzle not closed. Each is refused with status
 * 1 and its reason, in one line. */
static void expect_check(const char *dir, const char *out, const char *name, const char *text, size_t len,
                         const char *want)
{
    char path[256], full[512];
    snprintf(path, sizeof path, "%s/%s", out, name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(text, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
    run_t r;
    run(&r, "%s --check %s %s", PUZZLES, path, dir);
    snprintf(full, sizeof full, "baghchal-puzzles: %s%s", path, want);
    cr_assert_eq(r.code, 1, "%s: %s", name, last_line(&r));
    cr_assert_eq(r.out.count, 1, "%s: %zu lines, the last %s", name, r.out.count, last_line(&r));
    cr_assert_str_eq(r.out.line[0], full, "%s", name);
    run_free(&r);
}

Test(puzzles, check_names_what_is_wrong_with_a_file)
{
    const char *dir = small_game();
    const char *out = current_dir[0] ? current_dir : make_dir();
    static const char HEAD[] = "{\"format\":\"baghchal-puzzles 1\",\"rule\":\"%s\",\"goats\":2,\"captures\":2,"
                               "\"puzzles\":[\n%s]}\n";
    static const char P7[] = "{\"id\":7,\"level\":\"easy\",\"score\":0,\"phase\":\"movement\",\"side\":\"tigers\","
                             "\"goal\":\"win\",\"distance\":1,\"plausible\":0,"
                             "\"obx\":\"TGXXT/GXXXX/XXXXX/XXXXX/TXXXT t @0 c0 - #\",\"line\":[\"A1B1\"]}";
    static const char P8[] = "{\"id\":8,\"level\":\"easy\",\"score\":0,\"phase\":\"movement\",\"side\":\"tigers\","
                             "\"goal\":\"win\",\"distance\":1,\"plausible\":0,"
                             "\"obx\":\"TGXXT/GXXXX/XXXXX/XXXXX/TXXXT t @0 c0 - #\",\"line\":[\"A1B1\"]}";
    static const char P7B[] = "{\"id\":7,\"level\":\"easy\",\"score\":0,\"phase\":\"movement\",\"side\":\"tigers\","
                              "\"goal\":\"win\",\"distance\":1,\"plausible\":0,"
                              "\"obx\":\"TXGXT/GXXXX/XXXXX/XXXXX/TXXXT t @0 c0 - #\",\"line\":[\"A1B1\"]}";
    char text[4096], list[2048];

    snprintf(text, sizeof text, HEAD, "forbid", P7);
    expect_check(dir, out, "forbid.json", text, strlen(text),
                 ": the puzzles are draw-rule puzzles, and the file's \"rule\" is not \"draw\"");

    snprintf(list, sizeof list, "%s,\n%s\n", P7, P7B);
    snprintf(text, sizeof text, HEAD, "draw", list);
    expect_check(dir, out, "same-id.json", text, strlen(text), ": the id 7 is given to two puzzles");

    snprintf(list, sizeof list, "%s,\n%s\n", P8, P7);
    snprintf(text, sizeof text, HEAD, "draw", list);
    expect_check(dir, out, "same-position.json", text, strlen(text),
                 ": puzzles 7 and 8 are the same position (TGXXT/GXXXX/XXXXX/XXXXX/TXXXT t @0 c0 - #)");

    snprintf(text, sizeof text, HEAD, "draw", "");
    expect_check(dir, out, "empty.json", text, strlen(text), " holds no puzzles");

    snprintf(text, sizeof text, HEAD, "draw", P7);
    size_t len = strlen(text);
    char *id = strstr(text, "\"id\":7");
    cr_assert_not_null(id);
    id[5] = '\0'; /* the id's digit */
    char want[128];
    snprintf(want, sizeof want, " holds a NUL byte at offset %zu: not a puzzle file", (size_t)(id + 5 - text));
    expect_check(dir, out, "nul.json", text, len, want);

    snprintf(list, sizeof list, "%s\n", P7);
    char *seven = strstr(list, "\"id\":7") + 5;
    char big[2048];
    snprintf(big, sizeof big, "%.*s12345678901234567890%s", (int)(seven - list), list, seven + 1);
    snprintf(text, sizeof text, HEAD, "draw", big);
    snprintf(want, sizeof want, ": the puzzle at offset %zu has an id that is not a whole number from 1 to 999999",
             (size_t)(strstr(text, "{\"id\":") - text));
    expect_check(dir, out, "big-id.json", text, strlen(text), want);

    snprintf(text, sizeof text, "{\"format\":\"baghchal-puzzles 1\",\"rule\":\"draw\",\"goats\":2,\"captures\":2,"
                                "\"puzzles\":[\n{\"id\":7,\"level\":\"easy\"");
    snprintf(want, sizeof want, ": the puzzle at offset %zu is not closed (no '}')",
             (size_t)(strstr(text, "{\"id\":") - text));
    expect_check(dir, out, "open.json", text, strlen(text), want);
}

/* ---- Bad arguments ------------------------------------------------------------------------ */

static void expect(int code, const char *want, const char *args)
{
    run_t r;
    run(&r, "%s %s", PUZZLES, args);
    cr_assert_eq(r.code, code, "%s: %s", args, last_line(&r));
    cr_assert_eq(r.out.count, 1, "%s: %zu lines", args, r.out.count);
    cr_assert_str_eq(r.out.line[0], want, "%s", args);
    run_free(&r);
}

Test(puzzles, bad_arguments_and_missing_files)
{
    expect(2, "baghchal-puzzles: no database folder named (see --help)", "");
    expect(2, "baghchal-puzzles: --count must be a number from 1 to 100000, not '0'", "/tmp --count 0");
    expect(2, "baghchal-puzzles: --best must be a number from 0 to 100, not '101'", "/tmp --best 101");
    expect(2, "baghchal-puzzles: --seed needs a value", "/tmp --seed");
    /* Beyond 64 bits, strtoll's saturated value must not pass for a number in range. */
    expect(2, "baghchal-puzzles: --seed must be a number from 0 to 9223372036854775807, not '99999999999999999999'",
           "/tmp --seed 99999999999999999999");
    expect(2, "baghchal-puzzles: --seed must be a number from 0 to 9223372036854775807, not '-1'", "/tmp --seed -1");
    expect(2, "baghchal-puzzles: --count must be a number from 1 to 100000, not '+5'", "/tmp --count +5");
    expect(2, "baghchal-puzzles: --check needs a file", "/tmp --check");
    expect(2, "baghchal-puzzles: unknown option '--fast'", "/tmp --fast");
    expect(2, "baghchal-puzzles: one database folder only ('/a' and '/b')", "/a /b");
    expect(1, "baghchal-puzzles: cannot open /nonexistent-puzzles/baghchal.tb: No such file or directory",
           "/nonexistent-puzzles");
    const char *db = tree_database_dir();
    if (db) {
        char args[512], want[512];
        snprintf(args, sizeof args, "--check /nonexistent.json %s", db);
        expect(1, "baghchal-puzzles: cannot read /nonexistent.json", args);
        snprintf(args, sizeof args, "--check %s %s", BAGHCHAL_TEST_DATA "/../CMakeLists.txt", db);
        snprintf(want, sizeof want,
                 "baghchal-puzzles: %s is not a puzzle file (no \"format\":\"baghchal-puzzles 1\")",
                 BAGHCHAL_TEST_DATA "/../CMakeLists.txt");
        expect(1, want, args);
        snprintf(args, sizeof args, "%s --out /nonexistent-dir/x.json --count 3", db);
        expect(1, "baghchal-puzzles: cannot write /nonexistent-dir/x.json", args);
    }
}
