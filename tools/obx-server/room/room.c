/* The room's core: opening and closing, the lock, the streams and their events, the tick,
 * and the routing of /api/ requests to players.c, lobby.c and round.c. */
#include "room_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

void room_config_defaults(room_config_t *c)
{
    *c = (room_config_t){.db_path = "baghchal-room.sqlite",
                         .durable = false,
                         .lag_ms = 300,
                         .gone_s = 30,
                         .first_move_s = 60,
                         .max_challenges = 5,
                         .actions_per_s = 8,
                         .actions_burst = 30,
                         .moves_per_s = 50,
                         .max_accounts_per_min = 20,
                         .keepalive_s = 15};
}

/* ---- the map ------------------------------------------------------------------------- */

#define TOMB ((char *)1)

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

bool rmap_live(const rmap_t *m, size_t i) { return m->keys && m->keys[i] && m->keys[i] != TOMB; }

static size_t find_slot(const rmap_t *m, const char *key, bool *found)
{
    size_t mask = m->cap - 1, i = hash_str(key) & mask, tomb = (size_t)-1;
    for (;;) {
        char *k = m->keys[i];
        if (!k) {
            *found = false;
            return tomb != (size_t)-1 ? tomb : i;
        }
        if (k == TOMB) {
            if (tomb == (size_t)-1)
                tomb = i;
        } else if (!strcmp(k, key)) {
            *found = true;
            return i;
        }
        i = (i + 1) & mask;
    }
}

void *rmap_get(const rmap_t *m, const char *key)
{
    if (!m->cap)
        return NULL;
    bool found;
    size_t i = find_slot(m, key, &found);
    return found ? m->vals[i] : NULL;
}

