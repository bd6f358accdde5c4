/* libbaghchal._core: the CPython binding of libbaghchal. Moves, boards (a game_t with its
 * history), the databases, the in-process engine and many games stepped at once; every rule,
 * notation and search is the library's. Long calls (perft, searches, database loads and
 * probes) run without the GIL; a board or handle in use by such a call refuses changes from
 * other threads with BusyError. On the main thread, perft and searches run Python's signal
 * handlers every few milliseconds, so that Ctrl-C stops them as it stops Python code. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "baghchal.h"
#include "compat.h"
#include "tb.h"
#include "tb_build.h"

/* The module's exception classes and tables: made once at import, read-only afterwards. */
static PyObject *BaghchalError, *InvalidPositionError, *IllegalMoveError, *NotationError, *TablebaseError, *EngineError,
    *BusyError;
static PyTypeObject MoveType, LegalMovesType, BoardType, TablebaseType, EngineType, VecGamesType;
static unsigned long main_thread_ident; /* threading.main_thread().ident: where signals are handled */
enum { MOVE_CODES = 1 << 12 };
static PyObject *move_cache[MOVE_CODES]; /* the Move object of each valid code, made at import */
/* The Python baghchal package's action of each move code (-1: none) and the move of each
 * action, from compat.h's functions at import: the vectorised games look them up per move. */
static int16_t action_of_code[MOVE_CODES];
static move_t move_of_action[COMPAT_ACTION_NB];
static tb_index_t *sym_index;           /* the board's symmetries (tb_transform) */


/* ---- long calls that Ctrl-C stops ----------------------------------------------- */

/* A long C call on the main thread runs Python's signal handlers every SIGNAL_SLICE_MS: it
 * calls sigcheck_poll from its own loop (between perft's subtrees, in the search's poll
 * callback), which takes the GIL back for a moment. When a handler raises (Ctrl-C's
 * KeyboardInterrupt), the call stops and returns with that exception set. On other threads
 * no handler runs, and nothing is checked. */

enum { SIGNAL_SLICE_MS = 10 };

typedef struct {
    PyThreadState *ts; /* the caller's, saved while the call runs without the GIL */
    pthread_t thread;  /* the caller's thread: only it runs the handlers */
    bool enabled;      /* the caller is the main thread */
    bool raised;       /* a handler raised: the call is to stop */
    int64_t next_ms;   /* when to look next */
} sigcheck_t;

static int64_t monotonic_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Releases the GIL for a long call (Py_BEGIN_ALLOW_THREADS). */
static void sigcheck_begin(sigcheck_t *c)
{
    c->thread = pthread_self();
    c->enabled = PyThread_get_thread_ident() == main_thread_ident;
    c->raised = false;
    c->next_ms = monotonic_ms() + SIGNAL_SLICE_MS;
    c->ts = PyEval_SaveThread();
}

/* Takes the GIL back (Py_END_ALLOW_THREADS); false when a handler raised (the exception set). */
static bool sigcheck_end(sigcheck_t *c)
{
    PyEval_RestoreThread(c->ts);
    return !c->raised;
}

/* Without the GIL, from the call's loop on any thread: true once a signal handler has raised
 * (only the caller's thread looks, once a slice). */
static bool sigcheck_poll(sigcheck_t *c)
{
    if (!c->enabled || !pthread_equal(pthread_self(), c->thread))
        return false;
    if (c->raised)
        return true;
    int64_t now = monotonic_ms();
    if (now < c->next_ms)
        return false;
    c->next_ms = now + SIGNAL_SLICE_MS;
    PyEval_RestoreThread(c->ts);
    if (PyErr_CheckSignals() < 0)
        c->raised = true;
    c->ts = PyEval_SaveThread();
    return c->raised;
}

/* ---- moves ------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    move_t code;
} MoveObject;

/* Whether code is a move of the board's geometry: its text reads back as the same code. */
static bool code_is_move(long code)
{
    if (code <= 0 || code >= MOVE_CODES || move_kind((move_t)code) == MOVE_KIND_NONE)
        return false;
    if (move_from((move_t)code) >= SQUARE_NB || move_to((move_t)code) >= SQUARE_NB)
        return false;
    char text[MOVE_TEXT_LEN];
    move_t back;
    move_format((move_t)code, text);
    return move_parse_text(text, &back, NULL, 0) == BC_OK && back == (move_t)code;
}

/* A new reference to the Move of m (m must be a move of the board's geometry). */
static PyObject *move_object(move_t m)
{
    PyObject *o = move_cache[m & (MOVE_CODES - 1)];
    if (!o) {
        PyErr_Format(PyExc_SystemError, "no move object for code %d", (int)m);
        return NULL;
    }
    Py_INCREF(o);
    return o;
}

/* text (len bytes from Python) holds no NUL byte; else kind is raised with msg. */
static bool nul_free(const char *text, Py_ssize_t len, PyObject *kind, const char *msg)
{
    if ((size_t)len == strlen(text))
        return true;
    PyErr_SetString(kind, msg);
    return false;
}

/* The UTF-8 text of a str (arg must be one) as move text; NULL (an exception set) otherwise. */
static const char *move_text_arg(PyObject *arg)
{
    Py_ssize_t len;
    const char *text = PyUnicode_AsUTF8AndSize(arg, &len);
    return text && nul_free(text, len, IllegalMoveError, "move text contains a NUL character") ? text : NULL;
}

/* A new list of the Move objects of n moves. */
static PyObject *move_list(const move_t *moves, size_t n)
{
    PyObject *out = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; out && i < n; i++) {
        PyObject *m = move_object(moves[i]);
        if (!m)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, (Py_ssize_t)i, m);
    }
    return out;
}

static PyObject *move_from_text(const char *text, Py_ssize_t len)
{
    char msg[160] = "";
    move_t m;
    if (!nul_free(text, len, IllegalMoveError, "move text contains a NUL character"))
        return NULL;
    if (move_parse_text(text, &m, msg, sizeof msg) != BC_OK) {
        PyErr_SetString(IllegalMoveError, msg);
        return NULL;
    }
    return move_object(m);
}

static PyObject *Move_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    (void)type;
    static char *kwlist[] = {"text", NULL};
    const char *text;
    Py_ssize_t len;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "s#:Move", kwlist, &text, &len))
        return NULL;
    return move_from_text(text, len);
}

static PyObject *Move_from_code(PyObject *cls, PyObject *arg)
{
    (void)cls;
    long code = PyLong_AsLong(arg);
    if (code == -1 && PyErr_Occurred())
        return NULL;
    if (!code_is_move(code))
        return PyErr_Format(PyExc_ValueError, "%ld is not the code of a move", code);
    return move_object((move_t)code);
}

static PyObject *Move_str(PyObject *self)
{
    char text[MOVE_TEXT_LEN];
    move_format(((MoveObject *)self)->code, text);
    return PyUnicode_FromString(text);
}

static PyObject *Move_repr(PyObject *self)
{
    char text[MOVE_TEXT_LEN];
    move_format(((MoveObject *)self)->code, text);
    return PyUnicode_FromFormat("Move('%s')", text);
}

static Py_hash_t Move_hash(PyObject *self) { return (Py_hash_t)((MoveObject *)self)->code; }

static PyObject *Move_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!PyObject_TypeCheck(b, &MoveType) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    bool eq = ((MoveObject *)a)->code == ((MoveObject *)b)->code;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *Move_get_from(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromLong(move_from(((MoveObject *)self)->code));
}

static PyObject *Move_get_to(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromLong(move_to(((MoveObject *)self)->code));
}

static PyObject *Move_get_code(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromLong(((MoveObject *)self)->code);
}

static PyObject *Move_get_kind(PyObject *self, void *c)
{
    (void)c;
    static const char *const KIND[] = {"none", "place", "step", "capture"};
    return PyUnicode_FromString(KIND[move_kind(((MoveObject *)self)->code)]);
}

static PyObject *Move_get_captured(PyObject *self, void *c)
{
    (void)c;
    move_t m = ((MoveObject *)self)->code;
    if (move_kind(m) != MOVE_JUMP)
        Py_RETURN_NONE;
    return PyLong_FromLong(move_over(m));
}

static PyObject *Move_obx(PyObject *self, PyObject *unused)
{
    (void)unused;
    char text[MOVE_TEXT_LEN + 8];
    move_format_obx(((MoveObject *)self)->code, text);
    return PyUnicode_FromString(text);
}

static int square_image(int s, int sq) { return bb_first(tb_transform(sym_index, s, bb_square(sq))); }

static move_t move_image(int s, move_t m)
{
    if (m == MOVE_NONE)
        return m;
    return move_make(move_kind(m), square_image(s, move_from(m)), square_image(s, move_to(m)));
}

/* A number 0..count-1 from a Python int ("square 25 is not one of 0..24" otherwise, what
 * naming it); false with an exception set. */
static bool index_arg(PyObject *arg, long count, const char *what, int *out)
{
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred())
        return false;
    if (v < 0 || v >= count) {
        PyErr_Format(PyExc_ValueError, "%s %ld is not one of 0..%ld", what, v, count - 1);
        return false;
    }
    *out = (int)v;
    return true;
}

static bool square_arg(PyObject *arg, int *sq) { return index_arg(arg, SQUARE_NB, "square", sq); }
static bool parse_symmetry(PyObject *arg, int *s) { return index_arg(arg, TB_SYM_NB, "symmetry", s); }

static PyObject *Move_transform(PyObject *self, PyObject *arg)
{
    int s;
    if (!parse_symmetry(arg, &s))
        return NULL;
    return move_object(move_image(s, ((MoveObject *)self)->code));
}

static PyObject *Move_get_action(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromLong(action_of_code[((MoveObject *)self)->code & (MOVE_CODES - 1)]);
}

static PyObject *Move_from_action(PyObject *cls, PyObject *arg)
{
    (void)cls;
    long a = PyLong_AsLong(arg);
    if (a == -1 && PyErr_Occurred())
        return NULL;
    if (a < 0 || a >= COMPAT_ACTION_NB)
        return PyErr_Format(PyExc_ValueError, "action %ld is not one of 0..%d", a, COMPAT_ACTION_NB - 1);
    return move_object(move_of_action[a]);
}

static PyObject *Move_reduce(PyObject *self, PyObject *unused)
{
    (void)unused;
    char text[MOVE_TEXT_LEN];
    move_format(((MoveObject *)self)->code, text);
    return Py_BuildValue("(O(s))", (PyObject *)&MoveType, text);
}

