/* What the database says of a game's position and its moves, under either repetition rule:
 * the values tbprobe prints and the Python package returns. */
#include "tbreport.h"

#include <stdio.h>

#include "search.h"

static void format_tb_value(char *buf, size_t len, tb_value_t v)
{
    if (v.wdl == TB_DRAW)
        snprintf(buf, len, "draw");
    else if (v.distance == TB_DISTANCE_UNKNOWN)
        snprintf(buf, len, "%s", v.wdl == TB_WIN ? "win" : "loss");
    else
        snprintf(buf, len, "%s in %d", v.wdl == TB_WIN ? "win" : "loss", v.distance);
}

static void from_db(move_t m, tb_value_t v, tbr_value_t *out)
{
    out->move = m;
    out->result = (tbr_result_t)v.wdl;
    out->distance = v.distance;
    out->proved = false;
    format_tb_value(out->text, sizeof out->text, v);
}

/* s is what is known of the position after m (MOVE_NONE: the position itself), for its side
 * to move; the value is turned round for the side that makes m. */
static void from_settled(move_t m, const fb_settled_t *s, tbr_value_t *out)
{
    bool after = m != MOVE_NONE;
    out->move = m;
    if (s->result == FB_OPEN)
        out->result = TBR_OPEN;
    else
        out->result = (s->result == FB_WIN) != after ? TBR_WIN : TBR_LOSS;
    out->distance = s->result == FB_OPEN || s->distance == TB_DISTANCE_UNKNOWN ? TB_DISTANCE_UNKNOWN
                                                                                : s->distance + (after ? 1 : 0);
    out->proved = s->proved;
    fb_settled_text(s, after, out->text, sizeof out->text);
}

static bool prover_ready(fb_prover_t **pr)
{
    return *pr || (*pr = fb_prover_new(FB_SETTLE_MB)) != NULL;
}

tbr_status_t tbr_position(const tb_t *tb, fb_prover_t **pr, const game_t *g, tbr_value_t *out)
{
    const position_t *p = game_position(g);
    game_result_t r = game_result(g);
    if (r.reason != RESULT_NONE) {
        /* Over by the rules or by the game's history: no database needed. */
        tb_value_t over = {r.winner < 0 ? TB_DRAW : r.winner == p->side ? TB_WIN : TB_LOSS, 0};
        from_db(MOVE_NONE, over, out); /* "win in 0", "loss in 0", "draw" */
        return TBR_OK;
    }
    tb_value_t v;
    if (!tb_probe(tb, p, &v))
        return TBR_NOT_COVERED;
    if (g->rule != REP_FORBID) {
        from_db(MOVE_NONE, v, out);
        return TBR_OK;
    }
    if (!prover_ready(pr))
        return TBR_NO_MEMORY;
    fb_settled_t s;
    fb_settle(*pr, tb, g, MOVE_NONE, FB_SETTLE_NODES, &s);
    from_settled(MOVE_NONE, &s, out);
    return TBR_OK;
}

tbr_status_t tbr_moves(const tb_t *tb, fb_prover_t **pr, const game_t *g, tbr_value_t *out, int *n)
{
    move_t moves[MAX_MOVES];
    int count = game_legal_moves(g, moves);
    tb_value_t v;
    *n = 0;
    if (count == 0)
        return TBR_OK;
    if (!tb_probe(tb, game_position(g), &v))
        return TBR_NOT_COVERED;
    if (g->rule == REP_FORBID) {
        fb_settled_t vals[MAX_MOVES];
        if (!prover_ready(pr))
            return TBR_NO_MEMORY;
        fb_settle_moves(*pr, tb, g, moves, count, FB_SETTLE_NODES, vals);
        for (int i = 0; i < count; i++)
            from_settled(moves[i], &vals[i], &out[i]);
    } else {
        tb_move_value_t ranked[MAX_MOVES];
        if (search_rank_tb_moves(tb, g, moves, count, ranked) < 0)
            return TBR_CHILD_NOT_COVERED;
        for (int i = 0; i < count; i++)
            from_db(ranked[i].move, ranked[i].value, &out[i]);
    }
    *n = count;
    return TBR_OK;
}

const char *tbr_result_name(tbr_result_t r)
{
    return r == TBR_WIN ? "win" : r == TBR_LOSS ? "loss" : r == TBR_OPEN ? "open" : "draw";
}
