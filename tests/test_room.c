/* The room where people play (tools/obx-server/ONLINE.md), driven through the real
 * baghchal-server over real sockets: accounts and tokens, the lobby and its stream, games
 * played to their end by the rules with every move checked on every stream, the refusals that
 * change nothing, offers, clocks, players away, restarts on the same database (clean and
 * killed) and bad input. Each test starts its own server on a fresh database file; run by
 * tests/support/postgres.sh (BAGHCHAL_TEST_POSTGRES set), on a fresh PostgreSQL database. */
#define _GNU_SOURCE /* mkdtemp, strndup */
#include <criterion/criterion.h>

#if !defined(BAGHCHAL_ROOM) || !defined(BAGHCHAL_SERVER_BIN)
Test(room, not_built, .disabled = true) {}
#else

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cJSON.h"
#include "pgtest.h"

#include "baghchal.h"
#include "net.h"
#include "pipe.h"

/* Generous bounds: sanitizer builds on a shared two-core machine are slow. */
enum { START_MS = 30000, REPLY_MS = 30000, EXIT_MS = 30000, EVENT_MS = 10000 };

/* ---- what a test keeps, freed when it ends ----------------------------------------- */

typedef struct {
    void **ptr;
    bool *json;
    size_t n, cap;
} garbage_t;
static garbage_t garbage;

static void keep_any(void *p, bool json)
{
    if (!p)
        return;
    if (garbage.n == garbage.cap) {
        size_t cap = garbage.cap ? garbage.cap * 2 : 256;
        void **pp = realloc(garbage.ptr, cap * sizeof *pp);
        cr_assert_not_null(pp);
        garbage.ptr = pp;
        bool *jj = realloc(garbage.json, cap * sizeof *jj);
        cr_assert_not_null(jj);
        garbage.json = jj;
        garbage.cap = cap;
    }
    garbage.ptr[garbage.n] = p, garbage.json[garbage.n] = json, garbage.n++;
}

static cJSON *keep_json(cJSON *j)
{
    keep_any(j, true);
    return j;
}

static char *keep_str(char *s)
{
    keep_any(s, false);
    return s;
}

/* ---- the server process ----------------------------------------------------------- */

/* The server may carry a sanitizer while this suite does not (the ThreadSanitizer build
 * instruments only the programs): look at the binary. Timing bounds are wider then. */
static bool server_sanitized(void)
{
    static int known = -1;
    if (known < 0)
        known = net_binary_sanitized(BAGHCHAL_SERVER_BIN);
    return known == 1;
}

/* How much longer a timing bound is under a sanitizer. */
static double slow(void) { return server_sanitized() ? 3.0 : 1.0; }

typedef struct {
    pipe_proc_t *proc;
    int port;
    char db[256];
} srv_t;

static srv_t servers[8];
static int servers_nb;
static char tmp_dir[64];

typedef struct stream stream_t;
static stream_t *streams[64];
static int streams_nb;
static void stream_free(stream_t *st);

static void cleanup(void)
{
    for (int i = 0; i < streams_nb; i++)
        stream_free(streams[i]);
    streams_nb = 0;
    for (int i = 0; i < servers_nb; i++)
        pipe_free(servers[i].proc);
    servers_nb = 0;
    for (size_t i = 0; i < garbage.n; i++) {
        if (garbage.json[i])
            cJSON_Delete(garbage.ptr[i]);
        else
            free(garbage.ptr[i]);
    }
    free(garbage.ptr), free(garbage.json);
    memset(&garbage, 0, sizeof garbage);
    if (tmp_dir[0]) {
        DIR *d = opendir(tmp_dir);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char p[512];
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(p, sizeof p, "%s/%s", tmp_dir, e->d_name);
                unlink(p);
            }
        }
        if (d)
            closedir(d);
        rmdir(tmp_dir);
        tmp_dir[0] = '\0';
    }
}

TestSuite(room, .fini = cleanup, .timeout = 180);

/* A fresh database file in this test's own folder, or a fresh PostgreSQL database. */
static const char *fresh_db(const char *name)
{
    if (pgtest_server()) {
        char *url = malloc(512), err[256] = "";
        cr_assert_not_null(url);
        cr_assert(pgtest_fresh(name, url, 512, err, sizeof err), "%s", err);
        return keep_str(url);
    }
    if (!tmp_dir[0]) {
        snprintf(tmp_dir, sizeof tmp_dir, "/tmp/test_room.XXXXXX");
        cr_assert_not_null(mkdtemp(tmp_dir), "mkdtemp: %s", strerror(errno));
    }
    char *p = malloc(300);
    cr_assert_not_null(p);
    snprintf(p, 300, "%s/%s.sqlite", tmp_dir, name);
    return keep_str(p);
}

static srv_t *start_argv(const char *db, const char *const *extra)
{
    char *argv[40];
    int n = 0;
    argv[n++] = (char *)BAGHCHAL_SERVER_BIN;
    argv[n++] = "--port";
    argv[n++] = "0";
    argv[n++] = "--hash";
    argv[n++] = "4";
    argv[n++] = "--workers";
    argv[n++] = "1";
    argv[n++] = "--database";
    argv[n++] = (char *)db;
    for (int i = 0; extra && extra[i] && n < 39; i++)
        argv[n++] = (char *)extra[i];
    argv[n] = NULL;
    cr_assert_lt(servers_nb, 8);
    srv_t *s = &servers[servers_nb++];
    memset(s, 0, sizeof *s);
    snprintf(s->db, sizeof s->db, "%s", db);
    s->proc = pipe_start(argv, PIPE_KEEP_STDERR);
    cr_assert_not_null(s->proc, "cannot start %s: %s", BAGHCHAL_SERVER_BIN, strerror(errno));
    char *line;
    pipe_status_t st = pipe_read_until(s->proc, "baghchal-server", START_MS, NULL, &line);
    cr_assert_eq(st, PIPE_LINE, "the server printed no start line: %s", pipe_status_name(st));
    const char *at = strstr(line, "listening on http://127.0.0.1:");
    cr_assert_not_null(at, "unexpected start line: %s", line);
    if (!strncmp(db, "postgresql://", 13))
        cr_assert_not_null(strstr(line, "games kept in postgresql://"), "not on PostgreSQL: %s", line);
    s->port = atoi(at + strlen("listening on http://127.0.0.1:"));
    cr_assert_gt(s->port, 0, "no port in: %s", line);
    return s;
}

/* Starts the server on db with the extra arguments (NULL-terminated). */
static srv_t *start_room(const char *db, ...)
{
    const char *extra[30];
    int n = 0;
    va_list ap;
    va_start(ap, db);
    for (const char *a = va_arg(ap, const char *); a && n < 29; a = va_arg(ap, const char *))
        extra[n++] = a;
    va_end(ap);
    extra[n] = NULL;
    return start_argv(db, extra);
}

/* SIGTERM ends it cleanly, with status 0 (under the sanitizers a leak or an error would not). */
static void stop_room(srv_t *s)
{
    cr_assert_eq(kill(pipe_pid(s->proc), SIGTERM), 0);
    pipe_exit_t e = pipe_wait(s->proc, EXIT_MS);
    cr_assert(!e.killed, "the server did not stop within %d ms of SIGTERM", EXIT_MS);
    cr_assert(e.exited && e.code == 0, "the server ended with status %d, signal %d", e.code, e.signal);
}

