"""A pure model of strided views that agrees with PyTorch.

Contract
--------
* ``View`` describes where the elements of a tensor live: a ``shape``, a ``stride`` per dim
  (how many storage elements to step when that dim's index grows by one), an ``offset`` (the
  storage position of element ``[0, 0, ...]``) and the ``storage_size`` of the underlying
  storage, in elements. A ``View`` is immutable, hashable and compares by value.
* Every view operation (``transpose``, ``permute``, ``t``, ``unsqueeze``, ``squeeze``,
  ``expand``, ``narrow``, ``select``, indexing, ``view``, ``diagonal``, ``unfold``,
  ``as_strided``) has torch's name, signature and rules, and returns a new ``View`` with the
  same shape, stride and offset torch would give. The test-suite checks this against torch on
  random chains of operations.
* Where torch raises, the model raises too: ``ValueError`` with a plain-words message, or
  ``ViewIndexError`` (both an ``IndexError``, as in torch, and a ``ValueError``) when a dim or
  an index is out of range. Arguments of the wrong type raise ``TypeError`` naming the argument.
  Operations that would copy in torch (``reshape``, advanced indexing) are not modelled.
* Nothing here imports torch except ``View.of``, which reads a real tensor.
"""

from __future__ import annotations

import numbers
import operator
from math import gcd, prod

__all__ = ["View", "ViewIndexError"]


class ViewIndexError(IndexError, ValueError):
    """A dim or an index is out of range.

    It is an ``IndexError`` because torch raises ``IndexError`` in these cases, and a
    ``ValueError`` because every other rejected argument value raises one (numpy's
    ``AxisError`` makes the same choice).
    """


# ---------------------------------------------------------------------------------------------
# Argument checking. Bools are rejected although they are ints: ``x.transpose(True, 0)`` is far
# more likely a bug than a request for dim 1, and torch rejects them in most places too.


def _as_int(value, name):
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an int, not bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None


def _as_int_tuple(values, name):
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a sequence of ints, not {type(values).__name__}")
    return tuple(_as_int(v, f"{name}[{i}]") for i, v in enumerate(values))


def _sizes_from_args(args, name, method):
    """Accept ``f(2, 3)`` and ``f((2, 3))`` like torch's variadic size arguments."""
    if not args:
        raise TypeError(f"{method}() missing the {name} argument")
    if len(args) == 1 and not isinstance(args[0], bool) and hasattr(args[0], "__iter__"):
        return _as_int_tuple(args[0], name)
    return _as_int_tuple(args, name)


def _wrap_dim(dim, ndim, name="dim"):
    """Torch's ``maybe_wrap_dim``: negative dims count from the end; a 0-dim view accepts 0 and -1."""
    dim = _as_int(dim, name)
    span = max(ndim, 1)
    if not -span <= dim < span:
        raise ViewIndexError(
            f"{name} {dim} is out of range for a view with {ndim} dims "
            f"(expected a dim in [{-span}, {span - 1}])"
        )
    return dim + span if dim < 0 else dim


def _min_storage_size(shape, stride, offset):
    """Elements a storage needs so that every element of the view lies inside it.

    Mirrors torch's ``computeStorageNbytes`` plus the offset: a view with no elements needs no
    storage beyond its offset.
    """
    if 0 in shape:
        return offset
    return offset + 1 + sum((n - 1) * s for n, s in zip(shape, stride))


def _contiguous_strides(shape):
    strides = []
    step = 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


