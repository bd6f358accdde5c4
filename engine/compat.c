/* The notation of the Python `baghchal` package (compat.h): FEN, PGN, move tokens and the
 * 217-action index over our positions, moves and games, and the package's end-of-game rules. */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"
#include "movegen.h"

#define fail(e, ...) ((compat_error_t)bc_fail((e), __VA_ARGS__))

static const char *const ERROR_NAMES[COMPAT_ERROR_COUNT] = {
    [COMPAT_OK] = "ok",
    [COMPAT_ERR_SYNTAX] = "syntax",
    [COMPAT_ERR_POSITION] = "position",
    [COMPAT_ERR_ILLEGAL] = "illegal",
    [COMPAT_ERR_GAME_OVER] = "game-over",
    [COMPAT_ERR_UNREPRESENTABLE] = "unrepresentable",
    [COMPAT_ERR_BUFFER] = "buffer",
    [COMPAT_ERR_NO_MEMORY] = "no-memory",
};

const char *compat_error_name(compat_error_t e)
{
    return (unsigned)e < COMPAT_ERROR_COUNT ? ERROR_NAMES[e] : "unknown";
}

/* ---- the action table ------------------------------------------------------------- */

/* The package's actions 25..216 (its lookup_table.action_space): the moves from each point
 * in turn, A1 first, in row-major order; ACTION_FIRST[s] is the first action from square s,
 * ACTION_TO its target squares. Within a point the order is the package's (its neighbours,
 * then its jumps, each in the order of its tables), which no rule derives. */
static const uint8_t ACTION_FIRST[SQUARE_NB + 1] = {25, 31, 36, 46, 51, 57, 62, 73, 80, 91, 96, 106, 113, 129, 136, 146, 151, 162, 169, 180, 185, 191, 196, 206, 211, 217};
static const uint8_t ACTION_TO[COMPAT_ACTION_NB - COMPAT_PLACE_ACTION_NB] = {
    1, 5, 6, 2, 10, 12, /* from A1: 25.. */
    2, 0, 6, 11, 3, /* from B1: 31.. */
    1, 3, 7, 6, 8, 12, 10, 4, 0, 14, /* from C1: 36.. */
    4, 2, 8, 1, 13, /* from D1: 46.. */
    9, 8, 3, 2, 12, 14, /* from E1: 51.. */
    10, 0, 6, 15, 7, /* from A2: 57.. */
    1, 11, 2, 12, 10, 5, 7, 0, 16, 18, 8, /* from B2: 62.. */
    8, 2, 12, 6, 9, 5, 17, /* from C2: 73.. */
    2, 12, 3, 4, 7, 9, 13, 14, 16, 18, 6, /* from D2: 80.. */
    4, 8, 14, 19, 7, /* from E2: 91.. */
    11, 5, 6, 16, 15, 2, 12, 20, 0, 22, /* from A3: 96.. */
    16, 10, 12, 6, 1, 13, 21, /* from B3: 106.. */
    11, 18, 7, 17, 6, 16, 13, 8, 2, 24, 10, 4, 22, 20, 0, 14, /* from C3: 113.. */
    8, 18, 12, 14, 23, 11, 3, /* from D3: 129.. */
    19, 18, 9, 13, 8, 2, 24, 12, 4, 22, /* from E3: 136.. */
    16, 20, 10, 17, 5, /* from A4: 146.. */
    11, 15, 12, 10, 17, 20, 21, 22, 18, 8, 6, /* from B4: 151.. */
    16, 18, 12, 22, 19, 15, 7, /* from C4: 162.. */
    23, 12, 24, 19, 17, 22, 13, 14, 16, 8, 6, /* from D4: 169.. */
    18, 24, 14, 9, 17, /* from E4: 180.. */
    16, 15, 21, 10, 12, 22, /* from A5: 185.. */
    16, 20, 22, 23, 11, /* from B5: 191.. */
    23, 18, 17, 16, 21, 24, 12, 10, 20, 14, /* from C5: 196.. */
    18, 24, 22, 13, 21, /* from D5: 206.. */
    19, 23, 18, 14, 12, 22, /* from E5: 211.. */
};

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* "33" for C3: row then column. */
static void point_digits(int sq, char *out)
{
    out[0] = (char)('1' + sq / 5);
    out[1] = (char)('1' + sq % 5);
}

/* The square of two digits "rc", or -1. */
static int point_parse(const char *s)
{
    if (s[0] < '1' || s[0] > '5' || s[1] < '1' || s[1] > '5')
        return -1;
    return (s[0] - '1') * 5 + (s[1] - '1');
}

