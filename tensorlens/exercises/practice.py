"""Exercises for chapter 6, expand in practice: weighted losses, padded sequences, attention masks.

Each reference works sample by sample with explicit loops (the specification); the learner writes
the batched version with broadcasting. None of them is solved by a cell of the chapter: each
takes an idea of a page (per-sample weights, length masks, attention masks and what ``True``
means) into a situation the pages do not show. The hand-written wrong solutions are the traps:
weights broadcast against the features, the mean over padded positions, `[B, L, C]` logits given
to ``cross_entropy`` as they are (the chapter's silent bug, which runs when ``L == C``), an
off-by-one window.
"""


import torch
import torch.nn.functional as F

from . import rules
from ._core import exercise
from .strategies import make_tensor, st, tensors

# ---------------------------------------------------------------- weighted_mse


def _weighted_mse_solution(pred, target, weights):
    per_row = ((pred - target) ** 2).mean(dim=1)                  # [B]
    return (weights * per_row).sum() / weights.sum()


def _features_weighted(pred, target, weights):
    # [B, D] * [B] lines the weights up with the features: runs whenever D == B
    return (((pred - target) ** 2) * weights).mean(dim=1).sum() / weights.sum()


def _divided_by_batch(pred, target, weights):
    return (weights * ((pred - target) ** 2).mean(dim=1)).mean()


@st.composite
def _regression_batch(draw):
    batch, features = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    dtype = draw(st.sampled_from((torch.float32, torch.float64)))
    pred = draw(tensors(shape=(batch, features), dtypes=(dtype,)))
    target = draw(tensors(shape=(batch, features), dtypes=(dtype,)))
    weights = draw(tensors(shape=(batch,), dtypes=(dtype,), low=1, high=4))
    return pred, target, weights


@exercise(
    "practice.weighted_mse",
    title="A weighted average of per-sample errors",
    statement="Write `weighted_mse(pred, target, weights)`: `pred` and `target` are `[B, D]` "
              "(one row of `D` predictions per sample), `weights` is `[B]`, one weight per sample "
              "(non-negative, not all zero). The error of sample `b` is the mean over its `D` "
              "features of `(pred[b] - target[b]) ** 2`. Return the weighted average of the `B` "
              "errors, `sum_b weights[b] * error[b] / sum_b weights[b]`, as a 0-d tensor. "
              "No Python loops.",
    inputs=_regression_batch(),
    edge_cases=[
        (torch.tensor([[1., 2.]]), torch.tensor([[0., 0.]]), torch.tensor([2.])),
        (torch.tensor([[1., 0.], [0., 3.]]), torch.zeros(2, 2), torch.tensor([1., 3.])),
        (torch.tensor([[2., 0., 0.], [0., 0., 0.], [1., 1., 1.]]), torch.zeros(3, 3),
         torch.tensor([1., 0., 2.])),
        (make_tensor([1, 2, 3, 4, 5, 6], (3, 2), torch.float32, "transposed"),
         torch.zeros(3, 2), torch.tensor([1., 2., 1.])),
    ],
    hint="Reduce each sample to one error first: `.mean(dim=1)` gives `[B]`, the weights' own "
         "shape. Multiplying the `[B, D]` squared errors by `[B]` weights lines the weights up "
         "with the features, not the samples (and runs without an error when `D == B`). A "
         "weighted average divides by the sum of the weights, not by `B`.",
    rules=[rules.no_loops()],
    solution=_weighted_mse_solution,
    wrong=[("weights lined up with the features", _features_weighted),
           ("divided by B instead of the weights' sum", _divided_by_batch)],
)
def weighted_mse(pred, target, weights):
    """sum_b w[b] * mean_d (pred[b, d] - target[b, d])**2 / sum_b w[b], one sample at a time."""
    total = torch.zeros((), dtype=pred.dtype)
    weight_sum = torch.zeros((), dtype=pred.dtype)
    for b in range(pred.shape[0]):
        total = total + weights[b] * ((pred[b] - target[b]) ** 2).mean()
        weight_sum = weight_sum + weights[b]
    return total / weight_sum


# ---------------------------------------------------------------- masked_mean


def _masked_mean_solution(x, lengths):
    real = torch.arange(x.shape[1]) < lengths[:, None]              # [B, L]
    summed = torch.where(real[:, :, None], x, 0).sum(dim=1)         # [B, D]
    return summed / lengths[:, None]


def _mean_over_all_positions(x, lengths):
    real = torch.arange(x.shape[1]) < lengths[:, None]
    return (x * real[:, :, None]).mean(dim=1)                       # divides by L


@st.composite
def _padded_batch(draw):
    batch, length, features = draw(st.integers(1, 3)), draw(st.integers(1, 5)), draw(st.integers(1, 3))
    x = draw(tensors(shape=(batch, length, features), dtypes=(torch.float32, torch.float64)))
    lengths = draw(st.lists(st.integers(1, length), min_size=batch, max_size=batch))
    return x, torch.tensor(lengths, dtype=torch.int64)


