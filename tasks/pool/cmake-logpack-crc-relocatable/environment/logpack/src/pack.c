#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "logpack.h"

#ifdef LOGPACK_WITH_CRC
uint32_t lp_crc32(const unsigned char *p, size_t n);
#endif

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int lp_pack(const char *in, const char *out)
{
    size_t n;
    unsigned char *data = slurp(in, &n);
    if (!data)
        return LP_IOERR;
    FILE *f = fopen(out, "wb");
    if (!f) {
        free(data);
        return LP_IOERR;
    }
    unsigned char hdr[9] = {'L', 'P', 'K', '1', 0};
    put32(hdr + 4, (uint32_t)n);
#ifdef LOGPACK_WITH_CRC
    hdr[8] = 'C';
#else
    hdr[8] = '-';
#endif
    fwrite(hdr, 1, sizeof hdr, f);
    for (size_t i = 0; i < n; i++)
        fputc(data[i] ^ 0x5A, f);
#ifdef LOGPACK_WITH_CRC
    unsigned char t[4];
    put32(t, lp_crc32(data, n));
    fwrite(t, 1, 4, f);
#endif
    free(data);
    return fclose(f) == 0 ? LP_OK : LP_IOERR;
}

static int decode(const char *in, unsigned char **plain, size_t *plen)
{
    size_t n;
    unsigned char *raw = slurp(in, &n);
    if (!raw)
        return LP_IOERR;
    if (n < 9 || memcmp(raw, "LPK1", 4) != 0) {
        free(raw);
        return LP_CORRUPT;
    }
    uint32_t len = get32(raw + 4);
    int has_crc = raw[8] == 'C';
    if (n != 9 + (size_t)len + (has_crc ? 4 : 0)) {
        free(raw);
        return LP_CORRUPT;
    }
#ifndef LOGPACK_WITH_CRC
    if (has_crc) {
        free(raw);
        return LP_UNSUPPORTED;
    }
#endif
    unsigned char *p = malloc(len ? len : 1);
    for (uint32_t i = 0; i < len; i++)
        p[i] = raw[9 + i] ^ 0x5A;
#ifdef LOGPACK_WITH_CRC
    if (has_crc && lp_crc32(p, len) != get32(raw + 9 + len)) {
        free(raw);
        free(p);
        return LP_CORRUPT;
    }
#endif
    free(raw);
    *plain = p;
    *plen = len;
    return LP_OK;
}

int lp_unpack(const char *in, const char *out)
{
    unsigned char *p;
    size_t n;
    int rc = decode(in, &p, &n);
    if (rc != LP_OK)
        return rc;
    FILE *f = fopen(out, "wb");
    if (!f) {
        free(p);
        return LP_IOERR;
    }
    fwrite(p, 1, n, f);
    free(p);
    return fclose(f) == 0 ? LP_OK : LP_IOERR;
}

int lp_verify(const char *path)
{
#ifndef LOGPACK_WITH_CRC
    (void)path;
    return LP_UNSUPPORTED;
#else
    unsigned char *p;
    size_t n;
    int rc = decode(path, &p, &n);
    if (rc == LP_OK)
        free(p);
    return rc;
#endif
}
