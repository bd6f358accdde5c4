/* The protocol seen from the referee's side. */
#include "player.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void player_init(player_t *pl)
{
    memset(pl, 0, sizeof *pl);
    pl->engine = -1;
    proc_init(&pl->proc);
}

/* After end of output or a broken pipe: crash or disconnect, from how the process ended. */
static fault_t classify_end(player_t *pl, const char *when)
{
    proc_wait_exit(&pl->proc, now_us() + 250000);
    const proc_exit_t *x = &pl->proc.exit;
    char how[128];
    fault_t f;
    if (x->ended && (x->signaled || x->code != 0)) {
        proc_describe_exit(x, how, sizeof how);
        f = FAULT_CRASH;
    } else {
        snprintf(how, sizeof how, "%s", x->ended ? "exited" : "closed its output");
        f = FAULT_DISCONNECT;
    }
    snprintf(pl->detail, sizeof pl->detail, "%s %s %s", pl->conf->name, how, when);
    player_kill(pl);
    pl->died = true;
    return f;
}

static fault_t io_fault(player_t *pl, proc_status_t s, const char *when, const char *stall_what)
{
    switch (s) {
    case PROC_EOF:
        return classify_end(pl, when);
    case PROC_TIMEOUT:
        snprintf(pl->detail, sizeof pl->detail, "%s %s %s", pl->conf->name, stall_what, when);
        player_kill(pl);
        pl->died = true;
        return FAULT_STALL;
    case PROC_WAKE:
        return FAULT_ABORT;
    default:
        snprintf(pl->detail, sizeof pl->detail, "referee error talking to %s %s", pl->conf->name, when);
        player_kill(pl);
        return FAULT_INTERNAL;
    }
}

static fault_t send_text(player_t *pl, const char *text, size_t len, int64_t deadline, const player_env_t *env,
                         const char *when)
{
    proc_status_t s = proc_write(&pl->proc, text, len, deadline, env->wake_fd);
    return s == PROC_LINE ? FAULT_NONE : io_fault(pl, s, when, "did not take its input");
}

/* The first word of line is word (whole-word comparison). */
static bool first_word_is(const char *line, const char *word)
{
    while (*line == ' ' || *line == '\t')
        line++;
    size_t n = strlen(word);
    return strncmp(line, word, n) == 0 && (line[n] == '\0' || line[n] == ' ' || line[n] == '\t');
}

static void protocol_detail(player_t *pl, const char *line, const char *when)
{
    char clean[48];
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)line; *p && k < 40; p++)
        clean[k++] = (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\') ? '?' : (char)*p;
    clean[k] = '\0';
    snprintf(pl->detail, sizeof pl->detail, "%s sent a second bestmove for one go ('%s') %s", pl->conf->name, clean,
             when);
}

/* Reads until a line whose first word is word, before deadline. While no search is out, a
 * bestmove is a protocol fault; the wait for word goes on, so the engine stays in sync. */
static fault_t expect(player_t *pl, const char *word, int64_t deadline, const player_env_t *env, const char *when)
{
    fault_t found = FAULT_NONE;
    for (;;) {
        if (atomic_load(env->stop))
            return FAULT_ABORT;
        char *line;
        int64_t at;
        proc_status_t s = proc_read_line(&pl->proc, deadline, env->wake_fd, &line, &at);
        if (s == PROC_LINE && at > deadline)
            s = PROC_TIMEOUT;
        if (s != PROC_LINE) {
            char what[64];
            snprintf(what, sizeof what, "sent no %s", word);
            return io_fault(pl, s, when, what);
        }
        if (first_word_is(line, word))
            return found;
        if (first_word_is(line, "bestmove") && !pl->searching && found == FAULT_NONE) {
            protocol_detail(pl, line, when);
            found = FAULT_PROTOCOL;
        }
        if (first_word_is(line, "bestmove"))
            pl->searching = false;
    }
}

