/* baghchal-bot: logs a protocol engine into baghchal-server as a bot and plays. The event
 * stream (reconnected with backoff when it drops) brings challenges, accepted within the
 * limits and declined otherwise, and the games, each played by game.c; a seek is kept open
 * in the lobby and players are challenged when the settings ask for it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "bot.h"
#include "cJSON.h"
#include "proc.h"
#include "types.h"
#include "util.h"

enum {
    RECENT_NB = 256,          /* finished games remembered, so a late gameStart does not start them again */
    CHECK_EVERY_MS = 10000,   /* an open seek or challenge is looked at this often */
    CHALLENGE_WAIT_MS = 60000, /* a challenge not answered within this is cancelled */
    DECLINED_WAIT_MS = 10000,  /* after a decline, the next challenge waits this long */
    BACKOFF_FIRST_MS = 500,
    BACKOFF_MAX_MS = 30000,
    MAX_QUEUED = 10000,       /* event lines waiting to be handled */
    RETRY_NB = 64,            /* challenges waiting to be answered again */
    RETRY_MS = 300,
    RETRY_TRIES = 100         /* 30 s */
};

typedef struct {
    char *text; /* the challenge, as JSON */
    int64_t at;
    int tries;
} retry_t;

/* ---- logging ---------------------------------------------------------------------------- */

static bool g_quiet;

void bot_log_init(bool quiet) { g_quiet = quiet; }

