#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"

static unsigned char *read_all(FILE *f, size_t *len)
{
    size_t cap = 65536, n = 0, r;
    unsigned char *buf = malloc(cap);

    if (!buf)
        return NULL;
    while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            unsigned char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                return NULL;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    size_t n;
    unsigned char *in;

    if (argc != 2 || (strcmp(argv[1], "-e") != 0 && strcmp(argv[1], "-d") != 0)) {
        fprintf(stderr, "usage: b64tool -e|-d < input > output\n");
        return 2;
    }
    in = read_all(stdin, &n);
    if (!in) {
        perror("b64tool");
        return 1;
    }
    if (argv[1][1] == 'e') {
        char *out = malloc(b64_encoded_len(n) + 1);
        if (!out)
            return 1;
        b64_encode(in, n, out);
        puts(out);
        free(out);
    } else {
        unsigned char *out = malloc(3 * (n / 4) + 3);
        long m;
        if (!out)
            return 1;
        if (n > 0 && in[n - 1] == '\n')
            n--;                    /* the newline -e writes */
        m = b64_decode((const char *)in, n, out);
        if (m < 0) {
            fprintf(stderr, "b64tool: invalid base64 input\n");
            return 1;
        }
        fwrite(out, 1, (size_t)m, stdout);
        free(out);
    }
    free(in);
    return 0;
}
