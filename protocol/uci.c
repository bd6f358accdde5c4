/* Protocol commands: splitting words, checking them, calling libbaghchal and printing
 * lines. All game and search logic is the library's. */
#include "uci.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "baghchal.h"

struct uci {
    uci_write_fn write;
    void *ctx;
    pthread_mutex_t lock; /* one line at a time from the reader and the search thread */
    engine_t *engine;
    game_t game;
    rep_rule_t rule;
    int obx_version;
    size_t hash_mb;
    int threads, multipv, overhead;
    bool ponder;
    bool failed;   /* the line being handled was refused (an error line was printed) */
    bool one_shot; /* running one command from the command line: a search must end alone */
    bool read_any; /* a line has been read (a byte-order mark can only come first) */
    /* What runs now ends by itself (a go with a limit, perft, bench): end of input lets it
     * finish. ponder_limited: the go ponder's limits once ponderhit makes it a search. */
    bool ends_alone, ponder_limited;
    int skill_level, elo; /* Skill Level, UCI_Elo */
    bool limit_strength;  /* UCI_LimitStrength */
    fb_prover_t *prover;  /* tbprobe's, made at its first use under forbid */
    bool tb_default;      /* the standard folder's database is still to be loaded */
    bool eval_told;       /* the first isready has said whether the tuned weights were refused */
    /* go perft's thread: it counts a copy of the position, so the reading thread goes on. */
    pthread_t perft_thread;
    bool perft_live;            /* a perft thread exists and has not been joined */
    atomic_bool perft_stop;     /* stop, go, ucinewgame or quit */
    atomic_bool perft_running;  /* until it has printed its last line */
    position_t perft_pos;
    int perft_depth;
    /* The search's poll (uci_set_poll), called by perft as well, between its subtrees. */
    void (*poll)(void *ctx);
    void *poll_ctx;
};

typedef struct {
    char *buf;
    char **w;
    int n;
} words_t;

/* Characters that change or hide what a terminal shows: C1 controls, zero-width and
 * direction marks and overrides, word joiners, the byte-order mark. */
static bool is_invisible(uint32_t cp)
{
    return cp <= 0x9F || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF;
}

/* The length of the UTF-8 sequence that starts at c when it is well formed (shortest form,
 * no surrogate, at most U+10FFFF) and no invisible character, else 0. */
static size_t utf8_printable_len(const unsigned char *c)
{
    uint32_t cp;
    size_t n = *c < 0x80 ? 0 : bc_utf8_decode(c, 4, &cp);
    return n && !is_invisible(cp) ? n : 0;
}

/* How many bytes starting at c go out as they are (0: the byte at c is written \xHH):
 * printable ASCII and well-formed UTF-8 that is no control character. */
static size_t shown_as_is(const unsigned char *c)
{
    if (*c >= 0x20 && *c <= 0x7E)
        return 1;
    return utf8_printable_len(c);
}

/* line itself when it holds no control character and no byte outside well-formed UTF-8,
 * else a new copy with each such byte written \xHH (out of memory: line, with them
 * replaced by '?'). UTF-8 text (a path with accented letters) is printed as it is, so an
 * option value the GUI sends back is the value it was shown. */
static char *escape_unprintable(char *line)
{
    size_t extra = 0, len = 0;
    for (const unsigned char *c = (const unsigned char *)line; *c;) {
        size_t n = shown_as_is(c);
        extra += n ? 0 : 3;
        len += n ? n : 1;
        c += n ? n : 1;
    }
    if (!extra)
        return line;
    char *copy = malloc(len + extra + 1), *d = copy;
    if (!copy) {
        for (unsigned char *c = (unsigned char *)line; *c;) {
            size_t n = shown_as_is(c);
            if (!n)
                *c = '?';
            c += n ? n : 1;
        }
        return line;
    }
    for (const unsigned char *c = (const unsigned char *)line; *c;) {
        size_t n = shown_as_is(c);
        if (n) {
            memcpy(d, c, n);
            d += n;
            c += n;
        } else {
            d += sprintf(d, "\\x%02X", *c++);
        }
    }
    *d = '\0';
    return copy;
}

