/* baghchal-tbverify: checks database values against the rules and the values of the
 * children, over a random sample of entries or all of them, on every core: the movement
 * database, then the placement file when the directory has one. Exit status: 0 every value
 * checked is right, 1 a value is wrong, 2 the check cannot run (bad usage, a missing or
 * corrupt database). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "tb_build.h"

static const char *const USAGE = "usage: baghchal-tbverify [<dir>] [--sample N | --all] [--threads N] [--seed S]\n"
                                  "Without <dir>: the standard folder (see baghchal-tbgen --help).\n";

enum { MAX_THREADS = 64, CHUNK = 4096, PCHUNK = 1024, SHOW_ERRORS = 10 };

/* A layer of the placement file, as its layer table describes it. */
typedef struct {
    int side, h, c;
    bool stored;
    uint64_t entries;
    uint64_t count[3]; /* positions: side to move loses, draws, wins */
} layer_t;

typedef struct {
    const tb_t *tb;
    bool all;
    uint64_t sample, seed;
    uint64_t next; /* atomic: next chunk */
    uint64_t chunks;
    pthread_mutex_t lock;
    uint64_t shown;
    /* The placement file (nlayers 0 when there is none). */
    int goats_total, nlayers;
    layer_t layer[TBP_MAX_LAYERS];
    tbp_rank_t rk;
    uint64_t pnext, pchunks;
    /* A sample's outcomes by entry, for the slices and layers small enough that a sample draws
     * their entries again and again (a layer is drawn as often as the largest): a repeated
     * draw counts the first one's outcome instead of checking the entry again. A byte per
     * entry, 0 until checked, else MEMO_RIGHT + the outcome, or MEMO_WRONG (checked again, to
     * report it again). */
    uint8_t *memo[TB_MAX_SLICES][SIDE_NB];
    uint8_t *pmemo[TBP_MAX_LAYERS];
} job_t;

enum { MEMO_RIGHT = 1, MEMO_WRONG = 255, MEMO_MAX_ENTRIES = 1 << 24 };

/* A table of outcomes for a slice or layer of `entries` that a sample of `draws` draws from,
 * or NULL when it would not pay (few repeats likely, or too large) or cannot be had. */
static uint8_t *memo_new(const job_t *job, uint64_t entries, uint64_t draws)
{
    if (job->all || entries == 0 || entries > MEMO_MAX_ENTRIES || draws < entries / 4)
        return NULL;
    return calloc(entries, 1); /* without it, every draw is checked: the same result */
}

static uint8_t memo_get(const uint8_t *memo, uint64_t i) { return memo ? __atomic_load_n(&memo[i], __ATOMIC_RELAXED) : 0; }

static void memo_set(uint8_t *memo, uint64_t i, uint8_t v)
{
    if (memo)
        __atomic_store_n(&memo[i], v, __ATOMIC_RELAXED);
}

typedef struct {
    job_t *job;
    uint64_t count[TB_MAX_SLICES][SIDE_NB][TB_CHECK_NB];
    uint64_t errors, repeats;
    uint64_t pcount[TBP_MAX_LAYERS][TB_CHECK_NB];
    uint64_t pvalues[TBP_MAX_LAYERS][3]; /* positions (entries weighted by their class's orbit) */
    uint64_t perrors[TBP_MAX_LAYERS];
    /* A sample's entries as drawn (a key per draw), to count the distinct ones. */
    uint64_t *drawn;
    size_t ndrawn, capdrawn;
} part_t;

/* Samples up to this size count their distinct entries (8 bytes a draw). */
enum { COUNT_DISTINCT_MAX = 50000000 };

