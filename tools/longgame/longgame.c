/* longgame: prints a `position` command holding a long legal game, for measuring how the
 * engine takes long histories. From the start position, random legal moves under the
 * Repetition rule given, preferring moves that keep the game going (no capture, no goat
 * left to be captured, a quiet reply left to the opponent), until the line has the plies asked
 * for or the bytes asked for; a walk that ends the game steps back and tries again.
 * Usage: longgame plies N | bytes N [forbid|draw] [seed] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baghchal.h"

/* How well m keeps the game going: 0 ends it, 1 captures, 2 leaves a goat to be captured or
 * the opponent only captures, 3 is quiet. */
static int keeps_going(const game_t *g, move_t m)
{
    position_t next = *game_position(g);
    position_make(&next, m);
    if (next.captured >= BC_CAPTURES_TO_WIN || (g->rule == REP_DRAW && game_count_position(g, &next) >= 2))
        return 0;
    move_t replies[MAX_MOVES];
    int n = gen_moves(&next, replies), legal = 0, quiet = 0;
    for (int i = 0; i < n; i++) {
        position_t after = next;
        position_make(&after, replies[i]);
        if (g->rule != REP_FORBID || next.in_hand || game_count_position(g, &after) == 0) {
            legal++;
            quiet += move_kind(replies[i]) != MOVE_JUMP;
        }
    }
    if (!legal)
        return 0;
    if (move_kind(m) == MOVE_JUMP)
        return 1;
    return capturable_goats(next.tigers, next.goats) || !quiet ? 2 : 3;
}

static unsigned long long rng(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "plies") != 0 && strcmp(argv[1], "bytes") != 0)) {
        fputs("usage: longgame plies N | bytes N [forbid|draw] [seed]\n", stderr);
        return 2;
    }
    bool by_bytes = strcmp(argv[1], "bytes") == 0;
    char *end;
    unsigned long long limit = strtoull(argv[2], &end, 10);
    rep_rule_t rule = argc > 3 && strcmp(argv[3], "draw") == 0 ? REP_DRAW : REP_FORBID;
    unsigned long long seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 1;
    if (*end || limit == 0 || seed == 0) {
        fputs("longgame: N and the seed must be positive integers\n", stderr);
        return 2;
    }
    position_t start;
    position_set_start(&start);
    game_t g;
    if (!game_init(&g, &start, NULL, rule)) {
        fputs("longgame: out of memory\n", stderr);
        return 1;
    }
    /* A walk that ends the game early steps back some plies and tries again. */
    unsigned long long bytes = strlen("position startpos moves") + 1, restarts = 0;
    size_t back = 8;
    while (by_bytes ? bytes < limit : g.count < limit) {
        move_t list[MAX_MOVES], best[MAX_MOVES];
        int n = game_result(&g).reason == RESULT_NONE ? game_legal_moves(&g, list) : 0, k = 0, top = 0;
        for (int i = 0; i < n; i++) {
            int q = keeps_going(&g, list[i]);
            if (q > top)
                top = q, k = 0;
            if (q == top && q > 0)
                best[k++] = list[i];
        }
        if (k == 0) {
            if (++restarts > 1000000 || g.count == 0)
                break;
            size_t keep = g.count > back ? g.count - back : 0;
            back = back < 4096 ? back * 2 : 8;
            game_t h;
            if (!game_init(&h, &start, NULL, rule)) {
                fputs("longgame: out of memory\n", stderr);
                return 1;
            }
            for (size_t i = 0; i < keep; i++)
                game_play(&h, g.moves[i], NULL, 0);
            for (size_t i = keep; i < g.count; i++) {
                char t[MOVE_TEXT_LEN];
                move_format(g.moves[i], t);
                bytes -= 1 + strlen(t);
            }
            game_swap(&g, &h);
            game_free(&h);
            continue;
        }
        if (back > 8 && g.count % 64 == 0)
            back = 8;
        move_t m = best[rng(&seed) % (unsigned)k];
        if (game_play(&g, m, NULL, 0) != BC_OK) {
            fputs("longgame: out of memory\n", stderr);
            return 1;
        }
        char t[MOVE_TEXT_LEN];
        move_format(m, t);
        bytes += 1 + strlen(t);
    }
    fputs("position startpos moves", stdout);
    for (size_t i = 0; i < g.count; i++) {
        char t[MOVE_TEXT_LEN];
        move_format(g.moves[i], t);
        printf(" %s", t);
    }
    putchar('\n');
    fprintf(stderr, "longgame: %zu plies, %llu bytes, %llu restarts\n", g.count, bytes, restarts);
    game_free(&g);
    return 0;
}
