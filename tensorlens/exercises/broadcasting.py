"""Exercises for chapter 4, broadcasting.

Each reference spells the result out element by element (loops, to be read as the
specification); the rules ask for the broadcasting version: no loops, and no copies of the
inputs made with ``repeat`` / ``tile``. The hand-written wrong solutions are the classic
broadcasting slips: a mask that lines up with the wrong dim, operands aligned the wrong way
round, two 1-D norms multiplied element by element (the silent bug of ``cosine_matrix``), and
the rule applied from the left. ``events_per_window`` counts with a bool table (a sum of bools is an int64 count), and
``batched_nearest_center`` needs a reduction's ``argmin`` from chapter 1 and the batch dim kept
aligned (the wrong version mixes the sets, and runs when ``n == B``). ``pairwise_l1`` adds a memory budget, watched while the function
runs: no tensor it makes may be larger than the biggest of its inputs and its result.
"""

import torch

from . import rules
from ._core import exercise
from ._messages import say
from .strategies import make_tensor, st, tensors

_NO_COPIES = rules.banned("repeat", "tile", "repeat_interleave",
                          reason="broadcasting needs no copies of the inputs")


# ---------------------------------------------------------------- events_per_window


def _events_solution(times, starts, ends):
    inside = (times[:, None] >= starts) & (times[:, None] < ends)
    return inside.sum(dim=0)


@st.composite
def _times_and_windows(draw):
    dtype = draw(st.sampled_from((torch.float32, torch.int64)))
    times = draw(tensors(shape=st.tuples(st.integers(0, 6)), dtypes=(dtype,), low=0, high=9))
    m = draw(st.integers(0, 4))
    starts = draw(tensors(shape=(m,), dtypes=(dtype,), low=0, high=8))
    widths = draw(tensors(shape=(m,), dtypes=(dtype,), low=0, high=5, layouts=("contiguous",)))
    return times, starts, starts + widths


@exercise(
    "broadcasting.events_per_window",
    title="Events per time window",
    statement="Write `events_per_window(times, starts, ends)` for a 1-D tensor `times` of `n` "
              "event times and 1-D tensors `starts` and `ends` of `m` windows (same dtype): "
              "return the `(m,)` int64 tensor whose entry `j` counts the events with "
              "`starts[j] <= t < ends[j]`. Windows may overlap or be empty; no Python loops, no "
              "copies made with `repeat` or `tile`.",
    inputs=_times_and_windows(),
    edge_cases=[
        (torch.tensor([1., 2., 5.]), torch.tensor([0., 2.]), torch.tensor([3., 6.])),
        (torch.tensor([1, 4]), torch.tensor([0, 4]), torch.tensor([4, 5])),  # n == m; t == end
        (torch.tensor([3., 3., 3., 7.]), torch.tensor([3.]), torch.tensor([3.])),  # empty window
        (torch.zeros(0), torch.tensor([0., 1.]), torch.tensor([2., 3.])),
        (torch.tensor([1., 2.]), torch.zeros(0), torch.zeros(0)),
        (make_tensor([0, 5, 6], (3,), torch.float32, "sliced"),
         torch.tensor([0., 1., 2.]), torch.tensor([2., 3., 9.])),
    ],
    hint="Compare every event with every window: `times` as a column `(n, 1)` against `starts` "
         "and `ends` (both `(m,)`) gives two `(n, m)` bool tables. Combine them with `&` and "
         "count the Trues of each window, i.e. down the events' dim.",
    rules=[rules.no_loops(), _NO_COPIES],
    solution=_events_solution,
    wrong=[
        ("counted per event instead of per window",
         lambda t, s, e: ((t[:, None] >= s) & (t[:, None] < e)).sum(dim=1)),
        ("the end included", lambda t, s, e: ((t[:, None] >= s) & (t[:, None] <= e)).sum(dim=0)),
        ("events paired with windows one to one",
         lambda t, s, e: ((t >= s) & (t < e)).long()),
    ],
)
def events_per_window(times, starts, ends):
    """out[j] = the number of t in times with starts[j] <= t < ends[j] (loops: the spec only)."""
    out = torch.zeros(starts.shape[0], dtype=torch.int64)
    for j in range(starts.shape[0]):
        for i in range(times.shape[0]):
            if starts[j] <= times[i] < ends[j]:
                out[j] += 1
    return out


