import csv, sys
WANT = [['email', 'name', 'signed_up'], ['ana.silva@mail.example', 'Ana Silva', '2024-02-01'], ['ben.okoro@mail.example', 'Ben Okoro', '2024-02-01'], ['chloe.martin@mail.example', 'Chloe Martin', '2024-02-02'], ['dev.rao@mail.example', 'Dev Rao', '2024-02-03'], ['eva.novak@mail.example', 'Eva Novak', '2024-02-05'], ['finn.hale@mail.example', 'Finn Hale', '2024-02-06'], ['gia.russo@mail.example', 'Gia Russo', '2024-02-08']]
try:
    rows = [[c.strip() for c in r] for r in csv.reader(open("/app/signups_dedup.csv", newline="")) if r]
except OSError as e:
    sys.exit(f"FAIL: /app/signups_dedup.csv: {e}")
if rows[:1] != WANT[:1]:
    sys.exit(f"FAIL: header must be email,name,signed_up, got {rows[:1]}")
if rows != WANT:
    sys.exit(f"FAIL: expected {len(WANT) - 1} rows {WANT[1:]}, got {len(rows) - 1}: {rows[1:]}")
print("ok")
