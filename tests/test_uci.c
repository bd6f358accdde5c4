/* The thinking engine over pipes: option lines, go with every limit, the timing of isready,
 * stop, clocks and pondering, one bestmove per go, legal bestmoves and PVs checked with the
 * library, the syntax of info lines, mate scores, MultiPV, eval and bench. */
#include <criterion/criterion.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "baghchal.h"
#include "pipe.h"
#include "tree.h"

#define ENGINE BAGHCHAL_BIN_DIR "/baghchal"

/* The timing limits are the release build's. Sanitizers (and an unoptimised build) slow
 * everything down: there the limits are multiplied, the functional checks stay. The test
 * itself may be built without a sanitizer while the engine it drives has one (the
 * ThreadSanitizer build instruments only the programs), so the engine is looked at too. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UCI_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UCI_SANITIZED 1
#endif
#endif
#ifndef UCI_SANITIZED
#define UCI_SANITIZED 0
#endif
#if UCI_SANITIZED
#define COMPILED_SLOW 10
#elif !defined(__OPTIMIZE__)
#define COMPILED_SLOW 3
#else
#define COMPILED_SLOW 1
#endif

/* Does the file contain the bytes of s? */
static bool file_contains(const char *path, const char *s)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t n = strlen(s), have = 0, cap = 1 << 16;
    char *buf = malloc(cap + n);
    bool found = false;
    while (buf && !found) {
        size_t got = fread(buf + have, 1, cap, f);
        if (got == 0)
            break;
        have += got;
        for (size_t i = 0; i + n <= have && !found; i++)
            found = memcmp(buf + i, s, n) == 0;
        /* Keep the last n - 1 bytes: a match may straddle two reads. */
        size_t keep = have < n ? have : n - 1;
        memmove(buf, buf + have - keep, keep);
        have = keep;
    }
    free(buf);
    fclose(f);
    return found;
}

static int slow_factor(void)
{
    static int factor;
    if (!factor) {
        factor = COMPILED_SLOW;
        if (file_contains(ENGINE, "__tsan_init") || file_contains(ENGINE, "__asan_init"))
            factor = 10;
    }
    return factor;
}

#define SLOW slow_factor()
#define REPLY_MS (5000 * SLOW)      /* an answer that does not depend on timing */
#define LATENCY_MS (50 * SLOW)      /* readyok during a search, bestmove after stop */
#define TIMED_SLACK_MS (30 * SLOW)  /* a timed search may end this late */
enum {
    QUIET_MS = 300,   /* how long silence is awaited */
    OVERHEAD_MS = 30  /* the default Move Overhead */
};

static pipe_proc_t *eng;

static void teardown(void)
{
    pipe_free(eng);
    eng = NULL;
}

TestSuite(uci, .fini = teardown, .timeout = 300);

static void start_engine(void)
{
    char *argv[] = {(char *)ENGINE, NULL};
    eng = pipe_start(argv, PIPE_KEEP_STDERR);
    cr_assert_not_null(eng, "cannot start %s: %s", ENGINE, strerror(errno));
}

/* Ends the engine with end of input: it exits with status 0 (a sanitizer report in the
 * engine changes the status, and the report itself goes to the test's error output). */
static void finish_engine(void)
{
    pipe_exit_t e = pipe_finish(eng, REPLY_MS);
    cr_assert(!e.killed, "the engine did not exit at end of input");
    cr_assert(e.exited && e.code == 0, "the engine ended with code %d, signal %d", e.code, e.signal);
}

static void send_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void send_line(const char *fmt, ...)
{
    char buf[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cr_assert(n >= 0 && (size_t)n < sizeof buf, "command too long");
    cr_assert_eq(pipe_send(eng, "%s", buf), 0, "sending '%.60s': %s", buf, strerror(errno));
}

static void send_raw(const char *bytes)
{
    cr_assert_eq(pipe_write(eng, bytes, strlen(bytes)), 0, "writing '%.60s': %s", bytes, strerror(errno));
}

static bool starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* isready, then every line printed before readyok. */
static void sync_collect(pipe_lines_t *out)
{
    char *line;
    send_line("isready");
    pipe_status_t s = pipe_read_until(eng, "readyok", REPLY_MS, out, &line);
    cr_assert_eq(s, PIPE_LINE, "no readyok: %s", pipe_status_name(s));
    cr_assert_str_eq(line, "readyok");
}

/* The command prints nothing at all. */
static void expect_silent(const char *cmd)
{
    pipe_lines_t out = {0};
    send_line("%s", cmd);
    sync_collect(&out);
    cr_assert_eq(out.count, 0, "'%.60s' printed '%s'", cmd, out.count ? out.line[0] : "");
    pipe_lines_free(&out);
}

/* The command prints exactly `want`. */
static void expect_one_line(const char *cmd, const char *want)
{
    pipe_lines_t out = {0};
    send_line("%s", cmd);
    sync_collect(&out);
    cr_assert_eq(out.count, 1, "'%.60s' printed %zu lines, expected '%s'", cmd, out.count, want);
    cr_assert_str_eq(out.line[0], want, "after '%.60s'", cmd);
    pipe_lines_free(&out);
}

/* Nothing more arrives within QUIET_MS. */
static void expect_quiet(const char *after)
{
    char *line;
    pipe_status_t s = pipe_read_line(eng, QUIET_MS, &line);
    cr_assert_eq(s, PIPE_TIMEOUT, "unexpected output after %s (%s): '%s'", after, pipe_status_name(s),
                 line ? line : "");
}

/* Commands sent right after a bestmove are checked by
 * options_and_commands_work_right_after_bestmove. Elsewhere the search thread gets a moment to
 * wind down first, so that one fault there does not fail every test that changes an option
 * after a search. */
static void settle(void)
{
    long ms = 50L * SLOW;
    struct timespec ts = {ms / 1000, ms % 1000 * 1000000};
    nanosleep(&ts, NULL);
}

/* ---- info and bestmove lines ---- */

typedef struct {
    int depth, seldepth, multipv;
    bool mate;
    long long score;
    int bound; /* BOUND_EXACT, BOUND_LOWER or BOUND_UPPER */
    unsigned long long nodes, nps, hashfull, tbhits;
    long long time;
    int pv_len;
    char pv[MAX_PLY][MOVE_TEXT_LEN];
} info_t;

static bool parse_unsigned(const char *s, unsigned long long *v)
{
    if (!*s || (s[0] == '0' && s[1]))
        return false;
    unsigned long long x = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        x = x * 10 + (unsigned)(*s - '0');
    }
    *v = x;
    return true;
}

static bool parse_signed(const char *s, long long *v)
{
    unsigned long long u;
    bool neg = *s == '-';
    if (!parse_unsigned(s + neg, &u) || (neg && u == 0))
        return false; /* "-0" is not a number the protocol writes */
    *v = neg ? -(long long)u : (long long)u;
    return true;
}

/* Upper case canonical move text: C3 or A1B2. */
static bool is_move_text(const char *s)
{
    size_t n = strlen(s);
    if (n != 2 && n != 4)
        return false;
    for (size_t i = 0; i < n; i += 2)
        if (s[i] < 'A' || s[i] > 'E' || s[i + 1] < '1' || s[i + 1] > '5')
            return false;
    return true;
}

/* Reads `info depth D seldepth S multipv K score cp X|mate N [lowerbound|upperbound] nodes N
 * nps N hashfull N [tbhits N] time T pv M...` with single spaces, in exactly this order.
 * Returns NULL, or what is wrong. */
static const char *parse_info(const char *line, info_t *in)
{
    char buf[2048], *w[MAX_PLY + 32];
    int n = 0, i = 0;
    unsigned long long u;
    memset(in, 0, sizeof *in);
    if (strlen(line) >= sizeof buf)
        return "line too long";
    if (strstr(line, "  ") || strchr(line, '\t') || strchr(line, '\r') || line[0] == ' ' ||
        line[strlen(line) - 1] == ' ')
        return "fields are not separated by single spaces";
    strcpy(buf, line);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (n == MAX_PLY + 32)
            return "too many words";
        w[n++] = t;
    }
#define NEXT_IS(word) (i < n && strcmp(w[i], word) == 0)
    if (!NEXT_IS("info"))
        return "does not start with info";
    i++;
    if (!NEXT_IS("depth") || i + 1 >= n || !parse_unsigned(w[i + 1], &u) || u < 1 || u > 127)
        return "no 'depth D' (1..127) after info";
    in->depth = (int)u;
    i += 2;
    if (!NEXT_IS("seldepth") || i + 1 >= n || !parse_unsigned(w[i + 1], &u) || u < 1)
        return "no 'seldepth S' after depth";
    in->seldepth = (int)u;
    i += 2;
    if (!NEXT_IS("multipv") || i + 1 >= n || !parse_unsigned(w[i + 1], &u) || u < 1 || u > MAX_MULTIPV)
        return "no 'multipv K' after seldepth";
    in->multipv = (int)u;
    i += 2;
    if (!NEXT_IS("score") || i + 2 >= n)
        return "no 'score' after multipv";
    i++;
    if (NEXT_IS("cp"))
        in->mate = false;
    else if (NEXT_IS("mate"))
        in->mate = true;
    else
        return "score is neither cp nor mate";
    if (!parse_signed(w[i + 1], &in->score))
        return "score value is not an integer";
    if (in->mate && in->score == 0)
        return "mate 0 during a search";
    i += 2;
    in->bound = BOUND_EXACT;
    if (NEXT_IS("lowerbound")) {
        in->bound = BOUND_LOWER;
        i++;
    } else if (NEXT_IS("upperbound")) {
        in->bound = BOUND_UPPER;
        i++;
    }
    if (!NEXT_IS("nodes") || i + 1 >= n || !parse_unsigned(w[i + 1], &in->nodes))
        return "no 'nodes N' after the score";
    i += 2;
    if (!NEXT_IS("nps") || i + 1 >= n || !parse_unsigned(w[i + 1], &in->nps))
        return "no 'nps N' after nodes";
    i += 2;
    if (!NEXT_IS("hashfull") || i + 1 >= n || !parse_unsigned(w[i + 1], &in->hashfull) || in->hashfull > 1000)
        return "no 'hashfull N' (0..1000) after nps";
    i += 2;
    if (NEXT_IS("tbhits")) {
        if (i + 1 >= n || !parse_unsigned(w[i + 1], &in->tbhits))
            return "bad tbhits";
        i += 2;
    }
    if (!NEXT_IS("time") || i + 1 >= n || !parse_unsigned(w[i + 1], &u))
        return "no 'time T' after hashfull";
    in->time = (long long)u;
    i += 2;
    if (!NEXT_IS("pv"))
        return "no 'pv' after time";
    i++;
    if (i >= n)
        return "empty pv";
    for (; i < n; i++) {
        if (!is_move_text(w[i]))
            return "a pv word is not an upper case move";
        if (in->pv_len == MAX_PLY)
            return "pv longer than MAX_PLY";
        strcpy(in->pv[in->pv_len++], w[i]);
    }
#undef NEXT_IS
    return NULL;
}

typedef struct {
    char best[MOVE_TEXT_LEN], ponder[MOVE_TEXT_LEN]; /* ponder "" when absent */
} best_t;

static void parse_bestmove(const char *line, best_t *b)
{
    char x[64], y[64], z[64];
    int end = 0;
    memset(b, 0, sizeof *b);
    cr_assert(!strstr(line, "  ") && !strchr(line, '\r') && line[strlen(line) - 1] != ' ', "bad spacing in '%s'",
              line);
    if (sscanf(line, "bestmove %63s ponder %63s%n", x, y, &end) == 2 && line[end] == '\0') {
        cr_assert(is_move_text(x) && is_move_text(y), "bad bestmove line '%s'", line);
        strcpy(b->best, x);
        strcpy(b->ponder, y);
        return;
    }
    end = 0;
    cr_assert(sscanf(line, "bestmove %63s%n %63s", x, &end, z) == 1 && line[end] == '\0', "bad bestmove line '%s'",
              line);
    cr_assert(is_move_text(x) || strcmp(x, "(none)") == 0, "bad bestmove line '%s'", line);
    strcpy(b->best, x);
}

/* Everything one go printed, up to and including its bestmove. */
typedef struct {
    pipe_lines_t lines; /* before bestmove */
    int ninfo;
    info_t *info; /* the search info lines, in order */
    int nstrings; /* info string lines */
    char bestline[256];
    best_t best;
    double sent_at, best_at;
} go_t;

static void go_free(go_t *g)
{
    pipe_lines_free(&g->lines);
    free(g->info);
    memset(g, 0, sizeof *g);
}

static const info_t *go_last(const go_t *g)
{
    cr_assert_gt(g->ninfo, 0, "no info line before '%s'", g->bestline);
    return &g->info[g->ninfo - 1];
}

