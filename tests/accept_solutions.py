"""Correct answers a learner might write, several per exercise, that ``tl.check`` must accept.

Each exercise's alternatives use genuinely different spellings (other torch APIs, method versus
function, keyword arguments, helpers, local imports, annotations, loops where the rules allow
them), so a stricter checker that starts rejecting right answers is caught by
``tests/test_exercises_accept.py``. This file is also executed as if it were one notebook cell
(``__name__ == "__main__"``, source served by ``linecache``), the way Jupyter defines functions.

``ALTERNATIVES`` maps an exercise id to the names of its accepted functions in this module.
"""

import functools
import json
import math
import struct
from itertools import zip_longest

import torch
import torch.nn.functional as F


# ---------------------------------------------------------------- autograd.relu_backward


def relu_backward_mul(x, grad_output):
    return grad_output * (x > 0).to(grad_output.dtype)


def relu_backward_masked_fill(x, grad_output):
    return grad_output.masked_fill(~(x > 0), 0)


def relu_backward_where_scalar(x, grad_output):
    return torch.where(x.gt(0), grad_output, 0.0)


# ---------------------------------------------------------------- autograd.mse_grad


def mse_grad_transpose(data, w, target):
    n = data.shape[0]
    residual = data @ w - target
    return 2 * data.t() @ residual / n


def mse_grad_matmul(data, w, target):
    """Same formula with torch.matmul and transpose(0, 1)."""
    r = torch.matmul(data, w).sub(target)
    return torch.matmul(data.transpose(0, 1), r).mul(2 / len(data))


def mse_grad_broadcast(data, w, target):
    # (N, K) * (N, 1) -> mean over the samples -> (1, K) -> a column
    r = data @ w - target
    return 2 * (data * r).mean(dim=0, keepdim=True).T


def mse_grad_einsum(data, w, target):
    n = data.size(0)
    r = (data @ w - target).squeeze(1)
    return (2.0 / n) * torch.einsum("nk,n->k", data, r).unsqueeze(1)


# ---------------------------------------------------------------- basics.scale_rows


def scale_rows_min_max_values(x):
    lo = x.min(dim=1, keepdim=True).values
    hi = x.max(dim=1, keepdim=True).values
    span = hi - lo
    return (x - lo) / torch.where(span == 0, torch.ones_like(span), span)


def scale_rows_none_index(x):
    lo, hi = x.amin(dim=-1)[:, None], x.amax(dim=-1)[:, None]
    span = (hi - lo).masked_fill(hi == lo, 1.0)
    return torch.sub(x, lo).div(span)


def scale_rows_aminmax(x):
    lo, hi = torch.aminmax(x, dim=1, keepdim=True)
    span = hi - lo
    span[span == 0] = 1
    return (x - lo) / span


# ---------------------------------------------------------------- basics.interleave


def interleave_cat(a, b):
    pairs = torch.cat([a.unsqueeze(1), b.unsqueeze(1)], dim=1)
    return pairs.view(2 * a.shape[0], *a.shape[1:])


