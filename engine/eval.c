/* Evaluation terms on bitboards. */
#include "eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"

#if defined(__AVX2__) || defined(__SSE2__)
#include <immintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

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

/* Vectors of 32-bit lanes, and the multiply-add of pairs of 16-bit numbers into them; the
 * same vectors as 16-bit lanes: wrapping sums (the accumulator) and saturating ones (pooling). */
#if defined(__AVX2__)
typedef __m256i net_vec_t;
#define NET_LANES 8
#define NET_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define NET_STORE(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define NET_SPLAT(x) _mm256_set1_epi32(x)
#define NET_MADD(acc, a, b) _mm256_add_epi32((acc), _mm256_madd_epi16((a), (b)))
#define NET_ZERO() _mm256_setzero_si256()
#define NET_ADD16(a, b) _mm256_add_epi16((a), (b))
#define NET_SUB16(a, b) _mm256_sub_epi16((a), (b))
#define NET_ADDS16(a, b) _mm256_adds_epi16((a), (b))
#define NET_MAX16(a, b) _mm256_max_epi16((a), (b))
#elif defined(__SSE2__)
typedef __m128i net_vec_t;
#define NET_LANES 4
#define NET_LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define NET_STORE(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define NET_SPLAT(x) _mm_set1_epi32(x)
#define NET_MADD(acc, a, b) _mm_add_epi32((acc), _mm_madd_epi16((a), (b)))
#define NET_ZERO() _mm_setzero_si128()
#define NET_ADD16(a, b) _mm_add_epi16((a), (b))
#define NET_SUB16(a, b) _mm_sub_epi16((a), (b))
#define NET_ADDS16(a, b) _mm_adds_epi16((a), (b))
#define NET_MAX16(a, b) _mm_max_epi16((a), (b))
#elif defined(__wasm_simd128__)
typedef v128_t net_vec_t;
#define NET_LANES 4
#define NET_LOAD(p) wasm_v128_load(p)
#define NET_STORE(p, v) wasm_v128_store((p), (v))
#define NET_SPLAT(x) wasm_i32x4_splat(x)
#define NET_MADD(acc, a, b) wasm_i32x4_add((acc), wasm_i32x4_dot_i16x8((a), (b)))
#define NET_ZERO() wasm_i32x4_splat(0)
#define NET_ADD16(a, b) wasm_i16x8_add((a), (b))
#define NET_SUB16(a, b) wasm_i16x8_sub((a), (b))
#define NET_ADDS16(a, b) wasm_i16x8_add_sat((a), (b))
#define NET_MAX16(a, b) wasm_i16x8_max((a), (b))
#endif
#ifdef NET_LANES
#define NET_LANES16 (2 * NET_LANES)
#endif

/* acc += the add rows - the sub rows, in one pass over acc (wrapping 16-bit sums: the load
 * checked that no unit's input leaves 16 bits, so the result is exact). */
