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


# ---------------------------------------------------------------- average two uint8 images (silent bug)


@st.composite
def _image_pairs(draw):
    shape = draw(shapes(1, 3, 0, 4))
    layouts = ("contiguous", "transposed", "sliced")
    return tuple(draw(tensors(shape=shape, dtypes=(torch.uint8,), low=0, high=255, layouts=layouts))
                 for _ in range(2))


def _average_images_solution(a, b):
    return ((a.to(torch.int16) + b) // 2).to(torch.uint8)


@exercise(
    "basics.average_images",
    title="Find the silent bug: the average of two images",
    statement="`average_images(a, b)` should return the pixel-by-pixel average of two `uint8` "
              "images of the same shape, rounded down, as `uint8`: `out[i] == (a[i] + b[i]) // 2` "
              "computed with ordinary integers. The version `(a + b) // 2` runs on every input "
              "without an error, yet some pixels come out far too dark. Write a correct one, "
              "without Python loops.",
    inputs=_image_pairs(),
    edge_cases=[
        (torch.zeros(0, dtype=torch.uint8), torch.zeros(0, dtype=torch.uint8)),
        (torch.tensor([0, 10, 200, 255], dtype=torch.uint8),
         torch.tensor([0, 20, 100, 255], dtype=torch.uint8)),
        (make_tensor([250, 3, 128, 129, 7, 255], (2, 3), torch.uint8, "transposed"),
         make_tensor([10, 255, 128, 128, 0, 1], (2, 3), torch.uint8, "sliced")),
    ],
    hint="Arithmetic on `uint8` stays in `uint8`, modulo 256: 200 + 100 wraps around to 44 "
         "before `// 2` ever runs. Add in a wider integer dtype, then convert the average back "
         "with `.to(torch.uint8)`.",
    rules=[rules.no_loops()],
    solution=_average_images_solution,
    wrong=[("(a + b) // 2: the sum wraps around above 255", lambda a, b: (a + b) // 2),
           ("a float result", lambda a, b: (a.float() + b.float()) // 2)],
)
def average_images(a, b):
    """Pixel by pixel, with Python ints (which never wrap around)."""
    flat_a, flat_b = a.reshape(-1), b.reshape(-1)
    out = torch.empty(flat_a.shape, dtype=torch.uint8)
    for i in range(flat_a.numel()):
        out[i] = (int(flat_a[i]) + int(flat_b[i])) // 2
    return out.reshape(a.shape)
