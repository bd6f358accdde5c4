/* The one way the library's parsers and loaders report an error: a code, and a message
 * written into the caller's buffer. Nothing in the library prints. */
#ifndef BAGHCHAL_MESSAGE_H
#define BAGHCHAL_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

/* Writes the formatted message to msg (when msg is not NULL and msglen > 0) and returns code. */
int bc_fail(int code, char *msg, size_t msglen, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: shortest form, no surrogate,
 * nothing past U+10FFFF), of the n bytes left, with its code point in *cp when cp is not NULL;
 * 0 when the byte at s starts none. A NUL byte ends any sequence, so n may be a bound on a
 * NUL-terminated string. ASCII (below 0x80) is a sequence of 1. */
size_t bc_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

#endif
