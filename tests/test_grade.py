"""python -m tensorlens.classroom.grade on the sample submissions in tests/submissions.

One end-to-end run (each notebook in its own kernel, so this is the slow test of the suite) and
fast unit tests of the pieces that need no kernel.
"""

import csv
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

import nbformat
import pytest

from tensorlens.classroom import grade
from tensorlens.exercises import RESULTS_ENV

# make check runs these end-to-end grading tests only when grading code changed; `make unit`
# runs a module on one worker (--dist loadfile), so the module's grading run happens once
pytestmark = pytest.mark.grading

SAMPLES = pathlib.Path(__file__).parent / "submissions"
EXPECTED = {
    # graded first; its detached processes try to overwrite every other run's verdicts
    "attacks_others": ["pass", "pass", "2/2"],
    "correct": ["pass", "pass", "2/2"],
    "deletes_files": ["pass", "pass", "2/2"],  # its rampage hurts nobody, not even itself
    "never_finishes": ["pass", "timeout", "1/2"],
    "raises": ["error", "error", "0/2"],  # its function raises; a typo leaves the other undefined
    "wrong": ["fail", "fail", "0/2"],  # a copy where a view is required; a stub left in place
}
NOT_A_NOTEBOOK = "not_a_notebook"  # a text file handed in instead of a notebook
# set on the grading run of the `graded` fixture, so its processes are told from any other run's
# (other tests, on another worker, start runs of their own)
FIXTURE_TAG = "TENSORLENS_TEST_GRADED_FIXTURE"


def _digest(folder):
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("grading")
    tag = os.urandom(8).hex()
    subs = root / "submissions"
    shutil.copytree(SAMPLES, subs)
    before = _digest(subs)
    run = subprocess.run([sys.executable, "-m", "tensorlens.classroom.grade", str(subs), "--timeout", "20",
                          "--out", str(root / "out")], capture_output=True, text=True, timeout=900,
                         env={**os.environ, FIXTURE_TAG: tag})
    return root, run, before, _digest(subs), tag


def test_grades_of_the_samples(graded):
    root, run, *_ = graded
    assert run.returncode == 0, run.stderr
    summary = (root / "out" / "summary.md").read_text()
    assert "| student | memory_layout.transpose_view | memory_layout.as_column | passed |" in summary
    for student, grades in EXPECTED.items():
        assert f"| {student} | {' | '.join(grades)} |" in summary
    assert f"| {NOT_A_NOTEBOOK} |  |  | 0/2 |" not in summary


def test_grades_csv_has_otters_columns(graded):
    root, *_ = graded
    rows = list(csv.DictReader((root / "out" / "grades.csv").open()))
    # the columns of Otter-Grader's final_grades.csv (tensorlens.classroom.results), exercises sorted
    assert list(rows[0]) == ["file", "memory_layout.as_column", "memory_layout.transpose_view",
                             "total_points_earned", "percent_correct", "grading_status"]
    by_file = {r["file"]: r for r in rows}
    assert by_file.pop("points-per-question")["total_points_earned"] == "2.0"
    assert set(by_file) == set(EXPECTED) | {NOT_A_NOTEBOOK}
    for student, (transpose, column, passed) in EXPECTED.items():
        row = by_file[student]
        assert float(row["memory_layout.transpose_view"]) == (transpose == "pass")
        assert float(row["memory_layout.as_column"]) == (column == "pass")
        assert float(row["total_points_earned"]) == int(passed.split("/")[0])
    assert by_file["correct"]["grading_status"] == "Completed"
    assert "memory_layout.as_column: timeout" in by_file["never_finishes"]["grading_status"]
    assert ("memory_layout.transpose_view: fail: the result is not a view of `x`"
            in by_file["wrong"]["grading_status"])
    bad = by_file[NOT_A_NOTEBOOK]
    assert bad["total_points_earned"] == "0.0"
    assert bad["grading_status"] == ("not_a_notebook.txt: not a readable notebook (NotJSONError); "
                                     "nothing was graded")


