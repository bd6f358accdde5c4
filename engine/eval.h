/* Static evaluation in centi-goats: each term named, all weights in one table, tapered
 * between the placement phase (goats in hand) and the movement phase. The weights the engine
 * plays with are tuned on the solution's exact values (tools/distill) and built into the
 * library (eval_tuned.c); the hand-set table stays as the fallback. */
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

/* The weights an evaluation uses. */
typedef struct {
    int16_t mg[EV_TERM_NB], eg[EV_TERM_NB];
} eval_params_t;

/* The tuned weights as built into the library (eval_tuned.c, written by tools/distill):
 * the file format below, read by eval_params_load. */
extern const uint8_t EVAL_TUNED_DATA[];
extern const size_t EVAL_TUNED_SIZE;

/* The weights file: "BCEV", version (u16), term count (u16), the terms' list id (u32, the
 * FNV-1a hash of their names, each followed by a newline), then mg and eg of each term
 * (int16), then the FNV-1a hash of every byte before it (u32); little-endian. */
enum { EVAL_FILE_VERSION = 1, EVAL_FILE_HEADER = 12, EVAL_FILE_SIZE = EVAL_FILE_HEADER + 4 * EV_TERM_NB + 4 };

/* The hand-set weights. */
void eval_params_hand(eval_params_t *out);
/* Reads a weights file: checks its size, magic, version, term list and checksum. On success
 * returns true; else writes the hand-set weights to out, a one-line reason to msg (when
 * msglen > 0) and returns false. */
bool eval_params_load(eval_params_t *out, const uint8_t *data, size_t len, char *msg, size_t msglen);
/* Writes w as a weights file of EVAL_FILE_SIZE bytes to out (room for them). */
void eval_params_write(const eval_params_t *w, uint8_t out[EVAL_FILE_SIZE]);
/* The FNV-1a hash the file's checksum and term list id use. */
uint32_t eval_fnv1a(const uint8_t *data, size_t len, uint32_t h);
/* The id of this build's list of terms. */
uint32_t eval_terms_id(void);

typedef struct {
    int count[EV_TERM_NB]; /* the term's raw count in this position */
    int value[EV_TERM_NB]; /* its tapered contribution, goats' point of view */
    int total;             /* the sum, goats' point of view */
} eval_trace_t;

/* The evaluation with weights w from the side to move's point of view. */
int eval_position(const eval_params_t *w, const position_t *p);
/* The same number, goats' point of view, with every term written to trace. */
int eval_trace(const eval_params_t *w, const position_t *p, eval_trace_t *trace);

#endif