static void kill_room(srv_t *s)
{
    cr_assert_eq(kill(pipe_pid(s->proc), SIGKILL), 0);
    pipe_exit_t e = pipe_wait(s->proc, EXIT_MS);
    cr_assert(!e.exited && e.signal == SIGKILL, "the server was not killed (status %d)", e.code);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* ---- HTTP -------------------------------------------------------------------------- */

typedef struct {
    int status; /* 0 when no answer came */
    char *head; /* status line and headers */
    char *body;
    cJSON *json; /* the body parsed, NULL when it is not JSON */
    char what[160];
} resp_t;

/* Reads a whole answer (the server closes the connection) into r. */
static void read_answer(int fd, resp_t *r)
{
    size_t n;
    char *raw = net_read_all(fd, &n, REPLY_MS);
    const char *sep = raw ? strstr(raw, "\r\n\r\n") : NULL;
    if (sep && !strncmp(raw, "HTTP/1.", 7)) {
        r->status = atoi(raw + 9);
        r->head = keep_str(strndup(raw, (size_t)(sep - raw) + 2));
        r->body = keep_str(strdup(sep + 4));
        r->json = keep_json(cJSON_Parse(r->body));
    }
    free(raw);
}

/* Sends raw bytes; the answer (status 0 when none came) with its parts kept till the end. */
static resp_t raw_request(int port, const char *text, size_t len)
{
    resp_t r = {0};
    snprintf(r.what, sizeof r.what, "%.*s", (int)strcspn(text, "\r\n"), text);
    int fd = net_connect(port);
    if (fd < 0)
        return r;
    if (net_send_all(fd, text, len))
        read_answer(fd, &r);
    close(fd);
    return r;
}

/* A request with extra header lines (each ending in \r\n) and an optional JSON body. */
static resp_t req_h(const srv_t *s, const char *method, const char *path, const char *headers, const char *body)
{
    size_t blen = body ? strlen(body) : 0;
    size_t cap = strlen(path) + blen + strlen(headers) + 256;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    int n = snprintf(text, cap, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s", method, path, headers);
    if (body)
        n += snprintf(text + n, cap - (size_t)n, "Content-Type: application/json\r\nContent-Length: %zu\r\n", blen);
    else if (!strcmp(method, "POST"))
        n += snprintf(text + n, cap - (size_t)n, "Content-Length: 0\r\n");
    n += snprintf(text + n, cap - (size_t)n, "\r\n%s", body ? body : "");
    resp_t r = raw_request(s->port, text, (size_t)n);
    free(text);
    return r;
}

/* A request acting for the player whose token this is (NULL: nobody). */
static resp_t req(const srv_t *s, const char *method, const char *path, const char *token, const char *body)
{
    char h[128] = "";
    if (token)
        snprintf(h, sizeof h, "Authorization: Bearer %s\r\n", token);
    return req_h(s, method, path, h, body);
}

/* ---- JSON ----------------------------------------------------------------------------- */

/* A member by its dotted path ("state.moves"). */
static const cJSON *jget(const cJSON *j, const char *path)
{
    char key[64];
    while (j && *path) {
        size_t n = strcspn(path, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, path);
        j = cJSON_GetObjectItemCaseSensitive(j, key);
        path += n + (path[n] == '.');
    }
    return j;
}

static const char *jstr(const cJSON *j, const char *path)
{
    const cJSON *v = jget(j, path);
    return cJSON_IsString(v) ? v->valuestring : "(not a string)";
}

static double jnum(const cJSON *j, const char *path)
{
    const cJSON *v = jget(j, path);
    cr_assert(cJSON_IsNumber(v), "%s is not a number", path);
    return v->valuedouble;
}

static bool jnull(const cJSON *j, const char *path) { return cJSON_IsNull(jget(j, path)); }

static bool jtrue(const cJSON *j, const char *path) { return cJSON_IsTrue(jget(j, path)); }

/* The answer's JSON after checking its status and content type. */
static cJSON *expect(resp_t r, int status)
{
    char ct[128];
    cr_assert_eq(r.status, status, "%s: expected %d, got %d: %s", r.what, status, r.status,
                 r.body ? r.body : "(no answer)");
    cr_assert_not_null(net_header(r.head, "Content-Type", ct, sizeof ct), "%s: no Content-Type", r.what);
    cr_assert_str_eq(ct, "application/json", "%s", r.what);
    cr_assert(cJSON_IsObject(r.json), "%s: the body is not a JSON object: %s", r.what, r.body);
    return r.json;
}

/* An error answer: its status and code, and a message saying something. */
static void expect_code(resp_t r, int status, const char *code)
{
    cJSON *j = expect(r, status);
    cr_assert_str_eq(jstr(j, "code"), code, "%s: %s", r.what, r.body);
    cr_assert(strlen(jstr(j, "error")) > 0, "%s: no message in %s", r.what, r.body);
}

/* ---- players and games ------------------------------------------------------------------- */

typedef struct {
    char id[16], name[32], token[80];
} who_t;

static who_t who_of(const cJSON *j)
{
    who_t w;
    snprintf(w.id, sizeof w.id, "%s", jstr(j, "id"));
    snprintf(w.name, sizeof w.name, "%s", jstr(j, "name"));
    snprintf(w.token, sizeof w.token, "%s", jstr(j, "token"));
    cr_assert_eq(strlen(w.token), 64, "no token in the answer");
    return w;
}

static who_t guest(const srv_t *s) { return who_of(expect(req(s, "POST", "/api/account/anonymous", NULL, NULL), 200)); }

static who_t named(const srv_t *s, const char *name, const char *password)
{
    char body[256];
    if (password)
        snprintf(body, sizeof body, "{\"name\": \"%s\", \"password\": \"%s\"}", name, password);
    else
        snprintf(body, sizeof body, "{\"name\": \"%s\"}", name);
    cJSON *j = expect(req(s, "POST", "/api/account/register", NULL, body), 200);
    cr_assert_str_eq(jstr(j, "name"), name);
    cr_assert_str_eq(jstr(j, "kind"), "named");
    return who_of(j);
}

/* A game between goats and tigers: goats seeks with the settings (a JSON fragment to go in
 * the seek's object, "" for none), tigers accepts. Its id. */
static const char *new_game(const srv_t *s, const who_t *goats, const who_t *tigers, const char *settings)
{
    char body[512], path[128];
    snprintf(body, sizeof body, "{\"side\": \"goats\"%s%s}", settings[0] ? ", " : "", settings);
    cJSON *seek = expect(req(s, "POST", "/api/seek", goats->token, body), 201);
    snprintf(path, sizeof path, "/api/seek/%s/accept", jstr(seek, "id"));
    cJSON *j = expect(req(s, "POST", path, tigers->token, NULL), 200);
    cr_assert_str_eq(jstr(j, "side"), "tigers");
    return keep_str(strdup(jstr(j, "game")));
}

/* An action of a player in a game (POST /api/board/game/ID/ACTION); waits out the action limit
 * (8 a second) so that long games are not refused for their pace. */
static resp_t act(const srv_t *s, const who_t *p, const char *game, const char *action, const char *body)
{
    char path[256];
    snprintf(path, sizeof path, "/api/board/game/%s/%s", game, action);
    for (int tries = 0;; tries++) {
        resp_t r = req(s, "POST", path, p->token, body);
        if (r.status != 429 || tries > 50)
            return r;
        sleep_ms(150);
    }
}

/* A move that is accepted; ply < 0: sent without ?ply=. */
static void play(const srv_t *s, const who_t *p, const char *game, const char *move, int ply)
{
    char action[64];
    if (ply >= 0)
        snprintf(action, sizeof action, "move/%s?ply=%d", move, ply);
    else
        snprintf(action, sizeof action, "move/%s", move);
    cJSON *j = expect(act(s, p, game, action, NULL), 200);
    cr_assert(jtrue(j, "ok"));
}

/* GET /api/game/ID: the gameFull. */
static cJSON *game_full(const srv_t *s, const char *game)
{
    char path[256];
    snprintf(path, sizeof path, "/api/game/%s", game);
    cJSON *j = expect(req(s, "GET", path, NULL, NULL), 200);
    cr_assert_str_eq(jstr(j, "type"), "gameFull");
    cr_assert_str_eq(jstr(j, "id"), game);
    return j;
}

static const cJSON *game_state(const srv_t *s, const char *game) { return jget(game_full(s, game), "state"); }

static void expect_moves(const srv_t *s, const char *game, const char *moves)
{
    const cJSON *st = game_state(s, game);
    cr_assert_str_eq(jstr(st, "moves"), moves, "game %s", game);
}

/* ---- streams ------------------------------------------------------------------------ */

struct stream {
    int fd;
    bool sse, chunked, eof;
    int status;
    char head[4096];
    char *raw;
    size_t rlen, rcap; /* bytes read and not yet decoded */
    char *data;
    size_t dlen, dcap; /* the body so far, decoded from its chunks */
    size_t chunk;      /* bytes left in the current chunk; 0: a size line is next */
    bool chunk_end;    /* the CRLF after a chunk is next */
    char last[8192];   /* the text of the last event read */
};

static void stream_free(stream_t *st)
{
    if (!st)
        return;
    if (st->fd >= 0)
        close(st->fd);
    free(st->raw), free(st->data);
    free(st);
}

static void append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (c < *len + n + 1)
            c *= 2;
        char *b = realloc(*buf, c);
        cr_assert_not_null(b);
        *buf = b, *cap = c;
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = '\0';
}

/* Moves what was read into the body, undoing the chunked transfer coding. */
static void stream_decode(stream_t *st)
{
    if (!st->chunked) {
        append(&st->data, &st->dlen, &st->dcap, st->raw, st->rlen);
        st->rlen = 0;
        return;
    }
    size_t pos = 0;
    while (pos < st->rlen && !st->eof) {
        if (st->chunk_end) {
            if (st->rlen - pos < 2)
                break;
            cr_assert(st->raw[pos] == '\r' && st->raw[pos + 1] == '\n', "a chunk does not end in CRLF");
            pos += 2;
            st->chunk_end = false;
        } else if (st->chunk == 0) {
            char *crlf = memmem(st->raw + pos, st->rlen - pos, "\r\n", 2);
            if (!crlf)
                break;
            unsigned long size = strtoul(st->raw + pos, NULL, 16);
            pos = (size_t)(crlf - st->raw) + 2;
            if (size == 0)
                st->eof = true;
            st->chunk = size;
        } else {
            size_t take = st->rlen - pos < st->chunk ? st->rlen - pos : st->chunk;
            append(&st->data, &st->dlen, &st->dcap, st->raw + pos, take);
            pos += take;
            st->chunk -= take;
            if (st->chunk == 0)
                st->chunk_end = true;
        }
    }
    memmove(st->raw, st->raw + pos, st->rlen - pos);
    st->rlen -= pos;
}

/* Reads what comes within timeout_ms; false on timeout or when the server closed. */
static bool stream_fill(stream_t *st, int timeout_ms)
{
    struct pollfd p = {st->fd, POLLIN, 0};
    if (timeout_ms < 0)
        timeout_ms = 0;
    if (poll(&p, 1, timeout_ms) <= 0)
        return false;
    char buf[16384];
    ssize_t n = recv(st->fd, buf, sizeof buf, 0);
    if (n <= 0) {
        st->eof = true;
        return false;
    }
    append(&st->raw, &st->rlen, &st->rcap, buf, (size_t)n);
    return true;
}

/* Opens GET path (with the token, and asking for Server-Sent Events when sse); the stream with
 * its status and headers read. */
static stream_t *stream_open_any(const srv_t *s, const char *path, const char *token, bool sse)
{
    stream_t *st = calloc(1, sizeof *st);
    cr_assert_not_null(st);
    cr_assert_lt(streams_nb, 64);
    streams[streams_nb++] = st;
    st->sse = sse;
    st->fd = net_connect(s->port);
    cr_assert_geq(st->fd, 0, "cannot connect: %s", strerror(errno));
    char text[4096];
    cr_assert_lt(strlen(path), 3000);
    int n = snprintf(text, sizeof text, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n", path);
    if (token)
        n += snprintf(text + n, sizeof text - (size_t)n, "Authorization: Bearer %s\r\n", token);
    if (sse)
        n += snprintf(text + n, sizeof text - (size_t)n, "Accept: text/event-stream\r\n");
    n += snprintf(text + n, sizeof text - (size_t)n, "\r\n");
    cr_assert(net_send_all(st->fd, text, (size_t)n));
    double end = pipe_now_ms() + REPLY_MS;
    char *sep;
    while (!(sep = st->raw ? memmem(st->raw, st->rlen, "\r\n\r\n", 4) : NULL))
        cr_assert(stream_fill(st, (int)(end - pipe_now_ms())), "%s: no answer", path);
    size_t hlen = (size_t)(sep - st->raw) + 2;
    cr_assert_lt(hlen, sizeof st->head);
    memcpy(st->head, st->raw, hlen);
    st->head[hlen] = '\0';
    st->status = atoi(st->head + 9);
    char te[64];
    st->chunked = net_header(st->head, "Transfer-Encoding", te, sizeof te) && strcasestr(te, "chunked");
    memmove(st->raw, sep + 4, st->rlen - hlen - 2);
    st->rlen -= hlen + 2;
    stream_decode(st);
    return st;
}

/* A stream that is open: status 200 and the content type asked for. */
static stream_t *stream_open(const srv_t *s, const char *path, const char *token)
{
    stream_t *st = stream_open_any(s, path, token, false);
    char ct[128];
    cr_assert_eq(st->status, 200, "%s: status %d", path, st->status);
    cr_assert_str_eq(net_header(st->head, "Content-Type", ct, sizeof ct), "application/x-ndjson");
    return st;
}

static void stream_close(stream_t *st)
{
    if (st->fd >= 0)
        close(st->fd);
    st->fd = -1;
}

/* The next event (keepalives skipped) within timeout_ms; NULL on timeout or at the end. In
 * ndjson a line of JSON; in SSE a "data: JSON" line and an empty line. */
static cJSON *stream_next(stream_t *st, int timeout_ms)
{
    double end = pipe_now_ms() + timeout_ms;
    for (;;) {
        char *text = NULL;
        size_t used = 0;
        if (!st->sse) {
            char *nl = st->data ? memchr(st->data, '\n', st->dlen) : NULL;
            if (nl) {
                text = strndup(st->data, (size_t)(nl - st->data));
                used = (size_t)(nl - st->data) + 1;
            }
        } else {
            char *blank = st->data ? memmem(st->data, st->dlen, "\n\n", 2) : NULL;
            if (blank) {
                text = strndup(st->data, (size_t)(blank - st->data));
                used = (size_t)(blank - st->data) + 2;
            }
        }
        if (text) {
            memmove(st->data, st->data + used, st->dlen - used);
            st->dlen -= used;
            const char *json = text;
            if (st->sse) {
                if (text[0] == ':') { /* a keepalive comment */
                    free(text);
                    continue;
                }
                cr_assert(!strncmp(text, "data: ", 6) && !strchr(text, '\n'), "not an SSE event: '%s'", text);
                json = text + 6;
            } else if (!text[0]) { /* a keepalive */
                free(text);
                continue;
            }
            snprintf(st->last, sizeof st->last, "%s", json);
            cJSON *j = cJSON_Parse(json);
            cr_assert(cJSON_IsObject(j), "not a JSON object on the stream: '%s'", json);
            free(text);
            return keep_json(j);
        }
        if (st->eof || st->fd < 0)
            return NULL;
        int left = (int)(end - pipe_now_ms());
        if (left <= 0)
            return NULL;
        if (stream_fill(st, left))
            stream_decode(st);
    }
}

/* The next event of this type (others are passed over), or NULL within the time. */
static cJSON *stream_until(stream_t *st, const char *type, int timeout_ms)
{
    double end = pipe_now_ms() + timeout_ms;
    for (;;) {
        cJSON *j = stream_next(st, (int)(end - pipe_now_ms()));
        if (!j || !strcmp(jstr(j, "type"), type))
            return j;
    }
}

static cJSON *expect_event(stream_t *st, const char *type)
{
    cJSON *j = stream_until(st, type, (int)(EVENT_MS * slow()));
    cr_assert_not_null(j, "no %s event came on the stream", type);
    return j;
}

/* The stream ends (the server closes it, or sends its last chunk) within the time. */
static void expect_stream_end(stream_t *st)
{
    double end = pipe_now_ms() + EVENT_MS * slow();
    while (!st->eof && pipe_now_ms() < end)
        if (stream_fill(st, (int)(end - pipe_now_ms())))
            stream_decode(st);
    cr_assert(st->eof, "the stream did not end");
}

static stream_t *game_stream(const srv_t *s, const char *game, const who_t *p)
{
    char path[256];
    snprintf(path, sizeof path, "/api/board/game/stream/%s", game);
    stream_t *st = stream_open(s, path, p ? p->token : NULL);
    cJSON *full = expect_event(st, "gameFull");
    cr_assert_str_eq(jstr(full, "id"), game);
    return st;
}

/* The next gameState on st, which must show exactly these moves. */
static cJSON *expect_state(stream_t *st, const char *moves)
{
    cJSON *j = expect_event(st, "gameState");
    cr_assert_str_eq(jstr(j, "moves"), moves, "a stream's gameState: %s", st->last);
    return j;
}

/* ---- games by the rules, from the library --------------------------------------------- */

typedef struct {
    char move[600][MOVE_TEXT_LEN];
    int n;
    game_result_t result;
} script_t;

static const char *const STATUS_OF[] = {"", "captured", "trapped", "stuck", "blocked", "repetition"};

static uint32_t rng(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static void script_play(game_t *g, script_t *sc, move_t m)
{
    char msg[160];
    cr_assert_eq(game_play(g, m, msg, sizeof msg), BC_OK, "%s", msg);
    move_format(m, sc->move[sc->n++]);
}

/* A game to its end under rule: the goats at random, the tigers capturing when they can. */
static void script_to_the_end(rep_rule_t rule, uint32_t seed, script_t *sc)
{
    for (;; seed++) {
        game_t g;
        position_t start;
        position_set_start(&start);
        cr_assert(game_init(&g, &start, NULL, rule));
        sc->n = 0;
        uint32_t r = seed;
        while (sc->n < 500 && game_result(&g).reason == RESULT_NONE) {
            move_t ms[MAX_MOVES];
            int k = game_legal_moves(&g, ms);
            cr_assert_gt(k, 0);
            move_t m = ms[rng(&r) % (uint32_t)k];
            for (int i = 0; game_position(&g)->side == TIGERS && i < k; i++)
                if (move_kind(ms[i]) == MOVE_JUMP) {
                    m = ms[i];
                    break;
                }
            script_play(&g, sc, m);
        }
        sc->result = game_result(&g);
        game_free(&g);
        if (sc->result.reason != RESULT_NONE)
            return;
    }
}

/* Plays a, b, back, back twice (8 plies: the first position occurs a third time) when every
 * move is legal and nothing ends the game before; otherwise takes back what it played. */
static bool try_cycle(game_t *g, script_t *sc, move_t a, move_t b)
{
    move_t seq[8] = {a, b, move_make(MOVE_STEP, move_to(a), move_from(a)), move_make(MOVE_STEP, move_to(b), move_from(b))};
    memcpy(seq + 4, seq, 4 * sizeof seq[0]);
    int done = 0;
    for (; done < 8; done++) {
        if (game_result(g).reason != RESULT_NONE || !game_is_legal_move(g, seq[done]))
            break;
        char msg[160];
        if (game_play(g, seq[done], msg, sizeof msg) != BC_OK)
            break;
    }
    if (done == 8 && game_result(g).reason == RESULT_REPETITION_DRAW) {
        for (int i = 0; i < 8; i++)
            move_format(seq[i], sc->move[sc->n++]);
        return true;
    }
    while (done-- > 0)
        game_pop(g);
    return false;
}

/* A game under the draw rule that ends by a third occurrence: all goats placed without a
 * capture, then a goat and a tiger step there and back twice. */
static void script_repetition(uint32_t seed, script_t *sc)
{
    for (;; seed++) {
        game_t g;
        position_t start;
        position_set_start(&start);
        cr_assert(game_init(&g, &start, NULL, REP_DRAW));
        sc->n = 0;
        uint32_t r = seed;
        while (game_result(&g).reason == RESULT_NONE &&
               !(game_position(&g)->in_hand == 0 && game_position(&g)->side == GOATS) && sc->n < 200) {
            move_t ms[MAX_MOVES], quiet[MAX_MOVES];
            int k = game_legal_moves(&g, ms), q = 0;
            for (int i = 0; i < k; i++)
                if (move_kind(ms[i]) != MOVE_JUMP)
                    quiet[q++] = ms[i];
            cr_assert_gt(k, 0);
            script_play(&g, sc, q ? quiet[rng(&r) % (uint32_t)q] : ms[rng(&r) % (uint32_t)k]);
        }
        bool found = false;
        if (game_result(&g).reason == RESULT_NONE && game_position(&g)->in_hand == 0) {
            move_t gm[MAX_MOVES];
            int k = game_legal_moves(&g, gm);
            for (int i = 0; i < k && !found; i++) {
                if (move_kind(gm[i]) != MOVE_STEP)
                    continue;
                char msg[160];
                cr_assert_eq(game_play(&g, gm[i], msg, sizeof msg), BC_OK);
                move_t tm[MAX_MOVES];
                int kt = game_legal_moves(&g, tm);
                game_pop(&g);
                for (int t = 0; t < kt && !found; t++)
                    if (move_kind(tm[t]) == MOVE_STEP)
                        found = try_cycle(&g, sc, gm[i], tm[t]);
            }
        }
        sc->result = game_result(&g);
        game_free(&g);
        if (found)
            return;
    }
}

/* The moves of a script up to (not including) ply n, as the server writes them. */
static const char *moves_upto(const script_t *sc, int n)
{
    static char buf[8192];
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", i ? " " : "", sc->move[i]);
    return buf;
}

/* ==== 1. accounts ======================================================================== */

Test(room, accounts_tokens_cookies_and_names)
{
    srv_t *s = start_room(fresh_db("accounts"), NULL);

    /* A guest at once: a token, also as the cookie bc. */
    resp_t r = req(s, "POST", "/api/account/anonymous", NULL, NULL);
    cJSON *j = expect(r, 200);
    cr_assert_str_eq(jstr(j, "kind"), "anon");
    cr_assert(!strncmp(jstr(j, "name"), "Guest-", 6), "a guest's name: %s", jstr(j, "name"));
    cr_assert(cJSON_IsObject(jget(j, "ratings.blitz")));
    who_t g = who_of(j);
    cr_assert_eq(strspn(g.token, "0123456789abcdef"), 64);
    char cookie[256], want[128];
    cr_assert_not_null(net_header(r.head, "Set-Cookie", cookie, sizeof cookie), "no Set-Cookie: %s", r.head);
    snprintf(want, sizeof want, "bc=%s;", g.token);
    cr_assert(!strncmp(cookie, want, strlen(want)), "Set-Cookie: %s", cookie);
    cr_assert_not_null(strstr(cookie, "HttpOnly"));

    /* The token says who it is; so does the cookie alone, for reading and for acting. */
    j = expect(req(s, "GET", "/api/account", g.token, NULL), 200);
    cr_assert_str_eq(jstr(j, "id"), g.id);
    char ch[160];
    snprintf(ch, sizeof ch, "Cookie: bc=%s\r\n", g.token);
    j = expect(req_h(s, "GET", "/api/account", ch, NULL), 200);
    cr_assert_str_eq(jstr(j, "id"), g.id);
    j = expect(req_h(s, "POST", "/api/seek", ch, "{}"), 201);
    cr_assert_str_eq(jstr(j, "from.id"), g.id);
    char path[128];
    snprintf(path, sizeof path, "/api/seek/%s/cancel", jstr(j, "id"));
    expect(req_h(s, "POST", path, ch, NULL), 200);
    expect_code(req(s, "GET", "/api/account", NULL, NULL), 401, "token");

    /* Named players, with a password and without one (then the token is the only key). */
    who_t alice = named(s, "Alice", "correct horse");
    who_t bob = named(s, "Bob_2", NULL);
    cr_assert_str_neq(alice.id, bob.id);
    j = expect(req(s, "POST", "/api/account/login", NULL, "{\"name\": \"Alice\", \"password\": \"correct horse\"}"), 200);
    who_t alice2 = who_of(j);
    cr_assert_str_eq(alice2.id, alice.id);
    cr_assert_str_neq(alice2.token, alice.token, "a login gives a new token");
    j = expect(req(s, "GET", "/api/account", alice2.token, NULL), 200);
    cr_assert_str_eq(jstr(j, "name"), "Alice");
    j = expect(req(s, "GET", "/api/account", alice.token, NULL), 200);
    cr_assert_str_eq(jstr(j, "id"), alice.id, "the first token still works");
    expect_code(req(s, "POST", "/api/account/login", NULL, "{\"name\": \"Alice\", \"password\": \"wrong horse\"}"), 401,
                "login");
    expect_code(req(s, "POST", "/api/account/login", NULL, "{\"name\": \"Bob_2\", \"password\": \"anything1\"}"), 401,
                "login");
    expect_code(req(s, "POST", "/api/account/login", NULL, "{\"name\": \"Nobody\", \"password\": \"anything1\"}"), 401,
                "login");

    /* A guest taking a name keeps its id and its token. */
    j = expect(req(s, "POST", "/api/account/register", g.token, "{\"name\": \"Carol\"}"), 200);
    cr_assert_str_eq(jstr(j, "id"), g.id);
    cr_assert_str_eq(jstr(j, "kind"), "named");
    j = expect(req(s, "GET", "/api/account", g.token, NULL), 200);
    cr_assert_str_eq(jstr(j, "name"), "Carol");
    cr_assert_str_eq(jstr(j, "id"), g.id);
    expect_code(req(s, "POST", "/api/account/register", g.token, "{\"name\": \"Carla\"}"), 409, "named");

    /* Names refused: markup, control characters, too short or long, not from a letter, the
     * guests' own; and those taken, whatever their case. */
    static const char *const BAD[] = {"<b>x</b>", "ab\\u0001cd", "ab\\tcd", "ab cd", "ab", "Abcdefghijklmnopqrstu",
                                      "9lives", "guest42", "Guest-ABCDE", "GUESTY", "anonymous", "", "Al\\u00efce"};
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        char body[128];
        snprintf(body, sizeof body, "{\"name\": \"%s\", \"password\": \"long enough\"}", BAD[i]);
        expect_code(req(s, "POST", "/api/account/register", NULL, body), 400, "name");
    }
    expect_code(req(s, "POST", "/api/account/register", NULL, "{\"name\": 5}"), 400, "name");
    expect_code(req(s, "POST", "/api/account/register", NULL, "{\"name\": \"Dave\", \"password\": \"short\"}"), 400,
                "name");
    static const char *const TAKEN[] = {"Alice", "alice", "ALICE", "bob_2", "CAROL"};
    for (size_t i = 0; i < sizeof TAKEN / sizeof *TAKEN; i++) {
        char body[128];
        snprintf(body, sizeof body, "{\"name\": \"%s\"}", TAKEN[i]);
        expect_code(req(s, "POST", "/api/account/register", NULL, body), 409, "name-taken");
    }
    j = expect(req(s, "GET", "/api/player/alice", NULL, NULL), 200);
    cr_assert_str_eq(jstr(j, "id"), alice.id);
    cr_assert_str_eq(jstr(j, "name"), "Alice");
    cr_assert_str_eq(jstr(j, "kind"), "named");
    cr_assert_null(jget(j, "token"));
    cr_assert(!strstr(req(s, "GET", "/api/player/alice", NULL, NULL).body, "argon"), "a password hash is shown");
    expect_code(req(s, "GET", "/api/player/guest42", NULL, NULL), 404, "no-player");
    expect_code(req(s, "GET", "/api/player/Dave", NULL, NULL), 404, "no-player");

    /* A forged token is no one's: 401 and nothing changes. */
    const char *forged = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    expect_code(req(s, "GET", "/api/account", forged, NULL), 401, "token");
    expect_code(req(s, "POST", "/api/seek", forged, "{}"), 401, "token");
    expect_code(req(s, "POST", "/api/account/register", forged, "{\"name\": \"Mallory\"}"), 401, "token");
    expect_code(req(s, "GET", "/api/account", "not-a-token", NULL), 401, "token");
    char fc[160];
    snprintf(fc, sizeof fc, "Cookie: bc=%s\r\n", forged);
    expect_code(req_h(s, "POST", "/api/seek", fc, "{}"), 401, "token");
    expect_code(req(s, "GET", "/api/player/Mallory", NULL, NULL), 404, "no-player");
    j = expect(req(s, "GET", "/api/lobby", NULL, NULL), 200);
    cr_assert_eq(cJSON_GetArraySize(jget(j, "seeks")), 0, "a refused seek is in the lobby");
    stop_room(s);
}

/* ==== 2. the lobby ======================================================================= */

static bool lobby_has_seek(const srv_t *s, const char *id)
{
    cJSON *j = expect(req(s, "GET", "/api/lobby", NULL, NULL), 200);
    const cJSON *e;
    cJSON_ArrayForEach(e, jget(j, "seeks"))
    {
        if (!strcmp(jstr(e, "id"), id))
            return true;
    }
    return false;
}

static int lobby_seeks(const srv_t *s)
{
    return cJSON_GetArraySize(jget(expect(req(s, "GET", "/api/lobby", NULL, NULL), 200), "seeks"));
}

Test(room, lobby_seeks_links_and_challenges)
{
    srv_t *s = start_room(fresh_db("lobby"), NULL);
    who_t a = guest(s), b = guest(s), c = guest(s);
    stream_t *lobby = stream_open(s, "/api/lobby/stream", NULL);
    cJSON *j = expect_event(lobby, "lobby");
    cr_assert_eq(cJSON_GetArraySize(jget(j, "seeks")), 0);
    cr_assert(cJSON_IsArray(jget(j, "games")));
    stream_t *ea = stream_open(s, "/api/stream/event", a.token), *eb = stream_open(s, "/api/stream/event", b.token);
    expect_code(req(s, "GET", "/api/stream/event", NULL, NULL), 401, "token");

    /* A seek is in the lobby, and on its stream well within a second. */
    double t0 = pipe_now_ms();
    cJSON *seek = expect(req(s, "POST", "/api/seek", a.token, "{\"side\": \"goats\", \"rule\": \"draw\"}"), 201);
    const char *sid = jstr(seek, "id");
    cr_assert_str_eq(jstr(seek, "from.id"), a.id);
    cr_assert_str_eq(jstr(seek, "side"), "goats");
    cr_assert_str_eq(jstr(seek, "rule"), "draw");
    cr_assert(jnull(seek, "clock"));
    cr_assert(cJSON_IsFalse(jget(seek, "rated")));
    cr_assert(jtrue(seek, "listed"));
    j = expect_event(lobby, "seekAdded");
    double took = pipe_now_ms() - t0;
    cr_assert_str_eq(jstr(j, "seek.id"), sid);
    cr_assert_lt(took, 1000 * slow(), "seekAdded came %.0f ms after the POST", took);
    cr_assert(lobby_has_seek(s, sid));
    char path[256];
    snprintf(path, sizeof path, "/api/challenge/%s", sid);
    j = expect(req(s, "GET", path, NULL, NULL), 200);
    cr_assert_str_eq(jstr(j, "id"), sid);

    /* Its own creator cannot take it; another player's cancel is refused. */
    snprintf(path, sizeof path, "/api/seek/%s/accept", sid);
    expect_code(req(s, "POST", path, a.token, NULL), 400, "self");
    snprintf(path, sizeof path, "/api/seek/%s/cancel", sid);
    expect_code(req(s, "POST", path, b.token, NULL), 403, "not-yours");

    /* Accepted: seekRemoved with the game, gameStart on both players' event streams. */
    snprintf(path, sizeof path, "/api/seek/%s/accept", sid);
    j = expect(req(s, "POST", path, b.token, NULL), 200);
    const char *game = keep_str(strdup(jstr(j, "game")));
    cr_assert_str_eq(jstr(j, "side"), "tigers");
    j = expect_event(lobby, "seekRemoved");
    cr_assert_str_eq(jstr(j, "id"), sid);
    cr_assert_str_eq(jstr(j, "reason"), "accepted");
    cr_assert_str_eq(jstr(j, "game"), game);
    j = expect_event(ea, "gameStart");
    cr_assert_str_eq(jstr(j, "game.id"), game);
    cr_assert_str_eq(jstr(j, "game.side"), "goats");
    j = expect_event(eb, "gameStart");
    cr_assert_str_eq(jstr(j, "game.id"), game);
    cr_assert_str_eq(jstr(j, "game.side"), "tigers");
    cr_assert(!lobby_has_seek(s, sid));
    j = expect(req(s, "GET", "/api/lobby", NULL, NULL), 200);
    cr_assert_eq(jnum(j, "playing"), 1);
    cr_assert_str_eq(jstr(cJSON_GetArrayItem(jget(j, "games"), 0), "id"), game);
    expect_code(req(s, "POST", path, c.token, NULL), 404, "no-challenge");

    /* Cancelled (POST .../cancel and DELETE): seekRemoved, reason cancelled. */
    for (int k = 0; k < 2; k++) {
        seek = expect(req(s, "POST", "/api/seek", a.token, "{\"clock\": {\"initial\": 300, \"increment\": 3}}"), 201);
        sid = jstr(seek, "id");
        cr_assert_str_eq(jstr(seek, "speed"), "blitz");
        cr_assert_eq(jnum(seek, "clock.initial"), 300000);
        cr_assert_eq(jnum(seek, "clock.increment"), 3000);
        j = expect_event(lobby, "seekAdded");
        cr_assert_str_eq(jstr(j, "seek.id"), sid);
        snprintf(path, sizeof path, k ? "/api/seek/%s" : "/api/seek/%s/cancel", sid);
        cr_assert(jtrue(expect(req(s, k ? "DELETE" : "POST", path, a.token, NULL), 200), "ok"));
        j = expect_event(lobby, "seekRemoved");
        cr_assert_str_eq(jstr(j, "id"), sid);
        cr_assert_str_eq(jstr(j, "reason"), "cancelled");
        cr_assert(!lobby_has_seek(s, sid));
    }

    /* A link for a friend: not in the lobby; whoever follows it first plays, the next gets 404. */
    cJSON *link = expect(req(s, "POST", "/api/challenge", a.token, "{\"side\": \"tigers\"}"), 201);
    const char *lid = jstr(link, "id");
    char url[64];
    snprintf(url, sizeof url, "/?challenge=%s", lid);
    cr_assert_str_eq(jstr(link, "url"), url);
    cr_assert(cJSON_IsFalse(jget(link, "listed")));
    cr_assert(jnull(link, "to"));
    cr_assert(!lobby_has_seek(s, lid));
    snprintf(path, sizeof path, "/api/challenge/%s/accept", lid);
    j = expect(req(s, "POST", path, c.token, NULL), 200);
    cr_assert_str_eq(jstr(j, "side"), "goats");
    expect_code(req(s, "POST", path, b.token, NULL), 404, "no-challenge");
    j = expect_event(ea, "gameStart");
    cr_assert_str_eq(jstr(j, "game.side"), "tigers");

    /* A challenge to a named player: on its event stream, and again when it reconnects;
     * declined, the challenger hears it. */
    j = expect(req(s, "POST", "/api/account/register", b.token, "{\"name\": \"Bertha\"}"), 200);
    expect_code(req(s, "POST", "/api/challenge", a.token, "{\"to\": \"Nobody\"}"), 404, "no-player");
    expect_code(req(s, "POST", "/api/challenge", b.token, "{\"to\": \"bertha\"}"), 400, "self");
    cJSON *chal = expect(req(s, "POST", "/api/challenge", a.token, "{\"to\": \"bertha\", \"rule\": \"draw\"}"), 201);
    const char *cid = jstr(chal, "id");
    cr_assert_str_eq(jstr(chal, "to.id"), b.id);
    j = expect_event(eb, "challenge");
    cr_assert_str_eq(jstr(j, "challenge.id"), cid);
    cr_assert_str_eq(jstr(j, "challenge.from.id"), a.id);
    stream_close(eb);
    stream_t *eb2 = stream_open(s, "/api/stream/event", b.token);
    j = expect_event(eb2, "challenge");
    cr_assert_str_eq(jstr(j, "challenge.id"), cid);
    snprintf(path, sizeof path, "/api/challenge/%s/accept", cid);
    expect_code(req(s, "POST", path, c.token, NULL), 403, "not-yours");
    snprintf(path, sizeof path, "/api/challenge/%s/decline", cid);
    expect_code(req(s, "POST", path, c.token, NULL), 403, "not-yours");
    cr_assert(jtrue(expect(req(s, "POST", path, b.token, NULL), 200), "ok"));
    j = expect_event(ea, "challengeDeclined");
    cr_assert_str_eq(jstr(j, "id"), cid);
    snprintf(path, sizeof path, "/api/challenge/%s", cid);
    expect_code(req(s, "GET", path, NULL, NULL), 404, "no-challenge");

    /* A rated seek is for named players. */
    expect_code(req(s, "POST", "/api/seek", a.token, "{\"rated\": true}"), 403, "rated");

    /* Five open seeks at most: the sixth is refused. */
    who_t e = guest(s);
    int before = lobby_seeks(s);
    for (int i = 0; i < 5; i++)
        expect(req(s, "POST", "/api/seek", e.token, "{}"), 201);
    expect_code(req(s, "POST", "/api/seek", e.token, "{}"), 429, "too-many-seeks");
    cr_assert_eq(lobby_seeks(s), before + 5);

    /* A flood of seeks runs into the action limit. */
    who_t f = guest(s);
    int created = 0, rate = 0;
    for (int i = 0; i < 60; i++) {
        resp_t r = req(s, "POST", "/api/seek", f.token, "{}");
        if (r.status == 201)
            created++;
        else if (r.status == 429 && !strcmp(jstr(r.json, "code"), "rate"))
            rate++;
        else
            expect_code(r, 429, "too-many-seeks");
    }
    cr_assert_eq(created, 5);
    cr_assert_gt(rate, 0, "60 seeks at once never met the action limit");
    cr_assert_eq(lobby_seeks(s), before + 10);

    /* Bad settings: 400 each, and the lobby as it was. */
    static const char *const BAD[] = {"{\"clock\": {\"initial\": -1, \"increment\": 0}}",
                                      "{\"clock\": {\"initial\": 60, \"increment\": 181}}",
                                      "{\"clock\": {\"initial\": 10801}}",
                                      "{\"clock\": {\"initial\": 0, \"increment\": 0}}",
                                      "{\"clock\": 5}",
                                      "{\"rule\": \"x\"}",
                                      "{\"side\": \"both\"}",
                                      "{\"rated\": \"yes\"}"};
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++)
        expect_code(req(s, "POST", "/api/seek", c.token, BAD[i]), 400, "settings");
    expect_code(req(s, "POST", "/api/seek", c.token, "not json"), 400, "json");
    expect_code(req(s, "POST", "/api/seek", c.token, "[1, 2]"), 400, "json");
    expect_code(req(s, "POST", "/api/challenge", c.token, "{\"side\": \"both\"}"), 400, "settings");
    cr_assert_eq(lobby_seeks(s), before + 10);
    stop_room(s);
}

/* ==== 3. a game to its end ================================================================== */

Test(room, a_game_played_to_its_end_on_every_stream)
{
    srv_t *s = start_room(fresh_db("game"), NULL);
    who_t a = guest(s), b = guest(s), c = guest(s), d = guest(s), e = guest(s);
    const char *game = new_game(s, &a, &b, "");
    const char *other = new_game(s, &d, &e, "");
    script_t sc;
    script_to_the_end(REP_FORBID, 7, &sc);

    char path[256];
    snprintf(path, sizeof path, "/api/board/game/stream/%s", game);
    stream_t *ga = stream_open(s, path, a.token);
    cJSON *full = expect_event(ga, "gameFull");
    cr_assert_str_eq(jstr(full, "id"), game);
    cr_assert_str_eq(jstr(full, "goats.id"), a.id);
    cr_assert_str_eq(jstr(full, "tigers.id"), b.id);
    cr_assert_str_eq(jstr(full, "rule"), "forbid");
    cr_assert(jnull(full, "clock"));
    cr_assert_str_eq(jstr(full, "state.moves"), "");
    cr_assert_eq(jnum(full, "state.plies"), 0);
    cr_assert_str_eq(jstr(full, "state.turn"), "goats");
    cr_assert_str_eq(jstr(full, "state.status"), "started");
    snprintf(path, sizeof path, "/api/game/%s/stream", game);
    stream_t *gb = stream_open(s, path, b.token);
    expect_event(gb, "gameFull");
    stream_t *spectator = stream_open(s, path, NULL);
    expect_event(spectator, "gameFull");
    stream_t *ev = stream_open(s, "/api/stream/event", a.token);
    expect_event(ev, "gameStart");
    const char *forged = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    for (int i = 0; i < sc.n; i++) {
        const who_t *mover = i % 2 == 0 ? &a : &b, *waiter = i % 2 == 0 ? &b : &a;
        char before[8192], action[64];
        snprintf(before, sizeof before, "%s", moves_upto(&sc, i));
        if (i == 0 || i == 5 || i == 6) {
            /* Refusals, none of which changes the game or reaches a stream. */
            snprintf(action, sizeof action, "move/%s", sc.move[i]);
            expect_code(act(s, waiter, game, action, NULL), 409, "not-your-turn");
            expect_code(act(s, &c, game, action, NULL), 403, "not-a-player");
            expect_code(act(s, &d, game, action, NULL), 403, "not-a-player");
            expect_code(req(s, "POST", "/api/board/game/nosuchgame/move/C3", a.token, NULL), 404, "no-game");
            snprintf(path, sizeof path, "/api/board/game/%s/%s", game, action);
            expect_code(req(s, "POST", path, forged, NULL), 401, "token");
            expect_code(req(s, "POST", path, NULL, NULL), 401, "token");
            snprintf(path, sizeof path, "/api/bot/game/%s/%s", game, action);
            expect_code(req(s, "POST", path, mover->token, NULL), 403, "api");
            /* Illegal: the opponent's last move (onto a tiger at first), not on a line, off the
             * board, not a move at all. */
            snprintf(action, sizeof action, "move/%s", i ? sc.move[i - 1] : "A1");
            expect_code(act(s, mover, game, action, NULL), 400, "illegal");
            expect_code(act(s, mover, game, "move/A1E4", NULL), 400, "illegal");
            expect_code(act(s, mover, game, "move/Z9", NULL), 400, "illegal");
            expect_code(act(s, mover, game, "move/whatever-this-is-it-is-long", NULL), 400, "illegal");
            /* For another ply: ahead, behind, not a number. */
            snprintf(action, sizeof action, "move/%s?ply=%d", sc.move[i], i + 1);
            expect_code(act(s, mover, game, action, NULL), 409, "stale");
            snprintf(action, sizeof action, "move/%s?ply=x", sc.move[i]);
            expect_code(act(s, mover, game, action, NULL), 409, "stale");
            if (i > 0) {
                snprintf(action, sizeof action, "move/%s?ply=%d", sc.move[i], i - 1);
                expect_code(act(s, mover, game, action, NULL), 409, "stale");
                /* The opponent's last message again, as a network might replay it. */
                snprintf(action, sizeof action, "move/%s?ply=%d", sc.move[i - 1], i - 1);
                expect_code(act(s, waiter, game, action, NULL), 409, "stale");
            }
            expect_moves(s, game, before);
            expect_moves(s, other, "");
        }
        play(s, mover, game, sc.move[i], i);
        const char *after = moves_upto(&sc, i + 1);
        /* Exactly one new state on each stream, with exactly this move added. */
        cJSON *st = expect_state(ga, after);
        cr_assert_eq(jnum(st, "plies"), i + 1);
        expect_state(gb, after);
        st = expect_state(spectator, after);
        cr_assert_eq(jnum(st, "plies"), i + 1);
        if (i + 1 < sc.n) {
            cr_assert_str_eq(jstr(st, "status"), "started");
            cr_assert_str_eq(jstr(st, "turn"), (i + 1) % 2 ? "tigers" : "goats");
        }
    }
    /* The end by the rules, as the library judges the same moves. */
    const char *status = STATUS_OF[sc.result.reason];
    const char *winner = sc.result.winner == GOATS ? "goats" : "tigers";
    cr_assert_neq(sc.result.winner, -1);
    const cJSON *st = game_state(s, game);
    cr_assert_str_eq(jstr(st, "status"), status);
    cr_assert_str_eq(jstr(st, "winner"), winner);
    cr_assert(strlen(jstr(st, "reason")) > 0);
    cr_assert_str_eq(jstr(st, "moves"), moves_upto(&sc, sc.n));
    cJSON *fin = expect_event(ev, "gameFinish");
    cr_assert_str_eq(jstr(fin, "game.id"), game);
    cr_assert_str_eq(jstr(fin, "game.status"), status);
    cr_assert_str_eq(jstr(fin, "game.winner"), winner);
    cr_assert(jnum(game_full(s, game), "endedAt") > 0);
    /* After the end: 409 over, and nothing changes. */
    const who_t *next = sc.n % 2 == 0 ? &a : &b;
    expect_code(act(s, next, game, "move/C3", NULL), 409, "over");
    expect_code(act(s, next, game, "resign", NULL), 409, "over");
    expect_code(act(s, next, game, "takeback/yes", NULL), 409, "over");
    expect_moves(s, game, moves_upto(&sc, sc.n));
    /* The record, and the finished game's stream: its full state once, then the end. */
    snprintf(path, sizeof path, "/api/game/%s/record", game);
    cJSON *rec = expect(req(s, "GET", path, NULL, NULL), 200);
    cr_assert_eq(cJSON_GetArraySize(jget(rec, "moveList")), sc.n);
    for (int i = 0; i < sc.n; i++)
        cr_assert_str_eq(cJSON_GetArrayItem(jget(rec, "moveList"), i)->valuestring, sc.move[i]);
    snprintf(path, sizeof path, "/api/game/%s/stream", game);
    stream_t *late = stream_open(s, path, NULL);
    full = expect_event(late, "gameFull");
    cr_assert_str_eq(jstr(full, "state.status"), status);
    expect_stream_end(late);
    snprintf(path, sizeof path, "/api/player/%s", a.id);
    cJSON *prof = expect(req(s, "GET", path, NULL, NULL), 200);
    cr_assert_str_eq(cJSON_GetArrayItem(jget(prof, "games"), 0)->valuestring, game);
    stop_room(s);
}

Test(room, a_third_occurrence_draws_under_the_draw_rule)
{
    srv_t *s = start_room(fresh_db("repetition"), NULL);
    who_t a = guest(s), b = guest(s);
    const char *game = new_game(s, &a, &b, "\"rule\": \"draw\"");
    script_t sc;
    script_repetition(11, &sc);
    cr_assert_eq(sc.result.reason, RESULT_REPETITION_DRAW);
    stream_t *sp = game_stream(s, game, NULL);
    for (int i = 0; i < sc.n; i++) {
        play(s, i % 2 ? &b : &a, game, sc.move[i], i);
        expect_state(sp, moves_upto(&sc, i + 1));
    }
    const cJSON *st = game_state(s, game);
    cr_assert_str_eq(jstr(st, "status"), "repetition");
    cr_assert(jnull(st, "winner"));
    cr_assert_eq(jnum(st, "plies"), sc.n);
    stop_room(s);
}

/* ==== 4. resign, abort, draws, takebacks, rematches, chat ================================= */

Test(room, resign_abort_draw_takeback_rematch_and_chat)
{
    srv_t *s = start_room(fresh_db("offers"), NULL);
    who_t a = guest(s), b = guest(s);

    /* Resign: the opponent wins. */
    const char *g1 = new_game(s, &a, &b, "");
    play(s, &a, g1, "C3", 0);
    expect(act(s, &b, g1, "resign", NULL), 200);
    const cJSON *st = game_state(s, g1);
    cr_assert_str_eq(jstr(st, "status"), "resign");
    cr_assert_str_eq(jstr(st, "winner"), "goats");

    /* Abort: at ply 0 and 1, not at 2. */
    const char *g2 = new_game(s, &a, &b, "");
    expect(act(s, &a, g2, "abort", NULL), 200);
    st = game_state(s, g2);
    cr_assert_str_eq(jstr(st, "status"), "aborted");
    cr_assert(jnull(st, "winner"));
    const char *g3 = new_game(s, &a, &b, "");
    play(s, &a, g3, "C3", 0);
    expect(act(s, &b, g3, "abort", NULL), 200);
    cr_assert_str_eq(jstr(game_state(s, g3), "status"), "aborted");
    const char *g4 = new_game(s, &a, &b, "");
    play(s, &a, g4, "C3", 0);
    play(s, &b, g4, "A1B1", 1);
    expect_code(act(s, &a, g4, "abort", NULL), 409, "too-late");
    expect_code(act(s, &b, g4, "abort", NULL), 409, "too-late");
    cr_assert_str_eq(jstr(game_state(s, g4), "status"), "started");

    /* Under forbid no draw is offered. */
    expect_code(act(s, &a, g4, "draw/yes", NULL), 400, "no-draws");
    cr_assert(jnull(game_state(s, g4), "drawOffer"));

    /* Takebacks: one ply when the opponent is to move, two when the asker is. */
    play(s, &a, g4, "C4", 2);
    stream_t *sp = game_stream(s, g4, NULL);
    expect(act(s, &a, g4, "takeback/yes", NULL), 200);
    cr_assert_str_eq(jstr(expect_state(sp, "C3 A1B1 C4"), "takebackOffer"), "goats");
    expect(act(s, &b, g4, "takeback/no", NULL), 200);
    cr_assert(jnull(expect_state(sp, "C3 A1B1 C4"), "takebackOffer"));
    expect(act(s, &a, g4, "takeback/yes", NULL), 200);
    expect_state(sp, "C3 A1B1 C4");
    expect(act(s, &b, g4, "takeback/yes", NULL), 200);
    st = expect_state(sp, "C3 A1B1");
    cr_assert_eq(jnum(st, "plies"), 2);
    cr_assert_str_eq(jstr(st, "turn"), "goats");
    cr_assert(jnull(st, "takebackOffer"));
    play(s, &a, g4, "C4", 2);
    expect_state(sp, "C3 A1B1 C4");
    play(s, &b, g4, "B1B2", 3);
    expect_state(sp, "C3 A1B1 C4 B1B2");
    expect(act(s, &a, g4, "takeback/yes", NULL), 200); /* the goats' turn: both plies go */
    expect_state(sp, "C3 A1B1 C4 B1B2");
    expect(act(s, &b, g4, "takeback/yes", NULL), 200);
    st = expect_state(sp, "C3 A1B1");
    cr_assert_eq(jnum(st, "plies"), 2);
    cr_assert_str_eq(jstr(st, "turn"), "goats");
    expect_moves(s, g4, "C3 A1B1");
    play(s, &a, g4, "C4", 2);
    expect_state(sp, "C3 A1B1 C4");

    /* Chat: to every stream of the game, markup kept as text; control characters refused. */
    stream_t *gb = game_stream(s, g4, &b);
    const char *text = "<script>alert(\\\"x\\\")</script> & caf\\u00e9";
    const char *plain = "<script>alert(\"x\")</script> & caf\xc3\xa9";
    char body[256];
    snprintf(body, sizeof body, "{\"text\": \"%s\"}", text);
    expect(act(s, &a, g4, "chat", body), 200);
    cJSON *line = expect_event(sp, "chatLine");
    cr_assert_str_eq(jstr(line, "text"), plain);
    cr_assert_str_eq(jstr(line, "username"), a.name);
    cr_assert_not_null(strstr(sp->last, "\"<script>alert(\\\"x\\\")</script>"), "the line as sent: %s", sp->last);
    line = expect_event(gb, "chatLine");
    cr_assert_str_eq(jstr(line, "text"), plain);
    static const char *const BAD_CHAT[] = {"{\"text\": \"bell\\u0007\"}", "{\"text\": \"new\\nline\"}",
                                           "{\"text\": \"\"}", "{\"text\": 5}", "{}", "not json"};
    for (size_t i = 0; i < sizeof BAD_CHAT / sizeof *BAD_CHAT; i++)
        expect_code(act(s, &b, g4, "chat", BAD_CHAT[i]), 400, "chat");
    char longer[200];
    snprintf(longer, sizeof longer, "{\"text\": \"%0141d\"}", 0);
    expect_code(act(s, &b, g4, "chat", longer), 400, "chat");
    snprintf(longer, sizeof longer, "{\"text\": \"%0140d\"}", 0);
    expect(act(s, &b, g4, "chat", longer), 200);
    expect_event(sp, "chatLine");

    /* An agreed draw under the draw rule; moving declines the opponent's offer. */
    const char *g5 = new_game(s, &a, &b, "\"rule\": \"draw\"");
    stream_t *sp5 = game_stream(s, g5, NULL);
    expect(act(s, &a, g5, "draw/yes", NULL), 200);
    cr_assert_str_eq(jstr(expect_state(sp5, ""), "drawOffer"), "goats");
    play(s, &a, g5, "C3", 0);
    cr_assert_str_eq(jstr(expect_state(sp5, "C3"), "drawOffer"), "goats");
    play(s, &b, g5, "A1B1", 1);
    cr_assert(jnull(expect_state(sp5, "C3 A1B1"), "drawOffer"), "moving declines the offer");
    expect(act(s, &b, g5, "draw/yes", NULL), 200);
    cr_assert_str_eq(jstr(expect_state(sp5, "C3 A1B1"), "drawOffer"), "tigers");
    expect(act(s, &a, g5, "draw/yes", NULL), 200);
    st = expect_state(sp5, "C3 A1B1");
    cr_assert_str_eq(jstr(st, "status"), "draw");
    cr_assert(jnull(st, "winner"));

    /* A rematch: the sides swapped, the new game knows the old. */
    expect_code(act(s, &a, g4, "rematch/yes", NULL), 409, "not-over");
    stream_t *ea = stream_open(s, "/api/stream/event", a.token);
    expect(act(s, &a, g1, "rematch/yes", NULL), 200);
    cr_assert_str_eq(jstr(game_state(s, g1), "rematchOffer"), "goats");
    cJSON *j = expect(act(s, &b, g1, "rematch/yes", NULL), 200);
    const char *g6 = jstr(j, "game");
    cJSON *full = game_full(s, g6);
    cr_assert_str_eq(jstr(full, "goats.id"), b.id);
    cr_assert_str_eq(jstr(full, "tigers.id"), a.id);
    cr_assert_str_eq(jstr(full, "rematchOf"), g1);
    cr_assert_str_eq(jstr(full, "state.status"), "started");
    cr_assert_str_eq(jstr(game_state(s, g1), "rematch"), g6);
    for (;;) {
        cJSON *e = expect_event(ea, "gameStart");
        if (!strcmp(jstr(e, "game.id"), g6)) {
            cr_assert_str_eq(jstr(e, "game.side"), "tigers");
            break;
        }
    }
    expect_code(act(s, &a, g1, "rematch/yes", NULL), 409, "rematch");
    stop_room(s);
}

/* ==== 5. clocks ================================================================================ */

Test(room, the_side_that_does_not_move_loses_on_time)
{
    srv_t *s = start_room(fresh_db("flag"), "--lag-allowance", "0", NULL);
    who_t a = guest(s), b = guest(s);
    const char *game = new_game(s, &a, &b, "\"clock\": {\"initial\": 2, \"increment\": 0}");
    stream_t *sp = game_stream(s, game, NULL);
    play(s, &a, game, "C3", 0);
    cJSON *st = expect_state(sp, "C3");
    cr_assert(cJSON_IsFalse(jget(st, "clockRunning")), "the clocks start once each side has moved");
    play(s, &b, game, "A1B1", 1);
    double t0 = pipe_now_ms();
    st = expect_state(sp, "C3 A1B1");
    cr_assert(jtrue(st, "clockRunning"));
    cr_assert(jnum(st, "gtime") > 1950 && jnum(st, "gtime") <= 2000, "gtime %.0f", jnum(st, "gtime"));
    cr_assert_eq(jnum(st, "ttime"), 2000);
    /* The goats do not move: their flag falls at 2 s. */
    st = stream_until(sp, "gameState", (int)(6000 * slow()));
    double took = pipe_now_ms() - t0;
    cr_assert_not_null(st, "the flag never fell");
    cr_assert_str_eq(jstr(st, "status"), "outoftime");
    cr_assert_str_eq(jstr(st, "winner"), "tigers");
    cr_assert_eq(jnum(st, "gtime"), 0);
    cr_assert_gt(took, 1800, "the flag fell after %.0f ms", took);
    cr_assert_lt(took, 2700 + (slow() - 1) * 1000, "the flag fell after %.0f ms", took);
    expect_code(act(s, &a, game, "move/C4", NULL), 409, "over");
    stop_room(s);
}

Test(room, each_clock_loses_the_time_its_side_takes)
{
    srv_t *s = start_room(fresh_db("clocks"), "--lag-allowance", "0", NULL);
    who_t a = guest(s), b = guest(s);
    const char *game = new_game(s, &a, &b, "\"clock\": {\"initial\": 60, \"increment\": 2}");
    stream_t *sp = game_stream(s, game, NULL);
    play(s, &a, game, "C3", 0);
    expect_state(sp, "C3");
    /* From before the tigers' move, so that the goats' turn is within what is measured. */
    double t0 = pipe_now_ms();
    play(s, &b, game, "A1B1", 1);
    cJSON *st = expect_state(sp, "C3 A1B1");
    cr_assert(jnum(st, "gtime") > 59900 && jnum(st, "gtime") <= 60000, "gtime %.0f", jnum(st, "gtime"));
    cr_assert_eq(jnum(st, "ttime"), 60000);
    cr_assert_eq(jnum(st, "ginc"), 2000);
    /* The goats think for 600 ms: their clock loses that and gains the increment. */
    sleep_ms(600);
    play(s, &a, game, "C4", 2);
    double spent = pipe_now_ms() - t0;
    st = expect_state(sp, "C3 A1B1 C4");
    double lost = 62000 - jnum(st, "gtime");
    cr_assert(lost >= 590 && lost <= spent + 10, "the goats took %.0f ms and lost %.0f", spent, lost);
    cr_assert(jnum(st, "ttime") > 59900 && jnum(st, "ttime") <= 60000, "ttime %.0f", jnum(st, "ttime"));
    /* The tigers think for 300 ms. */
    sleep_ms(300);
    double t1 = pipe_now_ms();
    play(s, &b, game, "B1B2", 3);
    spent = pipe_now_ms() - t0;
    cJSON *st2 = expect_state(sp, "C3 A1B1 C4 B1B2");
    double since = pipe_now_ms() - t1;
    lost = 62000 - jnum(st2, "ttime");
    cr_assert(lost >= 290 && lost <= spent + 10, "the tigers took %.0f ms and lost %.0f", spent, lost);
    /* The goats' clock stood still through the tigers' turn; it runs again from the tigers'
     * move, so the state sent after it may show the goats a few ms down (when the machine is
     * busy, the time between the move and the state written for it), never more than that. */
    double ran = jnum(st, "gtime") - jnum(st2, "gtime");
    cr_assert(ran >= 0 && ran <= since + 1, "the goats' clock stood still in the tigers' turn: %.0f -> %.0f, %.0f ms after "
              "the tigers' move was sent", jnum(st, "gtime"), jnum(st2, "gtime"), since);
    /* Read while the goats think: their time goes down. */
    sleep_ms(300);
    const cJSON *now = game_state(s, game);
    cr_assert_lt(jnum(now, "gtime"), jnum(st2, "gtime") - 250);
    cr_assert_eq(jnum(now, "ttime"), jnum(st2, "ttime"));
    stop_room(s);
}

Test(room, a_first_move_not_made_aborts_the_game)
{
    srv_t *s = start_room(fresh_db("nostart"), "--first-move-seconds", "1", NULL);
    who_t a = guest(s), b = guest(s);
    const char *game = new_game(s, &a, &b, "\"clock\": {\"initial\": 60, \"increment\": 0}");
    double t0 = pipe_now_ms();
    char path[128];
    snprintf(path, sizeof path, "/api/board/game/stream/%s", game);
    stream_t *sp = stream_open(s, path, NULL);
    cJSON *full = expect_event(sp, "gameFull");
    cr_assert_leq(jnum(full, "state.firstMoveMs"), 1000);
    cJSON *st = expect_event(sp, "gameState");
    double took = pipe_now_ms() - t0;
    cr_assert_str_eq(jstr(st, "status"), "noStart");
    cr_assert(jnull(st, "winner"));
    cr_assert_lt(took, 2000 * slow(), "aborted after %.0f ms", took);
    expect_code(act(s, &a, game, "move/C3", NULL), 409, "over");
    /* The second side's first move has its own time too. */
    const char *g2 = new_game(s, &a, &b, "");
    stream_t *sp2 = game_stream(s, g2, NULL);
    play(s, &a, g2, "C3", 0);
    expect_state(sp2, "C3");
    st = expect_event(sp2, "gameState");
    cr_assert_str_eq(jstr(st, "status"), "noStart");
    stop_room(s);
}

/* ==== 6. players away ========================================================================= */

Test(room, a_player_away_can_lose_by_a_claim)
{
    srv_t *s = start_room(fresh_db("presence"), "--gone-seconds", "1", NULL);
    who_t a = guest(s), b = guest(s);
    const char *game = new_game(s, &a, &b, "");
    stream_t *ga = game_stream(s, game, &a), *ga2 = game_stream(s, game, &a), *gb = game_stream(s, game, &b);
    /* A second tab sees the same moves. */
    play(s, &a, game, "C3", 0);
    expect_state(ga, "C3"), expect_state(ga2, "C3"), expect_state(gb, "C3");
    play(s, &b, game, "A1B1", 1);
    expect_state(ga, "C3 A1B1"), expect_state(ga2, "C3 A1B1"), expect_state(gb, "C3 A1B1");
    /* One tab closed: still there. */
    stream_close(ga2);
    sleep_ms(300);
    expect_code(act(s, &b, game, "claim-victory", NULL), 409, "not-gone");
    play(s, &a, game, "C4", 2);
    cr_assert_str_eq(jstr(expect_event(gb, "gameState"), "moves"), "C3 A1B1 C4", "%s", gb->last);
    /* The last closed: gone, the claim refused until gone-seconds have passed. */
    double t0 = pipe_now_ms();
    stream_close(ga);
    cJSON *j = expect_event(gb, "opponentGone");
    cr_assert_lt(pipe_now_ms() - t0, 1000 * slow(), "the opponent's leaving was seen after %.0f ms",
                 pipe_now_ms() - t0);
    cr_assert_str_eq(jstr(j, "side"), "goats");
    cr_assert(jtrue(j, "gone"));
    cr_assert_eq(jnum(j, "claimWinInSeconds"), 1);
    expect_code(act(s, &b, game, "claim-victory", NULL), 409, "not-gone");
    /* Back: gone false. */
    stream_t *ga3 = game_stream(s, game, &a);
    j = expect_event(gb, "opponentGone");
    cr_assert(cJSON_IsFalse(jget(j, "gone")));
    sleep_ms(1200);
    expect_code(act(s, &b, game, "claim-victory", NULL), 409, "not-gone");
    /* Away again, longer than gone-seconds: the claim wins. */
    stream_close(ga3);
    j = expect_event(gb, "opponentGone");
    cr_assert(jtrue(j, "gone"));
    j = expect_event(gb, "opponentGone");
    cr_assert_eq(jnum(j, "claimWinInSeconds"), 0);
    expect_code(act(s, &a, game, "claim-victory", NULL), 409, "not-gone");
    expect(act(s, &b, game, "claim-victory", NULL), 200);
    cJSON *st = expect_event(gb, "gameState");
    cr_assert_str_eq(jstr(st, "status"), "timeout");
    cr_assert_str_eq(jstr(st, "winner"), "tigers");
    stop_room(s);
}

/* ==== 7. restarts ============================================================================== */

typedef struct {
    const char *id;
    char moves[512];
    char turn[16];
    double gtime, ttime;
} seen_t;

static void seen_now(const srv_t *s, seen_t *g)
{
    const cJSON *st = game_state(s, g->id);
    snprintf(g->moves, sizeof g->moves, "%s", jstr(st, "moves"));
    snprintf(g->turn, sizeof g->turn, "%s", jstr(st, "turn"));
    g->gtime = cJSON_IsNumber(jget(st, "gtime")) ? jnum(st, "gtime") : -1;
    g->ttime = cJSON_IsNumber(jget(st, "ttime")) ? jnum(st, "ttime") : -1;
    cr_assert_str_eq(jstr(st, "status"), "started");
}

/* The game as it was before the restart; the side to move's clock lost from min_lost to
 * max_lost ms since it was seen. */
static void same_after_restart(const srv_t *s, const seen_t *before, double min_lost, double max_lost)
{
    const cJSON *st = game_state(s, before->id);
    cr_assert_str_eq(jstr(st, "status"), "started");
    cr_assert_str_eq(jstr(st, "moves"), before->moves, "game %s", before->id);
    cr_assert_str_eq(jstr(st, "turn"), before->turn);
    if (before->gtime < 0) {
        cr_assert_null(jget(st, "gtime"));
        return;
    }
    /* The side to move's clock goes on; the other's stands. */
    bool goats = !strcmp(before->turn, "goats");
    double lost = goats ? before->gtime - jnum(st, "gtime") : before->ttime - jnum(st, "ttime");
    cr_assert(lost >= min_lost && lost < max_lost, "game %s: the clock lost %.0f ms over the restart", before->id,
              lost);
    cr_assert_eq(goats ? jnum(st, "ttime") : jnum(st, "gtime"), goats ? before->ttime : before->gtime);
}

/* Twenty games at once, half of them on the clock, each at its own ply: stopped (SIGTERM) and
 * killed (SIGKILL) in the middle, the server finds every one as it was, moves, side to move and
 * clocks, and each goes on. */
Test(room, twenty_games_go_on_after_a_stop_and_a_kill)
{
    enum { GAMES = 20 };
    const char *db = fresh_db("twenty");
    srv_t *s = start_room(db, NULL);
    who_t a = guest(s), b = guest(s);
    static const char *const MOVES[] = {"C3", "A1B1", "C4", "B1B2", "D4", "E1D1", "B4", "D1C2"};
    seen_t g[GAMES];
    const who_t *goats[GAMES], *tigers[GAMES];
    int ply[GAMES];
    for (int i = 0; i < GAMES; i++) {
        goats[i] = i % 2 ? &b : &a, tigers[i] = i % 2 ? &a : &b;
        g[i] = (seen_t){.id = new_game(s, goats[i], tigers[i], i % 2 ? "\"clock\": {\"initial\": 120, \"increment\": 1}" : "")};
        ply[i] = 0;
        for (int k = 0; k < 2 + i % 4; k++, ply[i]++)
            play(s, k % 2 ? tigers[i] : goats[i], g[i].id, MOVES[k], k);
    }
    for (int i = 0; i < GAMES; i++)
        seen_now(s, &g[i]);
    stop_room(s);
    s = start_room(db, NULL);
    for (int i = 0; i < GAMES; i++)
        same_after_restart(s, &g[i], -20, 1000 * slow());
    /* A move in each, then killed at once after the last one's answer. */
    for (int i = 0; i < GAMES; i++) {
        play(s, ply[i] % 2 ? tigers[i] : goats[i], g[i].id, MOVES[ply[i]], ply[i]);
        ply[i]++;
    }
    for (int i = 0; i < GAMES; i++)
        seen_now(s, &g[i]);
    kill_room(s);
    s = start_room(db, NULL);
    for (int i = 0; i < GAMES; i++) {
        same_after_restart(s, &g[i], -1100, 2000 * slow());
        cr_assert_eq(jnum(game_state(s, g[i].id), "plies"), ply[i], "game %d", i);
    }
    play(s, ply[0] % 2 ? tigers[0] : goats[0], g[0].id, MOVES[ply[0]], ply[0]);
    stop_room(s);
}

Test(room, games_go_on_after_a_restart)
{
    const char *db = fresh_db("restart");
    srv_t *s = start_room(db, NULL);
    who_t a = guest(s), b = guest(s);
    seen_t g[3] = {{.id = new_game(s, &a, &b, "")},
                   {.id = new_game(s, &a, &b, "\"clock\": {\"initial\": 60, \"increment\": 0}")},
                   {.id = new_game(s, &b, &a, "\"rule\": \"draw\", \"clock\": {\"initial\": 300, \"increment\": 5}")}};
    static const char *const MOVES[] = {"C3", "A1B1", "C4", "B1B2", "D4", "E1D1"};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3 + i; k++)
            play(s, k % 2 ? (i == 2 ? &a : &b) : (i == 2 ? &b : &a), g[i].id, MOVES[k], k);
    for (int i = 0; i < 3; i++)
        seen_now(s, &g[i]);
    cr_assert_str_eq(g[1].turn, "goats");
    cr_assert_str_eq(g[2].turn, "tigers");

    /* A clean stop; down for 2 s, which nobody is charged. */
    stop_room(s);
    sleep_ms(2000);
    s = start_room(db, NULL);
    /* (The stored clocks are in wall-clock milliseconds, the running ones monotonic: a few
     * milliseconds either way are rounding.) */
    for (int i = 0; i < 3; i++)
        same_after_restart(s, &g[i], -20, 1000);
    /* The tokens still work, and the games go on. */
    cr_assert_str_eq(jstr(expect(req(s, "GET", "/api/account", a.token, NULL), 200), "id"), a.id);

    /* Killed at once after a move's answer: every move answered 200 is there. */
    for (int i = 0; i < 2; i++)
        for (int k = 3 + i; k < 6; k++)
            play(s, k % 2 ? &b : &a, g[i].id, MOVES[k], k);
    for (int i = 0; i < 2; i++)
        seen_now(s, &g[i]);
    cr_assert_str_eq(g[0].moves, "C3 A1B1 C4 B1B2 D4 E1D1");
    play(s, &a, g[2].id, MOVES[5], 5);
    kill_room(s);
    sleep_ms(1000);
    s = start_room(db, NULL);
    /* Charged up to the last heartbeat (written every second) only: the time after it, before
     * the kill, is given back. */
    for (int i = 0; i < 2; i++)
        same_after_restart(s, &g[i], -1100, 2000 * slow());
    const cJSON *st = game_state(s, g[2].id);
    cr_assert_str_eq(jstr(st, "moves"), "C3 A1B1 C4 B1B2 D4 E1D1");
    cr_assert_str_eq(jstr(st, "turn"), "goats");
    cr_assert_str_eq(jstr(st, "status"), "started");
    play(s, &a, g[0].id, "A1", 6);
    stop_room(s);

    /* A database of a newer schema: refused, with a message, and status 1. */
    if (pgtest_server()) {
        char err[256] = "";
        cr_assert(pgtest_exec(db, "UPDATE schema_version SET version = 99", err, sizeof err), "%s", err);
    } else {
        sqlite3 *sq;
        cr_assert_eq(sqlite3_open(db, &sq), SQLITE_OK);
        cr_assert_eq(sqlite3_exec(sq, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(sq);
    }
    char *argv[] = {"/bin/sh", "-c", "exec \"$0\" --port 0 --database \"$1\" 2>&1", (char *)BAGHCHAL_SERVER_BIN,
                    (char *)db, NULL};
    pipe_proc_t *p = pipe_start(argv, 0);
    cr_assert_not_null(p);
    servers[servers_nb++].proc = p;
    char *line;
    pipe_status_t ps = pipe_read_until(p, "baghchal-server:", START_MS, NULL, &line);
    cr_assert_eq(ps, PIPE_LINE, "no message: %s", pipe_status_name(ps));
    cr_assert_not_null(strstr(line, "schema version 99"), "the message: %s", line);
    pipe_exit_t e = pipe_wait(p, EXIT_MS);
    cr_assert(e.exited && e.code == 1, "status %d, signal %d", e.code, e.signal);
}

/* ==== 7b. two servers on one PostgreSQL ================================================== */

/* A seek made on one server is in the other's lobby (its stream within a second), a token made
 * on one works on the other, and a seek cancelled through the other leaves both lobbies. */
Test(room, two_servers_share_one_lobby)
{
    if (!pgtest_server())
        cr_skip_test("two servers share a PostgreSQL database only (tests/support/postgres.sh)");
    const char *db = fresh_db("two");
    srv_t *a = start_room(db, NULL), *b = start_room(db, NULL);
    who_t x = guest(a);
    stream_t *lb = stream_open(b, "/api/lobby/stream", NULL), *la = stream_open(a, "/api/lobby/stream", NULL);
    expect_event(lb, "lobby");
    expect_event(la, "lobby");

    double t0 = pipe_now_ms();
    cJSON *seek = expect(req(a, "POST", "/api/seek", x.token, "{\"side\": \"tigers\"}"), 201);
    const char *sid = keep_str(strdup(jstr(seek, "id")));
    cJSON *j = expect_event(lb, "seekAdded");
    double took = pipe_now_ms() - t0;
    cr_assert_str_eq(jstr(j, "seek.id"), sid);
    cr_assert_str_eq(jstr(j, "seek.from.id"), x.id);
    cr_assert_str_eq(jstr(j, "seek.side"), "tigers");
    cr_assert_lt(took, 1000 * slow(), "seekAdded came to the other server %.0f ms after the POST", took);
    cr_assert(lobby_has_seek(b, sid));
    cr_assert_str_eq(jstr(expect_event(la, "seekAdded"), "seek.id"), sid);
    char path[256];
    snprintf(path, sizeof path, "/api/challenge/%s", sid);
    cr_assert_str_eq(jstr(expect(req(b, "GET", path, NULL, NULL), 200), "from.id"), x.id);

    /* The guest's token, made on a, is the same player on b. */
    cr_assert_str_eq(jstr(expect(req(b, "GET", "/api/account", x.token, NULL), 200), "id"), x.id);
    /* Its own creator still cannot take it there. */
    snprintf(path, sizeof path, "/api/seek/%s/accept", sid);
    expect_code(req(b, "POST", path, x.token, NULL), 400, "self");

    /* Cancelled through b: gone from both. */
    snprintf(path, sizeof path, "/api/seek/%s/cancel", sid);
    expect(req(b, "POST", path, x.token, NULL), 200);
    j = expect_event(la, "seekRemoved");
    cr_assert_str_eq(jstr(j, "id"), sid);
    cr_assert_str_eq(jstr(j, "reason"), "cancelled");
    cr_assert_str_eq(jstr(expect_event(lb, "seekRemoved"), "id"), sid);
    cr_assert(!lobby_has_seek(a, sid));
    cr_assert(!lobby_has_seek(b, sid));
    expect_code(req(a, "POST", path, x.token, NULL), 404, "no-challenge");

    /* A challenge made on a to a player named on b: on its stream on b; declined there, on the
     * challenger's stream on a. */
    who_t y = named(b, "Yogesh", NULL);
    stream_t *ey = stream_open(b, "/api/stream/event", y.token), *ex = stream_open(a, "/api/stream/event", x.token);
    cJSON *ch = expect(req(a, "POST", "/api/challenge", x.token, "{\"to\": \"yogesh\"}"), 201);
    const char *cid = keep_str(strdup(jstr(ch, "id")));
    cr_assert_str_eq(jstr(ch, "to.id"), y.id);
    j = expect_event(ey, "challenge");
    cr_assert_str_eq(jstr(j, "challenge.id"), cid);
    cr_assert_str_eq(jstr(j, "challenge.from.id"), x.id);
    snprintf(path, sizeof path, "/api/challenge/%s/decline", cid);
    expect(req(b, "POST", path, y.token, NULL), 200);
    j = expect_event(ex, "challengeDeclined");
    cr_assert_str_eq(jstr(j, "id"), cid);
    snprintf(path, sizeof path, "/api/challenge/%s", cid);
    expect_code(req(a, "GET", path, NULL, NULL), 404, "no-challenge");

    /* A game on a; a server started later finds the lobby as it is, and leaves the game to a:
     * were it to keep the game's clock too, it would abort the game at its first tick after a
     * second (no first move) and store that over a's game. */
    who_t z = guest(a);
    const char *game = new_game(a, &x, &z, "");
    seek = expect(req(b, "POST", "/api/seek", x.token, NULL), 201);
    sid = keep_str(strdup(jstr(seek, "id")));
    expect_event(la, "seekAdded");
    srv_t *c = start_room(db, "--first-move-seconds", "1", NULL);
    cr_assert(lobby_has_seek(c, sid));
    cr_assert_eq(lobby_seeks(c), 1);
    sleep_ms(2500);
    char sql[128], err[256] = "";
    snprintf(sql, sizeof sql, "SELECT status FROM games WHERE id = '%s'", game);
    char *status = pgtest_value(db, sql, err, sizeof err);
    cr_assert_not_null(status, "%s", err);
    cr_assert_str_eq(status, "started");
    free(status);
    play(a, &x, game, "C3", 0);
    play(a, &z, game, "A1B1", 1);
    stop_room(c);
    stop_room(a);
    stop_room(b);
}

/* A game kept by a, its players' moves sent through a and b, a spectator on c: every move is
 * played and seen as on one server. Then a is killed (SIGKILL): b or c takes the game over
 * within a few seconds, with every acknowledged move and none twice, and the game goes on
 * through b, the spectator seeing every move throughout. */
Test(room, a_game_played_through_three_servers_and_taken_over_when_its_server_is_killed)
{
    if (!pgtest_server())
        cr_skip_test("several servers share a PostgreSQL database only (tests/support/postgres.sh)");
    const char *db = fresh_db("three");
    srv_t *a = start_room(db, NULL), *b = start_room(db, NULL), *c = start_room(db, NULL);
    who_t x = guest(a), z = guest(a);
    const char *game = new_game(a, &x, &z, "\"clock\": {\"initial\": 300, \"increment\": 0}");
    stream_t *sp = game_stream(c, game, NULL);
    static const char *const MOVES[] = {"C3", "A1B1", "C4", "B1B2", "D4"};
    static const char *const SEEN[] = {"C3", "C3 A1B1", "C3 A1B1 C4", "C3 A1B1 C4 B1B2", "C3 A1B1 C4 B1B2 D4"};
    /* The tigers move through b: their moves go to a, which keeps the game, and its answer
     * back; an illegal one is refused the same way. */
    for (int k = 0; k < 3; k++) {
        if (k == 1)
            expect_code(act(b, &z, game, "move/A1A3", NULL), 400, "illegal");
        play(k % 2 ? b : a, k % 2 ? &z : &x, game, MOVES[k], k);
        expect_state(sp, SEEN[k]);
    }
    expect_code(act(b, &x, game, "move/C5", NULL), 409, "not-your-turn");

    kill_room(a);
    double t0 = pipe_now_ms(), took = -1;
    char path[128];
    snprintf(path, sizeof path, "/api/board/game/%s/move/B1B2", game);
    while (pipe_now_ms() - t0 < 10000 * slow()) {
        resp_t r = req(b, "POST", path, z.token, NULL);
        if (r.status == 200) {
            took = pipe_now_ms() - t0;
            break;
        }
        sleep_ms(100);
    }
    cr_assert_geq(took, 0, "nobody took the game over within %.0f s", 10 * slow());
    cr_assert_lt(took, 5000 * slow(), "the game was taken over %.0f ms after the kill", took);
    /* The state as it was taken over (announced again by the new keeper, once or more as the
     * takeover and the forwarded move race), then the move: never another position. */
    for (int seen = 0;; seen++) {
        cr_assert_lt(seen, 5, "the move taken over never reached the spectator");
        cJSON *j = expect_event(sp, "gameState");
        if (strcmp(jstr(j, "moves"), SEEN[3]) == 0)
            break;
        cr_assert_str_eq(jstr(j, "moves"), SEEN[2], "a stream's gameState after the takeover: %s", sp->last);
    }
    play(b, &x, game, MOVES[4], 4);
    expect_state(sp, SEEN[4]);
    const cJSON *st = game_state(b, game);
    cr_assert_str_eq(jstr(st, "moves"), SEEN[4]);
    cr_assert_str_eq(jstr(st, "status"), "started");
    char sql[160], err[256] = "";
    snprintf(sql, sizeof sql, "SELECT moves || ' ' || plies FROM games WHERE id = '%s'", game);
    char *row = pgtest_value(db, sql, err, sizeof err);
    cr_assert_not_null(row, "%s", err);
    cr_assert_str_eq(row, "C3 A1B1 C4 B1B2 D4 5");
    free(row);
    stop_room(b);
    stop_room(c);
}

/* Is id in the list (players or games) of a lobby's picture? Its entry, or NULL. */
static const cJSON *listed_in(const cJSON *lobby, const char *list, const char *id)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, jget(lobby, list))
    {
        if (!strcmp(jstr(e, "id"), id))
            return e;
    }
    return NULL;
}

