/* OBX 1.0 / 2.0 positions and move text: round trips over random games, exact output,
 * one rejection per rule of RULES.md, the published seed examples checked by hand. */
#include <criterion/criterion.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "baghchal.h"

/* ------------------------------------------------------------------------------------ */
/* Helpers                                                                              */
/* ------------------------------------------------------------------------------------ */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned rng_below(uint64_t *s, unsigned n) { return (unsigned)(rng_next(s) % n); }

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *h = hay; *h; h++) {
        size_t i = 0;
        while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return n == 0;
}

static int sq(const char *name)
{
    int s = square_parse(name);
    cr_assert(s >= 0, "bad square name in the test: %s", name);
    return s;
}

/* "A1 E1 A5 E5" -> the set of those points. */
static bb_t squares(const char *list)
{
    bb_t b = 0;
    for (const char *s = list; *s;) {
        if (*s == ' ') {
            s++;
            continue;
        }
        b |= bb_square(sq(s));
        s += 2;
    }
    return b;
}

static void assert_same_position(const position_t *got, const position_t *want, const char *ctx)
{
    cr_assert_eq(got->tigers, want->tigers, "%s: tigers %#x, want %#x", ctx, got->tigers, want->tigers);
    cr_assert_eq(got->goats, want->goats, "%s: goats %#x, want %#x", ctx, got->goats, want->goats);
    cr_assert_eq(got->side, want->side, "%s: side %d, want %d", ctx, got->side, want->side);
    cr_assert_eq(got->in_hand, want->in_hand, "%s: in hand %d, want %d", ctx, got->in_hand, want->in_hand);
    cr_assert_eq(got->captured, want->captured, "%s: captured %d, want %d", ctx, got->captured, want->captured);
    cr_assert_eq(got->key, want->key, "%s: key differs", ctx);
}

static void assert_same_meta(const obx_meta_t *got, const obx_meta_t *want, const char *ctx)
{
    cr_assert_eq(got->last_move, want->last_move, "%s: last move %#x, want %#x", ctx, got->last_move,
                 want->last_move);
    cr_assert_eq(got->ply, want->ply, "%s: ply %d, want %d", ctx, got->ply, want->ply);
}

/* Parses text that must be valid and checks it gives exactly this position. */
static void expect_position(const char *text, bb_t tigers, bb_t goats, side_t side, int in_hand, int captured,
                            position_t *pos_out, obx_meta_t *meta_out)
{
    position_t p;
    obx_meta_t m;
    char msg[128] = "";
    bc_error_t e = obx_parse(text, &p, &m, msg, sizeof msg);
    cr_assert_eq(e, BC_OK, "'%s' rejected with %s: %s", text, bc_error_name(e), msg);
    position_t want = {.tigers = tigers, .goats = goats, .side = (uint8_t)side,
                       .in_hand = (uint8_t)in_hand, .captured = (uint8_t)captured};
    want.key = position_compute_key(&want);
    assert_same_position(&p, &want, text);
    cr_assert(position_is_ok(&p), "'%s' parsed into an inconsistent position", text);
    if (pos_out)
        *pos_out = p;
    if (meta_out)
        *meta_out = m;
}

/* Parses text that must be rejected with code; the message must be non-empty and contain
 * both keywords (kw2 may be NULL); the caller's position and meta must be untouched. */
static void expect_reject2(const char *text, bc_error_t code, const char *kw1, const char *kw2)
{
    position_t pos, pos_before;
    obx_meta_t meta, meta_before;
    memset(&pos, 0xA5, sizeof pos);
    memset(&meta, 0x5A, sizeof meta);
    pos_before = pos;
    meta_before = meta;
    char msg[256];
    memset(msg, 0, sizeof msg);
    bc_error_t e = obx_parse(text, &pos, &meta, msg, sizeof msg);
    cr_assert_eq(e, code, "'%s': got %s (%s), want %s", text, bc_error_name(e), msg, bc_error_name(code));
    cr_assert(msg[0] != '\0', "'%s': empty message", text);
    cr_assert(contains_ci(msg, kw1), "'%s': message '%s' does not mention '%s'", text, msg, kw1);
    if (kw2)
        cr_assert(contains_ci(msg, kw2), "'%s': message '%s' does not mention '%s'", text, msg, kw2);
    cr_assert(memcmp(&pos, &pos_before, sizeof pos) == 0, "'%s': position changed on error", text);
    cr_assert(memcmp(&meta, &meta_before, sizeof meta) == 0, "'%s': meta changed on error", text);

    /* Same answer without meta and without a message buffer; still nothing written. */
    e = obx_parse(text, &pos, NULL, NULL, 0);
    cr_assert_eq(e, code, "'%s' (no meta, no msg): got %s", text, bc_error_name(e));
    cr_assert(memcmp(&pos, &pos_before, sizeof pos) == 0, "'%s': position changed on error", text);
    /* A tiny message buffer is still terminated and not overrun. */
    char small[6];
    memset(small, 'Z', sizeof small);
    e = obx_parse(text, &pos, &meta, small, 4);
    cr_assert_eq(e, code);
    cr_assert(memchr(small, '\0', 4) != NULL, "'%s': message not terminated in a 4-byte buffer", text);
    cr_assert_eq(small[4], 'Z', "'%s': message overran its buffer", text);
    cr_assert_eq(small[5], 'Z');
}

static void expect_reject(const char *text, bc_error_t code, const char *kw)
{
    expect_reject2(text, code, kw, NULL);
}

/* For an input breaking several rules at once: rejected with one of the codes (the order
 * in which rules are checked is not specified), the message naming that problem. */
static void expect_reject_any(const char *text, const bc_error_t *codes, const char *const *kws, int n)
{
    position_t pos, pos_before;
    obx_meta_t meta, meta_before;
    memset(&pos, 0xA5, sizeof pos);
    memset(&meta, 0x5A, sizeof meta);
    pos_before = pos;
    meta_before = meta;
    char msg[256] = "";
    bc_error_t e = obx_parse(text, &pos, &meta, msg, sizeof msg);
    int found = -1;
    for (int i = 0; i < n; i++)
        if (e == codes[i])
            found = i;
    cr_assert(found >= 0, "'%s': got %s (%s), not one of the broken rules", text, bc_error_name(e), msg);
    cr_assert(contains_ci(msg, kws[found]), "'%s': message '%s' does not mention '%s'", text, msg, kws[found]);
    cr_assert(memcmp(&pos, &pos_before, sizeof pos) == 0, "'%s': position changed on error", text);
    cr_assert(memcmp(&meta, &meta_before, sizeof meta) == 0, "'%s': meta changed on error", text);
}

/* Formats and checks the returned length and the exact text. */
static void expect_format(const position_t *p, const obx_meta_t *m, int version, const char *want)
{
    char buf[OBX_MAX_LEN];
    memset(buf, 'Z', sizeof buf);
    size_t n = obx_format(p, m, version, buf, sizeof buf);
    cr_assert_str_eq(buf, want, "OBX %d: got '%s', want '%s'", version, buf, want);
    cr_assert_eq(n, strlen(want), "returned length %zu, want %zu", n, strlen(want));
}

/* ------------------------------------------------------------------------------------ */
/* Positions from seeded random games                                                   */
/* ------------------------------------------------------------------------------------ */

typedef struct {
    position_t pos;
    obx_meta_t meta;
} sample_t;

enum { SAMPLE_CAP = 4000 };

static bool is_jump(move_t m) { return move_kind(m) == MOVE_JUMP; }

/* Tigers' style per game: 0 never captures when another move exists (long games that reach
 * the movement phase), 1 uniform, 2 always captures when it can (games to five captured). */
static move_t pick_move(const move_t *list, int n, int style, uint64_t *s)
{
    move_t pref[MAX_MOVES];
    int k = 0;
    for (int i = 0; i < n; i++)
        if ((style == 0 && !is_jump(list[i])) || (style == 2 && is_jump(list[i])))
            pref[k++] = list[i];
    if (style == 1 || k == 0)
        return list[rng_below(s, (unsigned)n)];
    return pref[rng_below(s, (unsigned)k)];
}

static size_t random_samples(sample_t *out, size_t cap, uint64_t seed)
{
    uint64_t s = seed;
    size_t n = 0;
    for (int game = 0; n < cap; game++) {
        position_t p;
        position_set_start(&p);
        obx_meta_t meta = {MOVE_NONE, 0};
        int style = game % 3;
        int length = 10 + (int)rng_below(&s, 190);
        for (int ply = 0;; ply++) {
            if (n == cap)
                return n;
            out[n] = (sample_t){p, meta};
            /* Some positions with an unknown move number or no recorded last move. */
            if (n % 11 == 5)
                out[n].meta.ply = -1;
            if (n % 13 == 7)
                out[n].meta.last_move = MOVE_NONE;
            n++;
            if (ply == length)
                break;
            move_t list[MAX_MOVES];
            int k = gen_moves(&p, list);
            if (k == 0)
                break;
            move_t m = pick_move(list, k, style, &s);
            position_make(&p, m);
            meta.last_move = m;
            meta.ply = ply + 1;
        }
    }
    return n;
}

static sample_t g_samples[SAMPLE_CAP];

