/* The baghchal executable over pipes: the handshake, positions, errors, perft, options,
 * line-end tolerance and how it ends, checked against what libbaghchal computes. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baghchal.h"
#include "pipe.h"
#include "tree.h"

#define ENGINE BAGHCHAL_BIN_DIR "/baghchal"

/* Generous bounds: sanitizer builds on a shared two-core machine are slow to start. */
enum { REPLY_MS = 5000, EXIT_MS = 5000, PROMPT_EXIT_MS = 2000, QUIET_MS = 300 };

static pipe_proc_t *eng;

/* The folder a test made for XDG_DATA_HOME ("" when none): removed after the test, also
 * when it fails. */
static char data_top[64];
static void remove_data_home(void);

static void teardown(void)
{
    pipe_free(eng);
    eng = NULL;
    remove_data_home();
}

TestSuite(protocol, .fini = teardown, .timeout = 300);

static void start_engine(void)
{
    char *argv[] = {(char *)ENGINE, NULL};
    eng = pipe_start(argv, 0);
    cr_assert_not_null(eng, "cannot start %s: %s", ENGINE, strerror(errno));
}

static void send_line(const char *line)
{
    cr_assert_eq(pipe_send(eng, "%s", line), 0, "sending '%.60s': %s", line, strerror(errno));
}

static void send_raw(const char *bytes)
{
    cr_assert_eq(pipe_write(eng, bytes, strlen(bytes)), 0, "writing '%.60s': %s", bytes, strerror(errno));
}

/* Waits for `readyok` after what was sent, collecting every line printed before it. */
static void sync_collect(pipe_lines_t *out)
{
    char *line;
    send_line("isready");
    pipe_status_t s = pipe_read_until(eng, "readyok", REPLY_MS, out, &line);
    cr_assert_eq(s, PIPE_LINE, "no readyok after the command: %s", pipe_status_name(s));
    cr_assert_str_eq(line, "readyok");
}

/* Sends one command line and returns (in out) every line it printed. */
static void exchange(pipe_lines_t *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void exchange(pipe_lines_t *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *cmd = malloc((size_t)n + 1);
    cr_assert_not_null(cmd);
    va_start(ap, fmt);
    vsnprintf(cmd, (size_t)n + 1, fmt, ap);
    va_end(ap);
    send_line(cmd);
    free(cmd);
    sync_collect(out);
}

static void expect_silent(const char *cmd)
{
    pipe_lines_t out = {0};
    exchange(&out, "%s", cmd);
    cr_assert_eq(out.count, 0, "'%.60s' printed %zu line(s), first: '%s'", cmd, out.count,
                 out.count ? out.line[0] : "");
    pipe_lines_free(&out);
}

/* The command must print exactly one line, an error; returns a copy of it. */
static char *expect_one_error(const char *cmd)
{
    pipe_lines_t out = {0};
    exchange(&out, "%s", cmd);
    cr_assert_eq(out.count, 1, "'%.60s' printed %zu lines, expected one error line", cmd, out.count);
    cr_assert(strncmp(out.line[0], "info string error: ", 19) == 0, "'%.60s' printed '%s'", cmd, out.line[0]);
    char *copy = strdup(out.line[0]);
    pipe_lines_free(&out);
    return copy;
}

/* ---- what `d` shows ---- */

typedef struct {
    char obx[128];
    char side[16];
    int legal_count;
    char legal[512]; /* the moves after "Legal moves (N):" */
    char result[128]; /* "" when there is no Result line */
} view_t;

static const char *after_prefix(const pipe_lines_t *l, const char *prefix)
{
    const char *found = NULL;
    for (size_t i = 0; i < l->count; i++)
        if (strncmp(l->line[i], prefix, strlen(prefix)) == 0) {
            cr_assert_null(found, "two lines start with '%s'", prefix);
            found = l->line[i] + strlen(prefix);
        }
    return found;
}

static view_t display(void)
{
    pipe_lines_t out = {0};
    view_t v;
    memset(&v, 0, sizeof v);
    exchange(&out, "d");
    const char *s = after_prefix(&out, "OBX: ");
    cr_assert_not_null(s, "d printed no 'OBX: ' line");
    snprintf(v.obx, sizeof v.obx, "%s", s);
    s = after_prefix(&out, "Side to move: ");
    cr_assert_not_null(s, "d printed no 'Side to move: ' line");
    snprintf(v.side, sizeof v.side, "%s", s);
    s = after_prefix(&out, "Legal moves (");
    cr_assert_not_null(s, "d printed no 'Legal moves (N):' line");
    int used = 0;
    cr_assert_eq(sscanf(s, "%d):%n", &v.legal_count, &used), 1, "bad legal moves line '%s'", s);
    cr_assert_gt(used, 0, "bad legal moves line '%s'", s);
    snprintf(v.legal, sizeof v.legal, "%s", s + used);
    s = after_prefix(&out, "Result: ");
    snprintf(v.result, sizeof v.result, "%s", s ? s : "");
    pipe_lines_free(&out);
    return v;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The words of s sorted, joined by single spaces. */
static void sorted_words(const char *s, char *out, size_t len)
{
    char buf[512], *w[MAX_MOVES * 2], *save = NULL;
    int n = 0;
    snprintf(buf, sizeof buf, "%s", s);
    for (char *t = strtok_r(buf, " ", &save); t && n < MAX_MOVES * 2; t = strtok_r(NULL, " ", &save))
        w[n++] = t;
    qsort(w, (size_t)n, sizeof *w, cmp_str);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        strncat(out, w[i], len - strlen(out) - 1);
        if (i + 1 < n)
            strncat(out, " ", len - strlen(out) - 1);
    }
}

/* `d` must show exactly what the library says about the game g. */
static void expect_display_of(const game_t *g, int version)
{
    view_t v = display();
    const position_t *p = game_position(g);
    obx_meta_t meta = game_meta(g);
    char obx[OBX_MAX_LEN];
    obx_format(p, &meta, version, obx, sizeof obx);
    cr_assert_str_eq(v.obx, obx);
    cr_assert_str_eq(v.side, p->side == GOATS ? "goats" : "tigers");

    move_t list[MAX_MOVES];
    int n = game_legal_moves(g, list);
    char want[512] = "", want_sorted[512], got_sorted[512];
    for (int i = 0; i < n; i++) {
        char t[MOVE_TEXT_LEN];
        move_format(list[i], t);
        strcat(want, " ");
        strcat(want, t);
    }
    cr_assert_eq(v.legal_count, n, "d says %d legal moves, the library %d", v.legal_count, n);
    sorted_words(want, want_sorted, sizeof want_sorted);
    sorted_words(v.legal, got_sorted, sizeof got_sorted);
    cr_assert_str_eq(got_sorted, want_sorted);
    game_result_t r = game_result(g);
    cr_assert_str_eq(v.result, r.reason == RESULT_NONE ? "" : result_describe(r));
}

/* The game of an OBX line (NULL: the start position) and moves, built with the library. */
static void library_game(game_t *g, const char *obx, const char *const *moves, int nmoves, rep_rule_t rule)
{
    position_t start;
    obx_meta_t meta = {MOVE_NONE, 0};
    char msg[256];
    if (obx)
        cr_assert_eq(obx_parse(obx, &start, &meta, msg, sizeof msg), BC_OK, "%s: %s", obx, msg);
    else
        position_set_start(&start);
    cr_assert(game_init(g, &start, &meta, rule));
    for (int i = 0; i < nmoves; i++)
        cr_assert_eq(game_play_text(g, moves[i], msg, sizeof msg), BC_OK, "%s: %s", moves[i], msg);
}

static const char START_OBX[] = "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #";

/* ---- startup, handshake ---- */

Test(protocol, prints_nothing_before_a_command)
{
    start_engine();
    char *line;
    pipe_status_t s = pipe_read_line(eng, QUIET_MS, &line);
    cr_assert_eq(s, PIPE_TIMEOUT, "engine spoke unasked (%s): '%s'", pipe_status_name(s), line ? line : "");
    pipe_exit_t e = pipe_finish(eng, EXIT_MS);
    cr_assert(e.exited && e.code == 0, "exit: code %d, signal %d, killed %d", e.code, e.signal, e.killed);
    s = pipe_read_line(eng, 0, &line);
    cr_assert_eq(s, PIPE_EOF, "output after end of input: '%s'", line ? line : "");
}

/* Checks one option line against UCI syntax and returns its name, default and vars. */
static void parse_option(const char *line, char *name, char *def, char *vars, char *type)
{
    char buf[512], *w[64], *save = NULL;
    int n = 0, i;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *t = strtok_r(buf, " ", &save); t && n < 64; t = strtok_r(NULL, " ", &save))
        w[n++] = t;
    cr_assert(n >= 5 && strcmp(w[0], "option") == 0 && strcmp(w[1], "name") == 0, "bad option line '%s'", line);
    name[0] = def[0] = vars[0] = '\0';
    for (i = 2; i < n && strcmp(w[i], "type") != 0; i++) {
        if (name[0])
            strcat(name, " ");
        strcat(name, w[i]);
    }
    cr_assert(name[0] && i + 1 < n, "option line '%s' has no name or no type", line);
    strcpy(type, w[++i]);
    i++;
    if (strcmp(type, "button") == 0) {
        cr_assert_eq(i, n, "button option '%s' has extra words", line);
        return;
    }
    cr_assert(i + 1 < n && strcmp(w[i], "default") == 0, "option '%s' has no default", line);
    if (strcmp(type, "string") == 0)
        return;
    strcpy(def, w[i + 1]);
    i += 2;
    if (strcmp(type, "check") == 0) {
        cr_assert(i == n && (strcmp(def, "true") == 0 || strcmp(def, "false") == 0), "bad check option '%s'", line);
    } else if (strcmp(type, "spin") == 0) {
        long d, lo, hi;
        char *end;
        cr_assert(i + 4 == n && strcmp(w[i], "min") == 0 && strcmp(w[i + 2], "max") == 0, "bad spin option '%s'", line);
        d = strtol(def, &end, 10);
        cr_assert(!*end, "spin default '%s' is not a number", def);
        lo = strtol(w[i + 1], &end, 10);
        cr_assert(!*end, "spin min '%s' is not a number", w[i + 1]);
        hi = strtol(w[i + 3], &end, 10);
        cr_assert(!*end, "spin max '%s' is not a number", w[i + 3]);
        cr_assert(lo <= d && d <= hi, "spin default out of range in '%s'", line);
    } else if (strcmp(type, "combo") == 0) {
        bool has_default = false;
        cr_assert(i < n, "combo option '%s' has no var", line);
        for (; i < n; i += 2) {
            cr_assert(i + 1 < n && strcmp(w[i], "var") == 0, "bad combo option '%s'", line);
            has_default |= strcmp(w[i + 1], def) == 0;
            if (vars[0])
                strcat(vars, " ");
            strcat(vars, w[i + 1]);
        }
        cr_assert(has_default, "combo default '%s' is not one of its vars in '%s'", def, line);
    } else {
        cr_assert_fail("unknown option type '%s' in '%s'", type, line);
    }
}

