/* Several servers on one database: the lobby's events go to the other servers as the store's
 * messages (PostgreSQL's NOTIFY, once committed), and theirs come here. Each server keeps the
 * lobby in its memory, so a message names what changed and the record is read again from the
 * database, the one truth: a seek or challenge made elsewhere is added (with its players), one
 * taken, cancelled or declined elsewhere is dropped, and the event goes on to this server's
 * streams as the other server sent it. On SQLite the store has nobody to tell. */
#include "room_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The events that change the lobby, on the lobby's channel or a player's. */
static bool lobby_type(const char *type)
{
    static const char *const TYPES[] = {"seekAdded", "seekRemoved", "challenge", "challengeCanceled",
                                        "challengeDeclined"};
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++)
        if (!strcmp(type, TYPES[i]))
            return true;
    return false;
}

/* A game's start and end on its players' streams. */
static bool game_type(const char *type) { return !strcmp(type, "gameStart") || !strcmp(type, "gameFinish"); }

/* What goes to the other servers: the lobby's changes, and every event of a game (its stream
 * may be open on any server). */
static bool relayed(channel_t ch, const char *type)
{
    return ch == CH_GAME || (ch == CH_LOBBY && lobby_type(type)) ||
           (ch == CH_PLAYER && (lobby_type(type) || game_type(type)));
}

static const char *type_of(const cJSON *j)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "type");
    return cJSON_IsString(t) ? t->valuestring : "";
}

void relay_out(room_t *r, channel_t ch, const char *key, const cJSON *j)
{
    if (!r->relaying || !relayed(ch, type_of(j)))
        return;
    char *t = cJSON_PrintUnformatted(j);
    if (!t)
        return;
    /* "L JSON" for the lobby, "P PLAYER JSON" for a player's stream, "G GAME JSON" for a game's. */
    size_t n = strlen(t) + STORE_ID_LEN + 4;
    char *msg = malloc(n);
    if (msg) {
        if (ch == CH_LOBBY)
            snprintf(msg, n, "L %s", t);
        else
            snprintf(msg, n, "%c %s %s", ch == CH_GAME ? 'G' : 'P', key, t);
        store_notify(r->store, msg, NULL, NULL);
    }
    free(msg);
    free(t);
}

/* A player another server made, read from the store and kept (under the room's lock). */
static player_t *known(room_t *r, const char *id)
{
    player_t *p = room_player(r, id);
    if (p || !id[0])
        return p;
    return players_fetch(r, id);
}

challenge_t *relay_challenge(room_t *r, const char *id)
{
    store_challenge_t c;
    char err[160];
    challenge_t *ch = rmap_get(&r->challenges, id);
    if (ch || !r->relaying || store_get_challenge(r->store, id, &c, err, sizeof err) != 1)
        return ch;
    player_t *from = known(r, c.from);
    if (!from || (c.to[0] && !known(r, c.to)))
        return NULL;
    if (!(ch = malloc(sizeof *ch)))
        return NULL;
    ch->c = c;
    if (!rmap_put(&r->challenges, c.id, ch)) {
        free(ch);
        return NULL;
    }
    from->challenges++;
    return ch;
}

static void adopt_challenge(room_t *r, const char *id) { relay_challenge(r, id); }

static void drop_challenge(room_t *r, const char *id)
{
    challenge_t *c = rmap_del(&r->challenges, id);
    if (!c)
        return;
    player_t *from = room_player(r, c->c.from);
    if (from && from->challenges > 0)
        from->challenges--;
    free(c);
}

/* The challenge's id in an event: "seek" or "challenge" objects, or "id". */
static const char *challenge_id(const cJSON *j)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(j, "seek");
    if (!o)
        o = cJSON_GetObjectItemCaseSensitive(j, "challenge");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(o ? o : j, "id");
    return cJSON_IsString(id) && strlen(id->valuestring) < STORE_ID_LEN ? id->valuestring : NULL;
}

/* ---- actions on a game another server keeps ------------------------------------------ */

enum { FORWARD_WAIT_MS = 2000 };

/* An action sent to the server keeping its game, kept until its answer comes: when none comes
 * in time, that server may be gone, and the action is done here if the game can be taken. */
