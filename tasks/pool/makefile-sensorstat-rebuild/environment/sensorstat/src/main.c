#include <stdio.h>
#include "stats.h"
#include "parse.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s READINGS.csv\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static struct sensor_table t;
    table_init(&t);
    char line[256], id[32];
    double v;
    while (fgets(line, sizeof line, f))
        if (parse_line(line, id, sizeof id, &v) == 0)
            table_add(&t, id, v);
    fclose(f);
    table_sort(&t);
    printf("threshold %.1f\n", ALERT_THRESHOLD);
    for (int i = 0; i < t.count; i++)
        printf("%-10s n=%-4ld mean=%7.2f sd=%6.2f alerts=%ld\n", t.s[i].id, t.s[i].n,
               sensor_mean(&t.s[i]), sensor_stddev(&t.s[i]), t.s[i].alerts);
    return 0;
}
