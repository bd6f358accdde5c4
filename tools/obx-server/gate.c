/* The front door: one thread with epoll accepts connections, counts them per client, and
 * peeks (MSG_PEEK) at each until its whole request is in the socket. Only then does
 * libmicrohttpd get it, so a client that trickles bytes never reaches it and the request
 * deadline is the gate's own. The gate only judges framing (request line, header lines,
 * lengths, chunk sizes); libmicrohttpd still parses the request it is handed. */
#define _GNU_SOURCE /* accept4 */
#include "gate.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "api.h"

enum { KEY_LEN = 17, LINGER_MS = 1000, EVENTS_NB = 64, TICK_MS = 100 };

typedef struct {
    int fd;
    bool used, closing, continued;
    int64_t opened, deadline;
    size_t bytes; /* of its request received so far */
    uint8_t key[KEY_LEN];
    struct sockaddr_storage addr;
    socklen_t alen;
} held_t;

typedef struct {
    uint8_t key[KEY_LEN];
    int count;
} client_t;

struct gate {
    gate_config_t cfg;
    int epoll_fd, wake_fd;
    pthread_t thread;
    bool started;
    atomic_bool stop;
    held_t *held;    /* cfg.max_connections slots */
    char *buf;       /* peek buffer */
    size_t buf_cap;
    pthread_mutex_t lock; /* clients, open, stats */
    client_t *clients;    /* cfg.max_connections slots; count 0 = free */
    gate_stats_t stats;
};

static char LISTEN_TAG, WAKE_TAG;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void client_key(const struct sockaddr *a, uint8_t key[KEY_LEN])
{
    memset(key, 0, KEY_LEN);
    if (a->sa_family == AF_INET) {
        key[0] = 4;
        memcpy(key + 1, &((const struct sockaddr_in *)a)->sin_addr, 4);
    } else if (a->sa_family == AF_INET6) {
        key[0] = 6;
        memcpy(key + 1, &((const struct sockaddr_in6 *)a)->sin6_addr, 16);
    }
}

/* Under lock: the client's slot, created when asked. */
static client_t *client_find(gate_t *g, const uint8_t key[KEY_LEN], bool create)
{
    client_t *free_slot = NULL;
    for (int i = 0; i < g->cfg.max_connections; i++) {
        client_t *c = &g->clients[i];
        if (c->count == 0) {
            if (!free_slot)
                free_slot = c;
        } else if (memcmp(c->key, key, KEY_LEN) == 0) {
            return c;
        }
    }
    if (create && free_slot)
        memcpy(free_slot->key, key, KEY_LEN);
    return create ? free_slot : NULL;
}

static void release_key(gate_t *g, const uint8_t key[KEY_LEN])
{
    pthread_mutex_lock(&g->lock);
    client_t *c = client_find(g, key, false);
    if (c && c->count > 0)
        c->count--;
    if (g->stats.open > 0)
        g->stats.open--;
    pthread_mutex_unlock(&g->lock);
}

void gate_release(gate_t *g, const struct sockaddr *addr)
{
    uint8_t key[KEY_LEN];
    client_key(addr, key);
    release_key(g, key);
}

void gate_stats(gate_t *g, gate_stats_t *out)
{
    pthread_mutex_lock(&g->lock);
    *out = g->stats;
    pthread_mutex_unlock(&g->lock);
}

/* ---- judging the bytes ------------------------------------------------------------- */

static const char *find_line_end(const char *s, const char *end)
{
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    return nl;
}

static bool is_tchar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("!#$%&'*+-.^_`|~", c);
}

#define REFUSE(status, c, ...)                                                                                         \
    do {                                                                                                               \
        *code = (c);                                                                                                   \
        snprintf(detail, detail_len, __VA_ARGS__);                                                                     \
        return (status);                                                                                               \
    } while (0)

