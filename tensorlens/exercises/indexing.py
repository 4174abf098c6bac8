"""Exercises for chapter 2, indexing: advanced indexing, scatter, accumulation, crops.

Each reference is written with explicit loops so it reads as a specification; the rules say how
the learner's version must differ (no loops, no library shortcut).
"""

import torch

from . import rules
from ._core import exercise
from .strategies import make_tensor, st, tensors

# ---------------------------------------------------------------- one score per token, padding ignored

_IGNORE = -100  # F.cross_entropy's default ignore_index
_INF = float("inf")


@st.composite
def _token_scores_and_labels(draw):
    n, t, c = draw(st.integers(0, 3)), draw(st.integers(0, 4)), draw(st.integers(1, 5))
    scores = draw(tensors(shape=(n, t, c), dtypes=(torch.float32, torch.int64)))
    if scores.is_floating_point() and draw(st.booleans()):
        scores.masked_fill_(scores < -5, -_INF)  # log-probabilities of 0 (in place: same layout)
    label = st.one_of(st.integers(0, c - 1), st.just(_IGNORE))
    labels = torch.tensor(draw(st.lists(label, min_size=n * t, max_size=n * t)),
                          dtype=torch.int64).reshape(n, t)
    return scores, labels


def _pick_per_token_solution(scores, labels):
    padding = labels == _IGNORE
    picked = scores.gather(2, labels.masked_fill(padding, 0).unsqueeze(2)).squeeze(2)
    return torch.where(padding, 0, picked)


def _picked_at_clamped(scores, labels):
    return scores.gather(2, labels.clamp(min=0).unsqueeze(2)).squeeze(2)


@exercise(
    "indexing.pick_per_token",
    title="One score per token, padding ignored",
    statement="Write `pick_per_token(scores, labels)` for `scores` of shape `(N, T, C)` (one "
              "score per class at each of the `T` positions of `N` sequences) and integer "
              "`labels` of shape `(N, T)` that hold a class in `0 .. C - 1`, or `-100` at "
              "padding. Return `scores[n, t, labels[n, t]]` at every position and 0 where "
              "`labels[n, t] == -100`: shape `(N, T)`, the dtype of `scores`. `scores` may hold "
              "`-inf`. No Python loops.",
    inputs=_token_scores_and_labels(),
    edge_cases=[
        (torch.arange(12.).reshape(2, 2, 3), torch.tensor([[2, 0], [-100, 1]])),
        (torch.arange(6).reshape(1, 2, 3), torch.tensor([[1, -100]])),
        (torch.zeros(0, 3, 2), torch.zeros(0, 3, dtype=torch.int64)),
        (torch.zeros(2, 0, 4), torch.zeros(2, 0, dtype=torch.int64)),
        (torch.tensor([[[7.0], [8.0]]]), torch.tensor([[-100, -100]])),
        (torch.tensor([[[-_INF, 0.0], [0.0, -_INF]]]), torch.tensor([[-100, 1]])),
        (make_tensor(list(range(12)), (2, 3, 2), torch.float32, "transposed"),
         torch.tensor([[1, 0, -100], [0, 1, 1]])),
    ],
    hint="`-100` is no class: `gather` refuses it, and an index tensor reads it from the end "
         "(or raises, with fewer than 100 classes). Replace it with any real class first "
         "(`clamp`, `masked_fill`), pick one score per position (`gather` along dim 2 with an "
         "`(N, T, 1)` index, or three index tensors that broadcast to `(N, T)`), then put 0 at "
         "the padding with `torch.where`. Multiplying by a 0/1 mask instead turns `-inf` into "
         "`nan`.",
    rules=[rules.no_loops()],
    solution=_pick_per_token_solution,
    wrong=[("-100 used as a position",
            lambda scores, labels: scores.gather(2, labels.unsqueeze(2)).squeeze(2)),
           ("padding left at the score of class 0", _picked_at_clamped),
           ("padding zeroed by multiplying: -inf * 0 is nan",
            lambda scores, labels: _picked_at_clamped(scores, labels) * (labels != -100)),
           ("keeps the (N, T, 1) shape",
            lambda scores, labels: torch.where(labels == -100, 0, _picked_at_clamped(
                scores, labels)).unsqueeze(2))],
)
def pick_per_token(scores, labels):
    """out[n, t] = scores[n, t, labels[n, t]], or 0 where labels[n, t] == -100 (loops, to be
    read)."""
    n, t = labels.shape
    out = torch.zeros(n, t, dtype=scores.dtype)
    for i in range(n):
        for j in range(t):
            if labels[i, j] != _IGNORE:
                out[i, j] = scores[i, j, labels[i, j]]
    return out


