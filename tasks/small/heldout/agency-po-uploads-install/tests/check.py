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


NEW = {k: v.encode() for k, v in {'de': '# de translation of the shop front end.\nmsgid ""\nmsgstr ""\n"Project-Id-Version: shop-frontend 3.1\\n"\n"PO-Revision-Date: 2024-06-18 15:42+0200\\n"\n"Language-Team: Deutsch\\n"\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "Add to cart"\nmsgstr "In den Warenkorb"\n\nmsgid "Checkout"\nmsgstr "Zur Kasse"\n\nmsgid "Free shipping"\nmsgstr "Kostenloser Versand"\n', 'fr': '# fr translation of the shop front end.\nmsgid ""\nmsgstr ""\n"Project-Id-Version: shop-frontend 3.1\\n"\n"PO-Revision-Date: 2024-06-18 15:42+0200\\n"\n"Language-Team: Francais\\n"\n"Language: fr\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "Add to cart"\nmsgstr "Ajouter au panier"\n\nmsgid "Checkout"\nmsgstr "Passer la commande"\n\nmsgid "Free shipping"\nmsgstr "Livraison gratuite"\n', 'es': '# es translation of the shop front end.\nmsgid ""\nmsgstr ""\n"Project-Id-Version: shop-frontend 3.1\\n"\n"PO-Revision-Date: 2024-06-18 15:42+0200\\n"\n"Language-Team: Espanol\\n"\n"Language: es\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "Add to cart"\nmsgstr "Anadir a la cesta"\n\nmsgid "Checkout"\nmsgstr "Finalizar compra"\n\nmsgid "Free shipping"\nmsgstr "Envio gratuito"\n'}.items()}
IT = b'# it translation of the shop front end.\nmsgid ""\nmsgstr ""\n"Project-Id-Version: shop-frontend 3.1\\n"\n"PO-Revision-Date: 2024-02-01 10:00+0100\\n"\n"Language-Team: Italiano\\n"\n"Language: it\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "Add to cart"\nmsgstr "Aggiungi al carrello"\n\nmsgid "Checkout"\nmsgstr "Cassa"\n'
D = "/app/locale"
for lang, data in NEW.items():
    path = f"{D}/{lang}.po"
    expect_bytes(path, data, "does not hold the agency's updated catalog")
    if os.path.isfile(path) and not os.path.islink(path) and mode_of(path) == 0o600:
        fail(f"{path} still has the upload's mode 0600; the web server cannot read it (expected 0644)")
    else:
        expect_mode(path, 0o644)
    expect_absent(f"{D}/{lang}.po.new", "is still there: no .new file may be left")
expect_bytes(D + "/it.po", IT, "was changed")
expect_mode(D + "/it.po", 0o644)
expect_listing(D, ["de.po", "fr.po", "es.po", "it.po"])
finish()
