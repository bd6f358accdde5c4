/* baghchal-puzzles: finds puzzles in the solution of the game (positions of games played
 * from the start where the side to move has exactly one move that keeps its win or its draw)
 * and writes them with their solution line and a difficulty; --check verifies such a file
 * against a database. Exit status: 0 done (every puzzle checked is right), 1 a missing or
 * unreadable database or puzzle file, or a puzzle that fails its check, 2 bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "movegen.h"
#include "notation.h"
#include "tb_build.h"

static const char *const USAGE =
    "usage: baghchal-puzzles <dir> [--count N] [--seed S] [--best P] [--max-moves K] [--games N] [--out FILE]\n"
    "       baghchal-puzzles --check FILE <dir>\n";

enum {
    LEVEL_NB = 3,
    PHASE_NB = 2,
    MAX_LINE = 2 * 5,  /* plies of a line: at most 5 moves of the solver and the replies */
    MAX_GAME_PLY = 200 /* a game of the generator ends here (a drawn game may go on forever) */
};

static const char *const LEVEL_NAME[LEVEL_NB] = {"easy", "medium", "hard"};
static const char *const PHASE_NAME[PHASE_NB] = {"placement", "movement"};


/* ---- What the database says about a position ------------------------------------------ */

typedef struct {
    int n;    /* legal moves */
    int best; /* moves of the best value (tb_rank_moves) */
    int keep; /* moves that keep the position's win or draw */
    tb_value_t value;
    tb_move_value_t mv[MAX_MOVES];
} ranked_t;

/* Whether the game is over at p: the tigers' captures won, or the side to move has no move. */
static bool game_over(const tb_t *tb, const position_t *p, move_t *moves, int *n)
{
    *n = p->captured >= tb_captures_to_win(tb) ? 0 : gen_moves(p, moves);
    return *n == 0;
}

/* Ranks p's moves; false when the game is over or p is not covered. */
static bool rank(const tb_t *tb, const position_t *p, ranked_t *r)
{
    move_t moves[MAX_MOVES];
    if (game_over(tb, p, moves, &r->n))
        return false;
    r->best = tb_rank_moves(tb, p, moves, r->n, r->mv);
    if (r->best <= 0)
        return false;
    r->value = r->mv[0].value;
    r->keep = 0;
    for (int i = 0; i < r->n; i++)
        r->keep += r->mv[i].value.wdl == r->value.wdl;
    return true;
}

/* A puzzle position: not lost, more than one move, exactly one keeping the value. */
static bool unique_keeper(const ranked_t *r) { return r->value.wdl != TB_LOSS && r->n >= 2 && r->keep == 1; }

/* ---- Difficulty ------------------------------------------------------------------------
 * What a player sees two plies deep: a goat move that leaves a goat a tiger can capture at
 * once costs a goat (-1), a tiger move that captures wins one (+1). An alternative "looks
 * plausible" when it looks no worse by that count than the right move. */
static int material(const position_t *p, move_t m)
{
    if (p->side == TIGERS)
        return move_kind(m) == MOVE_JUMP;
    position_t q = *p;
    position_make(&q, m);
    return capturable_goats(q.tigers, q.goats) ? -1 : 0;
}

static int plausible_alternatives(const position_t *p, const ranked_t *r)
{
    move_t right = r->mv[0].move;
    int want = material(p, right), count = 0;
    for (int i = 1; i < r->n; i++)
        count += material(p, r->mv[i].move) >= want;
    return count;
}

typedef struct {
    int plausible, score, level;
} difficulty_t;

/* score = A + D + L: A from the plausible alternatives (0: 0, 1: 1, 2-3: 2, 4-7: 3, 8 or
 * more: 4); D from how far the end is (a win in the movement phase in 1-5 plies: 0, 7-15: 1,
 * 17-31: 2, longer: 3; a draw or any placement-phase position: 2); L the solver's moves in
 * the line after the first. easy: score 0-3, medium 4-5, hard 6 and more. */
