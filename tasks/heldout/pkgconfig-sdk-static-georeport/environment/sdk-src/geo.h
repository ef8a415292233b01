#ifndef GEO_H
#define GEO_H

/* Great-circle distance in kilometres between two WGS84 points given in degrees. */
double geo_haversine_km(double lat1, double lon1, double lat2, double lon2);
/* SDK version string, e.g. "3.1.0". */
const char *geo_version(void);

#endif
