#include <stdio.h>
#include <string.h>
#include "ringbuf.h"

int main(void)
{
    ringbuf_t *rb = rb_create(5);
    if (!rb || rb_capacity(rb) != 8) return 10;
    if (strcmp(rb_version(), "1.2.0") != 0) return 11;
    char out[16];
    if (rb_write(rb, "abcdefghij", 10) != 8) return 12;
    if (rb_read(rb, out, 3) != 3 || memcmp(out, "abc", 3) != 0) return 13;
    if (rb_write(rb, "XYZ", 3) != 3) return 14;
    size_t n = rb_read(rb, out, sizeof out);
    if (n != 8 || memcmp(out, "defghXYZ", 8) != 0) return 15;
    if (rb_used(rb) != 0) return 16;
    rb_destroy(rb);
    puts("api-ok");
    return 0;
}
