/* baghchal: reads protocol lines from standard input, or runs its arguments as one command. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uci.h"

static void write_line(void *ctx, const char *line)
{
    (void)ctx;
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    uci_t *u = uci_new(write_line, NULL);
    if (!u) {
        fputs("baghchal: out of memory\n", stderr);
        return 1;
    }
    if (argc > 1) {
        size_t len = 1;
        for (int i = 1; i < argc; i++)
            len += strlen(argv[i]) + 1;
        char *line = malloc(len);
        if (!line) {
            fputs("baghchal: out of memory\n", stderr);
            uci_free(u);
            return 1;
        }
        char *end = line;
        for (int i = 1; i < argc; i++) {
            size_t n = strlen(argv[i]);
            memcpy(end, argv[i], n);
            end += n;
            if (i + 1 < argc)
                *end++ = ' ';
        }
        *end = '\0';
        int status = uci_run_command(u, line);
        free(line);
        uci_free(u);
        return status;
    }
    char *line = NULL;
    size_t cap = 0;
    bool open = true;
    ssize_t n;
    while (open && (n = getline(&line, &cap, stdin)) >= 0)
        open = uci_handle_input(u, line, (size_t)n);
    /* End of input: a go with a limit, perft or bench finishes, anything else stops. */
    if (open)
        uci_end_of_input(u);
    free(line);
    uci_free(u);
    return 0;
}
