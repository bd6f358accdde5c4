/* The evaluation's weights file and network (built in, checked at load, a damaged one refused
 * for the hand-set weights or the terms) and the evaluation's symmetry under the board's 8 symmetries. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "baghchal.h"

static uint32_t rng_next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* g: a game from the start under the draw rule, len random moves long (shorter if it ends). */
static void random_game(game_t *g, uint32_t *seed, int len)
{
    position_t start;
    position_set_start(&start);
    cr_assert(game_init(g, &start, NULL, REP_DRAW));
    for (int i = 0; i < len && game_result(g).reason == RESULT_NONE; i++) {
        move_t list[MAX_MOVES];
        int n = game_legal_moves(g, list);
        cr_assert_eq(game_play(g, list[rng_next(seed) % (uint32_t)n], NULL, 0), BC_OK);
    }
}

static bool same_weights(const eval_params_t *a, const eval_params_t *b)
{
    return memcmp(a->mg, b->mg, sizeof a->mg) == 0 && memcmp(a->eg, b->eg, sizeof a->eg) == 0;
}

/* A weights file with a known content: the hand-set weights, every mg changed by one. */
static void sample_file(uint8_t out[EVAL_FILE_SIZE], eval_params_t *w)
{
    eval_params_hand(w);
    for (int i = 0; i < EV_TERM_NB; i++)
        w->mg[i] = (int16_t)(w->mg[i] + 1);
    eval_params_write(w, out);
}

/* Loads data (len bytes) and checks that it is refused with a message holding want and that
 * the hand-set weights come back. */
static void check_refused(const uint8_t *data, size_t len, const char *want)
{
    eval_params_t w, hand;
    memset(&w, 0x55, sizeof w);
    eval_params_hand(&hand);
    char msg[160] = "";
    cr_assert_not(eval_params_load(&w, data, len, msg, sizeof msg), "a damaged file (%s) was taken", want);
    cr_assert(strstr(msg, want), "the reason '%s' does not say '%s'", msg, want);
    cr_assert(same_weights(&w, &hand), "refused (%s) but the hand-set weights are not what is left", want);
}

Test(eval, the_built_in_weights_load_and_are_tuned)
{
    eval_params_t w, hand;
    char msg[160] = "";
    cr_assert(eval_params_load(&w, EVAL_TUNED_DATA, EVAL_TUNED_SIZE, msg, sizeof msg), "refused: %s", msg);
    cr_assert_eq(EVAL_TUNED_SIZE, (size_t)EVAL_FILE_SIZE);
    eval_params_hand(&hand);
    cr_assert_not(same_weights(&w, &hand), "the built-in weights are the hand-set ones");
    /* The engine plays with them. */
    engine_t *e = engine_new();
    cr_assert_not_null(e);
    cr_assert(same_weights(engine_eval(e), &w));
    cr_assert_null(engine_eval_error(e));
    engine_free(e);
}

Test(eval, a_written_file_reads_back)
{
    uint8_t file[EVAL_FILE_SIZE];
    eval_params_t w, back;
    sample_file(file, &w);
    cr_assert(eval_params_load(&back, file, sizeof file, NULL, 0));
    cr_assert(same_weights(&w, &back));
}

Test(eval, a_damaged_file_is_refused_for_the_hand_weights)
{
    uint8_t file[EVAL_FILE_SIZE + 1];
    eval_params_t w;
    sample_file(file, &w);
    /* Size: one byte short, one byte more, empty. */
    check_refused(file, EVAL_FILE_SIZE - 1, "bytes, expected");
    file[EVAL_FILE_SIZE] = 0;
    check_refused(file, EVAL_FILE_SIZE + 1, "bytes, expected");
    check_refused(file, 0, "not an evaluation weights file");
    /* Any changed byte of the weights or of the checksum. */
    for (size_t at = EVAL_FILE_HEADER; at < EVAL_FILE_SIZE; at++) {
        sample_file(file, &w);
        file[at] ^= 0x10;
        check_refused(file, EVAL_FILE_SIZE, "checksum mismatch");
    }
    /* The magic. */
    sample_file(file, &w);
    file[0] = 'X';
    check_refused(file, EVAL_FILE_SIZE, "not an evaluation weights file");
}

