"""What runs while Otter-Grader grades a chapter: the question test helper and the grading guard.

An autograder built by ``tensorlens.classroom.assignments`` holds one Otter test file per exercise; each
calls :func:`check_question`, which runs the book's own strict checker (``tensorlens.exercises.check``,
the same as ``tl.check``), so strictness has one source and a failing test shows the very text
that ``tl.check`` shows in the book.

Contract
--------
- :func:`check_question` ``(env, exercise_id, function_name)`` returns None when the exercise
  passes and raises ``AssertionError`` otherwise, with the checker's text verdict as its message.
  A notebook that does not define ``function_name`` (renamed or deleted) and an exercise id the
  installed tensorlens no longer knows each fail with one clear line (:data:`NO_FUNCTION`,
  the checker's "unknown exercise" text).
- :class:`GradingGuard` is an Otter plugin (``otter_config.json``: ``plugins``) whose
  ``before_execution`` wraps the submission in two cells of its own: the first (before any
  student cell) gives the notebook ``time_limit`` seconds in all, from its first student cell
  (a cell still running at the deadline, and every later student cell, is stopped with
  :class:`TimeLimitExceeded`, so a notebook that loops forever still gets its tests run), and
  keeps the test files' contents in memory (past the deadline each later cell still gets a
  second, so definitions further down still count); the last (after every student cell, before Otter runs
  the tests) stops the clock and writes the test files back, so a notebook that deletes or
  overwrites them is graded by the real tests. While the tests run, each question's check gets
  ``question_limit`` seconds: a function that never returns fails its own question only.
- This protects grading from accidents and casual tampering, not from a student who sets out to
  forge their own grade inside their own kernel (Otter runs the tests there). A cell stuck inside
  one long C call is stopped only when the call returns; ``otter grade --timeout`` (per container)
  and Gradescope's own limit are the backstop.
"""

from __future__ import annotations

import json
import pathlib
import secrets
import signal
import time

__all__ = ["check_question", "NO_FUNCTION", "TimeLimitExceeded", "GradingGuard", "start", "finish"]

#: the message of a question whose function the notebook does not define
NO_FUNCTION = ("\u2717 {exercise_id}: the notebook defines no function `{name}` (renamed or "
               "deleted?); the check needs `def {name}(...)` as in the chapter")


def check_question(env: dict, exercise_id: str, function_name: str) -> None:
    """Check the notebook's ``function_name`` against ``exercise_id``; raise if it does not pass.

    Raises
    ------
    AssertionError
        With the verdict's text (as ``tl.check`` shows it) when the exercise does not pass.
    TypeError
        If ``env`` is not a dict or the id or name is not a string.
    """
    if not isinstance(env, dict):
        raise TypeError(f"env must be the notebook's global namespace (a dict), got {type(env).__name__}")
    if not isinstance(exercise_id, str) or not isinstance(function_name, str):
        raise TypeError("exercise_id and function_name must be strings")
    from ..exercises import EXERCISES, check

    fn = env.get(function_name)
    if exercise_id in EXERCISES and not callable(fn):
        raise AssertionError(NO_FUNCTION.format(exercise_id=exercise_id, name=function_name))
    limit = _STATE.get("question_limit")
    if limit:  # under the guard: a function that never returns fails this question only
        _STATE["stopping"] = f"the check of {exercise_id} ran past its time limit of {limit:g} s"
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, limit, 0.5)
    try:
        result = check(exercise_id, fn)
    finally:
        if limit:
            signal.setitimer(signal.ITIMER_REAL, 0)
            # ignored rather than the default, which would end the kernel on a late alarm
            signal.signal(signal.SIGALRM, signal.SIG_IGN)
    if not result.passed:
        raise AssertionError(repr(result))


class TimeLimitExceeded(BaseException):
    """Stops a student cell once the notebook's time is up (a BaseException, so that a bare
    ``except Exception`` in the student's code does not swallow it)."""


_STATE: dict = {}
# what each student cell gets once the notebook's time is up
_GRACE_S = 1.0


