/* The no-repetition rule with the draw-rule solution: the history bound on the database's
 * wins and losses, and a df-pn prover over positions with their history. */
#define _POSIX_C_SOURCE 200809L
#include "forbid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "movegen.h"

/* ---- what the database's values are worth under forbid ------------------------------ */

static int goats_on_board(const position_t *p) { return bb_count(p->goats); }

position_t fb_twin(const position_t *p)
{
    position_t t = *p;
    t.captured = (uint8_t)(p->captured + p->in_hand);
    t.in_hand = 0;
    return t;
}

void fb_history_add(fb_history_t *h, const position_t *p, tb_value_t v)
{
    if (v.wdl == TB_DRAW || v.distance == TB_DISTANCE_UNKNOWN)
        return;
    for (int g = goats_on_board(p); g <= BC_GOATS_TOTAL; g++)
        if (v.distance < h->bound[g])
            h->bound[g] = v.distance;
}

/* The database's value of p's twin, when p could be recreated by a movement-phase position
 * (its twin is a position the game can reach) and the database knows it. */
static bool twin_value(const tb_t *tb, const position_t *p, tb_value_t *v)
{
    position_t t = fb_twin(p);
    if (t.captured > tb_captures_to_win(tb) || (t.captured == tb_captures_to_win(tb) && t.side != GOATS))
        return false;
    return tb_probe(tb, &t, v);
}

void fb_history_init(fb_history_t *h, const tb_t *tb, const game_t *g)
{
    memset(h->bound, FB_NO_BOUND, sizeof h->bound);
    int now = goats_on_board(game_position(g));
    for (size_t i = 0; i <= g->count; i++) {
        const position_t *p = &g->history[i];
        tb_value_t v;
        /* A position with more goats than now can never come back: goats only leave. */
        if ((p->in_hand || goats_on_board(p) <= now) && twin_value(tb, p, &v))
            fb_history_add(h, p, v);
    }
}

bool fb_value_holds(const fb_history_t *h, const position_t *p, tb_value_t v)
{
    if (v.wdl == TB_DRAW)
        return false;
    if (p->in_hand || v.distance == TB_DISTANCE_UNKNOWN)
        return true;
    return v.distance <= h->bound[goats_on_board(p)];
}

/* ---- the bounded search behind a value the bound does not clear ----------------------- */

enum { FB_VERIFY_DEFAULT = 20000, FB_BLOCKED_MAX = 512 };

typedef struct {
    const tb_t *tb;
    position_t blocked[FB_BLOCKED_MAX]; /* the history's positions that a fastest line could meet */
    int nblocked, nearest;              /* nearest: their smallest distance */
    /* Positions already settled: key, then 1 (the winner gets through) or 2 (it does not). */
    uint64_t *memo_key;
    uint8_t *memo_val;
    size_t memo_cap;
    uint64_t nodes, max_nodes;
    bool out;
} fb_verifier_t;

static bool is_blocked(const fb_verifier_t *vf, const position_t *p)
{
    for (int i = 0; i < vf->nblocked; i++)
        if (position_same(&vf->blocked[i], p))
            return true;
    return false;
}

static uint8_t *memo_slot(fb_verifier_t *vf, const position_t *p)
{
    uint64_t k = position_hash(p) | 1;
    size_t i = (size_t)(k * 0x9E3779B97F4A7C15ull >> 20) & (vf->memo_cap - 1);
    while (vf->memo_key[i] && vf->memo_key[i] != k)
        i = (i + 1) & (vf->memo_cap - 1);
    vf->memo_key[i] = k;
    return &vf->memo_val[i];
}

/* Does p (the winner to move when winner, distance d) reach the end along fastest lines that
 * never need to recreate a blocked position? The loser's moves onto blocked positions are
 * illegal for it; the winner's are what could fail. */
