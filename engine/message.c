/* Error messages into caller buffers. */
#include "message.h"

#include <stdarg.h>
#include <stdio.h>

int bc_fail(int code, char *msg, size_t msglen, const char *fmt, ...)
{
    if (msg && msglen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msglen, fmt, ap);
        va_end(ap);
    }
    return code;
}
