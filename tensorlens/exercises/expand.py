"""Exercises for chapter 5, ``expand``, ``expand_as`` and ``repeat``.

The references spell results out element by element (loops, or autograd itself for the gradient
exercise); the rules ask for what the chapter teaches: a stride-0 view instead of a copy, stride-0
views as the inputs of ``cat`` (which does not broadcast), ``expand`` plus ``reshape`` instead of
``repeat_interleave`` (the chapter's silent bug: the same with the wrong order), and the gradient
of ``expand`` as a sum over the expanded dimensions worked out by hand.
"""

import math

import torch

from . import rules
from ._core import exercise
from .strategies import make_tensor, shapes, st, tensors

# ---------------------------------------------------------------- match_to


def _match_to_solution(w, x, dim):
    # expand adds the dims before `dim` itself; w needs a size-1 dim for each dim after it
    after = x.dim() - 1 - dim % x.dim()
    return w[(...,) + (None,) * after].expand_as(x)


@st.composite
def _values_batch_and_dim(draw):
    x = draw(tensors(shape=shapes(1, 4, 0, 3), dtypes=(torch.float32,)))
    dim = draw(st.integers(-x.dim(), x.dim() - 1))
    w = draw(tensors(shape=(x.shape[dim],), dtypes=(torch.float32, torch.int64)))
    return w, x, dim


def _match_to_per_sample(w, x, dim):
    # the per-sample answer: dims after the first, whatever `dim` says
    return w[(...,) + (None,) * (x.dim() - 1)].expand_as(x)


def _match_to_copied(w, x, dim):
    # the right values, copied out to x's full size
    d = dim % x.dim()
    column = w[(...,) + (None,) * (x.dim() - 1 - d)]
    return column.repeat(tuple(x.shape[:d]) + (1,) + tuple(x.shape[d + 1:]))


@exercise(
    "expand.match_to",
    title="Values along one dim, shaped like a batch",
    statement="Write `match_to(w, x, dim)`: `x` is a tensor of any shape, `dim` one of its "
              "dims (negative counts from the end), and `w` is 1-D with one value per position "
              "along that dim (length `x.shape[dim]`). Return a tensor shaped like `x` whose "
              "element at index `i` along `dim` is `w[i]`, wherever it sits in the other dims. "
              "It must be a view of `w` (stride 0, no copy) and keep `w`'s dtype.",
    inputs=_values_batch_and_dim(),
    edge_cases=[
        (torch.tensor([1., 2.]), torch.zeros(2, 3), 0),
        (torch.tensor([1, 2, 3]), torch.zeros(2, 3, 2, 2), 1),
        (torch.tensor([1., 2., 3.]), torch.zeros(2, 2, 2, 3), -1),
        (torch.tensor([5., 6.]), torch.zeros(3, 2, 2), -2),
        (torch.tensor([4.]), torch.zeros(1), -1),
        (torch.zeros(0), torch.zeros(2, 0, 3), 1),
        (make_tensor([1, 2, 3], (3,), torch.float32, "sliced"), torch.zeros(3, 3, 2), 1),
    ],
    hint="`expand` lines sizes up from the right and adds the missing dims on the left by "
         "itself, so `w` needs a size-1 dim only for each dim of `x` after `dim` (two for "
         "`dim=1` of a 4-D `x`: `w[:, None, None]`). Turn a negative `dim` into its position "
         "first (`dim % x.dim()`), then `expand_as(x)`.",
    rules=[rules.view_of("w"), rules.no_loops()],
    solution=_match_to_solution,
    wrong=[
        ("w.expand_as(x) read from the right", lambda w, x, dim: w.expand_as(x)),
        ("the per-sample answer: w along dim 0 whatever dim says", _match_to_per_sample),
        ("a negative dim used as a position",
         lambda w, x, dim: w[(...,) + (None,) * (x.dim() - 1 - dim)].expand_as(x)),
        ("a copy with repeat", _match_to_copied),
    ],
)
def match_to(w, x, dim):
    """out[..., i, ...] = w[i], with i the index along `dim` (a copy: the specification only)."""
    d = dim % x.dim()
    out = torch.empty(x.shape, dtype=w.dtype)
    for i in range(x.shape[d]):
        out.select(d, i).fill_(w[i])
    return out


# ---------------------------------------------------------------- pair_features


def _pair_features_solution(a, b):
    n, d = a.shape
    m, e = b.shape
    return torch.cat([a[:, None, :].expand(n, m, d), b[None, :, :].expand(n, m, e)], dim=2)