typedef struct {
    room_reply_fn reply;
    void *ctx;
    int64_t deadline;
    char game[STORE_ID_LEN], who[STORE_ID_LEN];
    char *rest, *body;
} forward_t;

static void forward_free(forward_t *f)
{
    free(f->rest), free(f->body), free(f);
}

bool relay_forward(room_t *r, const char *game, const room_request_t *q, const char *rest, player_t *me,
                   room_reply_fn reply, void *ctx)
{
    if (!r->relaying || strlen(rest) > 200)
        return false;
    const char *body = q->body && q->body_len ? q->body : "";
    if (strlen(body) > STORE_NOTE_MAX - 400)
        return false;
    /* "F GAME REQUEST PLAYER REST\nBODY": the server keeping the game acts as if asked itself. */
    char req[STORE_ID_LEN];
    room_new_id(req, 'q', 12);
    size_t n = strlen(body) + strlen(rest) + 3 * STORE_ID_LEN + 16;
    char *msg = malloc(n);
    forward_t *f = calloc(1, sizeof *f);
    if (!msg || !f || !(f->rest = strdup(rest)) || !(f->body = strdup(body))) {
        free(msg);
        if (f)
            forward_free(f);
        return false;
    }
    snprintf(msg, n, "F %s %s %s %s\n%s", game, req, me->p.id, rest, body);
    f->reply = reply, f->ctx = ctx, f->deadline = room_mono_ms() + FORWARD_WAIT_MS;
    snprintf(f->game, sizeof f->game, "%s", game);
    snprintf(f->who, sizeof f->who, "%s", me->p.id);
    bool ok = rmap_put(&r->forwards, req, f) && store_notify(r->store, msg, NULL, NULL);
    free(msg);
    if (!ok) {
        rmap_del(&r->forwards, req);
        forward_free(f);
    }
    return ok;
}

/* ---- who is online on the other servers ----------------------------------------------- */

/* Each server sends the players that have a stream open on it, and the seats of games whose
 * owner has a stream of the game open on it, in full: at most every PRESENCE_CHANGED_MS when
 * they changed, and every PRESENCE_EVERY_MS anyway, so that a server that starts hears of them
 * soon and a server that dies without a word (killed) is forgotten after PRESENCE_LOST_MS.
 * "O SERVER GEN K N WORD WORD ...": part K of N of list GEN (N 0: the server stops), a word a
 * player's id or a seat, GAME:0 (goats) or GAME:1 (tigers). The server keeping a game counts
 * a seat's owner present while a stream of it is open there or on another server. */
enum { PRESENCE_CHANGED_MS = 250, PRESENCE_EVERY_MS = 5000, PRESENCE_LOST_MS = 15000, PRESENCE_IDS = 300 };

typedef struct {
    int64_t heard;
    unsigned gen;
    rmap_t ids;  /* player id -> player_t: online there */
    rmap_t next; /* the list being received */
    rmap_t seats, next_seats; /* "GAME:S" -> SEAT_HERE: seats with a stream there */
} peer_t;

static char SEAT_HERE[1]; /* a seat map's value: only its keys count */

enum { WORD_LEN = STORE_ID_LEN + 2 }; /* an id, or GAME:S */

static void send_presence(room_t *r, bool stopping)
{
    size_t n = 0;
    char(*words)[WORD_LEN] = malloc((r->players.used + (size_t)r->nsubs + 1) * sizeof *words);
    if (!words)
        return;
    for (size_t i = 0; !stopping && i < r->players.cap; i++)
        if (rmap_live(&r->players, i) && ((player_t *)r->players.vals[i])->streams > 0)
            snprintf(words[n++], WORD_LEN, "%s", r->players.keys[i]);
    for (room_sub_t *s = r->subs; !stopping && s; s = s->next)
        if (s->channel == CH_GAME && s->seat >= 0 && !s->over)
            snprintf(words[n++], WORD_LEN, "%s:%c", s->key, s->seat ? '1' : '0');
    size_t parts = stopping ? 0 : n ? (n + PRESENCE_IDS - 1) / PRESENCE_IDS : 1;
    unsigned gen = ++r->presence_gen;
    char *msg = malloc(PRESENCE_IDS * WORD_LEN + 3 * STORE_ID_LEN + 64);
    for (size_t k = 0; msg && k < (parts ? parts : 1); k++) {
        int len = sprintf(msg, "O %s %u %zu %zu", r->server, gen, k, parts);
        for (size_t i = k * PRESENCE_IDS; i < n && i < (k + 1) * PRESENCE_IDS; i++)
            len += sprintf(msg + len, " %s", words[i]);
        store_notify(r->store, msg, NULL, NULL);
    }
    free(msg);
    free(words);
}

