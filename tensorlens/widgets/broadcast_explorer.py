"""``BroadcastExplorer``: operand shapes aligned from the right, drawn and editable in the browser.

Contract
--------
* ``BroadcastExplorer(*shapes_or_tensors, names=None)`` takes 1 to 6 shapes (tuple, list,
  ``torch.Size``) or tensors (or ``View`` s); a tensor also contributes its strides, so the widget shows the
  strides of *its* broadcast view. Bad arguments raise ``TypeError`` / ``ValueError`` naming the
  argument.
* All state is the synced trait ``operands``: a list of ``{"name", "text", "strides"}``, where
  ``text`` is the shape as the reader sees and edits it and ``strides`` is ``None`` (contiguous)
  once the text no longer gives the tensor's shape. The JavaScript
  (``static/broadcast_explorer.js`` with ``static/broadcast_rule.js``) does all the computing,
  so the widget stays interactive in the static book with no kernel.
* Python is the source of truth in notebooks and tests: ``shapes`` reads the current texts with
  :func:`parse_shape` (the grammar the JS uses, checked on shared fixtures), ``explain()`` returns
  :func:`tensorlens.broadcast.explain_broadcast`'s plan, and ``repr`` is deterministic text:
  ``BroadcastExplorer(A=[3, 1], B=[1, 5]) -> [3, 5]``.
* Text that is not a shape, or shapes that conflict, show a message inside the widget (and in
  the repr); they never break it.
"""

from __future__ import annotations

import re
import string

import anywidget
import traitlets

from ._esm import load_css, load_esm
from ..broadcast import BroadcastError, _sizes, explain_broadcast

__all__ = ["BroadcastExplorer", "parse_shape", "MAX_OPERANDS"]

MAX_OPERANDS = 6

# The grammar of broadcast_rule.js's parseShape: one optional wrapper, then whole numbers
# separated by commas and/or spaces.
_WRAPPERS = (
    re.compile(r"^torch\.Size\(\s*\[(.*)\]\s*\)$", re.S),
    re.compile(r"^\[(.*)\]$", re.S),
    re.compile(r"^\((.*)\)$", re.S),
)


