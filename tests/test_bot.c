/* baghchal-bot against a real baghchal-server: two bots with the engine play 20 games through
 * the server, every stored game replayed move by move with the library; an engine that crashes
 * is restarted once and the game then resigned; challenges outside the limits are declined;
 * a seek is kept open and made again after each game; the games go on across a restart of the
 * server; bad settings are refused with one line. Built (and linked with libcurl and cJSON)
 * only when the bot and the server are; otherwise its one test skips. */
#define _GNU_SOURCE
#include <criterion/criterion.h>

#ifndef BAGHCHAL_BOT_TESTS

Test(bot, not_built)
{
    cr_skip_test("baghchal-bot or baghchal-server is not built: install libcurl4-openssl-dev, libcjson-dev, "
                 "libmicrohttpd-dev, libsqlite3-dev and libsodium-dev");
}

#else

#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "baghchal.h"
#include "cJSON.h"
#include "pipe.h"

#define BIN BAGHCHAL_BIN_DIR
#define BOT BIN "/baghchal-bot"
#define SERVER BIN "/baghchal-server"
#define ENGINE BIN "/baghchal"
#define FAKE_CRASH BIN "/fake_crash"

/* Generous bounds: sanitizer builds on a shared two-core machine are slow. */
enum { START_MS = 30000, EXIT_MS = 30000, ONLINE_MS = 30000 };

/* ---- processes and a folder per test ------------------------------------------------------ */

static pipe_proc_t *procs[8];
static int procs_nb;
static char dir[64];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_bot.XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void teardown(void)
{
    for (int i = procs_nb - 1; i >= 0; i--)
        pipe_free(procs[i]);
    procs_nb = 0;
    if (dir[0])
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    curl_global_cleanup();
}

TestSuite(bot, .init = setup, .fini = teardown, .timeout = 300);

static pipe_proc_t *spawn(char **argv, unsigned flags)
{
    cr_assert_lt(procs_nb, 8);
    pipe_proc_t *p = pipe_start(argv, flags);
    cr_assert_not_null(p, "cannot start %s: %s", argv[0], strerror(errno));
    procs[procs_nb++] = p;
    return p;
}

/* The server on port (0: one it picks), its games in the test's folder. Returns its port. */
static int start_server(int port, pipe_proc_t **out)
{
    char db[128], ports[16];
    snprintf(db, sizeof db, "%s/room.sqlite", dir);
    snprintf(ports, sizeof ports, "%d", port);
    char *argv[] = {SERVER, "--port", ports, "--hash", "4", "--database", db, NULL};
    pipe_proc_t *s = spawn(argv, PIPE_KEEP_STDERR);
    char *line;
    pipe_status_t st = pipe_read_until(s, "baghchal-server", START_MS, NULL, &line);
    cr_assert_eq(st, PIPE_LINE, "the server printed no start line: %s", pipe_status_name(st));
    const char *at = strstr(line, "listening on http://127.0.0.1:");
    cr_assert_not_null(at, "unexpected start line: %s", line);
    int p = atoi(at + strlen("listening on http://127.0.0.1:"));
    cr_assert_gt(p, 0);
    *out = s;
    return p;
}

/* SIGTERM ends a program cleanly, with status 0 (under the sanitizers, a leak fails it). */
static void stop(pipe_proc_t *p, const char *what)
{
    cr_assert_eq(kill(pipe_pid(p), SIGTERM), 0);
    pipe_exit_t e = pipe_wait(p, EXIT_MS);
    cr_assert(!e.killed, "%s did not stop within %d ms of SIGTERM", what, EXIT_MS);
    cr_assert(e.exited && e.code == 0, "%s ended with status %d, signal %d", what, e.code, e.signal);
}

/* A bot: --server, --register NAME with a token file in the test's folder, --quiet, then the
 * arguments given (NULL-terminated). */
static pipe_proc_t *start_bot(int port, const char *name, ...)
{
    static char url[64];
    char *argv[48], tok[128];
    int n = 0;
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    snprintf(tok, sizeof tok, "%s/%s.token", dir, name);
    argv[n++] = BOT;
    argv[n++] = "--server";
    argv[n++] = url;
    argv[n++] = "--register";
    argv[n++] = (char *)name;
    argv[n++] = "--token-file";
    argv[n++] = tok;
    argv[n++] = "--quiet";
    va_list ap;
    va_start(ap, name);
    for (const char *a = va_arg(ap, const char *); a && n < 47; a = va_arg(ap, const char *))
        argv[n++] = (char *)a;
    va_end(ap);
    argv[n] = NULL;
    return spawn(argv, PIPE_KEEP_STDERR);
}

/* ---- HTTP ------------------------------------------------------------------------------ */

typedef struct {
    char *buf;
    size_t len;
} body_t;

static size_t on_body(char *data, size_t size, size_t nmemb, void *ctx)
{
    body_t *b = ctx;
    size_t n = size * nmemb;
    char *s = realloc(b->buf, b->len + n + 1);
    if (!s)
        return 0;
    memcpy(s + b->len, data, n);
    b->len += n;
    s[b->len] = '\0';
    b->buf = s;
    return n;
}

