"""Exercises for chapter 4, broadcasting.

Each reference spells the result out element by element (loops, to be read as the
specification); the rules ask for the broadcasting version: no loops, and no copies of the
inputs made with ``repeat`` / ``tile``. The hand-written wrong solutions are the classic
broadcasting slips: a mask that lines up with the wrong dim, operands aligned the wrong way
round, and the rule applied from the left.
"""

import torch

from . import rules
from ._core import exercise
from .strategies import make_tensor, st, tensors

_NO_COPIES = rules.banned("repeat", "tile", "repeat_interleave",
                          reason="broadcasting needs no copies of the inputs")


# ---------------------------------------------------------------- outer_sum


def _outer_sum_solution(a, b):
    return a[:, None] + b


@st.composite
def _two_vectors(draw):
    dtype = draw(st.sampled_from((torch.float32, torch.int64)))
    a = draw(tensors(shape=st.tuples(st.integers(0, 5)), dtypes=(dtype,)))
    b = draw(tensors(shape=st.tuples(st.integers(0, 5)), dtypes=(dtype,)))
    return a, b


@exercise(
    "broadcasting.outer_sum",
    title="Every pair, added",
    statement="Write `outer_sum(a, b)` for 1-D tensors `a` (length n) and `b` (length m) that "
              "returns the `(n, m)` table `out[i, j] == a[i] + b[j]`. Use broadcasting: no Python "
              "loops, and no copies of `a` or `b` made with `repeat` or `tile`.",
    inputs=_two_vectors(),
    edge_cases=[
        (torch.tensor([1., 2., 3.]), torch.tensor([10., 20.])),
        (torch.tensor([1, 2]), torch.tensor([10, 20])),  # square: a transposed table still fits
        (torch.tensor([5.]), torch.tensor([1., 2., 3.])),
        (torch.zeros(0), torch.tensor([1., 2.])),
        (make_tensor([1, 2, 3], (3,), torch.float32, "sliced"), torch.tensor([0., 1.])),
    ],
    hint="Give `a` a second dim of size 1 (`a[:, None]`, shape `(n, 1)`): against `b` (shape "
         "`(m,)`, read as `(1, m)`) both size-1 dims stretch and the sum is `(n, m)`.",
    rules=[rules.no_loops(), _NO_COPIES],
    solution=_outer_sum_solution,
    wrong=[
        ("the table transposed: a + b[:, None]", lambda a, b: a + b[:, None]),
        ("element-wise a + b", lambda a, b: a + b),
    ],
)
def outer_sum(a, b):
    """out[i, j] = a[i] + b[j] for every pair (loops: the specification only)."""
    out = torch.empty(a.shape[0], b.shape[0], dtype=torch.result_type(a, b))
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            out[i, j] = a[i] + b[j]
    return out


# ---------------------------------------------------------------- zero_rows


def _zero_rows_solution(x, keep):
    return torch.where(keep[:, None], x, 0)


@st.composite
def _rows_and_mask(draw):
    x = draw(tensors(shape=st.tuples(st.integers(0, 4), st.integers(0, 4)),
                     dtypes=(torch.float32, torch.int64)))
    keep = draw(tensors(shape=(x.shape[0],), dtypes=(torch.bool,), layouts=("contiguous",)))
    return x, keep


@exercise(
    "broadcasting.zero_rows",
    title="Zero rows with a mask",
    statement="Write `zero_rows(x, keep)` for a 2-D tensor `x` of shape `(n, m)` and a bool "
              "tensor `keep` of shape `(n,)`: return a tensor like `x` where row `i` is left as "
              "it is when `keep[i]` is True and is all zeros otherwise. Do not modify `x`; no "
              "Python loops.",
    inputs=_rows_and_mask(),
    edge_cases=[
        (torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([True, False])),  # square: the trap
        (torch.tensor([[1, 2, 3], [4, 5, 6]]), torch.tensor([False, True])),
        (torch.tensor([[1.], [2.], [3.]]), torch.tensor([True, False, True])),
        (torch.zeros(0, 3), torch.zeros(0, dtype=torch.bool)),
        (make_tensor([1, 2, 3, 4, 5, 6], (3, 2), torch.float32, "transposed"),
         torch.tensor([False, True, True])),
    ],
    hint="`keep` has shape `(n,)`, which lines up with the *columns* of `x`. Make it a column, "
         "`keep[:, None]` of shape `(n, 1)`, and let `torch.where(keep[:, None], x, 0)` stretch "
         "it along each row.",
    rules=[rules.no_loops(), _NO_COPIES],
    solution=_zero_rows_solution,
    wrong=[("the mask applied to columns: where(keep, x, 0)",
            lambda x, keep: torch.where(keep, x, 0))],
)
def zero_rows(x, keep):
    """out[i, j] = x[i, j] if keep[i] else 0 (loops: the specification only)."""
    out = x.clone(memory_format=torch.contiguous_format)
    for i in range(x.shape[0]):
        if not keep[i]:
            for j in range(x.shape[1]):
                out[i, j] = 0
    return out


# ---------------------------------------------------------------- pairwise_sq_dists


def _pairwise_solution(x, y):
    return ((x[:, None, :] - y[None, :, :]) ** 2).sum(dim=-1)


@st.composite
def _two_point_sets(draw):
    dtype = draw(st.sampled_from((torch.float32, torch.float64)))
    n, m, d = draw(st.integers(0, 4)), draw(st.integers(0, 4)), draw(st.integers(0, 3))
    x = draw(tensors(shape=(n, d), dtypes=(dtype,), low=-5, high=5))
    y = draw(tensors(shape=(m, d), dtypes=(dtype,), low=-5, high=5))
    return x, y


