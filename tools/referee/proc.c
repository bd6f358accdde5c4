/* Engine processes: fork/exec into a process group of their own, non-blocking pipes
 * driven by poll() with deadlines, and a kill of the whole group before every reap. */
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
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

void proc_log_note(const proc_t *p, const char *text) { log_line(p, '=', text, strlen(text)); }

/* ---- the engines alive, and their guard ---- */

/* Every engine leader the referee has started and not yet reaped, so that the processes
 * they leave behind (children re-parented to the referee, a subreaper) can be told from
 * them. Forks happen under the same lock, so a scan never sees an unregistered engine. */
static pthread_mutex_t g_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t *g_live;
static size_t g_live_nb, g_live_cap;
static int g_guard_fd = -1;  /* write end of the guard's pipe, -1: no guard */
static pid_t g_guard_pid;

static void guard_say(char op, pid_t pid)
{
    if (g_guard_fd < 0)
        return;
    char line[32];
    int n = snprintf(line, sizeof line, "%c%ld\n", op, (long)pid);
    ssize_t w;
    do /* shorter than PIPE_BUF: written whole or not at all */
        w = write(g_guard_fd, line, (size_t)n);
    while (w < 0 && errno == EINTR);
}

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
    return pid == g_guard_pid;
}

static void live_remove(pid_t pid)
{
    for (size_t k = 0; k < g_live_nb; k++)
        if (g_live[k] == pid) {
            g_live[k] = g_live[--g_live_nb];
            guard_say('-', pid);
            return;
        }
}

static void guard_main(int fd)
{
    /* Nothing of the referee's: its output pipes must close when it exits. */
    int null_fd = open("/dev/null", O_RDWR);
    for (int k = 0; k < 3; k++)
        if (null_fd >= 0)
            dup2(null_fd, k);
    for (int k = 3; k < 1024; k++)
        if (k != fd)
            close(k);
    setpgid(0, 0); /* Ctrl-C on the terminal is for the referee */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    pid_t groups[4096];
    size_t nb = 0;
    char buf[4096];
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fd, buf + len, sizeof buf - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        char *a = buf, *nl;
        while ((nl = memchr(a, '\n', len - (size_t)(a - buf))) != NULL) {
            *nl = '\0';
            pid_t pid = (pid_t)atol(a + 1);
            if (a[0] == '+' && pid > 0 && nb < sizeof groups / sizeof groups[0]) {
                groups[nb++] = pid;
            } else if (a[0] == '-') {
                for (size_t k = 0; k < nb; k++)
                    if (groups[k] == pid) {
                        groups[k] = groups[--nb];
                        break;
                    }
            }
            a = nl + 1;
        }
        len -= (size_t)(a - buf);
        memmove(buf, a, len);
    }
    /* The referee is gone, whatever killed it: so is everything its engines started. */
    for (size_t k = 0; k < nb; k++) {
        kill(-groups[k], SIGKILL);
        kill(groups[k], SIGKILL);
    }
    _exit(0);
}

bool proc_guard_start(void)
{
    int fds[2];
    if (g_guard_fd >= 0)
        return true;
    if (pipe2(fds, O_CLOEXEC) < 0)
        return false;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    if (pid == 0) {
        close(fds[1]);
        guard_main(fds[0]);
    }
    close(fds[0]);
    pthread_mutex_lock(&g_reg_lock);
    g_guard_fd = fds[1];
    g_guard_pid = pid;
    pthread_mutex_unlock(&g_reg_lock);
    return true;
}