/* A request; the answer's JSON (NULL when none) and its status in *status. */
static cJSON *api(int port, const char *method, const char *path, const char *token, const char *body, long *status)
{
    char url[512], auth[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
    CURL *c = curl_easy_init();
    cr_assert_not_null(c);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    if (token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        h = curl_slist_append(h, auth);
    }
    body_t b = {0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    if (!strcmp(method, "POST")) {
        curl_easy_setopt(c, CURLOPT_POST, 1L);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body ? body : "");
    }
    CURLcode rc = curl_easy_perform(c);
    *status = 0;
    if (rc == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    cJSON *j = b.buf ? cJSON_Parse(b.buf) : NULL;
    free(b.buf);
    return j;
}

static cJSON *api_ok(int port, const char *method, const char *path, const char *token, const char *body)
{
    long st;
    cJSON *j = api(port, method, path, token, body, &st);
    cr_assert(st >= 200 && st < 300, "%s %s: status %ld", method, path, st);
    cr_assert_not_null(j, "%s %s: no JSON", method, path);
    return j;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void nap(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits until the player's event stream is open (the bot is in the room). */
static void wait_online(int port, const char *name)
{
    char path[96];
    snprintf(path, sizeof path, "/api/player/%s", name);
    double end = pipe_now_ms() + ONLINE_MS;
    while (pipe_now_ms() < end) {
        long st;
        cJSON *j = api(port, "GET", path, NULL, NULL, &st);
        bool on = st == 200 && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "online"));
        cJSON_Delete(j);
        if (on)
            return;
        nap(50);
    }
    cr_assert_fail("%s did not come online within %d ms", name, ONLINE_MS);
}

/* A named player (no password) for the test to act as; its token (heap). */
static char *register_player(int port, const char *name)
{
    char body[96];
    snprintf(body, sizeof body, "{\"name\": \"%s\"}", name);
    cJSON *j = api_ok(port, "POST", "/api/account/register", NULL, body);
    char *t = strdup(str(j, "token"));
    cJSON_Delete(j);
    cr_assert_not_null(t);
    return t;
}

/* The ids of a player's finished games (newest first, at most 20), into ids; their number. */
static int finished_games(int port, const char *name, char ids[][32], int max)
{
    char path[96];
    snprintf(path, sizeof path, "/api/player/%s", name);
    cJSON *j = api_ok(port, "GET", path, NULL, NULL);
    const cJSON *games = cJSON_GetObjectItemCaseSensitive(j, "games");
    cr_assert(cJSON_IsArray(games), "no games in the player's answer");
    int n = 0;
    const cJSON *g;
    cJSON_ArrayForEach(g, games)
    {
        const char *id = cJSON_IsString(g) ? g->valuestring : str(g, "id");
        cr_assert_not_null(id, "a game of the list without an id");
        if (n < max)
            snprintf(ids[n], 32, "%s", id);
        n++;
    }
    cJSON_Delete(j);
    return n;
}

/* ---- replaying a stored game ---------------------------------------------------------------- */

typedef struct {
    char status[24];
    int winner;                 /* GOATS, TIGERS, -1 */
    int plies;
    int moves_of[2];            /* moves made by each side */
    char goats[32], tigers[32]; /* the players' names */
} record_t;

static const char *const RESULT_STATUS[] = {"", "captured", "trapped", "stuck", "blocked", "repetition"};

/* Fetches the game's record and replays every move with the library: each must be legal, and a
 * game over by the rules must be stored with the status and winner game_result gives. */
static record_t check_record(int port, const char *id)
{
    char path[96];
    snprintf(path, sizeof path, "/api/game/%s/record", id);
    cJSON *j = api_ok(port, "GET", path, NULL, NULL);
    record_t r = {.winner = -1};
    const char *obx = str(j, "initialObx"), *rule = str(j, "rule");
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(j, "state");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "moveList");
    cr_assert(obx && rule && cJSON_IsObject(state) && cJSON_IsArray(list), "game %s: an incomplete record", id);
    snprintf(r.goats, sizeof r.goats, "%s", str(cJSON_GetObjectItemCaseSensitive(j, "goats"), "name"));
    snprintf(r.tigers, sizeof r.tigers, "%s", str(cJSON_GetObjectItemCaseSensitive(j, "tigers"), "name"));
    snprintf(r.status, sizeof r.status, "%s", str(state, "status"));
    const char *winner = str(state, "winner");
    r.winner = !winner ? -1 : !strcmp(winner, "goats") ? GOATS : TIGERS;
    position_t start;
    obx_meta_t meta;
    char msg[160];
    cr_assert_eq(obx_parse(obx, &start, &meta, msg, sizeof msg), BC_OK, "game %s: initialObx: %s", id, msg);
    game_t g;
    cr_assert(game_init(&g, &start, &meta, !strcmp(rule, "draw") ? REP_DRAW : REP_FORBID));
    const cJSON *m;
    cJSON_ArrayForEach(m, list)
    {
        cr_assert(cJSON_IsString(m), "game %s: a move that is no text", id);
        int side = game_position(&g)->side;
        bc_error_t e = game_play_text(&g, m->valuestring, msg, sizeof msg);
        cr_assert_eq(e, BC_OK, "game %s: move %d '%s' is illegal: %s", id, r.plies + 1, m->valuestring, msg);
        r.moves_of[side]++;
        r.plies++;
    }
    game_result_t res = game_result(&g);
    if (res.reason != RESULT_NONE) {
        cr_assert_str_eq(r.status, RESULT_STATUS[res.reason], "game %s: stored as %s, the rules say %s", id, r.status,
                         RESULT_STATUS[res.reason]);
        cr_assert_eq(r.winner, res.winner, "game %s: stored winner %d, the rules say %d", id, r.winner, res.winner);
    } else {
        for (int k = 1; k <= 5; k++)
            cr_assert_str_neq(r.status, RESULT_STATUS[k], "game %s: stored as %s but the game goes on by the rules", id,
                              r.status);
    }
    game_free(&g);
    cJSON_Delete(j);
    return r;
}

static bool rules_ended(const char *status)
{
    for (int k = 1; k <= 5; k++)
        if (!strcmp(status, RESULT_STATUS[k]))
            return true;
    return false;
}

/* ---- the tests --------------------------------------------------------------------------- */

/* Two bots with the engine play 20 games through the server; every stored game replays. */
Test(bot, twenty_games_between_two_bots)
{
    pipe_proc_t *srv;
    int port = start_server(0, &srv);
    pipe_proc_t *b = start_bot(port, "BotB", "--engine", ENGINE, "--option", "Hash=1", "--depth", "2", "--max-games",
                               "8", NULL);
    wait_online(port, "BotB");
    double t0 = pipe_now_ms();
    pipe_proc_t *a = start_bot(port, "BotA", "--engine", ENGINE, "--option", "Hash=1", "--depth", "2", "--max-games",
                               "4", "--challenge", "BotB", "--challenge-spec", "none forbid random casual", "--games",
                               "20", NULL);
    /* BotA stops by itself once its 20 games are over. */
    pipe_exit_t e = pipe_wait(a, 240000);
    cr_assert(!e.killed, "BotA had not played its 20 games after 240 s");
    cr_assert(e.exited && e.code == 0, "BotA ended with status %d, signal %d", e.code, e.signal);
    double secs = (pipe_now_ms() - t0) / 1000.0;
    char ids[32][32];
    int n = finished_games(port, "BotA", ids, 32);
    cr_assert_eq(n, 20, "BotA has %d finished games, not 20", n);
    int plies = 0, goat_wins = 0, as_goats = 0;
    for (int i = 0; i < n; i++) {
        record_t r = check_record(port, ids[i]);
        cr_assert(rules_ended(r.status), "game %s ended by %s, not by the rules", ids[i], r.status);
        bool a_goats = !strcmp(r.goats, "BotA");
        cr_assert(a_goats ? !strcmp(r.tigers, "BotB") : !strcmp(r.goats, "BotB") && !strcmp(r.tigers, "BotA"),
                  "game %s is between %s and %s", ids[i], r.goats, r.tigers);
        plies += r.plies;
        goat_wins += r.winner == GOATS;
        as_goats += a_goats;
    }
    cr_log_info("20 games in %.1f s, %d plies, goats won %d, BotA played the goats %d times", secs, plies, goat_wins,
                as_goats);
    stop(b, "BotB");
    stop(srv, "the server");
}

/* An engine that dies at its second move: started again once, and at its second death the
 * game is resigned. Each engine process made one move. */
Test(bot, crashing_engine_restarted_once_then_resigned)
{
    pipe_proc_t *srv;
    int port = start_server(0, &srv);
    pipe_proc_t *c = start_bot(port, "Crashy", "--engine", FAKE_CRASH, "--engine-arg", "--at", "--engine-arg", "2",
                               "--depth", "1", NULL);
    wait_online(port, "Crashy");
    pipe_proc_t *d = start_bot(port, "Steady", "--engine", ENGINE, "--option", "Hash=1", "--depth", "2",
                               "--challenge", "Crashy", "--games", "1", NULL);
    pipe_exit_t e = pipe_wait(d, 120000);
    cr_assert(!e.killed, "the game was not over after 120 s");
    cr_assert(e.exited && e.code == 0, "Steady ended with status %d, signal %d", e.code, e.signal);
    char ids[4][32];
    cr_assert_eq(finished_games(port, "Steady", ids, 4), 1);
    record_t r = check_record(port, ids[0]);
    int crashy = !strcmp(r.goats, "Crashy") ? GOATS : TIGERS;
    cr_assert_str_eq(r.status, "resign", "the game ended by %s", r.status);
    cr_assert_eq(r.winner, 1 - crashy, "the crashing side did not lose");
    cr_assert_eq(r.moves_of[crashy], 2, "the crashing side made %d moves, not one for each of its two engines",
                 r.moves_of[crashy]);
    stop(c, "Crashy");
    stop(srv, "the server");
}

/* Challenges outside the limits are declined; one inside them starts a game. */
Test(bot, challenges_outside_the_limits_declined)
{
    pipe_proc_t *srv;
    int port = start_server(0, &srv);
    pipe_proc_t *bot = start_bot(port, "Picky", "--engine", ENGINE, "--option", "Hash=1", "--no-clock", "no",
                                 "--min-initial", "10", "--max-initial", "60", "--max-increment", "5", "--rules",
                                 "forbid", "--modes", "casual", NULL);
    wait_online(port, "Picky");
    char *token = register_player(port, "Human");
    static const struct {
        const char *settings;
        bool accepted;
    } cases[] = {
        {"\"clock\": null", false},
        {"\"clock\": {\"initial\": 600, \"increment\": 0}", false},
        {"\"clock\": {\"initial\": 5, \"increment\": 0}", false},
        {"\"clock\": {\"initial\": 30, \"increment\": 10}", false},
        {"\"clock\": {\"initial\": 30, \"increment\": 1}, \"rule\": \"draw\"", false},
        {"\"clock\": {\"initial\": 30, \"increment\": 1}, \"rated\": true", false},
        {"\"clock\": {\"initial\": 30, \"increment\": 1}", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[256], path[96];
        snprintf(body, sizeof body, "{\"to\": \"Picky\", %s}", cases[i].settings);
        cJSON *c = api_ok(port, "POST", "/api/challenge", token, body);
        snprintf(path, sizeof path, "/api/challenge/%s", str(c, "id"));
        cJSON_Delete(c);
        /* Answered: the challenge is gone, declined or become a game. */
        double end = pipe_now_ms() + 20000;
        long st = 200;
        while (st == 200 && pipe_now_ms() < end) {
            cJSON_Delete(api(port, "GET", path, NULL, NULL, &st));
            if (st == 200)
                nap(20);
        }
        cr_assert_eq(st, 404, "challenge {%s} not answered within 20 s", cases[i].settings);
        cJSON *lobby = api_ok(port, "GET", "/api/lobby", NULL, NULL);
        const cJSON *playing = cJSON_GetObjectItemCaseSensitive(lobby, "playing");
        cr_assert_eq(playing->valueint, cases[i].accepted ? 1 : 0, "challenge {%s}: %s", cases[i].settings,
                     cases[i].accepted ? "not accepted" : "accepted");
        if (cases[i].accepted) {
            const char *game = str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(lobby, "games"), 0), "id");
            cr_assert_not_null(game);
            snprintf(path, sizeof path, "/api/board/game/%s/resign", game);
            cJSON_Delete(api_ok(port, "POST", path, token, NULL));
        }
        cJSON_Delete(lobby);
    }
    free(token);
    stop(bot, "Picky");
    stop(srv, "the server");
}

