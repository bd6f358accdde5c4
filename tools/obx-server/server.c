/* The HTTP side: the gate (gate.c) accepts connections and hands over whole requests;
 * libmicrohttpd runs one polling thread that parses them, answers the cheap ones itself
 * and hands searches to the pool, suspending the connection until a worker resumes it
 * with the answer. Every answer closes its connection, so every request passes the gate. */
#define _GNU_SOURCE /* POLLRDHUP */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "api.h"
#include "gate.h"
#include "pool.h"
#include "room.h"
#include "web.h"

#define JSON_TYPE "application/json"
#define API_METHODS "GET, POST, OPTIONS"
#define READ_METHODS "GET, HEAD, OPTIONS"
#define WEB_FILE_MAX (4u << 20)

struct server {
    server_config_t cfg;
    api_config_t api;
    pool_t *pool;
    room_t *room;
    struct MHD_Daemon *daemon;
    gate_t *gate;
    int port;
    pthread_mutex_t answers; /* hands each finished answer from a worker to the HTTP thread; guards searching */
    struct request *searching; /* suspended requests, watched for clients that leave */
    struct stream *streams;    /* the room's streams, watched the same way (under answers) */
    uint64_t cancelled;        /* searches stopped or skipped because their client left */
};

typedef enum { REQ_READING, REQ_SEARCHING, REQ_ROOM } req_state_t;

typedef struct request {
    pool_job_t job; /* first: the pool sees only this */
    server_t *srv;
    struct MHD_Connection *conn;
    req_state_t state;
    int64_t started_ms;
    char method[12], path[80]; /* for the log */
    char *body;
    size_t len, cap;
    bool too_large;
    /* While suspended: in srv->searching, watched through fd (under srv->answers). */
    struct request *prev, *next;
    bool watched, gone;
    int fd;
    engine_t *engine; /* the engine searching for it, while one does */
    /* The search, once queued. */
    char *input;
    game_t game;
    bool have_game;
    search_limits_t limits;
    int multipv, skill, elo;
    bool analysis; /* /analysis: every move's value instead of one move */
    /* Its answer, written by a pool thread (or the room) under srv->answers. */
    unsigned status;
    char *answer;
    char *cookie; /* Set-Cookie of a room answer */
    bool answered;
} request_t;

static void unwatch_locked(request_t *r)
{
    if (!r->watched)
        return;
    if (r->prev)
        r->prev->next = r->next;
    else
        r->srv->searching = r->next;
    if (r->next)
        r->next->prev = r->prev;
    r->prev = r->next = NULL;
    r->watched = false;
}

void server_config_defaults(server_config_t *c)
{
    memset(c, 0, sizeof *c);
    c->bind = "127.0.0.1";
    c->port = 8080;
    c->movetime_ms = 1000;
    c->max_movetime_ms = 10000;
    c->threads = 1;
    c->hash_mb = 16;
    c->max_body = 16384;
    c->workers = 2;
    c->queue_timeout_ms = 5000;
    c->max_queue = 64;
    c->max_connections = 1024;
    c->max_per_client = 32;
    c->request_timeout_s = 10;
    c->idle_timeout_s = 30;
    room_config_t rc;
    room_config_defaults(&rc);
    c->database = rc.db_path;
    c->lag_ms = (int)rc.lag_ms;
    c->gone_s = rc.gone_s;
    c->first_move_s = rc.first_move_s;
}

/* ---- responses ------------------------------------------------------------------ */

static bool add_header(struct MHD_Response *resp, const char *name, const char *value)
{
    return MHD_add_response_header(resp, name, value) == MHD_YES;
}

