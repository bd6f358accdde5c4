/* The notation of the pure-Python `baghchal` package (its baghchal/env.py, version 1.0): its
 * FEN, its PGN, its move tokens and its 217-action index, read and written over our own
 * positions, moves and games, so that every front end converts without a second copy.
 *
 * Coordinates: a point is two digits, row then column, each 1..5, row 1 at the top and
 * column 1 at the left: "11" is A1 (our square 0), "15" is E1, "51" is A5, "33" is C3. So
 * our square s is row s / 5 + 1, column s % 5 + 1.
 *
 * FEN: `B3B/5/5/5/B3B G 0`: the rows from row 1 down, `B` a tiger (bagh), `G` a goat, a digit
 * a run of empty points; the side to move, `G` or `B`; the number of goat moves made so far
 * (placements and steps together, not goats placed nor captured). The goats in hand are
 * 20 - n while n < 20, else 0; the goats captured are what is missing from the board. The
 * half-moves since the start are 2n (goats to move) or 2n - 1 (tigers to move): that is the
 * ply our OBX meta fields carry, so a FEN's number survives a round trip through a game.
 *
 * Moves: `G33` places a goat on 33, `G3344` moves a goat, `B1122` moves a tiger, `Bx1133` is
 * a tiger jumping from 11 over 22 to 33. The PGN numbers each goat move with the count of
 * goat moves: `1. G33 B1122 2. G44`; a finished game ends its last move with `# 1-0` (goats
 * win), `# 0-1` (tigers win) or `# 1/2-1/2`. compat_pgn_format writes what the package's
 * Board.pgn holds, without its leading space; compat_pgn_parse also reads `1.G33`.
 *
 * Actions: 0..24 place a goat on row-major point 0..24 (our square numbers); 25..216 are
 * the 192 moves along the board's lines (112 steps, 80 jumps), ordered by their starting
 * point, and from each point in the package's own order. A goat step and a tiger step
 * between the same points share an action; only the side to move tells them apart.
 *
 * Where the package's rules differ from ours (RULES.md), the conversions refuse, with a
 * message, what the other side cannot represent:
 * - No repetition rule of ours: it never forbids a move (our default `forbid` does); it draws
 *   when a board (pieces only, whichever side is to move) occurs for the third time,
 *   counting the start's board and the boards after every move made with no goat in hand
 *   (ours: board and side to move, every position of the game). compat_pgn_parse reads a
 *   game under the rule it is given; a move our rule refuses is an error naming the ply.
 * - It ends the game as soon as all four tigers are trapped, whichever side is to move
 *   (ours: when the tigers are to move and cannot). In a game from the start that is the same
 *   (the tiger that moved last can always go back), but not in a position set up with
 *   the goats to move. A game of ours that goes on past the package's end (its draw, mostly)
 *   cannot be written as its PGN.
 * - Its FEN holds no history and no count of goats in hand or captured in the movement
 *   phase beyond the goat-move count: a movement-phase position whose goat-move count is
 *   unknown cannot be written as its FEN.
 * - Its PGN always starts from the start position; it reads FENs only of the start (its
 *   fen_to_board reads every `G` as a tiger), so a FEN from here is for its users to read.
 */
#ifndef BAGHCHAL_COMPAT_H
#define BAGHCHAL_COMPAT_H

#include <stddef.h>
#include <stdint.h>

#include "game.h"

enum {
    COMPAT_ACTION_NB = 217,
    COMPAT_PLACE_ACTION_NB = 25,
    COMPAT_FEN_LEN = 48,      /* room for any FEN this module writes */
    COMPAT_MOVE_TEXT_LEN = 8, /* room for "Bx1133" and its terminator */
    COMPAT_MAX_GOAT_MOVES = 100000000
};

typedef enum {
    COMPAT_OK = 0,
    COMPAT_ERR_SYNTAX,        /* the text is not of the notation's form */
    COMPAT_ERR_POSITION,      /* a position that breaks the rules (piece counts, captures) */
    COMPAT_ERR_ILLEGAL,       /* a move that is not legal where it is played */
    COMPAT_ERR_GAME_OVER,     /* a move after the game's end (under either rule set) */
    COMPAT_ERR_UNREPRESENTABLE, /* valid here, but the other notation cannot say it */
    COMPAT_ERR_BUFFER,        /* the output buffer is too small */
    COMPAT_ERR_NO_MEMORY,
    COMPAT_ERROR_COUNT
} compat_error_t;

