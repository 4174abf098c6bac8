"""Sample submissions for the Otter tests, made from a chapter as it is today.

Nothing here names an exercise: the chapter is picked by what its exercises require, and every
sample is the chapter's student notebook (prose, setup cell, solution and check cells; the
chapter's demonstration cells are left out to keep the tests fast) with each solution cell either
the chapter's own solution, the stub, or the chapter's solution wrapped so that it goes wrong in
one known way. Each sample comes with the score it must get.
"""

from __future__ import annotations

import copy
import pathlib
import textwrap

import nbformat
import torch

from tensorlens.classroom.assignments import Question, chapter_questions, _calls
from tensorlens.exercises import EXERCISES
from tensorlens.classroom.student import make_student_notebook, stub_source

ROOT = pathlib.Path(__file__).parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _needs_view(exercise_id: str) -> bool:
    return any("must be a view of" in r.description for r in EXERCISES[exercise_id].rules)


def _returns_tensor(exercise_id: str) -> bool:
    ex = EXERCISES[exercise_id]
    case = ex.edge_cases[0] if ex.edge_cases else None
    if case is None:
        return False
    args = case if isinstance(case, tuple) else (case,)
    return isinstance((ex.solution or ex.reference)(*copy.deepcopy(args)), torch.Tensor)


def pick_chapter() -> tuple[pathlib.Path, list[Question]]:
    """The first chapter with at least three exercises, one of which requires a view and two of
    which return a tensor (so each kind of "looks right but is wrong" has an exercise to go in)."""
    for path in NOTEBOOKS:
        questions = chapter_questions(nbformat.read(path, as_version=4), path.name)
        ids = [q.exercise_id for q in questions]
        if len(ids) >= 3 and any(map(_needs_view, ids)) \
                and sum(_returns_tensor(i) for i in ids if not _needs_view(i)) >= 2:
            return path, questions
    raise AssertionError("no chapter has the exercises these samples need")


# how a solution goes wrong: the body of a wrapper around the chapter's own solution
_COPY = "return _right(*args).clone()"
_SHAPE = "return _right(*args).unsqueeze(0)"
_DTYPE = ("out = _right(*args)\n"
          "return out.to(torch.float32 if out.dtype == torch.float64 else torch.float64)")
_RAISES = 'raise ValueError("a bug in my function")'
_LOOPS = "while True:\n    pass"
# a cell that waits forever (on input that never comes): as endless, and it leaves the CPU free
_WAITS = "import time\nwhile True:\n    time.sleep(1)"


def _wrapped(solution: str, name: str, body: str) -> str:
    """The chapter's solution, kept under another name, and ``name`` redefined around it."""
    inner = f"_right_{name}"
    body = textwrap.indent(body.replace("_right(", inner + "("), "    ")
    return f"{solution.rstrip()}\n\n\n{inner} = {name}\n\n\ndef {name}(*args):\n{body}\n"


class Chapter:
    """A chapter's lean student notebook and the solution cell of each question."""

    def __init__(self, path: pathlib.Path, questions: list[Question]):
        self.path, self.questions = path, questions
        nb = nbformat.read(path, as_version=4)
        keep, setup_seen = [], False
        for cell in nb.cells:
            tags = cell.get("metadata", {}).get("tags", [])
            is_check = cell.cell_type == "code" and any(True for _ in _calls(cell.source))
            if cell.cell_type == "markdown" or "solution" in tags or is_check:
                keep.append(cell)
            elif cell.cell_type == "code" and not setup_seen:
                keep.append(cell)  # the setup cell
                setup_seen = True
        nb.cells = keep
        self.solutions = {}  # function name -> (cell index, the chapter's solution source)
        for index, cell in enumerate(nb.cells):
            if "solution" in cell.get("metadata", {}).get("tags", []):
                for q in questions:
                    if f"def {q.function}(" in cell.source:
                        self.solutions[q.function] = (index, cell.source)
        make_student_notebook(nb, path.name)  # outputs cleared, every solution stubbed
        self.student = nb

    def sample(self, answers: dict, extra_cells=(), rename: dict | None = None,
               checks: bool = False):
        """The student notebook with ``answers``: function name -> "right" or a wrapper body
        (others stay stubs); ``extra_cells`` go right after the setup cell; ``rename`` maps a
        function name to a new one (in its solution cell and its check cell). The student's own
        check cells are left out unless ``checks`` (Otter's tests check every question anyway, and
        each check cell would double the time a sample takes)."""
        nb = copy.deepcopy(self.student)
        for name, answer in answers.items():
            index, solution = self.solutions[name]
            nb.cells[index].source = solution if answer == "right" else _wrapped(solution, name, answer)
        for old, new in (rename or {}).items():
            for cell in nb.cells:
                if cell.cell_type == "code":
                    cell.source = cell.source.replace(f"def {old}(", f"def {new}(") \
                        .replace(f", {old})", f", {new})")
        if not checks:
            nb.cells = [c for c in nb.cells
                        if not (c.cell_type == "code" and any(True for _ in _calls(c.source)))]
        first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
        for offset, source in enumerate(extra_cells, start=1):
            nb.cells.insert(first_code + offset, nbformat.v4.new_code_cell(source))
        nbformat.validate(nb)
        return nb


