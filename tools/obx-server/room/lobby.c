/* The lobby: seeks that anyone may accept, links that open a game for whoever follows them
 * first, challenges to one player or bot; and the lobby's picture (seeks, games being played
 * with their clocks, players online) that every lobby stream starts with. */
#include "room_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sodium.h>

enum { LOBBY_GAMES_SHOWN = 50, LOBBY_PLAYERS_SHOWN = 100 };

static const char *const SIDE_WANTED[] = {"random", "goats", "tigers"};

cJSON *challenge_json(room_t *r, const challenge_t *ch)
{
    const store_challenge_t *c = &ch->c;
    int cls = class_of(c->initial_ms, c->increment_ms);
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    player_t *from = room_player(r, c->from), *to = c->to[0] ? room_player(r, c->to) : NULL;
    cJSON_AddStringToObject(j, "id", c->id);
    cJSON_AddItemToObject(j, "from", from ? player_json(from, cls) : cJSON_CreateNull());
    cJSON_AddItemToObject(j, "to", to ? player_json(to, cls) : cJSON_CreateNull());
    cJSON_AddBoolToObject(j, "listed", c->listed);
    cJSON_AddStringToObject(j, "side", SIDE_WANTED[c->side]);
    if (c->initial_ms >= 0) {
        cJSON *clock = cJSON_AddObjectToObject(j, "clock");
        if (clock) {
            cJSON_AddNumberToObject(clock, "initial", (double)c->initial_ms);
            cJSON_AddNumberToObject(clock, "increment", (double)c->increment_ms);
        }
    } else {
        cJSON_AddNullToObject(j, "clock");
    }
    cJSON_AddStringToObject(j, "rule", c->rule ? "draw" : "forbid");
    cJSON_AddBoolToObject(j, "rated", c->rated);
    cJSON_AddStringToObject(j, "speed", class_name(cls));
    cJSON_AddNumberToObject(j, "createdAt", (double)c->created_ms);
    char url[64];
    snprintf(url, sizeof url, "/?challenge=%s", c->id);
    cJSON_AddStringToObject(j, "url", url);
    return j;
}

static cJSON *typed(const char *type, const char *key, cJSON *item)
{
    cJSON *j = cJSON_CreateObject();
    if (!j) {
        cJSON_Delete(item);
        return NULL;
    }
    cJSON_AddStringToObject(j, "type", type);
    if (key)
        cJSON_AddItemToObject(j, key, item);
    return j;
}

/* A game being played: kept here (g), or by another server (sg, as stored). */
typedef struct {
    round_t *g;
    const store_game_t *sg;
} live_t;

static int64_t live_created(const live_t *l) { return l->g ? l->g->g.created_ms : l->sg->created_ms; }

static int cmp_games(const void *a, const void *b)
{
    int64_t x = live_created(a), y = live_created(b);
    return x > y ? -1 : x < y;
}

cJSON *lobby_snapshot(room_t *r)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    cJSON_AddStringToObject(j, "type", "lobby");
    cJSON *seeks = cJSON_AddArrayToObject(j, "seeks");
    for (size_t i = 0; seeks && i < r->challenges.cap; i++)
        if (rmap_live(&r->challenges, i) && ((challenge_t *)r->challenges.vals[i])->c.listed)
            cJSON_AddItemToArray(seeks, challenge_json(r, r->challenges.vals[i]));
    /* The newest games being played, with their clocks: kept here or by another server. */
    live_t *live = malloc((r->games.used + r->nelsewhere + 1) * sizeof *live);
    size_t n = 0;
    for (size_t i = 0; live && i < r->games.cap; i++)
        if (rmap_live(&r->games, i) && round_live(r->games.vals[i]))
            live[n++] = (live_t){r->games.vals[i], NULL};
    for (size_t i = 0; live && i < r->nelsewhere; i++)
        if (!rmap_get(&r->games, r->elsewhere[i].id)) /* taken over here since */
            live[n++] = (live_t){NULL, &r->elsewhere[i]};
    if (live)
        qsort(live, n, sizeof *live, cmp_games);
    cJSON *games = cJSON_AddArrayToObject(j, "games");
    for (size_t i = 0; games && live && i < n && i < LOBBY_GAMES_SHOWN; i++)
        cJSON_AddItemToArray(games, live[i].g ? round_summary_json(r, live[i].g)
                                              : round_elsewhere_json(r, live[i].sg));
    cJSON_AddNumberToObject(j, "playing", (double)n);
    free(live);
    int online = 0;
    cJSON *players = cJSON_AddArrayToObject(j, "players");
    for (size_t i = 0; i < r->players.cap; i++) {
        if (!rmap_live(&r->players, i))
            continue;
        player_t *p = r->players.vals[i];
        if (!room_online(p))
            continue;
        if (players && online < LOBBY_PLAYERS_SHOWN)
            cJSON_AddItemToArray(players, player_json(p, 1));
        online++;
    }
    cJSON_AddNumberToObject(j, "online", online);
    return j;
}