Test(protocol, uci_handshake)
{
    start_engine();
    send_line("uci");
    pipe_lines_t out = {0};
    char *line;
    pipe_status_t s = pipe_read_until(eng, "uciok", REPLY_MS, &out, &line);
    cr_assert_eq(s, PIPE_LINE, "no uciok: %s", pipe_status_name(s));
    cr_assert_str_eq(line, "uciok");
    cr_assert_geq(out.count, 4, "only %zu lines before uciok", out.count);
    cr_assert_str_eq(out.line[0], "id name baghchal " BAGHCHAL_VERSION);
    cr_assert(strncmp(out.line[1], "id author ", 10) == 0 && out.line[1][10] > ' ', "bad author line '%s'",
              out.line[1]);

    bool saw_repetition = false, saw_obx = false;
    char names[32][512];
    for (size_t i = 2; i < out.count; i++) {
        char name[512], def[512], vars[512], type[512];
        cr_assert(strncmp(out.line[i], "option name ", 12) == 0, "unexpected line '%s' in the handshake", out.line[i]);
        cr_assert_lt(i - 2, 32);
        parse_option(out.line[i], name, def, vars, type);
        for (size_t k = 2; k < i; k++)
            cr_assert(strcasecmp(names[k - 2], name) != 0, "option %s listed twice", name);
        strcpy(names[i - 2], name);
        char sorted[512];
        sorted_words(vars, sorted, sizeof sorted);
        if (strcmp(name, "Repetition") == 0) {
            saw_repetition = true;
            cr_assert_str_eq(type, "combo");
            cr_assert_str_eq(def, "forbid");
            cr_assert_str_eq(sorted, "draw forbid");
        } else if (strcmp(name, "OBXVersion") == 0) {
            saw_obx = true;
            cr_assert_str_eq(type, "combo");
            cr_assert_str_eq(def, "2");
            cr_assert_str_eq(sorted, "1 2");
        }
    }
    cr_assert(saw_repetition, "no Repetition option");
    cr_assert(saw_obx, "no OBXVersion option");
    pipe_lines_free(&out);
    /* uciok ends the answer: nothing follows it. */
    expect_silent("isready");
}

Test(protocol, isready_answers_readyok_alone)
{
    start_engine();
    for (int i = 0; i < 3; i++) {
        send_line("isready");
        char *line;
        pipe_status_t s = pipe_read_line(eng, REPLY_MS, &line);
        cr_assert_eq(s, PIPE_LINE, "no answer to isready: %s", pipe_status_name(s));
        cr_assert_str_eq(line, "readyok");
        cr_assert_geq(pipe_line_at(eng), pipe_sent_at(eng), "readyok arrived before isready was sent");
    }
    char *line;
    cr_assert_eq(pipe_read_line(eng, QUIET_MS, &line), PIPE_TIMEOUT, "extra output after readyok");
}

/* ---- positions ---- */

Test(protocol, startpos_and_moves)
{
    start_engine();
    game_t g;
    library_game(&g, NULL, NULL, 0, REP_FORBID);
    view_t v = display();
    cr_assert_str_eq(v.obx, START_OBX);
    cr_assert_str_eq(v.side, "goats");
    cr_assert_eq(v.legal_count, 21);
    expect_display_of(&g, OBX_V2);
    game_free(&g);

    expect_silent("position startpos moves C3");
    v = display();
    cr_assert_str_eq(v.obx, "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1");
    cr_assert_str_eq(v.side, "tigers");
    cr_assert_eq(v.legal_count, 12);
    const char *one[] = {"C3"};
    library_game(&g, NULL, one, 1, REP_FORBID);
    expect_display_of(&g, OBX_V2);
    game_free(&g);

    /* A capture in the placement phase, written with its suffix in OBX. */
    expect_silent("position startpos moves B2 A1C3");
    v = display();
    cr_assert_str_eq(v.obx, "XXXXT/XXXXX/XXTXX/XXXXX/TXXXT g @19 c1 mA1C3(B2) #t1");
    cr_assert_str_eq(v.side, "goats");

    const char *mixed[] = {"c3", "mA1B1", "D4", "b1b2", "e2", "E1D1"};
    expect_silent("position startpos moves c3 mA1B1 D4 b1b2 e2 E1D1");
    library_game(&g, NULL, mixed, 6, REP_FORBID);
    expect_display_of(&g, OBX_V2);
    game_free(&g);

    /* ucinewgame goes back to the start position. */
    expect_silent("ucinewgame");
    cr_assert_str_eq(display().obx, START_OBX);
}

static void check_round_trip(const char *obx, const char *moves_text, const char *const *moves, int nmoves)
{
    game_t g;
    library_game(&g, obx, moves, nmoves, REP_FORBID);
    pipe_lines_t out = {0};
    if (moves_text)
        exchange(&out, "position obx %s moves %s", obx, moves_text);
    else
        exchange(&out, "position obx %s", obx);
    cr_assert_eq(out.count, 0, "position obx %s: '%s'", obx, out.count ? out.line[0] : "");
    pipe_lines_free(&out);
    view_t v = display();
    position_t back;
    obx_meta_t meta;
    char msg[256];
    cr_assert_eq(obx_parse(v.obx, &back, &meta, msg, sizeof msg), BC_OK, "d printed '%s': %s", v.obx, msg);
    const position_t *p = game_position(&g);
    cr_assert(position_same(&back, p) && back.in_hand == p->in_hand && back.captured == p->captured,
              "'%s' is not the position of '%s' + '%s'", v.obx, obx, moves_text ? moves_text : "");
    cr_assert_eq(back.key, p->key);
    obx_meta_t want = game_meta(&g);
    cr_assert_eq(meta.last_move, want.last_move, "last move of '%s'", v.obx);
    cr_assert_eq(meta.ply, want.ply, "move number of '%s'", v.obx);
    expect_display_of(&g, OBX_V2);
    game_free(&g);
}

Test(protocol, position_obx_round_trip)
{
    start_engine();
    check_round_trip(START_OBX, NULL, NULL, 0);
    check_round_trip("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1", NULL, NULL, 0);
    check_round_trip("T3T/5/2G2/5/T3T t g19 c0 mC3 1", NULL, NULL, 0);
    check_round_trip("t3t/5/2g2/5/t3t T G19 C0", NULL, NULL, 0);
    check_round_trip("TX2T/1X1X1/XXG2/5/T3T\tt @19 c0", NULL, NULL, 0);
    check_round_trip("XXXXT/XXXXX/XXTXX/XXXXX/TXXXT g @19 c1 mA1C3(B2) #t1", NULL, NULL, 0);
    check_round_trip("TGGGT/GGGGG/GGXGG/GGGGG/TXXXT g @0 c3 - -", NULL, NULL, 0);
    check_round_trip("TGGGT/GGGGG/GGXXX/XXXXX/TXXXT g @5 c5", NULL, NULL, 0);
    const char *m1[] = {"C3", "A1B1"};
    check_round_trip("T3T/5/5/5/T3T g g20 c0 - 0", "C3 A1B1", m1, 2);
    const char *m2[] = {"C2C3", "A5B5", "C3C2"};
    check_round_trip("TGGGT/GGGGG/GGXGG/GGGGG/TXXXT g @0 c3 mD3C3 #g40", "C2C3 A5B5 C3C2", m2, 3);
}

Test(protocol, finished_position_shows_result)
{
    start_engine();
    expect_silent("position obx TGGGT/GGGGG/GGXXX/XXXXX/TXXXT g @5 c5");
    view_t v = display();
    cr_assert_eq(v.legal_count, 0);
    cr_assert_str_eq(v.result, "tigers win: five goats captured");
    char *err = expect_one_error("position obx TGGGT/GGGGG/GGXXX/XXXXX/TXXXT g @5 c5 moves C3");
    free(err);
}

