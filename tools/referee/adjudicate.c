/* Database adjudication over engine/tb.h. */
#include "adjudicate.h"

#include <stdio.h>
#include <stdlib.h>

#include "forbid.h"
#include "tb.h"

struct adjudicator {
    tb_t *tb;
};

adjudicator_t *adj_open(const char *dir, char *msg, size_t msglen)
{
    adjudicator_t *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(msg, msglen, "out of memory");
        return NULL;
    }
    if (tb_open_game(dir, &a->tb, msg, msglen) != TB_OK) {
        free(a);
        return NULL;
    }
    return a;
}

void adj_close(adjudicator_t *a)
{
    if (!a)
        return;
    tb_close(a->tb);
    free(a);
}

enum { ADJ_VERIFY_NODES = 5000 };

int adj_probe(const adjudicator_t *a, const game_t *g)
{
    const position_t *p = game_position(g);
    tb_value_t v;
    /* tb_probe says which positions it covers (both phases when the placement file is there). */
    if (!a || !tb_probe(a->tb, p, &v) || v.wdl == TB_DRAW)
        return -1;
    if (g->rule == REP_FORBID) {
        fb_history_t h;
        fb_history_init(&h, a->tb, g);
        if (!fb_value_holds(&h, p, v) && !fb_verify(a->tb, g, p, v, ADJ_VERIFY_NODES))
            return -1;
    }
    return v.wdl == TB_WIN ? p->side : !p->side;
}
