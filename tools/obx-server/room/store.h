/* The room's storage: players, their sign-in tokens and ratings, challenges (seeks, links to a
 * friend, challenges to a player or bot) and games, in one SQLite file under the data folder
 * (store_sqlite.c) or in PostgreSQL (store_pg.c). One narrow interface: the room does not know
 * which database stands behind it.
 *
 * Reads are synchronous (the room loads what is live at start, and looks up finished games
 * and names on demand). Writes are queued and done by one writer thread, in the order they
 * were queued, many to a transaction (group commit); each write's callback is called, on the
 * writer thread, once its transaction is committed (ok true) or has failed (ok false). So a
 * caller that answers its client from the callback never acknowledges what is not stored.
 *
 * Schema migrations are versioned (SQLite: PRAGMA user_version; PostgreSQL: the table
 * schema_version): an older file is upgraded at open, in one transaction; a newer one is
 * refused with a message naming both versions. */
#ifndef ROOM_STORE_H
#define ROOM_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "glicko.h"

enum {
    STORE_SCHEMA_VERSION = 1,
    STORE_ID_LEN = 16,      /* ids: up to 15 characters, [A-Za-z0-9] */
    STORE_NAME_LEN = 32,    /* names: up to 31 bytes */
    STORE_HASH_LEN = 128,   /* a password's hash (libsodium's crypto_pwhash_str), NUL included */
    STORE_TOKEN_HASH_LEN = 65, /* a token's hash, 64 hex digits */
    STORE_OBX_LEN = 96,
    STORE_STATUS_LEN = 16,
    STORE_CLASS_LEN = 16
};

typedef enum { STORE_ANON = 0, STORE_NAMED = 1, STORE_BOT = 2 } store_kind_t;

typedef struct {
    char id[STORE_ID_LEN];
    char name[STORE_NAME_LEN];
    store_kind_t kind;
    char pw_hash[STORE_HASH_LEN]; /* "" for anonymous players */
    int64_t created_ms;           /* wall clock, ms since 1970 */
} store_player_t;

typedef struct {
    char player[STORE_ID_LEN];
    char cls[STORE_CLASS_LEN]; /* the time-control class: "bullet", "blitz", ... */
    glicko_t g;
} store_rating_t;

typedef enum { STORE_SIDE_RANDOM = 0, STORE_SIDE_GOATS = 1, STORE_SIDE_TIGERS = 2 } store_side_t;

/* A challenge: a seek in the lobby (to "" and listed), a link for a friend (to "", not listed)
 * or a challenge to one player or bot (to their id). Only open ones are kept: an accepted,
 * cancelled or declined challenge is deleted. */
typedef struct {
    char id[STORE_ID_LEN];
    char from[STORE_ID_LEN];
    char to[STORE_ID_LEN];
    bool listed;
    store_side_t side;          /* the side the challenger wants */
    int64_t initial_ms;         /* -1: no clock */
    int64_t increment_ms;
    int rule;                   /* 0 forbid, 1 draw (rep_rule_t) */
    bool rated;
    int64_t created_ms;
} store_challenge_t;

/* A game. moves is a heap string owned by the struct (store_game_free), move texts separated
 * by one space ("C3 A1B1 C4"), "" before the first move. */
typedef struct {
    char id[STORE_ID_LEN];
    char goats[STORE_ID_LEN], tigers[STORE_ID_LEN]; /* player ids */
    int rule;                   /* 0 forbid, 1 draw */
    int64_t initial_ms;         /* -1: no clock */
    int64_t increment_ms;
    bool rated;
    char cls[STORE_CLASS_LEN];  /* the rating class */
    char start_obx[STORE_OBX_LEN];
    char *moves;
    int plies;                  /* moves in moves */
    char status[STORE_STATUS_LEN]; /* "started", "resign", "outoftime", ... */
    int winner;                 /* 0 none, 1 goats, 2 tigers */
    int64_t goats_ms, tigers_ms; /* the clocks when the side to move's turn began */
    int64_t turn_started_ms;    /* wall clock at that moment */
    int64_t created_ms, ended_ms; /* ended_ms 0 while it goes on */
    int goats_rating_diff, tigers_rating_diff; /* once rated and ended */
    char rematch_of[STORE_ID_LEN]; /* "" when none */
} store_game_t;

