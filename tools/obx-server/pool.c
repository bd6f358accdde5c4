/* The search pool: worker threads with an engine each, a bounded FIFO queue, and a timer
 * thread that expires jobs nobody could start in time. */
#include "pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    pool_t *pool;
    engine_t *engine;
    pthread_t thread;
    bool started;
} worker_slot_t;

struct pool {
    pthread_mutex_t lock;
    pthread_cond_t work;  /* a job was queued, or the pool stops */
    pthread_cond_t timer; /* the head of the queue changed, or the pool stops */
    pool_job_t *head, *tail;
    int queued, busy;
    bool stopping;
    uint64_t completed, expired, refused;
    int max_queue, queue_timeout_ms;
    int nworkers;
    worker_slot_t *slots;
    tb_t *tb; /* the databases, loaded once and probed by every engine */
    pthread_t timer_thread;
    bool timer_started;
};

int64_t pool_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static pool_job_t *pop_locked(pool_t *p)
{
    pool_job_t *j = p->head;
    if (j) {
        p->head = j->next;
        if (!p->head)
            p->tail = NULL;
        j->next = NULL;
        p->queued--;
    }
    return j;
}

static void *worker_main(void *arg)
{
    worker_slot_t *w = arg;
    pool_t *p = w->pool;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->head && !p->stopping)
            pthread_cond_wait(&p->work, &p->lock);
        pool_job_t *j = pop_locked(p);
        if (!j)
            break; /* stopping and nothing left */
        pthread_cond_signal(&p->timer);
        bool late = pool_now_ms() >= j->deadline_ms || p->stopping;
        bool stopping = p->stopping;
        if (late)
            p->expired++;
        else
            p->busy++;
        pthread_mutex_unlock(&p->lock);
        if (late)
            j->expire(j, stopping);
        else
            j->run(j, w->engine);
        /* Counted before done, so a client that has its answer sees it in the stats. */
        if (!late) {
            pthread_mutex_lock(&p->lock);
            p->busy--;
            p->completed++;
            pthread_mutex_unlock(&p->lock);
        }
        j->done(j);
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Jobs are queued in order with the same timeout, so only the head can be the next to
 * expire. */
static void *timer_main(void *arg)
{
    pool_t *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stopping) {
        if (!p->head) {
            pthread_cond_wait(&p->timer, &p->lock);
            continue;
        }
        int64_t now = pool_now_ms();
        if (now >= p->head->deadline_ms) {
            pool_job_t *j = pop_locked(p);
            p->expired++;
            pthread_mutex_unlock(&p->lock);
            j->expire(j, false);
            j->done(j);
            pthread_mutex_lock(&p->lock);
            continue;
        }
        /* Condition variables wait on the realtime clock by default; a relative wait
         * converted here is good to the millisecond, which is all a deadline needs. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t wait = p->head->deadline_ms - now;
        ts.tv_sec += (time_t)(wait / 1000);
        ts.tv_nsec += (long)(wait % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->timer, &p->lock, &ts);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static bool engine_setup(engine_t *e, const pool_config_t *cfg, const tb_t *tb, char *err, size_t errlen)
{
    if (!engine_set_hash(e, cfg->hash_mb)) {
        snprintf(err, errlen, "cannot allocate %zu MB of hash", cfg->hash_mb);
        return false;
    }
    if (!engine_set_threads(e, cfg->threads)) {
        snprintf(err, errlen, "cannot create %d search threads", cfg->threads);
        return false;
    }
    engine_share_tablebase(e, tb);
    return true;
}

pool_t *pool_new(const pool_config_t *cfg, char *err, size_t errlen)
{
    pool_t *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->max_queue = cfg->max_queue;
    p->queue_timeout_ms = cfg->queue_timeout_ms;
    p->nworkers = cfg->workers;
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p);
        snprintf(err, errlen, "cannot create a mutex");
        return NULL;
    }
    if (pthread_cond_init(&p->work, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        free(p);
        snprintf(err, errlen, "cannot create a condition variable");
        return NULL;
    }
    if (pthread_cond_init(&p->timer, NULL) != 0) {
        pthread_cond_destroy(&p->work);
        pthread_mutex_destroy(&p->lock);
        free(p);
        snprintf(err, errlen, "cannot create a condition variable");
        return NULL;
    }
    p->slots = calloc((size_t)cfg->workers, sizeof *p->slots);
    if (!p->slots) {
        snprintf(err, errlen, "out of memory");
        pool_free(p);
        return NULL;
    }
    /* One copy of the files for every engine: a handle is read-only once open (tb.h), and
     * each copy is most of a gigabyte with the placement solution. */
    if (cfg->tablebase) {
        char msg[200] = "";
        tb_error_t te = tb_open_game(cfg->tablebase, &p->tb, msg, sizeof msg);
        if (te != TB_OK) {
            snprintf(err, errlen, "--tablebase %s: %s (%s)", cfg->tablebase, msg, tb_error_name(te));
            pool_free(p);
            return NULL;
        }
    }
    for (int i = 0; i < cfg->workers; i++) {
        worker_slot_t *w = &p->slots[i];
        w->pool = p;
        w->engine = engine_new();
        if (!w->engine) {
            snprintf(err, errlen, "out of memory creating engine %d", i + 1);
            pool_free(p);
            return NULL;
        }
        if (!engine_setup(w->engine, cfg, p->tb, err, errlen)) {
            pool_free(p);
            return NULL;
        }
    }
    for (int i = 0; i < cfg->workers; i++) {
        worker_slot_t *w = &p->slots[i];
        int rc = pthread_create(&w->thread, NULL, worker_main, w);
        if (rc != 0) {
            snprintf(err, errlen, "cannot start worker thread: %s", strerror(rc));
            pool_free(p);
            return NULL;
        }
        w->started = true;
    }
    int rc = pthread_create(&p->timer_thread, NULL, timer_main, p);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the timer thread: %s", strerror(rc));
        pool_free(p);
        return NULL;
    }
    p->timer_started = true;
    return p;
}

