/* Iterative-deepening alpha-beta search (PVS, aspiration windows, quiescence over captures
 * and capture threats), run by one or more threads over a shared transposition table.
 * The search never prints: it reports through callbacks. */
#ifndef BAGHCHAL_SEARCH_H
#define BAGHCHAL_SEARCH_H

#include <pthread.h>
#include <stdatomic.h>

#include "forbid.h"
#include "game.h"
#include "tb.h"
#include "bitbase.h"
#include "eval.h"
#include "tt.h"

enum {
    MAX_PLY = 128,
    MAX_THREADS = 256,
    MAX_MULTIPV = 64,
    SCORE_MATE = 32000,
    /* Database wins lie up to MAX_PLY + TB_MAX_DISTANCE plies away. */
    SCORE_MATE_IN_MAX = SCORE_MATE - 1000,
    /* A placement-phase database win, whose distance is not stored: SCORE_TB_WIN - ply. */
    SCORE_TB_WIN = 20000,
    SCORE_TB_WIN_IN_MAX = SCORE_TB_WIN - 1000,
    /* Under forbid, a database win whose line the game's history might block (forbid.h):
     * SCORE_TB_LIKELY - ply, a large score that is not a proof. */
    SCORE_TB_LIKELY = 10000,
    /* A win the endgame bitbase knows, without the database: SCORE_KNOWN_WIN plus the
     * evaluation, kept within SCORE_KNOWN_MARGIN. */
    SCORE_KNOWN_WIN = 6000,
    SCORE_KNOWN_MARGIN = 2000,
    /* Under the draw rule, a draw the endgame bitbase knows: the evaluation kept within
     * SCORE_KNOWN_DRAW_SPAN of 0. */
    SCORE_KNOWN_DRAW_SPAN = 150,
    SCORE_INF = 32001,
    SCORE_NONE = 32002
};

typedef struct {
    int depth;               /* 0: no depth limit */
    uint64_t nodes;          /* 0: no node limit */
    int64_t movetime;        /* ms, 0: none */
    bool infinite, ponder;   /* bestmove waits for stop (or ponderhit) */
    int64_t time[SIDE_NB];   /* clock per side (ms), -1: not given */
    int64_t inc[SIDE_NB];
    int movestogo;           /* 0: unknown */
    int searchmoves_nb;      /* 0: all moves */
    move_t searchmoves[MAX_MOVES];
    /* When the command arrived (search_now_ms), so that time lost before the search starts
     * counts against the limits too; 0: when the search starts. */
    int64_t start_ms;
} search_limits_t;

void search_limits_init(search_limits_t *l);

typedef struct {
    int depth, seldepth, multipv;
    int score; /* from the side to move's point of view; mate scores near SCORE_MATE */
    int bound; /* BOUND_EXACT, BOUND_LOWER (fail high) or BOUND_UPPER (fail low) */
    uint64_t nodes, nps, tbhits;
    int hashfull;
    int64_t time_ms;
    int pv_len;
    move_t pv[MAX_PLY];
} search_info_t;

typedef struct {
    /* Each finished iteration (and each line of MultiPV). */
    void (*info)(void *ctx, const search_info_t *info);
    /* Once per search: the best move (MOVE_NONE when the game is over), the expected reply
     * (MOVE_NONE if unknown) and the final information of the best line. */
    void (*bestmove)(void *ctx, move_t best, move_t ponder, const search_info_t *final);
    void *ctx;
} search_report_t;

/* True when score is a forced win or loss; mate_moves() gives the UCI "mate N" value. */
static inline bool score_is_mate(int score) { return score >= SCORE_MATE_IN_MAX || score <= -SCORE_MATE_IN_MAX; }
static inline int score_mate_moves(int score)
{
    return score > 0 ? (SCORE_MATE - score + 1) / 2 : -(SCORE_MATE + score) / 2;
}

typedef struct search_shared search_shared_t;
typedef struct worker worker_t;

/* What one search needs and shares between its threads; owned by the engine facade. */
struct search_shared {
    tt_t *tt;
    const tb_t *tb; /* movement-phase database, NULL when none is loaded */
    const eval_params_t *eval; /* the evaluation's weights (the engine's) */
    /* The endgame bitbase (the engine's): probed only when tb is NULL; NULL when refused. */
    const bitbase_t *bitbase;
    const game_t *game;
    rep_rule_t rule;
    search_limits_t limits;
    search_report_t report;
    int multipv;
    int64_t move_overhead;
    /* When set, called by each searching thread every 256 nodes with poll_ctx (engine_set_poll):
     * where the search runs inside the call that started it, the program reads there what it
     * is sent meanwhile (stop, ponderhit, isready). */
    void (*poll)(void *ctx);
    void *poll_ctx;
    atomic_bool stop;      /* set by stop, by the limits, or when the main thread is done */
    atomic_bool pondering; /* true until ponderhit */
    atomic_bool waiting;   /* infinite/ponder: hold bestmove until stop or ponderhit */
    int64_t start_ms;
    int64_t optimum_ms, maximum_ms; /* 0: no time limit */
    bool root_in_tb;                /* the root is a database position (values below) */
    tb_value_t root_tb;             /* under forbid a draw here means open: not known */
    bool root_holds;                /* forbid: root_tb (a win or loss) holds for this game */
    fb_history_t fb_hist;           /* forbid: what the game's history allows the database */
    uint64_t root_tbhits;           /* probes made to rank the root moves */
    int nthreads;
    worker_t **workers;
    /* With several threads and a node limit, each thread adds its nodes here every
     * node_batch nodes, so that the limit holds whatever the number of threads. */
    _Atomic uint64_t nodes_shared;
    uint64_t node_batch;
    /* The clock: a thread of its own sleeps until the deadline and sets stop, so a limit
     * holds whatever the node rate (a node may wait on a page fault of the database). */
    pthread_mutex_t timer_lock;
    pthread_cond_t timer_cond;
    bool timer_done;
};

/* Prepares the clock's lock and condition (once per search_shared_t); false on failure. */
bool search_shared_init(search_shared_t *s);
void search_shared_destroy(search_shared_t *s);
/* Wakes the clock after ponderhit: the time limits apply from then on. */
void search_wake_timer(search_shared_t *s);

/* Per-thread state, allocated once when the thread count is set: no allocation while
 * searching. */
worker_t *worker_new(int id);
void worker_free(worker_t *w);
/* Forgets the move-ordering statistics (a new game). */
void worker_clear(worker_t *w);

/* Runs the whole search on the calling thread (which becomes the main search thread and
 * starts the helpers), reports, and returns when bestmove has been reported. */
void search_run(search_shared_t *s);

int64_t search_now_ms(void);

/* tb_rank_moves for the moves of a game: under `draw` a move that makes a third occurrence
 * is a draw whatever the database says of the position it reaches. Same results as
 * tb_rank_moves otherwise. */
int search_rank_tb_moves(const tb_t *tb, const game_t *g, const move_t *moves, int n, tb_move_value_t *out);

#endif
