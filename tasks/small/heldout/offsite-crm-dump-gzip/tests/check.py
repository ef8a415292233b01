import gzip, hashlib, os, stat, sys, tarfile

FAILS = []


def fail(msg):
    FAILS.append(msg)


def bytes_of(path):
    """The file's bytes, or None (and a failure) when it is missing or not a regular file."""
    if os.path.islink(path) or not os.path.isfile(path):
        fail(f"{path} is missing or not a regular file")
        return None
    with open(path, "rb") as f:
        return f.read()


def expect_bytes(path, want, what="does not have the expected content"):
    got = bytes_of(path)
    if got is not None and got != want:
        fail(f"{path} {what}")


def expect_absent(path, why="should not exist"):
    if os.path.lexists(path):
        fail(f"{path} {why}")


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def expect_listing(directory, names):
    """The directory holds exactly ``names`` (nothing missing, nothing new)."""
    if not os.path.isdir(directory) or os.path.islink(directory):
        fail(f"{directory} is missing or not a directory")
        return
    have = set(os.listdir(directory))
    missing, extra = sorted(set(names) - have), sorted(have - set(names))
    if missing or extra:
        fail(f"{directory}: missing {missing}, unexpected {extra}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


SQL30 = b"-- CRM dump 2024-06-30\nBEGIN TRANSACTION;\nCREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, email TEXT, since TEXT, balance REAL);\nINSERT INTO customers VALUES (1, 'Ines Costa', 'ines.1@example.com', '2024-03-20', 4.92);\nINSERT INTO customers VALUES (2, 'Jonas Weber', 'jonas.2@example.com', '2024-06-27', 34.40);\nINSERT INTO customers VALUES (3, 'Eva Lindqvist', 'eva.3@example.com', '2024-01-13', 61.63);\nINSERT INTO customers VALUES (4, 'Keiko Sato', 'keiko.4@example.com', '2024-02-03', 75.61);\nINSERT INTO customers VALUES (5, 'Ana Lopez', 'ana.5@example.com', '2024-05-08', 4.23);\nINSERT INTO customers VALUES (6, 'Ben Okafor', 'ben.6@example.com', '2024-02-27', 86.97);\nINSERT INTO customers VALUES (7, 'Grace Kim', 'grace.7@example.com', '2024-06-12', 87.68);\nINSERT INTO customers VALUES (8, 'Ben Okafor', 'ben.8@example.com', '2024-04-01', 40.73);\nINSERT INTO customers VALUES (9, 'Jonas Weber', 'jonas.9@example.com', '2024-06-09', 70.25);\nINSERT INTO customers VALUES (10, 'Jonas Weber', 'jonas.10@example.com', '2024-01-22', 45.61);\nINSERT INTO customers VALUES (11, 'Keiko Sato', 'keiko.11@example.com', '2024-05-04', 81.01);\nINSERT INTO customers VALUES (12, 'Eva Lindqvist', 'eva.12@example.com', '2024-02-27', 50.56);\nINSERT INTO customers VALUES (13, 'Eva Lindqvist', 'eva.13@example.com', '2024-03-17', 13.16);\nINSERT INTO customers VALUES (14, 'Chloe Martin', 'chloe.14@example.com', '2024-02-23', 51.54);\nINSERT INTO customers VALUES (15, 'Ben Okafor', 'ben.15@example.com', '2024-01-14', 82.86);\nINSERT INTO customers VALUES (16, 'Eva Lindqvist', 'eva.16@example.com', '2024-02-17', 30.53);\nINSERT INTO customers VALUES (17, 'Hugo Moreau', 'hugo.17@example.com', '2024-06-11', 84.06);\nINSERT INTO customers VALUES (18, 'Hugo Moreau', 'hugo.18@example.com', '2024-06-11', 85.19);\nINSERT INTO customers VALUES (19, 'Farid Haddad', 'farid.19@example.com', '2024-01-01', 16.83);\nINSERT INTO customers VALUES (20, 'Hugo Moreau', 'hugo.20@example.com', '2024-04-09', 78.45);\nINSERT INTO customers VALUES (21, 'Eva Lindqvist', 'eva.21@example.com', '2024-05-09', 27.84);\nINSERT INTO customers VALUES (22, 'Keiko Sato', 'keiko.22@example.com', '2024-02-27', 30.62);\nINSERT INTO customers VALUES (23, 'Ines Costa', 'ines.23@example.com', '2024-03-14', 36.94);\nINSERT INTO customers VALUES (24, 'Dmitri Volkov', 'dmitri.24@example.com', '2024-04-12', 70.73);\nINSERT INTO customers VALUES (25, 'Liam Byrne', 'liam.25@example.com', '2024-05-10', 83.67);\nINSERT INTO customers VALUES (26, 'Grace Kim', 'grace.26@example.com', '2024-06-21', 62.63);\nINSERT INTO customers VALUES (27, 'Eva Lindqvist', 'eva.27@example.com', '2024-06-27', 77.22);\nINSERT INTO customers VALUES (28, 'Farid Haddad', 'farid.28@example.com', '2024-03-17', 22.71);\nINSERT INTO customers VALUES (29, 'Liam Byrne', 'liam.29@example.com', '2024-02-10', 86.63);\nINSERT INTO customers VALUES (30, 'Farid Haddad', 'farid.30@example.com', '2024-01-23', 30.93);\nINSERT INTO customers VALUES (31, 'Ben Okafor', 'ben.31@example.com', '2024-03-18', 5.35);\nINSERT INTO customers VALUES (32, 'Jonas Weber', 'jonas.32@example.com', '2024-05-09', 64.18);\nINSERT INTO customers VALUES (33, 'Liam Byrne', 'liam.33@example.com', '2024-06-18', 6.05);\nINSERT INTO customers VALUES (34, 'Liam Byrne', 'liam.34@example.com', '2024-04-22', 1.09);\nINSERT INTO customers VALUES (35, 'Chloe Martin', 'chloe.35@example.com', '2024-05-16', 61.10);\nINSERT INTO customers VALUES (36, 'Eva Lindqvist', 'eva.36@example.com', '2024-04-27', 84.65);\nINSERT INTO customers VALUES (37, 'Chloe Martin', 'chloe.37@example.com', '2024-02-28', 63.84);\nINSERT INTO customers VALUES (38, 'Ines Costa', 'ines.38@example.com', '2024-01-24', 54.44);\nINSERT INTO customers VALUES (39, 'Ana Lopez', 'ana.39@example.com', '2024-02-14', 78.02);\nINSERT INTO customers VALUES (40, 'Ana Lopez', 'ana.40@example.com', '2024-02-14', 10.50);\nINSERT INTO customers VALUES (41, 'Grace Kim', 'grace.41@example.com', '2024-02-25', 47.93);\nINSERT INTO customers VALUES (42, 'Eva Lindqvist', 'eva.42@example.com', '2024-05-01', 51.55);\nINSERT INTO customers VALUES (43, 'Farid Haddad', 'farid.43@example.com', '2024-01-16', 73.32);\nINSERT INTO customers VALUES (44, 'Keiko Sato', 'keiko.44@example.com', '2024-01-12', 80.13);\nINSERT INTO customers VALUES (45, 'Hugo Moreau', 'hugo.45@example.com', '2024-05-24', 29.06);\nINSERT INTO customers VALUES (46, 'Ben Okafor', 'ben.46@example.com', '2024-02-11', 79.30);\nINSERT INTO customers VALUES (47, 'Grace Kim', 'grace.47@example.com', '2024-01-07', 32.87);\nINSERT INTO customers VALUES (48, 'Hugo Moreau', 'hugo.48@example.com', '2024-06-04', 17.45);\nINSERT INTO customers VALUES (49, 'Grace Kim', 'grace.49@example.com', '2024-01-06', 26.00);\nINSERT INTO customers VALUES (50, 'Liam Byrne', 'liam.50@example.com', '2024-05-12', 3.49);\nINSERT INTO customers VALUES (51, 'Keiko Sato', 'keiko.51@example.com', '2024-06-19', 27.14);\nINSERT INTO customers VALUES (52, 'Liam Byrne', 'liam.52@example.com', '2024-03-17', 87.19);\nINSERT INTO customers VALUES (53, 'Eva Lindqvist', 'eva.53@example.com', '2024-02-20', 57.44);\nINSERT INTO customers VALUES (54, 'Chloe Martin', 'chloe.54@example.com', '2024-05-08', 31.59);\nINSERT INTO customers VALUES (55, 'Liam Byrne', 'liam.55@example.com', '2024-05-20', 22.54);\nINSERT INTO customers VALUES (56, 'Chloe Martin', 'chloe.56@example.com', '2024-04-04', 36.46);\nINSERT INTO customers VALUES (57, 'Farid Haddad', 'farid.57@example.com', '2024-06-17', 23.48);\nINSERT INTO customers VALUES (58, 'Dmitri Volkov', 'dmitri.58@example.com', '2024-02-10', 67.99);\nINSERT INTO customers VALUES (59, 'Dmitri Volkov', 'dmitri.59@example.com', '2024-03-01', 67.90);\nINSERT INTO customers VALUES (60, 'Liam Byrne', 'liam.60@example.com', '2024-03-01', 65.47);\nINSERT INTO customers VALUES (61, 'Eva Lindqvist', 'eva.61@example.com', '2024-06-04', 78.66);\nINSERT INTO customers VALUES (62, 'Eva Lindqvist', 'eva.62@example.com', '2024-01-14', 75.98);\nINSERT INTO customers VALUES (63, 'Ines Costa', 'ines.63@example.com', '2024-01-16', 12.40);\nINSERT INTO customers VALUES (64, 'Dmitri Volkov', 'dmitri.64@example.com', '2024-01-18', 74.19);\nINSERT INTO customers VALUES (65, 'Jonas Weber', 'jonas.65@example.com', '2024-02-19', 0.00);\nINSERT INTO customers VALUES (66, 'Chloe Martin', 'chloe.66@example.com', '2024-01-16', 42.00);\nINSERT INTO customers VALUES (67, 'Ana Lopez', 'ana.67@example.com', '2024-05-25', 12.03);\nINSERT INTO customers VALUES (68, 'Farid Haddad', 'farid.68@example.com', '2024-02-17', 72.30);\nINSERT INTO customers VALUES (69, 'Farid Haddad', 'farid.69@example.com', '2024-06-26', 79.23);\nINSERT INTO customers VALUES (70, 'Keiko Sato', 'keiko.70@example.com', '2024-04-14', 10.30);\nINSERT INTO customers VALUES (71, 'Dmitri Volkov', 'dmitri.71@example.com', '2024-06-03', 28.40);\nINSERT INTO customers VALUES (72, 'Ana Lopez', 'ana.72@example.com', '2024-05-20', 0.82);\nINSERT INTO customers VALUES (73, 'Ben Okafor', 'ben.73@example.com', '2024-01-11', 28.55);\nINSERT INTO customers VALUES (74, 'Eva Lindqvist', 'eva.74@example.com', '2024-01-20', 73.49);\nINSERT INTO customers VALUES (75, 'Liam Byrne', 'liam.75@example.com', '2024-03-23', 87.42);\nINSERT INTO customers VALUES (76, 'Grace Kim', 'grace.76@example.com', '2024-02-02', 89.48);\nINSERT INTO customers VALUES (77, 'Ines Costa', 'ines.77@example.com', '2024-01-28', 18.22);\nINSERT INTO customers VALUES (78, 'Jonas Weber', 'jonas.78@example.com', '2024-04-10', 45.32);\nINSERT INTO customers VALUES (79, 'Ben Okafor', 'ben.79@example.com', '2024-04-06', 43.59);\nINSERT INTO customers VALUES (80, 'Ben Okafor', 'ben.80@example.com', '2024-01-22', 63.56);\nCOMMIT;\n"
SQL29 = b"-- CRM dump 2024-06-29\nBEGIN TRANSACTION;\nCREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, email TEXT, since TEXT, balance REAL);\nINSERT INTO customers VALUES (1, 'Ines Costa', 'ines.1@example.com', '2024-01-12', 47.28);\nINSERT INTO customers VALUES (2, 'Ben Okafor', 'ben.2@example.com', '2024-05-12', 64.37);\nINSERT INTO customers VALUES (3, 'Grace Kim', 'grace.3@example.com', '2024-01-02', 16.99);\nINSERT INTO customers VALUES (4, 'Hugo Moreau', 'hugo.4@example.com', '2024-06-08', 57.27);\nINSERT INTO customers VALUES (5, 'Ben Okafor', 'ben.5@example.com', '2024-04-11', 88.84);\nINSERT INTO customers VALUES (6, 'Grace Kim', 'grace.6@example.com', '2024-06-07', 73.27);\nINSERT INTO customers VALUES (7, 'Chloe Martin', 'chloe.7@example.com', '2024-02-14', 66.85);\nINSERT INTO customers VALUES (8, 'Keiko Sato', 'keiko.8@example.com', '2024-06-19', 85.77);\nINSERT INTO customers VALUES (9, 'Dmitri Volkov', 'dmitri.9@example.com', '2024-05-22', 69.21);\nINSERT INTO customers VALUES (10, 'Eva Lindqvist', 'eva.10@example.com', '2024-03-17', 36.02);\nINSERT INTO customers VALUES (11, 'Grace Kim', 'grace.11@example.com', '2024-04-17', 23.54);\nINSERT INTO customers VALUES (12, 'Eva Lindqvist', 'eva.12@example.com', '2024-03-19', 77.23);\nINSERT INTO customers VALUES (13, 'Grace Kim', 'grace.13@example.com', '2024-05-28', 16.25);\nINSERT INTO customers VALUES (14, 'Liam Byrne', 'liam.14@example.com', '2024-03-28', 22.79);\nINSERT INTO customers VALUES (15, 'Eva Lindqvist', 'eva.15@example.com', '2024-02-23', 55.81);\nINSERT INTO customers VALUES (16, 'Ben Okafor', 'ben.16@example.com', '2024-05-13', 26.75);\nINSERT INTO customers VALUES (17, 'Grace Kim', 'grace.17@example.com', '2024-06-21', 69.79);\nINSERT INTO customers VALUES (18, 'Hugo Moreau', 'hugo.18@example.com', '2024-03-20', 25.50);\nINSERT INTO customers VALUES (19, 'Farid Haddad', 'farid.19@example.com', '2024-06-28', 33.62);\nINSERT INTO customers VALUES (20, 'Keiko Sato', 'keiko.20@example.com', '2024-03-01', 3.58);\nINSERT INTO customers VALUES (21, 'Grace Kim', 'grace.21@example.com', '2024-04-18', 22.26);\nINSERT INTO customers VALUES (22, 'Grace Kim', 'grace.22@example.com', '2024-02-10', 1.55);\nINSERT INTO customers VALUES (23, 'Ana Lopez', 'ana.23@example.com', '2024-06-02', 50.43);\nINSERT INTO customers VALUES (24, 'Ben Okafor', 'ben.24@example.com', '2024-01-21', 84.91);\nINSERT INTO customers VALUES (25, 'Ana Lopez', 'ana.25@example.com', '2024-01-17', 1.36);\nINSERT INTO customers VALUES (26, 'Chloe Martin', 'chloe.26@example.com', '2024-02-23', 73.58);\nINSERT INTO customers VALUES (27, 'Farid Haddad', 'farid.27@example.com', '2024-02-03', 4.53);\nINSERT INTO customers VALUES (28, 'Liam Byrne', 'liam.28@example.com', '2024-02-09', 81.89);\nINSERT INTO customers VALUES (29, 'Ana Lopez', 'ana.29@example.com', '2024-02-07', 18.47);\nINSERT INTO customers VALUES (30, 'Liam Byrne', 'liam.30@example.com', '2024-02-28', 5.51);\nINSERT INTO customers VALUES (31, 'Keiko Sato', 'keiko.31@example.com', '2024-04-28', 36.59);\nINSERT INTO customers VALUES (32, 'Dmitri Volkov', 'dmitri.32@example.com', '2024-02-21', 87.20);\nINSERT INTO customers VALUES (33, 'Dmitri Volkov', 'dmitri.33@example.com', '2024-03-08', 0.17);\nINSERT INTO customers VALUES (34, 'Jonas Weber', 'jonas.34@example.com', '2024-01-26', 41.34);\nINSERT INTO customers VALUES (35, 'Farid Haddad', 'farid.35@example.com', '2024-02-22', 67.95);\nINSERT INTO customers VALUES (36, 'Ana Lopez', 'ana.36@example.com', '2024-03-14', 48.22);\nINSERT INTO customers VALUES (37, 'Jonas Weber', 'jonas.37@example.com', '2024-02-10', 66.76);\nINSERT INTO customers VALUES (38, 'Keiko Sato', 'keiko.38@example.com', '2024-01-14', 8.62);\nINSERT INTO customers VALUES (39, 'Grace Kim', 'grace.39@example.com', '2024-04-16', 4.43);\nINSERT INTO customers VALUES (40, 'Keiko Sato', 'keiko.40@example.com', '2024-03-13', 22.42);\nINSERT INTO customers VALUES (41, 'Chloe Martin', 'chloe.41@example.com', '2024-02-12', 77.14);\nINSERT INTO customers VALUES (42, 'Grace Kim', 'grace.42@example.com', '2024-06-17', 14.11);\nINSERT INTO customers VALUES (43, 'Farid Haddad', 'farid.43@example.com', '2024-02-16', 7.29);\nINSERT INTO customers VALUES (44, 'Hugo Moreau', 'hugo.44@example.com', '2024-02-19', 38.34);\nINSERT INTO customers VALUES (45, 'Hugo Moreau', 'hugo.45@example.com', '2024-02-28', 83.97);\nINSERT INTO customers VALUES (46, 'Keiko Sato', 'keiko.46@example.com', '2024-03-06', 28.81);\nINSERT INTO customers VALUES (47, 'Ana Lopez', 'ana.47@example.com', '2024-06-15', 8.67);\nINSERT INTO customers VALUES (48, 'Keiko Sato', 'keiko.48@example.com', '2024-05-24', 75.97);\nINSERT INTO customers VALUES (49, 'Liam Byrne', 'liam.49@example.com', '2024-03-02', 17.39);\nINSERT INTO customers VALUES (50, 'Eva Lindqvist', 'eva.50@example.com', '2024-02-11', 35.87);\nINSERT INTO customers VALUES (51, 'Ben Okafor', 'ben.51@example.com', '2024-02-23', 26.97);\nINSERT INTO customers VALUES (52, 'Liam Byrne', 'liam.52@example.com', '2024-02-04', 41.03);\nINSERT INTO customers VALUES (53, 'Farid Haddad', 'farid.53@example.com', '2024-03-01', 24.49);\nINSERT INTO customers VALUES (54, 'Farid Haddad', 'farid.54@example.com', '2024-02-27', 37.49);\nINSERT INTO customers VALUES (55, 'Grace Kim', 'grace.55@example.com', '2024-02-21', 40.96);\nINSERT INTO customers VALUES (56, 'Eva Lindqvist', 'eva.56@example.com', '2024-05-11', 52.36);\nINSERT INTO customers VALUES (57, 'Grace Kim', 'grace.57@example.com', '2024-04-10', 34.33);\nINSERT INTO customers VALUES (58, 'Keiko Sato', 'keiko.58@example.com', '2024-01-24', 26.59);\nINSERT INTO customers VALUES (59, 'Jonas Weber', 'jonas.59@example.com', '2024-05-03', 42.05);\nINSERT INTO customers VALUES (60, 'Ben Okafor', 'ben.60@example.com', '2024-01-25', 36.42);\nINSERT INTO customers VALUES (61, 'Dmitri Volkov', 'dmitri.61@example.com', '2024-02-02', 45.11);\nINSERT INTO customers VALUES (62, 'Farid Haddad', 'farid.62@example.com', '2024-06-11', 11.07);\nINSERT INTO customers VALUES (63, 'Eva Lindqvist', 'eva.63@example.com', '2024-06-04', 55.50);\nINSERT INTO customers VALUES (64, 'Liam Byrne', 'liam.64@example.com', '2024-06-14', 59.87);\nINSERT INTO customers VALUES (65, 'Ben Okafor', 'ben.65@example.com', '2024-06-22', 60.09);\nINSERT INTO customers VALUES (66, 'Eva Lindqvist', 'eva.66@example.com', '2024-01-20', 88.06);\nINSERT INTO customers VALUES (67, 'Farid Haddad', 'farid.67@example.com', '2024-02-17', 28.66);\nINSERT INTO customers VALUES (68, 'Ines Costa', 'ines.68@example.com', '2024-01-15', 38.29);\nINSERT INTO customers VALUES (69, 'Farid Haddad', 'farid.69@example.com', '2024-02-25', 71.45);\nINSERT INTO customers VALUES (70, 'Liam Byrne', 'liam.70@example.com', '2024-02-07', 65.62);\nINSERT INTO customers VALUES (71, 'Hugo Moreau', 'hugo.71@example.com', '2024-04-18', 84.15);\nINSERT INTO customers VALUES (72, 'Jonas Weber', 'jonas.72@example.com', '2024-01-07', 40.08);\nINSERT INTO customers VALUES (73, 'Hugo Moreau', 'hugo.73@example.com', '2024-06-12', 51.98);\nINSERT INTO customers VALUES (74, 'Ines Costa', 'ines.74@example.com', '2024-03-17', 35.53);\nINSERT INTO customers VALUES (75, 'Eva Lindqvist', 'eva.75@example.com', '2024-05-24', 38.01);\nINSERT INTO customers VALUES (76, 'Dmitri Volkov', 'dmitri.76@example.com', '2024-06-07', 39.80);\nINSERT INTO customers VALUES (77, 'Dmitri Volkov', 'dmitri.77@example.com', '2024-06-07', 77.56);\nINSERT INTO customers VALUES (78, 'Keiko Sato', 'keiko.78@example.com', '2024-03-25', 6.92);\nCOMMIT;\n"
B = "/app/backups"
PLAIN, PACKED, OLD = B + "/crm-2024-06-30.sql", B + "/crm-2024-06-30.sql.gz", B + "/crm-2024-06-29.sql.gz"


def gunzipped(path, want):
    data = bytes_of(path)
    if data is None:
        return
    if data[:2] != b"\x1f\x8b":
        fail(f"{path} is not gzip-compressed")
        return
    try:
        if gzip.decompress(data) != want:
            fail(f"{path} does not decompress to the dump")
    except (OSError, EOFError) as exc:
        fail(f"{path} is not a valid gzip file: {exc}")


if not os.path.lexists(PLAIN):
    fail(f"{PLAIN} is gone: the uncompressed dump must be kept next to the .gz (the restore drill reads it)")
else:
    expect_bytes(PLAIN, SQL30, "was changed")
gunzipped(PACKED, SQL30)
gunzipped(OLD, SQL29)
expect_listing(B, ["crm-2024-06-30.sql", "crm-2024-06-30.sql.gz", "crm-2024-06-29.sql.gz"])
finish()
