/* The room's storage (tools/obx-server/room/store.h): every record read back as written, the
 * file's schema versions, queued writes committed many to a transaction and acknowledged only
 * once stored (even when the process is killed right after), one failing write undone alone,
 * and reads from other threads while the writer writes.
 *
 * Run by tests/support/postgres.sh (BAGHCHAL_TEST_POSTGRES set), the same cases run against
 * PostgreSQL, each test in a database of its own; the few about SQLite's file have
 * PostgreSQL's counterparts. */
#include <criterion/criterion.h>

#ifndef BAGHCHAL_ROOM
Test(store, not_built, .disabled = true) {}
#else
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pgtest.h"
#include "store.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static char dir[64];
static char db[256]; /* the file, or under PostgreSQL the database's URL */

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/baghchal-store-XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    snprintf(db, sizeof db, "%s/room.db", dir);
    char err[256] = "";
    if (pgtest_server())
        cr_assert(pgtest_fresh("store", db, sizeof db, err, sizeof err), "%s", err);
}

static void remove_dir(void)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (unlink(p) != 0)
            rmdir(p);
    }
    closedir(d);
    rmdir(dir);
}

/* The cases about SQLite's file alone, or PostgreSQL's database alone. A skipped test does
 * not reach the suite's fini, so the folder goes first. */
static void sqlite_only(void)
{
    if (pgtest_server()) {
        remove_dir();
        cr_skip_test("about SQLite's file");
    }
}
static void postgres_only(void)
{
    if (!pgtest_server()) {
        remove_dir();
        cr_skip_test("run by tests/support/postgres.sh");
    }
}

TestSuite(store, .init = make_dir, .fini = remove_dir, .timeout = 300);

static store_t *open_store(bool durable)
{
    char err[256] = "";
    store_t *s = store_open(db, durable, err, sizeof err);
    cr_assert_not_null(s, "store_open: %s", err);
    return s;
}

/* Counts callbacks; atomic because they run on the writer thread. */
typedef struct {
    atomic_int ok, failed;
} count_t;

static void count_cb(void *ctx, bool ok)
{
    count_t *c = ctx;
    if (ok)
        atomic_fetch_add(&c->ok, 1);
    else
        atomic_fetch_add(&c->failed, 1);
}

/* A write whose callback holds the writer until the test opens the gate: what the test queues
 * meanwhile is one group. */
typedef struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    bool entered, open, ok;
} gate_t;

static void gate_init(gate_t *g)
{
    memset(g, 0, sizeof *g);
    pthread_mutex_init(&g->m, NULL);
    pthread_cond_init(&g->c, NULL);
}

static void gate_cb(void *ctx, bool ok)
{
    gate_t *g = ctx;
    pthread_mutex_lock(&g->m);
    g->entered = true;
    g->ok = ok;
    pthread_cond_broadcast(&g->c);
    while (!g->open)
        pthread_cond_wait(&g->c, &g->m);
    pthread_mutex_unlock(&g->m);
}

/* Queues a write that holds the writer, and waits until it does (its group taken alone). */
static void gate_close(store_t *s, gate_t *g)
{
    gate_init(g);
    cr_assert(store_heartbeat(s, 1, gate_cb, g));
    pthread_mutex_lock(&g->m);
    while (!g->entered)
        pthread_cond_wait(&g->c, &g->m);
    pthread_mutex_unlock(&g->m);
}

static void gate_open(gate_t *g)
{
    pthread_mutex_lock(&g->m);
    g->open = true;
    pthread_cond_broadcast(&g->c);
    pthread_mutex_unlock(&g->m);
}

static void gate_destroy(gate_t *g)
{
    pthread_mutex_destroy(&g->m);
    pthread_cond_destroy(&g->c);
}

static store_player_t player(const char *id, const char *name, store_kind_t kind)
{
    store_player_t p;
    memset(&p, 0, sizeof p);
    snprintf(p.id, sizeof p.id, "%s", id);
    snprintf(p.name, sizeof p.name, "%s", name);
    p.kind = kind;
    if (kind == STORE_NAMED)
        snprintf(p.pw_hash, sizeof p.pw_hash, "$argon2id$v=19$m=65536,t=2,p=1$c2FsdHNhbHQ$%s", id);
    p.created_ms = 1700000000000 + (int64_t)strlen(id) * 7;
    return p;
}

/* A game with plies moves ("C3 A1B1 ..."), every field set to something of its own. */
static store_game_t game(const char *id, const char *goats, const char *tigers, int plies, int64_t ended_ms)
{
    store_game_t g;
    memset(&g, 0, sizeof g);
    snprintf(g.id, sizeof g.id, "%s", id);
    snprintf(g.goats, sizeof g.goats, "%s", goats);
    snprintf(g.tigers, sizeof g.tigers, "%s", tigers);
    g.rule = 1;
    g.initial_ms = 300000;
    g.increment_ms = 3000;
    g.rated = true;
    snprintf(g.cls, sizeof g.cls, "blitz");
    snprintf(g.start_obx, sizeof g.start_obx, "T3T/5/5/5/T3T g 20 0");
    g.moves = malloc((size_t)plies * 5 + 1);
    cr_assert_not_null(g.moves);
    char *m = g.moves;
    *m = '\0';
    for (int i = 0; i < plies; i++)
        m += sprintf(m, i ? " %c%d" : "%c%d", 'A' + i % 5, 1 + i % 5);
    g.plies = plies;
    snprintf(g.status, sizeof g.status, ended_ms ? "resign" : "started");
    g.winner = ended_ms ? 2 : 0;
    g.goats_ms = 250000 + plies;
    g.tigers_ms = 240000 - plies;
    g.turn_started_ms = 1700000001234 + plies;
    g.created_ms = 1700000000000;
    g.ended_ms = ended_ms;
    g.goats_rating_diff = ended_ms ? -12 : 0;
    g.tigers_rating_diff = ended_ms ? 11 : 0;
    snprintf(g.rematch_of, sizeof g.rematch_of, "prev%s", id);
    return g;
}

static void assert_same_game(const store_game_t *a, const store_game_t *b)
{
    cr_assert_str_eq(a->id, b->id);
    cr_assert_str_eq(a->goats, b->goats);
    cr_assert_str_eq(a->tigers, b->tigers);
    cr_assert_eq(a->rule, b->rule);
    cr_assert_eq(a->initial_ms, b->initial_ms);
    cr_assert_eq(a->increment_ms, b->increment_ms);
    cr_assert_eq(a->rated, b->rated);
    cr_assert_str_eq(a->cls, b->cls);
    cr_assert_str_eq(a->start_obx, b->start_obx);
    cr_assert_str_eq(a->moves, b->moves);
    cr_assert_eq(a->plies, b->plies);
    cr_assert_str_eq(a->status, b->status);
    cr_assert_eq(a->winner, b->winner);
    cr_assert_eq(a->goats_ms, b->goats_ms);
    cr_assert_eq(a->tigers_ms, b->tigers_ms);
    cr_assert_eq(a->turn_started_ms, b->turn_started_ms);
    cr_assert_eq(a->created_ms, b->created_ms);
    cr_assert_eq(a->ended_ms, b->ended_ms);
    cr_assert_eq(a->goats_rating_diff, b->goats_rating_diff);
    cr_assert_eq(a->tigers_rating_diff, b->tigers_rating_diff);
    cr_assert_str_eq(a->rematch_of, b->rematch_of);
}

/* Collectors for the store_each_* calls. */
typedef struct {
    store_player_t p[64];
    int n;
} players_t;
static void collect_player(void *ctx, const store_player_t *p)
{
    players_t *c = ctx;
    if (c->n < 64)
        c->p[c->n] = *p;
    c->n++;
}

typedef struct {
    store_rating_t r[16];
    int n;
} ratings_t;
static void collect_rating(void *ctx, const store_rating_t *r)
{
    ratings_t *c = ctx;
    if (c->n < 16)
        c->r[c->n] = *r;
    c->n++;
}