static size_t load_samples(void)
{
    size_t n = random_samples(g_samples, SAMPLE_CAP, 0x0b5eed2025ull);
    cr_assert_eq(n, (size_t)SAMPLE_CAP);
    return n;
}

static void format_obx(const sample_t *s, int version, char *buf)
{
    size_t n = obx_format(&s->pos, &s->meta, version, buf, OBX_MAX_LEN);
    cr_assert(n > 0 && n < OBX_MAX_LEN, "OBX length %zu out of range", n);
    cr_assert_eq(n, strlen(buf));
}

static void parse_ok(const char *text, position_t *p, obx_meta_t *m)
{
    char msg[128] = "";
    bc_error_t e = obx_parse(text, p, m, msg, sizeof msg);
    cr_assert_eq(e, BC_OK, "'%s' rejected with %s: %s", text, bc_error_name(e), msg);
}

Test(obx_roundtrip, samples_cover_both_phases_and_captures)
{
    size_t n = load_samples();
    int movement = 0, captured = 0, finished = 0, tigers = 0, jumps = 0, goat_steps = 0, placing = 0;
    for (size_t i = 0; i < n; i++) {
        const position_t *p = &g_samples[i].pos;
        cr_assert(position_is_ok(p));
        movement += p->in_hand == 0;
        placing += p->in_hand > 0 && p->in_hand < BC_GOATS_TOTAL;
        captured += p->captured > 0;
        finished += p->captured == BC_CAPTURES_TO_WIN;
        tigers += p->side == TIGERS;
        jumps += is_jump(g_samples[i].meta.last_move);
        goat_steps += move_kind(g_samples[i].meta.last_move) == MOVE_STEP && p->side == TIGERS && p->in_hand == 0;
    }
    cr_assert_geq(movement, 300, "only %d movement-phase positions", movement);
    cr_assert_geq(placing, 300, "only %d placement-phase positions", placing);
    cr_assert_geq(captured, 300, "only %d positions with captures", captured);
    cr_assert_geq(finished, 10, "only %d positions with five captured", finished);
    cr_assert_geq(tigers, 300);
    cr_assert_geq(jumps, 100, "only %d captures as last move", jumps);
    cr_assert_geq(goat_steps, 100, "only %d goat steps as last move", goat_steps);
}

static void roundtrip_version(int version)
{
    size_t n = load_samples();
    for (size_t i = 0; i < n; i++) {
        char text[OBX_MAX_LEN];
        format_obx(&g_samples[i], version, text);
        position_t p;
        obx_meta_t m;
        parse_ok(text, &p, &m);
        assert_same_position(&p, &g_samples[i].pos, text);
        assert_same_meta(&m, &g_samples[i].meta, text);
        /* Formatting the parsed position again gives the same text. */
        char again[OBX_MAX_LEN];
        obx_format(&p, &m, version, again, sizeof again);
        cr_assert_str_eq(again, text);
    }
}

Test(obx_roundtrip, v2_format_then_parse) { roundtrip_version(OBX_V2); }

Test(obx_roundtrip, v1_format_then_parse) { roundtrip_version(OBX_V1); }

Test(obx_roundtrip, v1_text_reformats_as_v2_text)
{
    size_t n = load_samples();
    for (size_t i = 0; i < n; i++) {
        char v1[OBX_MAX_LEN], v2[OBX_MAX_LEN], via[OBX_MAX_LEN];
        format_obx(&g_samples[i], OBX_V1, v1);
        format_obx(&g_samples[i], OBX_V2, v2);
        position_t p;
        obx_meta_t m;
        parse_ok(v1, &p, &m);
        obx_format(&p, &m, OBX_V2, via, sizeof via);
        cr_assert_str_eq(via, v2, "V1 '%s' -> V2 '%s', want '%s'", v1, via, v2);
        /* And back. */
        parse_ok(v2, &p, &m);
        obx_format(&p, &m, OBX_V1, via, sizeof via);
        cr_assert_str_eq(via, v1);
    }
}

Test(obx_roundtrip, v1_board_uses_digits_v2_board_does_not)
{
    size_t n = load_samples();
    for (size_t i = 0; i < n; i++) {
        char v1[OBX_MAX_LEN], v2[OBX_MAX_LEN];
        format_obx(&g_samples[i], OBX_V1, v1);
        format_obx(&g_samples[i], OBX_V2, v2);
        size_t b1 = strcspn(v1, " "), b2 = strcspn(v2, " ");
        cr_assert_eq(b2, 29, "V2 board '%.*s' is not 5x5 with separators", (int)b2, v2);
        cr_assert(memchr(v1, 'X', b1) == NULL, "V1 board '%.*s' writes X", (int)b1, v1);
        for (size_t k = 0; k < b2; k++)
            cr_assert(strchr("TGX/", v2[k]) != NULL, "V2 board '%.*s'", (int)b2, v2);
        cr_assert(strncmp(v1 + b1, " g ", 3) == 0 || strncmp(v1 + b1, " t ", 3) == 0);
        cr_assert_eq(v1[b1 + 3], 'g', "V1 in-hand field in '%s'", v1);
        cr_assert_eq(v2[b2 + 3], '@', "V2 in-hand field in '%s'", v2);
    }
}

/* Rewrites the board of an OBX 2.0 line with some runs of X as digits (never two digits in
 * a row), so boards mix both forms. Returns whether the result holds both a digit and an X. */
static bool mix_board(const char *v2, char *out, uint64_t *s)
{
    size_t board = strcspn(v2, " ");
    size_t o = 0;
    bool digit = false, x = false;
    for (size_t i = 0; i < board;) {
        if (v2[i] != 'X') {
            out[o++] = v2[i++];
            continue;
        }
        size_t run = 0;
        while (i + run < board && v2[i + run] == 'X')
            run++;
        i += run;
        bool last_digit = false;
        while (run > 0) {
            size_t part = 1 + rng_below(s, (unsigned)run);
            if (!last_digit && rng_below(s, 2)) {
                out[o++] = (char)('0' + part);
                last_digit = digit = true;
            } else {
                for (size_t k = 0; k < part; k++)
                    out[o++] = 'X';
                last_digit = false;
                x = true;
            }
            run -= part;
        }
    }
    strcpy(out + o, v2 + board);
    return digit && x;
}

Test(obx_roundtrip, mixed_digit_and_x_boards_parse)
{
    size_t n = load_samples();
    uint64_t s = 77;
    int mixed = 0;
    for (size_t i = 0; i < n; i++) {
        char v2[OBX_MAX_LEN], mix[OBX_MAX_LEN];
        format_obx(&g_samples[i], OBX_V2, v2);
        mixed += mix_board(v2, mix, &s);
        position_t p;
        obx_meta_t m;
        parse_ok(mix, &p, &m);
        assert_same_position(&p, &g_samples[i].pos, mix);
        assert_same_meta(&m, &g_samples[i].meta, mix);
    }
    cr_assert_geq(mixed, 500, "only %d boards mixed digits and X", mixed);
}

Test(obx_roundtrip, mixed_board_examples)
{
    /* Goat on C3, tigers in the corners, written three ways. */
    bb_t t = squares("A1 E1 A5 E5"), g = squares("C3");
    expect_position("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0", t, g, TIGERS, 19, 0, NULL, NULL);
    expect_position("T3T/5/2G2/5/T3T t g19 c0", t, g, TIGERS, 19, 0, NULL, NULL);
    expect_position("TXXXT/5/X1GXX/XX3/T3T t @19 c0", t, g, TIGERS, 19, 0, NULL, NULL);
    expect_position("T1X1T/4X/2GX1/X4/T2XT t g19 c0", t, g, TIGERS, 19, 0, NULL, NULL);
}

static void change_case(const char *in, char *out, int (*conv)(int))
{
    size_t i = 0;
    for (; in[i]; i++)
        out[i] = (char)conv((unsigned char)in[i]);
    out[i] = '\0';
}

Test(obx_roundtrip, lower_and_upper_case_parse_identically)
{
    size_t n = load_samples();
    for (size_t i = 0; i < n; i++) {
        char text[OBX_MAX_LEN], lo[OBX_MAX_LEN], up[OBX_MAX_LEN];
        format_obx(&g_samples[i], i % 2 ? OBX_V1 : OBX_V2, text);
        change_case(text, lo, tolower);
        change_case(text, up, toupper);
        position_t p1, p2;
        obx_meta_t m1, m2;
        parse_ok(lo, &p1, &m1);
        parse_ok(up, &p2, &m2);
        assert_same_position(&p1, &g_samples[i].pos, lo);
        assert_same_meta(&m1, &g_samples[i].meta, lo);
        assert_same_position(&p2, &g_samples[i].pos, up);
        assert_same_meta(&m2, &g_samples[i].meta, up);
    }
}

/* The text up to (not including) the space before field number `fields` (1-based count). */
static void keep_fields(const char *text, int fields, char *out)
{
    size_t i = 0;
    int seen = 0;
    for (; text[i]; i++) {
        if (text[i] == ' ' && ++seen == fields)
            break;
        out[i] = text[i];
    }
    out[i] = '\0';
}

