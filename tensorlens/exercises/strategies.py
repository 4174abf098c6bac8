"""Hypothesis strategies for exercise inputs: small tensors in every layout that matters.

Contract: every strategy here draws small, readable tensors (values are small integers, cast to
the dtype), so a failing input printed to a learner is short. Shrinking moves towards the first
dtype given, a contiguous layout, small shapes and zeros, so the smallest failing input is also the
simplest one. Layouts:

- ``"contiguous"``: row-major, storage offset 0;
- ``"transposed"``: the same values stored column-major (strides reversed), ndim >= 2 only;
- ``"sliced"``: every other element of a larger buffer, storage offset 1 (a strided slice).

Exercise authors combine these with ``hypothesis.strategies`` (re-exported as ``st``).
"""

from __future__ import annotations

import math

import torch
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

__all__ = ["st", "shapes", "tensors", "vector_and_window", "LAYOUTS", "make_tensor"]

LAYOUTS = ("contiguous", "transposed", "sliced")

_UNSIGNED = {torch.uint8, torch.bool}


def shapes(min_dims: int = 1, max_dims: int = 3, min_side: int = 0, max_side: int = 4) -> SearchStrategy:
    """Shapes as tuples of ints; ``min_side=0`` allows empty dimensions.

    Parameters
    ----------
    min_dims, max_dims : int
        Bounds on the number of dimensions (0 gives a scalar shape ``()``).
    min_side, max_side : int
        Bounds on each size.
    """
    if not 0 <= min_dims <= max_dims:
        raise ValueError(f"shapes: need 0 <= min_dims <= max_dims, got {min_dims}, {max_dims}")
    if not 0 <= min_side <= max_side:
        raise ValueError(f"shapes: need 0 <= min_side <= max_side, got {min_side}, {max_side}")
    side = st.integers(min_side, max_side)
    return st.lists(side, min_size=min_dims, max_size=max_dims).map(tuple)


def make_tensor(values, shape, dtype=torch.float32, layout: str = "contiguous") -> torch.Tensor:
    """Build a tensor holding ``values`` (flat, row-major) with ``shape``, ``dtype`` and ``layout``.

    The logical values do not depend on the layout; only strides and storage offset do.
    ``"transposed"`` needs at least 2 dimensions and falls back to ``"sliced"`` below that;
    ``"sliced"`` falls back to ``"contiguous"`` for 0-d tensors.

    Raises
    ------
    ValueError
        If ``layout`` is unknown or ``values`` does not have ``prod(shape)`` elements.
    """
    shape = tuple(int(s) for s in shape)
    if layout not in LAYOUTS:
        raise ValueError(f"make_tensor: layout must be one of {LAYOUTS}, got {layout!r}")
    if len(values) != math.prod(shape):
        raise ValueError(f"make_tensor: {len(values)} values do not fill shape {shape}")
    if dtype == torch.bool:
        dense = torch.tensor([v != 0 for v in values], dtype=torch.bool).reshape(shape)
    else:
        dense = torch.tensor(list(values), dtype=torch.int64).reshape(shape).to(dtype)
    if layout == "transposed" and len(shape) < 2:
        layout = "sliced"
    if layout == "sliced" and len(shape) == 0:
        layout = "contiguous"
    if layout == "contiguous":
        return dense
    if layout == "transposed":
        rev = tuple(reversed(range(len(shape))))
        return dense.permute(rev).contiguous().permute(rev)
    # sliced: the values sit at odd positions of a buffer twice as wide (offset 1, last stride 2)
    buffer = torch.zeros(shape[:-1] + (2 * shape[-1] + 1,), dtype=dtype)
    view = buffer[..., 1::2]
    view.copy_(dense)
    return view


@st.composite
def tensors(
    draw,
    *,
    dtypes=(torch.float32,),
    shape=None,
    min_dims: int = 1,
    max_dims: int = 3,
    min_side: int = 0,
    max_side: int = 4,
    layouts=LAYOUTS,
    low: int = -9,
    high: int = 9,
):
    """Small tensors with integer-valued elements in ``[low, high]``.

    Parameters
    ----------
    dtypes : sequence of torch.dtype
        Dtypes to draw from; shrinking prefers the first one.
    shape : tuple, strategy of tuples, or None
        A fixed shape, a strategy (e.g. ``shapes(2, 2)``), or None for ``shapes(min_dims, ...)``.
    min_dims, max_dims, min_side, max_side : int
        Passed to :func:`shapes` when ``shape`` is None.
    layouts : sequence of str
        Layouts to draw from (see the module docstring); shrinking prefers the first one.
    low, high : int
        Range of element values (clipped at 0 for unsigned dtypes and bool).
    """
    dtype = draw(st.sampled_from(tuple(dtypes)))
    if shape is None:
        shape = draw(shapes(min_dims, max_dims, min_side, max_side))
    elif isinstance(shape, SearchStrategy):
        shape = draw(shape)
    layout = draw(st.sampled_from(tuple(layouts)))
    lo = max(low, 0) if dtype in _UNSIGNED else low
    hi = min(high, 1) if dtype == torch.bool else high
    n = math.prod(shape)
    values = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    return make_tensor(values, shape, dtype, layout)


@st.composite
def vector_and_window(draw, dtypes=(torch.float32,), max_len: int = 8):
    """``(x, k)``: a 1-D tensor of length 1 to ``max_len`` in any layout, and 1 <= k <= len(x)."""
    x = draw(tensors(shape=shapes(1, 1, 1, max_len), dtypes=dtypes))
    k = draw(st.integers(1, x.shape[0]))
    return x, k
