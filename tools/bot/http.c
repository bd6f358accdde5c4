/* The HTTP client: libcurl, one easy handle per request or stream, each used by one thread.
 * Answers are bounded in size; a stream's lines are bounded too (a longer one is skipped). */
#include "bot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "cJSON.h"

enum {
    MAX_BODY = 8 << 20,      /* an answer longer than this is cut (and so is no JSON) */
    MAX_STREAM_LINE = 4 << 20, /* a stream's line longer than this is skipped */
    CONNECT_TIMEOUT_S = 10,
    REQUEST_TIMEOUT_S = 30,
    /* The server writes an empty line every 15 s: a stream quiet for this long is dead. */
    STREAM_SILENCE_S = 50
};

bool http_global_init(char *msg, size_t msglen)
{
    CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK) {
        snprintf(msg, msglen, "cannot start libcurl: %s", curl_easy_strerror(rc));
        return false;
    }
    return true;
}

void http_global_cleanup(void) { curl_global_cleanup(); }

typedef struct {
    char *buf;
    size_t len, cap;
    bool cut, failed;
} body_t;

static size_t on_body(char *data, size_t size, size_t nmemb, void *ctx)
{
    body_t *b = ctx;
    size_t n = size * nmemb;
    if (b->len + n > MAX_BODY) {
        b->cut = true;
        return n; /* read on, keep nothing more */
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *s = realloc(b->buf, cap);
        if (!s) {
            b->failed = true;
            return 0; /* ends the transfer */
        }
        b->buf = s, b->cap = cap;
    }
    memcpy(b->buf + b->len, data, n);
    b->len += n;
    b->buf[b->len] = '\0';
    return n;
}

/* The common headers: the token and JSON. NULL when out of memory. */
static struct curl_slist *headers(const char *token, bool json)
{
    struct curl_slist *h = NULL, *t;
    if (token) {
        size_t n = strlen(token) + 32;
        char *line = malloc(n);
        if (!line)
            return NULL;
        snprintf(line, n, "Authorization: Bearer %s", token);
        t = curl_slist_append(h, line);
        free(line);
        if (!t)
            return NULL;
        h = t;
    }
    t = curl_slist_append(h, json ? "Content-Type: application/json" : "Accept: application/x-ndjson");
    if (!t) {
        curl_slist_free_all(h);
        return NULL;
    }
    return t;
}

static char *join_url(const char *server, const char *path)
{
    size_t n = strlen(server) + strlen(path) + 1;
    char *u = malloc(n);
    if (u)
        snprintf(u, n, "%s%s", server, path);
    return u;
}

bool http_call(const char *server, const char *token, const char *method, const char *path, const char *body,
               http_reply_t *reply)
{
    memset(reply, 0, sizeof *reply);
    body_t b = {0};
    char *url = join_url(server, path);
    CURL *c = curl_easy_init();
    struct curl_slist *h = headers(token, true);
    if (!url || !c || !h) {
        snprintf(reply->err, sizeof reply->err, "out of memory");
        goto done;
    }
    char errbuf[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)CONNECT_TIMEOUT_S);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)REQUEST_TIMEOUT_S);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "baghchal-bot");
    if (!strcmp(method, "POST")) {
        curl_easy_setopt(c, CURLOPT_POST, 1L);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body ? body : "");
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)(body ? strlen(body) : 0));
    } else if (strcmp(method, "GET")) {
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    }
    CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK) {
        snprintf(reply->err, sizeof reply->err, "%s", b.failed ? "out of memory" : errbuf[0] ? errbuf
                                                                                    : curl_easy_strerror(rc));
        goto done;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply->status);
    if (b.cut) {
        free(b.buf);
        b.buf = NULL, b.len = 0;
    }
    reply->body = b.buf;
    reply->len = b.len;
    b.buf = NULL;
done:
    free(b.buf);
    free(url);
    curl_slist_free_all(h);
    if (c)
        curl_easy_cleanup(c);
    return reply->status != 0;
}

void http_reply_free(http_reply_t *r)
{
    free(r->body);
    r->body = NULL;
    r->len = 0;
}

