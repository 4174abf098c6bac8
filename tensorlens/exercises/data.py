"""Exercises for chapter 12, from data to batches.

- ``data.image_batch``: images as they come from NumPy or PIL, ``(N, H, W, C)`` bytes, become the
  ``(N, C, H, W)`` float batch a convolution reads, scaled to ``[0, 1]`` and stored contiguously
  (chapter 3: ``permute`` is a view, and ``.float()`` keeps its strides).
- ``data.pad_images``: a collate step for images of different heights and widths: pad each to
  the largest size (top-left corner, zeros elsewhere) and return the sizes beside the batch.
- ``data.fill_rows`` (the silent bug): a preallocated fill whose start index is computed from
  the current batch's length, which is wrong only for a shorter last batch; no error, wrong rows.
"""

import torch

from . import rules
from ._core import exercise
from ._messages import say
from .strategies import make_tensor, shapes, st, tensors

# ---------------------------------------------------------------- image_batch


def _check_contiguous(call):
    result = call.result
    if not isinstance(result, torch.Tensor) or result.is_contiguous():
        return None
    return say("not_contiguous", strides=result.stride(), shape=tuple(result.shape))


_CONTIGUOUS = rules.Rule(
    "the result is contiguous (stored in (N, C, H, W) order)",
    check_call=_check_contiguous,
    wrong_variants=lambda solution, arg_names: [
        ("permuted, not contiguous", lambda images: images.permute(0, 3, 1, 2).float() / 255)],
)


def _image_batch_solution(images):
    return images.permute(0, 3, 1, 2).contiguous().float().div(255)


@exercise(
    "data.image_batch",
    title="Images to a contiguous channels-first batch",
    statement="`images` is a `uint8` tensor of shape `(N, H, W, C)`: N images stacked as NumPy "
              "and PIL give them, one byte per channel. Write `image_batch(images)` that returns "
              "the `float32` batch of shape `(N, C, H, W)` that a convolution reads, each byte "
              "divided by 255 so that the values lie in [0, 1], stored contiguously in that "
              "order (`is_contiguous()` is True), so that `view` works on it.",
    inputs=st.tuples(tensors(dtypes=(torch.uint8,), shape=shapes(4, 4, max_side=3), high=255,
                             layouts=("contiguous",))),
    edge_cases=[
        torch.zeros(0, 2, 2, 3, dtype=torch.uint8),
        torch.tensor([[[[0, 255, 51]]]], dtype=torch.uint8),
        torch.arange(24, dtype=torch.uint8).reshape(1, 2, 4, 3),
        torch.arange(36, dtype=torch.uint8).reshape(2, 3, 2, 3) * 7,
    ],
    hint="`permute(0, 3, 1, 2)` puts the channels second without copying; `reshape` to the "
         "same shape would mix the bytes up instead. `.float()` keeps the permuted strides, so "
         "the result is not contiguous until `.contiguous()` copies it into (N, C, H, W) order. "
         "Divide by 255 after converting: `uint8` arithmetic has no fractions.",
    rules=[_CONTIGUOUS],
    solution=_image_batch_solution,
    wrong=[("reshape instead of permute",
            lambda images: images.reshape(images.shape[0], images.shape[3], images.shape[1],
                                          images.shape[2]).float() / 255),
           ("not scaled", lambda images: images.permute(0, 3, 1, 2).contiguous().float())],
)
def image_batch(images):
    """out[n, c, h, w] = images[n, h, w, c] / 255 in float32 (the specification)."""
    n, h, w, c = images.shape
    out = torch.empty(n, c, h, w)
    for i in range(n):
        for ch in range(c):
            out[i, ch] = images[i, :, :, ch].to(torch.float32) / 255
    return out


# ---------------------------------------------------------------- pad_images


def _pad_solution(images):
    height = max(im.shape[1] for im in images)
    width = max(im.shape[2] for im in images)
    batch = images[0].new_zeros(len(images), images[0].shape[0], height, width)
    for i, im in enumerate(images):
        batch[i, :, :im.shape[1], :im.shape[2]] = im
    sizes = torch.tensor([[im.shape[1], im.shape[2]] for im in images], dtype=torch.int64)
    return batch, sizes


@st.composite
def _image_lists(draw):
    channels = draw(st.integers(1, 2))
    count = draw(st.integers(1, 4))
    images = []
    for _ in range(count):
        h, w = draw(st.integers(0, 3)), draw(st.integers(0, 3))
        values = draw(st.lists(st.integers(-9, 9), min_size=channels * h * w,
                               max_size=channels * h * w))
        images.append(make_tensor(values, (channels, h, w)))
    return (images,)


def _img(c, h, w, start=1.0):
    return torch.arange(start, start + c * h * w).reshape(c, h, w)


def _sizes_swapped(images):
    batch, sizes = _pad_solution(images)
    return batch, sizes.flip(1)


def _padded_centred(images):
    height = max(im.shape[1] for im in images)
    width = max(im.shape[2] for im in images)
    batch = images[0].new_zeros(len(images), images[0].shape[0], height, width)
    for i, im in enumerate(images):
        top, left = (height - im.shape[1]) // 2, (width - im.shape[2]) // 2
        batch[i, :, top:top + im.shape[1], left:left + im.shape[2]] = im
    return batch, _pad_solution(images)[1]


