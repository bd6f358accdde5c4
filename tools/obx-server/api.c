/* The OBX API: request fields in, JSON answers out, the rules and the search from
 * libbaghchal. Every cJSON call that allocates is checked; a failed one makes the whole
 * answer NULL. */
#include "api.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cJSON.h"
#include "message.h"

void api_error_set(api_error_t *err, unsigned status, const char *error, const char *code, const char *fmt, ...)
{
    err->status = status;
    err->error = error;
    snprintf(err->code, sizeof err->code, "%s", code);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->detail, sizeof err->detail, fmt, ap);
    va_end(ap);
}

static void no_memory(api_error_t *err) { api_error_set(err, 500, "Internal error.", "no-memory", "out of memory"); }

/* ---- request fields ------------------------------------------------------------ */

void api_params_free(api_params_t *p)
{
    free(p->obx);
    free(p->move);
    for (int i = 0; i < p->moves_nb; i++)
        free(p->moves[i]);
    free(p->moves);
    memset(p, 0, sizeof *p);
}

static char *dup_text(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* The name and range of each numeric field. */
typedef struct {
    const char *name;
    int64_t lo, hi;
} num_field_t;

static const num_field_t F_MOVETIME = {"movetime", 1, INT64_C(1) << 40};
static const num_field_t F_DEPTH = {"depth", 1, API_MAX_DEPTH};
static const num_field_t F_MULTIPV = {"multipv", 1, MAX_MULTIPV};
static const num_field_t F_SKILL = {"skill", 0, SKILL_MAX};
static const num_field_t F_ELO = {"elo", SKILL_MIN_ELO, SKILL_MAX_ELO};
static const num_field_t F_GTIME = {"gtime", 0, INT64_C(1) << 40};
static const num_field_t F_TTIME = {"ttime", 0, INT64_C(1) << 40};
static const num_field_t F_GINC = {"ginc", 0, INT64_C(1) << 40};
static const num_field_t F_TINC = {"tinc", 0, INT64_C(1) << 40};

/* The numeric fields, in the order set_numbers reads them. */
enum { NUM_FIELDS = 9 };
static const num_field_t *const NUMBERS[NUM_FIELDS] = {&F_MOVETIME, &F_DEPTH, &F_MULTIPV, &F_SKILL, &F_ELO,
                                                       &F_GTIME,    &F_TTIME, &F_GINC,    &F_TINC};

static bool bad_number(const num_field_t *f, api_error_t *err)
{
    api_error_set(err, 400, API_ERR_PARAM, "bad-parameter", "%s must be an integer from %lld to %lld", f->name,
                  (long long)f->lo, (long long)f->hi);
    return false;
}

static bool number_from_text(const num_field_t *f, const char *s, int64_t *out, api_error_t *err)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < f->lo || v > f->hi)
        return bad_number(f, err);
    *out = v;
    return true;
}

static bool number_from_json(const num_field_t *f, const cJSON *item, int64_t *out, api_error_t *err)
{
    if (cJSON_IsString(item))
        return number_from_text(f, item->valuestring, out, err);
    if (!cJSON_IsNumber(item))
        return bad_number(f, err);
    double d = item->valuedouble;
    if (!isfinite(d) || d != floor(d) || d < (double)f->lo || d > (double)f->hi)
        return bad_number(f, err);
    *out = (int64_t)d;
    return true;
}

static bool add_move_text(api_params_t *p, const char *s, size_t n, api_error_t *err)
{
    if (p->moves_nb == p->moves_cap) {
        int cap = p->moves_cap ? 2 * p->moves_cap : 64;
        char **grown = realloc(p->moves, (size_t)cap * sizeof *grown);
        if (!grown) {
            no_memory(err);
            return false;
        }
        p->moves = grown;
        p->moves_cap = cap;
    }
    char *m = dup_text(s, n);
    if (!m) {
        no_memory(err);
        return false;
    }
    p->moves[p->moves_nb++] = m;
    return true;
}