def _on_alarm(signum, frame):
    raise TimeLimitExceeded(_STATE["stopping"])


def start(time_limit: float, question_limit: float, token: str, tests_dir: str = "tests") -> None:
    """Start the notebook's clock and keep the test files (the guard's first cell calls this)."""
    from IPython import get_ipython

    for name, value in (("time_limit", time_limit), ("question_limit", question_limit)):
        if not (isinstance(value, (int, float)) and value > 0):
            raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
    folder = pathlib.Path(tests_dir)
    _STATE.update(limit=float(time_limit), question_limit=float(question_limit), token=token,
                  deadline=None, folder=folder.resolve(),
                  stopping=f"the notebook ran past its time limit of {time_limit:g} s; this cell "
                           "was stopped",
                  tests={p.name: p.read_bytes() for p in sorted(folder.glob("*.py"))})
    shell = get_ipython()

    def before(info):
        if token in (getattr(info, "raw_cell", "") or ""):
            return
        if _STATE["deadline"] is None:
            _STATE["deadline"] = time.monotonic() + _STATE["limit"]
        # past the deadline each cell still gets a moment, so later definitions still count
        left = max(_STATE["deadline"] - time.monotonic(), _GRACE_S)
        # keeps firing every half second, in case the cell catches the first one
        signal.setitimer(signal.ITIMER_REAL, left, 0.5)

    def after(result):
        signal.setitimer(signal.ITIMER_REAL, 0)

    _STATE["hooks"] = (before, after)
    signal.signal(signal.SIGALRM, _on_alarm)
    shell.events.register("pre_run_cell", before)
    shell.events.register("post_run_cell", after)


def finish(token: str) -> None:
    """Stop the clock and write the test files back (the guard's last cell calls this)."""
    from IPython import get_ipython

    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    if _STATE.get("token") != token:
        return
    _STATE["deadline"] = None
    before, after = _STATE["hooks"]
    shell = get_ipython()
    for event, fn in (("pre_run_cell", before), ("post_run_cell", after)):
        try:
            shell.events.unregister(event, fn)
        except ValueError:
            pass
    folder = _STATE["folder"]
    if folder.exists() and not folder.is_dir():
        folder.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    for stray in folder.glob("*.py"):
        if stray.name not in _STATE["tests"]:
            stray.unlink()
    for name, content in _STATE["tests"].items():
        (folder / name).write_bytes(content)


def guard_cells(time_limit: float, question_limit: float) -> tuple[str, str]:
    """The sources of the first and the last cell :class:`GradingGuard` adds to a submission."""
    token = secrets.token_hex(16)
    first = (f"import tensorlens.classroom.otter_plugin as _tl_guard  # {token}\n"
             f"_tl_guard.start({float(time_limit)!r}, {float(question_limit)!r}, {json.dumps(token)})")
    last = (f"import tensorlens.classroom.otter_plugin as _tl_guard  # {token}\n"
            f"_tl_guard.finish({json.dumps(token)})")
    return first, last


try:
    from otter.plugins import AbstractOtterPlugin
except ImportError:  # otter is only needed where grading happens
    AbstractOtterPlugin = object


class GradingGuard(AbstractOtterPlugin):
    """Otter plugin: a time limit for the student's cells, and the test files kept safe.

    Configured in ``otter_config.json`` as
    ``{"plugins": [{"tensorlens.classroom.otter_plugin.GradingGuard": {"time_limit": 300,
    "question_limit": 60}}]}``.
    """

    def before_execution(self, submission):
        import nbformat

        config = self.plugin_config or {}
        if isinstance(submission, str):  # a .py submission: nothing to wrap cell by cell
            return submission
        first, last = guard_cells(float(config.get("time_limit", 300)),
                                  float(config.get("question_limit", 60)))
        submission.cells.insert(0, nbformat.v4.new_code_cell(first))
        submission.cells.append(nbformat.v4.new_code_cell(last))
        return submission
