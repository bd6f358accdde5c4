/* Openings: OBX lines from a file (in order or shuffled by the seed), or positions after a
 * number of random legal plies from the start, generated per round from the seed. */
#ifndef REFEREE_OPENINGS_H
#define REFEREE_OPENINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "notation.h"

typedef struct {
    position_t pos;
    obx_meta_t meta;
    char obx[OBX_MAX_LEN]; /* OBX 2.0 as written in records and sent to engines */
} opening_t;

typedef struct {
    opening_t *list; /* from the file */
    size_t count;
    size_t *order;
    size_t start;
    int random_plies;
    int64_t startpos_every; /* generated openings: every this many rounds the start position, 0: never */
    uint64_t seed;
    rep_rule_t rule;
} openings_t;

/* Reads the file (or prepares generation) as cfg says. False with a reason in msg. */
bool openings_load(openings_t *o, const config_t *cfg, char *msg, size_t msglen);
/* The opening of a round; the same for every call with the same round. Thread-safe. */
bool openings_get(const openings_t *o, int64_t round, opening_t *out);
void openings_free(openings_t *o);

/* Parses one opening line (comments after ';' allowed); false with a reason. A finished
 * position is refused. */
bool opening_parse(const char *text, opening_t *out, char *msg, size_t msglen);

#endif
