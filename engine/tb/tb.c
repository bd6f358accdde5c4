/* The database handle: open (read into memory, and checks), probe, move ranking, statistics and the
 * check of a value against the children of its position. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise */
#include "tb_build.h"
#include "tb_place_code.h"
#include "message.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "movegen.h"

/* A file's bytes in memory: data (len bytes) inside the mapping base (size bytes). */
typedef struct {
    uint8_t *base;
    size_t size;
} region_t;

struct tb {
    uint8_t *map;
    size_t map_len;
    region_t map_region, pmap_region;
    tb_header_t header;
    tb_index_t *ix;
    int slices;
    const uint8_t *data[TB_MAX_SLICES];
    uint64_t size[TB_MAX_SLICES]; /* entries per side */
    uint32_t ng[TB_MAX_SLICES];
    /* The placement phase, when its file is there: the tigers-to-move values of each captured
     * count in one array (tb_place_code.h). */
    uint8_t *pmap;
    size_t pmap_len;
    tbp_header_t *ph;
    tbp_order_t *ord;
    tbp_array_t arr[TB_MAX_SLICES];
    region_t runs_region; /* every array's reader directory (tbp_runs_build) */
    bool stored[TBP_MAX_IN_HAND + 1][TB_MAX_SLICES]; /* tigers to move, h in hand, c captured */
    /* of a stored layer, its least value for the tigers (0 loss, 1 draw, 2 win; the header's
     * counts say which it holds): no placement into it is worth less (layer_floor) */
    uint8_t floor[TBP_MAX_IN_HAND + 1][TB_MAX_SLICES];
    bool trust_counts; /* tb_trust_layer_counts */
};

static const char *const ERROR_NAMES[TB_ERROR_COUNT] = {
    "ok", "no-memory", "io", "format", "checksum", "missing", "mismatch", "argument", "thread", "limit", "verify", "locked",
};

const char *tb_error_name(tb_error_t e)
{
    return e >= 0 && e < TB_ERROR_COUNT ? ERROR_NAMES[e] : "unknown";
}

#define fail(e, ...) ((tb_error_t)bc_fail((e), __VA_ARGS__))

static char *join_path(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p)
        return NULL;
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

enum { LARGE_PAGE = 2 << 20 };

/* len bytes of memory of its own (r records the mapping), 2 MB aligned and in large pages
 * where the system has them; NULL when it cannot be had. */
static uint8_t *large_alloc(size_t len, region_t *r)
{
    size_t size = ((len + LARGE_PAGE - 1) & ~(size_t)(LARGE_PAGE - 1)) + LARGE_PAGE;
    uint8_t *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    uint8_t *data = (uint8_t *)(((uintptr_t)base + LARGE_PAGE - 1) & ~(uintptr_t)(LARGE_PAGE - 1));
#ifdef MADV_HUGEPAGE
    (void)madvise(data, size - (size_t)(data - base), MADV_HUGEPAGE);
#endif
    r->base = base, r->size = size;
    return data;
}

/* Reads the len bytes of fd into memory of the process's own, aligned on and asked for in
 * large pages: a probe is a random read, and where the file's own pages are small ones (a file
 * system without large folios, a page cache filled by small reads) each read would first walk
 * the page tables: on the machine of the README's figures a dependent random read of the
 * placement file costs 1.1-2.2 us in small pages and 0.39-0.57 us in large ones. Kept in
 * memory where the system allows it: a page the system dropped and must fetch again stalls a
 * search for milliseconds, enough to lose on time at short time controls. Returns the bytes,
 * NULL when the memory cannot be had. */
static uint8_t *load_region(int fd, size_t len, region_t *r)
{
    uint8_t *data = large_alloc(len, r);
    if (!data)
        return NULL;
    if (!tb_pread_all(fd, data, len, 0)) {
        munmap(r->base, r->size);
        r->base = NULL;
        return NULL;
    }
    (void)mprotect(r->base, r->size, PROT_READ);
    (void)mlock(data, len);
    return data;
}

/* Reads dir/name into memory (load_region), or where that memory cannot be had maps the file
 * (and locks it where allowed). With optional, a missing file is no error: *data stays NULL. */
