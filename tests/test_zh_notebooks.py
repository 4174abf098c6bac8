"""The Chinese notebooks (scripts/zh_notebooks.py): current, complete, and the English notebooks'
code and outputs, so that nbval over the English notebooks proves them too."""

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import zh_notebooks  # noqa: E402

ENGLISH = zh_notebooks.english_notebooks()


def test_every_chinese_notebook_is_current():
    assert ENGLISH
    assert zh_notebooks.stale() == [], "run make sync (it writes notebooks/zh) and commit them"


@pytest.mark.parametrize("english", ENGLISH, ids=lambda p: p.stem)
def test_every_translated_message_stands_in_the_chinese_notebook(english):
    _, missing = zh_notebooks.zh_notebook(english)
    assert missing == []


@pytest.mark.parametrize("english", ENGLISH, ids=lambda p: p.stem)
def test_a_chinese_notebook_is_its_english_one_but_for_the_markdown(english):
    en = nbformat.read(english, as_version=4)
    zh = nbformat.read(zh_notebooks.ZH / english.name, as_version=4)
    assert zh.metadata == en.metadata
    assert [(c.cell_type, c.get("id")) for c in zh.cells] == [(c.cell_type, c.get("id")) for c in en.cells]
    changed = 0
    for zh_cell, en_cell in zip(zh.cells, en.cells):
        if en_cell.cell_type == "markdown":
            assert zh_cell.metadata == en_cell.metadata
            changed += zh_cell.source != en_cell.source
        else:
            assert zh_cell == en_cell, f"{english.stem}: cell {en_cell.get('id')} differs"
    assert changed, f"{english.stem}: no markdown cell was translated"
    assert any(zh_notebooks.translations(zh_notebooks.CATALOGS / f"{english.stem}.po").values())


TABLE = {"Try it": "动手试试",
         "Press `reset`, then press `.t()`.": "先按 `reset`，再按 `.t()`。",
         r"\operatorname{Var}(y) = n\,\operatorname{Var}(x).": r"\operatorname{Var}(y) = n\,\operatorname{Var}(x)."}


@pytest.mark.parametrize("english, chinese", [
    # a heading, and a paragraph whose lines Sphinx's catalog joined
    ("## Try it\n\nPress `reset`,\nthen press `.t()`.\n", "## 动手试试\n\n先按 `reset`，再按 `.t()`。\n"),
    # a quote's continuation lines start with >
    ("> Press `reset`, then\n> press `.t()`.", "> 先按 `reset`，再按 `.t()`。"),
    # an admonition's title, and a list item
    (":::{admonition} Try it\n- Press `reset`, then press `.t()`.\n:::",
     ":::{admonition} 动手试试\n- 先按 `reset`，再按 `.t()`。\n:::"),
    # a display formula
    ("$$\\operatorname{Var}(y) = n\\,\\operatorname{Var}(x).$$",
     "$$\\operatorname{Var}(y) = n\\,\\operatorname{Var}(x).$$"),
])
def test_a_message_is_translated_where_it_stands_as_a_block(english, chinese):
    text, placed = zh_notebooks.translate_markdown(english, TABLE)
    assert text == chinese
    assert placed


@pytest.mark.parametrize("english", [
    "Try it yourself.",                      # a short message inside a longer sentence
    "Press `reset`, then press `.t()`. Now", # a message that is only the start of a paragraph
    "Retry it",                              # a message's words inside other words
])
def test_a_message_is_not_translated_inside_other_text(english):
    text, placed = zh_notebooks.translate_markdown(english, TABLE)
    assert (text, placed) == (english, set())