/* Queues data (taken over when owned) with the common headers. */
static enum MHD_Result respond(request_t *r, unsigned status, const char *type, void *data, size_t len, bool owned,
                               const char *allow)
{
    server_t *s = r->srv;
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(len, data, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        if (owned)
            free(data);
        return MHD_NO;
    }
    bool api = type && strcmp(type, JSON_TYPE) == 0;
    bool ok = add_header(resp, MHD_HTTP_HEADER_X_CONTENT_TYPE_OPTIONS, "nosniff");
    ok = ok && add_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    if (type)
        ok = ok && add_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    ok = ok && add_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, api ? "no-store" : "no-cache");
    if (allow)
        ok = ok && add_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
        ok = ok && add_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "1");
    if (s->cfg.cors) {
        ok = ok && add_header(resp, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN, s->cfg.cors);
        if (strcmp(s->cfg.cors, "*") != 0)
            ok = ok && add_header(resp, MHD_HTTP_HEADER_VARY, "Origin");
    }
    if (!api && type && strncmp(type, "text/html", 9) == 0)
        ok = ok && add_header(resp, "Content-Security-Policy",
                              "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
                              "frame-ancestors 'none'");
    if (r->cookie) {
        ok = ok && add_header(resp, MHD_HTTP_HEADER_SET_COOKIE, r->cookie);
        free(r->cookie);
        r->cookie = NULL;
    }
    enum MHD_Result res = ok ? MHD_queue_response(r->conn, status, resp) : MHD_NO;
    MHD_destroy_response(resp);
    if (s->cfg.log)
        fprintf(stderr, "baghchal-server: %s %s %u %zu bytes %lld ms\n", r->method, r->path, status, len,
                (long long)(pool_now_ms() - r->started_ms));
    return res;
}

static enum MHD_Result respond_json(request_t *r, unsigned status, char *json, const char *allow)
{
    static char fallback[] = "{\"error\":\"Internal error.\",\"detail\":\"out of memory\"}";
    if (!json)
        return respond(r, 500, JSON_TYPE, fallback, sizeof fallback - 1, false, NULL);
    return respond(r, status, JSON_TYPE, json, strlen(json), true, allow);
}

static enum MHD_Result respond_error(request_t *r, const api_error_t *err, const char *allow)
{
    return respond_json(r, err->status, api_error_json(err), allow);
}

