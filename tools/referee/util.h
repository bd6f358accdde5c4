/* Small shared pieces of the referee: growing strings, termination names, a seeded
 * random number generator and number parsing. */
#ifndef REFEREE_UTIL_H
#define REFEREE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growing string. After an allocation failure `failed` is set and later additions are
 * ignored, so a caller checks once at the end. */
typedef struct {
    char *s;
    size_t len, cap;
    bool failed;
} sbuf_t;

void sb_add(sbuf_t *b, const char *s);
void sb_addn(sbuf_t *b, const char *s, size_t n);
void sb_addf(sbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adds s as a JSON string literal, quotes included. */
void sb_add_json(sbuf_t *b, const char *s);
void sb_free(sbuf_t *b);
/* Hands the text over (the caller frees it); NULL after a failure. */
char *sb_take(sbuf_t *b);

/* How a game ended. The order is the order of the report. */
typedef enum {
    TERM_NONE = 0,
    TERM_FIVE_CAPTURED,
    TERM_TIGERS_TRAPPED,
    TERM_GOATS_STUCK,
    TERM_REPETITION,
    TERM_MOVE_LIMIT,
    TERM_DATABASE,
    TERM_SCORE,
    TERM_TIME_FORFEIT,
    TERM_ILLEGAL_MOVE,
    TERM_CRASH,
    TERM_STALL,
    TERM_DISCONNECT,
    TERM_PROTOCOL,
    TERM_COUNT
} term_t;

/* "five goats captured", as written in records and reports. */
const char *term_name(term_t t);
/* "five_goats_captured", the JSON key. */
const char *term_key(term_t t);
/* The termination named by name (term_name form); TERM_NONE if none. */
term_t term_parse(const char *name);
/* Is t a fault of an engine (time, illegal move, crash, stall, disconnect, protocol)? */
bool term_is_fault(term_t t);

/* splitmix64: a seeded, reproducible stream. */
uint64_t rng_next(uint64_t *state);
/* A value in [0, n). */
uint32_t rng_below(uint64_t *state, uint32_t n);

/* Whole-string number parsing with range checks. */
/* A command line's first failure: its reason, written into the caller's buffer. */
typedef struct {
    char *msg;
    size_t msglen;
    bool failed;
} err_t;

/* Writes the reason of the first failure only; returns false, for `return err_fail(...)`. */
bool err_fail(err_t *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Control characters become '?': a reason that quotes what was given stays one line. */
void one_line(char *msg);

/* The executable for an engine's command: as given when it has a '/' (relative to dir when
 * dir is given, since the engine starts there), else searched in PATH. NULL with the reason
 * (naming the setting as `what`, e.g. "--engine") in e. */
char *find_program(const char *cmd, const char *dir, const char *what, err_t *e);

bool parse_int64(const char *s, int64_t lo, int64_t hi, int64_t *out);
bool parse_double(const char *s, double *out);
/* Seconds with decimals ("0.5", "10") to milliseconds, >= 0. */
bool parse_seconds_ms(const char *s, int64_t *ms);

char *xstrdup(const char *s);

#endif
