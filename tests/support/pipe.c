/* A child process behind two pipes: line reading with deadlines on the monotonic clock,
 * writes that cannot deadlock against the child's output, and a guaranteed reap. */
#include "pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/prctl.h>
#endif

enum { READ_CHUNK = 4096, DEFAULT_SEND_TIMEOUT_MS = 10000, MAX_FD_TO_CLOSE = 4096 };

/* When the bytes up to (not including) absolute offset `end` of the output had arrived. */
typedef struct {
    uint64_t end;
    double at;
} stamp_t;

struct pipe_proc {
    pid_t pid;
    int in_fd;  /* our end of the child's standard input, -1 once closed */
    int out_fd; /* our end of the child's standard output */
    bool eof;

    char *buf;          /* unread output is buf[start .. start + len) */
    size_t start, len, cap;
    size_t scanned;     /* bytes from start known to hold no '\n' */
    uint64_t consumed;  /* absolute offset of buf[start] in the output */
    stamp_t *stamps;    /* arrival times of the reads not yet fully consumed, oldest first */
    size_t stamp_first, stamp_count, stamp_cap;

    int send_timeout_ms;
    double wait_ms, line_at, sent_at;

    bool reaped;
    pipe_exit_t exit;
};

double pipe_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

const char *pipe_status_name(pipe_status_t s)
{
    switch (s) {
    case PIPE_LINE:
        return "line";
    case PIPE_TIMEOUT:
        return "timeout";
    case PIPE_EOF:
        return "eof";
    default:
        return "error";
    }
}

void pipe_lines_free(pipe_lines_t *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->line[i]);
    free(l->line);
    l->line = NULL;
    l->count = l->cap = 0;
}

static int lines_push(pipe_lines_t *l, const char *s)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **v = realloc(l->line, cap * sizeof *v);
        if (!v)
            return -1;
        l->line = v;
        l->cap = cap;
    }
    char *copy = strdup(s);
    if (!copy)
        return -1;
    l->line[l->count++] = copy;
    return 0;
}

static int set_flag(int fd, int get, int set, int flag)
{
    int f = fcntl(fd, get);
    return f < 0 ? -1 : fcntl(fd, set, f | flag);
}

/* Milliseconds left until deadline, rounded up so that poll never wakes before it. */
static int ms_left(double deadline)
{
    double left = deadline - pipe_now_ms();
    if (left <= 0)
        return 0;
    return left >= (double)INT32_MAX ? INT32_MAX : (int)left + 1;
}

/* ---- output buffer ---- */

static int stamp_push(pipe_proc_t *p, uint64_t end, double at)
{
    if (p->stamp_count == p->stamp_cap) {
        if (p->stamp_first > 0) {
            memmove(p->stamps, p->stamps + p->stamp_first,
                    (p->stamp_count - p->stamp_first) * sizeof *p->stamps);
            p->stamp_count -= p->stamp_first;
            p->stamp_first = 0;
        }
        if (p->stamp_count == p->stamp_cap) {
            size_t cap = p->stamp_cap ? p->stamp_cap * 2 : 16;
            stamp_t *s = realloc(p->stamps, cap * sizeof *s);
            if (!s)
                return -1;
            p->stamps = s;
            p->stamp_cap = cap;
        }
    }
    p->stamps[p->stamp_count++] = (stamp_t){end, at};
    return 0;
}

/* The arrival time of the output byte at absolute offset off (no earlier byte is asked
 * for later, so the stamps before it are dropped). */
static double stamp_of(pipe_proc_t *p, uint64_t off)
{
    while (p->stamp_first + 1 < p->stamp_count && p->stamps[p->stamp_first].end <= off)
        p->stamp_first++;
    return p->stamp_first < p->stamp_count ? p->stamps[p->stamp_first].at : pipe_now_ms();
}

/* Makes room for one more chunk (and a terminator) after the unread bytes. */
static int buf_reserve(pipe_proc_t *p)
{
    if (p->start > 0) {
        memmove(p->buf, p->buf + p->start, p->len);
        p->start = 0;
    }
    if (p->cap - p->len < READ_CHUNK + 1) {
        size_t cap = p->cap ? p->cap : READ_CHUNK * 2;
        while (cap - p->len < READ_CHUNK + 1)
            cap *= 2;
        char *b = realloc(p->buf, cap);
        if (!b)
            return -1;
        p->buf = b;
        p->cap = cap;
    }
    return 0;
}

