/* The reference rules: slow on purpose, every question answered from coordinates. */
#include "reference.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ref_col(int p) { return p % 5; }
int ref_row(int p) { return p / 5; }

int ref_point(int col, int row)
{
    if (col < 0 || col > 4 || row < 0 || row > 4)
        return -1;
    return row * 5 + col;
}

/* RULES.md: diagonal lines pass only through the points whose column + row is even. */
bool ref_has_diagonals(int p) { return (ref_col(p) + ref_row(p)) % 2 == 0; }

bool ref_is_step(int a, int b)
{
    if (a < 0 || b < 0 || a >= REF_POINTS || b >= REF_POINTS)
        return false;
    int dc = abs(ref_col(b) - ref_col(a)), dr = abs(ref_row(b) - ref_row(a));
    if (dc > 1 || dr > 1 || dc + dr == 0)
        return false;
    if (dc == 1 && dr == 1)
        return ref_has_diagonals(a) && ref_has_diagonals(b);
    return true;
}

int ref_jump_over(int from, int to)
{
    if (from < 0 || to < 0 || from >= REF_POINTS || to >= REF_POINTS)
        return -1;
    int dc = ref_col(to) - ref_col(from), dr = ref_row(to) - ref_row(from);
    if ((dc != 0 && abs(dc) != 2) || (dr != 0 && abs(dr) != 2) || (dc == 0 && dr == 0))
        return -1;
    int mid = ref_point(ref_col(from) + dc / 2, ref_row(from) + dr / 2);
    /* Both legs on lines of the board, and the same direction by construction. */
    if (!ref_is_step(from, mid) || !ref_is_step(mid, to))
        return -1;
    return mid;
}

int ref_degree(int p)
{
    int n = 0;
    for (int q = 0; q < REF_POINTS; q++)
        n += ref_is_step(p, q);
    return n;
}

void ref_start(ref_pos_t *r)
{
    memset(r->board, 'X', sizeof r->board);
    r->board[ref_point(0, 0)] = 'T';
    r->board[ref_point(4, 0)] = 'T';
    r->board[ref_point(0, 4)] = 'T';
    r->board[ref_point(4, 4)] = 'T';
    r->side = 'g';
    r->in_hand = REF_GOATS;
    r->captured = 0;
}

static int count_char(const ref_pos_t *r, char c)
{
    int n = 0;
    for (int p = 0; p < REF_POINTS; p++)
        n += r->board[p] == c;
    return n;
}

bool ref_is_valid(const ref_pos_t *r)
{
    for (int p = 0; p < REF_POINTS; p++)
        if (r->board[p] != 'T' && r->board[p] != 'G' && r->board[p] != 'X')
            return false;
    if (count_char(r, 'T') != 4 || (r->side != 'g' && r->side != 't'))
        return false;
    if (r->in_hand < 0 || r->in_hand > REF_GOATS || r->captured < 0 || r->captured > 5)
        return false;
    if (count_char(r, 'G') + r->in_hand + r->captured != REF_GOATS)
        return false;
    return !(r->side == 't' && r->in_hand == REF_GOATS);
}

static bool read_count(const char *s, int *out)
{
    if (!*s)
        return false;
    int v = 0;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s) || v > 1000)
            return false;
        v = v * 10 + (*s - '0');
    }
    *out = v;
    return true;
}

bool ref_parse(const char *obx, ref_pos_t *r)
{
    char copy[256], *fields[4], *save = NULL;
    if (strlen(obx) >= sizeof copy)
        return false;
    strcpy(copy, obx);
    int nf = 0;
    for (char *tok = strtok_r(copy, " \t\r\n", &save); tok && nf < 4; tok = strtok_r(NULL, " \t\r\n", &save))
        fields[nf++] = tok;
    if (nf < 4)
        return false;

    ref_pos_t t;
    int p = 0, row_len = 0, rows = 1;
    for (const char *c = fields[0]; *c; c++) {
        char u = (char)toupper((unsigned char)*c);
        int run = u >= '1' && u <= '5' ? u - '0' : 1;
        if (u == '/') {
            if (row_len != 5 || ++rows > 5)
                return false;
            row_len = 0;
        } else if (u == 'T' || u == 'G' || u == 'X' || (u >= '1' && u <= '5')) {
            /* At most 5 rows of at most 5 points keeps p inside the board. */
            if (row_len + run > 5)
                return false;
            for (int k = 0; k < run; k++)
                t.board[p++] = u == 'T' || u == 'G' ? u : 'X';
            row_len += run;
        } else {
            return false;
        }
    }
    if (rows != 5 || row_len != 5 || p != REF_POINTS)
        return false;

    char turn = (char)tolower((unsigned char)fields[1][0]);
    if (fields[1][1] || (turn != 'g' && turn != 't'))
        return false;
    t.side = turn;
    char h = fields[2][0];
    if ((h != '@' && h != 'g' && h != 'G') || !read_count(fields[2] + 1, &t.in_hand))
        return false;
    if ((fields[3][0] != 'c' && fields[3][0] != 'C') || !read_count(fields[3] + 1, &t.captured))
        return false;
    if (!ref_is_valid(&t))
        return false;
    *r = t;
    return true;
}

