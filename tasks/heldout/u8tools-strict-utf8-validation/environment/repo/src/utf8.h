#ifndef U8_UTF8_H
#define U8_UTF8_H

#include <stddef.h>

/* Length in bytes of the longest prefix of s[0..n) that is valid UTF-8
 * (RFC 3629). Returns n if the whole buffer is valid; otherwise the offset of
 * the first byte of the first invalid or incomplete sequence. */
size_t utf8_valid_prefix(const unsigned char *s, size_t n);

/* For valid UTF-8 s[0..n): the largest k <= max (and <= n) such that s[0..k)
 * does not end in the middle of a character. */
size_t utf8_truncate(const unsigned char *s, size_t n, size_t max);

/* Number of characters (code points) in valid UTF-8 s[0..n). */
size_t utf8_count(const unsigned char *s, size_t n);

#endif
