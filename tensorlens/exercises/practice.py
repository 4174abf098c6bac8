"""Exercises for chapter 6, expand in practice: loss weights, length masks, masked softmax.

Each reference works sample by sample with explicit loops (the specification); the learner writes
the batched version with broadcasting, and the hand-written wrong solutions are the traps the
chapter shows: the silent ``[B] * [B, 1] -> [B, B]`` loss, multiplying scores by a 0/1 mask
instead of masking them, and ``-inf`` masks that turn fully padded rows into NaN.
"""

import torch
import torch.nn.functional as F

from . import rules
from ._core import exercise
from .strategies import make_tensor, st, tensors

# ---------------------------------------------------------------- weighted_ce


def _weighted_ce_solution(logits, targets, weights):
    per_sample = F.cross_entropy(logits, targets, reduction="none")   # [B]
    return (per_sample * weights.reshape(per_sample.shape)).mean()


def _bb_trap(logits, targets, weights):
    per_sample = F.cross_entropy(logits, targets, reduction="none")
    return (per_sample * weights).mean()   # [B] * [B, 1] -> [B, B], no error


@st.composite
def _classification_batch(draw):
    batch = draw(st.integers(1, 5))
    classes = draw(st.integers(1, 4))
    logits = draw(tensors(shape=(batch, classes), dtypes=(torch.float32, torch.float64)))
    targets = torch.tensor(draw(st.lists(st.integers(0, classes - 1), min_size=batch,
                                         max_size=batch)), dtype=torch.int64)
    weight_shape = draw(st.sampled_from([(batch,), (batch, 1)]))
    weights = draw(tensors(shape=weight_shape, dtypes=(logits.dtype,), low=0, high=3))
    return logits, targets, weights


@exercise(
    "practice.weighted_ce",
    title="Cross-entropy with one weight per sample",
    statement="Write `weighted_ce(logits, targets, weights)`: `logits` is `[B, C]`, `targets` holds "
              "`B` class indices, `weights` holds one weight per sample, shaped `[B]` or `[B, 1]`. "
              "Return the mean over the batch of `weights[b] * CE(logits[b], targets[b])` as a "
              "0-d tensor. No Python loops.",
    inputs=_classification_batch(),
    edge_cases=[
        (torch.tensor([[2., 0.], [0., 1.]]), torch.tensor([0, 1]), torch.tensor([[1.], [3.]])),
        (torch.tensor([[2., 0.], [0., 1.]]), torch.tensor([0, 1]), torch.tensor([1., 3.])),
        (torch.tensor([[1., 2., 3.]]), torch.tensor([2]), torch.tensor([[2.]])),
        (make_tensor([1, 2, 3, 4, 5, 6], (3, 2), torch.float32, "transposed"),
         torch.tensor([1, 0, 1]), torch.tensor([[1.], [0.], [2.]])),
    ],
    hint="`F.cross_entropy(logits, targets, reduction='none')` gives the `[B]` per-sample losses. "
         "Bring the weights to exactly that shape first (`weights.reshape(-1)` or "
         "`.reshape(loss.shape)`): `[B] * [B, 1]` broadcasts to `[B, B]` without any error. The "
         "`weight=` argument of `cross_entropy` is one weight per *class*, not per sample.",
    rules=[rules.no_loops()],
    solution=_weighted_ce_solution,
    wrong=[("[B] * [B, 1] broadcast to [B, B]", _bb_trap)],
)
def weighted_ce(logits, targets, weights):
    """mean_b weights[b] * -log softmax(logits[b])[targets[b]], one sample at a time."""
    w = weights.reshape(-1)
    total = torch.zeros((), dtype=logits.dtype)
    for b in range(logits.shape[0]):
        log_probs = torch.log_softmax(logits[b], dim=0)
        total = total + w[b] * -log_probs[targets[b]]
    return total / logits.shape[0]


# ---------------------------------------------------------------- length_mask


def _length_mask_solution(lengths, max_len):
    return torch.arange(max_len) < lengths[:, None]


@st.composite
def _lengths_and_max(draw):
    max_len = draw(st.integers(0, 6))
    values = draw(st.lists(st.integers(0, max_len), max_size=5))
    return torch.tensor(values, dtype=torch.int64), max_len