/* The seats a server has streams for changed from old to new: the games kept here count them. */
static void seats_diff(room_t *r, rmap_t *old, rmap_t *new)
{
    for (int pass = 0; pass < 2; pass++) {
        rmap_t *from = pass ? new : old, *other = pass ? old : new;
        for (size_t i = 0; i < from->cap; i++) {
            if (!rmap_live(from, i) || rmap_get(other, from->keys[i]))
                continue;
            char id[STORE_ID_LEN];
            const char *colon = strchr(from->keys[i], ':');
            size_t n = colon ? (size_t)(colon - from->keys[i]) : 0;
            if (!n || n >= STORE_ID_LEN || (colon[1] != '0' && colon[1] != '1'))
                continue;
            memcpy(id, from->keys[i], n);
            id[n] = '\0';
            round_t *g = rmap_get(&r->games, id);
            if (g && round_live(g))
                round_presence(r, g, colon[1] - '0', pass ? 1 : -1);
        }
    }
}

int relay_seat_servers(room_t *r, const char *game, int seat)
{
    char key[WORD_LEN];
    snprintf(key, sizeof key, "%.15s:%c", game, seat ? '1' : '0');
    int n = 0;
    for (size_t i = 0; i < r->peers.cap; i++)
        if (rmap_live(&r->peers, i))
            n += rmap_get(&((peer_t *)r->peers.vals[i])->seats, key) != NULL;
    return n;
}

/* The players a server counts online changed from old to new: each one's count of servers. */
static void presence_diff(room_t *r, rmap_t *old, rmap_t *new)
{
    for (size_t i = 0; i < old->cap; i++)
        if (rmap_live(old, i) && !rmap_get(new, old->keys[i])) {
            player_t *p = old->vals[i];
            if (--p->remote == 0 && p->streams == 0)
                r->lobby_players_dirty = true;
        }
    for (size_t i = 0; i < new->cap; i++)
        if (rmap_live(new, i) && !rmap_get(old, new->keys[i])) {
            player_t *p = new->vals[i];
            if (p->remote++ == 0 && p->streams == 0)
                r->lobby_players_dirty = true;
        }
}

static void peer_forget(room_t *r, const char *server)
{
    peer_t *pe = rmap_del(&r->peers, server);
    if (!pe)
        return;
    rmap_t none = {0};
    presence_diff(r, &pe->ids, &none);
    seats_diff(r, &pe->seats, &none);
    rmap_free(&pe->ids), rmap_free(&pe->next), rmap_free(&pe->seats), rmap_free(&pe->next_seats);
    free(pe);
}

static player_t *known(room_t *r, const char *id);

/* "SERVER GEN K N ID ...": another server's players online. */
static void presence_heard(room_t *r, const char *text)
{
    char server[STORE_ID_LEN];
    unsigned gen;
    size_t k, parts;
    int used = 0;
    if (sscanf(text, "%15s %u %zu %zu%n", server, &gen, &k, &parts, &used) != 4 || !used)
        return;
    if (!parts) {
        peer_forget(r, server);
        return;
    }
    peer_t *pe = rmap_get(&r->peers, server);
    if (!pe) {
        if (!(pe = calloc(1, sizeof *pe)))
            return;
        if (!rmap_put(&r->peers, server, pe)) {
            free(pe);
            return;
        }
        r->presence_dirty = true; /* a server new here hears this one's players soon */
    }
    pe->heard = room_mono_ms();
    if (k == 0) {
        rmap_free(&pe->next), rmap_free(&pe->next_seats);
        pe->gen = gen;
    } else if (gen != pe->gen) {
        return; /* a part of a list whose start was missed */
    }
    for (const char *t = text + used; *t;) {
        t += strspn(t, " ");
        size_t n = strcspn(t, " ");
        if (n > 0 && n < WORD_LEN) {
            char word[WORD_LEN];
            memcpy(word, t, n);
            word[n] = '\0';
            player_t *p = NULL;
            if (strchr(word, ':'))
                rmap_put(&pe->next_seats, word, SEAT_HERE);
            else if (n < STORE_ID_LEN && (p = known(r, word)))
                rmap_put(&pe->next, word, p);
        }
        t += n;
    }
    if (k + 1 == parts) {
        presence_diff(r, &pe->ids, &pe->next);
        seats_diff(r, &pe->seats, &pe->next_seats);
        rmap_free(&pe->ids), rmap_free(&pe->seats);
        pe->ids = pe->next, pe->seats = pe->next_seats;
        memset(&pe->next, 0, sizeof pe->next);
        memset(&pe->next_seats, 0, sizeof pe->next_seats);
    }
}

