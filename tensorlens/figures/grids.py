"""Pictures of ``gather``, ``scatter`` and broadcasting: where every drawn value comes from.

Contract
--------
- ``gather_figure(input, index, dim)`` and ``scatter_figure(src, index, dim, size)`` return a
  matplotlib ``Figure`` (Agg-safe, no ``plt.show``) with three grids side by side. Every element
  of the result is computed by torch itself (``torch.gather`` / ``Tensor.scatter``); this module
  only works out *where* each value came from, from the documented rule, and asserts that the
  drawn value agrees with torch's before drawing it.
- ``broadcast_figure(a, b, op)`` draws both operands stretched to their broadcast shape (the
  stored elements solid, the stretched copies faded) and the result of ``a op b`` as a heatmap.
  The stretched values are torch's own ``broadcast_to`` views, asserted against the result.
- ``paired_vs_grid_figure(x, rows, cols)`` marks the elements ``x[rows, cols]`` picks (paired
  index lists) next to those ``x[rows[:, None], cols]`` picks (a grid), each labelled with its
  position in the result; the picked values are asserted against torch's indexing.
- ``expand_grad_figure(x, grad)`` draws the gradient arriving at ``x.expand(grad.shape)`` and
  the gradient autograd gives ``x``: each incoming cell shares its colour with the source element
  it flows into, and each source element is asserted to receive the sum of its cells.
- Only 2-D tensors up to ``MAX_SIDE`` x ``MAX_SIDE`` are drawn: larger grids are unreadable.
- Bad arguments raise ``TypeError`` / ``ValueError`` naming the argument; torch's own complaints
  (an index out of range, mismatched ranks) are re-raised as ``ValueError`` with torch's text.
- The caller closes the figure (``plt.close(fig)``) after showing or saving it.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import torch
from matplotlib.patches import Rectangle

__all__ = ["MAX_SIDE", "gather_figure", "scatter_figure", "broadcast_figure",
           "paired_vs_grid_figure", "expand_grad_figure"]

MAX_SIDE = 8
MAX_WIDTH = 9.0  # inches: a figure wider than this is drawn with smaller cells
# tab10 lightened towards white, so black numbers stay readable on every colour.
_PALETTE = [tuple(0.55 * c + 0.45 for c in rgb) for rgb in plt.get_cmap("tab10").colors]
_CELL_EMPTY = "#f2f2f2"
_EDGE = "#555555"


def _check_tensor(name: str, t) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")


def _check_2d(name: str, t, *, integer: bool) -> None:
    _check_tensor(name, t)
    if t.dim() != 2:
        raise ValueError(f"{name} must be 2-D to be drawn, got shape {tuple(t.shape)}")
    if max(t.shape) > MAX_SIDE:
        raise ValueError(f"{name} has shape {tuple(t.shape)}; at most {MAX_SIDE} x {MAX_SIDE} is drawn")
    if integer and t.dtype != torch.int64:
        raise TypeError(f"{name} must have dtype torch.int64 (as torch requires), got {t.dtype}")


def _check_dim(dim) -> int:
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"dim must be an int, got {type(dim).__name__}")
    if dim not in (0, 1, -1, -2):
        raise ValueError(f"dim must be 0 or 1 (or -2, -1) for a 2-D tensor, got {dim}")
    return dim % 2


def _source(i: int, j: int, index: torch.Tensor, dim: int) -> tuple[int, int]:
    """The other end of element (i, j) of ``index``: only the coordinate along ``dim`` changes."""
    k = int(index[i, j])
    return (k, j) if dim == 0 else (i, k)


def _fmt(value) -> str:
    v = value.item()
    return f"{v:g}" if isinstance(v, float) else str(v)


def _grid(ax, shape, title, texts, colors, subtexts=None, text_colors=None) -> None:
    rows, cols = shape
    for i in range(rows):
        for j in range(cols):
            ax.add_patch(Rectangle((j, i), 1, 1, facecolor=colors.get((i, j), _CELL_EMPTY),
                                   edgecolor=_EDGE, linewidth=1.2))
            dy = -0.12 if subtexts and (i, j) in subtexts else 0.0
            ax.text(j + 0.5, i + 0.5 + dy, texts[(i, j)], ha="center", va="center", fontsize=13,
                    fontweight="bold", color=(text_colors or {}).get((i, j), "black"))
            if subtexts and (i, j) in subtexts:
                ax.text(j + 0.5, i + 0.78, subtexts[(i, j)], ha="center", va="center", fontsize=8)
    ax.set_xlim(-0.05, cols + 0.05)
    ax.set_ylim(rows + 0.05, -0.05)
    ax.set_aspect("equal")
    ax.set_xticks([c + 0.5 for c in range(cols)], [str(c) for c in range(cols)])
    ax.set_yticks([r + 0.5 for r in range(rows)], [str(r) for r in range(rows)])
    ax.tick_params(length=0, labelsize=9)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_title(title, fontsize=12)


def _cell_inches(across: int, margin: float, largest: float) -> float:
    """The side of a cell, so that ``across`` cells and ``margin`` fit in ``MAX_WIDTH`` inches.

    The book shows a figure at most about 690 px wide; capping the width keeps its labels
    readable there instead of shrinking them with the whole picture.
    """
    return min(largest, (MAX_WIDTH - margin) / across)


def _figure(shapes):
    """Three panels whose cells have the same size on screen, whatever the grid shapes."""
    cols = [c for _, c in shapes]
    rows = max(r for r, _ in shapes)
    cell = _cell_inches(sum(cols), 1.6, 0.8)
    width = cell * sum(cols) + 1.6
    height = cell * rows + 1.0
    return plt.subplots(1, 3, figsize=(width, height), layout="constrained",
                        gridspec_kw={"width_ratios": cols})


def gather_figure(input: torch.Tensor, index: torch.Tensor, dim: int):
    """Draw ``torch.gather(input, dim, index)`` for 2-D tensors.

    Each output cell gets its own colour; the index cell that produced it and the input cell it
    reads share that colour, and the output cell names its source (``from [r, c]``).

    Parameters
    ----------
    input : torch.Tensor
        2-D tensor to read from.
    index : torch.Tensor
        2-D ``int64`` tensor, same rank as ``input``; ``index.size(d) <= input.size(d)`` for
        ``d != dim`` (torch's rule).
    dim : int
        The dimension along which ``index`` chooses.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError, ValueError
        For a non-tensor, wrong dtype, wrong rank, oversized grid, bad ``dim``, or an index that
        torch rejects (torch's message is kept).

    Examples
    --------
    >>> x = torch.arange(6).reshape(2, 3)
    >>> fig = gather_figure(x, torch.tensor([[2, 0], [1, 1]]), dim=1)
    >>> plt.close(fig)
    """
    _check_2d("input", input, integer=False)
    _check_2d("index", index, integer=True)
    d = _check_dim(dim)
    try:
        out = torch.gather(input, d, index)
    except RuntimeError as err:
        raise ValueError(f"torch.gather rejected index: {err}") from None

    in_colors, idx_colors, out_colors, sub, reads = {}, {}, {}, {}, {}
    for n, (i, j) in enumerate((i, j) for i in range(index.shape[0]) for j in range(index.shape[1])):
        color = _PALETTE[n % len(_PALETTE)]
        src = _source(i, j, index, d)
        assert out[i, j] == input[src], "drawn source disagrees with torch.gather"
        idx_colors[(i, j)] = out_colors[(i, j)] = color
        # When several outputs read the same input cell, the cell keeps the first colour and
        # the output labels still name it.
        in_colors.setdefault(src, color)
        reads[src] = reads.get(src, 0) + 1
        sub[(i, j)] = f"from [{src[0]}, {src[1]}]"
    in_sub = {cell: f"read {n} times" for cell, n in reads.items() if n > 1}

    fig, axes = _figure([tuple(input.shape), tuple(index.shape), tuple(out.shape)])
    _grid(axes[0], input.shape, f"input {tuple(input.shape)}",
          {(i, j): _fmt(input[i, j]) for i in range(input.shape[0]) for j in range(input.shape[1])},
          in_colors, in_sub)
    _grid(axes[1], index.shape, f"index {tuple(index.shape)}, dim={d}",
          {(i, j): str(int(index[i, j])) for i in range(index.shape[0]) for j in range(index.shape[1])},
          idx_colors)
    _grid(axes[2], out.shape, f"gather(input, {d}, index)",
          {(i, j): _fmt(out[i, j]) for i in range(out.shape[0]) for j in range(out.shape[1])},
          out_colors, sub)
    return fig


def scatter_figure(src: torch.Tensor, index: torch.Tensor, dim: int, size: tuple[int, int]):
    """Draw ``torch.zeros(size, dtype=src.dtype).scatter(dim, index, src)`` for 2-D tensors.

    Each source cell gets its own colour; its index cell and the output cell it lands in share that
    colour. Output cells no index reaches keep their zero and stay grey. When two source cells name
    the same output cell, torch does not promise which one wins: the output cell is hatched and
    labelled with the number of writers.

    Parameters
    ----------
    src : torch.Tensor
        2-D tensor of values to place; only its first ``index.shape`` block is used.
    index : torch.Tensor
        2-D ``int64`` tensor; ``index[i, j]`` is the coordinate along ``dim`` where ``src[i, j]`` goes.
    dim : int
        The dimension along which ``index`` places.
    size : tuple of int
        Shape of the (zero-filled) output.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError, ValueError
        As for :func:`gather_figure`, and for a ``size`` that is not two positive ints.
    """
    _check_2d("src", src, integer=False)
    _check_2d("index", index, integer=True)
    d = _check_dim(dim)
    if (not isinstance(size, (tuple, list)) or len(size) != 2
            or not all(isinstance(s, int) and not isinstance(s, bool) and 0 < s <= MAX_SIDE for s in size)):
        raise ValueError(f"size must be two ints in 1..{MAX_SIDE}, got {size!r}")
    try:
        out = torch.zeros(tuple(size), dtype=src.dtype).scatter(d, index, src)
    except RuntimeError as err:
        raise ValueError(f"Tensor.scatter rejected index: {err}") from None

    src_colors, idx_colors, out_colors, writers = {}, {}, {}, {}
    for n, (i, j) in enumerate((i, j) for i in range(index.shape[0]) for j in range(index.shape[1])):
        color = _PALETTE[n % len(_PALETTE)]
        dst = _source(i, j, index, d)
        src_colors[(i, j)] = idx_colors[(i, j)] = color
        out_colors.setdefault(dst, color)
        writers.setdefault(dst, []).append((i, j))
    sub = {}
    for dst, ws in writers.items():
        if len(ws) == 1:
            assert out[dst] == src[ws[0]], "drawn destination disagrees with torch scatter"
            sub[dst] = f"from src[{ws[0][0]}, {ws[0][1]}]"
        else:
            # Neutral colour: no single source cell can be credited with the value torch kept.
            out_colors[dst] = "white"
            sub[dst] = f"{len(ws)} writers"

    fig, axes = _figure([tuple(src.shape), tuple(index.shape), tuple(size)])
    _grid(axes[0], src.shape, f"src {tuple(src.shape)}",
          {(i, j): _fmt(src[i, j]) for i in range(src.shape[0]) for j in range(src.shape[1])},
          src_colors)
    _grid(axes[1], index.shape, f"index {tuple(index.shape)}, dim={d}",
          {(i, j): str(int(index[i, j])) for i in range(index.shape[0]) for j in range(index.shape[1])},
          idx_colors)
    _grid(axes[2], tuple(size), f"zeros{tuple(size)}.scatter({d}, index, src)",
          {(i, j): _fmt(out[i, j]) for i in range(size[0]) for j in range(size[1])},
          out_colors, sub)
    for dst, ws in writers.items():
        if len(ws) > 1:
            axes[2].add_patch(Rectangle((dst[1], dst[0]), 1, 1, fill=False, hatch="//",
                                        edgecolor="#999999", linewidth=0))
    return fig


_OPS = {"+": torch.add, "-": torch.sub, "*": torch.mul}
# Each operand's colour, solid where an element is stored and faded where it is a stretched copy.
_OPERAND_COLORS = [("#9ecae1", "#e4eff7"), ("#fdae6b", "#fde8d4")]
_FADED_TEXT = "#707070"


def broadcast_figure(a: torch.Tensor, b: torch.Tensor, op: str = "+", names=("a", "b")):
    """Draw ``a op b`` for operands of at most 2 dims whose broadcast shape is at most 2-D.

    Panels: each operand stretched to the broadcast shape, the elements it really stores solid and
    the copies that broadcasting only pretends to make faded; then the result as a heatmap.

    Parameters
    ----------
    a, b : torch.Tensor
        Operands of at most 2 dims, with at most ``MAX_SIDE`` elements along each result dim.
    op : str
        ``"+"``, ``"-"`` or ``"*"``.
    names : pair of str
        What the panel titles call the operands.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError, ValueError
        For a non-tensor, an operand of more than 2 dims, shapes that do not broadcast (torch's
        message is kept), an oversized result, an unknown ``op`` or bad ``names``.

    Examples
    --------
    >>> fig = broadcast_figure(torch.tensor([[1], [2]]), torch.tensor([10, 20, 30]))
    >>> plt.close(fig)
    """
    for name, t in (("a", a), ("b", b)):
        _check_tensor(name, t)
        if t.dim() > 2:
            raise ValueError(f"{name} must have at most 2 dims to be drawn, got shape {tuple(t.shape)}")
    if op not in _OPS:
        raise ValueError(f"op must be one of {sorted(_OPS)}, got {op!r}")
    if (not isinstance(names, (tuple, list)) or len(names) != 2
            or not all(isinstance(n, str) and n for n in names)):
        raise TypeError(f"names must be two non-empty strings, got {names!r}")
    try:
        shape = torch.broadcast_shapes(a.shape, b.shape)
    except RuntimeError as err:
        raise ValueError(f"a and b do not broadcast: {err}") from None
    grid = (1,) * (2 - len(shape)) + tuple(shape)
    if max(grid) > MAX_SIDE:
        raise ValueError(f"the result has shape {tuple(shape)}; at most {MAX_SIDE} x {MAX_SIDE} is drawn")
    out = _OPS[op](a, b).reshape(grid)

    operands = dict(zip(names, (a, b)))
    stretched = {name: torch.broadcast_to(t.reshape((1,) * (2 - t.dim()) + tuple(t.shape)), grid)
                 for name, t in operands.items()}
    # what is drawn is what the operation used
    assert torch.equal(_OPS[op](*stretched.values()), out)
    cells = [(i, j) for i in range(grid[0]) for j in range(grid[1])]
    panels = []
    for (name, t), (solid, faded) in zip(operands.items(), _OPERAND_COLORS):
        stored_shape = (1,) * (2 - t.dim()) + tuple(t.shape)
        stored = {(i, j) for i in range(stored_shape[0]) for j in range(stored_shape[1])}
        colors = {c: solid if c in stored else faded for c in cells}
        text_colors = {c: "black" if c in stored else _FADED_TEXT for c in cells}
        texts = {c: _fmt(stretched[name][c]) for c in cells}
        title = f"{name} {tuple(t.shape)}" + ("" if tuple(t.shape) == tuple(shape)
                                              else f" stretched to {tuple(shape)}")
        panels.append((title, texts, colors, text_colors))

    heat = plt.get_cmap("viridis")
    values = out.double()
    low, high = float(values.min()), float(values.max())
    span = (high - low) or 1.0
    result_colors, result_text = {}, {}
    for i in range(grid[0]):
        for j in range(grid[1]):
            level = (float(values[i, j]) - low) / span
            result_colors[(i, j)] = heat(0.15 + 0.8 * level)
            result_text[(i, j)] = "black" if level > 0.55 else "white"

    fig, axes = _figure([grid, grid, grid])
    for ax, (title, texts, colors, text_colors) in zip(axes, panels):
        _grid(ax, grid, title, texts, colors, text_colors=text_colors)
    _grid(axes[2], grid, f"{names[0]} {op} {names[1]} {tuple(shape)}",
          {(i, j): _fmt(out[i, j]) for i in range(grid[0]) for j in range(grid[1])},
          result_colors, text_colors=result_text)
    return fig


def paired_vs_grid_figure(x: torch.Tensor, rows: torch.Tensor, cols: torch.Tensor):
    """Draw which elements ``x[rows, cols]`` and ``x[rows[:, None], cols]`` pick, side by side.

    Parameters
    ----------
    x : torch.Tensor
        2-D tensor, at most ``MAX_SIDE`` x ``MAX_SIDE``.
    rows, cols : torch.Tensor
        1-D ``int64`` index lists of the same length, in range for ``x``.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError, ValueError
        For a non-tensor, wrong dtype or rank, lists of different lengths, or an index out of
        range (torch's message is kept).

    Examples
    --------
    >>> fig = paired_vs_grid_figure(torch.arange(12).reshape(3, 4), torch.tensor([0, 2]),
    ...                             torch.tensor([1, 3]))
    >>> plt.close(fig)
    """
    _check_2d("x", x, integer=False)
    for name, t in (("rows", rows), ("cols", cols)):
        _check_tensor(name, t)
        if t.dim() != 1 or t.dtype != torch.int64:
            raise ValueError(f"{name} must be a 1-D int64 tensor, got shape {tuple(t.shape)}, "
                             f"dtype {t.dtype}")
    if rows.numel() != cols.numel():
        raise ValueError(f"rows and cols must have the same length, got {rows.numel()} and "
                         f"{cols.numel()}")
    try:
        paired, grid = x[rows, cols], x[rows[:, None], cols]
    except IndexError as err:
        raise ValueError(f"torch refused the index: {err}") from None

    texts = {(i, j): _fmt(x[i, j]) for i in range(x.shape[0]) for j in range(x.shape[1])}
    paired_colors, paired_sub, grid_colors, grid_sub = {}, {}, {}, {}
    for k, (r, c) in enumerate(zip(rows.tolist(), cols.tolist())):
        assert paired[k] == x[r, c], "drawn pick disagrees with torch"
        paired_colors[(r, c)] = _PALETTE[k % len(_PALETTE)]
        paired_sub[(r, c)] = f"out[{k}]"
    for i, r in enumerate(rows.tolist()):
        for j, c in enumerate(cols.tolist()):
            assert grid[i, j] == x[r, c], "drawn pick disagrees with torch"
            grid_colors[(r, c)] = _PALETTE[(i * cols.numel() + j) % len(_PALETTE)]
            grid_sub[(r, c)] = f"out[{i}, {j}]"

    shape = tuple(x.shape)
    fig, axes = plt.subplots(1, 2, figsize=(1.6 * shape[1] + 1.6, 0.8 * shape[0] + 1.0),
                             layout="constrained")
    _grid(axes[0], shape, f"x[rows, cols]: paired, shape {tuple(paired.shape)}", texts,
          paired_colors, paired_sub)
    _grid(axes[1], shape, f"x[rows[:, None], cols]: a grid, shape {tuple(grid.shape)}", texts,
          grid_colors, grid_sub)
    return fig


def expand_grad_figure(x: torch.Tensor, grad: torch.Tensor):
    """Draw how the gradient of ``x.expand(grad.shape)`` flows back into ``x``.

    Parameters
    ----------
    x : torch.Tensor
        Floating-point source of at most 2 dims.
    grad : torch.Tensor
        2-D gradient arriving at the expanded tensor; ``x`` must expand to its shape.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError, ValueError
        For a non-tensor, a non-float ``x``, ranks that are not drawn, an oversized grid, or a
        shape ``x`` cannot expand to (torch's message is kept).

    Examples
    --------
    >>> fig = expand_grad_figure(torch.ones(3, 1), torch.arange(12.).reshape(3, 4))
    >>> plt.close(fig)
    """
    _check_tensor("x", x)
    if not x.is_floating_point():
        raise TypeError(f"x must be a floating-point tensor to have a gradient, got {x.dtype}")
    if x.dim() > 2:
        raise ValueError(f"x must have at most 2 dims to be drawn, got shape {tuple(x.shape)}")
    _check_2d("grad", grad, integer=False)
    leaf = x.detach().clone().requires_grad_(True)
    try:
        leaf.expand(grad.shape).backward(grad.to(x.dtype))
    except RuntimeError as err:
        raise ValueError(f"x cannot be expanded to grad's shape: {err}") from None

    stored = (1,) * (2 - x.dim()) + tuple(x.shape)
    source_grad = leaf.grad.reshape(stored)
    source_colors = {(r, c): _PALETTE[(r * stored[1] + c) % len(_PALETTE)]
                     for r in range(stored[0]) for c in range(stored[1])}
    parts, colors, texts = {}, {}, {}
    for i in range(grad.shape[0]):
        for j in range(grad.shape[1]):
            # the source element that (i, j) of the expanded tensor reads
            src = (i if stored[0] > 1 else 0, j if stored[1] > 1 else 0)
            colors[(i, j)] = source_colors[src]
            texts[(i, j)] = _fmt(grad[i, j])
            parts.setdefault(src, []).append(grad[i, j])
    for src, cells in parts.items():
        assert torch.allclose(source_grad[src], torch.stack(cells).sum().to(x.dtype)), \
            "drawn sum disagrees with autograd"

    rows = max(grad.shape[0], stored[0])
    fig, axes = plt.subplots(1, 2, figsize=(0.8 * (grad.shape[1] + stored[1]) + 2.4, 0.8 * rows + 1.2),
                             layout="constrained",
                             gridspec_kw={"width_ratios": [grad.shape[1], max(stored[1], 1.6)]})
    _grid(axes[0], tuple(grad.shape), f"gradient arriving at x.expand{tuple(grad.shape)}",
          texts, colors)
    _grid(axes[1], stored, f"x.grad {tuple(x.shape)}: sums",
          {src: _fmt(source_grad[src]) for src in parts}, source_colors,
          {src: f"sum of {len(cells)}" for src, cells in parts.items()})
    return fig
