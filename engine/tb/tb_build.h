/* The database internals that the tools and the tests use: statistics, verification, the
 * file format, the generators and the index. The engine itself needs only tb.h. */
#ifndef BAGHCHAL_TB_BUILD_H
#define BAGHCHAL_TB_BUILD_H

#include <string.h>

#include "tb.h"

/* ---- Statistics and verification (the tools) ---------------------------------------- */

typedef struct {
    int captured;
    uint64_t entries;   /* stored values, both sides to move (the count) */
    uint64_t classes;   /* entries left when every symmetry is removed */
    uint64_t positions; /* positions counted without symmetry */
    uint64_t count[SIDE_NB][3]; /* [side to move][0 win, 1 draw, 2 loss], over positions */
    int longest;        /* longest distance, either side */
    uint64_t checksum;
} tb_slice_stats_t;

/* tb_open without the placement file: the movement database alone (what a build of the
 * placement file reads, whatever file it replaces). */
tb_error_t tb_open_movement(const char *dir, tb_t **out, char *msg, size_t msglen);

int tb_slice_count(const tb_t *tb);
/* Stored entries of one side to move of a slice. */
uint64_t tb_slice_size(int captured);
/* The same for a game of goats_total goats (21 - goats_total + captured empty points). */
uint64_t tb_slice_size_game(int goats_total, int captured);
/* Stored entries of one side to move of a slice of this database's game. */
uint64_t tb_slice_entries(const tb_t *tb, int captured);
tb_error_t tb_slice_stats(const tb_t *tb, int captured, tb_slice_stats_t *out);

/* The position of one entry (captured, side to move, index 0 .. tb_slice_size - 1) and its
 * stored value. Returns false for an entry that only repeats a symmetric one (its value is
 * a copy; the position written is still the entry's). */
bool tb_entry(const tb_t *tb, int captured, int side, uint64_t index, position_t *pos, tb_value_t *value);

typedef enum { TB_CHECK_TERMINAL, TB_CHECK_WIN, TB_CHECK_DRAW, TB_CHECK_LOSS, TB_CHECK_NB } tb_check_t;

/* Checks the value of a covered position against the rules and its children: no move =
 * loss in 0; a win in n has its fastest losing child at n - 1; a loss in n has only winning
 * children, the slowest at n - 1; a draw has no losing child and a drawn one. Writes what
 * kind of position was checked; on a mismatch returns TB_ERR_VERIFY with the reason. */
tb_error_t tb_verify_position(const tb_t *tb, const position_t *p, tb_check_t *kind, char *msg, size_t msglen);

/* ---- File format (tools/tbgen/README.md) -------------------------------------------- */

enum { TB_HEADER_SIZE = 4096, TB_HEADER_USED = 296 };

typedef struct {
    uint32_t built; /* 1 when the slice's data and checksum are final */
    uint32_t goat_sets, longest;
    uint64_t offset, length; /* bytes: goats to move, then tigers to move */
    uint64_t checksum;       /* XXH64 (seed 0) of the slice's bytes */
} tb_slice_info_t;

typedef struct {
    uint32_t version, rule, captures_to_win, slice_count, tiger_classes, header_size;
    uint64_t file_size;
    tb_slice_info_t slice[TB_MAX_SLICES];
    uint32_t goats_total;
} tb_header_t;

/* The layout of a database for captures_to_win (1..5), every slice not built yet. */
void tb_header_init(tb_header_t *h, int captures_to_win, int goats_total);
void tb_header_encode(const tb_header_t *h, uint8_t buf[TB_HEADER_SIZE]);
/* Checks magic, version, rule, layout and the header checksum. */
tb_error_t tb_header_decode(const uint8_t *buf, size_t len, tb_header_t *h, char *msg, size_t msglen);
uint64_t tb_checksum(const void *data, size_t len);
/* Little-endian fields of n bytes, and whole reads and writes at an offset (false on error
 * or a short file). */
void tb_put_le(uint8_t *p, uint64_t v, int n);
uint64_t tb_get_le(const uint8_t *p, int n);
/* A little-endian u64 at p, inline for the probe's and the checksum's inner loops. */
static inline uint64_t tb_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}
static inline uint32_t tb_le32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}
static inline uint32_t tb_le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
/* Runs fn(args[i]) for i < threads (at most TB_MAX_THREADS), the first on the calling thread;
 * true when every call returned NULL. A thread that cannot start leaves its share to the
 * others, so fn must take its work from a counter they share. */
