/* A reduced game solved under `forbid` (no position may be recreated in the movement phase;
 * a side left only repeating moves loses), from the draw rule's movement database: the
 * value of every movement position taken as a game's start (no history before it), layer by
 * layer from the most captured down, and the file that holds them (tools/tbgen/README.md,
 * "Under the rule books' rule"). For the tools and the tests; the engine does not need it. */
#ifndef BAGHCHAL_TB_FORBID_H
#define BAGHCHAL_TB_FORBID_H

#include "forbid.h"
#include "tb_build.h"

/* A value under forbid for the side to move, from a fresh history. */
enum { TBF_LOSS = 0, TBF_WIN = 1, TBF_OPEN = 2 };

typedef struct {
    /* Over positions (symmetric ones counted apart), by side to move: the draw rule's draws
     * of the layer, and of those the ones the side to move wins / loses / that stay open
     * under forbid; and how many of the draws the retrograde pass settled (the rest went to
     * the search with the history). */
    uint64_t draws[SIDE_NB], won[SIDE_NB], lost[SIDE_NB], open[SIDE_NB], by_retro[SIDE_NB];
    uint64_t core;          /* canonical entries left to the search with the history */
    uint64_t search_nodes;  /* positions the search expanded in all */
    uint64_t aborted;       /* roots whose search ran out of its budget (open) */
    uint64_t settled;       /* canonical entries left open by the search that settle decided */
    uint64_t resumed;       /* roots found done in a checkpoint (this run's; not in the file) */
} tbf_layer_stats_t;

/* What the solve of slice c knows one capture away: the slice above, c + 1, solved under
 * forbid (its goats-to-move half, as tbf_solve_slice's up; NULL when c + 1 captures win, and
 * a capture ends the game). */
typedef struct {
    const tb_t *tb;
    int c;
    const uint8_t *up;
} tbf_above_t;

/* The forbid prover's leaf at captures (fb_limits_t's leaf, engine/forbid.h; above a
 * tbf_above_t): p's value under forbid from a fresh history, for its side to move, where
 * the slice above knows it: FB_WIN or FB_LOSS for a position of slice c + 1 with the goats
 * to move that is settled there, FB_OPEN for any other. */
fb_result_t tbf_above_leaf(void *above, const position_t *p);

typedef struct {
    uint64_t root_nodes;  /* positions the search may expand for one root (0: 2,000,000) */
    size_t memo_mb;       /* the search's table of (position, history) results (0: 64) */
    /* When set: asked for every position the search leaves open (a canonical entry's
     * position, a game's start), it answers TBF_WIN, TBF_LOSS or TBF_OPEN for the side to
     * move. above holds the slice above: the tools answer with the forbid prover
     * (engine/forbid.h), which takes its values as leaves at captures (tbf_above_leaf)
     * and reads the draw rule's database elsewhere. */
    int (*settle)(void *ctx, const position_t *p, const tbf_above_t *above);
    void *settle_ctx;
    /* With settle_threads > 1 (at most TB_MAX_THREADS) that many threads settle at once,
     * thread t calling settle(settle_ctxs[t], p): each its own context, since a prover is not
     * shared. The values come out the same on any number of threads. */
    int settle_threads;
    void *const *settle_ctxs;
    /* Called now and then during the search with the roots done and to do, and during the
     * settling with the open roots given to settle so far and in all; each may be NULL. */
    void (*progress)(void *ctx, int captured, uint64_t done, uint64_t total);
    void (*settle_progress)(void *ctx, int captured, uint64_t done, uint64_t total);
    void *ctx;
    /* When set: a file where the solve keeps what it has done (each root's search and
     * settling), rewritten every checkpoint_s seconds (0: 30) and when it stops early, and
     * read back when it was written for the same slice, database values and budgets: a slice
     * stopped in the middle goes on where it stopped. The caller removes it once the slice
     * is kept. (The search's table of results starts empty again, so a root near its budget
     * may come out open where an unbroken run settled it, or the other way: never a wrong
     * value.) */
    const char *checkpoint;
    double checkpoint_s;
    /* Stop (TB_ERR_LIMIT, after writing the checkpoint) once this many roots have been
     * searched or settled in this run, as an interruption would: for tests (0: never). */
    uint64_t stop_after;
} tbf_options_t;

