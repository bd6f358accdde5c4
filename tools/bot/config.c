/* The bot's settings: command-line options and --config files (the same options, one a line,
 * without the dashes), every value checked before anything starts. */
#include "bot.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cJSON.h"
#include "util.h"

enum { MAX_CONFIG_DEPTH = 4, MAX_LIST = 256 };

/* What the options gather before the engine is built. */
typedef struct {
    char *engine_cmd, *engine_dir;
    char **args;
    int args_nb;
    bool limits_given; /* --movetime, --depth or --nodes */
} gather_t;

bool valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 3 || n > 20 || !isalpha((unsigned char)s[0]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
            return false;
    return true;
}

bool valid_id(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 31)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
            return false;
    return true;
}

/* Text that stays one line in a message. */
static const char *shown(const char *s, char *buf, size_t len)
{
    size_t k = 0;
    for (; *s && k + 1 < len && k < 60; s++)
        buf[k++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
    buf[k] = '\0';
    return buf;
}

static bool has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

static bool set_string(char **dst, const char *v, err_t *e)
{
    char *s = xstrdup(v);
    if (!s)
        return err_fail(e, "out of memory");
    free(*dst);
    *dst = s;
    return true;
}

static bool push_string(char ***list, int *nb, const char *v, err_t *e)
{
    if (*nb >= MAX_LIST)
        return err_fail(e, "more than %d values of one option", MAX_LIST);
    char **l = realloc(*list, (size_t)(*nb + 1) * sizeof *l);
    if (!l)
        return err_fail(e, "out of memory");
    *list = l;
    if (!(l[*nb] = xstrdup(v)))
        return err_fail(e, "out of memory");
    (*nb)++;
    return true;
}

static bool yes_no(const char *o, const char *v, bool *out, err_t *e)
{
    if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcasecmp(v, "on") || !strcmp(v, "1"))
        *out = true;
    else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcasecmp(v, "off") || !strcmp(v, "0"))
        *out = false;
    else {
        char b[64];
        return err_fail(e, "%s takes yes or no, not '%s'", o, shown(v, b, sizeof b));
    }
    return true;
}

static bool int_value(const char *o, const char *v, int64_t lo, int64_t hi, int64_t *out, err_t *e)
{
    if (parse_int64(v, lo, hi, out))
        return true;
    char b[64];
    return err_fail(e, "%s takes a whole number from %lld to %lld, not '%s'", o, (long long)lo, (long long)hi,
                shown(v, b, sizeof b));
}

static bool seconds_value(const char *o, const char *v, int64_t *ms, err_t *e)
{
    if (parse_seconds_ms(v, ms) && *ms <= 10800000)
        return true;
    char b[64];
    return err_fail(e, "%s takes seconds (0 to 10800, decimals allowed), not '%s'", o, shown(v, b, sizeof b));
}

/* --rules forbid,draw and --modes casual,rated: words of a fixed set, separated by commas. */
static bool word_set(const char *o, const char *v, const char *const words[2], bool out[2], err_t *e)
{
    out[0] = out[1] = false;
    char b[64];
    const char *p = v;
    while (*p) {
        size_t n = strcspn(p, ", ");
        int k = -1;
        for (int i = 0; i < 2; i++)
            if (n == strlen(words[i]) && !strncasecmp(p, words[i], n))
                k = i;
        if (k < 0 && n > 0)
            return err_fail(e, "%s takes %s and/or %s separated by a comma, not '%s'", o, words[0], words[1],
                        shown(v, b, sizeof b));
        if (k >= 0)
            out[k] = true;
        p += n;
        while (*p == ',' || *p == ' ')
            p++;
    }
    if (!out[0] && !out[1])
        return err_fail(e, "%s needs %s, %s or both", o, words[0], words[1]);
    return true;
}

