"""Height at 1280 px and reading time of every page of the built book (run `make book` first).

    .venv/bin/python scripts/page_report.py            # a Markdown table on stdout

Reading time: the page's prose at 200 words a minute plus its shown code at 10 lines a minute
(code is read slowly, and run), rounded up. Height: `document.documentElement.scrollHeight` of
the page in headless Chromium with a 1280 x 900 viewport, widgets rendered.
"""

import json
import math
import pathlib
import re
import shutil
import sys

from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build" / "html"
WORDS_PER_MINUTE = 200
CODE_LINES_PER_MINUTE = 10


def reading_minutes(notebook: pathlib.Path) -> int:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"][1:]  # the setup cell aside
    words = code_lines = 0
    for cell in cells:
        tags = set(cell["metadata"].get("tags", []))
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            words += len(re.findall(r"\w+", source))
        elif not tags & {"remove-cell", "remove-input", "hide-input"}:
            code_lines += sum(1 for line in source.splitlines() if line.strip())
    return math.ceil(words / WORDS_PER_MINUTE + code_lines / CODE_LINES_PER_MINUTE)


def main() -> int:
    pages = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if not (BUILD / "index.html").exists():
        print("the book is not built: run `make book` first", file=sys.stderr)
        return 1
    print("| page | height (px at 1280) | reading (min) |\n| --- | ---: | ---: |")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for notebook in pages:
            page.goto((BUILD / "notebooks" / f"{notebook.stem}.html").as_uri(), wait_until="load")
            page.wait_for_timeout(300)
            height = page.evaluate("document.documentElement.scrollHeight")
            print(f"| {notebook.stem} | {height:,} | {reading_minutes(notebook)} |")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