@exercise(
    "practice.length_mask",
    title="A mask from sequence lengths",
    statement="Write `length_mask(lengths, max_len)`: `lengths` is a 1-D int64 tensor of `B` "
              "sequence lengths (each at most `max_len`, an int). Return the `[B, max_len]` bool "
              "tensor with `out[b, t] == (t < lengths[b])`. No Python loops.",
    inputs=_lengths_and_max(),
    edge_cases=[
        (torch.tensor([2, 3, 4]), 4),
        (torch.tensor([0, 1]), 3),
        (torch.tensor([2]), 2),
        (torch.tensor([], dtype=torch.int64), 3),
        (torch.tensor([0, 0]), 0),
    ],
    hint="Compare a row of positions `torch.arange(max_len)` (shape `[max_len]`) with a column of "
         "lengths `lengths[:, None]` (shape `[B, 1]`): broadcasting builds the `[B, max_len]` table; "
         "no `expand` is needed.",
    rules=[rules.no_loops()],
    solution=_length_mask_solution,
    wrong=[
        ("<= instead of <", lambda lengths, max_len: torch.arange(max_len) <= lengths[:, None]),
        ("positions counted from 1",
         lambda lengths, max_len: torch.arange(1, max_len + 1) < lengths[:, None]),
    ],
)
def length_mask(lengths, max_len):
    """out[b, t] = t < lengths[b], position by position."""
    out = torch.zeros(lengths.shape[0], max_len, dtype=torch.bool)
    for b in range(lengths.shape[0]):
        for t in range(max_len):
            out[b, t] = t < lengths[b]
    return out


# ---------------------------------------------------------------- masked_softmax


def _masked_softmax_solution(scores, key_mask):
    keep = key_mask[:, None, :]                                   # [B, 1, K]: hides keys
    probs = scores.masked_fill(~keep, float("-inf")).softmax(dim=-1)
    return probs.masked_fill(~keep, 0.0)                          # a row with no key: 0, not NaN


def _multiplied_mask(scores, key_mask):
    return (scores * key_mask[:, None, :]).softmax(dim=-1)


def _nan_rows(scores, key_mask):
    return scores.masked_fill(~key_mask[:, None, :], float("-inf")).softmax(dim=-1)


@st.composite
def _scores_and_mask(draw):
    batch, queries, keys = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 4))
    scores = draw(tensors(shape=(batch, queries, keys), dtypes=(torch.float32, torch.float64),
                          low=-4, high=4))
    mask = torch.tensor(draw(st.lists(st.booleans(), min_size=batch * keys,
                                      max_size=batch * keys))).reshape(batch, keys)
    return scores, mask


@exercise(
    "practice.masked_softmax",
    title="Softmax that ignores padded keys",
    statement="Write `masked_softmax(scores, key_mask)`: `scores` is `[B, Q, K]` attention scores, "
              "`key_mask` is a `[B, K]` bool tensor, True for real keys and False for padding. "
              "Return the softmax over the last dim in which every padded key gets probability "
              "exactly 0 and the real keys share all of it. If a sample has no real key at all, "
              "its rows are all 0 (not NaN). No Python loops.",
    inputs=_scores_and_mask(),
    edge_cases=[
        (torch.tensor([[[1., 2., 3.]]]), torch.tensor([[True, True, False]])),
        (torch.tensor([[[0., 0.], [1., -1.]]]), torch.tensor([[True, False]])),
        (torch.tensor([[[1., 2.]]]), torch.tensor([[False, False]])),
        (torch.tensor([[[1., 2.]], [[3., 4.]]]), torch.tensor([[True, True], [False, True]])),
    ],
    hint="The mask hides keys, so give it the shape `[B, 1, K]` (`key_mask[:, None, :]`) and let it "
         "broadcast over the queries. Multiplying scores by 0 does not hide anything (`exp(0) = 1`); "
         "`masked_fill(~mask, float('-inf'))` before the softmax does. A row of only `-inf` gives "
         "NaN: fill the padded positions with 0 again afterwards.",
    rules=[rules.no_loops()],
    solution=_masked_softmax_solution,
    wrong=[("scores multiplied by the 0/1 mask", _multiplied_mask),
           ("-inf mask, NaN for fully padded rows", _nan_rows)],
)
def masked_softmax(scores, key_mask):
    """For every sample: softmax over its real keys only, for all queries at once; padded keys
    (and samples without any real key) get 0."""
    out = torch.zeros_like(scores)
    for b in range(scores.shape[0]):
        real = key_mask[b]
        if real.any():
            out[b][:, real] = torch.softmax(scores[b][:, real], dim=-1)
    return out