static bool verify_rec(fb_verifier_t *vf, const position_t *p, int d, bool winner)
{
    if (d <= vf->nearest)
        return true; /* every position below is nearer the end than any blocked one */
    if (++vf->nodes > vf->max_nodes) {
        vf->out = true;
        return false;
    }
    uint8_t *slot = memo_slot(vf, p);
    if (*slot)
        return *slot == 1;
    move_t moves[MAX_MOVES];
    int n = gen_moves(p, moves);
    bool ok = !winner;
    for (int i = 0; i < n && ok != winner && !vf->out; i++) {
        position_t c = *p;
        position_make(&c, moves[i]);
        if (is_blocked(vf, &c))
            continue;
        tb_value_t v;
        if (!tb_probe(vf->tb, &c, &v) || v.wdl == TB_DRAW || v.distance == TB_DISTANCE_UNKNOWN) {
            if (!winner)
                ok = false; /* cannot happen below a database win: be safe */
            continue;
        }
        if (winner) {
            if (v.wdl == TB_LOSS && v.distance == d - 1 && verify_rec(vf, &c, d - 1, false))
                ok = true;
        } else if (v.wdl != TB_WIN || !verify_rec(vf, &c, v.distance, true)) {
            ok = false;
        }
    }
    if (vf->out)
        return false;
    /* The memo may have moved (it never does: fixed size), so look the slot up again. */
    *memo_slot(vf, p) = ok ? 1 : 2;
    return ok;
}

bool fb_verify(const tb_t *tb, const game_t *g, const position_t *q, tb_value_t v, uint64_t max_nodes)
{
    if (v.wdl == TB_DRAW)
        return false;
    if (q->in_hand || v.distance == TB_DISTANCE_UNKNOWN)
        return true;
    fb_verifier_t vf = {.tb = tb, .nearest = 255, .max_nodes = max_nodes ? max_nodes : FB_VERIFY_DEFAULT};
    int goats = goats_on_board(q);
    for (size_t i = 0; i <= g->count; i++) {
        const position_t *r = &g->history[i];
        tb_value_t t;
        if ((r->in_hand || goats_on_board(r) <= goats) && twin_value(tb, r, &t) && t.wdl != TB_DRAW &&
            t.distance < v.distance && t.distance != TB_DISTANCE_UNKNOWN) {
            if (vf.nblocked == FB_BLOCKED_MAX)
                return false;
            vf.blocked[vf.nblocked++] = fb_twin(r);
            if (t.distance < vf.nearest)
                vf.nearest = t.distance;
        }
    }
    if (!vf.nblocked)
        return true;
    vf.memo_cap = 1;
    while (vf.memo_cap < 2 * vf.max_nodes + 2)
        vf.memo_cap *= 2;
    vf.memo_key = calloc(vf.memo_cap, sizeof *vf.memo_key);
    vf.memo_val = calloc(vf.memo_cap, sizeof *vf.memo_val);
    bool ok = vf.memo_key && vf.memo_val && verify_rec(&vf, q, v.distance, v.wdl == TB_WIN);
    free(vf.memo_key);
    free(vf.memo_val);
    return ok && !vf.out;
}

int fb_rank_moves(const tb_t *tb, const game_t *g, const fb_history_t *h, const move_t *moves, int n,
                  uint64_t verify_nodes, fb_move_value_t *out)
{
    const position_t *p = game_position(g);
    tb_move_value_t ranked[MAX_MOVES];
    int keep = tb_rank_moves(tb, p, moves, n, ranked);
    if (keep < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        position_t child = *p;
        position_make(&child, ranked[i].move);
        /* The child's own value, from the mover's. */
        tb_value_t v = ranked[i].value;
        if (v.wdl != TB_DRAW) {
            v.wdl = (int8_t)-v.wdl;
            if (v.distance != TB_DISTANCE_UNKNOWN)
                v.distance = (uint8_t)(v.distance - 1);
        }
        bool holds = fb_value_holds(h, &child, v) || (verify_nodes && fb_verify(tb, g, &child, v, verify_nodes));
        out[i] = (fb_move_value_t){ranked[i].move, ranked[i].value, holds};
    }
    return keep;
}

