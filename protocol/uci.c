/* Protocol commands: parsing words and printing lines; all game logic is libbaghchal's. */
#include "uci.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "baghchal.h"

struct uci {
    uci_write_fn write;
    void *ctx;
    game_t game;
    rep_rule_t rule;
    int obx_version;
};

typedef struct {
    char *buf;
    char **w;
    int n;
} words_t;

static void out(uci_t *u, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    u->write(u->ctx, line);
}

/* Splits on spaces, tabs and line ends. */
static bool words_split(const char *line, words_t *ws)
{
    size_t len = strlen(line);
    ws->buf = malloc(len + 1);
    ws->w = malloc((len / 2 + 2) * sizeof *ws->w);
    ws->n = 0;
    if (!ws->buf || !ws->w) {
        free(ws->buf);
        free(ws->w);
        return false;
    }
    memcpy(ws->buf, line, len + 1);
    char *save = NULL;
    for (char *t = strtok_r(ws->buf, " \t\r\n\v\f", &save); t; t = strtok_r(NULL, " \t\r\n\v\f", &save))
        ws->w[ws->n++] = t;
    return true;
}

static void words_free(words_t *ws)
{
    free(ws->buf);
    free(ws->w);
}

uci_t *uci_new(uci_write_fn write, void *ctx)
{
    uci_t *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->write = write;
    u->ctx = ctx;
    u->rule = REP_FORBID;
    u->obx_version = OBX_V2;
    position_t start;
    position_set_start(&start);
    if (!game_init(&u->game, &start, NULL, u->rule)) {
        free(u);
        return NULL;
    }
    return u;
}

void uci_free(uci_t *u)
{
    if (!u)
        return;
    game_free(&u->game);
    free(u);
}

static void cmd_uci(uci_t *u)
{
    out(u, "id name baghchal %s", BAGHCHAL_VERSION);
    out(u, "id author the baghchal developers");
    out(u, "option name Repetition type combo default forbid var forbid var draw");
    out(u, "option name OBXVersion type combo default 2 var 2 var 1");
    out(u, "uciok");
}

/* "setoption name <name...> value <value...>": names are matched whole and without case. */
static void cmd_setoption(uci_t *u, words_t *ws)
{
    char name[128] = "", value[128] = "";
    int i = 1;
    if (i >= ws->n || strcasecmp(ws->w[i], "name") != 0) {
        out(u, "info string error: setoption needs 'name <option>'");
        return;
    }
    for (i++; i < ws->n && strcasecmp(ws->w[i], "value") != 0; i++) {
        if (name[0])
            strncat(name, " ", sizeof name - strlen(name) - 1);
        strncat(name, ws->w[i], sizeof name - strlen(name) - 1);
    }
    bool has_value = i < ws->n;
    for (i++; i < ws->n; i++) {
        if (value[0])
            strncat(value, " ", sizeof value - strlen(value) - 1);
        strncat(value, ws->w[i], sizeof value - strlen(value) - 1);
    }
    if (!name[0]) {
        out(u, "info string error: setoption needs 'name <option>'");
        return;
    }
    if (strcasecmp(name, "Repetition") == 0) {
        if (has_value && strcasecmp(value, "forbid") == 0)
            u->rule = REP_FORBID;
        else if (has_value && strcasecmp(value, "draw") == 0)
            u->rule = REP_DRAW;
        else {
            out(u, "info string error: invalid value '%s' for option Repetition (forbid or draw)", value);
            return;
        }
        u->game.rule = u->rule;
    } else if (strcasecmp(name, "OBXVersion") == 0) {
        if (has_value && strcmp(value, "2") == 0)
            u->obx_version = OBX_V2;
        else if (has_value && strcmp(value, "1") == 0)
            u->obx_version = OBX_V1;
        else
            out(u, "info string error: invalid value '%s' for option OBXVersion (2 or 1)", value);
    } else {
        out(u, "info string error: unknown option '%s'", name);
    }
}

/* Builds the whole new game aside and swaps it in only when every part of the line is valid. */
static void cmd_position(uci_t *u, words_t *ws)
{
    position_t start;
    obx_meta_t meta = {MOVE_NONE, 0};
    int i = 1;
    char msg[256];
    if (i < ws->n && strcasecmp(ws->w[i], "startpos") == 0) {
        position_set_start(&start);
        i++;
    } else if (i < ws->n && strcasecmp(ws->w[i], "obx") == 0) {
        int first = ++i;
        size_t len = 1;
        for (; i < ws->n && strcasecmp(ws->w[i], "moves") != 0; i++)
            len += strlen(ws->w[i]) + 1;
        char *text = malloc(len);
        if (!text) {
            out(u, "info string error: out of memory");
            return;
        }
        text[0] = '\0';
        for (int k = first; k < i; k++) {
            strcat(text, ws->w[k]);
            strcat(text, " ");
        }
        bc_error_t e = obx_parse(text, &start, &meta, msg, sizeof msg);
        free(text);
        if (e != BC_OK) {
            out(u, "info string error: invalid OBX: %s", msg);
            return;
        }
    } else {
        out(u, "info string error: position needs 'startpos' or 'obx <fields>'");
        return;
    }
    if (i < ws->n && strcasecmp(ws->w[i], "moves") != 0) {
        out(u, "info string error: unexpected '%.40s' in position (expected 'moves')", ws->w[i]);
        return;
    }
    game_t g;
    if (!game_init(&g, &start, &meta, u->rule)) {
        out(u, "info string error: out of memory");
        return;
    }
    for (i++; i < ws->n; i++) {
        if (game_play_text(&g, ws->w[i], msg, sizeof msg) != BC_OK) {
            out(u, "info string error: move %d (%.20s): %s", i - 1 - (ws->n - ws->n), ws->w[i], msg);
            game_free(&g);
            return;
        }
    }
    game_swap(&u->game, &g);
    game_free(&g);
}

