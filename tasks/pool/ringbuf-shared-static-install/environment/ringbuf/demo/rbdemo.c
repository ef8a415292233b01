#include <stdio.h>
#include <string.h>
#include "ringbuf.h"

int main(void)
{
    ringbuf_t *rb = rb_create(10);
    char out[64];
    size_t n;

    printf("ringbuf %s capacity=%zu\n", rb_version(), rb_capacity(rb));
    n = rb_write(rb, "hello, ", 7);
    printf("wrote %zu used=%zu\n", n, rb_used(rb));
    n = rb_read(rb, out, 5);
    out[n] = '\0';
    printf("read '%s'\n", out);
    n = rb_write(rb, "wrap-around world", 17);
    printf("wrote %zu used=%zu\n", n, rb_used(rb));
    n = rb_read(rb, out, sizeof out - 1);
    out[n] = '\0';
    printf("read '%s'\n", out);
    rb_destroy(rb);
    return 0;
}