Test(eval, another_version_or_list_of_terms_is_refused)
{
    uint8_t file[EVAL_FILE_SIZE];
    eval_params_t w;
    /* Version 2, its checksum right: refused for the version. */
    sample_file(file, &w);
    file[4] = 2;
    uint32_t h = eval_fnv1a(file, EVAL_FILE_SIZE - 4, EVAL_FNV_START);
    for (int i = 0; i < 4; i++)
        file[EVAL_FILE_SIZE - 4 + i] = (uint8_t)(h >> (8 * i));
    check_refused(file, EVAL_FILE_SIZE, "weights file version 2, this program reads version 1");
    /* Another list of terms (one more term; its id changed). */
    sample_file(file, &w);
    file[6] = (uint8_t)(EV_TERM_NB + 1);
    check_refused(file, EVAL_FILE_SIZE, "another list of terms");
    sample_file(file, &w);
    file[8] ^= 1;
    check_refused(file, EVAL_FILE_SIZE, "another list of terms");
}

/* Loads a network file and checks that it is refused with a message holding want, the terms'
 * weights w evaluating then. */
static void check_net_refused(const uint8_t *data, size_t len, const char *want)
{
    eval_params_t w;
    cr_assert(eval_params_load(&w, EVAL_TUNED_DATA, EVAL_TUNED_SIZE, NULL, 0));
    w.use_net = true;
    char msg[160] = "";
    cr_assert_not(eval_net_load(&w, data, len, msg, sizeof msg), "a damaged network (%s) was taken", want);
    cr_assert(strstr(msg, want), "the reason '%s' does not say '%s'", msg, want);
    cr_assert_not(w.use_net, "refused (%s) but the network still evaluates", want);
    position_t p;
    position_set_start(&p);
    eval_trace_t t;
    cr_assert_eq(eval_position(&w, &p), eval_trace(&w, &p, &t));
}

static void fix_checksum(uint8_t *file, size_t len)
{
    uint32_t h = eval_fnv1a(file, len - 4, EVAL_FNV_START);
    for (int i = 0; i < 4; i++)
        file[len - 4 + i] = (uint8_t)(h >> (8 * i));
}

Test(eval, the_built_in_network_loads_and_the_engine_evaluates_with_it)
{
    eval_params_t w;
    char msg[160] = "";
    cr_assert(eval_params_load(&w, EVAL_TUNED_DATA, EVAL_TUNED_SIZE, msg, sizeof msg), "refused: %s", msg);
    cr_assert(eval_net_load(&w, EVAL_NET_DATA, EVAL_NET_SIZE, msg, sizeof msg), "refused: %s", msg);
    cr_assert(w.use_net);
    int k = EVAL_NET_DATA[6] | EVAL_NET_DATA[7] << 8, j = EVAL_NET_DATA[8] | EVAL_NET_DATA[9] << 8,
        nb = EVAL_NET_DATA[10] | EVAL_NET_DATA[11] << 8;
    cr_assert_eq(EVAL_NET_SIZE, eval_net_file_size(k, j, nb));
    cr_assert_eq(w.net.buckets, nb);
    cr_assert_eq(w.net.hidden, 8 * k);
    cr_assert_eq(w.net.j, j);
    cr_assert_gt(j, 0, "the built-in network has no second layer");
    engine_t *e = engine_new();
    cr_assert_not_null(e);
    cr_assert(engine_eval(e)->use_net);
    cr_assert_null(engine_net_error(e));
    /* The search evaluates with the network's value: a position from play, tigers to move. */
    position_t p;
    cr_assert_eq(obx_parse("TGGGT/XGXXX/XXGXX/XXXTX/TXXXX t @15 c0", &p, NULL, NULL, 0), BC_OK);
    int v = eval_net(&w.net, &p);
    eval_trace_t t;
    int terms = eval_trace(&w, &p, &t);
    cr_assert_neq(v, terms, "the network gives the terms' value");
    cr_assert_eq(eval_position(engine_eval(e), &p), -v);
    engine_free(e);
}