typedef struct {
    store_challenge_t c[16];
    int n;
} challenges_t;
static void collect_challenge(void *ctx, const store_challenge_t *ch)
{
    challenges_t *c = ctx;
    if (c->n < 16)
        c->c[c->n] = *ch;
    c->n++;
}

typedef struct {
    store_game_t g[16];
    int n;
} games_t;
/* Takes the game's moves, as the room does. */
static void collect_game(void *ctx, store_game_t *g)
{
    games_t *c = ctx;
    if (c->n < 16) {
        c->g[c->n] = *g;
        g->moves = NULL;
    }
    c->n++;
}

static const store_player_t *find_player(const players_t *ps, const char *id)
{
    for (int i = 0; i < ps->n && i < 64; i++)
        if (!strcmp(ps->p[i].id, id))
            return &ps->p[i];
    return NULL;
}

static int user_version(const char *path)
{
    char err[256] = "";
    if (pgtest_server()) {
        char *t = pgtest_value(path, "SELECT to_regclass('schema_version') IS NOT NULL", err, sizeof err);
        cr_assert_not_null(t, "%s", err);
        bool there = !strcmp(t, "t");
        free(t);
        if (!there)
            return 0;
        t = pgtest_value(path, "SELECT version FROM schema_version", err, sizeof err);
        cr_assert_not_null(t, "%s", err);
        int v = atoi(t);
        free(t);
        return v;
    }
    sqlite3 *h;
    cr_assert_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    int v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

static void sql(const char *path, const char *script)
{
    char err[256] = "";
    if (pgtest_server()) {
        cr_assert(pgtest_exec(path, script, err, sizeof err), "%s", err);
        return;
    }
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
    char *msg = NULL;
    cr_assert_eq(sqlite3_exec(h, script, NULL, NULL, &msg), SQLITE_OK, "%s", msg ? msg : "");
    sqlite3_close(h);
}

/* ---- the file ----------------------------------------------------------------------------- */

Test(store, a_new_file_is_created_at_the_current_version)
{
    store_t *s = open_store(false);
    cr_assert_eq(store_opened_version(s), 0);
    store_close(s);
    cr_assert_eq(user_version(db), STORE_SCHEMA_VERSION);
    s = open_store(false);
    cr_assert_eq(store_opened_version(s), STORE_SCHEMA_VERSION);
    store_close(s);
}

Test(store, an_older_file_is_upgraded_and_keeps_what_it_held)
{
    /* Version 0: a database that is not yet the room's, with a table of its own. */
    sql(db, "CREATE TABLE notes(x TEXT); INSERT INTO notes VALUES('kept');");
    cr_assert_eq(user_version(db), 0);
    store_t *s = open_store(false);
    cr_assert_eq(store_opened_version(s), 0);
    store_player_t p = player("p1", "Asha", STORE_NAMED);
    count_t c = {0};
    cr_assert(store_put_player(s, &p, count_cb, &c));
    store_close(s);
    cr_assert_eq(atomic_load(&c.ok), 1);
    cr_assert_eq(user_version(db), STORE_SCHEMA_VERSION);

    if (pgtest_server()) {
        char err[256] = "";
        char *t = pgtest_value(db, "SELECT x FROM notes", err, sizeof err);
        cr_assert_not_null(t, "%s", err);
        cr_assert_str_eq(t, "kept");
        free(t);
        return;
    }
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, "SELECT x FROM notes", -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "kept");
    sqlite3_finalize(st);
    cr_assert_eq(sqlite3_prepare_v2(h, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    sqlite3_close(h);
}

Test(store, a_newer_file_is_refused_with_both_versions_and_left_alone)
{
    sqlite_only();
    sql(db, "CREATE TABLE future(x); PRAGMA user_version = 2;");
    char err[256] = "";
    cr_assert_null(store_open(db, false, err, sizeof err));
    char want[400];
    snprintf(want, sizeof want, "%s has schema version 2; this server knows up to 1: use a newer baghchal-server", db);
    cr_assert_str_eq(err, want);
    cr_assert_eq(user_version(db), 2);
    char wal[300];
    snprintf(wal, sizeof wal, "%s-wal", db);
    cr_assert_neq(access(wal, F_OK), 0, "the refused file was switched to WAL");
}

Test(store, a_file_that_is_not_a_database_is_refused_in_one_line)
{
    sqlite_only();
    FILE *f = fopen(db, "w");
    cr_assert_not_null(f);
    fputs("these are not the pages of a database, only some words long enough to be read as a header\n", f);
    fclose(f);
    char err[256] = "";
    cr_assert_null(store_open(db, false, err, sizeof err));
    cr_assert(strstr(err, db) == err, "%s", err);
    cr_assert(strlen(err) > strlen(db) + 2, "%s", err);
    cr_assert_null(strchr(err, '\n'), "%s", err);
    cr_assert(strstr(err, "not a database"), "%s", err);
}

Test(store, a_fifo_a_directory_or_an_impossible_path_is_refused_without_blocking)
{
    sqlite_only();
    char err[256];
    cr_assert_eq(mkfifo(db, 0600), 0, "mkfifo: %s", strerror(errno));
    err[0] = '\0';
    cr_assert_null(store_open(db, false, err, sizeof err));
    cr_assert(strstr(err, db) && strstr(err, "not a regular file"), "%s", err);
    unlink(db);

    cr_assert_eq(mkdir(db, 0700), 0);
    err[0] = '\0';
    cr_assert_null(store_open(db, false, err, sizeof err));
    cr_assert(strstr(err, db) && strstr(err, "not a regular file"), "%s", err);
    rmdir(db);

    char deep[200];
    snprintf(deep, sizeof deep, "%s/no/such/folder/room.db", dir);
    err[0] = '\0';
    cr_assert_null(store_open(deep, false, err, sizeof err));
    cr_assert(strstr(err, deep) == err && !strchr(err, '\n'), "%s", err);

    err[0] = '\0';
    cr_assert_null(store_open("", false, err, sizeof err));
    cr_assert_neq(err[0], '\0');
}

Test(store, a_newer_postgresql_database_is_refused_with_both_versions_and_left_alone)
{
    postgres_only();
    sql(db, "CREATE TABLE future(x INTEGER); CREATE TABLE schema_version(version INTEGER NOT NULL); "
            "INSERT INTO schema_version VALUES(2);");
    char err[256] = "";
    cr_assert_null(store_open(db, false, err, sizeof err));
    char *name = pgtest_value(db, "SELECT current_database()", err + 128, 128);
    cr_assert_not_null(name);
    char want[400];
    snprintf(want, sizeof want,
             "PostgreSQL database %s has schema version 2; this server knows up to 1: use a newer baghchal-server",
             name);
    free(name);
    cr_assert_str_eq(err, want);
    cr_assert_eq(user_version(db), 2);
    char *t = pgtest_value(db, "SELECT to_regclass('players') IS NULL", err, sizeof err);
    cr_assert_not_null(t, "%s", err);
    cr_assert_str_eq(t, "t", "the refused database was given tables");
    free(t);
}

Test(store, a_postgresql_database_that_cannot_be_reached_is_refused_in_one_line)
{
    postgres_only();
    char err[256] = "", url[600];
    /* No such database on the server, then no server at all. */
    const char *base = pgtest_server(), *rest = strchr(base, '?');
    cr_assert_not_null(rest);
    snprintf(url, sizeof url, "postgresql://baghchal@/no_such_database%s", rest);
    cr_assert_null(store_open(url, false, err, sizeof err));
    cr_assert(strstr(err, "PostgreSQL") == err && strstr(err, "no_such_database"), "%s", err);
    cr_assert_null(strchr(err, '\n'), "%s", err);
    snprintf(url, sizeof url, "postgresql://baghchal@/postgres?host=%s/nowhere&port=1", dir);
    err[0] = '\0';
    cr_assert_null(store_open(url, false, err, sizeof err));
    cr_assert(strstr(err, "PostgreSQL") == err && strstr(err, "nowhere"), "%s", err);
    cr_assert_null(strchr(err, '\n'), "%s", err);
}

/* ---- records ------------------------------------------------------------------------------ */

Test(store, every_record_reads_back_with_every_field)
{
    store_t *s = open_store(false);
    count_t c = {0};
    store_player_t named = player("p1", "Asha", STORE_NAMED);
    store_player_t anon = player("p2", "Anonymous", STORE_ANON);
    store_player_t bot = player("b1", "Bagh-bot", STORE_BOT);
    cr_assert(store_put_player(s, &named, count_cb, &c));
    cr_assert(store_put_player(s, &anon, count_cb, &c));
    cr_assert(store_put_player(s, &bot, count_cb, &c));
    /* An update of a player by id: the name may change, case and all. */
    store_player_t renamed = named;
    snprintf(renamed.name, sizeof renamed.name, "ASHA");
    cr_assert(store_put_player(s, &renamed, count_cb, &c));

    store_rating_t r = {.player = "p1", .cls = "blitz", .g = {1612.25, 87.5, 0.0599, 14}};
    store_rating_t r2 = {.player = "p1", .cls = "bullet", .g = glicko_new()};
    cr_assert(store_put_rating(s, &r, count_cb, &c));
    cr_assert(store_put_rating(s, &r2, count_cb, &c));
    store_rating_t r_old = r;
    r_old.g.rating = 1000;
    /* Of two writes of one (player, class), the later is kept. */
    cr_assert(store_put_rating(s, &r_old, count_cb, &c));
    cr_assert(store_put_rating(s, &r, count_cb, &c));

    const char *hash = "8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4";
    cr_assert(store_put_token(s, hash, "p1", 1700000000123, count_cb, &c));

    store_challenge_t seek = {.id = "c1", .from = "p1", .to = "", .listed = true, .side = STORE_SIDE_TIGERS,
                              .initial_ms = 180000, .increment_ms = 2000, .rule = 1, .rated = true,
                              .created_ms = 1700000000500};
    store_challenge_t link = {.id = "c2", .from = "p2", .to = "", .listed = false, .side = STORE_SIDE_RANDOM,
                              .initial_ms = -1, .increment_ms = 0, .rule = 0, .rated = false,
                              .created_ms = 1700000000600};
    store_challenge_t direct = {.id = "c3", .from = "p1", .to = "b1", .listed = false, .side = STORE_SIDE_GOATS,
                                .initial_ms = 60000, .increment_ms = 0, .rule = 1, .rated = false,
                                .created_ms = 1700000000700};
    cr_assert(store_put_challenge(s, &seek, count_cb, &c));
    cr_assert(store_put_challenge(s, &link, count_cb, &c));
    cr_assert(store_put_challenge(s, &direct, count_cb, &c));
    cr_assert(store_delete_challenge(s, "c3", count_cb, &c));
    cr_assert(store_delete_challenge(s, "nonesuch", count_cb, &c)); /* nothing to delete: not a failure */

    store_game_t live = game("g1", "p1", "b1", 7, 0);
    store_game_t over = game("g2", "p2", "p1", 40, 1700000009000);
    store_game_t empty = game("g3", "p1", "p2", 0, 0);
    cr_assert(store_put_game(s, &live, count_cb, &c));
    cr_assert(store_put_game(s, &over, count_cb, &c));
    cr_assert(store_put_game(s, &empty, count_cb, &c));
    store_flush(s);
    cr_assert_eq(atomic_load(&c.failed), 0);
    cr_assert_eq(atomic_load(&c.ok), 17);

    char err[256] = "";
    players_t ps = {0};
    cr_assert(store_each_player(s, collect_player, &ps, err, sizeof err), "%s", err);
    cr_assert_eq(ps.n, 3);
    const store_player_t *p = find_player(&ps, "p1");
    cr_assert_not_null(p);
    cr_assert_str_eq(p->name, "ASHA");
    cr_assert_eq(p->kind, STORE_NAMED);
    cr_assert_str_eq(p->pw_hash, named.pw_hash);
    cr_assert_eq(p->created_ms, named.created_ms);
    p = find_player(&ps, "p2");
    cr_assert_not_null(p);
    cr_assert_str_eq(p->name, "Anonymous");
    cr_assert_eq(p->kind, STORE_ANON);
    cr_assert_str_eq(p->pw_hash, "");
    cr_assert_eq(p->created_ms, anon.created_ms);
    p = find_player(&ps, "b1");
    cr_assert_not_null(p);
    cr_assert_str_eq(p->name, "Bagh-bot");
    cr_assert_eq(p->kind, STORE_BOT);

    ratings_t rs = {0};
    cr_assert(store_each_rating(s, collect_rating, &rs, err, sizeof err), "%s", err);
    cr_assert_eq(rs.n, 2);
    for (int i = 0; i < 2; i++) {
        const store_rating_t *want = !strcmp(rs.r[i].cls, "blitz") ? &r : &r2;
        cr_assert_str_eq(rs.r[i].player, "p1");
        cr_assert_str_eq(rs.r[i].cls, want->cls);
        cr_assert_eq(rs.r[i].g.rating, want->g.rating);
        cr_assert_eq(rs.r[i].g.deviation, want->g.deviation);
        cr_assert_eq(rs.r[i].g.volatility, want->g.volatility);
        cr_assert_eq(rs.r[i].g.games, want->g.games);
    }

    char who[STORE_ID_LEN] = "x";
    cr_assert_eq(store_find_token(s, hash, who, err, sizeof err), 1, "%s", err);
    cr_assert_str_eq(who, "p1");
    cr_assert_eq(store_find_token(s, "0000000000000000000000000000000000000000000000000000000000000000", who, err,
                                  sizeof err),
                 0);

    challenges_t cs = {0};
    cr_assert(store_each_challenge(s, collect_challenge, &cs, err, sizeof err), "%s", err);
    cr_assert_eq(cs.n, 2, "the deleted challenge is gone");
    for (int i = 0; i < 2; i++) {
        const store_challenge_t *want = !strcmp(cs.c[i].id, "c1") ? &seek : &link;
        const store_challenge_t *got = &cs.c[i];
        cr_assert_str_eq(got->id, want->id);
        cr_assert_str_eq(got->from, want->from);
        cr_assert_str_eq(got->to, want->to);
        cr_assert_eq(got->listed, want->listed);
        cr_assert_eq(got->side, want->side);
        cr_assert_eq(got->initial_ms, want->initial_ms);
        cr_assert_eq(got->increment_ms, want->increment_ms);
        cr_assert_eq(got->rule, want->rule);
        cr_assert_eq(got->rated, want->rated);
        cr_assert_eq(got->created_ms, want->created_ms);
    }

    store_game_t got;
    cr_assert_eq(store_get_game(s, "g2", &got, err, sizeof err), 1, "%s", err);
    assert_same_game(&got, &over);
    store_game_free(&got);
    cr_assert_eq(store_get_game(s, "g3", &got, err, sizeof err), 1, "%s", err);
    assert_same_game(&got, &empty);
    cr_assert_str_eq(got.moves, "");
    store_game_free(&got);
    cr_assert_eq(store_get_game(s, "nonesuch", &got, err, sizeof err), 0);
    cr_assert_null(got.moves);

    games_t gs = {0};
    cr_assert(store_each_live_game(s, collect_game, &gs, err, sizeof err), "%s", err);
    cr_assert_eq(gs.n, 2, "only the games that go on");
    for (int i = 0; i < 2; i++) {
        assert_same_game(&gs.g[i], !strcmp(gs.g[i].id, "g1") ? &live : &empty);
        store_game_free(&gs.g[i]);
    }

    char ids[4][STORE_ID_LEN];
    cr_assert_eq(store_player_games(s, "p1", ids, 4, err, sizeof err), 1, "%s", err);
    cr_assert_str_eq(ids[0], "g2");

    store_game_t copy;
    cr_assert(store_game_copy(&copy, &over));
    cr_assert_neq(copy.moves, over.moves);
    assert_same_game(&copy, &over);
    store_game_free(&copy);
    cr_assert_null(copy.moves);

    store_game_free(&live);
    store_game_free(&over);
    store_game_free(&empty);
    store_close(s);
}

Test(store, a_players_finished_games_come_newest_first)
{
    store_t *s = open_store(false);
    /* Ended out of order, as goats and as tigers, with a live one and another player's. */
    const struct {
        const char *id, *goats, *tigers;
        int64_t ended;
    } rows[] = {
        {"a", "p1", "p2", 5000}, {"b", "p2", "p1", 9000}, {"c", "p1", "p3", 1000}, {"d", "p1", "p2", 0},
        {"e", "p2", "p3", 7000}, {"f", "p3", "p1", 8000},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        store_game_t g = game(rows[i].id, rows[i].goats, rows[i].tigers, 3, rows[i].ended);
        cr_assert(store_put_game(s, &g, NULL, NULL));
        store_game_free(&g);
    }
    store_flush(s);
    char err[256] = "", ids[8][STORE_ID_LEN];
    cr_assert_eq(store_player_games(s, "p1", ids, 8, err, sizeof err), 4, "%s", err);
    cr_assert_str_eq(ids[0], "b");
    cr_assert_str_eq(ids[1], "f");
    cr_assert_str_eq(ids[2], "a");
    cr_assert_str_eq(ids[3], "c");
    cr_assert_eq(store_player_games(s, "p1", ids, 2, err, sizeof err), 2);
    cr_assert_str_eq(ids[0], "b");
    cr_assert_str_eq(ids[1], "f");
    cr_assert_eq(store_player_games(s, "p1", ids, 0, err, sizeof err), 0);
    cr_assert_eq(store_player_games(s, "nobody", ids, 8, err, sizeof err), 0);
    store_close(s);
}

/* ---- the writer ----------------------------------------------------------------------------- */

Test(store, a_thousand_queued_writes_share_few_transactions)
{
    store_t *s = open_store(false);
    gate_t gate;
    gate_close(s, &gate); /* the writer waits in the first write's callback */
    count_t c = {0};
    for (int i = 0; i < 1000; i++) {
        store_game_t g = game("g", "p1", "p2", i % 200, 0);
        snprintf(g.id, sizeof g.id, "g%d", i);
        cr_assert(store_put_game(s, &g, count_cb, &c));
        store_game_free(&g);
    }
    store_stats_t st;
    store_stats(s, &st);
    cr_assert_eq(st.queued, 1001);
    gate_open(&gate);
    store_flush(s);
    cr_assert(gate.ok);
    cr_assert_eq(atomic_load(&c.ok), 1000);
    cr_assert_eq(atomic_load(&c.failed), 0);
    store_stats(s, &st);
    cr_assert_eq(st.writes, 1001);
    cr_assert_eq(st.failed, 0);
    cr_assert_eq(st.queued, 0);
    /* The gate's write alone, then the thousand in one. */
    cr_assert_eq(st.transactions, 2, "%llu transactions", (unsigned long long)st.transactions);
    cr_assert_lt(st.transactions, st.writes);
    store_close(s);
    gate_destroy(&gate);
}

typedef struct {
    int order[16];
    bool ok[16];
    int n;
} trace_t;
typedef struct {
    trace_t *t;
    int k;
} step_t;
static void trace_cb(void *ctx, bool ok)
{
    step_t *st = ctx;
    st->t->order[st->t->n] = st->k;
    st->t->ok[st->t->n] = ok;
    st->t->n++;
}

Test(store, a_failing_write_is_undone_alone_and_its_neighbours_commit)
{
    store_t *s = open_store(false);
    gate_t gate;
    gate_close(s, &gate);
    trace_t t = {0};
    step_t steps[8];
    for (int i = 0; i < 8; i++)
        steps[i] = (step_t){&t, i};
    store_player_t ps[8] = {
        player("p1", "Asha", STORE_NAMED),
        player("p2", "Bikram", STORE_NAMED),
        player("p3", "ASHA", STORE_NAMED), /* the same name in other case: refused */
        player("p4", "Chandra", STORE_NAMED),
        player("p5", "asha", STORE_ANON), /* anonymous names may repeat */
        player("p6", "aSHa", STORE_BOT),  /* a bot's may not */
        player("p7", "asha", STORE_ANON),
        player("p8", "Dipa", STORE_NAMED),
    };
    for (int i = 0; i < 8; i++)
        cr_assert(store_put_player(s, &ps[i], trace_cb, &steps[i]));
    gate_open(&gate);
    store_flush(s);
    cr_assert_eq(t.n, 8);
    for (int i = 0; i < 8; i++) {
        cr_assert_eq(t.order[i], i, "callbacks in queue order");
        cr_assert_eq(t.ok[i], i != 2 && i != 5, "write %d: ok %d", i, t.ok[i]);
    }
    store_stats_t st;
    store_stats(s, &st);
    cr_assert_eq(st.failed, 2);
    cr_assert_eq(st.transactions, 2, "the players' writes were one group");

    char err[256] = "";
    players_t got = {0};
    cr_assert(store_each_player(s, collect_player, &got, err, sizeof err), "%s", err);
    cr_assert_eq(got.n, 6);
    cr_assert_null(find_player(&got, "p3"));
    cr_assert_null(find_player(&got, "p6"));
    cr_assert_str_eq(find_player(&got, "p1")->name, "Asha");
    cr_assert_not_null(find_player(&got, "p5"));
    cr_assert_not_null(find_player(&got, "p7"));
    cr_assert_not_null(find_player(&got, "p8"));

    /* Renaming a named player onto another's name fails too, and keeps the old name. */
    count_t c = {0};
    store_player_t clash = ps[1];
    snprintf(clash.name, sizeof clash.name, "dipa");
    cr_assert(store_put_player(s, &clash, count_cb, &c));
    /* A token for a player that does not exist breaks the foreign key. */
    cr_assert(store_put_token(s, "ab", "nobody", 1, count_cb, &c));
    store_flush(s);
    cr_assert_eq(atomic_load(&c.failed), 2);
    got.n = 0;
    cr_assert(store_each_player(s, collect_player, &got, err, sizeof err), "%s", err);
    cr_assert_str_eq(find_player(&got, "p2")->name, "Bikram");
    char who[STORE_ID_LEN];
    cr_assert_eq(store_find_token(s, "ab", who, err, sizeof err), 0);
    store_close(s);
    gate_destroy(&gate);
}

/* A game started from a challenge deletes the challenge's row with the game's insertion, or
 * does nothing when the row is gone: of two starts from one challenge, in one group or from two
 * stores on one database, exactly one game is stored, the other is told the challenge was gone,
 * and the writes beside it stand (in a group that also holds a failing write too). */
Test(store, a_game_started_from_a_challenge_takes_it_once)
{
    store_t *s = open_store(false), *other = open_store(false);
    store_player_t p = player("p1", "Asha", STORE_NAMED), q = player("p2", "Bikram", STORE_NAMED);
    store_challenge_t ch[3];
    count_t c = {0};
    cr_assert(store_put_player(s, &p, count_cb, &c) && store_put_player(s, &q, count_cb, &c));
    for (int i = 0; i < 3; i++) {
        ch[i] = (store_challenge_t){.from = "p1", .listed = true, .initial_ms = -1, .created_ms = 1700000000000 + i};
        snprintf(ch[i].id, sizeof ch[i].id, "s%d", i + 1);
        cr_assert(store_put_challenge(s, &ch[i], count_cb, &c));
    }
    store_flush(s);
    cr_assert_eq(atomic_load(&c.ok), 5);

    /* One group: g1 takes s1, g2 finds it gone, a player beside them, g3 takes s2. */
    store_stats_t st;
    store_stats(s, &st);
    uint64_t before = st.transactions;
    gate_t gate;
    gate_close(s, &gate);
    trace_t t = {0};
    step_t steps[8];
    for (int i = 0; i < 8; i++)
        steps[i] = (step_t){&t, i};
    store_game_t g[6];
    for (int i = 0; i < 6; i++) {
        char id[] = "g0";
        id[1] = (char)('1' + i);
        g[i] = game(id, "p1", "p2", 0, 0);
    }
    bool gone[6];
    memset(gone, 1, sizeof gone);
    store_player_t r = player("p3", "Chandra", STORE_NAMED);
    cr_assert(store_start_game(s, &g[0], "s1", &gone[0], trace_cb, &steps[0]));
    cr_assert(store_start_game(s, &g[1], "s1", &gone[1], trace_cb, &steps[1]));
    cr_assert(store_put_player(s, &r, trace_cb, &steps[2]));
    cr_assert(store_start_game(s, &g[2], "s2", &gone[2], trace_cb, &steps[3]));
    gate_open(&gate);
    store_flush(s);
    cr_assert_eq(t.n, 4);
    static const bool OK1[] = {true, false, true, true};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(t.order[i], i, "callbacks in queue order");
        cr_assert_eq(t.ok[i], OK1[i], "write %d: ok %d", i, t.ok[i]);
    }
    cr_assert(!gone[0] && gone[1] && !gone[2]);
    store_stats(s, &st);
    cr_assert_eq(st.transactions, before + 2, "the starts and the player were one group");

    /* Another store on the database: s1 is gone there too; s3 is taken. */
    t.n = 0;
    cr_assert(store_start_game(other, &g[3], "s1", &gone[3], trace_cb, &steps[0]));
    cr_assert(store_start_game(other, &g[4], "s3", &gone[4], trace_cb, &steps[1]));
    store_flush(other);
    cr_assert_eq(t.n, 2);
    cr_assert(!t.ok[0] && gone[3]);
    cr_assert(t.ok[1] && !gone[4]);

    /* A group with a write that fails (a name taken): the start from a challenge gone is refused
     * as gone all the same, the failing write alone undone. */
    gate_destroy(&gate);
    gate_close(s, &gate);
    t.n = 0;
    store_player_t clash = player("p4", "ASHA", STORE_NAMED);
    cr_assert(store_put_player(s, &clash, trace_cb, &steps[0]));
    cr_assert(store_start_game(s, &g[5], "s3", &gone[5], trace_cb, &steps[1]));
    cr_assert(store_put_player(s, &r, trace_cb, &steps[2]));
    gate_open(&gate);
    store_flush(s);
    cr_assert_eq(t.n, 3);
    cr_assert(!t.ok[0] && !t.ok[1] && t.ok[2]);
    cr_assert(gone[5]);

    char err[256] = "";
    challenges_t left = {0};
    cr_assert(store_each_challenge(s, collect_challenge, &left, err, sizeof err), "%s", err);
    cr_assert_eq(left.n, 0, "%d challenges left", left.n);
    static const int STORED[] = {1, 0, 1, 0, 1, 0};
    for (int i = 0; i < 6; i++) {
        store_game_t got;
        cr_assert_eq(store_get_game(s, g[i].id, &got, err, sizeof err), STORED[i], "game %s: %s", g[i].id, err);
        if (STORED[i])
            assert_same_game(&got, &g[i]);
        store_game_free(&got);
        store_game_free(&g[i]);
    }
    store_close(other);
    store_close(s);
    gate_destroy(&gate);
}

typedef struct {
    char id[8][STORE_ID_LEN];
    bool held[8];
    int n;
} held_t;
static void collect_held(void *ctx, store_game_t *g, bool held)
{
    held_t *h = ctx;
    if (h->n < 8) {
        snprintf(h->id[h->n], STORE_ID_LEN, "%s", g->id);
        h->held[h->n] = held;
    }
    h->n++;
}

/* Whether a live game is held, in one read: by this store or another on the database (and no
 * longer once let go, or once the store holding it is closed); a finished game is not listed.
 * SQLite: every live game, none held. */
Test(store, the_live_games_are_read_with_whether_a_server_holds_them)
{
    store_t *s = open_store(false), *other = open_store(false);
    /* g1's key (hashtextextended) is positive, g3's negative: both halves of the lock's key. */
    store_game_t g[4] = {game("g1", "p1", "p2", 2, 0), game("g2", "p1", "p2", 3, 0), game("g3", "p1", "p2", 4, 0),
                         game("g4", "p1", "p2", 5, 99)};
    count_t c = {0};
    for (int i = 0; i < 4; i++)
        cr_assert(store_put_game(s, &g[i], count_cb, &c));
    store_flush(s);
    cr_assert_eq(atomic_load(&c.ok), 4);
    bool pg = pgtest_server() != NULL;
    cr_assert_eq(store_own_game(s, "g1"), 1);
    cr_assert_eq(store_own_game(s, "g3"), 1);
    cr_assert_eq(store_own_game(other, "g1"), pg ? 0 : 1);
    char err[256] = "";
    /* Held: g1 and g3; then g3 (g1 let go); then none (the store holding g3 and g2 closed). */
    static const char *const HELD[3] = {"g1 g3", "g3", ""};
    for (int round = 0; round < 3; round++) {
        if (round == 1)
            store_disown_game(s, "g1");
        if (round == 2) {
            cr_assert_eq(store_own_game(s, "g2"), 1);
            store_close(s);
            s = NULL;
        }
        held_t h = {0};
        cr_assert(store_each_live_game_held(other, collect_held, &h, err, sizeof err), "%s", err);
        /* A closed connection's locks go when its server process has seen it end: soon after. */
        for (int tries = 0; round == 2 && pg && tries < 200 && (h.held[0] || h.held[1] || h.held[2]); tries++) {
            struct timespec ts = {0, 25000000};
            nanosleep(&ts, NULL);
            h = (held_t){0};
            cr_assert(store_each_live_game_held(other, collect_held, &h, err, sizeof err), "%s", err);
        }
        cr_assert_eq(h.n, 3);
        for (int i = 0; i < 3; i++) {
            cr_assert(strcmp(h.id[i], "g4") != 0, "a finished game is listed");
            bool want = pg && strstr(HELD[round], h.id[i]) != NULL;
            cr_assert_eq(h.held[i], want, "round %d: %s held %d", round, h.id[i], h.held[i]);
        }
    }
    for (int i = 0; i < 4; i++)
        store_game_free(&g[i]);
    store_close(other);
}

Test(store, the_last_of_many_writes_of_one_game_is_the_one_kept)
{
    store_t *s = open_store(false);
    count_t c = {0};
    store_game_t last = {0};
    for (int i = 1; i <= 100; i++) {
        store_game_t g = game("g1", "p1", "p2", i, 0);
        cr_assert(store_put_game(s, &g, count_cb, &c));
        if (i == 100)
            last = g;
        else
            store_game_free(&g);
    }
    store_flush(s);
    cr_assert_eq(atomic_load(&c.ok), 100);
    char err[256] = "";
    store_game_t got;
    cr_assert_eq(store_get_game(s, "g1", &got, err, sizeof err), 1, "%s", err);
    assert_same_game(&got, &last);
    cr_assert_eq(got.plies, 100);
    store_game_free(&got);
    store_close(s);
    /* And after a reopen. */
    s = open_store(false);
    cr_assert_eq(store_get_game(s, "g1", &got, err, sizeof err), 1, "%s", err);
    assert_same_game(&got, &last);
    store_game_free(&got);
    store_game_free(&last);
    store_close(s);
}

Test(store, close_waits_for_every_write_and_a_reopen_keeps_everything)
{
    store_t *s = open_store(true);
    count_t c = {0};
    store_player_t p = player("p1", "Asha", STORE_NAMED);
    store_player_t q = player("p2", "Anon", STORE_ANON);
    store_rating_t r = {.player = "p1", .cls = "rapid", .g = {1720.5, 61.25, 0.0601, 33}};
    store_challenge_t ch = {.id = "c1", .from = "p1", .to = "p2", .listed = false, .side = STORE_SIDE_GOATS,
                            .initial_ms = 600000, .increment_ms = 5000, .rule = 0, .rated = true,
                            .created_ms = 1700000000999};
    store_game_t g = game("g1", "p1", "p2", 33, 1700000005000);
    store_game_t h = game("g2", "p2", "p1", 12, 0);
    cr_assert(store_put_player(s, &p, count_cb, &c));
    cr_assert(store_put_player(s, &q, count_cb, &c));
    cr_assert(store_put_rating(s, &r, count_cb, &c));
    cr_assert(store_put_token(s, "feed", "p1", 42, count_cb, &c));
    cr_assert(store_put_challenge(s, &ch, count_cb, &c));
    cr_assert(store_put_game(s, &g, count_cb, &c));
    cr_assert(store_put_game(s, &h, count_cb, &c));
    cr_assert(store_heartbeat(s, 1700000006000, count_cb, &c));
    for (int i = 0; i < 300; i++) {
        store_game_t x = game("x", "p1", "p2", i % 50, 0);
        snprintf(x.id, sizeof x.id, "x%d", i);
        cr_assert(store_put_game(s, &x, count_cb, &c));
        store_game_free(&x);
    }
    store_close(s); /* no flush: close drains the queue */
    cr_assert_eq(atomic_load(&c.ok), 308);
    cr_assert_eq(atomic_load(&c.failed), 0);

    s = open_store(false);
    cr_assert_eq(store_opened_version(s), STORE_SCHEMA_VERSION);
    char err[256] = "";
    players_t ps = {0};
    cr_assert(store_each_player(s, collect_player, &ps, err, sizeof err), "%s", err);
    cr_assert_eq(ps.n, 2);
    cr_assert_str_eq(find_player(&ps, "p1")->pw_hash, p.pw_hash);
    cr_assert_eq(find_player(&ps, "p2")->kind, STORE_ANON);
    ratings_t rs = {0};
    cr_assert(store_each_rating(s, collect_rating, &rs, err, sizeof err));
    cr_assert_eq(rs.n, 1);
    cr_assert_eq(rs.r[0].g.rating, 1720.5);
    cr_assert_eq(rs.r[0].g.deviation, 61.25);
    cr_assert_eq(rs.r[0].g.volatility, 0.0601);
    cr_assert_eq(rs.r[0].g.games, 33);
    char who[STORE_ID_LEN];
    cr_assert_eq(store_find_token(s, "feed", who, err, sizeof err), 1);
    cr_assert_str_eq(who, "p1");
    challenges_t cs = {0};
    cr_assert(store_each_challenge(s, collect_challenge, &cs, err, sizeof err));
    cr_assert_eq(cs.n, 1);
    cr_assert_str_eq(cs.c[0].to, "p2");
    cr_assert_eq(cs.c[0].side, STORE_SIDE_GOATS);
    cr_assert_eq(cs.c[0].rated, true);
    store_game_t got;
    cr_assert_eq(store_get_game(s, "g1", &got, err, sizeof err), 1);
    assert_same_game(&got, &g);
    store_game_free(&got);
    cr_assert_eq(store_get_game(s, "g2", &got, err, sizeof err), 1);
    assert_same_game(&got, &h);
    store_game_free(&got);
    cr_assert_eq(store_get_game(s, "x299", &got, err, sizeof err), 1);
    cr_assert_eq(got.plies, 299 % 50);
    store_game_free(&got);
    cr_assert_eq(store_last_heartbeat(s), 1700000006000);
    store_game_free(&g);
    store_game_free(&h);
    store_close(s);
}

/* The child's callback: the acknowledged game's number, down the pipe to the parent. */
static int ack_fd = -1;
static void killed_ack(void *ctx, bool ok)
{
    if (!ok)
        return;
    int k = *(const int *)ctx;
    if (write(ack_fd, &k, sizeof k) != (ssize_t)sizeof k)
        _exit(5);
}

/* A child queues games and reports each acknowledged one down a pipe, then is killed while
 * more are still queued: every game acknowledged is in the file. */
static void killed_after_acknowledging(bool durable)
{
    enum { N = 3000 };
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        close(fds[0]);
        ack_fd = fds[1];
        static int ids[N];
        char err[256];
        store_t *s = store_open(db, durable, err, sizeof err);
        if (!s)
            _exit(2);
        /* Games queued one after another, a little apart so that the writer keeps up in
         * small groups; once a third are acknowledged, death with the rest in flight. */
        for (int i = 0; i < N; i++) {
            ids[i] = i;
            store_game_t g = game("k", "p1", "p2", i % 200, 0);
            snprintf(g.id, sizeof g.id, "k%d", i);
            bool queued = store_put_game(s, &g, killed_ack, &ids[i]);
            store_game_free(&g);
            if (!queued)
                _exit(3);
            store_stats_t st;
            store_stats(s, &st);
            if (st.writes >= N / 3)
                break;
            nanosleep(&(struct timespec){0, 20000}, NULL);
        }
        for (;;) {
            store_stats_t st;
            store_stats(s, &st);
            if (st.writes >= N / 3)
                break;
            nanosleep(&(struct timespec){0, 200000}, NULL);
        }
        kill(getpid(), SIGKILL);
        _exit(4);
    }
    close(fds[1]);
    /* The acknowledgements fit in the pipe (N ints), so the child never waits on it. */
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the child ended with status %#x", status);
    static int acked[N];
    int n = 0, k;
    while (n < N && read(fds[0], &k, sizeof k) == (ssize_t)sizeof k) {
        cr_assert(k >= 0 && k < N);
        acked[n++] = k;
    }
    close(fds[0]);
    cr_assert_geq(n, N / 3, "%d acknowledged", n);

    store_t *s = open_store(durable);
    char err[256] = "";
    for (int i = 0; i < n; i++) {
        char id[STORE_ID_LEN];
        snprintf(id, sizeof id, "k%d", acked[i]);
        store_game_t g;
        cr_assert_eq(store_get_game(s, id, &g, err, sizeof err), 1, "acknowledged game %s is missing (%s)", id, err);
        cr_assert_eq(g.plies, acked[i] % 200);
        store_game_free(&g);
    }
    store_close(s);
}