# ---------------------------------------------------------------- one-hot with scatter


@st.composite
def _labels_and_classes(draw):
    num_classes = draw(st.integers(1, 6))
    labels = draw(st.lists(st.integers(0, num_classes - 1), max_size=6))
    return torch.tensor(labels, dtype=torch.int64), num_classes


def _one_hot_solution(labels, num_classes):
    out = torch.zeros(labels.shape[0], num_classes)
    return out.scatter_(1, labels.unsqueeze(1), 1.0)


@exercise(
    "indexing.one_hot",
    title="One-hot encoding with scatter",
    statement="Write `one_hot(labels, num_classes)` that turns integer `labels` of shape `(N,)` "
              "into a `float32` tensor of shape `(N, num_classes)` holding 1.0 at "
              "`[i, labels[i]]` and 0.0 everywhere else. Do not use `one_hot` from "
              "`torch.nn.functional`, and no Python loops.",
    inputs=_labels_and_classes(),
    edge_cases=[
        (torch.tensor([2, 0, 1]), 3),
        (torch.tensor([0, 0]), 1),
        (torch.zeros(0, dtype=torch.int64), 4),
        (torch.tensor([3]), 5),
    ],
    hint="Start from zeros of the right shape and dtype, then `scatter_` the value 1.0 along "
         "dim 1 with an index of shape `(N, 1)`.",
    rules=[rules.no_loops(), rules.banned("one_hot", reason="the point is to build it with scatter")],
    solution=_one_hot_solution,
    wrong=[("int64 instead of float32",
            lambda labels, num_classes: torch.zeros(labels.shape[0], num_classes, dtype=torch.int64)
            .scatter_(1, labels.unsqueeze(1), 1))],
)
def one_hot(labels, num_classes):
    """out[i, labels[i]] = 1.0, every other entry 0.0 (a loop, to be read)."""
    out = torch.zeros(labels.shape[0], num_classes, dtype=torch.float32)
    for i in range(labels.shape[0]):
        out[i, labels[i]] = 1.0
    return out


# ---------------------------------------------------------------- undo a shuffle per row


@st.composite
def _shuffled_and_perm(draw):
    b, n = draw(st.integers(0, 4)), draw(st.integers(0, 5))
    shuffled = draw(tensors(shape=(b, n), dtypes=(torch.float32, torch.int64)))
    rows = [draw(st.permutations(range(n))) for _ in range(b)]
    perm = torch.tensor(rows, dtype=torch.int64).reshape(b, n)
    return shuffled, perm


def _unshuffle_solution(shuffled, perm):
    return torch.empty_like(shuffled).scatter_(1, perm, shuffled)


