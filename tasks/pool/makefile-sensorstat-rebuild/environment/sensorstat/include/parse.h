#ifndef SENSORSTAT_PARSE_H
#define SENSORSTAT_PARSE_H

/* Parse "id,value" into id (NUL-terminated, at most idsz-1 chars) and value.
 * Returns 0 on success, -1 for blank/comment/malformed lines. */
int parse_line(const char *line, char *id, unsigned idsz, double *value);

#endif
