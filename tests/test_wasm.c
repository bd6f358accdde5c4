/* The WebAssembly engines under Node (the target board-static) against the native one over
 * pipes: baghchal-node.js (threads, the command-line engine) and baghchal-worker.js (the
 * page's worker without threads, run by Node on stdin and stdout). The same lines in, the
 * same lines out, times and speeds aside; where time limits differ (a slower engine, Node's
 * start), only that the answer comes in time. Skipped when the build has no board-static (no
 * emscripten) or no node. */
#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baghchal.h"
#include "pipe.h"

#define NATIVE_BIN BAGHCHAL_BIN_DIR "/baghchal"
#define REPLY_MS 20000 /* an answer that does not depend on timing, Node's start included */

#if defined(BAGHCHAL_NODE) && defined(BAGHCHAL_NODE_ENGINE)
#define HAVE_WASM 1
#else
#define HAVE_WASM 0
#define BAGHCHAL_NODE "node"
#define BAGHCHAL_NODE_ENGINE ""
#define BAGHCHAL_NODE_WORKER ""
#endif

static void need_wasm(void)
{
    if (!HAVE_WASM)
        cr_skip_test("no board-static target in this build (emscripten or node missing)");
}

typedef enum { NATIVE, THREADS, WORKER } kind_t;
static const char *const KIND[] = {"native", "wasm (threads)", "wasm (worker)"};

static pipe_proc_t *start(kind_t kind, const char *arg)
{
    char *argv[4] = {0};
    int n = 0;
    if (kind != NATIVE) {
        argv[n++] = (char *)BAGHCHAL_NODE;
        argv[n++] = (char *)(kind == THREADS ? BAGHCHAL_NODE_ENGINE : BAGHCHAL_NODE_WORKER);
    } else {
        argv[n++] = (char *)NATIVE_BIN;
    }
    if (arg)
        argv[n++] = (char *)arg;
    pipe_proc_t *p = pipe_start(argv, 0);
    cr_assert(p, "could not start %s", argv[0]);
    return p;
}

/* A line as compared: without the fields that measure time or speed. */
static char *normalized(const char *line)
{
    static const char *const DROP[] = {"time", "nps"};
    if (strncmp(line, "Total time (ms):", 16) == 0 || strncmp(line, "Nodes/second:", 13) == 0)
        return strdup("(time)");
    char *out = malloc(strlen(line) + 1), *d = out;
    cr_assert(out);
    bool info = strncmp(line, "info ", 5) == 0;
    const char *s = line;
    while (*s) {
        const char *w = s;
        while (*s && *s != ' ')
            s++;
        size_t n = (size_t)(s - w);
        bool drop = false;
        for (size_t i = 0; info && i < sizeof DROP / sizeof DROP[0]; i++)
            drop = drop || (n == strlen(DROP[i]) && strncmp(w, DROP[i], n) == 0);
        if (drop) {
            while (*s == ' ')
                s++;
            while (*s && *s != ' ')
                s++;
        } else {
            memcpy(d, w, n);
            d += n;
        }
        while (*s == ' ')
            *d++ = *s++;
    }
    *d = '\0';
    return out;
}

/* Sends the lines (NULL-terminated) to a fresh engine and reads its output up to and
 * including the first line that starts with until. */
static void transcript(kind_t kind, const char *const *lines, const char *until, pipe_lines_t *got)
{
    pipe_proc_t *p = start(kind, NULL);
    for (int i = 0; lines[i]; i++)
        cr_assert_eq(pipe_send(p, "%s", lines[i]), 0);
    char *line;
    pipe_status_t st = pipe_read_until(p, until, REPLY_MS, got, &line);
    cr_assert_eq(st, PIPE_LINE, "%s engine: no line '%s...' (%s) after %zu lines", KIND[kind], until,
                 pipe_status_name(st), got->count);
    /* The matching line is the transcript's last. */
    if (got->count == got->cap) {
        got->cap = got->cap ? got->cap * 2 : 8;
        got->line = realloc(got->line, got->cap * sizeof *got->line);
        cr_assert(got->line);
    }
    got->line[got->count] = strdup(line);
    cr_assert(got->line[got->count]);
    got->count++;
    pipe_send(p, "quit");
    pipe_exit_t ex = pipe_finish(p, REPLY_MS);
    cr_assert(ex.exited && ex.code == 0, "%s engine did not quit cleanly (code %d, signal %d)", KIND[kind], ex.code,
              ex.signal);
    pipe_free(p);
}