VANDAL = '''\
import pathlib
here = pathlib.Path.cwd()
# only inside Otter's grading folder (autograder/submission), never anywhere else
if here.name == "submission" and here.parent.name == "autograder":
    forged = ("from otter.test_files import test_case\\nOK_FORMAT = False\\n"
              "name = {!r}\\npoints = 1\\n@test_case()\\ndef t(env):\\n    pass\\n")
    for test in (here / "tests").glob("*.py"):
        name = test.stem
        test.write_text(forged.format(name))
    for target in here.iterdir():
        if target.is_file() and target.suffix != ".ipynb":
            target.unlink()
    print("overwrote the tests and deleted the other files")
'''


def make_samples(chapter: Chapter, dest: pathlib.Path) -> dict:
    """Write the samples into ``dest``; return file name -> (expected score, possible)."""
    names = [q.function for q in chapter.questions]
    n, half = len(names), len(names) // 2
    view = next(q.function for q in chapter.questions if _needs_view(q.exercise_id))
    tensor_ones = [q.function for q in chapter.questions
                   if q.function != view and _returns_tensor(q.exercise_id)]
    looks_right = {view: _COPY, tensor_ones[0]: _SHAPE, tensor_ones[1]: _DTYPE}
    samples = {
        "correct": (chapter.sample({f: "right" for f in names}, checks=True), n),
        # every answer wrong in a way that looks right; the rest stay stubs
        "looks_right": (chapter.sample(looks_right), 0),
        "raises": (chapter.sample({**{f: "right" for f in names}, names[0]: _RAISES},
                                  extra_cells=['raise RuntimeError("a cell that raises")']), n - 1),
        # a cell that never ends (stopped at the notebook's time limit, later cells still run),
        # and a function that never returns, looping (stopped at its question's time limit)
        "loops_forever": (chapter.sample({**{f: "right" for f in names}, names[-1]: _LOOPS},
                                         extra_cells=[_WAITS]), n - 1),
        # partly wrong (half the functions right, the others stubs), and it overwrites the test
        # files with ones that always pass and deletes the other files in its folder: it must
        # still get exactly its partial score
        "partly_wrong_vandal": (chapter.sample({f: "right" for f in names[half:]},
                                               extra_cells=[VANDAL]), n - half),
    }
    dest.mkdir(parents=True, exist_ok=True)
    expected = {}
    for stem, (nb, score) in samples.items():
        nbformat.write(nb, dest / f"{stem}.ipynb")
        expected[f"{stem}.ipynb"] = score
    (dest / "not_a_notebook.ipynb").write_text("these are my answers: x.T, x[:, None]\n")
    expected["not_a_notebook.ipynb"] = 0
    return expected


def make_renamed(chapter: Chapter, dest: pathlib.Path) -> tuple[str, str]:
    """A correct sample whose first function was renamed (in its cell and its check); returns the
    file name and the old function name."""
    old = chapter.questions[0].function
    nb = chapter.sample({f.function: "right" for f in chapter.questions}, rename={old: old + "_v2"})
    dest.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dest / "renamed.ipynb")
    return "renamed.ipynb", old
