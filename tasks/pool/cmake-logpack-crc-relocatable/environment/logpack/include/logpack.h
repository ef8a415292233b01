#ifndef LOGPACK_H
#define LOGPACK_H

/* Return codes */
#define LP_OK 0
#define LP_CORRUPT 1
#define LP_IOERR 2
#define LP_UNSUPPORTED 3

/* Pack file `in` into `out`. */
int lp_pack(const char *in, const char *out);
/* Unpack `in` into `out` (checks the CRC trailer when built with CRC support). */
int lp_unpack(const char *in, const char *out);
/* Verify the CRC trailer of a packed file. */
int lp_verify(const char *path);
/* Human-readable feature list, one "name: on|off" per line. */
const char *lp_features(void);

#endif