static tb_error_t map_file(const char *dir, const char *name, size_t min_size, bool optional, uint8_t **data,
                           size_t *len, region_t *r, char *msg, size_t msglen)
{
    char *path = join_path(dir, name);
    if (!path)
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    /* A FIFO in the file's place would hold the caller (and a protocol's reader) for good. */
    char sp[TB_PATH_SHOWN];
    int fd = tb_open_regular(path, O_RDONLY, msg, msglen);
    if (fd < 0) {
        tb_error_t e = optional && errno == ENOENT ? TB_OK : TB_ERR_IO;
        free(path);
        return e;
    }
    struct stat st;
    tb_error_t e = TB_OK;
    if (fstat(fd, &st) != 0)
        e = fail(TB_ERR_IO, msg, msglen, "cannot stat %s: %s", tb_path_shown(path, sp), strerror(errno));
    else if ((size_t)st.st_size < min_size)
        e = fail(TB_ERR_FORMAT, msg, msglen, "%s is too short (%lld bytes)", tb_path_shown(path, sp),
                 (long long)st.st_size);
    if (e == TB_OK && (*data = load_region(fd, (size_t)st.st_size, r))) {
        *len = (size_t)st.st_size;
    } else if (e == TB_OK) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED)
            e = fail(TB_ERR_IO, msg, msglen, "cannot map %s: %s", tb_path_shown(path, sp), strerror(errno));
        else {
            *data = m, *len = (size_t)st.st_size;
            r->base = m, r->size = (size_t)st.st_size;
            if (mlock(m, *len) != 0)
                (void)posix_madvise(m, *len, POSIX_MADV_WILLNEED);
        }
    }
    close(fd);
    free(path);
    return e;
}

/* The arrays' reader directories, in large pages where the system has them (a probe reads
 * one line of them at random). Without the memory, or for an array whose runs are too long,
 * the probe reads the file's group offsets instead: slower, the same values. */
static void build_runs(tb_t *tb, const tbp_header_t *x)
{
    uint8_t *m = large_alloc((size_t)x->captures_to_win * TBP_RUNS_SIZE, &tb->runs_region);
    if (!m)
        return;
    for (uint32_t c = 0; c < x->captures_to_win; c++) {
        uint8_t *r = m + (size_t)c * TBP_RUNS_SIZE;
        if (x->array[c].valid && tbp_runs_build(&tb->arr[c], r))
            tb->arr[c].runs = r;
    }
    (void)mprotect(tb->runs_region.base, tb->runs_region.size, PROT_READ);
}

/* The placement file: its header and every array's checksum. A position whose layer is not
 * stored (the goats to move) is answered from its children (one ply), when they are. */
static tb_error_t check_placement(tb_t *tb, char *msg, size_t msglen)
{
    tbp_header_t *x = tb->ph = malloc(sizeof *tb->ph);
    if (!x)
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    tb_error_t e = tbp_header_decode(tb->pmap, tb->pmap_len, x, msg, msglen);
    if (e != TB_OK)
        return e;
    if (tb->pmap_len != x->file_size)
        return fail(TB_ERR_FORMAT, msg, msglen, "placement file is %zu bytes, the header says %llu (truncated?)",
                    tb->pmap_len, (unsigned long long)x->file_size);
    if (x->captures_to_win != tb->header.captures_to_win || (int)x->goats_total != tb_goats_total(tb))
        return fail(TB_ERR_MISMATCH, msg, msglen, "the placement file is for another game than the movement file");
    for (uint32_t c = 0; c < x->captures_to_win; c++) {
        const tbp_array_info_t *a = &x->array[c];
        if (!a->valid)
            continue;
        if (tb_checksum(tb->pmap + a->offset, a->length) != a->checksum)
            return fail(TB_ERR_CHECKSUM, msg, msglen, "placement array of %u captured: data checksum mismatch", c);
        tbp_array_view(&tb->arr[c], tb->pmap + a->offset, a->valid);
    }
    build_runs(tb, x);
    for (uint32_t i = 0; i < x->layer_count; i++)
        if (x->layer[i].stored) {
            const tbp_layer_info_t *l = &x->layer[i];
            tb->stored[l->h][l->c] = true;
            tb->floor[l->h][l->c] = l->count[0] ? 0 : l->count[1] ? 1 : 2;
        }
    tb->trust_counts = true;
    if (!(tb->ord = malloc(sizeof *tb->ord)))
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    return TB_OK;
}

