#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

#define LINE_MAX_BYTES 65536

static int check_stream(FILE *f, const char *name)
{
    static unsigned char line[LINE_MAX_BYTES];
    long lineno = 0;

    while (fgets((char *)line, sizeof line, f)) {
        size_t n = strlen((char *)line), ok;
        lineno++;
        ok = utf8_valid_prefix(line, n);
        if (ok != n) {
            printf("%s:%ld:%zu: invalid UTF-8\n", name, lineno, ok + 1);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    static unsigned char line[LINE_MAX_BYTES];

    if (argc >= 2 && strcmp(argv[1], "check") == 0) {
        int i, bad = 0;
        if (argc == 2)
            return check_stream(stdin, "-");
        for (i = 2; i < argc; i++) {
            FILE *f = fopen(argv[i], "rb");
            if (!f) {
                perror(argv[i]);
                return 2;
            }
            bad |= check_stream(f, argv[i]);
            fclose(f);
        }
        return bad;
    }
    if (argc == 3 && strcmp(argv[1], "trunc") == 0) {
        size_t max = (size_t)strtoul(argv[2], NULL, 10);
        while (fgets((char *)line, sizeof line, stdin)) {
            size_t n = strcspn((char *)line, "\n");
            size_t k = utf8_truncate(line, n, max);
            fwrite(line, 1, k, stdout);
            putchar('\n');
        }
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "count") == 0) {
        while (fgets((char *)line, sizeof line, stdin)) {
            size_t n = strcspn((char *)line, "\n");
            printf("%zu\n", utf8_count(line, n));
        }
        return 0;
    }
    fprintf(stderr, "usage: u8 check [FILE...] | u8 trunc MAX | u8 count\n");
    return 2;
}