static void set_numbers(api_params_t *p, const int64_t v[NUM_FIELDS], const bool have[NUM_FIELDS])
{
    p->skill = have[3] ? (int)v[3] : SKILL_MAX;
    p->elo = have[4] ? (int)v[4] : 0;
    if (have[0])
        p->movetime = v[0];
    if (have[1])
        p->depth = (int)v[1];
    if (have[2])
        p->multipv = (int)v[2];
    p->time[GOATS] = have[5] ? v[5] : -1;
    p->time[TIGERS] = have[6] ? v[6] : -1;
    p->inc[GOATS] = have[7] ? v[7] : 0;
    p->inc[TIGERS] = have[8] ? v[8] : 0;
}

/* "repetition": the rule the request's game is played under. */
static bool rule_from_text(const char *s, rep_rule_t *out, api_error_t *err)
{
    if (strcmp(s, "forbid") == 0)
        *out = REP_FORBID;
    else if (strcmp(s, "draw") == 0)
        *out = REP_DRAW;
    else {
        api_error_set(err, 400, API_ERR_PARAM, "bad-parameter", "repetition must be \"forbid\" or \"draw\"");
        return false;
    }
    return true;
}

static bool params_from_object(const cJSON *root, api_params_t *p, api_error_t *err)
{
    const cJSON *obx = cJSON_GetObjectItemCaseSensitive(root, "obx");
    if (obx && !cJSON_IsNull(obx)) {
        if (!cJSON_IsString(obx)) {
            api_error_set(err, 400, API_ERR_OBX, "bad-obx-field", "obx must be a string");
            return false;
        }
        if (!(p->obx = dup_text(obx->valuestring, strlen(obx->valuestring)))) {
            no_memory(err);
            return false;
        }
    }
    const cJSON *move = cJSON_GetObjectItemCaseSensitive(root, "move");
    if (move && !cJSON_IsNull(move)) {
        if (!cJSON_IsString(move)) {
            api_error_set(err, 400, API_ERR_PARAM, "bad-parameter", "move must be a string");
            return false;
        }
        if (!(p->move = dup_text(move->valuestring, strlen(move->valuestring)))) {
            no_memory(err);
            return false;
        }
    }
    const cJSON *moves = cJSON_GetObjectItemCaseSensitive(root, "moves");
    if (moves && !cJSON_IsNull(moves)) {
        if (!cJSON_IsArray(moves)) {
            api_error_set(err, 400, API_ERR_PARAM, "bad-parameter", "moves must be an array of strings");
            return false;
        }
        const cJSON *m;
        cJSON_ArrayForEach(m, moves)
        {
            if (!cJSON_IsString(m)) {
                api_error_set(err, 400, API_ERR_PARAM, "bad-parameter", "moves must be an array of strings");
                return false;
            }
            if (!add_move_text(p, m->valuestring, strlen(m->valuestring), err))
                return false;
        }
    }
    const cJSON *rule = cJSON_GetObjectItemCaseSensitive(root, "repetition");
    if (rule && !cJSON_IsNull(rule)) {
        if (!cJSON_IsString(rule)) {
            api_error_set(err, 400, API_ERR_PARAM, "bad-parameter", "repetition must be \"forbid\" or \"draw\"");
            return false;
        }
        if (!rule_from_text(rule->valuestring, &p->rule, err))
            return false;
    }
    int64_t v[NUM_FIELDS] = {0};
    bool have[NUM_FIELDS] = {false};
    for (int i = 0; i < NUM_FIELDS; i++) {
        const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, NUMBERS[i]->name);
        if (!item || cJSON_IsNull(item))
            continue;
        if (!number_from_json(NUMBERS[i], item, &v[i], err))
            return false;
        have[i] = true;
    }
    set_numbers(p, v, have);
    return true;
}

/* A NUL inside a string would cut it short without a word: refuse it, raw or as \u0000. */
static bool has_nul(const char *text, size_t len, size_t *at)
{
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\0') {
            *at = i;
            return true;
        }
        if (text[i] == '\\' && i + 1 < len) {
            if (text[i + 1] == 'u' && i + 5 < len && strncmp(text + i + 2, "0000", 4) == 0) {
                *at = i;
                return true;
            }
            i++; /* the escaped character, so \\u0000 stays text */
        }
    }
    return false;
}