/* A short stable name for each code, e.g. "unrepresentable". */
const char *compat_error_name(compat_error_t e);

/* ---- points, single moves ---------------------------------------------------------- */

/* Reads a FEN into *pos; *ply (may be NULL) receives the half-moves since the start its
 * number implies. On error returns the code, writes a one-line reason to err and leaves
 * *pos and *ply untouched. */
compat_error_t compat_fen_parse(const char *fen, position_t *pos, int *ply, char *err, size_t errlen);

/* Writes the FEN of pos. ply is the half-moves since the start (as game_meta gives it; -1
 * unknown): needed in the movement phase, where it gives the goat-move count; in the
 * placement phase the count follows from the goats in hand and ply is not used. Refused
 * (COMPAT_ERR_UNREPRESENTABLE) when the count is unknown or disagrees with the position.
 * buf needs COMPAT_FEN_LEN bytes (COMPAT_ERR_BUFFER if len is smaller). */
compat_error_t compat_fen_format(const position_t *pos, int ply, char *buf, size_t len, char *err, size_t errlen);

/* The FEN of a game's current position (its ply from game_meta). */
compat_error_t compat_game_fen(const game_t *g, char *buf, size_t len, char *err, size_t errlen);

/* Reads one move token ("G33", "G3344", "B1122", "Bx1133") as a move of pos: the side
 * letter must be the side to move and the move legal by the rules of the position (the
 * game's repetition rule is game_play's to check). *out untouched on error. */
compat_error_t compat_move_parse(const position_t *pos, const char *text, move_t *out, char *err, size_t errlen);

/* Reads a move token without a position: *side (may be NULL) gets GOATS or TIGERS. */
compat_error_t compat_move_parse_text(const char *text, move_t *out, int *side, char *err, size_t errlen);

/* Writes m, made by side, as a token; returns its length, or 0 (buf "") when the notation
 * has no such move (no move, a goat jump, a tiger placement). buf needs
 * COMPAT_MOVE_TEXT_LEN bytes. */
size_t compat_move_format(move_t m, int side, char *buf);

/* ---- the 217 actions ------------------------------------------------------------- */

/* The action of m: 0..216, or -1 for MOVE_NONE and moves off the board's lines. */
int compat_move_to_action(move_t m);

/* The move of an action, its kind from the board's lines (placement, step or jump);
 * MOVE_NONE when action is not in 0..216. */
move_t compat_action_to_move(int action);

/* mask[a] = 1 for the actions of the moves legal in pos (the rules of the position), else
 * 0; returns their number. */
int compat_action_mask(const position_t *pos, uint8_t mask[COMPAT_ACTION_NB]);

/* The same for a game's current position under its repetition rule (game_legal_moves). */
int compat_game_action_mask(const game_t *g, uint8_t mask[COMPAT_ACTION_NB]);

/* ---- games ----------------------------------------------------------------------- */

/* The package's verdict on g's current position, under the package's rules (above): its
 * draw by a third board, its tigers trapped whichever side is to move, five captures, goats
 * that cannot move. RESULT_NONE while it goes on. Only COMPAT_ERR_NO_MEMORY can fail. */
compat_error_t compat_game_result(const game_t *g, game_result_t *out, char *err, size_t errlen);

/* Reads a whole PGN of the package into *out, a game from the start position under rule.
 * out is uninitialised on entry; on success it holds the game (game_free it), on error it
 * is untouched and err names the ply and the move ("ply 7 (4. G3344): ..."). The move
 * numbers must count the goat moves; a result, when written, must be the game's result
 * under the package's rules; a move after the package's end of the game is refused. */
compat_error_t compat_pgn_parse(const char *text, rep_rule_t rule, game_t *out, char *err, size_t errlen);

/* Writes g as the package's PGN into buf (len bytes, terminated); *needed (may be NULL)
 * receives the length of the whole text without its terminator, also when the buffer is
 * too small (COMPAT_ERR_BUFFER), so a caller can size it and call again. Refused when g does
 * not start at the start position, or goes on past the package's end of the game. */
compat_error_t compat_pgn_format(const game_t *g, char *buf, size_t len, size_t *needed, char *err, size_t errlen);

#endif
