"""Open every page of the built book in headless Chromium, offline, and look for trouble.

Each page must load with no failed request and no request to another host, and without console
errors beyond the short allowlist below. Widgets must render from the book's own JavaScript.
With ``TENSOR_VIEWS_SCREENSHOTS=1`` (``make screenshots``), a full-page screenshot of each page
goes to ``_build/screenshots/``, to look at.
"""

import json
import os
import re
import time
from pathlib import PurePosixPath
from urllib.parse import urlparse
from urllib.request import urlopen

import pytest

from book_pages import classify

from .conftest import BUILD, ROOT

# A page is one idea: at most about 10,000 px tall at 1280 px (book-plan principle 3).
MAX_PAGE_HEIGHT_PX = 10_500

# Console errors that are not ours and harm nothing (each seen in a clean build):
CONSOLE_ALLOWLIST = [
    # sphinx-thebe declares THEBE_JS_URL in two scripts; the second declaration errors.
    re.compile(r"Identifier 'THEBE_JS_URL' has already been declared"),
    # pydata-sphinx-theme reads an empty theme mode from a fresh profile and falls back to "auto".
    re.compile(r"Got invalid theme mode: \. Resetting to auto\."),
]

PAGES = sorted(
    str(path.relative_to(BUILD))
    for path in BUILD.rglob("*.html")
    if not any(part.startswith("_") for part in path.relative_to(BUILD).parts)
) if BUILD.exists() else []


def pages_that_make(constructor):
    """The built notebook pages (English first, then zh/) whose source calls ``constructor``, such
    as ``"tl.StrideExplorer"``: read from the notebooks' sources, since every widget page's HTML
    carries the CSS of every widget kind."""
    return [path for path in PAGES if PurePosixPath(path).parent.name == "notebooks"
            and f"{constructor}(" in _source_text(PurePosixPath(path).stem)]


def _source_text(stem):
    source = ROOT / "notebooks" / f"{stem}.md"
    return source.read_text(encoding="utf-8") if source.exists() else ""


def _allowed(text):
    return any(pattern.search(text) for pattern in CONSOLE_ALLOWLIST)


THEME_SCRIPT = """
(theme) => {
  if (theme) { localStorage.setItem('mode', theme); localStorage.setItem('theme', theme); }
  else { localStorage.removeItem('mode'); localStorage.removeItem('theme'); }
}
"""


def _listen(page, host, report):
    """Calls ``report(text)`` for each failed request, request to another host than ``host``,
    HTTP error, page error and console error on ``page`` (beyond ``CONSOLE_ALLOWLIST``)."""

    def on_request(request):
        target = urlparse(request.url)
        if target.scheme in ("http", "https") and target.hostname != host:
            report(f"external request: {request.url}")

    def on_page_error(error):
        if not _allowed(str(error)):
            report(f"page error: {error}")

    def on_console(message):
        if message.type == "error" and not _allowed(message.text):
            report(f"console error: {message.text} ({message.location.get('url')})")

    page.on("request", on_request)
    page.on("requestfailed", lambda request: report(f"failed request: {request.url}"))
    page.on("response", lambda response: response.status >= 400
            and report(f"HTTP {response.status}: {response.url}"))
    page.on("pageerror", on_page_error)
    page.on("console", on_console)


class _Traffic:
    """The page's HTTP requests in flight, followed from its events."""

    QUIET_S = 0.1  # no request in flight for this long: the page has gone quiet
    LIMIT_S = 15

    def __init__(self, page):
        self.pending = set()
        page.on("request", lambda r: r.url.startswith("http") and self.pending.add(r))
        page.on("requestfinished", lambda r: self.pending.discard(r))
        page.on("requestfailed", lambda r: self.pending.discard(r))

    def wait_until_quiet(self, page):
        quiet_since, start = None, time.monotonic()
        while time.monotonic() - start < self.LIMIT_S:
            page.wait_for_timeout(25)  # lets Playwright deliver the events
            now = time.monotonic()
            if self.pending:
                quiet_since = None
            elif quiet_since is None:
                quiet_since = now
            elif now - quiet_since >= self.QUIET_S:
                return
        pytest.fail(f"{page.url}: requests still in flight after {self.LIMIT_S} s: "
                    + ", ".join(r.url for r in self.pending))


