/* Transposition table shared by all search threads: 64-byte buckets of four entries, three
 * depth-preferred and one always-replace, aged by a generation counter. Entries are two
 * relaxed atomic words checked with the XOR trick, so threads never lock and a torn entry
 * is simply not found. */
#ifndef BAGHCHAL_TT_H
#define BAGHCHAL_TT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "types.h"

enum { BOUND_NONE = 0, BOUND_UPPER = 1, BOUND_LOWER = 2, BOUND_EXACT = 3 };
enum { TT_BUCKET_ENTRIES = 4, TT_MAX_MB = 65536 };

typedef struct {
    _Atomic uint64_t check; /* key ^ data */
    _Atomic uint64_t data;
} tt_entry_t;

typedef struct {
    tt_entry_t e[TT_BUCKET_ENTRIES];
} tt_bucket_t;

_Static_assert(sizeof(tt_bucket_t) == 64, "a bucket fills one cache line");

typedef struct {
    tt_bucket_t *buckets; /* in `memory`, cache-line aligned (eager: 2 MB from 2 MB) */
    void *memory;
    size_t count; /* a power of two */
    uint8_t generation;
    bool eager; /* the whole table written when made and cleared (tt_set_eager) */
} tt_t;

typedef struct {
    move_t move;
    int16_t score, eval;
    uint8_t depth, bound;
} tt_hit_t;

void tt_init(tt_t *tt);
/* Sets the size in MB (rounded down to a power of two of buckets, at least 1 MB).
 * Returns false and keeps the old table when memory runs out. */
bool tt_resize(tt_t *tt, size_t mb);
void tt_free(tt_t *tt);
void tt_clear(tt_t *tt);
/* Eager (false after tt_init): the table is written through when made and when cleared, so
 * that a search does not pay for the first touch of its pages, and it is all resident. Lazy:
 * fresh zero pages, resident only where searches wrote (a server's many short searches).
 * Changing it makes the table again, empty. */
void tt_set_eager(tt_t *tt, bool eager);
/* Starts a new search: older entries become cheaper to replace. */
void tt_new_search(tt_t *tt);
bool tt_probe(const tt_t *tt, uint64_t key, tt_hit_t *hit);
void tt_store(tt_t *tt, uint64_t key, move_t move, int score, int eval, int depth, int bound);
/* Permille of sampled entries written during the current search. */
int tt_hashfull(const tt_t *tt);
static inline void tt_prefetch(const tt_t *tt, uint64_t key)
{
    __builtin_prefetch(&tt->buckets[key & (tt->count - 1)]);
}

#endif
