#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "parse.h"

int parse_line(const char *line, char *id, unsigned idsz, double *value)
{
    while (isspace((unsigned char)*line))
        line++;
    if (*line == '\0' || *line == '#')
        return -1;
    const char *comma = strchr(line, ',');
    if (!comma || comma == line)
        return -1;
    size_t len = (size_t)(comma - line);
    if (len >= idsz)
        len = idsz - 1;
    memcpy(id, line, len);
    id[len] = '\0';
    char *end;
    *value = strtod(comma + 1, &end);
    if (end == comma + 1)
        return -1;
    return 0;
}
