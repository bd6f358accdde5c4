/* baghchal-loadtest: games between people in the room, played by a load generator against a
 * running baghchal-server. It makes 2 x N guests (from many loopback addresses, as many
 * clients would come), pairs them through the lobby (a seek, its acceptance), opens each
 * player's game stream and a spectator's, then plays every game at a fixed pace: each side
 * moves a random legal move (chosen with libbaghchal) a fixed time after the opponent's move
 * reached its stream. It measures the time from a move's POST to its arrival on the opponent's
 * stream and on the spectator's (p50, p99, max), the POST's round trip, the moves a second,
 * and the server's memory and CPU from /proc. A game that ends is followed by its rematch
 * (both players offer it; the sides swap). It counts what should never happen: a move refused
 * (by its status), a rematch refused, and on a stream a gameState the same as the one before it
 * (an event delivered twice) or with fewer plies (out of order). A move's arrival on a stream is
 * its first gameState there with the move's plies (an offer's state has the same plies).
 *
 * Several servers sharing one database: --port P1,P2,... spreads the players over them, player
 * k on the k-th port in turn, so that a game's two players are on different servers (its
 * spectator on the second's); --pid PID1,PID2,... adds their CPU and memory.
 *
 * Usage: baghchal-loadtest --port P[,P2...] --pid PID[,PID2...] [--games N] [--seconds S]
 *                          [--think-ms T] [--spectators 0|1] [--addresses K] */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "baghchal.h"
#include "cJSON.h"

enum { SERVERS_MAX = 8 };
static int ports[SERVERS_MAX] = {8080}, ports_nb = 1;
static int games_nb = 100, seconds = 30, think_ms = 500, spectators = 1, addresses = 200;
static long server_pids[SERVERS_MAX];
static int pids_nb = 0;

