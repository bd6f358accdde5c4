/* What the room's files share (room.c: the core, streams and routing; players.c: accounts,
 * tokens and ratings; lobby.c: seeks and challenges; round.c: games and their clocks). Every
 * function here runs under the room's lock unless it says otherwise. */
#ifndef ROOM_INT_H
#define ROOM_INT_H

#include <pthread.h>

#include "baghchal.h"
#include "cJSON.h"
#include "glicko.h"
#include "room.h"
#include "store.h"

/* ---- a string-keyed map (open addressing) --------------------------------------------- */
typedef struct {
    char **keys;
    void **vals;
    size_t cap, used, tomb;
} rmap_t;
void *rmap_get(const rmap_t *m, const char *key);
bool rmap_put(rmap_t *m, const char *key, void *val); /* key copied; false: out of memory */
void *rmap_del(rmap_t *m, const char *key);           /* the value removed, or NULL */
void rmap_free(rmap_t *m);
/* Iteration: for (size_t i = 0; i < m->cap; i++) if (rmap_live(m, i)) ... */
bool rmap_live(const rmap_t *m, size_t i);

/* ---- streams ------------------------------------------------------------------------ */
typedef enum { CH_LOBBY, CH_GAME, CH_PLAYER } channel_t;

struct room_sub {
    room_t *room;
    room_format_t format;
    channel_t channel;
    char key[STORE_ID_LEN]; /* the game's or the player's id */
    struct player *who;     /* the signed-in player watching, or NULL */
    int seat;               /* in a game stream: GOATS / TIGERS when who holds that seat, else -1 */
    char *buf;              /* queued bytes */
    size_t len, cap;
    bool suspended, over;
    void (*wake)(void *ctx);
    void *ctx;
    struct room_sub *prev, *next;   /* in the room's list of all streams */
    struct room_sub *cprev, *cnext; /* in its channel's list (room_t.lobby_subs, or room_t.channels) */
};

enum { SUB_MAX_QUEUE = 1 << 20, CLASS_NB = 5 };

typedef struct player {
    store_player_t p;
    glicko_t rating[CLASS_NB];
    int streams;          /* open streams of this player here */
    int remote;           /* other servers on the database where it has a stream open */
    int64_t offline_mono; /* when its last stream closed (0: online, or never was) */
    int challenges;       /* open seeks and challenges */
    double bucket;        /* actions left (token bucket) */
    int64_t bucket_ms;
    double move_bucket;   /* moves left: a bucket of their own */
    int64_t move_bucket_ms;
} player_t;

typedef struct challenge {
    store_challenge_t c;
} challenge_t;

typedef struct round {
    store_game_t g;        /* what is stored */
    game_t game;           /* the rules: every move checked by the library */
    int64_t turn_mono;     /* monotonic ms when the side to move's turn began */
    int64_t clock[2];      /* GOATS, TIGERS: ms left when the turn began */
    int draw_offer, takeback_offer, rematch_offer; /* the side offering, -1 none */
    int present[2];        /* the seat's owner's open streams of this game */
    int64_t gone_mono[2];  /* when the seat's owner left (0: present or never came) */
    bool gone_told[2];     /* the opponent was told the claim is open */
    char rematch[STORE_ID_LEN];
} round_t;

struct room {
    room_config_t cfg;
    store_t *store;
    pthread_mutex_t lock;
    rmap_t players, tokens, names, challenges, games; /* names: lower-case name -> player */
    rmap_t buckets; /* client address -> account_bucket_t, for new accounts */
    room_sub_t *subs;
    int nsubs;
    /* The streams of each channel, so that an event costs its own watchers only: the lobby's,
     * and a game's or a player's by "g:ID" / "p:ID" -> the first of its list. */
    room_sub_t *lobby_subs;
    rmap_t channels;
    int64_t last_tick, last_heartbeat, last_keepalive, last_lobby_games;
    bool lobby_games_dirty, lobby_players_dirty;
    uint64_t moves, events;
    bool closing;
    bool relaying; /* other servers share the database: the lobby's events go to them too */
    unsigned holds_epoch; /* the store's, when the games kept here were last taken */
    rmap_t forwards;      /* request id -> forward_t: actions sent to the server keeping the game */
    int64_t last_adopt;
    /* The live games other servers keep, as last read from the database (for the lobby). */
    store_game_t *elsewhere;
    size_t nelsewhere;
    uint64_t elsewhere_print; /* their ids' fingerprint */
    /* Who is online: this server's players online go to the others (relay.c). */
    char server[STORE_ID_LEN]; /* this server's name among them */
    rmap_t peers;              /* another server's name -> peer_t: the players online there */
    bool presence_dirty;
    unsigned presence_gen;
    int64_t presence_sent;
};