/* Every engine, the same lines: the same output, line for line. */
static void same_output(const char *const *lines, const char *until)
{
    need_wasm();
    pipe_lines_t nat = {0};
    transcript(NATIVE, lines, until, &nat);
    for (kind_t k = THREADS; k <= WORKER; k++) {
        pipe_lines_t wasm = {0};
        transcript(k, lines, until, &wasm);
        for (size_t i = 0; i < nat.count && i < wasm.count; i++) {
            char *a = normalized(nat.line[i]), *b = normalized(wasm.line[i]);
            cr_assert_str_eq(b, a, "line %zu differs: %s '%s', native '%s'", i + 1, KIND[k], wasm.line[i], nat.line[i]);
            free(a);
            free(b);
        }
        cr_assert_eq(wasm.count, nat.count, "%s printed %zu lines, native %zu", KIND[k], wasm.count, nat.count);
        pipe_lines_free(&wasm);
    }
    pipe_lines_free(&nat);
}

Test(wasm, uci_options_and_ready)
{
    const char *const in[] = {"uci", "isready", NULL};
    same_output(in, "readyok");
}

Test(wasm, positions_and_display)
{
    const char *const in[] = {"position startpos moves C3 A1B2 B3 B2B1 D3", "d",
                              "position obx GGGGG/GXXTG/GTXGG/GXTGG/GGTGG g @0 c3", "d",
                              "setoption name OBXVersion value 1", "setoption name Repetition value draw",
                              "position startpos moves C3 A1B2", "d", "isready", NULL};
    same_output(in, "readyok");
}

/* Refused lines print the same errors and leave the position as it was. */
Test(wasm, errors_keep_the_state)
{
    const char *const in[] = {"position startpos moves C3 A1B2", "position startpos moves C3 Z9",
                              "position obx TXXXT/bad", "go depth x", "go perft x", "frobnicate", "d takes",
                              "setoption name Threads value many", "bench x", "d", "isready", NULL};
    same_output(in, "readyok");
}

/* A perft runs beside the reading thread (isready is answered meanwhile): each transcript
 * ends with its total. */
Test(wasm, perft_counts)
{
    const char *const start[] = {"go perft 5", NULL};
    same_output(start, "Nodes searched");
    const char *const middle[] = {"position obx GGGGG/GXXTG/GTXGG/GXTGG/GGTGG g @0 c3", "go perft 4", NULL};
    same_output(middle, "Nodes searched");
}

/* A search at a fixed depth or node count is deterministic: every info line, score, node
 * count, hashfull and line is the native engine's. */
Test(wasm, fixed_depth_search)
{
    const char *const in[] = {"ucinewgame", "position startpos moves C3 A1B2 B3", "go depth 9", NULL};
    same_output(in, "bestmove");
}

Test(wasm, node_limit_and_multipv)
{
    const char *const in[] = {"setoption name MultiPV value 3", "position obx GGGGG/GXXTG/GTXGG/GXTGG/GGTGG g @0 c3",
                              "go nodes 30000", NULL};
    same_output(in, "bestmove");
}

/* The weakened pick draws the same random margins and compares them in 64 bits, also where
 * long has 32 (it once started below -(1L << 40), which wasm32 made 0: another move here). */
Test(wasm, skill_level_pick)
{
    const char *const in[] = {"setoption name Skill Level value 0", "ucinewgame", "position startpos moves C3 A1B2",
                              "go depth 6", NULL};
    same_output(in, "bestmove");
}

/* bench's node count is the build's signature: the same in WebAssembly. */
Test(wasm, bench_signature)
{
    const char *const in[] = {"bench 7", NULL};
    same_output(in, "Nodes/second");
}

