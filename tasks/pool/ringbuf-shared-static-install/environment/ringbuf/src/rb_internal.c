#include <string.h>
#include "rb_internal.h"

size_t rb_internal_next_pow2(size_t n)
{
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

void rb_internal_copy_in(unsigned char *buf, size_t mask, size_t pos, const unsigned char *src, size_t len)
{
    size_t start = pos & mask, cap = mask + 1;
    size_t first = len < cap - start ? len : cap - start;
    memcpy(buf + start, src, first);
    memcpy(buf, src + first, len - first);
}

void rb_internal_copy_out(const unsigned char *buf, size_t mask, size_t pos, unsigned char *dst, size_t len)
{
    size_t start = pos & mask, cap = mask + 1;
    size_t first = len < cap - start ? len : cap - start;
    memcpy(dst, buf + start, first);
    memcpy(dst + first, buf, len - first);
}