void lobby_tell_player(room_t *r, room_sub_t *s, player_t *p)
{
    for (size_t i = 0; i < r->challenges.cap; i++) {
        if (!rmap_live(&r->challenges, i))
            continue;
        challenge_t *c = r->challenges.vals[i];
        if (strcmp(c->c.to, p->p.id) != 0)
            continue;
        cJSON *ev = typed("challenge", "challenge", challenge_json(r, c));
        if (ev)
            room_send(s, ev);
        cJSON_Delete(ev);
    }
}

enum { SEEK_ORPHAN_MS = 10000 };

static cJSON *removed_event(const char *type, const challenge_t *c, const char *reason, const char *game);

void lobby_tick(room_t *r, int64_t now)
{
    for (size_t i = 0; i < r->challenges.cap; i++) {
        if (!rmap_live(&r->challenges, i))
            continue;
        challenge_t *c = r->challenges.vals[i];
        player_t *p = room_player(r, c->c.from);
        if (!c->c.listed || !p || room_online(p) || !p->offline_mono || now - p->offline_mono < SEEK_ORPHAN_MS)
            continue;
        pending_t *pd = pending_new(r, NULL, NULL);
        if (pd)
            pending_event(pd, CH_LOBBY, NULL, removed_event("seekRemoved", c, "gone", NULL));
        rmap_del(&r->challenges, c->c.id);
        if (p->challenges > 0)
            p->challenges--;
        if (!store_delete_challenge(r->store, c->c.id, pd ? pending_done : NULL, pd) && pd)
            pending_now(pd);
        free(c);
    }
}

static void load_challenge(void *ctx, const store_challenge_t *sc)
{
    room_t *r = ctx;
    challenge_t *c = malloc(sizeof *c);
    if (!c)
        return;
    c->c = *sc;
    if (!rmap_put(&r->challenges, sc->id, c)) {
        free(c);
        return;
    }
    player_t *p = room_player(r, sc->from);
    if (p)
        p->challenges++;
}

bool lobby_load(room_t *r, char *err, size_t errlen) { return store_each_challenge(r->store, load_challenge, r, err, errlen); }

void lobby_restore(room_t *r, const store_challenge_t *c)
{
    if (c && !rmap_get(&r->challenges, c->id))
        load_challenge(r, c);
}

bool lobby_reload(room_t *r, char *err, size_t errlen)
{
    for (size_t i = 0; i < r->challenges.cap; i++)
        if (rmap_live(&r->challenges, i))
            free(r->challenges.vals[i]);
    rmap_free(&r->challenges);
    for (size_t i = 0; i < r->players.cap; i++)
        if (rmap_live(&r->players, i))
            ((player_t *)r->players.vals[i])->challenges = 0;
    return lobby_load(r, err, errlen);
}

/* ---- settings ----------------------------------------------------------------------- */

