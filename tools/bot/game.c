/* One game: a thread reads the game's stream (reconnecting when it drops) and keeps its latest
 * state; another plays it with an engine process of its own, started through the referee's
 * engine driver (player.c), on the game's clocks. An engine that fails is restarted once; when
 * it fails again the game is resigned (aborted before the second move), never left hanging. */
#include "bot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "baghchal.h"
#include "cJSON.h"
#include "player.h"
#include "util.h"

enum {
    NO_CLOCK_THINK_MS = 60000, /* a go without a clock nor movetime: the time it is given */
    RESTARTS = 1,              /* an engine that fails is restarted this often in a game */
    BACKOFF_FIRST_MS = 500,
    BACKOFF_MAX_MS = 30000
};

typedef struct {
    char *moves; /* "C3 A1B1 ...", as the server writes them */
    int plies;
    int turn;    /* GOATS, TIGERS */
    bool clock;
    int64_t gtime, ttime, ginc, tinc;
    char status[24];
    int winner;         /* GOATS, TIGERS, -1: none */
    int takeback_offer; /* the side asking, -1: none */
} state_t;

struct bot_game {
    bot_t *bot;
    char id[32];
    char engine_name[96];
    pthread_t reader, player;
    bool reader_started, player_started;

    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* Under mu: what the stream said. */
    bool have_full;
    char start_obx[OBX_MAX_LEN];
    int rule;    /* 0 forbid, 1 draw */
    int my_side; /* GOATS, TIGERS; -1 until gameFull */
    state_t st;
    uint64_t version; /* counts the states */
    bool over;        /* nothing more to do: ended on the server, gone, or left */
    bool finished;    /* ended on the server */
    bool claim;       /* the opponent has been away long enough: claim the win */

    atomic_bool leave; /* set with over, or by bot_game_leave: the engine and the stream stop */
    int wake[2];       /* readable once leave is set: wakes the engine driver's waits */
    atomic_int running; /* threads still running */
};

int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void nap_ms(int64_t ms, const atomic_bool *stop)
{
    int64_t end = mono_ms() + ms;
    for (int64_t now = mono_ms(); now < end && !(stop && atomic_load(stop)); now = mono_ms()) {
        int64_t left = end - now;
        struct timespec ts = {0, (long)(left < 50 ? left : 50) * 1000000L};
        nanosleep(&ts, NULL);
    }
}

const char *bot_game_id(const bot_game_t *g) { return g->id; }

bool bot_game_done(const bot_game_t *g) { return atomic_load(&((bot_game_t *)g)->running) == 0; }

bool bot_game_finished(const bot_game_t *g)
{
    bot_game_t *m = (bot_game_t *)g;
    pthread_mutex_lock(&m->mu);
    bool f = m->finished;
    pthread_mutex_unlock(&m->mu);
    return f;
}

/* Under mu: the game needs nothing more; the engine's waits and the stream end. */
static void set_over(bot_game_t *g)
{
    g->over = true;
    if (!atomic_exchange(&g->leave, true) && g->wake[1] >= 0) {
        ssize_t w;
        do
            w = write(g->wake[1], "x", 1);
        while (w < 0 && errno == EINTR);
    }
    pthread_cond_broadcast(&g->cv);
}

void bot_game_leave(bot_game_t *g)
{
    pthread_mutex_lock(&g->mu);
    set_over(g);
    pthread_mutex_unlock(&g->mu);
}

/* A thread is done: the event loop may reap the game. */
static void thread_done(bot_game_t *g)
{
    bot_t *b = g->bot;
    if (atomic_fetch_sub(&g->running, 1) == 1) {
        pthread_mutex_lock(&b->lock);
        if (b->multi)
            curl_multi_wakeup(b->multi);
        pthread_mutex_unlock(&b->lock);
    }
}

/* ---- the stream ---------------------------------------------------------------------------- */

static int side_of(const cJSON *j)
{
    if (!cJSON_IsString(j))
        return -1;
    return !strcmp(j->valuestring, "goats") ? GOATS : !strcmp(j->valuestring, "tigers") ? TIGERS : -1;
}

static bool num_field(const cJSON *o, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= (double)lo && v->valuedouble <= (double)hi))
        return false;
    *out = (int64_t)v->valuedouble;
    return true;
}