static void out(uci_t *u, const char *fmt, ...)
{
    char stack[1024];
    char *line = stack;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(stack, sizeof stack, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof stack && (line = malloc((size_t)n + 1)) != NULL) {
        va_start(ap, fmt);
        vsnprintf(line, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    if (!line)
        line = stack; /* out of memory: the line is cut, never lost */
    /* Text that came from the input (an unknown word, a path) may hold any byte: a control
     * byte or one outside well-formed UTF-8 goes out as \xHH, so none reaches the GUI. */
    char *shown = escape_unprintable(line);
    pthread_mutex_lock(&u->lock);
    u->write(u->ctx, shown);
    pthread_mutex_unlock(&u->lock);
    if (shown != line)
        free(shown);
    if (line != stack)
        free(line);
}

#define ERR(u, ...) ((u)->failed = true, out(u, "info string error: " __VA_ARGS__))

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

/* An integer, clamped to lo..hi: any run of digits is a number, also one beyond 64 bits. */
static bool parse_long(const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end || (errno && errno != ERANGE))
        return false;
    *v = x < lo ? lo : x > hi ? hi : x;
    return true;
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
    u->hash_mb = ENGINE_DEFAULT_HASH_MB;
    u->threads = 1;
    u->multipv = 1;
    u->overhead = ENGINE_DEFAULT_OVERHEAD_MS;
    u->skill_level = SKILL_MAX, u->elo = SKILL_MAX_ELO;
    u->tb_default = true;
    position_t start;
    position_set_start(&start);
    if (pthread_mutex_init(&u->lock, NULL) != 0) {
        free(u);
        return NULL;
    }
    u->engine = engine_new();
    if (!u->engine || !game_init(&u->game, &start, NULL, u->rule)) {
        engine_free(u->engine);
        pthread_mutex_destroy(&u->lock);
        free(u);
        return NULL;
    }
    /* A GUI's engine: the table written through at start and at ucinewgame, not by the search. */
    engine_set_hash_eager(u->engine, true);
    return u;
}

void uci_set_poll(uci_t *u, void (*poll)(void *ctx), void *ctx)
{
    u->poll = poll;
    u->poll_ctx = ctx;
    engine_set_poll(u->engine, poll, ctx);
}

void uci_wait(uci_t *u)
{
    engine_wait(u->engine);
    if (u->perft_live) {
        pthread_join(u->perft_thread, NULL);
        u->perft_live = false;
    }
}

void uci_free(uci_t *u)
{
    if (!u)
        return;
    if (u->perft_live) {
        atomic_store(&u->perft_stop, true);
        uci_wait(u);
    }
    engine_free(u->engine);
    fb_prover_free(u->prover);
    game_free(&u->game);
    pthread_mutex_destroy(&u->lock);
    free(u);
}

/* ---- options ------------------------------------------------------------------- */

typedef enum { OPT_SPIN, OPT_COMBO, OPT_BUTTON, OPT_CHECK, OPT_STRING } opt_type_t;

typedef struct {
    const char *name;
    opt_type_t type;
    const char *def;
    long long min, max;
    const char *vars; /* combo values, space separated */
} option_t;

static const option_t OPTIONS[] = {
    {"Hash", OPT_SPIN, "64", 1, ENGINE_MAX_HASH_MB, NULL},
    {"Clear Hash", OPT_BUTTON, NULL, 0, 0, NULL},
    {"Threads", OPT_SPIN, "1", 1, MAX_THREADS, NULL},
    {"MultiPV", OPT_SPIN, "1", 1, MAX_MULTIPV, NULL},
    {"Move Overhead", OPT_SPIN, "30", 0, ENGINE_MAX_OVERHEAD_MS, NULL},
    {"Ponder", OPT_CHECK, "false", 0, 0, NULL},
    {"Repetition", OPT_COMBO, "forbid", 0, 0, "forbid draw"},
    {"OBXVersion", OPT_COMBO, "2", 0, 0, "2 1"},
    {"TablebasePath", OPT_STRING, "<empty>", 0, 0, NULL},
    {"Skill Level", OPT_SPIN, "20", 0, SKILL_MAX, NULL},
    {"UCI_LimitStrength", OPT_CHECK, "false", 0, 0, NULL},
    {"UCI_Elo", OPT_SPIN, "2400", SKILL_MIN_ELO, SKILL_MAX_ELO, NULL},
};
enum { OPTION_COUNT = sizeof OPTIONS / sizeof OPTIONS[0] };

static void cmd_uci(uci_t *u)
{
    out(u, "id name baghchal %s", BAGHCHAL_VERSION);
    out(u, "id author the baghchal developers");
    for (int i = 0; i < OPTION_COUNT; i++) {
        const option_t *o = &OPTIONS[i];
        char vars[128] = "";
        switch (o->type) {
        case OPT_SPIN:
            out(u, "option name %s type spin default %s min %lld max %lld", o->name, o->def, o->min, o->max);
            break;
        case OPT_BUTTON:
            out(u, "option name %s type button", o->name);
            break;
        case OPT_CHECK:
            out(u, "option name %s type check default %s", o->name, o->def);
            break;
        case OPT_STRING: {
            char dir[TB_PATH_MAX];
            bool tb = strcmp(o->name, "TablebasePath") == 0 && tb_default_dir(dir, sizeof dir);
            out(u, "option name %s type string default %s", o->name, tb ? dir : o->def);
            break;
        }
        case OPT_COMBO: {
            char copy[64];
            snprintf(copy, sizeof copy, "%s", o->vars);
            char *save = NULL;
            for (char *v = strtok_r(copy, " ", &save); v; v = strtok_r(NULL, " ", &save)) {
                strncat(vars, " var ", sizeof vars - strlen(vars) - 1);
                strncat(vars, v, sizeof vars - strlen(vars) - 1);
            }
            out(u, "option name %s type combo default %s%s", o->name, o->def, vars);
            break;
        }
        }
    }
    out(u, "uciok");
}

static bool combo_has(const option_t *o, const char *value)
{
    char copy[64];
    snprintf(copy, sizeof copy, "%s", o->vars);
    char *save = NULL;
    for (char *v = strtok_r(copy, " ", &save); v; v = strtok_r(NULL, " ", &save))
        if (strcasecmp(v, value) == 0)
            return true;
    return false;
}

/* Applies a checked value. A spin value was clamped from `given` (the text as written) when
 * clamped is set; the command prints one line at most: the error, or else what was changed
 * from what was asked. */
static void apply_option(uci_t *u, const option_t *o, const char *value, long long num, const char *given,
                         bool clamped)
{
    const char *name = o->name;
    char note[160] = "";
    if (clamped)
        snprintf(note, sizeof note, "%s %.40s is out of range, using %lld", name, given, num);
    if (strcmp(name, "Hash") == 0) {
        if (!engine_set_hash(u->engine, (size_t)num)) {
            ERR(u, "not enough memory for Hash %lld MB; keeping %zu MB", num, u->hash_mb);
            return;
        }
        u->hash_mb = engine_hash_mb(u->engine);
        /* The table holds a power of two of entries: other sizes are rounded down. */
        if ((long long)u->hash_mb != num)
            snprintf(note, sizeof note, "Hash %.40s MB is not a power of two: using %zu MB", given, u->hash_mb);
    } else if (strcmp(name, "Clear Hash") == 0) {
        engine_clear(u->engine);
    } else if (strcmp(name, "Threads") == 0) {
        if (!engine_set_threads(u->engine, (int)num)) {
            ERR(u, "not enough memory for %lld threads; keeping %d", num, u->threads);
            return;
        }
        u->threads = (int)num;
    } else if (strcmp(name, "MultiPV") == 0) {
        u->multipv = (int)num;
        engine_set_multipv(u->engine, u->multipv);
    } else if (strcmp(name, "Move Overhead") == 0) {
        u->overhead = (int)num;
        engine_set_move_overhead(u->engine, u->overhead);
    } else if (strcmp(name, "Ponder") == 0) {
        u->ponder = strcasecmp(value, "true") == 0;
    } else if (strcmp(name, "Repetition") == 0) {
        u->rule = strcasecmp(value, "draw") == 0 ? REP_DRAW : REP_FORBID;
        u->game.rule = u->rule;
    } else if (strcmp(name, "OBXVersion") == 0) {
        u->obx_version = strcmp(value, "1") == 0 ? OBX_V1 : OBX_V2;
    } else if (strcmp(name, "Skill Level") == 0 || strcmp(name, "UCI_LimitStrength") == 0 ||
               strcmp(name, "UCI_Elo") == 0) {
        if (name[0] == 'S')
            u->skill_level = (int)num;
        else if (name[4] == 'E')
            u->elo = (int)num;
        else
            u->limit_strength = strcasecmp(value, "true") == 0;
        engine_set_skill(u->engine, u->skill_level, u->limit_strength, u->elo);
    } else if (strcmp(name, "TablebasePath") == 0) {
        /* "<empty>" (the UCI way to say nothing, in any case) or no value unloads it. A
         * value that fails changes nothing: the standard folder's database is still loaded
         * at the first isready then. */
        const char *dir = strcasecmp(value, "<empty>") == 0 ? "" : value;
        char msg[256] = "";
        if (engine_set_tablebase(u->engine, dir, msg, sizeof msg) != TB_OK) {
            ERR(u, "tablebase not loaded: %s", msg);
            return;
        }
        u->tb_default = false;
        if (*dir)
            out(u, "info string tablebase loaded from %s", dir);
        return;
    }
    if (note[0])
        out(u, "info string %s", note);
}

/* Waits for a search that is only finishing (told to stop, or at its limit) and for a
 * finished search's thread, which marks the engine idle just before it prints its bestmove:
 * whatever a command prints then comes after that bestmove. A search still running is left
 * alone. */
static void settle(uci_t *u)
{
    if (engine_stopping(u->engine) || !engine_searching(u->engine))
        engine_wait(u->engine);
    if (u->perft_live && (atomic_load(&u->perft_stop) || !atomic_load(&u->perft_running))) {
        pthread_join(u->perft_thread, NULL);
        u->perft_live = false;
    }
}

/* Tells a search, bench or perft to end; halt_wait waits until it has printed its last line. */
static void halt(uci_t *u)
{
    engine_stop(u->engine);
    if (u->perft_live)
        atomic_store(&u->perft_stop, true);
}

static void halt_wait(uci_t *u)
{
    halt(u);
    engine_wait(u->engine);
    settle(u);
}

/* Whether the engine is idle for a command that needs it so: a search that is only
 * finishing is waited for (settle), as Stockfish does, so `stop` followed at once by
 * `setoption` works; a search still running refuses the command. */
static bool engine_idle(uci_t *u)
{
    settle(u);
    return !engine_searching(u->engine) && !u->perft_live;
}

/* The database of the standard folder (tb_default_dir), loaded once, at the first command
 * that needs it (isready, go, tbprobe) unless TablebasePath was set before: says which
 * files were found, or that none were. A damaged file is reported but fails no command. */
static void load_default_tablebase(uci_t *u)
{
    /* Loading waits for the engine: never while a search or a bench runs (isready then). */
    if (!u->tb_default || engine_searching(u->engine))
        return;
    u->tb_default = false;
    char dir[TB_PATH_MAX], msg[256] = "";
    if (!tb_default_dir(dir, sizeof dir))
        return; /* turned off by the environment: nothing to say */
    if (!tb_dir_has_database(dir)) {
        out(u, "info string no tablebase in %s (baghchal-tbgen builds it there)", dir);
        return;
    }
    if (engine_set_tablebase(u->engine, dir, msg, sizeof msg) != TB_OK) {
        out(u, "info string error: tablebase not loaded: %s", msg);
        return;
    }
    bool placement = tb_has_placement(engine_tablebase(u->engine));
    out(u, "info string tablebase loaded from %s: %s%s", dir, TB_FILE_NAME,
        placement ? " and " TBP_FILE_NAME : " (no " TBP_FILE_NAME ": the placement phase is searched)");
}

/* Joins words [from, to) with single spaces into a new string ("" when none), in time
 * linear in their length whatever their number. */
static char *join_words(const words_t *ws, int from, int to)
{
    size_t len = 1;
    for (int i = from; i < to; i++)
        len += strlen(ws->w[i]) + 1;
    char *s = malloc(len), *end = s;
    if (!s)
        return NULL;
    for (int i = from; i < to; i++) {
        if (i > from)
            *end++ = ' ';
        size_t n = strlen(ws->w[i]);
        memcpy(end, ws->w[i], n);
        end += n;
    }
    *end = '\0';
    return s;
}

/* "setoption name <name...> [value <value...>]": names match whole, without case. */
static void cmd_setoption(uci_t *u, words_t *ws)
{
    int i = 1;
    if (i >= ws->n || strcasecmp(ws->w[i], "name") != 0) {
        ERR(u, "setoption needs 'name <option>'");
        return;
    }
    int name_from = ++i;
    while (i < ws->n && strcasecmp(ws->w[i], "value") != 0)
        i++;
    bool has_value = i < ws->n;
    char *name = join_words(ws, name_from, i), *value = join_words(ws, has_value ? i + 1 : i, ws->n);
    if (!name || !value) {
        ERR(u, "out of memory");
        free(name);
        free(value);
        return;
    }
    const option_t *o = NULL;
    for (int k = 0; k < OPTION_COUNT && !o; k++)
        if (strcasecmp(OPTIONS[k].name, name) == 0)
            o = &OPTIONS[k];
    long long num = 0;
    bool ok = true, clamped = false;
    if (!o) {
        ERR(u, "unknown option '%.64s'", name);
        ok = false;
    } else if (strcmp(o->name, "OBXVersion") != 0 && strcmp(o->name, "Ponder") != 0 && !engine_idle(u)) {
        ERR(u, "cannot change %s while searching", o->name);
        ok = false;
    } else if (o->type == OPT_SPIN) {
        if (!has_value || !parse_long(value, INT64_MIN, INT64_MAX, &num)) {
            ERR(u, "option %s needs an integer value from %lld to %lld", o->name, o->min, o->max);
            ok = false;
        } else if (num < o->min || num > o->max) {
            num = num < o->min ? o->min : o->max;
            clamped = true;
        }
    } else if (o->type == OPT_COMBO && (!has_value || !combo_has(o, value))) {
        ERR(u, "invalid value '%.64s' for option %s (one of: %s)", value, o->name, o->vars);
        ok = false;
    } else if (o->type == OPT_BUTTON && has_value) {
        ERR(u, "option %s is a button and takes no value", o->name);
        ok = false;
    } else if (o->type == OPT_CHECK &&
               (!has_value || (strcasecmp(value, "true") != 0 && strcasecmp(value, "false") != 0))) {
        ERR(u, "option %s needs true or false", o->name);
        ok = false;
    }
    if (ok)
        apply_option(u, o, value, num, value, clamped);
    free(name);
    free(value);
}

/* ---- position ------------------------------------------------------------------ */

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
        while (i < ws->n && strcasecmp(ws->w[i], "moves") != 0)
            i++;
        char *text = join_words(ws, first, i);
        if (!text) {
            ERR(u, "out of memory");
            return;
        }
        bc_error_t e = obx_parse(text, &start, &meta, msg, sizeof msg);
        free(text);
        if (e != BC_OK) {
            ERR(u, "invalid OBX: %s", msg);
            return;
        }
        /* Valid notation, but no game reaches it: the side to move would have won already. */
        if (start.side == TIGERS && start.captured >= BC_CAPTURES_TO_WIN) {
            ERR(u, "invalid OBX: tigers to move with five goats captured cannot occur (the fifth capture ends "
                   "the game with the goats to move)");
            return;
        }
    } else {
        ERR(u, "position needs 'startpos' or 'obx <fields>'");
        return;
    }
    if (i < ws->n && strcasecmp(ws->w[i], "moves") != 0) {
        ERR(u, "unexpected '%.40s' in position (expected 'moves')", ws->w[i]);
        return;
    }
    game_t g;
    if (!game_init(&g, &start, &meta, u->rule)) {
        ERR(u, "out of memory");
        return;
    }
    int first_move = i + 1;
    for (i = first_move; i < ws->n; i++) {
        if (game_play_text(&g, ws->w[i], msg, sizeof msg) != BC_OK) {
            ERR(u, "move %d '%.20s': %s", i - first_move + 1, ws->w[i], msg);
            game_free(&g);
            return;
        }
    }
    game_swap(&u->game, &g);
    game_free(&g);
}