static enum MHD_Result fail(request_t *r, unsigned status, const char *error, const char *code, const char *allow,
                            const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static enum MHD_Result fail(request_t *r, unsigned status, const char *error, const char *code, const char *allow,
                            const char *fmt, ...)
{
    api_error_t err;
    char detail[sizeof err.detail];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    api_error_set(&err, status, error, code, "%s", detail);
    return respond_error(r, &err, allow);
}

/* ---- the pool's side of a search ---------------------------------------------------- */

static void set_answer(request_t *r, unsigned status, char *answer)
{
    pthread_mutex_lock(&r->srv->answers);
    r->status = status;
    r->answer = answer;
    r->answered = true;
    pthread_mutex_unlock(&r->srv->answers);
}

static void job_run(pool_job_t *j, engine_t *e)
{
    request_t *r = (request_t *)j;
    api_error_t err = {0};
    pthread_mutex_lock(&r->srv->answers);
    bool gone = r->gone;
    if (gone)
        r->srv->cancelled++;
    else
        r->engine = e;
    pthread_mutex_unlock(&r->srv->answers);
    if (gone) {
        api_error_set(&err, 499, "Client gone.", "client-gone", "the client closed the connection");
        set_answer(r, 499, api_error_json(&err));
        return;
    }
    char *text = r->analysis ? api_analysis_json(e, r->input, &r->game, &r->limits, &err)
                             : api_search_json(e, r->input, &r->game, &r->limits, r->multipv, r->skill, r->elo, &err);
    pthread_mutex_lock(&r->srv->answers);
    r->engine = NULL;
    gone = r->gone;
    pthread_mutex_unlock(&r->srv->answers);
    if (gone) {
        /* Stopped short of its limits when the client left: a client that only shut its
         * sending side still reads, and must not take the cut-short move for the answer. */
        free(text);
        api_error_set(&err, 499, "Client gone.", "client-gone",
                      "the client closed the connection (or its sending side) during the search, which was "
                      "stopped before its limits: no move is given");
        set_answer(r, 499, api_error_json(&err));
    } else if (text)
        set_answer(r, MHD_HTTP_OK, text);
    else
        set_answer(r, err.status ? err.status : 500, api_error_json(&err));
}

static void job_expire(pool_job_t *j, bool shutting_down)
{
    request_t *r = (request_t *)j;
    api_error_t err;
    if (shutting_down)
        api_error_set(&err, 503, "Server busy.", "shutting-down", "the server is shutting down");
    else
        api_error_set(&err, 503, "Server busy.", "queue-timeout",
                      "all %d engines stayed busy for %d ms; try again later", r->srv->cfg.workers,
                      r->srv->cfg.queue_timeout_ms);
    set_answer(r, 503, api_error_json(&err));
}

static void job_done(pool_job_t *j)
{
    request_t *r = (request_t *)j;
    MHD_resume_connection(r->conn);
}

/* ---- endpoints ------------------------------------------------------------------ */

static const char *query_lookup(void *ctx, const char *key, size_t *len)
{
    const char *v = NULL;
    if (MHD_lookup_connection_value_n((struct MHD_Connection *)ctx, MHD_GET_ARGUMENT_KIND, key, strlen(key), &v,
                                      len) != MHD_YES)
        return NULL;
    return v;
}

/* Request fields from the JSON body when there is one, else from the query string. */
static bool read_params(request_t *r, api_params_t *p, api_error_t *err)
{
    if (r->len > 0)
        return api_params_from_json(r->body, r->len, p, err);
    return api_params_from_query(query_lookup, r->conn, p, err);
}

static enum MHD_Result handle_legal(request_t *r)
{
    api_params_t p;
    api_error_t err;
    game_t g;
    if (!read_params(r, &p, &err))
        return respond_error(r, &err, NULL);
    bool ok = api_build_game(&p, &g, &err);
    api_params_free(&p);
    if (!ok)
        return respond_error(r, &err, NULL);
    char *json = api_legal_json(&g);
    game_free(&g);
    return respond_json(r, MHD_HTTP_OK, json, NULL);
}

static enum MHD_Result handle_obx(request_t *r)
{
    server_t *s = r->srv;
    api_params_t p;
    api_error_t err;
    if (!read_params(r, &p, &err))
        return respond_error(r, &err, NULL);
    if (!api_build_game(&p, &r->game, &err)) {
        api_params_free(&p);
        return respond_error(r, &err, NULL);
    }
    r->have_game = true;
    if (game_result(&r->game).reason != RESULT_NONE && !r->analysis) {
        char *json = api_over_json(p.obx, &r->game);
        api_params_free(&p);
        return respond_json(r, MHD_HTTP_OK, json, NULL);
    }
    api_limits(&p, &s->api, &r->game, &r->limits);
    r->multipv = p.multipv ? p.multipv : 1;
    r->skill = p.skill;
    r->elo = p.elo;
    r->input = p.obx;
    p.obx = NULL;
    api_params_free(&p);
    r->job.run = job_run;
    r->job.expire = job_expire;
    r->job.done = job_done;
    r->state = REQ_SEARCHING;
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    r->fd = ci ? ci->connect_fd : -1;
    /* Suspended before it is queued, so a worker's resume always follows the suspend. */
    MHD_suspend_connection(r->conn);
    if (r->fd >= 0) {
        pthread_mutex_lock(&s->answers);
        r->next = s->searching;
        if (s->searching)
            s->searching->prev = r;
        s->searching = r;
        r->watched = true;
        pthread_mutex_unlock(&s->answers);
    }
    if (!pool_submit(s->pool, &r->job)) {
        pool_stats_t st;
        pool_stats(s->pool, &st);
        api_error_set(&err, 503, "Server busy.", "queue-full",
                      "all %d engines are busy and %d searches are waiting; try again later", st.workers,
                      st.queued);
        set_answer(r, 503, api_error_json(&err));
        MHD_resume_connection(r->conn);
    }
    return MHD_YES;
}

static enum MHD_Result handle_health(request_t *r)
{
    server_t *s = r->srv;
    pool_stats_t st;
    pool_stats(s->pool, &st);
    gate_stats_t gs;
    gate_stats(s->gate, &gs);
    pthread_mutex_lock(&s->answers);
    unsigned long long cancelled = s->cancelled;
    pthread_mutex_unlock(&s->answers);
    char *json = malloc(1024);
    if (json)
        snprintf(json, 1024,
                 "{\"status\":\"ok\",\"version\":\"%s\",\"workers\":%d,\"busy\":%d,\"queued\":%d,\"max_queue\":%d,"
                 "\"completed\":%llu,\"expired\":%llu,\"refused\":%llu,\"cancelled\":%llu,\"threads\":%d,"
                 "\"hash_mb\":%zu,\"movetime\":%lld,\"max_movetime\":%lld,\"max_body\":%zu,"
                 "\"repetition\":\"forbid\",\"tablebase\":%s,"
                 "\"connections\":{\"open\":%d,\"max\":%d,\"max_per_client\":%d,\"request_timeout\":%d,"
                 "\"accepted\":%llu,\"refused_busy\":%llu,\"refused_client\":%llu,\"refused_bad\":%llu,"
                 "\"timed_out\":%llu,\"evicted\":%llu}}",
                 BAGHCHAL_VERSION, st.workers, st.busy, st.queued, st.max_queue, (unsigned long long)st.completed,
                 (unsigned long long)st.expired, (unsigned long long)st.refused, cancelled, s->cfg.threads,
                 s->cfg.hash_mb, (long long)s->cfg.movetime_ms, (long long)s->cfg.max_movetime_ms, s->cfg.max_body,
                 s->cfg.tablebase ? "true" : "false", gs.open, s->cfg.max_connections, s->cfg.max_per_client,
                 s->cfg.request_timeout_s, (unsigned long long)gs.accepted, (unsigned long long)gs.refused_busy,
                 (unsigned long long)gs.refused_client, (unsigned long long)gs.refused_bad,
                 (unsigned long long)gs.timed_out, (unsigned long long)gs.evicted);
    return respond_json(r, MHD_HTTP_OK, json, NULL);
}

static const web_asset_t *find_asset(const char *url)
{
    if (strcmp(url, "/") == 0)
        url = "/index.html";
    for (size_t i = 0; i < WEB_ASSETS_COUNT; i++)
        if (strcmp(WEB_ASSETS[i].path, url) == 0)
            return &WEB_ASSETS[i];
    return NULL;
}

/* Development: the same file names, read from the source tree on every request. */
static enum MHD_Result serve_from_root(request_t *r, const web_asset_t *a)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s", r->srv->cfg.web_root, a->path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(r, 404, "Not found.", "not-found", NULL, "%s is not in the web root", a->path);
    char *data = malloc(WEB_FILE_MAX);
    size_t n = data ? fread(data, 1, WEB_FILE_MAX, f) : 0;
    fclose(f);
    if (!data)
        return fail(r, 500, "Internal error.", "no-memory", NULL, "out of memory");
    return respond(r, MHD_HTTP_OK, a->mime, data, n, true, NULL);
}

