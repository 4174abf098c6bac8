"""The StrideExplorer on the memory-layout page works in the static book, with no kernel."""

from .test_book import _open

PAGE = "notebooks/03-memory-layout.html"


def _first_explorer(page):
    page.wait_for_selector(".tl-se .tl-stride", timeout=20_000)
    return page.locator(".tl-se").first


def test_stride_explorer_renders_and_an_operation_changes_the_strides(browser, book_url):
    page, problems = _open(browser, f"{book_url}/{PAGE}")
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
    page, problems = _open(browser, f"{book_url}/{PAGE}")
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
