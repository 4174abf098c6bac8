"""StrideExplorer: a widget that draws a tensor's logical view above its storage.

Contract
--------
* ``StrideExplorer(tensor_or_view, *, label="x", max_elements=262_144)`` takes a torch tensor or
  a :class:`tensorlens.layout.View`. Everything the browser needs is in synced traits, so the
  widget keeps working in the static book with no kernel: the JS (``static/stride_explorer.js``,
  with ``static/view_math.js`` inlined by :mod:`tensorlens.widgets._esm`) computes views itself.
* The storage drawn is a *window* of it (:func:`storage_window`): the whole storage when it
  has at most ``max_elements`` cells, otherwise only the span the view reads, from its first
  to its last storage position, each cell labelled with its true position. A view is drawn when
  both its element count and its window are within ``max_elements``, so a few elements of a
  huge storage (``torch.randn(1000, 1000)[0]``) are drawn, and narrowing a view that is too big
  always ends up drawn. Every view operation reads a subset of what its input reads, so the
  base view's window holds the window of every view the browser derives from it.
* Traits set from Python: ``shape``, ``stride``, ``offset``, ``storage_size`` (the base view),
  ``storage`` (the values of the base view's storage window, from its first cell, rounded to 6
  significant digits; ``None`` for a View or a window above the cap, and the JS then shows
  storage positions), ``label``, ``dtype`` (``"float32"``; ``""`` for a View),
  ``max_elements`` and ``notice`` (why the base view is not drawn, ``""`` when it is; the JS
  computes the same text for the views it derives).
  Traits the browser writes back: ``ops`` (the operations applied, ``[name, args]`` as in
  :meth:`apply`), ``expression`` (their Python spelling, e.g. ``"x.t()[:, ::2]"``) and ``error``
  (the message of the last rejected operation, ``""`` if none).
* ``repr`` (and the ``text/plain`` of the mime bundle, which nbval compares) is deterministic:
  ``StrideExplorer(x: shape=(3, 4), stride=(4, 1), offset=0, contiguous=True, overlap=False)``,
  describing the view after ``ops``.
* Bad arguments raise ``ValueError`` naming them (an argument of the wrong type raises
  :class:`ExplorerArgumentError`, both a ``TypeError`` and a ``ValueError``); invalid views are
  rejected by ``View``'s own validation.
"""

from __future__ import annotations

import math

import anywidget
import traitlets

from ._esm import load_css, load_esm
from ..layout import View, _min_storage_size, _wrap_dim

__all__ = ["StrideExplorer", "ExplorerArgumentError", "python_expression", "storage_window",
           "cap_notice", "DEFAULT_MAX_ELEMENTS"]

DEFAULT_MAX_ELEMENTS = 262_144
_LIST_OPS = ("permute", "expand", "view")
_OPS = ("transpose", "t", "permute", "unsqueeze", "squeeze", "expand", "narrow", "select",
        "slice", "diagonal", "unfold", "view")


class ExplorerArgumentError(TypeError, ValueError):
    """An argument of the wrong type, e.g. a list where a tensor is expected.

    A ``ValueError`` because every rejected input to the explorer raises one, and a
    ``TypeError`` because that is what Python raises for a wrong type (and what earlier
    versions raised), so ``except TypeError`` keeps working.
    """


def storage_window(view, max_elements):
    """The storage cells the explorer draws for ``view``, as ``(start, stop)``.

    Mirrors ``storageWindow`` in ``static/view_math.js``. The whole storage when it has at most
    ``max_elements`` cells (so cells the view skips are seen, greyed); otherwise the span the
    view reads, from its first to its last storage position (empty for an empty view).

    Parameters
    ----------
    view : tensorlens.layout.View
    max_elements : int

    Returns
    -------
    tuple of int

    Examples
    --------
    >>> storage_window(View((4,), storage_size=10), 262_144)
    (0, 10)
    >>> storage_window(View((3, 2), stride=(1000, 1), offset=7, storage_size=10**6), 262_144)
    (7, 2009)
    """
    size = view.storage_size
    if size <= max_elements:
        return 0, size
    start = min(view.offset, size)
    if view.numel == 0:
        return start, start
    # Strides are never negative, so the first element is the lowest position, the last the highest.
    return start, _min_storage_size(view.shape, view.stride, view.offset)