/* The settings of a seek or challenge from its body; NULL, or what is wrong. */
static const char *read_settings(const cJSON *body, store_challenge_t *c)
{
    const cJSON *side = cJSON_GetObjectItemCaseSensitive(body, "side");
    const cJSON *clock = cJSON_GetObjectItemCaseSensitive(body, "clock");
    const cJSON *rule = cJSON_GetObjectItemCaseSensitive(body, "rule");
    const cJSON *rated = cJSON_GetObjectItemCaseSensitive(body, "rated");
    c->side = STORE_SIDE_RANDOM;
    if (side) {
        int k = -1;
        for (int i = 0; i < 3; i++)
            if (cJSON_IsString(side) && !strcmp(side->valuestring, SIDE_WANTED[i]))
                k = i;
        if (k < 0)
            return "\"side\" is \"goats\", \"tigers\" or \"random\"";
        c->side = (store_side_t)k;
    }
    c->initial_ms = -1, c->increment_ms = 0;
    if (clock && !cJSON_IsNull(clock)) {
        const cJSON *ini = cJSON_GetObjectItemCaseSensitive(clock, "initial");
        const cJSON *inc = cJSON_GetObjectItemCaseSensitive(clock, "increment");
        if (!cJSON_IsObject(clock) || !cJSON_IsNumber(ini) || (inc && !cJSON_IsNumber(inc)))
            return "\"clock\" is null (no clock) or {\"initial\": seconds, \"increment\": seconds}";
        double a = ini->valuedouble, b = inc ? inc->valuedouble : 0;
        if (!isfinite(a) || !isfinite(b) || a < 0 || a > 10800 || b < 0 || b > 180)
            return "the clock's initial time is 0 to 10800 seconds, its increment 0 to 180";
        if (a == 0 && b == 0)
            return "a clock of 0 seconds and no increment cannot be played";
        c->initial_ms = (int64_t)llround(a * 1000), c->increment_ms = (int64_t)llround(b * 1000);
    }
    c->rule = 0;
    if (rule) {
        if (!cJSON_IsString(rule) || (strcmp(rule->valuestring, "forbid") && strcmp(rule->valuestring, "draw")))
            return "\"rule\" is \"forbid\" or \"draw\"";
        c->rule = !strcmp(rule->valuestring, "draw");
    }
    if (rated && !cJSON_IsBool(rated))
        return "\"rated\" is true or false";
    c->rated = cJSON_IsTrue(rated);
    return NULL;
}

static void remove_challenge(room_t *r, challenge_t *c)
{
    rmap_del(&r->challenges, c->c.id);
    player_t *p = room_player(r, c->c.from);
    if (p && p->challenges > 0)
        p->challenges--;
    store_delete_challenge(r->store, c->c.id, NULL, NULL);
}

static void create(room_t *r, const cJSON *body, player_t *me, bool listed, room_reply_fn reply, void *ctx)
{
    store_challenge_t c = {0};
    const char *why = read_settings(body, &c);
    if (why) {
        reply(ctx, 400, room_error_json("settings", "%s", why), NULL);
        return;
    }
    if (c.rated && me->p.kind == STORE_ANON) {
        reply(ctx, 403, room_error_json("rated", "rated games are between named players: pick a name first"), NULL);
        return;
    }
    const cJSON *to = cJSON_GetObjectItemCaseSensitive(body, "to");
    player_t *target = NULL;
    if (to && !cJSON_IsNull(to)) {
        if (listed || !cJSON_IsString(to)) {
            reply(ctx, 400, room_error_json("to", "\"to\" names a player, in a challenge only"), NULL);
            return;
        }
        char low[STORE_NAME_LEN];
        size_t k = 0;
        for (; to->valuestring[k] && k + 1 < sizeof low; k++)
            low[k] = (char)((to->valuestring[k] >= 'A' && to->valuestring[k] <= 'Z') ? to->valuestring[k] + 32
                                                                                      : to->valuestring[k]);
        low[k] = '\0';
        target = to->valuestring[k] ? NULL : rmap_get(&r->names, low);
        /* Named on another server sharing the database: read from it. */
        char id[STORE_ID_LEN], err[160];
        if (!target && !to->valuestring[k] && r->relaying &&
            store_find_name(r->store, to->valuestring, id, err, sizeof err) == 1)
            target = players_fetch(r, id);
        if (!target) {
            reply(ctx, 404, room_error_json("no-player", "no player named %.40s", to->valuestring), NULL);
            return;
        }
        if (target == me) {
            reply(ctx, 400, room_error_json("self", "a challenge to yourself cannot be accepted"), NULL);
            return;
        }
        if (c.rated && target->p.kind == STORE_ANON) {
            reply(ctx, 403, room_error_json("rated", "rated games are between named players"), NULL);
            return;
        }
    }
    if (me->challenges >= r->cfg.max_challenges) {
        reply(ctx, 429, room_error_json("too-many-seeks", "at most %d open seeks and challenges at once: cancel one",
                                        r->cfg.max_challenges), NULL);
        return;
    }
    challenge_t *ch = malloc(sizeof *ch);
    pending_t *pd = pending_new(r, reply, ctx);
    if (!ch || !pd) {
        free(ch), free(pd);
        reply(ctx, 503, room_error_json("memory", "out of memory"), NULL);
        return;
    }
    do
        room_new_id(c.id, listed ? 's' : 'c', 9);
    while (rmap_get(&r->challenges, c.id));
    snprintf(c.from, sizeof c.from, "%s", me->p.id);
    if (target)
        snprintf(c.to, sizeof c.to, "%s", target->p.id);
    c.listed = listed;
    c.created_ms = room_wall_ms();
    ch->c = c;
    if (!rmap_put(&r->challenges, c.id, ch)) {
        free(ch), free(pd);
        reply(ctx, 503, room_error_json("memory", "out of memory"), NULL);
        return;
    }
    me->challenges++;
    pd->status = 201;
    pd->json = room_json_take(challenge_json(r, ch));
    if (listed)
        pending_event(pd, CH_LOBBY, NULL, typed("seekAdded", "seek", challenge_json(r, ch)));
    if (target)
        pending_event(pd, CH_PLAYER, target->p.id, typed("challenge", "challenge", challenge_json(r, ch)));
    if (!store_put_challenge(r->store, &c, pending_done, pd)) {
        for (int i = 0; i < pd->nevents; i++)
            cJSON_Delete(pd->events[i]);
        free(pd->json), free(pd);
        remove_challenge(r, ch);
        free(ch);
        reply(ctx, 503, room_error_json("closing", "the server is stopping"), NULL);
    }
}

