#include <stdlib.h>
#include "ringbuf.h"
#include "rb_internal.h"

struct ringbuf {
    unsigned char *buf;
    size_t mask;
    size_t head; /* total bytes written */
    size_t tail; /* total bytes read */
};

ringbuf_t *rb_create(size_t capacity)
{
    if (capacity == 0)
        return NULL;
    ringbuf_t *rb = malloc(sizeof *rb);
    if (!rb)
        return NULL;
    size_t cap = rb_internal_next_pow2(capacity);
    rb->buf = malloc(cap);
    if (!rb->buf) {
        free(rb);
        return NULL;
    }
    rb->mask = cap - 1;
    rb->head = rb->tail = 0;
    return rb;
}

void rb_destroy(ringbuf_t *rb)
{
    if (rb) {
        free(rb->buf);
        free(rb);
    }
}

size_t rb_used(const ringbuf_t *rb) { return rb->head - rb->tail; }
size_t rb_capacity(const ringbuf_t *rb) { return rb->mask + 1; }
const char *rb_version(void) { return RINGBUF_VERSION; }

size_t rb_write(ringbuf_t *rb, const void *data, size_t len)
{
    size_t room = rb_capacity(rb) - rb_used(rb);
    if (len > room)
        len = room;
    rb_internal_copy_in(rb->buf, rb->mask, rb->head, data, len);
    rb->head += len;
    return len;
}

size_t rb_read(ringbuf_t *rb, void *out, size_t len)
{
    size_t used = rb_used(rb);
    if (len > used)
        len = used;
    rb_internal_copy_out(rb->buf, rb->mask, rb->tail, out, len);
    rb->tail += len;
    return len;
}
