/* <dir>/baghchal-forbid.tb: a reduced game's movement slices solved under `forbid`, each
 * written with its checksum as soon as it is solved, and the placement phase's counts and
 * start value under forbid (tools/tbgen/README.md, "Under the rule books' rule"). */
#define _POSIX_C_SOURCE 200809L
#include "message.h"
#include "tb_forbid.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char MAGIC[8] = {'B', 'A', 'G', 'H', 'C', 'H', 'F', 'B'};
enum {
    HDR = TBF_HEADER_SIZE, /* header bytes; the checksum is in the last 8 */
    SLICE_AT = 48, SLICE_REC = 160,
    PLACE_AT = SLICE_AT + TB_MAX_SLICES * SLICE_REC, PLACE_REC = 56,
    TWINS_AT = HDR - 16, /* added after the first files, which have 0 there */
};
_Static_assert(PLACE_AT + TBP_MAX_LAYERS * PLACE_REC <= TWINS_AT, "the header holds its tables");

#define fail(e, ...) ((tb_error_t)bc_fail((e), __VA_ARGS__))

static uint64_t dbits(double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    return v;
}

static double bitsd(uint64_t v)
{
    double d;
    memcpy(&d, &v, 8);
    return d;
}

static void encode(const tbf_header_t *h, uint8_t *b)
{
    memset(b, 0, HDR);
    memcpy(b, MAGIC, 8);
    tb_put_le(b + 8, TBF_FILE_VERSION, 4);
    tb_put_le(b + 12, h->goats_total, 4);
    tb_put_le(b + 16, h->captures_to_win, 4);
    tb_put_le(b + 20, h->placement_built, 4);
    tb_put_le(b + 24, (uint32_t)h->start_value[0], 4);
    tb_put_le(b + 28, (uint32_t)h->start_value[1], 4);
    tb_put_le(b + 32, (uint32_t)h->start_draw_rule, 4);
    tb_put_le(b + 36, h->place_layers, 4);
    tb_put_le(b + 40, dbits(h->place_seconds), 8);
    tb_put_le(b + TWINS_AT, h->placement_twins, 4);
    for (int c = 0; c < TB_MAX_SLICES; c++) {
        uint8_t *r = b + SLICE_AT + c * SLICE_REC;
        const tbf_layer_stats_t *s = &h->slice[c].stats;
        uint64_t f[19] = {h->slice[c].offset, h->slice[c].length, h->slice[c].checksum, h->movement_checksum[c],
                          dbits(h->slice[c].seconds), s->draws[0], s->draws[1], s->won[0], s->won[1], s->lost[0],
                          s->lost[1], s->open[0], s->open[1], s->by_retro[0], s->by_retro[1], s->core,
                          s->search_nodes, s->aborted, s->settled};
        tb_put_le(r, h->slice[c].built, 4);
        for (int i = 0; i < 19; i++)
            tb_put_le(r + 8 + 8 * i, f[i], 8);
    }
    for (uint32_t i = 0; i < h->place_layers && i < TBP_MAX_LAYERS; i++) {
        uint8_t *r = b + PLACE_AT + i * PLACE_REC;
        const tbf_place_info_t *p = &h->place[i];
        r[0] = p->side, r[1] = p->h, r[2] = p->c;
        for (int v = 0; v < 2; v++)
            for (int k = 0; k < 3; k++)
                tb_put_le(r + 8 + 8 * (3 * v + k), p->count[v][k], 8);
    }
    tb_put_le(b + HDR - 8, tb_checksum(b, HDR - 8), 8);
}

