/* The room's storage, whatever the database (see store.h): the queue of writes, the writer
 * thread that hands them to the backend in groups and calls their callbacks, and the lock of
 * the reading connection. The SQL is the backend's (store_sqlite.c, store_pg.c). */
#include "store_int.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct store {
    const store_backend_t *b;
    void *db;
    char *name; /* for messages */
    int opened_version;

    pthread_mutex_t rlock; /* the reading connection */

    pthread_mutex_t qlock; /* everything below */
    pthread_cond_t work;   /* something queued, or closing */
    pthread_cond_t done;   /* a group is done */
    write_t *head, *tail;
    uint64_t queued_seq, done_seq; /* writes queued, writes done, ever */
    bool closing, started;
    uint64_t writes, transactions, failed;
    pthread_t thread;
};

/* The store whose writer this thread is (store_flush must not wait for itself), and the
 * store whose read this thread is in (a read callback that reads would wait for itself). */
static _Thread_local const store_t *writer_of;
static _Thread_local const store_t *reading;

void store_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    /* One line, whatever the database said. */
    for (char *c = err; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t')
            *c = ' ';
    for (size_t n = strlen(err); n && err[n - 1] == ' '; n--)
        err[n - 1] = '\0';
}

/* ---- opening and closing ------------------------------------------------------------- */

static bool is_pg_url(const char *s) { return !strncmp(s, "postgresql://", 13) || !strncmp(s, "postgres://", 11); }

static void *writer_main(void *arg);

store_t *store_open(const char *where, bool durable, char *err, size_t errlen)
{
    if (!where || !*where) {
        store_set_err(err, errlen, "no database file named");
        return NULL;
    }
    store_t *s = calloc(1, sizeof *s);
    if (!s || !(s->name = strdup(where))) {
        free(s);
        store_set_err(err, errlen, "%s: out of memory", where);
        return NULL;
    }
    int made = 0;
    if (pthread_mutex_init(&s->rlock, NULL) == 0 && ++made && pthread_mutex_init(&s->qlock, NULL) == 0 &&
        ++made && pthread_cond_init(&s->work, NULL) == 0 && ++made && pthread_cond_init(&s->done, NULL) == 0)
        ++made;
    if (made == 4) {
        s->db = is_pg_url(where) ? store_pg_open(where, durable, &s->b, &s->opened_version, err, errlen)
                                 : store_sqlite_open(where, durable, &s->b, &s->opened_version, err, errlen);
        if (s->db && pthread_create(&s->thread, NULL, writer_main, s) == 0) {
            s->started = true;
            return s;
        }
        if (s->db) {
            store_set_err(err, errlen, "%s: cannot start the writer thread", where);
            s->b->close(s->db);
        }
    } else {
        store_set_err(err, errlen, "%s: cannot create the writer's locks", where);
    }
    if (made >= 4)
        pthread_cond_destroy(&s->done);
    if (made >= 3)
        pthread_cond_destroy(&s->work);
    if (made >= 2)
        pthread_mutex_destroy(&s->qlock);
    if (made >= 1)
        pthread_mutex_destroy(&s->rlock);
    free(s->name);
    free(s);
    return NULL;
}

int store_opened_version(const store_t *s) { return s->opened_version; }

void store_close(store_t *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->qlock);
    s->closing = true;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->qlock);
    if (s->started)
        pthread_join(s->thread, NULL);
    s->b->close(s->db);
    pthread_cond_destroy(&s->done);
    pthread_cond_destroy(&s->work);
    pthread_mutex_destroy(&s->qlock);
    pthread_mutex_destroy(&s->rlock);
    free(s->name);
    free(s);
}

/* ---- the writer ------------------------------------------------------------------------- */

static void free_write(write_t *w)
{
    if (w->op == OP_GAME || w->op == OP_START)
        free(w->u.game.moves);
    free(w->note);
    free(w);
}