/* ---- actions ---------------------------------------------------------------------- */

move_t compat_action_to_move(int action)
{
    if (action < 0 || action >= COMPAT_ACTION_NB)
        return MOVE_NONE;
    if (action < COMPAT_PLACE_ACTION_NB)
        return move_make(MOVE_PLACE, action, action);
    int from = 0;
    while (ACTION_FIRST[from + 1] <= action)
        from++;
    int to = ACTION_TO[action - COMPAT_PLACE_ACTION_NB];
    return move_make((BC_STEPS[from] & bb_square(to)) ? MOVE_STEP : MOVE_JUMP, from, to);
}

int compat_move_to_action(move_t m)
{
    int from = move_from(m), to = move_to(m);
    if (from >= SQUARE_NB || to >= SQUARE_NB)
        return -1;
    switch (move_kind(m)) {
    case MOVE_PLACE:
        return from == to ? to : -1;
    case MOVE_STEP:
    case MOVE_JUMP:
        for (int a = ACTION_FIRST[from]; a < ACTION_FIRST[from + 1]; a++)
            if (ACTION_TO[a - COMPAT_PLACE_ACTION_NB] == to)
                return compat_action_to_move(a) == m ? a : -1;
        return -1;
    default:
        return -1;
    }
}

static int mask_of(const move_t *list, int n, uint8_t mask[COMPAT_ACTION_NB])
{
    memset(mask, 0, COMPAT_ACTION_NB);
    int count = 0;
    for (int i = 0; i < n; i++) {
        int a = compat_move_to_action(list[i]);
        if (a >= 0 && !mask[a]) {
            mask[a] = 1;
            count++;
        }
    }
    return count;
}

int compat_action_mask(const position_t *pos, uint8_t mask[COMPAT_ACTION_NB])
{
    move_t list[MAX_MOVES];
    return mask_of(list, gen_moves(pos, list), mask);
}

int compat_game_action_mask(const game_t *g, uint8_t mask[COMPAT_ACTION_NB])
{
    move_t list[MAX_MOVES];
    return mask_of(list, game_legal_moves(g, list), mask);
}

/* ---- single moves ------------------------------------------------------------------- */

size_t compat_move_format(move_t m, int side, char *buf)
{
    size_t n = 0;
    buf[0] = '\0';
    if (move_from(m) >= SQUARE_NB || move_to(m) >= SQUARE_NB || (side != GOATS && side != TIGERS))
        return 0;
    switch (move_kind(m)) {
    case MOVE_PLACE:
        if (side != GOATS)
            return 0;
        buf[n++] = 'G';
        point_digits(move_to(m), buf + n);
        n += 2;
        break;
    case MOVE_STEP:
        buf[n++] = side == GOATS ? 'G' : 'B';
        point_digits(move_from(m), buf + n);
        point_digits(move_to(m), buf + n + 2);
        n += 4;
        break;
    case MOVE_JUMP:
        if (side != TIGERS)
            return 0;
        buf[n++] = 'B';
        buf[n++] = 'x';
        point_digits(move_from(m), buf + n);
        point_digits(move_to(m), buf + n + 2);
        n += 4;
        break;
    default:
        return 0;
    }
    buf[n] = '\0';
    return n;
}

static int jump_over(int from, int to)
{
    for (int k = 0; k < BC_JUMP_COUNT[from]; k++)
        if (BC_JUMPS[from][k].to == to)
            return BC_JUMPS[from][k].over;
    return -1;
}