static int check_request_line(const char *s, const char *e, const char **code, char *detail, size_t detail_len)
{
    if (e > s && e[-1] == '\r')
        e--;
    const char *p = s;
    while (p < e && is_tchar(*p))
        p++;
    if (p == s || p - s > 20 || p >= e || *p != ' ')
        REFUSE(400, "bad-request", "the request line is not METHOD TARGET HTTP/1.1");
    const char *target = ++p;
    while (p < e && *p != ' ' && (unsigned char)*p > ' ' && (unsigned char)*p < 0x7f)
        p++;
    size_t tlen = (size_t)(p - target);
    if (tlen > GATE_MAX_URI)
        REFUSE(414, "uri-too-long", "the request target is %zu bytes; at most %d are read", tlen, GATE_MAX_URI);
    if (tlen == 0 || p >= e || *p != ' ' || (*target != '/' && !(tlen == 1 && *target == '*')))
        REFUSE(400, "bad-request", "the request line is not METHOD TARGET HTTP/1.1");
    p++;
    if ((size_t)(e - p) != 8 || strncmp(p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1')) {
        if ((size_t)(e - p) >= 5 && strncmp(p, "HTTP/", 5) == 0)
            REFUSE(505, "http-version", "only HTTP/1.0 and HTTP/1.1 are served");
        REFUSE(400, "bad-request", "the request line is not METHOD TARGET HTTP/1.1");
    }
    const char *q = memchr(target, '?', tlen);
    /* A %00 would cut the path where it is decoded (/style.css%00.js would serve style.css):
     * refused as a NUL in a query value is. */
    for (const char *c = target; c + 2 < (q ? q : target + tlen); c++)
        if (c[0] == '%' && c[1] == '0' && c[2] == '0')
            REFUSE(400, "bad-path", "the path holds %%00, a NUL character, at byte %zu", (size_t)(c - target));
    if (q) {
        int params = 1;
        for (const char *c = q + 1; c < target + tlen; c++)
            params += *c == '&' || *c == ';';
        if (params > GATE_MAX_PARAMS)
            REFUSE(431, "too-many-parameters", "the query has %d parameters; at most %d are read", params,
                   GATE_MAX_PARAMS);
    }
    return 0;
}

static bool header_is(const char *name, size_t nlen, const char *want)
{
    return nlen == strlen(want) && strncasecmp(name, want, nlen) == 0;
}

/* The value of a header line without the white space around it. */
static void header_value(const char *colon, const char *e, const char **v, size_t *vlen)
{
    const char *a = colon + 1;
    if (e > a && e[-1] == '\r')
        e--;
    while (a < e && (*a == ' ' || *a == '\t'))
        a++;
    while (e > a && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    *v = a;
    *vlen = (size_t)(e - a);
}

/* 0: needs more, 1: whole; else the refusal. *used = bytes of body framing read so far. */
static int check_chunks(const char *s, const char *end, size_t max_body, size_t *used, const char **code,
                        char *detail, size_t detail_len)
{
    const char *p = s;
    size_t total = 0;
    for (;;) {
        const char *e = find_line_end(p, end);
        if (!e) {
            if ((size_t)(end - p) > 64)
                REFUSE(400, "bad-chunk", "a chunk size line is too long");
            return 0;
        }
        const char *h = p;
        size_t size = 0;
        int digits = 0;
        for (; h < e; h++, digits++) {
            char c = *h;
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0)
                break;
            if (digits >= 8)
                REFUSE(413, "body-size", "a chunk is larger than the body limit of %zu bytes", max_body);
            size = size * 16 + (size_t)d;
        }
        if (digits == 0 || (h < e && *h != ';' && *h != '\r' && *h != ' '))
            REFUSE(400, "bad-chunk", "a chunk does not start with its size in hexadecimal");
        total += size;
        if (total > max_body)
            REFUSE(413, "body-size", "the body limit is %zu bytes", max_body);
        p = e + 1;
        if (size == 0) {
            /* Trailers, then an empty line. */
            for (;;) {
                const char *t = find_line_end(p, end);
                if (!t)
                    return 0;
                bool empty = t == p || (t == p + 1 && *p == '\r');
                p = t + 1;
                if (empty) {
                    *used = (size_t)(p - s);
                    return 1;
                }
            }
        }
        if ((size_t)(end - p) < size + 1)
            return 0;
        p += size;
        if (*p == '\r')
            p++;
        if (p >= end)
            return 0;
        if (*p != '\n')
            REFUSE(400, "bad-chunk", "a chunk's data is not followed by a line end");
        p++;
    }
}

int gate_check(const char *buf, size_t n, size_t max_body, size_t *len, const char **code, char *detail,
               size_t detail_len)
{
    const char *s = buf, *end = buf + n;
    /* Empty lines before a request are allowed (RFC 9112, 2.2). */
    while (s < end && (*s == '\r' || *s == '\n'))
        s++;
    const char *line_end = find_line_end(s, end);
    if (!line_end) {
        if ((size_t)(end - s) > GATE_MAX_URI + 32)
            REFUSE(414, "uri-too-long", "the request line is longer than %d bytes", GATE_MAX_URI + 32);
        return 0;
    }
    int st = check_request_line(s, line_end, code, detail, detail_len);
    if (st)
        return st;
    /* Header lines up to the empty one. */
    const char *p = line_end + 1;
    int headers = 0;
    bool chunked = false, have_length = false;
    unsigned long long length = 0;
    for (;;) {
        const char *e = find_line_end(p, end);
        if (!e) {
            if ((size_t)(end - buf) > GATE_MAX_HEAD)
                REFUSE(431, "header-too-large", "the request head is larger than %d bytes", GATE_MAX_HEAD);
            return 0;
        }
        if ((size_t)(e - buf) > GATE_MAX_HEAD)
            REFUSE(431, "header-too-large", "the request head is larger than %d bytes", GATE_MAX_HEAD);
        if (e == p || (e == p + 1 && *p == '\r')) {
            p = e + 1;
            break;
        }
        if (++headers > GATE_MAX_HEADERS)
            REFUSE(431, "header-too-large", "more than %d header lines", GATE_MAX_HEADERS);
        const char *colon = memchr(p, ':', (size_t)(e - p));
        const char *name_end = p;
        while (name_end < e && is_tchar(*name_end))
            name_end++;
        if (!colon || name_end != colon || colon == p)
            REFUSE(400, "bad-header", "a header line is not NAME: VALUE");
        /* libmicrohttpd would cut the value at a NUL and answer as if it were not there. */
        if (memchr(colon, '\0', (size_t)(e - colon)))
            REFUSE(400, "bad-header", "a header value holds a NUL character");
        const char *v;
        size_t vlen;
        header_value(colon, e, &v, &vlen);
        size_t nlen = (size_t)(colon - p);
        if (header_is(p, nlen, "Content-Length")) {
            unsigned long long x = 0;
            bool ok = vlen > 0 && vlen <= 15;
            for (size_t i = 0; ok && i < vlen; i++) {
                ok = v[i] >= '0' && v[i] <= '9';
                x = x * 10 + (unsigned)(v[i] - '0');
            }
            if (!ok)
                REFUSE(400, "bad-content-length", "Content-Length must be a decimal number of bytes");
            if (have_length && x != length)
                REFUSE(400, "bad-content-length", "two different Content-Length headers");
            have_length = true;
            length = x;
        } else if (header_is(p, nlen, "Transfer-Encoding")) {
            if (!(vlen == 7 && strncasecmp(v, "chunked", 7) == 0))
                REFUSE(501, "transfer-encoding", "only Transfer-Encoding: chunked is understood");
            chunked = true;
        }
        p = e + 1;
    }
    if (chunked && have_length)
        REFUSE(400, "bad-content-length", "a request cannot have both Content-Length and Transfer-Encoding");
    if (have_length && length > max_body)
        REFUSE(413, "body-size", "the body limit is %zu bytes", max_body);
    size_t head = (size_t)(p - buf);
    if (chunked) {
        size_t used = 0;
        st = check_chunks(p, end, max_body, &used, code, detail, detail_len);
        if (st == 1)
            *len = head + used;
        else if (st == 0 && (size_t)(end - p) > 2 * max_body + 1024)
            REFUSE(413, "body-size", "the chunked body outgrows the limit of %zu bytes", max_body);
        return st;
    }
    if ((size_t)(end - p) < length)
        return 0;
    *len = head + (size_t)length;
    return 1;
}

/* ---- answering and closing --------------------------------------------------------- */

static const char *reason_phrase(int status)
{
    switch (status) {
    case 400: return "Bad Request";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
    }
}

static const char *error_text(int status)
{
    switch (status) {
    case 408: return "Request timeout.";
    case 413: return "Request body too large.";
    case 414: return "Request too large.";
    case 431: return "Request too large.";
    case 503: return "Server busy.";
    default: return "Bad request.";
    }
}

/* Best effort: the answer is small and the socket's buffer empty. */
static void send_error(gate_t *g, int fd, int status, const char *code, const char *detail)
{
    api_error_t err;
    api_error_set(&err, (unsigned)status, error_text(status), code, "%s", detail);
    char *json = api_error_json(&err);
    const char *body = json ? json : "{\"error\":\"Internal error.\"}";
    char head[512];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
                     "X-Content-Type-Options: nosniff\r\nConnection: close\r\n%s%s%s%sContent-Length: %zu\r\n\r\n",
                     status, reason_phrase(status), status == 503 ? "Retry-After: 1\r\n" : "",
                     g->cfg.cors ? "Access-Control-Allow-Origin: " : "", g->cfg.cors ? g->cfg.cors : "",
                     g->cfg.cors ? "\r\n" : "", strlen(body));
    if (n > 0 && (size_t)n < sizeof head && send(fd, head, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) == n)
        (void)!send(fd, body, strlen(body), MSG_NOSIGNAL | MSG_DONTWAIT);
    free(json);
}

