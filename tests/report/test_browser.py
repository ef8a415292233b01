"""The report in a real headless browser (Debian's Chromium driven by Playwright; no browser download).

On a real evolution run (made by ``modularrsi evolve`` once per session) and on the synthetic run:
the page loads from a file with no console error and no request leaving it, every SVG plot renders
with a nonzero size, every navigation link's target exists and clicking it scrolls the section to
the top. A full-page screenshot is saved under the test's temporary directory (its path is printed).
"""

from __future__ import annotations

import shutil

import pytest

from modularrsi.report.render import write_report

INSTALL = ("`make test` installs it (scripts/system-deps.sh installs the Debian packages listed in "
           "scripts/system-packages.txt, as root; the dev extra pins playwright)")


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail(f"chromium is not installed: {INSTALL}")
    return path


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail(f"playwright is not installed: {INSTALL}")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
        yield browser
        browser.close()


def _check_page(browser, html_file, screenshot) -> list[str]:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors, requests = [], []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(html_file.as_uri(), wait_until="load")
    page.click("#toggle-details")  # opens every <details>: plots inside them must render too
    assert page.evaluate("[...document.querySelectorAll('details')].every(d => d.open)")

    sizes = page.evaluate("[...document.querySelectorAll('svg.plot')].map(s => {const r = s.getBoundingClientRect();"
                          " return [s.querySelector('title').textContent, r.width, r.height]})")
    assert sizes, "the report has no plot"
    for title, width, height in sizes:
        assert width > 0 and height > 0, f"plot {title!r} renders at {width}×{height}"

    anchors = page.evaluate("[...document.querySelectorAll('nav a')].map(a => a.getAttribute('href'))")
    assert anchors and all(a.startswith("#") for a in anchors)
    for anchor in anchors:
        assert page.locator(anchor).count() == 1, f"nav link {anchor} has no target"
        page.click(f'nav a[href="{anchor}"]')
        page.wait_for_function(f"Math.abs(document.querySelector('{anchor}').getBoundingClientRect().top - 64) < 40")
        top = page.evaluate(f"document.querySelector('{anchor}').getBoundingClientRect().top")
        nav = page.evaluate("document.querySelector('nav').getBoundingClientRect().bottom")
        assert nav - 1 <= top < nav + 40, f"{anchor}: section top at {top}px after the click (nav ends at {nav}px)"
        assert page.evaluate("location.hash") == anchor

    page.screenshot(path=str(screenshot), full_page=True)
    print(f"report screenshot: {screenshot}")
    assert not errors, f"console errors: {errors}"
    assert all(url.startswith(("file:", "data:", "about:")) for url in requests), requests
    page.close()
    return [a[1:] for a in anchors]


def test_report_of_a_real_evolution_run_in_chromium(browser, evolution_run, tmp_path):
    html_file = write_report(evolution_run, tmp_path / "report.html")
    anchors = _check_page(browser, html_file, tmp_path / "report.png")
    assert {"overview", "headline", "lanes", "buckets", "findings", "lineage", "flips"} <= set(anchors)
    text = html_file.read_text()
    assert "sim: these numbers show the machinery works" in text


def test_report_of_a_synthetic_run_in_chromium(browser, synthetic_run, tmp_path):
    html_file = write_report(synthetic_run, tmp_path / "report.html")
    anchors = _check_page(browser, html_file, tmp_path / "report.png")
    assert anchors == ["overview", "headline", "lanes", "buckets", "findings", "gates", "lineage", "diffs", "flips",
                       "case"]
