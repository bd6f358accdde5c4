/* The database tools on the placement solution, driven as executables over pipes: a small
 * game (2 goats, 2 captures win) built by baghchal-tbgen --placement; baghchal-tbverify
 * --all on it (entries per layer, exit 0), on a file with a corrupt byte (refused, exit 2)
 * and on a file with a wrong value under a right checksum (exit 1, the layer named);
 * --stats against counts made here from the generator's packed layers; --bench-probe; a
 * build stopped after two layers and resumed (only the others are built, the file is the
 * same byte for byte); a build stopped or killed in its merge (no layer built again, the
 * same file); one build at a time in a folder; a FIFO or a directory in a file's place;
 * files of an older or a newer version, each refused with what to do; and baghchal-tbprove's
 * tables per layer against the positions it lists.
 * Under ThreadSanitizer, whose build is there for the threads, three of them run: --all and a
 * sample on two threads against one, and a threaded build resumed (the fixture tb_small_build
 * builds the game on two threads there as well); the others check files, values and refusals,
 * the same code on one thread or two, in the release and AddressSanitizer builds. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "baghchal.h"
#include "pipe.h"
#include "sanitized.h"
#include "tb_build.h"
#include "tree.h"

#define TBGEN BAGHCHAL_BIN_DIR "/baghchal-tbgen"
#define TBVERIFY BAGHCHAL_BIN_DIR "/baghchal-tbverify"

/* Generous: sanitizer builds on a loaded two-core machine are slow. */
enum { TOOL_MS = 300000, GOATS_N = 2, WIN_K = 2 };

static char current_dir[128];

static void cleanup(void)
{
    if (current_dir[0])
        tree_remove(current_dir);
}

TestSuite(tbtools, .fini = cleanup, .timeout = 600);

static const char *make_dir(void)
{
    snprintf(current_dir, sizeof current_dir, "/tmp/test_tbtools.XXXXXX");
    cr_assert_not_null(mkdtemp(current_dir));
    return current_dir;
}

/* ---- Running a tool ------------------------------------------------------------------ */

typedef struct {
    int code;
    pipe_lines_t out; /* standard output and standard error, merged, line by line */
} run_t;

/* Starts a shell command line (a tool with its arguments; stderr joined to stdout). */
static pipe_proc_t *start_cmd(const char *cmd)
{
    size_t len = strlen(cmd) + 32;
    char *full = malloc(len);
    cr_assert_not_null(full);
    snprintf(full, len, "exec %s 2>&1", cmd);
    char *argv[] = {"/bin/sh", "-c", full, NULL};
    pipe_proc_t *p = pipe_start(argv, 0);
    cr_assert_not_null(p, "cannot start: %s", cmd);
    free(full);
    pipe_close_stdin(p);
    return p;
}

/* Collects the output and exit status of a command start_cmd started. */
static void finish_cmd(run_t *r, pipe_proc_t *p, const char *cmd)
{
    memset(r, 0, sizeof *r);
    char *line;
    pipe_status_t st = pipe_read_until(p, "\x01never", TOOL_MS, &r->out, &line);
    cr_assert_eq(st, PIPE_EOF, "%.200s: %s before the end of its output", cmd, pipe_status_name(st));
    pipe_exit_t ex = pipe_wait(p, TOOL_MS);
    cr_assert(ex.exited, "%.200s did not exit normally (signal %d)", cmd, ex.signal);
    r->code = ex.code;
    pipe_free(p);
}

/* Runs a shell command line (a tool with its arguments; stderr joined to stdout) and
 * collects its output and exit status. */
