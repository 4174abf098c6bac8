"""Pictures of chapter 11: tensors going through layers.

Contract
--------
- ``shape_flow_figure(table)`` draws a :class:`tensorlens.shape_flow.ShapeTable` as a column of
  layer boxes (the innermost submodules that ran, in call order) with the shape that flows
  between them written on each arrow; a call that did not finish is drawn in red with the shape
  it was given, so the picture of a failing pass shows where it broke.
- ``conv_output_sizes(sizes, kernel_size, stride, padding, dilation)`` asks torch
  (``F.conv1d`` on zeros) what length comes out of a convolution for each input length; ``None``
  where torch refuses the input. ``conv_size_figure(sizes, configs)`` plots those lengths for a
  few configurations (``{label: {"kernel_size": .., "stride": .., ...}}``) as steps, with the
  refused inputs marked.
- ``norm_groups_figure(n, c, groups)`` draws, for BatchNorm, LayerNorm and GroupNorm on an
  ``(n, c, length)`` input, which ``(sample, channel)`` cells share a statistic with cell
  ``(0, 0)``: the cells whose inputs change that cell's output, read from torch's own gradient
  (``torch.autograd.functional.jacobian``), not from a rule written here.
- The caller closes the figure (``plt.close(fig)``). Bad arguments raise ``TypeError`` /
  ``ValueError`` naming the argument.
"""

from __future__ import annotations

import copy
import warnings

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from matplotlib.patches import FancyBboxPatch, Rectangle
from torch import nn

from ..shape_flow import ShapeTable

__all__ = ["shape_flow_figure", "conv_output_sizes", "conv_size_figure", "norm_groups_figure",
           "norm_groups"]

_BOX = "#a6c8ff"
_FAIL = "#f4a7a0"
_EDGE = "#555555"
_HOT = "#ffd27f"
_SHARED = "#b7e4a6"
_EMPTY = "#f2f2f2"
_LINES = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")


def _leaves(table: ShapeTable):
    """The rows of the innermost calls: a row not followed by a deeper one."""
    rows = list(table)
    return [r for i, r in enumerate(rows)
            if i + 1 == len(rows) or rows[i + 1].depth <= r.depth]


def shape_flow_figure(table, title: str | None = None):
    """Draw the shapes that flow through a model, one box per layer that ran.

    Parameters
    ----------
    table : ShapeTable
        What :func:`tensorlens.shape_table` recorded (also the partial table of a failed pass,
        ``error.shape_table``).
    title : str, optional
        A title above the column.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        If ``table`` is not a ShapeTable or ``title`` not a str.
    ValueError
        If ``table`` has no rows.

    Examples
    --------
    >>> from tensorlens.shape_flow import shape_table
    >>> fig = shape_flow_figure(shape_table(nn.Linear(3, 2), torch.zeros(1, 3)))
    >>> plt.close(fig)
    """
    if not isinstance(table, ShapeTable):
        raise TypeError(f"table must be a ShapeTable (from shape_table), got "
                        f"{type(table).__name__}")
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a str, got {type(title).__name__}")
    if len(table) == 0:
        raise ValueError("table: it has no rows, nothing ran")
    leaves = _leaves(table)
    step = 1.0
    height = step * (len(leaves) + 1)
    fig, ax = plt.subplots(figsize=(7.2, 0.46 * height + 0.5))
    y = height
    ax.text(0, y, "input " + leaves[0].inputs_text, ha="center", va="center", fontsize=10,
            family="monospace")
    for row in leaves:
        y -= step
        ax.annotate("", xy=(0, y + 0.22), xytext=(0, y + step - 0.18),
                    arrowprops={"arrowstyle": "->", "color": _EDGE})
        color = _BOX if row.finished else _FAIL
        ax.add_patch(FancyBboxPatch((-1.6, y - 0.2), 3.2, 0.4, boxstyle="round,pad=0.04",
                                    facecolor=color, edgecolor=_EDGE, linewidth=0.8))
        name = row.name or "(model)"
        ax.text(0, y, f"{name}: {row.kind}", ha="center", va="center", fontsize=10,
                fontweight="bold")
        if row.params:
            ax.text(1.75, y, f"{row.params:,} params", ha="left", va="center", fontsize=8,
                    color="#333333")
        if row.finished:
            out = row.output_text
            ax.text(0.12, y - step / 2, out, ha="left", va="center", fontsize=10,
                    family="monospace")
        else:
            ax.text(0.12, y - step / 2, f"raised here, given {row.inputs_text}", ha="left",
                    va="center", fontsize=10, family="monospace", color="#a50f15")
            break
    ax.set_xlim(-2.2, 4.2)
    ax.set_ylim(y - step, height + 0.4)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=11)
    fig.tight_layout()
    return fig


