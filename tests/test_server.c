/* baghchal-server over real HTTP on a loopback port of its own choosing: every endpoint,
 * every error code, malformed and oversized requests, the pool limits, concurrent clients
 * and a clean shutdown. The server is built (and this suite linked with cJSON) only when
 * libmicrohttpd and cJSON are installed; otherwise the suite is disabled in ctest and its
 * one test skips. */
#define _GNU_SOURCE /* memmem */
#include <criterion/criterion.h>

#ifndef BAGHCHAL_SERVER_BIN

Test(server, not_built)
{
    cr_skip_test("baghchal-server is not built: install libmicrohttpd-dev and libcjson-dev");
}

#else

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cJSON.h"

#include "baghchal.h"
#include "net.h"
#include "pipe.h"
#include "tb_build.h"
#include "tree.h"

/* Generous bounds: sanitizer builds on a shared two-core machine are slow. */
enum { START_MS = 30000, REPLY_MS = 30000, EXIT_MS = 30000 };

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#define START_OBX "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #"

/* The server may carry a sanitizer while this suite does not (the ThreadSanitizer build
 * instruments only the programs): look at the binary too. */
static bool server_sanitized(void)
{
    static int known = -1;
    if (known < 0)
        known = SANITIZED || net_binary_sanitized(BAGHCHAL_SERVER_BIN);
    return known == 1;
}

/* ---- the server process ----------------------------------------------------------- */

typedef struct {
    pipe_proc_t *proc;
    int port;
} srv_t;

static srv_t servers[4];
static int servers_nb;

static void stop_all(void)
{
    for (int i = 0; i < servers_nb; i++)
        pipe_free(servers[i].proc);
    servers_nb = 0;
}

TestSuite(server, .fini = stop_all, .timeout = 240);

/* Starts the server on a free port with a small table and the given extra arguments. */
static srv_t *start(const char *first, ...)
{
    char *argv[40];
    int n = 0;
    argv[n++] = (char *)BAGHCHAL_SERVER_BIN;
    argv[n++] = "--port";
    argv[n++] = "0";
    argv[n++] = "--hash";
    argv[n++] = "4";
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && n < 39; a = va_arg(ap, const char *))
        argv[n++] = (char *)a;
    va_end(ap);
    argv[n] = NULL;
    cr_assert_lt(servers_nb, 4);
    srv_t *s = &servers[servers_nb++];
    s->proc = pipe_start(argv, PIPE_KEEP_STDERR);
    cr_assert_not_null(s->proc, "cannot start %s: %s", BAGHCHAL_SERVER_BIN, strerror(errno));
    char *line;
    pipe_status_t st = pipe_read_until(s->proc, "baghchal-server", START_MS, NULL, &line);
    cr_assert_eq(st, PIPE_LINE, "the server printed no start line: %s", pipe_status_name(st));
    const char *at = strstr(line, "listening on http://127.0.0.1:");
    cr_assert_not_null(at, "unexpected start line: %s", line);
    s->port = atoi(at + strlen("listening on http://127.0.0.1:"));
    cr_assert_gt(s->port, 0, "no port in: %s", line);
    return s;
}

/* SIGTERM must end it cleanly, with status 0 (sanitizers turn leaks into a failure). */
static void stop(srv_t *s)
{
    cr_assert_eq(kill(pipe_pid(s->proc), SIGTERM), 0);
    pipe_exit_t e = pipe_wait(s->proc, EXIT_MS);
    cr_assert(!e.killed, "the server did not stop within %d ms of SIGTERM", EXIT_MS);
    cr_assert(e.exited && e.code == 0, "the server ended with status %d, signal %d", e.code, e.signal);
}

/* ---- a small HTTP client ------------------------------------------------------------ */

typedef struct {
    int status;    /* 0 when no response came */
    char *head;    /* status line and headers */
    char *body;
    size_t body_len;
} resp_t;

static void resp_free(resp_t *r)
{
    free(r->head);
    free(r->body);
    memset(r, 0, sizeof *r);
}

static void parse_response(const char *raw, size_t len, resp_t *out)
{
    memset(out, 0, sizeof *out);
    const char *sep = raw ? strstr(raw, "\r\n\r\n") : NULL;
    if (!sep || strncmp(raw, "HTTP/1.", 7) != 0)
        return;
    out->status = atoi(raw + 9);
    size_t hlen = (size_t)(sep - raw);
    out->head = strndup(raw, hlen + 2);
    out->body_len = len - hlen - 4;
    out->body = strndup(sep + 4, out->body_len);
}

/* Sends raw bytes, returns the response (status 0 if none or the connection failed). */
static resp_t raw_request_within(int port, const char *req, size_t len, int timeout_ms)
{
    resp_t r = {0};
    int fd = net_connect(port);
    if (fd < 0)
        return r;
    if (net_send_all(fd, req, len)) {
        size_t n;
        char *raw = net_read_all(fd, &n, timeout_ms);
        parse_response(raw, n, &r);
        free(raw);
    }
    close(fd);
    return r;
}

static resp_t raw_request(int port, const char *req, size_t len) { return raw_request_within(port, req, len, REPLY_MS); }

static resp_t request(int port, const char *method, const char *path, const char *body, const char *extra)
{
    size_t blen = body ? strlen(body) : 0;
    size_t cap = strlen(path) + blen + (extra ? strlen(extra) : 0) + 256;
    char *req = malloc(cap);
    cr_assert_not_null(req);
    int n = snprintf(req, cap, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s", method, path,
                     extra ? extra : "");
    if (body)
        n += snprintf(req + n, cap - (size_t)n, "Content-Type: application/json\r\nContent-Length: %zu\r\n", blen);
    n += snprintf(req + n, cap - (size_t)n, "\r\n%s", body ? body : "");
    resp_t r = raw_request(port, req, (size_t)n);
    free(req);
    return r;
}

static resp_t get(int port, const char *path) { return request(port, "GET", path, NULL, NULL); }
static resp_t post(int port, const char *path, const char *body) { return request(port, "POST", path, body, NULL); }

/* The value of a header (case-insensitive name), copied into buf; NULL if absent. */
static const char *header(const resp_t *r, const char *name, char *buf, size_t len)
{
    return net_header(r->head, name, buf, len);
}

/* cJSON keeps its last error position in a global: parse under a lock. */
static pthread_mutex_t json_lock = PTHREAD_MUTEX_INITIALIZER;

static cJSON *json_parse(const resp_t *r)
{
    pthread_mutex_lock(&json_lock);
    cJSON *j = r->body ? cJSON_Parse(r->body) : NULL;
    pthread_mutex_unlock(&json_lock);
    return j;
}

/* Checks status and JSON content type, returns the parsed body (freed by the caller). */
static cJSON *expect_json(const resp_t *r, int status)
{
    char ct[128];
    cr_assert_eq(r->status, status, "expected status %d, got %d: %s", status, r->status,
                 r->body ? r->body : "(no response)");
    cr_assert_not_null(header(r, "Content-Type", ct, sizeof ct), "no Content-Type");
    cr_assert_str_eq(ct, "application/json");
    cJSON *j = json_parse(r);
    cr_assert_not_null(j, "the body is not JSON: %s", r->body);
    cr_assert(cJSON_IsObject(j));
    return j;
}

static const char *str_field(const cJSON *j, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num_field(const cJSON *j, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    cr_assert(cJSON_IsNumber(v), "%s is not a number", key);
    return v->valuedouble;
}

/* An error answer: the status, the fixed error text and a detail saying something. */
static void expect_error(const resp_t *r, int status, const char *error)
{
    cJSON *j = expect_json(r, status);
    cr_assert_str_eq(str_field(j, "error") ? str_field(j, "error") : "(none)", error, "body: %s", r->body);
    const char *detail = str_field(j, "detail");
    cr_assert(detail && *detail, "no detail in %s", r->body);
    cJSON_Delete(j);
}

/* Percent-encodes a query value. */
static void url_encode(const char *in, char *out, size_t len)
{
    size_t n = 0;
    for (; *in && n + 4 < len; in++) {
        unsigned char c = (unsigned char)*in;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '/' || c == '@' ||
            c == '-')
            out[n++] = (char)c;
        else
            n += (size_t)snprintf(out + n, len - n, "%%%02X", c);
    }
    out[n] = '\0';
}

/* ---- checks on answers ----------------------------------------------------------------- */

static position_t parse_obx(const char *text)
{
    position_t p;
    char msg[200];
    cr_assert_not_null(text);
    cr_assert_eq(obx_parse(text, &p, NULL, msg, sizeof msg), BC_OK, "'%s' is not valid OBX: %s", text, msg);
    return p;
}

/* A full /obx answer for a game that goes on: the move is legal in the position searched and
 * leads to the returned OBX. */
static void check_answer(const cJSON *j, const char *position_obx)
{
    position_t before = parse_obx(position_obx);
    const char *move = str_field(j, "move");
    cr_assert_not_null(move, "no move");
    cr_assert_eq(move[0], 'm', "move '%s' is not in OBX form", move);
    move_t m;
    char msg[200];
    cr_assert_eq(move_parse(&before, move, &m, msg, sizeof msg), BC_OK, "%s is not legal: %s", move, msg);
    position_make(&before, m);
    position_t after = parse_obx(str_field(j, "obx"));
    cr_assert(position_same(&before, &after) && before.in_hand == after.in_hand && before.captured == after.captured,
              "obx %s does not follow from %s", str_field(j, "obx"), move);
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(j, "pv");
    cr_assert(cJSON_IsArray(pv) && cJSON_GetArraySize(pv) >= 1);
    cr_assert_str_eq(cJSON_GetArrayItem(pv, 0)->valuestring, move);
    const cJSON *score = cJSON_GetObjectItemCaseSensitive(j, "score");
    cr_assert(cJSON_IsObject(score));
    cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(score, "cp")) || cJSON_IsNumber(cJSON_GetObjectItem(score, "mate")));
    cr_assert_geq(num_field(j, "depth"), 1);
    cr_assert_not_null(cJSON_GetObjectItemCaseSensitive(j, "result"));
}

/* ---- endpoints ---------------------------------------------------------------------------- */

Test(server, health)
{
    srv_t *s = start("--workers", "3", NULL);
    resp_t r = get(s->port, "/health");
    cJSON *j = expect_json(&r, 200);
    cr_assert_str_eq(str_field(j, "status"), "ok");
    cr_assert_eq(num_field(j, "workers"), 3);
    cr_assert_str_eq(str_field(j, "repetition"), "forbid");
    char cc[64];
    cr_assert_str_eq(header(&r, "Cache-Control", cc, sizeof cc), "no-store");
    cJSON_Delete(j);
    resp_free(&r);
    r = request(s->port, "HEAD", "/health", NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_eq(r.body_len, 0);
    resp_free(&r);
    stop(s);
}

Test(server, obx_get_query)
{
    srv_t *s = start(NULL);
    char enc[256], path[400];
    url_encode(START_OBX, enc, sizeof enc);
    snprintf(path, sizeof path, "/obx?obx=%s&depth=3", enc);
    resp_t r = get(s->port, path);
    cJSON *j = expect_json(&r, 200);
    cr_assert_str_eq(str_field(j, "input"), START_OBX);
    check_answer(j, START_OBX);
    cr_assert_eq(strlen(str_field(j, "move")), 3, "a goat placement is expected, got %s", str_field(j, "move"));
    cr_assert_eq(num_field(j, "depth"), 3);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "result")));
    position_t after = parse_obx(str_field(j, "obx"));
    cr_assert_eq(after.side, TIGERS);
    cr_assert_eq(after.in_hand, 19);
    cJSON_Delete(j);
    resp_free(&r);
    /* A '+' for a space, as HTML forms and URLSearchParams write it. */
    r = get(s->port, "/obx?obx=TXXXT/XXXXX/XXXXX/XXXXX/TXXXT+g+@20+c0&depth=2");
    j = expect_json(&r, 200);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

Test(server, obx_json_body_post_and_get_agree)
{
    srv_t *s = start(NULL);
    const char *body = "{\"obx\": \"TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1\", \"depth\": 5}";
    resp_t a = post(s->port, "/obx", body);
    resp_t b = request(s->port, "GET", "/obx", body, NULL);
    cJSON *ja = expect_json(&a, 200), *jb = expect_json(&b, 200);
    check_answer(ja, "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1");
    /* Each search starts from a cleared table: the same request gives the same answer. */
    cr_assert_str_eq(str_field(ja, "move"), str_field(jb, "move"));
    cr_assert_str_eq(str_field(ja, "obx"), str_field(jb, "obx"));
    cr_assert_str_eq(str_field(ja, "obx") + strlen(str_field(ja, "obx")) - 3, "#t1");
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    resp_free(&a);
    resp_free(&b);
    stop(s);
}