const char *http_reason(const http_reply_t *r, char *buf, size_t len)
{
    if (!r->status) {
        snprintf(buf, len, "%s", r->err[0] ? r->err : "no answer");
        return buf;
    }
    cJSON *j = r->body ? cJSON_Parse(r->body) : NULL;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
    if (cJSON_IsString(e)) {
        snprintf(buf, len, "%ld %.200s", r->status, e->valuestring);
        for (char *p = buf; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
    } else {
        snprintf(buf, len, "HTTP status %ld", r->status);
    }
    cJSON_Delete(j);
    return buf;
}

/* ---- streams ------------------------------------------------------------------------------ */

struct stream {
    CURL *c;
    struct curl_slist *h;
    char *url;
    stream_line_fn on_line;
    void *ctx;
    const atomic_bool *cancel;
    char *buf;
    size_t len, cap;
    bool skipping; /* inside a line too long to keep */
    bool stopped;  /* on_line asked to end */
    bool failed;   /* out of memory */
    bool silent;   /* ended: nothing came for STREAM_SILENCE_S */
    int64_t data_at; /* when the last bytes came (monotonic ms) */
    char errbuf[CURL_ERROR_SIZE];
};

static bool stream_grow(stream_t *s, size_t need)
{
    if (need <= s->cap)
        return true;
    size_t cap = s->cap ? s->cap : 4096;
    while (cap < need)
        cap *= 2;
    char *b = realloc(s->buf, cap);
    if (!b)
        return false;
    s->buf = b, s->cap = cap;
    return true;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t on_stream(char *data, size_t size, size_t nmemb, void *ctx)
{
    stream_t *s = ctx;
    size_t n = size * nmemb;
    if (s->stopped)
        return 0;
    s->data_at = now_ms();
    long status = 0;
    curl_easy_getinfo(s->c, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200)
        return n; /* an error's body: not lines of events */
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(data + i, '\n', n - i);
        size_t k = nl ? (size_t)(nl - (data + i)) : n - i;
        if (!s->skipping) {
            if (s->len + k + 1 > MAX_STREAM_LINE) {
                s->skipping = true;
                s->len = 0;
                log_warn("a line of more than %d bytes from the server skipped", MAX_STREAM_LINE);
            } else {
                if (!stream_grow(s, s->len + k + 1)) {
                    s->failed = true;
                    return 0;
                }
                memcpy(s->buf + s->len, data + i, k);
                s->len += k;
            }
        }
        i += k;
        if (nl) {
            i++;
            if (!s->skipping) {
                s->buf[s->len] = '\0';
                if (s->len && s->buf[s->len - 1] == '\r')
                    s->buf[--s->len] = '\0';
                bool go_on = s->len == 0 || s->on_line(s->ctx, s->buf);
                s->len = 0;
                if (!go_on) {
                    s->stopped = true;
                    return 0;
                }
            }
            s->skipping = false;
            s->len = 0;
        }
    }
    return n;
}

/* Called at least once a second: ends the stream when asked to, or when it has been silent
 * too long. (libcurl's own low-speed limit cannot tell: its unit, a byte a second, is more
 * than the keepalives bring.) */
static int on_progress(void *ctx, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt, (void)dn, (void)ut, (void)un;
    stream_t *s = ctx;
    if (s->cancel && atomic_load(s->cancel))
        return 1;
    if (now_ms() - s->data_at > (int64_t)STREAM_SILENCE_S * 1000) {
        s->silent = true;
        return 1;
    }
    return 0;
}

stream_t *stream_new(const char *server, const char *token, const char *path, stream_line_fn on_line, void *ctx,
                     const atomic_bool *cancel)
{
    stream_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->on_line = on_line, s->ctx = ctx, s->cancel = cancel;
    s->url = join_url(server, path);
    s->c = curl_easy_init();
    s->h = headers(token, false);
    if (!s->url || !s->c || !s->h) {
        stream_free(s);
        return NULL;
    }
    curl_easy_setopt(s->c, CURLOPT_URL, s->url);
    curl_easy_setopt(s->c, CURLOPT_HTTPHEADER, s->h);
    curl_easy_setopt(s->c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(s->c, CURLOPT_CONNECTTIMEOUT, (long)CONNECT_TIMEOUT_S);
    curl_easy_setopt(s->c, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(s->c, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(s->c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(s->c, CURLOPT_XFERINFODATA, s);
    curl_easy_setopt(s->c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(s->c, CURLOPT_ERRORBUFFER, s->errbuf);
    curl_easy_setopt(s->c, CURLOPT_USERAGENT, "baghchal-bot");
    curl_easy_setopt(s->c, CURLOPT_PRIVATE, s);
    return s;
}

void stream_reset(stream_t *s)
{
    s->len = 0;
    s->skipping = s->stopped = s->failed = s->silent = false;
    s->errbuf[0] = '\0';
    s->data_at = now_ms();
}

long stream_run(stream_t *s, char *err, size_t errlen)
{
    stream_reset(s);
    CURLcode rc = curl_easy_perform(s->c);
    long status = stream_status(s);
    stream_describe(s, rc, err, errlen);
    return status;
}

void stream_describe(stream_t *s, int rc, char *err, size_t errlen)
{
    if (s->silent)
        snprintf(err, errlen, "nothing came for %d s", STREAM_SILENCE_S);
    else if (rc != CURLE_OK && !s->stopped)
        snprintf(err, errlen, "%s", s->failed ? "out of memory" : s->errbuf[0] ? s->errbuf : curl_easy_strerror(rc));
    else
        snprintf(err, errlen, "the server ended it");
}

void *stream_easy(stream_t *s) { return s->c; }

long stream_status(stream_t *s)
{
    long status = 0;
    curl_easy_getinfo(s->c, CURLINFO_RESPONSE_CODE, &status);
    return status;
}

void stream_free(stream_t *s)
{
    if (!s)
        return;
    if (s->c)
        curl_easy_cleanup(s->c);
    curl_slist_free_all(s->h);
    free(s->url);
    free(s->buf);
    free(s);
}
