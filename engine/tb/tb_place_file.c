/* The placement-phase file as the probe reads it: its header and layer table, and the block
 * code of a layer's values (random access: any entry is read from one directory word and at
 * most sixteen block headers). The packing is tb_place_pack.c. */
#define _POSIX_C_SOURCE 200809L
#include "tb_build.h"
#include "message.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define fail(e, ...) ((tb_error_t)bc_fail((e), __VA_ARGS__))

static const char MAGIC[8] = {'B', 'A', 'G', 'H', 'C', 'H', 'P', 'L'};

enum { LAYER_TABLE_AT = 64, LAYER_RECORD = 64, BLOCK = TBP_BLOCK, GROUP = TBP_GROUP };

/* ---- The block code --------------------------------------------------------------------
 * A layer's entries (class * goat sets + rank, no padding) fall into blocks of 32. A block
 * is a 3-bit type and its data: types 0-2, every value the type (no data); types 3-5, two
 * values ({0,1}, {0,2}, {1,2}) and a bit per entry for the higher one; type 6, all three:
 * thirty entries five to a byte in base 3, then two entries of 2 bits (52 bits). Blocks
 * are grouped by 16; the directory holds each group's first bit. */

static const uint8_t DATA_BITS[8] = {0, 0, 0, 32, 32, 32, 52, 0};
static const uint8_t PAIR_LO[3] = {0, 0, 1}, PAIR_HI[3] = {1, 2, 2};

static const uint8_t POW3[5] = {1, 3, 9, 27, 81};

uint64_t tbp_bits_at(const uint8_t *p, uint64_t pos)
{
    return tb_get_le(p + (pos >> 3), 8) >> (pos & 7);
}

uint32_t tbp_block_value(const uint8_t *stream, const uint32_t *dir, uint64_t i)
{
    uint64_t pos = dir[i / (BLOCK * GROUP)];
    for (uint32_t b = (uint32_t)(i % (BLOCK * GROUP)) / BLOCK; b; b--)
        pos += 3 + DATA_BITS[tbp_bits_at(stream, pos) & 7];
    uint64_t w = tbp_bits_at(stream, pos);
    uint32_t type = w & 7, j = (uint32_t)(i % BLOCK);
    w >>= 3;
    if (type < 3)
        return type;
    if (type < 6)
        return (w >> j & 1) ? PAIR_HI[type - 3] : PAIR_LO[type - 3];
    if (j < 30)
        return (uint32_t)(((w >> (8 * (j / 5))) & 0xFF) / POW3[j % 5] % 3);
    return (uint32_t)(w >> (48 + 2 * (j - 30))) & 3;
}

/* ---- Header ------------------------------------------------------------------------- */

void tbp_header_init(tbp_header_t *x, int goats_total, int captures_to_win)
{
    memset(x, 0, sizeof *x);
    x->version = TBP_FILE_VERSION;
    x->goats_total = (uint32_t)goats_total;
    x->captures_to_win = (uint32_t)captures_to_win;
    x->tiger_classes = TB_TIGER_CLASSES;
    x->header_size = TBP_HEADER_SIZE;
    x->file_size = TBP_HEADER_SIZE;
}

void tbp_header_encode(const tbp_header_t *x, uint8_t buf[TBP_HEADER_SIZE])
{
    memset(buf, 0, TBP_HEADER_SIZE);
    memcpy(buf, MAGIC, 8);
    tb_put_le(buf + 8, x->version, 4);
    tb_put_le(buf + 12, x->goats_total, 4);
    tb_put_le(buf + 16, x->captures_to_win, 4);
    tb_put_le(buf + 20, x->layer_count, 4);
    tb_put_le(buf + 24, x->tiger_classes, 4);
    tb_put_le(buf + 28, x->header_size, 4);
    tb_put_le(buf + 32, x->file_size, 8);
    for (uint32_t i = 0; i < x->layer_count; i++) {
        const tbp_layer_info_t *l = &x->layer[i];
        uint8_t *r = buf + LAYER_TABLE_AT + i * LAYER_RECORD;
        r[0] = (uint8_t)l->side, r[1] = (uint8_t)l->h, r[2] = (uint8_t)l->c, r[3] = l->stored;
        tb_put_le(r + 4, l->ng, 4);
        tb_put_le(r + 8, l->offset, 8);
        tb_put_le(r + 16, l->groups, 8);
        tb_put_le(r + 24, l->length, 8);
        tb_put_le(r + 32, l->checksum, 8);
        for (int v = 0; v < 3; v++)
            tb_put_le(r + 40 + 8 * v, l->count[v], 8);
    }
    tb_put_le(buf + TBP_HEADER_SIZE - 8, tb_checksum(buf, TBP_HEADER_SIZE - 8), 8);
}