def _check_int(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    return value


def conv_output_sizes(sizes, kernel_size: int = 3, stride: int = 1, padding=0,
                      dilation: int = 1) -> list:
    """The output length torch's convolution gives for each input length in ``sizes``.

    Parameters
    ----------
    sizes : iterable of int
        Input lengths (>= 1).
    kernel_size, stride, dilation : int
        As for ``nn.Conv1d`` / ``nn.Conv2d`` (one spatial dim).
    padding : int or "same" or "valid"
        As for ``nn.Conv1d``.

    Returns
    -------
    list
        One entry per size: the output length, or ``None`` where torch raises.

    Examples
    --------
    >>> conv_output_sizes([2, 3, 7], kernel_size=3, stride=2)
    [None, 1, 3]
    """
    kernel_size = _check_int("kernel_size", kernel_size, 1)
    stride = _check_int("stride", stride, 1)
    dilation = _check_int("dilation", dilation, 1)
    if not (padding in ("same", "valid") or (isinstance(padding, int)
                                              and not isinstance(padding, bool))):
        raise TypeError(f"padding must be an int, 'same' or 'valid', got {padding!r}")
    if isinstance(padding, int) and padding < 0:
        raise ValueError(f"padding must be >= 0, got {padding}")
    try:
        sizes = [_check_int("sizes", s, 1) for s in sizes]
    except TypeError as error:
        if "sizes" in str(error):
            raise
        raise TypeError(f"sizes must be an iterable of int, got {type(sizes).__name__}") from None
    weight = torch.zeros(1, 1, kernel_size)
    out = []
    for size in sizes:
        try:
            with warnings.catch_warnings():  # an even kernel with "same" pads a copy: fine here
                warnings.simplefilter("ignore", UserWarning)
                y = F.conv1d(torch.zeros(1, 1, size), weight, stride=stride, padding=padding,
                             dilation=dilation)
            out.append(y.shape[-1])
        except (RuntimeError, ValueError):
            out.append(None)
    return out


def conv_size_figure(sizes, configs: dict):
    """Plot the output length against the input length for a few convolution settings.

    Parameters
    ----------
    sizes : sequence of int
        The input lengths (x axis).
    configs : dict
        ``{label: keyword arguments of conv_output_sizes}``, one to five entries.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = conv_size_figure(range(1, 9), {"k=3": {"kernel_size": 3}})
    >>> plt.close(fig)
    """
    if not isinstance(configs, dict) or not 1 <= len(configs) <= len(_LINES):
        raise ValueError(f"configs must be a dict of 1 to {len(_LINES)} settings")
    sizes = list(sizes)
    if not sizes:
        raise ValueError("sizes: expected at least one input length")
    fig, ax = plt.subplots(figsize=(8, 4.2))
    for index, ((label, kwargs), color) in enumerate(zip(configs.items(), _LINES)):
        if not isinstance(kwargs, dict):
            raise TypeError(f"configs[{label!r}] must be a dict of keyword arguments")
        outs = conv_output_sizes(sizes, **kwargs)
        xs = [s for s, o in zip(sizes, outs) if o is not None]
        ys = [o for o in outs if o is not None]
        ax.step(xs, ys, where="mid", color=color, label=label, linewidth=2)
        ax.plot(xs, ys, "o", color=color, markersize=3)
        refused = [s for s, o in zip(sizes, outs) if o is None]
        if refused:
            # one row of x per setting, just below 0, so that refusals never hide each other
            ax.plot(refused, [-0.4 * index] * len(refused), "x", color=color, markersize=7,
                    markeredgewidth=2)
    ax.plot(sizes, sizes, ":", color="grey", linewidth=1, label="out = in")
    ax.set_xlabel("input size H")
    ax.set_ylabel("output size")
    ax.set_ylim(bottom=-0.4 * len(configs) - 0.3)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=9, loc="upper left")
    ax.set_title("what comes out of a convolution (x below 0: torch raises)", fontsize=11)
    fig.tight_layout()
    return fig


