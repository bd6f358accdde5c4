/* The databases found without asking: the standard folder (tb_default_dir) as the engine's
 * TablebasePath default, loaded at the first isready (or go, tbprobe) and named there, or
 * reported missing; $XDG_DATA_HOME and $BAGHCHAL_TABLEBASE_PATH; a setoption before it wins;
 * baghchal-tbgen and baghchal-tbverify without a folder; the server and the referee using the
 * same folder. Every program runs with its own HOME (a temporary folder), so the tester's
 * own databases never count.
 *
 * The real movement database: $BAGHCHAL_TB_DIR when it holds one (tools/run-tests.sh builds
 * it), else built here. With the whole solution there (baghchal-placement.tb beside it) the
 * start is checked to be a draw; without it, to be out of the database's reach. */
#include <criterion/criterion.h>

#include <errno.h>
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

#define ENGINE BAGHCHAL_BIN_DIR "/baghchal"
#define TBGEN BAGHCHAL_BIN_DIR "/baghchal-tbgen"
#define TBVERIFY BAGHCHAL_BIN_DIR "/baghchal-tbverify"
#define SERVER BAGHCHAL_BIN_DIR "/baghchal-server"
#define REFEREE BAGHCHAL_BIN_DIR "/baghchal-referee"

/* Generous: sanitizer builds on a loaded two-core machine are slow. */
enum { REPLY_MS = 60000, TOOL_MS = 300000 };

static char home[128];

static void cleanup(void)
{
    if (home[0])
        tree_remove(home);
}

TestSuite(tbdefault, .fini = cleanup, .timeout = 600);

/* A fresh HOME for the programs under test. */
static void make_home(void)
{
    snprintf(home, sizeof home, "/tmp/test_tbdefault.XXXXXX");
    cr_assert_not_null(mkdtemp(home));
}

static void path_in_home(char *out, size_t len, const char *rel)
{
    int n = snprintf(out, len, "%s/%s", home, rel);
    cr_assert(n > 0 && (size_t)n < len);
}

static void make_dirs(const char *rel)
{
    char path[256], *p;
    path_in_home(path, sizeof path, rel);
    for (p = path + strlen(home) + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
        *p = c;
        if (!c)
            break;
    }
}

/* ---- The real movement database ------------------------------------------------------ */

static char db_dir[256];

static bool valid_database(const char *dir)
{
    tb_t *tb;
    char msg[256];
    if (tb_open_game(dir, &tb, msg, sizeof msg) != TB_OK)
        return false;
    tb_close(tb);
    return true;
}

/* Runs argv to its end; returns its exit status and (when out is not NULL) its output lines
 * (standard error merged when the command is a shell line). */
static int run_argv(char *const argv[], pipe_lines_t *out)
{
    pipe_proc_t *p = pipe_start(argv, 0);
    cr_assert_not_null(p, "cannot start %s: %s", argv[0], strerror(errno));
    pipe_close_stdin(p);
    char *line;
    pipe_status_t s = pipe_read_until(p, "\x01never", TOOL_MS, out, &line);
    cr_assert_eq(s, PIPE_EOF, "%s: %s before the end of its output", argv[0], pipe_status_name(s));
    pipe_exit_t x = pipe_wait(p, TOOL_MS);
    pipe_free(p);
    cr_assert(x.exited, "%s ended by signal %d", argv[0], x.signal);
    return x.code;
}

/* A shell line (stderr joined to stdout) run with HOME set to the test's home and neither
 * XDG_DATA_HOME nor BAGHCHAL_TABLEBASE_PATH unless the line sets them. */
