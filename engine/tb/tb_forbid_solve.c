/* One movement slice of a reduced game solved under `forbid`, every position taken as a
 * game's start. The draw rule's wins and losses hold from a fresh history (the winner's
 * fastest line never repeats), and so does any position a retrograde pass decides, which is
 * why only the draws that pass leaves need the history: there the game is a walk through
 * those draws in which neither side may come back to a position, and the first position
 * outside them that it enters has only such draws behind it, so its value is exact. */
#define _POSIX_C_SOURCE 200809L
#include "message.h"
#include "tb_forbid.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
    NONE = 0xFFFFFFFFu,
    R_UNK = 0, R_WIN, R_LOSS, R_OPEN, /* a node's value for its side to move */
    MV_WIN = 0, MV_LOSS, MV_OPEN, MV_NODE, /* a move's outcome for its mover */
    MAX_DEPTH = 20000,
};

#define fail(e, ...) ((tb_error_t)bc_fail((e), __VA_ARGS__))

void tbf_options_init(tbf_options_t *o) { memset(o, 0, sizeof *o); }

typedef struct {
    uint64_t k1, k2;
    uint8_t val;
} memo_t;

typedef struct {
    const tb_index_t *ix;
    int c, K, k;              /* captured, captures to win, empty points */
    uint32_t ng, ng_up;
    uint64_t size;            /* entries per side */
    const uint8_t *db[SIDE_NB];
    const uint8_t *up;
    uint32_t *id[SIDE_NB];    /* entry -> node (a draw) or NONE */
    uint32_t nodes, ngoat;    /* nodes; those below ngoat are goats to move */
    uint32_t *entry;          /* node -> entry */
    uint8_t *res;             /* node -> R_* */
    uint8_t *searched;        /* node -> 1 when the search with the history settled it */
    /* The search with the history. */
    memo_t *memo;
    uint64_t memo_mask;
    uint64_t *hist;           /* open-addressed set of the line's positions (0 = free) */
    uint64_t hist_mask, x1, x2;
    uint64_t nodes_used, budget, total_nodes;
    bool aborted;
} fsolve_t;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A position as one number: tigers, goats, side (never 0: there are always tigers). */
static inline uint64_t pos_key(bb_t t, bb_t g, int side) { return (uint64_t)t | (uint64_t)g << 25 | (uint64_t)side << 50; }

/* The outcome of one move for its mover: the child (tigers t, goats g, side to move `side`,
 * in this slice unless captured) is a draw node, or an exact leaf. */
static int classify(const fsolve_t *s, bb_t t, bb_t g, int side, bool capture, uint32_t *node)
{
    int stab;
    bb_t e = BB_ALL & ~(t | g);
    if (capture) {
        if (s->c + 1 >= s->K)
            return MV_WIN;
        uint8_t v = s->up[tbi_entry(s->ix, t, e, s->ng_up, &stab)];
        return v == TBF_LOSS ? MV_WIN : v == TBF_WIN ? MV_LOSS : MV_OPEN;
    }
    uint32_t i = tbi_entry(s->ix, t, e, s->ng, &stab);
    uint32_t n = s->id[side][i];
    if (n != NONE) {
        *node = n;
        return MV_NODE;
    }
    uint8_t b = s->db[side][i];
    return (b & 1) ? MV_LOSS : MV_WIN; /* the child's side wins (odd) or loses (even) */
}

/* Runs the code after the position for every move of it, with the child (ct, cg) and
 * whether it captures (cap). */