def _load(page, url, traffic):
    """Go to ``url`` and wait until its scripts have run, MathJax has typeset, the widgets have
    rendered and no request is in flight (the checks then run; the problems a page reports later
    are still counted, up to each test's last assert)."""
    page.goto(url, wait_until="load")
    traffic.wait_until_quiet(page)
    page.wait_for_load_state("load")  # where a page sends the reader on (the root's redirect)
    page.evaluate("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
    widget_count = page.locator("script[type='application/vnd.jupyter.widget-view+json']").count()
    if widget_count:
        page.wait_for_function(
            "n => document.querySelectorAll('.widget-subarea > *, .jupyter-widgets').length >= n",
            arg=widget_count, timeout=20_000,
        )
    traffic.wait_until_quiet(page)


def _open(browser, url, theme=None):
    """Load ``url`` in a new tab and return (page, problems) after widgets have had time to render.

    ``theme`` ("light" or "dark") picks the book's theme before the page loads, as its switch in
    the header does (pydata-sphinx-theme keeps the choice in localStorage), and the system
    preference to match; ``None`` leaves the theme's default.
    """
    page = browser.new_page()
    if theme is not None:
        page.emulate_media(color_scheme=theme)
    # (``None``: the theme's default, whatever an earlier test chose: the profile keeps localStorage)
    page.add_init_script(f"({THEME_SCRIPT})({json.dumps(theme)})")
    problems = []
    _listen(page, urlparse(url).hostname, problems.append)
    _load(page, url, _Traffic(page))
    return page, problems


class Tab:
    """One tab that goes from page to page of the book, as a reader's does (a new tab for each
    page starts a fresh renderer, which compiles the pages' scripts again: about 0.6 CPU-seconds a
    page more). Each :meth:`open` gets its own list of problems, and loads its page as
    :func:`_open` does: theme chosen before the load, the pointer in the corner a new tab has."""

    def __init__(self, browser, book_url):
        self.page = browser.new_page()
        self.problems = []
        self.page.goto(f"{book_url}/_static/tensor-views.css")  # the book's origin: its localStorage
        _listen(self.page, urlparse(book_url).hostname, lambda text: self.problems.append(text))
        self.traffic = _Traffic(self.page)

    def open(self, url, theme):
        self.page.emulate_media(color_scheme=theme or "no-override")
        self.page.evaluate(THEME_SCRIPT, theme)
        self.page.mouse.move(0, 0)
        self.problems = []
        _load(self.page, url, self.traffic)
        return self.page, self.problems


def check_loaded_page(page, path, problems, screenshots):
    """What every page of the book must satisfy once loaded (``test_accessibility.py`` opens each
    page, in each theme, and calls this on its light-theme load): no failed or external request,
    no console error, and a chapter page at most ``MAX_PAGE_HEIGHT_PX`` tall. Keeps a full-page
    screenshot in ``_build/screenshots/`` when ``TENSOR_VIEWS_SCREENSHOTS`` is set (encoding a
    10,000 px page costs seconds, and nothing is asserted on it)."""
    if os.environ.get("TENSOR_VIEWS_SCREENSHOTS"):
        page.screenshot(path=str(screenshots / (path.replace("/", "__")[: -len(".html")] + ".png")),
                        full_page=True)
    height = page.evaluate("document.documentElement.scrollHeight")
    assert problems == []
    if path.startswith("notebooks/") and classify(path[len("notebooks/"):-len(".html")]).kind \
            in ("teaching", "exercises"):
        assert height <= MAX_PAGE_HEIGHT_PX, f"{path} is {height} px tall at 1280 px: split it"


def test_root_favicon_is_served(book_url):
    """Browsers fetch /favicon.ico for the root redirect page, which names no icon."""
    with urlopen(f"{book_url}/favicon.ico") as response:
        icon = response.read()
    assert icon[:4] == b"\x00\x00\x01\x00", "favicon.ico is not an ICO file"


def test_root_page_redirects_to_the_introduction(browser, book_url):
    page = browser.new_page()
    page.goto(f"{book_url}/index.html", wait_until="networkidle")
    assert page.url == f"{book_url}/book/intro.html"
    page.close()


def test_every_chapter_is_built():
    assert PAGES, "no pages in _build/html: run `make book` first"
    assert "index.html" in PAGES
    built = {p[len("notebooks/"):-len(".html")] for p in PAGES if p.startswith("notebooks/")}
    assert built == {path.stem for path in (BUILD.parents[1] / "notebooks").glob("*.ipynb")}


CHAPTER_PAGES = [p for p in PAGES if p.startswith("notebooks/")]
EXERCISE_PAGES = [p for p in CHAPTER_PAGES
                  if classify(p[len("notebooks/"):-len(".html")]).kind in ("exercises", "first-edition")]


@pytest.mark.parametrize("path", CHAPTER_PAGES)
def test_pages_show_no_pass_and_no_hint(path):
    """A reader of the static book never sees "passed" for a solution they did not write, nor a
    hint that gives an answer away."""
    html = (BUILD / path).read_text(encoding="utf-8")
    assert "tl-check-pass" not in html and "✓ passed" not in html
    assert "tl-check-hint" not in html, "a hint in the page gives an exercise's answer away"


@pytest.mark.parametrize("path", EXERCISE_PAGES)
def test_exercise_pages_hide_solutions_and_show_a_failing_check(path):
    """The solutions sit behind toggles labelled "Solution", and one failing report shows what a
    check says when something is wrong."""
    html = (BUILD / path).read_text(encoding="utf-8")
    assert re.search(r'<p class="collapsed admonition-title">Solution</p>', html)
    assert "Show code cell source</p>" not in html.split("tag_solution", 1)[-1].split("</details>", 1)[0]
    assert "tl-check-fail" in html or "tl-check-error" in html


def test_a_tab_reports_each_pages_problems_on_that_page_only(browser, book_url):
    """The tab the page checks share still fails a page: a missing page is reported where it is
    loaded and not on the next one, which gets the theme asked for before it loads."""
    tab = Tab(browser, book_url)
    try:
        _, problems = tab.open(f"{book_url}/no-such-page.html", "light")
        assert f"HTTP 404: {book_url}/no-such-page.html" in problems
        assert all("no-such-page.html" in problem for problem in problems)
        page, problems = tab.open(f"{book_url}/book/intro.html", "dark")
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert problems == []
    finally:
        tab.page.close()