static int64_t now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("baghchal-loadtest: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ---- connections ------------------------------------------------------------------------ */

static int connect_from(int addr_index, bool blocking)
{
    int fd = socket(AF_INET, SOCK_STREAM | (blocking ? 0 : SOCK_NONBLOCK) | SOCK_CLOEXEC, 0);
    if (fd < 0)
        die("socket: %s", strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in src = {.sin_family = AF_INET};
    src.sin_addr.s_addr = htonl(0x7F000001u + (uint32_t)(1 + addr_index % addresses) * 256u); /* 127.0.x.1 */
    if (bind(fd, (struct sockaddr *)&src, sizeof src) != 0)
        die("bind: %s", strerror(errno));
    struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons((uint16_t)ports[addr_index % ports_nb])};
    dst.sin_addr.s_addr = htonl(0x7F000001u);
    if (connect(fd, (struct sockaddr *)&dst, sizeof dst) != 0 && errno != EINPROGRESS)
        die("connect: %s", strerror(errno));
    return fd;
}

static size_t format_request(char *buf, size_t len, const char *method, const char *path, const char *token,
                             const char *body, const char *version)
{
    size_t blen = body ? strlen(body) : 0;
    int n = snprintf(buf, len, "%s %s HTTP/%s\r\nHost: 127.0.0.1\r\n%s%s%sContent-Length: %zu\r\n\r\n%s", method, path,
                     version, token ? "Authorization: Bearer " : "", token ? token : "", token ? "\r\n" : "", blen,
                     body ? body : "");
    return (size_t)n;
}

/* A blocking call for the setup: status, and the body in out. */
static int call(int who, const char *method, const char *path, const char *token, const char *body, char *out,
                size_t outlen)
{
    int fd = connect_from(who, true);
    char req[2048];
    size_t n = format_request(req, sizeof req, method, path, token, body, "1.1");
    if (write(fd, req, n) != (ssize_t)n)
        die("write: %s", strerror(errno));
    char buf[65536];
    size_t got = 0;
    ssize_t k;
    while (got + 1 < sizeof buf && (k = read(fd, buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)k;
    close(fd);
    buf[got] = '\0';
    int status = 0;
    sscanf(buf, "HTTP/1.%*d %d", &status);
    const char *b = strstr(buf, "\r\n\r\n");
    snprintf(out, outlen, "%s", b ? b + 4 : "");
    return status;
}

static char *json_str(const char *text, const char *key, char *out, size_t len)
{
    cJSON *j = cJSON_Parse(text);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    if (!cJSON_IsString(v))
        die("no \"%s\" in %.300s", key, text);
    snprintf(out, len, "%s", v->valuestring);
    cJSON_Delete(j);
    return out;
}

/* ---- games ----------------------------------------------------------------------------- */

typedef struct conn conn_t;

typedef struct {
    int index;
    char id[32];
    char token[2][80]; /* GOATS, TIGERS */
    int who[2];        /* address indexes */
    game_t game;
    int plies;          /* moves known to be played (from the streams) */
    int64_t sent_us;    /* when the last move's POST was sent */
    int sent_ply;       /* the ply that move made (plies after it), 0: none in flight */
    int64_t move_at_us; /* when the side to move moves next; 0: waiting */
    bool posting, over;
    int rematching;     /* rematch offers in flight (0 to 2) */
    int64_t rematch_at_us; /* a refused offer is made again from then on */
    char next_id[32];   /* the rematch's game, once an answer names it */
    conn_t *streams[3]; /* goats, tigers, spectator */
} match_t;

typedef enum { C_STREAM, C_POST, C_REMATCH } kind_t;

struct conn {
    kind_t kind;
    int fd;
    match_t *m;
    int role; /* a stream: GOATS, TIGERS or 2 (spectator) */
    char out[1024];
    size_t out_len, out_off;
    char *in;
    size_t in_len, in_cap;
    bool headers_done;
    int64_t started_us;
    int ply; /* a POST: the ply its move makes */
    int seen; /* a stream: the plies of the last gameState on it (-1: none yet) */
    uint64_t seen_hash; /* and that event's text's hash */
};

static int ep;
static match_t *matches;
static uint64_t *lat_opp, *lat_spec, *lat_post;
static size_t n_opp, n_spec, n_post, cap_lat;
static uint64_t moves_done, errors, games_ended, stream_ends;
/* What a stream should never show: a gameState with the plies of the one before it (the same
 * move twice), or with fewer (out of order); and the moves refused, by their status. */
static uint64_t repeated, backwards, refused[6], rematches_refused;
static bool measuring;

static void sample(uint64_t **arr, size_t *n, int64_t us)
{
    if (!measuring)
        return;
    if (*n == cap_lat) {
        cap_lat = cap_lat ? cap_lat * 2 : 1 << 16;
        lat_opp = realloc(lat_opp, cap_lat * sizeof *lat_opp);
        lat_spec = realloc(lat_spec, cap_lat * sizeof *lat_spec);
        lat_post = realloc(lat_post, cap_lat * sizeof *lat_post);
        if (!lat_opp || !lat_spec || !lat_post)
            die("out of memory");
    }
    (*arr)[(*n)++] = (uint64_t)us;
}

static void watch(conn_t *c, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.ptr = c};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) != 0)
        die("epoll_ctl: %s", strerror(errno));
}

static conn_t *open_conn(kind_t kind, match_t *m, int role, int who, const char *method, const char *path,
                         const char *token)
{
    conn_t *c = calloc(1, sizeof *c);
    if (!c)
        die("out of memory");
    c->kind = kind, c->m = m, c->role = role, c->seen = -1;
    c->fd = connect_from(who, false);
    /* HTTP/1.0: the stream comes as it is, no chunks; the answer ends with the connection. */
    c->out_len = format_request(c->out, sizeof c->out, method, path, token, NULL, "1.0");
    c->started_us = now_us();
    watch(c, EPOLLOUT | EPOLLIN | EPOLLRDHUP);
    return c;
}

static void close_conn(conn_t *c)
{
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c->in);
    free(c);
}

static void new_game(match_t *m);
static void start_game(match_t *m);

static void open_streams(match_t *m)
{
    char path[128];
    snprintf(path, sizeof path, "/api/game/%s/stream", m->id);
    for (int r = 0; r < 2 + spectators; r++)
        m->streams[r] = open_conn(C_STREAM, m, r, r < 2 ? m->who[r] : m->who[0] + 1, "GET", path,
                                  r < 2 ? m->token[r] : NULL);
}

/* A move's event: the opponent's and the spectator's streams measure; the game goes on. hash:
 * the event's text's (0: the state in a gameFull). */
