/* The tests' folders: temporary ones, removed whole, and the runner's movement database. */
#include "tree.h"

#include <criterion/criterion.h>

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

char *tree_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    cr_assert_geq(n, 0, "cannot size %s", path);
    cr_assert_eq(fseek(f, 0, SEEK_SET), 0);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n, "cannot read all of %s", path);
    s[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return s;
}
