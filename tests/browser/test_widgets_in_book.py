"""The quiz and the BroadcastExplorer respond in the static book, with no kernel."""

from .test_book import _open


def test_quiz_checks_answers_in_the_page(browser, book_url):
    page, problems = _open(browser, f"{book_url}/notebooks/03-1-storage-and-strides.html")
    page.wait_for_selector(".tl-quiz .tl-quiz-question", timeout=20_000)
    first = page.locator(".tl-quiz-question[data-index='0']").first
    first.locator(".tl-quiz-input").fill("(4, 3, 1)")
    first.locator(".tl-quiz-submit").click()
    assert first.get_attribute("data-state") == "wrong"
    first.locator(".tl-quiz-input").fill("torch.Size([12, 4, 1])")
    first.locator(".tl-quiz-submit").click()
    assert first.get_attribute("data-state") == "correct"
    choice = page.locator(".tl-quiz-question[data-index='3']").first
    choice.locator(".tl-quiz-choice").nth(2).click()       # x[1, 2]: 1·4 + 2 = 6
    assert choice.get_attribute("data-state") == "correct"
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


def test_broadcast_explorer_recomputes_when_a_shape_is_edited(browser, book_url):
    page, problems = _open(browser, f"{book_url}/notebooks/04-1-the-broadcasting-rule.html")
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
