/* A game between two players: each move checked by the library, both clocks kept by the
 * server (the time between a move and the next is measured here, cut by the lag allowance),
 * the game's own ends, time, resignation, abort before the second move, agreed draws under the
 * draw rule, a player away too long, takebacks, rematches; and the game's stream. */
#include "room_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FINISHED_KEPT_MS = 10 * 60 * 1000, CHAT_MAX = 140 };

bool round_live(const round_t *g) { return g->g.ended_ms == 0; }

void round_free(round_t *g)
{
    if (!g)
        return;
    game_free(&g->game);
    store_game_free(&g->g);
    free(g);
}

/* The rules' game from the stored start and moves; false when they do not replay (a damaged
 * row) or memory runs out. */
static bool rebuild(round_t *g)
{
    position_t start;
    obx_meta_t meta;
    char msg[160];
    if (obx_parse(g->g.start_obx, &start, &meta, msg, sizeof msg) != BC_OK ||
        !game_init(&g->game, &start, &meta, g->g.rule ? REP_DRAW : REP_FORBID))
        return false;
    const char *m = g->g.moves ? g->g.moves : "";
    int n = 0;
    while (*m) {
        char word[MOVE_TEXT_LEN];
        size_t k = strcspn(m, " ");
        if (k == 0 || k >= sizeof word)
            return false;
        memcpy(word, m, k);
        word[k] = '\0';
        if (game_play_text(&g->game, word, msg, sizeof msg) != BC_OK)
            return false;
        n++;
        m += k;
        while (*m == ' ')
            m++;
    }
    g->g.plies = n;
    return true;
}

static int side_to_move(const round_t *g) { return game_position(&g->game)->side; }

static bool has_clock(const round_t *g) { return g->g.initial_ms >= 0; }

/* Clocks run once each side has made its first move, as on lichess. */
static bool clock_running(const round_t *g) { return has_clock(g) && g->g.plies >= 2 && round_live(g); }

static int64_t time_left(const round_t *g, int side, int64_t now)
{
    if (!has_clock(g))
        return -1;
    int64_t t = g->clock[side];
    if (side == side_to_move(g) && clock_running(g))
        t -= now - g->turn_mono;
    return t < 0 ? 0 : t;
}

/* ---- JSON ------------------------------------------------------------------------------- */

static const char *reason_text(const round_t *g)
{
    static const char *const REASONS[][2] = {
        {"captured", "five goats captured"},
        {"trapped", "the tigers cannot move"},
        {"stuck", "the goats cannot move"},
        {"blocked", "every move would repeat a position"},
        {"repetition", "the position occurred a third time"},
        {"resign", "resignation"},
        {"outoftime", "time ran out"},
        {"timeout", "the opponent left the game"},
        {"draw", "draw agreed"},
        {"aborted", "aborted"},
        {"noStart", "a side did not make its first move"},
    };
    for (size_t i = 0; i < sizeof REASONS / sizeof REASONS[0]; i++)
        if (!strcmp(g->g.status, REASONS[i][0]))
            return REASONS[i][1];
    return "";
}

static void add_side_or_null(cJSON *j, const char *key, int side)
{
    if (side == GOATS || side == TIGERS)
        cJSON_AddStringToObject(j, key, side_text(side));
    else
        cJSON_AddNullToObject(j, key);
}

static void add_clock_settings(cJSON *j, const round_t *g)
{
    if (has_clock(g)) {
        cJSON *c = cJSON_AddObjectToObject(j, "clock");
        if (c) {
            cJSON_AddNumberToObject(c, "initial", (double)g->g.initial_ms);
            cJSON_AddNumberToObject(c, "increment", (double)g->g.increment_ms);
        }
    } else {
        cJSON_AddNullToObject(j, "clock");
    }
}

static void current_obx(const round_t *g, char out[OBX_MAX_LEN])
{
    obx_meta_t meta = game_meta(&g->game);
    obx_format(game_position(&g->game), &meta, OBX_V2, out, OBX_MAX_LEN);
}

cJSON *round_state_json(room_t *r, round_t *g)
{
    (void)r;
    int64_t now = room_mono_ms();
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    char obx[OBX_MAX_LEN];
    current_obx(g, obx);
    cJSON_AddStringToObject(j, "type", "gameState");
    cJSON_AddStringToObject(j, "moves", g->g.moves ? g->g.moves : "");
    cJSON_AddNumberToObject(j, "plies", g->g.plies);
    cJSON_AddStringToObject(j, "obx", obx);
    cJSON_AddStringToObject(j, "turn", side_text(side_to_move(g)));
    if (has_clock(g)) {
        cJSON_AddNumberToObject(j, "gtime", (double)time_left(g, GOATS, now));
        cJSON_AddNumberToObject(j, "ttime", (double)time_left(g, TIGERS, now));
        cJSON_AddNumberToObject(j, "ginc", (double)g->g.increment_ms);
        cJSON_AddNumberToObject(j, "tinc", (double)g->g.increment_ms);
    }
    cJSON_AddBoolToObject(j, "clockRunning", clock_running(g));
    cJSON_AddStringToObject(j, "status", g->g.status);
    add_side_or_null(j, "winner", g->g.winner == 1 ? GOATS : g->g.winner == 2 ? TIGERS : -1);
    cJSON_AddStringToObject(j, "reason", reason_text(g));
    add_side_or_null(j, "drawOffer", g->draw_offer);
    add_side_or_null(j, "takebackOffer", g->takeback_offer);
    add_side_or_null(j, "rematchOffer", g->rematch_offer);
    if (g->rematch[0])
        cJSON_AddStringToObject(j, "rematch", g->rematch);
    else
        cJSON_AddNullToObject(j, "rematch");
    if (!round_live(g) && g->g.rated && strcmp(g->g.status, "aborted") && strcmp(g->g.status, "noStart")) {
        cJSON *d = cJSON_AddObjectToObject(j, "ratingDiff");
        if (d) {
            cJSON_AddNumberToObject(d, "goats", g->g.goats_rating_diff);
            cJSON_AddNumberToObject(d, "tigers", g->g.tigers_rating_diff);
        }
    }
    if (round_live(g) && g->g.plies < 2)
        cJSON_AddNumberToObject(j, "firstMoveMs", (double)(r ? r->cfg.first_move_s * 1000LL - (now - g->turn_mono) : 0));
    return j;
}