class View:
    """Shape, strides and offset of a tensor over a flat storage, modelled without torch.

    Parameters
    ----------
    shape : sequence of int
        Size of each dim; ``()`` is a 0-dim (scalar) view.
    stride : sequence of int, optional
        Storage step per dim. ``None`` (default) means contiguous (row-major).
    offset : int, optional
        Storage position of the first element. Default 0.
    storage_size : int, optional
        Number of elements in the underlying storage. Default: the smallest storage that
        holds every element (``offset`` for a view with no elements).

    Raises
    ------
    TypeError
        When an argument is not an int or a sequence of ints (bools included), naming it.
    ValueError
        For negative sizes, strides, offset or storage size, a stride per dim missing, or a
        stride pointing outside storage.

    Examples
    --------
    >>> View((3, 4))
    View(shape=(3, 4), stride=(4, 1), offset=0)
    >>> View((3, 4)).t()
    View(shape=(4, 3), stride=(1, 4), offset=0)
    >>> View((3, 4)).t().is_contiguous()
    False
    >>> View((2,), stride=(4,), offset=1, storage_size=12).storage_indices()
    [1, 5]
    """

    __slots__ = ("_shape", "_stride", "_offset", "_storage_size")

    def __init__(self, shape, stride=None, offset=0, storage_size=None):
        shape = _as_int_tuple(shape, "shape")
        for i, n in enumerate(shape):
            if n < 0:
                raise ValueError(f"shape[{i}] is {n}: sizes must be non-negative")
        if stride is None:
            stride = _contiguous_strides(shape)
        else:
            stride = _as_int_tuple(stride, "stride")
            if len(stride) != len(shape):
                raise ValueError(
                    f"stride has {len(stride)} entries but shape has {len(shape)} dims: "
                    "give one stride per dim"
                )
            for i, s in enumerate(stride):
                if s < 0:
                    raise ValueError(
                        f"stride[{i}] is {s}: strides must be non-negative (torch has no "
                        "negative strides)"
                    )
        offset = _as_int(offset, "offset")
        if offset < 0:
            raise ValueError(f"offset is {offset}: the storage offset must be non-negative")
        needed = _min_storage_size(shape, stride, offset)
        if storage_size is None:
            storage_size = needed
        else:
            storage_size = _as_int(storage_size, "storage_size")
            if storage_size < 0:
                raise ValueError(f"storage_size is {storage_size}: it must be non-negative")
            if 0 not in shape and needed > storage_size:
                raise ValueError(
                    f"a stride pointing outside storage: shape {shape}, stride {stride} and "
                    f"offset {offset} reach storage position {needed - 1}, outside a storage "
                    f"of {storage_size} elements (positions 0 to {storage_size - 1})"
                )
        object.__setattr__(self, "_shape", shape)
        object.__setattr__(self, "_stride", stride)
        object.__setattr__(self, "_offset", offset)
        object.__setattr__(self, "_storage_size", storage_size)

    def __setattr__(self, name, value):
        raise AttributeError("View is immutable: its operations return new views")

    def __delattr__(self, name):
        raise AttributeError("View is immutable: its operations return new views")

    # -- construction from torch ---------------------------------------------------------------

    @classmethod
    def of(cls, tensor):
        """The view of a real torch tensor over its storage.

        Parameters
        ----------
        tensor : torch.Tensor
            A strided tensor (the usual kind).

        Returns
        -------
        View
            Its shape, stride, storage offset and storage size in elements
            (``untyped_storage().nbytes() // element_size()``).

        Raises
        ------
        TypeError
            When ``tensor`` is not a torch tensor.
        ValueError
            When it is not strided (sparse, for example), so it has no strides.

        Examples
        --------
        >>> import torch
        >>> View.of(torch.arange(12).view(3, 4)[:, 1:3])
        View(shape=(3, 2), stride=(4, 1), offset=1, storage_size=12)
        """
        import torch  # here only, so the model itself loads without torch

        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"tensor must be a torch.Tensor, not {type(tensor).__name__}")
        if tensor.layout != torch.strided:
            raise ValueError(f"tensor must be strided to have strides, not {tensor.layout}")
        return cls(
            tuple(tensor.shape),
            tensor.stride(),
            tensor.storage_offset(),
            tensor.untyped_storage().nbytes() // tensor.element_size(),
        )

    # -- attributes ------------------------------------------------------------------------------

    @property
    def shape(self):
        """Size of each dim, a tuple of ints."""
        return self._shape

    @property
    def stride(self):
        """Storage step of each dim, a tuple of ints."""
        return self._stride

    @property
    def offset(self):
        """Storage position of the first element (torch's ``storage_offset()``)."""
        return self._offset

    @property
    def storage_size(self):
        """Number of elements in the underlying storage."""
        return self._storage_size

    @property
    def ndim(self):
        """Number of dims."""
        return len(self._shape)

    @property
    def numel(self):
        """Number of elements (1 for a 0-dim view)."""
        return prod(self._shape)

    def __eq__(self, other):
        if not isinstance(other, View):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def _key(self):
        return (self._shape, self._stride, self._offset, self._storage_size)

    def __repr__(self):
        # storage_size only when it says something the other three do not.
        text = f"View(shape={self._shape}, stride={self._stride}, offset={self._offset}"
        if self._storage_size != _min_storage_size(self._shape, self._stride, self._offset):
            text += f", storage_size={self._storage_size}"
        return text + ")"

    def _derive(self, shape, stride, offset=None):
        return View(shape, stride, self._offset if offset is None else offset, self._storage_size)

    def to_dict(self):
        """A plain JSON-able dict, as widgets receive it.

        Examples
        --------
        >>> View((2, 3)).to_dict()
        {'shape': [2, 3], 'stride': [3, 1], 'offset': 0, 'storage_size': 6}
        """
        return {
            "shape": list(self._shape),
            "stride": list(self._stride),
            "offset": self._offset,
            "storage_size": self._storage_size,
        }

    # -- queries ---------------------------------------------------------------------------------

    def storage_indices(self):
        """Storage position of every element, in row-major logical order.

        Returns
        -------
        list of int
            ``numel`` positions; for a view of ``torch.arange(storage_size)`` these are exactly
            the tensor's values.

        Examples
        --------
        >>> View((2, 3)).t().storage_indices()
        [0, 3, 1, 4, 2, 5]
        >>> View(()).storage_indices()
        [0]
        """
        positions = [self._offset]
        for n, s in zip(self._shape, self._stride):
            positions = [p + k * s for p in positions for k in range(n)]
        return positions

    def index_to_storage(self, idx):
        """Storage position of the element at a logical index.

        Parameters
        ----------
        idx : sequence of int
            One index per dim; negative indices count from the end.

        Returns
        -------
        int
            ``offset + sum(i * stride)``.

        Raises
        ------
        ViewIndexError
            When ``idx`` has the wrong length or an index is out of range (naming the dim).

        Examples
        --------
        >>> View((3, 4)).t().index_to_storage((1, -1))
        9
        """
        idx = _as_int_tuple(idx, "idx")
        if len(idx) != self.ndim:
            raise ViewIndexError(
                f"idx has {len(idx)} indices but the view has {self.ndim} dims: give one per dim"
            )
        position = self._offset
        for dim, (i, n, s) in enumerate(zip(idx, self._shape, self._stride)):
            if not -n <= i < n:
                raise ViewIndexError(f"index {i} is out of bounds for dim {dim} with size {n}")
            position += (i + n if i < 0 else i) * s
        return position

    def is_contiguous(self):
        """Torch's definition: row-major with no gaps, ignoring dims of size 1.

        A view with no elements is contiguous.

        Examples
        --------
        >>> View((3, 1), stride=(1, 7)).is_contiguous()
        True
        >>> View((3, 4))[:, ::2].is_contiguous()
        False
        """
        if self.numel == 0:
            return True
        expected = 1
        for n, s in zip(reversed(self._shape), reversed(self._stride)):
            if n != 1:
                if s != expected:
                    return False
                expected *= n
        return True

    def has_overlap(self):
        """Whether two different logical indices share a storage position.

        Exact, not a heuristic: stride 0 on a dim of size > 1 (``expand``) or overlapping
        ``unfold`` windows overlap; permuted, sliced or gapped views do not.

        Examples
        --------
        >>> View((3,)).expand(2, 3).has_overlap()
        True
        >>> View((8,)).unfold(0, 3, 2).has_overlap()
        True
        >>> View((8,)).unfold(0, 2, 2).has_overlap()
        False
        """
        if self.numel == 0:
            return False
        dims = sorted((s, n) for n, s in zip(self._shape, self._stride) if n > 1)
        if any(s == 0 for s, _ in dims):
            return True
        # Common case first: with strides sorted, if each stride steps past everything the
        # smaller dims can reach, all positions are distinct.
        reach = 0
        for s, n in dims:
            if s <= reach:
                break
            reach += (n - 1) * s
        else:
            return False
        # Otherwise count the distinct positions exactly, dim by dim: a collision shows as fewer
        # positions than index combinations. Scaling all strides by their gcd keeps collisions.
        g = gcd(*(s for s, _ in dims))
        dims = [(s // g, n) for s, n in dims]
        span = 1 + sum((n - 1) * s for s, n in dims)
        if self.numel * 64 <= span:
            # Few elements spread thinly: a set of positions is the smaller structure.
            positions = {0}
            for s, n in dims:
                grown = {p + k * s for p in positions for k in range(n)}
                if len(grown) != len(positions) * n:
                    return True
                positions = grown
            return False
        # Dense enough: a bit set of reachable positions, shifted by each step of each dim.
        reachable, count = 1, 1
        for s, n in dims:
            grown = 0
            for k in range(n):
                grown |= reachable << (k * s)
            count *= n
            reachable = grown
            if reachable.bit_count() != count:
                return True
        return False

    # -- view operations ---------------------------------------------------------------------------

    def transpose(self, dim0, dim1):
        """Swap two dims (their sizes and strides).

        Examples
        --------
        >>> View((2, 3, 4)).transpose(0, -1)
        View(shape=(4, 3, 2), stride=(1, 4, 12), offset=0)
        """
        d0 = _wrap_dim(dim0, self.ndim, "dim0")
        d1 = _wrap_dim(dim1, self.ndim, "dim1")
        if self.ndim == 0:
            return self
        shape, stride = list(self._shape), list(self._stride)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        stride[d0], stride[d1] = stride[d1], stride[d0]
        return self._derive(shape, stride)

    def permute(self, *dims):
        """Reorder the dims: result dim ``i`` is input dim ``dims[i]``.

        Accepts ``permute(2, 0, 1)`` and ``permute((2, 0, 1))``.

        Examples
        --------
        >>> View((2, 3, 4)).permute(2, 0, 1)
        View(shape=(4, 2, 3), stride=(1, 12, 4), offset=0)
        """
        dims = _sizes_from_args(dims, "dims", "permute")
        if len(dims) != self.ndim:
            raise ValueError(
                f"permute got {len(dims)} dims for a view with {self.ndim} dims: "
                "name every dim exactly once"
            )
        wrapped = [_wrap_dim(d, self.ndim, f"dims[{i}]") for i, d in enumerate(dims)]
        if len(set(wrapped)) != len(wrapped):
            raise ValueError(f"permute dims {dims} repeat a dim: duplicate dims are not allowed")
        return self._derive(
            [self._shape[d] for d in wrapped], [self._stride[d] for d in wrapped]
        )

    def t(self):
        """Transpose a view of at most 2 dims; 0-dim and 1-dim views come back unchanged.

        Examples
        --------
        >>> View((2, 3)).t()
        View(shape=(3, 2), stride=(1, 3), offset=0)
        """
        if self.ndim > 2:
            raise ValueError(f"t() expects a view with <= 2 dims, but this one has {self.ndim}")
        return self.transpose(0, -1) if self.ndim == 2 else self

    def unsqueeze(self, dim):
        """Insert a dim of size 1 at position ``dim`` (in the result's numbering).

        Its stride, as in torch, is ``size * stride`` of the dim it is inserted before, or 1 at
        the end.

        Examples
        --------
        >>> View((3, 4)).unsqueeze(1)
        View(shape=(3, 1, 4), stride=(4, 4, 1), offset=0)
        """
        dim = _wrap_dim(dim, self.ndim + 1)
        shape, stride = list(self._shape), list(self._stride)
        new_stride = 1 if dim >= self.ndim else shape[dim] * stride[dim]
        shape.insert(dim, 1)
        stride.insert(dim, new_stride)
        return self._derive(shape, stride)

    def squeeze(self, dim=None):
        """Remove dims of size 1: all of them, or those among ``dim`` (an int or a tuple).

        A named dim whose size is not 1 is left alone, as in torch.

        Examples
        --------
        >>> View((1, 3, 1)).squeeze()
        View(shape=(3,), stride=(1,), offset=0)
        >>> View((1, 3, 1)).squeeze((0, 1))
        View(shape=(3, 1), stride=(1, 1), offset=0)
        """
        if dim is None:
            chosen = set(range(self.ndim))
        elif isinstance(dim, (tuple, list)):
            wrapped = [_wrap_dim(d, self.ndim, f"dim[{i}]") for i, d in enumerate(dim)]
            if len(set(wrapped)) != len(wrapped):
                raise ValueError(f"squeeze dims {tuple(dim)} name the same dim more than once")
            chosen = set(wrapped)
        else:
            chosen = {_wrap_dim(dim, self.ndim)}
        keep = [d for d in range(self.ndim) if not (d in chosen and self._shape[d] == 1)]
        return self._derive([self._shape[d] for d in keep], [self._stride[d] for d in keep])

    def expand(self, *sizes):
        """Stretch dims of size 1 (stride 0) and prepend new leading dims, without copying.

        ``-1`` keeps a dim's size; new leading dims cannot be ``-1``; a dim whose size is not 1
        must keep its size.

        Examples
        --------
        >>> View((3, 1)).expand(2, -1, 4)
        View(shape=(2, 3, 4), stride=(0, 1, 0), offset=0)
        """
        sizes = _sizes_from_args(sizes, "sizes", "expand")
        ndim, old = len(sizes), self.ndim
        if ndim < old:
            raise ValueError(
                f"expand got {ndim} sizes for a view with {old} dims: the number of sizes must "
                "be at least the number of dims"
            )
        if old == 0:
            for i, n in enumerate(sizes):
                if n < 0:
                    raise ValueError(f"expand size {n} at dim {i}: sizes must be non-negative")
            return self._derive(sizes, (0,) * ndim)
        shape, stride = [0] * ndim, [0] * ndim
        for i in range(ndim - 1, -1, -1):
            d = i - (ndim - old)
            if d >= 0:
                size, step = self._shape[d], self._stride[d]
            else:
                # torch's stride for a new leading dim, which stays only if its size is 1.
                size, step = 1, shape[i + 1] * stride[i + 1]
            target = sizes[i]
            if target == -1:
                if d < 0:
                    raise ValueError(
                        f"expand size -1 at dim {i}: -1 (keep the size) is not allowed in a "
                        "new leading dim"
                    )
                target = size
            if target < 0:
                raise ValueError(f"expand size {target} at dim {i}: sizes must be non-negative")
            if size != target:
                if size != 1:
                    raise ValueError(
                        f"expand size {target} at dim {i} must match the existing size {size} "
                        f"(only dims of size 1 can grow); sizes {sizes}, view shape {self._shape}"
                    )
                size, step = target, 0
            shape[i], stride[i] = size, step
        return self._derive(shape, stride)

    def narrow(self, dim, start, length):
        """Elements ``start`` to ``start + length`` of one dim (``start`` may be negative).

        Examples
        --------
        >>> View((3, 4)).narrow(1, 1, 2)
        View(shape=(3, 2), stride=(4, 1), offset=1, storage_size=12)
        """
        if self.ndim == 0:
            raise ValueError("narrow() cannot be applied to a 0-dim view")
        dim = _wrap_dim(dim, self.ndim)
        start, length = _as_int(start, "start"), _as_int(length, "length")
        if length < 0:
            raise ValueError(f"narrow length is {length}: it must be non-negative")
        size = self._shape[dim]
        if not -size <= start <= size:
            raise ViewIndexError(
                f"narrow start {start} is out of range for dim {dim} of size {size} "
                f"(expected a start in [{-size}, {size}])"
            )
        if start < 0:
            start += size
        if start + length > size:
            raise ValueError(
                f"narrow start ({start}) + length ({length}) exceeds the size of dim {dim} ({size})"
            )
        return self._slice(dim, start, start + length, 1)

    def select(self, dim, index):
        """Take one index along ``dim``, removing that dim (``x.select(0, i)`` is ``x[i]``).

        Examples
        --------
        >>> View((3, 4)).select(1, -1)
        View(shape=(3,), stride=(4,), offset=3)
        """
        if self.ndim == 0:
            raise ViewIndexError("select() cannot be applied to a 0-dim view")
        dim = _wrap_dim(dim, self.ndim)
        index = _as_int(index, "index")
        size = self._shape[dim]
        if not -size <= index < size:
            raise ViewIndexError(f"select index {index} is out of range for dim {dim} of size {size}")
        if index < 0:
            index += size
        shape, stride = list(self._shape), list(self._stride)
        del shape[dim], stride[dim]
        return self._derive(shape, stride, self._offset + index * self._stride[dim])

    def _slice(self, dim, start, stop, step):
        # torch's ``slice``: clamp like Python, then move the offset even for an empty result.
        size = self._shape[dim]
        if start < 0:
            start += size
        if stop < 0:
            stop += size
        start = min(max(start, 0), size)
        stop = min(max(stop, start), size)
        shape, stride = list(self._shape), list(self._stride)
        shape[dim] = (stop - start + step - 1) // step
        stride[dim] *= step
        return self._derive(shape, stride, self._offset + start * self._stride[dim])

    def __getitem__(self, key):
        """Basic indexing: ints, slices with positive steps, ``None``, ``...`` and tuples of them.

        Advanced indexing (lists, tensors, bools) copies in torch, so it is not a view and is
        rejected with ``TypeError``. As in torch, an index may hold several ``...``: each one
        skips all the dims that no int or slice names.

        Examples
        --------
        >>> View((3, 4))[1:, None, ::2]
        View(shape=(2, 1, 2), stride=(4, 4, 2), offset=4, storage_size=12)
        >>> View((3, 4))[..., 0]
        View(shape=(3,), stride=(4,), offset=0, storage_size=12)
        """
        items = key if isinstance(key, tuple) else (key,)
        parsed = []
        for item in items:
            if item is None or item is Ellipsis:
                parsed.append(item)
            elif isinstance(item, slice):
                parts = [
                    None if v is None else _as_int(v, f"slice {part}")
                    for v, part in ((item.start, "start"), (item.stop, "stop"), (item.step, "step"))
                ]
                parsed.append(slice(*parts))
            elif isinstance(item, bool) or not isinstance(item, numbers.Integral):
                raise TypeError(
                    f"index {item!r} of type {type(item).__name__} is not a view index: use ints, "
                    "slices, None or ...; advanced indexing (lists, tensors, bools) copies"
                )
            else:
                parsed.append(int(item))
        consumed = sum(item is not None and item is not Ellipsis for item in parsed)
        if consumed > self.ndim:
            raise ViewIndexError(
                f"too many indices for a view with {self.ndim} dims: {consumed} dims indexed"
            )
        # Like torch, every ``...`` skips the dims no int or slice names; torch accepts several.
        result, dim = self, 0
        for item in parsed:
            if item is Ellipsis:
                dim += self.ndim - consumed
            elif item is None:
                result = result.unsqueeze(dim)
                dim += 1
            elif dim >= result.ndim:
                # Only reachable with several ``...``: torch then reads past the end of its
                # list of sizes (it may raise or return anything), so the model refuses.
                raise ViewIndexError(
                    f"index {item!r} lands on dim {dim}, past the last dim of a view with "
                    f"{result.ndim} dims: each ... skipped {self.ndim - consumed} dims"
                )
            elif isinstance(item, slice):
                step = 1 if item.step is None else item.step
                if step <= 0:
                    raise ValueError(f"slice step is {step}: steps must be greater than zero")
                start = 0 if item.start is None else item.start
                stop = result._shape[dim] if item.stop is None else item.stop
                result = result._slice(dim, start, stop, step)
                dim += 1
            else:
                size = result._shape[dim]
                if not -size <= item < size:
                    raise ViewIndexError(
                        f"index {item} is out of bounds for dim {dim} with size {size}"
                    )
                result = result.select(dim, item)
        return result

    def view(self, *shape):
        """The same elements under a new shape, without copying, when strides allow it.

        One size may be ``-1`` (inferred). Like torch's ``computeStride``, a non-contiguous view
        can be viewed as long as each group of dims that is merged was itself laid out
        contiguously; otherwise this raises (torch would tell you to use ``reshape``, which
        copies).

        Examples
        --------
        >>> View((3, 4)).view(2, -1)
        View(shape=(2, 6), stride=(6, 1), offset=0)
        >>> View((3, 4)).t().view(2, 2, 3)
        View(shape=(2, 2, 3), stride=(2, 1, 4), offset=0)
        """
        shape = self._infer_size(_sizes_from_args(shape, "shape", "view"))
        stride = self._compute_stride(shape)
        if stride is None:
            raise ValueError(
                f"view size is not compatible with input tensor's size and stride: shape "
                f"{self._shape} with stride {self._stride} cannot be viewed as {shape} because "
                "at least one new dim spans two separately laid out blocks; use reshape (which "
                "copies) instead"
            )
        return self._derive(shape, stride)

    def _infer_size(self, shape):
        numel = self.numel
        inferred = None
        known = 1
        for i, n in enumerate(shape):
            if n == -1:
                if inferred is not None:
                    raise ValueError(f"view shape {shape}: only one dimension can be inferred (-1)")
                inferred = i
            elif n < 0:
                raise ValueError(f"view shape {shape}: invalid size {n} at index {i}")
            else:
                known *= n
        if inferred is not None:
            if known == 0:
                raise ValueError(
                    f"cannot view {numel} elements as shape {shape}: with a 0 size in the shape "
                    "the -1 could be any value and is ambiguous"
                )
            if numel % known == 0:
                return shape[:inferred] + (numel // known,) + shape[inferred + 1 :]
        elif known == numel:
            return shape
        raise ValueError(f"shape {shape} is invalid for a view of {numel} elements")

    def _compute_stride(self, new_shape):
        """ATen's ``computeStride``: new strides, or None when no view is possible."""
        old_shape, old_stride = self._shape, self._stride
        if not old_shape:
            return (1,) * len(new_shape)
        if self.numel == 0:
            if old_shape == new_shape:
                return old_stride
            return _contiguous_strides(new_shape)
        new_stride = [0] * len(new_shape)
        view_d = len(new_shape) - 1
        # Walk the old dims from the right in "chunks": runs of dims laid out contiguously
        # relative to each other. Each chunk must be covered exactly by a run of new dims.
        chunk_base_stride = old_stride[-1]
        tensor_numel = 1
        view_numel = 1
        for tensor_d in range(len(old_shape) - 1, -1, -1):
            tensor_numel *= old_shape[tensor_d]
            if tensor_d == 0 or (
                old_shape[tensor_d - 1] != 1
                and old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride
            ):
                while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                    new_stride[view_d] = view_numel * chunk_base_stride
                    view_numel *= new_shape[view_d]
                    view_d -= 1
                if view_numel != tensor_numel:
                    return None
                if tensor_d > 0:
                    chunk_base_stride = old_stride[tensor_d - 1]
                    tensor_numel = 1
                    view_numel = 1
        if view_d != -1:
            return None
        return tuple(new_stride)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        """The diagonal of the (``dim1``, ``dim2``) planes, as a new last dim.

        ``offset > 0`` is above the main diagonal, ``offset < 0`` below. Its stride is
        ``stride[dim1] + stride[dim2]``.

        Examples
        --------
        >>> View((3, 4)).diagonal()
        View(shape=(3,), stride=(5,), offset=0, storage_size=12)
        >>> View((3, 4)).diagonal(1)
        View(shape=(3,), stride=(5,), offset=1)
        """
        offset = _as_int(offset, "offset")
        d1 = _wrap_dim(dim1, self.ndim, "dim1")
        d2 = _wrap_dim(dim2, self.ndim, "dim2")
        if d1 == d2:
            raise ValueError(f"diagonal dims cannot be identical: dim1={dim1}, dim2={dim2}")
        n1, n2 = self._shape[d1], self._shape[d2]
        if offset >= 0:
            size = max(min(n1, n2 - offset), 0)
        else:
            size = max(min(n1 + offset, n2), 0)
        start = self._offset
        if size > 0:
            start += offset * self._stride[d2] if offset >= 0 else -offset * self._stride[d1]
        keep = [d for d in range(self.ndim) if d not in (d1, d2)]
        shape = [self._shape[d] for d in keep] + [size]
        stride = [self._stride[d] for d in keep] + [self._stride[d1] + self._stride[d2]]
        return self._derive(shape, stride, start)

    def unfold(self, dimension, size, step):
        """Sliding windows of ``size`` elements, ``step`` apart, along ``dimension``.

        The windows become a new last dim; ``dimension`` counts the windows. Windows overlap
        when ``step < size``.

        Examples
        --------
        >>> View((6,)).unfold(0, 3, 2)
        View(shape=(2, 3), stride=(2, 1), offset=0, storage_size=6)
        """
        d = _wrap_dim(dimension, self.ndim, "dimension")
        size, step = _as_int(size, "size"), _as_int(step, "step")
        max_size = self._shape[d] if self.ndim else 1
        if size > max_size:
            raise ValueError(
                f"unfold size {size} is larger than dim {d}, which has size {max_size}"
            )
        if size < 0:
            raise ValueError(f"unfold size is {size}: it must be non-negative")
        if step <= 0:
            raise ValueError(f"unfold step is {step}: it must be greater than zero")
        shape, stride = list(self._shape), list(self._stride)
        shape.append(size)
        stride.append(stride[d] if self.ndim else 1)
        if self.ndim:
            shape[d] = (shape[d] - size) // step + 1
            stride[d] *= step
        return self._derive(shape, stride)

    def as_strided(self, size, stride, storage_offset=None):
        """Any shape and stride over the same storage: the model of ``torch.as_strided``.

        .. warning:: This reads storage positions directly. torch checks only that the
           elements stay inside the storage, so ``as_strided`` can make views whose elements
           overlap (writes to them race) or that read elements the original view did not
           cover. Prefer the named operations; use this to explain them.

        Parameters
        ----------
        size, stride : sequence of int
            The new shape and strides (one stride per dim, non-negative).
        storage_offset : int, optional
            Defaults to this view's offset (not 0), as in torch.

        Examples
        --------
        >>> View((4,)).as_strided((3, 2), (1, 1))
        View(shape=(3, 2), stride=(1, 1), offset=0)
        """
        size = _as_int_tuple(size, "size")
        stride = _as_int_tuple(stride, "stride")
        for name, values in (("size", size), ("stride", stride)):
            for i, v in enumerate(values):
                if v < 0:
                    raise ValueError(f"as_strided {name}[{i}] is {v}: it must be non-negative")
        if len(size) != len(stride):
            raise ValueError(
                f"as_strided got {len(size)} sizes and {len(stride)} strides: the lengths of "
                "size and stride must match"
            )
        offset = self._offset if storage_offset is None else _as_int(storage_offset, "storage_offset")
        if offset < 0:
            raise ValueError(f"as_strided storage_offset is {offset}: it must be non-negative")
        return self._derive(size, stride, offset)
