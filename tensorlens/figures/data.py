"""Figures for chapter 12, from data to batches: images and their layouts, samples collated into
a batch, and what each worker process drew.

- ``image_row_figure``: images side by side, each `[H, W, 3]` (colour) or `[H, W]` (one
  channel), `uint8` or float in `[0, 1]`, titled.
- ``collate_figure``: a list of 1-D samples on the left, the batch they became on the right,
  padding cells (where ``mask`` is False) greyed.
- ``worker_timeline_figure``: per source of randomness, one box per sample in loading order,
  coloured by the worker that made it, the drawn number inside; numbers drawn twice are outlined.

Each function reads the real arrays and tensors the page computed, so the picture is what ran.
"""

from __future__ import annotations

from collections import Counter

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.patches import Rectangle

_WORKER_COLORS = ("#9ecae1", "#fdae6b", "#a1d99b", "#bcbddc", "#fc9272", "#d9d9d9")
_CHANNEL_CMAPS = {"R": "Reds", "G": "Greens", "B": "Blues"}


def _as_array(image, name: str) -> np.ndarray:
    if isinstance(image, torch.Tensor):
        image = image.detach().cpu().numpy()
    if not isinstance(image, np.ndarray):
        raise TypeError(f"{name}: expected a NumPy array or a tensor, got {type(image).__name__}")
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] != 3):
        raise ValueError(f"{name}: expected shape [H, W] or [H, W, 3], got {list(image.shape)}")
    return image


