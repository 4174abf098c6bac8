"""Grade submitted notebooks: run each in a fresh kernel, collect every ``check`` verdict.

Usage::

    python -m tensorlens.grade SUBMISSIONS_DIR [--timeout 120] [--out grades] [--jobs 1]

``SUBMISSIONS_DIR`` holds one ``.ipynb`` per student (the student is the file name without
``.ipynb``) or one folder per student (the folder name; every notebook inside counts).

Contract
--------
- Student code never runs in the grader's process. Every submission is read into memory first,
  then runs in its own child process and fresh kernel, in its own new temporary folder that
  holds only a copy of that notebook, with a time limit for the whole notebook. A crash, an
  endless loop or deleted files end only that submission's run; the grader kills what is left
  (the kernel's whole process group) and goes on.
- Every ``tl.check`` in the kernel appends its verdict to a file that only that run knows
  (``TENSORLENS_RESULTS``). An exercise's grade is its last verdict: ``pass``, ``fail`` (wrong or
  still a stub), ``error`` (the function raised, or the check cell never got to run), ``timeout``
  (the notebook ran out of time before that check finished) or ``missing`` (the submission has no
  check cell for it).
- Writes to ``--out``: ``grades.csv`` (one row per student, one column per exercise, then
  ``passed``), ``summary.md`` (the same table plus per-exercise counts and what went wrong in each
  submission) and ``executed/<student>/<notebook>.ipynb`` (the notebooks as they ran).
- The verdicts come from the student's own kernel: they prove the checks passed there, but a
  student who sets out to forge them can. Spot-check the executed notebooks.
"""

from __future__ import annotations

import argparse
import ast
import csv
import io
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import nbformat

__all__ = ["Submission", "find_submissions", "expected_checks", "grade_notebook", "grade", "main",
           "GRADES"]

GRADES = ("pass", "fail", "error", "timeout", "missing")
_STATUS_TO_GRADE = {"pass": "pass", "fail": "fail", "not_implemented": "fail", "error": "error",
                    "unknown": "error", "internal": "error"}
# where tl.check records its verdicts: the same name as tensorlens.exercises.RESULTS_ENV (kept here
# so the grader does not import torch; a test checks they agree)
RESULTS_ENV = "TENSORLENS_RESULTS"
# time the child gets beyond the notebook's own limit: starting Python, torch and the kernel
_STARTUP_S = 60


@dataclass
class Submission:
    """One notebook of one student, read into memory before anything runs."""

    student: str
    name: str  # the notebook's file name
    content: bytes


@dataclass
class NotebookGrade:
    student: str
    name: str
    grades: dict = field(default_factory=dict)  # exercise id -> grade
    messages: dict = field(default_factory=dict)  # exercise id -> checker message
    run: dict = field(default_factory=dict)  # status, message, cell_errors, stopped_at
    executed: bytes | None = None


def find_submissions(folder) -> list[Submission]:
    """Every submission under ``folder``, sorted by student then notebook.

    Raises
    ------
    ValueError
        If ``folder`` is not a directory or holds no notebook.
    """
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        raise ValueError(f"submissions folder {folder} does not exist")
    found = []
    for path in sorted(folder.rglob("*.ipynb")):
        rel = path.relative_to(folder)
        if any(part.startswith(".") for part in rel.parts):  # .ipynb_checkpoints and the like
            continue
        student = path.stem if len(rel.parts) == 1 else rel.parts[0]
        found.append(Submission(student, path.name, path.read_bytes()))
    if not found:
        raise ValueError(f"no notebooks found in {folder}")
    return found


_MAGIC = re.compile(r"^\s*[%!].*$", re.MULTILINE)


def expected_checks(nb) -> list[str]:
    """Exercise ids of the ``check("id", ...)`` calls in a notebook's code cells, in order."""
    ids = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(_MAGIC.sub("", cell.source))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
                    and getattr(node.func, "attr", getattr(node.func, "id", None)) == "check"):
                if node.args[0].value not in ids:
                    ids.append(node.args[0].value)
    return ids


def _kill_group(pid_text: str) -> None:
    try:
        os.killpg(int(pid_text), signal.SIGKILL)
    except (ValueError, ProcessLookupError, PermissionError, OSError):
        pass


