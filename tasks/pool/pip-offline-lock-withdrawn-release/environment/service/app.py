"""Report service entry point (dependency smoke check)."""
import acme_http
import acme_retry
import certlite
import tabulon
import wcwidth_lite

for mod, name in [(acme_http, "acme-http"), (acme_retry, "acme-retry"), (certlite, "certlite"),
                  (tabulon, "tabulon"), (wcwidth_lite, "wcwidth-lite")]:
    print(f"{name} {mod.__version__}")
