/* Writing game records and checking them by replay. */
#include "record.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "notation.h"

enum { LINE_WIDTH = 80 };

const char *result_name(int winner) { return winner == GOATS ? "goats" : winner == TIGERS ? "tigers" : "draw"; }

/* "A1C3(B2)" for a capture, else the protocol form. */
static void move_record_text(move_t m, char *buf)
{
    move_format(m, buf);
    if (move_kind(m) == MOVE_JUMP) {
        char over[3];
        square_name(move_over(m), over);
        size_t n = strlen(buf);
        snprintf(buf + n, MOVE_TEXT_LEN - n, "(%s)", over);
    }
}

void record_timecontrol(const char *goats, const char *tigers, char *buf, size_t len)
{
    if (strcmp(goats, tigers) == 0)
        snprintf(buf, len, "%s", goats);
    else
        snprintf(buf, len, "goats %s, tigers %s", goats, tigers);
}

char *record_format(const record_info_t *r)
{
    sbuf_t b = {0};
    sb_addf(&b, "[Event \"%s\"]\n", r->event);
    sb_addf(&b, "[Game \"%lld\"]\n", (long long)r->game_no);
    sb_addf(&b, "[Round \"%lld\"]\n", (long long)r->round_no);
    sb_addf(&b, "[Goats \"%s\"]\n", r->names[GOATS]);
    sb_addf(&b, "[Tigers \"%s\"]\n", r->names[TIGERS]);
    sb_addf(&b, "[Date \"%s\"]\n", r->date);
    sb_addf(&b, "[Opening \"%s\"]\n", r->opening_obx);
    sb_addf(&b, "[Repetition \"%s\"]\n", rule_name(r->rule));
    char tc[600];
    record_timecontrol(r->limits[GOATS], r->limits[TIGERS], tc, sizeof tc);
    sb_addf(&b, "[TimeControl \"%s\"]\n", tc);
    if (r->maxmoves > 0)
        sb_addf(&b, "[MaxMoves \"%lld\"]\n", (long long)r->maxmoves);
    sb_addf(&b, "[Result \"%s\"]\n", result_name(r->winner));
    sb_addf(&b, "[Termination \"%s\"]\n", term_name(r->term));
    sb_addf(&b, "[Reason \"%s\"]\n", r->reason);
    sb_addf(&b, "[Plies \"%zu\"]\n\n", r->game->count);

    const game_t *g = r->game;
    size_t col = 0;
    int number = 1;
    for (size_t i = 0; i < g->count; i++) {
        char tok[MOVE_TEXT_LEN + 16], mt[MOVE_TEXT_LEN];
        move_record_text(g->moves[i], mt);
        bool goats = g->history[i].side == GOATS;
        if (goats)
            snprintf(tok, sizeof tok, "%d. %s", number, mt);
        else if (i == 0)
            snprintf(tok, sizeof tok, "%d... %s", number, mt);
        else
            snprintf(tok, sizeof tok, "%s", mt);
        if (!goats)
            number++;
        size_t n = strlen(tok);
        if (col > 0 && col + 1 + n > LINE_WIDTH) {
            sb_add(&b, "\n");
            col = 0;
        }
        if (col > 0) {
            sb_add(&b, " ");
            col++;
        }
        sb_add(&b, tok);
        col += n;
    }
    if (col > 0)
        sb_add(&b, "\n");
    char obx[OBX_MAX_LEN];
    obx_meta_t meta = game_meta(g);
    obx_format(game_position(g), &meta, OBX_V2, obx, sizeof obx);
    sb_addf(&b, "[Final \"%s\"]\n\n", obx);
    return sb_take(&b);
}

/* PGN's standard Termination values (cutechess writes the same). */
static const char *pgn_termination(term_t t)
{
    switch (t) {
    case TERM_FIVE_CAPTURED:
    case TERM_TIGERS_TRAPPED:
    case TERM_GOATS_STUCK:
    case TERM_REPETITION:
        return "normal";
    case TERM_MOVE_LIMIT:
    case TERM_DATABASE:
    case TERM_SCORE:
        return "adjudication";
    case TERM_TIME_FORFEIT:
        return "time forfeit";
    case TERM_ILLEGAL_MOVE:
    case TERM_PROTOCOL:
        return "rules infraction";
    case TERM_STALL:
        return "stalled connection";
    default:
        return "abandoned";
    }
}

static void wrap_token(sbuf_t *b, size_t *col, const char *tok)
{
    size_t n = strlen(tok);
    if (*col > 0 && *col + 1 + n > LINE_WIDTH) {
        sb_add(b, "\n");
        *col = 0;
    }
    if (*col > 0) {
        sb_add(b, " ");
        (*col)++;
    }
    sb_add(b, tok);
    *col += n;
}

