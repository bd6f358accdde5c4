/* The search: iterative deepening over PVS with aspiration windows, a quiescence search
 * over captures and capture threats, TT / killer / history move ordering, lazy SMP. */
#define _POSIX_C_SOURCE 200809L
#include "search.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval.h"
#include "movegen.h"
#include "timeman.h"

/* Positions kept for repetition checks: the reversible tail of the game plus the path. */
enum { KEYS_HISTORY = 1024, KEYS_CAP = KEYS_HISTORY + MAX_PLY + 8, QS_THREAT_PLIES = 2 };

typedef struct {
    move_t move;
    int score, prev_score, seldepth, bound;
    int pv_len;
    move_t pv[MAX_PLY];
} root_move_t;

struct worker {
    int id;
    search_shared_t *s;
    position_t pos;
    int ply, nkeys, seldepth, completed_depth;
    uint64_t keys[KEYS_CAP];
    int irr[KEYS_CAP]; /* index of the latest position after a placement or capture */
    _Atomic uint64_t nodes, tbhits;
    move_t killers[MAX_PLY + 2][2];
    int history[SIDE_NB][SQUARE_NB][SQUARE_NB];
    move_t pv[MAX_PLY + 2][MAX_PLY + 2];
    int pv_len[MAX_PLY + 2];
    /* forbid: the smallest database distance of a win or loss on the line from the root that
     * the search went on through (it may be recreated below), for the position at each ply;
     * fb_contrib[ply] is what the position at ply adds for the plies below it. */
    uint8_t fb_path[MAX_PLY + 2], fb_contrib[MAX_PLY + 2];
    bool fb_draw[MAX_PLY + 2]; /* forbid: the position at ply is a database draw (open) */
    int nroot;
    root_move_t root[MAX_MOVES];
    root_move_t last_complete; /* root[0] as the last completed iteration left it */
    uint8_t reductions[64][MAX_MOVES];
    eval_cache_t eval_cache; /* the network's inputs of the last position this thread evaluated */
};

int64_t search_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void search_limits_init(search_limits_t *l)
{
    memset(l, 0, sizeof *l);
    l->time[GOATS] = l->time[TIGERS] = -1;
}

worker_t *worker_new(int id)
{
    worker_t *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->id = id;
    for (int d = 1; d < 64; d++)
        for (int i = 1; i < MAX_MOVES; i++)
            w->reductions[d][i] = (uint8_t)(0.25 + log((double)d) * log((double)i) / 2.5);
    return w;
}

void worker_free(worker_t *w) { free(w); }

void worker_clear(worker_t *w)
{
    memset(w->killers, 0, sizeof w->killers);
    memset(w->history, 0, sizeof w->history);
}

/* ---- helpers on the path ---------------------------------------------------------- */

static inline bool is_irreversible(move_t m)
{
    return move_kind(m) == MOVE_PLACE || move_kind(m) == MOVE_JUMP;
}

static inline void do_move(worker_t *w, move_t m)
{
    int b = w->fb_path[w->ply], c = w->fb_contrib[w->ply];
    w->fb_path[w->ply + 1] = (uint8_t)(c < b ? c : b);
    w->fb_contrib[w->ply + 1] = FB_NO_BOUND;
    position_make(&w->pos, m);
    int n = w->nkeys;
    w->keys[n] = w->pos.key;
    w->irr[n] = is_irreversible(m) ? n : w->irr[n - 1];
    w->nkeys = n + 1;
    w->ply++;
}

static inline void undo_move(worker_t *w, move_t m)
{
    position_unmake(&w->pos, m);
    w->nkeys--;
    w->ply--;
}

/* Does key occur at keys[start], keys[start - 2], ... down to the last irreversible move
 * before the current position? (Same side to move: every other entry.) */
static inline bool key_seen(const worker_t *w, uint64_t key, int start)
{
    int floor = w->irr[w->nkeys - 1];
    for (int i = start; i >= floor; i -= 2)
        if (w->keys[i] == key)
            return true;
    return false;
}

/* Under `draw`, is the current position the third occurrence (the game is over)? */
static inline bool third_occurrence(const worker_t *w)
{
    if (w->s->rule != REP_DRAW)
        return false;
    int floor = w->irr[w->nkeys - 1], seen = 0;
    uint64_t key = w->pos.key;
    for (int i = w->nkeys - 3; i >= floor; i -= 2)
        if (w->keys[i] == key && ++seen == 2)
            return true;
    return false;
}

/* Under `forbid`, a step that recreates an earlier position is not a legal move. */
static int filter_forbidden(const worker_t *w, move_t *moves, int n)
{
    if (w->s->rule != REP_FORBID || w->pos.in_hand)
        return n;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (move_kind(moves[i]) != MOVE_STEP || !key_seen(w, position_key_after(&w->pos, moves[i]), w->nkeys - 2))
            moves[k++] = moves[i];
    return k;
}

static inline int score_to_tt(int s, int ply)
{
    return s >= SCORE_MATE_IN_MAX ? s + ply : s <= -SCORE_MATE_IN_MAX ? s - ply : s;
}

static inline int score_from_tt(int s, int ply)
{
    return s >= SCORE_MATE_IN_MAX ? s - ply : s <= -SCORE_MATE_IN_MAX ? s + ply : s;
}

static uint64_t total_nodes(const search_shared_t *s)
{
    uint64_t n = 0;
    for (int i = 0; i < s->nthreads; i++)
        n += atomic_load_explicit(&s->workers[i]->nodes, memory_order_relaxed);
    return n;
}

static uint64_t total_tbhits(const search_shared_t *s)
{
    uint64_t n = s->root_tbhits;
    for (int i = 0; i < s->nthreads; i++)
        n += atomic_load_explicit(&s->workers[i]->tbhits, memory_order_relaxed);
    return n;
}

/* The database's value as a search score at this ply: a win or loss d plies away is a mate
 * score at ply + d; a placement-phase win or loss (no distance) is SCORE_TB_WIN - ply; a
 * draw is 0. */
static inline int tb_score(tb_value_t v, int ply)
{
    if (v.wdl != TB_DRAW && v.distance == TB_DISTANCE_UNKNOWN)
        return v.wdl == TB_WIN ? SCORE_TB_WIN - ply : -SCORE_TB_WIN + ply;
    if (v.wdl == TB_WIN)
        return SCORE_MATE - ply - v.distance;
    if (v.wdl == TB_LOSS)
        return -SCORE_MATE + ply + v.distance;
    return 0;
}