Test(protocol, bad_obx_keeps_the_position)
{
    static const char *const bad[] = {
        "TXXXT/XXXXX/XXXXX/XXXXX g @20 c0",          /* four rows */
        "TXXXT/XXXXX/XXTXX/XXXXX/TXXXT g @20 c0",    /* five tigers */
        "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @20 c0",    /* 21 goats */
        "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT t @20 c0",    /* tigers first */
        "TXXXT/XXXXX/XXQXX/XXXXX/TXXXT g @20 c0",    /* bad character */
        "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT x @20 c0",    /* bad turn */
        "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @21 c0",    /* in hand out of range */
        "TXXXXT/XXXX/XXXXX/XXXXX/TXXXT g @20 c0",    /* row lengths */
        "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20",       /* too few fields */
        "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 z9 #", /* bad last move */
        "",
    };
    start_engine();
    expect_silent("position startpos moves C3 A1B1");
    cr_assert_str_eq(display().obx, "XTXXT/XXXXX/XXGXX/XXXXX/TXXXT g @19 c0 mA1B1 #t1");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char cmd[256], msg[256];
        position_t p;
        snprintf(cmd, sizeof cmd, "position obx %s", bad[i]);
        bc_error_t e = obx_parse(bad[i], &p, NULL, msg, sizeof msg);
        cr_assert_neq(e, BC_OK, "the library accepts '%s'", bad[i]);
        char *err = expect_one_error(cmd);
        cr_assert(strstr(err, msg) != NULL, "'%s' does not give the reason '%s'", err, msg);
        free(err);
        cr_assert_str_eq(display().obx, "XTXXT/XXXXX/XXGXX/XXXXX/TXXXT g @19 c0 mA1B1 #t1", "after '%s'", cmd);
    }
    /* A good OBX followed by a bad move changes nothing either. */
    free(expect_one_error("position obx " "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - # moves C3 Z9"));
    cr_assert_str_eq(display().obx, "XTXXT/XXXXX/XXGXX/XXXXX/TXXXT g @19 c0 mA1B1 #t1");
}

Test(protocol, illegal_move_keeps_the_position)
{
    static const char *const bad[] = {
        "position startpos moves C3 C3",       /* tigers cannot place */
        "position startpos moves C3 A1C3",     /* nothing to jump */
        "position startpos moves A1",          /* occupied */
        "position startpos moves C3 A1D1",     /* not a line */
        "position startpos moves C3 A1B1 XY",  /* not a move */
        "position startpos moves B2 A1C3(C2)", /* wrong suffix */
        "position startpos moves",             /* fine: this one is checked apart */
    };
    start_engine();
    expect_silent("position startpos moves D4");
    const char *kept = "TXXXT/XXXXX/XXXXX/XXXGX/TXXXT t @19 c0 mD4 #g1";
    cr_assert_str_eq(display().obx, kept);
    for (size_t i = 0; i + 1 < sizeof bad / sizeof *bad; i++) {
        free(expect_one_error(bad[i]));
        cr_assert_str_eq(display().obx, kept, "after '%s'", bad[i]);
    }
    /* A position line with an empty move list is valid. */
    expect_silent(bad[6]);
    cr_assert_str_eq(display().obx, START_OBX);
    free(expect_one_error("position"));
    free(expect_one_error("position startpos C3"));
    free(expect_one_error("position fen x"));
    cr_assert_str_eq(display().obx, START_OBX);
}

/* Does text say "move <n>" (not "move <n>0" and the like)? */
static bool names_move(const char *text, int n)
{
    char want[32];
    int len = snprintf(want, sizeof want, "move %d", n);
    for (const char *s = strstr(text, want); s; s = strstr(s + 1, want))
        if (s[len] < '0' || s[len] > '9')
            return true;
    return false;
}

Test(protocol, illegal_move_error_names_its_number)
{
    start_engine();
    char *err = expect_one_error("position startpos moves C3 C3");
    cr_assert(names_move(err, 2) && strstr(err, "C3"), "the second move is reported as '%s'", err);
    free(err);
    err = expect_one_error("position obx TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - # moves C3 A1B1 B1");
    cr_assert(names_move(err, 3) && strstr(err, "B1"), "the third move is reported as '%s'", err);
    free(err);
}

Test(protocol, unknown_command)
{
    start_engine();
    static const char *const words[] = {"foo", "ucix", "isreadyx", "D", "quitx", "Go", "perft"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        char *err = expect_one_error(words[i]);
        char want[128];
        snprintf(want, sizeof want, "info string error: unknown command '%s'", words[i]);
        cr_assert_str_eq(err, want);
        free(err);
    }
    char *err = expect_one_error("frobnicate startpos moves C3");
    cr_assert_str_eq(err, "info string error: unknown command 'frobnicate'");
    free(err);
    /* A very long line is read whole and answered with one line. */
    size_t n = 20000;
    char *big = malloc(n + 1);
    cr_assert_not_null(big);
    memset(big, 'z', n);
    big[n] = '\0';
    err = expect_one_error(big);
    cr_assert(strncmp(err, "info string error: unknown command 'zzzz", 40) == 0, "'%.80s'", err);
    free(err);
    free(big);
}

/* ---- long games ---- */

/* A set of position keys (board and side to move), for never visiting a position twice. */
typedef struct {
    uint64_t *slot;
    size_t cap, count;
} keyset_t;

static bool keyset_has(const keyset_t *s, uint64_t k)
{
    for (size_t i = k & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->slot[i] == 0)
            return false;
        if (s->slot[i] == k)
            return true;
    }
}

static void keyset_add(keyset_t *s, uint64_t k)
{
    cr_assert_lt(s->count * 2, s->cap);
    size_t i = k & (s->cap - 1);
    while (s->slot[i] != 0 && s->slot[i] != k)
        i = (i + 1) & (s->cap - 1);
    s->count += s->slot[i] == 0;
    s->slot[i] = k;
}

static uint32_t rng_next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* Captures are allowed up to four: the fifth would end the game. */
static bool keeps_going(const position_t *p, move_t m)
{
    return move_kind(m) != MOVE_JUMP || p->captured + 1 < BC_CAPTURES_TO_WIN;
}

/* Does the side to move in p have a move to a position not seen yet? */
static bool has_fresh_move(const keyset_t *seen, const position_t *p)
{
    move_t list[MAX_MOVES];
    int n = gen_moves(p, list);
    for (int i = 0; i < n; i++) {
        if (!keeps_going(p, list[i]))
            continue;
        position_t q = *p;
        position_make(&q, list[i]);
        if (!keyset_has(seen, q.key))
            return true;
    }
    return false;
}

/* A random game of `want` moves from the start that never repeats a position, so it
 * is legal and unfinished under both repetition rules. Returns the moves made (< want if
 * this seed walks into a dead end). */
static size_t random_long_game(uint32_t seed, move_t *moves, size_t want)
{
    keyset_t seen = {calloc(8192, sizeof(uint64_t)), 8192, 0};
    cr_assert_not_null(seen.slot);
    position_t p;
    position_set_start(&p);
    keyset_add(&seen, p.key);
    size_t n = 0;
    while (n < want) {
        move_t list[MAX_MOVES], ok[MAX_MOVES];
        int c = gen_moves(&p, list), k = 0;
        for (int i = 0; i < c; i++) {
            if (!keeps_going(&p, list[i]))
                continue;
            position_t q = p;
            position_make(&q, list[i]);
            if (!keyset_has(&seen, q.key) && has_fresh_move(&seen, &q))
                ok[k++] = list[i];
        }
        if (k == 0)
            break;
        move_t m = ok[rng_next(&seed) % (uint32_t)k];
        position_make(&p, m);
        keyset_add(&seen, p.key);
        moves[n++] = m;
    }
    free(seen.slot);
    return n;
}

Test(protocol, thousand_move_position_line)
{
    enum { WANT = 1200 };
    move_t moves[WANT];
    size_t n = 0;
    for (uint32_t seed = 1; seed < 50 && n < WANT; seed++)
        n = random_long_game(seed * 2654435761u, moves, WANT);
    cr_assert_eq(n, WANT, "no seed gave a %d-move game", WANT);

    /* The library agrees the game is legal and still going under both rules. */
    size_t cap = WANT * 5 + 64;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    strcpy(text, "position startpos moves");
    size_t len = strlen(text);
    game_t g[2];
    position_t start;
    position_set_start(&start);
    for (int r = 0; r < 2; r++)
        cr_assert(game_init(&g[r], &start, NULL, r == 0 ? REP_FORBID : REP_DRAW));
    for (size_t i = 0; i < n; i++) {
        char t[MOVE_TEXT_LEN], msg[256];
        move_format(moves[i], t);
        len += (size_t)sprintf(text + len, " %s", t);
        for (int r = 0; r < 2; r++)
            cr_assert_eq(game_play(&g[r], moves[i], msg, sizeof msg), BC_OK, "move %zu: %s", i + 1, msg);
    }
    for (int r = 0; r < 2; r++) {
        cr_assert_eq(g[r].count, (size_t)WANT);
        cr_assert_eq(game_result(&g[r]).reason, RESULT_NONE);
    }
    cr_assert_eq(game_position(&g[0])->in_hand, 0);

    start_engine();
    expect_silent("setoption name Repetition value draw");
    expect_silent(text);
    expect_display_of(&g[1], OBX_V2);
    cr_assert(strstr(display().obx, " #t600") != NULL, "1200 half-moves end with tigers' move 600");

    expect_silent("ucinewgame");
    expect_silent("setoption name Repetition value forbid");
    expect_silent(text);
    expect_display_of(&g[0], OBX_V2);

    /* One more move that recreates an earlier position is refused under forbid. */
    const position_t *cur = game_position(&g[0]);
    move_t list[MAX_MOVES];
    int c = gen_moves(cur, list), repeat = -1;
    for (int i = 0; i < c && repeat < 0; i++)
        if (game_move_repeats(&g[0], list[i]))
            repeat = i;
    if (repeat >= 0) {
        char t[MOVE_TEXT_LEN];
        move_format(list[repeat], t);
        snprintf(text + len, cap - len, " %s", t);
        char *err = expect_one_error(text);
        cr_assert(strstr(err, t) != NULL, "'%s'", err);
        free(err);
        expect_display_of(&g[0], OBX_V2);
    }
    for (int r = 0; r < 2; r++)
        game_free(&g[r]);
    free(text);
}

