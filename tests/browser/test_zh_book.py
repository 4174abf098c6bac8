"""The Chinese edition (``_build/html/zh``, built by ``scripts/i18n.py build``) as a reader meets it.

Its pages get the English pages' checks in test_accessibility.py (requests, console, axe in
both themes) and its widgets the same clicks (the ``zh`` cases of the widget tests). Here: every
page has its Chinese counterpart and says it is Chinese, the switch leads to the same page in the
other language and back, and the search finds Chinese words.
"""

import re

from .conftest import BUILD
from .test_book import PAGES, _open

CHAPTER = "notebooks/04-1-the-broadcasting-rule.html"


def test_every_page_is_built_in_chinese_and_declares_it():
    english = [p for p in PAGES if not p.startswith("zh/")]
    chinese = {p[len("zh/"):] for p in PAGES if p.startswith("zh/")}
    assert english and set(english) == chinese
    for path in english:
        html = (BUILD / "zh" / path).read_text(encoding="utf-8")
        if path != "index.html":  # the root page only redirects
            assert re.search(r'<html lang="zh-CN"', html), path
            assert re.search(r"[\u4e00-\u9fff]", html), path


def test_the_language_switch_goes_to_the_same_page_and_back(browser, book_url):
    page, problems = _open(browser, f"{book_url}/{CHAPTER}")
    english_title = page.locator("h1").first.inner_text()
    page.locator("a.tv-language-switch").click()
    page.wait_for_load_state("networkidle")
    assert page.url == f"{book_url}/zh/{CHAPTER}"
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    chinese_title = page.locator("h1").first.inner_text()
    assert chinese_title != english_title and re.search(r"[\u4e00-\u9fff]", chinese_title)
    switch = page.locator("a.tv-language-switch")
    assert switch.inner_text() == "English" and switch.get_attribute("hreflang") == "en"
    switch.click()
    page.wait_for_load_state("networkidle")
    assert page.url == f"{book_url}/{CHAPTER}"
    assert page.locator("h1").first.inner_text() == english_title
    page.close()
    assert problems == []


def test_the_chinese_search_finds_broadcasting(browser, book_url):
    """Sphinx indexes Chinese words only with jieba; 广播 (broadcasting) leads to its chapter."""
    page, problems = _open(browser, f"{book_url}/zh/search.html?q=广播")
    page.wait_for_selector("#search-results ul.search li", timeout=20_000)
    links = page.locator("#search-results ul.search li a").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))")
    assert any("04-1-the-broadcasting-rule" in href for href in links), links
    page.close()
    assert problems == []