/* Remembers a sampled entry: (slice or layer, side, entry) as one number. */
static void note_draw(part_t *pt, uint64_t key)
{
    if (pt->job->sample > COUNT_DISTINCT_MAX)
        return;
    if (pt->ndrawn == pt->capdrawn) {
        size_t cap = pt->capdrawn ? 2 * pt->capdrawn : 4096;
        uint64_t *d = realloc(pt->drawn, cap * sizeof *d);
        if (!d)
            cli_die("out of memory");
        pt->drawn = d, pt->capdrawn = cap;
    }
    pt->drawn[pt->ndrawn++] = key;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The distinct entries the threads drew, and forgets them. */
static uint64_t distinct_draws(part_t *parts, int threads)
{
    size_t n = 0;
    for (int t = 0; t < threads; t++)
        n += parts[t].ndrawn;
    uint64_t *all = malloc((n ? n : 1) * sizeof *all), d = 0;
    if (!all)
        cli_die("out of memory");
    n = 0;
    for (int t = 0; t < threads; t++) {
        if (parts[t].ndrawn) /* a thread that drew nothing has no array */
            memcpy(all + n, parts[t].drawn, parts[t].ndrawn * sizeof *all);
        n += parts[t].ndrawn;
        free(parts[t].drawn);
        parts[t].drawn = NULL, parts[t].ndrawn = parts[t].capdrawn = 0;
    }
    qsort(all, n, sizeof *all, cmp_u64);
    for (size_t i = 0; i < n; i++)
        d += i == 0 || all[i] != all[i - 1];
    free(all);
    return d;
}

static void layer_name(const layer_t *l, char *buf, size_t len)
{
    snprintf(buf, len, "%s h=%d c=%d", l->side == GOATS ? "goats" : "tigers", l->h, l->c);
}

static void board_text(const position_t *p, char board[26])
{
    for (int sq = 0; sq < SQUARE_NB; sq++)
        board[sq] = p->tigers & bb_square(sq) ? 'T' : p->goats & bb_square(sq) ? 'G' : 'X';
    board[25] = '\0';
}

static void report_error(job_t *job, int c, int side, uint64_t i, const position_t *p, const char *msg)
{
    pthread_mutex_lock(&job->lock);
    if (job->shown++ < SHOW_ERRORS) {
        char board[26];
        board_text(p, board);
        fprintf(stderr, "slice %d %s to move entry %llu (%s): %s\n", c, side ? "tigers" : "goats",
                (unsigned long long)i, board, msg);
    }
    pthread_mutex_unlock(&job->lock);
}

static void check(part_t *pt, int c, int side, uint64_t i)
{
    uint8_t *memo = pt->job->memo[c][side];
    uint8_t seen = memo_get(memo, i);
    if (seen && seen != MEMO_WRONG) {
        /* outcome: the kind, and 4 for a repeat of a symmetric entry */
        int o = seen - MEMO_RIGHT;
        pt->repeats += o >= TB_CHECK_NB;
        pt->count[c][side][o % TB_CHECK_NB]++;
        return;
    }
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
            memo = NULL; /* checked again when drawn again */
            memo_set(pt->job->memo[c][side], i, MEMO_WRONG);
        }
    }
    if (tb_verify_position(pt->job->tb, &p, &kind, msg, sizeof msg) != TB_OK) {
        pt->errors++;
        report_error(pt->job, c, side, i, &p, msg);
        memo_set(pt->job->memo[c][side], i, MEMO_WRONG);
        return;
    }
    pt->count[c][side][kind]++;
    memo_set(memo, i, (uint8_t)(MEMO_RIGHT + kind + (canonical ? 0 : TB_CHECK_NB)));
}

/* Entry i of placement layer q against its children. For a stored layer the value is the
 * file's and the children are the other side's positions, answered by one ply of probes into
 * the stored layers below: a check over two plies. */