static difficulty_t difficulty(const position_t *p, const ranked_t *r, int solver_moves)
{
    difficulty_t d;
    d.plausible = plausible_alternatives(p, r);
    int a = d.plausible == 0 ? 0 : d.plausible == 1 ? 1 : d.plausible <= 3 ? 2 : d.plausible <= 7 ? 3 : 4;
    int dist = 2;
    if (p->in_hand == 0 && r->value.wdl == TB_WIN) {
        int pl = r->value.distance;
        dist = pl <= 5 ? 0 : pl <= 15 ? 1 : pl <= 31 ? 2 : 3;
    }
    d.score = a + dist + (solver_moves - 1);
    d.level = d.score <= 3 ? 0 : d.score <= 5 ? 1 : 2;
    return d;
}

/* ---- Positions in text ------------------------------------------------------------------ */

/* OBX counts 20 goats; a database of a smaller game (the tests' games) writes its positions
 * with the goats in hand of that game, read back here by counting the missing goats as in
 * hand for the parser. */
static bool parse_obx_game(const char *text, int goats_total, position_t *p, char *msg, size_t msglen)
{
    char buf[OBX_MAX_LEN * 2];
    if (strlen(text) >= sizeof buf) {
        snprintf(msg, msglen, "OBX too long");
        return false;
    }
    strcpy(buf, text);
    int delta = BC_GOATS_TOTAL - goats_total;
    if (delta) {
        char *at = strchr(buf, '@');
        char *end;
        long h = at ? strtol(at + 1, &end, 10) : -1;
        if (!at || end == at + 1 || h < 0 || h > goats_total) {
            snprintf(msg, msglen, "OBX goats in hand missing or out of range 0..%d", goats_total);
            return false;
        }
        char rest[OBX_MAX_LEN * 2];
        snprintf(rest, sizeof rest, "%s", end);
        snprintf(at, sizeof buf - (size_t)(at - buf), "@%ld%s", h + delta, rest);
    }
    if (obx_parse(buf, p, NULL, msg, msglen) != BC_OK)
        return false;
    p->in_hand = (uint8_t)(p->in_hand - delta);
    return true;
}

static const char *goal_name(int wdl) { return wdl == TB_WIN ? "win" : "draw"; }
static const char *side_name(int side) { return side == GOATS ? "goats" : "tigers"; }

/* ---- Generating ------------------------------------------------------------------------- */

typedef struct {
    position_t start;
    int ply; /* of the game it was found in */
    int goal;
    int distance; /* -1: not known (placement) or a draw */
    difficulty_t diff;
    int nline;
    move_t line[MAX_LINE];
    uint64_t found; /* order found: the output's order within a bucket */
} puzzle_t;

typedef struct {
    const tb_t *tb;
    int count, best_pct, max_moves;
    long long games;
    uint64_t seed;
    /* The positions already taken, by their symmetry class: open addressing, 0 = empty. */
    uint64_t *seen;
    size_t seen_cap, seen_used;
    puzzle_t *puzzles;
    int npuzzles;
    int quota[PHASE_NB][LEVEL_NB], have[PHASE_NB][LEVEL_NB];
} gen_t;

/* The position's class under the board's 8 symmetries, with the side, captures and goats in
 * hand; never 0. */
static uint64_t class_key(const tb_t *tb, const position_t *p)
{
    const tb_index_t *ix = tb_index(tb);
    uint64_t best = UINT64_MAX;
    for (int s = 0; s < TB_SYM_NB; s++) {
        uint64_t k = (uint64_t)tb_transform(ix, s, p->tigers) << 25 | tb_transform(ix, s, p->goats);
        if (k < best)
            best = k;
    }
    return best | (uint64_t)p->side << 50 | (uint64_t)p->captured << 51 | (uint64_t)p->in_hand << 54 | 1ull << 63;
}

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xFF51AFD7ED558CCDull;
    return k ^ (k >> 33);
}