void relay_stop(room_t *r)
{
    if (r->relaying)
        send_presence(r, true);
}

void relay_free(room_t *r)
{
    for (size_t i = 0; i < r->peers.cap; i++)
        if (rmap_live(&r->peers, i)) {
            peer_t *pe = r->peers.vals[i];
            rmap_free(&pe->ids), rmap_free(&pe->next), rmap_free(&pe->seats), rmap_free(&pe->next_seats);
            free(pe);
        }
    rmap_free(&r->peers);
    for (size_t i = 0; i < r->nelsewhere; i++)
        store_game_free(&r->elsewhere[i]);
    free(r->elsewhere);
    r->elsewhere = NULL, r->nelsewhere = 0;
}

static void presence_tick(room_t *r, int64_t now)
{
    if (!r->relaying || r->closing)
        return;
    int64_t since = now - r->presence_sent;
    if ((r->presence_dirty && since >= PRESENCE_CHANGED_MS) || since >= PRESENCE_EVERY_MS) {
        r->presence_dirty = false;
        r->presence_sent = now;
        send_presence(r, false);
    }
    for (size_t i = 0; i < r->peers.cap; i++)
        if (rmap_live(&r->peers, i) && now - ((peer_t *)r->peers.vals[i])->heard > PRESENCE_LOST_MS)
            peer_forget(r, r->peers.keys[i]);
}

/* Is the game finished, as stored? */
static bool stored_over(room_t *r, const char *id)
{
    store_game_t sg;
    char err[160];
    bool over = store_get_game(r->store, id, &sg, err, sizeof err) == 1 && sg.ended_ms != 0;
    store_game_free(&sg);
    return over;
}

void relay_tick(room_t *r, int64_t now)
{
    presence_tick(r, now);
    for (size_t i = 0; i < r->forwards.cap; i++) {
        if (!rmap_live(&r->forwards, i))
            continue;
        forward_t *f = r->forwards.vals[i];
        if (now < f->deadline)
            continue;
        rmap_del(&r->forwards, r->forwards.keys[i]);
        player_t *me = room_player(r, f->who);
        if (!r->closing && me && round_take_over(r, f->game)) {
            char path[300];
            snprintf(path, sizeof path, "/api%s", f->rest);
            room_request_t q = {.method = "POST", .path = path, .body = f->body, .body_len = strlen(f->body)};
            round_handle(r, &q, f->rest, me, f->reply, f->ctx);
        } else if (stored_over(r, f->game)) {
            /* Finished, and no longer kept anywhere. */
            f->reply(f->ctx, 409, room_error_json("over", "game %s is over", f->game), NULL);
        } else {
            f->reply(f->ctx, 503, room_error_json("elsewhere", "the server that keeps the game did not answer"), NULL);
        }
        forward_free(f);
    }
}

/* The answer of the server keeping the game, sent back to the one asking. */
typedef struct {
    room_t *room;
    char req[STORE_ID_LEN];
} answer_t;

static void send_answer(void *ctx, unsigned status, char *json, char *cookie)
{
    answer_t *a = ctx;
    size_t n = (json ? strlen(json) : 0) + STORE_ID_LEN + 16;
    char *msg = malloc(n);
    if (msg && n <= STORE_NOTE_MAX) {
        snprintf(msg, n, "A %s %u %s", a->req, status, json ? json : "{}");
        store_notify(a->room->store, msg, NULL, NULL);
    }
    free(msg), free(json), free(cookie), free(a);
}

