/* Packing the generator's finished layers into the placement file: the block code's
 * encoder and the file's assembly. */
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

enum { ALIGN = 4096, BLOCK = TBP_BLOCK, GROUP = TBP_GROUP };

static const uint8_t PAIR_HI[3] = {1, 2, 2};

typedef struct {
    uint8_t *buf;
    uint64_t bits, cap; /* cap in bytes */
} bitw_t;

static bool bw_put(bitw_t *w, uint64_t v, int n)
{
    if ((w->bits + (uint64_t)n + 64) / 8 >= w->cap) {
        uint64_t cap = w->cap ? w->cap * 2 : 1 << 16;
        uint8_t *b = realloc(w->buf, cap);
        if (!b)
            return false;
        memset(b + w->cap, 0, cap - w->cap);
        w->buf = b, w->cap = cap;
    }
    for (int i = 0; i < n; i++, w->bits++)
        if (v >> i & 1)
            w->buf[w->bits >> 3] |= (uint8_t)(1u << (w->bits & 7));
    return true;
}

static bool encode_block(bitw_t *w, const uint8_t *v, int n)
{
    int seen = 0;
    for (int j = 0; j < n; j++)
        seen |= 1 << v[j];
    if (seen == 1 || seen == 2 || seen == 4)
        return bw_put(w, (uint64_t)__builtin_ctz((unsigned)seen), 3);
    if (seen != 7) {
        int type = seen == 3 ? 3 : seen == 5 ? 4 : 5;
        uint64_t bits = 0;
        for (int j = 0; j < n; j++)
            bits |= (uint64_t)(v[j] == PAIR_HI[type - 3]) << j;
        return bw_put(w, (uint64_t)type, 3) && bw_put(w, bits, 32);
    }
    uint64_t bits = 0;
    for (int q = 0; q < 6; q++) {
        uint64_t byte = 0;
        for (int j = 4; j >= 0; j--)
            byte = byte * 3 + (q * 5 + j < n ? v[q * 5 + j] : 0);
        bits |= byte << (8 * q);
    }
    for (int j = 30; j < 32; j++)
        bits |= (uint64_t)(j < n ? v[j] : 0) << (48 + 2 * (j - 30));
    return bw_put(w, 6, 3) && bw_put(w, bits, 52);
}

/* Encodes a generator layer: *dir (groups words) and the stream (bytes, padded so that an
 * 8-byte read at any bit stays inside). */
static tb_error_t encode_layer(const tbp_layer_t *l, uint32_t **dir_out, uint64_t *groups_out, bitw_t *w, char *msg,
                               size_t msglen)
{
    uint64_t n = (uint64_t)l->ng * TB_TIGER_CLASSES, groups = (n + BLOCK * GROUP - 1) / (BLOCK * GROUP);
    uint32_t *dir = malloc((groups ? groups : 1) * sizeof *dir);
    if (!dir)
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    uint8_t v[BLOCK];
    int filled = 0;
    uint64_t block = 0;
    for (uint32_t k = 0; k < TB_TIGER_CLASSES; k++) {
        const uint64_t *b = l->bits + (uint64_t)k * l->wpc;
        for (uint32_t r = 0; r < l->ng; r++) {
            v[filled++] = (uint8_t)tbp_get(b, r);
            if (filled == BLOCK) {
                if (block % GROUP == 0) {
                    if (w->bits > UINT32_MAX)
                        return free(dir), fail(TB_ERR_LIMIT, msg, msglen, "a layer's code exceeds 2^32 bits");
                    dir[block / GROUP] = (uint32_t)w->bits;
                }
                if (!encode_block(w, v, filled))
                    return free(dir), fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
                filled = 0, block++;
            }
        }
    }
    if (filled) {
        if (block % GROUP == 0)
            dir[block / GROUP] = (uint32_t)w->bits;
        if (!encode_block(w, v, filled))
            return free(dir), fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    }
    if (!bw_put(w, 0, 64)) /* padding for the reads */
        return free(dir), fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    *dir_out = dir;
    *groups_out = groups;
    return TB_OK;
}

