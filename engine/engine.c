/* The engine facade: owns the game copy, the table, the workers and the search thread. */
#define _GNU_SOURCE /* sched_getaffinity */
#include "engine.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "skill.h"

struct engine {
    game_t game;
    tt_t tt;
    const tb_t *tb; /* the database probed: tb_own, or a handle its caller shares */
    tb_t *tb_own;   /* the one engine_set_tablebase opened, closed with the engine */
    worker_t *workers[MAX_THREADS];
    int nthreads, multipv;
    int processors; /* the processors this process may run on: the most threads searched */
    int64_t move_overhead;
    void (*poll)(void *ctx); /* engine_set_poll's, handed to each search */
    void *poll_ctx;
    search_shared_t shared;
    search_report_t user; /* the caller's callbacks; bestmove passes through engine_bestmove */
    pthread_t thread;
    bool thread_live;     /* a search thread exists and has not been joined */
    atomic_bool running;  /* until the search thread has reported bestmove */
    /* The private engine of bench, made by its first run on the bench thread (engine_stop
     * reads it from the reading thread). */
    engine_t *_Atomic bench;
    int bench_depth;
    void (*bench_done)(void *ctx, const bench_result_t *r);
    void *bench_ctx;
    skill_state_t skill;
    eval_params_t eval;  /* the weights the search evaluates with */
    char eval_error[160]; /* why the built-in tuned weights were refused; empty when used */
    char net_error[160];  /* why the built-in network was refused; empty when used */
    bitbase_t bitbase;    /* the endgame bitbase built in, for the search without database */
    char bitbase_error[160]; /* why the built-in bitbase was refused; empty when used */
    fb_prover_t *prover; /* go prove's, of the Hash size, made at its first use */
    size_t prover_mb;
    fb_prover_t *settler; /* engine_settle_moves's, made at its first use */
    search_limits_t prove_limits;
    void (*prove_done)(void *ctx, const fb_proof_t *proof);
    void *prove_ctx;
};

