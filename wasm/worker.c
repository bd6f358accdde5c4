/* The engine of the page's Web Worker, without threads: protocol/uci.c over lines that
 * JavaScript hands in one at a time (channel.js) and takes back through Module.onLine. */
#include <emscripten.h>
#include <stddef.h>

#include "uci.h"

EM_JS(void, bc_emit, (const char *line), { Module['onLine'](UTF8ToString(line)); });

static void write_line(void *ctx, const char *line)
{
    (void)ctx;
    bc_emit(line);
}

/* The worker's one engine, as main.c's is the process's. */
static uci_t *engine;

/* One turn of the event loop, where the messages that came meanwhile are read: a message to
 * itself, not a timer of 0 ms, which browsers stretch to 4 ms once timers nest. */
EM_ASYNC_JS(void, bc_yield, (), {
    await new Promise(function(resume) {
        if (typeof MessageChannel != 'function')
            return setTimeout(resume, 0);
        var c = new MessageChannel();
        c.port1.onmessage = function() { c.port1.close(); resume(); };
        c.port2.postMessage(0);
    });
});

/* The search's poll (engine_set_poll), every 256 nodes: at most every 20 ms the worker
 * yields to the event loop. ctx: the time of the last yield (ms). */
static void poll_events(void *ctx)
{
    double *last = ctx, now = emscripten_get_now();
    if (now - *last >= 20) {
        bc_yield();
        *last = emscripten_get_now();
    }
}

EMSCRIPTEN_KEEPALIVE int bc_start(void)
{
    static double last_yield;
    if (!engine) {
        engine = uci_new(write_line, NULL);
        if (engine)
            uci_set_poll(engine, poll_events, &last_yield);
    }
    return engine != NULL;
}

/* One line of len bytes; false once it was quit. It may return to JavaScript before it is
 * done (a search, a bench): channel.js waits for it then. */
EMSCRIPTEN_KEEPALIVE int bc_line(const char *line, size_t len)
{
    return uci_handle_input(engine, line, len);
}

/* End of input (Node's standard input; a page never ends it) during a command that has not
 * returned: a search that would not end by itself is stopped now, as natively; bc_end
 * follows once the command has returned. */
EMSCRIPTEN_KEEPALIVE void bc_ending(void)
{
    uci_stop_at_end_of_input(engine);
}

/* End of input once no command runs: as natively, what ends by itself has ended; then quit. */
EMSCRIPTEN_KEEPALIVE void bc_end(void)
{
    uci_end_of_input(engine);
}