/* ---- Packing ------------------------------------------------------------------------- */

tb_error_t tbp_pack(const char *work, const char *path, int goats_total, int captures_to_win, int max_in_hand,
                    int min_goats, int stored_side, void (*progress)(void *ctx, int side, int h, int c, uint64_t bytes), void *ctx, char *msg,
                    size_t msglen)
{
    tbp_rank_t rk;
    tbp_rank_init(&rk);
    tbp_header_t *x = malloc(sizeof *x);
    if (!x)
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    tbp_header_init(x, goats_total, captures_to_win);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        free(x);
        return fail(TB_ERR_IO, msg, msglen, "cannot create %s: %s", tmp, strerror(errno));
    }
    tb_error_t e = TB_OK;
    uint64_t at = TBP_HEADER_SIZE;
    for (int side = 0; side < SIDE_NB && e == TB_OK; side++)
        for (int h = 1; h <= goats_total && e == TB_OK; h++)
            for (int c = 0; c < captures_to_win && e == TB_OK; c++) {
                if (!tbp_layer_exists(goats_total, captures_to_win, side, h, c))
                    continue;
                tbp_layer_t l;
                tbp_layer_shape(&l, &rk, goats_total, side, h, c);
                if (!tbp_layer_in_scope(goats_total, side, h, c, max_in_hand, min_goats))
                    continue;
                if ((e = tbp_layer_load(work, &l, goats_total, captures_to_win, msg, msglen)) != TB_OK)
                    break;
                tbp_layer_info_t *li = &x->layer[x->layer_count++];
                li->side = (uint8_t)side, li->h = (uint8_t)h, li->c = (uint8_t)c, li->ng = l.ng;
                memcpy(li->count, l.count, sizeof li->count);
                if (side == stored_side) {
                    uint32_t *dir = NULL;
                    bitw_t w = {0};
                    e = encode_layer(&l, &dir, &li->groups, &w, msg, msglen);
                    if (e == TB_OK) {
                        uint64_t dbytes = li->groups * 4, sbytes = (w.bits + 7) / 8;
                        li->stored = 1;
                        li->offset = at;
                        li->length = dbytes + sbytes;
                        uint8_t *all = malloc(li->length);
                        if (!all) {
                            e = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
                        } else {
                            for (uint64_t q = 0; q < li->groups; q++)
                                tb_put_le(all + 4 * q, dir[q], 4);
                            memcpy(all + dbytes, w.buf, sbytes);
                            li->checksum = tb_checksum(all, li->length);
                            if (!tb_pwrite_all(fd, all, li->length, at))
                                e = fail(TB_ERR_IO, msg, msglen, "cannot write %s: %s", tmp, strerror(errno));
                            free(all);
                        }
                        at = (at + li->length + ALIGN - 1) / ALIGN * ALIGN;
                    }
                    free(dir);
                    free(w.buf);
                }
                free(l.bits);
                if (e == TB_OK && progress)
                    progress(ctx, side, h, c, li->stored ? li->length : 0);
            }
    if (e == TB_OK) {
        uint8_t *hdr = malloc(TBP_HEADER_SIZE);
        x->file_size = at;
        if (!hdr)
            e = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
        else {
            tbp_header_encode(x, hdr);
            if (!tb_pwrite_all(fd, hdr, TBP_HEADER_SIZE, 0) || ftruncate(fd, (off_t)at) != 0 || fsync(fd) != 0)
                e = fail(TB_ERR_IO, msg, msglen, "cannot write %s: %s", tmp, strerror(errno));
            free(hdr);
        }
    }
    if (close(fd) != 0 && e == TB_OK)
        e = fail(TB_ERR_IO, msg, msglen, "cannot close %s: %s", tmp, strerror(errno));
    if (e == TB_OK && rename(tmp, path) != 0)
        e = fail(TB_ERR_IO, msg, msglen, "cannot rename %s: %s", tmp, strerror(errno));
    if (e != TB_OK)
        unlink(tmp);
    free(x);
    return e;
}