/* One read of whatever the child has written. Returns 1 on data or end of output,
 * 0 when nothing is available, -1 on error. */
static int read_chunk(pipe_proc_t *p)
{
    if (p->eof)
        return 1;
    if (buf_reserve(p) < 0)
        return -1;
    ssize_t n;
    do
        n = read(p->out_fd, p->buf + p->len, READ_CHUNK);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    if (n == 0) {
        p->eof = true;
        return 1;
    }
    double at = pipe_now_ms();
    p->len += (size_t)n;
    if (stamp_push(p, p->consumed + p->len, at) < 0)
        return -1;
    return 1;
}

/* Waits up to wait_ms (-1: no limit) for output, then reads it. Same results as read_chunk. */
static int pump(pipe_proc_t *p, int wait_ms)
{
    if (p->eof)
        return 1;
    struct pollfd pf = {.fd = p->out_fd, .events = POLLIN};
    int r;
    do
        r = poll(&pf, 1, wait_ms);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return -1;
    if (r == 0)
        return 0;
    return read_chunk(p);
}

/* Hands out the next complete line in the buffer, if there is one. */
static bool take_line(pipe_proc_t *p, char **line)
{
    char *s = p->buf + p->start;
    char *nl = p->len > p->scanned ? memchr(s + p->scanned, '\n', p->len - p->scanned) : NULL;
    if (!nl) {
        p->scanned = p->len;
        return false;
    }
    size_t n = (size_t)(nl - s);
    *nl = '\0';
    p->line_at = stamp_of(p, p->consumed + n);
    p->start += n + 1;
    p->len -= n + 1;
    p->consumed += n + 1;
    p->scanned = 0;
    *line = s;
    return true;
}

/* At end of output: the unterminated rest as a last line (buf_reserve left room for '\0'). */
static bool take_rest(pipe_proc_t *p, char **line)
{
    if (p->len == 0)
        return false;
    char *s = p->buf + p->start;
    s[p->len] = '\0';
    p->line_at = stamp_of(p, p->consumed + p->len - 1);
    p->consumed += p->len;
    p->start += p->len;
    p->len = 0;
    p->scanned = 0;
    *line = s;
    return true;
}

static pipe_status_t read_line_until(pipe_proc_t *p, double deadline, bool forever, char **line)
{
    bool polled = false;
    for (;;) {
        if (take_line(p, line))
            return PIPE_LINE;
        if (p->eof)
            return take_rest(p, line) ? PIPE_LINE : PIPE_EOF;
        int wait = forever ? -1 : ms_left(deadline);
        if (!forever && wait == 0 && polled)
            return PIPE_TIMEOUT;
        if (pump(p, wait) < 0)
            return PIPE_ERROR;
        polled = true;
    }
}

pipe_status_t pipe_read_line(pipe_proc_t *p, int timeout_ms, char **line)
{
    double t0 = pipe_now_ms();
    *line = NULL;
    pipe_status_t s = read_line_until(p, t0 + (timeout_ms > 0 ? timeout_ms : 0), timeout_ms < 0, line);
    if (s != PIPE_LINE)
        *line = NULL;
    p->wait_ms = pipe_now_ms() - t0;
    return s;
}

pipe_status_t pipe_read_until(pipe_proc_t *p, const char *prefix, int timeout_ms,
                              pipe_lines_t *before, char **line)
{
    double t0 = pipe_now_ms();
    double deadline = t0 + (timeout_ms > 0 ? timeout_ms : 0);
    size_t plen = strlen(prefix);
    pipe_status_t s;
    *line = NULL;
    while ((s = read_line_until(p, deadline, timeout_ms < 0, line)) == PIPE_LINE) {
        if (strncmp(*line, prefix, plen) == 0)
            break;
        if (before && lines_push(before, *line) < 0) {
            s = PIPE_ERROR;
            break;
        }
    }
    if (s != PIPE_LINE)
        *line = NULL;
    p->wait_ms = pipe_now_ms() - t0;
    return s;
}