static void *writer_main(void *arg)
{
    store_t *s = arg;
    writer_of = s;
    pthread_mutex_lock(&s->qlock);
    for (;;) {
        while (!s->head && !s->closing)
            pthread_cond_wait(&s->work, &s->qlock);
        if (!s->head)
            break;
        write_t *group = s->head;
        s->head = s->tail = NULL;
        pthread_mutex_unlock(&s->qlock);

        uint64_t commits = s->b->run_group(s->db, group), n = 0, failed = 0;
        for (write_t *w = group, *next; w; w = next) {
            next = w->next;
            n++;
            failed += !w->ok;
            if (w->gone)
                *w->gone = w->lost && !w->ok;
            if (w->done)
                w->done(w->ctx, w->ok);
            free_write(w);
        }
        if (commits && s->b->committed)
            s->b->committed(s->db);

        pthread_mutex_lock(&s->qlock);
        s->done_seq += n;
        s->writes += n;
        s->failed += failed;
        s->transactions += commits;
        pthread_cond_broadcast(&s->done);
    }
    pthread_mutex_unlock(&s->qlock);
    return NULL;
}

/* Queues w (taking it) unless the store is closing. */
static bool enqueue(store_t *s, write_t *w)
{
    pthread_mutex_lock(&s->qlock);
    if (s->closing) {
        pthread_mutex_unlock(&s->qlock);
        free_write(w);
        return false;
    }
    if (s->tail)
        s->tail->next = w;
    else
        s->head = w;
    s->tail = w;
    s->queued_seq++;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->qlock);
    return true;
}

static write_t *new_write(int op, store_done_fn done, void *ctx)
{
    write_t *w = calloc(1, sizeof *w);
    if (w) {
        w->op = op;
        w->done = done;
        w->ctx = ctx;
    }
    return w;
}

/* A fixed field copied into another of the same size, always terminated. */
static void copy_field(char *dst, const char *src, size_t size)
{
    size_t n = src ? strnlen(src, size - 1) : 0;
    memcpy(dst, src ? src : "", n);
    dst[n] = '\0';
}
#define COPY_FIELD(dst, src) copy_field(dst, src, sizeof(dst))

bool store_put_player(store_t *s, const store_player_t *p, store_done_fn done, void *ctx)
{
    write_t *w = new_write(OP_PLAYER, done, ctx);
    if (!w)
        return false;
    w->u.player = *p;
    COPY_FIELD(w->u.player.id, p->id);
    COPY_FIELD(w->u.player.name, p->name);
    COPY_FIELD(w->u.player.pw_hash, p->pw_hash);
    return enqueue(s, w);
}

bool store_put_rating(store_t *s, const store_rating_t *r, store_done_fn done, void *ctx)
{
    write_t *w = new_write(OP_RATING, done, ctx);
    if (!w)
        return false;
    w->u.rating = *r;
    COPY_FIELD(w->u.rating.player, r->player);
    COPY_FIELD(w->u.rating.cls, r->cls);
    return enqueue(s, w);
}

bool store_put_token(store_t *s, const char *token_hash, const char *player, int64_t created_ms, store_done_fn done,
                     void *ctx)
{
    write_t *w = new_write(OP_TOKEN, done, ctx);
    if (!w)
        return false;
    COPY_FIELD(w->u.token.hash, token_hash);
    COPY_FIELD(w->u.token.player, player);
    w->u.token.created_ms = created_ms;
    return enqueue(s, w);
}

bool store_put_challenge(store_t *s, const store_challenge_t *c, store_done_fn done, void *ctx)
{
    write_t *w = new_write(OP_CHALLENGE, done, ctx);
    if (!w)
        return false;
    w->u.challenge = *c;
    COPY_FIELD(w->u.challenge.id, c->id);
    COPY_FIELD(w->u.challenge.from, c->from);
    COPY_FIELD(w->u.challenge.to, c->to);
    return enqueue(s, w);
}

bool store_delete_challenge(store_t *s, const char *id, store_done_fn done, void *ctx)
{
    write_t *w = new_write(OP_DELETE_CHALLENGE, done, ctx);
    if (!w)
        return false;
    COPY_FIELD(w->u.id, id);
    return enqueue(s, w);
}

