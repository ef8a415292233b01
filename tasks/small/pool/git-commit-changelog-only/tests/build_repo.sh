#!/bin/bash
# Builds the webshop repository under $1 deterministically (the verifier rebuilds it to compare).
set -e
R="$1/webshop"
export GIT_AUTHOR_NAME="Shop Dev" GIT_AUTHOR_EMAIL="dev@webshop.example" GIT_COMMITTER_NAME="Shop Dev" GIT_COMMITTER_EMAIL="dev@webshop.example"
N=0
commit() {
  N=$((N + 1))
  export GIT_AUTHOR_DATE="2024-03-$(printf %02d $N)T10:00:00+0000" GIT_COMMITTER_DATE="2024-03-$(printf %02d $N)T10:00:00+0000"
  git add -A
  git commit -q -m "$1"
}
mkdir -p "$R"
cd "$R"
git init -q -b main
git config user.name "Shop Dev"
git config user.email "dev@webshop.example"
printf '# webshop\n\nA tiny shop backend.\n' > README.md
printf 'def cart_total(items):\n    return sum(i["price"] * i["qty"] for i in items)\n' > cart.py
printf '# Changelog\n\n## 1.3.0\n- cart totals\n' > CHANGELOG.md
commit "Initial shop backend"
printf 'def apply_coupon(total, percent):\n    return round(total * (1 - percent / 100), 2)\n' > coupons.py
commit "Add coupon support"
# The uncommitted state the user left behind:
printf '# Changelog\n\n## 1.4.0\n- coupon support\n\n## 1.3.0\n- cart totals\n' > CHANGELOG.md
printf 'DEBUG cart_total called with 3 items\nDEBUG apply_coupon(42.0, 10)\n' > debug.log
