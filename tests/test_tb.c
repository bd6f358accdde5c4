/* The movement-phase database: the index (range, symmetry, round trip), the 1- and
 * 2-capture variants built and checked position by position against the reference rules,
 * the file format (corruption and truncation refused), resume, probe and move ranking. */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baghchal.h"
#include "reference.h"
#include "tb_build.h"

/* ---- Helpers ------------------------------------------------------------------------ */

typedef struct {
    char dir[64];
} tmpdir_t;

/* The directory of the running test (each test is a process of its own), removed by the
 * suites' fini even when an assertion ends the test early. */
static char current_dir[64];

static void tmp_path(const tmpdir_t *t, char *out, size_t len) { snprintf(out, len, "%s/%s", t->dir, TB_FILE_NAME); }

static void remove_dir(const char *dir)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, TB_FILE_NAME);
    unlink(path);
    rmdir(dir);
}

static void tmp_make(tmpdir_t *t)
{
    strcpy(t->dir, "/tmp/test_tb.XXXXXX");
    cr_assert_not_null(mkdtemp(t->dir));
    strcpy(current_dir, t->dir);
}

static void tmp_remove(const tmpdir_t *t)
{
    remove_dir(t->dir);
    current_dir[0] = '\0';
}

static void cleanup(void)
{
    if (current_dir[0])
        remove_dir(current_dir);
}

TestSuite(tb_variant, .fini = cleanup);
TestSuite(tb_probe, .fini = cleanup);
TestSuite(tb_file, .fini = cleanup);

typedef struct {
    int init[TB_MAX_SLICES], skip[TB_MAX_SLICES], write[TB_MAX_SLICES];
} phases_t;

static void record_phase(void *ctx, const tb_progress_t *p)
{
    phases_t *ph = ctx;
    if (p->phase == TB_PHASE_INIT)
        ph->init[p->slice]++;
    else if (p->phase == TB_PHASE_SKIP)
        ph->skip[p->slice]++;
    else if (p->phase == TB_PHASE_WRITE)
        ph->write[p->slice]++;
}

static tb_error_t build(const tmpdir_t *t, int captures, int slice, bool restart, phases_t *ph)
{
    tb_gen_options_t o;
    tb_gen_options_init(&o, t->dir);
    o.captures_to_win = captures;
    o.threads = 2;
    o.slice = slice;
    o.restart = restart;
    if (ph) {
        memset(ph, 0, sizeof *ph);
        o.progress = record_phase;
        o.ctx = ph;
    }
    char msg[256] = "";
    tb_error_t e = tb_generate(&o, msg, sizeof msg);
    cr_log_info("tb_generate: %s %s", tb_error_name(e), msg);
    return e;
}

static tb_t *open_ok(const tmpdir_t *t)
{
    tb_t *tb;
    char msg[256] = "";
    tb_error_t e = tb_open(t->dir, &tb, msg, sizeof msg);
    cr_assert_eq(e, TB_OK, "tb_open: %s", msg);
    return tb;
}

static tb_error_t open_error(const tmpdir_t *t)
{
    tb_t *tb = (tb_t *)1;
    char msg[256] = "";
    tb_error_t e = tb_open(t->dir, &tb, msg, sizeof msg);
    cr_assert_null(tb);
    if (e != TB_OK)
        cr_assert_neq(msg[0], '\0', "an error comes with a reason");
    return e;
}

static void position_from_ref(const ref_pos_t *r, position_t *p)
{
    p->tigers = p->goats = 0;
    for (int sq = 0; sq < SQUARE_NB; sq++) {
        if (r->board[sq] == 'T')
            p->tigers |= bb_square(sq);
        else if (r->board[sq] == 'G')
            p->goats |= bb_square(sq);
    }
    p->side = r->side == 't' ? TIGERS : GOATS;
    p->in_hand = (uint8_t)r->in_hand;
    p->captured = (uint8_t)r->captured;
    p->key = position_compute_key(p);
}

static bb_t transform_all(const tb_index_t *ix, int s, bb_t b) { return tb_transform(ix, s, b); }

static void transform_position(const tb_index_t *ix, int s, const position_t *p, position_t *out)
{
    *out = *p;
    out->tigers = transform_all(ix, s, p->tigers);
    out->goats = transform_all(ix, s, p->goats);
    out->key = position_compute_key(out);
}

/* The values of p's children for its side to move: through the reference rules (a model
 * that shares no code with the engine) or, faster, through the engine's move generator. */