def test_summary_explains_what_went_wrong(graded):
    summary = (graded[0] / "out" / "summary.md").read_text()
    assert "| never_finishes | pass | timeout | 1/2 |" in summary
    assert "did not finish within 20 s" in summary
    assert "your function raised IndexError: Dimension out of range" in summary
    assert "NameError: name 'as_column' is not defined" in summary
    assert "the result is not a view of `x`" in summary
    assert "not implemented yet" in summary


def test_nothing_outside_the_run_is_damaged(graded):
    root, run, before, after, _ = graded
    assert before == after  # the submissions folder is untouched
    executed = sorted(p.relative_to(root / "out" / "executed").as_posix()
                      for p in (root / "out" / "executed").rglob("*.ipynb"))
    assert executed == [f"{name}/{name}.ipynb" for name in sorted(EXPECTED)]  # not the .txt
    ran = nbformat.read(root / "out" / "executed" / "deletes_files" / "deletes_files.ipynb", as_version=4)
    assert any("done" in o.get("text", "") for c in ran.cells for o in c.get("outputs", []))


def _marked_processes(name, tag=None):
    """The processes whose environment sets ``name`` (and ``FIXTURE_TAG`` to ``tag``, if given)."""
    found = []
    for environ in pathlib.Path("/proc").glob("[0-9]*/environ"):
        try:
            entries = environ.read_bytes().split(b"\0")
        except OSError:
            continue
        if any(e.startswith(name.encode() + b"=") for e in entries) and (
                tag is None or f"{FIXTURE_TAG}={tag}".encode() in entries):
            found.append(int(environ.parent.name))
    return found


@pytest.mark.skipif(not pathlib.Path("/proc/self/environ").exists(), reason="needs /proc")
def test_detached_processes_die_with_their_run(graded):
    root, run, *_ = graded
    ran = nbformat.read(root / "out" / "executed" / "attacks_others" / "attacks_others.ipynb",
                        as_version=4)
    text = "".join(o.get("text", "") for c in ran.cells for o in c.get("outputs", []))
    pids = [int(p) for p in re.search(r"daemons (\d+) (\d+)", text).groups()]
    for pid in pids:  # gone, or at most a zombie with no environment left
        stat = pathlib.Path(f"/proc/{pid}/stat")
        assert not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"
    # none of the fixture's run is left (any other run's processes are another test's business)
    assert _marked_processes(grade.RUN_ENV, graded[4]) == []
    # a file it wrote with tempfile went into the run's own folder, deleted with it
    escaped = re.search(r"escaped (\S+)", text).group(1)
    assert not pathlib.Path(escaped).exists()
    assert pathlib.Path(escaped).parent != pathlib.Path(tempfile.gettempdir())


@pytest.mark.skipif(not pathlib.Path("/proc/self/environ").exists(), reason="needs /proc")
def test_kill_run_finds_detached_processes_by_their_marker():
    token = "test-" + os.urandom(8).hex()
    env = {**os.environ, grade.RUN_ENV: token}
    # a shell that starts a detached sleeper in a new session and exits: the sleeper is orphaned
    starter = subprocess.run(
        [sys.executable, "-c", "import subprocess; p = subprocess.Popen(['sleep', '300'], start_new_session=True, "
         "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print(p.pid)"], env=env, capture_output=True, text=True, check=True)
    pid = int(starter.stdout)
    assert os.path.exists(f"/proc/{pid}")
    assert grade.kill_run(token)
    time.sleep(0.1)
    stat = pathlib.Path(f"/proc/{pid}/stat")
    assert not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"
    assert grade.kill_run(token)  # nothing left: returns at once


def _nb_grade(student, name, grades, foreign=None):
    return grade.NotebookGrade(student, name, grades=grades, foreign=foreign or {},
                               run={"status": "ok", "message": "", "cell_errors": [], "stopped_at": None})


