/* Database adjudication over engine/tb.h. */
#include "adjudicate.h"

#include <stdio.h>
#include <stdlib.h>

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

int adj_probe(const adjudicator_t *a, const position_t *p)
{
    tb_value_t v;
    /* tb_probe says which positions it covers (today: the movement phase). */
    if (!a || !tb_probe(a->tb, p, &v) || v.wdl == TB_DRAW)
        return -1;
    return v.wdl == TB_WIN ? p->side : !p->side;
}
