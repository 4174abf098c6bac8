"""Exercises for chapter 1, tensor basics: reductions, joining, dtypes and shape operations.

Each reference is written with explicit loops so it reads as a specification; the rules say how
the learner's version must differ (a view, no loops, no library shortcut).
"""

import torch

from . import rules
from ._core import exercise
from .strategies import make_tensor, shapes, st, tensors

_FLOATS = (torch.float32, torch.float64)


# ---------------------------------------------------------------- scale each row to [0, 1]


def _scale_rows_solution(x):
    lo = x.amin(dim=1, keepdim=True)
    span = x.amax(dim=1, keepdim=True) - lo
    return (x - lo) / (span + (span == 0))


@exercise(
    "basics.scale_rows",
    title="Scale each row to [0, 1]",
    statement="Write `scale_rows(x)` for a 2-D float tensor `x` that rescales every row on its "
              "own so that its smallest value becomes 0 and its largest 1: "
              "`out[i, j] == (x[i, j] - lo) / (hi - lo)` with `lo` and `hi` the smallest and "
              "largest values of row `i`. A row whose values are all equal becomes all zeros. "
              "No Python loops.",
    inputs=st.tuples(tensors(shape=st.tuples(st.integers(0, 4), st.integers(1, 5)), dtypes=_FLOATS)),
    edge_cases=[
        torch.zeros(0, 3),
        torch.tensor([[5.0]]),
        torch.tensor([[1.0, 3.0, 2.0], [4.0, 4.0, 4.0]]),
        torch.arange(9.0).reshape(3, 3).flip(1),
        torch.arange(12.0).reshape(3, 4),
        make_tensor([3, 0, 1, 5, 2, 2], (2, 3), torch.float64, "transposed"),
    ],
    hint="`x.max(dim=1)` gives values and positions; `amax(dim=1, keepdim=True)` gives only the "
         "values, as an `(n, 1)` column that lines up with the rows. A constant row has "
         "`hi - lo == 0`, and 0 / 0 is `nan`: divide by 1 there instead (a `bool` tensor added "
         "to a float one counts as 0 or 1).",
    rules=[rules.no_loops()],
    solution=_scale_rows_solution,
    wrong=[("min and max without keepdim (silently wrong on square inputs)",
            lambda x: (x - x.amin(dim=1)) / (x.amax(dim=1) - x.amin(dim=1)).clamp(min=1e-30)),
           ("min and max of the whole tensor",
            lambda x: (x - x.min()) / (x.max() - x.min()).clamp(min=1e-30)
            if x.numel() else x.clone()),
           ("constant rows give nan",
            lambda x: (x - x.amin(dim=1, keepdim=True))
            / (x.amax(dim=1, keepdim=True) - x.amin(dim=1, keepdim=True)))],
)
def scale_rows(x):
    """Row by row: find the row's smallest and largest value, then rescale (loops, to be read)."""
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    for i in range(x.shape[0]):
        lo = min(x[i, j] for j in range(x.shape[1]))
        hi = max(x[i, j] for j in range(x.shape[1]))
        for j in range(x.shape[1]):
            out[i, j] = (x[i, j] - lo) / (hi - lo) if hi > lo else 0.0
    return out


# ---------------------------------------------------------------- interleave two batches


@st.composite
def _interleave_inputs(draw):
    shape = draw(shapes(1, 3, 0, 4))
    dtype = draw(st.sampled_from((torch.float32, torch.int64)))
    return tuple(draw(tensors(shape=shape, dtypes=(dtype,))) for _ in range(2))


def _interleave_solution(a, b):
    return torch.stack((a, b), dim=1).flatten(0, 1)


@exercise(
    "basics.interleave",
    title="Interleave two batches",
    statement="Write `interleave(a, b)` for two tensors of the same shape `(n, ...)` and dtype "
              "that returns the `2n` items in the order `a[0], b[0], a[1], b[1], ...`: a tensor "
              "of shape `(2n, ...)` with `out[2 * i] == a[i]` and `out[2 * i + 1] == b[i]`, "
              "without Python loops.",
    inputs=_interleave_inputs(),
    edge_cases=[
        (torch.zeros(0), torch.zeros(0)),
        (torch.tensor([1, 2, 3]), torch.tensor([10, 20, 30])),
        (torch.arange(6.0).reshape(3, 2), -torch.arange(6.0).reshape(3, 2)),
        (make_tensor(list(range(6)), (2, 3), torch.int64, "transposed"),
         make_tensor(list(range(6, 12)), (2, 3), torch.int64, "sliced")),
    ],
    hint="`torch.cat` puts all of `b` after all of `a`. Put each pair `a[i], b[i]` side by "
         "side in a new dim first (`torch.stack` with `dim=1`), then merge that dim with the "
         "first one.",
    rules=[rules.no_loops()],
    solution=_interleave_solution,
    wrong=[("cat: all of a, then all of b", lambda a, b: torch.cat((a, b))),
           ("stack on dim 0, then merge", lambda a, b: torch.stack((a, b)).flatten(0, 1)),
           ("b first", lambda a, b: torch.stack((b, a), dim=1).flatten(0, 1))],
)
def interleave(a, b):
    """Item by item: a[0], b[0], a[1], b[1], ... (a loop, to be read)."""
    items = []
    for i in range(a.shape[0]):
        items.append(a[i])
        items.append(b[i])
    if not items:
        return torch.empty((0,) + tuple(a.shape[1:]), dtype=a.dtype)
    return torch.stack(items)


# ---------------------------------------------------------------- distance of two uint8 images (silent bug)


