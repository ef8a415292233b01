#include "pathnorm.h"

/* TODO: implement as documented in include/pathnorm.h */

long path_normalize(const char *in, char *out, size_t outsz)
{
    (void)in;
    (void)out;
    (void)outsz;
    return -1;
}

long path_join(const char *base, const char *rel, char *out, size_t outsz)
{
    (void)base;
    (void)rel;
    (void)out;
    (void)outsz;
    return -1;
}
