/* The room: where people play each other and the bots. Players and their tokens, the lobby's
 * seeks and challenges, games with the server's clocks, ratings, and the streams of events
 * that carry each change to every client watching, all kept in the store (store.h).
 *
 * The room knows nothing of HTTP: the server hands it each request under /api/ (room_handle)
 * and each event stream (room_subscribe); every move is checked by libbaghchal. An answer that
 * changes what is stored is given only once it is committed, from the store's writer thread,
 * so nothing acknowledged to a client is lost. The API is described in tools/obx-server/ONLINE.md. */
#ifndef ROOM_ROOM_H
#define ROOM_ROOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
    const char *db_path;  /* the SQLite file */
    bool durable;         /* every commit on the disk before its answer (synchronous=FULL) */
    int64_t lag_ms;       /* each move's time is cut by up to this: the network's share */
    int gone_s;           /* a player away this long: the opponent may claim the win */
    int first_move_s;     /* a side that makes no first move within this: the game is aborted */
    int max_challenges;   /* open seeks and challenges of one player at once */
    double actions_per_s; /* actions (POSTs) of one player a second, on average ... */
    int actions_burst;    /* ... and at once */
    double moves_per_s;   /* moves of one player a second (all its games), twice that at once */
    int max_accounts_per_min; /* new accounts from one address a minute */
    int keepalive_s;      /* an empty line (or SSE comment) on every stream this often */
} room_config_t;

void room_config_defaults(room_config_t *c);

typedef struct room room_t;

/* Opens the store (migrating it), loads the players, open challenges and games that go on, and
 * charges no player for the time the server was down (after its last heartbeat). NULL with a
 * one-line reason in err. */
room_t *room_open(const room_config_t *c, char *err, size_t errlen);

/* Stops taking requests (503 from now on), answers every request waiting for the store, and
 * ends every stream (each reads its end at once): the server then closes their connections. */
void room_shutdown(room_t *r);

/* Writes a last heartbeat, waits for the store and frees everything (after room_shutdown and
 * once every stream has been unsubscribed, or without either when nothing was served). */
void room_close(room_t *r);

/* At least every 100 ms, from one thread: the clocks (a flag that falls ends its game), first
 * moves not made, players away, keepalives, the heartbeat. */
void room_tick(room_t *r);

/* ---- requests ---------------------------------------------------------------------- */

typedef struct {
    const char *method;  /* "GET", "POST", "DELETE" */
    const char *path;    /* "/api/..." without the query */
    const char *token;   /* the bearer token (header or cookie), NULL when none */
    const char *body;    /* the request body, NUL-terminated; NULL when none */
    size_t body_len;
    const char *(*query)(void *ctx, const char *key); /* a query parameter, NULL when absent */
    void *query_ctx;
    const char *client;  /* the client's address, for the limits */
} room_request_t;

/* The answer: an HTTP status, a JSON text (heap, the receiver frees it) and, when not NULL, a
 * Set-Cookie value (heap too). Called exactly once, now or later from another thread. */
typedef void (*room_reply_fn)(void *ctx, unsigned status, char *json, char *cookie);

/* Is this path one of the room's (under /api/ and not the engine's /obx API)? */
bool room_owns(const char *path);

void room_handle(room_t *r, const room_request_t *q, room_reply_fn reply, void *ctx);

/* ---- streams ----------------------------------------------------------------------- */

typedef enum { ROOM_NDJSON = 0, ROOM_SSE = 1 } room_format_t;

typedef struct room_sub room_sub_t;

/* Is this GET path a stream (the lobby's, a game's, a player's events)? */
bool room_is_stream(const char *path);

/* Opens a stream: its first events are already queued. wake(ctx) is called (under the room's
 * lock, from any thread) when events arrive for a stream that room_sub_read found empty.
 * NULL with *status and *json (heap) when refused. */
room_sub_t *room_subscribe(room_t *r, const room_request_t *q, room_format_t f, void (*wake)(void *ctx), void *ctx,
                           unsigned *status, char **json);

/* Copies up to max bytes of what is queued. 0 when nothing is: then suspend(ctx) has been
 * called under the room's lock, and wake will be called once something is. -1 when the
 * stream is over (the room closes, or the client was too slow to read: its queue overflowed). */
ssize_t room_sub_read(room_sub_t *s, char *buf, size_t max, void (*suspend)(void *ctx));

/* The client has gone: no wake after this returns. */
void room_unsubscribe(room_sub_t *s);

typedef struct {
    int players, online, seeks, games_live, streams;
    uint64_t moves, events;
} room_stats_t;
void room_stats(room_t *r, room_stats_t *out);

#endif