compat_error_t compat_move_parse_text(const char *text, move_t *out, int *side, char *err, size_t errlen)
{
    const char *s = text;
    size_t n = strlen(s);
    int who = s[0] == 'G' ? GOATS : s[0] == 'B' ? TIGERS : -1;
    bool jump = who == TIGERS && s[1] == 'x';
    const char *d = s + 1 + jump;
    size_t digits = n - 1 - jump;
    bool ok = who >= 0 && (digits == 4 || (digits == 2 && !jump));
    for (size_t i = 0; ok && i < digits; i++)
        ok = d[i] >= '1' && d[i] <= '5';
    if (!ok) {
        if (s[0] == 'G' && s[1] == 'x')
            return fail(COMPAT_ERR_ILLEGAL, err, errlen, "'%.20s': goats cannot capture", text);
        return fail(COMPAT_ERR_SYNTAX, err, errlen,
                    "'%.20s' is not a move: expected G33, G3344, B1122 or Bx1133 (row then column, 1-5)", text);
    }
    int from = point_parse(d);
    if (digits == 2) {
        if (who == TIGERS)
            return fail(COMPAT_ERR_ILLEGAL, err, errlen, "'%.20s': tigers are never placed", text);
        *out = move_make(MOVE_PLACE, from, from);
        if (side)
            *side = GOATS;
        return COMPAT_OK;
    }
    int to = point_parse(d + 2);
    bool step = (BC_STEPS[from] & bb_square(to)) != 0;
    if (jump && !step && jump_over(from, to) >= 0) {
        *out = move_make(MOVE_JUMP, from, to);
    } else if (!jump && step) {
        *out = move_make(MOVE_STEP, from, to);
    } else if (jump && step) {
        return fail(COMPAT_ERR_ILLEGAL, err, errlen, "'%.20s' is a step: written without the x", text);
    } else if (jump_over(from, to) >= 0) {
        return fail(COMPAT_ERR_ILLEGAL, err, errlen,
                    who == TIGERS ? "'%.20s' is a jump: a capture is written Bx" : "'%.20s': goats cannot jump",
                    text);
    } else {
        return fail(COMPAT_ERR_ILLEGAL, err, errlen, "'%.20s' does not follow a line of the board", text);
    }
    if (side)
        *side = who;
    return COMPAT_OK;
}

compat_error_t compat_move_parse(const position_t *pos, const char *text, move_t *out, char *err, size_t errlen)
{
    move_t m;
    int side;
    compat_error_t e = compat_move_parse_text(text, &m, &side, err, errlen);
    if (e != COMPAT_OK)
        return e;
    if (pos->captured >= BC_CAPTURES_TO_WIN)
        return fail(COMPAT_ERR_GAME_OVER, err, errlen, "%.20s: the game is over, five goats are captured", text);
    if (side != pos->side)
        return fail(COMPAT_ERR_ILLEGAL, err, errlen, "%.20s: it is the %s' turn", text,
                    pos->side == GOATS ? "goats" : "tigers");
    if (move_kind(m) == MOVE_PLACE && pos->in_hand == 0)
        return fail(COMPAT_ERR_ILLEGAL, err, errlen, "%.20s: all 20 goats are placed", text);
    if (move_kind(m) == MOVE_STEP && side == GOATS && pos->in_hand > 0)
        return fail(COMPAT_ERR_ILLEGAL, err, errlen, "%.20s: a goat moves only once all 20 are placed", text);
    if (!move_is_pseudo_legal(pos, m))
        return fail(COMPAT_ERR_ILLEGAL, err, errlen, "%.20s is not a legal move in this position", text);
    *out = m;
    return COMPAT_OK;
}

/* ---- FEN ------------------------------------------------------------------------------ */

/* The board field: five rows from row 1, B G and runs of empty points. */
static compat_error_t parse_fen_board(const char *f, size_t n, position_t *p, char *err, size_t errlen)
{
    int row = 0, col = 0;
    for (size_t i = 0; i <= n; i++) {
        char c = i < n ? f[i] : '/';
        if (c == '/') {
            if (col != 5)
                return fail(COMPAT_ERR_SYNTAX, err, errlen, "board row %d has %d points, expected 5", row + 1, col);
            if (++row > 5)
                return fail(COMPAT_ERR_SYNTAX, err, errlen, "the board has more than 5 rows");
            col = 0;
            continue;
        }
        int run = c >= '1' && c <= '5' ? c - '0' : 1;
        if (c != 'B' && c != 'G' && run == 1 && c != '1')
            return fail(COMPAT_ERR_SYNTAX, err, errlen, "invalid character '%c' on the board (allowed: B G 1-5)",
                        (c > 32 && c < 127) ? c : '?');
        if (col + run > 5)
            return fail(COMPAT_ERR_SYNTAX, err, errlen, "board row %d has more than 5 points", row + 1);
        if (c == 'B')
            p->tigers |= bb_square(row * 5 + col);
        else if (c == 'G')
            p->goats |= bb_square(row * 5 + col);
        col += run;
    }
    if (row != 5)
        return fail(COMPAT_ERR_SYNTAX, err, errlen, "the board has %d rows, expected 5", row);
    return COMPAT_OK;
}

