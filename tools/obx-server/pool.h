/* The search pool: a fixed set of worker threads, each owning one engine instance, fed by a
 * bounded FIFO queue whose entries expire after a timeout. Knows nothing of HTTP. */
#ifndef OBX_SERVER_POOL_H
#define OBX_SERVER_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

/* One unit of work. Embed it as the first member of a larger struct. Exactly one of run and
 * expire is called, then done, on a pool thread (or, for jobs still queued, in
 * pool_shutdown); after done the pool never touches the job again. */
typedef struct pool_job pool_job_t;
struct pool_job {
    void (*run)(pool_job_t *j, engine_t *e); /* on a worker, with its engine to itself */
    void (*expire)(pool_job_t *j, bool shutting_down); /* waited too long, or the pool stops */
    void (*done)(pool_job_t *j);
    /* Owned by the pool. */
    pool_job_t *next;
    int64_t deadline_ms;
};

typedef struct {
    int workers;          /* engine instances = searches at once */
    int threads;          /* search threads per engine */
    size_t hash_mb;       /* transposition table per engine */
    int max_queue;        /* jobs waiting at most; more are refused */
    int queue_timeout_ms; /* a job not started by then expires */
    const char *tablebase; /* a database directory, or NULL */
} pool_config_t;

typedef struct {
    int workers, busy, queued, max_queue;
    uint64_t completed, expired, refused;
} pool_stats_t;

typedef struct pool pool_t;

/* Creates the engines and starts the threads. NULL with a message in err on failure. */
pool_t *pool_new(const pool_config_t *cfg, char *err, size_t errlen);

/* Queues a job. False when the queue is full or the pool is stopping: the job is untouched
 * and none of its callbacks will be called. */
bool pool_submit(pool_t *p, pool_job_t *j);

void pool_stats(pool_t *p, pool_stats_t *out);

/* Expires every queued job, lets running searches finish and joins the threads. Afterwards
 * pool_submit refuses every job; pool_stats still works. */
void pool_shutdown(pool_t *p);

/* pool_shutdown (if not done yet), then frees everything. */
void pool_free(pool_t *p);

/* Milliseconds on the monotonic clock. */
int64_t pool_now_ms(void);

#endif
