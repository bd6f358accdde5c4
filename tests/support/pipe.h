/* Driving a child process over pipes from tests: start it, write lines to its standard
 * input, read its standard output line by line with millisecond timeouts, time the
 * waits, and make sure it ends and is reaped. */
#ifndef BAGHCHAL_TEST_PIPE_H
#define BAGHCHAL_TEST_PIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct pipe_proc pipe_proc_t;

typedef enum {
    PIPE_LINE = 0, /* a line was read */
    PIPE_TIMEOUT,  /* no (matching) line before the deadline */
    PIPE_EOF,      /* the child closed its standard output and every line was read */
    PIPE_ERROR     /* a system call failed (errno is set) */
} pipe_status_t;

/* pipe_start flags. By default the child's standard error goes to /dev/null. */
enum { PIPE_KEEP_STDERR = 1 };

/* How a child ended, as reported by pipe_wait and pipe_finish. */
typedef struct {
    bool exited;   /* ended through exit(): code holds its status */
    int code;      /* exit status when exited, else -1 */
    int signal;    /* the signal that ended it, 0 when it exited */
    bool killed;   /* it had not ended within the timeout and its process group was killed */
    double ms;     /* time the wait took, from its call (or from closing stdin) to the end */
} pipe_exit_t;

/* Lines collected by pipe_read_until. Start from `pipe_lines_t l = {0};`. */
typedef struct {
    char **line;
    size_t count, cap;
} pipe_lines_t;

void pipe_lines_free(pipe_lines_t *l);

/* Now on the monotonic clock, in milliseconds (fractional). Differences between two calls
 * are elapsed times unaffected by changes of the wall clock. */
double pipe_now_ms(void);

/* Starts argv[0] (searched in PATH when it has no '/') with argv, its standard input and
 * output connected to pipes, in a process group of its own. On Linux the child is killed
 * if the thread that started it dies, so a failed test leaves no stray process.
 * SIGPIPE is ignored in the calling process from then on, so writing to a child that has
 * exited fails with EPIPE instead of killing the test.
 * Returns NULL (errno set) when the pipes cannot be made or the program cannot be executed. */
pipe_proc_t *pipe_start(char *const argv[], unsigned flags);

/* The child's process id (also its process group id). */
pid_t pipe_pid(const pipe_proc_t *p);

/* Formats one line, appends '\n' and writes it. Returns 0, or -1 with errno set: EPIPE
 * when the child closed its input, ETIMEDOUT when the child did not take the bytes within
 * the send timeout, EBADF after pipe_close_stdin. While waiting to write, output of the
 * child is read into the line buffer so that neither side can block the other. */
int pipe_send(pipe_proc_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes len bytes as they are (no line end is added). Same results as pipe_send. */
int pipe_write(pipe_proc_t *p, const void *data, size_t len);

/* Longest time a send or write waits for the child to take its bytes (default 10000 ms). */
void pipe_set_send_timeout(pipe_proc_t *p, int ms);

/* Closes the child's standard input (it sees end of input). Safe to call twice. */
void pipe_close_stdin(pipe_proc_t *p);

/* Reads one line, waiting at most timeout_ms (0: only what is already available, < 0: no
 * limit). On PIPE_LINE *line points at the line without its '\n' (a '\r' before it is
 * kept, so a CRLF from the child is visible); the text belongs to p and stays valid until
 * the next read from p. Lines of any length are returned whole. A last line without '\n'
 * before end of output is returned as a line, then PIPE_EOF follows.
 * On any other status *line is set to NULL. */
pipe_status_t pipe_read_line(pipe_proc_t *p, int timeout_ms, char **line);

/* Reads lines until one starts with prefix ("" matches any line), all within timeout_ms in
 * total. The lines before it are appended (copied) to before, or discarded when before is
 * NULL; on a status other than PIPE_LINE the lines read so far are kept there too.
 * *line is as for pipe_read_line. */
pipe_status_t pipe_read_until(pipe_proc_t *p, const char *prefix, int timeout_ms,
                              pipe_lines_t *before, char **line);

/* Elapsed time of the last pipe_read_line / pipe_read_until call on p, in milliseconds. */
double pipe_wait_ms(const pipe_proc_t *p);
/* Monotonic time (pipe_now_ms) at which the last line returned by p arrived from the
 * child: when the read that brought its '\n' returned, which can be earlier than the call
 * that handed the line out. 0 before any line. */
double pipe_line_at(const pipe_proc_t *p);
/* Monotonic time at which the last pipe_send / pipe_write finished writing. 0 before any. */
double pipe_sent_at(const pipe_proc_t *p);

/* Waits up to timeout_ms (< 0: no limit) for the child to end, without touching its input,
 * keeping its remaining output readable with pipe_read_line. If it has not ended by then,
 * its process group is killed with SIGKILL and the result says killed. The child is always
 * reaped. Calling it again returns the same result. */
pipe_exit_t pipe_wait(pipe_proc_t *p, int timeout_ms);

/* pipe_close_stdin then pipe_wait; ms counts from closing the input. */
pipe_exit_t pipe_finish(pipe_proc_t *p, int timeout_ms);

/* Kills the process group if the child is still running, reaps it, closes the pipes and
 * frees p. NULL is allowed. */
void pipe_free(pipe_proc_t *p);

/* "line", "timeout", "eof" or "error", for messages. */
const char *pipe_status_name(pipe_status_t s);

#endif