static enum MHD_Result handle_static(request_t *r, const web_asset_t *a)
{
    if (r->srv->cfg.web_root)
        return serve_from_root(r, a);
    return respond(r, MHD_HTTP_OK, a->mime, (void *)a->data, a->size, false, NULL);
}

static enum MHD_Result handle_options(request_t *r, const char *allow)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (!resp)
        return MHD_NO;
    bool ok = add_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    ok = ok && add_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    if (r->srv->cfg.cors) {
        ok = ok && add_header(resp, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN, r->srv->cfg.cors);
        ok = ok && add_header(resp, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_METHODS, allow);
        ok = ok && add_header(resp, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_HEADERS, "Content-Type, Authorization");
        ok = ok && add_header(resp, MHD_HTTP_HEADER_ACCESS_CONTROL_MAX_AGE, "600");
        if (strcmp(r->srv->cfg.cors, "*") != 0)
            ok = ok && add_header(resp, MHD_HTTP_HEADER_VARY, "Origin");
    }
    enum MHD_Result res = ok ? MHD_queue_response(r->conn, MHD_HTTP_NO_CONTENT, resp) : MHD_NO;
    MHD_destroy_response(resp);
    return res;
}

static bool is(const char *method, const char *name) { return strcmp(method, name) == 0; }

static enum MHD_Result handle_room(request_t *r, const char *url, const char *method);

