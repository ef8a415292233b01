#include <stdio.h>
#include <string.h>
#include "logpack.h"

static const char *msg(int rc)
{
    switch (rc) {
    case LP_OK: return "ok";
    case LP_CORRUPT: return "corrupt";
    case LP_IOERR: return "i/o error";
    case LP_UNSUPPORTED: return "not supported by this build";
    }
    return "?";
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--features") == 0) {
        fputs(lp_features(), stdout);
        return 0;
    }
    int rc;
    if (argc == 4 && strcmp(argv[1], "pack") == 0)
        rc = lp_pack(argv[2], argv[3]);
    else if (argc == 4 && strcmp(argv[1], "unpack") == 0)
        rc = lp_unpack(argv[2], argv[3]);
    else if (argc == 3 && strcmp(argv[1], "verify") == 0)
        rc = lp_verify(argv[2]);
    else {
        fprintf(stderr, "usage: logpack --features | pack IN OUT | unpack IN OUT | verify FILE\n");
        return 64;
    }
    printf("%s: %s\n", argv[1], msg(rc));
    return rc;
}
