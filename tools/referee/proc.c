/* Engine processes: fork/exec into a process group of their own, non-blocking pipes
 * driven by poll() with deadlines, and a kill of the whole group before every reap. */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/prctl.h>
#endif

enum { READ_CHUNK = 65536, MAX_LINE = 1 << 20 };

int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Milliseconds for poll() until deadline, rounded up so poll never wakes before it. */
static int poll_ms(int64_t deadline)
{
    if (deadline == INT64_MAX)
        return -1;
    int64_t left = deadline - now_us();
    if (left <= 0)
        return 0;
    int64_t ms = (left + 999) / 1000;
    return ms > 1000000000 ? 1000000000 : (int)ms;
}

static void log_line(const proc_t *p, char dir, const char *s, size_t n)
{
    if (p->log_fd < 0)
        return;
    char head[160];
    int64_t t = now_us();
    int h = snprintf(head, sizeof head, "%lld.%06lld %s(%ld) %c ", (long long)(t / 1000000),
                     (long long)(t % 1000000), p->name ? p->name : "?", (long)p->pid, dir);
    if (h < 0)
        return;
    if ((size_t)h >= sizeof head)
        h = sizeof head - 1;
    char stack[1024];
    size_t total = (size_t)h + n + 1;
    char *b = total <= sizeof stack ? stack : malloc(total);
    if (!b)
        return;
    memcpy(b, head, (size_t)h);
    memcpy(b + h, s, n);
    b[total - 1] = '\n';
    /* One write per line: O_APPEND keeps lines of different threads whole. */
    ssize_t w = write(p->log_fd, b, total);
    (void)w;
    if (b != stack)
        free(b);
}

/* ---- start ---- */

static void child_exec(char *const argv[], const char *dir, int in_r, int out_w, int err_fd, int report_w)
{
    setpgid(0, 0);
#ifdef __linux__
    /* Dies with the thread that started it, so not even a killed referee leaves it behind. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGPIPE, &dfl, NULL);
    sigaction(SIGINT, &dfl, NULL);
    sigaction(SIGTERM, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (dup2(in_r, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_fd, 2) < 0)
        goto fail;
    if (dir && chdir(dir) < 0)
        goto fail;
    execv(argv[0], argv);
fail:;
    int e = errno;
    ssize_t w = write(report_w, &e, sizeof e);
    (void)w;
    _exit(127);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

int proc_start(proc_t *p, char *const argv[], const char *dir, int err_fd, int log_fd, const char *name,
               char *msg, size_t msglen)
{
    memset(p, 0, sizeof *p);
    p->to_fd = p->from_fd = -1;
    p->log_fd = log_fd;
    p->name = name;
    int in[2] = {-1, -1}, out[2] = {-1, -1}, rep[2] = {-1, -1}, null_fd = -1;
    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(rep, O_CLOEXEC) < 0) {
        snprintf(msg, msglen, "cannot make pipes: %s", strerror(errno));
        goto fail;
    }
    if (err_fd < 0 && (err_fd = null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
        snprintf(msg, msglen, "cannot open /dev/null: %s", strerror(errno));
        goto fail;
    }
    if (fcntl(in[1], F_SETFL, O_NONBLOCK) < 0 || fcntl(out[0], F_SETFL, O_NONBLOCK) < 0) {
        snprintf(msg, msglen, "cannot set up pipes: %s", strerror(errno));
        goto fail;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(msg, msglen, "cannot fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0)
        child_exec(argv, dir, in[0], out[1], err_fd, rep[1]);
    setpgid(pid, pid); /* also done by the child; whichever runs first wins the race */
    close_fd(&in[0]);
    close_fd(&out[1]);
    close_fd(&rep[1]);
    close_fd(&null_fd);
    int child_errno = 0;
    ssize_t n;
    do
        n = read(rep[0], &child_errno, sizeof child_errno);
    while (n < 0 && errno == EINTR);
    close_fd(&rep[0]);
    if (n == (ssize_t)sizeof child_errno) {
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        snprintf(msg, msglen, "cannot run %s: %s", argv[0], strerror(child_errno));
        goto fail;
    }
    p->pid = pid;
    p->to_fd = in[1];
    p->from_fd = out[0];
    return 0;
fail:
    close_fd(&in[0]);
    close_fd(&in[1]);
    close_fd(&out[0]);
    close_fd(&out[1]);
    close_fd(&rep[0]);
    close_fd(&rep[1]);
    close_fd(&null_fd);
    return -1;
}

