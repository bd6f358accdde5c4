/* The databases' byte order and whole-buffer file access, shared by both files' code. */
#define _POSIX_C_SOURCE 200809L
#include "tb_build.h"

#include <errno.h>
#include <pthread.h>
#include <unistd.h>

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
