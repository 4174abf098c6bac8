"""Exercises for chapter 3, memory layout: storage, strides, views vs copies, memory order.

Each reference is written with explicit loops (or torch itself) so it reads as a specification;
the rules say how the learner's version must differ (a view, no loops, no shortcut).

The chapter's exercises page (``notebooks/03-6-exercises``) uses ``storage_position``,
``to_channels_last``, ``windows``, ``pixel_rows`` and ``can_view``. ``transpose_view``,
``as_column`` and ``sliding_windows`` were the second edition's; they stay registered because
the grading samples and tests use them as small, stable exercises, but no page asks for them
(each is one line away from a teaching page).
"""

import torch

from . import rules
from ._core import exercise
from ._messages import say
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


# ---------------------------------------------------------------- third edition


_LAYOUTS_4D = ("contiguous", "channels_last", "nhwc_permuted", "transposed", "sliced",
               "expanded", "cropped")


def _layout_4d(values, shape, dtype, layout):
    """A 4-D tensor with ``values`` (row-major) in one of several memory layouts."""
    dense = torch.tensor(values, dtype=torch.int64).reshape(shape).to(dtype)
    if layout == "channels_last":
        return dense.contiguous(memory_format=torch.channels_last)
    if layout == "nhwc_permuted":   # NHWC memory seen as NCHW: channels-last, built by hand
        return dense.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    if layout == "expanded":        # one pixel per (n, c), stretched over H and W
        n, c, h, w = shape
        return dense[:, :, :1, :1].expand(n, c, h, w)
    if layout == "cropped":         # channels-last memory with its first row cut off
        n, c, h, w = shape
        taller = torch.zeros(n, c, h + 1, w, dtype=dtype).contiguous(
            memory_format=torch.channels_last)
        return taller[:, :, 1:].copy_(dense)  # channels-last only when N == 1
    return make_tensor(values, shape, dtype, layout)


@st.composite
def _images(draw, min_side=1):
    shape = draw(st.tuples(*[st.integers(min_side, 3)] * 4))
    layout = draw(st.sampled_from(_LAYOUTS_4D))
    dtype = draw(st.sampled_from((torch.float32, torch.int64)))
    n = shape[0] * shape[1] * shape[2] * shape[3]
    values = draw(st.lists(st.integers(-9, 9), min_size=n, max_size=n))
    return _layout_4d(values, shape, dtype, layout)


def _cl(shape, layout="channels_last"):
    n = shape[0] * shape[1] * shape[2] * shape[3]
    return _layout_4d(list(range(n)), shape, torch.float32, layout)


def _shares(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _check_channels_last(call):
    (x,), out = call.args, call.result
    if not isinstance(out, torch.Tensor):
        return None  # the value comparison has already said what is wrong
    if not out.is_contiguous(memory_format=torch.channels_last):
        return say("not_channels_last", strides=out.stride(), shape=tuple(out.shape))
    if x.is_contiguous(memory_format=torch.channels_last) and not _shares(out, x):
        return say("channels_last_copied", n=out.untyped_storage().nbytes())
    return None


def _nhwc_copy(x):
    # a fresh (N, H, W, C) buffer seen as (N, C, H, W): channels-last, always a copy
    n, c, h, w = x.shape
    return torch.empty(n, h, w, c, dtype=x.dtype).permute(0, 3, 1, 2).copy_(x)


def _copy_unless_exact_strides(x):
    n, c, h, w = x.shape
    return x if x.stride() == (h * w * c, 1, w * c, c) else _nhwc_copy(x)


_CHANNELS_LAST = rules.Rule(
    "the result is channels-last in memory, and shares `x`'s storage when `x` already is",
    check_call=_check_channels_last,
    wrong_variants=lambda solution, arg_names: [("always a copy", _nhwc_copy),
                                                ("never a copy", lambda x: x)],
)


def _to_channels_last_solution(x):
    return x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)