static tb_error_t check_file(tb_t *tb, char *msg, size_t msglen)
{
    tb_header_t *h = &tb->header;
    tb_error_t e = tb_header_decode(tb->map, tb->map_len, h, msg, msglen);
    if (e != TB_OK)
        return e;
    if (tb->map_len != h->file_size)
        return fail(TB_ERR_FORMAT, msg, msglen, "file is %zu bytes, the header says %llu (truncated?)", tb->map_len,
                    (unsigned long long)h->file_size);
    tb->slices = (int)h->slice_count;
    for (int c = 0; c < tb->slices; c++) {
        const tb_slice_info_t *s = &h->slice[c];
        if (!s->built)
            return fail(TB_ERR_MISSING, msg, msglen, "slice %d (%d captured) is not built", c, c);
        if (tb_checksum(tb->map + s->offset, s->length) != s->checksum)
            return fail(TB_ERR_CHECKSUM, msg, msglen, "slice %d: data checksum mismatch", c);
        tb->data[c] = tb->map + s->offset;
        tb->size[c] = s->length / 2;
        tb->ng[c] = s->goat_sets;
    }
    return TB_OK;
}

static tb_error_t open_files(const char *dir, bool placement, tb_t **out, char *msg, size_t msglen);

tb_error_t tb_open(const char *dir, tb_t **out, char *msg, size_t msglen) { return open_files(dir, true, out, msg, msglen); }

tb_error_t tb_open_movement(const char *dir, tb_t **out, char *msg, size_t msglen)
{
    return open_files(dir, false, out, msg, msglen);
}

static tb_error_t open_files(const char *dir, bool placement, tb_t **out, char *msg, size_t msglen)
{
    *out = NULL;
    tb_t *tb = calloc(1, sizeof *tb);
    if (!tb)
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    tb_error_t e =
        map_file(dir, TB_FILE_NAME, TB_HEADER_SIZE, false, &tb->map, &tb->map_len, &tb->map_region, msg, msglen);
    if (e == TB_OK)
        e = check_file(tb, msg, msglen);
    if (e == TB_OK && placement)
        e = map_file(dir, TBP_FILE_NAME, TBP_HEADER_SIZE, true, &tb->pmap, &tb->pmap_len, &tb->pmap_region, msg,
                     msglen);
    if (e == TB_OK && tb->pmap)
        e = check_placement(tb, msg, msglen);
    if (e == TB_OK && !(tb->ix = tb_index_new()))
        e = fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    if (e == TB_OK && tb->ord)
        tbp_order_init(tb->ord, tb->ix);
    if (e != TB_OK) {
        tb_close(tb);
        return e;
    }
    *out = tb;
    return TB_OK;
}

tb_error_t tb_open_game(const char *dir, tb_t **out, char *msg, size_t msglen)
{
    tb_error_t e = tb_open(dir, out, msg, msglen);
    if (e != TB_OK || tb_captures_to_win(*out) == BC_CAPTURES_TO_WIN)
        return e;
    char sp[TB_PATH_SHOWN];
    e = fail(TB_ERR_MISMATCH, msg, msglen, "%s holds a database for %d captures, not %d", tb_path_shown(dir, sp),
             tb_captures_to_win(*out), BC_CAPTURES_TO_WIN);
    tb_close(*out);
    *out = NULL;
    return e;
}

void tb_trust_layer_counts(tb_t *tb, bool on) { tb->trust_counts = on; }

void tb_close(tb_t *tb)
{
    if (!tb)
        return;
    if (tb->map)
        munmap(tb->map_region.base, tb->map_region.size);
    if (tb->pmap)
        munmap(tb->pmap_region.base, tb->pmap_region.size);
    if (tb->runs_region.base)
        munmap(tb->runs_region.base, tb->runs_region.size);
    free(tb->ph);
    free(tb->ord);
    tb_index_free(tb->ix);
    free(tb);
}