static int child_values(const tb_t *tb, const position_t *p, bool reference, tb_value_t *out)
{
    int n = 0;
    position_t kids[REF_MAX_MOVES];
    if (reference) {
        ref_pos_t r;
        ref_from_position(p, &r);
        ref_move_t moves[REF_MAX_MOVES];
        int m = ref_gen(&r, moves);
        for (int i = 0; i < m; i++) {
            ref_pos_t rc;
            ref_make(&r, moves[i], &rc);
            position_from_ref(&rc, &kids[n++]);
        }
    } else {
        move_t moves[MAX_MOVES];
        int m = gen_moves(p, moves);
        for (int i = 0; i < m; i++) {
            kids[n] = *p;
            position_make(&kids[n++], moves[i]);
        }
    }
    for (int i = 0; i < n; i++) {
        if (kids[i].captured >= tb_captures_to_win(tb))
            out[i].wdl = TB_LOSS, out[i].distance = 0; /* the tigers have won */
        else if (!tb_probe(tb, &kids[i], &out[i]))
            return -1;
    }
    return n;
}

/* Checks the stored value of p against the rules and its children's values. Returns an
 * empty string when right, else the reason. */
static const char *check_value(const tb_t *tb, const position_t *p, bool reference, char *why, size_t len)
{
    tb_value_t v, kids[REF_MAX_MOVES];
    if (!tb_probe(tb, p, &v))
        return "not covered";
    if (v.wdl == TB_WIN && v.distance % 2 != 1)
        return "win with an even distance";
    if (v.wdl == TB_LOSS && v.distance % 2 != 0)
        return "loss with an odd distance";
    int n = child_values(tb, p, reference, kids);
    if (n < 0)
        return "child not covered";
    if (n == 0)
        return v.wdl == TB_LOSS && v.distance == 0 ? "" : "side to move has no move but is not lost in 0";
    int min_loss = 1000, max_win = -1, draws = 0, losses = 0;
    for (int i = 0; i < n; i++) {
        if (kids[i].wdl == TB_LOSS)
            losses++, min_loss = kids[i].distance < min_loss ? kids[i].distance : min_loss;
        else if (kids[i].wdl == TB_WIN)
            max_win = kids[i].distance > max_win ? kids[i].distance : max_win;
        else
            draws++;
    }
    if (v.wdl == TB_WIN && (!losses || min_loss != v.distance - 1))
        snprintf(why, len, "win in %d, fastest losing child %d", v.distance, min_loss);
    else if (v.wdl == TB_LOSS && (losses || draws || max_win != v.distance - 1))
        snprintf(why, len, "loss in %d, %d losing / %d drawn children, slowest win %d", v.distance, losses, draws,
                 max_win);
    else if (v.wdl == TB_DRAW && (losses || !draws))
        snprintf(why, len, "draw with %d losing and %d drawn children", losses, draws);
    else
        why[0] = '\0';
    return why;
}

/* Every entry of every slice: its position checked against the rules and its children, and
 * a repeat of a symmetric entry against that entry. */
static void check_every_entry(const tb_t *tb)
{
    char why[160];
    uint64_t checked = 0, repeats = 0;
    for (int c = 0; c < tb_slice_count(tb); c++)
        for (int side = 0; side < SIDE_NB; side++)
            for (uint64_t i = 0; i < tb_slice_size(c); i++) {
                position_t p;
                tb_value_t stored, probed;
                if (!tb_entry(tb, c, side, i, &p, &stored)) {
                    repeats++;
                    cr_assert(tb_probe(tb, &p, &probed));
                    cr_assert(stored.wdl == probed.wdl && stored.distance == probed.distance,
                              "slice %d side %d entry %llu: repeat differs", c, side, (unsigned long long)i);
                }
                const char *bad = check_value(tb, &p, true, why, sizeof why);
                if (bad[0])
                    cr_assert_fail("slice %d side %d entry %llu: %s", c, side, (unsigned long long)i, bad);
                checked++;
            }
    cr_log_info("checked %llu entries (%llu repeats)", (unsigned long long)checked, (unsigned long long)repeats);
}

/* Every position of the variant, without symmetry, against the rules and its children (with
 * the engine's move generator, itself held against the reference by test_movegen). */
