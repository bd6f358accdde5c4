/* Players: anonymous at once, a name kept with a token or a password (libsodium's Argon2id
 * hash, never the password), bots; their tokens (only a hash is stored), the limits on their
 * actions, and their Glicko-2 ratings per time-control class. */
#include "room_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sodium.h>

static const char *const KIND_NAMES[] = {"anon", "named", "bot"};

typedef struct {
    int64_t window_ms;
    int count;
} bucket_t;

static void token_hash(const char *token, char out[STORE_TOKEN_HASH_LEN])
{
    unsigned char h[32];
    crypto_generichash(h, sizeof h, (const unsigned char *)token, strlen(token), NULL, 0);
    sodium_bin2hex(out, STORE_TOKEN_HASH_LEN, h, sizeof h);
}

player_t *room_player(room_t *r, const char *id) { return rmap_get(&r->players, id); }

player_t *room_auth(room_t *r, const char *token)
{
    size_t n = strlen(token);
    if (n != 64 || strspn(token, "0123456789abcdef") != n)
        return NULL;
    char h[STORE_TOKEN_HASH_LEN];
    token_hash(token, h);
    player_t *p = rmap_get(&r->tokens, h);
    if (p)
        return p;
    char id[STORE_ID_LEN], err[128];
    if (store_find_token(r->store, h, id, err, sizeof err) != 1 ||
        !((p = room_player(r, id)) || (p = players_fetch(r, id))))
        return NULL;
    return rmap_put(&r->tokens, h, p) ? p : NULL;
}

/* A token bucket: rate a second, burst at once. */
static bool take(double *bucket, int64_t *at, double rate, double burst)
{
    int64_t now = room_mono_ms();
    if (!*at)
        *bucket = burst, *at = now;
    *bucket += (double)(now - *at) * rate / 1000.0;
    if (*bucket > burst)
        *bucket = burst;
    *at = now;
    if (*bucket < 1.0)
        return false;
    *bucket -= 1.0;
    return true;
}

bool room_allow(room_t *r, player_t *p, bool move)
{
    /* Moves have a bucket of their own: a move is only legal on the player's turn, so they
     * pace themselves, and a bot playing many games at once makes many a second. */
    if (move)
        return take(&p->move_bucket, &p->move_bucket_ms, r->cfg.moves_per_s, 2 * r->cfg.moves_per_s);
    return take(&p->bucket, &p->bucket_ms, r->cfg.actions_per_s, r->cfg.actions_burst);
}

cJSON *player_json(const player_t *p, int cls)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    cJSON_AddStringToObject(j, "id", p->p.id);
    cJSON_AddStringToObject(j, "name", p->p.name);
    cJSON_AddStringToObject(j, "kind", KIND_NAMES[p->p.kind]);
    if (p->p.kind != STORE_ANON && cls >= 0) {
        cJSON_AddNumberToObject(j, "rating", glicko_shown(&p->rating[cls]));
        cJSON_AddBoolToObject(j, "provisional", glicko_provisional(&p->rating[cls]));
    } else {
        cJSON_AddNullToObject(j, "rating");
    }
    cJSON_AddBoolToObject(j, "online", room_online(p));
    return j;
}

static cJSON *ratings_json(const player_t *p)
{
    cJSON *all = cJSON_CreateObject();
    for (int c = 0; all && c < CLASS_NB; c++) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddNumberToObject(o, "rating", glicko_shown(&p->rating[c]));
        cJSON_AddNumberToObject(o, "deviation", (int)(p->rating[c].deviation + 0.5));
        cJSON_AddBoolToObject(o, "provisional", glicko_provisional(&p->rating[c]));
        cJSON_AddNumberToObject(o, "games", p->rating[c].games);
        cJSON_AddItemToObject(all, class_name(c), o);
    }
    return all;
}

/* ---- loading ------------------------------------------------------------------------- */