/* ---- display and evaluation ------------------------------------------------------ */

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

static void cmd_eval(uci_t *u)
{
    const position_t *p = game_position(&u->game);
    const eval_params_t *w = engine_eval(u->engine);
    eval_trace_t t;
    int total = eval_trace(w, p, &t);
    out(u, "%-26s %6s %6s %6s %8s", "term", "count", "mg", "eg", "value");
    for (int i = 0; i < EV_TERM_NB; i++)
        out(u, "%-26s %6d %6d %6d %8d", EVAL_WEIGHTS[i].name, t.count[i], w->mg[i], w->eg[i], t.value[i]);
    out(u, "Phase: %d of 20 goats placed", BC_GOATS_TOTAL - p->in_hand);
    out(u, "Total (goats' view): %d", total);
    out(u, "Total (side to move): %d", p->side == GOATS ? total : -total);
    if (w->use_net) {
        out(u, "Network (goats' view): %d", eval_net(&w->net, p));
        out(u, "Searched (side to move): %d (the network's)", eval_position(w, p));
    }
}

static void cmd_tbprobe(uci_t *u)
{
    load_default_tablebase(u);
    const tb_t *tb = engine_tablebase(u->engine);
    if (!tb) {
        ERR(u, "no tablebase loaded (setoption name TablebasePath value <dir>)");
        return;
    }
    tbr_value_t v, moves[MAX_MOVES];
    int n;
    tbr_status_t st = tbr_position(tb, &u->prover, &u->game, &v);
    if (st == TBR_OK)
        st = tbr_moves(tb, &u->prover, &u->game, moves, &n);
    if (st == TBR_NO_MEMORY) {
        ERR(u, "out of memory");
        return;
    }
    if (st == TBR_NOT_COVERED) {
        out(u, "Value: not covered (goats in hand)");
        return;
    }
    /* TBR_CHILD_NOT_COVERED: the value, and no moves (n is 0). */
    out(u, "Value: %s", v.text);
    out(u, "Moves (%d):", n);
    for (int i = 0; i < n; i++) {
        char m[MOVE_TEXT_LEN];
        move_format(moves[i].move, m);
        out(u, "%s: %s", m, moves[i].text);
    }
}