void proc_guard_stop(void)
{
    pthread_mutex_lock(&g_reg_lock);
    int fd = g_guard_fd;
    pid_t pid = g_guard_pid;
    g_guard_fd = -1;
    g_guard_pid = 0;
    pthread_mutex_unlock(&g_reg_lock);
    if (fd < 0)
        return;
    close(fd); /* end of input: the guard kills what is still registered (nothing) and exits */
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* ---- descendants ---- */

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

/* Kills, under g_reg_lock, every descendant of leader (whatever session or group it moved
 * to) and every child of the referee that is no engine (what engines left behind and the
 * referee inherited); their pids go to *killed for reaping. */
static pid_t *kill_descendants(pid_t leader, size_t *killed_nb)
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
        if (all[i].ppid == self && all[i].pid != leader && !is_live(all[i].pid)) {
            in[i] = true;
            killed[k++] = all[i].pid;
        }
    /* The leader's tree, and the trees of the orphans: grow the set until it is closed. */
    for (bool grew = true; grew;) {
        grew = false;
        for (size_t i = 0; i < n; i++) {
            if (in[i] || all[i].pid == self)
                continue;
            bool under = all[i].ppid == leader;
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
    p->to_fd = p->from_fd = p->pid_fd = -1;
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
    pthread_mutex_lock(&g_reg_lock);
    if (!live_reserve()) {
        pthread_mutex_unlock(&g_reg_lock);
        snprintf(msg, msglen, "out of memory");
        goto fail;
    }
    pid_t pid = fork();
    if (pid < 0) {
        pthread_mutex_unlock(&g_reg_lock);
        snprintf(msg, msglen, "cannot fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0)
        child_exec(argv, dir, in[0], out[1], err_fd, rep[1]);
    setpgid(pid, pid); /* also done by the child; whichever runs first wins the race */
    g_live[g_live_nb++] = pid;
    guard_say('+', pid);
    pthread_mutex_unlock(&g_reg_lock);
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
        pthread_mutex_lock(&g_reg_lock);
        live_remove(pid);
        pthread_mutex_unlock(&g_reg_lock);
        snprintf(msg, msglen, "cannot run %s: %s", argv[0], strerror(child_errno));
        goto fail;
    }
    p->pid = pid;
    p->to_fd = in[1];
    p->from_fd = out[0];
#ifdef SYS_pidfd_open
    /* Readable once the engine exits, even while a child of it keeps the pipes open. */
    p->pid_fd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
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

/* Has the child exited? Without a pidfd, asked of the kernel without reaping. */
static bool child_exited(const proc_t *p)
{
    if (p->pid <= 0)
        return false;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
        return false;
    return si.si_pid == p->pid;
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
        /* Without a pidfd the child's exit is looked for every 50 ms. */
        if (p->pid_fd < 0 && (ms < 0 || ms > 50))
            ms = 50;
        struct pollfd pf[3] = {{.fd = p->from_fd, .events = POLLIN},
                               {.fd = wake_fd, .events = POLLIN},
                               {.fd = p->pid_fd, .events = POLLIN}};
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
        if ((pf[2].revents || (p->pid_fd < 0 && child_exited(p))) && drain_after_exit(p) < 0)
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
        int ms = poll_ms(deadline);
        if (ms == 0)
            return PROC_TIMEOUT;
        struct pollfd pf[4] = {{.fd = p->to_fd, .events = POLLOUT},
                               {.fd = p->eof ? -1 : p->from_fd, .events = POLLIN},
                               {.fd = wake_fd, .events = POLLIN},
                               {.fd = p->pid_fd, .events = POLLIN}};
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
        if (pf[3].revents)
            return drain_after_exit(p) < 0 ? PROC_ERROR : PROC_EOF;
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
         * the kill reaches exactly what the engine started. Its descendants that left the
         * group (setsid) are found by their parents, and what engines left behind is
         * recognised as a child of the referee that is no engine. */
        size_t killed_nb = 0;
        pthread_mutex_lock(&g_reg_lock);
        pid_t *killed = kill_descendants(p->pid, &killed_nb);
        kill(-p->pid, SIGKILL);
        if (!p->exit.ended)
            kill(p->pid, SIGKILL);
        pthread_mutex_unlock(&g_reg_lock);
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
        pthread_mutex_lock(&g_reg_lock);
        live_remove(p->pid);
        pthread_mutex_unlock(&g_reg_lock);
        /* Those that became the referee's children are reaped here; the others by their
         * parents or init. Bounded, like reap_group. */
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
    close_fd(&p->pid_fd);
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