/* Reads up to the bestmove of a go sent at sent_at; every line on the way is checked. */
static void collect_go(go_t *g, double sent_at, int timeout_ms)
{
    char *line;
    memset(g, 0, sizeof *g);
    g->sent_at = sent_at;
    pipe_status_t s = pipe_read_until(eng, "bestmove", timeout_ms, &g->lines, &line);
    cr_assert_eq(s, PIPE_LINE, "no bestmove within %d ms (%s); %zu lines before", timeout_ms, pipe_status_name(s),
                 g->lines.count);
    g->best_at = pipe_line_at(eng);
    snprintf(g->bestline, sizeof g->bestline, "%s", line);
    parse_bestmove(g->bestline, &g->best);
    g->info = calloc(g->lines.count + 1, sizeof *g->info);
    cr_assert_not_null(g->info);
    for (size_t i = 0; i < g->lines.count; i++) {
        const char *l = g->lines.line[i];
        if (strcmp(l, "readyok") == 0) {
            continue; /* an isready sent during the search */
        } else if (starts_with(l, "info string ")) {
            g->nstrings++;
        } else if (starts_with(l, "info depth 0 ")) {
            /* The score line of a finished game, checked by its tests; only there. */
            cr_assert_str_eq(g->bestline, "bestmove (none)", "'%s' before a bestmove", l);
        } else {
            const char *why = parse_info(l, &g->info[g->ninfo]);
            cr_assert_null(why, "'%s': %s", l, why);
            g->ninfo++;
        }
    }
}

static void run_go(go_t *g, int timeout_ms, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void run_go(go_t *g, int timeout_ms, const char *fmt, ...)
{
    char cmd[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    send_line("%s", cmd);
    collect_go(g, pipe_sent_at(eng), timeout_ms);
}

static double go_ms(const go_t *g) { return g->best_at - g->sent_at; }

/* What holds for every search: the first pv move of the last info is the bestmove, the
 * iterations go deeper, the node and time counts never go back. */
static void check_go_shape(const go_t *g)
{
    const info_t *last = go_last(g);
    cr_assert_str_eq(last->pv[0], g->best.best, "the last info's pv starts with %s, bestmove is %s", last->pv[0],
                     g->best.best);
    cr_assert_eq(last->multipv, 1, "the last info before bestmove is multipv %d", last->multipv);
    for (int i = 1; i < g->ninfo; i++) {
        const info_t *a = &g->info[i - 1], *b = &g->info[i];
        cr_assert_geq(b->depth, a->depth, "depth went from %d back to %d", a->depth, b->depth);
        cr_assert_geq(b->nodes, a->nodes, "nodes went from %llu back to %llu", a->nodes, b->nodes);
        cr_assert_geq(b->time, a->time, "time went from %lld back to %lld", a->time, b->time);
    }
}

/* ---- games built with the library ---- */

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

static void game_clone(const game_t *src, game_t *dst) { cr_assert(game_copy(dst, src)); }

static void play_text(game_t *g, const char *text)
{
    char msg[256];
    cr_assert_eq(game_play_text(g, text, msg, sizeof msg), BC_OK, "%s: %s", text, msg);
}

/* The position command that sets g: its start as OBX and its moves. */
static void position_command(const game_t *g, char *buf, size_t cap)
{
    char obx[OBX_MAX_LEN];
    obx_format(&g->history[0], &g->start_meta, OBX_V2, obx, sizeof obx);
    size_t len = (size_t)snprintf(buf, cap, "position obx %s", obx);
    if (g->count)
        len += (size_t)snprintf(buf + len, cap - len, " moves");
    for (size_t i = 0; i < g->count; i++) {
        char t[MOVE_TEXT_LEN];
        move_format(g->moves[i], t);
        len += (size_t)snprintf(buf + len, cap - len, " %s", t);
    }
    cr_assert_lt(len, cap, "position command too long");
}

static void set_game(const game_t *g)
{
    char *cmd = malloc(16384);
    cr_assert_not_null(cmd);
    position_command(g, cmd, 16384);
    expect_silent(cmd);
    free(cmd);
}

/* Is text one of the legal moves of g, written the way the protocol writes it? */
static bool is_legal_text(const game_t *g, const char *text)
{
    move_t list[MAX_MOVES];
    int n = game_legal_moves(g, list);
    for (int i = 0; i < n; i++) {
        char t[MOVE_TEXT_LEN];
        move_format(list[i], t);
        if (strcmp(t, text) == 0)
            return true;
    }
    return false;
}

/* Every pv is a sequence of legal moves from g; the bestmove and its ponder move are legal. */
static void check_go_legal(const go_t *go, const game_t *g)
{
    cr_assert(is_legal_text(g, go->best.best), "bestmove %s is not legal here", go->best.best);
    game_t c;
    if (go->best.ponder[0]) {
        game_clone(g, &c);
        play_text(&c, go->best.best);
        cr_assert(is_legal_text(&c, go->best.ponder), "ponder %s is not legal after %s", go->best.ponder,
                  go->best.best);
        game_free(&c);
    }
    for (int i = 0; i < go->ninfo; i++) {
        const info_t *in = &go->info[i];
        game_clone(g, &c);
        for (int k = 0; k < in->pv_len; k++)
            cr_assert(is_legal_text(&c, in->pv[k]) && game_play_text(&c, in->pv[k], NULL, 0) == BC_OK,
                      "pv move %d (%s) of info %d is not legal", k + 1, in->pv[k], i + 1);
        game_free(&c);
    }
}

static uint32_t rng_next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* Plays up to len uniformly random legal moves on g, never the fifth capture. */
static void random_moves(game_t *g, uint32_t *seed, int len)
{
    for (int i = 0; i < len; i++) {
        move_t list[MAX_MOVES], ok[MAX_MOVES];
        int n = game_legal_moves(g, list), k = 0;
        const position_t *p = game_position(g);
        for (int j = 0; j < n; j++)
            if (move_kind(list[j]) != MOVE_JUMP || p->captured + 1 < BC_CAPTURES_TO_WIN)
                ok[k++] = list[j];
        if (k == 0)
            return;
        cr_assert_eq(game_play(g, ok[rng_next(seed) % (uint32_t)k], NULL, 0), BC_OK);
    }
}

/* ---- the handshake and the options ---- */

Test(uci, nothing_printed_before_uci)
{
    start_engine();
    char *line;
    pipe_status_t s = pipe_read_line(eng, QUIET_MS, &line);
    cr_assert_eq(s, PIPE_TIMEOUT, "the engine spoke unasked (%s): '%s'", pipe_status_name(s), line ? line : "");
    send_line("uci");
    s = pipe_read_line(eng, REPLY_MS, &line);
    cr_assert_eq(s, PIPE_LINE);
    cr_assert_str_eq(line, "id name baghchal " BAGHCHAL_VERSION, "the first line after uci");
    finish_engine();
}

/* Checks one option line against UCI syntax. */
static void check_option_syntax(const char *line)
{
    char buf[512], *w[64];
    int n = 0, i;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && n < 64; t = strtok_r(NULL, " ", &save))
        w[n++] = t;
    cr_assert(!strstr(line, "  ") && n >= 5 && strcmp(w[0], "option") == 0 && strcmp(w[1], "name") == 0,
              "bad option line '%s'", line);
    for (i = 2; i < n && strcmp(w[i], "type") != 0; i++)
        ;
    cr_assert(i > 2 && i + 1 < n, "no name or no type in '%s'", line);
    const char *type = w[++i];
    i++;
    if (strcmp(type, "button") == 0) {
        cr_assert_eq(i, n, "button with extra words: '%s'", line);
    } else if (strcmp(type, "check") == 0) {
        cr_assert(i + 2 == n && strcmp(w[i], "default") == 0 &&
                      (strcmp(w[i + 1], "true") == 0 || strcmp(w[i + 1], "false") == 0),
                  "bad check option '%s'", line);
    } else if (strcmp(type, "spin") == 0) {
        long long d, lo, hi;
        cr_assert(i + 6 == n && strcmp(w[i], "default") == 0 && strcmp(w[i + 2], "min") == 0 &&
                      strcmp(w[i + 4], "max") == 0,
                  "bad spin option '%s'", line);
        cr_assert(parse_signed(w[i + 1], &d) && parse_signed(w[i + 3], &lo) && parse_signed(w[i + 5], &hi),
                  "spin values are not integers in '%s'", line);
        cr_assert(lo <= d && d <= hi, "default outside min..max in '%s'", line);
    } else if (strcmp(type, "string") == 0) {
        cr_assert(i + 2 <= n && strcmp(w[i], "default") == 0, "bad string option '%s'", line);
    } else if (strcmp(type, "combo") == 0) {
        cr_assert(i + 2 < n && strcmp(w[i], "default") == 0, "bad combo option '%s'", line);
        const char *def = w[i + 1];
        bool found = false;
        int vars = 0;
        for (i += 2; i < n; i += 2, vars++) {
            cr_assert(i + 1 < n && strcmp(w[i], "var") == 0, "bad combo option '%s'", line);
            found |= strcmp(w[i + 1], def) == 0;
        }
        cr_assert(vars >= 2 && found, "combo default not among its vars in '%s'", line);
    } else {
        cr_assert_fail("unknown option type '%s' in '%s'", type, line);
    }
}

Test(uci, option_lines_are_exact)
{
    static const char *const want[] = {
        ("id name baghchal " BAGHCHAL_VERSION),
        "id author the baghchal developers",
        "option name Hash type spin default 64 min 1 max 65536",
        "option name Clear Hash type button",
        "option name Threads type spin default 1 min 1 max 256",
        "option name MultiPV type spin default 1 min 1 max 64",
        "option name Move Overhead type spin default 30 min 0 max 5000",
        "option name Ponder type check default false",
        "option name Repetition type combo default forbid var forbid var draw",
        "option name OBXVersion type combo default 2 var 2 var 1",
        "option name TablebasePath type string default <empty>",
        "option name Skill Level type spin default 20 min 0 max 20",
        "option name UCI_LimitStrength type check default false",
        "option name UCI_Elo type spin default 2400 min 600 max 2400",
    };
    enum { WANT = sizeof want / sizeof *want };
    start_engine();
    send_line("uci");
    pipe_lines_t out = {0};
    char *line;
    cr_assert_eq(pipe_read_until(eng, "uciok", REPLY_MS, &out, &line), PIPE_LINE);
    cr_assert_str_eq(line, "uciok");
    for (size_t i = 2; i < out.count; i++)
        check_option_syntax(out.line[i]);
    cr_assert_eq(out.count, (size_t)WANT, "%zu lines before uciok, PROTOCOL.md lists %d", out.count, (int)WANT);
    for (int i = 0; i < WANT; i++)
        cr_assert_str_eq(out.line[i], want[i]);
    pipe_lines_free(&out);
    expect_quiet("uciok");
    finish_engine();
}

Test(uci, spin_values_out_of_range_are_clamped)
{
    start_engine();
    expect_one_line("setoption name MultiPV value 1000", "info string MultiPV 1000 is out of range, using 64");
    /* The clamped value works: 64 lines asked, the 21 legal moves of the start all shown. */
    go_t g;
    run_go(&g, REPLY_MS, "go depth 2");
    bool seen[MAX_MULTIPV + 1][3] = {{false}};
    char first[32][MOVE_TEXT_LEN];
    int nfirst = 0;
    for (int i = 0; i < g.ninfo; i++) {
        const info_t *in = &g.info[i];
        if (i == g.ninfo - 1)
            break; /* the final line repeats multipv 1 */
        cr_assert_leq(in->multipv, 21, "multipv %d with 21 legal moves", in->multipv);
        cr_assert(!seen[in->multipv][in->depth], "multipv %d twice at depth %d", in->multipv, in->depth);
        seen[in->multipv][in->depth] = true;
        if (in->depth == 2) {
            for (int k = 0; k < nfirst; k++)
                cr_assert_str_neq(first[k], in->pv[0], "two lines start with %s", in->pv[0]);
            strcpy(first[nfirst++], in->pv[0]);
        }
    }
    for (int k = 1; k <= 21; k++)
        cr_assert(seen[k][1] && seen[k][2], "no multipv %d line at depth 1 and 2", k);
    cr_assert_eq(nfirst, 21);
    go_free(&g);

    settle();
    expect_one_line("setoption name MultiPV value 0", "info string MultiPV 0 is out of range, using 1");
    run_go(&g, REPLY_MS, "go depth 3");
    for (int i = 0; i < g.ninfo; i++)
        cr_assert_eq(g.info[i].multipv, 1);
    go_free(&g);

    settle();
    expect_one_line("setoption name Threads value 0", "info string Threads 0 is out of range, using 1");
    expect_one_line("setoption name Hash value 0", "info string Hash 0 is out of range, using 1");
    expect_one_line("setoption name Move Overhead value -7", "info string Move Overhead -7 is out of range, using 0");
    expect_one_line("setoption name Move Overhead value 99999",
                    "info string Move Overhead 99999 is out of range, using 5000");
    /* With 5000 ms kept in reserve a 5 s clock leaves nothing to think with: an answer at once. */
    run_go(&g, REPLY_MS, "go gtime 5000 ttime 5000");
    cr_assert_leq(go_ms(&g), LATENCY_MS, "Move Overhead 5000 with 5000 ms left: answered after %.1f ms", go_ms(&g));
    go_free(&g);
    expect_quiet("bestmove");
    finish_engine();
}

Test(uci, unknown_option_and_bad_values_are_reported)
{
    start_engine();
    expect_one_line("setoption name Hashh value 1", "info string error: unknown option 'Hashh'");
    expect_one_line("setoption name Threads value many",
                    "info string error: option Threads needs an integer value from 1 to 256");
    pipe_lines_t out = {0};
    send_line("setoption name Ponder value perhaps");
    sync_collect(&out);
    cr_assert_eq(out.count, 1);
    cr_assert(starts_with(out.line[0], "info string error: "), "'%s'", out.line[0]);
    pipe_lines_free(&out);
    /* Options cannot change under a running search, each refusal is one line, and the search
     * carries on. */
    send_line("go infinite");
    char *line;
    cr_assert_eq(pipe_read_until(eng, "info depth", REPLY_MS, NULL, &line), PIPE_LINE);
    send_line("setoption name Hash value 2");
    send_line("setoption name MultiPV value 0");
    send_line("setoption name Threads value 300");
    sync_collect(&out);
    static const char *const refusals[] = {"info string error: cannot change Hash while searching",
                                           "info string error: cannot change MultiPV while searching",
                                           "info string error: cannot change Threads while searching"};
    size_t nstr = 0;
    for (size_t i = 0; i < out.count; i++) {
        cr_assert(!starts_with(out.line[i], "bestmove"), "the search ended: '%s'", out.line[i]);
        if (!starts_with(out.line[i], "info string"))
            continue;
        cr_assert_lt(nstr, 3, "more than one line per refused setoption: '%s'", out.line[i]);
        cr_assert_str_eq(out.line[i], refusals[nstr]);
        nstr++;
    }
    cr_assert_eq(nstr, 3, "%zu refusals for three setoption lines during a search", nstr);
    pipe_lines_free(&out);
    send_line("stop");
    go_t g;
    collect_go(&g, pipe_sent_at(eng), REPLY_MS);
    check_go_shape(&g);
    go_free(&g);
    finish_engine();
}

Test(uci, options_and_commands_work_right_after_bestmove)
{
    /* Once bestmove is out the search is over: nothing may be refused as "while searching". */
    static const char *const cmds[] = {"setoption name Clear Hash", "setoption name MultiPV value 1",
                                       "setoption name Move Overhead value 30", "setoption name Repetition value forbid",
                                       "setoption name Hash value 16"};
    start_engine();
    for (int i = 0; i < 100; i++) {
        go_t g;
        run_go(&g, REPLY_MS, "go depth 1");
        go_free(&g);
        expect_silent(cmds[i % 5]);
    }
    for (int i = 0; i < 10; i++) {
        go_t g;
        run_go(&g, REPLY_MS, "go depth 1");
        go_free(&g);
        pipe_lines_t out = {0};
        char *line;
        send_line("go perft 1");
        /* perft runs on a thread of its own: its lines end with Nodes searched. */
        cr_assert_eq(pipe_read_until(eng, "Nodes searched: ", REPLY_MS, &out, &line), PIPE_LINE);
        cr_assert_eq(out.count, 22, "go perft 1 right after bestmove printed %zu lines, first '%s'", out.count,
                     out.count ? out.line[0] : "");
        cr_assert_str_eq(line, "Nodes searched: 21");
        pipe_lines_free(&out);
    }
    finish_engine();
}

Test(uci, whitespace_and_crlf_in_go_and_setoption)
{
    start_engine();
    send_raw("setoption  name\tMultiPV \t value   2\r\n");
    pipe_lines_t out = {0};
    sync_collect(&out);
    cr_assert_eq(out.count, 0, "'%s'", out.count ? out.line[0] : "");
    send_raw("position\tstartpos  moves  C3\r\n");
    send_raw("go\tdepth   3 \r\n");
    go_t g;
    collect_go(&g, pipe_sent_at(eng), REPLY_MS);
    check_go_shape(&g);
    cr_assert_eq(go_last(&g)->depth, 3, "'go<TAB>depth   3<CR>' searched to depth %d", go_last(&g)->depth);
    bool two = false;
    for (int i = 0; i < g.ninfo; i++)
        two |= g.info[i].multipv == 2;
    cr_assert(two, "the MultiPV set with tabs and CRLF did not apply");
    game_t gm;
    game_from(&gm, NULL, REP_FORBID);
    play_text(&gm, "C3");
    check_go_legal(&g, &gm);
    go_free(&g);

    settle();
    send_raw("setoption name  Move\tOverhead  value 5000\r\n");
    sync_collect(&out);
    cr_assert_eq(out.count, 0, "'%s'", out.count ? out.line[0] : "");
    send_raw("  go  gtime\t5000   ttime 5000\t\r\n");
    collect_go(&g, pipe_sent_at(eng), REPLY_MS);
    cr_assert_leq(go_ms(&g), LATENCY_MS, "Move Overhead set with tabs did not apply (%.1f ms)", go_ms(&g));
    check_go_legal(&g, &gm);
    go_free(&g);

    send_raw("go searchmoves\tE5D5   E5E4 \t depth 2\r\n");
    collect_go(&g, pipe_sent_at(eng), REPLY_MS);
    cr_assert(strcmp(g.best.best, "E5D5") == 0 || strcmp(g.best.best, "E5E4") == 0, "bestmove %s", g.best.best);
    go_free(&g);
    game_free(&gm);
    finish_engine();
}

/* ---- timing ---- */

/* The first info line of a search that was just started. */
static void await_search(void)
{
    char *line;
    pipe_status_t s = pipe_read_until(eng, "info depth", REPLY_MS, NULL, &line);
    cr_assert_eq(s, PIPE_LINE, "the search printed no info: %s", pipe_status_name(s));
}

/* Timing checks on a shared machine: a single late answer can be the scheduler's doing, so
 * the median of several measurements must meet the limit and none may be far off it. */
static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && v[k - 1] > v[k]; k--) {
            double t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Test(uci, isready_and_stop_answer_at_once_during_a_search)
{
    enum { ROUNDS = 5, READY = 5 };
    double ready[ROUNDS * READY], stop[ROUNDS];
    int nready = 0;
    start_engine();
    expect_silent("position startpos moves C3 A1B2 D4");
    for (int round = 0; round < ROUNDS; round++) {
        send_line("go infinite");
        await_search();
        for (int i = 0; i < READY; i++) {
            pipe_lines_t out = {0};
            char *line;
            send_line("isready");
            double sent = pipe_sent_at(eng);
            cr_assert_eq(pipe_read_until(eng, "readyok", REPLY_MS, &out, &line), PIPE_LINE);
            ready[nready++] = pipe_line_at(eng) - sent;
            for (size_t k = 0; k < out.count; k++)
                cr_assert(!starts_with(out.line[k], "bestmove"), "bestmove during go infinite: '%s'", out.line[k]);
            pipe_lines_free(&out);
            struct timespec ts = {0, 10 * 1000000};
            nanosleep(&ts, NULL);
        }
        send_line("stop");
        go_t g;
        collect_go(&g, pipe_sent_at(eng), REPLY_MS);
        stop[round] = go_ms(&g);
        check_go_shape(&g);
        go_free(&g);
    }
    double worst_ready = 0, worst_stop = 0;
    for (int i = 0; i < nready; i++)
        worst_ready = ready[i] > worst_ready ? ready[i] : worst_ready;
    for (int i = 0; i < ROUNDS; i++)
        worst_stop = stop[i] > worst_stop ? stop[i] : worst_stop;
    double mr = median(ready, nready), ms = median(stop, ROUNDS);
    cr_assert_leq(mr, LATENCY_MS, "readyok during go infinite: median %.1f ms after isready", mr);
    cr_assert_leq(worst_ready, 4.0 * LATENCY_MS, "readyok during go infinite: once %.1f ms after isready",
                  worst_ready);
    cr_assert_leq(ms, LATENCY_MS, "bestmove: median %.1f ms after stop", ms);
    cr_assert_leq(worst_stop, 4.0 * LATENCY_MS, "bestmove: once %.1f ms after stop", worst_stop);
    expect_quiet("the last bestmove");
    finish_engine();
}

/* go movetime T answers a safety margin of min(Move Overhead, T / 5) ms before T. */
static void check_movetime(int movetime, int overhead, int runs)
{
    double t[8];
    int margin = overhead < movetime / 5 ? overhead : movetime / 5;
    cr_assert_leq(runs, 8);
    for (int i = 0; i < runs; i++) {
        go_t g;
        run_go(&g, REPLY_MS, "go movetime %d", movetime);
        t[i] = go_ms(&g);
        /* The engine's own count of the time it searched, then what the test saw, from just
         * before the line was written (10 ms of slack for the two clocks' reading). */
        cr_assert_geq(go_last(&g)->time, movetime - margin, "go movetime %d searched %lld ms", movetime,
                      go_last(&g)->time);
        cr_assert_geq(t[i], movetime - margin - 10, "go movetime %d answered already after %.1f ms", movetime, t[i]);
        cr_assert_leq(t[i], movetime + 4 * TIMED_SLACK_MS, "go movetime %d answered after %.1f ms", movetime, t[i]);
        check_go_shape(&g);
        go_free(&g);
    }
    double m = median(t, runs);
    cr_assert_leq(m, movetime - margin + TIMED_SLACK_MS, "go movetime %d: median answer after %.1f ms, late",
                  movetime, m);
}

Test(uci, movetime_is_kept)
{
    start_engine();
    expect_silent("position startpos moves C3 A1B2 D4 E5D5");
    check_movetime(100, OVERHEAD_MS, 3); /* a margin of 20 ms, the fifth */
    check_movetime(500, OVERHEAD_MS, 3); /* a margin of 30 ms, the overhead */
    settle();
    expect_silent("setoption name Move Overhead value 0");
    check_movetime(100, 0, 3); /* no margin */
    finish_engine();
}

Test(uci, short_clocks_answer_in_time)
{
    /* 50 ms left and 30 ms overhead: at most 20 ms may go by before the answer, and never
     * the whole 50 ms. */
    static const char *const cases[][2] = {
        {"", "go gtime 50 ttime 50"},
        {"", "go wtime 50 btime 50"},
        {"", "go gtime 50"},
        {"", "go ttime 50"}, /* one clock only: it is the side to move's */
        {"", "go gtime 50 ttime 100000 ginc 0 tinc 0"},
        {"", "go wtime 50 btime 100000"},
        {"", "go gtime -20 ttime -20"}, /* a negative clock is read as 0 */
        {"C3", "go gtime 50 ttime 50"},
        {"C3", "go ttime 50"},
        {"C3", "go btime 50"},
        {"C3", "go gtime 100000 ttime 50"},
        {"C3", "go wtime 100000 btime 50"},
        {"C3 A1B2", "go gtime 50 ttime 50 ginc 0 tinc 0 movestogo 30"},
        {"C3 A1B2 D4 E5D5 B4 A5A4 E4", "go gtime 50 ttime 50 movestogo 2"},
    };
    enum { RUNS = 5 };
    start_engine();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "position startpos%s%s", cases[i][0][0] ? " moves " : "", cases[i][0]);
        expect_silent(cmd);
        game_t gm;
        game_from(&gm, NULL, REP_FORBID);
        char buf[64], *save = NULL;
        snprintf(buf, sizeof buf, "%s", cases[i][0]);
        for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
            play_text(&gm, t);
        double t[RUNS];
        for (int rep = 0; rep < RUNS; rep++) {
            go_t g;
            run_go(&g, REPLY_MS, "%s", cases[i][1]);
            t[rep] = go_ms(&g);
            cr_assert_lt(t[rep], 50.0 * SLOW, "'%s' after '%s' answered after %.1f ms: lost on time", cases[i][1],
                         cmd, t[rep]);
            check_go_shape(&g);
            check_go_legal(&g, &gm);
            go_free(&g);
        }
        double m = median(t, RUNS);
        cr_assert_leq(m, 20.0 * SLOW, "'%s' after '%s': median answer after %.1f ms, more than 50 - 30 ms",
                      cases[i][1], cmd, m);
        game_free(&gm);
    }
    expect_quiet("the last bestmove");
    finish_engine();
}

