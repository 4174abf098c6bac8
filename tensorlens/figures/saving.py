"""Figures for chapter 10 (saving and loading), each drawn from what torch really did.

- ``state_dict_rows`` / ``state_dict_figure``: a module's tree with every tensor it owns, and
  which of them ``state_dict()`` keeps: parameters, persistent buffers, and (left out)
  non-persistent buffers; modules without state are drawn too, so the gaps in the numbering
  show.
- ``weights_only_outcomes`` / ``allowlist_figure``: each value saved with ``torch.save`` and
  loaded back with ``torch.load(weights_only=True)``: let through, or refused with the global the
  error names.
- ``memory_steps_figure``: a process's memory (allocated and mapped file pages) after each step
  of a load, as measured by the page (for ``mmap=True`` against a plain load).

Contract: the figure functions return a matplotlib ``Figure`` (no ``plt.show``); the caller
closes it. Bad arguments raise ``TypeError`` / ``ValueError`` naming the argument.
"""

from __future__ import annotations

import io
import pickle
import re
from dataclasses import dataclass

import matplotlib.pyplot as plt
import torch
from matplotlib.patches import FancyBboxPatch

__all__ = ["LoadOutcome", "StateRow", "allowlist_figure", "memory_steps_figure",
           "state_dict_figure", "state_dict_rows", "weights_only_outcomes"]

_PARAM, _BUFFER, _LEFT_OUT, _MODULE = "#4c9be8", "#f2b134", "#9a9a9a", "#333333"
_OK, _REFUSED = "#3c8d3c", "#c0392b"


@dataclass(frozen=True)
class StateRow:
    """One line of the tree: a module, or a tensor it owns directly."""

    depth: int
    label: str     # "1 BatchNorm1d" for a module, "running_mean" for a tensor
    key: str       # the tensor's state_dict key ("1.running_mean"); "" for a module
    kind: str      # "module", "parameter", "buffer" or "not saved"
    summary: str   # "(4,) float32" for a tensor, "no state" for a module without tensors


def _describe(tensor) -> str:
    return f"{tuple(tensor.shape)} {str(tensor.dtype).replace('torch.', '')}"


def state_dict_rows(module) -> list[StateRow]:
    """The module tree of ``module`` in ``named_modules`` order, each module followed by the
    parameters and buffers it owns directly, each marked by what ``state_dict()`` does with it.

    >>> [r.kind for r in state_dict_rows(torch.nn.Linear(2, 1))]
    ['module', 'parameter', 'parameter']
    """
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"module: expected an nn.Module, got {type(module).__name__}")
    saved = set(module.state_dict())
    rows = []
    for name, sub in module.named_modules():
        depth = 0 if not name else name.count(".") + 1
        own = [(n, t, "parameter") for n, t in sub.named_parameters(recurse=False)]
        own += [(n, t, "buffer") for n, t in sub.named_buffers(recurse=False)]
        label = f"{name.rsplit('.', 1)[-1]} {type(sub).__name__}" if name else type(sub).__name__
        has_children = any(True for _ in sub.children())
        summary = "" if own or has_children else "no state"
        rows.append(StateRow(depth, label, "", "module", summary))
        for attr, tensor, kind in own:
            key = f"{name}.{attr}" if name else attr
            if key not in saved:
                kind = "not saved"
            rows.append(StateRow(depth + 1, attr, key, kind, _describe(tensor)))
    return rows


