/* The referee's command line: engines, format, openings, limits, rules and outputs, checked
 * completely before anything starts. */
#ifndef REFEREE_CLI_H
#define REFEREE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"

/* A clock: base (+ inc per move), base again every `moves` moves when moves > 0. */
typedef struct {
    int moves;
    int64_t base_ms, inc_ms;
} tc_t;

typedef struct {
    char *name, *value;
} kv_t;

typedef struct {
    char *name;
    char **argv;  /* resolved command path, then the words of args=, NULL-terminated */
    char *dir;    /* working directory, NULL: the referee's */
    kv_t *options; /* setoption lines, in order */
    int options_nb;
    bool has_tc;
    tc_t tc;
    int64_t movetime_ms; /* 0: none */
    int depth;           /* 0: none */
    int64_t nodes;       /* 0: none */
    int64_t margin_ms;
    bool restart; /* a fresh process for every game */
} engine_conf_t;

typedef enum { FORMAT_MATCH, FORMAT_ROUNDROBIN, FORMAT_GAUNTLET } format_t;

typedef struct {
    bool on;
    double elo0, elo1, alpha, beta;
    bool trinomial; /* the SPRT over single games instead of pairs */
} sprt_conf_t;

/* cutechess-cli's score adjudication. */
typedef struct {
    bool on;
    int64_t movecount; /* consecutive moves of the engine */
    int64_t score;     /* centipawns */
    bool twosided;     /* the opponent must agree (its score at least +score) */
} resign_conf_t;

typedef struct {
    bool on;
    int64_t movenumber; /* full moves (goat + tiger) played at least */
    int64_t movecount;  /* consecutive moves of each engine */
    int64_t score;      /* centipawns from zero */
} drawadj_conf_t;

typedef struct {
    engine_conf_t *engines;
    int engines_nb;
    format_t format;
    int64_t rounds; /* opening pairs per pairing */

    char *openings_file;
    bool openings_shuffle;
    int64_t openings_start; /* 0-based */
    int random_plies;       /* generated openings when no file: plies from the start */
    int64_t startpos_every; /* generated openings: round r starts from the start position when r % this == 0 */

    uint64_t seed;
    rep_rule_t rule;
    int64_t maxmoves; /* plies played by the engines before a draw is adjudicated, 0: off */
    resign_conf_t resign;
    drawadj_conf_t drawadj;
    char *tb_dir;
    int concurrency;
    bool concurrency_auto; /* -concurrency auto: half the cores the referee may run on */
    sprt_conf_t sprt;
    int64_t init_timeout_ms, ready_timeout_ms, stall_timeout_ms, quit_timeout_ms;
    int max_failures;
    char *records_file, *json_file, *log_file, *pgn_file;
    char *event;
    int64_t progress_every;
    bool verbose;
    bool resume; /* -resume: continue the run the records file holds */

    char *check_file; /* --check: replay a record file and stop */
    bool help, version;
} config_t;

/* The cores the referee may run on. */
int cli_cores(void);
/* Parses argv into cfg. On error returns false with a one-line reason in msg. */
bool cli_parse(int argc, char **argv, config_t *cfg, char *msg, size_t msglen);
void cli_free(config_t *cfg);
void cli_usage(void);

const char *format_name(format_t f);
const char *rule_name(rep_rule_t r);
/* The settings that decide the games of a run (engines, their commands, options and limits,
 * openings and the seed when it draws them, rules, adjudication, SPRT, timeouts), one
 * "; setting KEY: VALUE" line each, for the head of the records: -resume refuses a run whose
 * settings differ, --check holds the games to them. Not among them: the number of rounds,
 * the concurrency and the outputs. NULL when out of memory. */
char *cli_settings(const config_t *cfg);

/* "tc=10+0.1 depth=4" and the like: the limits of one engine, as in records. */
void limits_describe(const engine_conf_t *e, char *buf, size_t len);

#endif