enum { TB_MAX_THREADS = 64 };
bool tb_run_threads(int threads, void *(*fn)(void *), void *const *args);
bool tb_pread_all(int fd, void *buf, size_t len, uint64_t at);
bool tb_pwrite_all(int fd, const void *buf, size_t len, uint64_t at);
/* Seconds on the monotonic clock: for timings and progress. */
double tb_now_s(void);

/* Opens a file of the databases (flags as open(2); with O_CREAT, mode 0644) without ever
 * waiting: what is not a regular file in its place (a FIFO, a device, a socket, a directory)
 * is refused at once, never read. Returns the descriptor; -1 with a one-line reason in msg
 * ("<path> is a FIFO, not a regular file", "cannot open <path>: <reason>") and errno set
 * (ENOENT kept for a missing file; EISDIR a directory; ENXIO anything else not regular). */
int tb_open_regular(const char *path, int flags, char *msg, size_t msglen);

/* A path as a message shows it: whole when it is short, else its start and its end around
 * "..." (cut between characters), so that the reason after it still fits a message. */
enum { TB_PATH_SHOWN = 120 };
const char *tb_path_shown(const char *path, char buf[TB_PATH_SHOWN]);

/* A folder locked for a build: while one baghchal-tbgen holds it, another is refused with
 * the holder's pid (TB_ERR_LOCKED). The lock is <dir>/baghchal-tbgen.lock (a lock the
 * system drops when its process ends however it ends); tb_dir_unlock removes the file. */
#define TB_LOCK_NAME "baghchal-tbgen.lock"
typedef struct {
    int fd;
    char *path;
} tb_dir_lock_t;
tb_error_t tb_dir_lock(const char *dir, tb_dir_lock_t *lock, char *msg, size_t msglen);
void tb_dir_unlock(tb_dir_lock_t *lock);

/* ---- Generation --------------------------------------------------------------------- */

typedef enum {
    TB_PHASE_SKIP,  /* the slice is in the file and its checksum is right */
    TB_PHASE_INIT,  /* counting moves, resolving captures into the slice above */
    TB_PHASE_LEVEL, /* resolving the positions at distance `pass` */
    TB_PHASE_WRITE, /* the slice is finished and written */
} tb_phase_t;

typedef struct {
    int slice;
    tb_phase_t phase;
    int pass;           /* the distance being resolved (TB_PHASE_LEVEL) */
    uint64_t resolved;  /* entries of this slice with a known win or loss so far */
    uint64_t entries;   /* entries of this slice, both sides */
    double work_done, work_total; /* rough work units over the whole build, for an estimate */
} tb_progress_t;

typedef struct {
    const char *dir;
    int threads;          /* >= 1 */
    int captures_to_win;  /* 1 .. 5; 5 for the real game */
    int goats_total;      /* 1 .. 20; 20 for the real game */
    int slice;            /* -1: every slice; else build only this one (the one above must exist) */
    bool restart;         /* rebuild slices even if the file holds them */
    void (*progress)(void *ctx, const tb_progress_t *p); /* may be NULL; called on this thread */
    void *ctx;
} tb_gen_options_t;

void tb_gen_options_init(tb_gen_options_t *o, const char *dir);
/* Builds <dir>/baghchal.tb from the most captured slice down to 0, skipping slices that are
 * already there with a right checksum (unless restart). The directory must exist. */
tb_error_t tb_generate(const tb_gen_options_t *o, char *msg, size_t msglen);

/* ---- Index (the generator, the tools and the tests) ------------------------------------
 * An entry of a slice is tiger class * C(21, captured + 1) + rank of the empty points among
 * the 21 points the class's representative leaves free. Symmetric positions share an entry. */

typedef struct {
    uint16_t cls;
    uint8_t sym; /* the symmetry that maps this placement onto its class's representative */
} tb_tmap_t;

typedef struct {
    bb_t tigers;      /* the representative: the smallest image as a number */
    uint8_t nstab;    /* symmetries other than the identity that fix the representative */
    uint8_t stab[TB_SYM_NB - 1];
    uint8_t orbit;    /* placements in the class: 8 / (nstab + 1) */
    uint8_t cpos[SQUARE_NB];  /* free point -> 0..20 */
    uint8_t free_sq[21];      /* 0..20 -> free point */
} tb_class_t;