def state_dict_figure(module, *, title: str | None = None):
    """Draw :func:`state_dict_rows`: module names in black, each tensor with its
    ``state_dict`` key, shape and dtype, coloured by kind (parameter, buffer, or not saved)."""
    rows = state_dict_rows(module)
    colors = {"parameter": _PARAM, "buffer": _BUFFER, "not saved": _LEFT_OUT}
    height = 0.32 * len(rows) + 0.9
    fig, ax = plt.subplots(figsize=(9, height))
    y = len(rows) * 0.32
    for row in rows:
        x = 0.2 + 0.45 * row.depth
        if row.kind == "module":
            ax.text(x, y, row.label, ha="left", va="center", fontsize=9.5, fontweight="bold",
                    family="monospace", color=_MODULE)
            if row.summary:
                ax.text(x + 0.13 * len(row.label) + 0.3, y, row.summary, ha="left",
                        va="center", fontsize=8.5, style="italic", color=_LEFT_OUT)
        else:
            color = colors[row.kind]
            ax.add_patch(FancyBboxPatch((x, y - 0.12), 1.7, 0.24, boxstyle="round,pad=0.02",
                                        facecolor=color if row.kind != "not saved" else "white",
                                        edgecolor=color, linewidth=1.2,
                                        linestyle="--" if row.kind == "not saved" else "-"))
            ax.text(x + 0.85, y, row.label, ha="center", va="center", fontsize=8.5,
                    family="monospace",
                    color="white" if row.kind != "not saved" else "#555555")
            key = f'"{row.key}"' if row.kind != "not saved" else "(not in state_dict)"
            ax.text(4.0, y, key, ha="left", va="center", fontsize=9, family="monospace",
                    color="#222222" if row.kind != "not saved" else "#777777")
            ax.text(6.6, y, f"{row.summary}  {row.kind}", ha="left", va="center",
                    fontsize=8.5, color=color if row.kind != "parameter" else "#1f5f9e")
        y -= 0.32
    ax.text(4.0, len(rows) * 0.32 + 0.35, "state_dict key", fontsize=9, fontweight="bold",
            color="#222222")
    ax.text(6.6, len(rows) * 0.32 + 0.35, "shape, dtype, kind", fontsize=9, fontweight="bold",
            color="#222222")
    ax.text(0.2, len(rows) * 0.32 + 0.35, "module tree", fontsize=9, fontweight="bold",
            color="#222222")
    ax.set_xlim(0, 9)
    ax.set_ylim(y, len(rows) * 0.32 + 0.6)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    fig.patch.set_facecolor("white")
    return fig


@dataclass(frozen=True)
class LoadOutcome:
    """What ``torch.load(weights_only=True)`` did with one saved value."""

    label: str
    loaded: bool
    detail: str    # the loaded value's type, or the global the error names


def weights_only_outcomes(values: dict) -> list[LoadOutcome]:
    """Save each value of ``values`` with ``torch.save`` to memory and load it back with
    ``torch.load(..., weights_only=True)``. Nothing refused is ever unpickled, so a value whose
    pickle would run code is safe to try here.

    >>> [o.loaded for o in weights_only_outcomes({"a float": 0.5})]
    [True]
    """
    if not isinstance(values, dict) or not values:
        raise ValueError("values: expected a non-empty dict of label -> value")
    outcomes = []
    for label, value in values.items():
        buffer = io.BytesIO()
        torch.save(value, buffer)
        buffer.seek(0)
        try:
            loaded = torch.load(buffer, weights_only=True)
        except pickle.UnpicklingError as error:
            found = re.search(r"Unsupported global: GLOBAL (\S+)", str(error))
            detail = found.group(1) if found else "refused"
            outcomes.append(LoadOutcome(str(label), False, detail))
        else:
            outcomes.append(LoadOutcome(str(label), True, type(loaded).__name__))
    return outcomes