bool api_params_from_json(const char *text, size_t len, api_params_t *out, api_error_t *err)
{
    memset(out, 0, sizeof *out);
    size_t nul;
    if (has_nul(text, len, &nul)) {
        api_error_set(err, 400, API_ERR_OBX, "bad-json", "the body holds a NUL character at byte %zu", nul);
        return false;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!root) {
        size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
        api_error_set(err, 400, API_ERR_OBX, "bad-json", "malformed JSON near byte %zu of the body", at);
        return false;
    }
    /* Only white space may follow the value. */
    for (const char *s = end; s && s < text + len; s++) {
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') {
            cJSON_Delete(root);
            api_error_set(err, 400, API_ERR_OBX, "bad-json", "malformed JSON: text after the value at byte %zu",
                          (size_t)(s - text));
            return false;
        }
    }
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        api_error_set(err, 400, API_ERR_OBX, "bad-json", "the body must be a JSON object such as {\"obx\": \"...\"}");
        return false;
    }
    bool ok = params_from_object(root, out, err);
    cJSON_Delete(root);
    if (!ok)
        api_params_free(out);
    return ok;
}

bool api_params_from_query(api_lookup_fn lookup, void *ctx, api_params_t *out, api_error_t *err)
{
    memset(out, 0, sizeof *out);
    enum { TEXT_FIELDS = 4, KEYS_NB = TEXT_FIELDS + NUM_FIELDS };
    static const char *const KEYS[KEYS_NB] = {"obx",   "move", "moves", "repetition", "movetime", "depth", "multipv",
                                              "skill", "elo",  "gtime", "ttime",      "ginc",     "tinc"};
    const char *values[KEYS_NB];
    for (int i = 0; i < KEYS_NB; i++) {
        size_t len = 0;
        values[i] = lookup(ctx, KEYS[i], &len);
        if (values[i] && strlen(values[i]) != len) {
            api_error_set(err, 400, i == 0 ? API_ERR_OBX : API_ERR_PARAM, i == 0 ? "bad-obx-field" : "bad-parameter",
                          "%s holds a NUL character", KEYS[i]);
            return false;
        }
    }
    const char *obx = values[0];
    const char *move = values[1];
    const char *moves = values[2];
    if ((obx && !(out->obx = dup_text(obx, strlen(obx)))) || (move && !(out->move = dup_text(move, strlen(move))))) {
        no_memory(err);
        api_params_free(out);
        return false;
    }
    if (moves) {
        const char *s = moves;
        while (*s) {
            size_t skip = strspn(s, ", \t");
            s += skip;
            size_t n = strcspn(s, ", \t");
            if (n && !add_move_text(out, s, n, err)) {
                api_params_free(out);
                return false;
            }
            s += n;
        }
    }
    if (values[3] && !rule_from_text(values[3], &out->rule, err)) {
        api_params_free(out);
        return false;
    }
    int64_t v[NUM_FIELDS] = {0};
    bool have[NUM_FIELDS] = {false};
    for (int i = 0; i < NUM_FIELDS; i++) {
        const char *text = values[TEXT_FIELDS + i];
        if (!text)
            continue;
        if (!number_from_text(NUMBERS[i], text, &v[i], err)) {
            api_params_free(out);
            return false;
        }
        have[i] = true;
    }
    set_numbers(out, v, have);
    return true;
}

/* ---- the game of a request ------------------------------------------------------ */

static bool play(game_t *g, const char *text, const char *label, api_error_t *err)
{
    char msg[200];
    bc_error_t e = game_play_text(g, text, msg, sizeof msg);
    if (e == BC_OK)
        return true;
    if (e == BC_ERR_NO_MEMORY)
        no_memory(err);
    else
        api_error_set(err, 422, API_ERR_MOVE, bc_error_name(e), "%s: %s", label, msg);
    return false;
}

bool api_build_game(const api_params_t *p, game_t *g, api_error_t *err)
{
    memset(g, 0, sizeof *g);
    if (!p->obx) {
        api_error_set(err, 400, API_ERR_OBX, "missing-obx",
                      "no obx given: send ?obx=... or a JSON body {\"obx\": \"...\"}");
        return false;
    }
    position_t pos;
    obx_meta_t meta;
    char msg[200];
    bc_error_t e = obx_parse(p->obx, &pos, &meta, msg, sizeof msg);
    if (e != BC_OK) {
        api_error_set(err, 400, API_ERR_OBX, bc_error_name(e), "%s", msg);
        return false;
    }
    if (!game_init(g, &pos, &meta, p->rule)) {
        no_memory(err);
        return false;
    }
    char label[48];
    for (int i = 0; i < p->moves_nb; i++) {
        snprintf(label, sizeof label, "moves[%d]", i);
        if (!play(g, p->moves[i], label, err)) {
            game_free(g);
            return false;
        }
    }
    if (p->move && !play(g, p->move, "move", err)) {
        game_free(g);
        return false;
    }
    return true;
}

