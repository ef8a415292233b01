#include <stdio.h>
#include <tinyhash.h>
int main(void)
{
    printf("%08x %s\n", (unsigned)th_fnv1a32("abc", 3), TINYHASH_VERSION);
    return 0;
}
