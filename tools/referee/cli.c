/* Command-line parsing: fastchess / cutechess-cli style `-engine key=value ...` groups,
 * `-each` defaults and single-valued options, with every value checked up front. */
#include "cli.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "adjudicate.h"
#include "message.h"
#include "tb.h"
#include "util.h"

enum { MAX_ENGINES = 64, MAX_CONCURRENCY = 256 };

/* The raw key=value words of one -engine or -each group. */
typedef struct {
    kv_t *kv;
    int n, cap;
} kvlist_t;

/* Names and the event are written between quotes into the tags and into the settings'
 * lines: a quote, a backslash or a control character (TAB, ESC, a line break ...) would
 * break one or be written differently in the other. Returns what s holds of them, or NULL. */
static const char *unfit_text(const char *s, char *buf, size_t len)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        if (*p == '"')
            return "a quote";
        if (*p == '\\')
            return "a backslash";
        if (*p < 0x20 || *p == 0x7f) {
            snprintf(buf, len, "a control character (byte 0x%02X)", *p);
            return buf;
        }
        /* The JSON summary and the records are UTF-8: a byte outside it cannot be written. */
        size_t n = bc_utf8_decode(p, 4, NULL);
        if (!n) {
            snprintf(buf, len, "a byte that is not UTF-8 (0x%02X at offset %zu)", *p, (size_t)(p - (const unsigned char *)s));
            return buf;
        }
        p += n;
    }
    return NULL;
}

static bool kv_push(kvlist_t *l, const char *word, err_t *e)
{
    const char *eq = strchr(word, '=');
    if (!eq || eq == word)
        return err_fail(e, "expected key=value, got '%s'", word);
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 8;
        kv_t *kv = realloc(l->kv, (size_t)cap * sizeof *kv);
        if (!kv)
            return err_fail(e, "out of memory");
        l->kv = kv;
        l->cap = cap;
    }
    kv_t *kv = &l->kv[l->n];
    kv->name = malloc((size_t)(eq - word) + 1);
    kv->value = xstrdup(eq + 1);
    if (!kv->name || !kv->value) {
        free(kv->name);
        free(kv->value);
        return err_fail(e, "out of memory");
    }
    memcpy(kv->name, word, (size_t)(eq - word));
    kv->name[eq - word] = '\0';
    l->n++;
    return true;
}

static void kv_free(kvlist_t *l)
{
    for (int i = 0; i < l->n; i++) {
        free(l->kv[i].name);
        free(l->kv[i].value);
    }
    free(l->kv);
    memset(l, 0, sizeof *l);
}

/* The value of key in the group, the last one given; NULL if absent. */
static const char *kv_get(const kvlist_t *l, const char *key)
{
    const char *v = NULL;
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->kv[i].name, key) == 0)
            v = l->kv[i].value;
    return v;
}

int cli_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* ---- values ---- */

/* "[moves/]base[+inc]" in seconds. */
static bool parse_tc(const char *s, tc_t *tc)
{
    char buf[128];
    if (strlen(s) >= sizeof buf)
        return false;
    strcpy(buf, s);
    char *base = buf;
    tc->moves = 0;
    tc->inc_ms = 0;
    char *slash = strchr(buf, '/');
    if (slash) {
        *slash = '\0';
        int64_t m;
        if (!parse_int64(buf, 1, 100000, &m))
            return false;
        tc->moves = (int)m;
        base = slash + 1;
    }
    char *plus = strchr(base, '+');
    if (plus) {
        *plus = '\0';
        if (!parse_seconds_ms(plus + 1, &tc->inc_ms))
            return false;
    }
    return parse_seconds_ms(base, &tc->base_ms) && tc->base_ms > 0;
}

static bool parse_onoff(const char *s, bool *out)
{
    if (strcasecmp(s, "on") == 0 || strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0)
        *out = true;
    else if (strcasecmp(s, "off") == 0 || strcasecmp(s, "false") == 0 || strcmp(s, "0") == 0)
        *out = false;
    else
        return false;
    return true;
}

/* Splits args= into words; single or double quotes group words. */
static bool split_args(const char *s, char ***words, int *n, err_t *e)
{
    size_t len = strlen(s);
    char **w = calloc(len / 2 + 2, sizeof *w);
    char *buf = malloc(len + 1);
    if (!w || !buf) {
        free(w);
        free(buf);
        return err_fail(e, "out of memory");
    }
    int count = 0;
    const char *p = s;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        size_t k = 0;
        char quote = 0;
        for (; *p && (quote || (*p != ' ' && *p != '\t')); p++) {
            if (!quote && (*p == '"' || *p == '\''))
                quote = *p;
            else if (quote && *p == quote)
                quote = 0;
            else
                buf[k++] = *p;
        }
        if (quote) {
            free(buf);
            for (int i = 0; i < count; i++)
                free(w[i]);
            free(w);
            return err_fail(e, "unbalanced quote in args='%s'", s);
        }
        buf[k] = '\0';
        if (!(w[count] = xstrdup(buf))) {
            free(buf);
            for (int i = 0; i < count; i++)
                free(w[i]);
            free(w);
            return err_fail(e, "out of memory");
        }
        count++;
    }
    free(buf);
    *words = w;
    *n = count;
    return true;
}

