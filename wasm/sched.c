/* What emscripten's C library lacks: sched_getaffinity. Failing with ENOSYS makes the
 * engine count the processors with sysconf (engine.c), which emscripten answers. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set)
{
    (void)pid, (void)size, (void)set;
    errno = ENOSYS;
    return -1;
}

int __sched_cpucount(size_t size, const cpu_set_t *set)
{
    int n = 0;
    for (size_t i = 0; i < size; i++)
        for (unsigned char b = ((const unsigned char *)set)[i]; b; b &= (unsigned char)(b - 1))
            n++;
    return n;
}