Test(server, obx_applies_move_and_moves_first)
{
    srv_t *s = start(NULL);
    resp_t r = post(s->port, "/obx", "{\"obx\": \"" START_OBX "\", \"move\": \"c3\", \"depth\": 3}");
    cJSON *j = expect_json(&r, 200);
    cr_assert_str_eq(str_field(j, "input"), START_OBX);
    cr_assert_str_eq(str_field(j, "position"), "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1");
    check_answer(j, str_field(j, "position"));
    cr_assert_eq(parse_obx(str_field(j, "obx")).side, GOATS);
    cJSON_Delete(j);
    resp_free(&r);
    r = post(s->port, "/obx",
             "{\"obx\": \"" START_OBX "\", \"moves\": [\"C3\", \"mA1B2\", \"B1\"], \"move\": \"B2A1\", \"depth\": 3}");
    j = expect_json(&r, 200);
    cr_assert_str_eq(str_field(j, "position"), "TGXXT/XXXXX/XXGXX/XXXXX/TXXXT g @18 c0 mB2A1 #t2");
    check_answer(j, str_field(j, "position"));
    cJSON_Delete(j);
    resp_free(&r);
    r = get(s->port, "/obx?obx=" "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT%20g%20@20%20c0&moves=C3,A1B2&depth=2");
    j = expect_json(&r, 200);
    cr_assert_str_eq(str_field(j, "position"), "XXXXT/XTXXX/XXGXX/XXXXX/TXXXT g @19 c0 mA1B2 -");
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

/* forbid: a move that recreates a position of the request's own history is illegal. */
Test(server, repetitions_are_judged_over_the_request)
{
    srv_t *s = start(NULL);
    const char *game = "{\"obx\": \"GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3\", \"moves\": [\"C1C2\", \"C4C5\", \"C2C1\"]";
    char body[512];
    snprintf(body, sizeof body, "%s}", game);
    resp_t r = post(s->port, "/legal", body);
    cJSON *j = expect_json(&r, 200);
    const cJSON *m;
    int n = 0;
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(j, "legal"))
    {
        cr_assert_str_neq(str_field(m, "text"), "C5C4", "C5C4 would recreate the start position");
        n++;
    }
    cr_assert_gt(n, 0);
    cJSON_Delete(j);
    resp_free(&r);
    snprintf(body, sizeof body, "%s, \"depth\": 4}", game);
    r = post(s->port, "/obx", body);
    j = expect_json(&r, 200);
    cr_assert_str_neq(str_field(j, "move"), "mC5C4");
    cJSON_Delete(j);
    resp_free(&r);
    snprintf(body, sizeof body, "%s, \"move\": \"C5C4\"}", game);
    r = post(s->port, "/obx", body);
    expect_error(&r, 422, "Illegal move detected.");
    j = json_parse(&r);
    cr_assert_str_eq(str_field(j, "code"), "move-repetition");
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

/* The repetition rule of each request: under draw a position may come back (its third
 * occurrence draws the game), under forbid it may not; anything else is a 400. */
Test(server, repetition_rule_per_request)
{
    srv_t *s = start(NULL);
    const char *obx = "GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3";
    char body[512];
    snprintf(body, sizeof body,
             "{\"obx\": \"%s\", \"moves\": [\"C1C2\", \"C4C5\", \"C2C1\"], \"move\": \"C5C4\", \"repetition\": \"draw\"}",
             obx);
    resp_t r = post(s->port, "/legal", body);
    cJSON *j = expect_json(&r, 200);
    cr_assert(strncmp(str_field(j, "obx"), "GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3 mC5C4", 43) == 0,
              "under draw the start comes back: %s", r.body);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "result")));
    cJSON_Delete(j);
    resp_free(&r);
    /* Twice round the cycle: the start position for the third time, a draw. */
    char enc[128], path[512];
    url_encode(obx, enc, sizeof enc);
    snprintf(path, sizeof path,
             "/legal?obx=%s&moves=C1C2,C4C5,C2C1,C5C4,C1C2,C4C5,C2C1,C5C4&repetition=draw", enc);
    r = get(s->port, path);
    j = expect_json(&r, 200);
    const cJSON *res = cJSON_GetObjectItem(j, "result");
    cr_assert(cJSON_IsObject(res), "a third occurrence draws: %s", r.body);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(res, "winner")));
    cr_assert_str_eq(str_field(res, "reason"), "repetition-draw");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "legal")), 0);
    cJSON_Delete(j);
    resp_free(&r);
    /* The same moves under forbid (named, or by default): the fourth is refused. */
    snprintf(path, sizeof path, "/legal?obx=%s&moves=C1C2,C4C5,C2C1,C5C4&repetition=forbid", enc);
    r = get(s->port, path);
    expect_error(&r, 422, "Illegal move detected.");
    j = json_parse(&r);
    cr_assert_str_eq(str_field(j, "code"), "move-repetition");
    cJSON_Delete(j);
    resp_free(&r);
    snprintf(body, sizeof body, "{\"obx\": \"%s\", \"moves\": [\"C1C2\", \"C4C5\", \"C2C1\", \"C5C4\"]}", obx);
    r = post(s->port, "/obx", body);
    expect_error(&r, 422, "Illegal move detected.");
    resp_free(&r);
    /* /obx under draw searches the game with the repetition allowed. */
    snprintf(body, sizeof body,
             "{\"obx\": \"%s\", \"moves\": [\"C1C2\", \"C4C5\", \"C2C1\", \"C5C4\"], \"repetition\": \"draw\", \"depth\": 3}",
             obx);
    r = post(s->port, "/obx", body);
    j = expect_json(&r, 200);
    cr_assert_not_null(str_field(j, "move"), "%s", r.body);
    cJSON_Delete(j);
    resp_free(&r);
    static const char *const BAD[] = {"{\"obx\": \"" START_OBX "\", \"repetition\": \"allow\"}",
                                      "{\"obx\": \"" START_OBX "\", \"repetition\": 1}",
                                      "{\"obx\": \"" START_OBX "\", \"repetition\": \"Draw\"}"};
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        r = post(s->port, "/obx", BAD[i]);
        expect_error(&r, 400, "Invalid request.");
        j = json_parse(&r);
        cr_assert_str_eq(str_field(j, "code"), "bad-parameter");
        cr_assert(strstr(str_field(j, "detail"), "repetition"), "%s", r.body);
        cJSON_Delete(j);
        resp_free(&r);
    }
    r = get(s->port, "/legal?obx=TXXXT/XXXXX/XXXXX/XXXXX/TXXXT+g+@20+c0&repetition=sometimes");
    expect_error(&r, 400, "Invalid request.");
    resp_free(&r);
    stop(s);
}

/* Clocks: with gtime/ttime/ginc/tinc and no movetime the engine spends time from the clock of
 * the side to move, as `go gtime ...` does; the cap still holds. */
Test(server, clocks_drive_the_search_time)
{
    srv_t *s = start("--movetime", "3000", "--max-movetime", "4000", NULL);
    /* The goats to move with 300 ms left: a short think, although the default time is 3 s. */
    double t0 = pipe_now_ms();
    resp_t r = post(s->port, "/obx", "{\"obx\": \"" START_OBX "\", \"gtime\": 300, \"ttime\": 60000}");
    double ms = pipe_now_ms() - t0;
    cJSON *j = expect_json(&r, 200);
    cr_assert_lt(num_field(j, "time_ms"), 300, "300 ms on the goats' clock, searched %g ms", num_field(j, "time_ms"));
    cr_assert_lt(ms, 1500, "answered after %g ms", ms);
    cJSON_Delete(j);
    resp_free(&r);
    /* The tigers' clock does not count for a goat move: a long goats' clock gives a long think. */
    r = post(s->port, "/obx", "{\"obx\": \"" START_OBX "\", \"gtime\": 30000, \"ttime\": 300, \"ginc\": 2000}");
    j = expect_json(&r, 200);
    cr_assert_gt(num_field(j, "time_ms"), 400, "30 s + 2 s on the goats' clock, searched only %g ms",
                 num_field(j, "time_ms"));
    cr_assert_lt(num_field(j, "time_ms"), 4500);
    cJSON_Delete(j);
    resp_free(&r);
    /* A query string works the same way; a movetime given with the clocks wins. */
    char enc[128], path[256];
    url_encode(START_OBX, enc, sizeof enc);
    snprintf(path, sizeof path, "/obx?obx=%s&gtime=600000&ttime=600000&movetime=150", enc);
    r = get(s->port, path);
    j = expect_json(&r, 200);
    cr_assert_lt(num_field(j, "time_ms"), 500, "movetime 150 with the clocks: %g ms", num_field(j, "time_ms"));
    cJSON_Delete(j);
    resp_free(&r);
    static const char *const BAD[] = {"{\"obx\": \"" START_OBX "\", \"gtime\": -1}",
                                      "{\"obx\": \"" START_OBX "\", \"ttime\": 1.5}",
                                      "{\"obx\": \"" START_OBX "\", \"ginc\": \"x\"}",
                                      "{\"obx\": \"" START_OBX "\", \"tinc\": -5}"};
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        r = post(s->port, "/obx", BAD[i]);
        expect_error(&r, 400, "Invalid request.");
        resp_free(&r);
    }
    stop(s);
}

Test(server, clocks_are_capped_by_max_movetime)
{
    srv_t *s = start("--max-movetime", "250", NULL);
    double t0 = pipe_now_ms();
    resp_t r = post(s->port, "/obx", "{\"obx\": \"" START_OBX "\", \"gtime\": 3600000, \"ttime\": 3600000}");
    double ms = pipe_now_ms() - t0;
    cJSON *j = expect_json(&r, 200);
    cr_assert_leq(num_field(j, "time_ms"), 1500, "an hour on the clock searched %g ms past a 250 ms cap",
                  num_field(j, "time_ms"));
    cr_assert_lt(ms, 10000);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

/* UCI_LimitStrength with UCI_Elo: elo 600 stands for level 0, so it plays as skill 0 does. */
Test(server, elo_limits_the_strength)
{
    srv_t *s = start(NULL);
    static const char *const OPENING[] = {"", "C3", "C3,A1B1", "C3,A1B1,B3"};
    char enc[256], path[512];
    url_encode(START_OBX, enc, sizeof enc);
    for (size_t i = 0; i < sizeof OPENING / sizeof *OPENING; i++) {
        const char *best[2];
        cJSON *js[2];
        resp_t rs[2];
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "/obx?obx=%s&moves=%s&depth=5&%s", enc, OPENING[i], k ? "skill=0" : "elo=600");
            rs[k] = get(s->port, path);
            js[k] = expect_json(&rs[k], 200);
            best[k] = str_field(js[k], "move");
            cr_assert_not_null(best[k]);
        }
        cr_assert_str_eq(best[0], best[1], "elo 600 played %s, skill 0 %s", best[0], best[1]);
        for (int k = 0; k < 2; k++) {
            cJSON_Delete(js[k]);
            resp_free(&rs[k]);
        }
    }
    resp_t r = post(s->port, "/obx", "{\"obx\": \"" START_OBX "\", \"elo\": 599}");
    expect_error(&r, 400, "Invalid request.");
    resp_free(&r);
    r = post(s->port, "/obx", "{\"obx\": \"" START_OBX "\", \"elo\": 2401}");
    expect_error(&r, 400, "Invalid request.");
    resp_free(&r);
    r = post(s->port, "/obx", "{\"obx\": \"" START_OBX "\", \"elo\": 1500, \"depth\": 4}");
    cJSON *j = expect_json(&r, 200);
    cr_assert_not_null(str_field(j, "move"));
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

Test(server, obx_capture_that_wins_ends_the_game)
{
    srv_t *s = start(NULL);
    resp_t r = post(s->port, "/obx", "{\"obx\": \"TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t @15 c4\", \"depth\": 3}");
    cJSON *j = expect_json(&r, 200);
    cr_assert_str_eq(str_field(j, "move"), "mA1C1(B1)");
    position_t after = parse_obx(str_field(j, "obx"));
    cr_assert_eq(after.captured, 5);
    const cJSON *res = cJSON_GetObjectItem(j, "result");
    cr_assert(cJSON_IsObject(res), "the capture of the fifth goat ends the game: %s", r.body);
    cr_assert_str_eq(str_field(res, "winner"), "tigers");
    cr_assert_str_eq(str_field(res, "reason"), "five-captured");
    const cJSON *score = cJSON_GetObjectItem(j, "score");
    cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(score, "mate")), "a won game scores as mate: %s", r.body);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

Test(server, obx_game_already_over)
{
    srv_t *s = start(NULL);
    static const struct {
        const char *obx, *winner, *reason;
    } CASES[] = {
        {"TGXXT/XXXXX/XXXXX/XXXXX/TXXXT g @14 c5", "tigers", "five-captured"},
        {"TGGGT/GGXGG/GXGXG/GGXGG/TGGGT t @3 c0", "goats", "tigers-trapped"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char body[200];
        snprintf(body, sizeof body, "{\"obx\": \"%s\"}", CASES[i].obx);
        resp_t r = post(s->port, "/obx", body);
        cJSON *j = expect_json(&r, 200);
        cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "move")), "no move when the game is over: %s", r.body);
        cr_assert_str_eq(str_field(j, "input"), CASES[i].obx);
        const cJSON *res = cJSON_GetObjectItem(j, "result");
        cr_assert(cJSON_IsObject(res));
        cr_assert_str_eq(str_field(res, "winner"), CASES[i].winner);
        cr_assert_str_eq(str_field(res, "reason"), CASES[i].reason);
        cr_assert(str_field(res, "description") && *str_field(res, "description"));
        cJSON_Delete(j);
        resp_free(&r);
    }
    stop(s);
}