Test(store, acknowledged_writes_survive_the_process_being_killed)
{
    killed_after_acknowledging(false);
}

Test(store, acknowledged_writes_survive_the_process_being_killed_when_durable)
{
    killed_after_acknowledging(true);
}

/* ---- one record by id, messages to the other servers ------------------------------------ */

Test(store, a_player_with_its_ratings_and_a_challenge_read_back_by_id)
{
    store_t *s = open_store(false);
    store_player_t p = player("p1", "Asha", STORE_NAMED), q = player("p2", "Bikram", STORE_NAMED);
    store_rating_t r1 = {.player = "p1", .cls = "blitz", .g = {1612.25, 80.5, 0.0599, 7}};
    store_rating_t r2 = {.player = "p1", .cls = "rapid", .g = {1498.0, 120.0, 0.06, 2}};
    store_rating_t r3 = {.player = "p2", .cls = "blitz", .g = {1400.0, 200.0, 0.06, 1}};
    store_challenge_t ch = {.id = "s1", .from = "p1", .to = "", .listed = true, .side = STORE_SIDE_TIGERS,
                            .initial_ms = 180000, .increment_ms = 2000, .rule = 1, .rated = true,
                            .created_ms = 1700000000123};
    count_t c = {0};
    cr_assert(store_put_player(s, &p, count_cb, &c) && store_put_player(s, &q, count_cb, &c));
    cr_assert(store_put_rating(s, &r1, count_cb, &c) && store_put_rating(s, &r2, count_cb, &c) &&
              store_put_rating(s, &r3, count_cb, &c));
    cr_assert(store_put_challenge(s, &ch, count_cb, &c));
    store_flush(s);
    cr_assert_eq(atomic_load(&c.ok), 6);

    char err[256] = "";
    store_player_t got;
    store_rating_t rs[5];
    int n = -1;
    cr_assert_eq(store_get_player(s, "p1", &got, rs, 5, &n, err, sizeof err), 1, "%s", err);
    cr_assert_str_eq(got.name, "Asha");
    cr_assert_str_eq(got.pw_hash, p.pw_hash);
    cr_assert_eq(got.kind, STORE_NAMED);
    cr_assert_eq(got.created_ms, p.created_ms);
    cr_assert_eq(n, 2);
    const store_rating_t *blitz = !strcmp(rs[0].cls, "blitz") ? &rs[0] : &rs[1];
    cr_assert_str_eq(blitz->cls, "blitz");
    cr_assert_eq(blitz->g.rating, 1612.25);
    cr_assert_eq(blitz->g.deviation, 80.5);
    cr_assert_eq(blitz->g.volatility, 0.0599);
    cr_assert_eq(blitz->g.games, 7);
    /* No room for ratings: the player alone. */
    cr_assert_eq(store_get_player(s, "p1", &got, rs, 0, &n, err, sizeof err), 1, "%s", err);
    cr_assert_eq(n, 0);
    cr_assert_eq(store_get_player(s, "nobody", &got, rs, 5, &n, err, sizeof err), 0, "%s", err);
    /* A named player by its name, whatever its case; a guest's name is nobody's. */
    char who[STORE_ID_LEN] = "";
    cr_assert_eq(store_find_name(s, "bIKRAM", who, err, sizeof err), 1, "%s", err);
    cr_assert_str_eq(who, "p2");
    store_player_t anon = player("p3", "Guest-abc", STORE_ANON);
    cr_assert(store_put_player(s, &anon, NULL, NULL));
    store_flush(s);
    cr_assert_eq(store_find_name(s, "Guest-abc", who, err, sizeof err), 0, "%s", err);
    cr_assert_eq(store_find_name(s, "Chandra", who, err, sizeof err), 0, "%s", err);

    store_challenge_t gc;
    cr_assert_eq(store_get_challenge(s, "s1", &gc, err, sizeof err), 1, "%s", err);
    cr_assert_str_eq(gc.from, "p1");
    cr_assert_str_eq(gc.to, "");
    cr_assert(gc.listed && gc.rated);
    cr_assert_eq(gc.side, STORE_SIDE_TIGERS);
    cr_assert_eq(gc.initial_ms, 180000);
    cr_assert_eq(gc.increment_ms, 2000);
    cr_assert_eq(gc.rule, 1);
    cr_assert_eq(gc.created_ms, 1700000000123);
    cr_assert(store_delete_challenge(s, "s1", NULL, NULL));
    store_flush(s);
    cr_assert_eq(store_get_challenge(s, "s1", &gc, err, sizeof err), 0, "%s", err);
    store_close(s);
}