@exercise(
    "data.pad_images",
    title="A collate for images of different sizes",
    statement="`images` is a non-empty list of `float32` tensors of shape `(C, H_i, W_i)`, all "
              "with the same C: crops of different heights and widths, which the default "
              "collate cannot stack. Write `pad_images(images)` that returns a tuple "
              "`(batch, sizes)`. `batch` has shape `(N, C, H, W)`, where H and W are the largest "
              "height and width in the list; image i sits in its top-left corner, "
              "`batch[i, :, :H_i, :W_i]`, and every other element is 0. `sizes` is an `int64` "
              "tensor of shape `(N, 2)` whose row i is `(H_i, W_i)`.",
    inputs=_image_lists(),
    edge_cases=[
        ([_img(1, 2, 3)],),
        ([_img(1, 2, 3), _img(1, 3, 1, 10.0)],),
        ([_img(2, 1, 2), _img(2, 2, 2, 5.0), _img(2, 0, 1)],),
        ([torch.zeros(3, 0, 0), torch.zeros(3, 0, 2)],),
    ],
    hint="Find the largest height and width first, allocate the zeros once "
         "(`images[0].new_zeros(...)` keeps the dtype), then copy each image into "
         "`batch[i, :, :h, :w]`. `torch.nn.functional.pad(im, (0, W - w, 0, H - h))` pads one "
         "image on the right and at the bottom (the last dimension's pair comes first). "
         "`sizes` holds heights first.",
    solution=_pad_solution,
    wrong=[("sizes as (W, H)", _sizes_swapped), ("padded around the centre", _padded_centred)],
)
def pad_images(images):
    """Zero-padded batch, top-left aligned, and each image's (H, W) (the specification)."""
    n, c = len(images), images[0].shape[0]
    height = max(im.shape[1] for im in images)
    width = max(im.shape[2] for im in images)
    batch = torch.zeros(n, c, height, width, dtype=images[0].dtype)
    sizes = torch.zeros(n, 2, dtype=torch.int64)
    for i, im in enumerate(images):
        for ch in range(c):
            for y in range(im.shape[1]):
                for x in range(im.shape[2]):
                    batch[i, ch, y, x] = im[ch, y, x]
        sizes[i, 0], sizes[i, 1] = im.shape[1], im.shape[2]
    return batch, sizes


# ---------------------------------------------------------------- fill_rows

_JOINERS = ("cat", "concat", "concatenate", "stack", "vstack", "hstack", "row_stack")


def _fill_solution(batches):
    total = sum(len(b) for b in batches)
    out = torch.empty(total, batches[0].shape[1], dtype=batches[0].dtype)
    start = 0
    for b in batches:
        out[start:start + len(b)] = b
        start += len(b)
    return out


def _fill_with_the_bug(batches):
    out = torch.zeros(sum(len(b) for b in batches), batches[0].shape[1],
                      dtype=batches[0].dtype)
    for i, b in enumerate(batches):
        start = i * len(b)
        out[start:start + len(b)] = b
    return out


def _fill_float32(batches):
    out = torch.empty(sum(len(b) for b in batches), batches[0].shape[1])
    start = 0
    for b in batches:
        out[start:start + len(b)] = b
        start += len(b)
    return out


@st.composite
def _batch_lists(draw):
    dtype = draw(st.sampled_from((torch.float32, torch.int64)))
    columns = draw(st.integers(0, 3))
    size = draw(st.integers(1, 4))
    count = draw(st.integers(1, 4))
    lengths = [size] * (count - 1) + [draw(st.integers(0, size))]
    batches = []
    for n in lengths:
        values = draw(st.lists(st.integers(-9, 9), min_size=n * columns, max_size=n * columns))
        batches.append(make_tensor(values, (n, columns), dtype))
    return (batches,)


def _rows(n, columns, start, dtype=torch.float32):
    return torch.arange(start, start + n * columns, dtype=dtype).reshape(n, columns)


@exercise(
    "data.fill_rows",
    title="Find the silent bug: the short last batch",
    statement="`batches` is a non-empty list of 2-D tensors with the same number of columns and "
              "the same dtype; all have the same number of rows except possibly the last, which "
              "may have fewer (even none). Write `fill_rows(batches)` that returns all their rows "
              "in order, in one tensor of the batches' dtype, by preallocating the result and "
              "copying each batch into place, without `torch.cat` or `torch.stack`.",
    inputs=_batch_lists(),
    edge_cases=[
        ([_rows(2, 3, 1)],),
        ([_rows(4, 3, 1), _rows(4, 3, 13), _rows(2, 3, 25)],),
        ([_rows(3, 2, 1, torch.int64), _rows(1, 2, 7, torch.int64)],),
        ([_rows(2, 2, 1), _rows(0, 2, 5)],),
    ],
    hint="The start of batch i is the number of rows written before it: keep a running "
         "`start` and add each batch's own `len(b)`; `i * len(b)` uses the current batch's "
         "length, which is wrong for a shorter last batch. `torch.empty` takes a `dtype=`: "
         "without it, integer batches are silently converted to float32.",
    rules=[rules.banned(*_JOINERS, reason="the exercise is the preallocated fill")],
    solution=_fill_solution,
    wrong=[("the silent bug: start = i * len(b)", _fill_with_the_bug),
           ("a float32 result for integer batches", _fill_float32)],
)
def fill_rows(batches):
    """Every row of every batch, in order (the specification)."""
    rows = [row for b in batches for row in b]
    out = torch.empty(len(rows), batches[0].shape[1], dtype=batches[0].dtype)
    for i, row in enumerate(rows):
        out[i] = row
    return out