Test(eval, a_damaged_network_is_refused_for_the_terms)
{
    size_t size = EVAL_NET_SIZE;
    uint8_t *file = malloc(size + 1);
    cr_assert_not_null(file);
    memcpy(file, EVAL_NET_DATA, size);
    file[size] = 0;
    check_net_refused(file, size - 1, "bytes for");
    check_net_refused(file, size + 1, "bytes for");
    check_net_refused(file, 0, "not an evaluation network file");
    /* Any changed byte of the weights or of the checksum. */
    for (size_t at = EVAL_NET_HEADER; at < size; at++) {
        file[at] ^= 0x10;
        check_net_refused(file, size, "checksum mismatch");
        file[at] ^= 0x10;
    }
    /* The magic; version 3 (one output layer for every position, no bucket count) and no
     * units, their checksums right. */
    file[0] = 'X';
    check_net_refused(file, size, "not an evaluation network file");
    memcpy(file, EVAL_NET_DATA, size);
    file[4] = 3;
    fix_checksum(file, size);
    check_net_refused(file, size, "network file version 3, this program reads version 4");
    memcpy(file, EVAL_NET_DATA, size);
    file[6] = file[7] = 0;
    fix_checksum(file, size);
    check_net_refused(file, size, "bytes for 0 x");
    memcpy(file, EVAL_NET_DATA, size);
    file[8] = 0xFF; /* more second-layer units than a network may have */
    fix_checksum(file, size);
    check_net_refused(file, size, "expected 0");
    memcpy(file, EVAL_NET_DATA, size);
    for (int nb = 0; nb <= 5; nb++) { /* buckets: 1 or 4, and as many as the file holds */
        if (nb == (EVAL_NET_DATA[10] | EVAL_NET_DATA[11] << 8))
            continue;
        file[10] = (uint8_t)nb;
        fix_checksum(file, size);
        check_net_refused(file, size, nb == 1 || nb == 4 ? "bytes for" : "expected 0");
    }
    memcpy(file, EVAL_NET_DATA, size);
    /* Second-layer weights that could take a sum beyond 32 bits: every weight of unit 0 at
     * the most an int16 holds. */
    int k = EVAL_NET_DATA[6] | EVAL_NET_DATA[7] << 8, j = EVAL_NET_DATA[8] | EVAL_NET_DATA[9] << 8;
    for (int u = 0; u < k; u++) {
        size_t at = EVAL_NET_HEADER + 2 * (size_t)k * (50 + EVAL_NET_SCALARS + 2) + 2 * ((size_t)u * (size_t)j);
        file[at] = 0xFF;
        file[at + 1] = 0x7F;
    }
    fix_checksum(file, size);
    check_net_refused(file, size, "second-layer unit 0 of bucket 0 could overflow");
    memcpy(file, EVAL_NET_DATA, size);
    /* First-layer weights whose sum could leave 16 bits: unit 0's on every point. */
    for (int i = 0; i < 50; i++) {
        size_t at = EVAL_NET_HEADER + 2 * ((size_t)i * (size_t)k);
        file[at] = 0x00;
        file[at + 1] = 0x10;
    }
    fix_checksum(file, size);
    check_net_refused(file, size, "first-layer unit 0 could overflow");
    memcpy(file, EVAL_NET_DATA, size);
    eval_params_t w;
    eval_params_hand(&w);
    cr_assert(eval_net_load(&w, file, size, NULL, 0), "the undamaged copy is refused");
    free(file);
}

/* The image of a point set under symmetry s: mirror the columns (bit 0), the rows (bit 1),
 * then swap columns and rows (bit 2). */