Test(obx_roundtrip, four_five_and_six_fields_accepted)
{
    size_t n = load_samples();
    for (size_t i = 0; i < n; i += 3) {
        char text[OBX_MAX_LEN], cut[OBX_MAX_LEN];
        format_obx(&g_samples[i], i % 2 ? OBX_V1 : OBX_V2, text);
        position_t p;
        obx_meta_t m;

        parse_ok(text, &p, &m);
        assert_same_meta(&m, &g_samples[i].meta, text);

        keep_fields(text, 5, cut);
        parse_ok(cut, &p, &m);
        assert_same_position(&p, &g_samples[i].pos, cut);
        cr_assert_eq(m.last_move, g_samples[i].meta.last_move, "'%s'", cut);
        cr_assert_eq(m.ply, -1, "'%s': an absent move number is unknown (-1), got %d", cut, m.ply);

        keep_fields(text, 4, cut);
        parse_ok(cut, &p, &m);
        assert_same_position(&p, &g_samples[i].pos, cut);
        cr_assert_eq(m.last_move, MOVE_NONE, "'%s'", cut);
        cr_assert_eq(m.ply, -1, "'%s'", cut);

        /* meta may be NULL. */
        position_t q;
        cr_assert_eq(obx_parse(cut, &q, NULL, NULL, 0), BC_OK);
        assert_same_position(&q, &g_samples[i].pos, cut);
    }
}

Test(obx_roundtrip, tabs_separate_fields)
{
    obx_meta_t m;
    expect_position("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT\tt\t@19\tc0\tmC3\t#g1", squares("A1 E1 A5 E5"), squares("C3"),
                    TIGERS, 19, 0, NULL, &m);
    cr_assert_eq(m.last_move, move_make(MOVE_PLACE, sq("C3"), sq("C3")));
    cr_assert_eq(m.ply, 1);
}

/* ------------------------------------------------------------------------------------ */
/* Exact formatting                                                                     */
/* ------------------------------------------------------------------------------------ */

Test(obx_format, start_position)
{
    position_t p;
    position_set_start(&p);
    obx_meta_t m = {MOVE_NONE, 0};
    expect_format(&p, &m, OBX_V2, "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #");
    expect_format(&p, &m, OBX_V1, "T3T/5/5/5/T3T g g20 c0 - 0");

    position_t q;
    obx_meta_t qm;
    expect_position("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #", p.tigers, 0, GOATS, 20, 0, &q, &qm);
    assert_same_position(&q, &p, "start V2");
    assert_same_meta(&qm, &m, "start V2");
    expect_position("T3T/5/5/5/T3T g g20 c0 - 0", p.tigers, 0, GOATS, 20, 0, &q, &qm);
    assert_same_position(&q, &p, "start V1");
    assert_same_meta(&qm, &m, "start V1");
}

/* notation.h: "meta may be NULL ("- #" / "- 0" are written then)". */
Test(obx_format, null_meta_writes_no_move_and_move_zero)
{
    position_t p;
    position_set_start(&p);
    expect_format(&p, NULL, OBX_V2, "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #");
    expect_format(&p, NULL, OBX_V1, "T3T/5/5/5/T3T g g20 c0 - 0");
}

Test(obx_format, after_goat_on_c3)
{
    position_t p;
    position_set_start(&p);
    move_t c3 = move_make(MOVE_PLACE, sq("C3"), sq("C3"));
    position_make(&p, c3);
    obx_meta_t m = {c3, 1};
    expect_format(&p, &m, OBX_V2, "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1");
    expect_format(&p, &m, OBX_V1, "T3T/5/2G2/5/T3T t g19 c0 mC3 1");

    position_t q;
    obx_meta_t qm;
    expect_position("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1", p.tigers, p.goats, TIGERS, 19, 0, &q, &qm);
    assert_same_position(&q, &p, "after C3");
    assert_same_meta(&qm, &m, "after C3");
}

Test(obx_format, capture_written_with_suffix)
{
    position_t p;
    position_set_start(&p);
    move_t b2 = move_make(MOVE_PLACE, sq("B2"), sq("B2"));
    move_t a1c3 = move_make(MOVE_JUMP, sq("A1"), sq("C3"));
    position_make(&p, b2);
    cr_assert(move_is_pseudo_legal(&p, a1c3));
    position_make(&p, a1c3);
    obx_meta_t m = {a1c3, 2};
    expect_format(&p, &m, OBX_V2, "XXXXT/XXXXX/XXTXX/XXXXX/TXXXT g @19 c1 mA1C3(B2) #t1");
    expect_format(&p, &m, OBX_V1, "4T/5/2T2/5/T3T g g19 c1 mA1C3(B2) 2");

    position_t q;
    obx_meta_t qm;
    expect_position("XXXXT/XXXXX/XXTXX/XXXXX/TXXXT g @19 c1 mA1C3(B2) #t1", squares("E1 C3 A5 E5"), 0, GOATS, 19,
                    1, &q, &qm);
    assert_same_position(&q, &p, "after A1C3");
    assert_same_meta(&qm, &m, "after A1C3");
    /* The suffix may be left out on input. */
    expect_position("XXXXT/XXXXX/XXTXX/XXXXX/TXXXT g @19 c1 mA1C3 #t1", squares("E1 C3 A5 E5"), 0, GOATS, 19, 1,
                    NULL, &qm);
    cr_assert_eq(qm.last_move, a1c3);
}

Test(obx_format, step_last_move)
{
    position_t p;
    position_set_start(&p);
    position_make(&p, move_make(MOVE_PLACE, sq("C3"), sq("C3")));
    move_t e1d1 = move_make(MOVE_STEP, sq("E1"), sq("D1"));
    position_make(&p, e1d1);
    obx_meta_t m = {e1d1, 2};
    expect_format(&p, &m, OBX_V2, "TXXTX/XXXXX/XXGXX/XXXXX/TXXXT g @19 c0 mE1D1 #t1");
    expect_format(&p, &m, OBX_V1, "T2T1/5/2G2/5/T3T g g19 c0 mE1D1 2");
}

