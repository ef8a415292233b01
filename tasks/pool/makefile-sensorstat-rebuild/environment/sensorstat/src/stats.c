#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"

void table_init(struct sensor_table *t)
{
    memset(t, 0, sizeof(*t));
}

int table_add(struct sensor_table *t, const char *id, double value)
{
    int i;
    for (i = 0; i < t->count; i++)
        if (strcmp(t->s[i].id, id) == 0)
            break;
    if (i == t->count) {
        if (t->count == MAX_SENSORS)
            return -1;
        strncpy(t->s[i].id, id, sizeof(t->s[i].id) - 1);
        t->count++;
    }
    struct sensor *s = &t->s[i];
    s->n++;
    s->sum += value;
    s->sumsq += value * value;
    if (value > ALERT_THRESHOLD)
        s->alerts++;
    return 0;
}

double sensor_mean(const struct sensor *s)
{
    return s->n ? s->sum / (double)s->n : 0.0;
}

double sensor_stddev(const struct sensor *s)
{
    if (s->n < 2)
        return 0.0;
    double m = sensor_mean(s);
    double var = (s->sumsq - (double)s->n * m * m) / (double)(s->n - 1);
    return var > 0 ? sqrt(var) : 0.0;
}

static int cmp_id(const void *a, const void *b)
{
    return strcmp(((const struct sensor *)a)->id, ((const struct sensor *)b)->id);
}

void table_sort(struct sensor_table *t)
{
    qsort(t->s, (size_t)t->count, sizeof(t->s[0]), cmp_id);
}
