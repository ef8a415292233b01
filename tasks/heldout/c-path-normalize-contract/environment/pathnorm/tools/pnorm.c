/* pnorm PATH...          print each PATH normalised
 * pnorm -j BASE REL      print BASE joined with REL */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pathnorm.h"

static int show(long n, char *(*make)(size_t, void *), void *ctx)
{
    if (n < 0)
        return 1;
    char *buf = make((size_t)n + 1, ctx);
    if (!buf)
        return 1;
    puts(buf);
    free(buf);
    return 0;
}

struct job { const char *a, *b; };

static char *mk_norm(size_t sz, void *ctx)
{
    struct job *j = ctx;
    char *buf = malloc(sz);
    if (buf)
        path_normalize(j->a, buf, sz);
    return buf;
}

static char *mk_join(size_t sz, void *ctx)
{
    struct job *j = ctx;
    char *buf = malloc(sz);
    if (buf)
        path_join(j->a, j->b, buf, sz);
    return buf;
}

int main(int argc, char **argv)
{
    int rc = 0;
    if (argc == 4 && strcmp(argv[1], "-j") == 0) {
        struct job j = {argv[2], argv[3]};
        return show(path_join(j.a, j.b, NULL, 0), mk_join, &j);
    }
    if (argc < 2) {
        fprintf(stderr, "usage: pnorm PATH... | pnorm -j BASE REL\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct job j = {argv[i], NULL};
        if (show(path_normalize(argv[i], NULL, 0), mk_norm, &j)) {
            fprintf(stderr, "pnorm: invalid path '%s'\n", argv[i]);
            rc = 1;
        }
    }
    return rc;
}
