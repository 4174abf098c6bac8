"""The StrideExplorer on the memory-layout pages works in the static book, with no kernel."""

import pytest

from .test_book import _open

PAGE = "notebooks/03-1-storage-and-strides.html"
# the expand example (stride 0) lives on the stride-0 page
STRIDE_ZERO_PAGE = "notebooks/03-4-stride-zero-and-overlap.html"


def _first_explorer(page):
    page.wait_for_selector(".tl-se .tl-stride", timeout=20_000)
    return page.locator(".tl-se").first


@pytest.mark.parametrize("edition", ["", "zh/"], ids=["en", "zh"])
def test_stride_explorer_renders_and_an_operation_changes_the_strides(browser, book_url, edition):
    page, problems = _open(browser, f"{book_url}/{edition}{PAGE}")
    explorer = _first_explorer(page)
    assert explorer.locator(".tl-shape").inner_text() == "(3, 4)"
    assert explorer.locator(".tl-stride").inner_text() == "(4, 1)"
    explorer.locator("button[data-op='transpose']").click()
    assert explorer.locator(".tl-shape").inner_text() == "(4, 3)"
    assert explorer.locator(".tl-stride").inner_text() == "(1, 4)"
    assert "transpose" in explorer.locator(".tl-expr").inner_text()
    explorer.locator("button[data-op='undo']").click()
    assert explorer.locator(".tl-stride").inner_text() == "(4, 1)"
    page.close()
    assert problems == []


def _point_until(page, canvas, found, steps=80):
    """Move the mouse across ``canvas`` (left to right, then down) until ``found()`` is true."""
    box = canvas.bounding_box()
    for row in range(1, 6):
        for step in range(steps):
            page.mouse.move(box["x"] + box["width"] * step / steps, box["y"] + box["height"] * row / 6)
            if found():
                return True
    return False


def test_pointing_at_elements_and_storage_cells_explains_them(browser, book_url):
    page, problems = _open(browser, f"{book_url}/{STRIDE_ZERO_PAGE}")
    # the expand example: stride 0, so every storage cell is read by three elements
    expanded = page.locator(".tl-se", has=page.locator(".tl-stride", has_text="(0, 1)")).first
    expanded.scroll_into_view_if_needed()
    readers = expanded.locator(".tl-readers")
    assert _point_until(page, expanded.locator("canvas.tl-storage"), lambda: readers.count() > 0)
    assert readers.get_attribute("data-count") == "3"

    formula = expanded.locator(".tl-formula")
    assert _point_until(page, expanded.locator("canvas.tl-logical"), lambda: formula.count() > 0)
    offset_and_terms, position = formula.inner_text().split(" = ")
    offset, *terms = offset_and_terms.split(" + ")
    total = int(offset) + sum(int(i) * int(s) for i, s in (term.split("·") for term in terms))
    assert total == int(position) == int(formula.get_attribute("data-position"))
    assert [term.split("·")[1] for term in terms] == ["0", "1"]   # the strides of row.expand(3, 4)
    page.close()
    assert problems == []


# ---- the current widget module, mounted on a blank page --------------------------------------
# The built book embeds the widget JS it was built with; these tests load the module the Python
# class ships now, with a minimal anywidget model (get/set/on/off/save_changes) over its traits.

MOUNT = """
async ([esm, css, state]) => {
  const style = document.createElement("style");
  style.textContent = css;
  document.head.append(style);
  const mod = await import(URL.createObjectURL(new Blob([esm], {type: "text/javascript"})));
  const handlers = {};
  const model = {
    get: (k) => state[k],
    set: (k, v) => { state[k] = v; (handlers["change:" + k] || []).forEach((f) => f()); },
    on: (ev, f) => { (handlers[ev] = handlers[ev] || []).push(f); },
    off: (ev, f) => { handlers[ev] = (handlers[ev] || []).filter((g) => g !== f); },
    save_changes: () => {},
  };
  const el = document.createElement("div");
  el.style.width = "760px";
  document.body.append(el);
  mod.default.render({ model, el });
}
"""


def _mount(browser, widget):
    from tensorlens import StrideExplorer

    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_content("<!doctype html><html><head><meta charset='utf-8'></head><body></body></html>")
    state = {name: getattr(widget, name) for name in StrideExplorer.class_own_traits(sync=True)
             if not name.startswith("_")}
    page.evaluate(MOUNT, [StrideExplorer._esm, StrideExplorer._css, state])
    page.wait_for_selector(".tl-se .tl-stride")
    return page, page.locator(".tl-se").first, errors


