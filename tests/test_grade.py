"""python -m tensorlens.grade on the sample submissions in tests/submissions.

One end-to-end run (each notebook in its own kernel, so this is the slow test of the suite) and
fast unit tests of the pieces that need no kernel.
"""

import csv
import hashlib
import pathlib
import shutil
import subprocess
import sys

import nbformat
import pytest

from tensorlens import grade
from tensorlens.exercises import RESULTS_ENV

SAMPLES = pathlib.Path(__file__).parent / "submissions"
EXPECTED = {
    "correct": ["pass", "pass", "2/2"],
    "deletes_files": ["pass", "pass", "2/2"],  # its rampage hurts nobody, not even itself
    "never_finishes": ["pass", "timeout", "1/2"],
    "raises": ["error", "error", "0/2"],  # its function raises; a typo leaves the other undefined
    "wrong": ["fail", "fail", "0/2"],  # a copy where a view is required; a stub left in place
}


def _digest(folder):
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("grading")
    subs = root / "submissions"
    shutil.copytree(SAMPLES, subs)
    before = _digest(subs)
    run = subprocess.run([sys.executable, "-m", "tensorlens.grade", str(subs), "--timeout", "45",
                          "--out", str(root / "out")], capture_output=True, text=True, timeout=900)
    return root, run, before, _digest(subs)


def test_grades_of_the_samples(graded):
    root, run, _, _ = graded
    assert run.returncode == 0, run.stderr
    rows = list(csv.reader((root / "out" / "grades.csv").open()))
    assert rows[0] == ["student", "memory_layout.transpose_view", "memory_layout.as_column", "passed"]
    assert {r[0]: r[1:] for r in rows[1:]} == EXPECTED


def test_summary_explains_what_went_wrong(graded):
    summary = (graded[0] / "out" / "summary.md").read_text()
    assert "| never_finishes | pass | timeout | 1/2 |" in summary
    assert "did not finish within 45 s" in summary
    assert "your function raised IndexError: Dimension out of range" in summary
    assert "NameError: name 'as_column' is not defined" in summary
    assert "the result is not a view of `x`" in summary
    assert "not implemented yet" in summary


def test_nothing_outside_the_run_is_damaged(graded):
    root, run, before, after = graded
    assert before == after  # the submissions folder is untouched
    executed = sorted(p.relative_to(root / "out" / "executed").as_posix()
                      for p in (root / "out" / "executed").rglob("*.ipynb"))
    assert executed == [f"{name}/{name}.ipynb" for name in sorted(EXPECTED)]
    ran = nbformat.read(root / "out" / "executed" / "deletes_files" / "deletes_files.ipynb", as_version=4)
    assert any("done" in o.get("text", "") for c in ran.cells for o in c.get("outputs", []))


def test_results_env_names_agree():
    assert grade.RESULTS_ENV == RESULTS_ENV


def test_expected_checks_reads_check_calls():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell('%matplotlib inline\ntl.check("a.b", f)\nprint(1)'),
        nbformat.v4.new_code_cell('check("c.d", g); tl.check("a.b", f)'),
        nbformat.v4.new_code_cell('this is not python ('),
        nbformat.v4.new_markdown_cell('tl.check("not.code", f)'),
    ])
    assert grade.expected_checks(nb) == ["a.b", "c.d"]


def test_find_submissions(tmp_path):
    (tmp_path / "ann.ipynb").write_text("{}")
    (tmp_path / "bob").mkdir()
    (tmp_path / "bob" / "03.ipynb").write_text("{}")
    (tmp_path / "bob" / ".ipynb_checkpoints").mkdir()
    (tmp_path / "bob" / ".ipynb_checkpoints" / "03-checkpoint.ipynb").write_text("{}")
    found = grade.find_submissions(tmp_path)
    assert [(s.student, s.name) for s in found] == [("ann", "ann.ipynb"), ("bob", "03.ipynb")]
    hidden_only = tmp_path / "hidden_only"
    (hidden_only / ".ipynb_checkpoints").mkdir(parents=True)
    (hidden_only / ".ipynb_checkpoints" / "x.ipynb").write_text("{}")
    with pytest.raises(ValueError, match="no notebooks"):
        grade.find_submissions(hidden_only)
    with pytest.raises(ValueError, match="does not exist"):
        grade.find_submissions(tmp_path / "nope")


def test_unreadable_submission_is_graded_not_fatal():
    result = grade.grade_notebook(grade.Submission("eve", "eve.ipynb", b"not json"), timeout=5)
    assert result.run["status"] == "unreadable" and result.grades == {}


def test_cli_rejects_bad_arguments(tmp_path):
    assert grade.main([str(tmp_path / "missing")]) == 2
    with pytest.raises(ValueError, match="timeout"):
        grade.grade(SAMPLES, tmp_path, timeout=0)