/* A write of op carrying a copy of game g; NULL when out of memory. */
static write_t *new_game_write(int op, const store_game_t *g, store_done_fn done, void *ctx)
{
    write_t *w = new_write(op, done, ctx);
    if (w && !store_game_copy(&w->u.game, g)) {
        free(w);
        return NULL;
    }
    return w;
}

bool store_put_game(store_t *s, const store_game_t *g, store_done_fn done, void *ctx)
{
    write_t *w = new_game_write(OP_GAME, g, done, ctx);
    return w && enqueue(s, w);
}

bool store_start_game(store_t *s, const store_game_t *g, const char *challenge, bool *gone, store_done_fn done,
                      void *ctx)
{
    write_t *w = new_game_write(OP_START, g, done, ctx);
    if (!w)
        return false;
    COPY_FIELD(w->claim, challenge);
    w->gone = gone;
    return enqueue(s, w);
}

bool store_heartbeat(store_t *s, int64_t now_ms, store_done_fn done, void *ctx)
{
    write_t *w = new_write(OP_HEARTBEAT, done, ctx);
    if (!w)
        return false;
    w->u.now_ms = now_ms;
    return enqueue(s, w);
}

bool store_notify(store_t *s, const char *text, store_done_fn done, void *ctx)
{
    if (strlen(text) > STORE_NOTE_MAX)
        return false;
    write_t *w = new_write(OP_NOTIFY, done, ctx);
    if (!w)
        return false;
    if (!(w->note = strdup(text))) {
        free(w);
        return false;
    }
    return enqueue(s, w);
}

int store_listen(store_t *s, void (*fn)(void *ctx, const char *text), void *ctx, char *err, size_t errlen)
{
    return s->b->listen ? s->b->listen(s->db, fn, ctx, err, errlen) : 0;
}

void store_flush(store_t *s)
{
    if (writer_of == s)
        return; /* from a callback: what came before is done already, what comes after cannot be */
    pthread_mutex_lock(&s->qlock);
    uint64_t until = s->queued_seq;
    while (s->done_seq < until)
        pthread_cond_wait(&s->done, &s->qlock);
    pthread_mutex_unlock(&s->qlock);
}

void store_stats(store_t *s, store_stats_t *out)
{
    pthread_mutex_lock(&s->qlock);
    out->writes = s->writes;
    out->transactions = s->transactions;
    out->failed = s->failed;
    out->queued = (int)(s->queued_seq - s->done_seq);
    pthread_mutex_unlock(&s->qlock);
}

/* ---- games ------------------------------------------------------------------------------ */

bool store_game_copy(store_game_t *dst, const store_game_t *src)
{
    *dst = *src;
    dst->moves = NULL;
    if (src->moves && !(dst->moves = strdup(src->moves)))
        return false;
    return true;
}

void store_game_free(store_game_t *g)
{
    if (!g)
        return;
    free(g->moves);
    g->moves = NULL;
}

/* ---- reads ------------------------------------------------------------------------------ */

/* Takes the reading connection; false (a reason in err) when this thread is already reading
 * this store, from a read's callback. */
static bool read_begin(store_t *s, char *err, size_t errlen)
{
    if (reading == s) {
        store_set_err(err, errlen, "%s: a read from within a read's callback", s->name);
        return false;
    }
    pthread_mutex_lock(&s->rlock);
    reading = s;
    return true;
}

static void read_end(store_t *s)
{
    reading = NULL;
    pthread_mutex_unlock(&s->rlock);
}

bool store_each_player(store_t *s, void (*fn)(void *ctx, const store_player_t *p), void *ctx, char *err, size_t errlen)
{
    if (!read_begin(s, err, errlen))
        return false;
    bool ok = s->b->each_player(s->db, fn, ctx, err, errlen);
    read_end(s);
    return ok;
}

bool store_each_rating(store_t *s, void (*fn)(void *ctx, const store_rating_t *r), void *ctx, char *err, size_t errlen)
{
    if (!read_begin(s, err, errlen))
        return false;
    bool ok = s->b->each_rating(s->db, fn, ctx, err, errlen);
    read_end(s);
    return ok;
}