static void on_state(conn_t *c, const cJSON *j, uint64_t hash)
{
    match_t *m = c->m;
    const cJSON *plies = cJSON_GetObjectItemCaseSensitive(j, "plies");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(j, "status");
    if (!cJSON_IsNumber(plies))
        return;
    int p = plies->valueint;
    int64_t t = now_us();
    if (measuring && hash && hash == c->seen_hash)
        repeated++;
    if (measuring && p < c->seen)
        backwards++;
    bool first = p != c->seen;
    c->seen = p, c->seen_hash = hash;
    if (first && m->sent_ply && p == m->sent_ply) {
        int mover = (p - 1) % 2 == 0 ? GOATS : TIGERS; /* goats move first */
        if (c->role == 2)
            sample(&lat_spec, &n_spec, t - m->sent_us);
        else if (c->role != mover)
            sample(&lat_opp, &n_opp, t - m->sent_us);
    }
    if (c->role != 2 && p > m->plies) {
        /* The first stream to see it brings the game up to date. */
        const cJSON *moves = cJSON_GetObjectItemCaseSensitive(j, "moves");
        if (cJSON_IsString(moves)) {
            const char *s = moves->valuestring;
            int k = 0;
            while (*s) {
                size_t n = strcspn(s, " ");
                if (k >= m->plies) {
                    char w[16];
                    snprintf(w, sizeof w, "%.*s", (int)n, s);
                    if (game_play_text(&m->game, w, NULL, 0) != BC_OK)
                        die("game %s: the server's move %s is not legal here", m->id, w);
                }
                k++;
                s += n;
                while (*s == ' ')
                    s++;
            }
            m->plies = k;
        }
    }
    if (cJSON_IsString(status) && strcmp(status->valuestring, "started") != 0) {
        if (!m->over) {
            m->over = true;
            games_ended++;
        }
        return;
    }
    if (c->role != 2 && p == m->plies && game_position(&m->game)->side == c->role && !m->move_at_us)
        m->move_at_us = t + (int64_t)think_ms * 1000;
}

