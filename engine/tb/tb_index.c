/* The database index: the eight board symmetries, the 1,666 classes of tiger placements and
 * the rank of the empty points among the points a class leaves free. */
#include "tb_build.h"

#include <stdlib.h>

enum { TIGER_SETS = 12650 };

/* Symmetry s maps (column x, row y) to: identity, mirrors, half turn, transpositions and
 * quarter turns. Each keeps the parity of x + y, so the diagonal lines map onto lines. */
static int sym_point(int s, int sq)
{
    int x = sq % 5, y = sq / 5, nx, ny;
    switch (s) {
    case 0: nx = x, ny = y; break;
    case 1: nx = 4 - x, ny = y; break;
    case 2: nx = x, ny = 4 - y; break;
    case 3: nx = 4 - x, ny = 4 - y; break;
    case 4: nx = y, ny = x; break;
    case 5: nx = 4 - y, ny = x; break;
    case 6: nx = y, ny = 4 - x; break;
    default: nx = 4 - y, ny = 4 - x; break;
    }
    return ny * 5 + nx;
}

static bb_t unrank4(const tb_index_t *ix, uint32_t r)
{
    bb_t t = 0;
    for (int j = 4; j >= 1; j--) {
        int p = j - 1;
        while (ix->binom[p + 1][j] <= r)
            p++;
        r -= ix->binom[p][j];
        t |= bb_square(p);
    }
    return t;
}

static void init_class(tb_index_t *ix, tb_class_t *c, bb_t rep)
{
    c->tigers = rep;
    c->nstab = 0;
    for (int s = 1; s < TB_SYM_NB; s++)
        if (tbi_map(ix, s, rep) == rep)
            c->stab[c->nstab++] = (uint8_t)s;
    c->orbit = (uint8_t)(TB_SYM_NB / (c->nstab + 1));
    int p = 0;
    for (int sq = 0; sq < SQUARE_NB; sq++) {
        c->cpos[sq] = 0xFF;
        if (!(rep & bb_square(sq))) {
            c->cpos[sq] = (uint8_t)p;
            c->free_sq[p++] = (uint8_t)sq;
        }
    }
}

tb_index_t *tb_index_new(void)
{
    tb_index_t *ix = calloc(1, sizeof *ix);
    uint16_t *class_of = malloc(TIGER_SETS * sizeof *class_of);
    if (!ix || !class_of) {
        free(ix);
        free(class_of);
        return NULL;
    }
    for (int n = 0; n <= SQUARE_NB; n++)
        for (int k = 0; k < 22; k++)
            ix->binom[n][k] = k == 0 ? 1 : n == 0 ? 0 : ix->binom[n - 1][k - 1] + ix->binom[n - 1][k];
    for (int s = 0; s < TB_SYM_NB; s++)
        for (int sq = 0; sq < SQUARE_NB; sq++)
            ix->perm[s][sq] = (uint8_t)sym_point(s, sq);
    /* Colex order is numeric order of the sets, so the smallest image of a class (its
     * representative) comes first and classes are numbered in increasing order. */
    int classes = 0;
    for (uint32_t r = 0; r < TIGER_SETS; r++) {
        bb_t t = unrank4(ix, r);
        bb_t best = t;
        int best_sym = 0;
        for (int s = 1; s < TB_SYM_NB; s++) {
            bb_t img = tbi_map(ix, s, t);
            if (img < best)
                best = img, best_sym = s;
        }
        if (best == t) {
            class_of[r] = (uint16_t)classes;
            init_class(ix, &ix->cls[classes++], t);
        } else {
            class_of[r] = class_of[tbi_tiger_rank(ix, best)];
        }
        ix->tmap[r].cls = class_of[r];
        ix->tmap[r].sym = (uint8_t)best_sym;
    }
    free(class_of);
    if (classes != TB_TIGER_CLASSES) {
        free(ix);
        return NULL;
    }
    return ix;
}

void tb_index_free(tb_index_t *ix) { free(ix); }

uint64_t tb_slice_size_game(int goats_total, int captured)
{
    int empties = 21 - goats_total + captured;
    if (captured < 0 || captured >= TB_MAX_SLICES || goats_total < 1 || goats_total > BC_GOATS_TOTAL || empties > 21)
        return 0;
    uint64_t b = 1;
    for (int i = 1; i <= empties; i++)
        b = b * (uint64_t)(21 - empties + i) / (uint64_t)i;
    return (uint64_t)TB_TIGER_CLASSES * b;
}

uint64_t tb_slice_size(int captured) { return tb_slice_size_game(BC_GOATS_TOTAL, captured); }

uint64_t tb_index_of(const tb_index_t *ix, const position_t *p)
{
    int stab;
    bb_t e = position_empty(p);
    return tbi_entry(ix, p->tigers, e, ix->binom[21][bb_count(e)], &stab);
}

bool tb_index_position(const tb_index_t *ix, int captured, int side, uint64_t index, position_t *out)
{
    return tb_index_position_game(ix, BC_GOATS_TOTAL, captured, side, index, out);
}

bool tb_index_position_game(const tb_index_t *ix, int goats_total, int captured, int side, uint64_t index,
                            position_t *out)
{
    int k = 21 - goats_total + captured;
    uint32_t ng = ix->binom[21][k];
    const tb_class_t *c = &ix->cls[index / ng];
    bb_t e = tbi_unrank_free(ix, c, (uint32_t)(index % ng), k);
    out->tigers = c->tigers;
    out->goats = BB_ALL & ~(c->tigers | e);
    out->side = (uint8_t)side;
    out->in_hand = 0;
    out->captured = (uint8_t)captured;
    out->key = position_compute_key(out);
    int stab;
    return !c->nstab || tbi_canon_free(ix, c, e, &stab) == e;
}

bb_t tb_transform(const tb_index_t *ix, int s, bb_t b) { return tbi_map(ix, s, b); }

int tb_index_stabilizer(const tb_index_t *ix, const position_t *p)
{
    int stab;
    bb_t e = position_empty(p);
    tbi_entry(ix, p->tigers, e, ix->binom[21][bb_count(e)], &stab);
    return stab;
}
