/* baghchal-bot: a protocol engine logged into baghchal-server as a bot. The settings
 * (config.c), the HTTP client (http.c), the games, each played by an engine of its own
 * through the referee's engine driver (game.c), and the event stream with the lobby's
 * seeks and challenges (main.c). */
#ifndef BOT_BOT_H
#define BOT_BOT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"

/* ---- settings ------------------------------------------------------------------------ */

/* The settings of a seek or challenge the bot makes. */
typedef struct {
    int64_t initial_ms; /* -1: no clock */
    int64_t increment_ms;
    int rule; /* 0 forbid, 1 draw */
    int side; /* 0 random, 1 goats, 2 tigers */
    bool rated;
} game_spec_t;

typedef struct {
    char *server;        /* base URL, no trailing slash */
    char *token;         /* NULL until read or registered */
    char *token_file;
    char *register_name;
    bool has_engine;
    engine_conf_t engine; /* argv[0] resolved; options in order */

    /* games without a clock: the limits of each go (movetime 1000 ms when none is given) */
    int64_t movetime_ms;
    int depth;
    int64_t nodes;

    /* which challenges are accepted */
    int64_t min_initial_ms, max_initial_ms, min_increment_ms, max_increment_ms;
    bool allow_clock, allow_no_clock;
    bool allow_rule[2]; /* forbid, draw */
    bool allow_rated, allow_casual;
    int max_games;

    bool seek;
    game_spec_t seek_spec;
    char **challenge; /* players to challenge when idle, in turn */
    int challenge_nb;
    game_spec_t challenge_spec;
    int64_t games_limit; /* stop after this many games (0: never) */

    char *log_file; /* the engines' protocol log and standard error */
    bool quiet;
    int64_t init_timeout_ms, ready_timeout_ms, quit_timeout_ms, grace_ms;
    bool help, version;
} bot_config_t;

/* Parses the command line (and the files of --config) into c. On error returns false with a
 * one-line reason in msg. */
bool config_parse(int argc, char **argv, bot_config_t *c, char *msg, size_t msglen);
void config_free(bot_config_t *c);
void config_usage(void);
/* Parses a seek or challenge spec ("300+5 draw goats rated", "none", a JSON object). */
bool spec_parse(const char *text, game_spec_t *s, char *msg, size_t msglen);
/* The JSON body of the spec (heap), NULL when out of memory. */
char *spec_json(const game_spec_t *s, const char *to);
/* "300+5 forbid random casual" */
void spec_describe(const game_spec_t *s, char *buf, size_t len);
/* Is text a player's name as the server allows them (3 to 20 of A-Z a-z 0-9 _ -, from a letter)? */
bool valid_name(const char *text);
/* Is text an id the server hands out (letters, digits, at most 31 of them)? */
bool valid_id(const char *text);

/* ---- logging --------------------------------------------------------------------------- */

void bot_log_init(bool quiet);
/* A line on standard error: "hh:mm:ss baghchal-bot: ..."; info lines are left out under --quiet. */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- HTTP ---------------------------------------------------------------------------- */

typedef struct {
    long status;  /* 0: no answer (a transport error, described in err) */
    char *body;   /* NUL-terminated, NULL when none */
    size_t len;
    char err[256];
} http_reply_t;

bool http_global_init(char *msg, size_t msglen);
void http_global_cleanup(void);
/* One request to the server (path from /api/...), with the token when not NULL and body as
 * JSON when not NULL. Returns true when an answer came (reply->status set). */
bool http_call(const char *server, const char *token, const char *method, const char *path, const char *body,
               http_reply_t *reply);
void http_reply_free(http_reply_t *r);
/* The "error" of a JSON error answer, or a short description of the answer. */
const char *http_reason(const http_reply_t *r, char *buf, size_t len);

/* A stream of lines (ndjson). on_line returns false to end it. */
typedef bool (*stream_line_fn)(void *ctx, char *line);
typedef struct stream stream_t;
/* Opens a stream handle for GET server+path. NULL when out of memory. */
stream_t *stream_new(const char *server, const char *token, const char *path, stream_line_fn on_line, void *ctx,
                     const atomic_bool *cancel);
/* Runs the stream until it ends, on_line stops it, *cancel is set (checked at least every
 * second) or nothing has come for 50 s (the server writes an empty line every 15). Returns the
 * HTTP status (0: none), and err says why it ended. */
long stream_run(stream_t *s, char *err, size_t errlen);
/* For a multi interface loop (the event stream): the easy handle, and the result once done. */
void *stream_easy(stream_t *s);
long stream_status(stream_t *s);
/* Resets the line buffer before a new connection. */
void stream_reset(stream_t *s);
/* Why the stream ended, from libcurl's result rc (a CURLcode). */
void stream_describe(stream_t *s, int rc, char *err, size_t errlen);
void stream_free(stream_t *s);

/* ---- the bot and its games ----------------------------------------------------------------- */

typedef struct bot_game bot_game_t;

typedef struct {
    const bot_config_t *cfg;
    char me_id[32], me_name[32];
    atomic_bool hard_stop; /* the second signal: leave every game now */
    int log_fd;            /* engines' protocol log, -1: none */
    void *multi;           /* the event loop's CURLM, woken when a game ends */
    pthread_mutex_t lock;  /* guards multi's wakeup against its cleanup */
} bot_t;

/* Starts the threads of one game (its stream and its player). NULL when they cannot start. */
bot_game_t *bot_game_start(bot_t *b, const char *id);
const char *bot_game_id(const bot_game_t *g);
/* Has the game ended and have its threads finished (bot_game_join then returns at once)? */
bool bot_game_done(const bot_game_t *g);
/* Did the game end on the server (a result, not the bot leaving)? */
bool bot_game_finished(const bot_game_t *g);
/* Tells the game's threads to leave now (the engine is stopped, the stream closed). */
void bot_game_leave(bot_game_t *g);
/* Joins its threads and frees it. */
void bot_game_join(bot_game_t *g);

/* Sleeps ms, or less once *stop is set. */
void nap_ms(int64_t ms, const atomic_bool *stop);
int64_t mono_ms(void);

#endif
