/* Opening files and generated openings. */
#include "openings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "util.h"

enum { GENERATE_ATTEMPTS = 1000 };

static bool finish(opening_t *o, const char *what, char *msg, size_t msglen)
{
    game_t g;
    if (!game_init(&g, &o->pos, &o->meta, REP_FORBID)) {
        snprintf(msg, msglen, "out of memory");
        return false;
    }
    game_result_t r = game_result(&g);
    game_free(&g);
    if (r.reason != RESULT_NONE) {
        snprintf(msg, msglen, "%s is a finished position (%s)", what, result_describe(r));
        return false;
    }
    obx_format(&o->pos, &o->meta, OBX_V2, o->obx, sizeof o->obx);
    return true;
}

bool opening_parse(const char *text, opening_t *out, char *msg, size_t msglen)
{
    char line[512];
    size_t n = strcspn(text, ";\r\n");
    if (n >= sizeof line) {
        snprintf(msg, msglen, "line too long");
        return false;
    }
    memcpy(line, text, n);
    line[n] = '\0';
    opening_t o;
    memset(&o, 0, sizeof o);
    char why[256];
    if (obx_parse(line, &o.pos, &o.meta, why, sizeof why) != BC_OK) {
        snprintf(msg, msglen, "invalid OBX: %s", why);
        return false;
    }
    if (!finish(&o, "the opening", msg, msglen))
        return false;
    *out = o;
    return true;
}

static bool is_blank_or_comment(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == '\0' || *s == '\n' || *s == '\r' || *s == ';' || *s == '#';
}

/* The next line of f into *line (without its end), whichever end it has: LF, CRLF or CR
 * alone. 1: a line, 0: the end of the file, -1: a NUL byte in the line (a text file holds
 * none), -2: out of memory. */
static int read_line(FILE *f, sbuf_t *line)
{
    line->len = 0;
    if (line->s)
        line->s[0] = '\0';
    int c = getc(f);
    if (c == EOF)
        return 0;
    for (; c != EOF && c != '\n'; c = getc(f)) {
        if (c == '\r') {
            int next = getc(f);
            if (next != '\n' && next != EOF)
                ungetc(next, f);
            break;
        }
        if (c == '\0')
            return -1;
        char ch = (char)c;
        sb_addn(line, &ch, 1);
    }
    sb_addn(line, "", 0);
    return line->failed ? -2 : 1;
}

static bool load_file(openings_t *o, const char *path, char *msg, size_t msglen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(msg, msglen, "cannot open %s: %s", path, strerror(errno));
        return false;
    }
    sbuf_t line = {0};
    size_t lineno = 0, room = 0;
    bool ok = true;
    int got;
    while (ok && (got = read_line(f, &line)) != 0) {
        lineno++;
        if (got == -1) {
            snprintf(msg, msglen, "%s:%zu: a NUL byte: an openings file is text", path, lineno);
            ok = false;
            break;
        }
        if (got == -2) {
            snprintf(msg, msglen, "out of memory");
            ok = false;
            break;
        }
        /* A UTF-8 byte order mark at the start of the file is no part of the text. */
        const char *text = line.s;
        if (lineno == 1 && strncmp(text, "\xEF\xBB\xBF", 3) == 0)
            text += 3;
        if (is_blank_or_comment(text))
            continue;
        if (o->count == room) {
            room = room ? room * 2 : 64;
            opening_t *l = realloc(o->list, room * sizeof *l);
            if (!l) {
                snprintf(msg, msglen, "out of memory");
                ok = false;
                break;
            }
            o->list = l;
        }
        char why[300];
        if (!opening_parse(text, &o->list[o->count], why, sizeof why)) {
            snprintf(msg, msglen, "%s:%zu: %s", path, lineno, why);
            ok = false;
            break;
        }
        o->count++;
    }
    if (ok && ferror(f)) {
        snprintf(msg, msglen, "cannot read %s: %s", path, strerror(errno));
        ok = false;
    }
    sb_free(&line);
    fclose(f);
    if (ok && o->count == 0) {
        snprintf(msg, msglen, "%s holds no openings", path);
        ok = false;
    }
    return ok;
}

bool openings_load(openings_t *o, const config_t *cfg, char *msg, size_t msglen)
{
    memset(o, 0, sizeof *o);
    o->seed = cfg->seed;
    o->rule = cfg->rule;
    o->random_plies = cfg->random_plies;
    o->startpos_every = cfg->startpos_every;
    if (cfg->openings_file) {
        if (!load_file(o, cfg->openings_file, msg, msglen)) {
            openings_free(o);
            return false;
        }
        if (!(o->order = malloc(o->count * sizeof *o->order))) {
            snprintf(msg, msglen, "out of memory");
            openings_free(o);
            return false;
        }
        for (size_t i = 0; i < o->count; i++)
            o->order[i] = i;
        if (cfg->openings_shuffle) {
            uint64_t st = cfg->seed ^ 0x6F70656E696E6773ull;
            for (size_t i = o->count; i > 1; i--) {
                size_t j = rng_below(&st, (uint32_t)i);
                size_t t = o->order[i - 1];
                o->order[i - 1] = o->order[j];
                o->order[j] = t;
            }
        }
        o->start = (size_t)(cfg->openings_start % (int64_t)o->count);
        return true;
    }
    /* Generation must work for the first round, or it is hopeless for this many plies. */
    opening_t probe;
    if (!openings_get(o, o->startpos_every == 1 ? 0 : 1, &probe)) {
        snprintf(msg, msglen, "no game survives %d random plies often enough; use fewer", o->random_plies);
        return false;
    }
    return true;
}

static bool generate(const openings_t *o, int64_t round, opening_t *out)
{
    int plies = o->startpos_every > 0 && round % o->startpos_every == 0 ? 0 : o->random_plies;
    uint64_t st = o->seed ^ ((uint64_t)(round + 1) * 0xD1B54A32D192ED03ull);
    rng_next(&st);
    position_t start;
    position_set_start(&start);
    for (int attempt = 0; attempt < GENERATE_ATTEMPTS; attempt++) {
        game_t g;
        if (!game_init(&g, &start, NULL, o->rule))
            return false;
        bool alive = true;
        for (int ply = 0; ply < plies && alive; ply++) {
            move_t list[MAX_MOVES];
            int n = game_legal_moves(&g, list);
            alive = n > 0 && game_play(&g, list[rng_below(&st, (uint32_t)n)], NULL, 0) == BC_OK;
        }
        if (alive && game_result(&g).reason == RESULT_NONE) {
            memset(out, 0, sizeof *out);
            out->pos = *game_position(&g);
            out->meta = game_meta(&g);
            obx_format(&out->pos, &out->meta, OBX_V2, out->obx, sizeof out->obx);
            game_free(&g);
            return true;
        }
        game_free(&g);
    }
    return false;
}

bool openings_get(const openings_t *o, int64_t round, opening_t *out)
{
    if (o->count > 0) {
        *out = o->list[o->order[(o->start + (size_t)round) % o->count]];
        return true;
    }
    return generate(o, round, out);
}

void openings_free(openings_t *o)
{
    free(o->list);
    free(o->order);
    memset(o, 0, sizeof *o);
}
