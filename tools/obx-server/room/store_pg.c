/* The room's storage in PostgreSQL (see store.h, store_int.h), for several servers sharing one
 * database: the same tables as in SQLite, each in PostgreSQL's words.
 *
 * Two connections, as in SQLite: the writer thread's, which runs each group of writes in one
 * transaction (a savepoint per write), and one for reads. The schema's version is the row of
 * the table schema_version; servers starting at once migrate one after the other, under an
 * advisory lock. Without durable, commits are asynchronous (synchronous_commit = off): a
 * committed write survives this process's death, not the database server's crash.
 *
 * Messages to the other servers (store_notify) are NOTIFYs on the channel "baghchal", sent in
 * the transaction of the writes before them, so they arrive once those are committed; a third
 * connection and thread LISTEN and hand each on (store_listen). Each store signs its messages
 * with an origin of its own, so that it skips its own. */
#include "store_int.h"

#ifndef BAGHCHAL_HAVE_PQ

void *store_pg_open(const char *url, bool durable, const store_backend_t **b, int *version, char *err, size_t errlen)
{
    (void)url, (void)durable, (void)b, (void)version;
    store_set_err(err, errlen, "this baghchal-server was built without PostgreSQL (libpq): use an SQLite file");
    return NULL;
}

#else

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the schema ----------------------------------------------------------------------- */

/* migrations[k] takes the database from version k to k + 1: store_sqlite.c's step k in
 * PostgreSQL's words. SQLite's implicit rowid, which orders players, challenges and games as
 * they were first stored, is the column seq. Names are unique whatever their ASCII case, as
 * under SQLite's NOCASE. Append; never edit a step that has shipped. */
static const char *const migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE players("
    " seq BIGSERIAL NOT NULL,"
    " id TEXT PRIMARY KEY NOT NULL,"
    " name TEXT NOT NULL,"
    " kind INTEGER NOT NULL,"
    " pw_hash TEXT NOT NULL,"
    " created_ms BIGINT NOT NULL);"
    "CREATE UNIQUE INDEX players_name ON players(lower(name COLLATE \"C\")) WHERE kind <> 0;"
    "CREATE TABLE tokens("
    " hash TEXT PRIMARY KEY NOT NULL,"
    " player TEXT NOT NULL REFERENCES players(id),"
    " created_ms BIGINT NOT NULL);"
    "CREATE INDEX tokens_player ON tokens(player);"
    "CREATE TABLE ratings("
    " player TEXT NOT NULL,"
    " cls TEXT NOT NULL,"
    " rating DOUBLE PRECISION NOT NULL,"
    " deviation DOUBLE PRECISION NOT NULL,"
    " volatility DOUBLE PRECISION NOT NULL,"
    " games INTEGER NOT NULL,"
    " PRIMARY KEY(player, cls));"
    "CREATE TABLE challenges("
    " seq BIGSERIAL NOT NULL,"
    " id TEXT PRIMARY KEY NOT NULL,"
    " from_player TEXT NOT NULL,"
    " to_player TEXT NOT NULL,"
    " listed INTEGER NOT NULL,"
    " side INTEGER NOT NULL,"
    " initial_ms BIGINT NOT NULL,"
    " increment_ms BIGINT NOT NULL,"
    " rule INTEGER NOT NULL,"
    " rated INTEGER NOT NULL,"
    " created_ms BIGINT NOT NULL);"
    "CREATE TABLE games("
    " seq BIGSERIAL NOT NULL,"
    " id TEXT PRIMARY KEY NOT NULL,"
    " goats TEXT NOT NULL,"
    " tigers TEXT NOT NULL,"
    " rule INTEGER NOT NULL,"
    " initial_ms BIGINT NOT NULL,"
    " increment_ms BIGINT NOT NULL,"
    " rated INTEGER NOT NULL,"
    " cls TEXT NOT NULL,"
    " start_obx TEXT NOT NULL,"
    " moves TEXT NOT NULL,"
    " plies INTEGER NOT NULL,"
    " status TEXT NOT NULL,"
    " winner INTEGER NOT NULL,"
    " goats_ms BIGINT NOT NULL,"
    " tigers_ms BIGINT NOT NULL,"
    " turn_started_ms BIGINT NOT NULL,"
    " created_ms BIGINT NOT NULL,"
    " ended_ms BIGINT NOT NULL,"
    " goats_rating_diff INTEGER NOT NULL,"
    " tigers_rating_diff INTEGER NOT NULL,"
    " rematch_of TEXT NOT NULL);"
    "CREATE INDEX games_ended ON games(ended_ms);"
    "CREATE INDEX games_goats ON games(goats, ended_ms);"
    "CREATE INDEX games_tigers ON games(tigers, ended_ms);"
    "CREATE TABLE meta("
    " key TEXT PRIMARY KEY NOT NULL,"
    " value TEXT NOT NULL);",
};

_Static_assert(sizeof migrations / sizeof migrations[0] == STORE_SCHEMA_VERSION,
               "one migration per schema version");

/* Any number, the same in every server: the lock that migrations take. */
#define MIGRATION_LOCK "7362616768636801"

