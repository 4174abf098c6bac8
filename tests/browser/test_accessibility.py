"""Every built page, in the book's light and dark themes, passes axe-core's WCAG 2 A/AA rules.

axe-core comes from npm (a devDependency in package.json, ``node_modules/axe-core/axe.min.js``)
and is put into each page by the test only, which loads it from the test server
(``/__tests__/axe.min.js``, outside the book: conftest.py); the book never ships it. A page fails on any
violation axe rates serious or critical. The pages are found in ``_build/html`` (never listed by
hand), so widgets that move to other pages are checked where they land.

Each page, English and Chinese (``zh/``), is loaded once, in one tab per test process that goes
from page to page as a reader's does (``tab``, test_book.Tab). It is checked in the light theme with
every rule, then switched to dark with the book's own theme button, as a reader does, and checked
again with the rules whose verdict depends on colour (``COLOUR_RULES``); the other rules read the
document, which the switch does not change. A page that is *loaded* in the dark theme gets every
rule: the introduction and the first page of each widget kind (``DARK_LOADED``).

The colour rules judge each element with text by its own colours and those behind it, and most
elements of a page look like elements of pages checked before (body text, code tokens, outputs,
the sidebar). So each page gives axe's colour rules the elements whose *look* this test process
has not yet seen in that theme: the computed colour, font, opacity and shadow of the element and
its parent, and the background, opacity, filter and blend of every ancestor (``RUN_PASS``: one axe run a pass, the colour rules on the elements it marks). An
element that looks new anywhere is checked where it first appears; ``TENSOR_VIEWS_ALL_COLOURS=1``
checks every element of every page. With ``TENSOR_VIEWS_SCREENSHOTS=1`` (``make screenshots``),
each widget on each page is photographed in each theme to ``_build/screenshots/widgets/``.
"""

import os

from pathlib import PurePosixPath
from urllib.parse import urlparse
from urllib.request import urlopen

import pytest

from book_pages import is_checked

from .conftest import AXE, AXE_PATH, BUILD
from .test_book import PAGES, _open, check_loaded_page, pages_that_make

#: every built page, or the ones make check names
CHECKED_PAGES = [p for p in PAGES if is_checked(PurePosixPath(p).stem)]

TAGS = ["wcag2a", "wcag2aa"]
BLOCKING = {"serious", "critical"}
WIDGET_KINDS = (".tl-se", ".tl-bx", ".tl-mx", ".tl-fb", ".tl-quiz")
WIDGETS = ", ".join(WIDGET_KINDS)
#: what makes each kind in a notebook
WIDGET_CONSTRUCTORS = ("tl.StrideExplorer", "tl.BroadcastExplorer", "tl.MaskExplorer",
                       "tl.FloatBitsExplorer", "tl.Quiz")
#: the axe rules whose verdict depends on the colours (the rest read the document only)
COLOUR_RULES = ["color-contrast", "link-in-text-block"]

