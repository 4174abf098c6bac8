"""The check's search draws its inputs once per exercise and process (``_core._drawn``): what
makes that sound is that hypothesis' derandomized search draws the same inputs whatever the
function being checked, until the function fails."""

import copy

import torch
from hypothesis import find
from hypothesis.errors import NoSuchExample

from tensorlens.exercises import _core
from tensorlens.exercises._core import EXERCISES, run_check

EXERCISE = "broadcasting.cosine_matrix"


def _described(values):
    return [[(tuple(t.shape), t.dtype, t.stride(), t.tolist()) if isinstance(t, torch.Tensor)
             else repr(t) for t in _core._as_args(v)] for v in values]


def _seen_by(condition):
    ex = EXERCISES[EXERCISE]
    seen = []

    def record(value):
        seen.append(copy.deepcopy(value))
        return condition(len(seen))

    try:
        find(ex.inputs, record, settings=_core._settings(ex))
    except NoSuchExample:
        pass
    return seen


def test_the_search_draws_the_same_inputs_for_every_function_until_one_fails():
    drawn = _core._drawn(EXERCISES[EXERCISE])
    assert len(drawn) > 10
    assert _described(_seen_by(lambda n: False)) == _described(drawn)
    fails_at_7 = _seen_by(lambda n: n >= 7)
    assert _described(fails_at_7[:7]) == _described(drawn[:7])


def test_a_function_that_passes_the_drawn_inputs_is_told_how_many_it_passed():
    ex = EXERCISES[EXERCISE]
    result = run_check(EXERCISE, ex.solution)
    assert result.passed, repr(result)
    assert str(len(_core._drawn(ex))) in result.tried


def test_a_failure_among_the_drawn_inputs_is_shrunk_as_the_search_alone_shrinks_it():
    """A function right on the edge cases and wrong on larger inputs: its verdict shows the
    smallest failing input that hypothesis' search finds on its own."""
    ex = EXERCISES[EXERCISE]
    largest_edge = max(ex.solution(*_core._as_args(e)).numel() for e in ex.edge_cases)

    def wrong_when_large(a, b):
        out = ex.solution(a, b)
        return out + 1 if out.numel() > largest_edge else out

    def wrong(value):
        return _core._trial(wrong_when_large, _core._as_args(value), ex, ex.reference).status != "pass"

    assert not any(wrong(e) for e in ex.edge_cases)  # so the failure is one of the drawn inputs
    calls, smallest = [0], []

    def fails(value):  # the search alone, with the check's shrink budget
        calls[0] += 1
        if smallest and calls[0] > _core._SHRINK_BUDGET:
            raise _core._Budget
        if wrong(value):
            smallest[:] = [value]
            return True
        return False

    try:
        find(ex.inputs, fails, settings=_core._settings(ex))
    except _core._Budget:
        pass
    smallest = smallest[0]
    verdict = run_check(EXERCISE, wrong_when_large)
    assert verdict.status == "fail"
    assert ("input", _core._render.describe_args(_core._as_args(smallest), ex.arg_names)) \
        in verdict.details