# ---------------------------------------------------------------- batched_nearest_center


def _batched_nearest_solution(points, centers):
    diff = points[:, :, None, :] - centers[:, None, :, :]
    return (diff ** 2).sum(dim=-1).argmin(dim=-1)


@st.composite
def _point_sets_and_centers(draw):
    """Integer-valued points, so every distance is exact and ties go to the first centre."""
    dtype = draw(st.sampled_from((torch.int64, torch.float64)))
    b, n = draw(st.integers(0, 3)), draw(st.integers(0, 4))
    k, d = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    points = draw(tensors(shape=(b, n, d), dtypes=(dtype,), low=-5, high=5))
    centers = draw(tensors(shape=(b, k, d), dtypes=(dtype,), low=-5, high=5))
    return points, centers


def _batches_mixed(points, centers):
    """(B, n, 1, d) against (B, k, d): aligned from the right, it runs when n == B."""
    return ((points[:, :, None, :] - centers) ** 2).sum(dim=-1).argmin(dim=-1)


@exercise(
    "broadcasting.batched_nearest_center",
    title="The nearest centre, set by set",
    statement="Write `batched_nearest_center(points, centers)` for a batch of `B` point sets "
              "`points` of shape `(B, n, d)` and their centres `centers` of shape `(B, k, d)` "
              "with `k >= 1` (same dtype): return the `(B, n)` int64 tensor whose entry "
              "`[b, i]` is the index of the centre of set `b` closest to `points[b, i]` "
              "(Euclidean distance; on a tie, the lowest index). A point meets the centres of "
              "its own set only. No Python loops, no `torch.cdist`.",
    inputs=_point_sets_and_centers(),
    edge_cases=[
        (torch.tensor([[[0, 0], [9, 9], [4, 5]]]), torch.tensor([[[1, 1], [8, 8]]])),
        # n == B: the version that mixes the batches runs, and is wrong
        (torch.tensor([[[0., 0.], [5., 5.]], [[0., 0.], [5., 5.]]]),
         torch.tensor([[[0., 0.], [5., 5.]], [[5., 5.], [0., 0.]]])),
        (torch.tensor([[[2, 0]], [[0, 7]]]),
         torch.tensor([[[0, 0], [4, 0], [2, 5]], [[0, 9], [0, 5], [9, 9]]])),  # a tie: index 0
        (torch.zeros(0, 3, 2, dtype=torch.int64), torch.zeros(0, 1, 2, dtype=torch.int64)),
        (torch.zeros(2, 0, 2), torch.ones(2, 3, 2)),
        (make_tensor([1, 2, 3, 4, 5, 6, 7, 8], (2, 2, 2), torch.float64, "transposed"),
         torch.tensor([[[1., 1.], [5., 5.]], [[9., 9.], [6., 7.]]], dtype=torch.float64)),
    ],
    hint="Pair every point with every centre of its own set: keep the batch dim first in both, "
         "give `points` a size-1 dim for the centres and `centers` one for the points, so that "
         "`(B, n, 1, d)` meets `(B, 1, k, d)`. Sum the squares over the features and take the "
         "position of the minimum along the centres' dim. Without the size-1 dim in `centers`, "
         "`(B, k, d)` lines up from the right and the sets get mixed.",
    rules=[rules.no_loops(), _NO_COPIES,
           rules.banned("cdist", reason="compute the distances yourself")],
    solution=_batched_nearest_solution,
    wrong=[
        ("every point against the centres of every set (batches mixed)", _batches_mixed),
        ("the nearest point of every centre",
         lambda p, c: ((p[:, :, None] - c[:, None]) ** 2).sum(dim=-1).argmin(dim=1)),
        ("the farthest centre",
         lambda p, c: ((p[:, :, None] - c[:, None]) ** 2).sum(dim=-1).argmax(dim=-1)),
        ("the first set's centres for every set",
         lambda p, c: ((p[:, :, None] - c[:1, None]) ** 2).sum(dim=-1).argmin(dim=-1)),
    ],
)
def batched_nearest_center(points, centers):
    """out[b, i] = the index j minimising |points[b, i] - centers[b, j]|, the first on a tie
    (loops: the specification only)."""
    out = torch.zeros(points.shape[0], points.shape[1], dtype=torch.int64)
    for b in range(points.shape[0]):
        for i in range(points.shape[1]):
            best = None
            for j in range(centers.shape[1]):
                dist = ((points[b, i] - centers[b, j]) ** 2).sum()
                if best is None or dist < best:
                    best, out[b, i] = dist, j
    return out


