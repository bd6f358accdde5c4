/* Static evaluation in centi-goats: each term named, all weights in one table, tapered
 * between the placement phase (goats in hand) and the movement phase. The weights the engine
 * uses are tuned on the solution's exact values (tools/distill) and built into the library
 * (eval_tuned.c); the hand-set table stays as the fallback. The search evaluates with a
 * network trained on the same values (eval_net.c), with the terms when the network is refused. */
#ifndef BAGHCHAL_EVAL_H
#define BAGHCHAL_EVAL_H

#include <stddef.h>

#include "board.h"

typedef enum {
    EV_CAPTURED,          /* goats already captured */
    EV_TIGER_MOBILITY,    /* tiger moves available (steps and captures) */
    EV_TRAPPED_TIGERS,    /* tigers with no move at all */
    EV_CAPTURABLE,        /* distinct goats a tiger could capture at once */
    EV_HANGING,           /* tigers to move with a capture, or goats facing two or more threats */
    EV_VULNERABLE,        /* goats on a line whose both ends are open (not goats) */
    EV_SAFE_GOATS,        /* goats with every line through them closed by a goat or an edge */
    EV_EDGE_GOATS,        /* goats on the border (cannot be jumped across the edge) */
    EV_CORNER_GOATS,      /* goats on the four corners (can never be jumped) */
    EV_TIGER_SPACE,       /* empty points the tigers can reach through empty points */
    EV_TIGER_CENTRE,      /* tigers on the eight-line points (more moves and jumps) */
    EV_TEMPO,             /* side to move */
    EV_CONSTANT,          /* 1: with the taper, what the number of goats in hand alone says */
    /* Pieces by kind of point (the six classes the board's 8 symmetries leave). */
    EV_GOATS_CORNER,      /* A1 E1 A5 E5 */
    EV_GOATS_EDGE_SIDE,   /* B1 D1 A2 E2 A4 E4 B5 D5 */
    EV_GOATS_EDGE_MID,    /* C1 A3 E3 C5 */
    EV_GOATS_INNER_DIAG,  /* B2 D2 B4 D4 */
    EV_GOATS_INNER_ORTH,  /* C2 B3 D3 C4 */
    EV_GOATS_CENTRE,      /* C3 */
    EV_TIGERS_CORNER,
    EV_TIGERS_EDGE_SIDE,
    EV_TIGERS_EDGE_MID,
    EV_TIGERS_INNER_DIAG,
    EV_TIGERS_INNER_ORTH,
    EV_TIGERS_CENTRE,
    EV_TERM_NB
} eval_term_t;

/* Weight per unit of each term, for the placement (mg) and movement (eg) phases, in
 * centi-goats from the goats' point of view. */
typedef struct {
    const char *name;
    int mg, eg;
} eval_weight_t;

/* The hand-set weights (and every term's name). */
extern const eval_weight_t EVAL_WEIGHTS[EV_TERM_NB];

/* The network (eval_net.c, written by tools/distill/net.py): a goat and a tiger on each
 * point, goats in hand, captured and the side to move into 8 K ReLU units (K base units seen
 * through each of the board's 8 symmetries); each base unit's 8 images summed (pooled), so
 * that a position and its images evaluate alike, exactly; the K pooled values into J ReLU
 * units (J may be 0); the output from the pooled values and the J units. The second layer and
 * the output may be one for every position or one for each phase (their bucket, by goats in
 * hand: none, 1-7, 8-14, 15-20), as Stockfish's layer stacks are. Integer weights, expanded
 * per point and unit at load. */
enum {
    EVAL_NET_K_MAX = 64,
    EVAL_NET_J_MAX = 64,
    EVAL_NET_BUCKETS_MAX = 4, /* 1 or 4 */
    EVAL_NET_HIDDEN_MAX = 8 * EVAL_NET_K_MAX,
    EVAL_NET_CP = 400,
    EVAL_NET_KNEE = 500,
    EVAL_NET_HANDS = BC_GOATS_TOTAL + 1,    /* an input for each count of goats in hand, 0 to 20 */
    EVAL_NET_CAPS = BC_CAPTURES_TO_WIN + 1, /* and of goats captured, 0 to 5 */
    EVAL_NET_SCALARS = EVAL_NET_HANDS + EVAL_NET_CAPS + 1 /* then goats to move */
};

/* A first-layer unit's input is 64 times its value, in 16 bits: the sum of board[piece][point]
 * over the pieces, hand[goats in hand], captured[goats captured], side[goats to move] (the bias
 * in it). A pooled value is the sum of its 8 units (512 times their mean), at most 32767; the
 * second layer's weights are scaled by 64 (w2 holds pooled values two by two: w2[u / 2][j][u % 2]).
 * The layers after the pooling are the position's bucket's (eval_net_bucket). */
typedef struct {
    int16_t out[EVAL_NET_K_MAX];                      /* pooled value k to the output */
    int16_t w2[EVAL_NET_K_MAX / 2][EVAL_NET_J_MAX][2];
    int32_t b2[EVAL_NET_J_MAX];
    int32_t out2[EVAL_NET_J_MAX];                     /* second-layer unit j to the output */
    int32_t out_bias;
} eval_net_head_t;