/* A gameState into st (moves on the heap); false when it is malformed. */
static bool read_state(const cJSON *j, state_t *st)
{
    memset(st, 0, sizeof *st);
    const cJSON *moves = cJSON_GetObjectItemCaseSensitive(j, "moves");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(j, "status");
    int64_t plies;
    st->turn = side_of(cJSON_GetObjectItemCaseSensitive(j, "turn"));
    st->takeback_offer = side_of(cJSON_GetObjectItemCaseSensitive(j, "takebackOffer"));
    st->winner = side_of(cJSON_GetObjectItemCaseSensitive(j, "winner"));
    if (!cJSON_IsString(moves) || !cJSON_IsString(status) || strlen(status->valuestring) >= sizeof st->status ||
        st->turn < 0 || !num_field(j, "plies", 0, 1 << 30, &plies))
        return false;
    st->plies = (int)plies;
    snprintf(st->status, sizeof st->status, "%s", status->valuestring);
    int64_t max = INT64_C(1) << 50;
    st->clock = num_field(j, "gtime", 0, max, &st->gtime) && num_field(j, "ttime", 0, max, &st->ttime);
    if (st->clock && (!num_field(j, "ginc", 0, max, &st->ginc) || !num_field(j, "tinc", 0, max, &st->tinc)))
        st->ginc = st->tinc = 0;
    st->moves = xstrdup(moves->valuestring);
    return st->moves != NULL;
}

/* Under mu. */
static void take_state(bot_game_t *g, state_t *st)
{
    free(g->st.moves);
    g->st = *st;
    st->moves = NULL;
    g->version++;
    if (strcmp(g->st.status, "started") != 0 && !g->finished) {
        g->finished = true;
        const char *me = g->my_side == GOATS ? "goats" : "tigers";
        const char *how = g->st.winner < 0 ? "no winner" : g->st.winner == g->my_side ? "won" : "lost";
        log_info("game %s over: %s after %d plies: the bot (the %s) %s", g->id, g->st.status, g->st.plies, me, how);
        set_over(g);
    }
    pthread_cond_broadcast(&g->cv);
}

/* The game's settings from gameFull; false when malformed. */
static bool read_full(bot_game_t *g, const cJSON *j, char *why, size_t whylen)
{
    const cJSON *obx = cJSON_GetObjectItemCaseSensitive(j, "initialObx");
    const cJSON *rule = cJSON_GetObjectItemCaseSensitive(j, "rule");
    const cJSON *goats = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "goats"), "id");
    const cJSON *tigers = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "tigers"), "id");
    if (!cJSON_IsString(obx) || !cJSON_IsString(rule)) {
        snprintf(why, whylen, "a gameFull without initialObx or rule");
        return false;
    }
    position_t pos;
    obx_meta_t meta;
    char msg[160];
    if (obx_parse(obx->valuestring, &pos, &meta, msg, sizeof msg) != BC_OK) {
        snprintf(why, whylen, "its initialObx is invalid: %s", msg);
        return false;
    }
    int side = cJSON_IsString(goats) && !strcmp(goats->valuestring, g->bot->me_id)     ? GOATS
               : cJSON_IsString(tigers) && !strcmp(tigers->valuestring, g->bot->me_id) ? TIGERS
                                                                                       : -1;
    if (side < 0) {
        snprintf(why, whylen, "the bot is not one of its players");
        return false;
    }
    obx_format(&pos, &meta, OBX_V2, g->start_obx, sizeof g->start_obx);
    g->rule = !strcmp(rule->valuestring, "draw");
    g->my_side = side;
    g->have_full = true;
    return true;
}