/* Reads and drops whatever has arrived; false once the peer has closed or failed. */
static bool drain(gate_t *g, int fd)
{
    for (;;) {
        ssize_t r = recv(fd, g->buf, g->buf_cap, MSG_DONTWAIT);
        if (r > 0)
            continue;
        return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
    }
}

static void close_held(gate_t *g, held_t *h)
{
    close(h->fd);
    h->used = false;
    release_key(g, h->key);
    pthread_mutex_lock(&g->lock);
    g->stats.held--;
    pthread_mutex_unlock(&g->lock);
}

/* Answers, then lingers a moment reading what the client still sends, so the answer is not
 * lost to a reset. */
static void refuse(gate_t *g, held_t *h, int status, const char *code, const char *detail)
{
    bool open = drain(g, h->fd);
    send_error(g, h->fd, status, code, detail);
    shutdown(h->fd, SHUT_WR);
    if (!open) {
        close_held(g, h);
        return;
    }
    h->closing = true;
    h->deadline = now_ms() + LINGER_MS;
}

/* Whether a complete head asks for "100 Continue" before its body is sent (curl does for
 * bodies over 1 KiB and would otherwise wait a second). */
static bool expects_continue(const char *buf, size_t n)
{
    const char *end = buf + n;
    bool found = false;
    for (const char *p = buf; p < end;) {
        const char *e = find_line_end(p, end);
        if (!e)
            return false; /* the head is not whole yet */
        if (e == p || (e == p + 1 && *p == '\r'))
            return found;
        static const char want[] = "expect:";
        if ((size_t)(e - p) >= sizeof want - 1 && strncasecmp(p, want, sizeof want - 1) == 0) {
            const char *v = p + sizeof want - 1;
            while (v < e && (*v == ' ' || *v == '\t'))
                v++;
            found = (size_t)(e - v) >= 12 && strncasecmp(v, "100-continue", 12) == 0;
        }
        p = e + 1;
    }
    return false;
}

