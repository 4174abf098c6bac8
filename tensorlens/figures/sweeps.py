"""A picture of a :class:`tensorlens.measure.Sweep`: cost against size, one line per operation.

Contract: ``plot_sweep`` returns a matplotlib ``Figure`` (Agg-safe, no ``plt.show``); the caller
closes it. Bad arguments raise ``TypeError`` / ``ValueError`` naming the argument.
"""

from __future__ import annotations

# No matplotlib.use(): a notebook keeps its inline backend, and headless scripts fall back to Agg.
import matplotlib.pyplot as plt

from ..measure import Sweep

__all__ = ["plot_sweep"]


def plot_sweep(sweep: Sweep, metric: str = "bytes", *, xlabel: str = "size", title: str | None = None):
    """Draw one line per operation: ``metric`` against size, both axes logarithmic.

    On log-log axes a cost that does not grow is a flat line and a cost proportional to the size
    is a line of slope 1, so "view" and "copy" are told apart at a glance.

    Parameters
    ----------
    sweep : Sweep
        From :func:`tensorlens.measure.cost_sweep`.
    metric : {"bytes", "seconds"}
        Storage bytes behind the result, or median seconds per call.
    xlabel : str, optional
        What the size means.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        If ``sweep`` is not a :class:`Sweep`.
    ValueError
        For an unknown ``metric``, or ``"seconds"`` on an untimed sweep.
    """
    if not isinstance(sweep, Sweep):
        raise TypeError(f"sweep must be a Sweep, got {type(sweep).__name__}")
    values = sweep._metric(metric)
    fig, ax = plt.subplots(figsize=(6.4, 4.0), layout="constrained")
    # Views of one source share a line; distinct markers and dashes keep each one visible.
    markers, dashes = "osD^vP*X", ["-", "--", ":", "-."]
    for k, (label, ys) in enumerate(values.items()):
        if metric == "seconds":
            ys = [y * 1e6 for y in ys]
        ax.plot(sweep.sizes, ys, marker=markers[k % len(markers)], linestyle=dashes[k % len(dashes)],
                markersize=9 - k, label=label, linewidth=1.6)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("storage bytes behind the result" if metric == "bytes" else "median time per call (µs)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=9, loc="best")
    if title:
        ax.set_title(title, fontsize=11)
    return fig
