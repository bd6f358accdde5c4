/* A second, deliberately plain model of the rules, written from RULES.md alone: a char board,
 * lines derived from coordinates, moves found by trying every pair of points. It shares no
 * table or generator with the engine, so the tests can hold the engine against it. */
#ifndef BAGHCHAL_TEST_REFERENCE_H
#define BAGHCHAL_TEST_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"

enum {
    REF_POINTS = 25,
    REF_GOATS = 20,
    /* Generous: 21 placements at most, 4 tigers x (8 steps + 8 jumps) = 64. */
    REF_MAX_MOVES = 128
};

/* board[i] is 'T', 'G' or 'X' (empty); side is 'g' or 't'. */
typedef struct {
    char board[REF_POINTS];
    char side;
    int in_hand, captured;
} ref_pos_t;

typedef enum { REF_PLACE, REF_STEP, REF_JUMP } ref_kind_t;

/* over is the jumped point of a REF_JUMP, -1 otherwise; a placement has from == to. */
typedef struct {
    ref_kind_t kind;
    int from, to, over;
} ref_move_t;

/* Geometry from coordinates: column 0..4 (A..E), row 0..4 (1..5). */
int ref_col(int p);
int ref_row(int p);
int ref_point(int col, int row); /* -1 off the board */
bool ref_has_diagonals(int p);
bool ref_is_step(int a, int b);
/* The point jumped by a straight two-step line from -> to, or -1 when there is none. */
int ref_jump_over(int from, int to);
int ref_degree(int p);

void ref_start(ref_pos_t *r);
/* Reads the first four OBX fields (2.0 or 1.0 board and hand syntax). Returns false on
 * anything malformed or breaking the piece counts. */
bool ref_parse(const char *obx, ref_pos_t *r);
/* Writes the four OBX 2.0 fields "board turn @N cN". */
void ref_format(const ref_pos_t *r, char *buf, size_t len);
bool ref_is_valid(const ref_pos_t *r);

/* Conversions to and from the engine's types, used only to compare the two. */
void ref_from_position(const position_t *p, ref_pos_t *r);
bool ref_same_as_position(const ref_pos_t *r, const position_t *p);
move_t ref_move_encode(ref_move_t m);

/* All moves of the side to move, in point order; none once five goats are captured. */
int ref_gen(const ref_pos_t *r, ref_move_t *out);
/* The moves the tigers would have on this board, whoever is to move. */
int ref_gen_tiger(const ref_pos_t *r, ref_move_t *out);
/* Bit i set when a tiger could capture the goat on point i if the tigers were to move. */
uint32_t ref_capturable(const ref_pos_t *r);
void ref_make(const ref_pos_t *r, ref_move_t m, ref_pos_t *out);
uint64_t ref_perft(const ref_pos_t *r, int depth);

/* A small seeded generator (splitmix64) for reproducible random games. */
uint64_t ref_rand(uint64_t *state);
int ref_rand_below(uint64_t *state, int n);

/* Picks one of the n > 0 moves of r for a random game. REF_PLAY_UNIFORM picks any move;
 * REF_PLAY_CAREFUL lets goats avoid leaving goats en prise and tigers take a capture when
 * one exists, which keeps games going into the movement phase. */
typedef enum { REF_PLAY_UNIFORM, REF_PLAY_CAREFUL } ref_play_t;
ref_move_t ref_pick_move(const ref_pos_t *r, const ref_move_t *list, int n, ref_play_t style, uint64_t *state);

#endif