fault_t player_start(player_t *pl, const engine_conf_t *conf, int engine, const player_env_t *env)
{
    player_init(pl);
    pl->conf = conf;
    pl->engine = engine;
    char msg[256];
    if (proc_start(&pl->proc, conf->argv, conf->dir, env->log_fd, env->log_fd, conf->name, msg, sizeof msg) < 0) {
        snprintf(pl->detail, sizeof pl->detail, "%s could not start: %s", conf->name, msg);
        return FAULT_CRASH;
    }
    pl->running = true;
    int64_t deadline = now_us() + env->init_us;
    fault_t f = send_text(pl, "uci\n", 4, deadline, env, "at startup");
    if (f == FAULT_NONE)
        f = expect(pl, "uciok", deadline, env, "at startup (uci)");
    if (f != FAULT_NONE)
        return f;
    sbuf_t b = {0};
    for (int i = 0; i < conf->options_nb; i++)
        sb_addf(&b, "setoption name %s value %s\n", conf->options[i].name, conf->options[i].value);
    sb_addf(&b, "setoption name Repetition value %s\nisready\n", rule_name(env->rule));
    if (b.failed) {
        sb_free(&b);
        snprintf(pl->detail, sizeof pl->detail, "referee out of memory");
        player_kill(pl);
        return FAULT_INTERNAL;
    }
    deadline = now_us() + env->init_us;
    f = send_text(pl, b.s, b.len, deadline, env, "at startup (options)");
    sb_free(&b);
    if (f == FAULT_NONE)
        f = expect(pl, "readyok", deadline, env, "at startup (isready)");
    if (f == FAULT_NONE)
        pl->in_sync = true;
    return f;
}

fault_t player_new_game(player_t *pl, const player_env_t *env)
{
    int64_t deadline = now_us() + env->ready_us;
    static const char cmd[] = "ucinewgame\nisready\n";
    fault_t f = send_text(pl, cmd, sizeof cmd - 1, deadline, env, "before the game");
    if (f == FAULT_NONE)
        f = expect(pl, "readyok", deadline, env, "before the game (isready)");
    return f;
}

/* The value after word in an info line ("time 12", "score cp -35", "score mate 3"). */
static bool info_value(const char *line, const char *word, const char **value)
{
    size_t n = strlen(word);
    for (const char *p = line; (p = strstr(p, word)) != NULL; p += n)
        if ((p == line || p[-1] == ' ' || p[-1] == '\t') && (p[n] == ' ' || p[n] == '\t')) {
            *value = p + n + 1;
            while (**value == ' ' || **value == '\t')
                (*value)++;
            return true;
        }
    return false;
}

/* The score of "score cp X" or "score mate N" for -resign and -draw. A cp beyond the
 * largest threshold (1,000,000) counts as that threshold, so it still adjudicates. A mate
 * counts 30000 - N (N > 0: a win in N moves) or -30000 - N (N <= 0: a loss in -N moves;
 * mate 0, the mover has lost, is -30000), with |N| at most 10,000 so that a mate stays
 * 20,000 or more from zero, on its own side. */
static int score_value(bool mate, long x)
{
    enum { CP_LIMIT = 1000000, MATE_LIMIT = 10000 };
    if (!mate)
        return x > CP_LIMIT ? CP_LIMIT : x < -CP_LIMIT ? -CP_LIMIT : (int)x;
    if (x > MATE_LIMIT)
        x = MATE_LIMIT;
    else if (x < -MATE_LIMIT)
        x = -MATE_LIMIT;
    return x > 0 ? 30000 - (int)x : -30000 - (int)x;
}

static void read_info(const char *line, go_result_t *res)
{
    const char *v;
    char *end;
    if (info_value(line, "time", &v)) {
        long long t = strtoll(v, &end, 10);
        if (end != v && t >= 0)
            res->engine_ms = t;
    }
    if (info_value(line, "score", &v)) {
        bool mate = strncmp(v, "mate ", 5) == 0;
        if (mate || strncmp(v, "cp ", 3) == 0) {
            const char *num = v + (mate ? 5 : 3);
            long x = strtol(num, &end, 10); /* beyond a long: LONG_MIN or LONG_MAX, clamped */
            if (end != num) {
                res->has_score = true;
                res->score = score_value(mate, x);
            }
        }
    }
}

/* Output waiting from earlier: the engine's death is seen here, and a bestmove nobody asked
 * for (the second one of a go) is a protocol fault. */
static fault_t drain(player_t *pl, const player_env_t *env)
{
    for (;;) {
        char *line;
        proc_status_t s = proc_read_line(&pl->proc, now_us(), env->wake_fd, &line, NULL);
        if (s == PROC_TIMEOUT)
            return FAULT_NONE;
        if (s != PROC_LINE)
            return io_fault(pl, s, "between its moves", "");
        if (first_word_is(line, "bestmove")) {
            protocol_detail(pl, line, "before its next move");
            return FAULT_PROTOCOL;
        }
    }
}