void api_limits(const api_params_t *p, const api_config_t *cfg, const game_t *g, search_limits_t *out)
{
    search_limits_init(out);
    const position_t *pos = game_position(g);
    int side = pos->side;
    int64_t clock = p->time[side] >= 0 ? p->time[side] : p->time[!side];
    if (!p->movetime && clock >= 0) {
        /* The engine's own time management on the clocks, as `go gtime ttime ginc tinc`.
         * The cap still holds: clocks that would allow a longer think than max_movetime_ms
         * are scaled down together until the longest think is the cap. */
        int64_t inc = p->time[side] >= 0 ? p->inc[side] : p->inc[!side];
        tm_budget_t b = tm_init(clock, inc, 0, ENGINE_DEFAULT_OVERHEAD_MS, pos->in_hand);
        double k = b.maximum_ms > cfg->max_movetime_ms ? (double)cfg->max_movetime_ms / (double)b.maximum_ms : 1.0;
        for (int s = 0; s < SIDE_NB; s++) {
            out->time[s] = p->time[s] >= 0 ? (int64_t)((double)p->time[s] * k) : -1;
            out->inc[s] = (int64_t)((double)p->inc[s] * k);
        }
        out->depth = p->depth;
        out->movetime = 0;
        return;
    }
    int64_t t = p->movetime ? p->movetime : cfg->default_movetime_ms;
    if (p->depth) {
        out->depth = p->depth;
        /* A depth alone may take any time: the cap still holds. */
        t = p->movetime ? p->movetime : cfg->max_movetime_ms;
    }
    out->movetime = t < 1 ? 1 : t > cfg->max_movetime_ms ? cfg->max_movetime_ms : t;
}

/* ---- JSON builders --------------------------------------------------------------- */

/* Builders set *ok to false on the first failed allocation and keep going harmlessly. */
static cJSON *add(cJSON *obj, const char *key, cJSON *item, bool *ok)
{
    if (!item || !cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        *ok = false;
        return NULL;
    }
    return item;
}

static void push(cJSON *arr, cJSON *item, bool *ok)
{
    if (!item || !cJSON_AddItemToArray(arr, item)) {
        cJSON_Delete(item);
        *ok = false;
    }
}

/* Every JSON text the server writes is valid UTF-8, however the request's bytes (%XX in the
 * path or a query, a raw byte in a body) were echoed into a string: each byte that is not part
 * of a valid sequence becomes the escape \ufffd (the replacement character). Outside its
 * strings a JSON text is ASCII, so no parsing is needed. Takes text over; NULL when memory
 * runs out. */
char *api_json_utf8(char *text)
{
    if (!text)
        return NULL;
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text), bad = 0;
    for (size_t i = 0, k; i < n; i += k ? k : 1)
        bad += (k = bc_utf8_decode(s + i, n - i, NULL)) == 0;
    if (!bad)
        return text;
    char *out = malloc(n + 5 * bad + 1), *o = out;
    if (out) {
        for (size_t i = 0, k; i < n; i += k ? k : 1) {
            if ((k = bc_utf8_decode(s + i, n - i, NULL)) == 0) {
                memcpy(o, "\\ufffd", 6);
                o += 6;
            } else {
                memcpy(o, s + i, k);
                o += k;
            }
        }
        *o = '\0';
    }
    free(text);
    return out;
}

static char *finish(cJSON *root, bool ok)
{
    char *text = ok && root ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return api_json_utf8(text);
}

static cJSON *str_or_null(const char *s) { return s ? cJSON_CreateString(s) : cJSON_CreateNull(); }

char *api_error_json(const api_error_t *err)
{
    bool ok = true;
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    add(root, "error", cJSON_CreateString(err->error ? err->error : "Error."), &ok);
    add(root, "detail", cJSON_CreateString(err->detail), &ok);
    if (err->code[0])
        add(root, "code", cJSON_CreateString(err->code), &ok);
    return finish(root, ok);
}

static const char *side_name(int side) { return side == GOATS ? "goats" : "tigers"; }