#define GAME_COLUMNS                                                                                    \
    "id, goats, tigers, rule, initial_ms, increment_ms, rated, cls, start_obx, moves, plies, status, " \
    "winner, goats_ms, tigers_ms, turn_started_ms, created_ms, ended_ms, goats_rating_diff, "         \
    "tigers_rating_diff, rematch_of"

/* The writer's statements, by the write's kind, prepared as "w0", "w1", ... */
static const char *const write_sql[OP_COUNT] = {
    [OP_PLAYER] = "INSERT INTO players(id, name, kind, pw_hash, created_ms) VALUES($1, $2, $3, $4, $5) "
                  "ON CONFLICT(id) DO UPDATE SET name = excluded.name, kind = excluded.kind, "
                  "pw_hash = excluded.pw_hash, created_ms = excluded.created_ms",
    [OP_RATING] = "INSERT INTO ratings(player, cls, rating, deviation, volatility, games) "
                  "VALUES($1, $2, $3, $4, $5, $6) ON CONFLICT(player, cls) DO UPDATE SET "
                  "rating = excluded.rating, deviation = excluded.deviation, "
                  "volatility = excluded.volatility, games = excluded.games",
    [OP_TOKEN] = "INSERT INTO tokens(hash, player, created_ms) VALUES($1, $2, $3) ON CONFLICT(hash) DO UPDATE "
                 "SET player = excluded.player, created_ms = excluded.created_ms",
    [OP_CHALLENGE] = "INSERT INTO challenges(id, from_player, to_player, listed, side, initial_ms, increment_ms, "
                     "rule, rated, created_ms) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
                     "ON CONFLICT(id) DO UPDATE SET from_player = excluded.from_player, "
                     "to_player = excluded.to_player, listed = excluded.listed, side = excluded.side, "
                     "initial_ms = excluded.initial_ms, increment_ms = excluded.increment_ms, "
                     "rule = excluded.rule, rated = excluded.rated, created_ms = excluded.created_ms",
    [OP_DELETE_CHALLENGE] = "DELETE FROM challenges WHERE id = $1",
    [OP_GAME] = "INSERT INTO games(" GAME_COLUMNS ") VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, "
                "$13, $14, $15, $16, $17, $18, $19, $20, $21) ON CONFLICT(id) DO UPDATE SET "
                "goats = excluded.goats, tigers = excluded.tigers, rule = excluded.rule, "
                "initial_ms = excluded.initial_ms, increment_ms = excluded.increment_ms, "
                "rated = excluded.rated, cls = excluded.cls, start_obx = excluded.start_obx, "
                "moves = excluded.moves, plies = excluded.plies, status = excluded.status, "
                "winner = excluded.winner, goats_ms = excluded.goats_ms, tigers_ms = excluded.tigers_ms, "
                "turn_started_ms = excluded.turn_started_ms, created_ms = excluded.created_ms, "
                "ended_ms = excluded.ended_ms, goats_rating_diff = excluded.goats_rating_diff, "
                "tigers_rating_diff = excluded.tigers_rating_diff, rematch_of = excluded.rematch_of",
    [OP_HEARTBEAT] = "INSERT INTO meta(key, value) VALUES('heartbeat', $1) "
                     "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    [OP_NOTIFY] = "SELECT pg_notify('baghchal', $1)",
    /* The game's row only with the deletion of its challenge's: of two servers starting a game
     * from one challenge at once, the second's DELETE waits for the first's commit, then finds
     * no row, and inserts nothing (its command tag says 0 rows). */
    [OP_START] = "WITH taken AS (DELETE FROM challenges WHERE id = $22 RETURNING id) "
                 "INSERT INTO games(" GAME_COLUMNS ") SELECT $1::text, $2::text, $3::text, $4::integer, "
                 "$5::bigint, $6::bigint, $7::integer, $8::text, $9::text, $10::text, $11::integer, $12::text, "
                 "$13::integer, $14::bigint, $15::bigint, $16::bigint, $17::bigint, $18::bigint, $19::integer, "
                 "$20::integer, $21::text FROM taken",
};

/* The reading connection's statements, prepared as "r0", "r1", ... */
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
    R_OWN,
    R_LIVE_HELD,
    R_DISOWN,
    R_COUNT
};