/* Asks s's lobby until ok(lobby, arg) holds, for up to 10 s: the last picture, which must. */
static cJSON *lobby_until(const srv_t *s, bool (*ok)(const cJSON *lobby, const void *arg), const void *arg,
                          const char *what)
{
    double end = pipe_now_ms() + 10000 * slow();
    for (;;) {
        cJSON *j = expect(req(s, "GET", "/api/lobby", NULL, NULL), 200);
        if (ok(j, arg))
            return j;
        cr_assert_lt(pipe_now_ms(), end, "the lobby on port %d never showed %s: %s", s->port, what,
                     keep_str(cJSON_PrintUnformatted(j)));
        sleep_ms(100);
    }
}

static bool online_in(const cJSON *lobby, const void *id) { return listed_in(lobby, "players", id) != NULL; }
static bool offline_in(const cJSON *lobby, const void *id) { return !online_in(lobby, id); }
static bool game_moved_in(const cJSON *lobby, const void *id)
{
    const cJSON *g = listed_in(lobby, "games", id);
    return g && jnum(g, "plies") == 1;
}
static bool none_playing(const cJSON *lobby, const void *arg)
{
    (void)arg;
    return jnum(lobby, "playing") == 0 && cJSON_GetArraySize(jget(lobby, "games")) == 0;
}

