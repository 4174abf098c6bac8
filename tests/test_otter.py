"""Otter-Grader assignments: every chapter builds; sample submissions get exact scores through
``otter run``.

The chapters and exercises come from the notebooks and the registry as they are (nothing listed
here). The slow part grades the samples of one chapter (``tests/otter_samples.py``), one ``otter
run`` each, with short time limits; it records the seconds per submission and the peak memory of
the whole grading process tree in ``_build/otter-run.json``.
"""

import csv
import io
import json
import pathlib
import re
import shutil
import subprocess
import sys
import threading
import time
import zipfile

import nbformat
import psutil
import pytest
import yaml

import tensorlens as tl
from tensorlens.classroom import assignments, otter_plugin
from tensorlens.classroom.assignments import Question, chapter_questions
from tensorlens.exercises import EXERCISES
from tensorlens.classroom.otter_grade import questions_of
from tensorlens.classroom.student import STUB

import otter_samples

# make check runs these end-to-end grading tests only when grading code changed; `make unit`
# runs a module on one worker (--dist loadfile), so the module's fixtures (assignments, otter run) are built once
pytestmark = pytest.mark.grading

ROOT = pathlib.Path(__file__).parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# Gradescope's default autograder memory
GRADESCOPE_MEMORY = 768 * 2**20


def _questions(path):
    return chapter_questions(nbformat.read(path, as_version=4), path.name)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    dest = tmp_path_factory.mktemp("assignments")
    run = subprocess.run([sys.executable, "-m", "tensorlens.classroom.assignments", str(ROOT / "notebooks"),
                          str(dest)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    return dest


def test_every_chapter_with_exercises_gets_an_assignment(built):
    with_exercises = [p for p in NOTEBOOKS if _questions(p)]
    assert with_exercises, "no chapter has exercises"
    assert sorted(d.name for d in built.iterdir()) == sorted(p.stem for p in with_exercises)
    for path in with_exercises:
        out = built / path.stem
        ids = [q.exercise_id for q in _questions(path)]
        assert sorted(p.stem for p in (out / "tests").glob("*.py")) == sorted(ids)
        student = nbformat.read(out / "student" / path.name, as_version=4)
        chapter = nbformat.read(path, as_version=4)
        # prose kept cell for cell; every solution cell stubbed; no outputs
        assert [c.source for c in student.cells if c.cell_type == "markdown"] == \
            [c.source for c in chapter.cells if c.cell_type == "markdown"]
        solutions = [c for c in student.cells if "solution" in c.metadata.get("tags", [])]
        assert solutions and all(STUB in c.source for c in solutions)
        assert all(not c.get("outputs") for c in student.cells if c.cell_type == "code")
        assert questions_of(out / "autograder.zip") == {i: float(assignments.POINTS) for i in ids}


def _pip_lines(zf):
    env = yaml.safe_load(zf.read("environment.yml"))
    pips = [d for d in env["dependencies"] if isinstance(d, dict)]
    assert len(pips) == 1
    return env, pips[0]["pip"]


def test_autograder_zips_are_lean_cpu_only_and_offline(built):
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        name, version = line.split("==")
        pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    for zip_path in sorted(built.glob("*/autograder.zip")):
        with zipfile.ZipFile(zip_path) as zf:
            names = set(zf.namelist())
            wheels = [n for n in names if n.startswith("files/") and n.endswith(".whl")]
            assert len(wheels) == 1, zip_path
            tests = {n for n in names if n.startswith("tests/")}
            assert names == {"run_autograder", "run_otter.py", "setup.sh", "environment.yml",
                             "otter_config.json", *tests, *wheels}, zip_path
            config = json.loads(zf.read("otter_config.json"))
            # no Gradescope token or PDF upload: nothing reaches the network while grading
            assert not {"token", "course_id", "assignment_id"} & set(config)
            assert config["pdf"] is False
            assert config["plugins"] == [{"tensorlens.classroom.otter_plugin.GradingGuard": {
                "time_limit": 300.0, "question_limit": 60.0}}]
            for test in tests:
                source = zf.read(test).decode()
                assert "check_question(env, " in source
                assert not re.search(r"https?://|subprocess|socket|urllib|requests", source)
            env, pip = _pip_lines(zf)
            assert env["dependencies"][0].startswith("python=3.")
            assert pip[0] == "otter-grader[grading,plugins]==7.0.0"
            assert pip[1] == "--extra-index-url https://download.pytorch.org/whl/cpu"
            torches = [p for p in pip if re.match(r"torch\b", p)]
            assert torches == [f"torch=={pins['torch'].split('+')[0]}+cpu"]
            assert not [p for p in pip if re.search(r"nvidia|cuda|cu1\d\d|triton", p, re.I)]
            assert not [p for p in pip if "git+" in p or re.match(r"https?://", p)]
            assert pip[-1] == f"/autograder/source/{wheels[0]}"
            for line in pip[2:-1]:  # everything else pinned as the project pins it
                name, version = line.split("==")
                key = re.sub(r"[-_.]+", "-", name).lower()
                if key != "torch":
                    assert pins.get(key, version) == version, line
            with zipfile.ZipFile(io.BytesIO(zf.read(wheels[0]))) as wheel:
                packaged = {n for n in wheel.namelist() if n.startswith("tensorlens/")}
            shipped = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tensorlens").rglob("*")
                       if p.is_file() and "__pycache__" not in p.parts}
            assert packaged == shipped


def test_requirements_fail_without_a_pin(tmp_path):
    (tmp_path / "requirements.txt").write_text("torch==2.13.0\n")
    with pytest.raises(ValueError, match="has no exact pin"):
        assignments.autograder_requirements("x.whl", tmp_path / "requirements.txt")


def test_bad_chapters_and_arguments_are_refused(tmp_path):
    chapter = NOTEBOOKS[0]
    with pytest.raises(ValueError, match="time_limit"):
        assignments.build_assignment(chapter, tmp_path, time_limit=0)
    with pytest.raises(ValueError, match="question_limit"):
        assignments.build_assignment(chapter, tmp_path, question_limit=-1)
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("def f(x):\n    return x", metadata={"tags": ["solution"]}),
        nbformat.v4.new_code_cell('tl.check("nochapter.gone", f)')])
    with pytest.raises(ValueError, match="x.ipynb: checks exercise 'nochapter.gone'"):
        chapter_questions(nb, "x.ipynb")
    some_id = sorted(EXERCISES)[0]
    nb.cells[1].source = f'tl.check("{some_id}", g)'
    with pytest.raises(ValueError, match="uses `g`, which no cell tagged 'solution' defines"):
        chapter_questions(nb, "x.ipynb")
    nb.cells[1].source = f'tl.check("{some_id}", f)'
    assert chapter_questions(nb, "x.ipynb") == [Question(some_id, "f")]
    # a worked example checks a wrong attempt defined in its own cell: not a question
    nb.cells.insert(1, nbformat.v4.new_code_cell(
        f'def attempt(x):\n    return x + 1\n\ntl.check("{some_id}", attempt)'))
    assert chapter_questions(nb, "x.ipynb") == [Question(some_id, "f")]
    with pytest.raises(ValueError, match="no notebooks"):
        assignments.build_assignments(tmp_path, tmp_path / "out")


