/* Progress line, final tables and the JSON summary. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

wld_t pair_total(const pair_stats_t *p)
{
    wld_t t = {p->as[GOATS].wins + p->as[TIGERS].wins, p->as[GOATS].losses + p->as[TIGERS].losses,
               p->as[GOATS].draws + p->as[TIGERS].draws};
    return t;
}

static int64_t games_of(wld_t r) { return r.wins + r.losses + r.draws; }

static void fmt_elo(char *buf, size_t len, elo_t e)
{
    char err[32];
    if (isinf(e.error))
        snprintf(err, sizeof err, "inf");
    else
        snprintf(err, sizeof err, "%.1f", e.error);
    if (isinf(e.elo))
        snprintf(buf, len, "%sinf +- %s", e.elo > 0 ? "+" : "-", err);
    else
        snprintf(buf, len, "%.1f +- %s", e.elo + 0.0 == 0.0 ? 0.0 : e.elo, err);
}

void report_progress(const summary_t *s, char *buf, size_t len)
{
    int n = snprintf(buf, len, "Games %lld/%lld", (long long)s->counted, (long long)s->scheduled);
    if (n < 0 || (size_t)n >= len)
        return;
    if (s->pairings_nb != 1) {
        if (s->unplayed)
            snprintf(buf + n, len - (size_t)n, " (%lld not played)", (long long)s->unplayed);
        return;
    }
    const pairing_t *p = &s->pairings[0];
    wld_t t = pair_total(&s->pairs[0]);
    if (games_of(t) == 0) {
        snprintf(buf + n, len - (size_t)n, ": %s vs %s, no games counted", s->cfg->engines[p->a].name,
                 s->cfg->engines[p->b].name);
        return;
    }
    elo_t e = elo_estimate(t);
    char elo[64];
    fmt_elo(elo, sizeof elo, e);
    int m = snprintf(buf + n, len - (size_t)n, ": %s %.1f - %.1f %s (+%lld -%lld =%lld), Elo %s, LOS %.1f%%",
                     s->cfg->engines[p->a].name, (double)t.wins + 0.5 * (double)t.draws,
                     (double)t.losses + 0.5 * (double)t.draws, s->cfg->engines[p->b].name, (long long)t.wins,
                     (long long)t.losses, (long long)t.draws, elo, e.los * 100.0);
    if (m < 0 || (size_t)(n + m) >= len)
        return;
    if (s->cfg->sprt.on)
        snprintf(buf + n + m, len - (size_t)(n + m), ", LLR %.2f [%.2f, %.2f]", s->llr, s->lower, s->upper);
}

static void print_row(FILE *out, const char *label, wld_t r)
{
    int64_t n = games_of(r);
    fprintf(out, "  %-28s %7lld %7lld %7lld", label, (long long)r.wins, (long long)r.losses, (long long)r.draws);
    /* No games, no score (not 0%, which would be a score). */
    if (n)
        fprintf(out, " %7.1f%%\n", ((double)r.wins + 0.5 * (double)r.draws) / (double)n * 100.0);
    else
        fprintf(out, " %8s\n", "-");
}