/* Who is online and which games are being played are the same on every server: a player whose
 * stream is open on one is online in the other's lobby and on its page there; a game one keeps
 * is in the other's list, with its moves and clocks, and on its lobby stream; a game that ends
 * and a stream that closes leave both. */
Test(room, two_servers_show_the_same_players_online_and_games_being_played)
{
    if (!pgtest_server())
        cr_skip_test("several servers share a PostgreSQL database only (tests/support/postgres.sh)");
    const char *db = fresh_db("presence");
    srv_t *a = start_room(db, NULL), *b = start_room(db, NULL);
    who_t x = named(a, "Xenia", NULL), y = guest(b);
    stream_t *lb = stream_open(b, "/api/lobby/stream", NULL);
    expect_event(lb, "lobby");

    stream_t *sx = stream_open(a, "/api/stream/event", x.token);
    lobby_until(b, online_in, x.id, "the player online on the other server");
    cr_assert(jtrue(expect(req(b, "GET", "/api/player/Xenia", NULL, NULL), 200), "online"));
    stream_t *sy = stream_open(b, "/api/stream/event", y.token);
    cJSON *la = lobby_until(a, online_in, y.id, "the player online on the other server");
    cr_assert_eq(jnum(la, "online"), 2);
    cr_assert_eq(jnum(lobby_until(b, online_in, x.id, "both players"), "online"), 2);

    /* A game a keeps, in b's list and on b's lobby stream. */
    const char *game = new_game(a, &x, &y, "\"clock\": {\"initial\": 300, \"increment\": 2}");
    for (;;) {
        cJSON *j = expect_event(lb, "lobbyUpdate");
        if (jget(j, "games") && listed_in(j, "games", game)) {
            cr_assert_eq(jnum(j, "playing"), 1);
            break;
        }
    }
    play(a, &x, game, "C3", 0);
    cJSON *l = lobby_until(b, game_moved_in, game, "the game with its first move");
    const cJSON *g = listed_in(l, "games", game);
    cr_assert_eq(jnum(l, "playing"), 1);
    cr_assert_str_eq(jstr(g, "goats.id"), x.id);
    cr_assert_str_eq(jstr(g, "tigers.id"), y.id);
    cr_assert_str_eq(jstr(g, "turn"), "tigers");
    cr_assert_str_eq(jstr(g, "status"), "started");
    cr_assert_eq(jnum(g, "gtime"), 300000);
    cr_assert_eq(jnum(g, "ttime"), 300000);
    cr_assert_not_null(listed_in(expect(req(a, "GET", "/api/lobby", NULL, NULL), 200), "games", game));

    /* The game ends (resigned through b): out of both lists. */
    expect(act(b, &y, game, "resign", NULL), 200);
    lobby_until(b, none_playing, NULL, "no game being played");
    lobby_until(a, none_playing, NULL, "no game being played");

    /* x's stream closes: offline on b too. */
    stream_close(sx);
    lobby_until(b, offline_in, x.id, "the player gone");
    cr_assert(cJSON_IsFalse(jget(expect(req(b, "GET", "/api/player/Xenia", NULL, NULL), 200), "online")));
    /* b stops with y's stream open: y leaves a's lobby at once (b says so as it stops). */
    cr_assert_not_null(listed_in(expect(req(a, "GET", "/api/lobby", NULL, NULL), 200), "players", y.id));
    stop_room(b);
    stream_close(sy);
    lobby_until(a, offline_in, y.id, "the stopped server's player gone");
    stop_room(a);
}

