"""Figures for chapter 12's pages on batches: the path of a host-to-device copy, and the bytes a
growing tensor writes.

- ``copy_path_figure``: the two routes a CPU batch takes to a GPU, from ordinary (pageable)
  memory through a pinned staging buffer, or straight from pinned memory, and which of them lets
  ``non_blocking=True`` return at once.
- ``growth_bytes``: the bytes written to build a tensor of ``rows`` rows, one row per step, by
  each way of growing it (a pure count; the page checks it against torch).
- ``growth_figure``: those counts against the number of rows, for the three ways.
"""

from __future__ import annotations

import numbers

import matplotlib.pyplot as plt
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

STRATEGIES = ("cat", "list", "prealloc")
_LABELS = {"cat": "torch.cat in the loop",
           "list": "list.append, then one torch.cat",
           "prealloc": "torch.empty, then fill row by row"}
_COLORS = {"cat": "#e4572e", "list": "#4c9be8", "prealloc": "#8cc084"}


def growth_bytes(rows: int, row_bytes: int, strategy: str) -> int:
    """Bytes written into new tensors while growing a tensor to ``rows`` rows of ``row_bytes``
    bytes each, one row per step. The rows themselves (made anyway) are not counted.

    - ``"cat"``: ``out = torch.cat([out, row])`` at each step writes a whole new ``out`` of
      ``k`` rows at step ``k``: ``row_bytes * rows * (rows + 1) / 2`` in all (quadratic).
    - ``"list"``: appending to a Python list copies no tensor data; one ``torch.cat`` at the end
      writes ``rows`` rows once (linear).
    - ``"prealloc"``: ``torch.empty`` once, then each step writes its row into place: ``rows``
      rows once (linear).

    >>> growth_bytes(4, 8, "cat"), growth_bytes(4, 8, "list"), growth_bytes(4, 8, "prealloc")
    (80, 32, 32)
    """
    for name, value in (("rows", rows), ("row_bytes", row_bytes)):
        if not isinstance(value, numbers.Integral) or isinstance(value, bool):
            raise TypeError(f"{name}: expected an int, got {type(value).__name__}")
        if value < 0:
            raise ValueError(f"{name}: expected at least 0, got {value}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy: expected one of {STRATEGIES}, got {strategy!r}")
    if strategy == "cat":
        return row_bytes * rows * (rows + 1) // 2
    return row_bytes * rows


def growth_figure(max_rows: int, row_bytes: int, points: int = 50):
    """Bytes written (``growth_bytes``) against the number of rows grown, 1 to ``max_rows``, for
    the three strategies, in MiB. The two linear ways write the same bytes; their lines are drawn
    one over the other, dashed and dotted so both stay visible."""
    if not isinstance(max_rows, numbers.Integral) or max_rows < 1:
        raise ValueError(f"max_rows: expected an int of at least 1, got {max_rows!r}")
    if not isinstance(points, numbers.Integral) or points < 2:
        raise ValueError(f"points: expected an int of at least 2, got {points!r}")
    growth_bytes(1, row_bytes, "cat")  # validates row_bytes
    xs = sorted({max(1, round(max_rows * i / (points - 1))) for i in range(points)})
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for strategy, style in zip(STRATEGIES, ("-", "--", ":")):
        ys = [growth_bytes(n, row_bytes, strategy) / 2**20 for n in xs]
        ax.plot(xs, ys, style, color=_COLORS[strategy], linewidth=2.4,
                label=_LABELS[strategy])
    last = growth_bytes(max_rows, row_bytes, "cat") / growth_bytes(max_rows, row_bytes, "list")
    ax.annotate(f"{last:.0f}× the bytes\nat {max_rows} rows",
                xy=(xs[-1], growth_bytes(max_rows, row_bytes, "cat") / 2**20),
                xytext=(0.55, 0.8), textcoords="axes fraction", fontsize=9,
                arrowprops={"arrowstyle": "->", "color": "#555555"})
    ax.set_xlabel(f"rows grown ({row_bytes} bytes each)")
    ax.set_ylabel("MiB written into new tensors")
    ax.legend(loc="center left", fontsize=9, frameon=False, bbox_to_anchor=(0.0, 0.55))
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    return fig


def _box(ax, x, y, w, h, text, color):
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02", facecolor=color,
                                edgecolor="none"))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=9, color="white",
            fontweight="bold")


def _arrow(ax, x0, x1, y, text):
    ax.add_patch(FancyArrowPatch((x0, y), (x1, y), arrowstyle="-|>", mutation_scale=14,
                                 color="#555555", linewidth=1.5))
    ax.text((x0 + x1) / 2, y + 0.12, text, ha="center", va="bottom", fontsize=8,
            color="#333333")


def copy_path_figure(highlight: str | None = None):
    """The two routes of ``batch.to("cuda", non_blocking=True)``.

    Top: a batch in ordinary (pageable) CPU memory; the CPU first copies it into a pinned
    staging buffer, then the GPU's copy engine reads that buffer (DMA). The call returns only
    once the batch is staged, whatever ``non_blocking`` says (CUDA's rule for copies from
    pageable memory).
    Bottom: a batch already in pinned memory (``DataLoader(pin_memory=True)`` put it there); the
    copy engine reads it directly and the call returns at once. ``highlight`` is ``"pageable"``,
    ``"pinned"`` or ``None``: the other route is drawn faded.
    """
    if highlight not in (None, "pageable", "pinned"):
        raise ValueError(f"highlight: expected 'pageable', 'pinned' or None, got {highlight!r}")
    fig, ax = plt.subplots(figsize=(9.6, 3.3))
    cpu, pin, gpu = "#4c9be8", "#a77dc2", "#8cc084"
    rows = {"pageable": 2.1, "pinned": 0.35}
    for route, y in rows.items():
        faded = highlight is not None and highlight != route
        start = len(ax.patches)
        if route == "pageable":
            _box(ax, 0.0, y, 2.1, 0.9, "batch in pageable\nCPU memory", cpu)
            _arrow(ax, 2.15, 3.55, y + 0.45, "CPU copies it")
            _box(ax, 3.6, y, 2.1, 0.9, "pinned staging\nbuffer", pin)
            _arrow(ax, 5.75, 7.15, y + 0.45, "DMA")
            ax.text(0.0, y + 1.05, "pageable tensor: .to() waits while the CPU stages it, "
                    "non_blocking or not", fontsize=9, color="#333333")
        else:
            _box(ax, 0.0, y, 5.7, 0.9, "batch already in pinned CPU memory\n"
                 "(DataLoader pin_memory=True, or tensor.pin_memory())", pin)
            _arrow(ax, 5.75, 7.15, y + 0.45, "DMA")
            ax.text(0.0, y + 1.05, "pinned tensor + non_blocking=True: .to() returns "
                    "at once, the copy runs in the background", fontsize=9, color="#333333")
        _box(ax, 7.2, y, 2.1, 0.9, "GPU memory", gpu)
        if faded:
            for patch in ax.patches[start:]:
                patch.set_alpha(0.25)
    if highlight is not None:
        for text in ax.texts:
            y = text.get_position()[1]
            route = "pageable" if y > 1.9 else "pinned"
            if route != highlight:
                text.set_alpha(0.35)
    ax.set_xlim(-0.1, 9.4)
    ax.set_ylim(0.2, 3.4)
    ax.axis("off")
    fig.tight_layout()
    return fig