char *record_format_pgn(const record_info_t *r)
{
    const char *result = r->winner == GOATS ? "1-0" : r->winner == TIGERS ? "0-1" : "1/2-1/2";
    sbuf_t b = {0};
    /* The seven tag roster first, in its order; names and reasons never hold quotes or
     * backslashes (the command line and the referee keep them out). */
    sb_addf(&b, "[Event \"%s\"]\n[Site \"?\"]\n[Date \"%s\"]\n[Round \"%lld\"]\n", r->event, r->date,
            (long long)r->round_no);
    sb_addf(&b, "[White \"%s\"]\n[Black \"%s\"]\n[Result \"%s\"]\n", r->names[GOATS], r->names[TIGERS], result);
    sb_addf(&b, "[Game \"%lld\"]\n[Variant \"Bagh-Chal\"]\n[OBX \"%s\"]\n", (long long)r->game_no, r->opening_obx);
    sb_addf(&b, "[Repetition \"%s\"]\n[PlyCount \"%zu\"]\n[Termination \"%s\"]\n\n", rule_name(r->rule),
            r->game->count, pgn_termination(r->term));
    const game_t *g = r->game;
    size_t col = 0;
    int number = 1;
    for (size_t i = 0; i < g->count; i++) {
        char tok[MOVE_TEXT_LEN + 16], mt[MOVE_TEXT_LEN];
        /* Protocol notation without the jumped point: "(" opens a variation in PGN. */
        move_format(g->moves[i], mt);
        bool goats = g->history[i].side == GOATS;
        if (goats) {
            snprintf(tok, sizeof tok, "%d.", number);
            wrap_token(&b, &col, tok);
        } else if (i == 0) {
            snprintf(tok, sizeof tok, "%d...", number);
            wrap_token(&b, &col, tok);
        }
        if (!goats)
            number++;
        wrap_token(&b, &col, mt);
    }
    /* The reason as a comment; braces would end it early. */
    char reason[600];
    snprintf(reason, sizeof reason, "{%s}", r->reason);
    for (char *p = reason + 1; p[1]; p++)
        if (*p == '{' || *p == '}')
            *p = '?';
    sbuf_t words = {0};
    sb_add(&words, reason);
    if (!words.failed) {
        char *save = NULL;
        for (char *w = strtok_r(words.s, " ", &save); w; w = strtok_r(NULL, " ", &save))
            wrap_token(&b, &col, w);
    }
    sb_free(&words);
    wrap_token(&b, &col, result);
    sb_add(&b, "\n\n");
    return sb_take(&b);
}

/* ---- checking ---- */

enum { TAG_NB = 16 };

typedef struct {
    char *name[TAG_NB], *value[TAG_NB];
    int n;
    sbuf_t moves;
    size_t *line_off; /* where each movetext line starts in moves */
    long *line_no;    /* and its line in the file */
    int lines, lines_cap;
    bool lines_failed;
    char *final;
    long line; /* where the game starts */
} parsed_t;

static void parsed_clear(parsed_t *p)
{
    for (int i = 0; i < p->n; i++) {
        free(p->name[i]);
        free(p->value[i]);
    }
    sb_free(&p->moves);
    free(p->line_off);
    free(p->line_no);
    free(p->final);
    memset(p, 0, sizeof *p);
}

/* Appends a movetext line, remembering its line number. */
static void add_moves_line(parsed_t *p, const char *text, long lineno)
{
    if (p->lines == p->lines_cap) {
        int cap = p->lines_cap ? p->lines_cap * 2 : 16;
        size_t *o = realloc(p->line_off, (size_t)cap * sizeof *o);
        if (o)
            p->line_off = o;
        long *l = o ? realloc(p->line_no, (size_t)cap * sizeof *l) : NULL;
        if (l)
            p->line_no = l;
        if (!o || !l) {
            p->lines_failed = true;
            return;
        }
        p->lines_cap = cap;
    }
    p->line_off[p->lines] = p->moves.len;
    p->line_no[p->lines++] = lineno;
    sb_add(&p->moves, text);
    sb_add(&p->moves, " ");
}

/* The file line of the movetext at offset off. */
static long moves_line(const parsed_t *p, size_t off)
{
    long line = p->line;
    for (int i = 0; i < p->lines && p->line_off[i] <= off; i++)
        line = p->line_no[i];
    return line;
}

static const char *tag(const parsed_t *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->name[i], name) == 0)
            return p->value[i];
    return NULL;
}

/* `[Name "value"]` into name and value; false if the line is not a tag. */
static bool split_tag(const char *line, char **name, char **value)
{
    if (line[0] != '[')
        return false;
    const char *sp = strchr(line, ' ');
    const char *q1 = sp ? strchr(sp, '"') : NULL;
    const char *q2 = q1 ? strrchr(q1 + 1, '"') : NULL;
    if (!sp || !q1 || !q2 || q2[1] != ']' || q2[2] != '\0' || q1 != sp + 1)
        return false;
    *name = strndup(line + 1, (size_t)(sp - line - 1));
    *value = strndup(q1 + 1, (size_t)(q2 - q1 - 1));
    if (!*name || !*value) {
        free(*name);
        free(*value);
        return false;
    }
    return true;
}