Test(server, obx_multipv)
{
    srv_t *s = start(NULL);
    resp_t r = post(s->port, "/obx", "{\"obx\": \"" START_OBX "\", \"multipv\": 3, \"depth\": 3}");
    cJSON *j = expect_json(&r, 200);
    const cJSON *lines = cJSON_GetObjectItem(j, "lines");
    cr_assert(cJSON_IsArray(lines) && cJSON_GetArraySize(lines) == 3, "three lines expected: %s", r.body);
    const char *first[3];
    for (int i = 0; i < 3; i++) {
        const cJSON *l = cJSON_GetArrayItem(lines, i);
        cr_assert_eq(num_field(l, "multipv"), i + 1);
        const cJSON *pv = cJSON_GetObjectItem(l, "pv");
        cr_assert(cJSON_IsArray(pv) && cJSON_GetArraySize(pv) >= 1);
        first[i] = cJSON_GetArrayItem(pv, 0)->valuestring;
    }
    cr_assert(strcmp(first[0], first[1]) && strcmp(first[1], first[2]) && strcmp(first[0], first[2]));
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

Test(server, movetime_is_capped)
{
    srv_t *s = start("--max-movetime", "200", "--movetime", "100", NULL);
    double t0 = pipe_now_ms();
    resp_t r = post(s->port, "/obx", "{\"obx\": \"" START_OBX "\", \"movetime\": 600000}");
    double ms = pipe_now_ms() - t0;
    cJSON *j = expect_json(&r, 200);
    cr_assert_leq(num_field(j, "time_ms"), 1500, "searched %g ms past a 200 ms cap", num_field(j, "time_ms"));
    cr_assert_lt(ms, 10000);
    cJSON_Delete(j);
    resp_free(&r);
    /* A depth alone is stopped by the cap too. */
    r = post(s->port, "/obx", "{\"obx\": \"" START_OBX "\", \"depth\": 120}");
    j = expect_json(&r, 200);
    cr_assert_leq(num_field(j, "time_ms"), 1500);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

Test(server, legal_moves)
{
    srv_t *s = start(NULL);
    char enc[256], path[400];
    url_encode(START_OBX, enc, sizeof enc);
    snprintf(path, sizeof path, "/legal?obx=%s", enc);
    resp_t r = get(s->port, path);
    cJSON *j = expect_json(&r, 200);
    cr_assert_str_eq(str_field(j, "turn"), "goats");
    cr_assert_eq(num_field(j, "in_hand"), 20);
    const cJSON *legal = cJSON_GetObjectItem(j, "legal");
    cr_assert_eq(cJSON_GetArraySize(legal), 21);
    const cJSON *m;
    cJSON_ArrayForEach(m, legal) cr_assert_str_eq(str_field(m, "kind"), "place");
    cJSON_Delete(j);
    resp_free(&r);

    r = post(s->port, "/legal", "{\"obx\": \"TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t @19 c0\"}");
    j = expect_json(&r, 200);
    legal = cJSON_GetObjectItem(j, "legal");
    bool capture = false;
    cJSON_ArrayForEach(m, legal)
    {
        if (strcmp(str_field(m, "kind"), "capture") == 0) {
            cr_assert_str_eq(str_field(m, "move"), "mA1C1(B1)");
            cr_assert_str_eq(str_field(m, "over"), "B1");
            capture = true;
        }
    }
    cr_assert(capture);
    cJSON_Delete(j);
    resp_free(&r);

    r = post(s->port, "/legal", "{\"obx\": \"" START_OBX "\", \"moves\": [\"C3\", \"A1B2\"]}");
    j = expect_json(&r, 200);
    cr_assert_str_eq(str_field(j, "obx"), "XXXXT/XTXXX/XXGXX/XXXXX/TXXXT g @19 c0 mA1B2 #t1");
    cJSON_Delete(j);
    resp_free(&r);

    r = post(s->port, "/legal", "{\"obx\": \"TGXXT/XXXXX/XXXXX/XXXXX/TXXXT g @14 c5\"}");
    j = expect_json(&r, 200);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "legal")), 0);
    cr_assert_str_eq(str_field(cJSON_GetObjectItem(j, "result"), "winner"), "tigers");
    cJSON_Delete(j);
    resp_free(&r);

    r = get(s->port, "/legal?obx=nonsense");
    expect_error(&r, 400, "Invalid OBX format.");
    resp_free(&r);
    r = post(s->port, "/legal", "{\"obx\": \"" START_OBX "\", \"move\": \"A1\"}");
    expect_error(&r, 422, "Illegal move detected.");
    resp_free(&r);
    stop(s);
}

/* ---- errors --------------------------------------------------------------------------- */

Test(server, invalid_positions_and_json_are_400)
{
    srv_t *s = start(NULL);
    static const char *const BODIES[] = {
        "{\"obx\": \"TTXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0\"}", /* five tigers */
        "{\"obx\": \"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @19 c0\"}", /* 19 goats in all */
        "{\"obx\": \"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT x @20 c0\"}", /* turn */
        "{\"obx\": \"TXXXT/XXXXX/XXXXX/XXXXX g @20 c0\"}",       /* four rows */
        "{\"obx\": \"TXXXT/XXXXX/XXQXX/XXXXX/TXXXT g @20 c0\"}", /* a Q on the board */
        "{\"obx\": \"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT t @20 c0\"}", /* tigers before any goat */
        "{\"obx\": \"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @21 c0\"}", /* in hand out of range */
        "{\"obx\": \"\"}",
        "{\"obx\": 5}",
        "{\"obx\": [\"" START_OBX "\"]}",
        "{\"move\": \"C3\"}", /* no obx at all */
        "{",
        "{\"obx\": \"" START_OBX "\"",
        "[\"" START_OBX "\"]",
        "\"" START_OBX "\"",
        "{\"obx\": \"" START_OBX "\"} trailing",
        "not json at all",
        "{\"obx\": \"\\u0000\"}",
        "\xff\xfe\x00garbage",
    };
    for (size_t i = 0; i < sizeof BODIES / sizeof BODIES[0]; i++) {
        resp_t r = post(s->port, "/obx", BODIES[i]);
        expect_error(&r, 400, "Invalid OBX format.");
        resp_free(&r);
    }
    resp_t r = get(s->port, "/obx");
    expect_error(&r, 400, "Invalid OBX format.");
    resp_free(&r);
    r = get(s->port, "/obx?obx=TXXXT/XXXXX/XXXXX/XXXXX/TXXXT%20g%20@20");
    expect_error(&r, 400, "Invalid OBX format.");
    resp_free(&r);
    /* Parameters out of range or of the wrong type. */
    static const char *const PARAMS[] = {
        "{\"obx\": \"" START_OBX "\", \"movetime\": -5}",   "{\"obx\": \"" START_OBX "\", \"movetime\": 1.5}",
        "{\"obx\": \"" START_OBX "\", \"depth\": 0}",       "{\"obx\": \"" START_OBX "\", \"depth\": \"deep\"}",
        "{\"obx\": \"" START_OBX "\", \"multipv\": 1000}",  "{\"obx\": \"" START_OBX "\", \"move\": 7}",
        "{\"obx\": \"" START_OBX "\", \"moves\": \"C3\"}", "{\"obx\": \"" START_OBX "\", \"moves\": [1]}",
        "{\"obx\": \"" START_OBX "\", \"depth\": 1e300}",
    };
    for (size_t i = 0; i < sizeof PARAMS / sizeof PARAMS[0]; i++) {
        r = post(s->port, "/obx", PARAMS[i]);
        expect_error(&r, 400, "Invalid request.");
        resp_free(&r);
    }
    r = get(s->port, "/obx?obx=TXXXT/XXXXX/XXXXX/XXXXX/TXXXT%20g%20@20%20c0&movetime=soon");
    expect_error(&r, 400, "Invalid request.");
    resp_free(&r);
    stop(s);
}

Test(server, illegal_moves_are_422)
{
    srv_t *s = start(NULL);
    static const char *const BODIES[] = {
        "{\"obx\": \"" START_OBX "\", \"move\": \"A1\"}",        /* a tiger is there */
        "{\"obx\": \"" START_OBX "\", \"move\": \"A1B2\"}",      /* goats cannot move yet */
        "{\"obx\": \"" START_OBX "\", \"move\": \"zz9\"}",       /* not a move */
        "{\"obx\": \"" START_OBX "\", \"move\": \"\"}",
        "{\"obx\": \"TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t @19 c0\", \"move\": \"mA1C1(A2)\"}", /* wrong suffix */
        "{\"obx\": \"TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t @19 c0\", \"move\": \"A1C3\"}",      /* no goat on B2 */
        "{\"obx\": \"TGXXT/XXXXX/XXXXX/XXXXX/TXXXT g @14 c5\", \"move\": \"C3\"}",        /* game over */
        "{\"obx\": \"" START_OBX "\", \"moves\": [\"C3\", \"C3\"]}",
    };
    for (size_t i = 0; i < sizeof BODIES / sizeof BODIES[0]; i++) {
        resp_t r = post(s->port, "/obx", BODIES[i]);
        expect_error(&r, 422, "Illegal move detected.");
        resp_free(&r);
    }
    resp_t r = get(s->port, "/obx?obx=TXXXT/XXXXX/XXXXX/XXXXX/TXXXT%20g%20@20%20c0&move=E5");
    expect_error(&r, 422, "Illegal move detected.");
    resp_free(&r);
    stop(s);
}

Test(server, wrong_method_is_405_unknown_path_is_404)
{
    srv_t *s = start(NULL);
    static const struct {
        const char *method, *path;
    } BAD[] = {{"PUT", "/obx"}, {"DELETE", "/obx"}, {"PATCH", "/legal"}, {"HEAD", "/obx"},
               {"POST", "/health"}, {"DELETE", "/"}, {"POST", "/index.html"}};
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        resp_t r = request(s->port, BAD[i].method, BAD[i].path, NULL, NULL);
        char allow[128];
        cr_assert_eq(r.status, 405, "%s %s gave %d", BAD[i].method, BAD[i].path, r.status);
        cr_assert_not_null(header(&r, "Allow", allow, sizeof allow), "405 without Allow");
        if (strcmp(BAD[i].method, "HEAD") != 0)
            expect_error(&r, 405, "Method not allowed.");
        resp_free(&r);
    }
    static const char *const MISSING[] = {"/nope", "/obx/extra", "/../../etc/passwd", "/index.html/", "/OBX"};
    for (size_t i = 0; i < sizeof MISSING / sizeof MISSING[0]; i++) {
        resp_t r = get(s->port, MISSING[i]);
        expect_error(&r, 404, "Not found.");
        resp_free(&r);
    }
    resp_t r = request(s->port, "POST", "/nope", "{}", NULL);
    expect_error(&r, 404, "Not found.");
    resp_free(&r);
    stop(s);
}