void report_print(const summary_t *s, FILE *out)
{
    const config_t *cfg = s->cfg;
    fprintf(out, "\nResults of the %s (%lld games counted, repetition %s, seed %llu)\n", format_name(cfg->format),
            (long long)s->counted, rule_name(cfg->rule), (unsigned long long)cfg->seed);
    for (int i = 0; i < s->pairings_nb; i++) {
        const pairing_t *p = &s->pairings[i];
        const char *a = cfg->engines[p->a].name, *b = cfg->engines[p->b].name;
        wld_t t = pair_total(&s->pairs[i]);
        fprintf(out, "\n%s vs %s: %lld games\n", a, b, (long long)games_of(t));
        fprintf(out, "  %-28s %7s %7s %7s %8s\n", "", "wins", "losses", "draws", "score");
        char label[96];
        snprintf(label, sizeof label, "%.18s as goats", a);
        print_row(out, label, s->pairs[i].as[GOATS]);
        snprintf(label, sizeof label, "%.18s as tigers", a);
        print_row(out, label, s->pairs[i].as[TIGERS]);
        print_row(out, "total", t);
        elo_t e = elo_estimate(t);
        char elo[64];
        fmt_elo(elo, sizeof elo, e);
        if (games_of(t))
            fprintf(out, "  Elo %s (95%%, games), LOS %.1f%%\n", elo, e.los * 100.0);
        else
            fprintf(out, "  Elo -, LOS - (no games)\n");
        const penta_t *pn = &s->pairs[i].penta;
        penta_elo_t pe = penta_estimate(*pn);
        fmt_elo(elo, sizeof elo, (elo_t){pe.score, pe.elo, pe.error, pe.los});
        fprintf(out, "  Pairs scoring 0/0.5/1/1.5/2: %lld %lld %lld %lld %lld (%lld pairs)\n", (long long)pn->n[0],
                (long long)pn->n[1], (long long)pn->n[2], (long long)pn->n[3], (long long)pn->n[4],
                (long long)pe.pairs);
        char nelo[64];
        fmt_elo(nelo, sizeof nelo, (elo_t){pe.score, pe.nelo, pe.nelo_error, pe.los});
        if (pe.pairs)
            fprintf(out, "  Elo %s (95%%, pairs), nElo %s, LOS %.1f%%\n", elo, nelo, pe.los * 100.0);
        else
            fprintf(out, "  Elo -, nElo -, LOS - (no pairs)\n");
    }
    if (cfg->sprt.on)
        fprintf(out, "\nSPRT (%s) elo0=%g elo1=%g alpha=%g beta=%g: LLR %.3f [%.3f, %.3f], %s\n",
                cfg->sprt.trinomial ? "trinomial" : "pentanomial", cfg->sprt.elo0, cfg->sprt.elo1, cfg->sprt.alpha,
                cfg->sprt.beta, s->llr, s->lower, s->upper, sprt_verdict_name(s->verdict));
    if (s->pairings_nb > 1) {
        fprintf(out, "\nStandings\n");
        double *pts = calloc((size_t)cfg->engines_nb, sizeof *pts);
        int64_t *games = calloc((size_t)cfg->engines_nb, sizeof *games);
        if (pts && games) {
            for (int i = 0; i < s->pairings_nb; i++) {
                wld_t t = pair_total(&s->pairs[i]);
                pts[s->pairings[i].a] += (double)t.wins + 0.5 * (double)t.draws;
                pts[s->pairings[i].b] += (double)t.losses + 0.5 * (double)t.draws;
                games[s->pairings[i].a] += games_of(t);
                games[s->pairings[i].b] += games_of(t);
            }
            /* Highest score first; ties keep the order of the command line. */
            bool *shown = calloc((size_t)cfg->engines_nb, sizeof *shown);
            for (int rank = 0; shown && rank < cfg->engines_nb; rank++) {
                int best = -1;
                for (int k = 0; k < cfg->engines_nb; k++)
                    if (!shown[k] && (best < 0 || pts[k] > pts[best]))
                        best = k;
                shown[best] = true;
                fprintf(out, "  %2d. %-24s %7.1f / %lld\n", rank + 1, cfg->engines[best].name, pts[best],
                        (long long)games[best]);
            }
            free(shown);
        }
        free(pts);
        free(games);
    }
    fprintf(out, "\nTerminations\n");
    for (int t = 1; t < TERM_COUNT; t++)
        fprintf(out, "  %-24s %7lld\n", term_name((term_t)t), (long long)s->terms[t]);
    fprintf(out, "\nEngines\n");
    for (int k = 0; k < cfg->engines_nb; k++)
        fprintf(out, "  %-24s restarts %d%s\n", cfg->engines[k].name, s->engines[k].restarts,
                s->engines[k].dropped ? ", dropped after repeated failures" : "");
    fprintf(out, "\nGames: %lld scheduled, %lld counted, %lld aborted, %lld not played, %lld left out after the "
                 "SPRT decision\n",
            (long long)s->scheduled, (long long)s->counted, (long long)s->aborted, (long long)s->unplayed,
            (long long)s->discarded);
    if (s->interrupted)
        fprintf(out, "The run was interrupted: these are partial results.\n");
    if (s->fatal)
        fprintf(out, "The run failed: %s\n", s->fatal);
    fprintf(out, "Time: %.1f s\n", s->seconds);
}

static void json_num(sbuf_t *b, double v)
{
    if (isfinite(v))
        sb_addf(b, "%.6f", v);
    else
        sb_add(b, "null");
}

static void json_wld(sbuf_t *b, wld_t r)
{
    sb_addf(b, "{\"wins\": %lld, \"losses\": %lld, \"draws\": %lld}", (long long)r.wins, (long long)r.losses,
            (long long)r.draws);
}

