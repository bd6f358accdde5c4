/* baghchal-server: the command line, the signals, and the server's life. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "baghchal.h"
#include "server.h"

static void usage(FILE *f)
{
    fputs("Usage: baghchal-server [options]\n"
          "Serves the OBX API (/obx, /legal, /health) and the web board (/) backed by libbaghchal.\n"
          "\n"
          "  --port N              TCP port, 0 for any free one (default 8080)\n"
          "  --bind ADDR           IPv4 or IPv6 address to listen on (default 127.0.0.1)\n"
          "  --movetime MS         search time when a request names none (default 1000)\n"
          "  --max-movetime MS     cap on any search, depth searches included (default 10000)\n"
          "  --threads N           search threads per engine (default 1)\n"
          "  --hash MB             transposition table per engine (default 16)\n"
          "  --tablebase DIR       database directory (baghchal.tb, baghchal-placement.tb); default: the\n"
          "                        standard folder when it holds them; '<empty>' for none\n"
          "  --cors ORIGIN         send Access-Control-Allow-Origin: ORIGIN (e.g. '*')\n"
          "  --max-body BYTES      largest request body, at most 1048576 (default 16384)\n"
          "  --workers N           engines, i.e. searches at once (default 2)\n"
          "  --queue-timeout MS    longest wait for a free engine before 503 (default 5000)\n"
          "  --max-queue N         searches waiting at most before 503 (default 64)\n"
          "  --max-connections N   open connections at most, all clients (default 1024)\n"
          "  --max-per-client N    open connections at most from one address (default 32)\n"
          "  --request-timeout S   a request must arrive whole within S seconds (default 10)\n"
          "  --idle-timeout S      close stalled connections after S seconds (default 30)\n"
          "  --web-root DIR        serve the board's files from DIR instead of the built-in copy\n"
          "  --log                 one line per request on standard error\n"
          "  --database PATH|URL   the room's games, players and ratings: an SQLite file, 'sqlite:PATH' or\n"
          "                        PATH (default: room.sqlite in the standard data folder), or a\n"
          "                        PostgreSQL database, 'postgresql://...', which several servers may share\n"
          "  --durable             every commit on the disk before its answer (SQLite synchronous=FULL,\n"
          "                        PostgreSQL synchronous_commit=on)\n"
          "  --lag-allowance MS    each move's time is cut by up to this (default 300)\n"
          "  --gone-seconds S      a player away this long: the opponent may claim the win (default 30)\n"
          "  --first-move-seconds S  a side that makes no first move within S: aborted (default 60)\n"
          "  --help, --version\n",
          f);
}

static bool number(const char *opt, const char *text, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "baghchal-server: %s needs a whole number from %lld to %lld, not '%s'\n", opt, lo, hi, text);
        return false;
    }
    *out = v;
    return true;
}

/* A value the server writes into a response header as it is: printable ASCII, with no line
 * break (which would end the header and start another) nor any other control character. */
static bool header_value(const char *opt, const char *text)
{
    size_t n = strlen(text);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch < 0x20 || ch > 0x7E) {
            fprintf(stderr, "baghchal-server: %s is written into a header and must be printable ASCII: byte 0x%02X "
                            "at offset %zu is %s\n", opt, ch, i, ch < 0x20 || ch == 0x7F ? "a control character" : "not ASCII");
            return false;
        }
    }
    if (n == 0 || text[0] == ' ' || text[n - 1] == ' ') {
        fprintf(stderr, "baghchal-server: %s needs a value without spaces at its ends, such as '*' or an origin\n", opt);
        return false;
    }
    return true;
}

enum {
    OPT_PORT = 256, OPT_BIND, OPT_MOVETIME, OPT_MAX_MOVETIME, OPT_THREADS, OPT_HASH, OPT_TABLEBASE, OPT_CORS,
    OPT_MAX_BODY, OPT_WORKERS, OPT_QUEUE_TIMEOUT, OPT_MAX_QUEUE, OPT_MAX_CONNECTIONS, OPT_IDLE_TIMEOUT,
    OPT_WEB_ROOT, OPT_LOG, OPT_HELP, OPT_VERSION, OPT_MAX_PER_CLIENT, OPT_REQUEST_TIMEOUT, OPT_DATABASE,
    OPT_DURABLE, OPT_LAG, OPT_GONE, OPT_FIRST_MOVE
};

