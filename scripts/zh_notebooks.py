"""The Chinese notebooks: ``notebooks/zh/<page>.ipynb`` for every ``notebooks/<page>.ipynb``.

    python scripts/zh_notebooks.py          # write the out-of-date ones (make sync, make i18n)
    python scripts/zh_notebooks.py --check  # only report; exit 1 if any is out of date

A Chinese notebook is its English notebook with each markdown cell's messages replaced by their
translations from the page's catalog (``locales/zh_CN/LC_MESSAGES/notebooks/<page>.po``). Code
cells, their outputs, the widget state and the metadata stay byte for byte the English
notebook's, but for two changes that tests/test_zh_notebooks.py holds to exactly: the setup
cell switches tensorlens to Chinese (``TENSORLENS_LANGUAGE``) and says pip's failure in Chinese
(:func:`zh_setup_cell`), and each stored ``tl.check`` report is the English one rendered in
Chinese by tensorlens (:func:`zh_outputs`: read back from its text, checked to render as
stored, rendered in Chinese), so what nbval proves of the English notebook holds for it. The
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


#: the Chinese setup cell is the English one (README's) with these lines changed, and no other:
#: the language switch goes in before tensorlens is imported (so that its torch check speaks
#: Chinese too), and the message of pip's failure is in Chinese
SETUP_ANCHOR = "import importlib.util\n"
SETUP_ADDED = ('import os\n'
               'os.environ["TENSORLENS_LANGUAGE"] = "zh_CN"  # tensorlens 的检查报告和提示用中文\n')
SETUP_ENGLISH_ERROR = (
    '            "pip could not install tensorlens (its message is above). Check "\n'
    '            "the network and run this cell again, or run `pip install "\n'
    '            f"\'{PACKAGE}\'` in a terminal and restart the kernel.")\n')
SETUP_CHINESE_ERROR = (
    '            "pip 没能安装 tensorlens（它的报错信息在上方）。请检查网络后重新运行"\n'
    '            "本单元格，或者在终端中运行 `pip install "\n'
    '            f"\'{PACKAGE}\'`，然后重启内核。")\n')


def zh_setup_cell(source: str) -> str:
    """The Chinese form of the setup cell ``source`` (README's setup cell).

    Raises
    ------
    ValueError
        If ``source`` is not that cell (the lines to change are not each there once).
    """
    for line in (SETUP_ANCHOR, SETUP_ENGLISH_ERROR):
        if source.count(line) != 1:
            raise ValueError(f"not README's setup cell: it lacks {line.splitlines()[0].strip()!r}")
    return (source.replace(SETUP_ANCHOR, SETUP_ANCHOR + SETUP_ADDED)
            .replace(SETUP_ENGLISH_ERROR, SETUP_CHINESE_ERROR))


def is_setup_cell(cell) -> bool:
    return cell.cell_type == "code" and cell.source.startswith("# Setup: installs tensorlens")


def is_check_report(output) -> bool:
    """An output that is a ``tl.check`` report (its HTML is tensorlens's ``tl-check`` box)."""
    html = output.get("data", {}).get("text/html", "")
    return 'class="tl-check ' in ("".join(html) if isinstance(html, list) else html)


def zh_outputs(outputs: list) -> list:
    """A code cell's outputs in the Chinese notebook: each check report rendered in Chinese
    from the English one by tensorlens (the same renderer a Chinese kernel uses), strictly (a
    text without a translation raises); every other output as it is."""
    from tensorlens.exercises import _render

    out = []
    for output in outputs:
        if is_check_report(output):
            output = nbformat.from_dict({**output, "data": _render.translate_bundle(output["data"],
                                                                                    "zh_CN")})
        out.append(output)
    return out


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
        elif cell.cell_type == "code":
            if is_setup_cell(cell):
                cell.source = zh_setup_cell(cell.source)
            cell.outputs = zh_outputs(cell.outputs)
    return nb, sorted(set(table) - placed)


def text_of(nb) -> str:
    """A notebook as nbformat writes it (the English notebooks' form too)."""
    return nbformat.writes(nb) + "\n"


def english_notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def stale(generate=None) -> list[str]:
    """The Chinese notebooks that are missing, out of date or left over from a page that is gone
    (``generate``: what makes a page's Chinese notebook, :func:`zh_notebook` unless given)."""
    generate = generate or zh_notebook
    problems = []
    for english in english_notebooks():
        target = ZH / english.name
        if not target.exists():
            problems.append(f"{target.relative_to(ROOT)}: missing")
        elif target.read_text(encoding="utf-8") != text_of(generate(english)[0]):
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
