/* baghchal-referee: every fake engine's fault gives the right termination and leaves no
 * process behind (not even when the referee is killed); clocks, stopped searches and
 * protocol faults; real matches give consistent, reproducible records that --check accepts
 * (and tampered ones that it rejects) whatever the concurrency, PGN that reads back as the
 * records, and runs that resume; Ctrl-C, SPRT, openings, adjudication and the command line;
 * Elo, error, LOS and LLR (trinomial and pentanomial) against independent computations. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include <criterion/criterion.h>

#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "baghchal.h"
#include "pipe.h"

/* The statistics are plain functions: test them directly. */
#include "../tools/referee/stats.c"

#define BIN BAGHCHAL_BIN_DIR
#define REFEREE BIN "/baghchal-referee"

/* Short timeouts keep the faults of the fakes fast; sanitizer builds still start within them. */
#define TIMEOUTS "init=3000", "ready=1500", "stall=1500", "quit=500"
/* Real engines under ThreadSanitizer on a loaded machine take seconds to start: matches
 * that expect no fault give them time. */
#define REAL_TIMEOUTS "init=30000", "ready=30000", "stall=30000", "quit=3000"

enum { RUN_MS = 50000, MAX_ARGS = 96 };

/* The JSON keys of the terminations, in report order; the faults start at FIRST_FAULT. */
static const char *const TERMS[] = {"five_goats_captured", "tigers_trapped", "goats_without_a_move", "repetition",
                                    "move_limit", "database", "score", "time_forfeit", "illegal_move", "crash",
                                    "stall", "disconnect", "protocol_fault"};
enum { TERMS_NB = sizeof TERMS / sizeof TERMS[0], FIRST_FAULT = 7 };

TestSuite(referee, .timeout = 120);

/* ---- running the referee ---- */

typedef struct {
    char *v[MAX_ARGS + 1];
    int n;
} args_t;

static void add(args_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(args_t *a, const char *fmt, ...)
{
    cr_assert_lt(a->n, MAX_ARGS);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
}

static void add_list(args_t *a, const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    for (const char *s = first; s; s = va_arg(ap, const char *))
        add(a, "%s", s);
    va_end(ap);
}

static void args_free(args_t *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    a->n = 0;
}

typedef struct {
    pipe_exit_t exit;
    char *out; /* standard output (and error when merged) */
    double ms;
} run_t;

static void run_free(run_t *r)
{
    free(r->out);
    r->out = NULL;
}

/* Reads everything p prints until it closes its output, then waits for it. */
static run_t collect(pipe_proc_t *p, double t0)
{
    run_t r = {0};
    size_t len = 0, cap = 4096;
    r.out = malloc(cap);
    cr_assert_not_null(r.out);
    r.out[0] = '\0';
    for (;;) {
        int left = (int)(t0 + RUN_MS - pipe_now_ms());
        char *line;
        pipe_status_t s = pipe_read_line(p, left > 0 ? left : 0, &line);
        if (s != PIPE_LINE) {
            cr_assert_eq(s, PIPE_EOF, "the referee did not finish: %s", pipe_status_name(s));
            break;
        }
        size_t n = strlen(line);
        while (len + n + 2 > cap) {
            cap *= 2;
            r.out = realloc(r.out, cap);
            cr_assert_not_null(r.out);
        }
        memcpy(r.out + len, line, n);
        len += n;
        r.out[len++] = '\n';
        r.out[len] = '\0';
    }
    r.exit = pipe_wait(p, 10000);
    r.ms = pipe_now_ms() - t0;
    cr_assert(!r.exit.killed, "the referee had to be killed");
    return r;
}

static run_t run_args(args_t *a)
{
    double t0 = pipe_now_ms();
    pipe_proc_t *p = pipe_start(a->v, 0);
    cr_assert_not_null(p, "cannot start %s: %s", a->v[0], strerror(errno));
    run_t r = collect(p, t0);
    pipe_free(p);
    return r;
}

/* Runs argv with standard error merged into the output. */
static run_t run_args_merged(args_t *a)
{
    char *argv[MAX_ARGS + 5] = {"/bin/sh", "-c", "exec \"$@\" 2>&1", "sh"};
    for (int i = 0; i <= a->n; i++)
        argv[4 + i] = a->v[i];
    double t0 = pipe_now_ms();
    pipe_proc_t *p = pipe_start(argv, 0);
    cr_assert_not_null(p);
    run_t r = collect(p, t0);
    pipe_free(p);
    return r;
}

/* Runs a shell command line with standard error merged into the output. */
static run_t run_shell(const char *cmd)
{
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    double t0 = pipe_now_ms();
    pipe_proc_t *p = pipe_start(argv, 0);
    cr_assert_not_null(p);
    run_t r = collect(p, t0);
    pipe_free(p);
    return r;
}

/* ---- scratch files and processes ---- */

typedef struct {
    char dir[64];
} scratch_t;

static void scratch_init(scratch_t *s)
{
    snprintf(s->dir, sizeof s->dir, "/tmp/bcref-XXXXXX");
    cr_assert_not_null(mkdtemp(s->dir), "mkdtemp: %s", strerror(errno));
}

static char *path_in(const scratch_t *s, const char *name)
{
    static __thread char buf[4][600];
    static __thread int k;
    char *b = buf[k++ % 4];
    snprintf(b, sizeof buf[0], "%s/%s", s->dir, name);
    return b;
}

static void scratch_free(scratch_t *s)
{
    DIR *d = opendir(s->dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                unlink(path_in(s, e->d_name));
        closedir(d);
    }
    rmdir(s->dir);
}

/* A link to the real engine under a unique path, so its processes can be told apart from
 * other suites' engines running at the same time. */
static const char *engine_link(scratch_t *s, const char *name)
{
    char *link = path_in(s, name);
    cr_assert_eq(symlink(BIN "/baghchal", link), 0, "symlink: %s", strerror(errno));
    return link;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s: %s", path, strerror(errno));
    size_t cap = 4096, len = 0;
    char *b = malloc(cap);
    cr_assert_not_null(b);
    size_t n;
    while ((n = fread(b + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            cap *= 2;
            b = realloc(b, cap);
            cr_assert_not_null(b);
        }
    }
    b[len] = '\0';
    fclose(f);
    return b;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    cr_assert_eq(fputs(text, f) >= 0, true);
    cr_assert_eq(fclose(f), 0);
}

/* Processes (not zombies: those have an empty command line) whose command line holds tag. */
static int processes_with(const char *tag)
{
    DIR *d = opendir("/proc");
    cr_assert_not_null(d);
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], buf[4096];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (size_t i = 0; i < n; i++)
            if (buf[i] == '\0')
                buf[i] = ' ';
        buf[n] = '\0';
        if (n > 0 && strstr(buf, tag) && (pid_t)atol(e->d_name) != getpid())
            count++;
    }
    closedir(d);
    return count;
}

/* The integer after `"key": ` in the JSON text (the first occurrence after `after`). */
static long long json_int(const char *json, const char *after, const char *key)
{
    const char *s = after ? strstr(json, after) : json;
    cr_assert_not_null(s, "no %s in the summary", after);
    char pat[96];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *k = strstr(s, pat);
    cr_assert_not_null(k, "no \"%s\" in the summary:\n%s", key, json);
    return atoll(k + strlen(pat));
}

static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Records without their Date lines (the only part that may change between runs). */
static char *without_dates(const char *text)
{
    char *out = malloc(strlen(text) + 1);
    cr_assert_not_null(out);
    size_t k = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
        if (strncmp(p, "[Date ", 6) != 0) {
            memcpy(out + k, p, n);
            k += n;
        }
        p += n;
    }
    out[k] = '\0';
    return out;
}

/* Records without the settings at their head, as a referee older than them wrote them. */
static char *without_settings(const char *text)
{
    char *t = strdup(text);
    cr_assert_not_null(t);
    size_t k = 0;
    for (const char *p = t; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
        if (strncmp(p, "; setting ", 10) != 0) {
            memmove(t + k, p, n);
            k += n;
        }
        p += n;
    }
    t[k] = '\0';
    return t;
}

/* The games of records, without their Date lines and the settings at the head of the file
 * (the tests' runs of one match start the engines through links of different names). */
static char *games_only(const char *text)
{
    char *t = without_dates(text);
    char *g = without_settings(t);
    free(t);
    return g;
}

static void expect_check(const char *records, int want_status)
{
    args_t a = {0};
    add_list(&a, REFEREE, "--check", records, NULL);
    run_t r = run_args(&a);
    cr_assert(r.exit.exited && r.exit.code == want_status, "--check %s exited %d, expected %d:\n%s", records,
              r.exit.code, want_status, r.out);
    run_free(&r);
    args_free(&a);
}

/* ---- faults ---- */

typedef struct {
    const char *fake;  /* fake_<name> as the first engine */
    const char *args;  /* its extra arguments */
    const char *limit; /* -each limit */
    int rounds;
    const char *term;  /* the JSON key expected for every game */
    int expected;      /* games with that termination */
    int restarts;      /* of the fake, -1: not checked: a process that failed and is started
                        * again for a later game (a failure in the last game restarts nothing) */
    char **log;        /* when set, receives the protocol log of the run */
} fault_case_t;

/* The fake plays fake_good twice per round; every game ends as expected, the fake loses
 * them all, --check accepts the records and nothing with the run's tag survives it. */
static void fault_case(const fault_case_t *c, run_t *run_out, char **json_out)
{
    scratch_t s;
    scratch_init(&s);
    char tag[96];
    snprintf(tag, sizeof tag, "reftag-%s-%ld", c->fake, (long)getpid());
    args_t a = {0};
    add(&a, REFEREE);
    add_list(&a, "-engine", NULL);
    add(&a, "cmd=" BIN "/fake_%s", c->fake);
    add(&a, "name=%s", c->fake);
    add(&a, "args=--tag %s %s", tag, c->args ? c->args : "");
    add_list(&a, "-engine", "cmd=" BIN "/fake_good", "name=good", NULL);
    add(&a, "args=--tag %s", tag);
    add_list(&a, "-each", c->limit, "-timeouts", TIMEOUTS, "-seed", "1", "-progress", "0", "-maxfailures", "3", NULL);
    add(&a, "-rounds");
    add(&a, "%d", c->rounds);
    add_list(&a, "-records", path_in(&s, "records.txt"), "-json", path_in(&s, "summary.json"), NULL);
    if (c->log)
        add_list(&a, "-log", path_in(&s, "log.txt"), NULL);
    run_t r = run_args(&a);
    args_free(&a);
    cr_assert(r.exit.exited && r.exit.code == 0, "exit %d signal %d:\n%s", r.exit.code, r.exit.signal, r.out);
    if (c->log)
        *c->log = read_file(path_in(&s, "log.txt"));
    char *json = read_file(path_in(&s, "summary.json"));
    cr_assert_eq(json_int(json, NULL, c->term), c->expected, "%s: %s\n%s", c->fake, c->term, r.out);
    long long counted = json_int(json, "\"games\"", "counted");
    cr_assert_eq(json_int(json, "\"pairs\"", "losses"), counted, "the fake must lose every game:\n%s", r.out);
    if (c->restarts >= 0)
        cr_assert_eq(json_int(json, "\"engines\"", "restarts"), c->restarts, "%s", r.out);
    expect_check(path_in(&s, "records.txt"), 0);
    cr_assert_eq(processes_with(tag), 0, "processes of %s left behind", c->fake);
    scratch_free(&s);
    if (run_out)
        *run_out = r;
    else
        run_free(&r);
    if (json_out)
        *json_out = json;
    else
        free(json);
}

Test(referee, crash_at_move_n)
{
    fault_case_t c = {"crash", "--at 3", "depth=1", 1, "crash", 2,1, NULL};
    fault_case(&c, NULL, NULL);
}

Test(referee, hang_with_a_clock_is_a_time_forfeit)
{
    /* The hanging fake also leaves a child in its process group: both must go. */
    fault_case_t c = {"hang", "--at 2", "tc=0.4+0.05", 1, "time_forfeit", 2,1, NULL};
    fault_case(&c, NULL, NULL);
}

Test(referee, hang_without_a_clock_is_a_stall)
{
    fault_case_t c = {"hang", "--at 2", "depth=1", 1, "stall", 2,1, NULL};
    fault_case(&c, NULL, NULL);
}

Test(referee, garbage_is_an_illegal_move)
{
    fault_case_t c = {"garbage", "--at 2", "depth=1", 1, "illegal_move", 2, 0, NULL};
    fault_case(&c, NULL, NULL);
}

Test(referee, illegal_move)
{
    fault_case_t c = {"illegal", "--at 3", "depth=1", 1, "illegal_move", 2, 0, NULL};
    fault_case(&c, NULL, NULL);
}

Test(referee, late_answer_is_a_time_forfeit_without_restart)
{
    /* The late bestmove arrives within the ready timeout, so the engine stays in use. */
    fault_case_t c = {"slow", "--at 2 --sleep 700", "tc=0.3+0.03", 1, "time_forfeit", 2, 0, NULL};
    fault_case(&c, NULL, NULL);
}

Test(referee, endless_output_is_a_time_forfeit)
{
    fault_case_t c = {"flood", "--at 2", "tc=0.3+0.03", 1, "time_forfeit", 2,1, NULL};
    fault_case(&c, NULL, NULL);
}

Test(referee, closed_output_is_a_disconnect)
{
    fault_case_t c = {"disconnect", "--at 2", "depth=1", 1, "disconnect", 2,1, NULL};
    fault_case(&c, NULL, NULL);
}

/* An engine that fails to start or to get ready for its games: they are not played, not
 * counted (no result, no termination), and each has a note with the failure in its place;
 * the engine is restarted for its next game and nothing survives the run. */