compat_error_t compat_fen_parse(const char *fen, position_t *pos, int *ply, char *err, size_t errlen)
{
    const char *f[3];
    size_t fl[3];
    int nf = 0;
    for (const char *s = fen;;) {
        while (is_space(*s))
            s++;
        if (!*s)
            break;
        if (nf == 3)
            return fail(COMPAT_ERR_SYNTAX, err, errlen, "too many fields: a FEN is board, side (G or B), goat moves");
        f[nf] = s;
        while (*s && !is_space(*s))
            s++;
        fl[nf] = (size_t)(s - f[nf]);
        nf++;
    }
    if (nf < 3)
        return fail(COMPAT_ERR_SYNTAX, err, errlen, "%d field%s: a FEN is board, side (G or B), goat moves", nf,
                    nf == 1 ? "" : "s");

    position_t p = {0};
    compat_error_t e = parse_fen_board(f[0], fl[0], &p, err, errlen);
    if (e != COMPAT_OK)
        return e;
    if (fl[1] != 1 || (f[1][0] != 'G' && f[1][0] != 'B'))
        return fail(COMPAT_ERR_SYNTAX, err, errlen, "side to move '%.*s' must be G or B", (int)(fl[1] > 8 ? 8 : fl[1]),
                    f[1]);
    p.side = f[1][0] == 'G' ? GOATS : TIGERS;
    long n = 0;
    for (size_t i = 0; i < fl[2]; i++) {
        if (f[2][i] < '0' || f[2][i] > '9' || i >= 9) {
            n = -1;
            break;
        }
        n = n * 10 + (f[2][i] - '0');
    }
    if (n < 0 || n > COMPAT_MAX_GOAT_MOVES)
        return fail(COMPAT_ERR_SYNTAX, err, errlen, "goat moves '%.*s' must be a number 0..%d",
                    (int)(fl[2] > 12 ? 12 : fl[2]), f[2], COMPAT_MAX_GOAT_MOVES);

    int tigers = bb_count(p.tigers), goats = bb_count(p.goats);
    if (tigers != BC_TIGERS_NB)
        return fail(COMPAT_ERR_POSITION, err, errlen, "the board has %d tigers, expected exactly 4", tigers);
    if (p.side == TIGERS && n == 0)
        return fail(COMPAT_ERR_POSITION, err, errlen, "the tigers cannot be to move before the goats' first move");
    long in_hand = n < BC_GOATS_TOTAL ? BC_GOATS_TOTAL - n : 0;
    long captured = BC_GOATS_TOTAL - in_hand - goats;
    long tiger_moves = p.side == GOATS ? n : n - 1;
    if (captured < 0)
        return fail(COMPAT_ERR_POSITION, err, errlen, "%d goats on the board but only %ld placed after %ld goat moves",
                    goats, BC_GOATS_TOTAL - in_hand, n);
    if (captured > BC_CAPTURES_TO_WIN)
        return fail(COMPAT_ERR_POSITION, err, errlen,
                    "%ld goats captured (20 - %ld on the board - %ld in hand): the game ends at the fifth", captured,
                    (long)goats, in_hand);
    if (captured > tiger_moves)
        return fail(COMPAT_ERR_POSITION, err, errlen, "%ld goats captured in %ld tiger moves", captured, tiger_moves);
    if (p.side == TIGERS && captured == BC_CAPTURES_TO_WIN)
        return fail(COMPAT_ERR_POSITION, err, errlen,
                    "the tigers cannot be to move with five goats captured: the fifth capture ends the game");
    p.in_hand = (uint8_t)in_hand;
    p.captured = (uint8_t)captured;
    p.key = position_compute_key(&p);
    *pos = p;
    if (ply)
        *ply = (int)(p.side == GOATS ? 2 * n : 2 * n - 1);
    return COMPAT_OK;
}

/* The goat moves a FEN of pos says, from its ply where the position leaves it open. */
static compat_error_t goat_moves_of(const position_t *pos, int ply, long *n, char *err, size_t errlen)
{
    if (pos->in_hand > 0) {
        *n = BC_GOATS_TOTAL - pos->in_hand;
        return COMPAT_OK;
    }
    if (ply < 0)
        return fail(COMPAT_ERR_UNREPRESENTABLE, err, errlen,
                    "the FEN of a movement-phase position needs its count of goat moves, and the game's is unknown");
    if ((ply % 2 == 0) != (pos->side == GOATS))
        return fail(COMPAT_ERR_UNREPRESENTABLE, err, errlen,
                    "half-move %d is not a %s turn: the FEN's goat-move count cannot be told", ply,
                    pos->side == GOATS ? "goats'" : "tigers'");
    *n = ((long)ply + 1) / 2;
    if (*n < BC_GOATS_TOTAL)
        return fail(COMPAT_ERR_UNREPRESENTABLE, err, errlen,
                    "half-move %d is too early for a position with every goat placed: the FEN's goat-move count "
                    "cannot be told",
                    ply);
    return COMPAT_OK;
}

