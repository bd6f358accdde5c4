/* One game: start or reuse the engines, send positions and clocks, check each move with
 * libbaghchal, and end the game on a rule, an adjudication or a fault. */
#include "play.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "movegen.h"
#include "record.h"

typedef struct {
    bool timed;           /* has a clock */
    int64_t remaining_us; /* on its clock */
    int64_t moves;        /* moves made by this side in the game */
} clock_t_;

static const char *side_name(int side) { return side == GOATS ? "goats" : "tigers"; }

/* Engine text in a reason: printable, no quotes or backslashes, short. */
static void sanitize(const char *in, char *out, size_t len)
{
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && k + 4 < len && k < 24; p++)
        out[k++] = (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\') ? '?' : (char)*p;
    if (*in && k >= 24 && k + 4 < len) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
}

static void lose(outcome_t *out, int side, term_t term, const char *fmt, const char *a, const char *b)
{
    out->winner = !side;
    out->term = term;
    snprintf(out->reason, sizeof out->reason, fmt, a, b);
}

/* A fault of the player on side. Returns false for a referee failure. */
static bool fault_result(outcome_t *out, int side, fault_t f, const player_t *pl)
{
    char text[sizeof pl->detail];
    snprintf(text, sizeof text, "%s", pl->detail);
    for (char *p = text; *p; p++)
        if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
            *p = '?';
    switch (f) {
    case FAULT_CRASH:
        lose(out, side, TERM_CRASH, "%s (%s)", text, side_name(side));
        break;
    case FAULT_DISCONNECT:
        lose(out, side, TERM_DISCONNECT, "%s (%s)", text, side_name(side));
        break;
    case FAULT_STALL:
        lose(out, side, TERM_STALL, "%s (%s)", text, side_name(side));
        break;
    case FAULT_PROTOCOL:
        /* The engine is still in sync and keeps its process. */
        lose(out, side, TERM_PROTOCOL, "%s (%s)", text, side_name(side));
        return true;
    case FAULT_ABORT:
        out->aborted = true;
        return true;
    default:
        return false;
    }
    out->failed[side] = true;
    return true;
}

static void rules_result(outcome_t *out, game_result_t r)
{
    out->winner = r.winner;
    switch (r.reason) {
    case RESULT_FIVE_CAPTURED:
        out->term = TERM_FIVE_CAPTURED;
        break;
    case RESULT_TIGERS_TRAPPED:
        out->term = TERM_TIGERS_TRAPPED;
        break;
    case RESULT_GOATS_STUCK:
        out->term = TERM_GOATS_STUCK;
        break;
    default:
        out->term = TERM_REPETITION;
        break;
    }
    snprintf(out->reason, sizeof out->reason, "%s", result_describe(r));
}

/* The go line for the side to move: every clock in play, then the mover's own limits. */
static void go_line(sbuf_t *b, const config_t *cfg, const game_spec_t *spec, const clock_t_ clocks[SIDE_NB],
                    int side)
{
    sb_add(b, "go");
    for (int s = 0; s < SIDE_NB; s++) {
        const engine_conf_t *e = &cfg->engines[spec->engine[s]];
        if (!clocks[s].timed)
            continue;
        int64_t ms = clocks[s].remaining_us > 0 ? clocks[s].remaining_us / 1000 : 0;
        sb_addf(b, " %ctime %lld %cinc %lld", s == GOATS ? 'g' : 't', (long long)ms, s == GOATS ? 'g' : 't',
                (long long)e->tc.inc_ms);
    }
    const engine_conf_t *me = &cfg->engines[spec->engine[side]];
    if (me->has_tc && me->tc.moves > 0)
        sb_addf(b, " movestogo %lld", (long long)(me->tc.moves - clocks[side].moves % me->tc.moves));
    if (me->movetime_ms)
        sb_addf(b, " movetime %lld", (long long)me->movetime_ms);
    if (me->depth)
        sb_addf(b, " depth %d", me->depth);
    if (me->nodes)
        sb_addf(b, " nodes %lld", (long long)me->nodes);
    sb_add(b, "\n");
}

/* A fault before the game started: the game is not played, and says why. */
static bool start_fault(outcome_t *out, int side, fault_t f, const player_t *pl)
{
    if (f == FAULT_ABORT) {
        out->not_started = true;
        return true;
    }
    if (!fault_result(out, side, f, pl))
        return false;
    out->start_failed = true;
    return true;
}