RUN_AXE = """
async (only) => {
  const result = await axe.run(document, {
    runOnly: only,
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


#: what a colour rule looks at, among the elements a pass marks ``data-tv-fresh`` (the elements
#: with a new look and what they hold, as when axe is given those elements as its context)
FRESH_SELECTORS = {
    "color-contrast": "[data-tv-fresh], [data-tv-fresh] *",
    "link-in-text-block": "a[href][data-tv-fresh], [role=link][data-tv-fresh], "
                          "[data-tv-fresh] a[href], [data-tv-fresh] [role=link]",
}

#: one pass of axe over the page: ``rules`` on the whole document, and the colour rules on the
#: elements with text whose look is not in ``seen``. An element's look is what the colour rules'
#: verdict on it depends on. A widget that redraws during the run (after a theme switch) replaces
#: elements that were marked: the pass then starts again on the redrawn page.
RUN_PASS = """
async ({seen, rules, colourRules, selectors, allColours}) => {
  const lookUp = (known) => {
    const behind = new Map();  // element -> the backgrounds, opacities and filters it sits on
    const backdrop = (e) => {
      if (!e) return "";
      if (!behind.has(e)) {
        const s = getComputedStyle(e);
        behind.set(e, [s.backgroundColor, s.backgroundImage, s.opacity, s.filter, s.mixBlendMode,
                       backdrop(e.parentElement)].join("|"));
      }
      return behind.get(e);
    };
    const elements = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      if (walker.currentNode.textContent.trim() && walker.currentNode.parentElement) {
        elements.add(walker.currentNode.parentElement);
      }
    }
    const fresh = [], looks = [];
    for (const element of elements) {
      const own = getComputedStyle(element);
      const parent = element.parentElement ? getComputedStyle(element.parentElement) : {};
      const look = [element.tagName, own.color, own.fontSize, own.fontWeight, own.textShadow,
                    own.textDecorationLine, own.visibility, parent.color, parent.fontWeight,
                    backdrop(element)].join("|");
      if (!known.has(look)) { known.add(look); fresh.push(element); looks.push(look); }
    }
    return {fresh, looks};
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    const {fresh, looks} = allColours ? {fresh: [], looks: []} : lookUp(new Set(seen));
    const only = rules.concat(allColours || fresh.length ? colourRules : []);
    if (!only.length) return {violations: [], looks};
    for (const element of fresh) element.setAttribute("data-tv-fresh", "");
    if (!allColours) {
      axe.configure({rules: colourRules.map((id) => ({id, selector: selectors[id]}))});
    }
    let result;
    try {
      result = await axe.run(document, {runOnly: {type: "rule", values: only},
                                        resultTypes: ["violations"]});
    } finally {
      axe.reset();  // the rules' own selectors again
      for (const element of fresh) element.removeAttribute("data-tv-fresh");
    }
    if (!fresh.every((element) => element.isConnected)) continue;  // redrawn meanwhile
    return {looks, violations: result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
    }))};
  }
  throw new Error("the page kept redrawing the elements axe was checking");
}
"""
#: the looks each theme's colour rules have checked in this test process
_SEEN = {"light": set(), "dark": set()}


def _load_axe(page):
    """axe-core into ``page``: by URL on a page of the test server (compiled once, then from
    Chromium's cache: about 0.2 s a page less), inline elsewhere."""
    if not AXE.exists():
        pytest.fail("axe-core is not installed: run `npm ci` (make setup does)")
    if not page.evaluate("typeof axe !== 'undefined'"):
        origin = urlparse(page.url)
        if origin.scheme == "http" and origin.hostname == "127.0.0.1":
            page.add_script_tag(url=f"http://{origin.netloc}{AXE_PATH}")
        else:
            page.add_script_tag(path=str(AXE))


def _axe(page, rules=None):
    """axe's violations on ``page``: every WCAG 2 A/AA rule, or only ``rules``."""
    _load_axe(page)
    only = {"type": "tag", "values": TAGS} if rules is None else {"type": "rule", "values": rules}
    return page.evaluate(RUN_AXE, only)


def _axe_page(page, theme):
    """One axe run: every rule but the colour rules on the whole page (none in the ``"dark"``
    pass, whose switch changes colours only), and the colour rules on the elements whose look is
    new in ``theme`` (on every element with ``TENSOR_VIEWS_ALL_COLOURS=1``)."""
    _load_axe(page)
    rules = [] if theme == "dark" else [
        r for r in page.evaluate("(tags) => axe.getRules(tags).map(r => r.ruleId)", TAGS)
        if r not in COLOUR_RULES]
    found = page.evaluate(RUN_PASS, {
        "seen": sorted(_SEEN[theme]), "rules": rules, "colourRules": COLOUR_RULES,
        "selectors": FRESH_SELECTORS, "allColours": bool(os.environ.get("TENSOR_VIEWS_ALL_COLOURS"))})
    _SEEN[theme].update(found["looks"])
    return found["violations"]


def _report(violations):
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])} nodes): {v['help']}")
        for node in v["nodes"][:5]:
            lines.append(f"    {node['target']}: {node['summary'].splitlines()[-1].strip()}")
    return "\n".join(lines)