static void on_line(conn_t *c, char *line)
{
    if (!*line)
        return;
    cJSON *j = cJSON_Parse(line);
    if (!j) {
        errors++;
        return;
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(j, "type");
    if (cJSON_IsString(type)) {
        if (!strcmp(type->valuestring, "gameState")) {
            uint64_t h = 1469598103934665603ull; /* FNV-1a */
            for (const unsigned char *s = (const unsigned char *)line; *s; s++)
                h = (h ^ *s) * 1099511628211ull;
            on_state(c, j, h | 1);
        } else if (!strcmp(type->valuestring, "gameFull")) {
            on_state(c, cJSON_GetObjectItemCaseSensitive(j, "state"), 0);
        }
    }
    cJSON_Delete(j);
}

static void post_move(match_t *m)
{
    move_t moves[MAX_MOVES];
    int n = game_legal_moves(&m->game, moves);
    if (n == 0)
        return;
    char text[MOVE_TEXT_LEN], path[160];
    move_format(moves[rand() % n], text);
    int side = game_position(&m->game)->side;
    snprintf(path, sizeof path, "/api/board/game/%s/move/%s?ply=%d", m->id, text, m->plies);
    conn_t *c = open_conn(C_POST, m, side, m->who[side], "POST", path, m->token[side]);
    c->ply = m->plies + 1;
    m->posting = true;
    m->sent_us = c->started_us;
    m->sent_ply = m->plies + 1;
    m->move_at_us = 0;
}

static void on_post_done(conn_t *c)
{
    match_t *m = c->m;
    int status = 0;
    if (c->in)
        sscanf(c->in, "HTTP/1.%*d %d", &status);
    m->posting = false;
    if (status == 200) {
        sample(&lat_post, &n_post, now_us() - c->started_us);
        if (measuring)
            moves_done++;
    } else {
        refused[status == 409 ? 0 : status == 503 ? 1 : status == 429 ? 2 : status == 400 ? 3 : status == 0 ? 4 : 5]++;
        errors++;
        if (errors < 10)
            fprintf(stderr, "move refused (%d): %.200s\n", status, c->in ? c->in : "");
    }
}

/* A rematch offer's answer: the second one names the new game. */
static void on_rematch_done(conn_t *c)
{
    match_t *m = c->m;
    m->rematching--;
    int status = 0;
    if (c->in)
        sscanf(c->in, "HTTP/1.%*d %d", &status);
    if (status != 200) {
        /* Offered again half a second later. */
        rematches_refused++;
        errors++;
        m->rematch_at_us = now_us() + 500000;
        if (errors < 10)
            fprintf(stderr, "rematch refused (%d): %.200s\n", status, c->in ? c->in : "");
    }
    const char *b = c->in ? strstr(c->in, "\r\n\r\n") : NULL;
    cJSON *j = b ? cJSON_Parse(b + 4) : NULL;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(j, "game");
    if (cJSON_IsString(g))
        snprintf(m->next_id, sizeof m->next_id, "%s", g->valuestring);
    cJSON_Delete(j);
}

static void readable(conn_t *c)
{
    char buf[16384];
    for (;;) {
        ssize_t k = read(c->fd, buf, sizeof buf);
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (k <= 0) {
            if (c->kind == C_POST) {
                on_post_done(c);
            } else if (c->kind == C_REMATCH) {
                on_rematch_done(c);
            } else {
                stream_ends++;
                for (int r = 0; r < 3; r++)
                    if (c->m->streams[r] == c)
                        c->m->streams[r] = NULL;
            }
            close_conn(c);
            return;
        }
        if (c->in_len + (size_t)k + 1 > c->in_cap) {
            c->in_cap = (c->in_len + (size_t)k + 1) * 2;
            c->in = realloc(c->in, c->in_cap);
            if (!c->in)
                die("out of memory");
        }
        memcpy(c->in + c->in_len, buf, (size_t)k);
        c->in_len += (size_t)k;
        c->in[c->in_len] = '\0';
        if (c->kind != C_STREAM)
            continue;
        size_t at = 0;
        if (!c->headers_done) {
            char *h = strstr(c->in, "\r\n\r\n");
            if (!h)
                continue;
            c->headers_done = true;
            at = (size_t)(h + 4 - c->in);
        }
        for (;;) {
            char *nl = memchr(c->in + at, '\n', c->in_len - at);
            if (!nl)
                break;
            *nl = '\0';
            on_line(c, c->in + at);
            at = (size_t)(nl + 1 - c->in);
        }
        memmove(c->in, c->in + at, c->in_len - at);
        c->in_len -= at;
        c->in[c->in_len] = '\0';
    }
}

static void writable(conn_t *c)
{
    while (c->out_off < c->out_len) {
        ssize_t k = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);
        if (k < 0) {
            if (errno == EAGAIN)
                return;
            errors++;
            return;
        }
        c->out_off += (size_t)k;
    }
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = c};
    epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
}

/* A new game between the pair: a seek by the first, accepted by the second (blocking: a few
 * ms on loopback). */
static void new_game(match_t *m)
{
    char out[8192], id[64];
    int st = call(m->who[0], "POST", "/api/seek", m->token[0], "{\"side\":\"goats\",\"clock\":null}", out, sizeof out);
    if (st != 201)
        die("seek: %d %.300s", st, out);
    json_str(out, "id", id, sizeof id);
    char path[128];
    snprintf(path, sizeof path, "/api/seek/%s/accept", id);
    st = call(m->who[1], "POST", path, m->token[1], NULL, out, sizeof out);
    if (st != 200)
        die("accept: %d %.300s", st, out);
    json_str(out, "game", m->id, sizeof m->id);
    start_game(m);
}

/* The game m->id from its start: the rules' copy, and the three streams. */
static void start_game(match_t *m)
{
    game_free(&m->game);
    position_t start;
    position_set_start(&start);
    if (!game_init(&m->game, &start, NULL, REP_FORBID))
        die("out of memory");
    m->plies = 0, m->sent_ply = 0, m->posting = false, m->over = false, m->move_at_us = 0;
    open_streams(m);
}

/* ---- the server's figures ------------------------------------------------------------------ */

static bool proc_figures_of(long server_pid, double *cpu_s, long *rss_kb)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%ld/stat", server_pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    unsigned long ut = 0, stt = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &stt) != 2)
        return false;
    *cpu_s = (double)(ut + stt) / (double)sysconf(_SC_CLK_TCK);
    snprintf(path, sizeof path, "/proc/%ld/status", server_pid);
    f = fopen(path, "r");
    *rss_kb = 0;
    while (f && fgets(buf, sizeof buf, f))
        if (!strncmp(buf, "VmRSS:", 6))
            *rss_kb = atol(buf + 6);
    if (f)
        fclose(f);
    return true;
}