int tb_captures_to_win(const tb_t *tb) { return (int)tb->header.captures_to_win; }
int tb_slice_count(const tb_t *tb) { return tb->slices; }
int tb_goats_total(const tb_t *tb) { return (int)tb->header.goats_total; }
uint64_t tb_slice_entries(const tb_t *tb, int captured)
{
    return captured >= 0 && captured < tb->slices ? tb->size[captured] : 0;
}
uint32_t tb_slice_goat_sets(const tb_t *tb, int captured)
{
    return captured >= 0 && captured < tb->slices ? tb->ng[captured] : 0;
}
const uint8_t *tb_slice_values(const tb_t *tb, int captured, int side)
{
    if (captured < 0 || captured >= tb->slices)
        return NULL;
    return tb->data[captured] + (side == TIGERS ? tb->size[captured] : 0);
}
const tb_index_t *tb_index(const tb_t *tb) { return tb->ix; }

/* ---- Values ------------------------------------------------------------------------- */

/* A stored byte: 0..253 the distance (odd: win, even: loss), 255 a draw. */
static inline tb_value_t value_of_byte(uint8_t b)
{
    tb_value_t v;
    if (b == 0xFF)
        v.wdl = TB_DRAW, v.distance = 0;
    else
        v.wdl = (int8_t)(b & 1 ? TB_WIN : TB_LOSS), v.distance = b;
    return v;
}

bool tb_has_placement(const tb_t *tb) { return tb->pmap != NULL; }


static const int8_t WDL[3] = {TB_LOSS, TB_DRAW, TB_WIN};

/* Whether the placement file covers p's layer and p is a position of it; then its tiger
 * class and the goats' mask in the class's orientation. */
static bool placement_entry(const tb_t *tb, const position_t *p, tb_tmap_t *tm, uint32_t *mask)
{
    int n = (int)tb->ph->goats_total, h = p->in_hand, c = p->captured;
    if (!tbp_layer_exists(n, (int)tb->ph->captures_to_win, p->side, h, c) || bb_count(p->tigers) != BC_TIGERS_NB ||
        bb_count(p->goats) != n - h - c || (p->tigers & p->goats))
        return false;
    *tm = tb->ix->tmap[tbi_tiger_rank(tb->ix, p->tigers)];
    const uint8_t *bit = tb->ord->bit[tm->cls], *perm = tb->ix->perm[tm->sym];
    *mask = 0;
    for (bb_t g = p->goats; g; g &= g - 1)
        *mask |= 1u << bit[perm[bb_first(g)]];
    return true;
}

/* The value no placement into stored layer (h, c) is below, for tbp_array_least: the layer's
 * least by the header's counts, or 0 when they are not trusted. */
static inline uint32_t layer_floor(const tb_t *tb, int h, int c) { return tb->trust_counts ? tb->floor[h][c] : 0; }

/* The empty points of a position of goats' mask m: the class's other free points. */
static inline uint32_t free_of(uint32_t m) { return (TBP_MASKS - 1) & ~m; }

/* The empty points of p as bits of its class's masks, and the point of each bit. */
static uint32_t placement_empties(const tb_t *tb, const position_t *p, tb_tmap_t tm, int8_t point[TBP_FREE])
{
    const uint8_t *bit = tb->ord->bit[tm.cls], *perm = tb->ix->perm[tm.sym];
    uint32_t e = 0;
    for (bb_t x = position_empty(p); x; x &= x - 1) {
        int sq = bb_first(x), b = bit[perm[sq]];
        e |= 1u << b;
        point[b] = (int8_t)sq;
    }
    return e;
}

/* Whether goats-to-move position p is answered from the stored layer below (one ply of
 * probes into one array); then its class and mask. */
static bool placement_from_below(const tb_t *tb, const position_t *p, tb_tmap_t *tm, uint32_t *mask)
{
    return tb->pmap && p->side == GOATS && p->in_hand > 1 && p->captured < tb->header.captures_to_win &&
           tb->stored[p->in_hand - 1][p->captured] && placement_entry(tb, p, tm, mask);
}

/* A goats-to-move child answered from the stored layer below: its array, class, mask and
 * empty points. */
typedef struct {
    uint32_t c, cls, mask, e, floor;
} tb_kid_t;

/* Tigers to move in the placement phase: each child that is a goats' position answered by
 * one ply of probes found once (kid[i].c is UINT32_MAX for the others); returns how many of
 * them have to be read (the others' placements all lead to tigers' wins), their move indices
 * in order[]. */
