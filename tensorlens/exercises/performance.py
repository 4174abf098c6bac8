"""Exercises for chapter 9, performance.

Each reference spells the result out plainly (a loop where that reads best); the rules ask for the
fast version: no Python loops, results written into a buffer the caller owns, strides worked out
by hand instead of asked from torch. ``largest_allocation`` is measured: the profiler's own
numbers are the answer (per top-level call, callees included). ``running_totals`` is the chapter's "find the silent bug": a
reused buffer appended to a list, so every row is the last total.
"""

import torch

from . import rules
from ._core import exercise
from .strategies import make_tensor, st, tensors, vector_and_window

# ---------------------------------------------------------------- moving_average


def _moving_average_solution(x, k):
    return x.unfold(0, k, 1).mean(dim=1)


@exercise(
    "performance.moving_average",
    title="Vectorise a moving average",
    statement="Write `moving_average(x, k)` for a 1-D float tensor `x` and a window length "
              "`1 <= k <= len(x)`: it returns the `len(x) - k + 1` averages "
              "`out[i] == x[i:i + k].mean()`, with the dtype of `x`. No Python loops: the loop in "
              "the specification pays one torch call per window.",
    inputs=vector_and_window(dtypes=(torch.float32, torch.float64)),
    edge_cases=[
        (torch.arange(5.), 2),
        (torch.arange(4.), 4),
        (torch.tensor([3.]), 1),
        (torch.arange(6, dtype=torch.float64), 3),
        (make_tensor(list(range(6)), (6,), torch.float32, "sliced"), 2),
    ],
    hint="The windows are a view: `x.unfold(0, k, 1)` has one window per row (chapter 3). Then "
         "one `mean` over the last dim averages every window at once.",
    rules=[rules.no_loops()],
    solution=_moving_average_solution,
    wrong=[("the sum instead of the mean", lambda x, k: x.unfold(0, k, 1).sum(dim=1)),
           ("one window too few", lambda x, k: x.unfold(0, k, 1).mean(dim=1)[:-1])],
)
def moving_average(x, k):
    """out[i] = mean of x[i], ..., x[i + k - 1], one window at a time (the specification)."""
    out = torch.empty(x.shape[0] - k + 1, dtype=x.dtype)
    for i in range(out.shape[0]):
        out[i] = x[i:i + k].mean()
    return out


# ---------------------------------------------------------------- weighted_sum_into


def _weighted_sum_solution(tensors, weights, out):
    out.zero_()
    for t, w in zip(tensors, weights):
        out.addcmul_(t, w.view(-1, 1, 1))
    return out


def _scaled_temporaries(tensors, weights, out):
    out.zero_()
    for t, w in zip(tensors, weights):
        out += w.view(-1, 1, 1) * t
    return out


def _stale_start(tensors, weights, out):
    for t, w in zip(tensors, weights):
        out.addcmul_(t, w.view(-1, 1, 1))
    return out


def _weights_ignored(tensors, weights, out):
    out.zero_()
    for t in tensors:
        out.add_(t)
    return out


def _weights_on_the_last_dim(tensors, weights, out):
    out.zero_()
    for t, w in zip(tensors, weights):
        out.addcmul_(t, w)              # [C] lines up with W, not with C
    return out


def _summed_then_copied(tensors, weights, out):
    out.zero_()
    return out.copy_(sum((w.view(-1, 1, 1) * t for t, w in zip(tensors, weights)), out))


def _first_scaled_in_place(tensors, weights, out):
    out.zero_()
    if tensors:
        tensors[0].mul_(weights[0].view(-1, 1, 1))
        out.add_(tensors[0])
    for t, w in zip(tensors[1:], weights[1:]):
        out.addcmul_(t, w.view(-1, 1, 1))
    return out


@st.composite
def _tensors_weights_and_buffer(draw):
    dtype = draw(st.sampled_from((torch.float32, torch.int64)))
    out = draw(tensors(dtypes=(dtype,), min_dims=3, max_dims=3))  # stale values, any layout
    m = draw(st.integers(0, 4))
    terms = [draw(tensors(dtypes=(dtype,), shape=tuple(out.shape))) for _ in range(m)]
    weights = [draw(tensors(dtypes=(dtype,), shape=(out.shape[0],), low=-3, high=3))
               for _ in range(m)]
    return terms, weights, out