/* The id of the seek of name in the lobby other than not, or "" when none. */
static void seek_of(int port, const char *name, const char *not, char id[32])
{
    id[0] = '\0';
    cJSON *lobby = api_ok(port, "GET", "/api/lobby", NULL, NULL);
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(lobby, "seeks"))
    {
        const char *from = str(cJSON_GetObjectItemCaseSensitive(s, "from"), "name"), *sid = str(s, "id");
        if (from && sid && !strcmp(from, name) && (!not || strcmp(sid, not)))
            snprintf(id, 32, "%s", sid);
    }
    cJSON_Delete(lobby);
}

static void wait_seek(int port, const char *name, const char *not, char id[32])
{
    double end = pipe_now_ms() + 30000;
    for (seek_of(port, name, not, id); !id[0] && pipe_now_ms() < end; seek_of(port, name, not, id))
        nap(50);
    cr_assert(id[0], "no %sseek of %s in the lobby within 30 s", not ? "new " : "", name);
}

/* --seek: a seek stays open in the lobby, made again after each game, withdrawn at the end. */
Test(bot, seek_kept_open_in_the_lobby)
{
    pipe_proc_t *srv;
    int port = start_server(0, &srv);
    pipe_proc_t *bot = start_bot(port, "Seeker", "--engine", ENGINE, "--option", "Hash=1", "--depth", "2", "--seek",
                                 "none forbid casual", NULL);
    char *token = register_player(port, "Visitor");
    char first[32], second[32], path[96];
    wait_seek(port, "Seeker", NULL, first);
    snprintf(path, sizeof path, "/api/seek/%s/accept", first);
    cJSON *game = api_ok(port, "POST", path, token, NULL);
    char gid[32];
    snprintf(gid, sizeof gid, "%s", str(game, "game"));
    cJSON_Delete(game);
    /* One game at a time: no seek while it goes on. */
    nap(300);
    seek_of(port, "Seeker", first, second);
    cr_assert_str_eq(second, "", "a seek open during the game");
    snprintf(path, sizeof path, "/api/board/game/%s/resign", gid);
    cJSON_Delete(api_ok(port, "POST", path, token, NULL));
    wait_seek(port, "Seeker", first, second);
    stop(bot, "Seeker");
    seek_of(port, "Seeker", NULL, second);
    cr_assert_str_eq(second, "", "the seek stayed after the bot left");
    free(token);
    stop(srv, "the server");
}

