/* A fake engine for the referee's tests. It speaks the protocol and plays the first legal
 * move, except for the one misbehaviour it is built for (FAKE_MODE), which happens at its
 * N-th move of a game (--at N, default 3):
 *   good        never misbehaves
 *   crash       dies by SIGSEGV
 *   hang        stops answering (and leaves a child process in its group)
 *   garbage     prints binary junk and a malformed bestmove
 *   illegal     answers a well-formed but illegal move
 *   slow        answers after --sleep MS (default 2000), too late for a short clock
 *   flood       prints info lines without end and never a bestmove
 *   disconnect  closes its output and stays alive
 *   nouci       never answers uci
 *   noready     answers uci but never isready
 *   exit        exits at start with --code N (default 0)
 *   quitless    plays well but ignores quit and SIGTERM
 *   stale       gives no answer in time, answers readyok at once, and prints the stopped
 *               search's bestmove --sleep MS after the go (after the readyok)
 *   double      prints two bestmove lines for one go
 *   crashchild  starts a child that keeps the output pipe open, then dies by SIGSEGV
 * and, from the start (not only at move N):
 *   spawn       starts a child in its own process group that sleeps forever
 *   setsid      starts a child that moves to a session of its own, and a grandchild in
 *               another session whose parent exits at once (it is left to a subreaper)
 *   setsidsleep starts a child that stays, and a grandchild that moves to a session of its
 *               own and runs sleep(1) with "sleep-<tag>" as its argv[0]; takes a second
 *               to quit (so that a run can be interrupted again while it quits)
 * --think MS makes every answer take MS and report it as the search's "time"; --score CP
 * makes it report that score (default 0); --score "mate N" (any text after "score ") reports
 * that instead.
 * --tag WORD is otherwise ignored: tests use it to find their processes. */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "baghchal.h"

#ifndef FAKE_MODE
#define FAKE_MODE "good"
#endif

static bool mode(const char *m) { return strcmp(FAKE_MODE, m) == 0; }