/* POSTs with no body, sent at once: each on a connection of its own, every one on the wire
 * before any answer is read. out[i] is the answer to tokens[i]'s, sent to to[i]. */
static void posts_at_once(int n, srv_t *const *to, const char *path, const char *const *tokens, resp_t *out)
{
    int fd[16];
    cr_assert_leq(n, 16);
    for (int i = 0; i < n; i++) {
        fd[i] = net_connect(to[i]->port);
        cr_assert_geq(fd[i], 0, "cannot connect to port %d", to[i]->port);
    }
    for (int i = 0; i < n; i++) {
        char text[512];
        int len = snprintf(text, sizeof text,
                           "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                           "Authorization: Bearer %s\r\nContent-Length: 0\r\n\r\n",
                           path, tokens[i]);
        memset(&out[i], 0, sizeof out[i]);
        snprintf(out[i].what, sizeof out[i].what, "POST %s (port %d)", path, to[i]->port);
        cr_assert(net_send_all(fd[i], text, (size_t)len));
    }
    for (int i = 0; i < n; i++) {
        read_answer(fd[i], &out[i]);
        close(fd[i]);
    }
}

/* A seek, or a link for a friend, accepted at the same instant by many players through two
 * servers starts one game: the accept committed first wins, and every other is refused as a
 * seek already taken is on one server (404 no-challenge), whichever server it went through.
 * The challenger hears of one game only, on a stream on either server. */
