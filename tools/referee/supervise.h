/* The supervisor of one engine (see supervise.c and the referee's README, "Processes"): a
 * child of the referee and a child subreaper, so every process the engine starts stays its
 * descendant, whatever process group or session it moves to. */
#ifndef REFEREE_SUPERVISE_H
#define REFEREE_SUPERVISE_H

#include <stdint.h>

/* What the supervisor and the engine tell the referee, written whole (far below PIPE_BUF):
 * on the report pipe the engine's pid, or why it could not be forked or run; on the status
 * pipe its wait status once it has exited. */
typedef struct {
    int32_t tag, value;
} sup_note_t;

enum { SUP_NOTE_PID = 'p', SUP_NOTE_FORK = 'f', SUP_NOTE_EXEC = 'e', SUP_NOTE_EXIT = 'x' };

/* The descriptors the supervisor works with; every other one is closed. */
typedef struct {
    int in_r, out_w, err_fd; /* the engine's standard input, output and error */
    int rep_w;               /* the report pipe: ends once the engine runs its program */
    int ctl_r;               /* ends (end of file) when the referee is done with the engine, or gone */
    int st_w;                /* the status pipe */
} sup_fds_t;

/* Runs in the referee's child, just forked: starts argv[0] with argv in dir (NULL: the
 * current directory) as its own child, in a process group of its own, reports on the
 * pipes, reaps what dies, and when ctl_r ends (the referee closed it, or died, even by
 * SIGKILL) kills the engine and every descendant, round after round until none is left
 * (at most about two seconds), then exits. */
_Noreturn void sup_main(char *const argv[], const char *dir, const sup_fds_t *f);

#endif