/* The limits an engine played with in the first game that named it (files without settings). */
typedef struct {
    char *name, *limits, *game;
} seen_t;

typedef struct {
    FILE *err;
    const char *path;
    int problems;
    settings_t settings; /* the head of the file; none in files written before it was */
    seen_t *seen;
    size_t seen_nb;
    char *maxmoves, *maxmoves_game; /* without settings: the first game's MaxMoves (absent: "0") */
} checker_t;

static void vproblem(checker_t *c, const parsed_t *p, long line, const char *fmt, va_list ap)
{
    const char *no = tag(p, "Game");
    fprintf(c->err, "%s:%ld: game %s: ", c->path, line, no ? no : "?");
    vfprintf(c->err, fmt, ap);
    fputc('\n', c->err);
    c->problems++;
}

static void problem(checker_t *c, const parsed_t *p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void problem(checker_t *c, const parsed_t *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vproblem(c, p, p->line, fmt, ap);
    va_end(ap);
}

/* A problem at a given line of the file (a move). */
static void problem_at(checker_t *c, const parsed_t *p, long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void problem_at(checker_t *c, const parsed_t *p, long line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vproblem(c, p, line, fmt, ap);
    va_end(ap);
}

/* Words the Reason of each adjudication and fault holds, so that a changed Termination shows. */
static bool reason_fits(term_t t, const char *reason)
{
    switch (t) {
    case TERM_MOVE_LIMIT:
        return strstr(reason, "plies played without a result") != NULL;
    case TERM_DATABASE:
        return strstr(reason, "(database)") != NULL;
    case TERM_SCORE:
        return strstr(reason, "by score") != NULL;
    case TERM_TIME_FORFEIT:
        return strstr(reason, " lost on time") != NULL;
    case TERM_ILLEGAL_MOVE:
        return strstr(reason, " sent an illegal move") != NULL;
    case TERM_CRASH:
        return strstr(reason, " killed by signal ") || strstr(reason, " exited with status ") ||
               strstr(reason, " could not start");
    case TERM_DISCONNECT:
        return strstr(reason, " closed its output") || (strstr(reason, " exited ") && !strstr(reason, "exited with"));
    case TERM_STALL:
        return strstr(reason, " sent no ") || strstr(reason, " did not take its input") ||
               strstr(reason, " stall timeout");
    case TERM_PROTOCOL:
        return strstr(reason, " second bestmove") != NULL;
    default:
        return true;
    }
}

/* The side whose engine is at fault, named as "(goats)" or "(tigers)" in the Reason; -1 when
 * it names neither or both. */
int record_fault_side(const char *reason)
{
    bool g = strstr(reason, " (goats)") != NULL, t = strstr(reason, " (tigers)") != NULL;
    return g == t ? -1 : g ? GOATS : TIGERS;
}

static bool is_move_number(const char *t)
{
    size_t n = 0;
    while (isdigit((unsigned char)t[n]))
        n++;
    return n > 0 && (strcmp(t + n, ".") == 0 || strcmp(t + n, "...") == 0);
}

static const char *const REQUIRED[] = {"Event", "Game", "Round", "Goats", "Tigers", "Date", "Opening",
                                       "Repetition", "TimeControl", "Result", "Termination", "Reason",
                                       "Plies"};

static void check_game(checker_t *c, parsed_t *p)
{
    int before = c->problems;
    for (size_t i = 0; i < sizeof REQUIRED / sizeof REQUIRED[0]; i++)
        if (!tag(p, REQUIRED[i]))
            problem(c, p, "missing tag %s", REQUIRED[i]);
    if (!p->final)
        problem(c, p, "missing the final OBX line");
    if (c->problems != before)
        return;
    rep_rule_t rule;
    if (strcmp(tag(p, "Repetition"), "forbid") == 0)
        rule = REP_FORBID;
    else if (strcmp(tag(p, "Repetition"), "draw") == 0)
        rule = REP_DRAW;
    else {
        problem(c, p, "Repetition must be forbid or draw");
        return;
    }
    position_t start;
    obx_meta_t meta;
    char msg[256];
    if (obx_parse(tag(p, "Opening"), &start, &meta, msg, sizeof msg) != BC_OK) {
        problem(c, p, "invalid Opening: %s", msg);
        return;
    }
    game_t g;
    if (!game_init(&g, &start, &meta, rule)) {
        problem(c, p, "out of memory");
        return;
    }
    char *save = NULL;
    int ply = 0;
    bool moves_ok = true;
    if (p->lines_failed) {
        problem(c, p, "out of memory");
        game_free(&g);
        return;
    }
    for (char *t = p->moves.s ? strtok_r(p->moves.s, " \t", &save) : NULL; t && moves_ok;
         t = strtok_r(NULL, " \t", &save)) {
        if (is_move_number(t))
            continue;
        ply++;
        move_t m;
        long at = moves_line(p, (size_t)(t - p->moves.s));
        if (move_parse_text(t, &m, msg, sizeof msg) != BC_OK) {
            problem_at(c, p, at, "ply %d '%s': %s", ply, t, msg);
            moves_ok = false;
        } else if (move_kind(m) == MOVE_JUMP && !strchr(t, '(')) {
            problem_at(c, p, at, "ply %d '%s': a capture must name the jumped point", ply, t);
            moves_ok = false;
        } else if (game_play(&g, m, msg, sizeof msg) != BC_OK) {
            problem_at(c, p, at, "ply %d '%s': %s", ply, t, msg);
            moves_ok = false;
        }
    }
    if (!moves_ok) {
        game_free(&g);
        return;
    }
    char plies[32];
    snprintf(plies, sizeof plies, "%zu", g.count);
    if (strcmp(plies, tag(p, "Plies")) != 0)
        problem(c, p, "Plies says %s but the game has %zu", tag(p, "Plies"), g.count);
    char obx[OBX_MAX_LEN];
    obx_meta_t fm = game_meta(&g);
    obx_format(game_position(&g), &fm, OBX_V2, obx, sizeof obx);
    if (strcmp(obx, p->final) != 0)
        problem(c, p, "final OBX '%s' differs from the replayed '%s'", p->final, obx);

    const char *res = tag(p, "Result");
    int winner = strcmp(res, "goats") == 0 ? GOATS : strcmp(res, "tigers") == 0 ? TIGERS : -1;
    if (winner < 0 && strcmp(res, "draw") != 0)
        problem(c, p, "Result must be goats, tigers or draw, not '%s'", res);
    term_t term = term_parse(tag(p, "Termination"));
    game_result_t r = game_result(&g);
    term_t rules = r.reason == RESULT_FIVE_CAPTURED    ? TERM_FIVE_CAPTURED
                   : r.reason == RESULT_TIGERS_TRAPPED ? TERM_TIGERS_TRAPPED
                   : r.reason == RESULT_GOATS_STUCK    ? TERM_GOATS_STUCK
                   : r.reason != RESULT_NONE           ? TERM_REPETITION
                                                       : TERM_NONE;
    if (term == TERM_NONE)
        problem(c, p, "unknown Termination '%s'", tag(p, "Termination"));
    else if (rules != TERM_NONE) {
        if (term != rules)
            problem(c, p, "the game ends by %s, but Termination says %s", term_name(rules), term_name(term));
        else if (winner != r.winner)
            problem(c, p, "the rules give %s, but Result says %s", result_name(r.winner), res);
    } else if (term <= TERM_REPETITION) {
        problem(c, p, "Termination says %s, but the final position is not finished", term_name(term));
    } else if (term == TERM_MOVE_LIMIT) {
        const char *mm = tag(p, "MaxMoves");
        if (winner != -1)
            problem(c, p, "a move-limit adjudication must be a draw");
        if (!mm || strcmp(mm, plies) != 0)
            problem(c, p, "move limit after %zu plies, but MaxMoves is %s", g.count, mm ? mm : "absent");
    } else if (term_is_fault(term)) {
        int at_fault = record_fault_side(tag(p, "Reason"));
        if (winner == -1)
            problem(c, p, "a %s must be a loss for the engine at fault", term_name(term));
        else if (at_fault >= 0 && winner == at_fault)
            problem(c, p, "Result names %s, the side at fault (%s), as the winner", res, term_name(term));
    }
    if (term != TERM_NONE && !reason_fits(term, tag(p, "Reason")))
        problem(c, p, "the Reason does not describe a %s: '%.80s'", term_name(term), tag(p, "Reason"));
    game_free(&g);
}

/* Each engine plays with the same limits in every game of a run: those of the settings, or
 * without them those of its first game. */
static void check_limits(checker_t *c, const parsed_t *p, const char *name, const char *side, const char *limits)
{
    if (c->settings.n > 0) {
        for (int k = 1;; k++) {
            char key[64];
            snprintf(key, sizeof key, "engine %d name", k);
            const char *n = settings_get(&c->settings, key);
            if (!n) {
                problem(c, p, "%s (%s) is not an engine of the settings", name, side);
                return;
            }
            if (strcmp(n, name) != 0)
                continue;
            snprintf(key, sizeof key, "engine %d limits", k);
            const char *want = settings_get(&c->settings, key);
            if (want && strcmp(want, limits) != 0)
                problem(c, p, "%s (%s) played with limits '%s', the settings give it '%s'", name, side, limits, want);
            return;
        }
    }
    for (size_t k = 0; k < c->seen_nb; k++)
        if (strcmp(c->seen[k].name, name) == 0) {
            if (strcmp(c->seen[k].limits, limits) != 0)
                problem(c, p, "%s (%s) played with limits '%s', but with '%s' in game %s", name, side, limits,
                        c->seen[k].limits, c->seen[k].game);
            return;
        }
    seen_t *v = realloc(c->seen, (c->seen_nb + 1) * sizeof *v);
    if (!v)
        return;
    c->seen = v;
    v[c->seen_nb] = (seen_t){strdup(name), strdup(limits), strdup(tag(p, "Game"))};
    if (v[c->seen_nb].name && v[c->seen_nb].limits && v[c->seen_nb].game)
        c->seen_nb++;
    else {
        free(v[c->seen_nb].name);
        free(v[c->seen_nb].limits);
        free(v[c->seen_nb].game);
    }
}

/* The game was played under the run's settings: limits, move limit, rule, event. */
static void check_settings(checker_t *c, const parsed_t *p)
{
    const char *tc = tag(p, "TimeControl"), *names[SIDE_NB] = {tag(p, "Goats"), tag(p, "Tigers")};
    if (!tc || !names[GOATS] || !names[TIGERS] || !tag(p, "Game"))
        return; /* reported as missing */
    char limits[SIDE_NB][300];
    const char *comma = strncmp(tc, "goats ", 6) == 0 ? strstr(tc, ", tigers ") : NULL;
    if (comma) {
        snprintf(limits[GOATS], sizeof limits[GOATS], "%.*s", (int)(comma - tc - 6), tc + 6);
        snprintf(limits[TIGERS], sizeof limits[TIGERS], "%s", comma + 9);
    } else {
        snprintf(limits[GOATS], sizeof limits[GOATS], "%s", tc);
        snprintf(limits[TIGERS], sizeof limits[TIGERS], "%s", tc);
    }
    check_limits(c, p, names[GOATS], "goats", limits[GOATS]);
    check_limits(c, p, names[TIGERS], "tigers", limits[TIGERS]);
    const char *mm = tag(p, "MaxMoves") ? tag(p, "MaxMoves") : "0";
    if (c->settings.n > 0) {
        static const char *const SAME[][2] = {{"maxmoves", "MaxMoves"}, {"repetition", "Repetition"}, {"event", "Event"}};
        for (size_t k = 0; k < sizeof SAME / sizeof SAME[0]; k++) {
            const char *want = settings_get(&c->settings, SAME[k][0]);
            const char *got = k == 0 ? mm : tag(p, SAME[k][1]);
            if (want && got && strcmp(want, got) != 0)
                problem(c, p, "%s is '%s', the settings say %s '%s'", SAME[k][1], got, SAME[k][0], want);
        }
    } else if (!c->maxmoves) {
        c->maxmoves = strdup(mm);
        c->maxmoves_game = strdup(tag(p, "Game"));
    } else if (strcmp(c->maxmoves, mm) != 0) {
        problem(c, p, "MaxMoves is %s, but %s in game %s", mm, c->maxmoves, c->maxmoves_game ? c->maxmoves_game : "?");
    }
}

/* Game numbers run 1, 2, 3 ... in file order, each once (a game without a record has a
 * note line in its place). */
static void number_game(checker_t *c, const char *no, long line, int64_t *next)
{
    int64_t k;
    if (!no || !parse_int64(no, 1, INT64_MAX, &k)) {
        fprintf(c->err, "%s:%ld: game number '%s' is not a positive integer\n", c->path, line, no ? no : "");
        c->problems++;
        return;
    }
    if (k < *next) {
        fprintf(c->err, "%s:%ld: game %lld appears again (or out of order) after game %lld\n", c->path, line,
                (long long)k, (long long)*next - 1);
        c->problems++;
        return;
    }
    if (k == *next + 1) {
        fprintf(c->err, "%s:%ld: game %lld missing from the numbering before game %lld\n", c->path, line,
                (long long)*next, (long long)k);
        c->problems++;
    } else if (k > *next) {
        fprintf(c->err, "%s:%ld: games %lld to %lld missing from the numbering before game %lld\n", c->path, line,
                (long long)*next, (long long)k - 1, (long long)k);
        c->problems++;
    }
    *next = k + 1;
}

static bool scan_push(record_entry_t **list, size_t *n, size_t *cap, const record_entry_t *e)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        record_entry_t *l = realloc(*list, c * sizeof *l);
        if (!l)
            return false;
        *list = l;
        *cap = c;
    }
    (*list)[(*n)++] = *e;
    return true;
}

