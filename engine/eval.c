/* Evaluation terms on bitboards. */
#include "eval.h"

#include <stdio.h>
#include <string.h>

#include "movegen.h"

const eval_weight_t EVAL_WEIGHTS[EV_TERM_NB] = {
    [EV_CAPTURED] = {"captured", -110, -140},
    [EV_TIGER_MOBILITY] = {"tiger mobility", -3, -6},
    [EV_TRAPPED_TIGERS] = {"trapped tigers", 25, 45},
    [EV_CAPTURABLE] = {"capturable goats", -30, -35},
    [EV_HANGING] = {"hanging goats", -60, -70},
    [EV_VULNERABLE] = {"vulnerable goats", -6, -8},
    [EV_SAFE_GOATS] = {"safe goats", 4, 6},
    [EV_EDGE_GOATS] = {"edge goats", 6, 2},
    [EV_CORNER_GOATS] = {"corner goats", 6, 0},
    [EV_TIGER_SPACE] = {"tiger space", -2, -3},
    [EV_TIGER_CENTRE] = {"tiger on 8-line points", -4, -4},
    [EV_TEMPO] = {"tempo (side to move)", 5, 5},
    [EV_CONSTANT] = {"constant", 0, 0},
    [EV_GOATS_CORNER] = {"goats on corners", 0, 0},
    [EV_GOATS_EDGE_SIDE] = {"goats on edges by corners", 0, 0},
    [EV_GOATS_EDGE_MID] = {"goats on edge middles", 0, 0},
    [EV_GOATS_INNER_DIAG] = {"goats on B2 D2 B4 D4", 0, 0},
    [EV_GOATS_INNER_ORTH] = {"goats on C2 B3 D3 C4", 0, 0},
    [EV_GOATS_CENTRE] = {"goats on C3", 0, 0},
    [EV_TIGERS_CORNER] = {"tigers on corners", 0, 0},
    [EV_TIGERS_EDGE_SIDE] = {"tigers on edges by corners", 0, 0},
    [EV_TIGERS_EDGE_MID] = {"tigers on edge middles", 0, 0},
    [EV_TIGERS_INNER_DIAG] = {"tigers on B2 D2 B4 D4", 0, 0},
    [EV_TIGERS_INNER_ORTH] = {"tigers on C2 B3 D3 C4", 0, 0},
    [EV_TIGERS_CENTRE] = {"tigers on C3", 0, 0},
};

/* The six kinds of point the 8 symmetries leave, in the order of the terms. */
static const bb_t POINT_CLASS[6] = {0x1100011u, 0xA8822Au, 0x404404u, 0x50140u, 0x22880u, 0x1000u};

#define EDGE_POINTS ((bb_t)0x1F8C63Fu)
#define CORNER_POINTS ((bb_t)0x1100011u)
/* Points with (column + row) even: they have diagonal lines. */
#define EIGHT_LINE_POINTS ((bb_t)0x1555555u)

static bb_t neighbours(bb_t set)
{
    bb_t n = 0;
    for (int d = 0; d < BC_DIR_NB; d++)
        n |= bb_shift(set & BC_DIRS[d].step_from, BC_DIRS[d].shift);
    return n;
}

/* Goats g with some line a-g-b where neither a nor b holds a goat. */
static bb_t open_line_goats(bb_t goats)
{
    bb_t open = BB_ALL & ~goats, hit = 0;
    for (int d = 0; d < BC_DIR_NB; d++) {
        int s = BC_DIRS[d].shift;
        bb_t over = bb_shift(open & BC_DIRS[d].jump_from, s) & goats;
        hit |= bb_shift(bb_shift(over, s) & open, -s);
    }
    return hit;
}

/* Empty points connected to a tiger through empty points. */
static bb_t tiger_reach(bb_t tigers, bb_t empty)
{
    bb_t reach = neighbours(tigers) & empty, prev;
    do {
        prev = reach;
        reach |= neighbours(reach) & empty;
    } while (reach != prev);
    return reach;
}

