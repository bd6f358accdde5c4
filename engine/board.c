/* Board geometry (constant tables), positions, make/unmake and Zobrist keys. */
#include "board.h"

#include <assert.h>

/* Generated geometry of the Bagh-Chal board: points 0..24 = A1..E5, row-major. */
const bb_t BC_STEPS[SQUARE_NB] = {
    0x0000062u, 0x0000045u, 0x00001cau, 0x0000114u, 0x0000308u, 0x0000441u, 0x0001ca7u, 0x0001144u, 0x000729cu, 0x0004110u, 0x0018860u, 0x0011440u, 0x00729c0u, 0x0045100u, 0x00c2300u, 0x0110400u, 0x0729c00u, 0x0451000u, 0x1ca7000u, 0x1044000u, 0x0218000u, 0x0510000u, 0x0a70000u, 0x1440000u, 0x08c0000u
};
const uint8_t BC_JUMP_COUNT[SQUARE_NB] = {3, 2, 5, 2, 3, 2, 3, 3, 3, 2, 5, 3, 8, 3, 5, 2, 3, 3, 3, 2, 3, 2, 5, 2, 3};
const bc_jump_t BC_JUMPS[SQUARE_NB][BC_MAX_JUMPS] = {
    {{1, 2}, {5, 10}, {6, 12}},
    {{2, 3}, {6, 11}},
    {{3, 4}, {1, 0}, {7, 12}, {8, 14}, {6, 10}},
    {{2, 1}, {8, 13}},
    {{3, 2}, {9, 14}, {8, 12}},
    {{6, 7}, {10, 15}},
    {{7, 8}, {11, 16}, {12, 18}},
    {{8, 9}, {6, 5}, {12, 17}},
    {{7, 6}, {13, 18}, {12, 16}},
    {{8, 7}, {14, 19}},
    {{11, 12}, {15, 20}, {5, 0}, {16, 22}, {6, 2}},
    {{12, 13}, {16, 21}, {6, 1}},
    {{13, 14}, {11, 10}, {17, 22}, {7, 2}, {18, 24}, {16, 20}, {8, 4}, {6, 0}},
    {{12, 11}, {18, 23}, {8, 3}},
    {{13, 12}, {19, 24}, {9, 4}, {18, 22}, {8, 2}},
    {{16, 17}, {10, 5}},
    {{17, 18}, {11, 6}, {12, 8}},
    {{18, 19}, {16, 15}, {12, 7}},
    {{17, 16}, {13, 8}, {12, 6}},
    {{18, 17}, {14, 9}},
    {{21, 22}, {15, 10}, {16, 12}},
    {{22, 23}, {16, 11}},
    {{23, 24}, {21, 20}, {17, 12}, {18, 14}, {16, 10}},
    {{22, 21}, {18, 13}},
    {{23, 22}, {19, 14}, {18, 12}},
};
const bc_dir_t BC_DIRS[BC_DIR_NB] = {
    {1, 0x0f7bdefu, 0x0739ce7u}, /* E */
    {-1, 0x1ef7bdeu, 0x1ce739cu}, /* W */
    {5, 0x00fffffu, 0x0007fffu}, /* S */
    {-5, 0x1ffffe0u, 0x1fffc00u}, /* N */
    {6, 0x0051545u, 0x0001445u}, /* SE */
    {4, 0x0055154u, 0x0005114u}, /* SW */
    {-4, 0x0551540u, 0x0511400u}, /* NE */
    {-6, 0x1455140u, 0x1445000u}, /* NW */
};
const uint64_t BC_ZOBRIST_TIGER[SQUARE_NB] = {0x4226cff311511706ull, 0x0f2e528d8bb3b52bull, 0xe5321c37a8206380ull, 0xe2ddfc2f7da3fd60ull, 0x575b77a89a471cf2ull, 0xd25348f467567afdull, 0x62ba2b3d965cb64aull, 0x22778c7286b646c6ull, 0x031a372f36c4de02ull, 0xc16bb249f1c54772ull, 0xd8761b6938afc442ull, 0xe678bff29042da25ull, 0xdaa5ed56c67748d7ull, 0xb4f7f4cc2f1c57ddull, 0xb4548261565fadaaull, 0xed399897da690368ull, 0x9996bc63eb81f205ull, 0xa6d2e2df4e96b1ceull, 0xe2c37d205dec262cull, 0x58d98c4102c7f348ull, 0x0b4964c6625fee11ull, 0x7a76a166dad24206ull, 0xa5ac99cb405b7a20ull, 0x6e85afb7fa262e9aull, 0x4a500cc780611260ull};
const uint64_t BC_ZOBRIST_GOAT[SQUARE_NB] = {0x85ea964463745e09ull, 0x951014fb63671859ull, 0x1b597f356a8feceaull, 0xbb2622ba8f6138cdull, 0x44ab5dc5fe2c3016ull, 0x05c43db8110d07a9ull, 0x05ed3aa8229cdc75ull, 0xe9336edf94a83df8ull, 0x0b4e7b68e8e70bebull, 0x27890e1eae6cf904ull, 0x8baf3bdc2fd81e44ull, 0xa24b3510cf42589aull, 0x5968047bf81e80e4ull, 0x9872ba74f63d2d05ull, 0xc218c2a0cb8bdb98ull, 0x01aac065aa745929ull, 0x72b02ad79c167275ull, 0xadbfea24e569b2a2ull, 0xa16273036e3b3257ull, 0x462ebbeb226c1113ull, 0x28e461b00aa799ffull, 0x311ffa0df3c976f9ull, 0x104d2eb7902443c0ull, 0x3b045196c7099c46ull, 0x1aa8cbb642863523ull};
const uint64_t BC_ZOBRIST_SIDE = 0x47c70d5e8d24d14eull;
const uint64_t BC_ZOBRIST_HAND[BC_GOATS_TOTAL + 1] = {0x239ccd7d3ab0972aull, 0x25447a88f8c422ddull, 0x5ab94717314131f1ull, 0x0c61a373345e9386ull, 0x751bb31108948b9eull, 0x28f86d7756f38aedull, 0x10b1f4b07e7a7eabull, 0xc406dad7aab961d3ull, 0x154a06b7bcffad35ull, 0x4762227c31c20929ull, 0x4480345704b2e5aaull, 0xcfa844e80fff8b02ull, 0x98a6937e8cd82f1aull, 0x6af875b7ac7d454dull, 0x90b4ba6764945828ull, 0x1ecbe52debe82669ull, 0xfbe2e4709ba0eec4ull, 0xb87cb947ce4f32a2ull, 0x9bfa90270657b60bull, 0xc00a021d91136b01ull, 0x6f16d25ce711b963ull};