static void vlog(const char *fmt, va_list ap)
{
    char line[1024];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    int n = snprintf(line, sizeof line, "%02d:%02d:%02d baghchal-bot: ", tm.tm_hour, tm.tm_min, tm.tm_sec);
    if (n < 0)
        return;
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    /* One line whatever the text held. */
    for (char *p = line + n; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    fprintf(stderr, "%s\n", line);
}

void log_info(const char *fmt, ...)
{
    if (g_quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

void log_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

/* ---- signals ----------------------------------------------------------------------------- */

static volatile sig_atomic_t g_signals;

static void on_signal(int sig)
{
    (void)sig;
    if (g_signals < 100)
        g_signals++;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    /* The engine driver waits for its children: never let an inherited SIG_IGN reap them. */
    sa.sa_handler = SIG_DFL;
    sigaction(SIGCHLD, &sa, NULL);
}

/* Pipes must not land on descriptors 0-2, where an engine's dup2 would misplace them. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0) {
            int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (n > 2)
                close(n);
        }
}

/* ---- the loop's state ---------------------------------------------------------------------- */

typedef struct {
    bot_t b;
    bot_config_t *cfg;
    bot_game_t **games;
    int games_nb, games_cap;
    char recent[RECENT_NB][32];
    int recent_next;
    char handled[RECENT_NB][32]; /* challenges answered */
    int handled_next;
    int64_t started, ended;
    bool stopping;
    /* the seek kept open */
    char seek_id[32];
    int64_t seek_at, seek_check_at;
    /* the challenge out */
    char chal_id[32];
    int64_t chal_at, chal_check_at, chal_made_at;
    int chal_next;
    /* event lines waiting */
    char **queue;
    int queue_nb, queue_cap;
    retry_t retry[RETRY_NB];
    int retry_nb;
} loop_t;

static bool seen_in(char list[][32], const char *id)
{
    for (int i = 0; i < RECENT_NB; i++)
        if (!strcmp(list[i], id))
            return true;
    return false;
}

static void remember(char list[][32], int *next, const char *id)
{
    snprintf(list[*next], 32, "%s", id);
    *next = (*next + 1) % RECENT_NB;
}

static bool limit_reached(const loop_t *L) { return L->cfg->games_limit && L->started >= L->cfg->games_limit; }

static bool open_to_games(const loop_t *L)
{
    return !L->stopping && L->games_nb < L->cfg->max_games && !limit_reached(L);
}

static bot_game_t *find_game(loop_t *L, const char *id)
{
    for (int i = 0; i < L->games_nb; i++)
        if (!strcmp(bot_game_id(L->games[i]), id))
            return L->games[i];
    return NULL;
}

/* Plays the game unless it is being played or is over. */
static void ensure_game(loop_t *L, const char *id)
{
    if (!valid_id(id) || find_game(L, id) || seen_in(L->recent, id) || atomic_load(&L->b.hard_stop))
        return;
    if (L->games_nb == L->games_cap) {
        int cap = L->games_cap ? L->games_cap * 2 : 8;
        bot_game_t **l = realloc(L->games, (size_t)cap * sizeof *l);
        if (!l) {
            log_warn("game %s: out of memory: not played", id);
            return;
        }
        L->games = l, L->games_cap = cap;
    }
    bot_game_t *g = bot_game_start(&L->b, id);
    if (!g) {
        log_warn("game %s: cannot start its threads: not played", id);
        return;
    }
    L->games[L->games_nb++] = g;
    L->started++;
    /* A seek or challenge of ours may have become this game: look now. */
    L->seek_check_at = L->chal_check_at = 0;
}

static void reap_games(loop_t *L)
{
    for (int i = 0; i < L->games_nb;) {
        bot_game_t *g = L->games[i];
        if (!bot_game_done(g)) {
            i++;
            continue;
        }
        remember(L->recent, &L->recent_next, bot_game_id(g));
        if (bot_game_finished(g))
            L->ended++;
        bot_game_join(g);
        L->games[i] = L->games[--L->games_nb];
    }
}

/* ---- requests ------------------------------------------------------------------------------- */

/* A request of the event loop. */
static long api(loop_t *L, const char *method, const char *path, const char *body, cJSON **answer, char *why,
                size_t whylen)
{
    http_reply_t r;
    http_call(L->cfg->server, L->cfg->token, method, path, body, &r);
    http_reason(&r, why, whylen);
    if (answer)
        *answer = r.body && r.status >= 200 && r.status < 300 ? cJSON_Parse(r.body) : NULL;
    http_reply_free(&r);
    return r.status;
}

static const char *str_field(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* ---- challenges to the bot ---------------------------------------------------------------- */

/* Why the challenge is refused, or NULL. */
static const char *refusal(const loop_t *L, const cJSON *c, char *buf, size_t len)
{
    const bot_config_t *cfg = L->cfg;
    if (L->stopping)
        return "the bot is stopping";
    if (limit_reached(L))
        return "the bot has played its games";
    if (L->games_nb >= cfg->max_games)
        return "the bot plays as many games as it may";
    const cJSON *clock = cJSON_GetObjectItemCaseSensitive(c, "clock");
    if (!clock || cJSON_IsNull(clock)) {
        if (!cfg->allow_no_clock)
            return "games without a clock are not accepted";
    } else {
        const cJSON *ini = cJSON_GetObjectItemCaseSensitive(clock, "initial");
        const cJSON *inc = cJSON_GetObjectItemCaseSensitive(clock, "increment");
        if (!cJSON_IsNumber(ini) || !cJSON_IsNumber(inc))
            return "a clock that cannot be read";
        double a = ini->valuedouble, i = inc->valuedouble;
        if (!cfg->allow_clock)
            return "games with a clock are not accepted";
        if (a < (double)cfg->min_initial_ms || a > (double)cfg->max_initial_ms) {
            snprintf(buf, len, "an initial time of %g s is outside %g to %g s", a / 1000, (double)cfg->min_initial_ms / 1000,
                     (double)cfg->max_initial_ms / 1000);
            return buf;
        }
        if (i < (double)cfg->min_increment_ms || i > (double)cfg->max_increment_ms) {
            snprintf(buf, len, "an increment of %g s is outside %g to %g s", i / 1000,
                     (double)cfg->min_increment_ms / 1000, (double)cfg->max_increment_ms / 1000);
            return buf;
        }
    }
    const char *rule = str_field(c, "rule");
    if (!rule || (strcmp(rule, "forbid") && strcmp(rule, "draw")))
        return "a rule that cannot be read";
    if (!cfg->allow_rule[!strcmp(rule, "draw")])
        return !strcmp(rule, "draw") ? "the draw rule is not accepted" : "the forbid rule is not accepted";
    const cJSON *rated = cJSON_GetObjectItemCaseSensitive(c, "rated");
    if (cJSON_IsTrue(rated) ? !cfg->allow_rated : !cfg->allow_casual)
        return cJSON_IsTrue(rated) ? "rated games are not accepted" : "casual games are not accepted";
    return NULL;
}

/* An answer that may be given later: refused for the bot's rate, or not given at all. */
static bool try_later(long status) { return status == 0 || status == 429 || status >= 500; }

/* Accepts or declines a challenge to the bot; false when the answer is to be tried again later. */
static bool on_challenge(loop_t *L, const cJSON *c)
{
    const char *id = str_field(c, "id");
    const cJSON *from = cJSON_GetObjectItemCaseSensitive(c, "from");
    const cJSON *to = cJSON_GetObjectItemCaseSensitive(c, "to");
    const char *from_id = str_field(from, "id"), *from_name = str_field(from, "name"), *to_id = str_field(to, "id");
    if (!id || !valid_id(id)) {
        log_warn("a challenge without a valid id skipped");
        return true;
    }
    if ((from_id && !strcmp(from_id, L->b.me_id)) || !to_id || strcmp(to_id, L->b.me_id))
        return true; /* ours, or not to the bot */
    if (seen_in(L->handled, id))
        return true;
    char buf[160], why[300], path[96];
    const char *no = refusal(L, c, buf, sizeof buf);
    const char *who = from_name && valid_name(from_name) ? from_name : "?";
    cJSON *ans = NULL;
    snprintf(path, sizeof path, "/api/challenge/%s/%s", id, no ? "decline" : "accept");
    long st = api(L, "POST", path, NULL, no ? NULL : &ans, why, sizeof why);
    if (try_later(st)) {
        cJSON_Delete(ans);
        return false;
    }
    remember(L->handled, &L->handled_next, id);
    const char *game = str_field(ans, "game");
    if (no && st == 200)
        log_info("challenge %s from %s declined: %s", id, who, no);
    else if (st == 200 && game) {
        log_info("challenge %s from %s accepted: game %s", id, who, game);
        ensure_game(L, game);
    } else
        log_info("challenge %s from %s: %s it: %s", id, who, no ? "declining" : "accepting", why);
    cJSON_Delete(ans);
    return true;
}

/* The challenges whose answer is to be tried again (the server refused it for the bot's rate,
 * or could not be reached), with when. */
static void retry_challenge(loop_t *L, const cJSON *c, int tries)
{
    if (tries >= RETRY_TRIES) {
        log_warn("challenge %s: no answer could be given", str_field(c, "id"));
        return;
    }
    if (L->retry_nb == RETRY_NB) {
        log_warn("too many challenges waiting for an answer: one left unanswered");
        return;
    }
    char *text = cJSON_PrintUnformatted(c);
    if (!text) {
        log_warn("out of memory: a challenge left unanswered");
        return;
    }
    L->retry[L->retry_nb++] = (retry_t){text, mono_ms() + RETRY_MS, tries + 1};
}

static void retry_due(loop_t *L, int64_t now)
{
    for (int i = 0; i < L->retry_nb;) {
        if (L->retry[i].at > now) {
            i++;
            continue;
        }
        retry_t r = L->retry[i];
        L->retry[i] = L->retry[--L->retry_nb];
        cJSON *c = cJSON_Parse(r.text);
        if (c && !on_challenge(L, c))
            retry_challenge(L, c, r.tries);
        cJSON_Delete(c);
        free(r.text);
    }
}

/* ---- the event stream --------------------------------------------------------------------- */

static bool queue_line(void *ctx, char *line)
{
    loop_t *L = ctx;
    if (L->queue_nb >= MAX_QUEUED) {
        log_warn("too many events waiting: one skipped");
        return true;
    }
    if (L->queue_nb == L->queue_cap) {
        int cap = L->queue_cap ? L->queue_cap * 2 : 16;
        char **q = realloc(L->queue, (size_t)cap * sizeof *q);
        if (!q) {
            log_warn("out of memory: an event skipped");
            return true;
        }
        L->queue = q, L->queue_cap = cap;
    }
    char *copy = xstrdup(line);
    if (!copy) {
        log_warn("out of memory: an event skipped");
        return true;
    }
    L->queue[L->queue_nb++] = copy;
    return true;
}

static void on_event(loop_t *L, const char *line)
{
    cJSON *j = cJSON_Parse(line);
    const char *type = str_field(j, "type");
    if (!type) {
        log_warn("a line of the event stream that is no event skipped");
        cJSON_Delete(j);
        return;
    }
    const cJSON *game = cJSON_GetObjectItemCaseSensitive(j, "game");
    const char *gid = str_field(game, "id");
    if (!strcmp(type, "gameStart")) {
        if (gid && valid_id(gid))
            ensure_game(L, gid);
        else
            log_warn("a gameStart without a valid game id skipped");
    } else if (!strcmp(type, "gameFinish")) {
        L->seek_check_at = L->chal_check_at = 0;
    } else if (!strcmp(type, "challenge")) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(j, "challenge");
        if (cJSON_IsObject(c)) {
            if (!on_challenge(L, c))
                retry_challenge(L, c, 0);
        } else
            log_warn("a challenge event without its challenge skipped");
    } else if (!strcmp(type, "challengeDeclined") || !strcmp(type, "challengeCanceled")) {
        const char *id = str_field(j, "id");
        if (id && L->chal_id[0] && !strcmp(id, L->chal_id)) {
            log_info("challenge %s %s", id, type[9] == 'D' ? "declined" : "cancelled");
            L->chal_id[0] = '\0';
            L->chal_at = mono_ms() + DECLINED_WAIT_MS;
        }
    }
    cJSON_Delete(j);
}

static void drain_queue(loop_t *L)
{
    for (int i = 0; i < L->queue_nb; i++) {
        on_event(L, L->queue[i]);
        free(L->queue[i]);
    }
    L->queue_nb = 0;
}

/* ---- the seek and the challenges the bot makes ------------------------------------------------ */

/* Is ours still open? (404: taken, declined or gone) Looking is no action: the server does
 * not count it against the bot's rate. */
static bool still_open(loop_t *L, const char *id)
{
    char path[96], why[300];
    snprintf(path, sizeof path, "/api/challenge/%s", id);
    long st = api(L, "GET", path, NULL, NULL, why, sizeof why);
    return st != 404;
}

/* Withdraws ours (a seek or a challenge) unless it is gone already; true when it is gone. */
static bool cancel(loop_t *L, char id[32], const char *what)
{
    char path[96], why[300];
    if (!still_open(L, id)) {
        id[0] = '\0';
        return true;
    }
    snprintf(path, sizeof path, "/api/challenge/%s/cancel", id);
    long st = api(L, "POST", path, NULL, NULL, why, sizeof why);
    if (st == 200 || st == 404 || st == 403) {
        if (st == 200)
            log_info("%s %s withdrawn", what, id);
        id[0] = '\0';
        return true;
    }
    if (st != 429)
        log_warn("%s %s: withdrawing it: %s", what, id, why);
    return false;
}

/* Makes a seek (to: NULL) or a challenge; its id into id. */
static long create(loop_t *L, const game_spec_t *spec, const char *to, char id[32], char *why, size_t whylen)
{
    char *body = spec_json(spec, to);
    if (!body) {
        snprintf(why, whylen, "out of memory");
        return 0;
    }
    cJSON *ans = NULL;
    long st = api(L, "POST", to ? "/api/challenge" : "/api/seek", body, &ans, why, whylen);
    free(body);
    const char *cid = str_field(ans, "id");
    if (st >= 200 && st < 300 && cid && valid_id(cid)) {
        snprintf(id, 32, "%s", cid);
    } else if (st >= 200 && st < 300) {
        snprintf(why, whylen, "an answer without the id");
        st = 0;
    }
    cJSON_Delete(ans);
    return st;
}

static void keep_seek(loop_t *L, int64_t now)
{
    const bot_config_t *cfg = L->cfg;
    if (!cfg->seek)
        return;
    bool want = open_to_games(L);
    char why[300], desc[96];
    if (L->seek_id[0]) {
        if (!want) {
            if (now >= L->seek_check_at && !cancel(L, L->seek_id, "seek"))
                L->seek_check_at = now + 1000;
        } else if (now >= L->seek_check_at) {
            L->seek_check_at = now + CHECK_EVERY_MS;
            if (!still_open(L, L->seek_id)) {
                log_info("seek %s taken", L->seek_id);
                L->seek_id[0] = '\0';
            }
        }
    }
    if (!L->seek_id[0] && want && now >= L->seek_at) {
        long st = create(L, &cfg->seek_spec, NULL, L->seek_id, why, sizeof why);
        if (st >= 200 && st < 300) {
            spec_describe(&cfg->seek_spec, desc, sizeof desc);
            log_info("seek %s open: %s", L->seek_id, desc);
            L->seek_check_at = now + CHECK_EVERY_MS;
        } else {
            L->seek_id[0] = '\0';
            log_warn("making a seek: %s", why);
            L->seek_at = now + (st == 429 ? 2000 : CHECK_EVERY_MS);
        }
    }
}

static void keep_challenging(loop_t *L, int64_t now)
{
    const bot_config_t *cfg = L->cfg;
    if (!cfg->challenge_nb)
        return;
    bool want = open_to_games(L);
    char why[300];
    if (L->chal_id[0]) {
        if (!want || now - L->chal_made_at > CHALLENGE_WAIT_MS) {
            if (want)
                log_info("challenge %s not answered within %d s", L->chal_id, CHALLENGE_WAIT_MS / 1000);
            if (now >= L->chal_check_at && !cancel(L, L->chal_id, "challenge"))
                L->chal_check_at = now + 1000;
        } else if (now >= L->chal_check_at) {
            L->chal_check_at = now + CHECK_EVERY_MS;
            if (!still_open(L, L->chal_id))
                L->chal_id[0] = '\0';
        }
    }
    if (!L->chal_id[0] && want && now >= L->chal_at) {
        const char *to = cfg->challenge[L->chal_next++ % cfg->challenge_nb];
        long st = create(L, &cfg->challenge_spec, to, L->chal_id, why, sizeof why);
        if (st >= 200 && st < 300) {
            log_info("challenge %s to %s", L->chal_id, to);
            L->chal_made_at = now;
            L->chal_check_at = now + CHECK_EVERY_MS;
        } else {
            L->chal_id[0] = '\0';
            log_info("challenging %s: %s", to, why);
            L->chal_at = now + (st == 429 ? 1000 : 5000);
        }
    }
}

/* ---- the account ------------------------------------------------------------------------------- */

/* A request at startup, tried again while the server cannot be reached. */
static long startup_call(const bot_config_t *cfg, const char *method, const char *path, const char *body, cJSON **ans,
                         char *why, size_t whylen)
{
    int64_t backoff = BACKOFF_FIRST_MS;
    for (;;) {
        http_reply_t r;
        http_call(cfg->server, cfg->token, method, path, body, &r);
        http_reason(&r, why, whylen);
        *ans = r.body ? cJSON_Parse(r.body) : NULL;
        http_reply_free(&r);
        if (r.status != 0 && r.status < 500 && r.status != 429)
            return r.status;
        cJSON_Delete(*ans);
        *ans = NULL;
        if (g_signals)
            return 0;
        log_warn("%s %s: %s; again in %lld ms", method, path, why, (long long)backoff);
        for (int64_t end = mono_ms() + backoff; mono_ms() < end && !g_signals;)
            nap_ms(50, NULL);
        backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
    }
}

/* The token of --token-file: 1 read, 0 no file (or empty), -1 unreadable (msg says why). */
static int read_token_file(const char *path, char **token, char *msg, size_t msglen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        snprintf(msg, msglen, "cannot read --token-file %s: %s", path, strerror(errno));
        return -1;
    }
    char line[512] = "";
    bool got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
        line[--n] = '\0';
    if (!got || !n)
        return 0;
    for (char *p = line; *p; p++)
        if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f) {
            snprintf(msg, msglen, "--token-file %s does not hold a token", path);
            return -1;
        }
    if (!(*token = xstrdup(line))) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    return 1;
}

static bool write_token_file(const char *path, const char *token, char *msg, size_t msglen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(msg, msglen, "cannot write --token-file %s: %s", path, strerror(errno));
        return false;
    }
    size_t n = strlen(token);
    bool ok = write(fd, token, n) == (ssize_t)n && write(fd, "\n", 1) == 1;
    int err = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (!ok)
        snprintf(msg, msglen, "cannot write --token-file %s: %s", path, strerror(err));
    return ok;
}

