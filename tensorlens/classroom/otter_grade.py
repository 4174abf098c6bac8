"""Grade a folder of submissions with a chapter's autograder zip through ``otter run`` (no Docker).

Usage::

    python -m tensorlens.classroom.otter_grade SUBMISSIONS -a dist/assignments/03-6-exercises/autograder.zip \
        [--out grades] [--timeout 900]

The laptop path for one chapter's autograder: each submission goes through ``otter run`` (Otter's
non-containerised grader: the same autograder, tests and plugin as on Gradescope or in ``otter
grade``'s containers) in its own process and temporary folder, one after the other. For a class,
``otter grade -p SUBMISSIONS -a autograder.zip --containers N`` runs the same in Docker.

Contract
--------
- Every file directly in ``SUBMISSIONS`` is one submission (the student is the file name without
  its extension); names starting with a dot are skipped. A file that is not a readable notebook is
  reported as such (every question 0) without running anything; an ``otter run`` that fails or
  takes longer than ``--timeout`` seconds costs that submission only: the run goes on.
- Questions and their points are read from the zip's ``tests/`` (nothing is listed by hand); a
  question that a run did not report scores 0.
- Writes ``grades.csv`` in the format of :mod:`tensorlens.classroom.results` (the columns of Otter's
  ``final_grades.csv``, the same as ``python -m tensorlens.classroom.grade`` writes) and ``summary.md``: per
  submission the seconds it took and, for each question not passed, the checker's message as the
  student saw it.
- Runs student code with the rights of the account that runs it, like ``otter run`` itself: it is
  not a sandbox (see the teachers' page).
"""

from __future__ import annotations

import argparse
import ast
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field

import nbformat

from .results import Row, write_csv

__all__ = ["questions_of", "grade_submission", "grade", "main", "Graded"]


@dataclass
class Graded:
    row: Row
    seconds: float
    outputs: dict = field(default_factory=dict)  # question -> Otter's output for it


def questions_of(autograder) -> dict[str, float]:
    """Question name -> points, read (not run) from the ``tests/*.py`` files of an autograder zip.

    Raises
    ------
    ValueError
        If ``autograder`` is not a zip with at least one test file that names its question.
    """
    path = pathlib.Path(autograder)
    if not zipfile.is_zipfile(path):
        raise ValueError(f"autograder: {path} is not a zip file")
    found = {}
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            if not (info.filename.startswith("tests/") and info.filename.endswith(".py")):
                continue
            values = {}
            for node in ast.parse(zf.read(info).decode("utf-8")).body:
                if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                        and isinstance(node.targets[0], ast.Name):
                    try:
                        values[node.targets[0].id] = ast.literal_eval(node.value)
                    except ValueError:
                        pass
            if not isinstance(values.get("name"), str):
                raise ValueError(f"autograder: {info.filename} does not name its question")
            found[values["name"]] = float(values.get("points") or 0)
    if not found:
        raise ValueError(f"autograder: {path} holds no tests/*.py")
    return found