static PyGetSetDef Move_getset[] = {
    {"from_square", Move_get_from, NULL, "The point the piece leaves (0 = A1 .. 24 = E5); a placement's is its target.", NULL},
    {"to_square", Move_get_to, NULL, "The point the piece reaches (0 = A1 .. 24 = E5).", NULL},
    {"kind", Move_get_kind, NULL, "``'place'``, ``'step'`` or ``'capture'``.", NULL},
    {"captured", Move_get_captured, NULL, "The point of the goat a capture jumps over, else None.", NULL},
    {"code", Move_get_code, NULL, "The library's 16-bit move code (to | from << 5 | kind << 10).", NULL},
    {"action", Move_get_action, NULL,
     "The move's index among the 217 actions of the Python ``baghchal`` package: 0..24 place a goat on "
     "that point, 25..216 the moves along the lines (a goat step and a tiger step between the same points "
     "share one).\n\n>>> Move('C3').action, Move.from_action(Move('A1B2').action)\n(12, Move('A1B2'))", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Move_methods[] = {
    {"from_code", Move_from_code, METH_O | METH_CLASS,
     "from_code(code)\n--\n\nThe move of a library move code (ValueError for a code no move has).\n\n"
     ">>> Move.from_code(Move('C3').code)\nMove('C3')"},
    {"from_action", Move_from_action, METH_O | METH_CLASS,
     "from_action(action)\n--\n\nThe move of one of the Python ``baghchal`` package's 217 actions (0..216; "
     "ValueError otherwise).\n\n>>> Move.from_action(12)\nMove('C3')"},
    {"obx", Move_obx, METH_NOARGS,
     "obx()\n--\n\nThe move in OBX form: ``'mC3'``, ``'mA1B2'``, ``'mA1C3(B2)'``.\n\n"
     ">>> Move('A1C3').obx()\n'mA1C3(B2)'"},
    {"transform", Move_transform, METH_O,
     "transform(symmetry)\n--\n\nThe move mapped by one of the board's 8 symmetries (0 is the identity; "
     "see :data:`libbaghchal.SYMMETRIES`).\n\n>>> Move('A1B2').transform(1)\nMove('E1D2')"},
    {"__reduce__", Move_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject MoveType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "libbaghchal.Move",
    .tp_basicsize = sizeof(MoveObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Move(text)\n--\n\n"
              "A move: a placement, a step or a capture. ``str(move)`` is the protocol's move text "
              "(``'C3'``, ``'A1B2'``, ``'A1C3'``); the text may also be written ``'a1b2'``, "
              "``'mA1C3(B2)'`` or ``'nC3'``. Moves are immutable and compare and hash by their code. "
              "Parsing checks the board's lines, not a position: use :meth:`Board.parse_move` for that.\n\n"
              ">>> m = Move('a1c3')\n>>> str(m), m.kind, m.captured\n('A1C3', 'capture', 6)\n"
              ">>> m == Move('mA1C3(B2)')\nTrue",
    .tp_new = Move_new,
    .tp_str = Move_str,
    .tp_repr = Move_repr,
    .tp_hash = Move_hash,
    .tp_richcompare = Move_richcompare,
    .tp_getset = Move_getset,
    .tp_methods = Move_methods,
};


/* ---- the legal moves of a position: an immutable sequence ---------------------------- */

/* A tuple of the Move objects, made once per position of a board and handed out while the
 * position stays (board.legal_moves is the same object until a move is pushed or popped).
 * ``in`` takes move text too; it equals a list or tuple of the same moves. */

/* A LegalMoves of n moves. Made with room for MAX_MOVES, so that a board can refill its own
 * for the next position when nobody else holds it (legal_moves_refill). Not tracked by the
 * collector: it holds only moves, which hold nothing. */
static PyObject *legal_moves_new(const move_t *moves, int n)
{
    PyObject *t = LegalMovesType.tp_alloc(&LegalMovesType, MAX_MOVES);
    if (!t)
        return NULL;
    PyObject_GC_UnTrack(t);
    Py_SET_SIZE(t, n);
    for (int i = 0; i < n; i++)
        PyTuple_SET_ITEM(t, i, move_cache[moves[i] & (MOVE_CODES - 1)]), Py_INCREF(PyTuple_GET_ITEM(t, i));
    return t;
}

/* Whether the board's LegalMoves may be refilled in place: only the board holds it. */
static bool legal_moves_private(PyObject *t) { return t && Py_REFCNT(t) == 1; }

/* Refills a LegalMoves that only its board holds with the moves of the board's new position
 * (nothing outside can see the change), sparing an allocation per position. */
static void legal_moves_refill(PyObject *t, const move_t *moves, int n)
{
    Py_ssize_t old = Py_SIZE(t);
    for (Py_ssize_t i = 0; i < old; i++)
        Py_DECREF(PyTuple_GET_ITEM(t, i)); /* moves of the cache: never the last reference */
    Py_SET_SIZE(t, n);
    for (int i = 0; i < n; i++)
        PyTuple_SET_ITEM(t, i, move_cache[moves[i] & (MOVE_CODES - 1)]), Py_INCREF(PyTuple_GET_ITEM(t, i));
}

static int LegalMoves_contains(PyObject *self, PyObject *item)
{
    move_t code;
    if (Py_IS_TYPE(item, &MoveType)) {
        code = ((MoveObject *)item)->code;
    } else if (PyUnicode_Check(item)) {
        Py_ssize_t len;
        const char *text = PyUnicode_AsUTF8AndSize(item, &len);
        if (!text)
            return -1;
        if ((size_t)len != strlen(text) || move_parse_text(text, &code, NULL, 0) != BC_OK)
            return 0; /* text that is no move is not among them */
    } else {
        return 0;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(self);
    for (Py_ssize_t i = 0; i < n; i++)
        if (((MoveObject *)PyTuple_GET_ITEM(self, i))->code == code)
            return 1;
    return 0;
}

static PyObject *LegalMoves_richcompare(PyObject *a, PyObject *b, int op)
{
    if (PyList_Check(b)) {
        PyObject *t = PyList_AsTuple(b);
        if (!t)
            return NULL;
        PyObject *r = PyTuple_Type.tp_richcompare(a, t, op);
        Py_DECREF(t);
        return r;
    }
    return PyTuple_Type.tp_richcompare(a, b, op);
}

static PyObject *LegalMoves_repr(PyObject *self)
{
    Py_ssize_t n = PyTuple_GET_SIZE(self);
    PyObject *parts = PyList_New(n);
    for (Py_ssize_t i = 0; parts && i < n; i++) {
        PyObject *text = PyObject_Str(PyTuple_GET_ITEM(self, i));
        if (!text)
            Py_CLEAR(parts);
        else
            PyList_SET_ITEM(parts, i, text);
    }
    if (!parts)
        return NULL;
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *joined = sep ? PyUnicode_Join(sep, parts) : NULL;
    Py_XDECREF(sep);
    Py_DECREF(parts);
    if (!joined)
        return NULL;
    PyObject *r = PyUnicode_FromFormat("<LegalMoves (%U)>", joined);
    Py_DECREF(joined);
    return r;
}

static PySequenceMethods LegalMoves_as_sequence = {.sq_contains = LegalMoves_contains};

static PyTypeObject LegalMovesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "libbaghchal.LegalMoves",
    .tp_basicsize = sizeof(PyTupleObject) - sizeof(PyObject *),
    .tp_itemsize = sizeof(PyObject *),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_TUPLE_SUBCLASS,
    .tp_doc = "The legal moves of a position (:attr:`Board.legal_moves`): an immutable sequence of "
              ":class:`Move` (a tuple), in the engine's order. ``in`` takes a Move or move text; it "
              "compares equal to a list or tuple of the same moves.\\n\\n"
              ">>> moves = Board().legal_moves\\n>>> len(moves), 'C3' in moves, Move('A1B1') in moves\\n"
              "(21, True, False)",
    .tp_repr = LegalMoves_repr,
    .tp_hash = PyObject_HashNotImplemented, /* refilled in place while only its board holds it */
    .tp_as_sequence = &LegalMoves_as_sequence,
    .tp_richcompare = LegalMoves_richcompare,
};

/* ---- boards ------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    game_t game;
    bool ready; /* game holds a game (game_init succeeded) */
    int busy;   /* calls running without the GIL that read this board */
    /* The current position's legal moves, worked out once per position (with the GIL held):
     * legal_moves, is_game_over and the game's end all read them. */
    bool legal_known;
    int legal_n;
    move_t legal[MAX_MOVES];
    PyObject *legal_obj;  /* their LegalMoves, made at the first ask */
    bool legal_obj_stale; /* legal_obj holds an earlier position's moves (only the board holds it) */
} BoardObject;

/* The position changed (or its rule): its legal moves are to be worked out again. Their
 * LegalMoves is kept for a refill when nobody else holds it. */
static void board_changed(BoardObject *b)
{
    b->legal_known = false;
    if (legal_moves_private(b->legal_obj))
        b->legal_obj_stale = true;
    else
        Py_CLEAR(b->legal_obj);
}

/* The number of legal moves now (0 exactly when the game is over), into b->legal. */
static int board_legal(BoardObject *b)
{
    if (!b->legal_known) {
        b->legal_n = game_legal_moves(&b->game, b->legal);
        b->legal_known = true;
    }
    return b->legal_n;
}

static bool board_ready(BoardObject *b)
{
    if (!b->ready)
        PyErr_SetString(PyExc_RuntimeError, "the board was not initialised (Board.__init__ was not called)");
    return b->ready;
}

/* Changes are refused while another thread reads the board without the GIL. */
static bool board_writable(BoardObject *b)
{
    if (!board_ready(b))
        return false;
    if (b->busy) {
        PyErr_SetString(BusyError, "the board is in use by a search or probe in another thread");
        return false;
    }
    return true;
}

static bool parse_rule(const char *text, rep_rule_t *rule)
{
    if (strcmp(text, "forbid") == 0)
        *rule = REP_FORBID;
    else if (strcmp(text, "draw") == 0)
        *rule = REP_DRAW;
    else {
        PyErr_Format(PyExc_ValueError, "repetition must be 'forbid' or 'draw', not '%s'", text);
        return false;
    }
    return true;
}

/* Parses OBX as the protocol's `position obx` does. */
static bool parse_obx(const char *text, Py_ssize_t len, position_t *p, obx_meta_t *meta)
{
    char msg[256] = "";
    if ((size_t)len != strlen(text)) {
        PyErr_SetString(InvalidPositionError, "invalid OBX: the text contains a NUL character");
        return false;
    }
    if (obx_parse(text, p, meta, msg, sizeof msg) != BC_OK) {
        PyErr_Format(InvalidPositionError, "invalid OBX: %s", msg);
        return false;
    }
    if (p->side == TIGERS && p->captured >= BC_CAPTURES_TO_WIN) {
        PyErr_SetString(InvalidPositionError, "invalid OBX: tigers to move with five goats captured cannot occur "
                                              "(the fifth capture ends the game with the goats to move)");
        return false;
    }
    return true;
}

static void Board_dealloc(PyObject *self)
{
    BoardObject *b = (BoardObject *)self;
    if (b->ready)
        game_free(&b->game);
    Py_CLEAR(b->legal_obj);
    Py_TYPE(self)->tp_free(self);
}

static int Board_init(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"obx", "repetition", NULL};
    BoardObject *b = (BoardObject *)self;
    const char *text = NULL, *rule_text = "forbid";
    Py_ssize_t len = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|z#$s:Board", kwlist, &text, &len, &rule_text))
        return -1;
    if (b->busy) {
        PyErr_SetString(BusyError, "the board is in use by a search or probe in another thread");
        return -1;
    }
    rep_rule_t rule;
    position_t p;
    obx_meta_t meta = {MOVE_NONE, 0};
    if (!parse_rule(rule_text, &rule))
        return -1;
    if (text)
        if (!parse_obx(text, len, &p, &meta))
            return -1;
    if (!text)
        position_set_start(&p);
    game_t g;
    if (!game_init(&g, &p, &meta, rule)) {
        PyErr_NoMemory();
        return -1;
    }
    if (b->ready)
        game_free(&b->game);
    b->game = g;
    b->ready = true;
    board_changed(b);
    return 0;
}

/* A new board of type, owning g (freed on failure). */
static PyObject *board_wrap(PyTypeObject *type, game_t *g)
{
    BoardObject *b = (BoardObject *)type->tp_alloc(type, 0);
    if (!b) {
        game_free(g);
        return NULL;
    }
    b->game = *g;
    b->ready = true;
    return (PyObject *)b;
}

static PyObject *Board_get_legal_moves(PyObject *self, void *c)
{
    (void)c;
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    int n = board_legal(b);
    if (b->legal_obj && b->legal_obj_stale && legal_moves_private(b->legal_obj)) {
        legal_moves_refill(b->legal_obj, b->legal, n);
    } else if (!b->legal_obj || b->legal_obj_stale) {
        Py_CLEAR(b->legal_obj);
        if (!(b->legal_obj = legal_moves_new(b->legal, n)))
            return NULL;
    }
    b->legal_obj_stale = false;
    Py_INCREF(b->legal_obj);
    return b->legal_obj;
}

static PyObject *Board_push(PyObject *self, PyObject *arg)
{
    BoardObject *b = (BoardObject *)self;
    char msg[256] = "";
    bc_error_t e;
    if (!board_writable(b))
        return NULL;
    if (Py_IS_TYPE(arg, &MoveType)) {
        e = game_play(&b->game, ((MoveObject *)arg)->code, msg, sizeof msg);
    } else if (PyUnicode_Check(arg)) {
        const char *text = move_text_arg(arg);
        if (!text)
            return NULL;
        e = game_play_text(&b->game, text, msg, sizeof msg);
    } else {
        return PyErr_Format(PyExc_TypeError, "push() takes a Move or move text, not %.80s", Py_TYPE(arg)->tp_name);
    }
    if (e == BC_ERR_NO_MEMORY)
        return PyErr_NoMemory();
    if (e != BC_OK) {
        PyErr_SetString(IllegalMoveError, msg);
        return NULL;
    }
    board_changed(b);
    Py_RETURN_NONE;
}

static PyObject *Board_pop(PyObject *self, PyObject *unused)
{
    (void)unused;
    BoardObject *b = (BoardObject *)self;
    if (!board_writable(b))
        return NULL;
    if (b->game.count == 0) {
        PyErr_SetString(PyExc_IndexError, "pop from an empty move stack");
        return NULL;
    }
    board_changed(b);
    return move_object(game_pop(&b->game));
}

static PyObject *Board_peek(PyObject *self, PyObject *unused)
{
    (void)unused;
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    if (b->game.count == 0) {
        PyErr_SetString(PyExc_IndexError, "peek at an empty move stack");
        return NULL;
    }
    return move_object(b->game.moves[b->game.count - 1]);
}

static PyObject *Board_get_move_stack(PyObject *self, void *c)
{
    (void)c;
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    return move_list(b->game.moves, b->game.count);
}

enum { PERFT_MAX_DEPTH = 64, PERFT_SPLIT = 5 };

/* The library's perft, split above PERFT_SPLIT plies so that signals are looked at between
 * subtrees (each a few milliseconds at most); 0 once a handler has raised. */
static uint64_t perft_split(sigcheck_t *c, position_t *p, int depth)
{
    if (depth <= PERFT_SPLIT)
        return perft(p, depth);
    move_t list[MAX_MOVES];
    int n = gen_moves(p, list);
    uint64_t total = 0;
    for (int i = 0; i < n && !sigcheck_poll(c); i++) {
        position_make(p, list[i]);
        total += perft_split(c, p, depth - 1);
        position_unmake(p, list[i]);
    }
    return total;
}

static PyObject *Board_perft(PyObject *self, PyObject *arg)
{
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    long depth = PyLong_AsLong(arg);
    if (depth == -1 && PyErr_Occurred())
        return NULL;
    if (depth < 0 || depth > PERFT_MAX_DEPTH)
        return PyErr_Format(PyExc_ValueError, "perft depth must be from 0 to %d, not %ld", PERFT_MAX_DEPTH, depth);
    position_t p = *game_position(&b->game); /* a copy: other threads may play on */
    sigcheck_t c;
    sigcheck_begin(&c);
    uint64_t n = perft_split(&c, &p, (int)depth);
    if (!sigcheck_end(&c))
        return NULL;
    return PyLong_FromUnsignedLongLong(n);
}

static const char *const REASON_NAMES[] = {"", "five_captured", "tigers_trapped", "goats_stuck",
                                           "repetition_blocked", "repetition_draw"};

/* None for a game still going, else (winner or None for a draw, reason name, description). */
static PyObject *outcome_tuple(game_result_t r)
{
    if (r.reason == RESULT_NONE)
        Py_RETURN_NONE;
    PyObject *winner = r.winner < 0 ? (Py_INCREF(Py_None), Py_None) : PyLong_FromLong(r.winner);
    if (!winner)
        return NULL;
    return Py_BuildValue("(Nss)", winner, REASON_NAMES[r.reason], result_describe(r));
}

static PyObject *Board_outcome_raw(PyObject *self, PyObject *unused)
{
    (void)unused;
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    if (board_legal(b) > 0)
        Py_RETURN_NONE;
    return outcome_tuple(game_result(&b->game));
}

static PyObject *Board_result(PyObject *self, PyObject *unused)
{
    (void)unused;
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    game_result_t r = board_legal(b) > 0 ? (game_result_t){RESULT_NONE, -1} : game_result(&b->game);
    if (r.reason == RESULT_NONE)
        return PyUnicode_FromString("*");
    return PyUnicode_FromString(r.winner < 0 ? "draw" : r.winner == GOATS ? "goats" : "tigers");
}

static PyObject *Board_is_game_over(PyObject *self, PyObject *unused)
{
    (void)unused;
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    return PyBool_FromLong(board_legal(b) == 0);
}

static PyObject *Board_obx(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"version", NULL};
    BoardObject *b = (BoardObject *)self;
    int version = OBX_V2;
    if (!board_ready(b) || !PyArg_ParseTupleAndKeywords(args, kwds, "|i:obx", kwlist, &version))
        return NULL;
    if (version != OBX_V1 && version != OBX_V2)
        return PyErr_Format(PyExc_ValueError, "OBX version must be 1 or 2, not %d", version);
    char buf[OBX_MAX_LEN];
    obx_meta_t meta = game_meta(&b->game);
    obx_format(game_position(&b->game), &meta, version, buf, sizeof buf);
    return PyUnicode_FromString(buf);
}

static PyObject *Board_root(PyObject *self, PyObject *unused)
{
    (void)unused;
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    game_t g;
    if (!game_init(&g, &b->game.history[0], &b->game.start_meta, b->game.rule))
        return PyErr_NoMemory();
    return board_wrap(Py_TYPE(self), &g);
}

static PyObject *Board_copy(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"stack", NULL};
    BoardObject *b = (BoardObject *)self;
    int stack = 1;
    if (!board_ready(b) || !PyArg_ParseTupleAndKeywords(args, kwds, "|p:copy", kwlist, &stack))
        return NULL;
    game_t g;
    bool ok;
    if (stack) {
        ok = game_copy(&g, &b->game);
    } else {
        obx_meta_t meta = game_meta(&b->game);
        ok = game_init(&g, game_position(&b->game), &meta, b->game.rule);
    }
    if (!ok)
        return PyErr_NoMemory();
    return board_wrap(Py_TYPE(self), &g);
}

