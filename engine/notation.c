/* OBX and move text. Parsers never touch the caller's data until the whole input is valid. */
#include "notation.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "message.h"
#include "movegen.h"

static const char *const ERROR_NAMES[BC_ERROR_COUNT] = {
    [BC_OK] = "ok",
    [OBX_ERR_EMPTY] = "empty",
    [OBX_ERR_FIELD_COUNT] = "field-count",
    [OBX_ERR_ROW_COUNT] = "row-count",
    [OBX_ERR_ROW_LENGTH] = "row-length",
    [OBX_ERR_BOARD_CHAR] = "board-char",
    [OBX_ERR_TIGER_COUNT] = "tiger-count",
    [OBX_ERR_TURN] = "turn",
    [OBX_ERR_IN_HAND_SYNTAX] = "in-hand-syntax",
    [OBX_ERR_IN_HAND_RANGE] = "in-hand-range",
    [OBX_ERR_CAPTURED_SYNTAX] = "captured-syntax",
    [OBX_ERR_CAPTURED_RANGE] = "captured-range",
    [OBX_ERR_GOAT_TOTAL] = "goat-total",
    [OBX_ERR_TIGERS_FIRST] = "tigers-first",
    [OBX_ERR_LAST_MOVE] = "last-move",
    [OBX_ERR_MOVE_NUMBER] = "move-number",
    [MOVE_ERR_SYNTAX] = "move-syntax",
    [MOVE_ERR_NOT_A_LINE] = "move-not-a-line",
    [MOVE_ERR_SUFFIX] = "move-suffix",
    [MOVE_ERR_ILLEGAL] = "move-illegal",
    [MOVE_ERR_REPETITION] = "move-repetition",
    [MOVE_ERR_GAME_OVER] = "game-over",
    [BC_ERR_NO_MEMORY] = "no-memory",
};

const char *bc_error_name(bc_error_t e)
{
    return (unsigned)e < BC_ERROR_COUNT ? ERROR_NAMES[e] : "unknown";
}

#define fail(e, ...) ((bc_error_t)bc_fail((e), __VA_ARGS__))

static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }
static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

typedef struct {
    const char *s;
    size_t n;
} field_t;

