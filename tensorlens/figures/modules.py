"""A picture for chapter 11's modules page: every tensor a module holds, and who sees it.

Contract
--------
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

from dataclasses import dataclass

import matplotlib.pyplot as plt
import torch
from torch import nn

__all__ = ["TensorRow", "module_tensors", "module_tensors_figure"]

_YES = "#b7e4a6"
_NO = "#f4c7c3"


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
    fig, ax = plt.subplots(figsize=(8, 0.42 * len(rows) + 1.1))
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
        ax.text(c + 0.5, len(rows) - 0.35, name, ha="center", va="bottom", fontsize=8,
                family="monospace")
    ax.set_xlim(-3.1, len(columns))
    ax.set_ylim(-0.7, len(rows) + 0.1)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig
