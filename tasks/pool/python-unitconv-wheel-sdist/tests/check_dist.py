import os, subprocess, sys, tarfile, zipfile, tempfile

dist = "/app/dist"
names = sorted(os.listdir(dist)) if os.path.isdir(dist) else []
want = ["unitconv-1.4.0-py3-none-any.whl", "unitconv-1.4.0.tar.gz"]
if names != want:
    sys.exit(f"dist contents {names} != {want}")
whl = os.path.join(dist, want[0])
sdist = os.path.join(dist, want[1])
w = tempfile.mkdtemp()

with zipfile.ZipFile(whl) as z:
    members = z.namelist()
    if "unitconv/data/units.json" not in members:
        sys.exit("units.json missing from wheel")
    meta = z.read("unitconv-1.4.0.dist-info/METADATA").decode()
    if "\nVersion: 1.4.0\n" not in meta:
        sys.exit("wheel METADATA version is not 1.4.0")
    ep = z.read("unitconv-1.4.0.dist-info/entry_points.txt").decode()
    if "unitconv = unitconv.cli:main" not in ep.replace("  ", " "):
        sys.exit("console script entry point missing")
    site = os.path.join(w, "site")
    z.extractall(site)

env = dict(os.environ, PYTHONPATH=site)
cwd = os.path.join(w, "empty"); os.mkdir(cwd)
r = subprocess.run([sys.executable, "-c", "import sys; from unitconv.cli import main; sys.exit(main(sys.argv[1:]))", "5", "km", "mi"],
                   env=env, cwd=cwd, capture_output=True, text=True)
if r.returncode != 0 or r.stdout.strip() != "3.10686 mi":
    sys.exit(f"installed package does not work: rc={r.returncode} out={r.stdout!r} err={r.stderr[-400:]!r}")
r = subprocess.run([sys.executable, "-c", "import unitconv, sys; print(unitconv.__file__)"], env=env, cwd=cwd, capture_output=True, text=True)
if not r.stdout.startswith(site):
    sys.exit("package not imported from the wheel contents")

with tarfile.open(sdist) as t:
    tn = t.getnames()
    for need in ["unitconv-1.4.0/pyproject.toml", "unitconv-1.4.0/PKG-INFO",
                 "unitconv-1.4.0/tests/test_convert.py", "unitconv-1.4.0/src/unitconv/data/units.json"]:
        if need not in tn:
            sys.exit(f"{need} missing from sdist")
    pkg = t.extractfile("unitconv-1.4.0/PKG-INFO").read().decode()
    if "\nVersion: 1.4.0\n" not in pkg:
        sys.exit("sdist PKG-INFO version is not 1.4.0")
    t.extractall(os.path.join(w, "sd"))

root = os.path.join(w, "sd", "unitconv-1.4.0")
r = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", "tests"], env=env, cwd=root, capture_output=True, text=True)
if r.returncode != 0:
    sys.exit("tests from the sdist fail: " + r.stderr[-600:])
print("dist ok")
