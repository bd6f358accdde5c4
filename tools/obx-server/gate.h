/* The front door of baghchal-server: accepts every connection itself, holds it until its
 * whole request has arrived (or a deadline passes), checks the request's framing, answers
 * refusals itself as JSON, and hands sound requests to libmicrohttpd. One client cannot
 * hold more than its share of connections, and no connection can hold a slot for longer
 * than the request deadline while its request trickles in. */
#ifndef OBX_SERVER_GATE_H
#define OBX_SERVER_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

enum {
    GATE_MAX_HEAD = 8192,   /* request line and headers */
    GATE_MAX_URI = 2048,    /* request target; longer is 414 */
    GATE_MAX_PARAMS = 64,   /* query parameters; more is 431 */
    GATE_MAX_HEADERS = 64   /* header lines; more is 431 */
};

typedef struct gate gate_t;

typedef struct {
    int listen_fd;          /* bound and listening; the gate takes it over */
    int max_connections;    /* held + handed over, all clients */
    int max_per_client;     /* the same, per client address */
    int request_timeout_ms; /* the whole request must arrive within this */
    size_t max_body;
    const char *cors;       /* Access-Control-Allow-Origin on refusals, or NULL */
    /* Takes a connection whose whole request is in its socket. False: it was closed. */
    bool (*hand_over)(void *ctx, int fd, const struct sockaddr *addr, socklen_t len);
    void (*tick)(void *ctx); /* called from the gate's thread at least every 100 ms */
    void *ctx;
    gate_t **publish; /* when set, receives the gate before its thread starts */
} gate_config_t;

typedef struct {
    uint64_t accepted, handed, refused_busy, refused_client, refused_bad, timed_out;
    uint64_t evicted; /* held connections dropped to make room for a new one */
    int open, held;
} gate_stats_t;

/* Starts the gate's thread. NULL with a message in err on failure (the listening socket is
 * then closed). */
gate_t *gate_start(const gate_config_t *cfg, char *err, size_t errlen);

/* A handed-over connection from addr has closed: its slot is free again. Any thread. */
void gate_release(gate_t *g, const struct sockaddr *addr);

void gate_stats(gate_t *g, gate_stats_t *out);

/* Stops accepting (the listening socket is closed) and closes every held connection. */
void gate_stop(gate_t *g);
void gate_free(gate_t *g);

/* The gate's judgement of the bytes received so far (exposed for the tests of the server).
 * Returns 0 while more is needed, 1 when the request is whole (its length in *len), or an
 * HTTP status with code and detail filled when it must be refused. */
int gate_check(const char *buf, size_t n, size_t max_body, size_t *len, const char **code, char *detail,
               size_t detail_len);

#endif