/* What a listener heard, from the store's thread. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t more;
    char text[8][64];
    int n, missed;
} heard_t;

static void heard_cb(void *ctx, const char *text)
{
    heard_t *h = ctx;
    pthread_mutex_lock(&h->lock);
    if (!text)
        h->missed++;
    else if (h->n < 8)
        snprintf(h->text[h->n++], sizeof h->text[0], "%s", text);
    pthread_cond_broadcast(&h->more);
    pthread_mutex_unlock(&h->lock);
}

/* Waits (at most 10 s: an arrival, not a speed) until h has heard n messages. */
static int heard_wait(heard_t *h, int n)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&h->lock);
    while (h->n < n && pthread_cond_timedwait(&h->more, &h->lock, &until) == 0) {
    }
    int got = h->n;
    pthread_mutex_unlock(&h->lock);
    return got;
}

Test(store, on_sqlite_a_message_is_done_at_once_and_nobody_listens)
{
    sqlite_only();
    store_t *s = open_store(false);
    heard_t h = {.lock = PTHREAD_MUTEX_INITIALIZER, .more = PTHREAD_COND_INITIALIZER};
    char err[256] = "";
    cr_assert_eq(store_listen(s, heard_cb, &h, err, sizeof err), 0);
    count_t c = {0};
    cr_assert(store_notify(s, "hello", count_cb, &c));
    store_flush(s);
    cr_assert_eq(atomic_load(&c.ok), 1);
    cr_assert_eq(h.n, 0);
    store_close(s);
}