static bool option_value(bot_config_t *c, const char *v, err_t *e)
{
    const char *eq = strchr(v, '=');
    char b[64];
    if (!eq || eq == v)
        return err_fail(e, "--option takes NAME=VALUE, not '%s'", shown(v, b, sizeof b));
    if (has_control(v))
        return err_fail(e, "--option '%s' holds a control character", shown(v, b, sizeof b));
    size_t n = (size_t)(eq - v);
    while (n > 0 && v[n - 1] == ' ')
        n--;
    const char *val = eq + 1;
    while (*val == ' ')
        val++;
    if (c->engine.options_nb >= MAX_LIST)
        return err_fail(e, "more than %d engine options", MAX_LIST);
    kv_t *o = realloc(c->engine.options, (size_t)(c->engine.options_nb + 1) * sizeof *o);
    if (!o)
        return err_fail(e, "out of memory");
    c->engine.options = o;
    kv_t *kv = &o[c->engine.options_nb];
    kv->name = malloc(n + 1);
    kv->value = xstrdup(val);
    if (!kv->name || !kv->value) {
        free(kv->name);
        free(kv->value);
        return err_fail(e, "out of memory");
    }
    memcpy(kv->name, v, n);
    kv->name[n] = '\0';
    if (!strcasecmp(kv->name, "Repetition")) {
        free(kv->name);
        free(kv->value);
        return err_fail(e, "--option Repetition is set for each game from its rule");
    }
    c->engine.options_nb++;
    return true;
}

/* ---- seek and challenge specs ---------------------------------------------------------- */

static bool spec_from_json(const char *text, game_spec_t *s, char *msg, size_t msglen)
{
    cJSON *j = cJSON_Parse(text);
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        snprintf(msg, msglen, "is not a JSON object");
        return false;
    }
    bool ok = true;
    const cJSON *side = cJSON_GetObjectItemCaseSensitive(j, "side");
    const cJSON *clock = cJSON_GetObjectItemCaseSensitive(j, "clock");
    const cJSON *rule = cJSON_GetObjectItemCaseSensitive(j, "rule");
    const cJSON *rated = cJSON_GetObjectItemCaseSensitive(j, "rated");
    if (side) {
        static const char *const sides[] = {"random", "goats", "tigers"};
        int k = -1;
        for (int i = 0; i < 3; i++)
            if (cJSON_IsString(side) && !strcmp(side->valuestring, sides[i]))
                k = i;
        if (k < 0)
            ok = false, snprintf(msg, msglen, "\"side\" is \"goats\", \"tigers\" or \"random\"");
        else
            s->side = k;
    }
    if (ok && clock && !cJSON_IsNull(clock)) {
        const cJSON *ini = cJSON_GetObjectItemCaseSensitive(clock, "initial");
        const cJSON *inc = cJSON_GetObjectItemCaseSensitive(clock, "increment");
        if (!cJSON_IsNumber(ini) || (inc && !cJSON_IsNumber(inc)) || ini->valuedouble < 0 ||
            ini->valuedouble > 10800 || (inc && (inc->valuedouble < 0 || inc->valuedouble > 180)))
            ok = false, snprintf(msg, msglen, "\"clock\" is null or {\"initial\": 0..10800, \"increment\": 0..180} (seconds)");
        else {
            s->initial_ms = (int64_t)(ini->valuedouble * 1000 + 0.5);
            s->increment_ms = inc ? (int64_t)(inc->valuedouble * 1000 + 0.5) : 0;
        }
    }
    if (ok && rule) {
        if (!cJSON_IsString(rule) || (strcmp(rule->valuestring, "forbid") && strcmp(rule->valuestring, "draw")))
            ok = false, snprintf(msg, msglen, "\"rule\" is \"forbid\" or \"draw\"");
        else
            s->rule = !strcmp(rule->valuestring, "draw");
    }
    if (ok && rated) {
        if (!cJSON_IsBool(rated))
            ok = false, snprintf(msg, msglen, "\"rated\" is true or false");
        else
            s->rated = cJSON_IsTrue(rated);
    }
    cJSON_Delete(j);
    return ok;
}

