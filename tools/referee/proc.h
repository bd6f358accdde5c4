/* An engine process behind two pipes: started by a supervisor process of its own (which
 * kills everything the engine started when the referee is done with it, or is gone), read
 * line by line with deadlines on the monotonic clock, written without ever blocking, and
 * always reaped. Nothing here knows the protocol. */
#ifndef REFEREE_PROC_H
#define REFEREE_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Microseconds on the monotonic clock. */
int64_t now_us(void);

typedef enum {
    PROC_LINE = 0, /* a line was read */
    PROC_TIMEOUT,  /* the deadline passed first */
    PROC_EOF,      /* the child closed its output and every line was read */
    PROC_WAKE,     /* the wake descriptor became readable (the run is stopping) */
    PROC_ERROR     /* a system call failed or memory ran out */
} proc_status_t;

/* How a process ended. */
typedef struct {
    bool ended;     /* it has exited (the fields below are valid) */
    bool signaled;  /* ended by a signal */
    int code;       /* exit status or signal number */
    bool killed;    /* we killed it */
} proc_exit_t;

typedef struct {
    pid_t pid;    /* the engine (also its process group id); 0 when no process */
    pid_t sup;    /* its supervisor, the referee's child; 0 when none */
    int to_fd;    /* the engine's standard input */
    int from_fd;  /* the engine's standard output */
    int ctl_fd;   /* closed to have the supervisor kill the engine's tree and exit */
    int exit_fd;  /* the supervisor's status pipe: the engine's wait status once it has exited */
    int log_fd;   /* protocol log (-1: none) */
    const char *name;
    char *buf;    /* unread output is buf[start .. start + len) */
    size_t start, len, cap, scanned;
    bool eof;     /* no more output: closed, or the child has exited and all it wrote was read */
    int64_t read_at;  /* when the last chunk of output arrived */
    proc_exit_t exit;
} proc_t;

/* An empty proc (no process, no descriptors), safe to close. */
void proc_init(proc_t *p);

/* Starts argv[0] (a path) with argv in dir (NULL: the current directory), standard error
 * going to err_fd (-1: /dev/null). Returns 0, or -1 with a reason in msg. */
int proc_start(proc_t *p, char *const argv[], const char *dir, int err_fd, int log_fd, const char *name,
               char *msg, size_t msglen);

/* Reads one line (without its line end), waiting until deadline (an absolute now_us time;
 * INT64_MAX: no limit) or until wake_fd (-1: none) is readable. *line belongs to p and is
 * valid until the next call; *at is when it arrived. The child's exit ends its output at
 * once (PROC_EOF after what it wrote), even when a process it started holds the pipe. */
proc_status_t proc_read_line(proc_t *p, int64_t deadline, int wake_fd, char **line, int64_t *at);

/* Writes len bytes before deadline. Returns PROC_LINE when all was written, PROC_TIMEOUT,
 * PROC_WAKE, PROC_EOF (the child closed its input) or PROC_ERROR. Output of the child is
 * read meanwhile so that neither side can block the other. */
proc_status_t proc_write(proc_t *p, const char *data, size_t len, int64_t deadline, int wake_fd);

/* Waits until deadline for the engine to exit. */
bool proc_wait_exit(proc_t *p, int64_t deadline);

/* Has the supervisor kill the engine and every process it started (whatever group or
 * session they moved to), reaps the supervisor, closes the pipes. Safe to call on a stopped
 * or never started proc. */
void proc_close(proc_t *p);

/* Makes the processes that a supervisor dying before its engine leaves behind children of
 * the referee, so that proc_close kills and reaps them too (Linux; elsewhere nothing
 * happens). */
void proc_become_subreaper(void);

/* Writes a note to the protocol log, as "NAME(PID) = text". */
void proc_log_note(const proc_t *p, const char *text);
/* The errno of the first failed write to the protocol log, 0 when none failed. */
int proc_log_errno(void);

/* "exited with status 1", "killed by signal 11 (Segmentation fault)". */
void proc_describe_exit(const proc_exit_t *e, char *buf, size_t len);

#endif