static void examine(gate_t *g, held_t *h, bool hangup)
{
    if (h->closing) {
        if (!drain(g, h->fd))
            close_held(g, h);
        return;
    }
    ssize_t n = recv(h->fd, g->buf, g->buf_cap, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        close_held(g, h);
        return;
    }
    const char *code = "";
    char detail[200];
    size_t len = 0;
    h->bytes = (size_t)n;
    int st = gate_check(g->buf, (size_t)n, g->cfg.max_body, &len, &code, detail, sizeof detail);
    if (st == 0) {
        if (!h->continued && expects_continue(g->buf, (size_t)n)) {
            static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
            h->continued = true;
            (void)!send(h->fd, cont, sizeof cont - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        }
        if ((size_t)n == g->buf_cap)
            refuse(g, h, 413, "body-size", "the request is larger than the server reads");
        else if (hangup)
            close_held(g, h); /* the client stopped sending before its request was whole */
        return;
    }
    if (st != 1) {
        pthread_mutex_lock(&g->lock);
        g->stats.refused_bad++;
        pthread_mutex_unlock(&g->lock);
        refuse(g, h, st, code, detail);
        return;
    }
    epoll_ctl(g->epoll_fd, EPOLL_CTL_DEL, h->fd, NULL);
    h->used = false;
    pthread_mutex_lock(&g->lock);
    g->stats.held--;
    g->stats.handed++;
    pthread_mutex_unlock(&g->lock);
    if (!g->cfg.hand_over(g->cfg.ctx, h->fd, (struct sockaddr *)&h->addr, h->alen))
        release_key(g, h->key);
}

static held_t *free_slot(gate_t *g)
{
    for (int i = 0; i < g->cfg.max_connections; i++)
        if (!g->held[i].used)
            return &g->held[i];
    return NULL;
}

/* The held connection to drop for a new one when the server is full: one already answered
 * and lingering, else the one that has sent the least for the longest time, the lowest
 * (bytes + 1) / age. The byte of credit gives a connection that has just opened the benefit
 * of the doubt (its request is on its way), while one that sent nothing for seconds, or
 * trickles a byte now and then, soon ranks below any client that sends its request. Equal
 * ranks: the oldest. NULL when every connection has been handed over (a search or an
 * answer in progress): those are never dropped. */
static held_t *slowest_held(gate_t *g)
{
    int64_t now = now_ms();
    held_t *best = NULL;
    double best_rate = 0;
    for (int i = 0; i < g->cfg.max_connections; i++) {
        held_t *h = &g->held[i];
        if (!h->used)
            continue;
        if (h->closing)
            return h;
        int64_t age = now - h->opened;
        double rate = ((double)h->bytes + 1.0) / (double)(age > 0 ? age : 1);
        if (!best || rate < best_rate || (rate == best_rate && h->opened < best->opened)) {
            best = h;
            best_rate = rate;
        }
    }
    return best;
}

/* Makes room for a new connection by dropping the slowest held one (503, then closed). */
static void evict_slowest(gate_t *g)
{
    held_t *h = slowest_held(g);
    if (!h)
        return;
    if (!h->closing) {
        char detail[160];
        snprintf(detail, sizeof detail, "the server was full and this connection had sent the least for the "
                                        "longest time");
        send_error(g, h->fd, 503, "dropped-slow", detail);
        pthread_mutex_lock(&g->lock);
        g->stats.evicted++;
        pthread_mutex_unlock(&g->lock);
    }
    epoll_ctl(g->epoll_fd, EPOLL_CTL_DEL, h->fd, NULL);
    close_held(g, h);
}

static void admit(gate_t *g, int fd, const struct sockaddr_storage *addr, socklen_t alen)
{
    uint8_t key[KEY_LEN];
    client_key((const struct sockaddr *)addr, key);
    int refused = 0;
    /* Full: a slow connection gives its place to the new one, unless the new one's address
     * is at its own limit (it would be refused anyway). */
    pthread_mutex_lock(&g->lock);
    const client_t *mine = client_find(g, key, false);
    bool full = g->stats.open >= g->cfg.max_connections && !(mine && mine->count >= g->cfg.max_per_client);
    pthread_mutex_unlock(&g->lock);
    if (full)
        evict_slowest(g);
    pthread_mutex_lock(&g->lock);
    g->stats.accepted++;
    client_t *c = NULL;
    if (g->stats.open >= g->cfg.max_connections)
        refused = 1;
    else if (!(c = client_find(g, key, true)) || c->count >= g->cfg.max_per_client)
        refused = 2;
    if (refused == 1)
        g->stats.refused_busy++;
    else if (refused == 2)
        g->stats.refused_client++;
    else {
        c->count++;
        g->stats.open++;
        g->stats.held++;
    }
    pthread_mutex_unlock(&g->lock);
    if (refused) {
        char detail[160];
        if (refused == 1)
            snprintf(detail, sizeof detail, "the server holds its limit of %d connections; try again later",
                     g->cfg.max_connections);
        else
            snprintf(detail, sizeof detail, "this address holds its limit of %d connections; try again later",
                     g->cfg.max_per_client);
        send_error(g, fd, 503, refused == 1 ? "too-many-connections" : "too-many-per-client", detail);
        shutdown(fd, SHUT_WR);
        close(fd);
        return;
    }
    held_t *h = free_slot(g); /* open < max_connections, so one is free */
    h->fd = fd;
    h->used = true;
    h->closing = false;
    h->continued = false;
    h->opened = now_ms();
    h->bytes = 0;
    h->deadline = h->opened + g->cfg.request_timeout_ms;
    memcpy(h->key, key, KEY_LEN);
    h->addr = *addr;
    h->alen = alen;
    int want = (int)(g->buf_cap + 4096);
    if (want > 65536)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof want);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.ptr = h};
    if (epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        close_held(g, h);
        return;
    }
    examine(g, h, false);
}