@exercise(
    "practice.masked_mean",
    title="Vectorise this loop: the mean over the real tokens",
    statement="`x` is a padded batch `[B, L, D]` and `lengths` (int64, `[B]`) says how many "
              "positions of each sequence are real (at least 1; the padded positions hold "
              "arbitrary finite numbers). Write `masked_mean(x, lengths)`, returning `[B, D]`, "
              "that computes what this loop computes, without any Python loop:\n\n"
              "    out = torch.zeros(B, D, dtype=x.dtype)\n"
              "    for b in range(B):\n"
              "        out[b] = x[b, :lengths[b]].mean(dim=0)",
    inputs=_padded_batch(),
    edge_cases=[
        (torch.tensor([[[1.], [3.], [100.]]]), torch.tensor([2])),
        (torch.tensor([[[2., 4.]], [[6., 8.]]]), torch.tensor([1, 1])),
        (torch.tensor([[[1.], [2.], [9.]], [[4.], [5.], [6.]]]), torch.tensor([1, 3])),
    ],
    hint="Build the `[B, L]` mask of real positions from the lengths, give it a trailing 1 so it "
         "meets `[B, L, D]`, zero the padding and sum over `L`. Then divide by each sequence's "
         "own length, shaped `[B, 1]`: `.mean(dim=1)` would divide by `L`, padding included.",
    rules=[rules.no_loops()],
    solution=_masked_mean_solution,
    wrong=[("mean over all L positions, padding included", _mean_over_all_positions),
           ("padding not masked at all", lambda x, lengths: x.mean(dim=1))],
)
def masked_mean(x, lengths):
    """out[b] = mean of x[b, :lengths[b]] over the positions, one sequence at a time."""
    out = torch.zeros(x.shape[0], x.shape[2], dtype=x.dtype)
    for b in range(x.shape[0]):
        out[b] = x[b, : int(lengths[b])].mean(dim=0)
    return out


# ---------------------------------------------------------------- sequence_loss


def _sequence_loss_solution(logits, targets, weights):
    per_token = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")  # [B, L]
    real = targets != -100
    per_sequence = per_token.sum(dim=1) / real.sum(dim=1)
    return (weights * per_sequence).sum() / weights.sum()


def _sequence_loss_chapter_bug(logits, targets, weights):
    # the silent bug: classes read from dim 1 (L) and the mean taken over the padding too;
    # it runs whenever L == C
    per_token = F.cross_entropy(logits, targets, reduction="none")
    return (weights * per_token.mean(dim=1)).sum() / weights.sum()


def _sequence_loss_mean_over_padding(logits, targets, weights):
    per_token = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
    return (weights * per_token.mean(dim=1)).sum() / weights.sum()


def _sequence_loss_token_weighted(logits, targets, weights):
    # every real token counts once: long sequences weigh more than their weight says
    per_token = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
    real = targets != -100
    w = weights[:, None] * real
    return (w * per_token).sum() / w.sum()


@st.composite
def _tagging_batch(draw):
    batch, length = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    classes = draw(st.integers(1, 4))
    dtype = draw(st.sampled_from((torch.float32, torch.float64)))
    logits = draw(tensors(shape=(batch, length, classes), dtypes=(dtype,), low=-3, high=3))
    values = draw(st.lists(st.integers(-1, classes - 1), min_size=batch * length,
                           max_size=batch * length))
    targets = torch.tensor(values).reshape(batch, length)
    targets[targets == -1] = -100                 # padding
    for b in range(batch):                        # every sequence keeps one real token
        targets[b, draw(st.integers(0, length - 1))] = draw(st.integers(0, classes - 1))
    weights = draw(tensors(shape=(batch,), dtypes=(dtype,), low=1, high=4))
    return logits, targets, weights


