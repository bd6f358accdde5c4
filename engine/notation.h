/* OBX 1.0 / 2.0 positions and move text: parse and format, with error codes and messages. */
#ifndef BAGHCHAL_NOTATION_H
#define BAGHCHAL_NOTATION_H

#include <stddef.h>

#include "board.h"

typedef enum {
    BC_OK = 0,
    OBX_ERR_EMPTY,
    OBX_ERR_FIELD_COUNT,
    OBX_ERR_ROW_COUNT,
    OBX_ERR_ROW_LENGTH,
    OBX_ERR_BOARD_CHAR,
    OBX_ERR_TIGER_COUNT,
    OBX_ERR_TURN,
    OBX_ERR_IN_HAND_SYNTAX,
    OBX_ERR_IN_HAND_RANGE,
    OBX_ERR_CAPTURED_SYNTAX,
    OBX_ERR_CAPTURED_RANGE,
    OBX_ERR_GOAT_TOTAL,
    OBX_ERR_TIGERS_FIRST,
    OBX_ERR_LAST_MOVE,
    OBX_ERR_MOVE_NUMBER,
    MOVE_ERR_SYNTAX,
    MOVE_ERR_NOT_A_LINE,
    MOVE_ERR_SUFFIX,
    MOVE_ERR_ILLEGAL,
    MOVE_ERR_REPETITION,
    MOVE_ERR_GAME_OVER,
    BC_ERR_NO_MEMORY,
    BC_ERROR_COUNT
} bc_error_t;

/* A short stable name for each code, e.g. "tiger-count". */
const char *bc_error_name(bc_error_t e);

/* The informational OBX fields. ply counts half-moves from the start of the game
 * (0 = no move yet, -1 = unknown); OBX 2.0 writes it as "#g7" / "#t3", OBX 1.0 as a number. */
typedef struct {
    move_t last_move; /* MOVE_NONE when the field is "-" or absent */
    int ply;
} obx_meta_t;

enum { OBX_V1 = 1, OBX_V2 = 2, OBX_MAX_LEN = 64, MOVE_TEXT_LEN = 12 };

/* Parses one OBX line (fields separated by spaces or tabs). On error returns the code,
 * writes a message naming the broken rule to msg (if msglen > 0) and leaves *pos and
 * *meta untouched. meta may be NULL. */
bc_error_t obx_parse(const char *text, position_t *pos, obx_meta_t *meta, char *msg, size_t msglen);

/* Writes the OBX of pos (version OBX_V2 or OBX_V1) to buf; meta may be NULL ("- #" / "- 0"
 * are written then). Returns the length; buf needs OBX_MAX_LEN bytes. */
size_t obx_format(const position_t *pos, const obx_meta_t *meta, int version, char *buf, size_t len);

/* Reads move text ("C3", "a1b2", "mA1C3(B2)", "nC3") into a move whose kind follows the
 * board's lines: one point is a placement, neighbours a step, a jump line a capture.
 * Checks only the text and the geometry, not any position. */
bc_error_t move_parse_text(const char *text, move_t *out, char *msg, size_t msglen);

/* Reads move text and checks it is a move of pos (rules of the single position). */
bc_error_t move_parse(const position_t *pos, const char *text, move_t *out, char *msg, size_t msglen);

/* "C3", "A1B2", "A1C3"; "(none)" for MOVE_NONE. buf needs MOVE_TEXT_LEN bytes. */
void move_format(move_t m, char *buf);
/* OBX form: "mC3", "mA1B2", "mA1C3(B2)"; "-" for MOVE_NONE. */
void move_format_obx(move_t m, char *buf);

#endif
