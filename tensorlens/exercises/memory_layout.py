"""Exercises for chapter 3, memory layout: storage, strides, views vs copies, memory order.

Each reference is written with explicit loops so it reads as a specification; the rules say how
the learner's version must differ (a view, no loops).
"""

import torch

from . import rules
from ._core import exercise
from .strategies import make_tensor, shapes, st, tensors, vector_and_window

_DTYPES = (torch.float32, torch.int64, torch.bool)


def _transpose_solution(x):
    return x.T


@exercise(
    "memory_layout.transpose_view",
    title="Transpose without copying",
    statement="Write `transpose_view(x)` that returns the transpose of the 2-D tensor `x` "
              "(`out[j, i] == x[i, j]`) as a view of `x`: no element may be copied.",
    inputs=st.tuples(tensors(shape=shapes(2, 2, 0, 4), dtypes=_DTYPES)),
    edge_cases=[
        torch.arange(6.).reshape(2, 3),
        torch.arange(3).reshape(1, 3),
        torch.zeros(0, 3),
        make_tensor(list(range(6)), (2, 3), torch.float32, "transposed"),
        make_tensor(list(range(6)), (3, 2), torch.int64, "sliced"),
    ],
    hint="A transpose only swaps the two strides: look at `x.T` or `x.transpose(0, 1)`.",
    rules=[rules.view_of("x"), rules.no_loops()],
    solution=_transpose_solution,
)
def transpose_view(x):
    """out[j, i] = x[i, j], element by element (this copies: it is only the specification)."""
    rows, cols = x.shape
    out = torch.empty(cols, rows, dtype=x.dtype)
    for i in range(rows):
        for j in range(cols):
            out[j, i] = x[i, j]
    return out


def _windows_solution(x, k):
    return x.unfold(0, k, 1)


@exercise(
    "memory_layout.sliding_windows",
    title="Sliding windows without copies",
    statement="Write `sliding_windows(x, k)` that returns every window of `k` consecutive elements "
              "of the 1-D tensor `x`, one per row: shape `(len(x) - k + 1, k)`, "
              "`out[i, j] == x[i + j]`. The result must be a view of `x` (windows overlap in "
              "memory, nothing is copied) and the function may not use Python loops.",
    inputs=vector_and_window(dtypes=(torch.float32, torch.int64)),
    edge_cases=[
        (torch.arange(5.), 2),
        (torch.arange(4.), 4),
        (torch.arange(3), 1),
        (torch.tensor([7.]), 1),
        (make_tensor(list(range(6)), (6,), torch.float32, "sliced"), 3),
    ],
    hint="A window starts one element after the previous one, so the row stride equals the "
         "element stride: `x.unfold(0, k, 1)`, or `torch.as_strided` with strides "
         "`(x.stride(0), x.stride(0))` and the storage offset of `x`.",
    rules=[rules.view_of("x"), rules.no_loops()],
    solution=_windows_solution,
)
def sliding_windows(x, k):
    """out[i, j] = x[i + j] for every window start i (a copy: the specification only)."""
    n = x.shape[0]
    out = torch.empty(n - k + 1, k, dtype=x.dtype)
    for i in range(n - k + 1):
        for j in range(k):
            out[i, j] = x[i + j]
    return out


def _column_solution(x):
    return x[:, None]


@exercise(
    "memory_layout.as_column",
    title="A column vector, for free",
    statement="Write `as_column(x)` that turns the 1-D tensor `x` of length `n` into a column of "
              "shape `(n, 1)`, so that `matrix - as_column(x)` subtracts `x[i]` from row `i`. "
              "It must be a view of `x`.",
    inputs=st.tuples(tensors(shape=shapes(1, 1, 0, 6), dtypes=_DTYPES)),
    edge_cases=[torch.arange(3.), torch.tensor([5]), torch.zeros(0),
                make_tensor([1, 2, 3], (3,), torch.float32, "sliced")],
    hint="Adding a dimension of size 1 only adds a stride: `x[:, None]`, `x.unsqueeze(1)` or "
         "`x.view(-1, 1)` (a view even of a strided slice: it only splits a dim). "
         "`x.reshape(n, 1)` never copies here either, but `x.repeat` and `torch.stack` do.",
    rules=[rules.view_of("x")],
    solution=_column_solution,
)
def as_column(x):
    """out[i, 0] = x[i] (a copy: the specification only)."""
    out = torch.empty(x.shape[0], 1, dtype=x.dtype)
    for i in range(x.shape[0]):
        out[i, 0] = x[i]
    return out


def _offset_solution(x, index):
    return x.storage_offset() + sum(
        (i % size) * stride for i, size, stride in zip(index, x.shape, x.stride()))