@exercise(
    "practice.sequence_loss",
    title="Find the silent bug: a loss per sentence",
    statement="A tagger returns `logits` of shape `[B, L, C]` (a score for each of `C` classes at "
              "each of `L` positions) for `targets` of shape `[B, L]` (int64), padded with -100. "
              "`weights` (`[B]`, positive) weights each sentence. The loss of a sentence is the "
              "mean cross-entropy over its real tokens; return the weighted average of the "
              "sentences' losses, `sum_b weights[b] * loss[b] / sum_b weights[b]`, as a 0-d "
              "tensor. This version ran without an error on its author's batch (`L == C == 5`), "
              "but computes something else:\n\n"
              "    def sequence_loss(logits, targets, weights):\n"
              "        per_token = F.cross_entropy(logits, targets, reduction=\"none\")\n"
              "        per_sentence = per_token.mean(dim=1)\n"
              "        return (weights * per_sentence).sum() / weights.sum()\n\n"
              "Write the fixed `sequence_loss(logits, targets, weights)`. No Python loops.",
    inputs=_tagging_batch(),
    edge_cases=[
        (torch.zeros(1, 1, 1), torch.tensor([[0]]), torch.tensor([1.0])),
        (torch.tensor([[[2.0, 0.0], [0.0, 1.0]]]), torch.tensor([[0, -100]]),
         torch.tensor([1.0])),
        (torch.arange(12.0).reshape(2, 2, 3) / 4, torch.tensor([[1, -100], [2, 0]]),
         torch.tensor([1.0, 3.0])),
        (torch.arange(18.0).reshape(2, 3, 3) / 5, torch.tensor([[2, 1, 0], [0, -100, -100]]),
         torch.tensor([2.0, 1.0])),
    ],
    hint="Two things: which dimension does `F.cross_entropy` read the classes from, and what "
         "does a mean over `dim=1` divide by when some targets are -100?",
    rules=[rules.no_loops()],
    solution=_sequence_loss_solution,
    wrong=[("the chapter's bug: classes in dim 1, mean over the padding",
            _sequence_loss_chapter_bug),
           ("mean over the padding", _sequence_loss_mean_over_padding),
           ("every real token weighted once", _sequence_loss_token_weighted)],
    max_examples=25,
    atol=1e-5,
    rtol=1e-5,
)
def sequence_loss(logits, targets, weights):
    """Sentence by sentence: the mean loss over its real tokens, then the weighted average."""
    losses = []
    for b in range(logits.shape[0]):
        real = targets[b] != -100
        losses.append(F.cross_entropy(logits[b][real], targets[b][real]))
    per_sentence = torch.stack(losses)
    return (weights * per_sentence).sum() / weights.sum()


# ---------------------------------------------------------------- sliding_window_mask


def _sliding_window_mask_solution(lengths, length, window):
    pos = torch.arange(length)
    behind = pos[:, None] - pos[None, :]                 # i - j, [L, L]
    band = (behind >= 0) & (behind < window)
    return band & (pos < lengths[:, None])[:, None, :]


def _window_off_by_one(lengths, length, window):
    pos = torch.arange(length)
    behind = pos[:, None] - pos[None, :]
    return ((behind >= 0) & (behind <= window)) & (pos < lengths[:, None])[:, None, :]


def _padding_on_queries(lengths, length, window):
    pos = torch.arange(length)
    behind = pos[:, None] - pos[None, :]
    return ((behind >= 0) & (behind < window)) & (pos < lengths[:, None])[:, :, None]


def _no_padding(lengths, length, window):
    pos = torch.arange(length)
    behind = pos[:, None] - pos[None, :]
    band = (behind >= 0) & (behind < window)
    return band.expand(lengths.shape[0], length, length)


@st.composite
def _window_inputs(draw):
    length = draw(st.integers(0, 6))
    lengths = draw(st.lists(st.integers(0, length), min_size=1, max_size=4))
    window = draw(st.integers(1, length + 1))
    return torch.tensor(lengths, dtype=torch.int64), length, window


@exercise(
    "practice.sliding_window_mask",
    title="A sliding-window causal mask with padding",
    statement="Some decoders let each token attend only to itself and the `window - 1` tokens "
              "before it. Write `sliding_window_mask(lengths, length, window)`: `lengths` is an "
              "int64 tensor of `B` sequence lengths (each at most `length`, an int), `window` an "
              "int >= 1. Return the `[B, length, length]` bool tensor, True where query `i` of "
              "sequence `b` may attend to key `j`: `j <= i`, `i - j < window`, and key `j` is a "
              "real token (`j < lengths[b]`). No Python loops.",
    inputs=_window_inputs(),
    edge_cases=[
        (torch.tensor([3]), 3, 1),
        (torch.tensor([4]), 4, 2),
        (torch.tensor([2, 4]), 4, 3),
        (torch.tensor([0, 1]), 2, 5),
        (torch.tensor([1, 2]), 0, 1),
    ],
    hint="Build three masks that broadcast: `i - j` from a column and a row of positions "
         "(`[L, 1]` against `[L]`) gives the causal band, `[L, L]`; the real keys come from the "
         "lengths as `[B, L]`, and hide *keys*, so they take the shape `[B, 1, L]`. Combine "
         "them with `&`.",
    rules=[rules.no_loops()],
    solution=_sliding_window_mask_solution,
    wrong=[("window one too wide (<= window)", _window_off_by_one),
           ("padding applied to the queries", _padding_on_queries),
           ("padding ignored", _no_padding)],
)
def sliding_window_mask(lengths, length, window):
    """out[b, i, j] = (j <= i) and (i - j < window) and (j < lengths[b]), entry by entry."""
    out = torch.zeros(lengths.shape[0], length, length, dtype=torch.bool)
    for b in range(lengths.shape[0]):
        for i in range(length):
            for j in range(length):
                out[b, i, j] = j <= i and i - j < window and j < lengths[b]
    return out