static const char *const read_sql[R_COUNT] = {
    [R_PLAYERS] = "SELECT id, name, kind, pw_hash, created_ms FROM players ORDER BY seq",
    [R_RATINGS] = "SELECT player, cls, rating, deviation, volatility, games FROM ratings",
    [R_CHALLENGES] = "SELECT id, from_player, to_player, listed, side, initial_ms, increment_ms, rule, rated, "
                     "created_ms FROM challenges ORDER BY created_ms, seq",
    [R_LIVE_GAMES] = "SELECT " GAME_COLUMNS " FROM games WHERE ended_ms = 0",
    [R_GAME] = "SELECT " GAME_COLUMNS " FROM games WHERE id = $1",
    [R_PLAYER_GAMES] = "SELECT id FROM games WHERE ended_ms <> 0 AND (goats = $1 OR tigers = $1) "
                       "ORDER BY ended_ms DESC, seq DESC LIMIT $2",
    [R_TOKEN] = "SELECT player FROM tokens WHERE hash = $1",
    [R_HEARTBEAT] = "SELECT value FROM meta WHERE key = 'heartbeat'",
    [R_PLAYER] = "SELECT id, name, kind, pw_hash, created_ms FROM players WHERE id = $1",
    [R_PLAYER_RATINGS] = "SELECT player, cls, rating, deviation, volatility, games FROM ratings WHERE player = $1",
    [R_CHALLENGE] = "SELECT id, from_player, to_player, listed, side, initial_ms, increment_ms, rule, rated, "
                    "created_ms FROM challenges WHERE id = $1",
    [R_NAME] = "SELECT id FROM players WHERE lower(name COLLATE \"C\") = lower($1 COLLATE \"C\") AND kind <> 0",
    [R_OWN] = "SELECT pg_try_advisory_lock(hashtextextended($1, 0))",
    /* The live games, each with whether some session holds its advisory lock (a bigint key's
     * lock is listed with its high half as classid, its low half as objid, objsubid 1). */
    [R_LIVE_HELD] = "WITH held AS (SELECT (classid::bigint << 32) | objid::bigint AS k FROM pg_locks "
                    "WHERE locktype = 'advisory' AND objsubid = 1 AND granted AND database = "
                    "(SELECT oid FROM pg_database WHERE datname = current_database())) "
                    "SELECT " GAME_COLUMNS ", hashtextextended(id, 0) IN (SELECT k FROM held) "
                    "FROM games WHERE ended_ms = 0",
    [R_DISOWN] = "SELECT pg_advisory_unlock(hashtextextended($1, 0))",
};

typedef struct {
    char *url;
    char name[96]; /* for messages: never the URL, which may hold a password */
    bool durable;
    PGconn *w, *r;
    char origin[40]; /* signs this store's messages */
    unsigned reader_resets; /* the reading connection made again: its games' holds lost */

    /* The listener: its connection and thread, and a pipe that wakes it to stop. */
    PGconn *l;
    pthread_t listener;
    bool listening;
    int stop[2];
    void (*heard)(void *ctx, const char *text);
    void *heard_ctx;
} pdb_t;

/* ---- connections ---------------------------------------------------------------------- */

static void quiet(void *arg, const char *message) { (void)arg, (void)message; }

static bool ok_command(PGresult *res)
{
    ExecStatusType st = PQresultStatus(res);
    PQclear(res);
    return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
}

static bool exec(PGconn *c, const char *sql) { return ok_command(PQexec(c, sql)); }

/* A connection's one-line last error. */
static void conn_err(const pdb_t *s, PGconn *c, char *err, size_t errlen)
{
    store_set_err(err, errlen, "%s: %s", s->name, c ? PQerrorMessage(c) : "out of memory");
}

/* Prepares the statements of one connection ('w' the writer's, 'r' the reader's). */
static bool prepare(PGconn *c, char which)
{
    const char *const *sql = which == 'w' ? write_sql : read_sql;
    int n = which == 'w' ? OP_COUNT : R_COUNT;
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "%c%d", which, i);
        if (!ok_command(PQprepare(c, name, sql[i], 0, NULL)))
            return false;
    }
    return true;
}

/* Settings and statements of a new (or reset) connection. */
static bool ready(pdb_t *s, PGconn *c, char which)
{
    PQsetNoticeProcessor(c, quiet, NULL);
    if (!s->durable && !exec(c, "SET synchronous_commit = off"))
        return false;
    return prepare(c, which);
}

static PGconn *connect_to(pdb_t *s, char *err, size_t errlen)
{
    /* A database that does not answer fails the start in 10 s unless the URL says otherwise
     * (the URL's own settings come after, and win). */
    const char *const keys[] = {"connect_timeout", "fallback_application_name", "dbname", NULL};
    const char *const values[] = {"10", "baghchal-server", s->url, NULL};
    PGconn *c = PQconnectdbParams(keys, values, 1);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        conn_err(s, c, err, errlen);
        PQfinish(c);
        return NULL;
    }
    return c;
}

/* After a failure: when the connection itself is lost, one new try (the next group or read
 * then runs on it). */
static void revive(pdb_t *s, PGconn *c, char which)
{
    if (PQstatus(c) == CONNECTION_OK)
        return;
    PQreset(c);
    if (which == 'r')
        s->reader_resets++;
    if (PQstatus(c) == CONNECTION_OK)
        ready(s, c, which);
}

/* ---- opening ---------------------------------------------------------------------------- */

/* Reads the version and takes the database to STORE_SCHEMA_VERSION in one transaction, under
 * the migration lock: *from is the version found. */
