"""Otter-Grader assignments from the chapters: student notebooks, tests and Gradescope autograders.

Usage (what ``make assignments`` runs)::

    python -m tensorlens.classroom.assignments notebooks dist/assignments [--time-limit 300]

Contract
--------
- The exercises of a chapter are read from the chapter itself: every ``check("<id>", <name>)``
  call in its code cells, in order, where ``<name>`` is a function defined in a cell tagged
  ``solution``. A check of a function defined in its own cell is a worked example (a wrong
  attempt and its failing report), not a question. Nothing lists exercises or chapters by hand.
  A check of an id that
  ``tensorlens.exercises.EXERCISES`` does not hold, or of a function no solution cell defines, is
  a ``ValueError`` naming the chapter (nothing is written for it then).
- For every chapter notebook ``NN-name.ipynb`` with at least one exercise, writes
  ``<dest>/NN-name/``:

  - ``student/NN-name.ipynb``: the student copy (``tensorlens.classroom.student``: solutions stubbed, prose
    and check cells kept, outputs cleared);
  - ``tests/<id>.py``: one Otter test file (exception format) per exercise, one question worth
    :data:`POINTS` points, calling :func:`tensorlens.classroom.otter_plugin.check_question`, i.e. the book's
    own strict checker; ``otter grade`` and ``otter run`` read them;
  - ``requirements.txt``: the grading environment, lean and CPU-only: torch ``+cpu`` from
    PyTorch's CPU index and every other package tensorlens needs, pinned to the versions in the
    project's ``requirements.txt``, then tensorlens itself as a wheel inside the zip
    (``files/``, beside the config),
    so grading fetches nothing beyond Gradescope's build-time install;
  - ``otter_config.json``: the :class:`tensorlens.classroom.otter_plugin.GradingGuard` plugin with the time
    limits (the notebook's, each question's); no PDFs, no Gradescope token (no network while grading);
  - ``autograder.zip``: all of the above, made by ``otter generate``: upload it to Gradescope or
    pass it to ``otter grade`` / ``otter run``.
"""

from __future__ import annotations

import argparse
import ast
import base64
import contextlib
import hashlib
import importlib.metadata
import json
import os
import pathlib
import re
import sys
import tomllib
import zipfile
from dataclasses import dataclass

import nbformat

from .results import POINTS_PER_EXERCISE
from .student import make_student_notebook

__all__ = ["Question", "chapter_questions", "autograder_requirements", "build_wheel",
           "build_assignment", "build_assignments", "POINTS", "main"]

#: points per exercise (the same on every grading path)
POINTS = POINTS_PER_EXERCISE
#: where Gradescope (and otter grade's containers) unpack the autograder zip
AUTOGRADER_SOURCE = "/autograder/source"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
ROOT = pathlib.Path(__file__).resolve().parents[2]  # the checkout: tensorlens/classroom/ is two below
# installed in every venv, so pip freeze (and requirements.txt) leaves them out
_TOOLS = ("pip", "setuptools", "wheel")
_MAGIC = re.compile(r"^\s*[%!].*$", re.MULTILINE)


@dataclass(frozen=True)
class Question:
    """One exercise of a chapter: its id and the name of the function the notebook defines."""

    exercise_id: str
    function: str


def _calls(source: str):
    """``(exercise id, function name)`` of each check call, except those checking a function the
    same cell defines (a worked example of a failing check)."""
    try:
        tree = ast.parse(_MAGIC.sub("", source))
    except SyntaxError:
        return
    defined_here = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "check"
                and len(node.args) == 2 and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str) and isinstance(node.args[1], ast.Name)):
            if node.args[1].id not in defined_here:
                yield node.args[0].value, node.args[1].id