static void say(const char *fmt, const char *arg)
{
    flockfile(stdout); /* the stale search's thread writes too */
    printf(fmt, arg);
    fputc('\n', stdout);
    fflush(stdout);
    funlockfile(stdout);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void sleep_forever(void)
{
    for (;;)
        pause();
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The search the referee stopped, finishing on its own time. */
typedef struct {
    long ms;
    char move[MOVE_TEXT_LEN];
} stale_t;

static void *stale_search(void *arg)
{
    stale_t *st = arg;
    sleep_ms(st->ms);
    say("bestmove %s", st->move);
    free(st);
    return NULL;
}

static void start_children(const char *tag)
{
    if (mode("setsidsleep")) {
        if (fork() == 0) {
            if (fork() == 0) {
                char name[160];
                snprintf(name, sizeof name, "sleep-%s", tag);
                setsid();
                execlp("sleep", name, "3600", (char *)NULL);
                _exit(127);
            }
            sleep_forever();
        }
    } else if (mode("spawn")) {
        if (fork() == 0)
            sleep_forever();
    } else if (mode("setsid")) {
        if (fork() == 0) {
            setsid();
            sleep_forever();
        }
        pid_t mid = fork();
        if (mid == 0) {
            setsid();
            if (fork() == 0)
                sleep_forever();
            _exit(0);
        }
    }
}

/* "position startpos|obx <fields> [moves ...]" into g; false when it does not parse. */
static bool set_position(game_t *g, rep_rule_t rule, char *line)
{
    position_t start;
    obx_meta_t meta = {MOVE_NONE, 0};
    char *moves = strstr(line, " moves");
    if (moves)
        *moves = '\0';
    char *rest = line + strlen("position");
    while (*rest == ' ')
        rest++;
    if (strncmp(rest, "startpos", 8) == 0)
        position_set_start(&start);
    else if (strncmp(rest, "obx ", 4) == 0) {
        if (obx_parse(rest + 4, &start, &meta, NULL, 0) != BC_OK)
            return false;
    } else
        return false;
    game_free(g);
    if (!game_init(g, &start, &meta, rule))
        return false;
    if (moves) {
        char *save = NULL;
        for (char *t = strtok_r(moves + strlen(" moves"), " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save))
            if (game_play_text(g, t, NULL, 0) != BC_OK)
                return false;
    }
    return true;
}

/* A step that the rules of the position do not allow: from a point the side to move does
 * not hold, to a free neighbour; for goats still placing, a placement onto a tiger. */
static void illegal_move(const game_t *g, char *out)
{
    const position_t *p = game_position(g);
    if (p->side == GOATS && p->in_hand) {
        square_name(bb_first(p->tigers), out);
        return;
    }
    bb_t mine = p->side == GOATS ? p->goats : p->tigers;
    bb_t empty = position_empty(p);
    for (int from = 0; from < SQUARE_NB; from++) {
        if (mine & bb_square(from))
            continue;
        bb_t to = BC_STEPS[from] & empty;
        if (to) {
            square_name(from, out);
            square_name(bb_first(to), out + 2);
            return;
        }
    }
    strcpy(out, "A1A2");
}

int main(int argc, char **argv)
{
    long at = 3, sleep = 2000, think = 0;
    const char *score = "0";
    int code = 0;
    const char *tag = "untagged";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--at") == 0)
            at = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--sleep") == 0)
            sleep = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--code") == 0)
            code = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--think") == 0)
            think = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--score") == 0)
            score = argv[i + 1];
        else if (strcmp(argv[i], "--tag") == 0)
            tag = argv[i + 1];
    }
    if (mode("exit"))
        return code;
    if (mode("quitless"))
        signal(SIGTERM, SIG_IGN);
    game_t g;
    position_t start;
    position_set_start(&start);
    rep_rule_t rule = REP_FORBID;
    if (!game_init(&g, &start, NULL, rule))
        return 1;
    long moves = 0;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) >= 0) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strcmp(line, "uci") == 0) {
            if (mode("nouci"))
                continue;
            start_children(tag);
            say("id name fake_%s", FAKE_MODE);
            say("option name Repetition type combo default forbid var forbid var draw%s", "");
            say("uciok%s", "");
        } else if (strcmp(line, "isready") == 0) {
            if (!mode("noready"))
                say("readyok%s", "");
        } else if (strncmp(line, "setoption name Repetition value ", 32) == 0) {
            rule = strcasecmp(line + 32, "draw") == 0 ? REP_DRAW : REP_FORBID;
        } else if (strcmp(line, "ucinewgame") == 0) {
            moves = 0;
        } else if (strncmp(line, "position ", 9) == 0) {
            if (!set_position(&g, rule, line))
                say("info string error: bad position%s", "");
        } else if (strncmp(line, "go", 2) == 0) {
            double t0 = now_ms();
            moves++;
            move_t list[MAX_MOVES];
            char text[MOVE_TEXT_LEN] = "(none)";
            if (game_legal_moves(&g, list) > 0)
                move_format(list[0], text);
            if (moves == at) {
                if (mode("crash")) {
                    signal(SIGSEGV, SIG_DFL);
                    raise(SIGSEGV);
                } else if (mode("hang")) {
                    if (fork() == 0)
                        sleep_forever();
                    sleep_forever();
                } else if (mode("garbage")) {
                    fputs("\x01\x02\xff\xfe garbage \x7f\n", stdout);
                    fputs("info depth banana score cp\n", stdout);
                    say("bestmove %s", "#@!?**");
                    continue;
                } else if (mode("illegal")) {
                    illegal_move(&g, text);
                } else if (mode("slow")) {
                    sleep_ms(sleep);
                } else if (mode("flood")) {
                    for (;;)
                        if (puts("info string flooding the referee with output") < 0)
                            return 0;
                } else if (mode("disconnect")) {
                    fclose(stdout);
                    close(1);
                    sleep_forever();
                } else if (mode("stale")) {
                    stale_t *st = malloc(sizeof *st);
                    pthread_t th;
                    if (!st)
                        return 1;
                    st->ms = sleep;
                    snprintf(st->move, sizeof st->move, "%s", text);
                    if (pthread_create(&th, NULL, stale_search, st) != 0)
                        return 1;
                    pthread_detach(th);
                    continue;
                } else if (mode("crashchild")) {
                    if (fork() == 0)
                        sleep_forever();
                    signal(SIGSEGV, SIG_DFL);
                    raise(SIGSEGV);
                }
            }
            if (think > 0)
                sleep_ms(think);
            char info[160];
            snprintf(info, sizeof info, "%ld score %s%s pv", (long)(now_ms() - t0),
                     strncmp(score, "mate ", 5) == 0 ? "" : "cp ", score);
            flockfile(stdout);
            printf("info depth 1 time %s %s\n", info, text);
            if (moves == at && mode("double")) /* both in one write: they arrive together */
                printf("bestmove %s\n", text);
            say("bestmove %s", text);
            funlockfile(stdout);
        } else if (strcmp(line, "quit") == 0) {
            if (mode("setsidsleep"))
                sleep_ms(1000);
            if (!mode("quitless"))
                break;
        }
    }
    if (mode("quitless"))
        sleep_forever();
    free(line);
    game_free(&g);
    return 0;
}
