/* Time management. */
#include "timeman.h"

/* v * num / den without overflow for any clock the protocol accepts. */
static int64_t scale(int64_t v, int64_t num, int64_t den) { return (int64_t)((__int128)v * num / den); }

tm_budget_t tm_init(int64_t time_left, int64_t inc, int movestogo, int64_t overhead, int in_hand)
{
    tm_budget_t b;
    if (time_left < 0)
        time_left = 0;
    if (inc < 0)
        inc = 0;
    /* What may be spent at all: the clock never falls below the overhead. */
    int64_t usable = time_left - overhead;
    if (usable < 1)
        usable = 1;
    /* Games run about 20 placement moves and a movement phase of uncertain length: plan
     * for more moves to come while goats are still in hand. */
    int mtg = movestogo > 0 ? movestogo : 25 + in_hand / 2;
    if (mtg > 60)
        mtg = 60;
    int64_t opt = usable / mtg + scale(inc, 3, 4);
    int64_t max = usable / 3 + scale(inc, 3, 4);
    if (movestogo == 1)
        max = scale(usable, 9, 10);
    if (max > scale(usable, 9, 10))
        max = scale(usable, 9, 10);
    if (opt > max)
        opt = max;
    if (max < 1)
        max = 1;
    if (opt < 1)
        opt = 1;
    b.optimum_ms = opt;
    b.maximum_ms = max;
    return b;
}

int64_t tm_adjusted(const tm_budget_t *b, int percent)
{
    int64_t t = scale(b->optimum_ms, percent, 100);
    return t > b->maximum_ms ? b->maximum_ms : t;
}