static cJSON *removed_event(const char *type, const challenge_t *c, const char *reason, const char *game)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    cJSON_AddStringToObject(j, "type", type);
    cJSON_AddStringToObject(j, "id", c->c.id);
    cJSON_AddStringToObject(j, "reason", reason);
    if (game)
        cJSON_AddStringToObject(j, "game", game);
    return j;
}

static void end_challenge(room_t *r, challenge_t *c, player_t *me, bool decline, room_reply_fn reply, void *ctx)
{
    bool mine = !strcmp(c->c.from, me->p.id), to_me = !strcmp(c->c.to, me->p.id);
    if (decline ? !to_me : !mine) {
        reply(ctx, 403, room_error_json("not-yours", decline ? "only the challenged player declines a challenge"
                                                             : "only its creator cancels a seek or challenge"), NULL);
        return;
    }
    pending_t *pd = pending_new(r, reply, ctx);
    if (!pd) {
        reply(ctx, 503, room_error_json("memory", "out of memory"), NULL);
        return;
    }
    const char *reason = decline ? "declined" : "cancelled";
    cJSON *ok = cJSON_CreateObject();
    if (ok)
        cJSON_AddBoolToObject(ok, "ok", true);
    pd->json = room_json_take(ok);
    if (c->c.listed)
        pending_event(pd, CH_LOBBY, NULL, removed_event("seekRemoved", c, reason, NULL));
    if (c->c.to[0])
        pending_event(pd, CH_PLAYER, decline ? c->c.from : c->c.to,
                      removed_event(decline ? "challengeDeclined" : "challengeCanceled", c, reason, NULL));
    rmap_del(&r->challenges, c->c.id);
    player_t *from = room_player(r, c->c.from);
    if (from && from->challenges > 0)
        from->challenges--;
    if (!store_delete_challenge(r->store, c->c.id, pending_done, pd))
        pending_now(pd);
    free(c);
}

static void accept(room_t *r, challenge_t *c, player_t *me, room_reply_fn reply, void *ctx)
{
    player_t *from = room_player(r, c->c.from);
    if (!strcmp(c->c.from, me->p.id)) {
        reply(ctx, 400, room_error_json("self", "your own seek is accepted by someone else"), NULL);
        return;
    }
    if (c->c.to[0] && strcmp(c->c.to, me->p.id)) {
        reply(ctx, 403, room_error_json("not-yours", "this challenge is to another player"), NULL);
        return;
    }
    if (c->c.rated && me->p.kind == STORE_ANON) {
        reply(ctx, 403, room_error_json("rated", "rated games are between named players: pick a name first"), NULL);
        return;
    }
    if (!from) {
        reply(ctx, 410, room_error_json("gone", "the challenger is gone"), NULL);
        return;
    }
    int challenger = c->c.side == STORE_SIDE_GOATS ? GOATS : c->c.side == STORE_SIDE_TIGERS ? TIGERS
                                                                                             : (int)randombytes_uniform(2);
    player_t *goats = challenger == GOATS ? from : me, *tigers = challenger == GOATS ? me : from;
    pending_t *pd = pending_new(r, reply, ctx);
    if (!pd) {
        reply(ctx, 503, room_error_json("memory", "out of memory"), NULL);
        return;
    }
    /* The challenge's row goes with the game's insertion, in one step that only one server
     * can win: an accept through another server at the same instant finds it gone. */
    round_t *g = round_start(r, goats, tigers, &c->c, NULL, c->c.id, &pd->gone, pending_done, pd);
    if (!g) {
        free(pd);
        reply(ctx, 503, room_error_json("memory", "out of memory or stopping"), NULL);
        return;
    }
    rmap_del(&r->challenges, c->c.id);
    if (from->challenges > 0)
        from->challenges--;
    snprintf(pd->started, sizeof pd->started, "%s", g->g.id);
    pd->claim = c->c;
    cJSON *ans = cJSON_CreateObject();
    if (ans) {
        cJSON_AddStringToObject(ans, "game", g->g.id);
        cJSON_AddStringToObject(ans, "side", side_text(goats == me ? GOATS : TIGERS));
    }
    pd->json = room_json_take(ans);
    if (c->c.listed)
        pending_event(pd, CH_LOBBY, NULL, removed_event("seekRemoved", c, "accepted", g->g.id));
    pending_event(pd, CH_PLAYER, goats->p.id, round_start_event(r, g, GOATS));
    pending_event(pd, CH_PLAYER, tigers->p.id, round_start_event(r, g, TIGERS));
    free(c);
}