Test(server, oversized_bodies_are_413)
{
    srv_t *s = start("--max-body", "1024", NULL);
    /* A body at the limit is fine (white space pads it). */
    char body[1025];
    int n = snprintf(body, sizeof body, "{\"obx\": \"" START_OBX "\", \"depth\": 2}");
    memset(body + n, ' ', sizeof body - 1 - (size_t)n);
    body[1024] = '\0';
    resp_t r = post(s->port, "/obx", body);
    cJSON *j = expect_json(&r, 200);
    cJSON_Delete(j);
    resp_free(&r);
    /* One byte more, announced by Content-Length. */
    char big[1026];
    memcpy(big, body, 1024);
    big[1024] = ' ';
    big[1025] = '\0';
    r = post(s->port, "/obx", big);
    expect_error(&r, 413, "Request body too large.");
    resp_free(&r);
    /* A huge Content-Length is refused before any body is sent. */
    const char *huge = "POST /obx HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 99999999999\r\n\r\n";
    r = raw_request(s->port, huge, strlen(huge));
    expect_error(&r, 413, "Request body too large.");
    resp_free(&r);
    /* Chunked: no length up front, the limit is found while reading. */
    char chunked[8192];
    int c = snprintf(chunked, sizeof chunked,
                     "POST /obx HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (int i = 0; i < 5; i++) {
        c += snprintf(chunked + c, sizeof chunked - (size_t)c, "400\r\n");
        memset(chunked + c, ' ', 1024);
        c += 1024;
        c += snprintf(chunked + c, sizeof chunked - (size_t)c, "\r\n");
    }
    c += snprintf(chunked + c, sizeof chunked - (size_t)c, "0\r\n\r\n");
    r = raw_request(s->port, chunked, (size_t)c);
    expect_error(&r, 413, "Request body too large.");
    resp_free(&r);
    /* Still serving. */
    r = get(s->port, "/health");
    j = expect_json(&r, 200);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

/* ---- the pool: 503, queue, concurrency ---------------------------------------------- */

typedef struct {
    int port;
    const char *body;
    int delay_ms;
    resp_t resp;
    double ms;
} call_t;

static void *call_main(void *arg)
{
    call_t *c = arg;
    if (c->delay_ms) {
        struct timespec ts = {c->delay_ms / 1000, (c->delay_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    double t0 = pipe_now_ms();
    c->resp = post(c->port, "/obx", c->body);
    c->ms = pipe_now_ms() - t0;
    return NULL;
}

#define LONG_SEARCH "{\"obx\": \"" START_OBX "\", \"movetime\": 2500}"
#define SHORT_SEARCH "{\"obx\": \"" START_OBX "\", \"depth\": 2}"

Test(server, busy_workers_give_503_after_the_queue_timeout)
{
    srv_t *s = start("--workers", "1", "--queue-timeout", "300", "--max-movetime", "5000", NULL);
    call_t calls[2] = {{s->port, LONG_SEARCH, 0, {0}, 0}, {s->port, SHORT_SEARCH, 500, {0}, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, call_main, &calls[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    cJSON *j = expect_json(&calls[0].resp, 200);
    cJSON_Delete(j);
    expect_error(&calls[1].resp, 503, "Server busy.");
    char retry[16];
    cr_assert_not_null(header(&calls[1].resp, "Retry-After", retry, sizeof retry));
    cr_assert_lt(calls[1].ms, 2000, "the 503 came after %g ms, long after the 300 ms queue timeout", calls[1].ms);
    j = json_parse(&calls[1].resp);
    cr_assert_str_eq(str_field(j, "code"), "queue-timeout");
    cJSON_Delete(j);
    for (int i = 0; i < 2; i++)
        resp_free(&calls[i].resp);
    resp_t r = get(s->port, "/health");
    j = expect_json(&r, 200);
    cr_assert_geq(num_field(j, "expired"), 1);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

Test(server, full_queue_gives_503_at_once)
{
    srv_t *s = start("--workers", "1", "--max-queue", "1", "--queue-timeout", "20000", "--max-movetime", "5000",
                     NULL);
    call_t calls[3] = {{s->port, LONG_SEARCH, 0, {0}, 0},
                       {s->port, SHORT_SEARCH, 400, {0}, 0},
                       {s->port, SHORT_SEARCH, 800, {0}, 0}};
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, call_main, &calls[i]), 0);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    cJSON *j = expect_json(&calls[0].resp, 200);
    cJSON_Delete(j);
    j = expect_json(&calls[1].resp, 200); /* waited in the queue, then searched */
    cJSON_Delete(j);
    expect_error(&calls[2].resp, 503, "Server busy.");
    cr_assert_lt(calls[2].ms, 1000, "a full queue answers at once, not after %g ms", calls[2].ms);
    j = json_parse(&calls[2].resp);
    cr_assert_str_eq(str_field(j, "code"), "queue-full");
    cJSON_Delete(j);
    for (int i = 0; i < 3; i++)
        resp_free(&calls[i].resp);
    stop(s);
}

enum { CLIENTS = 8, PER_CLIENT = 5 };
static const char *const POSITIONS[] = {
    START_OBX,
    "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1",
    "TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t @19 c0",
    "GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3",
    "TGGGT/GXXXG/GXXXG/GXXXG/TGGGT t @8 c0",
};
#define POSITIONS_NB (int)(sizeof POSITIONS / sizeof POSITIONS[0])

typedef struct {
    int port, id;
    char moves[PER_CLIENT][16];
    int status[PER_CLIENT];
} client_t;

static void *client_main(void *arg)
{
    client_t *c = arg;
    for (int i = 0; i < PER_CLIENT; i++) {
        int k = (c->id + i) % POSITIONS_NB;
        char body[256];
        snprintf(body, sizeof body, "{\"obx\": \"%s\", \"depth\": 4}", POSITIONS[k]);
        resp_t r = post(c->port, "/obx", body);
        c->status[i] = r.status;
        cJSON *j = json_parse(&r);
        const char *m = j ? str_field(j, "move") : NULL;
        snprintf(c->moves[i], sizeof c->moves[i], "%s", m ? m : "(none)");
        cJSON_Delete(j);
        resp_free(&r);
    }
    return NULL;
}

Test(server, concurrent_requests_get_consistent_answers)
{
    srv_t *s = start("--workers", "2", "--queue-timeout", "60000", NULL);
    /* The answer of each position alone first. */
    char expected[POSITIONS_NB][16];
    for (int k = 0; k < POSITIONS_NB; k++) {
        char body[256];
        snprintf(body, sizeof body, "{\"obx\": \"%s\", \"depth\": 4}", POSITIONS[k]);
        resp_t r = post(s->port, "/obx", body);
        cJSON *j = expect_json(&r, 200);
        check_answer(j, POSITIONS[k]);
        const char *move = str_field(j, "move");
        cr_assert_not_null(move);
        snprintf(expected[k], sizeof expected[k], "%s", move);
        cJSON_Delete(j);
        resp_free(&r);
    }
    client_t clients[CLIENTS];
    pthread_t t[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        memset(&clients[i], 0, sizeof clients[i]);
        clients[i].port = s->port;
        clients[i].id = i;
        cr_assert_eq(pthread_create(&t[i], NULL, client_main, &clients[i]), 0);
    }
    for (int i = 0; i < CLIENTS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < CLIENTS; i++) {
        for (int n = 0; n < PER_CLIENT; n++) {
            int k = (i + n) % POSITIONS_NB;
            cr_assert_eq(clients[i].status[n], 200, "client %d request %d: status %d", i, n, clients[i].status[n]);
            cr_assert_str_eq(clients[i].moves[n], expected[k], "position %d answered %s alone but %s under load", k,
                             expected[k], clients[i].moves[n]);
        }
    }
    resp_t r = get(s->port, "/health");
    cJSON *j = expect_json(&r, 200);
    cr_assert_eq(num_field(j, "completed"), CLIENTS * PER_CLIENT + POSITIONS_NB);
    cr_assert_eq(num_field(j, "busy"), 0);
    cr_assert_eq(num_field(j, "queued"), 0);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

static long rss_kb(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

typedef struct {
    int port, n, ok, busy, other;
} flood_t;

static void *flood_main(void *arg)
{
    flood_t *f = arg;
    for (int i = 0; i < f->n; i++) {
        resp_t r = post(f->port, "/obx", "{\"obx\": \"" START_OBX "\", \"movetime\": 30}");
        if (r.status == 200)
            f->ok++;
        else if (r.status == 503)
            f->busy++;
        else
            f->other++;
        resp_free(&r);
    }
    return NULL;
}

static void flood(int port, int threads, int per_thread, flood_t *total)
{
    flood_t f[32];
    pthread_t t[32];
    memset(total, 0, sizeof *total);
    for (int i = 0; i < threads; i++) {
        f[i] = (flood_t){port, per_thread, 0, 0, 0};
        cr_assert_eq(pthread_create(&t[i], NULL, flood_main, &f[i]), 0);
    }
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        total->ok += f[i].ok;
        total->busy += f[i].busy;
        total->other += f[i].other;
    }
}

Test(server, floods_degrade_to_503_without_growing)
{
    srv_t *s = start("--workers", "1", "--max-queue", "2", "--queue-timeout", "100", "--max-connections", "64",
                     "--idle-timeout", "2", NULL);
    flood_t a, b;
    flood(s->port, 24, 10, &a);
    cr_assert_eq(a.other, 0, "a flood gave answers other than 200 and 503");
    cr_assert_gt(a.ok, 0);
    cr_assert_gt(a.busy, 0, "24 clients on one engine should see some 503s");
    long after_first = rss_kb(pipe_pid(s->proc));
    flood(s->port, 24, 10, &b);
    long after_second = rss_kb(pipe_pid(s->proc));
    cr_assert_eq(b.other, 0);
    /* Sanitizer runtimes keep freed memory in quarantine: measure only plain builds. */
    if (!SANITIZED)
        cr_assert_lt(after_second - after_first, 32 * 1024, "memory grew from %ld kB to %ld kB over a second flood",
                     after_first, after_second);
    /* Idle connections beyond the limit: the server closes them after the idle timeout and
     * serves again. */
    int fds[80];
    for (int i = 0; i < 80; i++)
        fds[i] = net_connect(s->port);
    struct timespec ts = {3, 500000000L};
    nanosleep(&ts, NULL);
    for (int i = 0; i < 80; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    resp_t r = get(s->port, "/health");
    cJSON *j = expect_json(&r, 200);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

/* ---- malformed HTTP, CORS, the board, shutdown ---------------------------------------- */

Test(server, malformed_http_never_crashes_it)
{
    srv_t *s = start(NULL);
    static const char *const JUNK[] = {
        "GARBAGE\r\n\r\n",
        "GET\r\n\r\n",
        "GET /health HTTP/9.9\r\n\r\n",
        "GET /health HTTP/1.1\r\nNo colon here\r\n\r\n",
        "POST /obx HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
        "POST /obx HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nContent-Length: 20\r\n\r\n{}",
        "POST /obx HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nabc\r\n",
        "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", /* a TLS hello */
        "GET /obx?obx=%ZZ%00%%&depth=%FF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof JUNK / sizeof JUNK[0]; i++) {
        /* Some of these leave the server waiting for more: give up reading after a while. */
        resp_t r = raw_request_within(s->port, JUNK[i], strlen(JUNK[i]), 3000);
        cr_assert(r.status == 0 || (r.status >= 400 && r.status < 600), "junk %zu got status %d", i, r.status);
        resp_free(&r);
    }
    /* Headers far past the connection's memory. */
    size_t big = 200000;
    char *req = malloc(big + 100);
    cr_assert_not_null(req);
    int n = snprintf(req, 100, "GET /health HTTP/1.1\r\nX-Big: ");
    memset(req + n, 'a', big);
    memcpy(req + n + big, "\r\n\r\n", 5);
    resp_t r = raw_request_within(s->port, req, (size_t)n + big + 4, 3000);
    cr_assert(r.status == 0 || r.status >= 400, "an oversized header got %d", r.status);
    resp_free(&r);
    free(req);
    /* A client that vanishes mid-request, and one that vanishes during its search. */
    int fd = net_connect(s->port);
    const char *half = "POST /obx HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"obx\":";
    cr_assert(net_send_all(fd, half, strlen(half)));
    close(fd);
    fd = net_connect(s->port);
    char full[256];
    int len = snprintf(full, sizeof full,
                       "POST /obx HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n%s",
                       strlen(LONG_SEARCH), LONG_SEARCH);
    cr_assert(net_send_all(fd, full, (size_t)len));
    close(fd);
    r = get(s->port, "/health");
    cJSON *j = expect_json(&r, 200);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

Test(server, cors_header_is_configurable)
{
    srv_t *plain = start(NULL);
    srv_t *cors = start("--cors", "https://board.example", NULL);
    char v[128];
    resp_t r = post(plain->port, "/obx", SHORT_SEARCH);
    cr_assert_eq(r.status, 200);
    cr_assert_null(header(&r, "Access-Control-Allow-Origin", v, sizeof v));
    resp_free(&r);
    r = post(cors->port, "/obx", SHORT_SEARCH);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(header(&r, "Access-Control-Allow-Origin", v, sizeof v), "https://board.example");
    resp_free(&r);
    r = post(cors->port, "/obx", "{");
    cr_assert_eq(r.status, 400);
    cr_assert_str_eq(header(&r, "Access-Control-Allow-Origin", v, sizeof v), "https://board.example");
    resp_free(&r);
    r = request(cors->port, "OPTIONS", "/obx", NULL,
                "Origin: https://board.example\r\nAccess-Control-Request-Method: POST\r\n"
                "Access-Control-Request-Headers: content-type\r\n");
    cr_assert_eq(r.status, 204);
    cr_assert_str_eq(header(&r, "Access-Control-Allow-Origin", v, sizeof v), "https://board.example");
    cr_assert_not_null(header(&r, "Access-Control-Allow-Methods", v, sizeof v));
    cr_assert_not_null(strstr(v, "POST"));
    cr_assert_not_null(header(&r, "Access-Control-Allow-Headers", v, sizeof v));
    resp_free(&r);
    stop(plain);
    stop(cors);
}

Test(server, serves_the_board)
{
    srv_t *s = start(NULL);
    char ct[128];
    resp_t r = get(s->port, "/");
    cr_assert_eq(r.status, 200);
    cr_assert_not_null(header(&r, "Content-Type", ct, sizeof ct));
    cr_assert_not_null(strstr(ct, "text/html"));
    cr_assert_not_null(strstr(r.body, "app.js"));
    /* Nothing fetched from the network: no source, link or style from another host (a field's
     * placeholder may show an address). */
    static const char *const loads[] = {"src=\"http", "href=\"http", "src='http", "href='http", "url(http", "@import"};
    for (size_t i = 0; i < sizeof loads / sizeof *loads; i++)
        cr_assert_null(strstr(r.body, loads[i]), "the board must not load anything from the network (%s)", loads[i]);
    cr_assert_not_null(header(&r, "Content-Security-Policy", ct, sizeof ct));
    resp_free(&r);
    r = get(s->port, "/app.js");
    cr_assert_eq(r.status, 200);
    cr_assert_not_null(strstr(header(&r, "Content-Type", ct, sizeof ct), "javascript"));
    cr_assert_gt(r.body_len, 1000);
    resp_free(&r);
    r = get(s->port, "/style.css");
    cr_assert_eq(r.status, 200);
    cr_assert_not_null(strstr(header(&r, "Content-Type", ct, sizeof ct), "text/css"));
    resp_free(&r);
    stop(s);
}

Test(server, shutdown_answers_waiting_searches)
{
    srv_t *s = start("--workers", "1", "--queue-timeout", "60000", "--max-movetime", "5000", NULL);
    call_t calls[2] = {{s->port, LONG_SEARCH, 0, {0}, 0}, {s->port, SHORT_SEARCH, 400, {0}, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, call_main, &calls[i]), 0);
    struct timespec ts = {1, 0};
    nanosleep(&ts, NULL);
    stop(s);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    cJSON *j = expect_json(&calls[0].resp, 200); /* the running search finishes */
    cJSON_Delete(j);
    expect_error(&calls[1].resp, 503, "Server busy."); /* the waiting one is told */
    j = json_parse(&calls[1].resp);
    cr_assert_str_eq(str_field(j, "code"), "shutting-down");
    cJSON_Delete(j);
    for (int i = 0; i < 2; i++)
        resp_free(&calls[i].resp);
}

Test(server, tablebase_is_used_when_given)
{
    const char *dir = getenv("BAGHCHAL_TB_DIR");
    char file[4096];
    snprintf(file, sizeof file, "%s/" TB_FILE_NAME, dir ? dir : "");
    if (!dir || access(file, R_OK) != 0)
        cr_skip_test("no database: set BAGHCHAL_TB_DIR to a directory holding " TB_FILE_NAME);
    srv_t *s = start("--tablebase", dir, NULL);
    resp_t r = post(s->port, "/obx", "{\"obx\": \"GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3\", \"movetime\": 200}");
    cJSON *j = expect_json(&r, 200);
    check_answer(j, "GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3");
    cr_assert_gt(num_field(j, "tbhits"), 0, "a movement-phase position should hit the database: %s", r.body);
    cJSON_Delete(j);
    resp_free(&r);
    r = get(s->port, "/health");
    j = expect_json(&r, 200);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "tablebase")));
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

/* Four workers probe one copy of the database: the server's memory holds the file once, and
 * searches on every worker at once all reach it. */
Test(server, the_database_is_loaded_once_for_every_worker)
{
    const char *dir = getenv("BAGHCHAL_TB_DIR");
    char file[4096];
    snprintf(file, sizeof file, "%s/" TB_FILE_NAME, dir ? dir : "");
    struct stat st;
    if (!dir || stat(file, &st) != 0)
        cr_skip_test("no database: set BAGHCHAL_TB_DIR to a directory holding " TB_FILE_NAME);
    srv_t *s = start("--workers", "4", "--tablebase", dir, "--queue-timeout", "60000", NULL);
    long kb = rss_kb(pipe_pid(s->proc)), file_kb = (long)(st.st_size / 1024);
    /* Sanitizers add shadow memory of their own: there only the searches are checked. */
    if (!server_sanitized())
        cr_assert_lt(kb, file_kb * 3 / 2 + 32 * 1024, "%ld kB resident with 4 workers and a %ld kB database", kb,
                     file_kb);
    enum { CALLS = 4 };
    call_t calls[CALLS];
    pthread_t t[CALLS];
    for (int i = 0; i < CALLS; i++) {
        calls[i] = (call_t){s->port, "{\"obx\": \"GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3\", \"movetime\": 400}", 0, {0}, 0};
        cr_assert_eq(pthread_create(&t[i], NULL, call_main, &calls[i]), 0);
    }
    for (int i = 0; i < CALLS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < CALLS; i++) {
        cJSON *j = expect_json(&calls[i].resp, 200);
        check_answer(j, "GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3");
        cr_assert_gt(num_field(j, "tbhits"), 0, "search %d did not reach the database: %s", i, calls[i].resp.body);
        cJSON_Delete(j);
        resp_free(&calls[i].resp);
    }
    if (!server_sanitized()) {
        long after = rss_kb(pipe_pid(s->proc));
        cr_assert_lt(after, file_kb * 3 / 2 + 48 * 1024, "%ld kB resident after four searches at once", after);
    }
    stop(s);
}

Test(server, tablebase_without_database_is_refused)
{
    char dir[] = "/tmp/baghchal-server-tb-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char *argv[] = {(char *)BAGHCHAL_SERVER_BIN, "--port", "0", "--tablebase", dir, NULL};
    pipe_proc_t *p = pipe_start(argv, 0);
    cr_assert_not_null(p);
    pipe_exit_t e = pipe_wait(p, EXIT_MS);
    pipe_free(p);
    rmdir(dir);
    cr_assert(e.exited && e.code == 1, "an empty database directory was accepted (status %d)", e.code);
}

Test(server, bad_command_lines_are_refused)
{
    static const char *const BAD[][3] = {
        {"--port", "70000", NULL},  {"--workers", "0", NULL},   {"--movetime", "x", NULL},
        {"--bind", "localhost", NULL}, {"--tablebase", "/nonexistent/dir", NULL}, {"--frobnicate", NULL, NULL},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        char *argv[6] = {(char *)BAGHCHAL_SERVER_BIN, "--port", "0", (char *)BAD[i][0], (char *)BAD[i][1], NULL};
        pipe_proc_t *p = pipe_start(argv, 0);
        cr_assert_not_null(p);
        pipe_exit_t e = pipe_wait(p, EXIT_MS);
        cr_assert(e.exited && e.code != 0, "%s %s was accepted", BAD[i][0], BAD[i][1] ? BAD[i][1] : "");
        pipe_free(p);
    }
}

/* --cors is written into every answer's headers as it is: a line break in it would end the
 * header and start another (every request then got an empty reply), so the server refuses it
 * at start, naming the byte, and never listens. */
Test(server, a_header_value_with_control_characters_is_refused_at_start)
{
    static const char *const BAD[][2] = {
        {"x\r\nY: 1", "baghchal-server: --cors is written into a header and must be printable ASCII: byte 0x0D at "
                      "offset 1 is a control character"},
        {"a\tb", "baghchal-server: --cors is written into a header and must be printable ASCII: byte 0x09 at offset 1 "
                 "is a control character"},
        {"https://b\xc3\xa9.example", "baghchal-server: --cors is written into a header and must be printable ASCII: "
                                      "byte 0xC3 at offset 9 is not ASCII"},
        {"", "baghchal-server: --cors needs a value without spaces at its ends, such as '*' or an origin"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "exec '%s' --port 0 --cors '%s' 2>&1 </dev/null", BAGHCHAL_SERVER_BIN, BAD[i][0]);
        FILE *f = popen(cmd, "r");
        cr_assert_not_null(f);
        char out[1024] = "";
        size_t n = fread(out, 1, sizeof out - 1, f);
        out[n] = '\0';
        int st = pclose(f);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "--cors #%zu: status %d, printed %s", i, st, out);
        cr_assert(!strstr(out, "listening"), "--cors #%zu started: %s", i, out);
        char want[512];
        snprintf(want, sizeof want, "%s\n", BAD[i][1]);
        cr_assert_str_eq(out, want, "--cors #%zu", i);
    }
}

/* ---- one client cannot take the server down ----------------------------------------- */

/* A connection from a given loopback source address (127.0.0.0/8 is all local), so one test
 * can play two clients. */
static int connect_from(int port, const char *source)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in me = {0};
    me.sin_family = AF_INET;
    inet_pton(AF_INET, source, &me.sin_addr);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&me, sizeof me) != 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Whether the server has answered or closed fd: 1 answered or closed, 0 still open. */
static int peer_done(int fd, char *buf, size_t len)
{
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 0) <= 0)
        return 0;
    ssize_t n = recv(fd, buf, len - 1, MSG_DONTWAIT);
    buf[n > 0 ? n : 0] = '\0';
    return 1;
}

enum { LORIS_CONNS = 40, LORIS_PER_CLIENT = 8, LORIS_MS = 4500 };

typedef struct {
    int port;
    int refused_at_once, refused_503, closed_by_server, timeout_408, still_open;
} loris_t;

/* 40 connections from 127.0.0.1, each sending a header line every 250 ms and never the end
 * of its head; stops by itself after LORIS_MS. */
static void *loris_main(void *arg)
{
    loris_t *l = arg;
    int fds[LORIS_CONNS];
    double opened[LORIS_CONNS];
    bool done[LORIS_CONNS];
    char buf[1024];
    for (int i = 0; i < LORIS_CONNS; i++) {
        fds[i] = connect_from(l->port, "127.0.0.1");
        opened[i] = pipe_now_ms();
        done[i] = fds[i] < 0;
        if (fds[i] >= 0)
            net_send_all(fds[i], "GET /health HTTP/1.1\r\nHost: x\r\n", 31);
    }
    /* Connections past the per-client limit are answered 503 and closed at once. */
    struct timespec settle = {0, 300 * 1000000L};
    nanosleep(&settle, NULL);
    for (int i = 0; i < LORIS_CONNS; i++) {
        if (!done[i] && peer_done(fds[i], buf, sizeof buf)) {
            done[i] = true;
            l->refused_at_once++;
            l->refused_503 += strncmp(buf, "HTTP/1.1 503", 12) == 0 && strstr(buf, "too-many-per-client") != NULL;
        }
    }
    double end = pipe_now_ms() + LORIS_MS;
    while (pipe_now_ms() < end) {
        for (int i = 0; i < LORIS_CONNS; i++) {
            if (done[i])
                continue;
            if (peer_done(fds[i], buf, sizeof buf) || !net_send_all(fds[i], "X-Slow: 1\r\n", 11)) {
                done[i] = true;
                l->closed_by_server++;
                l->timeout_408 += strncmp(buf, "HTTP/1.1 408", 12) == 0;
                cr_assert_lt(pipe_now_ms() - opened[i], 2000 + 1500,
                             "a trickling connection lived %g ms past a 2 s request timeout",
                             pipe_now_ms() - opened[i]);
            }
        }
        struct timespec ts = {0, 250 * 1000000L};
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < LORIS_CONNS; i++) {
        if (!done[i])
            l->still_open++;
        if (fds[i] >= 0)
            close(fds[i]);
    }
    return NULL;
}

static resp_t get_from(int port, const char *source, const char *path)
{
    resp_t r = {0};
    int fd = connect_from(port, source);
    if (fd < 0)
        return r;
    char req[256];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path);
    if (net_send_all(fd, req, (size_t)n)) {
        size_t len;
        char *raw = net_read_all(fd, &len, REPLY_MS);
        parse_response(raw, len, &r);
        free(raw);
    }
    close(fd);
    return r;
}

Test(server, slowloris_does_not_shut_out_other_clients)
{
    srv_t *s = start("--max-per-client", "8", "--max-connections", "64", "--request-timeout", "2", NULL);
    loris_t l = {.port = s->port};
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, loris_main, &l), 0);
    /* Another client keeps asking while the attack runs. */
    int asked = 0, answered = 0;
    double worst = 0, end = pipe_now_ms() + LORIS_MS;
    while (pipe_now_ms() < end) {
        double t0 = pipe_now_ms();
        resp_t r = get_from(s->port, "127.0.0.2", "/health");
        double ms = pipe_now_ms() - t0;
        asked++;
        if (r.status == 200)
            answered++;
        if (ms > worst)
            worst = ms;
        resp_free(&r);
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
    }
    pthread_join(t, NULL);
    cr_assert_eq(answered, asked, "only %d of %d requests of the other client were answered", answered, asked);
    cr_assert_geq(asked, 10);
    if (!server_sanitized())
        cr_assert_lt(worst, 1000, "the other client waited %g ms for an answer", worst);
    cr_assert_eq(l.refused_at_once, LORIS_CONNS - LORIS_PER_CLIENT, "%d connections refused at once, not %d",
                 l.refused_at_once, LORIS_CONNS - LORIS_PER_CLIENT);
    cr_assert_eq(l.refused_503, l.refused_at_once, "a refused connection was not answered 503 too-many-per-client");
    cr_assert_eq(l.closed_by_server, LORIS_PER_CLIENT, "%d trickling connections closed by the server",
                 l.closed_by_server);
    cr_assert_eq(l.timeout_408, LORIS_PER_CLIENT, "only %d trickling connections got their 408", l.timeout_408);
    cr_assert_eq(l.still_open, 0);
    resp_t r = get(s->port, "/health");
    cJSON *j = expect_json(&r, 200);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(j, "connections");
    cr_assert_eq(num_field(c, "refused_client"), LORIS_CONNS - LORIS_PER_CLIENT);
    cr_assert_eq(num_field(c, "timed_out"), LORIS_PER_CLIENT);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

Test(server, connections_past_the_limit_get_503_at_once)
{
    /* Four connections whose searches wait for the one engine: handed over, none of them is
     * dropped for a new client, which is answered 503 at once. */
    srv_t *s = start("--max-connections", "4", "--max-per-client", "100", "--workers", "1", "--queue-timeout",
                     "20000", "--max-movetime", "20000", NULL);
    const char *body = "{\"obx\": \"" START_OBX "\", \"movetime\": 3000}";
    char req[512];
    int n = snprintf(req, sizeof req, "POST /obx HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n%s",
                     strlen(body), body);
    int fds[4];
    for (int i = 0; i < 4; i++) {
        fds[i] = net_connect(s->port);
        cr_assert_geq(fds[i], 0);
        cr_assert(net_send_all(fds[i], req, (size_t)n));
    }
    struct timespec ts = {0, 300 * 1000000L};
    nanosleep(&ts, NULL);
    double t0 = pipe_now_ms();
    resp_t r = get(s->port, "/health");
    cr_assert_lt(pipe_now_ms() - t0, 2000);
    expect_error(&r, 503, "Server busy.");
    cJSON *j = json_parse(&r);
    cr_assert_str_eq(str_field(j, "code"), "too-many-connections");
    cJSON_Delete(j);
    resp_free(&r);
    for (int i = 0; i < 4; i++)
        close(fds[i]);
    /* The departed clients' searches are stopped; the server serves again. */
    for (int k = 0; k < 100; k++) {
        r = get(s->port, "/health");
        if (r.status == 200)
            break;
        resp_free(&r);
        nanosleep(&ts, NULL);
    }
    j = expect_json(&r, 200);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

enum { SLOW_ADDRS = 30, SLOW_PER_ADDR = 2, SLOW_CONNS = SLOW_ADDRS * SLOW_PER_ADDR };

/* Every slow connection but `silent` sends a header line. */
static void trickle(const int *fds, int silent)
{
    struct timespec ts = {0, 300 * 1000000L};
    nanosleep(&ts, NULL);
    for (int i = 0; i < SLOW_CONNS; i++)
        if (i != silent)
            cr_assert(net_send_all(fds[i], "X-Slow: 1\r\n", 11), "slow connection %d was closed", i);
}

/* A new client is answered at once; the silent connection, and only it, was dropped. */
static void new_client_takes_the_silent_place(int port, int *fds, int silent)
{
    double t0 = pipe_now_ms();
    resp_t r = get_from(port, "127.0.0.1", "/health");
    double ms = pipe_now_ms() - t0;
    cJSON *j = expect_json(&r, 200);
    if (!server_sanitized())
        cr_assert_lt(ms, 100, "the new client waited %g ms", ms);
    cJSON_Delete(j);
    resp_free(&r);
    size_t len;
    char *raw = net_read_all(fds[silent], &len, REPLY_MS);
    cr_assert(raw && strncmp(raw, "HTTP/1.1 503", 12) == 0 && strstr(raw, "\"dropped-slow\""), "%s",
              raw ? raw : "(nothing)");
    free(raw);
    close(fds[silent]);
    char buf[1024];
    for (int i = 0; i < SLOW_CONNS; i++)
        if (i != silent)
            cr_assert_eq(peer_done(fds[i], buf, sizeof buf), 0, "slow connection %d was dropped too: %s", i, buf);
}

Test(server, a_full_server_drops_its_slowest_connection_for_a_new_client)
{
    /* 60 slow connections from 30 addresses, each address under the per-client limit, fill
     * the server: one sends nothing at all, the others a header line now and then. */
    srv_t *s = start("--max-connections", "60", "--max-per-client", "2", "--request-timeout", "10", NULL);
    int fds[SLOW_CONNS];
    for (int i = 0; i < SLOW_CONNS; i++) {
        char src[32];
        snprintf(src, sizeof src, "127.0.0.%d", 2 + i / SLOW_PER_ADDR);
        fds[i] = connect_from(s->port, src);
        cr_assert_geq(fds[i], 0, "cannot connect from %s", src);
        if (i != 7)
            cr_assert(net_send_all(fds[i], "GET /health HTTP/1.1\r\n", 23));
    }
    trickle(fds, 7);
    trickle(fds, 7);
    new_client_takes_the_silent_place(s->port, fds, 7);
    /* Full again with a new silent connection, the youngest: it has sent the least for
     * the longest time all the same. */
    struct timespec ts = {0, 200 * 1000000L};
    nanosleep(&ts, NULL);
    fds[7] = connect_from(s->port, "127.0.0.1");
    cr_assert_geq(fds[7], 0);
    trickle(fds, 7);
    trickle(fds, 7);
    new_client_takes_the_silent_place(s->port, fds, 7);
    for (int i = 0; i < SLOW_CONNS; i++)
        if (i != 7)
            close(fds[i]);
    nanosleep(&ts, NULL);
    resp_t r = get(s->port, "/health");
    cJSON *j = expect_json(&r, 200);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(j, "connections");
    cr_assert_eq(num_field(c, "evicted"), 2);
    cr_assert_eq(num_field(c, "refused_busy"), 0);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

/* The raw answer to raw bytes: exactly one response, JSON, with the status and code. */
static void expect_one_answer(int port, const char *req, size_t len, int status, const char *code)
{
    int fd = net_connect(port);
    cr_assert_geq(fd, 0);
    cr_assert(net_send_all(fd, req, len));
    size_t n;
    char *raw = net_read_all(fd, &n, REPLY_MS);
    close(fd);
    cr_assert_not_null(raw);
    int answers = 0;
    for (const char *p = raw; (p = strstr(p, "HTTP/1.")); p++)
        answers += p == raw || p[-1] == '\n'; /* a status line, not a mention in a detail */
    cr_assert_eq(answers, 1, "%d answers to one request: %s", answers, raw);
    resp_t r;
    parse_response(raw, n, &r);
    free(raw);
    cJSON *j = expect_json(&r, status);
    cr_assert_str_eq(str_field(j, "code") ? str_field(j, "code") : "(none)", code, "body: %s", r.body);
    cJSON_Delete(j);
    resp_free(&r);
}

Test(server, broken_requests_get_one_json_answer)
{
    srv_t *s = start("--max-body", "4096", NULL);
    const char *garbage = "GARBAGE\r\n\r\n";
    expect_one_answer(s->port, garbage, strlen(garbage), 400, "bad-request");
    const char *abc = "POST /obx HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n";
    expect_one_answer(s->port, abc, strlen(abc), 400, "bad-content-length");
    /* 470 parameters: past the parameter limit while the URL is under the length limit. */
    char url[4096];
    int n = snprintf(url, sizeof url, "GET /obx?");
    for (int i = 0; i < 470; i++)
        n += snprintf(url + n, sizeof url - (size_t)n, "a=%d&", i % 10);
    n += snprintf(url + n, sizeof url - (size_t)n, " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect_one_answer(s->port, url, strlen(url), 431, "too-many-parameters");
    /* The whole 3 KB URL: longer than the request target limit. */
    n = snprintf(url, sizeof url, "GET /obx?obx=");
    memset(url + n, 'X', 3000);
    n += 3000;
    n += snprintf(url + n, sizeof url - (size_t)n, " HTTP/1.1\r\nHost: x\r\n\r\n");
    expect_one_answer(s->port, url, (size_t)n, 414, "uri-too-long");
    /* A chunked body over the limit is answered while it is still arriving, without its
     * last chunk ever being sent. */
    char chunked[16384];
    int c = snprintf(chunked, sizeof chunked,
                     "POST /obx HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (int i = 0; i < 6; i++) {
        c += snprintf(chunked + c, sizeof chunked - (size_t)c, "400\r\n");
        memset(chunked + c, ' ', 1024);
        c += 1024;
        c += snprintf(chunked + c, sizeof chunked - (size_t)c, "\r\n");
    }
    expect_one_answer(s->port, chunked, (size_t)c, 413, "body-size");
    /* A NUL inside the OBX string, in JSON and in the query. */
    const char *nul = "{\"obx\": \"" START_OBX "\\u0000XXXX\", \"depth\": 2}";
    char req[512];
    n = snprintf(req, sizeof req, "POST /obx HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n%s", strlen(nul), nul);
    expect_one_answer(s->port, req, (size_t)n, 400, "bad-json");
    char enc[256];
    url_encode(START_OBX, enc, sizeof enc);
    n = snprintf(req, sizeof req, "GET /obx?obx=%s%%00junk&depth=2 HTTP/1.1\r\nHost: x\r\n\r\n", enc);
    expect_one_answer(s->port, req, (size_t)n, 400, "bad-obx-field");
    /* A NUL in a header value: libmicrohttpd would cut the value there and answer 200. */
    static const char nul_header[] = "GET /health HTTP/1.1\r\nHost: x\r\nX-Note: a\0b\r\n\r\n";
    expect_one_answer(s->port, nul_header, sizeof nul_header - 1, 400, "bad-header");
    static const char nul_host[] = "GET /health HTTP/1.1\r\nHost: \0\r\nConnection: close\r\n\r\n";
    expect_one_answer(s->port, nul_host, sizeof nul_host - 1, 400, "bad-header");
    /* An escaped backslash before u0000 is text, not a NUL: the OBX is then simply wrong. */
    const char *text = "{\"obx\": \"\\\\u0000\"}";
    n = snprintf(req, sizeof req, "POST /obx HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n%s", strlen(text),
                 text);
    expect_one_answer(s->port, req, (size_t)n, 400, "field-count");
    resp_t r = get(s->port, "/health");
    cJSON *j = expect_json(&r, 200);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

Test(server, search_of_a_departed_client_is_stopped)
{
    srv_t *s = start("--workers", "1", "--max-movetime", "20000", NULL);
    const char *body = "{\"obx\": \"" START_OBX "\", \"movetime\": 15000}";
    char req[512];
    int n = snprintf(req, sizeof req, "POST /obx HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n%s",
                     strlen(body), body);
    int fd = net_connect(s->port);
    cr_assert(net_send_all(fd, req, (size_t)n));
    struct timespec ts = {0, 500 * 1000000L};
    nanosleep(&ts, NULL);
    resp_t r = get(s->port, "/health");
    cJSON *j = expect_json(&r, 200);
    cr_assert_eq(num_field(j, "busy"), 1, "the long search is not running: %s", r.body);
    cJSON_Delete(j);
    resp_free(&r);
    close(fd);
    /* The engine is free again long before the 15 s search would have ended. */
    double t0 = pipe_now_ms();
    r = post(s->port, "/obx", SHORT_SEARCH);
    j = expect_json(&r, 200);
    cJSON_Delete(j);
    resp_free(&r);
    cr_assert_lt(pipe_now_ms() - t0, 5000, "the next search waited %g ms", pipe_now_ms() - t0);
    r = get(s->port, "/health");
    j = expect_json(&r, 200);
    cr_assert_eq(num_field(j, "cancelled"), 1);
    cr_assert_eq(num_field(j, "busy"), 0);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

Test(server, memory_stays_below_workers_times_hash)
{
    /* Each search maps a fresh 64 MB table; only the part the search touches may stay. */
    srv_t *s = start("--workers", "2", "--hash", "64", NULL);
    /* The resident size is measured only without sanitizers, whose shadow of each fresh
     * table makes a search take a second on a loaded machine: there a few searches do. */
    int searches = server_sanitized() ? 20 : 200;
    for (int i = 0; i < searches; i++) {
        resp_t r = post(s->port, "/obx", SHORT_SEARCH);
        cr_assert_eq(r.status, 200);
        resp_free(&r);
    }
    long kb = rss_kb(pipe_pid(s->proc));
    if (!server_sanitized())
        cr_assert_lt(kb, 64 * 1024, "%ld kB resident after 200 small searches on 2 x 64 MB tables", kb);
    stop(s);
}

/* The moves of an /analysis answer must be exactly the legal moves of /legal, once each. */
static int check_analysis_moves(int port, const cJSON *an, const char *obx)
{
    char body[512];
    snprintf(body, sizeof body, "{\"obx\": \"%s\"}", obx);
    resp_t r = post(port, "/legal", body);
    cJSON *legal = expect_json(&r, 200);
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(legal, "legal");
    const cJSON *got = cJSON_GetObjectItemCaseSensitive(an, "moves");
    cr_assert_eq(cJSON_GetArraySize(got), cJSON_GetArraySize(want), "%d moves analysed, %d legal",
                 cJSON_GetArraySize(got), cJSON_GetArraySize(want));
    const cJSON *w;
    cJSON_ArrayForEach(w, want)
    {
        int seen = 0;
        const cJSON *g;
        cJSON_ArrayForEach(g, got) seen += strcmp(str_field(g, "move"), str_field(w, "move")) == 0;
        cr_assert_eq(seen, 1, "%s appears %d times in the analysis", str_field(w, "move"), seen);
    }
    int n = cJSON_GetArraySize(want);
    cJSON_Delete(legal);
    resp_free(&r);
    return n;
}

Test(server, analysis_values_every_move_by_search)
{
    srv_t *s = start(NULL);
    const char *obx = "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0";
    resp_t r = post(s->port, "/analysis", "{\"obx\": \"TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0\", \"depth\": 4}");
    cJSON *j = expect_json(&r, 200);
    cr_assert_str_eq(str_field(j, "source"), "search");
    cr_assert_str_eq(str_field(j, "turn"), "tigers");
    cr_assert_eq(num_field(j, "depth"), 4);
    int n = check_analysis_moves(s->port, j, obx);
    cr_assert_eq(n, 12); /* three steps for each corner tiger */
    /* Every line has a score, best first. */
    int prev = 1 << 30;
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(j, "moves"))
    {
        const cJSON *score = cJSON_GetObjectItemCaseSensitive(m, "score");
        cr_assert(cJSON_IsObject(score), "no score for %s: %s", str_field(m, "move"), r.body);
        int cp = (int)num_field(score, "cp");
        cr_assert_leq(cp, prev, "moves are not best first: %s", r.body);
        prev = cp;
    }
    cJSON_Delete(j);
    resp_free(&r);
    /* A finished game: no moves, the result. */
    r = post(s->port, "/analysis", "{\"obx\": \"TGXXT/XXXXX/XXXXX/XXXXX/TXXXT g @14 c5\"}");
    j = expect_json(&r, 200);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "moves")), 0);
    cr_assert_str_eq(str_field(j, "source"), "none");
    cr_assert(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "result")), "no result: %s", r.body);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

/* A score as one number that orders them: mates beyond every centipawn value. */
static double score_rank(const cJSON *score)
{
    const cJSON *mate = cJSON_GetObjectItemCaseSensitive(score, "mate");
    if (cJSON_IsNumber(mate))
        return mate->valuedouble > 0 ? 1e6 - mate->valuedouble : -1e6 - mate->valuedouble;
    return num_field(score, "cp");
}

/* Scored moves first, best first; the moves no line reached after them. */
static void expect_best_first(const resp_t *r, const cJSON *j)
{
    double prev = 1e9;
    bool unscored = false;
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(j, "moves"))
    {
        const cJSON *score = cJSON_GetObjectItemCaseSensitive(m, "score");
        if (!cJSON_IsObject(score)) {
            unscored = true;
            continue;
        }
        cr_assert(!unscored, "a scored move after an unscored one: %s", r->body);
        double v = score_rank(score);
        cr_assert_leq(v, prev, "%s is not in its place, best first: %s", str_field(m, "move"), r->body);
        prev = v;
    }
}

Test(server, analysis_is_best_first_whatever_the_search_reached)
{
    /* The depth-6 iteration of this position scores its seventh line (C4 -83) above the
     * fifth and sixth (C3, D3 -85): the engine reports MultiPV lines in the order it
     * searched them. Every depth, and searches stopped by the clock at any iteration. */
    srv_t *s = start(NULL);
    const char *obx = "GGGGG/GTXTG/GXXXG/GTXTX/GGGGX g @6 c0 mE5D4 #t14";
    char body[256];
    for (int depth = 1; depth <= 8; depth++) {
        snprintf(body, sizeof body, "{\"obx\": \"%s\", \"depth\": %d}", obx, depth);
        resp_t r = post(s->port, "/analysis", body);
        cJSON *j = expect_json(&r, 200);
        cr_assert_str_eq(str_field(j, "source"), "search");
        cr_assert_eq(check_analysis_moves(s->port, j, obx), 7);
        expect_best_first(&r, j);
        cJSON_Delete(j);
        resp_free(&r);
    }
    for (int k = 0; k < 12; k++) {
        snprintf(body, sizeof body, "{\"obx\": \"%s\", \"movetime\": %d}", obx, 20 + 25 * k);
        resp_t r = post(s->port, "/analysis", body);
        cJSON *j = expect_json(&r, 200);
        expect_best_first(&r, j);
        cJSON_Delete(j);
        resp_free(&r);
    }
    stop(s);
}

Test(server, analysis_values_every_move_from_the_database)
{
    const char *dir = getenv("BAGHCHAL_TB_DIR");
    char file[4096];
    snprintf(file, sizeof file, "%s/" TB_FILE_NAME, dir ? dir : "");
    if (!dir || access(file, R_OK) != 0)
        cr_skip_test("no database: set BAGHCHAL_TB_DIR to a directory holding " TB_FILE_NAME);
    srv_t *s = start("--tablebase", dir, NULL);
    const char *obx = "GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3";
    resp_t r = post(s->port, "/analysis", "{\"obx\": \"GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3\"}");
    cJSON *j = expect_json(&r, 200);
    cr_assert_str_eq(str_field(j, "source"), "database");
    check_analysis_moves(s->port, j, obx);
    /* The same position under the draw rule: the same moves in the same order, each with the
     * same value, except that what forbid calls "open" (a draw only under the draw rule) is a
     * "draw" there. */
    resp_t rd = post(s->port, "/analysis",
                     "{\"obx\": \"GTGGG/TGXGT/GXGXG/GGTGG/GGXGG g @0 c3\", \"repetition\": \"draw\"}");
    cJSON *jd = expect_json(&rd, 200);
    cr_assert_str_eq(str_field(jd, "source"), "database");
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(jd, "moves");
    cr_assert_eq(cJSON_GetArraySize(md), cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "moves")));
    /* Under forbid: exactly what the library settles (forbid.h), best first; never a draw. */
    tb_t *tb;
    char msg[256];
    cr_assert_eq(tb_open_game(dir, &tb, msg, sizeof msg), TB_OK, "%s", msg);
    position_t p;
    cr_assert_eq(obx_parse(obx, &p, NULL, msg, sizeof msg), BC_OK);
    game_t g;
    cr_assert(game_init(&g, &p, NULL, REP_FORBID));
    move_t moves[MAX_MOVES];
    int n = game_legal_moves(&g, moves);
    fb_settled_t vals[MAX_MOVES];
    fb_prover_t *pr = fb_prover_new(FB_SETTLE_MB);
    fb_settle_moves(pr, tb, &g, moves, n, FB_SETTLE_NODES, vals);
    int open = 0, proven = 0, k = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(j, "moves"))
    {
        char text[MOVE_TEXT_LEN];
        move_format(moves[k], text);
        cr_assert_str_eq(str_field(m, "text"), text, "move %d: %s", k, r.body);
        const char *wdl = str_field(m, "wdl");
        const fb_settled_t *v = &vals[k];
        cr_assert_str_eq(wdl, v->result == FB_LOSS ? "win" : v->result == FB_WIN ? "loss" : "open", "%s", text);
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(m, "distance");
        if (v->result != FB_OPEN && v->distance != TB_DISTANCE_UNKNOWN)
            cr_assert_eq(num_field(m, "distance"), v->distance + 1, "%s", text);
        else
            cr_assert(cJSON_IsNull(d), "%s", text);
        cr_assert_eq(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "proven")), v->proved, "%s", text);
        /* The draw rule's value of the same move: the same win or loss where the database
         * settled it, a draw where forbid's value is open or the prover's. */
        const cJSON *o = NULL, *x;
        cJSON_ArrayForEach(x, md) if (strcmp(str_field(x, "move"), str_field(m, "move")) == 0) o = x;
        cr_assert_not_null(o);
        cr_assert_str_eq(str_field(o, "wdl"), strcmp(wdl, "open") == 0 || v->proved ? "draw" : wdl, "%s", text);
        /* A draw has no distance: null, as an open move's under forbid. */
        if (strcmp(str_field(o, "wdl"), "draw") == 0)
            cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "distance")), "%s under draw: %s", text, rd.body);
        else
            cr_assert_eq(num_field(o, "distance"), num_field(m, "distance"), "%s", text);
        open += strcmp(wdl, "open") == 0;
        proven += v->proved;
        k++;
    }
    cr_assert_eq(k, n);
    cr_assert_gt(open + proven, 0, "this position has database draws: %s", r.body);
    fb_prover_free(pr);
    game_free(&g);
    tb_close(tb);
    cJSON_Delete(jd);
    resp_free(&rd);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