static int find_children(const tb_t *tb, const position_t *p, const move_t *moves, int n, tb_kid_t *kid, int *order)
{
    int nk = 0;
    for (int i = 0; i < n; i++) {
        position_t child = *p;
        position_make(&child, moves[i]);
        tb_tmap_t tm;
        kid[i].c = UINT32_MAX;
        if (placement_from_below(tb, &child, &tm, &kid[i].mask)) {
            kid[i].c = child.captured, kid[i].cls = tm.cls, kid[i].e = free_of(kid[i].mask);
            kid[i].floor = layer_floor(tb, child.in_hand - 1, child.captured);
            if (kid[i].floor < 2)
                order[nk++] = i;
        }
    }
    return nk;
}

/* How far ahead of the child being read the others' reads are started: their directory two
 * children ahead; their code (which needs the directory) one ahead, a block at a time while
 * the child before is read (tbp_children_read's next). Asking for every child's memory at
 * once asks for more lines than the processor can fetch at a time. */
enum { KID_AHEAD = 2, KID_SLOTS = 4 };
_Static_assert(KID_SLOTS > KID_AHEAD, "a slot for each child in flight");

/* The goats-to-move position's value from the least of the tigers' values after its
 * placements (tbp_array_least; 3 for none: with no move, the goats lose). */
static tb_value_t goats_value(uint32_t least)
{
    return (tb_value_t){WDL[least >= 2 ? 0 : 2 - least], TB_DISTANCE_UNKNOWN};
}

/* Goats to move with the layer below stored: the tigers' value (0 loss, 1 draw, 2 win) after
 * a goat is placed on each empty point, by point. The placements all lie in one array and one
 * class, read at once (tbp_array_children). */
static void placement_children(const tb_t *tb, const position_t *p, tb_tmap_t tm, uint32_t mask,
                               uint8_t out[SQUARE_NB])
{
    int8_t point[TBP_FREE];
    uint32_t e = placement_empties(tb, p, tm, point);
    uint8_t vs[TBP_FREE];
    tbp_array_children(&tb->arr[p->captured], tm.cls, mask, e, vs);
    int o = 0;
    for (; e; e &= e - 1) /* the children come by bit */
        out[point[bb_first(e)]] = vs[o++];
}

static bool probe_placement(const tb_t *tb, const position_t *p, tb_value_t *out)
{
    int h = p->in_hand, c = p->captured;
    tb_tmap_t tm;
    uint32_t mask;
    if (!placement_entry(tb, p, &tm, &mask))
        return false;
    out->distance = TB_DISTANCE_UNKNOWN;
    if (p->side == TIGERS) {
        if (!tb->stored[h][c])
            return false;
        out->wdl = WDL[tbp_array_value(&tb->arr[c], tm.cls, mask)];
        return true;
    }
    /* Goats to move: the best placement, each into the stored layer below (all at once) or,
     * with the last goat, into the movement database. */
    if (h > 1) {
        if (!tb->stored[h - 1][c])
            return false;
        *out = goats_value(tbp_array_least(&tb->arr[c], tm.cls, mask, free_of(mask), layer_floor(tb, h - 1, c)));
        return true;
    }
    move_t moves[MAX_MOVES];
    int nm = gen_moves(p, moves);
    tb_value_t best = {TB_LOSS, 0};
    for (int i = 0; i < nm; i++) {
        position_t child = *p;
        position_make(&child, moves[i]);
        tb_value_t v;
        if (!tb_probe(tb, &child, &v))
            return false;
        v = tb_value_after_move(v);
        if (i == 0 || tb_value_order(v) > tb_value_order(best))
            best = v;
    }
    *out = best;
    return true;
}

bool tb_probe(const tb_t *tb, const position_t *p, tb_value_t *out)
{
    if (p->in_hand && p->captured < tb->header.captures_to_win)
        return tb->pmap && probe_placement(tb, p, out);
    if (p->captured >= tb->header.captures_to_win) {
        if (p->side != GOATS)
            return false;
        out->wdl = TB_LOSS, out->distance = 0;
        return true;
    }
    int c = p->captured;
    bb_t empty = position_empty(p);
    if (bb_count(empty) != 21 - (int)tb->header.goats_total + c || bb_count(p->tigers) != BC_TIGERS_NB)
        return false;
    int stab;
    uint32_t i = tbi_entry(tb->ix, p->tigers, empty, tb->ng[c], &stab);
    *out = value_of_byte(tb->data[c][(p->side == TIGERS ? tb->size[c] : 0) + i]);
    return true;
}

