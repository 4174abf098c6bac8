"""The quiz and the explorers respond in the static book, with no kernel.

The MaskExplorer and the FloatBitsExplorer are each driven on one page load, by mouse and by
keyboard: a click or a typed value changes the display, and bad input shows the message.
"""

import re

import pytest

from .conftest import BUILD
from .test_book import PAGES, _open
from .test_keyboard import _focus_is_visible


@pytest.mark.parametrize("edition", ["", "zh/"], ids=["en", "zh"])
def test_quiz_checks_answers_in_the_page(browser, book_url, edition):
    page, problems = _open(browser, f"{book_url}/{edition}notebooks/03-1-storage-and-strides.html")
    page.wait_for_selector(".tl-quiz .tl-quiz-question", timeout=20_000)
    first = page.locator(".tl-quiz-question[data-index='0']").first
    first.locator(".tl-quiz-input").fill("(4, 3, 1)")
    first.locator(".tl-quiz-submit").click()
    assert first.get_attribute("data-state") == "wrong"
    first.locator(".tl-quiz-input").fill("torch.Size([12, 4, 1])")
    first.locator(".tl-quiz-submit").click()
    assert first.get_attribute("data-state") == "correct"
    choice = page.locator(".tl-quiz-question[data-index='3']").first
    choice.locator(".tl-quiz-choice").nth(2).click()       # 4 + 1·12 + 0·4 + 1·2 = 18
    assert choice.get_attribute("data-state") == "correct"
    # the quiz's own words, its questions, choices and explanations are the page's language
    # (the Chinese book's from locales/zh_CN/quizzes/, _ext/bilingual.py)
    score = page.locator(".tl-quiz-score").first.inner_text()
    assert re.fullmatch(r"答对 2 题，共 \d+ 题" if edition else r"2 of \d+ answered correctly", score), score
    texts = [first.locator(".tl-quiz-text").inner_text(), first.locator(".tl-quiz-explain").inner_text(),
             choice.locator(".tl-quiz-explain").inner_text(), choice.locator(".tl-quiz-feedback").inner_text()]
    assert [bool(re.search(r"[\u4e00-\u9fff]", text)) for text in texts] == [bool(edition)] * 4, texts
    page.close()
    assert problems == []


def edit_broadcast_shapes(page):
    """Type [3, 1] and [1, 5] into the page's first BroadcastExplorer; (explorer, 2nd input)."""
    page.wait_for_selector(".tl-bx .tl-bx-input", timeout=20_000)
    explorer = page.locator(".tl-bx").first
    first, second = (explorer.locator(f"input.tl-bx-input[data-operand='{i}']") for i in (0, 1))
    first.fill("3, 1")
    second.fill("1, 5")
    second.press("Enter")
    return explorer, second


@pytest.mark.parametrize("edition", ["", "zh/"], ids=["en", "zh"])
def test_broadcast_explorer_recomputes_when_a_shape_is_edited(browser, book_url, edition):
    page, problems = _open(browser, f"{book_url}/{edition}notebooks/04-1-the-broadcasting-rule.html")
    explorer, second = edit_broadcast_shapes(page)
    assert explorer.get_attribute("data-state") == "ok"
    assert explorer.locator(".tl-bx-result").inner_text() == "[3, 5]"
    second.fill("4, 5")
    second.press("Enter")
    assert explorer.get_attribute("data-state") == "conflict"
    assert "3" in explorer.locator(".tl-bx-error").inner_text()
    assert "4" in explorer.locator(".tl-bx-error").inner_text()
    page.close()
    assert problems == []


def _page_with(browser, book_url, marker):
    """The first built page whose HTML carries ``marker`` (a widget's class, in its state)."""
    for path in PAGES:
        if marker in (BUILD / path).read_text(encoding="utf-8"):
            page, problems = _open(browser, f"{book_url}/{path}")
            if page.locator(f".{marker}").count():
                return path, page, problems
            page.close()
    pytest.fail(f"no built page shows .{marker}")