static cJSON *seat_json(room_t *r, const char *id, int cls)
{
    player_t *p = room_player(r, id);
    if (!p && r->relaying && id[0])
        p = players_fetch(r, id); /* made on another server sharing the database */
    return p ? player_json(p, cls) : cJSON_CreateNull();
}

cJSON *round_full_json(room_t *r, round_t *g)
{
    int cls = class_of(g->g.initial_ms, g->g.increment_ms);
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    cJSON_AddStringToObject(j, "type", "gameFull");
    cJSON_AddStringToObject(j, "id", g->g.id);
    cJSON_AddBoolToObject(j, "rated", g->g.rated);
    cJSON_AddStringToObject(j, "rule", g->g.rule ? "draw" : "forbid");
    cJSON_AddStringToObject(j, "speed", class_name(cls));
    add_clock_settings(j, g);
    cJSON_AddItemToObject(j, "goats", seat_json(r, g->g.goats, cls));
    cJSON_AddItemToObject(j, "tigers", seat_json(r, g->g.tigers, cls));
    cJSON_AddStringToObject(j, "initialObx", g->g.start_obx);
    cJSON_AddNumberToObject(j, "createdAt", (double)g->g.created_ms);
    if (g->g.ended_ms)
        cJSON_AddNumberToObject(j, "endedAt", (double)g->g.ended_ms);
    if (g->g.rematch_of[0])
        cJSON_AddStringToObject(j, "rematchOf", g->g.rematch_of);
    cJSON_AddItemToObject(j, "state", round_state_json(r, g));
    return j;
}

cJSON *round_summary_json(room_t *r, round_t *g)
{
    int cls = class_of(g->g.initial_ms, g->g.increment_ms);
    int64_t now = room_mono_ms();
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    char obx[OBX_MAX_LEN];
    current_obx(g, obx);
    cJSON_AddStringToObject(j, "id", g->g.id);
    cJSON_AddItemToObject(j, "goats", seat_json(r, g->g.goats, cls));
    cJSON_AddItemToObject(j, "tigers", seat_json(r, g->g.tigers, cls));
    cJSON_AddStringToObject(j, "rule", g->g.rule ? "draw" : "forbid");
    cJSON_AddBoolToObject(j, "rated", g->g.rated);
    cJSON_AddStringToObject(j, "speed", class_name(cls));
    add_clock_settings(j, g);
    cJSON_AddNumberToObject(j, "plies", g->g.plies);
    cJSON_AddStringToObject(j, "turn", side_text(side_to_move(g)));
    if (has_clock(g)) {
        cJSON_AddNumberToObject(j, "gtime", (double)time_left(g, GOATS, now));
        cJSON_AddNumberToObject(j, "ttime", (double)time_left(g, TIGERS, now));
    }
    cJSON_AddBoolToObject(j, "clockRunning", clock_running(g));
    cJSON_AddStringToObject(j, "status", g->g.status);
    cJSON_AddStringToObject(j, "obx", obx);
    return j;
}

static cJSON *typed(const char *type)
{
    cJSON *j = cJSON_CreateObject();
    if (j)
        cJSON_AddStringToObject(j, "type", type);
    return j;
}

/* ---- storing ------------------------------------------------------------------------------ */

/* The stored clocks are those at the start of the side to move's turn, with its wall time. */
static void snapshot_clocks(round_t *g)
{
    g->g.goats_ms = g->clock[GOATS], g->g.tigers_ms = g->clock[TIGERS];
    g->g.turn_started_ms = room_wall_ms();
}

/* Stores the game and, once committed, publishes its new state and the events in pd (pd may be
 * NULL: a change nobody asked for, such as a flag that fell). */
static void save(room_t *r, round_t *g, pending_t *pd)
{
    if (!pd)
        pd = pending_new(r, NULL, NULL);
    if (!pd) {
        store_put_game(r->store, &g->g, NULL, NULL);
        room_publish(r, CH_GAME, g->g.id, round_state_json(r, g));
        return;
    }
    /* The state first: the events that follow it (gameFinish, a rematch) come after. */
    cJSON *state = round_state_json(r, g);
    if (pd->nevents == 4)
        cJSON_Delete(pd->events[--pd->nevents]);
    memmove(pd->events + 1, pd->events, (size_t)pd->nevents * sizeof pd->events[0]);
    memmove(pd->ch + 1, pd->ch, (size_t)pd->nevents * sizeof pd->ch[0]);
    memmove(pd->key + 1, pd->key, (size_t)pd->nevents * sizeof pd->key[0]);
    pd->events[0] = state, pd->ch[0] = CH_GAME;
    snprintf(pd->key[0], STORE_ID_LEN, "%s", g->g.id);
    pd->nevents++;
    if (!state)
        pd->events[0] = cJSON_CreateObject();
    if (!store_put_game(r->store, &g->g, pending_done, pd))
        pending_now(pd);
}

