/* Loopback HTTP for the suites that drive the servers over real sockets: connecting, sending
 * everything, reading an answer whole, and telling whether a program carries a sanitizer. */
#ifndef BAGHCHAL_TEST_NET_H
#define BAGHCHAL_TEST_NET_H

#include <stdbool.h>
#include <stddef.h>

/* A connected TCP socket to 127.0.0.1:port, or -1. */
int net_connect(int port);

/* Sends all of data (no SIGPIPE); false when the connection fails. */
bool net_send_all(int fd, const char *data, size_t len);

/* Reads until the peer closes the connection or timeout_ms pass; the bytes (NUL-terminated,
 * heap) and their number in *len; NULL when out of memory. */
char *net_read_all(int fd, size_t *len, int timeout_ms);

/* The value of a header (case-insensitive name) in an answer's status line and headers,
 * copied into buf; NULL when absent. */
const char *net_header(const char *head, const char *name, char *buf, size_t len);

/* Does the program at path carry AddressSanitizer or ThreadSanitizer (its bytes name their
 * start-up)? The suites are not always built as their programs are. */
bool net_binary_sanitized(const char *path);

#endif