static bb_t transform(int s, bb_t b)
{
    bb_t out = 0;
    for (int sq = 0; sq < SQUARE_NB; sq++) {
        if (!(b & bb_square(sq)))
            continue;
        int c = sq % 5, r = sq / 5;
        if (s & 1)
            c = 4 - c;
        if (s & 2)
            r = 4 - r;
        if (s & 4) {
            int t = c;
            c = r;
            r = t;
        }
        out |= bb_square(r * 5 + c);
    }
    return out;
}

Test(eval, the_same_under_the_boards_eight_symmetries)
{
    eval_params_t tuned, hand, net;
    cr_assert(eval_params_load(&tuned, EVAL_TUNED_DATA, EVAL_TUNED_SIZE, NULL, 0));
    eval_params_hand(&hand);
    eval_params_hand(&net);
    cr_assert(eval_net_load(&net, EVAL_NET_DATA, EVAL_NET_SIZE, NULL, 0));
    uint32_t seed = 20261128u;
    int checked = 0;
    for (int k = 0; k < 300; k++) {
        game_t g;
        random_game(&g, &seed, (int)(rng_next(&seed) % 100));
        position_t p = *game_position(&g);
        eval_trace_t t0, t;
        int v0 = eval_trace(&tuned, &p, &t0), h0 = eval_position(&hand, &p), n0 = eval_position(&net, &p);
        for (int s = 1; s < 8; s++) {
            position_t q = p;
            q.tigers = transform(s, p.tigers);
            q.goats = transform(s, p.goats);
            q.key = position_compute_key(&q);
            cr_assert_eq(bb_count(q.tigers), bb_count(p.tigers));
            int v = eval_trace(&tuned, &q, &t);
            for (int i = 0; i < EV_TERM_NB; i++)
                cr_assert_eq(t.count[i], t0.count[i], "%s counts %d, %d under symmetry %d", EVAL_WEIGHTS[i].name,
                             t0.count[i], t.count[i], s);
            cr_assert_eq(v, v0, "tuned: %d, %d under symmetry %d", v0, v, s);
            cr_assert_eq(eval_position(&hand, &q), h0, "hand-set weights, symmetry %d", s);
            cr_assert_eq(eval_position(&net, &q), n0, "network: %d, %d under symmetry %d", n0, eval_position(&net, &q), s);
            checked++;
        }
        game_free(&g);
    }
    cr_assert_eq(checked, 300 * 7);
}

/* The search evaluates through a cache (the units' inputs of the last position, brought to the
 * next by the points that differ): along games, between unrelated positions and after a
 * clear, it gives the value computed from scratch. */
Test(eval, the_network_through_its_cache_is_the_network_from_scratch)
{
    eval_params_t w;
    eval_params_hand(&w);
    cr_assert(eval_net_load(&w, EVAL_NET_DATA, EVAL_NET_SIZE, NULL, 0));
    eval_cache_t *c = malloc(sizeof *c);
    cr_assert_not_null(c);
    eval_cache_clear(c);
    uint32_t seed = 7u;
    int checked = 0, differ = 0;
    for (int k = 0; k < 200; k++) {
        game_t g;
        random_game(&g, &seed, 0);
        int last = 0;
        for (int i = 0; i < 150 && game_result(&g).reason == RESULT_NONE; i++) {
            const position_t *p = game_position(&g);
            int v = eval_net(&w.net, p);
            cr_assert_eq(eval_net_cached(&w.net, c, p), v, "game %d, ply %d", k, i);
            cr_assert_eq(eval_position_cached(&w, c, p), eval_position(&w, p), "game %d, ply %d", k, i);
            differ += v != last;
            last = v;
            checked++;
            if (rng_next(&seed) % 50 == 0)
                eval_cache_clear(c);
            move_t list[MAX_MOVES];
            int n = game_legal_moves(&g, list);
            cr_assert_eq(game_play(&g, list[rng_next(&seed) % (uint32_t)n], NULL, 0), BC_OK);
        }
        game_free(&g);
    }
    cr_assert_gt(checked, 5000);
    cr_assert_gt(differ, checked / 2, "the network's value hardly changes (%d of %d)", differ, checked);
    free(c);
}