static void start_failure_case(const char *fake, const char *args, const char *term, const char *reason)
{
    scratch_t s;
    scratch_init(&s);
    char tag[96];
    snprintf(tag, sizeof tag, "reftag-start-%s-%ld", fake, (long)getpid());
    args_t a = {0};
    add(&a, REFEREE);
    add(&a, "-engine");
    add(&a, "cmd=" BIN "/fake_%s", fake);
    add(&a, "args=--tag %s %s", tag, args ? args : "");
    add_list(&a, "-engine", "cmd=" BIN "/fake_good", "name=good", NULL);
    add(&a, "args=--tag %s", tag);
    add_list(&a, "-each", "depth=1", "-timeouts", TIMEOUTS, "-seed", "1", "-progress", "0", "-rounds", "1", "-records",
             path_in(&s, "records.txt"), "-json", path_in(&s, "summary.json"), NULL);
    run_t r = run_args(&a);
    args_free(&a);
    cr_assert(r.exit.exited && r.exit.code == 0, "exit %d signal %d:\n%s", r.exit.code, r.exit.signal, r.out);
    char *json = read_file(path_in(&s, "summary.json"));
    cr_assert_eq(json_int(json, "\"games\"", "counted"), 0, "%s", r.out);
    cr_assert_eq(json_int(json, "\"games\"", "not_played"), 2, "%s", r.out);
    cr_assert_eq(json_int(json, "\"games\"", "aborted"), 0, "%s", r.out);
    cr_assert_eq(json_int(json, "\"pairs\"", "games"), 0, "%s", json);
    for (int t = 0; t < TERMS_NB; t++)
        cr_assert_eq(json_int(json, "\"terminations\"", TERMS[t]), 0, "%s:\n%s", TERMS[t], json);
    /* A process started again for a game that is then not played is no restart of a game
     * counted; no games, no score: "-" in the text, null in the JSON. */
    cr_assert_eq(json_int(json, "\"engines\"", "restarts"), 0, "%s", r.out);
    cr_assert(strstr(r.out, "restarts 0\n") && !strstr(r.out, "restarts 1"), "%s", r.out);
    cr_assert(strstr(r.out, "Games: 2 scheduled, 0 counted, 0 aborted, 2 not played"), "%s", r.out);
    cr_assert(strstr(r.out, "  total                              0       0       0        -\n"
                            "  Elo -, LOS - (no games)\n") &&
              strstr(r.out, "(0 pairs)\n  Elo -, nElo -, LOS - (no pairs)\n"), "%s", r.out);
    cr_assert(!strstr(r.out, "0.0%") && !strstr(r.out, "50.0%"), "%s", r.out);
    cr_assert(strstr(json, "\"score\": null, \"elo\": null, \"elo_error\": null, \"los\": null,") &&
              strstr(json, "\"penta_elo\": null, \"penta_elo_error\": null, \"nelo\": null, \"nelo_error\": null, "
                           "\"penta_los\": null}"), "%s", json);
    char *text = read_file(path_in(&s, "records.txt"));
    for (int game = 1; game <= 2; game++) {
        char head[128], tail[32];
        snprintf(head, sizeof head, "; game %d not played (%s): fake_%s %s", game, term, fake, reason);
        snprintf(tail, sizeof tail, " (%s)\n", game == 1 ? "goats" : "tigers");
        const char *note = strstr(text, head), *nl = note ? strchr(note, '\n') : NULL;
        cr_assert(nl && strncmp(nl + 1 - strlen(tail), tail, strlen(tail)) == 0, "expected '%s...%s' in:\n%s", head,
                  tail, text);
    }
    cr_assert_eq(count_of(text, "[Event "), 0, "%s", text);
    expect_check(path_in(&s, "records.txt"), 0);
    cr_assert_eq(processes_with(tag), 0, "processes of %s left behind", fake);
    free(text);
    free(json);
    run_free(&r);
    scratch_free(&s);
}

Test(referee, no_uciok_means_the_games_are_not_played)
{
    start_failure_case("nouci", NULL, "stall", "sent no uciok at startup (uci)");
}

Test(referee, no_readyok_means_the_games_are_not_played)
{
    start_failure_case("noready", NULL, "stall", "sent no readyok at startup");
}

Test(referee, exit_at_start_with_status_0_means_the_games_are_not_played)
{
    start_failure_case("exit", "--code 0", "disconnect", "exited at startup");
}

Test(referee, exit_at_start_with_status_3_means_the_games_are_not_played)
{
    start_failure_case("exit", "--code 3", "crash", "exited with status 3 at startup");
}

Test(referee, engine_ignoring_quit_is_killed)
{
    /* Normal games; at the end the fake ignores quit and SIGTERM and is killed. */
    scratch_t s;
    scratch_init(&s);
    char tag[64];
    snprintf(tag, sizeof tag, "reftag-quitless-%ld", (long)getpid());
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", "cmd=" BIN "/fake_quitless", NULL);
    add(&a, "args=--tag %s", tag);
    add_list(&a, "-engine", "cmd=" BIN "/fake_good", "-each", "depth=1", "-timeouts", TIMEOUTS, "-progress", "0",
             "-json", path_in(&s, "summary.json"), NULL);
    run_t r = run_args(&a);
    args_free(&a);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    char *json = read_file(path_in(&s, "summary.json"));
    cr_assert_eq(json_int(json, "\"games\"", "counted"), 2);
    for (int t = FIRST_FAULT; t < TERMS_NB; t++)
        cr_assert_eq(json_int(json, "\"terminations\"", TERMS[t]), 0, "%s", json);
    cr_assert_eq(processes_with(tag), 0, "the quitless fake survived the referee");
    free(json);
    run_free(&r);
    scratch_free(&s);
}

Test(referee, engine_dropped_after_repeated_failures)
{
    /* Exits at start every time: three failures drop it, the fourth game is not played
     * either; -resume from the first two games drops it at the same game. */
    scratch_t s;
    scratch_init(&s);
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", "cmd=" BIN "/fake_exit", "name=quitter", "-engine", "cmd=" BIN "/fake_good",
             "-each", "depth=1", "-rounds", "2", "-seed", "1", "-progress", "0", "-timeouts", TIMEOUTS, "-json",
             path_in(&s, "summary.json"), "-records", path_in(&s, "records.txt"), NULL);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            /* What a run stopped after game 2 leaves. */
            char *text = read_file(path_in(&s, "records.txt"));
            char *third = strstr(text, "; game 3 ");
            cr_assert_not_null(third, "%s", text);
            *third = '\0';
            write_file(path_in(&s, "records.txt"), text);
            free(text);
            add(&a, "-resume");
        }
        run_t r = run_args(&a);
        cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
        char *json = read_file(path_in(&s, "summary.json"));
        cr_assert_eq(json_int(json, "\"games\"", "counted"), 0, "%s", r.out);
        cr_assert_eq(json_int(json, "\"games\"", "not_played"), 4, "%s", r.out);
        cr_assert(strstr(json, "\"dropped\": true"), "%s", json);
        cr_assert(strstr(r.out, "game 3: quitter exited at startup") &&
                  strstr(r.out, " (goats); quitter dropped after 3 consecutive failures"), "%s", r.out);
        char *text = read_file(path_in(&s, "records.txt"));
        const char *third = strstr(text, "; game 3 not played (disconnect): quitter exited at startup");
        cr_assert(third && strstr(third, " (goats)\n\n; game 4 not played: an engine was dropped\n"), "%s", text);
        expect_check(path_in(&s, "records.txt"), 0);
        free(text);
        free(json);
        run_free(&r);
    }
    args_free(&a);
    scratch_free(&s);
}

Test(referee, stopped_search_bestmove_is_awaited_before_isready)
{
    /* The fake answers readyok at once and prints the stopped search's bestmove 700 ms
     * after the go: taken after the readyok, it would be read as a move of the next game.
     * The referee sends stop, waits for that bestmove, and only then sends isready. */
    char *log = NULL;
    fault_case_t c = {"stale", "--at 2 --sleep 700", "tc=0.3+0.03", 1, "time_forfeit", 2, 0, &log};
    char *json;
    run_t r;
    fault_case(&c, &r, &json);
    for (int t = FIRST_FAULT; t < TERMS_NB; t++)
        if (strcmp(TERMS[t], "time_forfeit") != 0)
            cr_assert_eq(json_int(json, "\"terminations\"", TERMS[t]), 0, "%s:\n%s", TERMS[t], r.out);
    int stops = 0;
    for (const char *stop = strstr(log, "> stop"); stop; stop = strstr(stop + 1, "> stop")) {
        const char *best = strstr(stop, "< bestmove"), *ready = strstr(stop, "> isready");
        cr_assert(best && ready && best < ready, "isready sent before the stopped search's bestmove:\n%s", stop);
        stops++;
    }
    cr_assert_eq(stops, 2, "%s", log);
    free(log);
    free(json);
    run_free(&r);
}

Test(referee, two_bestmoves_for_one_go_are_a_protocol_fault)
{
    fault_case_t c = {"double", "--at 3", "depth=1", 1, "protocol_fault", 2, 0, NULL};
    fault_case(&c, NULL, NULL);
}

Test(referee, crash_while_a_child_holds_the_pipe_is_seen_at_once)
{
    /* The child keeps the output pipe open: only the engine's own pid tells it died. Without
     * that the move would end as a time forfeit after the whole 8 s clock. */
    fault_case_t c = {"crashchild", "--at 2", "tc=8+0.1", 1, "crash", 2, -1, NULL};
    run_t r;
    fault_case(&c, &r, NULL);
    cr_assert_lt(r.ms, 6000, "the crashes took %.0f ms to be seen", r.ms);
    run_free(&r);
}

Test(referee, descendants_in_other_sessions_are_killed)
{
    /* The fake leaves a child in a session of its own and an orphaned grandchild in another. */
    scratch_t s;
    scratch_init(&s);
    char tag[64];
    snprintf(tag, sizeof tag, "reftag-setsid-%ld", (long)getpid());
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", "cmd=" BIN "/fake_setsid", NULL);
    add(&a, "args=--tag %s", tag);
    add_list(&a, "-engine", "cmd=" BIN "/fake_good", "-each", "depth=1", "restart=on", "-timeouts", TIMEOUTS,
             "-progress", "0", "-rounds", "2", "-json", path_in(&s, "summary.json"), NULL);
    run_t r = run_args(&a);
    args_free(&a);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    char *json = read_file(path_in(&s, "summary.json"));
    cr_assert_eq(json_int(json, "\"games\"", "counted"), 4);
    cr_assert_eq(processes_with(tag), 0, "descendants of the engine survived the referee");
    free(json);
    run_free(&r);
    scratch_free(&s);
}

/* Starts a referee with fake_<fake> (tagged) against fake_good, waits until `want`
 * processes with the tag run (the referee and its own helpers carry the tag too), ends
 * the referee with `signals` (a SIGINT is followed by the next signal once the referee says
 * it stops) and expects nothing with the tag to outlive it. */
static void kill_referee_case(const char *fake, int want, const int *signals, int signals_nb)
{
    char tag[64];
    snprintf(tag, sizeof tag, "reftag-kill%s-%ld", fake, (long)getpid());
    args_t a = {0};
    add(&a, REFEREE);
    add(&a, "-engine");
    add(&a, "cmd=" BIN "/fake_%s", fake);
    add(&a, "args=--tag %s", tag);
    add_list(&a, "-engine", "cmd=" BIN "/fake_good", NULL);
    add(&a, "args=--tag %s", tag);
    add_list(&a, "-each", "depth=1", "-rounds", "100000", "-progress", "0", NULL);
    pipe_proc_t *p = pipe_start(a.v, 0);
    cr_assert_not_null(p);
    args_free(&a);
    char *line;
    cr_assert_eq(pipe_read_line(p, 10000, &line), PIPE_LINE);
    int running = 0;
    for (int k = 0; k < 200 && (running = processes_with(tag)) < want; k++)
        nanosleep(&(struct timespec){0, 25 * 1000 * 1000L}, NULL);
    cr_assert_geq(running, want, "the engines and their children should be running");
    for (int k = 0; k < signals_nb; k++) {
        cr_assert_eq(kill(pipe_pid(p), signals[k]), 0);
        while (signals[k] == SIGINT && k + 1 < signals_nb) {
            cr_assert_eq(pipe_read_line(p, 10000, &line), PIPE_LINE);
            if (strncmp(line, "Interrupted", 11) == 0)
                break;
        }
    }
    pipe_exit_t x = pipe_wait(p, 10000);
    if (signals[signals_nb - 1] == SIGKILL)
        cr_assert_eq(x.signal, SIGKILL);
    else
        cr_assert(x.exited && x.code == 130, "exit %d signal %d", x.code, x.signal);
    pipe_free(p);
    int left = 0;
    for (int k = 0; k < 100 && (left = processes_with(tag)) > 0; k++)
        nanosleep(&(struct timespec){0, 30 * 1000 * 1000L}, NULL);
    cr_assert_eq(left, 0, "%d processes outlived the referee", left);
}

Test(referee, engine_children_die_with_a_killed_referee)
{
    /* SIGKILL leaves the referee no chance to clean up: the engine's supervisor does it. The
     * referee, both engines and the spawned child. */
    static const int kill9[] = {SIGKILL};
    kill_referee_case("spawn", 4, kill9, 1);
}

Test(referee, setsid_grandchild_dies_with_a_killed_referee)
{
    /* The grandchild runs sleep in a session of its own: no process group reaches it. The
     * referee, both engines, the child and the sleep. */
    static const int kill9[] = {SIGKILL};
    kill_referee_case("setsidsleep", 5, kill9, 1);
}