/* During a search that only stop ends, isready is answered at once and stop ends it. */
static void isready_and_stop(kind_t kind)
{
    need_wasm();
    pipe_proc_t *p = start(kind, NULL);
    char *line;
    pipe_send(p, "isready");
    cr_assert_eq(pipe_read_until(p, "readyok", REPLY_MS, NULL, &line), PIPE_LINE);
    pipe_send(p, "position startpos moves C3");
    pipe_send(p, "go infinite");
    cr_assert_eq(pipe_read_until(p, "info depth 3 ", REPLY_MS, NULL, &line), PIPE_LINE);
    for (int i = 0; i < 5; i++) {
        pipe_send(p, "isready");
        pipe_lines_t before = {0};
        cr_assert_eq(pipe_read_until(p, "readyok", 2000, &before, &line), PIPE_LINE, "%s: isready %d unanswered", KIND[kind], i);
        for (size_t k = 0; k < before.count; k++)
            cr_assert(strncmp(before.line[k], "bestmove", 8) != 0, "the search ended by itself: %s", before.line[k]);
        pipe_lines_free(&before);
        cr_assert_lt(pipe_wait_ms(p), 500, "%s: readyok took %.0f ms", KIND[kind], pipe_wait_ms(p));
        struct timespec ts = {0, 50 * 1000000};
        nanosleep(&ts, NULL);
    }
    pipe_send(p, "stop");
    cr_assert_eq(pipe_read_until(p, "bestmove ", 2000, NULL, &line), PIPE_LINE);
    cr_assert_lt(pipe_wait_ms(p), 500, "%s: bestmove came %.0f ms after stop", KIND[kind], pipe_wait_ms(p));
    /* The move is legal in the position searched. */
    position_t pos;
    position_set_start(&pos);
    game_t g;
    cr_assert(game_init(&g, &pos, NULL, REP_FORBID));
    cr_assert_eq(game_play_text(&g, "C3", NULL, 0), BC_OK);
    char text[16];
    cr_assert_eq(sscanf(line, "bestmove %15s", text), 1);
    cr_assert_eq(game_play_text(&g, text, NULL, 0), BC_OK, "bestmove %s is not legal", text);
    game_free(&g);
    pipe_send(p, "quit");
    pipe_exit_t ex = pipe_finish(p, REPLY_MS);
    cr_assert(ex.exited && ex.code == 0);
    pipe_free(p);
}

Test(wasm, isready_and_stop_during_infinite_threads) { isready_and_stop(THREADS); }
Test(wasm, isready_and_stop_during_infinite_worker) { isready_and_stop(WORKER); }

/* A fixed time is kept: the answer comes within the time and Node's own delays. */
static void movetime_holds(kind_t kind)
{
    need_wasm();
    pipe_proc_t *p = start(kind, NULL);
    char *line;
    pipe_send(p, "isready");
    cr_assert_eq(pipe_read_until(p, "readyok", REPLY_MS, NULL, &line), PIPE_LINE);
    pipe_send(p, "go movetime 400");
    cr_assert_eq(pipe_read_until(p, "bestmove ", 5000, NULL, &line), PIPE_LINE);
    double ms = pipe_line_at(p) - pipe_sent_at(p);
    cr_assert(ms >= 250 && ms <= 1000, "%s: go movetime 400 answered after %.0f ms", KIND[kind], ms);
    pipe_free(p);
}

Test(wasm, movetime_holds_threads) { movetime_holds(THREADS); }
Test(wasm, movetime_holds_worker) { movetime_holds(WORKER); }

/* End of input, as natively: a search that ends by itself (movetime) runs to its end, one
 * that would not (infinite, no limit, searchmoves alone) is stopped; then the program ends.
 * The worker, whose search runs inside the command, stops it there too, and a search that
 * was waiting for it (the worker takes a go during a search once the search has ended). */
