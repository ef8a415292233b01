/* Verifier harness. One request per line:
 *   V <hex>          -> utf8_valid_prefix
 *   T <max> <hex>    -> utf8_truncate
 *   C <hex>          -> utf8_count
 * Prints one decimal result per line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

static size_t unhex(const char *h, unsigned char *out)
{
    size_t n = 0;
    while (h[0] && h[1] && h[0] != '\n') {
        unsigned int b;
        sscanf(h, "%2x", &b);
        out[n++] = (unsigned char)b;
        h += 2;
    }
    return n;
}

int main(void)
{
    static char line[70000];
    static unsigned char buf[35000];

    while (fgets(line, sizeof line, stdin)) {
        char *p = line + 2;
        size_t n, r;
        if (line[0] == 'T') {
            size_t max = (size_t)strtoul(p, &p, 10);
            while (*p == ' ')
                p++;
            n = unhex(p, buf);
            r = utf8_truncate(buf, n, max);
        } else {
            n = unhex(p, buf);
            r = line[0] == 'V' ? utf8_valid_prefix(buf, n) : utf8_count(buf, n);
        }
        printf("%zu\n", r);
    }
    return 0;
}