Test(referee, setsid_grandchild_dies_after_two_quick_ctrl_c)
{
    /* The second Ctrl-C leaves at once, while the engines are told to quit (the fake takes
     * a second to). */
    static const int twice[] = {SIGINT, SIGINT};
    kill_referee_case("setsidsleep", 5, twice, 2);
}

Test(referee, log_has_charged_and_engine_time_of_every_move)
{
    scratch_t s;
    scratch_init(&s);
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", "cmd=" BIN "/fake_good", "args=--think 15", "-engine", "cmd=" BIN "/fake_good",
             "-each", "tc=20+0.1", "-maxmoves", "12", "-repetition", "draw", "-progress", "0", "-records",
             path_in(&s, "records.txt"), "-log", path_in(&s, "log.txt"), NULL);
    run_t r = run_args(&a);
    args_free(&a);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    char *log = read_file(path_in(&s, "log.txt"));
    int moves = 0, slow = 0;
    for (const char *l = strstr(log, " = bestmove "); l; l = strstr(l + 1, " = bestmove ")) {
        const char *c = strstr(l, " charged ");
        cr_assert_not_null(c, "%.200s", l);
        double charged;
        long long engine;
        cr_assert_eq(sscanf(c, " charged %lf ms, engine time %lld ms", &charged, &engine), 2, "%.200s", l);
        /* The clock runs from before the write of go to the arrival of bestmove, so it holds
         * at least what the engine measured from reading go to writing bestmove. */
        cr_assert_geq(charged + 1e-9, (double)engine, "charged %.3f ms < engine time %lld ms", charged, engine);
        moves++;
        slow += engine >= 15;
    }
    cr_assert_eq(moves, 24, "one line per move of the two 12-ply games:\n%s", log);
    cr_assert_eq(slow, 12, "the thinking fake's moves report their time:\n%s", log);
    free(log);
    run_free(&r);
    scratch_free(&s);
}

Test(referee, concurrency_auto_and_the_starvation_warning)
{
    cpu_set_t set;
    cr_assert_eq(sched_getaffinity(0, sizeof set, &set), 0);
    int cores = CPU_COUNT(&set), want = cores / 2 > 0 ? cores / 2 : 1;
    char cmd[1024], header[160];
    snprintf(cmd, sizeof cmd, "%s -engine cmd=%s/fake_good -engine cmd=%s/fake_good -depth 1 -progress 0 "
             "-seed 3 -concurrency auto", REFEREE, BIN, BIN);
    run_t r = run_shell(cmd);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    snprintf(header, sizeof header, "concurrency %d (auto), seed 3\n", want);
    cr_assert(strstr(r.out, header), "expected '%s' in:\n%s", header, r.out);
    cr_assert_eq(strstr(r.out, "warning: ") != NULL, 2 * want > cores, "%s", r.out);
    run_free(&r);
    /* As many games as cores: twice as many engines as cores. */
    snprintf(cmd, sizeof cmd, "%s -engine cmd=%s/fake_good -engine cmd=%s/fake_good -depth 1 -progress 0 "
             "-concurrency %d", REFEREE, BIN, BIN, cores);
    r = run_shell(cmd);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    char warning[160];
    snprintf(warning, sizeof warning, "warning: %d game%s at once run %d engines on %d core", cores,
             cores == 1 ? "" : "s", 2 * cores, cores);
    cr_assert(strstr(r.out, warning), "expected '%s' in:\n%s", warning, r.out);
    run_free(&r);
}

Test(referee, dropped_engine_game_count_does_not_depend_on_concurrency)
{
    /* Six games, the fake failing each at start: dropped at game 3 whatever the concurrency,
     * even when games 4 to 6 were already started by other workers. */
    for (int conc = 1; conc <= 3; conc++) {
        scratch_t s;
        scratch_init(&s);
        args_t a = {0};
        add_list(&a, REFEREE, "-engine", "cmd=" BIN "/fake_exit", "name=quitter", "-engine", "cmd=" BIN "/fake_good",
                 "-each", "depth=1", "-rounds", "3", "-maxfailures", "3", "-progress", "0", "-timeouts", TIMEOUTS,
                 "-json", path_in(&s, "summary.json"), "-records", path_in(&s, "records.txt"), "-concurrency", NULL);
        add(&a, "%d", conc);
        run_t r = run_args(&a);
        args_free(&a);
        cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
        char *json = read_file(path_in(&s, "summary.json"));
        cr_assert_eq(json_int(json, "\"games\"", "counted"), 0, "concurrency %d:\n%s", conc, r.out);
        cr_assert_eq(json_int(json, "\"games\"", "not_played"), 6, "concurrency %d:\n%s", conc, r.out);
        cr_assert(strstr(r.out, "game 3: ") && strstr(r.out, "quitter dropped after 3 consecutive failures"),
                  "concurrency %d:\n%s", conc, r.out);
        char *text = read_file(path_in(&s, "records.txt"));
        cr_assert(strstr(text, "; game 4 not played: an engine was dropped\n") &&
                  strstr(text, "; game 6 not played: an engine was dropped\n"), "%s", text);
        free(text);
        expect_check(path_in(&s, "records.txt"), 0);
        free(json);
        run_free(&r);
        scratch_free(&s);
    }
}

Test(referee, progress_lines_at_every_multiple_whatever_the_batches)
{
    scratch_t s;
    scratch_init(&s);
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", "cmd=" BIN "/fake_good", "-engine", "cmd=" BIN "/fake_good", "-each",
             "depth=1", "-rounds", "12", "-concurrency", "4", "-progress", "3", NULL);
    run_t r = run_args(&a);
    args_free(&a);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    for (int k = 3; k <= 24; k += 3) {
        char want[32];
        snprintf(want, sizeof want, "\nGames %d/24", k);
        cr_assert(strstr(r.out, want), "no progress line for %d games:\n%s", k, r.out);
    }
    cr_assert_eq(count_of(r.out, "\nGames "), 8, "%s", r.out);
    run_free(&r);
    scratch_free(&s);
}

/* ---- real matches ---- */

/* Two real engines at a fixed depth; returns the records text. */
static char *real_match(scratch_t *s, const char *name, int concurrency, const char *extra)
{
    char records[300], json[310];
    snprintf(records, sizeof records, "%s", path_in(s, name));
    snprintf(json, sizeof json, "%s.json", records);
    char link_a[32], link_b[32];
    snprintf(link_a, sizeof link_a, "a-%s", name);
    snprintf(link_b, sizeof link_b, "b-%s", name);
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", NULL);
    add(&a, "cmd=%s", engine_link(s, link_a));
    add_list(&a, "name=alpha", "depth=2", "-engine", NULL);
    add(&a, "cmd=%s", engine_link(s, link_b));
    add_list(&a, "name=beta", "depth=1", "-each", "option.Hash=4", "-openings", "random=4", "-seed", "11",
             "-rounds", "4", "-progress", "0", "-timeouts", REAL_TIMEOUTS, "-records", records, "-json", json, NULL);
    add(&a, "-concurrency");
    add(&a, "%d", concurrency);
    if (extra)
        add(&a, "%s", extra);
    run_t r = run_args(&a);
    args_free(&a);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    char *summary = read_file(json);
    cr_assert_eq(json_int(summary, "\"games\"", "counted"), 8, "%s", r.out);
    long long sum = 0;
    for (int t = 0; t < TERMS_NB; t++)
        sum += json_int(summary, "\"terminations\"", TERMS[t]);
    cr_assert_eq(sum, 8, "terminations add up to %lld", sum);
    for (int t = FIRST_FAULT; t < TERMS_NB; t++)
        cr_assert_eq(json_int(summary, "\"terminations\"", TERMS[t]), 0, "a fault in a real match:\n%s", summary);
    run_free(&r);
    expect_check(records, 0);
    char *text = read_file(records);
    /* The pairs, counted from the records: alpha's points in games 2k-1 and 2k. */
    long long penta[5] = {0};
    const char *g = text;
    for (int pair = 0; pair < 4; pair++) {
        int half = 0;
        for (int k = 0; k < 2; k++) {
            g = strstr(g, "[Goats \"");
            cr_assert_not_null(g);
            bool alpha_goats = strncmp(g, "[Goats \"alpha\"]", 15) == 0;
            g = strstr(g, "[Result \"");
            cr_assert_not_null(g);
            g += 9;
            half += strncmp(g, "draw", 4) == 0 ? 1 : (strncmp(g, "goats", 5) == 0) == alpha_goats ? 2 : 0;
        }
        penta[half]++;
    }
    char want[96];
    snprintf(want, sizeof want, "\"pentanomial\": [%lld, %lld, %lld, %lld, %lld], \"pairs\": 4", penta[0], penta[1],
             penta[2], penta[3], penta[4]);
    cr_assert(strstr(summary, want), "expected %s in\n%s", want, summary);
    free(summary);
    cr_assert_eq(count_of(text, "[Game \""), 8);
    cr_assert_eq(count_of(text, "[Final \""), 8);
    cr_assert_eq(processes_with(s->dir), 0, "engine processes left behind");
    return text;
}

Test(referee, real_match_is_consistent_reproducible_and_independent_of_concurrency)
{
    scratch_t s;
    scratch_init(&s);
    char *one = real_match(&s, "one.txt", 1, NULL);
    char *again = real_match(&s, "again.txt", 1, NULL);
    char *two = real_match(&s, "two.txt", 2, NULL);
    char *a = games_only(one), *b = games_only(again), *c = games_only(two);
    cr_assert_str_eq(a, b, "the same seed and limits gave other games");
    cr_assert_str_eq(a, c, "concurrency 2 gave other games than concurrency 1");
    /* Each opening is played twice with the sides swapped. */
    cr_assert(strstr(one, "[Game \"1\"]\n[Round \"1\"]\n[Goats \"alpha\"]\n[Tigers \"beta\"]"), "%s", one);
    cr_assert(strstr(one, "[Game \"2\"]\n[Round \"1\"]\n[Goats \"beta\"]\n[Tigers \"alpha\"]"), "%s", one);
    free(a);
    free(b);
    free(c);
    free(one);
    free(again);
    free(two);
    scratch_free(&s);
}

