"""The broadcasting rule, step by step, as torch applies it.

Contract
--------
* ``explain_broadcast(*shapes)`` returns a ``BroadcastPlan`` whose ``result`` equals
  ``torch.broadcast_shapes(*shapes)``, or raises ``BroadcastError`` exactly when torch raises.
* The plan records the two moves of the rule separately, per input, in the result's dim
  numbering (counted from the left):

  1. ``prepended``: dims the input lacks, added on the left with size 1;
  2. ``stretched``: dims where the input *has* size 1 and the result does not (it grows to
     ``n > 1``, or shrinks to 0: torch lets a size-1 dim broadcast against 0).

  A prepended dim that then grows is listed in ``prepended`` only, so every dim of ``padded``
  is either prepended, stretched, or already the result's size.
* Shapes are tuples, lists, ``torch.Size`` or anything with a ``.shape`` (a tensor, an array,
  a ``View``). Nothing here imports torch.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

__all__ = ["BroadcastError", "BroadcastPlan", "explain_broadcast"]


class BroadcastError(ValueError):
    """Shapes that cannot broadcast.

    Attributes
    ----------
    shapes : tuple of tuple of int
        The two conflicting input shapes.
    dim : int
        The result dim where they conflict, counted from the left.
    dim_from_right : int
        The same dim counted from the right (negative, ``-1`` is the last).
    sizes : tuple of int
        The two conflicting sizes.
    """

    def __init__(self, message, *, shapes, dim, dim_from_right, sizes):
        super().__init__(message)
        self.shapes = shapes
        self.dim = dim
        self.dim_from_right = dim_from_right
        self.sizes = sizes


@dataclass(frozen=True)
class BroadcastPlan:
    """How a set of shapes broadcasts to a common result shape.

    Attributes
    ----------
    shapes : tuple of tuple of int
        The inputs, as given.
    result : tuple of int
        The broadcast shape (``torch.broadcast_shapes``).
    padded : tuple of tuple of int
        Each input right-aligned to the result's length, with 1s added on the left.
    prepended : tuple of tuple of int
        For each input, the result dims added on its left (``0 .. k-1``).
    stretched : tuple of tuple of int
        For each input, the result dims where its own size 1 becomes the result's size
        (``n > 1``, or 0). Prepended dims are not repeated here.
    """

    shapes: tuple
    result: tuple
    padded: tuple
    prepended: tuple
    stretched: tuple

    def __str__(self):
        """A table: one row per input, one right-aligned column per result dim.

        Prepended sizes are shown as ``(1)``, stretched sizes as ``1->n``.
        """
        ndim = len(self.result)
        rows = [[f"dim {d}" for d in range(ndim)]]
        for padded, prepended, stretched in zip(self.padded, self.prepended, self.stretched):
            cells = []
            for d, n in enumerate(padded):
                if d in prepended:
                    cells.append(f"(1)->{self.result[d]}" if self.result[d] != 1 else "(1)")
                elif d in stretched:
                    cells.append(f"1->{self.result[d]}")
                else:
                    cells.append(str(n))
            rows.append(cells)
        rows.append([str(n) for n in self.result])
        labels = [""] + [str(s) for s in self.shapes] + ["result"]
        label_width = max(len(label) for label in labels)
        widths = [max(len(row[d]) for row in rows) for d in range(ndim)]
        lines = []
        for label, row in zip(labels, rows):
            cells = "  ".join(cell.rjust(w) for cell, w in zip(row, widths))
            lines.append(f"{label.ljust(label_width)}  {cells}".rstrip())
        # A 0-dim result has no dim columns, so no header row either.
        return "\n".join(lines if ndim else lines[1:])


def _shape_of(value, name):
    if hasattr(value, "shape") and not isinstance(value, (tuple, list)):
        value = value.shape
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
        raise TypeError(
            f"{name} must be a shape (tuple, list, torch.Size) or have a .shape, "
            f"not {type(value).__name__}"
        )
    return _sizes(value, name)


def _sizes(value, name):
    """The sizes in the sequence ``value`` as a tuple: ints (bools refused), none negative."""
    sizes = []
    for i, n in enumerate(value):
        if isinstance(n, bool):
            raise TypeError(f"{name}[{i}] must be an int, not bool")
        try:
            n = operator.index(n)
        except TypeError:
            raise TypeError(f"{name}[{i}] must be an int, not {type(n).__name__}") from None
        if n < 0:
            raise ValueError(f"{name}[{i}] is {n}: sizes must be non-negative")
        sizes.append(n)
    return tuple(sizes)


def explain_broadcast(*shapes):
    """Broadcast shapes and say what happened to each.

    Parameters
    ----------
    *shapes : tuple, list, torch.Size, or an object with ``.shape``
        The shapes to broadcast together; none gives the 0-dim shape ``()``.

    Returns
    -------
    BroadcastPlan

    Raises
    ------
    BroadcastError
        When two sizes at the same (right-aligned) dim differ and neither is 1. The conflict
        reported is the first torch meets: inputs in order, each from its last dim.
    TypeError
        When an argument is not a shape.
    ValueError
        When a size is negative.

    Examples
    --------
    >>> plan = explain_broadcast((3, 1), (4,))
    >>> plan.result
    (3, 4)
    >>> plan.prepended, plan.stretched
    (((), (0,)), ((1,), ()))
    >>> print(plan)
             dim 0  dim 1
    (3, 1)       3   1->4
    (4,)    (1)->3      4
    result       3      4
    >>> explain_broadcast((3, 4), (5,))
    Traceback (most recent call last):
    ...
    tensorlens.broadcast.BroadcastError: shapes (3, 4) and (5,) cannot broadcast: at dim 1 (dim -1 from the right) the sizes are 4 and 5; sizes must be equal or one of them 1
    """
    shapes = tuple(_shape_of(s, f"shapes[{i}]") for i, s in enumerate(shapes))
    ndim = max((len(s) for s in shapes), default=0)
    padded = tuple((1,) * (ndim - len(s)) + s for s in shapes)
    # Like torch: inputs in order, each dim from the right, against the sizes set so far. So the
    # conflict reported is the one torch.broadcast_shapes reports first.
    result = [1] * ndim
    setter = [None] * ndim  # which input set result[d]
    for i, p in enumerate(padded):
        for d in range(ndim - 1, -1, -1):
            n = p[d]
            if n == 1 or n == result[d]:
                continue
            if setter[d] is not None:
                first, second = shapes[setter[d]], shapes[i]
                raise BroadcastError(
                    f"shapes {first} and {second} cannot broadcast: at dim {d} "
                    f"(dim {d - ndim} from the right) the sizes are {result[d]} and {n}; "
                    "sizes must be equal or one of them 1",
                    shapes=(first, second),
                    dim=d,
                    dim_from_right=d - ndim,
                    sizes=(result[d], n),
                )
            result[d], setter[d] = n, i
    result = tuple(result)
    prepended = tuple(tuple(range(ndim - len(s))) for s in shapes)
    stretched = tuple(
        tuple(d for d in range(ndim - len(s), ndim) if p[d] == 1 and result[d] != 1)
        for s, p in zip(shapes, padded)
    )
    return BroadcastPlan(shapes, result, padded, prepended, stretched)
