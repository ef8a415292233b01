#include "b64.h"

static const char ALPHABET[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int value_of(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

size_t b64_encoded_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

size_t b64_encode(const unsigned char *in, size_t n, char *out)
{
    size_t i, o = 0;

    for (i = 0; i + 2 < n; i += 3) {
        unsigned long v = ((unsigned long)in[i] << 16) | ((unsigned long)in[i + 1] << 8) | in[i + 2];
        out[o++] = ALPHABET[(v >> 18) & 63];
        out[o++] = ALPHABET[(v >> 12) & 63];
        out[o++] = ALPHABET[(v >> 6) & 63];
        out[o++] = ALPHABET[v & 63];
    }
    if (i < n) {
        unsigned long v = (unsigned long)in[i] << 16;
        if (i + 1 < n)
            v |= (unsigned long)in[i + 1] << 8;
        out[o++] = ALPHABET[(v >> 18) & 63];
        out[o++] = ALPHABET[(v >> 12) & 63];
        out[o++] = (i + 1 < n) ? ALPHABET[(v >> 6) & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
    return o;
}

long b64_decode(const char *in, size_t n, unsigned char *out)
{
    size_t i, o = 0;
    unsigned long acc = 0;
    int bits = 0, pad = 0;

    for (i = 0; i < n; i++) {
        int v;
        if (in[i] == '=') {
            pad++;
            v = 0;
        } else {
            if (pad)
                return -1;          /* data after padding */
            v = value_of(in[i]);
            if (v < 0)
                return -1;
        }
        acc = ((acc << 6) | (unsigned long)v) & 0xFFFFFF;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)((acc >> bits) & 0xFF);
        }
    }
    if (pad > 2)
        return -1;
    return (long)o;
}