double pipe_wait_ms(const pipe_proc_t *p) { return p->wait_ms; }
double pipe_line_at(const pipe_proc_t *p) { return p->line_at; }
double pipe_sent_at(const pipe_proc_t *p) { return p->sent_at; }
pid_t pipe_pid(const pipe_proc_t *p) { return p->pid; }

void pipe_set_send_timeout(pipe_proc_t *p, int ms) { p->send_timeout_ms = ms; }

/* ---- input ---- */

int pipe_write(pipe_proc_t *p, const void *data, size_t len)
{
    const char *s = data;
    double deadline = pipe_now_ms() + p->send_timeout_ms;
    if (p->in_fd < 0) {
        errno = EBADF;
        return -1;
    }
    /* Sent when the last bytes were written, stamped just before that write: the child may
     * read the line (and start its clock) the moment they are in, and a stamp taken after the
     * write returned is late by however long this process was descheduled in between. */
    double at = pipe_now_ms();
    while (len > 0) {
        at = pipe_now_ms();
        ssize_t n = write(p->in_fd, s, len);
        if (n > 0) {
            s += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return -1;
        /* The pipe is full: read the child's output meanwhile, as it may be waiting on us. */
        int wait = ms_left(deadline);
        if (wait == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd pf[2] = {{.fd = p->in_fd, .events = POLLOUT},
                               {.fd = p->eof ? -1 : p->out_fd, .events = POLLIN}};
        int r = poll(pf, 2, wait);
        if (r < 0 && errno != EINTR)
            return -1;
        if (r > 0 && (pf[1].revents & (POLLIN | POLLHUP)) && read_chunk(p) < 0)
            return -1;
    }
    p->sent_at = at;
    return 0;
}

int pipe_send(pipe_proc_t *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    char *line = malloc((size_t)n + 2);
    if (!line)
        return -1;
    va_start(ap, fmt);
    vsnprintf(line, (size_t)n + 1, fmt, ap);
    va_end(ap);
    line[n] = '\n';
    int r = pipe_write(p, line, (size_t)n + 1);
    int e = errno;
    free(line);
    errno = e;
    return r;
}

void pipe_close_stdin(pipe_proc_t *p)
{
    if (p->in_fd >= 0) {
        close(p->in_fd);
        p->in_fd = -1;
    }
}

/* ---- start and end ---- */

static void child_exec(char *const argv[], int in_r, int out_w, int err_fd, int report_w, long max_fd,
                       pid_t parent)
{
    setpgid(0, 0);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
#else
    (void)parent;
#endif
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGPIPE, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    if (dup2(in_r, 0) < 0 || dup2(out_w, 1) < 0 || (err_fd >= 0 && dup2(err_fd, 2) < 0))
        goto fail;
    for (long fd = 3; fd < max_fd; fd++)
        if (fd != report_w)
            close((int)fd);
    execvp(argv[0], argv);
fail:;
    int e = errno;
    ssize_t w = write(report_w, &e, sizeof e);
    (void)w;
    _exit(127);
}

static void close_all(int *fds, int n)
{
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* The pipes must not land on 0, 1 or 2, where the child's dup2 would misplace them. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (n >= 0 && n != fd)
                close(n);
        }
}

pipe_proc_t *pipe_start(char *const argv[], unsigned flags)
{
    ensure_std_fds();
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, NULL);

    pipe_proc_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    /* in, out, report (exec failure), /dev/null */
    int fds[7] = {-1, -1, -1, -1, -1, -1, -1};
    if (pipe(fds) < 0 || pipe(fds + 2) < 0 || pipe(fds + 4) < 0)
        goto fail;
    if (!(flags & PIPE_KEEP_STDERR) && (fds[6] = open("/dev/null", O_WRONLY)) < 0)
        goto fail;
    for (int i = 0; i < 7; i++)
        if (fds[i] >= 0 && set_flag(fds[i], F_GETFD, F_SETFD, FD_CLOEXEC) < 0)
            goto fail;
    if (set_flag(fds[1], F_GETFL, F_SETFL, O_NONBLOCK) < 0 || set_flag(fds[2], F_GETFL, F_SETFL, O_NONBLOCK) < 0)
        goto fail;

    long max_fd = sysconf(_SC_OPEN_MAX);
    if (max_fd < 0 || max_fd > MAX_FD_TO_CLOSE)
        max_fd = MAX_FD_TO_CLOSE;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        goto fail;
    if (pid == 0)
        child_exec(argv, fds[0], fds[3], fds[6], fds[5], max_fd, parent);

    setpgid(pid, pid); /* also done by the child: whichever runs first wins the race */
    close(fds[0]);
    close(fds[3]);
    close(fds[5]);
    if (fds[6] >= 0)
        close(fds[6]);
    fds[0] = fds[3] = fds[5] = fds[6] = -1;

    int child_errno;
    ssize_t n;
    do
        n = read(fds[4], &child_errno, sizeof child_errno);
    while (n < 0 && errno == EINTR);
    close(fds[4]);
    fds[4] = -1;
    if (n == (ssize_t)sizeof child_errno) {
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        close_all(fds, 7);
        free(p);
        errno = child_errno;
        return NULL;
    }

    p->pid = pid;
    p->in_fd = fds[1];
    p->out_fd = fds[2];
    p->send_timeout_ms = DEFAULT_SEND_TIMEOUT_MS;
    return p;

fail:;
    int e = errno;
    close_all(fds, 7);
    free(p);
    errno = e;
    return NULL;
}

