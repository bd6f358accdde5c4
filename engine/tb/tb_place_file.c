/* The placement-phase file as the probe reads it: its header, with the table of its arrays
 * (the tigers-to-move values of each captured count, in the code of tb_place_code.h) and of
 * its layers (both sides' counts). Writing it is tb_place_pack.c. */
#define _POSIX_C_SOURCE 200809L
#include "tb_build.h"
#include "tb_place_code.h"
#include "message.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define fail(e, ...) ((tb_error_t)bc_fail((e), __VA_ARGS__))

static const char MAGIC[8] = {'B', 'A', 'G', 'H', 'C', 'H', 'P', 'L'};

enum { ARRAY_TABLE_AT = 48, ARRAY_RECORD = 32, LAYER_TABLE_AT = 256, LAYER_RECORD = 32 };

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
    buf[40] = TBP_CODE_BITS, buf[41] = TBP_CODE_GROUP, buf[42] = TBP_PARENTS, buf[43] = TBP_FREE;
    for (uint32_t c = 0; c < x->captures_to_win && c < TB_MAX_SLICES; c++) {
        const tbp_array_info_t *a = &x->array[c];
        uint8_t *r = buf + ARRAY_TABLE_AT + c * ARRAY_RECORD;
        tb_put_le(r, a->offset, 8);
        tb_put_le(r + 8, a->length, 8);
        tb_put_le(r + 16, a->checksum, 8);
        tb_put_le(r + 24, a->valid, 4);
    }
    for (uint32_t i = 0; i < x->layer_count; i++) {
        const tbp_layer_info_t *l = &x->layer[i];
        uint8_t *r = buf + LAYER_TABLE_AT + i * LAYER_RECORD;
        r[0] = (uint8_t)l->side, r[1] = (uint8_t)l->h, r[2] = (uint8_t)l->c, r[3] = l->stored;
        tb_put_le(r + 4, l->ng, 4);
        for (int v = 0; v < 3; v++)
            tb_put_le(r + 8 + 8 * v, l->count[v], 8);
    }
    tb_put_le(buf + TBP_HEADER_SIZE - 8, tb_checksum(buf, TBP_HEADER_SIZE - 8), 8);
}

tb_error_t tbp_header_decode(const uint8_t *buf, size_t len, tbp_header_t *x, char *msg, size_t msglen)
{
    if (len < TBP_HEADER_SIZE)
        return fail(TB_ERR_FORMAT, msg, msglen, "file too short for a header (%zu bytes)", len);
    if (memcmp(buf, MAGIC, 8) != 0)
        return fail(TB_ERR_FORMAT, msg, msglen, "not a baghchal placement database (bad magic)");
    memset(x, 0, sizeof *x);
    x->version = (uint32_t)tb_get_le(buf + 8, 4);
    /* Another version: its layout differs, so its checksum is not looked at. A newer file is
     * not to be built over: this program is the older one. */
    if (x->version > TBP_FILE_VERSION)
        return fail(TB_ERR_FORMAT, msg, msglen,
                    "placement file version %u is newer than this program, which reads version %d: use a newer "
                    "baghchal", x->version, TBP_FILE_VERSION);
    if (x->version != TBP_FILE_VERSION)
        return fail(TB_ERR_FORMAT, msg, msglen,
                    "placement file version %u, this program reads version %d: build it again with "
                    "baghchal-tbgen <dir> --placement --restart",
                    x->version, TBP_FILE_VERSION);
    if (tb_get_le(buf + TBP_HEADER_SIZE - 8, 8) != tb_checksum(buf, TBP_HEADER_SIZE - 8))
        return fail(TB_ERR_CHECKSUM, msg, msglen, "header checksum mismatch");
    x->goats_total = (uint32_t)tb_get_le(buf + 12, 4);
    x->captures_to_win = (uint32_t)tb_get_le(buf + 16, 4);
    x->layer_count = (uint32_t)tb_get_le(buf + 20, 4);
    x->tiger_classes = (uint32_t)tb_get_le(buf + 24, 4);
    x->header_size = (uint32_t)tb_get_le(buf + 28, 4);
    x->file_size = tb_get_le(buf + 32, 8);
    if (x->goats_total < 1 || x->goats_total > TBP_MAX_IN_HAND || x->captures_to_win < 1 ||
        x->captures_to_win > TB_MAX_SLICES || x->tiger_classes != TB_TIGER_CLASSES ||
        x->header_size != TBP_HEADER_SIZE || x->layer_count > TBP_MAX_LAYERS || buf[40] != TBP_CODE_BITS ||
        buf[41] != TBP_CODE_GROUP || buf[42] != TBP_PARENTS || buf[43] != TBP_FREE)
        return fail(TB_ERR_FORMAT, msg, msglen, "header fields out of range");
    for (uint32_t c = 0; c < x->captures_to_win; c++) {
        const uint8_t *r = buf + ARRAY_TABLE_AT + c * ARRAY_RECORD;
        tbp_array_info_t *a = &x->array[c];
        a->offset = tb_get_le(r, 8);
        a->length = tb_get_le(r + 8, 8);
        a->checksum = tb_get_le(r + 16, 8);
        a->valid = (uint32_t)tb_get_le(r + 24, 4);
        if (a->valid && (a->offset < TBP_HEADER_SIZE || a->length < TBP_ARRAY_CODE + 8 ||
                         a->offset + a->length > x->file_size || a->valid >> TBP_FREE))
            return fail(TB_ERR_FORMAT, msg, msglen, "array table entry %u does not match the format", c);
    }
    tbp_rank_t rk;
    tbp_rank_init(&rk);
    for (uint32_t i = 0; i < x->layer_count; i++) {
        const uint8_t *r = buf + LAYER_TABLE_AT + i * LAYER_RECORD;
        tbp_layer_info_t *l = &x->layer[i];
        l->side = r[0], l->h = r[1], l->c = r[2], l->stored = r[3];
        l->ng = (uint32_t)tb_get_le(r + 4, 4);
        for (int v = 0; v < 3; v++)
            l->count[v] = tb_get_le(r + 8 + 8 * v, 8);
        /* A stored layer is the tigers' and its array holds its goats-on-board count. */
        int g = (int)x->goats_total - l->h - l->c;
        if (!tbp_layer_exists((int)x->goats_total, (int)x->captures_to_win, l->side, l->h, l->c) || l->stored > 1 ||
            l->ng != rk.binom[21][g] ||
            (l->stored != (l->side == TIGERS && (x->array[l->c].valid >> g & 1))))
            return fail(TB_ERR_FORMAT, msg, msglen, "layer table entry %u does not match the format", i);
    }
    return TB_OK;
}