Test(uci, the_clock_of_the_side_to_move_is_used)
{
    /* The side to move has a long clock, the other a short one: no hurry. */
    static const char *const cases[][2] = {
        {"position startpos", "go gtime 100000 ttime 50"},
        {"position startpos", "go wtime 100000 btime 50"},
        {"position startpos moves C3", "go gtime 50 ttime 100000"},
        {"position startpos moves C3", "go wtime 50 btime 100000"},
        {"position startpos moves C3", "go ttime 100000"},
    };
    start_engine();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        expect_silent(cases[i][0]);
        send_line("%s", cases[i][1]);
        double sent = pipe_sent_at(eng);
        char *line;
        pipe_lines_t out = {0};
        pipe_status_t s = pipe_read_until(eng, "bestmove", 150, &out, &line);
        cr_assert_eq(s, PIPE_TIMEOUT, "'%s' after '%s' answered after %.1f ms: the wrong clock", cases[i][1],
                     cases[i][0], pipe_now_ms() - sent);
        pipe_lines_free(&out);
        send_line("stop");
        go_t g;
        collect_go(&g, pipe_sent_at(eng), REPLY_MS);
        go_free(&g);
    }
    finish_engine();
}

Test(uci, a_single_legal_move_answers_at_once)
{
    /* Tigers A1 B1 A2 are walled in; E1 can only step to E2 (D1 and D2 are goats backed by C1
     * and C3). */
    start_engine();
    expect_silent("position obx TTGGT/TGGGX/GGGXG/GXXXG/XXXXX t @9 c0");
    go_t g;
    run_go(&g, REPLY_MS, "go gtime 600000 ttime 600000");
    cr_assert_str_eq(g.best.best, "E1E2");
    cr_assert_leq(go_ms(&g), LATENCY_MS, "a forced move took %.1f ms with 10 minutes on the clock", go_ms(&g));
    go_free(&g);
    finish_engine();
}