/* ---- the prover: depth-first proof-number search ------------------------------------ */

/* Every node is seen from its side to move: pn is the work left to prove that it wins, dn to
 * prove that it loses. A node's pn is its children's smallest dn, its dn the sum of their
 * pns. The table is keyed by the position and the positions of the line that it could still
 * recreate, so a stored value is right for every line that reaches it. */

enum { FB_MAX_DEPTH = 600, FB_FILTER = 1 << 12, FB_BUCKET = 4 };

#define FB_INF 0x3FFFFFFFu

typedef struct {
    uint64_t key;
    uint32_t pn, dn;
    uint32_t work; /* positions expanded below it: what a replacement keeps */
    uint16_t gen;
    move_t best;
} fb_entry_t;

struct fb_prover {
    fb_entry_t *tt;
    size_t buckets; /* a power of two */
    uint16_t gen;
    /* One proof. */
    const tb_t *tb;
    const game_t *game;
    int captures_to_win;
    position_t path[FB_MAX_DEPTH + 1]; /* path[0] the game's position, path[ply] the current */
    fb_history_t bound[FB_MAX_DEPTH + 1];
    uint64_t acc[BC_GOATS_TOTAL + 1]; /* XOR of the keys of the line's positions, by goats */
    uint16_t filter[FB_FILTER];       /* how many positions of the line have these key bits */
    int ply;
    uint64_t nodes, max_nodes, checks;
    int64_t deadline_ms;
    const atomic_bool *stop;
    bool aborted;
    fb_result_t (*leaf)(void *ctx, const position_t *p); /* fb_limits_t's */
    void *leaf_ctx;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

fb_prover_t *fb_prover_new(size_t mb)
{
    fb_prover_t *pr = calloc(1, sizeof *pr);
    if (!pr)
        return NULL;
    size_t want = (mb ? mb : 1) * 1024 * 1024 / (sizeof(fb_entry_t) * FB_BUCKET), n = 1;
    while (n * 2 <= want)
        n *= 2;
    pr->tt = calloc(n * FB_BUCKET, sizeof *pr->tt);
    if (!pr->tt) {
        free(pr);
        return NULL;
    }
    pr->buckets = n;
    return pr;
}

void fb_prover_free(fb_prover_t *pr)
{
    if (!pr)
        return;
    free(pr->tt);
    free(pr);
}

static inline uint32_t sat_add(uint32_t a, uint32_t b) { return a + b >= FB_INF ? FB_INF : a + b; }

static inline const position_t *cur(const fb_prover_t *pr) { return &pr->path[pr->ply]; }

/* A position's key as a member of a set. Zobrist keys are linear: the four positions of two
 * goat and two tiger placements XOR to nothing, exactly the shape a no-repetition game
 * traces, so the members are mixed (the splitmix64 finalizer) before they are combined. */
static inline uint64_t member_hash(uint64_t key)
{
    key ^= key >> 30;
    key *= 0xBF58476D1CE4E5B9ull;
    key ^= key >> 27;
    key *= 0x94D049BB133111EBull;
    return key ^ (key >> 31);
}

/* The key of the current node: the position (with its goats in hand) and the positions of
 * the line it could still recreate (a movement position: those with as many goats or fewer;
 * in the placement phase, any with enough goats to have a twin). */
static uint64_t node_key(const fb_prover_t *pr)
{
    const position_t *p = cur(pr);
    int top = p->in_hand ? BC_GOATS_TOTAL : goats_on_board(p);
    uint64_t set = 0;
    for (int g = BC_GOATS_TOTAL - BC_CAPTURES_TO_WIN; g <= top; g++)
        set ^= pr->acc[g];
    return position_hash(p) ^ member_hash(set ^ 0x9E3779B97F4A7C15ull);
}

/* Is q (reached from the current position, which has no goat in hand) a position of the
 * game's history or of the line? */
static bool recreates(const fb_prover_t *pr, const position_t *q)
{
    if (game_count_position(pr->game, q) > 0)
        return true;
    if (!pr->filter[q->key & (FB_FILTER - 1)])
        return false;
    for (int i = pr->ply; i >= 0; i--)
        if (position_same(&pr->path[i], q))
            return true;
    return false;
}

/* The current position's moves that the rules and the history allow. */
static int legal_moves(const fb_prover_t *pr, move_t *moves)
{
    const position_t *p = cur(pr);
    if (p->captured >= pr->captures_to_win)
        return 0;
    int n = gen_moves(p, moves);
    if (p->in_hand)
        return n;
    int k = 0;
    for (int i = 0; i < n; i++) {
        position_t q = *p;
        position_make(&q, moves[i]);
        if (!recreates(pr, &q))
            moves[k++] = moves[i];
    }
    return k;
}

/* The history bound below the current position: the bound above it, with the current
 * position's own value (or its twin's) added. Once per position expanded. */
static void prepare_children(fb_prover_t *pr)
{
    const position_t *p = cur(pr);
    pr->bound[pr->ply + 1] = pr->bound[pr->ply];
    tb_value_t v;
    if (twin_value(pr->tb, p, &v))
        fb_history_add(&pr->bound[pr->ply + 1], p, v);
}

/* Makes m from the current position (prepare_children done for it). */
static void push(fb_prover_t *pr, move_t m)
{
    const position_t *p = cur(pr);
    pr->acc[goats_on_board(p)] ^= member_hash(p->key);
    pr->filter[p->key & (FB_FILTER - 1)]++;
    pr->path[pr->ply + 1] = *p;
    position_make(&pr->path[pr->ply + 1], m);
    pr->ply++;
}

static void pop(fb_prover_t *pr)
{
    pr->ply--;
    const position_t *p = cur(pr);
    pr->acc[goats_on_board(p)] ^= member_hash(p->key);
    pr->filter[p->key & (FB_FILTER - 1)]--;
}

static fb_entry_t *tt_find(fb_prover_t *pr, uint64_t key)
{
    fb_entry_t *b = &pr->tt[(key & (pr->buckets - 1)) * FB_BUCKET];
    for (int i = 0; i < FB_BUCKET; i++)
        if (b[i].key == key && b[i].gen == pr->gen)
            return &b[i];
    return NULL;
}

static void tt_store(fb_prover_t *pr, uint64_t key, uint32_t pn, uint32_t dn, uint32_t work, move_t best)
{
    fb_entry_t *b = &pr->tt[(key & (pr->buckets - 1)) * FB_BUCKET], *e = NULL;
    for (int i = 0; i < FB_BUCKET && !e; i++)
        if (b[i].key == key && b[i].gen == pr->gen)
            e = &b[i];
    for (int i = 0; i < FB_BUCKET && !e; i++)
        if (b[i].gen != pr->gen)
            e = &b[i];
    if (!e) {
        e = &b[0];
        for (int i = 1; i < FB_BUCKET; i++)
            if (b[i].work < e->work)
                e = &b[i];
    }
    *e = (fb_entry_t){key, pn, dn, work, pr->gen, best};
}

/* The numbers of the current position as a new leaf: a win or loss when the rules, the
 * history or the database decide it, else 1 to prove and its number of moves to disprove. */
static void leaf_numbers(fb_prover_t *pr, uint32_t *pn, uint32_t *dn)
{
    const position_t *p = cur(pr);
    tb_value_t v;
    if (tb_probe(pr->tb, p, &v) && v.wdl != TB_DRAW && fb_value_holds(&pr->bound[pr->ply], p, v)) {
        *pn = v.wdl == TB_WIN ? 0 : FB_INF;
        *dn = v.wdl == TB_WIN ? FB_INF : 0;
        return;
    }
    if (pr->leaf && p->captured > pr->path[0].captured) {
        fb_result_t r = pr->leaf(pr->leaf_ctx, p);
        if (r != FB_OPEN) {
            *pn = r == FB_WIN ? 0 : FB_INF;
            *dn = r == FB_WIN ? FB_INF : 0;
            return;
        }
    }
    /* The moves by the rules: the ones the history forbids are taken out when the position
     * is expanded (a position whose every move repeats is found lost then). A new position
     * starts at 1 and 1: weighting its disproof by its number of moves, or of moves that do
     * not lose at once, settled no more positions and took longer per position. */
    int n = p->captured >= pr->captures_to_win ? 0 : count_moves(p);
    if (n == 0) {
        *pn = FB_INF, *dn = 0; /* no move: the side to move loses */
    } else if (pr->ply >= FB_MAX_DEPTH) {
        *pn = *dn = FB_INF / 2; /* too deep to look at: never worth expanding */
    } else {
        *pn = 1;
        *dn = 1;
    }
}

static bool out_of_budget(fb_prover_t *pr)
{
    if (pr->aborted)
        return true;
    if ((pr->max_nodes && pr->nodes >= pr->max_nodes) || (pr->stop && atomic_load(pr->stop)) ||
        ((++pr->checks & 255) == 0 && pr->deadline_ms && now_ms() >= pr->deadline_ms))
        pr->aborted = true;
    return pr->aborted;
}

/* Expands the current position until its pn reaches thpn or its dn thdn (or it is solved, or
 * the limits end the proof); *pn and *dn get its numbers. */
static void mid(fb_prover_t *pr, uint32_t thpn, uint32_t thdn, uint32_t *pn, uint32_t *dn)
{
    move_t moves[MAX_MOVES];
    uint32_t cpn[MAX_MOVES], cdn[MAX_MOVES];
    uint64_t key = node_key(pr), start = pr->nodes, ckey[MAX_MOVES];
    int n = legal_moves(pr, moves);
    pr->nodes++;
    prepare_children(pr);
    /* The children's table entries are fetched together (each is a cache miss). */
    for (int i = 0; i < n; i++) {
        push(pr, moves[i]);
        ckey[i] = node_key(pr);
        __builtin_prefetch(&pr->tt[(ckey[i] & (pr->buckets - 1)) * FB_BUCKET]);
        pop(pr);
    }
    for (int i = 0; i < n; i++) {
        const fb_entry_t *e = tt_find(pr, ckey[i]);
        if (e) {
            cpn[i] = e->pn, cdn[i] = e->dn;
        } else {
            push(pr, moves[i]);
            leaf_numbers(pr, &cpn[i], &cdn[i]);
            pop(pr);
        }
    }
    int best = -1;
    for (;;) {
        uint32_t p = FB_INF, d = 0, dn2 = FB_INF;
        best = -1;
        for (int i = 0; i < n; i++) {
            d = sat_add(d, cpn[i]);
            if (cdn[i] < p) {
                dn2 = p;
                p = cdn[i];
                best = i;
            } else if (cdn[i] < dn2) {
                dn2 = cdn[i];
            }
        }
        if (n == 0)
            p = FB_INF, d = 0;
        *pn = p, *dn = d;
        if (p >= thpn || d >= thdn || p == 0 || d == 0 || out_of_budget(pr))
            break;
        /* The child's dn may grow until another child is cheaper (with a little slack, so
         * that two close children do not take turns at every step), or the parent's pn
         * reaches its threshold; its pn until the parent's dn reaches its threshold. */
        uint32_t slack = dn2 >= FB_INF ? FB_INF : sat_add(dn2, dn2 / 4 + 1);
        uint32_t child_thdn = thpn < slack ? thpn : slack;
        uint32_t child_thpn = thdn >= FB_INF ? FB_INF : sat_add(thdn - d, cpn[best]);
        push(pr, moves[best]);
        mid(pr, child_thpn, child_thdn, &cpn[best], &cdn[best]);
        pop(pr);
    }
    uint64_t work = pr->nodes - start;
    tt_store(pr, key, *pn, *dn, work > UINT32_MAX ? UINT32_MAX : (uint32_t)work, best >= 0 ? moves[best] : MOVE_NONE);
}

/* The numbers of the current position's children, from the table (or as leaves). */
static int child_numbers(fb_prover_t *pr, move_t *moves, uint32_t *cpn, uint32_t *cdn, uint32_t *work)
{
    int n = legal_moves(pr, moves);
    prepare_children(pr);
    for (int i = 0; i < n; i++) {
        push(pr, moves[i]);
        const fb_entry_t *e = tt_find(pr, node_key(pr));
        if (e) {
            cpn[i] = e->pn, cdn[i] = e->dn, work[i] = e->work;
        } else {
            leaf_numbers(pr, &cpn[i], &cdn[i]);
            work[i] = 0;
        }
        pop(pr);
    }
    return n;
}

/* The move a solved or open node stands on: a child proven lost (a win), the child with the
 * most work (a loss: the most stubborn defence), else the most promising child. */
static int pick(int n, const uint32_t *cdn, const uint32_t *work, uint32_t pn)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (pn == 0) {
            if (cdn[i] == 0)
                return i;
        } else if (pn >= FB_INF) {
            if (best < 0 || work[i] > work[best])
                best = i;
        } else if (best < 0 || cdn[i] < cdn[best]) {
            best = i;
        }
    }
    return best;
}

