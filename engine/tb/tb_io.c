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
