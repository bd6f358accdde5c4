/* Temporary folders of the tests: removed whole, whatever a test left in them. */
#ifndef BAGHCHAL_TEST_TREE_H
#define BAGHCHAL_TEST_TREE_H

/* Removes dir and everything below it (links are removed, not followed). */
void tree_remove(const char *dir);

#endif