static int trapped_tigers(bb_t tigers, bb_t goats)
{
    int n = 0;
    for (bb_t t = tigers; t; t &= t - 1) {
        bb_t one = t & -t;
        if (count_tiger_moves(one, goats | (tigers & ~one)) == 0)
            n++;
    }
    return n;
}

static inline int evaluate(const eval_params_t *w, const position_t *p, eval_trace_t *trace)
{
    int c[EV_TERM_NB];
    bb_t empty = position_empty(p);
    bb_t capturable = capturable_goats(p->tigers, p->goats);
    bb_t vulnerable = open_line_goats(p->goats);
    int ncap = bb_count(capturable);

    c[EV_CAPTURED] = p->captured;
    c[EV_TIGER_MOBILITY] = count_tiger_moves(p->tigers, p->goats);
    c[EV_TRAPPED_TIGERS] = trapped_tigers(p->tigers, p->goats);
    c[EV_CAPTURABLE] = ncap;
    c[EV_HANGING] = p->side == TIGERS ? (ncap > 0) : (ncap >= 2);
    c[EV_VULNERABLE] = bb_count(vulnerable & ~capturable);
    c[EV_SAFE_GOATS] = bb_count(p->goats & ~vulnerable);
    c[EV_EDGE_GOATS] = bb_count(p->goats & EDGE_POINTS);
    c[EV_CORNER_GOATS] = bb_count(p->goats & CORNER_POINTS);
    c[EV_TIGER_SPACE] = bb_count(tiger_reach(p->tigers, empty));
    c[EV_TIGER_CENTRE] = bb_count(p->tigers & EIGHT_LINE_POINTS);
    c[EV_TEMPO] = p->side == GOATS ? 1 : -1;
    c[EV_CONSTANT] = 1;
    for (int k = 0; k < 6; k++) {
        c[EV_GOATS_CORNER + k] = bb_count(p->goats & POINT_CLASS[k]);
        c[EV_TIGERS_CORNER + k] = bb_count(p->tigers & POINT_CLASS[k]);
    }

    int mg = 0, eg = 0;
    for (int i = 0; i < EV_TERM_NB; i++) {
        mg += c[i] * w->mg[i];
        eg += c[i] * w->eg[i];
    }
    int placed = BC_GOATS_TOTAL - p->in_hand;
    int total = (mg * p->in_hand + eg * placed) / BC_GOATS_TOTAL;
    if (trace) {
        memset(trace, 0, sizeof *trace);
        for (int i = 0; i < EV_TERM_NB; i++) {
            trace->count[i] = c[i];
            trace->value[i] = (c[i] * w->mg[i] * p->in_hand + c[i] * w->eg[i] * placed) / BC_GOATS_TOTAL;
        }
        trace->total = total;
    }
    return total;
}

/* The units' inputs from scratch. */
static void net_fill(const eval_net_t *n, eval_cache_t *c, const position_t *p)
{
    int h = n->hidden;
    int32_t *restrict acc = c->acc;
    int hand = p->in_hand * 5, cap = p->captured * 20, side = p->side == GOATS ? 100 : 0;
    for (int i = 0; i < h; i++)
        acc[i] = n->bias[i] + hand * n->scalar[0][i] + cap * n->scalar[1][i] + side * n->scalar[2][i];
    for (int piece = 0; piece < 2; piece++)
        for (bb_t b = piece ? p->tigers : p->goats; b; b &= b - 1) {
            const int32_t *restrict row = n->board[piece][bb_first(b)];
            for (int i = 0; i < h; i++)
                acc[i] += row[i];
        }
}

static inline void net_add(int32_t *restrict acc, const int32_t *restrict row, int h, int32_t times)
{
    for (int i = 0; i < h; i++)
        acc[i] += times * row[i];
}

