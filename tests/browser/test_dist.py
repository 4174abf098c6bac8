"""``make dist``: the built book as one zip that reads offline once unzipped.

The zip (``dist/tensor-views-html.zip``, written by ``make dist``; ``make test`` writes it after
the build) must hold every file of ``_build/html`` under ``tensor-views/``: every page of the
table of contents and the widget JavaScript the book serves itself. Unzipped, a page with a
widget is opened from the disk (``file://``) in Chromium, which resolves no host: the widget
renders and responds, and nothing is requested from the network.
"""

import zipfile
from pathlib import Path

import pytest
import yaml

from .test_book import _open
from .test_launch_buttons import toc_files
from .test_widgets_in_book import edit_broadcast_shapes

ROOT = Path(__file__).resolve().parents[2]
ZIP = ROOT / "dist" / "tensor-views-html.zip"
BUILD = ROOT / "_build" / "html"


@pytest.fixture(scope="module")
def names():
    if not ZIP.exists():
        pytest.fail("no dist/tensor-views-html.zip: run `make dist`")
    with zipfile.ZipFile(ZIP) as zf:
        assert zf.testzip() is None
        return set(zf.namelist())


def test_the_zip_holds_every_page_and_the_vendored_widget_js(names):
    assert all(name.startswith("tensor-views/") for name in names)
    built = {f"tensor-views/{p.relative_to(BUILD).as_posix()}" for p in BUILD.rglob("*") if p.is_file()}
    assert built - names == set(), "files of the built book missing from the zip"
    pages = [f"tensor-views/{page}.html" for page in toc_files()]
    assert pages and set(pages) <= names
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    scripts = config["sphinx"]["config"]["nb_ipywidgets_js"]
    for script in [*scripts, "vendor/anywidget/index.js"]:
        assert f"tensor-views/_static/{script}" in names, script


def test_a_widget_page_reads_offline_from_the_unzipped_copy(names, browser, tmp_path):
    with zipfile.ZipFile(ZIP) as zf:
        zf.extractall(tmp_path)
    site = tmp_path / "tensor-views"
    widget_pages = [site / "notebooks" / f"{source.stem}.html"
                    for source in sorted((ROOT / "notebooks").glob("*.md"))
                    if "tl.BroadcastExplorer(" in source.read_text(encoding="utf-8")]
    assert widget_pages, "no page shows a BroadcastExplorer"
    page, problems = _open(browser, widget_pages[0].as_uri())
    explorer, _ = edit_broadcast_shapes(page)
    assert explorer.locator(".tl-bx-result").inner_text() == "[3, 5]"
    index, index_problems = _open(browser, (site / "index.html").as_uri())
    page.close()
    index.close()
    assert problems == [] and index_problems == []
