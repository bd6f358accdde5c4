/* The engine facade: one instance = a game, options, a transposition table and search
 * threads. go/stop never block the caller; results come back through callbacks on the
 * search thread. Instances share nothing (but a database handle, when told to), so a server
 * can run one per worker. */
#ifndef BAGHCHAL_ENGINE_H
#define BAGHCHAL_ENGINE_H

#include "search.h"
#include "skill.h"

typedef struct engine engine_t;

enum {
    ENGINE_DEFAULT_HASH_MB = 64,
    ENGINE_MAX_HASH_MB = 65536,
    ENGINE_DEFAULT_OVERHEAD_MS = 30,
    ENGINE_MAX_OVERHEAD_MS = 5000
};

/* A new engine at the start position, 64 MB of hash, one thread. NULL when out of memory. */
engine_t *engine_new(void);
/* Stops and joins any search, then frees everything. */
void engine_free(engine_t *e);

/* Options. Each waits for a running search to end first. Return false when memory runs
 * out (the old setting stays). */
bool engine_set_hash(engine_t *e, size_t mb);
/* The table's size in MB: the size asked for, rounded down to a power of two. */
size_t engine_hash_mb(engine_t *e);
/* Eager (the protocol's engine): the table is written through when made and when cleared,
 * so that the search after `ucinewgame` does not pay a page fault for each page it first
 * touches. Lazy (a new engine's default, and a server's many short searches): only the pages
 * searches wrote are resident. Changing it empties the table. */
void engine_set_hash_eager(engine_t *e, bool eager);
bool engine_set_threads(engine_t *e, int n);
void engine_set_multipv(engine_t *e, int n);
void engine_set_move_overhead(engine_t *e, int ms);
/* poll(ctx) is called by each searching thread every 256 nodes, bench's searches included;
 * NULL: none (the default). For a program whose search runs inside the call that started it,
 * having no thread to run it on (the WebAssembly worker, wasm/): there it reads what it is
 * sent meanwhile, and a stop (engine_stop, engine_abort) made there ends the search. */
void engine_set_poll(engine_t *e, void (*poll)(void *ctx), void *ctx);
/* Strength: Skill Level 0..20 (20 = full strength), or, with limit_strength, the level that
 * elo stands for (skill.h). Values out of range are clamped. */
void engine_set_skill(engine_t *e, int level, bool limit_strength, int elo);
/* A new game: clears the table and the move-ordering statistics. */
void engine_clear(engine_t *e);

/* Opens the movement-phase database in dir (NULL or "" closes it). On error the previous
 * database stays, the code is returned and msg says why. */
tb_error_t engine_set_tablebase(engine_t *e, const char *dir, char *msg, size_t msglen);
/* Probes tb, a handle the caller opened (tb_open_game) and keeps, instead of a database of
 * the engine's own (which is closed); NULL: none. A handle is read-only once open, so any
 * number of engines on any threads may share one: a server loads the files once for all its
 * workers. The caller closes it only after every engine using it is freed or set to another
 * database. */
void engine_share_tablebase(engine_t *e, const tb_t *tb);
/* The database in use, or NULL. */
const tb_t *engine_tablebase(engine_t *e);

/* The evaluation's weights: the tuned ones built into the library, or the hand-set ones
 * when those were refused (then engine_eval_error says why; else it returns NULL). */
const eval_params_t *engine_eval(const engine_t *e);
const char *engine_eval_error(const engine_t *e);
/* Why the built-in network (eval_net.c) was refused, the terms' weights then evaluating; NULL
 * when the network evaluates. */
const char *engine_net_error(const engine_t *e);
/* Why the built-in endgame bitbase (bitbase_data.c) was refused, the search then going
 * without it; NULL when it is used (where no database is loaded). */
const char *engine_bitbase_error(const engine_t *e);
/* Whether the search uses the built-in endgame bitbase where no database is loaded (on from
 * engine_new when it was not refused); for measuring the search without it. */
void engine_use_bitbase(engine_t *e, bool on);

/* Copies the game to search from (its history decides repetitions). */
bool engine_set_game(engine_t *e, const game_t *g);

/* Starts searching on a thread of its own and returns at once. A search still running is
 * stopped and finished (its bestmove reported) first. Returns false if no thread could be
 * started (nothing is reported then). */
bool engine_go(engine_t *e, const search_limits_t *limits, const search_report_t *report);
/* Ends the search now: bestmove follows at once. Harmless when idle. */
void engine_stop(engine_t *e);
/* Ends the running search, synchronous ones included, from any thread; bestmove follows.
 * Lost when no search runs (the next one starts with the flag cleared). */
void engine_abort(engine_t *e);
/* The pondered move was played: the search goes on under its time limits. */
void engine_ponderhit(engine_t *e);
/* Waits until the current search (if any) has reported bestmove. */
void engine_wait(engine_t *e);
bool engine_searching(engine_t *e);
/* Is a search (or bench) running that has been told to stop, or has reached its limit, and
 * is only finishing? Then waiting for it (engine_wait) takes no longer than its bestmove. */
bool engine_stopping(engine_t *e);
/* The threads a search runs: the Threads setting, at most the processors the process may
 * use. */
int engine_search_threads(engine_t *e);
/* Permille of the table in use by the latest search. */
int engine_hashfull(engine_t *e);

/* Runs a search to the end on the calling thread (used by bench and tools). */
void engine_search_sync(engine_t *e, const search_limits_t *limits, const search_report_t *report);

/* Runs the forbid prover (forbid.h) on the current game, on the search thread like a search:
 * until proven, the limits' movetime or nodes (positions expanded), or engine_stop. done is
 * called once on that thread. Returns false (nothing is reported) without a database, or when
 * memory or a thread is lacking. */
bool engine_prove(engine_t *e, const search_limits_t *limits, void (*done)(void *ctx, const fb_proof_t *proof),
                  void *ctx);
/* What is known under forbid of the position after each of the n moves of g (legal moves of
 * its current position), by fb_settle_moves (forbid.h) with the engine's database and a
 * prover of FB_SETTLE_MB of its own, within prove_nodes positions per move; moves is
 * reordered best first. Not while a search runs. Returns false without a database or memory. */
bool engine_settle_moves(engine_t *e, const game_t *g, move_t *moves, int n, uint64_t prove_nodes,
                         fb_settled_t *vals);

/* The fixed bench positions (OBX strings). */
extern const char *const BENCH_POSITIONS[];
extern const int BENCH_POSITIONS_COUNT;
enum { BENCH_DEFAULT_DEPTH = 12 };

typedef struct {
    int depth;
    int searched;   /* positions searched to the end */
    uint64_t nodes; /* over the positions searched to the end */
    int64_t ms;
    bool stopped;   /* engine_stop (or a new go) ended it early */
    bool no_memory; /* the bench's private engine could not be made: nothing was searched */
} bench_result_t;

/* Runs the bench like a search: on the search thread, returning at once; engine_stop ends
 * it, engine_searching is true until done has been called (on that thread). Each position
 * is searched to depth by one thread with a fresh 16 MB table, whatever the options, so
 * the node count depends only on the program. Returns false (nothing is reported) when no
 * thread can be started; when the private engine cannot be made, done says so. */
bool engine_bench(engine_t *e, int depth, void (*done)(void *ctx, const bench_result_t *r), void *ctx);

#endif
