/* Transposition table. */
#define _DEFAULT_SOURCE /* madvise */
#include "tt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* data: move (16) | score (16) | eval (16) | depth (8) | generation (6) + bound (2). */
static inline uint64_t pack(move_t move, int score, int eval, int depth, int bound, uint8_t gen)
{
    return (uint64_t)move | (uint64_t)(uint16_t)score << 16 | (uint64_t)(uint16_t)eval << 32 |
           (uint64_t)(uint8_t)depth << 48 | (uint64_t)(uint8_t)((gen << 2) | bound) << 56;
}

static inline tt_hit_t unpack(uint64_t d)
{
    tt_hit_t h;
    h.move = (move_t)(d & 0xFFFF);
    h.score = (int16_t)(uint16_t)(d >> 16);
    h.eval = (int16_t)(uint16_t)(d >> 32);
    h.depth = (uint8_t)(d >> 48);
    h.bound = (uint8_t)((d >> 56) & 3);
    return h;
}

enum { TT_HUGE_PAGE = 2 << 20 };

static inline uint8_t entry_gen(uint64_t d) { return (uint8_t)(d >> 58); }

void tt_init(tt_t *tt)
{
    tt->buckets = NULL;
    tt->memory = NULL;
    tt->count = 0;
    tt->generation = 0;
    tt->eager = false;
}

/* A zeroed table of count buckets. Eager: its memory written once here rather than by the
 * search, which would pay a page fault at its first touch of each page of fresh zero pages
 * (after `ucinewgame`, 100 ms searches with the default 64 MB did 57,000 nodes instead of
 * 100,000: docs/performance.md); tables of 2 MB and more aligned to 2 MB and, where the
 * system has them, asked for as huge pages: fewer faults and fewer address-translation misses
 * for the table's scattered probes. Lazy: calloc's fresh zero pages, only those a search
 * touches ever resident (one spare bucket makes room for the cache-line alignment). */
static bool tt_allocate(tt_t *tt, size_t count)
{
    size_t bytes = count * sizeof(tt_bucket_t);
    void *memory;
    tt_bucket_t *buckets;
    if (tt->eager) {
        size_t align = bytes >= TT_HUGE_PAGE ? TT_HUGE_PAGE : 64;
        /* A power of two of 64-byte buckets: a multiple of its alignment, as aligned_alloc asks. */
        memory = aligned_alloc(align, bytes);
        if (!memory)
            return false;
#ifdef MADV_HUGEPAGE
        if (align == TT_HUGE_PAGE)
            (void)madvise(memory, bytes, MADV_HUGEPAGE);
#endif
        memset(memory, 0, bytes);
        buckets = memory;
    } else {
        memory = calloc(count + 1, sizeof(tt_bucket_t));
        if (!memory)
            return false;
        buckets = (tt_bucket_t *)(((uintptr_t)memory + 63) & ~(uintptr_t)63);
    }
    free(tt->memory);
    tt->memory = memory;
    tt->buckets = buckets;
    tt->count = count;
    tt->generation = 0;
    return true;
}

void tt_set_eager(tt_t *tt, bool eager)
{
    if (tt->eager == eager)
        return;
    tt->eager = eager;
    /* The table made again the new way; where memory runs out, the old one emptied in place
     * (resident from now on, as an eager table is). */
    if (tt->buckets && !tt_allocate(tt, tt->count))
        memset(tt->buckets, 0, tt->count * sizeof *tt->buckets);
}

bool tt_resize(tt_t *tt, size_t mb)
{
    if (mb < 1)
        mb = 1;
    if (mb > TT_MAX_MB)
        mb = TT_MAX_MB;
    /* Counted in 64 bits: where size_t has 32 (WebAssembly), mb << 20 and the table's bytes
     * overflow from 4096 and 2048 MB. A table of half the address space or more cannot be
     * had there: refused like memory that runs out. */
    uint64_t bytes = (uint64_t)mb << 20, count = 1;
    while (count * 2 * sizeof(tt_bucket_t) <= bytes)
        count *= 2;
    if (count * sizeof(tt_bucket_t) >= (uint64_t)SIZE_MAX / 2)
        return false;
    return count == tt->count || tt_allocate(tt, (size_t)count);
}