bool spec_parse(const char *text, game_spec_t *s, char *msg, size_t msglen)
{
    *s = (game_spec_t){-1, 0, 0, 0, false};
    while (*text == ' ')
        text++;
    bool ok = true;
    if (*text == '{') {
        ok = spec_from_json(text, s, msg, msglen);
    } else {
        char word[64], b[64];
        bool clock_seen = false;
        for (const char *p = text; *p && ok;) {
            size_t n = strcspn(p, ", ");
            if (n >= sizeof word) {
                snprintf(msg, msglen, "'%s' is too long a word", shown(p, b, sizeof b));
                return false;
            }
            memcpy(word, p, n);
            word[n] = '\0';
            p += n;
            while (*p == ',' || *p == ' ')
                p++;
            if (!n)
                continue;
            char *plus = strchr(word, '+');
            if (!strcasecmp(word, "none") || !strcasecmp(word, "unlimited")) {
                s->initial_ms = -1, s->increment_ms = 0, clock_seen = true;
            } else if (isdigit((unsigned char)word[0]) || word[0] == '.') {
                int64_t ini, inc = 0;
                if (plus)
                    *plus = '\0';
                if (!parse_seconds_ms(word, &ini) || ini > 10800000 ||
                    (plus && (!parse_seconds_ms(plus + 1, &inc) || inc > 180000))) {
                    snprintf(msg, msglen, "'%s%s%s' is no clock: INITIAL+INCREMENT in seconds (0..10800, 0..180)",
                             word, plus ? "+" : "", plus ? plus + 1 : "");
                    return false;
                }
                s->initial_ms = ini, s->increment_ms = inc, clock_seen = true;
            } else if (!strcasecmp(word, "forbid") || !strcasecmp(word, "draw")) {
                s->rule = !strcasecmp(word, "draw");
            } else if (!strcasecmp(word, "random") || !strcasecmp(word, "goats") || !strcasecmp(word, "tigers")) {
                s->side = !strcasecmp(word, "goats") ? 1 : !strcasecmp(word, "tigers") ? 2 : 0;
            } else if (!strcasecmp(word, "rated") || !strcasecmp(word, "casual")) {
                s->rated = !strcasecmp(word, "rated");
            } else {
                snprintf(msg, msglen,
                         "'%s' is none of: none, INITIAL+INCREMENT (seconds), forbid, draw, random, goats, tigers, "
                         "rated, casual",
                         shown(word, b, sizeof b));
                return false;
            }
        }
        (void)clock_seen;
    }
    if (ok && s->initial_ms == 0 && s->increment_ms == 0) {
        snprintf(msg, msglen, "a clock of 0 seconds and no increment cannot be played");
        ok = false;
    }
    return ok;
}

char *spec_json(const game_spec_t *s, const char *to)
{
    static const char *const sides[] = {"random", "goats", "tigers"};
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    bool ok = cJSON_AddStringToObject(j, "side", sides[s->side]) != NULL;
    if (s->initial_ms >= 0) {
        cJSON *c = cJSON_AddObjectToObject(j, "clock");
        ok = ok && c && cJSON_AddNumberToObject(c, "initial", (double)s->initial_ms / 1000.0) &&
             cJSON_AddNumberToObject(c, "increment", (double)s->increment_ms / 1000.0);
    } else {
        ok = ok && cJSON_AddNullToObject(j, "clock");
    }
    ok = ok && cJSON_AddStringToObject(j, "rule", s->rule ? "draw" : "forbid") &&
         cJSON_AddBoolToObject(j, "rated", s->rated);
    if (to)
        ok = ok && cJSON_AddStringToObject(j, "to", to);
    char *t = ok ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    return t;
}

void spec_describe(const game_spec_t *s, char *buf, size_t len)
{
    static const char *const sides[] = {"random", "goats", "tigers"};
    char clock[48];
    if (s->initial_ms < 0)
        snprintf(clock, sizeof clock, "no clock");
    else
        snprintf(clock, sizeof clock, "%g+%g", (double)s->initial_ms / 1000.0, (double)s->increment_ms / 1000.0);
    snprintf(buf, len, "%s %s %s %s", clock, s->rule ? "draw" : "forbid", sides[s->side], s->rated ? "rated" : "casual");
}

/* ---- the options ------------------------------------------------------------------------ */

static bool apply(bot_config_t *c, gather_t *g, const char *o, const char *v, int depth, err_t *e);