/* Adds k to the set; false when it was there already. */
static bool seen_add(gen_t *g, uint64_t k)
{
    if (2 * (g->seen_used + 1) > g->seen_cap) {
        size_t cap = g->seen_cap ? 2 * g->seen_cap : 1024;
        uint64_t *t = calloc(cap, sizeof *t);
        if (!t)
            cli_fail("out of memory");
        for (size_t i = 0; i < g->seen_cap; i++)
            if (g->seen[i]) {
                size_t j = mix(g->seen[i]) & (cap - 1);
                while (t[j])
                    j = (j + 1) & (cap - 1);
                t[j] = g->seen[i];
            }
        free(g->seen);
        g->seen = t, g->seen_cap = cap;
    }
    size_t j = mix(k) & (g->seen_cap - 1);
    while (g->seen[j]) {
        if (g->seen[j] == k)
            return false;
        j = (j + 1) & (g->seen_cap - 1);
    }
    g->seen[j] = k;
    g->seen_used++;
    return true;
}

/* The opponent's reply at q (not over): among its best moves (the solution's), the first
 * after which the solver again has exactly one keeping move when the line may go on, else
 * the first; MOVE_NONE when q is not covered. */
static move_t best_reply(const tb_t *tb, const position_t *q, bool go_on)
{
    ranked_t r, s;
    if (!rank(tb, q, &r))
        return MOVE_NONE;
    if (go_on)
        for (int i = 0; i < r.best; i++) {
            position_t x = *q;
            position_make(&x, r.mv[i].move);
            if (rank(tb, &x, &s) && unique_keeper(&s))
                return r.mv[i].move;
        }
    return r.mv[0].move;
}

/* The line from p, whose ranking r has one keeping move: that move, the best reply, and so
 * on while the solver again has exactly one keeping move, up to max_moves of the solver's. */
static int build_line(const tb_t *tb, const position_t *p, const ranked_t *r, int max_moves, move_t *line,
                      int *solver_moves)
{
    position_t q = *p;
    int n = 0;
    line[n++] = r->mv[0].move;
    position_make(&q, r->mv[0].move);
    *solver_moves = 1;
    for (;;) {
        move_t moves[MAX_MOVES];
        int nm;
        if (game_over(tb, &q, moves, &nm))
            break;
        move_t reply = best_reply(tb, &q, *solver_moves < max_moves);
        if (reply == MOVE_NONE)
            break;
        line[n++] = reply;
        position_make(&q, reply);
        ranked_t s;
        if (*solver_moves >= max_moves || !rank(tb, &q, &s) || !unique_keeper(&s))
            break;
        line[n++] = s.mv[0].move;
        position_make(&q, s.mv[0].move);
        ++*solver_moves;
    }
    return n;
}

static bool all_full(const gen_t *g)
{
    for (int ph = 0; ph < PHASE_NB; ph++)
        for (int l = 0; l < LEVEL_NB; l++)
            if (g->have[ph][l] < g->quota[ph][l])
                return false;
    return true;
}

/* Takes p as a puzzle when it is one, new up to symmetry, of a level not full yet; returns
 * whether it did. */
static bool consider(gen_t *g, const position_t *p, const ranked_t *r, int ply)
{
    if (!unique_keeper(r))
        return false;
    int phase = p->in_hand ? 0 : 1;
    puzzle_t z;
    int solver_moves;
    z.nline = build_line(g->tb, p, r, g->max_moves, z.line, &solver_moves);
    z.diff = difficulty(p, r, solver_moves);
    if (g->have[phase][z.diff.level] >= g->quota[phase][z.diff.level])
        return false;
    if (!seen_add(g, class_key(g->tb, p)))
        return false;
    z.start = *p;
    z.ply = ply;
    z.goal = r->value.wdl;
    z.distance = phase == 1 && r->value.wdl == TB_WIN ? r->value.distance : -1;
    z.found = (uint64_t)g->npuzzles;
    g->puzzles[g->npuzzles++] = z;
    g->have[phase][z.diff.level]++;
    return true;
}

