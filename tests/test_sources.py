"""Every chapter has one text source (notebooks/NN-name.md) and its .ipynb is generated from it.

The committed .ipynb is what nbval checks, Colab opens and ``make student`` copies; the book is
built from the .md. These tests fail when the two disagree in any cell's type, source, tags or
metadata, and name the chapter and the command that fixes it (``make sync``).
"""

import copy
import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

from book_pages import is_checked

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "sync_notebooks.py"
README = (ROOT / "README.md").read_text(encoding="utf-8")
SETUP = re.search(r"The setup cell, identical in every notebook:\n\n```python\n(.*?)```",
                  README, re.S).group(1)


def _load_sync():
    spec = importlib.util.spec_from_file_location("sync_notebooks", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sync = _load_sync()
SOURCES = sync.sources()
CHECKED = [source for source in SOURCES if is_checked(source.stem)]  # all, or make check's
ids = [source.stem for source in CHECKED]


def test_every_chapter_has_one_source_and_one_notebook():
    assert SOURCES, "no chapter sources in notebooks/"
    notebooks = {path.stem for path in (ROOT / "notebooks").glob("*.ipynb")}
    assert {s.stem for s in SOURCES} == notebooks, (
        "every notebooks/NN-name.md needs its generated .ipynb and every .ipynb its .md source "
        "(run `make sync`; delete an .ipynb whose source is gone)")


@pytest.mark.parametrize("source", CHECKED, ids=ids)
def test_notebook_is_in_sync_with_its_source(source):
    reasons = sync.out_of_date(source)
    assert not reasons, (
        f"notebooks/{source.stem}.ipynb does not match its source {source.name}: "
        + "; ".join(reasons[:3]) + ". Edit only the .md, then run `make sync`.")


@pytest.mark.parametrize("source", CHECKED, ids=ids)
def test_source_starts_with_the_readme_setup_cell(source):
    first = sync.notebook_from_source(source).cells[0]
    assert first.cell_type == "code"
    assert first.source.strip() == SETUP.strip(), f"{source.name}: the first cell is README's setup cell"
    assert "hide-input" in first.metadata.get("tags", [])


@pytest.mark.parametrize("source", CHECKED, ids=ids)
def test_quiz_answer_keys_are_checked_against_torch(source):
    """Each quiz's answers are asserted by a hidden cell right after it, so nbval re-checks them."""
    cells = sync.notebook_from_source(source).cells
    for i, cell in enumerate(cells):
        if cell.cell_type == "code" and "tl.Quiz(" in cell.source:
            following = cells[i + 1] if i + 1 < len(cells) else None
            assert following is not None and following.cell_type == "code", \
                f"{source.name}: no check cell after the quiz"
            tags = set(following.metadata.get("tags", []))
            assert tags & {"remove-cell", "remove-input"}, "the quiz check is hidden in the book"
            assert "assert" in following.source, "the quiz check asserts the answers"


def test_no_chapter_text_lives_in_python_files():
    """The sources are the only place a chapter's prose is written (no generator scripts)."""
    per_source = [{line[3:] for line in source.read_text(encoding="utf-8").splitlines()
                   if line.startswith("## ")} for source in SOURCES]
    shape = {"Check yourself", "Summary"}  # the headings every teaching page has
    from tensorlens.exercises import EXERCISES
    titles = {exercise.title for exercise in EXERCISES.values()}  # an exercise heads its section
    headings = sorted(h for h in set.union(*per_source) - shape
                      if not any(h in title for title in titles))
    python_files = [p for p in ROOT.rglob("*.py")
                    if not {".venv", "node_modules", "_build", ".git"} & set(p.relative_to(ROOT).parts)]
    for path in python_files:
        text = path.read_text(encoding="utf-8")
        found = [h for h in headings if h in text]
        assert not found, f"{path.relative_to(ROOT)} holds chapter text: {found[0]!r}"


# --- the comparison itself can fail ---------------------------------------------------------------

@pytest.fixture(scope="module")
def expected():
    return sync.notebook_from_source(SOURCES[0])


def _first(nb, kind, tag=None):
    return next(c for c in nb.cells
                if c.cell_type == kind and (tag is None or tag in c.metadata.get("tags", [])))


def _index(nb, kind):
    return next(i for i, c in enumerate(nb.cells) if c.cell_type == kind)


def test_an_identical_notebook_has_no_differences(expected):
    executed = copy.deepcopy(expected)
    for cell in executed.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", text="printed\n")]
            cell.execution_count = 1
            cell.metadata["execution"] = {"iopub.status.idle": "2026-12-01T00:00:00Z"}
    assert sync.differences(expected, executed) == []


@pytest.mark.parametrize("change, words", [
    (lambda nb: setattr(_first(nb, "markdown"), "source", _first(nb, "markdown").source + " x"),
     "text differs"),
    (lambda nb: _first(nb, "code", "raises-exception").metadata["tags"].remove("raises-exception"),
     "tags or metadata"),
    (lambda nb: _first(nb, "code").metadata.setdefault("mystnb", {}).update(image={"alt": "a"}),
     "tags or metadata"),
    (lambda nb: nb.cells.insert(3, nbformat.v4.new_markdown_cell("new")), "cells"),
    (lambda nb: nb.cells.__setitem__(_index(nb, "markdown"),
                                     nbformat.v4.new_code_cell(_first(nb, "markdown").source)),
     "code cell here"),
    (lambda nb: nb.metadata.update(kernelspec={"name": "other"}), "kernelspec"),
])
def test_each_kind_of_edit_is_reported(expected, change, words):
    edited = copy.deepcopy(expected)
    change(edited)
    found = sync.differences(expected, edited)
    assert found and words in found[0], found


def test_notebooks_are_generated_with_stable_cell_ids(expected):
    again = sync.notebook_from_source(SOURCES[0])
    assert [c.id for c in again.cells] == [c.id for c in expected.cells]
    assert len({c.id for c in expected.cells}) == len(expected.cells)


def test_unknown_chapter_names_are_refused(capsys):
    with pytest.raises(SystemExit):
        sync.main(["no-such-chapter"])
    assert "no-such-chapter" in capsys.readouterr().err


@pytest.mark.parametrize("source", CHECKED, ids=ids)
def test_stored_streams_are_joined_as_sync_writes_them(source):
    """A cell's printed text is one output per stream, however the kernel flushed it (the book
    draws each output as a box of its own)."""
    stored = nbformat.read(sync.notebook_path(source), as_version=4)
    joined = copy.deepcopy(stored)
    sync.join_streams(joined)
    split = [i for i, (a, b) in enumerate(zip(stored.cells, joined.cells))
             if a.get("outputs") != b.get("outputs")]
    assert not split, f"{source.stem}: cells {split} store a stream in pieces (`make sync` joins them)"


def test_join_streams_joins_only_neighbours_of_one_stream():
    out = nbformat.v4.new_output
    cell = nbformat.v4.new_code_cell("")
    cell.outputs = [out("stream", name="stdout", text="a\n"), out("stream", name="stdout", text="b\n"),
                    out("stream", name="stderr", text="w\n"), out("stream", name="stdout", text="c\n"),
                    out("display_data", data={"text/plain": "d"}), out("stream", name="stdout", text="e\n"),
                    out("stream", name="stdout", text="f\n")]
    nb = nbformat.v4.new_notebook(cells=[cell, nbformat.v4.new_markdown_cell("m")])
    sync.join_streams(nb)
    assert [(o.output_type, o.get("name"), o.get("text")) for o in nb.cells[0].outputs] == [
        ("stream", "stdout", "a\nb\n"), ("stream", "stderr", "w\n"), ("stream", "stdout", "c\n"),
        ("display_data", None, None), ("stream", "stdout", "e\nf\n")]
    assert "outputs" not in nb.cells[1]