static void pcheck(part_t *pt, int q, uint64_t i)
{
    job_t *job = pt->job;
    const layer_t *l = &job->layer[q];
    const tb_index_t *ix = tb_index(job->tb);
    uint8_t seen = memo_get(job->pmemo[q], i);
    if (seen && seen != MEMO_WRONG) {
        /* outcome: kind * 3 + value */
        int o = seen - MEMO_RIGHT;
        pt->pcount[q][o / 3]++;
        pt->pvalues[q][o % 3] += ix->cls[i / (l->entries / TB_TIGER_CLASSES)].orbit;
        return;
    }
    position_t p;
    tbp_entry_position(ix, &job->rk, job->goats_total, l->side, l->h, l->c, i, &p);
    char msg[160];
    tb_check_t kind;
    int value = 0;
    if (tbp_verify_position(job->tb, &p, &kind, &value, msg, sizeof msg) != TB_OK) {
        pt->perrors[q]++;
        pthread_mutex_lock(&job->lock);
        if (job->shown++ < SHOW_ERRORS) {
            char board[26], name[32];
            board_text(&p, board);
            layer_name(l, name, sizeof name);
            fprintf(stderr, "layer %s entry %llu (%s): %s\n", name, (unsigned long long)i, board, msg);
        }
        pthread_mutex_unlock(&job->lock);
        memo_set(job->pmemo[q], i, MEMO_WRONG);
        return;
    }
    pt->pcount[q][kind]++;
    pt->pvalues[q][value] += ix->cls[i / (l->entries / TB_TIGER_CLASSES)].orbit;
    memo_set(job->pmemo[q], i, (uint8_t)(MEMO_RIGHT + kind * 3 + value));
}