/* Read-only after tb_index_new; the fields are for the generator's inner loops. */
typedef struct tb_index {
    uint32_t binom[SQUARE_NB + 1][22];
    uint8_t perm[TB_SYM_NB][SQUARE_NB];
    tb_tmap_t tmap[12650]; /* by colex rank of the four tiger points */
    tb_class_t cls[TB_TIGER_CLASSES];
} tb_index_t;

static inline bb_t tbi_map(const tb_index_t *ix, int s, bb_t b)
{
    bb_t r = 0;
    for (; b; b &= b - 1)
        r |= bb_square(ix->perm[s][bb_first(b)]);
    return r;
}

static inline uint32_t tbi_tiger_rank(const tb_index_t *ix, bb_t t)
{
    uint32_t r = 0;
    for (int j = 1; t; t &= t - 1, j++)
        r += ix->binom[bb_first(t)][j];
    return r;
}

/* Rank of the empty points e (free points of class c) in colex order. */
static inline uint32_t tbi_rank_free(const tb_index_t *ix, const tb_class_t *c, bb_t e)
{
    uint32_t r = 0;
    for (int j = 1; e; e &= e - 1, j++)
        r += ix->binom[c->cpos[bb_first(e)]][j];
    return r;
}

/* The canonical image of the empty points e under the symmetries that fix the class's
 * representative (the smallest as a number); *stab gets the size of e's stabilizer. */
static inline bb_t tbi_canon_free(const tb_index_t *ix, const tb_class_t *c, bb_t e, int *stab)
{
    bb_t best = e;
    int fixed = 1;
    for (int i = 0; i < c->nstab; i++) {
        bb_t img = tbi_map(ix, c->stab[i], e);
        fixed += img == e;
        if (img < best)
            best = img;
    }
    *stab = fixed;
    return best;
}

/* The entry (within one side of a slice with ng = C(21, empties) goat sets) of the position
 * with tigers t and empty points e; *stab gets the position's stabilizer size. */
static inline uint32_t tbi_entry(const tb_index_t *ix, bb_t t, bb_t e, uint32_t ng, int *stab)
{
    tb_tmap_t m = ix->tmap[tbi_tiger_rank(ix, t)];
    const tb_class_t *c = &ix->cls[m.cls];
    if (m.sym)
        e = tbi_map(ix, m.sym, e);
    *stab = 1;
    if (c->nstab)
        e = tbi_canon_free(ix, c, e, stab);
    return (uint32_t)m.cls * ng + tbi_rank_free(ix, c, e);
}

/* The k points of rank r (colex) among the free points of class c: the empty points of a
 * movement entry, the goats of a placement entry. */
static inline bb_t tbi_unrank_free(const tb_index_t *ix, const tb_class_t *c, uint32_t r, int k)
{
    bb_t e = 0;
    for (int j = k; j >= 1; j--) {
        int p = j - 1;
        while (ix->binom[p + 1][j] <= r)
            p++;
        r -= ix->binom[p][j];
        e |= bb_square(c->free_sq[p]);
    }
    return e;
}

/* The symmetry tables (about 100 KB); NULL when out of memory. */
tb_index_t *tb_index_new(void);
void tb_index_free(tb_index_t *ix);
/* The index shared by a database handle. */
const tb_index_t *tb_index(const tb_t *tb);

/* The entry of a movement-phase position (no goat in hand, fewer than 5 captured); the side
 * to move does not enter it. */
uint64_t tb_index_of(const tb_index_t *ix, const position_t *p);
/* The position of an entry (key computed, in_hand 0). Returns whether the entry is the one
 * tb_index_of gives for that position (false for a repeat of a symmetric entry). */
bool tb_index_position(const tb_index_t *ix, int captured, int side, uint64_t index, position_t *out);
/* The same for a game of goats_total goats. */
bool tb_index_position_game(const tb_index_t *ix, int goats_total, int captured, int side, uint64_t index,
                            position_t *out);
