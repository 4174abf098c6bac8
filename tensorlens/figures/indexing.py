"""Pictures for chapter 2, indexing: which elements an index picks, writes through repeated
positions, and replacing against taking against finding.

Contract
--------
- ``picks_figure(x, *expressions)`` draws, for each expression such as ``"x[1:, ::2]"``, the
  2-D tensor ``x`` with the elements that expression picks coloured and labelled with their
  place in the result (``out[0, 1]``). What is picked is torch's own answer: the expression
  indexes a tensor of storage positions of the same shape, and every drawn value is asserted
  against ``x[...]`` itself.
- ``repeated_index_figure(idx, size)`` draws a 1-D index with repeated positions next to what
  ``counts[idx] += 1`` and ``index_add_`` leave in ``zeros(size)`` (both computed by torch;
  the accumulated counts are asserted against ``bincount``).
- ``where_figure(x, cond, value)`` draws ``x`` with the true elements of ``cond`` marked,
  ``torch.where(cond, value, x)`` (the shape kept) and ``x[cond]`` (flat), each taken element
  labelled with its coordinates from ``cond.nonzero()``; the values are asserted against torch.
- Tensors are drawn up to ``MAX_SIDE`` x ``MAX_SIDE`` (1-D ones as one row). Bad arguments
  raise ``TypeError`` / ``ValueError`` naming the argument; an index torch refuses is re-raised
  as ``ValueError`` with torch's text.
- Each function returns a matplotlib ``Figure``; the caller closes it (``plt.close(fig)``).
"""

from __future__ import annotations

import itertools

import matplotlib.pyplot as plt
import torch

from .grids import _PALETTE, MAX_SIDE, MAX_WIDTH, _cell_inches, _check_tensor, _fmt, _grid

__all__ = ["picks_figure", "repeated_index_figure", "where_figure"]


class _IndexReader:
    """``_IndexReader()[1:, ::2]`` returns the index object ``(slice(1, None), slice(None, None, 2))``."""

    def __getitem__(self, index):
        return index


def _parse(expression: str):
    if not isinstance(expression, str) or "[" not in expression or not expression.endswith("]"):
        raise ValueError(f"an expression looks like 'x[1:, ::2]', got {expression!r}")
    brackets = expression[expression.index("["):]
    try:
        return eval("_reader" + brackets, {"__builtins__": {}, "torch": torch},  # noqa: S307
                    {"_reader": _IndexReader()})
    except Exception as err:  # a syntax error, an unknown name
        raise ValueError(f"cannot read the index in {expression!r}: {err}") from None


def _check_drawable(name: str, t: torch.Tensor) -> tuple[int, int]:
    _check_tensor(name, t)
    if t.dim() not in (1, 2):
        raise ValueError(f"{name} must be 1-D or 2-D to be drawn, got shape {tuple(t.shape)}")
    shape = (1, t.shape[0]) if t.dim() == 1 else tuple(t.shape)
    if max(shape) > MAX_SIDE or min(shape) == 0:
        raise ValueError(f"{name} has shape {tuple(t.shape)}; 1 to {MAX_SIDE} per side is drawn")
    return shape


def _cells(shape):
    return list(itertools.product(range(shape[0]), range(shape[1])))


def _as_2d(t: torch.Tensor) -> torch.Tensor:
    return t.reshape(1, -1) if t.dim() == 1 else t


def _label(coords: tuple) -> str:
    return "out" if not coords else "out[" + ", ".join(map(str, coords)) + "]"