static PyObject *Board_deepcopy(PyObject *self, PyObject *memo)
{
    (void)memo;
    PyObject *none = PyTuple_New(0);
    if (!none)
        return NULL;
    PyObject *r = Board_copy(self, none, NULL);
    Py_DECREF(none);
    return r;
}

static PyObject *Board_transform(PyObject *self, PyObject *arg)
{
    BoardObject *b = (BoardObject *)self;
    int s;
    if (!board_ready(b) || !parse_symmetry(arg, &s))
        return NULL;
    position_t p = b->game.history[0];
    p.tigers = tb_transform(sym_index, s, p.tigers);
    p.goats = tb_transform(sym_index, s, p.goats);
    p.key = position_compute_key(&p);
    obx_meta_t meta = b->game.start_meta;
    meta.last_move = move_image(s, meta.last_move);
    game_t g;
    if (!game_init(&g, &p, &meta, b->game.rule))
        return PyErr_NoMemory();
    for (size_t i = 0; i < b->game.count; i++) {
        char msg[256] = "";
        bc_error_t e = game_play(&g, move_image(s, b->game.moves[i]), msg, sizeof msg);
        if (e != BC_OK) {
            game_free(&g);
            if (e == BC_ERR_NO_MEMORY)
                return PyErr_NoMemory();
            return PyErr_Format(PyExc_SystemError, "the image of move %zu was refused: %s", i + 1, msg);
        }
    }
    return board_wrap(Py_TYPE(self), &g);
}

/* For a move of the position's rules: raises IllegalMoveError and returns true when the game
 * is over or m recreates an earlier position (Repetition forbid). */
static bool refuse_unplayable(const game_t *g, move_t m)
{
    char t[MOVE_TEXT_LEN];
    move_format(m, t);
    game_result_t r = game_result(g);
    if (r.reason != RESULT_NONE)
        PyErr_Format(IllegalMoveError, "%s: the game is over (%s)", t, result_describe(r));
    else if (game_move_repeats(g, m))
        PyErr_Format(IllegalMoveError, "%s recreates an earlier position (Repetition forbid)", t);
    else
        return false;
    return true;
}

static PyObject *Board_parse_move(PyObject *self, PyObject *arg)
{
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    move_t m;
    char msg[256] = "";
    if (Py_IS_TYPE(arg, &MoveType)) {
        m = ((MoveObject *)arg)->code;
        if (!move_is_pseudo_legal(game_position(&b->game), m)) {
            char t[MOVE_TEXT_LEN];
            move_format(m, t);
            snprintf(msg, sizeof msg, "%s is not a legal move for the %s in this position", t,
                     game_position(&b->game)->side == GOATS ? "goats" : "tigers");
            PyErr_SetString(IllegalMoveError, msg);
            return NULL;
        }
    } else if (PyUnicode_Check(arg)) {
        const char *text = move_text_arg(arg);
        if (!text)
            return NULL;
        if (move_parse(game_position(&b->game), text, &m, msg, sizeof msg) != BC_OK) {
            PyErr_SetString(IllegalMoveError, msg);
            return NULL;
        }
    } else {
        return PyErr_Format(PyExc_TypeError, "parse_move() takes a Move or move text, not %.80s",
                            Py_TYPE(arg)->tp_name);
    }
    if (refuse_unplayable(&b->game, m))
        return NULL;
    return move_object(m);
}

static PyObject *Board_is_legal(PyObject *self, PyObject *arg)
{
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    move_t m;
    if (Py_IS_TYPE(arg, &MoveType)) {
        m = ((MoveObject *)arg)->code;
    } else if (PyUnicode_Check(arg)) {
        const char *text = move_text_arg(arg);
        if (!text)
            return NULL;
        if (move_parse_text(text, &m, NULL, 0) != BC_OK)
            Py_RETURN_FALSE;
    } else {
        return PyErr_Format(PyExc_TypeError, "is_legal() takes a Move or move text, not %.80s", Py_TYPE(arg)->tp_name);
    }
    int n = board_legal(b);
    for (int i = 0; i < n; i++)
        if (b->legal[i] == m)
            Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

static PyObject *Board_piece_at(PyObject *self, PyObject *arg)
{
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    int sq;
    if (!square_arg(arg, &sq))
        return NULL;
    const position_t *p = game_position(&b->game);
    if (p->tigers & bb_square(sq))
        return PyUnicode_FromString("T");
    if (p->goats & bb_square(sq))
        return PyUnicode_FromString("G");
    Py_RETURN_NONE;
}

static PyObject *Board_occurrences(PyObject *self, PyObject *unused)
{
    (void)unused;
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    return PyLong_FromLong(game_occurrences(&b->game));
}


/* Boards compare by position, as python-chess's do: the points of the tigers and the goats,
 * the side to move, the goats in hand and captured; not the history or the rule. */
static PyObject *Board_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!PyObject_TypeCheck(b, &BoardType) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    BoardObject *x = (BoardObject *)a, *y = (BoardObject *)b;
    if (!board_ready(x) || !board_ready(y))
        return NULL;
    const position_t *p = game_position(&x->game), *q = game_position(&y->game);
    bool eq = p->tigers == q->tigers && p->goats == q->goats && p->side == q->side && p->in_hand == q->in_hand &&
              p->captured == q->captured;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *Board_is_repetition(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"count", NULL};
    BoardObject *b = (BoardObject *)self;
    int count = 3;
    if (!board_ready(b) || !PyArg_ParseTupleAndKeywords(args, kwds, "|i:is_repetition", kwlist, &count))
        return NULL;
    return PyBool_FromLong(game_occurrences(&b->game) >= count);
}

static PyObject *Board_can_claim_draw(PyObject *self, PyObject *unused)
{
    (void)unused;
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    if (b->game.rule != REP_DRAW)
        Py_RETURN_FALSE;
    if (game_occurrences(&b->game) >= 3)
        Py_RETURN_TRUE;
    int n = board_legal(b);
    for (int i = 0; i < n; i++)
        if (game_move_draws(&b->game, b->legal[i]))
            Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

static PyObject *Board_get_int(PyObject *self, void *which)
{
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    const position_t *p = game_position(&b->game);
    switch ((int)(intptr_t)which) {
    case 0: return PyLong_FromLong(p->side);
    case 1: return PyLong_FromLong(p->in_hand);
    case 2: return PyLong_FromLong(p->captured);
    case 3: return PyLong_FromUnsignedLong(p->tigers);
    case 4: return PyLong_FromUnsignedLong(p->goats);
    case 5: return PyLong_FromUnsignedLongLong(position_hash(p));
    default: return PyLong_FromLong(game_meta(&b->game).ply);
    }
}

static PyObject *Board_get_repetition(PyObject *self, void *c)
{
    (void)c;
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    return PyUnicode_FromString(b->game.rule == REP_DRAW ? "draw" : "forbid");
}

static int Board_set_repetition(PyObject *self, PyObject *value, void *c)
{
    (void)c;
    BoardObject *b = (BoardObject *)self;
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete repetition");
        return -1;
    }
    if (!board_writable(b))
        return -1;
    if (!PyUnicode_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "repetition must be 'forbid' or 'draw'");
        return -1;
    }
    const char *text = PyUnicode_AsUTF8(value);
    rep_rule_t rule;
    if (!text || !parse_rule(text, &rule))
        return -1;
    b->game.rule = rule;
    board_changed(b);
    return 0;
}

/* ---- the Python baghchal package's notation (compat.h) ---------------------------------- */

static PyObject *compat_raise(compat_error_t e, PyObject *kind, const char *msg)
{
    if (e == COMPAT_ERR_NO_MEMORY)
        return PyErr_NoMemory();
    PyErr_SetString(kind, msg);
    return NULL;
}

/* The arguments of from_fen and from_pgn, (text, *, repetition='draw') by format: the
 * notation of the Python baghchal package is read under that package's rule unless told. A
 * text holding a NUL byte raises kind with nul_msg. False with an exception set otherwise. */
static bool text_and_rule(PyObject *args, PyObject *kwds, const char *format, char **kwlist, const char **text,
                          rep_rule_t *rule, PyObject *kind, const char *nul_msg)
{
    const char *rule_text = "draw";
    Py_ssize_t len;
    return PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist, text, &len, &rule_text) &&
           parse_rule(rule_text, rule) && nul_free(*text, len, kind, nul_msg);
}

static PyObject *Board_from_fen(PyObject *cls, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"fen", "repetition", NULL};
    const char *fen;
    rep_rule_t rule;
    if (!text_and_rule(args, kwds, "s#|$s:from_fen", kwlist, &fen, &rule, InvalidPositionError,
                       "invalid FEN: the text contains a NUL character"))
        return NULL;
    position_t p;
    int ply = 0;
    char err[256] = "";
    compat_error_t e = compat_fen_parse(fen, &p, &ply, err, sizeof err);
    if (e != COMPAT_OK)
        return compat_raise(e, InvalidPositionError, err);
    if (p.side == TIGERS && p.captured >= BC_CAPTURES_TO_WIN) {
        PyErr_SetString(InvalidPositionError, "invalid FEN: tigers to move with five goats captured cannot occur");
        return NULL;
    }
    obx_meta_t meta = {MOVE_NONE, ply};
    game_t g;
    if (!game_init(&g, &p, &meta, rule))
        return PyErr_NoMemory();
    return board_wrap((PyTypeObject *)cls, &g);
}

static PyObject *Board_fen(PyObject *self, PyObject *unused)
{
    (void)unused;
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    char buf[COMPAT_FEN_LEN], err[256] = "";
    compat_error_t e = compat_game_fen(&b->game, buf, sizeof buf, err, sizeof err);
    if (e != COMPAT_OK)
        return compat_raise(e, NotationError, err);
    return PyUnicode_FromString(buf);
}