/* The token: given, read from --token-file, or a new bot account's. false with msg on failure. */
static bool get_token(bot_config_t *cfg, char *msg, size_t msglen)
{
    if (cfg->token)
        return true;
    if (cfg->token_file) {
        int k = read_token_file(cfg->token_file, &cfg->token, msg, msglen);
        if (k < 0)
            return false;
        if (k > 0)
            return true;
        if (!cfg->register_name) {
            snprintf(msg, msglen, "--token-file %s holds no token (give --register NAME to make the account)",
                     cfg->token_file);
            return false;
        }
    }
    cJSON *req = cJSON_CreateObject();
    char *body = req && cJSON_AddStringToObject(req, "name", cfg->register_name) && cJSON_AddTrueToObject(req, "bot")
                     ? cJSON_PrintUnformatted(req)
                     : NULL;
    cJSON_Delete(req);
    if (!body) {
        snprintf(msg, msglen, "out of memory");
        return false;
    }
    cJSON *ans = NULL;
    char why[300];
    long st = startup_call(cfg, "POST", "/api/account/register", body, &ans, why, sizeof why);
    free(body);
    const char *token = str_field(ans, "token");
    bool ok = false;
    if (st < 200 || st >= 300 || !token) {
        snprintf(msg, msglen, "cannot register the bot %s: %s", cfg->register_name, st ? why : "stopped");
    } else if (!(cfg->token = xstrdup(token))) {
        snprintf(msg, msglen, "out of memory");
    } else if (cfg->token_file) {
        ok = write_token_file(cfg->token_file, token, msg, msglen);
        if (ok) {
            log_info("bot account %s made; its token is in %s", cfg->register_name, cfg->token_file);
        } else {
            /* The account is made: its token must not be lost with the file. */
            printf("%s\n", token);
            fflush(stdout);
        }
    } else {
        printf("%s\n", token);
        fflush(stdout);
        log_info("bot account %s made; its token was printed on standard output: keep it", cfg->register_name);
        ok = true;
    }
    cJSON_Delete(ans);
    return ok;
}

