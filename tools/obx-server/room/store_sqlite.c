/* The room's storage in SQLite (see store.h, store_int.h): the default, one file.
 *
 * Two connections to one file in WAL mode: the writer thread's, and one for reads behind a
 * mutex, so that a read never waits for a commit. The writer takes everything queued, runs it
 * in one transaction (a savepoint per write, so that a write that fails, such as a second
 * player of one name, is undone alone), commits, then calls each write's callback. */
#include "store_int.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

/* ---- the schema ----------------------------------------------------------------------- */

/* migrations[k] takes a file from version k to k + 1, in one transaction with the version
 * bump. Append; never edit a step that has shipped. */
static const char *const migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE players("
    " id TEXT PRIMARY KEY NOT NULL,"
    " name TEXT NOT NULL,"
    " kind INTEGER NOT NULL,"
    " pw_hash TEXT NOT NULL,"
    " created_ms INTEGER NOT NULL);"
    /* Named players and bots have names of their own (whatever the case); anonymous ones may
     * share theirs. */
    "CREATE UNIQUE INDEX players_name ON players(name COLLATE NOCASE) WHERE kind <> 0;"
    "CREATE TABLE tokens("
    " hash TEXT PRIMARY KEY NOT NULL,"
    " player TEXT NOT NULL REFERENCES players(id),"
    " created_ms INTEGER NOT NULL);"
    "CREATE INDEX tokens_player ON tokens(player);"
    "CREATE TABLE ratings("
    " player TEXT NOT NULL,"
    " cls TEXT NOT NULL,"
    " rating REAL NOT NULL,"
    " deviation REAL NOT NULL,"
    " volatility REAL NOT NULL,"
    " games INTEGER NOT NULL,"
    " PRIMARY KEY(player, cls));"
    "CREATE TABLE challenges("
    " id TEXT PRIMARY KEY NOT NULL,"
    " from_player TEXT NOT NULL,"
    " to_player TEXT NOT NULL,"
    " listed INTEGER NOT NULL,"
    " side INTEGER NOT NULL,"
    " initial_ms INTEGER NOT NULL,"
    " increment_ms INTEGER NOT NULL,"
    " rule INTEGER NOT NULL,"
    " rated INTEGER NOT NULL,"
    " created_ms INTEGER NOT NULL);"
    "CREATE TABLE games("
    " id TEXT PRIMARY KEY NOT NULL,"
    " goats TEXT NOT NULL,"
    " tigers TEXT NOT NULL,"
    " rule INTEGER NOT NULL,"
    " initial_ms INTEGER NOT NULL,"
    " increment_ms INTEGER NOT NULL,"
    " rated INTEGER NOT NULL,"
    " cls TEXT NOT NULL,"
    " start_obx TEXT NOT NULL,"
    " moves TEXT NOT NULL,"
    " plies INTEGER NOT NULL,"
    " status TEXT NOT NULL,"
    " winner INTEGER NOT NULL,"
    " goats_ms INTEGER NOT NULL,"
    " tigers_ms INTEGER NOT NULL,"
    " turn_started_ms INTEGER NOT NULL,"
    " created_ms INTEGER NOT NULL,"
    " ended_ms INTEGER NOT NULL,"
    " goats_rating_diff INTEGER NOT NULL,"
    " tigers_rating_diff INTEGER NOT NULL,"
    " rematch_of TEXT NOT NULL);"
    "CREATE INDEX games_ended ON games(ended_ms);"
    "CREATE INDEX games_goats ON games(goats, ended_ms);"
    "CREATE INDEX games_tigers ON games(tigers, ended_ms);"
    "CREATE TABLE meta("
    " key TEXT PRIMARY KEY NOT NULL,"
    " value NOT NULL);",
};

_Static_assert(sizeof migrations / sizeof migrations[0] == STORE_SCHEMA_VERSION,
               "one migration per schema version");

#define GAME_COLUMNS                                                                                    \
    "id, goats, tigers, rule, initial_ms, increment_ms, rated, cls, start_obx, moves, plies, status, " \
    "winner, goats_ms, tigers_ms, turn_started_ms, created_ms, ended_ms, goats_rating_diff, "         \
    "tigers_rating_diff, rematch_of"

/* The writer's statements. */
enum {
    W_BEGIN,
    W_COMMIT,
    W_ROLLBACK,
    W_SAVEPOINT,
    W_ROLLBACK_TO,
    W_RELEASE,
    W_PLAYER,
    W_RATING,
    W_TOKEN,
    W_CHALLENGE,
    W_DELETE_CHALLENGE,
    W_GAME,
    W_HEARTBEAT,
    W_COUNT
};