compat_error_t compat_fen_format(const position_t *pos, int ply, char *buf, size_t len, char *err, size_t errlen)
{
    long n = 0;
    compat_error_t e = goat_moves_of(pos, ply, &n, err, errlen);
    if (e != COMPAT_OK)
        return e;
    if (len < COMPAT_FEN_LEN)
        return fail(COMPAT_ERR_BUFFER, err, errlen, "a FEN needs a buffer of %d bytes", COMPAT_FEN_LEN);
    size_t b = 0;
    for (int row = 0; row < 5; row++) {
        int run = 0;
        for (int col = 0; col < 5; col++) {
            bb_t bit = bb_square(row * 5 + col);
            char c = (pos->tigers & bit) ? 'B' : (pos->goats & bit) ? 'G' : 0;
            if (!c) {
                run++;
                continue;
            }
            if (run)
                buf[b++] = (char)('0' + run);
            run = 0;
            buf[b++] = c;
        }
        if (run)
            buf[b++] = (char)('0' + run);
        if (row < 4)
            buf[b++] = '/';
    }
    snprintf(buf + b, len - b, " %c %ld", pos->side == GOATS ? 'G' : 'B', n);
    return COMPAT_OK;
}

compat_error_t compat_game_fen(const game_t *g, char *buf, size_t len, char *err, size_t errlen)
{
    return compat_fen_format(game_position(g), game_meta(g).ply, buf, len, err, errlen);
}

/* ---- the package's end of the game -------------------------------------------------- */

/* How often each board (pieces only) occurred, the way the package counts them: an
 * open-addressing table kept at most half full; an empty slot has no tigers. */
typedef struct {
    bb_t tigers, goats;
    uint32_t count;
} board_count_t;

typedef struct {
    board_count_t *slots;
    size_t cap, used;
    uint32_t max; /* the highest count so far: the package's draw test */
} pkg_state_t;

static uint64_t board_hash(const position_t *p)
{
    uint64_t k = p->key ^ (p->side == TIGERS ? BC_ZOBRIST_SIDE : 0);
    return k ^ (k >> 29);
}

static size_t board_slot(const pkg_state_t *s, const position_t *p)
{
    size_t i = (size_t)board_hash(p) & (s->cap - 1);
    while (s->slots[i].tigers && (s->slots[i].tigers != p->tigers || s->slots[i].goats != p->goats))
        i = (i + 1) & (s->cap - 1);
    return i;
}

static bool pkg_grow(pkg_state_t *s)
{
    pkg_state_t t = {calloc(s->cap * 2, sizeof *t.slots), s->cap * 2, s->used, s->max};
    if (!t.slots)
        return false;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->slots[i].tigers)
            continue;
        position_t p = {.tigers = s->slots[i].tigers, .goats = s->slots[i].goats};
        p.key = position_compute_key(&p);
        t.slots[board_slot(&t, &p)] = s->slots[i];
    }
    free(s->slots);
    *s = t;
    return true;
}

static bool pkg_count(pkg_state_t *s, const position_t *p)
{
    if ((s->used + 1) * 2 > s->cap && !pkg_grow(s))
        return false;
    board_count_t *e = &s->slots[board_slot(s, p)];
    if (!e->tigers) {
        e->tigers = p->tigers;
        e->goats = p->goats;
        s->used++;
    }
    if (++e->count > s->max)
        s->max = e->count;
    return true;
}

/* The package counts the start's board, then the board after every move made with no goat
 * left in hand. */
static bool pkg_init(pkg_state_t *s, const position_t *start)
{
    s->cap = 64;
    s->used = 0;
    s->max = 0;
    s->slots = calloc(s->cap, sizeof *s->slots);
    return s->slots && pkg_count(s, start);
}

static bool pkg_after_move(pkg_state_t *s, const position_t *p) { return p->in_hand > 0 || pkg_count(s, p); }

