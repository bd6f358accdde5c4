/* libFuzzer harness for the protocol: the input is a session, one command per line, fed
 * to uci_handle_line with output that is checked and discarded. Commands that would make
 * one input slow (deep perft, unbounded or deep searches, bench, big hash tables, many
 * threads) are skipped; a search that is started is waited for before the next line.
 * One uci_t serves every input (a new one costs its 64 MB table): before each input it is
 * put back to the start position with every option at the default its `uci` answer gives,
 * except Hash, kept at its minimum. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "uci.h"

enum {
    MAX_INPUT = 16384,
    MAX_WORDS = 64,
    MAX_PERFT_DEPTH = 3,
    MAX_SEARCH_DEPTH = 3,
    MAX_SEARCH_NODES = 5000,
    MAX_HASH_MB = 4,
    MAX_THREADS_FUZZ = 2
};

/* The protocol's word separators (uci.c splits on the same set). */
static const char SEPARATORS[] = " \t\r\n\v\f";

enum { MAX_OPTIONS = 64 };

/* Each option's `setoption` line back to its default, read from the `uci` answer. */
static char *reset_lines[MAX_OPTIONS];
static int reset_count;
static bool collecting;
static bool saw_readyok;

static void collect_option(const char *line)
{
    const char *name = strstr(line, "option name ");
    const char *type = strstr(line, " type ");
    if (name != line || !type || reset_count == MAX_OPTIONS)
        return;
    name += strlen("option name ");
    const char *def = strstr(type, " default ");
    if (!def || strncmp(type, " type button", 12) == 0)
        return;
    def += strlen(" default ");
    const char *end = def + strcspn(def, " ");
    int name_len = (int)(type - name), def_len = (int)(end - def);
    bool hash = name_len == 4 && strncasecmp(name, "Hash", 4) == 0;
    char buf[256];
    snprintf(buf, sizeof buf, "setoption name %.*s value %.*s", name_len, name, hash ? 1 : def_len,
             hash ? "1" : def);
    reset_lines[reset_count++] = strdup(buf);
}

static void writer(void *ctx, const char *line)
{
    (void)ctx;
    if (strchr(line, '\n') || strlen(line) > 65536) {
        fprintf(stderr, "fuzz_protocol: output line with a line end or too long\n");
        abort();
    }
    if (collecting)
        collect_option(line);
    if (strcmp(line, "readyok") == 0)
        saw_readyok = true;
}

static uci_t *session(void)
{
    static uci_t *u;
    if (!u) {
        u = uci_new(writer, NULL);
        if (!u)
            abort();
        collecting = true;
        uci_handle_line(u, "uci");
        collecting = false;
        if (reset_count == 0) {
            fprintf(stderr, "fuzz_protocol: no options in the uci answer\n");
            abort();
        }
    }
    uci_handle_line(u, "stop");
    uci_wait(u);
    for (int i = 0; i < reset_count; i++)
        uci_handle_line(u, reset_lines[i]);
    uci_handle_line(u, "ucinewgame");
    return u;
}

/* Reads a number the way the protocol does; false when it is not one. */
static bool number(const char *s, long long *v)
{
    char *end;
    *v = strtoll(s, &end, 10);
    return end != s && *end == '\0';
}

/* Is the value after word i (if any) a number above max? */
static bool value_above(char **w, int n, int i, long long max)
{
    long long v;
    return i + 1 < n && number(w[i + 1], &v) && v > max;
}

static bool go_is_fast(char **w, int n, bool *search)
{
    *search = false;
    if (n >= 2 && strcasecmp(w[1], "perft") == 0)
        return !value_above(w, n, 1, MAX_PERFT_DEPTH);
    bool bounded = false;
    for (int i = 1; i < n; i++) {
        if (strcasecmp(w[i], "infinite") == 0 || strcasecmp(w[i], "ponder") == 0)
            return false;
        if (strcasecmp(w[i], "depth") == 0 || strcasecmp(w[i], "mate") == 0) {
            if (value_above(w, n, i, strcasecmp(w[i], "mate") == 0 ? 1 : MAX_SEARCH_DEPTH))
                return false;
            bounded = true;
        } else if (strcasecmp(w[i], "nodes") == 0) {
            if (value_above(w, n, i, MAX_SEARCH_NODES))
                return false;
            bounded = true;
        }
    }
    *search = true;
    return bounded;
}

static bool setoption_is_fast(char **w, int n)
{
    bool hash = false, threads = false;
    int i = 1;
    for (; i < n && strcasecmp(w[i], "value") != 0; i++) {
        hash |= strcasecmp(w[i], "hash") == 0;
        threads |= strcasecmp(w[i], "threads") == 0;
    }
    return !(hash && value_above(w, n, i, MAX_HASH_MB)) && !(threads && value_above(w, n, i, MAX_THREADS_FUZZ));
}

/* Decides whether a line is fed, and whether it may start a search. */
static bool line_is_fast(const char *line, bool *search)
{
    char buf[MAX_INPUT + 1], *w[MAX_WORDS], *save = NULL;
    int n = 0;
    *search = false;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *t = strtok_r(buf, SEPARATORS, &save); t; t = strtok_r(NULL, SEPARATORS, &save)) {
        if (n == MAX_WORDS)
            return strcmp(w[0], "go") != 0 && strcmp(w[0], "setoption") != 0 && strcmp(w[0], "bench") != 0;
        w[n++] = t;
    }
    if (n == 0)
        return true;
    if (strcmp(w[0], "bench") == 0)
        return false;
    if (strcmp(w[0], "go") == 0)
        return go_is_fast(w, n, search);
    if (strcmp(w[0], "setoption") == 0)
        return setoption_is_fast(w, n);
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    uci_t *u = session();
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        bool search;
        if (!line_is_fast(line, &search))
            continue;
        bool more = uci_handle_line(u, line);
        if (search)
            uci_wait(u);
        if (!more)
            break;
    }
    uci_handle_line(u, "stop");
    uci_wait(u);
    /* Whatever the input did, the session still answers. */
    saw_readyok = false;
    uci_handle_line(u, "isready");
    if (!saw_readyok) {
        fprintf(stderr, "fuzz_protocol: no readyok after the input\n");
        abort();
    }
    free(text);
    return 0;
}