static bool migrate(pdb_t *s, int *from, char *err, size_t errlen)
{
    PGconn *c = s->w;
    if (!exec(c, "BEGIN") || !exec(c, "SELECT pg_advisory_xact_lock(" MIGRATION_LOCK ")") ||
        !exec(c, "CREATE TABLE IF NOT EXISTS schema_version(version INTEGER NOT NULL)")) {
        conn_err(s, c, err, errlen);
        exec(c, "ROLLBACK");
        return false;
    }
    PGresult *res = PQexec(c, "SELECT version FROM schema_version");
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        PQclear(res);
        conn_err(s, c, err, errlen);
        exec(c, "ROLLBACK");
        return false;
    }
    int version = PQntuples(res) ? atoi(PQgetvalue(res, 0, 0)) : 0;
    bool row = PQntuples(res) > 0;
    PQclear(res);
    *from = version;
    if (version > STORE_SCHEMA_VERSION) {
        exec(c, "ROLLBACK");
        store_set_err(err, errlen, "%s has schema version %d; this server knows up to %d: use a newer baghchal-server",
                      s->name, version, STORE_SCHEMA_VERSION);
        return false;
    }
    bool ok = true;
    for (int v = version; ok && v < STORE_SCHEMA_VERSION; v++)
        ok = exec(c, migrations[v]);
    if (ok && version < STORE_SCHEMA_VERSION) {
        char bump[80];
        snprintf(bump, sizeof bump,
                 row ? "UPDATE schema_version SET version = %d" : "INSERT INTO schema_version(version) VALUES(%d)",
                 STORE_SCHEMA_VERSION);
        ok = exec(c, bump);
    }
    if (!ok) {
        store_set_err(err, errlen, "%s: cannot upgrade from schema version %d: %s", s->name, version,
                      PQerrorMessage(c));
        exec(c, "ROLLBACK");
        return false;
    }
    if (!exec(c, "COMMIT")) {
        conn_err(s, c, err, errlen);
        return false;
    }
    return true;
}

static void pg_close(void *db)
{
    pdb_t *s = db;
    if (!s)
        return;
    if (s->listening) {
        char b = 0;
        while (write(s->stop[1], &b, 1) < 0 && errno == EINTR) {
        }
        pthread_join(s->listener, NULL);
        close(s->stop[0]), close(s->stop[1]);
    }
    PQfinish(s->l);
    PQfinish(s->w);
    PQfinish(s->r);
    free(s->url);
    free(s);
}

static const store_backend_t pg_backend;

void *store_pg_open(const char *url, bool durable, const store_backend_t **b, int *version, char *err, size_t errlen)
{
    pdb_t *s = calloc(1, sizeof *s);
    if (!s || !(s->url = strdup(url))) {
        free(s);
        store_set_err(err, errlen, "PostgreSQL: out of memory");
        return NULL;
    }
    s->durable = durable;
    snprintf(s->name, sizeof s->name, "PostgreSQL");
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    static unsigned opened; /* distinct origins for stores of one process */
    snprintf(s->origin, sizeof s->origin, "%ld.%ld.%u", (long)getpid(), (long)now.tv_nsec,
             __atomic_add_fetch(&opened, 1, __ATOMIC_RELAXED));
    if (!(s->w = connect_to(s, err, errlen))) {
        pg_close(s);
        return NULL;
    }
    snprintf(s->name, sizeof s->name, "PostgreSQL database %.60s", PQdb(s->w));
    PQsetNoticeProcessor(s->w, quiet, NULL);
    if (!migrate(s, version, err, errlen)) {
        pg_close(s);
        return NULL;
    }
    if (!ready(s, s->w, 'w')) {
        conn_err(s, s->w, err, errlen);
        pg_close(s);
        return NULL;
    }
    if (!(s->r = connect_to(s, err, errlen)) || !ready(s, s->r, 'r')) {
        if (s->r)
            conn_err(s, s->r, err, errlen);
        pg_close(s);
        return NULL;
    }
    *b = &pg_backend;
    return s;
}

/* ---- the writer ------------------------------------------------------------------------- */

/* A write's parameters as text. */
typedef struct {
    const char *v[22];
    char num[22][STORE_HASH_LEN]; /* room for the longest fixed field */
    int n;
} params_t;

static void p_text(params_t *p, const char *s) { p->v[p->n++] = s; }

/* A fixed field's text: a copy of up to its size, terminated. */
static void p_field(params_t *p, const char *s, size_t size)
{
    size_t n = strnlen(s, size);
    if (n >= sizeof p->num[0])
        n = sizeof p->num[0] - 1;
    memcpy(p->num[p->n], s, n);
    p->num[p->n][n] = '\0';
    p->v[p->n] = p->num[p->n];
    p->n++;
}
#define P_FIELD(p, f) p_field(p, f, sizeof(f))

static void p_int(params_t *p, int64_t x)
{
    snprintf(p->num[p->n], sizeof p->num[0], "%lld", (long long)x);
    p->v[p->n] = p->num[p->n];
    p->n++;
}

static void p_real(params_t *p, double x)
{
    snprintf(p->num[p->n], sizeof p->num[0], "%.17g", x);
    p->v[p->n] = p->num[p->n];
    p->n++;
}

/* An OP_START's result: was its challenge taken, and the game inserted? */
static bool started(const PGresult *res) { return !strcmp(PQcmdTuples((PGresult *)res), "1"); }

