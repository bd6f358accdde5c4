/* The line protocol: turns one input line into calls on libbaghchal and output lines.
 * Output goes through a writer callback so the loop, the tests and the fuzzer share it. */
#ifndef BAGHCHAL_UCI_H
#define BAGHCHAL_UCI_H

#include <stdbool.h>
#include <stddef.h>

typedef void (*uci_write_fn)(void *ctx, const char *line);

typedef struct uci uci_t;

/* NULL when memory runs out. */
uci_t *uci_new(uci_write_fn write, void *ctx);
void uci_free(uci_t *u);
/* The engine's poll (engine_set_poll): for a program that runs the search inside the call
 * that starts it (the WebAssembly worker), which reads its input there. */
void uci_set_poll(uci_t *u, void (*poll)(void *ctx), void *ctx);
/* Waits until a running search has reported its bestmove. */
void uci_wait(uci_t *u);
/* Handles one line (with or without its line end). Returns false once the line was `quit`. */
bool uci_handle_line(uci_t *u, const char *line);
/* Runs one command given on the command line and waits for a search or bench it started.
 * A go must have a limit that ends it (no infinite, ponder or limitless search). Returns
 * the exit status: 0, or 1 when the command was refused. */
int uci_run_command(uci_t *u, const char *line);
/* The input has ended: a go with a limit that ends it, a perft or a bench runs to its end
 * (its output printed), a search without one is stopped; then as quit. */
void uci_end_of_input(uci_t *u);
/* The part of uci_end_of_input that returns at once: a search that would not end by itself
 * is told to stop, what ends by itself goes on. For a program whose commands run inside the
 * call that hands them in (the WebAssembly worker) when its input ends during one: it calls
 * uci_end_of_input once that command has returned. */
void uci_stop_at_end_of_input(uci_t *u);
/* Handles len bytes read as one line. A line holding a NUL byte is refused whole (one error
 * line), never cut at the NUL. */
bool uci_handle_input(uci_t *u, const char *line, size_t len);

#endif