/* Who the token is: the bot's id and name. */
static bool whoami(loop_t *L, char *msg, size_t msglen)
{
    cJSON *ans = NULL;
    char why[300];
    long st = startup_call(L->cfg, "GET", "/api/account", NULL, &ans, why, sizeof why);
    const char *id = str_field(ans, "id"), *name = str_field(ans, "name"), *kind = str_field(ans, "kind");
    bool ok = false;
    if (st == 401)
        snprintf(msg, msglen, "the server does not know the token (401): a bot account's token is needed");
    else if (st != 200 || !id || !name || !kind)
        snprintf(msg, msglen, "cannot read the account: %s", st ? why : "stopped");
    else if (strcmp(kind, "bot"))
        snprintf(msg, msglen, "%.40s is a %.10s account, not a bot: make one with --register NAME", name, kind);
    else if (strlen(id) >= sizeof L->b.me_id || strlen(name) >= sizeof L->b.me_name)
        snprintf(msg, msglen, "the account's id or name is too long");
    else {
        snprintf(L->b.me_id, sizeof L->b.me_id, "%s", id);
        snprintf(L->b.me_name, sizeof L->b.me_name, "%s", name);
        ok = true;
    }
    cJSON_Delete(ans);
    return ok;
}

/* ---- the loop ------------------------------------------------------------------------------------ */