/* ---- search reports ------------------------------------------------------------ */

static size_t format_score(char *buf, size_t len, int score, int bound)
{
    int n;
    if (score_is_mate(score))
        n = snprintf(buf, len, "mate %d", score_mate_moves(score));
    else
        n = snprintf(buf, len, "cp %d", score);
    if (bound == BOUND_LOWER)
        n += snprintf(buf + n, len - (size_t)n, " lowerbound");
    else if (bound == BOUND_UPPER)
        n += snprintf(buf + n, len - (size_t)n, " upperbound");
    return (size_t)n;
}

static void report_info(void *ctx, const search_info_t *info)
{
    uci_t *u = ctx;
    char score[48], pv[MAX_PLY * 5 + 8] = "";
    format_score(score, sizeof score, info->score, info->bound);
    size_t len = 0;
    for (int i = 0; i < info->pv_len; i++) {
        char t[MOVE_TEXT_LEN];
        move_format(info->pv[i], t);
        len += (size_t)snprintf(pv + len, sizeof pv - len, " %s", t);
    }
    char tbhits[40] = "";
    if (engine_tablebase(u->engine))
        snprintf(tbhits, sizeof tbhits, " tbhits %" PRIu64, info->tbhits);
    out(u, "info depth %d seldepth %d multipv %d score %s nodes %" PRIu64 " nps %" PRIu64 " hashfull %d%s time %" PRId64
           " pv%s",
        info->depth, info->seldepth, info->multipv, score, info->nodes, info->nps, info->hashfull, tbhits, info->time_ms,
        pv);
}