/* Replaces the first occurrence of from (after the start of `after`) with to. */
static char *replace_once(const char *text, const char *after, const char *from, const char *to)
{
    const char *base = strstr(text, after);
    cr_assert_not_null(base, "no '%s'", after);
    const char *at = strstr(base, from);
    cr_assert_not_null(at, "no '%s'", from);
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    cr_assert_not_null(out);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

Test(referee, check_rejects_tampered_records)
{
    scratch_t s;
    scratch_init(&s);
    char *text = real_match(&s, "good.txt", 1, NULL);
    char *bad = path_in(&s, "bad.txt");

    /* The other side wins game 1. */
    const char *res = strstr(text, "[Result \"");
    cr_assert_not_null(res);
    char *t = strncmp(res, "[Result \"goats\"]", 16) == 0 ? replace_once(text, "[Result", "\"goats\"", "\"tigers\"")
                                                          : replace_once(text, "[Result", "\"tigers\"", "\"goats\"");
    write_file(bad, t);
    expect_check(bad, 1);
    free(t);

    /* The first goat move placed on a tiger. */
    const char *op = strstr(text, "[Opening \"");
    cr_assert_not_null(op);
    char obx[OBX_MAX_LEN + 1];
    snprintf(obx, sizeof obx, "%.*s", (int)strcspn(op + 10, "\""), op + 10);
    position_t p;
    cr_assert_eq(obx_parse(obx, &p, NULL, NULL, 0), BC_OK, "%s", obx);
    const char *first = strstr(text, "\n1. ");
    cr_assert_not_null(first);
    char move[8] = "", tiger[3];
    sscanf(first + 4, "%7s", move);
    square_name(bb_first(p.tigers), tiger);
    char from[16], to[16];
    snprintf(from, sizeof from, "1. %s ", move);
    snprintf(to, sizeof to, "1. %s ", tiger);
    t = replace_once(text, "\n1. ", from, to);
    write_file(bad, t);
    expect_check(bad, 1);
    free(t);

    /* A wrong ply count, and a wrong final position. */
    t = replace_once(text, "[Plies", "\"", "\"1");
    write_file(bad, t);
    expect_check(bad, 1);
    free(t);
    t = replace_once(text, "[Final", " c", " c1");
    write_file(bad, t);
    expect_check(bad, 1);
    free(t);

    /* A capture must name the jumped point. */
    const char *moves = strstr(text, "[Plies");
    const char *paren = moves ? strchr(strstr(moves, "\n\n"), '(') : NULL;
    cr_assert_not_null(paren, "no capture in the records");
    t = strdup(text);
    cr_assert_not_null(t);
    memmove(t + (paren - text), paren + 4, strlen(paren + 4) + 1);
    write_file(bad, t);
    expect_check(bad, 1);
    free(t);

    /* A game must end with its Final line. */
    t = replace_once(text, "[Game \"1\"]", "[Final \"", "[Comment \"");
    write_file(bad, t);
    expect_check(bad, 1);
    free(t);
    free(text);
    scratch_free(&s);
}

/* ---- PGN, read back by a parser of the PGN standard's export format ---- */

typedef struct {
    char tags[24][2][128];
    int ntags;
    char result[32]; /* the game termination marker */
    game_t game;     /* the moves replayed from the OBX tag */
    bool replayed;
} pgn_game_t;

static const char *pgn_tag(const pgn_game_t *g, const char *name)
{
    for (int i = 0; i < g->ntags; i++)
        if (strcmp(g->tags[i][0], name) == 0)
            return g->tags[i][1];
    return NULL;
}

/* Reads the next game at *p: tag pairs `[Name "value"]` (value with \\ and \" escapes), then
 * movetext tokens: move numbers ("12." or "12..."), {comments}, SAN-like move tokens and
 * the termination marker. Every move must be legal from the OBX tag. False at the end. */
static bool pgn_next(const char **p, pgn_game_t *g)
{
    memset(g, 0, sizeof *g);
    const char *s = *p;
    while (*s == '\n' || *s == ' ')
        s++;
    if (!*s)
        return false;
    while (*s == '[') {
        cr_assert_lt(g->ntags, 24);
        s++;
        size_t n = 0;
        while (*s && *s != ' ' && n < 127)
            g->tags[g->ntags][0][n++] = *s++;
        cr_assert_eq(*s, ' ', "bad tag near '%.40s'", s);
        s++;
        cr_assert_eq(*s, '"', "bad tag value near '%.40s'", s);
        s++;
        n = 0;
        while (*s && *s != '"' && n < 127) {
            if (*s == '\\')
                s++;
            g->tags[g->ntags][1][n++] = *s++;
        }
        cr_assert_eq(s[0], '"');
        cr_assert_eq(s[1], ']');
        cr_assert_eq(s[2], '\n');
        s += 3;
        g->ntags++;
    }
    cr_assert_eq(*s, '\n', "a blank line must follow the tags");
    position_t start;
    obx_meta_t meta;
    const char *obx = pgn_tag(g, "OBX");
    cr_assert_not_null(obx, "no OBX tag");
    cr_assert_eq(obx_parse(obx, &start, &meta, NULL, 0), BC_OK, "%s", obx);
    const char *rep = pgn_tag(g, "Repetition");
    cr_assert(game_init(&g->game, &start, &meta, rep && strcmp(rep, "draw") == 0 ? REP_DRAW : REP_FORBID));
    g->replayed = true;
    for (;;) {
        while (*s == ' ' || *s == '\n')
            s++;
        cr_assert(*s, "the movetext has no termination marker");
        if (*s == '{') {
            const char *e = strchr(s, '}');
            cr_assert_not_null(e, "unterminated comment");
            s = e + 1;
            continue;
        }
        cr_assert(*s != '(' && *s != ')' && *s != ';', "unexpected '%c' in the movetext", *s);
        char tok[32];
        size_t n = 0;
        while (*s && *s != ' ' && *s != '\n' && n < sizeof tok - 1)
            tok[n++] = *s++;
        tok[n] = '\0';
        if (!strcmp(tok, "1-0") || !strcmp(tok, "0-1") || !strcmp(tok, "1/2-1/2") || !strcmp(tok, "*")) {
            snprintf(g->result, sizeof g->result, "%s", tok);
            break;
        }
        size_t d = strspn(tok, "0123456789");
        if (d > 0 && (!strcmp(tok + d, ".") || !strcmp(tok + d, "...")))
            continue;
        char msg[160];
        cr_assert_eq(game_play_text(&g->game, tok, msg, sizeof msg), BC_OK, "PGN move '%s': %s", tok, msg);
    }
    *p = s;
    return true;
}

static void pgn_free(pgn_game_t *g)
{
    if (g->replayed)
        game_free(&g->game);
}

/* The value of tag name in the text of one record game starting at rec. */
static void record_tag(const char *rec, const char *name, char *out, size_t len)
{
    char pat[64];
    snprintf(pat, sizeof pat, "[%s \"", name);
    const char *t = strstr(rec, pat);
    cr_assert_not_null(t, "no %s in the record", name);
    t += strlen(pat);
    snprintf(out, len, "%.*s", (int)strcspn(t, "\""), t);
}

Test(referee, pgn_output_reads_back_as_the_records)
{
    scratch_t s;
    scratch_init(&s);
    char *records = real_match(&s, "pgn-records.txt", 2, NULL);
    /* The same match again with -pgnout (the games are the same at any concurrency). */
    char *again = NULL;
    {
        char pgn_opt[400];
        snprintf(pgn_opt, sizeof pgn_opt, "%s", path_in(&s, "games.pgn"));
        args_t a = {0};
        add_list(&a, REFEREE, "-engine", NULL);
        add(&a, "cmd=%s", engine_link(&s, "pa"));
        add_list(&a, "name=alpha", "depth=2", "-engine", NULL);
        add(&a, "cmd=%s", engine_link(&s, "pb"));
        add_list(&a, "name=beta", "depth=1", "-each", "option.Hash=4", "-openings", "random=4", "-seed", "11",
                 "-rounds", "4", "-progress", "0", "-timeouts", REAL_TIMEOUTS, "-concurrency", "2", "-records",
                 path_in(&s, "again.txt"), "-pgnout", pgn_opt, NULL);
        run_t r = run_args(&a);
        args_free(&a);
        cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
        run_free(&r);
        again = read_file(path_in(&s, "again.txt"));
    }
    char *x = games_only(records), *y = games_only(again);
    cr_assert_str_eq(x, y);
    free(x);
    free(y);
    char *pgn = read_file(path_in(&s, "games.pgn"));
    const char *p = pgn, *rec = records;
    int games = 0;
    pgn_game_t g;
    while (pgn_next(&p, &g)) {
        games++;
        rec = strstr(rec, "[Game \"");
        cr_assert_not_null(rec);
        char v[128], w[128];
        /* The seven tag roster, in order. */
        static const char *const roster[] = {"Event", "Site", "Date", "Round", "White", "Black", "Result"};
        for (int k = 0; k < 7; k++)
            cr_assert_str_eq(g.tags[k][0], roster[k]);
        record_tag(rec, "Goats", v, sizeof v);
        cr_assert_str_eq(pgn_tag(&g, "White"), v);
        record_tag(rec, "Tigers", v, sizeof v);
        cr_assert_str_eq(pgn_tag(&g, "Black"), v);
        record_tag(rec, "Result", v, sizeof v);
        const char *want = !strcmp(v, "goats") ? "1-0" : !strcmp(v, "tigers") ? "0-1" : "1/2-1/2";
        cr_assert_str_eq(pgn_tag(&g, "Result"), want);
        cr_assert_str_eq(g.result, want, "the termination marker must repeat the Result tag");
        cr_assert_str_eq(pgn_tag(&g, "Variant"), "Bagh-Chal");
        record_tag(rec, "Opening", v, sizeof v);
        cr_assert_str_eq(pgn_tag(&g, "OBX"), v);
        record_tag(rec, "Plies", v, sizeof v);
        cr_assert_str_eq(pgn_tag(&g, "PlyCount"), v);
        snprintf(w, sizeof w, "%zu", g.game.count);
        cr_assert_str_eq(w, v, "the movetext has %s plies, the records %s", w, v);
        /* The replayed PGN moves reach the records' final position. */
        record_tag(rec, "Final", v, sizeof v);
        char obx[OBX_MAX_LEN];
        obx_meta_t fm = game_meta(&g.game);
        obx_format(game_position(&g.game), &fm, OBX_V2, obx, sizeof obx);
        cr_assert_str_eq(obx, v);
        cr_assert_not_null(pgn_tag(&g, "Termination"));
        rec++;
        pgn_free(&g);
    }
    cr_assert_eq(games, 8);
    free(pgn);
    free(records);
    free(again);
    scratch_free(&s);
}

/* --check's report on a file: exit status 1 and the expected text. */
static void expect_check_says(const char *records, const char *text)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "%s --check %s 2>&1", REFEREE, records);
    run_t r = run_shell(cmd);
    cr_assert(r.exit.exited && r.exit.code == 1, "--check exited %d:\n%s", r.exit.code, r.out);
    cr_assert(strstr(r.out, text), "expected '%s' in:\n%s", text, r.out);
    run_free(&r);
}

/* The text of game n (1-based) of a records file, from its Event tag to its blank line. */
static void game_span(const char *text, int n, const char **from, const char **to)
{
    const char *g = text;
    for (int k = 0; k < n; k++) {
        g = strstr(k ? g + 1 : g, "[Event ");
        cr_assert_not_null(g);
    }
    *from = g;
    const char *fin = strstr(g, "[Final ");
    cr_assert_not_null(fin);
    *to = strchr(fin, '\n') + 2;
}

Test(referee, check_catches_numbering_results_terminations_and_points_at_moves)
{
    scratch_t s;
    scratch_init(&s);
    char *text = real_match(&s, "good.txt", 1, NULL);
    char *bad = path_in(&s, "bad.txt");
    const char *a, *b;

    /* Game 3 removed. */
    game_span(text, 3, &a, &b);
    char *t = malloc(strlen(text) + 1);
    cr_assert_not_null(t);
    snprintf(t, strlen(text) + 1, "%.*s%s", (int)(a - text), text, b);
    write_file(bad, t);
    expect_check_says(bad, "game 3 missing from the numbering before game 4");
    free(t);

    /* Game 2 twice. */
    game_span(text, 2, &a, &b);
    size_t n = strlen(text) + (size_t)(b - a) + 1;
    t = malloc(n);
    cr_assert_not_null(t);
    snprintf(t, n, "%.*s%.*s%s", (int)(b - text), text, (int)(b - a), a, b);
    write_file(bad, t);
    expect_check_says(bad, "game 2 appears again");
    free(t);

    /* An empty file. */
    write_file(bad, "");
    expect_check_says(bad, "bad.txt: no games");

    /* A move on the second movetext line of a game: the problem is reported at that line. */
    const char *moves = NULL;
    long line = 0;
    for (int g = 1; g <= 8 && !moves; g++) {
        game_span(text, g, &a, &b);
        const char *first = strstr(a, "\n\n") + 2, *second = strchr(first, '\n') + 1;
        if (strncmp(second, "[Final", 6) != 0)
            moves = second;
    }
    cr_assert_not_null(moves, "no game with two lines of moves");
    for (const char *q = text; q < moves; q++)
        line += *q == '\n';
    line++;
    /* Its first move replaced by something that is no move. */
    const char *tok = moves;
    size_t tl;
    while (strspn(tok, "0123456789.") == (tl = strcspn(tok, " \n"))) /* move numbers */
        tok += tl + 1;
    n = strlen(text) + 8;
    t = malloc(n);
    cr_assert_not_null(t);
    snprintf(t, n, "%.*s%s%s", (int)(tok - text), text, "ZZ9", tok + tl);
    write_file(bad, t);
    char where[600];
    snprintf(where, sizeof where, "bad.txt:%ld: game ", line);
    expect_check_says(bad, where);
    free(t);
    free(text);

    /* Faults: the side at fault cannot win, and the Termination must be what the Reason says. */
    args_t args = {0};
    add_list(&args, REFEREE, "-engine", "cmd=" BIN "/fake_illegal", "name=cheat", "args=--at 2", "-engine",
             "cmd=" BIN "/fake_good", "name=honest", "-each", "depth=1", "-progress", "0", "-records",
             path_in(&s, "faults.txt"), NULL);
    run_t r = run_args(&args);
    args_free(&args);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    run_free(&r);
    expect_check(path_in(&s, "faults.txt"), 0);
    text = read_file(path_in(&s, "faults.txt"));
    cr_assert(strstr(text, "[Goats \"cheat\"]") < strstr(text, "[Result \"tigers\"]"));
    t = replace_once(text, "[Goats \"cheat\"]", "[Result \"tigers\"]", "[Result \"goats\"]");
    write_file(bad, t);
    expect_check_says(bad, "Result names goats, the side at fault (illegal move), as the winner");
    free(t);
    t = replace_once(text, "[Game \"1\"]", "[Termination \"illegal move\"]", "[Termination \"crash\"]");
    write_file(bad, t);
    expect_check_says(bad, "the Reason does not describe a crash");
    free(t);
    free(text);
    scratch_free(&s);
}

Test(referee, sigint_ends_the_run_with_partial_results)
{
    scratch_t s;
    scratch_init(&s);
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", NULL);
    add(&a, "cmd=%s", engine_link(&s, "engine-a"));
    add_list(&a, "-engine", NULL);
    add(&a, "cmd=%s", engine_link(&s, "engine-b"));
    add_list(&a, "-each", "depth=4", "option.Hash=4", "-openings", "random=6", "-rounds", "100000", "-concurrency",
             "2", "-progress", "0", "-records", path_in(&s, "records.txt"), "-json", path_in(&s, "summary.json"),
             NULL);
    double t0 = pipe_now_ms();
    pipe_proc_t *p = pipe_start(a.v, 0);
    cr_assert_not_null(p);
    args_free(&a);
    char *line;
    /* The header says the engines are about to start; give them a moment to play. */
    cr_assert_eq(pipe_read_line(p, 10000, &line), PIPE_LINE);
    nanosleep(&(struct timespec){0, 800 * 1000 * 1000L}, NULL);
    cr_assert_eq(kill(pipe_pid(p), SIGINT), 0);
    double sent = pipe_now_ms();
    run_t r = collect(p, t0);
    pipe_free(p);
    cr_assert(r.exit.exited && r.exit.code == 130, "exit %d:\n%s", r.exit.code, r.out);
    cr_assert_lt(pipe_now_ms() - sent, 8000, "the referee took too long to stop");
    char *json = read_file(path_in(&s, "summary.json"));
    cr_assert(strstr(json, "\"interrupted\": true"), "%s", json);
    cr_assert_lt(json_int(json, "\"games\"", "counted"), 200000);
    cr_assert_leq(json_int(json, "\"games\"", "aborted"), 2);
    expect_check(path_in(&s, "records.txt"), 0);
    cr_assert_eq(processes_with(s.dir), 0, "engine processes left behind");
    free(json);
    run_free(&r);
    scratch_free(&s);
}