static enum MHD_Result dispatch(request_t *r, const char *url, const char *method)
{
    if (room_owns(url))
        return handle_room(r, url, method);
    bool get = is(method, MHD_HTTP_METHOD_GET), head = is(method, MHD_HTTP_METHOD_HEAD);
    bool post = is(method, MHD_HTTP_METHOD_POST), options = is(method, MHD_HTTP_METHOD_OPTIONS);
    r->analysis = strcmp(url, "/analysis") == 0;
    if (strcmp(url, "/obx") == 0 || strcmp(url, "/legal") == 0 || r->analysis) {
        bool obx = url[1] != 'l';
        const char *allow = obx ? API_METHODS : "GET, HEAD, POST, OPTIONS";
        if (options)
            return handle_options(r, allow);
        if (!(get || post || (head && !obx)))
            return fail(r, 405, "Method not allowed.", "method", allow, "%s accepts %s, not %s", url, allow, method);
        return obx ? handle_obx(r) : handle_legal(r);
    }
    const web_asset_t *asset = NULL;
    bool health = strcmp(url, "/health") == 0;
    if (!health && !(asset = find_asset(url)))
        return fail(r, 404, "Not found.", "not-found", NULL, "nothing at %.200s; the API is /obx, /legal, /analysis, /health",
                    url);
    if (options)
        return handle_options(r, READ_METHODS);
    if (!get && !head)
        return fail(r, 405, "Method not allowed.", "method", READ_METHODS, "%s accepts %s, not %s", url,
                    READ_METHODS, method);
    return health ? handle_health(r) : handle_static(r, asset);
}

/* ---- the room: /api/ ----------------------------------------------------------------------- */

#define ROOM_METHODS "GET, POST, DELETE, OPTIONS"

/* The room's answer, now or later from the store's writer thread: handed over like a search's. */
static void room_reply(void *ctx, unsigned status, char *json, char *cookie)
{
    request_t *r = ctx;
    pthread_mutex_lock(&r->srv->answers);
    r->status = status;
    r->answer = json;
    r->cookie = cookie;
    r->answered = true;
    pthread_mutex_unlock(&r->srv->answers);
    MHD_resume_connection(r->conn);
}

static const char *room_query(void *ctx, const char *key)
{
    request_t *r = ctx;
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, key);
}

/* The player's token: "Authorization: Bearer T", else the cookie the browser keeps. */
static const char *room_token(struct MHD_Connection *c)
{
    const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (a && !strncasecmp(a, "Bearer ", 7))
        return a + 7;
    return MHD_lookup_connection_value(c, MHD_COOKIE_KIND, "bc");
}

static void client_address(struct MHD_Connection *c, char *buf, size_t len)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    buf[0] = '\0';
    if (!info || !info->client_addr)
        return;
    const struct sockaddr *sa = info->client_addr;
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf, (socklen_t)len);
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf, (socklen_t)len);
}

/* A stream is suspended while it has nothing to send, and libmicrohttpd does not watch a
 * suspended connection: watch_clients looks for the clients that left (a player whose last
 * stream of a game closes is away) and ends their streams. */
typedef struct stream {
    server_t *srv;
    struct MHD_Connection *conn;
    room_sub_t *sub;
    int fd;
    bool gone;                  /* the client left: the stream ends (under srv->answers) */
    struct stream *prev, *next; /* in srv->streams */
} stream_t;

static void stream_wake(void *ctx)
{
    stream_t *st = ctx;
    MHD_resume_connection(st->conn);
}

static void stream_suspend(void *ctx)
{
    stream_t *st = ctx;
    MHD_suspend_connection(st->conn);
}

/* Events as they come; with nothing to send the connection is suspended until the room wakes it. */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    stream_t *st = cls;
    pthread_mutex_lock(&st->srv->answers);
    bool gone = st->gone;
    pthread_mutex_unlock(&st->srv->answers);
    if (gone)
        return MHD_CONTENT_READER_END_OF_STREAM;
    ssize_t n = room_sub_read(st->sub, buf, max, stream_suspend);
    return n < 0 ? MHD_CONTENT_READER_END_OF_STREAM : n;
}

static void stream_free(void *cls)
{
    stream_t *st = cls;
    server_t *s = st->srv;
    pthread_mutex_lock(&s->answers);
    if (st->prev)
        st->prev->next = st->next;
    else if (s->streams == st)
        s->streams = st->next;
    if (st->next)
        st->next->prev = st->prev;
    pthread_mutex_unlock(&s->answers);
    room_unsubscribe(st->sub);
    free(st);
}