/* Image of a point set under symmetry s (0 = identity). */
bb_t tb_transform(const tb_index_t *ix, int s, bb_t b);
/* Number of symmetries that map the position of an entry onto itself (1, 2, 4 or 8). */
int tb_index_stabilizer(const tb_index_t *ix, const position_t *p);

/* ---- The placement phase (positions with goats in hand) --------------------------------
 * A layer holds every position of one side to move with h goats in hand and c captured:
 * tiger class * C(21, goats on the board) entries, the goats ranked in colex order among the
 * 21 points the class's representative leaves free. Symmetric positions keep their own
 * entries (equal values). Values for the side to move, 2 bits each: 0 loss, 1 draw, 2 win;
 * each class block starts on a 64-bit word. */

/* Colex ranks of point sets among 21 points, by 7-bit pieces. */
typedef struct {
    uint32_t binom[22][22];
    uint32_t lo[128], mid[128][8], hi[128][15];
} tbp_rank_t;

void tbp_rank_init(tbp_rank_t *t);

static inline uint32_t tbp_rank(const tbp_rank_t *t, uint32_t m)
{
    uint32_t a = m & 127, b = (m >> 7) & 127;
    int na = __builtin_popcount(a);
    return t->lo[a] + t->mid[b][na] + t->hi[m >> 14][na + __builtin_popcount(b)];
}

static inline uint32_t tbp_get(const uint64_t *block, uint32_t r) { return (uint32_t)(block[r >> 5] >> ((r & 31) * 2)) & 3; }

typedef struct {
    int side, h, c, goats;
    uint32_t ng, wpc;  /* goat sets per class; 64-bit words per class block */
    uint64_t words;
    uint64_t *bits;
    uint64_t count[3]; /* positions (not entries) lost, drawn and won by the side to move */
} tbp_layer_t;

bool tbp_layer_exists(int goats_total, int captures_to_win, int side, int h, int c);
/* Whether a build with these limits (see tbp_gen_options_t) makes the layer. */
bool tbp_layer_in_scope(int goats_total, int side, int h, int c, int max_in_hand, int min_goats);
/* The entry (class * C(21, goats) + rank) of the position with these tigers and goats. */
uint64_t tbp_entry_of(const tb_index_t *ix, const tbp_rank_t *rk, bb_t tigers, bb_t goats);
/* The tigers and goats of entry i of a layer with `goats` goats on the board. */
void tbp_entry_points(const tb_index_t *ix, const tbp_rank_t *rk, int goats, uint64_t i, bb_t *tigers, bb_t *out_goats);
void tbp_layer_shape(tbp_layer_t *l, const tbp_rank_t *rk, int goats_total, int side, int h, int c);

/* ---- A build's work folder: the finished layers, packed (tb_place_work.c) ---------------
 * One file per layer (`tHH-C.pk`, `gHH-C.pk`): its counts and, when kept, its values, each
 * class packed alone so that packing and unpacking run on every core. */

/* Packs a finished layer (shaped, bits filled when values) into dir, under a temporary name
 * renamed when whole. Without values only the counts are kept. */
tb_error_t tbp_layer_pack(const char *dir, const tbp_layer_t *l, int goats_total, int captures_to_win, bool values,
                          int threads, char *msg, size_t msglen);
/* tbp_layer_pack with the values, on one thread. */
tb_error_t tbp_layer_save(const char *dir, const tbp_layer_t *l, int goats_total, int captures_to_win, char *msg,
                          size_t msglen);
/* Unpacks a finished layer into l (shaped already; bits allocated here). TB_ERR_MISSING when
 * there is no such file, it is not whole and right, or it kept only its counts. */
tb_error_t tbp_layer_load(const char *dir, tbp_layer_t *l, int goats_total, int captures_to_win, char *msg,
                          size_t msglen);
void tbp_layer_remove(const char *dir, int side, int h, int c);

/* A packed layer, mapped and checked (its checksum) once. */
typedef struct tbp_packed tbp_packed_t;
tb_error_t tbp_packed_open(const char *dir, int side, int h, int c, int goats_total, int captures_to_win,
                           tbp_packed_t **out, char *msg, size_t msglen);