def allowlist_figure(outcomes, *, title: str | None = None):
    """Two columns around the ``weights_only=True`` gate: on the left what was let through (with
    the type it loaded as), on the right what was refused (with the global the error named).

    Drawn in inches at the width the book shows (6.9 inches at 100 dpi), so its text is shown
    at its own size; the refused column, whose globals are long, is the wider one."""
    outcomes = list(outcomes)
    if not outcomes:
        raise ValueError("outcomes: expected at least one LoadOutcome")
    for outcome in outcomes:
        if not isinstance(outcome, LoadOutcome):
            raise TypeError(f"outcomes: expected LoadOutcome items, got {type(outcome).__name__}")
    through = [o for o in outcomes if o.loaded]
    refused = [o for o in outcomes if not o.loaded]
    rows, step = max(len(through), len(refused), 1), 0.25
    left, left_width, gate, right_width = 0.05, 2.45, 0.3, 4.05
    right = left + left_width + gate
    width, top = right + right_width + 0.05, rows * step
    fig = plt.figure(figsize=(width, top + 0.35))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.text(left + left_width / 2, top + 0.15, f"let through ({len(through)}): loaded as",
            ha="center", va="center", fontsize=10, fontweight="bold", color=_OK)
    ax.text(right + right_width / 2, top + 0.15, f"refused ({len(refused)}): the global named",
            ha="center", va="center", fontsize=10, fontweight="bold", color=_REFUSED)
    middle = left + left_width + gate / 2
    ax.add_patch(FancyBboxPatch((middle - 0.1, 0.02), 0.2, top + 0.22,
                                boxstyle="round,pad=0.02", facecolor="#dddddd",
                                edgecolor="#888888"))
    ax.text(middle, (top + 0.26) / 2, "weights_only=True", ha="center", va="center",
            rotation=90, fontsize=9, family="monospace", color="#333333")
    for items, color, x, box in ((through, _OK, left, left_width),
                                 (refused, _REFUSED, right, right_width)):
        for k, o in enumerate(items):
            y = top - step * k - step / 2
            ax.add_patch(FancyBboxPatch((x, y - 0.09), box, 0.18, boxstyle="round,pad=0.02",
                                        facecolor="white", edgecolor=color, linewidth=1.2))
            ax.text(x + 0.07, y, o.label, ha="left", va="center", fontsize=9,
                    family="monospace", color="#222222")
            detail = o.detail if len(o.detail) <= 40 else o.detail[:37] + "..."
            ax.text(x + box - 0.07, y, detail, ha="right", va="center", fontsize=8.5,
                    color=color)
    ax.set_xlim(0, width)
    ax.set_ylim(-0.05, top + 0.3)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    fig.patch.set_facecolor("white")
    return fig


def memory_steps_figure(steps, *, size_mb: float | None = None, title: str | None = None):
    """Stacked bars, one per step: ``steps`` is a list of ``(label, allocated_mb, file_mb)`` (MiB),
    the growth of the process's allocated memory and of its mapped file pages since before the
    first step. ``size_mb``, if given, is drawn as a dashed line (the checkpoint's size)."""
    steps = list(steps)
    if not steps:
        raise ValueError("steps: expected at least one (label, allocated_mb, file_mb)")
    for step in steps:
        if (not isinstance(step, (tuple, list)) or len(step) != 3
                or not all(isinstance(v, (int, float)) for v in step[1:])):
            raise ValueError("steps: expected (label, allocated_mb, file_mb) triples, "
                             f"got {step!r}")
    if size_mb is not None and size_mb <= 0:
        raise ValueError(f"size_mb: expected a positive size, got {size_mb}")
    labels = [str(s[0]) for s in steps]
    anon = [max(0.0, float(s[1])) for s in steps]
    files = [max(0.0, float(s[2])) for s in steps]
    fig, ax = plt.subplots(figsize=(9.5, 3.8), layout="constrained")
    xs = range(len(steps))
    ax.bar(xs, anon, color="#e4572e", label="allocated (RssAnon growth)")
    ax.bar(xs, files, bottom=anon, color="#4c9be8", label="file pages mapped (RssFile growth)")
    if size_mb is not None:
        ax.axhline(size_mb, color="#333333", linestyle="--", linewidth=1,
                   label=f"checkpoint size, {size_mb:.0f} MiB")
    ax.set_xticks(list(xs), labels, rotation=30, ha="right", fontsize=8.5)
    ax.set_ylabel("MiB more than before loading")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, axis="y", alpha=0.3)
    if title:
        ax.set_title(title, fontsize=10)
    fig.patch.set_facecolor("white")
    return fig