static inline void net_sub(int32_t *restrict acc, const int32_t *restrict row, int h)
{
    for (int i = 0; i < h; i++)
        acc[i] -= row[i];
}

/* The units' inputs of p in c: from those of c's last position when fewer inputs differ than
 * p has pieces, else from scratch. */
static void net_refresh(const eval_net_t *n, eval_cache_t *c, const position_t *p)
{
    int h = n->hidden, side = p->side == GOATS;
    bb_t g_on = p->goats & ~c->goats, g_off = c->goats & ~p->goats;
    bb_t t_on = p->tigers & ~c->tigers, t_off = c->tigers & ~p->tigers;
    if (!c->valid || bb_count(g_on | g_off) + bb_count(t_on | t_off) > bb_count(p->goats | p->tigers)) {
        net_fill(n, c, p);
    } else {
        for (; g_on; g_on &= g_on - 1)
            net_add(c->acc, n->board[0][bb_first(g_on)], h, 1);
        for (; t_on; t_on &= t_on - 1)
            net_add(c->acc, n->board[1][bb_first(t_on)], h, 1);
        for (; g_off; g_off &= g_off - 1)
            net_sub(c->acc, n->board[0][bb_first(g_off)], h);
        for (; t_off; t_off &= t_off - 1)
            net_sub(c->acc, n->board[1][bb_first(t_off)], h);
        if (p->in_hand != c->in_hand)
            net_add(c->acc, n->scalar[0], h, 5 * (p->in_hand - c->in_hand));
        if (p->captured != c->captured)
            net_add(c->acc, n->scalar[1], h, 20 * (p->captured - c->captured));
        if (side != c->side)
            net_add(c->acc, n->scalar[2], h, side ? 100 : -100);
    }
    c->valid = true;
    c->goats = p->goats;
    c->tigers = p->tigers;
    c->in_hand = p->in_hand;
    c->captured = p->captured;
    c->side = side;
}

/* The output from the units' inputs, in centi-goats. */
static int net_output(const eval_net_t *n, const int32_t *restrict acc)
{
    int64_t out = (int64_t)n->out_bias * 100;
    for (int i = 0; i < n->hidden; i++)
        out += (int64_t)(acc[i] > 0 ? acc[i] : 0) * n->out[i];
    /* Beyond EVAL_NET_KNEE the network's certainty grows slowly, as the terms' values do: a
     * near-won position keeps its search (and its proof) rather than a cut on its value. */
    int64_t v = out * EVAL_NET_CP / (100 * 64 * 64), a = v < 0 ? -v : v;
    if (a > EVAL_NET_KNEE)
        a = EVAL_NET_KNEE + (a - EVAL_NET_KNEE) / 8;
    return (int)(v < 0 ? -a : a);
}

int eval_net(const eval_net_t *n, const position_t *p)
{
    eval_cache_t c;
    net_fill(n, &c, p);
    return net_output(n, c.acc);
}

int eval_net_cached(const eval_net_t *n, eval_cache_t *c, const position_t *p)
{
    net_refresh(n, c, p);
    return net_output(n, c->acc);
}

int eval_position(const eval_params_t *w, const position_t *p)
{
    /* With the network, the mean of its value and the terms': each knows what the other
     * misses (the terms count moves and threats, the network sees the points' pattern). */
    int v = w->use_net ? (eval_net(&w->net, p) + evaluate(w, p, NULL)) / 2 : evaluate(w, p, NULL);
    return p->side == GOATS ? v : -v;
}

int eval_position_cached(const eval_params_t *w, eval_cache_t *c, const position_t *p)
{
    int v = w->use_net ? (eval_net_cached(&w->net, c, p) + evaluate(w, p, NULL)) / 2 : evaluate(w, p, NULL);
    return p->side == GOATS ? v : -v;
}

int eval_trace(const eval_params_t *w, const position_t *p, eval_trace_t *trace)
{
    return evaluate(w, p, trace);
}