bool record_scan(const char *path, record_entry_t **entries, size_t *n, settings_t *settings, long *head_end,
                 char *msg, size_t msglen)
{
    *entries = NULL;
    *n = 0;
    *head_end = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return true;
        snprintf(msg, msglen, "cannot read %s: %s", path, strerror(errno));
        return false;
    }
    size_t cap = 0;
    record_entry_t cur;
    memset(&cur, 0, sizeof cur);
    bool in_game = false, ok = true, stop = false;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    long pos = 0;
    while (!stop && (len = getline(&line, &lcap, f)) >= 0) {
        long start = pos;
        pos += (long)len;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0) {
            if (*n > 0 && !in_game && (*entries)[*n - 1].end == pos - 1)
                (*entries)[*n - 1].end = pos; /* the blank line after a game belongs to it */
            continue;
        }
        if (settings_is_line(line)) {
            if (*n == 0 && !in_game && *head_end == start) {
                if (!(ok = settings_add_line(settings, line)))
                    break;
                *head_end = pos;
            }
            continue;
        }
        long long noted;
        int used = 0;
        if (!in_game && sscanf(line, "; game %lld %n", &noted, &used) == 1 && used > 0) {
            if (strncmp(line + used, "not played", 10) != 0 || noted != (long long)*n + 1) {
                stop = true; /* an aborted game is played again, and so is everything after it */
                break;
            }
            record_entry_t e;
            memset(&e, 0, sizeof e);
            e.game_no = noted;
            e.end = pos;
            /* "not played (crash): REASON": an engine failed to start or get ready. */
            const char *why = line + used + 10;
            const char *close = strncmp(why, " (", 2) == 0 ? strstr(why, "): ") : NULL;
            if (close) {
                char term[32];
                snprintf(term, sizeof term, "%.*s", (int)(close - why - 2), why + 2);
                e.term = term_parse(term);
                snprintf(e.reason, sizeof e.reason, "%s", close + 3);
            }
            if (!(ok = scan_push(entries, n, &cap, &e)))
                break;
            continue;
        }
        char *name, *value;
        if (!split_tag(line, &name, &value)) {
            if (!in_game)
                stop = true;
            continue; /* moves */
        }
        if (!in_game) {
            memset(&cur, 0, sizeof cur);
            cur.winner = -2;
            in_game = true;
        }
        if (strcmp(name, "Game") == 0)
            parse_int64(value, 1, INT64_MAX, &cur.game_no);
        else if (strcmp(name, "Goats") == 0)
            snprintf(cur.goats, sizeof cur.goats, "%s", value);
        else if (strcmp(name, "Tigers") == 0)
            snprintf(cur.tigers, sizeof cur.tigers, "%s", value);
        else if (strcmp(name, "Opening") == 0)
            snprintf(cur.opening, sizeof cur.opening, "%s", value);
        else if (strcmp(name, "Repetition") == 0)
            snprintf(cur.rule, sizeof cur.rule, "%s", value);
        else if (strcmp(name, "Result") == 0)
            cur.winner = strcmp(value, "goats") == 0 ? GOATS : strcmp(value, "tigers") == 0 ? TIGERS
                         : strcmp(value, "draw") == 0 ? -1 : -2;
        else if (strcmp(name, "Termination") == 0)
            cur.term = term_parse(value);
        else if (strcmp(name, "Reason") == 0)
            snprintf(cur.reason, sizeof cur.reason, "%s", value);
        else if (strcmp(name, "TimeControl") == 0)
            snprintf(cur.timecontrol, sizeof cur.timecontrol, "%s", value);
        else if (strcmp(name, "MaxMoves") == 0)
            parse_int64(value, 0, INT64_MAX, &cur.maxmoves);
        else if (strcmp(name, "Plies") == 0) {
            int64_t p;
            if (parse_int64(value, 0, INT32_MAX, &p))
                cur.plies = (size_t)p;
        } else if (strcmp(name, "Final") == 0) {
            in_game = false;
            cur.played = true;
            cur.end = pos;
            if (cur.game_no != (int64_t)*n + 1 || cur.winner == -2 || cur.term == TERM_NONE)
                stop = true;
            else if (!(ok = scan_push(entries, n, &cap, &cur)))
                stop = true;
        }
        free(name);
        free(value);
    }
    free(line);
    fclose(f);
    if (!ok) {
        snprintf(msg, msglen, "out of memory");
        free(*entries);
        *entries = NULL;
        *n = 0;
        settings_free(settings);
    }
    return ok;
}