/* Does the database (with the history) or the rules decide the current position? */
static bool decided(fb_prover_t *pr)
{
    uint32_t pn, dn;
    leaf_numbers(pr, &pn, &dn);
    return pn == 0 || dn == 0;
}

static fb_result_t prove_from(fb_prover_t *pr, const tb_t *tb, const game_t *g, move_t first,
                              const fb_limits_t *limits, fb_proof_t *out)
{
    int64_t start = now_ms();
    memset(out, 0, sizeof *out);
    pr->gen = (uint16_t)(pr->gen + 1 ? pr->gen + 1 : 1);
    pr->tb = tb;
    pr->game = g;
    pr->captures_to_win = tb_captures_to_win(tb);
    pr->ply = 0;
    pr->path[0] = *game_position(g);
    fb_history_init(&pr->bound[0], tb, g);
    memset(pr->acc, 0, sizeof pr->acc);
    memset(pr->filter, 0, sizeof pr->filter);
    pr->nodes = 0;
    pr->max_nodes = limits ? limits->nodes : 0;
    pr->deadline_ms = limits && limits->ms ? start + limits->ms : 0;
    pr->stop = limits ? limits->stop : NULL;
    pr->aborted = false;
    pr->leaf = limits ? limits->leaf : NULL;
    pr->leaf_ctx = limits ? limits->leaf_ctx : NULL;
    if (first != MOVE_NONE) {
        prepare_children(pr);
        push(pr, first);
    }
    int base = pr->ply;

    uint32_t pn, dn;
    leaf_numbers(pr, &pn, &dn);
    if (pn && dn)
        mid(pr, FB_INF, FB_INF, &pn, &dn);
    out->result = pn == 0 ? FB_WIN : dn == 0 ? FB_LOSS : FB_OPEN;

    /* The line: the winner's proving moves and the loser's most stubborn defence, down to a
     * position the database or the rules decide. */
    move_t moves[MAX_MOVES];
    uint32_t cpn[MAX_MOVES], cdn[MAX_MOVES], work[MAX_MOVES];
    uint32_t npn = pn;
    while (out->pv_len < FB_MAX_PV && pr->ply < FB_MAX_DEPTH && !(pr->ply > base && decided(pr))) {
        int n = child_numbers(pr, moves, cpn, cdn, work);
        int i = pick(n, cdn, work, npn);
        if (i < 0)
            break;
        out->pv[out->pv_len++] = moves[i];
        out->move = out->pv[0];
        if (npn != 0 && npn < FB_INF)
            break; /* open: only the first move means something */
        npn = cpn[i];
        push(pr, moves[i]);
    }
    while (pr->ply > 0)
        pop(pr);
    out->nodes = pr->nodes;
    out->ms = now_ms() - start;
    return out->result;
}