/* Runs one write's statement, or only sends it (a pipeline's). */
static bool apply(pdb_t *s, write_t *w, bool send)
{
    params_t p = {.n = 0};
    switch (w->op) {
    case OP_PLAYER:
        P_FIELD(&p, w->u.player.id);
        P_FIELD(&p, w->u.player.name);
        p_int(&p, w->u.player.kind);
        P_FIELD(&p, w->u.player.pw_hash);
        p_int(&p, w->u.player.created_ms);
        break;
    case OP_RATING:
        P_FIELD(&p, w->u.rating.player);
        P_FIELD(&p, w->u.rating.cls);
        p_real(&p, w->u.rating.g.rating);
        p_real(&p, w->u.rating.g.deviation);
        p_real(&p, w->u.rating.g.volatility);
        p_int(&p, w->u.rating.g.games);
        break;
    case OP_TOKEN:
        P_FIELD(&p, w->u.token.hash);
        P_FIELD(&p, w->u.token.player);
        p_int(&p, w->u.token.created_ms);
        break;
    case OP_CHALLENGE: {
        const store_challenge_t *c = &w->u.challenge;
        P_FIELD(&p, c->id);
        P_FIELD(&p, c->from);
        P_FIELD(&p, c->to);
        p_int(&p, c->listed);
        p_int(&p, (int)c->side);
        p_int(&p, c->initial_ms);
        p_int(&p, c->increment_ms);
        p_int(&p, c->rule);
        p_int(&p, c->rated);
        p_int(&p, c->created_ms);
        break;
    }
    case OP_DELETE_CHALLENGE:
        P_FIELD(&p, w->u.id);
        break;
    case OP_GAME:
    case OP_START: {
        const store_game_t *g = &w->u.game;
        P_FIELD(&p, g->id);
        P_FIELD(&p, g->goats);
        P_FIELD(&p, g->tigers);
        p_int(&p, g->rule);
        p_int(&p, g->initial_ms);
        p_int(&p, g->increment_ms);
        p_int(&p, g->rated);
        P_FIELD(&p, g->cls);
        P_FIELD(&p, g->start_obx);
        p_text(&p, g->moves ? g->moves : "");
        p_int(&p, g->plies);
        P_FIELD(&p, g->status);
        p_int(&p, g->winner);
        p_int(&p, g->goats_ms);
        p_int(&p, g->tigers_ms);
        p_int(&p, g->turn_started_ms);
        p_int(&p, g->created_ms);
        p_int(&p, g->ended_ms);
        p_int(&p, g->goats_rating_diff);
        p_int(&p, g->tigers_rating_diff);
        P_FIELD(&p, g->rematch_of);
        if (w->op == OP_START)
            P_FIELD(&p, w->claim);
        break;
    }
    case OP_HEARTBEAT:
        p_int(&p, w->u.now_ms);
        break;
    case OP_NOTIFY:
        break;
    default:
        return false;
    }
    char name[16], *note = NULL;
    snprintf(name, sizeof name, "w%d", w->op);
    if (w->op == OP_NOTIFY) {
        size_t n = strlen(s->origin) + strlen(w->note) + 2;
        if (!(note = malloc(n)))
            return false;
        snprintf(note, n, "%s %s", s->origin, w->note);
        p_text(&p, note);
    }
    w->lost = false;
    bool ok;
    if (send) {
        ok = PQsendQueryPrepared(s->w, name, p.n, p.v, NULL, NULL, 0) == 1;
    } else {
        PGresult *res = PQexecPrepared(s->w, name, p.n, p.v, NULL, NULL, 0);
        ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;
        if (ok && w->op == OP_START && !started(res))
            ok = false, w->lost = true;
        PQclear(res);
    }
    free(note);
    return ok;
}

static void fail_from(write_t *from, const write_t *to)
{
    for (write_t *x = from; x != to; x = x->next)
        x->ok = false;
}

/* The group in one round trip (libpq's pipeline): BEGIN, every write, COMMIT. True when all
 * of it was committed; otherwise nothing was, and the connection is out of its transaction. */