static inline void net_apply(int16_t *restrict acc, const int16_t *const *add, int na, const int16_t *const *sub, int ns, int h)
{
#ifdef NET_LANES
    if (h % (4 * NET_LANES16) == 0) {
        for (int i = 0; i < h; i += 4 * NET_LANES16) {
            net_vec_t v0 = NET_LOAD(&acc[i]), v1 = NET_LOAD(&acc[i + NET_LANES16]),
                      v2 = NET_LOAD(&acc[i + 2 * NET_LANES16]), v3 = NET_LOAD(&acc[i + 3 * NET_LANES16]);
            for (int r = 0; r < na; r++) {
                const int16_t *a = &add[r][i];
                v0 = NET_ADD16(v0, NET_LOAD(a));
                v1 = NET_ADD16(v1, NET_LOAD(a + NET_LANES16));
                v2 = NET_ADD16(v2, NET_LOAD(a + 2 * NET_LANES16));
                v3 = NET_ADD16(v3, NET_LOAD(a + 3 * NET_LANES16));
            }
            for (int r = 0; r < ns; r++) {
                const int16_t *a = &sub[r][i];
                v0 = NET_SUB16(v0, NET_LOAD(a));
                v1 = NET_SUB16(v1, NET_LOAD(a + NET_LANES16));
                v2 = NET_SUB16(v2, NET_LOAD(a + 2 * NET_LANES16));
                v3 = NET_SUB16(v3, NET_LOAD(a + 3 * NET_LANES16));
            }
            NET_STORE(&acc[i], v0);
            NET_STORE(&acc[i + NET_LANES16], v1);
            NET_STORE(&acc[i + 2 * NET_LANES16], v2);
            NET_STORE(&acc[i + 3 * NET_LANES16], v3);
        }
        return;
    }
#endif
    for (int i = 0; i < h; i++) {
        unsigned v = (uint16_t)acc[i];
        for (int r = 0; r < na; r++)
            v += (uint16_t)add[r][i];
        for (int r = 0; r < ns; r++)
            v -= (uint16_t)sub[r][i];
        acc[i] = (int16_t)(uint16_t)v;
    }
}

/* The units' inputs from scratch: the rows of the counts and of the side to move, and a row
 * for each piece on its point. */
static void net_fill(const eval_net_t *n, eval_cache_t *c, const position_t *p)
{
    const int16_t *rows[3 + SQUARE_NB];
    int nr = 0;
    rows[nr++] = n->hand[p->in_hand];
    rows[nr++] = n->captured[p->captured];
    rows[nr++] = n->side[p->side == GOATS];
    for (int piece = 0; piece < 2; piece++)
        for (bb_t b = piece ? p->tigers : p->goats; b; b &= b - 1)
            rows[nr++] = n->board[piece][bb_first(b)];
    memset(c->acc, 0, (size_t)n->hidden * sizeof c->acc[0]);
    net_apply(c->acc, rows, nr, NULL, 0, n->hidden);
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
        /* Each change as a pair of rows (one added, one taken away): a move is one or two. */
        const int16_t *add[SQUARE_NB * 2 + 3], *sub[SQUARE_NB * 2 + 3];
        int na = 0, ns = 0;
        for (; g_on; g_on &= g_on - 1)
            add[na++] = n->board[0][bb_first(g_on)];
        for (; t_on; t_on &= t_on - 1)
            add[na++] = n->board[1][bb_first(t_on)];
        for (; g_off; g_off &= g_off - 1)
            sub[ns++] = n->board[0][bb_first(g_off)];
        for (; t_off; t_off &= t_off - 1)
            sub[ns++] = n->board[1][bb_first(t_off)];
        if (p->in_hand != c->in_hand) {
            add[na++] = n->hand[p->in_hand];
            sub[ns++] = n->hand[c->in_hand];
        }
        if (p->captured != c->captured) {
            add[na++] = n->captured[p->captured];
            sub[ns++] = n->captured[c->captured];
        }
        if (side != c->side) {
            add[na++] = n->side[side];
            sub[ns++] = n->side[c->side];
        }
        net_apply(c->acc, add, na, sub, ns, h);
    }
    c->valid = true;
    c->goats = p->goats;
    c->tigers = p->tigers;
    c->in_hand = p->in_hand;
    c->captured = p->captured;
    c->side = side;
}

/* The second layer's sums: nb vectors of J units, kept in registers when nb is a constant. */
#ifdef NET_LANES
static inline void net_layer2_blocks(const eval_net_head_t *n, int k, const int16_t *pooled, int32_t *restrict z, const int nb)
{
    net_vec_t acc[EVAL_NET_J_MAX / NET_LANES];
    for (int b = 0; b < nb; b++)
        acc[b] = NET_LOAD(&n->b2[NET_LANES * b]);
    for (int u = 0; u < k; u += 2) {
        uint32_t two;
        memcpy(&two, &pooled[u], sizeof two); /* pooled[u] in the low half, as madd pairs them */
        net_vec_t pair = NET_SPLAT((int32_t)two);
        for (int b = 0; b < nb; b++)
            acc[b] = NET_MADD(acc[b], pair, NET_LOAD(n->w2[u / 2][NET_LANES * b]));
    }
    for (int b = 0; b < nb; b++)
        NET_STORE(&z[NET_LANES * b], acc[b]);
}
#endif