def test_best_grade_per_student_and_exercise():
    graded = [
        _nb_grade("ana", "03.ipynb", {"a.x": "pass", "a.y": "error"}),
        _nb_grade("ana", "04.ipynb", {"a.x": "fail", "a.y": "timeout", "a.z": "fail"}),
        _nb_grade("ana", "05.ipynb", {"a.y": "fail"}),
        _nb_grade("ben", "ben.ipynb", {"a.x": "error"}),
    ]
    students, exercises, per_student, several = grade.combine(graded)
    assert students == ["ana", "ben"] and exercises == ["a.x", "a.y", "a.z"]
    assert per_student == {"ana": {"a.x": "pass", "a.y": "fail", "a.z": "fail"}, "ben": {"a.x": "error"}}
    assert several == {("ana", "a.x"): [("03.ipynb", "pass"), ("04.ipynb", "fail")],
                       ("ana", "a.y"): [("03.ipynb", "error"), ("04.ipynb", "timeout"), ("05.ipynb", "fail")]}
    # the order of the notebooks does not matter
    assert grade.combine(graded[::-1])[2] == per_student
    rows = grade._table(students, exercises, per_student)
    assert rows[1] == ["ana", "pass", "fail", "fail", "1/3"]
    assert rows[2] == ["ben", "error", "missing", "missing", "0/3"]
    summary = grade._summary(rows, exercises, graded, 60)
    assert "## Exercises checked in several notebooks" in summary
    assert "- **ana**, a.x: `03.ipynb` pass, `04.ipynb` fail" in summary


def test_functions_from_other_modules_are_flagged(tmp_path):
    results = tmp_path / "results.jsonl"
    results.write_text(
        '{"exercise": "a.x", "status": "pass", "message": "passed", "fn_module": "tensorlens.exercises.a"}\n'
        '{"exercise": "a.y", "status": "pass", "message": "passed", "fn_module": "__main__"}\n'
        'not json\n{"exercise": 3}\n')
    records = grade._read_records(results)
    assert [(r["exercise"], r["module"]) for r in records] == [
        ("a.x", "tensorlens.exercises.a"), ("a.y", "__main__")]
    graded = [_nb_grade("eve", "eve.ipynb", {"a.x": "pass", "a.y": "pass"},
                        foreign={"a.x": ["tensorlens.exercises.a"]})]
    students, exercises, per_student, _ = grade.combine(graded)
    summary = grade._summary(grade._table(students, exercises, per_student), exercises, graded, 60)
    assert ("a.x: **checked a function not defined in the notebook**, from "
            "`tensorlens.exercises.a`") in summary
    assert "a.y: **checked" not in summary


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
    (tmp_path / "cid.pdf").write_text("not a notebook")  # a student's file: graded as unreadable
    (tmp_path / "bob").mkdir()
    (tmp_path / "bob" / "03.ipynb").write_text("{}")
    (tmp_path / "bob" / "data.csv").write_text("1,2")  # a student's data, beside their notebook
    (tmp_path / "bob" / ".ipynb_checkpoints").mkdir()
    (tmp_path / "bob" / ".ipynb_checkpoints" / "03-checkpoint.ipynb").write_text("{}")
    found = grade.find_submissions(tmp_path)
    assert [(s.student, s.name) for s in found] == [("ann", "ann.ipynb"), ("bob", "03.ipynb"),
                                                     ("cid", "cid.pdf")]
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


def test_an_exercise_that_no_longer_exists_scores_zero_with_a_clear_line(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import tensorlens as tl\n"
        "def transpose_view(x):\n    return x.T\n"
        'tl.check("memory_layout.transpose_view", transpose_view)\n'
        'tl.check("memory_layout.no_longer_here", transpose_view)')])
    (tmp_path / "subs").mkdir()
    nbformat.write(nb, tmp_path / "subs" / "old.ipynb")
    grade.grade(tmp_path / "subs", tmp_path / "out", timeout=60)
    row = next(r for r in csv.DictReader((tmp_path / "out" / "grades.csv").open()) if r["file"] == "old")
    assert float(row["memory_layout.transpose_view"]) == 1
    assert float(row["memory_layout.no_longer_here"]) == 0 and row["total_points_earned"] == "1.0"
    assert ("memory_layout.no_longer_here: error: there is no exercise "
            "'memory_layout.no_longer_here'") in row["grading_status"]
