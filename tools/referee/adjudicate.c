/* Database adjudication over engine/tb.h. The build defines BAGHCHAL_REFEREE_HAVE_TB only
 * when tb.h exists and offers the calls used here (see CMakeLists.txt). */
#include "adjudicate.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef BAGHCHAL_REFEREE_HAVE_TB
#include "tb.h"

struct adjudicator {
    tb_t *tb;
};

bool adj_available(void) { return true; }

adjudicator_t *adj_open(const char *dir, char *msg, size_t msglen)
{
    adjudicator_t *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(msg, msglen, "out of memory");
        return NULL;
    }
    if (tb_open(dir, &a->tb, msg, msglen) != TB_OK) {
        free(a);
        return NULL;
    }
    if (tb_captures_to_win(a->tb) != BC_CAPTURES_TO_WIN) {
        snprintf(msg, msglen, "the database in %s is built for %d captures, not %d", dir,
                 tb_captures_to_win(a->tb), BC_CAPTURES_TO_WIN);
        tb_close(a->tb);
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
    if (!a || p->in_hand != 0 || !tb_probe(a->tb, p, &v) || v.wdl == TB_DRAW)
        return -1;
    return v.wdl == TB_WIN ? p->side : !p->side;
}

#else

struct adjudicator {
    int unused;
};

bool adj_available(void) { return false; }

adjudicator_t *adj_open(const char *dir, char *msg, size_t msglen)
{
    (void)dir;
    snprintf(msg, msglen, "built without the database (engine/tb.h)");
    return NULL;
}

void adj_close(adjudicator_t *a) { (void)a; }

int adj_probe(const adjudicator_t *a, const position_t *p)
{
    (void)a, (void)p;
    return -1;
}

#endif
