#include <stdio.h>
#include <geo/geo.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: georeport ROUTES\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    char a[64], b[64];
    double la1, lo1, la2, lo2, total = 0;
    printf("georeport (libgeo %s)\n", geo_version());
    while (fscanf(f, "%63s %lf %lf %63s %lf %lf", a, &la1, &lo1, b, &la2, &lo2) == 6) {
        double d = geo_haversine_km(la1, lo1, la2, lo2);
        total += d;
        printf("%-10s -> %-10s %9.3f km\n", a, b, d);
    }
    printf("total %.3f km\n", total);
    fclose(f);
    return 0;
}
