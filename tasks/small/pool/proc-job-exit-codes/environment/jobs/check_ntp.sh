#!/bin/bash
offset=$(cat state/ntp_offset_ms)
echo "offset ${offset}ms" >&2
[ "$offset" -lt 500 ] || exit 3