@exercise(
    "performance.weighted_sum_into",
    title="Accumulate into a preallocated buffer",
    statement="Write `weighted_sum_into(tensors, weights, out)` for a list `tensors` of "
              "`[C, H, W]` tensors of one shape and dtype, a list `weights` of as many `[C]` "
              "tensors of that dtype (one weight per channel), and an existing `[C, H, W]` "
              "tensor `out` of that dtype (any strides, stale values): store in every channel "
              "`c` of `out` the sum `weights[0][c] * tensors[0][c] + weights[1][c] * "
              "tensors[1][c] + ...` (zeros for an empty list) and return `out` itself, "
              "without allocating any tensor along the way (not even one product) and without "
              "changing the tensors or weights of the lists. A Python loop over the list is "
              "fine.",
    inputs=_tensors_weights_and_buffer(),
    edge_cases=[
        ([torch.ones(2, 1, 2), torch.arange(4.).reshape(2, 1, 2)],
         [torch.tensor([1., 2.]), torch.tensor([10., -1.])], torch.zeros(2, 1, 2)),
        ([torch.arange(12).reshape(2, 2, 3)], [torch.tensor([2, -3])],
         make_tensor([9] * 12, (2, 2, 3), torch.int64, "transposed")),
        ([], [], torch.full((1, 2, 2), 5.)),  # nothing to add: zeros, not the stale values
        ([torch.arange(6.).reshape(3, 1, 2)], [torch.zeros(3)], torch.full((3, 1, 2), 7.)),
        ([torch.ones(3, 2, 3, dtype=torch.int64)] * 2,
         [torch.tensor([1, 2, 3]), torch.tensor([0, 1, -1])],
         torch.full((3, 2, 3), -1, dtype=torch.int64)),
        ([torch.zeros(2, 0, 3)], [torch.tensor([4., 1.])], torch.zeros(2, 0, 3)),
    ],
    hint="Start from a clean buffer (`out.zero_()`: its values are stale), then add one term at "
         "a time in place. A `[C]` weight viewed as `[C, 1, 1]` broadcasts over `H` and `W` "
         "(chapter 4), and a view allocates nothing. `out += w * t` makes the product first; "
         "`addcmul_` multiplies two tensors and adds the product in place without making it.",
    rules=[rules.view_of("out"), rules.allocates_nothing("out")],
    solution=_weighted_sum_solution,
    mutates_inputs=("out",),
    wrong=[("a new tensor",
            lambda ts, ws, out: sum((w.view(-1, 1, 1) * t for t, w in zip(ts, ws)), out * 0)),
           ("out += w * t: allocates w * t first", _scaled_temporaries),
           ("the sum copied into out: allocates it first", _summed_then_copied),
           ("out not zeroed: its stale values kept", _stale_start),
           ("the weights left out", _weights_ignored),
           ("the weights broadcast along W instead of C", _weights_on_the_last_dim),
           ("tensors[0] scaled in place: changes the caller's tensor", _first_scaled_in_place)],
)
def weighted_sum_into(tensors, weights, out):
    """Fill out with the per-channel weighted sum and hand out back (the specification)."""
    total = torch.zeros_like(out)
    for t, w in zip(tensors, weights):
        for c in range(out.shape[0]):
            total[c] = total[c] + w[c] * t[c]
    out.copy_(total)
    return out


# ---------------------------------------------------------------- largest_allocation


def _top_level_calls(fn, args):
    """The profiler's events for the top-level ``aten::`` calls while ``fn(*args)`` runs once."""
    import warnings

    from ..measure import quiet_stderr
    with warnings.catch_warnings(), quiet_stderr():
        warnings.simplefilter("ignore")
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                    profile_memory=True) as prof:
            fn(*args)
    return [e for e in prof.events() if e.cpu_parent is None and e.name.startswith("aten::")]


def _largest_allocation_solution(fn, x):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                profile_memory=True) as prof:
        fn(x)
    calls = [e for e in prof.events() if e.cpu_parent is None and e.name.startswith("aten::")]
    top = max(calls, key=lambda e: e.cpu_memory_usage)
    return top.name, top.cpu_memory_usage


class _Step:
    """A small named function of one tensor, with a readable repr for the check's report."""

    def __init__(self, name, fn):
        self.name, self.fn = name, fn

    def __call__(self, x):
        return self.fn(x)

    def __repr__(self):
        return self.name


_STEPS = [
    _Step("lambda x: (x @ x.T).sum()", lambda x: (x @ x.T).sum()),
    _Step("lambda x: torch.cat([x, x, x]).mean()", lambda x: torch.cat([x, x, x]).mean()),
    _Step("lambda x: x.repeat(4, 1).sum()", lambda x: x.repeat(4, 1).sum()),
    _Step("lambda x: x.t().contiguous().sum()", lambda x: x.t().contiguous().sum()),
    _Step("lambda x: torch.outer(x[0], x[0]).sum()", lambda x: torch.outer(x[0], x[0]).sum()),
    _Step("lambda x: x.exp().sum(dim=0)", lambda x: x.exp().sum(dim=0)),
    # three calls of exp: added up by name they outweigh the one cat, each alone does not
    _Step("lambda x: torch.cat([x.exp(), x.exp()]).sum() + x.exp().sum()",
          lambda x: torch.cat([x.exp(), x.exp()]).sum() + x.exp().sum()),
]