/* The network's value as the file defines it (eval.h), computed here from the file's bytes
 * point by point, in the plainest way: the library's expanded tables, its 16-bit sums, its
 * pairing of the second layer and its vector paths must all give this number. */
static int16_t le16(const uint8_t *b) { return (int16_t)(b[0] | b[1] << 8); }
static int32_t le32(const uint8_t *b) { return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24); }

static int reference_net(const uint8_t *f, const position_t *p)
{
    int k = le16(f + 6), j = le16(f + 8), nb = le16(f + 10);
    /* The bucket: by goats in hand, none, 1-7, 8-14, 15-20, when there are 4. */
    int q = nb == 1 ? 0 : p->in_hand == 0 ? 0 : p->in_hand <= 7 ? 1 : p->in_hand <= 14 ? 2 : 3;
    const uint8_t *board = f + 12, *scal = board + 2 * 50 * k, *bias = scal + 2 * EVAL_NET_SCALARS * k;
    const uint8_t *out = bias + 2 * k + (size_t)q * (2 * k + 2 * k * j + 6 * j + 4);
    const uint8_t *w2 = out + 2 * k, *b2 = w2 + 2 * k * j, *out2 = b2 + 4 * j, *out_bias = out2 + 2 * j;
    int64_t pooled[EVAL_NET_K_MAX];
    for (int u = 0; u < k; u++) {
        /* the row of the count of goats in hand, of goats captured, goats to move */
        int64_t hand = le16(scal + 2 * (p->in_hand * k + u));
        int64_t cap = le16(scal + 2 * ((EVAL_NET_HANDS + p->captured) * k + u));
        int64_t s2 = le16(scal + 2 * ((EVAL_NET_SCALARS - 1) * k + u));
        int64_t sum = 0;
        for (int s = 0; s < 8; s++) {
            int64_t a = le16(bias + 2 * u) + hand + cap + (p->side == GOATS ? s2 : 0);
            for (int i = 0; i < SQUARE_NB; i++) {
                bb_t at = transform(s, bb_square(i));
                if (p->goats & at)
                    a += le16(board + 2 * (i * k + u));
                if (p->tigers & at)
                    a += le16(board + 2 * ((25 + i) * k + u));
            }
            sum += a > 0 ? a : 0;
        }
        pooled[u] = sum < 32767 ? sum : 32767;
    }
    int64_t lin = 0;
    for (int u = 0; u < k; u++)
        lin += pooled[u] * le16(out + 2 * u);
    int64_t total = 64 * (lin + le32(out_bias));
    for (int v = 0; v < j; v++) {
        int64_t z = le32(b2 + 4 * v);
        for (int u = 0; u < k; u++)
            z += pooled[u] * le16(w2 + 2 * (u * j + v));
        if (z > 0)
            total += z * le16(out2 + 2 * v);
    }
    int64_t v = total * EVAL_NET_CP / (1 << 21), mag = v < 0 ? -v : v;
    if (mag > EVAL_NET_KNEE)
        mag = EVAL_NET_KNEE + (mag - EVAL_NET_KNEE) / 8;
    return (int)(v < 0 ? -mag : mag);
}

Test(eval, the_network_is_the_value_its_file_defines)
{
    eval_params_t w;
    eval_params_hand(&w);
    cr_assert(eval_net_load(&w, EVAL_NET_DATA, EVAL_NET_SIZE, NULL, 0));
    uint32_t seed = 11u;
    int checked = 0, nonzero = 0;
    for (int k = 0; k < 200; k++) {
        game_t g;
        random_game(&g, &seed, (int)(rng_next(&seed) % 120));
        const position_t *p = game_position(&g);
        int want = reference_net(EVAL_NET_DATA, p), got = eval_net(&w.net, p);
        cr_assert_eq(got, want, "game %d: the library says %d, the file %d", k, got, want);
        nonzero += want != 0;
        checked++;
        game_free(&g);
    }
    cr_assert_eq(checked, 200);
    cr_assert_gt(nonzero, 150);
}