static int run_shell(pipe_lines_t *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run_shell(pipe_lines_t *out, const char *fmt, ...)
{
    char cmd[2048], full[2300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(full, sizeof full, "unset XDG_DATA_HOME %s; export HOME='%s'; exec %s 2>&1", TB_PATH_ENV, home, cmd);
    char *argv[] = {"/bin/sh", "-c", full, NULL};
    return run_argv(argv, out);
}

/* The database directory (BAGHCHAL_TB_DIR or one built in the test's home). */
static const char *need_database(void)
{
    const char *env = getenv("BAGHCHAL_TB_DIR");
    if (env && *env && valid_database(env)) {
        snprintf(db_dir, sizeof db_dir, "%s", env);
        return db_dir;
    }
    path_in_home(db_dir, sizeof db_dir, "built");
    cr_assert_eq(run_shell(NULL, "%s %s", TBGEN, db_dir), 0, "building the movement database");
    cr_assert(valid_database(db_dir));
    return db_dir;
}

static bool has_placement(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, TBP_FILE_NAME);
    return access(path, R_OK) == 0;
}

/* Links the database's files into rel (a folder below the home). */
static void link_database(const char *rel)
{
    const char *db = need_database();
    make_dirs(rel);
    const char *names[2] = {TB_FILE_NAME, TBP_FILE_NAME};
    for (int i = 0; i < 2; i++) {
        char from[512], to[512];
        snprintf(from, sizeof from, "%s/%s", db, names[i]);
        snprintf(to, sizeof to, "%s/%s/%s", home, rel, names[i]);
        if (i == 0 || access(from, R_OK) == 0)
            cr_assert_eq(symlink(from, to), 0, "%s -> %s: %s", to, from, strerror(errno));
    }
}

/* ---- The engine, started with an environment of the test's making --------------------- */

static pipe_proc_t *eng;

/* env: "NAME=value" words for /usr/bin/env after HOME (NULL-terminated list). */
static void start_engine_env(const char *const *env)
{
    static char home_var[200];
    snprintf(home_var, sizeof home_var, "HOME=%s", home);
    char *argv[16];
    int n = 0;
    argv[n++] = "/usr/bin/env";
    argv[n++] = "-u", argv[n++] = "XDG_DATA_HOME";
    argv[n++] = "-u", argv[n++] = (char *)TB_PATH_ENV;
    argv[n++] = home_var;
    for (int i = 0; env && env[i]; i++)
        argv[n++] = (char *)env[i];
    argv[n++] = (char *)ENGINE;
    argv[n] = NULL;
    eng = pipe_start(argv, 0);
    cr_assert_not_null(eng, "cannot start the engine: %s", strerror(errno));
}

static void end_engine(void)
{
    pipe_send(eng, "quit");
    pipe_exit_t x = pipe_wait(eng, REPLY_MS);
    cr_assert(x.exited && x.code == 0, "the engine ended with status %d, signal %d", x.code, x.signal);
    pipe_free(eng);
    eng = NULL;
}

/* Sends cmd, then isready; returns every line before readyok. */
static void exchange(pipe_lines_t *out, const char *cmd)
{
    if (cmd)
        cr_assert_eq(pipe_send(eng, "%s", cmd), 0);
    cr_assert_eq(pipe_send(eng, "isready"), 0);
    char *line;
    pipe_status_t s = pipe_read_until(eng, "readyok", REPLY_MS, out, &line);
    cr_assert_eq(s, PIPE_LINE, "no readyok after '%s': %s", cmd ? cmd : "", pipe_status_name(s));
    cr_assert_str_eq(line, "readyok");
}

/* cmd prints the lines want (NULL-terminated): exactly those, or with more after them. */
static void expect_start(const char *cmd, const char *const *want, bool more)
{
    pipe_lines_t out = {0};
    exchange(&out, cmd);
    size_t n = 0;
    while (want[n])
        n++;
    for (size_t i = 0; i < out.count && i < n; i++)
        cr_assert_str_eq(out.line[i], want[i], "'%s': line %zu", cmd ? cmd : "isready", i + 1);
    if (more)
        cr_assert_gt(out.count, n, "'%s' printed %zu lines, expected more than %zu", cmd, out.count, n);
    else
        cr_assert_eq(out.count, n, "'%s' printed %zu lines, expected %zu (first: '%s')", cmd ? cmd : "isready",
                     out.count, n, out.count ? out.line[0] : "");
    pipe_lines_free(&out);
}

static void expect_lines(const char *cmd, const char *const *want) { expect_start(cmd, want, false); }

static const char NO_TB[] = "info string error: no tablebase loaded (setoption name TablebasePath value <dir>)";
static const char DECIDED[] = "position obx GGGGX/GTGTG/XGXGX/GTGTG/XGGGG t @0 c4";

static void loaded_line(char *buf, size_t len, const char *dir)
{
    if (has_placement(dir))
        snprintf(buf, len, "info string tablebase loaded from %s: %s and %s", dir, TB_FILE_NAME, TBP_FILE_NAME);
    else
        snprintf(buf, len, "info string tablebase loaded from %s: %s (no %s: the placement phase is searched)", dir,
                 TB_FILE_NAME, TBP_FILE_NAME);
}

/* The value of the decided position, and of the start (a draw with the whole solution). */
static void expect_database_values(void)
{
    pipe_lines_t out = {0};
    exchange(&out, DECIDED);
    cr_assert_eq(out.count, 0);
    exchange(&out, "tbprobe");
    cr_assert_geq(out.count, 1);
    cr_assert_str_eq(out.line[0], "Value: win in 3");
    pipe_lines_free(&out);
    exchange(&out, "position startpos");
    exchange(&out, "tbprobe");
    cr_assert_geq(out.count, 1);
    if (has_placement(db_dir)) {
        /* Under the default rule (forbid) a draw-rule draw is open; under the draw rule the
         * start is a draw, and every first placement keeps it. */
        static const char *const rule[2][2] = {{"Value: open", ": open"}, {"Value: draw", ": draw"}};
        for (int r = 0; r < 2; r++) {
            if (r) {
                pipe_lines_free(&out);
                exchange(&out, "setoption name Repetition value draw");
                cr_assert_eq(out.count, 0);
                exchange(&out, "tbprobe");
            }
            cr_assert_str_eq(out.line[0], rule[r][0], "the whole solution: the start");
            cr_assert_eq(out.count, 2 + 21, "the value, the move count and the 21 first placements");
            for (size_t i = 2; i < out.count; i++)
                cr_assert(strstr(out.line[i], rule[r][1]), "every first placement: '%s'", out.line[i]);
        }
        pipe_lines_free(&out);
        exchange(&out, "setoption name Repetition value forbid");
    } else {
        cr_log_info("no %s beside %s: the start is checked to be out of reach only", TBP_FILE_NAME, db_dir);
        cr_assert_str_eq(out.line[0], "Value: not covered (goats in hand)");
    }
    pipe_lines_free(&out);
}

/* ---- The engine ------------------------------------------------------------------------- */

Test(tbdefault, the_standard_folder_is_loaded_without_setoption)
{
    make_home();
    link_database(".local/share/baghchal");
    char dir[256], opt[400], loaded[600];
    path_in_home(dir, sizeof dir, ".local/share/baghchal");
    start_engine_env(NULL);
    /* uci names the folder as the option's default and loads nothing yet. */
    cr_assert_eq(pipe_send(eng, "uci"), 0);
    pipe_lines_t out = {0};
    char *line;
    cr_assert_eq(pipe_read_until(eng, "uciok", REPLY_MS, &out, &line), PIPE_LINE);
    snprintf(opt, sizeof opt, "option name TablebasePath type string default %s", dir);
    bool listed = false;
    for (size_t i = 0; i < out.count; i++)
        listed |= strcmp(out.line[i], opt) == 0;
    cr_assert(listed, "no line '%s'", opt);
    pipe_lines_free(&out);
    /* The first isready loads it and says which files; the next says nothing. */
    loaded_line(loaded, sizeof loaded, dir);
    expect_lines(NULL, (const char *const[]){loaded, NULL});
    expect_lines(NULL, (const char *const[]){NULL});
    expect_database_values();
    end_engine();
}

Test(tbdefault, tbprobe_loads_it_when_no_isready_came_first)
{
    make_home();
    link_database(".local/share/baghchal");
    char dir[256], loaded[600];
    path_in_home(dir, sizeof dir, ".local/share/baghchal");
    loaded_line(loaded, sizeof loaded, dir);
    start_engine_env(NULL);
    cr_assert_eq(pipe_send(eng, "%s", DECIDED), 0);
    expect_start("tbprobe", (const char *const[]){loaded, "Value: win in 3", "Moves (10):", NULL}, true);
    end_engine();
}

Test(tbdefault, an_empty_home_has_no_database)
{
    make_home();
    char dir[256], none[400];
    path_in_home(dir, sizeof dir, ".local/share/baghchal");
    snprintf(none, sizeof none, "info string no tablebase in %s (baghchal-tbgen builds it there)", dir);
    start_engine_env(NULL);
    expect_lines("tbprobe", (const char *const[]){none, NO_TB, NULL});
    expect_lines("tbprobe", (const char *const[]){NO_TB, NULL});
    end_engine();
}

Test(tbdefault, xdg_data_home_and_the_variable_choose_the_folder)
{
    make_home();
    link_database("xdg/baghchal");
    char xdg[256], dir[256], var[300], loaded[600];
    path_in_home(xdg, sizeof xdg, "xdg");
    path_in_home(dir, sizeof dir, "xdg/baghchal");
    snprintf(var, sizeof var, "XDG_DATA_HOME=%s", xdg);
    loaded_line(loaded, sizeof loaded, dir);
    start_engine_env((const char *const[]){var, NULL});
    expect_lines(NULL, (const char *const[]){loaded, NULL});
    end_engine();
    /* The variable names the folder itself, whatever the home holds. */
    snprintf(var, sizeof var, "%s=%s", TB_PATH_ENV, db_dir);
    loaded_line(loaded, sizeof loaded, db_dir);
    start_engine_env((const char *const[]){var, NULL});
    expect_lines(NULL, (const char *const[]){loaded, NULL});
    expect_database_values();
    end_engine();
    /* "<empty>" (or nothing) turns the standard folder off: nothing is loaded or said. */
    link_database(".local/share/baghchal");
    static const char *const off[] = {TB_PATH_ENV "=<empty>", TB_PATH_ENV "="};
    for (int i = 0; i < 2; i++) {
        start_engine_env((const char *const[]){off[i], NULL});
        expect_lines(NULL, (const char *const[]){NULL});
        expect_lines("tbprobe", (const char *const[]){NO_TB, NULL});
        end_engine();
    }
}

Test(tbdefault, a_setoption_before_the_first_isready_replaces_the_default)
{
    make_home();
    link_database(".local/share/baghchal");
    start_engine_env(NULL);
    expect_lines("setoption name TablebasePath value <empty>", (const char *const[]){NULL});
    expect_lines("tbprobe", (const char *const[]){NO_TB, NULL});
    end_engine();
    /* Named elsewhere: that folder, announced as setoption does. */
    char want[400];
    snprintf(want, sizeof want, "info string tablebase loaded from %s", need_database());
    start_engine_env(NULL);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "setoption name TablebasePath value %s", db_dir);
    expect_lines(cmd, (const char *const[]){want, NULL});
    cr_assert_eq(pipe_send(eng, "%s", DECIDED), 0);
    expect_start("tbprobe", (const char *const[]){"Value: win in 3", "Moves (10):", NULL}, true);
    end_engine();
}