static void lower(char *dst, const char *src, size_t n)
{
    size_t i = 0;
    for (; src[i] && i + 1 < n; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = '\0';
}

static player_t *add_player(room_t *r, const store_player_t *sp)
{
    player_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->p = *sp;
    for (int c = 0; c < CLASS_NB; c++)
        p->rating[c] = glicko_new();
    char low[STORE_NAME_LEN];
    lower(low, sp->name, sizeof low);
    if (!rmap_put(&r->players, sp->id, p) || (sp->kind != STORE_ANON && !rmap_put(&r->names, low, p))) {
        rmap_del(&r->players, sp->id);
        free(p);
        return NULL;
    }
    return p;
}

typedef struct {
    room_t *r;
    bool ok;
} load_t;

static void load_player(void *ctx, const store_player_t *sp)
{
    load_t *l = ctx;
    if (!add_player(l->r, sp))
        l->ok = false;
}

static void load_rating(void *ctx, const store_rating_t *sr)
{
    load_t *l = ctx;
    player_t *p = room_player(l->r, sr->player);
    for (int c = 0; p && c < CLASS_NB; c++)
        if (!strcmp(class_name(c), sr->cls))
            p->rating[c] = sr->g;
}

player_t *players_fetch(room_t *r, const char *id)
{
    store_player_t sp;
    store_rating_t rs[CLASS_NB];
    int n = 0;
    char err[160];
    if (store_get_player(r->store, id, &sp, rs, CLASS_NB, &n, err, sizeof err) != 1)
        return NULL;
    load_t l = {r, true};
    if (!add_player(r, &sp))
        return NULL;
    for (int i = 0; i < n; i++)
        load_rating(&l, &rs[i]);
    return room_player(r, id);
}

bool players_load(room_t *r, char *err, size_t errlen)
{
    load_t l = {r, true};
    if (!store_each_player(r->store, load_player, &l, err, errlen) ||
        !store_each_rating(r->store, load_rating, &l, err, errlen))
        return false;
    if (!l.ok)
        snprintf(err, errlen, "out of memory loading the players");
    return l.ok;
}

/* ---- accounts ------------------------------------------------------------------------ */

/* A name people pick: 3 to 20 of A-Z a-z 0-9 _ -, from a letter; not one a guest has. Markup,
 * spaces and control characters are refused here, so no page ever shows them. */
static const char *bad_name(const char *name)
{
    size_t n = strlen(name);
    if (n < 3 || n > 20)
        return "a name has 3 to 20 characters";
    if (!isalpha((unsigned char)name[0]))
        return "a name starts with a letter";
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-')
            return "a name has only the letters A-Z and a-z, digits, '_' and '-'";
    if (!strncasecmp(name, "guest", 5) || !strcasecmp(name, "anonymous"))
        return "names starting with 'guest' and 'anonymous' are the guests'";
    return NULL;
}

static void new_token(char token[65])
{
    unsigned char b[32];
    randombytes_buf(b, sizeof b);
    sodium_bin2hex(token, 65, b, sizeof b);
}

static char *cookie_for(const char *token)
{
    char *c = malloc(160);
    if (c)
        snprintf(c, 160, "bc=%s; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly", token);
    return c;
}

/* The answer to a new sign-in: the player and its token, also as a cookie (the browser's
 * event streams send it), stored before it is given. */
static void signed_in(room_t *r, player_t *p, bool store_player, room_reply_fn reply, void *ctx)
{
    char token[65], h[STORE_TOKEN_HASH_LEN];
    new_token(token);
    token_hash(token, h);
    pending_t *pd = pending_new(r, reply, ctx);
    cJSON *j = player_json(p, -1);
    if (!pd || !j || !rmap_put(&r->tokens, h, p)) {
        free(pd);
        cJSON_Delete(j);
        reply(ctx, 503, room_error_json("memory", "out of memory"), NULL);
        return;
    }
    cJSON_AddStringToObject(j, "token", token);
    cJSON_AddItemToObject(j, "ratings", ratings_json(p));
    pd->json = room_json_take(j);
    pd->cookie = cookie_for(token);
    if (store_player)
        store_put_player(r->store, &p->p, NULL, NULL);
    if (!store_put_token(r->store, h, p->p.id, room_wall_ms(), pending_done, pd)) {
        free(pd->json), free(pd->cookie), free(pd);
        reply(ctx, 503, room_error_json("closing", "the server is stopping"), NULL);
    }
}

static bool account_allowed(room_t *r, const char *client)
{
    if (!client)
        return true;
    bucket_t *b = rmap_get(&r->buckets, client);
    int64_t now = room_mono_ms();
    if (!b) {
        if (!(b = calloc(1, sizeof *b)) || !rmap_put(&r->buckets, client, b)) {
            free(b);
            return false;
        }
        b->window_ms = now;
    }
    if (now - b->window_ms >= 60000)
        b->window_ms = now, b->count = 0;
    return ++b->count <= r->cfg.max_accounts_per_min;
}

static const char *str_field(const cJSON *body, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(body, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Hashes a password with the room's lock released (Argon2id takes a tenth of a second and
 * 64 MB): false when out of memory. */
static bool hash_password(room_t *r, const char *password, char out[STORE_HASH_LEN])
{
    char pw[160];
    snprintf(pw, sizeof pw, "%s", password);
    pthread_mutex_unlock(&r->lock);
    int rc = crypto_pwhash_str(out, pw, strlen(pw), crypto_pwhash_OPSLIMIT_INTERACTIVE,
                               crypto_pwhash_MEMLIMIT_INTERACTIVE);
    sodium_memzero(pw, sizeof pw);
    pthread_mutex_lock(&r->lock);
    return rc == 0;
}

static void do_register(room_t *r, const cJSON *body, player_t *me, const char *client, room_reply_fn reply,
                        void *ctx)
{
    const char *name = str_field(body, "name"), *password = str_field(body, "password");
    const cJSON *bot = cJSON_GetObjectItemCaseSensitive(body, "bot");
    const char *why = name ? bad_name(name) : "the body needs a \"name\"";
    if (!why && password && (strlen(password) < 8 || strlen(password) > 128))
        why = "a password has 8 to 128 characters";
    if (!why && bot && !cJSON_IsBool(bot))
        why = "\"bot\" is true or false";
    if (why) {
        reply(ctx, 400, room_error_json("name", "%s", why), NULL);
        return;
    }
    if (me && me->p.kind != STORE_ANON) {
        reply(ctx, 409, room_error_json("named", "you are %s already", me->p.name), NULL);
        return;
    }
    if (!me && !account_allowed(r, client)) {
        reply(ctx, 429, room_error_json("rate", "too many new players from this address: at most %d a minute",
                                        r->cfg.max_accounts_per_min), NULL);
        return;
    }
    char hash[STORE_HASH_LEN] = "", low[STORE_NAME_LEN], id[STORE_ID_LEN];
    if (me)
        snprintf(id, sizeof id, "%s", me->p.id);
    if (password && !hash_password(r, password, hash)) {
        reply(ctx, 503, room_error_json("memory", "out of memory hashing the password"), NULL);
        return;
    }
    /* The lock was let go while hashing: look again. */
    lower(low, name, sizeof low);
    if (rmap_get(&r->names, low)) {
        reply(ctx, 409, room_error_json("name-taken", "the name %s is taken", name), NULL);
        return;
    }
    player_t *p = me ? room_player(r, id) : NULL;
    if (me && (!p || p->p.kind != STORE_ANON)) {
        reply(ctx, 409, room_error_json("named", "this player has a name already"), NULL);
        return;
    }
    if (p) {
        /* A guest keeps its id, games and token and takes the name. */
        snprintf(p->p.name, sizeof p->p.name, "%s", name);
        p->p.kind = cJSON_IsTrue(bot) ? STORE_BOT : STORE_NAMED;
        snprintf(p->p.pw_hash, sizeof p->p.pw_hash, "%s", hash);
        if (!rmap_put(&r->names, low, p)) {
            reply(ctx, 503, room_error_json("memory", "out of memory"), NULL);
            return;
        }
        r->lobby_players_dirty = true;
        signed_in(r, p, true, reply, ctx);
        return;
    }
    store_player_t sp = {0};
    do
        room_new_id(sp.id, 'p', 10);
    while (room_player(r, sp.id));
    snprintf(sp.name, sizeof sp.name, "%s", name);
    sp.kind = cJSON_IsTrue(bot) ? STORE_BOT : STORE_NAMED;
    snprintf(sp.pw_hash, sizeof sp.pw_hash, "%s", hash);
    sp.created_ms = room_wall_ms();
    if (!(p = add_player(r, &sp))) {
        reply(ctx, 503, room_error_json("memory", "out of memory"), NULL);
        return;
    }
    signed_in(r, p, true, reply, ctx);
}

static void do_login(room_t *r, const cJSON *body, room_reply_fn reply, void *ctx)
{
    const char *name = str_field(body, "name"), *password = str_field(body, "password");
    if (!name || !password || strlen(name) >= STORE_NAME_LEN || strlen(password) > 128) {
        reply(ctx, 400, room_error_json("body", "the body needs a \"name\" and a \"password\""), NULL);
        return;
    }
    char low[STORE_NAME_LEN], hash[STORE_HASH_LEN], pw[160], id[STORE_ID_LEN];
    lower(low, name, sizeof low);
    player_t *p = rmap_get(&r->names, low);
    if (!p || !p->p.pw_hash[0]) {
        reply(ctx, 401, room_error_json("login", "wrong name or password"), NULL);
        return;
    }
    snprintf(hash, sizeof hash, "%s", p->p.pw_hash);
    snprintf(pw, sizeof pw, "%s", password);
    snprintf(id, sizeof id, "%s", p->p.id);
    pthread_mutex_unlock(&r->lock);
    bool ok = crypto_pwhash_str_verify(hash, pw, strlen(pw)) == 0;
    sodium_memzero(pw, sizeof pw);
    pthread_mutex_lock(&r->lock);
    if (!ok || !(p = room_player(r, id))) {
        reply(ctx, 401, room_error_json("login", "wrong name or password"), NULL);
        return;
    }
    signed_in(r, p, false, reply, ctx);
}

static void do_anonymous(room_t *r, const char *client, room_reply_fn reply, void *ctx)
{
    if (!account_allowed(r, client)) {
        reply(ctx, 429, room_error_json("rate", "too many new players from this address: at most %d a minute",
                                        r->cfg.max_accounts_per_min), NULL);
        return;
    }
    store_player_t sp = {0};
    do
        room_new_id(sp.id, 'p', 10);
    while (room_player(r, sp.id));
    char tail[STORE_ID_LEN];
    room_new_id(tail, 0, 5);
    snprintf(sp.name, sizeof sp.name, "Guest-%s", tail);
    sp.kind = STORE_ANON;
    sp.created_ms = room_wall_ms();
    player_t *p = add_player(r, &sp);
    if (!p) {
        reply(ctx, 503, room_error_json("memory", "out of memory"), NULL);
        return;
    }
    signed_in(r, p, true, reply, ctx);
}

static void reply_json(room_reply_fn reply, void *ctx, unsigned status, cJSON *j)
{
    char *t = room_json_take(j);
    reply(ctx, t ? status : 503, t ? t : room_error_json("memory", "out of memory"), NULL);
}

static void profile(room_t *r, const char *name, room_reply_fn reply, void *ctx)
{
    char low[STORE_NAME_LEN];
    if (strlen(name) >= STORE_NAME_LEN) {
        reply(ctx, 404, room_error_json("no-player", "no player of that name"), NULL);
        return;
    }
    lower(low, name, sizeof low);
    player_t *p = rmap_get(&r->names, low);
    if (!p)
        p = room_player(r, name);
    if (!p) {
        reply(ctx, 404, room_error_json("no-player", "no player %s", name), NULL);
        return;
    }
    cJSON *j = player_json(p, -1);
    if (j) {
        if (p->p.kind != STORE_ANON)
            cJSON_AddItemToObject(j, "ratings", ratings_json(p));
        char ids[20][STORE_ID_LEN], err[128];
        int n = store_player_games(r->store, p->p.id, ids, 20, err, sizeof err);
        cJSON *games = cJSON_AddArrayToObject(j, "games");
        for (int i = 0; games && i < n; i++)
            cJSON_AddItemToArray(games, cJSON_CreateString(ids[i]));
    }
    reply_json(reply, ctx, 200, j);
}

void players_handle(room_t *r, const room_request_t *q, const char *rest, player_t *me, room_reply_fn reply, void *ctx)
{
    bool post = !strcmp(q->method, "POST"), get = !strcmp(q->method, "GET");
    if (!strncmp(rest, "/player/", 8)) {
        if (!get)
            reply(ctx, 405, room_error_json("method", "%s takes GET", q->path), NULL);
        else
            profile(r, rest + 8, reply, ctx);
        return;
    }
    if (!strcmp(rest, "") && get) {
        if (!me) {
            reply(ctx, 401, room_error_json("token", "not signed in"), NULL);
            return;
        }
        cJSON *j = player_json(me, -1);
        if (j)
            cJSON_AddItemToObject(j, "ratings", ratings_json(me));
        reply_json(reply, ctx, 200, j);
        return;
    }
    if (!post) {
        reply(ctx, 405, room_error_json("method", "%s takes POST", q->path), NULL);
        return;
    }
    if (!strcmp(rest, "/anonymous")) {
        do_anonymous(r, q->client, reply, ctx);
        return;
    }
    cJSON *body = q->body ? cJSON_ParseWithLength(q->body, q->body_len) : NULL;
    if (!cJSON_IsObject(body)) {
        cJSON_Delete(body);
        reply(ctx, 400, room_error_json("json", "the body must be a JSON object"), NULL);
        return;
    }
    if (!strcmp(rest, "/register"))
        do_register(r, body, me, q->client, reply, ctx);
    else if (!strcmp(rest, "/login"))
        do_login(r, body, reply, ctx);
    else
        reply(ctx, 404, room_error_json("not-found", "nothing at %.200s", q->path), NULL);
    cJSON_Delete(body);
}

/* ---- ratings ------------------------------------------------------------------------- */

void players_rate(room_t *r, round_t *g, player_t *goats, player_t *tigers)
{
    int cls = class_of(g->g.initial_ms, g->g.increment_ms);
    double score = g->g.winner == 1 ? 1.0 : g->g.winner == 2 ? 0.0 : 0.5;
    glicko_t a = goats->rating[cls], b = tigers->rating[cls];
    int a0 = glicko_shown(&a), b0 = glicko_shown(&b);
    glicko_game(&a, &b, score);
    goats->rating[cls] = a, tigers->rating[cls] = b;
    g->g.goats_rating_diff = glicko_shown(&a) - a0;
    g->g.tigers_rating_diff = glicko_shown(&b) - b0;
    store_rating_t sr = {.g = a};
    snprintf(sr.player, sizeof sr.player, "%s", goats->p.id);
    snprintf(sr.cls, sizeof sr.cls, "%s", class_name(cls));
    store_put_rating(r->store, &sr, NULL, NULL);
    sr.g = b;
    snprintf(sr.player, sizeof sr.player, "%s", tigers->p.id);
    store_put_rating(r->store, &sr, NULL, NULL);
}