def picks_figure(x: torch.Tensor, *expressions: str):
    """Draw which elements of ``x`` each indexing expression picks.

    Parameters
    ----------
    x : torch.Tensor
        1-D or 2-D tensor, at most ``MAX_SIDE`` x ``MAX_SIDE``.
    *expressions : str
        One to three expressions such as ``"x[1:, ::2]"``, ``"x[:, 1]"`` or ``"x[[0, 2]]"``:
        what is inside the brackets is read as a Python index (``torch`` may be used in it).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per expression: ``x`` with the picked elements coloured (one colour per row
        of the result) and labelled with their place in the result.

    Raises
    ------
    TypeError, ValueError
        For a non-tensor, a shape that cannot be drawn, no or too many expressions, an
        expression that cannot be read, or an index torch refuses (torch's text is kept).

    Examples
    --------
    >>> fig = picks_figure(torch.arange(12).reshape(3, 4), "x[1:, ::2]")
    >>> plt.close(fig)
    """
    shape = _check_drawable("x", x)
    if not 1 <= len(expressions) <= 3:
        raise ValueError(f"give one to three expressions, got {len(expressions)}")
    x2 = _as_2d(x)
    positions = torch.arange(x.numel()).reshape(x.shape)
    panels = []
    for expression in expressions:
        index = _parse(expression)
        try:
            picked, result = positions[index], x[index]
        except (IndexError, RuntimeError, TypeError) as err:
            raise ValueError(f"torch refused {expression!r}: {err}") from None
        colors, labels = {}, {}
        for coords in itertools.product(*(range(s) for s in picked.shape)):
            p = int(picked[coords])
            cell = divmod(p, shape[1])
            assert result[coords] == x.flatten()[p], "drawn pick disagrees with torch"
            colors.setdefault(cell, _PALETTE[(coords[0] if coords else 0) % len(_PALETTE)])
            labels[cell] = (labels[cell] + "+" if cell in labels else "") + _label(coords)
        panels.append((f"{expression}: shape {tuple(result.shape)}", colors, labels))

    texts = {(i, j): _fmt(x2[i, j]) for i, j in _cells(shape)}
    width, height = 1.1 * shape[1] + 0.6, 1.1 * shape[0] + 0.9
    # side by side while that fits the page, else one above the other
    across = len(panels) if len(panels) * width <= MAX_WIDTH else 1
    down = len(panels) // across
    fig, axes = plt.subplots(down, across, squeeze=False, layout="constrained",
                             figsize=(across * width, down * height))
    for ax, (title, colors, labels) in zip(axes.flat, panels):
        _grid(ax, shape, title, texts, colors, labels)
    return fig


def repeated_index_figure(idx: torch.Tensor, size: int):
    """Draw ``counts[idx] += 1`` against ``counts.index_add_(0, idx, ones)`` for a 1-D index.

    Parameters
    ----------
    idx : torch.Tensor
        1-D ``int64`` tensor of positions in ``0 .. size - 1``, usually with repeats.
    size : int
        Number of counters, 1 to ``MAX_SIDE``.

    Returns
    -------
    matplotlib.figure.Figure
        Three panels: ``idx`` (each entry coloured like the counter it names), the counters
        after ``counts[idx] += 1`` and after ``index_add_``, each counter labelled with how many
        entries of ``idx`` name it.

    Raises
    ------
    TypeError, ValueError
        For a non-tensor, a wrong dtype or rank, a bad ``size`` or a position out of range.

    Examples
    --------
    >>> fig = repeated_index_figure(torch.tensor([0, 2, 2, 2]), 4)
    >>> plt.close(fig)
    """
    _check_drawable("idx", idx)
    if idx.dim() != 1 or idx.dtype != torch.int64:
        raise ValueError(f"idx must be a 1-D int64 tensor, got shape {tuple(idx.shape)}, "
                         f"dtype {idx.dtype}")
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_SIDE:
        raise ValueError(f"size must be an int in 1..{MAX_SIDE}, got {size!r}")
    if int(idx.min()) < 0 or int(idx.max()) >= size:
        raise ValueError(f"every position in idx must be in 0..{size - 1}, got {idx.tolist()}")
    once = torch.zeros(size)
    once[idx] += 1
    added = torch.zeros(size).index_add_(0, idx, torch.ones(len(idx)))
    occurrences = torch.bincount(idx, minlength=size)
    assert torch.equal(added, occurrences.float()), "index_add_ disagrees with bincount"

    colors = {(0, p): _PALETTE[p % len(_PALETTE)] for p in range(size) if occurrences[p] > 0}
    named = {(0, p): f"{int(occurrences[p])} in idx" for p in range(size)}
    # three rows, cells of one size: idx above the two results
    longest = max(len(idx), size)
    fig, axes = plt.subplots(3, 1, layout="constrained", figsize=(0.9 * longest + 1.0, 4.2))
    _grid(axes[0], (1, len(idx)), "idx",
          {(0, k): str(int(p)) for k, p in enumerate(idx)},
          {(0, k): _PALETTE[int(p) % len(_PALETTE)] for k, p in enumerate(idx)})
    _grid(axes[1], (1, size), "counts[idx] += 1",
          {(0, p): _fmt(once[p]) for p in range(size)}, colors, named)
    _grid(axes[2], (1, size), "counts.index_add_(0, idx, ones)",
          {(0, p): _fmt(added[p]) for p in range(size)}, colors, named)
    for ax in axes:
        ax.set_yticks([])
        ax.set_xlim(-0.05, longest + 0.05)
    return fig