fb_result_t fb_prove(fb_prover_t *pr, const tb_t *tb, const game_t *g, const fb_limits_t *limits, fb_proof_t *out)
{
    return prove_from(pr, tb, g, MOVE_NONE, limits, out);
}

fb_result_t fb_prove_after(fb_prover_t *pr, const tb_t *tb, const game_t *g, move_t m, const fb_limits_t *limits,
                           fb_proof_t *out)
{
    return prove_from(pr, tb, g, m, limits, out);
}

void fb_settle(fb_prover_t *pr, const tb_t *tb, const game_t *g, move_t m, uint64_t prove_nodes, fb_settled_t *out)
{
    position_t p = *game_position(g);
    if (m != MOVE_NONE)
        position_make(&p, m);
    out->covered = tb_probe(tb, &p, &out->db);
    out->result = FB_OPEN;
    out->distance = TB_DISTANCE_UNKNOWN;
    out->proved = false;
    if (!out->covered)
        return;
    if (out->db.wdl != TB_DRAW) {
        fb_history_t h;
        fb_history_init(&h, tb, g);
        if (fb_value_holds(&h, &p, out->db) || fb_verify(tb, g, &p, out->db, 0)) {
            out->result = out->db.wdl == TB_WIN ? FB_WIN : FB_LOSS;
            out->distance = out->db.distance;
            return;
        }
    }
    if (pr && prove_nodes) {
        fb_limits_t lim = {prove_nodes, 0, NULL, NULL, NULL};
        fb_proof_t proof;
        out->result = prove_from(pr, tb, g, m, &lim, &proof);
        out->proved = out->result != FB_OPEN;
    }
}

