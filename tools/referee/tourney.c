/* The run: schedule, workers, in-order counting, SPRT, restarts and drops, outputs. */
#include "tourney.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "adjudicate.h"
#include "openings.h"
#include "play.h"
#include "record.h"
#include "report.h"

/* Signal handling needs these two: a handler can reach nothing else. */
static volatile sig_atomic_t g_signals;
static int g_wake_w = -1;

static void on_signal(int sig)
{
    (void)sig;
    if (g_signals) /* a second Ctrl-C: leave now; the engines' supervisors kill what is left */
        _exit(130);
    g_signals = 1;
    int saved = errno;
    ssize_t w = write(g_wake_w, "x", 1);
    (void)w;
    errno = saved;
}

typedef struct {
    int64_t index;
    outcome_t *out;
} done_t;

typedef struct run run_t;

typedef struct {
    run_t *run;
    pthread_t thread;
    bool started;
} worker_t;

struct run {
    const config_t *cfg;
    openings_t openings;
    adjudicator_t *adj;
    player_env_t env;
    play_ctx_t play;
    atomic_bool stop;
    int wake_r, wake_w;
    pairing_t *pairings;
    int pairings_nb;
    int64_t total;
    int log_fd;

    /* Shared with the workers, under lock. */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int64_t next;
    done_t *done;
    size_t done_nb, done_cap;
    int workers_alive;
    engine_state_t *engines;
    bool failed;
    char fatal[256];

    /* -resume: the games of the records file, counted before the workers start. */
    record_entry_t *resumed;
    size_t resumed_nb;
    long keep; /* bytes of the records file kept: its settings and the games read */
    bool replaying;
    char *settings; /* cli_settings(), the head of a new records file */

    /* The main thread's. */
    int64_t processed;
    int64_t decided_at; /* index of the game that decided the SPRT, -1: none */
    int pair_first;     /* half points of the first engine in the last counted even game */
    int64_t pair_index; /* the index of the last counted game, -1: none */
    pair_stats_t *pairs;
    summary_t sum;
    bool log_failed;
    FILE *records, *pgn;

    /* Output, under ui. */
    pthread_mutex_t ui;
    bool tty, line_shown;
    int64_t last_draw, last_counted;
    int64_t t0;
};

/* ---- output ---- */