def test_a_failing_question_shows_the_books_message():
    path, questions = otter_samples.pick_chapter()
    view = next(q for q in questions if otter_samples._needs_view(q.exercise_id))
    solution = EXERCISES[view.exercise_id].solution

    def copied(*args):  # a copy where a view is required
        return solution(*args).clone()

    env = {view.function: copied}
    with pytest.raises(AssertionError) as caught:
        otter_plugin.check_question(env, view.exercise_id, view.function)
    assert str(caught.value) == repr(tl.check(view.exercise_id, copied))
    assert "is not a view" in str(caught.value)
    with pytest.raises(AssertionError, match=f"defines no function `{view.function}`"):
        otter_plugin.check_question({}, view.exercise_id, view.function)
    with pytest.raises(AssertionError, match="there is no exercise 'nochapter.gone'"):
        otter_plugin.check_question(env, "nochapter.gone", view.function)
    with pytest.raises(TypeError, match="env"):
        otter_plugin.check_question([], view.exercise_id, view.function)


# ---------------------------------------------------------------- through otter run


class _PeakMemory:
    """Polls the summed RSS of a process and all its descendants."""

    def __init__(self, pid):
        self.root, self.peak, self._stop = psutil.Process(pid), 0, threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _poll(self):
        while not self._stop.is_set():
            total = 0
            try:
                for proc in [self.root, *self.root.children(recursive=True)]:
                    try:
                        total += proc.memory_info().rss
                    except psutil.Error:
                        pass
            except psutil.Error:
                return
            self.peak = max(self.peak, total)
            time.sleep(0.1)

    def stop(self):
        self._stop.set()
        self._thread.join()