/* The placement phase from the solution: the last layers of the real game built beside the
 * movement database in a folder of the test's own; every move of positions two goats from
 * the movement phase gets the library's value, as win / draw / loss with no distance. */
static char place_dir[64];

static void remove_place_dir(void)
{
    if (!place_dir[0])
        return;
    tree_remove(place_dir);
    place_dir[0] = '\0';
}

Test(server, analysis_values_placement_moves_from_the_solution, .fini = remove_place_dir)
{
    const char *dir = getenv("BAGHCHAL_TB_DIR");
    char file[4096], work[128], path[160], msg[256];
    snprintf(file, sizeof file, "%s/" TB_FILE_NAME, dir ? dir : "");
    if (!dir || access(file, R_OK) != 0)
        cr_skip_test("no database: set BAGHCHAL_TB_DIR to a directory holding " TB_FILE_NAME);
    snprintf(place_dir, sizeof place_dir, "/tmp/test_server.XXXXXX");
    cr_assert_not_null(mkdtemp(place_dir));
    snprintf(path, sizeof path, "%s/" TB_FILE_NAME, place_dir);
    cr_assert_eq(symlink(file, path), 0);
    tb_t *movement;
    cr_assert_eq(tb_open_game(dir, &movement, msg, sizeof msg), TB_OK, "%s", msg);
    snprintf(work, sizeof work, "%s/work", place_dir);
    cr_assert_eq(mkdir(work, 0755), 0);
    tbp_gen_options_t o;
    tbp_gen_options_init(&o, work);
    o.threads = 2, o.max_in_hand = 2, o.min_goats = 18;
    cr_assert_eq(tbp_generate(&o, movement, msg, sizeof msg), TB_OK, "%s", msg);
    snprintf(path, sizeof path, "%s/" TBP_FILE_NAME, place_dir);
    cr_assert_eq(tbp_pack(work, path, 20, 5, 2, 18, TIGERS, NULL, NULL, msg, sizeof msg), TB_OK, "%s", msg);
    tb_close(movement);
    tb_t *tb;
    cr_assert_eq(tb_open_game(place_dir, &tb, msg, sizeof msg), TB_OK, "%s", msg);
    cr_assert(tb_has_placement(tb));
    srv_t *s = start("--tablebase", place_dir, NULL);
    fb_prover_t *pr = fb_prover_new(FB_SETTLE_MB);
    cr_assert_not_null(pr);
    tbp_rank_t rk;
    tbp_rank_init(&rk);
    int seen[3] = {0};
    int checked = 0;
    char won[128] = ""; /* a position whose side to move wins */
    for (uint64_t i = 5; i < 1666ull * 1330 && (checked < 20 || !(seen[0] && seen[1] && seen[2])); i += 4001, checked++) {
        position_t p = {.side = GOATS, .in_hand = 2};
        tbp_entry_points(tb_index(tb), &rk, 18, i, &p.tigers, &p.goats);
        p.key = position_compute_key(&p);
        char obx[128], body[256];
        obx_format(&p, NULL, 2, obx, sizeof obx);
        snprintf(body, sizeof body, "{\"obx\": \"%s\"}", obx);
        resp_t r = post(s->port, "/analysis", body);
        cJSON *j = expect_json(&r, 200);
        cr_assert_str_eq(str_field(j, "source"), "database", "%s", obx);
        int n = check_analysis_moves(s->port, j, obx);
        move_t moves[MAX_MOVES];
        cr_assert_eq(gen_moves(&p, moves), n);
        /* Under the default rule, forbid: what the library settles (a database draw is open
         * unless the prover settles it); a placement value has no distance. */
        game_t gm;
        cr_assert(game_init(&gm, &p, NULL, REP_FORBID));
        fb_settled_t vals[MAX_MOVES];
        fb_settle_moves(pr, tb, &gm, moves, n, FB_SETTLE_NODES, vals);
        int k = 0;
        const cJSON *m;
        cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(j, "moves"))
        {
            char text[MOVE_TEXT_LEN];
            move_format(moves[k], text);
            cr_assert_str_eq(str_field(m, "text"), text, "%s: move %d", obx, k);
            const fb_settled_t *v = &vals[k];
            const char *want = v->result == FB_LOSS ? "win" : v->result == FB_WIN ? "loss" : "open";
            cr_assert_str_eq(str_field(m, "wdl"), want, "%s %s", obx, text);
            const cJSON *d = cJSON_GetObjectItemCaseSensitive(m, "distance");
            if (v->db.wdl != TB_DRAW)
                cr_assert(cJSON_IsNull(d), "%s %s: a placement value has no distance", obx, text);
            cr_assert_eq(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "proven")), v->proved, "%s %s", obx, text);
            seen[-v->db.wdl + 1]++;
            if (v->db.wdl == TB_LOSS && !won[0])
                snprintf(won, sizeof won, "%s", obx);
            k++;
        }
        game_free(&gm);
        cJSON_Delete(j);
        resp_free(&r);
    }
    cr_assert(seen[0] && seen[1] && seen[2], "losing, drawn and winning moves were all shown");
    /* The engine's move there, and its lines: the database's win, which has no distance, says
     * so (wdl) beside a cp that only orders it, never a mate nor a bare 199.99. */
    char body[512];
    snprintf(body, sizeof body, "{\"obx\": \"%s\", \"repetition\": \"draw\", \"movetime\": 100, \"multipv\": 2}", won);
    resp_t r = post(s->port, "/obx", body);
    cJSON *j = expect_json(&r, 200);
    const cJSON *lines = cJSON_GetObjectItemCaseSensitive(j, "lines");
    cr_assert(cJSON_IsArray(lines) && cJSON_GetArraySize(lines) >= 1, "%s", r.body);
    const cJSON *scores[] = {cJSON_GetObjectItemCaseSensitive(j, "score"),
                             cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(lines, 0), "score")};
    for (int k = 0; k < 2; k++) {
        cr_assert_str_eq(str_field(scores[k], "wdl"), "win", "%s: %s", won, r.body);
        const cJSON *cp = cJSON_GetObjectItemCaseSensitive(scores[k], "cp");
        cr_assert(cJSON_IsNumber(cp) && cp->valueint >= 19000 && cp->valueint < 20000, "%s: %s", won, r.body);
        cr_assert_null(cJSON_GetObjectItemCaseSensitive(scores[k], "mate"), "%s", r.body);
    }
    cJSON_Delete(j);
    resp_free(&r);
    fb_prover_free(pr);
    stop(s);
    tb_close(tb);
}