static void check_every_position(const tb_t *tb)
{
    char why[160];
    uint64_t checked = 0;
    for (int c = 0; c < tb_slice_count(tb); c++)
        for (bb_t t = 0xF; t < bb_square(SQUARE_NB); t = (t + (t & -t)) | (((t ^ (t + (t & -t))) >> 2) / (t & -t))) {
            /* Every set of c + 1 empty points among the 21 free ones, by a 21-bit mask. */
            int free_sq[21], nf = 0;
            for (int sq = 0; sq < SQUARE_NB; sq++)
                if (!(t & bb_square(sq)))
                    free_sq[nf++] = sq;
            for (uint32_t m = (1u << (c + 1)) - 1; m < (1u << 21);
                 m = (m + (m & -m)) | (((m ^ (m + (m & -m))) >> 2) / (m & -m))) {
                bb_t e = 0;
                for (uint32_t x = m; x; x &= x - 1)
                    e |= bb_square(free_sq[__builtin_ctz(x)]);
                for (int side = 0; side < SIDE_NB; side++) {
                    position_t p = {t, BB_ALL & ~(t | e), (uint8_t)side, 0, (uint8_t)c, 0};
                    p.key = position_compute_key(&p);
                    const char *bad = check_value(tb, &p, false, why, sizeof why);
                    if (bad[0])
                        cr_assert_fail("captured %d tigers %#x goats %#x side %d: %s", c, t, p.goats, side, bad);
                    checked++;
                }
            }
        }
    cr_log_info("checked %llu positions", (unsigned long long)checked);
}

/* ---- Index -------------------------------------------------------------------------- */

Test(tb_index, classes_cover_every_tiger_placement)
{
    tb_index_t *ix = tb_index_new();
    cr_assert_not_null(ix);
    int placements = 0;
    for (int k = 0; k < TB_TIGER_CLASSES; k++) {
        cr_assert_eq(bb_count(ix->cls[k].tigers), 4);
        placements += ix->cls[k].orbit;
    }
    cr_assert_eq(placements, 12650);
    tb_index_free(ix);
}

Test(tb_index, symmetries_keep_the_lines)
{
    tb_index_t *ix = tb_index_new();
    for (int s = 0; s < TB_SYM_NB; s++)
        for (int a = 0; a < SQUARE_NB; a++)
            for (int b = 0; b < SQUARE_NB; b++) {
                int ta = bb_first(tb_transform(ix, s, bb_square(a))), tbb = bb_first(tb_transform(ix, s, bb_square(b)));
                cr_assert_eq(ref_is_step(a, b), ref_is_step(ta, tbb));
                cr_assert_eq(ref_jump_over(a, b) >= 0, ref_jump_over(ta, tbb) >= 0);
            }
    tb_index_free(ix);
}

Test(tb_index, random_positions_of_every_slice)
{
    tb_index_t *ix = tb_index_new();
    uint64_t seed = 42;
    for (int c = 0; c < TB_MAX_SLICES; c++)
        for (int q = 0; q < 20000; q++) {
            position_t p = {0};
            while (bb_count(p.tigers) < 4)
                p.tigers |= bb_square(ref_rand_below(&seed, SQUARE_NB));
            bb_t e = 0;
            while (bb_count(e) < c + 1) {
                int sq = ref_rand_below(&seed, SQUARE_NB);
                if (!(p.tigers & bb_square(sq)))
                    e |= bb_square(sq);
            }
            p.goats = BB_ALL & ~(p.tigers | e);
            p.side = (uint8_t)ref_rand_below(&seed, 2);
            p.captured = (uint8_t)c;
            p.key = position_compute_key(&p);
            cr_assert(position_is_ok(&p));

            uint64_t i = tb_index_of(ix, &p);
            cr_assert_lt(i, tb_slice_size(c), "index out of range");
            int fixed = 0;
            bool image_found = false;
            position_t back;
            cr_assert(tb_index_position(ix, c, p.side, i, &back), "an index of a position is its canonical entry");
            cr_assert_eq(tb_index_of(ix, &back), i, "index -> position -> index");
            cr_assert(position_is_ok(&back));
            for (int s = 0; s < TB_SYM_NB; s++) {
                position_t img;
                transform_position(ix, s, &p, &img);
                cr_assert_eq(tb_index_of(ix, &img), i, "symmetric positions share an entry");
                fixed += position_same(&img, &p);
                image_found |= position_same(&img, &back);
            }
            cr_assert(image_found, "the entry's position is an image of the position");
            cr_assert_eq(tb_index_stabilizer(ix, &p), fixed);
        }
    tb_index_free(ix);
}