Test(uci, infinite_waits_for_stop_even_when_the_search_is_done)
{
    static const char *const cases[][2] = {
        {"TTGGT/TGGGX/GGGXG/GXXXG/XXXXX t @9 c0", "E1E2"}, /* one legal move */
        {"TGXXT/XXXXX/XXGXX/XXXXX/TXXXT t @14 c4", "A1C1"}, /* the fifth capture now */
        {"TTGGX/TTGGX/GGGXX/GGXXX/XXXXX g @11 c0", "D4"},   /* the trap closes now */
    };
    start_engine();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "position obx %s", cases[i][0]);
        expect_silent(cmd);
        send_line("go infinite");
        pipe_lines_t out = {0};
        char *line;
        pipe_status_t s = pipe_read_until(eng, "bestmove", 400, &out, &line);
        cr_assert_eq(s, PIPE_TIMEOUT, "go infinite on %s printed '%s' before stop", cases[i][0], line);
        pipe_lines_free(&out);
        send_line("stop");
        go_t g;
        collect_go(&g, pipe_sent_at(eng), REPLY_MS);
        cr_assert_leq(go_ms(&g), LATENCY_MS, "bestmove %.1f ms after stop", go_ms(&g));
        cr_assert_str_eq(g.best.best, cases[i][1], "on %s", cases[i][0]);
        check_go_shape(&g);
        go_free(&g);
    }
    /* Also `go` with no limit at all on a finished game waits for stop. */
    expect_silent("position obx TGGGT/GGGGG/GGXXX/XXXXX/TXXXT g @5 c5");
    send_line("go infinite");
    char *line;
    cr_assert_eq(pipe_read_line(eng, 400, &line), PIPE_TIMEOUT, "finished game, go infinite: '%s'", line);
    send_line("stop");
    go_t g;
    collect_go(&g, pipe_sent_at(eng), REPLY_MS);
    cr_assert_str_eq(g.bestline, "bestmove (none)");
    go_free(&g);
    finish_engine();
}

/* ---- one go, one bestmove ---- */

Test(uci, stop_while_idle_and_ponderhit_while_idle_print_nothing)
{
    start_engine();
    expect_silent("stop");
    expect_silent("ponderhit");
    go_t g;
    run_go(&g, REPLY_MS, "go depth 3");
    go_free(&g);
    expect_silent("stop");
    expect_silent("stop");
    expect_silent("ponderhit");
    expect_quiet("stop while idle");
    finish_engine();
}

Test(uci, go_while_searching_ends_the_first_search)
{
    start_engine();
    send_line("go infinite");
    await_search();
    send_line("go depth 2");
    go_t a, b;
    collect_go(&a, pipe_sent_at(eng), REPLY_MS);
    collect_go(&b, pipe_sent_at(eng), REPLY_MS);
    check_go_shape(&a);
    check_go_shape(&b);
    cr_assert_eq(go_last(&b)->depth, 2, "the second search is the depth 2 one");
    go_free(&a);
    go_free(&b);
    pipe_lines_t out = {0};
    sync_collect(&out);
    for (size_t i = 0; i < out.count; i++)
        cr_assert(!starts_with(out.line[i], "bestmove"), "a third bestmove for two go: '%s'", out.line[i]);
    pipe_lines_free(&out);
    expect_quiet("two bestmoves");

    /* The same while pondering, and ucinewgame stopping a search. */
    send_line("go ponder");
    await_search();
    send_line("go movetime 50");
    collect_go(&a, pipe_sent_at(eng), REPLY_MS);
    collect_go(&b, pipe_sent_at(eng), REPLY_MS);
    go_free(&a);
    go_free(&b);
    send_line("go infinite");
    await_search();
    send_line("ucinewgame");
    collect_go(&a, pipe_sent_at(eng), REPLY_MS);
    cr_assert_leq(go_ms(&a), LATENCY_MS, "ucinewgame took %.1f ms to stop the search", go_ms(&a));
    go_free(&a);
    expect_quiet("ucinewgame");
    finish_engine();
}

Test(uci, go_right_after_bestmove)
{
    start_engine();
    game_t gm;
    game_from(&gm, NULL, REP_FORBID);
    for (int i = 0; i < 100; i++) {
        go_t g;
        run_go(&g, REPLY_MS, "go depth %d", 1 + i % 4);
        check_go_shape(&g);
        check_go_legal(&g, &gm);
        cr_assert_eq(go_last(&g)->depth, 1 + i % 4);
        go_free(&g);
        if (i % 10 == 9)
            send_line("stop");
    }
    game_free(&gm);
    pipe_lines_t out = {0};
    sync_collect(&out);
    cr_assert_eq(out.count, 0, "extra output: '%s'", out.count ? out.line[0] : "");
    pipe_lines_free(&out);
    finish_engine();
}

Test(uci, thousand_back_to_back_go_depth_1)
{
    enum { N = 1000 };
    start_engine();
    game_t gm[2];
    game_from(&gm[0], NULL, REP_FORBID);
    game_from(&gm[1], NULL, REP_FORBID);
    play_text(&gm[1], "C3");
    double start = pipe_now_ms();
    for (int i = 0; i < N; i++) {
        send_line("%s", i % 2 ? "position startpos moves C3" : "position startpos");
        send_line("go depth 1");
    }
    for (int i = 0; i < N; i++) {
        go_t g;
        collect_go(&g, pipe_sent_at(eng), REPLY_MS);
        cr_assert_eq(g.nstrings, 0, "bestmove %d: an info string on the way", i + 1);
        check_go_shape(&g);
        check_go_legal(&g, &gm[i % 2]);
        go_free(&g);
    }
    double ms = pipe_now_ms() - start;
    cr_assert_leq(ms, 20000.0 * SLOW, "1000 go depth 1 took %.0f ms", ms);
    pipe_lines_t out = {0};
    sync_collect(&out);
    for (size_t i = 0; i < out.count; i++)
        cr_assert(!starts_with(out.line[i], "bestmove"), "bestmove %zu for %d go", (size_t)N + 1, N);
    pipe_lines_free(&out);
    expect_quiet("the thousandth bestmove");
    game_free(&gm[0]);
    game_free(&gm[1]);
    finish_engine();
}

Test(uci, every_go_gets_exactly_one_bestmove_in_a_burst)
{
    /* Searches started, stopped, pondered and replaced faster than they can run, with one and
     * with two threads. */
    static const char *const burst[] = {"go infinite", "stop",          "go ponder",     "ponderhit", "stop",
                                        "go depth 3",  "go nodes 100",  "stop",          "go movetime 5",
                                        "ucinewgame",  "go infinite",   "ponderhit",     "stop"};
    enum { ROUNDS = 40, BURST = sizeof burst / sizeof *burst };
    start_engine();
    for (int threads = 1; threads <= 2; threads++) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "setoption name Threads value %d", threads);
        expect_silent(cmd);
        int gos = 0;
        for (int r = 0; r < ROUNDS; r++)
            for (int k = 0; k < BURST; k++) {
                send_line("%s", burst[k]);
                gos += starts_with(burst[k], "go ");
            }
        for (int i = 0; i < gos; i++) {
            go_t g;
            collect_go(&g, pipe_sent_at(eng), REPLY_MS);
            check_go_shape(&g);
            go_free(&g);
        }
        pipe_lines_t out = {0};
        sync_collect(&out);
        for (size_t i = 0; i < out.count; i++)
            cr_assert(!starts_with(out.line[i], "bestmove"), "more bestmoves than the %d go lines", gos);
        pipe_lines_free(&out);
        expect_quiet("the burst");
        settle();
    }
    finish_engine();
}

Test(uci, quit_during_go_infinite_exits_at_once)
{
    start_engine();
    send_line("go infinite");
    await_search();
    send_line("quit");
    pipe_exit_t e = pipe_wait(eng, REPLY_MS); /* stdin stays open: quit alone ends it */
    cr_assert(!e.killed, "still running after quit during go infinite");
    cr_assert(e.exited && e.code == 0, "exit: code %d, signal %d", e.code, e.signal);
    cr_assert_leq(e.ms, 2.0 * LATENCY_MS, "took %.1f ms to quit during a search", e.ms);
    pipe_lines_t out = {0};
    char *line;
    cr_assert_eq(pipe_read_until(eng, "bestmove", 0, &out, &line), PIPE_LINE, "quit printed no bestmove");
    pipe_lines_free(&out);
    cr_assert_eq(pipe_read_line(eng, 0, &line), PIPE_EOF, "output after the bestmove: '%s'", line ? line : "");
}

Test(uci, rejected_go_prints_no_bestmove)
{
    start_engine();
    expect_one_line("go depth x", "info string error: go depth needs a number");
    expect_one_line("go wtme 100", "info string error: unknown go parameter 'wtme'");
    pipe_lines_t out = {0};
    send_line("go depth 2 searchmoves A1");
    sync_collect(&out);
    cr_assert_eq(out.count, 1, "an illegal searchmoves move printed %zu lines", out.count);
    cr_assert(starts_with(out.line[0], "info string error: "), "'%s'", out.line[0]);
    pipe_lines_free(&out);
    expect_quiet("rejected go lines");
    finish_engine();
}

/* ---- every bestmove legal, every info well formed ---- */

Test(uci, random_positions_get_legal_bestmoves)
{
    enum { POSITIONS = 300 };
    start_engine();
    uint32_t seed = 20240611u;
    int covered[2][2] = {{0}}; /* [placement?][side] */
    int finished = 0;
    for (int k = 0; k < POSITIONS; k++) {
        rep_rule_t rule = k < 2 * POSITIONS / 3 ? REP_FORBID : REP_DRAW;
        if (k == 2 * POSITIONS / 3)
            expect_silent("setoption name Repetition value draw");
        game_t gm;
        game_from(&gm, NULL, rule);
        random_moves(&gm, &seed, (int)(rng_next(&seed) % 110));
        set_game(&gm);
        const position_t *p = game_position(&gm);
        go_t g;
        if (k % 2)
            run_go(&g, REPLY_MS, "go nodes %u", 200 + rng_next(&seed) % 800);
        else
            run_go(&g, REPLY_MS, "go depth %u", 1 + rng_next(&seed) % 3);
        if (game_result(&gm).reason != RESULT_NONE) {
            cr_assert_str_eq(g.bestline, "bestmove (none)");
            finished++;
        } else {
            check_go_shape(&g);
            check_go_legal(&g, &gm);
            covered[p->in_hand > 0][p->side]++;
        }
        cr_assert_eq(g.nstrings, 0, "info string during a search: '%s'", g.lines.line[0]);
        go_free(&g);
        game_free(&gm);
    }
    for (int ph = 0; ph < 2; ph++)
        for (int s = 0; s < 2; s++)
            cr_assert_geq(covered[ph][s], 20, "only %d positions in the %s phase with %s to move", covered[ph][s],
                          ph ? "placement" : "movement", s ? "tigers" : "goats");
    cr_assert_lt(finished, POSITIONS / 10);
    finish_engine();
}

/* The line with the values of its time and nps fields replaced by '#'. */
static void without_time_and_nps(const char *line, char *out, size_t cap)
{
    size_t n = 0;
    const char *s = line;
    while (*s && n + 1 < cap) {
        if (strncmp(s, " time ", 6) == 0 || strncmp(s, " nps ", 5) == 0) {
            size_t w = s[1] == 't' ? 6 : 5;
            for (size_t k = 0; k < w && n + 1 < cap; k++)
                out[n++] = s[k];
            s += w;
            while (*s >= '0' && *s <= '9')
                s++;
            if (n + 1 < cap)
                out[n++] = '#';
            continue;
        }
        out[n++] = *s++;
    }
    out[n] = '\0';
}