/* Every server's CPU time and memory, added. */
static bool proc_figures(double *cpu_s, long *rss_kb)
{
    *cpu_s = 0, *rss_kb = 0;
    for (int i = 0; i < pids_nb; i++) {
        double c;
        long r;
        if (!proc_figures_of(server_pids[i], &c, &r))
            return false;
        *cpu_s += c, *rss_kb += r;
    }
    return pids_nb > 0;
}

/* A comma-separated list of numbers into out (at most SERVERS_MAX); how many, 0 when bad. */
static int number_list(const char *v, long *out)
{
    int n = 0;
    for (const char *p = v; *p && n < SERVERS_MAX;) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p || (*end && *end != ','))
            return 0;
        out[n++] = x;
        p = *end ? end + 1 : end;
    }
    return n;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *what, uint64_t *a, size_t n)
{
    if (!n) {
        printf("%-36s no samples\n", what);
        return;
    }
    qsort(a, n, sizeof *a, cmp_u64);
    printf("%-36s %8zu samples: p50 %6.2f ms, p99 %6.2f ms, max %7.2f ms\n", what, n, a[n / 2] / 1000.0,
           a[(size_t)((double)n * 0.99)] / 1000.0, a[n - 1] / 1000.0);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long x = v ? strtol(v, NULL, 10) : -1;
        if (!v)
            die("%s needs a value (see the file's head for the usage)", a);
        long list[SERVERS_MAX];
        if (!strcmp(a, "--port")) {
            ports_nb = number_list(v, list);
            for (int k = 0; k < ports_nb; k++)
                ports[k] = list[k] > 0 && list[k] <= 65535 ? (int)list[k] : 0;
        } else if (!strcmp(a, "--pid")) {
            pids_nb = number_list(v, server_pids);
            if (!pids_nb)
                die("--pid takes PID[,PID...]");
        }
        else if (!strcmp(a, "--games"))
            games_nb = (int)x;
        else if (!strcmp(a, "--seconds"))
            seconds = (int)x;
        else if (!strcmp(a, "--think-ms"))
            think_ms = (int)x;
        else if (!strcmp(a, "--spectators"))
            spectators = (int)x;
        else if (!strcmp(a, "--addresses"))
            addresses = (int)x;
        else
            die("unknown option %s", a);
        i++;
    }
    bool ports_ok = ports_nb > 0;
    for (int k = 0; k < ports_nb; k++)
        ports_ok = ports_ok && ports[k] > 0;
    if (!ports_ok || games_nb < 1 || games_nb > 100000 || seconds < 1 || think_ms < 0 ||
        (spectators != 0 && spectators != 1) || addresses < 1 || addresses > 250)
        die("an option is out of range (--port 1..65535[,...] (at most 8), --games 1..100000, --seconds 1.., --think-ms 0.., "
            "--spectators 0|1, --addresses 1..250)");
    srand(1);
    struct rlimit rl;
    rlim_t need = (rlim_t)games_nb * 4 + 256;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    ep = epoll_create1(EPOLL_CLOEXEC);
    matches = calloc((size_t)games_nb, sizeof *matches);
    if (!matches || ep < 0)
        die("out of memory");
    int64_t t0 = now_us();
    char out[8192];
    for (int g = 0; g < games_nb; g++) {
        match_t *m = &matches[g];
        m->index = g;
        for (int s = 0; s < 2; s++) {
            m->who[s] = 2 * g + s;
            int st = call(m->who[s], "POST", "/api/account/anonymous", NULL, NULL, out, sizeof out);
            if (st != 200)
                die("account %d: %d %.300s", 2 * g + s, st, out);
            json_str(out, "token", m->token[s], sizeof m->token[s]);
        }
        new_game(m);
    }
    printf("%d games set up (%d players, %d streams) in %.1f s\n", games_nb, 2 * games_nb,
           games_nb * (2 + spectators), (double)(now_us() - t0) / 1e6);
    fflush(stdout);
    /* A few seconds to settle, then the measured window. */
    int64_t warm_end = now_us() + 3000000, end = warm_end + (int64_t)seconds * 1000000;
    double cpu0 = 0, cpu1 = 0;
    long rss = 0, rss_max = 0;
    int64_t last_sample = 0, last_scan = 0;
    struct epoll_event evs[512];
    for (;;) {
        int64_t t = now_us();
        if (!measuring && t >= warm_end) {
            measuring = true;
            proc_figures(&cpu0, &rss);
        }
        if (t >= end)
            break;
        if (measuring && t - last_sample > 1000000) {
            last_sample = t;
            if (proc_figures(&cpu1, &rss) && rss > rss_max)
                rss_max = rss;
        }
        /* The games' next moves, every 2 ms (not at every event: a thousand games a pass). */
        bool scan = t - last_scan >= 2000;
        if (scan)
            last_scan = t;
        for (int g = 0; scan && g < games_nb; g++) {
            match_t *m = &matches[g];
            if (m->over && !m->posting && !m->rematching && !m->next_id[0] && t >= m->rematch_at_us) {
                /* Both offer a rematch (sides swapped): the second answer names the new game. */
                char path[128];
                snprintf(path, sizeof path, "/api/board/game/%s/rematch/yes", m->id);
                for (int s = 0; s < 2; s++)
                    open_conn(C_REMATCH, m, s, m->who[s], "POST", path, m->token[s]);
                m->rematching = 2;
            } else if (m->over && !m->rematching && m->next_id[0]) {
                for (int r = 0; r < 3; r++)
                    if (m->streams[r]) {
                        close_conn(m->streams[r]);
                        m->streams[r] = NULL;
                    }
                /* The sides swap: the tokens and addresses too. */
                char tok[80];
                snprintf(tok, sizeof tok, "%s", m->token[0]);
                snprintf(m->token[0], sizeof m->token[0], "%s", m->token[1]);
                snprintf(m->token[1], sizeof m->token[1], "%s", tok);
                int w = m->who[0];
                m->who[0] = m->who[1], m->who[1] = w;
                snprintf(m->id, sizeof m->id, "%s", m->next_id);
                m->next_id[0] = '\0';
                start_game(m);
            } else if (m->move_at_us && t >= m->move_at_us && !m->posting) {
                post_move(m);
            }
        }
        int n = epoll_wait(ep, evs, 512, 2);
        for (int i = 0; i < n; i++) {
            conn_t *c = evs[i].data.ptr;
            if (evs[i].events & EPOLLOUT)
                writable(c);
            if (evs[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
                readable(c);
        }
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double own = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                 ru.ru_stime.tv_usec / 1e6;
    proc_figures(&cpu1, &rss);
    if (rss > rss_max)
        rss_max = rss;
    printf("%d games at once, %d streams, a move every %d ms a side after the opponent's, %d s measured\n", games_nb,
           games_nb * (2 + spectators), think_ms, seconds);
    printf("moves %llu (%.0f a second), games ended and restarted %llu, errors %llu, streams ended %llu\n",
           (unsigned long long)moves_done, (double)moves_done / seconds, (unsigned long long)games_ended,
           (unsigned long long)errors, (unsigned long long)stream_ends);
    printf("moves refused: %llu 409, %llu 503, %llu 429, %llu 400, %llu unanswered, %llu other; rematches refused %llu; "
           "on a stream, an event twice %llu, a ply before the last %llu\n",
           (unsigned long long)refused[0], (unsigned long long)refused[1], (unsigned long long)refused[2],
           (unsigned long long)refused[3], (unsigned long long)refused[4], (unsigned long long)refused[5],
           (unsigned long long)rematches_refused, (unsigned long long)repeated, (unsigned long long)backwards);
    report("move POST to the opponent's stream", lat_opp, n_opp);
    report("move POST to the spectator's stream", lat_spec, n_spec);
    report("move POST to its answer", lat_post, n_post);
    printf("load generator: CPU %.1f s in all (setup included)\n", own);
    if (pids_nb)
        printf("%s: CPU %.1f s in %d s (%.0f%% of one core), RSS %.1f MB at most\n",
               pids_nb > 1 ? "servers, added" : "server", cpu1 - cpu0, seconds, 100.0 * (cpu1 - cpu0) / seconds,
               rss_max / 1024.0);
    return errors ? 1 : 0;
}