/* Options without a value. */
static bool is_flag(const char *o) { return !strcmp(o, "quiet") || !strcmp(o, "help") || !strcmp(o, "version"); }

static bool known(const char *o)
{
    static const char *const names[] = {
        "server", "token", "token-file", "register", "engine", "engine-arg", "engine-dir", "option", "movetime",
        "depth", "nodes", "min-initial", "max-initial", "min-increment", "max-increment", "clock", "no-clock", "rules",
        "modes", "max-games", "seek", "challenge", "challenge-spec", "games", "log", "quiet", "init-timeout",
        "ready-timeout", "grace", "config", "help", "version", NULL};
    for (int i = 0; names[i]; i++)
        if (!strcmp(o, names[i]))
            return true;
    return false;
}

/* Reads a --config file: "name value", "name = value" or "name" (a flag) a line; '#' starts a comment. */
static bool read_config(bot_config_t *c, gather_t *g, const char *path, int depth, err_t *e)
{
    char b[64];
    if (depth >= MAX_CONFIG_DEPTH)
        return err_fail(e, "--config files include each other more than %d deep", MAX_CONFIG_DEPTH);
    FILE *f = fopen(path, "r");
    if (!f)
        return err_fail(e, "cannot read --config %s: %s", shown(path, b, sizeof b), strerror(errno));
    char line[4096];
    int no = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        no++;
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n') {
            ok = err_fail(e, "%s:%d: the line is too long", shown(path, b, sizeof b), no);
            break;
        }
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
            line[--n] = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '#')
            continue;
        char *name = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '=')
            p++;
        char *end = p;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '=') {
            p++;
            while (*p == ' ' || *p == '\t')
                p++;
        }
        *end = '\0';
        if (!known(name) || !strcmp(name, "help") || !strcmp(name, "version")) {
            char nb[64];
            ok = err_fail(e, "%s:%d: unknown setting '%s'", shown(path, b, sizeof b), no, shown(name, nb, sizeof nb));
            break;
        }
        if (is_flag(name) && !*p)
            p = "yes";
        if (!*p) {
            ok = err_fail(e, "%s:%d: %s needs a value", shown(path, b, sizeof b), no, name);
            break;
        }
        if (!apply(c, g, name, p, depth + 1, e)) {
            /* Say where the bad value was. */
            char inner[400];
            snprintf(inner, sizeof inner, "%s", e->msg);
            snprintf(e->msg, e->msglen, "%s:%d: %s", shown(path, b, sizeof b), no, inner);
            ok = false;
        }
    }
    if (ok && ferror(f))
        ok = err_fail(e, "cannot read --config %s", shown(path, b, sizeof b));
    fclose(f);
    return ok;
}