/* The package's is_game_over and winner, in its order. */
static game_result_t pkg_verdict(const pkg_state_t *s, const position_t *p)
{
    move_t list[MAX_MOVES];
    if (p->captured >= BC_CAPTURES_TO_WIN)
        return (game_result_t){RESULT_FIVE_CAPTURED, TIGERS};
    if (p->side == GOATS && gen_moves(p, list) == 0)
        return (game_result_t){RESULT_GOATS_STUCK, TIGERS};
    if (count_tiger_moves(p->tigers, p->goats) == 0)
        return (game_result_t){RESULT_TIGERS_TRAPPED, GOATS};
    if (s->max >= 3)
        return (game_result_t){RESULT_REPETITION_DRAW, -1};
    return (game_result_t){RESULT_NONE, -1};
}

static const char *pkg_describe(game_result_t r)
{
    switch (r.reason) {
    case RESULT_FIVE_CAPTURED:
        return "five goats captured";
    case RESULT_GOATS_STUCK:
        return "the goats cannot move";
    case RESULT_TIGERS_TRAPPED:
        return "all four tigers are trapped";
    case RESULT_REPETITION_DRAW:
        return "a board occurred for the third time";
    default:
        return "";
    }
}

/* Walks g under the package's rules: *end gets the first ply at which its game is over
 * (SIZE_MAX when never), *last its verdict on the current position. */
static compat_error_t pkg_walk(const game_t *g, size_t *end, game_result_t *first, game_result_t *last, char *err,
                               size_t errlen)
{
    pkg_state_t s;
    *end = SIZE_MAX;
    bool ok = pkg_init(&s, &g->history[0]);
    for (size_t i = 0; ok && i <= g->count; i++) {
        if (i > 0)
            ok = pkg_after_move(&s, &g->history[i]);
        if (!ok)
            break;
        game_result_t r = pkg_verdict(&s, &g->history[i]);
        if (r.reason != RESULT_NONE && *end == SIZE_MAX) {
            *end = i;
            *first = r;
        }
        if (i == g->count)
            *last = r;
    }
    free(s.slots);
    if (!ok)
        return fail(COMPAT_ERR_NO_MEMORY, err, errlen, "out of memory");
    return COMPAT_OK;
}

compat_error_t compat_game_result(const game_t *g, game_result_t *out, char *err, size_t errlen)
{
    size_t end;
    game_result_t first, last;
    compat_error_t e = pkg_walk(g, &end, &first, &last, err, errlen);
    if (e == COMPAT_OK)
        *out = last;
    return e;
}

/* ---- PGN -------------------------------------------------------------------------------- */

static const char *result_text(game_result_t r)
{
    return r.winner == GOATS ? "1-0" : r.winner == TIGERS ? "0-1" : "1/2-1/2";
}

static bool is_start(const position_t *p)
{
    position_t start;
    position_set_start(&start);
    return position_same(p, &start) && p->in_hand == start.in_hand && p->captured == 0;
}

/* Appends text to buf as far as it fits; *n counts the whole length. */
static void put(char *buf, size_t len, size_t *n, const char *text)
{
    for (; *text; text++, (*n)++)
        if (*n + 1 < len)
            buf[*n] = *text;
}

compat_error_t compat_pgn_format(const game_t *g, char *buf, size_t len, size_t *needed, char *err, size_t errlen)
{
    if (!is_start(&g->history[0]))
        return fail(COMPAT_ERR_UNREPRESENTABLE, err, errlen,
                    "the package's PGN always starts from the start position; this game does not");
    size_t end;
    game_result_t first, last;
    compat_error_t e = pkg_walk(g, &end, &first, &last, err, errlen);
    if (e != COMPAT_OK)
        return e;
    if (end < g->count)
        return fail(COMPAT_ERR_UNREPRESENTABLE, err, errlen,
                    "under the package's rules the game is over after ply %zu (%s): the %zu move%s after it cannot "
                    "be written",
                    end, pkg_describe(first), g->count - end, g->count - end == 1 ? "" : "s");
    size_t n = 0;
    for (size_t i = 0; i < g->count; i++) {
        const position_t *p = &g->history[i];
        char num[24], tok[COMPAT_MOVE_TEXT_LEN];
        if (!compat_move_format(g->moves[i], p->side, tok))
            return fail(COMPAT_ERR_UNREPRESENTABLE, err, errlen, "ply %zu has no move token", i + 1);
        if (p->side == GOATS) {
            snprintf(num, sizeof num, "%s%zu. ", i ? " " : "", i / 2 + 1);
            put(buf, len, &n, num);
        } else {
            put(buf, len, &n, " ");
        }
        put(buf, len, &n, tok);
    }
    if (end == g->count && g->count > 0) {
        put(buf, len, &n, "# ");
        put(buf, len, &n, result_text(first));
    }
    if (len)
        buf[n < len ? n : len - 1] = '\0';
    if (needed)
        *needed = n;
    if (n >= len)
        return fail(COMPAT_ERR_BUFFER, err, errlen, "the PGN needs %zu bytes, the buffer holds %zu", n + 1, len);
    return COMPAT_OK;
}

