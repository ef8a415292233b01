/* semver-sort: read versions (one per line) from stdin, print them in ascending precedence.
 * Invalid lines are reported on stderr and dropped; equal versions keep their input order. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "semver.h"

struct ent { char *s; size_t idx; };

static int cmp(const void *x, const void *y)
{
    const struct ent *a = x, *b = y;
    int r = 0;
    semver_compare(a->s, b->s, &r);
    if (r == 0)
        r = (a->idx > b->idx) - (a->idx < b->idx);
    return r;
}

int main(void)
{
    struct ent *v = NULL;
    size_t n = 0, cap = 0;
    char line[1024];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!semver_valid(line)) {
            fprintf(stderr, "semver-sort: invalid version: %s\n", line);
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            v = realloc(v, cap * sizeof *v);
        }
        v[n].s = strdup(line);
        v[n].idx = n;
        n++;
    }
    qsort(v, n, sizeof *v, cmp);
    for (size_t i = 0; i < n; i++)
        puts(v[i].s);
    return 0;
}