/* Without the placement file the placement phase is played without the solution: goats
 * prefer placements that leave no goat to capture, tigers captures. */
static move_t plain_choice(const position_t *p, const move_t *moves, int n, uint64_t *rng)
{
    move_t good[MAX_MOVES];
    int ng = 0;
    for (int i = 0; i < n; i++)
        if (material(p, moves[i]) >= (p->side == TIGERS ? 1 : 0))
            good[ng++] = moves[i];
    return ng ? good[cli_rng_next(rng) % (uint64_t)ng] : moves[cli_rng_next(rng) % (uint64_t)n];
}

/* One game from the start: each side plays one of the solution's best moves with
 * probability best_pct %, else a random legal move; the first position that makes a puzzle
 * is taken (one a game, so that the set comes from many games). */
static void play_game(gen_t *g, long long game)
{
    uint64_t rng = cli_rng_stream(g->seed, (uint64_t)game);
    position_t p;
    tbp_start_position(tb_goats_total(g->tb), &p);
    bool taken = false;
    for (int ply = 0; ply < MAX_GAME_PLY; ply++) {
        move_t moves[MAX_MOVES];
        int n;
        if (game_over(g->tb, &p, moves, &n))
            return;
        ranked_t r;
        bool covered = rank(g->tb, &p, &r);
        if (covered && !taken)
            taken = consider(g, &p, &r, ply);
        move_t m;
        bool best = (int)(cli_rng_next(&rng) % 100) < g->best_pct;
        if (best && covered)
            m = r.mv[cli_rng_next(&rng) % (uint64_t)r.best].move;
        else if (best)
            m = plain_choice(&p, moves, n, &rng);
        else
            m = moves[cli_rng_next(&rng) % (uint64_t)n];
        position_make(&p, m);
    }
}

static int cmp_puzzle(const void *a, const void *b)
{
    const puzzle_t *x = a, *y = b;
    int px = x->start.in_hand ? 0 : 1, py = y->start.in_hand ? 0 : 1;
    if (px != py)
        return px - py;
    if (x->diff.level != y->diff.level)
        return x->diff.level - y->diff.level;
    return x->found < y->found ? -1 : x->found > y->found;
}

static void write_puzzles(const gen_t *g, FILE *f, const char *command)
{
    fprintf(f, "{\"format\":\"baghchal-puzzles 1\",\"rule\":\"draw\",\"goats\":%d,\"captures\":%d,"
               "\"command\":\"%s\",\n\"puzzles\":[\n",
            tb_goats_total(g->tb), tb_captures_to_win(g->tb), command);
    for (int i = 0; i < g->npuzzles; i++) {
        const puzzle_t *z = &g->puzzles[i];
        char obx[OBX_MAX_LEN], dist[16];
        obx_meta_t meta = {MOVE_NONE, z->ply};
        obx_format(&z->start, &meta, OBX_V2, obx, sizeof obx);
        if (z->distance >= 0)
            snprintf(dist, sizeof dist, "%d", z->distance);
        else
            snprintf(dist, sizeof dist, "null");
        fprintf(f,
                "{\"id\":%d,\"level\":\"%s\",\"score\":%d,\"phase\":\"%s\",\"side\":\"%s\",\"goal\":\"%s\","
                "\"distance\":%s,\"plausible\":%d,\"obx\":\"%s\",\"line\":[",
                i + 1, LEVEL_NAME[z->diff.level], z->diff.score, PHASE_NAME[z->start.in_hand ? 0 : 1],
                side_name(z->start.side), goal_name(z->goal), dist, z->diff.plausible, obx);
        for (int k = 0; k < z->nline; k++) {
            char t[MOVE_TEXT_LEN];
            move_format(z->line[k], t);
            fprintf(f, "%s\"%s\"", k ? "," : "", t);
        }
        fprintf(f, "]}%s\n", i + 1 < g->npuzzles ? "," : "");
    }
    fprintf(f, "]}\n");
}