static bool apply(bot_config_t *c, gather_t *g, const char *o, const char *v, int depth, err_t *e)
{
    int64_t n;
    char b[64], opt[48];
    snprintf(opt, sizeof opt, "--%s", o);
    if (!strcmp(o, "server")) {
        if (strncmp(v, "http://", 7) && strncmp(v, "https://", 8))
            return err_fail(e, "--server takes an http:// or https:// URL, not '%s'", shown(v, b, sizeof b));
        for (const char *p = v; *p; p++)
            if ((unsigned char)*p <= 0x20 || *p == 0x7f)
                return err_fail(e, "--server '%s' holds a space or a control character", shown(v, b, sizeof b));
        if (!set_string(&c->server, v, e))
            return false;
        size_t k = strlen(c->server);
        while (k > 8 && c->server[k - 1] == '/')
            c->server[--k] = '\0';
        return true;
    }
    if (!strcmp(o, "token")) {
        for (const char *p = v; *p; p++)
            if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
                return err_fail(e, "--token holds a character no token has");
        if (!*v)
            return err_fail(e, "--token is empty");
        return set_string(&c->token, v, e);
    }
    if (!strcmp(o, "token-file"))
        return set_string(&c->token_file, v, e);
    if (!strcmp(o, "register")) {
        if (!valid_name(v))
            return err_fail(e, "--register '%s': a name has 3 to 20 of A-Z a-z 0-9 _ -, from a letter", shown(v, b, sizeof b));
        return set_string(&c->register_name, v, e);
    }
    if (!strcmp(o, "engine"))
        return set_string(&g->engine_cmd, v, e);
    if (!strcmp(o, "engine-arg"))
        return push_string(&g->args, &g->args_nb, v, e);
    if (!strcmp(o, "engine-dir"))
        return set_string(&g->engine_dir, v, e);
    if (!strcmp(o, "option"))
        return option_value(c, v, e);
    if (!strcmp(o, "movetime")) {
        g->limits_given = true;
        return int_value(opt, v, 1, INT64_C(86400000), &c->movetime_ms, e);
    }
    if (!strcmp(o, "depth")) {
        g->limits_given = true;
        if (!int_value(opt, v, 1, 127, &n, e))
            return false;
        c->depth = (int)n;
        return true;
    }
    if (!strcmp(o, "nodes")) {
        g->limits_given = true;
        return int_value(opt, v, 1, INT64_C(1000000000000000), &c->nodes, e);
    }
    if (!strcmp(o, "min-initial"))
        return seconds_value(opt, v, &c->min_initial_ms, e);
    if (!strcmp(o, "max-initial"))
        return seconds_value(opt, v, &c->max_initial_ms, e);
    if (!strcmp(o, "min-increment"))
        return seconds_value(opt, v, &c->min_increment_ms, e);
    if (!strcmp(o, "max-increment"))
        return seconds_value(opt, v, &c->max_increment_ms, e);
    if (!strcmp(o, "clock"))
        return yes_no(opt, v, &c->allow_clock, e);
    if (!strcmp(o, "no-clock"))
        return yes_no(opt, v, &c->allow_no_clock, e);
    if (!strcmp(o, "rules")) {
        static const char *const w[2] = {"forbid", "draw"};
        return word_set(opt, v, w, c->allow_rule, e);
    }
    if (!strcmp(o, "modes")) {
        static const char *const w[2] = {"casual", "rated"};
        bool m[2];
        if (!word_set(opt, v, w, m, e))
            return false;
        c->allow_casual = m[0], c->allow_rated = m[1];
        return true;
    }
    if (!strcmp(o, "max-games")) {
        if (!int_value(opt, v, 1, 64, &n, e))
            return false;
        c->max_games = (int)n;
        return true;
    }
    if (!strcmp(o, "seek") || !strcmp(o, "challenge-spec")) {
        char msg[200];
        game_spec_t *s = !strcmp(o, "seek") ? &c->seek_spec : &c->challenge_spec;
        if (!spec_parse(v, s, msg, sizeof msg))
            return err_fail(e, "%s: %s", opt, msg);
        if (s == &c->seek_spec)
            c->seek = true;
        return true;
    }
    if (!strcmp(o, "challenge")) {
        if (!valid_name(v))
            return err_fail(e, "--challenge '%s' is no player's name", shown(v, b, sizeof b));
        return push_string(&c->challenge, &c->challenge_nb, v, e);
    }
    if (!strcmp(o, "games"))
        return int_value(opt, v, 1, INT64_C(1000000000), &c->games_limit, e);
    if (!strcmp(o, "log"))
        return set_string(&c->log_file, v, e);
    if (!strcmp(o, "quiet"))
        return yes_no(opt, v, &c->quiet, e);
    if (!strcmp(o, "init-timeout"))
        return int_value(opt, v, 1, 3600000, &c->init_timeout_ms, e);
    if (!strcmp(o, "ready-timeout"))
        return int_value(opt, v, 1, 3600000, &c->ready_timeout_ms, e);
    if (!strcmp(o, "grace"))
        return int_value(opt, v, 0, 3600000, &c->grace_ms, e);
    if (!strcmp(o, "config"))
        return read_config(c, g, v, depth, e);
    if (!strcmp(o, "help"))
        return yes_no(opt, v, &c->help, e);
    if (!strcmp(o, "version"))
        return yes_no(opt, v, &c->version, e);
    return err_fail(e, "unknown option --%s (see --help)", shown(o, b, sizeof b));
}

