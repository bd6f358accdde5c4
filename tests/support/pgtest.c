/* The suites of the room against PostgreSQL (see pgtest.h). */
#include "pgtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *pgtest_server(void)
{
    const char *u = getenv("BAGHCHAL_TEST_POSTGRES");
    return u && *u ? u : NULL;
}

#ifndef BAGHCHAL_HAVE_PQ

bool pgtest_fresh(const char *name, char *url, size_t size, char *err, size_t errlen)
{
    (void)name, (void)url, (void)size;
    snprintf(err, errlen, "the suites were built without libpq");
    return false;
}

bool pgtest_exec(const char *url, const char *sql, char *err, size_t errlen)
{
    (void)url, (void)sql;
    snprintf(err, errlen, "the suites were built without libpq");
    return false;
}

char *pgtest_value(const char *url, const char *sql, char *err, size_t errlen)
{
    (void)url, (void)sql;
    snprintf(err, errlen, "the suites were built without libpq");
    return NULL;
}

#else

#include <libpq-fe.h>

static void one_line(char *s)
{
    for (; *s; s++)
        if (*s == '\n' || *s == '\r')
            *s = ' ';
}

static PGconn *open_db(const char *url, char *err, size_t errlen)
{
    PGconn *c = PQconnectdb(url);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        snprintf(err, errlen, "%s: %s", url, c ? PQerrorMessage(c) : "out of memory");
        one_line(err);
        PQfinish(c);
        return NULL;
    }
    return c;
}

bool pgtest_exec(const char *url, const char *sql, char *err, size_t errlen)
{
    PGconn *c = open_db(url, err, errlen);
    if (!c)
        return false;
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    bool ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!ok) {
        snprintf(err, errlen, "%s: %s", sql, PQerrorMessage(c));
        one_line(err);
    }
    PQclear(r);
    PQfinish(c);
    return ok;
}

char *pgtest_value(const char *url, const char *sql, char *err, size_t errlen)
{
    PGconn *c = open_db(url, err, errlen);
    if (!c)
        return NULL;
    PGresult *r = PQexec(c, sql);
    char *v = NULL;
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        snprintf(err, errlen, "%s: %s", sql, PQerrorMessage(c));
        one_line(err);
    } else if (PQntuples(r) < 1 || PQnfields(r) < 1) {
        snprintf(err, errlen, "%s: no row", sql);
    } else if (!(v = strdup(PQgetvalue(r, 0, 0)))) {
        snprintf(err, errlen, "out of memory");
    }
    PQclear(r);
    PQfinish(c);
    return v;
}

bool pgtest_fresh(const char *name, char *url, size_t size, char *err, size_t errlen)
{
    static int counter;
    const char *base = pgtest_server();
    if (!base) {
        snprintf(err, errlen, "BAGHCHAL_TEST_POSTGRES is not set");
        return false;
    }
    /* The database's name replaces the URL's path (postgresql://user@HOST/postgres?...). */
    const char *path = strstr(base, "://");
    path = path ? strchr(path + 3, '/') : NULL;
    if (!path) {
        snprintf(err, errlen, "%s: no database in the URL", base);
        return false;
    }
    const char *rest = path + strcspn(path, "?");
    char db[64];
    snprintf(db, sizeof db, "t_%.24s_%ld_%d", name, (long)getpid(), ++counter);
    for (char *p = db; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
            *p = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : '_';
    char sql[96];
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", db);
    if (!pgtest_exec(base, sql, err, errlen))
        return false;
    int n = snprintf(url, size, "%.*s/%s%s", (int)(path - base), base, db, rest);
    if (n < 0 || (size_t)n >= size) {
        snprintf(err, errlen, "the URL is too long");
        return false;
    }
    return true;
}

#endif