/* Checks the file up to byte offset end (-1: all of it); a part without games is a problem
 * only in a whole file. */
static int check_upto(const char *path, long end, FILE *err, int64_t *games)
{
    FILE *f = fopen(path, "r");
    *games = 0;
    if (!f) {
        fprintf(err, "%s: cannot open: %s\n", path, strerror(errno));
        return -1;
    }
    checker_t c;
    memset(&c, 0, sizeof c);
    c.err = err;
    c.path = path;
    parsed_t p;
    memset(&p, 0, sizeof p);
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    bool in_game = false;
    int64_t next_no = 1, notes = 0; /* games are numbered 1, 2, ... in file order */
    ssize_t n;
    long pos = 0;
    while ((end < 0 || pos < end) && (n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        pos += (long)n;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0)
            continue;
        if (settings_is_line(line)) {
            /* The settings come first, before any game. */
            if (in_game || *games > 0 || notes > 0 || lineno != (long)c.settings.n + 1) {
                fprintf(err, "%s:%ld: a setting line after the head of the file\n", path, lineno);
                c.problems++;
            } else if (!strstr(line, ": ")) {
                fprintf(err, "%s:%ld: a setting line without ': '\n", path, lineno);
                c.problems++;
            } else if (!settings_add_line(&c.settings, line)) {
                fprintf(err, "%s: out of memory\n", path);
                c.problems++;
                break;
            }
            continue;
        }
        char *name, *value;
        if (split_tag(line, &name, &value)) {
            if (strcmp(name, "Final") == 0) {
                free(name);
                if (!in_game) {
                    fprintf(err, "%s:%ld: Final without a game\n", path, lineno);
                    c.problems++;
                    free(value);
                    continue;
                }
                p.final = value;
                check_game(&c, &p);
                check_settings(&c, &p);
                number_game(&c, tag(&p, "Game"), p.line, &next_no);
                (*games)++;
                parsed_clear(&p);
                in_game = false;
                continue;
            }
            if (!in_game) {
                in_game = true;
                p.line = lineno;
            } else if (p.moves.len > 0) {
                fprintf(err, "%s:%ld: tag after the moves of a game without its Final line\n", path, lineno);
                c.problems++;
            }
            if (p.n == TAG_NB || tag(&p, name)) {
                fprintf(err, "%s:%ld: %s tag '%s'\n", path, lineno, p.n == TAG_NB ? "too many tags, at" : "repeated",
                        name);
                c.problems++;
                free(name);
                free(value);
                continue;
            }
            p.name[p.n] = name;
            p.value[p.n++] = value;
            continue;
        }
        long long noted;
        int used = 0;
        if (!in_game && sscanf(line, "; game %lld %n", &noted, &used) == 1 && used > 0 &&
            (strncmp(line + used, "not played", 10) == 0 || strncmp(line + used, "aborted", 7) == 0 ||
             strncmp(line + used, "not started", 11) == 0)) {
            /* A game of the schedule that has no record, and why. */
            char no[32];
            snprintf(no, sizeof no, "%lld", noted);
            number_game(&c, no, lineno, &next_no);
            notes++;
            continue;
        }
        if (line[0] == '[' || !in_game) {
            fprintf(err, "%s:%ld: unexpected line '%.40s'\n", path, lineno, line);
            c.problems++;
            continue;
        }
        add_moves_line(&p, line, lineno);
    }
    if (in_game) {
        fprintf(err, "%s:%ld: the last game has no Final line\n", path, lineno);
        c.problems++;
    }
    if (end < 0 && *games == 0 && notes == 0 && !ferror(f)) {
        fprintf(err, "%s: no games\n", path);
        c.problems++;
    }
    if (ferror(f)) {
        fprintf(err, "%s: read error: %s\n", path, strerror(errno));
        c.problems++;
    }
    parsed_clear(&p);
    free(line);
    fclose(f);
    settings_free(&c.settings);
    for (size_t k = 0; k < c.seen_nb; k++) {
        free(c.seen[k].name);
        free(c.seen[k].limits);
        free(c.seen[k].game);
    }
    free(c.seen);
    free(c.maxmoves);
    free(c.maxmoves_game);
    return c.problems;
}

