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
    if (strcmp(r->limits[GOATS], r->limits[TIGERS]) == 0)
        sb_addf(&b, "[TimeControl \"%s\"]\n", r->limits[GOATS]);
    else
        sb_addf(&b, "[TimeControl \"goats %s, tigers %s\"]\n", r->limits[GOATS], r->limits[TIGERS]);
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
    free(p->final);
    memset(p, 0, sizeof *p);
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

typedef struct {
    FILE *err;
    const char *path;
    int problems;
} checker_t;

static void problem(checker_t *c, const parsed_t *p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void problem(checker_t *c, const parsed_t *p, const char *fmt, ...)
{
    const char *no = tag(p, "Game");
    fprintf(c->err, "%s:%ld: game %s: ", c->path, p->line, no ? no : "?");
    va_list ap;
    va_start(ap, fmt);
    vfprintf(c->err, fmt, ap);
    va_end(ap);
    fputc('\n', c->err);
    c->problems++;
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
    for (char *t = p->moves.s ? strtok_r(p->moves.s, " \t", &save) : NULL; t && moves_ok;
         t = strtok_r(NULL, " \t", &save)) {
        if (is_move_number(t))
            continue;
        ply++;
        move_t m;
        if (move_parse_text(t, &m, msg, sizeof msg) != BC_OK) {
            problem(c, p, "ply %d '%s': %s", ply, t, msg);
            moves_ok = false;
        } else if (move_kind(m) == MOVE_JUMP && !strchr(t, '(')) {
            problem(c, p, "ply %d '%s': a capture must name the jumped point", ply, t);
            moves_ok = false;
        } else if (game_play(&g, m, msg, sizeof msg) != BC_OK) {
            problem(c, p, "ply %d '%s': %s", ply, t, msg);
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
    } else if (term == TERM_DATABASE) {
        if (game_position(&g)->in_hand != 0)
            problem(c, p, "database adjudication with goats still in hand");
        if (winner == -1)
            problem(c, p, "a database adjudication names a winner");
    } else if (winner == -1) {
        problem(c, p, "a %s must be a loss for the engine at fault", term_name(term));
    }
    game_free(&g);
}

int record_check_file(const char *path, FILE *err, int64_t *games)
{
    FILE *f = fopen(path, "r");
    *games = 0;
    if (!f) {
        fprintf(err, "%s: cannot open: %s\n", path, strerror(errno));
        return -1;
    }
    checker_t c = {err, path, 0};
    parsed_t p;
    memset(&p, 0, sizeof p);
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    bool in_game = false;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0)
            continue;
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
        if (line[0] == '[' || !in_game) {
            fprintf(err, "%s:%ld: unexpected line '%.40s'\n", path, lineno, line);
            c.problems++;
            continue;
        }
        sb_add(&p.moves, line);
        sb_add(&p.moves, " ");
    }
    if (in_game) {
        fprintf(err, "%s:%ld: the last game has no Final line\n", path, lineno);
        c.problems++;
    }
    if (ferror(f)) {
        fprintf(err, "%s: read error: %s\n", path, strerror(errno));
        c.problems++;
    }
    parsed_clear(&p);
    free(line);
    fclose(f);
    return c.problems;
}