def parse_shape(text):
    """Read a shape as a reader types it into the widget.

    Parameters
    ----------
    text : str
        ``"3, 1"``, ``"3 1"``, ``"[3, 1]"``, ``"(3,)"``, ``"torch.Size([3, 1])"``, or ``"()"``
        for a 0-d tensor.

    Returns
    -------
    tuple of int
        The shape.

    Raises
    ------
    TypeError
        If ``text`` is not a string.
    ValueError
        If it is not a shape (empty, a non-integer or negative size, a stray comma); the message
        is the one the widget shows.

    Examples
    --------
    >>> parse_shape("torch.Size([3, 1])")
    (3, 1)
    >>> parse_shape("()")
    ()
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, not {type(text).__name__}")
    body = text.strip()
    if not body:
        raise ValueError("empty: write () for a 0-d tensor")
    for wrapper in _WRAPPERS:
        match = wrapper.match(body)
        if match:
            body = match.group(1)
            break
    if re.search(r",\s*,", body) or re.match(r"^\s*,", body):
        raise ValueError("two commas with no size between them")
    shape = []
    for part in (p for p in re.split(r"[\s,]+", body) if p):
        if not re.fullmatch(r"\d+", part):
            hint = " (sizes cannot be negative)" if re.fullmatch(r"-\d+", part) else ""
            raise ValueError(f'"{part}" is not a size{hint}')
        if int(part) > 2**53 - 1:  # JS's Number.MAX_SAFE_INTEGER, so both sides agree
            raise ValueError(f"{part} is too large")
        shape.append(int(part))
    return tuple(shape)


def _format(shape):
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _operand(value, where):
    """(shape, strides or None) of one constructor argument."""
    if hasattr(value, "shape") and hasattr(value, "stride"):
        # A torch tensor (stride() is a method) or a tensorlens View (stride is a tuple).
        stride = value.stride() if callable(value.stride) else value.stride
        return tuple(int(n) for n in value.shape), [int(s) for s in stride]
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
        raise TypeError(
            f"{where} must be a tensor or a shape (tuple, list, torch.Size), "
            f"not {type(value).__name__}"
        )
    return _sizes(value, where), None


def _names(names, count):
    if names is None:
        return list(string.ascii_uppercase[:count])
    if isinstance(names, str) or not isinstance(names, (tuple, list)):
        raise TypeError(f"names must be a list of strings, not {type(names).__name__}")
    if len(names) != count:
        raise ValueError(f"names has {len(names)} entries for {count} operands")
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"names[{i}] must be a non-empty string, got {name!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"names must be distinct, got {list(names)}")
    return list(names)


class BroadcastExplorer(anywidget.AnyWidget):
    """Shapes aligned from the right, each dim marked kept, stretched or prepended.

    Parameters
    ----------
    *shapes_or_tensors : tuple, list, torch.Size, torch.Tensor or tensorlens.View
        One to six operands. A tensor (or View) gives its shape and its strides.
    names : list of str, optional
        Labels of the operands (default ``A``, ``B``, ...).

    Raises
    ------
    TypeError
        When an operand is not a shape or tensor (``shapes_or_tensors[i]``), or ``names`` is not
        a list of strings.
    ValueError
        When there are no operands or more than six, a size is negative, or ``names`` does not
        match the operands.

    Examples
    --------
    >>> BroadcastExplorer((3, 1), (1, 5))
    BroadcastExplorer(A=[3, 1], B=[1, 5]) -> [3, 5]
    >>> BroadcastExplorer((3, 4), (4, 5), names=["a", "b"])
    BroadcastExplorer(a=[3, 4], b=[4, 5]) -> cannot broadcast: at dim -1 the sizes are 4 and 5
    """

    _esm = load_esm("broadcast_explorer.js")
    _css = load_css("frame.css", "broadcast_explorer.css")

    operands = traitlets.List(traitlets.Dict()).tag(sync=True)

    def __init__(self, *shapes_or_tensors, names=None, **kwargs):
        if not shapes_or_tensors:
            raise ValueError("shapes_or_tensors: give at least one shape or tensor")
        if len(shapes_or_tensors) > MAX_OPERANDS:
            raise ValueError(
                f"shapes_or_tensors: at most {MAX_OPERANDS} operands, got {len(shapes_or_tensors)}"
            )
        parsed = [_operand(value, f"shapes_or_tensors[{i}]")
                  for i, value in enumerate(shapes_or_tensors)]
        labels = _names(names, len(parsed))
        operands = [
            {"name": name, "text": ", ".join(str(n) for n in shape) if shape else "()",
             "strides": strides}
            for name, (shape, strides) in zip(labels, parsed)
        ]
        super().__init__(operands=operands, **kwargs)

    def _labelled(self):
        """(name, text) of each operand, tolerating a malformed trait as the JS does."""
        return [(op.get("name") or string.ascii_uppercase[i % 26], op.get("text", ""))
                for i, op in enumerate(self.operands)]

    @property
    def shapes(self):
        """The operands' shapes as the widget now shows them (raises ValueError on bad text)."""
        shapes = []
        for name, text in self._labelled():
            try:
                shapes.append(parse_shape(text))
            except (TypeError, ValueError) as error:
                raise ValueError(f"{name}: {error}") from None
        return tuple(shapes)

    def explain(self):
        """The broadcast plan of the current shapes (:func:`explain_broadcast`).

        Raises
        ------
        ValueError
            When an operand's text is not a shape.
        BroadcastError
            When the shapes do not broadcast.
        """
        return explain_broadcast(*self.shapes)

    def __repr__(self):
        labelled = self._labelled()
        try:
            shapes = self.shapes
        except ValueError as error:
            args = ", ".join(f"{name}={text!r}" for name, text in labelled)
            return f"BroadcastExplorer({args}) -> invalid: {error}"
        args = ", ".join(f"{name}={_format(s)}" for (name, _), s in zip(labelled, shapes))
        try:
            plan = explain_broadcast(*shapes)
        except BroadcastError as error:
            a, b = error.sizes
            return (f"BroadcastExplorer({args}) -> cannot broadcast: "
                    f"at dim {error.dim_from_right} the sizes are {a} and {b}")
        return f"BroadcastExplorer({args}) -> {_format(plan.result)}"
