"""Strictness of tensorlens.exercises: every registered exercise, and the checker's own rules.

The parametrized tests run over EXERCISES, so exercises added to any chapter module later are
covered without touching this file: the solution passes, and every wrong variant fails.
"""

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest
import torch

import tensorlens as tl
from tensorlens.exercises import EXERCISES, LOAD_ERRORS, Exercise, register, rules
from tensorlens.exercises import _render
from tensorlens.exercises._core import run_check
from tensorlens.exercises._variants import wrong_variants
from tensorlens.exercises.strategies import make_tensor, shapes, st, tensors

pytestmark = pytest.mark.checkers

IDS = sorted(EXERCISES)
VARIANTS = [pytest.param(i, label, fn, id=f"{i}-{label}") for i in IDS
            for label, fn in wrong_variants(EXERCISES[i])]


def test_every_chapter_module_loads():
    assert LOAD_ERRORS == {}
    assert IDS, "no exercises registered"


@pytest.mark.parametrize("exercise_id", IDS)
def test_exercise_is_well_formed(exercise_id):
    ex = EXERCISES[exercise_id]
    assert ex.module.rsplit(".", 1)[-1] == ex.chapter, "declare an exercise in its chapter's module"
    assert ex.hint.strip() and ex.statement.strip() and ex.title.strip()
    assert ex.edge_cases, "give explicit edge cases (tried first)"
    assert ex.reference.__doc__, "the reference is the readable specification: give it a docstring"
    assert exercise_id in ex.describe()


@pytest.mark.parametrize("exercise_id", IDS)
def test_solution_passes_and_is_fast(exercise_id):
    ex = EXERCISES[exercise_id]
    start = time.perf_counter()
    result = run_check(exercise_id, ex.solution or ex.reference)  # tl.check refuses the book's own
    elapsed = time.perf_counter() - start
    assert result.passed, repr(result)
    assert _render.text(result, "zh_CN", strict=True)  # its title and "tried" have Chinese words
    assert elapsed < 8, f"check took {elapsed:.1f} s"  # about 1 s alone; the machine is shared


@pytest.mark.parametrize("exercise_id", IDS)
def test_reference_satisfies_its_own_values(exercise_id):
    # the loop reference may break rules (it copies, it loops), never its own values
    ex = EXERCISES[exercise_id]
    plain = Exercise(**{**ex.__dict__, "rules": ()})
    result = run_check_with(plain, ex.reference)
    assert result.passed, repr(result)


@pytest.mark.parametrize("exercise_id, label, fn", VARIANTS)
def test_wrong_variant_fails(exercise_id, label, fn):
    result = run_check(exercise_id, fn)  # the variants live in tensorlens: tl.check would refuse them
    assert result.status in ("fail", "error"), f"{label!r} was not caught:\n{result!r}"
    assert not result.passed
    assert "Traceback" not in repr(result)
    # every verdict a wrong variant gets has its Chinese words (a new message needs a template)
    assert _render.text(result, "zh_CN", strict=True) and _render.html(result, "zh_CN", strict=True)


# ---------------------------------------------------------------- the checker itself


def run_check_with(ex, fn):
    """Check fn against an exercise that is registered only for the duration of the call."""
    saved = EXERCISES.get(ex.id)
    EXERCISES[ex.id] = ex
    try:
        return run_check(ex.id, fn)
    finally:
        if saved is None:
            del EXERCISES[ex.id]
        else:
            EXERCISES[ex.id] = saved


def make(id="testing.demo", reference=None, **fields):
    fields.setdefault("title", "demo")
    fields.setdefault("statement", "demo")
    fields.setdefault("inputs", st.tuples(tensors(shape=shapes(1, 2, 0, 4))))
    return Exercise(id=id, reference=reference, **fields)


def sum_all(x):
    """The sum of all elements, a 0-d tensor."""
    return x.sum()


@pytest.mark.parametrize("wrong, expected", [
    (lambda x: x.sum().reshape(1), "expected (), got (1,)"),
    (lambda x: x.sum().reshape(1, 1), "expected (), got (1, 1)"),
    (lambda x: x.sum().item(), "should be a tensor, got a float"),
    (lambda x: x.sum().double(), "expected torch.float32, got torch.float64"),
    (lambda x: x.sum() + 1e-3, "wrong values"),
])
def test_no_broadcasting_leniency(wrong, expected):
    result = run_check_with(make(reference=sum_all), wrong)
    assert result.status == "fail"
    assert expected in result.message