static void cmd_display(uci_t *u)
{
    const position_t *p = game_position(&u->game);
    char line[64], obx[OBX_MAX_LEN];
    out(u, "  A   B   C   D   E");
    for (int r = 0; r < 5; r++) {
        int n = snprintf(line, sizeof line, "%d ", r + 1);
        for (int c = 0; c < 5; c++) {
            bb_t b = bb_square(r * 5 + c);
            line[n++] = (p->tigers & b) ? 'T' : (p->goats & b) ? 'G' : '.';
            if (c < 4)
                n += snprintf(line + n, sizeof line - (size_t)n, "---");
        }
        line[n] = '\0';
        out(u, "%s", line);
        if (r < 4) {
            n = snprintf(line, sizeof line, "  ");
            for (int c = 0; c < 5; c++) {
                line[n++] = '|';
                if (c < 4)
                    n += snprintf(line + n, sizeof line - (size_t)n, " %c ", (r + c) % 2 == 0 ? '\\' : '/');
            }
            line[n] = '\0';
            out(u, "%s", line);
        }
    }
    obx_meta_t meta = game_meta(&u->game);
    obx_format(p, &meta, u->obx_version, obx, sizeof obx);
    out(u, "");
    out(u, "OBX: %s", obx);
    out(u, "Side to move: %s", p->side == GOATS ? "goats" : "tigers");
    out(u, "Goats in hand: %d", p->in_hand);
    out(u, "Goats captured: %d", p->captured);
    move_t list[MAX_MOVES];
    int n = game_legal_moves(&u->game, list);
    char moves[MAX_MOVES * 5 + 1] = "";
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        char t[MOVE_TEXT_LEN];
        move_format(list[i], t);
        len += (size_t)snprintf(moves + len, sizeof moves - len, " %s", t);
    }
    out(u, "Legal moves (%d):%s", n, moves);
    game_result_t r = game_result(&u->game);
    if (r.reason != RESULT_NONE)
        out(u, "Result: %s", result_describe(r));
}

static bool parse_int(const char *s, long lo, long hi, long *v)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || *end || x < lo || x > hi)
        return false;
    *v = x;
    return true;
}

static void cmd_perft(uci_t *u, words_t *ws)
{
    long depth;
    if (ws->n < 3 || !parse_int(ws->w[2], 1, 64, &depth)) {
        out(u, "info string error: go perft needs a depth from 1 to 64");
        return;
    }
    position_t p = *game_position(&u->game);
    move_t list[MAX_MOVES];
    int n = gen_moves(&p, list);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        char t[MOVE_TEXT_LEN];
        position_make(&p, list[i]);
        uint64_t c = perft(&p, (int)depth - 1);
        position_unmake(&p, list[i]);
        move_format(list[i], t);
        out(u, "%s: %llu", t, (unsigned long long)c);
        total += c;
    }
    out(u, "");
    out(u, "Nodes searched: %llu", (unsigned long long)total);
}

static void cmd_go(uci_t *u, words_t *ws)
{
    if (ws->n >= 2 && strcasecmp(ws->w[1], "perft") == 0) {
        cmd_perft(u, ws);
        return;
    }
    out(u, "info string error: go supports only 'perft <depth>' in this version");
}

bool uci_handle_line(uci_t *u, const char *line)
{
    words_t ws;
    if (!words_split(line, &ws)) {
        out(u, "info string error: out of memory");
        return true;
    }
    bool keep = true;
    const char *cmd = ws.n ? ws.w[0] : "";
    if (ws.n == 0)
        ;
    else if (strcmp(cmd, "uci") == 0)
        cmd_uci(u);
    else if (strcmp(cmd, "isready") == 0)
        out(u, "readyok");
    else if (strcmp(cmd, "ucinewgame") == 0) {
        position_t start;
        position_set_start(&start);
        game_t g;
        if (game_init(&g, &start, NULL, u->rule)) {
            game_swap(&u->game, &g);
            game_free(&g);
        } else
            out(u, "info string error: out of memory");
    } else if (strcmp(cmd, "setoption") == 0)
        cmd_setoption(u, &ws);
    else if (strcmp(cmd, "position") == 0)
        cmd_position(u, &ws);
    else if (strcmp(cmd, "d") == 0)
        cmd_display(u);
    else if (strcmp(cmd, "go") == 0)
        cmd_go(u, &ws);
    else if (strcmp(cmd, "quit") == 0)
        keep = false;
    else
        out(u, "info string error: unknown command '%.64s'", cmd);
    words_free(&ws);
    return keep;
}