static const char *reason_name(result_reason_t r)
{
    switch (r) {
    case RESULT_FIVE_CAPTURED:
        return "five-captured";
    case RESULT_TIGERS_TRAPPED:
        return "tigers-trapped";
    case RESULT_GOATS_STUCK:
        return "goats-stuck";
    case RESULT_REPETITION_BLOCKED:
        return "repetition-blocked";
    case RESULT_REPETITION_DRAW:
        return "repetition-draw";
    default:
        return "none";
    }
}

/* null while the game goes on, else {"winner", "reason", "description"}. */
static cJSON *result_json(const game_t *g, bool *ok)
{
    game_result_t r = game_result(g);
    if (r.reason == RESULT_NONE)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    add(o, "winner", r.winner < 0 ? cJSON_CreateNull() : cJSON_CreateString(side_name(r.winner)), ok);
    add(o, "reason", cJSON_CreateString(reason_name(r.reason)), ok);
    add(o, "description", cJSON_CreateString(result_describe(r)), ok);
    return o;
}

static cJSON *obx_json(const game_t *g)
{
    char buf[OBX_MAX_LEN];
    obx_meta_t meta = game_meta(g);
    obx_format(game_position(g), &meta, OBX_V2, buf, sizeof buf);
    return cJSON_CreateString(buf);
}

static cJSON *move_json(move_t m)
{
    char buf[MOVE_TEXT_LEN];
    move_format_obx(m, buf);
    return cJSON_CreateString(buf);
}

char *api_over_json(const char *input, const game_t *g)
{
    bool ok = true;
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    add(root, "input", str_or_null(input), &ok);
    add(root, "obx", obx_json(g), &ok);
    add(root, "move", cJSON_CreateNull(), &ok);
    add(root, "score", cJSON_CreateNull(), &ok);
    add(root, "depth", cJSON_CreateNumber(0), &ok);
    add(root, "pv", cJSON_CreateArray(), &ok);
    add(root, "result", result_json(g, &ok), &ok);
    return finish(root, ok);
}

static cJSON *square_json(int sq)
{
    char name[3];
    square_name(sq, name);
    return cJSON_CreateString(name);
}

static const char *kind_name(move_kind_t k)
{
    return k == MOVE_PLACE ? "place" : k == MOVE_STEP ? "step" : k == MOVE_JUMP ? "capture" : "none";
}

char *api_legal_json(const game_t *g)
{
    bool ok = true;
    const position_t *p = game_position(g);
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    add(root, "obx", obx_json(g), &ok);
    add(root, "turn", cJSON_CreateString(side_name(p->side)), &ok);
    add(root, "in_hand", cJSON_CreateNumber(p->in_hand), &ok);
    add(root, "captured", cJSON_CreateNumber(p->captured), &ok);
    move_t list[MAX_MOVES];
    int n = game_legal_moves(g, list);
    cJSON *arr = add(root, "legal", cJSON_CreateArray(), &ok);
    for (int i = 0; arr && i < n; i++) {
        move_t m = list[i];
        char text[MOVE_TEXT_LEN];
        move_format(m, text);
        cJSON *o = cJSON_CreateObject();
        if (!o) {
            ok = false;
            break;
        }
        add(o, "move", move_json(m), &ok);
        add(o, "text", cJSON_CreateString(text), &ok);
        add(o, "kind", cJSON_CreateString(kind_name(move_kind(m))), &ok);
        add(o, "from", move_kind(m) == MOVE_PLACE ? cJSON_CreateNull() : square_json(move_from(m)), &ok);
        add(o, "to", square_json(move_to(m)), &ok);
        add(o, "over", move_kind(m) == MOVE_JUMP ? square_json(move_over(m)) : cJSON_CreateNull(), &ok);
        push(arr, o, &ok);
    }
    add(root, "result", result_json(g, &ok), &ok);
    return finish(root, ok);
}

/* ---- search ------------------------------------------------------------------------ */

typedef struct {
    search_info_t *lines; /* latest info of each MultiPV line */
    bool *have;
    int multipv;
    move_t best;
    search_info_t final;
    bool reported;
} collect_t;

static void on_info(void *ctx, const search_info_t *info)
{
    collect_t *c = ctx;
    if (info->multipv >= 1 && info->multipv <= c->multipv) {
        c->lines[info->multipv - 1] = *info;
        c->have[info->multipv - 1] = true;
    }
}