@exercise(
    "indexing.unshuffle",
    title="Undo a shuffle",
    statement="Each row of a `(B, N)` tensor `x` was shuffled with its own permutation: "
              "`shuffled[b, j] == x[b, perm[b, j]]`, where each row of the `int64` tensor "
              "`perm` (shape `(B, N)`) holds `0 .. N - 1` in some order. Write "
              "`unshuffle(shuffled, perm)` that returns `x`: same shape and dtype as "
              "`shuffled`. No Python loops.",
    inputs=_shuffled_and_perm(),
    edge_cases=[
        (torch.tensor([[10.0, 20.0, 30.0]]), torch.tensor([[2, 0, 1]])),
        (torch.tensor([[1, 2], [3, 4]]), torch.tensor([[1, 0], [0, 1]])),
        (torch.zeros(0, 3), torch.zeros(0, 3, dtype=torch.int64)),
        (torch.zeros(2, 0), torch.zeros(2, 0, dtype=torch.int64)),
        (make_tensor([5, 6, 7, 8, 9, 10], (2, 3), torch.float32, "transposed"),
         torch.tensor([[1, 2, 0], [2, 1, 0]])),
    ],
    hint="Gathering `shuffled` with `perm` shuffles it a second time. Go the other way: element "
         "`shuffled[b, j]` belongs at `x[b, perm[b, j]]`, which is a `scatter` along dim 1; or "
         "gather with the inverse permutation, which `argsort` gives.",
    rules=[rules.no_loops()],
    solution=_unshuffle_solution,
    wrong=[("shuffled again instead of undone",
            lambda shuffled, perm: shuffled.gather(1, perm)),
           ("one permutation for every row",
            lambda shuffled, perm: shuffled[:, perm[0].argsort()] if len(perm) else shuffled)],
)
def unshuffle(shuffled, perm):
    """x[b, perm[b, j]] = shuffled[b, j] (a loop, to be read)."""
    x = torch.empty_like(shuffled)
    for b in range(shuffled.shape[0]):
        for j in range(shuffled.shape[1]):
            x[b, perm[b, j]] = shuffled[b, j]
    return x


# ---------------------------------------------------------------- a histogram per channel (the silent bug)


@st.composite
def _uint8_images(draw):
    n, c = draw(st.integers(0, 2)), draw(st.integers(1, 3))
    h, w = draw(st.integers(0, 4)), draw(st.integers(0, 4))
    return draw(tensors(shape=(n, c, h, w), dtypes=(torch.uint8,), low=0, high=255))


def _channel_histograms_solution(images):
    c = images.shape[1]
    values = images.transpose(0, 1).reshape(c, -1).long()
    counts = torch.zeros(c, 256, dtype=torch.int64)
    return counts.scatter_add_(1, values, torch.ones_like(values))


def _channel_histograms_silent_bug(images):
    c = images.shape[1]
    values = images.transpose(0, 1).reshape(c, -1).long()
    counts = torch.zeros(c, 256, dtype=images.dtype)     # uint8 counters wrap at 256
    counts.scatter_add_(1, values, torch.ones_like(values, dtype=images.dtype))
    return counts.long()


@exercise(
    "indexing.channel_histograms",
    title="Find the silent bug: a histogram per channel",
    statement="Write `channel_histograms(images)` for a `uint8` batch `images` of shape "
              "`(N, C, H, W)` that returns an `int64` tensor of shape `(C, 256)`: entry "
              "`[c, v]` counts the pixels of channel `c`, over every image, whose value is `v`. "
              "No Python loops.",
    inputs=_uint8_images(),
    edge_cases=[
        (torch.tensor([[[[0, 255], [7, 7]]]], dtype=torch.uint8),),
        (torch.zeros(1, 1, 16, 16, dtype=torch.uint8),),
        (torch.full((2, 2, 10, 20), 9, dtype=torch.uint8),),
        (torch.zeros(0, 3, 2, 2, dtype=torch.uint8),),
        (make_tensor([3] * 300, (1, 3, 10, 10), torch.uint8, "transposed"),),
    ],
    hint="A `uint8` counter holds 0 to 255: the 256th pixel of one value wraps its count back to "
         "0, silently. Count in `int64` from the start (the counts, and the ones you add), "
         "then any accumulating write works: `scatter_add_`, `index_put_(..., "
         "accumulate=True)`, or `bincount` with one range of 256 bins per channel.",
    rules=[rules.no_loops()],
    solution=_channel_histograms_solution,
    wrong=[("the silent bug: uint8 counters", _channel_histograms_silent_bug),
           ("every channel counted together",
            lambda images: torch.bincount(images.flatten().long(), minlength=256)
            .expand(images.shape[1], 256).clone())],
)
def channel_histograms(images):
    """out[c, v] = number of pixels of channel c equal to v (loops, to be read)."""
    n_, c_, h_, w_ = images.shape
    out = torch.zeros(c_, 256, dtype=torch.int64)
    for n in range(n_):
        for c in range(c_):
            for i in range(h_):
                for j in range(w_):
                    out[c, int(images[n, c, i, j])] += 1
    return out


