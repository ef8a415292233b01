#!/bin/bash
set -e
# step: list the PDO and SQLite extension lines
grep -n -e 'pdo' -e 'sqlite' /app/etc/php/8.2/cli/php.ini
# step[easy-to-miss]: uncomment exactly the pdo_sqlite line (not pdo_mysql, pdo_pgsql or sqlite3)
sed -i 's/^;extension=pdo_sqlite$/extension=pdo_sqlite/' /app/etc/php/8.2/cli/php.ini
grep -n '^extension=' /app/etc/php/8.2/cli/php.ini