static cJSON *finish_event(room_t *r, round_t *g, int side)
{
    cJSON *j = typed("gameFinish");
    cJSON *s = round_summary_json(r, g);
    if (s) {
        cJSON_AddStringToObject(s, "side", side_text(side));
        add_side_or_null(s, "winner", g->g.winner == 1 ? GOATS : g->g.winner == 2 ? TIGERS : -1);
    }
    if (j)
        cJSON_AddItemToObject(j, "game", s);
    else
        cJSON_Delete(s);
    return j;
}

/* Ends the game (status, winner 0 none / 1 goats / 2 tigers), rates it, tells the players. */
static void finish(room_t *r, round_t *g, const char *status, int winner, pending_t *pd)
{
    int64_t now = room_mono_ms();
    if (has_clock(g) && clock_running(g)) {
        int side = side_to_move(g);
        g->clock[side] = time_left(g, side, now);
    }
    snapshot_clocks(g);
    snprintf(g->g.status, sizeof g->g.status, "%s", status);
    g->g.winner = winner;
    g->g.ended_ms = room_wall_ms();
    g->turn_mono = now;
    g->draw_offer = g->takeback_offer = g->rematch_offer = -1;
    player_t *goats = room_player(r, g->g.goats), *tigers = room_player(r, g->g.tigers);
    if (g->g.rated && goats && tigers && strcmp(status, "aborted") && strcmp(status, "noStart"))
        players_rate(r, g, goats, tigers);
    if (!pd)
        pd = pending_new(r, NULL, NULL);
    if (pd) {
        pending_event(pd, CH_PLAYER, g->g.goats, finish_event(r, g, GOATS));
        pending_event(pd, CH_PLAYER, g->g.tigers, finish_event(r, g, TIGERS));
    }
    r->lobby_games_dirty = true;
    save(r, g, pd);
}

/* The game's own end after a move, if any. */
static bool ended_by_rules(room_t *r, round_t *g, pending_t *pd)
{
    game_result_t res = game_result(&g->game);
    if (res.reason == RESULT_NONE)
        return false;
    static const char *const STATUS[] = {"", "captured", "trapped", "stuck", "blocked", "repetition"};
    finish(r, g, STATUS[res.reason], res.winner == GOATS ? 1 : res.winner == TIGERS ? 2 : 0, pd);
    return true;
}

/* ---- starting and loading ----------------------------------------------------------------- */

round_t *round_start(room_t *r, player_t *goats, player_t *tigers, const store_challenge_t *c, const char *rematch_of,
                     const char *claim, bool *gone, store_done_fn done, void *ctx)
{
    round_t *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    do
        room_new_id(g->g.id, 'g', 9);
    while (rmap_get(&r->games, g->g.id));
    snprintf(g->g.goats, sizeof g->g.goats, "%s", goats->p.id);
    snprintf(g->g.tigers, sizeof g->g.tigers, "%s", tigers->p.id);
    g->g.rule = c->rule;
    g->g.initial_ms = c->initial_ms;
    g->g.increment_ms = c->increment_ms;
    g->g.rated = c->rated;
    snprintf(g->g.cls, sizeof g->g.cls, "%s", class_name(class_of(c->initial_ms, c->increment_ms)));
    position_t start;
    position_set_start(&start);
    obx_format(&start, NULL, OBX_V2, g->g.start_obx, sizeof g->g.start_obx);
    g->g.moves = strdup("");
    snprintf(g->g.status, sizeof g->g.status, "started");
    g->clock[GOATS] = g->clock[TIGERS] = c->initial_ms;
    g->g.created_ms = room_wall_ms();
    if (rematch_of)
        snprintf(g->g.rematch_of, sizeof g->g.rematch_of, "%s", rematch_of);
    g->draw_offer = g->takeback_offer = g->rematch_offer = -1;
    g->turn_mono = room_mono_ms();
    snapshot_clocks(g);
    if (!g->g.moves || !rebuild(g) || !rmap_put(&r->games, g->g.id, g)) {
        round_free(g);
        return NULL;
    }
    store_own_game(r->store, g->g.id); /* a new id: nobody else holds it */
    if (!(claim ? store_start_game(r->store, &g->g, claim, gone, done, ctx)
                : store_put_game(r->store, &g->g, done, ctx))) {
        round_drop(r, g->g.id);
        return NULL;
    }
    r->lobby_games_dirty = true;
    return g;
}

void round_drop(room_t *r, const char *id)
{
    round_t *g = rmap_del(&r->games, id);
    if (!g)
        return;
    store_disown_game(r->store, id);
    round_free(g);
    r->lobby_games_dirty = true;
}

typedef struct {
    room_t *r;
    int64_t heartbeat, now_wall;
} load_t;