tb_value_t tb_value_after_move(tb_value_t child)
{
    tb_value_t v = child;
    if (child.wdl != TB_DRAW) {
        v.wdl = (int8_t)-child.wdl;
        if (child.distance != TB_DISTANCE_UNKNOWN)
            v.distance = (uint8_t)(child.distance + 1);
    }
    return v;
}

/* A win of unknown distance ranks below every known one, a loss of unknown distance above
 * every known one (it is at least as slow as the placement phase is long). */
int tb_value_order(tb_value_t v)
{
    if (v.wdl == TB_WIN)
        return 1000 - v.distance;
    if (v.wdl == TB_LOSS)
        return -1000 + v.distance;
    return 0;
}

int tb_rank_moves(const tb_t *tb, const position_t *p, const move_t *moves, int n, tb_move_value_t *out)
{
    /* The goats' placements into a stored layer: every child at once. */
    uint8_t placed[SQUARE_NB];
    tb_tmap_t tm;
    uint32_t mask;
    tb_kid_t kid[MAX_MOVES];
    int order[MAX_MOVES], nk = 0, j = 0, started = 0, located = 0;
    tbp_children_t slot[KID_SLOTS];
    bool batch = placement_from_below(tb, p, &tm, &mask), kids = false;
    if (batch)
        placement_children(tb, p, tm, mask, placed);
    else if ((kids = tb->pmap && p->side == TIGERS && p->in_hand > 0 && n <= MAX_MOVES))
        nk = find_children(tb, p, moves, n, kid, order);
    for (int i = 0; i < n; i++) {
        tb_value_t v;
        if (batch && move_kind(moves[i]) == MOVE_PLACE && (position_empty(p) & bb_square(move_to(moves[i])))) {
            v.wdl = WDL[placed[move_to(moves[i])]], v.distance = TB_DISTANCE_UNKNOWN;
        } else if (kids && kid[i].c != UINT32_MAX && kid[i].floor >= 2) { /* nothing to read */
            v = goats_value(tbp_array_least(&tb->arr[kid[i].c], kid[i].cls, kid[i].mask, kid[i].e, kid[i].floor));
        } else if (kids && kid[i].c != UINT32_MAX) { /* child j of order[] */
            for (; started < nk && started <= j + KID_AHEAD; started++) {
                const tb_kid_t *c = &kid[order[started]];
                tbp_children_start(&tb->arr[c->c], c->cls, c->mask, c->e, &slot[started % KID_SLOTS]);
            }
            for (; located <= j + 1 && located < started; located++)
                tbp_children_locate(&slot[located % KID_SLOTS], false);
            tbp_children_t *next = j + 1 < located ? &slot[(j + 1) % KID_SLOTS] : NULL;
            v = goats_value(tbp_children_read(&slot[j % KID_SLOTS], NULL, (int)kid[i].floor, next));
            j++;
        } else {
            position_t child = *p;
            position_make(&child, moves[i]);
            if (!tb_probe(tb, &child, &v))
                return -1;
        }
        /* Insertion keeps equal values in the order given. */
        tb_move_value_t mv = {moves[i], tb_value_after_move(v)};
        int j = i, order = tb_value_order(mv.value);
        for (; j > 0 && tb_value_order(out[j - 1].value) < order; j--)
            out[j] = out[j - 1];
        out[j] = mv;
    }
    int keep = n ? 1 : 0;
    while (keep < n && tb_value_order(out[keep].value) == tb_value_order(out[0].value))
        keep++;
    return keep;
}

/* ---- Entries and statistics -------------------------------------------------------- */

bool tb_entry(const tb_t *tb, int captured, int side, uint64_t index, position_t *pos, tb_value_t *value)
{
    bool canonical = tb_index_position_game(tb->ix, tb_goats_total(tb), captured, side, index, pos);
    *value = value_of_byte(tb->data[captured][(side == TIGERS ? tb->size[captured] : 0) + index]);
    return canonical;
}

