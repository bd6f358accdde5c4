/* The endgame bitbase built into the library: the exact value (win, draw or loss; no
 * distance) of every movement-phase position with tigers to move and at most one goat
 * captured, taken from the movement database (baghchal.tb) by `baghchal-tbgen --bitbase`.
 * These crowded positions, where the goats close the last points around the tigers, are
 * the ones the search and the network misjudge most near the end of the game; 96 KB settle
 * them exactly in every build that has no database files (the executable without
 * TablebasePath, the WebAssembly engines, the Python package). The search uses it only
 * when no database is loaded, so play with the files is unchanged.
 *
 * Format: "BCBB", version (u16), the most goats captured it holds (u16), the entry count
 * (u32), the values at 2 bits an entry (0 loss, 1 draw, 2 win for the tigers; entry i in
 * bits 2 (i mod 4) of byte i / 4), then the FNV-1a hash of every byte before it (u32); all
 * little-endian. Entry i of the movement database's tigers-to-move side of slice c (its
 * index, tb_build.h) is entry i of the bitbase after the entries of the slices below c. */
#ifndef BAGHCHAL_BITBASE_H
#define BAGHCHAL_BITBASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"

enum {
    BITBASE_VERSION = 1,
    BITBASE_MAX_CAPTURED = 1,
    BITBASE_HEADER = 12,
};

struct tb_index;

typedef struct {
    struct tb_index *ix; /* the movement database's index, made by bitbase_load */
    const uint8_t *values;
    uint32_t entries;
    uint32_t start[BITBASE_MAX_CAPTURED + 1]; /* first entry of each slice */
} bitbase_t;

/* The bitbase as built into the library (bitbase_data.c, generated). */
extern const uint8_t BITBASE_DATA[];
extern const size_t BITBASE_SIZE;

/* Checks a bitbase file (magic, version, the captured count, the entry count this build's
 * index gives, size, checksum) and makes the index it is read with; data must outlive b.
 * On failure returns false with a one-line reason in msg and b empty (probes answer nothing). */
bool bitbase_load(bitbase_t *b, const uint8_t *data, size_t len, char *msg, size_t msglen);
void bitbase_free(bitbase_t *b);

/* Whether the bitbase covers the positions of this side to move, goats in hand and goats
 * captured: tigers to move, no goat in hand, at most BITBASE_MAX_CAPTURED goats captured. */
static inline bool bitbase_covers(int side, int in_hand, int captured)
{
    return side == TIGERS && !in_hand && captured <= BITBASE_MAX_CAPTURED;
}

/* The value for the tigers of p (-1 loss, 0 draw, 1 win) when p is covered. */
bool bitbase_probe(const bitbase_t *b, const position_t *p, int *wdl);

#endif
