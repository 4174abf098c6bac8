"""The widgets work by keyboard alone, show where the focus is, and say what changed.

Only the keyboard moves the focus and acts here (Tab, Shift+Tab, Enter, Space, arrow keys,
typing): no clicks. The pages are the built pages that hold each widget, found by looking, so
the test follows a widget that moves to another page.
"""

import re

import pytest

from .test_book import _open, pages_that_make

MAX_TABS = 200


def _first_page_with(browser, book_url, selector, constructor):
    """The first built page whose source calls ``constructor`` and that shows ``selector``."""
    for path in pages_that_make(constructor):
        page, problems = _open(browser, f"{book_url}/{path}")
        if page.locator(selector).count():
            return path, page, problems
        page.close()
    pytest.fail(f"no built page shows {selector}")


def _tab_to(page, predicate, arg, back=False):
    """Press Tab (Shift+Tab if ``back``) until the focused element satisfies ``predicate``."""
    for _ in range(MAX_TABS):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        if page.evaluate(predicate, arg):
            return
    pytest.fail(f"Tab never reached {arg}")


def _start_before(page, widget):
    """Put the keyboard just before ``widget``, as if the reader had tabbed down to it.

    A focusable-by-script anchor (tabindex=-1) right before the widget takes the focus; the
    next Tab goes where the reader's would. Tabbing through the whole page would test the
    theme's navigation, not the widget.
    """
    widget.evaluate("""el => {
        const anchor = document.createElement("span");
        anchor.tabIndex = -1;
        el.before(anchor);
        anchor.focus();
    }""")


def _focus_is_visible(page):
    """The focused element draws an outline (its :focus-visible style)."""
    return page.evaluate("""() => {
        const s = getComputedStyle(document.activeElement);
        return s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2;
    }""")


FOCUSED_IN_FIRST = """([root, selector]) => {
    const first = document.querySelector(root);
    const el = document.activeElement;
    return !!first && first.contains(el) && el.matches(selector);
}"""


def test_stride_explorer_by_keyboard_alone(browser, book_url, screenshots):
    path, page, problems = _first_page_with(browser, book_url, ".tl-se", "tl.StrideExplorer")
    explorer = page.locator(".tl-se").first
    shape, stride = explorer.locator(".tl-shape"), explorer.locator(".tl-stride")
    before = (shape.inner_text(), stride.inner_text())
    _start_before(page, explorer)

    # transpose(0, 1) with Enter
    _tab_to(page, FOCUSED_IN_FIRST, [".tl-se", "button[data-op='transpose']"])
    assert _focus_is_visible(page)
    page.keyboard.press("Enter")
    dims = len(before[0].strip("()").split(","))
    if dims >= 2:
        expected_shape = _swap(before[0], 0, 1)
        assert shape.inner_text() == expected_shape
        assert stride.inner_text() == _swap(before[1], 0, 1)
    live = explorer.locator(".tl-live")
    assert live.get_attribute("aria-live") == "polite"
    said = live.text_content()
    assert "transpose(0, 1)" in said
    assert f"shape {shape.inner_text()}, stride {stride.inner_text()}, offset " in said

    # the drawing's cell: focus explains element [0, 0]; ArrowRight moves to [0, 1]
    _tab_to(page, FOCUSED_IN_FIRST, [".tl-se", ".tl-cursor[data-kind='logical']"])
    assert _focus_is_visible(page)
    cursor = explorer.locator(".tl-cursor[data-kind='logical']")
    assert re.fullmatch(r"element \[0, 0\], storage \d+", cursor.get_attribute("aria-label"))
    page.keyboard.press("ArrowRight")
    name = cursor.get_attribute("aria-label")
    position = int(name.rsplit(" ", 1)[1])
    assert name.startswith("element [0, 1], storage")
    formula = explorer.locator(".tl-formula")
    assert int(formula.get_attribute("data-position")) == position
    assert name in live.text_content()
    explorer.screenshot(path=str(screenshots / "keyboard-stride-explorer-cell-focus.png"))
    # ... and the storage cell the element reads is named the same way
    _tab_to(page, FOCUSED_IN_FIRST, [".tl-se", ".tl-cursor[data-kind='storage']"])
    assert re.fullmatch(r"storage \d+, (not read|read by \d+ elements?)",
                        explorer.locator(".tl-cursor[data-kind='storage']").get_attribute("aria-label"))

    # undo with Space, back with Shift+Tab; the focus stays in the widget
    _tab_to(page, FOCUSED_IN_FIRST, [".tl-se", "button[data-op='undo']"], back=True)
    page.keyboard.press(" ")
    assert (shape.inner_text(), stride.inner_text()) == before
    assert page.evaluate("document.querySelector('.tl-se').contains(document.activeElement)")

    # a wrong argument, typed: the error is shown and announced (role=alert)
    _tab_to(page, FOCUSED_IN_FIRST, [".tl-se", "input[data-arg='dim'][aria-label='unsqueeze dim']"])
    page.keyboard.press("Control+a")
    page.keyboard.type("x")
    page.keyboard.press("Enter")
    error = explorer.locator(".tl-error")
    assert error.get_attribute("role") == "alert" and "unsqueeze" in error.inner_text()
    page.close()
    assert problems == [], path


