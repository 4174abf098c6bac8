"""Exercises for chapter 2, indexing: advanced indexing, gather, scatter, accumulation, crops.

Each reference is written with explicit loops so it reads as a specification; the rules say how
the learner's version must differ (no loops, no library shortcut).
"""

import torch

from . import rules
from ._core import exercise
from .strategies import make_tensor, st, tensors

# ---------------------------------------------------------------- pick one entry per row


@st.composite
def _scores_and_labels(draw):
    n, c = draw(st.integers(0, 5)), draw(st.integers(1, 5))
    scores = draw(tensors(shape=(n, c), dtypes=(torch.float32, torch.int64)))
    labels = torch.tensor(draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n)),
                          dtype=torch.int64)
    return scores, labels


def _pick_per_row_solution(scores, labels):
    return scores.gather(1, labels.unsqueeze(1)).squeeze(1)


@exercise(
    "indexing.pick_per_row",
    title="One score per row",
    statement="Write `pick_per_row(scores, labels)` for `scores` of shape `(N, C)` and integer "
              "`labels` of shape `(N,)` that returns, for each row `i`, the entry "
              "`scores[i, labels[i]]`: shape `(N,)`, the dtype of `scores`. No Python loops.",
    inputs=_scores_and_labels(),
    edge_cases=[
        (torch.arange(6.).reshape(2, 3), torch.tensor([2, 0])),
        (torch.arange(6).reshape(3, 2), torch.tensor([1, 1, 0])),
        (torch.zeros(0, 3), torch.zeros(0, dtype=torch.int64)),
        (torch.tensor([[7.0]]), torch.tensor([0])),
        (make_tensor(list(range(6)), (2, 3), torch.float32, "transposed"), torch.tensor([1, 2])),
    ],
    hint="`scores[labels]` picks whole rows. Either pair each label with its row number "
         "(`scores[torch.arange(N), labels]`) or gather along dim 1 with a `(N, 1)` index.",
    rules=[rules.no_loops()],
    solution=_pick_per_row_solution,
    wrong=[("whole rows picked", lambda scores, labels: scores[labels][:, 0]),
           ("keeps the (N, 1) shape", lambda scores, labels: scores.gather(1, labels.unsqueeze(1)))],
)
def pick_per_row(scores, labels):
    """out[i] = scores[i, labels[i]] (a loop, to be read)."""
    out = torch.empty(scores.shape[0], dtype=scores.dtype)
    for i in range(scores.shape[0]):
        out[i] = scores[i, labels[i]]
    return out


# ---------------------------------------------------------------- last valid step of a sequence


@st.composite
def _sequences_and_lengths(draw):
    b, t, d = draw(st.integers(0, 4)), draw(st.integers(1, 5)), draw(st.integers(0, 3))
    x = draw(tensors(shape=(b, t, d), dtypes=(torch.float32, torch.int64)))
    lengths = torch.tensor(draw(st.lists(st.integers(1, t), min_size=b, max_size=b)),
                           dtype=torch.int64)
    return x, lengths


def _last_valid_solution(x, lengths):
    index = (lengths - 1).view(-1, 1, 1).expand(-1, 1, x.shape[2])
    return x.gather(1, index).squeeze(1)