@exercise(
    "broadcasting.pairwise_sq_dists",
    title="All squared distances at once",
    statement="Write `pairwise_sq_dists(x, y)` for point sets `x` of shape `(n, d)` and `y` of "
              "shape `(m, d)` that returns the `(n, m)` tensor `out[i, j] == ((x[i] - y[j]) ** "
              "2).sum()`. Broadcast the difference to shape `(n, m, d)`, then reduce; no Python "
              "loops.",
    inputs=_two_point_sets(),
    edge_cases=[
        (torch.tensor([[0., 0.], [1., 1.]]), torch.tensor([[1., 0.], [3., 4.]])),  # n == m
        (torch.tensor([[0., 0.], [1., 1.], [2., 0.]]), torch.tensor([[3., 4.]])),
        (torch.tensor([[1.], [2.]]), torch.tensor([[0.], [5.], [7.]])),
        (torch.zeros(2, 0), torch.zeros(3, 0)),
        (torch.zeros(0, 2), torch.tensor([[1., 2.]])),
    ],
    hint="`x[:, None, :]` has shape `(n, 1, d)` and `y[None, :, :]` has shape `(1, m, d)`: their "
         "difference is `(n, m, d)`. Square it and sum over the last dim.",
    rules=[rules.no_loops(), _NO_COPIES],
    solution=_pairwise_solution,
    wrong=[
        ("aligned the wrong way: shape (m, n)",
         lambda x, y: ((x[None, :, :] - y[:, None, :]) ** 2).sum(dim=-1)),
        ("row by row: x - y", lambda x, y: ((x - y) ** 2).sum(dim=-1)),
    ],
)
def pairwise_sq_dists(x, y):
    """out[i, j] = sum over k of (x[i, k] - y[j, k]) ** 2 (loops: the specification only)."""
    n, d = x.shape
    m = y.shape[0]
    out = torch.zeros(n, m, dtype=x.dtype)
    for i in range(n):
        for j in range(m):
            for k in range(d):
                out[i, j] += (x[i, k] - y[j, k]) ** 2
    return out


# ---------------------------------------------------------------- broadcast_shape


def _broadcast_shape_solution(a, b):
    ndim = max(len(a), len(b))
    a = (1,) * (ndim - len(a)) + tuple(a)
    b = (1,) * (ndim - len(b)) + tuple(b)
    result = []
    for p, q in zip(a, b):
        if p != q and p != 1 and q != 1:
            return None
        result.append(q if p == 1 else p)
    return tuple(result)


def _from_the_left(a, b):
    ndim = max(len(a), len(b))
    a = tuple(a) + (1,) * (ndim - len(a))
    b = tuple(b) + (1,) * (ndim - len(b))
    if any(p != q and 1 not in (p, q) for p, q in zip(a, b)):
        return None
    return tuple(max(p, q) if 0 not in (p, q) else 0 for p, q in zip(a, b))


def _largest_size(a, b):
    ndim = max(len(a), len(b))
    a = (1,) * (ndim - len(a)) + tuple(a)
    b = (1,) * (ndim - len(b)) + tuple(b)
    if any(p != q and 1 not in (p, q) for p, q in zip(a, b)):
        return None
    return tuple(max(p, q) for p, q in zip(a, b))


@st.composite
def _shape_pairs(draw):
    """Pairs that broadcast about half the time: sizes drawn around a shared target shape."""
    target = draw(st.lists(st.integers(0, 4), min_size=0, max_size=4))
    pair = []
    for _ in range(2):
        keep = draw(st.integers(0, len(target)))
        sizes = target[len(target) - keep:]
        pair.append(tuple(draw(st.sampled_from((n, 1, n, 2))) for n in sizes))
    return tuple(pair)


@exercise(
    "broadcasting.broadcast_shape",
    title="The rule, by hand",
    statement="Write `broadcast_shape(a, b)` that takes two shapes (tuples of ints) and returns "
              "the shape they broadcast to, as a tuple, or `None` when they cannot broadcast. "
              "Write the rule yourself: no torch.",
    inputs=_shape_pairs(),
    edge_cases=[
        ((), ()),
        ((3, 1), (1, 5)),
        ((3, 4), (4, 5)),
        ((2, 3), ()),
        ((4,), (3, 1)),
        ((1,), (0,)),
        ((0,), (2,)),
        ((5, 1, 3), (4, 1)),
    ],
    hint="Pad the shorter shape with 1s on the left, then compare dim by dim: equal sizes stay, "
         "a 1 takes the other size (even 0), anything else is a conflict.",
    rules=[rules.banned("torch", "numpy", "broadcast_shapes", "explain_broadcast",
                        reason="write the rule yourself")],
    solution=_broadcast_shape_solution,
    wrong=[("aligned from the left", _from_the_left),
           ("takes the larger size (1 against 0 gives 1)", _largest_size)],
)
def broadcast_shape(a, b):
    """The broadcast shape of a and b, or None (the rule, step by step, from the right)."""
    result = []
    for back in range(1, max(len(a), len(b)) + 1):
        p = a[-back] if back <= len(a) else 1
        q = b[-back] if back <= len(b) else 1
        if p == 1:
            result.insert(0, q)
        elif q == 1 or q == p:
            result.insert(0, p)
        else:
            return None
    return tuple(result)
