#include <math.h>
#include "geo.h"

#ifdef GEO_V3
#define EARTH_RADIUS_KM 6371.0088
#define GEO_VERSION_STR "3.1.0"
#else
#define EARTH_RADIUS_KM 6371.0
#define GEO_VERSION_STR "2.4.2"
#endif

static double rad(double d) { return d * 3.14159265358979323846 / 180.0; }

double geo_haversine_km(double lat1, double lon1, double lat2, double lon2)
{
    double dlat = rad(lat2 - lat1), dlon = rad(lon2 - lon1);
    double a = sin(dlat / 2) * sin(dlat / 2) +
               cos(rad(lat1)) * cos(rad(lat2)) * sin(dlon / 2) * sin(dlon / 2);
    return 2.0 * EARTH_RADIUS_KM * asin(sqrt(a));
}

const char *geo_version(void) { return GEO_VERSION_STR; }