/* ---- the weights file ------------------------------------------------------------ */

void eval_params_hand(eval_params_t *out)
{
    out->use_net = false;
    for (int i = 0; i < EV_TERM_NB; i++) {
        out->mg[i] = (int16_t)EVAL_WEIGHTS[i].mg;
        out->eg[i] = (int16_t)EVAL_WEIGHTS[i].eg;
    }
}

uint32_t eval_fnv1a(const uint8_t *data, size_t len, uint32_t h)
{
    for (size_t i = 0; i < len; i++)
        h = (h ^ data[i]) * 16777619u;
    return h;
}

enum { FNV_START = 2166136261u };

uint32_t eval_terms_id(void)
{
    uint32_t h = FNV_START;
    for (int i = 0; i < EV_TERM_NB; i++) {
        h = eval_fnv1a((const uint8_t *)EVAL_WEIGHTS[i].name, strlen(EVAL_WEIGHTS[i].name), h);
        h = eval_fnv1a((const uint8_t *)"\n", 1, h);
    }
    return h;
}

static unsigned get16(const uint8_t *b) { return (unsigned)b[0] | (unsigned)b[1] << 8; }
static uint32_t get32(const uint8_t *b) { return (uint32_t)get16(b) | (uint32_t)get16(b + 2) << 16; }
static void put16(uint8_t *b, unsigned v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *b, uint32_t v)
{
    put16(b, v & 0xFFFFu);
    put16(b + 2, v >> 16);
}

void eval_params_write(const eval_params_t *w, uint8_t out[EVAL_FILE_SIZE])
{
    memcpy(out, "BCEV", 4);
    put16(out + 4, EVAL_FILE_VERSION);
    put16(out + 6, EV_TERM_NB);
    put32(out + 8, eval_terms_id());
    for (int i = 0; i < EV_TERM_NB; i++) {
        put16(out + EVAL_FILE_HEADER + 4 * i, (uint16_t)w->mg[i]);
        put16(out + EVAL_FILE_HEADER + 4 * i + 2, (uint16_t)w->eg[i]);
    }
    put32(out + EVAL_FILE_SIZE - 4, eval_fnv1a(out, EVAL_FILE_SIZE - 4, FNV_START));
}

/* Falls back to the hand-set weights. */
static bool refuse(eval_params_t *out)
{
    eval_params_hand(out);
    return false;
}

bool eval_params_load(eval_params_t *out, const uint8_t *data, size_t len, char *msg, size_t msglen)
{
    if (len < EVAL_FILE_HEADER || memcmp(data, "BCEV", 4) != 0) {
        if (msglen)
            snprintf(msg, msglen, "not an evaluation weights file (%zu bytes)", len);
        return refuse(out);
    }
    unsigned version = get16(data + 4), terms = get16(data + 6);
    if (version != EVAL_FILE_VERSION) {
        if (msglen)
            snprintf(msg, msglen, "weights file version %u, this program reads version %d", version,
                     EVAL_FILE_VERSION);
        return refuse(out);
    }
    if (terms != EV_TERM_NB || get32(data + 8) != eval_terms_id()) {
        if (msglen)
            snprintf(msg, msglen, "weights made for another list of terms (%u terms, this program has %d)", terms,
                     EV_TERM_NB);
        return refuse(out);
    }
    if (len != EVAL_FILE_SIZE) {
        if (msglen)
            snprintf(msg, msglen, "weights file of %zu bytes, expected %d", len, EVAL_FILE_SIZE);
        return refuse(out);
    }
    if (get32(data + EVAL_FILE_SIZE - 4) != eval_fnv1a(data, EVAL_FILE_SIZE - 4, FNV_START)) {
        if (msglen)
            snprintf(msg, msglen, "weights file checksum mismatch");
        return refuse(out);
    }
    out->use_net = false;
    for (int i = 0; i < EV_TERM_NB; i++) {
        out->mg[i] = (int16_t)get16(data + EVAL_FILE_HEADER + 4 * i);
        out->eg[i] = (int16_t)get16(data + EVAL_FILE_HEADER + 4 * i + 2);
    }
    return true;
}