/* The server stops in the middle of a game and comes back on the same port and database: the
 * bots reconnect their streams and finish the game. */
Test(bot, games_go_on_across_a_server_restart)
{
    pipe_proc_t *srv;
    int port = start_server(0, &srv);
    pipe_proc_t *g = start_bot(port, "Patient", "--engine", ENGINE, "--option", "Hash=1", "--movetime", "60", NULL);
    wait_online(port, "Patient");
    pipe_proc_t *h = start_bot(port, "Eager", "--engine", ENGINE, "--option", "Hash=1", "--movetime", "60",
                               "--challenge", "Patient", "--games", "1", NULL);
    /* Until the game is a few moves in. */
    double end = pipe_now_ms() + 60000;
    int plies = 0;
    while (plies < 6 && pipe_now_ms() < end) {
        cJSON *lobby = api_ok(port, "GET", "/api/lobby", NULL, NULL);
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(lobby, "games"), 0), "plies");
        plies = cJSON_IsNumber(p) ? p->valueint : 0;
        cJSON_Delete(lobby);
        if (plies < 6)
            nap(20);
    }
    cr_assert_geq(plies, 6, "the game did not start within 60 s");
    stop(srv, "the server");
    nap(300);
    start_server(port, &srv);
    pipe_exit_t e = pipe_wait(h, 120000);
    cr_assert(!e.killed, "the game was not over 120 s after the restart");
    cr_assert(e.exited && e.code == 0, "Eager ended with status %d, signal %d", e.code, e.signal);
    char ids[4][32];
    cr_assert_eq(finished_games(port, "Eager", ids, 4), 1);
    record_t r = check_record(port, ids[0]);
    cr_assert(rules_ended(r.status), "the game ended by %s, not by the rules", r.status);
    cr_assert_gt(r.plies, plies);
    stop(g, "Patient");
    stop(srv, "the server");
}