def image_row_figure(images, titles, cmaps=None, height: float = 2.4):
    """Draw ``images`` in one row, each above its title.

    Parameters
    ----------
    images : list of arrays or tensors
        Each `[H, W, 3]` (drawn as RGB) or `[H, W]` (drawn with its colour map). `uint8` values
        are read as 0-255; float values as 0-1, and values outside `[0, 1]` are clipped, as a
        display would (an unscaled float image shows mostly white).
    titles : list of str
        One per image.
    cmaps : list of str or None, optional
        Colour maps for the `[H, W]` images (``None`` entries mean grey). ``"R"``, ``"G"`` and
        ``"B"`` name red, green and blue maps.
    height : float
        The figure's height in inches.
    """
    if not isinstance(images, (list, tuple)) or not images:
        raise ValueError("images: expected a non-empty list")
    if not isinstance(titles, (list, tuple)) or len(titles) != len(images):
        raise ValueError(f"titles: expected {len(images)} titles, one per image")
    cmaps = list(cmaps) if cmaps is not None else [None] * len(images)
    if len(cmaps) != len(images):
        raise ValueError(f"cmaps: expected {len(images)} entries, one per image")
    arrays = [_as_array(image, f"images[{i}]") for i, image in enumerate(images)]
    fig, axes = plt.subplots(1, len(arrays), figsize=(height * len(arrays), height + 0.4),
                             squeeze=False)
    for ax, array, title, cmap in zip(axes[0], arrays, titles, cmaps):
        if array.dtype == np.uint8:
            shown, vmax = array, 255
        else:
            shown, vmax = np.clip(array.astype(np.float64), 0.0, 1.0), 1.0
        if shown.ndim == 2:
            ax.imshow(shown, cmap=_CHANNEL_CMAPS.get(cmap, cmap or "gray"), vmin=0, vmax=vmax,
                      interpolation="nearest")
        else:
            ax.imshow(shown, interpolation="nearest")
        ax.set_title(title, fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


def _cells(ax, x0, y, values, real, width=0.8):
    for k, (value, is_real) in enumerate(zip(values, real)):
        ax.add_patch(Rectangle((x0 + k * width, y), width, 0.8,
                               facecolor="#9ecae1" if is_real else "#eeeeee",
                               edgecolor="#333333", hatch=None if is_real else "//"))
        ax.text(x0 + k * width + width / 2, y + 0.4, f"{value:g}", ha="center", va="center",
                fontsize=9, color="#111111" if is_real else "#888888")


def collate_figure(samples, batch, mask=None, lengths_label: bool = True):
    """Samples on the left, the batch on the right, an arrow between.

    Parameters
    ----------
    samples : list of 1-D tensors
        What the dataset returned, one row each (lengths may differ).
    batch : 2-D tensor
        What the collate function returned, ``[len(samples), L]``.
    mask : 2-D bool tensor, optional
        ``[len(samples), L]``, True where the batch holds a real value; False cells are drawn
        as padding. Without it every cell is real.
    lengths_label : bool
        Write each sample's length beside its row.
    """
    if not isinstance(samples, (list, tuple)) or not samples:
        raise ValueError("samples: expected a non-empty list of 1-D tensors")
    if any(not isinstance(s, torch.Tensor) or s.dim() != 1 for s in samples):
        raise ValueError("samples: every sample must be a 1-D tensor")
    if not isinstance(batch, torch.Tensor) or batch.dim() != 2 or batch.shape[0] != len(samples):
        raise ValueError(f"batch: expected a 2-D tensor with {len(samples)} rows")
    if mask is None:
        mask = torch.ones(batch.shape, dtype=torch.bool)
    if not isinstance(mask, torch.Tensor) or mask.shape != batch.shape:
        raise ValueError(f"mask: expected a tensor of shape {list(batch.shape)}")
    longest = max(len(s) for s in samples)
    right = longest * 0.8 + 2.2
    rows = len(samples)
    fig, ax = plt.subplots(figsize=(0.5 * (right + batch.shape[1] * 0.8) + 0.8,
                                    0.5 * rows + 0.9))
    for i, sample in enumerate(samples):
        y = rows - 1 - i
        _cells(ax, 0, y, sample.tolist(), [True] * len(sample))
        if lengths_label:
            ax.text(len(sample) * 0.8 + 0.15, y + 0.4, f"len {len(sample)}", va="center",
                    fontsize=8, color="#555555")
        _cells(ax, right, y, batch[i].tolist(), mask[i].tolist())
    ax.annotate("", (right - 0.15, rows / 2), (right - 0.95, rows / 2),
                arrowprops=dict(arrowstyle="->", lw=1.5))
    ax.text(0, rows + 0.15, "samples", fontsize=9)
    ax.text(right, rows + 0.15, f"batch {list(batch.shape)}", fontsize=9)
    ax.set_xlim(-0.2, right + batch.shape[1] * 0.8 + 0.2)
    ax.set_ylim(-0.2, rows + 0.7)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.patch.set_facecolor("white")
    return fig


def worker_timeline_figure(draws: dict):
    """One row per source of randomness, one box per sample in the order the loader yielded it.

    Parameters
    ----------
    draws : dict of str to list of (worker_id, value)
        For each label (say ``"self.rng"``, ``"np.random"``), the worker that made each sample
        and the number it drew. A box's colour is its worker; a number that occurs more than
        once in its row is outlined in red.
    """
    if not isinstance(draws, dict) or not draws:
        raise ValueError("draws: expected a non-empty dict of label -> [(worker_id, value)]")
    for label, row in draws.items():
        if not row or any(len(item) != 2 for item in row):
            raise ValueError(f"draws[{label!r}]: expected a non-empty list of (worker_id, value)")
    width = max(len(row) for row in draws.values())
    fig, ax = plt.subplots(figsize=(1.6 + 0.75 * width, 0.75 * len(draws) + 0.9))
    for r, (label, row) in enumerate(draws.items()):
        y = len(draws) - 1 - r
        counts = Counter(value for _, value in row)
        ax.text(-0.2, y + 0.4, label, ha="right", va="center", fontsize=9, family="monospace")
        for k, (worker, value) in enumerate(row):
            repeated = counts[value] > 1
            ax.add_patch(Rectangle((k, y), 0.9, 0.8,
                                   facecolor=_WORKER_COLORS[int(worker) % len(_WORKER_COLORS)],
                                   edgecolor="#c0392b" if repeated else "#333333",
                                   linewidth=2.5 if repeated else 1))
            ax.text(k + 0.45, y + 0.4, str(value), ha="center", va="center", fontsize=8)
    workers = sorted({int(w) for row in draws.values() for w, _ in row})
    for j, worker in enumerate(workers):
        ax.add_patch(Rectangle((j * 2.2, -0.75), 0.4, 0.35,
                               facecolor=_WORKER_COLORS[worker % len(_WORKER_COLORS)],
                               edgecolor="#333333"))
        ax.text(j * 2.2 + 0.5, -0.58, f"worker {worker}", va="center", fontsize=8)
    ax.text(len(workers) * 2.2, -0.58, "red outline: the same number twice", va="center",
            fontsize=8, color="#c0392b")
    ax.set_xlim(-3.2, max(width + 0.2, len(workers) * 2.2 + 5.2))
    ax.set_ylim(-0.9, len(draws) + 0.1)
    ax.axis("off")
    fig.patch.set_facecolor("white")
    return fig
