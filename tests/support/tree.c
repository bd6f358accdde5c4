/* The tests' folders: temporary ones, removed whole, and the runner's movement database. */
#include "tree.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tb.h"

void tree_remove(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            tree_remove(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

const char *tree_database_dir(void)
{
    const char *dir = getenv("BAGHCHAL_TB_DIR");
    char path[1024];
    if (!dir || !*dir)
        return NULL;
    snprintf(path, sizeof path, "%s/%s", dir, TB_FILE_NAME);
    return access(path, R_OK) == 0 ? dir : NULL;
}