@pytest.mark.long
def test_a_tiny_view_of_a_big_storage_draws_the_cells_it_reads(browser):
    import torch

    from tensorlens import StrideExplorer

    # 2 x 2 elements of a 1,000,000-cell storage, at positions 2005, 2006, 3005, 3006
    widget = StrideExplorer(torch.arange(1_000_000).view(1000, 1000)[2:4, 5:7])
    page, explorer, errors = _mount(browser, widget)
    assert explorer.get_attribute("data-capped") == "false"
    title = explorer.locator(".tl-section").nth(1)
    assert title.inner_text() == ("storage: cells 2,005 to 3,006 of 1,000,000 shown (the span this "
                                  "view reads), 4 read by this view (grey cells are not read)")
    # Pointing at an element: the formula gives its true storage position.
    formula = explorer.locator(".tl-formula")
    assert _point_until(page, explorer.locator("canvas.tl-logical"), lambda: formula.count() > 0)
    offset_and_terms, position = formula.inner_text().split(" = ")
    offset, *terms = offset_and_terms.split(" + ")
    assert int(offset) == 2005
    total = int(offset) + sum(int(i) * int(s) for i, s in (term.split("·") for term in terms))
    assert total == int(position) and int(position) in {2005, 2006, 3005, 3006}
    # Pointing at storage cells: each says its true position and how many elements read it.
    readers = explorer.locator(".tl-readers")
    assert _point_until(page, explorer.locator("canvas.tl-storage"), lambda: readers.count() > 0)
    seen = {}
    box = explorer.locator("canvas.tl-storage").bounding_box()
    for step in range(0, 400):
        page.mouse.move(box["x"] + box["width"] * (step % 40) / 40,
                        box["y"] + box["height"] * (step // 40 + 0.5) / 10)
        # one round trip a point: the readout's two numbers, or None where it is hidden
        read = readers.evaluate_all(
            "els => els.length ? [els[0].dataset.position, els[0].dataset.count] : null")
        if read:
            seen[int(read[0])] = int(read[1])
    assert seen and set(seen) <= set(range(2005, 3007))
    assert all(count == (pos in {2005, 2006, 3005, 3006}) for pos, count in seen.items())
    # The in-browser ops keep working: narrowing is drawn, with a smaller window.
    explorer.locator("button[data-op='narrow']").click()
    assert explorer.locator(".tl-shape").inner_text() == "(1, 2)"
    assert title.inner_text().startswith("storage: cells 2,005 to 2,006 of 1,000,000 shown")
    page.close()
    assert errors == []


def test_over_the_cap_the_notice_is_true_and_narrowing_draws_it(browser):
    import torch

    from tensorlens import StrideExplorer

    widget = StrideExplorer(torch.zeros(1000, 1000)[:, 0])  # 1,000 cells apart
    page, explorer, errors = _mount(browser, widget)
    assert explorer.get_attribute("data-capped") == "true"
    assert explorer.locator(".tl-cap").inner_text() == widget.notice != ""
    explorer.locator("button[data-op='narrow']").click()  # .narrow(0, 0, 1)
    assert explorer.get_attribute("data-capped") == "false"
    assert explorer.locator(".tl-cap").is_hidden()
    page.close()
    assert errors == []


def test_the_drawing_follows_the_books_theme_switch(browser, book_url):
    """The header's theme switch turns the page dark: the explorer redraws its cells for it."""
    page, problems = _open(browser, f"{book_url}/{PAGE}", theme="light")
    explorer = _first_explorer(page)
    assert explorer.get_attribute("data-theme") == "light"
    light_bg = explorer.evaluate("el => getComputedStyle(el).backgroundColor")
    # The switch cycles auto, dark, light (or auto, light, dark): click until the page is dark.
    for _ in range(3):
        page.locator(".theme-switch-button").first.click()
        if page.evaluate("document.documentElement.dataset.theme") == "dark":
            break
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.wait_for_function("el => el.dataset.theme === 'dark'", arg=explorer.element_handle())
    assert explorer.evaluate("el => getComputedStyle(el).backgroundColor") != light_bg
    page.close()
    assert problems == []
