/* What the store's front (store.c: the queue, the writer thread, the reading lock) shares with
 * the databases behind it (store_sqlite.c, store_pg.c): a queued write, and the table of a
 * backend's functions. A backend never locks: the front calls run_group from its writer thread
 * only, and every read under the reading lock. */
#ifndef ROOM_STORE_INT_H
#define ROOM_STORE_INT_H

#include "store.h"

/* A queued write's kind. */
/* OP_START: a game (u.game) inserted only if its challenge (claim) could be deleted. */
enum { OP_PLAYER, OP_RATING, OP_TOKEN, OP_CHALLENGE, OP_DELETE_CHALLENGE, OP_GAME, OP_HEARTBEAT, OP_NOTIFY, OP_START,
       OP_COUNT };

typedef struct write {
    struct write *next;
    int op; /* OP_* */
    store_done_fn done;
    void *ctx;
    bool ok; /* set by the backend's run_group */
    bool lost; /* OP_START: its challenge was gone (then not ok, and nothing written); set likewise */
    bool *gone; /* OP_START: where lost is told before done is called (may be NULL) */
    char claim[STORE_ID_LEN]; /* OP_START: the challenge the game starts from */
    char *note; /* OP_NOTIFY: the message (heap) */
    union {
        store_player_t player;
        store_rating_t rating;
        struct {
            char hash[STORE_TOKEN_HASH_LEN];
            char player[STORE_ID_LEN];
            int64_t created_ms;
        } token;
        store_challenge_t challenge;
        char id[STORE_ID_LEN];
        store_game_t game;
        int64_t now_ms;
    } u;
} write_t;

typedef struct {
    /* Runs a group of writes in order: one transaction, a failing write undone alone (a
     * savepoint each). Sets each write's ok; returns the transactions committed. */
    uint64_t (*run_group)(void *db, write_t *group);
    /* After a group's callbacks, when something was committed (NULL: nothing to do). */
    void (*committed)(void *db);
    /* Stops what the backend runs of its own and closes it (after the writer has stopped). */
    void (*close)(void *db);
    /* The reads of store.h, with the same meaning. */
    bool (*each_player)(void *db, void (*fn)(void *ctx, const store_player_t *p), void *ctx, char *err,
                        size_t errlen);
    bool (*each_rating)(void *db, void (*fn)(void *ctx, const store_rating_t *r), void *ctx, char *err,
                        size_t errlen);
    bool (*each_challenge)(void *db, void (*fn)(void *ctx, const store_challenge_t *c), void *ctx, char *err,
                           size_t errlen);
    bool (*each_live_game)(void *db, void (*fn)(void *ctx, store_game_t *g), void *ctx, char *err, size_t errlen);
    /* NULL: none is ever held (each_live_game's, held false). */
    bool (*each_live_game_held)(void *db, void (*fn)(void *ctx, store_game_t *g, bool held), void *ctx, char *err,
                                size_t errlen);
    int (*get_game)(void *db, const char *id, store_game_t *out, char *err, size_t errlen);
    int (*player_games)(void *db, const char *player, char (*ids)[STORE_ID_LEN], int max, char *err, size_t errlen);
    int (*find_token)(void *db, const char *token_hash, char player[STORE_ID_LEN], char *err, size_t errlen);
    int64_t (*last_heartbeat)(void *db);
    int (*get_player)(void *db, const char *id, store_player_t *out, store_rating_t *ratings, int max, int *nratings,
                      char *err, size_t errlen);
    int (*get_challenge)(void *db, const char *id, store_challenge_t *out, char *err, size_t errlen);
    int (*find_name)(void *db, const char *name, char player[STORE_ID_LEN], char *err, size_t errlen);
    /* Games held by this server (NULL: a database only one process uses). */
    int (*own_game)(void *db, const char *id, bool take);
    unsigned (*holds_epoch)(void *db);
    /* Starts listening (NULL: a database only one process uses). */
    int (*listen)(void *db, void (*fn)(void *ctx, const char *text), void *ctx, char *err, size_t errlen);
} store_backend_t;

/* Each opens its database (migrating it) and returns its handle, the backend's table in *b and
 * the schema version it had in *version; NULL with a one-line reason in err. */
void *store_sqlite_open(const char *path, bool durable, const store_backend_t **b, int *version, char *err,
                        size_t errlen);
/* url: postgresql://... or postgres://... (libpq's). Without libpq in the build, NULL and a
 * reason saying so. */
void *store_pg_open(const char *url, bool durable, const store_backend_t **b, int *version, char *err,
                    size_t errlen);

/* A one-line reason (store.c): newlines from a database's message become spaces. */
void store_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
