"""Exercises for chapter 9, performance.

Each reference spells the result out plainly (a loop where that reads best); the rules ask for the
fast version: no Python loops, results written into a buffer the caller owns, strides worked out
by hand instead of asked from torch. ``running_totals`` is the chapter's "find the silent bug": a
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
    title="A moving average in one call",
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


# ---------------------------------------------------------------- add_into


def _add_into_solution(a, b, out):
    return torch.add(a, b, out=out)


def _assign_sum(a, b, out):
    out[...] = a + b
    return out


def _swap_data(a, b, out):
    out.data = a + b
    return out


def _overwrite_a(a, b, out):
    a.add_(b)
    return out.copy_(a)


@st.composite
def _two_operands_and_buffer(draw):
    dtype = draw(st.sampled_from((torch.float32, torch.int64)))
    a = draw(tensors(dtypes=(dtype,), max_dims=2))
    b = draw(tensors(dtypes=(dtype,), shape=tuple(a.shape)))
    out = draw(tensors(dtypes=(dtype,), shape=tuple(a.shape)))  # stale values, any layout
    return a, b, out


@exercise(
    "performance.add_into",
    title="Write into a preallocated buffer",
    statement="Write `add_into(a, b, out)` that stores `a + b` in the existing tensor `out` (same "
              "shape and dtype as `a` and `b`, any strides, stale values) and returns `out` "
              "itself, without allocating any tensor along the way (not even a temporary "
              "`a + b`) and without changing `a` or `b`.",
    inputs=_two_operands_and_buffer(),
    edge_cases=[
        (torch.tensor([1., 2.]), torch.tensor([10., 20.]), torch.zeros(2)),
        (torch.arange(6).reshape(2, 3), torch.ones(2, 3, dtype=torch.int64),
         make_tensor([9] * 6, (2, 3), torch.int64, "transposed")),
        (torch.zeros(0), torch.zeros(0), torch.zeros(0)),
    ],
    hint="Most torch functions take `out=`: `torch.add(a, b, out=out)`. `out.copy_(a + b)` also "
         "fills `out`, but it allocates `a + b` first.",
    rules=[rules.view_of("out"), rules.allocates_nothing("out")],
    solution=_add_into_solution,
    mutates_inputs=("out",),
    wrong=[("a new tensor a + b", lambda a, b, out: a + b),
           ("out.copy_(a + b): allocates a + b first", lambda a, b, out: out.copy_(a + b)),
           ("out[...] = a + b: allocates a + b first", _assign_sum),
           ("out.data = a + b: swaps out's storage", _swap_data),
           ("out.set_(a + b): swaps out's storage", lambda a, b, out: out.set_(a + b)),
           ("a.add_(b): overwrites the caller's a", _overwrite_a)],
)
def add_into(a, b, out):
    """Fill out with a + b and hand out back (the specification)."""
    out.copy_(a + b)
    return out


# ---------------------------------------------------------------- channels_last_strides


def _channels_last_strides_solution(shape):
    n, c, h, w = shape
    return (h * w * c, 1, w * c, c)


@exercise(
    "performance.channels_last_strides",
    title="Channels-last strides by hand",
    statement="Write `channels_last_strides(shape)` that returns, as a tuple of 4 ints, the "
              "strides (counted in elements) of a channels-last tensor with the 4-D "
              "`shape = (N, C, H, W)` (all sizes at least 1): the strides that "
              "`torch.empty(shape, memory_format=torch.channels_last)` has. Work them out from "
              "the shape; do not ask torch for a channels-last tensor.",
    inputs=st.tuples(st.tuples(*[st.integers(1, 6)] * 4)),
    edge_cases=[((2, 3, 4, 5),), ((1, 1, 1, 1),), ((1, 3, 1, 1),), ((2, 1, 4, 5),)],
    hint="In memory the order is N, H, W, C, with C varying fastest: C has stride 1, W steps over "
         "one pixel's C values, H over one row of W pixels, N over one image.",
    rules=[rules.banned("channels_last", "memory_format",
                        reason="the point is to work the strides out from the shape")],
    solution=_channels_last_strides_solution,
    wrong=[("the NCHW strides", lambda shape: (shape[1] * shape[2] * shape[3],
                                               shape[2] * shape[3], shape[3], 1)),
           ("H and W strides swapped", lambda shape: (shape[1] * shape[2] * shape[3], 1,
                                                      shape[1], shape[1] * shape[2]))],
)
def channels_last_strides(shape):
    """The strides torch gives a channels-last tensor of this shape (the specification)."""
    return tuple(torch.empty(shape, memory_format=torch.channels_last).stride())


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
