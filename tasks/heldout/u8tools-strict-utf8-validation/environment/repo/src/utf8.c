#include "utf8.h"

static int is_cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

size_t utf8_valid_prefix(const unsigned char *s, size_t n)
{
    size_t i = 0;

    while (i < n) {
        unsigned char c = s[i];
        size_t len, k;

        if (c < 0x80)
            len = 1;
        else if ((c & 0xE0) == 0xC0)
            len = 2;
        else if ((c & 0xF0) == 0xE0)
            len = 3;
        else if ((c & 0xF8) == 0xF0)
            len = 4;
        else
            return i;                  /* stray continuation byte or 0xF8..0xFF */
        if (len > n - i)
            return i;                  /* sequence cut off by the end of input */
        for (k = 1; k < len; k++)
            if (!is_cont(s[i + k]))
                return i;
        i += len;
    }
    return n;
}

size_t utf8_truncate(const unsigned char *s, size_t n, size_t max)
{
    size_t k = max < n ? max : n;

    /* do not end inside a multi-byte character */
    while (k > 0 && is_cont(s[k - 1]))
        k--;
    return k;
}

size_t utf8_count(const unsigned char *s, size_t n)
{
    size_t i, count = 0;

    for (i = 0; i < n; i++)
        if (!is_cont(s[i]))
            count++;
    return count;
}
