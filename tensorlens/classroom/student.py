"""Student copies of the chapter notebooks: solutions replaced by stubs, outputs cleared.

Usage (what ``make student`` runs)::

    python -m tensorlens.classroom.student notebooks dist/student

Contract
--------
- A code cell tagged ``solution`` may hold only function definitions (plus imports and comments).
  Each function keeps its decorators, signature and docstring, exactly as written; its body
  becomes ``raise NotImplementedError("write your solution here")``. Anything else in a solution
  cell is an error that names the notebook and the cell, so a solution never leaks.
- Every code cell loses its outputs and execution count; the widget state is dropped.
- All other cells (markdown, check cells, tags, metadata) are kept unchanged.
- The source notebooks are never modified.
"""

from __future__ import annotations

import argparse
import ast
import copy
import pathlib
import sys

import nbformat

__all__ = ["STUB", "stub_source", "make_student_notebook", "make_student_copies", "main"]

STUB = 'raise NotImplementedError("write your solution here")'

_ALLOWED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Import, ast.ImportFrom)


def _docstring_node(fn):
    first = fn.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first
    return None


def _body_end(lines, fn) -> int:
    """Line number where fn's body ends, including comments indented under it (they may hint)."""
    j = fn.end_lineno
    inner = " " * (fn.col_offset + 1)
    while j < len(lines) and (not lines[j].strip()
                              or (lines[j].startswith(inner) and lines[j].lstrip().startswith("#"))):
        j += 1
    while j > fn.end_lineno and not lines[j - 1].strip():
        j -= 1
    return j


def stub_source(source: str) -> str:
    """``source`` with every top-level function body replaced by the stub.

    Raises
    ------
    ValueError
        If the source does not parse or holds something other than functions and imports.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as err:
        raise ValueError(f"solution cell does not parse: {err.msg} (line {err.lineno})") from None
    for node in tree.body:
        if not isinstance(node, _ALLOWED):
            raise ValueError(f"a solution cell may only define functions (and import), but line "
                             f"{node.lineno} holds a {type(node).__name__} statement")
    lines = source.splitlines()
    # replace from the last function up, so earlier line numbers stay valid
    for fn in reversed([n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]):
        doc = _docstring_node(fn)
        body_start = fn.body[0].lineno
        end = _body_end(lines, fn)
        if lines[body_start - 1][:fn.body[0].col_offset].strip():
            # the body starts on the signature's line (`def f(x): return x`): rebuild the header
            bare = copy.copy(fn)
            bare.body, bare.decorator_list = [ast.Pass()], []
            header = ast.unparse(bare).rsplit("\n", 1)[0]  # "def f(x):" or "async def f(x):"
            indent = " " * fn.col_offset
            new = [indent + header, indent + "    " + STUB]
            lines[fn.lineno - 1:end] = new
            continue
        indent = " " * fn.body[0].col_offset
        keep_until = doc.end_lineno if doc is not None else body_start - 1
        lines[keep_until:end] = [indent + STUB]
    text = "\n".join(lines)
    return text + "\n" if source.endswith("\n") else text


def make_student_notebook(nb, name: str = "notebook"):
    """Transform a notebook node in place (see the module contract) and return the stub count."""
    stubbed = 0
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        cell.outputs = []
        cell.execution_count = None
        if "solution" in cell.get("metadata", {}).get("tags", []):
            try:
                cell.source = stub_source(cell.source)
            except ValueError as err:
                raise ValueError(f"{name}, cell {index}: {err}") from None
            stubbed += sum(1 for n in ast.parse(cell.source).body
                           if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    nb.metadata.pop("widgets", None)
    return stubbed


def make_student_copies(src, dest) -> dict[str, int]:
    """Write student copies of the notebooks in ``src`` (a folder or one .ipynb) into ``dest``.

    Returns
    -------
    dict
        Notebook file name -> number of functions stubbed.

    Raises
    ------
    ValueError
        If ``src`` holds no notebook or a solution cell is malformed (nothing is written then).
    """
    src, dest = pathlib.Path(src), pathlib.Path(dest)
    paths = [src] if src.is_file() else sorted(src.glob("*.ipynb"))
    if not paths:
        raise ValueError(f"no notebooks found in {src}")
    converted = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        count = make_student_notebook(nb, path.name)
        nbformat.validate(nb)
        converted.append((path.name, nb, count))
    dest.mkdir(parents=True, exist_ok=True)
    for name, nb, _ in converted:
        nbformat.write(nb, dest / name)
    return {name: count for name, _, count in converted}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tensorlens.classroom.student",
                                     description="Write student copies of the notebooks: "
                                                 "solution cells stubbed, outputs cleared.")
    parser.add_argument("src", help="folder of notebooks (or one .ipynb)")
    parser.add_argument("dest", help="output folder, e.g. dist/student")
    args = parser.parse_args(argv)
    try:
        counts = make_student_copies(args.src, args.dest)
    except (ValueError, OSError, nbformat.ValidationError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for name, count in counts.items():
        print(f"{name}: {count} solution function{'s' if count != 1 else ''} stubbed")
    print(f"wrote {len(counts)} notebooks to {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