@st.composite
def _image_pairs(draw):
    shape = draw(shapes(1, 3, 0, 4))
    layouts = ("contiguous", "transposed", "sliced")
    return tuple(draw(tensors(shape=shape, dtypes=(torch.uint8,), low=0, high=255, layouts=layouts))
                 for _ in range(2))


def _image_difference_solution(a, b):
    return (a.to(torch.int16) - b).abs().to(torch.uint8)


@exercise(
    "basics.image_difference",
    title="Find the silent bug: the difference of two images",
    statement="`image_difference(a, b)` should return the pixel-by-pixel distance between two "
              "`uint8` images of the same shape, as `uint8`: `out[i] == abs(a[i] - b[i])` "
              "computed with ordinary integers. The version `(a - b).abs()` runs on every input "
              "without an error and returns the right shape and dtype, yet some pixels that "
              "barely changed come out close to 255. Write a correct one, without Python loops.",
    inputs=_image_pairs(),
    edge_cases=[
        (torch.zeros(0, dtype=torch.uint8), torch.zeros(0, dtype=torch.uint8)),
        (torch.tensor([10, 200, 0, 255], dtype=torch.uint8),
         torch.tensor([20, 100, 255, 0], dtype=torch.uint8)),
        (make_tensor([250, 3, 128, 129, 7, 255], (2, 3), torch.uint8, "transposed"),
         make_tensor([10, 255, 128, 128, 0, 1], (2, 3), torch.uint8, "sliced")),
    ],
    hint="`uint8` arithmetic stays in `uint8`, modulo 256, below 0 as above 255: 10 - 20 is "
         "246. `.abs()` cannot undo that, since a `uint8` value is never negative. Either "
         "subtract the smaller value from the larger (`torch.maximum`, `torch.minimum`), or "
         "subtract in a signed dtype that holds -255 and convert back with `.to(torch.uint8)`.",
    rules=[rules.no_loops()],
    solution=_image_difference_solution,
    wrong=[("(a - b).abs(): the difference wraps around below 0", lambda a, b: (a - b).abs()),
           ("the smaller of a - b and b - a (wrong for distances above 128)",
            lambda a, b: torch.minimum(a - b, b - a)),
           ("int8 first: 200 wraps around to -56",
            lambda a, b: (a.to(torch.int8) - b.to(torch.int8)).abs().to(torch.uint8)),
           ("an int16 result", lambda a, b: (a.to(torch.int16) - b).abs())],
)
def image_difference(a, b):
    """Pixel by pixel, with Python ints (which never wrap around)."""
    flat_a, flat_b = a.reshape(-1), b.reshape(-1)
    out = torch.empty(flat_a.shape, dtype=torch.uint8)
    for i in range(flat_a.numel()):
        out[i] = abs(int(flat_a[i]) - int(flat_b[i]))
    return out.reshape(a.shape)


# ---------------------------------------------------------------- cut an image into tiles


@st.composite
def _tiles_inputs(draw):
    k = draw(st.integers(1, 3))
    rows, cols = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dtype = draw(st.sampled_from((torch.float32, torch.int64)))
    img = draw(tensors(shape=(rows * k, cols * k), dtypes=(dtype,)))
    return img, k


def _tiles_solution(img, k):
    rows, cols = img.shape[0] // k, img.shape[1] // k
    return img.reshape(rows, k, cols, k).transpose(1, 2).reshape(-1, k, k)


@exercise(
    "basics.tiles",
    title="Cut an image into tiles",
    statement="Write `tiles(img, k)` for a 2-D tensor `img` whose height and width are multiples "
              "of `k` (at least one tile). It returns the `k` x `k` tiles of `img`, row of tiles by row of tiles, "
              "left to right: a tensor of shape `(T, k, k)`, `T` the number of tiles, where "
              "tile number `r * (W // k) + c` is `img[r*k:(r+1)*k, c*k:(c+1)*k]`. "
              "No Python loops.",
    inputs=_tiles_inputs(),
    edge_cases=[
        (torch.arange(16.0).reshape(4, 4), 2),
        (torch.arange(8).reshape(2, 4), 2),
        (torch.arange(24).reshape(4, 6), 2),
        (make_tensor(list(range(12)), (2, 6), torch.float64, "transposed"), 2),
        (torch.arange(6).reshape(2, 3), 1),
    ],
    hint="`img.reshape(-1, k, k)` runs but cuts the rows of `img` into pieces, not squares. "
         "Split each dim in two first, `(H // k, k, W // k, k)`: the tile's row and column "
         "numbers, and the position inside the tile. Then bring the two tile numbers next to "
         "each other before you merge them.",
    rules=[rules.no_loops()],
    solution=_tiles_solution,
    wrong=[("reshape(-1, k, k): row pieces, not squares", lambda img, k: img.reshape(-1, k, k)),
           ("tiles in column order",
            lambda img, k: img.reshape(img.shape[0] // k, k, img.shape[1] // k, k)
            .permute(2, 0, 1, 3).reshape(-1, k, k)),
           ("each tile transposed",
            lambda img, k: img.reshape(img.shape[0] // k, k, img.shape[1] // k, k)
            .permute(0, 2, 3, 1).reshape(-1, k, k))],
)
def tiles(img, k):
    """Tile by tile, row of tiles by row of tiles (loops, to be read)."""
    out = []
    for r in range(img.shape[0] // k):
        for c in range(img.shape[1] // k):
            out.append(img[r * k:(r + 1) * k, c * k:(c + 1) * k])
    if not out:
        return torch.empty(0, k, k, dtype=img.dtype)
    return torch.stack(out)