bool pool_submit(pool_t *p, pool_job_t *j)
{
    pthread_mutex_lock(&p->lock);
    if (p->stopping || p->queued >= p->max_queue) {
        p->refused++;
        pthread_mutex_unlock(&p->lock);
        return false;
    }
    j->next = NULL;
    j->deadline_ms = pool_now_ms() + p->queue_timeout_ms;
    if (p->tail)
        p->tail->next = j;
    else
        p->head = j;
    p->tail = j;
    p->queued++;
    pthread_cond_signal(&p->work);
    pthread_cond_signal(&p->timer);
    pthread_mutex_unlock(&p->lock);
    return true;
}

void pool_stats(pool_t *p, pool_stats_t *out)
{
    pthread_mutex_lock(&p->lock);
    out->workers = p->nworkers;
    out->busy = p->busy;
    out->queued = p->queued;
    out->max_queue = p->max_queue;
    out->completed = p->completed;
    out->expired = p->expired;
    out->refused = p->refused;
    pthread_mutex_unlock(&p->lock);
}

void pool_shutdown(pool_t *p)
{
    pthread_mutex_lock(&p->lock);
    if (p->stopping) {
        pthread_mutex_unlock(&p->lock);
        return;
    }
    p->stopping = true;
    pool_job_t *pending = p->head;
    p->head = p->tail = NULL;
    p->expired += (uint64_t)p->queued;
    p->queued = 0;
    pthread_cond_broadcast(&p->work);
    pthread_cond_broadcast(&p->timer);
    pthread_mutex_unlock(&p->lock);
    while (pending) {
        pool_job_t *next = pending->next;
        pending->expire(pending, true);
        pending->done(pending);
        pending = next;
    }
    if (p->timer_started)
        pthread_join(p->timer_thread, NULL);
    p->timer_started = false;
    for (int i = 0; p->slots && i < p->nworkers; i++) {
        if (p->slots[i].started)
            pthread_join(p->slots[i].thread, NULL);
        p->slots[i].started = false;
    }
}

void pool_free(pool_t *p)
{
    if (!p)
        return;
    pool_shutdown(p);
    if (p->slots) {
        for (int i = 0; i < p->nworkers; i++)
            engine_free(p->slots[i].engine);
        free(p->slots);
    }
    tb_close(p->tb); /* after the engines that probe it */
    pthread_cond_destroy(&p->timer);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