static PyObject *Board_from_pgn(PyObject *cls, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"pgn", "repetition", NULL};
    const char *text;
    rep_rule_t rule;
    if (!text_and_rule(args, kwds, "s#|$s:from_pgn", kwlist, &text, &rule, NotationError,
                       "invalid PGN: the text contains a NUL character"))
        return NULL;
    game_t g;
    char err[512] = "";
    compat_error_t e;
    Py_BEGIN_ALLOW_THREADS
    e = compat_pgn_parse(text, rule, &g, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (e != COMPAT_OK)
        return compat_raise(e, e == COMPAT_ERR_ILLEGAL || e == COMPAT_ERR_GAME_OVER ? IllegalMoveError : NotationError,
                            err);
    return board_wrap((PyTypeObject *)cls, &g);
}

static PyObject *Board_pgn(PyObject *self, PyObject *unused)
{
    (void)unused;
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    char small[1024], err[256] = "";
    size_t needed = 0;
    compat_error_t e = compat_pgn_format(&b->game, small, sizeof small, &needed, err, sizeof err);
    if (e == COMPAT_OK)
        return PyUnicode_FromString(small);
    if (e != COMPAT_ERR_BUFFER)
        return compat_raise(e, NotationError, err);
    char *big = PyMem_Malloc(needed + 1);
    if (!big)
        return PyErr_NoMemory();
    e = compat_pgn_format(&b->game, big, needed + 1, &needed, err, sizeof err);
    PyObject *r = e == COMPAT_OK ? PyUnicode_FromString(big) : compat_raise(e, NotationError, err);
    PyMem_Free(big);
    return r;
}

static PyObject *Board_pgn_move(PyObject *self, PyObject *arg)
{
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    if (!Py_IS_TYPE(arg, &MoveType))
        return PyErr_Format(PyExc_TypeError, "pgn_move() takes a Move, not %.80s", Py_TYPE(arg)->tp_name);
    move_t m = ((MoveObject *)arg)->code;
    char t[MOVE_TEXT_LEN], buf[COMPAT_MOVE_TEXT_LEN];
    move_format(m, t);
    if (!game_is_legal_move(&b->game, m))
        return PyErr_Format(IllegalMoveError, "%s is not a legal move here", t);
    if (compat_move_format(m, game_position(&b->game)->side, buf) == 0)
        return PyErr_Format(NotationError, "%s has no token in the package's notation", t);
    return PyUnicode_FromString(buf);
}

static PyObject *Board_parse_pgn_move(PyObject *self, PyObject *arg)
{
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    const char *text = PyUnicode_Check(arg) ? move_text_arg(arg) : NULL;
    if (!text) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "parse_pgn_move() takes a str, not %.80s", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    move_t m;
    char err[256] = "";
    compat_error_t e = compat_move_parse(game_position(&b->game), text, &m, err, sizeof err);
    if (e != COMPAT_OK)
        return compat_raise(e, IllegalMoveError, err);
    if (refuse_unplayable(&b->game, m))
        return NULL;
    return move_object(m);
}

static PyObject *Board_action_mask(PyObject *self, PyObject *unused)
{
    (void)unused;
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    uint8_t mask[COMPAT_ACTION_NB];
    compat_game_action_mask(&b->game, mask);
    return PyBytes_FromStringAndSize((const char *)mask, COMPAT_ACTION_NB);
}

static PyObject *Board_package_outcome_raw(PyObject *self, PyObject *unused)
{
    (void)unused;
    BoardObject *b = (BoardObject *)self;
    if (!board_ready(b))
        return NULL;
    game_result_t r;
    char err[256] = "";
    compat_error_t e = compat_game_result(&b->game, &r, err, sizeof err);
    if (e != COMPAT_OK)
        return compat_raise(e, NotationError, err);
    return outcome_tuple(r);
}