static bool option_set(engine_conf_t *en, const char *name, const char *value, err_t *e)
{
    for (int i = 0; i < en->options_nb; i++)
        if (strcasecmp(en->options[i].name, name) == 0) {
            char *v = xstrdup(value);
            if (!v)
                return err_fail(e, "out of memory");
            free(en->options[i].value);
            en->options[i].value = v;
            return true;
        }
    kv_t *o = realloc(en->options, (size_t)(en->options_nb + 1) * sizeof *o);
    if (!o)
        return err_fail(e, "out of memory");
    en->options = o;
    o[en->options_nb].name = xstrdup(name);
    o[en->options_nb].value = xstrdup(value);
    if (!o[en->options_nb].name || !o[en->options_nb].value) {
        free(o[en->options_nb].name);
        free(o[en->options_nb].value);
        return err_fail(e, "out of memory");
    }
    en->options_nb++;
    return true;
}

/* Applies one key of an -engine or -each group to en. */
static bool engine_key(engine_conf_t *en, const kv_t *kv, const char *where, err_t *e)
{
    const char *k = kv->name, *v = kv->value;
    int64_t n;
    if (strncmp(k, "option.", 7) == 0) {
        if (!k[7])
            return err_fail(e, "%s: option. needs a name", where);
        if (strcasecmp(k + 7, "Repetition") == 0)
            return err_fail(e, "%s: the Repetition option is set by -repetition for both engines", where);
        if (strpbrk(k + 7, "\n\r") || strpbrk(v, "\n\r"))
            return err_fail(e, "%s: option %s has a line break", where, k + 7);
        return option_set(en, k + 7, v, e);
    }
    if (strcmp(k, "tc") == 0) {
        if (strcasecmp(v, "none") == 0 || strcasecmp(v, "inf") == 0) {
            en->has_tc = false;
            return true;
        }
        if (!parse_tc(v, &en->tc))
            return err_fail(e, "%s: tc='%s' is not [moves/]seconds[+increment], e.g. tc=10+0.1", where, v);
        en->has_tc = true;
        return true;
    }
    if (strcmp(k, "st") == 0) {
        if (!parse_seconds_ms(v, &en->movetime_ms) || en->movetime_ms < 1)
            return err_fail(e, "%s: st='%s' needs seconds > 0", where, v);
        return true;
    }
    if (strcmp(k, "movetime") == 0) {
        if (!parse_int64(v, 1, INT32_MAX, &en->movetime_ms))
            return err_fail(e, "%s: movetime='%s' needs milliseconds from 1", where, v);
        return true;
    }
    if (strcmp(k, "depth") == 0) {
        if (!parse_int64(v, 1, 127, &n))
            return err_fail(e, "%s: depth='%s' needs an integer from 1 to 127", where, v);
        en->depth = (int)n;
        return true;
    }
    if (strcmp(k, "nodes") == 0) {
        if (!parse_int64(v, 1, INT64_MAX / 4, &en->nodes))
            return err_fail(e, "%s: nodes='%s' needs a positive integer", where, v);
        return true;
    }
    if (strcmp(k, "timemargin") == 0 || strcmp(k, "margin") == 0) {
        if (!parse_int64(v, 0, INT32_MAX, &en->margin_ms))
            return err_fail(e, "%s: %s='%s' needs milliseconds from 0", where, k, v);
        return true;
    }
    if (strcmp(k, "restart") == 0) {
        if (!parse_onoff(v, &en->restart))
            return err_fail(e, "%s: restart='%s' needs on or off", where, v);
        return true;
    }
    if (strcmp(k, "cmd") == 0 || strcmp(k, "name") == 0 || strcmp(k, "args") == 0 || strcmp(k, "dir") == 0)
        return true; /* handled by build_engine */
    return err_fail(e, "%s: unknown key '%s'", where, k);
}