def norm_groups(layer: nn.Module, n: int, c: int, length: int = 3) -> torch.Tensor:
    """Which ``(sample, channel)`` cells share a statistic with cell ``(0, 0)`` under ``layer``.

    A ``(n, c)`` bool tensor: True where changing the input (any position along ``length``)
    changes the output at ``[0, 0, 0]``, as torch's jacobian says (the layer in its current
    mode; call it on an ``(n, c, length)`` input).

    >>> norm_groups(nn.LayerNorm([4, 3]), 2, 4).tolist()
    [[True, True, True, True], [False, False, False, False]]
    """
    if not isinstance(layer, nn.Module):
        raise TypeError(f"layer must be an nn.Module, got {type(layer).__name__}")
    n, c = _check_int("n", n, 1), _check_int("c", c, 1)
    length = _check_int("length", length, 1)
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(n, c, length, generator=generator, dtype=torch.float64)
    layer = copy.deepcopy(layer).double()   # the caller's layer keeps its dtype and buffers
    jac = torch.autograd.functional.jacobian(lambda t: layer(t)[0, 0, 0], x)
    return jac.abs().amax(dim=-1) > 1e-12


def norm_groups_figure(n: int = 4, c: int = 6, groups: int = 2):
    """Three grids of ``n`` samples by ``c`` channels: the cells that share cell ``(0, 0)``'s
    statistics under BatchNorm (training mode), LayerNorm and GroupNorm (``groups`` groups).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = norm_groups_figure(3, 4, 2)
    >>> plt.close(fig)
    """
    n, c = _check_int("n", n, 2), _check_int("c", c, 2)
    groups = _check_int("groups", groups, 1)
    if n > 8 or c > 12:
        raise ValueError(f"n and c: at most 8 samples and 12 channels are drawn, got {n}, {c}")
    if c % groups:
        raise ValueError(f"groups must divide c ({c}), got {groups}")
    length = 3
    layers = {
        f"BatchNorm1d({c}), train(): one channel,\nall samples (and positions)":
            nn.BatchNorm1d(c).train(),
        f"LayerNorm([{c}, {length}]): one sample,\nall channels (and positions)":
            nn.LayerNorm([c, length]),
        f"GroupNorm({groups}, {c}): one sample,\n{c // groups} channels of a group":
            nn.GroupNorm(groups, c),
    }
    fig, axes = plt.subplots(1, 3, figsize=(11, 0.45 * n + 1.9))
    for ax, (title, layer) in zip(axes, layers.items()):
        shared = norm_groups(layer, n, c, length)
        for i in range(n):
            for j in range(c):
                color = _HOT if (i, j) == (0, 0) else _SHARED if shared[i, j] else _EMPTY
                ax.add_patch(Rectangle((j, n - 1 - i), 1, 1, facecolor=color, edgecolor=_EDGE,
                                       linewidth=0.8))
        ax.set_xlim(-0.1, c + 0.1)
        ax.set_ylim(-0.1, n + 0.1)
        ax.set_aspect("equal")
        ax.set_xticks([j + 0.5 for j in range(c)], [str(j) for j in range(c)], fontsize=8)
        ax.set_yticks([n - 0.5 - i for i in range(n)], [str(i) for i in range(n)], fontsize=8)
        ax.tick_params(length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_xlabel("channel", fontsize=9)
        ax.set_ylabel("sample", fontsize=9)
        ax.set_title(title, fontsize=9.5)
    fig.suptitle("cells that share a mean and variance with the orange cell (0, 0), "
                 "read from torch's gradient", fontsize=10)
    fig.tight_layout()
    return fig
