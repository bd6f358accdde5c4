/* The database file: header layout, encoding with its checksum, and the data checksum. */
#include "tb_build.h"
#include "message.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char TB_MAGIC[8] = {'B', 'A', 'G', 'H', 'C', 'H', 'T', 'B'};

enum { SLICE_RECORD = 48, SLICE_TABLE_AT = 40, ALIGN = 4096 };

#define fail(e, ...) ((tb_error_t)bc_fail((e), __VA_ARGS__))

/* ---- XXH64 -------------------------------------------------------------------------- */

static const uint64_t P1 = 0x9E3779B185EBCA87ull, P2 = 0xC2B2AE3D27D4EB4Full, P3 = 0x165667B19E3779F9ull,
                      P4 = 0x85EBCA77C2B2AE63ull, P5 = 0x27D4EB2F165667C5ull;

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static inline uint64_t xxh_round(uint64_t acc, uint64_t in) { return rotl64(acc + in * P2, 31) * P1; }
static inline uint64_t xxh_merge(uint64_t h, uint64_t v) { return (h ^ xxh_round(0, v)) * P1 + P4; }

uint64_t tb_checksum(const void *data, size_t len)
{
    const uint8_t *p = data, *end = p + len;
    uint64_t h;
    if (len >= 32) {
        uint64_t v1 = P1 + P2, v2 = P2, v3 = 0, v4 = 0 - P1;
        for (; end - p >= 32; p += 32) {
            v1 = xxh_round(v1, tb_le64(p));
            v2 = xxh_round(v2, tb_le64(p + 8));
            v3 = xxh_round(v3, tb_le64(p + 16));
            v4 = xxh_round(v4, tb_le64(p + 24));
        }
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        h = xxh_merge(xxh_merge(xxh_merge(xxh_merge(h, v1), v2), v3), v4);
    } else {
        h = P5;
    }
    h += len;
    for (; end - p >= 8; p += 8)
        h = rotl64(h ^ xxh_round(0, tb_le64(p)), 27) * P1 + P4;
    if (end - p >= 4) {
        h = rotl64(h ^ ((uint64_t)(uint32_t)tb_get_le(p, 4) * P1), 23) * P2 + P3;
        p += 4;
    }
    for (; p < end; p++)
        h = rotl64(h ^ (*p * P5), 11) * P1;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

/* ---- Header ------------------------------------------------------------------------- */

void tb_header_init(tb_header_t *h, int captures_to_win, int goats_total)
{
    memset(h, 0, sizeof *h);
    h->version = TB_FILE_VERSION;
    h->rule = TB_RULE_DRAW;
    h->captures_to_win = (uint32_t)captures_to_win;
    h->goats_total = (uint32_t)goats_total;
    h->slice_count = (uint32_t)captures_to_win;
    h->tiger_classes = TB_TIGER_CLASSES;
    h->header_size = TB_HEADER_SIZE;
    uint64_t at = TB_HEADER_SIZE;
    for (int c = 0; c < captures_to_win; c++) {
        tb_slice_info_t *s = &h->slice[c];
        s->offset = at;
        s->length = 2 * tb_slice_size_game(goats_total, c);
        s->goat_sets = (uint32_t)(tb_slice_size_game(goats_total, c) / TB_TIGER_CLASSES);
        h->file_size = at + s->length;
        at = (h->file_size + ALIGN - 1) / ALIGN * ALIGN;
    }
}

static uint64_t header_hash(const uint8_t *buf)
{
    /* FNV-1a, 64 bits, over the bytes before the checksum field. */
    uint64_t x = 0xcbf29ce484222325ull;
    for (int i = 0; i < TB_HEADER_USED - 8; i++)
        x = (x ^ buf[i]) * 0x100000001b3ull;
    return x;
}

void tb_header_encode(const tb_header_t *h, uint8_t buf[TB_HEADER_SIZE])
{
    memset(buf, 0, TB_HEADER_SIZE);
    memcpy(buf, TB_MAGIC, sizeof TB_MAGIC);
    tb_put_le(buf + 8, h->version, 4);
    tb_put_le(buf + 12, h->rule, 4);
    tb_put_le(buf + 16, h->captures_to_win, 4);
    tb_put_le(buf + 20, h->slice_count, 4);
    tb_put_le(buf + 24, h->tiger_classes, 4);
    tb_put_le(buf + 28, h->header_size, 4);
    tb_put_le(buf + 32, h->file_size, 8);
    tb_put_le(buf + TB_HEADER_USED - 16, h->goats_total, 4);
    for (int c = 0; c < TB_MAX_SLICES; c++) {
        uint8_t *r = buf + SLICE_TABLE_AT + c * SLICE_RECORD;
        const tb_slice_info_t *s = &h->slice[c];
        if ((uint32_t)c >= h->slice_count)
            continue;
        tb_put_le(r, (uint32_t)c, 4);
        tb_put_le(r + 4, s->built, 4);
        tb_put_le(r + 8, s->offset, 8);
        tb_put_le(r + 16, s->length, 8);
        tb_put_le(r + 24, s->goat_sets, 4);
        tb_put_le(r + 28, s->longest, 4);
        tb_put_le(r + 32, s->checksum, 8);
    }
    tb_put_le(buf + TB_HEADER_USED - 8, header_hash(buf), 8);
}

tb_error_t tb_header_decode(const uint8_t *buf, size_t len, tb_header_t *h, char *msg, size_t msglen)
{
    if (len < TB_HEADER_SIZE)
        return fail(TB_ERR_FORMAT, msg, msglen, "file too short for a header (%zu bytes)", len);
    if (memcmp(buf, TB_MAGIC, sizeof TB_MAGIC) != 0)
        return fail(TB_ERR_FORMAT, msg, msglen, "not a baghchal database (bad magic)");
    /* Another version first: its layout, and so its checksum, may differ. */
    uint32_t version = (uint32_t)tb_get_le(buf + 8, 4);
    if (version > TB_FILE_VERSION)
        return fail(TB_ERR_FORMAT, msg, msglen,
                    "movement file version %u is newer than this program, which reads version %d: use a newer "
                    "baghchal", version, TB_FILE_VERSION);
    if (version != TB_FILE_VERSION)
        return fail(TB_ERR_FORMAT, msg, msglen,
                    "movement file version %u, this program reads version %d: build it again with "
                    "baghchal-tbgen <dir> --restart", version, TB_FILE_VERSION);
    if (tb_get_le(buf + TB_HEADER_USED - 8, 8) != header_hash(buf))
        return fail(TB_ERR_CHECKSUM, msg, msglen, "header checksum mismatch");
    tb_header_t x;
    memset(&x, 0, sizeof x);
    x.version = (uint32_t)tb_get_le(buf + 8, 4);
    x.rule = (uint32_t)tb_get_le(buf + 12, 4);
    x.captures_to_win = (uint32_t)tb_get_le(buf + 16, 4);
    x.slice_count = (uint32_t)tb_get_le(buf + 20, 4);
    x.tiger_classes = (uint32_t)tb_get_le(buf + 24, 4);
    x.header_size = (uint32_t)tb_get_le(buf + 28, 4);
    x.file_size = tb_get_le(buf + 32, 8);
    x.goats_total = (uint32_t)tb_get_le(buf + TB_HEADER_USED - 16, 4);
    if (x.rule != TB_RULE_DRAW)
        return fail(TB_ERR_FORMAT, msg, msglen, "unknown repetition rule %u", x.rule);
    if (x.captures_to_win < 1 || x.captures_to_win > TB_MAX_SLICES || x.slice_count != x.captures_to_win)
        return fail(TB_ERR_FORMAT, msg, msglen, "bad capture count %u", x.captures_to_win);
    if (x.goats_total < 1 || x.goats_total > BC_GOATS_TOTAL || x.captures_to_win > x.goats_total)
        return fail(TB_ERR_FORMAT, msg, msglen, "bad goat count %u", x.goats_total);
    tb_header_t layout;
    tb_header_init(&layout, (int)x.captures_to_win, (int)x.goats_total);
    if (x.tiger_classes != layout.tiger_classes || x.header_size != layout.header_size ||
        x.file_size != layout.file_size)
        return fail(TB_ERR_FORMAT, msg, msglen, "header layout does not match the format");
    for (uint32_t c = 0; c < x.slice_count; c++) {
        const uint8_t *r = buf + SLICE_TABLE_AT + c * SLICE_RECORD;
        tb_slice_info_t *s = &x.slice[c];
        s->built = (uint32_t)tb_get_le(r + 4, 4);
        s->offset = tb_get_le(r + 8, 8);
        s->length = tb_get_le(r + 16, 8);
        s->goat_sets = (uint32_t)tb_get_le(r + 24, 4);
        s->longest = (uint32_t)tb_get_le(r + 28, 4);
        s->checksum = tb_get_le(r + 32, 8);
        if ((uint32_t)tb_get_le(r, 4) != c || s->built > 1 || s->offset != layout.slice[c].offset ||
            s->length != layout.slice[c].length || s->goat_sets != layout.slice[c].goat_sets)
            return fail(TB_ERR_FORMAT, msg, msglen, "slice table entry %u does not match the format", c);
    }
    *h = x;
    return TB_OK;
}
