/* minicsv 0.4 - tiny in-place CSV line splitter (vendored, see patches/ for local changes) */
#ifndef MINICSV_H
#define MINICSV_H

#define MINICSV_DELIM ','

/* Split `line` in place into at most `max` fields; returns the number of fields. */
int minicsv_split(char *line, char **fields, int max);

#endif
