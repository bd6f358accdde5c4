/* baghchal-tbprove: runs the forbid prover (engine/forbid.h) over a random sample of the
 * positions that the draw rule calls drawn (by the layers' shares of the draws, or as many
 * from each layer), and counts how many it settles under the no-repetition rule within the
 * budget, and for whom, layer by layer. Each position is taken as a game's start (no history
 * before it). Exit status: 0 done, 2 bad usage or no database. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "forbid.h"
#include "tb_build.h"

static const char *const USAGE =
    "usage: baghchal-tbprove <dir> [--phase movement|placement] [--sample N | --per-layer N] [--ms T]\n"
    "                        [--nodes N] [--threads N] [--seed S] [--mb M] [--list]\n";

enum { MAX_THREADS = 64, GROUPS = 21 };

typedef struct {
    int side, h, c;
    uint64_t entries, draws;
} layer_t;

typedef struct {
    const tb_t *tb;
    bool placement, list;
    uint64_t sample, seed, nodes;
    uint64_t per_layer; /* 0: the sample is drawn by the layers' shares of the draws; else this
                           many positions from each layer that has draws, in layer order */
    int64_t ms;
    size_t mb;
    /* Where positions are drawn from: movement slices or placement layers, by their draws. */
    int nlayers, nfull;
    layer_t layer[TBP_MAX_LAYERS + TB_MAX_SLICES * SIDE_NB];
    int full[TBP_MAX_LAYERS + TB_MAX_SLICES * SIDE_NB]; /* the layers with draws */
    uint64_t total_draws;
    tbp_rank_t rk;
    int goats_total;
    pthread_mutex_t lock;
    uint64_t next, done, settled;
    double started;
} job_t;

/* Counts by the side to move and by layer (goats in hand: 0 in the movement phase; goats
 * captured): [side][in hand][captured][0 side to move wins, 1 loses, 2 open], and times. */
typedef struct {
    uint64_t count[SIDE_NB][GROUPS][TB_MAX_SLICES][3];
    double ms[3];
} tally_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The draw-rule draws of the movement slices (entries, counted from the stored values). */
static void movement_layers(job_t *job)
{
    for (int c = 0; c < tb_slice_count(job->tb); c++) {
        tb_slice_stats_t st;
        if (tb_slice_stats(job->tb, c, &st) != TB_OK)
            cli_die("cannot read slice %d", c);
        for (int side = 0; side < SIDE_NB; side++) {
            layer_t *l = &job->layer[job->nlayers++];
            l->side = side, l->h = 0, l->c = c;
            l->entries = tb_slice_entries(job->tb, c);
            l->draws = st.count[side][1];
            job->total_draws += l->draws;
        }
    }
}

/* The placement layers, by the draws the file's layer table counts. */
static void placement_layers(job_t *job, const char *dir)
{
    tbp_header_t *x = malloc(sizeof *x);
    char msg[256];
    if (!x)
        cli_die("out of memory");
    if (tbp_read_header(dir, x, msg, sizeof msg) != TB_OK)
        cli_die("%s", msg);
    job->goats_total = (int)x->goats_total;
    for (uint32_t q = 0; q < x->layer_count; q++) {
        const tbp_layer_info_t *li = &x->layer[q];
        layer_t *l = &job->layer[job->nlayers++];
        l->side = li->side, l->h = li->h, l->c = li->c;
        l->entries = (uint64_t)li->ng * TB_TIGER_CLASSES;
        l->draws = li->count[1];
        job->total_draws += l->draws;
    }
    free(x);
}

/* Position k of the sample, a random draw-rule draw: a layer by its share of the draws (or,
 * with per_layer, the layer k falls in), then entries of it until one is a draw; *h and *c
 * say which layer (goats in hand, goats captured). */