/* The whole text of a file (heap, NUL-terminated). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0, k;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 == cap) {
            buf = realloc(buf, cap *= 2);
            cr_assert_not_null(buf);
        }
    }
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* A game on the clocks against the test, which plays the first legal move at once: the engine
 * is given the game (position startpos and its moves) and both clocks with their increments at
 * each of its turns, and no movetime. */
Test(bot, engine_given_the_game_and_its_clocks)
{
    pipe_proc_t *srv;
    int port = start_server(0, &srv);
    char log[128];
    snprintf(log, sizeof log, "%s/clocky.log", dir);
    pipe_proc_t *bot = start_bot(port, "Clocky", "--engine", ENGINE, "--option", "Hash=1", "--log", log, NULL);
    wait_online(port, "Clocky");
    char *token = register_player(port, "Ticker");
    cJSON *c = api_ok(port, "POST", "/api/challenge", token,
                      "{\"to\": \"Clocky\", \"clock\": {\"initial\": 5, \"increment\": 0.2}}");
    char cpath[96];
    snprintf(cpath, sizeof cpath, "/api/challenge/%s", str(c, "id"));
    cJSON_Delete(c);
    /* The game, once accepted. */
    char gid[32] = "";
    double end = pipe_now_ms() + 20000;
    while (!gid[0] && pipe_now_ms() < end) {
        cJSON *lobby = api_ok(port, "GET", "/api/lobby", NULL, NULL);
        const char *id = str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(lobby, "games"), 0), "id");
        if (id)
            snprintf(gid, sizeof gid, "%s", id);
        cJSON_Delete(lobby);
        if (!gid[0])
            nap(20);
    }
    cr_assert(gid[0], "the challenge was not accepted within 20 s");
    /* Plays until the bot has made four moves, then resigns. */
    int bot_moves = 0, human = -1;
    end = pipe_now_ms() + 60000;
    while (bot_moves < 4 && pipe_now_ms() < end) {
        char path[96];
        snprintf(path, sizeof path, "/api/game/%s", gid);
        cJSON *full = api_ok(port, "GET", path, NULL, NULL);
        if (human < 0)
            human = !strcmp(str(cJSON_GetObjectItemCaseSensitive(full, "goats"), "name"), "Ticker") ? GOATS : TIGERS;
        const cJSON *state = cJSON_GetObjectItemCaseSensitive(full, "state");
        cr_assert_str_eq(str(state, "status"), "started");
        const char *moves = str(state, "moves");
        int plies = cJSON_GetObjectItemCaseSensitive(state, "plies")->valueint;
        bot_moves = human == GOATS ? plies / 2 : (plies + 1) / 2;
        game_t g;
        position_t start;
        position_set_start(&start);
        cr_assert(game_init(&g, &start, NULL, REP_FORBID));
        char msg[160], word[MOVE_TEXT_LEN];
        for (const char *m = moves; *m;) {
            size_t k = strcspn(m, " ");
            snprintf(word, sizeof word, "%.*s", (int)k, m);
            cr_assert_eq(game_play_text(&g, word, msg, sizeof msg), BC_OK);
            m += k;
            while (*m == ' ')
                m++;
        }
        if (game_position(&g)->side == human && bot_moves < 4) {
            move_t list[MAX_MOVES];
            cr_assert_gt(game_legal_moves(&g, list), 0);
            move_format(list[0], word);
            snprintf(path, sizeof path, "/api/board/game/%s/move/%s?ply=%d", gid, word, plies);
            cJSON_Delete(api_ok(port, "POST", path, token, NULL));
        } else {
            nap(20);
        }
        game_free(&g);
        cJSON_Delete(full);
    }
    cr_assert_eq(bot_moves, 4, "the bot made %d moves in 60 s", bot_moves);
    char path[96];
    snprintf(path, sizeof path, "/api/board/game/%s/resign", gid);
    cJSON_Delete(api_ok(port, "POST", path, token, NULL));
    snprintf(path, sizeof path, "/api/game/%s/record", gid);
    cJSON *rec = api_ok(port, "GET", path, NULL, NULL);
    char all[1024] = "";
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(rec, "moveList"))
    {
        size_t n = strlen(all);
        snprintf(all + n, sizeof all - n, "%s%s", n ? " " : "", m->valuestring);
    }
    cJSON_Delete(rec);
    stop(bot, "Clocky");
    /* The protocol log: each go had both clocks (the bot's own never above its start and the
     * increments it earned), each position was the game so far. */
    char *text = slurp(log);
    int gos = 0;
    for (char *p = text; (p = strstr(p, "> go")) != NULL; p++) {
        long long gt, tt, gi, ti;
        cr_assert_eq(sscanf(p, "> go gtime %lld ttime %lld ginc %lld tinc %lld", &gt, &tt, &gi, &ti), 4,
                     "a go without the clocks: %.60s", p);
        cr_assert(gi == 200 && ti == 200, "increments %lld and %lld, not 200", gi, ti);
        long long mine = human == GOATS ? tt : gt;
        cr_assert(mine > 0 && mine <= 5000 + 200 * gos, "the bot's clock at %lld ms at its move %d", mine, gos + 1);
        gos++;
    }
    cr_assert_eq(gos, 4, "%d go lines for 4 moves", gos);
    int positions = 0;
    for (char *p = text; (p = strstr(p, "> position ")) != NULL; p++) {
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(p, "\n"), p);
        cr_assert(!strncmp(line, "> position startpos", 19), "%s", line);
        const char *mv = strstr(line, " moves ");
        if (mv)
            cr_assert(!strncmp(all, mv + 7, strlen(mv + 7)), "'%s' is not the game's start (%s)", line, all);
        else
            cr_assert_str_eq(line, "> position startpos");
        positions++;
    }
    cr_assert_eq(positions, 4);
    cr_assert_null(strstr(text, "movetime"), "a movetime in a game on the clocks");
    free(text);
    free(token);
    stop(srv, "the server");
}

