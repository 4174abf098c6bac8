"""What each notebook is, from its name alone (README, "Chapters, pages and the concept map").

- ``NN-K-slug``: page K of chapter NN, a teaching page; ``NN-K-exercises`` is the chapter's
  exercises page, its last.
- ``A-NN-topic``: the appendix's record of the source articles' snippets for chapter NN.
- ``NN-topic``: a first-edition chapter, still one long page (until it is split).
"""

import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"

_PAGE = re.compile(r"^(?P<chapter>\d\d)-(?P<number>\d)-(?P<slug>[a-z0-9]+(?:-[a-z0-9]+)*)$")
_RECORD = re.compile(r"^A-(?P<chapter>\d\d)-[a-z0-9]+(?:-[a-z0-9]+)*$")
_FIRST_EDITION = re.compile(r"^(?P<chapter>\d\d)-[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Page:
    name: str       # the notebook's stem
    kind: str       # "teaching", "exercises", "record" or "first-edition"
    chapter: str    # "01" ... "10"
    number: int     # K for pages of a split chapter, else 0


def classify(name: str) -> Page:
    if match := _PAGE.match(name):
        kind = "exercises" if match["slug"] == "exercises" else "teaching"
        return Page(name, kind, match["chapter"], int(match["number"]))
    if match := _RECORD.match(name):
        return Page(name, "record", match["chapter"], 0)
    if match := _FIRST_EDITION.match(name):
        return Page(name, "first-edition", match["chapter"], 0)
    raise ValueError(f"notebooks/{name}: not a page name (NN-K-slug, A-NN-topic or NN-topic)")


#: ``make check`` sets it to the pages it checks (comma-separated stems, e.g. ``03-2-view-or-copy``);
#: unset, every page is checked (``make test``)
PAGES_ENV = "TENSOR_VIEWS_PAGES"


def notebooks() -> list[Path]:
    return sorted(NOTEBOOK_DIR.glob("*.ipynb"))


def checked_pages() -> set[str] | None:
    """The page stems ``make check`` asked for, or None for all of them."""
    value = os.environ.get(PAGES_ENV)
    if value is None:
        return None
    return {stem.strip() for stem in value.split(",") if stem.strip()}


def is_checked(stem: str) -> bool:
    """Whether the per-page tests run for page ``stem`` (a notebook, landing or prose page)."""
    pages = checked_pages()
    return pages is None or stem in pages


def checked_notebooks() -> list[Path]:
    """The notebooks that per-page tests parametrize over: all, or those ``make check`` names.
    Tests that compare pages with each other (the table of contents, repeated code, copyable
    solutions) use :func:`notebooks`, every page, always."""
    return [path for path in notebooks() if is_checked(path.stem)]


def chapters() -> dict[str, list[Page]]:
    """Each chapter's pages (teaching and exercises pages, or its one first-edition page), in
    reading order."""
    grouped: dict[str, list[Page]] = {}
    for path in notebooks():
        page = classify(path.stem)
        if page.kind != "record":
            grouped.setdefault(page.chapter, []).append(page)
    return {chapter: sorted(pages, key=lambda p: p.number) for chapter, pages in sorted(grouped.items())}


def toc() -> dict:
    return yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))


def toc_entries() -> list[dict]:
    """Every entry of the table of contents that names a file, parents before their sections."""
    entries = []

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                entries.append(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc())
    return entries


#: a line that only proves (book-plan: lesson code and proof code)
PROOF_LINE = re.compile(r"^\s*(assert\b|(else:\s*)?raise AssertionError)")
#: tags that keep a cell's code out of the reader's way until a click
FOLDED = {"remove-cell", "remove-input", "hide-input"}
EXPLORERS = re.compile(r"\btl\.(StrideExplorer|BroadcastExplorer|MaskExplorer|FloatBitsExplorer)\(")


def _code_cells(notebook: Path) -> list[dict]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"][1:]  # the setup cell aside
    return [cell for cell in cells if cell["cell_type"] == "code"]


def visible_code_lines(notebook: Path) -> list[str]:
    """The non-blank code lines a reader sees without opening a toggle."""
    return [line for cell in _code_cells(notebook)
            if not set(cell["metadata"].get("tags", [])) & FOLDED
            for line in "".join(cell["source"]).splitlines() if line.strip()]


WORDS_PER_MINUTE = 200
CODE_LINES_PER_MINUTE = 10


def reading_minutes(notebook: Path) -> int:
    """Prose at 200 words a minute plus shown code at 10 lines a minute, rounded up."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"][1:]  # the setup cell aside
    words = sum(len(re.findall(r"\w+", "".join(cell["source"])))
                for cell in cells if cell["cell_type"] == "markdown")
    code_lines = len(visible_code_lines(notebook))
    return math.ceil(words / WORDS_PER_MINUTE + code_lines / CODE_LINES_PER_MINUTE)


def proof_lines(lines: list[str]) -> list[str]:
    """The asserts among ``lines``."""
    return [line for line in lines if PROOF_LINE.match(line)]


def pictures(notebook: Path) -> list[str]:
    """What the page draws: "figure" for each PNG among its stored outputs, and each explorer
    its code makes (``StrideExplorer``, ...), in page order."""
    found = []
    for cell in _code_cells(notebook):
        found += EXPLORERS.findall("".join(cell["source"]))
        found += ["figure" for output in cell.get("outputs", [])
                  if "image/png" in output.get("data", {})]
    return found