def test_mask_explorer_responds_offline_by_mouse_and_keyboard(browser, book_url):
    path, page, problems = _page_with(browser, book_url, "tl-mx")
    explorer = page.locator(".tl-mx").first
    shape = explorer.locator(".tl-mx-shape[data-grid='combined']")
    lengths = explorer.locator("input.tl-mx-lengths")
    assert explorer.get_attribute("data-state") == "ok"
    code = explorer.locator(".tl-mx-code").inner_text()
    assert code.startswith("lengths = torch.tensor([") and "tril()" in code
    # an empty sequence: its rows are flagged NaN
    lengths.fill("4, 0, 3")
    assert shape.inner_text() == "(3, 1, 4, 4)"
    weights = explorer.locator(".tl-mx-weight[data-b='1']")
    assert weights.count() == 4
    assert all(w.get_attribute("data-nan") == "true" and w.inner_text() == "NaN" for w in weights.all())
    assert "sequence 1" in explorer.locator(".tl-mx-nan").inner_text()
    first = explorer.locator(".tl-mx-cell[data-grid='padding'][data-i='0'][data-j='0']")
    assert first.get_attribute("data-value") == "true"
    # the other convention flips every bool; no causal mask broadcasts one row
    explorer.locator("input.tl-mx-convention[value='mha']").check()
    assert first.get_attribute("data-value") == "false"
    assert first.get_attribute("data-attend") == "yes"
    assert "triu(1)" in explorer.locator(".tl-mx-code").inner_text()
    explorer.locator("input.tl-mx-causal").uncheck()
    assert shape.inner_text() == "(3, 1, 1, 4)"
    # bad input: a message inside the widget, the drawing kept
    lengths.fill("4, 5, 3")
    assert explorer.get_attribute("data-state") == "invalid"
    assert explorer.locator(".tl-mx-error").inner_text() == "lengths[1] is 5, longer than L = 4"
    assert lengths.get_attribute("aria-invalid") == "true"
    # by keyboard alone: into the lengths, then L, then the causal switch
    explorer.evaluate("el => { const a = document.createElement('span'); a.tabIndex = -1;"
                      " el.before(a); a.focus(); }")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.classList.contains('tl-mx-lengths')")
    page.keyboard.press("Control+a")
    page.keyboard.type("2 1")
    page.keyboard.press("Tab")
    page.keyboard.press("Control+a")
    page.keyboard.type("2")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.classList.contains('tl-mx-causal')")
    assert _focus_is_visible(page)
    page.keyboard.press(" ")
    assert explorer.get_attribute("data-state") == "ok"
    assert shape.inner_text() == "(2, 1, 2, 2)"
    live = explorer.locator(".tl-mx-live")
    assert live.get_attribute("aria-live") == "polite"
    assert live.text_content().startswith("(2, 1, 2, 2) mask for lengths 2, 1, causal")
    cell = explorer.locator(".tl-mx-cell[data-grid='combined'][data-b='1'][data-i='1'][data-j='1']")
    assert cell.get_attribute("aria-label") == "sequence 1, query 1, key 1: True, masked"
    page.close()
    assert problems == [], path


def test_float_bits_explorer_responds_offline_by_mouse_and_keyboard(browser, book_url):
    path, page, problems = _page_with(browser, book_url, "tl-fb")
    explorer = page.locator(".tl-fb").first
    value = explorer.locator(".tl-fb-value")
    text = explorer.locator("input.tl-fb-input")
    explorer.locator("select.tl-fb-format").select_option("float16")
    text.fill("-6.25")
    assert value.inner_text() == "-6.25"
    # the lowest exponent bit of float16 (bit 5) halves it
    bit = explorer.locator("button.tl-fb-bit[data-index='5']")
    assert bit.get_attribute("data-field") == "exponent" and bit.inner_text() == "1"
    bit.click()
    assert value.inner_text() == "-3.125"
    assert text.input_value() == "-3.125"
    assert bit.get_attribute("aria-pressed") == "false"
    # by keyboard: the bits are one tab stop; ArrowRight moves, Space flips
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.index") == "6"
    assert _focus_is_visible(page)
    page.keyboard.press(" ")
    assert value.inner_text() == "-2.125"
    assert explorer.locator(".tl-fb-live").text_content() == "float16 1 10000 0001000000 = -2.125, normal"
    # overflow, a format with no inf, and text that is not a number
    text.fill("65520")
    assert explorer.get_attribute("data-kind") == "inf"
    assert explorer.locator(".tl-fb-note").inner_text().startswith("Overflow")
    explorer.locator("select.tl-fb-format").select_option("float8_e4m3fn")
    text.fill("1000")
    assert value.inner_text() == "448"
    assert "no inf" in explorer.locator(".tl-fb-note").inner_text()
    assert explorer.locator("button.tl-fb-bit").count() == 8
    text.fill("abc")
    assert explorer.get_attribute("data-state") == "invalid"
    assert "is not a number" in explorer.locator(".tl-fb-error").inner_text()
    assert text.get_attribute("aria-invalid") == "true"
    page.close()
    assert problems == [], path
