/* The endgame bitbase built into the library: loading, checking and probing (bitbase.h). */
#include "bitbase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "tb/tb_build.h"

static bool refuse(bitbase_t *b, char *msg, size_t msglen, const char *why)
{
    tb_index_free(b->ix);
    memset(b, 0, sizeof *b);
    if (msglen)
        snprintf(msg, msglen, "%s", why);
    return false;
}

bool bitbase_load(bitbase_t *b, const uint8_t *data, size_t len, char *msg, size_t msglen)
{
    memset(b, 0, sizeof *b);
    if (len < BITBASE_HEADER + 4 || memcmp(data, "BCBB", 4) != 0)
        return refuse(b, msg, msglen, "not a bitbase (no BCBB magic)");
    if ((uint32_t)tb_get_le(data + 4, 2) != BITBASE_VERSION)
        return refuse(b, msg, msglen, "another version of the format");
    if ((uint32_t)tb_get_le(data + 6, 2) != BITBASE_MAX_CAPTURED)
        return refuse(b, msg, msglen, "holds another number of captures");
    uint32_t want = 0;
    for (int c = 0; c <= BITBASE_MAX_CAPTURED; c++) {
        b->start[c] = want;
        want += (uint32_t)tb_slice_size(c);
    }
    uint32_t entries = (uint32_t)tb_get_le(data + 8, 4);
    if (entries != want)
        return refuse(b, msg, msglen, "wrong entry count");
    size_t body = BITBASE_HEADER + ((size_t)entries + 3) / 4;
    if (len != body + 4)
        return refuse(b, msg, msglen, "wrong size");
    if (eval_fnv1a(data, body, EVAL_FNV_START) != (uint32_t)tb_get_le(data + body, 4))
        return refuse(b, msg, msglen, "checksum mismatch");
    b->ix = tb_index_new();
    if (!b->ix)
        return refuse(b, msg, msglen, "not enough memory for its index");
    b->values = data + BITBASE_HEADER;
    b->entries = entries;
    return true;
}

void bitbase_free(bitbase_t *b)
{
    tb_index_free(b->ix);
    memset(b, 0, sizeof *b);
}

bool bitbase_probe(const bitbase_t *b, const position_t *p, int *wdl)
{
    if (!b->values || !bitbase_covers(p->side, p->in_hand, p->captured))
        return false;
    bb_t empty = position_empty(p);
    int c = p->captured;
    if (bb_count(empty) != 1 + c || bb_count(p->tigers) != BC_TIGERS_NB)
        return false;
    int stab;
    uint32_t i = b->start[c] + tbi_entry(b->ix, p->tigers, empty, b->ix->binom[21][1 + c], &stab);
    *wdl = (int)(b->values[i >> 2] >> (2 * (i & 3)) & 3) - 1;
    return true;
}