static void end_of_input(kind_t kind, const char *go, double at_least_ms)
{
    need_wasm();
    pipe_proc_t *p = start(kind, NULL);
    char *line;
    pipe_send(p, "isready");
    cr_assert_eq(pipe_read_until(p, "readyok", REPLY_MS, NULL, &line), PIPE_LINE);
    pipe_send(p, "%s", go);
    pipe_close_stdin(p);
    cr_assert_eq(pipe_read_until(p, "bestmove ", 5000, NULL, &line), PIPE_LINE, "%s: no bestmove after '%s'",
                 KIND[kind], go);
    double ms = pipe_line_at(p) - pipe_sent_at(p);
    cr_assert(ms >= at_least_ms && ms <= at_least_ms + 2000, "%s: '%s' then end of input: bestmove after %.0f ms",
              KIND[kind], go, ms);
    pipe_exit_t ex = pipe_wait(p, REPLY_MS);
    cr_assert(ex.exited && ex.code == 0, "%s: code %d signal %d", KIND[kind], ex.code, ex.signal);
    pipe_free(p);
}

Test(wasm, end_of_input_stops_infinite_threads) { end_of_input(THREADS, "go infinite", 0); }
Test(wasm, end_of_input_stops_infinite_worker) { end_of_input(WORKER, "go infinite", 0); }
Test(wasm, end_of_input_stops_go_without_limits_threads) { end_of_input(THREADS, "go", 0); }
Test(wasm, end_of_input_stops_go_without_limits_worker) { end_of_input(WORKER, "go", 0); }
Test(wasm, end_of_input_stops_searchmoves_threads) { end_of_input(THREADS, "go searchmoves C3 B2", 0); }
Test(wasm, end_of_input_stops_searchmoves_worker) { end_of_input(WORKER, "go searchmoves C3 B2", 0); }
Test(wasm, end_of_input_stops_the_search_after_worker) { end_of_input(WORKER, "go infinite\ngo searchmoves C3", 0); }
Test(wasm, end_of_input_lets_movetime_end_threads) { end_of_input(THREADS, "go movetime 400", 250); }
Test(wasm, end_of_input_lets_movetime_end_worker) { end_of_input(WORKER, "go movetime 400", 250); }

/* A long line (a game of millions of moves as one position command) is read, refused and
 * followed with the native engine's lines, in time linear in its length: 48 MB takes about 8
 * times as long as 6 MB (a constant start aside), where the worker's old reader, quadratic,
 * took about 60 times as long (39 s against 0.6 s). The ratio of the two times, each build
 * against itself in the same run, holds on a busy machine where a fixed bound would not;
 * the figures themselves are benchmarks (docs/wasm.md). Returns the time the line took. */
static double long_line(kind_t kind, size_t moves, pipe_lines_t *got)
{
    static const char head[] = "position startpos moves ";
    size_t len = sizeof head - 1 + 3 * moves + 1;
    char *line = malloc(len);
    cr_assert(line);
    memcpy(line, head, sizeof head - 1);
    for (size_t i = 0; i < moves; i++)
        memcpy(line + sizeof head - 1 + 3 * i, "C3 ", 3);
    line[len - 1] = '\n';
    pipe_proc_t *p = start(kind, NULL);
    char *reply;
    pipe_send(p, "isready");
    cr_assert_eq(pipe_read_until(p, "readyok", REPLY_MS, NULL, &reply), PIPE_LINE);
    pipe_set_send_timeout(p, 120000);
    double t0 = pipe_now_ms();
    cr_assert_eq(pipe_write(p, line, len), 0, "%s: the %zu-byte line was not taken", KIND[kind], len);
    free(line);
    cr_assert_eq(pipe_send(p, "isready"), 0);
    pipe_status_t st = pipe_read_until(p, "readyok", 120000, got, &reply);
    double ms = pipe_now_ms() - t0;
    cr_assert_eq(st, PIPE_LINE, "%s: no readyok after the %zu-byte line (%s after %.0f ms)", KIND[kind], len,
                 pipe_status_name(st), ms);
    pipe_send(p, "quit");
    pipe_exit_t ex = pipe_finish(p, REPLY_MS);
    cr_assert(ex.exited && ex.code == 0);
    pipe_free(p);
    return ms;
}

