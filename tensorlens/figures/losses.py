"""A picture for chapter 11's losses page: cross-entropy given logits, and given softmax outputs.

Contract
--------
- ``softmax_first_figure(num_classes)`` plots ``F.cross_entropy`` for one sample against the
  margin of the true class's logit over the other (equal) logits, twice: given the logits, as
  the loss expects, and given ``softmax(logits)``, the common mistake. Every point is torch's own
  number. The second curve flattens at a floor above zero (``softmax_first_floor``), which the
  figure marks and labels.
- The caller closes the figure (``plt.close(fig)``). Bad arguments raise ``TypeError`` /
  ``ValueError`` naming the argument.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F

__all__ = ["softmax_first_figure", "softmax_first_floor"]

_RIGHT = "#2b7bba"
_WRONG = "#d1495b"


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