/* Starts (or reuses) the players and sends ucinewgame. A failure means the game is not
 * played. */
static bool prepare(const play_ctx_t *ctx, const game_spec_t *spec, player_t *players[SIDE_NB], outcome_t *out)
{
    for (int side = 0; side < SIDE_NB; side++) {
        player_t *pl = players[side];
        const engine_conf_t *conf = &ctx->cfg->engines[spec->engine[side]];
        fault_t f = FAULT_NONE;
        if (pl->running && (pl->engine != spec->engine[side] || !pl->in_sync))
            player_quit(pl, ctx->env);
        if (!pl->running) {
            out->started[side] = true;
            f = player_start(pl, conf, spec->engine[side], ctx->env);
        }
        if (f == FAULT_NONE)
            f = player_new_game(pl, ctx->env);
        if (f != FAULT_NONE)
            return start_fault(out, side, f, pl);
    }
    return true;
}

/* The state of one game in progress. */
typedef struct {
    const play_ctx_t *ctx;
    const game_spec_t *spec;
    player_t **players;
    outcome_t *out;
    game_t game;
    clock_t_ clocks[SIDE_NB];
    sbuf_t pos; /* "position ... moves ..." so far */
    sbuf_t cmd; /* what is sent for the next move */
    /* Score adjudication: consecutive moves of each side with its score at or below -resign
     * score (and the score of its last move), consecutive plies within the draw score. */
    int64_t resign_streak[SIDE_NB];
    bool has_score[SIDE_NB];
    int last_score[SIDE_NB];
    int64_t draw_streak;
} state_t;

static const engine_conf_t *conf_of(const state_t *s, int side)
{
    return &s->ctx->cfg->engines[s->spec->engine[side]];
}

/* cutechess-cli's rules: a side whose score stays at least `score` below zero for `movecount`
 * moves loses (with twosided, only while its opponent's score agrees); both scores within
 * `score` of zero for `movecount` moves each, after `movenumber` full moves, is a draw. */
static void track_score(state_t *s, int side, const go_result_t *res)
{
    const config_t *cfg = s->ctx->cfg;
    s->has_score[side] = res->has_score;
    s->last_score[side] = res->score;
    if (cfg->resign.on) {
        bool low = res->has_score && res->score <= -cfg->resign.score;
        s->resign_streak[side] = low ? s->resign_streak[side] + 1 : 0;
    }
    if (cfg->drawadj.on) {
        bool near = res->has_score && res->score <= cfg->drawadj.score && res->score >= -cfg->drawadj.score;
        s->draw_streak = near ? s->draw_streak + 1 : 0;
    }
}

static bool score_adjudicated(state_t *s)
{
    const config_t *cfg = s->ctx->cfg;
    outcome_t *out = s->out;
    if (cfg->resign.on) {
        for (int side = 0; side < SIDE_NB; side++) {
            if (s->resign_streak[side] < cfg->resign.movecount)
                continue;
            if (cfg->resign.twosided && !(s->has_score[!side] && s->last_score[!side] >= cfg->resign.score))
                continue;
            out->winner = !side;
            out->term = TERM_SCORE;
            snprintf(out->reason, sizeof out->reason,
                     "%s win by score: %s (%s) scored %lld cp or less for %lld moves", side_name(!side),
                     conf_of(s, side)->name, side_name(side), (long long)-cfg->resign.score,
                     (long long)cfg->resign.movecount);
            return true;
        }
    }
    if (cfg->drawadj.on && s->draw_streak >= 2 * cfg->drawadj.movecount &&
        (int64_t)s->game.count >= 2 * cfg->drawadj.movenumber) {
        out->winner = -1;
        out->term = TERM_SCORE;
        snprintf(out->reason, sizeof out->reason,
                 "draw by score: both engines within %lld cp of zero for %lld moves each", (long long)cfg->drawadj.score,
                 (long long)cfg->drawadj.movecount);
        return true;
    }
    return false;
}