Test(referee, a_game_the_run_stops_before_it_starts_is_not_counted)
{
    /* The fake never answers uci: Ctrl-C comes while the referee waits for it. */
    scratch_t s;
    scratch_init(&s);
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", "cmd=" BIN "/fake_nouci", "-engine", "cmd=" BIN "/fake_good", "-each", "depth=1",
             "-timeouts", "init=20000", "-progress", "0", "-records", path_in(&s, "records.txt"), "-json",
             path_in(&s, "summary.json"), NULL);
    double t0 = pipe_now_ms();
    pipe_proc_t *p = pipe_start(a.v, 0);
    cr_assert_not_null(p);
    args_free(&a);
    char *line;
    cr_assert_eq(pipe_read_line(p, 10000, &line), PIPE_LINE);
    nanosleep(&(struct timespec){0, 300 * 1000 * 1000L}, NULL);
    cr_assert_eq(kill(pipe_pid(p), SIGINT), 0);
    run_t r = collect(p, t0);
    pipe_free(p);
    cr_assert(r.exit.exited && r.exit.code == 130, "exit %d:\n%s", r.exit.code, r.out);
    cr_assert(strstr(r.out, "Games: 2 scheduled, 0 counted, 0 aborted, 0 not played"), "%s", r.out);
    char *json = read_file(path_in(&s, "summary.json"));
    cr_assert_eq(json_int(json, "\"games\"", "counted"), 0, "%s", json);
    cr_assert_eq(json_int(json, "\"games\"", "aborted"), 0, "%s", json);
    cr_assert_eq(json_int(json, "\"games\"", "not_played"), 0, "%s", json);
    for (int t = 0; t < TERMS_NB; t++)
        cr_assert_eq(json_int(json, "\"terminations\"", TERMS[t]), 0, "%s:\n%s", TERMS[t], json);
    char *text = read_file(path_in(&s, "records.txt"));
    char *games = games_only(text);
    cr_assert_str_eq(games, "; game 1 not started: the run stopped before it\n\n");
    free(games);
    expect_check(path_in(&s, "records.txt"), 0);
    free(text);
    free(json);
    run_free(&r);
    scratch_free(&s);
}

/* A 12-game match of two real engines at fixed depths, with -resume when asked. */
static run_t resume_match(scratch_t *s, const char *seed, const char *alpha_depth, bool resume)
{
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", NULL);
    add(&a, "cmd=%s", BIN "/baghchal");
    add_list(&a, "name=alpha", alpha_depth, "-engine", "cmd=" BIN "/baghchal", "name=beta", "depth=1", "-each",
             "option.Hash=4", "-openings", "random=4", "-seed", seed, "-rounds", "6", "-progress", "0", "-records",
             path_in(s, "run.txt"), "-pgnout", path_in(s, "run.pgn"), "-json", path_in(s, "run.json"), NULL);
    if (resume)
        add(&a, "-resume");
    run_t r = run_args_merged(&a);
    args_free(&a);
    return r;
}

/* What an interrupted run leaves of the full records: games 1-5, game 6 aborted, game 7
 * finished (at concurrency > 1). */
static void write_interrupted(scratch_t *s, const char *full)
{
    const char *a, *b, *c, *d;
    game_span(full, 6, &a, &b);
    game_span(full, 7, &c, &d);
    size_t n = strlen(full) + 100;
    char *cut = malloc(n);
    cr_assert_not_null(cut);
    snprintf(cut, n, "%.*s; game 6 aborted: the run stopped during the game\n\n%.*s", (int)(a - full), full,
             (int)(d - c), c);
    write_file(path_in(s, "run.txt"), cut);
    free(cut);
}

Test(referee, resume_continues_an_interrupted_run)
{
    scratch_t s;
    scratch_init(&s);
    run_t r = resume_match(&s, "9", "depth=2", false);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    run_free(&r);
    char *full = read_file(path_in(&s, "run.txt"));
    char *full_json = read_file(path_in(&s, "run.json"));
    char *full_pgn = read_file(path_in(&s, "run.pgn"));
    cr_assert(strncmp(full, "; setting tournament: match\n", 28) == 0, "%s", full);
    cr_assert(strstr(full, "\n; setting engine 1 limits: depth=2\n; setting engine 1 options: Hash=4\n"), "%s",
              full);

    /* The records of an interrupted run, and half a PGN game. */
    write_interrupted(&s, full);
    const char *pgn6 = full_pgn;
    for (int k = 0; k < 6; k++)
        pgn6 = strstr(pgn6 + 1, "[Event ");
    char *cut = strndup(full_pgn, (size_t)(pgn6 - full_pgn) + 40);
    cr_assert_not_null(cut);
    write_file(path_in(&s, "run.pgn"), cut);
    free(cut);

    r = resume_match(&s, "9", "depth=2", true);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    cr_assert(strstr(r.out, "5 games read, the run goes on at game 6"), "%s", r.out);
    run_free(&r);
    char *again = read_file(path_in(&s, "run.txt"));
    char *x = without_dates(full), *y = without_dates(again);
    cr_assert_str_eq(y, x, "the resumed records differ from the uninterrupted run's");
    free(x);
    free(y);
    expect_check(path_in(&s, "run.txt"), 0);
    char *json = read_file(path_in(&s, "run.json"));
    const char *pa = strstr(full_json, "\"pairs\""), *pb = strstr(json, "\"pairs\"");
    cr_assert(pa && pb);
    cr_assert_eq(strncmp(pa, pb, (size_t)(strstr(pa, "\"sprt\"") - pa)), 0, "results differ:\n%s\n%s", pa, pb);
    cr_assert_eq(json_int(json, "\"games\"", "counted"), 12);
    char *pgn = read_file(path_in(&s, "run.pgn"));
    x = without_dates(full_pgn);
    y = without_dates(pgn);
    cr_assert_str_eq(y, x, "the PGN of the resumed run differs from the uninterrupted run's");
    free(x);
    free(y);
    free(pgn);
    free(json);

    /* Without its PGN file the resumed run writes the games read again, from the records. */
    write_interrupted(&s, full);
    cr_assert_eq(unlink(path_in(&s, "run.pgn")), 0);
    r = resume_match(&s, "9", "depth=2", true);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    run_free(&r);
    pgn = read_file(path_in(&s, "run.pgn"));
    cr_assert_eq(count_of(pgn, "[Event "), 12, "%s", pgn);
    x = without_dates(full_pgn);
    y = without_dates(pgn);
    cr_assert_str_eq(y, x, "the PGN rebuilt from the records differs from the uninterrupted run's");
    free(x);
    free(y);
    free(pgn);

    /* Other settings than the records were made with: refused, naming them, nothing changed. */
    write_interrupted(&s, full);
    char *before = read_file(path_in(&s, "run.txt"));
    r = resume_match(&s, "9", "depth=3", true);
    cr_assert(r.exit.exited && r.exit.code == 1, "%s", r.out);
    cr_assert(strstr(r.out, "was made with other settings: engine 1 limits 'depth=2' (now 'depth=3')\n"), "%s",
              r.out);
    cr_assert_eq(count_of(r.out, "\n"), 1, "%s", r.out);
    run_free(&r);
    r = resume_match(&s, "10", "depth=2", true);
    cr_assert(r.exit.exited && r.exit.code == 1, "%s", r.out);
    cr_assert(strstr(r.out, "was made with other settings: seed '9' (now '10')\n"), "%s", r.out);
    run_free(&r);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "%s -engine cmd=%s/baghchal name=alpha -engine cmd=%s/baghchal name=beta -depth 1 "
             "-openings random=4 -seed 9 -rounds 6 -maxmoves 300 -records %s -resume 2>&1", REFEREE, BIN, BIN,
             path_in(&s, "run.txt"));
    r = run_shell(cmd);
    cr_assert(r.exit.exited && r.exit.code == 1, "%s", r.out);
    cr_assert(strstr(r.out, "other settings: maxmoves '0' (now '300'), engine 1 limits 'depth=2' (now 'depth=1'), "
                            "engine 1 options 'Hash=4' (now 'none'), engine 2 options 'Hash=4' (now 'none')\n"),
              "%s", r.out);
    run_free(&r);
    char *kept = read_file(path_in(&s, "run.txt"));
    cr_assert_str_eq(kept, before, "a refused -resume must leave the records alone");
    free(kept);

    /* Records without settings (an older referee's) are held to their games' tags. */
    char *bare = without_settings(before);
    write_file(path_in(&s, "run.txt"), bare);
    r = resume_match(&s, "9", "depth=3", true);
    cr_assert(r.exit.exited && r.exit.code == 1, "%s", r.out);
    cr_assert(strstr(r.out, "-resume: game 1 of ") && strstr(r.out, "other limits"), "%s", r.out);
    run_free(&r);
    r = resume_match(&s, "10", "depth=2", true);
    cr_assert(r.exit.exited && r.exit.code == 1, "%s", r.out);
    cr_assert(strstr(r.out, "-resume: game 1 of ") && strstr(r.out, "another opening"), "%s", r.out);
    run_free(&r);
    kept = read_file(path_in(&s, "run.txt"));
    cr_assert_str_eq(kept, bare, "a refused -resume must leave the records alone");
    free(kept);
    free(bare);
    free(before);
    free(again);
    free(full);
    free(full_json);
    free(full_pgn);
    scratch_free(&s);
}

/* The records with game n's first line starting with `tagline` removed. */
static char *without_tag_line(const char *text, int n, const char *tagline)
{
    const char *from, *to;
    game_span(text, n, &from, &to);
    const char *at = strstr(from, tagline);
    cr_assert(at && at < to, "no '%s' in game %d", tagline, n);
    const char *nl = strchr(at, '\n');
    size_t len = strlen(text);
    char *out = malloc(len + 1);
    cr_assert_not_null(out);
    snprintf(out, len + 1, "%.*s%s", (int)(at - text), text, nl + 1);
    return out;
}

Test(referee, resume_refuses_records_that_check_rejects)
{
    /* A kept game that --check rejects would change the totals, the SPRT and the PGN: the
     * resume is refused in one line naming the file, the line, the game and the problem,
     * and nothing is changed. */
    scratch_t s;
    scratch_init(&s);
    run_t r = resume_match(&s, "9", "depth=2", false);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    run_free(&r);
    char *full = read_file(path_in(&s, "run.txt"));
    char *full_json = read_file(path_in(&s, "run.json"));

    char *bad[5], want[5][96];
    /* Game 2: the other side wins. */
    const char *g2 = strstr(strstr(full, "[Game \"2\"]"), "[Result \"");
    const char *won = strncmp(g2, "[Result \"goats\"]", 16) == 0    ? "\"goats\""
                      : strncmp(g2, "[Result \"tigers\"]", 17) == 0 ? "\"tigers\""
                                                                    : "\"draw\"";
    bad[0] = replace_once(full, "[Game \"2\"]", won, strcmp(won, "\"tigers\"") == 0 ? "\"goats\"" : "\"tigers\"");
    snprintf(want[0], sizeof want[0], ": game 2: the rules give ");
    /* Game 3: the first goat placed on a tiger. */
    const char *op = strstr(strstr(full, "[Game \"3\"]"), "[Opening \"");
    char obx[OBX_MAX_LEN + 1], move[8] = "", tiger[3], from[16], to[16];
    snprintf(obx, sizeof obx, "%.*s", (int)strcspn(op + 10, "\""), op + 10);
    position_t p;
    cr_assert_eq(obx_parse(obx, &p, NULL, NULL, 0), BC_OK, "%s", obx);
    cr_assert_eq(p.side, GOATS, "%s", obx);
    const char *first = strstr(op, "\n1. ");
    sscanf(first + 4, "%7s", move);
    square_name(bb_first(p.tigers), tiger);
    snprintf(from, sizeof from, "1. %s ", move);
    snprintf(to, sizeof to, "1. %s ", tiger);
    bad[1] = replace_once(full, "[Game \"3\"]", from, to);
    snprintf(want[1], sizeof want[1], ": game 3: ply 1 '%s': ", tiger);
    /* Game 4 without its Plies tag. */
    bad[2] = without_tag_line(full, 4, "[Plies ");
    snprintf(want[2], sizeof want[2], ": game 4: missing tag Plies");
    /* Game 1 with a move after its end. */
    bad[3] = replace_once(full, "[Game \"1\"]", "\n[Final ", " A1\n[Final ");
    snprintf(want[3], sizeof want[3], ": game 1: ply ");
    /* Game 5 with a Termination its final position contradicts. */
    const char *term = strstr(strstr(full, "[Game \"5\"]"), "[Termination \"");
    char was[64];
    snprintf(was, sizeof was, "%.*s", (int)strcspn(term, "\n"), term);
    bad[4] = replace_once(full, "[Game \"5\"]", was, "[Termination \"time forfeit\"]");
    snprintf(want[4], sizeof want[4], ": game 5: the game ends by ");

    for (int k = 0; k < 5; k++) {
        write_interrupted(&s, bad[k]);
        char *before = read_file(path_in(&s, "run.txt"));
        unlink(path_in(&s, "run.json"));
        unlink(path_in(&s, "run.pgn"));
        r = resume_match(&s, "9", "depth=2", true);
        char head[400];
        snprintf(head, sizeof head, "baghchal-referee: -resume: %s holds a game that --check rejects: %s:",
                 path_in(&s, "run.txt"), path_in(&s, "run.txt"));
        cr_assert(r.exit.exited && r.exit.code == 1, "case %d:\n%s", k, r.out);
        cr_assert(strncmp(r.out, head, strlen(head)) == 0 && strstr(r.out, want[k]), "case %d: expected '%s...%s':\n%s",
                  k, head, want[k], r.out);
        cr_assert_eq(count_of(r.out, "\n"), 1, "case %d:\n%s", k, r.out);
        char *after = read_file(path_in(&s, "run.txt"));
        cr_assert_str_eq(after, before, "case %d: a refused -resume must leave the records alone", k);
        cr_assert_neq(access(path_in(&s, "run.json"), F_OK), 0, "case %d: a refused -resume wrote a summary", k);
        cr_assert_neq(access(path_in(&s, "run.pgn"), F_OK), 0, "case %d: a refused -resume wrote a PGN", k);
        free(after);
        free(before);
        run_free(&r);
        free(bad[k]);
    }

    /* The same records untampered resume to the uninterrupted run's results. */
    write_interrupted(&s, full);
    r = resume_match(&s, "9", "depth=2", true);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    run_free(&r);
    char *json = read_file(path_in(&s, "run.json"));
    const char *pa = strstr(full_json, "\"pairs\""), *pb = strstr(json, "\"pairs\"");
    cr_assert(pa && pb);
    cr_assert_eq(strncmp(pa, pb, (size_t)(strstr(pa, "\"sprt\"") - pa)), 0, "results differ:\n%s\n%s", pa, pb);
    free(json);
    free(full_json);
    free(full);
    scratch_free(&s);
}

