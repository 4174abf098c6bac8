"""A figure for chapter 9's measuring page: single clock readings against a Timer's blocks.

``timing_figure`` draws two panels. On the left, on a logarithmic time axis, single
``time.perf_counter`` readings of a statement in the order they were taken, from its very first
call (the warm-up is visible as the first points). On the right, on a linear axis of its own,
zoomed in on the blocks, the per-run time of each block of a ``torch.utils.benchmark``
measurement, with its median as a line and its interquartile range (IQR) as a band: what
``blocked_autorange`` reports. (On the left's axis, which spans the first call's thousands of
microseconds, a band of one microsecond would be a line.)

Contract: returns a matplotlib ``Figure`` (no ``plt.show``); the caller closes it. Bad arguments
raise ``TypeError`` / ``ValueError`` naming the argument. The horizontal jitter of the block
points is seeded, so the same numbers give the same picture.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FuncFormatter, MaxNLocator

__all__ = ["timing_figure"]


def timing_figure(readings, measurement, *, unit: str = "µs", title: str | None = None):
    """Left: ``readings`` (seconds, in call order, the first call first). Right: the blocks of
    ``measurement`` (a ``torch.utils.benchmark.Measurement``, or anything with ``times``,
    ``median`` and ``iqr`` in seconds), its median and IQR band. ``unit`` is "µs" or "ms"."""
    readings = list(readings)
    if not readings:
        raise ValueError("readings: expected at least one clock reading")
    if any(not isinstance(r, (int, float)) or r <= 0 for r in readings):
        raise ValueError("readings: expected positive numbers of seconds")
    for attribute in ("times", "median", "iqr"):
        if not hasattr(measurement, attribute):
            raise TypeError(f"measurement: expected a benchmark Measurement (with .{attribute}),"
                            f" got {type(measurement).__name__}")
    scales = {"µs": 1e6, "ms": 1e3}
    if unit not in scales:
        raise ValueError(f"unit: expected one of {sorted(scales)}, got {unit!r}")
    scale = scales[unit]
    blocks = [t * scale for t in measurement.times]
    median = measurement.median * scale
    q1 = float(np.percentile(blocks, 25)) if len(blocks) > 1 else median
    q3 = q1 + measurement.iqr * scale
    fig, (left, right) = plt.subplots(1, 2, figsize=(9.0, 3.6),
                                      gridspec_kw={"width_ratios": [3, 1.5]},
                                      layout="constrained")
    values = [r * scale for r in readings]
    calls = range(1, len(values) + 1)
    left.plot(calls, values, "o-", color="#4c9be8", markersize=5, linewidth=1)
    left.plot([1], values[:1], "o", color="#e4572e", markersize=9, zorder=3)
    left.annotate(f"first call: {values[0]:,.0f} {unit}", (1, values[0]),
                  xytext=(12, -4), textcoords="offset points", fontsize=9, color="#e4572e",
                  va="top")
    left.set_xlabel("call number (one clock reading each)")
    left.set_ylabel(f"time ({unit}, log scale)")
    left.set_yscale("log")
    plain = FuncFormatter(lambda value, _: f"{value:g}")
    left.yaxis.set_major_formatter(plain)
    left.yaxis.set_minor_formatter(FuncFormatter(
        lambda value, _: f"{value:g}" if f"{value:g}"[0] in "25" else ""))
    left.xaxis.set_major_locator(MaxNLocator(integer=True))
    left.set_title("time.perf_counter around single calls", fontsize=10)
    left.grid(True, which="major", alpha=0.3)
    jitter = np.random.default_rng(0).uniform(-0.25, 0.25, len(blocks))
    right.axhspan(q1, q3, color="#8cc084", alpha=0.35, label=f"IQR {measurement.iqr * scale:.3g} {unit}")
    right.axhline(median, color="#2d6a2d", linewidth=2, label=f"median {median:.3g} {unit}")
    right.plot(jitter, blocks, "o", color="#555555", markersize=4, alpha=0.8,
               label=f"{len(blocks)} blocks")
    right.set_xlim(-1, 1)
    right.set_xticks([])
    low, high = min(min(blocks), q1), max(max(blocks), q3)
    pad = max(high - low, 0.01 * median) * 0.4
    right.set_ylim(low - pad, high + 2.2 * pad)      # room for the legend on top
    right.yaxis.set_major_formatter(plain)
    right.yaxis.tick_right()
    right.yaxis.set_label_position("right")
    right.set_ylabel(f"time per run ({unit}, linear, zoomed in)")
    right.set_title("benchmark.Timer blocks (per run)", fontsize=10)
    right.legend(fontsize=8.5, loc="upper right")
    right.grid(True, which="major", axis="y", alpha=0.3)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.patch.set_facecolor("white")
    return fig