/* A network of 4 buckets made from the built-in one: its layers after the pooling copied to
 * each bucket, then made to differ (each bucket's output bias and output weights its own). A
 * position is evaluated through its own bucket's layers, as the file defines, in every phase. */
Test(eval, each_phase_is_evaluated_through_its_own_bucket)
{
    int k = le16(EVAL_NET_DATA + 6), j = le16(EVAL_NET_DATA + 8), nb = le16(EVAL_NET_DATA + 10);
    size_t first = EVAL_NET_HEADER + 2 * (size_t)k * (50 + EVAL_NET_SCALARS + 1);
    size_t head = 2 * (size_t)k + 2 * (size_t)k * (size_t)j + 6 * (size_t)j + 4, size = eval_net_file_size(k, j, 4);
    cr_assert_eq(EVAL_NET_SIZE, first + (size_t)nb * head + 4);
    uint8_t *file = malloc(size);
    cr_assert_not_null(file);
    memcpy(file, EVAL_NET_DATA, first);
    file[10] = 4;
    file[11] = 0;
    for (int q = 0; q < 4; q++) {
        uint8_t *h = file + first + (size_t)q * head;
        memcpy(h, EVAL_NET_DATA + first + (size_t)(nb == 4 ? q : 0) * head, head);
        int32_t bias = le32(h + head - 4) + (q - 1) * 300000;
        for (int i = 0; i < 4; i++)
            h[head - 4 + i] = (uint8_t)((uint32_t)bias >> (8 * i));
        for (int u = 0; u < k; u++) { /* the pooled values' output weights, scaled by bucket */
            int v = le16(h + 2 * u) * (q + 2) / 3;
            h[2 * u] = (uint8_t)(v & 0xFF);
            h[2 * u + 1] = (uint8_t)((v >> 8) & 0xFF);
        }
    }
    fix_checksum(file, size);
    eval_params_t w;
    eval_params_hand(&w);
    char msg[160] = "";
    cr_assert(eval_net_load(&w, file, size, msg, sizeof msg), "refused: %s", msg);
    cr_assert_eq(w.net.buckets, 4);
    eval_params_t one;
    eval_params_hand(&one);
    cr_assert(eval_net_load(&one, EVAL_NET_DATA, EVAL_NET_SIZE, NULL, 0));
    eval_cache_t *c = malloc(sizeof *c);
    cr_assert_not_null(c);
    eval_cache_clear(c);
    uint32_t seed = 5u;
    int seen[4] = {0}, differ = 0;
    for (int g = 0; g < 60; g++) {
        game_t game;
        random_game(&game, &seed, 0);
        for (int i = 0; i < 80 && game_result(&game).reason == RESULT_NONE; i++) {
            const position_t *p = game_position(&game);
            int want = reference_net(file, p), got = eval_net(&w.net, p);
            cr_assert_eq(got, want, "game %d, ply %d (%d in hand): the library says %d, the file %d", g, i,
                         p->in_hand, got, want);
            cr_assert_eq(eval_net_cached(&w.net, c, p), want, "game %d, ply %d through the cache", g, i);
            seen[eval_net_bucket(&w.net, p->in_hand)]++;
            differ += want != eval_net(&one.net, p);
            move_t list[MAX_MOVES];
            int n = game_legal_moves(&game, list);
            cr_assert_eq(game_play(&game, list[rng_next(&seed) % (uint32_t)n], NULL, 0), BC_OK);
        }
        game_free(&game);
    }
    for (int q = 0; q < 4; q++)
        cr_assert_gt(seen[q], 100, "bucket %d evaluated %d positions", q, seen[q]);
    cr_assert_gt(differ, (seen[0] + seen[1] + seen[2] + seen[3]) / 2, "the buckets' own layers changed few values");
    free(c);
    free(file);
}