static bool on_game_line(void *ctx, char *line)
{
    bot_game_t *g = ctx;
    cJSON *j = cJSON_Parse(line);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(j, "type");
    if (!cJSON_IsString(type)) {
        log_warn("game %s: a line from the server that is no event skipped", g->id);
        cJSON_Delete(j);
        return true;
    }
    bool go_on = true;
    state_t st;
    if (!strcmp(type->valuestring, "gameFull")) {
        char why[200];
        pthread_mutex_lock(&g->mu);
        bool ok = g->have_full || read_full(g, j, why, sizeof why);
        if (!ok) {
            log_warn("game %s: not played: %s", g->id, why);
            set_over(g);
        } else if (read_state(cJSON_GetObjectItemCaseSensitive(j, "state"), &st)) {
            take_state(g, &st);
        } else {
            log_warn("game %s: a gameFull with a malformed state skipped", g->id);
        }
        go_on = !g->over;
        pthread_mutex_unlock(&g->mu);
    } else if (!strcmp(type->valuestring, "gameState")) {
        pthread_mutex_lock(&g->mu);
        if (read_state(j, &st))
            take_state(g, &st);
        else
            log_warn("game %s: a malformed gameState skipped", g->id);
        go_on = !g->over;
        pthread_mutex_unlock(&g->mu);
    } else if (!strcmp(type->valuestring, "opponentGone")) {
        const cJSON *gone = cJSON_GetObjectItemCaseSensitive(j, "gone");
        const cJSON *in = cJSON_GetObjectItemCaseSensitive(j, "claimWinInSeconds");
        int side = side_of(cJSON_GetObjectItemCaseSensitive(j, "side"));
        pthread_mutex_lock(&g->mu);
        if (g->have_full && side == 1 - g->my_side) {
            bool now = cJSON_IsTrue(gone) && cJSON_IsNumber(in) && in->valuedouble <= 0;
            log_info("game %s: the opponent %s", g->id,
                     !cJSON_IsTrue(gone) ? "is back" : now ? "is gone: claiming the win" : "is gone");
            g->claim = now;
            pthread_cond_broadcast(&g->cv);
        }
        pthread_mutex_unlock(&g->mu);
    }
    cJSON_Delete(j);
    return go_on;
}

static void *reader_main(void *arg)
{
    bot_game_t *g = arg;
    bot_t *b = g->bot;
    char path[96], err[CURL_ERROR_SIZE + 64];
    snprintf(path, sizeof path, "/api/bot/game/stream/%s", g->id);
    stream_t *s = stream_new(b->cfg->server, b->cfg->token, path, on_game_line, g, &g->leave);
    if (!s)
        log_warn("game %s: out of memory opening its stream", g->id);
    int64_t backoff = BACKOFF_FIRST_MS;
    while (s && !atomic_load(&g->leave)) {
        int64_t t0 = mono_ms();
        long status = stream_run(s, err, sizeof err);
        if (atomic_load(&g->leave))
            break;
        if (status == 401 || status == 403 || status == 404) {
            log_warn("game %s: the server answers %ld to its stream: left", g->id, status);
            break;
        }
        if (mono_ms() - t0 > 10000)
            backoff = BACKOFF_FIRST_MS;
        log_info("game %s: its stream ended (%s, status %ld); again in %lld ms", g->id, err, status,
                 (long long)backoff);
        nap_ms(backoff, &g->leave);
        backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
    }
    stream_free(s);
    pthread_mutex_lock(&g->mu);
    set_over(g);
    pthread_mutex_unlock(&g->mu);
    thread_done(g);
    return NULL;
}

/* ---- playing ---------------------------------------------------------------------------- */

/* A POST for the game (move/..., resign, abort, takeback/no). */
static long post(bot_game_t *g, const char *action, char *why, size_t whylen)
{
    char path[160];
    snprintf(path, sizeof path, "/api/bot/game/%s/%s", g->id, action);
    http_reply_t r;
    http_call(g->bot->cfg->server, g->bot->cfg->token, "POST", path, NULL, &r);
    http_reason(&r, why, whylen);
    http_reply_free(&r);
    return r.status;
}

/* The engine cannot go on: resign (abort before the second move), retried until the server
 * has it or the game is over. */
static void give_up(bot_game_t *g, int plies, const char *detail)
{
    bool abort = plies < 2;
    log_warn("game %s: %s: %s", g->id, detail, abort ? "aborting" : "resigning");
    int64_t backoff = BACKOFF_FIRST_MS;
    for (int attempt = 0; attempt < 20 && !atomic_load(&g->leave); attempt++) {
        char why[300];
        long st = post(g, abort ? "abort" : "resign", why, sizeof why);
        if (st == 200)
            return;
        if (st == 409 && abort) { /* too late to abort: the opponent moved meanwhile */
            abort = false;
            continue;
        }
        if (st == 409 || st == 404 || st == 403)
            return; /* over already, or not ours */
        log_warn("game %s: %s: %s", g->id, abort ? "abort" : "resign", why);
        nap_ms(st == 429 ? 1000 : backoff, &g->leave);
        backoff = backoff * 2 > 5000 ? 5000 : backoff * 2;
    }
}