void position_set_start(position_t *p)
{
    p->tigers = bb_square(0) | bb_square(4) | bb_square(20) | bb_square(24);
    p->goats = 0;
    p->side = GOATS;
    p->in_hand = BC_GOATS_TOTAL;
    p->captured = 0;
    p->key = position_compute_key(p);
}

uint64_t position_compute_key(const position_t *p)
{
    uint64_t k = p->side == TIGERS ? BC_ZOBRIST_SIDE : 0;
    for (bb_t b = p->tigers; b; b &= b - 1)
        k ^= BC_ZOBRIST_TIGER[bb_first(b)];
    for (bb_t b = p->goats; b; b &= b - 1)
        k ^= BC_ZOBRIST_GOAT[bb_first(b)];
    return k;
}

/* The invariant for a game of goats_total goats (20 for the real game; the database tools
 * build and check games with fewer). */
static bool position_is_ok_for(const position_t *p, int goats_total)
{
    if ((p->tigers | p->goats) & ~BB_ALL)
        return false;
    if (p->tigers & p->goats)
        return false;
    if (bb_count(p->tigers) != BC_TIGERS_NB)
        return false;
    if (p->side != GOATS && p->side != TIGERS)
        return false;
    if (goats_total > BC_GOATS_TOTAL || p->in_hand > goats_total || p->captured > BC_CAPTURES_TO_WIN)
        return false;
    if (bb_count(p->goats) + p->in_hand + p->captured != goats_total)
        return false;
    if (p->side == TIGERS && p->in_hand == goats_total)
        return false;
    return p->key == position_compute_key(p);
}