void tbf_options_init(tbf_options_t *o);

/* Solves slice c of the movement database tb under forbid: out[side] (tb_slice_entries(tb,
 * c) bytes each, entry order of the index) gets TBF_WIN, TBF_LOSS or TBF_OPEN for the side to
 * move of every entry taken as a game's start. up is the goats-to-move half of slice c + 1
 * solved the same way (NULL when c + 1 captures win). The draw rule's wins and losses keep
 * their value; its draws are solved by a retrograde pass over the draws with the exact
 * leaves (captures into up, the decided positions), then by a search over positions with
 * their history for what that leaves (tools/tbgen/README.md). */
tb_error_t tbf_solve_slice(const tb_t *tb, int c, const uint8_t *up, const tbf_options_t *o, uint8_t *out[SIDE_NB],
                           tbf_layer_stats_t *st, char *msg, size_t msglen);

/* ---- The file <dir>/baghchal-forbid.tb ----------------------------------------------- */

#define TBF_FILE_NAME "baghchal-forbid.tb"
/* The header's bytes; its checksum is in the last 8, the placement_twins flag in the 4 at
 * TBF_HEADER_SIZE - 16. */
enum { TBF_FILE_VERSION = 1, TBF_HEADER_SIZE = 16384 };

/* A placement layer's values under forbid, built twice: with the movement positions left
 * open counted as lost for the goats (variant 0) and for the tigers (variant 1). */
typedef struct {
    uint8_t side, h, c, pad;
    uint64_t count[2][3]; /* [variant][0 loss, 1 draw, 2 win] for the side to move, positions */
} tbf_place_info_t;

typedef struct {
    uint32_t goats_total, captures_to_win;
    uint64_t movement_checksum[TB_MAX_SLICES]; /* the draw-rule slices this was solved from */
    struct {
        uint32_t built;
        uint64_t offset, length, checksum; /* bytes: goats to move, then tigers to move */
        tbf_layer_stats_t stats;
        double seconds;
    } slice[TB_MAX_SLICES];
    uint32_t placement_built;       /* both variants done */
    /* The placement layers whose boards can come back in the movement phase (in hand h >= 1,
     * h + captured < captures to win: tbp_layer_has_twins) were given the variant's worst
     * value (tbp_gen_options_t.twins), so no value rests on such a board not coming back. A
     * file built before this (0 with 2 or more captures to win) has its placement built again. */
    uint32_t placement_twins;
    int32_t start_value[2];         /* the start for the goats, per variant: TBF_WIN / TBF_LOSS */
    int32_t start_draw_rule;        /* the start under the draw rule: 1 goats win, 0 draw, -1 loss */
    uint32_t place_layers;
    tbf_place_info_t place[TBP_MAX_LAYERS];
    double place_seconds;
} tbf_header_t;

/* Reads and checks <dir>/baghchal-forbid.tb's header (TB_ERR_MISSING when there is none). */
tb_error_t tbf_read_header(const char *dir, tbf_header_t *h, char *msg, size_t msglen);
/* Reads slice c's values (both sides, 2 x entries bytes) and checks its checksum. */
tb_error_t tbf_read_slice(const char *dir, const tbf_header_t *h, int c, uint8_t *out, char *msg, size_t msglen);

typedef struct {
    const char *dir;
    int threads;          /* for the placement builds */
    bool restart;
    bool placement;       /* also the placement phase (needs the draw rule's placement file) */
    tbf_options_t solve;
    void (*on_slice)(void *ctx, int c, const tbf_header_t *h, bool built);
    void (*on_place)(void *ctx, int variant, const tbp_progress_t *p);
    void *ctx;
} tbf_build_options_t;

/* Builds (or resumes) <dir>/baghchal-forbid.tb from the movement database in dir: each slice
 * from the most captured down, written and checksummed as soon as it is solved (a slice
 * already there with the right checksum, solved from the same movement slices, is not
 * solved again); then with placement the placement phase twice, in work folders
 * <dir>/forbid-work-0 and -1 (resumed like any placement build), whose counts and start
 * value go into the header before the folders are removed. h gets the final header. */
tb_error_t tbf_build(const tbf_build_options_t *o, tbf_header_t *h, char *msg, size_t msglen);

#endif