Test(store, messages_reach_every_other_store_on_the_database_once_committed_in_order)
{
    postgres_only();
    store_t *a = open_store(false), *b = open_store(false);
    heard_t ha = {.lock = PTHREAD_MUTEX_INITIALIZER, .more = PTHREAD_COND_INITIALIZER};
    heard_t hb = {.lock = PTHREAD_MUTEX_INITIALIZER, .more = PTHREAD_COND_INITIALIZER};
    char err[256] = "";
    cr_assert_eq(store_listen(a, heard_cb, &ha, err, sizeof err), 1, "%s", err);
    cr_assert_eq(store_listen(b, heard_cb, &hb, err, sizeof err), 1, "%s", err);
    cr_assert_eq(store_listen(b, heard_cb, &hb, err, sizeof err), -1, "listening twice");

    /* Held at the gate, a's message is not sent before the writes queued before it. */
    gate_t gate;
    gate_close(a, &gate);
    store_player_t p = player("p1", "Asha", STORE_NAMED);
    count_t c = {0};
    cr_assert(store_put_player(a, &p, count_cb, &c));
    cr_assert(store_notify(a, "player p1", count_cb, &c));
    cr_assert(store_notify(a, "second", count_cb, &c));
    char big[STORE_NOTE_MAX + 2];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    cr_assert(!store_notify(a, big, count_cb, &c), "a message over STORE_NOTE_MAX is refused");
    cr_assert_eq(hb.n, 0);
    gate_open(&gate);
    cr_assert_eq(heard_wait(&hb, 2), 2, "b heard %d", hb.n);
    cr_assert_str_eq(hb.text[0], "player p1");
    cr_assert_str_eq(hb.text[1], "second");
    /* Heard once committed: the player is there to read. */
    store_player_t got;
    store_rating_t rs[1];
    int n;
    cr_assert_eq(store_get_player(b, "p1", &got, rs, 1, &n, err, sizeof err), 1, "%s", err);
    /* a's own callbacks follow its commit, which b may hear first. */
    store_flush(a);
    cr_assert_eq(atomic_load(&c.ok), 3);

    /* And the other way; nobody hears itself. */
    cr_assert(store_notify(b, "from b", NULL, NULL));
    cr_assert_eq(heard_wait(&ha, 1), 1);
    cr_assert_str_eq(ha.text[0], "from b");
    store_flush(a);
    store_flush(b);
    cr_assert_eq(ha.n, 1);
    cr_assert_eq(hb.n, 2);
    cr_assert_eq(ha.missed + hb.missed, 0);
    store_close(a);
    store_close(b);
    gate_destroy(&gate);
}