static bool build_engine(engine_conf_t *en, const kvlist_t *each, const kvlist_t *own, int index, err_t *e)
{
    char where[32];
    snprintf(where, sizeof where, "-engine #%d", index + 1);
    memset(en, 0, sizeof *en);
    for (int i = 0; i < each->n; i++)
        if (!engine_key(en, &each->kv[i], "-each", e))
            return false;
    for (int i = 0; i < own->n; i++)
        if (!engine_key(en, &own->kv[i], where, e))
            return false;
    const char *cmd = kv_get(own, "cmd") ? kv_get(own, "cmd") : kv_get(each, "cmd");
    const char *name = kv_get(own, "name");
    const char *args = kv_get(own, "args") ? kv_get(own, "args") : kv_get(each, "args");
    const char *dir = kv_get(own, "dir") ? kv_get(own, "dir") : kv_get(each, "dir");
    if (!cmd)
        return err_fail(e, "%s needs cmd=<program>", where);
    if (dir) {
        struct stat st;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return err_fail(e, "%s: dir='%s' is not a directory", where, dir);
        if (!(en->dir = xstrdup(dir)))
            return err_fail(e, "out of memory");
    }
    char *path = find_program(cmd, dir, "engine command", e);
    if (!path)
        return false;
    char **words = NULL;
    int nw = 0;
    if (args && !split_args(args, &words, &nw, e)) {
        free(path);
        return false;
    }
    en->argv = calloc((size_t)nw + 2, sizeof *en->argv);
    if (!en->argv) {
        free(path);
        for (int i = 0; i < nw; i++)
            free(words[i]);
        free(words);
        return err_fail(e, "out of memory");
    }
    en->argv[0] = path;
    for (int i = 0; i < nw; i++)
        en->argv[i + 1] = words[i];
    free(words);
    char what[64];
    const char *unfit;
    if (name) {
        if (!*name)
            return err_fail(e, "%s: name= must not be empty", where);
        if ((unfit = unfit_text(name, what, sizeof what)))
            return err_fail(e, "%s: name= holds %s: a name must be UTF-8 without quotes, backslashes or control characters",
                        where, unfit);
        en->name = xstrdup(name);
    } else {
        const char *base = strrchr(cmd, '/');
        if ((unfit = unfit_text(base ? base + 1 : cmd, what, sizeof what)))
            return err_fail(e, "%s: the program's file name holds %s, which a name cannot: give name=", where, unfit);
        en->name = xstrdup(base ? base + 1 : cmd);
    }
    if (!en->name)
        return err_fail(e, "out of memory");
    if (!en->has_tc && !en->movetime_ms && !en->depth && !en->nodes)
        return err_fail(e, "engine %s has no limit per move: give tc=, st=/movetime=, depth= or nodes=", en->name);
    return true;
}

static void engine_free(engine_conf_t *en)
{
    free(en->name);
    if (en->argv)
        for (char **a = en->argv; *a; a++)
            free(*a);
    free(en->argv);
    free(en->dir);
    for (int i = 0; i < en->options_nb; i++) {
        free(en->options[i].name);
        free(en->options[i].value);
    }
    free(en->options);
}

/* Engines without an explicit name= that share a name get "-2", "-3" ... */
static bool unique_names(config_t *cfg, err_t *e)
{
    for (int i = 1; i < cfg->engines_nb; i++) {
        for (int suffix = 2;; suffix++) {
            bool clash = false;
            for (int j = 0; j < i && !clash; j++)
                clash = strcmp(cfg->engines[i].name, cfg->engines[j].name) == 0;
            if (!clash)
                break;
            size_t len = strlen(cfg->engines[i].name);
            char *base = cfg->engines[i].name;
            char *dash = strrchr(base, '-');
            if (suffix > 2 && dash)
                len = (size_t)(dash - base);
            char *n = malloc(len + 16);
            if (!n)
                return err_fail(e, "out of memory");
            snprintf(n, len + 16, "%.*s-%d", (int)len, base, suffix);
            free(base);
            cfg->engines[i].name = n;
        }
    }
    return true;
}

/* ---- options ---- */

/* The words after argv[*i] up to the next word starting with '-'. */
static bool collect_kv(int argc, char **argv, int *i, kvlist_t *l, err_t *e)
{
    while (*i + 1 < argc && argv[*i + 1][0] != '-') {
        (*i)++;
        if (!kv_push(l, argv[*i], e))
            return false;
    }
    return true;
}