Test(referee, check_holds_every_game_to_the_run_settings)
{
    /* A run resumed with other limits by an older referee mixed depth 2 and depth 3 games. */
    scratch_t s;
    scratch_init(&s);
    char *records = real_match(&s, "mixed.txt", 1, NULL);
    char *mixed = replace_once(records, "[Game \"5\"]", "[TimeControl \"goats depth=2, tigers depth=1\"]",
                               "[TimeControl \"goats depth=3, tigers depth=1\"]");
    write_file(path_in(&s, "mixed.txt"), mixed);
    expect_check_says(path_in(&s, "mixed.txt"), "game 5: alpha (goats) played with limits 'depth=3', the settings "
                                                "give it 'depth=2'");
    char *bare = games_only(mixed);
    write_file(path_in(&s, "mixed.txt"), bare);
    expect_check_says(path_in(&s, "mixed.txt"), "game 5: alpha (goats) played with limits 'depth=3', but with "
                                                "'depth=2' in game 1");
    free(bare);
    free(mixed);
    mixed = replace_once(records, "[Game \"3\"]", "[Repetition \"forbid\"]\n", "[Repetition \"forbid\"]\n"
                                                                               "[MaxMoves \"200\"]\n");
    write_file(path_in(&s, "mixed.txt"), mixed);
    expect_check_says(path_in(&s, "mixed.txt"), "game 3: MaxMoves is '200', the settings say maxmoves '0'");
    free(mixed);
    free(records);
    scratch_free(&s);
}

/* Depth 3 against depth 1 until the SPRT decides; 200 plies at most a game, since under forbid
 * two engines this shallow can shuffle for thousands (a sixth of the games, with the network). */
Test(referee, sprt_stops_when_it_decides)
{
    scratch_t s;
    scratch_init(&s);
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", NULL);
    add(&a, "cmd=%s", engine_link(&s, "strong"));
    add_list(&a, "name=strong", "depth=3", "-engine", NULL);
    add(&a, "cmd=%s", engine_link(&s, "weak"));
    add_list(&a, "name=weak", "depth=1", "-each", "option.Hash=4", "-openings", "random=6", "-seed", "7",
             "-sprt", "elo0=0", "elo1=20", "alpha=0.05", "beta=0.05", "-rounds", "200", "-concurrency", "2",
             "-maxmoves", "200", "-progress", "0", "-json", path_in(&s, "summary.json"), NULL);
    run_t r = run_args(&a);
    args_free(&a);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    char *json = read_file(path_in(&s, "summary.json"));
    cr_assert(strstr(json, "\"result\": \"H1\""), "%s", json);
    cr_assert(strstr(json, "\"stats\": \"pentanomial\""), "the SPRT over pairs is the default:\n%s", json);
    cr_assert(strstr(r.out, "SPRT (pentanomial) elo0=0 elo1=20"), "%s", r.out);
    long long counted = json_int(json, "\"games\"", "counted");
    cr_assert_lt(counted, 400, "the SPRT did not stop the run");
    cr_assert_eq(counted % 2, 0, "the SPRT decides on whole pairs");
    cr_assert(strstr(r.out, "H1 accepted"), "%s", r.out);
    free(json);
    run_free(&r);
    scratch_free(&s);
}

/* ---- openings, adjudication, rules ---- */

Test(referee, openings_file_in_order_with_comments)
{
    scratch_t s;
    scratch_init(&s);
    write_file(path_in(&s, "openings.obx"), "# two openings\n"
                                            "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1 ; after C3\n"
                                            "\n"
                                            "; the OBX 1.0 form of the start\n"
                                            "T3T/5/5/5/T3T g g20 c0 - 0\n");
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", "cmd=" BIN "/fake_good", "-engine", "cmd=" BIN "/fake_good", "-each",
             "depth=1", "-openings", NULL);
    add(&a, "file=%s", path_in(&s, "openings.obx"));
    add_list(&a, "-rounds", "3", "-progress", "0", "-records", path_in(&s, "records.txt"), NULL);
    run_t r = run_args(&a);
    args_free(&a);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    cr_assert(strstr(r.out, "fake_good vs fake_good-2"), "%s", r.out);
    char *text = read_file(path_in(&s, "records.txt"));
    const char *after_c3 = "[Opening \"TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1\"]";
    const char *start = "[Opening \"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #\"]";
    cr_assert_eq(count_of(text, after_c3), 4, "%s", text);
    cr_assert_eq(count_of(text, start), 2, "%s", text);
    cr_assert_lt(strstr(text, after_c3), strstr(text, start));
    cr_assert(strstr(text, "\n1... "), "a game from a tigers-to-move opening starts with '1...'");
    free(text);
    run_free(&r);
    expect_check(path_in(&s, "records.txt"), 0);

    write_file(path_in(&s, "bad.obx"), "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0\nTTTTT/XXXXX/XXXXX/XXXXX/XXXXX g @20 c0\n");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s -engine cmd=%s/fake_good -engine cmd=%s/fake_good -depth 1 -openings file=%s 2>&1",
             REFEREE, BIN, BIN, path_in(&s, "bad.obx"));
    r = run_shell(cmd);
    cr_assert(r.exit.exited && r.exit.code == 1, "%s", r.out);
    cr_assert(strstr(r.out, "bad.obx:2: invalid OBX"), "%s", r.out);
    cr_assert_eq(count_of(r.out, "\n"), 1, "one line expected:\n%s", r.out);
    run_free(&r);
    scratch_free(&s);
}

static void write_bytes(const char *path, const char *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(bytes, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

Test(referee, openings_file_any_line_end_a_bom_and_no_nul)
{
    /* CR-only line ends made one line of the whole file (every round took the first
     * opening), a NUL cut a line without a word and a byte order mark was refused. */
    scratch_t s;
    scratch_init(&s);
    static const char *const ends[] = {"\n", "\r\n", "\r"};
    static const char *const want[] = {"[Opening \"TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1\"]",
                                       "[Opening \"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #\"]",
                                       "[Opening \"TXXXT/XXXXX/XXXXX/XGXXX/TXXXT t @19 c0 mB2 #g1\"]"};
    for (int bom = 0; bom < 2; bom++)
        for (int k = 0; k < 3; k++) {
            const char *e = ends[k];
            char text[600];
            snprintf(text, sizeof text,
                     "%sTXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1 ; after C3%s%s# the start, OBX 1.0%s"
                     "T3T/5/5/5/T3T g g20 c0 - 0%sTXXXT/XXXXX/XXXXX/XGXXX/TXXXT t @19 c0 mB2 #g1%s",
                     bom ? "\xEF\xBB\xBF" : "", e, e, e, e, k == 2 ? "" : e);
            write_file(path_in(&s, "openings.obx"), text);
            args_t a = {0};
            add_list(&a, REFEREE, "-engine", "cmd=" BIN "/fake_good", "-engine", "cmd=" BIN "/fake_good", "-each",
                     "depth=1", "-openings", NULL);
            add(&a, "file=%s", path_in(&s, "openings.obx"));
            add_list(&a, "-rounds", "3", "-progress", "0", "-records", path_in(&s, "records.txt"), NULL);
            run_t r = run_args_merged(&a);
            args_free(&a);
            cr_assert(r.exit.exited && r.exit.code == 0, "line end %d, bom %d:\n%s", k, bom, r.out);
            char *rec = read_file(path_in(&s, "records.txt"));
            for (int o = 0; o < 3; o++) {
                const char *from, *to, *game2;
                game_span(rec, 2 * o + 1, &from, &to);
                game_span(rec, 2 * o + 2, &game2, &to);
                const char *at = strstr(from, want[o]);
                cr_assert(at && at < game2 && strstr(game2, want[o]) && strstr(game2, want[o]) < to,
                          "line end %d, bom %d: round %d must start from %s:\n%s", k, bom, o + 1, want[o], rec);
            }
            free(rec);
            run_free(&r);
        }

    /* A NUL byte is refused with its line, whatever the line ends. */
    static const char nul_lf[] = "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1\nT3T/5/5/5/T3T g g20 c0 - 0\0junk\n";
    static const char nul_cr[] = "# openings\rT3T/5/5/5/T3T g g20 c0 - 0\r\r; a\0comment\r";
    const struct {
        const char *bytes;
        size_t n;
        const char *say;
    } nuls[] = {{nul_lf, sizeof nul_lf - 1, "nul.obx:2: a NUL byte"}, {nul_cr, sizeof nul_cr - 1, "nul.obx:4: a NUL byte"}};
    for (size_t k = 0; k < sizeof nuls / sizeof nuls[0]; k++) {
        write_bytes(path_in(&s, "nul.obx"), nuls[k].bytes, nuls[k].n);
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "%s -engine cmd=%s/fake_good -engine cmd=%s/fake_good -depth 1 -openings file=%s 2>&1",
                 REFEREE, BIN, BIN, path_in(&s, "nul.obx"));
        run_t r = run_shell(cmd);
        cr_assert(r.exit.exited && r.exit.code == 1, "%s", r.out);
        cr_assert(strstr(r.out, nuls[k].say), "expected '%s' in:\n%s", nuls[k].say, r.out);
        cr_assert_eq(count_of(r.out, "\n"), 1, "one line expected:\n%s", r.out);
        run_free(&r);
    }
    scratch_free(&s);
}

Test(referee, mixed_openings_start_position_every_n_rounds)
{
    scratch_t s;
    scratch_init(&s);
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", "cmd=" BIN "/fake_good", "-engine", "cmd=" BIN "/fake_good", "-each",
             "depth=1", "-openings", "random=4", "startpos=3", "-seed", "5", "-rounds", "6", "-maxmoves", "40",
             "-progress", "0",
             "-records", path_in(&s, "records.txt"), "-log", path_in(&s, "log.txt"), NULL);
    run_t r = run_args(&a);
    args_free(&a);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    char *text = read_file(path_in(&s, "records.txt"));
    /* Rounds 1 and 4 from the start position (both colours), the other four after 4 plies. */
    const char *start = "[Opening \"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #\"]";
    cr_assert_eq(count_of(text, start), 4, "%s", text);
    cr_assert_eq(count_of(text, " #t2\"]\n"), 8, "%s", text);
    const char *round4 = strstr(text, "[Round \"4\"]");
    cr_assert(round4 && strncmp(strstr(round4, "[Opening"), start, strlen(start)) == 0, "%s", text);
    char *log = read_file(path_in(&s, "log.txt"));
    cr_assert(strstr(log, "> position startpos\n") || strstr(log, "> position startpos moves "), "%.2000s", log);
    free(log);
    free(text);
    run_free(&r);
    expect_check(path_in(&s, "records.txt"), 0);
    scratch_free(&s);
}

Test(referee, move_limit_adjudicates_a_draw)
{
    scratch_t s;
    scratch_init(&s);
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", "cmd=" BIN "/fake_good", "-engine", "cmd=" BIN "/fake_good", "-each",
             "depth=1", "-maxmoves", "6", "-repetition", "draw", "-rounds", "2", "-progress", "0", "-records",
             path_in(&s, "records.txt"), "-json", path_in(&s, "summary.json"), "-log", path_in(&s, "log.txt"),
             NULL);
    run_t r = run_args(&a);
    args_free(&a);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    char *json = read_file(path_in(&s, "summary.json"));
    cr_assert_eq(json_int(json, "\"terminations\"", "move_limit"), 4, "%s", json);
    cr_assert_eq(json_int(json, "\"total\"", "draws"), 4, "%s", json);
    char *text = read_file(path_in(&s, "records.txt"));
    cr_assert_eq(count_of(text, "[Plies \"6\"]"), 4);
    cr_assert_eq(count_of(text, "[Repetition \"draw\"]"), 4);
    char *log = read_file(path_in(&s, "log.txt"));
    cr_assert(strstr(log, "> setoption name Repetition value draw"), "the rule was not sent:\n%.2000s", log);
    cr_assert(strstr(log, "< uciok"));
    free(log);
    free(text);
    free(json);
    run_free(&r);
    expect_check(path_in(&s, "records.txt"), 0);
    scratch_free(&s);
}

/* Needs the database: the project's test script builds it once and names it in
 * BAGHCHAL_TB_DIR. Two decided openings (tigers win in 3 with tigers to move; goats lose in 4
 * with goats to move) and a drawn one, each played from both sides by the engine at depth 2
 * under rule; returns the records and the summary. */