static bool run_pipelined(pdb_t *s, write_t *group)
{
    PGconn *c = s->w;
    if (!PQenterPipelineMode(c))
        return false;
    bool ok = PQsendQueryParams(c, "BEGIN", 0, NULL, NULL, NULL, NULL, 0) == 1;
    for (write_t *w = group; ok && w; w = w->next)
        ok = apply(s, w, true);
    ok = ok && PQsendQueryParams(c, "COMMIT", 0, NULL, NULL, NULL, NULL, 0) == 1;
    bool sync_sent = PQpipelineSync(c) == 1, synced = false;
    /* Every result up to the pipeline's end; one that is not a success fails the whole. (A
     * query's results end with a NULL; a lost connection gives only NULLs.) at is the write
     * whose results come (BEGIN's first: none). A game started from a challenge already gone
     * inserted nothing: the rest of the group stands. */
    write_t *at = NULL;
    bool begun = false;
    for (long k = 0; sync_sent && !synced && k < 1000000 && PQstatus(c) == CONNECTION_OK; k++) {
        PGresult *res = PQgetResult(c);
        if (!res) {
            if (!begun)
                begun = true, at = group;
            else if (at)
                at = at->next;
            continue;
        }
        ExecStatusType st = PQresultStatus(res);
        synced = st == PGRES_PIPELINE_SYNC;
        if (!synced && st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
            ok = false;
        if (at && at->op == OP_START && st == PGRES_COMMAND_OK && !started(res))
            at->lost = true;
        PQclear(res);
    }
    ok = ok && synced;
    PQexitPipelineMode(c);
    if (!ok && PQstatus(c) == CONNECTION_OK)
        exec(c, "ROLLBACK"); /* a failed explicit transaction stays open, aborted */
    return ok;
}

/* One transaction: first all in one round trip; when a write fails (a second player of one
 * name), again a savepoint per write, so that it alone is undone. A lost connection fails the
 * group; the next one runs on a new connection. */
static uint64_t pg_run_group(void *db, write_t *group)
{
    pdb_t *s = db;
    PGconn *c = s->w;
    if (run_pipelined(s, group)) {
        for (write_t *w = group; w; w = w->next)
            w->ok = !w->lost;
        return 1;
    }
    fail_from(group, NULL);
    if (!exec(c, "BEGIN")) {
        revive(s, c, 'w');
        return 0;
    }
    for (write_t *w = group; w; w = w->next) {
        if (!exec(c, "SAVEPOINT w")) {
            fail_from(group, NULL);
            exec(c, "ROLLBACK");
            revive(s, c, 'w');
            return 0;
        }
        w->ok = apply(s, w, false);
        if ((!w->ok && !exec(c, "ROLLBACK TO SAVEPOINT w")) || !exec(c, "RELEASE SAVEPOINT w")) {
            fail_from(group, NULL);
            exec(c, "ROLLBACK");
            revive(s, c, 'w');
            return 0;
        }
    }
    if (!exec(c, "COMMIT")) {
        /* Lost between the COMMIT and its answer, it may have been committed: the writes are
         * upserts, so the client's retry is harmless. */
        fail_from(group, NULL);
        revive(s, c, 'w');
        return 0;
    }
    return 1;
}

/* ---- reads ------------------------------------------------------------------------------ */

/* Runs a read; the rows, or NULL with the reason in err. */
static PGresult *query(pdb_t *s, int which, int n, const char *const *values, char *err, size_t errlen)
{
    char name[16];
    snprintf(name, sizeof name, "r%d", which);
    PGresult *res = PQexecPrepared(s->r, name, n, values, NULL, NULL, 0);
    if (PQresultStatus(res) == PGRES_TUPLES_OK)
        return res;
    PQclear(res);
    conn_err(s, s->r, err, errlen);
    revive(s, s->r, 'r');
    return NULL;
}

static void copy_value(const PGresult *res, int row, int col, char *dst, size_t size)
{
    const char *t = PQgetvalue(res, row, col);
    size_t n = (size_t)PQgetlength(res, row, col);
    if (n >= size)
        n = size - 1;
    memcpy(dst, t, n);
    dst[n] = '\0';
}
#define COPY_VALUE(res, row, col, f) copy_value(res, row, col, f, sizeof(f))

static int64_t int_value(const PGresult *res, int row, int col) { return strtoll(PQgetvalue(res, row, col), NULL, 10); }

static void row_player(const PGresult *res, int i, store_player_t *p)
{
    memset(p, 0, sizeof *p);
    COPY_VALUE(res, i, 0, p->id);
    COPY_VALUE(res, i, 1, p->name);
    p->kind = (store_kind_t)int_value(res, i, 2);
    COPY_VALUE(res, i, 3, p->pw_hash);
    p->created_ms = int_value(res, i, 4);
}

static void row_rating(const PGresult *res, int i, store_rating_t *r)
{
    memset(r, 0, sizeof *r);
    COPY_VALUE(res, i, 0, r->player);
    COPY_VALUE(res, i, 1, r->cls);
    r->g.rating = strtod(PQgetvalue(res, i, 2), NULL);
    r->g.deviation = strtod(PQgetvalue(res, i, 3), NULL);
    r->g.volatility = strtod(PQgetvalue(res, i, 4), NULL);
    r->g.games = (int)int_value(res, i, 5);
}

static void row_challenge(const PGresult *res, int i, store_challenge_t *c)
{
    memset(c, 0, sizeof *c);
    COPY_VALUE(res, i, 0, c->id);
    COPY_VALUE(res, i, 1, c->from);
    COPY_VALUE(res, i, 2, c->to);
    c->listed = int_value(res, i, 3) != 0;
    c->side = (store_side_t)int_value(res, i, 4);
    c->initial_ms = int_value(res, i, 5);
    c->increment_ms = int_value(res, i, 6);
    c->rule = (int)int_value(res, i, 7);
    c->rated = int_value(res, i, 8) != 0;
    c->created_ms = int_value(res, i, 9);
}

/* pg_each_NAME: every row of the statement STMT, read by ROW into a T, handed to fn. */
#define PG_EACH(name, T, STMT, ROW)                                                                           \
    static bool pg_each_##name(void *db, void (*fn)(void *ctx, const T *x), void *ctx, char *err, size_t errlen) \
    {                                                                                                         \
        PGresult *res = query(db, STMT, 0, NULL, err, errlen);                                                \
        if (!res)                                                                                             \
            return false;                                                                                     \
        for (int i = 0, n = PQntuples(res); i < n; i++) {                                                     \
            T x;                                                                                              \
            ROW(res, i, &x);                                                                                  \
            fn(ctx, &x);                                                                                      \
        }                                                                                                     \
        PQclear(res);                                                                                         \
        return true;                                                                                          \
    }
PG_EACH(player, store_player_t, R_PLAYERS, row_player)
PG_EACH(rating, store_rating_t, R_RATINGS, row_rating)
PG_EACH(challenge, store_challenge_t, R_CHALLENGES, row_challenge)

/* Row i of GAME_COLUMNS into g (moves on the heap); false when out of memory. */
static bool read_game(const PGresult *res, int i, store_game_t *g)
{
    memset(g, 0, sizeof *g);
    COPY_VALUE(res, i, 0, g->id);
    COPY_VALUE(res, i, 1, g->goats);
    COPY_VALUE(res, i, 2, g->tigers);
    g->rule = (int)int_value(res, i, 3);
    g->initial_ms = int_value(res, i, 4);
    g->increment_ms = int_value(res, i, 5);
    g->rated = int_value(res, i, 6) != 0;
    COPY_VALUE(res, i, 7, g->cls);
    COPY_VALUE(res, i, 8, g->start_obx);
    size_t n = (size_t)PQgetlength(res, i, 9);
    if (!(g->moves = malloc(n + 1)))
        return false;
    memcpy(g->moves, PQgetvalue(res, i, 9), n);
    g->moves[n] = '\0';
    g->plies = (int)int_value(res, i, 10);
    COPY_VALUE(res, i, 11, g->status);
    g->winner = (int)int_value(res, i, 12);
    g->goats_ms = int_value(res, i, 13);
    g->tigers_ms = int_value(res, i, 14);
    g->turn_started_ms = int_value(res, i, 15);
    g->created_ms = int_value(res, i, 16);
    g->ended_ms = int_value(res, i, 17);
    g->goats_rating_diff = (int)int_value(res, i, 18);
    g->tigers_rating_diff = (int)int_value(res, i, 19);
    COPY_VALUE(res, i, 20, g->rematch_of);
    return true;
}

/* The live games a query reads, each with whether a server holds it (its column held; -1: the
 * query does not say, and every game is passed as not held). */
static bool each_live(pdb_t *s, int q, int held, void (*fn)(void *ctx, store_game_t *g, bool held), void *ctx,
                      char *err, size_t errlen)
{
    PGresult *res = query(s, q, 0, NULL, err, errlen);
    if (!res)
        return false;
    bool ok = true;
    for (int i = 0, n = PQntuples(res); i < n; i++) {
        store_game_t g;
        if (!read_game(res, i, &g)) {
            store_set_err(err, errlen, "%s: out of memory", s->name);
            ok = false;
            break;
        }
        fn(ctx, &g, held >= 0 && !strcmp(PQgetvalue(res, i, held), "t"));
        store_game_free(&g);
    }
    PQclear(res);
    return ok;
}

typedef struct {
    void (*fn)(void *ctx, store_game_t *g);
    void *ctx;
} live_fn_t;

static void live_game(void *ctx, store_game_t *g, bool held)
{
    (void)held;
    live_fn_t *f = ctx;
    f->fn(f->ctx, g);
}

static bool pg_each_live_game(void *db, void (*fn)(void *ctx, store_game_t *g), void *ctx, char *err, size_t errlen)
{
    live_fn_t f = {fn, ctx};
    return each_live(db, R_LIVE_GAMES, -1, live_game, &f, err, errlen);
}

static bool pg_each_live_game_held(void *db, void (*fn)(void *ctx, store_game_t *g, bool held), void *ctx, char *err,
                                   size_t errlen)
{
    /* Column 21: the query's "held", after the game's columns. */
    return each_live(db, R_LIVE_HELD, 21, fn, ctx, err, errlen);
}

static int pg_get_game(void *db, const char *id, store_game_t *out, char *err, size_t errlen)
{
    pdb_t *s = db;
    PGresult *res = query(s, R_GAME, 1, &id, err, errlen);
    if (!res)
        return -1;
    int found = PQntuples(res) > 0;
    if (found && !read_game(res, 0, out)) {
        store_game_free(out);
        store_set_err(err, errlen, "%s: out of memory", s->name);
        found = -1;
    }
    PQclear(res);
    return found;
}

static int pg_player_games(void *db, const char *player, char (*ids)[STORE_ID_LEN], int max, char *err,
                           size_t errlen)
{
    char limit[16];
    snprintf(limit, sizeof limit, "%d", max);
    const char *values[2] = {player, limit};
    PGresult *res = query(db, R_PLAYER_GAMES, 2, values, err, errlen);
    if (!res)
        return -1;
    int n = PQntuples(res);
    if (n > max)
        n = max;
    for (int i = 0; i < n; i++)
        copy_value(res, i, 0, ids[i], STORE_ID_LEN);
    PQclear(res);
    return n;
}

/* The player id the statement stmt finds for arg: 1 found, 0 none, -1 error. */
static int find_player_id(void *db, int stmt, const char *arg, char player[STORE_ID_LEN], char *err, size_t errlen)
{
    PGresult *res = query(db, stmt, 1, &arg, err, errlen);
    if (!res)
        return -1;
    int found = PQntuples(res) > 0;
    if (found)
        copy_value(res, 0, 0, player, STORE_ID_LEN);
    PQclear(res);
    return found;
}

static int pg_find_token(void *db, const char *token_hash, char player[STORE_ID_LEN], char *err, size_t errlen)
{
    return find_player_id(db, R_TOKEN, token_hash, player, err, errlen);
}

static int64_t pg_last_heartbeat(void *db)
{
    PGresult *res = query(db, R_HEARTBEAT, 0, NULL, NULL, 0);
    if (!res)
        return 0;
    int64_t at = PQntuples(res) ? int_value(res, 0, 0) : 0;
    PQclear(res);
    return at;
}

static int pg_get_player(void *db, const char *id, store_player_t *out, store_rating_t *ratings, int max,
                         int *nratings, char *err, size_t errlen)
{
    PGresult *res = query(db, R_PLAYER, 1, &id, err, errlen);
    if (!res)
        return -1;
    int found = PQntuples(res) > 0;
    if (found)
        row_player(res, 0, out);
    PQclear(res);
    if (!found)
        return 0;
    if (!(res = query(db, R_PLAYER_RATINGS, 1, &id, err, errlen)))
        return -1;
    for (int i = 0, n = PQntuples(res); i < n && *nratings < max; i++)
        row_rating(res, i, &ratings[(*nratings)++]);
    PQclear(res);
    return 1;
}

static int pg_get_challenge(void *db, const char *id, store_challenge_t *out, char *err, size_t errlen)
{
    PGresult *res = query(db, R_CHALLENGE, 1, &id, err, errlen);
    if (!res)
        return -1;
    int found = PQntuples(res) > 0;
    if (found)
        row_challenge(res, 0, out);
    PQclear(res);
    return found;
}

static int pg_find_name(void *db, const char *name, char player[STORE_ID_LEN], char *err, size_t errlen)
{
    return find_player_id(db, R_NAME, name, player, err, errlen);
}

/* A game's hold: a session advisory lock on its id's hash, on the reading connection. */
static int pg_own_game(void *db, const char *id, bool take)
{
    pdb_t *s = db;
    PGresult *res = query(s, take ? R_OWN : R_DISOWN, 1, &id, NULL, 0);
    if (!res)
        return -1;
    int k = PQntuples(res) && !strcmp(PQgetvalue(res, 0, 0), "t");
    PQclear(res);
    return k;
}

static unsigned pg_holds_epoch(void *db) { return ((pdb_t *)db)->reader_resets; }

/* ---- the listener ----------------------------------------------------------------------- */

/* Waits up to ms for the stop pipe: true when told to stop. */
static bool stopped(pdb_t *s, int fd, int ms)
{
    struct pollfd f[2] = {{.fd = s->stop[0], .events = POLLIN}, {.fd = fd, .events = POLLIN}};
    poll(f, fd >= 0 ? 2 : 1, ms);
    return f[0].revents != 0;
}

static bool listen_on(PGconn *c)
{
    PQsetNoticeProcessor(c, quiet, NULL);
    return exec(c, "LISTEN baghchal");
}

static void *listener_main(void *arg)
{
    pdb_t *s = arg;
    size_t own = strlen(s->origin);
    for (;;) {
        if (!s->l) {
            /* Lost: made again, and the room told that it may have missed messages. */
            char err[256];
            PGconn *c = connect_to(s, err, sizeof err);
            if (!c || !listen_on(c)) {
                PQfinish(c);
                if (stopped(s, -1, 1000))
                    break;
                continue;
            }
            s->l = c;
            s->heard(s->heard_ctx, NULL);
        }
        if (stopped(s, PQsocket(s->l), 1000))
            break;
        if (!PQconsumeInput(s->l)) {
            PQfinish(s->l);
            s->l = NULL;
            continue;
        }
        PGnotify *n;
        while ((n = PQnotifies(s->l))) {
            const char *text = n->extra;
            if (strncmp(text, s->origin, own) || text[own] != ' ') {
                const char *sp = strchr(text, ' ');
                if (sp)
                    s->heard(s->heard_ctx, sp + 1);
            }
            PQfreemem(n);
        }
    }
    return NULL;
}

static int pg_listen(void *db, void (*fn)(void *ctx, const char *text), void *ctx, char *err, size_t errlen)
{
    pdb_t *s = db;
    if (s->listening) {
        store_set_err(err, errlen, "%s: already listening", s->name);
        return -1;
    }
    if (!(s->l = connect_to(s, err, errlen)))
        return -1;
    if (!listen_on(s->l)) {
        conn_err(s, s->l, err, errlen);
        PQfinish(s->l);
        s->l = NULL;
        return -1;
    }
    s->heard = fn, s->heard_ctx = ctx;
    if (pipe(s->stop) != 0) {
        store_set_err(err, errlen, "%s: cannot make a pipe", s->name);
        return -1;
    }
    if (pthread_create(&s->listener, NULL, listener_main, s) != 0) {
        close(s->stop[0]), close(s->stop[1]);
        store_set_err(err, errlen, "%s: cannot start the listener thread", s->name);
        return -1;
    }
    s->listening = true;
    return 1;
}

static const store_backend_t pg_backend = {
    .own_game = pg_own_game,
    .holds_epoch = pg_holds_epoch,
    .find_name = pg_find_name,
    .get_player = pg_get_player,
    .get_challenge = pg_get_challenge,
    .listen = pg_listen,
    .run_group = pg_run_group,
    .committed = NULL,
    .close = pg_close,
    .each_player = pg_each_player,
    .each_rating = pg_each_rating,
    .each_challenge = pg_each_challenge,
    .each_live_game = pg_each_live_game,
    .each_live_game_held = pg_each_live_game_held,
    .get_game = pg_get_game,
    .player_games = pg_player_games,
    .find_token = pg_find_token,
    .last_heartbeat = pg_last_heartbeat,
};

#endif
