/* What the tools need of the placement file besides probing: its layer table read from the
 * directory, the positions of a layer's entries, the start position, and the check of a
 * placement value against the values of its children. */
#define _POSIX_C_SOURCE 200809L
#include "tb_build.h"
#include "message.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "movegen.h"

#define fail(e, ...) ((tb_error_t)bc_fail((e), __VA_ARGS__))

tb_error_t tbp_read_header(const char *dir, tbp_header_t *x, char *msg, size_t msglen)
{
    char path[TB_PATH_MAX + 32], sp[TB_PATH_SHOWN];
    int n = snprintf(path, sizeof path, "%s/%s", dir, TBP_FILE_NAME);
    if (n < 0 || (size_t)n >= sizeof path)
        return fail(TB_ERR_IO, msg, msglen, "cannot open %s/%s: %s", tb_path_shown(dir, sp), TBP_FILE_NAME,
                    strerror(ENAMETOOLONG));
    int fd = tb_open_regular(path, O_RDONLY, msg, msglen);
    if (fd < 0)
        return errno == ENOENT ? TB_ERR_MISSING : TB_ERR_IO;
    uint8_t *buf = malloc(TBP_HEADER_SIZE);
    if (!buf) {
        close(fd);
        return fail(TB_ERR_NO_MEMORY, msg, msglen, "out of memory");
    }
    size_t got = 0;
    while (got < TBP_HEADER_SIZE) {
        ssize_t r = read(fd, buf + got, TBP_HEADER_SIZE - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    tb_error_t e = tbp_header_decode(buf, got, x, msg, msglen);
    free(buf);
    return e;
}

void tbp_entry_position(const tb_index_t *ix, const tbp_rank_t *rk, int goats_total, int side, int h, int c,
                        uint64_t i, position_t *out)
{
    memset(out, 0, sizeof *out);
    tbp_entry_points(ix, rk, goats_total - h - c, i, &out->tigers, &out->goats);
    out->side = (uint8_t)side;
    out->in_hand = (uint8_t)h;
    out->captured = (uint8_t)c;
    out->key = position_compute_key(out);
}

void tbp_start_position(int goats_total, position_t *out)
{
    memset(out, 0, sizeof *out);
    out->tigers = bb_square(0) | bb_square(4) | bb_square(20) | bb_square(24);
    out->side = GOATS;
    out->in_hand = (uint8_t)goats_total;
    out->key = position_compute_key(out);
}

/* 0 loss, 1 draw, 2 win for the side to move. */
static const char *const WDL_NAME[3] = {"loss", "draw", "win"};

tb_error_t tbp_verify_position(const tb_t *tb, const position_t *p, tb_check_t *kind, int *value, char *msg,
                               size_t msglen)
{
    tb_value_t v;
    if (!tb_probe(tb, p, &v))
        return fail(TB_ERR_ARGUMENT, msg, msglen, "position not covered");
    int stored = v.wdl + 1, best = 0; /* no move: lost */
    *value = stored;
    move_t moves[MAX_MOVES];
    int n = gen_moves(p, moves);
    for (int i = 0; i < n && best < 2; i++) {
        position_t child = *p;
        position_make(&child, moves[i]);
        int cv;
        if (child.captured >= tb_captures_to_win(tb)) {
            cv = 0; /* the capture that wins: the goats have lost */
        } else {
            tb_value_t c;
            if (!tb_probe(tb, &child, &c))
                return fail(TB_ERR_VERIFY, msg, msglen, "child %d of %d not covered", i + 1, n);
            cv = c.wdl + 1;
        }
        if (2 - cv > best)
            best = 2 - cv;
    }
    *kind = n == 0 ? TB_CHECK_TERMINAL : stored == 2 ? TB_CHECK_WIN : stored == 1 ? TB_CHECK_DRAW : TB_CHECK_LOSS;
    if (stored != best) {
        if (n == 0)
            return fail(TB_ERR_VERIFY, msg, msglen, "no legal move but stored %s", WDL_NAME[stored]);
        return fail(TB_ERR_VERIFY, msg, msglen, "stored %s, its %d children give %s", WDL_NAME[stored], n,
                    WDL_NAME[best]);
    }
    return TB_OK;
}