def grade_notebook(sub: Submission, timeout: float, kernel: str = "python3") -> NotebookGrade:
    """Run one submission in a child process and fresh kernel, and grade its checks."""
    result = NotebookGrade(sub.student, sub.name)
    try:
        nb = nbformat.reads(sub.content.decode("utf-8"), as_version=4)
    except Exception as err:  # not a notebook: graded as such, never fatal
        result.run = {"status": "unreadable", "message": f"not a readable notebook: {type(err).__name__}",
                      "cell_errors": [], "stopped_at": None}
        return result
    expected = expected_checks(nb)
    # the kernel's folder sits inside a folder of its own, so even `..` holds nothing but it
    root = pathlib.Path(tempfile.mkdtemp(prefix="tl-grade-"))
    workdir = root / "work"
    workdir.mkdir()
    private = pathlib.Path(tempfile.mkdtemp(prefix="tl-grade-report-"))
    try:
        notebook = workdir / "submission.ipynb"
        notebook.write_bytes(sub.content)
        results = private / "results.jsonl"
        env = {**os.environ, RESULTS_ENV: str(results), "MPLBACKEND": "Agg"}
        env.pop("PYTHONWARNINGS", None)
        proc = subprocess.Popen(
            [sys.executable, "-m", "tensorlens._grade_run", str(notebook), str(private), str(timeout), kernel],
            cwd=workdir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            start_new_session=True)
        try:
            _, stderr = proc.communicate(timeout=timeout + _STARTUP_S)
        except subprocess.TimeoutExpired:
            _kill_group(str(proc.pid))
            proc.communicate()
            stderr = b""
            result.run = {"status": "timeout", "message": f"killed after {timeout + _STARTUP_S:g} s",
                          "cell_errors": [], "stopped_at": None}
        pid_file = private / "kernel.pid"
        if pid_file.exists():  # the runner shuts its kernel down; this covers a runner that died
            _kill_group(pid_file.read_text())
        run_file = private / "run.json"
        if run_file.exists():
            result.run = json.loads(run_file.read_text())
        elif not result.run:
            tail = stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no report"]
            result.run = {"status": "crashed", "message": f"the runner failed: {tail[0][:300]}",
                          "cell_errors": [], "stopped_at": None}
        if (private / "executed.ipynb").exists():
            result.executed = (private / "executed.ipynb").read_bytes()
        records = _read_records(results)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(private, ignore_errors=True)
    for exercise_id in expected + [r["exercise"] for r in records if r["exercise"] not in expected]:
        verdicts = [r for r in records if r["exercise"] == exercise_id]
        if verdicts:
            last = verdicts[-1]
            result.grades[exercise_id] = _STATUS_TO_GRADE.get(last["status"], "error")
            result.messages[exercise_id] = last["message"]
        elif result.run.get("status") == "timeout":
            result.grades[exercise_id] = "timeout"
        else:
            result.grades[exercise_id] = "error"
            result.messages[exercise_id] = "the check never ran (an earlier cell failed, or the check cell raised)"
    return result


def _read_records(path: pathlib.Path) -> list[dict]:
    records = []
    if not path.exists():
        return records
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get("exercise"), str) \
                and isinstance(record.get("status"), str):
            records.append({"exercise": record["exercise"], "status": record["status"],
                            "message": str(record.get("message", ""))})
    return records


def _table(students, exercises, grades) -> list[list[str]]:
    rows = [["student", *exercises, "passed"]]
    for student in students:
        row = [grades[student].get(e, "missing") for e in exercises]
        rows.append([student, *row, f"{row.count('pass')}/{len(exercises)}"])
    return rows


def _summary(rows, exercises, graded: list[NotebookGrade], timeout: float) -> str:
    students = [r[0] for r in rows[1:]]
    out = ["# Grades", "",
           f"{len(students)} students, {len(graded)} notebooks, {len(exercises)} exercises; "
           f"time limit {timeout:g} s per notebook.", "",
           "| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    out += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    out += ["", "## Per exercise", "", "| exercise | " + " | ".join(GRADES) + " |",
            "|" + "---|" * (len(GRADES) + 1)]
    for i, exercise_id in enumerate(exercises, start=1):
        column = [r[i] for r in rows[1:]]
        out.append(f"| {exercise_id} | " + " | ".join(str(column.count(g)) for g in GRADES) + " |")
    out += ["", "## Per submission", ""]
    for g in graded:
        run = g.run
        line = f"- **{g.student}** (`{g.name}`): run {run.get('status', '?')}"
        if run.get("message"):
            line += f": {run['message']}"
        if run.get("stopped_at") is not None:
            line += f" (in cell {run['stopped_at']})"
        out.append(line)
        for err in run.get("cell_errors", []):
            out.append(f"  - cell {err['cell']} raised {err['ename']}: {_one_line(err['evalue'])}")
        for exercise_id, grade in g.grades.items():
            if grade != "pass" and g.messages.get(exercise_id):
                out.append(f"  - {exercise_id}: {grade}: {_one_line(g.messages[exercise_id])}")
    return "\n".join(out) + "\n"


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def grade(submissions_dir, out_dir, timeout: float = 120, jobs: int = 1, kernel: str = "python3") -> list[list[str]]:
    """Grade every submission and write the reports; returns the table written to grades.csv.

    Raises
    ------
    ValueError
        If there is nothing to grade, or ``timeout``/``jobs`` is not positive.
    """
    if not timeout > 0:
        raise ValueError(f"timeout must be positive, got {timeout}")
    if not (isinstance(jobs, int) and jobs >= 1):
        raise ValueError(f"jobs must be a positive int, got {jobs}")
    submissions = find_submissions(submissions_dir)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        graded = list(pool.map(lambda s: grade_notebook(s, timeout, kernel), submissions))
    students = sorted({g.student for g in graded})
    exercises, per_student = [], {s: {} for s in students}
    for g in graded:
        for exercise_id, value in g.grades.items():
            if exercise_id not in exercises:
                exercises.append(exercise_id)
            per_student[g.student][exercise_id] = value
    rows = _table(students, exercises, per_student)
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    (out / "grades.csv").write_text(buffer.getvalue(), encoding="utf-8")
    (out / "summary.md").write_text(_summary(rows, exercises, graded, timeout), encoding="utf-8")
    for g in graded:
        if g.executed is not None:
            target = out / "executed" / g.student / g.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(g.executed)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tensorlens.grade",
                                     description="Run submitted notebooks in fresh kernels and grade "
                                                 "their tl.check results.")
    parser.add_argument("submissions", help="folder with one .ipynb (or one folder) per student")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per notebook (default 120)")
    parser.add_argument("--out", default="grades", help="output folder (default ./grades)")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks run at the same time (default 1)")
    parser.add_argument("--kernel", default="python3", help="Jupyter kernel name (default python3)")
    args = parser.parse_args(argv)
    try:
        rows = grade(args.submissions, args.out, args.timeout, args.jobs, args.kernel)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    print(f"wrote {pathlib.Path(args.out) / 'grades.csv'} and {pathlib.Path(args.out) / 'summary.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
