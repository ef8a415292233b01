import os, stat, sys

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


def expect_bytes(path, want):
    got = bytes_of(path)
    if got is not None and got != want:
        fail(f"{path} does not have the expected content")


def expect_absent(path):
    if os.path.lexists(path):
        fail(f"{path} should not exist any more")


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


TPL = {'app.py': b"from app import create_app\n\napp = create_app()\n\nif __name__ == '__main__':\n    app.run()\n", 'requirements.txt': b'flask==3.0.3\npython-dotenv==1.0.1\n', '.env.example': b'FLASK_ENV=development\nDATABASE_URL=sqlite:///dev.db\n', 'app/__init__.py': b'from flask import Flask\n\n\ndef create_app():\n    app = Flask(__name__)\n    from . import routes\n    app.register_blueprint(routes.bp)\n    return app\n', 'app/routes.py': b"from flask import Blueprint\n\nbp = Blueprint('main', __name__)\n\n\n@bp.get('/health')\ndef health():\n    return {'ok': True}\n", 'app/templates/base.html': b'<!doctype html>\n<title>{% block title %}{% endblock %}</title>\n{% block body %}{% endblock %}\n', 'tests/test_health.py': b"def test_health(client):\n    assert client.get('/health').json == {'ok': True}\n"}
BILLING = b'# billing-api, started from flask-starter in March\n'

def tree(root):
    found = set()
    for d, dirs, files in os.walk(root):
        for n in files + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            found.add(os.path.relpath(os.path.join(d, n), root))
    return found


for root in ("/app/templates/flask-starter", "/app/projects/inventory-api"):
    if not os.path.isdir(root) or os.path.islink(root):
        fail(f"{root} is not a directory")
        continue
    have = tree(root)
    if have != set(TPL):
        missing, extra = sorted(set(TPL) - have), sorted(have - set(TPL))
        fail(f"{root}: missing {missing}, unexpected {extra}")
    for rel, want in TPL.items():
        if rel in have:
            expect_bytes(os.path.join(root, rel), want)
expect_bytes("/app/projects/billing-api/NOTES.md", BILLING)
finish()