def interleave_stack_function(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.flatten(torch.stack([a, b], 1), start_dim=0, end_dim=1)


def interleave_index(a, b):
    out = torch.empty((2 * len(a),) + tuple(a.shape[1:]), dtype=a.dtype)
    out[0::2] = a
    out[1::2] = b
    return out


# ---------------------------------------------------------------- basics.image_difference


def image_difference_max_min(a, b):
    # no widening: the larger minus the smaller never goes below 0
    return torch.maximum(a, b) - torch.minimum(a, b)


def image_difference_where(a, b):
    return torch.where(a > b, a - b, b - a)


def image_difference_int32(a, b):
    return torch.abs(a.int() - b.int()).to(dtype=torch.uint8)


# ---------------------------------------------------------------- basics.tiles


def tiles_permute(img, k):
    h, w = img.shape
    grid = img.view(h // k, k, w // k, k).permute(0, 2, 1, 3)
    return grid.reshape(-1, k, k)


def tiles_split_cat(img, k):
    # row strips side by side: (k, rows * W); each k columns of that is one tile
    strips = torch.cat(img.split(k, dim=0), dim=1)
    return strips.reshape(k, -1, k).transpose(0, 1)


def tiles_unfold(img, k):
    patches = img.unfold(0, k, k).unfold(1, k, k)  # (rows, cols, k, k)
    return patches.reshape(-1, k, k)


# ---------------------------------------------------------------- broadcasting.events_per_window


def events_per_window_unsqueeze(times, starts, ends):
    t = times.unsqueeze(1)
    return torch.logical_and(t >= starts, t < ends).sum(0)


def events_per_window_rows(times, starts, ends):
    inside = (starts[:, None] <= times) & (times < ends[:, None])   # (m, n)
    return inside.long().sum(dim=1)


def events_per_window_count_nonzero(times, starts, ends):
    t = times.reshape(-1, 1)
    return torch.count_nonzero((t >= starts) * (t < ends), dim=0)


# ---------------------------------------------------------------- broadcasting.batched_nearest_center


def batched_nearest_center_expansion(points, centers):
    p, c = points.double(), centers.double()
    sq = (p * p).sum(-1, keepdim=True) + (c * c).sum(-1)[:, None, :] - 2 * p @ c.transpose(1, 2)
    return sq.argmin(dim=-1)


def batched_nearest_center_unsqueeze(points, centers):
    diff = points.unsqueeze(2) - centers.unsqueeze(1)
    return torch.argmin((diff.double() ** 2).sum(-1), dim=-1)


def batched_nearest_center_min(points, centers):
    dists = ((points[..., None, :] - centers[..., None, :, :]) ** 2).sum(dim=3)
    return dists.min(dim=2).indices


# ---------------------------------------------------------------- broadcasting.cosine_matrix


def cosine_matrix_keepdim(x, y):
    return x @ y.T / (x.norm(dim=1, keepdim=True) * y.norm(dim=1))


def cosine_matrix_normalize(x, y):
    return F.normalize(x, dim=1) @ F.normalize(y, dim=1).T


def cosine_matrix_outer(x, y):
    return torch.matmul(x, y.transpose(0, 1)) / torch.outer(x.norm(dim=-1), y.norm(dim=-1))


def cosine_matrix_functional(x, y):
    return F.cosine_similarity(x[:, None, :], y[None, :, :], dim=-1)


# ---------------------------------------------------------------- broadcasting.pairwise_l1


def pairwise_l1_per_feature(x, y):
    out = torch.zeros(len(x), len(y), dtype=x.dtype)
    for k in range(x.shape[1]):
        out = out + torch.abs(x[:, k].unsqueeze(1) - y[:, k].unsqueeze(0))
    return out


def pairwise_l1_per_row(x, y):
    """One row of the table at a time: an (m, d) intermediate, never (n, m, d)."""
    out = torch.empty(x.shape[0], y.shape[0], dtype=x.dtype)
    for i in range(x.shape[0]):
        out[i] = (x[i] - y).abs().sum(dim=1)
    return out


def pairwise_l1_in_place(x, y):
    n, d = x.shape
    out = x.new_zeros(n, y.shape[0])
    for k in range(d):
        out.add_((x[:, k:k + 1] - y[:, k]).abs_())
    return out


# ---------------------------------------------------------------- broadcasting.broadcast_shape


def broadcast_shape_zip_longest(a, b):
    out = []
    for p, q in zip_longest(reversed(a), reversed(b), fillvalue=1):
        if p == q or q == 1:
            out.append(p)
        elif p == 1:
            out.append(q)
        else:
            return None
    return tuple(reversed(out))


def _merge(p, q):
    if p == 1:
        return q
    if q == 1 or p == q:
        return p
    return None


def broadcast_shape_helper(a: tuple, b: tuple) -> tuple | None:
    """A helper per dim, a comprehension over the padded shapes."""
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + list(a)
    b = [1] * (n - len(b)) + list(b)
    dims = [_merge(p, q) for p, q in zip(a, b)]
    return None if None in dims else tuple(dims)


def broadcast_shape_negative_index(a, b):
    result = ()
    i = -1
    while i >= -max(len(a), len(b)):
        p = a[i] if -i <= len(a) else 1
        q = b[i] if -i <= len(b) else 1
        if p != q and 1 not in (p, q):
            return None
        result = (q if p == 1 else p,) + result
        i -= 1
    return result


# ---------------------------------------------------------------- expand.match_to


def match_to_view(w, x, dim):
    shape = [1] * x.dim()
    shape[dim] = len(w)              # a list index: a negative dim counts from the end
    return w.view(shape).expand_as(x)


def match_to_reshape(w, x, dim):
    d = dim + x.dim() if dim < 0 else dim
    return w.reshape((-1,) + (1,) * (x.dim() - d - 1)).expand(x.shape)


def match_to_movedim(w, x, dim):
    # stretch w along new leading dims, then move its own dim into place
    d = dim % x.dim()
    others = x.shape[:d] + x.shape[d + 1:]
    return w.expand(*others, len(w)).movedim(-1, d)


def match_to_as_strided(w, x, dim):
    strides = [0] * x.dim()
    strides[dim] = w.stride(0)
    return torch.as_strided(w, x.shape, strides, w.storage_offset())


# ---------------------------------------------------------------- expand.pair_features


def pair_features_minus_one(a, b):
    n, m = len(a), len(b)
    return torch.cat((a.unsqueeze(1).expand(-1, m, -1), b.unsqueeze(0).expand(n, -1, -1)), -1)


def pair_features_broadcast_to(a, b):
    n, d = a.shape
    m, e = b.shape
    left = torch.broadcast_to(a.view(n, 1, d), (n, m, d))
    right = torch.broadcast_to(b.view(1, m, e), (n, m, e))
    return torch.concat([left, right], dim=2)


def pair_features_index(a, b):
    # advanced indexing builds the pairs too
    rows = torch.arange(len(a))[:, None].expand(len(a), len(b))
    cols = torch.arange(len(b))[None, :].expand(len(a), len(b))
    return torch.cat([a[rows], b[cols]], dim=-1)


# ---------------------------------------------------------------- expand.repeat_rows


def repeat_rows_flatten(x, k):
    return x.unsqueeze(1).expand(-1, k, -1).flatten(0, 1)


def repeat_rows_contiguous(x, k):
    n, d = x.shape
    return x[:, None].expand(n, k, d).contiguous().view(n * k, d)


def repeat_rows_broadcast_to(x, k):
    n, d = x.shape
    return torch.broadcast_to(x[:, None, :], (n, k, d)).reshape(n * k, d)


# ---------------------------------------------------------------- expand.source_grad


def source_grad_loops(g, shape):
    while g.dim() > len(shape):
        g = g.sum(dim=0)
    for d, n in enumerate(shape):
        if n == 1:
            g = g.sum(dim=d, keepdim=True)
    return g


def source_grad_padded(g, shape):
    padded = (1,) * (g.dim() - len(shape)) + tuple(shape)
    dims = tuple(d for d, n in enumerate(padded) if n == 1)
    summed = g.sum(dim=dims, keepdim=True) if dims else g
    return summed.reshape(shape)


def source_grad_two_steps(g: torch.Tensor, shape) -> torch.Tensor:
    lead = g.dim() - len(shape)
    if lead > 0:
        g = torch.sum(g, dim=list(range(lead)))
    ones = [d for d in range(len(shape)) if shape[d] == 1]
    return torch.sum(g, dim=ones, keepdim=True) if ones else g


# ---------------------------------------------------------------- indexing.pick_per_token


def pick_per_token_broadcast_index(scores, labels):
    n, t = labels.shape
    keep = labels != -100
    picked = scores[torch.arange(n)[:, None], torch.arange(t), labels.clamp(min=0)]
    return picked.masked_fill(~keep, 0)


def pick_per_token_take_along(scores, labels):
    ignored = labels.eq(-100)
    safe = torch.where(ignored, torch.zeros_like(labels), labels)
    picked = torch.take_along_dim(scores, safe[..., None], dim=-1)[..., 0]
    return torch.where(ignored, torch.zeros_like(picked), picked)


def pick_per_token_flat(scores, labels):
    c = scores.shape[-1]
    flat = scores.reshape(-1, c)
    rows = torch.arange(flat.shape[0])
    safe = labels.reshape(-1).clamp(min=0)
    out = flat[rows, safe].where(labels.reshape(-1) != -100, 0)
    return out.reshape(labels.shape)


# ---------------------------------------------------------------- indexing.one_hot


def one_hot_compare(labels, num_classes):
    return (labels[:, None] == torch.arange(num_classes)).float()


def one_hot_eye(labels, num_classes):
    return torch.eye(num_classes)[labels]


def one_hot_scatter(labels, num_classes):
    zeros = torch.zeros(len(labels), num_classes, dtype=torch.float32)
    return zeros.scatter(dim=1, index=labels.view(-1, 1), value=1.0)


def one_hot_assign(labels, num_classes):
    out = labels.new_zeros((labels.shape[0], num_classes), dtype=torch.float32)
    out[torch.arange(len(labels)), labels] = 1
    return out


# ---------------------------------------------------------------- indexing.unshuffle


def unshuffle_argsort(shuffled, perm):
    return shuffled.gather(1, perm.argsort(dim=1))


def unshuffle_assign(shuffled, perm):
    x = torch.zeros_like(shuffled)
    x[torch.arange(perm.shape[0])[:, None], perm] = shuffled
    return x


def unshuffle_take_along(shuffled, perm):
    inverse = torch.empty_like(perm).scatter_(
        1, perm, torch.arange(perm.shape[1]).repeat(perm.shape[0], 1))
    return torch.take_along_dim(shuffled, inverse, dim=1)


# ---------------------------------------------------------------- indexing.channel_histograms


def channel_histograms_bincount(images):
    c = images.size(1)
    values = images.movedim(1, 0).reshape(c, -1).to(torch.int64)
    offsets = values + 256 * torch.arange(c)[:, None]     # one range of 256 bins per channel
    return torch.bincount(offsets.flatten(), minlength=256 * c).view(c, 256)


def channel_histograms_index_put(images):
    c = images.shape[1]
    values = images.permute(1, 0, 2, 3).flatten(1).long()
    channel = torch.arange(c)[:, None].expand_as(values)
    counts = torch.zeros(c, 256, dtype=torch.long)
    counts.index_put_((channel, values), torch.ones_like(values), accumulate=True)
    return counts


def channel_histograms_compare(images):
    c = images.shape[1]
    values = images.transpose(0, 1).reshape(c, -1, 1).long()
    return (values == torch.arange(256)).sum(dim=1)


# ---------------------------------------------------------------- indexing.crop_at


def crop_at_permute(images, top, left, size):
    steps = torch.arange(size)
    rows = top[:, None] + steps                    # (N, size)
    cols = left[:, None] + steps                   # (N, size)
    n = torch.arange(images.shape[0])
    # advanced indices split by a slice: their dims come first, (N, size, size, C)
    return images[n[:, None, None], :, rows[:, :, None], cols[:, None, :]].permute(0, 3, 1, 2)


def crop_at_unfold(images, top, left, size):
    windows = images.unfold(2, size, 1).unfold(3, size, 1)   # (N, C, H', W', size, size)
    return windows[torch.arange(images.shape[0]), :, top, left]


def crop_at_gather(images, top, left, size):
    n, c, h, w = images.shape
    steps = torch.arange(size)
    rows = (top.view(n, 1) + steps).view(n, 1, size, 1).expand(n, c, size, w)
    cols = (left.view(n, 1) + steps).view(n, 1, 1, size).expand(n, c, size, size)
    return images.gather(2, rows).gather(3, cols)


# ---------------------------------------------------------------- memory_layout.transpose_view


def transpose_view_method(x):
    return x.transpose(0, 1)


def transpose_view_permute(x):
    return x.permute(1, 0)


def transpose_view_function(x):
    return torch.transpose(x, dim0=0, dim1=1)


def transpose_view_strides(x):
    rows, cols = x.shape
    return x.as_strided((cols, rows), (x.stride(1), x.stride(0)), x.storage_offset())


# ---------------------------------------------------------------- memory_layout.sliding_windows


def sliding_windows_as_strided(x, k):
    step = x.stride(0)
    return torch.as_strided(x, size=(len(x) - k + 1, k), stride=(step, step),
                            storage_offset=x.storage_offset())


def sliding_windows_keywords(x, k):
    return x.unfold(dimension=0, size=k, step=1)


# ---------------------------------------------------------------- memory_layout.as_column


def as_column_unsqueeze(x):
    return x.unsqueeze(1)


def as_column_view(x):
    return x.view(-1, 1)


def as_column_reshape(x):
    return x.reshape(len(x), 1)


def as_column_transpose(x):
    return x[None].T


# ---------------------------------------------------------------- memory_layout.pixel_rows


def pixel_rows_movedim(images):
    n, c, h, w = images.shape
    return images.movedim(1, -1).reshape(n, h * w, c)


def pixel_rows_flatten(images):
    return images.flatten(2).transpose(1, 2)


def pixel_rows_einsum(images):
    n, c, h, w = images.shape
    return torch.einsum("nchw->nhwc", images).reshape(n, h * w, c)


# ---------------------------------------------------------------- memory_layout.storage_position


def storage_position_loop(x, index):
    pos = x.storage_offset()
    for d, i in enumerate(index):
        if i < 0:
            i += x.size(d)
        pos += i * x.stride(d)
    return pos


def storage_position_map(x, index):
    steps = map(lambda t: (t[0] % t[1]) * t[2], zip(index, x.shape, x.stride()))
    return x.storage_offset() + sum(steps)


def storage_position_tensor(x, index):
    index = torch.tensor(index, dtype=torch.long)
    sizes = torch.tensor(x.shape, dtype=torch.long)
    strides = torch.tensor(x.stride(), dtype=torch.long)
    return x.storage_offset() + int(((index % sizes) * strides).sum())


# ---------------------------------------------------------------- memory_layout.to_channels_last


def to_channels_last_movedim(x):
    return x.movedim(1, -1).contiguous().movedim(-1, 1)


def to_channels_last_strides(x):
    n, c, h, w = x.shape
    expected, ready = 1, True
    for d in (1, 3, 2, 0):          # C, W, H, N: fastest first; size-1 dims skipped
        if x.shape[d] != 1:
            ready = ready and x.stride(d) == expected
            expected *= x.shape[d]
    if ready:
        return x
    out = torch.empty((n, h, w, c), dtype=x.dtype).permute(0, 3, 1, 2)
    out.copy_(x)
    return out


def to_channels_last_check_first(x: torch.Tensor) -> torch.Tensor:
    nhwc = x.permute(0, 2, 3, 1)
    if not nhwc.is_contiguous():
        nhwc = torch.zeros(nhwc.shape, dtype=x.dtype).copy_(nhwc)
    return nhwc.permute(0, 3, 1, 2)


# ---------------------------------------------------------------- memory_layout.windows


def windows_keywords(x, size, step):
    count = (len(x) - size) // step + 1
    return torch.as_strided(x, size=(count, size), stride=(step * x.stride(0), x.stride(0)),
                            storage_offset=x.storage_offset())


def windows_expand_trick(x, size, step):
    n_windows = 1 + (x.numel() - size) // step
    stride = x.stride()[0]
    return x.as_strided([n_windows, size], [stride * step, stride], x.storage_offset())


# ---------------------------------------------------------------- memory_layout.can_view


def can_view_torch_like(x, shape):
    """ATen's computeStride walk, from the right, as a yes/no."""
    if x.numel() == 0:
        return True
    old, strides, new = list(x.shape), list(x.stride()), list(shape)
    view_d = len(new) - 1
    base, t_numel, v_numel = strides[-1], 1, 1
    for d in range(len(old) - 1, -1, -1):
        t_numel *= old[d]
        if d == 0 or (old[d - 1] != 1 and strides[d - 1] != t_numel * base):
            while view_d >= 0 and (v_numel < t_numel or new[view_d] == 1):
                v_numel *= new[view_d]
                view_d -= 1
            if v_numel != t_numel:
                return False
            if d > 0:
                base, t_numel, v_numel = strides[d - 1], 1, 1
    return view_d == -1


def can_view_chunk_sizes(x, shape):
    if 0 in x.shape:
        return True
    chunks, prev = [], None
    for n, s in zip(x.shape, x.stride()):
        if n == 1:
            continue
        if prev is not None and prev == s * n:
            chunks[-1] *= n
        else:
            chunks.append(n)
        prev = s
    wanted = iter([n for n in shape if n != 1])
    for c in chunks:
        acc = 1
        while acc < c:
            acc *= next(wanted, 0) or c + 1
        if acc != c:
            return False
    return next(wanted, None) is None


# ---------------------------------------------------------------- performance.moving_average


def moving_average_sum(x, k):
    return x.unfold(0, k, 1).sum(-1) / k


def moving_average_as_strided(x, k):
    windows = x.as_strided((x.numel() - k + 1, k), (x.stride(0), x.stride(0)))
    return windows.mean(dim=-1)


def moving_average_avg_pool(x, k):
    return F.avg_pool1d(x[None, None], kernel_size=k, stride=1)[0, 0]


def moving_average_conv(x, k):
    kernel = torch.full((1, 1, k), 1 / k, dtype=x.dtype)
    return F.conv1d(x.view(1, 1, -1), kernel).view(-1)


# ---------------------------------------------------------------- performance.weighted_sum_into


def weighted_sum_into_fill(tensors, weights, out):
    out.fill_(0)
    for t, w in zip(tensors, weights):
        torch.addcmul(out, t, w[:, None, None], out=out)
    return out


def weighted_sum_into_first_term(tensors, weights, out):
    if not tensors:
        return out.zero_()
    torch.mul(tensors[0], weights[0].view(-1, 1, 1), out=out)
    for i in range(1, len(tensors)):
        out.addcmul_(weights[i].reshape(-1, 1, 1), tensors[i])
    return out


def weighted_sum_into_per_channel(tensors, weights, out):
    out.mul_(0)
    for w, t in zip(weights, tensors):
        for c in range(out.shape[0]):
            out[c].add_(t[c], alpha=w[c].item())
    return out


# ---------------------------------------------------------------- performance.running_totals


def running_totals_clone(x):
    total = torch.zeros(x.shape[1], dtype=x.dtype)
    rows = []
    for row in x:
        torch.add(total, row, out=total)
        rows.append(total.clone())
    return torch.stack(rows)


def running_totals_fresh(x):
    rows, total = [], torch.zeros_like(x[0])
    for row in x:
        total = total + row
        rows.append(total)
    return torch.stack(rows)


def running_totals_method(x):
    return x.cumsum(0)


# ---------------------------------------------------------------- performance.largest_allocation


def largest_allocation_events(fn, x):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn(x)
    best = ("", -1)
    for event in prof.events():
        if (event.cpu_parent is None and event.name.startswith("aten::")
                and event.cpu_memory_usage > best[1]):
            best = (event.name, event.cpu_memory_usage)
    return best


def largest_allocation_sorted(fn, x):
    with torch.profiler.profile(profile_memory=True) as prof:
        fn(x)
    rows = sorted(((e.cpu_memory_usage, e.name) for e in prof.events()
                   if e.name.startswith("aten::") and e.cpu_parent is None), reverse=True)
    return rows[0][1], int(rows[0][0])


# ---------------------------------------------------------------- practice.weighted_mse


def weighted_mse_mse_loss(pred, target, weights):
    per_sample = F.mse_loss(pred, target, reduction="none").mean(dim=-1)
    return torch.sum(per_sample * weights) / torch.sum(weights)


def weighted_mse_dot(pred, target, weights):
    errors = (pred - target).pow(2).mean(1)
    return weights @ errors / weights.sum()


def weighted_mse_column(pred, target, weights):
    w = weights[:, None]                                  # [B, 1] against [B, D]
    return (w * (pred - target) ** 2).sum() / (w.sum() * pred.shape[1])


# ---------------------------------------------------------------- practice.masked_mean


def masked_mean_masked_fill(x, lengths):
    pad = torch.arange(x.size(1)).unsqueeze(0) >= lengths.unsqueeze(1)
    total = x.masked_fill(pad.unsqueeze(-1), 0).sum(1)
    return total / lengths.unsqueeze(1).to(x.dtype)


def masked_mean_einsum(x, lengths):
    mask = (torch.arange(x.shape[1]) < lengths.view(-1, 1)).to(x.dtype)
    return torch.einsum("bl,bld->bd", mask, x) / mask.sum(dim=1, keepdim=True)


def masked_mean_cumsum(x, lengths):
    sums = x.cumsum(dim=1)
    picked = sums[torch.arange(x.shape[0]), lengths - 1]
    return picked / lengths[:, None]


# ---------------------------------------------------------------- practice.sequence_loss


def sequence_loss_flatten(logits, targets, weights):
    """Flatten to [B * L, C], then fold the per-token losses back to [B, L]."""
    B, L, C = logits.shape
    per_token = F.cross_entropy(logits.reshape(B * L, C), targets.reshape(B * L),
                                reduction="none").reshape(B, L)
    counts = (targets != -100).sum(dim=1)
    return torch.sum(weights * per_token.sum(dim=1) / counts) / torch.sum(weights)


def sequence_loss_log_softmax(logits, targets, weights):
    """By hand: gather the log-probability of each target, masking the padding."""
    real = targets >= 0
    logp = logits.log_softmax(dim=-1)
    picked = logp.gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    per_sentence = -(picked * real).sum(dim=1) / real.sum(dim=1)
    return (per_sentence * weights).sum() / weights.sum()


def sequence_loss_permute_masked_mean(logits, targets, weights):
    per_token = F.cross_entropy(logits.permute(0, 2, 1), targets, reduction="none")
    mask = (targets != -100).to(logits.dtype)
    per_sentence = (per_token * mask).sum(1) / mask.sum(1)
    return (weights / weights.sum() * per_sentence).sum()


# ---------------------------------------------------------------- practice.sliding_window_mask


def sliding_window_mask_tril_triu(lengths, length, window):
    ones = torch.ones(length, length, dtype=torch.bool)
    band = torch.tril(ones) & torch.triu(ones, diagonal=1 - window)
    keys = torch.arange(length)[None, :] < lengths[:, None]
    return band.unsqueeze(0) & keys.unsqueeze(1)


def sliding_window_mask_compare(lengths, length, window):
    i = torch.arange(length).view(1, -1, 1)
    j = torch.arange(length).view(1, 1, -1)
    return (j <= i) & (i - j < window) & (j < lengths.view(-1, 1, 1))


# ---------------------------------------------------------------- precision.overflows


def overflows_not_nan(x, dtype):
    cast = x.to(dtype)
    return torch.isinf(cast) & ~torch.isinf(x) & ~torch.isnan(x)


def overflows_logical(x, dtype):
    return torch.logical_and(x.isfinite(), x.to(dtype=dtype).isinf())


def overflows_abs(x, dtype):
    return (x.to(dtype).abs() == math.inf) & (x.abs() < math.inf)


# ---------------------------------------------------------------- precision.half_mean


def half_mean_double(x):
    return (x.double().sum() / x.numel()).half()


def half_mean_sum_dtype(x):
    return (x.sum(dtype=torch.float32) / len(x)).to(torch.float16)


def half_mean_function(x: torch.Tensor) -> torch.Tensor:
    return torch.mean(x, dtype=torch.float32).to(dtype=torch.float16)


# ---------------------------------------------------------------- precision.spacing


def spacing_nextafter(x):
    return x.nextafter(x.new_tensor(float("inf"))) - x


def spacing_frexp(x):
    _, exponent = torch.frexp(x)
    eps = torch.finfo(x.dtype).eps
    return torch.ldexp(torch.full_like(x, eps), exponent - 1)


def spacing_bits(x):
    as_int = {4: torch.int32, 2: torch.int16}[x.element_size()]
    return (x.view(as_int) + 1).view(x.dtype) - x


# ---------------------------------------------------------------- precision.autocast_dtypes


AUTOCAST_GROUPS = {"matmul": "lower", "linear": "lower", "mse_loss": "float32",
                   "prod": "float32"}


def autocast_dtypes_table(steps):
    out = []
    for op, *operands in steps:
        dtypes = [out[o] if type(o) is int else o for o in operands]
        group = AUTOCAST_GROUPS.get(op)
        if op == "float":
            out.append(torch.float32)
            continue
        if group is not None:
            target = torch.bfloat16 if group == "lower" else torch.float32
            dtypes = [d if d is torch.float64 else target for d in dtypes]
        out.append(functools.reduce(torch.promote_types, dtypes))
    return out


def autocast_dtypes_by_running(steps):
    """The casts autocast makes, done by hand on empty tensors, then promotion."""
    results: list[torch.dtype] = []
    for step in steps:
        op, operands = step[0], step[1:]
        ins = [torch.empty(0, dtype=results[o] if isinstance(o, int) else o)
               for o in operands]
        if op in ("matmul", "linear"):
            ins = [t if t.dtype == torch.float64 else t.bfloat16() for t in ins]
        elif op in ("mse_loss", "prod"):
            ins = [t if t.dtype == torch.float64 else t.float() for t in ins]
        elif op == "float":
            ins = [ins[0].float()]
        results.append(torch.result_type(*ins) if len(ins) == 2 else ins[0].dtype)
    return results


# ---------------------------------------------------------------- precision.bytes_kept


def bytes_kept_set(tensors):
    seen, total = set(), 0
    for t in tensors:
        s = t.untyped_storage()
        if s.data_ptr() not in seen:
            seen.add(s.data_ptr())
            total += s.nbytes()
    return total


def bytes_kept_shares(tensors):
    unique = []
    for t in tensors:
        if not any(t.untyped_storage().data_ptr() == u.untyped_storage().data_ptr()
                   for u in unique):
            unique.append(t)
    return sum(u.untyped_storage().nbytes() for u in unique)


# ---------------------------------------------------------------- saving.strip_module_prefix


def strip_prefix_slice(items):
    prefixes = ("module.", "_orig_mod.")
    out = []
    for name, value in items:
        stripped = True
        while stripped:
            stripped = False
            for prefix in prefixes:
                if name.startswith(prefix):
                    name = name[len(prefix):]
                    stripped = True
        out.append((name, value))
    return out


def strip_prefix_partition(items):
    def fix(name):
        head, dot, rest = name.partition(".")
        return fix(rest) if head in ("module", "_orig_mod") and dot else name
    return [(fix(k), v) for k, v in items]


# ---------------------------------------------------------------- saving.snapshot


def snapshot_bytesio(tensors):
    import io
    buffer = io.BytesIO()
    torch.save(tensors, buffer)
    buffer.seek(0)
    return torch.load(buffer)


def snapshot_storages(tensors):
    copies, out = {}, []
    for t in tensors:
        key = t.untyped_storage().data_ptr()
        if key not in copies:
            copies[key] = t.untyped_storage().clone()
        view = torch.empty(0, dtype=t.dtype)
        view.set_(copies[key], t.storage_offset(), t.shape, t.stride())
        out.append(view)
    return out


# ---------------------------------------------------------------- saving.compact_for_saving


def compact_size(t):
    if t.untyped_storage().size() > t.nelement() * t.itemsize:
        return t.clone(memory_format=torch.contiguous_format)
    return t


def compact_empty_like(t):
    needed = t.numel() * t.element_size()
    if t.untyped_storage().nbytes() <= needed:
        return t
    return torch.empty_like(t, memory_format=torch.contiguous_format).copy_(t)


# ---------------------------------------------------------------- saving.safetensors_tensor


def safetensors_tensor_struct(data, name):
    """struct for the length, bytearray for the bytes, an explicit empty case."""
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    info = header[name]
    codes = {"F32": torch.float32, "F16": torch.float16, "I64": torch.int64,
             "U8": torch.uint8, "BOOL": torch.bool}
    dtype = codes[info["dtype"]]
    begin, end = (8 + n + offset for offset in info["data_offsets"])
    if begin == end:
        return torch.empty(info["shape"], dtype=dtype)
    return torch.frombuffer(bytearray(data[begin:end]), dtype=dtype).reshape(info["shape"])


def safetensors_tensor_numpy(data: bytes, name: str):
    """Through NumPy: np.frombuffer with a little-endian dtype, then torch.from_numpy."""
    import numpy as np

    n = int.from_bytes(data[:8], byteorder="little")
    info = json.loads(bytes(data[8:8 + n]))[name]
    as_numpy = {"F32": "<f4", "F16": "<f2", "I64": "<i8", "U8": "u1", "BOOL": "?"}
    start = 8 + n + info["data_offsets"][0]
    stop = 8 + n + info["data_offsets"][1]
    array = np.frombuffer(data[start:stop], dtype=as_numpy[info["dtype"]]).copy()
    return torch.from_numpy(array).reshape(tuple(info["shape"]))



# ---------------------------------------------------------------- data.image_batch


def image_batch_movedim(images):
    """movedim, to(dtype), multiply by the reciprocal, contiguous() last."""
    return (torch.movedim(images, -1, 1).to(torch.float32) * (1 / 255)).contiguous()


def image_batch_memory_format(images):
    """Divide first (the result is float), then clone into the contiguous format."""
    scaled = images.permute(0, 3, 1, 2) / 255.0
    return scaled.clone(memory_format=torch.contiguous_format)


# ---------------------------------------------------------------- data.pad_images


def pad_images_functional(images):
    """F.pad each image on the right and at the bottom, then stack."""
    h = max(im.size(1) for im in images)
    w = max(im.size(2) for im in images)
    padded = [F.pad(im, (0, w - im.size(2), 0, h - im.size(1))) for im in images]
    sizes = torch.tensor([list(im.shape[1:]) for im in images], dtype=torch.long)
    return torch.stack(padded), sizes


def pad_images_full(images: list) -> tuple:
    """torch.full with 0.0, sizes built row by row."""
    c = images[0].shape[0]
    h, w = (max(dims) for dims in zip(*(im.shape[1:] for im in images)))
    batch = torch.full((len(images), c, h, w), 0.0, dtype=images[0].dtype)
    sizes = torch.empty(len(images), 2, dtype=torch.int64)
    for i, im in enumerate(images):
        _, ih, iw = im.shape
        batch[i, :, :ih, :iw].copy_(im)
        sizes[i] = torch.tensor([ih, iw])
    return (batch, sizes)


# ---------------------------------------------------------------- data.fill_rows


def fill_rows_new_empty(batches):
    """new_empty keeps the dtype; the offsets from a running sum."""
    first = batches[0]
    out = first.new_empty((sum(b.shape[0] for b in batches), first.shape[1]))
    offset = 0
    for b in batches:
        n = b.shape[0]
        out[offset:offset + n].copy_(b)
        offset += n
    return out


def fill_rows_narrow(batches):
    """narrow() to the place of each batch, offsets computed first."""
    lengths = [len(b) for b in batches]
    out = torch.empty(sum(lengths), batches[0].size(1), dtype=batches[0].dtype)
    starts = [sum(lengths[:i]) for i in range(len(lengths))]
    for b, s in zip(batches, starts):
        out.narrow(0, s, len(b)).copy_(b)
    return out


# ---------------------------------------------------------------- autograd.penalty_grad


def penalty_grad_backward(w, x, lam):
    """create_graph=True, then .backward() into a fresh leaf's .grad."""
    w = w.clone().requires_grad_(True)
    x = x.clone().requires_grad_(True)
    f = x.matmul(w).tanh().sum()
    (gx,) = torch.autograd.grad(f, x, create_graph=True)
    (f + lam * gx.pow(2).sum()).backward()
    return w.grad


def penalty_grad_by_hand(w, x, lam):
    """No autograd: the derivative written out."""
    t = torch.tanh(x @ w)
    s = 1 - t * t
    return x.T @ s + lam * (2 * (s * s).sum() * w
                            + (w * w).sum() * (x.T @ (-4 * t * s * s)))


def penalty_grad_func(w, x, lam):
    """torch.func: grad of a function that itself takes a grad."""
    from torch.func import grad

    def f(w_, x_):
        return torch.tanh(x_ @ w_).sum()

    def loss(w_):
        return f(w_, x) + lam * (grad(f, argnums=1)(w_, x) ** 2).sum()

    return grad(loss)(w)


# ---------------------------------------------------------------- autograd.straight_through_clamp


def clamp_st_detach_trick(x, low, high):
    """The straight-through estimator without a Function: x plus a detached correction."""
    return x + (x.clamp(low, high) - x).detach()


class _ClampST(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        return torch.clamp(x, min=low, max=high)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.clone(), None, None


def clamp_st_ctx_attributes(x, low, high):
    """A module-level Function that takes low and high as inputs (None gradients for them)."""
    return _ClampST.apply(x, low, high)


# ---------------------------------------------------------------- the list


# ---------------------------------------------------------------- layers.class_targets


def class_targets_squeeze_dim(labels):
    return labels.squeeze(1).long()


def class_targets_flatten_to(labels):
    return torch.flatten(labels).to(dtype=torch.long)


# ---------------------------------------------------------------- layers.multilabel_loss


def multilabel_loss_mask(logits, labels):
    real = labels >= 0
    hot = F.one_hot(labels.clamp(min=0), logits.shape[1]) * real.unsqueeze(-1)
    target = hot.sum(dim=1).float()
    return torch.nn.BCEWithLogitsLoss()(logits, target)


def multilabel_loss_index_put(logits, labels):
    target = torch.zeros_like(logits)
    rows = torch.arange(labels.shape[0]).unsqueeze(1).expand_as(labels)
    keep = labels.ge(0)
    target[rows[keep], labels[keep]] = 1.0
    return F.binary_cross_entropy(torch.sigmoid(logits), target)


# ---------------------------------------------------------------- layers.segmentation_loss


def segmentation_loss_flatten(logits, target):
    c = logits.shape[-1]
    return F.cross_entropy(logits.reshape(-1, c), target.reshape(-1))


def segmentation_loss_movedim(logits, target):
    return torch.nn.CrossEntropyLoss()(torch.movedim(logits, -1, 1), target)


def segmentation_loss_nll(logits, target):
    log_p = F.log_softmax(logits, dim=3)
    return F.nll_loss(log_p.permute(0, 3, 1, 2), target)


# ---------------------------------------------------------------- layers.unregistered


def unregistered_named_modules(model):
    registered = {id(p) for p in model.parameters()}
    registered |= {id(b) for b in model.buffers()}
    out = []

    def held_by(layer, name):
        for n, t in [*layer.named_parameters(), *layer.named_buffers()]:
            if id(t) not in registered:
                out.append((f"{name}.{n}", t.numel()))
        scan(layer, name + ".")

    def scan(root, base):
        for mod_name, mod in root.named_modules():
            prefix = base + (mod_name + "." if mod_name else "")
            for attr, value in mod.__dict__.items():
                if attr.startswith("_"):
                    continue
                if isinstance(value, torch.Tensor):
                    if id(value) not in registered:
                        out.append((prefix + attr, value.numel()))
                elif isinstance(value, (list, tuple)):
                    for i, item in enumerate(value):
                        if isinstance(item, torch.Tensor) and id(item) not in registered:
                            out.append((f"{prefix}{attr}.{i}", item.numel()))
                        elif isinstance(item, torch.nn.Module):
                            held_by(item, f"{prefix}{attr}.{i}")

    scan(model, "")
    return sorted(out, key=lambda pair: pair[0])



def unregistered_stack(model):
    """The same walk with an explicit stack of (prefix, object) pairs instead of recursion."""
    known = set(map(id, model.parameters())) | set(map(id, model.buffers()))
    found = []
    stack = [("", model, False)]
    while stack:
        prefix, module, in_list = stack.pop()
        if in_list:
            for n, t in list(module.named_parameters()) + list(module.named_buffers()):
                if id(t) not in known:
                    found.append((prefix + n, t.numel()))
        for attr, value in vars(module).items():
            if attr[0] == "_":
                continue
            seq = value if isinstance(value, (list, tuple)) else None
            for i, item in enumerate(seq if seq is not None else [value]):
                name = prefix + attr + (f".{i}" if seq is not None else "")
                if isinstance(item, torch.Tensor) and id(item) not in known:
                    found.append((name, item.numel()))
                elif seq is not None and isinstance(item, torch.nn.Module):
                    stack.append((name + ".", item, True))
        for child, sub in module.named_children():
            stack.append((prefix + child + ".", sub, False))
    found.sort()
    return found

ALTERNATIVES = {
    "autograd.penalty_grad": ["penalty_grad_backward", "penalty_grad_by_hand",
                              "penalty_grad_func"],
    "autograd.straight_through_clamp": ["clamp_st_detach_trick", "clamp_st_ctx_attributes"],
    "autograd.relu_backward": ["relu_backward_mul", "relu_backward_masked_fill",
                               "relu_backward_where_scalar"],
    "autograd.mse_grad": ["mse_grad_transpose", "mse_grad_matmul", "mse_grad_broadcast",
                          "mse_grad_einsum"],
    "basics.scale_rows": ["scale_rows_min_max_values", "scale_rows_none_index", "scale_rows_aminmax"],
    "basics.interleave": ["interleave_cat", "interleave_stack_function", "interleave_index"],
    "basics.tiles": ["tiles_permute", "tiles_split_cat", "tiles_unfold"],
    "basics.image_difference": ["image_difference_max_min", "image_difference_where",
                                "image_difference_int32"],
    "broadcasting.events_per_window": ["events_per_window_unsqueeze", "events_per_window_rows",
                                       "events_per_window_count_nonzero"],
    "broadcasting.batched_nearest_center": ["batched_nearest_center_expansion",
                                            "batched_nearest_center_unsqueeze",
                                            "batched_nearest_center_min"],
    "broadcasting.cosine_matrix": ["cosine_matrix_keepdim", "cosine_matrix_normalize",
                                   "cosine_matrix_outer", "cosine_matrix_functional"],
    "broadcasting.pairwise_l1": ["pairwise_l1_per_feature", "pairwise_l1_per_row",
                                 "pairwise_l1_in_place"],
    "broadcasting.broadcast_shape": ["broadcast_shape_zip_longest", "broadcast_shape_helper",
                                     "broadcast_shape_negative_index"],
    "expand.match_to": ["match_to_reshape", "match_to_view", "match_to_movedim",
                        "match_to_as_strided"],
    "expand.pair_features": ["pair_features_minus_one", "pair_features_broadcast_to",
                             "pair_features_index"],
    "expand.repeat_rows": ["repeat_rows_flatten", "repeat_rows_contiguous",
                           "repeat_rows_broadcast_to"],
    "expand.source_grad": ["source_grad_loops", "source_grad_padded", "source_grad_two_steps"],
    "indexing.pick_per_token": ["pick_per_token_broadcast_index", "pick_per_token_take_along",
                                "pick_per_token_flat"],
    "indexing.one_hot": ["one_hot_compare", "one_hot_eye", "one_hot_scatter", "one_hot_assign"],
    "indexing.unshuffle": ["unshuffle_argsort", "unshuffle_assign", "unshuffle_take_along"],
    "indexing.channel_histograms": ["channel_histograms_bincount", "channel_histograms_index_put",
                                    "channel_histograms_compare"],
    "indexing.crop_at": ["crop_at_permute", "crop_at_unfold", "crop_at_gather"],
    "memory_layout.transpose_view": ["transpose_view_method", "transpose_view_permute",
                                     "transpose_view_function", "transpose_view_strides"],
    "memory_layout.sliding_windows": ["sliding_windows_as_strided", "sliding_windows_keywords"],
    "memory_layout.as_column": ["as_column_unsqueeze", "as_column_view", "as_column_reshape",
                                "as_column_transpose"],
    "memory_layout.storage_position": ["storage_position_loop", "storage_position_map",
                                       "storage_position_tensor"],
    "memory_layout.to_channels_last": ["to_channels_last_movedim", "to_channels_last_strides",
                                       "to_channels_last_check_first"],
    "memory_layout.windows": ["windows_keywords", "windows_expand_trick"],
    "memory_layout.can_view": ["can_view_torch_like", "can_view_chunk_sizes"],
    "memory_layout.pixel_rows": ["pixel_rows_movedim", "pixel_rows_flatten",
                                 "pixel_rows_einsum"],
    "performance.moving_average": ["moving_average_sum", "moving_average_as_strided",
                                   "moving_average_avg_pool", "moving_average_conv"],
    "performance.weighted_sum_into": ["weighted_sum_into_fill", "weighted_sum_into_first_term",
                                      "weighted_sum_into_per_channel"],
    "performance.running_totals": ["running_totals_clone", "running_totals_fresh",
                                   "running_totals_method"],
    "performance.largest_allocation": ["largest_allocation_events", "largest_allocation_sorted"],
    "practice.weighted_mse": ["weighted_mse_mse_loss", "weighted_mse_dot", "weighted_mse_column"],
    "practice.masked_mean": ["masked_mean_masked_fill", "masked_mean_einsum", "masked_mean_cumsum"],
    "practice.sequence_loss": ["sequence_loss_flatten", "sequence_loss_log_softmax",
                               "sequence_loss_permute_masked_mean"],
    "practice.sliding_window_mask": ["sliding_window_mask_tril_triu", "sliding_window_mask_compare"],
    "precision.overflows": ["overflows_not_nan", "overflows_logical", "overflows_abs"],
    "precision.half_mean": ["half_mean_double", "half_mean_sum_dtype", "half_mean_function"],
    "precision.spacing": ["spacing_nextafter", "spacing_frexp", "spacing_bits"],
    "precision.bytes_kept": ["bytes_kept_set", "bytes_kept_shares"],
    "precision.autocast_dtypes": ["autocast_dtypes_table", "autocast_dtypes_by_running"],
    "saving.compact_for_saving": ["compact_size", "compact_empty_like"],
    "saving.strip_module_prefix": ["strip_prefix_slice", "strip_prefix_partition"],
    "saving.snapshot": ["snapshot_bytesio", "snapshot_storages"],
    "saving.safetensors_tensor": ["safetensors_tensor_struct", "safetensors_tensor_numpy"],
    "layers.class_targets": ["class_targets_squeeze_dim", "class_targets_flatten_to"],
    "layers.multilabel_loss": ["multilabel_loss_mask", "multilabel_loss_index_put"],
    "layers.segmentation_loss": ["segmentation_loss_flatten", "segmentation_loss_movedim",
                                 "segmentation_loss_nll"],
    "layers.unregistered": ["unregistered_named_modules", "unregistered_stack"],
    "data.image_batch": ["image_batch_movedim", "image_batch_memory_format"],
    "data.pad_images": ["pad_images_functional", "pad_images_full"],
    "data.fill_rows": ["fill_rows_new_empty", "fill_rows_narrow"],
}