static const char *const write_sql[W_COUNT] = {
    [W_BEGIN] = "BEGIN IMMEDIATE",
    [W_COMMIT] = "COMMIT",
    [W_ROLLBACK] = "ROLLBACK",
    [W_SAVEPOINT] = "SAVEPOINT w",
    [W_ROLLBACK_TO] = "ROLLBACK TO w",
    [W_RELEASE] = "RELEASE w",
    /* Upserts, not INSERT OR REPLACE: a replace would delete whatever row held the same name. */
    [W_PLAYER] = "INSERT INTO players(id, name, kind, pw_hash, created_ms) VALUES(?1, ?2, ?3, ?4, ?5) "
                 "ON CONFLICT(id) DO UPDATE SET name = excluded.name, kind = excluded.kind, "
                 "pw_hash = excluded.pw_hash, created_ms = excluded.created_ms",
    [W_RATING] = "INSERT INTO ratings(player, cls, rating, deviation, volatility, games) "
                 "VALUES(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(player, cls) DO UPDATE SET "
                 "rating = excluded.rating, deviation = excluded.deviation, "
                 "volatility = excluded.volatility, games = excluded.games",
    [W_TOKEN] = "INSERT INTO tokens(hash, player, created_ms) VALUES(?1, ?2, ?3) ON CONFLICT(hash) DO UPDATE "
                "SET player = excluded.player, created_ms = excluded.created_ms",
    [W_CHALLENGE] = "INSERT INTO challenges(id, from_player, to_player, listed, side, initial_ms, increment_ms, "
                    "rule, rated, created_ms) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
                    "ON CONFLICT(id) DO UPDATE SET from_player = excluded.from_player, "
                    "to_player = excluded.to_player, listed = excluded.listed, side = excluded.side, "
                    "initial_ms = excluded.initial_ms, increment_ms = excluded.increment_ms, "
                    "rule = excluded.rule, rated = excluded.rated, created_ms = excluded.created_ms",
    [W_DELETE_CHALLENGE] = "DELETE FROM challenges WHERE id = ?1",
    [W_GAME] = "INSERT INTO games(" GAME_COLUMNS ") VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
               "?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21) ON CONFLICT(id) DO UPDATE SET "
               "goats = excluded.goats, tigers = excluded.tigers, rule = excluded.rule, "
               "initial_ms = excluded.initial_ms, increment_ms = excluded.increment_ms, "
               "rated = excluded.rated, cls = excluded.cls, start_obx = excluded.start_obx, "
               "moves = excluded.moves, plies = excluded.plies, status = excluded.status, "
               "winner = excluded.winner, goats_ms = excluded.goats_ms, tigers_ms = excluded.tigers_ms, "
               "turn_started_ms = excluded.turn_started_ms, created_ms = excluded.created_ms, "
               "ended_ms = excluded.ended_ms, goats_rating_diff = excluded.goats_rating_diff, "
               "tigers_rating_diff = excluded.tigers_rating_diff, rematch_of = excluded.rematch_of",
    [W_HEARTBEAT] = "INSERT INTO meta(key, value) VALUES('heartbeat', ?1) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
};

/* The reading connection's statements. */
enum {
    R_PLAYERS,
    R_RATINGS,
    R_CHALLENGES,
    R_LIVE_GAMES,
    R_GAME,
    R_PLAYER_GAMES,
    R_TOKEN,
    R_HEARTBEAT,
    R_PLAYER,
    R_PLAYER_RATINGS,
    R_CHALLENGE,
    R_NAME,
    R_COUNT
};

static const char *const read_sql[R_COUNT] = {
    [R_PLAYERS] = "SELECT id, name, kind, pw_hash, created_ms FROM players ORDER BY rowid",
    [R_RATINGS] = "SELECT player, cls, rating, deviation, volatility, games FROM ratings",
    [R_CHALLENGES] = "SELECT id, from_player, to_player, listed, side, initial_ms, increment_ms, rule, rated, "
                     "created_ms FROM challenges ORDER BY created_ms, rowid",
    [R_LIVE_GAMES] = "SELECT " GAME_COLUMNS " FROM games WHERE ended_ms = 0",
    [R_GAME] = "SELECT " GAME_COLUMNS " FROM games WHERE id = ?1",
    [R_PLAYER_GAMES] = "SELECT id FROM games WHERE ended_ms <> 0 AND (goats = ?1 OR tigers = ?1) "
                       "ORDER BY ended_ms DESC, rowid DESC LIMIT ?2",
    [R_TOKEN] = "SELECT player FROM tokens WHERE hash = ?1",
    [R_HEARTBEAT] = "SELECT value FROM meta WHERE key = 'heartbeat'",
    [R_PLAYER] = "SELECT id, name, kind, pw_hash, created_ms FROM players WHERE id = ?1",
    [R_PLAYER_RATINGS] = "SELECT player, cls, rating, deviation, volatility, games FROM ratings WHERE player = ?1",
    [R_CHALLENGE] = "SELECT id, from_player, to_player, listed, side, initial_ms, increment_ms, rule, rated, "
                    "created_ms FROM challenges WHERE id = ?1",
    [R_NAME] = "SELECT id FROM players WHERE name = ?1 COLLATE NOCASE AND kind <> 0",
};

