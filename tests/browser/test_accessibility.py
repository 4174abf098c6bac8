"""Every built page, in the book's light and dark themes, passes axe-core's WCAG 2 A/AA rules.

axe-core comes from npm (a devDependency in package.json, ``node_modules/axe-core/axe.min.js``)
and is put into each page by the test only; the book never ships it. A page fails on any
violation axe rates serious or critical. The pages are found in ``_build/html`` (never listed by
hand), so widgets that move to other pages are checked where they land. Each widget on each page
is photographed in each theme to ``_build/screenshots/widgets/``.
"""

from pathlib import PurePosixPath

import pytest

from book_pages import is_checked

from .conftest import BUILD, ROOT
from .test_book import PAGES, _open, check_loaded_page

#: every built page, or the ones make check names
CHECKED_PAGES = [p for p in PAGES if is_checked(PurePosixPath(p).stem)]

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa"]
BLOCKING = {"serious", "critical"}
WIDGETS = ".tl-se, .tl-bx, .tl-mx, .tl-fb, .tl-quiz"
THEMES = ["light", "dark"]

RUN_AXE = """
async (tags) => {
  const result = await axe.run(document, {
    runOnly: { type: "tag", values: tags },
    resultTypes: ["violations"],
  });
  return result.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
  }));
}
"""


def _axe(page):
    if not AXE.exists():
        pytest.fail("axe-core is not installed: run `npm ci` (make setup does)")
    page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN_AXE, TAGS)


def _report(violations):
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])} nodes): {v['help']}")
        for node in v["nodes"][:5]:
            lines.append(f"    {node['target']}: {node['summary'].splitlines()[-1].strip()}")
    return "\n".join(lines)


@pytest.mark.skipif(not PAGES, reason="no built book")
@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("path", CHECKED_PAGES)
def test_page_has_no_serious_accessibility_violations(browser, book_url, screenshots, path, theme):
    page, problems = _open(browser, f"{book_url}/{path}", theme=theme)
    try:
        if page.locator("html[data-theme]").count():
            # The theme really is the one asked for (else the dark run would test the light page).
            assert page.evaluate("document.documentElement.dataset.theme") == theme
        widgets = page.locator(WIDGETS)
        folder = screenshots / "widgets"
        folder.mkdir(exist_ok=True)
        stem = path.replace("/", "__")[: -len(".html")]
        for i in range(widgets.count()):
            widget = widgets.nth(i)
            kind = widget.evaluate("el => el.className.split(' ')[0]")
            widget.scroll_into_view_if_needed()
            widget.screenshot(path=str(folder / f"{stem}--{i:02d}-{kind}--{theme}.png"))
        blocking = [v for v in _axe(page) if v["impact"] in BLOCKING]
        if theme == "light":  # the page checks of test_book.py, on the same load
            check_loaded_page(page, path, problems, screenshots)
    finally:
        page.close()
    assert not blocking, f"{path} ({theme} theme):\n{_report(blocking)}"
    assert problems == []


def test_axe_finds_what_it_should(browser):
    """The check can fail: a low-contrast label and a table row without cells are reported."""
    page = browser.new_page()
    page.set_content(
        "<!doctype html><html lang='en'><head><title>t</title></head><body><main>"
        "<p style='color:#aaa;background:#fff'>faint text</p>"
        "<div role='table'><div role='row'><span>no cell</span></div></div></main></body></html>")
    found = {v["id"] for v in _axe(page) if v["impact"] in BLOCKING}
    page.close()
    assert {"color-contrast", "aria-required-children"} <= found


def test_axe_is_not_shipped_in_the_book():
    assert BUILD.exists(), "the book is not built: run `make book` first"
    shipped = [p for p in BUILD.rglob("*") if p.is_file() and "axe" in p.name.lower()]
    assert shipped == []
    assert not any("axe.run(" in p.read_text(encoding="utf-8", errors="ignore")
                   for p in BUILD.rglob("*.html"))