Test(server, skill_level_plays_weaker_and_reproducibly)
{
    srv_t *s = start("--workers", "2", NULL);
    static const char *const OPENING[] = {"", "C3", "C3,A1B1", "C3,A1B1,B3", "C3,A1B1,B3,E5D4", "C3,A1B1,B3,E5D4,D3"};
    int differs = 0;
    for (size_t i = 0; i < sizeof OPENING / sizeof *OPENING; i++) {
        char path[512], enc[256];
        url_encode(START_OBX, enc, sizeof enc);
        const char *best[3];
        cJSON *js[3];
        resp_t rs[3];
        for (int k = 0; k < 3; k++) {
            snprintf(path, sizeof path, "/obx?obx=%s&moves=%s&depth=5%s", enc, OPENING[i], k ? "&skill=0" : "");
            rs[k] = get(s->port, path);
            js[k] = expect_json(&rs[k], 200);
            best[k] = str_field(js[k], "move");
            cr_assert_not_null(best[k]);
        }
        cr_assert_str_eq(best[1], best[2], "skill 0 played %s, then %s for the same request", best[1], best[2]);
        differs += strcmp(best[0], best[1]) != 0;
        for (int k = 0; k < 3; k++) {
            cJSON_Delete(js[k]);
            resp_free(&rs[k]);
        }
    }
    cr_assert_gt(differs, 0, "skill 0 played the full-strength move every time");
    resp_t r = post(s->port, "/obx", "{\"obx\": \"" START_OBX "\", \"skill\": 21}");
    expect_error(&r, 400, "Invalid request.");
    resp_free(&r);
    stop(s);
}

