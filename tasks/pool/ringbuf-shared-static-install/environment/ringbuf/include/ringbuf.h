#ifndef RINGBUF_H
#define RINGBUF_H

#include <stddef.h>

#define RINGBUF_VERSION "1.2.0"

typedef struct ringbuf ringbuf_t;

/* Create a buffer; capacity is rounded up to the next power of two. NULL on failure. */
ringbuf_t *rb_create(size_t capacity);
void rb_destroy(ringbuf_t *rb);

/* Copy up to len bytes in/out; return the number of bytes actually copied. */
size_t rb_write(ringbuf_t *rb, const void *data, size_t len);
size_t rb_read(ringbuf_t *rb, void *out, size_t len);

size_t rb_used(const ringbuf_t *rb);
size_t rb_capacity(const ringbuf_t *rb);
const char *rb_version(void);

#endif