static void tb_adjudicated_match(scratch_t *s, const char *rule, char **records, char **json)
{
    const char *dir = getenv("BAGHCHAL_TB_DIR");
    if (!dir || !*dir)
        cr_skip_test("BAGHCHAL_TB_DIR is not set (tools/run-tests.sh sets it)");
    write_file(path_in(s, "decided.obx"), "; two decided positions and a draw\n"
                                            "GGGGX/GTGTG/XGXGX/GTGTG/XGGGG t @0 c4\n"
                                            "GGGGX/GTGTG/XGXGX/GTGTG/XGGGG g @0 c4\n"
                                            "XGGTG/GXTGG/GTTGG/GGXGG/GGGGG g @0 c2\n");
    char openings[700];
    snprintf(openings, sizeof openings, "file=%s", path_in(s, "decided.obx"));
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", "cmd=" BIN "/baghchal", "name=a", "-engine", "cmd=" BIN "/baghchal", "name=b",
             "-each", "depth=2", "option.Hash=1", "-repetition", rule, "-maxmoves", strcmp(rule, "draw") ? "0" : "60",
             "-openings", openings,
             "-rounds", "3", "-tb", dir, "-progress", "0", "-records", path_in(s, "records.txt"), "-json",
             path_in(s, "summary.json"), NULL);
    run_t r = run_args(&a);
    args_free(&a);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    run_free(&r);
    *json = read_file(path_in(s, "summary.json"));
    *records = read_file(path_in(s, "records.txt"));
    /* The decided games end before any engine moves, and the tigers' side wins each. */
    cr_assert_geq(json_int(*json, "\"terminations\"", "database"), 4, "%s", *json);
    cr_assert_eq(json_int(*json, "\"games\"", "counted"), 6, "%s", *json);
    cr_assert_eq(count_of(*records, "[Plies \"0\"]"), 4, "%s", *records);
    cr_assert_geq(count_of(*records, "[Result \"tigers\"]"), 4, "%s", *records);
    expect_check(path_in(s, "records.txt"), 0);
}

/* Under draw the drawn opening may end by the database too, once a depth-2 engine errs. */
Test(referee, database_adjudicates_decided_positions)
{
    scratch_t s;
    scratch_init(&s);
    char *text, *json;
    tb_adjudicated_match(&s, "draw", &text, &json);
    free(text);
    free(json);
    scratch_free(&s);
}

/* Under forbid the database adjudicates too, where its result holds for the game's history
 * (here none: the openings are positions); a database draw is played on, and no game is
 * drawn. */
Test(referee, database_adjudicates_under_forbid_where_the_result_holds)
{
    scratch_t s;
    scratch_init(&s);
    char *text, *json;
    tb_adjudicated_match(&s, "forbid", &text, &json);
    cr_assert_eq(count_of(text, "[Repetition \"forbid\"]"), 6, "%s", text);
    /* Every game has a winner: the drawn opening was played, not adjudicated a draw. */
    cr_assert_eq(count_of(text, "[Result \"tigers\"]") + count_of(text, "[Result \"goats\"]"), 6, "%s", text);
    free(text);
    free(json);
    scratch_free(&s);
}

/* Runs fake_good (args_a) against fake_good (args_b) at depth 1 with extra options; returns
 * the records. */
static char *score_match(scratch_t *s, const char *args_a, const char *args_b, const char *const *extra)
{
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", "cmd=" BIN "/fake_good", "name=first", args_a, "-engine",
             "cmd=" BIN "/fake_good", "name=second", args_b, "-each", "depth=1", "-repetition", "draw", "-progress",
             "0", "-records", path_in(s, "records.txt"), "-json", path_in(s, "summary.json"), NULL);
    for (int k = 0; extra[k]; k++)
        add(&a, "%s", extra[k]);
    run_t r = run_args(&a);
    args_free(&a);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    run_free(&r);
    char *json = read_file(path_in(s, "summary.json"));
    cr_assert_eq(json_int(json, "\"terminations\"", "score"), 2, "%s", json);
    free(json);
    expect_check(path_in(s, "records.txt"), 0);
    return read_file(path_in(s, "records.txt"));
}

Test(referee, resign_and_draw_by_score_as_cutechess)
{
    scratch_t s;
    scratch_init(&s);
    /* "first" always reports -500 cp: with -resign movecount=3 score=400 it loses after its
     * third move, ply 5 as goats (game 1) and ply 6 as tigers (game 2). */
    static const char *const resign[] = {"-resign", "movecount=3", "score=400", NULL};
    char *text = score_match(&s, "args=--score -500", "args=--score 500", resign);
    cr_assert(strstr(text, "[Game \"1\"]"), "%s", text);
    const char *g2 = strstr(text, "[Game \"2\"]");
    cr_assert_not_null(g2);
    const char *r1 = strstr(text, "[Result \""), *p1 = strstr(text, "[Plies \"");
    cr_assert(strncmp(r1, "[Result \"tigers\"]", 17) == 0 && strncmp(p1, "[Plies \"5\"]", 11) == 0, "%s", text);
    const char *r2 = strstr(g2, "[Result \""), *p2 = strstr(g2, "[Plies \"");
    cr_assert(strncmp(r2, "[Result \"goats\"]", 16) == 0 && strncmp(p2, "[Plies \"6\"]", 11) == 0, "%s", text);
    cr_assert(strstr(text, "goats win by score: first (tigers) scored -400 cp or less for 3 moves"), "%s", text);
    free(text);

    /* twosided: the opponent must agree; here it reports 0, so no game is cut short. */
    static const char *const twosided[] = {"-resign", "movecount=3", "score=400", "twosided=on", "-maxmoves", "8",
                                           NULL};
    args_t a = {0};
    add_list(&a, REFEREE, "-engine", "cmd=" BIN "/fake_good", "args=--score -500", "-engine", "cmd=" BIN "/fake_good",
             "-each", "depth=1", "-repetition", "draw", "-progress", "0", "-json", path_in(&s, "summary.json"), NULL);
    for (int k = 0; twosided[k]; k++)
        add(&a, "%s", twosided[k]);
    run_t r = run_args(&a);
    args_free(&a);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    char *json = read_file(path_in(&s, "summary.json"));
    cr_assert_eq(json_int(json, "\"terminations\"", "score"), 0, "%s", json);
    cr_assert_eq(json_int(json, "\"terminations\"", "move_limit"), 2, "%s", json);
    free(json);
    run_free(&r);

    /* Both at 0 cp: -draw movenumber=4 movecount=2 score=10 ends both games as draws after
     * 4 full moves (8 plies). */
    static const char *const draw[] = {"-draw", "movenumber=4", "movecount=2", "score=10", NULL};
    text = score_match(&s, "args=--score 0", "args=--score 3", draw);
    cr_assert_eq(count_of(text, "[Result \"draw\"]"), 2, "%s", text);
    cr_assert_eq(count_of(text, "[Plies \"8\"]"), 2, "%s", text);
    cr_assert_eq(count_of(text, "[Termination \"score adjudication\"]"), 2, "%s", text);
    free(text);
    scratch_free(&s);
}

Test(referee, huge_and_mate_scores_reach_score_adjudication)
{
    /* Scores of a million cp or more were dropped without a word, so -resign never saw
     * them: they count as the largest threshold now. A mate counts 30000 - N, mate 0 (the
     * mover has lost) -30000, and a mate in a huge N stays a win (at least 20000). Each
     * case: "first" loses after its third move, ply 5 as goats and ply 6 as tigers. */
    static const struct {
        const char *first, *second, *score, *twosided;
    } cases[] = {
        {"args=--score -5000000", "args=--score 0", "score=1000000", "twosided=off"},
        {"args=--score -99999999999999999999999", "args=--score 0", "score=400", "twosided=off"},
        {"args=--score 'mate 0'", "args=--score 'mate 3'", "score=29997", "twosided=on"},
        {"args=--score 'mate -2000000'", "args=--score 'mate 2000000'", "score=20000", "twosided=on"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        scratch_t s;
        scratch_init(&s);
        const char *const resign[] = {"-resign", "movecount=3", cases[k].score, cases[k].twosided, NULL};
        char *text = score_match(&s, cases[k].first, cases[k].second, resign);
        const char *g2 = strstr(text, "[Game \"2\"]");
        cr_assert_not_null(g2);
        const char *r1 = strstr(text, "[Result \""), *p1 = strstr(text, "[Plies \"");
        cr_assert(strncmp(r1, "[Result \"tigers\"]", 17) == 0 && strncmp(p1, "[Plies \"5\"]", 11) == 0, "case %zu:\n%s",
                  k, text);
        const char *r2 = strstr(g2, "[Result \""), *p2 = strstr(g2, "[Plies \"");
        cr_assert(strncmp(r2, "[Result \"goats\"]", 16) == 0 && strncmp(p2, "[Plies \"6\"]", 11) == 0, "case %zu:\n%s",
                  k, text);
        free(text);
        scratch_free(&s);
    }
}

Test(referee, round_robin_and_gauntlet_schedules)
{
    static const char *const formats[2] = {"roundrobin", "gauntlet"};
    static const int games[2] = {24, 12};
    for (int f = 0; f < 2; f++) {
        scratch_t s;
        scratch_init(&s);
        args_t a = {0};
        add(&a, REFEREE);
        for (int k = 0; k < 3; k++)
            add_list(&a, "-engine", "cmd=" BIN "/fake_good", NULL);
        add_list(&a, "-engine", "cmd=" BIN "/fake_illegal", "args=--at 1", "-tournament", formats[f], "-each",
                 "depth=1", "-rounds", "2", "-concurrency", "2", "-progress", "0", "-json",
                 path_in(&s, "summary.json"), NULL);
        run_t r = run_args(&a);
        args_free(&a);
        cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
        char *json = read_file(path_in(&s, "summary.json"));
        cr_assert_eq(json_int(json, "\"games\"", "counted"), games[f], "%s: %s", formats[f], json);
        /* fake_illegal loses each of its games: 3 pairings (round robin) or 1 (gauntlet),
         * 2 rounds, 2 games each. */
        cr_assert_eq(json_int(json, "\"terminations\"", "illegal_move"), f == 0 ? 12 : 4, "%s", json);
        cr_assert(strstr(r.out, "Standings"), "%s", r.out);
        free(json);
        run_free(&r);
        scratch_free(&s);
    }
}

/* ---- command line ---- */

Test(referee, bad_command_lines_exit_with_one_line)
{
    static const char *const cases[][2] = {
        {"-engine cmd=" BIN "/fake_good -depth 1", "at least two"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good", "no limit per move"},
        {"-engine cmd=/nonexistent/engine -engine cmd=" BIN "/fake_good -depth 1", "not an executable"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -concurrency 0", "-concurrency"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -tc 1+x", "tc="},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -sprt elo0=5 elo1=0", "elo1"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -frobnicate", "unknown option"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -repetition sometimes", "forbid or draw"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -tournament match -engine cmd="
         BIN "/fake_good", "exactly two"},
        {"-engine cmd=" BIN "/fake_good option.Repetition=draw -engine cmd=" BIN "/fake_good -depth 1", "Repetition"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -tb /nonexistent-tb-folder",
         "-tb: '/nonexistent-tb-folder' is not a directory"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -repetition draw -tb /nonexistent",
         "baghchal-referee: "},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -openings random=3 file=/etc/hostname",
         "not both"},
        {"--check /nonexistent/records.txt", "cannot open"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -sprt elo0=0 elo1=5 stats=binomial",
         "pentanomial or trinomial"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -concurrency many", "-concurrency"},
        /* Numbers beyond their type are refused, not saturated. */
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -seed 99999999999999999999999",
         "-seed needs an integer from 0 to 18446744073709551615"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -seed 18446744073709551616", "-seed"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -seed ' -5'", "-seed"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -seed 0x1ffffffffffffffff", "-seed"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -rounds 99999999999999999999",
         "-rounds"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -games 99999999999999999999", "-games"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -maxmoves 99999999999999999999",
         "-maxmoves"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -nodes 99999999999999999999", "nodes="},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -movetime 99999999999999999999", "movetime="},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -tc 99999999999999999999/1", "tc="},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -timeouts init=99999999999999999999",
         "-timeouts"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -resign movecount=99999999999999999999 "
         "score=1", "-resign"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -openings random=4 "
         "startpos=99999999999999999999", "startpos="},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -sprt elo0=0 elo1=1e400", "elo1="},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "%s %s 2>&1", REFEREE, cases[i][0]);
        run_t r = run_shell(cmd);
        cr_assert(r.exit.exited && r.exit.code == 1, "'%s' exited %d:\n%s", cases[i][0], r.exit.code, r.out);
        cr_assert_eq(count_of(r.out, "\n"), 1, "'%s' printed:\n%s", cases[i][0], r.out);
        cr_assert(strstr(r.out, cases[i][1]), "'%s' printed:\n%s", cases[i][0], r.out);
        run_free(&r);
    }
}