static void format_cmd(char *cmd, size_t len, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
static void format_cmd(char *cmd, size_t len, const char *fmt, va_list ap)
{
    int n = vsnprintf(cmd, len, fmt, ap);
    cr_assert(n > 0 && (size_t)n < len, "a command line of %d bytes", n);
}

static void run(run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run(run_t *r, const char *fmt, ...)
{
    char cmd[16384];
    va_list ap;
    va_start(ap, fmt);
    format_cmd(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    finish_cmd(r, start_cmd(cmd), cmd);
}

static void run_free(run_t *r) { pipe_lines_free(&r->out); }

/* The first line starting with prefix, or NULL. */
static const char *find_line(const run_t *r, const char *prefix)
{
    for (size_t i = 0; i < r->out.count; i++)
        if (!strncmp(r->out.line[i], prefix, strlen(prefix)))
            return r->out.line[i];
    return NULL;
}

static size_t count_lines(const run_t *r, const char *needle)
{
    size_t n = 0;
    for (size_t i = 0; i < r->out.count; i++)
        n += strstr(r->out.line[i], needle) != NULL;
    return n;
}

static void dump(const run_t *r)
{
    for (size_t i = 0; i < r->out.count; i++)
        fprintf(stderr, "  | %s\n", r->out.line[i]);
}

/* Runs a command line that must be refused: exit status code and want, the one-line reason,
 * as its last line (its only line with only set: tbverify prints nothing else). */
static void expect_refusal(int code, bool only, const char *want, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void expect_refusal(int code, bool only, const char *want, const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    format_cmd(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    run_t r;
    finish_cmd(&r, start_cmd(cmd), cmd);
    if (r.code != code || r.out.count == 0)
        dump(&r);
    cr_assert_eq(r.code, code, "%s", cmd);
    cr_assert_gt(r.out.count, 0, "%s: no reason given", cmd);
    if (only)
        cr_assert_eq(r.out.count, 1, "%s: %zu lines", cmd, r.out.count);
    cr_assert_str_eq(r.out.line[r.out.count - 1], want, "%s", cmd);
    run_free(&r);
}

/* The small game in dir with its work folder: a copy of the one ctest builds once
 * (BAGHCHAL_TB_SMALL, the fixture tb_small_build), else built here. */
static void build_small(const char *dir)
{
    run_t r;
    const char *built = getenv("BAGHCHAL_TB_SMALL");
    if (built && *built) {
        run(&r, "cp -R '%s'/. '%s'", built, dir);
        cr_assert_eq(r.code, 0, "cannot copy the small game from %s", built);
        run_free(&r);
        return;
    }
    run(&r, "%s %s --goats %d --captures-to-win %d --placement --keep-work --threads 2", TBGEN, dir, GOATS_N, WIN_K);
    if (r.code != 0)
        dump(&r);
    cr_assert_eq(r.code, 0, "baghchal-tbgen --placement failed");
    run_free(&r);
}

/* The small game's movement database in dir, copied from the one ctest builds once (when it
 * does), so that a test of the placement build builds that phase only: the movement build is
 * the fixture's, and every --restart below builds it again. */
static void seed_movement(const char *dir)
{
    const char *built = getenv("BAGHCHAL_TB_SMALL");
    if (!built || !*built)
        return;
    run_t r;
    run(&r, "cp '%s/%s' '%s/'", built, TB_FILE_NAME, dir);
    cr_assert_eq(r.code, 0, "cannot copy the small game's movement database from %s", built);
    run_free(&r);
}

/* ---- The layers, as the generator left them in the work folder ------------------------ */

typedef struct {
    int side, h, c;
    uint64_t entries;
    uint64_t value[3];     /* entries lost, drawn, won by the side to move */
    uint64_t positions[3]; /* the same over positions (an entry counts its class's orbit) */
} layer_count_t;

/* The small game's layers: G(1,0) T(1,0) G(1,1) T(1,1) G(2,0). */
static int read_layers(const char *dir, layer_count_t out[], int max)
{
    char work[256], msg[256];
    snprintf(work, sizeof work, "%s/placement-work", dir);
    tb_index_t *ix = tb_index_new();
    cr_assert_not_null(ix);
    tbp_rank_t rk;
    tbp_rank_init(&rk);
    int n = 0;
    for (int h = 1; h <= GOATS_N; h++)
        for (int c = 0; c < WIN_K; c++)
            for (int side = 0; side < SIDE_NB; side++) {
                if (!tbp_layer_exists(GOATS_N, WIN_K, side, h, c))
                    continue;
                cr_assert_lt(n, max);
                tbp_layer_t l;
                tbp_layer_shape(&l, &rk, GOATS_N, side, h, c);
                cr_assert_eq(tbp_layer_load(work, &l, GOATS_N, WIN_K, msg, sizeof msg), TB_OK, "%s", msg);
                layer_count_t *o = &out[n++];
                memset(o, 0, sizeof *o);
                o->side = side, o->h = h, o->c = c;
                o->entries = (uint64_t)l.ng * TB_TIGER_CLASSES;
                for (uint32_t k = 0; k < TB_TIGER_CLASSES; k++)
                    for (uint32_t r = 0; r < l.ng; r++) {
                        uint32_t v = tbp_get(l.bits + (uint64_t)k * l.wpc, r);
                        cr_assert_lt(v, 3);
                        o->value[v]++;
                        o->positions[v] += ix->cls[k].orbit;
                    }
                free(l.bits);
            }
    tb_index_free(ix);
    return n;
}

static const char *commas(uint64_t v, char *buf)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = '\0';
    return buf;
}

static void layer_label(const layer_count_t *l, char *buf, size_t len)
{
    snprintf(buf, len, "%s h=%d c=%d", l->side == GOATS ? "goats" : "tigers", l->h, l->c);
}

/* The numbers of a tbverify layer row: entries, terminal, win, draw, loss, errors. */
static void verify_row(const run_t *r, const char *label, unsigned long long v[6], char *rest, size_t restlen)
{
    char prefix[40];
    snprintf(prefix, sizeof prefix, "%s ", label);
    const char *line = find_line(r, prefix);
    if (!line)
        dump(r);
    cr_assert_not_null(line, "no row for layer %s", label);
    char stored[8];
    int used = 0;
    cr_assert_eq(sscanf(line + strlen(label), " %7s %llu %llu %llu %llu %llu %llu %n", stored, &v[0], &v[1], &v[2],
                        &v[3], &v[4], &v[5], &used),
                 7, "row: %s", line);
    snprintf(rest, restlen, "%s", line + strlen(label) + used);
}

/* ---- baghchal-tbverify ---------------------------------------------------------------- */

Test(tbtools, verify_all_checks_every_placement_entry_per_layer)
{
    const char *dir = make_dir();
    build_small(dir);
    layer_count_t lay[8];
    int n = read_layers(dir, lay, 8);
    cr_assert_eq(n, 5);
    run_t r;
    run(&r, "%s %s --all --threads 2", TBVERIFY, dir);
    if (r.code != 0)
        dump(&r);
    cr_assert_eq(r.code, 0);
    cr_assert_not_null(find_line(&r, "placement: 5 layers of 2 goats, tigers to move stored (goats to move: one ply "
                                     "of probes), every entry"));
    /* Entries per layer: 1,666 tiger classes x C(21, goats on the board). */
    const uint64_t entries[5] = {1666 * 21, 1666 * 21, 1666, 1666, 1666}; /* G(1,0) T(1,0) G(1,1) T(1,1) G(2,0) */
    uint64_t total = 0;
    for (int q = 0; q < n; q++) {
        char label[32], rest[64];
        layer_label(&lay[q], label, sizeof label);
        unsigned long long v[6];
        verify_row(&r, label, v, rest, sizeof rest);
        cr_assert_eq(lay[q].entries, entries[q], "%s", label);
        cr_assert_eq(v[0], entries[q], "%s: entries checked", label);
        cr_assert_eq(v[0], v[1] + v[2] + v[3] + v[4], "%s: the kinds add up", label);
        cr_assert_eq(v[2], lay[q].value[2], "%s: wins", label);
        cr_assert_eq(v[3], lay[q].value[1], "%s: draws", label);
        cr_assert_eq(v[1] + v[4], lay[q].value[0], "%s: losses, terminal or not", label);
        cr_assert_eq(v[5], 0, "%s: errors", label);
        cr_assert_str_eq(rest, "same as the layer table", "%s", label);
        total += v[0];
    }
    cr_assert_eq(total, 74970);
    cr_assert_not_null(find_line(&r, "checked 74970 placement entries against every child in "));
    cr_assert_eq(count_lines(&r, ": 0 errors"), 2, "movement and placement");
    run_free(&r);
}

Test(tbtools, verify_sample_is_the_same_on_any_thread_count)
{
    const char *dir = make_dir();
    build_small(dir);
    run_t a, b;
    run(&a, "%s %s --sample 3000 --seed 5 --threads 1", TBVERIFY, dir);
    run(&b, "%s %s --sample 3000 --seed 5 --threads 2", TBVERIFY, dir);
    cr_assert_eq(a.code, 0);
    cr_assert_eq(b.code, 0);
    const char *labels[5] = {"goats h=1 c=0", "goats h=1 c=1", "goats h=2 c=0", "tigers h=1 c=0", "tigers h=1 c=1"};
    unsigned long long sum = 0;
    for (int q = 0; q < 5; q++) {
        unsigned long long va[6], vb[6];
        char rest[64];
        verify_row(&a, labels[q], va, rest, sizeof rest);
        cr_assert_str_eq(rest, "-", "no count check on a sample");
        verify_row(&b, labels[q], vb, rest, sizeof rest);
        cr_assert_arr_eq(va, vb, sizeof va, "%s", labels[q]);
        cr_assert_gt(va[0], 0, "%s drawn", labels[q]);
        sum += va[0];
    }
    cr_assert_eq(sum, 3000);
    run_free(&a);
    run_free(&b);
}

/* Flips one byte inside the array of the tigers' layers with no goat captured. */
static void corrupt_stored_layer(const char *dir)
{
    tbp_header_t *x = malloc(sizeof *x);
    cr_assert_not_null(x);
    char msg[256], path[256];
    cr_assert_eq(tbp_read_header(dir, x, msg, sizeof msg), TB_OK, "%s", msg);
    const tbp_array_info_t *a = &x->array[0];
    cr_assert_neq(a->valid, 0);
    cr_assert_geq(a->offset, TBP_HEADER_SIZE);
    cr_assert_gt(a->length, 16);
    snprintf(path, sizeof path, "%s/%s", dir, TBP_FILE_NAME);
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    long at = (long)(a->offset + a->length - 20);
    cr_assert_eq(fseek(f, at, SEEK_SET), 0);
    int b = fgetc(f);
    cr_assert_neq(b, EOF);
    cr_assert_eq(fseek(f, at, SEEK_SET), 0);
    cr_assert_neq(fputc(b ^ 0x10, f), EOF);
    cr_assert_eq(fclose(f), 0);
    free(x);
}

Test(tbtools, a_corrupt_byte_in_a_stored_layer_is_refused, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    build_small(dir);
    corrupt_stored_layer(dir);
    tb_t *tb;
    char msg[256];
    cr_assert_eq(tb_open(dir, &tb, msg, sizeof msg), TB_ERR_CHECKSUM);
    cr_assert_str_eq(msg, "placement array of 0 captured: data checksum mismatch");
    run_t r;
    run(&r, "%s %s --all", TBVERIFY, dir);
    cr_assert_eq(r.code, 2, "a corrupt database: the check cannot run");
    cr_assert_eq(r.out.count, 1, "one line");
    cr_assert_str_eq(r.out.line[0], "baghchal-tbverify: placement array of 0 captured: data checksum mismatch");
    run_free(&r);
    run(&r, "%s --stats %s", TBGEN, dir);
    cr_assert_eq(r.code, 1);
    cr_assert_str_eq(r.out.line[r.out.count - 1], "baghchal-tbgen: placement array of 0 captured: data checksum mismatch");
    run_free(&r);
}

/* Turns one win of tigers h=1 c=0 into a loss in the work folder and packs again: the file
 * is well formed and its checksums are right, its value is not. Returns the entry. */
static uint64_t plant_wrong_value(const char *dir)
{
    char work[256], path[256], msg[256];
    snprintf(work, sizeof work, "%s/placement-work", dir);
    snprintf(path, sizeof path, "%s/%s", dir, TBP_FILE_NAME);
    tbp_rank_t rk;
    tbp_rank_init(&rk);
    tbp_layer_t l;
    tbp_layer_shape(&l, &rk, GOATS_N, TIGERS, 1, 0);
    cr_assert_eq(tbp_layer_load(work, &l, GOATS_N, WIN_K, msg, sizeof msg), TB_OK, "%s", msg);
    const uint32_t k = 700, rank = 5; /* class 700, goat set 5 */
    const uint64_t entry = (uint64_t)k * l.ng + rank;
    uint64_t *w = l.bits + (uint64_t)k * l.wpc + rank / 32;
    cr_assert_eq((*w >> (rank % 32 * 2)) & 3, 2, "the tigers win it");
    *w &= ~(3ull << (rank % 32 * 2));
    cr_assert_eq(tbp_layer_save(work, &l, GOATS_N, WIN_K, msg, sizeof msg), TB_OK, "%s", msg);
    free(l.bits);
    cr_assert_eq(tbp_pack(work, path, GOATS_N, WIN_K, 0, 0, TIGERS, NULL, NULL, msg, sizeof msg), TB_OK, "%s", msg);
    tb_t *tb;
    cr_assert_eq(tb_open(dir, &tb, msg, sizeof msg), TB_OK, "the checksums are right: %s", msg);
    tb_close(tb);
    return entry;
}

Test(tbtools, a_wrong_value_under_a_right_checksum_is_found, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    build_small(dir);
    uint64_t entry = plant_wrong_value(dir);
    run_t r;
    run(&r, "%s %s --all --threads 2", TBVERIFY, dir);
    cr_assert_eq(r.code, 1, "a wrong value");
    char want[80];
    snprintf(want, sizeof want, "layer tigers h=1 c=0 entry %llu (", (unsigned long long)entry);
    const char *line = find_line(&r, want);
    if (!line)
        dump(&r);
    cr_assert_not_null(line, "the wrong entry is named");
    cr_assert(strstr(line, "): stored loss, its ") && strstr(line, " children give win"), "%s", line);
    unsigned long long v[6];
    char rest[64];
    verify_row(&r, "tigers h=1 c=0", v, rest, sizeof rest);
    cr_assert_eq(v[0], 34986);
    cr_assert_eq(v[5], 1, "one error in the layer");
    /* The goats' placements that lead to that position now find a win: their counts are no
     * longer the generator's. */
    verify_row(&r, "goats h=2 c=0", v, rest, sizeof rest);
    cr_assert_eq(v[5], 1);
    cr_assert_str_eq(rest, "DIFFERENT");
    cr_assert_not_null(find_line(&r, "layer goats h=2 c=0: W/D/L over positions "));
    const char *others[3] = {"goats h=1 c=0", "goats h=1 c=1", "tigers h=1 c=1"};
    for (int q = 0; q < 3; q++) {
        verify_row(&r, others[q], v, rest, sizeof rest);
        cr_assert_eq(v[5], 0, "%s", others[q]);
        cr_assert_str_eq(rest, "same as the layer table", "%s", others[q]);
    }
    cr_assert_not_null(find_line(&r, "checked 74970 placement entries against every child in "));
    cr_assert(strstr(find_line(&r, "checked 74970 placement entries"), ": 2 errors"));
    run_free(&r);
}

Test(tbtools, verify_exit_status_when_it_cannot_run, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    run_t r;
    run(&r, "env %s= %s", TB_PATH_ENV, TBVERIFY);
    cr_assert_eq(r.code, 2);
    cr_assert_str_eq(r.out.line[0],
                     "baghchal-tbverify: no directory given, and " TB_PATH_ENV " turns the standard folder off (see --help)");
    run_free(&r);
    run(&r, "%s %s --sample 0", TBVERIFY, dir);
    cr_assert_eq(r.code, 2);
    cr_assert_eq(r.out.count, 1);
    run_free(&r);
    run(&r, "%s %s", TBVERIFY, dir);
    cr_assert_eq(r.code, 2, "no database");
    cr_assert_eq(r.out.count, 1);
    cr_assert(strstr(r.out.line[0], "baghchal.tb"), "%s", r.out.line[0]);
    run_free(&r);
    /* A movement database without the placement file: checked alone. */
    run(&r, "%s %s --goats %d --captures-to-win %d", TBGEN, dir, GOATS_N, WIN_K);
    cr_assert_eq(r.code, 0);
    run_free(&r);
    run(&r, "%s %s --sample 1000", TBVERIFY, dir);
    cr_assert_eq(r.code, 0);
    cr_assert_not_null(find_line(&r, "no placement file (baghchal-placement.tb): the movement phase only"));
    run_free(&r);
    /* A truncated placement file. */
    build_small(dir);
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, TBP_FILE_NAME);
    cr_assert_eq(truncate(path, TBP_HEADER_SIZE + 10), 0);
    run(&r, "%s %s", TBVERIFY, dir);
    cr_assert_eq(r.code, 2);
    cr_assert_eq(r.out.count, 1);
    cr_assert(strstr(r.out.line[0], "truncated"), "%s", r.out.line[0]);
    run_free(&r);
}

/* A sample of 1,000,000 draws over the small game's five layers (200,000 each) meets the
 * one wrong entry of 34,986 about 5.7 times: every seed tried finds it. The draws of
 * neighbouring chunks once followed each other shifted by one, and then no seed did. */
Test(tbtools, a_wrong_value_is_found_by_a_sample, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    build_small(dir);
    uint64_t entry = plant_wrong_value(dir);
    char want[80];
    snprintf(want, sizeof want, "layer tigers h=1 c=0 entry %llu (", (unsigned long long)entry);
    for (int seed = 1; seed <= 3; seed++) {
        run_t r;
        run(&r, "%s %s --sample 1000000 --seed %d --threads 2", TBVERIFY, dir, seed);
        if (r.code != 1 || !find_line(&r, want))
            dump(&r);
        cr_assert_eq(r.code, 1, "seed %d: the wrong value is found", seed);
        cr_assert_not_null(find_line(&r, want), "seed %d: the wrong entry is named", seed);
        run_free(&r);
    }
}

/* The distinct entries of a sample are about what independent draws give: n (1 - e^(-d/n))
 * for d draws from each of the layers (or slice sides) of n entries. */
Test(tbtools, a_sample_draws_independent_entries, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    build_small(dir);
    run_t r;
    run(&r, "%s %s --sample 100000 --seed 9 --threads 2", TBVERIFY, dir);
    cr_assert_eq(r.code, 0);
    unsigned long long draws, distinct;
    const char *line = find_line(&r, "placement sample: ");
    cr_assert_not_null(line);
    cr_assert_eq(sscanf(line, "placement sample: %llu draws, %llu distinct entries", &draws, &distinct), 2, "%s",
                 line);
    cr_assert_eq(draws, 100000);
    /* Five layers, 20,000 draws each: 2 x 34,986 x (1 - e^-0.572) + 3 x 1,666 = 35,464. */
    cr_assert(distinct > 34500 && distinct < 36500, "%s", line);
    line = find_line(&r, "movement sample: ");
    cr_assert_not_null(line);
    cr_assert_eq(sscanf(line, "movement sample: %llu draws, %llu distinct entries", &draws, &distinct), 2, "%s", line);
    cr_assert_eq(draws, 100000);
    /* Slices 0 and 1, both sides, 25,000 draws each: 2 x 349,860 x (1 - e^-0.0715)
     * + 2 x 34,986 x (1 - e^-0.715) = 84,016. */
    cr_assert(distinct > 83000 && distinct < 85000, "%s", line);
    run_free(&r);
}

/* ---- baghchal-tbgen --stats and --bench-probe ------------------------------------------ */

Test(tbtools, stats_print_every_placement_layer_and_the_start, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    build_small(dir);
    layer_count_t lay[8];
    int n = read_layers(dir, lay, 8);
    run_t r;
    run(&r, "%s --stats %s", TBGEN, dir);
    cr_assert_eq(r.code, 0);
    cr_assert_not_null(find_line(&r, "placement phase (baghchal-placement.tb): 5 layers, W / D / L for the side to "
                                     "move, over positions"));
    /* A row per (in hand, captured): the goats' and the tigers' counts, from the layer files. */
    uint64_t total[SIDE_NB] = {0};
    for (int h = GOATS_N; h >= 1; h--)
        for (int c = 0; c < WIN_K; c++) {
            char cell[SIDE_NB][100];
            bool any = false;
            for (int side = 0; side < SIDE_NB; side++) {
                snprintf(cell[side], sizeof cell[side], "-");
                for (int q = 0; q < n; q++)
                    if (lay[q].side == side && lay[q].h == h && lay[q].c == c) {
                        char a[32], b[32], d[32];
                        snprintf(cell[side], sizeof cell[side], "%s / %s / %s", commas(lay[q].positions[2], a),
                                 commas(lay[q].positions[1], b), commas(lay[q].positions[0], d));
                        total[side] += lay[q].positions[0] + lay[q].positions[1] + lay[q].positions[2];
                        any = true;
                    }
            }
            char row[300];
            snprintf(row, sizeof row, "| %d | %d | %s | %s |", h, c, cell[GOATS], cell[TIGERS]);
            if (!any)
                continue;
            if (!find_line(&r, row))
                dump(&r);
            cr_assert_not_null(find_line(&r, row), "missing row: %s", row);
        }
    /* The small game is the tigers': every goats-to-move position lost, every tigers-to-move
     * position won (12,650 tiger sets x C(21, goats)). */
    cr_assert_not_null(find_line(&r, "| 1 | 0 | 0 / 0 / 265,650 | 265,650 / 0 / 0 |"));
    cr_assert_eq(total[GOATS], 290950);
    cr_assert_eq(total[TIGERS], 278300);
    cr_assert_not_null(find_line(&r, "placement positions: goats to move 290,950, tigers to move 278,300"));
    cr_assert_not_null(find_line(&r, "start position (goats to move, 2 in hand, tigers on A1 E1 A5 E5): the tigers win"));
    run_free(&r);
}

/* --forbid on the small game: the movement slices, then the placement table, whose layers with
 * one goat in hand and none captured are marked (their boards can come back after a capture)
 * and open in full, and the start's value under both rules. */
Test(tbtools, forbid_table_marks_the_layers_whose_boards_can_come_back, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    build_small(dir);
    run_t r;
    run(&r, "%s %s --forbid --placement --threads 1", TBGEN, dir);
    if (r.code != 0)
        dump(&r);
    cr_assert_eq(r.code, 0);
    const char *want[] = {
        "| captured | side to move | draw-rule draws | goats win | tigers win | open | by the history search | time |",
        "| in hand | captured | side to move | boards can come back | positions | draw rule: goats win / draw / tigers "
        "win | forbid: goats win | tigers win | open |",
        /* Every position the tigers' under the draw rule; under forbid open in full there. */
        "| 1 | 0 | goats | yes | 265,650 | 0 / 0 / 265,650 | 0 | 0 | 265,650 |",
        "| 1 | 0 | tigers | yes | 265,650 | 0 / 0 / 265,650 | 0 | 0 | 265,650 |",
        /* The start's layer: each first goat lands in one of them. */
        "| 2 | 0 | goats | no | 12,650 | 0 / 0 / 12,650 | 0 | 0 | 12,650 |",
        "start position: under the draw rule the tigers win; under forbid open (the two builds differ: it depends on "
        "movement positions left open or on boards that can come back)",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        if (!find_line(&r, want[i]))
            dump(&r);
        cr_assert_not_null(find_line(&r, want[i]), "missing: %s", want[i]);
    }
    /* One capture from the end with one goat on the board: nothing can come back, and the
     * builds agree on every position. */
    cr_assert_eq(count_lines(&r, "| 1 | 1 | "), 2);
    cr_assert_eq(count_lines(&r, "| no | "), 3);
    for (size_t i = 0; i < r.out.count; i++)
        if (!strncmp(r.out.line[i], "| 1 | 1 | ", 10))
            cr_assert(strstr(r.out.line[i], "| no |") && strstr(r.out.line[i], " | 0 |"), "%s", r.out.line[i]);
    cr_assert_eq(count_lines(&r, "placement phase under forbid built in"), 1);
    cr_assert_eq(count_lines(&r, "(both builds)"), 1);
    run_free(&r);
}

Test(tbtools, bench_probe_times_both_sides_and_the_move_choice, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    build_small(dir);
    run_t r;
    run(&r, "%s --bench-probe %s --count 2000", TBGEN, dir);
    if (r.code != 0)
        dump(&r);
    cr_assert_eq(r.code, 0);
    /* Every random position is covered and has the small game's value. */
    const char *g = find_line(&r, "placement probe, goats to move (one ply of probes, 3 layers): 1000 random positions, "
                                  "best of 3 rounds: ");
    const char *t = find_line(&r, "placement probe, tigers to move (stored, 2 layers): 1000 random positions, best of "
                                  "3 rounds: ");
    cr_assert_not_null(g);
    cr_assert_not_null(t);
    cr_assert(strstr(g, " ns per probe (W 0 D 0 L 1,000, not covered 0)"), "%s", g);
    cr_assert(strstr(t, " ns per probe (W 1,000 D 0 L 0, not covered 0)"), "%s", t);
    double ns;
    cr_assert_eq(sscanf(strstr(g, "rounds: ") + 8, "%lf", &ns), 1);
    cr_assert_gt(ns, 0);
    cr_assert_not_null(find_line(&r, "placement probe, both sides: "));
    const char *m = find_line(&r, "choosing a move (tb_rank_moves over every legal move): 20 random placement "
                                  "positions of every layer, best of 3 rounds: ");
    cr_assert_not_null(m);
    cr_assert(strstr(m, " us max (not covered 0; best move's value = the probe's in 20)"), "%s", m);
    /* The 20 positions by side: the layers taken in turn, as many of each side as it has layers. */
    const char *by = find_line(&r, "choosing a move by the side to move: goats ");
    cr_assert_not_null(by);
    long ng = 0, nt = 0;
    cr_assert_eq(sscanf(by, "choosing a move by the side to move: goats %*f us average over %ld positions, tigers %*f us "
                            "over %ld", &ng, &nt), 2, "%s", by);
    cr_assert_eq(ng + nt, 20, "%s", by);
    cr_assert(ng > 0 && nt > 0, "%s", by);
    cr_assert_null(find_line(&r, "layer "), "a line per layer only with --by-layer");
    run_free(&r);
    /* --by-layer: every layer of the small game alone, each position with the layer's value. */
    run(&r, "%s --bench-probe %s --count 2000 --by-layer", TBGEN, dir);
    cr_assert_eq(r.code, 0);
    static const char *const layers[] = {
        "layer goats  h= 1 c=0 ( 1 goats on the board): 40 random positions, ",
        "layer goats  h= 1 c=1 ( 0 goats on the board): 40 random positions, ",
        "layer goats  h= 2 c=0 ( 0 goats on the board): 40 random positions, ",
        "layer tigers h= 1 c=0 ( 1 goats on the board): 40 random positions, ",
        "layer tigers h= 1 c=1 ( 0 goats on the board): 40 random positions, ",
    };
    for (int i = 0; i < 5; i++) {
        const char *l = find_line(&r, layers[i]);
        cr_assert_not_null(l, "%s", layers[i]);
        cr_assert(strstr(l, i < 3 ? " ns per probe (W 0 D 0 L 40, not covered 0)" : " ns per probe (W 40 D 0 L 0, not covered 0)"),
                  "%s", l);
    }
    run_free(&r);
    run(&r, "%s --by-layer %s", TBGEN, dir);
    cr_assert_eq(r.code, 2, "--by-layer alone is refused");
    run_free(&r);
}

/* ---- Resume ---------------------------------------------------------------------------- */

static uint8_t *read_file(const char *path, size_t *len)
{
    uint8_t *b = (uint8_t *)tree_read_file(path, len);
    cr_assert_gt(*len, 0, "%s is empty", path);
    return b;
}

/* The file at path holds exactly want (len bytes). */
static void expect_same_file(const char *path, const uint8_t *want, size_t len, const char *what)
{
    size_t got_len;
    uint8_t *got = read_file(path, &got_len);
    cr_assert(got_len == len && !memcmp(got, want, len), "%s: %s", path, what);
    free(got);
}

static void count_built(const run_t *r, size_t *built, size_t *loaded)
{
    *built = count_lines(r, " entries built in ");
    *loaded = count_lines(r, " entries loaded in ");
}

/* The small game's placement build in dir (two threads), which must succeed; the layers it
 * built and loaded when asked. */
static void build_placement(run_t *r, const char *dir, size_t *built, size_t *loaded)
{
    run(r, "%s %s --goats %d --captures-to-win %d --placement --threads 2", TBGEN, dir, GOATS_N, WIN_K);
    if (r->code != 0)
        dump(r);
    cr_assert_eq(r->code, 0);
    if (built)
        count_built(r, built, loaded);
}

Test(tbtools, a_stopped_build_resumes_at_the_first_layer_not_finished)
{
    const char *dir = make_dir();
    char path[256], work[256];
    snprintf(path, sizeof path, "%s/%s", dir, TBP_FILE_NAME);
    snprintf(work, sizeof work, "%s/placement-work", dir);
    run_t r;
    size_t built, loaded, len0;
    /* Uninterrupted: five layers built, the work folder gone. */
    seed_movement(dir);
    build_placement(&r, dir, &built, &loaded);
    cr_assert_eq(built, 5);
    cr_assert_eq(loaded, 0);
    run_free(&r);
    struct stat st;
    cr_assert_neq(stat(work, &st), 0, "the work folder is removed");
    uint8_t *before = read_file(path, &len0);
    /* Built again, stopped after two layers as an interruption would. */
    run(&r, "%s %s --goats %d --captures-to-win %d --placement --threads 2 --restart --stop-after 2", TBGEN, dir,
        GOATS_N, WIN_K);
    cr_assert_eq(r.code, 1);
    cr_assert_str_eq(r.out.line[r.out.count - 1], "baghchal-tbgen: stopped after 2 layers, as asked");
    count_built(&r, &built, &loaded);
    cr_assert_eq(built, 2);
    run_free(&r);
    /* The packed layers are kept; the next run builds the three others only. */
    build_placement(&r, dir, &built, &loaded);
    cr_assert_eq(built, 3, "the layers not finished");
    cr_assert_eq(loaded, 2, "the finished ones");
    cr_assert_not_null(find_line(&r, "layer goats  h= 1 c=1: 1,666 entries loaded in "));
    cr_assert_not_null(find_line(&r, "layer tigers h= 1 c=1: 1,666 entries loaded in "));
    cr_assert_not_null(find_line(&r, "layer goats  h= 1 c=0: 34,986 entries built in "));
    run_free(&r);
    expect_same_file(path, before, len0, "the file is the same byte for byte");
    cr_assert_neq(stat(work, &st), 0, "the work folder is removed");
    /* A finished file is not built again. */
    build_placement(&r, dir, &built, &loaded);
    cr_assert_eq(built + loaded, 0);
    char said[400];
    snprintf(said, sizeof said, "%s: already built, every checksum verified", path);
    cr_assert_not_null(find_line(&r, said));
    run_free(&r);
    expect_same_file(path, before, len0, "the same file again");
    free(before);
}

/* The small game in a new folder, its placement file's header saying version; its path. */
static const char *small_game_of_version(int version, char *path, size_t len)
{
    const char *dir = make_dir();
    build_small(dir);
    snprintf(path, len, "%s/%s", dir, TBP_FILE_NAME);
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    cr_assert_eq(fseek(f, 8, SEEK_SET), 0);
    cr_assert_neq(fputc(version, f), EOF);
    cr_assert_eq(fclose(f), 0);
    return dir;
}

/* The placement file of dir is refused, by the library and by tbverify, for reason. */
static void expect_file_refused(const char *dir, const char *reason)
{
    tb_t *tb;
    char msg[300];
    cr_assert_eq(tb_open(dir, &tb, msg, sizeof msg), TB_ERR_FORMAT);
    cr_assert_str_eq(msg, reason);
    char want[400];
    snprintf(want, sizeof want, "baghchal-tbverify: %s", reason);
    expect_refusal(2, true, want, "%s %s", TBVERIFY, dir);
}

/* A file of the version before (its header says 3) is refused, naming the command. */
Test(tbtools, an_older_file_is_refused_with_the_command_that_rebuilds_it, .disabled = UNDER_TSAN)
{
    char path[256], msg[300];
    const char *dir = small_game_of_version(3, path, sizeof path);
    expect_file_refused(dir, "placement file version 3, this program reads version 4: build it again with "
                             "baghchal-tbgen <dir> --placement --restart");
    run_t r;
    tb_t *tb;
    /* The build replaces it. */
    build_placement(&r, dir, NULL, NULL);
    run_free(&r);
    cr_assert_eq(tb_open(dir, &tb, msg, sizeof msg), TB_OK, "%s", msg);
    tb_close(tb);
}

/* ---- The merge, interrupted ------------------------------------------------------------- */

static bool exists(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

/* The resumed build of a merge stopped after its first array: every layer counts as finished
 * (the tigers' layers of 0 captured from the array's record: their packed files are gone),
 * none is built again, the array is kept, and the file is the uninterrupted build's. */
static void expect_merge_resumed(const char *dir, const uint8_t *want, size_t want_len)
{
    run_t r;
    size_t built, loaded;
    build_placement(&r, dir, &built, &loaded);
    cr_assert_eq(built, 0, "no layer is built again");
    cr_assert_eq(loaded, 5, "every layer is finished");
    cr_assert_not_null(find_line(&r, "layer tigers h= 1 c=0: 34,986 entries loaded in "));
    cr_assert_not_null(find_line(&r, "layer tigers h= 1 c=0: 34,986 entries loaded in 0.0 s (elapsed 0 s, about 0 s "
                                     "left): W 265,650 D 0 L 0"),
                       "its counts, from the array's record");
    cr_assert_null(find_line(&r, "packed the tigers-to-move layers with 0 captured"), "the array written is kept");
    cr_assert_not_null(find_line(&r, "packed the tigers-to-move layers with 1 captured: "));
    run_free(&r);
    char path[256], work[256];
    snprintf(path, sizeof path, "%s/%s", dir, TBP_FILE_NAME);
    snprintf(work, sizeof work, "%s/placement-work", dir);
    expect_same_file(path, want, want_len, "the file is the uninterrupted build's, byte for byte");
    struct stat st;
    cr_assert_neq(stat(work, &st), 0, "the work folder is removed");
}

/* The reference: the small game's file built straight through, in dir. */
static uint8_t *straight_build(const char *dir, size_t *len)
{
    run_t r;
    seed_movement(dir);
    build_placement(&r, dir, NULL, NULL);
    run_free(&r);
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, TBP_FILE_NAME);
    return read_file(path, len);
}

/* The merge once deleted each captured count's packed layers after writing its array, and a
 * build stopped after that rebuilt every layer from the first deleted one on. */
Test(tbtools, a_build_stopped_in_its_merge_goes_on_where_it_stopped, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    size_t len;
    uint8_t *want = straight_build(dir, &len);
    run_t r;
    run(&r, "%s %s --goats %d --captures-to-win %d --placement --threads 2 --restart --stop-after-arrays 1", TBGEN,
        dir, GOATS_N, WIN_K);
    cr_assert_eq(r.code, 1);
    cr_assert_str_eq(r.out.line[r.out.count - 1], "baghchal-tbgen: stopped after writing 1 array of the file, as asked");
    run_free(&r);
    char work[256];
    snprintf(work, sizeof work, "%s/placement-work", dir);
    cr_assert(exists(work, "array-0.rec"), "the first array's record");
    cr_assert_not(exists(work, "t01-0.pk"), "its tigers' layers are gone");
    cr_assert(exists(work, "t01-1.pk"));
    cr_assert_not(exists(dir, TBP_FILE_NAME), "--restart removed the file");
    expect_merge_resumed(dir, want, len);
    free(want);
    run(&r, "%s %s --stop-after-arrays 1", TBGEN, dir);
    cr_assert_eq(r.code, 2, "--stop-after-arrays goes with --placement");
    run_free(&r);
}

/* As the user meets it: killed (SIGKILL) as soon as placement-work/array-0.rec appears. */
Test(tbtools, a_build_killed_once_its_first_array_is_written_builds_no_layer_again, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    size_t len;
    uint8_t *want = straight_build(dir, &len);
    char cmd[600], rec[300];
    snprintf(cmd, sizeof cmd, "%s %s --goats %d --captures-to-win %d --placement --threads 2 --restart", TBGEN, dir,
             GOATS_N, WIN_K);
    snprintf(rec, sizeof rec, "%s/placement-work/array-0.rec", dir);
    pipe_proc_t *p = start_cmd(cmd);
    struct stat st;
    double end = pipe_now_ms() + TOOL_MS;
    while (stat(rec, &st) != 0 && pipe_now_ms() < end)
        nanosleep(&(struct timespec){0, 200000}, NULL);
    cr_assert_eq(stat(rec, &st), 0, "no array-0.rec");
    cr_assert_eq(kill(pipe_pid(p), SIGKILL), 0);
    pipe_exit_t ex = pipe_wait(p, TOOL_MS);
    cr_assert_eq(ex.signal, SIGKILL, "killed in its merge (it ended first, status %d)", ex.code);
    pipe_free(p);
    cr_assert_not(exists(dir, TBP_FILE_NAME), "the file was not finished");
    expect_merge_resumed(dir, want, len);
    free(want);
}

/* ---- One build at a time ----------------------------------------------------------------- */

/* The folder locked (here by this process): a build is refused with the holder's pid and
 * touches nothing, not even with --restart; once unlocked it runs. */
Test(tbtools, a_build_in_a_locked_folder_is_refused_with_the_holders_pid, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    build_small(dir);
    char path[256], msg[256], want[400];
    snprintf(path, sizeof path, "%s/%s", dir, TBP_FILE_NAME);
    size_t len0;
    uint8_t *before = read_file(path, &len0);
    tb_dir_lock_t lock;
    cr_assert_eq(tb_dir_lock(dir, &lock, msg, sizeof msg), TB_OK, "%s", msg);
    snprintf(want, sizeof want,
             "baghchal-tbgen: %s is being built by another process (pid %ld holds baghchal-tbgen.lock): wait for it "
             "to end, or stop it",
             dir, (long)getpid());
    expect_refusal(1, true, want, "%s %s --goats %d --captures-to-win %d --placement --restart", TBGEN, dir, GOATS_N,
                   WIN_K);
    expect_same_file(path, before, len0, "the file is untouched");
    /* The library refuses a second lock the same way. */
    pid_t child = fork();
    cr_assert_geq(child, 0);
    if (child == 0) {
        tb_dir_lock_t other;
        char m[256];
        _exit(tb_dir_lock(dir, &other, m, sizeof m) == TB_ERR_LOCKED && strstr(m, "is being built by") ? 0 : 1);
    }
    int status;
    cr_assert_eq(waitpid(child, &status, 0), child);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a second lock is refused");
    tb_dir_unlock(&lock);
    cr_assert_not(exists(dir, TB_LOCK_NAME), "the lock file goes with the lock");
    run_t r;
    run(&r, "%s %s --goats %d --captures-to-win %d --placement", TBGEN, dir, GOATS_N, WIN_K);
    cr_assert_eq(r.code, 0);
    run_free(&r);
    cr_assert_not(exists(dir, TB_LOCK_NAME), "the build removes its lock file");
    free(before);
}

/* Five builds started together in one folder once left a renamed file with a wrong SHA-256:
 * now one builds, the others are refused (or find it built), and the file is right. */
Test(tbtools, overlapping_builds_leave_the_right_file, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    build_small(dir);
    char ref[256], race[256], path[300], cmd[600];
    snprintf(ref, sizeof ref, "%s/%s", dir, TBP_FILE_NAME);
    snprintf(race, sizeof race, "%s/race", dir);
    snprintf(path, sizeof path, "%s/%s", race, TBP_FILE_NAME);
    snprintf(cmd, sizeof cmd, "%s %s --goats %d --captures-to-win %d --placement --threads 2", TBGEN, race, GOATS_N,
             WIN_K);
    enum { N = 5 };
    pipe_proc_t *p[N];
    for (int i = 0; i < N; i++)
        p[i] = start_cmd(cmd);
    int ok = 0;
    for (int i = 0; i < N; i++) {
        run_t r;
        finish_cmd(&r, p[i], cmd);
        if (r.code == 0) {
            ok++;
        } else {
            cr_assert_eq(r.code, 1);
            cr_assert(r.out.count == 1 && strstr(r.out.line[0], " is being built by another process (pid "),
                      "build %d: %s", i, r.out.count ? r.out.line[r.out.count - 1] : "(nothing)");
        }
        run_free(&r);
    }
    cr_assert_geq(ok, 1, "one build ran");
    size_t len0;
    uint8_t *want = read_file(ref, &len0);
    expect_same_file(path, want, len0, "the file is the small game's, byte for byte");
    free(want);
}

/* ---- What is not a regular file ----------------------------------------------------------- */

/* A FIFO in a file's place once held the tools in open() for good; now each says what it is. */
/* tbverify (status 2, its only line) and tbgen (status 1, its last line) refuse the folder
 * dir for what its file path is. */
static void expect_both_refuse(const char *dir, const char *path, const char *what)
{
    char want[600];
    snprintf(want, sizeof want, "baghchal-tbverify: %s %s", path, what);
    expect_refusal(2, true, want, "%s %s", TBVERIFY, dir);
    snprintf(want, sizeof want, "baghchal-tbgen: %s %s", path, what);
    expect_refusal(1, false, want, "%s %s --goats %d --captures-to-win %d", TBGEN, dir, GOATS_N, WIN_K);
}

Test(tbtools, a_fifo_or_directory_in_a_files_place_is_refused, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    char d[256], path[300], ppath[300], work[300], want[600];
    snprintf(d, sizeof d, "%s/d", dir);
    cr_assert_eq(mkdir(d, 0700), 0);
    snprintf(path, sizeof path, "%s/%s", d, TB_FILE_NAME);
    snprintf(ppath, sizeof ppath, "%s/%s", d, TBP_FILE_NAME);
    snprintf(work, sizeof work, "%s/placement-work", d);
    run_t r;
    /* The movement file: tbverify refuses it (status 2), tbgen too (status 1). */
    cr_assert_eq(mkfifo(path, 0600), 0, "%s", strerror(errno));
    expect_both_refuse(d, path, "is a FIFO, not a regular file");
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(mkdir(path, 0700), 0);
    expect_both_refuse(d, path, "is a directory, not a file");
    cr_assert_eq(rmdir(path), 0);

    /* The placement file beside a good movement file. */
    build_small(d);
    cr_assert_eq(unlink(ppath), 0);
    cr_assert_eq(mkfifo(ppath, 0600), 0);
    snprintf(want, sizeof want, "baghchal-tbverify: %s is a FIFO, not a regular file", ppath);
    expect_refusal(2, true, want, "%s %s", TBVERIFY, d);
    /* tbgen finds it before building, not at the end. */
    snprintf(want, sizeof want, "baghchal-tbgen: %s is a FIFO, not a regular file: remove it", ppath);
    expect_refusal(1, true, want, "%s %s --goats %d --captures-to-win %d --placement", TBGEN, d, GOATS_N, WIN_K);
    cr_assert_eq(unlink(ppath), 0);
    cr_assert_eq(mkdir(ppath, 0700), 0);
    snprintf(want, sizeof want, "baghchal-tbgen: %s is a directory, not a file: remove it", ppath);
    expect_refusal(1, false, want, "%s %s --goats %d --captures-to-win %d --placement", TBGEN, d, GOATS_N, WIN_K);
    cr_assert_eq(rmdir(ppath), 0);
    /* A work folder that is a file; then a FIFO named as a packed layer, and as a record:
     * not finished, built again and replaced. */
    tree_remove(work);
    FILE *f = fopen(work, "w");
    cr_assert_not_null(f);
    fclose(f);
    snprintf(want, sizeof want, "baghchal-tbgen: %s is not a directory: remove it", work);
    expect_refusal(1, false, want, "%s %s --goats %d --captures-to-win %d --placement", TBGEN, d, GOATS_N, WIN_K);
    cr_assert_eq(unlink(work), 0);
    cr_assert_eq(mkdir(work, 0700), 0);
    char fifo[400];
    snprintf(fifo, sizeof fifo, "%s/t01-1.pk", work);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    snprintf(fifo, sizeof fifo, "%s/array-0.rec", work);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    run(&r, "%s %s --goats %d --captures-to-win %d --placement", TBGEN, d, GOATS_N, WIN_K);
    if (r.code != 0)
        dump(&r);
    cr_assert_eq(r.code, 0);
    cr_assert_eq(count_lines(&r, " entries built in "), 5);
    run_free(&r);
    run(&r, "%s %s --sample 1000", TBVERIFY, d);
    cr_assert_eq(r.code, 0);
    run_free(&r);
    /* The lock file. */
    snprintf(fifo, sizeof fifo, "%s/%s", d, TB_LOCK_NAME);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    snprintf(want, sizeof want, "baghchal-tbgen: %s is a FIFO, not a regular file", fifo);
    expect_refusal(1, false, want, "%s %s --goats %d --captures-to-win %d --placement", TBGEN, d, GOATS_N, WIN_K);
}

/* --forbid reads a checkpoint for each slice it resumes: a FIFO in its place is refused before
 * the search (it used to be opened for reading after the retrograde pass, and wait for good). */
Test(tbtools, a_fifo_as_a_forbid_checkpoint_is_refused_before_the_search, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    build_small(dir);
    char fifo[300], want[600];
    snprintf(fifo, sizeof fifo, "%s/forbid-slice-1.ckpt", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0, "%s", strerror(errno));
    snprintf(want, sizeof want, "baghchal-tbgen: %s is a FIFO, not a regular file: remove it", fifo);
    expect_refusal(1, false, want, "%s %s --forbid", TBGEN, dir);
    cr_assert_eq(unlink(fifo), 0);
    snprintf(fifo, sizeof fifo, "%s/forbid-slice-0.ckpt", dir);
    cr_assert_eq(mkdir(fifo, 0700), 0);
    snprintf(want, sizeof want, "baghchal-tbgen: %s is a directory, not a file: remove it", fifo);
    expect_refusal(1, false, want, "%s %s --forbid", TBGEN, dir);
}

/* --forbid and --forbid-check read the draw rule's database from their folder: one that does
 * not exist is refused, and left not existing (no empty folder, no lock file). */
Test(tbtools, forbid_in_a_missing_folder_creates_nothing, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    char d[256], want[1024];
    snprintf(d, sizeof d, "%s/new/dir", dir);
    static const char *const modes[] = {"--forbid", "--forbid --placement", "--forbid-check 5"};
    for (int i = 0; i < 3; i++) {
        snprintf(want, sizeof want,
                 "baghchal-tbgen: '%s' does not exist: build the draw rule's database there first (baghchal-tbgen %s)",
                 d, d);
        expect_refusal(1, true, want, "%s %s %s", TBGEN, d, modes[i]);
        char parent[300];
        snprintf(parent, sizeof parent, "%s/new", dir);
        struct stat st;
        cr_assert_neq(stat(parent, &st), 0, "%s: %s was created", modes[i], parent);
    }
    /* Bad usage is found before the folder of a build is made. */
    snprintf(want, sizeof want, "baghchal-tbgen: --goats must be at least --captures-to-win (3)");
    expect_refusal(2, true, want, "%s %s --goats 2 --captures-to-win 3", TBGEN, d);
    struct stat st;
    cr_assert_neq(stat(d, &st), 0, "%s was created", d);
}

/* Numbers beyond 64 bits are refused with the range, not saturated into it. */
Test(tbtools, out_of_range_numbers_are_refused_with_the_range, .disabled = UNDER_TSAN)
{
    static const char *const tools[] = {"baghchal-tbprove", "baghchal-tbverify"};
    for (int i = 0; i < 2; i++) {
        char want[300];
        snprintf(want, sizeof want,
                 "%s: --seed must be a number from 0 to 9223372036854775807, not '99999999999999999999'", tools[i]);
        expect_refusal(2, true, want, "%s/%s /tmp --seed 99999999999999999999", BAGHCHAL_BIN_DIR, tools[i]);
        snprintf(want, sizeof want,
                 "%s: --seed must be a number from 0 to 9223372036854775807, not '-99999999999999999999'", tools[i]);
        expect_refusal(2, true, want, "%s/%s /tmp --seed -99999999999999999999", BAGHCHAL_BIN_DIR, tools[i]);
    }
    expect_refusal(2, true, "baghchal-tbgen: --forbid-check must be a number from 1 to 100000000, not '18446744073709551621'",
                   "%s /tmp --forbid-check 18446744073709551621", TBGEN);
}

/* ---- baghchal-tbverify's options and messages ----------------------------------------------- */

Test(tbtools, verify_refuses_all_with_a_sample, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    build_small(dir);
    static const char *const orders[2] = {"--all --sample 5", "--sample 5 --all"};
    for (int i = 0; i < 2; i++) {
        run_t r;
        run(&r, "%s %s %s", TBVERIFY, dir, orders[i]);
        cr_assert_eq(r.code, 2, "%s", orders[i]);
        cr_assert_eq(r.out.count, 1);
        cr_assert_str_eq(r.out.line[0], "baghchal-tbverify: --all and --sample go apart: --all checks every entry, "
                                        "--sample N draws N at random");
        run_free(&r);
    }
}

/* A 6,000-character folder: the message keeps its reason, the path shortened around "...". */
Test(tbtools, a_long_paths_message_keeps_its_reason, .disabled = UNDER_TSAN)
{
    char *dir = malloc(6001);
    cr_assert_not_null(dir);
    memcpy(dir, "/tmp/", 5);
    memset(dir + 5, 'a', 5995);
    dir[6000] = '\0';
    static const char *const tools[4][2] = {
        {TBVERIFY, ""}, {TBGEN, "--stats"}, {TBGEN, "--bench-probe"}, {TBGEN, "--goats 2 --captures-to-win 2"}};
    for (int i = 0; i < 4; i++) {
        run_t r;
        run(&r, "%s %s %s", tools[i][0], tools[i][1], dir);
        cr_assert_eq(r.code, 2, "%s %s", tools[i][0], tools[i][1]);
        cr_assert_eq(r.out.count, 1);
        const char *l = r.out.line[0], *end = ": File name too long";
        cr_assert_lt(strlen(l), 256, "%s", l);
        cr_assert(strstr(l, " /tmp/aaa") || strstr(l, " '/tmp/aaa"), "%s", l);
        cr_assert(strstr(l, "aaa...aaa"), "%s", l);
        cr_assert(strlen(l) > strlen(end) && !strcmp(l + strlen(l) - strlen(end), end), "%s", l);
        run_free(&r);
    }
    free(dir);
    /* Cut between characters: a name of two-byte characters stays valid UTF-8. */
    char path[400], buf[TB_PATH_SHOWN];
    strcpy(path, "/x");
    for (int i = 0; i < 150; i++)
        strcat(path, "\xc3\xa9");
    const char *shown = tb_path_shown(path, buf);
    cr_assert_lt(strlen(shown), TB_PATH_SHOWN);
    const char *dots = strstr(shown, "...");
    cr_assert_not_null(dots);
    cr_assert_eq((dots - shown) % 2, 0, "the start ends after a whole character: %s", shown);
    cr_assert_eq(strlen(dots + 3) % 2, 0, "the end starts on a character: %s", shown);
    cr_assert_str_eq(tb_path_shown("/short", buf), "/short");
}

/* A placement file newer than the program: the message says the program is the older one,
 * and the build does not write over the file unless asked (--restart). */
Test(tbtools, a_newer_file_says_the_program_is_older, .disabled = UNDER_TSAN)
{
    char path[256], msg[300];
    const char *dir = small_game_of_version(TBP_FILE_VERSION + 1, path, sizeof path);
    size_t len0;
    uint8_t *before = read_file(path, &len0);
    expect_file_refused(dir, "placement file version 5 is newer than this program, which reads version 4: use a "
                             "newer baghchal");
    char want[600];
    snprintf(want, sizeof want,
             "baghchal-tbgen: %s is version 5, newer than this program (version 4): not built over; use the newer "
             "program (--restart replaces it with version 4)",
             path);
    run_t r;
    run(&r, "%s %s --goats %d --captures-to-win %d --placement", TBGEN, dir, GOATS_N, WIN_K);
    cr_assert_eq(r.code, 1);
    cr_assert_str_eq(r.out.line[r.out.count - 1], want);
    cr_assert_eq(count_lines(&r, " entries built in "), 0);
    run_free(&r);
    expect_same_file(path, before, len0, "the newer file is kept");
    free(before);
    tb_t *tb;
    run(&r, "%s %s --goats %d --captures-to-win %d --placement --restart", TBGEN, dir, GOATS_N, WIN_K);
    cr_assert_eq(r.code, 0);
    run_free(&r);
    cr_assert_eq(tb_open(dir, &tb, msg, sizeof msg), TB_OK, "%s", msg);
    tb_close(tb);
}

/* ---- baghchal-tbprove's tables ---------------------------------------------------------- */

#define TBPROVE BAGHCHAL_BIN_DIR "/baghchal-tbprove"

/* A row of tbprove's tables as it must read: the side to move, its labels, the counts. */
static void prove_row(char *buf, size_t len, int side, const char *label, const unsigned long long c[3])
{
    unsigned long long n = c[0] + c[1] + c[2];
    char cell[3][40];
    for (int k = 0; k < 3; k++)
        snprintf(cell[k], sizeof cell[k], "%llu (%.1f%%)", c[k], 100.0 * (double)c[k] / (double)n);
    snprintf(buf, len, "| %s | %s | %llu | %s | %s | %s |", side == GOATS ? "goats" : "tigers", label, n, cell[0],
             cell[1], cell[2]);
}

/* The real board with two captures to win, its placement phase up to two goats in hand (draws
 * in every layer): tbprove's rows per placement layer (side, in hand, captured) and per goats
 * in hand, and the movement phase's per captured, each count exactly what --list printed for
 * its positions, a layer not sampled has no row, and the sum is the sample; with --per-layer 7
 * each of the 8 placement layers has exactly 7, and --sample with it is refused. */
Test(tbtools, prove_tables_count_each_layer_as_listed, .disabled = UNDER_TSAN)
{
    const char *dir = make_dir();
    run_t r;
    for (int placement = 0; placement < 2; placement++) {
        run(&r, "%s %s --goats 20 --captures-to-win 2%s", TBGEN, dir, placement ? " --placement --max-in-hand 2" : "");
        if (r.code != 0)
            dump(&r);
        cr_assert_eq(r.code, 0, "the game with two captures to win was not built");
        run_free(&r);
    }
    enum { HMAX = 2, CMAX = 2, PER_LAYER = 7 };
    for (int pass = 0; pass < 3; pass++) {
        /* The movement phase, the placement phase, the placement phase layer by layer. */
        int placement = pass > 0, per_layer = pass == 2 ? PER_LAYER : 0, SAMPLE = per_layer ? 8 * PER_LAYER : 300;
        if (per_layer)
            run(&r, "%s %s --phase placement --per-layer %d --nodes 300 --seed 5 --threads 2 --list", TBPROVE, dir,
                per_layer);
        else
            run(&r, "%s %s --phase %s --sample %d --nodes 300 --seed 5 --threads 2 --list", TBPROVE, dir,
                placement ? "placement" : "movement", SAMPLE);
        if (r.code != 0)
            dump(&r);
        cr_assert_eq(r.code, 0);
        /* [side][in hand][captured][win, loss, open] from the listed positions' OBX. */
        unsigned long long n[SIDE_NB][HMAX + 1][CMAX][3] = {{{{0}}}};
        int listed = 0;
        for (size_t i = 0; i < r.out.count; i++) {
            /* "OBX win|loss|open nodes N ms T" */
            const char *line = r.out.line[i];
            int k = strstr(line, " win nodes ") ? 0 : strstr(line, " loss nodes ") ? 1 : strstr(line, " open nodes ") ? 2 : -1;
            if (k < 0)
                continue;
            char s;
            int h, c;
            cr_assert_eq(sscanf(line, "%*s %c @%d c%d", &s, &h, &c), 3, "%s", line);
            cr_assert(h >= 0 && h <= HMAX && c >= 0 && c < CMAX && (s == 'g' || s == 't'), "%s", line);
            cr_assert_eq(h > 0, placement, "a position of the other phase: %s", line);
            n[s == 'g' ? GOATS : TIGERS][h][c][k]++;
            listed++;
        }
        cr_assert_eq(listed, SAMPLE);
        int rows = 0;
        unsigned long long settled = 0;
        char want[300], label[32], absent[64];
        for (int side = 0; side < SIDE_NB; side++)
            for (int h = placement; h <= (placement ? HMAX : 0); h++) {
                unsigned long long sum[3] = {0};
                for (int c = 0; c < CMAX; c++) {
                    for (int k = 0; k < 3; k++)
                        sum[k] += n[side][h][c][k];
                    settled += n[side][h][c][0] + n[side][h][c][1];
                    /* The movement phase's rows are its layers: captured alone. */
                    if (placement)
                        snprintf(label, sizeof label, "%d | %d", h, c);
                    else
                        snprintf(label, sizeof label, "%d", c);
                    snprintf(absent, sizeof absent, "| %s | %s | ", side == GOATS ? "goats" : "tigers", label);
                    if (!(n[side][h][c][0] + n[side][h][c][1] + n[side][h][c][2])) {
                        cr_assert_null(find_line(&r, absent), "a row for a layer not sampled: %s", absent);
                        continue;
                    }
                    if (per_layer)
                        cr_assert_eq(n[side][h][c][0] + n[side][h][c][1] + n[side][h][c][2], (unsigned long long)per_layer, "%s", absent);
                    prove_row(want, sizeof want, side, label, n[side][h][c]);
                    if (!find_line(&r, want))
                        dump(&r);
                    cr_assert_not_null(find_line(&r, want), "missing row: %s", want);
                    rows++;
                }
                if (placement && sum[0] + sum[1] + sum[2]) {
                    snprintf(label, sizeof label, "%d", h);
                    prove_row(want, sizeof want, side, label, sum);
                    cr_assert_not_null(find_line(&r, want), "missing row: %s", want);
                }
            }
        /* Both sides in both captured counts (and both goats in hand) are drawn from. */
        cr_assert_eq(rows, placement ? 8 : 4, "%d layers sampled", rows);
        snprintf(want, sizeof want, "%d positions: settled %llu (", SAMPLE, settled);
        cr_assert_not_null(find_line(&r, want), "no line '%s'", want);
        cr_assert_eq(find_line(&r, "weighted by the layers' draws: settled ") != NULL, per_layer > 0);
        run_free(&r);
    }
    expect_refusal(2, true,
                   "baghchal-tbprove: --sample and --per-layer go apart: --sample N draws N by the layers' shares of "
                   "the draws, --per-layer N draws N from each layer",
                   "%s %s --phase placement --per-layer 3 --sample 10", TBPROVE, dir);
}