/* Parses a run of 1..9 decimal digits; returns -1 if the text is anything else. */
static long parse_number(const char *s, size_t n)
{
    if (n == 0 || n > 9)
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* A field shown in a message, cut to a readable length. */
#define SHOW(f) (int)((f).n > 20 ? 20 : (f).n), (f).s

static bc_error_t parse_board(field_t f, bb_t *tigers, bb_t *goats, char *msg, size_t msglen)
{
    bb_t t = 0, g = 0;
    int row = 0, col = 0;
    for (size_t i = 0; i <= f.n; i++) {
        char c = i < f.n ? f.s[i] : '/';
        if (c == '/') {
            if (i < f.n && row == 4)
                return fail(OBX_ERR_ROW_COUNT, msg, msglen,
                            "board has more than 5 rows, expected 5 rows separated by '/'");
            if (col != 5)
                return fail(OBX_ERR_ROW_LENGTH, msg, msglen,
                            "board row %d has %d points, expected 5", row + 1, col);
            if (++row > 5)
                return fail(OBX_ERR_ROW_COUNT, msg, msglen,
                            "board has more than 5 rows, expected 5 rows separated by '/'");
            col = 0;
            continue;
        }
        int run = 1;
        char l = lower(c);
        if (c >= '1' && c <= '5')
            run = c - '0';
        else if (l != 't' && l != 'g' && l != 'x')
            return fail(OBX_ERR_BOARD_CHAR, msg, msglen,
                        "invalid character '%c' on the board (allowed: T G X and 1-5)",
                        (c >= 32 && c < 127) ? c : '?');
        if (col + run > 5)
            return fail(OBX_ERR_ROW_LENGTH, msg, msglen,
                        "board row %d has more than 5 points", row + 1);
        if (l == 't')
            t |= bb_square(row * 5 + col);
        else if (l == 'g')
            g |= bb_square(row * 5 + col);
        col += run;
    }
    if (row != 5)
        return fail(OBX_ERR_ROW_COUNT, msg, msglen,
                    "board has %d rows, expected 5 rows separated by '/'", row);
    *tigers = t;
    *goats = g;
    return BC_OK;
}

static bc_error_t parse_last_move(field_t f, move_t *out, char *msg, size_t msglen)
{
    if (f.n == 1 && f.s[0] == '-') {
        *out = MOVE_NONE;
        return BC_OK;
    }
    char buf[16];
    char l = f.n ? lower(f.s[0]) : 0;
    if ((l != 'm' && l != 'n') || f.n >= sizeof buf)
        return fail(OBX_ERR_LAST_MOVE, msg, msglen,
                    "last move '%.*s' must be '-' or 'm' followed by a move", SHOW(f));
    memcpy(buf, f.s, f.n);
    buf[f.n] = '\0';
    char why[96];
    if (move_parse_text(buf, out, why, sizeof why) != BC_OK)
        return fail(OBX_ERR_LAST_MOVE, msg, msglen, "last move: %s", why);
    return BC_OK;
}

static bc_error_t parse_move_number(field_t f, int *ply, char *msg, size_t msglen)
{
    if (f.n == 1 && f.s[0] == '-') {
        *ply = -1;
        return BC_OK;
    }
    if (f.n == 1 && f.s[0] == '#') {
        *ply = 0;
        return BC_OK;
    }
    if (f.n >= 3 && f.s[0] == '#' && (lower(f.s[1]) == 'g' || lower(f.s[1]) == 't')) {
        long n = parse_number(f.s + 2, f.n - 2);
        if (n >= 1 && n <= 100000000) {
            *ply = lower(f.s[1]) == 'g' ? (int)(2 * n - 1) : (int)(2 * n);
            return BC_OK;
        }
    } else {
        long n = parse_number(f.s, f.n);
        if (n >= 0 && n <= 200000000) {
            *ply = (int)n;
            return BC_OK;
        }
    }
    return fail(OBX_ERR_MOVE_NUMBER, msg, msglen,
                "move number '%.*s' must be '#', '-', '#g<N>', '#t<N>' or a half-move count",
                SHOW(f));
}

bc_error_t obx_parse(const char *text, position_t *pos, obx_meta_t *meta, char *msg, size_t msglen)
{
    field_t fields[6];
    int nf = 0;
    const char *s = text;
    for (;;) {
        while (is_space(*s))
            s++;
        if (!*s)
            break;
        if (nf == 6)
            return fail(OBX_ERR_FIELD_COUNT, msg, msglen,
                        "too many fields: expected board turn in-hand captured [last-move [move-number]]");
        fields[nf].s = s;
        while (*s && !is_space(*s))
            s++;
        fields[nf].n = (size_t)(s - fields[nf].s);
        nf++;
    }
    if (nf == 0)
        return fail(OBX_ERR_EMPTY, msg, msglen, "empty OBX");
    if (nf < 4)
        return fail(OBX_ERR_FIELD_COUNT, msg, msglen,
                    "%d field%s: expected board turn in-hand captured [last-move [move-number]]",
                    nf, nf == 1 ? "" : "s");

    position_t p = {0};
    bc_error_t e = parse_board(fields[0], &p.tigers, &p.goats, msg, msglen);
    if (e != BC_OK)
        return e;

    field_t f = fields[1];
    if (f.n != 1 || (lower(f.s[0]) != 'g' && lower(f.s[0]) != 't'))
        return fail(OBX_ERR_TURN, msg, msglen, "turn '%.*s' must be 'g' or 't'", SHOW(f));
    p.side = lower(f.s[0]) == 'g' ? GOATS : TIGERS;

    f = fields[2];
    if (f.n < 2 || (f.s[0] != '@' && lower(f.s[0]) != 'g') || parse_number(f.s + 1, f.n - 1) < 0)
        return fail(OBX_ERR_IN_HAND_SYNTAX, msg, msglen,
                    "goats in hand '%.*s' must be @N (OBX 2.0) or gN (OBX 1.0)", SHOW(f));
    long in_hand = parse_number(f.s + 1, f.n - 1);

    f = fields[3];
    if (f.n < 2 || lower(f.s[0]) != 'c' || parse_number(f.s + 1, f.n - 1) < 0)
        return fail(OBX_ERR_CAPTURED_SYNTAX, msg, msglen, "captured '%.*s' must be cN", SHOW(f));
    long captured = parse_number(f.s + 1, f.n - 1);

    obx_meta_t m = {MOVE_NONE, -1};
    if (nf >= 5 && (e = parse_last_move(fields[4], &m.last_move, msg, msglen)) != BC_OK)
        return e;
    if (nf >= 6 && (e = parse_move_number(fields[5], &m.ply, msg, msglen)) != BC_OK)
        return e;

    int tigers = bb_count(p.tigers), goats = bb_count(p.goats);
    if (tigers != BC_TIGERS_NB)
        return fail(OBX_ERR_TIGER_COUNT, msg, msglen, "the board has %d tigers, expected exactly 4", tigers);
    if (in_hand > BC_GOATS_TOTAL)
        return fail(OBX_ERR_IN_HAND_RANGE, msg, msglen, "goats in hand %ld out of range 0..20", in_hand);
    if (captured > BC_CAPTURES_TO_WIN)
        return fail(OBX_ERR_CAPTURED_RANGE, msg, msglen, "captured goats %ld out of range 0..5", captured);
    if (goats + in_hand + captured != BC_GOATS_TOTAL)
        return fail(OBX_ERR_GOAT_TOTAL, msg, msglen,
                    "goats on board (%d) + in hand (%ld) + captured (%ld) = %ld, must be 20",
                    goats, in_hand, captured, goats + in_hand + captured);
    if (p.side == TIGERS && in_hand == BC_GOATS_TOTAL)
        return fail(OBX_ERR_TIGERS_FIRST, msg, msglen,
                    "tigers cannot be to move with all 20 goats in hand: goats move first");
    p.in_hand = (uint8_t)in_hand;
    p.captured = (uint8_t)captured;
    p.key = position_compute_key(&p);
    *pos = p;
    if (meta)
        *meta = m;
    return BC_OK;
}

size_t obx_format(const position_t *pos, const obx_meta_t *meta, int version, char *buf, size_t len)
{
    char board[40];
    size_t b = 0;
    for (int row = 0; row < 5; row++) {
        int run = 0;
        for (int col = 0; col < 5; col++) {
            int sq = row * 5 + col;
            char c = (pos->tigers & bb_square(sq)) ? 'T' : (pos->goats & bb_square(sq)) ? 'G' : 'X';
            if (c == 'X' && version == OBX_V1) {
                run++;
                continue;
            }
            if (run)
                board[b++] = (char)('0' + run);
            run = 0;
            board[b++] = c;
        }
        if (run)
            board[b++] = (char)('0' + run);
        if (row < 4)
            board[b++] = '/';
    }
    board[b] = '\0';
    char last[MOVE_TEXT_LEN], number[24];
    move_t lm = meta ? meta->last_move : MOVE_NONE;
    int ply = meta ? meta->ply : 0;
    move_format_obx(lm, last);
    if (ply < 0)
        snprintf(number, sizeof number, "-");
    else if (version == OBX_V1)
        snprintf(number, sizeof number, "%d", ply);
    else if (ply == 0)
        snprintf(number, sizeof number, "#");
    else
        snprintf(number, sizeof number, "#%c%d", ply % 2 ? 'g' : 't', (ply + 1) / 2);
    int n = snprintf(buf, len, "%s %c %c%d c%d %s %s", board, pos->side == GOATS ? 'g' : 't',
                     version == OBX_V1 ? 'g' : '@', pos->in_hand, pos->captured, last, number);
    return n < 0 ? 0 : (size_t)n;
}

static int jump_over(int from, int to)
{
    for (int k = 0; k < BC_JUMP_COUNT[from]; k++)
        if (BC_JUMPS[from][k].to == to)
            return BC_JUMPS[from][k].over;
    return -1;
}

bc_error_t move_parse_text(const char *text, move_t *out, char *msg, size_t msglen)
{
    const char *s = text;
    char l = lower(s[0]);
    if (l == 'm' || l == 'n')
        s++;
    int from = square_parse(s);
    if (from < 0)
        return fail(MOVE_ERR_SYNTAX, msg, msglen, "'%.20s' is not a move: expected a point like C3, or two like A1B2",
                    text);
    s += 2;
    if (*s == '\0') {
        *out = move_make(MOVE_PLACE, from, from);
        return BC_OK;
    }
    int to = square_parse(s);
    if (to < 0)
        return fail(MOVE_ERR_SYNTAX, msg, msglen, "'%.20s' is not a move: expected a point like C3, or two like A1B2",
                    text);
    s += 2;
    int suffix = -1;
    if (*s == '(') {
        suffix = square_parse(s + 1);
        if (suffix < 0 || s[3] != ')' || s[4] != '\0')
            return fail(MOVE_ERR_SYNTAX, msg, msglen, "'%.20s' is not a move: a capture suffix is written (B2)", text);
    } else if (*s != '\0') {
        return fail(MOVE_ERR_SYNTAX, msg, msglen, "'%.20s' is not a move: unexpected text after the points", text);
    }
    char a[3], b[3];
    square_name(from, a);
    square_name(to, b);
    if (BC_STEPS[from] & bb_square(to)) {
        if (suffix >= 0)
            return fail(MOVE_ERR_SUFFIX, msg, msglen, "%s%s is a step and jumps no goat", a, b);
        *out = move_make(MOVE_STEP, from, to);
        return BC_OK;
    }
    int over = jump_over(from, to);
    if (over < 0)
        return fail(MOVE_ERR_NOT_A_LINE, msg, msglen, "%s%s does not follow a line of the board", a, b);
    if (suffix >= 0 && suffix != over) {
        char c[3], d[3];
        square_name(suffix, c);
        square_name(over, d);
        return fail(MOVE_ERR_SUFFIX, msg, msglen, "capture suffix names %s but %s%s jumps %s", c, a, b, d);
    }
    *out = move_make(MOVE_JUMP, from, to);
    return BC_OK;
}

bc_error_t move_parse(const position_t *pos, const char *text, move_t *out, char *msg, size_t msglen)
{
    move_t m;
    bc_error_t e = move_parse_text(text, &m, msg, msglen);
    if (e != BC_OK)
        return e;
    if (pos->captured >= BC_CAPTURES_TO_WIN)
        return fail(MOVE_ERR_GAME_OVER, msg, msglen, "the game is over: five goats are captured");
    if (!move_is_pseudo_legal(pos, m)) {
        char t[MOVE_TEXT_LEN];
        move_format(m, t);
        return fail(MOVE_ERR_ILLEGAL, msg, msglen, "%s is not a legal move for the %s in this position", t,
                    pos->side == GOATS ? "goats" : "tigers");
    }
    *out = m;
    return BC_OK;
}

void move_format(move_t m, char *buf)
{
    if (move_kind(m) == MOVE_KIND_NONE) {
        strcpy(buf, "(none)");
        return;
    }
    square_name(move_from(m), buf);
    if (move_kind(m) != MOVE_PLACE)
        square_name(move_to(m), buf + 2);
}

void move_format_obx(move_t m, char *buf)
{
    if (move_kind(m) == MOVE_KIND_NONE) {
        strcpy(buf, "-");
        return;
    }
    buf[0] = 'm';
    move_format(m, buf + 1);
    if (move_kind(m) == MOVE_JUMP) {
        size_t n = strlen(buf);
        buf[n] = '(';
        square_name(move_over(m), buf + n + 1);
        buf[n + 3] = ')';
        buf[n + 4] = '\0';
    }
}