static void ui_note(run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ui_note(run_t *r, const char *fmt, ...)
{
    pthread_mutex_lock(&r->ui);
    if (r->line_shown)
        fputs("\r\033[K", stdout);
    r->line_shown = false;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
    pthread_mutex_unlock(&r->ui);
}

static void ui_progress(run_t *r, bool force)
{
    int64_t now = now_us();
    bool due;
    if (r->tty)
        due = force || now - r->last_draw >= 100000;
    else
        due = r->cfg->progress_every > 0 && r->sum.counted > 0 &&
              (force || r->sum.counted % r->cfg->progress_every == 0);
    if (!due || (!r->tty && r->sum.counted == r->last_counted))
        return;
    r->last_draw = now;
    r->last_counted = r->sum.counted;
    char line[512];
    r->sum.seconds = (double)(now - r->t0) / 1e6;
    report_progress(&r->sum, line, sizeof line);
    pthread_mutex_lock(&r->ui);
    if (r->tty) {
        fprintf(stdout, "\r\033[K%s", line);
        r->line_shown = true;
    } else {
        fprintf(stdout, "%s\n", line);
    }
    fflush(stdout);
    pthread_mutex_unlock(&r->ui);
}

static void wake_all(run_t *r)
{
    atomic_store(&r->stop, true);
    ssize_t w = write(r->wake_w, "x", 1);
    (void)w;
}

/* ---- schedule ---- */

static game_spec_t spec_of(const run_t *r, int64_t i)
{
    game_spec_t s;
    int64_t pair = i / 2;
    s.index = i;
    s.round = pair / r->pairings_nb;
    s.pairing = (int)(pair % r->pairings_nb);
    const pairing_t *p = &r->pairings[s.pairing];
    /* Each opening twice: the first engine of the pair takes goats, then tigers. */
    s.engine[GOATS] = i % 2 == 0 ? p->a : p->b;
    s.engine[TIGERS] = i % 2 == 0 ? p->b : p->a;
    return s;
}

static bool make_pairings(run_t *r)
{
    const config_t *cfg = r->cfg;
    int n = cfg->engines_nb;
    int count = cfg->format == FORMAT_ROUNDROBIN ? n * (n - 1) / 2 : n - 1;
    r->pairings = calloc((size_t)count, sizeof *r->pairings);
    if (!r->pairings)
        return false;
    int k = 0;
    if (cfg->format == FORMAT_ROUNDROBIN) {
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                r->pairings[k++] = (pairing_t){i, j};
    } else {
        for (int j = 1; j < n; j++)
            r->pairings[k++] = (pairing_t){0, j};
    }
    r->pairings_nb = count;
    return true;
}

/* ---- workers ---- */

/* Chooses, among the worker's two processes, the one for each side: a running process of
 * the right engine is reused; the other slot is restarted by play_game. */
static void assign(player_t slots[SIDE_NB], const game_spec_t *s, player_t *players[SIDE_NB])
{
    bool used[SIDE_NB] = {false, false};
    players[GOATS] = players[TIGERS] = NULL;
    for (int side = 0; side < SIDE_NB; side++)
        for (int k = 0; k < SIDE_NB && !players[side]; k++)
            if (!used[k] && slots[k].running && slots[k].engine == s->engine[side]) {
                players[side] = &slots[k];
                used[k] = true;
            }
    for (int side = 0; side < SIDE_NB; side++)
        for (int k = 0; k < SIDE_NB && !players[side]; k++)
            if (!used[k]) {
                players[side] = &slots[k];
                used[k] = true;
            }
}

/* Hands a finished game to the main thread. */
static void post(run_t *r, int64_t index, outcome_t *o)
{
    pthread_mutex_lock(&r->lock);
    if (r->done_nb == r->done_cap) {
        size_t cap = r->done_cap ? r->done_cap * 2 : 16;
        done_t *d = realloc(r->done, cap * sizeof *d);
        if (!d) {
            /* Without room the result cannot be kept: stop the run. */
            r->failed = true;
            snprintf(r->fatal, sizeof r->fatal, "out of memory");
            pthread_mutex_unlock(&r->lock);
            outcome_free(o);
            free(o);
            wake_all(r);
            return;
        }
        r->done = d;
        r->done_cap = cap;
    }
    r->done[r->done_nb++] = (done_t){index, o};
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
}

/* The wake pipe turns readable for good when the run stops (Ctrl-C, SPRT, failure). */
static bool woken(const run_t *r)
{
    struct pollfd pf = {.fd = r->wake_r, .events = POLLIN};
    return poll(&pf, 1, 0) > 0;
}

static void *worker_main(void *arg)
{
    worker_t *w = arg;
    run_t *r = w->run;
    player_t slots[SIDE_NB];
    player_init(&slots[0]);
    player_init(&slots[1]);
    /* Engines whose process failed in this worker: their next start here is a restart. */
    bool *owed = calloc((size_t)r->cfg->engines_nb, sizeof *owed);
    if (!owed) {
        pthread_mutex_lock(&r->lock);
        r->failed = true;
        snprintf(r->fatal, sizeof r->fatal, "out of memory");
        r->workers_alive--;
        pthread_cond_broadcast(&r->cond);
        pthread_mutex_unlock(&r->lock);
        wake_all(r);
        return NULL;
    }
    for (;;) {
        pthread_mutex_lock(&r->lock);
        bool stop = atomic_load(&r->stop) || r->failed || r->next >= r->total || woken(r);
        int64_t i = stop ? -1 : r->next++;
        game_spec_t s;
        bool dropped = false;
        if (!stop) {
            s = spec_of(r, i);
            dropped = r->engines[s.engine[GOATS]].dropped || r->engines[s.engine[TIGERS]].dropped;
        }
        pthread_mutex_unlock(&r->lock);
        if (stop)
            break;
        outcome_t *o = calloc(1, sizeof *o);
        if (!o) {
            pthread_mutex_lock(&r->lock);
            r->failed = true;
            snprintf(r->fatal, sizeof r->fatal, "out of memory");
            pthread_mutex_unlock(&r->lock);
            wake_all(r);
            break;
        }
        if (dropped) {
            o->unplayed = true;
            post(r, i, o);
            continue;
        }
        player_t *players[SIDE_NB];
        assign(slots, &s, players);
        if (!play_game(&r->play, &s, players, o)) {
            pthread_mutex_lock(&r->lock);
            r->failed = true;
            snprintf(r->fatal, sizeof r->fatal, "game %lld: the referee ran out of memory or a system call failed",
                     (long long)i + 1);
            pthread_mutex_unlock(&r->lock);
            o->aborted = true;
            post(r, i, o);
            wake_all(r);
            break;
        }
        if (!o->aborted && !o->not_started) {
            for (int side = 0; side < SIDE_NB; side++) {
                player_t *pl = players[side];
                if (!pl->running)
                    continue;
                fault_t f = player_resync(pl, &r->env);
                if (f == FAULT_PROTOCOL) {
                    size_t n = strlen(o->reason);
                    snprintf(o->reason + n, sizeof o->reason - n, "; then %s", pl->detail);
                } else if (f != FAULT_NONE && f != FAULT_ABORT && !o->failed[side]) {
                    /* Lost the game some other way (on time) and then stayed silent. */
                    o->failed[side] = true;
                    size_t n = strlen(o->reason);
                    snprintf(o->reason + n, sizeof o->reason - n, "; then %s", pl->detail);
                }
                if (pl->running && pl->conf->restart)
                    player_quit(pl, &r->env);
            }
        }
        for (int side = 0; side < SIDE_NB; side++) {
            int e = s.engine[side];
            if (o->started[side] && owed[e]) {
                o->restarted[side] = true;
                owed[e] = false;
            }
            if (!players[side]->running && players[side]->died)
                owed[e] = true;
        }
        post(r, i, o);
    }
    free(owed);
    player_quit(&slots[0], &r->env);
    player_quit(&slots[1], &r->env);
    pthread_mutex_lock(&r->lock);
    r->workers_alive--;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

/* ---- counting (main thread) ---- */

/* A write to an output failed (errno e): the run stops, and says why on standard error. */
static void output_failed_errno(run_t *r, const char *path, int e)
{
    pthread_mutex_lock(&r->lock);
    if (!r->failed) {
        r->failed = true;
        snprintf(r->fatal, sizeof r->fatal, "cannot write %s: %s", path, strerror(e));
    }
    pthread_mutex_unlock(&r->lock);
    wake_all(r);
}

static void output_failed(run_t *r, const char *path) { output_failed_errno(r, path, errno); }

/* Lines are written to the log by the workers: a failed one is seen here. */
static void check_log(run_t *r)
{
    int e = proc_log_errno();
    if (e && r->cfg->log_file && !r->log_failed) {
        r->log_failed = true;
        output_failed_errno(r, r->cfg->log_file, e);
    }
}

/* A game of the schedule without a record gets a note line in its place, so that --check
 * can tell a missing game from one that was never to be there. */
static void note_missing(run_t *r, int64_t index, const char *why)
{
    if (r->records && !r->replaying && (fprintf(r->records, "; game %lld %s\n\n", (long long)index + 1, why) < 0 ||
                       fflush(r->records) != 0))
        output_failed(r, r->cfg->records_file);
}

/* Consecutive failures, in game order: an engine that fails in -maxfailures games in a row is
 * dropped at that game, and every later game of it is not played, even one a worker had
 * already started, so the count does not depend on the concurrency. */
static bool drop_check(run_t *r, int64_t index, outcome_t *o)
{
    game_spec_t s = spec_of(r, index);
    for (int side = 0; side < SIDE_NB; side++)
        if (r->engines[s.engine[side]].dropped)
            return false;
    for (int side = 0; side < SIDE_NB; side++) {
        engine_state_t *st = &r->engines[s.engine[side]];
        const char *name = r->cfg->engines[s.engine[side]].name;
        /* Counted with the game, so a game not counted (nor one not played because an engine
         * failed to start or get ready for it) brings no restart either. */
        if (!o->start_failed)
            st->restarts += o->restarted[side];
        if (!o->failed[side]) {
            st->failures = 0;
            continue;
        }
        st->failures++;
        if (st->failures >= r->cfg->max_failures) {
            pthread_mutex_lock(&r->lock);
            st->dropped = true;
            pthread_mutex_unlock(&r->lock);
            ui_note(r, "game %lld: %s; %s dropped after %d consecutive failures, its remaining games are not played",
                    (long long)index + 1, o->reason, name, st->failures);
        } else if (!r->replaying) {
            ui_note(r, "game %lld: %s; %s will be restarted", (long long)index + 1, o->reason, name);
        }
    }
    return true;
}

/* Counts a finished game in game order. Only played games reach the results; the others
 * leave a note in the records in their place. */
static void count(run_t *r, int64_t index, outcome_t *o)
{
    bool stopped = o->aborted || o->not_started;
    if (!o->unplayed && !stopped && r->decided_at < 0 && !drop_check(r, index, o)) {
        o->unplayed = true; /* played after its engine was dropped at an earlier game */
        outcome_free(o);
    }
    if (o->unplayed) {
        r->sum.unplayed++;
        note_missing(r, index, "not played: an engine was dropped");
        return;
    }
    if (stopped) {
        if (r->decided_at >= 0)
            return;
        if (o->aborted) {
            r->sum.aborted++;
            note_missing(r, index, "aborted: the run stopped during the game");
        } else {
            /* Counted nowhere, like the games the run never reached; the note keeps the
             * numbering of the records whole, and -resume plays the game. */
            note_missing(r, index, "not started: the run stopped before it");
        }
        return;
    }
    if (r->decided_at >= 0) {
        r->sum.discarded++;
        return;
    }
    if (o->start_failed) {
        char why[600];
        snprintf(why, sizeof why, "not played (%s): %s", term_name(o->term), o->reason);
        r->sum.unplayed++;
        note_missing(r, index, why);
        return;
    }
    game_spec_t s = spec_of(r, index);
    const pairing_t *p = &r->pairings[s.pairing];
    int a_side = s.engine[GOATS] == p->a ? GOATS : TIGERS;
    wld_t *w = &r->pairs[s.pairing].as[a_side];
    int half_points = o->winner < 0 ? 1 : o->winner == a_side ? 2 : 0;
    if (o->winner < 0)
        w->draws++;
    else if (o->winner == a_side)
        w->wins++;
    else
        w->losses++;
    /* Games 2k and 2k+1 are a pair; one that is not counted leaves its pair out. */
    if (index % 2 == 0)
        r->pair_first = half_points;
    else if (r->pair_first >= 0 && r->pair_index == index - 1)
        r->pairs[s.pairing].penta.n[r->pair_first + half_points]++;
    r->pair_index = index;
    r->sum.terms[o->term]++;
    r->sum.counted++;
    if (r->records && o->record && (fputs(o->record, r->records) < 0 || fflush(r->records) != 0))
        output_failed(r, r->cfg->records_file);
    if (r->pgn && o->pgn && (fputs(o->pgn, r->pgn) < 0 || fflush(r->pgn) != 0))
        output_failed(r, r->cfg->pgn_file);
    if (r->cfg->verbose && !r->replaying)
        ui_note(r, "Game %lld: %s (goats) vs %s (tigers): %s, %s (%zu plies)", (long long)index + 1,
                r->cfg->engines[s.engine[GOATS]].name, r->cfg->engines[s.engine[TIGERS]].name,
                o->winner < 0 ? "draw" : o->winner == GOATS ? "goats win" : "tigers win", o->reason, o->plies);
    /* The SPRT looks at whole pairs, so both colours of an opening are always in. */
    if (r->cfg->sprt.on && index % 2 == 1) {
        r->sum.llr = r->cfg->sprt.trinomial
                         ? sprt_llr(pair_total(&r->pairs[0]), r->cfg->sprt.elo0, r->cfg->sprt.elo1)
                         : sprt_llr_penta(r->pairs[0].penta, r->cfg->sprt.elo0, r->cfg->sprt.elo1);
        r->sum.verdict = sprt_decide(r->sum.llr, r->sum.lower, r->sum.upper);
        if (r->sum.verdict != SPRT_CONTINUE) {
            r->decided_at = index;
            wake_all(r);
        }
    }
}

/* Takes the finished game with this index, if it is there. */
static outcome_t *take_done(run_t *r, int64_t index)
{
    for (size_t k = 0; k < r->done_nb; k++)
        if (r->done[k].index == index) {
            outcome_t *o = r->done[k].out;
            r->done[k] = r->done[--r->done_nb];
            return o;
        }
    return NULL;
}

static void main_loop(run_t *r)
{
    struct timespec ts;
    for (;;) {
        outcome_t *batch[64];
        int nb = 0;
        pthread_mutex_lock(&r->lock);
        for (;;) {
            while (nb < 64 && (batch[nb] = take_done(r, r->processed + nb)) != NULL)
                nb++;
            if (nb > 0 || r->workers_alive == 0 || (g_signals && !r->sum.interrupted))
                break;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            ts.tv_nsec += 100 * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&r->cond, &r->lock, &ts);
        }
        /* Once every worker is gone nothing more can arrive; leftovers are counted after. */
        bool finished = r->workers_alive == 0;
        pthread_mutex_unlock(&r->lock);
        if (g_signals && !r->sum.interrupted) {
            r->sum.interrupted = true;
            wake_all(r);
            ui_note(r, "Interrupted: stopping the engines and writing the results");
        }
        for (int k = 0; k < nb; k++) {
            count(r, r->processed + k, batch[k]);
            outcome_free(batch[k]);
            free(batch[k]);
            /* After each game: a batch that crosses a multiple of -progress still shows it. */
            ui_progress(r, false);
        }
        r->processed += nb;
        check_log(r);
        if (finished && nb == 0)
            break;
    }
}

/* ---- setup ---- */

/* -resume: the records file keeps its settings and its games up to the first one that must
 * be played again; the rest (an aborted or unfinished game and what follows) is cut. */
static int cut_for_resume(run_t *r, char *msg, size_t msglen)
{
    const config_t *cfg = r->cfg;
    if (truncate(cfg->records_file, r->keep) < 0 && errno != ENOENT) {
        snprintf(msg, msglen, "cannot cut %s for -resume: %s", cfg->records_file, strerror(errno));
        return -1;
    }
    return 0;
}

/* Opens the outputs; -1 when one cannot be opened (bad input), -2 when a write fails. */
static int open_outputs(run_t *r, char *msg, size_t msglen)
{
    const config_t *cfg = r->cfg;
    if (cfg->resume && cut_for_resume(r, msg, msglen) < 0)
        return -1;
    if (cfg->records_file && !(r->records = fopen(cfg->records_file, cfg->resume ? "ae" : "we"))) {
        snprintf(msg, msglen, "cannot write %s: %s", cfg->records_file, strerror(errno));
        return -1;
    }
    /* A new file starts with the settings (a file kept by -resume has them, or had games
     * before settings were written). */
    if (r->records && r->keep == 0 &&
        (fputs(r->settings, r->records) < 0 || fflush(r->records) != 0)) {
        snprintf(msg, msglen, "cannot write %s: %s", cfg->records_file, strerror(errno));
        return -2;
    }
    /* The PGN holds the games counted: with -resume, those of the records, rebuilt from them
     * whatever the PGN file held (or whether it was there at all). */
    if (cfg->pgn_file && !(r->pgn = fopen(cfg->pgn_file, "we"))) {
        snprintf(msg, msglen, "cannot write %s: %s", cfg->pgn_file, strerror(errno));
        return -1;
    }
    if (r->pgn && cfg->resume && r->keep > 0 &&
        (!record_write_pgn(cfg->records_file, r->keep, r->pgn, msg, msglen) || fflush(r->pgn) != 0)) {
        if (!msg[0])
            snprintf(msg, msglen, "cannot write %s: %s", cfg->pgn_file, strerror(errno));
        return -2;
    }
    if (cfg->log_file &&
        (r->log_fd = open(cfg->log_file, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644)) < 0) {
        snprintf(msg, msglen, "cannot write %s: %s", cfg->log_file, strerror(errno));
        return -1;
    }
    return 0;
}

/* -resume: the records must be this run's: made with the same settings (when the file has
 * them), and every game read where this run's schedule puts it (engines, opening, rule,
 * limits, move limit). Nothing is changed when they are not. */
static bool resume_read(run_t *r, char *msg, size_t msglen)
{
    const config_t *cfg = r->cfg;
    settings_t was = {0}, now = {0};
    long head_end = 0;
    if (!record_scan(cfg->records_file, &r->resumed, &r->resumed_nb, &was, &head_end, msg, msglen))
        return false;
    bool ok = settings_parse(&now, r->settings);
    char diff[1024];
    if (!ok)
        snprintf(msg, msglen, "out of memory");
    else if (was.n > 0 && settings_differ(&was, &now, diff, sizeof diff)) {
        sbuf_t b = {0};
        sb_addf(&b, "-resume: %s was made with other settings: %s", cfg->records_file, diff);
        snprintf(msg, msglen, "%s", b.s ? b.s : "-resume: the records were made with other settings");
        sb_free(&b);
        ok = false;
    }
    settings_free(&was);
    settings_free(&now);
    if (!ok)
        return false;
    /* Only games --check accepts are counted: a record whose result its moves contradict
     * would change the totals, the SPRT and the PGN. */
    long keep = r->resumed_nb ? r->resumed[r->resumed_nb - 1].end : head_end;
    char bad[400];
    if (r->resumed_nb > 0 && !record_check_head(cfg->records_file, keep, bad, sizeof bad)) {
        snprintf(msg, msglen, "-resume: %s holds a game that --check rejects: %s", cfg->records_file, bad);
        return false;
    }
    if ((int64_t)r->resumed_nb > r->total) {
        snprintf(msg, msglen, "-resume: %s holds %zu games, this run has %lld", cfg->records_file, r->resumed_nb,
                 (long long)r->total);
        return false;
    }
    for (size_t k = 0; k < r->resumed_nb; k++) {
        const record_entry_t *e = &r->resumed[k];
        if (!e->played)
            continue;
        game_spec_t s = spec_of(r, (int64_t)k);
        opening_t op;
        if (!openings_get(&r->openings, s.round, &op)) {
            snprintf(msg, msglen, "out of memory");
            return false;
        }
        char lim[SIDE_NB][128], tc[300];
        for (int side = 0; side < SIDE_NB; side++)
            limits_describe(&cfg->engines[s.engine[side]], lim[side], sizeof lim[side]);
        record_timecontrol(lim[GOATS], lim[TIGERS], tc, sizeof tc);
        const char *why = strcmp(e->goats, cfg->engines[s.engine[GOATS]].name) != 0 ||
                                  strcmp(e->tigers, cfg->engines[s.engine[TIGERS]].name) != 0
                              ? "other engines"
                          : strcmp(e->opening, op.obx) != 0 ? "another opening (give the run's -seed and -openings)"
                          : strcmp(e->rule, rule_name(cfg->rule)) != 0 ? "another repetition rule"
                          : strcmp(e->timecontrol, tc) != 0          ? "other limits"
                          : e->maxmoves != cfg->maxmoves               ? "another -maxmoves"
                                                                        : NULL;
        if (why) {
            snprintf(msg, msglen, "-resume: game %lld of %s was played with %s than this run's", (long long)k + 1,
                     cfg->records_file, why);
            return false;
        }
    }
    r->keep = keep;
    /* The PGN is rebuilt from the records: a game that cannot be is found before anything
     * is changed. */
    if (cfg->pgn_file && r->keep > 0 && !record_write_pgn(cfg->records_file, r->keep, NULL, msg, msglen))
        return false;
    return true;
}

/* Counts the games read for -resume as if they had just been played. */
static void resume_count(run_t *r)
{
    r->replaying = true;
    for (size_t k = 0; k < r->resumed_nb; k++) {
        const record_entry_t *e = &r->resumed[k];
        outcome_t o;
        memset(&o, 0, sizeof o);
        o.unplayed = !e->played && e->term == TERM_NONE;
        o.start_failed = !e->played && e->term != TERM_NONE;
        o.winner = e->winner;
        o.term = e->term;
        o.plies = e->plies;
        snprintf(o.reason, sizeof o.reason, "%s", e->reason);
        /* The failures of a process, as far as the record tells. */
        int side = record_fault_side(e->reason);
        if (side >= 0 && (e->term == TERM_CRASH || e->term == TERM_STALL || e->term == TERM_DISCONNECT ||
                          strstr(e->reason, "; then ")))
            o.failed[side] = true;
        count(r, (int64_t)k, &o);
    }
    r->processed = r->next = (int64_t)r->resumed_nb;
    r->replaying = false;
}

static void install_signals(struct sigaction old[3])
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old[0]);
    sigaction(SIGTERM, &sa, &old[1]);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &old[2]);
    /* waitpid must see our children: never let an inherited SIG_IGN reap them. */
    sa.sa_handler = SIG_DFL;
    sigaction(SIGCHLD, &sa, NULL);
}