/* ---- perft ---- */

/* Sends a go perft line and collects what it prints up to its last line, `Nodes searched:`
 * (kept as the last of out): perft runs on a thread of its own, so isready does not wait for
 * it. An isready after it then finds nothing more. */
static void perft_exchange(pipe_lines_t *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void perft_exchange(pipe_lines_t *out, const char *fmt, ...)
{
    char cmd[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    send_line(cmd);
    char *line;
    pipe_status_t s = pipe_read_until(eng, "Nodes searched: ", REPLY_MS, out, &line);
    cr_assert_eq(s, PIPE_LINE, "'%s' printed no Nodes searched line (%s) but %zu lines, the last '%s'", cmd,
                 pipe_status_name(s), out->count, out->count ? out->line[out->count - 1] : "");
    if (out->count == out->cap) {
        out->cap = out->cap ? 2 * out->cap : 8;
        out->line = realloc(out->line, out->cap * sizeof *out->line);
        cr_assert_not_null(out->line);
    }
    out->line[out->count] = strdup(line);
    cr_assert_not_null(out->line[out->count]);
    out->count++;
    pipe_lines_t after = {0};
    sync_collect(&after);
    cr_assert_eq(after.count, 0, "'%s' printed '%s' after its last line", cmd, after.count ? after.line[0] : "");
    pipe_lines_free(&after);
}

static void check_perft(const position_t *pos, int depth, uint64_t total)
{
    pipe_lines_t out = {0};
    perft_exchange(&out, "go perft %d", depth);
    move_t list[MAX_MOVES];
    position_t p = *pos;
    int n = gen_moves(&p, list);
    cr_assert_eq(out.count, (size_t)n + 2, "perft printed %zu lines for %d moves", out.count, n);
    bool used[MAX_MOVES] = {false};
    uint64_t sum = 0;
    for (int i = 0; i < n; i++) {
        char mv[16];
        unsigned long long count;
        int end = 0;
        cr_assert_eq(sscanf(out.line[i], "%15[A-E1-5]: %llu%n", mv, &count, &end), 2, "bad perft line '%s'",
                     out.line[i]);
        cr_assert_eq(out.line[i][end], '\0', "trailing text in '%s'", out.line[i]);
        int k = 0;
        for (; k < n; k++) {
            char t[MOVE_TEXT_LEN];
            move_format(list[k], t);
            if (strcmp(t, mv) == 0)
                break;
        }
        cr_assert_lt(k, n, "perft lists '%s', not a move here", mv);
        cr_assert(!used[k], "perft lists '%s' twice", mv);
        used[k] = true;
        position_make(&p, list[k]);
        uint64_t want = perft(&p, depth - 1);
        position_unmake(&p, list[k]);
        cr_assert_eq(count, want, "%s: %llu, expected %llu", mv, count, (unsigned long long)want);
        sum += count;
    }
    cr_assert_eq(sum, total);
    cr_assert_str_eq(out.line[n], "");
    char last[64];
    snprintf(last, sizeof last, "Nodes searched: %llu", (unsigned long long)total);
    cr_assert_str_eq(out.line[n + 1], last);
    pipe_lines_free(&out);
}

Test(protocol, go_perft)
{
    start_engine();
    position_t p;
    position_set_start(&p);
    check_perft(&p, 3, 5052);
    check_perft(&p, 1, 21);

    expect_silent("position startpos moves B2 A1C3");
    game_t g;
    const char *m[] = {"B2", "A1C3"};
    library_game(&g, NULL, m, 2, REP_FORBID);
    p = *game_position(&g);
    position_t q = p;
    check_perft(&p, 3, perft(&q, 3));
    game_free(&g);

    free(expect_one_error("go perft x"));
    free(expect_one_error("go perft"));
    free(expect_one_error("go perft 2 3"));
}

/* Perft depths out of 1..64 are clamped, like every number with a range, and the engine
 * says so. */
Test(protocol, go_perft_depths_are_clamped)
{
    start_engine();
    static const char *const low[] = {"0", "-5", "-99999999999999999999"};
    for (size_t i = 0; i < sizeof low / sizeof *low; i++) {
        pipe_lines_t out = {0};
        perft_exchange(&out, "go perft %s", low[i]);
        char want[96];
        snprintf(want, sizeof want, "info string perft depth %s is out of range, using 1", low[i]);
        cr_assert_eq(out.count, 1 + 21 + 2, "go perft %s printed %zu lines", low[i], out.count);
        cr_assert_str_eq(out.line[0], want);
        cr_assert_str_eq(out.line[out.count - 1], "Nodes searched: 21");
        pipe_lines_free(&out);
    }
    /* A finished game has no moves, so depth 64 answers at once. */
    expect_silent("position obx TGGGT/GGGGG/GGGGG/GGXXX/TXXXT g @0 c5");
    static const char *const high[] = {"65", "99999999999999999999"};
    for (size_t i = 0; i < sizeof high / sizeof *high; i++) {
        pipe_lines_t out = {0};
        perft_exchange(&out, "go perft %s", high[i]);
        char want[96];
        snprintf(want, sizeof want, "info string perft depth %s is out of range, using 64", high[i]);
        cr_assert_eq(out.count, 3, "go perft %s printed %zu lines", high[i], out.count);
        cr_assert_str_eq(out.line[0], want);
        cr_assert_str_eq(out.line[1], "");
        cr_assert_str_eq(out.line[2], "Nodes searched: 0");
        pipe_lines_free(&out);
    }
    pipe_lines_t out = {0};
    perft_exchange(&out, "go perft 64");
    cr_assert_eq(out.count, 2, "go perft 64 printed %zu lines", out.count);
    cr_assert_str_eq(out.line[1], "Nodes searched: 0");
    pipe_lines_free(&out);
}

/* ---- how it ends ---- */

Test(protocol, end_of_input_exits_zero_promptly)
{
    start_engine();
    expect_silent("position startpos moves C3");
    pipe_exit_t e = pipe_finish(eng, EXIT_MS);
    cr_assert(!e.killed, "still running %d ms after end of input", EXIT_MS);
    cr_assert(e.exited, "ended by signal %d", e.signal);
    cr_assert_eq(e.code, 0);
    cr_assert_lt(e.ms, PROMPT_EXIT_MS, "took %.1f ms to exit after end of input", e.ms);
    char *line;
    cr_assert_eq(pipe_read_line(eng, 0, &line), PIPE_EOF, "output at exit: '%s'", line ? line : "");
}

Test(protocol, last_line_without_line_end_is_handled)
{
    start_engine();
    send_raw("isready");
    pipe_close_stdin(eng);
    char *line;
    pipe_status_t s = pipe_read_line(eng, REPLY_MS, &line);
    cr_assert_eq(s, PIPE_LINE, "unterminated last line ignored: %s", pipe_status_name(s));
    cr_assert_str_eq(line, "readyok");
    pipe_exit_t e = pipe_wait(eng, EXIT_MS);
    cr_assert(e.exited && e.code == 0, "exit: code %d, signal %d, killed %d", e.code, e.signal, e.killed);
}

Test(protocol, quit_exits_zero_and_reads_no_further)
{
    start_engine();
    expect_silent("position startpos moves C3");
    send_raw("quit\nisready\nd\n");
    pipe_exit_t e = pipe_wait(eng, EXIT_MS); /* stdin stays open: quit alone must end it */
    cr_assert(!e.killed, "still running %d ms after quit", EXIT_MS);
    cr_assert(e.exited && e.code == 0, "exit: code %d, signal %d", e.code, e.signal);
    cr_assert_lt(e.ms, PROMPT_EXIT_MS, "took %.1f ms to quit", e.ms);
    char *line;
    pipe_status_t s = pipe_read_line(eng, 0, &line);
    cr_assert_eq(s, PIPE_EOF, "output after quit: '%s'", line ? line : "");
}

/* ---- input tolerance ---- */

Test(protocol, whitespace_and_crlf_are_tolerated)
{
    start_engine();
    static const char *const ready[] = {"  isready\n", "\tisready\t\n", "isready\r\n", "\t isready \t\r\n"};
    for (size_t i = 0; i < sizeof ready / sizeof *ready; i++) {
        send_raw(ready[i]);
        char *line;
        pipe_status_t s = pipe_read_line(eng, REPLY_MS, &line);
        cr_assert_eq(s, PIPE_LINE, "no answer to '%s': %s", ready[i], pipe_status_name(s));
        cr_assert_str_eq(line, "readyok");
    }
    /* Blank lines say nothing. */
    send_raw("\n\r\n  \t \n");
    expect_silent("");

    send_raw("position\tstartpos   moves \t C3  A1B1 \r\n");
    pipe_lines_t out = {0};
    sync_collect(&out);
    cr_assert_eq(out.count, 0, "'%s'", out.count ? out.line[0] : "");
    cr_assert_str_eq(display().obx, "XTXXT/XXXXX/XXGXX/XXXXX/TXXXT g @19 c0 mA1B1 #t1");

    send_raw("  position  obx   T3T/5/5/5/T3T\tg  g20 c0 \t moves   D4\r\n");
    sync_collect(&out);
    cr_assert_eq(out.count, 0, "'%s'", out.count ? out.line[0] : "");
    cr_assert_str_eq(display().obx, "TXXXT/XXXXX/XXXXX/XXXGX/TXXXT t @19 c0 mD4 -");

    send_raw("setoption  name\tOBXVersion   value  1\r\n");
    sync_collect(&out);
    cr_assert_eq(out.count, 0, "'%s'", out.count ? out.line[0] : "");
    send_raw("d\r\n");
    sync_collect(&out);
    bool found = false;
    for (size_t i = 0; i < out.count; i++)
        found |= strcmp(out.line[i], "OBX: T3T/5/5/3G1/T3T t g19 c0 mD4 -") == 0;
    cr_assert(found, "d after CRLF input did not print the OBX 1.0 line");
    for (size_t i = 0; i < out.count; i++)
        cr_assert(!strchr(out.line[i], '\r'), "output line with CR: '%s'", out.line[i]);
    pipe_lines_free(&out);

    send_raw("go perft 1\r\n");
    char *line;
    cr_assert_eq(pipe_read_until(eng, "Nodes searched: ", REPLY_MS, &out, &line), PIPE_LINE);
    cr_assert_geq(out.count, 1);
    cr_assert_str_eq(line, "Nodes searched: 12");
    cr_assert_str_eq(out.line[out.count - 1], "");
    pipe_lines_free(&out);
}

/* ---- options ---- */

Test(protocol, obx_version_option)
{
    start_engine();
    expect_silent("setoption name OBXVersion value 1");
    cr_assert_str_eq(display().obx, "T3T/5/5/5/T3T g g20 c0 - 0");
    expect_silent("position startpos moves C3");
    cr_assert_str_eq(display().obx, "T3T/5/2G2/5/T3T t g19 c0 mC3 1");
    expect_silent("position startpos moves B2 A1C3");
    cr_assert_str_eq(display().obx, "4T/5/2T2/5/T3T g g19 c1 mA1C3(B2) 2");
    expect_silent("setoption name OBXVersion value 2");
    cr_assert_str_eq(display().obx, "XXXXT/XXXXX/XXTXX/XXXXX/TXXXT g @19 c1 mA1C3(B2) #t1");
}

/* Goats C2-C3, tigers A5-B5, goats C3-C2: tigers B5-A5 would bring back the start. */
static const char CYCLE_OBX[] = "TGGGT/GGGGG/GGXGG/GGGGG/TXXXT g @0 c3 - #";

Test(protocol, repetition_forbid_rejects_a_repeating_move)
{
    const char *m[] = {"C2C3", "A5B5", "C3C2", "B5A5"};
    game_t g;
    library_game(&g, CYCLE_OBX, m, 3, REP_FORBID);
    move_t back;
    cr_assert_eq(move_parse_text("B5A5", &back, NULL, 0), BC_OK);
    cr_assert(game_move_repeats(&g, back), "the library does not see B5A5 repeat");

    start_engine();
    /* forbid is the default */
    expect_silent("position obx TGGGT/GGGGG/GGXGG/GGGGG/TXXXT g @0 c3 - # moves C2C3 A5B5 C3C2");
    view_t v = display();
    cr_assert_null(strstr(v.legal, "B5A5"), "B5A5 listed as legal: '%s'", v.legal);
    cr_assert_not_null(strstr(v.legal, "B5C5"), "B5C5 missing: '%s'", v.legal);
    expect_display_of(&g, OBX_V2);

    char *err = expect_one_error("position obx TGGGT/GGGGG/GGXGG/GGGGG/TXXXT g @0 c3 - # moves C2C3 A5B5 C3C2 B5A5");
    cr_assert_not_null(strstr(err, "B5A5"), "'%s'", err);
    free(err);
    expect_display_of(&g, OBX_V2);
    game_free(&g);

    /* Under draw the same move is legal. */
    expect_silent("setoption name Repetition value draw");
    library_game(&g, CYCLE_OBX, m, 3, REP_DRAW);
    v = display();
    cr_assert_not_null(strstr(v.legal, "B5A5"), "B5A5 not legal under draw: '%s'", v.legal);
    expect_silent("position obx TGGGT/GGGGG/GGXGG/GGGGG/TXXXT g @0 c3 - # moves C2C3 A5B5 C3C2 B5A5");
    game_free(&g);
    library_game(&g, CYCLE_OBX, m, 4, REP_DRAW);
    expect_display_of(&g, OBX_V2);
    game_free(&g);

    /* Back to forbid: the rule applies to the next position line. */
    expect_silent("setoption name Repetition value forbid");
    free(expect_one_error("position obx TGGGT/GGGGG/GGXGG/GGGGG/TXXXT g @0 c3 - # moves C2C3 A5B5 C3C2 B5A5"));
}

Test(protocol, setoption_errors)
{
    start_engine();
    static const char *const bad[] = {
        "setoption name Foo value 1",
        "setoption name Repetition value maybe",
        "setoption name Repetition",
        "setoption name OBXVersion value 3",
        "setoption name OBXVersion value",
        "setoption value 2",
        "setoption",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        free(expect_one_error(bad[i]));
    char *err = expect_one_error("setoption name NoSuchOption value 1");
    cr_assert_not_null(strstr(err, "NoSuchOption"), "'%s' does not name the option", err);
    free(err);
    /* Nothing changed: OBX 2.0 still, and forbid still. */
    cr_assert_str_eq(display().obx, START_OBX);
    free(expect_one_error("position obx TGGGT/GGGGG/GGXGG/GGGGG/TXXXT g @0 c3 - # moves C2C3 A5B5 C3C2 B5A5"));
    /* A button takes no value: one given is refused, not ignored. */
    err = expect_one_error("setoption name Clear Hash value xyz");
    cr_assert_str_eq(err, "info string error: option Clear Hash is a button and takes no value");
    free(err);
    free(expect_one_error("setoption name clear hash value"));
    expect_silent("setoption name Clear Hash");
    /* Option names and values are not case-sensitive. */
    expect_silent("setoption name obxversion value 1");
    cr_assert_str_eq(display().obx, "T3T/5/5/5/T3T g g20 c0 - 0");
}

/* ---- one-shot mode ---- */

Test(protocol, one_shot_perft)
{
    char *argv[] = {(char *)ENGINE, "go", "perft", "2", NULL};
    eng = pipe_start(argv, 0);
    cr_assert_not_null(eng, "cannot start %s: %s", ENGINE, strerror(errno));
    pipe_exit_t e = pipe_wait(eng, EXIT_MS); /* without closing its input */
    cr_assert(!e.killed, "one-shot mode still running after %d ms", EXIT_MS);
    cr_assert(e.exited && e.code == 0, "exit: code %d, signal %d", e.code, e.signal);

    pipe_lines_t out = {0};
    char *line;
    cr_assert_eq(pipe_read_until(eng, "Nodes searched: ", 0, &out, &line), PIPE_LINE);
    cr_assert_str_eq(line, "Nodes searched: 252");
    cr_assert_eq(out.count, 22);
    for (size_t i = 0; i < 21; i++) {
        unsigned long long c;
        char mv[8];
        cr_assert_eq(sscanf(out.line[i], "%7[A-E1-5]: %llu", mv, &c), 2, "'%s'", out.line[i]);
        cr_assert_eq(c, 12, "'%s'", out.line[i]);
    }
    cr_assert_str_eq(out.line[21], "");
    cr_assert_eq(pipe_read_line(eng, 0, &line), PIPE_EOF);
    pipe_lines_free(&out);
}

Test(protocol, one_shot_other_commands)
{
    char *argv[] = {(char *)ENGINE, "isready", NULL};
    eng = pipe_start(argv, 0);
    cr_assert_not_null(eng);
    pipe_exit_t e = pipe_wait(eng, EXIT_MS);
    cr_assert(e.exited && e.code == 0, "exit: code %d, signal %d, killed %d", e.code, e.signal, e.killed);
    char *line;
    cr_assert_eq(pipe_read_line(eng, 0, &line), PIPE_LINE);
    cr_assert_str_eq(line, "readyok");
    cr_assert_eq(pipe_read_line(eng, 0, &line), PIPE_EOF);
    pipe_free(eng);
    eng = NULL;

    char *argv2[] = {(char *)ENGINE, "position", "startpos", "moves", "C3", NULL};
    eng = pipe_start(argv2, 0);
    cr_assert_not_null(eng);
    e = pipe_wait(eng, EXIT_MS);
    cr_assert(e.exited && e.code == 0, "exit: code %d, signal %d, killed %d", e.code, e.signal, e.killed);
    cr_assert_eq(pipe_read_line(eng, 0, &line), PIPE_EOF, "position printed '%s'", line ? line : "");
}

/* A NUL byte inside a line makes the whole line an error: it is never cut at the NUL. */
Test(protocol, a_line_with_a_nul_byte_is_refused)
{
    start_engine();
    static const struct {
        const char *bytes;
        size_t len;
    } lines[] = {
        {"go\0 depth 3\n", 12},
        {"position startpos moves C3\0 B1 B1\n", 34},
        {"isready\0\n", 9},
        {"\0\n", 2},
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        cr_assert_eq(pipe_write(eng, lines[i].bytes, lines[i].len), 0);
        pipe_lines_t out = {0};
        sync_collect(&out);
        cr_assert_eq(out.count, 1, "line %zu printed %zu lines", i + 1, out.count);
        cr_assert_str_eq(out.line[0], "info string error: the line contains a NUL byte", "line %zu", i + 1);
        pipe_lines_free(&out);
    }
    /* Nothing changed: still the start position, and no search runs. */
    cr_assert_str_eq(display().obx, START_OBX);
    char *line;
    cr_assert_eq(pipe_read_line(eng, QUIET_MS, &line), PIPE_TIMEOUT, "'%s' after the refused lines", line);
}

/* The command prints exactly want. */
static void expect_exactly(const char *cmd, const char *want)
{
    pipe_lines_t out = {0};
    exchange(&out, "%s", cmd);
    cr_assert_eq(out.count, 1, "'%.60s' printed %zu lines, expected '%s'", cmd, out.count, want);
    cr_assert_str_eq(out.line[0], want, "after '%.60s'", cmd);
    pipe_lines_free(&out);
}

/* Runs `baghchal <args>` as one command; returns its exit status and its output. */
static int one_shot(char *const *args, pipe_lines_t *out)
{
    char *argv[16] = {(char *)ENGINE};
    int n = 1;
    for (; args[n - 1] && n < 15; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    eng = pipe_start(argv, 0);
    cr_assert_not_null(eng, "cannot start %s: %s", ENGINE, strerror(errno));
    pipe_exit_t e = pipe_wait(eng, EXIT_MS); /* without closing its input */
    cr_assert(!e.killed, "'%s ...' still running after %d ms", args[0], EXIT_MS);
    cr_assert(e.exited, "'%s ...' ended by signal %d", args[0], e.signal);
    char *line;
    while (pipe_read_line(eng, 0, &line) == PIPE_LINE) {
        out->line = realloc(out->line, (out->count + 1) * sizeof *out->line);
        cr_assert_not_null(out->line);
        out->line[out->count++] = strdup(line);
        out->cap = out->count;
    }
    pipe_free(eng);
    eng = NULL;
    return e.code;
}

/* One command from the command line: a search must have a limit that ends it, and a
 * refused command exits with status 1. */
Test(protocol, one_shot_refusals_exit_non_zero)
{
    static const char GO_LIMIT[] =
        "info string error: go as one command needs a limit that ends it: depth, nodes, movetime, mate or a clock";
    struct {
        char *args[6];
        int code;
        const char *last;
    } cases[] = {
        {{"go", NULL}, 1, GO_LIMIT},
        {{"go", "infinite", NULL}, 1, GO_LIMIT},
        {{"go", "ponder", "depth", "3", NULL}, 1, GO_LIMIT},
        {{"go", "searchmoves", "C3", NULL}, 1, GO_LIMIT},
        {{"foo", NULL}, 1, "info string error: unknown command 'foo'"},
        {{"bench", "1", "2", NULL}, 1, "info string error: bench takes an optional depth from 1 to 127"},
        {{"isready", "now", NULL}, 1, "info string error: isready takes no arguments: 'now' and what follows are not understood"},
        {{"go", "depth", "2", NULL}, 0, NULL},
        {{"go", "nodes", "300", NULL}, 0, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pipe_lines_t out = {0};
        int code = one_shot(cases[i].args, &out);
        cr_assert_eq(code, cases[i].code, "baghchal %s %s: exit status %d", cases[i].args[0],
                     cases[i].args[1] ? cases[i].args[1] : "", code);
        cr_assert_gt(out.count, 0, "baghchal %s printed nothing", cases[i].args[0]);
        if (cases[i].last) {
            cr_assert_eq(out.count, 1, "baghchal %s printed %zu lines", cases[i].args[0], out.count);
            cr_assert_str_eq(out.line[0], cases[i].last);
        } else {
            cr_assert(strncmp(out.line[out.count - 1], "bestmove ", 9) == 0, "baghchal %s ended with '%s'",
                      cases[i].args[0], out.line[out.count - 1]);
        }
        pipe_lines_free(&out);
    }
}

/* One rule for every command: words it does not take make it an error, and it is not run. */
Test(protocol, extra_words_are_refused)
{
    static const char *const CMDS[] = {"uci", "isready", "ucinewgame", "stop", "ponderhit", "d", "eval", "tbprobe",
                                       "quit"};
    start_engine();
    expect_silent("position startpos moves C3");
    for (size_t i = 0; i < sizeof CMDS / sizeof CMDS[0]; i++) {
        char cmd[64], want[160];
        snprintf(cmd, sizeof cmd, "%s please now", CMDS[i]);
        snprintf(want, sizeof want, "info string error: %s takes no arguments: 'please' and what follows are not understood",
                 CMDS[i]);
        expect_exactly(cmd, want);
    }
    /* ucinewgame did not run and quit did not quit: the game is still there. */
    cr_assert_str_eq(display().obx, "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1");
    expect_exactly("bench 1 2", "info string error: bench takes an optional depth from 1 to 127");
    expect_exactly("go perft 2 3", "info string error: go perft needs a depth from 1 to 64");
}

/* Lets a sanitized engine see a failed allocation as NULL, as the plain one does, instead of
 * ending on it: the engine checks every allocation. */
static void allocations_may_fail(void)
{
    static const char *const VARS[] = {"ASAN_OPTIONS", "TSAN_OPTIONS"};
    for (size_t i = 0; i < sizeof VARS / sizeof VARS[0]; i++) {
        const char *old = getenv(VARS[i]);
        char buf[512];
        snprintf(buf, sizeof buf, "%s%sallocator_may_return_null=1", old ? old : "", old && *old ? ":" : "");
        setenv(VARS[i], buf, 1);
    }
}

/* Numbers of any size are numbers: beyond the range they are clamped, with one line saying so. */
Test(protocol, numbers_beyond_64_bits_are_clamped)
{
    allocations_may_fail();
    start_engine();
    expect_exactly("setoption name MultiPV value 99999999999999999999",
                   "info string MultiPV 99999999999999999999 is out of range, using 64");
    expect_exactly("setoption name Move Overhead value -99999999999999999999",
                   "info string Move Overhead -99999999999999999999 is out of range, using 0");
    expect_exactly("setoption name Threads value 5000000000000000000",
                   "info string Threads 5000000000000000000 is out of range, using 256");
    expect_silent("setoption name Threads value 1");
    expect_silent("setoption name MultiPV value 1");
    /* Hash: the table is a power of two of MB; other sizes say what they became. */
    expect_exactly("setoption name Hash value 3", "info string Hash 3 MB is not a power of two: using 2 MB");
    expect_exactly("setoption name Hash value 48", "info string Hash 48 MB is not a power of two: using 32 MB");
    expect_silent("setoption name Hash value 16");
    pipe_lines_t out = {0};
    exchange(&out, "setoption name Hash value 99999999999999999999");
    cr_assert_eq(out.count, 1, "Hash 99999999999999999999 printed %zu lines", out.count);
    cr_assert(strcmp(out.line[0], "info string Hash 99999999999999999999 is out of range, using 65536") == 0 ||
                  strcmp(out.line[0], "info string error: not enough memory for Hash 65536 MB; keeping 16 MB") == 0,
              "'%s'", out.line[0]);
    pipe_lines_free(&out);
    expect_silent("setoption name Hash value 16");
    /* go: depth and nodes beyond 64 bits are the largest values. */
    send_line("go depth 99999999999999999999 nodes 3000");
    char *line;
    cr_assert_eq(pipe_read_until(eng, "bestmove ", REPLY_MS, &out, &line), PIPE_LINE, "no bestmove");
    for (size_t i = 0; i < out.count; i++)
        cr_assert(strncmp(out.line[i], "info string", 11) != 0, "'%s'", out.line[i]);
    pipe_lines_free(&out);
    send_line("go nodes 99999999999999999999 depth 3");
    cr_assert_eq(pipe_read_until(eng, "bestmove ", REPLY_MS, &out, &line), PIPE_LINE, "no bestmove");
    cr_assert_gt(out.count, 0);
    cr_assert(strncmp(out.line[out.count - 1], "info depth 3 ", 13) == 0, "'%s'", out.line[out.count - 1]);
    pipe_lines_free(&out);
}

/* Tigers to move with five goats captured: no game gets there (the fifth capture leaves the
 * goats to move), so the position is refused rather than reported as a win in 0. */
Test(protocol, tigers_to_move_after_the_fifth_capture_is_refused)
{
    start_engine();
    expect_silent("position startpos moves C3");
    expect_exactly("position obx TGGGT/GGGGG/GGXGG/GGGXX/TXXXT t @0 c5",
                   "info string error: invalid OBX: tigers to move with five goats captured cannot occur (the fifth "
                   "capture ends the game with the goats to move)");
    cr_assert_str_eq(display().obx, "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1");
    expect_silent("position obx TGGGT/GGGGG/GGXGG/GGGXX/TXXXT g @0 c5");
    cr_assert_str_eq(display().result, "tigers win: five goats captured");
}

/* Lines of many words are taken in time linear in their length: a setoption value or an OBX
 * of 200,000 words is refused as quickly as a short one, and isready answers right after. */
Test(protocol, many_words_are_taken_in_linear_time)
{
    enum { WORDS = 200000 };
    static const char *const HEADS[] = {"setoption name TablebasePath value", "position obx"};
    start_engine();
    for (size_t h = 0; h < sizeof HEADS / sizeof HEADS[0]; h++) {
        size_t len = strlen(HEADS[h]) + (size_t)WORDS * 5 + 2;
        char *line = malloc(len), *end = line;
        cr_assert_not_null(line);
        end += sprintf(end, "%s", HEADS[h]);
        for (int i = 0; i < WORDS; i++)
            end += sprintf(end, " abcd");
        *end++ = '\n';
        double sent = pipe_now_ms();
        cr_assert_eq(pipe_write(eng, line, (size_t)(end - line)), 0);
        free(line);
        pipe_lines_t out = {0};
        sync_collect(&out);
        double ms = pipe_line_at(eng) - sent;
        cr_assert_eq(out.count, 1, "'%s ...' printed %zu lines", HEADS[h], out.count);
        cr_assert(strncmp(out.line[0], "info string error: ", 19) == 0, "'%.80s'", out.line[0]);
        cr_assert_leq(ms, 2000, "'%s' with %d words: readyok after %.0f ms", HEADS[h], WORDS, ms);
        pipe_lines_free(&out);
    }
}

/* Text echoed from the input in an error line is printed as it came when it is printable
 * ASCII or well-formed UTF-8; control characters (C0, DEL, C1), invisible marks and bytes
 * outside well-formed UTF-8 are written \\xHH, so a GUI's log or terminal never receives them. */
Test(protocol, error_lines_escape_what_is_not_printable)
{
    start_engine();
    char *err = expect_one_error("foo\x1b[31m\x07\xc3\xa9\xff");
    cr_assert_str_eq(err, "info string error: unknown command 'foo\\x1B[31m\\x07\xc3\xa9\\xFF'");
    free(err);
    /* Letters of every length of UTF-8 pass; overlong forms, surrogates, code points past
     * U+10FFFF, cut sequences, C1 controls, a right-to-left override, a zero-width space and a
     * byte-order mark do not. */
    err = expect_one_error("\xc3\xa9\xe0\xa4\x95\xf0\x9f\x90\xaf|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xe2\x82|"
                           "\xc2\x85|\xe2\x80\xae|\xe2\x80\x8b|\xef\xbb\xbf|\xc2\xa0");
    cr_assert_str_eq(err, "info string error: unknown command '\xc3\xa9\xe0\xa4\x95\xf0\x9f\x90\xaf|\\xC0\\xAF|"
                          "\\xED\\xA0\\x80|\\xF4\\x90\\x80\\x80|\\xE2\\x82|\\xC2\\x85|\\xE2\\x80\\xAE|"
                          "\\xE2\\x80\\x8B|\\xEF\\xBB\\xBF|\xc2\xa0'");
    free(err);
    err = expect_one_error("setoption name Hash\x1b value 1");
    cr_assert_str_eq(err, "info string error: unknown option 'Hash\\x1B'");
    free(err);
    err = expect_one_error("position startpos moves C3 \x7f");
    cr_assert_str_eq(err, "info string error: move 2 '\\x7F': '\\x7F' is not a move: expected a point like C3, or "
                          "two like A1B2");
    free(err);
    /* A line that is all printable is shown as it came, backslashes included. */
    err = expect_one_error("x\\y");
    cr_assert_str_eq(err, "info string error: unknown command 'x\\y'");
    free(err);
}

/* A UTF-8 byte-order mark before the first command is not part of it; anywhere else it is. */
Test(protocol, a_byte_order_mark_before_the_first_command_is_ignored)
{
    start_engine();
    send_raw("\xEF\xBB\xBFisready\n");
    char *line;
    cr_assert_eq(pipe_read_line(eng, REPLY_MS, &line), PIPE_LINE, "no answer to the first command");
    cr_assert_str_eq(line, "readyok");
    char *err = expect_one_error("\xEF\xBB\xBFisready");
    cr_assert_str_eq(err, "info string error: unknown command '\\xEF\\xBB\\xBFisready'");
    free(err);
    pipe_free(eng);
    eng = NULL;
    /* Also when the first line holds only the mark. */
    start_engine();
    send_raw("\xEF\xBB\xBF\r\nuci\n");
    cr_assert_eq(pipe_read_until(eng, "uciok", REPLY_MS, NULL, &line), PIPE_LINE);
    pipe_lines_t out = {0};
    sync_collect(&out);
    cr_assert_eq(out.count, 0, "'%s'", out.count ? out.line[0] : "");
    pipe_lines_free(&out);
}

/* ---- option values round-trip ---- */


/* Makes a fresh folder under a home whose name is not ASCII and points XDG_DATA_HOME at it;
 * returns the standard folder the engine will name (XDG_DATA_HOME/baghchal), not yet made. */
static char *utf8_data_home(char *home, size_t cap)
{
    snprintf(data_top, sizeof data_top, "/tmp/baghchal-utf8-XXXXXX");
    cr_assert_not_null(mkdtemp(data_top), "mkdtemp: %s", strerror(errno));
    snprintf(home, cap, "%s/jos\xc3\xa9", data_top);
    cr_assert_eq(mkdir(home, 0700), 0, "%s: %s", home, strerror(errno));
    cr_assert_eq(setenv("XDG_DATA_HOME", home, 1), 0);
    cr_assert_eq(unsetenv("BAGHCHAL_TABLEBASE_PATH"), 0);
    size_t n = strlen(home);
    cr_assert_lt(n + 10, cap);
    memcpy(home + n, "/baghchal", 10);
    return home;
}

static void remove_data_home(void)
{
    if (!data_top[0])
        return;
    static const char *const below[] = {"/jos\xc3\xa9/baghchal/" TB_FILE_NAME, "/jos\xc3\xa9/baghchal",
                                        "/jos\xc3\xa9", ""};
    for (size_t i = 0; i < sizeof below / sizeof *below; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s%s", data_top, below[i]);
        if (i == 0)
            unlink(path);
        else
            rmdir(path);
    }
    data_top[0] = '\0';
}

/* With XDG_DATA_HOME under /tmp/.../jos<e-acute>, uci shows the standard folder in UTF-8 as it
 * is, and the value a GUI sends back from that line names the same folder: it loads. */
Test(protocol, a_utf8_option_default_round_trips)
{
    char home[512];
    const char *std_dir = utf8_data_home(home, sizeof home);
    const char *db = tree_database_dir();
    if (db) {
        cr_assert_eq(mkdir(std_dir, 0700), 0, "%s: %s", std_dir, strerror(errno));
        char from[1024], to[1024];
        snprintf(from, sizeof from, "%s/%s", db, TB_FILE_NAME);
        snprintf(to, sizeof to, "%s/%s", std_dir, TB_FILE_NAME);
        /* A hard link where the file system allows it, else a symbolic one. */
        if (link(from, to) != 0)
            cr_assert_eq(symlink(from, to), 0, "linking %s: %s", to, strerror(errno));
    }
    start_engine();
    send_line("uci");
    pipe_lines_t out = {0};
    char *line;
    cr_assert_eq(pipe_read_until(eng, "uciok", REPLY_MS, &out, &line), PIPE_LINE);
    const char *shown = NULL;
    for (size_t i = 0; i < out.count; i++)
        if (strncmp(out.line[i], "option name TablebasePath type string default ", 46) == 0)
            shown = out.line[i] + 46;
    cr_assert_not_null(shown, "no TablebasePath option line");
    cr_assert_str_eq(shown, std_dir, "the default is shown as '%s'", shown);
    /* A GUI sends the value back as it was shown. */
    pipe_lines_t answer = {0};
    exchange(&answer, "setoption name TablebasePath value %s", shown);
    if (db) {
        cr_assert_eq(answer.count, 1, "%zu lines", answer.count);
        char want[600];
        snprintf(want, sizeof want, "info string tablebase loaded from %s", std_dir);
        cr_assert_str_eq(answer.line[0], want);
    } else {
        /* No database to load: the error names the folder as it was given, in UTF-8, and the
         * standard folder (the same one) is still the default, which the isready says is empty. */
        cr_assert_eq(answer.count, 2, "%zu lines", answer.count);
        cr_assert(strstr(answer.line[0], "jos\xc3\xa9/baghchal/" TB_FILE_NAME ": ") != NULL, "'%s'", answer.line[0]);
        char want[600];
        snprintf(want, sizeof want, "info string no tablebase in %s (baghchal-tbgen builds it there)", std_dir);
        cr_assert_str_eq(answer.line[1], want);
    }
    pipe_lines_free(&answer);
    pipe_lines_free(&out);
}

/* A TablebasePath that fails changes nothing, like every refused command: before the first
 * isready the standard folder is still loaded (or said to be empty) there. */
Test(protocol, a_failed_tablebase_path_keeps_the_standard_folder)
{
    char home[512];
    const char *std_dir = utf8_data_home(home, sizeof home);
    start_engine();
    send_line("setoption name TablebasePath value /nonexistent/baghchal-folder");
    char *line;
    cr_assert_eq(pipe_read_line(eng, REPLY_MS, &line), PIPE_LINE);
    cr_assert(strncmp(line, "info string error: tablebase not loaded: ", 41) == 0, "'%s'", line);
    /* No database there: the first isready says so, in UTF-8. */
    pipe_lines_t out = {0};
    sync_collect(&out);
    cr_assert_eq(out.count, 1, "the first isready printed %zu lines before readyok", out.count);
    char want[700];
    snprintf(want, sizeof want, "info string no tablebase in %s (baghchal-tbgen builds it there)", std_dir);
    cr_assert_str_eq(out.line[0], want);
    pipe_lines_free(&out);
    /* One that succeeds (<empty>: none) replaces the default. */
    pipe_free(eng);
    eng = NULL;
    start_engine();
    expect_silent("setoption name TablebasePath value <empty>");
    expect_silent("isready");
}

/* ---- help and version ---- */

static void one_shot_lines(char *arg, pipe_lines_t *out)
{
    char *argv[] = {(char *)ENGINE, arg, NULL};
    eng = pipe_start(argv, 0);
    cr_assert_not_null(eng);
    pipe_exit_t e = pipe_wait(eng, EXIT_MS);
    cr_assert(e.exited && e.code == 0, "%s: code %d, signal %d, killed %d", arg, e.code, e.signal, e.killed);
    char *line;
    cr_assert_eq(pipe_read_until(eng, "\x01", 0, out, &line), PIPE_EOF);
    pipe_free(eng);
    eng = NULL;
}

Test(protocol, help_and_version)
{
    pipe_lines_t version = {0}, help = {0};
    one_shot_lines("--version", &version);
    cr_assert_eq(version.count, 1);
    cr_assert_str_eq(version.line[0], "baghchal " BAGHCHAL_VERSION);
    one_shot_lines("--help", &help);
    cr_assert_geq(help.count, 4, "--help printed %zu lines", help.count);
    cr_assert(strncmp(help.line[0], "baghchal " BAGHCHAL_VERSION ": ", 11) == 0, "'%s'", help.line[0]);
    bool commands = false, doc = false;
    for (size_t i = 0; i < help.count; i++) {
        commands |= strstr(help.line[i], "isready") && strstr(help.line[i], "setoption");
        doc |= strstr(help.line[i], "PROTOCOL.md") != NULL;
    }
    cr_assert(commands && doc, "--help names neither the commands nor PROTOCOL.md");
    /* In the loop: help prints the same, and like every command word it takes nothing more. */
    start_engine();
    pipe_lines_t loop = {0};
    exchange(&loop, "help");
    cr_assert_eq(loop.count, help.count);
    for (size_t i = 0; i < help.count; i++)
        cr_assert_str_eq(loop.line[i], help.line[i]);
    pipe_lines_free(&loop);
    free(expect_one_error("help me"));
    free(expect_one_error("--version 2"));
    char *argv[] = {(char *)ENGINE, "--help", "me", NULL};
    pipe_proc_t *p = pipe_start(argv, 0);
    cr_assert_not_null(p);
    pipe_exit_t e = pipe_wait(p, EXIT_MS);
    cr_assert(e.exited && e.code == 1, "--help me: code %d", e.code);
    pipe_free(p);
    pipe_lines_free(&version);
    pipe_lines_free(&help);
}

/* ---- a perft too deep to finish ---- */

/* go perft runs on a thread of its own like a search: isready is answered meanwhile, options
 * wait, and stop, go, ucinewgame, quit and end of input end it at once. */
Test(protocol, a_deep_perft_can_be_stopped)
{
    start_engine();
    char *line;
    /* stop, after an isready answered during the count */
    send_line("go perft 100");
    cr_assert_eq(pipe_read_line(eng, REPLY_MS, &line), PIPE_LINE);
    cr_assert_str_eq(line, "info string perft depth 100 is out of range, using 64");
    send_line("isready");
    cr_assert_eq(pipe_read_line(eng, REPLY_MS, &line), PIPE_LINE);
    cr_assert_str_eq(line, "readyok");
    char *err = expect_one_error("setoption name Hash value 1");
    cr_assert_str_eq(err, "info string error: cannot change Hash while searching");
    free(err);
    err = expect_one_error("go perft 3");
    cr_assert_str_eq(err, "info string error: cannot run perft while searching");
    free(err);
    send_line("stop");
    double sent = pipe_sent_at(eng);
    cr_assert_eq(pipe_read_line(eng, REPLY_MS, &line), PIPE_LINE);
    cr_assert_str_eq(line, "info string perft stopped after 0 of 21 moves");
    cr_assert_lt(pipe_line_at(eng) - sent, PROMPT_EXIT_MS, "stop took %.0f ms", pipe_line_at(eng) - sent);
    expect_silent("setoption name Hash value 1");
    /* go: the perft ends, then the search runs */
    send_line("go perft 64");
    send_line("go depth 2");
    cr_assert_eq(pipe_read_line(eng, REPLY_MS, &line), PIPE_LINE);
    cr_assert_str_eq(line, "info string perft stopped after 0 of 21 moves");
    cr_assert_eq(pipe_read_until(eng, "bestmove ", REPLY_MS, NULL, &line), PIPE_LINE);
    /* a finished perft is not stopped: its count stands */
    pipe_lines_t out = {0};
    perft_exchange(&out, "go perft 2");
    cr_assert_str_eq(out.line[out.count - 1], "Nodes searched: 252");
    pipe_lines_free(&out);
    expect_silent("stop");
    /* quit */
    send_line("go perft 64");
    send_line("quit");
    pipe_exit_t e = pipe_wait(eng, EXIT_MS);
    cr_assert(!e.killed && e.exited && e.code == 0, "quit during perft: code %d, killed %d", e.code, e.killed);
    cr_assert_lt(e.ms, PROMPT_EXIT_MS, "quit during perft took %.0f ms", e.ms);
    pipe_free(eng);
    /* end of input lets a perft finish, as a script that pipes it expects */
    start_engine();
    send_line("go perft 3");
    e = pipe_finish(eng, EXIT_MS);
    cr_assert(!e.killed && e.exited && e.code == 0, "end of input during perft: code %d, killed %d", e.code, e.killed);
    pipe_lines_t rest = {0};
    cr_assert_eq(pipe_read_until(eng, "\x01never", 0, &rest, &line), PIPE_EOF);
    cr_assert_eq(rest.count, 23, "a perft at the end of input printed %zu lines", rest.count);
    cr_assert_str_eq(rest.line[22], "Nodes searched: 5052");
    pipe_lines_free(&rest);
}

/* End of input is quit once what ends by itself has ended: a piped go with a limit keeps its
 * whole time (the issue of scripts that write their commands and close the pipe), a search
 * that would never end is stopped at once. */
Test(protocol, end_of_input_lets_a_limited_search_finish)
{
    start_engine();
    send_raw("setoption name Hash value 64\nisready\nposition startpos moves C3\ngo movetime 600\n");
    double sent = pipe_sent_at(eng);
    pipe_exit_t e = pipe_finish(eng, EXIT_MS);
    cr_assert(!e.killed && e.exited && e.code == 0, "end of input during go movetime: code %d, killed %d", e.code,
              e.killed);
    pipe_lines_t out = {0};
    char *line;
    cr_assert_eq(pipe_read_until(eng, "\x01never", 0, &out, &line), PIPE_EOF);
    cr_assert_geq(out.count, 3, "only %zu lines", out.count);
    cr_assert_str_eq(out.line[0], "readyok");
    cr_assert_eq(strncmp(out.line[out.count - 1], "bestmove ", 9), 0, "last line '%s'", out.line[out.count - 1]);
    const char *t = strstr(out.line[out.count - 2], " time ");
    cr_assert_not_null(t, "no time in '%s'", out.line[out.count - 2]);
    cr_assert_geq(atol(t + 6), 500, "the search stopped early: '%s'", out.line[out.count - 2]);
    cr_assert_geq(pipe_now_ms() - sent, 550.0, "exited %.0f ms after the go", pipe_now_ms() - sent);
    pipe_lines_free(&out);
    pipe_free(eng);

    /* go depth: the depth is reached */
    start_engine();
    send_raw("position startpos\ngo depth 4\n");
    e = pipe_finish(eng, EXIT_MS);
    cr_assert(!e.killed && e.exited && e.code == 0);
    out = (pipe_lines_t){0};
    cr_assert_eq(pipe_read_until(eng, "\x01never", 0, &out, &line), PIPE_EOF);
    bool depth4 = false;
    for (size_t i = 0; i < out.count; i++)
        depth4 |= strncmp(out.line[i], "info depth 4 ", 13) == 0;
    cr_assert(depth4, "no depth 4 line before the end");
    cr_assert_eq(strncmp(out.line[out.count - 1], "bestmove ", 9), 0);
    pipe_lines_free(&out);
    pipe_free(eng);

    /* go infinite: stopped at once, with its bestmove */
    start_engine();
    send_raw("position startpos\ngo infinite\n");
    e = pipe_finish(eng, EXIT_MS);
    cr_assert(!e.killed && e.exited && e.code == 0);
    cr_assert_lt(e.ms, PROMPT_EXIT_MS, "end of input during go infinite took %.0f ms", e.ms);
    out = (pipe_lines_t){0};
    cr_assert_eq(pipe_read_until(eng, "\x01never", 0, &out, &line), PIPE_EOF);
    cr_assert_geq(out.count, 1);
    cr_assert_eq(strncmp(out.line[out.count - 1], "bestmove ", 9), 0);
    pipe_lines_free(&out);
}