static const struct option OPTIONS[] = {
    {"port", required_argument, NULL, OPT_PORT},
    {"bind", required_argument, NULL, OPT_BIND},
    {"movetime", required_argument, NULL, OPT_MOVETIME},
    {"max-movetime", required_argument, NULL, OPT_MAX_MOVETIME},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"hash", required_argument, NULL, OPT_HASH},
    {"tablebase", required_argument, NULL, OPT_TABLEBASE},
    {"cors", required_argument, NULL, OPT_CORS},
    {"max-body", required_argument, NULL, OPT_MAX_BODY},
    {"workers", required_argument, NULL, OPT_WORKERS},
    {"queue-timeout", required_argument, NULL, OPT_QUEUE_TIMEOUT},
    {"max-queue", required_argument, NULL, OPT_MAX_QUEUE},
    {"max-connections", required_argument, NULL, OPT_MAX_CONNECTIONS},
    {"idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT},
    {"max-per-client", required_argument, NULL, OPT_MAX_PER_CLIENT},
    {"request-timeout", required_argument, NULL, OPT_REQUEST_TIMEOUT},
    {"database", required_argument, NULL, OPT_DATABASE},
    {"durable", no_argument, NULL, OPT_DURABLE},
    {"lag-allowance", required_argument, NULL, OPT_LAG},
    {"gone-seconds", required_argument, NULL, OPT_GONE},
    {"first-move-seconds", required_argument, NULL, OPT_FIRST_MOVE},
    {"web-root", required_argument, NULL, OPT_WEB_ROOT},
    {"log", no_argument, NULL, OPT_LOG},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* 0: go on, 1: exit successfully (help, version), 2: bad usage. */
static int parse_args(int argc, char **argv, server_config_t *c)
{
    int opt;
    long long v;
    bool movetime_given = false, database_given = false;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", OPTIONS, NULL)) != -1) {
        bool ok = true;
        switch (opt) {
        case OPT_PORT:
            ok = number("--port", optarg, 0, 65535, &v) && ((c->port = (int)v), true);
            break;
        case OPT_BIND:
            c->bind = optarg;
            break;
        case OPT_MOVETIME:
            ok = number("--movetime", optarg, 1, 86400000, &v) && ((c->movetime_ms = v), true);
            movetime_given = true;
            break;
        case OPT_MAX_MOVETIME:
            ok = number("--max-movetime", optarg, 1, 86400000, &v) && ((c->max_movetime_ms = v), true);
            break;
        case OPT_THREADS:
            ok = number("--threads", optarg, 1, MAX_THREADS, &v) && ((c->threads = (int)v), true);
            break;
        case OPT_HASH:
            ok = number("--hash", optarg, 1, ENGINE_MAX_HASH_MB, &v) && ((c->hash_mb = (size_t)v), true);
            break;
        case OPT_TABLEBASE:
            c->tablebase = optarg;
            break;
        case OPT_CORS:
            ok = header_value("--cors", optarg);
            c->cors = optarg;
            break;
        case OPT_MAX_BODY:
            ok = number("--max-body", optarg, 64, 1 << 20, &v) && ((c->max_body = (size_t)v), true);
            break;
        case OPT_WORKERS:
            ok = number("--workers", optarg, 1, 1024, &v) && ((c->workers = (int)v), true);
            break;
        case OPT_QUEUE_TIMEOUT:
            ok = number("--queue-timeout", optarg, 1, 3600000, &v) && ((c->queue_timeout_ms = (int)v), true);
            break;
        case OPT_MAX_QUEUE:
            ok = number("--max-queue", optarg, 1, 1 << 20, &v) && ((c->max_queue = (int)v), true);
            break;
        case OPT_MAX_CONNECTIONS:
            ok = number("--max-connections", optarg, 1, 1 << 16, &v) && ((c->max_connections = (int)v), true);
            break;
        case OPT_MAX_PER_CLIENT:
            ok = number("--max-per-client", optarg, 1, 1 << 16, &v) && ((c->max_per_client = (int)v), true);
            break;
        case OPT_REQUEST_TIMEOUT:
            ok = number("--request-timeout", optarg, 1, 3600, &v) && ((c->request_timeout_s = (int)v), true);
            break;
        case OPT_IDLE_TIMEOUT:
            ok = number("--idle-timeout", optarg, 1, 86400, &v) && ((c->idle_timeout_s = (int)v), true);
            break;
        case OPT_WEB_ROOT:
            c->web_root = optarg;
            break;
        case OPT_LOG:
            c->log = true;
            break;
        case OPT_DATABASE:
            c->database = strncmp(optarg, "sqlite:", 7) == 0 ? optarg + 7 : optarg;
            database_given = true;
            if (!c->database[0] ||
                (strstr(optarg, "://") && strncmp(optarg, "postgresql://", 13) && strncmp(optarg, "postgres://", 11))) {
                fprintf(stderr,
                        "baghchal-server: --database takes an SQLite file, 'sqlite:PATH', PATH or "
                        "'postgresql://...', not '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case OPT_DURABLE:
            c->durable = true;
            break;
        case OPT_LAG:
            ok = number("--lag-allowance", optarg, 0, 5000, &v) && ((c->lag_ms = (int)v), true);
            break;
        case OPT_GONE:
            ok = number("--gone-seconds", optarg, 1, 3600, &v) && ((c->gone_s = (int)v), true);
            break;
        case OPT_FIRST_MOVE:
            ok = number("--first-move-seconds", optarg, 1, 86400, &v) && ((c->first_move_s = (int)v), true);
            break;
        case OPT_HELP:
            usage(stdout);
            return 1;
        case OPT_VERSION:
            printf("baghchal-server %s\n", BAGHCHAL_VERSION);
            return 1;
        default:
            fprintf(stderr, "baghchal-server: unknown option or missing value: %s\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
        if (!ok)
            return 2;
    }
    if (optind < argc) {
        fprintf(stderr, "baghchal-server: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (c->movetime_ms > c->max_movetime_ms && !movetime_given)
        c->movetime_ms = c->max_movetime_ms;
    if (c->movetime_ms > c->max_movetime_ms) {
        fprintf(stderr, "baghchal-server: --movetime %lld is above --max-movetime %lld\n", (long long)c->movetime_ms,
                (long long)c->max_movetime_ms);
        return 2;
    }
    /* The room's database: by default in the standard data folder, made when missing. */
    static char room_db[TB_PATH_MAX + 32];
    if (!database_given) {
        const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
        char dir[TB_PATH_MAX];
        if (xdg && xdg[0] == '/')
            snprintf(dir, sizeof dir, "%s/baghchal", xdg);
        else if (home && home[0])
            snprintf(dir, sizeof dir, "%s/.local/share/baghchal", home);
        else {
            fprintf(stderr, "baghchal-server: no standard data folder (neither XDG_DATA_HOME nor HOME): give --database\n");
            return 2;
        }
        for (char *p = dir + 1; *p; p++)
            if (*p == '/') {
                *p = '\0';
                mkdir(dir, 0777);
                *p = '/';
            }
        mkdir(dir, 0777);
        snprintf(room_db, sizeof room_db, "%s/room.sqlite", dir);
        c->database = room_db;
    }
    /* No folder named: the standard one, when it holds a database. */
    static char standard[TB_PATH_MAX];
    if (!c->tablebase && tb_default_dir(standard, sizeof standard) && tb_dir_has_database(standard))
        c->tablebase = standard;
    else if (c->tablebase && (!c->tablebase[0] || strcasecmp(c->tablebase, "<empty>") == 0))
        c->tablebase = NULL;
    struct stat st;
    if (c->tablebase && (stat(c->tablebase, &st) != 0 || !S_ISDIR(st.st_mode))) {
        fprintf(stderr, "baghchal-server: --tablebase %s is not a directory\n", c->tablebase);
        return 2;
    }
    if (c->web_root && (stat(c->web_root, &st) != 0 || !S_ISDIR(st.st_mode))) {
        fprintf(stderr, "baghchal-server: --web-root %s is not a directory\n", c->web_root);
        return 2;
    }
    return 0;
}

/* The database as the start line names it: a URL without its password. */
static void shown_database(const char *db, char *out, size_t size)
{
    const char *scheme = strstr(db, "://"), *at = scheme ? strchr(scheme + 3, '@') : NULL;
    const char *colon = at ? memchr(scheme + 3, ':', (size_t)(at - scheme - 3)) : NULL;
    if (colon)
        snprintf(out, size, "%.*s:***%s", (int)(colon - db), db, at);
    else
        snprintf(out, size, "%s", db);
}

int main(int argc, char **argv)
{
    server_config_t cfg;
    server_config_defaults(&cfg);
    int rc = parse_args(argc, argv, &cfg);
    if (rc)
        return rc == 1 ? 0 : 2;

    /* Every thread started from here on inherits this mask; main takes the signals with
     * sigwait, and writes to closed sockets fail with EPIPE instead of killing us. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);

    /* Every search starts from a fresh table (tt_clear maps a new zeroed block and frees the
     * old). glibc raises its mmap threshold after the first large free, and from then on
     * both blocks would come from the worker's heap, be wiped by calloc and stay resident:
     * 2 x hash per worker instead of what the searches touch. A fixed threshold keeps large
     * blocks mapped and returned. */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);

    /* Each connection is a descriptor: make room for the limit when the system allows it. */
    struct rlimit rl;
    rlim_t need = (rlim_t)cfg.max_connections + 64;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }

    char err[256];
    server_t *s = server_start(&cfg, err, sizeof err);
    if (!s) {
        fprintf(stderr, "baghchal-server: %s\n", err);
        return 1;
    }
    bool v6 = strchr(cfg.bind, ':') != NULL;
    char where[256];
    shown_database(cfg.database, where, sizeof where);
    printf("baghchal-server %s listening on http://%s%s%s:%d/ (%d workers, %d threads each, %zu MB hash each; games "
           "kept in %s%s)\n",
           BAGHCHAL_VERSION, v6 ? "[" : "", cfg.bind, v6 ? "]" : "", server_port(s), cfg.workers, cfg.threads,
           cfg.hash_mb, where, cfg.durable ? ", durable" : "");
    if (cfg.tablebase)
        printf("baghchal-server: database %s loaded\n", cfg.tablebase);
    fflush(stdout);

    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    int sig = 0;
    while (sigwait(&stop, &sig) != 0) {
    }
    fprintf(stderr, "baghchal-server: %s, shutting down\n", sig == SIGINT ? "interrupted" : "terminated");
    server_stop(s);
    return 0;
}