Test(uci, nodes_search_is_reproducible_after_ucinewgame)
{
    static const char *const positions[] = {
        "position startpos",
        "position startpos moves C3 A1B2 D4 E5D5 B4",
        "position obx GTXXT/GGGXG/GGTGG/GTGXX/GGXXX g @6 c1 mE5C3(D4) #t14",
    };
    start_engine();
    for (size_t i = 0; i < sizeof positions / sizeof *positions; i++) {
        pipe_lines_t runs[2] = {{0}};
        char best[2][256];
        for (int r = 0; r < 2; r++) {
            expect_silent("ucinewgame");
            expect_silent(positions[i]);
            go_t g;
            run_go(&g, REPLY_MS, "go nodes 20000");
            check_go_shape(&g);
            cr_assert_eq(go_last(&g)->nodes, 20000, "go nodes 20000 searched %llu nodes", go_last(&g)->nodes);
            for (size_t k = 0; k < g.lines.count; k++) {
                char line[2048];
                without_time_and_nps(g.lines.line[k], line, sizeof line);
                runs[r].line = realloc(runs[r].line, (runs[r].count + 1) * sizeof *runs[r].line);
                cr_assert_not_null(runs[r].line);
                runs[r].line[runs[r].count++] = strdup(line);
                runs[r].cap = runs[r].count;
            }
            snprintf(best[r], sizeof best[r], "%s", g.bestline);
            go_free(&g);
        }
        cr_assert_eq(runs[0].count, runs[1].count, "%s: %zu lines, then %zu", positions[i], runs[0].count,
                     runs[1].count);
        for (size_t k = 0; k < runs[0].count; k++)
            cr_assert_str_eq(runs[0].line[k], runs[1].line[k], "%s: line %zu differs", positions[i], k + 1);
        cr_assert_str_eq(best[0], best[1]);
        pipe_lines_free(&runs[0]);
        pipe_lines_free(&runs[1]);
    }
    finish_engine();
}

/* ---- finished games and mate scores ---- */

static void expect_game_over(const char *position, const char *score_line)
{
    expect_silent(position);
    go_t g;
    run_go(&g, REPLY_MS, "go depth 5");
    cr_assert_eq(g.lines.count, 1, "%s: %zu lines before bestmove", position, g.lines.count);
    cr_assert_str_eq(g.lines.line[0], score_line, "after %s", position);
    cr_assert_str_eq(g.bestline, "bestmove (none)");
    go_free(&g);
}

Test(uci, finished_games_answer_bestmove_none)
{
    start_engine();
    /* Five goats captured. */
    expect_game_over("position obx TGGGT/GGGGG/GGXXX/XXXXX/TXXXT g @5 c5", "info depth 0 score mate 0");
    /* Tigers A1 B1 A2 B2 walled in by goats backed on every line: the tigers have lost. */
    expect_game_over("position obx TTGGX/TTGGX/GGGXX/GGXGX/XXXXX t @10 c0", "info depth 0 score mate 0");
    /* The fifth capture made in the game itself. */
    expect_game_over("position obx TGXXT/XXXXX/XXGXX/XXXXX/TXXXT t @14 c4 moves A1C1", "info depth 0 score mate 0");
    /* The only empty point, A1, touches only tigers: the goats cannot move. */
    expect_game_over("position obx XTGGG/TTGGG/GGGGG/GGGGG/GGGGT g @0 c0", "info depth 0 score mate 0");
    /* A threefold repetition under the draw rule. */
    settle();
    expect_silent("setoption name Repetition value draw");
    expect_game_over("position obx TGGGT/GGGGG/GGXGG/GGGGG/TXXXT g @0 c3 - # moves C2C3 A5B5 C3C2 B5A5 C2C3 A5B5 "
                     "C3C2 B5A5",
                     "info depth 0 score cp 0");
    expect_quiet("bestmove (none)");
    finish_engine();
}

typedef struct {
    const char *obx;
    int mate;           /* the mate value for the side to move */
    const char *best;   /* the winning move, when unique */
} mate_case_t;

Test(uci, mate_scores_count_moves_with_the_right_sign)
{
    /* The positions are explained in test_search.c, where the search finds them too. */
    static const mate_case_t cases[] = {
        {"TGXXT/XXXXX/XXGXX/XXXXX/TXXXT t @14 c4", 1, "A1C1"},
        {"XXXXT/XXGXX/XGXXX/XXXTX/TXXXT t @14 c4", 2, "D4C3"},
        {"XXXXT/XXGXX/XGTXX/XXXXX/TXXXT g @14 c4", -1, NULL},
        {"TTGGX/TTGGX/GGGXX/GGXXX/XXXXX g @11 c0", 1, "D4"},
        {"TTGGT/TXGGX/GGGXG/GXXXG/XXXXX g @10 c0", 2, "B2"},
        {"TTGGT/TGGGX/GGGXG/GXXXG/XXXXX t @9 c0", -1, "E1E2"},
        {"XXGGT/GXGGX/GGGGX/TGGGG/TTGGG t @4 c0", -2, "E1E2"},
        {"XXXXT/XXGXX/XGXXX/GXXTX/TXXXT t @13 c4", 1, "A5A3"},
    };
    start_engine();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "position obx %s", cases[i].obx);
        expect_silent(cmd);
        game_t gm;
        game_from(&gm, cases[i].obx, REP_FORBID);
        for (int m = 0; m < 2; m++) {
            go_t g;
            if (m == 0)
                run_go(&g, REPLY_MS, "go depth 8");
            else
                run_go(&g, REPLY_MS, "go mate %d", abs(cases[i].mate));
            check_go_shape(&g);
            check_go_legal(&g, &gm);
            const info_t *last = go_last(&g);
            cr_assert(last->mate && last->score == cases[i].mate && last->bound == BOUND_EXACT,
                      "%s (%s): score %s %lld, expected mate %d", cases[i].obx, m ? "go mate" : "go depth 8",
                      last->mate ? "mate" : "cp", last->score, cases[i].mate);
            if (cases[i].best)
                cr_assert_str_eq(g.best.best, cases[i].best, "%s", cases[i].obx);
            /* A mate in N for the side to move is a line of 2N - 1 moves, a loss in N of 2N. */
            int plies = cases[i].mate > 0 ? 2 * cases[i].mate - 1 : -2 * cases[i].mate;
            cr_assert_eq(last->pv_len, plies, "%s: the mating line has %d moves", cases[i].obx, last->pv_len);
            game_t c;
            game_clone(&gm, &c);
            for (int k = 0; k < last->pv_len; k++)
                play_text(&c, last->pv[k]);
            game_result_t r = game_result(&c);
            cr_assert_neq(r.reason, RESULT_NONE, "%s: the pv does not end the game", cases[i].obx);
            cr_assert_eq(r.winner == game_position(&gm)->side, cases[i].mate > 0, "%s: the pv ends with the wrong winner",
                         cases[i].obx);
            game_free(&c);
            go_free(&g);
        }
        game_free(&gm);
    }
    finish_engine();
}

/* ---- pondering ---- */

Test(uci, ponderhit_continues_under_the_clock)
{
    start_engine();
    expect_silent("position startpos moves C3 A1B2");
    /* The clock's maximum, computed by the library: the pondering time counts. */
    tm_budget_t b = tm_init(3000, 0, 0, OVERHEAD_MS, 19); /* goats to move, 19 in hand */
    send_line("go ponder gtime 3000 ttime 3000");
    double sent = pipe_sent_at(eng);
    pipe_lines_t out = {0};
    char *line;
    cr_assert_eq(pipe_read_until(eng, "bestmove", 200, &out, &line), PIPE_TIMEOUT,
                 "go ponder answered before ponderhit: '%s'", line);
    pipe_lines_free(&out);
    send_line("ponderhit");
    double hit = pipe_sent_at(eng);
    go_t g;
    collect_go(&g, sent, REPLY_MS);
    cr_assert_geq(g.best_at, hit, "bestmove before ponderhit");
    cr_assert_leq(go_ms(&g), (double)b.maximum_ms + TIMED_SLACK_MS,
                  "bestmove %.1f ms after go ponder with a maximum of %" PRId64 " ms", go_ms(&g), b.maximum_ms);
    check_go_shape(&g);
    go_free(&g);

    /* Pondered longer than the move was worth: ponderhit answers at once. */
    send_line("go ponder movetime 100");
    cr_assert_eq(pipe_read_until(eng, "bestmove", 400, NULL, &line), PIPE_TIMEOUT,
                 "go ponder movetime answered before ponderhit");
    send_line("ponderhit");
    collect_go(&g, pipe_sent_at(eng), REPLY_MS);
    cr_assert_leq(go_ms(&g), LATENCY_MS, "ponderhit after the movetime had passed: bestmove after %.1f ms", go_ms(&g));
    go_free(&g);

    /* go ponder, then stop: a bestmove at once. */
    send_line("go ponder");
    await_search();
    send_line("stop");
    collect_go(&g, pipe_sent_at(eng), REPLY_MS);
    cr_assert_leq(go_ms(&g), LATENCY_MS, "bestmove %.1f ms after stop while pondering", go_ms(&g));
    check_go_shape(&g);
    go_free(&g);
    expect_quiet("the pondering searches");
    finish_engine();
}

/* ---- searchmoves and MultiPV ---- */

Test(uci, searchmoves_restricts_the_root)
{
    start_engine();
    game_t gm;
    game_from(&gm, NULL, REP_FORBID);
    go_t g;
    run_go(&g, REPLY_MS, "go depth 4 searchmoves E3 a3");
    for (int i = 0; i < g.ninfo; i++)
        cr_assert(strcmp(g.info[i].pv[0], "E3") == 0 || strcmp(g.info[i].pv[0], "A3") == 0, "pv starts with %s",
                  g.info[i].pv[0]);
    cr_assert(strcmp(g.best.best, "E3") == 0 || strcmp(g.best.best, "A3") == 0, "bestmove %s", g.best.best);
    check_go_shape(&g);
    check_go_legal(&g, &gm);
    go_free(&g);

    /* MultiPV 3 over two searchmoves shows two lines. */
    settle();
    expect_silent("setoption name MultiPV value 3");
    run_go(&g, REPLY_MS, "go depth 3 searchmoves C1 B2");
    for (int i = 0; i < g.ninfo; i++) {
        cr_assert_leq(g.info[i].multipv, 2, "multipv %d over two searchmoves", g.info[i].multipv);
        cr_assert(strcmp(g.info[i].pv[0], "C1") == 0 || strcmp(g.info[i].pv[0], "B2") == 0, "pv starts with %s",
                  g.info[i].pv[0]);
    }
    go_free(&g);

    /* A tiger move given to searchmoves in the movement phase. */
    settle();
    expect_silent("setoption name MultiPV value 1");
    expect_silent("position startpos moves C3");
    play_text(&gm, "C3");
    run_go(&g, REPLY_MS, "go searchmoves A5A4 nodes 3000");
    cr_assert_str_eq(g.best.best, "A5A4");
    check_go_legal(&g, &gm);
    go_free(&g);
    game_free(&gm);
    finish_engine();
}

Test(uci, multipv_lines_are_ordered)
{
    start_engine();
    expect_silent("setoption name MultiPV value 3");
    expect_silent("position startpos moves C3 A1B2 D4");
    game_t gm;
    game_from(&gm, NULL, REP_FORBID);
    play_text(&gm, "C3");
    play_text(&gm, "A1B2");
    play_text(&gm, "D4");
    go_t g;
    run_go(&g, REPLY_MS, "go depth 6");
    check_go_shape(&g);
    check_go_legal(&g, &gm);
    /* Per depth: multipv 1, 2, 3 in this order, scores not increasing, distinct first moves. */
    int i = 0, depths = 0;
    while (i + 3 <= g.ninfo - 1) {
        const info_t *a = &g.info[i];
        for (int k = 0; k < 3; k++) {
            const info_t *in = &g.info[i + k];
            cr_assert_eq(in->depth, a->depth, "depth %d has only %d lines", a->depth, k);
            cr_assert_eq(in->multipv, k + 1, "depth %d: line %d is multipv %d", a->depth, k + 1, in->multipv);
            cr_assert(!in->mate, "no mate here");
            if (k) {
                cr_assert_leq(in->score, g.info[i + k - 1].score, "depth %d: multipv %d scores more than %d",
                              a->depth, k + 1, k);
                for (int j = 0; j < k; j++)
                    cr_assert_str_neq(in->pv[0], g.info[i + j].pv[0], "depth %d: two lines start with %s", a->depth,
                                      in->pv[0]);
            }
        }
        i += 3;
        depths++;
    }
    cr_assert_eq(depths, 6, "%d complete depths of three lines", depths);
    cr_assert_eq(i, g.ninfo - 1, "lines left over");
    cr_assert_str_eq(g.info[g.ninfo - 1].pv[0], g.info[g.ninfo - 4].pv[0], "the final line is not the best one");
    go_free(&g);
    game_free(&gm);
    finish_engine();
}

/* ---- eval, bench, threads and hash ---- */