static void report_bestmove(void *ctx, move_t best, move_t ponder, const search_info_t *final)
{
    uci_t *u = ctx;
    char b[MOVE_TEXT_LEN], pm[MOVE_TEXT_LEN];
    if (best == MOVE_NONE) {
        char score[48];
        format_score(score, sizeof score, final->score, BOUND_EXACT);
        out(u, "info depth 0 score %s", score);
        out(u, "bestmove (none)");
        return;
    }
    report_info(ctx, final);
    move_format(best, b);
    if (ponder != MOVE_NONE) {
        move_format(ponder, pm);
        out(u, "bestmove %s ponder %s", b, pm);
    } else {
        out(u, "bestmove %s", b);
    }
}

/* ---- go ------------------------------------------------------------------------ */

enum { PERFT_MAX_DEPTH = 64 };

/* Subtrees this deep are counted whole by the library (a few ms at most); above them the
 * count looks at the stop flag before every move. */
enum { PERFT_CHUNK = 5 };

static uint64_t perft_count(uci_t *u, position_t *p, int depth)
{
    if (depth <= PERFT_CHUNK)
        return perft(p, depth);
    move_t list[MAX_MOVES];
    int n = gen_moves(p, list);
    uint64_t total = 0;
    for (int i = 0; i < n && !atomic_load_explicit(&u->perft_stop, memory_order_relaxed); i++) {
        position_make(p, list[i]);
        total += perft_count(u, p, depth - 1);
        position_unmake(p, list[i]);
        if (u->poll)
            u->poll(u->poll_ctx);
    }
    return total;
}

static void *perft_main(void *arg)
{
    uci_t *u = arg;
    position_t p = u->perft_pos;
    move_t list[MAX_MOVES];
    int n = gen_moves(&p, list), done = 0;
    uint64_t total = 0;
    for (; done < n; done++) {
        char t[MOVE_TEXT_LEN];
        position_make(&p, list[done]);
        uint64_t c = perft_count(u, &p, u->perft_depth - 1);
        position_unmake(&p, list[done]);
        /* A count cut short is no count: the move is not printed. */
        if (atomic_load(&u->perft_stop))
            break;
        move_format(list[done], t);
        out(u, "%s: %" PRIu64, t, c);
        total += c;
    }
    if (done == n)
        out(u, "");
    /* Idle before the last line, as a search is before its bestmove: a command that answers
     * that line finds the perft over (and waits for the line to be out). */
    atomic_store(&u->perft_running, false);
    if (done < n)
        out(u, "info string perft stopped after %d of %d moves", done, n);
    else
        out(u, "Nodes searched: %" PRIu64, total);
    return NULL;
}

/* Runs on a thread of its own like a search: isready is answered meanwhile, and stop, go,
 * ucinewgame and quit end it (end of input lets it finish). */