/* Every connection of the servers to the database cut (as a restart of PostgreSQL or a network
 * failure would): a write or a read may fail once, then the store is connected again; the
 * listener connects again by itself and says that it may have missed messages. */
Test(store, connections_cut_by_the_database_are_made_again)
{
    postgres_only();
    store_t *a = open_store(false), *b = open_store(false);
    heard_t ha = {.lock = PTHREAD_MUTEX_INITIALIZER, .more = PTHREAD_COND_INITIALIZER};
    char err[256] = "";
    cr_assert_eq(store_listen(a, heard_cb, &ha, err, sizeof err), 1, "%s", err);
    store_player_t p = player("p1", "Asha", STORE_NAMED);
    count_t c = {0};
    cr_assert(store_put_player(a, &p, count_cb, &c));
    store_flush(a);
    cr_assert_eq(atomic_load(&c.ok), 1);

    char *cut = pgtest_value(db,
                             "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE "
                             "datname = current_database() AND application_name = 'baghchal-server'",
                             err, sizeof err);
    cr_assert_not_null(cut, "%s", err);
    cr_assert_eq(atoi(cut), 5, "%s connections cut: a's and b's writer and reader, a's listener", cut);
    free(cut);

    /* The first write after the cut may fail (its answer is then 503); the next is stored. */
    for (int i = 0; i < 2; i++) {
        store_player_t q = player("p2", "Bikram", STORE_NAMED);
        cr_assert(store_put_player(a, &q, count_cb, &c));
        store_flush(a);
    }
    cr_assert_geq(atomic_load(&c.ok), 2);
    cr_assert_leq(atomic_load(&c.failed), 1);
    store_player_t got;
    store_rating_t rs[1];
    int n, k = store_get_player(a, "p2", &got, rs, 1, &n, err, sizeof err);
    if (k != 1) /* the reader's connection too */
        k = store_get_player(a, "p2", &got, rs, 1, &n, err, sizeof err);
    cr_assert_eq(k, 1, "%s", err);

    /* The listener is back (it says so) and hears b, whose writer is back too. */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&ha.lock);
    while (!ha.missed && pthread_cond_timedwait(&ha.more, &ha.lock, &until) == 0) {
    }
    int missed = ha.missed;
    pthread_mutex_unlock(&ha.lock);
    cr_assert_eq(missed, 1, "the listener did not say it was connected again");
    count_t cb = {0};
    for (int i = 0; i < 2 && !atomic_load(&cb.ok); i++) {
        cr_assert(store_notify(b, "after the cut", count_cb, &cb));
        store_flush(b);
    }
    cr_assert_eq(atomic_load(&cb.ok), 1);
    cr_assert_geq(heard_wait(&ha, 1), 1);
    cr_assert_str_eq(ha.text[0], "after the cut");
    store_close(a);
    store_close(b);
}

