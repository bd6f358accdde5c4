/* The perfect-play databases of the whole game, behind one handle: the movement phase
 * (baghchal.tb: win / draw / loss for the side to move and the distance in plies to the end,
 * every position with no goat in hand, under the `draw` repetition rule) and the placement
 * phase (baghchal-placement.tb: win / draw / loss of every position with goats in hand).
 * This header is what the engine needs: open, probe, rank moves. The folder also holds the
 * indexes (tb_index.c for the movement phase, tb_place_index.c for the placement phase), the
 * file formats and their readers (tb_file.c, tb_place_file.c, tb_io.c), the probe (tb.c),
 * and, for the tools only (tb_build.h), the generators (tb_gen.c, tb_place_gen.c), the
 * packing (tb_place_pack.c) and the statistics and checks (tb_place_stats.c). Probing never
 * depends on generating. Formats and tools: tools/tbgen/README.md. */
#ifndef BAGHCHAL_TB_H
#define BAGHCHAL_TB_H

#include <stddef.h>

#include "board.h"

enum {
    TB_TIGER_CLASSES = 1666, /* tiger placements up to the 8 board symmetries */
    TB_SYM_NB = 8,
    TB_MAX_SLICES = BC_CAPTURES_TO_WIN, /* slices 0 .. captures_to_win - 1 */
    TB_FILE_VERSION = 2,
    TB_RULE_DRAW = 1, /* the repetition rule the values are computed under */
    TB_MAX_DISTANCE = 253,
    TB_DISTANCE_UNKNOWN = 255 /* a placement-phase win or loss: the distance is not stored */
};

#define TB_FILE_NAME "baghchal.tb"
#define TBP_FILE_NAME "baghchal-placement.tb"

typedef enum { TB_LOSS = -1, TB_DRAW = 0, TB_WIN = 1 } tb_wdl_t;

/* The value of a position for its side to move. distance is in plies to the end of the game
 * under best play (the winner hurries, the loser delays); 0 for a draw. A win always has an
 * odd distance, a loss an even one; a loss in 0 is a side to move that has lost already. */
typedef struct {
    int8_t wdl; /* tb_wdl_t */
    uint8_t distance;
} tb_value_t;

typedef enum {
    TB_OK = 0,
    TB_ERR_NO_MEMORY,
    TB_ERR_IO,        /* a file could not be opened, read, written or mapped */
    TB_ERR_FORMAT,    /* not a database, another version or rule, wrong size (truncated) */
    TB_ERR_CHECKSUM,  /* header or slice data does not match its checksum */
    TB_ERR_MISSING,   /* a slice is not built yet */
    TB_ERR_MISMATCH,  /* the directory holds a database for another capture count */
    TB_ERR_ARGUMENT,  /* bad option (thread count, slice, capture count) */
    TB_ERR_THREAD,    /* a worker thread could not be started */
    TB_ERR_LIMIT,     /* a distance or move counter beyond what the format holds */
    TB_ERR_VERIFY,    /* a value disagrees with the values of its children */
    TB_ERR_LOCKED,    /* another build holds the folder */
    TB_ERROR_COUNT
} tb_error_t;

/* A short stable name for each code, e.g. "checksum". */
const char *tb_error_name(tb_error_t e);

/* ---- Opening and probing ------------------------------------------------------------ */

typedef struct tb tb_t;

/* Maps <dir>/baghchal.tb and checks its header, size and every slice's checksum. On error
 * returns the code, writes a one-line reason to msg (if msglen > 0) and sets *out to NULL.
 * The handle is read-only afterwards: any number of threads may probe it at once. */
tb_error_t tb_open(const char *dir, tb_t **out, char *msg, size_t msglen);
/* tb_open for the real game: also refuses (TB_ERR_MISMATCH) a database built for another
 * number of captures. What the engine and the tools use. */
tb_error_t tb_open_game(const char *dir, tb_t **out, char *msg, size_t msglen);
void tb_close(tb_t *tb);
/* Whether a goats-to-move placement probe may stop at the first placement of the least value
 * the file's header counts in the layer it leads to (and read nothing when that layer holds
 * only tigers' wins): on after tb_open. A verifier turns it off, before any probe, so that
 * every placement is read and a wrong stored value is found even where the counts exclude it. */
void tb_trust_layer_counts(tb_t *tb, bool on);

/* Whether the placement-phase file was found beside the movement file (then tb_probe answers
 * positions with goats in hand too, with TB_DISTANCE_UNKNOWN as the distance of a win or
 * loss). */
bool tb_has_placement(const tb_t *tb);

/* The number of captures that wins for the tigers in the game the database was built for
 * (5 for the real game; the engine must not use a database built for another number). */
int tb_captures_to_win(const tb_t *tb);

/* The value of p for its side to move. Returns false ("not covered") while goats are still
 * in hand. A position with captures_to_win goats captured and goats to move is a loss in 0
 * (the game is over); with tigers to move it is not covered. */
bool tb_probe(const tb_t *tb, const position_t *p, tb_value_t *out);

/* The value for the mover of a move whose resulting position has value child. */
tb_value_t tb_value_after_move(tb_value_t child);
/* An order on values for the side they belong to: larger is better (a faster win, then
 * draws, then a slower loss). Equal order = equal value. */
int tb_value_order(tb_value_t v);

typedef struct {
    move_t move;
    tb_value_t value; /* for the side to move of p, after this move */
} tb_move_value_t;

/* Ranks the n legal moves of p by the database: writes every move with the value it leads
 * to into out (room for n), best first (stable among equal values), and returns how many
 * moves keep the best value (fastest win, slowest loss or any draw), at least 1.
 * Returns 0 when n is 0 and -1 when p (or one of its children) is not covered. */
int tb_rank_moves(const tb_t *tb, const position_t *p, const move_t *moves, int n, tb_move_value_t *out);

/* ---- The standard folder ------------------------------------------------------------- */

enum { TB_PATH_MAX = 4096 };
/* Names the folder instead; empty or "<empty>": no database unless one is named. */
#define TB_PATH_ENV "BAGHCHAL_TABLEBASE_PATH"

/* The folder used when none is named (the engine's TablebasePath default, the server, the
 * referee, baghchal-tbgen without a folder): $BAGHCHAL_TABLEBASE_PATH when it is set; else
 * $XDG_DATA_HOME/baghchal (~/.local/share/baghchal when XDG_DATA_HOME is unset or relative)
 * unless only <install prefix>/share/baghchal holds baghchal.tb. Writes it to out and
 * returns true; false (out empty) when the variable turns the default off or there is no
 * such folder (no home, a name longer than len). The folder need not exist. */
bool tb_default_dir(char *out, size_t len);
/* Whether dir/baghchal.tb exists and can be read (the placement file is optional). */
bool tb_dir_has_database(const char *dir);


#endif