static const char *need_value(int argc, char **argv, int *i, const char *opt, err_t *e)
{
    if (*i + 1 >= argc) {
        err_fail(e, "-%s needs a value", opt);
        return NULL;
    }
    return argv[++*i];
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

static bool parse_openings(const kvlist_t *l, config_t *cfg, err_t *e)
{
    for (int k = 0; k < l->n; k++) {
        const char *n = l->kv[k].name, *v = l->kv[k].value;
        int64_t x;
        if (strcmp(n, "file") == 0) {
            if (access(v, R_OK) != 0)
                return err_fail(e, "-openings: cannot read file '%s'", v);
            if (!set_string(&cfg->openings_file, v, e))
                return false;
        } else if (strcmp(n, "order") == 0) {
            if (strcmp(v, "random") == 0)
                cfg->openings_shuffle = true;
            else if (strcmp(v, "sequential") == 0)
                cfg->openings_shuffle = false;
            else
                return err_fail(e, "-openings: order='%s' must be sequential or random", v);
        } else if (strcmp(n, "start") == 0) {
            if (!parse_int64(v, 1, INT32_MAX, &x))
                return err_fail(e, "-openings: start='%s' needs a positive integer", v);
            cfg->openings_start = x - 1;
        } else if (strcmp(n, "startpos") == 0) {
            if (!parse_int64(v, 1, INT32_MAX, &x))
                return err_fail(e, "-openings: startpos='%s' needs a positive integer", v);
            cfg->startpos_every = x;
        } else if (strcmp(n, "random") == 0 || strcmp(n, "plies") == 0) {
            if (!parse_int64(v, 0, 200, &x))
                return err_fail(e, "-openings: %s='%s' needs an integer from 0 to 200", n, v);
            cfg->random_plies = (int)x;
        } else {
            return err_fail(e, "-openings: unknown key '%s'", n);
        }
    }
    if (cfg->openings_file && cfg->random_plies)
        return err_fail(e, "-openings: give either file= or random=, not both");
    if (cfg->openings_file && cfg->startpos_every)
        return err_fail(e, "-openings: startpos= mixes the start position into random= openings, not a file");
    return true;
}

static bool parse_sprt(const kvlist_t *l, config_t *cfg, err_t *e)
{
    bool have[4] = {false, false, false, false};
    static const char *const KEYS[4] = {"elo0", "elo1", "alpha", "beta"};
    double *dst[4] = {&cfg->sprt.elo0, &cfg->sprt.elo1, &cfg->sprt.alpha, &cfg->sprt.beta};
    for (int k = 0; k < l->n; k++) {
        int idx = -1;
        if (strcmp(l->kv[k].name, "stats") == 0) {
            if (strcmp(l->kv[k].value, "pentanomial") != 0 && strcmp(l->kv[k].value, "trinomial") != 0)
                return err_fail(e, "-sprt: stats='%s' must be pentanomial or trinomial", l->kv[k].value);
            cfg->sprt.trinomial = strcmp(l->kv[k].value, "trinomial") == 0;
            continue;
        }
        for (int j = 0; j < 4; j++)
            if (strcmp(l->kv[k].name, KEYS[j]) == 0)
                idx = j;
        if (idx < 0)
            return err_fail(e, "-sprt: unknown key '%s' (elo0, elo1, alpha, beta, stats)", l->kv[k].name);
        if (!parse_double(l->kv[k].value, dst[idx]))
            return err_fail(e, "-sprt: %s='%s' is not a number", KEYS[idx], l->kv[k].value);
        have[idx] = true;
    }
    if (!have[0] || !have[1])
        return err_fail(e, "-sprt needs elo0= and elo1=");
    if (!have[2])
        cfg->sprt.alpha = 0.05;
    if (!have[3])
        cfg->sprt.beta = 0.05;
    if (cfg->sprt.elo1 <= cfg->sprt.elo0)
        return err_fail(e, "-sprt: elo1 must be greater than elo0");
    if (cfg->sprt.elo0 <= -1000 || cfg->sprt.elo1 >= 1000)
        return err_fail(e, "-sprt: elo0 and elo1 must lie within (-1000, 1000)");
    if (!(cfg->sprt.alpha > 0 && cfg->sprt.alpha < 0.5 && cfg->sprt.beta > 0 && cfg->sprt.beta < 0.5))
        return err_fail(e, "-sprt: alpha and beta must lie within (0, 0.5)");
    cfg->sprt.on = true;
    return true;
}

/* -resign movecount=N score=S [twosided=on|off] and -draw movenumber=N movecount=N score=S. */
static bool parse_score_adj(const char *o, const kvlist_t *l, config_t *cfg, err_t *e)
{
    bool resign = strcmp(o, "resign") == 0;
    bool have_count = false, have_score = false;
    for (int k = 0; k < l->n; k++) {
        const char *n = l->kv[k].name, *v = l->kv[k].value;
        int64_t x;
        if (strcmp(n, "twosided") == 0 && resign) {
            if (!parse_onoff(v, &cfg->resign.twosided))
                return err_fail(e, "-resign: twosided='%s' needs on or off", v);
            continue;
        }
        bool count = strcmp(n, "movecount") == 0, score = strcmp(n, "score") == 0;
        bool number = !resign && strcmp(n, "movenumber") == 0;
        if (!count && !score && !number)
            return err_fail(e, "-%s: unknown key '%s' (%s)", o, n,
                        resign ? "movecount, score, twosided" : "movenumber, movecount, score");
        if (!parse_int64(v, count ? 1 : 0, 1000000, &x))
            return err_fail(e, "-%s: %s='%s' needs an integer from %d", o, n, v, count ? 1 : 0);
        if (count) {
            have_count = true;
            *(resign ? &cfg->resign.movecount : &cfg->drawadj.movecount) = x;
        } else if (score) {
            have_score = true;
            *(resign ? &cfg->resign.score : &cfg->drawadj.score) = x;
        } else {
            cfg->drawadj.movenumber = x;
        }
    }
    if (!have_count || !have_score)
        return err_fail(e, "-%s needs movecount= and score=", o);
    *(resign ? &cfg->resign.on : &cfg->drawadj.on) = true;
    return true;
}

static bool parse_timeouts(const kvlist_t *l, config_t *cfg, err_t *e)
{
    for (int k = 0; k < l->n; k++) {
        const char *n = l->kv[k].name;
        int64_t *dst = strcmp(n, "init") == 0    ? &cfg->init_timeout_ms
                       : strcmp(n, "ready") == 0 ? &cfg->ready_timeout_ms
                       : strcmp(n, "stall") == 0 ? &cfg->stall_timeout_ms
                       : strcmp(n, "quit") == 0  ? &cfg->quit_timeout_ms
                                                 : NULL;
        if (!dst)
            return err_fail(e, "-timeouts: unknown key '%s' (init, ready, stall, quit)", n);
        if (!parse_int64(l->kv[k].value, 1, 24LL * 3600 * 1000, dst))
            return err_fail(e, "-timeouts: %s='%s' needs milliseconds from 1", n, l->kv[k].value);
    }
    return true;
}

static void defaults(config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->format = FORMAT_MATCH;
    cfg->rounds = 0;
    cfg->rule = REP_FORBID;
    cfg->concurrency = 1;
    cfg->init_timeout_ms = 10000;
    cfg->ready_timeout_ms = 5000;
    cfg->stall_timeout_ms = 60000;
    cfg->quit_timeout_ms = 1000;
    cfg->max_failures = 3;
    cfg->progress_every = 10;
    cfg->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
}

/* What the words of the command line gather before the engines are built. */
typedef struct {
    kvlist_t each, openings;
    kvlist_t *engines;
    int engines_nb;
    bool format_given;
} gather_t;

static bool add_engine(int argc, char **argv, int *i, gather_t *g, err_t *e)
{
    if (g->engines_nb == MAX_ENGINES)
        return err_fail(e, "at most %d engines", MAX_ENGINES);
    kvlist_t *n = realloc(g->engines, (size_t)(g->engines_nb + 1) * sizeof *n);
    if (!n)
        return err_fail(e, "out of memory");
    g->engines = n;
    memset(&g->engines[g->engines_nb], 0, sizeof *g->engines);
    return collect_kv(argc, argv, i, &g->engines[g->engines_nb++], e);
}

static bool is_limit_shorthand(const char *o)
{
    static const char *const KEYS[] = {"tc", "st", "movetime", "depth", "nodes", "margin", "timemargin"};
    for (size_t k = 0; k < sizeof KEYS / sizeof KEYS[0]; k++)
        if (strcmp(o, KEYS[k]) == 0)
            return true;
    return false;
}

/* The string option o names, or NULL. */
static char **string_option(config_t *cfg, const char *o)
{
    return strcmp(o, "records") == 0 ? &cfg->records_file
           : strcmp(o, "json") == 0  ? &cfg->json_file
           : strcmp(o, "pgnout") == 0 ? &cfg->pgn_file
           : strcmp(o, "log") == 0   ? &cfg->log_file
           : strcmp(o, "event") == 0 ? &cfg->event
           : strcmp(o, "check") == 0 ? &cfg->check_file
           : strcmp(o, "tb") == 0    ? &cfg->tb_dir
                                     : NULL;
}

static bool parse_tournament(const char *v, config_t *cfg, err_t *e)
{
    if (strcmp(v, "match") == 0)
        cfg->format = FORMAT_MATCH;
    else if (strcmp(v, "roundrobin") == 0 || strcmp(v, "round-robin") == 0)
        cfg->format = FORMAT_ROUNDROBIN;
    else if (strcmp(v, "gauntlet") == 0)
        cfg->format = FORMAT_GAUNTLET;
    else
        return err_fail(e, "-tournament must be match, roundrobin or gauntlet, got '%s'", v);
    return true;
}

static bool parse_seed(const char *v, config_t *cfg, err_t *e)
{
    /* strtoull skips spaces, negates a '-' and saturates: only digits (decimal, 0x hex or 0
     * octal) within 64 bits are a seed. */
    char *end = NULL;
    errno = 0;
    unsigned long long s = v[0] >= '0' && v[0] <= '9' ? strtoull(v, &end, 0) : 0;
    if (!end || end == v || *end || errno == ERANGE)
        return err_fail(e, "-seed needs an integer from 0 to %llu, got '%s'", (unsigned long long)UINT64_MAX, v);
    cfg->seed = s;
    return true;
}

static bool int_value(const char *o, const char *v, int64_t lo, int64_t hi, int64_t *out, err_t *e)
{
    if (!parse_int64(v, lo, hi, out))
        return err_fail(e, "-%s needs an integer from %lld to %lld, got '%s'", o, (long long)lo, (long long)hi, v);
    return true;
}

static bool is_valued(const char *o)
{
    static const char *const KEYS[] = {"tournament", "seed", "repetition", "rounds", "games", "maxmoves",
                                       "progress", "concurrency", "maxfailures"};
    for (size_t k = 0; k < sizeof KEYS / sizeof KEYS[0]; k++)
        if (strcmp(o, KEYS[k]) == 0)
            return true;
    return false;
}

/* Options with one value. */
static bool parse_valued(int argc, char **argv, int *i, const char *o, gather_t *g, config_t *cfg, err_t *e)
{
    char **str = string_option(cfg, o);
    if (!str && !is_limit_shorthand(o) && !is_valued(o))
        return err_fail(e, "unknown option '%s' (see --help)", argv[*i]);
    const char *v = need_value(argc, argv, i, o, e);
    int64_t x = 0;
    if (!v)
        return false;
    if (str) {
        if (!*v)
            return err_fail(e, "-%s needs a non-empty value", o);
        char what[64];
        const char *unfit = str == &cfg->event ? unfit_text(v, what, sizeof what) : NULL;
        if (unfit)
            return err_fail(e, "-event holds %s: the event must be UTF-8 without quotes, backslashes or control characters",
                        unfit);
        return set_string(str, v, e);
    }
    if (is_limit_shorthand(o)) {
        char word[256];
        if (snprintf(word, sizeof word, "%s=%s", o, v) >= (int)sizeof word)
            return err_fail(e, "-%s: value too long", o);
        return kv_push(&g->each, word, e);
    }
    if (strcmp(o, "tournament") == 0) {
        g->format_given = true;
        return parse_tournament(v, cfg, e);
    }
    if (strcmp(o, "seed") == 0)
        return parse_seed(v, cfg, e);
    if (strcmp(o, "repetition") == 0) {
        if (strcasecmp(v, "forbid") != 0 && strcasecmp(v, "draw") != 0)
            return err_fail(e, "-repetition must be forbid or draw, got '%s'", v);
        cfg->rule = strcasecmp(v, "draw") == 0 ? REP_DRAW : REP_FORBID;
        return true;
    }
    if (strcmp(o, "rounds") == 0)
        return int_value(o, v, 1, INT32_MAX, &cfg->rounds, e);
    if (strcmp(o, "games") == 0) {
        bool ok = int_value(o, v, 1, INT32_MAX, &x, e);
        cfg->rounds = (x + 1) / 2;
        return ok;
    }
    if (strcmp(o, "maxmoves") == 0)
        return int_value(o, v, 0, INT32_MAX, &cfg->maxmoves, e);
    if (strcmp(o, "progress") == 0)
        return int_value(o, v, 0, INT32_MAX, &cfg->progress_every, e);
    if (strcmp(o, "concurrency") == 0 && strcmp(v, "auto") == 0) {
        /* Two engines per game, each needing a core while it thinks. */
        int cores = cli_cores();
        cfg->concurrency = cores / 2 > 0 ? cores / 2 : 1;
        cfg->concurrency_auto = true;
        return true;
    }
    bool ok = strcmp(o, "concurrency") == 0 ? int_value(o, v, 1, MAX_CONCURRENCY, &x, e)
                                            : int_value(o, v, 1, 1000000, &x, e);
    if (strcmp(o, "concurrency") == 0)
        cfg->concurrency_auto = false;
    if (strcmp(o, "concurrency") == 0)
        cfg->concurrency = (int)x;
    else
        cfg->max_failures = (int)x;
    return ok;
}

static bool parse_word(int argc, char **argv, int *i, gather_t *g, config_t *cfg, err_t *e)
{
    const char *a = argv[*i];
    if (a[0] != '-' || !a[1])
        return err_fail(e, "unexpected '%s' (options start with '-')", a);
    const char *o = a + 1 + (a[1] == '-');
    kvlist_t scratch = {0};
    bool ok;
    if (strcmp(o, "engine") == 0)
        return add_engine(argc, argv, i, g, e);
    if (strcmp(o, "each") == 0)
        return collect_kv(argc, argv, i, &g->each, e);
    if (strcmp(o, "openings") == 0)
        return collect_kv(argc, argv, i, &g->openings, e);
    if (strcmp(o, "resign") == 0 || strcmp(o, "draw") == 0) {
        ok = collect_kv(argc, argv, i, &scratch, e) && parse_score_adj(o, &scratch, cfg, e);
        kv_free(&scratch);
        return ok;
    }
    if (strcmp(o, "sprt") == 0 || strcmp(o, "timeouts") == 0) {
        ok = collect_kv(argc, argv, i, &scratch, e) &&
             (o[0] == 's' ? parse_sprt(&scratch, cfg, e) : parse_timeouts(&scratch, cfg, e));
        kv_free(&scratch);
        return ok;
    }
    if (strcmp(o, "verbose") == 0 || strcmp(o, "v") == 0)
        return cfg->verbose = true;
    if (strcmp(o, "resume") == 0)
        return cfg->resume = true;
    if (strcmp(o, "help") == 0 || strcmp(o, "h") == 0)
        return cfg->help = true;
    if (strcmp(o, "version") == 0)
        return cfg->version = true;
    return parse_valued(argc, argv, i, o, g, cfg, e);
}

/* Builds the engines and checks what only makes sense as a whole. */
static bool finish(gather_t *g, config_t *cfg, err_t *e)
{
    if (g->engines_nb < 2)
        return err_fail(e, "at least two -engine groups are needed");
    if (!(cfg->engines = calloc((size_t)g->engines_nb, sizeof *cfg->engines)))
        return err_fail(e, "out of memory");
    for (int k = 0; k < g->engines_nb; k++) {
        cfg->engines_nb = k + 1;
        if (!build_engine(&cfg->engines[k], &g->each, &g->engines[k], k, e))
            return false;
    }
    if (!unique_names(cfg, e) || !parse_openings(&g->openings, cfg, e))
        return false;
    if (!g->format_given)
        cfg->format = g->engines_nb == 2 ? FORMAT_MATCH : FORMAT_ROUNDROBIN;
    if (cfg->format == FORMAT_MATCH && g->engines_nb != 2)
        return err_fail(e, "-tournament match needs exactly two engines (got %d)", g->engines_nb);
    if (cfg->sprt.on && cfg->format != FORMAT_MATCH)
        return err_fail(e, "-sprt needs a two-engine match");
    /* No -tb under the draw rule: the standard folder's database, when it holds one. */
    char standard[TB_PATH_MAX];
    if (cfg->tb_dir && (!cfg->tb_dir[0] || strcasecmp(cfg->tb_dir, "<empty>") == 0)) {
        free(cfg->tb_dir);
        cfg->tb_dir = NULL;
    } else if (!cfg->tb_dir && cfg->rule == REP_DRAW && tb_default_dir(standard, sizeof standard) &&
               tb_dir_has_database(standard) && !(cfg->tb_dir = strdup(standard))) {
        return err_fail(e, "out of memory");
    }
    if (cfg->tb_dir) {
        struct stat st;
        if (stat(cfg->tb_dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return err_fail(e, "-tb: '%s' is not a directory", cfg->tb_dir);
    }
    if (cfg->resume && !cfg->records_file)
        return err_fail(e, "-resume continues the run of a -records file: give -records");
    if (cfg->rounds == 0)
        cfg->rounds = cfg->sprt.on ? 50000 : 1;
    return true;
}

bool cli_parse(int argc, char **argv, config_t *cfg, char *msg, size_t msglen)
{
    err_t e = {msg, msglen, false};
    defaults(cfg);
    gather_t g;
    memset(&g, 0, sizeof g);
    bool ok = true;
    for (int i = 1; i < argc && ok; i++)
        ok = parse_word(argc, argv, &i, &g, cfg, &e);
    if (ok && !cfg->help && !cfg->version && !cfg->check_file)
        ok = finish(&g, cfg, &e);
    kv_free(&g.each);
    kv_free(&g.openings);
    for (int k = 0; k < g.engines_nb; k++)
        kv_free(&g.engines[k]);
    free(g.engines);
    return ok;
}

void cli_free(config_t *cfg)
{
    for (int k = 0; k < cfg->engines_nb; k++)
        engine_free(&cfg->engines[k]);
    free(cfg->engines);
    free(cfg->openings_file);
    free(cfg->tb_dir);
    free(cfg->records_file);
    free(cfg->json_file);
    free(cfg->pgn_file);
    free(cfg->log_file);
    free(cfg->event);
    free(cfg->check_file);
    memset(cfg, 0, sizeof *cfg);
}

const char *format_name(format_t f)
{
    return f == FORMAT_MATCH ? "match" : f == FORMAT_ROUNDROBIN ? "roundrobin" : "gauntlet";
}

const char *rule_name(rep_rule_t r) { return r == REP_DRAW ? "draw" : "forbid"; }

static void add_seconds(char *buf, size_t len, size_t *n, int64_t ms)
{
    if (*n >= len)
        return;
    if (ms % 1000 == 0)
        *n += (size_t)snprintf(buf + *n, len - *n, "%lld", (long long)(ms / 1000));
    else {
        char t[32];
        snprintf(t, sizeof t, "%.3f", (double)ms / 1000.0);
        /* Trailing zeros say nothing. */
        size_t k = strlen(t);
        while (k > 0 && t[k - 1] == '0')
            t[--k] = '\0';
        *n += (size_t)snprintf(buf + *n, len - *n, "%s", t);
    }
}

void limits_describe(const engine_conf_t *e, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
#define SEP() (n > 0 && n < len ? (n += (size_t)snprintf(buf + n, len - n, " ")) : 0)
    if (e->has_tc) {
        n += (size_t)snprintf(buf + n, len - n, "tc=");
        if (e->tc.moves && n < len)
            n += (size_t)snprintf(buf + n, len - n, "%d/", e->tc.moves);
        add_seconds(buf, len, &n, e->tc.base_ms);
        if (e->tc.inc_ms && n < len) {
            n += (size_t)snprintf(buf + n, len - n, "+");
            add_seconds(buf, len, &n, e->tc.inc_ms);
        }
    }
    if (e->movetime_ms && n < len) {
        SEP();
        if (n < len)
            n += (size_t)snprintf(buf + n, len - n, "movetime=%lld", (long long)e->movetime_ms);
    }
    if (e->depth && n < len) {
        SEP();
        if (n < len)
            n += (size_t)snprintf(buf + n, len - n, "depth=%d", e->depth);
    }
    if (e->nodes && n < len) {
        SEP();
        if (n < len)
            n += (size_t)snprintf(buf + n, len - n, "nodes=%lld", (long long)e->nodes);
    }
    if (e->margin_ms && n < len) {
        SEP();
        if (n < len)
            snprintf(buf + n, len - n, "margin=%lld", (long long)e->margin_ms);
    }
#undef SEP
}

/* One "; setting KEY: VALUE" line; control characters would break the line, so they
 * become '?'. */
static void setting(sbuf_t *b, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void setting(sbuf_t *b, const char *key, const char *fmt, ...)
{
    char value[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    for (char *p = value; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    sb_addf(b, "; setting %s: %s\n", key, value);
}

char *cli_settings(const config_t *cfg)
{
    sbuf_t b = {0};
    setting(&b, "tournament", "%s", format_name(cfg->format));
    if (cfg->openings_file)
        setting(&b, "openings", "file=%s order=%s start=%lld", cfg->openings_file,
                cfg->openings_shuffle ? "random" : "sequential", (long long)cfg->openings_start + 1);
    else if (cfg->startpos_every)
        setting(&b, "openings", "random=%d startpos=%lld", cfg->random_plies, (long long)cfg->startpos_every);
    else
        setting(&b, "openings", "random=%d", cfg->random_plies);
    /* The seed decides only shuffled and generated openings. */
    if (cfg->openings_file ? cfg->openings_shuffle : cfg->random_plies > 0)
        setting(&b, "seed", "%llu", (unsigned long long)cfg->seed);
    else
        setting(&b, "seed", "unused");
    setting(&b, "repetition", "%s", rule_name(cfg->rule));
    setting(&b, "maxmoves", "%lld", (long long)cfg->maxmoves);
    setting(&b, "tb", "%s", cfg->tb_dir ? cfg->tb_dir : "off");
    if (cfg->resign.on)
        setting(&b, "resign", "movecount=%lld score=%lld twosided=%s", (long long)cfg->resign.movecount,
                (long long)cfg->resign.score, cfg->resign.twosided ? "on" : "off");
    else
        setting(&b, "resign", "off");
    if (cfg->drawadj.on)
        setting(&b, "draw", "movenumber=%lld movecount=%lld score=%lld", (long long)cfg->drawadj.movenumber,
                (long long)cfg->drawadj.movecount, (long long)cfg->drawadj.score);
    else
        setting(&b, "draw", "off");
    if (cfg->sprt.on)
        setting(&b, "sprt", "elo0=%g elo1=%g alpha=%g beta=%g stats=%s", cfg->sprt.elo0, cfg->sprt.elo1,
                cfg->sprt.alpha, cfg->sprt.beta, cfg->sprt.trinomial ? "trinomial" : "pentanomial");
    else
        setting(&b, "sprt", "off");
    setting(&b, "timeouts", "init=%lld ready=%lld stall=%lld quit=%lld", (long long)cfg->init_timeout_ms,
            (long long)cfg->ready_timeout_ms, (long long)cfg->stall_timeout_ms, (long long)cfg->quit_timeout_ms);
    setting(&b, "maxfailures", "%d", cfg->max_failures);
    setting(&b, "event", "%s", cfg->event ? cfg->event : "baghchal-referee");
    setting(&b, "engines", "%d", cfg->engines_nb);
    for (int k = 0; k < cfg->engines_nb; k++) {
        const engine_conf_t *e = &cfg->engines[k];
        char key[64], lim[256];
        snprintf(key, sizeof key, "engine %d name", k + 1);
        setting(&b, key, "%s", e->name);
        sbuf_t cmd = {0};
        for (char **a = e->argv; *a; a++) {
            if (a != e->argv)
                sb_add(&cmd, " ");
            bool plain = **a && !strpbrk(*a, " \t\"'");
            sb_addf(&cmd, plain ? "%s" : "'%s'", *a);
        }
        snprintf(key, sizeof key, "engine %d command", k + 1);
        setting(&b, key, "%s", cmd.s ? cmd.s : "");
        if (cmd.failed)
            b.failed = true;
        sb_free(&cmd);
        snprintf(key, sizeof key, "engine %d dir", k + 1);
        setting(&b, key, "%s", e->dir ? e->dir : ".");
        limits_describe(e, lim, sizeof lim);
        snprintf(key, sizeof key, "engine %d limits", k + 1);
        setting(&b, key, "%s", lim);
        sbuf_t opts = {0};
        for (int i = 0; i < e->options_nb; i++)
            sb_addf(&opts, "%s%s=%s", i ? ", " : "", e->options[i].name, e->options[i].value);
        snprintf(key, sizeof key, "engine %d options", k + 1);
        setting(&b, key, "%s", opts.s ? opts.s : "none");
        if (opts.failed)
            b.failed = true;
        sb_free(&opts);
        snprintf(key, sizeof key, "engine %d restart", k + 1);
        setting(&b, key, "%s", e->restart ? "on" : "off");
    }
    return sb_take(&b);
}

void cli_usage(void)
{
    fputs("usage: baghchal-referee -engine cmd=PROGRAM [name=NAME] [key=value ...] -engine ... [options]\n"
          "       baghchal-referee --check RECORDS\n"
          "\n"
          "engine keys (also for -each, which applies to every engine):\n"
          "  cmd=PATH  name=NAME  args=\"WORDS\"  dir=DIR  option.NAME=VALUE  restart=on|off\n"
          "  tc=[MOVES/]SECONDS[+INC]  st=SECONDS  movetime=MS  depth=N  nodes=N  timemargin=MS\n"
          "options:\n"
          "  -tournament match|roundrobin|gauntlet   -rounds N   -games N\n"
          "  -openings file=FILE [order=sequential|random] [start=N] | -openings random=PLIES [startpos=N]\n"
          "  -seed N   -repetition forbid|draw   -maxmoves PLIES   -tb DIR   -concurrency N|auto\n"
          "  -sprt elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05] [stats=pentanomial|trinomial]   -maxfailures N\n"
          "  -timeouts [init=MS] [ready=MS] [stall=MS] [quit=MS]\n"
          "  -resign movecount=N score=CP [twosided=on|off]   -draw movenumber=N movecount=N score=CP\n"
          "  -tc ..  -st ..  -movetime ..  -depth ..  -nodes ..  -margin MS   (shorthands for -each)\n"
          "  -records FILE   -pgnout FILE   -json FILE   -log FILE   -event NAME   -progress N   -verbose\n"
          "  -resume   --check FILE   --help   --version\n"
          "See tools/referee/README.md for the details.\n",
          stdout);
}
