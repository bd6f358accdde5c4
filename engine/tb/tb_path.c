/* Where the databases live when no folder is named: one standard place that the engine, the
 * server, the referee and baghchal-tbgen agree on. */
#define _POSIX_C_SOURCE 200809L
#include "tb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifndef BAGHCHAL_DATA_DIR
#define BAGHCHAL_DATA_DIR "/usr/local/share/baghchal"
#endif

/* The user's folder: $XDG_DATA_HOME/baghchal, or ~/.local/share/baghchal when XDG_DATA_HOME
 * is unset, empty or relative (the XDG rule). False when there is no home either. */
static bool user_dir(char *out, size_t len)
{
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(out, len, "%s/baghchal", xdg);
    else if (home && home[0])
        n = snprintf(out, len, "%s/.local/share/baghchal", home);
    else
        return false;
    return n > 0 && (size_t)n < len;
}

static bool has_database(const char *dir)
{
    char path[TB_PATH_MAX + 32];
    int n = snprintf(path, sizeof path, "%s/%s", dir, TB_FILE_NAME);
    return n > 0 && (size_t)n < sizeof path && access(path, R_OK) == 0;
}

bool tb_default_dir(char *out, size_t len)
{
    if (!len)
        return false;
    out[0] = '\0';
    const char *env = getenv(TB_PATH_ENV);
    if (env) {
        if (!env[0] || strcasecmp(env, "<empty>") == 0 || strlen(env) >= len)
            return false;
        memcpy(out, env, strlen(env) + 1);
        return true;
    }
    char user[TB_PATH_MAX];
    bool have_user = user_dir(user, sizeof user);
    const char *pick = have_user ? user : BAGHCHAL_DATA_DIR;
    if (!(have_user && has_database(user)) && has_database(BAGHCHAL_DATA_DIR))
        pick = BAGHCHAL_DATA_DIR;
    if (strlen(pick) >= len)
        return false;
    memcpy(out, pick, strlen(pick) + 1);
    return true;
}

bool tb_dir_has_database(const char *dir) { return dir && dir[0] && has_database(dir); }