static void record_exit(pipe_proc_t *p, int st, bool killed, double ms)
{
    p->reaped = true;
    p->exit.exited = WIFEXITED(st);
    p->exit.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    p->exit.signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    p->exit.killed = killed;
    p->exit.ms = ms;
}

static void kill_and_reap(pipe_proc_t *p, double t0)
{
    kill(-p->pid, SIGKILL);
    kill(p->pid, SIGKILL); /* in case the process group was never set up */
    int st = 0;
    pid_t r;
    while ((r = waitpid(p->pid, &st, 0)) < 0 && errno == EINTR)
        ;
    record_exit(p, r == p->pid ? st : 0, true, pipe_now_ms() - t0);
}

pipe_exit_t pipe_wait(pipe_proc_t *p, int timeout_ms)
{
    double t0 = pipe_now_ms();
    double deadline = t0 + (timeout_ms > 0 ? timeout_ms : 0);
    while (!p->reaped) {
        int st;
        pid_t r = waitpid(p->pid, &st, WNOHANG);
        if (r == p->pid) {
            record_exit(p, st, false, pipe_now_ms() - t0);
            break;
        }
        if (r < 0 && errno != EINTR) {
            /* Reaped elsewhere: nothing is known about how it ended. */
            p->reaped = true;
            p->exit = (pipe_exit_t){false, -1, 0, false, pipe_now_ms() - t0};
            break;
        }
        int left = ms_left(deadline);
        if (timeout_ms >= 0 && left == 0) {
            kill_and_reap(p, t0);
            break;
        }
        /* A child is only noticed by polling waitpid: keep the step short for precise
         * timings, and keep reading its output so that it never blocks on a full pipe. */
        if (p->eof || pump(p, 1) < 0) {
            struct timespec step = {0, 200000};
            nanosleep(&step, NULL);
        }
    }
    return p->exit;
}

pipe_exit_t pipe_finish(pipe_proc_t *p, int timeout_ms)
{
    pipe_close_stdin(p);
    if (p->reaped)
        return p->exit;
    double t0 = pipe_now_ms();
    pipe_exit_t e = pipe_wait(p, timeout_ms);
    p->exit.ms = e.ms = pipe_now_ms() - t0;
    return e;
}

void pipe_free(pipe_proc_t *p)
{
    if (!p)
        return;
    if (!p->reaped)
        kill_and_reap(p, pipe_now_ms());
    pipe_close_stdin(p);
    if (p->out_fd >= 0)
        close(p->out_fd);
    free(p->buf);
    free(p->stamps);
    free(p);
}