static void cmd_perft(uci_t *u, words_t *ws)
{
    long long depth;
    if (ws->n != 3 || !parse_long(ws->w[2], 1, PERFT_MAX_DEPTH, &depth)) {
        ERR(u, "go perft needs a depth from 1 to %d", PERFT_MAX_DEPTH);
        return;
    }
    /* Clamped like every number with a range; said, since a deep perft takes very long. */
    long long asked;
    if (!parse_long(ws->w[2], INT64_MIN, INT64_MAX, &asked) || asked != depth)
        out(u, "info string perft depth %.40s is out of range, using %lld", ws->w[2], depth);
    u->perft_pos = *game_position(&u->game);
    u->perft_depth = (int)depth;
    atomic_store(&u->perft_stop, false);
    atomic_store(&u->perft_running, true);
    /* Live before it starts: where threads run inside the call that starts them (the
     * WebAssembly worker), a stop handled during the count must find it. */
    bool ends_alone = u->ends_alone;
    u->perft_live = true;
    u->ends_alone = true;
    if (pthread_create(&u->perft_thread, NULL, perft_main, u) != 0) {
        atomic_store(&u->perft_running, false);
        u->perft_live = false;
        u->ends_alone = ends_alone;
        ERR(u, "could not start the perft thread");
        return;
    }
}

static bool is_go_keyword(const char *w)
{
    static const char *const KEYS[] = {"depth", "nodes", "movetime", "infinite", "ponder", "searchmoves",
                                       "gtime", "ttime", "ginc", "tinc", "wtime", "btime",
                                       "winc", "binc", "movestogo", "mate", "perft"};
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
        if (strcasecmp(w, KEYS[i]) == 0)
            return true;
    return false;
}

/* A move legal in the game as it stands: by the rules of the position, not after the end of
 * the game, and not recreating an earlier position under `forbid`. */
static bool parse_game_move(const game_t *g, const char *text, move_t *m, char *msg, size_t len)
{
    if (move_parse(game_position(g), text, m, msg, len) != BC_OK)
        return false;
    char t[MOVE_TEXT_LEN];
    move_format(*m, t);
    game_result_t r = game_result(g);
    if (r.reason != RESULT_NONE) {
        snprintf(msg, len, "%s: the game is over (%s)", t, result_describe(r));
        return false;
    }
    if (game_move_repeats(g, *m)) {
        snprintf(msg, len, "%s recreates an earlier position (Repetition forbid)", t);
        return false;
    }
    return true;
}

/* Reads the go line into limits; false (with a message printed) if any word is wrong. */
static bool parse_go(uci_t *u, words_t *ws, search_limits_t *l)
{
    search_limits_init(l);
    for (int i = 1; i < ws->n; i++) {
        const char *k = ws->w[i];
        long long v = 0;
        if (strcasecmp(k, "infinite") == 0) {
            l->infinite = true;
            continue;
        }
        if (strcasecmp(k, "ponder") == 0) {
            l->ponder = true;
            continue;
        }
        if (strcasecmp(k, "searchmoves") == 0) {
            for (i++; i < ws->n && !is_go_keyword(ws->w[i]); i++) {
                move_t m;
                char msg[160];
                if (!parse_game_move(&u->game, ws->w[i], &m, msg, sizeof msg)) {
                    ERR(u, "searchmoves: %s", msg);
                    return false;
                }
                if (l->searchmoves_nb < MAX_MOVES)
                    l->searchmoves[l->searchmoves_nb++] = m;
            }
            i--;
            continue;
        }
        if (i + 1 >= ws->n || !parse_long(ws->w[i + 1], INT64_MIN / 4, INT64_MAX / 4, &v)) {
            if (is_go_keyword(k))
                ERR(u, "go %s needs a number", k);
            else
                ERR(u, "unknown go parameter '%.40s'", k);
            return false;
        }
        i++;
        if (strcasecmp(k, "depth") == 0)
            l->depth = v < 1 ? 1 : v > MAX_PLY - 1 ? MAX_PLY - 1 : (int)v;
        else if (strcasecmp(k, "nodes") == 0)
            l->nodes = v < 1 ? 1 : (uint64_t)v;
        else if (strcasecmp(k, "movetime") == 0)
            l->movetime = v < 1 ? 1 : v;
        else if (strcasecmp(k, "gtime") == 0 || strcasecmp(k, "wtime") == 0)
            l->time[GOATS] = v < 0 ? 0 : v;
        else if (strcasecmp(k, "ttime") == 0 || strcasecmp(k, "btime") == 0)
            l->time[TIGERS] = v < 0 ? 0 : v;
        else if (strcasecmp(k, "ginc") == 0 || strcasecmp(k, "winc") == 0)
            l->inc[GOATS] = v < 0 ? 0 : v;
        else if (strcasecmp(k, "tinc") == 0 || strcasecmp(k, "binc") == 0)
            l->inc[TIGERS] = v < 0 ? 0 : v;
        else if (strcasecmp(k, "movestogo") == 0)
            l->movestogo = v < 0 ? 0 : v > 1000 ? 1000 : (int)v;
        else if (strcasecmp(k, "mate") == 0)
            l->depth = v < 1 ? 1 : v > (MAX_PLY - 1) / 2 ? MAX_PLY - 1 : (int)(2 * v);
        else {
            ERR(u, "unknown go parameter '%.40s'", k);
            return false;
        }
    }
    return true;
}

static void report_proof(void *ctx, const fb_proof_t *proof)
{
    uci_t *u = ctx;
    char pv[FB_MAX_PV * 5 + 8] = "", b[MOVE_TEXT_LEN] = "(none)";
    size_t len = 0;
    for (int i = 0; i < proof->pv_len; i++) {
        char t[MOVE_TEXT_LEN];
        move_format(proof->pv[i], t);
        len += (size_t)snprintf(pv + len, sizeof pv - len, " %s", t);
    }
    if (proof->move != MOVE_NONE)
        move_format(proof->move, b);
    static const char *const RESULT[] = {"loss", "open", "win"};
    out(u, "info string prove result %s nodes %" PRIu64 " time %" PRId64 "%s%s", RESULT[proof->result + 1],
        proof->nodes, proof->ms, proof->pv_len ? " pv" : "", pv);
    out(u, "bestmove %s", b);
}

