"""Tiny helpers the chapter generator scripts (build_NN.py) share: cells in, notebook out.

A generator lists its cells with :func:`md` and :func:`code`, then calls :func:`write`, which
puts the book's setup cell first (tagged ``hide-input``), sets the kernelspec and writes an
unexecuted nbformat v4 notebook. Execute it afterwards with
``jupyter execute --inplace notebooks/NN-name.ipynb``.
"""

from __future__ import annotations

import pathlib
import re
import textwrap

import nbformat

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The exact setup cell from README.md (identical in every notebook), read from there so the two
# cannot drift apart.
SETUP = re.search(r"The setup cell, identical in every notebook:\n\n```python\n(.*?)```",
                  (ROOT / "README.md").read_text(encoding="utf-8"), re.S).group(1).strip()

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def md(text: str):
    """A markdown cell from an indented triple-quoted string."""
    return nbformat.v4.new_markdown_cell(textwrap.dedent(text).strip("\n"))


def code(source: str, *tags: str):
    """A code cell from an indented triple-quoted string, with optional cell tags."""
    cell = nbformat.v4.new_code_cell(textwrap.dedent(source).strip("\n"))
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


class Cells(list):
    """Cells collected top to bottom, for scripts that interleave them with other code:
    ``cells = Cells(); md, code = cells.md, cells.code``."""

    def md(self, text: str) -> None:
        self.append(md(text))

    def code(self, source: str, *tags: str) -> None:
        self.append(code(source, *tags))


def describe_figure(cells: list, snippet: str, alt: str) -> None:
    """Give the figure drawn by the one code cell containing ``snippet`` its alt text."""
    matches = [c for c in cells if c.cell_type == "code" and snippet in c.source]
    if len(matches) != 1:
        raise ValueError(f"{len(matches)} code cells contain {snippet!r}; expected exactly one")
    matches[0].metadata.setdefault("mystnb", {})["image"] = {"alt": alt}


def hide_quiz_answers(cells: list) -> None:
    """Tag every ``tl.Quiz(...)`` cell ``remove-input``: its source holds the answer key."""
    for cell in cells:
        if cell.cell_type == "code" and cell.source.lstrip().startswith("tl.Quiz("):
            tags = cell.metadata.setdefault("tags", [])
            if "remove-input" not in tags:
                tags.append("remove-input")


def write(name: str, cells: list) -> pathlib.Path:
    """Write ``notebooks/<name>`` with the setup cell first; return its path."""
    hide_quiz_answers(cells)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [code(SETUP, "hide-input"), *cells]
    path = ROOT / "notebooks" / name
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return path
