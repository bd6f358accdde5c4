/* Shared command-line helpers of baghchal-tbgen, baghchal-tbverify, baghchal-tbprove and
 * baghchal-puzzles. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

const char *cli_program = "baghchal-tb";

static void vdie(int status, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0), noreturn));
static void vdie(int status, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", cli_program);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    exit(status);
}

void cli_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdie(2, fmt, ap);
}

void cli_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdie(1, fmt, ap);
}

long long cli_int(const char *opt, const char *s, long long lo, long long hi)
{
    char *end;
    if (!s)
        cli_die("%s needs a value", opt);
    /* Only an optional '-' and digits; strtoll saturates out-of-range text at LLONG_MIN or
     * LLONG_MAX, which must not pass for a number in range. */
    errno = 0;
    long long v = (s[0] == '-' || isdigit((unsigned char)s[0])) ? strtoll(s, &end, 10) : (end = (char *)s, 0);
    if (end == s || *end != '\0' || errno == ERANGE || v < lo || v > hi)
        cli_die("%s must be a number from %lld to %lld, not '%s'", opt, lo, hi, s);
    return v;
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t cli_rng_next(uint64_t *s) { return mix64(*s += 0x9E3779B97F4A7C15ull); }

uint64_t cli_rng_stream(uint64_t seed, uint64_t u) { return mix64(mix64(seed) ^ mix64(u + 0x632BE59BD9B4E019ull)); }