/* ---- output ---- */

/* Reads what is available. 1: data or end of output, 0: nothing yet, -1: error. */
static int read_chunk(proc_t *p)
{
    if (p->eof)
        return 1;
    if (p->start > 0 && p->start + p->len + READ_CHUNK + 1 > p->cap) {
        memmove(p->buf, p->buf + p->start, p->len);
        p->start = 0;
    }
    if (p->start + p->len + READ_CHUNK + 1 > p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 2 * READ_CHUNK;
        while (p->len + READ_CHUNK + 1 > cap)
            cap *= 2;
        char *b = realloc(p->buf, cap);
        if (!b)
            return -1;
        p->buf = b;
        p->cap = cap;
    }
    ssize_t n;
    do
        n = read(p->from_fd, p->buf + p->start + p->len, READ_CHUNK);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    if (n == 0)
        p->eof = true;
    p->len += (size_t)n;
    p->read_at = now_us();
    return 1;
}

/* The next complete line in the buffer. Lines are handed out before any further read, so
 * every line in the buffer arrived with the latest read (read_at). A line longer than
 * MAX_LINE is cut (one byte is lost there); the unterminated rest at end of output is a
 * last line. read_chunk always leaves a byte past the data for the terminator. */
static bool take_line(proc_t *p, char **line)
{
    char *s = p->buf + p->start;
    char *nl = p->len > p->scanned ? memchr(s + p->scanned, '\n', p->len - p->scanned) : NULL;
    size_t n, skip;
    if (nl) {
        n = (size_t)(nl - s);
        skip = n + 1;
    } else if (p->len >= MAX_LINE) {
        n = MAX_LINE - 1;
        skip = MAX_LINE;
    } else if (p->eof && p->len > 0) {
        n = skip = p->len;
    } else {
        p->scanned = p->len;
        return false;
    }
    s[n] = '\0';
    if (n > 0 && s[n - 1] == '\r')
        s[n - 1] = '\0';
    log_line(p, '<', s, strlen(s));
    p->start += skip;
    p->len -= skip;
    p->scanned = 0;
    *line = s;
    return true;
}

proc_status_t proc_read_line(proc_t *p, int64_t deadline, int wake_fd, char **line, int64_t *at)
{
    *line = NULL;
    for (bool polled = false;; polled = true) {
        if (p->buf && take_line(p, line)) {
            if (at)
                *at = p->read_at;
            return PROC_LINE;
        }
        if (p->eof)
            return PROC_EOF;
        int ms = poll_ms(deadline);
        if (ms == 0 && polled)
            return PROC_TIMEOUT;
        struct pollfd pf[2] = {{.fd = p->from_fd, .events = POLLIN}, {.fd = wake_fd, .events = POLLIN}};
        int r = poll(pf, 2, ms);
        if (r < 0 && errno != EINTR)
            return PROC_ERROR;
        if (r <= 0)
            continue;
        if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            if (read_chunk(p) < 0)
                return PROC_ERROR;
            continue;
        }
        if (pf[1].revents)
            return PROC_WAKE;
    }
}

/* ---- input ---- */