def _swap(tuple_text, i, j):
    items = [s.strip() for s in tuple_text.strip("()").split(",") if s.strip()]
    items[i], items[j] = items[j], items[i]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def test_broadcast_explorer_by_keyboard_alone(browser, book_url, screenshots):
    path, page, problems = _first_page_with(browser, book_url, ".tl-bx", "tl.BroadcastExplorer")
    explorer = page.locator(".tl-bx").first
    live = explorer.locator(".tl-bx-live")
    _start_before(page, explorer)

    _tab_to(page, FOCUSED_IN_FIRST, [".tl-bx", "input[data-operand='0']"])
    assert _focus_is_visible(page)
    page.keyboard.press("Control+a")
    page.keyboard.type("3, 1")
    page.keyboard.press("Tab")          # to the remove button of A
    page.keyboard.press("Tab")          # to the input of B
    assert page.evaluate(FOCUSED_IN_FIRST, [".tl-bx", "input[data-operand='1']"])
    page.keyboard.press("Control+a")
    page.keyboard.type("1, 5")
    assert explorer.get_attribute("data-state") == "ok"
    assert explorer.locator(".tl-bx-result").inner_text() == "[3, 5]"
    assert live.get_attribute("aria-live") == "polite"
    assert live.text_content().endswith("broadcast to [3, 5]")
    explorer.screenshot(path=str(screenshots / "keyboard-broadcast-explorer-input-focus.png"))
    name = explorer.locator("label[for]").nth(1).inner_text()
    cell = explorer.locator(".tl-bx-cell[data-operand='1'][data-dim='0']")
    assert cell.get_attribute("aria-label").startswith(f"{name}, dim -2: 1 stretched to 3")

    page.keyboard.press("Control+a")
    page.keyboard.type("4, 5")
    assert explorer.get_attribute("data-state") == "conflict"
    assert live.text_content() == explorer.locator(".tl-bx-error").inner_text() != ""

    # add an operand with Enter: its input takes the focus; remove it with Space
    rows = explorer.locator("input.tl-bx-input").count()
    _tab_to(page, FOCUSED_IN_FIRST, [".tl-bx", "button.tl-bx-add"])
    assert _focus_is_visible(page)
    page.keyboard.press("Enter")
    assert explorer.locator("input.tl-bx-input").count() == rows + 1
    assert page.evaluate(FOCUSED_IN_FIRST, [".tl-bx", f"input[data-operand='{rows}']"])
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED_IN_FIRST, [".tl-bx", f"button.tl-bx-remove[data-operand='{rows}']"])
    page.keyboard.press(" ")
    assert explorer.locator("input.tl-bx-input").count() == rows
    assert page.evaluate("document.querySelector('.tl-bx').contains(document.activeElement)")
    page.close()
    assert problems == [], path


def test_quiz_by_keyboard_alone(browser, book_url):
    path, page, problems = _first_page_with(browser, book_url, ".tl-quiz-choice", "tl.Quiz")
    _start_before(page, page.locator(".tl-quiz", has=page.locator(".tl-quiz-choice")).first)
    _tab_to(page, "() => document.activeElement.matches('.tl-quiz-choice')", None)
    assert _focus_is_visible(page)
    question = page.locator(".tl-quiz-question", has=page.locator(".tl-quiz-choice:focus"))
    page.keyboard.press(" ")
    assert question.get_attribute("data-state") in {"correct", "wrong"}
    assert question.locator(".tl-quiz-feedback").get_attribute("aria-live") == "polite"
    page.close()
    assert problems == [], path