static void draw_position(const job_t *job, uint64_t k, uint64_t *rng, position_t *p, int *h, int *c)
{
    for (;;) {
        const layer_t *l = job->layer;
        if (job->per_layer) {
            l = &job->layer[job->full[k / job->per_layer]];
        } else {
            uint64_t r = cli_rng_next(rng) % job->total_draws;
            while (r >= l->draws) {
                r -= l->draws;
                l++;
            }
        }
        tb_value_t v;
        uint64_t i = cli_rng_next(rng) % l->entries;
        if (job->placement) {
            tbp_entry_position(tb_index(job->tb), &job->rk, job->goats_total, l->side, l->h, l->c, i, p);
            if (!tb_probe(job->tb, p, &v))
                continue;
        } else {
            tb_entry(job->tb, l->c, l->side, i, p, &v);
        }
        if (v.wdl == TB_DRAW) {
            *h = l->h, *c = l->c;
            return;
        }
    }
}

typedef struct {
    job_t *job;
    tally_t tally;
} worker_t;

static void *work(void *arg)
{
    worker_t *w = arg;
    job_t *job = w->job;
    fb_prover_t *pr = fb_prover_new(job->mb);
    if (!pr) {
        fprintf(stderr, "%s: out of memory for the prover's table\n", cli_program);
        return NULL;
    }
    for (;;) {
        pthread_mutex_lock(&job->lock);
        uint64_t k = job->next++;
        pthread_mutex_unlock(&job->lock);
        if (k >= job->sample)
            break;
        /* Position k is the same whatever the threads: its own seed. */
        uint64_t rng = job->seed ^ (0x9E3779B97F4A7C15ull * (k + 1));
        rng = cli_rng_next(&rng);
        position_t p;
        int h, c;
        draw_position(job, k, &rng, &p, &h, &c);
        game_t g;
        if (!game_init(&g, &p, NULL, REP_FORBID)) {
            fprintf(stderr, "%s: out of memory\n", cli_program);
            break;
        }
        fb_limits_t lim = {job->nodes, job->ms, NULL, NULL, NULL};
        fb_proof_t proof;
        fb_result_t r = fb_prove(pr, job->tb, &g, &lim, &proof);
        game_free(&g);
        int kind = r == FB_WIN ? 0 : r == FB_LOSS ? 1 : 2;
        w->tally.count[p.side][h][c][kind]++;
        w->tally.ms[kind] += (double)proof.ms;
        pthread_mutex_lock(&job->lock);
        job->done++;
        job->settled += kind != 2;
        if (job->list) {
            char obx[OBX_MAX_LEN];
            obx_format(&p, NULL, OBX_V2, obx, sizeof obx);
            printf("%s %s nodes %llu ms %lld\n", obx, kind == 0 ? "win" : kind == 1 ? "loss" : "open",
                   (unsigned long long)proof.nodes, (long long)proof.ms);
        }
        if (job->done % 100 == 0 || job->done == job->sample) {
            double el = now_s() - job->started;
            fprintf(stderr, "%llu / %llu positions, %llu settled (%.1f%%), elapsed %.0f s, about %.0f s left\n",
                    (unsigned long long)job->done, (unsigned long long)job->sample,
                    (unsigned long long)job->settled, 100.0 * (double)job->settled / (double)job->done, el,
                    el / (double)job->done * (double)(job->sample - job->done));
        }
        fflush(stdout);
        pthread_mutex_unlock(&job->lock);
    }
    fb_prover_free(pr);
    return NULL;
}

static void pct(char *buf, size_t len, uint64_t n, uint64_t of)
{
    snprintf(buf, len, "%llu (%.1f%%)", (unsigned long long)n, of ? 100.0 * (double)n / (double)of : 0.0);
}

/* One row of a table: the side to move, its layer's label, the counts. */
static void row(int side, const char *label, const uint64_t *c)
{
    uint64_t n = c[0] + c[1] + c[2];
    char a[32], b[32], o[32];
    pct(a, sizeof a, c[0], n), pct(b, sizeof b, c[1], n), pct(o, sizeof o, c[2], n);
    printf("| %s | %s | %llu | %s | %s | %s |\n", side == GOATS ? "goats" : "tigers", label, (unsigned long long)n,
           a, b, o);
}