void fb_settled_text(const fb_settled_t *s, bool after_move, char *buf, size_t len)
{
    int sign = after_move ? -1 : 1;
    if (s->result != FB_OPEN) {
        bool win = (s->result == FB_WIN) == (sign > 0);
        if (s->distance == TB_DISTANCE_UNKNOWN)
            snprintf(buf, len, "%s", win ? "win" : "loss");
        else
            snprintf(buf, len, "%s in %d", win ? "win" : "loss", s->distance + (after_move ? 1 : 0));
    } else if (s->db.wdl == TB_DRAW) {
        snprintf(buf, len, "open");
    } else {
        bool win = (s->db.wdl == TB_WIN) == (sign > 0);
        if (s->db.distance == TB_DISTANCE_UNKNOWN)
            snprintf(buf, len, "open (draw rule: %s)", win ? "win" : "loss");
        else
            snprintf(buf, len, "open (draw rule: %s in %d)", win ? "win" : "loss", s->db.distance + (after_move ? 1 : 0));
    }
}

/* The order of a settled child for the side that moves into it: larger is better. */
static int settled_order(const fb_settled_t *s)
{
    if (s->result == FB_LOSS)
        return 2000 - (s->distance == TB_DISTANCE_UNKNOWN ? 1000 : s->distance);
    if (s->result == FB_WIN)
        return -2000 + (s->distance == TB_DISTANCE_UNKNOWN ? 1000 : s->distance);
    if (s->db.wdl == TB_DRAW)
        return 0;
    int d = s->db.distance == TB_DISTANCE_UNKNOWN ? 250 : s->db.distance;
    return s->db.wdl == TB_LOSS ? 500 - d : -500 + d;
}

void fb_settle_moves(fb_prover_t *pr, const tb_t *tb, const game_t *g, move_t *moves, int n, uint64_t prove_nodes,
                     fb_settled_t *vals)
{
    int order[MAX_MOVES];
    for (int i = 0; i < n; i++) {
        fb_settled_t v;
        move_t m = moves[i];
        fb_settle(pr, tb, g, m, prove_nodes, &v);
        int j = i, o = settled_order(&v);
        for (; j > 0 && order[j - 1] < o; j--) {
            order[j] = order[j - 1];
            vals[j] = vals[j - 1];
            moves[j] = moves[j - 1];
        }
        order[j] = o;
        vals[j] = v;
        moves[j] = m;
    }
}