static void net_layer2(const eval_net_head_t *n, int k, int j, const int16_t *pooled, int32_t *restrict z)
{
#ifdef NET_LANES
    if (j % NET_LANES == 0) {
        if (j == 32)
            net_layer2_blocks(n, k, pooled, z, 32 / NET_LANES);
        else
            net_layer2_blocks(n, k, pooled, z, j / NET_LANES);
        return;
    }
#endif
    for (int v = 0; v < j; v++)
        z[v] = n->b2[v];
    for (int u = 0; u < k; u += 2)
        for (int v = 0; v < j; v++)
            z[v] += pooled[u] * n->w2[u / 2][v][0] + pooled[u + 1] * n->w2[u / 2][v][1];
}

/* Each base unit's 8 images, through the ReLU, summed and capped at 32767: saturating 16-bit
 * sums of terms that are never negative give exactly the capped sum. */
static void net_pool(const int16_t *restrict acc, int k, int16_t *restrict pooled)
{
#ifdef NET_LANES
    if (k % NET_LANES16 == 0) {
        net_vec_t zero = NET_ZERO();
        for (int u = 0; u < k; u += NET_LANES16) {
            net_vec_t sum = NET_MAX16(NET_LOAD(&acc[u]), zero);
            for (int s = 1; s < 8; s++)
                sum = NET_ADDS16(sum, NET_MAX16(NET_LOAD(&acc[s * k + u]), zero));
            NET_STORE(&pooled[u], sum);
        }
        return;
    }
#endif
    for (int u = 0; u < k; u++) {
        int32_t sum = 0;
        for (int s = 0; s < 8; s++)
            sum += acc[s * k + u] > 0 ? acc[s * k + u] : 0;
        pooled[u] = (int16_t)(sum < 32767 ? sum : 32767);
    }
}

/* The output from the units' inputs, in centi-goats, through the layers of the bucket of a
 * position with in_hand goats in hand. */
static int net_output(const eval_net_t *net, const int16_t *restrict acc, int in_hand)
{
    int k = net->k, j = net->j;
    const eval_net_head_t *n = &net->head[eval_net_bucket(net, in_hand)];
    int16_t pooled[EVAL_NET_K_MAX + 1];
    net_pool(acc, k, pooled);
    int64_t lin = 0;
    for (int u = 0; u < k; u++)
        lin += pooled[u] * n->out[u]; /* each product fits 32 bits */
    pooled[k] = 0; /* an odd K's last pair */
    /* The second layer, pooled values two by two (the pairs' weights side by side): the
     * multiply-add of pairs of 16-bit numbers into 32 bits that x86 (pmaddwd) and WebAssembly
     * (i32x4.dot_i16x8_s) do 8 or 4 at a time; a sum is exact, so the same on every path. */
    int32_t z[EVAL_NET_J_MAX];
    net_layer2(n, k, j, pooled, z);
    /* Scaled by 2^21: pooled values 512, second-layer sums 32768, int16 weights 64. */
    int64_t out = 64 * (lin + n->out_bias);
    for (int v = 0; v < j; v++)
        if (z[v] > 0)
            out += (int64_t)z[v] * n->out2[v];
    /* Beyond EVAL_NET_KNEE the network's certainty grows slowly, as the terms' values do: a
     * near-won position keeps its search (and its proof) rather than a cut on its value. */
    int64_t val = out * EVAL_NET_CP / (1 << 21), mag = val < 0 ? -val : val;
    if (mag > EVAL_NET_KNEE)
        mag = EVAL_NET_KNEE + (mag - EVAL_NET_KNEE) / 8;
    return (int)(val < 0 ? -mag : mag);
}