/* A stored game that goes on, kept (not yet stored again); NULL when it cannot be. */
static round_t *adopt(load_t *l, store_game_t *sg)
{
    round_t *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->g = *sg;
    sg->moves = NULL; /* taken */
    g->draw_offer = g->takeback_offer = g->rematch_offer = -1;
    if (!rebuild(g) || !rmap_put(&l->r->games, g->g.id, g)) {
        round_free(g);
        return NULL;
    }
    g->clock[GOATS] = g->g.goats_ms, g->clock[TIGERS] = g->g.tigers_ms;
    /* The time the server was down is nobody's: the side to move is charged up to the last
     * heartbeat only, and its turn goes on from now. */
    if (clock_running(g)) {
        int64_t until = l->heartbeat && l->heartbeat < l->now_wall ? l->heartbeat : l->now_wall;
        int64_t spent = until - g->g.turn_started_ms;
        if (spent > 0)
            g->clock[side_to_move(g)] -= spent;
    }
    g->turn_mono = room_mono_ms();
    snapshot_clocks(g);
    /* Its players' streams of it, here and on the other servers. */
    for (int s = 0; s < 2; s++)
        g->present[s] = room_seat_streams(l->r, g->g.id, s) + relay_seat_servers(l->r, g->g.id, s);
    return g;
}

static void load_game(void *ctx, store_game_t *sg) { adopt(ctx, sg); }

/* Drops a game this server no longer keeps (another holds it). */
static void let_go(room_t *r, round_t *g)
{
    rmap_del(&r->games, g->g.id);
    round_free(g);
    r->lobby_games_dirty = true;
}

bool rounds_load(room_t *r, int64_t heartbeat_ms, char *err, size_t errlen)
{
    load_t l = {r, heartbeat_ms, room_wall_ms()};
    if (!store_each_live_game(r->store, load_game, &l, err, errlen))
        return false;
    /* Kept here only if no other server on the database keeps it already. */
    for (size_t i = 0; i < r->games.cap; i++) {
        if (!rmap_live(&r->games, i))
            continue;
        round_t *g = r->games.vals[i];
        if (store_own_game(r->store, g->g.id) == 1)
            store_put_game(r->store, &g->g, NULL, NULL);
        else
            let_go(r, g);
    }
    return true;
}

/* The live games of the database that this server does not keep, and whether another server
 * holds each. */
typedef struct {
    room_t *r;
    store_game_t *g;
    bool *held;
    size_t n, cap;
} orphans_t;

static void collect_orphan(void *ctx, store_game_t *sg, bool held)
{
    orphans_t *o = ctx;
    if (rmap_get(&o->r->games, sg->id))
        return;
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 16;
        store_game_t *more = realloc(o->g, cap * sizeof *more);
        if (more)
            o->g = more;
        bool *h = more ? realloc(o->held, cap * sizeof *h) : NULL;
        if (h)
            o->held = h;
        if (!more || !h)
            return;
        o->cap = cap;
    }
    o->held[o->n] = held;
    o->g[o->n++] = *sg;
    sg->moves = NULL; /* taken */
}

round_t *round_take_over(room_t *r, const char *id)
{
    if (store_own_game(r->store, id) != 1)
        return NULL;
    store_game_t sg;
    char err[160];
    round_t *g = NULL;
    if (store_get_game(r->store, id, &sg, err, sizeof err) == 1 && sg.ended_ms == 0) {
        load_t l = {r, store_last_heartbeat(r->store), room_wall_ms()};
        if ((g = adopt(&l, &sg))) {
            r->lobby_games_dirty = true;
            save(r, g, NULL);
        }
    }
    store_game_free(&sg);
    if (!g)
        store_disown_game(r->store, id);
    return g;
}