def chapter_questions(nb, name: str = "notebook") -> list[Question]:
    """The exercises a chapter checks, in order (see the module contract).

    Raises
    ------
    ValueError
        If a check names an exercise the registry does not hold, or a function that no cell
        tagged ``solution`` defines.
    """
    from ..exercises import EXERCISES

    defined = set()
    for cell in nb.cells:
        if cell.cell_type == "code" and "solution" in cell.get("metadata", {}).get("tags", []):
            defined |= {n.name for n in ast.parse(cell.source).body
                        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found: list[Question] = []
    for cell in nb.cells:
        if cell.cell_type != "code" or "solution" in cell.get("metadata", {}).get("tags", []):
            continue
        for exercise_id, function in _calls(cell.source):
            if exercise_id not in EXERCISES:
                raise ValueError(f"{name}: checks exercise {exercise_id!r}, which "
                                 "tensorlens.exercises.EXERCISES does not hold")
            if function not in defined:
                raise ValueError(f"{name}: the check of {exercise_id!r} uses `{function}`, which no "
                                 "cell tagged 'solution' defines")
            if exercise_id not in [q.exercise_id for q in found]:
                found.append(Question(exercise_id, function))
    return found


def test_file(question: Question) -> str:
    """The Otter test file (exception format) of one question."""
    return (f'"""Otter test of exercise {question.exercise_id} (generated by tensorlens.classroom.assignments; '
            'do not edit)."""\n\n'
            "from otter.test_files import test_case\n\n"
            "OK_FORMAT = False\n\n"
            f"name = {question.exercise_id!r}\n"
            f"points = {POINTS}\n\n\n"
            "@test_case(points=None, hidden=False)\n"
            "def tensorlens_check(env):\n"
            "    from tensorlens.classroom.otter_plugin import check_question\n"
            f"    check_question(env, {question.exercise_id!r}, {question.function!r})\n")


# ---------------------------------------------------------------- the grading environment


def _pins(requirements: pathlib.Path) -> dict[str, tuple[str, str]]:
    """Normalized name -> (name as written, version) from an exact-pin requirements file."""
    pins = {}
    for line in requirements.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            pins[_normal(name)] = (name.strip(), version.strip())
    return pins


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _closure(roots: list[str]) -> set[str]:
    """Normalized names of ``roots`` and everything they need, read from the installed metadata."""
    from packaging.requirements import Requirement

    seen, todo = set(), list(roots)
    while todo:
        name = _normal(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for text in requires:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return seen


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def autograder_requirements(wheel_name: str, requirements=ROOT / "requirements.txt") -> str:
    """The autograder's requirements.txt: CPU torch, tensorlens's dependencies pinned, the wheel.

    Raises
    ------
    ValueError
        If a package tensorlens needs has no exact pin in ``requirements``.
    """
    from packaging.requirements import Requirement

    pins = _pins(pathlib.Path(requirements))
    project = _project()
    # torch is checked on import rather than listed; grading needs the `grade` extra's tools too
    roots = ["torch", *(Requirement(d).name for d in project["dependencies"]),
             *(Requirement(d).name for d in project["optional-dependencies"]["grade"])]
    lines = ["# Grading environment of a Tensor Views chapter (generated by tensorlens.classroom.assignments).",
             "# CPU-only torch; everything pinned; installed once, when Gradescope builds the image.",
             f"--extra-index-url {CPU_INDEX}"]
    for name in sorted(_closure(roots)):
        if name not in pins and name in _TOOLS:  # pip freeze leaves these out: the installed one
            pins[name] = (name, importlib.metadata.version(name))
        if name not in pins:
            raise ValueError(f"requirements: {name} (needed by tensorlens) has no exact pin in {requirements}")
        written, version = pins[name]
        if name == "torch":
            version = version.split("+", 1)[0] + "+cpu"
        lines.append(f"{written}=={version}")
    lines.append(f"{AUTOGRADER_SOURCE}/files/{wheel_name}")
    return "\n".join(lines) + "\n"


def build_wheel(dest) -> pathlib.Path:
    """Write a pure-Python wheel of tensorlens (its committed files) into ``dest``; return its path."""
    project = _project()
    name, version = project["name"], project["version"]
    dist_info = f"{name}-{version}.dist-info"
    files = {}
    package = ROOT / "tensorlens"
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            files[path.relative_to(ROOT).as_posix()] = path.read_bytes()
    metadata = [f"Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}",
                f"Summary: {project['description']}", f"Requires-Python: {project['requires-python']}"]
    metadata += [f"Requires-Dist: {d}" for d in project["dependencies"]]
    for extra, requirements in project.get("optional-dependencies", {}).items():
        metadata.append(f"Provides-Extra: {extra}")
        metadata += [f'Requires-Dist: {d}; extra == "{extra}"' for d in requirements]
    files[f"{dist_info}/METADATA"] = ("\n".join(metadata) + "\n").encode()
    files[f"{dist_info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: tensorlens.classroom.assignments\n"
                                   b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    record = []
    for arcname, content in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
        record.append(f"{arcname},sha256={digest},{len(content)}")
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    dest = pathlib.Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    wheel = dest / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for arcname, content in files.items():
            info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            zf.writestr(info, content, zipfile.ZIP_DEFLATED)
    return wheel


# ---------------------------------------------------------------- one chapter


def build_assignment(notebook, dest, time_limit: float = 300, question_limit: float = 60) -> dict:
    """Build the Otter assignment of one chapter notebook into ``dest/<stem>/``.

    Returns
    -------
    dict
        ``{"chapter": stem, "questions": [exercise ids], "autograder": path of the zip}``, or
        None-valued ``autograder`` when the chapter has no exercise (nothing is written then).

    Raises
    ------
    ValueError
        If ``time_limit`` or ``question_limit`` is not positive or the chapter's checks are malformed (see
        :func:`chapter_questions`).
    """
    from otter.generate import main as otter_generate

    for label, value in (("time_limit", time_limit), ("question_limit", question_limit)):
        if isinstance(value, bool) or not (isinstance(value, (int, float)) and value > 0):
            raise ValueError(f"{label} must be a positive number of seconds, got {value!r}")
    notebook = pathlib.Path(notebook)
    nb = nbformat.read(notebook, as_version=4)
    questions = chapter_questions(nb, notebook.name)
    if not questions:
        return {"chapter": notebook.stem, "questions": [], "autograder": None}
    out = pathlib.Path(dest).resolve() / notebook.stem
    make_student_notebook(nb, notebook.name)
    nbformat.validate(nb)
    (out / "student").mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out / "student" / notebook.name)
    tests = out / "tests"
    tests.mkdir(exist_ok=True)
    for old in tests.glob("*.py"):
        old.unlink()
    for q in questions:
        (tests / f"{q.exercise_id}.py").write_text(test_file(q), encoding="utf-8")
    # beside the config: otter generate puts it in the zip as files/<wheel>
    for old in out.glob("*.whl"):
        old.unlink()
    wheel = build_wheel(out)
    (out / "requirements.txt").write_text(autograder_requirements(wheel.name), encoding="utf-8")
    config = {"lang": "python", "pdf": False, "show_stdout": True, "show_all_public": True,
              "plugins": [{"tensorlens.classroom.otter_plugin.GradingGuard": {
                  "time_limit": float(time_limit), "question_limit": float(question_limit)}}]}
    (out / "otter_config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    with contextlib.chdir(out):
        otter_generate(tests_dir="tests", output_path="autograder.zip", config="otter_config.json",
                       requirements="requirements.txt", no_environment=True,
                       files=[wheel.name],
                       python_version=f"{sys.version_info.major}.{sys.version_info.minor}")
    return {"chapter": notebook.stem, "questions": [q.exercise_id for q in questions],
            "autograder": out / "autograder.zip"}


def build_assignments(src, dest, time_limit: float = 300, question_limit: float = 60) -> list[dict]:
    """:func:`build_assignment` for every chapter notebook in ``src`` (checked first, all of them).

    Raises
    ------
    ValueError
        If ``src`` holds no notebook, or any chapter's checks are malformed (nothing is built then).
    """
    src = pathlib.Path(src)
    paths = sorted(src.glob("*.ipynb"))
    if not paths:
        raise ValueError(f"src: no notebooks found in {src}")
    for path in paths:  # every chapter is checked before anything is written
        chapter_questions(nbformat.read(path, as_version=4), path.name)
    return [build_assignment(path, dest, time_limit, question_limit) for path in paths]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tensorlens.classroom.assignments",
                                     description="Build an Otter-Grader assignment and Gradescope "
                                                 "autograder for every chapter.")
    parser.add_argument("src", help="folder of chapter notebooks, e.g. notebooks")
    parser.add_argument("dest", help="output folder, e.g. dist/assignments")
    parser.add_argument("--time-limit", type=float, default=300,
                        help="seconds a submission's cells may run in all (default 300)")
    parser.add_argument("--question-limit", type=float, default=60,
                        help="seconds the check of one question may run while grading (default 60)")
    args = parser.parse_args(argv)
    try:
        built = build_assignments(args.src, args.dest, args.time_limit, args.question_limit)
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for b in built:
        if b["autograder"] is None:
            print(f"{b['chapter']}: no exercises, skipped")
        else:
            print(f"{b['chapter']}: {len(b['questions'])} questions -> {b['autograder']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
