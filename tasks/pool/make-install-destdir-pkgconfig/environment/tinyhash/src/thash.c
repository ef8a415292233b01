#include <stdio.h>
#include <string.h>
#include <inttypes.h>
#include "tinyhash.h"

int main(int argc, char **argv)
{
    int wide = 0, i = 1;
    if (argc > 1 && strcmp(argv[1], "-64") == 0) {
        wide = 1;
        i++;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: thash [-64] STRING...\n");
        return 2;
    }
    for (; i < argc; i++) {
        if (wide)
            printf("%016" PRIx64 "  %s\n", th_fnv1a64(argv[i], strlen(argv[i])), argv[i]);
        else
            printf("%08" PRIx32 "  %s\n", th_fnv1a32(argv[i], strlen(argv[i])), argv[i]);
    }
    return 0;
}
