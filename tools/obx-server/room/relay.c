/* Several servers on one database: the lobby's events go to the other servers as the store's
 * messages (PostgreSQL's NOTIFY, once committed), and theirs come here. Each server keeps the
 * lobby in its memory, so a message names what changed and the record is read again from the
 * database, the one truth: a seek or challenge made elsewhere is added (with its players), one
 * taken, cancelled or declined elsewhere is dropped, and the event goes on to this server's
 * streams as the other server sent it. On SQLite the store has nobody to tell. */
#include "room_int.h"

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

/* A seek or challenge made elsewhere: kept, as it is stored now (gone already: nothing). */
static void adopt_challenge(room_t *r, const char *id)
{
    store_challenge_t c;
    char err[160];
    if (rmap_get(&r->challenges, id) || store_get_challenge(r->store, id, &c, err, sizeof err) != 1)
        return;
    player_t *from = known(r, c.from);
    if (!from || (c.to[0] && !known(r, c.to)))
        return;
    challenge_t *ch = malloc(sizeof *ch);
    if (!ch)
        return;
    ch->c = c;
    if (!rmap_put(&r->challenges, c.id, ch)) {
        free(ch);
        return;
    }
    from->challenges++;
}

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
    int k = store_listen(r->store, heard, r, err, errlen);
    r->relaying = k == 1;
    return k >= 0;
}