typedef struct {
    const char *s;
    size_t n;
} word_t;

static bool word_is(word_t w, const char *text) { return w.n == strlen(text) && !memcmp(w.s, text, w.n); }

/* The next whitespace-separated word at *s; false at the end. */
static bool next_word(const char **s, word_t *w)
{
    while (is_space(**s))
        (*s)++;
    if (!**s)
        return false;
    w->s = *s;
    while (**s && !is_space(**s))
        (*s)++;
    w->n = (size_t)(*s - w->s);
    return true;
}

typedef struct {
    game_t game;
    pkg_state_t pkg;
    char *err;
    size_t errlen;
} pgn_reader_t;

/* "ply 7 (4. G3344)" or "ply 8 (4... B1122)": where a move of the text stands. */
static void ply_name(const pgn_reader_t *r, word_t tok, char *out, size_t len)
{
    size_t ply = r->game.count + 1;
    snprintf(out, len, "ply %zu (%zu%s %.*s)", ply, (ply + 1) / 2, ply % 2 ? "." : "...", (int)(tok.n > 12 ? 12 : tok.n),
             tok.s);
}

static compat_error_t read_move(pgn_reader_t *r, word_t tok)
{
    char where[48], why[160], text[16];
    ply_name(r, tok, where, sizeof where);
    if (tok.n >= sizeof text)
        return fail(COMPAT_ERR_SYNTAX, r->err, r->errlen, "%s: not a move", where);
    memcpy(text, tok.s, tok.n);
    text[tok.n] = '\0';
    const position_t *p = game_position(&r->game);
    game_result_t v = pkg_verdict(&r->pkg, p);
    if (v.reason != RESULT_NONE)
        return fail(COMPAT_ERR_GAME_OVER, r->err, r->errlen, "%s: the game is already over under the package's rules (%s)",
                    where, pkg_describe(v));
    move_t m;
    compat_error_t e = compat_move_parse(p, text, &m, why, sizeof why);
    if (e != COMPAT_OK)
        return fail(e, r->err, r->errlen, "%s: %s", where, why);
    bc_error_t be = game_play(&r->game, m, why, sizeof why);
    if (be == BC_ERR_NO_MEMORY)
        return fail(COMPAT_ERR_NO_MEMORY, r->err, r->errlen, "out of memory");
    if (be == MOVE_ERR_REPETITION)
        return fail(COMPAT_ERR_ILLEGAL, r->err, r->errlen,
                    "%s: %s; the package has no such rule: read the game under the draw rule", where, why);
    if (be != BC_OK)
        return fail(be == MOVE_ERR_GAME_OVER ? COMPAT_ERR_GAME_OVER : COMPAT_ERR_ILLEGAL, r->err, r->errlen, "%s: %s%s",
                    where, why,
                    r->game.rule == REP_FORBID && strstr(why, "repeat")
                        ? " (Repetition forbid; the package has no such rule: read the game under the draw rule)"
                        : "");
    if (!pkg_after_move(&r->pkg, game_position(&r->game)))
        return fail(COMPAT_ERR_NO_MEMORY, r->err, r->errlen, "out of memory");
    return COMPAT_OK;
}

/* Cuts a final '#' off a word; true when there was one. */
static bool cut_hash(word_t *w)
{
    bool hash = w->n > 1 && w->s[w->n - 1] == '#';
    if (hash)
        w->n--;
    return hash;
}

#define SHOW(w) (int)((w).n > 20 ? 20 : (w).n), (w).s

/* A move number of d digits starting w (the goat move glued to it or the next word), and
 * that goat move. */
