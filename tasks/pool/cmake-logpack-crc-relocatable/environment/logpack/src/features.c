#include "logpack.h"

const char *lp_features(void)
{
#ifdef LOGPACK_WITH_CRC
    return "logpack 0.9.3\ncrc32: on\n";
#else
    return "logpack 0.9.3\ncrc32: off\n";
#endif
}
