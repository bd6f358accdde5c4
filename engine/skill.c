/* Skill Level: picking a weaker move among the best lines (see skill.h). */
#include "skill.h"

enum { SKILL_PAWN = 100 }; /* centipawns: the largest random spread between lines */

double skill_level_from_elo(int elo)
{
    if (elo < SKILL_MIN_ELO)
        elo = SKILL_MIN_ELO;
    if (elo > SKILL_MAX_ELO)
        elo = SKILL_MAX_ELO;
    return 19.5 * (double)(elo - SKILL_MIN_ELO) / (double)(SKILL_MAX_ELO - SKILL_MIN_ELO);
}

uint64_t skill_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * UINT64_C(2685821657736338717);
}

int skill_pick(const int *scores, int n, double level, uint64_t *rng)
{
    int top = scores[0], bottom = scores[0];
    for (int i = 1; i < n; i++) {
        top = scores[i] > top ? scores[i] : top;
        bottom = scores[i] < bottom ? scores[i] : bottom;
    }
    int delta = top - bottom;
    if (delta > SKILL_PAWN)
        delta = SKILL_PAWN;
    double weakness = 120.0 - 2.0 * level;
    int w = (int)weakness;
    int64_t best_value = -((int64_t)1 << 40);
    int best = 0;
    for (int i = 0; i < n; i++) {
        /* A margin for being worse (so weak levels hardly tell lines apart) and a random
         * one, both scaled by weakness / 128. */
        int64_t push = (int64_t)(weakness * (double)(top - scores[i]) + (double)delta * (double)(skill_rand(rng) % (uint64_t)w)) / 128;
        if ((int64_t)scores[i] + push >= best_value) {
            best_value = (int64_t)scores[i] + push;
            best = i;
        }
    }
    return best;
}

void skill_init(skill_state_t *s)
{
    s->rng = SKILL_SEED;
    skill_set(s, SKILL_MAX, false, SKILL_MAX_ELO);
}

void skill_set(skill_state_t *s, int skill_level, bool limit_strength, int elo)
{
    s->skill_level = skill_level < 0 ? 0 : skill_level > SKILL_MAX ? SKILL_MAX : skill_level;
    s->elo = elo < SKILL_MIN_ELO ? SKILL_MIN_ELO : elo > SKILL_MAX_ELO ? SKILL_MAX_ELO : elo;
    s->limit_strength = limit_strength;
    s->level = limit_strength ? skill_level_from_elo(s->elo) : (double)s->skill_level;
}

int skill_prepare(skill_state_t *s, const game_t *g, int multipv)
{
    s->active = skill_enabled(s->level);
    s->picked = false;
    for (int i = 0; i < MAX_MULTIPV; i++)
        s->have[i] = false;
    if (!s->active)
        return multipv;
    int lines = multipv > SKILL_MULTIPV ? multipv : SKILL_MULTIPV;
    move_t list[MAX_MOVES];
    int n = game_legal_moves(g, list);
    s->lines_nb = n < lines ? n : lines;
    return lines;
}

static void pick_now(skill_state_t *s)
{
    int scores[MAX_MULTIPV];
    int n = 0;
    while (n < s->lines_nb && s->have[n] && s->lines[n].pv_len > 0) {
        scores[n] = s->lines[n].score;
        n++;
    }
    if (n == 0)
        return;
    s->pick = s->lines[skill_pick(scores, n, s->level, &s->rng)];
    s->picked = true;
}

bool skill_on_info(skill_state_t *s, const search_info_t *info, int user_multipv)
{
    if (!s->active)
        return true;
    int k = info->multipv - 1;
    if (k >= 0 && k < MAX_MULTIPV) {
        s->lines[k] = *info;
        s->have[k] = true;
    }
    if (!s->picked && info->multipv == s->lines_nb && info->depth >= skill_pick_depth(s->level)) {
        bool whole = true;
        for (int i = 0; i < s->lines_nb; i++)
            whole = whole && s->have[i] && s->lines[i].depth == info->depth;
        if (whole)
            pick_now(s);
    }
    return info->multipv <= user_multipv;
}

void skill_on_bestmove(skill_state_t *s, move_t *best, move_t *ponder, const search_info_t **final)
{
    if (!s->active || *best == MOVE_NONE)
        return;
    if (!s->picked)
        pick_now(s); /* stopped before the pick depth: pick from what was seen */
    if (!s->picked)
        return;
    /* The picked move's latest line, when the deeper iterations kept it among theirs. */
    for (int k = 0; k < s->lines_nb; k++)
        if (s->have[k] && s->lines[k].pv_len > 0 && s->lines[k].pv[0] == s->pick.pv[0] &&
            s->lines[k].depth > s->pick.depth)
            s->pick = s->lines[k];
    *best = s->pick.pv[0];
    *ponder = s->pick.pv_len > 1 ? s->pick.pv[1] : MOVE_NONE;
    s->pick.multipv = 1;
    *final = &s->pick;
}