@st.composite
def _tensor_and_index(draw):
    x = draw(tensors(shape=shapes(1, 3, 1, 4), dtypes=(torch.float32, torch.int16)))
    index = tuple(draw(st.integers(-size, size - 1)) for size in x.shape)
    return x, index


@exercise(
    "memory_layout.storage_position",
    title="Where does an element live?",
    statement="Write `storage_position(x, index)` that returns, as a Python `int`, the position in "
              "`x`'s storage of the element `x[index]` (`index` is a tuple with one int per "
              "dimension; negative indices count from the end, as in Python), computed from the "
              "storage offset and the strides of `x`.",
    inputs=_tensor_and_index(),
    edge_cases=[
        (torch.arange(6.).reshape(2, 3), (1, 2)),
        (torch.arange(6.).reshape(2, 3), (-1, 0)),
        (torch.arange(6.).reshape(2, 3).T, (2, 1)),
        (torch.arange(10)[3:], (0,)),
        (make_tensor(list(range(6)), (2, 3), torch.float32, "sliced"), (1, -1)),
    ],
    hint="Position = `x.storage_offset()` + sum of `index[d] * x.stride(d)`; turn a negative index "
         "into a positive one first (`i % x.shape[d]`).",
    rules=[rules.banned("data_ptr", "untyped_storage", "storage",
                        reason="compute it from the strides and the offset of `x`")],
    solution=_offset_solution,
    wrong=[
        ("forgets the storage offset",
         lambda x, index: sum((i % n) * s for i, n, s in zip(index, x.shape, x.stride()))),
        ("assumes a contiguous layout",
         lambda x, index: x.storage_offset() + sum(
             (i % n) * s for i, n, s in zip(index, x.shape, x.contiguous().stride()))),
        ("ignores negative indices",
         lambda x, index: x.storage_offset() + sum(i * s for i, s in zip(index, x.stride()))),
    ],
)
def storage_position(x, index):
    """The storage position of x[index], dimension by dimension."""
    position = x.storage_offset()
    for d in range(x.dim()):
        i = index[d]
        if i < 0:
            i += x.shape[d]
        position += i * x.stride(d)
    return position


def _pixel_rows_solution(images):
    n, c, h, w = images.shape
    return images.permute(0, 2, 3, 1).reshape(n, h * w, c)


def _pixel_rows_bug(images):
    """The silent bug of the exercise: reshape keeps the memory order, so channels stay first."""
    n, c, h, w = images.shape
    return images.reshape(n, h * w, c)


@exercise(
    "memory_layout.pixel_rows",
    title="Find the silent bug: one row per pixel",
    statement="Write `pixel_rows(images)` that turns a batch of shape `(N, C, H, W)` into one row "
              "per pixel: shape `(N, H*W, C)` with `out[n, h*W + w, c] == images[n, c, h, w]` "
              "(pixels in row-major order). `images.reshape(n, h * w, c)` has the right shape "
              "and the wrong values. Any input layout must work, and no Python loops.",
    inputs=st.tuples(tensors(shape=shapes(4, 4, 0, 3), dtypes=(torch.float32, torch.int64))),
    edge_cases=[
        torch.arange(12.).reshape(1, 3, 2, 2),
        torch.arange(12.).reshape(1, 3, 2, 2).contiguous(memory_format=torch.channels_last),
        torch.arange(12).reshape(1, 2, 2, 3),
        torch.zeros(0, 3, 2, 2),
        make_tensor(list(range(12)), (1, 2, 3, 2), torch.float32, "transposed"),
    ],
    hint="`reshape` never moves a value: it reads the elements in their current (row-major) "
         "order, where all of channel 0 comes first. Move the channel dim last with "
         "`permute(0, 2, 3, 1)` first, then merge H and W.",
    rules=[rules.no_loops()],
    solution=_pixel_rows_solution,
    wrong=[
        ("reshapes without moving the channels (the bug in the statement)", _pixel_rows_bug),
        ("views the channels-last memory instead of moving the channels",
         lambda images: images.contiguous(memory_format=torch.channels_last).reshape(
             images.shape[0], images.shape[2] * images.shape[3], images.shape[1])),
        ("puts pixels in column-major order (transpose(1, 3) swaps H and W too)",
         lambda images: images.transpose(1, 3).reshape(
             images.shape[0], images.shape[2] * images.shape[3], images.shape[1])),
    ],
)
def pixel_rows(images):
    """out[n, h*W + w, c] = images[n, c, h, w], element by element (the specification only)."""
    n, c, h, w = images.shape
    out = torch.empty(n, h * w, c, dtype=images.dtype)
    for i in range(n):
        for y in range(h):
            for x in range(w):
                for k in range(c):
                    out[i, y * w + x, k] = images[i, k, y, x]
    return out