static enum MHD_Result handle_stream(request_t *r, const room_request_t *q)
{
    const char *accept = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    bool sse = accept && strstr(accept, "text/event-stream");
    stream_t *st = calloc(1, sizeof *st);
    if (!st)
        return fail(r, 503, "Server busy.", "no-memory", NULL, "out of memory");
    st->srv = r->srv, st->conn = r->conn;
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    st->fd = ci ? ci->connect_fd : -1;
    unsigned status = 0;
    char *json = NULL;
    st->sub = room_subscribe(r->srv->room, q, sse ? ROOM_SSE : ROOM_NDJSON, stream_wake, st, &status, &json);
    if (!st->sub) {
        free(st);
        return respond_json(r, status, json, NULL);
    }
    struct MHD_Response *resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, stream_read, st, stream_free);
    if (!resp) {
        stream_free(st);
        return MHD_NO;
    }
    bool ok = add_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, sse ? "text/event-stream" : "application/x-ndjson");
    ok = ok && add_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    ok = ok && add_header(resp, MHD_HTTP_HEADER_X_CONTENT_TYPE_OPTIONS, "nosniff");
    ok = ok && add_header(resp, "X-Accel-Buffering", "no");
    if (r->srv->cfg.cors)
        ok = ok && add_header(resp, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN, r->srv->cfg.cors);
    enum MHD_Result res = ok ? MHD_queue_response(r->conn, MHD_HTTP_OK, resp) : MHD_NO;
    if (res == MHD_YES && st->fd >= 0) {
        pthread_mutex_lock(&r->srv->answers);
        st->next = r->srv->streams;
        if (st->next)
            st->next->prev = st;
        r->srv->streams = st;
        pthread_mutex_unlock(&r->srv->answers);
    }
    MHD_destroy_response(resp);
    if (r->srv->cfg.log)
        fprintf(stderr, "baghchal-server: %s %s 200 stream\n", r->method, r->path);
    return res;
}

static enum MHD_Result handle_room(request_t *r, const char *url, const char *method)
{
    if (is(method, MHD_HTTP_METHOD_OPTIONS))
        return handle_options(r, ROOM_METHODS);
    char client[64];
    client_address(r->conn, client, sizeof client);
    room_request_t q = {method, url, room_token(r->conn), r->body, r->len, room_query, r, client};
    if (is(method, MHD_HTTP_METHOD_GET) && room_is_stream(url))
        return handle_stream(r, &q);
    if (!is(method, MHD_HTTP_METHOD_GET) && !is(method, MHD_HTTP_METHOD_POST) && !is(method, "DELETE"))
        return fail(r, 405, "Method not allowed.", "method", ROOM_METHODS, "%s accepts %s, not %s", url, ROOM_METHODS,
                    method);
    r->state = REQ_ROOM;
    MHD_suspend_connection(r->conn);
    room_handle(r->srv->room, &q, room_reply, r);
    return MHD_YES;
}

/* ---- libmicrohttpd callbacks ---------------------------------------------------------- */

static bool body_append(request_t *r, const char *data, size_t n)
{
    size_t limit = r->srv->cfg.max_body;
    /* The gate has checked the length already; this only guards the buffer. */
    if (r->too_large || r->len + n > limit) {
        r->too_large = true;
        return true;
    }
    if (r->len + n + 1 > r->cap) {
        size_t cap = r->cap ? r->cap : 1024;
        while (cap < r->len + n + 1)
            cap *= 2;
        if (cap > limit + 1)
            cap = limit + 1;
        char *b = realloc(r->body, cap);
        if (!b)
            return false;
        r->body = b;
        r->cap = cap;
    }
    memcpy(r->body + r->len, data, n);
    r->len += n;
    r->body[r->len] = '\0';
    return true;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
    (void)version;
    server_t *s = cls;
    request_t *r = *con_cls;
    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r)
            return MHD_NO;
        r->srv = s;
        r->conn = conn;
        r->started_ms = pool_now_ms();
        snprintf(r->method, sizeof r->method, "%s", method);
        snprintf(r->path, sizeof r->path, "%s", url);
        *con_cls = r;
        const char *length = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (length) {
            char *end;
            errno = 0;
            unsigned long long n = strtoull(length, &end, 10);
            if (errno || end == length || n > s->cfg.max_body)
                return fail(r, 413, "Request body too large.", "body-size", NULL,
                            "the body limit is %zu bytes", s->cfg.max_body);
        }
        return MHD_YES;
    }
    if (r->state == REQ_ROOM) {
        /* Resumed by the room: its answer is ready. */
        pthread_mutex_lock(&s->answers);
        bool answered = r->answered;
        unsigned status = r->status;
        char *answer = r->answer;
        r->answer = NULL;
        pthread_mutex_unlock(&s->answers);
        if (!answered)
            return MHD_NO;
        return respond_json(r, status, answer, NULL);
    }
    if (r->state == REQ_SEARCHING) {
        /* Resumed by the pool: the answer is ready. */
        pthread_mutex_lock(&s->answers);
        unwatch_locked(r);
        bool answered = r->answered;
        unsigned status = r->status;
        char *answer = r->answer;
        r->answer = NULL;
        pthread_mutex_unlock(&s->answers);
        if (!answered)
            return MHD_NO;
        return respond_json(r, status, answer, NULL);
    }
    if (*upload_size) {
        bool ok = body_append(r, upload_data, *upload_size);
        *upload_size = 0;
        return ok ? MHD_YES : MHD_NO;
    }
    if (r->too_large)
        return fail(r, 413, "Request body too large.", "body-size", NULL, "the body limit is %zu bytes",
                    s->cfg.max_body);
    return dispatch(r, url, method);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls, (void)conn, (void)toe;
    request_t *r = *con_cls;
    if (!r)
        return;
    *con_cls = NULL;
    pthread_mutex_lock(&r->srv->answers);
    unwatch_locked(r);
    pthread_mutex_unlock(&r->srv->answers);
    free(r->body);
    free(r->input);
    free(r->answer);
    free(r->cookie);
    if (r->have_game)
        game_free(&r->game);
    free(r);
}

