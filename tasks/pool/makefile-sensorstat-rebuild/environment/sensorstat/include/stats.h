#ifndef SENSORSTAT_STATS_H
#define SENSORSTAT_STATS_H

#include "config.h"

struct sensor {
    char id[32];
    long n;
    double sum;
    double sumsq;
    long alerts;
};

struct sensor_table {
    struct sensor s[MAX_SENSORS];
    int count;
};

void table_init(struct sensor_table *t);
int table_add(struct sensor_table *t, const char *id, double value);
double sensor_mean(const struct sensor *s);
double sensor_stddev(const struct sensor *s);
void table_sort(struct sensor_table *t);

#endif