static void on_bestmove(void *ctx, move_t best, move_t ponder, const search_info_t *final)
{
    (void)ponder;
    collect_t *c = ctx;
    c->best = best;
    c->final = *final;
    c->reported = true;
}

static cJSON *score_json(int score)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = true;
    if (score_is_mate(score)) {
        add(o, "mate", cJSON_CreateNumber(score_mate_moves(score)), &ok);
    } else {
        add(o, "cp", cJSON_CreateNumber(score), &ok);
        /* A placement-phase database value has no distance: its cp (20000 less the plies to
         * the position the database answered) only orders it; wdl says what it is. */
        if (score >= SCORE_TB_WIN_IN_MAX || score <= -SCORE_TB_WIN_IN_MAX)
            add(o, "wdl", cJSON_CreateString(score > 0 ? "win" : "loss"), &ok);
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *pv_json(const search_info_t *info, move_t first)
{
    cJSON *arr = cJSON_CreateArray();
    if (!arr)
        return NULL;
    bool ok = true;
    if (info->pv_len == 0 && first != MOVE_NONE)
        push(arr, move_json(first), &ok);
    for (int i = 0; i < info->pv_len && i < MAX_PLY; i++)
        push(arr, move_json(info->pv[i]), &ok);
    if (!ok) {
        cJSON_Delete(arr);
        return NULL;
    }
    return arr;
}

static char *search_answer(const char *input, const game_t *g, const collect_t *c, api_error_t *err)
{
    game_t after;
    if (!game_init(&after, &g->history[0], &g->start_meta, g->rule)) {
        no_memory(err);
        return NULL;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < g->count; i++)
        ok = game_play(&after, g->moves[i], NULL, 0) == BC_OK;
    if (ok && game_play(&after, c->best, NULL, 0) != BC_OK) {
        game_free(&after);
        api_error_set(err, 500, "Internal error.", "engine", "the engine's move is not legal here");
        return NULL;
    }
    cJSON *root = ok ? cJSON_CreateObject() : NULL;
    if (!root) {
        game_free(&after);
        no_memory(err);
        return NULL;
    }
    add(root, "input", str_or_null(input), &ok);
    add(root, "position", obx_json(g), &ok);
    add(root, "obx", obx_json(&after), &ok);
    add(root, "move", move_json(c->best), &ok);
    add(root, "score", score_json(c->final.score), &ok);
    add(root, "depth", cJSON_CreateNumber(c->final.depth), &ok);
    add(root, "seldepth", cJSON_CreateNumber(c->final.seldepth), &ok);
    add(root, "nodes", cJSON_CreateNumber((double)c->final.nodes), &ok);
    add(root, "time_ms", cJSON_CreateNumber((double)c->final.time_ms), &ok);
    add(root, "tbhits", cJSON_CreateNumber((double)c->final.tbhits), &ok);
    add(root, "pv", pv_json(&c->final, c->best), &ok);
    if (c->multipv > 1) {
        cJSON *lines = add(root, "lines", cJSON_CreateArray(), &ok);
        for (int i = 0; lines && i < c->multipv; i++) {
            if (!c->have[i])
                continue;
            cJSON *o = cJSON_CreateObject();
            if (!o) {
                ok = false;
                break;
            }
            add(o, "multipv", cJSON_CreateNumber(i + 1), &ok);
            add(o, "depth", cJSON_CreateNumber(c->lines[i].depth), &ok);
            add(o, "score", score_json(c->lines[i].score), &ok);
            add(o, "pv", pv_json(&c->lines[i], MOVE_NONE), &ok);
            push(lines, o, &ok);
        }
    }
    add(root, "result", result_json(&after, &ok), &ok);
    game_free(&after);
    char *text = finish(root, ok);
    if (!text)
        no_memory(err);
    return text;
}

char *api_search_json(engine_t *e, const char *input, const game_t *g, const search_limits_t *limits,
                      int multipv, int skill, int elo, api_error_t *err)
{
    if (multipv < 1)
        multipv = 1;
    collect_t c = {0};
    c.multipv = multipv;
    c.lines = calloc((size_t)multipv, sizeof *c.lines);
    c.have = calloc((size_t)multipv, sizeof *c.have);
    if (!c.lines || !c.have) {
        free(c.lines);
        free(c.have);
        no_memory(err);
        return NULL;
    }
    char *text = NULL;
    engine_set_multipv(e, multipv);
    if (elo)
        engine_set_skill(e, SKILL_MAX, true, elo);
    else
        engine_set_skill(e, skill, false, SKILL_MAX_ELO);
    engine_clear(e);
    if (!engine_set_game(e, g)) {
        no_memory(err);
    } else {
        search_report_t report = {on_info, on_bestmove, &c};
        engine_search_sync(e, limits, &report);
        if (!c.reported || c.best == MOVE_NONE)
            api_error_set(err, 500, "Internal error.", "engine", "the engine returned no move");
        else
            text = search_answer(input, g, &c, err);
    }
    free(c.lines);
    free(c.have);
    return text;
}

/* ---- analysis: a value for every legal move --------------------------------------------- */

int api_db_move_values(const tb_t *tb, const game_t *g, const move_t *moves, int n, tb_move_value_t *out)
{
    if (!tb)
        return -1;
    return tb_rank_moves(tb, game_position(g), moves, n, out) < 0 ? -1 : n;
}

/* The database's values are under the `draw` rule (forbid goes through settled_entry). */
static const char *wdl_name(int wdl) { return wdl > 0 ? "win" : wdl < 0 ? "loss" : "draw"; }

/* One entry of "moves": the move as /legal writes it, then its value. */
static cJSON *move_entry(move_t m, bool *ok)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) {
        *ok = false;
        return NULL;
    }
    char text[MOVE_TEXT_LEN];
    move_format(m, text);
    add(o, "move", move_json(m), ok);
    add(o, "text", cJSON_CreateString(text), ok);
    add(o, "kind", cJSON_CreateString(kind_name(move_kind(m))), ok);
    add(o, "from", move_kind(m) == MOVE_PLACE ? cJSON_CreateNull() : square_json(move_from(m)), ok);
    add(o, "to", square_json(move_to(m)), ok);
    add(o, "over", move_kind(m) == MOVE_JUMP ? square_json(move_over(m)) : cJSON_CreateNull(), ok);
    return o;
}