void ref_format(const ref_pos_t *r, char *buf, size_t len)
{
    char board[32];
    int b = 0;
    for (int p = 0; p < REF_POINTS; p++) {
        if (p && p % 5 == 0)
            board[b++] = '/';
        board[b++] = r->board[p];
    }
    board[b] = '\0';
    snprintf(buf, len, "%s %c @%d c%d", board, r->side, r->in_hand, r->captured);
}

void ref_from_position(const position_t *p, ref_pos_t *r)
{
    for (int i = 0; i < REF_POINTS; i++) {
        bool t = (p->tigers >> i) & 1, g = (p->goats >> i) & 1;
        r->board[i] = t && g ? '?' : t ? 'T' : g ? 'G' : 'X';
    }
    r->side = p->side == GOATS ? 'g' : p->side == TIGERS ? 't' : '?';
    r->in_hand = p->in_hand;
    r->captured = p->captured;
}

bool ref_same_as_position(const ref_pos_t *r, const position_t *p)
{
    ref_pos_t c;
    if ((p->tigers | p->goats) >> REF_POINTS)
        return false;
    ref_from_position(p, &c);
    return memcmp(c.board, r->board, REF_POINTS) == 0 && c.side == r->side &&
           c.in_hand == r->in_hand && c.captured == r->captured;
}

move_t ref_move_encode(ref_move_t m)
{
    static const move_kind_t kinds[] = {[REF_PLACE] = MOVE_PLACE, [REF_STEP] = MOVE_STEP, [REF_JUMP] = MOVE_JUMP};
    return move_make(kinds[m.kind], m.from, m.to);
}

static ref_move_t mv(ref_kind_t kind, int from, int to, int over)
{
    return (ref_move_t){kind, from, to, over};
}

int ref_gen_tiger(const ref_pos_t *r, ref_move_t *out)
{
    int n = 0;
    for (int from = 0; from < REF_POINTS; from++) {
        if (r->board[from] != 'T')
            continue;
        for (int to = 0; to < REF_POINTS; to++) {
            if (r->board[to] != 'X')
                continue;
            if (ref_is_step(from, to))
                out[n++] = mv(REF_STEP, from, to, -1);
            int over = ref_jump_over(from, to);
            if (over >= 0 && r->board[over] == 'G')
                out[n++] = mv(REF_JUMP, from, to, over);
        }
    }
    return n;
}

int ref_gen(const ref_pos_t *r, ref_move_t *out)
{
    int n = 0;
    if (r->captured >= 5)
        return 0;
    if (r->side == 't')
        return ref_gen_tiger(r, out);
    for (int from = 0; from < REF_POINTS; from++) {
        if (r->in_hand > 0) {
            if (r->board[from] == 'X')
                out[n++] = mv(REF_PLACE, from, from, -1);
            continue;
        }
        if (r->board[from] != 'G')
            continue;
        for (int to = 0; to < REF_POINTS; to++)
            if (r->board[to] == 'X' && ref_is_step(from, to))
                out[n++] = mv(REF_STEP, from, to, -1);
    }
    return n;
}

uint32_t ref_capturable(const ref_pos_t *r)
{
    ref_move_t list[REF_MAX_MOVES];
    int n = ref_gen_tiger(r, list);
    uint32_t set = 0;
    for (int i = 0; i < n; i++)
        if (list[i].kind == REF_JUMP)
            set |= 1u << list[i].over;
    return set;
}

void ref_make(const ref_pos_t *r, ref_move_t m, ref_pos_t *out)
{
    *out = *r;
    switch (m.kind) {
    case REF_PLACE:
        out->board[m.to] = 'G';
        out->in_hand--;
        break;
    case REF_STEP:
        out->board[m.to] = out->board[m.from];
        out->board[m.from] = 'X';
        break;
    case REF_JUMP:
        out->board[m.to] = 'T';
        out->board[m.from] = 'X';
        out->board[m.over] = 'X';
        out->captured++;
        break;
    }
    out->side = r->side == 'g' ? 't' : 'g';
}

uint64_t ref_perft(const ref_pos_t *r, int depth)
{
    if (depth == 0)
        return 1;
    ref_move_t list[REF_MAX_MOVES];
    int n = ref_gen(r, list);
    if (depth == 1)
        return (uint64_t)n;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        ref_pos_t next;
        ref_make(r, list[i], &next);
        total += ref_perft(&next, depth - 1);
    }
    return total;
}

uint64_t ref_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int ref_rand_below(uint64_t *state, int n) { return (int)(ref_rand(state) % (uint64_t)n); }

ref_move_t ref_pick_move(const ref_pos_t *r, const ref_move_t *list, int n, ref_play_t style, uint64_t *state)
{
    int best[REF_MAX_MOVES], k = 0, best_score = 1000;
    if (style == REF_PLAY_UNIFORM)
        return list[ref_rand_below(state, n)];
    for (int i = 0; i < n; i++) {
        int score;
        if (r->side == 't') {
            score = list[i].kind == REF_JUMP ? 0 : 1;
        } else {
            ref_pos_t next;
            ref_make(r, list[i], &next);
            score = __builtin_popcount(ref_capturable(&next));
        }
        if (score < best_score) {
            best_score = score;
            k = 0;
        }
        if (score == best_score)
            best[k++] = i;
    }
    return list[best[ref_rand_below(state, k)]];
}