Test(tb_index, every_entry_of_the_small_slices)
{
    tb_index_t *ix = tb_index_new();
    for (int c = 0; c < 3; c++)
        for (uint64_t i = 0; i < tb_slice_size(c); i++) {
            position_t p;
            bool canonical = tb_index_position(ix, c, GOATS, i, &p);
            uint64_t j = tb_index_of(ix, &p);
            cr_assert(canonical ? j == i : j != i);
            if (!canonical) {
                position_t q;
                cr_assert(tb_index_position(ix, c, GOATS, j, &q), "a repeat maps to a canonical entry");
            }
        }
    tb_index_free(ix);
}

Test(tb_index, entries_without_symmetry_are_lim_and_nievergelt_count)
{
    /* Entries that are their own canonical image, both sides, all slices: 88,260,972. */
    tb_index_t *ix = tb_index_new();
    uint64_t classes = 0, entries = 0;
    for (int c = 0; c < TB_MAX_SLICES; c++) {
        uint32_t ng = (uint32_t)(tb_slice_size(c) / TB_TIGER_CLASSES);
        for (int k = 0; k < TB_TIGER_CLASSES; k++) {
            entries += 2 * ng;
            if (!ix->cls[k].nstab) {
                classes += 2 * ng;
                continue;
            }
            for (uint32_t r = 0; r < ng; r++) {
                int stab;
                bb_t e = tbi_unrank_free(ix, &ix->cls[k], r, c + 1);
                classes += 2 * (tbi_canon_free(ix, &ix->cls[k], e, &stab) == e);
            }
        }
    }
    cr_assert_eq(entries, 92946140);
    cr_assert_eq(classes, 88260972);
    tb_index_free(ix);
}

/* ---- The variants, built and checked ------------------------------------------------- */

Test(tb_variant, one_capture_every_position, .timeout = 600)
{
    tmpdir_t t;
    tmp_make(&t);
    cr_assert_eq(build(&t, 1, -1, false, NULL), TB_OK);
    tb_t *tb = open_ok(&t);
    cr_assert_eq(tb_captures_to_win(tb), 1);
    check_every_entry(tb);
    check_every_position(tb);
    tb_close(tb);
    tmp_remove(&t);
}

Test(tb_variant, two_captures_every_position, .timeout = 600)
{
    tmpdir_t t;
    tmp_make(&t);
    cr_assert_eq(build(&t, 2, -1, false, NULL), TB_OK);
    tb_t *tb = open_ok(&t);
    cr_assert_eq(tb_slice_count(tb), 2);
    check_every_entry(tb);
    check_every_position(tb);

    /* Statistics count every position once. */
    for (int c = 0; c < 2; c++) {
        tb_slice_stats_t s;
        cr_assert_eq(tb_slice_stats(tb, c, &s), TB_OK);
        uint64_t sum = 0;
        for (int side = 0; side < SIDE_NB; side++) {
            uint64_t per_side = 0;
            for (int k = 0; k < 3; k++)
                per_side += s.count[side][k];
            cr_assert_eq(per_side, s.positions / 2);
            sum += per_side;
        }
        cr_assert_eq(sum, 2ull * 12650 * (tb_slice_size(c) / TB_TIGER_CLASSES));
        cr_assert_eq(s.entries, 2 * tb_slice_size(c));
        cr_assert_leq(s.classes, s.entries);
        cr_assert_gt(s.longest, 0);
    }
    tb_close(tb);
    tmp_remove(&t);
}

/* ---- Probe and ranking --------------------------------------------------------------- */

Test(tb_probe, placement_phase_is_not_covered)
{
    tmpdir_t t;
    tmp_make(&t);
    cr_assert_eq(build(&t, 1, -1, false, NULL), TB_OK);
    tb_t *tb = open_ok(&t);
    position_t p;
    tb_value_t v;
    position_set_start(&p);
    cr_assert_not(tb_probe(tb, &p, &v));
    /* Random placement-phase positions, goats one short of the movement phase included. */
    uint64_t seed = 7;
    for (int g = 0; g < 200; g++) {
        ref_pos_t r;
        ref_start(&r);
        ref_move_t moves[REF_MAX_MOVES];
        for (int ply = 0; ply < 60 && r.in_hand > 0; ply++) {
            int n = ref_gen(&r, moves);
            if (!n)
                break;
            ref_pos_t next;
            ref_make(&r, ref_pick_move(&r, moves, n, REF_PLAY_CAREFUL, &seed), &next);
            r = next;
            if (r.in_hand > 0) {
                position_from_ref(&r, &p);
                /* A game won by captures is over whatever is in hand: the goats have lost. */
                bool over = p.captured >= tb_captures_to_win(tb) && p.side == GOATS;
                cr_assert_eq(tb_probe(tb, &p, &v), over, "in hand %d, %d captured", r.in_hand, p.captured);
                if (over)
                    cr_assert(v.wdl == TB_LOSS && v.distance == 0);
            }
        }
    }
    /* The game is over once the capture count is reached. */
    bool got = false;
    for (uint64_t i = 0; i < tb_slice_size(0) && !got; i++) {
        move_t moves[MAX_MOVES];
        tb_value_t pv;
        tb_entry(tb, 0, TIGERS, i, &p, &pv);
        int n = gen_captures(&p, moves);
        if (n) {
            position_make(&p, moves[0]);
            cr_assert(tb_probe(tb, &p, &v));
            cr_assert(v.wdl == TB_LOSS && v.distance == 0);
            got = true;
        }
    }
    cr_assert(got);
    tb_close(tb);
    tmp_remove(&t);
}