proc_status_t proc_write(proc_t *p, const char *data, size_t len, int64_t deadline, int wake_fd)
{
    const char *s = data;
    if (p->to_fd < 0)
        return PROC_EOF;
    /* Log each line sent. */
    for (const char *a = data, *end = data + len; a < end;) {
        const char *nl = memchr(a, '\n', (size_t)(end - a));
        size_t n = nl ? (size_t)(nl - a) : (size_t)(end - a);
        log_line(p, '>', a, n);
        a += n + 1;
    }
    while (len > 0) {
        ssize_t n = write(p->to_fd, s, len);
        if (n > 0) {
            s += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EPIPE)
            return PROC_EOF;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return PROC_ERROR;
        int ms = poll_ms(deadline);
        if (ms == 0)
            return PROC_TIMEOUT;
        struct pollfd pf[3] = {{.fd = p->to_fd, .events = POLLOUT},
                               {.fd = p->eof ? -1 : p->from_fd, .events = POLLIN},
                               {.fd = wake_fd, .events = POLLIN}};
        int r = poll(pf, 3, ms);
        if (r < 0 && errno != EINTR)
            return PROC_ERROR;
        if (r <= 0)
            continue;
        if ((pf[1].revents & (POLLIN | POLLHUP | POLLERR)) && read_chunk(p) < 0)
            return PROC_ERROR;
        if (pf[0].revents & POLLERR)
            return PROC_EOF;
        if (pf[2].revents)
            return PROC_WAKE;
    }
    return PROC_LINE;
}

/* ---- end ---- */

static void set_exit(proc_t *p, int code, bool signaled)
{
    p->exit.ended = true;
    p->exit.signaled = signaled;
    p->exit.code = code;
}

bool proc_wait_exit(proc_t *p, int64_t deadline)
{
    if (p->pid <= 0 || p->exit.ended)
        return true;
    for (int nap = 1;; nap = nap < 8 ? nap * 2 : 8) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        int r;
        do
            r = waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT);
        while (r < 0 && errno == EINTR);
        if (r < 0)
            return false;
        if (si.si_pid == p->pid) {
            set_exit(p, si.si_status, si.si_code != CLD_EXITED);
            return true;
        }
        int ms = poll_ms(deadline);
        if (ms == 0)
            return false;
        poll(NULL, 0, ms < nap ? ms : nap);
    }
}

/* Processes the engine started and left in its group: when the referee is a child
 * subreaper (proc_become_subreaper) they become its children as their parents die, so they
 * are reaped here rather than left as zombies. Bounded: a process stuck in the kernel is
 * left to init after a second. */
static void reap_group(pid_t pgid)
{
    int64_t deadline = now_us() + 1000000;
    for (;;) {
        int st;
        pid_t r = waitpid(-pgid, &st, WNOHANG);
        if (r > 0 || (r < 0 && errno == EINTR))
            continue;
        if (r < 0 || now_us() > deadline)
            return;
        kill(-pgid, SIGKILL);
        poll(NULL, 0, 1);
    }
}

void proc_become_subreaper(void)
{
#ifdef __linux__
    prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
}

void proc_close(proc_t *p)
{
    if (p->pid > 0) {
        /* The leader is not reaped yet, so its process group id cannot have been reused:
         * the kill reaches exactly what the engine started. */
        kill(-p->pid, SIGKILL);
        if (!p->exit.ended) {
            kill(p->pid, SIGKILL);
        }
        int st = 0;
        pid_t r;
        while ((r = waitpid(p->pid, &st, 0)) < 0 && errno == EINTR)
            ;
        if (!p->exit.ended && r == p->pid) {
            if (WIFSIGNALED(st))
                set_exit(p, WTERMSIG(st), true);
            else
                set_exit(p, WEXITSTATUS(st), false);
            p->exit.killed = WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
        }
        reap_group(p->pid);
        p->pid = 0;
    }
    close_fd(&p->to_fd);
    close_fd(&p->from_fd);
    free(p->buf);
    p->buf = NULL;
    p->start = p->len = p->cap = p->scanned = 0;
}

void proc_describe_exit(const proc_exit_t *e, char *buf, size_t len)
{
    if (!e->ended)
        snprintf(buf, len, "still running");
    else if (e->signaled)
        snprintf(buf, len, "killed by signal %d (%s)", e->code, strsignal(e->code));
    else
        snprintf(buf, len, "exited with status %d", e->code);
}