@exercise(
    "indexing.last_valid",
    title="The last real step of padded sequences",
    statement="A batch of padded sequences `x` has shape `(B, T, D)`; sequence `b` is "
              "`lengths[b]` steps long (`1 <= lengths[b] <= T`) and padded after that. Write "
              "`last_valid(x, lengths)` that returns the last real step of every sequence, "
              "`out[b] == x[b, lengths[b] - 1]`, shape `(B, D)`. No Python loops.",
    inputs=_sequences_and_lengths(),
    edge_cases=[
        (torch.arange(12.).reshape(2, 3, 2), torch.tensor([3, 1])),
        (torch.arange(6).reshape(1, 6, 1), torch.tensor([4])),
        (torch.zeros(0, 3, 2), torch.zeros(0, dtype=torch.int64)),
        (torch.zeros(2, 3, 0), torch.tensor([1, 3])),
        (make_tensor(list(range(12)), (2, 3, 2), torch.float32, "transposed"), torch.tensor([2, 2])),
    ],
    hint="Pair every batch index with its own step: `x[torch.arange(B), lengths - 1]`. With "
         "`gather`, the index must have 3 dims: `(B, 1, D)`, made with `view` and `expand`.",
    rules=[rules.no_loops()],
    solution=_last_valid_solution,
    wrong=[("the last step, padding or not", lambda x, lengths: x[:, -1]),
           ("off by one (step lengths[b])",
            lambda x, lengths: x[torch.arange(x.shape[0]), lengths.clamp(max=x.shape[1] - 1)])],
)
def last_valid(x, lengths):
    """out[b] = x[b, lengths[b] - 1] (a loop, to be read)."""
    out = torch.empty(x.shape[0], x.shape[2], dtype=x.dtype)
    for b in range(x.shape[0]):
        out[b] = x[b, lengths[b] - 1]
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


# ---------------------------------------------------------------- sums per class (the silent bug)


@st.composite
def _labels_and_weights(draw):
    num_classes = draw(st.integers(1, 4))
    n = draw(st.integers(0, 6))
    labels = torch.tensor(draw(st.lists(st.integers(0, num_classes - 1), min_size=n, max_size=n)),
                          dtype=torch.int64)
    weights = draw(tensors(shape=(n,), dtypes=(torch.float32,)))
    return labels, weights, num_classes


def _sum_per_class_solution(labels, weights, num_classes):
    return torch.zeros(num_classes).index_add_(0, labels, weights)


def _sum_per_class_silent_bug(labels, weights, num_classes):
    totals = torch.zeros(num_classes)
    totals[labels] += weights          # a repeated label is added once
    return totals


@exercise(
    "indexing.sum_per_class",
    title="The total per class",
    statement="Write `sum_per_class(labels, weights, num_classes)` for integer `labels` of shape "
              "`(N,)` (each in `0 .. num_classes - 1`) and `float32` `weights` of shape `(N,)` "
              "that returns a `float32` tensor of shape `(num_classes,)` whose entry `c` is the "
              "sum of `weights[i]` over every `i` with `labels[i] == c` (0.0 for a class with no "
              "sample). No Python loops.",
    inputs=_labels_and_weights(),
    edge_cases=[
        (torch.tensor([0, 2, 2]), torch.tensor([1.0, 2.0, 3.0]), 3),
        (torch.tensor([1, 1, 1, 1]), torch.ones(4), 2),
        (torch.zeros(0, dtype=torch.int64), torch.zeros(0), 2),
        (torch.tensor([1, 0, 1]), make_tensor([1, 2, 4], (3,), torch.float32, "sliced"), 2),
    ],
    hint="`totals[labels] += weights` reads every selected total, adds and writes back, so a "
         "label that repeats is written several times with the same sum. Accumulate instead: "
         "`index_add_`, `index_put_(..., accumulate=True)`, `scatter_add_`, or `bincount` with "
         "`weights=` (which returns int64 when there are no samples: convert).",
    rules=[rules.no_loops()],
    solution=_sum_per_class_solution,
    wrong=[("the silent bug: totals[labels] += weights", _sum_per_class_silent_bug),
           ("counts instead of sums",
            lambda labels, weights, num_classes:
            torch.bincount(labels, minlength=num_classes).float())],
)
def sum_per_class(labels, weights, num_classes):
    """out[c] = sum of weights[i] with labels[i] == c (a loop, to be read)."""
    out = torch.zeros(num_classes, dtype=torch.float32)
    for i in range(labels.shape[0]):
        out[labels[i]] += weights[i]
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
