import csv, sys
WANT = [['name', 'dept_name'], ['Maya Patel', 'Marketing'], ['Tom Berg', 'Finance'], ['Lina Kovacs', 'Engineering'], ['Omar Haddad', 'unassigned'], ['Sara Lind', 'Finance'], ['Jonas Weber', 'Support'], ['Ines Duarte', 'Marketing'], ['Kofi Mensah', 'unassigned'], ['Yuki Sato', 'Engineering']]
try:
    rows = [r for r in csv.reader(open("/app/hr/roster.csv", newline="")) if r]
except OSError as e:
    sys.exit(f"FAIL: /app/hr/roster.csv: {e}")
rows = [[c.strip() for c in r] for r in rows]
if rows[:1] != WANT[:1]:
    sys.exit(f"FAIL: header must be name,dept_name, got {rows[:1]}")
if rows != WANT:
    sys.exit(f"FAIL: expected {WANT[1:]}, got {rows[1:]}")
print("ok")