static int generate(gen_t *g, const char *out, const char *command)
{
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f)
        cli_fail("cannot write %s", out);
    bool placement = tb_has_placement(g->tb);
    int buckets = placement ? PHASE_NB * LEVEL_NB : LEVEL_NB, b = 0;
    for (int ph = placement ? 0 : 1; ph < PHASE_NB; ph++)
        for (int l = 0; l < LEVEL_NB; l++, b++)
            g->quota[ph][l] = g->count / buckets + (b < g->count % buckets);
    g->puzzles = malloc((size_t)g->count * sizeof *g->puzzles);
    if (!g->puzzles)
        cli_fail("out of memory");
    long long game = 0;
    for (; game < g->games && !all_full(g); game++) {
        play_game(g, game);
        if ((game + 1) % 100 == 0)
            fprintf(stderr, "%lld games, %d / %d puzzles\n", game + 1, g->npuzzles, g->count);
    }
    fprintf(stderr, "%lld games, %d / %d puzzles:", game, g->npuzzles, g->count);
    for (int ph = placement ? 0 : 1; ph < PHASE_NB; ph++)
        for (int l = 0; l < LEVEL_NB; l++)
            fprintf(stderr, " %s %s %d", PHASE_NAME[ph], LEVEL_NAME[l], g->have[ph][l]);
    fprintf(stderr, "%s\n", placement ? "" : " (no placement file: movement-phase puzzles only)");
    qsort(g->puzzles, (size_t)g->npuzzles, sizeof *g->puzzles, cmp_puzzle);
    write_puzzles(g, f, command);
    if (fflush(f) != 0 || ferror(f) || (out && fclose(f) != 0))
        cli_fail("cannot write %s", out ? out : "the standard output");
    return 0;
}

/* ---- Checking a puzzle file ------------------------------------------------------------ */

/* The text of "key": in obj (up to end): a string value copied into out, or a bare value
 * (number, null) up to the next ',' or '}'; false when absent. */
static bool field(const char *obj, const char *end, const char *key, char *out, size_t len)
{
    char pat[32];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *s = strstr(obj, pat);
    if (!s || s >= end)
        return false;
    s += strlen(pat);
    const char *e;
    if (*s == '"') {
        s++;
        e = memchr(s, '"', (size_t)(end - s));
    } else {
        e = s;
        while (e < end && *e != ',' && *e != '}')
            e++;
    }
    if (!e || (size_t)(e - s) >= len)
        return false;
    memcpy(out, s, (size_t)(e - s));
    out[e - s] = '\0';
    return true;
}

/* The moves of "line":[...] in obj; -1 when malformed. */
static int line_moves(const char *obj, const char *end, char moves[][MOVE_TEXT_LEN], int max)
{
    const char *s = strstr(obj, "\"line\":[");
    if (!s || s >= end)
        return -1;
    s += 8;
    int n = 0;
    while (*s == '"') {
        const char *e = strchr(s + 1, '"');
        if (!e || e >= end || n == max || (size_t)(e - s - 1) >= MOVE_TEXT_LEN)
            return -1;
        memcpy(moves[n], s + 1, (size_t)(e - s - 1));
        moves[n++][e - s - 1] = '\0';
        s = e + 1;
        if (*s == ',')
            s++;
    }
    return *s == ']' ? n : -1;
}

/* Checks one puzzle object; returns 1 right, 0 wrong (reason in why), -1 not covered by the
 * database (a placement puzzle without the placement file). */