void tt_free(tt_t *tt)
{
    free(tt->memory);
    tt_init(tt);
}

void tt_clear(tt_t *tt)
{
    if (!tt->buckets)
        return;
    /* Eager tables and small ones are wiped in place; a large lazy one is mapped anew, which
     * also gives back the pages its searches touched. */
    if (tt->eager || tt->count * sizeof(tt_bucket_t) < ((size_t)4 << 20) || !tt_allocate(tt, tt->count))
        memset(tt->buckets, 0, tt->count * sizeof *tt->buckets);
    tt->generation = 0;
}

void tt_new_search(tt_t *tt) { tt->generation = (uint8_t)((tt->generation + 1) & 63); }

bool tt_probe(const tt_t *tt, uint64_t key, tt_hit_t *hit)
{
    tt_bucket_t *b = &tt->buckets[key & (tt->count - 1)];
    for (int i = 0; i < TT_BUCKET_ENTRIES; i++) {
        uint64_t d = atomic_load_explicit(&b->e[i].data, memory_order_relaxed);
        uint64_t c = atomic_load_explicit(&b->e[i].check, memory_order_relaxed);
        if ((c ^ d) == key && d) {
            *hit = unpack(d);
            return true;
        }
    }
    return false;
}

/* How valuable an entry is to keep: deep and recent entries win. */
static inline int worth(uint64_t d, uint8_t gen)
{
    int age = (gen - entry_gen(d)) & 63;
    return (int)(uint8_t)(d >> 48) - 4 * age;
}

void tt_store(tt_t *tt, uint64_t key, move_t move, int score, int eval, int depth, int bound)
{
    tt_bucket_t *b = &tt->buckets[key & (tt->count - 1)];
    if (depth < 0)
        depth = 0;
    int slot = -1;
    uint64_t old = 0;
    for (int i = 0; i < TT_BUCKET_ENTRIES; i++) {
        uint64_t d = atomic_load_explicit(&b->e[i].data, memory_order_relaxed);
        uint64_t c = atomic_load_explicit(&b->e[i].check, memory_order_relaxed);
        if ((c ^ d) == key && d) {
            slot = i;
            old = d;
            break;
        }
    }
    if (slot >= 0) {
        tt_hit_t h = unpack(old);
        /* Keep a deeper result of this search unless the new one is exact. */
        if (bound != BOUND_EXACT && depth + 2 < h.depth && entry_gen(old) == tt->generation)
            return;
        if (move == MOVE_NONE)
            move = h.move;
    } else {
        /* The shallowest, oldest depth-preferred entry gives way to a deeper result;
         * otherwise the always-replace entry takes it. */
        int worst = 0, worst_worth = 1 << 30;
        for (int i = 0; i < TT_BUCKET_ENTRIES - 1; i++) {
            uint64_t d = atomic_load_explicit(&b->e[i].data, memory_order_relaxed);
            int w = d ? worth(d, tt->generation) : -1000;
            if (w < worst_worth) {
                worst_worth = w;
                worst = i;
            }
        }
        slot = depth >= worst_worth ? worst : TT_BUCKET_ENTRIES - 1;
    }
    uint64_t d = pack(move, score, eval, depth, bound, tt->generation);
    atomic_store_explicit(&b->e[slot].data, d, memory_order_relaxed);
    atomic_store_explicit(&b->e[slot].check, key ^ d, memory_order_relaxed);
}

int tt_hashfull(const tt_t *tt)
{
    int n = 0, total = 0;
    for (size_t i = 0; i < 250 && i < tt->count; i++)
        for (int k = 0; k < TT_BUCKET_ENTRIES; k++) {
            uint64_t d = atomic_load_explicit(&tt->buckets[i].e[k].data, memory_order_relaxed);
            total++;
            n += d && entry_gen(d) == tt->generation;
        }
    return total ? n * 1000 / total : 0;
}