static void report(const job_t *job, const tally_t *t)
{
    /* The placement phase layer by layer (goats in hand, then captured), then by goats in
     * hand alone; the movement phase by goats captured (its layers). */
    if (job->placement) {
        printf("\n| side to move | in hand | captured | sampled | side to move wins | side to move loses | open |\n");
        printf("|---|---|---|---|---|---|---|\n");
        for (int side = 0; side < SIDE_NB; side++)
            for (int h = 0; h < GROUPS; h++)
                for (int cap = 0; cap < TB_MAX_SLICES; cap++) {
                    const uint64_t *c = t->count[side][h][cap];
                    char label[32];
                    snprintf(label, sizeof label, "%d | %d", h, cap);
                    if (c[0] + c[1] + c[2])
                        row(side, label, c);
                }
    }
    uint64_t all[3] = {0}, win_side[SIDE_NB] = {0};
    printf("\n| side to move | %s | sampled | side to move wins | side to move loses | open |\n",
           job->placement ? "in hand" : "captured");
    printf("|---|---|---|---|---|---|\n");
    for (int side = 0; side < SIDE_NB; side++)
        for (int grp = 0; grp < GROUPS; grp++) {
            uint64_t c[3] = {0};
            for (int k = 0; k < 3; k++)
                if (job->placement)
                    for (int cap = 0; cap < TB_MAX_SLICES; cap++)
                        c[k] += t->count[side][grp][cap][k];
                else
                    c[k] = grp < TB_MAX_SLICES ? t->count[side][0][grp][k] : 0;
            if (!(c[0] + c[1] + c[2]))
                continue;
            char label[16];
            snprintf(label, sizeof label, "%d", grp);
            row(side, label, c);
            for (int k = 0; k < 3; k++)
                all[k] += c[k];
            win_side[side] += c[0];
            win_side[!side] += c[1];
        }
    uint64_t n = all[0] + all[1] + all[2], settled = all[0] + all[1];
    char s[32], gw[32], tw[32], o[32];
    pct(s, sizeof s, settled, n);
    pct(gw, sizeof gw, win_side[GOATS], n);
    pct(tw, sizeof tw, win_side[TIGERS], n);
    pct(o, sizeof o, all[2], n);
    printf("\n%llu positions: settled %s: goats win %s, tigers win %s; open %s\n", (unsigned long long)n, s, gw, tw, o);
    if (job->per_layer) {
        /* Each layer's shares weighted by its draws: what a sample by the draws' shares
         * estimates. */
        double wt[3] = {0}; /* goats win, tigers win, open */
        for (int q = 0; q < job->nfull; q++) {
            const layer_t *l = &job->layer[job->full[q]];
            const uint64_t *c = t->count[l->side][l->h][l->c];
            uint64_t m = c[0] + c[1] + c[2];
            if (!m)
                continue;
            double f = (double)l->draws / (double)job->total_draws / (double)m;
            wt[l->side == GOATS ? 0 : 1] += f * (double)c[0];
            wt[l->side == GOATS ? 1 : 0] += f * (double)c[1];
            wt[2] += f * (double)c[2];
        }
        printf("weighted by the layers' draws: settled %.1f%%: goats win %.1f%%, tigers win %.1f%%; open %.1f%%\n",
               100 * (wt[0] + wt[1]), 100 * wt[0], 100 * wt[1], 100 * wt[2]);
    }
    printf("average time: a proven win %.0f ms, a proven loss %.0f ms, an open position %.0f ms\n",
           all[0] ? t->ms[0] / (double)all[0] : 0.0, all[1] ? t->ms[1] / (double)all[1] : 0.0,
           all[2] ? t->ms[2] / (double)all[2] : 0.0);
}