#define FOR_MOVES(t, g, side, ...)                                                              \
    do {                                                                                         \
        bb_t e_ = BB_ALL & ~((t) | (g));                                                         \
        if ((side) == GOATS) {                                                                   \
            for (bb_t f_ = (g); f_; f_ &= f_ - 1) {                                              \
                int sq_ = bb_first(f_);                                                          \
                for (bb_t d_ = BC_STEPS[sq_] & e_; d_; d_ &= d_ - 1) {                           \
                    bb_t ct = (t), cg = (g) ^ bb_square(sq_) ^ bb_square(bb_first(d_));          \
                    bool cap = false;                                                            \
                    __VA_ARGS__                                                                  \
                }                                                                                \
            }                                                                                    \
        } else {                                                                                 \
            for (bb_t f_ = (t); f_; f_ &= f_ - 1) {                                              \
                int sq_ = bb_first(f_);                                                          \
                for (bb_t d_ = BC_STEPS[sq_] & e_; d_; d_ &= d_ - 1) {                           \
                    bb_t ct = (t) ^ bb_square(sq_) ^ bb_square(bb_first(d_)), cg = (g);          \
                    bool cap = false;                                                            \
                    __VA_ARGS__                                                                  \
                }                                                                                \
                for (int j_ = 0; j_ < BC_JUMP_COUNT[sq_]; j_++) {                                \
                    bc_jump_t J_ = BC_JUMPS[sq_][j_];                                            \
                    if (!((g) & bb_square(J_.over)) || !(e_ & bb_square(J_.to)))                 \
                        continue;                                                                \
                    bb_t ct = (t) ^ bb_square(sq_) ^ bb_square(J_.to), cg = (g) ^ bb_square(J_.over); \
                    bool cap = true;                                                             \
                    __VA_ARGS__                                                                  \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    } while (0)

fb_result_t tbf_above_leaf(void *above, const position_t *p)
{
    const tbf_above_t *b = above;
    if (!b->up || p->side != GOATS || p->in_hand || bb_count(p->goats) != tb_goats_total(b->tb) - b->c - 1)
        return FB_OPEN;
    int stab;
    bb_t e = BB_ALL & ~(p->tigers | p->goats);
    uint8_t v = b->up[tbi_entry(tb_index(b->tb), p->tigers, e, tb_slice_goat_sets(b->tb, b->c + 1), &stab)];
    return v == TBF_WIN ? FB_WIN : v == TBF_LOSS ? FB_LOSS : FB_OPEN;
}

static void node_position(const fsolve_t *s, uint32_t v, bb_t *t, bb_t *g)
{
    const tb_class_t *cl = &s->ix->cls[s->entry[v] / s->ng];
    bb_t e = tbi_unrank_free(s->ix, cl, s->entry[v] % s->ng, s->k);
    *t = cl->tigers;
    *g = BB_ALL & ~(cl->tigers | e);
}

/* ---- The retrograde pass over the draws -------------------------------------------- */

static tb_error_t retrograde(fsolve_t *s, char *msg, size_t msglen)
{
    uint32_t n = s->nodes;
    uint32_t *cnt = calloc((size_t)n + 1, sizeof *cnt), *off = calloc((size_t)n + 2, sizeof *off);
    uint32_t *queue = malloc(((size_t)n + 1) * sizeof *queue);
    uint32_t *par = NULL;
    tb_error_t err = TB_OK;
    if (!cnt || !off || !queue) {
        err = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
        goto out;
    }
    /* Counters (moves that do not lose outright), wins at once, and the in-degrees. */
    uint64_t edges = 0;
    uint32_t qn = 0;
    for (uint32_t v = 0; v < n; v++) {
        bb_t t, g;
        node_position(s, v, &t, &g);
        int side = v < s->ngoat ? GOATS : TIGERS;
        bool win = false;
        uint32_t c = 0;
        FOR_MOVES(t, g, side, {
            uint32_t w = NONE;
            int k = classify(s, ct, cg, !side, cap, &w);
            win |= k == MV_WIN;
            c += k == MV_NODE || k == MV_OPEN;
            if (k == MV_NODE)
                off[w + 1]++, edges++;
        });
        if (edges > 0xFFFFFFF0u) {
            err = fail(TB_ERR_LIMIT, msg, msglen, "too many moves between draws in slice %d", s->c);
            goto out;
        }
        cnt[v] = c;
        if (win || !c) {
            s->res[v] = win ? R_WIN : R_LOSS;
            queue[qn++] = v;
        }
    }
    for (uint32_t v = 0; v < n; v++)
        off[v + 1] += off[v];
    par = malloc((edges ? edges : 1) * sizeof *par);
    uint32_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!par || !fill) {
        free(fill);
        err = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
        goto out;
    }
    memcpy(fill, off, (size_t)n * sizeof *fill);
    for (uint32_t v = 0; v < n; v++) {
        bb_t t, g;
        node_position(s, v, &t, &g);
        int side = v < s->ngoat ? GOATS : TIGERS;
        FOR_MOVES(t, g, side, {
            uint32_t w = NONE;
            if (classify(s, ct, cg, !side, cap, &w) == MV_NODE)
                par[fill[w]++] = v;
        });
    }
    free(fill);
    /* A node lost makes each parent won; a node won takes a move off each parent. */
    for (uint32_t qi = 0; qi < qn; qi++) {
        uint32_t v = queue[qi];
        for (uint32_t j = off[v]; j < off[v + 1]; j++) {
            uint32_t u = par[j];
            if (s->res[u] != R_UNK)
                continue;
            if (s->res[v] == R_LOSS)
                s->res[u] = R_WIN, queue[qn++] = u;
            else if (--cnt[u] == 0)
                s->res[u] = R_LOSS, queue[qn++] = u;
        }
    }
out:
    free(cnt), free(off), free(queue), free(par);
    return err;
}

/* ---- The search with the history --------------------------------------------------- */

static bool hist_has(const fsolve_t *s, uint64_t key)
{
    for (uint64_t i = mix64(key) & s->hist_mask;; i = (i + 1) & s->hist_mask) {
        if (s->hist[i] == key)
            return true;
        if (!s->hist[i])
            return false;
    }
}

static void hist_add(fsolve_t *s, uint64_t key)
{
    uint64_t i = mix64(key) & s->hist_mask;
    while (s->hist[i])
        i = (i + 1) & s->hist_mask;
    s->hist[i] = key;
    s->x1 ^= mix64(key ^ 0x5851F42D4C957F2Dull);
    s->x2 ^= mix64(key ^ 0x14057B7EF767814Full);
}

/* Removal with backward shift, so that no probe sequence is cut. */
static void hist_del(fsolve_t *s, uint64_t key)
{
    uint64_t i = mix64(key) & s->hist_mask;
    while (s->hist[i] != key)
        i = (i + 1) & s->hist_mask;
    s->hist[i] = 0;
    for (uint64_t j = (i + 1) & s->hist_mask; s->hist[j]; j = (j + 1) & s->hist_mask) {
        uint64_t h = mix64(s->hist[j]) & s->hist_mask;
        /* Move the entry at j back into the hole at i when its home is not in (i, j]. */
        if (((j - h) & s->hist_mask) >= ((j - i) & s->hist_mask)) {
            s->hist[i] = s->hist[j];
            s->hist[j] = 0;
            i = j;
        }
    }
    s->x1 ^= mix64(key ^ 0x5851F42D4C957F2Dull);
    s->x2 ^= mix64(key ^ 0x14057B7EF767814Full);
}

/* The value for the side to move of (t, g, side) after the line in the history set, a
 * position of the search's draws (R_WIN, R_LOSS, or R_OPEN when an open leaf decides or the
 * budget ran out). */
static int search(fsolve_t *s, bb_t t, bb_t g, int side, int depth)
{
    if (++s->nodes_used > s->budget || depth > MAX_DEPTH) {
        s->aborted = true;
        return R_OPEN;
    }
    uint64_t key = pos_key(t, g, side);
    uint64_t k1 = mix64(key * 0x9E3779B97F4A7C15ull) ^ s->x1, k2 = mix64(key + 0xD1B54A32D192ED03ull) ^ s->x2;
    memo_t *m = &s->memo[k1 & s->memo_mask];
    if (m->val && m->k1 == k1 && m->k2 == k2)
        return m->val;
    bool open = false, win = false;
    FOR_MOVES(t, g, side, {
        if (!win) {
            uint32_t w = NONE;
            int k = classify(s, ct, cg, !side, cap, &w);
            if (k == MV_NODE)
                k = s->res[w] == R_WIN ? MV_LOSS : s->res[w] == R_LOSS ? MV_WIN : MV_NODE;
            win |= k == MV_WIN;
            open |= k == MV_OPEN;
        }
    });
    if (!win) {
        hist_add(s, key);
        FOR_MOVES(t, g, side, {
            if (!win && !s->aborted) {
                uint32_t w = NONE;
                if (classify(s, ct, cg, !side, cap, &w) == MV_NODE && s->res[w] != R_WIN && s->res[w] != R_LOSS &&
                    !hist_has(s, pos_key(ct, cg, !side))) {
                    int r = search(s, ct, cg, !side, depth + 1);
                    win |= r == R_LOSS;
                    open |= r == R_OPEN;
                }
            }
        });
        hist_del(s, key);
    }
    int r = win ? R_WIN : open ? R_OPEN : R_LOSS;
    if (s->aborted && !win)
        return R_OPEN;
    m->k1 = k1, m->k2 = k2, m->val = (uint8_t)r;
    return r;
}

/* ---- The slice --------------------------------------------------------------------- */

/* ---- The checkpoint: what a slice's solve has done, root by root ---------------------- */

/* A root's state byte: its value (R_*, after the settling when that was tried) and flags. */
enum { CK_VAL = 3, CK_SEARCHED = 4, CK_ABORTED = 8, CK_SETTLE_TRIED = 16, CK_SETTLED = 32 };
enum { CK_HEAD = 64 };
static const char CK_MAGIC[8] = {'B', 'C', 'F', 'C', 'K', 'P', 'T', '1'};

/* What a checkpoint must have been written for: the slice, its nodes, the database's values
 * of the slice and the one above, and the budgets. */
static uint64_t ck_key(const fsolve_t *s, const tb_t *tb, const tbf_options_t *o)
{
    uint64_t k = tb_checksum(s->db[GOATS], s->size) ^ mix64(tb_checksum(s->db[TIGERS], s->size));
    if (s->up)
        k ^= mix64(tb_checksum(s->up, tb_slice_entries(tb, s->c + 1)) + 1);
    k ^= mix64(((uint64_t)s->c << 40) ^ ((uint64_t)s->nodes << 8) ^ 0x5Bu);
    k ^= mix64(o->root_nodes + 0x100000000ull * (o->settle != NULL));
    return k;
}

/* Reads the checkpoint into state (nodes bytes) and the nodes searched so far; false when
 * there is none or it was written for something else (then the solve starts afresh). */
static bool ck_read(const char *path, uint64_t key, uint32_t nodes, uint8_t *state, uint64_t *total_nodes)
{
    uint8_t h[CK_HEAD];
    /* Only a regular file: a FIFO put in its place would wait for a writer for good. */
    int fd = tb_open_regular(path, O_RDONLY, NULL, 0);
    if (fd < 0)
        return false;
    bool ok = tb_pread_all(fd, h, CK_HEAD, 0) && !memcmp(h, CK_MAGIC, 8) && tb_get_le(h + 8, 8) == key &&
              tb_get_le(h + 16, 4) == nodes && tb_pread_all(fd, state, nodes, CK_HEAD) &&
              tb_get_le(h + 32, 8) == tb_checksum(state, nodes);
    if (ok)
        *total_nodes = tb_get_le(h + 24, 8);
    close(fd);
    return ok;
}

/* Writes the checkpoint whole under a temporary name, then renames it over the old one. */
static tb_error_t ck_write(const char *path, uint64_t key, uint32_t nodes, const uint8_t *state, uint64_t total_nodes,
                           char *msg, size_t msglen)
{
    char tmp[TB_PATH_MAX + 16], sp[TB_PATH_SHOWN];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    uint8_t h[CK_HEAD] = {0};
    memcpy(h, CK_MAGIC, 8);
    tb_put_le(h + 8, key, 8);
    tb_put_le(h + 16, nodes, 4);
    tb_put_le(h + 24, total_nodes, 8);
    tb_put_le(h + 32, tb_checksum(state, nodes), 8);
    int fd = tb_open_regular(tmp, O_WRONLY | O_CREAT | O_TRUNC, msg, msglen);
    if (fd < 0)
        return TB_ERR_IO;
    bool ok = tb_pwrite_all(fd, h, CK_HEAD, 0) && tb_pwrite_all(fd, state, nodes, CK_HEAD);
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        int err = errno;
        unlink(tmp);
        return fail(TB_ERR_IO, msg, msglen, "cannot write %s: %s", tb_path_shown(path, sp), strerror(err));
    }
    return TB_OK;
}

/* What is done since the solve of the slice started (or resumed), and when the checkpoint
 * is written: after each root's work, root_done counts it, writes the checkpoint when it is
 * due, and says whether the run must stop (the stop a test asks for, or a failed write: err);
 * stopped() then writes what was done. With threads it is called under the settling's lock. */
typedef struct {
    const char *path; /* the checkpoint; NULL: none */
    uint64_t key;
    const fsolve_t *s;
    const uint8_t *state;
    uint64_t work, stop_after;
    double every, last;
    tb_error_t err;
    char *msg;
    size_t msglen;
} ck_run_t;

static tb_error_t ck_save(ck_run_t *k)
{
    if (k->path && k->err == TB_OK)
        k->err = ck_write(k->path, k->key, k->s->nodes, k->state, k->s->total_nodes, k->msg, k->msglen);
    k->last = tb_now_s();
    return k->err;
}

static bool root_done(ck_run_t *k)
{
    k->work++;
    if (k->stop_after && k->work >= k->stop_after)
        return true;
    if (k->path && tb_now_s() - k->last >= k->every)
        ck_save(k);
    return k->err != TB_OK;
}

/* The stop a test asked for, once the checkpoint has what was done. */
static tb_error_t stopped(ck_run_t *k)
{
    if (ck_save(k) != TB_OK)
        return k->err;
    return fail(TB_ERR_LIMIT, k->msg, k->msglen, "stopped after %llu roots, as asked", (unsigned long long)k->work);
}

/* ---- The settling, on one thread or several ------------------------------------------- */

typedef struct {
    const fsolve_t *s;
    const tbf_options_t *o;
    int n, c;
    uint8_t *state;                /* written under mu */
    const uint32_t *todo;          /* the roots to settle, in order */
    tbf_above_t above;
    uint64_t ntodo, done, total;   /* done: settled in all (read back included), for progress */
    atomic_uint_fast64_t next;
    atomic_bool stop;
    pthread_mutex_t mu;
    ck_run_t *ck;                  /* under mu */
} settle_job_t;

typedef struct {
    settle_job_t *j;
    void *ctx;
} settle_arg_t;

static void *settle_worker(void *arg)
{
    settle_arg_t *a = arg;
    settle_job_t *j = a->j;
    const fsolve_t *s = j->s;
    for (;;) {
        if (atomic_load(&j->stop))
            break;
        uint64_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->ntodo)
            break;
        uint32_t v = j->todo[i];
        position_t p;
        tb_index_position_game(s->ix, j->n, j->c, v < s->ngoat ? GOATS : TIGERS, s->entry[v], &p);
        int r = j->o->settle(a->ctx, &p, &j->above);
        pthread_mutex_lock(&j->mu);
        uint8_t st = j->state[v] | CK_SETTLE_TRIED;
        if (r != TBF_OPEN)
            st = (uint8_t)((st & ~CK_VAL) | (r == TBF_WIN ? R_WIN : R_LOSS) | CK_SETTLED);
        j->state[v] = st;
        if (root_done(j->ck))
            atomic_store(&j->stop, true);
        if (j->o->settle_progress)
            j->o->settle_progress(j->o->ctx, j->c, ++j->done, j->total);
        pthread_mutex_unlock(&j->mu);
    }
    return NULL;
}

