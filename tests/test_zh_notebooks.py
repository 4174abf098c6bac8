"""The Chinese notebooks (scripts/zh_notebooks.py): current, complete, and the English notebooks'
code and outputs but for the setup cell's stated lines (the language switch, pip's failure in
Chinese) and the check reports (the English ones rendered in Chinese by tensorlens), so that
nbval over the English notebooks proves them too."""

import dataclasses
import difflib
import functools
import re
import sys
from pathlib import Path

import nbformat
import pytest

from tensorlens.exercises import _render
from tensorlens.exercises._messages import Untranslated

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import zh_notebooks  # noqa: E402

ENGLISH = zh_notebooks.english_notebooks()
README = (ROOT / "README.md").read_text(encoding="utf-8")


@functools.cache
def _generated(english):
    """The Chinese notebook the script makes of ``english``, made once for this file's tests."""
    return zh_notebooks.zh_notebook(english)


def test_every_chinese_notebook_is_current():
    assert ENGLISH
    assert zh_notebooks.stale(_generated) == [], \
        "run make sync (it writes notebooks/zh) and commit them"


@pytest.mark.parametrize("english", ENGLISH, ids=lambda p: p.stem)
def test_every_translated_message_stands_in_the_chinese_notebook(english):
    _, missing = _generated(english)
    assert missing == []


@pytest.mark.parametrize("english", ENGLISH, ids=lambda p: p.stem)
def test_a_chinese_notebook_is_its_english_one_but_for_the_markdown_setup_and_reports(english):
    """Code cells, outputs and metadata are the English notebook's, but for the setup cell's
    stated lines and the check reports, each the English report rendered in Chinese (recomputed
    here from the English notebook)."""
    en = nbformat.read(english, as_version=4)
    zh = nbformat.read(zh_notebooks.ZH / english.name, as_version=4)
    assert zh.metadata == en.metadata
    assert [(c.cell_type, c.get("id")) for c in zh.cells] == [(c.cell_type, c.get("id")) for c in en.cells]
    changed = setups = reports = 0
    for zh_cell, en_cell in zip(zh.cells, en.cells):
        if en_cell.cell_type == "markdown":
            assert zh_cell.metadata == en_cell.metadata
            changed += zh_cell.source != en_cell.source
            continue
        where = f"{english.stem}: cell {en_cell.get('id')}"
        rest = ("source", "outputs")
        assert {k: v for k, v in zh_cell.items() if k not in rest} == \
            {k: v for k, v in en_cell.items() if k not in rest}, where
        if zh_notebooks.is_setup_cell(en_cell):
            setups += 1
            assert zh_cell.source == zh_notebooks.zh_setup_cell(en_cell.source), where
        else:
            assert zh_cell.source == en_cell.source, where
        if en_cell.cell_type != "code":
            continue
        assert len(zh_cell.outputs) == len(en_cell.outputs), where
        for zh_output, en_output in zip(zh_cell.outputs, en_cell.outputs):
            if zh_notebooks.is_check_report(en_output):
                reports += 1
                assert {k: v for k, v in zh_output.items() if k != "data"} == \
                    {k: v for k, v in en_output.items() if k != "data"}, where
                assert zh_output.data == _render.translate_bundle(en_output.data, "zh_CN"), where
                assert zh_output.data != en_output.data, where
            else:
                assert zh_output == en_output, where
    assert changed, f"{english.stem}: no markdown cell was translated"
    assert setups == 1, f"{english.stem}: the setup cell is missing"
    if english.stem.endswith("-exercises"):
        assert reports, f"{english.stem}: no check report was rendered in Chinese"
    assert any(zh_notebooks.translations(zh_notebooks.CATALOGS / f"{english.stem}.po").values())


def test_the_chinese_setup_cell_is_readmes_with_exactly_the_stated_lines_changed():
    english = re.search(r"The setup cell, identical in every notebook:\n\n```python\n(.*?)```",
                        README, re.S).group(1)
    chinese = zh_notebooks.zh_setup_cell(english)
    diff = list(difflib.ndiff(english.splitlines(True), chinese.splitlines(True)))
    assert "".join(line[2:] for line in diff if line.startswith("- ")) == \
        zh_notebooks.SETUP_ENGLISH_ERROR
    assert "".join(line[2:] for line in diff if line.startswith("+ ")) == \
        zh_notebooks.SETUP_ADDED + zh_notebooks.SETUP_CHINESE_ERROR
    # the language is named before tensorlens is imported, and the cell is still Python
    assert chinese.index("TENSORLENS_LANGUAGE") < chinese.index("import tensorlens")
    compile(chinese.replace("%pip", "pass  #"), "setup", "exec")
    # README's Chinese section shows the lines that differ
    for line in (zh_notebooks.SETUP_ADDED + zh_notebooks.SETUP_CHINESE_ERROR).splitlines():
        assert line.strip() in README, line
    with pytest.raises(ValueError, match="not README's setup cell"):
        zh_notebooks.zh_setup_cell("import tensorlens as tl\n")


def test_a_report_without_a_translation_stops_the_chinese_notebook():
    en = nbformat.read(zh_notebooks.NOTEBOOKS / "01-7-exercises.ipynb", as_version=4)
    report = next(o for c in en.cells if c.cell_type == "code" for o in c.outputs
                  if zh_notebooks.is_check_report(o))
    result = _render.parse_text("".join(report.data["text/plain"]))
    new = dataclasses.replace(result, message="a message tensorlens has no template for")
    data = {"text/plain": _render.text(new, "en"), "text/html": _render.html(new, "en")}
    with pytest.raises(Untranslated, match="no template for"):
        zh_notebooks.zh_outputs([nbformat.from_dict({**report, "data": data})])


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


def test_the_chinese_book_shows_each_stored_report_in_chinese(tmp_path):
    """_ext/bilingual.py's table for a page: each English report's HTML -> the Chinese one, the
    same as the Chinese notebook stores; a report without a translation maps to None (the
    transform warns, and the -W build fails)."""
    sys.path.insert(0, str(ROOT / "_ext"))
    import bilingual

    english = zh_notebooks.NOTEBOOKS / "03-6-exercises.ipynb"
    table = bilingual._zh_reports(english)
    en = nbformat.read(english, as_version=4)
    zh = nbformat.read(zh_notebooks.ZH / english.name, as_version=4)
    pairs = [("".join(e.data["text/html"]).strip(), "".join(z.data["text/html"]))
             for ec, zc in zip(en.cells, zh.cells) if ec.cell_type == "code"
             for e, z in zip(ec.outputs, zc.outputs) if zh_notebooks.is_check_report(e)]
    assert pairs and table == dict(pairs)
    report = next(o for c in en.cells if c.cell_type == "code" for o in c.outputs
                  if zh_notebooks.is_check_report(o) and "\u2717" in o.data["text/plain"][0])
    result = _render.parse_text("".join(report.data["text/plain"]))
    new = dataclasses.replace(result, message="a message tensorlens has no template for")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(outputs=[nbformat.from_dict(
        {**report, "data": {"text/plain": _render.text(new, "en"),
                            "text/html": _render.html(new, "en")}})])])
    nbformat.write(nb, tmp_path / "fake.ipynb")
    assert list(bilingual._zh_reports(tmp_path / "fake.ipynb").values()) == [None]
