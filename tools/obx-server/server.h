/* The HTTP side of baghchal-server: libmicrohttpd, routing, limits, the pool of engines
 * behind /obx, and the embedded web board. */
#ifndef OBX_SERVER_SERVER_H
#define OBX_SERVER_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *bind;       /* an IPv4 or IPv6 address */
    int port;               /* 0: any free port */
    int64_t movetime_ms;    /* default search time */
    int64_t max_movetime_ms; /* cap on any search */
    int threads;            /* search threads per engine */
    size_t hash_mb;         /* per engine */
    const char *tablebase;  /* NULL: none */
    const char *cors;       /* Access-Control-Allow-Origin value, NULL: no CORS headers */
    size_t max_body;        /* bytes */
    int workers;            /* engines = searches at once */
    int queue_timeout_ms;   /* longest wait for a free engine before 503 */
    int max_queue;          /* searches waiting at most; more get 503 at once */
    int max_connections;    /* open at once, all clients; more are answered 503 and closed */
    int max_per_client;     /* open at once from one address */
    int request_timeout_s;  /* a request must arrive whole within this, or 408 and closed */
    int idle_timeout_s;     /* a stalled connection (after its request) is closed after this */
    const char *web_root;   /* serve the board from this directory instead of the embedded copy */
    bool log;               /* one line per request on stderr */
    /* The room where people play (room/room.h): its database and its rules of play. */
    const char *database;   /* the SQLite file */
    bool durable;           /* every commit on the disk before its answer */
    int lag_ms;             /* each move's time is cut by up to this */
    int gone_s;             /* a player away this long: the opponent may claim the win */
    int first_move_s;       /* no first move within this: the game is aborted */
} server_config_t;

void server_config_defaults(server_config_t *c);

typedef struct server server_t;

/* Starts listening and serving. NULL with a message in err on failure. */
server_t *server_start(const server_config_t *cfg, char *err, size_t errlen);

/* The port actually bound (useful with port 0). */
int server_port(const server_t *s);

/* Stops accepting, answers queued searches with 503, lets running ones finish, closes
 * every connection and frees everything. */
void server_stop(server_t *s);

#endif