static void count(tbf_layer_stats_t *st, int side, int val, uint64_t w)
{
    st->draws[side] += w;
    if (val == TBF_WIN)
        st->won[side] += w;
    else if (val == TBF_LOSS)
        st->lost[side] += w;
    else
        st->open[side] += w;
}

tb_error_t tbf_solve_slice(const tb_t *tb, int c, const uint8_t *up, const tbf_options_t *o, uint8_t *out[SIDE_NB],
                           tbf_layer_stats_t *st, char *msg, size_t msglen)
{
    int K = tb_captures_to_win(tb), n = tb_goats_total(tb);
    if (c < 0 || c >= K || (c + 1 < K && !up))
        return fail(TB_ERR_ARGUMENT, msg, msglen, "slice %d: no slice above", c);
    fsolve_t s = {0};
    s.ix = tb_index(tb), s.c = c, s.K = K, s.k = 21 - n + c;
    s.ng = tb_slice_goat_sets(tb, c);
    s.ng_up = c + 1 < K ? tb_slice_goat_sets(tb, c + 1) : 0;
    s.size = tb_slice_entries(tb, c);
    s.up = up;
    memset(st, 0, sizeof *st);
    tb_error_t err = TB_OK;
    for (int side = 0; side < SIDE_NB; side++)
        s.db[side] = tb_slice_values(tb, c, side);
    /* The draws' canonical entries become the nodes, goats to move first. */
    for (int side = 0; side < SIDE_NB && err == TB_OK; side++) {
        if (!(s.id[side] = malloc(s.size * sizeof *s.id[side])))
            err = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    }
    uint64_t nn = 0;
    for (int side = 0; side < SIDE_NB && err == TB_OK; side++) {
        for (uint64_t i = 0; i < s.size; i++) {
            position_t p;
            bool canon = s.db[side][i] == 0xFF && tb_index_position_game(s.ix, n, c, side, i, &p);
            s.id[side][i] = canon ? (uint32_t)nn++ : NONE;
        }
        if (side == GOATS)
            s.ngoat = (uint32_t)nn;
    }
    if (err == TB_OK && nn >= NONE)
        err = fail(TB_ERR_LIMIT, msg, msglen, "too many draws in slice %d", c);
    s.nodes = (uint32_t)nn;
    if (err == TB_OK && (!(s.entry = malloc((nn + 1) * sizeof *s.entry)) || !(s.res = calloc(nn + 1, 1)) ||
                         !(s.searched = calloc(nn + 1, 1))))
        err = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    if (err == TB_OK)
        for (int side = 0; side < SIDE_NB; side++)
            for (uint64_t i = 0; i < s.size; i++)
                if (s.id[side][i] != NONE)
                    s.entry[s.id[side][i]] = (uint32_t)i;
    if (err == TB_OK)
        err = retrograde(&s, msg, msglen);
    /* The search, for each draw the retrograde pass left. */
    uint64_t roots = 0, done = 0;
    for (uint32_t v = 0; v < s.nodes && err == TB_OK; v++)
        roots += s.res[v] == R_UNK;
    st->core = roots;
    if (err == TB_OK && roots) {
        size_t mb = o && o->memo_mb ? o->memo_mb : 64;
        uint64_t slots = 1;
        while (slots * 2 * sizeof(memo_t) <= (uint64_t)mb << 20)
            slots *= 2;
        s.memo = calloc(slots, sizeof *s.memo);
        s.memo_mask = slots - 1;
        s.hist_mask = (1u << 16) - 1; /* room for lines of MAX_DEPTH positions */
        s.hist = calloc(s.hist_mask + 1, sizeof *s.hist);
        if (!s.memo || !s.hist)
            err = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
        /* Each root's state: read back from the checkpoint, or all to do. */
        uint8_t *state = err == TB_OK ? calloc(s.nodes ? s.nodes : 1, 1) : NULL;
        if (err == TB_OK && !state)
            err = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
        ck_run_t ck = {.path = o ? o->checkpoint : NULL, .s = &s, .state = state,
                       .stop_after = o ? o->stop_after : 0, .every = o && o->checkpoint_s > 0 ? o->checkpoint_s : 30.0,
                       .last = tb_now_s(), .err = TB_OK, .msg = msg, .msglen = msglen};
        if (err == TB_OK && ck.path) {
            ck.key = ck_key(&s, tb, o);
            if (!ck_read(ck.path, ck.key, s.nodes, state, &s.total_nodes))
                memset(state, 0, s.nodes), s.total_nodes = 0;
        }
        for (uint32_t v = 0; v < s.nodes && err == TB_OK; v++) {
            if (s.res[v] != R_UNK)
                continue;
            if (state[v] & CK_SEARCHED) {
                st->resumed++;
            } else {
                bb_t t, g;
                node_position(&s, v, &t, &g);
                s.nodes_used = 0, s.aborted = false;
                s.budget = o && o->root_nodes ? o->root_nodes : 2000000;
                int r = search(&s, t, g, v < s.ngoat ? GOATS : TIGERS, 0);
                s.total_nodes += s.nodes_used;
                state[v] = (uint8_t)(r | CK_SEARCHED | (s.aborted && r == R_OPEN ? CK_ABORTED : 0));
                if (root_done(&ck))
                    err = ck.err != TB_OK ? ck.err : stopped(&ck);
            }
            st->aborted += (state[v] & CK_ABORTED) != 0;
            if (o && o->progress && ++done)
                o->progress(o->ctx, c, done, roots);
        }
        /* What the search left open goes to the settler, when there is one: the roots read
         * back first (counted as done), then the rest on the threads. */
        uint64_t to_settle = 0, settled_done = 0, ntodo = 0;
        uint32_t *todo = NULL;
        for (uint32_t v = 0; v < s.nodes && err == TB_OK && o && o->settle; v++)
            to_settle += s.res[v] == R_UNK && ((state[v] & CK_VAL) == R_OPEN || (state[v] & CK_SETTLE_TRIED));
        if (err == TB_OK && to_settle && !(todo = malloc(to_settle * sizeof *todo)))
            err = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
        for (uint32_t v = 0; v < s.nodes && err == TB_OK && to_settle; v++) {
            if (s.res[v] != R_UNK || ((state[v] & CK_VAL) != R_OPEN && !(state[v] & CK_SETTLE_TRIED)))
                continue;
            if (state[v] & CK_SETTLE_TRIED) {
                st->resumed++;
                if (o->settle_progress)
                    o->settle_progress(o->ctx, c, ++settled_done, to_settle);
            } else {
                todo[ntodo++] = v;
            }
        }
        if (err == TB_OK && ntodo) {
            int nt = o->settle_threads > 1 && o->settle_ctxs ? o->settle_threads : 1;
            nt = nt > TB_MAX_THREADS ? TB_MAX_THREADS : nt;
            settle_job_t j = {.s = &s, .o = o, .n = n, .c = c, .state = state, .todo = todo, .ntodo = ntodo,
                              .done = settled_done, .total = to_settle, .ck = &ck, .above = {tb, c, up}};
            atomic_init(&j.next, 0);
            atomic_init(&j.stop, false);
            pthread_mutex_init(&j.mu, NULL);
            settle_arg_t args[TB_MAX_THREADS];
            void *argp[TB_MAX_THREADS];
            for (int t = 0; t < nt; t++) {
                args[t].j = &j, args[t].ctx = nt > 1 ? o->settle_ctxs[t] : o->settle_ctx;
                argp[t] = &args[t];
            }
            tb_run_threads(nt, settle_worker, argp);
            pthread_mutex_destroy(&j.mu);
            err = ck.err;
            if (err == TB_OK && atomic_load(&j.stop))
                err = stopped(&ck);
        }
        free(todo);
        for (uint32_t v = 0; v < s.nodes && err == TB_OK; v++)
            st->settled += s.res[v] == R_UNK && (state[v] & CK_SETTLED) != 0;
        /* The search read the retrograde values only: its results join them at the end. */
        for (uint32_t v = 0; v < s.nodes && err == TB_OK; v++)
            if (s.res[v] == R_UNK)
                s.res[v] = state[v] & CK_VAL, s.searched[v] = 1;
        free(state);
    }
    st->search_nodes = s.total_nodes;
    /* The values of every entry: canonical ones first, then the repeats from them. */
    for (int side = 0; side < SIDE_NB && err == TB_OK; side++) {
        for (uint64_t i = 0; i < s.size; i++) {
            uint32_t v = s.id[side][i];
            uint8_t b = s.db[side][i];
            out[side][i] = v != NONE ? (s.res[v] == R_WIN ? TBF_WIN : s.res[v] == R_LOSS ? TBF_LOSS : TBF_OPEN)
                           : (b & 1)  ? TBF_WIN
                                      : TBF_LOSS;
        }
        for (uint64_t i = 0; i < s.size; i++) {
            position_t p;
            if (!tb_index_position_game(s.ix, n, c, side, i, &p)) {
                int stab;
                out[side][i] = out[side][tbi_entry(s.ix, p.tigers, position_empty(&p), s.ng, &stab)];
            }
        }
        for (uint64_t i = 0; i < s.size; i++) {
            if (s.db[side][i] != 0xFF)
                continue;
            uint64_t w = s.ix->cls[i / s.ng].orbit;
            count(st, side, out[side][i], w);
            position_t p;
            int stab;
            tb_index_position_game(s.ix, n, c, side, i, &p);
            uint32_t v = s.id[side][tbi_entry(s.ix, p.tigers, position_empty(&p), s.ng, &stab)];
            if (v != NONE && !s.searched[v])
                st->by_retro[side] += w;
        }
    }
    free(s.id[0]), free(s.id[1]), free(s.entry), free(s.res), free(s.searched), free(s.memo), free(s.hist);
    return err;
}