Test(tb_probe, ranked_moves_keep_the_value)
{
    tmpdir_t t;
    tmp_make(&t);
    cr_assert_eq(build(&t, 2, -1, false, NULL), TB_OK);
    tb_t *tb = open_ok(&t);
    for (uint64_t i = 0; i < tb_slice_size(1); i += 97)
        for (int side = 0; side < SIDE_NB; side++) {
            position_t p;
            tb_value_t v;
            tb_entry(tb, 1, side, i, &p, &v);
            move_t moves[MAX_MOVES];
            tb_move_value_t ranked[MAX_MOVES];
            int n = gen_moves(&p, moves);
            int keep = tb_rank_moves(tb, &p, moves, n, ranked);
            if (!n) {
                cr_assert_eq(keep, 0);
                continue;
            }
            cr_assert(keep >= 1 && keep <= n);
            cr_assert_eq(tb_value_order(ranked[0].value), tb_value_order(v), "the best move keeps the value");
            cr_assert(ranked[0].value.wdl == v.wdl && ranked[0].value.distance == v.distance);
            for (int k = 1; k < n; k++)
                cr_assert_geq(tb_value_order(ranked[k - 1].value), tb_value_order(ranked[k].value));
            for (int k = 0; k < n; k++)
                cr_assert_eq(tb_value_order(ranked[k].value) == tb_value_order(v), k < keep);
        }
    position_t start;
    position_set_start(&start);
    move_t moves[MAX_MOVES];
    tb_move_value_t ranked[MAX_MOVES];
    int n = gen_moves(&start, moves);
    cr_assert_eq(tb_rank_moves(tb, &start, moves, n, ranked), -1, "placement is not covered");
    tb_close(tb);
    tmp_remove(&t);
}

Test(tb_probe, value_order)
{
    tb_value_t w1 = {TB_WIN, 1}, w3 = {TB_WIN, 3}, d = {TB_DRAW, 0}, l0 = {TB_LOSS, 0}, l4 = {TB_LOSS, 4};
    cr_assert_gt(tb_value_order(w1), tb_value_order(w3));
    cr_assert_gt(tb_value_order(w3), tb_value_order(d));
    cr_assert_gt(tb_value_order(d), tb_value_order(l4));
    cr_assert_gt(tb_value_order(l4), tb_value_order(l0));
    tb_value_t a = tb_value_after_move(l4);
    cr_assert(a.wdl == TB_WIN && a.distance == 5);
    a = tb_value_after_move(w3);
    cr_assert(a.wdl == TB_LOSS && a.distance == 4);
    a = tb_value_after_move(d);
    cr_assert(a.wdl == TB_DRAW);
}

/* ---- File format, resume and bad arguments ------------------------------------------ */

static void patch_byte(const tmpdir_t *t, off_t at)
{
    char path[128];
    tmp_path(t, path, sizeof path);
    int fd = open(path, O_RDWR);
    cr_assert_geq(fd, 0);
    uint8_t b;
    cr_assert_eq(pread(fd, &b, 1, at), 1);
    b ^= 0x5A;
    cr_assert_eq(pwrite(fd, &b, 1, at), 1);
    close(fd);
}

static off_t file_size(const tmpdir_t *t)
{
    char path[128];
    struct stat st;
    tmp_path(t, path, sizeof path);
    cr_assert_eq(stat(path, &st), 0);
    return st.st_size;
}

