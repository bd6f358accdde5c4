/* The supervisor of one engine: a fork of the referee that starts the engine as its child,
 * reports its exit, and kills everything it started when the referee is done with it or
 * gone. Only system calls and plain code here: it runs in a fork of a threaded process,
 * without exec. */
#include "supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

#ifdef __linux__
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#endif

enum { SUP_KILL_US = 2000000 };

static void note_write(int fd, int tag, int value)
{
    sup_note_t n = {tag, value};
    ssize_t w;
    do
        w = write(fd, &n, sizeof n);
    while (w < 0 && errno == EINTR);
}

static void close_span(int from, int to)
{
    if (to < from)
        return;
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)from, (unsigned)to, 0U) == 0)
        return;
#endif
    struct rlimit rl;
    int top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 65536
                  ? (int)rl.rlim_cur - 1
                  : 65535;
    for (int fd = from; fd <= to && fd <= top; fd++)
        close(fd);
}

/* Closes every descriptor from 3 on but those in keep: the supervisor is a fork of the
 * referee, and a copy of another engine's pipe or of another supervisor's control pipe
 * would keep them from ever seeing their end. */
static void close_all_but(int *keep, int nb)
{
    for (int i = 1; i < nb; i++) /* insertion sort, a handful of numbers */
        for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
            int t = keep[j];
            keep[j] = keep[j - 1];
            keep[j - 1] = t;
        }
    int from = 3;
    for (int k = 0; k < nb; k++) {
        if (keep[k] < from)
            continue;
        close_span(from, keep[k] - 1);
        from = keep[k] + 1;
    }
    close_span(from, INT_MAX);
}

/* The parent pid in the text of /proc/PID/stat, -1 when it cannot be read. Only system calls
 * and plain code: the supervisor is a fork of a threaded process. */
static pid_t stat_ppid(int proc_fd, const char *name)
{
    char path[64], buf[512];
    size_t n = strlen(name);
    if (n + 6 > sizeof path)
        return -1;
    memcpy(path, name, n);
    memcpy(path + n, "/stat", 6);
    int fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t r = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (r <= 0)
        return -1;
    buf[r] = '\0';
    char *p = strrchr(buf, ')'); /* comm may hold anything: the state and ppid follow its last ')' */
    if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
        return -1;
    long ppid = 0;
    for (p += 4; *p >= '0' && *p <= '9'; p++)
        ppid = ppid * 10 + (*p - '0');
    return (pid_t)ppid;
}

/* SIGKILL to every child of the supervisor, found in /proc. */
static void sup_kill_children(void)
{
#ifdef SYS_getdents64
    pid_t self = getpid();
    int d = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0)
        return;
    /* struct linux_dirent64: the libc's readdir would allocate. */
    union {
        char buf[8192];
        uint64_t align;
    } u;
    long n;
    while ((n = syscall(SYS_getdents64, d, u.buf, sizeof u.buf)) > 0) {
        for (long off = 0; off < n;) {
            const char *ent = u.buf + off;
            unsigned short reclen;
            memcpy(&reclen, ent + 16, sizeof reclen);
            const char *name = ent + 19;
            off += reclen;
            if (name[0] < '1' || name[0] > '9')
                continue;
            long pid = 0;
            for (const char *c = name; *c >= '0' && *c <= '9'; c++)
                pid = pid * 10 + (*c - '0');
            if (stat_ppid(d, name) == self)
                kill((pid_t)pid, SIGKILL);
        }
    }
    close(d);
#endif
}

/* Reaps every child that has exited; the engine's status goes to the referee. True when no
 * child is left at all. */
static bool sup_reap(pid_t engine, int st_w, bool *engine_reaped)
{
    for (;;) {
        int st;
        pid_t r = waitpid(-1, &st, WNOHANG);
        if (r > 0) {
            if (r == engine) {
                note_write(st_w, SUP_NOTE_EXIT, st);
                *engine_reaped = true;
            }
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        return r < 0 && errno == ECHILD;
    }
}

static void child_exec(char *const argv[], const char *dir, const sup_fds_t *f, pid_t sup)
{
    setpgid(0, 0);
#ifdef __linux__
    /* Dies with its supervisor, whatever ends that. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != sup)
        _exit(127);
#endif
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGPIPE, &dfl, NULL);
    sigaction(SIGINT, &dfl, NULL);
    sigaction(SIGTERM, &dfl, NULL);
    sigaction(SIGHUP, &dfl, NULL);
    sigaction(SIGQUIT, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (dup2(f->in_r, 0) < 0 || dup2(f->out_w, 1) < 0 || dup2(f->err_fd, 2) < 0)
        goto fail;
    if (dir && chdir(dir) < 0)
        goto fail;
    execv(argv[0], argv);
fail:
    note_write(f->rep_w, SUP_NOTE_EXEC, errno);
    _exit(127);
}

_Noreturn void sup_main(char *const argv[], const char *dir, const sup_fds_t *f)
{
    setpgid(0, 0); /* a process group of its own: signals for the referee's group are not for it */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    sigaction(SIGPIPE, &sa, NULL);
    sa.sa_handler = SIG_DFL;
    sigaction(SIGCHLD, &sa, NULL);
    int keep[] = {f->in_r, f->out_w, f->err_fd, f->rep_w, f->ctl_r, f->st_w};
    close_all_but(keep, (int)(sizeof keep / sizeof keep[0]));
#ifdef __linux__
    prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sig_fd = -1;
#ifdef __linux__
    sig_fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
#endif
    pid_t self = getpid();
    pid_t engine = fork();
    if (engine == 0)
        child_exec(argv, dir, f, self);
    note_write(f->rep_w, engine < 0 ? SUP_NOTE_FORK : SUP_NOTE_PID, engine < 0 ? errno : engine);
    close(f->in_r);
    close(f->out_w);
    close(f->err_fd);
    close(f->rep_w);
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd < 3; fd++)
        if (null_fd >= 0)
            dup2(null_fd, fd);
    if (null_fd > 2)
        close(null_fd);
    bool reaped = engine < 0;
    for (;;) {
        struct pollfd pf[2] = {{.fd = f->ctl_r, .events = POLLIN}, {.fd = sig_fd, .events = POLLIN}};
        /* Without a signalfd, the children are looked for every 20 ms. */
        int r = poll(pf, 2, sig_fd >= 0 ? -1 : 20);
        if (r < 0 && errno != EINTR)
            break;
        if (r > 0 && (pf[1].revents & POLLIN)) {
            char drain[512];
            while (read(sig_fd, drain, sizeof drain) > 0)
                ;
        }
        sup_reap(engine, f->st_w, &reaped);
        if (r > 0 && pf[0].revents)
            break;
    }
    /* Nothing the engine started may outlive it. A child killed here hands its own children
     * to this subreaper, so rounds go on until no child is left. */
    int64_t deadline = now_us() + SUP_KILL_US;
    while (!sup_reap(engine, f->st_w, &reaped) && now_us() < deadline) {
        if (!reaped)
            kill(-engine, SIGKILL); /* not reaped: its group id cannot have been reused */
        sup_kill_children();
        poll(NULL, 0, 1);
    }
    _exit(0);
}