@st.composite
def _two_feature_sets(draw):
    dtype = draw(st.sampled_from((torch.float32, torch.int64)))
    n, m = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    d, e = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    a = draw(tensors(shape=(n, d), dtypes=(dtype,)))
    b = draw(tensors(shape=(m, e), dtypes=(dtype,)))
    return a, b


def _pair_features_swapped(a, b):
    # b's features first: right shape only when d == e, wrong values
    n, m = a.shape[0], b.shape[0]
    return torch.cat([b[None].expand(n, m, b.shape[1]), a[:, None].expand(n, m, a.shape[1])], dim=2)


@exercise(
    "expand.pair_features",
    title="Every pair of feature vectors, side by side",
    statement="Write `pair_features(a, b)` for `a` of shape `(n, d)` and `b` of shape `(m, e)` "
              "(same dtype): return the `(n, m, d + e)` tensor whose entry `[i, j]` is `a[i]` "
              "followed by `b[j]`. `torch.cat` does not broadcast, so give it full-size inputs "
              "as stride-0 views: no `repeat`, `repeat_interleave` or `tile`, no Python loops.",
    inputs=_two_feature_sets(),
    edge_cases=[
        (torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([[5.], [6.], [7.]])),
        (torch.tensor([[1, 2, 3]]), torch.tensor([[4, 5, 6]])),
        (torch.zeros(0, 2), torch.ones(3, 1)),
        (torch.ones(2, 0), torch.ones(2, 0)),
        (make_tensor([1, 2, 3, 4], (2, 2), torch.float32, "transposed"),
         torch.tensor([[9.], [8.]])),
    ],
    hint="Give `a` a size-1 dimension for `j` (`a[:, None, :]`, shape `(n, 1, d)`) and `b` one "
         "for `i` (`b[None]`, shape `(1, m, e)`), `expand` both to `(n, m, ...)` with their own "
         "last size, and `torch.cat` them along the last dimension.",
    rules=[rules.no_loops(),
           rules.banned("repeat", "repeat_interleave", "tile",
                        reason="give cat stride-0 views, not copies")],
    solution=_pair_features_solution,
    wrong=[
        ("b's features first", _pair_features_swapped),
    ],
)
def pair_features(a, b):
    """out[i, j] = cat(a[i], b[j]) (loops: the specification)."""
    n, d = a.shape
    m, e = b.shape
    out = torch.empty(n, m, d + e, dtype=a.dtype)
    for i in range(n):
        for j in range(m):
            out[i, j, :d] = a[i]
            out[i, j, d:] = b[j]
    return out


# ---------------------------------------------------------------- repeat_rows


def _repeat_rows_solution(x, k):
    n, d = x.shape
    return x[:, None, :].expand(n, k, d).reshape(n * k, d)


def _repeat_rows_silent_bug(x, k):
    # what the exercise shows: runs, right shape, right for one row, repeat's order otherwise
    n, d = x.shape
    return x[None].expand(k, n, d).reshape(k * n, d)


@st.composite
def _matrix_and_count(draw):
    x = draw(tensors(shape=shapes(2, 2, 0, 3), dtypes=(torch.float32, torch.int64, torch.bool)))
    return x, draw(st.integers(0, 3))


@exercise(
    "expand.repeat_rows",
    title="Find the silent bug: rows repeated in the wrong order",
    statement="Write `repeat_rows(x, k)` for a 2-D `x` of shape `(n, d)`: return the `(n * k, d)` "
              "tensor in which every row of `x` appears `k` times in a row (row 0, row 0, ..., "
              "row 1, row 1, ...), what `x.repeat_interleave(k, dim=0)` gives. Build it from a "
              "stride-0 view: no `repeat`, `repeat_interleave` or `tile`, no Python loops.",
    inputs=_matrix_and_count(),
    edge_cases=[
        (torch.tensor([[1., 2.], [3., 4.]]), 2),
        (torch.tensor([[1, 2, 3]]), 3),
        (torch.tensor([[5.], [6.]]), 1),
        (torch.tensor([[1., 2.]]), 0),
        (torch.zeros(0, 2), 2),
        (torch.zeros(2, 0), 3),
        (make_tensor([1, 2, 3, 4], (2, 2), torch.float32, "transposed"), 2),
    ],
    hint="Insert a dim of size 1 between the rows and the columns (`x[:, None, :]`, shape "
         "`(n, 1, d)`), `expand` it to `(n, k, d)` and `reshape` to `(n * k, d)`: the reshape is "
         "where the copy happens, once. Expanding `(1, n, d)` instead gives `x.repeat(k, 1)`'s "
         "order.",
    rules=[rules.no_loops(),
           rules.banned("repeat", "repeat_interleave", "tile",
                        reason="make the copies with a stride-0 view and one reshape")],
    solution=_repeat_rows_solution,
    wrong=[
        ("whole tensor k times (repeat's order)",
         lambda x, k: x[None].expand(k, *x.shape).reshape(k * x.shape[0], x.shape[1])),
        ("the silent bug of the exercises page", _repeat_rows_silent_bug),
    ],
)
def repeat_rows(x, k):
    """Row i of x lands at rows i*k ... i*k + k - 1 of the result (loops: the specification)."""
    n, d = x.shape
    out = torch.empty(n * k, d, dtype=x.dtype)
    for i in range(n):
        for r in range(k):
            out[i * k + r] = x[i]
    return out