/* ---- a server that says everything wrong ----------------------------------------------------- */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>

typedef struct {
    int listen_fd, port;
    pthread_t thread;
    atomic_bool stop;
    atomic_int declined, moves, game_streams;
    char last_move[64];
    pthread_mutex_t lock;
} fake_t;

static bool send_text(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        s += w;
        n -= (size_t)w;
    }
    return true;
}

static bool send_line(int fd, const char *s) { return send_text(fd, s, strlen(s)) && send_text(fd, "\n", 1); }

static void answer(int fd, int status, const char *json)
{
    char head[256];
    snprintf(head, sizeof head,
             "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
             status, strlen(json));
    send_text(fd, head, strlen(head));
    send_text(fd, json, strlen(json));
}

/* Waits until the counter reaches n, or the fake stops. */
static void wait_count(fake_t *f, atomic_int *count, int n, int ms)
{
    double end = pipe_now_ms() + ms;
    while (atomic_load(count) < n && !atomic_load(&f->stop) && pipe_now_ms() < end)
        nap(10);
}

static void stream_head(int fd)
{
    static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nConnection: close\r\n\r\n";
    send_text(fd, head, sizeof head - 1);
}

static void hold_open(fake_t *f)
{
    while (!atomic_load(&f->stop))
        nap(20);
}

/* The event stream: lines no bot should trust, a challenge it cannot read, then a game. */
static void event_stream(fake_t *f, int fd)
{
    static const char *const lines[] = {
        "not json at all",
        "{}",
        "[1, 2, 3]",
        "{\"type\": 5}",
        "{\"type\": \"gameStart\"}",
        "{\"type\": \"gameStart\", \"game\": {\"id\": \"../../api/account\"}}",
        "{\"type\": \"gameStart\", \"game\": {\"id\": 17}}",
        "{\"type\": \"challenge\", \"challenge\": []}",
        "{\"type\": \"challenge\", \"challenge\": {\"id\": \"c/1\"}}",
        ("{\"type\": \"challenge\", \"challenge\": {\"id\": \"c1\", \"from\": 3, \"to\": {\"id\": \"pFake\"}, "
         "\"clock\": \"soon\", \"rule\": 7, \"rated\": \"no\"}}"),
        "{\"type\": \"challengeDeclined\", \"id\": null}",
        "{\"type\": \"gameFinish\", \"game\": null}",
        "{\"type\": \"someday\", \"x\": {\"y\": [[[[[]]]]]}}",
        "",
        "\xff\xfe\x01\x02 binary",
        "{\"type\": \"gameStart\", \"game\": {\"id\": \"g1\", \"side\": \"goats\"}}",
        "{\"type\": \"gameStart\", \"game\": {\"id\": \"g2\", \"side\": \"goats\"}}",
        "{\"type\": \"gameStart\", \"game\": {\"id\": \"g1\", \"side\": \"goats\"}}",
    };
    stream_head(fd);
    /* A line of 5 MB, beyond what the bot keeps. */
    char *big = malloc(5 << 20);
    if (big) {
        memset(big, 'x', 5 << 20);
        big[0] = '{';
        send_text(fd, big, 5 << 20);
        send_text(fd, "\n", 1);
        free(big);
    }
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        send_line(fd, lines[i]);
    hold_open(f);
}

#define FULL_HEAD "{\"type\": \"gameFull\", \"id\": \"g1\", \"rated\": false, \"rule\": \"forbid\", \"clock\": null, "
#define START "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #"

