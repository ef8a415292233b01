"""The evolution pipeline: buckets, signals, analysis, aggregation, editing, gates, lanes, integration."""