/* Query strings from HTML forms and URLSearchParams write a space as '+'. */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls, (void)c;
    for (char *p = s; *p; p++)
        if (*p == '+')
            *p = ' ';
    return MHD_http_unescape(s);
}

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    fputs("baghchal-server: libmicrohttpd: ", stderr);
    vfprintf(stderr, fmt, ap);
}

/* ---- the gate's side ------------------------------------------------------------- */

static bool hand_over(void *ctx, int fd, const struct sockaddr *addr, socklen_t len)
{
    server_t *s = ctx;
    return MHD_add_connection(s->daemon, fd, addr, len) == MHD_YES;
}

/* A suspended search whose client has closed its connection (or shut its sending side) is
 * stopped: nobody would read its answer. */
static void watch_clients(void *ctx)
{
    server_t *s = ctx;
    room_tick(s->room);
    pthread_mutex_lock(&s->answers);
    for (request_t *r = s->searching; r; r = r->next) {
        if (!r->gone) {
            struct pollfd p = {r->fd, POLLRDHUP, 0};
            if (poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
                r->gone = true;
                if (r->engine)
                    s->cancelled++;
            }
        }
        /* Again on every tick: a stop that lands before the search has started is lost. */
        if (r->gone && r->engine)
            engine_abort(r->engine);
    }
    /* A stream whose client left ends: resumed, it reads its end (libmicrohttpd then closes
     * the connection and the room hears the player has gone). */
    for (stream_t *st = s->streams; st; st = st->next) {
        if (st->gone)
            continue;
        struct pollfd p = {st->fd, POLLRDHUP, 0};
        if (poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
            st->gone = true;
            MHD_resume_connection(st->conn);
        }
    }
    pthread_mutex_unlock(&s->answers);
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    (void)socket_context;
    server_t *s = cls;
    if (code != MHD_CONNECTION_NOTIFY_CLOSED)
        return;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info && info->client_addr)
        gate_release(s->gate, info->client_addr);
}

/* ---- start and stop ----------------------------------------------------------------- */