bool report_json(const summary_t *s, const char *path, char *msg, size_t msglen)
{
    const config_t *cfg = s->cfg;
    sbuf_t b = {0};
    sb_add(&b, "{\n  \"event\": ");
    sb_add_json(&b, cfg->event ? cfg->event : "baghchal-referee");
    sb_addf(&b, ",\n  \"format\": \"%s\",\n  \"repetition\": \"%s\",\n  \"seed\": %llu,\n", format_name(cfg->format),
            rule_name(cfg->rule), (unsigned long long)cfg->seed);
    sb_addf(&b, "  \"concurrency\": %d,\n  \"maxmoves\": %lld,\n", cfg->concurrency, (long long)cfg->maxmoves);
    sb_addf(&b, "  \"interrupted\": %s,\n  \"error\": ", s->interrupted ? "true" : "false");
    if (s->fatal)
        sb_add_json(&b, s->fatal);
    else
        sb_add(&b, "null");
    sb_addf(&b, ",\n  \"seconds\": %.3f,\n", s->seconds);
    sb_addf(&b,
            "  \"games\": {\"scheduled\": %lld, \"counted\": %lld, \"aborted\": %lld, \"not_played\": %lld, "
            "\"discarded\": %lld},\n",
            (long long)s->scheduled, (long long)s->counted, (long long)s->aborted, (long long)s->unplayed,
            (long long)s->discarded);
    sb_add(&b, "  \"engines\": [\n");
    for (int k = 0; k < cfg->engines_nb; k++) {
        char lim[128];
        limits_describe(&cfg->engines[k], lim, sizeof lim);
        sb_add(&b, "    {\"name\": ");
        sb_add_json(&b, cfg->engines[k].name);
        sb_add(&b, ", \"cmd\": ");
        sb_add_json(&b, cfg->engines[k].argv[0]);
        sb_add(&b, ", \"limits\": ");
        sb_add_json(&b, lim);
        sb_addf(&b, ", \"restarts\": %d, \"dropped\": %s}%s\n", s->engines[k].restarts,
                s->engines[k].dropped ? "true" : "false", k + 1 < cfg->engines_nb ? "," : "");
    }
    sb_add(&b, "  ],\n  \"pairs\": [\n");
    for (int i = 0; i < s->pairings_nb; i++) {
        wld_t t = pair_total(&s->pairs[i]);
        elo_t e = elo_estimate(t);
        sb_add(&b, "    {\"engine\": ");
        sb_add_json(&b, cfg->engines[s->pairings[i].a].name);
        sb_add(&b, ", \"opponent\": ");
        sb_add_json(&b, cfg->engines[s->pairings[i].b].name);
        sb_addf(&b, ", \"games\": %lld,\n     \"total\": ", (long long)games_of(t));
        json_wld(&b, t);
        sb_add(&b, ",\n     \"as_goats\": ");
        json_wld(&b, s->pairs[i].as[GOATS]);
        sb_add(&b, ",\n     \"as_tigers\": ");
        json_wld(&b, s->pairs[i].as[TIGERS]);
        /* Without games (pairs) there is no score and no estimate: null, as the text's "-". */
        double none = NAN;
        bool games = games_of(t) > 0;
        sb_add(&b, ",\n     \"score\": ");
        json_num(&b, games ? e.score : none);
        sb_add(&b, ", \"elo\": ");
        json_num(&b, games ? e.elo : none);
        sb_add(&b, ", \"elo_error\": ");
        json_num(&b, games ? e.error : none);
        sb_add(&b, ", \"los\": ");
        json_num(&b, games ? e.los : none);
        const penta_t *pn = &s->pairs[i].penta;
        penta_elo_t pe = penta_estimate(*pn);
        if (pe.pairs == 0)
            pe.elo = pe.error = pe.nelo = pe.nelo_error = pe.los = none;
        sb_addf(&b, ",\n     \"pentanomial\": [%lld, %lld, %lld, %lld, %lld], \"pairs\": %lld, \"penta_elo\": ",
                (long long)pn->n[0], (long long)pn->n[1], (long long)pn->n[2], (long long)pn->n[3],
                (long long)pn->n[4], (long long)pe.pairs);
        json_num(&b, pe.elo);
        sb_add(&b, ", \"penta_elo_error\": ");
        json_num(&b, pe.error);
        sb_add(&b, ", \"nelo\": ");
        json_num(&b, pe.nelo);
        sb_add(&b, ", \"nelo_error\": ");
        json_num(&b, pe.nelo_error);
        sb_add(&b, ", \"penta_los\": ");
        json_num(&b, pe.los);
        sb_addf(&b, "}%s\n", i + 1 < s->pairings_nb ? "," : "");
    }
    sb_add(&b, "  ],\n  \"sprt\": ");
    if (cfg->sprt.on) {
        sb_addf(&b, "{\"stats\": \"%s\", \"elo0\": %g, \"elo1\": %g, \"alpha\": %g, \"beta\": %g, \"llr\": ",
                cfg->sprt.trinomial ? "trinomial" : "pentanomial", cfg->sprt.elo0, cfg->sprt.elo1, cfg->sprt.alpha,
                cfg->sprt.beta);
        json_num(&b, s->llr);
        sb_add(&b, ", \"lower\": ");
        json_num(&b, s->lower);
        sb_add(&b, ", \"upper\": ");
        json_num(&b, s->upper);
        sb_addf(&b, ", \"result\": \"%s\"}", s->verdict == SPRT_H1 ? "H1" : s->verdict == SPRT_H0 ? "H0" : "continue");
    } else {
        sb_add(&b, "null");
    }
    sb_add(&b, ",\n  \"terminations\": {\n");
    for (int t = 1; t < TERM_COUNT; t++)
        sb_addf(&b, "    \"%s\": %lld%s\n", term_key((term_t)t), (long long)s->terms[t], t + 1 < TERM_COUNT ? "," : "");
    sb_add(&b, "  }\n}\n");
    if (b.failed) {
        sb_free(&b);
        snprintf(msg, msglen, "out of memory");
        return false;
    }
    FILE *f = fopen(path, "w");
    bool ok = f && fwrite(b.s, 1, b.len, f) == b.len;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        snprintf(msg, msglen, "cannot write %s: %s", path, strerror(errno));
    sb_free(&b);
    return ok;
}