static void restore_signals(const struct sigaction old[3])
{
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
    sigaction(SIGPIPE, &old[2], NULL);
}

static void print_header(run_t *r)
{
    const config_t *cfg = r->cfg;
    char lim[128], other[128];
    limits_describe(&cfg->engines[0], lim, sizeof lim);
    for (int k = 1; k < cfg->engines_nb; k++) {
        limits_describe(&cfg->engines[k], other, sizeof other);
        if (strcmp(lim, other) != 0)
            snprintf(lim, sizeof lim, "limits per engine");
    }
    printf("baghchal-referee: %s of %d engines (", format_name(cfg->format), cfg->engines_nb);
    for (int k = 0; k < cfg->engines_nb; k++)
        printf("%s%s", k ? ", " : "", cfg->engines[k].name);
    printf("), %lld games, %s, repetition %s, concurrency %d%s, seed %llu\n", (long long)r->total, lim,
           rule_name(cfg->rule), cfg->concurrency, cfg->concurrency_auto ? " (auto)" : "",
           (unsigned long long)cfg->seed);
    int cores = cli_cores();
    if (cfg->concurrency * 2 > cores)
        printf("warning: %d game%s at once run %d engines on %d core%s: under clocks, engines starved of CPU "
               "lose on time (-concurrency auto plays %d at once here)\n",
               cfg->concurrency, cfg->concurrency == 1 ? "" : "s", cfg->concurrency * 2, cores, cores == 1 ? "" : "s",
               cores / 2 > 0 ? cores / 2 : 1);
    fflush(stdout);
}

