#include <string.h>
#include "minicsv.h"

int minicsv_split(char *line, char **fields, int max)
{
    size_t len = strlen(line);
    if (len && line[len - 1] == '\n')
        line[--len] = '\0';
    int n = 0;
    char *p = line;
    while (n < max) {
        fields[n++] = p;
        char *d = strchr(p, MINICSV_DELIM);
        if (!d)
            break;
        *d = '\0';
        p = d + 1;
    }
    return n;
}
