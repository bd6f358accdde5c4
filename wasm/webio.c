/* The threaded page worker's standard input (webio.js): a ring of bytes in the module's shared
 * memory that the worker's own thread fills with the page's lines and the protocol's reading
 * thread empties, as a pipe would. head and tail count the bytes written and read (modulo
 * 2^32); the writer waits for room, the reader for bytes, each woken by the other. */
#include <emscripten.h>
#include <stdint.h>

enum { WEBIO_RING = 1 << 16 };

static struct {
    int32_t head, tail;
    unsigned char bytes[WEBIO_RING];
} inbox;

EMSCRIPTEN_KEEPALIVE void *bc_inbox(void) { return &inbox; }
EMSCRIPTEN_KEEPALIVE int bc_inbox_size(void) { return WEBIO_RING; }
