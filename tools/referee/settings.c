/* The settings at the head of a record file: "; setting KEY: VALUE" lines, parsed and
 * compared. */
#include "settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char SETTING[] = "; setting ";

bool settings_is_line(const char *line) { return strncmp(line, SETTING, sizeof SETTING - 1) == 0; }

bool settings_add_line(settings_t *s, const char *line)
{
    const char *key = line + sizeof SETTING - 1, *colon = strstr(key, ": ");
    if (!colon)
        return true; /* not a setting: --check reports it */
    setting_t *v = realloc(s->v, (s->n + 1) * sizeof *v);
    if (!v)
        return false;
    s->v = v;
    v[s->n].key = strndup(key, (size_t)(colon - key));
    v[s->n].value = strdup(colon + 2);
    if (!v[s->n].key || !v[s->n].value) {
        free(v[s->n].key);
        free(v[s->n].value);
        return false;
    }
    s->n++;
    return true;
}

bool settings_parse(settings_t *s, const char *text)
{
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char *line = strndup(p, n);
        if (!line)
            return false;
        bool ok = !settings_is_line(line) || settings_add_line(s, line);
        free(line);
        if (!ok)
            return false;
        p += n + (nl != NULL);
    }
    return true;
}

const char *settings_get(const settings_t *s, const char *key)
{
    for (size_t k = 0; k < s->n; k++)
        if (strcmp(s->v[k].key, key) == 0)
            return s->v[k].value;
    return NULL;
}

void settings_free(settings_t *s)
{
    for (size_t k = 0; k < s->n; k++) {
        free(s->v[k].key);
        free(s->v[k].value);
    }
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

bool settings_differ(const settings_t *was, const settings_t *now, char *msg, size_t msglen)
{
    size_t n = 0;
    int found = 0;
    msg[0] = '\0';
    for (int pass = 0; pass < 2; pass++) {
        const settings_t *a = pass ? now : was, *b = pass ? was : now;
        for (size_t k = 0; k < a->n; k++) {
            const char *other = settings_get(b, a->v[k].key);
            if (pass && other)
                continue; /* compared in the first pass */
            if (other && strcmp(other, a->v[k].value) == 0)
                continue;
            const char *then = pass ? "none" : a->v[k].value, *here = pass ? a->v[k].value : other ? other : "none";
            if (n < msglen)
                n += (size_t)snprintf(msg + n, msglen - n, "%s%s '%s' (now '%s')", found ? ", " : "", a->v[k].key,
                                      then, here);
            found++;
        }
    }
    return found > 0;
}