# ---------------------------------------------------------------- source_grad


def _source_grad_solution(g, shape):
    lead = g.dim() - len(shape)
    if lead:
        g = g.sum(dim=tuple(range(lead)))         # new leading dims: summed away
    stretched = tuple(d for d, n in enumerate(shape) if n == 1)
    if stretched:
        g = g.sum(dim=stretched, keepdim=True)    # size-1 dims: summed, kept as size 1
    return g


def _forgets_leading_dims(g, shape):
    lead = g.dim() - len(shape)
    stretched = tuple(lead + d for d, n in enumerate(shape) if n == 1)
    return g.sum(dim=stretched, keepdim=True) if stretched else g


def _forgets_keepdim(g, shape):
    lead = g.dim() - len(shape)
    dims = tuple(range(lead)) + tuple(lead + d for d, n in enumerate(shape) if n == 1)
    return g.sum(dim=dims) if dims else g


@st.composite
def _grad_and_source_shape(draw):
    source = draw(shapes(0, 3, 1, 3))
    target = tuple(draw(st.integers(0, 3)) if n == 1 else n for n in source)
    lead = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    g = draw(tensors(shape=lead + target, dtypes=(torch.float32, torch.float64)))
    return g, source


@exercise(
    "expand.source_grad",
    title="The gradient through expand, by hand",
    statement="A tensor `s` of shape `shape` was expanded, `y = s.expand(g.shape)`, and `g` is the "
              "gradient of the loss with respect to `y`. Write `source_grad(g, shape)` that returns "
              "the gradient with respect to `s` (shape `shape`, `g`'s dtype) by hand: no autograd "
              "(`backward`, `torch.autograd`) and no `sum_to_size`.",
    inputs=_grad_and_source_shape(),
    edge_cases=[
        (torch.tensor([[1., 2., 3.], [4., 5., 6.]]), (2, 1)),
        (torch.tensor([[1., 2., 3.], [4., 5., 6.]]), (3,)),
        (torch.tensor([[1., 2., 3.], [4., 5., 6.]]), (1, 3)),
        (torch.tensor([[1., 2.], [3., 4.]]), (1, 1)),
        (torch.tensor([1., 2., 3.]), (1,)),
        (torch.tensor(5.), ()),
        (torch.ones(2, 0, 3), (1, 3)),
    ],
    hint="Each element of `s` was used once per position it was stretched to, so its gradient is "
         "the sum of `g` over those positions: sum over the new leading dims (they disappear), then "
         "over every dim where `shape` has a 1, with `keepdim=True`. Careful: `g.sum(dim=())` sums "
         "over everything.",
    rules=[rules.banned(*rules.AUTOGRAD_NAMES, "sum_to_size",
                        reason="work the sum out from the shapes")],
    solution=_source_grad_solution,
    wrong=[
        ("forgets the new leading dims", _forgets_leading_dims),
        ("forgets keepdim", _forgets_keepdim),
        ("mean instead of sum", lambda g, shape: _source_grad_solution(g, shape)
         / max(1, g.numel() // max(1, math.prod(shape)))),
    ],
)
def source_grad(g, shape):
    """What autograd computes: the gradient of (s.expand(g.shape) * g).sum() with respect to s."""
    s = torch.zeros(shape, dtype=g.dtype, requires_grad=True)
    s.expand(g.shape).backward(g)
    return s.grad

