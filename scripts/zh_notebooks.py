"""The Chinese notebooks: ``notebooks/zh/<page>.ipynb`` for every ``notebooks/<page>.ipynb``.

    python scripts/zh_notebooks.py          # write the out-of-date ones (make sync, make i18n)
    python scripts/zh_notebooks.py --check  # only report; exit 1 if any is out of date

A Chinese notebook is its English notebook with each markdown cell's messages replaced by their
translations from the page's catalog (``locales/zh_CN/LC_MESSAGES/notebooks/<page>.po``). Code
cells, their outputs, the widget state and the metadata stay byte for byte the English
notebook's, so what nbval proves of one holds for the other (tests/test_i18n.py checks it). The
Chinese book's Colab, Binder and download buttons open these notebooks, and ``make student
EDITION=zh`` and ``make assignments EDITION=zh`` build class material from them.

A message is found where its words stand as a whole block of a markdown cell: after white
space, up to the end of a line, a table cell's ``|`` or a display formula's ``$$`` (line
breaks, and a quote's ``>`` markers, may differ: Sphinx's catalogs join a paragraph's lines); the longest messages are placed first, so a
short one (``Try it``) never lands inside a paragraph. A page without a catalog, or with
messages not yet translated (or fuzzy), keeps that English, as the Chinese book does.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat
import polib

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
ZH = NOTEBOOKS / "zh"
CATALOGS = ROOT / "locales" / "zh_CN" / "LC_MESSAGES" / "notebooks"


def translations(po: Path) -> dict[str, str]:
    """A catalog's translated messages (fuzzy ones show English, as in the Chinese book)."""
    return {e.msgid: e.msgstr for e in polib.pofile(str(po))
            if e.msgid and e.msgstr and not e.obsolete and "fuzzy" not in e.flags}


def translate_markdown(text: str, table: dict[str, str]) -> tuple[str, set[str]]:
    """``text`` with every message of ``table`` that stands in it as a whole block translated,
    and the messages that were placed."""
    spans: list[tuple[int, int, str]] = []
    placed: set[str] = set()
    for msgid in sorted(table, key=len, reverse=True):
        words = r"\s+(?:>\s+)*".join(map(re.escape, msgid.split()))  # a quote's lines start with >
        for match in re.finditer(rf"(?<![^\s$]){words}(?=[ \t]*(?:\n|$|\||\$\$))", text):
            if any(match.start() < end and start < match.end() for start, end, _ in spans):
                continue
            spans.append((match.start(), match.end(), table[msgid]))
            placed.add(msgid)
    pieces, last = [], 0
    for start, end, translation in sorted(spans):
        pieces += [text[last:start], translation]
        last = end
    return "".join(pieces) + text[last:], placed


def zh_notebook(english: Path):
    """The Chinese notebook of the English notebook ``english``, and the translated messages
    that are in none of its markdown cells (none, unless the catalog is behind the page)."""
    nb = nbformat.read(english, as_version=4)
    po = CATALOGS / f"{english.stem}.po"
    table = translations(po) if po.exists() else {}
    placed = set()
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source, found = translate_markdown(cell.source, table)
            placed |= found
    return nb, sorted(set(table) - placed)


def text_of(nb) -> str:
    """A notebook as nbformat writes it (the English notebooks' form too)."""
    return nbformat.writes(nb) + "\n"


def english_notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def stale() -> list[str]:
    """The Chinese notebooks that are missing, out of date or left over from a page that is gone."""
    problems = []
    for english in english_notebooks():
        target = ZH / english.name
        if not target.exists():
            problems.append(f"{target.relative_to(ROOT)}: missing")
        elif target.read_text(encoding="utf-8") != text_of(zh_notebook(english)[0]):
            problems.append(f"{target.relative_to(ROOT)}: out of date")
    names = {p.name for p in english_notebooks()}
    problems += [f"{p.relative_to(ROOT)}: its page is gone" for p in sorted(ZH.glob("*.ipynb"))
                 if p.name not in names]
    return problems


def write() -> int:
    ZH.mkdir(exist_ok=True)
    names = set()
    for english in english_notebooks():
        names.add(english.name)
        zh, missing = zh_notebook(english)
        if missing:
            print(f"{english.name}: {len(missing)} translated messages are in no markdown cell, "
                  f"such as {missing[0][:60]!r}: its catalog is behind the page (make i18n)")
        target, text = ZH / english.name, text_of(zh)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target.relative_to(ROOT)}")
    for gone in sorted(ZH.glob("*.ipynb")):
        if gone.name not in names:
            gone.unlink()
            print(f"removed {gone.relative_to(ROOT)}: its page is gone")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="zh_notebooks", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only report; exit 1 if any is stale")
    args = parser.parse_args(argv)
    if not args.check:
        return write()
    problems = stale()
    print("\n".join(problems) or "every Chinese notebook is up to date")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