void lobby_handle(room_t *r, const room_request_t *q, const char *rest, player_t *me, room_reply_fn reply, void *ctx)
{
    bool get = !strcmp(q->method, "GET"), post = !strcmp(q->method, "POST"), del = !strcmp(q->method, "DELETE");
    if (!strcmp(rest, "/lobby")) {
        if (!get) {
            reply(ctx, 405, room_error_json("method", "/api/lobby takes GET"), NULL);
            return;
        }
        char *t = room_json_take(lobby_snapshot(r));
        reply(ctx, t ? 200 : 503, t ? t : room_error_json("memory", "out of memory"), NULL);
        return;
    }
    bool seek = !strncmp(rest, "/seek", 5);
    const char *tail = rest + (seek ? 5 : 10); /* after /seek or /challenge */
    if (!*tail) {
        if (!post) {
            reply(ctx, 405, room_error_json("method", "%s takes POST", q->path), NULL);
            return;
        }
        if (!me) {
            reply(ctx, 401, room_error_json("token", "sign in first (POST /api/account/anonymous)"), NULL);
            return;
        }
        cJSON *body = q->body && q->body_len ? cJSON_ParseWithLength(q->body, q->body_len) : cJSON_CreateObject();
        if (!cJSON_IsObject(body))
            reply(ctx, 400, room_error_json("json", "the body must be a JSON object"), NULL);
        else
            create(r, body, me, seek, reply, ctx);
        cJSON_Delete(body);
        return;
    }
    if (*tail != '/') {
        reply(ctx, 404, room_error_json("not-found", "nothing at %.200s", q->path), NULL);
        return;
    }
    char id[STORE_ID_LEN];
    const char *slash = strchr(tail + 1, '/');
    size_t n = slash ? (size_t)(slash - tail - 1) : strlen(tail + 1);
    const char *action = slash ? slash + 1 : "";
    if (n == 0 || n >= STORE_ID_LEN) {
        reply(ctx, 404, room_error_json("no-challenge", "no such seek or challenge"), NULL);
        return;
    }
    memcpy(id, tail + 1, n);
    id[n] = '\0';
    challenge_t *c = relay_challenge(r, id);
    if (!c) {
        reply(ctx, 404, room_error_json("no-challenge", "no open seek or challenge %s (taken, cancelled or never made)", id),
              NULL);
        return;
    }
    if (!*action && get) {
        char *t = room_json_take(challenge_json(r, c));
        reply(ctx, t ? 200 : 503, t ? t : room_error_json("memory", "out of memory"), NULL);
        return;
    }
    if (!me) {
        reply(ctx, 401, room_error_json("token", "sign in first (POST /api/account/anonymous)"), NULL);
        return;
    }
    if ((!*action && del) || (post && !strcmp(action, "cancel")))
        end_challenge(r, c, me, false, reply, ctx);
    else if (post && !strcmp(action, "decline"))
        end_challenge(r, c, me, true, reply, ctx);
    else if (post && !strcmp(action, "accept"))
        accept(r, c, me, reply, ctx);
    else
        reply(ctx, 404, room_error_json("not-found", "nothing at %.200s", q->path), NULL);
}