bool store_each_challenge(store_t *s, void (*fn)(void *ctx, const store_challenge_t *c), void *ctx, char *err,
                          size_t errlen)
{
    if (!read_begin(s, err, errlen))
        return false;
    bool ok = s->b->each_challenge(s->db, fn, ctx, err, errlen);
    read_end(s);
    return ok;
}

bool store_each_live_game(store_t *s, void (*fn)(void *ctx, store_game_t *g), void *ctx, char *err, size_t errlen)
{
    if (!read_begin(s, err, errlen))
        return false;
    bool ok = s->b->each_live_game(s->db, fn, ctx, err, errlen);
    read_end(s);
    return ok;
}

typedef struct {
    void (*fn)(void *ctx, store_game_t *g, bool held);
    void *ctx;
} unheld_t;

static void unheld(void *ctx, store_game_t *g)
{
    unheld_t *u = ctx;
    u->fn(u->ctx, g, false);
}

bool store_each_live_game_held(store_t *s, void (*fn)(void *ctx, store_game_t *g, bool held), void *ctx, char *err,
                               size_t errlen)
{
    if (!read_begin(s, err, errlen))
        return false;
    unheld_t u = {fn, ctx};
    bool ok = s->b->each_live_game_held ? s->b->each_live_game_held(s->db, fn, ctx, err, errlen)
                                        : s->b->each_live_game(s->db, unheld, &u, err, errlen);
    read_end(s);
    return ok;
}

int store_get_game(store_t *s, const char *id, store_game_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!read_begin(s, err, errlen))
        return -1;
    int found = s->b->get_game(s->db, id, out, err, errlen);
    read_end(s);
    return found;
}

int store_player_games(store_t *s, const char *player, char (*ids)[STORE_ID_LEN], int max, char *err, size_t errlen)
{
    if (max <= 0)
        return 0;
    if (!read_begin(s, err, errlen))
        return -1;
    int n = s->b->player_games(s->db, player, ids, max, err, errlen);
    read_end(s);
    return n;
}

int store_find_token(store_t *s, const char *token_hash, char player[STORE_ID_LEN], char *err, size_t errlen)
{
    if (!read_begin(s, err, errlen))
        return -1;
    int found = s->b->find_token(s->db, token_hash, player, err, errlen);
    read_end(s);
    return found;
}

int store_get_player(store_t *s, const char *id, store_player_t *out, store_rating_t *ratings, int max, int *nratings,
                     char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    *nratings = 0;
    if (!read_begin(s, err, errlen))
        return -1;
    int found = s->b->get_player(s->db, id, out, ratings, max, nratings, err, errlen);
    read_end(s);
    return found;
}

int store_find_name(store_t *s, const char *name, char player[STORE_ID_LEN], char *err, size_t errlen)
{
    if (!read_begin(s, err, errlen))
        return -1;
    int found = s->b->find_name(s->db, name, player, err, errlen);
    read_end(s);
    return found;
}

int store_get_challenge(store_t *s, const char *id, store_challenge_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!read_begin(s, err, errlen))
        return -1;
    int found = s->b->get_challenge(s->db, id, out, err, errlen);
    read_end(s);
    return found;
}

int store_own_game(store_t *s, const char *id)
{
    if (!s->b->own_game)
        return 1;
    if (!read_begin(s, NULL, 0))
        return -1;
    int k = s->b->own_game(s->db, id, true);
    read_end(s);
    return k;
}

void store_disown_game(store_t *s, const char *id)
{
    if (!s->b->own_game || !read_begin(s, NULL, 0))
        return;
    s->b->own_game(s->db, id, false);
    read_end(s);
}

unsigned store_holds_epoch(store_t *s)
{
    if (!s->b->holds_epoch)
        return 0;
    pthread_mutex_lock(&s->rlock);
    unsigned e = s->b->holds_epoch(s->db);
    pthread_mutex_unlock(&s->rlock);
    return e;
}

int64_t store_last_heartbeat(store_t *s)
{
    if (!read_begin(s, NULL, 0))
        return 0;
    int64_t at = s->b->last_heartbeat(s->db);
    read_end(s);
    return at;
}
