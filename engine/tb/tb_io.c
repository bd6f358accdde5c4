/* The databases' byte order and whole-buffer file access, shared by both files' code. */
#define _POSIX_C_SOURCE 200809L
#include "tb_build.h"
#include "message.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define fail(e, ...) ((tb_error_t)bc_fail((e), __VA_ARGS__))

void tb_put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t tb_get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

bool tb_pread_all(int fd, void *buf, size_t len, uint64_t at)
{
    uint8_t *p = buf;
    while (len) {
        ssize_t r = pread(fd, p, len, (off_t)at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r, len -= (size_t)r, at += (uint64_t)r;
    }
    return true;
}

bool tb_run_threads(int threads, void *(*fn)(void *), void *const *args)
{
    pthread_t tid[TB_MAX_THREADS];
    bool started[TB_MAX_THREADS] = {false};
    threads = threads < 1 ? 1 : threads > TB_MAX_THREADS ? TB_MAX_THREADS : threads;
    for (int i = 1; i < threads; i++)
        started[i] = pthread_create(&tid[i], NULL, fn, args[i]) == 0;
    bool ok = fn(args[0]) == NULL;
    for (int i = 1; i < threads; i++) {
        void *r = NULL;
        if (started[i])
            pthread_join(tid[i], &r);
        ok &= r == NULL;
    }
    return ok;
}

double tb_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool tb_pwrite_all(int fd, const void *buf, size_t len, uint64_t at)
{
    const uint8_t *p = buf;
    while (len) {
        ssize_t r = pwrite(fd, p, len, (off_t)at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r, len -= (size_t)r, at += (uint64_t)r;
    }
    return true;
}

const char *tb_path_shown(const char *path, char buf[TB_PATH_SHOWN])
{
    size_t n = strlen(path), head = 40, from = n - (TB_PATH_SHOWN - 1 - 40 - 3);
    if (n < TB_PATH_SHOWN)
        return path;
    /* Never inside a UTF-8 sequence: its first byte starts a kept part, a continuation byte never. */
    while (head > 0 && ((unsigned char)path[head] & 0xC0) == 0x80)
        head--;
    while (from < n && ((unsigned char)path[from] & 0xC0) == 0x80)
        from++;
    memcpy(buf, path, head);
    memcpy(buf + head, "...", 3);
    memcpy(buf + head + 3, path + from, n - from + 1);
    return buf;
}

/* What a file that is not a regular one is, for its message. */
static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" :
           S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a regular file";
}

static int refuse(const char *path, mode_t m, char *msg, size_t msglen)
{
    char sp[TB_PATH_SHOWN];
    if (S_ISDIR(m))
        bc_fail(TB_ERR_IO, msg, msglen, "%s is a directory, not a file", tb_path_shown(path, sp));
    else
        bc_fail(TB_ERR_IO, msg, msglen, "%s is %s, not a regular file", tb_path_shown(path, sp), kind_of(m));
    errno = S_ISDIR(m) ? EISDIR : ENXIO;
    return -1;
}

int tb_open_regular(const char *path, int flags, char *msg, size_t msglen)
{
    /* O_NONBLOCK: opening a FIFO would otherwise wait for a writer, for good. */
    int fd = open(path, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
    if (fd < 0) {
        int err = errno;
        struct stat st;
        /* A directory opened for writing, a FIFO for writing with no reader. */
        if ((err == EISDIR || err == ENXIO) && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
            return refuse(path, st.st_mode, msg, msglen);
        char sp[TB_PATH_SHOWN];
        bc_fail(TB_ERR_IO, msg, msglen, "cannot open %s: %s", tb_path_shown(path, sp), strerror(err));
        errno = err;
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        char sp[TB_PATH_SHOWN];
        close(fd);
        bc_fail(TB_ERR_IO, msg, msglen, "cannot stat %s: %s", tb_path_shown(path, sp), strerror(err));
        errno = err;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return refuse(path, st.st_mode, msg, msglen);
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

/* ---- The build's lock -------------------------------------------------------------------- */

tb_error_t tb_dir_lock(const char *dir, tb_dir_lock_t *lock, char *msg, size_t msglen)
{
    lock->fd = -1;
    lock->path = NULL;
    char sp[TB_PATH_SHOWN];
    size_t dl = strlen(dir), nl = strlen(TB_LOCK_NAME);
    char *path = malloc(dl + nl + 2);
    if (!path)
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    memcpy(path, dir, dl);
    path[dl] = '/';
    memcpy(path + dl + 1, TB_LOCK_NAME, nl + 1);
    /* A holder that ends removes its file: a lock taken on the removed file is no lock, and
     * the one in the folder is tried again. */
    for (int tries = 0; tries < 100; tries++) {
        int fd = tb_open_regular(path, O_RDWR | O_CREAT, msg, msglen);
        if (fd < 0) {
            free(path);
            return TB_ERR_IO;
        }
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        if (fcntl(fd, F_SETLK, &fl) != 0) {
            int err = errno;
            struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
            bool held = (err == EACCES || err == EAGAIN) && fcntl(fd, F_GETLK, &who) == 0;
            close(fd);
            if (held && who.l_type == F_UNLCK)
                continue; /* released in between */
            tb_error_t e = held ? fail(TB_ERR_LOCKED, msg, msglen,
                                       "%s is being built by another process (pid %ld holds %s): wait for it to "
                                       "end, or stop it",
                                       tb_path_shown(dir, sp), (long)who.l_pid, TB_LOCK_NAME)
                                : fail(TB_ERR_IO, msg, msglen, "cannot lock %s: %s", tb_path_shown(path, sp),
                                       strerror(err));
            free(path);
            return e;
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
            char pid[32];
            int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
            /* Only for people looking: the lock is the system's. */
            if (ftruncate(fd, 0) == 0)
                (void)tb_pwrite_all(fd, pid, (size_t)n, 0);
            lock->fd = fd;
            lock->path = path;
            return TB_OK;
        }
        close(fd);
    }
    free(path);
    return fail(TB_ERR_LOCKED, msg, msglen, "cannot lock %s: its lock file keeps being replaced", tb_path_shown(dir, sp));
}

void tb_dir_unlock(tb_dir_lock_t *lock)
{
    if (lock->fd >= 0) {
        unlink(lock->path); /* while still held: no other build can hold the removed file */
        close(lock->fd);
    }
    free(lock->path);
    lock->fd = -1;
    lock->path = NULL;
}