typedef struct store store_t;

/* Opens (creating) the file, migrates it to STORE_SCHEMA_VERSION, starts the writer. durable:
 * every commit is on the disk when its callbacks run (synchronous=FULL); otherwise WAL with
 * synchronous=NORMAL (a committed transaction survives the process's death, not the
 * machine's). NULL with a one-line reason in err: the file cannot be opened or created, is not
 * a database, or is of a newer schema ("... has schema version 3; this server knows up to 1:
 * use a newer baghchal-server").
 * A path that starts with postgresql:// or postgres:// is a PostgreSQL database (libpq's URL),
 * its version in the table schema_version; durable is synchronous_commit on, else off. */
store_t *store_open(const char *path, bool durable, char *err, size_t errlen);

/* Waits for every queued write, stops the writer, closes the file. */
void store_close(store_t *s);

/* The schema version the file had when opened (0: a new file), before any migration. */
int store_opened_version(const store_t *s);

/* ---- reads (any thread; each takes the reading connection's lock) ------------------- */

/* Calls fn for every player / rating / open challenge / game not ended (ended_ms == 0).
 * Returns false (a reason in err) when the query fails. The structs passed are only valid
 * during the call (copy what you keep; fn may take a game's moves: it sets g->moves to NULL). */
bool store_each_player(store_t *s, void (*fn)(void *ctx, const store_player_t *p), void *ctx, char *err, size_t errlen);
bool store_each_rating(store_t *s, void (*fn)(void *ctx, const store_rating_t *r), void *ctx, char *err, size_t errlen);
bool store_each_challenge(store_t *s, void (*fn)(void *ctx, const store_challenge_t *c), void *ctx, char *err,
                          size_t errlen);
bool store_each_live_game(store_t *s, void (*fn)(void *ctx, store_game_t *g), void *ctx, char *err, size_t errlen);

/* The same games, each with whether a server holds it now (store_own_game's hold, by any store
 * on the database, this one included): one query however many there are, for the search for
 * games whose server is gone. SQLite: never held. */
bool store_each_live_game_held(store_t *s, void (*fn)(void *ctx, store_game_t *g, bool held), void *ctx, char *err,
                               size_t errlen);

/* One game by id, finished or not: 1 found (*out filled, free it with store_game_free), 0 no
 * such game, -1 error (err). */
int store_get_game(store_t *s, const char *id, store_game_t *out, char *err, size_t errlen);

/* The ended games of a player, newest first, at most max (ids into ids[][STORE_ID_LEN]);
 * returns how many, -1 on error. */
int store_player_games(store_t *s, const char *player, char (*ids)[STORE_ID_LEN], int max, char *err, size_t errlen);

/* One player by id, with up to max of its ratings in ratings (*nratings of them): 1 found,
 * 0 no such player, -1 error (err). For a player another server made. */
int store_get_player(store_t *s, const char *id, store_player_t *out, store_rating_t *ratings, int max, int *nratings,
                     char *err, size_t errlen);

/* The named player or bot of a name, whatever its ASCII case: 1 found (id copied), 0 none,
 * -1 error. */
int store_find_name(store_t *s, const char *name, char player[STORE_ID_LEN], char *err, size_t errlen);

/* One open challenge by id: 1 found, 0 none (taken, cancelled or never made), -1 error. */
int store_get_challenge(store_t *s, const char *id, store_challenge_t *out, char *err, size_t errlen);

/* The player a token's hash belongs to: 1 found (id copied), 0 none, -1 error. */
int store_find_token(store_t *s, const char *token_hash, char player[STORE_ID_LEN], char *err, size_t errlen);

