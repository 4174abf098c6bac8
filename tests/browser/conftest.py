"""Fixtures for the browser tests: the built book served on 127.0.0.1, and Debian's Chromium.

Chromium resolves no host but 127.0.0.1, so a page that needs the network shows it as failed
requests, which the tests count.
"""

import functools
import http.server
import shutil
import tempfile
import threading
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "_build" / "html"
SCREENSHOTS = ROOT / "_build" / "screenshots"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]


#: where the test server serves axe-core (from npm's node_modules, never from the book): a page
#: loads it by URL, so Chromium keeps its compiled code from page to page (test_accessibility.py)
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
AXE_PATH = "/__tests__/axe.min.js"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the signature is http.server's
        pass

    def translate_path(self, path):
        return str(AXE) if path == AXE_PATH else super().translate_path(path)


@pytest.fixture(scope="session")
def book_url():
    if not (BUILD / "index.html").exists():
        pytest.fail("the book is not built: run `make book` first")
    handler = functools.partial(_QuietHandler, directory=str(BUILD))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    executable = shutil.which("chromium")
    if executable is None:
        pytest.fail("Debian's chromium is not installed: `make test` installs it (apt-get install chromium)")
    profile = tempfile.mkdtemp(prefix="tensor-views-chromium-")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=executable, headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 900},
        )
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="session")
def tab(browser, book_url):
    """One tab per test process, going from page to page (test_book.Tab)."""
    from .test_book import Tab

    tab = Tab(browser, book_url)
    yield tab
    tab.page.close()


@pytest.fixture(scope="session")
def screenshots():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