static PyGetSetDef Board_getset[] = {
    {"legal_moves", Board_get_legal_moves, NULL,
     "The moves legal now, as a new list of :class:`Move`: the rules of the position, minus under "
     "``forbid`` the moves that recreate an earlier position; empty once the game is over.", NULL},
    {"move_stack", Board_get_move_stack, NULL, "The moves played since the root, as a new list.", NULL},
    {"repetition", Board_get_repetition, Board_set_repetition,
     "The repetition rule, ``'forbid'`` (no position may be recreated once every goat is placed; the "
     "default) or ``'draw'`` (the third occurrence draws). Setting it applies from the next move on, as "
     "the protocol's ``Repetition`` option does.", NULL},
    {"turn", Board_get_int, NULL, "The side to move: :data:`GOATS` (0) or :data:`TIGERS` (1).", (void *)0},
    {"goats_in_hand", Board_get_int, NULL, "Goats still to place (0..20).", (void *)1},
    {"goats_captured", Board_get_int, NULL, "Goats captured so far (0..5).", (void *)2},
    {"tigers", Board_get_int, NULL, "The tigers' points as a bit set (bit 0 = A1 .. bit 24 = E5).", (void *)3},
    {"goats", Board_get_int, NULL, "The goats' points as a bit set (bit 0 = A1 .. bit 24 = E5).", (void *)4},
    {"key", Board_get_int, NULL, "A 64-bit Zobrist key of the position (board, side to move, goats in hand).",
     (void *)5},
    {"ply", Board_get_int, NULL, "Half-moves since the start of the game (the OBX move number; -1 unknown).",
     (void *)6},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Board_methods[] = {
    {"push", Board_push, METH_O,
     "push(move)\n--\n\nPlays a :class:`Move` or move text (``'C3'``, ``'a1b2'``, ``'mA1C3(B2)'``). "
     "Raises :class:`IllegalMoveError` with the engine's reason, the board unchanged, when the move is "
     "not legal (by the rules, after the end of the game, or recreating a position under ``forbid``).\n\n"
     ">>> b = Board()\n>>> b.push('C3')\n>>> b.push(Move('A1B2'))\n>>> b.obx()\n"
     "'XXXXT/XTXXX/XXGXX/XXXXX/TXXXT g @19 c0 mA1B2 #t1'"},
    {"pop", Board_pop, METH_NOARGS,
     "pop()\n--\n\nTakes back the last move and returns it (IndexError when none was played).\n\n"
     ">>> b = Board()\n>>> b.push('C3')\n>>> b.pop()\nMove('C3')"},
    {"peek", Board_peek, METH_NOARGS, "peek()\n--\n\nThe last move played (IndexError when none was played)."},
    {"perft", Board_perft, METH_O,
     "perft(depth)\n--\n\nThe number of leaves of the move tree to depth (the rules of this position; "
     "the repetition rule, which depends on the history, is not applied: the protocol's ``go perft``). "
     "Runs without the GIL.\n\n>>> Board().perft(3)\n5052"},
    {"result", Board_result, METH_NOARGS,
     "result()\n--\n\n``'goats'`` or ``'tigers'`` (the winner), ``'draw'``, or ``'*'`` while the game "
     "goes on.\n\n>>> Board().result()\n'*'"},
    {"_outcome", Board_outcome_raw, METH_NOARGS, NULL},
    {"is_game_over", Board_is_game_over, METH_NOARGS,
     "is_game_over()\n--\n\nWhether the game has ended (by the rules or by the repetition rule)."},
    {"obx", (PyCFunction)(void (*)(void))Board_obx, METH_VARARGS | METH_KEYWORDS,
     "obx(version=2)\n--\n\nThe position in OBX 2.0 (or 1.0) notation, with the last move and the move "
     "number.\n\n>>> Board().obx()\n'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #'\n>>> Board().obx(1)\n"
     "'T3T/5/5/5/T3T g g20 c0 - 0'"},
    {"root", Board_root, METH_NOARGS,
     "root()\n--\n\nA new board at the position the game started from (no moves played)."},
    {"copy", (PyCFunction)(void (*)(void))Board_copy, METH_VARARGS | METH_KEYWORDS,
     "copy(stack=True)\n--\n\nAn independent copy; with ``stack=False`` the copy starts at the current "
     "position without the history (so repetitions of earlier positions are no longer seen)."},
    {"__copy__", (PyCFunction)(void (*)(void))Board_copy, METH_VARARGS | METH_KEYWORDS, NULL},
    {"__deepcopy__", Board_deepcopy, METH_O, NULL},
    {"transform", Board_transform, METH_O,
     "transform(symmetry)\n--\n\nThe game (its start and every move) mapped by one of the board's 8 "
     "symmetries (0 is the identity; :data:`SYMMETRIES` names them), as a new board: its history, and so its "
     "repetitions, are the image of this one's.\n\n>>> b = Board()\n>>> b.push('A2')\n"
     ">>> b.transform(4).move_stack\n[Move('B1')]"},
    {"parse_move", Board_parse_move, METH_O,
     "parse_move(move)\n--\n\nThe :class:`Move` of move text (or a Move) if it is legal here; else "
     ":class:`IllegalMoveError` with the reason.\n\n>>> Board().parse_move('c3')\nMove('C3')"},
    {"is_legal", Board_is_legal, METH_O,
     "is_legal(move)\n--\n\nWhether the :class:`Move` (or move text) is legal now; text that is no move is "
     "not legal.\n\n>>> Board().is_legal('C3'), Board().is_legal(Move('A1B1'))\n(True, False)"},
    {"piece_at", Board_piece_at, METH_O,
     "piece_at(square)\n--\n\n``'T'``, ``'G'`` or None for a point 0 (A1) .. 24 (E5).\n\n"
     ">>> Board().piece_at(0)\n'T'"},
    {"from_fen", (PyCFunction)(void (*)(void))Board_from_fen, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "from_fen(fen, *, repetition='draw')\n--\n\nA board from the FEN of the Python ``baghchal`` package "
     "(``'B3B/5/5/5/B3B G 0'``: rows from row 1, ``B`` tigers, ``G`` goats, the side to move, the number of "
     "goat moves made), under that package's rule (``draw``) unless told. :class:`InvalidPositionError` with "
     "the reason otherwise.\n\n"
     ">>> Board.from_fen('B3B/5/2G2/5/B3B B 1').obx()\n'TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 - #g1'"},
    {"fen", Board_fen, METH_NOARGS,
     "fen()\n--\n\nThe position as the Python ``baghchal`` package's FEN. :class:`NotationError` when that "
     "notation cannot say it (a movement-phase position whose count of goat moves is unknown).\n\n"
     ">>> b = Board()\n>>> b.push('C3')\n>>> b.fen()\n'B3B/5/2G2/5/B3B B 1'"},
    {"from_pgn", (PyCFunction)(void (*)(void))Board_from_pgn, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "from_pgn(pgn, *, repetition='draw')\n--\n\nThe game of a PGN of the Python ``baghchal`` package "
     "(``'1. G33 B1122 2. G44'``), played from the start under the repetition rule given: by default that "
     "package's own (``draw``), so its games read as it played them, as :func:`libbaghchal.pgn.read_game` "
     "reads them. A move that is not legal raises :class:`IllegalMoveError` naming its ply; text that is not that PGN, "
     ":class:`NotationError`.\n\n>>> Board.from_pgn('1. G33 B1122').move_stack\n[Move('C3'), Move('A1B2')]"},
    {"pgn", Board_pgn, METH_NOARGS,
     "pgn()\n--\n\nThe game as the Python ``baghchal`` package's PGN (from the start position only; "
     ":class:`NotationError` otherwise, or for a game that goes on past that package's end).\n\n"
     ">>> b = Board.from_pgn('1. G33 B1122')\n>>> b.pgn()\n'1. G33 B1122'"},
    {"pgn_move", Board_pgn_move, METH_O,
     "pgn_move(move)\n--\n\nA legal :class:`Move` as the Python ``baghchal`` package's move token "
     "(``'G33'``, ``'G3344'``, ``'B1122'``, ``'Bx1133'``).\n\n>>> Board().pgn_move(Move('C3'))\n'G33'"},
    {"parse_pgn_move", Board_parse_pgn_move, METH_O,
     "parse_pgn_move(token)\n--\n\nThe legal :class:`Move` of a move token of the Python ``baghchal`` "
     "package; :class:`IllegalMoveError` otherwise.\n\n>>> Board().parse_pgn_move('G33')\nMove('C3')"},
    {"action_mask", Board_action_mask, METH_NOARGS,
     "action_mask()\n--\n\nThe legal moves as 217 bytes, 1 at the action of each legal move (see "
     ":attr:`Move.action`), 0 elsewhere; ``numpy.frombuffer(mask, dtype=numpy.uint8)`` makes it an array."
     "\n\n>>> sum(Board().action_mask())\n21"},
    {"_package_outcome", Board_package_outcome_raw, METH_NOARGS, NULL},
    {"is_repetition", (PyCFunction)(void (*)(void))Board_is_repetition, METH_VARARGS | METH_KEYWORDS,
     "is_repetition(count=3)\n--\n\nWhether the current position (board and side to move) occurred at least "
     "``count`` times in the game, itself included (python-chess's ``is_repetition``). Under ``draw`` the "
     "third occurrence ends the game; under ``forbid`` no position recurs once every goat is placed.\n\n"
     ">>> Board().is_repetition(1), Board().is_repetition()\n(True, False)"},
    {"can_claim_draw", Board_can_claim_draw, METH_NOARGS,
     "can_claim_draw()\n--\n\nUnder ``draw``: whether the game is drawn by repetition now or the side to "
     "move has a move that draws it (one that brings a position about for the third time). Always False "
     "under ``forbid``, where no game is drawn."},
    {"occurrences", Board_occurrences, METH_NOARGS,
     "occurrences()\n--\n\nHow often the current position (board and side to move) occurred in the game, "
     "itself included."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject BoardType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "libbaghchal._core.Board",
    .tp_basicsize = sizeof(BoardObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The C part of :class:`libbaghchal.Board`.",
    .tp_new = PyType_GenericNew,
    .tp_init = Board_init,
    .tp_richcompare = Board_richcompare,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_dealloc = Board_dealloc,
    .tp_getset = Board_getset,
    .tp_methods = Board_methods,
};

/* Takes a board for a call that runs without the GIL: it refuses changes until released. */
static BoardObject *board_borrow(PyObject *arg)
{
    if (!PyObject_TypeCheck(arg, &BoardType)) {
        PyErr_Format(PyExc_TypeError, "expected a Board, not %.80s", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    BoardObject *b = (BoardObject *)arg;
    if (!board_ready(b))
        return NULL;
    b->busy++;
    return b;
}

static void board_release(BoardObject *b) { b->busy--; }

/* ---- the databases ---------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    tb_t *tb;
    fb_prover_t *prover; /* the forbid settler's, made at its first use */
    PyThread_type_lock prover_lock;
    int users; /* calls running without the GIL */
    PyObject *path;
} TablebaseObject;

static void Tablebase_dealloc(PyObject *self)
{
    TablebaseObject *t = (TablebaseObject *)self;
    tb_close(t->tb);
    fb_prover_free(t->prover);
    if (t->prover_lock)
        PyThread_free_lock(t->prover_lock);
    Py_XDECREF(t->path);
    Py_TYPE(self)->tp_free(self);
}

static int Tablebase_init(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"path", NULL};
    TablebaseObject *t = (TablebaseObject *)self;
    PyObject *path_arg = Py_None, *bytes = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:Tablebase", kwlist, &path_arg))
        return -1;
    if (t->tb || t->users) {
        PyErr_SetString(BusyError, "the database is open already");
        return -1;
    }
    char dir[TB_PATH_MAX];
    if (path_arg == Py_None) {
        if (!tb_default_dir(dir, sizeof dir)) {
            PyErr_SetString(TablebaseError, "no standard folder: " TB_PATH_ENV " turns it off, or there is no home");
            return -1;
        }
    } else {
        if (!PyUnicode_FSConverter(path_arg, &bytes))
            return -1;
        const char *s = PyBytes_AS_STRING(bytes);
        size_t len = (size_t)PyBytes_GET_SIZE(bytes);
        if (len == 0 || len >= sizeof dir || strlen(s) != len) {
            Py_DECREF(bytes);
            PyErr_SetString(TablebaseError, len == 0 ? "empty database path" : "bad database path");
            return -1;
        }
        memcpy(dir, s, len + 1);
        Py_DECREF(bytes);
    }
    if (!t->prover_lock && !(t->prover_lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        return -1;
    }
    char msg[512] = "";
    tb_t *tb = NULL;
    tb_error_t e;
    Py_BEGIN_ALLOW_THREADS
    e = tb_open_game(dir, &tb, msg, sizeof msg);
    Py_END_ALLOW_THREADS
    if (e == TB_ERR_NO_MEMORY) {
        PyErr_NoMemory();
        return -1;
    }
    if (e != TB_OK) {
        PyErr_Format(TablebaseError, "tablebase not loaded: %s", msg);
        return -1;
    }
    PyObject *path = PyUnicode_DecodeFSDefault(dir);
    if (!path) {
        tb_close(tb);
        return -1;
    }
    t->tb = tb;
    Py_XSETREF(t->path, path);
    return 0;
}

/* Takes the handle for a call without the GIL; NULL (an exception set) when closed. */
static TablebaseObject *tb_borrow(PyObject *self)
{
    TablebaseObject *t = (TablebaseObject *)self;
    if (!t->tb) {
        PyErr_SetString(TablebaseError, "the database is closed");
        return NULL;
    }
    t->users++;
    return t;
}

/* tb_borrow and board_borrow (arg a Board) together; NULL (an exception set, nothing taken)
 * when either fails. */
static TablebaseObject *tb_borrow_board(PyObject *self, PyObject *arg, BoardObject **b)
{
    TablebaseObject *t = tb_borrow(self);
    if (t && !(*b = board_borrow(arg))) {
        t->users--;
        return NULL;
    }
    return t;
}

static PyObject *tb_value_tuple(const char *result, int distance, bool proved, const char *text)
{
    if (distance == TB_DISTANCE_UNKNOWN)
        return Py_BuildValue("(sOOs)", result, Py_None, proved ? Py_True : Py_False, text);
    return Py_BuildValue("(siOs)", result, distance, proved ? Py_True : Py_False, text);
}

static PyObject *tbr_value_tuple(const tbr_value_t *v)
{
    return tb_value_tuple(tbr_result_name(v->result), v->distance, v->proved, v->text);
}

/* tbr_position (n NULL) or tbr_moves of the board's game, without the GIL, then gives the
 * handle and the board back. The prover is one per handle: under forbid one report at a time
 * holds it (a game under `draw` needs none). */
static tbr_status_t tb_report(TablebaseObject *t, BoardObject *b, tbr_value_t *vals, int *n)
{
    const game_t *g = &b->game;
    bool locked = g->rule == REP_FORBID;
    tbr_status_t st;
    Py_BEGIN_ALLOW_THREADS
    if (locked)
        PyThread_acquire_lock(t->prover_lock, WAIT_LOCK);
    st = n ? tbr_moves(t->tb, &t->prover, g, vals, n) : tbr_position(t->tb, &t->prover, g, vals);
    if (locked)
        PyThread_release_lock(t->prover_lock);
    Py_END_ALLOW_THREADS
    board_release(b);
    t->users--;
    return st;
}

/* KeyError for a position with goats in hand that the movement file alone cannot answer:
 * which file is missing from which folder, and the command that builds it. */
static PyObject *not_covered(TablebaseObject *t, bool child)
{
    PyObject *dir = t->path ? t->path : Py_None;
    PyObject *msg = PyUnicode_FromFormat(
        "%s goats in hand, and the placement-phase file " TBP_FILE_NAME " is not in %R (only the movement "
        "file " TB_FILE_NAME " is): build it with `baghchal-tbgen %S --placement`",
        child ? "a move leads to a position with" : "the position has", dir, dir);
    if (msg) {
        PyErr_SetObject(PyExc_KeyError, msg);
        Py_DECREF(msg);
    }
    return NULL;
}

/* The exception for a report that failed (tbreport.h); NULL. */
static PyObject *tbr_raise(TablebaseObject *t, tbr_status_t st)
{
    if (st == TBR_NO_MEMORY)
        return PyErr_NoMemory();
    return not_covered(t, st == TBR_CHILD_NOT_COVERED);
}

/* What the protocol's tbprobe says of the position: (result, distance, proved, text). */
static PyObject *Tablebase_probe(PyObject *self, PyObject *arg)
{
    BoardObject *b;
    TablebaseObject *t = tb_borrow_board(self, arg, &b);
    if (!t)
        return NULL;
    tbr_value_t v;
    tbr_status_t st = tb_report(t, b, &v, NULL);
    return st == TBR_OK ? tbr_value_tuple(&v) : tbr_raise(t, st);
}

/* The database's own value of the position alone (the draw rule, no history); false with an
 * exception set when it is not covered or the handle is closed. */
static bool tb_value_of(PyObject *self, PyObject *arg, tb_value_t *v)
{
    BoardObject *b;
    TablebaseObject *t = tb_borrow_board(self, arg, &b);
    if (!t)
        return false;
    position_t p = *game_position(&b->game);
    board_release(b);
    bool covered;
    Py_BEGIN_ALLOW_THREADS
    covered = tb_probe(t->tb, &p, v);
    Py_END_ALLOW_THREADS
    t->users--;
    if (!covered)
        not_covered(t, false);
    return covered;
}

static PyObject *Tablebase_probe_wdl(PyObject *self, PyObject *arg)
{
    tb_value_t v;
    return tb_value_of(self, arg, &v) ? PyLong_FromLong((long)v.wdl) : NULL;
}

static PyObject *Tablebase_probe_distance(PyObject *self, PyObject *arg)
{
    tb_value_t v;
    if (!tb_value_of(self, arg, &v))
        return NULL;
    if (v.distance == TB_DISTANCE_UNKNOWN)
        Py_RETURN_NONE;
    return PyLong_FromLong((long)v.distance);
}

/* Every legal move with its value for the side that makes it, best first, as tbprobe lists them. */
static PyObject *Tablebase_rank_moves(PyObject *self, PyObject *arg)
{
    BoardObject *b;
    TablebaseObject *t = tb_borrow_board(self, arg, &b);
    if (!t)
        return NULL;
    tbr_value_t vals[MAX_MOVES];
    int n;
    tbr_status_t st = tb_report(t, b, vals, &n);
    if (st != TBR_OK)
        return tbr_raise(t, st);
    PyObject *out = PyList_New(n);
    for (int i = 0; out && i < n; i++) {
        PyObject *item = Py_BuildValue("(NN)", move_object(vals[i].move), tbr_value_tuple(&vals[i]));
        if (!item)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, item);
    }
    return out;
}

/* _bench_probe(boards, rounds): the C probe alone over the boards' positions, the same loop the
 * Python benchmark runs through probe_wdl: (probes, seconds, a checksum of the values). */
static PyObject *Tablebase_bench_probe(PyObject *self, PyObject *args)
{
    PyObject *list;
    long rounds;
    if (!PyArg_ParseTuple(args, "O!l:_bench_probe", &PyList_Type, &list, &rounds))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(list);
    position_t *pos = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *pos);
    if (!pos)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *b = PyList_GET_ITEM(list, i);
        if (!PyObject_TypeCheck(b, &BoardType) || !board_ready((BoardObject *)b)) {
            PyMem_Free(pos);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "_bench_probe takes a list of boards");
            return NULL;
        }
        pos[i] = *game_position(&((BoardObject *)b)->game);
    }
    TablebaseObject *t = tb_borrow(self);
    if (!t) {
        PyMem_Free(pos);
        return NULL;
    }
    uint64_t probes = 0, sum = 0;
    struct timespec t0, t1;
    Py_BEGIN_ALLOW_THREADS
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long r = 0; r < rounds; r++)
        for (Py_ssize_t i = 0; i < n; i++) {
            tb_value_t v;
            if (tb_probe(t->tb, &pos[i], &v))
                sum += (uint64_t)(v.wdl + 1) + v.distance;
            probes++;
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    Py_END_ALLOW_THREADS
    t->users--;
    PyMem_Free(pos);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    return Py_BuildValue("(KdK)", (unsigned long long)probes, seconds, (unsigned long long)sum);
}

static PyObject *Tablebase_close(PyObject *self, PyObject *unused)
{
    (void)unused;
    TablebaseObject *t = (TablebaseObject *)self;
    if (t->users) {
        PyErr_SetString(BusyError, "the database is in use by another thread");
        return NULL;
    }
    tb_close(t->tb);
    t->tb = NULL;
    Py_RETURN_NONE;
}

static PyObject *Tablebase_get_closed(PyObject *self, void *c)
{
    (void)c;
    return PyBool_FromLong(((TablebaseObject *)self)->tb == NULL);
}

static PyObject *Tablebase_get_path(PyObject *self, void *c)
{
    (void)c;
    TablebaseObject *t = (TablebaseObject *)self;
    if (!t->path)
        Py_RETURN_NONE;
    Py_INCREF(t->path);
    return t->path;
}

static PyObject *Tablebase_get_has_placement(PyObject *self, void *c)
{
    (void)c;
    TablebaseObject *t = (TablebaseObject *)self;
    if (!t->tb) {
        PyErr_SetString(TablebaseError, "the database is closed");
        return NULL;
    }
    return PyBool_FromLong(tb_has_placement(t->tb));
}