static tb_error_t decode(const uint8_t *b, tbf_header_t *h, char *msg, size_t msglen)
{
    memset(h, 0, sizeof *h);
    if (memcmp(b, MAGIC, 8))
        return fail(TB_ERR_FORMAT, msg, msglen, "not a forbid file (magic)");
    if (tb_get_le(b + 8, 4) != TBF_FILE_VERSION)
        return fail(TB_ERR_FORMAT, msg, msglen, "forbid file version %u, not %d", (unsigned)tb_get_le(b + 8, 4),
                    TBF_FILE_VERSION);
    if (tb_get_le(b + HDR - 8, 8) != tb_checksum(b, HDR - 8))
        return fail(TB_ERR_CHECKSUM, msg, msglen, "the forbid file's header checksum does not match");
    h->goats_total = (uint32_t)tb_get_le(b + 12, 4);
    h->captures_to_win = (uint32_t)tb_get_le(b + 16, 4);
    h->placement_built = (uint32_t)tb_get_le(b + 20, 4);
    h->start_value[0] = (int32_t)tb_get_le(b + 24, 4);
    h->start_value[1] = (int32_t)tb_get_le(b + 28, 4);
    h->start_draw_rule = (int32_t)tb_get_le(b + 32, 4);
    h->place_layers = (uint32_t)tb_get_le(b + 36, 4);
    h->place_seconds = bitsd(tb_get_le(b + 40, 8));
    h->placement_twins = (uint32_t)tb_get_le(b + TWINS_AT, 4);
    if (h->captures_to_win < 1 || h->captures_to_win > TB_MAX_SLICES || h->goats_total < h->captures_to_win ||
        h->goats_total > BC_GOATS_TOTAL || h->place_layers > TBP_MAX_LAYERS)
        return fail(TB_ERR_FORMAT, msg, msglen, "the forbid file's header is not consistent");
    for (int c = 0; c < TB_MAX_SLICES; c++) {
        const uint8_t *r = b + SLICE_AT + c * SLICE_REC;
        uint64_t f[19];
        for (int i = 0; i < 19; i++)
            f[i] = tb_get_le(r + 8 + 8 * i, 8);
        tbf_layer_stats_t *s = &h->slice[c].stats;
        h->slice[c].built = (uint32_t)tb_get_le(r, 4);
        h->slice[c].offset = f[0], h->slice[c].length = f[1], h->slice[c].checksum = f[2];
        h->movement_checksum[c] = f[3], h->slice[c].seconds = bitsd(f[4]);
        s->draws[0] = f[5], s->draws[1] = f[6], s->won[0] = f[7], s->won[1] = f[8], s->lost[0] = f[9];
        s->lost[1] = f[10], s->open[0] = f[11], s->open[1] = f[12], s->by_retro[0] = f[13], s->by_retro[1] = f[14];
        s->core = f[15], s->search_nodes = f[16], s->aborted = f[17], s->settled = f[18];
    }
    for (uint32_t i = 0; i < h->place_layers; i++) {
        const uint8_t *r = b + PLACE_AT + i * PLACE_REC;
        tbf_place_info_t *p = &h->place[i];
        p->side = r[0], p->h = r[1], p->c = r[2];
        for (int v = 0; v < 2; v++)
            for (int k = 0; k < 3; k++)
                p->count[v][k] = tb_get_le(r + 8 + 8 * (3 * v + k), 8);
    }
    return TB_OK;
}

static void file_path(const char *dir, const char *name, char *out, size_t len) { snprintf(out, len, "%s/%s", dir, name); }

tb_error_t tbf_read_header(const char *dir, tbf_header_t *h, char *msg, size_t msglen)
{
    char path[TB_PATH_MAX + 64], sp[TB_PATH_SHOWN];
    file_path(dir, TBF_FILE_NAME, path, sizeof path);
    int fd = tb_open_regular(path, O_RDONLY, msg, msglen);
    if (fd < 0)
        return errno == ENOENT ? TB_ERR_MISSING : TB_ERR_IO;
    uint8_t *b = malloc(HDR);
    tb_error_t e = TB_OK;
    if (!b)
        e = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    else if (!tb_pread_all(fd, b, HDR, 0))
        e = fail(TB_ERR_FORMAT, msg, msglen, "%s is shorter than its header", tb_path_shown(path, sp));
    else
        e = decode(b, h, msg, msglen);
    free(b);
    close(fd);
    return e;
}

