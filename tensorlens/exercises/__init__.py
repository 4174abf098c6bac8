"""Self-checking exercises: ``check(exercise_id, fn)`` and the ``EXERCISES`` registry.

In a notebook::

    def transpose_view(x):
        return x.T
    tl.check("memory_layout.transpose_view", transpose_view)   # shows a verdict, never raises

``check`` returns a ``CheckResult`` with ``.passed`` (bool), ``.status`` ("pass", "fail", "error",
"not_implemented", "unknown", "internal") and ``.message`` (str). Comparison is strict: exact
type, shape and dtype (``tensor(6)``, ``tensor([6])`` and ``tensor([[6]])`` all differ), values
(exact for integers and bools, ``torch.testing`` tolerances for floats), inputs left unchanged,
then the exercise's rules. On failure it shows the smallest failing input, expected and got
(shape, dtype, stride, values) and the hint.

Declaring exercises for a chapter
---------------------------------
Put them in ``tensorlens/exercises/<chapter>.py`` (the module name is the id prefix; modules whose
name starts with ``_`` are private). Every public module of this package is imported when the
package is, so a new file is all it takes. Example (a complete module)::

    '''Exercises for chapter 3, memory layout.'''
    import torch
    from tensorlens.exercises import exercise, rules
    from tensorlens.exercises.strategies import st, tensors, shapes

    def _transpose_solution(x):
        return x.T

    @exercise(
        "memory_layout.transpose_view",
        title="Transpose without copying",
        statement="Return the transpose of the 2-D tensor `x` as a view of `x`.",
        inputs=st.tuples(tensors(shape=shapes(2, 2), dtypes=(torch.float32, torch.int64))),
        edge_cases=[torch.zeros(0, 3), torch.arange(6.).reshape(2, 3)],
        hint="Swapping two strides is enough: look at `.T` or `.transpose(0, 1)`.",
        rules=[rules.view_of("x"), rules.no_loops()],
        solution=_transpose_solution,
    )
    def transpose_view(x):
        '''The specification: out[j, i] = x[i, j] (a loop, to be read; it copies).'''
        out = torch.empty(x.shape[1], x.shape[0], dtype=x.dtype)
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                out[j, i] = x[i, j]
        return out

Its Chinese title, statement and hint go into ``zh_CN.json`` beside this module (``exercises``:
id -> title, statement and hint; a new message a rule or check says needs its template in
``_messages.py`` and its Chinese form there too): ``tests/test_check_language.py`` fails on an
exercise without them, and the checkers' tests render every wrong variant's verdict in Chinese,
strictly.

Fields (see :class:`Exercise`): ``title``, ``statement``, ``reference`` (the decorated function:
readable, loops welcome), ``inputs`` (a hypothesis strategy of argument tuples; a bare value means
one argument), ``edge_cases`` (tried first, smallest first; same form), ``hint``, ``rules``
(:mod:`tensorlens.exercises.rules`: ``view_of(arg)``, ``no_loops()``, ``banned("repeat", ...)``,
``max_new_bytes(n or fn(*args))``, ``allocates_nothing("out")``), ``solution`` (an idiomatic
solution that obeys the rules; needed whenever the reference breaks a rule), ``wrong`` (extra
``(label, fn)`` wrong solutions the strictness tests must see fail), ``max_examples``,
``atol``/``rtol``, ``mutates_inputs`` (the parameter names whose values may change, e.g.
``("out",)``). ``check`` refuses the book's own functions (a solution, a reference).

The strictness tests (``tests/test_exercises.py``) cover every registered exercise automatically:
the solution passes, the reference agrees with it, and wrong variants (values off by one, an extra
size-1 dim, a wrong dtype, a function that raises, plus one per rule: a copy where a view is
required, a loop where loops are banned, ...) all fail.
"""

from __future__ import annotations

import importlib
import pkgutil

from . import rules, strategies
from ._core import (EXERCISES, LOAD_ERRORS, RESULTS_ENV, CheckResult, Exercise, check, exercise,
                    register)

__all__ = ["check", "EXERCISES", "Exercise", "CheckResult", "exercise", "register", "rules",
           "strategies", "LOAD_ERRORS", "RESULTS_ENV", "chapters"]


def _load_chapters() -> None:
    """Import every public module of this package; a broken one is recorded, not fatal."""
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name in ("rules", "strategies"):
            continue
        try:
            importlib.import_module(f"{__name__}.{info.name}")
        except Exception as err:  # one broken chapter must not break every notebook's checks
            LOAD_ERRORS[info.name] = f"{type(err).__name__}: {err}"


def chapters() -> list[str]:
    """Chapter names that declare at least one exercise, sorted."""
    return sorted({ex.chapter for ex in EXERCISES.values()})


_load_chapters()