# ---------------------------------------------------------------- a different crop per image


@st.composite
def _images_and_corners(draw):
    n, c = draw(st.integers(0, 3)), draw(st.integers(1, 2))
    h, w = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    size = draw(st.integers(1, min(h, w)))
    images = draw(tensors(shape=(n, c, h, w), dtypes=(torch.float32, torch.int64)))
    top = torch.tensor(draw(st.lists(st.integers(0, h - size), min_size=n, max_size=n)),
                       dtype=torch.int64)
    left = torch.tensor(draw(st.lists(st.integers(0, w - size), min_size=n, max_size=n)),
                        dtype=torch.int64)
    return images, top, left, size


def _crop_at_solution(images, top, left, size):
    n, c = images.shape[:2]
    steps = torch.arange(size)
    rows = (top.view(n, 1) + steps).view(n, 1, size, 1)
    cols = (left.view(n, 1) + steps).view(n, 1, 1, size)
    return images[torch.arange(n).view(n, 1, 1, 1), torch.arange(c).view(1, c, 1, 1), rows, cols]


@exercise(
    "indexing.crop_at",
    title="A different crop for every image",
    statement="Write `crop_at(images, top, left, size)` for a batch `images` of shape "
              "`(N, C, H, W)` and integer tensors `top`, `left` of shape `(N,)` that returns the "
              "`size` x `size` window of each image whose top-left corner is "
              "`(top[n], left[n])`: shape `(N, C, size, size)`, "
              "`out[n, c, i, j] == images[n, c, top[n] + i, left[n] + j]`. Every window fits "
              "inside its image. No Python loops.",
    inputs=_images_and_corners(),
    edge_cases=[
        (torch.arange(32.).reshape(2, 1, 4, 4), torch.tensor([0, 2]), torch.tensor([1, 0]), 2),
        (torch.arange(9).reshape(1, 1, 3, 3), torch.tensor([0]), torch.tensor([0]), 3),
        (torch.zeros(0, 2, 3, 3), torch.zeros(0, dtype=torch.int64),
         torch.zeros(0, dtype=torch.int64), 2),
        (torch.arange(18.).reshape(1, 2, 3, 3), torch.tensor([2]), torch.tensor([2]), 1),
    ],
    hint="Build the row numbers `top[n] + i` as a `(N, size)` tensor and the column numbers "
         "likewise, then index all four dims at once with index tensors shaped to broadcast to "
         "`(N, C, size, size)`: `(N, 1, 1, 1)`, `(1, C, 1, 1)`, `(N, 1, size, 1)`, "
         "`(N, 1, 1, size)`.",
    rules=[rules.no_loops()],
    solution=_crop_at_solution,
    wrong=[("every image cropped at the first image's corner",
            lambda images, top, left, size: images[..., int(top[0]):int(top[0]) + size,
                                                   int(left[0]):int(left[0]) + size]
            if images.shape[0] else images[..., :size, :size])],
)
def crop_at(images, top, left, size):
    """out[n, c, i, j] = images[n, c, top[n] + i, left[n] + j] (loops, to be read)."""
    n_, c_ = images.shape[:2]
    out = torch.empty(n_, c_, size, size, dtype=images.dtype)
    for n in range(n_):
        for c in range(c_):
            for i in range(size):
                for j in range(size):
                    out[n, c, i, j] = images[n, c, top[n] + i, left[n] + j]
    return out