def cap_notice(view, max_elements):
    """Why the explorer does not draw ``view`` (``""`` when it does); ``capNotice`` in the JS."""
    if view.numel > max_elements:
        return (
            f"This view has {view.numel:,} elements, more than this explorer draws "
            f"(max_elements={max_elements:,}). Narrow, select or slice it to see it drawn."
        )
    start, stop = storage_window(view, max_elements)
    if stop - start > max_elements:
        return (
            f"This view reads storage cells {start:,} to {stop - 1:,} of {view.storage_size:,}, "
            f"a span of {stop - start:,} cells, more than this explorer draws "
            f"(max_elements={max_elements:,}). Narrow, select or slice it to see it drawn."
        )
    return ""


def python_expression(label, ops):
    """The Python spelling of ``label`` followed by recorded view operations.

    Mirrors ``pythonExpression`` in ``static/view_math.js``: both produce the same text.

    Parameters
    ----------
    label : str
        The expression of the starting tensor, e.g. ``"x"``.
    ops : list of [str, list]
        Operations as recorded in :attr:`StrideExplorer.ops`.

    Returns
    -------
    str

    Examples
    --------
    >>> python_expression("x", [["t", []], ["unsqueeze", [0]], ["slice", [1, None, None, 2]]])
    'x.t().unsqueeze(0)[:, ::2]'
    """
    text = label
    for op, args in ops:
        if op == "slice":
            dim, start, stop, step = args
            part = f"{'' if start is None else start}:{'' if stop is None else stop}"
            if step not in (None, 1):
                part += f":{step}"
            text += f"[{':, ' * dim}{part}]"
        elif op in _LIST_OPS:
            text += f".{op}({', '.join(map(str, args[0])) if args[0] else '()'})"
        elif op == "diagonal":
            keep = list(args)
            while keep and keep[-1] == (0, 0, 1)[len(keep) - 1]:
                keep.pop()  # trailing defaults (offset=0, dim1=0, dim2=1) are left out
            text += f".diagonal({', '.join(map(str, keep))})"
        else:
            text += f".{op}({', '.join(map(str, args))})"
    return text


def _apply(view, op, args):
    """One recorded op on the model; ``slice`` is ``view[:, ..., start:stop:step]``."""
    if op == "slice":
        dim, start, stop, step = args
        return view[(slice(None),) * dim + (slice(start, stop, step),)]
    if op in _LIST_OPS:
        return getattr(view, op)(tuple(args[0]))
    return getattr(view, op)(*args)


def _compact(value):
    """A storage value as a short JSON number (6 significant digits; nan/inf as strings)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    rounded = float(f"{value:.6g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 2**53 else rounded


def _storage_values(tensor, start, stop):
    """The tensor's storage cells start to stop - 1, in storage order, as compact numbers."""
    if tensor.is_complex() or tensor.is_quantized or tensor.device.type == "meta":
        return None
    flat = tensor.detach().as_strided((stop - start,), (1,), start)
    return [_compact(v) for v in flat.cpu().tolist()]