Test(room, a_seek_accepted_at_once_through_two_servers_starts_one_game)
{
    if (!pgtest_server())
        cr_skip_test("several servers share a PostgreSQL database only (tests/support/postgres.sh)");
    const char *db = fresh_db("race");
    srv_t *srv[2] = {start_room(db, NULL), start_room(db, NULL)};
    enum { TAKERS = 8, ROUNDS = 6 };
    who_t maker = guest(srv[0]), takers[TAKERS];
    for (int i = 0; i < TAKERS; i++)
        takers[i] = guest(srv[i % 2]);
    stream_t *events = stream_open(srv[1], "/api/stream/event", maker.token);
    char path[128], sql[160], err[256] = "", want[32];
    for (int round = 0; round < ROUNDS; round++) {
        bool link = round % 3 == 2;
        srv_t *home = srv[round % 2], *other = srv[1 - round % 2];
        cJSON *c = expect(req(home, "POST", link ? "/api/challenge" : "/api/seek", maker.token, "{\"side\": \"goats\"}"),
                          201);
        const char *id = keep_str(strdup(jstr(c, "id")));
        /* Known to both servers before the race. */
        snprintf(path, sizeof path, "/api/challenge/%s", id);
        expect(req(other, "GET", path, NULL, NULL), 200);
        snprintf(path, sizeof path, "/api/%s/%s/accept", link ? "challenge" : "seek", id);
        srv_t *to[TAKERS];
        const char *tokens[TAKERS];
        resp_t out[TAKERS];
        for (int i = 0; i < TAKERS; i++)
            to[i] = srv[i % 2], tokens[i] = takers[(i + round) % TAKERS].token;
        posts_at_once(TAKERS, to, path, tokens, out);
        int won = -1;
        for (int i = 0; i < TAKERS; i++) {
            if (out[i].status == 200) {
                cr_assert_eq(won, -1, "%s was accepted twice: %s and %s", id, out[won].body, out[i].body);
                won = i;
            } else {
                expect_code(out[i], 404, "no-challenge");
            }
        }
        cr_assert_geq(won, 0, "nobody's accept of %s won", id);
        const char *game = keep_str(strdup(jstr(out[won].json, "game")));
        cr_assert_str_eq(jstr(out[won].json, "side"), "tigers");
        for (int k = 0; k < 2; k++) {
            cJSON *full = game_full(srv[k], game);
            cr_assert_str_eq(jstr(full, "goats.id"), maker.id);
            cr_assert_str_eq(jstr(full, "tigers.id"), takers[(won + round) % TAKERS].id);
        }
        cr_assert_str_eq(jstr(expect_event(events, "gameStart"), "game.id"), game);
        /* One game in the database for each seek, and no seek left. */
        snprintf(sql, sizeof sql, "SELECT (SELECT count(*) FROM games) || ' ' || (SELECT count(*) FROM challenges)");
        char *counts = pgtest_value(db, sql, err, sizeof err);
        cr_assert_not_null(counts, "%s", err);
        snprintf(want, sizeof want, "%d 0", round + 1);
        cr_assert_str_eq(counts, want, "games and open challenges after %d seeks", round + 1);
        free(counts);
        expect_code(req(other, "POST", path, takers[0].token, NULL), 404, "no-challenge");
    }
    /* No other game started for the challenger. */
    cr_assert_null(stream_until(events, "gameStart", 500), "a second gameStart: %s", events->last);
    stop_room(srv[0]);
    stop_room(srv[1]);
}