int eval_net(const eval_net_t *n, const position_t *p)
{
    eval_cache_t c;
    net_fill(n, &c, p);
    return net_output(n, c.acc, p->in_hand);
}

int eval_net_cached(const eval_net_t *n, eval_cache_t *c, const position_t *p)
{
    net_refresh(n, c, p);
    return net_output(n, c->acc, p->in_hand);
}

/* With the network, its value alone: trained on the solution's values, it keeps more critical
 * positions than the terms or the mean of the two, at equal nodes and at equal time
 * (docs/performance.md). The terms evaluate when the network is refused. */
int eval_position(const eval_params_t *w, const position_t *p)
{
    eval_cache_t c;
    eval_cache_clear(&c);
    return eval_position_cached(w, &c, p);
}

int eval_position_cached(const eval_params_t *w, eval_cache_t *c, const position_t *p)
{
    int v = w->use_net ? eval_net_cached(&w->net, c, p) : evaluate(w, p, NULL);
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

uint32_t eval_terms_id(void)
{
    uint32_t h = EVAL_FNV_START;
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
    put32(out + EVAL_FILE_SIZE - 4, eval_fnv1a(out, EVAL_FILE_SIZE - 4, EVAL_FNV_START));
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
    if (get32(data + EVAL_FILE_SIZE - 4) != eval_fnv1a(data, EVAL_FILE_SIZE - 4, EVAL_FNV_START)) {
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

size_t eval_net_file_size(int k, int j, int nb)
{
    size_t head = 2 * (size_t)k + 2 * (size_t)k * (size_t)j + 6 * (size_t)j + 4;
    return EVAL_NET_HEADER + 2 * (size_t)k * (50 + EVAL_NET_SCALARS + 1) + (size_t)nb * head + 4;
}

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
    unsigned version = get16(data + 4), k = get16(data + 6), j = get16(data + 8), nb = get16(data + 10);
    if (version != EVAL_NET_VERSION) {
        if (msglen)
            snprintf(msg, msglen, "network file version %u, this program reads version %d", version, EVAL_NET_VERSION);
        return false;
    }
    bool shape = k >= 1 && k <= EVAL_NET_K_MAX && j <= EVAL_NET_J_MAX && (nb == 1 || nb == EVAL_NET_BUCKETS_MAX);
    if (!shape || len != eval_net_file_size((int)k, (int)j, (int)nb)) {
        if (msglen)
            snprintf(msg, msglen, "network file of %zu bytes for %u x %u units in %u buckets, expected %zu", len, k, j,
                     nb, shape ? eval_net_file_size((int)k, (int)j, (int)nb) : 0);
        return false;
    }
    if (get32(data + len - 4) != eval_fnv1a(data, len - 4, EVAL_FNV_START)) {
        if (msglen)
            snprintf(msg, msglen, "network file checksum mismatch");
        return false;
    }
    eval_net_t *n = &w->net;
    memset(n, 0, sizeof *n);
    n->k = (int)k;
    n->j = (int)j;
    n->hidden = 8 * (int)k;
    n->buckets = (int)nb;
    const uint8_t *b = data + EVAL_NET_HEADER;
    /* Unit s K + u is base unit u seen through symmetry s: the input on point perm_s(i)
     * meets the base weight of point i (net.py: xb[:, perm] @ B). */
    for (int piece = 0; piece < 2; piece++)
        for (int i = 0; i < SQUARE_NB; i++, b += 2 * k)
            for (int s = 0; s < 8; s++)
                for (unsigned u = 0; u < k; u++)
                    n->board[piece][sym_point(s, i)][s * (int)k + (int)u] = (int16_t)get16(b + 2 * u);
    /* A row for each count of goats in hand and of goats captured, goats to move, the bias. */
    int32_t scalar[EVAL_NET_SCALARS][EVAL_NET_K_MAX], bias[EVAL_NET_K_MAX];
    for (int t = 0; t < EVAL_NET_SCALARS; t++, b += 2 * k)
        for (unsigned u = 0; u < k; u++)
            scalar[t][u] = (int16_t)get16(b + 2 * u);
    for (unsigned u = 0; u < k; u++)
        bias[u] = (int16_t)get16(b + 2 * u);
    b += 2 * k;
    for (unsigned q = 0; q < nb; q++) {
        eval_net_head_t *hd = &n->head[q];
        for (unsigned u = 0; u < k; u++)
            hd->out[u] = (int16_t)get16(b + 2 * u);
        b += 2 * k;
        for (unsigned u = 0; u < k; u++, b += 2 * j)
            for (unsigned v = 0; v < j; v++)
                hd->w2[u / 2][v][u % 2] = (int16_t)get16(b + 2 * v);
        for (unsigned v = 0; v < j; v++, b += 4)
            hd->b2[v] = (int32_t)get32(b);
        for (unsigned v = 0; v < j; v++, b += 2)
            hd->out2[v] = (int16_t)get16(b);
        hd->out_bias = (int32_t)get32(b);
        b += 4;
    }
    /* A unit's input in 16 bits whatever the position: the largest of the hand's rows, of the
     * captures' rows and of the two sides' (the bias in them), and each point's larger weight.
     * (A position has at most BC_CAPTURES_TO_WIN goats captured: the rows past it are its.) */
    for (unsigned u = 0; u < k; u++) {
        int32_t hand_most = 0, cap_most = 0;
        for (int c = 0; c <= BC_GOATS_TOTAL; c++) {
            int32_t hv = scalar[c][u], cv = scalar[EVAL_NET_HANDS + (c < EVAL_NET_CAPS ? c : EVAL_NET_CAPS - 1)][u];
            for (int s = 0; s < 8; s++) {
                n->hand[c][s * (int)k + (int)u] = (int16_t)hv;
                n->captured[c][s * (int)k + (int)u] = (int16_t)cv;
            }
            hand_most = abs(hv) > hand_most ? abs(hv) : hand_most;
            cap_most = abs(cv) > cap_most ? abs(cv) : cap_most;
        }
        int32_t goats = bias[u] + scalar[EVAL_NET_SCALARS - 1][u];
        for (int s = 0; s < 8; s++) {
            n->side[0][s * (int)k + (int)u] = (int16_t)bias[u];
            n->side[1][s * (int)k + (int)u] = (int16_t)goats;
        }
        int32_t most = hand_most + cap_most + (abs(bias[u]) > abs(goats) ? abs(bias[u]) : abs(goats));
        for (int i = 0; i < SQUARE_NB; i++) {
            int g = abs(n->board[0][i][u]), t = abs(n->board[1][i][u]);
            most += g > t ? g : t;
        }
        if (most > 32767) {
            if (msglen)
                snprintf(msg, msglen, "network weights out of range: first-layer unit %u could overflow", u);
            return false;
        }
    }
    /* A second-layer sum meets pooled values of at most 32767: it must stay within 32 bits. */
    for (unsigned q = 0; q < nb; q++)
        for (unsigned v = 0; v < j; v++) {
            const eval_net_head_t *hd = &n->head[q];
            int64_t most = hd->b2[v] < 0 ? -(int64_t)hd->b2[v] : hd->b2[v];
            for (unsigned u = 0; u < k; u++)
                most += 32767 * (int64_t)abs(hd->w2[u / 2][v][u % 2]);
            if (most > INT32_MAX) {
                if (msglen)
                    snprintf(msg, msglen, "network weights out of range: second-layer unit %u of bucket %u could overflow", v, q);
                return false;
            }
        }
    w->use_net = true;
    return true;
}