fault_t player_go(player_t *pl, const char *cmds, size_t len, int64_t allowed_us, const player_env_t *env,
                  char *move, size_t movelen, go_result_t *res)
{
    *res = (go_result_t){0, -1, false, 0};
    fault_t f = drain(pl, env);
    if (f != FAULT_NONE)
        return f;
    /* The clock starts before the write: a referee thread descheduled in between must not
     * hand the engine uncharged time. Writing is bounded by the ready timeout as well. */
    int64_t start = now_us(), deadline = start + allowed_us;
    f = send_text(pl, cmds, len, start + env->ready_us, env, "while being sent a position");
    if (f != FAULT_NONE)
        return f;
    pl->in_sync = false;
    pl->searching = true;
    for (;;) {
        if (atomic_load(env->stop))
            return FAULT_ABORT;
        char *line;
        int64_t at;
        proc_status_t s = proc_read_line(&pl->proc, deadline, env->wake_fd, &line, &at);
        if (s == PROC_LINE && at > deadline) {
            /* Too late; a late bestmove is the answer stop would have brought. */
            if (first_word_is(line, "bestmove"))
                pl->searching = false;
            s = PROC_TIMEOUT;
        }
        if (s == PROC_TIMEOUT) {
            res->elapsed_us = now_us() - start;
            return FAULT_TIMEOUT;
        }
        if (s != PROC_LINE)
            return io_fault(pl, s, "during its move", "");
        if (first_word_is(line, "info")) {
            read_info(line, res);
            continue;
        }
        if (!first_word_is(line, "bestmove"))
            continue;
        pl->in_sync = true;
        pl->searching = false;
        res->elapsed_us = at > start ? at - start : 0;
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        p += strlen("bestmove");
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = strcspn(p, " \t");
        if (n >= movelen)
            n = movelen - 1;
        memcpy(move, p, n);
        move[n] = '\0';
        if (pl->proc.log_fd >= 0) {
            char note[160], et[32] = "none";
            if (res->engine_ms >= 0)
                snprintf(et, sizeof et, "%lld ms", (long long)res->engine_ms);
            snprintf(note, sizeof note, "bestmove %.24s charged %lld.%03lld ms, engine time %s", move,
                     (long long)(res->elapsed_us / 1000), (long long)(res->elapsed_us % 1000), et);
            proc_log_note(&pl->proc, note);
        }
        return FAULT_NONE;
    }
}

fault_t player_resync(player_t *pl, const player_env_t *env)
{
    if (!pl->running)
        return FAULT_NONE;
    if (pl->in_sync)
        return FAULT_NONE;
    /* The stopped search's bestmove comes first: an engine may print it after a readyok,
     * and then it would be taken for the answer to the next go. */
    fault_t f;
    if (pl->searching) {
        int64_t deadline = now_us() + env->ready_us;
        f = send_text(pl, "stop\n", 5, deadline, env, "after its search was stopped");
        if (f == FAULT_NONE)
            f = expect(pl, "bestmove", deadline, env, "after its search was stopped");
        if (f != FAULT_NONE)
            return f;
        pl->searching = false;
    }
    int64_t deadline = now_us() + env->ready_us;
    f = send_text(pl, "isready\n", 8, deadline, env, "after its search was stopped");
    if (f == FAULT_NONE)
        f = expect(pl, "readyok", deadline, env, "after its search was stopped");
    if (f == FAULT_NONE || f == FAULT_PROTOCOL)
        pl->in_sync = true;
    return f;
}

void player_quit(player_t *pl, const player_env_t *env)
{
    if (!pl->running)
        return;
    int64_t deadline = now_us() + env->quit_us;
    /* No wake descriptor here: quitting must happen even while the run stops. */
    if (proc_write(&pl->proc, "quit\n", 5, deadline, -1) == PROC_LINE)
        proc_wait_exit(&pl->proc, deadline);
    player_kill(pl);
}

void player_kill(player_t *pl)
{
    proc_close(&pl->proc);
    pl->running = false;
    pl->in_sync = false;
    pl->searching = false;
}
