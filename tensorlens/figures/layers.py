"""Pictures of chapter 11's last pages: what a loss reads, and what a module holds.

Contract
--------
- ``softmax_first_figure(num_classes)`` plots ``F.cross_entropy`` for one sample against the
  margin of the true class's logit over the other (equal) logits, twice: given the logits, as
  the loss expects, and given ``softmax(logits)``, the common mistake. Every point is torch's own
  number. The second curve flattens at a floor above zero, which the figure marks and labels.
- ``module_tensors(module)`` lists every tensor a module holds, registered or not: its
  parameters and buffers (by ``named_parameters``/``named_buffers``) and the tensors that sit in
  plain attributes of it or of a submodule, including the parameters of layers kept in a plain
  Python list or tuple. Each row says whether ``parameters()``, ``buffers()`` and
  ``state_dict()`` see the tensor; ``.to()`` moves exactly the rows that the first two see.
- ``module_tensors_figure(module)`` draws those rows as a grid of ticks and crosses.
- The caller closes the figure (``plt.close(fig)``). Bad arguments raise ``TypeError`` /
  ``ValueError`` naming the argument.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["softmax_first_figure", "softmax_first_floor", "TensorRow", "module_tensors",
           "module_tensors_figure"]

_RIGHT = "#2b7bba"
_WRONG = "#d1495b"
_YES = "#b7e4a6"
_NO = "#f4c7c3"


def softmax_first_floor(num_classes: int) -> float:
    """The smallest loss ``cross_entropy(softmax(z), y)`` can reach with ``num_classes`` classes:
    its input then lies in [0, 1], and the best case is a one-hot row, whose loss is
    ``log(e + C - 1) - 1``."""
    if isinstance(num_classes, bool) or not isinstance(num_classes, int):
        raise TypeError(f"num_classes must be an int, got {type(num_classes).__name__}")
    if num_classes < 2:
        raise ValueError(f"num_classes must be at least 2, got {num_classes}")
    return math.log(math.e + num_classes - 1) - 1


def softmax_first_figure(num_classes: int = 10, max_margin: float = 12.0):
    """Cross-entropy of one sample against the true logit's margin: right (logits) and wrong
    (softmax first), with the wrong curve's floor marked."""
    floor = softmax_first_floor(num_classes)
    if not isinstance(max_margin, (int, float)) or isinstance(max_margin, bool):
        raise TypeError(f"max_margin must be a number, got {type(max_margin).__name__}")
    if not 0 < max_margin <= 50:
        raise ValueError(f"max_margin must be in (0, 50], got {max_margin}")
    margins = torch.linspace(-4.0, float(max_margin), 97)
    logits = torch.zeros(len(margins), num_classes)
    logits[:, 0] = margins
    target = torch.zeros(len(margins), dtype=torch.long)
    right = F.cross_entropy(logits, target, reduction="none")
    wrong = F.cross_entropy(logits.softmax(dim=1), target, reduction="none")
    fig, ax = plt.subplots(figsize=(8, 3.4))
    ax.plot(margins, right, color=_RIGHT, linewidth=2.2,
            label="cross_entropy(logits, y)   (what it expects)")
    ax.plot(margins, wrong, color=_WRONG, linewidth=2.2, linestyle="--",
            label="cross_entropy(softmax(logits), y)   (softmax first)")
    ax.axhline(floor, color=_WRONG, linewidth=0.8, linestyle=":")
    ax.annotate(f"never below {floor:.2f}", xy=(max_margin, floor),
                xytext=(max_margin * 0.72, floor + 0.55), color=_WRONG, fontsize=9,
                arrowprops={"arrowstyle": "->", "color": _WRONG})
    ax.set_xlabel("margin of the true class's logit over the other logits")
    ax.set_ylabel("loss of one sample")
    ax.set_title(f"{num_classes} classes: the softmax-first loss flattens, so its gradient fades",
                 fontsize=10)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


