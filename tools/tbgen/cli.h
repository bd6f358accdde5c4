/* What the database tools share: exiting with a one-line reason, reading numbers from the
 * command line, and a seeded random sequence. */
#ifndef TBGEN_CLI_H
#define TBGEN_CLI_H

#include <stdint.h>

/* Set once by main: the name that starts every message. */
extern const char *cli_program;

/* Prints "<program>: <message>" and exits with status 2 (bad usage). */
void cli_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Prints "<program>: <message>" and exits with status 1: the input is missing or wrong. */
void cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* The value of option opt, a whole number from lo to hi, or cli_die. */
long long cli_int(const char *opt, const char *s, long long lo, long long hi);
/* splitmix64. */
uint64_t cli_rng_next(uint64_t *state);
/* The starting state of stream u of a seeded sample: a hash of both, so that no two streams
 * draw the same numbers (states a fixed step apart would: splitmix64 advances by that step). */
uint64_t cli_rng_stream(uint64_t seed, uint64_t u);

#endif