/* Replays the server's moves from the start; false (with why) when they do not replay. */
static bool replay(const char *start_obx, int rule, const char *moves, game_t *lg, char *why, size_t whylen)
{
    position_t pos;
    obx_meta_t meta;
    if (obx_parse(start_obx, &pos, &meta, why, whylen) != BC_OK)
        return false;
    if (!game_init(lg, &pos, &meta, rule ? REP_DRAW : REP_FORBID)) {
        snprintf(why, whylen, "out of memory");
        return false;
    }
    for (const char *m = moves; *m;) {
        while (*m == ' ')
            m++;
        size_t k = strcspn(m, " ");
        if (!k)
            break;
        char word[MOVE_TEXT_LEN], msg[160];
        if (k >= sizeof word) {
            snprintf(why, whylen, "a move of %zu characters", k);
            game_free(lg);
            return false;
        }
        memcpy(word, m, k);
        word[k] = '\0';
        if (game_play_text(lg, word, msg, sizeof msg) != BC_OK) {
            snprintf(why, whylen, "move %zu '%s': %s", lg->count + 1, word, msg);
            game_free(lg);
            return false;
        }
        m += k;
    }
    return true;
}

static bool is_start(const char *start_obx)
{
    position_t pos, start;
    obx_meta_t meta;
    char msg[64];
    if (obx_parse(start_obx, &pos, &meta, msg, sizeof msg) != BC_OK)
        return false;
    position_set_start(&start);
    return pos.tigers == start.tigers && pos.goats == start.goats && pos.side == start.side &&
           pos.in_hand == start.in_hand && pos.captured == start.captured && meta.ply <= 0 &&
           meta.last_move == MOVE_NONE;
}

/* The position and go lines for the engine; the time it is allowed in *allowed_us. NULL when out of memory. */
static char *commands(const bot_game_t *g, const state_t *st, const game_t *lg, const char *start_obx,
                      int64_t *allowed_us)
{
    const bot_config_t *c = g->bot->cfg;
    sbuf_t b = {0};
    if (is_start(start_obx))
        sb_add(&b, "position startpos");
    else
        sb_addf(&b, "position obx %s", start_obx);
    if (lg->count) {
        sb_add(&b, " moves");
        for (size_t i = 0; i < lg->count; i++) {
            char t[MOVE_TEXT_LEN];
            move_format(lg->moves[i], t);
            sb_addf(&b, " %s", t);
        }
    }
    int64_t allowed_ms;
    if (st->clock) {
        sb_addf(&b, "\ngo gtime %lld ttime %lld ginc %lld tinc %lld\n", (long long)st->gtime, (long long)st->ttime,
                (long long)st->ginc, (long long)st->tinc);
        allowed_ms = g->my_side == GOATS ? st->gtime + st->ginc : st->ttime + st->tinc;
    } else {
        sb_add(&b, "\ngo");
        if (c->movetime_ms)
            sb_addf(&b, " movetime %lld", (long long)c->movetime_ms);
        if (c->depth)
            sb_addf(&b, " depth %d", c->depth);
        if (c->nodes)
            sb_addf(&b, " nodes %lld", (long long)c->nodes);
        sb_add(&b, "\n");
        allowed_ms = c->movetime_ms ? c->movetime_ms : NO_CLOCK_THINK_MS;
    }
    *allowed_us = (allowed_ms + c->grace_ms) * 1000;
    return sb_take(&b);
}

typedef enum { POSTED, RETHINK, LOST } post_result_t;

/* Posts the move for ply plies until the server has it, says it is too late, or the game
 * moves on. */