/* ---- The tools ---------------------------------------------------------------------------- */

Test(tbdefault, tbgen_without_a_folder_builds_both_files_in_the_standard_folder)
{
    make_home();
    pipe_lines_t out = {0};
    cr_assert_eq(run_shell(&out, "%s --goats 2 --captures-to-win 2 --threads 2", TBGEN), 0);
    char dir[256], want[400];
    path_in_home(dir, sizeof dir, ".local/share/baghchal");
    snprintf(want, sizeof want, "baghchal, baghchal-server and baghchal-referee find the databases in %s", dir);
    bool said = false, layer = false;
    for (size_t i = 0; i < out.count; i++) {
        said |= strcmp(out.line[i], want) == 0;
        layer |= strncmp(out.line[i], "layer tigers h= 1 c=0: 34,986 entries built in ", 47) == 0;
    }
    cr_assert(said, "no line '%s'", want);
    cr_assert(layer, "the placement layers are built with their progress lines");
    pipe_lines_free(&out);
    tb_t *tb;
    char msg[256];
    cr_assert_eq(tb_open(dir, &tb, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert(tb_has_placement(tb), "both files");
    cr_assert_eq(tb_goats_total(tb), 2);
    tb_close(tb);
    /* The verifier finds them there too. */
    cr_assert_eq(run_shell(&out, "%s --all", TBVERIFY), 0);
    bool checked = false;
    for (size_t i = 0; i < out.count; i++)
        checked |= strstr(out.line[i], "checked 74970 placement entries against every child") != NULL;
    cr_assert(checked, "every placement entry of the small game checked");
    pipe_lines_free(&out);
    /* Turned off, the tools need a folder. */
    cr_assert_eq(run_shell(&out, "env %s= %s", TB_PATH_ENV, TBVERIFY), 2);
    cr_assert_eq(out.count, 1);
    cr_assert_str_eq(out.line[0], "baghchal-tbverify: no directory given, and " TB_PATH_ENV
                                  " turns the standard folder off (see --help)");
    pipe_lines_free(&out);
}

Test(tbdefault, the_server_uses_the_standard_folder)
{
    if (access(SERVER, X_OK) != 0)
        cr_skip_test("baghchal-server is not built (needs libmicrohttpd and cJSON)");
    make_home();
    link_database(".local/share/baghchal");
    char dir[256], want[400], cmd[600];
    path_in_home(dir, sizeof dir, ".local/share/baghchal");
    snprintf(want, sizeof want, "baghchal-server: database %s loaded", dir);
    /* The server runs until it is stopped: it is started, read, and killed. */
    snprintf(cmd, sizeof cmd, "unset XDG_DATA_HOME %s; export HOME='%s'; exec %s --port 0 --workers 1", TB_PATH_ENV,
             home, SERVER);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    pipe_proc_t *p = pipe_start(argv, 0);
    cr_assert_not_null(p);
    char *line;
    cr_assert_eq(pipe_read_until(p, "baghchal-server: database", REPLY_MS, NULL, &line), PIPE_LINE);
    cr_assert_str_eq(line, want);
    pipe_free(p);
    /* '<empty>' runs without. */
    snprintf(cmd, sizeof cmd, "unset XDG_DATA_HOME %s; export HOME='%s'; exec %s --port 0 --workers 1 --tablebase '<empty>'",
             TB_PATH_ENV, home, SERVER);
    p = pipe_start(argv, 0);
    cr_assert_not_null(p);
    cr_assert_eq(pipe_read_until(p, "baghchal-server ", REPLY_MS, NULL, &line), PIPE_LINE);
    cr_assert(strstr(line, " listening on "), "%s", line);
    cr_assert_eq(pipe_read_line(p, 500, &line), PIPE_TIMEOUT, "no database line: '%s'", line ? line : "");
    pipe_free(p);
}

/* Counts a JSON object's integer member "key" inside the object named section. */
static long json_count(const char *json, const char *section, const char *key)
{
    const char *s = strstr(json, section);
    cr_assert_not_null(s, "no %s in %s", section, json);
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *v = strstr(s, k);
    cr_assert_not_null(v, "no %s in %s", key, s);
    return strtol(v + strlen(k), NULL, 10);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    char *buf = calloc(1, 1 << 16);
    cr_assert_not_null(buf);
    fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    return buf;
}

Test(tbdefault, the_referee_adjudicates_with_the_standard_folder_under_the_draw_rule)
{
    make_home();
    link_database(".local/share/baghchal");
    char openings[256], json[256];
    path_in_home(openings, sizeof openings, "decided.obx");
    path_in_home(json, sizeof json, "summary.json");
    FILE *f = fopen(openings, "w");
    cr_assert_not_null(f);
    fputs("GGGGX/GTGTG/XGXGX/GTGTG/XGGGG t @0 c4\n", f);
    fclose(f);
    for (int off = 0; off < 2; off++) {
        cr_assert_eq(run_shell(NULL,
                               "%s -engine cmd=%s name=a -engine cmd=%s name=b -each depth=1 option.Hash=1 "
                               "-repetition draw -maxmoves 40 -openings file=%s -rounds 1 -progress 0 -json %s%s",
                               REFEREE, ENGINE, ENGINE, openings, json, off ? " -tb '<empty>'" : ""),
                     0);
        char *text = slurp(json);
        long adjudicated = json_count(text, "\"terminations\"", "database");
        if (off)
            cr_assert_eq(adjudicated, 0, "-tb '<empty>': no adjudication\n%s", text);
        else
            cr_assert_eq(adjudicated, 2, "both games of the decided opening end by the database\n%s", text);
        free(text);
    }
}