/* Online: a stream open here, or on another server sharing the database. */
static inline bool room_online(const struct player *p) { return p->streams > 0 || p->remote > 0; }

/* ---- time --------------------------------------------------------------------------- */
int64_t room_wall_ms(void);
int64_t room_mono_ms(void);

/* ---- ids and text ------------------------------------------------------------------- */
void room_new_id(char id[STORE_ID_LEN], char prefix, int len);
/* Text for a JSON answer: {"error": "...", "code": "..."} (heap). */
char *room_error_json(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *room_json_take(cJSON *j); /* prints and deletes j; NULL when out of memory */
const char *side_text(int side);  /* "goats" / "tigers" */
const char *class_name(int cls);
int class_of(int64_t initial_ms, int64_t increment_ms);

/* ---- events --------------------------------------------------------------------------- */
/* Is anyone watching the game's stream? */
bool room_game_watched(room_t *r, const char *id);
/* The streams of the game open here by the owner of a seat (GOATS, TIGERS). */
int room_seat_streams(room_t *r, const char *id, int seat);
/* Queues j (printed once) on every stream of the channel; deletes j. */
void room_publish(room_t *r, channel_t ch, const char *key, cJSON *j);
/* Queues j on one stream; does not delete j. */
void room_send(room_sub_t *s, const cJSON *j);

/* ---- players.c ----------------------------------------------------------------------- */
player_t *room_player(room_t *r, const char *id);
player_t *room_auth(room_t *r, const char *token);
/* An action of p at now: false when over its rate (then 429). */
bool room_allow(room_t *r, player_t *p, bool move);
cJSON *player_json(const player_t *p, int cls); /* {"id","name","kind","rating","provisional"} */
bool players_load(room_t *r, char *err, size_t errlen);
void players_handle(room_t *r, const room_request_t *q, const char *rest, player_t *me, room_reply_fn reply, void *ctx);
/* Rates a finished game between a and b (a goats, b tigers) with winner 0 none, 1 goats, 2 tigers. */
void players_rate(room_t *r, round_t *g, player_t *goats, player_t *tigers);

/* A player another server made, read from the store and kept; NULL when there is none. */
player_t *players_fetch(room_t *r, const char *id);

/* ---- relay.c: several servers on one database ------------------------------------------ */
/* Starts hearing the other servers (false with a reason in err when the store cannot). */
bool relay_start(room_t *r, char *err, size_t errlen);
/* Sends a committed event that changes the lobby to the other servers (others: nothing). */
void relay_out(room_t *r, channel_t ch, const char *key, const cJSON *j);
/* Sends an action (a POST under rest) on a game another server keeps to that server; its
 * answer comes back as reply's (503 when none comes within 5 s). False when it cannot be sent
 * (not sharing a database, a body too long, out of memory): then answer it here. */
bool relay_forward(room_t *r, const char *game, const room_request_t *q, const char *rest, player_t *me,
                   room_reply_fn reply, void *ctx);
/* A seek or challenge by id: kept here, or (sharing a database) made on another server and not
 * heard of yet, read from the database and kept. NULL when there is none. */
challenge_t *relay_challenge(room_t *r, const char *id);
/* Answers 503 to the forwarded actions whose answer did not come in time; sends who is online
 * here when it changed (at most once a second) or every few seconds, and forgets the players
 * of a server not heard of for a while (gone without a word: killed). */
void relay_tick(room_t *r, int64_t now_mono);
/* The other servers where the owner of a seat of the game has a stream of it open. */
int relay_seat_servers(room_t *r, const char *game, int seat);
/* The server stops: the others forget its players at once. */
void relay_stop(room_t *r);
/* Frees what relay.c keeps (at the room's close). */
void relay_free(room_t *r);

/* ---- lobby.c ------------------------------------------------------------------------- */
bool lobby_load(room_t *r, char *err, size_t errlen);
/* A challenge whose game could not be stored, open again (NULL: nothing to restore). */
void lobby_restore(room_t *r, const store_challenge_t *c);
/* The open challenges read again (another server's changes may have been missed). */
bool lobby_reload(room_t *r, char *err, size_t errlen);
void lobby_handle(room_t *r, const room_request_t *q, const char *rest, player_t *me, room_reply_fn reply, void *ctx);
cJSON *lobby_snapshot(room_t *r);
cJSON *challenge_json(room_t *r, const challenge_t *c);
/* The challenges a player should hear of on connecting (to them, or theirs). */
void lobby_tell_player(room_t *r, room_sub_t *s, player_t *p);
/* Seeks whose creator has had no stream open for a while leave the lobby, as on lichess:
 * nobody would be there to play them. */
void lobby_tick(room_t *r, int64_t now_mono);

/* ---- round.c ------------------------------------------------------------------------- */
bool rounds_load(room_t *r, int64_t heartbeat_ms, char *err, size_t errlen);
/* Starts a game between goats and tigers with the challenge's settings, its write queued with
 * done; NULL when out of memory or the store is closing (nothing started, done not called).
 * From a challenge (claim: its id; else NULL), the game is stored only if the challenge's row
 * can be deleted with it (store_start_game, which tells *gone): when that fails, round_drop. */
round_t *round_start(room_t *r, player_t *goats, player_t *tigers, const store_challenge_t *settings,
                     const char *rematch_of, const char *claim, bool *gone, store_done_fn done, void *ctx);
/* Forgets a game just started whose write failed (nobody was told of it). */
void round_drop(room_t *r, const char *id);
void round_handle(room_t *r, const room_request_t *q, const char *rest, player_t *me, room_reply_fn reply, void *ctx);
cJSON *round_full_json(room_t *r, round_t *g);
cJSON *round_state_json(room_t *r, round_t *g);
cJSON *round_summary_json(room_t *r, round_t *g); /* for the lobby's list and the event streams */
cJSON *round_stored_full_json(room_t *r, store_game_t *sg); /* a finished game read from the store */
void round_tick(room_t *r, int64_t now_mono);
/* Several servers on one database: takes over the games whose server is gone, and lets go of
 * those another server took while this one's hold was lost. */
void rounds_adopt(room_t *r);
/* A live game another server keeps, as stored, summarized as round_summary_json does. */
cJSON *round_elsewhere_json(room_t *r, const store_game_t *sg);
/* A live game nobody keeps (its server gone), taken over at once; NULL when another server
 * keeps it or it is not live. */
round_t *round_take_over(room_t *r, const char *id);
/* A seat's owner opened (delta 1) or closed (-1) a stream of the game. */
void round_presence(room_t *r, round_t *g, int seat, int delta);
void round_tell_player(room_t *r, room_sub_t *s, player_t *p); /* gameStart for each game of p's */
cJSON *round_start_event(room_t *r, round_t *g, int side); /* {"type": "gameStart", "game": ...} for side */
/* To a new stream of the game: who is away now (a reload must not miss a claim that opened). */
void round_tell_presence(room_t *r, room_sub_t *s, round_t *g);
void round_free(round_t *g);
bool round_live(const round_t *g);

/* ---- answers from the writer thread ----------------------------------------------------- */
/* A reply to give once the writes queued before it are committed. */
typedef struct {
    room_t *room;
    room_reply_fn reply;
    void *ctx;
    unsigned status;
    char *json, *cookie;
    cJSON *events[4]; /* published (in order) once committed */
    channel_t ch[4];
    char key[4][STORE_ID_LEN];
    int nevents;
    /* A game started from a challenge (accepted): when its write fails, the game is dropped and
     * the challenge kept again, or, when the challenge was gone (taken through another server,
     * or cancelled), the answer is that of a challenge already taken. */
    char started[STORE_ID_LEN];
    store_challenge_t claim;
    bool gone;
} pending_t;
pending_t *pending_new(room_t *r, room_reply_fn reply, void *ctx);
void pending_event(pending_t *p, channel_t ch, const char *key, cJSON *j);
/* The store's callback: publishes the events and replies (ok) or replies 503. */
void pending_done(void *ctx, bool ok);
/* Replies at once with no store write (still after every write queued before it, through a
 * flush of nothing: the order of answers is the order of actions). */
void pending_now(pending_t *p);

#endif