@dataclass(frozen=True)
class TensorRow:
    """One tensor a module holds: where it sits and who sees it."""

    name: str
    shape: tuple
    kind: str
    in_parameters: bool
    in_buffers: bool
    in_state_dict: bool

    @property
    def moves_with_to(self) -> bool:
        """``module.to(...)`` converts parameters and buffers, nothing else."""
        return self.in_parameters or self.in_buffers


def _plain_tensors(module: nn.Module, prefix: str):
    """(name, tensor, kind) for tensors in plain attributes of ``module`` and its submodules."""
    for mod_name, mod in module.named_modules(prefix=prefix.rstrip(".")):
        base = mod_name + "." if mod_name else ""
        for attr, value in vars(mod).items():
            if attr.startswith("_") or attr == "training":
                continue
            if isinstance(value, torch.Tensor):
                yield base + attr, value, "plain tensor attribute"
            elif isinstance(value, (list, tuple)):
                for i, item in enumerate(value):
                    where = f"{base}{attr}.{i}"
                    if isinstance(item, torch.Tensor):
                        yield where, item, "tensor in a Python list"
                    elif isinstance(item, nn.Module):
                        for name, t in item.named_parameters(prefix=where):
                            yield name, t, "layer in a Python list"
                        for name, t in item.named_buffers(prefix=where):
                            yield name, t, "layer in a Python list"
                        yield from _plain_tensors(item, where + ".")


def module_tensors(module) -> list[TensorRow]:
    """Every tensor ``module`` holds (see the module docstring), registered ones first."""
    if not isinstance(module, nn.Module):
        raise TypeError(f"module must be a torch.nn.Module, got {type(module).__name__}")
    state = set(module.state_dict())
    rows = []
    for name, p in module.named_parameters():
        kind = "parameter" if p.requires_grad else "frozen parameter"
        rows.append(TensorRow(name, tuple(p.shape), kind, True, False, name in state))
    for name, b in module.named_buffers():
        kind = "buffer" if name in state else "buffer, persistent=False"
        rows.append(TensorRow(name, tuple(b.shape), kind, False, True, name in state))
    registered = {id(t) for t in module.parameters()} | {id(t) for t in module.buffers()}
    for name, t, kind in _plain_tensors(module, ""):
        if id(t) not in registered:
            rows.append(TensorRow(name, tuple(t.shape), kind, False, False, False))
    return rows


def module_tensors_figure(module, title: str | None = None):
    """A grid: one row per tensor of ``module`` (``module_tensors``), one column per question
    (``parameters()``, ``buffers()``, ``state_dict()``, ``.to()`` moves it), ticks and crosses."""
    rows = module_tensors(module)
    if not rows:
        raise ValueError("module: it holds no tensors to draw")
    columns = ("parameters()", "buffers()", "state_dict()", "moved by .to()")
    fig, ax = plt.subplots(figsize=(9.5, 0.42 * len(rows) + 1.1))
    for r, row in enumerate(rows):
        y = len(rows) - 1 - r
        label = f"{row.name}  {list(row.shape)}"
        ax.text(-0.15, y, label, ha="right", va="center", fontsize=9, family="monospace")
        ax.text(-0.15, y - 0.28, row.kind, ha="right", va="center", fontsize=7, color="#555555")
        seen = (row.in_parameters, row.in_buffers, row.in_state_dict, row.moves_with_to)
        for c, yes in enumerate(seen):
            ax.add_patch(plt.Rectangle((c + 0.05, y - 0.42), 0.9, 0.84,
                                       facecolor=_YES if yes else _NO, edgecolor="white"))
            ax.text(c + 0.5, y, "✓" if yes else "✗", ha="center", va="center", fontsize=12,
                    color="#1d5e20" if yes else "#8a1c1c")
    for c, name in enumerate(columns):
        ax.text(c + 0.5, len(rows) - 0.35, name, ha="center", va="bottom", fontsize=9,
                family="monospace")
    ax.set_xlim(-4.2, len(columns))
    ax.set_ylim(-0.7, len(rows) + 0.1)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig
