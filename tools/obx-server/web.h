/* The web board's files, embedded in the program at build time (web_assets.c is generated
 * from tools/obx-server/web/ by embed.cmake). */
#ifndef OBX_SERVER_WEB_H
#define OBX_SERVER_WEB_H

#include <stddef.h>

typedef struct {
    const char *path; /* "/index.html", "/app.js", ... */
    const char *mime;
    const unsigned char *data;
    size_t size;
} web_asset_t;

extern const web_asset_t WEB_ASSETS[];
extern const size_t WEB_ASSETS_COUNT;

#endif
