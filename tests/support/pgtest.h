/* The suites of the room against PostgreSQL: the server that tests/support/postgres.sh
 * started for the test command, and a database of its own for each test. */
#ifndef BAGHCHAL_TEST_PGTEST_H
#define BAGHCHAL_TEST_PGTEST_H

#include <stdbool.h>
#include <stddef.h>

/* The URL of the server's maintenance database (BAGHCHAL_TEST_POSTGRES), NULL when the suite
 * runs on SQLite. */
const char *pgtest_server(void);

/* Creates a new, empty database (its name from name, the process and a counter) and writes
 * its URL into url. False with a one-line reason in err (also when built without libpq). */
bool pgtest_fresh(const char *name, char *url, size_t size, char *err, size_t errlen);

/* Runs SQL (one or more statements) in the database at url. False with a reason in err. */
bool pgtest_exec(const char *url, const char *sql, char *err, size_t errlen);

/* The first column of the first row of a query, as text (heap), NULL with a reason in err
 * when it fails or gives no row. */
char *pgtest_value(const char *url, const char *sql, char *err, size_t errlen);

#endif
