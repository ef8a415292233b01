#ifndef B64_H
#define B64_H

#include <stddef.h>

/* Number of characters b64_encode() produces for n input bytes (without the NUL). */
size_t b64_encoded_len(size_t n);

/* Encode n bytes; writes b64_encoded_len(n) characters plus a NUL to out.
 * Returns the number of characters written (without the NUL). */
size_t b64_encode(const unsigned char *in, size_t n, char *out);

/* Decode n characters of base64 text into out (which must hold at least
 * 3 * (n / 4) + 3 bytes). Returns the number of decoded bytes, or -1 if the
 * input is not valid base64. */
long b64_decode(const char *in, size_t n, unsigned char *out);

#endif