tb_error_t tb_slice_stats(const tb_t *tb, int captured, tb_slice_stats_t *out)
{
    if (captured < 0 || captured >= tb->slices)
        return TB_ERR_ARGUMENT;
    memset(out, 0, sizeof *out);
    out->captured = captured;
    const tb_index_t *ix = tb->ix;
    uint32_t ng = tb->ng[captured];
    uint64_t n = tb->size[captured];
    const uint8_t *d = tb->data[captured];
    for (int side = 0; side < SIDE_NB; side++) {
        for (int k = 0; k < TB_TIGER_CLASSES; k++) {
            const tb_class_t *c = &ix->cls[k];
            const uint8_t *v = d + (uint64_t)side * n + (uint64_t)k * ng;
            uint64_t cnt[256] = {0};
            for (uint32_t r = 0; r < ng; r++)
                cnt[v[r]]++;
            for (int b = 0; b < 256; b++) {
                if (!cnt[b])
                    continue;
                int kind = b == 0xFF ? 1 : (b & 1) ? 0 : 2;
                out->count[side][kind] += cnt[b] * c->orbit;
                if (b != 0xFF && b > out->longest)
                    out->longest = b;
            }
            out->classes += ng;
            if (c->nstab) {
                /* Entries whose empty points are not their own canonical image repeat one. */
                for (uint32_t r = 0; r < ng; r++) {
                    int stab;
                    bb_t e = tbi_unrank_free(ix, c, r, 21 - tb_goats_total(tb) + captured);
                    out->classes -= tbi_canon_free(ix, c, e, &stab) != e;
                }
            }
        }
    }
    out->entries = 2 * n;
    out->positions = 2 * n / TB_TIGER_CLASSES * 12650;
    out->checksum = tb->header.slice[captured].checksum;
    return TB_OK;
}

/* ---- Verification ------------------------------------------------------------------ */

tb_error_t tb_verify_position(const tb_t *tb, const position_t *p, tb_check_t *kind, char *msg, size_t msglen)
{
    tb_value_t v;
    if (!tb_probe(tb, p, &v))
        return fail(TB_ERR_ARGUMENT, msg, msglen, "position not covered");
    move_t moves[MAX_MOVES];
    int n = gen_moves(p, moves);
    if (n == 0) {
        *kind = TB_CHECK_TERMINAL;
        if (v.wdl != TB_LOSS || v.distance != 0)
            return fail(TB_ERR_VERIFY, msg, msglen, "no legal move but value %d/%d", v.wdl, v.distance);
        return TB_OK;
    }
    int min_loss = -1, max_win = -1, draws = 0, losses = 0, wins = 0;
    for (int i = 0; i < n; i++) {
        position_t child = *p;
        position_make(&child, moves[i]);
        tb_value_t c;
        if (!tb_probe(tb, &child, &c))
            return fail(TB_ERR_VERIFY, msg, msglen, "child not covered");
        if (c.wdl == TB_LOSS) {
            losses++;
            if (min_loss < 0 || c.distance < min_loss)
                min_loss = c.distance;
        } else if (c.wdl == TB_WIN) {
            wins++;
            if (c.distance > max_win)
                max_win = c.distance;
        } else {
            draws++;
        }
    }
    switch (v.wdl) {
    case TB_WIN:
        *kind = TB_CHECK_WIN;
        if (!losses || min_loss + 1 != v.distance)
            return fail(TB_ERR_VERIFY, msg, msglen, "win in %d but the fastest losing child is %d", v.distance,
                        min_loss);
        return TB_OK;
    case TB_LOSS:
        *kind = TB_CHECK_LOSS;
        if (losses || draws || max_win + 1 != v.distance)
            return fail(TB_ERR_VERIFY, msg, msglen, "loss in %d: %d losing and %d drawn children, slowest win %d",
                        v.distance, losses, draws, max_win);
        return TB_OK;
    default:
        *kind = TB_CHECK_DRAW;
        if (losses || !draws)
            return fail(TB_ERR_VERIFY, msg, msglen, "draw with %d losing and %d drawn children", losses, draws);
        return TB_OK;
    }
}