def _blocking(violations):
    return [v for v in violations if v["impact"] in BLOCKING]


def _photograph_widgets(page, path, theme, screenshots):
    if not os.environ.get("TENSOR_VIEWS_SCREENSHOTS"):
        return
    folder = screenshots / "widgets"
    folder.mkdir(exist_ok=True)
    stem = path.replace("/", "__")[: -len(".html")]
    widgets = page.locator(WIDGETS)
    for i in range(widgets.count()):
        widget = widgets.nth(i)
        kind = widget.evaluate("el => el.className.split(' ')[0]")
        widget.scroll_into_view_if_needed()
        widget.screenshot(path=str(folder / f"{stem}--{i:02d}-{kind}--{theme}.png"))


def _switch_to_dark(page):
    """Click the book's theme button until the page is dark (it cycles light, dark, auto)."""
    page.emulate_media(color_scheme="dark")  # so that "auto" is dark too
    # colours then change at once: axe reads the settled colours, not a transition's midpoint
    page.add_style_tag(content="*, *::before, *::after { transition: none !important; }")
    for _ in range(3):
        if page.evaluate("document.documentElement.dataset.theme") == "dark":
            break
        page.locator(".theme-switch-button").first.click()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    # no hover or focus left on the header's controls (the search field next to the button)
    page.mouse.move(1279, 899)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    # widgets follow the switch (a MutationObserver or CSS); let them redraw
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def _first_page_of_each_widget_kind():
    """The introduction, and for each widget class the first built notebook page that makes one
    (read from the notebooks' sources: the built pages draw widgets only when their JS runs)."""
    pages = {"book/intro.html"} & set(PAGES)
    for constructor in WIDGET_CONSTRUCTORS:
        pages.update(pages_that_make(constructor)[:1])
    return sorted(pages)


@pytest.mark.skipif(not PAGES, reason="no built book")
@pytest.mark.parametrize("path", CHECKED_PAGES)
def test_page_has_no_serious_accessibility_violations(tab, book_url, screenshots, path):
    page, problems = tab.open(f"{book_url}/{path}", "light")  # the tab goes on to the next page
    themed = page.locator("html[data-theme]").count() > 0
    if themed:  # the theme really is the one asked for
        assert page.evaluate("document.documentElement.dataset.theme") == "light"
    _photograph_widgets(page, path, "light", screenshots)
    light = _blocking(_axe_page(page, "light"))
    check_loaded_page(page, path, problems, screenshots)  # test_book.py's checks, same load
    dark = []
    if themed:
        _switch_to_dark(page)
        _photograph_widgets(page, path, "dark", screenshots)
        dark = _blocking(_axe_page(page, "dark"))
    assert not light, f"{path} (light theme):\n{_report(light)}"
    assert not dark, f"{path} (dark theme, after the theme switch):\n{_report(dark)}"
    assert problems == []


DARK_LOADED = [p for p in _first_page_of_each_widget_kind() if is_checked(PurePosixPath(p).stem)]


@pytest.mark.skipif(not PAGES, reason="no built book")
@pytest.mark.parametrize("path", DARK_LOADED)
def test_a_page_loaded_in_the_dark_theme_passes_every_rule(browser, book_url, path):
    page, problems = _open(browser, f"{book_url}/{path}", theme="dark")
    try:
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        blocking = _blocking(_axe(page))
    finally:
        page.close()
    assert not blocking, f"{path} (loaded in the dark theme):\n{_report(blocking)}"
    assert problems == []