@st.composite
def _step_and_input(draw):
    step = draw(st.sampled_from(_STEPS))
    rows, cols = draw(st.integers(2, 24)), draw(st.integers(2, 24))
    return step, torch.ones(rows, cols)


def _largest_by_name(fn, x, field):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                profile_memory=True) as prof:
        fn(x)
    events = [e for e in prof.key_averages() if e.key.startswith("aten::")]
    top = max(events, key=lambda e: getattr(e, field))
    return top.key, getattr(top, field)


@exercise(
    "performance.largest_allocation",
    title="Which operator allocates most?",
    statement="Write `largest_allocation(fn, x)` that runs `fn(x)` once under the profiler and "
              "returns a tuple `(name, nbytes)`: among the top-level calls while `fn(x)` runs "
              "(the `aten::` operators that no other operator called), the one call that, with "
              "everything it called, allocated the most CPU memory (the profiler's "
              "`cpu_memory_usage` of that call, which subtracts what was freed before it "
              "returned), and that number of bytes, as an int. `fn` is a small function of one "
              "float32 tensor in which that call is unique.",
    inputs=_step_and_input(),
    edge_cases=[(_STEPS[0], torch.ones(3, 2)), (_STEPS[2], torch.ones(2, 3)),
                (_STEPS[6], torch.ones(2, 2))],
    hint="`prof.events()` lists one event per call, callees included; a top-level call has "
         "`e.cpu_parent is None`, and its `cpu_memory_usage` includes its callees' bytes. "
         "`prof.key_averages()` adds up the calls of one name, and `self_cpu_memory_usage` "
         "leaves the callees out: both answer other questions.",
    rules=[],
    solution=_largest_allocation_solution,
    max_examples=3,
    wrong=[("the largest self allocation, by name",
            lambda fn, x: _largest_by_name(fn, x, "self_cpu_memory_usage")),
           ("calls added up by name (key_averages) instead of one call",
            lambda fn, x: _largest_by_name(fn, x, "cpu_memory_usage")),
           ("the last top-level call",
            lambda fn, x: (lambda calls: (calls[-1].name, calls[-1].cpu_memory_usage))(
                _top_level_calls(fn, (x,)))),
           ("the result's bytes, guessed",
            lambda fn, x: ("aten::empty", fn(x).nbytes))],
)
def largest_allocation(fn, x):
    """(name, bytes) of the top-level aten call whose subtree allocated most in fn(x)."""
    name, most = None, None
    for call in _top_level_calls(fn, (x,)):
        if most is None or call.cpu_memory_usage > most:
            name, most = call.name, call.cpu_memory_usage
    return name, int(most)


# ---------------------------------------------------------------- running_totals (silent bug)


def _running_totals_solution(x):
    return torch.cumsum(x, dim=0)


def _running_totals_shared_buffer(x):
    # the silent bug: every entry of rows is the same tensor, total, so all equal the last total
    total = torch.zeros(x.shape[1], dtype=x.dtype)
    rows = []
    for row in x:
        torch.add(total, row, out=total)
        rows.append(total)
    return torch.stack(rows)


@exercise(
    "performance.running_totals",
    title="Find the silent bug: running totals in a reused buffer",
    statement="`x` is a 2-D float tensor `[T, N]` (`T >= 1`): one row of `N` values per step. "
              "Write `running_totals(x)` that returns a `[T, N]` tensor whose row `t` is the sum "
              "of rows `0, ..., t` of `x`, with the dtype of `x`, without changing `x`. The "
              "version in the statement reuses one buffer through `out=` and appends it to a "
              "list; it runs, and every row comes out as the final total.",
    inputs=st.tuples(tensors(dtypes=(torch.float32, torch.float64), min_dims=2, max_dims=2,
                             min_side=1)),
    edge_cases=[
        (torch.tensor([[1., 2.], [3., 4.], [5., 6.]]),),
        (torch.tensor([[7.]]),),
        (torch.arange(6, dtype=torch.float64).reshape(3, 2),),
        (make_tensor(list(range(6)), (3, 2), torch.float32, "transposed"),),
    ],
    hint="`rows.append(total)` appends the same tensor every time; later writes through `out=` "
         "change all of them. Append a copy, or let one call accumulate along dim 0.",
    rules=[],
    solution=_running_totals_solution,
    wrong=[("the shared buffer: every row is the last total", _running_totals_shared_buffer),
           ("totals along dim 1 instead of dim 0", lambda x: torch.cumsum(x, dim=1)),
           ("the sum of all rows, repeated", lambda x: x.sum(dim=0).expand_as(x))],
)
def running_totals(x):
    """Row t is x[0] + ... + x[t] (the specification)."""
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    total = torch.zeros(x.shape[1], dtype=x.dtype)
    for t in range(x.shape[0]):
        total = total + x[t]
        out[t] = total
    return out
