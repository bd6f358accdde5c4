/* Engine processes: each started by a supervisor of its own that kills the engine's whole
 * tree when the referee is done with it or gone; non-blocking pipes driven by poll() with
 * deadlines. */
#include "proc.h"

#include "supervise.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
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

/* The first error writing the protocol log (0: none), for the run to report. */
static atomic_int g_log_errno;

int proc_log_errno(void) { return atomic_load(&g_log_errno); }

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
    ssize_t w;
    do
        w = write(p->log_fd, b, total);
    while (w < 0 && errno == EINTR);
    if (w != (ssize_t)total) {
        int expected = 0;
        atomic_compare_exchange_strong(&g_log_errno, &expected, w < 0 ? errno : ENOSPC);
    }
    if (b != stack)
        free(b);
}

void proc_log_note(const proc_t *p, const char *text) { log_line(p, '=', text, strlen(text)); }

/* ---- the supervisors alive ---- */

/* Every engine runs under a supervisor of its own, a child of the referee (see sup_main).
 * The supervisors alive are registered so that what is left behind (processes that became
 * children of the referee, a subreaper, when a supervisor died) can be told from them. Forks
 * happen under the same lock, so a scan never sees an unregistered supervisor. */
static pthread_mutex_t g_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t *g_live;
static size_t g_live_nb, g_live_cap;

/* Under g_reg_lock. False when out of memory (the engine is then not started). */
static bool live_reserve(void)
{
    if (g_live_nb < g_live_cap)
        return true;
    size_t cap = g_live_cap ? g_live_cap * 2 : 16;
    pid_t *l = realloc(g_live, cap * sizeof *l);
    if (!l)
        return false;
    g_live = l;
    g_live_cap = cap;
    return true;
}

static bool is_live(pid_t pid)
{
    for (size_t k = 0; k < g_live_nb; k++)
        if (g_live[k] == pid)
            return true;
    return false;
}

static void live_remove(pid_t pid)
{
    for (size_t k = 0; k < g_live_nb; k++)
        if (g_live[k] == pid) {
            g_live[k] = g_live[--g_live_nb];
            return;
        }
}

/* ---- what is left behind ---- */

typedef struct {
    pid_t pid, ppid;
} pp_t;

/* Every process with its parent, from /proc (Linux; elsewhere none). */
static pp_t *scan_processes(size_t *count)
{
    *count = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return NULL;
    size_t cap = 256, n = 0;
    pp_t *list = malloc(cap * sizeof *list);
    struct dirent *e;
    while (list && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t r = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (r <= 0)
            continue;
        buf[r] = '\0';
        /* "pid (comm) state ppid ...": comm may hold anything, so look after its last ')'. */
        char *close_paren = strrchr(buf, ')');
        char state;
        long ppid;
        if (!close_paren || sscanf(close_paren + 1, " %c %ld", &state, &ppid) != 2)
            continue;
        if (n == cap) {
            pp_t *l = realloc(list, cap * 2 * sizeof *l);
            if (!l)
                break;
            list = l;
            cap *= 2;
        }
        list[n++] = (pp_t){(pid_t)atol(e->d_name), (pid_t)ppid};
    }
    closedir(d);
    *count = n;
    return list;
}

/* Kills, under g_reg_lock, every child of the referee that is no supervisor, and its
 * descendants: what an engine left behind when its supervisor died before it (the referee is
 * a subreaper, so those come to it). Their pids go to *killed for reaping. */
