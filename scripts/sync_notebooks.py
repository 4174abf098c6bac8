"""Bring every chapter notebook up to date with its text source, executing only what changed.

Each chapter page has one hand-edited source, ``notebooks/NN-name.md``: a MyST Markdown notebook
(jupytext ``md:myst``). Its ``notebooks/NN-name.ipynb`` is generated from it and executed, so it
carries the stored outputs that nbval compares, that Colab opens and that ``make student`` copies.
It is never edited by hand.

Usage (what ``make sync`` and ``make execute`` run)::

    python scripts/sync_notebooks.py            # regenerate and execute the out-of-date ones
    python scripts/sync_notebooks.py --all      # re-execute every chapter (after a tensorlens change)
    python scripts/sync_notebooks.py --check    # only report; exit 1 if any is out of date
    python scripts/sync_notebooks.py 03-1-storage-and-strides   # just these pages

A notebook is out of date when it is missing or when any cell's type, source or metadata (tags,
figure alt text, ...) differs from its source's. :func:`differences` is the comparison that
``tests/test_sources.py`` runs too.
"""

from __future__ import annotations

import argparse
import hashlib
import pathlib
import sys
import time

import jupytext
import nbformat
from nbclient import NotebookClient

from tensorlens.classroom.kernels import AsyncUnixSocketKernelManager

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SOURCE_FORMAT = "md:myst"
FIX_COMMAND = "make sync"
CELL_TIMEOUT_S = 300
# Metadata that running a notebook writes (timings); it is not part of the source.
_EXECUTION_KEYS = {"execution"}


def sources() -> list[pathlib.Path]:
    """Every chapter's text source, in chapter order."""
    return sorted(NOTEBOOKS.glob("*.md"))


def notebook_path(source: pathlib.Path) -> pathlib.Path:
    return source.with_suffix(".ipynb")


def _cell_id(cell, seen: set) -> str:
    """A stable id from the cell's content, so ids change only where cells do."""
    digest = hashlib.sha1(f"{cell.cell_type}\n{cell.source}".encode()).hexdigest()
    n = 0
    while (candidate := f"{digest[:8]}-{n}" if n else digest[:8]) in seen:
        n += 1
    seen.add(candidate)
    return candidate


def notebook_from_source(source: pathlib.Path):
    """The unexecuted notebook that ``source`` describes."""
    nb = jupytext.read(source, fmt=SOURCE_FORMAT)
    nb.metadata.pop("jupytext", None)
    nb.metadata["language_info"] = {"name": "python"}
    seen: set = set()
    for cell in nb.cells:
        cell.id = _cell_id(cell, seen)
    nbformat.validate(nb)
    return nb


def _source_metadata(cell) -> dict:
    return {k: v for k, v in cell.get("metadata", {}).items() if k not in _EXECUTION_KEYS}


def differences(expected, committed) -> list[str]:
    """How ``committed`` (an executed .ipynb) differs from ``expected`` (built from the source),
    in cell types, sources and metadata; outputs are not compared. Empty when in sync."""
    found = []
    if expected.metadata.get("kernelspec") != committed.metadata.get("kernelspec"):
        found.append("the notebook's kernelspec differs")
    a, b = expected.cells, committed.cells
    if len(a) != len(b):
        found.append(f"the source has {len(a)} cells, the notebook {len(b)}")
    for number, (want, have) in enumerate(zip(a, b), start=1):
        where = f"cell {number} ({want.cell_type}: {want.source.strip()[:50]!r})"
        if want.cell_type != have.cell_type:
            found.append(f"{where}: the notebook has a {have.cell_type} cell here")
        elif want.source != have.source:
            found.append(f"{where}: its text differs")
        elif _source_metadata(want) != _source_metadata(have):
            found.append(f"{where}: its tags or metadata differ: "
                         f"{_source_metadata(have)} in the notebook")
    return found


def out_of_date(source: pathlib.Path) -> list[str]:
    """Why ``source``'s notebook is out of date (empty when it is current)."""
    target = notebook_path(source)
    if not target.exists():
        return [f"{target.name} does not exist"]
    return differences(notebook_from_source(source), nbformat.read(target, as_version=4))


def join_streams(nb) -> None:
    """Join each code cell's consecutive outputs to one stream (stdout, stderr) into one output.

    A kernel sends a cell's printed text in as many messages as its output buffer was flushed,
    which depends on how busy the machine was; joined, a cell stores the same outputs however it
    ran (and the book draws one box for them). nbval joins them too before it compares."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        joined = []
        for output in cell.outputs:
            if (output.output_type == "stream" and joined and joined[-1].output_type == "stream"
                    and joined[-1].name == output.name):
                joined[-1].text += output.text
            else:
                joined.append(output)
        cell.outputs = joined


def execute(source: pathlib.Path) -> float:
    """Generate ``source``'s notebook, execute it in a fresh kernel and write it; the seconds taken.

    Cells tagged ``raises-exception`` may raise; any other error stops with the cell named."""
    nb = notebook_from_source(source)
    start = time.perf_counter()
    NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", record_timing=False,
                   kernel_manager_class=AsyncUnixSocketKernelManager,
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    seconds = time.perf_counter() - start
    join_streams(nb)
    nbformat.write(nb, notebook_path(source))
    return seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*", help="chapter names (e.g. 03-1-storage-and-strides)")
    parser.add_argument("--all", action="store_true", help="re-execute even up-to-date chapters")
    parser.add_argument("--check", action="store_true", help="report only; exit 1 if out of date")
    args = parser.parse_args(argv)

    chosen = sources()
    if args.chapters:
        by_name = {s.stem: s for s in chosen}
        unknown = [name for name in args.chapters if name not in by_name]
        if unknown:
            parser.error(f"no source notebooks/<name>.md for {unknown}; "
                         f"known: {sorted(by_name)}")
        chosen = [by_name[name] for name in args.chapters]

    stale = 0
    for source in chosen:
        reasons = out_of_date(source)
        if args.check:
            if reasons:
                stale += 1
                print(f"{source.stem}: out of date ({reasons[0]}); run `{FIX_COMMAND}`")
            continue
        if not reasons and not args.all:
            print(f"{source.stem}: up to date")
            continue
        why = reasons[0] if reasons else "--all"
        print(f"{source.stem}: executing ({why}) ...", flush=True)
        print(f"{source.stem}: written in {execute(source):.1f} s", flush=True)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