/* The moves in the order shown: db (best first) or the search lines (best first, then any
 * move no line reached, without a value). */
/* The value of a settled move (forbid.h) for the side that makes it. */
static void settled_entry(cJSON *o, const fb_settled_t *v, bool *ok)
{
    const char *wdl = v->result == FB_LOSS ? "win" : v->result == FB_WIN ? "loss" : "open";
    add(o, "wdl", cJSON_CreateString(wdl), ok);
    add(o, "distance",
        v->result != FB_OPEN && v->distance != TB_DISTANCE_UNKNOWN ? cJSON_CreateNumber(v->distance + 1)
                                                                   : cJSON_CreateNull(),
        ok);
    add(o, "score", cJSON_CreateNull(), ok);
    if (v->proved)
        add(o, "proven", cJSON_CreateTrue(), ok);
}

static char *analysis_answer(const char *input, const game_t *g, const tb_move_value_t *db, const fb_settled_t *fb,
                             const collect_t *c, const move_t *moves, int n)
{
    move_t order[MAX_MOVES];
    const search_info_t *info[MAX_MOVES] = {NULL};
    bool used[MAX_MOVES] = {false};
    int k = 0;
    for (int i = 0; db && i < n; i++)
        order[k++] = db[i].move;
    for (int i = 0; fb && i < n; i++)
        order[k++] = moves[i]; /* already best first */
    for (int i = 0; c && i < c->multipv; i++) {
        if (!c->have[i] || c->lines[i].pv_len == 0)
            continue;
        for (int j = 0; j < n; j++)
            if (!used[j] && moves[j] == c->lines[i].pv[0]) {
                used[j] = true;
                /* Best first by score: the lines of one iteration come in the order they were
                 * searched, and a later one can score higher than an earlier one (each line
                 * is searched over the moves the earlier lines left, with its own window, and
                 * the earlier search saw this move only through a null window). Insertion
                 * keeps the engine's order among equal scores. */
                int at = k++;
                for (; at > 0 && info[at - 1] && info[at - 1]->score < c->lines[i].score; at--) {
                    info[at] = info[at - 1];
                    order[at] = order[at - 1];
                }
                info[at] = &c->lines[i];
                order[at] = moves[j];
                break;
            }
    }
    for (int j = 0; c && j < n; j++)
        if (!used[j])
            order[k++] = moves[j];
    bool ok = true;
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    add(root, "input", str_or_null(input), &ok);
    add(root, "position", obx_json(g), &ok);
    add(root, "turn", cJSON_CreateString(side_name(game_position(g)->side)), &ok);
    add(root, "source", cJSON_CreateString(db || fb ? "database" : c ? "search" : "none"), &ok);
    add(root, "depth", c ? cJSON_CreateNumber(c->final.depth) : cJSON_CreateNull(), &ok);
    cJSON *arr = add(root, "moves", cJSON_CreateArray(), &ok);
    for (int i = 0; arr && i < k; i++) {
        cJSON *o = move_entry(order[i], &ok);
        if (!o)
            break;
        const search_info_t *line = info[i];
        if (fb) {
            settled_entry(o, &fb[i], &ok);
        } else if (db) {
            add(o, "wdl", cJSON_CreateString(wdl_name(db[i].value.wdl)), &ok);
            /* A draw has no end to count to, and placement-phase values carry no distance. */
            add(o, "distance",
                db[i].value.wdl == TB_DRAW || db[i].value.distance == TB_DISTANCE_UNKNOWN
                    ? cJSON_CreateNull()
                    : cJSON_CreateNumber(db[i].value.distance),
                &ok);
            add(o, "score", cJSON_CreateNull(), &ok);
        } else if (line && score_is_mate(line->score)) {
            int plies = SCORE_MATE - (line->score > 0 ? line->score : -line->score);
            add(o, "wdl", cJSON_CreateString(line->score > 0 ? "win" : "loss"), &ok);
            add(o, "distance", cJSON_CreateNumber(plies), &ok);
            add(o, "score", score_json(line->score), &ok);
        } else {
            add(o, "wdl", cJSON_CreateNull(), &ok);
            add(o, "distance", cJSON_CreateNull(), &ok);
            add(o, "score", line ? score_json(line->score) : cJSON_CreateNull(), &ok);
        }
        push(arr, o, &ok);
    }
    add(root, "result", result_json(g, &ok), &ok);
    return finish(root, ok);
}

