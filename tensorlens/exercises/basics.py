"""Exercises for chapter 1, tensor basics: shape operations, reductions, products, attention.

Each reference is written with explicit loops so it reads as a specification; the rules say how
the learner's version must differ (a view, no loops, no library shortcut).
"""

import torch

from . import rules
from ._core import exercise
from .strategies import make_tensor, shapes, st, tensors

_FLOATS = (torch.float32, torch.float64)


# ---------------------------------------------------------------- centre the rows


def _center_rows_solution(x):
    return x - x.mean(dim=1, keepdim=True)


@exercise(
    "basics.center_rows",
    title="Centre each row",
    statement="Write `center_rows(x)` that subtracts from every row of the 2-D float tensor `x` "
              "the mean of that row (`out[i, j] == x[i, j] - x[i].mean()`), without Python loops.",
    inputs=st.tuples(tensors(shape=st.tuples(st.integers(0, 4), st.integers(1, 5)), dtypes=_FLOATS)),
    edge_cases=[
        torch.zeros(0, 3),
        torch.tensor([[5.0]]),
        torch.arange(9.0).reshape(3, 3),
        torch.arange(12.0).reshape(3, 4),
        make_tensor(list(range(6)), (2, 3), torch.float64, "transposed"),
    ],
    hint="`x.mean(dim=1)` has shape `(n,)`, which lines up with the columns, not the rows. "
         "`keepdim=True` keeps it as `(n, 1)`, which broadcasts along each row.",
    rules=[rules.no_loops()],
    solution=_center_rows_solution,
    wrong=[("mean without keepdim (silently wrong on square inputs)", lambda x: x - x.mean(dim=1)),
           ("column means", lambda x: x - x.mean(dim=0, keepdim=True))],
)
def center_rows(x):
    """Row by row: subtract the row's mean (a loop, to be read)."""
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    for i in range(x.shape[0]):
        row_mean = sum(x[i, j] for j in range(x.shape[1])) / x.shape[1]
        for j in range(x.shape[1]):
            out[i, j] = x[i, j] - row_mean
    return out


# ---------------------------------------------------------------- batched outer products


@st.composite
def _outer_inputs(draw):
    batch, n, m = draw(st.integers(0, 3)), draw(st.integers(0, 4)), draw(st.integers(0, 4))
    dtypes = (torch.float32, torch.int64)
    dtype = draw(st.sampled_from(dtypes))
    a = draw(tensors(shape=(batch, n), dtypes=(dtype,)))
    b = draw(tensors(shape=(batch, m), dtypes=(dtype,)))
    return a, b


def _batched_outer_solution(a, b):
    return a.unsqueeze(2) * b.unsqueeze(1)


@exercise(
    "basics.batched_outer",
    title="Batched outer products",
    statement="Write `batched_outer(a, b)` for `a` of shape `(B, n)` and `b` of shape `(B, m)` "
              "(same dtype) that returns `out` of shape `(B, n, m)` with "
              "`out[k, i, j] == a[k, i] * b[k, j]`, without Python loops.",
    inputs=_outer_inputs(),
    edge_cases=[
        (torch.tensor([[1.0, 2.0]]), torch.tensor([[3.0, 4.0, 5.0]])),
        (torch.arange(6).reshape(2, 3), torch.arange(6).reshape(2, 3)),
        (torch.zeros(0, 2), torch.zeros(0, 3)),
        (torch.zeros(2, 0), torch.ones(2, 3)),
    ],
    hint="Give `a` a size-1 dim at the end and `b` one in the middle, then multiply: broadcasting "
         "builds the grid. (`torch.bmm` of `(B, n, 1)` by `(B, 1, m)` works for floats too.)",
    rules=[rules.no_loops()],
    solution=_batched_outer_solution,
    wrong=[("operands swapped", lambda a, b: b.unsqueeze(2) * a.unsqueeze(1))],
)
def batched_outer(a, b):
    """out[k, i, j] = a[k, i] * b[k, j] (three loops, to be read)."""
    batch, n = a.shape
    m = b.shape[1]
    out = torch.empty(batch, n, m, dtype=a.dtype)
    for k in range(batch):
        for i in range(n):
            for j in range(m):
                out[k, i, j] = a[k, i] * b[k, j]
    return out


# ---------------------------------------------------------------- attention


@st.composite
def _attention_inputs(draw):
    batch = draw(shapes(0, 2, 1, 2))
    L, S, d, dv = (draw(st.integers(1, 4)) for _ in range(4))
    dtype = draw(st.sampled_from(_FLOATS))

    def part(*tail):
        return draw(tensors(shape=batch + tail, dtypes=(dtype,), low=-3, high=3))

    return part(L, d), part(S, d), part(S, dv)


def _attention_solution(query, key, value):
    scores = query @ key.transpose(-2, -1) / key.size(-1) ** 0.5
    return torch.softmax(scores, dim=-1) @ value


@exercise(
    "basics.attention",
    title="Scaled dot-product attention",
    statement="Write `attention(query, key, value)` for shapes `(..., L, d)`, `(..., S, d)` and "
              "`(..., S, dv)` (same leading dims) returning shape `(..., L, dv)`: the scores "
              "`query @ key^T` divided by `sqrt(d)`, a softmax over the keys, and the weighted sum "
              "of the values. Do not call `scaled_dot_product_attention`, and use no Python loops.",
    inputs=_attention_inputs(),
    edge_cases=[
        (torch.ones(1, 1), torch.ones(1, 1), torch.ones(1, 1)),
        (torch.arange(6.).reshape(2, 3), torch.arange(12.).reshape(4, 3) % 5,
         torch.arange(8.).reshape(4, 2)),
        (torch.ones(2, 1, 3), torch.zeros(2, 2, 3), torch.arange(8.).reshape(2, 2, 2)),
        (make_tensor(list(range(6)), (3, 2), torch.float32, "transposed"),
         make_tensor(list(range(8)), (4, 2), torch.float32, "sliced"), torch.eye(4)),
    ],
    hint="Only the last two dims take part: transpose them in `key` with `transpose(-2, -1)`, "
         "and take the softmax over `dim=-1` (the keys), not over the queries.",
    rules=[rules.no_loops(), rules.banned("scaled_dot_product_attention",
                                          reason="the point is to write it")],
    solution=_attention_solution,
    wrong=[("no 1/sqrt(d) scaling", lambda q, k, v: torch.softmax(q @ k.transpose(-2, -1), -1) @ v),
           ("softmax over the queries",
            lambda q, k, v: torch.softmax(q @ k.transpose(-2, -1) / k.size(-1) ** 0.5, -2) @ v)],
)
def attention(query, key, value):
    """For each query i: w = softmax over j of (q_i . k_j / sqrt(d)); out_i = sum_j w_j v_j."""
    *batch, L, d = query.shape
    S, dv = value.shape[-2:]
    q, k, v = query.reshape(-1, L, d), key.reshape(-1, S, d), value.reshape(-1, S, dv)
    out = torch.empty(q.shape[0], L, dv, dtype=query.dtype)
    for b in range(q.shape[0]):
        for i in range(L):
            scores = torch.stack([(q[b, i] * k[b, j]).sum() / d ** 0.5 for j in range(S)])
            weights = torch.exp(scores - scores.max())   # shifted for stability; same softmax
            weights = weights / weights.sum()
            out[b, i] = sum(weights[j] * v[b, j] for j in range(S))
    return out.reshape(*batch, L, dv)