static bool build_engine(bot_config_t *c, gather_t *g, err_t *e)
{
    char b[64];
    if (g->engine_dir) {
        struct stat st;
        if (stat(g->engine_dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return err_fail(e, "--engine-dir '%s' is not a folder", shown(g->engine_dir, b, sizeof b));
    }
    char *path = find_program(g->engine_cmd, g->engine_dir, "--engine", e);
    if (!path)
        return false;
    c->engine.argv = calloc((size_t)g->args_nb + 2, sizeof *c->engine.argv);
    const char *base = strrchr(g->engine_cmd, '/');
    c->engine.name = xstrdup(base ? base + 1 : g->engine_cmd);
    if (!c->engine.argv || !c->engine.name) {
        free(path);
        return err_fail(e, "out of memory");
    }
    c->engine.argv[0] = path;
    for (int i = 0; i < g->args_nb; i++) {
        c->engine.argv[i + 1] = g->args[i];
        g->args[i] = NULL;
    }
    c->engine.dir = g->engine_dir;
    g->engine_dir = NULL;
    c->has_engine = true;
    return true;
}

static bool finish(bot_config_t *c, gather_t *g, err_t *e)
{
    if (c->help || c->version)
        return true;
    if (!c->server)
        return err_fail(e, "--server URL is needed (the server's address, e.g. http://localhost:8080)");
    if (!c->token && !c->token_file && !c->register_name)
        return err_fail(e, "the bot's --token (or --token-file), or --register NAME to make a bot account, is needed");
    if (c->token && c->register_name)
        return err_fail(e, "--token and --register exclude each other: a registered bot is given a new token");
    if (!g->engine_cmd && (g->args_nb || g->engine_dir || c->engine.options_nb))
        return err_fail(e, "--engine-arg, --engine-dir and --option need --engine");
    if (!g->engine_cmd && !c->register_name)
        return err_fail(e, "--engine COMMAND is needed (the protocol engine that plays)");
    if (g->engine_cmd && !build_engine(c, g, e))
        return false;
    if (!g->limits_given)
        c->movetime_ms = 1000;
    if (c->min_initial_ms > c->max_initial_ms)
        return err_fail(e, "--min-initial is above --max-initial");
    if (c->min_increment_ms > c->max_increment_ms)
        return err_fail(e, "--min-increment is above --max-increment");
    if (!c->allow_clock && !c->allow_no_clock)
        return err_fail(e, "--clock no and --no-clock no together refuse every game");
    if (c->challenge_nb && c->register_name)
        for (int i = 0; i < c->challenge_nb; i++)
            if (!strcasecmp(c->challenge[i], c->register_name))
                return err_fail(e, "--challenge %s: the bot cannot challenge itself", c->challenge[i]);
    return true;
}

bool config_parse(int argc, char **argv, bot_config_t *c, char *msg, size_t msglen)
{
    memset(c, 0, sizeof *c);
    c->min_initial_ms = 0;
    c->max_initial_ms = 10800000;
    c->min_increment_ms = 0;
    c->max_increment_ms = 180000;
    c->allow_clock = c->allow_no_clock = true;
    c->allow_rule[0] = c->allow_rule[1] = true;
    c->allow_casual = c->allow_rated = true;
    c->max_games = 1;
    c->seek_spec = c->challenge_spec = (game_spec_t){-1, 0, 0, 0, false};
    c->init_timeout_ms = 10000;
    c->ready_timeout_ms = 5000;
    c->quit_timeout_ms = 1000;
    c->grace_ms = 10000;
    err_t e = {msg, msglen, false};
    gather_t g = {0};
    bool ok = true;
    for (int i = 1; i < argc && ok; i++) {
        const char *a = argv[i];
        char b[64];
        if (strncmp(a, "--", 2) || !a[2]) {
            ok = err_fail(&e, "unexpected argument '%s' (options start with --; see --help)", shown(a, b, sizeof b));
            break;
        }
        char name[48];
        const char *eq = strchr(a + 2, '=');
        size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (n >= sizeof name) {
            ok = err_fail(&e, "unknown option '%s'", shown(a, b, sizeof b));
            break;
        }
        memcpy(name, a + 2, n);
        name[n] = '\0';
        if (!known(name)) {
            ok = err_fail(&e, "unknown option '%s' (see --help)", shown(a, b, sizeof b));
            break;
        }
        const char *v;
        if (eq)
            v = eq + 1;
        else if (is_flag(name))
            v = "yes";
        else if (i + 1 < argc)
            v = argv[++i];
        else {
            ok = err_fail(&e, "--%s needs a value", name);
            break;
        }
        ok = apply(c, &g, name, v, 0, &e);
    }
    if (ok)
        ok = finish(c, &g, &e);
    free(g.engine_cmd);
    free(g.engine_dir);
    for (int i = 0; i < g.args_nb; i++)
        free(g.args[i]);
    free(g.args);
    return ok;
}

void config_free(bot_config_t *c)
{
    free(c->server);
    free(c->token);
    free(c->token_file);
    free(c->register_name);
    if (c->engine.argv)
        for (char **a = c->engine.argv; *a; a++)
            free(*a);
    free(c->engine.argv);
    free(c->engine.name);
    free(c->engine.dir);
    for (int i = 0; i < c->engine.options_nb; i++) {
        free(c->engine.options[i].name);
        free(c->engine.options[i].value);
    }
    free(c->engine.options);
    for (int i = 0; i < c->challenge_nb; i++)
        free(c->challenge[i]);
    free(c->challenge);
    free(c->log_file);
    memset(c, 0, sizeof *c);
}

void config_usage(void)
{
    fputs("Usage: baghchal-bot --server URL (--token T | --token-file F | --register NAME) --engine CMD [options]\n"
          "Plays on baghchal-server as a bot with a protocol engine: accepts the challenges within its limits,\n"
          "plays each game with an engine process of its own on the game's clocks.\n"
          "\n"
          "The account\n"
          "  --server URL           the server, e.g. http://localhost:8080\n"
          "  --token TOKEN          the bot account's token\n"
          "  --token-file PATH      read the token from PATH (with --register: where the new token is saved)\n"
          "  --register NAME        make the bot account NAME (unless --token-file already holds a token);\n"
          "                         without --token-file the token is printed; without --engine, stop there\n"
          "The engine\n"
          "  --engine CMD           the engine's program (a path, or a name in PATH)\n"
          "  --engine-arg ARG       an argument for it (repeat for more)\n"
          "  --engine-dir DIR       its working folder\n"
          "  --option NAME=VALUE    a setoption line, e.g. 'Skill Level=5' (repeat for more)\n"
          "  --movetime MS, --depth N, --nodes N\n"
          "                         each go of a game without a clock (default: --movetime 1000)\n"
          "  --grace MS             time beyond its clock before an engine counts as hung (default 10000)\n"
          "  --init-timeout MS, --ready-timeout MS   for uci/options (10000) and isready (5000)\n"
          "  --log FILE             the engines' protocol and standard error, appended to FILE\n"
          "Challenges accepted (others are declined)\n"
          "  --min-initial S, --max-initial S, --min-increment S, --max-increment S   clock limits in seconds\n"
          "  --clock yes|no         games with a clock (default yes)\n"
          "  --no-clock yes|no      games without a clock (default yes)\n"
          "  --rules forbid,draw    repetition rules (default both)\n"
          "  --modes casual,rated   (default both)\n"
          "  --max-games N          games at once (default 1)\n"
          "Finding games\n"
          "  --seek SPEC            keep a seek open in the lobby, made again after each game\n"
          "  --challenge NAME       challenge this player when idle (repeat: in turn)\n"
          "  --challenge-spec SPEC  the settings of those challenges (default: none forbid random casual)\n"
          "                         SPEC: words among none | INITIAL+INCREMENT (seconds), forbid | draw,\n"
          "                         random | goats | tigers, casual | rated; or the API's JSON settings\n"
          "  --games N              play N games, then stop\n"
          "Other\n"
          "  --config FILE          more options from FILE: 'name value' a line, without the dashes\n"
          "  --quiet                only warnings and errors on standard error\n"
          "  --help, --version\n"
          "SIGINT/SIGTERM: no new games, the games going on are played to their end; a second one: leave now.\n",
          stdout);
}