/* How many processors the process may use (its affinity mask, else the online count). */
static int count_processors(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

engine_t *engine_new(void)
{
    engine_t *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    position_t start;
    position_set_start(&start);
    tt_init(&e->tt);
    e->multipv = 1;
    e->move_overhead = ENGINE_DEFAULT_OVERHEAD_MS;
    e->processors = count_processors();
    skill_init(&e->skill);
    if (eval_params_load(&e->eval, EVAL_TUNED_DATA, EVAL_TUNED_SIZE, e->eval_error, sizeof e->eval_error))
        e->eval_error[0] = '\0';
    if (eval_net_load(&e->eval, EVAL_NET_DATA, EVAL_NET_SIZE, e->net_error, sizeof e->net_error))
        e->net_error[0] = '\0';
    e->shared.eval = &e->eval;
    if (bitbase_load(&e->bitbase, BITBASE_DATA, BITBASE_SIZE, e->bitbase_error, sizeof e->bitbase_error)) {
        e->bitbase_error[0] = '\0';
        e->shared.bitbase = &e->bitbase;
    }
    if (!search_shared_init(&e->shared)) {
        bitbase_free(&e->bitbase);
        free(e);
        return NULL;
    }
    if (!game_init(&e->game, &start, NULL, REP_FORBID) || !tt_resize(&e->tt, ENGINE_DEFAULT_HASH_MB) ||
        !engine_set_threads(e, 1)) {
        engine_free(e);
        return NULL;
    }
    return e;
}

void engine_wait(engine_t *e)
{
    if (e->thread_live) {
        pthread_join(e->thread, NULL);
        e->thread_live = false;
    }
}

void engine_free(engine_t *e)
{
    if (!e)
        return;
    engine_stop(e);
    engine_wait(e);
    for (int i = 0; i < e->nthreads; i++)
        worker_free(e->workers[i]);
    engine_free(atomic_load(&e->bench));
    fb_prover_free(e->prover);
    fb_prover_free(e->settler);
    tt_free(&e->tt);
    tb_close(e->tb_own);
    game_free(&e->game);
    search_shared_destroy(&e->shared);
    bitbase_free(&e->bitbase);
    free(e);
}

bool engine_set_hash(engine_t *e, size_t mb)
{
    engine_wait(e);
    return tt_resize(&e->tt, mb);
}

void engine_set_hash_eager(engine_t *e, bool eager)
{
    engine_wait(e);
    tt_set_eager(&e->tt, eager);
}

size_t engine_hash_mb(engine_t *e) { return e->tt.count * sizeof(tt_bucket_t) >> 20; }

bool engine_set_threads(engine_t *e, int n)
{
    engine_wait(e);
    if (n < 1)
        n = 1;
    if (n > MAX_THREADS)
        n = MAX_THREADS;
    worker_t *fresh[MAX_THREADS];
    int have = e->nthreads;
    for (int i = have; i < n; i++) {
        fresh[i] = worker_new(i);
        if (!fresh[i]) {
            while (--i >= have)
                worker_free(fresh[i]);
            return false;
        }
    }
    for (int i = have; i < n; i++)
        e->workers[i] = fresh[i];
    for (int i = n; i < have; i++) {
        worker_free(e->workers[i]);
        e->workers[i] = NULL;
    }
    e->nthreads = n;
    return true;
}

void engine_set_multipv(engine_t *e, int n)
{
    engine_wait(e);
    e->multipv = n < 1 ? 1 : n > MAX_MULTIPV ? MAX_MULTIPV : n;
}

void engine_set_skill(engine_t *e, int level, bool limit_strength, int elo)
{
    engine_wait(e);
    skill_set(&e->skill, level, limit_strength, elo);
}

void engine_set_move_overhead(engine_t *e, int ms)
{
    engine_wait(e);
    e->move_overhead = ms < 0 ? 0 : ms > ENGINE_MAX_OVERHEAD_MS ? ENGINE_MAX_OVERHEAD_MS : ms;
}

void engine_set_poll(engine_t *e, void (*poll)(void *ctx), void *ctx)
{
    engine_wait(e);
    e->poll = poll;
    e->poll_ctx = ctx;
}

void engine_clear(engine_t *e)
{
    engine_wait(e);
    tt_clear(&e->tt);
    for (int i = 0; i < e->nthreads; i++)
        worker_clear(e->workers[i]);
    e->skill.rng = SKILL_SEED;
}

tb_error_t engine_set_tablebase(engine_t *e, const char *dir, char *msg, size_t msglen)
{
    engine_wait(e);
    tb_t *tb = NULL;
    if (dir && *dir) {
        tb_error_t err = tb_open_game(dir, &tb, msg, msglen);
        if (err != TB_OK)
            return err;
    }
    tb_close(e->tb_own);
    e->tb_own = tb;
    e->tb = tb;
    return TB_OK;
}

void engine_share_tablebase(engine_t *e, const tb_t *tb)
{
    engine_wait(e);
    tb_close(e->tb_own);
    e->tb_own = NULL;
    e->tb = tb;
}

const tb_t *engine_tablebase(engine_t *e) { return e->tb; }

bool engine_set_game(engine_t *e, const game_t *g)
{
    engine_wait(e);
    /* A copy, not a replay: linear in the game's length, and true to a game whose moves
     * the repetition rule now in force would refuse. */
    game_t copy;
    if (!game_copy(&copy, g))
        return false;
    game_swap(&e->game, &copy);
    game_free(&copy);
    return true;
}

/* The search is over once bestmove is reported: a command that reacts to the bestmove line
 * must find the engine idle (options may change), though the thread is still ending. */
static void engine_bestmove(void *ctx, move_t best, move_t ponder, const search_info_t *final)
{
    engine_t *e = ctx;
    skill_on_bestmove(&e->skill, &best, &ponder, &final);
    atomic_store(&e->running, false);
    if (e->user.bestmove)
        e->user.bestmove(e->user.ctx, best, ponder, final);
}

static void engine_info(void *ctx, const search_info_t *info)
{
    engine_t *e = ctx;
    /* Lines searched only for the pick are not the caller's. */
    if (skill_on_info(&e->skill, info, e->multipv) && e->user.info)
        e->user.info(e->user.ctx, info);
}

static void prepare(engine_t *e, const search_limits_t *limits, const search_report_t *report)
{
    search_shared_t *s = &e->shared;
    s->tt = &e->tt;
    s->tb = e->tb;
    s->game = &e->game;
    s->rule = e->game.rule;
    s->limits = *limits;
    e->user = *report;
    s->report = (search_report_t){engine_info, engine_bestmove, e};
    s->multipv = skill_prepare(&e->skill, &e->game, e->multipv);
    s->move_overhead = e->move_overhead;
    s->poll = e->poll;
    s->poll_ctx = e->poll_ctx;
    /* More threads than processors only take turns: every thread then runs a fraction of
     * the time, the time and node limits lag, and the reading thread waits for its turn. */
    s->nthreads = engine_search_threads(e);
    s->workers = e->workers;
    atomic_store(&s->stop, false);
    atomic_store(&s->pondering, limits->ponder);
    atomic_store(&s->waiting, limits->ponder || limits->infinite);
}

static void *search_thread(void *arg)
{
    engine_t *e = arg;
    search_run(&e->shared);
    atomic_store(&e->running, false);
    return NULL;
}

bool engine_go(engine_t *e, const search_limits_t *limits, const search_report_t *report)
{
    engine_stop(e);
    engine_wait(e);
    prepare(e, limits, report);
    atomic_store(&e->running, true);
    if (pthread_create(&e->thread, NULL, search_thread, e) != 0) {
        atomic_store(&e->running, false);
        return false;
    }
    e->thread_live = true;
    return true;
}

void engine_search_sync(engine_t *e, const search_limits_t *limits, const search_report_t *report)
{
    engine_stop(e);
    engine_wait(e);
    prepare(e, limits, report);
    search_run(&e->shared);
}

void engine_stop(engine_t *e)
{
    /* running too: where threads are not to be had (wasm/) the search runs inside the call
     * that starts it, and a stop comes while it runs, before that call marks it live. */
    if (e->thread_live || atomic_load(&e->running)) {
        atomic_store(&e->shared.stop, true);
        /* A bench searches with its private engine: its search stops too. */
        engine_t *b = atomic_load(&e->bench);
        if (b)
            atomic_store(&b->shared.stop, true);
    }
}

static void bench_count(void *ctx, move_t best, move_t ponder, const search_info_t *final)
{
    (void)best, (void)ponder;
    *(uint64_t *)ctx = final->nodes;
}

static void *bench_thread(void *arg)
{
    engine_t *e = arg, *b = atomic_load(&e->bench);
    bench_result_t r = {.depth = e->bench_depth};
    /* Made here, not on the caller's thread: a 16 MB table takes a while to set up, and
     * isready must be answered meanwhile. */
    if (!b) {
        b = engine_new();
        if (b && !engine_set_hash(b, 16)) {
            engine_free(b);
            b = NULL;
        }
        atomic_store(&e->bench, b);
    }
    if (!b) {
        r.no_memory = r.stopped = true;
        atomic_store(&e->running, false);
        e->bench_done(e->bench_ctx, &r);
        return NULL;
    }
    /* The bench's searches poll as the engine's do. */
    b->poll = e->poll;
    b->poll_ctx = e->poll_ctx;
    int64_t start = search_now_ms();
    for (int i = 0; i < BENCH_POSITIONS_COUNT && !atomic_load(&e->shared.stop); i++) {
        position_t p;
        obx_meta_t meta;
        game_t g;
        if (obx_parse(BENCH_POSITIONS[i], &p, &meta, NULL, 0) != BC_OK || !game_init(&g, &p, &meta, REP_FORBID))
            continue;
        engine_clear(b);
        uint64_t nodes = 0;
        if (engine_set_game(b, &g)) {
            search_limits_t l;
            search_limits_init(&l);
            l.depth = e->bench_depth;
            prepare(b, &l, &(search_report_t){NULL, bench_count, &nodes});
            /* prepare clears the private stop flag: a stop that came before it must count. */
            if (atomic_load(&e->shared.stop))
                atomic_store(&b->shared.stop, true);
            search_run(&b->shared);
        }
        game_free(&g);
        if (atomic_load(&e->shared.stop))
            break;
        r.searched++;
        r.nodes += nodes;
    }
    r.ms = search_now_ms() - start;
    r.stopped = r.searched < BENCH_POSITIONS_COUNT;
    atomic_store(&e->running, false);
    e->bench_done(e->bench_ctx, &r);
    return NULL;
}

bool engine_bench(engine_t *e, int depth, void (*done)(void *ctx, const bench_result_t *r), void *ctx)
{
    engine_stop(e);
    engine_wait(e);
    e->bench_depth = depth < 1 ? 1 : depth > MAX_PLY - 1 ? MAX_PLY - 1 : depth;
    e->bench_done = done;
    e->bench_ctx = ctx;
    atomic_store(&e->shared.stop, false);
    atomic_store(&e->running, true);
    if (pthread_create(&e->thread, NULL, bench_thread, e) != 0) {
        atomic_store(&e->running, false);
        return false;
    }
    e->thread_live = true;
    return true;
}

static void *prove_thread(void *arg)
{
    engine_t *e = arg;
    fb_limits_t lim = {e->prove_limits.nodes, e->prove_limits.movetime, &e->shared.stop, NULL, NULL};
    fb_proof_t proof;
    fb_prove(e->prover, e->tb, &e->game, &lim, &proof);
    atomic_store(&e->running, false);
    e->prove_done(e->prove_ctx, &proof);
    return NULL;
}

bool engine_prove(engine_t *e, const search_limits_t *limits, void (*done)(void *ctx, const fb_proof_t *proof),
                  void *ctx)
{
    engine_stop(e);
    engine_wait(e);
    if (!e->tb)
        return false;
    /* The prover's table is as large as the transposition table (Hash). */
    size_t mb = engine_hash_mb(e);
    if (e->prover && e->prover_mb != mb) {
        fb_prover_free(e->prover);
        e->prover = NULL;
    }
    if (!e->prover && !(e->prover = fb_prover_new(mb)))
        return false;
    e->prover_mb = mb;
    e->prove_limits = *limits;
    e->prove_done = done;
    e->prove_ctx = ctx;
    atomic_store(&e->shared.stop, false);
    atomic_store(&e->running, true);
    if (pthread_create(&e->thread, NULL, prove_thread, e) != 0) {
        atomic_store(&e->running, false);
        return false;
    }
    e->thread_live = true;
    return true;
}

bool engine_settle_moves(engine_t *e, const game_t *g, move_t *moves, int n, uint64_t prove_nodes,
                         fb_settled_t *vals)
{
    engine_wait(e);
    if (!e->tb || (!e->settler && !(e->settler = fb_prover_new(FB_SETTLE_MB))))
        return false;
    fb_settle_moves(e->settler, e->tb, g, moves, n, prove_nodes, vals);
    return true;
}

void engine_abort(engine_t *e) { atomic_store(&e->shared.stop, true); }

void engine_ponderhit(engine_t *e)
{
    if (!e->thread_live && !atomic_load(&e->running))
        return;
    atomic_store(&e->shared.pondering, false);
    if (!e->shared.limits.infinite)
        atomic_store(&e->shared.waiting, false);
    search_wake_timer(&e->shared);
}

bool engine_searching(engine_t *e) { return atomic_load(&e->running); }

bool engine_stopping(engine_t *e) { return atomic_load(&e->running) && atomic_load(&e->shared.stop); }

int engine_search_threads(engine_t *e) { return e->nthreads < e->processors ? e->nthreads : e->processors; }

int engine_hashfull(engine_t *e)
{
    engine_wait(e);
    return tt_hashfull(&e->tt);
}

const eval_params_t *engine_eval(const engine_t *e) { return &e->eval; }

const char *engine_eval_error(const engine_t *e) { return e->eval_error[0] ? e->eval_error : NULL; }

const char *engine_net_error(const engine_t *e) { return e->net_error[0] ? e->net_error : NULL; }
const char *engine_bitbase_error(const engine_t *e) { return e->bitbase_error[0] ? e->bitbase_error : NULL; }

void engine_use_bitbase(engine_t *e, bool on)
{
    engine_wait(e);
    e->shared.bitbase = on && e->bitbase.values ? &e->bitbase : NULL;
}
