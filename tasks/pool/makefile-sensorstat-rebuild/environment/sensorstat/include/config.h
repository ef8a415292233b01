#ifndef SENSORSTAT_CONFIG_H
#define SENSORSTAT_CONFIG_H

/* Readings strictly above this value count as an alert. */
#define ALERT_THRESHOLD 75.0

/* Maximum number of distinct sensors tracked. */
#define MAX_SENSORS 64

#endif
