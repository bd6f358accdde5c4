/* baghchal-referee: engine-vs-engine matches and tournaments over pipes, and the checker
 * of the game records it writes. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "record.h"
#include "tourney.h"
#include "types.h"
#include "util.h"

static int check(const char *path)
{
    int64_t games = 0;
    int problems = record_check_file(path, stderr, &games);
    if (problems < 0)
        return 1;
    if (problems > 0) {
        fprintf(stderr, "%s: %d problem%s in %lld game%s\n", path, problems, problems == 1 ? "" : "s",
                (long long)games, games == 1 ? "" : "s");
        return 1;
    }
    printf("%s: %lld game%s, all consistent with the rules\n", path, (long long)games, games == 1 ? "" : "s");
    return 0;
}

/* Pipes must not land on descriptors 0-2, where an engine's dup2 would misplace them. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0) {
            int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (n > 2)
                close(n);
        }
}

int main(int argc, char **argv)
{
    ensure_std_fds();
    config_t cfg;
    char msg[512];
    if (!cli_parse(argc, argv, &cfg, msg, sizeof msg)) {
        one_line(msg);
        fprintf(stderr, "baghchal-referee: %s\n", msg);
        cli_free(&cfg);
        return 1;
    }
    int status;
    if (cfg.help) {
        cli_usage();
        status = 0;
    } else if (cfg.version) {
        printf("baghchal-referee %s\n", BAGHCHAL_VERSION);
        status = 0;
    } else if (cfg.check_file) {
        status = check(cfg.check_file);
    } else {
        status = tourney_run(&cfg);
    }
    cli_free(&cfg);
    return status;
}