int main(int argc, char **argv)
{
    cli_program = "baghchal-tbprove";
    if (argc < 2 || argv[1][0] == '-')
        cli_die("%s", USAGE);
    job_t job = {.sample = 1000, .seed = 1, .ms = 1000, .mb = 64};
    int threads = 1;
    bool sample_given = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--list") == 0) {
            job.list = true;
            continue;
        }
        if (!v)
            cli_die("%s needs a value\n%s", a, USAGE);
        i++;
        if (strcmp(a, "--phase") == 0) {
            if (strcmp(v, "movement") && strcmp(v, "placement"))
                cli_die("--phase is movement or placement, not '%s'", v);
            job.placement = strcmp(v, "placement") == 0;
        } else if (strcmp(a, "--sample") == 0) {
            job.sample = (uint64_t)cli_int(a, v, 1, 100000000);
            sample_given = true;
        } else if (strcmp(a, "--per-layer") == 0) {
            job.per_layer = (uint64_t)cli_int(a, v, 1, 1000000);
        } else if (strcmp(a, "--ms") == 0) {
            job.ms = cli_int(a, v, 0, 86400000);
        } else if (strcmp(a, "--nodes") == 0) {
            job.nodes = (uint64_t)cli_int(a, v, 0, (long long)1 << 50);
        } else if (strcmp(a, "--threads") == 0) {
            threads = (int)cli_int(a, v, 1, MAX_THREADS);
        } else if (strcmp(a, "--seed") == 0) {
            job.seed = (uint64_t)cli_int(a, v, 0, INT64_MAX);
        } else if (strcmp(a, "--mb") == 0) {
            job.mb = (size_t)cli_int(a, v, 1, 65536);
        } else {
            cli_die("unknown option '%s'\n%s", a, USAGE);
        }
    }
    if (!job.ms && !job.nodes)
        cli_die("give the prover a limit: --ms or --nodes");
    if (sample_given && job.per_layer)
        cli_die("--sample and --per-layer go apart: --sample N draws N by the layers' shares of the draws, "
                "--per-layer N draws N from each layer");
    tb_t *tb;
    char msg[256];
    /* Any game the generator builds (smaller ones too: research on variants). */
    if (tb_open(argv[1], &tb, msg, sizeof msg) != TB_OK)
        cli_die("%s", msg);
    job.tb = tb;
    if (job.placement && !tb_has_placement(tb))
        cli_die("%s has no placement file (build it: baghchal-tbgen %s --placement)", argv[1], argv[1]);
    tbp_rank_init(&job.rk);
    if (job.placement)
        placement_layers(&job, argv[1]);
    else
        movement_layers(&job);
    if (!job.total_draws)
        cli_die("the database has no drawn positions to sample");
    for (int q = 0; q < job.nlayers; q++)
        if (job.layer[q].draws)
            job.full[job.nfull++] = q;
    char each[96] = "";
    if (job.per_layer) {
        job.sample = job.per_layer * (uint64_t)job.nfull;
        snprintf(each, sizeof each, " (%llu from each of its %d layers with draws)", (unsigned long long)job.per_layer,
                 job.nfull);
    }
    pthread_mutex_init(&job.lock, NULL);
    printf("baghchal-tbprove: %llu draw-rule draws of the %s phase%s, each a game's start under forbid; "
           "%lld ms (0: no limit) and %llu positions expanded (0: no limit) at most each, %d thread%s, seed %llu\n",
           (unsigned long long)job.sample, job.placement ? "placement" : "movement", each, (long long)job.ms,
           (unsigned long long)job.nodes, threads, threads > 1 ? "s" : "", (unsigned long long)job.seed);
    fflush(stdout);
    job.started = now_s();
    worker_t *w = calloc((size_t)threads, sizeof *w);
    pthread_t *th = calloc((size_t)threads, sizeof *th);
    if (!w || !th)
        cli_die("out of memory");
    int started = 0;
    for (int i = 0; i < threads; i++) {
        w[i].job = &job;
        if (pthread_create(&th[i], NULL, work, &w[i]) != 0)
            break;
        started++;
    }
    if (!started)
        cli_die("cannot start a thread");
    tally_t total;
    memset(&total, 0, sizeof total);
    for (int i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
        for (int s = 0; s < SIDE_NB; s++)
            for (int g = 0; g < GROUPS; g++)
                for (int cap = 0; cap < TB_MAX_SLICES; cap++)
                    for (int k = 0; k < 3; k++)
                        total.count[s][g][cap][k] += w[i].tally.count[s][g][cap][k];
        for (int k = 0; k < 3; k++)
            total.ms[k] += w[i].tally.ms[k];
    }
    report(&job, &total);
    printf("elapsed %.1f s\n", now_s() - job.started);
    free(w);
    free(th);
    tb_close(tb);
    return job.done == job.sample ? 0 : 2;
}