/* Ends the game before the next move if the rules, the move limit or the database say so. */
static bool adjudicated(state_t *s)
{
    const config_t *cfg = s->ctx->cfg;
    outcome_t *out = s->out;
    game_result_t r = game_result(&s->game);
    if (r.reason != RESULT_NONE) {
        rules_result(out, r);
        return true;
    }
    if (cfg->maxmoves > 0 && (int64_t)s->game.count >= cfg->maxmoves) {
        out->term = TERM_MOVE_LIMIT;
        snprintf(out->reason, sizeof out->reason, "draw: %zu plies played without a result", s->game.count);
        return true;
    }
    if (s->ctx->adj) {
        int w = adj_probe(s->ctx->adj, &s->game);
        if (w >= 0) {
            out->winner = w;
            out->term = TERM_DATABASE;
            snprintf(out->reason, sizeof out->reason, "%s win with perfect play (database)", side_name(w));
            return true;
        }
    }
    return score_adjudicated(s);
}

/* How long the side to move may take: its clock, or its movetime, each with its margin;
 * without either, the stall timeout. */
static int64_t allowed_us(const state_t *s, int side, bool *timed)
{
    const engine_conf_t *me = conf_of(s, side);
    int64_t allowed = INT64_MAX;
    if (s->clocks[side].timed)
        allowed = s->clocks[side].remaining_us + me->margin_ms * 1000;
    if (me->movetime_ms && (me->movetime_ms + me->margin_ms) * 1000 < allowed)
        allowed = (me->movetime_ms + me->margin_ms) * 1000;
    *timed = allowed != INT64_MAX;
    return *timed ? allowed : s->ctx->cfg->stall_timeout_ms * 1000;
}

static void timeout_result(state_t *s, int side, int64_t allowed, bool timed)
{
    const engine_conf_t *me = conf_of(s, side);
    char a[96], b[160];
    snprintf(a, sizeof a, "%s (%s)", me->name, side_name(side));
    if (timed) {
        snprintf(b, sizeof b, "%lld ms (clock %lld ms, margin %lld ms)", (long long)(allowed / 1000),
                 (long long)(s->clocks[side].timed ? s->clocks[side].remaining_us / 1000 : me->movetime_ms),
                 (long long)me->margin_ms);
        lose(s->out, side, TERM_TIME_FORFEIT, "%s lost on time: no bestmove within %s", a, b);
    } else {
        snprintf(b, sizeof b, "%lld ms", (long long)s->ctx->cfg->stall_timeout_ms);
        lose(s->out, side, TERM_STALL, "%s gave no bestmove within the stall timeout of %s", a, b);
    }
}

static void charge_clock(state_t *s, int side, int64_t elapsed)
{
    const engine_conf_t *me = conf_of(s, side);
    clock_t_ *c = &s->clocks[side];
    c->moves++;
    if (!c->timed)
        return;
    c->remaining_us -= elapsed;
    if (c->remaining_us < 0) /* overdrawn within the margin */
        c->remaining_us = 0;
    c->remaining_us += me->tc.inc_ms * 1000;
    if (me->tc.moves > 0 && c->moves % me->tc.moves == 0)
        c->remaining_us += me->tc.base_ms * 1000;
}

static void illegal_result(state_t *s, int side, const char *text, char *msg)
{
    char a[96], b[300], clean[32];
    snprintf(a, sizeof a, "%s (%s)", conf_of(s, side)->name, side_name(side));
    sanitize(text, clean, sizeof clean);
    if (!text[0]) {
        snprintf(b, sizeof b, "a bestmove without a move");
    } else if (strcmp(text, "(none)") == 0) {
        move_t list[MAX_MOVES];
        snprintf(b, sizeof b, "bestmove (none) with %d legal moves", game_legal_moves(&s->game, list));
    } else {
        for (char *q = msg; *q; q++)
            if (*q == '"' || *q == '\\' || (unsigned char)*q < 0x20)
                *q = '?';
        snprintf(b, sizeof b, "'%s': %s", clean, msg);
    }
    lose(s->out, side, TERM_ILLEGAL_MOVE, "%s sent an illegal move, %s", a, b);
}

/* Asks the side to move for its move and plays it. Returns false when the game is over
 * (or the referee failed: *ok is then false). */