/* ---- heartbeat, flush ------------------------------------------------------------------------ */

Test(store, the_last_heartbeat_is_kept)
{
    store_t *s = open_store(false);
    cr_assert_eq(store_last_heartbeat(s), 0);
    count_t c = {0};
    cr_assert(store_heartbeat(s, 1700000000000, count_cb, &c));
    cr_assert(store_heartbeat(s, 1700000015000, count_cb, &c));
    store_flush(s);
    cr_assert_eq(atomic_load(&c.ok), 2);
    cr_assert_eq(store_last_heartbeat(s), 1700000015000);
    store_close(s);
    s = open_store(false);
    cr_assert_eq(store_last_heartbeat(s), 1700000015000);
    store_close(s);
}

typedef struct {
    store_t *s;
    atomic_int called;
} flush_in_cb_t;
static void flush_in_cb(void *ctx, bool ok)
{
    flush_in_cb_t *f = ctx;
    (void)ok;
    store_flush(f->s); /* from the writer thread: returns at once */
    atomic_fetch_add(&f->called, 1);
}

Test(store, flush_returns_once_everything_queued_before_is_done)
{
    store_t *s = open_store(false);
    store_flush(s); /* nothing queued */
    for (int i = 0; i < 200; i++) {
        store_player_t p = player("p", "n", STORE_ANON);
        snprintf(p.id, sizeof p.id, "p%d", i);
        cr_assert(store_put_player(s, &p, NULL, NULL));
    }
    store_flush(s);
    store_stats_t st;
    store_stats(s, &st);
    cr_assert_eq(st.writes, 200);
    cr_assert_eq(st.queued, 0);
    char err[256] = "";
    players_t ps = {0};
    cr_assert(store_each_player(s, collect_player, &ps, err, sizeof err));
    cr_assert_eq(ps.n, 200);

    flush_in_cb_t f = {.s = s};
    cr_assert(store_heartbeat(s, 5, flush_in_cb, &f));
    store_flush(s);
    cr_assert_eq(atomic_load(&f.called), 1);
    store_close(s);
}

