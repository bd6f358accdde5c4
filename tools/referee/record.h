/* Game records: one text file per run, each game as tag lines, the moves in protocol
 * notation (captures as A1C3(B2)) and the final OBX; and the replay that checks a file. */
#ifndef REFEREE_RECORD_H
#define REFEREE_RECORD_H

#include <stdio.h>

#include "game.h"
#include "settings.h"
#include "util.h"

typedef struct {
    const char *event;
    int64_t game_no, round_no; /* 1-based */
    const char *names[SIDE_NB];
    const char *limits[SIDE_NB]; /* limits_describe() of each side's engine */
    const char *date;            /* "YYYY.MM.DD" */
    const char *opening_obx;
    rep_rule_t rule;
    int64_t maxmoves;            /* 0: none */
    int winner;                  /* GOATS, TIGERS, -1: draw */
    term_t term;
    const char *reason;
    const game_t *game;          /* the game from the opening */
} record_info_t;

/* The record of one game (ending with a blank line); NULL when out of memory. */
char *record_format(const record_info_t *r);

/* The same game as PGN for rating tools (ordo, bayeselo, pgn-extract's tag handling):
 * White = goats, Black = tigers, Result 1-0 / 0-1 / 1/2-1/2, Variant "Bagh-Chal", the
 * opening in an OBX tag, moves in protocol notation, the reason as a final comment. NULL
 * when out of memory. */
char *record_format_pgn(const record_info_t *r);

/* "goats", "tigers", "draw". */
const char *result_name(int winner);

/* One game of an existing record file, for -resume. */
typedef struct {
    int64_t game_no;
    bool played;     /* false: a "not played" note (term and reason tell why when an engine failed
                      * to start or get ready; TERM_NONE: an engine had been dropped) */
    char goats[128], tigers[128];
    char opening[96];
    char rule[16];
    int winner;      /* GOATS, TIGERS, -1: draw */
    term_t term;
    char reason[512];
    char timecontrol[300];
    int64_t maxmoves; /* 0: no MaxMoves tag */
    size_t plies;
    long end;        /* byte offset just after the game (or note) in the file */
} record_entry_t;

/* The side whose engine is at fault, named as "(goats)" or "(tigers)" in a Reason; -1 when it
 * names neither or both. */
int record_fault_side(const char *reason);

/* Reads the games of a record file from game 1 on, as long as they are complete and numbered
 * 1, 2, 3 ... (an "aborted" note, an unfinished game or a gap ends the list), and the settings
 * at its head (none in files written before they were) into *settings, *head_end being the
 * byte offset after them. The caller frees *entries and the settings. False with a reason in
 * msg when the file cannot be read or is out of memory; a missing file is an empty list. */
bool record_scan(const char *path, record_entry_t **entries, size_t *n, settings_t *settings, long *head_end,
                 char *msg, size_t msglen);

/* Writes the games of the record file (up to byte offset end) as PGN to out (see
 * record_format_pgn), replaying each; out NULL: only checks that it can. False with a reason
 * in msg when a game cannot be read or replayed, or out cannot be written. */
bool record_write_pgn(const char *path, long end, FILE *out, char *msg, size_t msglen);

/* "depth=5" for both sides, or "goats depth=5, tigers depth=3": a TimeControl tag's value. */
void record_timecontrol(const char *goats, const char *tigers, char *buf, size_t len);

/* Replays every game of a record file and checks it against the rules; problems are
 * written to err, one line each. Returns the number of problems (-1: unreadable file);
 * *games receives the number of games read. */
int record_check_file(const char *path, FILE *err, int64_t *games);

/* The same check of the file's head up to byte offset end (the games -resume keeps): true
 * when every game there passes; else false with the first problem ("FILE:LINE: game N:
 * what", and how many more) in msg. */
bool record_check_head(const char *path, long end, char *msg, size_t msglen);

#endif