static void accept_all(gate_t *g)
{
    for (;;) {
        struct sockaddr_storage addr;
        socklen_t alen = sizeof addr;
        int fd = accept4(g->cfg.listen_fd, (struct sockaddr *)&addr, &alen, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return; /* EAGAIN, or out of descriptors: the next connection tries again */
        }
        admit(g, fd, &addr, alen);
    }
}

static void expire_held(gate_t *g)
{
    int64_t now = now_ms();
    for (int i = 0; i < g->cfg.max_connections; i++) {
        held_t *h = &g->held[i];
        if (!h->used || now < h->deadline)
            continue;
        if (!h->closing) {
            pthread_mutex_lock(&g->lock);
            g->stats.timed_out++;
            pthread_mutex_unlock(&g->lock);
            drain(g, h->fd);
            char detail[120];
            snprintf(detail, sizeof detail, "the request did not arrive whole within %d ms",
                     g->cfg.request_timeout_ms);
            send_error(g, h->fd, 408, "request-timeout", detail);
            shutdown(h->fd, SHUT_WR);
        }
        close_held(g, h);
    }
}

static void *gate_main(void *arg)
{
    gate_t *g = arg;
    struct epoll_event evs[EVENTS_NB];
    int64_t next_tick = now_ms() + TICK_MS;
    while (!atomic_load(&g->stop)) {
        int wait = (int)(next_tick - now_ms());
        int n = epoll_wait(g->epoll_fd, evs, EVENTS_NB, wait < 0 ? 0 : wait);
        for (int i = 0; i < n && !atomic_load(&g->stop); i++) {
            void *tag = evs[i].data.ptr;
            if (tag == &LISTEN_TAG)
                accept_all(g);
            else if (tag != &WAKE_TAG)
                examine(g, tag, (evs[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0);
        }
        if (now_ms() >= next_tick) {
            expire_held(g);
            if (g->cfg.tick)
                g->cfg.tick(g->cfg.ctx);
            next_tick = now_ms() + TICK_MS;
        }
    }
    return NULL;
}

/* ---- start and stop ------------------------------------------------------------------ */

gate_t *gate_start(const gate_config_t *cfg, char *err, size_t errlen)
{
    gate_t *g = calloc(1, sizeof *g);
    if (!g) {
        close(cfg->listen_fd);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    g->cfg = *cfg;
    g->epoll_fd = g->wake_fd = -1;
    atomic_init(&g->stop, false);
    g->buf_cap = GATE_MAX_HEAD + 2 * cfg->max_body + 1024;
    g->held = calloc((size_t)cfg->max_connections, sizeof *g->held);
    g->clients = calloc((size_t)cfg->max_connections, sizeof *g->clients);
    g->buf = malloc(g->buf_cap);
    if (pthread_mutex_init(&g->lock, NULL) != 0) {
        free(g->held);
        free(g->clients);
        free(g->buf);
        close(cfg->listen_fd);
        free(g);
        snprintf(err, errlen, "cannot create a mutex");
        return NULL;
    }
    if (!g->held || !g->clients || !g->buf) {
        snprintf(err, errlen, "out of memory");
        gate_free(g);
        return NULL;
    }
    g->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    g->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.ptr = &LISTEN_TAG};
    struct epoll_event wake = {.events = EPOLLIN, .data.ptr = &WAKE_TAG};
    if (g->epoll_fd < 0 || g->wake_fd < 0 || epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, cfg->listen_fd, &ev) != 0 ||
        epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, g->wake_fd, &wake) != 0) {
        snprintf(err, errlen, "cannot watch the listening socket: %s", strerror(errno));
        gate_free(g);
        return NULL;
    }
    if (cfg->publish)
        *cfg->publish = g; /* callbacks on other threads may need it as soon as connections come */
    int rc = pthread_create(&g->thread, NULL, gate_main, g);
    if (rc != 0) {
        if (cfg->publish)
            *cfg->publish = NULL;
        snprintf(err, errlen, "cannot start the connection thread: %s", strerror(rc));
        gate_free(g);
        return NULL;
    }
    g->started = true;
    return g;
}

void gate_stop(gate_t *g)
{
    if (!g || !g->started)
        return;
    atomic_store(&g->stop, true);
    uint64_t one = 1;
    (void)!write(g->wake_fd, &one, sizeof one);
    pthread_join(g->thread, NULL);
    g->started = false;
    for (int i = 0; i < g->cfg.max_connections; i++)
        if (g->held[i].used)
            close_held(g, &g->held[i]);
    if (g->cfg.listen_fd >= 0)
        close(g->cfg.listen_fd);
    g->cfg.listen_fd = -1;
}

void gate_free(gate_t *g)
{
    if (!g)
        return;
    gate_stop(g);
    if (g->cfg.listen_fd >= 0)
        close(g->cfg.listen_fd);
    if (g->epoll_fd >= 0)
        close(g->epoll_fd);
    if (g->wake_fd >= 0)
        close(g->wake_fd);
    pthread_mutex_destroy(&g->lock);
    free(g->held);
    free(g->clients);
    free(g->buf);
    free(g);
}