/* No event within a short while on the stream (keepalives aside). */
static void expect_quiet(stream_t *st)
{
    cJSON *j = stream_next(st, (int)(300 * slow()));
    cr_assert_null(j, "an event more on the stream: %s", st->last);
}

/* A game kept by a, its moves and offers sent through all three servers: a spectator on another
 * server (b) and one on a third (c) see a player leave and come back, every move exactly once
 * and in order, an offer made again or a "no" to nothing sends nothing, and the rematch is
 * offered and accepted through servers that do not keep the finished game. */
Test(room, spectators_on_other_servers_see_every_move_once_in_order)
{
    if (!pgtest_server())
        cr_skip_test("several servers share a PostgreSQL database only (tests/support/postgres.sh)");
    const char *db = fresh_db("spectators");
    srv_t *srv[3] = {start_room(db, NULL), start_room(db, NULL), start_room(db, NULL)};
    who_t x = guest(srv[0]), z = guest(srv[1]);
    const char *game = new_game(srv[0], &x, &z, "");
    stream_t *sb = game_stream(srv[1], game, NULL), *sc = game_stream(srv[2], game, NULL);
    stream_t *spec[2] = {sb, sc};
    /* The tigers' stream of the game on a, closed and opened again: away, then back, on the
     * spectators' streams on b and c too. */
    stream_t *zs = game_stream(srv[0], game, &z);
    stream_close(zs);
    for (int i = 0; i < 2; i++) {
        cJSON *j = expect_event(spec[i], "opponentGone");
        cr_assert_str_eq(jstr(j, "side"), "tigers");
        cr_assert(jtrue(j, "gone"));
        cr_assert_eq(jnum(j, "claimWinInSeconds"), 30);
    }
    zs = game_stream(srv[0], game, &z);
    for (int i = 0; i < 2; i++) {
        cJSON *j = expect_event(spec[i], "opponentGone");
        cr_assert_str_eq(jstr(j, "side"), "tigers");
        cr_assert(cJSON_IsFalse(jget(j, "gone")));
    }
    script_t script;
    script_to_the_end(REP_FORBID, 11, &script);
    int plies = script.n - 1 < 14 ? script.n - 1 : 14;
    cr_assert_gt(plies, 6);
    for (int k = 0; k < plies; k++) {
        play(srv[(k / 2) % 3], k % 2 ? &z : &x, game, script.move[k], k);
        if (k % 3 == 2) /* some moves read at once, others after a few more were made */
            for (int i = 0; i < 2; i++)
                for (int n = k - 2; n <= k; n++)
                    expect_state(spec[i], moves_upto(&script, n + 1));
    }
    for (int i = 0; i < 2; i++)
        for (int n = plies - plies % 3; n < plies; n++)
            expect_state(spec[i], moves_upto(&script, n + 1));

    /* A takeback asked twice (through b, then c): one state. Withdrawn, then withdrawn again:
     * one state. */
    const char *asker = plies % 2 ? "goats" : "tigers"; /* the side that moved last */
    who_t *last = plies % 2 ? &x : &z;
    expect(act(srv[1], last, game, "takeback/yes", NULL), 200);
    expect(act(srv[2], last, game, "takeback/yes", NULL), 200);
    expect(act(srv[1], last, game, "takeback/no", NULL), 200);
    expect(act(srv[2], last, game, "takeback/no", NULL), 200);
    for (int i = 0; i < 2; i++) {
        cJSON *j = expect_state(spec[i], moves_upto(&script, plies));
        cr_assert_str_eq(jstr(j, "takebackOffer"), asker);
        j = expect_state(spec[i], moves_upto(&script, plies));
        cr_assert(jnull(j, "takebackOffer"));
    }
    /* Resigned through c; the rematch offered through b and accepted through c, neither of which
     * keeps the game: one state each. */
    expect(act(srv[2], &z, game, "resign", NULL), 200);
    expect(act(srv[1], &z, game, "rematch/yes", NULL), 200);
    expect(act(srv[1], &z, game, "rematch/yes", NULL), 200);
    cJSON *j = expect(act(srv[2], &x, game, "rematch/yes", NULL), 200);
    const char *next = keep_str(strdup(jstr(j, "game")));
    cr_assert_str_eq(jstr(game_full(srv[1], next), "goats.id"), z.id);
    expect_code(act(srv[1], &z, game, "rematch/yes", NULL), 409, "rematch");
    for (int i = 0; i < 2; i++) {
        j = expect_state(spec[i], moves_upto(&script, plies));
        cr_assert_str_eq(jstr(j, "status"), "resign");
        cr_assert_str_eq(jstr(j, "winner"), "goats");
        j = expect_state(spec[i], moves_upto(&script, plies));
        cr_assert_str_eq(jstr(j, "rematchOffer"), "tigers");
        j = expect_state(spec[i], moves_upto(&script, plies));
        cr_assert_str_eq(jstr(j, "rematch"), next);
        expect_quiet(spec[i]);
    }
    for (int i = 0; i < 3; i++)
        stop_room(srv[i]);
}