int record_check_file(const char *path, FILE *err, int64_t *games) { return check_upto(path, -1, err, games); }

bool record_check_head(const char *path, long end, char *msg, size_t msglen)
{
    char *text = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&text, &len);
    if (!err) {
        snprintf(msg, msglen, "out of memory");
        return false;
    }
    int64_t games;
    int problems = check_upto(path, end, err, &games);
    bool written = fclose(err) == 0 && text;
    if (!written) {
        snprintf(msg, msglen, "out of memory");
    } else if (problems != 0) {
        /* The first problem names the file, the line, the game and what is wrong. */
        size_t first = strcspn(text, "\n");
        if (problems > 1)
            snprintf(msg, msglen, "%.*s (and %d more problems)", (int)first, text, problems - 1);
        else
            snprintf(msg, msglen, "%.*s", (int)first, text);
    }
    free(text);
    return written && problems == 0;
}

/* ---- PGN from the records ---- */

/* Replays the moves of a parsed game from its Opening into g (initialised here). */
static bool replay(parsed_t *p, game_t *g, char *msg, size_t msglen)
{
    const char *rep = tag(p, "Repetition"), *opening = tag(p, "Opening");
    position_t start;
    obx_meta_t meta;
    if (!rep || !opening || (strcmp(rep, "forbid") != 0 && strcmp(rep, "draw") != 0) ||
        obx_parse(opening, &start, &meta, msg, msglen) != BC_OK) {
        snprintf(msg, msglen, "no valid Opening or Repetition");
        return false;
    }
    if (!game_init(g, &start, &meta, strcmp(rep, "draw") == 0 ? REP_DRAW : REP_FORBID)) {
        snprintf(msg, msglen, "out of memory");
        return false;
    }
    char *save = NULL;
    for (char *t = p->moves.s ? strtok_r(p->moves.s, " \t", &save) : NULL; t; t = strtok_r(NULL, " \t", &save)) {
        move_t m;
        char why[200];
        if (is_move_number(t))
            continue;
        if (move_parse_text(t, &m, why, sizeof why) != BC_OK || game_play(g, m, why, sizeof why) != BC_OK) {
            snprintf(msg, msglen, "move '%s': %s", t, why);
            game_free(g);
            return false;
        }
    }
    return true;
}

