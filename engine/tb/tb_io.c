/* The databases' byte order and whole-buffer file access, shared by both files' code. */
#define _POSIX_C_SOURCE 200809L
#include "tb_build.h"

#include <errno.h>
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
