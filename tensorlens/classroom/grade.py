"""Grade submitted notebooks: run each in a fresh kernel, collect every ``check`` verdict.

Usage::

    python -m tensorlens.classroom.grade SUBMISSIONS_DIR [--timeout 120] [--out grades]

``SUBMISSIONS_DIR`` holds one file per student (the student is the file name without its
extension; a file that is not a readable notebook scores 0, with a line saying so) or one folder
per student (the folder name; every notebook inside counts).

This is the zero-setup path for a handful of notebooks on one machine. For a class, use the
chapter's Otter-Grader autograder (``make assignments``): ``otter grade --containers N`` runs each
submission in its own Docker container, several at a time, and Gradescope runs the same zip.
Both write the same CSV columns (:mod:`tensorlens.classroom.results`).

Contract
--------
- Student code never runs in the grader's process. Every submission is read into memory first,
  then runs in its own child process (``tensorlens.classroom._grade_run``) and fresh kernel, in its own new
  temporary folder that holds only a copy of that notebook (its ``TMPDIR`` is in there too), with a
  time limit for the whole notebook. A crash, an endless loop or deleted files end only that
  submission's run.
- After each run the grader kills every process the run started: the runner's and the kernel's
  process groups, then (on Linux) every process whose environment carries the run's random marker
  ``TENSORLENS_GRADE_RUN``, whatever session it moved to, until none is left; the runner, a child
  subreaper, also kills every descendant it still has, even one that cleared its environment.
- Every ``tl.check`` in the kernel appends its verdict to a file with a random name in a folder
  nobody may list; only that run's kernel is told the path (``TENSORLENS_RESULTS``), and the grader
  reads it after the run's processes are dead. The executed notebook and the run's report come
  back through the runner's stdout, which the kernel cannot write to; nothing else is shared.
- An exercise's grade in a notebook is its last verdict: ``pass``, ``fail`` (wrong or still a
  stub), ``error`` (the function raised, or the check cell never got to run), ``timeout`` (the
  notebook ran out of time before that check finished) or ``missing`` (no check cell for it). A
  student's grade is the best over their notebooks (in the order of ``GRADES``).
- When a verdict names the module of the checked function (``fn_module``) and it is not the
  notebook's own (``__main__``), the summary flags it (e.g. tensorlens's own solution).
- Writes to ``--out``: ``grades.csv`` in the format of :mod:`tensorlens.classroom.results` (the columns of
  Otter-Grader's ``final_grades.csv``: ``file`` (the student), one column of points per exercise,
  ``total_points_earned``, ``percent_correct``, ``grading_status``: ``Completed`` plus one
  ``<exercise>: <grade>: <message>`` per exercise not passed), ``summary.md`` (a table of grades,
  per-exercise counts, exercises checked in several notebooks and what went wrong in each
  submission) and ``executed/<student>/<notebook>.ipynb`` (the notebooks as they ran).
- Submissions run one at a time: for parallel grading with real isolation, use Otter's
  containers.
- This isolates submissions from each other's accidents and casual tampering; it is not a
  security sandbox. Code running as the same user can still reach other processes and files of
  that user, and a student who sets out to forge
  their own verdicts can. Run untrusted classes in a container or VM, or as a separate user, and
  spot-check the executed notebooks.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import pathlib
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

import nbformat

from ._processes import kill_until_gone, marked
from .results import POINTS_PER_EXERCISE, Row, write_csv

__all__ = ["Submission", "NotebookGrade", "find_submissions", "expected_checks", "grade_notebook",
           "combine", "kill_run", "grade", "main", "GRADES"]

GRADES = ("pass", "fail", "error", "timeout", "missing")
_STATUS_TO_GRADE = {"pass": "pass", "fail": "fail", "not_implemented": "fail", "error": "error",
                    "unknown": "error", "internal": "error"}
# where tl.check records its verdicts: the same name as tensorlens.exercises.RESULTS_ENV (kept here
# so the grader does not import torch; a test checks they agree)
RESULTS_ENV = "TENSORLENS_RESULTS"
# the marker every process of one run inherits, so the grader can find and kill them all
RUN_ENV = "TENSORLENS_GRADE_RUN"
# time the child gets beyond the notebook's own limit: starting Python, torch and the kernel
_STARTUP_S = 60
# how long to wait for a killed run's last output
_DRAIN_S = 10


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
    foreign: dict = field(default_factory=dict)  # exercise id -> modules of checked functions not
    # defined in the notebook itself (e.g. tensorlens's own solution)
    executed: bytes | None = None


def find_submissions(folder) -> list[Submission]:
    """Every submission under ``folder``, sorted by student then notebook.

    Every file directly in ``folder`` is a submission, notebook or not (one that is not is graded
    as unreadable); inside a student's folder only the notebooks count (other files may be their
    data). Names starting with a dot (``.ipynb_checkpoints``) are skipped.

    Raises
    ------
    ValueError
        If ``folder`` is not a directory or holds no submission.
    """
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        raise ValueError(f"submissions folder {folder} does not exist")
    found = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if not path.is_file() or any(part.startswith(".") for part in rel.parts):
            continue
        if len(rel.parts) == 1:
            found.append(Submission(path.stem, path.name, path.read_bytes()))
        elif path.suffix == ".ipynb":
            found.append(Submission(rel.parts[0], path.name, path.read_bytes()))
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


def _kill_group(pgid) -> None:
    try:
        os.killpg(int(pgid), signal.SIGKILL)
    except (ValueError, OSError, AttributeError):  # gone already, or no process groups here
        pass


def kill_run(token: str) -> bool:
    """SIGKILL every process whose environment carries this run's marker, until none is left.

    Every process a run starts inherits ``TENSORLENS_GRADE_RUN=<token>`` (a process cannot change
    what /proc/PID/environ shows of its initial environment), whichever session or process group
    it moved to. Returns True when none is left.
    """
    needle = f"{RUN_ENV}={token}".encode()
    return kill_until_gone(lambda: marked(needle))


def _parse_runner_output(stdout: bytes) -> tuple[int | None, dict | None]:
    """The kernel's process group and the final JSON object from the runner's stdout."""
    kernel, final = None, None
    for line in stdout.decode("utf-8", "replace").splitlines():
        if line.startswith("kernel ") and kernel is None:
            try:
                kernel = int(line.split()[1])
            except (IndexError, ValueError):
                pass
        elif line.startswith("{"):
            try:
                final = json.loads(line)
            except json.JSONDecodeError:
                pass
    return kernel, final


def grade_notebook(sub: Submission, timeout: float, kernel: str = "python3") -> NotebookGrade:
    """Run one submission in a child process and fresh kernel, and grade its checks."""
    result = NotebookGrade(sub.student, sub.name)
    try:
        nb = nbformat.reads(sub.content.decode("utf-8"), as_version=4)
    except Exception as err:  # not a notebook: graded as such, never fatal
        result.run = {"status": "unreadable",
                      "message": f"not a readable notebook ({type(err).__name__}); nothing was graded",
                      "cell_errors": [], "stopped_at": None}
        return result
    expected = expected_checks(nb)
    token = secrets.token_hex(16)
    # the kernel's folder sits inside a folder of its own, so even `..` holds nothing but it;
    # its TMPDIR is in there too, so files it makes with tempfile are deleted with it
    root = pathlib.Path(tempfile.mkdtemp(prefix="tl-grade-"))
    workdir, tmpdir = root / "work", root / "tmp"
    workdir.mkdir()
    tmpdir.mkdir()
    # the verdicts go to a folder with a random name inside a folder nobody may list: only a
    # process that was told the path (this run's kernel) can find it
    vault = pathlib.Path(tempfile.mkdtemp(prefix="tl-grade-"))
    box = vault / secrets.token_hex(16)
    box.mkdir(mode=0o700)
    results = box / "results.jsonl"
    os.chmod(vault, 0o300)
    stdout = stderr = b""
    proc = None
    try:
        notebook = workdir / "submission.ipynb"
        notebook.write_bytes(sub.content)
        env = {**os.environ, RESULTS_ENV: str(results), RUN_ENV: token, "MPLBACKEND": "Agg",
               "TMPDIR": str(tmpdir), "TEMP": str(tmpdir), "TMP": str(tmpdir)}
        env.pop("PYTHONWARNINGS", None)
        proc = subprocess.Popen(
            [sys.executable, "-m", "tensorlens.classroom._grade_run", str(notebook), str(timeout), kernel],
            cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=timeout + _STARTUP_S)
        except subprocess.TimeoutExpired:
            # kill the whole run first: the kernel (in its own session) still holds the pipes,
            # so waiting for the runner's output alone could wait forever
            _kill_group(proc.pid)
            kill_run(token)
            try:
                stdout, stderr = proc.communicate(timeout=_DRAIN_S)
            except subprocess.TimeoutExpired:  # a process that shed the marker holds the pipes
                proc.kill()
            result.run = {"status": "timeout", "message": f"killed after {timeout + _STARTUP_S:g} s",
                          "cell_errors": [], "stopped_at": None}
    finally:
        # whatever the run left behind: the runner's group, the kernel's group, then every
        # process carrying the run's marker, wherever it went
        kernel_group, final = _parse_runner_output(stdout)
        if proc is not None:
            _kill_group(proc.pid)
        if kernel_group:
            _kill_group(kernel_group)
        clean = kill_run(token)
        # read only now: no process of this run is left to change the file
        records = _read_records(results)
        os.chmod(vault, 0o700)
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(vault, ignore_errors=True)
    if isinstance(final, dict) and isinstance(final.get("report"), dict):
        result.run = final["report"]
        if isinstance(final.get("executed"), str):
            result.executed = final["executed"].encode("utf-8")
    elif not result.run:
        tail = stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no report"]
        result.run = {"status": "crashed", "message": f"the runner failed: {tail[0][:300]}",
                      "cell_errors": [], "stopped_at": None}
    if not clean:
        result.run["message"] = (result.run.get("message") or "") + \
            " (some processes this run started could not be killed)"
    for exercise_id in expected + [r["exercise"] for r in records if r["exercise"] not in expected]:
        verdicts = [r for r in records if r["exercise"] == exercise_id]
        if verdicts:
            last = verdicts[-1]
            result.grades[exercise_id] = _STATUS_TO_GRADE.get(last["status"], "error")
            result.messages[exercise_id] = last["message"]
            foreign = sorted({r["module"] for r in verdicts if r["module"] not in ("", "__main__")})
            if foreign:
                result.foreign[exercise_id] = foreign
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
            module = record.get("fn_module")
            module = module if isinstance(module, str) else ""
            records.append({"exercise": record["exercise"], "status": record["status"],
                            "message": str(record.get("message", "")), "module": module})
    return records


def combine(graded: list[NotebookGrade]):
    """Merge the notebooks of each student: the best grade per student and exercise counts.

    Grades rank as in ``GRADES`` (pass, fail, error, timeout, missing), so a pass in one notebook
    is never undone by another notebook that checks the same exercise.

    Returns
    -------
    students : list of str
    exercises : list of str
        In the order they first appear.
    per_student : dict
        student -> exercise id -> best grade.
    several : dict
        (student, exercise id) -> [(notebook, grade), ...] for exercises checked in more than one
        of the student's notebooks.
    """
    students = sorted({g.student for g in graded})
    exercises, per_student, seen = [], {s: {} for s in students}, {}
    for g in graded:
        for exercise_id, value in g.grades.items():
            if exercise_id not in exercises:
                exercises.append(exercise_id)
            seen.setdefault((g.student, exercise_id), []).append((g.name, value))
            best = per_student[g.student].get(exercise_id)
            if best is None or GRADES.index(value) < GRADES.index(best):
                per_student[g.student][exercise_id] = value
    several = {key: found for key, found in seen.items() if len(found) > 1}
    return students, exercises, per_student, several


def _table(students, exercises, grades) -> list[list[str]]:
    rows = [["student", *exercises, "passed"]]
    for student in students:
        row = [grades[student].get(e, "missing") for e in exercises]
        rows.append([student, *row, f"{row.count('pass')}/{len(exercises)}"])
    return rows


def _summary(rows, exercises, graded: list[NotebookGrade], timeout: float) -> str:
    students = [r[0] for r in rows[1:]]
    several = combine(graded)[3]
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
    if several:
        out += ["", "## Exercises checked in several notebooks", "",
                "The best grade counts (pass, then fail, error, timeout, missing).", ""]
        for (student, exercise_id), found in sorted(several.items()):
            out.append(f"- **{student}**, {exercise_id}: "
                       + ", ".join(f"`{name}` {value}" for name, value in found))
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
            if g.foreign.get(exercise_id):
                out.append(f"  - {exercise_id}: **checked a function not defined in the notebook**, "
                           f"from {', '.join(f'`{m}`' for m in g.foreign[exercise_id])}")
    return "\n".join(out) + "\n"


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _csv_rows(students, exercises, per_student, graded: list[NotebookGrade]) -> list[Row]:
    """The rows of grades.csv (see :mod:`tensorlens.classroom.results`): points, and a line per problem."""
    rows = []
    for student in students:
        mine = [g for g in graded if g.student == student]
        row = Row(student)
        unreadable = [g for g in mine if g.run.get("status") == "unreadable"]
        if len(unreadable) == len(mine):
            row.failure = "; ".join(f"{g.name}: {g.run['message']}" for g in mine)
            rows.append(row)
            continue
        row.problems += [f"{g.name}: {g.run['message']}" for g in unreadable]
        for exercise_id in exercises:
            value = per_student[student].get(exercise_id, "missing")
            row.scores[exercise_id] = POINTS_PER_EXERCISE if value == "pass" else 0
            if value != "pass":
                message = next((g.messages[exercise_id] for g in mine if g.grades.get(exercise_id) == value
                                and g.messages.get(exercise_id)), "")
                message = " ".join(str(message).split())[:200]
                row.problems.append(f"{exercise_id}: {value}" + (f": {message}" if message else ""))
        rows.append(row)
    return rows


def grade(submissions_dir, out_dir, timeout: float = 120, kernel: str = "python3") -> list[list[str]]:
    """Grade every submission, one at a time, and write the reports.

    Returns the table of grades (``pass``, ``fail``, ...) that ``summary.md`` shows;
    ``grades.csv`` holds the same as points, in the format of :mod:`tensorlens.classroom.results`.

    Raises
    ------
    ValueError
        If there is nothing to grade, or ``timeout`` is not positive.
    """
    if isinstance(timeout, bool) or not (isinstance(timeout, (int, float)) and timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    submissions = find_submissions(submissions_dir)
    graded = [grade_notebook(s, timeout, kernel) for s in submissions]
    students, exercises, per_student, _ = combine(graded)
    rows = _table(students, exercises, per_student)
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "grades.csv", {e: POINTS_PER_EXERCISE for e in exercises},
              _csv_rows(students, exercises, per_student, graded))
    (out / "summary.md").write_text(_summary(rows, exercises, graded, timeout), encoding="utf-8")
    for g in graded:
        if g.executed is not None:
            target = out / "executed" / g.student / g.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(g.executed)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tensorlens.classroom.grade",
                                     description="Run submitted notebooks in fresh kernels and grade "
                                                 "their tl.check results.")
    parser.add_argument("submissions", help="folder with one file (or one folder) per student")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per notebook (default 120)")
    parser.add_argument("--out", default="grades", help="output folder (default ./grades)")
    parser.add_argument("--kernel", default="python3", help="Jupyter kernel name (default python3)")
    args = parser.parse_args(argv)
    try:
        rows = grade(args.submissions, args.out, args.timeout, args.kernel)
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