static void check_eval(const char *obx)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "position obx %s", obx);
    expect_silent(cmd);
    position_t p;
    cr_assert_eq(obx_parse(obx, &p, NULL, NULL, 0), BC_OK);
    eval_params_t wt;
    cr_assert(eval_params_load(&wt, EVAL_TUNED_DATA, EVAL_TUNED_SIZE, NULL, 0), "the built-in weights are refused");
    eval_trace_t t;
    int total = eval_trace(&wt, &p, &t);
    pipe_lines_t out = {0};
    send_line("eval");
    sync_collect(&out);
    eval_params_t net = wt;
    cr_assert(eval_net_load(&net, EVAL_NET_DATA, EVAL_NET_SIZE, NULL, 0), "the built-in network is refused");
    cr_assert_eq(out.count, (size_t)EV_TERM_NB + 6, "eval printed %zu lines for %d terms", out.count, EV_TERM_NB);
    cr_assert(starts_with(out.line[0], "term"), "eval header '%s'", out.line[0]);
    for (int i = 0; i < EV_TERM_NB; i++) {
        const char *l = out.line[1 + i];
        /* The name (which has spaces), then four integers. */
        char buf[256], *w[32], name[128] = "";
        int n = 0;
        long long v[4];
        snprintf(buf, sizeof buf, "%s", l);
        for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok && n < 32; tok = strtok_r(NULL, " ", &save))
            w[n++] = tok;
        cr_assert_geq(n, 5, "eval line '%s'", l);
        for (int k = 0; k < 4; k++)
            cr_assert(parse_signed(w[n - 4 + k], &v[k]), "'%s': '%s' is not a number", l, w[n - 4 + k]);
        for (int k = 0; k < n - 4; k++) {
            if (k)
                strcat(name, " ");
            strncat(name, w[k], sizeof name - strlen(name) - 2);
        }
        cr_assert_str_eq(name, EVAL_WEIGHTS[i].name, "eval line %d", i + 1);
        cr_assert(v[0] == t.count[i] && v[1] == wt.mg[i] && v[2] == wt.eg[i] && v[3] == t.value[i],
                  "%s: '%s', the library says %d %d %d %d", obx, l, t.count[i], wt.mg[i], wt.eg[i], t.value[i]);
    }
    char want[128];
    snprintf(want, sizeof want, "Phase: %d of 20 goats placed", BC_GOATS_TOTAL - p.in_hand);
    cr_assert_str_eq(out.line[EV_TERM_NB + 1], want);
    snprintf(want, sizeof want, "Total (goats' view): %d", total);
    cr_assert_str_eq(out.line[EV_TERM_NB + 2], want);
    snprintf(want, sizeof want, "Total (side to move): %d", eval_position(&wt, &p));
    cr_assert_str_eq(out.line[EV_TERM_NB + 3], want);
    cr_assert_eq(eval_position(&wt, &p), p.side == GOATS ? total : -total);
    int v = eval_net(&net.net, &p);
    snprintf(want, sizeof want, "Network (goats' view): %d", v);
    cr_assert_str_eq(out.line[EV_TERM_NB + 4], want);
    snprintf(want, sizeof want, "Searched (side to move): %d (the network's)", p.side == GOATS ? v : -v);
    cr_assert_str_eq(out.line[EV_TERM_NB + 5], want);
    cr_assert_eq(eval_position(&net, &p), p.side == GOATS ? v : -v);
    pipe_lines_free(&out);
}

Test(uci, eval_prints_every_term)
{
    start_engine();
    check_eval("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #");
    check_eval("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1");
    check_eval("GTXXT/GGGXG/GGTGG/GTGXX/GGXXX g @6 c1 mE5C3(D4) #t14");
    check_eval("GGXTG/TXTGG/GTGGG/GGGGX/GGGGG t @0 c2 mE4E5 #g28");
    check_eval("TGGGT/GGGGG/GGXXX/XXXXX/TXXXT g @5 c5");
    finish_engine();
}

static void read_bench(unsigned long long *nodes, int depth)
{
    pipe_lines_t out = {0};
    char *line;
    send_line("bench %d", depth);
    for (;;) {
        cr_assert_eq(pipe_read_line(eng, 60000 * SLOW, &line), PIPE_LINE, "bench %d did not finish", depth);
        cr_assert(!starts_with(line, "info string"), "bench %d: '%s'", depth, line);
        if (starts_with(line, "Nodes/second: "))
            break;
        out.line = realloc(out.line, (out.count + 1) * sizeof *out.line);
        cr_assert_not_null(out.line);
        out.line[out.count++] = strdup(line);
        out.cap = out.count;
    }
    unsigned long long nps;
    cr_assert_eq(sscanf(line, "Nodes/second: %llu", &nps), 1, "'%s'", line);
    cr_assert_eq(out.count, 4, "bench printed %zu lines before Nodes/second", out.count);
    cr_assert_str_eq(out.line[0], "Positions: 50");
    char want[32];
    snprintf(want, sizeof want, "Depth: %d", depth);
    cr_assert_str_eq(out.line[1], want);
    long long ms;
    cr_assert_eq(sscanf(out.line[2], "Total time (ms): %lld", &ms), 1, "'%s'", out.line[2]);
    cr_assert_eq(sscanf(out.line[3], "Nodes searched: %llu", nodes), 1, "'%s'", out.line[3]);
    cr_assert_gt(*nodes, 50, "bench %d searched %llu nodes", depth, *nodes);
    pipe_lines_free(&out);
}

Test(uci, bench_node_count_is_stable)
{
    start_engine();
    unsigned long long a, b, c, d;
    read_bench(&a, 4);
    read_bench(&b, 4);
    cr_assert_eq(a, b, "bench 4: %llu nodes, then %llu", a, b);
    /* Whatever the options and the history of this process. */
    expect_silent("setoption name Threads value 2");
    expect_silent("setoption name Hash value 1");
    expect_silent("setoption name MultiPV value 3");
    expect_silent("position startpos moves C3");
    go_t g;
    run_go(&g, REPLY_MS, "go depth 5");
    go_free(&g);
    settle();
    read_bench(&c, 4);
    cr_assert_eq(a, c, "bench 4 after changing options: %llu nodes, first %llu", c, a);
    read_bench(&d, 5);
    cr_assert_gt(d, a, "bench 5 (%llu nodes) searched no more than bench 4 (%llu)", d, a);
    /* And in one-shot mode, another process. */
    char *argv[] = {(char *)ENGINE, "bench", "4", NULL};
    finish_engine();
    pipe_free(eng);
    eng = pipe_start(argv, PIPE_KEEP_STDERR);
    cr_assert_not_null(eng);
    pipe_exit_t e = pipe_wait(eng, REPLY_MS);
    cr_assert(e.exited && e.code == 0, "bench 4 one-shot: code %d signal %d killed %d", e.code, e.signal, e.killed);
    char *line;
    cr_assert_eq(pipe_read_until(eng, "Nodes searched: ", 0, NULL, &line), PIPE_LINE);
    char want[64];
    snprintf(want, sizeof want, "Nodes searched: %llu", a);
    cr_assert_str_eq(line, want);
}

Test(uci, two_threads_search_legally)
{
    start_engine();
    expect_silent("setoption name Threads value 2");
    uint32_t seed = 77u;
    for (int k = 0; k < 30; k++) {
        game_t gm;
        game_from(&gm, NULL, REP_FORBID);
        random_moves(&gm, &seed, (int)(rng_next(&seed) % 90));
        if (game_result(&gm).reason != RESULT_NONE) {
            game_free(&gm);
            continue;
        }
        set_game(&gm);
        go_t g;
        if (k % 3 == 0)
            run_go(&g, REPLY_MS, "go depth 6");
        else if (k % 3 == 1)
            run_go(&g, REPLY_MS, "go nodes 20000");
        else
            run_go(&g, REPLY_MS, "go movetime 30");
        check_go_shape(&g);
        check_go_legal(&g, &gm);
        go_free(&g);
        game_free(&gm);
    }
    send_line("go infinite");
    await_search();
    send_line("stop");
    go_t g;
    collect_go(&g, pipe_sent_at(eng), REPLY_MS);
    cr_assert_leq(go_ms(&g), LATENCY_MS, "two threads: bestmove %.1f ms after stop", go_ms(&g));
    go_free(&g);
    expect_quiet("the last bestmove");
    finish_engine();
}

Test(uci, hash_1_and_clear_hash)
{
    static const char POS[] = "position startpos moves C3 A1B2 D4 E5D5 B4";
    start_engine();
    expect_silent("setoption name Hash value 1");
    expect_silent(POS);
    go_t a, b, c;
    run_go(&a, REPLY_MS, "go depth 9");
    check_go_shape(&a);
    cr_assert_gt(go_last(&a)->hashfull, 0, "hashfull 0 after a depth 9 search in 1 MB");
    /* The table keeps what was learnt: the same search again costs fewer nodes. */
    run_go(&b, REPLY_MS, "go depth 9");
    cr_assert_lt(go_last(&b)->nodes, go_last(&a)->nodes, "the second search did not use the table");
    go_free(&b);
    /* Clear Hash forgets it: the search is the first one again. */
    settle();
    expect_silent("setoption name Clear Hash");
    run_go(&c, REPLY_MS, "go depth 9");
    cr_assert_eq(go_last(&c)->nodes, go_last(&a)->nodes, "after Clear Hash: %llu nodes, the first search %llu",
                 go_last(&c)->nodes, go_last(&a)->nodes);
    cr_assert_str_eq(c.bestline, a.bestline);
    go_free(&a);
    go_free(&c);
    settle();
    expect_silent("setoption name Hash value 128");
    run_go(&a, REPLY_MS, "go depth 6");
    check_go_shape(&a);
    go_free(&a);
    finish_engine();
}

/* ---- one go, one bestmove: the history and the rule in force ---- */

/* A game that repeated under `draw` and goes on under `forbid`: its moves stay (the rule
 * applies from the next move on), and every kind of go answers with a legal move. */
Test(uci, a_game_repeated_under_draw_searches_under_forbid)
{
    static const char OBX[] = "GTGGX/GGGGT/GGGGG/GGGGG/TGTGG g @0 c0";
    static const char *const MOVES[] = {"D2E1", "E2D2", "E1E2", "D2E1", "E2D2", "E1E2"};
    start_engine();
    game_t gm;
    game_from(&gm, OBX, REP_DRAW);
    for (size_t i = 0; i < sizeof MOVES / sizeof MOVES[0]; i++)
        play_text(&gm, MOVES[i]);
    gm.rule = REP_FORBID;
    cr_assert_gt(game_legal_moves(&gm, (move_t[MAX_MOVES]){0}), 0, "the game must go on under forbid");
    expect_silent("setoption name Repetition value draw");
    expect_silent("position obx GTGGX/GGGGT/GGGGG/GGGGG/TGTGG g @0 c0 moves D2E1 E2D2 E1E2 D2E1 E2D2 E1E2");
    expect_silent("setoption name Repetition value forbid");
    go_t g;
    const char *const gos[] = {"go depth 2", "go movetime 100", "go nodes 500"};
    for (size_t i = 0; i < sizeof gos / sizeof gos[0]; i++) {
        run_go(&g, REPLY_MS, "%s", gos[i]);
        cr_assert_eq(g.nstrings, 0, "%s printed '%s'", gos[i], g.lines.count ? g.lines.line[0] : "");
        check_go_shape(&g);
        check_go_legal(&g, &gm);
        go_free(&g);
        settle();
    }
    send_line("go infinite");
    char *line;
    pipe_status_t st = pipe_read_until(eng, "info depth", REPLY_MS, NULL, &line);
    cr_assert_eq(st, PIPE_LINE, "go infinite: no info line (%s)", pipe_status_name(st));
    send_line("stop");
    collect_go(&g, pipe_sent_at(eng), REPLY_MS);
    cr_assert_eq(g.nstrings, 0);
    check_go_legal(&g, &gm);
    go_free(&g);
    game_free(&gm);
    finish_engine();
}

/* searchmoves takes only moves legal in the game: under `forbid` a move that recreates an
 * earlier position is refused like any illegal move, alone or beside a legal one. */
Test(uci, searchmoves_refuses_a_move_illegal_by_repetition)
{
    start_engine();
    expect_silent("position obx GGGGX/GTGTG/XGXGX/GTGTG/XGGGG t @0 c4 moves B2A3 A4A5 A3B2");
    expect_one_line("go depth 2 searchmoves A5A4",
                    "info string error: searchmoves: A5A4 recreates an earlier position (Repetition forbid)");
    expect_one_line("go depth 2 searchmoves C4C3 A5A4",
                    "info string error: searchmoves: A5A4 recreates an earlier position (Repetition forbid)");
    expect_quiet("rejected searchmoves");
    go_t g;
    run_go(&g, REPLY_MS, "go depth 2 searchmoves C4C3");
    cr_assert_str_eq(g.best.best, "C4C3");
    go_free(&g);
    finish_engine();
}

/* ---- the reading thread never waits long ---- */

#define LONGGAME BAGHCHAL_BIN_DIR "/longgame"

/* A position command holding a legal game of the given plies, made by tools/longgame. */
static char *long_position(int plies)
{
    char n[16];
    snprintf(n, sizeof n, "%d", plies);
    char *argv[] = {(char *)LONGGAME, "plies", n, NULL};
    pipe_proc_t *gen = pipe_start(argv, 0);
    cr_assert_not_null(gen, "cannot start %s: %s", LONGGAME, strerror(errno));
    char *line;
    cr_assert_eq(pipe_read_line(gen, 60000, &line), PIPE_LINE, "no line from longgame");
    char *copy = strdup(line);
    cr_assert_not_null(copy);
    pipe_exit_t e = pipe_finish(gen, 10000);
    cr_assert(e.exited && e.code == 0, "longgame ended with code %d", e.code);
    pipe_free(gen);
    return copy;
}