/* A player's presence in a game counts on whichever server its stream of the game is open: a
 * reload that lands on another server is no absence (no claim), and the last stream closed on
 * another server is one, claimed through either server. */
Test(room, a_player_in_a_game_is_present_through_any_server)
{
    if (!pgtest_server())
        cr_skip_test("several servers share a PostgreSQL database only (tests/support/postgres.sh)");
    const char *db = fresh_db("seats");
    srv_t *a = start_room(db, "--gone-seconds", "1", NULL), *b = start_room(db, NULL);
    who_t x = guest(a), z = guest(b);
    const char *game = new_game(a, &x, &z, "");
    stream_t *xs = game_stream(a, game, &x), *zb = game_stream(b, game, &z);
    /* a has heard b's list, z's seat with it. */
    lobby_until(a, online_in, z.id, "the player online on the other server");
    stream_t *za = game_stream(a, game, &z);
    stream_close(za);
    expect_quiet(xs);
    sleep_ms((int)(1200 * slow()));
    expect_code(act(a, &x, game, "claim-victory", NULL), 409, "not-gone");
    stream_close(zb);
    cJSON *j = expect_event(xs, "opponentGone");
    cr_assert_str_eq(jstr(j, "side"), "tigers");
    cr_assert(jtrue(j, "gone"));
    cr_assert_eq(jnum(j, "claimWinInSeconds"), 1);
    j = expect_event(xs, "opponentGone");
    cr_assert_eq(jnum(j, "claimWinInSeconds"), 0);
    expect(act(b, &x, game, "claim-victory", NULL), 200);
    j = expect_event(xs, "gameState");
    cr_assert_str_eq(jstr(j, "status"), "timeout");
    cr_assert_str_eq(jstr(j, "winner"), "goats");
    stop_room(b);
    stop_room(a);
}

/* ==== 8. bad input ================================================================================ */

Test(room, bad_input_over_a_raw_socket)
{
    srv_t *s = start_room(fresh_db("input"), "--max-body", "1024", NULL);
    who_t a = guest(s), b = guest(s);
    const char *game = new_game(s, &a, &b, "");
    play(s, &a, game, "C3", 0);

    /* A body over --max-body: 413, and no seek. */
    char big[4096];
    int n = snprintf(big, sizeof big, "{\"side\": \"goats\", \"x\": \"");
    memset(big + n, 'x', 3000);
    snprintf(big + n + 3000, sizeof big - (size_t)n - 3000, "\"}");
    resp_t r = req(s, "POST", "/api/seek", a.token, big);
    cr_assert_eq(r.status, 413, "%s", r.body ? r.body : "(no answer)");
    cr_assert_eq(lobby_seeks(s), 0);
    char chat[1400];
    n = snprintf(chat, sizeof chat, "{\"text\": \"");
    memset(chat + n, 'y', 1100);
    snprintf(chat + n + 1100, sizeof chat - (size_t)n - 1100, "\"}");
    char path[2200];
    snprintf(path, sizeof path, "/api/board/game/%s/chat", game);
    cr_assert_eq(req(s, "POST", path, a.token, chat).status, 413);

    /* Malformed JSON. */
    static const char *const MALFORMED[] = {"{", "{\"side\": }", "{\"side\": \"goats\"", "\x01\x02", "nul"};
    for (size_t i = 0; i < sizeof MALFORMED / sizeof *MALFORMED; i++) {
        expect_code(req(s, "POST", "/api/seek", a.token, MALFORMED[i]), 400, "json");
        expect_code(req(s, "POST", "/api/account/register", NULL, MALFORMED[i]), 400, "json");
        expect_code(act(s, &b, game, "chat", MALFORMED[i]), 400, "chat");
    }
    cr_assert_eq(lobby_seeks(s), 0);

    /* A game id of 1000 characters: 404, whatever the path. */
    char id[1001];
    memset(id, 'g', 1000);
    id[1000] = '\0';
    snprintf(path, sizeof path, "/api/game/%s", id);
    expect_code(req(s, "GET", path, NULL, NULL), 404, "no-game");
    snprintf(path, sizeof path, "/api/game/%s/record", id);
    expect_code(req(s, "GET", path, NULL, NULL), 404, "no-game");
    snprintf(path, sizeof path, "/api/board/game/%s/move/B2", id);
    expect_code(req(s, "POST", path, b.token, NULL), 404, "no-game");
    snprintf(path, sizeof path, "/api/game/%s/stream", id);
    stream_t *st = stream_open_any(s, path, NULL, false);
    cr_assert_eq(st->status, 404);
    snprintf(path, sizeof path, "/api/board/game/stream/%s", id);
    st = stream_open_any(s, path, NULL, false);
    cr_assert_eq(st->status, 404);
    snprintf(path, sizeof path, "/api/seek/%s/accept", id);
    expect_code(req(s, "POST", path, b.token, NULL), 404, "no-challenge");
    snprintf(path, sizeof path, "/api/player/%s", id);
    expect_code(req(s, "GET", path, NULL, NULL), 404, "no-player");

    /* DELETE on a game: 405; the game as it was. */
    snprintf(path, sizeof path, "/api/game/%s", game);
    expect_code(req(s, "DELETE", path, a.token, NULL), 405, "method");
    snprintf(path, sizeof path, "/api/board/game/%s/resign", game);
    expect_code(req(s, "DELETE", path, a.token, NULL), 405, "method");
    cr_assert_eq(req(s, "PUT", path, a.token, "{}").status, 405);
    const cJSON *state = game_state(s, game);
    cr_assert_str_eq(jstr(state, "moves"), "C3");
    cr_assert_str_eq(jstr(state, "status"), "started");
    /* Still serving, the game goes on. */
    play(s, &b, game, "A1B1", 1);
    stop_room(s);
}

/* ==== Server-Sent Events ======================================================================== */

Test(room, server_sent_events_are_framed)
{
    srv_t *s = start_room(fresh_db("sse"), NULL);
    who_t a = guest(s);
    stream_t *st = stream_open_any(s, "/api/lobby/stream", NULL, true);
    char ct[128];
    cr_assert_eq(st->status, 200);
    cr_assert_str_eq(net_header(st->head, "Content-Type", ct, sizeof ct), "text/event-stream");
    /* The first event, byte for byte: "data: {...}\n\n". */
    double end = pipe_now_ms() + EVENT_MS * slow();
    while (!(st->data && memmem(st->data, st->dlen, "\n\n", 2)) && pipe_now_ms() < end)
        if (stream_fill(st, (int)(end - pipe_now_ms())))
            stream_decode(st);
    cr_assert(st->data && !strncmp(st->data, "data: {", 7), "the stream starts with: %.40s", st->data ? st->data : "");
    char *blank = memmem(st->data, st->dlen, "\n\n", 2);
    cr_assert_eq(blank[-1], '}');
    cr_assert_null(memchr(st->data, '\n', (size_t)(blank - st->data)), "an event on more than one line");
    cJSON *j = stream_next(st, 0);
    cr_assert_str_eq(jstr(j, "type"), "lobby");
    cJSON *seek = expect(req(s, "POST", "/api/seek", a.token, "{}"), 201);
    j = expect_event(st, "seekAdded");
    cr_assert_str_eq(jstr(j, "seek.id"), jstr(seek, "id"));
    stop_room(s);
}

#endif