static post_result_t post_move(bot_game_t *g, const char *move, int plies, uint64_t version, char *detail,
                               size_t detaillen)
{
    char action[64];
    snprintf(action, sizeof action, "move/%s?ply=%d", move, plies);
    int64_t backoff = 250;
    for (;;) {
        char why[300];
        long st = post(g, action, why, sizeof why);
        if (st == 200)
            return POSTED;
        if (st == 409 || st == 404 || st == 403) {
            log_info("game %s: move %s refused: %s", g->id, move, why);
            return POSTED; /* stale, out of turn or over: the stream tells what is next */
        }
        if (st == 400) {
            snprintf(detail, detaillen, "the server refused the engine's move %s: %s", move, why);
            return LOST;
        }
        pthread_mutex_lock(&g->mu);
        bool moved_on = g->version != version || g->over;
        pthread_mutex_unlock(&g->mu);
        if (moved_on)
            return RETHINK;
        if (st != 429)
            log_warn("game %s: move %s not sent: %s; again in %lld ms", g->id, move, why, (long long)backoff);
        nap_ms(st == 429 ? 150 : backoff, &g->leave);
        if (atomic_load(&g->leave))
            return RETHINK;
        if (st != 429)
            backoff = backoff * 2 > 5000 ? 5000 : backoff * 2;
    }
}