static int run(loop_t *L)
{
    CURLM *m = curl_multi_init();
    stream_t *ev = stream_new(L->cfg->server, L->cfg->token, "/api/stream/event", queue_line, L, NULL);
    if (!m || !ev) {
        stream_free(ev);
        if (m)
            curl_multi_cleanup(m);
        log_warn("out of memory");
        return 1;
    }
    pthread_mutex_lock(&L->b.lock);
    L->b.multi = m;
    pthread_mutex_unlock(&L->b.lock);
    bool attached = false, fatal = false;
    int64_t backoff = BACKOFF_FIRST_MS, reconnect_at = 0, attached_at = 0;
    int signals_seen = 0;
    log_info("%s (%s) on %s", L->b.me_name, L->b.me_id, L->cfg->server);
    for (;;) {
        int64_t now = mono_ms();
        int sig = g_signals;
        if (sig > signals_seen) {
            signals_seen = sig;
            if (!L->stopping) {
                L->stopping = true;
                log_info("stopping: no new games; %d going on%s", L->games_nb,
                         L->games_nb ? " are played to their end (a second signal leaves them)" : "");
            } else if (!atomic_load(&L->b.hard_stop)) {
                log_info("leaving %d game%s now", L->games_nb, L->games_nb == 1 ? "" : "s");
                atomic_store(&L->b.hard_stop, true);
                for (int i = 0; i < L->games_nb; i++)
                    bot_game_leave(L->games[i]);
            }
        }
        reap_games(L);
        if ((L->stopping || limit_reached(L)) && L->games_nb == 0)
            break;
        if (!attached && now >= reconnect_at) {
            stream_reset(ev);
            if (curl_multi_add_handle(m, stream_easy(ev)) == CURLM_OK) {
                attached = true;
                attached_at = now;
            } else {
                reconnect_at = now + backoff;
            }
        }
        if (attached) {
            keep_seek(L, now);
            keep_challenging(L, now);
        }
        int running = 0;
        curl_multi_perform(m, &running);
        drain_queue(L);
        retry_due(L, mono_ms());
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(m, &left))) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            CURLcode rc = msg->data.result;
            long status = stream_status(ev);
            curl_multi_remove_handle(m, stream_easy(ev));
            attached = false;
            if (status == 401 || status == 403) {
                log_warn("the server refuses the event stream (%ld): the token is no longer valid", status);
                fatal = true;
                break;
            }
            if (now - attached_at > 10000)
                backoff = BACKOFF_FIRST_MS;
            char why[CURL_ERROR_SIZE + 64];
            stream_describe(ev, (int)rc, why, sizeof why);
            log_warn("the event stream ended (%s, status %ld); again in %lld ms", why, status, (long long)backoff);
            reconnect_at = mono_ms() + backoff;
            backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
        }
        if (fatal)
            break;
        curl_multi_poll(m, NULL, 0, 200, NULL);
    }
    if (attached)
        curl_multi_remove_handle(m, stream_easy(ev));
    /* Leaving: what is ours in the lobby goes (tried for a few seconds: the server may be
     * counting the bot's actions), and so do the games left (only after a fatal error). */
    for (int k = 0; k < 10 && (L->seek_id[0] || L->chal_id[0]); k++) {
        if (k)
            nap_ms(500, NULL);
        if (L->seek_id[0])
            cancel(L, L->seek_id, "seek");
        if (L->chal_id[0])
            cancel(L, L->chal_id, "challenge");
    }
    atomic_store(&L->b.hard_stop, true);
    for (int i = 0; i < L->games_nb; i++)
        bot_game_leave(L->games[i]);
    for (int i = 0; i < L->games_nb; i++)
        bot_game_join(L->games[i]);
    L->games_nb = 0;
    pthread_mutex_lock(&L->b.lock);
    L->b.multi = NULL;
    pthread_mutex_unlock(&L->b.lock);
    stream_free(ev);
    curl_multi_cleanup(m);
    for (int i = 0; i < L->queue_nb; i++)
        free(L->queue[i]);
    free(L->queue);
    for (int i = 0; i < L->retry_nb; i++)
        free(L->retry[i].text);
    free(L->games);
    log_info("%lld game%s played", (long long)L->ended, L->ended == 1 ? "" : "s");
    return fatal ? 1 : 0;
}

