#!/bin/bash
set -e
cd /app

# step: inspect the schema and the created_at format
sqlite3 shop.db '.schema'
sqlite3 shop.db "SELECT created_at, status FROM orders LIMIT 5"

# step[easy-to-miss]: create the view, taking the month from the UTC timestamp (strftime applies the offset) and skipping cancelled orders
sqlite3 shop.db <<'SQL'
DROP VIEW IF EXISTS monthly_category_revenue;
CREATE VIEW monthly_category_revenue AS
SELECT strftime('%Y-%m', o.created_at)       AS month,
       p.category                            AS category,
       COUNT(DISTINCT o.id)                  AS orders,
       SUM(i.qty)                            AS units,
       SUM(i.qty * i.unit_price_cents)       AS revenue_cents
FROM orders o
JOIN order_items i ON i.order_id = o.id
JOIN products p    ON p.id = i.product_id
WHERE o.status <> 'cancelled'
GROUP BY 1, 2;
SQL

# step: export the view as CSV with euros and two decimals
mkdir -p reports
sqlite3 -csv -header shop.db \
  "SELECT month, category, orders, units, printf('%.2f', revenue_cents / 100.0) AS revenue
   FROM monthly_category_revenue ORDER BY month, category" > reports/monthly_revenue.csv
