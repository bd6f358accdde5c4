/* The no-repetition rule (`forbid`) with the draw-rule solution: which of the database's
 * wins and losses hold for a game's history, and a proof-number prover for the positions the
 * draw rule calls drawn, whose value under `forbid` the database does not know.
 *
 * Along a line where the winner keeps to the database's fastest win, the distance falls by
 * one every ply, so the line never repeats a position of its own; it can only be blocked by
 * a position of the game's history that it would recreate (a movement-phase position with
 * the same board and side to move, or the board of a placement-phase position, its "twin").
 * Such a position lies on the line only if its own database value is a win or loss nearer
 * the end than the position probed. So a database win or loss d plies from the end holds
 * under `forbid` when no position of the history (with no more goats on the board) has a
 * database win or loss nearer than d: fb_history_t keeps that bound. The placement phase
 * cannot repeat: its wins and losses hold as they are (RULES.md and tools/tbgen/README.md). */
#ifndef BAGHCHAL_FORBID_H
#define BAGHCHAL_FORBID_H

#include <stdatomic.h>

#include "game.h"
#include "tb.h"

enum { FB_NO_BOUND = 255 };

/* For a game: bound[g] is the smallest database distance among the wins and losses of the
 * history's positions (and twins) with at most g goats on the board; FB_NO_BOUND when none. */
typedef struct {
    uint8_t bound[BC_GOATS_TOTAL + 1];
} fb_history_t;

/* The board of p as a movement-phase position: no goat in hand, the goats in hand counted as
 * captured. A placement-phase position and its twin have the same board and side to move, so
 * under `forbid` the twin cannot be reached after it. p itself when no goat is in hand. */
position_t fb_twin(const position_t *p);

/* Probes every position of g's history (and the twins of placement-phase ones). */
void fb_history_init(fb_history_t *h, const tb_t *tb, const game_t *g);
/* Adds one more position of the line (p, probed as v: its twin's value for a placement
 * position). */
void fb_history_add(fb_history_t *h, const position_t *p, tb_value_t v);

/* Does the database's value v (a win or loss) of p hold under `forbid` after the history h?
 * Always for the placement phase; in the movement phase when the distance is within the
 * bound. Draws never hold: under `forbid` no game is drawn. */
bool fb_value_holds(const fb_history_t *h, const position_t *p, tb_value_t v);

/* When the bound says no (fb_value_holds is false for a movement-phase win or loss v of q),
 * a bounded search settles it: can the winner force the end along the database's fastest
 * lines without recreating a position of g's history (q itself, or a child of g's position,
 * is not in it)? Looks at most max_nodes positions (0: a default of 20,000); false when the
 * history blocks every fastest line, or when it cannot tell within the budget. */
bool fb_verify(const tb_t *tb, const game_t *g, const position_t *q, tb_value_t v, uint64_t max_nodes);

typedef struct {
    move_t move;
    tb_value_t value; /* the database's value for the side that makes the move */
    bool holds;       /* it holds under forbid after the game's history (never for a draw) */
} fb_move_value_t;

/* Ranks the n moves of g's current position for `forbid`: every move with the database's
 * value for the side that makes it (best first as tb_rank_moves orders them, stable among
 * equals) and whether that value holds after g's history: by the bound h (fb_history_init's
 * for g), else by fb_verify within verify_nodes positions per move (0: the bound alone).
 * Returns how many moves share the best value, or -1 when the database does not cover a
 * child. */
int fb_rank_moves(const tb_t *tb, const game_t *g, const fb_history_t *h, const move_t *moves, int n,
                  uint64_t verify_nodes, fb_move_value_t *out);

/* ---- The prover ---------------------------------------------------------------------- */

typedef enum { FB_OPEN = 0, FB_WIN = 1, FB_LOSS = -1 } fb_result_t;

typedef struct fb_prover fb_prover_t;

/* A prover with a table of about mb MB (at least 1); NULL when out of memory. */
fb_prover_t *fb_prover_new(size_t mb);
void fb_prover_free(fb_prover_t *pr);