static bool grow(rmap_t *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    if (m->used * 2 < m->cap) /* only tombstones to clear */
        cap = m->cap;
    rmap_t n = {calloc(cap, sizeof(char *)), calloc(cap, sizeof(void *)), cap, 0, 0};
    if (!n.keys || !n.vals) {
        free(n.keys), free(n.vals);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (rmap_live(m, i)) {
            bool found;
            size_t j = find_slot(&n, m->keys[i], &found);
            n.keys[j] = m->keys[i], n.vals[j] = m->vals[i], n.used++;
        }
    free(m->keys), free(m->vals);
    *m = n;
    return true;
}

bool rmap_put(rmap_t *m, const char *key, void *val)
{
    if ((m->used + m->tomb + 1) * 4 >= m->cap * 3 && !grow(m))
        return false;
    bool found;
    size_t i = find_slot(m, key, &found);
    if (found) {
        m->vals[i] = val;
        return true;
    }
    char *k = strdup(key);
    if (!k)
        return false;
    if (m->keys[i] == TOMB)
        m->tomb--;
    m->keys[i] = k, m->vals[i] = val, m->used++;
    return true;
}

void *rmap_del(rmap_t *m, const char *key)
{
    if (!m->cap)
        return NULL;
    bool found;
    size_t i = find_slot(m, key, &found);
    if (!found)
        return NULL;
    void *v = m->vals[i];
    free(m->keys[i]);
    m->keys[i] = TOMB, m->vals[i] = NULL, m->used--, m->tomb++;
    return v;
}

void rmap_free(rmap_t *m)
{
    for (size_t i = 0; i < m->cap; i++)
        if (rmap_live(m, i))
            free(m->keys[i]);
    free(m->keys), free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- time, ids, text ---------------------------------------------------------------- */

int64_t room_wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int64_t room_mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void room_new_id(char id[STORE_ID_LEN], char prefix, int len)
{
    static const char ALPHA[] = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    int n = 0;
    if (prefix)
        id[n++] = prefix;
    while (n < len && n < STORE_ID_LEN - 1)
        id[n++] = ALPHA[randombytes_uniform(sizeof ALPHA - 1)];
    id[n] = '\0';
}

char *room_json_take(cJSON *j)
{
    char *s = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    return s;
}

char *room_error_json(const char *code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    cJSON_AddStringToObject(j, "error", msg);
    cJSON_AddStringToObject(j, "code", code);
    return room_json_take(j);
}

const char *side_text(int side) { return side == GOATS ? "goats" : "tigers"; }

static const char *const CLASS_NAMES[CLASS_NB] = {"bullet", "blitz", "rapid", "classical", "unlimited"};

const char *class_name(int cls) { return cls >= 0 && cls < CLASS_NB ? CLASS_NAMES[cls] : "unlimited"; }

/* lichess's classes, by the estimated length of a game: the initial time and forty
 * increments. */
int class_of(int64_t initial_ms, int64_t increment_ms)
{
    if (initial_ms < 0)
        return 4;
    int64_t est = initial_ms / 1000 + 40 * (increment_ms / 1000);
    return est < 180 ? 0 : est < 480 ? 1 : est < 1500 ? 2 : 3;
}

/* ---- pending answers ------------------------------------------------------------------- */

pending_t *pending_new(room_t *r, room_reply_fn reply, void *ctx)
{
    pending_t *p = calloc(1, sizeof *p);
    if (p)
        p->room = r, p->reply = reply, p->ctx = ctx, p->status = 200;
    return p;
}

void pending_event(pending_t *p, channel_t ch, const char *key, cJSON *j)
{
    if (!j)
        return;
    if (p->nevents == 4) {
        cJSON_Delete(j);
        return;
    }
    p->events[p->nevents] = j, p->ch[p->nevents] = ch;
    snprintf(p->key[p->nevents], STORE_ID_LEN, "%s", key ? key : "");
    p->nevents++;
}

static void pending_finish(pending_t *p, bool ok, bool locked)
{
    room_t *r = p->room;
    if (!locked)
        pthread_mutex_lock(&r->lock);
    if (!ok && p->started[0]) {
        /* Nobody heard of the game: it is forgotten; the challenge it came from is open again,
         * unless it is gone from the database (then another server's game took it). */
        round_drop(r, p->started);
        lobby_restore(r, p->gone ? NULL : &p->claim);
    }
    for (int i = 0; i < p->nevents; i++) {
        if (ok)
            relay_out(r, p->ch[i], p->key[i], p->events[i]);
        if (ok)
            room_publish(r, p->ch[i], p->key[i], p->events[i]);
        else
            cJSON_Delete(p->events[i]);
    }
    if (!locked)
        pthread_mutex_unlock(&r->lock);
    if (!p->reply) {
        free(p->json), free(p->cookie);
    } else if (ok) {
        p->reply(p->ctx, p->status, p->json, p->cookie);
    } else if (p->gone) {
        free(p->json), free(p->cookie);
        p->reply(p->ctx, 404,
                 room_error_json("no-challenge", "no open seek or challenge %s (taken, cancelled or never made)",
                                 p->claim.id),
                 NULL);
    } else {
        free(p->json), free(p->cookie);
        p->reply(p->ctx, 503, room_error_json("storage", "the change could not be stored; try again"), NULL);
    }
    free(p);
}

void pending_done(void *ctx, bool ok) { pending_finish(ctx, ok, false); }

void pending_now(pending_t *p) { pending_finish(p, true, true); }

/* ---- streams --------------------------------------------------------------------------- */

static void sub_queue(room_sub_t *s, const char *text, size_t n)
{
    if (s->over)
        return;
    if (s->len + n > SUB_MAX_QUEUE) {
        /* A client that does not read: its stream ends rather than grow without bound. */
        s->over = true;
    } else {
        if (s->len + n > s->cap) {
            size_t cap = s->cap ? s->cap : 1024;
            while (cap < s->len + n)
                cap *= 2;
            char *b = realloc(s->buf, cap);
            if (!b) {
                s->over = true;
                goto wake;
            }
            s->buf = b, s->cap = cap;
        }
        memcpy(s->buf + s->len, text, n);
        s->len += n;
    }
wake:
    if (s->suspended && s->wake) {
        s->suspended = false;
        s->wake(s->ctx);
    }
}

static void sub_queue_text(room_sub_t *s, const char *line)
{
    size_t n = strlen(line);
    if (s->format == ROOM_SSE) {
        sub_queue(s, "data: ", 6);
        sub_queue(s, line, n);
        sub_queue(s, "\n\n", 2);
    } else {
        sub_queue(s, line, n);
        sub_queue(s, "\n", 1);
    }
}

void room_send(room_sub_t *s, const cJSON *j)
{
    char *t = cJSON_PrintUnformatted(j);
    if (t)
        sub_queue_text(s, t);
    else
        s->over = true;
    free(t);
}

/* The channel's list: its head's place ("g:ID" / "p:ID" in r->channels, or the lobby's). */
static void channel_name(channel_t ch, const char *key, char out[STORE_ID_LEN + 2])
{
    snprintf(out, STORE_ID_LEN + 2, "%c:%s", ch == CH_GAME ? 'g' : 'p', key ? key : "");
}

static room_sub_t *channel_head(room_t *r, channel_t ch, const char *key)
{
    if (ch == CH_LOBBY)
        return r->lobby_subs;
    char name[STORE_ID_LEN + 2];
    channel_name(ch, key, name);
    return rmap_get(&r->channels, name);
}

static bool channel_add(room_t *r, room_sub_t *s)
{
    room_sub_t *head = channel_head(r, s->channel, s->key);
    if (s->channel != CH_LOBBY) {
        char name[STORE_ID_LEN + 2];
        channel_name(s->channel, s->key, name);
        if (!rmap_put(&r->channels, name, s))
            return false;
    } else {
        r->lobby_subs = s;
    }
    s->cprev = NULL, s->cnext = head;
    if (head)
        head->cprev = s;
    return true;
}

static void channel_remove(room_t *r, room_sub_t *s)
{
    if (s->cnext)
        s->cnext->cprev = s->cprev;
    if (s->cprev) {
        s->cprev->cnext = s->cnext;
        return;
    }
    /* The head: the next becomes it, or the channel has none left. */
    if (s->channel == CH_LOBBY) {
        r->lobby_subs = s->cnext;
        return;
    }
    char name[STORE_ID_LEN + 2];
    channel_name(s->channel, s->key, name);
    if (s->cnext)
        rmap_put(&r->channels, name, s->cnext); /* the key exists: no allocation */
    else
        rmap_del(&r->channels, name);
}

bool room_game_watched(room_t *r, const char *id) { return channel_head(r, CH_GAME, id) != NULL; }

int room_seat_streams(room_t *r, const char *id, int seat)
{
    int n = 0;
    for (room_sub_t *s = channel_head(r, CH_GAME, id); s; s = s->cnext)
        n += s->seat == seat && !s->over;
    return n;
}

void room_publish(room_t *r, channel_t ch, const char *key, cJSON *j)
{
    char *t = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    if (!t)
        return;
    r->events++;
    for (room_sub_t *s = channel_head(r, ch, key); s; s = s->cnext)
        sub_queue_text(s, t);
    free(t);
}

bool room_is_stream(const char *path)
{
    return !strcmp(path, "/api/lobby/stream") || !strcmp(path, "/api/stream/event") ||
           (!strncmp(path, "/api/game/", 10) && strlen(path) > 17 && !strcmp(path + strlen(path) - 7, "/stream")) ||
           !strncmp(path, "/api/bot/game/stream/", 21) || !strncmp(path, "/api/board/game/stream/", 23);
}

/* The game id of a game stream's path, copied into id; false when it is none. */
static bool stream_game_id(const char *path, char id[STORE_ID_LEN])
{
    const char *s = NULL;
    size_t n = 0;
    if (!strncmp(path, "/api/bot/game/stream/", 21))
        s = path + 21, n = strlen(s);
    else if (!strncmp(path, "/api/board/game/stream/", 23))
        s = path + 23, n = strlen(s);
    else if (!strncmp(path, "/api/game/", 10))
        s = path + 10, n = strlen(s) - 7;
    if (!s || n == 0 || n >= STORE_ID_LEN || memchr(s, '/', n))
        return false;
    memcpy(id, s, n);
    id[n] = '\0';
    return true;
}

room_sub_t *room_subscribe(room_t *r, const room_request_t *q, room_format_t f, void (*wake)(void *ctx), void *ctx,
                           unsigned *status, char **json)
{
    room_sub_t *s = calloc(1, sizeof *s);
    if (!s) {
        *status = 503, *json = room_error_json("memory", "out of memory");
        return NULL;
    }
    s->room = r, s->format = f, s->wake = wake, s->ctx = ctx, s->seat = -1;
    pthread_mutex_lock(&r->lock);
    if (r->closing) {
        *status = 503, *json = room_error_json("shutting-down", "the server is stopping");
        goto refuse;
    }
    player_t *me = q->token ? room_auth(r, q->token) : NULL;
    char id[STORE_ID_LEN];
    if (q->token && !me) {
        *status = 401, *json = room_error_json("token", "this token is no player's: sign in again");
        goto refuse;
    }
    if (!strcmp(q->path, "/api/lobby/stream")) {
        s->channel = CH_LOBBY;
        cJSON *snap = lobby_snapshot(r);
        if (snap)
            room_send(s, snap);
        cJSON_Delete(snap);
    } else if (!strcmp(q->path, "/api/stream/event")) {
        if (!me) {
            *status = 401, *json = room_error_json("token", "the event stream is a player's: send its token");
            goto refuse;
        }
        s->channel = CH_PLAYER;
        snprintf(s->key, sizeof s->key, "%s", me->p.id);
        round_tell_player(r, s, me);
        lobby_tell_player(r, s, me);
    } else if (stream_game_id(q->path, id)) {
        round_t *g = rmap_get(&r->games, id);
        store_game_t sg;
        if (!g) {
            char err[128];
            int k = store_get_game(r->store, id, &sg, err, sizeof err);
            if (k <= 0) {
                *status = k < 0 ? 503 : 404;
                *json = k < 0 ? room_error_json("storage", "%s", err) : room_error_json("no-game", "no game %s", id);
                goto refuse;
            }
            /* A finished game: its record once, and the stream ends. A game another server keeps:
             * as stored, then its events as that server sends them (relay.c). */
            bool elsewhere = r->relaying && sg.ended_ms == 0;
            /* A player's own stream of a game another server keeps: its presence goes there. */
            if (elsewhere && me)
                s->seat = !strcmp(sg.goats, me->p.id) ? GOATS : !strcmp(sg.tigers, me->p.id) ? TIGERS : -1;
            if (s->seat >= 0)
                r->presence_dirty = true;
            cJSON *full = round_stored_full_json(r, &sg);
            store_game_free(&sg);
            if (full)
                room_send(s, full);
            cJSON_Delete(full);
            s->over = !elsewhere;
            s->channel = CH_GAME;
            snprintf(s->key, sizeof s->key, "%s", id);
        } else {
            s->channel = CH_GAME;
            snprintf(s->key, sizeof s->key, "%s", id);
            cJSON *full = round_full_json(r, g);
            if (full)
                room_send(s, full);
            cJSON_Delete(full);
            if (!round_live(g))
                s->over = true; /* finished (and still in memory): its record once, and the stream ends */
            else if (me && !strcmp(g->g.goats, me->p.id))
                s->seat = GOATS;
            else if (me && !strcmp(g->g.tigers, me->p.id))
                s->seat = TIGERS;
            if (s->seat >= 0) {
                round_presence(r, g, s->seat, 1);
                r->presence_dirty = true;
            }
            if (!s->over)
                round_tell_presence(r, s, g);
        }
    } else {
        *status = 404, *json = room_error_json("not-found", "no stream at %.200s", q->path);
        goto refuse;
    }
    if (!channel_add(r, s)) {
        if (s->seat >= 0) {
            round_t *g = rmap_get(&r->games, s->key);
            if (g)
                round_presence(r, g, s->seat, -1);
        }
        *status = 503, *json = room_error_json("memory", "out of memory");
        goto refuse;
    }
    if (me) {
        s->who = me;
        if (me->streams++ == 0)
            r->lobby_players_dirty = r->presence_dirty = true;
        me->offline_mono = 0;
    }
    s->next = r->subs;
    if (r->subs)
        r->subs->prev = s;
    r->subs = s;
    r->nsubs++;
    pthread_mutex_unlock(&r->lock);
    return s;
refuse:
    pthread_mutex_unlock(&r->lock);
    free(s->buf);
    free(s);
    return NULL;
}

ssize_t room_sub_read(room_sub_t *s, char *buf, size_t max, void (*suspend)(void *ctx))
{
    room_t *r = s->room;
    pthread_mutex_lock(&r->lock);
    ssize_t n;
    if (s->len) {
        n = (ssize_t)(s->len < max ? s->len : max);
        memcpy(buf, s->buf, (size_t)n);
        memmove(s->buf, s->buf + n, s->len - (size_t)n);
        s->len -= (size_t)n;
    } else if (s->over || r->closing) {
        n = -1;
    } else {
        s->suspended = true;
        suspend(s->ctx);
        n = 0;
    }
    pthread_mutex_unlock(&r->lock);
    return n;
}

void room_unsubscribe(room_sub_t *s)
{
    if (!s)
        return;
    room_t *r = s->room;
    pthread_mutex_lock(&r->lock);
    if (s->prev)
        s->prev->next = s->next;
    else
        r->subs = s->next;
    if (s->next)
        s->next->prev = s->prev;
    channel_remove(r, s);
    r->nsubs--;
    if (s->channel == CH_GAME && s->seat >= 0) {
        round_t *g = rmap_get(&r->games, s->key);
        if (g)
            round_presence(r, g, s->seat, -1);
        r->presence_dirty = true;
    }
    if (s->who && --s->who->streams == 0) {
        r->lobby_players_dirty = r->presence_dirty = true;
        s->who->offline_mono = room_mono_ms();
    }
    pthread_mutex_unlock(&r->lock);
    free(s->buf);
    free(s);
}

/* ---- open, close, tick ------------------------------------------------------------------ */

room_t *room_open(const room_config_t *c, char *err, size_t errlen)
{
    if (sodium_init() < 0) {
        snprintf(err, errlen, "libsodium cannot start");
        return NULL;
    }
    room_t *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->cfg = *c;
    if (pthread_mutex_init(&r->lock, NULL) != 0) {
        free(r);
        snprintf(err, errlen, "cannot create a mutex");
        return NULL;
    }
    r->store = store_open(c->db_path, c->durable, err, errlen);
    if (!r->store) {
        pthread_mutex_destroy(&r->lock);
        free(r);
        return NULL;
    }
    int64_t heartbeat = store_last_heartbeat(r->store);
    pthread_mutex_lock(&r->lock);
    r->holds_epoch = store_holds_epoch(r->store);
    bool ok = players_load(r, err, errlen) && lobby_load(r, err, errlen) && rounds_load(r, heartbeat, err, errlen);
    pthread_mutex_unlock(&r->lock);
    /* Heard from now on; the lobby read once more, so that nothing committed between the first
     * reading and the listening is missed. */
    if (ok && (ok = relay_start(r, err, errlen)) && r->relaying) {
        pthread_mutex_lock(&r->lock);
        ok = lobby_reload(r, err, errlen);
        pthread_mutex_unlock(&r->lock);
    }
    if (!ok) {
        room_close(r);
        return NULL;
    }
    r->last_tick = r->last_heartbeat = r->last_keepalive = room_mono_ms();
    store_heartbeat(r->store, room_wall_ms(), NULL, NULL);
    return r;
}

void room_shutdown(room_t *r)
{
    pthread_mutex_lock(&r->lock);
    r->closing = true;
    relay_tick(r, INT64_MAX); /* what waits for another server's answer: 503 */
    relay_stop(r);
    for (room_sub_t *s = r->subs; s; s = s->next)
        if (s->suspended && s->wake) {
            s->suspended = false;
            s->wake(s->ctx);
        }
    pthread_mutex_unlock(&r->lock);
    store_flush(r->store);
}

void room_close(room_t *r)
{
    if (!r)
        return;
    store_heartbeat(r->store, room_wall_ms(), NULL, NULL);
    store_close(r->store);
    for (size_t i = 0; i < r->games.cap; i++)
        if (rmap_live(&r->games, i))
            round_free(r->games.vals[i]);
    for (size_t i = 0; i < r->players.cap; i++)
        if (rmap_live(&r->players, i))
            free(r->players.vals[i]);
    for (size_t i = 0; i < r->challenges.cap; i++)
        if (rmap_live(&r->challenges, i))
            free(r->challenges.vals[i]);
    for (size_t i = 0; i < r->buckets.cap; i++)
        if (rmap_live(&r->buckets, i))
            free(r->buckets.vals[i]);
    rmap_free(&r->games), rmap_free(&r->players), rmap_free(&r->tokens), rmap_free(&r->names);
    rmap_free(&r->challenges), rmap_free(&r->buckets), rmap_free(&r->channels);
    relay_tick(r, INT64_MAX); /* nothing should wait by now (room_shutdown answered it) */
    rmap_free(&r->forwards);
    relay_free(r);
    /* Streams still open belong to connections the server closes; they unsubscribe after. */
    pthread_mutex_destroy(&r->lock);
    free(r);
}

void room_tick(room_t *r)
{
    int64_t now = room_mono_ms();
    pthread_mutex_lock(&r->lock);
    round_tick(r, now);
    lobby_tick(r, now);
    relay_tick(r, now);
    if (r->relaying && now - r->last_adopt >= 1000) {
        r->last_adopt = now;
        rounds_adopt(r);
    }
    if (now - r->last_keepalive >= (int64_t)r->cfg.keepalive_s * 1000) {
        r->last_keepalive = now;
        for (room_sub_t *s = r->subs; s; s = s->next)
            if (s->format == ROOM_SSE)
                sub_queue(s, ":\n\n", 3);
            else
                sub_queue(s, "\n", 1);
    }
    if (now - r->last_lobby_games >= 1000 && (r->lobby_games_dirty || r->lobby_players_dirty)) {
        r->last_lobby_games = now;
        cJSON *snap = lobby_snapshot(r);
        if (snap) {
            /* Only what changed goes out: the games with their clocks, or who is online. */
            cJSON *ev = cJSON_CreateObject();
            if (ev) {
                cJSON_AddStringToObject(ev, "type", "lobbyUpdate");
                if (r->lobby_games_dirty) {
                    cJSON_AddItemToObject(ev, "games", cJSON_DetachItemFromObject(snap, "games"));
                    cJSON_AddItemToObject(ev, "playing", cJSON_DetachItemFromObject(snap, "playing"));
                }
                if (r->lobby_players_dirty) {
                    cJSON_AddItemToObject(ev, "players", cJSON_DetachItemFromObject(snap, "players"));
                    cJSON_AddItemToObject(ev, "online", cJSON_DetachItemFromObject(snap, "online"));
                }
                room_publish(r, CH_LOBBY, NULL, ev);
            }
            cJSON_Delete(snap);
        }
        r->lobby_games_dirty = r->lobby_players_dirty = false;
    }
    bool beat = now - r->last_heartbeat >= 1000;
    if (beat)
        r->last_heartbeat = now;
    pthread_mutex_unlock(&r->lock);
    if (beat)
        store_heartbeat(r->store, room_wall_ms(), NULL, NULL);
}

void room_stats(room_t *r, room_stats_t *out)
{
    pthread_mutex_lock(&r->lock);
    memset(out, 0, sizeof *out);
    out->players = (int)r->players.used;
    for (size_t i = 0; i < r->players.cap; i++)
        if (rmap_live(&r->players, i))
            out->online += room_online(r->players.vals[i]);
    out->seeks = (int)r->challenges.used;
    for (size_t i = 0; i < r->games.cap; i++)
        if (rmap_live(&r->games, i))
            out->games_live += round_live(r->games.vals[i]);
    out->streams = r->nsubs;
    out->moves = r->moves, out->events = r->events;
    pthread_mutex_unlock(&r->lock);
}

/* ---- routing ------------------------------------------------------------------------------- */

bool room_owns(const char *path) { return !strncmp(path, "/api/", 5); }

void room_handle(room_t *r, const room_request_t *q, room_reply_fn reply, void *ctx)
{
    const char *path = q->path;
    pthread_mutex_lock(&r->lock);
    if (r->closing) {
        pthread_mutex_unlock(&r->lock);
        reply(ctx, 503, room_error_json("shutting-down", "the server is stopping"), NULL);
        return;
    }
    player_t *me = q->token && *q->token ? room_auth(r, q->token) : NULL;
    if (q->token && *q->token && !me && strcmp(path, "/api/account/anonymous") && strcmp(path, "/api/account/login")) {
        pthread_mutex_unlock(&r->lock);
        reply(ctx, 401, room_error_json("token", "this token is no player's: sign in again"), NULL);
        return;
    }
    bool move = strstr(path, "/move/") != NULL;
    if (me && strcmp(q->method, "GET") && !room_allow(r, me, move)) {
        pthread_mutex_unlock(&r->lock);
        if (move)
            reply(ctx, 429, room_error_json("rate", "too many moves: at most %.0f a second", r->cfg.moves_per_s), NULL);
        else
            reply(ctx, 429, room_error_json("rate", "too many actions: at most %.0f a second, %d at once",
                                            r->cfg.actions_per_s, r->cfg.actions_burst), NULL);
        return;
    }
    if (!strncmp(path, "/api/account", 12))
        players_handle(r, q, path + 12, me, reply, ctx);
    else if (!strncmp(path, "/api/player/", 12))
        players_handle(r, q, path + 4, me, reply, ctx);
    else if (!strncmp(path, "/api/lobby", 10) || !strncmp(path, "/api/seek", 9) || !strncmp(path, "/api/challenge", 14))
        lobby_handle(r, q, path + 4, me, reply, ctx);
    else if (!strncmp(path, "/api/game/", 10) || !strncmp(path, "/api/board/game/", 16) ||
             !strncmp(path, "/api/bot/game/", 14))
        round_handle(r, q, path + 4, me, reply, ctx);
    else {
        pthread_mutex_unlock(&r->lock);
        reply(ctx, 404, room_error_json("not-found", "nothing at %.200s", path), NULL);
        return;
    }
    pthread_mutex_unlock(&r->lock);
}
