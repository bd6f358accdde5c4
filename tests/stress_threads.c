/* Drives the threaded search in-process as a GUI would, fast and out of order: go with
 * every kind of limit, stop at once or later, ponder and ponderhit, several threads on one
 * table, option changes between searches. Under ThreadSanitizer any data race aborts; in
 * every build each search must report exactly one legal bestmove. Exit status 0 = pass. */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "baghchal.h"

typedef struct {
    atomic_int bestmoves;
    atomic_int infos;
    _Atomic move_t last;
} counts_t;

static void on_info(void *ctx, const search_info_t *info)
{
    counts_t *c = ctx;
    if (info->pv_len > 0)
        atomic_fetch_add(&c->infos, 1);
}

static void on_best(void *ctx, move_t best, move_t ponder, const search_info_t *final)
{
    (void)ponder, (void)final;
    counts_t *c = ctx;
    atomic_store(&c->last, best);
    atomic_fetch_add(&c->bestmoves, 1);
}

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static unsigned next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng >> 32);
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static int failures;
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "stress_threads: " __VA_ARGS__);                                                           \
            fputc('\n', stderr);                                                                                       \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

int main(void)
{
    engine_t *e = engine_new();
    if (!e || !engine_set_hash(e, 4)) {
        fprintf(stderr, "stress_threads: out of memory\n");
        return 1;
    }
    counts_t c = {0};
    search_report_t report = {on_info, on_best, &c};
    int searches = 0;
    for (int round = 0; round < 160; round++) {
        /* A random game of 0..60 plies from the start, under either repetition rule. */
        position_t start;
        position_set_start(&start);
        game_t g;
        if (!game_init(&g, &start, NULL, round % 3 == 0 ? REP_DRAW : REP_FORBID))
            return 1;
        int plies = (int)(next() % 60);
        for (int i = 0; i < plies; i++) {
            move_t moves[MAX_MOVES];
            int n = game_legal_moves(&g, moves);
            if (n == 0)
                break;
            game_play(&g, moves[next() % (unsigned)n], NULL, 0);
        }
        if (round % 16 == 0) {
            CHECK(engine_set_threads(e, 1 + (int)(next() % 4)), "set_threads failed");
            engine_set_multipv(e, 1 + (int)(next() % 3));
        }
        if (round % 40 == 0)
            engine_clear(e);
        CHECK(engine_set_game(e, &g), "set_game failed");

        search_limits_t l;
        search_limits_init(&l);
        int kind = (int)(next() % 6);
        switch (kind) {
        case 0: l.depth = 1 + (int)(next() % 6); break;
        case 1: l.nodes = 1 + next() % 20000; break;
        case 2: l.movetime = 1 + next() % 8; break;
        case 3: l.infinite = true; break;
        case 4: l.ponder = true; l.time[GOATS] = l.time[TIGERS] = 200; break;
        default: l.time[GOATS] = l.time[TIGERS] = 20 + next() % 100; l.inc[GOATS] = l.inc[TIGERS] = 5; break;
        }
        int before = atomic_load(&c.bestmoves);
        CHECK(engine_go(e, &l, &report), "engine_go failed");
        searches++;
        sleep_us((long)(next() % 3000));
        if (kind == 4 && next() % 2)
            engine_ponderhit(e);
        else if (kind >= 3 || next() % 2)
            engine_stop(e);
        /* Sometimes a second go arrives before the first has answered. */
        if (next() % 5 == 0) {
            search_limits_t d;
            search_limits_init(&d);
            d.depth = 2;
            CHECK(engine_go(e, &d, &report), "second engine_go failed");
            searches++;
            before++;
        }
        engine_wait(e);
        CHECK(atomic_load(&c.bestmoves) == before + 1, "round %d: %d bestmoves for one go", round,
              atomic_load(&c.bestmoves) - before);
        move_t best = atomic_load(&c.last);
        move_t legal[MAX_MOVES];
        int n = game_result(&g).reason == RESULT_NONE ? game_legal_moves(&g, legal) : 0;
        bool ok = n == 0 ? best == MOVE_NONE : false;
        for (int i = 0; i < n && !ok; i++)
            ok = legal[i] == best;
        CHECK(ok, "round %d: bestmove %d is not legal", round, best);
        game_free(&g);
    }
    CHECK(atomic_load(&c.bestmoves) == searches, "%d searches, %d bestmoves", searches, atomic_load(&c.bestmoves));
    CHECK(atomic_load(&c.infos) > 0, "no info was reported");
    engine_free(e);
    printf("%d passed, %d failed\n", failures ? 0 : 1, failures ? 1 : 0);
    return failures ? 1 : 0;
}
