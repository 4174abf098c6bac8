"""Watching shapes flow through a model: one forward pass, every submodule's input and output.

Contract
--------
- ``shape_table(module, *inputs, **kwargs)`` registers a forward pre-hook and a forward hook on
  ``module`` and on each of its submodules (down to ``max_depth`` levels below it; ``None``: all),
  calls ``module(*inputs, **kwargs)`` once under ``torch.no_grad()``, and returns a
  :class:`ShapeTable`: one :class:`ShapeRow` per call, in the order the calls *started* (a parent
  before its children; a submodule called twice gives two rows).
- The hooks are removed before ``shape_table`` returns, and also when the forward pass raises.
  The exception then propagates unchanged in type and message; on Python 3.11+ it carries a note
  (``add_note``) naming the innermost submodule that was running and the shapes it was given,
  and the table of the calls so far is on ``error.shape_table``.
- The forward pass is a real one: the module keeps its mode (``train()`` / ``eval()``), so a
  BatchNorm in training mode updates its running statistics, as any forward in that mode would.
- A tensor is described by its shape (a ``torch.Size``), with its dtype written after it in the
  table when it is not the default float dtype (``[2, 5] int64``); tuples, lists and dicts of
  tensors are described element by element, ``None`` as ``None``, anything else by its type name.
- ``params`` is the number of parameter elements the row's module holds, its children's included
  (a parameter shared between submodules counted once), read when the call returns (so a lazy
  module such as ``nn.LazyLinear``, initialised by that call, counts; a call that did not finish
  counts only the parameters that had a shape when it started).
- Bad arguments raise ``TypeError`` / ``ValueError`` naming the argument.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.parameter import is_lazy

__all__ = ["ShapeRow", "ShapeTable", "shape_table", "describe"]


def describe(value):
    """What a value passed to or returned by a module looks like, shape-wise.

    A tensor becomes its ``torch.Size``; a tuple or list, a tuple of descriptions; a dict, a dict
    of descriptions; ``None`` stays ``None``; anything else becomes its type name (a ``str``).

    >>> describe((torch.zeros(2, 3), None))
    (torch.Size([2, 3]), None)
    """
    if isinstance(value, torch.Tensor):
        return value.shape
    if isinstance(value, (tuple, list)):
        return tuple(describe(v) for v in value)
    if isinstance(value, Mapping):
        return {k: describe(v) for k, v in value.items()}
    if value is None:
        return None
    return type(value).__name__


def _text(value) -> str:
    """``value`` (a tensor, container, None or other) as the table writes it."""
    if isinstance(value, torch.Tensor):
        text = "[" + ", ".join(str(n) for n in value.shape) + "]"
        if value.dtype != torch.get_default_dtype():
            text += " " + str(value.dtype).removeprefix("torch.")
        return text
    if isinstance(value, (tuple, list)):
        inner = ", ".join(_text(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_text(v)}" for k, v in value.items()) + "}"
    if value is None:
        return "None"
    return type(value).__name__


@dataclass(frozen=True)
class ShapeRow:
    """One call of one submodule during the forward pass.

    ``name`` is the submodule's qualified name (``"features.0"``; ``""`` for the module itself),
    ``kind`` its class name, ``depth`` how many levels below the module it sits, ``inputs`` the
    description (:func:`describe`) of its positional arguments, ``output`` that of what it
    returned (``None`` while, or because, the call did not finish), ``params`` its parameter
    elements, and ``inputs_text`` / ``output_text`` the table's text for them.
    """

    name: str
    kind: str
    depth: int
    inputs: tuple
    output: object
    params: int
    inputs_text: str
    output_text: str
    finished: bool


class ShapeTable:
    """The rows of :func:`shape_table`, printable as a table (``print(table)`` or its repr)."""

    def __init__(self, rows):
        self.rows = tuple(rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[ShapeRow]:
        return iter(self.rows)

    def __getitem__(self, index):
        return self.rows[index]

    def row(self, name: str) -> ShapeRow:
        """The first row of the submodule called ``name`` (``""`` for the module itself)."""
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        for r in self.rows:
            if r.name == name:
                return r
        raise KeyError(f"no submodule called {name!r} ran (names: "
                       f"{', '.join(repr(r.name) for r in self.rows)})")

    def __str__(self) -> str:
        header = ("module", "type", "input", "output", "params")
        lines = []
        for r in self.rows:
            label = "  " * r.depth + (r.name.rpartition(".")[2] if r.name else "(model)")
            lines.append((label, r.kind, r.inputs_text,
                          r.output_text if r.finished else "(did not finish)", f"{r.params:,}"))
        widths = [max(len(line[i]) for line in [header, *lines]) for i in range(5)]

        def fmt(cells):
            left = "  ".join(c.ljust(w) for c, w in zip(cells[:4], widths))
            return (left + "  " + cells[4].rjust(widths[4])).rstrip()

        return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *map(fmt, lines)])

    __repr__ = __str__


def _params(module: nn.Module) -> int:
    # a lazy module's parameters have no shape until its first call: they count once it ran
    return sum(p.numel() for p in module.parameters() if not is_lazy(p))


def shape_table(module, *inputs, max_depth: int | None = None, **kwargs) -> ShapeTable:
    """Run ``module(*inputs, **kwargs)`` once and record each submodule's input and output shapes.

    Parameters
    ----------
    module : torch.nn.Module
        The model to watch.
    *inputs
        Its positional inputs (at least one).
    max_depth : int or None
        How many levels of submodules to record (0: the module itself only; ``None``: all).
    **kwargs
        Keyword arguments passed on to the forward call.

    Returns
    -------
    ShapeTable
        One row per call, in the order the calls started.

    Raises
    ------
    TypeError
        If ``module`` is not an ``nn.Module``, no input is given, or ``max_depth`` is not an int.
    ValueError
        If ``max_depth`` is negative.
    Exception
        Whatever the forward pass raises, unchanged (hooks removed, a note added naming the
        submodule that failed, and the rows so far on its ``shape_table`` attribute).

    Examples
    --------
    >>> net = nn.Sequential(nn.Linear(4, 3), nn.ReLU())
    >>> [tuple(r.output) for r in shape_table(net, torch.zeros(2, 4))]
    [(2, 3), (2, 3), (2, 3)]
    """
    if not isinstance(module, nn.Module):
        raise TypeError(f"module must be a torch.nn.Module, got {type(module).__name__}")
    if not inputs:
        raise TypeError("inputs: shape_table needs at least one input to pass to module")
    if max_depth is not None:
        if isinstance(max_depth, bool) or not isinstance(max_depth, int):
            raise TypeError(f"max_depth must be an int or None, got {type(max_depth).__name__}")
        if max_depth < 0:
            raise ValueError(f"max_depth must be >= 0, got {max_depth}")

    rows: list[dict] = []
    running: dict[int, list[int]] = {}   # id(submodule) -> indices of its unfinished rows
    handles = []

    def watch(name: str, sub: nn.Module, depth: int) -> None:
        def pre_hook(mod, args):
            running.setdefault(id(mod), []).append(len(rows))
            rows.append({"name": name, "kind": type(mod).__name__, "depth": depth,
                         "inputs": describe(args), "inputs_text": _text(args)[1:-1].rstrip(","),
                         "output": None, "output_text": "", "finished": False,
                         "params": _params(mod)})

        def hook(mod, args, output):
            row = rows[running[id(mod)].pop()]
            row.update(output=describe(output), output_text=_text(output), finished=True,
                       params=_params(mod))

        handles.append(sub.register_forward_pre_hook(pre_hook))
        handles.append(sub.register_forward_hook(hook))

    for name, sub in module.named_modules():
        depth = name.count(".") + 1 if name else 0
        if max_depth is None or depth <= max_depth:
            watch(name, sub, depth)

    try:
        with torch.no_grad():
            module(*inputs, **kwargs)
    except Exception as error:
        table = ShapeTable(ShapeRow(**r) for r in rows)
        unfinished = [r for r in rows if not r["finished"]]
        if unfinished and hasattr(error, "add_note"):
            last = unfinished[-1]
            where = repr(last["name"]) if last["name"] else "the model itself"
            error.add_note(f"shape_table: raised inside {where} ({last['kind']}), "
                           f"given {last['inputs_text'] or 'no positional input'}")
        try:
            error.shape_table = table
        except (AttributeError, TypeError):  # an exception type without a __dict__
            pass
        raise
    finally:
        for handle in handles:
            handle.remove()
    return ShapeTable(ShapeRow(**r) for r in rows)