/* go prove [movetime T] [nodes N] [infinite]: the forbid prover on the current game. */
static void cmd_prove(uci_t *u, words_t *ws)
{
    search_limits_t l;
    for (int i = 2; i < ws->n; i++)
        if (strcasecmp(ws->w[i], "movetime") && strcasecmp(ws->w[i], "nodes") && strcasecmp(ws->w[i], "infinite")) {
            if (i > 2 && (!strcasecmp(ws->w[i - 1], "movetime") || !strcasecmp(ws->w[i - 1], "nodes")))
                continue;
            ERR(u, "go prove takes movetime, nodes and infinite, not '%.40s'", ws->w[i]);
            return;
        }
    words_t rest = {ws->buf, ws->w + 1, ws->n - 1};
    if (!parse_go(u, &rest, &l))
        return;
    if (u->one_shot && !l.movetime && !l.nodes) {
        ERR(u, "go prove as one command needs a limit that ends it: movetime or nodes");
        return;
    }
    if (!engine_tablebase(u->engine)) {
        ERR(u, "go prove needs the database (setoption name TablebasePath value <dir>)");
        return;
    }
    if (u->rule != REP_FORBID) {
        ERR(u, "go prove proves results under Repetition forbid; under draw the database's values are exact "
               "(tbprobe)");
        return;
    }
    halt_wait(u);
    u->ends_alone = !l.infinite && (l.movetime > 0 || l.nodes > 0);
    u->ponder_limited = false;
    if (!engine_set_game(u->engine, &u->game) || !engine_prove(u->engine, &l, report_proof, u)) {
        ERR(u, "out of memory: no proof");
        out(u, "bestmove (none)");
    }
}

static void cmd_go(uci_t *u, words_t *ws)
{
    if (ws->n >= 2 && strcasecmp(ws->w[1], "prove") == 0) {
        cmd_prove(u, ws);
        return;
    }
    if (ws->n >= 2 && strcasecmp(ws->w[1], "perft") == 0) {
        if (!engine_idle(u)) {
            ERR(u, "cannot run perft while searching");
            return;
        }
        cmd_perft(u, ws);
        return;
    }
    search_limits_t limits;
    if (!parse_go(u, ws, &limits))
        return;
    bool limited = limits.depth > 0 || limits.nodes > 0 || limits.movetime > 0 || limits.time[GOATS] >= 0 ||
                   limits.time[TIGERS] >= 0;
    if (u->one_shot && (!limited || limits.infinite || limits.ponder)) {
        ERR(u, "go as one command needs a limit that ends it: depth, nodes, movetime, mate or a clock");
        return;
    }
    /* The previous search, if any, ends (with its bestmove) before this one starts. */
    halt_wait(u);
    u->ends_alone = limited && !limits.infinite && !limits.ponder;
    u->ponder_limited = limited && !limits.infinite;
    load_default_tablebase(u);
    /* The clock starts now that the go is taken up: after the commands before it, the end of
     * the search it replaces and the first load of the standard folder's database, whose
     * time is not the move's (an isready before the go takes it). What follows (copying the
     * game, starting the threads) counts. */
    limits.start_ms = search_now_ms();
    /* An accepted go always ends with a bestmove, even when the search cannot start. */
    if (!engine_set_game(u->engine, &u->game)) {
        ERR(u, "out of memory: no search");
        out(u, "bestmove (none)");
        return;
    }
    search_report_t report = {report_info, report_bestmove, u};
    if (!engine_go(u->engine, &limits, &report)) {
        ERR(u, "could not start the search thread: no search");
        out(u, "bestmove (none)");
    }
}

/* ---- bench --------------------------------------------------------------------- */

static void bench_done(void *ctx, const bench_result_t *r)
{
    uci_t *u = ctx;
    if (r->no_memory) {
        out(u, "info string error: out of memory: no bench");
        return;
    }
    if (r->stopped) {
        out(u, "info string bench stopped after %d of %d positions", r->searched, BENCH_POSITIONS_COUNT);
        return;
    }
    out(u, "Positions: %d", r->searched);
    out(u, "Depth: %d", r->depth);
    out(u, "Total time (ms): %" PRId64, r->ms);
    out(u, "Nodes searched: %" PRIu64, r->nodes);
    out(u, "Nodes/second: %" PRIu64, r->ms > 0 ? r->nodes * 1000 / (uint64_t)r->ms : r->nodes * 1000);
}

/* Runs on the search thread like a go: isready is answered meanwhile, stop and quit end it. */
static void cmd_bench(uci_t *u, words_t *ws)
{
    long long depth = BENCH_DEFAULT_DEPTH;
    if (ws->n > 2 || (ws->n == 2 && (!parse_long(ws->w[1], 1, MAX_PLY - 1, &depth)))) {
        ERR(u, "bench takes an optional depth from 1 to %d", MAX_PLY - 1);
        return;
    }
    if (!engine_idle(u)) {
        ERR(u, "cannot run bench while searching");
        return;
    }
    u->ends_alone = true;
    if (!engine_bench(u->engine, (int)depth, bench_done, u))
        ERR(u, "could not start the bench thread");
}

/* ---- dispatch ------------------------------------------------------------------ */

