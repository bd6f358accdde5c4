/* libFuzzer harness for the notation: OBX parse/format round trips and move text.
 * Any broken property calls abort(), which libFuzzer reports as a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baghchal.h"

enum { MAX_INPUT = 1024 };

static void check(int ok, const char *what, const char *input)
{
    if (!ok) {
        fprintf(stderr, "fuzz_obx: %s\ninput: '%s'\n", what, input);
        abort();
    }
}

static int same_position(const position_t *a, const position_t *b)
{
    return a->tigers == b->tigers && a->goats == b->goats && a->side == b->side && a->in_hand == b->in_hand &&
           a->captured == b->captured && a->key == b->key;
}

/* A parsed position must print in both versions and read back to itself. */
static void check_obx_round_trip(const position_t *pos, const obx_meta_t *meta, const char *input)
{
    check(position_is_ok(pos), "obx_parse accepted a position that breaks the invariants", input);
    for (int version = OBX_V1; version <= OBX_V2; version++) {
        char buf[OBX_MAX_LEN], again[OBX_MAX_LEN], msg[256];
        size_t n = obx_format(pos, meta, version, buf, sizeof buf);
        check(n > 0 && n < sizeof buf && strlen(buf) == n, "obx_format length", input);
        position_t back;
        obx_meta_t mback;
        check(obx_parse(buf, &back, &mback, msg, sizeof msg) == BC_OK, "formatted OBX does not parse", buf);
        check(same_position(pos, &back), "formatted OBX parses to another position", buf);
        check(mback.last_move == meta->last_move && mback.ply == meta->ply, "formatted OBX changes the meta", buf);
        obx_format(&back, &mback, version, again, sizeof again);
        check(strcmp(buf, again) == 0, "formatting is not stable", buf);
    }
}

static void check_obx(const char *text)
{
    /* Sentinels: on error the outputs must stay untouched. */
    position_t pos, untouched;
    memset(&pos, 0xA5, sizeof pos);
    untouched = pos;
    obx_meta_t meta = {0x5A5A, -7};
    char msg[256] = "";
    bc_error_t e = obx_parse(text, &pos, &meta, msg, sizeof msg);
    if (e != BC_OK) {
        check(e > BC_OK && e < BC_ERROR_COUNT, "error code out of range", text);
        check(msg[0] != '\0' && memchr(msg, '\0', sizeof msg) != NULL, "error without a message", text);
        check(memcmp(&pos, &untouched, sizeof pos) == 0, "position changed on error", text);
        check(meta.last_move == 0x5A5A && meta.ply == -7, "meta changed on error", text);
        check(obx_parse(text, &pos, NULL, NULL, 0) == e, "another error without meta and message", text);
        return;
    }
    check_obx_round_trip(&pos, &meta, text);
    position_t again;
    check(obx_parse(text, &again, NULL, NULL, 0) == BC_OK && same_position(&pos, &again),
          "parsing without meta gives another result", text);
}

/* Parsed move text must print and read back to the same move. */
static void check_move_text(const char *text)
{
    move_t m = 0x7FFF;
    char msg[256] = "";
    bc_error_t e = move_parse_text(text, &m, msg, sizeof msg);
    if (e != BC_OK) {
        check(e > BC_OK && e < BC_ERROR_COUNT && msg[0] != '\0', "move error without a message", text);
        return;
    }
    move_kind_t kind = move_kind(m);
    check(kind != MOVE_KIND_NONE && move_from(m) < SQUARE_NB && move_to(m) < SQUARE_NB, "bad move", text);
    check((kind == MOVE_PLACE) == (move_from(m) == move_to(m)), "placement kind mismatch", text);
    char buf[MOVE_TEXT_LEN], obx[MOVE_TEXT_LEN];
    move_t back;
    move_format(m, buf);
    check(move_parse_text(buf, &back, NULL, 0) == BC_OK && back == m, "move_format does not read back", buf);
    move_format_obx(m, obx);
    check(move_parse_text(obx, &back, NULL, 0) == BC_OK && back == m, "move_format_obx does not read back", obx);

    /* Against a position: the start, where it must agree with the move list. */
    position_t p;
    position_set_start(&p);
    e = move_parse(&p, text, &back, NULL, 0);
    check((e == BC_OK) == move_is_pseudo_legal(&p, m), "move_parse disagrees with move_is_pseudo_legal", text);
    check(e != BC_OK || back == m, "move_parse reads another move", text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    char text[MAX_INPUT + 1];
    memcpy(text, data, size);
    text[size] = '\0';
    check_obx(text);
    check_move_text(text);
    /* Each word alone as move text too, the way the protocol hands moves over. */
    char *save = NULL;
    for (char *w = strtok_r(text, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save))
        check_move_text(w);
    return 0;
}
