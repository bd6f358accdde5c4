/* Threads where there are none: the engine's worker in a browser without SharedArrayBuffer.
 * The library and the protocol are compiled with pthread_create, pthread_join and nanosleep
 * renamed to these (wasm/CMakeLists.txt). A thread runs inside the call that creates it, to
 * its end; the search yields to the event loop every 20 ms (the poll worker.c gives the
 * engine), where stop and isready are handed in, so the call that started it returns later,
 * to JavaScript, as a promise (ASYNCIFY). */
#include <emscripten.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

int bc_thread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
int bc_thread_join(pthread_t t, void **ret);
int bc_nanosleep(const struct timespec *req, struct timespec *rem);

int bc_thread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static bool inside;
    (void)attr;
    *t = 0;
    /* A thread started by a thread: the search's clock, which only sleeps until the deadline.
     * It never runs: the searching thread looks at the clock every 256 nodes itself
     * (count_node in engine/search.c). */
    if (inside)
        return 0;
    inside = true;
    fn(arg);
    inside = false;
    return 0;
}

/* Every thread has ended by the time its creator goes on. */
int bc_thread_join(pthread_t t, void **ret)
{
    (void)t;
    if (ret)
        *ret = NULL;
    return 0;
}

/* A sleep (the search waiting for stop after go infinite) hands the time to the event loop. */
int bc_nanosleep(const struct timespec *req, struct timespec *rem)
{
    if (!req || req->tv_nsec < 0 || req->tv_nsec >= 1000000000) {
        errno = EINVAL;
        return -1;
    }
    double ms = (double)req->tv_sec * 1000 + (double)req->tv_nsec / 1e6;
    emscripten_sleep(ms < 1 ? 1 : (unsigned)ms);
    if (rem)
        rem->tv_sec = 0, rem->tv_nsec = 0;
    return 0;
}