/* The first game's stream: broken states, then game records the bot cannot play. */
static void game_stream(fake_t *f, int fd)
{
    static const char *const lines[] = {
        "garbage",
        "{\"type\": \"gameState\"}",
        "{\"type\": \"gameState\", \"moves\": 3, \"plies\": \"x\", \"turn\": \"nobody\"}",
        FULL_HEAD "\"initialObx\": \"not an obx\", \"goats\": {\"id\": \"pFake\"}, \"tigers\": {\"id\": \"pOther\"}}",
        FULL_HEAD "\"initialObx\": 12}",
        "{\"type\": \"chatLine\", \"text\": null}",
        "{\"type\": \"opponentGone\", \"gone\": \"maybe\", \"side\": 4}",
    };
    atomic_fetch_add(&f->game_streams, 1);
    stream_head(fd);
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        send_line(fd, lines[i]);
    /* The game record the bot cannot read ("not an obx") made it leave the game. */
    hold_open(f);
}

/* A second game whose records are good but whose moves are not. */
static void game2_stream(fake_t *f, int fd)
{
    atomic_fetch_add(&f->game_streams, 1);
    stream_head(fd);
    send_line(fd, "{\"type\": \"gameFull\", \"id\": \"g2\", \"rated\": false, \"rule\": \"forbid\", \"clock\": null, "
                  "\"initialObx\": \"" START "\", \"goats\": {\"id\": \"pFake\"}, \"tigers\": {\"id\": \"pOther\"}, "
                  "\"state\": {\"type\": \"gameState\", \"moves\": \"Z9 Q7Q8\", \"plies\": 2, \"turn\": \"goats\", "
                  "\"status\": \"started\"}}");
    send_line(fd, "{\"type\": \"gameState\", \"moves\": \"C3 A1B1\", \"plies\": 2, \"turn\": \"goats\", "
                  "\"status\": \"started\", \"gtime\": -5, \"ttime\": 1e300}");
    wait_count(f, &f->moves, 1, 30000);
    send_line(fd, "{\"type\": \"gameState\", \"moves\": \"C3 A1B1 C1\", \"plies\": 3, \"turn\": \"tigers\", "
                  "\"status\": \"resign\", \"winner\": \"goats\"}");
    hold_open(f);
}

typedef struct {
    fake_t *f;
    int fd;
} conn_t;

static void *conn_main(void *arg)
{
    conn_t *c = arg;
    fake_t *f = c->f;
    char req[8192];
    size_t n = 0;
    while (n < sizeof req - 1 && !strstr(req, "\r\n\r\n")) {
        struct pollfd p = {c->fd, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0) {
            if (atomic_load(&f->stop))
                break;
            continue;
        }
        ssize_t r = recv(c->fd, req + n, sizeof req - 1 - n, 0);
        if (r <= 0)
            break;
        n += (size_t)r;
        req[n] = '\0';
    }
    req[n] = '\0';
    char method[16] = "", path[512] = "";
    sscanf(req, "%15s %511s", method, path);
    if (!strcmp(path, "/api/account"))
        answer(c->fd, 200, "{\"id\": \"pFake\", \"name\": \"Fake\", \"kind\": \"bot\"}");
    else if (!strcmp(path, "/api/stream/event"))
        event_stream(f, c->fd);
    else if (!strcmp(path, "/api/bot/game/stream/g1"))
        game_stream(f, c->fd);
    else if (!strcmp(path, "/api/bot/game/stream/g2"))
        game2_stream(f, c->fd);
    else if (!strcmp(path, "/api/challenge/c1/decline")) {
        atomic_fetch_add(&f->declined, 1);
        answer(c->fd, 200, "{\"ok\": true}");
    } else if (!strncmp(path, "/api/bot/game/g2/move/", 22)) {
        pthread_mutex_lock(&f->lock);
        snprintf(f->last_move, sizeof f->last_move, "%.60s", path + 22);
        pthread_mutex_unlock(&f->lock);
        atomic_fetch_add(&f->moves, 1);
        answer(c->fd, 200, "{\"ok\": true}");
    } else
        answer(c->fd, 404, "{\"error\": \"nothing here\"}");
    close(c->fd);
    free(c);
    return NULL;
}

static void *fake_main(void *arg)
{
    fake_t *f = arg;
    pthread_t threads[64];
    int nb = 0;
    while (!atomic_load(&f->stop)) {
        struct pollfd p = {f->listen_fd, POLLIN, 0};
        if (poll(&p, 1, 50) <= 0)
            continue;
        int fd = accept(f->listen_fd, NULL, NULL);
        if (fd < 0)
            continue;
        conn_t *c = malloc(sizeof *c);
        if (c)
            c->f = f, c->fd = fd;
        if (!c || nb == 64 || pthread_create(&threads[nb], NULL, conn_main, c) != 0) {
            free(c);
            close(fd);
            continue;
        }
        nb++;
    }
    for (int i = 0; i < nb; i++)
        pthread_join(threads[i], NULL);
    return NULL;
}

/* A server whose every stream says things wrong: lines that are no JSON, events without their
 * fields, a 5 MB line, ids that would go elsewhere in a URL, a challenge that cannot be read
 * (declined), a game record the bot cannot play, states whose moves do not replay and clocks out
 * of range. The bot stays up, plays the game it can play and stops cleanly. */