static int check_one(const tb_t *tb, const char *obj, const char *end, char *why, size_t len)
{
    char obx[OBX_MAX_LEN * 2], side[16], goal[16], phase[16], dist[16], level[16], score[16], plaus[16],
        msg[160];
    char moves[MAX_LINE + 1][MOVE_TEXT_LEN];
    if (!field(obj, end, "obx", obx, sizeof obx) || !field(obj, end, "side", side, sizeof side) ||
        !field(obj, end, "goal", goal, sizeof goal) || !field(obj, end, "phase", phase, sizeof phase) ||
        !field(obj, end, "distance", dist, sizeof dist) || !field(obj, end, "level", level, sizeof level) ||
        !field(obj, end, "score", score, sizeof score) || !field(obj, end, "plausible", plaus, sizeof plaus)) {
        snprintf(why, len, "a field is missing or malformed");
        return 0;
    }
    int n = line_moves(obj, end, moves, MAX_LINE + 1);
    if (n < 1) {
        snprintf(why, len, "the line is missing, empty or malformed");
        return 0;
    }
    position_t p;
    if (!parse_obx_game(obx, tb_goats_total(tb), &p, msg, sizeof msg)) {
        snprintf(why, len, "bad OBX: %s", msg);
        return 0;
    }
    if (strcmp(side, side_name(p.side)) != 0 || strcmp(phase, PHASE_NAME[p.in_hand ? 0 : 1]) != 0) {
        snprintf(why, len, "side or phase does not match the OBX");
        return 0;
    }
    if (p.in_hand && !tb_has_placement(tb))
        return -1;
    ranked_t r0;
    if (!rank(tb, &p, &r0)) {
        snprintf(why, len, "the game is over or the position is not covered");
        return 0;
    }
    if (r0.value.wdl == TB_LOSS || strcmp(goal, goal_name(r0.value.wdl)) != 0) {
        snprintf(why, len, "the goal is %s, the database says %s", goal,
                 r0.value.wdl == TB_LOSS ? "loss" : goal_name(r0.value.wdl));
        return 0;
    }
    char want[16];
    if (!p.in_hand && r0.value.wdl == TB_WIN)
        snprintf(want, sizeof want, "%d", r0.value.distance);
    else
        snprintf(want, sizeof want, "null");
    if (strcmp(dist, want) != 0) {
        snprintf(why, len, "distance %s, the database says %s", dist, want);
        return 0;
    }
    position_t q = p;
    int solver_moves = 0;
    for (int i = 0; i < n; i++) {
        move_t m;
        if (move_parse(&q, moves[i], &m, msg, sizeof msg) != BC_OK) {
            snprintf(why, len, "move %d (%s): %s", i + 1, moves[i], msg);
            return 0;
        }
        ranked_t r;
        if (!rank(tb, &q, &r)) {
            snprintf(why, len, "move %d (%s): the game is over or the position is not covered", i + 1, moves[i]);
            return 0;
        }
        if (i % 2 == 0) {
            if (!unique_keeper(&r) || r.value.wdl != r0.value.wdl) {
                snprintf(why, len, "move %d (%s): %d moves keep the %s, not exactly one", i + 1, moves[i], r.keep,
                         goal_name(r.value.wdl == TB_LOSS ? TB_DRAW : r.value.wdl));
                return 0;
            }
            if (r.mv[0].move != m) {
                snprintf(why, len, "move %d (%s) is not the move that keeps the %s", i + 1, moves[i], goal);
                return 0;
            }
            solver_moves++;
        } else {
            int k = 0;
            while (k < r.n && r.mv[k].move != m)
                k++;
            if (k >= r.best) {
                snprintf(why, len, "move %d (%s) is not a best reply", i + 1, moves[i]);
                return 0;
            }
        }
        position_make(&q, m);
    }
    difficulty_t d = difficulty(&p, &r0, solver_moves);
    char dscore[16], dplaus[16];
    snprintf(dscore, sizeof dscore, "%d", d.score);
    snprintf(dplaus, sizeof dplaus, "%d", d.plausible);
    if (strcmp(level, LEVEL_NAME[d.level]) != 0 || strcmp(score, dscore) != 0 || strcmp(plaus, dplaus) != 0) {
        snprintf(why, len, "difficulty %s (score %s, %s plausible), computed %s (score %d, %d plausible)", level,
                 score, plaus, LEVEL_NAME[d.level], d.score, d.plausible);
        return 0;
    }
    return 1;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        cli_fail("cannot read %s", path);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        cli_fail("out of memory");
    for (;;) {
        if (n + 1 >= cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b)
                cli_fail("out of memory");
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad)
        cli_fail("cannot read %s", path);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* A puzzle's id: a whole number from 1 to 999999, as the generator writes them. */
static bool id_ok(const char *id)
{
    size_t n = strspn(id, "0123456789");
    return n > 0 && n <= 6 && id[n] == '\0' && id[0] != '0';
}

typedef struct {
    long id;
    char obx[OBX_MAX_LEN * 2];
} seen_t;

static int cmp_seen_id(const void *a, const void *b)
{
    long x = ((const seen_t *)a)->id, y = ((const seen_t *)b)->id;
    return x < y ? -1 : x > y;
}

static int cmp_seen_obx(const void *a, const void *b)
{
    const seen_t *x = a, *y = b;
    int c = strcmp(x->obx, y->obx);
    return c ? c : (x->id < y->id ? -1 : x->id > y->id);
}

static int check(const tb_t *tb, const char *path)
{
    size_t len;
    char *text = read_all(path, &len);
    const char *nul = memchr(text, '\0', len);
    if (nul)
        cli_fail("%s holds a NUL byte at offset %zu: not a puzzle file", path, (size_t)(nul - text));
    if (!strstr(text, "\"format\":\"baghchal-puzzles 1\""))
        cli_fail("%s is not a puzzle file (no \"format\":\"baghchal-puzzles 1\")", path);
    char goats[16], caps[16], rule[16], want[16];
    const char *head_end = strstr(text, "\"puzzles\":[");
    if (!head_end)
        cli_fail("%s has no \"puzzles\" list", path);
    /* The puzzles are the draw rule's: each keeps the value the database gives under it. */
    if (!field(text, head_end, "rule", rule, sizeof rule) || strcmp(rule, "draw") != 0)
        cli_fail("%s: the puzzles are draw-rule puzzles, and the file's \"rule\" is not \"draw\"", path);
    snprintf(want, sizeof want, "%d", tb_goats_total(tb));
    if (!field(text, text + len, "goats", goats, sizeof goats) || strcmp(goats, want) != 0)
        cli_fail("%s is for a game of %s goats, the database for %s", path, goats, want);
    snprintf(want, sizeof want, "%d", tb_captures_to_win(tb));
    if (!field(text, text + len, "captures", caps, sizeof caps) || strcmp(caps, want) != 0)
        cli_fail("%s is for a game won by %s captures, the database by %s", path, caps, want);
    /* The file as a whole first: every puzzle closed with an id, none given twice (the same id,
     * or the same position under another id), at least one. */
    int total = 0, wrong = 0, skipped = 0, cap = 0;
    seen_t *seen = NULL;
    for (const char *s = strstr(text, "{\"id\":"); s; s = strstr(s + 1, "{\"id\":")) {
        const char *end = strchr(s, '}');
        char id[16];
        size_t at = (size_t)(s - text);
        if (!end)
            cli_fail("%s: the puzzle at offset %zu is not closed (no '}')", path, at);
        if (!field(s, end, "id", id, sizeof id) || !id_ok(id))
            cli_fail("%s: the puzzle at offset %zu has an id that is not a whole number from 1 to 999999", path, at);
        if (total == cap) {
            seen_t *g = realloc(seen, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *seen);
            if (!g)
                cli_fail("out of memory");
            seen = g;
        }
        seen[total].id = atol(id);
        if (!field(s, end, "obx", seen[total].obx, sizeof seen[total].obx))
            seen[total].obx[0] = '\0';
        total++;
    }
    if (!total)
        cli_fail("%s holds no puzzles", path);
    qsort(seen, (size_t)total, sizeof *seen, cmp_seen_id);
    for (int k = 1; k < total; k++)
        if (seen[k].id == seen[k - 1].id)
            cli_fail("%s: the id %ld is given to two puzzles", path, seen[k].id);
    qsort(seen, (size_t)total, sizeof *seen, cmp_seen_obx);
    for (int k = 1; k < total; k++)
        if (seen[k].obx[0] && !strcmp(seen[k].obx, seen[k - 1].obx))
            cli_fail("%s: puzzles %ld and %ld are the same position (%s)", path, seen[k - 1].id, seen[k].id,
                     seen[k].obx);
    free(seen);
    /* Then each puzzle against the database. */
    for (const char *s = strstr(text, "{\"id\":"); s; s = strstr(s + 1, "{\"id\":")) {
        const char *end = strchr(s, '}');
        char id[16], why[512];
        field(s, end, "id", id, sizeof id);
        int k = check_one(tb, s, end, why, sizeof why);
        if (k == 0) {
            printf("puzzle %s fails: %s\n", id, why);
            wrong++;
        }
        skipped += k < 0;
    }
    printf("%d puzzles, %d right, %d wrong", total, total - wrong - skipped, wrong);
    if (skipped)
        printf(", %d placement-phase puzzles not checked (no placement file)", skipped);
    printf("\n");
    free(text);
    return wrong ? 1 : 0;
}

int main(int argc, char **argv)
{
    cli_program = "baghchal-puzzles";
    const char *dir = NULL, *check_file = NULL, *out = NULL;
    gen_t g = {0};
    g.count = 300, g.best_pct = 80, g.max_moves = 3, g.games = 1000000, g.seed = 1;
    char command[512];
    int used = snprintf(command, sizeof command, "baghchal-puzzles DIR");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(USAGE, stdout);
            return 0;
        }
        bool opt = true;
        if (!strcmp(a, "--check")) {
            if (!v)
                cli_die("--check needs a file");
            check_file = v;
        } else if (!strcmp(a, "--out")) {
            if (!v)
                cli_die("--out needs a file");
            out = v;
        } else if (!strcmp(a, "--count"))
            g.count = (int)cli_int(a, v, 1, 100000);
        else if (!strcmp(a, "--seed"))
            g.seed = (uint64_t)cli_int(a, v, 0, INT64_MAX);
        else if (!strcmp(a, "--best"))
            g.best_pct = (int)cli_int(a, v, 0, 100);
        else if (!strcmp(a, "--max-moves"))
            g.max_moves = (int)cli_int(a, v, 1, MAX_LINE / 2);
        else if (!strcmp(a, "--games"))
            g.games = cli_int(a, v, 1, 1000000000);
        else if (a[0] == '-')
            cli_die("unknown option '%s'", a);
        else {
            if (dir)
                cli_die("one database folder only ('%s' and '%s')", dir, a);
            dir = a;
            opt = false;
        }
        if (opt) {
            if (strcmp(a, "--out") != 0 && strcmp(a, "--check") != 0 && used < (int)sizeof command)
                used += snprintf(command + used, sizeof command - (size_t)used, " %s %s", a, v);
            i++;
        }
    }
    if (!dir)
        cli_die("no database folder named (see --help)");
    tb_t *tb;
    char msg[512];
    if (tb_open(dir, &tb, msg, sizeof msg) != TB_OK)
        cli_fail("%s", msg);
    g.tb = tb;
    int rc = check_file ? check(tb, check_file) : generate(&g, out, command);
    tb_close(tb);
    free(g.seen);
    free(g.puzzles);
    return rc;
}