def test_float_tolerance_and_exact_integers():
    ex = make(reference=lambda x: x * 3, edge_cases=[torch.tensor([0.1, 0.7])])
    assert run_check_with(ex, lambda x: x + x + x).passed  # rounding differs, within tolerance
    ints = make(reference=lambda x: x * 3,
                inputs=st.tuples(tensors(dtypes=(torch.int64,))), edge_cases=[torch.arange(3)])
    assert not run_check_with(ints, lambda x: (x.double() * 3 + 1e-9).round().long() + (x == 2)).passed


def test_exception_is_reported_not_raised():
    def boom(x):
        raise IndexError("index 7 is out of bounds")
    result = run_check_with(make(reference=sum_all, edge_cases=[torch.ones(2)]), boom)
    assert result.status == "error"
    assert result.message == "your function raised IndexError: index 7 is out of bounds"
    assert "input" in dict(result.details)
    assert "Traceback" not in repr(result) and "Traceback" not in result._repr_html_()


def test_stub_is_not_implemented_yet():
    def stub(x):
        """Doc."""
        raise NotImplementedError("write your solution here")
    result = tl.check("memory_layout.transpose_view", stub)
    assert result.status == "not_implemented" and not result.passed
    assert "not implemented yet" in repr(result)


def test_unknown_id_lists_close_ids():
    result = tl.check("memory_layout.transpose_veiw", lambda x: x)
    assert result.status == "unknown"
    assert "memory_layout.transpose_view" in result.message
    assert tl.check(42, lambda x: x).status == "unknown"


def test_not_a_function():
    result = tl.check("memory_layout.transpose_view", torch.zeros(2, 2))
    assert result.status == "fail" and "got a tensor" in result.message


def test_smallest_failing_input_is_reported():
    ex = make(reference=lambda x: x * 2, inputs=st.tuples(tensors(shape=shapes(1, 1, 0, 8))))
    result = run_check_with(ex, lambda x: x * 2 if x.numel() < 3 else x * 2 + 1)
    assert result.status == "fail"
    shown = dict(result.details)["input"]
    assert "shape (3,)" in shown and "tensor([0., 0., 0.])" in shown, shown


def test_edge_cases_are_tried_smallest_first():
    ex = make(reference=lambda x: x * 2, edge_cases=[torch.ones(3, 3), torch.ones(2), torch.ones(4)])
    result = run_check_with(ex, lambda x: x * 3)  # wrong on every non-empty input
    assert "shape (2,)" in dict(result.details)["input"]


def test_input_mutation_fails():
    def sneaky(x):
        x.mul_(2)
        return x.clone()
    result = run_check_with(make(reference=lambda x: x * 2, edge_cases=[torch.ones(2)]), sneaky)
    assert result.status == "fail" and "in place" in result.message


def test_view_rule_sees_copies_and_accepts_views():
    ex = make(reference=lambda x: x.flip(0).flip(0)[None], rules=[rules.view_of("x")],
              edge_cases=[torch.ones(2)])
    assert run_check_with(ex, lambda x: x.unsqueeze(0)).passed
    result = run_check_with(ex, lambda x: x.clone().unsqueeze(0))
    assert result.status == "fail" and "not a view of `x`" in result.message


def test_memory_limit():
    ex = make(reference=lambda x: x.expand(3, *x.shape), edge_cases=[torch.ones(2)],
              rules=[rules.max_new_bytes(0)])
    assert run_check_with(ex, lambda x: x.expand(3, *x.shape)).passed
    result = run_check_with(ex, lambda x: x.repeat(3, *[1] * x.dim()))
    assert result.status == "fail" and "bytes of new storage" in result.message


def helper_with_loop(x):
    return x + len([0 for _ in range(1)]) - 1


def uses_helper(x):
    return helper_with_loop(x) * 2


def test_loop_rule_reads_source_and_helpers():
    ex = make(reference=lambda x: x * 2, rules=[rules.no_loops()], edge_cases=[torch.ones(2)])
    assert run_check_with(ex, lambda x: x * 2).passed  # a lambda with readable source is fine
    result = run_check_with(ex, uses_helper)
    assert result.status == "fail"
    assert "list comprehension" in result.message and "helper `helper_with_loop`" in result.message

    def while_loop(x):
        out = x.clone()
        i = 0
        while i < 1:
            i += 1
        return out * 2
    result = run_check_with(ex, while_loop)
    assert "a `while` loop (line 4 of the function)" in result.message


