/* The placement index: a layer's entry is tiger class * C(21, goats on the board) + the
 * colex rank of the goats among the 21 points the class's representative leaves free. What
 * the probe and the generator share; the movement phase's index is tb_index.c. */
#include "tb_build.h"

#include <string.h>

/* ---- Ranks of goat sets among the 21 free points ------------------------------------- */

void tbp_rank_init(tbp_rank_t *t)
{
    memset(t, 0, sizeof *t);
    for (int n = 0; n <= 21; n++)
        for (int k = 0; k <= 21; k++)
            t->binom[n][k] = k == 0 ? 1 : n == 0 ? 0 : t->binom[n - 1][k - 1] + t->binom[n - 1][k];
    for (uint32_t x = 0; x < 128; x++) {
        for (int j = 0; j < 15; j++) {
            uint32_t lo = 0, mid = 0, hi = 0;
            int i = 0;
            for (int q = 0; q < 7; q++)
                if (x >> q & 1) {
                    lo += t->binom[q][i + 1];
                    mid += j < 8 ? t->binom[7 + q][j + i + 1] : 0;
                    hi += t->binom[14 + q][j + i + 1];
                    i++;
                }
            if (j == 0)
                t->lo[x] = lo;
            if (j < 8)
                t->mid[x][j] = mid;
            t->hi[x][j] = hi;
        }
    }
}

/* ---- Layers ------------------------------------------------------------------------- */

bool tbp_layer_exists(int goats_total, int captures_to_win, int side, int h, int c)
{
    int g = goats_total - h - c;
    if (c < 0 || c >= captures_to_win || g < 0 || g > 19)
        return false;
    return side == GOATS ? h >= 1 && h <= goats_total : h >= 1 && h <= goats_total - 1;
}

bool tbp_layer_in_scope(int goats_total, int side, int h, int c, int max_in_hand, int min_goats)
{
    int g = goats_total - h - c;
    return (max_in_hand <= 0 || h <= max_in_hand) && g >= (side == GOATS ? min_goats - 1 : min_goats);
}

uint64_t tbp_entry_of(const tb_index_t *ix, const tbp_rank_t *rk, bb_t tigers, bb_t goats)
{
    tb_tmap_t m = ix->tmap[tbi_tiger_rank(ix, tigers)];
    const tb_class_t *c = &ix->cls[m.cls];
    uint32_t mask = 0;
    for (bb_t g = goats; g; g &= g - 1)
        mask |= 1u << c->cpos[ix->perm[m.sym][bb_first(g)]];
    return (uint64_t)m.cls * rk->binom[21][bb_count(goats)] + tbp_rank(rk, mask);
}

void tbp_entry_points(const tb_index_t *ix, const tbp_rank_t *rk, int goats, uint64_t i, bb_t *tigers, bb_t *out_goats)
{
    uint32_t ng = rk->binom[21][goats];
    const tb_class_t *c = &ix->cls[i / ng];
    *tigers = c->tigers;
    *out_goats = tbi_unrank_free(ix, c, (uint32_t)(i % ng), goats);
}

void tbp_layer_shape(tbp_layer_t *l, const tbp_rank_t *rk, int goats_total, int side, int h, int c)
{
    memset(l, 0, sizeof *l);
    l->side = side, l->h = h, l->c = c;
    l->goats = goats_total - h - c;
    l->ng = rk->binom[21][l->goats];
    l->wpc = (l->ng + 31) / 32;
    l->words = (uint64_t)l->wpc * TB_TIGER_CLASSES;
}