Test(wasm, long_line_in_linear_time, .timeout = 600)
{
    need_wasm();
    enum { SMALL = 2 * 1000 * 1000, BIG = 16 * 1000 * 1000 };
    pipe_lines_t nat = {0};
    long_line(NATIVE, BIG, &nat);
    cr_assert_geq(nat.count, 1);
    for (kind_t k = THREADS; k <= WORKER; k++) {
        pipe_lines_t small = {0}, wasm = {0};
        double t_small = long_line(k, SMALL, &small);
        double t_big = long_line(k, BIG, &wasm);
        cr_assert_eq(wasm.count, nat.count, "%s printed %zu lines, native %zu", KIND[k], wasm.count, nat.count);
        for (size_t i = 0; i < nat.count; i++)
            cr_assert_str_eq(wasm.line[i], nat.line[i], "%s, line %zu", KIND[k], i + 1);
        /* Linear: about 8 (less with the start's constant); quadratic: about 64. */
        double floor_ms = t_small > 50 ? t_small : 50;
        cr_assert_lt(t_big / floor_ms, 24.0, "%s: 48 MB took %.0f ms, 6 MB %.0f ms: %.1f times as long", KIND[k], t_big,
                     t_small, t_big / floor_ms);
        pipe_lines_free(&small);
        pipe_lines_free(&wasm);
    }
    pipe_lines_free(&nat);
}

/* One command from the arguments (the command-line engine; the worker takes none): its
 * output and exit status are the native program's. */
static void one_command(const char *arg, int status)
{
    need_wasm();
    pipe_lines_t out[2] = {{0}, {0}};
    for (int w = 0; w < 2; w++) {
        pipe_proc_t *p = start(w ? THREADS : NATIVE, arg);
        char *line;
        pipe_status_t st;
        while ((st = pipe_read_line(p, REPLY_MS, &line)) == PIPE_LINE) {
            if (out[w].count == out[w].cap) {
                out[w].cap = out[w].cap ? out[w].cap * 2 : 16;
                out[w].line = realloc(out[w].line, out[w].cap * sizeof *out[w].line);
                cr_assert(out[w].line);
            }
            out[w].line[out[w].count++] = normalized(line);
        }
        cr_assert_eq(st, PIPE_EOF, "%s", pipe_status_name(st));
        pipe_exit_t ex = pipe_wait(p, REPLY_MS);
        cr_assert(ex.exited && ex.code == status, "%s '%s': exit code %d, expected %d", w ? "wasm" : "native", arg,
                  ex.code, status);
        pipe_free(p);
    }
    cr_assert_eq(out[1].count, out[0].count, "'%s': wasm printed %zu lines, native %zu", arg, out[1].count, out[0].count);
    for (size_t i = 0; i < out[0].count; i++)
        cr_assert_str_eq(out[1].line[i], out[0].line[i]);
    pipe_lines_free(&out[0]);
    pipe_lines_free(&out[1]);
}

Test(wasm, one_command_perft) { one_command("go perft 4", 0); }
Test(wasm, one_command_refused) { one_command("go infinite", 1); }
Test(wasm, one_command_version) { one_command("--version", 0); }

/* Lines read from an engine until one starting with until, or a failed assertion. */
static void read_to(pipe_proc_t *p, kind_t kind, const char *until, pipe_lines_t *got, const char *what)
{
    char *line;
    pipe_status_t st = pipe_read_until(p, until, REPLY_MS, got, &line);
    cr_assert_eq(st, PIPE_LINE, "%s: no '%s' %s (%s)", KIND[kind], until, what, pipe_status_name(st));
}

static bool has_line(const pipe_lines_t *got, const char *start)
{
    for (size_t i = 0; i < got->count; i++)
        if (strncmp(got->line[i], start, strlen(start)) == 0)
            return true;
    return false;
}

/* Any line during a search is taken as natively (a position changes the game the next go
 * searches, an unknown word is refused at once), and stop and isready after it are still
 * answered; so are the ones after a go that waits for the search before it. */
