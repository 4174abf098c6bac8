"""Exercises for chapter 6, expand in practice: weighted losses, padded sequences, attention masks.

Each reference works sample by sample with explicit loops (the specification); the learner writes
the batched version with broadcasting. None of them is solved by a cell of the chapter: each
takes an idea of a page (per-sample weights, length masks, attention masks and what ``True``
means) into a situation the pages do not show. The hand-written wrong solutions are the traps:
weights broadcast against the features, the mean over padded positions, the padding mask passed
where ``scaled_dot_product_attention`` wants the keys that take part (the chapter's silent bug),
an off-by-one window.
"""

import math

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


# ---------------------------------------------------------------- attend_real_keys


def _attend_real_keys_solution(q, k, v, is_pad):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=~is_pad[:, None, :])


def _padding_passed_as_attn_mask(q, k, v, is_pad):
    # the silent bug: for scaled_dot_product_attention, True means "takes part"
    return F.scaled_dot_product_attention(q, k, v, attn_mask=is_pad[:, None, :])


def _queries_masked(q, k, v, is_pad):
    scores = q @ k.mT / math.sqrt(q.shape[-1])
    return scores.masked_fill(is_pad[:, :, None], float("-inf")).softmax(dim=-1) @ v


@st.composite
def _attention_inputs(draw):
    batch, queries, keys = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 4))
    dim = draw(st.integers(1, 3))
    dtype = draw(st.sampled_from((torch.float32, torch.float64)))
    q = draw(tensors(shape=(batch, queries, dim), dtypes=(dtype,), low=-3, high=3))
    k = draw(tensors(shape=(batch, keys, dim), dtypes=(dtype,), low=-3, high=3))
    v = draw(tensors(shape=(batch, keys, dim), dtypes=(dtype,)))
    pad = torch.tensor(draw(st.lists(st.booleans(), min_size=batch * keys,
                                     max_size=batch * keys))).reshape(batch, keys)
    for b in range(batch):                       # every sample keeps at least one real key
        pad[b, draw(st.integers(0, keys - 1))] = False
    return q, k, v, pad


@exercise(
    "practice.attend_real_keys",
    title="Find the silent bug: attention that skips the padding",
    statement="`q` is `[B, Q, d]`, `k` and `v` are `[B, K, d]`, and `is_pad` is a `[B, K]` bool "
              "tensor, True where a key is padding (every sample has at least one real key). "
              "This function is meant to return scaled dot-product attention in which no query "
              "attends to a padded key. It runs, and returns `[B, Q, d]`, but computes something "
              "else:\n\n"
              "    def attend_real_keys(q, k, v, is_pad):\n"
              "        mask = is_pad[:, None, :]            # [B, 1, K]\n"
              "        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)\n\n"
              "Write the fixed `attend_real_keys(q, k, v, is_pad)`. No Python loops.",
    inputs=_attention_inputs(),
    edge_cases=[
        (torch.tensor([[[1.]]]), torch.tensor([[[1.], [2.]]]), torch.tensor([[[3.], [5.]]]),
         torch.tensor([[False, True]])),
        (torch.tensor([[[1.]]]), torch.tensor([[[1.], [2.]]]), torch.tensor([[[3.], [5.]]]),
         torch.tensor([[False, False]])),
        (torch.zeros(2, 1, 1), torch.zeros(2, 3, 1), torch.tensor([[[1.], [2.], [3.]],
                                                                   [[4.], [5.], [6.]]]),
         torch.tensor([[False, True, False], [True, True, False]])),
    ],
    hint="Which keys does a bool `attn_mask` of `scaled_dot_product_attention` keep: those "
         "where it is True or those where it is False? Compare with `nn.MultiheadAttention`'s "
         "`key_padding_mask`.",
    rules=[rules.no_loops()],
    solution=_attend_real_keys_solution,
    wrong=[("the padding mask passed as attn_mask", _padding_passed_as_attn_mask),
           ("queries masked instead of keys", _queries_masked)],
    atol=1e-5,
    rtol=1e-5,
)
def attend_real_keys(q, k, v, is_pad):
    """For every sample: softmax(q k^T / sqrt(d)) over its real keys only, times their values."""
    out = torch.zeros(q.shape[0], q.shape[1], v.shape[2], dtype=q.dtype)
    for b in range(q.shape[0]):
        real = ~is_pad[b]
        scores = q[b] @ k[b][real].T / math.sqrt(q.shape[-1])
        out[b] = torch.softmax(scores, dim=-1) @ v[b][real]
    return out


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
