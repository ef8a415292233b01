#include "semver.h"

/* TODO: implement according to include/semver.h */

int semver_valid(const char *s)
{
    (void)s;
    return 0;
}

int semver_compare(const char *a, const char *b, int *result)
{
    (void)a;
    (void)b;
    (void)result;
    return SEMVER_EINVAL;
}

int semver_normalize(const char *s, char *buf, size_t n)
{
    (void)s;
    (void)buf;
    (void)n;
    return SEMVER_EINVAL;
}