static PyGetSetDef Tablebase_getset[] = {
    {"closed", Tablebase_get_closed, NULL, "Whether :meth:`close` was called (or opening failed).", NULL},
    {"path", Tablebase_get_path, NULL, "The folder the files were read from.", NULL},
    {"has_placement", Tablebase_get_has_placement, NULL,
     "Whether the placement-phase file was found too (then positions with goats in hand are answered).",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Tablebase_methods[] = {
    {"_probe", Tablebase_probe, METH_O, NULL},
    {"probe_wdl", Tablebase_probe_wdl, METH_O,
     "probe_wdl(board)\n--\n\nThe database's own value of the current position alone, under the draw rule "
     "and without the game's history, as an int for the side to move: 1 (win), 0 (draw) or -1 (loss), as "
     "python-chess's ``chess.syzygy`` gives its WDL. KeyError when not covered (goats in hand without the "
     "placement file: the message names it and the command that builds it). The fastest probe."},
    {"probe_distance", Tablebase_probe_distance, METH_O,
     "probe_distance(board)\n--\n\nThe database's distance of the current position alone: the plies to the "
     "end under best play (draw rule, no history), None for a draw or where the placement file stores none. "
     "KeyError when not covered."},
    {"_rank_moves", Tablebase_rank_moves, METH_O, NULL},
    {"_bench_probe", Tablebase_bench_probe, METH_VARARGS, NULL},
    {"close", Tablebase_close, METH_NOARGS,
     "close()\n--\n\nReleases the files (BusyError while another thread probes). Probing afterwards "
     "raises :class:`TablebaseError`; closing twice is harmless."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TablebaseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "libbaghchal._core.Tablebase",
    .tp_basicsize = sizeof(TablebaseObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The C part of :class:`libbaghchal.Tablebase`.",
    .tp_new = PyType_GenericNew,
    .tp_init = Tablebase_init,
    .tp_dealloc = Tablebase_dealloc,
    .tp_getset = Tablebase_getset,
    .tp_methods = Tablebase_methods,
};

/* ---- the engine ------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    engine_t *e;
    bool busy; /* a call runs without the GIL */
    /* What the search reported, written on the searching thread without the GIL. */
    search_info_t lines[MAX_MULTIPV];
    bool have[MAX_MULTIPV];
    move_t best, ponder;
    search_info_t final;
} EngineObject;

static void Engine_dealloc(PyObject *self)
{
    EngineObject *o = (EngineObject *)self;
    if (o->e) {
        Py_BEGIN_ALLOW_THREADS
        engine_free(o->e);
        Py_END_ALLOW_THREADS
    }
    Py_TYPE(self)->tp_free(self);
}

static EngineObject *engine_take(PyObject *self)
{
    EngineObject *o = (EngineObject *)self;
    if (!o->e) {
        PyErr_SetString(EngineError, "the engine is closed");
        return NULL;
    }
    if (o->busy) {
        PyErr_SetString(BusyError, "the engine is searching in another thread");
        return NULL;
    }
    o->busy = true;
    return o;
}

/* Opens dir (NULL: the standard folder when it holds a database; "": none). */
static bool engine_open_tb(EngineObject *o, const char *dir)
{
    char def[TB_PATH_MAX], msg[512] = "";
    if (!dir) {
        if (!tb_default_dir(def, sizeof def) || !tb_dir_has_database(def))
            return true;
        dir = def;
    }
    tb_error_t e;
    Py_BEGIN_ALLOW_THREADS
    e = engine_set_tablebase(o->e, dir, msg, sizeof msg);
    Py_END_ALLOW_THREADS
    if (e != TB_OK) {
        PyErr_Format(TablebaseError, "tablebase not loaded: %s", msg);
        return false;
    }
    return true;
}

static int Engine_init(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"tablebase_path", NULL};
    EngineObject *o = (EngineObject *)self;
    PyObject *path_arg = Py_None, *bytes = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:Engine", kwlist, &path_arg))
        return -1;
    if (o->e) {
        PyErr_SetString(BusyError, "the engine is made already");
        return -1;
    }
    if (path_arg != Py_None && !PyUnicode_FSConverter(path_arg, &bytes))
        return -1;
    if (bytes && strlen(PyBytes_AS_STRING(bytes)) != (size_t)PyBytes_GET_SIZE(bytes)) {
        Py_DECREF(bytes);
        PyErr_SetString(TablebaseError, "bad database path");
        return -1;
    }
    engine_t *e;
    Py_BEGIN_ALLOW_THREADS
    e = engine_new();
    Py_END_ALLOW_THREADS
    if (!e) {
        Py_XDECREF(bytes);
        PyErr_NoMemory();
        return -1;
    }
    o->e = e;
    o->busy = true;
    bool ok = engine_open_tb(o, bytes ? PyBytes_AS_STRING(bytes) : NULL);
    o->busy = false;
    Py_XDECREF(bytes);
    if (!ok) {
        engine_free(o->e);
        o->e = NULL;
        return -1;
    }
    return 0;
}

static void on_info(void *ctx, const search_info_t *info)
{
    EngineObject *o = ctx;
    if (info->multipv >= 1 && info->multipv <= MAX_MULTIPV) {
        o->lines[info->multipv - 1] = *info;
        o->have[info->multipv - 1] = true;
    }
}

static void on_bestmove(void *ctx, move_t best, move_t ponder, const search_info_t *final)
{
    EngineObject *o = ctx;
    o->best = best;
    o->ponder = ponder;
    o->final = *final;
}

static PyObject *info_tuple(const search_info_t *i)
{
    PyObject *pv = PyList_New(i->pv_len);
    if (!pv)
        return NULL;
    for (int k = 0; k < i->pv_len; k++)
        PyList_SET_ITEM(pv, k, move_object(i->pv[k]));
    int mate = score_is_mate(i->score) ? score_mate_moves(i->score) : 0;
    return Py_BuildValue("{s:i,s:i,s:i,s:i,s:O,s:i,s:K,s:K,s:K,s:i,s:L,s:N}", "depth", i->depth, "seldepth",
                         i->seldepth, "multipv", i->multipv, "score", i->score, "mate",
                         score_is_mate(i->score) ? PyLong_FromLong(mate) : (Py_INCREF(Py_None), Py_None), "bound",
                         i->bound, "nodes", (unsigned long long)i->nodes, "nps", (unsigned long long)i->nps,
                         "tbhits", (unsigned long long)i->tbhits, "hashfull", i->hashfull, "time",
                         (long long)i->time_ms, "pv", pv);
}

typedef struct {
    engine_t *e;
    sigcheck_t sig;
} search_signals_t;

/* The search's poll (every 256 nodes on each searching thread): a handler that raises on the
 * caller's thread stops the search. */
static void search_poll(void *ctx)
{
    search_signals_t *s = ctx;
    if (sigcheck_poll(&s->sig))
        engine_abort(s->e);
}

/* _search(board, depth, nodes, movetime, multipv, searchmoves) -> (best, ponder, final, lines) */
static PyObject *Engine_search(PyObject *self, PyObject *args)
{
    PyObject *board_arg, *searchmoves, *nodes_arg;
    int depth, multipv;
    long long movetime;
    if (!PyArg_ParseTuple(args, "OiOLiO:_search", &board_arg, &depth, &nodes_arg, &movetime, &multipv, &searchmoves))
        return NULL;
    unsigned long long nodes = PyLong_AsUnsignedLongLong(nodes_arg);
    if (nodes == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    if (!PyObject_TypeCheck(board_arg, &BoardType))
        return PyErr_Format(PyExc_TypeError, "expected a Board, not %.80s", Py_TYPE(board_arg)->tp_name);
    BoardObject *b = (BoardObject *)board_arg;
    if (!board_ready(b))
        return NULL;
    if (depth <= 0 && nodes == 0 && movetime <= 0)
        return PyErr_Format(PyExc_ValueError, "a search needs a limit that ends it: depth, nodes or movetime");
    search_limits_t l;
    search_limits_init(&l);
    l.depth = depth <= 0 ? 0 : depth > MAX_PLY - 1 ? MAX_PLY - 1 : depth;
    l.nodes = nodes;
    l.movetime = movetime <= 0 ? 0 : movetime;
    if (searchmoves != Py_None) {
        PyObject *seq = PySequence_Fast(searchmoves, "searchmoves must be a sequence of moves");
        if (!seq)
            return NULL;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *m = PySequence_Fast_GET_ITEM(seq, i);
            if (!Py_IS_TYPE(m, &MoveType)) {
                Py_DECREF(seq);
                return PyErr_Format(PyExc_TypeError, "searchmoves must hold Move objects");
            }
            if (l.searchmoves_nb < MAX_MOVES)
                l.searchmoves[l.searchmoves_nb++] = ((MoveObject *)m)->code;
        }
        Py_DECREF(seq);
        for (int i = 0; i < l.searchmoves_nb; i++) {
            if (!game_is_legal_move(&b->game, l.searchmoves[i])) {
                char t[MOVE_TEXT_LEN];
                move_format(l.searchmoves[i], t);
                return PyErr_Format(IllegalMoveError, "searchmoves: %s is not legal here", t);
            }
        }
    }
    EngineObject *o = engine_take(self);
    if (!o)
        return NULL;
    /* The engine copies the game: the board is free again once the search starts. */
    if (!engine_set_game(o->e, &b->game)) {
        o->busy = false;
        return PyErr_NoMemory();
    }
    engine_set_multipv(o->e, multipv);
    memset(o->have, 0, sizeof o->have);
    o->best = o->ponder = MOVE_NONE;
    memset(&o->final, 0, sizeof o->final);
    search_report_t report = {on_info, on_bestmove, o};
    search_signals_t sig = {.e = o->e};
    engine_set_poll(o->e, search_poll, &sig);
    sigcheck_begin(&sig.sig);
    engine_search_sync(o->e, &l, &report);
    bool ok = sigcheck_end(&sig.sig);
    engine_set_poll(o->e, NULL, NULL);
    o->busy = false;
    if (!ok)
        return NULL;
    PyObject *lines = PyList_New(0);
    if (!lines)
        return NULL;
    for (int i = 0; i < MAX_MULTIPV; i++) {
        if (!o->have[i])
            continue;
        PyObject *t = info_tuple(&o->lines[i]);
        if (!t || PyList_Append(lines, t) < 0) {
            Py_XDECREF(t);
            Py_DECREF(lines);
            return NULL;
        }
        Py_DECREF(t);
    }
    PyObject *best = o->best == MOVE_NONE ? (Py_INCREF(Py_None), Py_None) : move_object(o->best);
    PyObject *ponder = o->ponder == MOVE_NONE ? (Py_INCREF(Py_None), Py_None) : move_object(o->ponder);
    return Py_BuildValue("(NNNN)", best, ponder, info_tuple(&o->final), lines);
}

static PyObject *Engine_stop(PyObject *self, PyObject *unused)
{
    (void)unused;
    EngineObject *o = (EngineObject *)self;
    if (o->e)
        engine_abort(o->e);
    Py_RETURN_NONE;
}

static PyObject *Engine_clear(PyObject *self, PyObject *unused)
{
    (void)unused;
    EngineObject *o = engine_take(self);
    if (!o)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    engine_clear(o->e);
    Py_END_ALLOW_THREADS
    o->busy = false;
    Py_RETURN_NONE;
}

static PyObject *Engine_set_option(PyObject *self, PyObject *args)
{
    const char *name;
    long long v1 = 0, v2 = 0, v3 = 0;
    if (!PyArg_ParseTuple(args, "s|LLL:_set", &name, &v1, &v2, &v3))
        return NULL;
    EngineObject *o = engine_take(self);
    if (!o)
        return NULL;
    bool ok = true;
    if (strcmp(name, "hash") == 0) {
        Py_BEGIN_ALLOW_THREADS
        ok = engine_set_hash(o->e, (size_t)v1);
        Py_END_ALLOW_THREADS
    } else if (strcmp(name, "threads") == 0) {
        ok = engine_set_threads(o->e, (int)v1);
    } else if (strcmp(name, "skill") == 0) {
        engine_set_skill(o->e, (int)v1, v2 != 0, (int)v3);
    } else if (strcmp(name, "overhead") == 0) {
        engine_set_move_overhead(o->e, (int)v1);
    } else {
        o->busy = false;
        return PyErr_Format(PyExc_ValueError, "unknown engine setting '%s'", name);
    }
    o->busy = false;
    if (!ok)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *Engine_set_tablebase(PyObject *self, PyObject *arg)
{
    PyObject *bytes = NULL;
    if (arg != Py_None && !PyUnicode_FSConverter(arg, &bytes))
        return NULL;
    if (bytes && strlen(PyBytes_AS_STRING(bytes)) != (size_t)PyBytes_GET_SIZE(bytes)) {
        Py_DECREF(bytes);
        PyErr_SetString(TablebaseError, "bad database path");
        return NULL;
    }
    EngineObject *o = engine_take(self);
    if (!o) {
        Py_XDECREF(bytes);
        return NULL;
    }
    bool ok = engine_open_tb(o, bytes ? PyBytes_AS_STRING(bytes) : NULL);
    o->busy = false;
    Py_XDECREF(bytes);
    if (!ok)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Engine_info(PyObject *self, PyObject *unused)
{
    (void)unused;
    EngineObject *o = engine_take(self);
    if (!o)
        return NULL;
    const tb_t *tb = engine_tablebase(o->e);
    PyObject *r = Py_BuildValue("{s:n,s:i,s:O,s:O}", "hash_mb", (Py_ssize_t)engine_hash_mb(o->e), "threads",
                                engine_search_threads(o->e), "tablebase", tb ? Py_True : Py_False, "placement",
                                tb && tb_has_placement(tb) ? Py_True : Py_False);
    o->busy = false;
    return r;
}

static PyObject *Engine_close(PyObject *self, PyObject *unused)
{
    (void)unused;
    EngineObject *o = (EngineObject *)self;
    if (!o->e)
        Py_RETURN_NONE;
    if (o->busy) {
        PyErr_SetString(BusyError, "the engine is searching in another thread");
        return NULL;
    }
    engine_t *e = o->e;
    o->e = NULL;
    Py_BEGIN_ALLOW_THREADS
    engine_free(e);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *Engine_get_closed(PyObject *self, void *c)
{
    (void)c;
    return PyBool_FromLong(((EngineObject *)self)->e == NULL);
}

static PyGetSetDef Engine_getset[] = {
    {"closed", Engine_get_closed, NULL, "Whether :meth:`close` was called.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Engine_methods[] = {
    {"_search", Engine_search, METH_VARARGS, NULL},
    {"_set", Engine_set_option, METH_VARARGS, NULL},
    {"_set_tablebase", Engine_set_tablebase, METH_O, NULL},
    {"_info", Engine_info, METH_NOARGS, NULL},
    {"stop", Engine_stop, METH_NOARGS,
     "stop()\n--\n\nEnds the running search (from any thread): it returns at once with its best move so far. "
     "Harmless when idle."},
    {"clear", Engine_clear, METH_NOARGS,
     "clear()\n--\n\nA new game (the protocol's ``ucinewgame``): clears the hash table, the move-ordering "
     "statistics and the skill generator's seed, so the next search repeats exactly."},
    {"close", Engine_close, METH_NOARGS,
     "close()\n--\n\nFrees the engine (BusyError while it searches); later calls raise :class:`EngineError`."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject EngineType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "libbaghchal._core.Engine",
    .tp_basicsize = sizeof(EngineObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The C part of :class:`libbaghchal.Engine`.",
    .tp_new = PyType_GenericNew,
    .tp_init = Engine_init,
    .tp_dealloc = Engine_dealloc,
    .tp_getset = Engine_getset,
    .tp_methods = Engine_methods,
};


/* ---- many games at once, for learning ------------------------------------------------ */

/* N games stepped by one call: actions in (the 217 actions of the Python baghchal package),
 * observation planes, masks, rewards and ends out, into numpy arrays the caller owns (any
 * buffer of the right type and size). A game that ends is started again in the same call
 * (its end is what the call reports). With an agent side, the other side's moves are random
 * legal moves made here, from a generator per game. */

enum { VEC_PLANES = 6, VEC_OBS = VEC_PLANES * SQUARE_NB };

typedef struct {
    PyObject_HEAD
    Py_ssize_t n;
    game_t *games;
    uint64_t *rng;
    move_t (*legal)[MAX_MOVES]; /* each game's legal moves now (vec_refresh) */
    int *legal_n;
    int agent_side; /* -1: both sides are the caller's */
    int max_plies;  /* 0: none */
    rep_rule_t rule;
    uint64_t finished; /* games ended so far */
} VecGamesObject;

static uint64_t vec_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    *s = x;
    return x * UINT64_C(0x2545F4914F6CDD1D);
}

static uint64_t vec_seed(uint64_t seed, Py_ssize_t i)
{
    uint64_t z = seed + UINT64_C(0x9E3779B97F4A7C15) * (uint64_t)(i + 1);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31;
    return z ? z : 1;
}

static void VecGames_dealloc(PyObject *self)
{
    VecGamesObject *v = (VecGamesObject *)self;
    for (Py_ssize_t i = 0; v->games && i < v->n; i++)
        game_free(&v->games[i]);
    PyMem_Free(v->games);
    PyMem_Free(v->rng);
    PyMem_Free(v->legal);
    PyMem_Free(v->legal_n);
    Py_TYPE(self)->tp_free(self);
}

/* A random legal move of game i (MOVE_NONE when over). */
static move_t vec_random_move(VecGamesObject *v, Py_ssize_t i)
{
    move_t list[MAX_MOVES];
    int n = game_legal_moves(&v->games[i], list);
    return n ? list[(vec_next(&v->rng[i]) >> 32) % (uint64_t)n] : MOVE_NONE;
}

/* The opponent's moves while it is to move and the game goes on. */
static bool vec_opponent(VecGamesObject *v, Py_ssize_t i)
{
    game_t *g = &v->games[i];
    while (v->agent_side >= 0 && game_position(g)->side != v->agent_side &&
           (v->max_plies == 0 || g->count < (size_t)v->max_plies)) {
        move_t m = vec_random_move(v, i);
        if (m == MOVE_NONE)
            break;
        if (game_play(g, m, NULL, 0) != BC_OK)
            return false;
    }
    return true;
}

/* Game i's legal moves, worked out once per position for its end, mask and random actions. */
static int vec_refresh(VecGamesObject *v, Py_ssize_t i)
{
    return v->legal_n[i] = game_legal_moves(&v->games[i], v->legal[i]);
}

static bool vec_restart(VecGamesObject *v, Py_ssize_t i)
{
    position_t start;
    position_set_start(&start);
    game_t g;
    if (!game_init(&g, &start, NULL, v->rule))
        return false;
    game_free(&v->games[i]);
    v->games[i] = g;
    bool ok = vec_opponent(v, i);
    vec_refresh(v, i);
    return ok;
}

static int VecGames_init(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"n", "repetition", "max_plies", "agent_side", "seed", NULL};
    VecGamesObject *v = (VecGamesObject *)self;
    Py_ssize_t n;
    const char *rule_text = "forbid";
    int max_plies = 0;
    PyObject *side_arg = Py_None;
    unsigned long long seed = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "n|$siOK:VecGames", kwlist, &n, &rule_text, &max_plies, &side_arg,
                                     &seed))
        return -1;
    if (v->games) {
        PyErr_SetString(PyExc_RuntimeError, "VecGames is made already");
        return -1;
    }
    if (n < 1 || n > (1 << 24)) {
        PyErr_Format(PyExc_ValueError, "the number of games must be from 1 to %d, not %zd", 1 << 24, n);
        return -1;
    }
    if (max_plies < 0) {
        PyErr_Format(PyExc_ValueError, "max_plies must be 0 (none) or positive, not %d", max_plies);
        return -1;
    }
    int side = -1;
    if (side_arg != Py_None && !index_arg(side_arg, SIDE_NB, "agent_side", &side))
        return -1;
    if (!parse_rule(rule_text, &v->rule))
        return -1;
    v->games = PyMem_Calloc((size_t)n, sizeof *v->games);
    v->rng = PyMem_Calloc((size_t)n, sizeof *v->rng);
    v->legal = PyMem_Calloc((size_t)n, sizeof *v->legal);
    v->legal_n = PyMem_Calloc((size_t)n, sizeof *v->legal_n);
    if (!v->games || !v->rng || !v->legal || !v->legal_n) {
        PyMem_Free(v->games), PyMem_Free(v->rng), PyMem_Free(v->legal), PyMem_Free(v->legal_n);
        v->games = NULL, v->rng = NULL, v->legal = NULL, v->legal_n = NULL;
        PyErr_NoMemory();
        return -1;
    }
    v->n = n;
    v->agent_side = side;
    v->max_plies = max_plies;
    for (Py_ssize_t i = 0; i < n; i++) {
        v->rng[i] = vec_seed(seed, i);
        position_t start;
        position_set_start(&start);
        if (!game_init(&v->games[i], &start, NULL, v->rule)) {
            PyErr_NoMemory();
            return -1;
        }
        vec_refresh(v, i);
    }
    return 0;
}

/* A writable C-contiguous buffer of n items of the format given ('f' float32, 'b' int8,
 * 'q' int64, '?' bool); false with an exception set otherwise. */
static bool vec_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t items, char format, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return false;
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@')
        f++;
    char got = *f == 'l' && view->itemsize == 8 ? 'q' : *f;
    if (got != format || f[1] || view->len != items * view->itemsize) {
        PyErr_Format(PyExc_ValueError, "%s must be a writable C-contiguous array of %zd %s", what, items,
                     format == 'f' ? "float32" : format == 'b' ? "int8" : format == 'q' ? "int64" : "bool");
        PyBuffer_Release(view);
        return false;
    }
    return true;
}

/* Planes and mask of game i into obs (VEC_OBS floats) and mask (COMPAT_ACTION_NB bytes). */
static void vec_observe(VecGamesObject *v, Py_ssize_t i, float *obs, int8_t *mask)
{
    const position_t *p = game_position(&v->games[i]);
    const uint32_t tigers = (uint32_t)p->tigers, goats = (uint32_t)p->goats;
    const float side = p->side == TIGERS ? 1.0f : 0.0f, hand = (float)p->in_hand / 20.0f,
                captured = (float)p->captured / 5.0f;
    for (int sq = 0; sq < SQUARE_NB; sq++) {
        float t = (float)((tigers >> sq) & 1u), gt = (float)((goats >> sq) & 1u);
        obs[sq] = t;
        obs[SQUARE_NB + sq] = gt;
        obs[2 * SQUARE_NB + sq] = 1.0f - t - gt;
    }
    for (int sq = 0; sq < SQUARE_NB; sq++) {
        obs[3 * SQUARE_NB + sq] = side;
        obs[4 * SQUARE_NB + sq] = hand;
        obs[5 * SQUARE_NB + sq] = captured;
    }
    memset(mask, 0, COMPAT_ACTION_NB);
    for (int k = 0; k < v->legal_n[i]; k++)
        mask[action_of_code[v->legal[i][k] & (MOVE_CODES - 1)]] = 1;
}

/* reset(obs, mask, seed=None): every game from the start. */
static PyObject *VecGames_reset(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"obs", "mask", "seed", NULL};
    VecGamesObject *v = (VecGamesObject *)self;
    PyObject *obs_arg, *mask_arg, *seed_arg = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O:reset", kwlist, &obs_arg, &mask_arg, &seed_arg))
        return NULL;
    if (seed_arg != Py_None) {
        unsigned long long seed = PyLong_AsUnsignedLongLongMask(seed_arg);
        if (PyErr_Occurred())
            return NULL;
        for (Py_ssize_t i = 0; i < v->n; i++)
            v->rng[i] = vec_seed(seed, i);
    }
    Py_buffer ob, mb;
    if (!vec_buffer(obs_arg, &ob, v->n * VEC_OBS, 'f', "obs"))
        return NULL;
    if (!vec_buffer(mask_arg, &mb, v->n * COMPAT_ACTION_NB, 'b', "mask")) {
        PyBuffer_Release(&ob);
        return NULL;
    }
    bool ok = true;
    for (Py_ssize_t i = 0; i < v->n && ok; i++) {
        ok = vec_restart(v, i);
        vec_observe(v, i, (float *)ob.buf + i * VEC_OBS, (int8_t *)mb.buf + i * COMPAT_ACTION_NB);
    }
    PyBuffer_Release(&ob);
    PyBuffer_Release(&mb);
    if (!ok)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* step(actions, obs, mask, rewards, terminated, truncated, illegal): one action for each game
 * (the caller's side to move). An action that is not legal ends that game as a loss for the
 * side that chose it (illegal[i] set, the board unchanged). Rewards are for that side: 1 for
 * a win, -1 for a loss, 0 otherwise. A game that ended is started again; obs and mask are
 * then the new game's. Runs without the GIL. Returns the number of games that ended. */
static PyObject *VecGames_step(PyObject *self, PyObject *args)
{
    VecGamesObject *v = (VecGamesObject *)self;
    PyObject *arg[7];
    if (!PyArg_ParseTuple(args, "OOOOOOO:step", &arg[0], &arg[1], &arg[2], &arg[3], &arg[4], &arg[5], &arg[6]))
        return NULL;
    static const char fmt[7] = {'q', 'f', 'b', 'f', '?', '?', '?'};
    static const char *const names[7] = {"actions", "obs", "mask", "rewards", "terminated", "truncated", "illegal"};
    const Py_ssize_t per[7] = {1, VEC_OBS, COMPAT_ACTION_NB, 1, 1, 1, 1};
    Py_buffer view[7];
    for (int k = 0; k < 7; k++) {
        if (!vec_buffer(arg[k], &view[k], v->n * per[k], fmt[k], names[k])) {
            while (k--)
                PyBuffer_Release(&view[k]);
            return NULL;
        }
    }
    const int64_t *actions = view[0].buf;
    float *obs = view[1].buf, *rewards = view[3].buf;
    int8_t *mask = view[2].buf;
    bool *terminated = view[4].buf, *truncated = view[5].buf, *illegal = view[6].buf;
    bool ok = true;
    Py_ssize_t ended = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < v->n && ok; i++) {
        game_t *g = &v->games[i];
        int mover = game_position(g)->side;
        int64_t a = actions[i];
        move_t m = a >= 0 && a < COMPAT_ACTION_NB ? move_of_action[a] : MOVE_NONE;
        bool legal = false;
        for (int k = 0; k < v->legal_n[i] && !legal; k++)
            legal = v->legal[i][k] == m;
        rewards[i] = 0.0f;
        terminated[i] = truncated[i] = illegal[i] = false;
        if (!legal) {
            illegal[i] = terminated[i] = true;
            rewards[i] = -1.0f;
        } else if (game_play(g, m, NULL, 0) != BC_OK || !vec_opponent(v, i)) {
            ok = false;
            break;
        } else {
            /* No legal move is exactly the end of the game; its reason only then. */
            game_result_t r = vec_refresh(v, i) ? (game_result_t){RESULT_NONE, -1} : game_result(g);
            if (r.reason != RESULT_NONE) {
                terminated[i] = true;
                int side = v->agent_side >= 0 ? v->agent_side : mover;
                rewards[i] = r.winner < 0 ? 0.0f : r.winner == side ? 1.0f : -1.0f;
            } else if (v->max_plies && g->count >= (size_t)v->max_plies) {
                truncated[i] = true;
            }
        }
        if (terminated[i] || truncated[i]) {
            ended++;
            ok = vec_restart(v, i);
        }
        vec_observe(v, i, obs + i * VEC_OBS, mask + i * COMPAT_ACTION_NB);
    }
    Py_END_ALLOW_THREADS
    for (int k = 0; k < 7; k++)
        PyBuffer_Release(&view[k]);
    if (!ok)
        return PyErr_NoMemory();
    v->finished += (uint64_t)ended;
    return PyLong_FromSsize_t(ended);
}

/* random_actions(out): a uniformly random legal action of each game, from its generator. */
static PyObject *VecGames_random_actions(PyObject *self, PyObject *arg)
{
    VecGamesObject *v = (VecGamesObject *)self;
    Py_buffer view;
    if (!vec_buffer(arg, &view, v->n, 'q', "out"))
        return NULL;
    int64_t *out = view.buf;
    for (Py_ssize_t i = 0; i < v->n; i++) {
        int n = v->legal_n[i];
        out[i] = n ? action_of_code[v->legal[i][(vec_next(&v->rng[i]) >> 32) % (uint64_t)n] & (MOVE_CODES - 1)] : -1;
    }
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* board(i, cls): game i as a new board of cls (a Board type), its history included. */
static PyObject *VecGames_board(PyObject *self, PyObject *args)
{
    VecGamesObject *v = (VecGamesObject *)self;
    PyObject *index;
    PyTypeObject *cls = &BoardType;
    int i;
    if (!PyArg_ParseTuple(args, "O|O!:board", &index, &PyType_Type, &cls))
        return NULL;
    if (!PyType_IsSubtype(cls, &BoardType))
        return PyErr_Format(PyExc_TypeError, "board() makes Boards, not %.80s", cls->tp_name);
    if (v->n > INT32_MAX || !index_arg(index, (long)v->n, "game", &i))
        return NULL;
    game_t g;
    if (!game_copy(&g, &v->games[i]))
        return PyErr_NoMemory();
    return board_wrap(cls, &g);
}

static PyObject *VecGames_get_n(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromSsize_t(((VecGamesObject *)self)->n);
}

static PyObject *VecGames_get_finished(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromUnsignedLongLong(((VecGamesObject *)self)->finished);
}

static PyGetSetDef VecGames_getset[] = {
    {"n", VecGames_get_n, NULL, "The number of games.", NULL},
    {"finished", VecGames_get_finished, NULL, "Games ended so far (by the rules, an illegal action or the ply limit).",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef VecGames_methods[] = {
    {"reset", (PyCFunction)(void (*)(void))VecGames_reset, METH_VARARGS | METH_KEYWORDS, NULL},
    {"step", VecGames_step, METH_VARARGS, NULL},
    {"random_actions", VecGames_random_actions, METH_O, NULL},
    {"board", VecGames_board, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject VecGamesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "libbaghchal._core.VecGames",
    .tp_basicsize = sizeof(VecGamesObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The C part of :class:`libbaghchal.env.VectorBaghchalEnv`.",
    .tp_new = PyType_GenericNew,
    .tp_init = VecGames_init,
    .tp_dealloc = VecGames_dealloc,
    .tp_getset = VecGames_getset,
    .tp_methods = VecGames_methods,
};

/* ---- module functions ------------------------------------------------------------- */

static PyObject *mod_square_name(PyObject *m, PyObject *arg)
{
    (void)m;
    int sq;
    if (!square_arg(arg, &sq))
        return NULL;
    char name[3];
    square_name(sq, name);
    return PyUnicode_FromString(name);
}

static PyObject *mod_parse_square(PyObject *m, PyObject *arg)
{
    (void)m;
    Py_ssize_t len;
    const char *text = PyUnicode_Check(arg) ? PyUnicode_AsUTF8AndSize(arg, &len) : NULL;
    if (!text) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "parse_square() takes a str");
        return NULL;
    }
    int sq = len == 2 ? square_parse(text) : -1;
    if (sq < 0)
        return PyErr_Format(PyExc_ValueError, "'%.20s' is not a point (A1 .. E5)", text);
    return PyLong_FromLong(sq);
}

static PyObject *mod_transform_squares(PyObject *m, PyObject *args)
{
    (void)m;
    int s;
    unsigned long bb;
    PyObject *sym;
    if (!PyArg_ParseTuple(args, "Ok:transform_squares", &sym, &bb) || !parse_symmetry(sym, &s))
        return NULL;
    if (bb & ~(unsigned long)BB_ALL)
        return PyErr_Format(PyExc_ValueError, "not a set of the 25 points: %lu", bb);
    return PyLong_FromUnsignedLong(tb_transform(sym_index, s, (bb_t)bb));
}

/* The benchmark's playouts in C: random legal moves from the start until the game ends,
 * the same loop the Python benchmark runs through the package. (playouts, plies). */
static PyObject *mod_c_playouts(PyObject *m, PyObject *args)
{
    (void)m;
    long count;
    unsigned long long seed;
    const char *rule_text = "forbid";
    if (!PyArg_ParseTuple(args, "lK|s:_c_playouts", &count, &seed, &rule_text))
        return NULL;
    rep_rule_t rule;
    if (!parse_rule(rule_text, &rule))
        return NULL;
    uint64_t rng = seed ? seed : 1, plies = 0;
    bool ok = true;
    Py_BEGIN_ALLOW_THREADS
    position_t start;
    position_set_start(&start);
    for (long i = 0; i < count && ok; i++) {
        game_t g;
        if (!game_init(&g, &start, NULL, rule)) {
            ok = false;
            break;
        }
        for (;;) {
            move_t list[MAX_MOVES];
            int n = game_legal_moves(&g, list);
            if (n == 0)
                break;
            rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
            uint64_t r = rng * UINT64_C(0x2545F4914F6CDD1D);
            if (game_play(&g, list[(r >> 32) % (uint64_t)n], NULL, 0) != BC_OK) {
                ok = false;
                break;
            }
            plies++;
        }
        game_free(&g);
    }
    Py_END_ALLOW_THREADS
    if (!ok)
        return PyErr_NoMemory();
    return Py_BuildValue("(lK)", count, (unsigned long long)plies);
}

static PyMethodDef module_methods[] = {
    {"square_name", mod_square_name, METH_O,
     "square_name(square)\n--\n\nThe name of a point: 0 -> ``'A1'`` .. 24 -> ``'E5'``.\n\n"
     ">>> square_name(12)\n'C3'"},
    {"parse_square", mod_parse_square, METH_O,
     "parse_square(name)\n--\n\nThe point of a name (any case): ``'c3'`` -> 12; ValueError otherwise."},
    {"transform_squares", mod_transform_squares, METH_VARARGS,
     "transform_squares(symmetry, squares)\n--\n\nThe image of a set of points (a bit set) under one of "
     "the 8 symmetries.\n\n>>> transform_squares(1, 1)  # A1 mirrored left-right is E1\n16"},
    {"_c_playouts", mod_c_playouts, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, .m_name = "libbaghchal._core",
    .m_doc = "The C binding of libbaghchal (use the libbaghchal package, not this module).", .m_size = -1,
    .m_methods = module_methods,
};

static PyObject *new_error(PyObject *mod, const char *name, PyObject *bases, const char *doc)
{
    char full[64];
    snprintf(full, sizeof full, "libbaghchal.%s", name);
    PyObject *e = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
    if (!e)
        return NULL;
    Py_INCREF(e);
    if (PyModule_AddObject(mod, name, e) < 0) {
        Py_DECREF(e);
        Py_DECREF(e);
        return NULL;
    }
    return e;
}

static bool add_type(PyObject *mod, const char *name, PyTypeObject *type)
{
    Py_INCREF(type);
    if (PyModule_AddObject(mod, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        return false;
    }
    return true;
}

PyMODINIT_FUNC PyInit__core(void)
{
    if (!sym_index && !(sym_index = tb_index_new()))
        return PyErr_NoMemory();
    PyObject *threading = PyImport_ImportModule("threading");
    PyObject *main_thread = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
    PyObject *ident = main_thread ? PyObject_GetAttrString(main_thread, "ident") : NULL;
    Py_XDECREF(threading);
    Py_XDECREF(main_thread);
    if (!ident)
        return NULL;
    main_thread_ident = PyLong_AsUnsignedLong(ident);
    Py_DECREF(ident);
    if (PyErr_Occurred())
        return NULL;
    PyObject *mod = PyModule_Create(&core_module);
    if (!mod)
        return NULL;
    LegalMovesType.tp_base = &PyTuple_Type;
    if (PyType_Ready(&MoveType) < 0 || PyType_Ready(&LegalMovesType) < 0 || PyType_Ready(&BoardType) < 0 ||
        PyType_Ready(&TablebaseType) < 0 || PyType_Ready(&EngineType) < 0 || PyType_Ready(&VecGamesType) < 0)
        goto fail;
    for (int code = 0; code < MOVE_CODES; code++)
        action_of_code[code] = (int16_t)(code_is_move(code) ? compat_move_to_action((move_t)code) : -1);
    for (int a = 0; a < COMPAT_ACTION_NB; a++)
        move_of_action[a] = compat_action_to_move(a);
    for (int code = 0; code < MOVE_CODES; code++) {
        if (move_cache[code] || !code_is_move(code))
            continue;
        MoveObject *m = PyObject_New(MoveObject, &MoveType);
        if (!m)
            goto fail;
        m->code = (move_t)code;
        move_cache[code] = (PyObject *)m;
    }
    PyObject *ve_bases = NULL;
    if (!(BaghchalError = new_error(mod, "BaghchalError", NULL, "The base of every error the package raises.")))
        goto fail;
    if (!(ve_bases = PyTuple_Pack(2, BaghchalError, PyExc_ValueError)))
        goto fail;
    InvalidPositionError = new_error(mod, "InvalidPositionError", ve_bases,
                                     "A position's text (OBX, FEN) is not valid; the message says which rule it breaks.");
    IllegalMoveError = new_error(mod, "IllegalMoveError", ve_bases,
                                 "Move text that cannot be read, or a move that is not legal; the board is unchanged.");
    NotationError = new_error(mod, "NotationError", ve_bases,
                              "Text that is not the notation it should be (the Python baghchal package's PGN), or a "
                              "position or game that notation cannot say.");
    Py_DECREF(ve_bases);
    if (!InvalidPositionError || !IllegalMoveError || !NotationError)
        goto fail;
    PyObject *rt = PyTuple_Pack(2, BaghchalError, PyExc_RuntimeError);
    if (!rt)
        goto fail;
    TablebaseError = new_error(mod, "TablebaseError", BaghchalError,
                               "A database could not be opened (the reason is the engine's), or is closed.");
    EngineError = new_error(mod, "EngineError", rt, "The engine failed, is closed, or broke the protocol.");
    BusyError = new_error(mod, "BusyError", rt,
                          "An object is in use by a call running in another thread; retry when it is done.");
    Py_DECREF(rt);
    if (!TablebaseError || !EngineError || !BusyError)
        goto fail;
    if (!add_type(mod, "Move", &MoveType) || !add_type(mod, "LegalMoves", &LegalMovesType) ||
        !add_type(mod, "Board", &BoardType) ||
        !add_type(mod, "Tablebase", &TablebaseType) || !add_type(mod, "Engine", &EngineType) ||
        !add_type(mod, "VecGames", &VecGamesType))
        goto fail;
    if (PyModule_AddStringConstant(mod, "VERSION", BAGHCHAL_VERSION) < 0 ||
        PyModule_AddIntConstant(mod, "GOATS", GOATS) < 0 || PyModule_AddIntConstant(mod, "TIGERS", TIGERS) < 0 ||
        PyModule_AddIntConstant(mod, "MAX_MULTIPV", MAX_MULTIPV) < 0 ||
        PyModule_AddIntConstant(mod, "MAX_DEPTH", MAX_PLY - 1) < 0 ||
        PyModule_AddIntConstant(mod, "SCORE_MATE", SCORE_MATE) < 0 ||
        PyModule_AddIntConstant(mod, "SKILL_MAX", SKILL_MAX) < 0 ||
        PyModule_AddIntConstant(mod, "SKILL_MIN_ELO", SKILL_MIN_ELO) < 0 ||
        PyModule_AddIntConstant(mod, "SKILL_MAX_ELO", SKILL_MAX_ELO) < 0 ||
        PyModule_AddIntConstant(mod, "MAX_HASH_MB", ENGINE_MAX_HASH_MB) < 0 ||
        PyModule_AddIntConstant(mod, "DEFAULT_HASH_MB", ENGINE_DEFAULT_HASH_MB) < 0 ||
        PyModule_AddIntConstant(mod, "MAX_THREADS", MAX_THREADS) < 0)
        goto fail;
    return mod;
fail:
    Py_DECREF(mod);
    return NULL;
}
