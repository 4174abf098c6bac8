"""A figure for chapter 10's checkpoint page: what a checkpoint dict holds, entry by entry.

``checkpoint_entries`` flattens a nested checkpoint (dicts, lists, tensors, numbers) into
``(path, summary)`` lines; ``checkpoint_figure`` draws one row per top-level key with its lines
and, optionally, the call that restores it. Both read the real object, so the picture is the
checkpoint the page saved. ``ROUTINE`` names the entries of an optimizer's and a scheduler's
state that a reader can skip.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import torch
from matplotlib.patches import FancyBboxPatch

_COLORS = ("#4c9be8", "#e4572e", "#8cc084", "#f2b134", "#a77dc2", "#5bc0be")

#: path parts of entries to leave out of the picture (``checkpoint_figure(..., skip=ROUTINE)``):
#: the parameter ids of an optimizer's groups, its hyperparameters at their defaults, and a
#: scheduler's bookkeeping (its first learning rates and its internal counters and flags)
ROUTINE = ("params", "dampening", "weight_decay", "nesterov", "maximize", "foreach",
           "differentiable", "fused", "initial_lr", "base_lrs", "_step_count", "_is_initial",
           "_get_lr_called_within_step", "verbose")


def _summary(value) -> str:
    if isinstance(value, torch.Tensor):
        dtype = str(value.dtype).replace("torch.", "")
        return f"tensor {tuple(value.shape)} {dtype}"
    if isinstance(value, float):
        return f"{value:g}"
    text = repr(value)
    return text if len(text) <= 24 else text[:21] + "..."


def checkpoint_entries(value, prefix: str = "") -> list[tuple[str, str]]:
    """``(path, summary)`` for every leaf of ``value``: dict keys and list indices joined by dots,
    a tensor summarised by its shape and dtype, any other leaf by its (short) repr.

    >>> checkpoint_entries({"epoch": 3, "model": {"w": torch.zeros(2, 3)}})
    [('epoch', '3'), ('model.w', 'tensor (2, 3) float32')]
    """
    if isinstance(value, dict) and value:
        items = value.items()
    elif isinstance(value, (list, tuple)) and value and not isinstance(value, torch.Size):
        items = enumerate(value)
    else:
        return [(prefix, _summary(value))]
    entries = []
    for key, item in items:
        path = f"{prefix}.{key}" if prefix else str(key)
        entries.extend(checkpoint_entries(item, path))
    return entries


def checkpoint_figure(checkpoint: dict, notes: dict | None = None, max_lines: int = 4,
                      skip: tuple = ()):
    """One row per top-level key of ``checkpoint``: the key in a coloured box, up to
    ``max_lines`` of its entries (``checkpoint_entries``, paths relative to the key; the rest
    counted), and ``notes[key]`` (for example the call that restores it) on the right.
    Entries with any path part in ``skip`` are left out (and counted): ``"base_lrs"`` skips
    ``base_lrs.0`` and ``"params"`` every ``param_groups.<i>.params.<j>``."""
    if not isinstance(checkpoint, dict) or not checkpoint:
        raise ValueError("checkpoint: expected a non-empty dict")
    if max_lines < 1:
        raise ValueError(f"max_lines: expected at least 1, got {max_lines}")
    notes = notes or {}
    rows = []
    for key, value in checkpoint.items():
        entries = [(path[len(str(key)) + 1:] or str(key), summary)
                   for path, summary in checkpoint_entries(value, str(key))]
        kept = [e for e in entries if not set(e[0].split(".")) & set(skip)]
        lines = [f"{path}: {summary}" if path != str(key) else summary
                 for path, summary in kept[:max_lines]]
        if len(entries) > len(lines):
            lines.append(f"... and {len(entries) - len(lines)} more")
        rows.append((str(key), lines, notes.get(key, "")))
    heights = [max(1, len(lines)) * 0.32 + 0.3 for _, lines, _ in rows]
    fig, ax = plt.subplots(figsize=(10, sum(heights) + 0.4))
    y = sum(heights)
    for i, ((key, lines, note), height) in enumerate(zip(rows, heights)):
        y -= height
        color = _COLORS[i % len(_COLORS)]
        ax.add_patch(FancyBboxPatch((0.0, y + 0.08), 1.9, height - 0.16,
                                    boxstyle="round,pad=0.02", facecolor=color,
                                    edgecolor="none"))
        ax.text(0.95, y + height / 2, f'"{key}"', ha="center", va="center", fontsize=11,
                color="white", fontweight="bold", family="monospace")
        ax.add_patch(FancyBboxPatch((2.05, y + 0.08), 5.6, height - 0.16,
                                    boxstyle="round,pad=0.02", facecolor="#f4f4f4",
                                    edgecolor=color))
        for k, line in enumerate(lines):
            ax.text(2.2, y + height - 0.3 - k * 0.32, line, ha="left", va="center",
                    fontsize=9, family="monospace", color="#222222")
        if note:
            ax.text(7.85, y + height / 2, note, ha="left", va="center", fontsize=9,
                    family="monospace", color="#333333")
    ax.set_xlim(0, 11)
    ax.set_ylim(-0.1, sum(heights) + 0.1)
    ax.axis("off")
    fig.patch.set_facecolor("white")
    return fig