/* The PGN of one parsed game, written to out. */
static bool game_pgn(parsed_t *p, FILE *out, char *msg, size_t msglen)
{
    static const char *const NEED[] = {"Event", "Game", "Round", "Goats", "Tigers", "Date", "Result", "Termination",
                                       "Reason"};
    for (size_t k = 0; k < sizeof NEED / sizeof NEED[0]; k++)
        if (!tag(p, NEED[k])) {
            snprintf(msg, msglen, "no %s tag", NEED[k]);
            return false;
        }
    int64_t game_no, round_no;
    const char *res = tag(p, "Result");
    term_t term = term_parse(tag(p, "Termination"));
    if (!parse_int64(tag(p, "Game"), 1, INT64_MAX, &game_no) || !parse_int64(tag(p, "Round"), 1, INT64_MAX, &round_no) ||
        term == TERM_NONE || (strcmp(res, "goats") != 0 && strcmp(res, "tigers") != 0 && strcmp(res, "draw") != 0)) {
        snprintf(msg, msglen, "a malformed Game, Round, Result or Termination");
        return false;
    }
    game_t g;
    if (p->lines_failed) {
        snprintf(msg, msglen, "out of memory");
        return false;
    }
    if (!replay(p, &g, msg, msglen))
        return false;
    record_info_t ri = {
        .event = tag(p, "Event"),
        .game_no = game_no,
        .round_no = round_no,
        .names = {tag(p, "Goats"), tag(p, "Tigers")},
        .limits = {"", ""},
        .date = tag(p, "Date"),
        .opening_obx = tag(p, "Opening"),
        .rule = g.rule,
        .winner = strcmp(res, "goats") == 0 ? GOATS : strcmp(res, "tigers") == 0 ? TIGERS : -1,
        .term = term,
        .reason = tag(p, "Reason"),
        .game = &g,
    };
    char *pgn = record_format_pgn(&ri);
    game_free(&g);
    if (!pgn) {
        snprintf(msg, msglen, "out of memory");
        return false;
    }
    bool ok = !out || fputs(pgn, out) >= 0;
    free(pgn);
    if (!ok)
        snprintf(msg, msglen, "%s", strerror(errno));
    return ok;
}