@exercise(
    "memory_layout.to_channels_last",
    title="Channels-last, copying only when needed",
    statement="Write `to_channels_last(x)` for a 4-D tensor `x` (at least one element) that "
              "returns a tensor equal to `x`, with the same shape `(N, C, H, W)`, whose memory "
              "is channels-last (`is_contiguous(memory_format=torch.channels_last)` is `True`), "
              "without naming the memory format (`memory_format` and `channels_last` are not "
              "allowed). Copy only when you must: when `x` already is channels-last, the result "
              "shares its storage.",
    inputs=st.tuples(_images()),
    edge_cases=[
        _cl((1, 3, 2, 2)),
        _cl((1, 3, 2, 2), "contiguous"),
        _cl((1, 3, 2, 2), "nhwc_permuted"),
        _cl((2, 1, 2, 3), "contiguous"),
        _cl((2, 3, 1, 1), "contiguous"),
        _cl((1, 2, 2, 2), "sliced"),
        _cl((2, 3, 2, 2), "expanded"),
        _cl((1, 3, 2, 2), "cropped"),
        _cl((2, 3, 2, 2), "cropped"),
        _cl((1, 2, 3, 2), "transposed"),
    ],
    hint="A channels-last tensor permuted to (N, H, W, C) is contiguous. Go the other way: a "
         "contiguous (N, H, W, C) tensor permuted back to (N, C, H, W) is channels-last. "
         "`contiguous()` copies only when its input is not contiguous already, and a size-1 "
         "dim may have any stride, so do not compare the strides with fixed numbers.",
    rules=[rules.banned("memory_format", "channels_last", "channels_last_3d",
                        reason="build the layout yourself, from views of `x`"),
           _CHANNELS_LAST],
    solution=_to_channels_last_solution,
    wrong=[
        ("permuted to (N, H, W, C) and left there",
         lambda x: x.permute(0, 2, 3, 1).contiguous()),
        ("contiguous(): (N, C, H, W) memory", lambda x: x.contiguous()),
        ("always a copy into a fresh (N, H, W, C) buffer", _nhwc_copy),
        ("compares the strides without skipping size-1 dims", _copy_unless_exact_strides),
    ],
)
def to_channels_last(x):
    """torch's own answer: the specification (it names the memory format, which is banned)."""
    return x.contiguous(memory_format=torch.channels_last)


def _windows_by_hand_solution(x, size, step):
    count = (x.shape[0] - size) // step + 1
    return x.as_strided((count, size), (step * x.stride(0), x.stride(0)), x.storage_offset())


@st.composite
def _vector_size_step(draw):
    x = draw(tensors(shape=shapes(1, 1, 1, 9), dtypes=(torch.float32, torch.int64)))
    size = draw(st.integers(1, x.shape[0]))
    step = draw(st.integers(1, x.shape[0]))
    return x, size, step