def test_banned_names():
    ex = make(reference=lambda x: x.repeat(2), rules=[rules.banned("repeat", reason="use expand")],
              inputs=st.tuples(tensors(shape=shapes(1, 1, 0, 4))), edge_cases=[torch.ones(2)])

    def cheat(x):
        return x.repeat(2)
    result = run_check_with(ex, cheat)  # caught while it runs
    assert result.status == "fail" and "ran `torch.Tensor.repeat`" in result.message
    assert "use expand" in result.message

    def mentions(x):
        if x.numel() < 0:
            return x.repeat(2)
        return torch.cat([x, x])
    result = run_check_with(ex, mentions)  # caught in the source
    assert result.status == "fail" and "uses `.repeat` (line 3 of the function)" in result.message


def test_missing_source_is_explained():
    ex = make(reference=lambda x: x.t(), rules=[rules.no_loops()],
              inputs=st.tuples(tensors(shape=shapes(2, 2))), edge_cases=[torch.ones(2, 3)])
    result = run_check_with(ex, torch.t)
    assert result.status == "fail" and "cannot check the rule" in result.message
    namespace = {}
    exec(compile("def f(x):\n    return x.t()\n", "<typed at a prompt>", "exec"), namespace)
    result = run_check_with(ex, namespace["f"])
    assert result.status == "fail" and "source of `f` is not available" in result.message


def test_checker_bug_is_reported_not_raised():
    def broken_reference(x):
        raise RuntimeError("bug in the exercise")
    result = run_check_with(make(reference=broken_reference, edge_cases=[torch.ones(1)]), lambda x: x)
    assert result.status == "internal" and "bug in the exercise" in result.message


def test_reprs_have_no_addresses_and_escape_html():
    result = run_check_with(make(reference=sum_all, edge_cases=[torch.ones(1)]), lambda x: object())
    assert "0x" not in repr(result) and "0x" not in result._repr_html_()
    assert "<object>" not in result._repr_html_() and "&lt;" in result._repr_html_()
    assert 'class="tl-check tl-check-fail"' in result._repr_html_()


def test_results_are_recorded_for_grading(tmp_path, monkeypatch):
    path = tmp_path / "results.jsonl"
    monkeypatch.setenv("TENSORLENS_RESULTS", str(path))
    tl.check("memory_layout.transpose_view", lambda x: x.T)
    tl.check("memory_layout.as_column", lambda x: x)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["exercise"], r["status"], r["passed"]) for r in lines] == [
        ("memory_layout.transpose_view", "pass", True), ("memory_layout.as_column", "fail", False)]
    assert [r["fn_module"] for r in lines] == [__name__, __name__]


def test_register_validates():
    with pytest.raises(ValueError, match="chapter.name"):
        register(make(id="NoDot", reference=sum_all))
    with pytest.raises(ValueError, match="already registered"):
        register(make(id="memory_layout.transpose_view", reference=sum_all))
    with pytest.raises(TypeError, match="hypothesis strategy"):
        register(make(id="testing.bad", reference=sum_all, inputs=[torch.ones(1)]))
    with pytest.raises(ValueError, match="identifiers"):
        rules.banned("x.repeat")
    assert "testing.bad" not in EXERCISES


def test_strategy_layouts_keep_values():
    values = list(range(6))
    dense = make_tensor(values, (2, 3))
    for layout in ("transposed", "sliced"):
        t = make_tensor(values, (2, 3), torch.float32, layout)
        assert torch.equal(t, dense) and not t.is_contiguous()
    assert make_tensor(values, (2, 3), torch.float32, "sliced").storage_offset() == 1


def test_verdict_text_is_deterministic_across_processes():
    script = textwrap.dedent("""
        import torch, tensorlens as tl
        def f(x):
            return x.T.contiguous() if x.numel() > 2 else x.T
        print(repr(tl.check("memory_layout.transpose_view", f)))
        print(repr(tl.check("memory_layout.sliding_windows", lambda x, k: x.unfold(0, k, 1) + 0)))
    """)
    env = {**os.environ, "PYTHONHASHSEED": "random"}
    env.pop("TENSORLENS_RESULTS", None)
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                           timeout=120) for _ in range(2)]
    assert runs[0].returncode == 0, runs[0].stderr
    assert runs[0].stdout == runs[1].stdout
    assert "not a view" in runs[0].stdout