static void *player_main(void *arg)
{
    bot_game_t *g = arg;
    bot_t *b = g->bot;
    const bot_config_t *c = b->cfg;
    engine_conf_t conf = c->engine;
    conf.name = g->engine_name;
    player_t pl;
    player_init(&pl);
    player_env_t env = {c->init_timeout_ms * 1000, c->ready_timeout_ms * 1000, c->quit_timeout_ms * 1000, REP_FORBID,
                        g->wake[0], &g->leave, b->log_fd};
    bool engine_up = false, retry = false;
    int restarts = 0;
    uint64_t seen = 0;
    char *moved_at = NULL, *declined_at = NULL; /* the moves when the bot last moved / declined a takeback */
    char start_obx[OBX_MAX_LEN] = "";
    int rule = 0, my_side = -1;
    state_t st = {0};
    for (;;) {
        pthread_mutex_lock(&g->mu);
        while (!retry && g->version == seen && !g->over && !g->claim)
            pthread_cond_wait(&g->cv, &g->mu);
        if (g->over) {
            pthread_mutex_unlock(&g->mu);
            break;
        }
        if (g->claim) {
            g->claim = false;
            pthread_mutex_unlock(&g->mu);
            char why[300];
            long cst = post(g, "claim-victory", why, sizeof why);
            if (cst != 200)
                log_info("game %s: claiming the win: %s", g->id, why);
            continue;
        }
        retry = false;
        seen = g->version;
        free(st.moves);
        st = g->st;
        st.moves = xstrdup(g->st.moves);
        if (g->have_full && !start_obx[0]) {
            snprintf(start_obx, sizeof start_obx, "%s", g->start_obx);
            rule = g->rule;
            my_side = g->my_side;
        }
        pthread_mutex_unlock(&g->mu);
        if (!st.moves) {
            give_up(g, st.plies, "out of memory");
            break;
        }
        if (!start_obx[0] || strcmp(st.status, "started") != 0)
            continue;
        if (st.takeback_offer == 1 - my_side && (!declined_at || strcmp(declined_at, st.moves))) {
            char why[300];
            if (post(g, "takeback/no", why, sizeof why) != 200)
                log_info("game %s: declining a takeback: %s", g->id, why);
            free(declined_at);
            declined_at = xstrdup(st.moves);
        }
        if (st.turn != my_side || (moved_at && !strcmp(moved_at, st.moves)))
            continue;
        game_t lg;
        char why[300];
        if (!replay(start_obx, rule, st.moves, &lg, why, sizeof why)) {
            log_warn("game %s: the server's moves do not replay (%s): waiting for the next state", g->id, why);
            continue;
        }
        if (game_result(&lg).reason != RESULT_NONE) {
            game_free(&lg); /* over by the rules: the server says so next */
            continue;
        }
        int64_t allowed_us;
        char *cmds = commands(g, &st, &lg, start_obx, &allowed_us);
        fault_t f = cmds ? FAULT_NONE : FAULT_INTERNAL;
        char detail[400] = "out of memory";
        if (f == FAULT_NONE && !engine_up) {
            env.rule = rule ? REP_DRAW : REP_FORBID;
            f = player_start(&pl, &conf, 0, &env);
            if (f == FAULT_NONE)
                f = player_new_game(&pl, &env);
            engine_up = f == FAULT_NONE;
            if (!engine_up && f != FAULT_ABORT)
                snprintf(detail, sizeof detail, "%s", pl.detail);
        }
        char move[64] = "";
        if (f == FAULT_NONE) {
            go_result_t res;
            f = player_go(&pl, cmds, strlen(cmds), allowed_us, &env, move, sizeof move, &res);
            if (f == FAULT_TIMEOUT)
                snprintf(detail, sizeof detail, "%s gave no bestmove within %lld ms", conf.name,
                         (long long)(allowed_us / 1000));
            else if (f != FAULT_NONE && f != FAULT_ABORT)
                snprintf(detail, sizeof detail, "%s", pl.detail);
        }
        free(cmds);
        char text[MOVE_TEXT_LEN] = "";
        if (f == FAULT_NONE) {
            char msg[160];
            if (game_play_text(&lg, move, msg, sizeof msg) == BC_OK) {
                move_format(lg.moves[lg.count - 1], text);
            } else {
                char shown[48];
                size_t k = 0;
                for (const char *p = move; *p && k < 40; p++)
                    shown[k++] = (unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f ? '?' : *p;
                shown[k] = '\0';
                snprintf(detail, sizeof detail, "%s answered '%s', not a legal move: %s", conf.name, shown, msg);
                f = FAULT_PROTOCOL;
            }
        }
        game_free(&lg);
        if (f == FAULT_ABORT)
            break;
        post_result_t pr = POSTED;
        if (f == FAULT_NONE) {
            pr = post_move(g, text, st.plies, seen, detail, sizeof detail);
            if (pr == POSTED) {
                free(moved_at);
                moved_at = xstrdup(st.moves);
                if (!moved_at) {
                    give_up(g, st.plies + 1, "out of memory");
                    break;
                }
            }
            if (pr != LOST)
                continue;
        }
        /* The engine failed (or its move was refused): once a new engine, then the game is given up. */
        if (engine_up || pl.running)
            player_kill(&pl);
        engine_up = false;
        if (restarts < RESTARTS && f != FAULT_INTERNAL) {
            restarts++;
            log_warn("game %s: %s: starting the engine again", g->id, detail);
            retry = true;
            continue;
        }
        give_up(g, st.plies, detail);
        break;
    }
    if (pl.running)
        player_quit(&pl, &env);
    free(st.moves);
    free(moved_at);
    free(declined_at);
    thread_done(g);
    return NULL;
}

/* ---- start and end ------------------------------------------------------------------------ */

static void game_free_all(bot_game_t *g)
{
    if (g->wake[0] >= 0)
        close(g->wake[0]);
    if (g->wake[1] >= 0)
        close(g->wake[1]);
    free(g->st.moves);
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    free(g);
}

bot_game_t *bot_game_start(bot_t *b, const char *id)
{
    bot_game_t *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->bot = b;
    g->wake[0] = g->wake[1] = -1;
    g->my_side = -1;
    snprintf(g->id, sizeof g->id, "%s", id);
    snprintf(g->engine_name, sizeof g->engine_name, "%s@%s", b->cfg->engine.name ? b->cfg->engine.name : "engine",
             id);
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    if (pipe2(g->wake, O_CLOEXEC) < 0) {
        g->wake[0] = g->wake[1] = -1;
        game_free_all(g);
        return NULL;
    }
    atomic_store(&g->running, 2);
    if (pthread_create(&g->reader, NULL, reader_main, g) != 0) {
        game_free_all(g);
        return NULL;
    }
    g->reader_started = true;
    if (pthread_create(&g->player, NULL, player_main, g) != 0) {
        bot_game_leave(g);
        pthread_join(g->reader, NULL);
        game_free_all(g);
        return NULL;
    }
    g->player_started = true;
    log_info("game %s: playing", id);
    return g;
}

void bot_game_join(bot_game_t *g)
{
    if (!g)
        return;
    if (g->reader_started)
        pthread_join(g->reader, NULL);
    if (g->player_started)
        pthread_join(g->player, NULL);
    game_free_all(g);
}