# ---------------------------------------------------------------- cosine_matrix


def _cosine_solution(x, y):
    return (x @ y.T) / (x.norm(dim=1)[:, None] * y.norm(dim=1))


def _cosine_bug(x, y):
    """The silent bug the exercise shows: the two norm vectors multiplied element by element."""
    dots = x @ y.T
    return dots / (x.norm(dim=1) * y.norm(dim=1))


def _no_zero_rows(t):
    return t.shape[0] == 0 or bool((t.abs().sum(dim=1) > 0).all())


@st.composite
def _two_point_sets(draw):
    """Point sets of one dtype with d >= 1 and no zero row (a cosine needs a direction)."""
    dtype = draw(st.sampled_from((torch.float32, torch.float64)))
    n, m, d = draw(st.integers(0, 4)), draw(st.integers(0, 4)), draw(st.integers(1, 3))
    x = draw(tensors(shape=(n, d), dtypes=(dtype,), low=-5, high=5).filter(_no_zero_rows))
    y = draw(tensors(shape=(m, d), dtypes=(dtype,), low=-5, high=5).filter(_no_zero_rows))
    return x, y


@exercise(
    "broadcasting.cosine_matrix",
    title="Find the silent bug: cosine similarity of every pair",
    statement="Write `cosine_matrix(x, y)` for point sets `x` of shape `(n, d)` and `y` of shape "
              "`(m, d)` with no all-zero row: the `(n, m)` tensor `out[i, j] == x[i] @ y[j] / "
              "(x[i].norm() * y[j].norm())`. The version that divides `x @ y.T` by "
              "`x.norm(dim=1) * y.norm(dim=1)` runs whenever `n == m`, and is wrong.",
    inputs=_two_point_sets(),
    edge_cases=[
        (torch.tensor([[3., 4.], [1., 0.]]), torch.tensor([[3., 4.], [0., 2.]])),  # n == m: silent
        (torch.tensor([[1., 0.], [0., 1.], [1., 1.]]), torch.tensor([[2., 0.]])),
        (torch.tensor([[1., 2., 2.]]), torch.tensor([[2., 1., 2.], [0., 0., 3.]])),
        (torch.zeros(0, 2), torch.tensor([[1., 2.]])),
        (make_tensor([1, 2, 3, 4, 5, 6], (3, 2), torch.float64, "transposed"),
         torch.tensor([[1., 0.], [0., 1.], [1., 1.]], dtype=torch.float64)),
    ],
    hint="`x.norm(dim=1)` and `y.norm(dim=1)` are 1-D of lengths n and m: multiplied as they are "
         "they pair norm `i` with norm `i`. The denominator must pair every `|x[i]|` with every "
         "`|y[j]|`: make the first a column (`keepdim=True` or `[:, None]`).",
    rules=[rules.no_loops(), _NO_COPIES],
    solution=_cosine_solution,
    wrong=[
        ("the silent bug: norms multiplied element by element", _cosine_bug),
        ("the norms the wrong way round",
         lambda x, y: (x @ y.T) / (x.norm(dim=1) * y.norm(dim=1)[:, None])),
        ("only x normalised", lambda x, y: (x @ y.T) / x.norm(dim=1)[:, None]),
    ],
)
def cosine_matrix(x, y):
    """out[i, j] = x[i] . y[j] / (|x[i]| |y[j]|) (loops: the specification only)."""
    n, m = x.shape[0], y.shape[0]
    out = torch.zeros(n, m, dtype=x.dtype)
    for i in range(n):
        for j in range(m):
            out[i, j] = (x[i] * y[j]).sum() / (x[i].norm() * y[j].norm())
    return out


# ---------------------------------------------------------------- pairwise_l1


