"""Make the first code cell of every chapter source README's setup cell.

README.md holds the setup cell once ("The setup cell, identical in every notebook:"); every
``notebooks/*.md`` source starts with a copy, which ``tests/test_sources.py`` compares. After
changing the cell in README, run this, then ``make sync`` to regenerate the notebooks::

    python scripts/set_setup_cell.py          # rewrite the sources that differ
    python scripts/set_setup_cell.py --check  # exit 1 if any source differs
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
README_CELL = re.compile(r"The setup cell, identical in every notebook:\n\n```python\n(.*?)```", re.S)
# The first code cell of a MyST source: its fence, its options (tags), then its code.
FIRST_CELL = re.compile(r"(```\{code-cell\} ipython3\n(?::[^\n]*\n)*\n)(.*?)(```)", re.S)


def setup_cell(readme: pathlib.Path = ROOT / "README.md") -> str:
    """The setup cell's code, as README.md states it."""
    return README_CELL.search(readme.read_text(encoding="utf-8")).group(1)


def with_setup_cell(text: str, cell: str) -> str:
    """``text`` (a chapter source) with its first code cell's code replaced by ``cell``."""
    match = FIRST_CELL.search(text)
    if match is None:
        raise ValueError("no code cell")
    return text[:match.start(2)] + cell + text[match.end(2):]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="report only; exit 1 if any differs")
    args = parser.parse_args(argv)
    cell = setup_cell()
    differ = 0
    for source in sorted((ROOT / "notebooks").glob("*.md")):
        text = source.read_text(encoding="utf-8")
        new = with_setup_cell(text, cell)
        if new != text:
            differ += 1
            if args.check:
                print(f"{source.name}: its setup cell differs from README's")
            else:
                source.write_text(new, encoding="utf-8")
                print(f"{source.name}: setup cell rewritten")
    return 1 if args.check and differ else 0


if __name__ == "__main__":
    sys.exit(main())