void rounds_adopt(room_t *r)
{
    /* Holds lost with a connection: each game taken again, or left to whoever took it. */
    unsigned epoch = store_holds_epoch(r->store);
    if (epoch != r->holds_epoch) {
        r->holds_epoch = epoch;
        for (size_t i = 0; i < r->games.cap; i++)
            if (rmap_live(&r->games, i) && round_live(r->games.vals[i]) &&
                store_own_game(r->store, ((round_t *)r->games.vals[i])->g.id) == 0)
                let_go(r, r->games.vals[i]);
    }
    /* Games whose server is gone (its hold ended with its connection): kept here, the side to
     * move charged up to the last heartbeat of any server. */
    orphans_t o = {.r = r};
    char err[160];
    /* One query: a game is tried (its lock asked for) only when nobody holds it, not every
     * game every second (with a thousand games that held the room's lock a fifth of the time). */
    store_each_live_game_held(r->store, collect_orphan, &o, err, sizeof err);
    load_t l = {r, store_last_heartbeat(r->store), room_wall_ms()};
    size_t kept = 0; /* the games another server keeps, moved to the front of o.g */
    for (size_t i = 0; i < o.n; i++) {
        round_t *g = NULL;
        int own = o.held[i] ? 0 : store_own_game(r->store, o.g[i].id);
        if (own == 1 && (g = adopt(&l, &o.g[i]))) {
            r->lobby_games_dirty = true;
            save(r, g, NULL);
        }
        if (own == 0)
            o.g[kept++] = o.g[i];
        else
            store_game_free(&o.g[i]);
    }
    free(o.held);
    /* The lobby's list of games elsewhere: changed when a game started or ended there (the set
     * of ids, by the sum of their hashes, whatever the rows' order). */
    uint64_t print = kept;
    for (size_t i = 0; i < kept; i++) {
        uint64_t h = 1469598103934665603ull;
        for (const char *c = o.g[i].id; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
        print += h;
    }
    if (print != r->elsewhere_print)
        r->lobby_games_dirty = true;
    r->elsewhere_print = print;
    for (size_t i = 0; i < r->nelsewhere; i++)
        store_game_free(&r->elsewhere[i]);
    free(r->elsewhere);
    r->elsewhere = kept ? o.g : NULL;
    r->nelsewhere = kept;
    if (!kept)
        free(o.g);
}

cJSON *round_elsewhere_json(room_t *r, const store_game_t *sg)
{
    round_t tmp = {.g = *sg, .draw_offer = -1, .takeback_offer = -1, .rematch_offer = -1};
    cJSON *j = NULL;
    if (rebuild(&tmp)) {
        tmp.clock[GOATS] = sg->goats_ms, tmp.clock[TIGERS] = sg->tigers_ms;
        tmp.turn_mono = room_mono_ms() - (room_wall_ms() - sg->turn_started_ms);
        j = round_summary_json(r, &tmp);
    }
    game_free(&tmp.game);
    return j;
}

/* An event of the game that is not stored (a player away): to its streams here and on the other
 * servers. */
static void publish_relayed(room_t *r, round_t *g, cJSON *ev)
{
    if (ev && !r->closing) /* a server stopping closes its streams: nobody left */
        relay_out(r, CH_GAME, g->g.id, ev);
    room_publish(r, CH_GAME, g->g.id, ev);
}

/* ---- the tick: clocks, first moves, players away, finished games ------------------------------ */

void round_tick(room_t *r, int64_t now)
{
    for (size_t i = 0; i < r->games.cap; i++) {
        if (!rmap_live(&r->games, i))
            continue;
        round_t *g = r->games.vals[i];
        if (!round_live(g)) {
            if (!room_game_watched(r, g->g.id) && room_wall_ms() - g->g.ended_ms > FINISHED_KEPT_MS) {
                store_disown_game(r->store, g->g.id);
                rmap_del(&r->games, g->g.id);
                round_free(g);
            }
            continue;
        }
        int side = side_to_move(g);
        if (g->g.plies < 2 && now - g->turn_mono > (int64_t)r->cfg.first_move_s * 1000) {
            finish(r, g, "noStart", 0, NULL);
            continue;
        }
        if (clock_running(g) && g->clock[side] - (now - g->turn_mono) + r->cfg.lag_ms < 0) {
            finish(r, g, "outoftime", side == GOATS ? 2 : 1, NULL);
            continue;
        }
        for (int s = 0; s < 2; s++)
            if (!g->present[s] && g->gone_mono[s] && !g->gone_told[s] &&
                now - g->gone_mono[s] >= (int64_t)r->cfg.gone_s * 1000) {
                g->gone_told[s] = true;
                cJSON *ev = typed("opponentGone");
                if (ev) {
                    cJSON_AddStringToObject(ev, "side", side_text(s));
                    cJSON_AddBoolToObject(ev, "gone", true);
                    cJSON_AddNumberToObject(ev, "claimWinInSeconds", 0);
                }
                publish_relayed(r, g, ev);
            }
    }
}

void round_presence(room_t *r, round_t *g, int seat, int delta)
{
    int before = g->present[seat];
    g->present[seat] += delta;
    if (!round_live(g))
        return;
    bool gone = before > 0 && g->present[seat] == 0, back = before == 0 && g->present[seat] > 0;
    if (!gone && !back)
        return;
    bool was_gone = g->gone_mono[seat] != 0;
    g->gone_mono[seat] = gone ? room_mono_ms() : 0;
    g->gone_told[seat] = false;
    if (back && !was_gone)
        return;
    cJSON *ev = typed("opponentGone");
    if (ev) {
        cJSON_AddStringToObject(ev, "side", side_text(seat));
        cJSON_AddBoolToObject(ev, "gone", gone);
        if (gone)
            cJSON_AddNumberToObject(ev, "claimWinInSeconds", r->cfg.gone_s);
    }
    publish_relayed(r, g, ev);
}

cJSON *round_start_event(room_t *r, round_t *g, int side)
{
    cJSON *ev = typed("gameStart"), *sum = round_summary_json(r, g);
    if (sum)
        cJSON_AddStringToObject(sum, "side", side_text(side));
    if (ev)
        cJSON_AddItemToObject(ev, "game", sum);
    else
        cJSON_Delete(sum);
    return ev;
}

void round_tell_presence(room_t *r, room_sub_t *s, round_t *g)
{
    if (!round_live(g))
        return;
    int64_t now = room_mono_ms();
    for (int seat = 0; seat < 2; seat++) {
        if (g->present[seat] || !g->gone_mono[seat])
            continue;
        int64_t left = (int64_t)r->cfg.gone_s * 1000 - (now - g->gone_mono[seat]);
        cJSON *ev = typed("opponentGone");
        if (!ev)
            return;
        cJSON_AddStringToObject(ev, "side", side_text(seat));
        cJSON_AddBoolToObject(ev, "gone", true);
        cJSON_AddNumberToObject(ev, "claimWinInSeconds", left > 0 ? (double)((left + 999) / 1000) : 0);
        room_send(s, ev);
        cJSON_Delete(ev);
    }
}

void round_tell_player(room_t *r, room_sub_t *s, player_t *p)
{
    for (size_t i = 0; i < r->games.cap; i++) {
        if (!rmap_live(&r->games, i))
            continue;
        round_t *g = r->games.vals[i];
        int side = !strcmp(g->g.goats, p->p.id) ? GOATS : !strcmp(g->g.tigers, p->p.id) ? TIGERS : -1;
        if (side < 0 || !round_live(g))
            continue;
        cJSON *ev = round_start_event(r, g, side);
        if (ev)
            room_send(s, ev);
        cJSON_Delete(ev);
    }
}

/* ---- actions -------------------------------------------------------------------------------- */

static pending_t *ok_answer(room_t *r, room_reply_fn reply, void *ctx)
{
    pending_t *pd = pending_new(r, reply, ctx);
    if (!pd) {
        reply(ctx, 503, room_error_json("memory", "out of memory"), NULL);
        return NULL;
    }
    cJSON *j = cJSON_CreateObject();
    if (j)
        cJSON_AddBoolToObject(j, "ok", true);
    pd->json = room_json_take(j);
    return pd;
}

static bool append_move(round_t *g, const char *text)
{
    size_t n = strlen(g->g.moves), k = strlen(text);
    char *m = realloc(g->g.moves, n + k + 2);
    if (!m)
        return false;
    if (n)
        m[n++] = ' ';
    memcpy(m + n, text, k + 1);
    g->g.moves = m;
    return true;
}

static void do_move(room_t *r, round_t *g, int seat, const char *text, const room_request_t *q, room_reply_fn reply,
                    void *ctx)
{
    int64_t now = room_mono_ms();
    /* The ply first: a move replayed just after it was played arrives on the opponent's turn,
     * and is stale rather than out of turn. */
    const char *ply = q->query ? q->query(q->query_ctx, "ply") : NULL;
    if (ply) {
        char *end;
        long v = strtol(ply, &end, 10);
        if (end == ply || *end || v != g->g.plies) {
            reply(ctx, 409, room_error_json("stale", "the move was sent for ply %.20s; the game is at ply %d", ply,
                                            g->g.plies), NULL);
            return;
        }
    }
    if (side_to_move(g) != seat) {
        reply(ctx, 409, room_error_json("not-your-turn", "it is the %s' turn", side_text(side_to_move(g))), NULL);
        return;
    }
    /* The time since the turn began, less the lag allowance; a flag that fell stays fallen. */
    int64_t spent = now - g->turn_mono, charged = spent > r->cfg.lag_ms ? spent - r->cfg.lag_ms : 0;
    if (clock_running(g) && g->clock[seat] - charged < 0) {
        pending_t *pd = pending_new(r, reply, ctx);
        if (!pd) {
            reply(ctx, 503, room_error_json("memory", "out of memory"), NULL);
            return;
        }
        pd->status = 409;
        pd->json = room_error_json("flag", "your time ran out before the move arrived");
        finish(r, g, "outoftime", seat == GOATS ? 2 : 1, pd);
        return;
    }
    char msg[160], canon[MOVE_TEXT_LEN];
    move_t m;
    if (strlen(text) >= MOVE_TEXT_LEN || move_parse(game_position(&g->game), text, &m, msg, sizeof msg) != BC_OK) {
        reply(ctx, 400, room_error_json("illegal", "%.40s is not a move here: %s", text,
                                        strlen(text) >= MOVE_TEXT_LEN ? "too long" : msg), NULL);
        return;
    }
    if (game_play(&g->game, m, msg, sizeof msg) != BC_OK) {
        reply(ctx, 400, room_error_json("illegal", "%s is illegal: %s", text, msg), NULL);
        return;
    }
    move_format(m, canon);
    if (!append_move(g, canon)) {
        game_pop(&g->game);
        reply(ctx, 503, room_error_json("memory", "out of memory"), NULL);
        return;
    }
    if (clock_running(g))
        g->clock[seat] += g->g.increment_ms - charged;
    g->g.plies++;
    g->turn_mono = now;
    snapshot_clocks(g);
    g->takeback_offer = -1;
    if (g->draw_offer >= 0 && g->draw_offer != seat)
        g->draw_offer = -1; /* declined by moving */
    r->moves++;
    r->lobby_games_dirty = true;
    pending_t *pd = ok_answer(r, reply, ctx);
    if (!pd)
        return;
    if (!ended_by_rules(r, g, pd))
        save(r, g, pd);
}

static void takeback(room_t *r, round_t *g, int seat)
{
    /* Back to the offerer's turn: one ply when the opponent is to move, two when the offerer is. */
    int n = side_to_move(g) == seat ? 2 : 1;
    for (int i = 0; i < n && g->g.plies > 0; i++) {
        game_pop(&g->game);
        g->g.plies--;
        char *sp = strrchr(g->g.moves, ' ');
        if (sp)
            *sp = '\0';
        else
            g->g.moves[0] = '\0';
    }
    g->turn_mono = room_mono_ms();
    snapshot_clocks(g);
    (void)r;
}

static void offer(room_t *r, round_t *g, int seat, const char *what, bool yes, room_reply_fn reply, void *ctx)
{
    int other = 1 - seat;
    int *slot = !strcmp(what, "draw") ? &g->draw_offer : !strcmp(what, "takeback") ? &g->takeback_offer
                                                                                  : &g->rematch_offer;
    bool rematch = slot == &g->rematch_offer;
    if (rematch ? round_live(g) : !round_live(g)) {
        reply(ctx, 409, room_error_json(rematch ? "not-over" : "over", rematch ? "a rematch follows a finished game"
                                                                               : "the game is over"), NULL);
        return;
    }
    if (slot == &g->draw_offer && !g->g.rule) {
        reply(ctx, 400, room_error_json("no-draws", "under forbid no game is drawn: offer a draw under the draw rule"),
              NULL);
        return;
    }
    if (rematch && g->rematch[0]) {
        reply(ctx, 409, room_error_json("rematch", "the rematch is game %s", g->rematch), NULL);
        return;
    }
    if (slot == &g->takeback_offer && yes && *slot != other) {
        /* The offerer needs a move of its own to take back. */
        int mine = g->g.plies / 2 + (g->g.plies % 2 && seat == GOATS);
        if (mine == 0) {
            reply(ctx, 400, room_error_json("no-move", "you have no move to take back"), NULL);
            return;
        }
    }
    pending_t *pd = ok_answer(r, reply, ctx);
    if (!pd)
        return;
    /* An offer made again, or a "no" with nothing to decline or withdraw, changes nothing: it
     * is answered, and no state goes out again (each stream would show the same one twice). */
    if (yes ? *slot == seat : *slot < 0) {
        pending_now(pd);
        return;
    }
    if (!yes) {
        *slot = -1; /* declined, or withdrawn */
        save(r, g, pd);
        return;
    }
    if (*slot != other) {
        *slot = seat;
        save(r, g, pd);
        return;
    }
    /* Accepted. */
    *slot = -1;
    if (slot == &g->draw_offer) {
        finish(r, g, "draw", 0, pd);
    } else if (slot == &g->takeback_offer) {
        takeback(r, g, other);
        save(r, g, pd);
    } else {
        player_t *goats = room_player(r, g->g.tigers), *tigers = room_player(r, g->g.goats);
        store_challenge_t c = {.initial_ms = g->g.initial_ms, .increment_ms = g->g.increment_ms, .rule = g->g.rule,
                               .rated = g->g.rated};
        round_t *n = goats && tigers ? round_start(r, goats, tigers, &c, g->g.id, NULL, NULL, NULL, NULL) : NULL;
        if (!n) {
            free(pd->json), free(pd);
            reply(ctx, 503, room_error_json("memory", "out of memory or stopping"), NULL);
            return;
        }
        snprintf(g->rematch, sizeof g->rematch, "%s", n->g.id);
        free(pd->json);
        cJSON *ans = cJSON_CreateObject();
        if (ans)
            cJSON_AddStringToObject(ans, "game", n->g.id);
        pd->json = room_json_take(ans);
        for (int s = 0; s < 2; s++)
            pending_event(pd, CH_PLAYER, s == GOATS ? n->g.goats : n->g.tigers, round_start_event(r, n, s));
        save(r, g, pd);
    }
}

static void chat(room_t *r, round_t *g, player_t *me, const room_request_t *q, room_reply_fn reply, void *ctx)
{
    cJSON *body = q->body ? cJSON_ParseWithLength(q->body, q->body_len) : NULL;
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(body, "text");
    const char *why = NULL;
    if (!cJSON_IsString(text))
        why = "the body is {\"text\": \"...\"}";
    else if (!text->valuestring[0] || strlen(text->valuestring) > CHAT_MAX)
        why = "a chat line has 1 to 140 bytes";
    else
        for (const unsigned char *p = (const unsigned char *)text->valuestring; *p && !why;) {
            size_t n = bc_utf8_decode(p, 4, NULL);
            if (!n || *p < 0x20 || *p == 0x7f)
                why = "a chat line is UTF-8 text without control characters";
            p += n ? n : 1;
        }
    if (why) {
        cJSON_Delete(body);
        reply(ctx, 400, room_error_json("chat", "%s", why), NULL);
        return;
    }
    cJSON *ev = typed("chatLine");
    if (ev) {
        cJSON_AddStringToObject(ev, "username", me->p.name);
        cJSON_AddStringToObject(ev, "text", text->valuestring);
        cJSON_AddStringToObject(ev, "room", "player");
    }
    cJSON_Delete(body);
    pending_t *pd = ok_answer(r, reply, ctx);
    if (!pd) {
        cJSON_Delete(ev);
        return;
    }
    pending_event(pd, CH_GAME, g->g.id, ev);
    pending_now(pd);
}

static void answer_game(room_t *r, const char *id, bool record, room_reply_fn reply, void *ctx)
{
    round_t *g = rmap_get(&r->games, id), tmp = {0};
    store_game_t sg;
    if (!g) {
        char err[128];
        int k = store_get_game(r->store, id, &sg, err, sizeof err);
        if (k <= 0) {
            reply(ctx, k < 0 ? 503 : 404,
                  k < 0 ? room_error_json("storage", "%s", err) : room_error_json("no-game", "no game %.40s", id), NULL);
            return;
        }
        tmp.g = sg;
        tmp.draw_offer = tmp.takeback_offer = tmp.rematch_offer = -1;
        if (!rebuild(&tmp)) {
            game_free(&tmp.game);
            store_game_free(&tmp.g);
            reply(ctx, 500, room_error_json("damaged", "game %.40s is stored damaged", id), NULL);
            return;
        }
        g = &tmp;
    }
    cJSON *j = round_full_json(r, g);
    if (j && record) {
        /* The record: the start and the moves, each as the board writes them. */
        cJSON *moves = cJSON_AddArrayToObject(j, "moveList");
        const char *m = g->g.moves;
        while (moves && m && *m) {
            size_t k = strcspn(m, " ");
            char w[MOVE_TEXT_LEN];
            snprintf(w, sizeof w, "%.*s", (int)k, m);
            cJSON_AddItemToArray(moves, cJSON_CreateString(w));
            m += k;
            while (*m == ' ')
                m++;
        }
    }
    if (g == &tmp) {
        game_free(&tmp.game);
        store_game_free(&tmp.g);
    }
    char *t = room_json_take(j);
    reply(ctx, t ? 200 : 503, t ? t : room_error_json("memory", "out of memory"), NULL);
}

cJSON *round_stored_full_json(room_t *r, store_game_t *sg)
{
    round_t tmp = {.g = *sg, .draw_offer = -1, .takeback_offer = -1, .rematch_offer = -1};
    cJSON *j = rebuild(&tmp) ? round_full_json(r, &tmp) : NULL;
    game_free(&tmp.game);
    return j;
}

void round_handle(room_t *r, const room_request_t *q, const char *rest, player_t *me, room_reply_fn reply, void *ctx)
{
    bool bot = !strncmp(rest, "/bot/", 5), board = !strncmp(rest, "/board/", 7);
    const char *p = rest + (bot ? 10 : board ? 12 : 6); /* after /bot/game/, /board/game/, /game/ */
    char id[STORE_ID_LEN];
    size_t n = strcspn(p, "/");
    if (n == 0 || n >= STORE_ID_LEN) {
        reply(ctx, 404, room_error_json("no-game", "no such game"), NULL);
        return;
    }
    memcpy(id, p, n);
    id[n] = '\0';
    const char *action = p[n] == '/' ? p + n + 1 : "";
    if (!strcmp(q->method, "GET")) {
        if (!*action || !strcmp(action, "record"))
            answer_game(r, id, *action != '\0', reply, ctx);
        else
            reply(ctx, 404, room_error_json("not-found", "nothing at %.200s", q->path), NULL);
        return;
    }
    if (strcmp(q->method, "POST") || (!bot && !board)) {
        reply(ctx, 405, room_error_json("method", "actions are POSTed to /api/board/game/ID/... (or /api/bot/...)"), NULL);
        return;
    }
    if (!me) {
        reply(ctx, 401, room_error_json("token", "send the player's token"), NULL);
        return;
    }
    if (bot != (me->p.kind == STORE_BOT)) {
        reply(ctx, 403, room_error_json("api", bot ? "the Bot API is for bot accounts: use /api/board/"
                                                   : "a bot plays through the Bot API: use /api/bot/"), NULL);
        return;
    }
    round_t *g = rmap_get(&r->games, id);
    if (!g && r->relaying)
        g = round_take_over(r, id);
    if (!g) {
        store_game_t sg;
        char err[128];
        int k = store_get_game(r->store, id, &sg, err, sizeof err);
        /* Kept by another server: a live game, or one finished lately (its rematch is offered
         * and accepted where it was played). */
        bool elsewhere = k == 1 && (sg.ended_ms == 0 || room_wall_ms() - sg.ended_ms < FINISHED_KEPT_MS);
        if (k == 1)
            store_game_free(&sg);
        if (elsewhere && relay_forward(r, id, q, rest, me, reply, ctx))
            return; /* answered by the server that keeps it */
        if (elsewhere)
            reply(ctx, 409, room_error_json("elsewhere", "game %s is kept by another server: play it there", id), NULL);
        else
            reply(ctx, k == 1 ? 409 : 404,
                  k == 1 ? room_error_json("over", "game %s is over", id) : room_error_json("no-game", "no game %.40s", id),
                  NULL);
        return;
    }
    int seat = !strcmp(g->g.goats, me->p.id) ? GOATS : !strcmp(g->g.tigers, me->p.id) ? TIGERS : -1;
    if (seat < 0) {
        reply(ctx, 403, room_error_json("not-a-player", "you are not a player of game %s", id), NULL);
        return;
    }
    if (!strncmp(action, "move/", 5)) {
        if (!round_live(g))
            reply(ctx, 409, room_error_json("over", "the game is over (%s)", g->g.status), NULL);
        else
            do_move(r, g, seat, action + 5, q, reply, ctx);
    } else if (!strcmp(action, "resign") || !strcmp(action, "abort")) {
        bool abort = action[0] == 'a';
        if (!round_live(g))
            reply(ctx, 409, room_error_json("over", "the game is over (%s)", g->g.status), NULL);
        else if (abort && g->g.plies >= 2)
            reply(ctx, 409, room_error_json("too-late", "a game is aborted before its second move only: resign instead"),
                  NULL);
        else {
            pending_t *pd = ok_answer(r, reply, ctx);
            if (pd)
                finish(r, g, abort ? "aborted" : "resign", abort ? 0 : seat == GOATS ? 2 : 1, pd);
        }
    } else if (!strcmp(action, "claim-victory")) {
        int other = 1 - seat;
        int64_t away = g->gone_mono[other] ? room_mono_ms() - g->gone_mono[other] : -1;
        if (!round_live(g))
            reply(ctx, 409, room_error_json("over", "the game is over (%s)", g->g.status), NULL);
        else if (g->present[other] || away < (int64_t)r->cfg.gone_s * 1000)
            reply(ctx, 409, room_error_json("not-gone", "your opponent has not been away for %d seconds", r->cfg.gone_s),
                  NULL);
        else {
            pending_t *pd = ok_answer(r, reply, ctx);
            if (pd)
                finish(r, g, "timeout", seat == GOATS ? 1 : 2, pd);
        }
    } else if (!strncmp(action, "draw/", 5) || !strncmp(action, "takeback/", 9) || !strncmp(action, "rematch/", 8)) {
        const char *slash = strchr(action, '/');
        char what[16];
        snprintf(what, sizeof what, "%.*s", (int)(slash - action), action);
        const char *yn = slash + 1;
        if (strcmp(yn, "yes") && strcmp(yn, "no"))
            reply(ctx, 400, room_error_json("yes-no", "%s/yes or %s/no", what, what), NULL);
        else
            offer(r, g, seat, what, yn[0] == 'y', reply, ctx);
    } else if (!strcmp(action, "chat")) {
        chat(r, g, me, q, reply, ctx);
    } else {
        reply(ctx, 404, room_error_json("not-found", "nothing at %.200s", q->path), NULL);
    }
}