static void cmd_ucinewgame(uci_t *u)
{
    position_t start;
    position_set_start(&start);
    halt_wait(u);
    engine_clear(u->engine);
    game_t g;
    if (!game_init(&g, &start, NULL, u->rule)) {
        ERR(u, "out of memory");
        return;
    }
    game_swap(&u->game, &g);
    game_free(&g);
}

bool uci_handle_input(uci_t *u, const char *line, size_t len)
{
    u->failed = false;
    /* A UTF-8 byte-order mark before the first command (written by some editors and
     * Windows tools) is not part of it. */
    if (!u->read_any && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
        line += 3;
        len -= 3;
    }
    u->read_any = true;
    if (memchr(line, '\0', len)) {
        ERR(u, "the line contains a NUL byte");
        return true;
    }
    return uci_handle_line(u, line);
}

/* help (--help on the command line): what the program is, its commands, where they are
 * described. */
static void cmd_help(uci_t *u)
{
    out(u, "baghchal %s: an engine for Bagh-Chal (Tigers and Goats) that speaks a UCI-style line protocol.",
        BAGHCHAL_VERSION);
    out(u, "It reads one command a line from its standard input, as a GUI, a referee or a script sends them:");
    out(u, "  uci, isready, setoption name <name> [value <value>], ucinewgame,");
    out(u, "  position startpos|obx <fields> [moves <move>...], go [<limits>], go perft <depth>, go prove,");
    out(u, "  stop, ponderhit, d, eval, tbprobe, bench [<depth>], help, quit.");
    out(u, "baghchal <command> runs one command and exits (baghchal go perft 7, baghchal bench);");
    out(u, "baghchal --version prints the version, baghchal --help this text.");
    out(u, "Every command, option and output line is described in PROTOCOL.md of the baghchal sources.");
}

/* Commands that take no arguments: given any, they are refused whole. */
static bool takes_no_arguments(const char *cmd)
{
    static const char *const NONE[] = {"uci",     "isready", "ucinewgame", "stop",   "ponderhit", "d",
                                       "eval",    "tbprobe", "quit",       "help",   "--help",    "--version"};
    for (size_t i = 0; i < sizeof NONE / sizeof NONE[0]; i++)
        if (strcmp(cmd, NONE[i]) == 0)
            return true;
    return false;
}

void uci_end_of_input(uci_t *u)
{
    /* As if the commands had been run one at a time: what ends by itself runs to its end, a
     * search that would not (infinite, ponder) is stopped. */
    if (u->ends_alone)
        uci_wait(u);
    uci_handle_line(u, "quit");
}

void uci_stop_at_end_of_input(uci_t *u)
{
    if (!u->ends_alone)
        halt(u);
}

int uci_run_command(uci_t *u, const char *line)
{
    u->one_shot = true;
    uci_handle_line(u, line);
    bool failed = u->failed;
    uci_wait(u);
    return failed ? 1 : 0;
}

bool uci_handle_line(uci_t *u, const char *line)
{
    words_t ws;
    u->failed = false;
    if (!words_split(line, &ws)) {
        ERR(u, "out of memory");
        return true;
    }
    bool keep = true;
    const char *cmd = ws.n ? ws.w[0] : "";
    if (ws.n == 0)
        ;
    else if (ws.n > 1 && takes_no_arguments(cmd))
        ERR(u, "%s takes no arguments: '%.40s' and what follows are not understood", cmd, ws.w[1]);
    else if (strcmp(cmd, "uci") == 0)
        cmd_uci(u);
    else if (strcmp(cmd, "isready") == 0) {
        /* After stop, ready means the search has ended and printed its bestmove. */
        settle(u);
        load_default_tablebase(u);
        if (!u->eval_told) {
            u->eval_told = true;
            const char *why = engine_eval_error(u->engine);
            if (why)
                out(u, "info string error: tuned evaluation refused: %s; the hand-set weights are used", why);
            why = engine_net_error(u->engine);
            if (why)
                out(u, "info string error: evaluation network refused: %s; the weighted terms are used", why);
            why = engine_bitbase_error(u->engine);
            if (why)
                out(u, "info string error: endgame bitbase refused: %s; the search goes on without it", why);
        }
        out(u, "readyok");
    }
    else if (strcmp(cmd, "ucinewgame") == 0)
        cmd_ucinewgame(u);
    else if (strcmp(cmd, "setoption") == 0)
        cmd_setoption(u, &ws);
    else if (strcmp(cmd, "position") == 0)
        cmd_position(u, &ws);
    else if (strcmp(cmd, "go") == 0)
        cmd_go(u, &ws);
    else if (strcmp(cmd, "stop") == 0)
        halt(u);
    else if (strcmp(cmd, "ponderhit") == 0) {
        engine_ponderhit(u->engine);
        u->ends_alone = u->ponder_limited;
    }
    else if (strcmp(cmd, "d") == 0)
        cmd_display(u);
    else if (strcmp(cmd, "eval") == 0)
        cmd_eval(u);
    else if (strcmp(cmd, "bench") == 0)
        cmd_bench(u, &ws);
    else if (strcmp(cmd, "tbprobe") == 0)
        cmd_tbprobe(u);
    else if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0)
        cmd_help(u);
    else if (strcmp(cmd, "--version") == 0)
        out(u, "baghchal %s", BAGHCHAL_VERSION);
    else if (strcmp(cmd, "quit") == 0) {
        halt_wait(u);
        keep = false;
    } else
        ERR(u, "unknown command '%.64s'", cmd);
    words_free(&ws);
    return keep;
}