def test_axe_finds_what_it_should(browser):
    """The check can fail: a low-contrast label and a table row without cells are reported."""
    page = browser.new_page()
    page.set_content(
        "<!doctype html><html lang='en'><head><title>t</title></head><body><main>"
        "<p style='color:#aaa;background:#fff'>faint text</p>"
        "<div role='table'><div role='row'><span>no cell</span></div></div></main></body></html>")
    found = {v["id"] for v in _axe(page) if v["impact"] in BLOCKING}
    assert {"color-contrast", "aria-required-children"} <= found
    # the dark pass runs only the colour rules: they still see a faint text
    assert {v["id"] for v in _blocking(_axe(page, COLOUR_RULES))} == {"color-contrast"}
    page.close()


def test_axe_is_not_shipped_in_the_book():
    assert BUILD.exists(), "the book is not built: run `make book` first"
    shipped = [p for p in BUILD.rglob("*") if p.is_file() and "axe" in p.name.lower()]
    assert shipped == []
    assert not any("axe.run(" in p.read_text(encoding="utf-8", errors="ignore")
                   for p in BUILD.rglob("*.html"))


def test_axe_comes_from_the_test_server_and_not_from_the_book(book_url, tab):
    with urlopen(f"{book_url}{AXE_PATH}") as response:
        assert response.read() == AXE.read_bytes()
    assert not (BUILD / AXE_PATH.strip("/")).exists()
    page, problems = tab.open(f"{book_url}/book/intro.html", "light")
    _load_axe(page)
    assert page.evaluate("typeof axe.run") == "function"
    assert page.locator(f"script[src$='{AXE_PATH}']").count() == 1 and problems == []


def test_the_colour_rules_check_each_new_look_once(browser, monkeypatch):
    """A faint text is reported on the first page that shows it; a later page with the same look
    has nothing new to check, and a text of another faint colour is reported again."""
    monkeypatch.setattr(__import__(__name__, fromlist=["_SEEN"]), "_SEEN", {"light": set(), "dark": set()})
    page = browser.new_page()

    def faint(colour):
        page.set_content("<!doctype html><html lang='en'><head><title>t</title></head><body><main>"
                         f"<p>plain text</p><p style='color:{colour};background:#fff'>faint</p>"
                         "</main></body></html>")
        return {v["id"] for v in _blocking(_axe_page(page, "light"))}

    assert faint("#aaa") == {"color-contrast"}
    assert faint("#aaa") == set()
    assert faint("#bbb") == {"color-contrast"}
    page.close()


def test_a_widget_that_redraws_during_the_check_is_checked_as_redrawn(browser, monkeypatch):
    """A page that replaces the elements axe was given (a widget redrawing after the theme
    switch) is checked again as it is now: its faint text is still found."""
    monkeypatch.setattr(__import__(__name__, fromlist=["_SEEN"]), "_SEEN", {"light": set(), "dark": set()})
    page = browser.new_page()
    page.set_content(
        "<!doctype html><html lang='en'><head><title>t</title></head><body><main>"
        "<div id='widget'><p style='color:#aaa;background:#fff'>faint</p></div>"
        "<script>let redraws = 0; new MutationObserver(() => { if (redraws++) return;"
        " const w = document.getElementById('widget'); w.replaceChildren(w.firstChild.cloneNode(true));"
        " w.firstChild.removeAttribute('data-tv-fresh'); })"
        ".observe(document.body, {attributes: true, subtree: true});</script>"
        "</main></body></html>")
    assert {v["id"] for v in _blocking(_axe_page(page, "light"))} == {"color-contrast"}
    assert page.evaluate("redraws") >= 2  # it did redraw, and the check ran again
    page.close()


def test_a_link_told_apart_by_colour_alone_is_reported_where_its_look_is_new(browser, monkeypatch):
    monkeypatch.setattr(__import__(__name__, fromlist=["_SEEN"]), "_SEEN", {"light": set(), "dark": set()})
    page = browser.new_page()
    page.set_content(
        "<!doctype html><html lang='en'><head><title>t</title></head><body><main>"
        "<p style='color:#000'>Read <a href='#x' style='color:#111;text-decoration:none'>this"
        "</a> first.</p><p id='x'>x</p></main></body></html>")
    assert "link-in-text-block" in {v["id"] for v in _axe_page(page, "light")}
    page.close()