static inline void count_tbhit(worker_t *w)
{
    atomic_store_explicit(&w->tbhits, atomic_load_explicit(&w->tbhits, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

/* Under forbid no position is drawn: a database draw is searched on, and a win or loss ends
 * the search only when the game's history and the line from the root cannot block its
 * line (forbid.h); otherwise its distance bounds what holds below it. A placement-phase
 * position that a later position of the movement phase could recreate passes its twin's
 * value down the same way. */
static bool tb_cut_forbid(worker_t *w, tb_value_t v, int *score)
{
    const search_shared_t *s = w->s;
    const position_t *p = &w->pos;
    if (v.wdl == TB_DRAW) {
        w->fb_draw[w->ply] = true;
        if (p->in_hand && p->in_hand + p->captured <= BC_CAPTURES_TO_WIN) {
            tb_value_t t;
            position_t twin = fb_twin(p);
            if ((twin.captured < BC_CAPTURES_TO_WIN || twin.side == GOATS) && tb_probe(s->tb, &twin, &t) &&
                t.wdl != TB_DRAW && t.distance != TB_DISTANCE_UNKNOWN)
                w->fb_contrib[w->ply] = t.distance;
        }
        return false;
    }
    if (!p->in_hand && v.distance != TB_DISTANCE_UNKNOWN) {
        int bound = s->fb_hist.bound[bb_count(p->goats)];
        if (w->fb_path[w->ply] < bound)
            bound = w->fb_path[w->ply];
        if (v.distance > bound) {
            /* Almost surely still the database's result, but not proven for this game. */
            *score = v.wdl == TB_WIN ? SCORE_TB_LIKELY - w->ply : -SCORE_TB_LIKELY + w->ply;
            return true;
        }
    }
    *score = tb_score(v, w->ply);
    return true;
}

/* Without the database, the endgame bitbase (bitbase.h). Returns whether it knows the
 * position, with the range its value puts the node's score in, [*lo, *hi], and the position's
 * evaluation in *eval (the quiescence search returns it kept to the range): a won position is at least
 * SCORE_KNOWN_WIN plus the evaluation (the evaluation orders the won lines, since the
 * bitbase has no distances: that is how a win makes progress), a lost one at most
 * -SCORE_KNOWN_WIN plus it; a mate the search finds below is worth more, so a window above
 * the bound searches on, as with Syzygy's WDL tables. Under `draw` a drawn position's value
 * is kept within SCORE_KNOWN_DRAW_SPAN of 0: scored exactly 0 among positions the
 * evaluation scores, a draw would only look worse than an optimistic evaluation elsewhere
 * and push the search off into positions the bitbase does not know, while left to the
 * evaluation it may look worse than a lost line. Under forbid no position is drawn, and a
 * draw says nothing. */
static inline int clamp_score(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static bool bitbase_known(worker_t *w, int *lo, int *hi, int *eval)
{
    const search_shared_t *s = w->s;
    int wdl;
    if (!s->bitbase || !bitbase_probe(s->bitbase, &w->pos, &wdl) || (wdl == 0 && s->rule != REP_DRAW))
        return false;
    int e = eval_position_cached(s->eval, &w->eval_cache, &w->pos);
    *eval = e;
    int known = clamp_score(e, -SCORE_KNOWN_MARGIN, SCORE_KNOWN_MARGIN);
    *lo = wdl > 0 ? SCORE_KNOWN_WIN + known : wdl < 0 ? -SCORE_INF : -SCORE_KNOWN_DRAW_SPAN;
    *hi = wdl < 0 ? -SCORE_KNOWN_WIN + known : wdl > 0 ? SCORE_INF : SCORE_KNOWN_DRAW_SPAN;
    return true;
}

/* Probes the database below the root. Under `draw` a drawn position ends the search there,
 * except when the root itself is a drawn database position: then draws are searched on so
 * that the root picks, among its drawing moves, the one that sets the opponent the most
 * problems. */
static inline bool tb_cut(worker_t *w, int *score)
{
    const search_shared_t *s = w->s;
    tb_value_t v;
    w->fb_draw[w->ply] = false;
    if (!s->tb || !tb_probe(s->tb, &w->pos, &v))
        return false;
    count_tbhit(w);
    if (s->rule == REP_FORBID)
        return tb_cut_forbid(w, v, score);
    if (v.wdl == TB_DRAW && s->root_in_tb && s->root_tb.wdl == TB_DRAW)
        return false;
    *score = tb_score(v, w->ply);
    return true;
}

static inline bool stopped(const worker_t *w)
{
    return atomic_load_explicit(&w->s->stop, memory_order_relaxed);
}

/* Counts a node and checks the limits. The clock has a thread of its own, which holds the
 * deadline whatever the node rate (a node may wait on a page fault of the database); the
 * searching threads also look at it every 256 nodes, since on a loaded machine a sleeping
 * thread may be woken late. With several threads the node limit is checked on a shared
 * count that each thread adds to in small batches. Every 256 nodes the poll is called too,
 * when the engine has one (engine_set_poll). */
static inline void count_node(worker_t *w)
{
    uint64_t n = atomic_load_explicit(&w->nodes, memory_order_relaxed) + 1;
    atomic_store_explicit(&w->nodes, n, memory_order_relaxed);
    search_shared_t *s = w->s;
    if (s->limits.nodes) {
        if (s->nthreads == 1) {
            if (n >= s->limits.nodes)
                atomic_store_explicit(&s->stop, true, memory_order_relaxed);
        } else if (n % s->node_batch == 0) {
            uint64_t total =
                atomic_fetch_add_explicit(&s->nodes_shared, s->node_batch, memory_order_relaxed) + s->node_batch;
            if (total >= s->limits.nodes)
                atomic_store_explicit(&s->stop, true, memory_order_relaxed);
        }
    }
    if ((n & 255) != 0)
        return;
    if (s->poll)
        s->poll(s->poll_ctx);
    if (s->maximum_ms && !atomic_load_explicit(&s->pondering, memory_order_relaxed) &&
        search_now_ms() - s->start_ms >= s->maximum_ms)
        atomic_store_explicit(&s->stop, true, memory_order_relaxed);
}

/* ---- move ordering -------------------------------------------------------------- */

enum { ORDER_TT = 1 << 30, ORDER_CAPTURE = 1 << 29, ORDER_KILLER1 = 1 << 28, ORDER_KILLER2 = (1 << 28) - 1 };

static void score_moves(const worker_t *w, const move_t *moves, int *scores, int n, move_t tt_move)
{
    const move_t *k = w->killers[w->ply];
    int side = w->pos.side;
    for (int i = 0; i < n; i++) {
        move_t m = moves[i];
        if (m == tt_move)
            scores[i] = ORDER_TT;
        else if (move_kind(m) == MOVE_JUMP)
            scores[i] = ORDER_CAPTURE;
        else if (m == k[0])
            scores[i] = ORDER_KILLER1;
        else if (m == k[1])
            scores[i] = ORDER_KILLER2;
        else
            scores[i] = w->history[side][move_from(m)][move_to(m)];
    }
}

static inline move_t pick_next(move_t *moves, int *scores, int n, int i)
{
    int best = i;
    for (int j = i + 1; j < n; j++)
        if (scores[j] > scores[best])
            best = j;
    move_t m = moves[best];
    int sc = scores[best];
    moves[best] = moves[i];
    scores[best] = scores[i];
    moves[i] = m;
    scores[i] = sc;
    return m;
}

static void update_quiet_stats(worker_t *w, move_t best, const move_t *tried, int ntried, int depth)
{
    int side = w->pos.side, bonus = depth * depth;
    if (bonus > 400)
        bonus = 400;
    move_t *k = w->killers[w->ply];
    if (k[0] != best) {
        k[1] = k[0];
        k[0] = best;
    }
    for (int i = 0; i < ntried; i++) {
        move_t m = tried[i];
        int *h = &w->history[side][move_from(m)][move_to(m)];
        int b = m == best ? bonus : -bonus;
        *h += b - *h * (b < 0 ? -b : b) / 16384;
    }
}

/* ---- quiescence ------------------------------------------------------------------ */

/* Landing points of the captures the tigers could make now. */
static bb_t capture_landings(bb_t tigers, bb_t goats)
{
    bb_t empty = BB_ALL & ~(tigers | goats), land = 0;
    for (int d = 0; d < BC_DIR_NB; d++) {
        int s = BC_DIRS[d].shift;
        bb_t over = bb_shift(tigers & BC_DIRS[d].jump_from, s) & goats;
        land |= bb_shift(over, s) & empty;
    }
    return land;
}

/* Under forbid, in the database's draws of the movement phase the game is won by whoever
 * keeps fresh moves that do not lose longer: the moves of p that neither repeat a position of
 * the line nor lose by the database. (In the placement phase a probe after a tiger move costs
 * a ply of probes: too dear for every leaf.) */
enum { FB_SAFE_WEIGHT = 8 };

/* How many of the n moves of p lose by the database (lead to a win of the other side). */
static int moves_losing(const tb_t *tb, const position_t *p, const move_t *moves, int n)
{
    int losing = 0;
    for (int i = 0; i < n; i++) {
        position_t c = *p;
        position_make(&c, moves[i]);
        tb_value_t v;
        losing += tb_probe(tb, &c, &v) && v.wdl == TB_WIN;
    }
    return losing;
}

static int safe_moves(worker_t *w, const position_t *p)
{
    move_t moves[MAX_MOVES];
    int n = filter_forbidden(w, moves, gen_moves(p, moves));
    return n - moves_losing(w->s->tb, p, moves, n);
}

/* The same for the other side, as if it were to move (the history is not looked at). */
static int safe_moves_other(worker_t *w, const position_t *p)
{
    position_t q = *p;
    q.side = (uint8_t)!p->side;
    q.key ^= BC_ZOBRIST_SIDE;
    if (q.side == TIGERS && q.captured >= BC_CAPTURES_TO_WIN)
        return 0;
    move_t moves[MAX_MOVES];
    int n = gen_moves(&q, moves);
    return n - moves_losing(w->s->tb, &q, moves, n);
}

static int qsearch(worker_t *w, int alpha, int beta, int qply)
{
    position_t *p = &w->pos;
    int ply = w->ply;
    count_node(w);
    if (ply > w->seldepth)
        w->seldepth = ply;
    if (p->captured >= BC_CAPTURES_TO_WIN)
        return -SCORE_MATE + ply;
    /* The game's verdict before the database's value: a third occurrence has ended it. */
    if (third_occurrence(w))
        return 0;
    int tb;
    if (tb_cut(w, &tb))
        return tb;
    int lo, hi, e;
    if (bitbase_known(w, &lo, &hi, &e))
        return clamp_score(e, lo, hi);
    if (count_moves(p) == 0)
        return -SCORE_MATE + ply;
    int stand = eval_position_cached(w->s->eval, &w->eval_cache, p);
    if (w->fb_draw[ply] && !p->in_hand)
        stand += FB_SAFE_WEIGHT * (safe_moves(w, p) - safe_moves_other(w, p));
    if (ply >= MAX_PLY || stopped(w))
        return stand;
    if (stand >= beta)
        return stand;
    if (stand > alpha)
        alpha = stand;
    int best = stand;
    move_t moves[MAX_MOVES];
    int n = 0;
    if (p->side == TIGERS) {
        n = gen_captures(p, moves);
    } else if (qply < QS_THREAT_PLIES) {
        bb_t threatened = capturable_goats(p->tigers, p->goats);
        if (threatened) {
            /* Parry the threats: move a threatened goat or fill a landing point. */
            bb_t land = capture_landings(p->tigers, p->goats);
            move_t all[MAX_MOVES];
            int na = gen_moves(p, all);
            na = filter_forbidden(w, all, na);
            for (int i = 0; i < na; i++)
                if ((bb_square(move_to(all[i])) & land) ||
                    (move_kind(all[i]) == MOVE_STEP && (bb_square(move_from(all[i])) & threatened)))
                    moves[n++] = all[i];
        }
    }
    for (int i = 0; i < n; i++) {
        do_move(w, moves[i]);
        int score = -qsearch(w, -beta, -alpha, qply + 1);
        undo_move(w, moves[i]);
        if (stopped(w))
            return best;
        if (score > best) {
            best = score;
            if (score > alpha) {
                alpha = score;
                if (score >= beta)
                    break;
            }
        }
    }
    return best;
}

/* ---- main search ----------------------------------------------------------------- */

static int search(worker_t *w, int alpha, int beta, int depth, bool pv_node)
{
    position_t *p = &w->pos;
    int ply = w->ply;
    if (pv_node)
        w->pv_len[ply] = 0;
    if (depth <= 0)
        return qsearch(w, alpha, beta, 0);
    count_node(w);
    if (ply > w->seldepth)
        w->seldepth = ply;
    if (stopped(w))
        return 0;
    if (p->captured >= BC_CAPTURES_TO_WIN)
        return -SCORE_MATE + ply;
    /* A third occurrence has ended the game, whatever the database says of the position. */
    if (third_occurrence(w))
        return 0;
    /* Then the database: a won or lost position stays so whatever the path (the winner
     * can always avoid a repetition), while the search counts a repeated position as a draw. */
    int tb;
    if (tb_cut(w, &tb))
        return tb;
    if (w->s->rule == REP_DRAW && key_seen(w, p->key, w->nkeys - 3))
        return 0;
    /* The bitbase after the repetition: without distances, a winner that may repeat positions
     * can wander among won ones until the third occurrences have drawn them all. */
    /* A window outside the range the bitbase gives is answered at once. */
    int known_lo = -SCORE_INF, known_hi = SCORE_INF, known_eval = SCORE_NONE;
    bool known = bitbase_known(w, &known_lo, &known_hi, &known_eval);
    if (known_lo >= beta)
        return known_lo;
    if (known_hi <= alpha)
        return known_hi;
    if (ply >= MAX_PLY)
        return eval_position_cached(w->s->eval, &w->eval_cache, p);
    /* Mate distance pruning: no line from here beats a mate found nearer the root. */
    if (alpha < -SCORE_MATE + ply)
        alpha = -SCORE_MATE + ply;
    if (beta > SCORE_MATE - ply - 1)
        beta = SCORE_MATE - ply - 1;
    if (alpha >= beta)
        return alpha;

    uint64_t key = position_hash(p);
    tt_hit_t hit;
    bool found = tt_probe(w->s->tt, key, &hit);
    move_t tt_move = found ? hit.move : MOVE_NONE;
    if (found && !pv_node && hit.depth >= depth) {
        int s = score_from_tt(hit.score, ply);
        if ((hit.bound == BOUND_EXACT) || (hit.bound == BOUND_LOWER && s >= beta) ||
            (hit.bound == BOUND_UPPER && s <= alpha))
            return s;
    }

    move_t moves[MAX_MOVES];
    int scores[MAX_MOVES];
    int n = gen_moves(p, moves);
    n = filter_forbidden(w, moves, n);
    if (n == 0)
        return -SCORE_MATE + ply;

    /* A position the bitbase knows has been evaluated already (for its range). */
    int static_eval = found && hit.eval != SCORE_NONE ? hit.eval
                      : known ? known_eval
                              : eval_position_cached(w->s->eval, &w->eval_cache, p);

    /* Reverse futility: far above beta near the leaves, a quiet position holds. Not where,
     * without the database, every move leads into the bitbase (goats to move in its part of
     * the movement phase): there the children's values are the bitbase's, not the
     * evaluation's (a goat's step captures nothing). With the database, play stays as it
     * was. */
    if (!pv_node && !known && depth <= 3 && !score_is_mate(beta) && static_eval - 90 * depth >= beta &&
        !(w->s->bitbase && !w->s->tb && p->side == GOATS && bitbase_covers(TIGERS, p->in_hand, p->captured)))
        return static_eval;

    score_moves(w, moves, scores, n, tt_move);
    move_t quiets[MAX_MOVES];
    int nquiets = 0;
    int best = -SCORE_INF, orig_alpha = alpha;
    move_t best_move = MOVE_NONE;
    for (int i = 0; i < n; i++) {
        move_t m = pick_next(moves, scores, n, i);
        bool quiet = move_kind(m) != MOVE_JUMP;
        int score;
        do_move(w, m);
        tt_prefetch(w->s->tt, position_hash(&w->pos));
        if (i == 0) {
            score = -search(w, -beta, -alpha, depth - 1, pv_node);
        } else {
            int r = 0;
            if (depth >= 3 && quiet && i >= 3 && scores[i] < ORDER_KILLER2) {
                r = w->reductions[depth < 64 ? depth : 63][i];
                if (pv_node && r > 0)
                    r--;
                if (r > depth - 2)
                    r = depth - 2;
                if (r < 0)
                    r = 0;
            }
            /* No re-search once stopped: it would count nodes past a node limit. */
            score = -search(w, -alpha - 1, -alpha, depth - 1 - r, false);
            if (r && score > alpha && !stopped(w))
                score = -search(w, -alpha - 1, -alpha, depth - 1, false);
            if (pv_node && score > alpha && score < beta && !stopped(w))
                score = -search(w, -beta, -alpha, depth - 1, true);
        }
        undo_move(w, m);
        if (stopped(w))
            return 0;
        if (score > best) {
            best = score;
            if (score > alpha) {
                best_move = m;
                alpha = score;
                if (pv_node) {
                    w->pv[ply][0] = m;
                    int len = w->pv_len[ply + 1];
                    memcpy(&w->pv[ply][1], w->pv[ply + 1], (size_t)len * sizeof(move_t));
                    w->pv_len[ply] = len + 1;
                }
                if (score >= beta) {
                    if (quiet)
                        update_quiet_stats(w, m, quiets, nquiets, depth);
                    break;
                }
            }
        }
        if (quiet && nquiets < MAX_MOVES)
            quiets[nquiets++] = m;
    }
    int bound = best >= beta ? BOUND_LOWER : best > orig_alpha ? BOUND_EXACT : BOUND_UPPER;
    /* The bitbase's range holds whatever the search below found. */
    if (best < known_lo)
        best = known_lo, bound = BOUND_LOWER;
    else if (best > known_hi)
        best = known_hi, bound = BOUND_UPPER;
    tt_store(w->s->tt, key, best_move, score_to_tt(best, ply), static_eval, depth, bound);
    return best;
}

/* ---- root and iterative deepening ------------------------------------------------ */

static void root_rotate_to(worker_t *w, int from, int to)
{
    root_move_t rm = w->root[from];
    memmove(&w->root[to + 1], &w->root[to], (size_t)(from - to) * sizeof rm);
    w->root[to] = rm;
}

/* Searches the root moves from index pv_idx; the best found moves to pv_idx. Returns the
 * best score, or SCORE_NONE if stopped before the first move was done. */
static int root_search(worker_t *w, int alpha, int beta, int depth, int pv_idx)
{
    int best = -SCORE_INF;
    for (int i = pv_idx; i < w->nroot; i++) {
        root_move_t *rm = &w->root[i];
        int score;
        w->seldepth = 0;
        do_move(w, rm->move);
        if (i == pv_idx) {
            score = -search(w, -beta, -alpha, depth - 1, true);
        } else {
            score = -search(w, -alpha - 1, -alpha, depth - 1, false);
            if (score > alpha && score < beta && !stopped(w))
                score = -search(w, -beta, -alpha, depth - 1, true);
        }
        undo_move(w, rm->move);
        if (stopped(w))
            return i == pv_idx ? SCORE_NONE : best;
        if (i == pv_idx || score > alpha) {
            rm->score = score;
            rm->seldepth = w->seldepth;
            rm->bound = score >= beta ? BOUND_LOWER : score <= alpha ? BOUND_UPPER : BOUND_EXACT;
            rm->pv[0] = rm->move;
            int len = w->pv_len[1];
            if (len > MAX_PLY - 1)
                len = MAX_PLY - 1;
            memcpy(&rm->pv[1], w->pv[1], (size_t)len * sizeof(move_t));
            rm->pv_len = len + 1;
            if (i != pv_idx)
                root_rotate_to(w, i, pv_idx);
            best = score;
            if (score > alpha)
                alpha = score;
            if (score >= beta)
                return best;
        }
    }
    return best;
}

/* Does next (reached from a position with no goat in hand) repeat a position of the game
 * or of the line so far (line[0] is the game's current position)? Only reported lines use
 * this: the search has its own key stack. */
static bool line_repeats(const game_t *g, const position_t *line, int n, const position_t *next)
{
    if (game_count_position(g, next) > 0)
        return true;
    for (int i = 1; i < n; i++)
        if (position_same(&line[i], next))
            return true;
    return false;
}

/* Occurrences of line[n] in the game and along the line. */
static int line_occurrences(const game_t *g, const position_t *line, int n)
{
    int k = game_count_position(g, &line[n]);
    for (int i = 1; i <= n; i++)
        k += position_same(&line[i], &line[n]);
    return k;
}

/* Makes a reported line true to the game's history: it is cut where a move would be illegal
 * under `forbid` or the game ends by repetition under `draw`. A line ending in a won or lost
 * database position goes on with the database's best legal moves to the end of the game. */
static void settle_pv(const search_shared_t *s, search_info_t *info, bool extend)
{
    const game_t *g = s->game;
    position_t line[MAX_PLY + 1];
    line[0] = *game_position(g);
    int n = 0;
    for (; n < info->pv_len; n++) {
        if (s->rule == REP_DRAW && line_occurrences(g, line, n) >= 3)
            break;
        line[n + 1] = line[n];
        position_make(&line[n + 1], info->pv[n]);
        if (s->rule == REP_FORBID && !line[n].in_hand && line_repeats(g, line, n + 1, &line[n + 1]))
            break;
    }
    info->pv_len = n;
    if (!extend || !s->tb)
        return;
    while (info->pv_len < MAX_PLY) {
        position_t *p = &line[info->pv_len];
        tb_value_t v;
        /* A line that ended by a third occurrence has nothing after it. */
        if (s->rule == REP_DRAW && line_occurrences(g, line, info->pv_len) >= 3)
            return;
        if (p->in_hand || !tb_probe(s->tb, p, &v) || v.wdl == TB_DRAW || v.distance == 0)
            return;
        move_t moves[MAX_MOVES], legal[MAX_MOVES];
        tb_move_value_t ranked[MAX_MOVES];
        int n_all = gen_moves(p, moves), n_legal = 0;
        for (int i = 0; i < n_all; i++) {
            position_t next = *p;
            position_make(&next, moves[i]);
            if (s->rule != REP_FORBID || !line_repeats(g, line, info->pv_len + 1, &next))
                legal[n_legal++] = moves[i];
        }
        if (n_legal == 0 || tb_rank_moves(s->tb, p, legal, n_legal, ranked) <= 0)
            return;
        info->pv[info->pv_len] = ranked[0].move;
        line[info->pv_len + 1] = *p;
        position_make(&line[info->pv_len + 1], ranked[0].move);
        info->pv_len++;
    }
}

static void fill_info(const search_shared_t *s, const root_move_t *rm, int pv_idx, int depth, search_info_t *info)
{
    int64_t elapsed = search_now_ms() - s->start_ms;
    memset(info, 0, sizeof *info);
    info->depth = depth;
    info->seldepth = rm->seldepth > depth ? rm->seldepth : depth;
    info->multipv = pv_idx + 1;
    info->score = rm->score;
    info->bound = rm->bound;
    /* At a drawn database root the search only ranks drawing moves: the value is a draw.
     * Under forbid no game is drawn: the search's own score stands. */
    if (s->rule == REP_DRAW && s->root_in_tb && s->root_tb.wdl == TB_DRAW && !score_is_mate(rm->score)) {
        info->score = 0;
        info->bound = BOUND_EXACT;
    }
    info->nodes = total_nodes(s);
    info->tbhits = total_tbhits(s);
    info->time_ms = elapsed;
    info->nps = elapsed > 0 ? info->nodes * 1000 / (uint64_t)elapsed : info->nodes * 1000;
    info->hashfull = tt_hashfull(s->tt);
    info->pv_len = rm->pv_len;
    memcpy(info->pv, rm->pv, (size_t)rm->pv_len * sizeof(move_t));
    settle_pv(s, info, score_is_mate(info->score));
}

static bool use_time(const search_shared_t *s) { return s->optimum_ms > 0; }

/* Is every reported line's value proven, so that deeper iterations cannot change it? A mate
 * the search found within its depth is, and so is every value at a won or lost database
 * root (the moves there are the database's, their values exact). */
static bool root_proven(const search_shared_t *s, const worker_t *w, int multipv, int depth)
{
    for (int i = 0; i < multipv; i++) {
        const root_move_t *rm = &w->root[i];
        if (rm->bound != BOUND_EXACT || !score_is_mate(rm->score))
            return false;
        int plies = SCORE_MATE - (rm->score > 0 ? rm->score : -rm->score);
        if (plies > depth && !(s->root_in_tb && s->root_tb.wdl != TB_DRAW && (s->rule == REP_DRAW || s->root_holds)))
            return false;
    }
    return true;
}

static void iterate(worker_t *w)
{
    search_shared_t *s = w->s;
    int max_depth = s->limits.depth > 0 && s->limits.depth < MAX_PLY ? s->limits.depth : MAX_PLY - 1;
    int multipv = s->multipv < w->nroot ? s->multipv : w->nroot;
    move_t last_best = MOVE_NONE;
    int stability = 0;
    for (int depth = 1 + (w->id & 1); depth <= max_depth; depth++) {
        for (int i = 0; i < w->nroot; i++)
            w->root[i].prev_score = w->root[i].score;
        for (int pv_idx = 0; pv_idx < multipv; pv_idx++) {
            int prev = w->root[pv_idx].prev_score;
            int delta = 30, alpha = -SCORE_INF, beta = SCORE_INF;
            if (depth >= 5 && !score_is_mate(prev) && prev > -SCORE_INF) {
                alpha = prev - delta;
                beta = prev + delta;
            }
            for (;;) {
                int score = root_search(w, alpha, beta, depth, pv_idx);
                if (stopped(w) || score == SCORE_NONE)
                    break;
                if (score <= alpha) {
                    beta = (alpha + beta) / 2;
                    alpha = score - delta > -SCORE_INF ? score - delta : -SCORE_INF;
                } else if (score >= beta) {
                    beta = score + delta < SCORE_INF ? score + delta : SCORE_INF;
                } else {
                    break;
                }
                delta += delta;
                if (delta > 1000) {
                    alpha = -SCORE_INF;
                    beta = SCORE_INF;
                }
            }
            if (stopped(w))
                break;
            /* Each line is searched over the moves the earlier ones left, with its own window:
             * a later line can score higher than an earlier one. The lines done so far are
             * kept best first (stable), as Stockfish does, so every report is in order. */
            for (int i = pv_idx; i > 0 && w->root[i - 1].score < w->root[i].score; i--) {
                root_move_t t = w->root[i];
                w->root[i] = w->root[i - 1];
                w->root[i - 1] = t;
            }
        }
        if (stopped(w))
            break;
        w->completed_depth = depth;
        w->last_complete = w->root[0];
        if (w->id != 0)
            continue;
        if (s->report.info)
            for (int i = 0; i < multipv; i++) {
                search_info_t info;
                fill_info(s, &w->root[i], i, depth, &info);
                s->report.info(s->report.ctx, &info);
            }
        /* A proven value ends the iterations; under infinite or ponder the bestmove still
         * waits for stop or ponderhit. */
        if (root_proven(s, w, multipv, depth))
            break;
        /* Time: stop early when the best move is settled, keep going when it changes. */
        stability = w->root[0].move == last_best ? stability + 1 : 0;
        last_best = w->root[0].move;
        if (use_time(s) && !atomic_load_explicit(&s->pondering, memory_order_relaxed)) {
            if (w->nroot == 1)
                break;
            int percent = stability >= 4 ? 60 : stability >= 2 ? 85 : 130;
            if (w->root[0].score < w->root[0].prev_score - 40 && w->root[0].prev_score > -SCORE_INF)
                percent += 50;
            if (score_is_mate(w->root[0].score) && score_mate_moves(w->root[0].score) * 2 <= depth)
                break;
            if (search_now_ms() - s->start_ms >= tm_adjusted(&(tm_budget_t){s->optimum_ms, s->maximum_ms}, percent))
                break;
        }
    }
}

static void *helper_main(void *arg)
{
    iterate(arg);
    return NULL;
}

static void setup_worker(worker_t *w, search_shared_t *s, const root_move_t *root, int nroot)
{
    const game_t *g = s->game;
    w->s = s;
    w->pos = *game_position(g);
    w->ply = 0;
    w->seldepth = 0;
    w->completed_depth = 0;
    atomic_store_explicit(&w->nodes, 0, memory_order_relaxed);
    atomic_store_explicit(&w->tbhits, 0, memory_order_relaxed);
    /* The reversible tail of the game: earlier positions can never come back. */
    size_t first = g->count;
    while (first > 0 && !is_irreversible(g->moves[first - 1]) && g->count - first < KEYS_HISTORY - 1)
        first--;
    w->nkeys = 0;
    for (size_t i = first; i <= g->count; i++) {
        w->keys[w->nkeys] = g->history[i].key;
        w->irr[w->nkeys] = 0;
        w->nkeys++;
    }
    memcpy(w->root, root, (size_t)nroot * sizeof *root);
    w->nroot = nroot;
    w->fb_path[0] = FB_NO_BOUND;
    w->fb_contrib[0] = FB_NO_BOUND;
    eval_cache_clear(&w->eval_cache); /* the weights may have changed since the last search */
}

static void wait_for_release(search_shared_t *s)
{
    while (atomic_load(&s->waiting) && !atomic_load(&s->stop)) {
        struct timespec ts = {0, 500000};
        nanosleep(&ts, NULL);
    }
}

static void report_game_over(search_shared_t *s)
{
    search_info_t info;
    memset(&info, 0, sizeof info);
    game_result_t r = game_result(s->game);
    info.score = r.winner < 0 ? 0 : r.winner == game_position(s->game)->side ? SCORE_MATE : -SCORE_MATE;
    info.bound = BOUND_EXACT;
    info.hashfull = tt_hashfull(s->tt);
    wait_for_release(s);
    if (s->report.bestmove)
        s->report.bestmove(s->report.ctx, MOVE_NONE, MOVE_NONE, &info);
}

/* Is m, made after best, a legal move of the game (not over, no repetition under forbid)? */
static bool ponder_is_legal(const search_shared_t *s, move_t best, move_t m)
{
    const game_t *g = s->game;
    position_t after = *game_position(g);
    position_make(&after, best);
    if (m == MOVE_NONE || after.captured >= BC_CAPTURES_TO_WIN || game_move_draws(g, best) ||
        !move_is_pseudo_legal(&after, m))
        return false;
    if (s->rule == REP_FORBID && !after.in_hand) {
        position_t next = after;
        position_make(&next, m);
        if (game_count_position(g, &next) > 0)
            return false;
    }
    return true;
}

static move_t ponder_move(search_shared_t *s, const root_move_t *best, const search_info_t *final)
{
    move_t m = MOVE_NONE;
    if (final->pv_len >= 2 && final->pv[0] == best->move) {
        m = final->pv[1];
    } else {
        position_t p = *game_position(s->game);
        position_make(&p, best->move);
        tt_hit_t hit;
        if (tt_probe(s->tt, position_hash(&p), &hit))
            m = hit.move;
    }
    return ponder_is_legal(s, best->move, m) ? m : MOVE_NONE;
}

int search_rank_tb_moves(const tb_t *tb, const game_t *g, const move_t *moves, int n, tb_move_value_t *out)
{
    int keep = tb_rank_moves(tb, game_position(g), moves, n, out);
    if (keep <= 0)
        return keep;
    /* The game's history before the database: a move that makes a third occurrence ends
     * the game in a draw, whatever the database says of the position it reaches. */
    bool changed = false;
    for (int i = 0; i < n; i++)
        if (out[i].value.wdl != TB_DRAW && game_move_draws(g, out[i].move)) {
            out[i].value = (tb_value_t){.wdl = TB_DRAW, .distance = 0};
            changed = true;
        }
    if (!changed)
        return keep;
    for (int i = 1; i < n; i++) /* stable: equal values keep the database's order */
        for (int j = i; j > 0 && tb_value_order(out[j - 1].value) < tb_value_order(out[j].value); j--) {
            tb_move_value_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    keep = 1;
    while (keep < n && tb_value_order(out[keep].value) == tb_value_order(out[0].value))
        keep++;
    return keep;
}

/* The share (in 1/65536) of the opponent's replies after move m that lose for the
 * opponent: how many ways the move leaves them to go wrong. */
static uint32_t wrong_reply_share(const tb_t *tb, const position_t *p, move_t m)
{
    position_t child = *p;
    position_make(&child, m);
    move_t replies[MAX_MOVES];
    int n = gen_moves(&child, replies), losing = moves_losing(tb, &child, replies, n);
    return n ? (uint32_t)((uint64_t)losing * 65536 / (uint64_t)n) : 0;
}

/* Under forbid, what the database says of the root's moves for this game (forbid.h): a win
 * or loss that the history cannot block, else open (a database draw, or a win or loss whose
 * line the history might block). The root keeps the fastest wins, or else every open move
 * (the search chooses among them: this is where the game is played), or else the slowest
 * losses. */
static void filter_root_forbid(search_shared_t *s, root_move_t *root, int *nroot)
{
    move_t moves[MAX_MOVES];
    fb_move_value_t ranked[MAX_MOVES];
    for (int i = 0; i < *nroot; i++)
        moves[i] = root[i].move;
    /* The bound alone, as in the search below (a bounded search per move would cost more
     * than a short move has). */
    int keep = fb_rank_moves(s->tb, s->game, &s->fb_hist, moves, *nroot, 0, ranked);
    if (keep <= 0)
        return;
    s->root_tbhits = (uint64_t)*nroot + 1;
    s->root_in_tb = true;
    s->root_tb = ranked[0].value;
    /* Among moves of the same value, those whose value holds for this game come first. */
    int holding = 0;
    for (int i = 0; i < keep; i++)
        if (ranked[i].holds)
            ranked[holding++] = ranked[i];
    s->root_holds = holding > 0;
    if (holding)
        keep = holding;
    for (int i = 0; i < keep; i++)
        root[i] = (root_move_t){.move = ranked[i].move, .score = -SCORE_INF, .prev_score = -SCORE_INF,
                                .pv_len = 1, .pv = {ranked[i].move}};
    *nroot = keep;
}

/* At a database root only the moves that keep the value are searched: the fastest wins,
 * the slowest losses, or among the drawing moves those that leave the opponent the largest
 * share of losing replies (the search then picks among them). */
static void filter_root_by_tb(search_shared_t *s, root_move_t *root, int *nroot)
{
    s->root_in_tb = false;
    const position_t *p = game_position(s->game);
    if (!s->tb || !tb_probe(s->tb, p, &s->root_tb))
        return;
    if (s->rule == REP_FORBID) {
        filter_root_forbid(s, root, nroot);
        return;
    }
    move_t moves[MAX_MOVES];
    tb_move_value_t ranked[MAX_MOVES];
    for (int i = 0; i < *nroot; i++)
        moves[i] = root[i].move;
    int keep = search_rank_tb_moves(s->tb, s->game, moves, *nroot, ranked);
    if (keep <= 0)
        return;
    s->root_tbhits = (uint64_t)*nroot + 1;
    s->root_in_tb = true;
    /* With history (repetition rules, searchmoves) the root's best move may be gone: the
     * value the remaining moves keep is what counts. */
    s->root_tb = ranked[0].value;
    if (s->root_tb.wdl == TB_DRAW && keep > 1) {
        /* One answer: the drawing moves that leave the most losing replies. Several lines:
         * every drawing move, those first, so that each line shown keeps the draw. */
        uint32_t share[MAX_MOVES], top = 0;
        for (int i = 0; i < keep; i++) {
            share[i] = wrong_reply_share(s->tb, p, ranked[i].move);
            top = share[i] > top ? share[i] : top;
        }
        tb_move_value_t rest[MAX_MOVES];
        int k = 0, r = 0;
        for (int i = 0; i < keep; i++) {
            if (share[i] == top)
                ranked[k++] = ranked[i];
            else
                rest[r++] = ranked[i];
        }
        if (s->multipv > 1)
            for (int i = 0; i < r; i++)
                ranked[k++] = rest[i];
        keep = k;
    }
    for (int i = 0; i < keep; i++)
        root[i] = (root_move_t){.move = ranked[i].move, .score = -SCORE_INF, .prev_score = -SCORE_INF,
                                .pv_len = 1, .pv = {ranked[i].move}};
    *nroot = keep;
}

bool search_shared_init(search_shared_t *s)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return false;
    bool ok = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 && pthread_cond_init(&s->timer_cond, &attr) == 0;
    pthread_condattr_destroy(&attr);
    if (ok && pthread_mutex_init(&s->timer_lock, NULL) != 0) {
        pthread_cond_destroy(&s->timer_cond);
        ok = false;
    }
    return ok;
}

void search_shared_destroy(search_shared_t *s)
{
    pthread_cond_destroy(&s->timer_cond);
    pthread_mutex_destroy(&s->timer_lock);
}

void search_wake_timer(search_shared_t *s)
{
    pthread_mutex_lock(&s->timer_lock);
    pthread_cond_signal(&s->timer_cond);
    pthread_mutex_unlock(&s->timer_lock);
}

/* Sleeps until the deadline (start + maximum, counted once pondering is over) and then sets
 * stop; wakes early when the search ends or a ponderhit comes. */
static void *timer_main(void *arg)
{
    search_shared_t *s = arg;
    pthread_mutex_lock(&s->timer_lock);
    while (!s->timer_done) {
        struct timespec ts;
        if (atomic_load(&s->pondering)) {
            /* A ponderhit wakes the clock; the short sleep is only a safety net. */
            clock_gettime(CLOCK_MONOTONIC, &ts);
            ts.tv_sec += 1;
        } else {
            int64_t deadline = s->start_ms + s->maximum_ms;
            if (search_now_ms() >= deadline) {
                atomic_store(&s->stop, true);
                break;
            }
            ts.tv_sec = deadline / 1000;
            ts.tv_nsec = (deadline % 1000) * 1000000;
        }
        pthread_cond_timedwait(&s->timer_cond, &s->timer_lock, &ts);
    }
    pthread_mutex_unlock(&s->timer_lock);
    return NULL;
}

void search_run(search_shared_t *s)
{
    int64_t now = search_now_ms();
    s->start_ms = s->limits.start_ms > 0 && s->limits.start_ms <= now ? s->limits.start_ms : now;
    s->root_in_tb = false;
    s->root_holds = false;
    s->root_tbhits = 0;
    tt_new_search(s->tt);
    /* Root moves: the game's legal moves (exact repetition rules), cut to searchmoves. */
    root_move_t root[MAX_MOVES];
    move_t legal[MAX_MOVES];
    int nlegal = game_result(s->game).reason == RESULT_NONE ? game_legal_moves(s->game, legal) : 0;
    int nroot = 0;
    for (int i = 0; i < nlegal; i++) {
        bool take = s->limits.searchmoves_nb == 0;
        for (int k = 0; k < s->limits.searchmoves_nb && !take; k++)
            take = s->limits.searchmoves[k] == legal[i];
        if (take)
            root[nroot++] = (root_move_t){.move = legal[i], .score = -SCORE_INF, .prev_score = -SCORE_INF,
                                          .pv_len = 1, .pv = {legal[i]}};
    }
    if (nroot == 0)
        for (int i = 0; i < nlegal; i++)
            root[nroot++] = (root_move_t){.move = legal[i], .score = -SCORE_INF, .prev_score = -SCORE_INF,
                                          .pv_len = 1, .pv = {legal[i]}};
    if (nroot == 0) {
        report_game_over(s);
        return;
    }
    if (s->tb && s->rule == REP_FORBID)
        fb_history_init(&s->fb_hist, s->tb, s->game);
    filter_root_by_tb(s, root, &nroot);

    /* Time limits. */
    const position_t *p = game_position(s->game);
    s->optimum_ms = s->maximum_ms = 0;
    if (s->limits.movetime > 0) {
        /* Answer inside the time, not at it: a referee measuring the round trip must not see
         * the reply late. The margin is the Move Overhead, at most a fifth of the time: a
         * tenth (10 ms at 100 ms) was lost to the machine's own hiccups about once in 500
         * moves. */
        int64_t slack = s->limits.movetime / 5 < s->move_overhead ? s->limits.movetime / 5 : s->move_overhead;
        s->optimum_ms = s->maximum_ms = s->limits.movetime - slack > 1 ? s->limits.movetime - slack : 1;
    }
    else if ((s->limits.time[GOATS] >= 0 || s->limits.time[TIGERS] >= 0) && !s->limits.infinite) {
        /* A line with one clock only: that clock is the side to move's. */
        int side = s->limits.time[p->side] >= 0 ? p->side : !p->side;
        tm_budget_t b = tm_init(s->limits.time[side], s->limits.inc[side], s->limits.movestogo,
                                s->move_overhead, p->in_hand);
        s->optimum_ms = b.optimum_ms;
        s->maximum_ms = b.maximum_ms;
    }
    if (s->limits.movetime > 0)
        s->optimum_ms = 0; /* a fixed time is spent whole: only the maximum applies */

    /* Batches small enough that all threads together overshoot a node limit by a few
     * percent at most. */
    atomic_store(&s->nodes_shared, 0);
    s->node_batch = s->limits.nodes / (32 * (uint64_t)s->nthreads);
    s->node_batch = s->node_batch < 1 ? 1 : s->node_batch > 1024 ? 1024 : s->node_batch;
    for (int i = 0; i < s->nthreads; i++)
        setup_worker(s->workers[i], s, root, nroot);
    /* Without a clock thread the time limit could not hold: then the search does not start
     * and answers at once (stopped before any iteration). */
    pthread_t timer;
    bool timed = s->maximum_ms > 0;
    s->timer_done = false;
    if (timed && pthread_create(&timer, NULL, timer_main, s) != 0) {
        timed = false;
        atomic_store(&s->stop, true);
    }
    pthread_t threads[MAX_THREADS];
    int started = 0;
    for (int i = 1; i < s->nthreads; i++) {
        if (pthread_create(&threads[i], NULL, helper_main, s->workers[i]) != 0)
            break;
        started = i;
    }
    worker_t *main_w = s->workers[0];
    iterate(main_w);
    wait_for_release(s);
    atomic_store(&s->stop, true);
    for (int i = 1; i <= started; i++)
        pthread_join(threads[i], NULL);
    if (timed) {
        pthread_mutex_lock(&s->timer_lock);
        s->timer_done = true;
        pthread_cond_signal(&s->timer_cond);
        pthread_mutex_unlock(&s->timer_lock);
        pthread_join(timer, NULL);
    }

    /* If the main thread was stopped inside its first iteration, a helper may know more. */
    worker_t *best_w = main_w;
    for (int i = 1; i <= started; i++)
        if (s->workers[i]->completed_depth > best_w->completed_depth)
            best_w = s->workers[i];
    /* The answer is the last completed iteration's line, whole: an iteration cut off by a
     * limit or stop leaves a first move searched one ply deeper than the others (or only a
     * bound on it), and a report mixing its score and line with the depth before would say
     * what no search found. Only a search stopped inside its first iteration reports that. */
    const root_move_t *best_rm = &best_w->root[0];
    if (best_w->completed_depth > 0)
        best_rm = &best_w->last_complete;
    search_info_t final;
    fill_info(s, best_rm, 0, best_w->completed_depth > 0 ? best_w->completed_depth : 1, &final);
    final.nodes = total_nodes(s);
    if (final.score == -SCORE_INF) {
        /* Stopped before any move was searched: the database's value when the root has
         * one, else the static evaluation. */
        if (s->root_in_tb && (s->rule == REP_DRAW || (s->root_tb.wdl != TB_DRAW && s->root_holds)))
            final.score = tb_score(s->root_tb, 0);
        else if (s->root_in_tb && s->root_tb.wdl != TB_DRAW)
            final.score = s->root_tb.wdl == TB_WIN ? SCORE_TB_LIKELY : -SCORE_TB_LIKELY;
        else
            final.score = eval_position(s->eval, p);
        final.bound = BOUND_EXACT;
        settle_pv(s, &final, score_is_mate(final.score));
    }
    move_t best = best_rm->move;
    if (s->report.bestmove)
        s->report.bestmove(s->report.ctx, best, ponder_move(s, best_rm, &final), &final);
}
