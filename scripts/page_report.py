"""Height at 1280 px, reading time, visible asserts and pictures of every page of the built book
(run `make book` first).

    .venv/bin/python scripts/page_report.py            # a Markdown table on stdout

Reading time: the page's prose at 200 words a minute plus its shown code at 10 lines a minute
(code is read slowly, and run), rounded up. Height: `document.documentElement.scrollHeight` of
the page in headless Chromium with a 1280 x 900 viewport, served over HTTP as the browser tests
serve it, once its widgets have rendered. Asserts: of the code lines shown without a click
(tests/test_notebooks.py holds each chapter to 5 %). Pictures: the figures and explorers the
page draws.
"""

import functools
import http.server
import pathlib
import shutil
import sys
import threading

from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from book_pages import pictures, proof_lines, reading_minutes, visible_code_lines  # noqa: E402
BUILD = ROOT / "_build" / "html"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the signature is http.server's
        pass


def main() -> int:
    pages = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if not (BUILD / "index.html").exists():
        print("the book is not built: run `make book` first", file=sys.stderr)
        return 1
    handler = functools.partial(_QuietHandler, directory=str(BUILD))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    print("| page | height (px at 1280) | reading (min) | visible asserts | pictures |\n"
          "| --- | ---: | ---: | ---: | --- |")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for notebook in pages:
            page.goto(f"{base}/notebooks/{notebook.stem}.html", wait_until="networkidle")
            widgets = page.locator(
                "script[type='application/vnd.jupyter.widget-view+json']").count()
            if widgets:
                page.wait_for_function(
                    "n => document.querySelectorAll('.widget-subarea > *, .jupyter-widgets')"
                    ".length >= n", arg=widgets, timeout=20_000)
            height = page.evaluate("document.documentElement.scrollHeight")
            lines = visible_code_lines(notebook)
            drawn = pictures(notebook)
            kinds = ", ".join(f"{drawn.count(k)} {k}" for k in dict.fromkeys(drawn)) or "none"
            print(f"| {notebook.stem} | {height:,} | {reading_minutes(notebook)} "
                  f"| {len(proof_lines(lines))} of {len(lines)} | {kinds} |")
        browser.close()
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