void tbp_packed_close(tbp_packed_t *p);
/* Its shape and counts (bits NULL). */
const tbp_layer_t *tbp_packed_layer(const tbp_packed_t *p);
bool tbp_packed_has_values(const tbp_packed_t *p);
/* The values of class k's block (ng bytes, 0 loss, 1 draw, 2 win, by rank). */
void tbp_packed_class(const tbp_packed_t *p, uint32_t k, uint8_t *out);
/* The whole layer into l (bits allocated here), on threads. */
tb_error_t tbp_packed_unpack(const tbp_packed_t *p, tbp_layer_t *l, int threads, char *msg, size_t msglen);

typedef struct {
    int side, h, c;
    uint64_t entries;
    bool built;             /* false: loaded from the work folder */
    double seconds, elapsed;
    double work_done, work_total;
    uint64_t count[3];      /* positions: side to move loses, draws, wins */
} tbp_progress_t;

typedef struct {
    const char *dir;  /* the work folder for the finished layers */
    int threads;
    bool restart;     /* rebuild layers even when the work folder has them */
    int max_in_hand;  /* build the layers up to this many goats in hand (0: all) */
    int min_goats;    /* and only those with at least this many goats on the board (tigers
                       * to move) or one fewer (goats to move, as the captures need): 0: all */
    bool keep_goats;  /* pack the goats-to-move layers' values too (for checks), not only
                       * their counts */
    int stop_after;   /* stop (TB_ERR_LIMIT) once this many layers are built, as an
                       * interruption would: for tests of the resume (0: never) */
    /* When set for slice c: the tigers-to-move values of that movement slice, in the
     * movement file's byte code (odd a win, even a loss, 0xFF a draw), in place of the
     * database's: the leaves of the forbid build (tb_forbid.h). */
    const uint8_t *movement_tigers[TB_MAX_SLICES];
    /* TBP_TWINS_GOATS_LOSE or _WIN: every layer whose boards can come back in the movement
     * phase (h >= 1 goats in hand and h + c < captures_to_win: the same board with the goats
     * in hand counted as captured is a movement position, its *twin*, which forbid may not
     * recreate) gets that one value in place of what its moves give, so that no value above
     * it rests on a twin not coming back: the forbid build's bounds (tb_forbid.h). 0: none. */
    int twins;
    const char *file; /* the file the merge writes from these layers (tbp_merge), or NULL:
                       * the tigers' layers whose array an interrupted merge has written
                       * count as finished (tbp_merge_done), their packed files gone */
    void (*progress)(void *ctx, const tbp_progress_t *p);
    void *ctx;
} tbp_gen_options_t;

enum { TBP_TWINS_NONE = 0, TBP_TWINS_GOATS_LOSE = 1, TBP_TWINS_GOATS_WIN = 2 };
/* Whether layer (h, c) of a game with k captures to win holds boards that can come back. */
bool tbp_layer_has_twins(int captures_to_win, int h, int c);

void tbp_gen_options_init(tbp_gen_options_t *o, const char *dir);
/* Builds every placement layer from the movement database up to the start, packing each
 * into o->dir as it is finished (the tigers-to-move layers with their values, the others
 * with their counts). A layer already packed there is not built again: the build goes on at
 * the first layer not finished, from the packed layers it needs. */
tb_error_t tbp_generate(const tbp_gen_options_t *o, const tb_t *movement, char *msg, size_t msglen);

/* The movement database's raw stored bytes of one side of a slice (entry order of the
 * index), its goat sets per class, and the number of goats of the game it was built for. */
const uint8_t *tb_slice_values(const tb_t *tb, int captured, int side);
uint32_t tb_slice_goat_sets(const tb_t *tb, int captured);
int tb_goats_total(const tb_t *tb);

/* ---- The placement file (tools/tbgen/README.md) ----------------------------------------- */

enum {
    TBP_FILE_VERSION = 4,
    TBP_HEADER_SIZE = 16384,
    TBP_MAX_IN_HAND = 20,
    TBP_MAX_LAYERS = 2 * TBP_MAX_IN_HAND * TB_MAX_SLICES
};

typedef struct {
    uint8_t side, h, c, stored; /* stored: the values are in the file (tigers to move) */
    uint32_t ng;
    uint64_t count[3]; /* positions: side to move loses, draws, wins */
} tbp_layer_info_t;

/* The tigers-to-move values of one captured count, every layer of it in one array. */
typedef struct {
    uint64_t offset, length; /* bytes */
    uint64_t checksum;       /* XXH64 of those bytes */
    uint32_t valid;          /* bit g: the layer with g goats on the board is in it (0: no array) */
} tbp_array_info_t;

