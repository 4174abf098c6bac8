"""A figure for chapter 8's devices page: where a tensor lives, and what ``.to()`` moves.

``trace_to`` calls ``obj.to(...)`` on a real tensor or module and records what happened: the
devices before and after, whether the call returned the object itself, and (for a module)
whether its ``Parameter`` objects stayed the same. ``to_figure`` draws one row per traced call
in two lanes, host memory and the other device: a tensor's ``.to`` leaves the original where it
was and adds a new tensor in the other lane; a module's ``.to`` moves its parameters across in
place; a call with nothing to change returns the same object and copies nothing.

Contract: ``to_figure`` returns a matplotlib ``Figure`` (no ``plt.show``); the caller closes it.
Bad arguments raise ``TypeError`` / ``ValueError`` naming the argument.
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import torch
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

__all__ = ["ToOutcome", "to_figure", "trace_to"]

_HOST, _OTHER, _EDGE = "#4c9be8", "#e4572e", "#555555"
_KINDS = {"cpu": "host memory", "cuda": "GPU memory", "mps": "GPU memory",
          "meta": "shapes only, no data"}


@dataclass(frozen=True)
class ToOutcome:
    """What one ``obj.to(...)`` call did, read from the objects themselves."""

    code: str            # the call as the reader would type it
    kind: str            # "tensor" or "module"
    name: str            # what is drawn in the box (a tensor's name, or "model.weight")
    result: str          # the name of what a tensor's .to returned
    before: str          # device of the tensor (or of the module's first parameter) before
    after: str           # device of what the call returned (or of the first parameter) after
    original_after: str  # device of the original tensor after the call (a tensor's .to)
    same_object: bool    # the call returned obj itself
    same_parameters: bool  # a module kept its Parameter objects (True for tensors)


def trace_to(code: str, obj, *args, name: str | None = None, result: str = "new tensor",
             **kwargs) -> ToOutcome:
    """Call ``obj.to(*args, **kwargs)`` and record what happened (see :class:`ToOutcome`).

    ``obj`` is a tensor or an ``nn.Module`` with at least one parameter; ``code`` is the label
    drawn for the row, ``name`` the label of the tensor box (default: ``"x"`` for a tensor,
    ``"weight"`` for a module's first parameter) and ``result`` the label of a new tensor.

    >>> trace_to("x.to('cpu')", torch.ones(2), "cpu").same_object
    True
    """
    if not isinstance(code, str) or not code:
        raise ValueError("code: expected a non-empty string (the call, as typed)")
    if isinstance(obj, torch.Tensor):
        before = str(obj.device)
        returned = obj.to(*args, **kwargs)
        return ToOutcome(code, "tensor", name or "x", result, before, str(returned.device),
                         str(obj.device), returned is obj, True)
    if isinstance(obj, torch.nn.Module):
        params = list(obj.parameters())
        if not params:
            raise ValueError("obj: the module has no parameters to move")
        before = str(params[0].device)
        returned = obj.to(*args, **kwargs)
        after_params = list(obj.parameters())
        same = len(params) == len(after_params) and all(
            p is q for p, q in zip(params, after_params))
        return ToOutcome(code, "module", name or "weight", result, before,
                         str(after_params[0].device), str(after_params[0].device),
                         returned is obj, same)
    raise TypeError(f"obj: expected a torch.Tensor or nn.Module, got {type(obj).__name__}")


def _box(ax, x, y, text, color, dashed=False):
    ax.add_patch(FancyBboxPatch((x - 0.9, y - 0.22), 1.8, 0.44, boxstyle="round,pad=0.03",
                                facecolor="white" if dashed else color, edgecolor=color,
                                linewidth=1.6, linestyle="--" if dashed else "-"))
    ax.text(x, y, text, ha="center", va="center", fontsize=9, family="monospace",
            color=color if dashed else "white", fontweight="bold")


def to_figure(outcomes, *, host: str = "cpu"):
    """One row per :class:`ToOutcome`: the call on the left, then two lanes, ``host`` memory and
    the other device. Solid boxes are tensors that exist after the call; a dashed box is where a
    parameter was before a module's in-place move. The arrow says what the call did."""
    outcomes = list(outcomes)
    if not outcomes:
        raise ValueError("outcomes: expected at least one ToOutcome from trace_to")
    for outcome in outcomes:
        if not isinstance(outcome, ToOutcome):
            raise TypeError(f"outcomes: expected ToOutcome items, got {type(outcome).__name__}")
    devices = {d for o in outcomes for d in (o.before, o.after)}
    others = sorted(devices - {host})
    if len(others) > 1:
        raise ValueError(f"outcomes: expected at most one device besides {host!r}, "
                         f"got {others}")
    other = others[0] if others else "other device"
    lane_x = {host: 4.6, other: 8.6}
    rows = len(outcomes)
    fig, ax = plt.subplots(figsize=(10, 1.0 * rows + 1.0))
    top = rows + 0.1
    for device, color in ((host, _HOST), (other, _OTHER)):
        x = lane_x[device]
        ax.add_patch(FancyBboxPatch((x - 1.6, -0.5), 3.2, top + 0.2, boxstyle="round,pad=0.02",
                                    facecolor=color, alpha=0.08, edgecolor=color))
        kind = _KINDS.get(torch.device(device).type if device != "other device" else "", "")
        label = f"{device} ({kind})" if kind else device
        ax.text(x, top + 0.15, label, ha="center", va="bottom", fontsize=10, color=color,
                fontweight="bold")
    for i, o in enumerate(outcomes):
        y = rows - 1 - i + 0.1
        ax.text(0.0, y, o.code, ha="left", va="center", fontsize=9, family="monospace",
                color="#222222")
        start = lane_x.get(o.before, lane_x[other])
        end = lane_x.get(o.after, lane_x[other])
        color_of = {lane_x[host]: _HOST, lane_x[other]: _OTHER}
        if o.kind == "tensor" and o.same_object:
            _box(ax, start, y, o.name, color_of[start])
            ax.add_patch(FancyArrowPatch((start + 0.9, y + 0.1), (start + 0.9, y - 0.1),
                                         connectionstyle="arc3,rad=-2.2", arrowstyle="-|>",
                                         mutation_scale=12, color=_EDGE))
            note = "returns x itself: no copy"
        elif o.kind == "tensor":
            _box(ax, start, y, o.name, color_of[start])
            _box(ax, end, y, o.result, color_of[end])
            note = f"returns a new tensor; {o.name} stays on {o.original_after}"
        else:
            if start != end:
                _box(ax, start, y, o.name, color_of[start], dashed=True)
            _box(ax, end, y, o.name, color_of[end])
            verb = "moved" if start != end else "converted"
            note = (f"{verb} in place, same Parameter" if o.same_parameters
                    else f"{verb} in place, new Parameter objects")
            if o.same_object:
                note += "; returns the module"
        if start != end:
            ax.add_patch(FancyArrowPatch((start + 0.95, y), (end - 0.95, y), arrowstyle="-|>",
                                         mutation_scale=14, color=_EDGE, linewidth=1.4))
        ax.text((lane_x[host] + lane_x[other]) / 2, y - 0.36, note, ha="center", va="center",
                fontsize=8.5, color="#333333")
    ax.set_xlim(-0.1, 10.4)
    ax.set_ylim(-0.6, top + 0.6)
    ax.axis("off")
    fig.patch.set_facecolor("white")
    return fig