@exercise(
    "memory_layout.windows",
    title="Windows by hand, checked against unfold",
    statement="Write `windows(x, size, step)` that returns the same windows as "
              "`x.unfold(0, size, step)` for a 1-D tensor `x` (`1 <= size <= len(x)`, "
              "`step >= 1`): row `i` holds `x[i*step : i*step + size]`. Build it with "
              "`as_strided`, as a view of `x`, for any layout of `x` (a slice with an offset "
              "and a stride included), without `unfold`.",
    inputs=_vector_size_step(),
    edge_cases=[
        (torch.arange(10.), 4, 2),
        (torch.arange(5.), 5, 1),
        (torch.arange(7.), 2, 3),
        (torch.arange(3), 1, 1),
        (torch.arange(6.), 2, 10),
        (make_tensor(list(range(6)), (6,), torch.float32, "sliced"), 3, 1),
        (make_tensor(list(range(7)), (7,), torch.int64, "sliced"), 2, 2),
    ],
    hint="`as_strided` takes storage positions, not positions in `x`: one step along `x` is "
         "`x.stride(0)` cells, a window starts `step * x.stride(0)` cells after the previous "
         "one, and the first one starts at `x.storage_offset()`. There are "
         "`(len(x) - size) // step + 1` windows.",
    rules=[rules.view_of("x"), rules.banned("unfold", reason="build the windows' strides yourself")],
    solution=_windows_by_hand_solution,
    wrong=[
        ("ignores the storage offset of `x`",
         lambda x, size, step: x.as_strided(((x.shape[0] - size) // step + 1, size),
                                            (step * x.stride(0), x.stride(0)), 0)),
        ("assumes `x` has stride 1",
         lambda x, size, step: x.as_strided(((x.shape[0] - size) // step + 1, size),
                                            (step, 1), x.storage_offset())),
        ("counts the windows as len(x) // step",
         lambda x, size, step: x.as_strided((max(x.shape[0] // step, 1), size),
                                            (step * x.stride(0), x.stride(0)),
                                            x.storage_offset())),
    ],
)
def windows(x, size, step):
    """Row i = x[i*step : i*step + size], copied window by window (the specification only)."""
    starts = range(0, x.shape[0] - size + 1, step)
    out = torch.empty(len(starts), size, dtype=x.dtype)
    for row, start in enumerate(starts):
        for j in range(size):
            out[row, j] = x[start + j]
    return out


def _can_view_solution(x, shape):
    if x.numel() == 0:
        return True   # no elements: any shape with 0 elements
    # chunks: runs of dims laid out back to back (size-1 dims never break a run)
    dims = [(n, s) for n, s in zip(x.shape, x.stride()) if n != 1]
    counts = []
    for d, (n, s) in enumerate(dims):
        if d > 0 and dims[d - 1][1] == s * n:
            counts[-1] *= n
        else:
            counts.append(n)
    sizes = [n for n in shape if n != 1]
    for count in counts:
        product = 1
        while product < count and sizes:
            product *= sizes.pop(0)
        if product != count:
            return False
    return not sizes


def _can_view_keeps_ones(x, shape):
    """A wrong variant: the rule with size-1 dims of ``x`` kept (they can break a chunk)."""
    if x.numel() == 0:
        return True
    counts = []
    for d, (n, s) in enumerate(zip(x.shape, x.stride())):
        if d > 0 and x.stride(d - 1) == s * n:
            counts[-1] *= n
        else:
            counts.append(n)
    sizes = [n for n in shape if n != 1]
    for count in (c for c in counts if c != 1):
        product = 1
        while product < count and sizes:
            product *= sizes.pop(0)
        if product != count:
            return False
    return not sizes


def _factorizations(n):
    """Shapes of up to 4 dims with n elements (size-1 dims included)."""
    if n == 0:
        return st.lists(st.integers(0, 4), min_size=1, max_size=3).map(lambda s: tuple(s) + (0,))
    divisors = [d for d in range(1, n + 1) if n % d == 0]

    @st.composite
    def build(draw):
        left, shape = n, []
        while left > 1 and len(shape) < 3:
            d = draw(st.sampled_from([d for d in divisors if left % d == 0]))
            shape.append(d)
            left //= d
        shape.append(left)
        if draw(st.booleans()):
            shape.insert(draw(st.integers(0, len(shape))), 1)
        return tuple(shape)
    return build()


_VIEW_LAYOUTS = ("contiguous", "transposed", "sliced", "permuted", "expanded", "column")


@st.composite
def _tensor_and_shape(draw):
    shape = draw(shapes(1, 3, 0, 4))
    layout = draw(st.sampled_from(_VIEW_LAYOUTS))
    n = 1
    for size in shape:
        n *= size
    values = list(range(n))
    if layout == "permuted" and len(shape) == 3:
        x = torch.tensor(values).reshape(shape[0], shape[2], shape[1]).permute(0, 2, 1)
    elif layout == "expanded":
        x = torch.tensor(values[:1] or [0]).reshape((1,) * len(shape)).expand(shape)
        if len(shape) >= 2 and shape[-1] > 0:
            x = torch.arange(shape[-1]).reshape((1,) * (len(shape) - 1) + (shape[-1],)).expand(
                shape)
    elif layout == "column" and len(shape) >= 2:
        wide = torch.zeros(shape[:-1] + (shape[-1] + 2,), dtype=torch.int64)
        x = wide[..., :shape[-1]]
    else:
        x = make_tensor(values, shape, torch.int64,
                        layout if layout in ("contiguous", "transposed", "sliced") else "sliced")
    return x, draw(_factorizations(x.numel()))


def _left4():
    return torch.arange(24).view(4, 6)[:, :4]


@exercise(
    "memory_layout.can_view",
    title="Will view work?",
    statement="Write `can_view(x, shape)` that returns `True` when `x.view(shape)` would work "
              "and `False` when it would raise, for a tensor `x` in any layout and a tuple "
              "`shape` of non-negative sizes with as many elements as `x`. Decide it from the "
              "sizes and strides of `x`, without calling `view`, `reshape` or their relatives.",
    inputs=_tensor_and_shape(),
    edge_cases=[
        (torch.arange(12).view(3, 4).t(), (12,)),
        (torch.arange(12).view(3, 4).t(), (2, 2, 3)),
        (_left4(), (4, 2, 2)),
        (_left4(), (2, 8)),
        (_left4(), (4, 1, 4)),
        (torch.arange(4).expand(3, 4), (3, 2, 2)),
        (torch.arange(4).expand(3, 4), (12,)),
        (torch.zeros(1, 1).expand(3, 4), (12,)),
        (torch.zeros(4, 1).t(), (2, 2)),
        (torch.arange(6).as_strided((2, 1, 3), (3, 7, 1)), (6,)),
        (torch.zeros(0, 3).t(), (0,)),
        (torch.zeros(4, 0, 6)[:, :, :3], (3, 0)),
    ],
    hint="Group the dims of `x` (size-1 dims aside) into chunks, runs where "
         "`stride[d] == stride[d + 1] * size[d + 1]`. Reading `shape` left to right (size-1 "
         "sizes aside), its sizes must multiply up to each chunk's element count in turn. And "
         "a tensor with no elements can be viewed as any shape with 0 elements.",
    rules=[rules.banned("view", "reshape", "view_as", "reshape_as", "flatten", "unflatten",
                        "View", "_reshape_alias",
                        reason="the exercise is the rule that `view` applies")],
    solution=_can_view_solution,
    wrong=[
        ("answers 'x is contiguous'", lambda x, shape: x.is_contiguous()),
        ("forgets tensors with no elements",
         lambda x, shape: x.numel() > 0 and _can_view_solution(x, shape)),
        ("lets size-1 dims of `x` break a chunk", _can_view_keeps_ones),
    ],
)
def can_view(x, shape):
    """torch's own answer (the specification: it calls `view`, which the rule bans)."""
    try:
        x.view(shape)
        return True
    except RuntimeError:
        return False