bool record_write_pgn(const char *path, long end, FILE *out, char *msg, size_t msglen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT && end == 0)
            return true;
        snprintf(msg, msglen, "cannot read %s: %s", path, strerror(errno));
        return false;
    }
    parsed_t p;
    memset(&p, 0, sizeof p);
    char *line = NULL, why[300] = "";
    size_t cap = 0;
    ssize_t n;
    long pos = 0, lineno = 0;
    bool in_game = false, ok = true;
    while (ok && pos < end && (n = getline(&line, &cap, f)) >= 0) {
        pos += (long)n;
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0 || line[0] == ';')
            continue;
        char *name, *value;
        if (!split_tag(line, &name, &value)) {
            if (in_game)
                add_moves_line(&p, line, lineno);
            continue;
        }
        if (strcmp(name, "Final") == 0) {
            free(name);
            free(value);
            if (in_game && !(ok = game_pgn(&p, out, why, sizeof why)))
                snprintf(msg, msglen, "%s:%ld: cannot write the game as PGN: %s", path, p.line, why);
            parsed_clear(&p);
            in_game = false;
            continue;
        }
        if (!in_game) {
            in_game = true;
            p.line = lineno;
        }
        if (p.n == TAG_NB) {
            free(name);
            free(value);
            continue;
        }
        p.name[p.n] = name;
        p.value[p.n++] = value;
    }
    parsed_clear(&p);
    free(line);
    fclose(f);
    return ok;
}
