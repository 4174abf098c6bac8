"""Pictures of chapters 4-5: shapes and layouts that the grids of ``grids`` cannot show.

Contract
--------
- ``pairwise_block_figure(n, m, d)`` draws the ``(n, m, d)`` difference that
  ``x[:, None, :] - y`` makes as a block of cubes, one column of ``d`` cubes per pair ``(i, j)``
  (pair ``(0, 0)`` highlighted), beside the ``(n, m)`` table that summing over ``d`` leaves.
- ``matmul_dims_figure(a_shape, b_shape)`` draws the shapes of ``a @ b`` right-aligned, one cell
  per dim: batch dims (broadcast by the rule; a stretched size 1 is hatched) and the two matrix
  dims (the inner sizes joined). The result shape is torch's own (``torch.matmul`` on empty
  tensors of those shapes); shapes torch refuses raise ``ValueError`` with torch's text.
- ``mask_grid_figure(rows, cols)`` draws a ``(n, 1)`` bool mask, an ``(m,)`` bool mask and their
  ``&``, the grid torch computes, as filled and empty cells.
- ``copy_order_figure(v, n)`` draws ``v.repeat(n)``, ``v.repeat_interleave(n)`` and
  ``v.expand(n, len(v))`` for a short 1-D ``v``: every cell coloured by the element of ``v`` it
  holds, each row labelled with the bytes its storage holds (torch's own numbers).
- The caller closes the figure (``plt.close(fig)``) after showing it. Bad arguments raise
  ``TypeError`` / ``ValueError`` naming the argument.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import torch
from matplotlib.patches import Polygon, Rectangle

__all__ = ["pairwise_block_figure", "matmul_dims_figure", "mask_grid_figure",
           "copy_order_figure"]

_PALETTE = [tuple(0.55 * c + 0.45 for c in rgb) for rgb in plt.get_cmap("tab10").colors]
_EDGE = "#555555"
_BATCH = "#a6c8ff"
_MATRIX = "#b7e4a6"
_INNER = "#ffd27f"
_EMPTY = "#f2f2f2"


def _check_size(name: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high} to be drawn, got {value}")
    return value


def _plain(ax) -> None:
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)


def _cube(ax, x: float, y: float, face, alpha: float = 1.0) -> None:
    """A unit cube drawn in oblique projection with its front face at (x, y)."""
    dx, dy = 0.45, 0.35
    ax.add_patch(Polygon([(x, y + 1), (x + dx, y + 1 + dy), (x + 1 + dx, y + 1 + dy), (x + 1, y + 1)],
                         facecolor=face, edgecolor=_EDGE, linewidth=0.6, alpha=alpha))
    ax.add_patch(Polygon([(x + 1, y), (x + 1 + dx, y + dy), (x + 1 + dx, y + 1 + dy), (x + 1, y + 1)],
                         facecolor=face, edgecolor=_EDGE, linewidth=0.6, alpha=alpha))
    ax.add_patch(Rectangle((x, y), 1, 1, facecolor=face, edgecolor=_EDGE, linewidth=0.6,
                           alpha=alpha))


def pairwise_block_figure(n: int = 4, m: int = 3, d: int = 5):
    """Draw the ``(n, m, d)`` pairwise difference block and the ``(n, m)`` table it sums to.

    Parameters
    ----------
    n, m, d : int
        Points in ``x``, points in ``y`` (1 to 6 each) and features per point (1 to 8).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = pairwise_block_figure(3, 2, 4)
    >>> plt.close(fig)
    """
    n, m = _check_size("n", n, 1, 6), _check_size("m", m, 1, 6)
    d = _check_size("d", d, 1, 8)
    shape = tuple((torch.empty(n, 1, d) - torch.empty(m, d)).shape)
    assert shape == (n, m, d)
    fig, (left, right) = plt.subplots(1, 2, figsize=(9.5, 4.2), layout="constrained",
                                      gridspec_kw={"width_ratios": [1.5, 1]})
    # the block: rows i (down), columns j (right), the d features going back (up-right)
    dx, dy = 0.45, 0.35
    for k in reversed(range(d)):
        for i in reversed(range(n)):
            for j in range(m):
                hot = (i, j) == (0, 0)
                _cube(left, j * 1.0 + k * dx, (n - 1 - i) * 1.0 + k * dy,
                      _INNER if hot else _BATCH, alpha=1.0 if hot else 0.85)
    left.text(m / 2 + 0.2, -0.55, f"j: the {m} points of y", ha="center", fontsize=10)
    left.text(-0.35, n / 2, f"i: the {n} points of x", ha="center", va="center", rotation=90,
              fontsize=10)
    left.text(m + d * dx + 0.25, n + d * dy - 0.2, f"k: {d} features", ha="left", fontsize=10,
              rotation=37)
    left.set_xlim(-0.8, m + d * dx + 2.0)
    left.set_ylim(-0.9, n + d * dy + 0.6)
    _plain(left)
    left.set_title(f"x[:, None, :] - y: shape ({n}, {m}, {d}), n·m·d numbers", fontsize=11)
    for i in range(n):
        for j in range(m):
            hot = (i, j) == (0, 0)
            right.add_patch(Rectangle((j, n - 1 - i), 1, 1, facecolor=_INNER if hot else _MATRIX,
                                      edgecolor=_EDGE, linewidth=1.2))
            right.text(j + 0.5, n - 0.5 - i, f"{i},{j}", ha="center", va="center", fontsize=10)
    right.set_xlim(-0.3, m + 0.3)
    right.set_ylim(-0.9, n + d * dy + 0.6)
    _plain(right)
    right.set_title(f".sum(dim=-1) of the squares: ({n}, {m})", fontsize=11)
    right.text(m / 2, -0.55, "pair (0, 0): x[0] - y[0], d numbers → 1", ha="center", fontsize=9)
    return fig


def _dim_row(ax, y: float, sizes, kinds, label: str, total: int) -> None:
    """One shape as a right-aligned row of cells; kinds: 'batch', 'stretched', 'matrix', 'inner'."""
    colors = {"batch": _BATCH, "stretched": _BATCH, "matrix": _MATRIX, "inner": _INNER,
              "missing": _EMPTY}
    start = total - len(sizes)
    for pos, (size, kind) in enumerate(zip(sizes, kinds)):
        x = (start + pos) * 1.2
        ax.add_patch(Rectangle((x, y), 1, 0.8, facecolor=colors[kind], edgecolor=_EDGE,
                               linewidth=1.2, hatch="///" if kind == "stretched" else None))
        ax.text(x + 0.5, y + 0.4, str(size), ha="center", va="center", fontsize=13,
                fontweight="bold")
    ax.text(-0.3, y + 0.4, label, ha="right", va="center", fontsize=11, family="monospace")


def matmul_dims_figure(a_shape, b_shape):
    """Draw which dims of ``a @ b`` broadcast (batch) and which multiply (the matrix dims).

    Parameters
    ----------
    a_shape, b_shape : tuple of int
        Shapes of at least 2 dims each (1-D operands are not drawn), at most 6 dims.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = matmul_dims_figure((2, 1, 3, 4), (5, 4, 6))
    >>> plt.close(fig)
    """
    shapes = []
    for name, s in (("a_shape", a_shape), ("b_shape", b_shape)):
        if not isinstance(s, (tuple, list)) or not all(
                isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 99 for v in s):
            raise TypeError(f"{name} must be a tuple of ints from 0 to 99, got {s!r}")
        if not 2 <= len(s) <= 6:
            raise ValueError(f"{name} must have 2 to 6 dims to be drawn, got {len(s)}")
        shapes.append(tuple(s))
    a, b = shapes
    try:
        out = tuple(torch.matmul(torch.empty(a), torch.empty(b)).shape)
    except RuntimeError as err:
        raise ValueError(f"torch refuses a @ b: {err}") from None
    total = len(out)
    batch = out[:-2]

    def kinds(s):
        lead = s[:-2]
        ks = []
        for pos, size in enumerate(lead):
            full = batch[len(batch) - len(lead) + pos]
            ks.append("stretched" if size == 1 and full != 1 else "batch")
        return ks

    fig, ax = plt.subplots(figsize=(1.2 * total + 4.2, 3.6), layout="constrained")
    _dim_row(ax, 2.0, a, kinds(a) + ["matrix", "inner"], "a", total)
    _dim_row(ax, 1.0, b, kinds(b) + ["inner", "matrix"], "b", total)
    _dim_row(ax, -0.4, out, ["batch"] * len(batch) + ["matrix", "matrix"], "a @ b", total)
    # the inner sizes meet: a's last dim and b's second-to-last
    ax.annotate("", xy=((total - 2) * 1.2 + 0.5, 1.8), xytext=((total - 1) * 1.2 + 0.5, 2.0),
                arrowprops={"arrowstyle": "<->", "color": "#b35900", "lw": 1.6})
    nb = len(batch)
    if nb:
        ax.text(nb * 1.2 / 2 - 0.1, 3.05, "batch dims: the broadcasting rule", ha="center",
                fontsize=10)
    ax.text((nb + 1) * 1.2 + 0.4, 3.05, "matrix dims: (n, k) @ (k, m)", ha="center",
            fontsize=10)
    ax.plot([nb * 1.2 - 0.1] * 2, [-0.5, 3.0], color="#888888", lw=1, ls="--")
    ax.text(total * 1.2 + 0.1, 1.45, "k must\nbe equal", fontsize=9, color="#b35900",
            va="center")
    ax.set_xlim(-1.6, total * 1.2 + 1.4)
    ax.set_ylim(-0.7, 3.4)
    _plain(ax)
    ax.set_title(f"{a} @ {b} -> {out}  (hatched: a size 1 that stretches)", fontsize=11)
    return fig


def mask_grid_figure(rows: torch.Tensor, cols: torch.Tensor):
    """Draw a column mask, a row mask and ``rows[:, None] & cols``, the grid where both hold.

    Parameters
    ----------
    rows, cols : torch.Tensor
        1-D bool tensors of 1 to 8 elements each.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = mask_grid_figure(torch.tensor([True, False]), torch.tensor([True, True, False]))
    >>> plt.close(fig)
    """
    for name, t in (("rows", rows), ("cols", cols)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype != torch.bool or t.dim() != 1 or not 1 <= t.numel() <= 8:
            raise ValueError(f"{name} must be a 1-D bool tensor of 1 to 8 elements, got "
                             f"{t.dtype} of shape {tuple(t.shape)}")
    grid = rows[:, None] & cols
    n, m = grid.shape
    fig, axes = plt.subplots(1, 3, figsize=(0.7 * (m + m + 1) + 2.6, 0.7 * n + 1.3),
                             layout="constrained", gridspec_kw={"width_ratios": [1, m, m]})
    panels = [(rows[:, None], f"rows[:, None]\n{tuple(rows[:, None].shape)}", "#4c72b0"),
              (cols[None, :], f"cols\n{tuple(cols.shape)}, read as (1, {m})", "#dd8452"),
              (grid, f"rows[:, None] & cols\n{tuple(grid.shape)}", "#55a868")]
    for ax, (t, title, color) in zip(axes, panels):
        h, w = t.shape
        for i in range(h):
            for j in range(w):
                on = bool(t[i, j])
                ax.add_patch(Rectangle((j, i), 1, 1, facecolor=color if on else "white",
                                       edgecolor=_EDGE, linewidth=1.2))
                ax.text(j + 0.5, i + 0.5, "T" if on else "F", ha="center", va="center",
                        fontsize=12, color="white" if on else "#444444", fontweight="bold")
        ax.set_xlim(-0.05, w + 0.05)
        ax.set_ylim(n + 0.05, -0.05)
        _plain(ax)
        ax.set_title(title, fontsize=10)
    return fig


def copy_order_figure(v: torch.Tensor, n: int = 2):
    """Draw the order of the copies of ``repeat``, ``repeat_interleave`` and ``expand``.

    Parameters
    ----------
    v : torch.Tensor
        A 1-D tensor of 1 to 5 elements.
    n : int
        The number of copies (1 to 4).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = copy_order_figure(torch.tensor([1, 2, 3]), 2)
    >>> plt.close(fig)
    """
    if not isinstance(v, torch.Tensor):
        raise TypeError(f"v must be a torch.Tensor, got {type(v).__name__}")
    if v.dim() != 1 or not 1 <= v.numel() <= 5:
        raise ValueError(f"v must be 1-D with 1 to 5 elements, got shape {tuple(v.shape)}")
    n = _check_size("n", n, 1, 4)
    k = v.numel()
    rows = [(f"v.repeat({n})", v.repeat(n)[None, :],
             torch.arange(k).repeat(n)[None, :]),
            (f"v.repeat_interleave({n})", v.repeat_interleave(n)[None, :],
             torch.arange(k).repeat_interleave(n)[None, :]),
            (f"v.expand({n}, {k})", v.expand(n, k), torch.arange(k).expand(n, k))]
    height = 1 + 1 + n
    fig, ax = plt.subplots(figsize=(0.75 * n * k + 4.6, 0.62 * (height + 3) + 0.6),
                           layout="constrained")
    y = 0.0
    for label, values, source in rows:
        h, w = values.shape
        for i in range(h):
            for j in range(w):
                ax.add_patch(Rectangle((j, y + i), 1, 1, facecolor=_PALETTE[int(source[i, j])],
                                       edgecolor=_EDGE, linewidth=1.2))
                ax.text(j + 0.5, y + i + 0.5, str(values[i, j].item()), ha="center",
                        va="center", fontsize=12, fontweight="bold")
        nbytes = values.untyped_storage().nbytes()
        kind = "a view of v" if values.untyped_storage().data_ptr() == \
            v.untyped_storage().data_ptr() else "a copy"
        ax.text(-0.3, y + h / 2, label, ha="right", va="center", fontsize=11,
                family="monospace")
        ax.text(n * k + 0.3, y + h / 2, f"{kind}: {nbytes} bytes", ha="left", va="center",
                fontsize=10)
        y += h + 0.8
    ax.set_xlim(-5.2, n * k + 3.4)
    ax.set_ylim(y, -0.3)
    _plain(ax)
    ax.set_title(f"Copies of v = {v.tolist()}: colour = which element of v", fontsize=11)
    return fig
