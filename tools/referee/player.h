/* One engine process spoken to in the protocol: the uci handshake and options, new games,
 * go/bestmove with a deadline, resynchronising after an unanswered search, and quitting.
 * Every wait is bounded; a failure comes back as a fault with a one-line description. */
#ifndef REFEREE_PLAYER_H
#define REFEREE_PLAYER_H

#include <stdatomic.h>

#include "cli.h"
#include "proc.h"

typedef enum {
    FAULT_NONE = 0,
    FAULT_CRASH,      /* the process died by a signal or with a non-zero status */
    FAULT_DISCONNECT, /* it closed its output or exited with status 0 */
    FAULT_STALL,      /* no answer in time to uci / isready, or input not taken */
    FAULT_TIMEOUT,    /* no bestmove before the deadline of a go */
    FAULT_PROTOCOL,   /* a line the protocol forbids: a second bestmove for one go */
    FAULT_ABORT,      /* the run is stopping */
    FAULT_INTERNAL    /* the referee itself failed (out of memory, a system call) */
} fault_t;

/* What every player of a run shares (read only). */
typedef struct {
    int64_t init_us, ready_us, quit_us;
    rep_rule_t rule;
    int wake_fd;               /* readable once the run stops */
    const atomic_bool *stop;   /* set when the run stops */
    int log_fd;                /* protocol log, -1: none; also the engines' standard error */
} player_env_t;

typedef struct {
    const engine_conf_t *conf;
    int engine; /* index in the configuration, -1: none */
    proc_t proc;
    bool running;
    bool in_sync; /* false after a go without bestmove: stop + isready is owed */
    bool searching; /* a go is out and its bestmove has not arrived */
    bool died;      /* its last process failed and had to be killed (or died) */
    char detail[320];
} player_t;

void player_init(player_t *pl);
/* Starts the engine and completes uci, the options, the Repetition rule and isready. */
fault_t player_start(player_t *pl, const engine_conf_t *conf, int engine, const player_env_t *env);
/* ucinewgame, then isready answered within the ready timeout. */
fault_t player_new_game(player_t *pl, const player_env_t *env);
/* What one go brought back. */
typedef struct {
    int64_t elapsed_us; /* charged: from just before the write of go to the arrival of bestmove */
    int64_t engine_ms;  /* the last "time" of its info lines, -1: none */
    bool has_score;
    int score;          /* the last "score" of its info lines, for the mover: cp (within +-1,000,000), or
                         * 30000 - N for mate N > 0, -30000 - N for mate N <= 0 (|N| <= 10,000) */
} go_result_t;

/* Sends cmds (position and go lines) and waits for bestmove until allowed_us after the
 * clock started, which is just before the write. Output left from earlier (a second
 * bestmove) is a protocol fault. On FAULT_NONE the move text is in move (possibly empty or
 * malformed). The charged and the engine's own time go to the log. */
fault_t player_go(player_t *pl, const char *cmds, size_t len, int64_t allowed_us, const player_env_t *env,
                  char *move, size_t movelen, go_result_t *res);
/* After an unanswered go: stop, its bestmove, then isready answered, each within the ready
 * timeout. A second bestmove before readyok is a protocol fault. */
fault_t player_resync(player_t *pl, const player_env_t *env);
/* quit, a bounded wait, then the process group is killed and reaped. */
void player_quit(player_t *pl, const player_env_t *env);
/* Kills and reaps at once. */
void player_kill(player_t *pl);

#endif