static void *run_placement(void *arg)
{
    part_t *pt = arg;
    job_t *job = pt->job;
    for (;;) {
        uint64_t u = __atomic_fetch_add(&job->pnext, 1, __ATOMIC_RELAXED);
        if (u >= job->pchunks)
            break;
        if (!job->all) {
            /* Chunk u of the sample: a layer drawn uniformly, then an entry of it. */
            uint64_t s = cli_rng_stream(job->seed, 2 * u + 1);
            for (int k = 0; k < PCHUNK && u * PCHUNK + (uint64_t)k < job->sample; k++) {
                int q = (int)(cli_rng_next(&s) % (uint64_t)job->nlayers);
                uint64_t i = cli_rng_next(&s) % job->layer[q].entries;
                note_draw(pt, (uint64_t)q << 48 | i);
                pcheck(pt, q, i);
            }
            continue;
        }
        /* Chunks never straddle two layers. */
        for (int q = 0; q < job->nlayers; q++) {
            uint64_t size = job->layer[q].entries, here = (size + PCHUNK - 1) / PCHUNK;
            if (u >= here) {
                u -= here;
                continue;
            }
            for (uint64_t i = u * PCHUNK; i < (u + 1) * PCHUNK && i < size; i++)
                pcheck(pt, q, i);
            break;
        }
    }
    return NULL;
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
            uint64_t s = cli_rng_stream(job->seed, 2 * u);
            for (int q = 0; q < CHUNK && u * CHUNK + (uint64_t)q < job->sample; q++) {
                int c = (int)(cli_rng_next(&s) % (uint64_t)n), side = (int)(cli_rng_next(&s) & 1);
                uint64_t i = cli_rng_next(&s) % tb_slice_entries(pt->job->tb, c);
                note_draw(pt, (uint64_t)(2 * c + side) << 48 | i);
                check(pt, c, side, i);
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

/* Runs fn on `threads` threads (this one included) and returns the seconds it took. */
static double run_threads(void *(*fn)(void *), part_t *parts, int threads)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_t th[MAX_THREADS];
    for (int t = 1; t < threads; t++)
        if (pthread_create(&th[t], NULL, fn, &parts[t]) != 0)
            cli_die("cannot start a thread");
    fn(&parts[0]);
    for (int t = 1; t < threads; t++)
        pthread_join(th[t], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
}

/* The placement file's layer table, when tb_open mapped one (it has checked every stored
 * layer's checksum already). */
static void load_layers(job_t *job, const char *dir)
{
    if (!tb_has_placement(job->tb))
        return;
    char msg[256];
    tbp_header_t *x = malloc(sizeof *x);
    if (!x)
        cli_die("out of memory");
    if (tbp_read_header(dir, x, msg, sizeof msg) != TB_OK)
        cli_die("%s", msg);
    tbp_rank_init(&job->rk);
    job->goats_total = (int)x->goats_total;
    job->nlayers = (int)x->layer_count;
    job->pchunks = (job->sample + PCHUNK - 1) / PCHUNK;
    if (job->all)
        job->pchunks = 0;
    for (int q = 0; q < job->nlayers; q++) {
        const tbp_layer_info_t *li = &x->layer[q];
        layer_t *l = &job->layer[q];
        l->side = li->side, l->h = li->h, l->c = li->c, l->stored = li->stored != 0;
        l->entries = (uint64_t)li->ng * TB_TIGER_CLASSES;
        memcpy(l->count, li->count, sizeof l->count);
        if (job->all)
            job->pchunks += (l->entries + PCHUNK - 1) / PCHUNK;
    }
    for (int q = 0; q < job->nlayers; q++)
        job->pmemo[q] = memo_new(job, job->layer[q].entries, job->sample / (uint64_t)job->nlayers);
    free(x);
}

/* Checks the placement layers and prints a line per layer; returns the number of errors.
 * With --all, the W/D/L counts over positions must also be the layer table's. */
static uint64_t verify_placement(job_t *job, part_t *parts, int threads)
{
    static const char *const KIND[TB_CHECK_NB] = {"terminal", "win", "draw", "loss"};
    double dt = run_threads(run_placement, parts, threads);
    int stored_side = -1;
    for (int q = 0; q < job->nlayers; q++)
        if (job->layer[q].stored)
            stored_side = job->layer[q].side;
    printf("placement: %d layers of %d goats, %s to move stored (%s to move: one ply of probes), %s\n",
           job->nlayers, job->goats_total, stored_side == TIGERS ? "tigers" : "goats",
           stored_side == TIGERS ? "goats" : "tigers", job->all ? "every entry" : "random entries");
    printf("%-16s %-6s %12s %12s %12s %12s %12s %8s %s\n", "layer", "stored", "entries", KIND[0], KIND[1], KIND[2],
           KIND[3], "errors", "W/D/L counts");
    uint64_t checked = 0, errors = 0;
    for (int q = 0; q < job->nlayers; q++) {
        const layer_t *l = &job->layer[q];
        uint64_t k[TB_CHECK_NB] = {0}, v[3] = {0}, e = 0, n = 0;
        for (int t = 0; t < threads; t++) {
            for (int x = 0; x < TB_CHECK_NB; x++)
                k[x] += parts[t].pcount[q][x];
            for (int x = 0; x < 3; x++)
                v[x] += parts[t].pvalues[q][x];
            e += parts[t].perrors[q];
        }
        for (int x = 0; x < TB_CHECK_NB; x++)
            n += k[x];
        n += e; /* entries checked, right or wrong */
        char name[32];
        layer_name(l, name, sizeof name);
        const char *counts = "-";
        if (job->all && e == 0) {
            counts = "same as the layer table";
            if (memcmp(v, l->count, sizeof v) != 0) {
                counts = "DIFFERENT";
                e++;
                fprintf(stderr,
                        "layer %s: W/D/L over positions %llu / %llu / %llu, the layer table says %llu / %llu / %llu\n",
                        name, (unsigned long long)v[2], (unsigned long long)v[1], (unsigned long long)v[0],
                        (unsigned long long)l->count[2], (unsigned long long)l->count[1],
                        (unsigned long long)l->count[0]);
            }
        }
        printf("%-16s %-6s %12llu %12llu %12llu %12llu %12llu %8llu %s\n", name, l->stored ? "yes" : "no",
               (unsigned long long)n, (unsigned long long)k[0], (unsigned long long)k[1],
               (unsigned long long)k[2], (unsigned long long)k[3], (unsigned long long)e, counts);
        checked += n;
        errors += e;
    }
    printf("checked %llu placement entries against every child in %.1f s: %llu error%s\n",
           (unsigned long long)checked, dt, (unsigned long long)errors, errors == 1 ? "" : "s");
    if (!job->all && job->sample <= COUNT_DISTINCT_MAX)
        printf("placement sample: %llu draws, %llu distinct entries\n", (unsigned long long)checked,
               (unsigned long long)distinct_draws(parts, threads));
    return errors;
}

int main(int argc, char **argv)
{
    cli_program = "baghchal-tbverify";
    const char *dir = NULL;
    static job_t job;
    job.sample = 1000000;
    job.seed = 1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = ncpu > 0 ? (int)(ncpu < MAX_THREADS ? ncpu : MAX_THREADS) : 1;
    bool sampled = false;
    char sp[TB_PATH_SHOWN], sp2[TB_PATH_SHOWN];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--sample"))
            job.sample = (uint64_t)cli_int(a, i + 1 < argc ? argv[++i] : NULL, 1, 1000000000000ll), sampled = true;
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
            cli_die("more than one directory given ('%s' and '%s')", tb_path_shown(dir, sp), tb_path_shown(a, sp2));
        else
            dir = a;
    }
    if (job.all && sampled)
        cli_die("--all and --sample go apart: --all checks every entry, --sample N draws N at random");
    char standard[TB_PATH_MAX];
    if (!dir) {
        if (!tb_default_dir(standard, sizeof standard))
            cli_die("no directory given, and %s turns the standard folder off (see --help)", TB_PATH_ENV);
        dir = standard;
    }
    char msg[256];
    tb_t *tb;
    /* A database that cannot be read: the check cannot run (status 2, as for bad usage);
     * status 1 is kept for a value that is wrong. */
    if (tb_open(dir, &tb, msg, sizeof msg) != TB_OK) {
        fprintf(stderr, "%s: %s\n", cli_program, msg);
        return 2;
    }
    tb_trust_layer_counts(tb, false); /* every value is read: the counts are checked too */
    job.tb = tb;
    int n = tb_slice_count(tb);
    job.chunks = (job.sample + CHUNK - 1) / CHUNK;
    if (job.all) {
        job.chunks = 0;
        for (int c = 0; c < n; c++)
            job.chunks += (2 * tb_slice_entries(tb, c) + CHUNK - 1) / CHUNK;
    }
    pthread_mutex_init(&job.lock, NULL);
    for (int c = 0; c < n; c++)
        for (int side = 0; side < SIDE_NB; side++)
            job.memo[c][side] = memo_new(&job, tb_slice_entries(tb, c), job.sample / (uint64_t)(2 * n));
    load_layers(&job, dir);

    static part_t parts[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        parts[t].job = &job;
    double dt = run_threads(run, parts, threads);

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
    printf("checked %llu entries (%llu repeats of a symmetric entry also against it) against every child "
           "in %.1f s: %llu error%s\n",
           (unsigned long long)(checked + errors), (unsigned long long)repeats, dt, (unsigned long long)errors,
           errors == 1 ? "" : "s");
    if (!job.all && job.sample <= COUNT_DISTINCT_MAX)
        printf("movement sample: %llu draws, %llu distinct entries\n", (unsigned long long)(checked + errors),
               (unsigned long long)distinct_draws(parts, threads));
    if (job.nlayers)
        errors += verify_placement(&job, parts, threads);
    else
        printf("no placement file (%s): the movement phase only\n", TBP_FILE_NAME);
    for (int c = 0; c < n; c++)
        for (int side = 0; side < SIDE_NB; side++)
            free(job.memo[c][side]);
    for (int q = 0; q < job.nlayers; q++)
        free(job.pmemo[q]);
    tb_close(tb);
    return errors ? 1 : 0;
}