/* A backend's write statement by the write's kind. */
#define W_OF(op) (W_PLAYER + (op))
_Static_assert(W_PLAYER + OP_HEARTBEAT == W_HEARTBEAT && W_PLAYER + OP_GAME == W_GAME,
               "the write statements in the order of the kinds of writes");

typedef struct {
    char *path;
    sqlite3 *wdb, *rdb;
    sqlite3_stmt *w[W_COUNT], *r[R_COUNT];

    /* The log is copied into the file by a thread and a connection of its own (a passive
     * checkpoint, once a second after commits), never by the writer between two commits: a
     * checkpoint syncs the file, and the answers waiting for the next commit would wait for it. */
    sqlite3 *cdb;
    pthread_t checkpointer;
    pthread_mutex_t clock;  /* the two below */
    pthread_cond_t commit;  /* a group was committed, or closing */
    bool ckpt_started, committed, closing, sync_made;
} sdb_t;

/* ---- helpers ---------------------------------------------------------------------------- */

/* A fixed field's text: up to its size, NUL or not. */
static int bind_field(sqlite3_stmt *st, int i, const char *s, size_t size)
{
    return sqlite3_bind_text(st, i, s, (int)strnlen(s, size), SQLITE_STATIC);
}
#define BIND_FIELD(st, i, f) bind_field(st, i, f, sizeof(f))

static void copy_column(sqlite3_stmt *st, int i, char *dst, size_t size)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    size_t n = t ? (size_t)sqlite3_column_bytes(st, i) : 0;
    if (n >= size)
        n = size - 1;
    if (n)
        memcpy(dst, t, n);
    dst[n] = '\0';
}
#define COPY_COLUMN(st, i, f) copy_column(st, i, f, sizeof(f))

/* Steps a statement that returns no rows we need; true when it ran. */
static bool run(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW;
}

/* ---- opening ---------------------------------------------------------------------------- */

static bool pragma_int(sqlite3 *db, const char *sql, int *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return false;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW;
}

static bool exec(sqlite3 *db, const char *sql) { return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK; }

/* Takes the file from version from to STORE_SCHEMA_VERSION, one transaction per step. */
static bool migrate(sdb_t *s, int from, char *err, size_t errlen)
{
    for (int v = from; v < STORE_SCHEMA_VERSION; v++) {
        char bump[48];
        snprintf(bump, sizeof bump, "PRAGMA user_version = %d", v + 1);
        int now = -1;
        bool ok = exec(s->wdb, "BEGIN IMMEDIATE");
        /* Another process may have upgraded the file meanwhile. */
        if (ok && pragma_int(s->wdb, "PRAGMA user_version", &now) && now != v) {
            exec(s->wdb, "ROLLBACK");
            if (now > STORE_SCHEMA_VERSION) {
                store_set_err(err, errlen, "%s has schema version %d; this server knows up to %d: use a newer baghchal-server",
                        s->path, now, STORE_SCHEMA_VERSION);
                return false;
            }
            v = now - 1;
            continue;
        }
        ok = ok && now == v && exec(s->wdb, migrations[v]) && exec(s->wdb, bump) && exec(s->wdb, "COMMIT");
        if (!ok) {
            store_set_err(err, errlen, "%s: cannot upgrade from schema version %d: %s", s->path, v, sqlite3_errmsg(s->wdb));
            if (!sqlite3_get_autocommit(s->wdb))
                exec(s->wdb, "ROLLBACK");
            return false;
        }
    }
    return true;
}

static void *checkpointer_main(void *arg);

static void destroy(sdb_t *s)
{
    sqlite3_close(s->cdb);
    for (int i = 0; i < W_COUNT; i++)
        sqlite3_finalize(s->w[i]);
    for (int i = 0; i < R_COUNT; i++)
        sqlite3_finalize(s->r[i]);
    /* The reader first: the last connection to close checkpoints the log into the file. */
    sqlite3_close(s->rdb);
    sqlite3_close(s->wdb);
    if (s->sync_made) {
        pthread_cond_destroy(&s->commit);
        pthread_mutex_destroy(&s->clock);
    }
    free(s->path);
    free(s);
}

static void sqlite_close(void *db)
{
    sdb_t *s = db;
    pthread_mutex_lock(&s->clock);
    s->closing = true;
    pthread_cond_signal(&s->commit);
    pthread_mutex_unlock(&s->clock);
    if (s->ckpt_started)
        pthread_join(s->checkpointer, NULL);
    destroy(s);
}