static pid_t *kill_orphans(size_t *killed_nb)
{
    *killed_nb = 0;
    size_t n;
    pp_t *all = scan_processes(&n);
    if (!all)
        return NULL;
    pid_t self = getpid();
    pid_t *killed = malloc((n + 1) * sizeof *killed);
    bool *in = calloc(n + 1, sizeof *in);
    if (!killed || !in) {
        free(killed);
        free(in);
        free(all);
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (all[i].ppid == self && !is_live(all[i].pid)) {
            in[i] = true;
            killed[k++] = all[i].pid;
        }
    /* The trees of the orphans: grow the set until it is closed. */
    for (bool grew = k > 0; grew;) {
        grew = false;
        for (size_t i = 0; i < n; i++) {
            if (in[i] || all[i].pid == self)
                continue;
            bool under = false;
            for (size_t j = 0; j < k && !under; j++)
                under = all[i].ppid == killed[j];
            if (under) {
                in[i] = true;
                killed[k++] = all[i].pid;
                grew = true;
            }
        }
    }
    for (size_t j = 0; j < k; j++)
        kill(killed[j], SIGKILL);
    free(in);
    free(all);
    *killed_nb = k;
    return killed;
}

/* ---- start ---- */

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

void proc_init(proc_t *p)
{
    memset(p, 0, sizeof *p);
    p->to_fd = p->from_fd = p->ctl_fd = p->exit_fd = p->log_fd = -1;
}

/* Ends the supervisor (and so everything the engine left) and reaps it. */
static void sup_end(proc_t *p)
{
    close_fd(&p->ctl_fd);
    while (waitpid(p->sup, NULL, 0) < 0 && errno == EINTR)
        ;
    pthread_mutex_lock(&g_reg_lock);
    live_remove(p->sup);
    pthread_mutex_unlock(&g_reg_lock);
    p->sup = 0;
}

int proc_start(proc_t *p, char *const argv[], const char *dir, int err_fd, int log_fd, const char *name,
               char *msg, size_t msglen)
{
    proc_init(p);
    p->log_fd = log_fd;
    p->name = name;
    int in[2] = {-1, -1}, out[2] = {-1, -1}, rep[2] = {-1, -1}, ctl[2] = {-1, -1}, st[2] = {-1, -1};
    int null_fd = -1;
    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(rep, O_CLOEXEC) < 0 ||
        pipe2(ctl, O_CLOEXEC) < 0 || pipe2(st, O_CLOEXEC) < 0) {
        snprintf(msg, msglen, "cannot make pipes: %s", strerror(errno));
        goto fail;
    }
    if (err_fd < 0 && (err_fd = null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
        snprintf(msg, msglen, "cannot open /dev/null: %s", strerror(errno));
        goto fail;
    }
    if (fcntl(in[1], F_SETFL, O_NONBLOCK) < 0 || fcntl(out[0], F_SETFL, O_NONBLOCK) < 0 ||
        fcntl(st[0], F_SETFL, O_NONBLOCK) < 0) {
        snprintf(msg, msglen, "cannot set up pipes: %s", strerror(errno));
        goto fail;
    }
    pthread_mutex_lock(&g_reg_lock);
    if (!live_reserve()) {
        pthread_mutex_unlock(&g_reg_lock);
        snprintf(msg, msglen, "out of memory");
        goto fail;
    }
    pid_t sup = fork();
    if (sup < 0) {
        pthread_mutex_unlock(&g_reg_lock);
        snprintf(msg, msglen, "cannot fork: %s", strerror(errno));
        goto fail;
    }
    if (sup == 0) {
        sup_fds_t f = {in[0], out[1], err_fd, rep[1], ctl[0], st[1]};
        sup_main(argv, dir, &f);
    }
    g_live[g_live_nb++] = sup;
    pthread_mutex_unlock(&g_reg_lock);
    p->sup = sup;
    p->ctl_fd = ctl[1];
    p->exit_fd = st[0];
    ctl[1] = st[0] = -1;
    close_fd(&in[0]);
    close_fd(&out[1]);
    close_fd(&rep[1]);
    close_fd(&ctl[0]);
    close_fd(&st[1]);
    close_fd(&null_fd);
    /* Until the engine has run its program (or failed to) and the supervisor has said its pid. */
    pid_t pid = 0;
    int fork_errno = 0, exec_errno = 0;
    for (;;) {
        sup_note_t n;
        ssize_t r = read(rep[0], &n, sizeof n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != (ssize_t)sizeof n)
            break;
        if (n.tag == SUP_NOTE_PID)
            pid = (pid_t)n.value;
        else if (n.tag == SUP_NOTE_FORK)
            fork_errno = n.value;
        else if (n.tag == SUP_NOTE_EXEC)
            exec_errno = n.value;
    }
    close_fd(&rep[0]);
    if (pid <= 0 || exec_errno) {
        if (exec_errno)
            snprintf(msg, msglen, "cannot run %s: %s", argv[0], strerror(exec_errno));
        else
            snprintf(msg, msglen, "cannot fork: %s", strerror(fork_errno ? fork_errno : ECHILD));
        sup_end(p);
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
    close_fd(&ctl[0]);
    close_fd(&ctl[1]);
    close_fd(&st[0]);
    close_fd(&st[1]);
    close_fd(&p->ctl_fd);
    close_fd(&p->exit_fd);
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

static void set_exit(proc_t *p, int code, bool signaled)
{
    p->exit.ended = true;
    p->exit.signaled = signaled;
    p->exit.code = code;
}

/* Has the engine exited? Its supervisor says so on the status pipe (never blocks). */
static bool exit_known(proc_t *p)
{
    if (p->exit.ended)
        return true;
    if (p->exit_fd < 0)
        return false;
    sup_note_t n;
    ssize_t r;
    do
        r = read(p->exit_fd, &n, sizeof n);
    while (r < 0 && errno == EINTR);
    if (r == (ssize_t)sizeof n && n.tag == SUP_NOTE_EXIT) {
        if (WIFSIGNALED(n.value))
            set_exit(p, WTERMSIG(n.value), true);
        else
            set_exit(p, WEXITSTATUS(n.value), false);
        return true;
    }
    if (r == 0) { /* the supervisor is gone without a word: the engine died with it */
        set_exit(p, SIGKILL, true);
        return true;
    }
    return false;
}

/* The child has exited: what it wrote is all there will be. Returns -1 on a read error. */
static int drain_after_exit(proc_t *p)
{
    for (;;) {
        int r = read_chunk(p);
        if (r < 0)
            return -1;
        if (r == 0 || p->eof)
            break;
    }
    p->eof = true;
    return 0;
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
        struct pollfd pf[3] = {{.fd = p->from_fd, .events = POLLIN},
                               {.fd = wake_fd, .events = POLLIN},
                               {.fd = p->exit.ended ? -1 : p->exit_fd, .events = POLLIN}};
        int r = poll(pf, 3, ms);
        if (r < 0 && errno != EINTR)
            return PROC_ERROR;
        if (r < 0)
            continue;
        if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            if (read_chunk(p) < 0)
                return PROC_ERROR;
            continue;
        }
        if (pf[1].revents)
            return PROC_WAKE;
        /* The engine's exit ends its output at once, even while a process it started holds
         * the pipe. */
        if (pf[2].revents && exit_known(p) && drain_after_exit(p) < 0)
            return PROC_ERROR;
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
        if (exit_known(p))
            return drain_after_exit(p) < 0 ? PROC_ERROR : PROC_EOF;
        int ms = poll_ms(deadline);
        if (ms == 0)
            return PROC_TIMEOUT;
        struct pollfd pf[4] = {{.fd = p->to_fd, .events = POLLOUT},
                               {.fd = p->eof ? -1 : p->from_fd, .events = POLLIN},
                               {.fd = wake_fd, .events = POLLIN},
                               {.fd = p->exit_fd, .events = POLLIN}};
        int r = poll(pf, 4, ms);
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

bool proc_wait_exit(proc_t *p, int64_t deadline)
{
    if (p->sup <= 0)
        return true;
    for (;;) {
        if (exit_known(p))
            return true;
        int ms = poll_ms(deadline);
        if (ms == 0)
            return false;
        struct pollfd pf = {.fd = p->exit_fd, .events = POLLIN};
        if (poll(&pf, 1, ms) < 0 && errno != EINTR)
            return false;
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
    if (p->sup > 0) {
        /* The supervisor kills whatever is left of the engine's tree, reports the engine's
         * status if it had not yet, and exits. */
        bool ended = p->exit.ended;
        sup_end(p);
        if (!ended && exit_known(p))
            p->exit.killed = p->exit.signaled && p->exit.code == SIGKILL;
        /* What a supervisor that died before its engine left to the referee. */
        size_t killed_nb = 0;
        pthread_mutex_lock(&g_reg_lock);
        pid_t *killed = kill_orphans(&killed_nb);
        pthread_mutex_unlock(&g_reg_lock);
        int64_t deadline = now_us() + 1000000;
        for (size_t k = 0; k < killed_nb; k++) {
            while (waitpid(killed[k], NULL, WNOHANG) == 0 && now_us() < deadline)
                poll(NULL, 0, 1);
        }
        free(killed);
        p->pid = 0;
    }
    close_fd(&p->to_fd);
    close_fd(&p->from_fd);
    close_fd(&p->ctl_fd);
    close_fd(&p->exit_fd);
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
