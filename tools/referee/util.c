/* Growing strings, termination names, random numbers and number parsing. */
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool sb_reserve(sbuf_t *b, size_t more)
{
    if (b->failed)
        return false;
    if (b->len + more + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

void sb_addn(sbuf_t *b, const char *s, size_t n)
{
    if (!sb_reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void sb_add(sbuf_t *b, const char *s) { sb_addn(b, s, strlen(s)); }

void sb_addf(sbuf_t *b, const char *fmt, ...)
{
    char stack[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(stack, sizeof stack, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n < sizeof stack) {
        sb_addn(b, stack, (size_t)n);
        return;
    }
    if (!sb_reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void sb_add_json(sbuf_t *b, const char *s)
{
    sb_add(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char esc[2] = {'\\', (char)*p};
            sb_addn(b, esc, 2);
        } else if (*p < 0x20) {
            sb_addf(b, "\\u%04x", *p);
        } else {
            sb_addn(b, (const char *)p, 1);
        }
    }
    sb_add(b, "\"");
}

void sb_free(sbuf_t *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

char *sb_take(sbuf_t *b)
{
    if (b->failed || !sb_reserve(b, 0)) {
        sb_free(b);
        return NULL;
    }
    char *s = b->s;
    memset(b, 0, sizeof *b);
    return s;
}

static const char *const TERM_NAMES[TERM_COUNT] = {
    "none",          "five goats captured", "tigers trapped", "goats without a move",
    "repetition",    "move limit",          "database adjudication", "score adjudication",
    "time forfeit",  "illegal move",        "crash",          "stall",
    "disconnect",    "protocol fault",
};

static const char *const TERM_KEYS[TERM_COUNT] = {
    "none",         "five_goats_captured", "tigers_trapped", "goats_without_a_move",
    "repetition",   "move_limit",          "database",       "score",
    "time_forfeit", "illegal_move",        "crash",          "stall",
    "disconnect",   "protocol_fault",
};

const char *term_name(term_t t) { return t >= 0 && t < TERM_COUNT ? TERM_NAMES[t] : "?"; }
const char *term_key(term_t t) { return t >= 0 && t < TERM_COUNT ? TERM_KEYS[t] : "?"; }

term_t term_parse(const char *name)
{
    for (int t = 1; t < TERM_COUNT; t++)
        if (strcmp(name, TERM_NAMES[t]) == 0)
            return (term_t)t;
    return TERM_NONE;
}

bool term_is_fault(term_t t) { return t >= TERM_TIME_FORFEIT && t < TERM_COUNT; }

uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint32_t rng_below(uint64_t *state, uint32_t n)
{
    /* Multiply-shift: the bias is below 2^-32 for the small n used here. */
    return (uint32_t)(((rng_next(state) >> 32) * (uint64_t)n) >> 32);
}

bool err_fail(err_t *e, const char *fmt, ...)
{
    if (!e->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, e->msglen, fmt, ap);
        va_end(ap);
    }
    e->failed = true;
    return false;
}

void one_line(char *msg)
{
    for (char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

char *find_program(const char *cmd, const char *dir, const char *what, err_t *e)
{
    if (!*cmd) {
        err_fail(e, "%s is empty", what);
        return NULL;
    }
    char path[4096];
    struct stat st;
    if (strchr(cmd, '/')) {
        int n = dir && cmd[0] != '/' ? snprintf(path, sizeof path, "%s/%s", dir, cmd)
                                     : snprintf(path, sizeof path, "%s", cmd);
        if (n < 0 || (size_t)n >= sizeof path) {
            err_fail(e, "%s: path too long: %.200s...", what, cmd);
            return NULL;
        }
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, X_OK) != 0) {
            err_fail(e, "%s '%s' is not an executable file", what, path);
            return NULL;
        }
        char *r = xstrdup(cmd);
        if (!r)
            err_fail(e, "out of memory");
        return r;
    }
    const char *env = getenv("PATH");
    char *paths = xstrdup(env ? env : "/usr/local/bin:/usr/bin:/bin");
    if (!paths) {
        err_fail(e, "out of memory");
        return NULL;
    }
    char *save = NULL, *found = NULL;
    for (char *d = strtok_r(paths, ":", &save); d && !found && !e->failed; d = strtok_r(NULL, ":", &save)) {
        int n = snprintf(path, sizeof path, "%s/%s", *d ? d : ".", cmd);
        if (n > 0 && (size_t)n < sizeof path && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
            access(path, X_OK) == 0 && !(found = xstrdup(path)))
            err_fail(e, "out of memory");
    }
    free(paths);
    if (!found && !e->failed)
        err_fail(e, "%s '%s' not found in PATH", what, cmd);
    return found;
}

bool parse_int64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool parse_seconds_ms(const char *s, int64_t *ms)
{
    double v;
    if (!parse_double(s, &v) || v < 0 || v > 1e9)
        return false;
    *ms = (int64_t)llround(v * 1000.0);
    return true;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}