# ---------------------------------------------------------------- cheats an audit found


def test_wrong_attempt_cannot_break_the_next_one():
    ex = EXERCISES["broadcasting.events_per_window"]
    stored = [tuple((t.shape, t.stride(), t.storage_offset()) for t in rules.tensors_in(e))
              for e in ex.edge_cases]

    def events_per_window_mutates(times, starts, ends):
        times.unsqueeze_(1)
        return ((times >= starts) & (times < ends)).sum(dim=0)

    def events_per_window(times, starts, ends):
        return ((times[:, None] >= starts) & (times[:, None] < ends)).sum(dim=0)

    result = run_check("broadcasting.events_per_window", events_per_window_mutates)
    assert (result.status == "fail"
            and "changed the shape, strides or offset of `times`" in result.message)
    assert run_check("broadcasting.events_per_window", events_per_window).passed
    assert stored == [tuple((t.shape, t.stride(), t.storage_offset()) for t in rules.tensors_in(e))
                      for e in ex.edge_cases]


def test_student_copy_keeps_layout_and_view_rule_compares_it():
    seen = []

    def transpose_view(x):
        seen.append((x.is_contiguous(), x.stride(), x.storage_offset()))
        return x.T

    sliced = make_tensor(list(range(6)), (2, 3), torch.float32, "sliced")
    ex = make(reference=lambda x: x.T.clone(), rules=[rules.view_of("x")], edge_cases=[sliced],
              inputs=st.tuples(tensors(shape=shapes(2, 2))), max_examples=3)
    assert run_check_with(ex, transpose_view).passed
    assert seen[0] == (False, sliced.stride(), 1)


def _weighted_sum_data(tensors, weights, out):
    out.data = sum((w.view(-1, 1, 1) * t for t, w in zip(tensors, weights)),
                   torch.zeros_like(out))
    return out


def _weighted_sum_set(tensors, weights, out):
    return out.set_(sum((w.view(-1, 1, 1) * t for t, w in zip(tensors, weights)),
                        torch.zeros_like(out)))


def _weighted_sum_clobber(tensors, weights, out):
    out.zero_()
    for t, w in zip(tensors, weights):
        out.add_(t.mul_(w.view(-1, 1, 1)))
    return out


def _weighted_sum_copy(tensors, weights, out):
    out.zero_()
    for t, w in zip(tensors, weights):
        out.copy_(out + w.view(-1, 1, 1) * t)
    return out


def _weighted_sum_scaled(tensors, weights, out):
    out.zero_()
    for t, w in zip(tensors, weights):
        out.add_(w.view(-1, 1, 1) * t)
    return out


@pytest.mark.parametrize("fn, expected", [
    (_weighted_sum_data, "swapped the storage of `out`"),
    (_weighted_sum_set, "swapped the storage of `out`"),
    (_weighted_sum_clobber, "changed its input `tensors` in place"),
    (_weighted_sum_copy, "made a new"),
    (_weighted_sum_scaled, "`Tensor.mul` made a new"),
])
def test_weighted_sum_into_cheats_fail(fn, expected):
    result = tl.check("performance.weighted_sum_into", fn)
    assert result.status == "fail" and expected in result.message, repr(result)


def test_weighted_sum_into_scaled_adds_pass_on_every_layout():
    def weighted_sum_into(tensors, weights, out):
        out.zero_()
        for t, w in zip(tensors, weights):
            torch.addcmul(out, t, w[:, None, None], out=out)
        return out
    result = tl.check("performance.weighted_sum_into", weighted_sum_into)
    assert result.passed, repr(result)
    assert "write into `out` instead" in repr(tl.check("performance.weighted_sum_into",
                                                       _weighted_sum_scaled))


def test_mutates_inputs_must_name_parameters():
    with pytest.raises(ValueError, match="mutates_inputs"):
        register(make(id="testing.bad_mutates", reference=sum_all, mutates_inputs=("y",)))


bs = torch.broadcast_shapes
ri = torch.Tensor.repeat_interleave