Test(tb_file, corruption_and_truncation_are_refused)
{
    tmpdir_t t;
    tmp_make(&t);
    cr_assert_eq(open_error(&t), TB_ERR_IO, "no file yet");
    cr_assert_eq(build(&t, 2, -1, false, NULL), TB_OK);
    tb_close(open_ok(&t));
    off_t size = file_size(&t);

    patch_byte(&t, size - 10); /* slice data */
    cr_assert_eq(open_error(&t), TB_ERR_CHECKSUM);
    patch_byte(&t, size - 10);
    tb_close(open_ok(&t));

    patch_byte(&t, 40 + 32); /* slice 0's checksum in the header */
    cr_assert_eq(open_error(&t), TB_ERR_CHECKSUM);
    patch_byte(&t, 40 + 32);

    patch_byte(&t, 0); /* magic */
    cr_assert_eq(open_error(&t), TB_ERR_FORMAT);
    patch_byte(&t, 0);
    tb_close(open_ok(&t));

    char path[128];
    tmp_path(&t, path, sizeof path);
    cr_assert_eq(truncate(path, size - 1), 0);
    cr_assert_eq(open_error(&t), TB_ERR_FORMAT);
    cr_assert_eq(truncate(path, 100), 0);
    cr_assert_eq(open_error(&t), TB_ERR_FORMAT);
    cr_assert_eq(truncate(path, 0), 0);
    cr_assert_eq(open_error(&t), TB_ERR_FORMAT);
    tmp_remove(&t);
}

Test(tb_file, resume_skips_verified_slices_and_rebuilds_bad_ones)
{
    tmpdir_t t;
    phases_t ph;
    tmp_make(&t);
    cr_assert_eq(build(&t, 2, -1, false, &ph), TB_OK);
    cr_assert(ph.init[0] && ph.init[1] && ph.write[0] && ph.write[1]);
    tb_t *tb = open_ok(&t);
    tb_slice_stats_t s0, s1;
    tb_slice_stats(tb, 0, &s0);
    tb_slice_stats(tb, 1, &s1);
    tb_close(tb);

    cr_assert_eq(build(&t, 2, -1, false, &ph), TB_OK);
    cr_assert(ph.skip[0] && ph.skip[1] && !ph.init[0] && !ph.init[1], "a finished database is skipped");

    cr_assert_eq(build(&t, 2, 1, true, &ph), TB_OK);
    cr_assert(ph.init[1] && !ph.init[0] && !ph.skip[0], "--slice 1 --restart rebuilds slice 1 only");

    patch_byte(&t, file_size(&t) - 1); /* the last byte of slice 1 */
    cr_assert_eq(build(&t, 2, -1, false, &ph), TB_OK);
    cr_assert(ph.init[1] && ph.skip[0], "a slice with a bad checksum is rebuilt");

    tb = open_ok(&t);
    tb_slice_stats_t again;
    tb_slice_stats(tb, 0, &again);
    cr_assert_eq(again.checksum, s0.checksum);
    tb_slice_stats(tb, 1, &again);
    cr_assert_eq(again.checksum, s1.checksum, "rebuilding gives the same bytes");
    tb_close(tb);

    cr_assert_eq(build(&t, 1, -1, false, NULL), TB_ERR_MISMATCH, "another capture count needs --restart");
    cr_assert_eq(build(&t, 1, -1, true, &ph), TB_OK);
    tb = open_ok(&t);
    cr_assert_eq(tb_captures_to_win(tb), 1);
    tb_close(tb);
    tmp_remove(&t);
}

Test(tb_file, bad_arguments)
{
    tmpdir_t t;
    tmp_make(&t);
    cr_assert_eq(build(&t, 0, -1, false, NULL), TB_ERR_ARGUMENT);
    cr_assert_eq(build(&t, 6, -1, false, NULL), TB_ERR_ARGUMENT);
    cr_assert_eq(build(&t, 2, 2, false, NULL), TB_ERR_ARGUMENT);
    cr_assert_eq(build(&t, 2, 0, false, NULL), TB_ERR_MISSING, "slice 0 needs slice 1");
    tb_gen_options_t o;
    tb_gen_options_init(&o, t.dir);
    o.threads = 0;
    cr_assert_eq(tb_generate(&o, NULL, 0), TB_ERR_ARGUMENT);
    tb_gen_options_init(&o, "/nonexistent/dir");
    o.captures_to_win = 1;
    char msg[200];
    cr_assert_eq(tb_generate(&o, msg, sizeof msg), TB_ERR_IO);
    tmp_remove(&t);
}