static int listen_on(const server_config_t *cfg, int *port, char *err, size_t errlen)
{
    union {
        struct sockaddr sa;
        struct sockaddr_in v4;
        struct sockaddr_in6 v6;
    } addr;
    memset(&addr, 0, sizeof addr);
    socklen_t alen;
    if (inet_pton(AF_INET, cfg->bind, &addr.v4.sin_addr) == 1) {
        addr.v4.sin_family = AF_INET;
        addr.v4.sin_port = htons((uint16_t)cfg->port);
        alen = sizeof addr.v4;
    } else if (inet_pton(AF_INET6, cfg->bind, &addr.v6.sin6_addr) == 1) {
        addr.v6.sin6_family = AF_INET6;
        addr.v6.sin6_port = htons((uint16_t)cfg->port);
        alen = sizeof addr.v6;
    } else {
        snprintf(err, errlen, "--bind %s is not an IPv4 or IPv6 address", cfg->bind);
        return -1;
    }
    int fd = socket(addr.sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        (addr.sa.sa_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) != 0) ||
        bind(fd, &addr.sa, alen) != 0 || listen(fd, 1024) != 0 || getsockname(fd, &addr.sa, &alen) != 0) {
        snprintf(err, errlen, "cannot listen on %s port %d: %s", cfg->bind, cfg->port, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(addr.sa.sa_family == AF_INET ? addr.v4.sin_port : addr.v6.sin6_port);
    return fd;
}

server_t *server_start(const server_config_t *cfg, char *err, size_t errlen)
{
    int port = 0;
    int fd = listen_on(cfg, &port, err, errlen);
    if (fd < 0)
        return NULL;
    server_t *s = calloc(1, sizeof *s);
    if (!s) {
        close(fd);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    s->port = port;
    s->api.default_movetime_ms = cfg->movetime_ms;
    s->api.max_movetime_ms = cfg->max_movetime_ms;
    if (pthread_mutex_init(&s->answers, NULL) != 0) {
        close(fd);
        free(s);
        snprintf(err, errlen, "cannot create a mutex");
        return NULL;
    }
    pool_config_t pc = {cfg->workers, cfg->threads, cfg->hash_mb, cfg->max_queue, cfg->queue_timeout_ms,
                        cfg->tablebase};
    s->pool = pool_new(&pc, err, errlen);
    if (!s->pool) {
        close(fd);
        pthread_mutex_destroy(&s->answers);
        free(s);
        return NULL;
    }
    room_config_t rc;
    room_config_defaults(&rc);
    rc.db_path = cfg->database, rc.durable = cfg->durable, rc.lag_ms = cfg->lag_ms, rc.gone_s = cfg->gone_s;
    rc.first_move_s = cfg->first_move_s;
    s->room = room_open(&rc, err, errlen);
    if (!s->room) {
        close(fd);
        pool_free(s->pool);
        pthread_mutex_destroy(&s->answers);
        free(s);
        return NULL;
    }
    /* libmicrohttpd's own messages are mostly about clients' mistakes: only with --log. It
     * listens on nothing: the gate hands it each connection once its request is whole, and
     * the gate's limits are the real ones. */
    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_NO_LISTEN_SOCKET |
                     MHD_USE_ITC | (cfg->log ? MHD_USE_ERROR_LOG : 0);
    s->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s,                                 //
                                 MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL,                           //
                                 MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,                        //
                                 MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,                      //
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned)cfg->max_connections + 16u,   //
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)cfg->idle_timeout_s,        //
                                 MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,                        //
                                 MHD_OPTION_END);
    if (!s->daemon) {
        snprintf(err, errlen, "libmicrohttpd refused to start: %s", errno ? strerror(errno) : "unknown reason");
        close(fd);
        room_close(s->room);
        pool_free(s->pool);
        pthread_mutex_destroy(&s->answers);
        free(s);
        return NULL;
    }
    gate_config_t gc = {fd,
                        cfg->max_connections,
                        cfg->max_per_client,
                        cfg->request_timeout_s * 1000,
                        cfg->max_body,
                        cfg->cors,
                        hand_over,
                        watch_clients,
                        s,
                        &s->gate};
    if (!gate_start(&gc, err, errlen)) { /* s->gate is set through gc.publish */
        pool_shutdown(s->pool);
        room_shutdown(s->room);
        MHD_stop_daemon(s->daemon);
        room_close(s->room);
        pool_free(s->pool);
        pthread_mutex_destroy(&s->answers);
        free(s);
        return NULL;
    }
    return s;
}

int server_port(const server_t *s) { return s->port; }

void server_stop(server_t *s)
{
    if (!s)
        return;
    /* No new connections; the ones still arriving are closed. */
    gate_stop(s->gate);
    /* Every suspended connection is resumed by the pool before it stops: libmicrohttpd
     * must not be stopped with one still suspended. */
    pool_shutdown(s->pool);
    /* The room answers what it was asked (once stored) and ends every stream. */
    room_shutdown(s->room);
    /* Give the last answers a moment to reach their clients. */
    for (int i = 0; i < 100; i++) {
        const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
        if (!info || info->num_connections == 0)
            break;
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(s->daemon);
    room_close(s->room);
    gate_free(s->gate);
    pool_free(s->pool);
    pthread_mutex_destroy(&s->answers);
    free(s);
}