class StrideExplorer(anywidget.AnyWidget):
    """Draw a tensor (or a :class:`View`) as logical elements above their storage cells.

    Pointing at an element shows ``offset + sum(index * stride) = position``; pointing at a
    storage cell highlights every element that reads it. Buttons apply view operations in the
    browser, with no kernel needed, and show the Python expression of what was applied.

    Parameters
    ----------
    tensor_or_view : torch.Tensor or tensorlens.layout.View
        What to draw. A tensor's storage values are shown; a View shows storage positions.
    label : str, optional
        The Python expression the reader knows the tensor by (default ``"x"``); operations
        applied in the widget are appended to it.
    max_elements : int, optional
        Views with more logical elements than this, or whose storage window (see
        :func:`storage_window`) has more cells, are not drawn; the widget says so instead
        (default 262,144).

    Raises
    ------
    ExplorerArgumentError
        (a ``ValueError`` and a ``TypeError``) When ``tensor_or_view`` is neither a tensor nor
        a View, ``label`` is not a string or ``max_elements`` is not an int.
    ValueError
        When ``max_elements`` is not positive, or the tensor has no strides (sparse).

    Examples
    --------
    >>> import torch
    >>> StrideExplorer(torch.arange(12).view(3, 4))
    StrideExplorer(x: shape=(3, 4), stride=(4, 1), offset=0, contiguous=True, overlap=False)
    >>> StrideExplorer(View((3, 4)), label="v").apply("t")
    StrideExplorer(v.t(): shape=(4, 3), stride=(1, 4), offset=0, contiguous=False, overlap=False)
    """

    _esm = load_esm("stride_explorer.js")
    _css = load_css("frame.css", "stride_explorer.css")

    shape = traitlets.List(traitlets.Int(), help="size of each dim of the base view").tag(sync=True)
    stride = traitlets.List(traitlets.Int(), help="storage step of each dim").tag(sync=True)
    offset = traitlets.Int(0, help="storage position of the first element").tag(sync=True)
    storage_size = traitlets.Int(0, help="storage cells, in elements").tag(sync=True)
    storage = traitlets.List(None, allow_none=True, help="storage values, or None").tag(sync=True)
    label = traitlets.Unicode("x", help="Python expression of the base view").tag(sync=True)
    dtype = traitlets.Unicode("", help="element type without 'torch.'").tag(sync=True)
    # Read-only: the storage values sent are those of the window for this cap, so another cap
    # needs a new explorer (the browser would otherwise place the values at the wrong cells).
    max_elements = traitlets.Int(DEFAULT_MAX_ELEMENTS, read_only=True,
                                 help="largest view drawn").tag(sync=True)
    notice = traitlets.Unicode("", help="why the base view is not drawn").tag(sync=True)
    ops = traitlets.List(help="view operations applied, as [name, args]").tag(sync=True)
    expression = traitlets.Unicode("", help="Python spelling of label + ops").tag(sync=True)
    error = traitlets.Unicode("", help="message of the last rejected operation").tag(sync=True)

    def __init__(self, tensor_or_view, *, label=None, max_elements=DEFAULT_MAX_ELEMENTS):
        view, storage, dtype = self._read(tensor_or_view, max_elements)
        label = "x" if label is None else label
        if not isinstance(label, str):
            raise ExplorerArgumentError(f"label must be a str, not {type(label).__name__}")
        super().__init__(
            shape=list(view.shape), stride=list(view.stride), offset=view.offset,
            storage_size=view.storage_size, storage=storage, label=label, dtype=dtype,
            notice=cap_notice(view, max_elements), ops=[], expression=label, error="",
        )
        self.set_trait("max_elements", max_elements)

    @staticmethod
    def _read(obj, max_elements):
        if isinstance(max_elements, bool) or not isinstance(max_elements, int):
            raise ExplorerArgumentError(
                f"max_elements must be an int, not {type(max_elements).__name__}"
            )
        if max_elements < 1:
            raise ValueError(f"max_elements is {max_elements}: it must be at least 1")
        if isinstance(obj, View):
            return obj, None, ""
        try:
            import torch
        except ImportError:  # pragma: no cover - torch is a dependency; Views work without it
            torch = None
        if torch is None or not isinstance(obj, torch.Tensor):
            raise ExplorerArgumentError(
                "tensor_or_view must be a torch.Tensor or a tensorlens View, "
                f"not {type(obj).__name__}"
            )
        view = View.of(obj)
        start, stop = storage_window(view, max_elements)
        # At most max_elements values go into the notebook, even when the view is not drawn.
        storage = None if stop - start > max_elements else _storage_values(obj, start, stop)
        return view, storage, str(obj.dtype).removeprefix("torch.")

    @traitlets.validate("ops")
    def _check_ops(self, proposal):
        # Every recorded op must apply to the base view, so repr and current_view never fail.
        view = self.base_view
        for i, entry in enumerate(proposal["value"]):
            try:
                op, args = entry
                if op not in _OPS:
                    raise ValueError(f"unknown view operation {op!r}")
                view = _apply(view, op, list(args))
            except (TypeError, ValueError) as exc:
                raise traitlets.TraitError(f"ops[{i}] = {entry!r} does not apply: {exc}") from exc
        return proposal["value"]

    # -- the model side ----------------------------------------------------------------------------

    @property
    def base_view(self):
        """The :class:`View` given (or read from the tensor), before any operation."""
        return View(self.shape, self.stride, self.offset, self.storage_size)

    def current_view(self):
        """The :class:`View` after the recorded :attr:`ops`, computed by the Python model.

        Raises
        ------
        ValueError
            When a recorded op is invalid (the browser never records those).
        """
        view = self.base_view
        for op, args in self.ops:
            view = _apply(view, op, args)
        return view

    def apply(self, op, *args):
        """Apply a view operation, as the widget's buttons do, and return ``self``.

        Parameters
        ----------
        op : str
            ``"transpose"``, ``"t"``, ``"permute"``, ``"unsqueeze"``, ``"squeeze"``,
            ``"expand"``, ``"narrow"``, ``"select"``, ``"slice"``, ``"diagonal"``, ``"unfold"``
            or ``"view"``.
        *args
            Its arguments as the View method takes them; ``permute``, ``expand`` and ``view``
            take one sequence; ``slice`` takes ``dim, start, stop, step`` (``None`` for an open
            end) and means ``x[:, ..., start:stop:step]`` with ``dim`` full slices first.

        Raises
        ------
        ValueError
            For an unknown op, or arguments the model rejects (its message).
        TypeError
            For arguments of the wrong type.

        Examples
        --------
        >>> StrideExplorer(View((4, 6))).apply("slice", 1, None, None, 2).expression
        'x[:, ::2]'
        """
        if op not in _OPS:
            raise ValueError(f"op must be one of {', '.join(_OPS)}; got {op!r}")
        args = list(args)
        if op in _LIST_OPS:
            if len(args) != 1 or isinstance(args[0], (str, bytes)) or not hasattr(args[0], "__iter__"):
                raise TypeError(f"{op} takes one sequence of ints, e.g. apply({op!r}, (2, 3))")
            args = [list(args[0])]
        if op == "slice":
            if len(args) != 4:
                raise TypeError("slice takes dim, start, stop, step (None for an open end)")
            args[0] = _wrap_dim(args[0], self.current_view().ndim)
        if op == "squeeze" and args == [None]:
            args = []
        _apply(self.current_view(), op, args)  # raises with the model's message
        self.ops = self.ops + [[op, args]]
        self.expression = python_expression(self.label, self.ops)
        self.error = ""
        return self

    def __repr__(self):
        view = self.current_view()
        return (
            f"StrideExplorer({python_expression(self.label, self.ops)}: shape={view.shape}, "
            f"stride={view.stride}, offset={view.offset}, contiguous={view.is_contiguous()}, "
            f"overlap={view.has_overlap()})"
        )

    def _repr_mimebundle_(self, **kwargs):
        # anywidget already puts repr(self) in text/plain; pin it so nbval always compares it.
        data, metadata = super()._repr_mimebundle_(**kwargs)
        data["text/plain"] = repr(self)
        return data, metadata
