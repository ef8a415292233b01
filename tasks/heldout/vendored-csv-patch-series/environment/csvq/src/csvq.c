#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "minicsv.h"

#define MAXF 64

static void usage(void)
{
    fprintf(stderr, "usage: csvq [-s] COLUMN FILE\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int sum = 0, a = 1;
    if (argc > 1 && strcmp(argv[1], "-s") == 0) {
        sum = 1;
        a++;
    }
    if (argc - a != 2)
        usage();
    const char *col = argv[a];
    FILE *f = fopen(argv[a + 1], "r");
    if (!f) {
        perror(argv[a + 1]);
        return 1;
    }
    char line[4096];
    char *fields[MAXF];
    int idx = -1;
    double total = 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return 1;
    }
    int n = minicsv_split(line, fields, MAXF);
    for (int i = 0; i < n; i++)
        if (strcmp(fields[i], col) == 0)
            idx = i;
    if (idx < 0) {
        fprintf(stderr, "csvq: no column '%s'\n", col);
        fclose(f);
        return 1;
    }
    while (fgets(line, sizeof line, f)) {
        n = minicsv_split(line, fields, MAXF);
        if (idx >= n)
            continue;
        if (sum)
            total += strtod(fields[idx], NULL);
        else
            puts(fields[idx]);
    }
    fclose(f);
    if (sum)
        printf("%.2f\n", total);
    return 0;
}
