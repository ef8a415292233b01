#!/bin/bash
set -e
# step: look at the catalogs and their modes
ls -l /app/locale
# step: rename each upload over the old catalog
for l in de fr es; do mv /app/locale/$l.po.new /app/locale/$l.po; done
# step[easy-to-miss]: the installed catalogs must be readable by the web server (0644, not the uploads' 0600)
chmod 0644 /app/locale/de.po /app/locale/fr.po /app/locale/es.po
ls -l /app/locale