/* ---- the network file ------------------------------------------------------------ */

size_t eval_net_file_size(int k) { return EVAL_NET_HEADER + 2 * (size_t)k * (50 + 3 + 2) + 4 + 4; }

/* The 8 symmetries of the board as maps of (row, column), identity first: net.py's order. */
static int sym_point(int s, int sq)
{
    int r = sq / 5, c = sq % 5, rr, cc;
    switch (s) {
    case 0: rr = r, cc = c; break;
    case 1: rr = c, cc = 4 - r; break;
    case 2: rr = 4 - r, cc = 4 - c; break;
    case 3: rr = 4 - c, cc = r; break;
    case 4: rr = r, cc = 4 - c; break;
    case 5: rr = 4 - r, cc = c; break;
    case 6: rr = c, cc = r; break;
    default: rr = 4 - c, cc = 4 - r; break;
    }
    return rr * 5 + cc;
}

bool eval_net_load(eval_params_t *w, const uint8_t *data, size_t len, char *msg, size_t msglen)
{
    w->use_net = false;
    if (len < EVAL_NET_HEADER || memcmp(data, "BCNN", 4) != 0) {
        if (msglen)
            snprintf(msg, msglen, "not an evaluation network file (%zu bytes)", len);
        return false;
    }
    unsigned version = get16(data + 4), k = get16(data + 6);
    if (version != EVAL_NET_VERSION) {
        if (msglen)
            snprintf(msg, msglen, "network file version %u, this program reads version %d", version, EVAL_NET_VERSION);
        return false;
    }
    if (k < 1 || k > EVAL_NET_K_MAX || len != eval_net_file_size((int)k)) {
        if (msglen)
            snprintf(msg, msglen, "network file of %zu bytes for %u units, expected %zu", len, k,
                     k >= 1 && k <= EVAL_NET_K_MAX ? eval_net_file_size((int)k) : 0);
        return false;
    }
    if (get32(data + len - 4) != eval_fnv1a(data, len - 4, FNV_START)) {
        if (msglen)
            snprintf(msg, msglen, "network file checksum mismatch");
        return false;
    }
    eval_net_t *n = &w->net;
    memset(n, 0, sizeof *n);
    n->hidden = 8 * (int)k;
    const uint8_t *b = data + EVAL_NET_HEADER;
    /* Unit s K + j is base unit j seen through symmetry s: the input on point perm_s(i)
     * meets the base weight of point i (net.py: xb[:, perm] @ B). */
    for (int piece = 0; piece < 2; piece++)
        for (int i = 0; i < SQUARE_NB; i++, b += 2 * k)
            for (int s = 0; s < 8; s++)
                for (unsigned j = 0; j < k; j++)
                    n->board[piece][sym_point(s, i)][s * (int)k + (int)j] = 100 * (int16_t)get16(b + 2 * j);
    for (int t = 0; t < 3; t++, b += 2 * k)
        for (int s = 0; s < 8; s++)
            for (unsigned j = 0; j < k; j++)
                n->scalar[t][s * (int)k + (int)j] = (int16_t)get16(b + 2 * j);
    for (int s = 0; s < 8; s++)
        for (unsigned j = 0; j < k; j++)
            n->bias[s * (int)k + (int)j] = 100 * (int16_t)get16(b + 2 * j);
    b += 2 * k;
    for (int s = 0; s < 8; s++)
        for (unsigned j = 0; j < k; j++)
            n->out[s * (int)k + (int)j] = (int16_t)get16(b + 2 * j);
    b += 2 * k;
    n->out_bias = (int32_t)get32(b);
    w->use_net = true;
    return true;
}