def where_figure(x: torch.Tensor, cond: torch.Tensor, value=0, cond_label: str = "cond"):
    """Draw replacing (``torch.where(cond, value, x)``) against taking (``x[cond]``).

    Parameters
    ----------
    x : torch.Tensor
        1-D or 2-D tensor, at most ``MAX_SIDE`` x ``MAX_SIDE``.
    cond : torch.Tensor
        ``bool`` tensor of the shape of ``x``.
    value : int or float
        What ``torch.where`` puts where ``cond`` holds.
    cond_label : str
        How the titles name the condition, e.g. ``"x < 0"``.

    Returns
    -------
    matplotlib.figure.Figure
        Three panels: ``x`` with the true elements coloured, ``torch.where(cond, value, x)``
        (same shape, replaced elements coloured) and ``x[cond]`` (one row, each element
        coloured like its source and labelled with its coordinates from ``cond.nonzero()``).

    Raises
    ------
    TypeError, ValueError
        For a non-tensor, a shape that cannot be drawn, a ``cond`` that is not ``bool`` or of
        another shape, or no true element (there would be nothing to take) or more than
        ``MAX_SIDE``.

    Examples
    --------
    >>> x = torch.tensor([[1, -2], [-3, 4]])
    >>> fig = where_figure(x, x < 0, cond_label="x < 0")
    >>> plt.close(fig)
    """
    shape = _check_drawable("x", x)
    _check_tensor("cond", cond)
    if cond.dtype != torch.bool or cond.shape != x.shape:
        raise ValueError(f"cond must be a bool tensor of shape {tuple(x.shape)}, got shape "
                         f"{tuple(cond.shape)}, dtype {cond.dtype}")
    if not bool(cond.any()):
        raise ValueError("cond has no true element: there is nothing to take")
    if int(cond.sum()) > MAX_SIDE:
        raise ValueError(f"cond has {int(cond.sum())} true elements; at most {MAX_SIDE} are drawn")
    replaced, taken = torch.where(cond, value, x), x[cond]
    coords = cond.nonzero()
    assert len(coords) == len(taken), "nonzero disagrees with boolean indexing"
    x2, r2, c2 = _as_2d(x), _as_2d(replaced), _as_2d(cond)
    colors, sources = {}, {}
    for k, cell in enumerate(c2.nonzero().tolist()):
        colors[tuple(cell)] = _PALETTE[k % len(_PALETTE)]
        assert taken[k] == x2[tuple(cell)] and r2[tuple(cell)] == value, "drawn value disagrees"
        sources[(0, k)] = "(" + ", ".join(map(str, coords[k].tolist())) + ")"
    kept = {cell: "kept" for cell in _cells(shape) if cell not in colors}
    cell = _cell_inches(2 * shape[1] + len(taken), 2.4, 1.0)
    fig, axes = plt.subplots(1, 3, layout="constrained",
                             figsize=(cell * (2 * shape[1] + len(taken)) + 2.4, cell * shape[0] + 1.1),
                             gridspec_kw={"width_ratios": [shape[1], shape[1], len(taken)]})
    _grid(axes[0], shape, f"x, coloured where {cond_label}",
          {cell: _fmt(x2[cell]) for cell in _cells(shape)}, colors)
    _grid(axes[1], shape, f"torch.where({cond_label}, {value}, x): shape {tuple(replaced.shape)}",
          {cell: _fmt(r2[cell]) for cell in _cells(shape)}, colors,
          {**kept, **{cell: "replaced" for cell in colors}},
          text_colors={cell: "#555555" for cell in kept})
    _grid(axes[2], (1, len(taken)), f"x[{cond_label}]: shape {tuple(taken.shape)}",
          {(0, k): _fmt(taken[k]) for k in range(len(taken))},
          {(0, k): _PALETTE[k % len(_PALETTE)] for k in range(len(taken))}, sources)
    axes[2].set_yticks([])
    return fig