static compat_error_t read_numbered(pgn_reader_t *r, word_t w, size_t d, const char **s, bool *hash)
{
    size_t expect = r->game.count / 2 + 1, num = 0;
    if (r->game.count % 2)
        return fail(COMPAT_ERR_SYNTAX, r->err, r->errlen, "ply %zu: the tigers' move is missing before '%.*s'",
                    r->game.count + 1, SHOW(w));
    for (size_t i = 0; i < d && num < 1000000000; i++)
        num = num * 10 + (size_t)(w.s[i] - '0');
    if (num != expect)
        return fail(COMPAT_ERR_SYNTAX, r->err, r->errlen, "ply %zu: move number %.*s where %zu was expected",
                    r->game.count + 1, (int)(d > 12 ? 12 : d), w.s, expect);
    word_t move = {w.s + d + 1, w.n - d - 1};
    if (move.n == 0) {
        if (*hash || !next_word(s, &move))
            return fail(COMPAT_ERR_SYNTAX, r->err, r->errlen, "ply %zu: move number %zu without a move",
                        r->game.count + 1, expect);
        *hash = cut_hash(&move);
    }
    if (move.s[0] != 'G')
        return fail(COMPAT_ERR_SYNTAX, r->err, r->errlen, "ply %zu: after %zu. a goat move (G...) must follow, not '%.*s'",
                    r->game.count + 1, expect, SHOW(move));
    return read_move(r, move);
}

/* A result written after '#' must be the package's verdict on the final position. */
static compat_error_t check_result(pgn_reader_t *r, word_t result)
{
    game_result_t v = pkg_verdict(&r->pkg, game_position(&r->game));
    if (v.reason == RESULT_NONE)
        return fail(COMPAT_ERR_SYNTAX, r->err, r->errlen, "the result %.*s is written but the game is not over",
                    SHOW(result));
    if (!word_is(result, result_text(v)))
        return fail(COMPAT_ERR_SYNTAX, r->err, r->errlen, "the result %.*s is written but the game ended %s (%s)",
                    SHOW(result), result_text(v), pkg_describe(v));
    return COMPAT_OK;
}

/* The words of a PGN: "N." (also glued to its goat move, "1.G33"), the moves, and at the
 * end an optional "#" (glued to the last move or alone) and the result. */
static compat_error_t read_pgn(pgn_reader_t *r, const char *text)
{
    word_t w, result = {NULL, 0};
    const char *s = text;
    bool tiger_may_follow = false, ended = false;
    while (next_word(&s, &w)) {
        compat_error_t e = COMPAT_OK;
        if (ended) {
            if (result.s)
                return fail(COMPAT_ERR_SYNTAX, r->err, r->errlen, "text after the result: '%.*s'", SHOW(w));
            if (!word_is(w, "1-0") && !word_is(w, "0-1") && !word_is(w, "1/2-1/2"))
                return fail(COMPAT_ERR_SYNTAX, r->err, r->errlen,
                            "'#' must be followed by 1-0, 0-1 or 1/2-1/2, not '%.*s'", SHOW(w));
            result = w;
            continue;
        }
        if (word_is(w, "#")) {
            ended = true;
            continue;
        }
        bool hash = cut_hash(&w);
        size_t d = 0;
        while (d < w.n && w.s[d] >= '0' && w.s[d] <= '9')
            d++;
        if (d > 0 && d < w.n && w.s[d] == '.') {
            e = read_numbered(r, w, d, &s, &hash);
            tiger_may_follow = true;
        } else if (tiger_may_follow && w.s[0] == 'B') {
            e = read_move(r, w);
            tiger_may_follow = false;
        } else {
            e = fail(COMPAT_ERR_SYNTAX, r->err, r->errlen, "ply %zu: expected %s, not '%.*s'", r->game.count + 1,
                     tiger_may_follow ? "the tigers' move (B...) or the next move number" : "a move number like 1.",
                     SHOW(w));
        }
        if (e != COMPAT_OK)
            return e;
        ended = hash;
    }
    if (ended && !result.s)
        return fail(COMPAT_ERR_SYNTAX, r->err, r->errlen, "'#' must be followed by 1-0, 0-1 or 1/2-1/2");
    return result.s ? check_result(r, result) : COMPAT_OK;
}

compat_error_t compat_pgn_parse(const char *text, rep_rule_t rule, game_t *out, char *err, size_t errlen)
{
    pgn_reader_t r = {.err = err, .errlen = errlen};
    position_t start;
    position_set_start(&start);
    if (!game_init(&r.game, &start, NULL, rule))
        return fail(COMPAT_ERR_NO_MEMORY, err, errlen, "out of memory");
    if (!pkg_init(&r.pkg, &start)) {
        free(r.pkg.slots);
        game_free(&r.game);
        return fail(COMPAT_ERR_NO_MEMORY, err, errlen, "out of memory");
    }
    compat_error_t e = read_pgn(&r, text);
    free(r.pkg.slots);
    if (e != COMPAT_OK) {
        game_free(&r.game);
        return e;
    }
    *out = r.game;
    return COMPAT_OK;
}
