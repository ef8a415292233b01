/* reads "N\tpath" or "J\tbase\trel" lines, prints the result (or ERR) per line.
 * Uses exactly-sized buffers obtained from a size query, plus an oversized one, and checks both agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pathnorm.h"

static char line[1 << 17];

int main(void)
{
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char *a = line + 2, *b = NULL;
        int join = line[0] == 'J';
        if (join) {
            b = strchr(a, '\t');
            if (!b) { puts("BADINPUT"); continue; }
            *b++ = '\0';
        }
        long n = join ? path_join(a, b, NULL, 0) : path_normalize(a, NULL, 0);
        if (n < 0) { puts("ERR"); continue; }
        char *buf = malloc((size_t)n + 1);
        long m = join ? path_join(a, b, buf, (size_t)n + 1) : path_normalize(a, buf, (size_t)n + 1);
        if (m != n || strlen(buf) != (size_t)n) { printf("SIZE-MISMATCH %ld %ld\n", n, m); free(buf); continue; }
        puts(buf);
        free(buf);
    }
    return 0;
}