Test(obx_format, move_numbers_both_versions)
{
    position_t p;
    cr_assert_eq(obx_parse("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0", &p, NULL, NULL, 0), BC_OK);
    struct {
        int ply;
        const char *v2, *v1;
    } cases[] = {
        {-1, "-", "-"}, {0, "#", "0"}, {1, "#g1", "1"}, {2, "#t1", "2"}, {6, "#t3", "6"},
        {13, "#g7", "13"}, {40, "#t20", "40"}, {199, "#g100", "199"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        obx_meta_t m = {MOVE_NONE, cases[i].ply};
        char want[OBX_MAX_LEN];
        snprintf(want, sizeof want, "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 - %s", cases[i].v2);
        expect_format(&p, &m, OBX_V2, want);
        snprintf(want, sizeof want, "T3T/5/2G2/5/T3T t g19 c0 - %s", cases[i].v1);
        expect_format(&p, &m, OBX_V1, want);
    }
}

Test(obx_format, move_numbers_parse)
{
    struct {
        const char *field;
        int ply;
    } cases[] = {
        {"#g7", 13}, {"#t3", 6}, {"#G7", 13}, {"#T3", 6}, {"13", 13}, {"6", 6}, {"#", 0},
        {"0", 0}, {"-", -1}, {"#g1", 1}, {"#t1", 2}, {"1", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[OBX_MAX_LEN];
        snprintf(text, sizeof text, "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 %s", cases[i].field);
        obx_meta_t m;
        expect_position(text, squares("A1 E1 A5 E5"), squares("C3"), TIGERS, 19, 0, NULL, &m);
        cr_assert_eq(m.ply, cases[i].ply, "'%s': ply %d, want %d", cases[i].field, m.ply, cases[i].ply);
    }
    /* '-' as last move is no move. */
    obx_meta_t m;
    expect_position("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 - #g1", squares("A1 E1 A5 E5"), squares("C3"), TIGERS,
                    19, 0, NULL, &m);
    cr_assert_eq(m.last_move, MOVE_NONE);
    cr_assert_eq(m.ply, 1);
}

/* ------------------------------------------------------------------------------------ */
/* Rejections: one test per rule of RULES.md                                            */
/* ------------------------------------------------------------------------------------ */

Test(obx_reject, not_five_rows)
{
    expect_reject("TXXXT/XXXXX/XXXXX/TXXXT g @20 c0 - #", OBX_ERR_ROW_COUNT, "rows");
    expect_reject("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT/XXXXX g @20 c0 - #", OBX_ERR_ROW_COUNT, "rows");
    expect_reject("TXXXTXXXXXXXXXXXXXXXTXXXT g @20 c0", OBX_ERR_ROW_LENGTH, "points");
    expect_reject("T3T/5/5/T3T g g20 c0 - 0", OBX_ERR_ROW_COUNT, "rows");
}

Test(obx_reject, row_too_short)
{
    expect_reject("TXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #", OBX_ERR_ROW_LENGTH, "points");
    expect_reject("TXXXT/XXXXX/XXXX/XXXXX/TXXXT g @20 c0 - #", OBX_ERR_ROW_LENGTH, "points");
    expect_reject("TXXXT/XXXXX//XXXXX/TXXXT g @20 c0 - #", OBX_ERR_ROW_LENGTH, "points");
    expect_reject("T2T/5/5/5/T3T g g20 c0 - 0", OBX_ERR_ROW_LENGTH, "points");
    expect_reject("T3T/4/5/5/T3T g g20 c0 - 0", OBX_ERR_ROW_LENGTH, "points");
}

Test(obx_reject, row_too_long)
{
    expect_reject("TXXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #", OBX_ERR_ROW_LENGTH, "points");
    expect_reject("TXXXT/XXXXX/XXXXX/XXXXX/TXXXTX g @20 c0 - #", OBX_ERR_ROW_LENGTH, "points");
    expect_reject("TXXXT/XXXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #", OBX_ERR_ROW_LENGTH, "points");
}

Test(obx_reject, row_digit_overflow)
{
    expect_reject("T4T/5/5/5/T3T g g20 c0 - 0", OBX_ERR_ROW_LENGTH, "points");
    expect_reject("T3T/5/5/5/T3TX g g20 c0 - 0", OBX_ERR_ROW_LENGTH, "points");
    expect_reject("T3T/5X/5/5/T3T g g20 c0 - 0", OBX_ERR_ROW_LENGTH, "points");
    expect_reject("T3T/55/5/5/T3T g g20 c0 - 0", OBX_ERR_ROW_LENGTH, "points");
}

Test(obx_reject, bad_board_character)
{
    expect_reject("TXXXT/XXXXX/XXYXX/XXXXX/TXXXT g @20 c0 - #", OBX_ERR_BOARD_CHAR, "character");
    expect_reject("TXXXT/XXXXX/XX.XX/XXXXX/TXXXT g @20 c0 - #", OBX_ERR_BOARD_CHAR, "character");
    expect_reject("TXXXT/XXXXX/XXOXX/XXXXX/TXXXT g @20 c0 - #", OBX_ERR_BOARD_CHAR, "character");
    /* Only 1-5 stand for empty points. */
    expect_reject("T3T/5/5/5/T0T g g20 c0 - 0", OBX_ERR_BOARD_CHAR, "character");
    expect_reject("T3T/5/5/5/6 g g20 c0 - 0", OBX_ERR_BOARD_CHAR, "character");
    expect_reject("T3T/5/5/5/T3T\x01 g g20 c0 - 0", OBX_ERR_BOARD_CHAR, "character");
    expect_reject("T3T/5/5/5/T3T\xc3 g g20 c0 - 0", OBX_ERR_BOARD_CHAR, "character");
}

Test(obx_reject, three_tigers)
{
    expect_reject("TXXXX/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #", OBX_ERR_TIGER_COUNT, "tigers");
    expect_reject("T4/5/2G2/5/T3T t g19 c0 mC3 1", OBX_ERR_TIGER_COUNT, "tigers");
}

Test(obx_reject, five_tigers)
{
    expect_reject("TXTXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #", OBX_ERR_TIGER_COUNT, "tigers");
    expect_reject("T3T/5/2T2/5/T3T g g20 c0 - 0", OBX_ERR_TIGER_COUNT, "tigers");
}

Test(obx_reject, goat_total_not_twenty)
{
    /* 1 + 20 + 0 = 21 */
    expect_reject2("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT g @20 c0 - #", OBX_ERR_GOAT_TOTAL, "goats", "20");
    /* 0 + 19 + 0 = 19 */
    expect_reject2("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT t @19 c0 - #", OBX_ERR_GOAT_TOTAL, "goats", "20");
    /* 2 + 17 + 0 = 19 */
    expect_reject2("TGGXT/XXXXX/XXXXX/XXXXX/TXXXT g @17 c0", OBX_ERR_GOAT_TOTAL, "goats", "20");
    /* 0 + 15 + 4 = 19 */
    expect_reject2("T3T/5/5/5/T3T g g15 c4", OBX_ERR_GOAT_TOTAL, "goats", "20");
    /* 21 goats on the board, none in hand */
    expect_reject2("TGGGT/GGGGG/GGGGG/GGGGG/TGGGT g @0 c0", OBX_ERR_GOAT_TOTAL, "goats", "20");
}

Test(obx_reject, in_hand_out_of_range)
{
    expect_reject2("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @21 c0 - #", OBX_ERR_IN_HAND_RANGE, "in hand", "range");
    expect_reject2("T3T/5/5/5/T3T g g21 c0 - 0", OBX_ERR_IN_HAND_RANGE, "in hand", "range");
    expect_reject2("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @99 c0", OBX_ERR_IN_HAND_RANGE, "in hand", "range");
}

Test(obx_reject, captured_out_of_range)
{
    /* 14 on board + 0 in hand + 6 captured = 20: only the range is broken. */
    expect_reject2("TGGGT/GGGGG/GGGGG/GXXXX/TXXXT t @0 c6", OBX_ERR_CAPTURED_RANGE, "captured", "range");
    expect_reject2("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @14 c6 - #", OBX_ERR_CAPTURED_RANGE, "captured", "range");
    expect_reject2("T3T/5/5/5/T3T g g0 c20", OBX_ERR_CAPTURED_RANGE, "captured", "range");
}

Test(obx_reject, in_hand_syntax)
{
    const char *bad[] = {"20", "x20", "@", "g", "@2x", "@-1", "@+1", "#20", "c20", "@1.0", "@@20", "t20"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[OBX_MAX_LEN];
        snprintf(text, sizeof text, "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g %s c0 - #", bad[i]);
        expect_reject(text, OBX_ERR_IN_HAND_SYNTAX, "in hand");
    }
}

Test(obx_reject, captured_syntax)
{
    const char *bad[] = {"0", "c", "cx", "c-1", "@0", "g0", "x0", "c0x", "cc0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[OBX_MAX_LEN];
        snprintf(text, sizeof text, "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 %s - #", bad[i]);
        expect_reject(text, OBX_ERR_CAPTURED_SYNTAX, "captured");
    }
}

Test(obx_reject, turn_not_g_or_t)
{
    const char *bad[] = {"x", "w", "b", "gt", "goats", "1", "@"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[OBX_MAX_LEN];
        snprintf(text, sizeof text, "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT %s @19 c0 mC3 #g1", bad[i]);
        expect_reject(text, OBX_ERR_TURN, "turn");
    }
}

Test(obx_reject, tigers_to_move_with_twenty_in_hand)
{
    expect_reject2("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT t @20 c0 - #", OBX_ERR_TIGERS_FIRST, "tigers", "20");
    expect_reject2("T3T/5/5/5/T3T t g20 c0 - 0", OBX_ERR_TIGERS_FIRST, "tigers", "20");
    expect_reject2("t3t/5/5/5/t3t T G20 C0", OBX_ERR_TIGERS_FIRST, "tigers", "20");
}

Test(obx_reject, field_count)
{
    expect_reject("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT", OBX_ERR_FIELD_COUNT, "field");
    expect_reject("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g", OBX_ERR_FIELD_COUNT, "field");
    expect_reject("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20", OBX_ERR_FIELD_COUNT, "field");
    expect_reject("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - # x", OBX_ERR_FIELD_COUNT, "field");
    expect_reject("T3T/5/5/5/T3T g g20 c0 - 0 0 0 0", OBX_ERR_FIELD_COUNT, "field");
}

Test(obx_reject, empty_input)
{
    expect_reject("", OBX_ERR_EMPTY, "empty");
    expect_reject("   ", OBX_ERR_EMPTY, "empty");
    expect_reject("\t \t", OBX_ERR_EMPTY, "empty");
}

Test(obx_reject, last_move_syntax)
{
    const char *bad[] = {
        "x", "C3",         /* no 'm' */
        "m", "mZ9", "mC6", "mF1", "mA1B", "mA1B2C3", "mC3(B2)", "mA1C3(B2", "mA1C3(B2)x", "mm", "m-", "--",
        "mA1B3",           /* not on a line */
        "mB1A2",           /* B1 has no diagonal */
        "mA1E5",           /* a line, but four points apart */
        "mA1C3(B1)",       /* A1C3 jumps B2 */
        "mA1B2(B2)",       /* a step jumps nothing */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[OBX_MAX_LEN];
        snprintf(text, sizeof text, "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 %s #g1", bad[i]);
        expect_reject(text, OBX_ERR_LAST_MOVE, "last move");
        snprintf(text, sizeof text, "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 %s", bad[i]);
        expect_reject(text, OBX_ERR_LAST_MOVE, "last move");
    }
    /* The message also says what is wrong with the move. */
    expect_reject2("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mA1B3 #g1", OBX_ERR_LAST_MOVE, "last move", "line");
    expect_reject2("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mA1C3(B1) #g1", OBX_ERR_LAST_MOVE, "last move",
                   "B2");
}

Test(obx_reject, move_number_syntax)
{
    const char *bad[] = {"#x3", "#g0", "#t0", "abc", "#g", "#t", "##", "#3", "g7", "-1", "#g-1", "#g7x", "1.0",
                         "--", "#g1#"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[OBX_MAX_LEN];
        snprintf(text, sizeof text, "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 %s", bad[i]);
        expect_reject(text, OBX_ERR_MOVE_NUMBER, "move number");
    }
}

Test(obx_reject, caller_buffers_untouched_on_every_code)
{
    /* One input per OBX code in one place, so a new code cannot go untested for this. */
    struct {
        const char *text;
        bc_error_t code;
    } cases[] = {
        {"", OBX_ERR_EMPTY},
        {"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g", OBX_ERR_FIELD_COUNT},
        {"TXXXT/XXXXX/TXXXT g @20 c0", OBX_ERR_ROW_COUNT},
        {"TXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0", OBX_ERR_ROW_LENGTH},
        {"TXXXT/XXXXX/XXQXX/XXXXX/TXXXT g @20 c0", OBX_ERR_BOARD_CHAR},
        {"TXXXT/XXXXX/XXXXX/XXXXX/TXXXX g @20 c0", OBX_ERR_TIGER_COUNT},
        {"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT q @20 c0", OBX_ERR_TURN},
        {"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g 20 c0", OBX_ERR_IN_HAND_SYNTAX},
        {"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @21 c0", OBX_ERR_IN_HAND_RANGE},
        {"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 0", OBX_ERR_CAPTURED_SYNTAX},
        {"TGGGT/GGGGG/GGGGG/GXXXX/TXXXT t @0 c6", OBX_ERR_CAPTURED_RANGE},
        {"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @19 c0", OBX_ERR_GOAT_TOTAL},
        {"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT t @20 c0", OBX_ERR_TIGERS_FIRST},
        {"TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 C3", OBX_ERR_LAST_MOVE},
        {"TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #x1", OBX_ERR_MOVE_NUMBER},
    };
    bool seen[BC_ERROR_COUNT] = {false};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        expect_reject(cases[i].text, cases[i].code, "");
        seen[cases[i].code] = true;
    }
    for (int e = OBX_ERR_EMPTY; e <= OBX_ERR_MOVE_NUMBER; e++)
        cr_assert(seen[e], "no rejection case for %s", bc_error_name((bc_error_t)e));
}

/* ------------------------------------------------------------------------------------ */
/* Valid edge positions                                                                 */
/* ------------------------------------------------------------------------------------ */

Test(obx_valid, five_captured_is_valid_and_finished)
{
    position_t p;
    /* 0 + 15 + 5 = 20: five captured during placement. */
    expect_position("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @15 c5 - -", squares("A1 E1 A5 E5"), 0, GOATS, 15, 5, &p,
                    NULL);
    move_t list[MAX_MOVES];
    cr_assert_eq(gen_moves(&p, list), 0, "a finished game has no moves");
    /* 15 + 0 + 5 = 20 in the movement phase, either side to move. */
    bb_t goats = squares("B1 C1 D1 A2 B2 C2 D2 E2 A3 B3 D3 E3 A4 B4 C4");
    expect_position("TGGGT/GGGGG/GGXGG/GGGXX/TXXXT t @0 c5 mA1C3(B2) #t30", squares("A1 E1 A5 E5"), goats, TIGERS,
                    0, 5, &p, NULL);
    cr_assert_eq(gen_moves(&p, list), 0);
    expect_position("T1G1T/5/5/5/T3T g g14 c5", squares("A1 E1 A5 E5"), squares("C1"), GOATS, 14, 5, NULL, NULL);
}

Test(obx_valid, range_limits)
{
    /* 20 goats on the board, none in hand, none captured: one empty point. */
    bb_t all = BB_ALL & ~squares("A1 E1 A5 E5");
    position_t p;
    expect_position("TGGGT/GGGGG/GGXGG/GGGGG/TGGGT g @0 c0", squares("A1 E1 A5 E5"), all & ~squares("C3"), GOATS,
                    0, 0, &p, NULL);
    /* Leading zeros are still the number. */
    expect_position("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @019 c00", squares("A1 E1 A5 E5"), squares("C3"), TIGERS, 19, 0,
                    NULL, NULL);
}

/* ------------------------------------------------------------------------------------ */
/* The published seed documents, each example worked out by hand from RULES.md          */
/* ------------------------------------------------------------------------------------ */

static const bb_t CORNERS = (1u << 0) | (1u << 4) | (1u << 20) | (1u << 24);

/* OBX 2.0 document: start position. 4 tigers in the corners, 0 + 20 + 0 = 20, goats to move. */
Test(obx_seed, v2_start_accepted)
{
    obx_meta_t m;
    expect_position("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #", CORNERS, 0, GOATS, 20, 0, NULL, &m);
    cr_assert_eq(m.last_move, MOVE_NONE);
    cr_assert_eq(m.ply, 0);
}

/* OBX 2.0: goat on C3. 4 tigers, 1 + 19 + 0 = 20, tigers to move with 19 in hand: valid. */
Test(obx_seed, v2_goat_c3_accepted)
{
    const char *text = "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1";
    position_t p;
    obx_meta_t m;
    expect_position(text, CORNERS, squares("C3"), TIGERS, 19, 0, &p, &m);
    cr_assert_eq(m.last_move, move_make(MOVE_PLACE, sq("C3"), sq("C3")));
    cr_assert_eq(m.ply, 1);
    expect_format(&p, &m, OBX_V2, text);
}

/* OBX 2.0 "board state" example GGGGG/GTTTG/GXTXG/GXXXG/GGGGG: a board alone is one field,
 * not an OBX line. As a board it is sound: 4 tigers (B2 C2 D2 C3), 16 goats, so with 0 in
 * hand it needs 4 captured. */
Test(obx_seed, v2_board_state_example)
{
    expect_reject("GGGGG/GTTTG/GXTXG/GXXXG/GGGGG", OBX_ERR_FIELD_COUNT, "field");
    bb_t tigers = squares("B2 C2 D2 C3");
    bb_t goats = squares("A1 B1 C1 D1 E1 A2 E2 A3 E3 A4 E4 A5 B5 C5 D5 E5");
    expect_position("GGGGG/GTTTG/GXTXG/GXXXG/GGGGG g @0 c4", tigers, goats, GOATS, 0, 4, NULL, NULL);
    expect_reject2("GGGGG/GTTTG/GXTXG/GXXXG/GGGGG g @0 c0", OBX_ERR_GOAT_TOTAL, "goats", "20");
}

/* OBX 2.0 sequence step 2: goat on B2. 4 tigers, 1 + 19 = 20, tigers to move: valid. */
Test(obx_seed, v2_goat_b2_accepted)
{
    obx_meta_t m;
    expect_position("TXXXT/XGXXX/XXXXX/XXXXX/TXXXT t @19 c0 mB2 #g1", CORNERS, squares("B2"), TIGERS, 19, 0, NULL,
                    &m);
    cr_assert_eq(m.last_move, move_make(MOVE_PLACE, sq("B2"), sq("B2")));
    cr_assert_eq(m.ply, 1);
}

/* OBX 2.0 sequence step 3, "tiger A1 to B2": TXTXT/TXXXX/.../TXXXT has tigers on A1 C1 E1,
 * A2, A5 E5 = 6 tigers, and the goat vanished: 0 + 19 + 0 = 19. Two rules broken. */
Test(obx_seed, v2_six_tigers_after_a1b2_rejected)
{
    bc_error_t codes[] = {OBX_ERR_TIGER_COUNT, OBX_ERR_GOAT_TOTAL};
    const char *kws[] = {"tigers", "20"};
    expect_reject_any("TXTXT/TXXXX/XXXXX/XXXXX/TXXXT g @19 c0 mA1B2 #t1", codes, kws, 2);
    /* Each fault alone gives its own code. */
    expect_reject("TXTXT/TXXXX/XXXXX/XXXXX/TXXXT g @20 c0 mA1B2 #t1", OBX_ERR_TIGER_COUNT, "tigers");
    expect_reject2("XXXXT/XTXXX/XXXXX/XXXXX/TXXXT g @19 c0 mA1B2 #t1", OBX_ERR_GOAT_TOTAL, "goats", "20");
    /* For contrast, a real tiger step after goat B2 (E1D2, a diagonal: E1 has them). */
    expect_position("TXXXX/XGXTX/XXXXX/XXXXX/TXXXT g @19 c0 mE1D2 #t1", squares("A1 D2 A5 E5"), squares("B2"), GOATS,
                    19, 0, NULL, NULL);
}

/* OBX 2.0 sequence step 4: TXTXT/TGXXX/... again 6 tigers (A1 C1 E1 A2 A5 E5) and
 * 1 + 18 + 0 = 19 goats. */
Test(obx_seed, v2_six_tigers_after_c2_rejected)
{
    bc_error_t codes[] = {OBX_ERR_TIGER_COUNT, OBX_ERR_GOAT_TOTAL};
    const char *kws[] = {"tigers", "20"};
    expect_reject_any("TXTXT/TGXXX/XXXXX/XXXXX/TXXXT t @18 c0 mC2 #g2", codes, kws, 2);
}

/* OBX 2.0 API request: goat on B1. 4 tigers, 1 + 19 = 20, tigers to move: valid. */
Test(obx_seed, v2_api_request_accepted)
{
    obx_meta_t m;
    expect_position("TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t @19 c0 mB1 #g1", CORNERS, squares("B1"), TIGERS, 19, 0, NULL,
                    &m);
    cr_assert_eq(m.last_move, move_make(MOVE_PLACE, sq("B1"), sq("B1")));
    cr_assert_eq(m.ply, 1);
}

/* OBX 2.0 API response: XXTXT/.../TXXXX has tigers C1 E1 A5 = 3; goats 1 + 19 + 1 = 21;
 * and the last move mA1C3(B1) names B1 but A1C3 jumps B2. Three rules broken. */
Test(obx_seed, v2_api_response_rejected)
{
    bc_error_t codes[] = {OBX_ERR_TIGER_COUNT, OBX_ERR_GOAT_TOTAL, OBX_ERR_LAST_MOVE};
    const char *kws[] = {"tigers", "20", "last move"};
    expect_reject_any("XXTXT/XXXXX/XXGXX/XXXXX/TXXXX g @19 c1 mA1C3(B1) #t1", codes, kws, 3);
    /* The suffix alone is enough. */
    expect_reject2("XXXXT/XXXXX/XXTXX/XXXXX/TXXXT g @19 c1 mA1C3(B1) #t1", OBX_ERR_LAST_MOVE, "last move", "suffix");
    /* The move field of the response on its own. */
    move_t m = 0xBEEF;
    char msg[128] = "";
    cr_assert_eq(move_parse_text("mA1C3(B1)", &m, msg, sizeof msg), MOVE_ERR_SUFFIX);
    cr_assert_eq(m, 0xBEEF);
    /* The capture the document describes ("A1 to C3, remove the goat at B1") is not one; what
     * a tiger on A1 can capture on B1 is A1C1. */
    cr_assert_eq(move_parse_text("mA1C1(B1)", &m, msg, sizeof msg), BC_OK);
    cr_assert_eq(m, move_make(MOVE_JUMP, sq("A1"), sq("C1")));
}

/* OBX 2.0 notation list: mC1 placement, mA1B1 step, mA1C1(B1) capture; all correct. */
Test(obx_seed, v2_move_examples)
{
    move_t m;
    cr_assert_eq(move_parse_text("mC1", &m, NULL, 0), BC_OK);
    cr_assert_eq(m, move_make(MOVE_PLACE, sq("C1"), sq("C1")));
    cr_assert_eq(move_parse_text("mA1B1", &m, NULL, 0), BC_OK);
    cr_assert_eq(m, move_make(MOVE_STEP, sq("A1"), sq("B1")));
    cr_assert_eq(move_parse_text("mA1C1(B1)", &m, NULL, 0), BC_OK);
    cr_assert_eq(m, move_make(MOVE_JUMP, sq("A1"), sq("C1")));
    cr_assert_eq(move_over(m), sq("B1"));
}

/* OBX 1.0 document: start position T3T/5/5/5/T3T, same as the 2.0 start. */
Test(obx_seed, v1_start_accepted)
{
    const char *text = "T3T/5/5/5/T3T g g20 c0 - 0";
    position_t p;
    obx_meta_t m;
    expect_position(text, CORNERS, 0, GOATS, 20, 0, &p, &m);
    cr_assert_eq(m.last_move, MOVE_NONE);
    cr_assert_eq(m.ply, 0);
    expect_format(&p, &m, OBX_V1, text);
}

/* OBX 1.0: goat on C1 (T 1 G 1 T). 4 tigers, 1 + 19 = 20, tigers to move: valid. */
Test(obx_seed, v1_goat_c1_accepted)
{
    const char *text = "T1G1T/5/5/5/T3T t g19 c0 mC1 1";
    position_t p;
    obx_meta_t m;
    expect_position(text, CORNERS, squares("C1"), TIGERS, 19, 0, &p, &m);
    cr_assert_eq(m.last_move, move_make(MOVE_PLACE, sq("C1"), sq("C1")));
    cr_assert_eq(m.ply, 1);
    expect_format(&p, &m, OBX_V1, text);
    expect_format(&p, &m, OBX_V2, "TXGXT/XXXXX/XXXXX/XXXXX/TXXXT t @19 c0 mC1 #g1");
}

/* OBX 1.0: tiger E1 -> D1 (T 1 G T 1): tigers A1 D1 A5 E5 = 4, goat C1, 1 + 19 = 20, goats to
 * move. Valid; and it is exactly the position after C1 and E1D1. */
Test(obx_seed, v1_tiger_e1d1_accepted)
{
    const char *text = "T1GT1/5/5/5/T3T g g19 c0 mE1D1 2";
    position_t p;
    obx_meta_t m;
    expect_position(text, squares("A1 D1 A5 E5"), squares("C1"), GOATS, 19, 0, &p, &m);
    cr_assert_eq(m.last_move, move_make(MOVE_STEP, sq("E1"), sq("D1")));
    cr_assert_eq(m.ply, 2);
    expect_format(&p, &m, OBX_V1, text);
    position_t q;
    position_set_start(&q);
    position_make(&q, move_make(MOVE_PLACE, sq("C1"), sq("C1")));
    position_make(&q, move_make(MOVE_STEP, sq("E1"), sq("D1")));
    assert_same_position(&p, &q, text);
}

/* OBX 1.0: "goat places at B2" but the board TGGT1 has the new goat on B1 (A1 T, B1 G, C1 G,
 * D1 T, E1 empty). 4 tigers, 2 + 18 = 20, tigers to move: valid. The last move disagrees with
 * the board, which is informational and not checked: the position is the board, B1 and C1,
 * and the last move stays B2 as written. */
Test(obx_seed, v1_goat_b1_board_with_b2_move_accepted)
{
    const char *text = "TGGT1/5/5/5/T3T t g18 c0 mB2 3";
    position_t p;
    obx_meta_t m;
    expect_position(text, squares("A1 D1 A5 E5"), squares("B1 C1"), TIGERS, 18, 0, &p, &m);
    cr_assert_eq(m.last_move, move_make(MOVE_PLACE, sq("B2"), sq("B2")));
    cr_assert_eq(m.ply, 3);
    expect_format(&p, &m, OBX_V1, text);
}

/* OBX 1.0 sample code comment: GTGG1/TGGGG/GGGGG/T1T1G/GGGGG g g1 c1 mD4C4 -.
 * Tigers B1 A2 A4 C4 = 4; goats 3 + 4 + 5 + 1 + 5 = 18, + 1 in hand + 1 captured = 20;
 * D4C4 is a step (row 4). Valid, move number unknown. */
Test(obx_seed, v1_sample_code_position_accepted)
{
    const char *text = "GTGG1/TGGGG/GGGGG/T1T1G/GGGGG g g1 c1 mD4C4 -";
    bb_t tigers = squares("B1 A2 A4 C4");
    bb_t goats = squares("A1 C1 D1 B2 C2 D2 E2 A3 B3 C3 D3 E3 E4 A5 B5 C5 D5 E5");
    position_t p;
    obx_meta_t m;
    expect_position(text, tigers, goats, GOATS, 1, 1, &p, &m);
    cr_assert_eq(m.last_move, move_make(MOVE_STEP, sq("D4"), sq("C4")));
    cr_assert_eq(m.ply, -1);
    expect_format(&p, &m, OBX_V1, text);
}

/* OBX 1.0 notes: lastMove "mC2E2" is a capture along row 2 over D2; "g20", "g0", "c5" are
 * field examples that parse as in-hand and captured counts. */
Test(obx_seed, v1_note_examples)
{
    move_t m;
    cr_assert_eq(move_parse_text("mC2E2", &m, NULL, 0), BC_OK);
    cr_assert_eq(m, move_make(MOVE_JUMP, sq("C2"), sq("E2")));
    cr_assert_eq(move_over(m), sq("D2"));
    /* g0 with c5: 15 goats on the board. */
    expect_position("TGGGT/GGGGG/GGXGG/GGGXX/TXXXT t g0 c5", CORNERS,
                    squares("B1 C1 D1 A2 B2 C2 D2 E2 A3 B3 D3 E3 A4 B4 C4"), TIGERS, 0, 5, NULL, NULL);
}

/* ------------------------------------------------------------------------------------ */
/* Move text                                                                            */
/* ------------------------------------------------------------------------------------ */

static move_t parse_text_ok(const char *text)
{
    move_t m = 0xBEEF;
    char msg[128] = "";
    bc_error_t e = move_parse_text(text, &m, msg, sizeof msg);
    cr_assert_eq(e, BC_OK, "'%s' rejected with %s: %s", text, bc_error_name(e), msg);
    return m;
}

static void expect_text_error(const char *text, bc_error_t code)
{
    move_t m = 0xBEEF;
    char msg[128];
    memset(msg, 0, sizeof msg);
    bc_error_t e = move_parse_text(text, &m, msg, sizeof msg);
    cr_assert_eq(e, code, "'%s': got %s (%s), want %s", text, bc_error_name(e), msg, bc_error_name(code));
    cr_assert(msg[0] != '\0', "'%s': empty message", text);
    cr_assert_eq(m, 0xBEEF, "'%s': output written on error", text);
    cr_assert_eq(move_parse_text(text, &m, NULL, 0), code);
    cr_assert_eq(m, 0xBEEF);
}

Test(move_text, placements)
{
    move_t c3 = move_make(MOVE_PLACE, sq("C3"), sq("C3"));
    const char *forms[] = {"c3", "C3", "mC3", "mc3", "MC3", "nC3", "nc3", "NC3"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        cr_assert_eq(parse_text_ok(forms[i]), c3, "'%s'", forms[i]);
    for (int s = 0; s < SQUARE_NB; s++) {
        char name[3], lo[3];
        square_name(s, name);
        lo[0] = (char)tolower((unsigned char)name[0]);
        lo[1] = name[1];
        lo[2] = '\0';
        move_t m = parse_text_ok(name);
        cr_assert_eq(move_kind(m), MOVE_PLACE);
        cr_assert_eq(move_from(m), s);
        cr_assert_eq(move_to(m), s);
        cr_assert_eq(parse_text_ok(lo), m);
    }
}

Test(move_text, steps)
{
    move_t a1b2 = move_make(MOVE_STEP, sq("A1"), sq("B2"));
    const char *forms[] = {"a1b2", "A1B2", "mA1B2", "ma1b2", "nA1B2", "A1b2", "a1B2"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        cr_assert_eq(parse_text_ok(forms[i]), a1b2, "'%s'", forms[i]);
    cr_assert_eq(parse_text_ok("B2A1"), move_make(MOVE_STEP, sq("B2"), sq("A1")));
    cr_assert_eq(parse_text_ok("B2A3"), move_make(MOVE_STEP, sq("B2"), sq("A3")));
    cr_assert_eq(parse_text_ok("B1A1"), move_make(MOVE_STEP, sq("B1"), sq("A1")));
}

Test(move_text, captures_with_and_without_suffix)
{
    move_t a1c3 = move_make(MOVE_JUMP, sq("A1"), sq("C3"));
    const char *forms[] = {"mA1C3(B2)", "a1c3", "A1C3", "mA1C3", "ma1c3(b2)", "A1C3(B2)", "nA1C3(b2)"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        cr_assert_eq(parse_text_ok(forms[i]), a1c3, "'%s'", forms[i]);
    cr_assert_eq(parse_text_ok("C3A1"), move_make(MOVE_JUMP, sq("C3"), sq("A1")));
    cr_assert_eq(parse_text_ok("A3A5(A4)"), move_make(MOVE_JUMP, sq("A3"), sq("A5")));
    cr_assert_eq(parse_text_ok("E3C5(D4)"), move_make(MOVE_JUMP, sq("E3"), sq("C5")));
}

Test(move_text, wrong_suffix)
{
    expect_text_error("mA1C3(B1)", MOVE_ERR_SUFFIX);
    expect_text_error("A1C3(C3)", MOVE_ERR_SUFFIX);
    expect_text_error("A1C3(A1)", MOVE_ERR_SUFFIX);
    expect_text_error("C1E3(D1)", MOVE_ERR_SUFFIX);
    /* A step jumps nothing. */
    expect_text_error("A1B2(B2)", MOVE_ERR_SUFFIX);
    expect_text_error("mA1B1(A1)", MOVE_ERR_SUFFIX);
    char msg[128] = "";
    move_t m;
    move_parse_text("mA1C3(B1)", &m, msg, sizeof msg);
    cr_assert(contains_ci(msg, "B1") && contains_ci(msg, "B2"), "message '%s' should name B1 and B2", msg);
}

Test(move_text, not_a_line)
{
    /* Diagonals only through points with even column + row: B1, A2, D1, E2, B3, C2 have none. */
    const char *bad[] = {"A1B3", "B1A2", "B1C2", "A2B1", "C2D3", "C2B1", "D1E2", "A2B3", "B1D3",
                         "C2E4", "A2C4", "A1E5", "A1A4", "A1D1", "A1C2", "E5A1", "C3C3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_text_error(bad[i], MOVE_ERR_NOT_A_LINE);
    char msg[128] = "";
    move_t m;
    move_parse_text("mA1B3", &m, msg, sizeof msg);
    cr_assert(contains_ci(msg, "line"), "message '%s' should say it is not a line", msg);
}

Test(move_text, syntax_errors)
{
    const char *bad[] = {"", "x", "m", "n", "A", "A6", "A0", "F1", "Z9", "11", "AA", "A1B", "A1B6", "A1B2C3",
                         "A1C3(B2", "A1C3(B2)x", "A1C3()", "A1C3(B)", "A1C3[B2]", "C3(B2)", "mm", "mmC3",
                         "-", "(none)", "xC3", "C3x", "A1-B2", "3C"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_text_error(bad[i], MOVE_ERR_SYNTAX);
}

/* Every ordered pair of points against the geometry written independently from RULES.md:
 * 112 steps, 80 jumps, everything else not a line. */
static bool has_diagonals(int s) { return (s % 5 + s / 5) % 2 == 0; }

Test(move_text, geometry_of_all_pairs)
{
    int steps = 0, jumps = 0;
    for (int a = 0; a < SQUARE_NB; a++)
        for (int b = 0; b < SQUARE_NB; b++) {
            int dc = b % 5 - a % 5, dr = b / 5 - a / 5;
            int adc = dc < 0 ? -dc : dc, adr = dr < 0 ? -dr : dr;
            bool ortho = (dc == 0) != (dr == 0);
            bool diag = adc == adr && adc > 0;
            bool line = ortho || (diag && has_diagonals(a));
            bool step = line && (adc <= 1 && adr <= 1);
            bool jump = line && (adc == 0 || adc == 2) && (adr == 0 || adr == 2);
            char text[8], a_name[3], b_name[3];
            square_name(a, a_name);
            square_name(b, b_name);
            snprintf(text, sizeof text, "%s%s", a_name, b_name);
            move_t m = 0xBEEF;
            bc_error_t e = move_parse_text(text, &m, NULL, 0);
            if (step) {
                steps++;
                cr_assert_eq(e, BC_OK, "%s should be a step", text);
                cr_assert_eq(m, move_make(MOVE_STEP, a, b), "%s", text);
            } else if (jump) {
                jumps++;
                cr_assert_eq(e, BC_OK, "%s should be a capture", text);
                cr_assert_eq(m, move_make(MOVE_JUMP, a, b), "%s", text);
                int over = (a + b) / 2;
                char withsuffix[16], o[3];
                square_name(over, o);
                snprintf(withsuffix, sizeof withsuffix, "m%s(%s)", text, o);
                cr_assert_eq(parse_text_ok(withsuffix), m, "%s", withsuffix);
                /* Any other point as suffix is wrong. */
                for (int w = 0; w < SQUARE_NB; w++) {
                    if (w == over)
                        continue;
                    char wrong[16], wn[3];
                    square_name(w, wn);
                    snprintf(wrong, sizeof wrong, "%s(%s)", text, wn);
                    move_t k = 0xBEEF;
                    cr_assert_eq(move_parse_text(wrong, &k, NULL, 0), MOVE_ERR_SUFFIX, "%s", wrong);
                    cr_assert_eq(k, 0xBEEF);
                }
            } else {
                cr_assert_eq(e, MOVE_ERR_NOT_A_LINE, "%s: got %s, not a line", text, bc_error_name(e));
                cr_assert_eq(m, 0xBEEF);
            }
        }
    cr_assert_eq(steps, 112);
    cr_assert_eq(jumps, 80);
}

Test(move_text, format)
{
    char buf[MOVE_TEXT_LEN];
    move_format(move_make(MOVE_PLACE, sq("C3"), sq("C3")), buf);
    cr_assert_str_eq(buf, "C3");
    move_format(move_make(MOVE_STEP, sq("A1"), sq("B2")), buf);
    cr_assert_str_eq(buf, "A1B2");
    move_format(move_make(MOVE_JUMP, sq("A1"), sq("C3")), buf);
    cr_assert_str_eq(buf, "A1C3");
    move_format(move_make(MOVE_JUMP, sq("E5"), sq("C5")), buf);
    cr_assert_str_eq(buf, "E5C5");
    move_format(MOVE_NONE, buf);
    cr_assert_str_eq(buf, "(none)");

    move_format_obx(move_make(MOVE_PLACE, sq("C3"), sq("C3")), buf);
    cr_assert_str_eq(buf, "mC3");
    move_format_obx(move_make(MOVE_STEP, sq("A1"), sq("B2")), buf);
    cr_assert_str_eq(buf, "mA1B2");
    move_format_obx(move_make(MOVE_JUMP, sq("A1"), sq("C3")), buf);
    cr_assert_str_eq(buf, "mA1C3(B2)");
    move_format_obx(move_make(MOVE_JUMP, sq("E5"), sq("C5")), buf);
    cr_assert_str_eq(buf, "mE5C5(D5)");
    move_format_obx(MOVE_NONE, buf);
    cr_assert_str_eq(buf, "-");
}

/* Every move of the board: formatting is upper case without prefix or suffix, and both
 * written forms parse back to the move. */
Test(move_text, format_parse_roundtrip_all_moves)
{
    int count = 0;
    for (int a = 0; a < SQUARE_NB; a++) {
        move_t ms[1 + 8 + 8];
        int n = 0;
        ms[n++] = move_make(MOVE_PLACE, a, a);
        for (bb_t b = BC_STEPS[a]; b; b &= b - 1)
            ms[n++] = move_make(MOVE_STEP, a, bb_first(b));
        for (int k = 0; k < BC_JUMP_COUNT[a]; k++)
            ms[n++] = move_make(MOVE_JUMP, a, BC_JUMPS[a][k].to);
        for (int i = 0; i < n; i++) {
            char t[MOVE_TEXT_LEN], o[MOVE_TEXT_LEN];
            move_format(ms[i], t);
            move_format_obx(ms[i], o);
            size_t len = strlen(t);
            cr_assert(len == (move_kind(ms[i]) == MOVE_PLACE ? 2u : 4u), "'%s'", t);
            for (size_t c = 0; c < len; c++)
                cr_assert(isupper((unsigned char)t[c]) || isdigit((unsigned char)t[c]), "'%s'", t);
            cr_assert_eq(o[0], 'm');
            cr_assert(strncmp(o + 1, t, len) == 0, "'%s' vs '%s'", o, t);
            cr_assert_eq(parse_text_ok(t), ms[i], "'%s'", t);
            cr_assert_eq(parse_text_ok(o), ms[i], "'%s'", o);
            count++;
        }
    }
    cr_assert_eq(count, 25 + 112 + 80);
}

/* ------------------------------------------------------------------------------------ */
/* Move text against a position                                                         */
/* ------------------------------------------------------------------------------------ */

static position_t obx(const char *text)
{
    position_t p;
    char msg[128] = "";
    bc_error_t e = obx_parse(text, &p, NULL, msg, sizeof msg);
    cr_assert_eq(e, BC_OK, "'%s': %s", text, msg);
    return p;
}

static void expect_parse_error(const position_t *p, const char *text, bc_error_t code, const char *kw)
{
    move_t m = 0xBEEF;
    char msg[128];
    memset(msg, 0, sizeof msg);
    bc_error_t e = move_parse(p, text, &m, msg, sizeof msg);
    cr_assert_eq(e, code, "'%s': got %s (%s), want %s", text, bc_error_name(e), msg, bc_error_name(code));
    cr_assert(msg[0] != '\0');
    if (kw)
        cr_assert(contains_ci(msg, kw), "'%s': message '%s' does not mention '%s'", text, msg, kw);
    cr_assert_eq(m, 0xBEEF, "'%s': output written on error", text);
}

static move_t parse_move_ok(const position_t *p, const char *text)
{
    move_t m = 0xBEEF;
    char msg[128] = "";
    bc_error_t e = move_parse(p, text, &m, msg, sizeof msg);
    cr_assert_eq(e, BC_OK, "'%s' rejected with %s: %s", text, bc_error_name(e), msg);
    return m;
}

Test(move_parse, placement_phase)
{
    position_t p;
    position_set_start(&p);
    cr_assert_eq(parse_move_ok(&p, "c3"), move_make(MOVE_PLACE, sq("C3"), sq("C3")));
    cr_assert_eq(parse_move_ok(&p, "mB2"), move_make(MOVE_PLACE, sq("B2"), sq("B2")));
    /* Goats to move: no tiger move. */
    expect_parse_error(&p, "A1B2", MOVE_ERR_ILLEGAL, "goats");
    expect_parse_error(&p, "A1B1", MOVE_ERR_ILLEGAL, NULL);
    /* Occupied point. */
    expect_parse_error(&p, "A1", MOVE_ERR_ILLEGAL, NULL);
    /* Text errors pass through. */
    expect_parse_error(&p, "zz", MOVE_ERR_SYNTAX, NULL);
    expect_parse_error(&p, "A1B3", MOVE_ERR_NOT_A_LINE, NULL);
    expect_parse_error(&p, "A1C3(B1)", MOVE_ERR_SUFFIX, NULL);

    /* Tigers to move during placement: no placement; captures allowed. */
    position_t t = obx("TXXXT/XGXXX/XXXXX/XXXXX/TXXXT t @19 c0 mB2 #g1");
    expect_parse_error(&t, "C3", MOVE_ERR_ILLEGAL, "tigers");
    cr_assert_eq(parse_move_ok(&t, "mA1C3(B2)"), move_make(MOVE_JUMP, sq("A1"), sq("C3")));
    cr_assert_eq(parse_move_ok(&t, "a1c3"), move_make(MOVE_JUMP, sq("A1"), sq("C3")));
    cr_assert_eq(parse_move_ok(&t, "E1D1"), move_make(MOVE_STEP, sq("E1"), sq("D1")));
    /* No goat to jump on B1. */
    expect_parse_error(&t, "A1C1", MOVE_ERR_ILLEGAL, NULL);
    /* Goat steps before all goats are placed. */
    position_t g = obx("TXXXT/XGXXX/XXXXX/XXXXX/XXXTT g @19 c0");
    expect_parse_error(&g, "B2C3", MOVE_ERR_ILLEGAL, NULL);
}

Test(move_parse, movement_phase)
{
    /* 20 goats placed, C3 empty, goats to move. */
    position_t p = obx("TGGGT/GGGGG/GGXGG/GGGGG/TGGGT g @0 c0");
    expect_parse_error(&p, "C3", MOVE_ERR_ILLEGAL, NULL);
    cr_assert_eq(parse_move_ok(&p, "C2C3"), move_make(MOVE_STEP, sq("C2"), sq("C3")));
    cr_assert_eq(parse_move_ok(&p, "mB2C3"), move_make(MOVE_STEP, sq("B2"), sq("C3")));
    /* B3 to C3 is orthogonal; D2 to C3 diagonal; A3 to C3 is not a step. */
    cr_assert_eq(parse_move_ok(&p, "B3C3"), move_make(MOVE_STEP, sq("B3"), sq("C3")));
    cr_assert_eq(parse_move_ok(&p, "D2C3"), move_make(MOVE_STEP, sq("D2"), sq("C3")));
    expect_parse_error(&p, "A3C3", MOVE_ERR_ILLEGAL, NULL);
    /* A tiger move when goats are to move. */
    position_t q = obx("TGGGT/GGGGG/GGGGG/GGGGG/TXGGT g @0 c0");
    expect_parse_error(&q, "A5B5", MOVE_ERR_ILLEGAL, NULL);
    cr_assert_eq(parse_move_ok(&q, "C5B5"), move_make(MOVE_STEP, sq("C5"), sq("B5")));
}

Test(move_parse, game_over)
{
    position_t p = obx("TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @15 c5");
    expect_parse_error(&p, "C3", MOVE_ERR_GAME_OVER, "over");
    expect_parse_error(&p, "mC3", MOVE_ERR_GAME_OVER, NULL);
    position_t t = obx("TGGGT/GGGGG/GGXGG/GGGXX/TXXXT t @0 c5");
    expect_parse_error(&t, "A5B5", MOVE_ERR_GAME_OVER, NULL);
    expect_parse_error(&t, "C1C3", MOVE_ERR_GAME_OVER, NULL);
    expect_parse_error(&t, "A5A4", MOVE_ERR_GAME_OVER, NULL);
}

/* On random positions, move_parse accepts exactly the moves gen_moves lists. */
Test(move_parse, agrees_with_gen_moves)
{
    size_t n = load_samples();
    int checked = 0;
    for (size_t i = 0; i < n; i += 7) {
        const position_t *p = &g_samples[i].pos;
        move_t list[MAX_MOVES];
        int k = gen_moves(p, list);
        for (int a = 0; a < SQUARE_NB; a++)
            for (int b = 0; b < SQUARE_NB; b++) {
                char text[8], an[3], bn[3];
                square_name(a, an);
                square_name(b, bn);
                if (a == b)
                    snprintf(text, sizeof text, "%s", an);
                else
                    snprintf(text, sizeof text, "%s%s", an, bn);
                move_t geo;
                if (move_parse_text(text, &geo, NULL, 0) != BC_OK)
                    continue;
                bool listed = false;
                for (int j = 0; j < k; j++)
                    listed |= list[j] == geo;
                move_t m = 0xBEEF;
                bc_error_t e = move_parse(p, text, &m, NULL, 0);
                if (listed) {
                    cr_assert_eq(e, BC_OK, "%s listed but rejected (%s)", text, bc_error_name(e));
                    cr_assert_eq(m, geo);
                } else {
                    bc_error_t want = p->captured >= BC_CAPTURES_TO_WIN ? MOVE_ERR_GAME_OVER : MOVE_ERR_ILLEGAL;
                    cr_assert_eq(e, want, "%s: got %s, want %s", text, bc_error_name(e), bc_error_name(want));
                    cr_assert_eq(m, 0xBEEF);
                }
                checked++;
            }
    }
    cr_assert_geq(checked, 10000);
}

/* ------------------------------------------------------------------------------------ */
/* Error names                                                                          */
/* ------------------------------------------------------------------------------------ */

Test(error_name, distinct_and_non_empty)
{
    for (int a = 0; a < BC_ERROR_COUNT; a++) {
        const char *na = bc_error_name((bc_error_t)a);
        cr_assert(na != NULL && na[0] != '\0', "code %d has no name", a);
        for (int b = 0; b < a; b++)
            cr_assert_str_neq(na, bc_error_name((bc_error_t)b), "codes %d and %d share the name '%s'", a, b, na);
    }
    cr_assert_str_eq(bc_error_name(OBX_ERR_TIGER_COUNT), "tiger-count");
    const char *out = bc_error_name(BC_ERROR_COUNT);
    cr_assert(out != NULL && out[0] != '\0');
    out = bc_error_name((bc_error_t)-1);
    cr_assert(out != NULL && out[0] != '\0');
}