/* A read's callback that reads again gets an error rather than waiting for itself. */
typedef struct {
    store_t *s;
    int inner;
    char err[256];
} nested_t;
static void nested_read(void *ctx, const store_player_t *p)
{
    nested_t *n = ctx;
    (void)p;
    store_game_t g;
    n->inner = store_get_game(n->s, "g", &g, n->err, sizeof n->err);
}

Test(store, a_read_from_a_reads_callback_fails_instead_of_waiting)
{
    store_t *s = open_store(false);
    store_player_t p = player("p1", "Asha", STORE_NAMED);
    cr_assert(store_put_player(s, &p, NULL, NULL));
    store_flush(s);
    nested_t n = {.s = s, .inner = 99};
    char err[256] = "";
    cr_assert(store_each_player(s, nested_read, &n, err, sizeof err));
    cr_assert_eq(n.inner, -1);
    cr_assert_neq(n.err[0], '\0');
    store_close(s);
}

/* ---- threads ------------------------------------------------------------------------------- */

typedef struct {
    store_t *s;
    atomic_bool stop;
    atomic_int reads, errors;
} readers_t;

/* Every row read is whole: the game's moves hold as many moves as its plies say. */
static void *reader(void *arg)
{
    readers_t *r = arg;
    char err[256];
    while (!atomic_load(&r->stop)) {
        store_game_t g;
        int found = store_get_game(r->s, "live", &g, err, sizeof err);
        if (found < 0) {
            atomic_fetch_add(&r->errors, 1);
        } else if (found == 1) {
            int words = g.moves[0] ? 1 : 0;
            for (const char *c = g.moves; *c; c++)
                words += *c == ' ';
            if (words != g.plies || g.goats_ms != 250000 + g.plies)
                atomic_fetch_add(&r->errors, 1);
            store_game_free(&g);
        }
        players_t ps = {0};
        if (!store_each_player(r->s, collect_player, &ps, err, sizeof err))
            atomic_fetch_add(&r->errors, 1);
        char ids[4][STORE_ID_LEN], who[STORE_ID_LEN];
        if (store_player_games(r->s, "p1", ids, 4, err, sizeof err) < 0 ||
            store_find_token(r->s, "t", who, err, sizeof err) < 0)
            atomic_fetch_add(&r->errors, 1);
        store_last_heartbeat(r->s);
        atomic_fetch_add(&r->reads, 1);
    }
    return NULL;
}

Test(store, two_threads_read_while_the_writer_writes)
{
    store_t *s = open_store(false);
    readers_t r = {.s = s};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&th[i], NULL, reader, &r), 0);
    count_t c = {0};
    for (int i = 0; i <= 1000; i++) {
        store_game_t g = game("live", "p1", "p2", i % 250, i % 100 == 99 ? 1700000000000 + i : 0);
        if (i % 100 == 99)
            snprintf(g.id, sizeof g.id, "done%d", i);
        cr_assert(store_put_game(s, &g, count_cb, &c));
        store_game_free(&g);
        if (i % 50 == 0) {
            store_player_t p = player("p", "n", STORE_ANON);
            snprintf(p.id, sizeof p.id, "p%d", i);
            cr_assert(store_put_player(s, &p, count_cb, &c));
            cr_assert(store_heartbeat(s, i, count_cb, &c));
        }
        if (i % 200 == 0)
            store_flush(s);
    }
    store_flush(s);
    /* Let the readers see the finished state too. */
    nanosleep(&(struct timespec){0, 20000000}, NULL);
    atomic_store(&r.stop, true);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    cr_assert_eq(atomic_load(&r.errors), 0);
    cr_assert_gt(atomic_load(&r.reads), 0);
    cr_assert_eq(atomic_load(&c.failed), 0);
    cr_assert_eq(atomic_load(&c.ok), 1001 + 2 * 21);
    char err[256] = "", ids[16][STORE_ID_LEN];
    cr_assert_eq(store_player_games(s, "p1", ids, 16, err, sizeof err), 10);
    cr_assert_str_eq(ids[0], "done999");
    store_close(s);
}
#endif