/* "F GAME REQUEST PLAYER REST\nBODY": acted on when this server keeps the game. */
static void forwarded(room_t *r, const char *text)
{
    char game[STORE_ID_LEN], req[STORE_ID_LEN], who[STORE_ID_LEN], rest[256];
    const char *nl = strchr(text, '\n');
    if (!nl || sscanf(text, "%15s %15s %15s %255s", game, req, who, rest) != 4)
        return;
    round_t *g = rmap_get(&r->games, game);
    player_t *me = room_player(r, who);
    if (!g || !(me || (me = players_fetch(r, who))))
        return; /* not ours: the server keeping it answers (a finished game too: a rematch) */
    answer_t *a = malloc(sizeof *a);
    if (!a)
        return;
    a->room = r;
    snprintf(a->req, sizeof a->req, "%s", req);
    char path[260];
    snprintf(path, sizeof path, "/api%s", rest);
    room_request_t q = {.method = "POST", .path = path, .body = nl + 1, .body_len = strlen(nl + 1)};
    round_handle(r, &q, rest, me, send_answer, a);
}

/* "A REQUEST STATUS JSON": the answer to an action this server sent. */
static void answered(room_t *r, const char *text)
{
    char req[STORE_ID_LEN];
    unsigned status;
    int used = 0;
    if (sscanf(text, "%15s %u %n", req, &status, &used) != 2 || !used)
        return;
    forward_t *f = rmap_del(&r->forwards, req);
    if (!f)
        return;
    char *json = strdup(text + used);
    if (json)
        f->reply(f->ctx, status, json, NULL);
    else
        f->reply(f->ctx, 503, room_error_json("memory", "out of memory"), NULL);
    forward_free(f);
}

/* The store's listener: another server's message (NULL: some were missed). */
static void heard(void *ctx, const char *text)
{
    room_t *r = ctx;
    pthread_mutex_lock(&r->lock);
    if (r->closing) {
        pthread_mutex_unlock(&r->lock);
        return;
    }
    if (!text) {
        char err[160];
        lobby_reload(r, err, sizeof err);
        pthread_mutex_unlock(&r->lock);
        return;
    }
    if (text[0] == 'F' || text[0] == 'A' || text[0] == 'O') {
        if (text[0] == 'F')
            forwarded(r, text + 2);
        else if (text[0] == 'A')
            answered(r, text + 2);
        else
            presence_heard(r, text + 2);
        pthread_mutex_unlock(&r->lock);
        return;
    }
    channel_t ch = text[0] == 'P' ? CH_PLAYER : text[0] == 'G' ? CH_GAME : CH_LOBBY;
    char key[STORE_ID_LEN] = "";
    const char *json = text + 1 + (text[1] == ' ');
    if (ch != CH_LOBBY) {
        size_t n = strcspn(json, " ");
        if (n < STORE_ID_LEN && json[n] == ' ') {
            memcpy(key, json, n);
            key[n] = '\0';
        }
        json += n + (json[n] == ' ');
    }
    cJSON *j = (text[0] == 'L' || key[0]) ? cJSON_Parse(json) : NULL;
    const char *type = type_of(j), *id = challenge_id(j);
    if (j && (ch == CH_GAME || (ch == CH_PLAYER && game_type(type)))) {
        /* On to this server's streams of the game or the player (a game this server keeps
         * sends its own events). */
        if (ch == CH_GAME && rmap_get(&r->games, key))
            cJSON_Delete(j);
        else
            room_publish(r, ch, key, j);
    } else if (j && id && lobby_type(type)) {
        if (!strcmp(type, "seekAdded") || !strcmp(type, "challenge"))
            adopt_challenge(r, id);
        else
            drop_challenge(r, id);
        if (ch == CH_PLAYER)
            known(r, key);
        room_publish(r, ch, key, j);
    } else {
        cJSON_Delete(j);
    }
    pthread_mutex_unlock(&r->lock);
}

bool relay_start(room_t *r, char *err, size_t errlen)
{
    room_new_id(r->server, 'n', 9);
    int k = store_listen(r->store, heard, r, err, errlen);
    r->relaying = k == 1;
    return k >= 0;
}