typedef struct {
    int k, j, hidden, buckets;                        /* hidden = 8 K; buckets 1 or 4 */
    int16_t board[2][SQUARE_NB][EVAL_NET_HIDDEN_MAX]; /* [goat, tiger][point][unit] */
    int16_t hand[BC_GOATS_TOTAL + 1][EVAL_NET_HIDDEN_MAX];
    int16_t captured[BC_GOATS_TOTAL + 1][EVAL_NET_HIDDEN_MAX];
    int16_t side[2][EVAL_NET_HIDDEN_MAX];             /* [tigers, goats] to move, with the bias */
    eval_net_head_t head[EVAL_NET_BUCKETS_MAX];
} eval_net_t;

/* The bucket of a position with in_hand goats in hand: 0 with one bucket, else 0 for none in
 * hand, 1 for 1-7, 2 for 8-14, 3 for 15-20 (net.py's bucket_of). */
static inline int eval_net_bucket(const eval_net_t *n, int in_hand) { return n->buckets == 1 ? 0 : (in_hand + 6) / 7; }

/* What a thread keeps between two evaluations: the units' inputs for the last position it
 * evaluated, brought to the next one by the pieces and counts that differ (a move changes at
 * most three points), as NNUE's accumulators are. Owned by the caller, one per thread. */
typedef struct {
    bool valid;
    bb_t goats, tigers;
    int in_hand, captured, side;
    int16_t acc[EVAL_NET_HIDDEN_MAX];
} eval_cache_t;

static inline void eval_cache_clear(eval_cache_t *c) { c->valid = false; }

/* The weights an evaluation uses: the terms', and the network when use_net. */
typedef struct {
    int16_t mg[EV_TERM_NB], eg[EV_TERM_NB];
    bool use_net;
    eval_net_t net;
} eval_params_t;

/* The network as built into the library, in the network file format: "BCNN", version (u16),
 * K (u16), J (u16), buckets (u16: 1 or 4), then int16 weights: the board's 50 x K (goat on
 * each point, then tiger on each, point by point, K each), the scalars' 28 x K (goats in hand
 * 0 to 20, goats captured 0 to 5: an input for each count; goats to move), the biases K; then
 * for each bucket: the pooled values' output weights K, the second layer's K x J (pooled value
 * by pooled value, J each), its biases J as int32, its output weights J (int16), the output
 * bias (int32); the FNV-1a hash of every byte before it (u32); little-endian. Scales: 64 for
 * int16 weights, 32768 for the second layer's biases and the output bias. */
extern const uint8_t EVAL_NET_DATA[];
extern const size_t EVAL_NET_SIZE;
enum { EVAL_NET_VERSION = 4, EVAL_NET_HEADER = 12 };

/* The size of a network file with K base units, J second-layer units and nb buckets. */
size_t eval_net_file_size(int k, int j, int nb);
/* Reads a network file into w->net and sets w->use_net: checks its magic, version, K, J,
 * buckets, size, checksum and that no sum of either layer can overflow. On failure leaves w->use_net
 * false, writes a one-line reason to msg (when msglen > 0) and returns false. */
bool eval_net_load(eval_params_t *w, const uint8_t *data, size_t len, char *msg, size_t msglen);
/* The network's evaluation, goats' point of view (centi-goats). */
int eval_net(const eval_net_t *n, const position_t *p);
/* The same value, through cache c (the units' inputs of the last position evaluated with it). */
int eval_net_cached(const eval_net_t *n, eval_cache_t *c, const position_t *p);

/* The tuned weights as built into the library (eval_tuned.c, written by tools/distill):
 * the file format below, read by eval_params_load. */
extern const uint8_t EVAL_TUNED_DATA[];
extern const size_t EVAL_TUNED_SIZE;

/* The weights file: "BCEV", version (u16), term count (u16), the terms' list id (u32, the
 * FNV-1a hash of their names, each followed by a newline), then mg and eg of each term
 * (int16), then the FNV-1a hash of every byte before it (u32); little-endian. */
enum { EVAL_FILE_VERSION = 1, EVAL_FILE_HEADER = 12, EVAL_FILE_SIZE = EVAL_FILE_HEADER + 4 * EV_TERM_NB + 4 };

/* The hand-set weights (no network). */
void eval_params_hand(eval_params_t *out);
/* Reads a weights file: checks its size, magic, version, term list and checksum. On success
 * returns true (the network unset); else writes the hand-set weights to out, a one-line reason to msg (when
 * msglen > 0) and returns false. */
bool eval_params_load(eval_params_t *out, const uint8_t *data, size_t len, char *msg, size_t msglen);
/* Writes w as a weights file of EVAL_FILE_SIZE bytes to out (room for them). */
void eval_params_write(const eval_params_t *w, uint8_t out[EVAL_FILE_SIZE]);
/* The FNV-1a hash the files' checksums and the term list id use, from h (EVAL_FNV_START for
 * a hash of data alone). */
#define EVAL_FNV_START 2166136261u
uint32_t eval_fnv1a(const uint8_t *data, size_t len, uint32_t h);
/* The id of this build's list of terms. */
uint32_t eval_terms_id(void);

typedef struct {
    int count[EV_TERM_NB]; /* the term's raw count in this position */
    int value[EV_TERM_NB]; /* its tapered contribution, goats' point of view */
    int total;             /* the sum, goats' point of view */
} eval_trace_t;

/* The evaluation with weights w from the side to move's point of view: the network's when
 * w->use_net, else the terms'. */
int eval_position(const eval_params_t *w, const position_t *p);
/* The same value, the network's through cache c: what the search calls. */
int eval_position_cached(const eval_params_t *w, eval_cache_t *c, const position_t *p);
/* The same number, goats' point of view, with every term written to trace. */
int eval_trace(const eval_params_t *w, const position_t *p, eval_trace_t *trace);

#endif