Test(referee, names_and_event_with_control_characters_are_refused)
{
    /* A TAB or ESC in a name or the event went raw into the tags and as '?' into the
     * settings, so --check rejected the referee's own records: refused, in one line that
     * holds no control character. */
    scratch_t s;
    scratch_init(&s);
    char tabbed[600];
    snprintf(tabbed, sizeof tabbed, "%s", path_in(&s, "fake\tengine"));
    cr_assert_eq(symlink(BIN "/fake_good", tabbed), 0, "symlink: %s", strerror(errno));
    static const char *const cases[][2] = {
        {"-engine cmd=" BIN "/fake_good \"name=$(printf 'a\\tb')\" -engine cmd=" BIN "/fake_good -depth 1",
         "-engine #1: name= holds a control character (byte 0x09)"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good \"name=$(printf 'b\\033[31m')\" -depth 1",
         "-engine #2: name= holds a control character (byte 0x1B)"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -event \"$(printf 'cup\\t1')\"",
         "-event holds a control character (byte 0x09)"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -event \"$(printf 'cup\\0331')\"",
         "-event holds a control character (byte 0x1B)"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -event \"$(printf 'cup\\177')\"",
         "-event holds a control character (byte 0x7F)"},
        {"-engine cmd=" BIN "/fake_good name=a\\\"b -engine cmd=" BIN "/fake_good -depth 1", "name= holds a quote"},
        /* The -json summary and the records are UTF-8: a byte outside it is refused too. */
        {"-engine cmd=" BIN "/fake_good \"name=$(printf 'a\\377x')\" -engine cmd=" BIN "/fake_good -depth 1",
         "-engine #1: name= holds a byte that is not UTF-8 (0xFF at offset 1)"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -event \"$(printf 'caf\\303')\"",
         "-event holds a byte that is not UTF-8 (0xC3 at offset 3)"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -event \"$(printf '\\300\\257')\"",
         "-event holds a byte that is not UTF-8 (0xC0 at offset 0)"},
        {"-engine cmd=" BIN "/fake_good -engine cmd=" BIN "/fake_good -depth 1 -event \"$(printf '\\355\\240\\200')\"",
         "-event holds a byte that is not UTF-8 (0xED at offset 0)"},
        /* A CR ends a protocol line for an engine that takes CRLF: it would split the setoption. */
        {"-engine cmd=" BIN "/fake_good \"option.Hash=$(printf '1\\rquit')\" -engine cmd=" BIN "/fake_good -depth 1",
         "option Hash has a line break"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "%s %s -records %s 2>&1", REFEREE, cases[i][0], path_in(&s, "records.txt"));
        run_t r = run_shell(cmd);
        cr_assert(r.exit.exited && r.exit.code == 1, "'%s' exited %d:\n%s", cases[i][0], r.exit.code, r.out);
        cr_assert_eq(count_of(r.out, "\n"), 1, "'%s' printed:\n%s", cases[i][0], r.out);
        cr_assert(strstr(r.out, cases[i][1]), "'%s' printed:\n%s", cases[i][0], r.out);
        for (const char *p = r.out; *p != '\n'; p++)
            cr_assert((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f, "not printable ASCII in '%s'", r.out);
        cr_assert_neq(access(path_in(&s, "records.txt"), F_OK), 0, "nothing is started");
        run_free(&r);
    }
    /* A program whose file name holds one needs a name. */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s -engine 'cmd=%s' -engine cmd=%s/fake_good -depth 1 2>&1", REFEREE, tabbed, BIN);
    run_t r = run_shell(cmd);
    cr_assert(r.exit.exited && r.exit.code == 1, "%s", r.out);
    cr_assert(strstr(r.out, "-engine #1: the program's file name holds a control character (byte 0x09), which a "
                            "name cannot: give name=\n"), "%s", r.out);
    run_free(&r);

    /* Other characters (UTF-8 included) are written alike into the tags and the settings,
     * and --check accepts the records. */
    snprintf(cmd, sizeof cmd, "%s -engine 'cmd=%s' 'name=jos\xc3\xa9 [1]' -engine cmd=%s/fake_good -depth 1 "
             "-event 'Coupe d\xe2\x80\x99\xc3\xa9t\xc3\xa9; 2026' -progress 0 -records %s 2>&1", REFEREE, tabbed, BIN,
             path_in(&s, "records.txt"));
    r = run_shell(cmd);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    run_free(&r);
    char *text = read_file(path_in(&s, "records.txt"));
    cr_assert(strstr(text, "; setting event: Coupe d\xe2\x80\x99\xc3\xa9t\xc3\xa9; 2026\n") &&
              strstr(text, "[Event \"Coupe d\xe2\x80\x99\xc3\xa9t\xc3\xa9; 2026\"]\n") &&
              strstr(text, "; setting engine 1 name: jos\xc3\xa9 [1]\n") && strstr(text, "[Goats \"jos\xc3\xa9 [1]\"]\n"),
              "%s", text);
    free(text);
    expect_check(path_in(&s, "records.txt"), 0);
    scratch_free(&s);
}

Test(referee, full_disk_on_an_output_fails_the_run_with_one_line)
{
    /* /dev/full takes the open and fails every write with ENOSPC. */
    static const char *const outputs[] = {"-log", "-records", "-pgnout", "-json"};
    for (size_t k = 0; k < sizeof outputs / sizeof outputs[0]; k++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "%s -engine cmd=%s/fake_good -engine cmd=%s/fake_good -depth 1 -rounds 2 "
                 "-progress 0 %s /dev/full 2>&1 >/dev/null", REFEREE, BIN, BIN, outputs[k]);
        run_t r = run_shell(cmd);
        cr_assert(r.exit.exited && r.exit.code == 2, "%s exited %d:\n%s", outputs[k], r.exit.code, r.out);
        cr_assert_str_eq(r.out, "baghchal-referee: cannot write /dev/full: No space left on device\n", "%s",
                         outputs[k]);
        run_free(&r);
    }
}

Test(referee, seed_takes_the_whole_64_bit_range)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s -engine cmd=%s/fake_good -engine cmd=%s/fake_good -depth 1 -progress 0 "
             "-seed 18446744073709551615 2>&1", REFEREE, BIN, BIN);
    run_t r = run_shell(cmd);
    cr_assert(r.exit.exited && r.exit.code == 0, "%s", r.out);
    cr_assert(strstr(r.out, ", seed 18446744073709551615\n"), "%s", r.out);
    run_free(&r);
}

/* ---- statistics, against values computed by hand ----
 * The LLR values come from an independent computation (damped Newton iteration on the
 * multiplier theta of the constrained maximum-likelihood problem, in double precision,
 * checking that each solution sums to 1 and has the required mean), not from stats.c. */

#define NEAR(got, want, tol) cr_assert(fabs((got) - (want)) < (tol), "%s = %.10f, expected %.10f", #got, got, want)

Test(referee, elo_error_los_and_llr_from_the_formulas)
{
    /* W = 60, L = 40, D = 100, N = 200:
     *   s = (60 + 100/2) / 200 = 0.55
     *   Elo = -400 log10(1/s - 1) = -400 log10(0.45/0.55) = 34.8600702876
     *   var = (60 (1 - .55)^2 + 100 (.5 - .55)^2 + 40 (.55)^2) / 200 = 24.5 / 200 = 0.1225
     *   error = (Elo(s + 1.96 sqrt(var/N)) - Elo(s - 1.96 sqrt(var/N))) / 2 = 34.1592688436
     *   LOS = (1 + erf((W - L) / sqrt(2 (W + L)))) / 2 = Phi(2) = 0.9772498681
     *   LLR(0, 10): the generalized SPRT, N sum p_i log(q1_i / q0_i) with q0, q1 the most likely
     *              outcome distributions of mean score s0 = 0.5 and s1 = 1/(1 + 10^(-10/400))
     *              = 0.9880827754 (the approximation N (s1 - s0)(2s - s0 - s1) / (2 var) gives 1.0055)
     *   bounds(0.05, 0.05) = log(0.05/0.95), log(0.95/0.05) = -+2.9444389792 */
    wld_t r = {60, 40, 100};
    elo_t e = elo_estimate(r);
    NEAR(e.score, 0.55, 1e-12);
    NEAR(e.elo, 34.8600702876, 1e-8);
    NEAR(e.error, 34.1592688436, 1e-8);
    NEAR(e.los, 0.9772498681, 1e-9);
    NEAR(sprt_llr(r, 0, 10), 0.9880827754, 1e-8);
    double lo, hi;
    sprt_bounds(0.05, 0.05, &lo, &hi);
    NEAR(lo, -2.9444389792, 1e-9);
    NEAR(hi, 2.9444389792, 1e-9);
    cr_assert_eq(sprt_decide(0.9880827754, lo, hi), SPRT_CONTINUE);

    /* W = 30, L = 50, D = 20: s = 0.4, Elo = -400 log10(1.5) = -70.4365036223,
     * var = (30 .36 + 20 .01 + 50 .16) / 100 = 0.19, error = 62.5877299489,
     * LOS = (1 + erf(-20 / sqrt(160))) / 2 = 0.0126736593,
     * LLR(-5, 5) = -0.7195403808; bounds(0.05, 0.1) = log(0.1/0.95), log(0.9/0.05)
     *            = -2.2512917986, 2.8903717579 */
    r = (wld_t){30, 50, 20};
    e = elo_estimate(r);
    NEAR(e.elo, -70.4365036223, 1e-8);
    NEAR(e.error, 62.5877299489, 1e-8);
    NEAR(e.los, 0.0126736593, 1e-9);
    NEAR(sprt_llr(r, -5, 5), -0.7195403808, 1e-8);
    sprt_bounds(0.05, 0.1, &lo, &hi);
    NEAR(lo, -2.2512917986, 1e-9);
    NEAR(hi, 2.8903717579, 1e-9);

    /* W = 120, L = 100, D = 280: s = 0.52, Elo = 13.9048425037, error = 20.2190304443,
     * LOS = 0.9112350738, LLR(0, 5) = 0.5368354533 */
    r = (wld_t){120, 100, 280};
    e = elo_estimate(r);
    NEAR(e.elo, 13.9048425037, 1e-8);
    NEAR(e.error, 20.2190304443, 1e-8);
    NEAR(e.los, 0.9112350738, 1e-9);
    NEAR(sprt_llr(r, 0, 5), 0.5368354533, 1e-8);

    /* Edge cases: no games, all wins (unbounded Elo; the empty counts taken as 0.001 give
     * LLR(0, 10) = 0.2836807663), decisions. */
    e = elo_estimate((wld_t){0, 0, 0});
    NEAR(e.score, 0.5, 1e-12);
    NEAR(e.los, 0.5, 1e-12);
    e = elo_estimate((wld_t){10, 0, 0});
    cr_assert(isinf(e.elo) && e.elo > 0);
    cr_assert(isinf(e.error));
    NEAR(sprt_llr((wld_t){10, 0, 0}, 0, 10), 0.2836807663, 1e-8);
    NEAR(sprt_llr((wld_t){0, 0, 0}, 0, 10), 0.0, 1e-12);
    cr_assert_eq(sprt_decide(3.0, lo, hi), SPRT_H1);
    cr_assert_eq(sprt_decide(-3.0, lo, hi), SPRT_H0);
}

Test(referee, pentanomial_elo_nelo_los_and_llr)
{
    /* Pairs scoring 0, 1/2, 1, 3/2, 2 = 10, 40, 150, 60, 20 (N = 280 pairs):
     *   score = sum n_k (k/4) / N = 0.5357142857
     *   var   = sum n_k (k/4 - score)^2 / N (per pair, on the per-game scale)
     *   Elo   = -400 log10(1/score - 1) = 24.8591626995
     *   error = (Elo(score + z sqrt(var/N)) - Elo(score - z sqrt(var/N))) / 2 = 17.9078182055
     *   nElo  = (score - 1/2) / sqrt(2 var) * 800 / ln 10 = 40.1184057655, +- 28.7758642352
     *   LOS   = (1 - erf(-(score - 1/2) / sqrt(2 var / N))) / 2 = 0.9968574092
     *   LLR(0, 5) = 1.3193327245 */
    penta_t p = {{10, 40, 150, 60, 20}};
    penta_elo_t e = penta_estimate(p);
    cr_assert_eq(e.pairs, 280);
    NEAR(e.score, 0.5357142857, 1e-9);
    NEAR(e.elo, 24.8591626995, 1e-8);
    NEAR(e.error, 17.9078182055, 1e-8);
    NEAR(e.nelo, 40.1184057655, 1e-8);
    NEAR(e.nelo_error, 28.7758642352, 1e-8);
    NEAR(e.los, 0.9968574092, 1e-9);
    NEAR(sprt_llr_penta(p, 0, 5), 1.3193327245, 1e-7);

    /* No pair lost twice: that count is taken as 0.001 (as fastchess does), N = 180.
     *   Elo 24.1663689887 +- 18.2011406256, nElo 47.8505129272 +- 35.8898083255,
     *   LOS 0.9955143417, LLR(-5, 5) = 2.8887056078 */
    p = (penta_t){{0, 30, 100, 45, 5}};
    e = penta_estimate(p);
    NEAR(e.elo, 24.1663689887, 1e-8);
    NEAR(e.error, 18.2011406256, 1e-8);
    NEAR(e.nelo, 47.8505129272, 1e-8);
    NEAR(e.nelo_error, 35.8898083255, 1e-8);
    NEAR(e.los, 0.9955143417, 1e-9);
    NEAR(sprt_llr_penta(p, -5, 5), 2.8887056078, 1e-7);

    /* 3, 20, 60, 40, 7: Elo 37.5618011473 +- 25.7352888099, nElo 62.2375975199 +- 42.2314229978,
     * LOS 0.9980642861, LLR(0, 10) = 1.7902261828 */
    p = (penta_t){{3, 20, 60, 40, 7}};
    e = penta_estimate(p);
    NEAR(e.elo, 37.5618011473, 1e-8);
    NEAR(e.error, 25.7352888099, 1e-8);
    NEAR(e.nelo, 62.2375975199, 1e-8);
    NEAR(e.nelo_error, 42.2314229978, 1e-8);
    NEAR(e.los, 0.9980642861, 1e-9);
    NEAR(sprt_llr_penta(p, 0, 10), 1.7902261828, 1e-7);

    /* No pairs: nothing known, LLR 0. */
    e = penta_estimate((penta_t){{0, 0, 0, 0, 0}});
    NEAR(e.score, 0.5, 1e-12);
    cr_assert(isinf(e.error));
    NEAR(sprt_llr_penta((penta_t){{0, 0, 0, 0, 0}}, 0, 5), 0.0, 1e-12);
}
