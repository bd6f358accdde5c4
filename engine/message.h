/* The one way the library's parsers and loaders report an error: a code, and a message
 * written into the caller's buffer. Nothing in the library prints. */
#ifndef BAGHCHAL_MESSAGE_H
#define BAGHCHAL_MESSAGE_H

#include <stddef.h>

/* Writes the formatted message to msg (when msg is not NULL and msglen > 0) and returns code. */
int bc_fail(int code, char *msg, size_t msglen, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