static void lines_during_search(kind_t kind)
{
    need_wasm();
    pipe_proc_t *p = start(kind, NULL);
    pipe_send(p, "isready");
    read_to(p, kind, "readyok", NULL, "at the start");
    pipe_send(p, "position startpos");
    pipe_send(p, "go infinite");
    read_to(p, kind, "info depth 2 ", NULL, "from go infinite");
    pipe_send(p, "position startpos moves C3");
    pipe_send(p, "STOP");
    pipe_send(p, "stop");
    pipe_send(p, "isready");
    pipe_lines_t got = {0};
    read_to(p, kind, "readyok", &got, "after position, STOP, stop, isready");
    cr_assert(has_line(&got, "info string error: unknown command 'STOP'"), "%s: STOP not refused", KIND[kind]);
    cr_assert(has_line(&got, "bestmove "), "%s: no bestmove before readyok", KIND[kind]);
    pipe_lines_free(&got);
    /* The position sent during the search is the game's now: goats have placed one. */
    pipe_send(p, "d");
    pipe_send(p, "isready");
    read_to(p, kind, "readyok", &got, "after d");
    cr_assert(has_line(&got, "OBX: TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0"), "%s: the position was not taken",
              KIND[kind]);
    pipe_lines_free(&got);
    /* Two searches without end, the second waiting for the first: stop and isready answered. */
    pipe_send(p, "go infinite");
    pipe_send(p, "go infinite");
    read_to(p, kind, "bestmove ", NULL, "from the first go infinite");
    read_to(p, kind, "info depth 2 ", NULL, "from the second go infinite");
    pipe_send(p, "stop");
    pipe_send(p, "isready");
    read_to(p, kind, "bestmove ", &got, "after stop");
    read_to(p, kind, "readyok", &got, "after stop, isready");
    pipe_lines_free(&got);
    pipe_send(p, "quit");
    pipe_exit_t ex = pipe_finish(p, REPLY_MS);
    cr_assert(ex.exited && ex.code == 0);
    pipe_free(p);
}

Test(wasm, lines_during_search_native) { lines_during_search(NATIVE); }
Test(wasm, lines_during_search_threads) { lines_during_search(THREADS); }
Test(wasm, lines_during_search_worker) { lines_during_search(WORKER); }

/* A table larger than wasm32 can hold is refused as natively when memory runs out: the
 * previous size is kept and the engine goes on. */
static void hash_too_big(kind_t kind)
{
    need_wasm();
    pipe_proc_t *p = start(kind, NULL);
    static const char *const SIZES[] = {"2048", "3000", "4095", "4096", "65536"};
    for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0]; i++) {
        pipe_send(p, "setoption name Hash value %s", SIZES[i]);
        pipe_send(p, "isready");
        pipe_lines_t got = {0};
        read_to(p, kind, "readyok", &got, SIZES[i]);
        char want[96];
        snprintf(want, sizeof want, "info string error: not enough memory for Hash %s MB; keeping 64 MB", SIZES[i]);
        cr_assert(has_line(&got, want), "%s: Hash %s not refused as '%s'", KIND[kind], SIZES[i], want);
        pipe_lines_free(&got);
    }
    pipe_send(p, "setoption name Hash value 16");
    pipe_send(p, "position startpos moves C3");
    pipe_send(p, "go depth 5");
    pipe_lines_t got = {0};
    read_to(p, kind, "bestmove ", &got, "after the refusals");
    cr_assert(!has_line(&got, "info string error"), "%s: Hash 16 refused", KIND[kind]);
    pipe_lines_free(&got);
    pipe_send(p, "quit");
    pipe_exit_t ex = pipe_finish(p, REPLY_MS);
    cr_assert(ex.exited && ex.code == 0);
    pipe_free(p);
}

Test(wasm, hash_too_big_threads) { hash_too_big(THREADS); }
Test(wasm, hash_too_big_worker) { hash_too_big(WORKER); }

/* A perft far too deep to end is stopped by stop, isready answered meanwhile, as natively. */
Test(wasm, perft_stopped)
{
    const char *const in[] = {"go perft 30", "isready", "stop", "isready", "go perft 1", NULL};
    same_output(in, "Nodes searched");
}
