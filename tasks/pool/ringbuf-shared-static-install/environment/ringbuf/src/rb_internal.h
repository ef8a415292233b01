#ifndef RB_INTERNAL_H
#define RB_INTERNAL_H

#include <stddef.h>

/* Internal helpers shared between the library's translation units. Not part of the ABI. */
size_t rb_internal_next_pow2(size_t n);
void rb_internal_copy_in(unsigned char *buf, size_t mask, size_t pos, const unsigned char *src, size_t len);
void rb_internal_copy_out(const unsigned char *buf, size_t mask, size_t pos, unsigned char *dst, size_t len);

#endif