bool position_is_ok(const position_t *p) { return position_is_ok_for(p, BC_GOATS_TOTAL); }

#ifndef NDEBUG
/* What make and unmake can check: they keep the goat total as it was, so a position of a
 * smaller game stays one. */
static bool position_is_ok_any_game(const position_t *p)
{
    return position_is_ok_for(p, bb_count(p->goats) + p->in_hand + p->captured);
}
#endif

/* What m changes in the key when `side` makes it (placements and captures included). */
static inline uint64_t move_key_delta(int side, move_t m)
{
    int to = move_to(m), from = move_from(m);
    switch (move_kind(m)) {
    case MOVE_PLACE:
        return BC_ZOBRIST_GOAT[to];
    case MOVE_STEP:
        return side == TIGERS ? BC_ZOBRIST_TIGER[from] ^ BC_ZOBRIST_TIGER[to]
                              : BC_ZOBRIST_GOAT[from] ^ BC_ZOBRIST_GOAT[to];
    case MOVE_JUMP:
        return BC_ZOBRIST_TIGER[from] ^ BC_ZOBRIST_TIGER[to] ^ BC_ZOBRIST_GOAT[move_over(m)];
    default:
        return 0;
    }
}

/* Moves the pieces of m for `side` and updates the key; its own inverse, so make and
 * unmake share it and differ only in the counters. */
static inline void toggle_pieces(position_t *p, int side, move_t m)
{
    bb_t from = bb_square(move_from(m)), to = bb_square(move_to(m));
    switch (move_kind(m)) {
    case MOVE_PLACE:
        p->goats ^= to;
        break;
    case MOVE_STEP:
        if (side == TIGERS)
            p->tigers ^= from | to;
        else
            p->goats ^= from | to;
        break;
    case MOVE_JUMP:
        p->tigers ^= from | to;
        p->goats ^= bb_square(move_over(m));
        break;
    default:
        break;
    }
    p->key ^= move_key_delta(side, m) ^ BC_ZOBRIST_SIDE;
}

uint64_t position_key_after(const position_t *p, move_t m)
{
    return p->key ^ BC_ZOBRIST_SIDE ^ move_key_delta(p->side, m);
}

void position_make(position_t *p, move_t m)
{
    toggle_pieces(p, p->side, m);
    p->in_hand -= move_kind(m) == MOVE_PLACE;
    p->captured += move_kind(m) == MOVE_JUMP;
    p->side ^= 1;
    assert(position_is_ok_any_game(p));
}

void position_unmake(position_t *p, move_t m)
{
    p->side ^= 1;
    toggle_pieces(p, p->side, m);
    p->in_hand += move_kind(m) == MOVE_PLACE;
    p->captured -= move_kind(m) == MOVE_JUMP;
    assert(position_is_ok_any_game(p));
}

void square_name(int sq, char out[3])
{
    out[0] = (char)('A' + sq % 5);
    out[1] = (char)('1' + sq / 5);
    out[2] = '\0';
}

int square_parse(const char *s)
{
    char c = s[0];
    if (c >= 'a' && c <= 'e')
        c = (char)(c - 'a' + 'A');
    if (c < 'A' || c > 'E' || s[1] < '1' || s[1] > '5')
        return -1;
    return (s[1] - '1') * 5 + (c - 'A');
}