Test(server, expect_100_continue_is_answered_before_the_body)
{
    srv_t *s = start(NULL);
    const char *body = "{\"obx\": \"" START_OBX "\", \"depth\": 2}";
    char head[256];
    int n = snprintf(head, sizeof head,
                     "POST /obx HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: %zu\r\n\r\n",
                     strlen(body));
    int fd = net_connect(s->port);
    cr_assert(net_send_all(fd, head, (size_t)n));
    char buf[256];
    struct pollfd p = {fd, POLLIN, 0};
    cr_assert_gt(poll(&p, 1, 5000), 0, "no 100 Continue: the client would wait for nothing");
    ssize_t got = recv(fd, buf, sizeof buf - 1, 0);
    cr_assert_gt(got, 0);
    buf[got] = '\0';
    cr_assert(strncmp(buf, "HTTP/1.1 100 Continue\r\n\r\n", 25) == 0, "got: %s", buf);
    cr_assert(net_send_all(fd, body, strlen(body)));
    size_t len;
    char *raw = net_read_all(fd, &len, REPLY_MS);
    close(fd);
    /* libmicrohttpd sends its own interim answer too: clients skip any number of them. */
    const char *final = raw;
    while (strncmp(final, "HTTP/1.1 100 Continue\r\n\r\n", 25) == 0)
        final += 25;
    resp_t r;
    parse_response(final, len - (size_t)(final - raw), &r);
    free(raw);
    cJSON *j = expect_json(&r, 200);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

/* ---- hostile requests (issue 28): bytes, NULs, half-closed clients, long games ------ */

/* Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing past U+10FFFF. */
static bool utf8_valid(const char *text, size_t n, size_t *at)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        bool ok = len && i + len <= n;
        if (ok && len > 1) {
            unsigned char lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80, hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
            ok = s[i + 1] >= lo && s[i + 1] <= hi;
            for (size_t k = 2; ok && k < len; k++)
                ok = s[i + k] >= 0x80 && s[i + k] <= 0xBF;
        }
        if (!ok) {
            *at = i;
            return false;
        }
        i += len;
    }
    return true;
}

