"""The Chinese edition's catalogs: complete, current, faithful to their messages' markup, and
written with one term table (scripts/i18n.py, locales/zh_CN/).

The built Chinese book is checked in the browser stage (tests/browser/test_zh_book.py).
"""

import re
import sys
from pathlib import Path

import polib
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "_ext"))
import bilingual  # noqa: E402
import i18n  # noqa: E402

TERMS = i18n.load_terms()
CATALOGS = i18n.catalogs()
#: the pages' catalogs and the quizzes' (scripts/quiz_messages.py)
ALL_CATALOGS = CATALOGS + i18n.quiz_catalogs()


def _entries(po):
    return [e for e in polib.pofile(str(po)) if not e.obsolete]


def test_every_page_has_a_catalog_and_every_catalog_a_page():
    """One .po per page of the toc: the chapters' notebooks and every prose page."""
    notebooks = {f"notebooks/{p.stem}" for p in (ROOT / "notebooks").glob("*.ipynb")}
    prose = {p.relative_to(ROOT).with_suffix("").as_posix() for p in (ROOT / "book").rglob("*.md")}
    assert {i18n.page(po) for po in CATALOGS} == notebooks | prose


@pytest.mark.parametrize("po", ALL_CATALOGS, ids=i18n.page)
def test_every_message_is_translated_and_none_is_fuzzy(po):
    entries = _entries(po)
    assert entries, f"{i18n.page(po)} has no messages"
    untranslated = [e.msgid[:60] for e in entries if not e.msgstr]
    fuzzy = [e.msgid[:60] for e in entries if "fuzzy" in e.flags]
    assert not untranslated and not fuzzy, (
        f"{i18n.page(po)}: untranslated {untranslated}, fuzzy {fuzzy} "
        "(make i18n, then scripts/i18n.py todo/fill: README, 'The Chinese edition')")


@pytest.mark.parametrize("po", ALL_CATALOGS, ids=i18n.page)
def test_every_translation_keeps_its_markup_and_the_term_table(po):
    problems = [f"{e.msgid[:50]!r}: {p}" for e in _entries(po) if e.msgstr
                for p in i18n.lint_entry(e.msgid, e.msgstr, TERMS)]
    assert problems == []


def test_the_catalogs_hold_exactly_the_messages_of_their_pages():
    """An English change lands with its translation: the messages the English pages give today
    (Sphinx's gettext builder, about 15 s) are the catalogs' messages, no more and no fewer."""
    assert i18n.out_of_date() == []


@pytest.mark.parametrize("msgid, msgstr, problem", [
    ("Use `x.t()` here.", "在这里用 x.t()。", "code spans differ"),
    ("A {term}`view` is cheap.", "视图很便宜。", "roles differ"),
    ("See {doc}`the rule <04-1-the-broadcasting-rule>`.", "见{doc}`规则 <04-2-everyday-broadcasting>`。",
     "roles differ"),
    ("Read [the docs](https://pytorch.org).", "阅读[文档](https://example.org)。", "link targets differ"),
    ("Its size is $n^2$.", "它的大小是 n^2。", "formulas"),
    ("The error is real.[^record]", "这个报错是真的。", "footnote references"),
    ("The stride of a view.", "视图的步长。", "'步长'"),
    ("A {term}`leaf <leaf tensor>` holds .grad.", "{term}`叶子 <leaf tensor>` 保存 .grad。",
     "written without '叶子张量'"),
    ("The tensor is contiguous.", "The tensor is contiguous.", "no Chinese"),
])
def test_lint_refuses_a_translation_that_loses_something(msgid, msgstr, problem):
    assert any(problem in p for p in i18n.lint_entry(msgid, msgstr, TERMS))


@pytest.mark.parametrize("msgid, msgstr", [
    ("Use `x.t()` here.", "在这里用 `x.t()`。"),
    ("A {term}`view` is cheap.", "{term}`视图 <view>` 很便宜。"),
    ("The error is real.[^record]", "这个报错是真的。[^record]"),
    ("DataLoader", "DataLoader"),
    (r"H_\text{out} = \left\lfloor \frac{H + 2p - k}{s} \right\rfloor + 1 .",
     r"H_\text{out} = \left\lfloor \frac{H + 2p - k}{s} \right\rfloor + 1 ."),
])
def test_lint_accepts_a_faithful_translation(msgid, msgstr):
    assert i18n.lint_entry(msgid, msgstr, TERMS) == []


def test_the_term_table_is_one_entry_per_term_and_avoids_nothing_it_uses():
    english = [t["en"] for t in TERMS]
    assert len(english) == len(set(english))
    for term in TERMS:
        assert term["zh"] and not any(a in term["zh"] for a in term.get("avoid", [])), term


def test_the_glossary_shows_both_languages_with_the_term_tables_chinese():
    """Each glossary term that the table translates is written with the table's Chinese and the
    English term (its qualifier in brackets aside), as in 视图（view）."""
    glossary = {e.msgid: e.msgstr for e in _entries(i18n.CATALOGS / "book" / "glossary.po")}
    table = {t["en"]: t["zh"] for t in TERMS}
    terms = [msgid for msgid in glossary if msgid in table and table[msgid] != msgid]
    assert len(terms) > 40
    for term in terms:
        english = re.sub(r" \(.*\)$", "", term)
        assert table[term] in glossary[term] and english in glossary[term], \
            f"glossary {term!r} is {glossary[term]!r}; the table says {table[term]!r}"


def test_every_code_toggle_label_has_its_chinese():
    import nbformat

    labels = {cell.metadata["mystnb"][key] for path in (ROOT / "notebooks").glob("*.ipynb")
              for cell in nbformat.read(path, as_version=4).cells
              for key in ("code_prompt_show", "code_prompt_hide")
              if key in cell.metadata.get("mystnb", {})}
    assert "Solution" in labels
    assert labels - set(bilingual.ZH_PROMPTS) == set()


@pytest.mark.parametrize("page, language, href", [
    ("book/intro", "en", "../zh/book/intro.html"),
    ("notebooks/03-2-view-or-copy", "en", "../zh/notebooks/03-2-view-or-copy.html"),
    ("index", "en", "zh/index.html"),
    ("book/chapters/03-memory-layout", "en", "../../zh/book/chapters/03-memory-layout.html"),
    ("book/intro", "zh_CN", "../../book/intro.html"),
    ("search", "zh_CN", "../search.html"),
])
def test_the_language_switch_leads_to_the_same_page(page, language, href):
    assert bilingual.switch_link(page, language)["href"] == href