char *api_analysis_json(engine_t *e, const char *input, const game_t *g, const search_limits_t *limits,
                        api_error_t *err)
{
    move_t moves[MAX_MOVES];
    int n = game_legal_moves(g, moves);
    tb_move_value_t db[MAX_MOVES];
    char *text = NULL;
    /* Under forbid the database's values are worth what the game's history leaves of them,
     * and its draws are open unless the prover settles them (forbid.h). */
    fb_settled_t fb[MAX_MOVES];
    if (n > 0 && g->rule == REP_FORBID && api_db_move_values(engine_tablebase(e), g, moves, n, db) == n) {
        if (!engine_settle_moves(e, g, moves, n, FB_SETTLE_NODES, fb)) {
            no_memory(err);
            return NULL;
        }
        text = analysis_answer(input, g, NULL, fb, NULL, moves, n);
        if (!text)
            no_memory(err);
        return text;
    }
    if (n == 0 || api_db_move_values(engine_tablebase(e), g, moves, n, db) == n) {
        text = analysis_answer(input, g, n ? db : NULL, NULL, NULL, moves, n);
        if (!text)
            no_memory(err);
        return text;
    }
    int lines = n < MAX_MULTIPV ? n : MAX_MULTIPV;
    collect_t c = {0};
    c.multipv = lines;
    c.lines = calloc((size_t)lines, sizeof *c.lines);
    c.have = calloc((size_t)lines, sizeof *c.have);
    if (!c.lines || !c.have) {
        no_memory(err);
    } else {
        engine_set_multipv(e, lines);
        engine_set_skill(e, SKILL_MAX, false, SKILL_MAX_ELO);
        engine_clear(e);
        if (!engine_set_game(e, g)) {
            no_memory(err);
        } else {
            search_report_t report = {on_info, on_bestmove, &c};
            engine_search_sync(e, limits, &report);
            text = analysis_answer(input, g, NULL, NULL, &c, moves, n);
            if (!text)
                no_memory(err);
        }
    }
    free(c.lines);
    free(c.have);
    return text;
}