/* The wall clock of the last heartbeat written (store_heartbeat), 0 when none. */
int64_t store_last_heartbeat(store_t *s);

/* Which server keeps a game's clock, among the servers sharing a database (PostgreSQL: a
 * session advisory lock on the game's id, held by the reading connection, so that it ends
 * with the server's process or its connection). 1 this store holds the game now (taken, or
 * held already: take a game once), 0 another server holds it, -1 error. SQLite: 1. */
int store_own_game(store_t *s, const char *id);
/* Lets a game go (it ended and is no longer kept). */
void store_disown_game(store_t *s, const char *id);
/* Changes whenever the holds may have been lost (the connection holding them was made again);
 * then each game should be taken again. Always 0 on SQLite. */
unsigned store_holds_epoch(store_t *s);

/* ---- writes (any thread; queued, done in order by the writer thread) -------------- */

/* Called on the writer thread once the write's transaction is committed (ok) or failed. */
typedef void (*store_done_fn)(void *ctx, bool ok);

/* Each copies what it is given before returning; done may be NULL. False only when the
 * store is closing or out of memory (then done is never called). */
bool store_put_player(store_t *s, const store_player_t *p, store_done_fn done, void *ctx);
bool store_put_rating(store_t *s, const store_rating_t *r, store_done_fn done, void *ctx);
bool store_put_token(store_t *s, const char *token_hash, const char *player, int64_t created_ms, store_done_fn done,
                     void *ctx);
bool store_put_challenge(store_t *s, const store_challenge_t *c, store_done_fn done, void *ctx);
bool store_delete_challenge(store_t *s, const char *id, store_done_fn done, void *ctx);
/* Inserts or replaces the whole game row. */
bool store_put_game(store_t *s, const store_game_t *g, store_done_fn done, void *ctx);
/* Starts a game from an open challenge (a seek, a link, a challenge to a player) in one step
 * that only one of the servers sharing the database can win: the challenge's row is deleted
 * and the game's inserted together, or neither when the challenge's row is no longer there
 * (taken through another server, or cancelled). Then done's ok is false and *gone (gone may be
 * NULL) is set to true before done is called; on any other outcome it is set to false. */
bool store_start_game(store_t *s, const store_game_t *g, const char *challenge, bool *gone, store_done_fn done,
                      void *ctx);
/* Records that the server is alive at now_ms (wall clock): after a stop, the room charges no
 * player for the time after the last heartbeat. */
bool store_heartbeat(store_t *s, int64_t now_ms, store_done_fn done, void *ctx);

/* ---- other servers on the same database ----------------------------------------- */

enum { STORE_NOTE_MAX = 7000 }; /* a message's bytes at most (PostgreSQL's NOTIFY takes 8000) */

/* Queues a message to every other process listening on the database, sent with the writes
 * queued before it (PostgreSQL's NOTIFY: delivered once committed, in the order of commits).
 * On SQLite nobody else listens: done is called with ok. False when the store is closing, out
 * of memory, or the text is longer than STORE_NOTE_MAX. */
bool store_notify(store_t *s, const char *text, store_done_fn done, void *ctx);

/* From now on calls fn, on a thread of the store's, with each message another process sent
 * (never this store's own), and with NULL when some may have been missed (the connection was
 * lost and made again). 1 listening, 0 nothing to listen to (SQLite: one process), -1 error. */
int store_listen(store_t *s, void (*fn)(void *ctx, const char *text), void *ctx, char *err, size_t errlen);

/* Blocks until every write queued before the call is committed (or failed). */
void store_flush(store_t *s);

typedef struct {
    uint64_t writes, transactions, failed;
    int queued;
} store_stats_t;
void store_stats(store_t *s, store_stats_t *out);

/* ---- games ------------------------------------------------------------------------ */

/* Deep copy (moves duplicated); false when out of memory. */
bool store_game_copy(store_game_t *dst, const store_game_t *src);
void store_game_free(store_game_t *g);

#endif