int main(int argc, char **argv)
{
    ensure_std_fds();
    bot_config_t cfg;
    char msg[512];
    if (!config_parse(argc, argv, &cfg, msg, sizeof msg)) {
        one_line(msg);
        fprintf(stderr, "baghchal-bot: %s\n", msg);
        config_free(&cfg);
        return 2;
    }
    if (cfg.help || cfg.version) {
        if (cfg.help)
            config_usage();
        else
            printf("baghchal-bot %s\n", BAGHCHAL_VERSION);
        config_free(&cfg);
        return 0;
    }
    bot_log_init(cfg.quiet);
    install_signals();
    if (!http_global_init(msg, sizeof msg)) {
        fprintf(stderr, "baghchal-bot: %s\n", msg);
        config_free(&cfg);
        return 1;
    }
    static loop_t L; /* large (the remembered ids): not on the stack */
    memset(&L, 0, sizeof L);
    L.cfg = &cfg;
    L.b.cfg = &cfg;
    L.b.log_fd = -1;
    atomic_init(&L.b.hard_stop, false);
    pthread_mutex_init(&L.b.lock, NULL);
    int status = 1;
    if (!get_token(&cfg, msg, sizeof msg) || !whoami(&L, msg, sizeof msg)) {
        for (char *p = msg; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
        fprintf(stderr, "baghchal-bot: %s\n", msg);
        goto done;
    }
    if (!cfg.has_engine) {
        status = 0; /* --register alone: the account is made */
        goto done;
    }
    if (cfg.log_file && (L.b.log_fd = open(cfg.log_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0) {
        fprintf(stderr, "baghchal-bot: cannot open --log %s: %s\n", cfg.log_file, strerror(errno));
        goto done;
    }
    /* What an engine leaves behind comes to the bot, which kills it with the engine. */
    proc_become_subreaper();
    status = run(&L);
done:
    if (L.b.log_fd >= 0)
        close(L.b.log_fd);
    pthread_mutex_destroy(&L.b.lock);
    http_global_cleanup();
    config_free(&cfg);
    return status;
}