/* An answer of the status and code, whose body is valid UTF-8 throughout; returns its detail
 * (to free). */
static char *expect_utf8_error(const resp_t *r, int status, const char *code)
{
    size_t at;
    cr_assert_not_null(r->body, "no answer");
    cr_assert(utf8_valid(r->body, r->body_len, &at), "byte %zu of the answer is not UTF-8: %s", at, r->body);
    cJSON *j = expect_json(r, status);
    cr_assert_str_eq(str_field(j, "code") ? str_field(j, "code") : "(none)", code, "body: %s", r->body);
    char *detail = strdup(str_field(j, "detail") ? str_field(j, "detail") : "");
    cJSON_Delete(j);
    return detail;
}

#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD, as \ufffd decodes */

Test(server, error_answers_are_valid_utf8_whatever_the_request_holds)
{
    srv_t *s = start(NULL);
    char enc[256], path[600];
    url_encode(START_OBX, enc, sizeof enc);
    /* A move of one byte 0xFF: the detail names it. */
    snprintf(path, sizeof path, "/obx?obx=%s&move=%%ff", enc);
    resp_t r = get(s->port, path);
    char *d = expect_utf8_error(&r, 422, "move-syntax");
    cr_assert_not_null(strstr(d, "'" REPLACEMENT "'"), "the byte is shown as U+FFFD: %s", d);
    free(d);
    resp_free(&r);
    /* The path. */
    r = get(s->port, "/%ff%fe");
    d = expect_utf8_error(&r, 404, "not-found");
    cr_assert_not_null(strstr(d, "/" REPLACEMENT REPLACEMENT), "%s", d);
    free(d);
    resp_free(&r);
    /* The OBX fields of /legal: the last move, the board, a truncated sequence, a surrogate
     * and an overlong form. */
    const char *bad[] = {"%20%ff", "%20m%c3", "%20%ed%a0%80", "%20%c0%af"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(path, sizeof path, "/legal?obx=TXXXT/XXXXX/XXXXX/XXXXX/TXXXT%%20g%%20@20%%20c0%s", bad[i]);
        r = get(s->port, path);
        cr_assert_eq(r.status, 400, "%s: %s", bad[i], r.body);
        size_t at;
        cr_assert(utf8_valid(r.body, r.body_len, &at), "%s: byte %zu is not UTF-8: %s", bad[i], at, r.body);
        cJSON *j = json_parse(&r);
        cr_assert_not_null(strstr(str_field(j, "detail"), REPLACEMENT), "%s: %s", bad[i], r.body);
        cJSON_Delete(j);
        resp_free(&r);
    }
    r = get(s->port, "/legal?obx=TXXXT/XXXXX/XX%ffXX/XXXXX/TXXXT%20g%20@20%20c0");
    d = expect_utf8_error(&r, 400, "board-char");
    free(d);
    resp_free(&r);
    /* Raw bytes in a JSON body. */
    r = post(s->port, "/obx", "{\"obx\": \"" START_OBX "\", \"move\": \"\xff\xfe\"}");
    d = expect_utf8_error(&r, 422, "move-syntax");
    cr_assert_not_null(strstr(d, REPLACEMENT), "%s", d);
    free(d);
    resp_free(&r);
    /* Valid UTF-8 passes unchanged. */
    r = post(s->port, "/obx", "{\"obx\": \"" START_OBX "\", \"move\": \"\xc3\xa9\"}");
    d = expect_utf8_error(&r, 422, "move-syntax");
    cr_assert(strstr(d, "'\xc3\xa9'") && !strstr(d, REPLACEMENT), "%s", d);
    free(d);
    resp_free(&r);
    stop(s);
}

Test(server, a_nul_in_the_path_is_refused)
{
    srv_t *s = start(NULL);
    const char *paths[] = {"/style.css%00.js", "/obx%00?obx=x", "/%00"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char req[256];
        int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", paths[i]);
        expect_one_answer(s->port, req, (size_t)n, 400, "bad-path");
    }
    /* Not a NUL: %000 is a NUL too, %100 and %0A are not. */
    resp_t r = get(s->port, "/style.css%000");
    expect_error(&r, 400, "Bad request.");
    resp_free(&r);
    r = get(s->port, "/style.css%100");
    expect_error(&r, 404, "Not found.");
    resp_free(&r);
    r = get(s->port, "/style.css");
    cr_assert_eq(r.status, 200);
    resp_free(&r);
    /* A %00 after the '?' is a query value's NUL, refused by its field. */
    char enc[256], path[400];
    url_encode(START_OBX, enc, sizeof enc);
    snprintf(path, sizeof path, "/legal?obx=%s&move=C3%%00", enc);
    r = get(s->port, path);
    cJSON *j = expect_json(&r, 400);
    cr_assert_str_eq(str_field(j, "code"), "bad-parameter");
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

Test(server, a_half_closed_client_gets_no_cut_short_move)
{
    srv_t *s = start("--workers", "1", "--max-movetime", "20000", NULL);
    const char *body = "{\"obx\": \"" START_OBX "\", \"movetime\": 3000}";
    char req[512];
    int n = snprintf(req, sizeof req, "POST /obx HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n%s",
                     strlen(body), body);
    int fd = net_connect(s->port);
    cr_assert_geq(fd, 0);
    cr_assert(net_send_all(fd, req, (size_t)n));
    double t0 = pipe_now_ms();
    /* The client says it sends no more and waits for its answer: the server takes it for gone
     * and stops the search, so the move it would give is not the one asked for. */
    cr_assert_eq(shutdown(fd, SHUT_WR), 0);
    size_t len;
    char *raw = net_read_all(fd, &len, REPLY_MS);
    double ms = pipe_now_ms() - t0;
    close(fd);
    resp_t r;
    parse_response(raw, len, &r);
    free(raw);
    if (r.status != 0) {
        cJSON *j = expect_json(&r, 499);
        cr_assert_str_eq(str_field(j, "code"), "client-gone", "%s", r.body);
        cr_assert_null(cJSON_GetObjectItem(j, "move"), "a cut-short search's move was sent: %s", r.body);
        cJSON_Delete(j);
    }
    cr_assert_lt(ms, 2500, "the search was not stopped: the answer took %g ms", ms);
    resp_free(&r);
    r = get(s->port, "/health");
    cJSON *j = expect_json(&r, 200);
    cr_assert_eq(num_field(j, "cancelled"), 1);
    cJSON_Delete(j);
    resp_free(&r);
    stop(s);
}

/* A legal game of n plies from the start under forbid, no position repeated, never over, as
 * tools/longgame writes it (a seeded walk that keeps the game quiet where it can). */
static void long_game(game_t *g, int n)
{
    char plies[16];
    snprintf(plies, sizeof plies, "%d", n);
    char *argv[] = {(char *)BAGHCHAL_BIN_DIR "/longgame", "plies", plies, "forbid", NULL};
    pipe_proc_t *p = pipe_start(argv, 0);
    cr_assert_not_null(p, "cannot start %s: %s", argv[0], strerror(errno));
    char *line;
    cr_assert_eq(pipe_read_line(p, EXIT_MS, &line), PIPE_LINE, "longgame printed no game");
    const char *prefix = "position startpos moves ";
    cr_assert_eq(strncmp(line, prefix, strlen(prefix)), 0, "longgame printed '%.60s'", line);
    position_t start;
    position_set_start(&start);
    cr_assert(game_init(g, &start, NULL, REP_FORBID));
    char *save = NULL, msg[200];
    for (char *t = strtok_r(line + strlen(prefix), " ", &save); t; t = strtok_r(NULL, " ", &save))
        cr_assert_eq(game_play_text(g, t, msg, sizeof msg), BC_OK, "longgame's move %s: %s", t, msg);
    pipe_exit_t e = pipe_wait(p, EXIT_MS);
    pipe_free(p);
    cr_assert(e.exited && e.code == 0, "longgame ended with status %d", e.code);
    cr_assert_eq((int)g->count, n);
    cr_assert_eq(game_result(g).reason, RESULT_NONE, "longgame's game is over");
}

Test(server, a_game_longer_than_1024_plies_goes_on)
{
    enum { PLIES = 1500 };
    srv_t *s = start(NULL);
    game_t g;
    long_game(&g, PLIES);
    /* The whole game as a JSON body: 1,500 moves of 4 to 6 bytes fit the 16 KB body limit. */
    size_t cap = 32768, n = 0;
    char *body = malloc(cap);
    cr_assert_not_null(body);
    n += (size_t)snprintf(body, cap, "{\"obx\": \"" START_OBX "\", \"moves\": [");
    for (int i = 0; i < PLIES; i++) {
        char text[MOVE_TEXT_LEN];
        move_format(g.moves[i], text);
        n += (size_t)snprintf(body + n, cap - n, "%s\"%s\"", i ? "," : "", text);
    }
    snprintf(body + n, cap - n, "], \"depth\": 2}");
    cr_assert_lt(strlen(body), 16384);
    char want[OBX_MAX_LEN];
    obx_meta_t meta = game_meta(&g);
    obx_format(game_position(&g), &meta, OBX_V2, want, sizeof want);
    resp_t r = post(s->port, "/legal", body);
    cJSON *j = expect_json(&r, 200);
    cr_assert_str_eq(str_field(j, "obx"), want);
    move_t legal[MAX_MOVES];
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "legal")), game_legal_moves(&g, legal));
    cJSON_Delete(j);
    resp_free(&r);
    r = post(s->port, "/obx", body);
    j = expect_json(&r, 200);
    cr_assert_str_eq(str_field(j, "position"), want);
    check_answer(j, want);
    /* The engine's move is legal in the game, repetitions included. */
    move_t m;
    char msg[200];
    cr_assert_eq(move_parse(game_position(&g), str_field(j, "move"), &m, msg, sizeof msg), BC_OK, "%s", msg);
    cr_assert(!game_move_repeats(&g, m), "%s repeats a position of the game", str_field(j, "move"));
    cJSON_Delete(j);
    resp_free(&r);
    /* Every position of the game counts for forbid: a move back to one of them is refused,
     * found at the last ply past 1,024 that has one. */
    move_t back = MOVE_NONE;
    while (g.count > 1100 && back == MOVE_NONE) {
        move_t list[MAX_MOVES];
        int k = gen_moves(game_position(&g), list);
        for (int i = 0; i < k && back == MOVE_NONE; i++)
            if (game_move_repeats(&g, list[i]))
                back = list[i];
        if (back == MOVE_NONE)
            game_pop(&g);
    }
    cr_assert_neq(back, MOVE_NONE, "no move back to an earlier position in the game's last 400 plies");
    char *cut = strstr(body, "], \"depth\"");
    n = (size_t)(cut - body);
    for (int i = 0, seen = 0; body[i]; i++)
        if (body[i] == ',' && i > (int)strlen("{\"obx\": \"" START_OBX "\", \"moves\": [") && ++seen == (int)g.count) {
            n = (size_t)i;
            break;
        }
    char text[MOVE_TEXT_LEN];
    move_format(back, text);
    snprintf(body + n, cap - n, "], \"move\": \"%s\"}", text);
    r = post(s->port, "/legal", body);
    j = expect_json(&r, 422);
    cr_assert_str_eq(str_field(j, "code"), "move-repetition", "%s after %zu plies: %s", text, g.count, r.body);
    cJSON_Delete(j);
    resp_free(&r);
    free(body);
    game_free(&g);
    stop(s);
}

#endif
