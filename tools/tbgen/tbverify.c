/* baghchal-tbverify: checks database values against the rules and the values of the
 * children, over a random sample of entries or all of them, on every core. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "tb_build.h"

static const char *const USAGE = "usage: baghchal-tbverify <dir> [--sample N | --all] [--threads N] [--seed S]\n";

enum { MAX_THREADS = 64, CHUNK = 4096, SHOW_ERRORS = 10 };

typedef struct {
    const tb_t *tb;
    bool all;
    uint64_t sample, seed;
    uint64_t next; /* atomic: next chunk */
    uint64_t chunks;
    pthread_mutex_t lock;
    uint64_t shown;
} job_t;

typedef struct {
    job_t *job;
    uint64_t count[TB_MAX_SLICES][SIDE_NB][TB_CHECK_NB];
    uint64_t errors, repeats;
} part_t;

static void report_error(job_t *job, int c, int side, uint64_t i, const position_t *p, const char *msg)
{
    pthread_mutex_lock(&job->lock);
    if (job->shown++ < SHOW_ERRORS) {
        char board[26];
        for (int sq = 0; sq < SQUARE_NB; sq++)
            board[sq] = p->tigers & bb_square(sq) ? 'T' : p->goats & bb_square(sq) ? 'G' : 'X';
        board[25] = '\0';
        fprintf(stderr, "slice %d %s to move entry %llu (%s): %s\n", c, side ? "tigers" : "goats",
                (unsigned long long)i, board, msg);
    }
    pthread_mutex_unlock(&job->lock);
}

static void check(part_t *pt, int c, int side, uint64_t i)
{
    position_t p;
    tb_value_t stored, probed;
    char msg[160];
    tb_check_t kind;
    bool canonical = tb_entry(pt->job->tb, c, side, i, &p, &stored);
    if (!canonical) {
        /* A repeat holds the value of the symmetric entry its position maps to. */
        pt->repeats++;
        tb_probe(pt->job->tb, &p, &probed);
        if (probed.wdl != stored.wdl || probed.distance != stored.distance) {
            pt->errors++;
            report_error(pt->job, c, side, i, &p, "repeated entry differs from its symmetric entry");
        }
    }
    if (tb_verify_position(pt->job->tb, &p, &kind, msg, sizeof msg) != TB_OK) {
        pt->errors++;
        report_error(pt->job, c, side, i, &p, msg);
        return;
    }
    pt->count[c][side][kind]++;
}

static void *run(void *arg)
{
    part_t *pt = arg;
    job_t *job = pt->job;
    int n = tb_slice_count(job->tb);
    for (;;) {
        uint64_t u = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED);
        if (u >= job->chunks)
            break;
        if (!job->all) {
            /* Chunk u of the sample: entries drawn uniformly per slice and side. */
            uint64_t s = job->seed ^ (u * 0x2545F4914F6CDD1Dull);
            for (int q = 0; q < CHUNK && u * CHUNK + (uint64_t)q < job->sample; q++) {
                int c = (int)(cli_rng_next(&s) % (uint64_t)n), side = (int)(cli_rng_next(&s) & 1);
                check(pt, c, side, cli_rng_next(&s) % tb_slice_entries(pt->job->tb, c));
            }
            continue;
        }
        /* Chunks never straddle two slices. */
        for (int c = 0; c < n; c++) {
            uint64_t size = 2 * tb_slice_entries(job->tb, c), here = (size + CHUNK - 1) / CHUNK;
            if (u >= here) {
                u -= here;
                continue;
            }
            for (uint64_t i = u * CHUNK; i < (u + 1) * CHUNK && i < size; i++)
                check(pt, c, (int)(i / tb_slice_entries(job->tb, c)), i % tb_slice_entries(job->tb, c));
            break;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    cli_program = "baghchal-tbverify";
    const char *dir = NULL;
    job_t job = {0};
    job.sample = 1000000;
    job.seed = 1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = ncpu > 0 ? (int)(ncpu < MAX_THREADS ? ncpu : MAX_THREADS) : 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--sample"))
            job.sample = (uint64_t)cli_int(a, i + 1 < argc ? argv[++i] : NULL, 1, 1000000000000ll);
        else if (!strcmp(a, "--all"))
            job.all = true;
        else if (!strcmp(a, "--threads"))
            threads = (int)cli_int(a, i + 1 < argc ? argv[++i] : NULL, 1, MAX_THREADS);
        else if (!strcmp(a, "--seed"))
            job.seed = (uint64_t)cli_int(a, i + 1 < argc ? argv[++i] : NULL, 0, 0x7FFFFFFFFFFFFFFFll);
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(USAGE, stdout);
            return 0;
        } else if (a[0] == '-')
            cli_die("unknown option '%s'", a);
        else if (dir)
            cli_die("more than one directory given ('%s' and '%s')", dir, a);
        else
            dir = a;
    }
    if (!dir)
        cli_die("no directory given (see --help)");
    char msg[256];
    tb_t *tb;
    /* A database problem, not a usage one: status 1. */
    if (tb_open(dir, &tb, msg, sizeof msg) != TB_OK) {
        fprintf(stderr, "%s: %s\n", cli_program, msg);
        return 1;
    }
    job.tb = tb;
    int n = tb_slice_count(tb);
    job.chunks = (job.sample + CHUNK - 1) / CHUNK;
    if (job.all) {
        job.chunks = 0;
        for (int c = 0; c < n; c++)
            job.chunks += (2 * tb_slice_entries(tb, c) + CHUNK - 1) / CHUNK;
    }
    pthread_mutex_init(&job.lock, NULL);

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    static part_t parts[MAX_THREADS];
    pthread_t th[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        parts[t].job = &job;
        if (t && pthread_create(&th[t], NULL, run, &parts[t]) != 0)
            cli_die("cannot start a thread");
    }
    run(&parts[0]);
    for (int t = 1; t < threads; t++)
        pthread_join(th[t], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);

    static const char *const KIND[TB_CHECK_NB] = {"terminal", "win", "draw", "loss"};
    uint64_t checked = 0, errors = 0, repeats = 0;
    printf("%s: captures to win %d, %s\n", dir, tb_captures_to_win(tb),
           job.all ? "every entry" : "random entries");
    printf("%-8s %-6s %12s %12s %12s %12s\n", "captured", "moves", KIND[0], KIND[1], KIND[2], KIND[3]);
    for (int c = 0; c < n; c++)
        for (int side = 0; side < SIDE_NB; side++) {
            uint64_t k[TB_CHECK_NB] = {0};
            for (int t = 0; t < threads; t++)
                for (int q = 0; q < TB_CHECK_NB; q++)
                    k[q] += parts[t].count[c][side][q];
            printf("%-8d %-6s %12llu %12llu %12llu %12llu\n", c, side ? "tigers" : "goats", (unsigned long long)k[0],
                   (unsigned long long)k[1], (unsigned long long)k[2], (unsigned long long)k[3]);
            for (int q = 0; q < TB_CHECK_NB; q++)
                checked += k[q];
        }
    for (int t = 0; t < threads; t++)
        errors += parts[t].errors, repeats += parts[t].repeats;
    double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("checked %llu entries (%llu repeats of a symmetric entry also against it) against every child "
           "in %.1f s: %llu error%s\n",
           (unsigned long long)(checked + errors), (unsigned long long)repeats, dt, (unsigned long long)errors,
           errors == 1 ? "" : "s");
    tb_close(tb);
    return errors ? 1 : 0;
}