/* Sends isready and returns the ms until readyok; nothing but info lines may come between. */
static double ready_ms(void)
{
    pipe_lines_t out = {0};
    char *line;
    send_line("isready");
    double sent = pipe_sent_at(eng);
    cr_assert_eq(pipe_read_until(eng, "readyok", 60000 * SLOW, &out, &line), PIPE_LINE, "no readyok");
    for (size_t i = 0; i < out.count; i++)
        cr_assert(starts_with(out.line[i], "info ") && !starts_with(out.line[i], "info string"), "'%s' before readyok",
                  out.line[i]);
    pipe_lines_free(&out);
    return pipe_line_at(eng) - sent;
}

/* A 30,000-ply game is taken in time linear in its length, and a go on it does not replay
 * it on the reading thread: isready answers at once during the search. */
Test(uci, a_30000_ply_game_keeps_the_engine_responsive)
{
    char *cmd = long_position(30000);
    const char *moves = strstr(cmd, " moves ");
    cr_assert_not_null(moves);
    game_t gm;
    game_from(&gm, NULL, REP_FORBID);
    char *copy = strdup(moves + 7), *save = NULL;
    cr_assert_not_null(copy);
    for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
        play_text(&gm, t);
    free(copy);
    cr_assert_eq(gm.count, 30000);
    char obx[OBX_MAX_LEN], want[OBX_MAX_LEN + 8];
    obx_meta_t meta = game_meta(&gm);
    obx_format(game_position(&gm), &meta, OBX_V2, obx, sizeof obx);
    snprintf(want, sizeof want, "OBX: %s", obx);

    start_engine();
    cr_assert_eq(pipe_send(eng, "%s", cmd), 0);
    double ms = ready_ms();
    cr_assert_leq(ms, 1000.0 * SLOW, "position with 30,000 plies: readyok %.0f ms after isready", ms);
    pipe_lines_t out = {0};
    send_line("d");
    sync_collect(&out);
    bool found = false;
    for (size_t i = 0; i < out.count; i++)
        found |= strcmp(out.line[i], want) == 0;
    cr_assert(found, "d does not show '%s'", want);
    pipe_lines_free(&out);

    send_line("go infinite");
    await_search();
    ms = ready_ms();
    cr_assert_leq(ms, 4.0 * LATENCY_MS, "readyok %.0f ms after isready during a search of a 30,000-ply game", ms);
    send_line("stop");
    go_t g;
    collect_go(&g, pipe_sent_at(eng), REPLY_MS);
    cr_assert_leq(go_ms(&g), 4.0 * LATENCY_MS, "bestmove %.0f ms after stop", go_ms(&g));
    check_go_legal(&g, &gm);
    go_free(&g);
    game_free(&gm);
    free(cmd);
    finish_engine();
}

/* bench runs like a search: isready is answered during it, stop ends it with a message,
 * quit ends it and the program. */
Test(uci, bench_runs_like_a_search)
{
    start_engine();
    send_line("bench 40");
    double ms = ready_ms();
    cr_assert_leq(ms, 4.0 * LATENCY_MS, "readyok %.0f ms after isready during bench 40", ms);
    expect_one_line("bench 3", "info string error: cannot run bench while searching");
    expect_one_line("setoption name Hash value 8", "info string error: cannot change Hash while searching");
    send_line("stop");
    double sent = pipe_sent_at(eng);
    char *line;
    cr_assert_eq(pipe_read_line(eng, REPLY_MS, &line), PIPE_LINE, "bench 40 went on after stop");
    cr_assert(starts_with(line, "info string bench stopped after ") && strstr(line, " of 50 positions"), "'%s'",
              line);
    cr_assert_leq(pipe_line_at(eng) - sent, 4.0 * LATENCY_MS, "bench stopped %.0f ms after stop",
                  pipe_line_at(eng) - sent);
    expect_silent("setoption name Hash value 8");

    send_line("bench 40");
    ms = ready_ms();
    cr_assert_leq(ms, 4.0 * LATENCY_MS, "readyok %.0f ms after isready during bench 40", ms);
    send_line("quit");
    pipe_exit_t e = pipe_wait(eng, REPLY_MS);
    cr_assert(!e.killed && e.exited && e.code == 0, "quit during bench: code %d, killed %d", e.code, e.killed);
    cr_assert_leq(e.ms, 4.0 * LATENCY_MS + 100, "quit during bench took %.0f ms", e.ms);
}

/* ---- limits hold whatever the thread count ---- */

/* go nodes N with one thread searches exactly N nodes, from any position and any N. */
Test(uci, nodes_limit_is_exact_with_one_thread)
{
    static const char *const POSITIONS[] = {"position startpos", "position startpos moves C3 A1B2 D4 E5D5",
                                            "position obx GGGGG/GXXTG/GTXGG/GXTGG/GGTGG g @0 c3"};
    static const int NODES[] = {1000, 2345, 5000, 12345, 40000, 77777};
    start_engine();
    for (size_t p = 0; p < sizeof POSITIONS / sizeof POSITIONS[0]; p++) {
        expect_silent(POSITIONS[p]);
        for (size_t i = 0; i < sizeof NODES / sizeof NODES[0]; i++) {
            go_t g;
            run_go(&g, REPLY_MS, "go nodes %d", NODES[i]);
            cr_assert_eq(go_last(&g)->nodes, (unsigned long long)NODES[i], "%s, go nodes %d: %llu nodes",
                         POSITIONS[p], NODES[i], go_last(&g)->nodes);
            go_free(&g);
        }
    }
    finish_engine();
}

/* Threads 256 on a machine with a few processors: the time and node limits hold, and
 * isready and stop are answered at once during the search. */
Test(uci, threads_256_keep_the_limits)
{
    start_engine();
    expect_silent("setoption name Threads value 256");
    expect_silent("position startpos moves C3 A1B2 D4 E5D5");
    double t[3];
    for (int i = 0; i < 3; i++) {
        go_t g;
        run_go(&g, REPLY_MS, "go movetime 100");
        t[i] = go_ms(&g);
        go_free(&g);
    }
    /* Bounds for a loaded machine: the point is that they hold at all (without the bound on
     * the threads these took 0.7-1.9 s). */
    double m = median(t, 3);
    cr_assert_leq(m, 100 + 4 * TIMED_SLACK_MS, "Threads 256, go movetime 100: median answer after %.0f ms", m);
    for (int i = 0; i < 3; i++) {
        go_t g;
        run_go(&g, REPLY_MS, "go gtime 60 ttime 60");
        t[i] = go_ms(&g);
        go_free(&g);
    }
    m = median(t, 3);
    cr_assert_leq(m, 60 + 4 * TIMED_SLACK_MS, "Threads 256, a 60 ms clock: median answer after %.0f ms", m);
    static const int NODES[] = {5000, 20000, 100000};
    for (size_t i = 0; i < sizeof NODES / sizeof NODES[0]; i++) {
        go_t g;
        run_go(&g, REPLY_MS, "go nodes %d", NODES[i]);
        unsigned long long n = go_last(&g)->nodes;
        cr_assert(n >= (unsigned long long)NODES[i] && n <= (unsigned long long)NODES[i] * 9 / 8,
                  "Threads 256, go nodes %d: %llu nodes", NODES[i], n);
        go_free(&g);
    }
    send_line("go infinite");
    await_search();
    double r[5];
    for (int i = 0; i < 5; i++)
        r[i] = ready_ms();
    m = median(r, 5);
    cr_assert_leq(m, LATENCY_MS, "Threads 256: readyok %.1f ms after isready (median)", m);
    send_line("stop");
    go_t g;
    collect_go(&g, pipe_sent_at(eng), REPLY_MS);
    cr_assert_leq(go_ms(&g), 4.0 * LATENCY_MS, "Threads 256: bestmove %.0f ms after stop", go_ms(&g));
    go_free(&g);
    finish_engine();
}

/* A proven value ends the iterations: a mate found within the depth searched does not change
 * deeper, so go depth 60 stops at the depth of the mate. */
Test(uci, a_proven_mate_ends_the_iterations)
{
    start_engine();
    expect_silent("position obx GGGGX/GTGTG/XGXGX/GTGTG/XGGGG t @0 c4");
    go_t g;
    run_go(&g, REPLY_MS, "go depth 60");
    const info_t *last = go_last(&g);
    cr_assert(last->mate && last->score == 2, "score %s %lld", last->mate ? "mate" : "cp", last->score);
    cr_assert_leq(last->depth, 3, "a mate in 3 plies searched on to depth %d", last->depth);
    cr_assert_leq(g.ninfo, 4, "%d info lines for a mate in 3 plies", g.ninfo);
    go_free(&g);
    /* go infinite still waits for stop. */
    send_line("go infinite");
    pipe_lines_t before = {0};
    char *line;
    cr_assert_eq(pipe_read_until(eng, "bestmove", QUIET_MS, &before, &line), PIPE_TIMEOUT,
                 "go infinite on a proven mate answered without stop");
    cr_assert_leq(before.count, 4, "go infinite printed %zu lines for a mate in 3 plies", before.count);
    pipe_lines_free(&before);
    send_line("stop");
    collect_go(&g, pipe_sent_at(eng), REPLY_MS);
    /* Several moves mate in 2 here (B2A3, B2C3, D2C3, ...): the one played is the proven line's. */
    last = go_last(&g);
    cr_assert(last->mate && last->score == 2, "go infinite: score %s %lld", last->mate ? "mate" : "cp", last->score);
    cr_assert_str_eq(g.best.best, last->pv[0], "bestmove %s, the mate's line starts with %s", g.best.best, last->pv[0]);
    go_free(&g);
    finish_engine();
}

/* Skill Level 0 over the pipe: only the lines asked for are printed, the move is a legal one
 * and, after ucinewgame, the same position gives the same move again. */
Test(uci, skill_level_is_reproducible_and_prints_only_asked_lines)
{
    start_engine();
    expect_silent("setoption name Skill Level value 0");
    char first[MOVE_TEXT_LEN] = "";
    for (int round = 0; round < 2; round++) {
        send_line("ucinewgame");
        send_line("position startpos moves C3 A1B1");
        go_t g;
        run_go(&g, REPLY_MS, "go depth 4");
        /* The last info is the picked line's, which may be one an earlier iteration left
         * (PROTOCOL.md, Skill Level): the iterations before it have the usual shape. */
        cr_assert_gt(g.ninfo, 1);
        cr_assert_str_eq(go_last(&g)->pv[0], g.best.best);
        for (int i = 1; i < g.ninfo - 1; i++)
            cr_assert(g.info[i].depth >= g.info[i - 1].depth && g.info[i].nodes >= g.info[i - 1].nodes,
                      "info %d: depth %d after %d, nodes %llu after %llu", i, g.info[i].depth, g.info[i - 1].depth,
                      g.info[i].nodes, g.info[i - 1].nodes);
        for (int i = 0; i < g.ninfo; i++)
            cr_assert_eq(g.info[i].multipv, 1, "a line the caller did not ask for: multipv %d", g.info[i].multipv);
        game_t game;
        game_from(&game, "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0", REP_FORBID);
        play_text(&game, "C3");
        play_text(&game, "A1B1");
        check_go_legal(&g, &game);
        game_free(&game);
        if (round == 0)
            snprintf(first, sizeof first, "%s", g.best.best);
        else
            cr_assert_str_eq(g.best.best, first, "Skill Level 0 played %s, then %s", first, g.best.best);
        go_free(&g);
    }
    expect_silent("setoption name UCI_LimitStrength value true");
    expect_silent("setoption name UCI_Elo value 600");
    finish_engine();
}

/* After stop, a command that needs an idle engine waits for the search to end instead of
 * being refused (as Stockfish does), and readyok comes only after the bestmove. */
