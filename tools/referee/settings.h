/* The settings at the head of a record file ("; setting KEY: VALUE" lines, written by
 * cli_settings): read, looked up and compared, for -resume and --check. */
#ifndef REFEREE_SETTINGS_H
#define REFEREE_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *key, *value;
} setting_t;

typedef struct {
    setting_t *v;
    size_t n;
} settings_t;

/* Is line (without its line end) a setting line? */
bool settings_is_line(const char *line);
/* Adds the setting of one such line (a line without ": " adds nothing); false when out of
 * memory. */
bool settings_add_line(settings_t *s, const char *line);
/* Adds the settings of text (lines of cli_settings); false when out of memory. */
bool settings_parse(settings_t *s, const char *text);
/* The value of key, NULL when absent. */
const char *settings_get(const settings_t *s, const char *key);
void settings_free(settings_t *s);
/* Describes in msg ("engine 1 limits 'depth=5' (now 'depth=3'), seed ...") the settings of
 * `was` that `now` does not have, or has with another value; false when they are the same. */
bool settings_differ(const settings_t *was, const settings_t *now, char *msg, size_t msglen);

#endif