typedef struct {
    uint32_t version, goats_total, captures_to_win, layer_count, tiger_classes, header_size;
    uint64_t file_size;
    tbp_array_info_t array[TB_MAX_SLICES];
    tbp_layer_info_t layer[TBP_MAX_LAYERS];
} tbp_header_t;

void tbp_header_init(tbp_header_t *x, int goats_total, int captures_to_win);
void tbp_header_encode(const tbp_header_t *x, uint8_t buf[TBP_HEADER_SIZE]);
/* Checks magic, version (an older file is refused with the command that rebuilds it),
 * checksum and the tables' consistency. */
tb_error_t tbp_header_decode(const uint8_t *buf, size_t len, tbp_header_t *x, char *msg, size_t msglen);

typedef struct {
    const char *work;     /* the folder of packed layers (tbp_generate) */
    const char *path;     /* the file to write */
    int goats_total, captures_to_win;
    int max_in_hand, min_goats; /* the build's limits (tbp_gen_options_t) */
    int threads;
    bool remove_packed;   /* delete each captured count's packed layers once its array is written */
    int stop_after;       /* stop (TB_ERR_LIMIT) once this many arrays are written, as an
                           * interruption would: for tests of the resume (0: never) */
    void (*progress)(void *ctx, int c, uint64_t bytes); /* after each array */
    void *ctx;
} tbp_merge_options_t;

void tbp_merge_options_init(tbp_merge_options_t *o, const char *work, const char *path, int goats_total,
                            int captures_to_win);
/* Writes the placement file from the packed layers: each captured count's array (the values
 * reordered by mask and coded as tb_place_code.h says), then the header. The file is written
 * as <path>.part and renamed when whole; arrays already written there (a record beside the
 * packed layers says so) are kept, so an interrupted merge goes on. */
tb_error_t tbp_merge(const tbp_merge_options_t *o, char *msg, size_t msglen);
/* How many captured counts, from 0 up, an interrupted merge has finished: each one's array
 * whole in <path>.part where the one before ends, and its record beside the packed layers
 * (whose tigers' layers of that count may be gone). count, when not NULL, gets the counts of
 * their tigers' layers: count[c][h]. */
int tbp_merge_done(const tbp_merge_options_t *o, uint64_t (*count)[TBP_MAX_IN_HAND + 1][3]);
/* Removes what an interrupted merge left (the records and <path>.part). */
void tbp_merge_forget(const tbp_merge_options_t *o);
/* tbp_merge on two threads, keeping the packed layers (stored_side must be TIGERS). */
tb_error_t tbp_pack(const char *work, const char *path, int goats_total, int captures_to_win, int max_in_hand,
                    int min_goats, int stored_side, void (*progress)(void *ctx, int side, int h, int c, uint64_t bytes),
                    void *ctx, char *msg, size_t msglen);

/* ---- Placement statistics and verification (the tools; tb_place_stats.c) ---------------- */

/* Reads and checks the header and layer table of <dir>/baghchal-placement.tb
 * (TB_ERR_MISSING when the directory has no such file). */
tb_error_t tbp_read_header(const char *dir, tbp_header_t *x, char *msg, size_t msglen);
/* The position of entry i of the layer (side, h in hand, c captured) of a game of
 * goats_total goats: the class's representative tigers and the entry's goats. */
void tbp_entry_position(const tb_index_t *ix, const tbp_rank_t *rk, int goats_total, int side, int h, int c,
                        uint64_t i, position_t *out);
/* The start of a game of goats_total goats: goats to move, all in hand, tigers on the corners. */
void tbp_start_position(int goats_total, position_t *out);
/* Checks the value tb_probe gives a placement position against its children: no legal move
 * is a loss; a capture that reaches the database's captures to win wins; else the best of
 * the children's values (tb_probe). *value gets the probed value (0 loss, 1 draw, 2 win for
 * the side to move) and *kind what was checked; on a mismatch TB_ERR_VERIFY and the reason. */
tb_error_t tbp_verify_position(const tb_t *tb, const position_t *p, tb_check_t *kind, int *value, char *msg,
                               size_t msglen);

#endif