tb_error_t tbp_header_decode(const uint8_t *buf, size_t len, tbp_header_t *x, char *msg, size_t msglen)
{
    if (len < TBP_HEADER_SIZE)
        return fail(TB_ERR_FORMAT, msg, msglen, "file too short for a header (%zu bytes)", len);
    if (memcmp(buf, MAGIC, 8) != 0)
        return fail(TB_ERR_FORMAT, msg, msglen, "not a baghchal placement database (bad magic)");
    if (tb_get_le(buf + TBP_HEADER_SIZE - 8, 8) != tb_checksum(buf, TBP_HEADER_SIZE - 8))
        return fail(TB_ERR_CHECKSUM, msg, msglen, "header checksum mismatch");
    memset(x, 0, sizeof *x);
    x->version = (uint32_t)tb_get_le(buf + 8, 4);
    x->goats_total = (uint32_t)tb_get_le(buf + 12, 4);
    x->captures_to_win = (uint32_t)tb_get_le(buf + 16, 4);
    x->layer_count = (uint32_t)tb_get_le(buf + 20, 4);
    x->tiger_classes = (uint32_t)tb_get_le(buf + 24, 4);
    x->header_size = (uint32_t)tb_get_le(buf + 28, 4);
    x->file_size = tb_get_le(buf + 32, 8);
    if (x->version != TBP_FILE_VERSION)
        return fail(TB_ERR_FORMAT, msg, msglen, "file version %u, expected %d", x->version, TBP_FILE_VERSION);
    if (x->goats_total < 1 || x->goats_total > TBP_MAX_IN_HAND || x->captures_to_win < 1 ||
        x->captures_to_win > TB_MAX_SLICES || x->tiger_classes != TB_TIGER_CLASSES ||
        x->header_size != TBP_HEADER_SIZE || x->layer_count > TBP_MAX_LAYERS)
        return fail(TB_ERR_FORMAT, msg, msglen, "header fields out of range");
    tbp_rank_t rk;
    tbp_rank_init(&rk);
    for (uint32_t i = 0; i < x->layer_count; i++) {
        const uint8_t *r = buf + LAYER_TABLE_AT + i * LAYER_RECORD;
        tbp_layer_info_t *l = &x->layer[i];
        l->side = r[0], l->h = r[1], l->c = r[2], l->stored = r[3];
        l->ng = (uint32_t)tb_get_le(r + 4, 4);
        l->offset = tb_get_le(r + 8, 8);
        l->groups = tb_get_le(r + 16, 8);
        l->length = tb_get_le(r + 24, 8);
        l->checksum = tb_get_le(r + 32, 8);
        for (int v = 0; v < 3; v++)
            l->count[v] = tb_get_le(r + 40 + 8 * v, 8);
        uint64_t n = (uint64_t)l->ng * TB_TIGER_CLASSES;
        if (!tbp_layer_exists((int)x->goats_total, (int)x->captures_to_win, l->side, l->h, l->c) || l->stored > 1 ||
            l->ng != rk.binom[21][x->goats_total - l->h - l->c] ||
            (l->stored && (l->groups != (n + BLOCK * GROUP - 1) / (BLOCK * GROUP) ||
                           l->offset < TBP_HEADER_SIZE || l->length < l->groups * 4 + 8 ||
                           l->offset + l->length > x->file_size)))
            return fail(TB_ERR_FORMAT, msg, msglen, "layer table entry %u does not match the format", i);
    }
    return TB_OK;
}