def _start_grading(submissions, autograder, out):
    proc = subprocess.Popen([sys.executable, "-m", "tensorlens.classroom.otter_grade", str(submissions),
                             "-a", str(autograder), "--out", str(out), "--timeout", "300"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, _PeakMemory(proc.pid), out


def _finish_grading(proc, memory, out):
    stdout, stderr = proc.communicate(timeout=1200)
    memory.stop()
    assert proc.returncode == 0, stderr
    rows = list(csv.DictReader((out / "grades.csv").open()))
    seconds = {m[0]: float(m[1]) for m in re.findall(r"^(\S+): \S+ \(([\d.]+) s\)$", stdout, re.M)}
    return {r["file"]: r for r in rows}, seconds, memory.peak


@pytest.fixture(scope="module")
def otter_graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("otter")
    path, questions = otter_samples.pick_chapter()
    chapter = otter_samples.Chapter(path, questions)
    # limits short enough to keep the test quick, long enough for a busy machine: the notebook
    # limit covers the setup cell (imports), the question limit the slowest correct check
    built = assignments.build_assignment(path, root / "assignment", time_limit=12, question_limit=8)
    expected = otter_samples.make_samples(chapter, root / "submissions")
    # an autograder built before an exercise was removed: its test names an id that is gone
    stale = root / "stale.zip"
    shutil.copyfile(built["autograder"], stale)
    gone = Question(f"{questions[0].exercise_id.split('.')[0]}.no_longer_here", "no_longer_here")
    with zipfile.ZipFile(stale, "a") as zf:
        zf.writestr(f"tests/{gone.exercise_id}.py", assignments.test_file(gone))
    renamed, old_name = otter_samples.make_renamed(chapter, root / "renamed")
    # the endless one on its own (it spends its time limits waiting), so that three gradings run
    # side by side, each about as long (an otter run waits on its kernel much of the time)
    (root / "endless").mkdir()
    (root / "submissions" / "loops_forever.ipynb").rename(root / "endless" / "loops_forever.ipynb")
    main = _start_grading(root / "submissions", built["autograder"], root / "grades")
    endless = _start_grading(root / "endless", built["autograder"], root / "endless-grades")
    side = _start_grading(root / "renamed", stale, root / "stale-grades")
    rows, seconds, peak = _finish_grading(*main)
    endless_rows, endless_seconds, endless_peak = _finish_grading(*endless)
    rows, seconds, peak = {**rows, **endless_rows}, {**seconds, **endless_seconds}, max(peak, endless_peak)
    stale_rows, stale_seconds, stale_peak = _finish_grading(*side)
    record = {"chapter": path.stem, "seconds_per_submission": {**seconds, **stale_seconds},
              "peak_memory_mib": round(max(peak, stale_peak) / 2**20, 1)}
    (ROOT / "_build").mkdir(exist_ok=True)
    (ROOT / "_build" / "otter-run.json").write_text(json.dumps(record, indent=2) + "\n")
    return dict(questions=questions, expected=expected, rows=rows, seconds=seconds, peak=peak,
                stale_rows=stale_rows, renamed=renamed, old_name=old_name, gone=gone,
                stale_seconds=stale_seconds, stale_peak=stale_peak)


def test_sample_scores_through_otter_run(otter_graded):
    rows, expected = otter_graded["rows"], otter_graded["expected"]
    n = len(otter_graded["questions"])
    assert set(rows) == {"points-per-question", *expected}
    assert rows["points-per-question"]["total_points_earned"] == f"{float(n)}"
    for name, score in expected.items():
        assert float(rows[name]["total_points_earned"]) == score, (name, rows[name])
        assert float(rows[name]["percent_correct"]) == round(score / n, 4)
    assert rows["correct.ipynb"]["grading_status"] == "Completed"


def test_each_failure_is_explained(otter_graded):
    rows = otter_graded["rows"]
    status = {name: row["grading_status"] for name, row in rows.items()}
    for phrase in ("is not a view of", "has the wrong shape", "has the wrong dtype"):
        assert phrase in status["looks_right.ipynb"]
    assert "your function raised ValueError: a bug in my function" in status["raises.ipynb"]
    last = otter_graded["questions"][-1].exercise_id
    assert f"the check of {last} ran past its time limit of 8 s" in status["loops_forever.ipynb"]
    assert "not a readable notebook" in status["not_a_notebook.ipynb"]
    assert all(float(v) == 0 for k, v in rows["not_a_notebook.ipynb"].items()
               if k not in ("file", "grading_status"))
    # the vandal overwrote the tests with ones that always pass: its stubs still score 0
    n = len(otter_graded["questions"])
    assert status["partly_wrong_vandal.ipynb"].count("not implemented yet") == n // 2


def test_renamed_function_and_removed_exercise(otter_graded):
    row = otter_graded["stale_rows"][otter_graded["renamed"]]
    n = len(otter_graded["questions"])
    first, gone = otter_graded["questions"][0].exercise_id, otter_graded["gone"].exercise_id
    assert float(row["total_points_earned"]) == n - 1
    assert float(row[first]) == 0 and float(row[gone]) == 0
    assert f"{first}: the notebook defines no function `{otter_graded['old_name']}`" \
        in row["grading_status"]
    assert f"{gone}: unknown exercise: there is no exercise '{gone}'" in row["grading_status"]


def test_time_and_memory_per_submission(otter_graded):
    seconds = {**otter_graded["seconds"], **otter_graded["stale_seconds"]}
    assert set(seconds) == set(otter_graded["expected"]) | {otter_graded["renamed"]}
    # generous bounds for a shared 2-core machine; the measured values are in _build/otter-run.json
    assert all(s < 150 for s in seconds.values()), seconds
    assert max(otter_graded["peak"], otter_graded["stale_peak"]) < GRADESCOPE_MEMORY


# ---------------------------------------------------------------- the shared results format


def test_results_table_has_otters_columns_and_explains_each_row():
    from tensorlens.classroom.results import Row, table

    rows = table({"b.y": 1, "a.x": 2}, [
        Row("zed.ipynb", {"a.x": 2, "b.y": 0}, ["b.y: fail: wrong values"]),
        Row("amy.ipynb", {"a.x": 2, "b.y": 1}),
        Row("bad.pdf", failure="not a readable notebook"),
    ])
    assert rows == [
        ["file", "a.x", "b.y", "total_points_earned", "percent_correct", "grading_status"],
        ["points-per-question", "2.0", "1.0", "3.0", "1", "--"],
        ["amy.ipynb", "2.0", "1.0", "3.0", "1.0", "Completed"],
        ["bad.pdf", "0.0", "0.0", "0.0", "0.0", "not a readable notebook"],
        ["zed.ipynb", "2.0", "0.0", "2.0", "0.6667", "Completed; b.y: fail: wrong values"],
    ]
    with pytest.raises(ValueError, match="rows: x scores questions not in possible"):
        table({"a.x": 1}, [Row("x", {"c.z": 1})])


def test_otter_grade_refuses_bad_arguments(tmp_path):
    from tensorlens.classroom import otter_grade

    (tmp_path / "subs").mkdir()
    (tmp_path / "not.zip").write_text("no")
    with pytest.raises(ValueError, match="autograder: .* is not a zip file"):
        otter_grade.questions_of(tmp_path / "not.zip")
    with pytest.raises(ValueError, match="submissions: no files"):
        otter_grade.grade(tmp_path / "subs", tmp_path / "not.zip", tmp_path / "out")
    with pytest.raises(ValueError, match="submissions: .* is not a folder"):
        otter_grade.grade(tmp_path / "nope", tmp_path / "not.zip", tmp_path / "out")
    with pytest.raises(ValueError, match="timeout"):
        otter_grade.grade(tmp_path / "subs", tmp_path / "not.zip", tmp_path / "out", timeout=0)
    assert otter_grade.main([str(tmp_path / "nope"), "-a", str(tmp_path / "not.zip")]) == 2


def test_the_otter_commands_in_teachers_md_exist():
    from otter.cli import cli

    text = (ROOT / "book" / "teachers.md").read_text()
    commands = re.findall(r"^(otter (grade|run) .*)$", text, re.M)
    assert {c[1] for c in commands} == {"grade", "run"}
    for line, sub in commands:
        known = {o for p in cli.commands[sub].params for o in getattr(p, "opts", [])}
        for option in re.findall(r"(?<=\s)(--?[a-z][a-z-]*)", line):
            assert option in known, (line, option)
