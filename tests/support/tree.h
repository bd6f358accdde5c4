/* The tests' folders: temporary ones, removed whole whatever a test left in them, and the
 * movement database the runner names. */
#ifndef BAGHCHAL_TEST_TREE_H
#define BAGHCHAL_TEST_TREE_H

/* Removes dir and everything below it (links are removed, not followed). */
void tree_remove(const char *dir);

/* The folder $BAGHCHAL_TB_DIR when it holds a readable movement database, else NULL. */
const char *tree_database_dir(void);

#endif
