#ifndef TINYHASH_H
#define TINYHASH_H

#include <stddef.h>
#include <stdint.h>

#define TINYHASH_VERSION "2.0.1"

uint32_t th_fnv1a32(const void *data, size_t len);
uint64_t th_fnv1a64(const void *data, size_t len);

#endif