tb_error_t tbf_read_slice(const char *dir, const tbf_header_t *h, int c, uint8_t *out, char *msg, size_t msglen)
{
    if (c < 0 || c >= (int)h->captures_to_win || !h->slice[c].built)
        return fail(TB_ERR_MISSING, msg, msglen, "forbid slice %d is not built", c);
    char path[TB_PATH_MAX + 64];
    file_path(dir, TBF_FILE_NAME, path, sizeof path);
    int fd = tb_open_regular(path, O_RDONLY, msg, msglen);
    if (fd < 0)
        return TB_ERR_IO;
    bool ok = tb_pread_all(fd, out, h->slice[c].length, h->slice[c].offset);
    close(fd);
    if (!ok)
        return fail(TB_ERR_FORMAT, msg, msglen, "forbid slice %d is cut short", c);
    if (tb_checksum(out, h->slice[c].length) != h->slice[c].checksum)
        return fail(TB_ERR_CHECKSUM, msg, msglen, "forbid slice %d does not match its checksum", c);
    return TB_OK;
}

/* ---- The build ---------------------------------------------------------------------- */

static void remove_folder(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[TB_PATH_MAX + 300];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
                unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

typedef struct {
    const tbf_build_options_t *o;
    tbf_header_t *h;
    int variant;
} place_ctx_t;

static void on_layer(void *ctx, const tbp_progress_t *p)
{
    place_ctx_t *x = ctx;
    tbf_header_t *h = x->h;
    uint32_t i = 0;
    while (i < h->place_layers && !(h->place[i].side == p->side && h->place[i].h == p->h && h->place[i].c == p->c))
        i++;
    if (i == h->place_layers && i < TBP_MAX_LAYERS) {
        h->place_layers++;
        h->place[i].side = (uint8_t)p->side, h->place[i].h = (uint8_t)p->h, h->place[i].c = (uint8_t)p->c;
    }
    if (i < TBP_MAX_LAYERS)
        memcpy(h->place[i].count[x->variant], p->count, sizeof p->count);
    if (x->o->on_place)
        x->o->on_place(x->o->ctx, x->variant, p);
}

/* The start's value for the goats (TBF_WIN / TBF_LOSS) from the packed tigers' layer one
 * placement below it. */
static tb_error_t start_value(const char *work, const tb_t *tb, int n, int K, int *out, char *msg, size_t msglen)
{
    tbp_packed_t *p;
    tb_error_t e = tbp_packed_open(work, TIGERS, n - 1, 0, n, K, &p, msg, msglen);
    if (e != TB_OK)
        return e;
    tbp_rank_t *rk = malloc(sizeof *rk);
    const tbp_layer_t *l = tbp_packed_layer(p);
    uint8_t *vals = malloc(l->ng ? l->ng : 1);
    if (!rk || !vals) {
        free(rk), free(vals);
        tbp_packed_close(p);
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    }
    tbp_rank_init(rk);
    position_t start;
    tbp_start_position(n, &start);
    *out = TBF_LOSS;
    for (bb_t f = position_empty(&start); f; f &= f - 1) {
        uint64_t i = tbp_entry_of(tb_index(tb), rk, start.tigers, f & -f);
        tbp_packed_class(p, (uint32_t)(i / l->ng), vals);
        if (vals[i % l->ng] == 0)
            *out = TBF_WIN;
    }
    free(rk), free(vals);
    tbp_packed_close(p);
    return TB_OK;
}

static tb_error_t build_placement(const tbf_build_options_t *o, const tb_t *tb, tbf_header_t *h, uint8_t *mv[TB_MAX_SLICES],
                                  char *msg, size_t msglen)
{
    int n = (int)h->goats_total, K = (int)h->captures_to_win;
    if (n < 2)
        return fail(TB_ERR_ARGUMENT, msg, msglen, "the placement phase under forbid needs at least 2 goats");
    tb_t *full;
    tb_error_t e = tb_open(o->dir, &full, msg, msglen);
    if (e != TB_OK)
        return e;
    if (!tb_has_placement(full)) {
        tb_close(full);
        return fail(TB_ERR_MISSING, msg, msglen, "%s: build the draw rule's placement file first (--placement)",
                    TBP_FILE_NAME);
    }
    position_t start;
    tbp_start_position(n, &start);
    tb_value_t sv;
    h->start_draw_rule = tb_probe(full, &start, &sv) ? sv.wdl : 0;
    tb_close(full);
    double t0 = tb_now_s();
    h->place_layers = 0;
    /* With nothing open and no board that can come back (one capture wins) the two builds
     * are one. */
    uint64_t open = 0;
    for (int c = 0; c < K; c++)
        open += h->slice[c].stats.open[GOATS] + h->slice[c].stats.open[TIGERS];
    bool twins = tbp_layer_has_twins(K, 1, 0);
    int variants = open || twins ? 2 : 1;
    for (int v = 0; v < variants && e == TB_OK; v++) {
        char work[TB_PATH_MAX + 64];
        snprintf(work, sizeof work, "%s/forbid-work-%d", o->dir, v);
        if (mkdir(work, 0777) != 0 && errno != EEXIST)
            return fail(TB_ERR_IO, msg, msglen, "cannot create %s: %s", work, strerror(errno));
        /* The tigers' values of the movement slices: variant 0 counts the open ones as the
         * goats' losses (the tigers to move win), variant 1 as their wins. */
        tbp_gen_options_t po;
        tbp_gen_options_init(&po, work);
        po.threads = o->threads;
        po.restart = o->restart;
        po.twins = !twins ? TBP_TWINS_NONE : v == 0 ? TBP_TWINS_GOATS_LOSE : TBP_TWINS_GOATS_WIN;
        for (int c = 0; c < K; c++) {
            uint64_t size = tb_slice_entries(tb, c);
            const uint8_t *t = mv[c] + size;
            uint8_t *x = mv[c] + 2 * size;
            for (uint64_t i = 0; i < size; i++)
                x[i] = t[i] == TBF_WIN ? 1 : t[i] == TBF_LOSS ? 0 : v == 0 ? 1 : 0;
            po.movement_tigers[c] = x;
        }
        place_ctx_t ctx = {o, h, v};
        po.progress = on_layer;
        po.ctx = &ctx;
        e = tbp_generate(&po, tb, msg, msglen);
        int sv2 = TBF_LOSS;
        if (e == TB_OK)
            e = start_value(work, tb, n, K, &sv2, msg, msglen);
        h->start_value[v] = sv2;
    }
    if (e == TB_OK && variants == 1) {
        h->start_value[1] = h->start_value[0];
        for (uint32_t i = 0; i < h->place_layers; i++)
            memcpy(h->place[i].count[1], h->place[i].count[0], sizeof h->place[i].count[1]);
    }
    if (e == TB_OK) {
        h->placement_built = 1;
        h->placement_twins = twins;
        h->place_seconds = tb_now_s() - t0;
        for (int v = 0; v < 2; v++) {
            char work[TB_PATH_MAX + 64];
            snprintf(work, sizeof work, "%s/forbid-work-%d", o->dir, v);
            remove_folder(work);
        }
    }
    return e;
}

static uint64_t align4k(uint64_t x) { return (x + 4095) & ~(uint64_t)4095; }

tb_error_t tbf_build(const tbf_build_options_t *o, tbf_header_t *h, char *msg, size_t msglen)
{
    tb_t *tb;
    tb_error_t e = tb_open_movement(o->dir, &tb, msg, msglen);
    if (e != TB_OK)
        return e;
    int K = tb_captures_to_win(tb), n = tb_goats_total(tb);
    tb_slice_stats_t ss;
    /* What a finished file must have been solved from: these movement slices. */
    tbf_header_t fresh;
    memset(&fresh, 0, sizeof fresh);
    fresh.goats_total = (uint32_t)n, fresh.captures_to_win = (uint32_t)K;
    uint64_t at = HDR;
    for (int c = 0; c < K; c++) {
        tb_slice_stats(tb, c, &ss);
        fresh.movement_checksum[c] = ss.checksum;
        fresh.slice[c].offset = at, fresh.slice[c].length = 2 * tb_slice_entries(tb, c);
        at = align4k(at + fresh.slice[c].length);
    }
    char path[TB_PATH_MAX + 64], sp[TB_PATH_SHOWN];
    file_path(o->dir, TBF_FILE_NAME, path, sizeof path);
    bool keep = false;
    if (!o->restart && tbf_read_header(o->dir, h, NULL, 0) == TB_OK && h->goats_total == fresh.goats_total &&
        h->captures_to_win == fresh.captures_to_win &&
        !memcmp(h->movement_checksum, fresh.movement_checksum, sizeof fresh.movement_checksum))
        keep = true;
    if (!keep)
        *h = fresh;
    int fd = tb_open_regular(path, O_RDWR | O_CREAT | (keep ? 0 : O_TRUNC), msg, msglen);
    uint8_t *hb = malloc(HDR);
    uint8_t *mv[TB_MAX_SLICES] = {0};
    if (fd < 0)
        e = TB_ERR_IO;
    else if (!hb)
        e = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    /* Each slice's values, both sides, and room for a third array (the placement's leaves). */
    for (int c = 0; c < K && e == TB_OK; c++)
        if (!(mv[c] = malloc(3 * tb_slice_entries(tb, c))))
            e = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    bool changed = false;
    for (int c = K - 1; c >= 0 && e == TB_OK; c--) {
        uint64_t size = tb_slice_entries(tb, c);
        if (h->slice[c].built && tbf_read_slice(o->dir, h, c, mv[c], NULL, 0) == TB_OK) {
            if (o->on_slice)
                o->on_slice(o->ctx, c, h, false);
            continue;
        }
        h->slice[c].built = 0;
        h->placement_built = 0;
        changed = true;
        double t0 = tb_now_s();
        uint8_t *out[SIDE_NB] = {mv[c], mv[c] + size};
        /* A slice stopped in the middle goes on from its checkpoint. */
        char ck[TB_PATH_MAX + 64];
        snprintf(ck, sizeof ck, "%s/forbid-slice-%d.ckpt", o->dir, c);
        tbf_options_t so = o->solve;
        if (!so.checkpoint)
            so.checkpoint = ck;
        if (o->restart && c == K - 1)
            for (int q = 0; q < K; q++) {
                char old[TB_PATH_MAX + 64];
                snprintf(old, sizeof old, "%s/forbid-slice-%d.ckpt", o->dir, q);
                unlink(old);
            }
        e = tbf_solve_slice(tb, c, c + 1 < K ? mv[c + 1] : NULL, &so, out, &h->slice[c].stats, msg, msglen);
        if (e != TB_OK)
            break;
        h->slice[c].seconds = tb_now_s() - t0;
        h->slice[c].checksum = tb_checksum(mv[c], 2 * size);
        h->slice[c].built = 1;
        encode(h, hb);
        if (!tb_pwrite_all(fd, mv[c], 2 * size, h->slice[c].offset) || !tb_pwrite_all(fd, hb, HDR, 0))
            e = fail(TB_ERR_IO, msg, msglen, "cannot write %s: %s", tb_path_shown(path, sp), strerror(errno));
        else if (o->on_slice)
            o->on_slice(o->ctx, c, h, true);
        if (e == TB_OK)
            unlink(so.checkpoint);
    }
    /* Placement layers built on other movement values, or before the twins were bounded,
     * are not resumed from. */
    bool stale = h->placement_built && !h->placement_twins && tbp_layer_has_twins(K, 1, 0);
    if (stale)
        h->placement_built = 0;
    for (int v = 0; v < 2 && (changed || stale); v++) {
        char work[TB_PATH_MAX + 64];
        snprintf(work, sizeof work, "%s/forbid-work-%d", o->dir, v);
        remove_folder(work);
    }
    if (e == TB_OK && o->placement && (!h->placement_built || o->restart)) {
        e = build_placement(o, tb, h, mv, msg, msglen);
        if (e == TB_OK) {
            encode(h, hb);
            if (!tb_pwrite_all(fd, hb, HDR, 0))
                e = fail(TB_ERR_IO, msg, msglen, "cannot write %s: %s", tb_path_shown(path, sp), strerror(errno));
        }
    }
    if (fd >= 0 && close(fd) != 0 && e == TB_OK)
        e = fail(TB_ERR_IO, msg, msglen, "cannot write %s: %s", tb_path_shown(path, sp), strerror(errno));
    for (int c = 0; c < K; c++)
        free(mv[c]);
    free(hb);
    tb_close(tb);
    return e;
}
