/* The tests' folders: temporary ones, removed whole whatever a test left in them, and the
 * movement database the runner names. */
#ifndef BAGHCHAL_TEST_TREE_H
#define BAGHCHAL_TEST_TREE_H

#include <stddef.h>

/* Removes dir and everything below it (links are removed, not followed). */
void tree_remove(const char *dir);

/* The folder $BAGHCHAL_TB_DIR when it holds a readable movement database, else NULL. */
const char *tree_database_dir(void);

/* The whole file at path, NUL-terminated, in memory the caller frees, and its length in *len
 * when len is not NULL; the test fails when it cannot be read. */
char *tree_read_file(const char *path, size_t *len);

#endif