Test(uci, commands_after_stop_wait_for_the_search_to_end)
{
    static const char *const cmds[] = {"setoption name Hash value 32", "setoption name Clear Hash",
                                       "setoption name Threads value 1", "setoption name MultiPV value 1",
                                       "setoption name Repetition value forbid"};
    start_engine();
    expect_silent("position startpos moves C3 A1B2 D4");
    for (int i = 0; i < 20; i++) {
        send_line(i % 2 ? "go infinite" : "go depth 60");
        await_search();
        send_line("stop");
        send_line("%s", cmds[i % 5]);
        pipe_lines_t out = {0};
        sync_collect(&out);
        int best = 0;
        for (size_t k = 0; k < out.count; k++) {
            cr_assert(starts_with(out.line[k], "info depth ") || starts_with(out.line[k], "bestmove "),
                      "stop, '%s': '%s'", cmds[i % 5], out.line[k]);
            best += starts_with(out.line[k], "bestmove ");
        }
        cr_assert_eq(best, 1, "stop, '%s': %d bestmoves before readyok", cmds[i % 5], best);
        pipe_lines_free(&out);
    }
    /* stop, isready: the bestmove comes before readyok. */
    for (int i = 0; i < 20; i++) {
        send_line(i % 2 ? "go infinite" : "bench 40");
        if (i % 2)
            await_search();
        send_line("stop");
        pipe_lines_t out = {0};
        sync_collect(&out);
        cr_assert_gt(out.count, 0, "stop, isready: readyok before the search's end");
        cr_assert(starts_with(out.line[out.count - 1], i % 2 ? "bestmove " : "info string bench stopped"),
                  "'%s' before readyok", out.line[out.count - 1]);
        pipe_lines_free(&out);
        expect_silent("setoption name Hash value 16");
    }
    /* perft right after stop, many times: the search's thread marks the engine idle just
     * before it prints bestmove, and perft once printed its moves in between (a round in 40
     * under AddressSanitizer). */
    for (int i = 0; i < 60; i++) {
        send_line("go infinite");
        await_search();
        struct timespec ts = {0, (i % 4) * 5000000L}; /* stopped at various depths */
        nanosleep(&ts, NULL);
        send_line("stop");
        send_line("go perft 1");
        pipe_lines_t out = {0};
        char *line;
        /* perft runs on a thread of its own: its lines end with Nodes searched. */
        cr_assert_eq(pipe_read_until(eng, "Nodes searched: ", REPLY_MS, &out, &line), PIPE_LINE, "no perft count");
        cr_assert_geq(out.count, 1 + 15 + 1, "stop, go perft 1: %zu lines", out.count);
        cr_assert(starts_with(out.line[out.count - 17], "bestmove "), "round %d: '%s'", i, out.line[out.count - 17]);
        pipe_lines_free(&out);
    }
    /* bench and perft right after stop. */
    for (int i = 0; i < 5; i++) {
        send_line("go infinite");
        await_search();
        send_line("stop");
        send_line("go perft 1");
        pipe_lines_t out = {0};
        char *line;
        cr_assert_eq(pipe_read_until(eng, "Nodes searched: ", REPLY_MS, &out, &line), PIPE_LINE, "no perft count");
        /* The position after C3 A1B2 D4 has 15 moves. */
        cr_assert_geq(out.count, 1 + 15 + 1, "stop, go perft 1: %zu lines", out.count);
        cr_assert_str_eq(line, "Nodes searched: 15");
        cr_assert(starts_with(out.line[out.count - 17], "bestmove "), "'%s'", out.line[out.count - 17]);
        pipe_lines_free(&out);
        send_line("go infinite");
        await_search();
        send_line("stop");
        send_line("bench 1");
        cr_assert_eq(pipe_read_until(eng, "Nodes/second", REPLY_MS, &out, &line), PIPE_LINE, "no bench after stop");
        for (size_t k = 0; k < out.count; k++)
            cr_assert(!starts_with(out.line[k], "info string error"), "'%s'", out.line[k]);
        pipe_lines_free(&out);
    }
    /* A search still running (not told to stop) refuses as before. */
    send_line("go infinite");
    await_search();
    send_line("setoption name Hash value 32");
    pipe_lines_t out = {0};
    sync_collect(&out);
    int errors = 0;
    for (size_t k = 0; k < out.count; k++) {
        if (starts_with(out.line[k], "info depth "))
            continue; /* the search goes on */
        cr_assert_str_eq(out.line[k], "info string error: cannot change Hash while searching");
        errors++;
    }
    cr_assert_eq(errors, 1);
    pipe_lines_free(&out);
    send_line("stop");
    char *line;
    cr_assert_eq(pipe_read_until(eng, "bestmove ", REPLY_MS, NULL, &line), PIPE_LINE);
    expect_silent("setoption name Hash value 32");
    finish_engine();
}

/* Clocks up to the clamp give a sane time: a long clock never answers at once (the clock
 * arithmetic does not overflow), and the search goes on until stop. */
Test(uci, huge_clocks_think_and_do_not_overflow)
{
    static const char *const cases[] = {
        "go gtime 78884345118058804 movestogo 1",
        "go gtime 78884345118058803 movestogo 1",
        "go gtime 2305843009213693951 movestogo 1",
        "go gtime 99999999999999999999 movestogo 1",
        "go gtime 99999999999999999999",
        "go gtime 99999999999999999999 ginc 99999999999999999999",
        "go gtime 1000000 ginc 99999999999999999999 movestogo 5",
        "go wtime 9223372036854775807 winc 9223372036854775807 movestogo 1000",
    };
    start_engine();
    expect_silent("position startpos moves C3 A1B2");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        send_line("%s", cases[i]);
        double sent = pipe_sent_at(eng);
        char *line;
        pipe_lines_t out = {0};
        pipe_status_t s = pipe_read_until(eng, "bestmove", 300, &out, &line);
        cr_assert_eq(s, PIPE_TIMEOUT, "'%s' answered after %.1f ms", cases[i], pipe_now_ms() - sent);
        pipe_lines_free(&out);
        send_line("stop");
        go_t g;
        collect_go(&g, pipe_sent_at(eng), REPLY_MS);
        check_go_shape(&g);
        cr_assert_gt(go_last(&g)->depth, 1, "'%s' searched depth %d only", cases[i], go_last(&g)->depth);
        go_free(&g);
    }
    finish_engine();
}

/* Each MultiPV line is searched over the moves the earlier lines left, with its own window,
 * so a later line can score more than an earlier one: every depth's lines are still
 * reported best first (a position where that happens, every move a line). */
Test(uci, multipv_lines_are_best_first_at_every_depth)
{
    start_engine();
    expect_silent("setoption name MultiPV value 64");
    expect_silent("position obx GGGGG/GTXTG/GXXXG/GTXTX/GGGGX g @6 c0 mE5D4 #t14");
    go_t g;
    run_go(&g, REPLY_MS, "go depth 8");
    check_go_shape(&g);
    int lines_per_depth = 0;
    for (int i = 0; i < g.ninfo && g.info[i].depth == g.info[0].depth; i++)
        lines_per_depth++;
    cr_assert_gt(lines_per_depth, 3);
    int depths = 0;
    for (int i = 0; i + lines_per_depth <= g.ninfo - 1; i += lines_per_depth, depths++)
        for (int k = 1; k < lines_per_depth; k++) {
            const info_t *a = &g.info[i + k - 1], *b = &g.info[i + k];
            cr_assert_eq(b->depth, a->depth);
            cr_assert_eq(b->multipv, k + 1);
            cr_assert_leq(b->score, a->score, "depth %d: multipv %d (%s) scores %lld, more than multipv %d (%s, %lld)",
                          a->depth, k + 1, b->pv[0], b->score, k, a->pv[0], a->score);
        }
    cr_assert_eq(depths, 8);
    go_free(&g);
    finish_engine();
}

/* ---- when the clock starts ---- */


/* Commands written in one go, as a script or a pipelining client sends them: the engine
 * takes each line up only when the one before is done, so a go behind slow commands (a
 * large table, a long game, a database to load) still gets its whole time, counted from
 * when it is taken up. */
Test(uci, a_go_behind_slow_commands_keeps_its_whole_time)
{
    const int movetime = 400;
    start_engine();
    char *longgame = long_position(30000);
    const char *dir = tree_database_dir();
    size_t cap = strlen(longgame) + 1024;
    char *batch = malloc(cap);
    cr_assert_not_null(batch);
    /* isready between the slow commands and the go: readyok marks when they are done. */
    int n = snprintf(batch, cap,
                     "setoption name Hash value 256\n%s%s%s%s\nisready\nposition startpos moves C3\ngo movetime %d\n",
                     dir ? "setoption name TablebasePath value " : "", dir ? dir : "", dir ? "\n" : "", longgame,
                     movetime);
    cr_assert(n > 0 && (size_t)n < cap);
    send_raw(batch);
    free(batch);
    free(longgame);
    pipe_lines_t before = {0};
    char *line;
    cr_assert_eq(pipe_read_until(eng, "readyok", 60000 * SLOW, &before, &line), PIPE_LINE, "no readyok");
    pipe_lines_free(&before);
    go_t g;
    collect_go(&g, pipe_line_at(eng), REPLY_MS);
    check_go_shape(&g);
    /* The search ends min(Move Overhead, movetime / 5) early: it never ends before that. The
     * engine's own count is exact; what the test sees from readyok to bestmove can be short by
     * how late a loaded machine let the test read the readyok. */
    double whole = movetime - OVERHEAD_MS;
    cr_assert_geq(go_ms(&g), whole - 5 - TIMED_SLACK_MS, "the go after the slow commands answered %.0f ms after readyok",
                  go_ms(&g));
    cr_assert_geq(go_last(&g)->time, whole - 5, "the last info line says time %lld", go_last(&g)->time);
    cr_assert_gt(go_last(&g)->depth, 1, "a %d ms search stopped at depth %d", movetime, go_last(&g)->depth);
    go_free(&g);
    finish_engine();
}

/* The first go, with no isready before it, loads the standard folder's database: the load is
 * not the move's time, the clock starts after it. */
Test(uci, the_first_go_does_not_charge_the_database_load_to_the_move)
{
    const char *dir = tree_database_dir();
    if (!dir)
        cr_skip_test("no database in BAGHCHAL_TB_DIR");
    cr_assert_eq(setenv("BAGHCHAL_TABLEBASE_PATH", dir, 1), 0);
    const int movetime = 300;
    start_engine();
    send_raw("position startpos\ngo movetime 300\n");
    double sent = pipe_sent_at(eng);
    char *line;
    cr_assert_eq(pipe_read_until(eng, "info string tablebase loaded from ", 60000 * SLOW, NULL, &line), PIPE_LINE,
                 "the first go did not load the database");
    double loaded = pipe_line_at(eng);
    go_t g;
    collect_go(&g, loaded, REPLY_MS);
    check_go_shape(&g);
    /* Measured here, the load's time is a little long (this process may read the line late)
     * and the search's a little short: the bounds leave room for that. */
    double whole = movetime - OVERHEAD_MS, load = loaded - sent;
    cr_assert_geq(go_ms(&g), whole * 0.8, "the search took %.0f ms after the load (%.0f ms): the load was charged",
                  go_ms(&g), load);
    /* info time counts from the clock's start, after the load: depth 1 comes at once. A
     * charged load shows in it whole. */
    if (load >= 20)
        cr_assert_lt(g.info[0].time, load / 2, "depth 1 says time %lld after a load of %.0f ms", g.info[0].time, load);
    go_free(&g);
    finish_engine();
}

/* ---- the last info line ---- */

/* A search stopped inside an iteration answers with the last completed one: its final info
 * line repeats that iteration's line (depth, seldepth, score, bound, pv), never a depth with
 * the next iteration's unfinished score or line. go nodes stops at the same node every time,
 * inside an iteration at each of these counts (the mixed lines were found so). */
Test(uci, the_last_info_line_is_the_last_completed_iteration)
{
    static const struct {
        const char *position;
        int nodes;
    } runs[] = {
        {"position startpos", 150000},
        {"position startpos", 300000},
        {"position startpos moves C3", 100000},
        {"position startpos moves C3", 200000},
        {"position startpos moves C3", 600000},
        {"position obx GGGGG/GXXTG/GTXGG/GXTGG/GGTGG g @0 c3", 400000},
    };
    start_engine();
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        expect_silent("ucinewgame");
        expect_silent(runs[r].position);
        go_t g;
        run_go(&g, REPLY_MS * 4, "go nodes %d", runs[r].nodes);
        check_go_shape(&g);
        cr_assert_geq(g.ninfo, 2, "%s: %d info lines", runs[r].position, g.ninfo);
        const info_t *final = &g.info[g.ninfo - 1], *last = &g.info[g.ninfo - 2];
        cr_assert_eq(final->depth, last->depth, "%s, %d nodes: final depth %d after depth %d", runs[r].position,
                     runs[r].nodes, final->depth, last->depth);
        cr_assert_eq(final->seldepth, last->seldepth, "%s, %d nodes", runs[r].position, runs[r].nodes);
        cr_assert_eq(final->mate, last->mate, "%s, %d nodes", runs[r].position, runs[r].nodes);
        cr_assert_eq(final->score, last->score, "%s, %d nodes: depth %d says score %lld, then %lld", runs[r].position,
                     runs[r].nodes, final->depth, last->score, final->score);
        cr_assert_eq(final->bound, last->bound, "%s, %d nodes", runs[r].position, runs[r].nodes);
        cr_assert_eq(final->pv_len, last->pv_len, "%s, %d nodes: pv of %d moves, then %d", runs[r].position,
                     runs[r].nodes, last->pv_len, final->pv_len);
        for (int i = 0; i < final->pv_len; i++)
            cr_assert_str_eq(final->pv[i], last->pv[i], "%s, %d nodes: pv move %d", runs[r].position, runs[r].nodes,
                             i + 1);
        cr_assert_eq(final->nodes, (unsigned long long)runs[r].nodes, "the search stopped inside an iteration");
        go_free(&g);
    }
    /* Timed searches stop anywhere: the same holds for each. */
    for (int r = 0; r < 8; r++) {
        expect_silent(r % 2 ? "position startpos moves C3" : "position startpos");
        go_t g;
        run_go(&g, REPLY_MS, "go movetime %d", 60 + 20 * r);
        check_go_shape(&g);
        if (g.ninfo >= 2) {
            const info_t *final = &g.info[g.ninfo - 1], *last = &g.info[g.ninfo - 2];
            cr_assert_eq(final->depth, last->depth);
            cr_assert_eq(final->score, last->score, "movetime %d: depth %d says score %lld, then %lld", 60 + 20 * r,
                         final->depth, last->score, final->score);
            cr_assert_eq(final->pv_len, last->pv_len);
        }
        go_free(&g);
    }
    finish_engine();
}