def broadcast_shape_alias(a, b):
    try:
        return tuple(bs(a, b))
    except RuntimeError:
        return None


def broadcast_shape_numpy(a, b):
    import numpy as np
    try:
        return tuple(np.broadcast(np.empty(a), np.empty(b)).shape)
    except ValueError:
        return None


def broadcast_shape_getattr(a, b):
    T = __import__("to" + "rch")
    try:
        return tuple(getattr(T, "broadcast_" + "shapes")(a, b))
    except RuntimeError:
        return None


def repeat_rows_alias(x, k):
    return ri(x, k, dim=0)


def repeat_rows_getattr(x, k):
    return getattr(x, "repeat_" + "interleave")(k, dim=0)


def repeat_rows_map(x, k):
    n, d = x.shape
    if n * k == 0:
        return x[:0].reshape(0, d)
    return torch.cat(list(map(lambda i: x[i // k][None], range(n * k))))


def _repeat_from(x, k, i):
    if i == x.shape[0]:
        return x[:0]
    return torch.cat([x[i:i + 1].expand(k, x.shape[1]), _repeat_from(x, k, i + 1)])


def repeat_rows_recursive(x, k):
    return _repeat_from(x, k, 0)


def repeat_rows_nested_recursion(x, k):
    def rows(i):
        return x[:0] if i == x.shape[0] else torch.cat([x[i:i + 1].expand(k, x.shape[1]), rows(i + 1)])
    return rows(0)


def source_grad_vjp(g, shape):
    from torch.func import vjp
    s = torch.zeros(shape, dtype=g.dtype)
    _, pull = vjp(lambda s: s.expand(g.shape), s)
    return pull(g)[0]


def source_grad_getattr(g, shape):
    s = torch.zeros(shape, dtype=g.dtype, requires_grad=True)
    getattr(s.expand(g.shape), "back" + "ward")(g)
    return s.grad


def source_grad_node(g, shape):
    s = torch.zeros(shape, dtype=g.dtype).requires_grad_()
    return s.expand(g.shape).grad_fn(g)


@pytest.mark.parametrize("exercise_id, fn, expected", [
    ("broadcasting.broadcast_shape", broadcast_shape_alias, "uses `bs`, which is `torch."),
    ("broadcasting.broadcast_shape", broadcast_shape_numpy, "imports `numpy`"),
    ("broadcasting.broadcast_shape", broadcast_shape_getattr, "uses `__import__`"),
    ("expand.repeat_rows", repeat_rows_alias, "ran `torch.Tensor.repeat_interleave`"),
    ("expand.repeat_rows", repeat_rows_getattr, "ran `torch.Tensor.repeat_interleave`"),
    ("expand.repeat_rows", repeat_rows_map, "uses `map`"),
    ("expand.repeat_rows", repeat_rows_recursive, "`_repeat_from` calls itself"),
    ("expand.repeat_rows", repeat_rows_nested_recursion, "`rows` calls itself"),
    ("expand.source_grad", source_grad_vjp, "do not use"),
    ("expand.source_grad", source_grad_getattr, "do not use"),
    ("expand.source_grad", source_grad_node, "do not use"),
])
def test_hidden_banned_calls_and_loops_fail(exercise_id, fn, expected):
    result = tl.check(exercise_id, fn)
    assert result.status == "fail" and expected in result.message, repr(result)
    assert "Traceback" not in repr(result)


def test_source_rules_resolve_aliases_and_refuse_lookups():
    ex = make(reference=lambda x: x * 2, rules=[rules.no_loops()], edge_cases=[torch.ones(2)])
    m = map

    def per_element(x):
        def double(v):
            return v * 2
        return x.clone().apply_(double)
    for fn, expected in [
        (lambda x: x * 2 + 0 * sum(m(int, [])), "uses `m`, which is `map`"),
        (lambda x: eval("x * 2"), "uses `eval`"),
        (lambda x: __builtins__["eval"]("x * 2") if isinstance(__builtins__, dict)
         else __builtins__.eval("x * 2"), "uses `__builtins__`"),
        (per_element, "`.apply_`"),
    ]:
        result = run_check_with(ex, fn)
        assert result.status == "fail" and expected in result.message, repr(result)
    import builtins
    import re

    def builtins_eval(x):
        return builtins.eval("x * 2")

    def method_named_like_a_builtin(x):
        # `.eval()` / `.compile()` on other objects are ordinary methods, not lookups
        assert re.compile("x").pattern == "x" and torch.nn.Identity().eval() is not None
        return x * 2
    assert "uses `builtins`" in run_check_with(ex, builtins_eval).message
    assert run_check_with(ex, method_named_like_a_builtin).passed
    watched = make(reference=lambda x: x * 2, rules=[rules.banned("mul")], edge_cases=[torch.ones(2)])
    result = run_check_with(watched, lambda x: x * 2)  # no `mul` in the source; Tensor.mul runs
    assert result.status == "fail" and "ran `torch.Tensor.mul`" in result.message


def test_book_code_is_refused():
    ex = EXERCISES["memory_layout.transpose_view"]
    for fn in (ex.solution, ex.reference):
        result = tl.check(ex.id, fn)
        assert result.status == "fail" and "book's own solution" in result.message
    from tensorlens.exercises.performance import _weighted_sum_solution
    assert "book's own solution" in tl.check("performance.weighted_sum_into",
                                             _weighted_sum_solution).message


def test_system_exit_is_the_students_error():
    import sys as system

    def quits(x):
        system.exit(1)
    result = run_check_with(make(reference=sum_all, edge_cases=[torch.ones(2)]), quits)
    assert result.status == "error" and result.message == "your function raised SystemExit: 1"


def test_allocation_rule_needs_a_parameter_name():
    with pytest.raises(ValueError, match="parameter name"):
        rules.allocates_nothing("out[0]")


def relu_backward_own_names(x, grad_output):
    func = lambda t: (t > 0).to(grad_output.dtype)  # noqa: E731 - a student's own variable
    backward = grad_output * func(x)
    return backward


def relu_backward_bound_to_banned(x, grad_output):
    func = torch.func  # what a student's own name is bound to is still checked
    return grad_output * (x > 0).to(grad_output.dtype) + 0 * len(dir(func))


def test_banned_names_are_not_the_students_own_variables():
    assert tl.check("autograd.relu_backward", relu_backward_own_names).passed
    result = tl.check("autograd.relu_backward", relu_backward_bound_to_banned)
    assert result.status == "fail" and "uses `.func`" in result.message, repr(result)


def scale_rows_numpy_reduce(x):
    # numpy's ufunc.reduce is vectorised, not functools.reduce
    import numpy

    lo = torch.from_numpy(numpy.minimum.reduce(x.numpy(), axis=1, keepdims=True))
    span = torch.from_numpy(numpy.maximum.reduce(x.numpy(), axis=1, keepdims=True)) - lo
    return (x - lo) / (span + (span == 0))


def scale_rows_local_functools(x):
    import functools as ft
    lo = x.amin(dim=1, keepdim=True)
    span = x.amax(dim=1, keepdim=True) - lo
    return ft.reduce(lambda a, b: a, [(x - lo) / (span + (span == 0))])


def scale_rows_from_functools(x):
    from functools import reduce
    lo = x.amin(dim=1, keepdim=True)
    span = x.amax(dim=1, keepdim=True) - lo
    return reduce(lambda a, b: a, [(x - lo) / (span + (span == 0))])


def scale_rows_local_itertools(x):
    import itertools
    lo = x.amin(dim=1, keepdim=True)
    span = x.amax(dim=1, keepdim=True) - lo
    return list(itertools.accumulate([(x - lo) / (span + (span == 0))]))[0]


def test_no_loops_tells_functools_reduce_from_vectorised_reduce():
    assert tl.check("basics.scale_rows", scale_rows_numpy_reduce).passed
    for fn, expected in [(scale_rows_local_functools, "`.reduce`"),
                         (scale_rows_from_functools, "imports `functools.reduce`"),
                         (scale_rows_local_itertools, "`.accumulate`")]:
        result = tl.check("basics.scale_rows", fn)
        assert result.status == "fail" and expected in result.message, repr(result)


def test_a_report_can_be_shown_without_its_hint():
    def attempt(x):
        return x
    result = tl.check("basics.scale_rows", attempt)
    bare = result.without_hint()
    assert result.hint and result.hint in repr(result) and result.hint in result._repr_html_()
    assert bare.hint == "" and "hint" not in repr(bare) and result.hint not in bare._repr_html_()
    assert (bare.status, bare.message, bare.details) == (result.status, result.message, result.details)