static void sqlite_committed(void *db)
{
    sdb_t *s = db;
    pthread_mutex_lock(&s->clock);
    s->committed = true;
    pthread_cond_signal(&s->commit);
    pthread_mutex_unlock(&s->clock);
}

static const store_backend_t sqlite_backend;

void *store_sqlite_open(const char *path, bool durable, const store_backend_t **b, int *opened_version, char *err,
                        size_t errlen)
{
    /* Never let SQLite open a FIFO (it would block) or a directory or device. */
    struct stat st;
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            store_set_err(err, errlen, "%s is not a regular file", path);
            return NULL;
        }
    } else if (errno != ENOENT) {
        store_set_err(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }

    sdb_t *s = calloc(1, sizeof *s);
    if (!s) {
        store_set_err(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    s->path = strdup(path);
    if (!s->path) {
        free(s);
        store_set_err(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    if (pthread_mutex_init(&s->clock, NULL) != 0) {
        store_set_err(err, errlen, "%s: cannot create the checkpointer's lock", path);
        destroy(s);
        return NULL;
    }
    if (pthread_cond_init(&s->commit, NULL) != 0) {
        pthread_mutex_destroy(&s->clock);
        store_set_err(err, errlen, "%s: cannot create a condition variable", path);
        destroy(s);
        return NULL;
    }
    s->sync_made = true;

    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &s->wdb, flags, NULL) != SQLITE_OK) {
        store_set_err(err, errlen, "%s: %s", path, s->wdb ? sqlite3_errmsg(s->wdb) : "out of memory");
        destroy(s);
        return NULL;
    }
    sqlite3_extended_result_codes(s->wdb, 1);
    sqlite3_busy_timeout(s->wdb, 10000);

    /* The version first: a file of a newer schema is left as it is (not even switched to WAL). */
    int version;
    if (!pragma_int(s->wdb, "PRAGMA user_version", &version)) {
        store_set_err(err, errlen, "%s: %s", path, sqlite3_errmsg(s->wdb));
        destroy(s);
        return NULL;
    }
    if (version > STORE_SCHEMA_VERSION) {
        store_set_err(err, errlen, "%s has schema version %d; this server knows up to %d: use a newer baghchal-server", path,
                version, STORE_SCHEMA_VERSION);
        destroy(s);
        return NULL;
    }
    /* SQLite opens a file it may not write read-only without a word; every write would fail. */
    if (sqlite3_db_readonly(s->wdb, "main") == 1) {
        store_set_err(err, errlen, "%s: cannot be written (read-only)", path);
        destroy(s);
        return NULL;
    }

    sqlite3_stmt *jm = NULL;
    bool wal = sqlite3_prepare_v2(s->wdb, "PRAGMA journal_mode = WAL", -1, &jm, NULL) == SQLITE_OK &&
               sqlite3_step(jm) == SQLITE_ROW && sqlite3_column_text(jm, 0) &&
               strcmp((const char *)sqlite3_column_text(jm, 0), "wal") == 0;
    sqlite3_finalize(jm);
    if (!wal) {
        store_set_err(err, errlen, "%s: cannot use write-ahead logging: %s", path, sqlite3_errmsg(s->wdb));
        destroy(s);
        return NULL;
    }
    if (!exec(s->wdb, durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL") ||
        !exec(s->wdb, "PRAGMA foreign_keys = ON")) {
        store_set_err(err, errlen, "%s: %s", path, sqlite3_errmsg(s->wdb));
        destroy(s);
        return NULL;
    }
    if (!migrate(s, version, err, errlen)) {
        destroy(s);
        return NULL;
    }

    if (sqlite3_open_v2(path, &s->rdb, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        store_set_err(err, errlen, "%s: %s", path, s->rdb ? sqlite3_errmsg(s->rdb) : "out of memory");
        destroy(s);
        return NULL;
    }
    sqlite3_extended_result_codes(s->rdb, 1);
    sqlite3_busy_timeout(s->rdb, 10000);
    if (!exec(s->rdb, "PRAGMA query_only = 1")) {
        store_set_err(err, errlen, "%s: %s", path, sqlite3_errmsg(s->rdb));
        destroy(s);
        return NULL;
    }

    for (int i = 0; i < W_COUNT; i++)
        if (sqlite3_prepare_v3(s->wdb, write_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->w[i], NULL) != SQLITE_OK) {
            store_set_err(err, errlen, "%s: %s", path, sqlite3_errmsg(s->wdb));
            destroy(s);
            return NULL;
        }
    for (int i = 0; i < R_COUNT; i++)
        if (sqlite3_prepare_v3(s->rdb, read_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->r[i], NULL) != SQLITE_OK) {
            store_set_err(err, errlen, "%s: %s", path, sqlite3_errmsg(s->rdb));
            destroy(s);
            return NULL;
        }

    if (!exec(s->wdb, "PRAGMA wal_autocheckpoint = 0")) {
        store_set_err(err, errlen, "%s: %s", path, sqlite3_errmsg(s->wdb));
        destroy(s);
        return NULL;
    }
    if (sqlite3_open_v2(path, &s->cdb, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        store_set_err(err, errlen, "%s: %s", path, s->cdb ? sqlite3_errmsg(s->cdb) : "out of memory");
        destroy(s);
        return NULL;
    }
    sqlite3_busy_timeout(s->cdb, 10000);
    if (pthread_create(&s->checkpointer, NULL, checkpointer_main, s) == 0)
        s->ckpt_started = true; /* without it, the log is copied when the last connection closes */
    *b = &sqlite_backend;
    *opened_version = version;
    return s;
}

static void *checkpointer_main(void *arg)
{
    sdb_t *s = arg;
    pthread_mutex_lock(&s->clock);
    while (!s->closing) {
        if (!s->committed) {
            pthread_cond_wait(&s->commit, &s->clock);
            continue;
        }
        s->committed = false;
        pthread_mutex_unlock(&s->clock);
        sqlite3_wal_checkpoint_v2(s->cdb, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        /* At most one a second; closing cuts the pause short. */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_mutex_lock(&s->clock);
        while (!s->closing && pthread_cond_timedwait(&s->commit, &s->clock, &until) == 0) {
        }
    }
    pthread_mutex_unlock(&s->clock);
    return NULL;
}

/* ---- the writer ------------------------------------------------------------------------- */

/* Binds and runs one write's statement. */
static bool apply(sdb_t *s, write_t *w)
{
    if (w->op == OP_NOTIFY)
        return true; /* one process: nobody else to tell */
    w->lost = false;
    if (w->op == OP_START) {
        /* The game only with the deletion of its challenge (in the write's savepoint). */
        sqlite3_stmt *del = s->w[W_DELETE_CHALLENGE];
        bool ok = BIND_FIELD(del, 1, w->claim) == SQLITE_OK && run(del);
        sqlite3_clear_bindings(del);
        if (!ok)
            return false;
        if (sqlite3_changes(s->wdb) != 1) {
            w->lost = true;
            return false;
        }
    }
    sqlite3_stmt *st = s->w[w->op == OP_START ? W_GAME : W_OF(w->op)];
    int rc = SQLITE_OK;
    switch (w->op) {
    case OP_PLAYER: {
        const store_player_t *p = &w->u.player;
        rc |= BIND_FIELD(st, 1, p->id);
        rc |= BIND_FIELD(st, 2, p->name);
        rc |= sqlite3_bind_int(st, 3, (int)p->kind);
        rc |= BIND_FIELD(st, 4, p->pw_hash);
        rc |= sqlite3_bind_int64(st, 5, p->created_ms);
        break;
    }
    case OP_RATING: {
        const store_rating_t *r = &w->u.rating;
        rc |= BIND_FIELD(st, 1, r->player);
        rc |= BIND_FIELD(st, 2, r->cls);
        rc |= sqlite3_bind_double(st, 3, r->g.rating);
        rc |= sqlite3_bind_double(st, 4, r->g.deviation);
        rc |= sqlite3_bind_double(st, 5, r->g.volatility);
        rc |= sqlite3_bind_int(st, 6, r->g.games);
        break;
    }
    case OP_TOKEN:
        rc |= BIND_FIELD(st, 1, w->u.token.hash);
        rc |= BIND_FIELD(st, 2, w->u.token.player);
        rc |= sqlite3_bind_int64(st, 3, w->u.token.created_ms);
        break;
    case OP_CHALLENGE: {
        const store_challenge_t *c = &w->u.challenge;
        rc |= BIND_FIELD(st, 1, c->id);
        rc |= BIND_FIELD(st, 2, c->from);
        rc |= BIND_FIELD(st, 3, c->to);
        rc |= sqlite3_bind_int(st, 4, c->listed);
        rc |= sqlite3_bind_int(st, 5, (int)c->side);
        rc |= sqlite3_bind_int64(st, 6, c->initial_ms);
        rc |= sqlite3_bind_int64(st, 7, c->increment_ms);
        rc |= sqlite3_bind_int(st, 8, c->rule);
        rc |= sqlite3_bind_int(st, 9, c->rated);
        rc |= sqlite3_bind_int64(st, 10, c->created_ms);
        break;
    }
    case OP_DELETE_CHALLENGE:
        rc |= BIND_FIELD(st, 1, w->u.id);
        break;
    case OP_GAME:
    case OP_START: {
        const store_game_t *g = &w->u.game;
        rc |= BIND_FIELD(st, 1, g->id);
        rc |= BIND_FIELD(st, 2, g->goats);
        rc |= BIND_FIELD(st, 3, g->tigers);
        rc |= sqlite3_bind_int(st, 4, g->rule);
        rc |= sqlite3_bind_int64(st, 5, g->initial_ms);
        rc |= sqlite3_bind_int64(st, 6, g->increment_ms);
        rc |= sqlite3_bind_int(st, 7, g->rated);
        rc |= BIND_FIELD(st, 8, g->cls);
        rc |= BIND_FIELD(st, 9, g->start_obx);
        rc |= sqlite3_bind_text(st, 10, g->moves ? g->moves : "", -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int(st, 11, g->plies);
        rc |= BIND_FIELD(st, 12, g->status);
        rc |= sqlite3_bind_int(st, 13, g->winner);
        rc |= sqlite3_bind_int64(st, 14, g->goats_ms);
        rc |= sqlite3_bind_int64(st, 15, g->tigers_ms);
        rc |= sqlite3_bind_int64(st, 16, g->turn_started_ms);
        rc |= sqlite3_bind_int64(st, 17, g->created_ms);
        rc |= sqlite3_bind_int64(st, 18, g->ended_ms);
        rc |= sqlite3_bind_int(st, 19, g->goats_rating_diff);
        rc |= sqlite3_bind_int(st, 20, g->tigers_rating_diff);
        rc |= BIND_FIELD(st, 21, g->rematch_of);
        break;
    }
    case OP_HEARTBEAT:
        rc |= sqlite3_bind_int64(st, 1, w->u.now_ms);
        break;
    default:
        return false;
    }
    bool ok = rc == SQLITE_OK && run(st);
    sqlite3_clear_bindings(st);
    return ok;
}

static void fail_from(write_t *from, const write_t *to)
{
    for (write_t *x = from; x != to; x = x->next)
        x->ok = false;
}

/* Runs a group: one transaction, a savepoint per write. Sets each write's ok; returns the
 * transactions committed (more than one only when SQLite rolled one back by itself). */
static uint64_t sqlite_run_group(void *db, write_t *group)
{
    sdb_t *s = db;
    uint64_t commits = 0;
    write_t *first = NULL; /* the first write of the open transaction; NULL: none open */
    for (write_t *w = group; w; w = w->next) {
        w->ok = false;
        if (!first) {
            if (!run(s->w[W_BEGIN]))
                continue;
            first = w;
        }
        if (!run(s->w[W_SAVEPOINT])) {
            /* Not even a savepoint: give up the transaction. */
            fail_from(first, w->next);
            if (!sqlite3_get_autocommit(s->wdb))
                run(s->w[W_ROLLBACK]);
            first = NULL;
            continue;
        }
        w->ok = apply(s, w);
        if (sqlite3_get_autocommit(s->wdb)) {
            /* Some errors (a full disk, an I/O error) roll the whole transaction back. */
            fail_from(first, w->next);
            first = NULL;
            continue;
        }
        if ((!w->ok && !run(s->w[W_ROLLBACK_TO])) || !run(s->w[W_RELEASE])) {
            fail_from(first, w->next);
            if (!sqlite3_get_autocommit(s->wdb))
                run(s->w[W_ROLLBACK]);
            first = NULL;
        }
    }
    if (first) {
        if (run(s->w[W_COMMIT])) {
            commits++;
        } else {
            fail_from(first, NULL);
            if (!sqlite3_get_autocommit(s->wdb))
                run(s->w[W_ROLLBACK]);
        }
    }
    return commits;
}

/* ---- reads ------------------------------------------------------------------------------ */

/* Readies a read's statement for the next read. */
static void read_end(sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* The end of a query's rows: true when they all came (SQLITE_DONE). */
static bool read_done(sdb_t *s, int rc, char *err, size_t errlen)
{
    if (rc == SQLITE_DONE)
        return true;
    store_set_err(err, errlen, "%s: %s", s->path, sqlite3_errmsg(s->rdb));
    return false;
}

/* A row of players, ratings, challenges into its struct. */
static void row_player(sqlite3_stmt *st, store_player_t *p)
{
    memset(p, 0, sizeof *p);
    COPY_COLUMN(st, 0, p->id);
    COPY_COLUMN(st, 1, p->name);
    p->kind = (store_kind_t)sqlite3_column_int(st, 2);
    COPY_COLUMN(st, 3, p->pw_hash);
    p->created_ms = sqlite3_column_int64(st, 4);
}

static void row_rating(sqlite3_stmt *st, store_rating_t *r)
{
    memset(r, 0, sizeof *r);
    COPY_COLUMN(st, 0, r->player);
    COPY_COLUMN(st, 1, r->cls);
    r->g.rating = sqlite3_column_double(st, 2);
    r->g.deviation = sqlite3_column_double(st, 3);
    r->g.volatility = sqlite3_column_double(st, 4);
    r->g.games = sqlite3_column_int(st, 5);
}

static void row_challenge(sqlite3_stmt *st, store_challenge_t *c)
{
    memset(c, 0, sizeof *c);
    COPY_COLUMN(st, 0, c->id);
    COPY_COLUMN(st, 1, c->from);
    COPY_COLUMN(st, 2, c->to);
    c->listed = sqlite3_column_int(st, 3) != 0;
    c->side = (store_side_t)sqlite3_column_int(st, 4);
    c->initial_ms = sqlite3_column_int64(st, 5);
    c->increment_ms = sqlite3_column_int64(st, 6);
    c->rule = sqlite3_column_int(st, 7);
    c->rated = sqlite3_column_int(st, 8) != 0;
    c->created_ms = sqlite3_column_int64(st, 9);
}

/* sqlite_each_NAME: every row of the statement STMT, read by ROW into a T, handed to fn. */
#define SQLITE_EACH(name, T, STMT, ROW)                                                                          \
    static bool sqlite_each_##name(void *db, void (*fn)(void *ctx, const T *x), void *ctx, char *err, size_t errlen) \
    {                                                                                                            \
        sdb_t *s = db;                                                                                           \
        sqlite3_stmt *st = s->r[STMT];                                                                           \
        int rc;                                                                                                  \
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {                                                          \
            T x;                                                                                                 \
            ROW(st, &x);                                                                                         \
            fn(ctx, &x);                                                                                         \
        }                                                                                                        \
        bool ok = read_done(s, rc, err, errlen);                                                                 \
        read_end(st);                                                                                            \
        return ok;                                                                                               \
    }
SQLITE_EACH(player, store_player_t, R_PLAYERS, row_player)
SQLITE_EACH(rating, store_rating_t, R_RATINGS, row_rating)
SQLITE_EACH(challenge, store_challenge_t, R_CHALLENGES, row_challenge)

/* A row of GAME_COLUMNS into g (moves on the heap); false when out of memory. */
static bool read_game(sqlite3_stmt *st, store_game_t *g)
{
    memset(g, 0, sizeof *g);
    COPY_COLUMN(st, 0, g->id);
    COPY_COLUMN(st, 1, g->goats);
    COPY_COLUMN(st, 2, g->tigers);
    g->rule = sqlite3_column_int(st, 3);
    g->initial_ms = sqlite3_column_int64(st, 4);
    g->increment_ms = sqlite3_column_int64(st, 5);
    g->rated = sqlite3_column_int(st, 6) != 0;
    COPY_COLUMN(st, 7, g->cls);
    COPY_COLUMN(st, 8, g->start_obx);
    const unsigned char *m = sqlite3_column_text(st, 9);
    if (!m && sqlite3_errcode(sqlite3_db_handle(st)) == SQLITE_NOMEM)
        return false;
    size_t n = m ? (size_t)sqlite3_column_bytes(st, 9) : 0;
    if (!(g->moves = malloc(n + 1)))
        return false;
    if (n)
        memcpy(g->moves, m, n);
    g->moves[n] = '\0';
    g->plies = sqlite3_column_int(st, 10);
    COPY_COLUMN(st, 11, g->status);
    g->winner = sqlite3_column_int(st, 12);
    g->goats_ms = sqlite3_column_int64(st, 13);
    g->tigers_ms = sqlite3_column_int64(st, 14);
    g->turn_started_ms = sqlite3_column_int64(st, 15);
    g->created_ms = sqlite3_column_int64(st, 16);
    g->ended_ms = sqlite3_column_int64(st, 17);
    g->goats_rating_diff = sqlite3_column_int(st, 18);
    g->tigers_rating_diff = sqlite3_column_int(st, 19);
    COPY_COLUMN(st, 20, g->rematch_of);
    return true;
}

static bool sqlite_each_live_game(void *db, void (*fn)(void *ctx, store_game_t *g), void *ctx, char *err, size_t errlen)
{
    sdb_t *s = db;
    sqlite3_stmt *st = s->r[R_LIVE_GAMES];
    int rc;
    bool ok = true;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_game_t g;
        if (!read_game(st, &g)) {
            store_set_err(err, errlen, "%s: out of memory", s->path);
            ok = false;
            break;
        }
        fn(ctx, &g);
        store_game_free(&g);
    }
    ok = ok && read_done(s, rc, err, errlen);
    read_end(st);
    return ok;
}

static int sqlite_get_game(void *db, const char *id, store_game_t *out, char *err, size_t errlen)
{
    sdb_t *s = db;
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = s->r[R_GAME];
    int found = -1;
    if (sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC) != SQLITE_OK) {
        store_set_err(err, errlen, "%s: %s", s->path, sqlite3_errmsg(s->rdb));
    } else {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            found = 1;
            if (!read_game(st, out)) {
                store_game_free(out);
                store_set_err(err, errlen, "%s: out of memory", s->path);
                found = -1;
            }
        } else if (read_done(s, rc, err, errlen)) {
            found = 0;
        }
    }
    read_end(st);
    return found;
}

static int sqlite_player_games(void *db, const char *player, char (*ids)[STORE_ID_LEN], int max, char *err, size_t errlen)
{
    sdb_t *s = db;
    if (max <= 0)
        return 0;
    sqlite3_stmt *st = s->r[R_PLAYER_GAMES];
    int n = 0;
    if (sqlite3_bind_text(st, 1, player, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_int(st, 2, max) != SQLITE_OK) {
        store_set_err(err, errlen, "%s: %s", s->path, sqlite3_errmsg(s->rdb));
        n = -1;
    } else {
        int rc = SQLITE_DONE;
        while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW) {
            copy_column(st, 0, ids[n], STORE_ID_LEN);
            n++;
        }
        if (n < max && !read_done(s, rc, err, errlen))
            n = -1;
    }
    read_end(st);
    return n;
}

static int sqlite_find_token(void *db, const char *token_hash, char player[STORE_ID_LEN], char *err, size_t errlen)
{
    sdb_t *s = db;
    sqlite3_stmt *st = s->r[R_TOKEN];
    int found = -1;
    if (sqlite3_bind_text(st, 1, token_hash, -1, SQLITE_STATIC) != SQLITE_OK) {
        store_set_err(err, errlen, "%s: %s", s->path, sqlite3_errmsg(s->rdb));
    } else {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            copy_column(st, 0, player, STORE_ID_LEN);
            found = 1;
        } else if (read_done(s, rc, err, errlen)) {
            found = 0;
        }
    }
    read_end(st);
    return found;
}

static int64_t sqlite_last_heartbeat(void *db)
{
    sdb_t *s = db;
    sqlite3_stmt *st = s->r[R_HEARTBEAT];
    int64_t at = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    read_end(st);
    return at;
}

/* Runs st (its key bound) for at most one row: 1 a row, 0 none, -1 error. */
static int one_row(sdb_t *s, sqlite3_stmt *st, const char *key, char *err, size_t errlen)
{
    if (sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC) != SQLITE_OK) {
        store_set_err(err, errlen, "%s: %s", s->path, sqlite3_errmsg(s->rdb));
        return -1;
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        return 1;
    return read_done(s, rc, err, errlen) ? 0 : -1;
}

static int sqlite_get_player(void *db, const char *id, store_player_t *out, store_rating_t *ratings, int max,
                             int *nratings, char *err, size_t errlen)
{
    sdb_t *s = db;
    sqlite3_stmt *st = s->r[R_PLAYER];
    int found = one_row(s, st, id, err, errlen);
    if (found == 1)
        row_player(st, out);
    read_end(st);
    if (found != 1)
        return found;
    st = s->r[R_PLAYER_RATINGS];
    int rc = sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC) == SQLITE_OK ? SQLITE_ROW : SQLITE_ERROR;
    while (rc == SQLITE_ROW && (rc = sqlite3_step(st)) == SQLITE_ROW)
        if (*nratings < max)
            row_rating(st, &ratings[(*nratings)++]);
    found = read_done(s, rc, err, errlen) ? 1 : -1;
    read_end(st);
    return found;
}

static int sqlite_get_challenge(void *db, const char *id, store_challenge_t *out, char *err, size_t errlen)
{
    sdb_t *s = db;
    sqlite3_stmt *st = s->r[R_CHALLENGE];
    int found = one_row(s, st, id, err, errlen);
    if (found == 1)
        row_challenge(st, out);
    read_end(st);
    return found;
}

static int sqlite_find_name(void *db, const char *name, char player[STORE_ID_LEN], char *err, size_t errlen)
{
    sdb_t *s = db;
    sqlite3_stmt *st = s->r[R_NAME];
    int found = one_row(s, st, name, err, errlen);
    if (found == 1)
        copy_column(st, 0, player, STORE_ID_LEN);
    read_end(st);
    return found;
}

static const store_backend_t sqlite_backend = {
    .find_name = sqlite_find_name,
    .get_player = sqlite_get_player,
    .get_challenge = sqlite_get_challenge,
    .run_group = sqlite_run_group,
    .committed = sqlite_committed,
    .close = sqlite_close,
    .each_player = sqlite_each_player,
    .each_rating = sqlite_each_rating,
    .each_challenge = sqlite_each_challenge,
    .each_live_game = sqlite_each_live_game,
    .get_game = sqlite_get_game,
    .player_games = sqlite_player_games,
    .find_token = sqlite_find_token,
    .last_heartbeat = sqlite_last_heartbeat,
};