typedef struct {
    uint64_t nodes;          /* positions expanded at most; 0: no limit */
    int64_t ms;              /* milliseconds at most; 0: no limit */
    const atomic_bool *stop; /* ends the proof when set; may be NULL */
    /* When set: asked for a position with more goats captured than the proof's start where
     * the database does not decide it, it answers that position's value under `forbid` for
     * its side to move (FB_OPEN when it does not know), and the proof takes it as a leaf. The caller
     * answers only where the history cannot matter: in a reduced game's solve, a game that
     * starts in the movement phase with no history, whose captures leave every earlier
     * position out of reach (a capture takes a goat off the board for good). */
    fb_result_t (*leaf)(void *ctx, const position_t *p);
    void *leaf_ctx;
} fb_limits_t;

enum { FB_MAX_PV = 128 };

typedef struct {
    fb_result_t result; /* for the side to move of the game's current position */
    move_t move;        /* a winning move; after a loss the move with the most work left to
                           refute; after an open result the most promising move */
    uint64_t nodes;     /* positions expanded */
    int64_t ms;
    int pv_len;         /* a line of the proof: the winner's moves and the loser's most
                           stubborn replies, while the table remembers them */
    move_t pv[FB_MAX_PV];
} fb_proof_t;

/* Proves or disproves, under `forbid`, that the side to move of g's current position wins,
 * with the database tb (which must cover the position or its children) as the leaves and
 * g's history as the positions that may not be recreated. Returns the result (FB_OPEN when
 * the limits ran out first). */
fb_result_t fb_prove(fb_prover_t *pr, const tb_t *tb, const game_t *g, const fb_limits_t *limits, fb_proof_t *out);

/* The same for the position after m, a legal move of g's current position (the result is
 * for the side to move after m). */
fb_result_t fb_prove_after(fb_prover_t *pr, const tb_t *tb, const game_t *g, move_t m, const fb_limits_t *limits,
                           fb_proof_t *out);

/* What is known under `forbid` of a position (g's current one, or the one after m when m is
 * not MOVE_NONE) for its side to move, as honest output says it. */
typedef struct {
    bool covered;       /* the database knows the position */
    tb_value_t db;      /* its value under the draw rule */
    fb_result_t result; /* under forbid after g's history: a win, a loss, or open */
    int distance;       /* the database's distance when its fastest lines hold, else
                           TB_DISTANCE_UNKNOWN (placement, or a result the prover found) */
    bool proved;        /* the result is the prover's (the database alone did not settle it) */
} fb_settled_t;

/* Settles a position: the database's win or loss when the history's bound clears it or
 * fb_verify does; otherwise (a database draw, or a blocked win or loss) the prover with at
 * most prove_nodes positions (0 or no prover: none). */
void fb_settle(fb_prover_t *pr, const tb_t *tb, const game_t *g, move_t m, uint64_t prove_nodes, fb_settled_t *out);

/* Settles the position after each of the n moves (legal in g) and sorts the moves, best
 * first for the side that makes them (stable among equals): wins (known distances, fastest
 * first, then proven ones), then open moves (those the draw rule calls wins first, then its
 * draws, then its losses), then losses (proven ones, then known distances, slowest first).
 * moves is reordered; vals[i] is what is known of the position after moves[i]. */
void fb_settle_moves(fb_prover_t *pr, const tb_t *tb, const game_t *g, move_t *moves, int n, uint64_t prove_nodes,
                     fb_settled_t *vals);

/* What honest output (tbprobe, the server's analysis) gives the prover per position: a small
 * budget, so that tight positions are settled at once; `go prove` goes further. */
enum { FB_SETTLE_NODES = 2000, FB_SETTLE_MB = 16 };

/* "win in N", "loss in N" (a database value that holds), "win" / "loss" (the placement phase,
 * or proven by the prover), "open" (a database draw not settled) or "open (draw rule: win in
 * N)" (a database win or loss the history might block), for the side to move of the
 * settled position, or (after_move) for the side that made the move leading to it. */
void fb_settled_text(const fb_settled_t *s, bool after_move, char *buf, size_t len);

#endif