static bool next_move(state_t *s, bool *ok)
{
    int side = game_position(&s->game)->side;
    player_t *pl = s->players[side];
    bool timed;
    int64_t allowed = allowed_us(s, side, &timed);
    s->cmd.len = 0;
    sb_addn(&s->cmd, s->pos.s ? s->pos.s : "", s->pos.len);
    sb_add(&s->cmd, "\n");
    go_line(&s->cmd, s->ctx->cfg, s->spec, s->clocks, side);
    if (s->cmd.failed || s->pos.failed)
        return *ok = false;

    char text[64];
    go_result_t res;
    fault_t f = player_go(pl, s->cmd.s, s->cmd.len, allowed, s->ctx->env, text, sizeof text, &res);
    int64_t elapsed = res.elapsed_us;
    if (f == FAULT_TIMEOUT) {
        timeout_result(s, side, allowed, timed);
        return false;
    }
    if (f != FAULT_NONE) {
        *ok = fault_result(s->out, side, f, pl);
        return false;
    }
    charge_clock(s, side, elapsed);
    track_score(s, side, &res);
    char msg[200];
    bc_error_t e = game_play_text(&s->game, text, msg, sizeof msg);
    if (e == BC_ERR_NO_MEMORY)
        return *ok = false;
    if (e != BC_OK) {
        illegal_result(s, side, text, msg);
        return false;
    }
    char mt[MOVE_TEXT_LEN];
    move_format(s->game.moves[s->game.count - 1], mt);
    sb_add(&s->pos, s->game.count == 1 ? " moves " : " ");
    sb_add(&s->pos, mt);
    return true;
}

static bool make_record(const state_t *s, const opening_t *op, const char *date)
{
    const config_t *cfg = s->ctx->cfg;
    char limits[SIDE_NB][128];
    for (int side = 0; side < SIDE_NB; side++)
        limits_describe(conf_of(s, side), limits[side], sizeof limits[side]);
    record_info_t ri = {
        .event = cfg->event ? cfg->event : "baghchal-referee",
        .game_no = s->spec->index + 1,
        .round_no = s->spec->round + 1,
        .names = {conf_of(s, GOATS)->name, conf_of(s, TIGERS)->name},
        .limits = {limits[GOATS], limits[TIGERS]},
        .date = date,
        .opening_obx = op->obx,
        .rule = cfg->rule,
        .maxmoves = cfg->maxmoves,
        .winner = s->out->winner,
        .term = s->out->term,
        .reason = s->out->reason,
        .game = &s->game,
    };
    s->out->plies = s->game.count;
    s->out->record = record_format(&ri);
    if (cfg->pgn_file && !(s->out->pgn = record_format_pgn(&ri)))
        return false;
    return s->out->record != NULL;
}

bool play_game(const play_ctx_t *ctx, const game_spec_t *spec, player_t *players[SIDE_NB], outcome_t *out)
{
    memset(out, 0, sizeof *out);
    out->winner = -1;
    opening_t op;
    if (!openings_get(ctx->openings, spec->round, &op))
        return false;
    char date[16];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y.%m.%d", &tm);

    state_t s = {.ctx = ctx, .spec = spec, .players = players, .out = out};
    if (!game_init(&s.game, &op.pos, &op.meta, ctx->cfg->rule))
        return false;
    for (int side = 0; side < SIDE_NB; side++) {
        const engine_conf_t *e = conf_of(&s, side);
        s.clocks[side] = (clock_t_){e->has_tc, e->has_tc ? e->tc.base_ms * 1000 : 0, 0};
    }
    position_t start;
    position_set_start(&start);
    if (position_same(&op.pos, &start) && op.pos.in_hand == BC_GOATS_TOTAL && op.meta.ply == 0)
        sb_add(&s.pos, "position startpos");
    else
        sb_addf(&s.pos, "position obx %s", op.obx);

    bool ok = prepare(ctx, spec, players, out);
    bool started = ok && !out->not_started && !out->start_failed;
    if (started)
        while (!adjudicated(&s) && next_move(&s, &ok))
            ;
    if (started && ok && !out->aborted)
        ok = make_record(&s, &op, date);
    sb_free(&s.pos);
    sb_free(&s.cmd);
    game_free(&s.game);
    return ok;
}

void outcome_free(outcome_t *o)
{
    free(o->record);
    free(o->pgn);
    o->record = o->pgn = NULL;
}