int tourney_run(const config_t *cfg)
{
    run_t *r = calloc(1, sizeof *r);
    if (!r) {
        fputs("baghchal-referee: out of memory\n", stderr);
        return 2;
    }
    r->cfg = cfg;
    r->log_fd = -1;
    r->decided_at = -1;
    r->pair_first = -1;
    r->pair_index = -1;
    r->wake_r = r->wake_w = -1;
    r->t0 = now_us();
    r->tty = isatty(STDOUT_FILENO);
    atomic_init(&r->stop, false);
    char msg[512] = "";
    int status = 1; /* until the run starts, a failure is a problem with the input */
    bool locks = false;
    worker_t *workers = NULL;
    struct sigaction old[3];
    bool signals = false;

    if (!openings_load(&r->openings, cfg, msg, sizeof msg))
        goto out;
    if (cfg->tb_dir && !(r->adj = adj_open(cfg->tb_dir, msg, sizeof msg)))
        goto out;
    if (!make_pairings(r) || !(r->engines = calloc((size_t)cfg->engines_nb, sizeof *r->engines)) ||
        !(r->pairs = calloc((size_t)r->pairings_nb, sizeof *r->pairs)) ||
        !(workers = calloc((size_t)cfg->concurrency, sizeof *workers))) {
        snprintf(msg, sizeof msg, "out of memory");
        goto out;
    }
    r->total = cfg->rounds * 2 * r->pairings_nb;
    if (!(r->settings = cli_settings(cfg))) {
        snprintf(msg, sizeof msg, "out of memory");
        goto out;
    }
    if (cfg->resume && !resume_read(r, msg, sizeof msg))
        goto out;
    int opened = open_outputs(r, msg, sizeof msg);
    if (opened < 0) {
        status = opened == -2 ? 2 : 1;
        goto out;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0) {
        snprintf(msg, sizeof msg, "cannot make a pipe: %s", strerror(errno));
        goto out;
    }
    r->wake_r = fds[0];
    r->wake_w = fds[1];
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&r->lock, NULL);
    pthread_mutex_init(&r->ui, NULL);
    pthread_cond_init(&r->cond, &ca);
    pthread_condattr_destroy(&ca);
    locks = true;

    status = 2;
    r->env = (player_env_t){cfg->init_timeout_ms * 1000, cfg->ready_timeout_ms * 1000, cfg->quit_timeout_ms * 1000,
                            cfg->rule, r->wake_r, &r->stop, r->log_fd};
    r->play = (play_ctx_t){cfg, &r->env, &r->openings, r->adj};
    r->sum = (summary_t){.cfg = cfg, .pairings = r->pairings, .pairings_nb = r->pairings_nb, .pairs = r->pairs,
                         .engines = r->engines, .scheduled = r->total};
    if (cfg->sprt.on)
        sprt_bounds(cfg->sprt.alpha, cfg->sprt.beta, &r->sum.lower, &r->sum.upper);
    if (cfg->resume) {
        resume_count(r);
        printf("baghchal-referee: resuming from %s: %zu games read, the run goes on at game %zu\n",
               cfg->records_file, r->resumed_nb, r->resumed_nb + 1);
    }

    g_signals = 0;
    g_wake_w = r->wake_w;
    install_signals(old);
    signals = true;
    proc_become_subreaper();
    print_header(r);

    /* Workers leave SIGINT and SIGTERM to the main thread. */
    sigset_t block, prev;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &prev);
    for (int k = 0; k < cfg->concurrency; k++) {
        workers[k].run = r;
        pthread_mutex_lock(&r->lock);
        r->workers_alive++;
        pthread_mutex_unlock(&r->lock);
        if (pthread_create(&workers[k].thread, NULL, worker_main, &workers[k]) != 0) {
            pthread_mutex_lock(&r->lock);
            r->workers_alive--;
            r->failed = true;
            snprintf(r->fatal, sizeof r->fatal, "cannot start a worker thread");
            pthread_mutex_unlock(&r->lock);
            wake_all(r);
            break;
        }
        workers[k].started = true;
    }
    pthread_sigmask(SIG_SETMASK, &prev, NULL);

    main_loop(r);
    for (int k = 0; k < cfg->concurrency; k++)
        if (workers[k].started)
            pthread_join(workers[k].thread, NULL);
    /* Anything still posted (nothing, unless a worker failed mid-way) is counted in order. */
    while (r->done_nb > 0) {
        size_t best = 0;
        for (size_t k = 1; k < r->done_nb; k++)
            if (r->done[k].index < r->done[best].index)
                best = k;
        done_t d = r->done[best];
        r->done[best] = r->done[--r->done_nb];
        count(r, d.index, d.out);
        outcome_free(d.out);
        free(d.out);
    }

    check_log(r); /* the engines' last lines, written as they quit */
    if (r->tty && r->line_shown) {
        fputs("\r\033[K", stdout);
        r->line_shown = false;
    }
    r->sum.seconds = (double)(now_us() - r->t0) / 1e6;
    r->sum.fatal = r->failed ? r->fatal : NULL;
    if (!r->tty)
        ui_progress(r, true);
    report_print(&r->sum, stdout);
    fflush(stdout);
    status = r->failed ? 2 : r->sum.interrupted ? 130 : 0;
    /* One line on standard error: the first write that failed. */
    if (r->failed)
        snprintf(msg, sizeof msg, "%s", r->fatal);
    if (r->records && fclose(r->records) != 0 && status != 2) {
        snprintf(msg, sizeof msg, "cannot write %s: %s", cfg->records_file, strerror(errno));
        status = 2;
    }
    r->records = NULL;
    if (r->pgn && fclose(r->pgn) != 0 && status != 2) {
        snprintf(msg, sizeof msg, "cannot write %s: %s", cfg->pgn_file, strerror(errno));
        status = 2;
    }
    r->pgn = NULL;
    char jmsg[512];
    if (cfg->json_file && !report_json(&r->sum, cfg->json_file, jmsg, sizeof jmsg) && status != 2) {
        snprintf(msg, sizeof msg, "%s", jmsg);
        status = 2;
    }
    if (status != 2)
        msg[0] = '\0';
out:
    if (msg[0])
        fprintf(stderr, "baghchal-referee: %s\n", msg);
    if (signals) {
        restore_signals(old);
        g_wake_w = -1;
    }
    if (locks) {
        pthread_mutex_destroy(&r->lock);
        pthread_mutex_destroy(&r->ui);
        pthread_cond_destroy(&r->cond);
    }
    if (r->records)
        fclose(r->records);
    if (r->pgn)
        fclose(r->pgn);
    if (r->log_fd >= 0)
        close(r->log_fd);
    if (r->wake_r >= 0)
        close(r->wake_r);
    if (r->wake_w >= 0)
        close(r->wake_w);
    for (size_t k = 0; k < r->done_nb; k++) {
        outcome_free(r->done[k].out);
        free(r->done[k].out);
    }
    free(r->done);
    free(r->resumed);
    free(r->settings);
    free(workers);
    free(r->pairs);
    free(r->engines);
    free(r->pairings);
    adj_close(r->adj);
    openings_free(&r->openings);
    free(r);
    return status;
}