class _BigTensorWatch(rules.Watch):
    """Fails a call in which a torch function made a tensor with more new bytes than allowed."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit = limit

    def after(self, func, args, kwargs, result):
        inputs = {t.untyped_storage().data_ptr() for t in rules.tensors_in((args, kwargs))}
        for t in rules.tensors_in(result):
            storage = t.untyped_storage()
            if storage.nbytes() > self.limit and storage.data_ptr() not in inputs:
                name = rules.torch_name(func).removeprefix("torch.")
                return say("too_big", name=name, shape=tuple(t.shape), n=storage.nbytes(),
                           limit=self.limit)
        return None


def _size_budget(x, y) -> int:
    """Bytes of the biggest of x, y and the (n, m) result."""
    size = x.element_size()
    return max(x.numel() * size, y.numel() * size, x.shape[0] * y.shape[0] * size)


def _no_tensor_bigger_than_inputs_or_result() -> rules.Rule:
    def variants(solution, arg_names):
        return [("the (n, m, d) difference, then a sum",
                 lambda x, y: (x[:, None, :] - y[None, :, :]).abs().sum(dim=-1))]

    return rules.Rule("no tensor larger than the biggest of x, y and the (n, m) result",
                      watch=lambda args, arg_names: _BigTensorWatch(_size_budget(*args)),
                      wrong_variants=variants)


def _pairwise_l1_solution(x, y):
    out = torch.zeros(x.shape[0], y.shape[0], dtype=x.dtype)
    for k in range(x.shape[1]):
        out += (x[:, k, None] - y[:, k]).abs()
    return out


@st.composite
def _point_sets_any(draw):
    dtype = draw(st.sampled_from((torch.float32, torch.float64, torch.int64)))
    n, m, d = draw(st.integers(0, 5)), draw(st.integers(0, 5)), draw(st.integers(0, 4))
    x = draw(tensors(shape=(n, d), dtypes=(dtype,), low=-5, high=5))
    y = draw(tensors(shape=(m, d), dtypes=(dtype,), low=-5, high=5))
    return x, y


@exercise(
    "broadcasting.pairwise_l1",
    title="Pairwise L1 distances on a memory budget",
    statement="Write `pairwise_l1(x, y)` for point sets `x` of shape `(n, d)` and `y` of shape "
              "`(m, d)` (same dtype) returning the `(n, m)` tensor `out[i, j] == (x[i] - "
              "y[j]).abs().sum()`. No tensor your function makes may be larger than the biggest "
              "of `x`, `y` and the result, so the `(n, m, d)` difference is out; a Python loop "
              "over a small dim is allowed. No `torch.cdist`.",
    inputs=_point_sets_any(),
    edge_cases=[
        (torch.tensor([[0., 0.], [1., 1.], [2., 0.]]),
         torch.tensor([[1., 0.], [3., 4.], [0., 0.], [2., 2.]])),  # (3, 4, 2) would be too big
        (torch.tensor([[1, 5], [2, -1]]), torch.tensor([[0, 0], [4, 4]])),  # n == m
        (torch.tensor([[1.], [2.]]), torch.tensor([[0.], [5.], [7.]])),
        (torch.zeros(2, 0), torch.zeros(3, 0)),
        (torch.zeros(0, 2), torch.tensor([[1., 2.]])),
        (make_tensor(list(range(6)), (3, 2), torch.float32, "transposed"),
         torch.tensor([[1., 1.], [0., 3.]])),
    ],
    hint="Loop over the `d` features: feature `k` of every point of `x` as a column "
         "(`x[:, k, None]`, shape `(n, 1)`) against feature `k` of every point of `y` "
         "(`y[:, k]`, shape `(m,)`) is an `(n, m)` table. Add the tables' absolute values up.",
    rules=[_no_tensor_bigger_than_inputs_or_result(),
           rules.banned("cdist", "pairwise_distance", reason="compute the distances yourself")],
    solution=_pairwise_l1_solution,
    wrong=[
        ("squared distances instead of L1",
         lambda x, y: sum(((x[:, k, None] - y[:, k]) ** 2 for k in range(x.shape[1])),
                          torch.zeros(x.shape[0], y.shape[0], dtype=x.dtype))),
        ("aligned the wrong way: shape (m, n)",
         lambda x, y: _pairwise_l1_solution(y, x)),
        ("row by row: |x - y|", lambda x, y: (x - y).abs().sum(dim=-1)),
    ],
)
def pairwise_l1(x, y):
    """out[i, j] = sum over k of |x[i, k] - y[j, k]| (loops: the specification only)."""
    n, d = x.shape
    m = y.shape[0]
    out = torch.zeros(n, m, dtype=x.dtype)
    for i in range(n):
        for j in range(m):
            for k in range(d):
                out[i, j] += (x[i, k] - y[j, k]).abs()
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