Test(bot, bad_lines_from_the_server_never_crash_it)
{
    fake_t *f = calloc(1, sizeof *f);
    cr_assert_not_null(f);
    pthread_mutex_init(&f->lock, NULL);
    f->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    cr_assert_eq(bind(f->listen_fd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(f->listen_fd, 64), 0);
    cr_assert_eq(getsockname(f->listen_fd, (struct sockaddr *)&a, &len), 0);
    f->port = ntohs(a.sin_port);
    cr_assert_eq(pthread_create(&f->thread, NULL, fake_main, f), 0);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", f->port);
    char *argv[] = {BOT, "--server", url, "--token", "fake-token", "--engine", ENGINE, "--option", "Hash=1", "--depth",
                    "1", "--max-games", "4", "--quiet", NULL};
    pipe_proc_t *bot = spawn(argv, PIPE_KEEP_STDERR);
    wait_count(f, &f->declined, 1, 30000);
    cr_assert_eq(atomic_load(&f->declined), 1, "the challenge that cannot be read was not declined");
    wait_count(f, &f->moves, 1, 30000);
    cr_assert_eq(atomic_load(&f->moves), 1, "the bot did not move in the game it can play");
    pthread_mutex_lock(&f->lock);
    char move[64];
    snprintf(move, sizeof move, "%s", f->last_move);
    pthread_mutex_unlock(&f->lock);
    char *q = strchr(move, '?');
    cr_assert(q && !strcmp(q, "?ply=2"), "the move was posted as %s", move);
    *q = '\0';
    game_t g;
    position_t start;
    position_set_start(&start);
    cr_assert(game_init(&g, &start, NULL, REP_FORBID));
    char msg[160];
    cr_assert_eq(game_play_text(&g, "C3", msg, sizeof msg), BC_OK);
    cr_assert_eq(game_play_text(&g, "A1B1", msg, sizeof msg), BC_OK);
    cr_assert_eq(game_play_text(&g, move, msg, sizeof msg), BC_OK, "the bot posted %s: %s", move, msg);
    game_free(&g);
    /* Both games over for the bot (one it could not play, one resigned): it stops at once. */
    nap(200);
    stop(bot, "the bot");
    cr_assert_eq(atomic_load(&f->game_streams), 2, "%d game streams opened, not one each", atomic_load(&f->game_streams));
    atomic_store(&f->stop, true);
    pthread_join(f->thread, NULL);
    close(f->listen_fd);
    pthread_mutex_destroy(&f->lock);
    free(f);
}

/* Bad settings: a non-zero status and one line saying why, before anything starts. */
Test(bot, bad_settings_refused_with_one_line)
{
    static const char *const cases[][8] = {
        {"--server", "ftp://x", "--token", "t", "--engine", ENGINE, NULL},
        {"--token", "t", "--engine", ENGINE, NULL},
        {"--server", "http://127.0.0.1:1", "--engine", ENGINE, NULL},
        {"--server", "http://127.0.0.1:1", "--token", "t", "--engine", BIN "/no-such-engine", NULL},
        {"--server", "http://127.0.0.1:1", "--token", "t", "--engine", ENGINE, "--min-initial", "90"},
        {"--server", "http://127.0.0.1:1", "--token", "t", "--engine", ENGINE, "--seek", "5+3 blitz"},
        {"--server", "http://127.0.0.1:1", "--token", "t", "--engine", ENGINE, "--option", "Hash"},
        {"--server", "http://127.0.0.1:1", "--token", "t", "--engine", ENGINE, "--rules", "chess"},
        {"--server", "http://127.0.0.1:1", "--register", "1bad", "--engine", ENGINE, NULL},
        {"--server", "http://127.0.0.1:1", "--token", "t", "--engine", ENGINE, "--max-games", "0"},
        {"--server", "http://127.0.0.1:1", "--token", "t", "--engine", ENGINE, "--frobnicate", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[16];
        int n = 0;
        argv[n++] = "/bin/sh";
        argv[n++] = "-c";
        argv[n++] = "exec \"$0\" \"$@\" 2>&1";
        argv[n++] = BOT;
        for (int k = 0; k < 8 && cases[i][k]; k++)
            argv[n++] = (char *)cases[i][k];
        if (i == 4) /* above the default maximum when --max-initial is lower */
            argv[n++] = "--max-initial", argv[n++] = "60";
        argv[n] = NULL;
        pipe_proc_t *p = pipe_start(argv, 0);
        cr_assert_not_null(p, "cannot start %s: %s", BOT, strerror(errno));
        pipe_lines_t lines = {0};
        char *line;
        pipe_status_t st = pipe_read_until(p, "\x01", 20000, &lines, &line);
        cr_assert_eq(st, PIPE_EOF, "case %zu: no end of output (%s)", i, pipe_status_name(st));
        pipe_exit_t e = pipe_wait(p, EXIT_MS);
        pipe_free(p);
        cr_assert(e.exited && e.code != 0, "case %zu: status %d, signal %d", i, e.code, e.signal);
        cr_assert_eq(lines.count, 1, "case %zu: %zu lines of output", i, lines.count);
        cr_assert(!strncmp(lines.line[0], "baghchal-bot: ", 14), "case %zu: '%s'", i, lines.line[0]);
        pipe_lines_free(&lines);
    }
}

#endif
