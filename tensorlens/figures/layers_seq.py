"""Pictures of chapter 11's sequence layers: embeddings, recurrent layers, attention masks.

Contract
--------
- ``embedding_lookup_figure(ids, weight)`` draws an embedding as a row lookup: the integer
  ``ids`` (1-D or 2-D), the ``weight`` table with the rows they pick coloured, and the output,
  one row of ``weight`` per id, in the order of ``ids``. The output is torch's own
  (``torch.nn.functional.embedding``).
- ``rnn_shapes_figure(seq_len, num_layers, bidirectional, batch_first)`` draws a recurrent
  layer unrolled over time (columns) and layers (rows): ``output`` is the last layer at every
  step, ``h_n`` the final state of every layer and direction, each labelled with its index in
  ``h_n`` (``layer * D + direction``). The shapes in the titles come from running ``nn.GRU``.
- ``mask_conventions_figure(lengths, num_keys)`` draws one padding as the two bool masks that
  mean it: ``scaled_dot_product_attention``'s ``attn_mask`` (True = takes part) and
  ``nn.MultiheadAttention``'s ``key_padding_mask`` (True = ignored). Colour shows what happens
  to a key, the letter shows the stored bool: same colours, opposite letters.
- The caller closes the figure (``plt.close(fig)``) after showing it. Bad arguments raise
  ``TypeError`` / ``ValueError`` naming the argument.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from matplotlib.patches import FancyArrowPatch, Rectangle

__all__ = ["embedding_lookup_figure", "rnn_shapes_figure", "mask_conventions_figure"]

_PALETTE = [tuple(0.55 * c + 0.45 for c in rgb) for rgb in plt.get_cmap("tab10").colors]
_EDGE = "#555555"
_UNUSED = "#eeeeee"
_KEEP = "#b7e4a6"
_IGNORE = "#d9d9d9"
_FORWARD = "#a6c8ff"
_BACKWARD = "#ffd27f"
_FINAL = "#c0392b"


def _plain(ax) -> None:
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)


def _check_int(name: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high} to be drawn, got {value}")
    return value


def _check_bool(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value


def _cell(ax, x: float, y: float, face, text: str = "", fontsize: float = 9,
          w: float = 1.0, h: float = 1.0) -> None:
    ax.add_patch(Rectangle((x, y), w, h, facecolor=face, edgecolor=_EDGE, linewidth=0.9))
    if text:
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=fontsize)


def embedding_lookup_figure(ids: torch.Tensor, weight: torch.Tensor):
    """Draw ``F.embedding(ids, weight)`` as rows of ``weight`` picked by ``ids``.

    Parameters
    ----------
    ids : torch.Tensor
        A 1-D or 2-D ``int64``/``int32`` tensor of 1 to 8 indices, each in ``[0, len(weight))``.
    weight : torch.Tensor
        A 2-D floating-point table of 1 to 12 rows and 1 to 6 columns.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = embedding_lookup_figure(torch.tensor([[3, 1], [1, 0]]), torch.randn(5, 3))
    >>> plt.close(fig)
    """
    if not isinstance(ids, torch.Tensor) or ids.dtype not in (torch.int64, torch.int32):
        raise TypeError(f"ids must be an int64 or int32 tensor, got "
                        f"{getattr(ids, 'dtype', type(ids).__name__)}")
    if not isinstance(weight, torch.Tensor) or not weight.is_floating_point():
        raise TypeError("weight must be a floating-point tensor")
    if weight.dim() != 2 or not (1 <= weight.shape[0] <= 12 and 1 <= weight.shape[1] <= 6):
        raise ValueError(f"weight must be 2-D with 1 to 12 rows and 1 to 6 columns to be "
                         f"drawn, got shape {tuple(weight.shape)}")
    if ids.dim() not in (1, 2) or not 1 <= ids.numel() <= 8:
        raise ValueError(f"ids must be 1-D or 2-D with 1 to 8 elements to be drawn, got shape "
                         f"{tuple(ids.shape)}")
    rows, dim = weight.shape
    if ids.min() < 0 or ids.max() >= rows:
        raise ValueError(f"ids must lie in [0, {rows}) (the rows of weight), got "
                         f"{ids.flatten().tolist()}")
    out = F.embedding(ids, weight.detach())
    grid = ids if ids.dim() == 2 else ids[None, :]
    flat = ids.flatten().tolist()
    positions = [tuple(p) for p in torch.cartesian_prod(
        *[torch.arange(s) for s in ids.shape]).reshape(len(flat), -1).tolist()]

    height = max(rows, len(flat), grid.shape[0]) + 1.8
    fig, (left, middle, right) = plt.subplots(
        1, 3, figsize=(8.6, 0.42 * height + 1.5), layout="constrained",
        gridspec_kw={"width_ratios": [grid.shape[1] + 1.5, dim + 2.5, dim + 4.5]})
    top = height - 1.5
    # the ids, each coloured by the row it picks
    for r in range(grid.shape[0]):
        for c in range(grid.shape[1]):
            i = int(grid[r, c])
            _cell(left, c, top - 1 - r, _PALETTE[i % 10], str(i), 11)
    left.set_xlim(-0.5, grid.shape[1] + 0.5)
    left.set_ylim(-0.5, height)
    _plain(left)
    left.set_title(f"ids {tuple(ids.shape)}\n{str(ids.dtype).replace('torch.', '')}",
                   fontsize=11)
    # the table: picked rows coloured, the others grey
    used = set(flat)
    for i in range(rows):
        face = _PALETTE[i % 10] if i in used else _UNUSED
        for j in range(dim):
            _cell(middle, j + 1.2, top - 1 - i, face, f"{weight[i, j].item():.1f}", 9)
        middle.text(0.9, top - 0.5 - i, f"row {i}", ha="right", va="center", fontsize=9)
    middle.set_xlim(-0.9, dim + 1.6)
    middle.set_ylim(-0.5, height)
    _plain(middle)
    middle.set_title(f"weight ({rows}, {dim})\nrows picked: {sorted(used)}", fontsize=11)
    # the output: one row of weight per id, in the order of ids
    for n, (i, pos) in enumerate(zip(flat, positions)):
        for j in range(dim):
            _cell(right, j + 2.6, top - 1 - n, _PALETTE[i % 10], f"{out[pos][j].item():.1f}", 9)
        label = ", ".join(map(str, pos))
        right.text(2.4, top - 0.5 - n, f"[{label}] = row {i}", ha="right", va="center",
                   fontsize=9)
    right.set_xlim(-1.4, dim + 3.0)
    right.set_ylim(-0.5, height)
    _plain(right)
    right.set_title(f"embedding(ids) {tuple(out.shape)}\n= ids.shape + (embedding_dim,)",
                    fontsize=11)
    return fig


def rnn_shapes_figure(seq_len: int = 4, num_layers: int = 2, bidirectional: bool = False,
                      batch_first: bool = True):
    """Draw a recurrent layer unrolled, with what ``output`` and ``h_n`` hold.

    Parameters
    ----------
    seq_len : int
        Time steps to draw, 1 to 8.
    num_layers : int
        Stacked layers, 1 to 3.
    bidirectional : bool
        Draw a forward and a backward direction per layer.
    batch_first : bool
        The layer's ``batch_first``; it changes the input and output shapes in the titles,
        never ``h_n``'s.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = rnn_shapes_figure(3, 2, bidirectional=True)
    >>> plt.close(fig)
    """
    seq_len = _check_int("seq_len", seq_len, 1, 8)
    num_layers = _check_int("num_layers", num_layers, 1, 3)
    bidirectional = _check_bool("bidirectional", bidirectional)
    batch_first = _check_bool("batch_first", batch_first)
    d = 2 if bidirectional else 1
    n, h_in, h_out = 2, 3, 5
    gru = torch.nn.GRU(h_in, h_out, num_layers=num_layers, bidirectional=bidirectional,
                       batch_first=batch_first)
    x = torch.zeros((n, seq_len, h_in) if batch_first else (seq_len, n, h_in))
    with torch.no_grad():
        output, h_n = gru(x)
    dims = "(N, L, " if batch_first else "(L, N, "

    cw, ch = 1.6, 0.9          # one cell per (layer, step); split in two when bidirectional
    gap = 0.55
    fig, ax = plt.subplots(figsize=(1.2 * seq_len + 3.2, 1.0 * num_layers + 2.0),
                           layout="constrained")
    for layer in range(num_layers):
        y = layer * (ch + gap)
        for t in range(seq_len):
            x0 = t * (cw + 0.45)
            for k in range(d):
                final = (t == seq_len - 1) if k == 0 else (t == 0)
                face = _FORWARD if k == 0 else _BACKWARD
                ax.add_patch(Rectangle((x0 + k * cw / d, y), cw / d, ch, facecolor=face,
                                       edgecolor=_FINAL if final else _EDGE,
                                       linewidth=2.6 if final else 0.9))
                arrow = "→" if k == 0 else "←"
                text = f"{arrow}\nh_n[{layer * d + k}]" if final else arrow
                ax.text(x0 + (k + 0.5) * cw / d, y + ch / 2, text, ha="center", va="center",
                        fontsize=9, color=_FINAL if final else "black")
        ax.text(-0.25, y + ch / 2, f"layer {layer}", ha="right", va="center", fontsize=10)
    for t in range(seq_len):
        x0 = t * (cw + 0.45)
        ax.text(x0 + cw / 2, -0.35, f"t={t}", ha="center", va="top", fontsize=9)
        ax.add_patch(FancyArrowPatch((x0 + cw / 2, -0.3), (x0 + cw / 2, 0.0),
                                     arrowstyle="-|>", mutation_scale=8, color=_EDGE))
    top = (num_layers - 1) * (ch + gap) + ch
    width = seq_len * (cw + 0.45) - 0.45
    ax.plot([0, width], [top + 0.2] * 2, color="#2e7d32", lw=3)
    index = "output[:, t]" if batch_first else "output[t]"
    ax.text(width / 2, top + 0.3, f"output: the last layer at every step ({index})",
            ha="center", va="bottom", fontsize=10, color="#2e7d32")
    ax.set_xlim(-1.4, width + 0.3)
    ax.set_ylim(-0.9, top + 0.8)
    _plain(ax)
    direction = "\nblue → forward, orange ← backward" if bidirectional else ""
    ax.set_title(
        f"batch_first={batch_first}: input {dims}H_in) = {tuple(x.shape)}\n"
        f"output {dims}D*H_out) = {tuple(output.shape)}\n"
        f"h_n (D*num_layers, N, H_out) = {tuple(h_n.shape)}\n"
        f"red: the final states, each with its index in h_n{direction}", fontsize=10)
    return fig


def mask_conventions_figure(lengths, num_keys: int = 5):
    """Draw one padding as SDPA's ``attn_mask`` and MultiheadAttention's ``key_padding_mask``.

    Parameters
    ----------
    lengths : sequence of int or 1-D integer tensor
        The real length of each sample (1 to 6 samples, each from 0 to ``num_keys``).
    num_keys : int
        Keys per sample (the padded length), 1 to 10.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = mask_conventions_figure([5, 3, 1], 5)
    >>> plt.close(fig)
    """
    num_keys = _check_int("num_keys", num_keys, 1, 10)
    if isinstance(lengths, torch.Tensor):
        if lengths.dtype.is_floating_point or lengths.dtype == torch.bool or lengths.dim() != 1:
            raise TypeError("lengths must be a 1-D integer tensor or a sequence of ints")
        lengths = lengths.tolist()
    if not isinstance(lengths, (list, tuple)) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in lengths):
        raise TypeError(f"lengths must be a sequence of ints, got {lengths!r}")
    if not 1 <= len(lengths) <= 6 or not all(0 <= v <= num_keys for v in lengths):
        raise ValueError(f"lengths must hold 1 to 6 values from 0 to num_keys={num_keys}, got "
                         f"{list(lengths)}")
    keep = torch.arange(num_keys) < torch.tensor(lengths)[:, None]   # True = takes part
    panels = [("F.scaled_dot_product_attention\nattn_mask = keep: True = takes part", keep),
              ("nn.MultiheadAttention\nkey_padding_mask = ~keep: True = ignored", ~keep)]
    rows = len(lengths)
    fig, axes = plt.subplots(1, 2, figsize=(0.45 * num_keys * 2 + 2.6, 0.45 * rows + 1.6),
                             layout="constrained")
    for ax, (title, mask) in zip(axes, panels):
        for b in range(rows):
            for j in range(num_keys):
                face = _KEEP if keep[b, j] else _IGNORE
                _cell(ax, j, rows - 1 - b, face, "T" if mask[b, j] else "F", 10)
            ax.text(-0.2, rows - 0.5 - b, f"sample {b}", ha="right", va="center", fontsize=10)
        for j in range(num_keys):
            ax.text(j + 0.5, -0.25, str(j), ha="center", va="top", fontsize=10)
        ax.text(num_keys / 2, -0.8, "key", ha="center", va="top", fontsize=10)
        ax.set_xlim(-2.0, num_keys + 0.2)
        ax.set_ylim(-1.1, rows + 0.1)
        _plain(ax)
        ax.set_title(title, fontsize=10)
    fig.supxlabel("green: the key takes part, grey: it is ignored (the same in both)",
                  fontsize=10)
    return fig