def _reason(output: str) -> str:
    """One line from Otter's output for a failed question: the checker's verdict, shortened."""
    marker = "AssertionError: "
    if marker in output:
        lines = output.split(marker, 1)[1].splitlines()
        head = lines[0].split(": ", 1)[-1] if lines else ""
        if len(lines) > 1 and lines[1].startswith("  "):
            detail = lines[1].strip()
            return detail if detail.startswith(head) else f"{head}: {detail}"
        return head
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def grade_submission(path, autograder, possible: dict, timeout: float = 900) -> Graded:
    """Grade one file with ``otter run``; never raises for a bad submission."""
    path = pathlib.Path(path)
    row = Row(path.name)
    start = time.monotonic()
    try:
        nbformat.reads(path.read_bytes().decode("utf-8"), as_version=4)
    except Exception as err:
        row.failure = f"not a readable notebook ({type(err).__name__}); nothing was graded"
        return Graded(row, time.monotonic() - start)
    work = pathlib.Path(tempfile.mkdtemp(prefix="tl-otter-"))
    outputs = {}
    try:
        (work / "in").mkdir()
        (work / "out").mkdir()
        notebook = work / "in" / (path.stem + ".ipynb")
        shutil.copyfile(path, notebook)
        try:
            run = subprocess.run(
                [sys.executable, "-m", "otter", "run", "-a", str(pathlib.Path(autograder).resolve()),
                 "-o", str(work / "out"), "--no-logo", str(notebook)],
                cwd=work / "in", capture_output=True, text=True, timeout=timeout,
                stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            row.failure = f"otter run did not finish within {timeout:g} s; nothing was graded"
            return Graded(row, time.monotonic() - start)
        results = work / "out" / "results.json"
        if not results.exists():
            tail = (run.stderr.strip().splitlines() or ["no output"])[-1]
            row.failure = f"otter run failed (exit {run.returncode}): {tail[:300]}"
            return Graded(row, time.monotonic() - start)
        for test in json.loads(results.read_text(encoding="utf-8")).get("tests", []):
            name = test.get("name")
            if name not in possible or "score" not in test:
                continue
            row.scores[name] = float(test["score"])
            outputs[name] = str(test.get("output", ""))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for name in sorted(possible):
        if row.scores.get(name, 0.0) < possible[name]:
            reason = _reason(outputs[name]) if name in outputs else "not reported by otter run"
            row.problems.append(f"{name}: {reason}")
    return Graded(row, time.monotonic() - start, outputs)


def _summary(graded: list[Graded], possible: dict) -> str:
    out = ["# Grades (otter run)", "", f"{len(graded)} submissions, {len(possible)} questions, "
           f"{sum(possible.values()):g} points.", ""]
    for g in sorted(graded, key=lambda g: g.row.file):
        total = 0 if g.row.failure else sum(g.row.scores.values())
        out.append(f"## {g.row.file}: {total:g}/{sum(possible.values()):g} ({g.seconds:.1f} s)")
        out.append("")
        if g.row.failure:
            out += [g.row.failure, ""]
            continue
        for name in sorted(possible):
            if g.row.scores.get(name, 0.0) < possible[name]:
                out += [f"### {name}", "", "```text", g.outputs.get(name, "not reported").strip(),
                        "```", ""]
    return "\n".join(out) + "\n"


def grade(submissions, autograder, out_dir, timeout: float = 900) -> list[Graded]:
    """Grade every submission in ``submissions`` and write ``grades.csv`` and ``summary.md``.

    Raises
    ------
    ValueError
        If ``submissions`` is not a folder or holds no file, ``autograder`` is not an autograder
        zip, or ``timeout`` is not positive.
    """
    if not (isinstance(timeout, (int, float)) and timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    folder = pathlib.Path(submissions)
    if not folder.is_dir():
        raise ValueError(f"submissions: {folder} is not a folder")
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise ValueError(f"submissions: no files in {folder}")
    possible = questions_of(autograder)
    graded = [grade_submission(p, autograder, possible, timeout) for p in files]
    out = pathlib.Path(out_dir)
    write_csv(out / "grades.csv", possible, [g.row for g in graded])
    (out / "summary.md").write_text(_summary(graded, possible), encoding="utf-8")
    return graded


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tensorlens.classroom.otter_grade",
                                     description="Grade submissions with an autograder zip "
                                                 "through otter run (no Docker).")
    parser.add_argument("submissions", help="folder with one file per student")
    parser.add_argument("-a", "--autograder", required=True, help="the chapter's autograder.zip")
    parser.add_argument("--out", default="grades", help="output folder (default ./grades)")
    parser.add_argument("--timeout", type=float, default=900,
                        help="seconds one otter run may take (default 900)")
    args = parser.parse_args(argv)
    try:
        graded = grade(args.submissions, args.autograder, args.out, args.timeout)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for g in graded:
        total = "-" if g.row.failure else f"{sum(g.row.scores.values()):g}"
        print(f"{g.row.file}: {total} ({g.seconds:.1f} s)")
    print(f"wrote {pathlib.Path(args.out) / 'grades.csv'} and {pathlib.Path(args.out) / 'summary.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
