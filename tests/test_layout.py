"""Tests for tensorlens.layout: torch is the oracle.

Every view is built twice: as a ``View`` and as a real tensor over ``torch.arange(storage_size)``,
so each element's value *is* its storage position. After every operation the two must agree on
shape, stride, offset, contiguity and every element's storage position; when torch raises, the
model must raise too, and the other way round.
"""

import doctest
import itertools
import json
import math

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tensorlens.layout
from tensorlens.layout import View, ViewIndexError

# -- helpers ---------------------------------------------------------------------------------------


def tensor_like(view):
    """A real tensor with the view's geometry over ``arange(storage_size)``."""
    storage = torch.arange(view.storage_size)
    return storage.as_strided(view.shape, view.stride, view.offset)


def brute_force_overlap(view):
    positions = view.storage_indices()
    return len(set(positions)) != len(positions)


def assert_same_view(view, tensor):
    """The model and the tensor describe the same elements at the same storage positions."""
    assert view.shape == tuple(tensor.shape)
    assert view.stride == tensor.stride()
    assert view.offset == tensor.storage_offset()
    assert view.ndim == tensor.dim()
    assert view.numel == tensor.numel()
    assert view.is_contiguous() == tensor.is_contiguous()
    assert view.storage_indices() == tensor.flatten().tolist()
    assert View.of(tensor) == view
    assert view.has_overlap() == brute_force_overlap(view)


def apply(obj, op, args):
    """Call one operation on a View or a tensor (``getitem`` is indexing)."""
    if op == "getitem":
        return obj[args[0]]
    return getattr(obj, op)(*args)


def outcome(obj, op, args):
    try:
        return apply(obj, op, args), None
    except (RuntimeError, IndexError, ValueError, TypeError) as error:
        return None, error


def lands_past_the_last_dim(ndim, key):
    """Whether an index with several ``...`` puts an int or slice beyond the last dim.

    torch then reads past the end of its list of sizes: undefined behaviour (it raised for some
    keys and returned the tensor unchanged for others when tried), so only the model's refusal
    is checked.
    """
    items = key if isinstance(key, tuple) else (key,)
    named = sum(item is not None and item is not Ellipsis for item in items)
    if named > ndim:
        return False  # "too many indices", which torch checks first
    dim, skip = 0, ndim - named
    for item in items:
        if item is Ellipsis:
            dim += skip
        elif item is None:
            dim += 1
            ndim += 1
        elif dim >= ndim:
            return True
        elif isinstance(item, slice):
            dim += 1
        else:
            ndim -= 1
    return False


def assert_op_agrees(view, op, args):
    """Apply ``op`` to the view and to its tensor; both succeed and agree, or both raise.

    Returns the new view (or the old one when both raised).
    """
    if op == "getitem" and lands_past_the_last_dim(view.ndim, args[0]):
        with pytest.raises(ValueError):
            view[args[0]]
        return view
    tensor = tensor_like(view)
    expected, torch_error = outcome(tensor, op, args)
    got, model_error = outcome(view, op, args)
    if torch_error is not None:
        assert model_error is not None, (
            f"torch raised {type(torch_error).__name__}: {torch_error}\n"
            f"but the model gave {got} for {view}.{op}{args}"
        )
        # Int arguments are never a type error: the model must reject them as values.
        assert isinstance(model_error, ValueError), repr(model_error)
        return view
    if any(n < 0 for n in expected.shape):
        # torch's as_strided (and expand, built on it) skip their size checks when another size
        # is 0, and make a tensor with a negative size; the model refuses every negative size.
        assert op in ("as_strided", "expand") and 0 in expected.shape
        assert isinstance(model_error, ValueError) and "must be non-negative" in str(model_error)
        return view
    assert model_error is None, f"torch gave {tuple(expected.shape)}, model raised {model_error!r}"
    assert_same_view(got, expected)
    return got


# -- table tests: every op, including rank-0 and zero-size views --------------------------------------

S = View(())
X = View((3, 4))
E = View((0, 3))
CUBE = View((2, 3, 4))
ROW = View((1, 4))

OP_CASES = [
    # transpose / permute / t
    (X, "transpose", (0, 1)),
    (CUBE, "transpose", (0, -1)),
    (S, "transpose", (0, -1)),
    (E, "transpose", (1, 0)),
    (CUBE, "permute", (2, 0, 1)),
    (CUBE, "permute", ((1, -1, 0),)),
    (S, "permute", ((),)),
    (E, "permute", (1, 0)),
    (X, "t", ()),
    (S, "t", ()),
    (View((5,)), "t", ()),
    # unsqueeze / squeeze
    (X, "unsqueeze", (0,)),
    (X, "unsqueeze", (1,)),
    (X, "unsqueeze", (-1,)),
    (S, "unsqueeze", (0,)),
    (S, "unsqueeze", (-1,)),
    (E, "unsqueeze", (1,)),
    (View((1, 3, 1)), "squeeze", ()),
    (View((1, 3, 1)), "squeeze", (0,)),
    (View((1, 3, 1)), "squeeze", (1,)),
    (View((1, 3, 1)), "squeeze", ((0, -1),)),
    (View((1, 3, 1)), "squeeze", ([2],)),
    (View((1, 0, 1)), "squeeze", ()),
    (S, "squeeze", ()),
    (S, "squeeze", (0,)),
    (S, "squeeze", ((),)),
    # expand
    (View((3, 1)), "expand", (3, 4)),
    (View((3, 1)), "expand", (2, -1, 4)),
    (View((3, 1)), "expand", ((2, 3, 4),)),
    (View((3, 1)), "expand", (1, 3, 1)),
    (View((3, 1)), "expand", (3, 0)),
    (X, "expand", (2, 1, 3, 4)),
    (S, "expand", (2, 3)),
    (S, "expand", (1,)),
    (S, "expand", ((),)),
    (E, "expand", (2, 0, 3)),
    # narrow / select
    (X, "narrow", (1, 1, 2)),
    (X, "narrow", (1, -3, 2)),
    (X, "narrow", (1, 4, 0)),
    (X, "narrow", (0, -3, 0)),
    (E, "narrow", (0, 0, 0)),
    (X, "select", (0, 2)),
    (X, "select", (1, -1)),
    (View((1,)), "select", (0, 0)),
    # indexing
    (X, "getitem", (1,)),
    (X, "getitem", (-1,)),
    (X, "getitem", ((slice(1, None), None, slice(None, None, 2)),)),
    (X, "getitem", ((None, slice(1, None), None, slice(None, None, 2)),)),
    (X, "getitem", ((Ellipsis, 0),)),
    (X, "getitem", ((Ellipsis, None),)),
    (X, "getitem", ((0, Ellipsis, 1),)),
    (X, "getitem", ((slice(5, None),),)),
    (X, "getitem", ((slice(None), slice(-100, 100, 3)),)),
    (X, "getitem", ((slice(2, 1),),)),
    (X, "getitem", ((),)),
    (X.t(), "getitem", ((slice(None), None),)),
    (S, "getitem", (None,)),
    (S, "getitem", (Ellipsis,)),
    (S, "getitem", ((),)),
    (S, "getitem", ((Ellipsis, None, None),)),
    (E, "getitem", ((slice(None), 1),)),
    # torch accepts several ellipses; each skips the dims no int or slice names
    (X, "getitem", ((Ellipsis, Ellipsis),)),
    (CUBE, "getitem", ((Ellipsis, 0, Ellipsis),)),
    (CUBE, "getitem", ((0, Ellipsis, 0, Ellipsis),)),
    (CUBE, "getitem", ((Ellipsis, None, Ellipsis),)),
    (CUBE, "getitem", ((Ellipsis, slice(1, None), Ellipsis),)),
    (S, "getitem", ((Ellipsis, Ellipsis, None, Ellipsis),)),
    (View((3,)), "getitem", ((Ellipsis, slice(None), Ellipsis, Ellipsis),)),
    # view
    (X, "view", (12,)),
    (X, "view", (2, -1)),
    (X, "view", ((2, 2, 3),)),
    (X, "view", ([-1],)),
    (X.t(), "view", (2, 2, 3)),
    (X.t(), "view", (1, 4, 1, 3)),
    (X.t(), "view", (4, 3, 1)),
    (X[:, 1:3], "view", (3, 2, 1)),
    (X[:, ::2], "view", (6,)),
    (View((2, 3, 4)).permute(1, 0, 2), "view", (3, 2, 4, 1)),
    (View((2, 3, 4)).permute(1, 0, 2), "view", (3, 2, 2, 2)),
    (View((4, 1, 3)).expand(4, 5, 3), "view", (4, 5, 3, 1)),
    (S, "view", ((),)),
    (S, "view", (1, 1)),
    (S, "view", (-1,)),
    (View((1, 1)), "view", ((),)),
    (E, "view", (-1,)),
    (E, "view", (3, 0)),
    (E, "view", ((0, 3),)),
    (E.t(), "view", (3, 0)),
    (E.t(), "view", (3, 1, 0)),
    # diagonal
    (X, "diagonal", ()),
    (X, "diagonal", (1,)),
    (X, "diagonal", (-1,)),
    (X, "diagonal", (5,)),
    (X, "diagonal", (-5,)),
    (X, "diagonal", (0, 1, 0)),
    (CUBE, "diagonal", (1, 0, 2)),
    (CUBE, "diagonal", (0, -1, -2)),
    (View((0, 3)), "diagonal", (1,)),
    # unfold
    (View((8,)), "unfold", (0, 3, 2)),
    (View((8,)), "unfold", (0, 3, 3)),
    (X, "unfold", (1, 2, 1)),
    (X, "unfold", (1, 0, 1)),
    (X, "unfold", (-2, 3, 5)),
    (S, "unfold", (0, 1, 1)),
    (S, "unfold", (0, 0, 1)),
    (E, "unfold", (0, 0, 2)),
    # as_strided
    (X, "as_strided", ((2, 2), (1, 2))),
    (X, "as_strided", ((3, 3), (1, 1), 2)),
    (X[1:], "as_strided", ((2,), (1,))),
    (X, "as_strided", ((), ())),
    (X, "as_strided", ((0,), (1,), 100)),
    (X, "as_strided", ((4,), (0,), 11)),
]

ERROR_CASES = [
    (S, "transpose", (0, 1)),
    (X, "transpose", (2, 0)),
    (X, "permute", (0, 0)),
    (X, "permute", (1,)),
    (S, "permute", (0,)),
    (X, "permute", (0, 2)),
    (CUBE, "t", ()),
    (S, "unsqueeze", (1,)),
    (X, "unsqueeze", (3,)),
    (X, "unsqueeze", (-4,)),
    (X, "squeeze", (2,)),
    (X, "squeeze", ((0, 0),)),
    (X, "squeeze", ((0, -2),)),
    (S, "squeeze", ((0, -1),)),
    (X, "expand", (4,)),
    (X, "expand", (-1, 3, 4)),
    (X, "expand", (-2, 4)),
    (ROW, "expand", (-2, 4)),
    (X, "expand", (3, 5)),
    (X, "expand", (-3, -1)),
    (S, "expand", (-1,)),
    (S, "expand", (2, -1)),
    (S, "narrow", (0, 0, 1)),
    (X, "narrow", (1, 5, 0)),
    (X, "narrow", (1, -5, 0)),
    (X, "narrow", (1, 1, -1)),
    (X, "narrow", (1, 1, 4)),
    (X, "narrow", (2, 0, 1)),
    (S, "select", (0, 0)),
    (X, "select", (0, 3)),
    (X, "select", (0, -4)),
    (X, "select", (2, 0)),
    (E, "select", (0, 0)),
    (S, "getitem", (0,)),
    (S, "getitem", (slice(None),)),
    (X, "getitem", (3,)),
    (X, "getitem", ((slice(None), -5),)),
    (X, "getitem", ((0, 0, 0),)),
    (X, "getitem", (slice(None, None, 0),)),
    (CUBE, "getitem", ((Ellipsis, Ellipsis, 0),)),
    (CUBE, "getitem", ((Ellipsis, Ellipsis, None),)),
    (CUBE, "getitem", ((Ellipsis, Ellipsis, slice(None, None, 2)),)),
    (X, "getitem", (slice(None, None, -1),)),
    (E, "getitem", (0,)),
    (X, "view", (-1, -1)),
    (X, "view", (-2, 6)),
    (X, "view", (5, -1)),
    (X, "view", (2, 5)),
    (X.t(), "view", (12,)),
    (X.t(), "view", (3, 4)),
    (X[:, :3], "view", (9,)),
    (View((4, 1, 3)).expand(4, 5, 3), "view", (20, 3)),
    (View((2, 3, 4)).permute(1, 0, 2), "view", (3, 8)),
    (E, "view", (-1, 0)),
    (E, "view", (0, -1)),
    (E, "view", (1,)),
    (S, "view", (2,)),
    (S, "diagonal", ()),
    (View((5,)), "diagonal", ()),
    (X, "diagonal", (0, 1, 1)),
    (X, "diagonal", (0, 1, -1)),
    (X, "diagonal", (0, 0, 2)),
    (X, "unfold", (1, 5, 1)),
    (X, "unfold", (1, -1, 1)),
    (X, "unfold", (1, 2, 0)),
    (X, "unfold", (2, 1, 1)),
    (S, "unfold", (0, 2, 1)),
    (X, "as_strided", ((2,), (-1,), 3)),
    (X, "as_strided", ((-1,), (1,))),
    (X, "as_strided", ((2,), (1,), -1)),
    (X, "as_strided", ((2,), (1,), 11)),
    (X, "as_strided", ((2,), (1, 1))),
    (X, "as_strided", ((3, 4), (4, 2))),
]


def case_id(case):
    view, op, args = case
    return f"{op}{args}-on-{view.shape}"


@pytest.mark.parametrize("case", OP_CASES, ids=case_id)
def test_op_matches_torch(case):
    view, op, args = case
    assert_same_view(view, tensor_like(view))
    _, torch_error = outcome(tensor_like(view), op, args)
    assert torch_error is None, f"table case raises in torch: {torch_error}"
    assert_op_agrees(view, op, args)


@pytest.mark.parametrize("case", ERROR_CASES, ids=case_id)
def test_op_raises_like_torch(case):
    view, op, args = case
    _, torch_error = outcome(tensor_like(view), op, args)
    assert torch_error is not None, "table case does not raise in torch"
    with pytest.raises(ValueError):
        apply(view, op, args)


@pytest.mark.parametrize(
    "case",
    [(S, "transpose", (0, 1)), (X, "select", (0, 3)), (X, "getitem", (3,)), (X, "narrow", (1, 5, 0))],
    ids=case_id,
)
def test_out_of_range_is_an_index_error_like_torch(case):
    view, op, args = case
    with pytest.raises(IndexError):
        apply(tensor_like(view), op, args)
    with pytest.raises(ViewIndexError):
        apply(view, op, args)


def test_error_messages_say_what_torch_says():
    with pytest.raises(ValueError, match="view size is not compatible with input tensor's size and stride.*use reshape"):
        X.t().view(12)
    with pytest.raises(ValueError, match="only one dimension can be inferred"):
        X.view(-1, -1)
    with pytest.raises(ValueError, match=r"shape \(5, -1\) is invalid for a view of 12 elements"):
        X.view(5, -1)
    with pytest.raises(ValueError, match="must match the existing size 3"):
        X.expand(4, 4)
    with pytest.raises(ValueError, match="not allowed in a new leading dim"):
        X.expand(-1, 3, 4)
    with pytest.raises(ViewIndexError, match="dim0 2 is out of range for a view with 2 dims"):
        X.transpose(2, 0)
    with pytest.raises(ViewIndexError, match="index 3 is out of bounds for dim 0 with size 3"):
        X[3]
    with pytest.raises(ValueError, match="steps must be greater than zero"):
        X[::-1]
    with pytest.raises(ValueError, match="t\\(\\) expects a view with <= 2 dims"):
        CUBE.t()
    with pytest.raises(ValueError, match="diagonal dims cannot be identical"):
        X.diagonal(0, 1, -1)
    with pytest.raises(ValueError, match="a stride pointing outside storage"):
        X.as_strided((2,), (1,), 11)


def test_several_ellipses_past_the_last_dim_are_refused():
    # torch reads past its list of sizes here: it returned the tensor unchanged when tried.
    for key in [(Ellipsis, Ellipsis, slice(0, 1)), (Ellipsis, Ellipsis, 0), (Ellipsis, 0, Ellipsis, 0)]:
        with pytest.raises(ViewIndexError, match="past the last dim of a view with [23] dims"):
            CUBE[key]


def test_negative_sizes_that_torch_lets_through_are_refused():
    # torch checks sizes only through its storage-size and numel computations, which stop at a
    # 0 size, so as_strided and expand can make tensors with negative sizes.
    tensor = torch.arange(12).as_strided((0, -1), (0, 0))
    assert tuple(tensor.shape) == (0, -1) and tensor.numel() == 0
    with pytest.raises(ValueError, match=r"as_strided size\[1\] is -1"):
        X.as_strided((0, -1), (0, 0))
    assert tuple(torch.empty(1, 0).expand(-2, 0).shape) == (-2, 0)
    assert tuple(torch.tensor(1.0).expand(0, -1).shape) == (0, -1)
    with pytest.raises(ValueError, match="expand size -2 at dim 0: sizes must be non-negative"):
        View((1, 0)).expand(-2, 0)
    with pytest.raises(ValueError, match="expand size -1 at dim 1: sizes must be non-negative"):
        S.expand(0, -1)


def test_missing_variadic_arguments_are_type_errors_like_torch():
    for op in ("permute", "expand", "view"):
        with pytest.raises(TypeError):
            getattr(torch.zeros(()), op)()
        with pytest.raises(TypeError, match=f"{op}\\(\\) missing"):
            getattr(S, op)()


@pytest.mark.parametrize(
    "key",
    [[0, 1], True, False, torch.tensor([0]), 1.0, "a", (0, [1])],
    ids=repr,
)
def test_advanced_indexing_is_rejected(key):
    with pytest.raises(TypeError, match="copies"):
        X[key]


def test_index_types():
    with pytest.raises(TypeError, match="slice start must be an int, not float"):
        X[1.0:]
    with pytest.raises(TypeError, match="dim0 must be an int, not bool"):
        X.transpose(True, 0)
    with pytest.raises(TypeError, match=r"sizes\[1\] must be an int, not str"):
        X.expand(3, "4")


# -- construction, validation, value semantics ------------------------------------------------------


def test_defaults_are_contiguous_and_minimal():
    assert View((2, 3, 4)) == View((2, 3, 4), (12, 4, 1), 0, 24)
    assert View(()).numel == 1 and View(()).storage_size == 1
    assert View((0, 3)).stride == (3, 1) and View((0, 3)).storage_size == 0
    assert View((3, 0, 2)).stride == tuple(torch.empty(3, 0, 2).stride())
    assert View((2,), (5,), 3).storage_size == 9
    assert View((0,), offset=7).storage_size == 7


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"shape": (2, True)}, TypeError, r"shape\[1\] must be an int, not bool"),
        ({"shape": 3}, TypeError, "shape must be a sequence of ints, not int"),
        ({"shape": "23"}, TypeError, "shape must be a sequence of ints"),
        ({"shape": (2.0,)}, TypeError, r"shape\[0\] must be an int, not float"),
        ({"shape": (2,), "stride": (False,)}, TypeError, r"stride\[0\] must be an int, not bool"),
        ({"shape": (2,), "offset": 1.5}, TypeError, "offset must be an int"),
        ({"shape": (2,), "storage_size": "9"}, TypeError, "storage_size must be an int"),
        ({"shape": (2, -1)}, ValueError, r"shape\[1\] is -1"),
        ({"shape": (2,), "stride": (-1,)}, ValueError, r"stride\[0\] is -1.*non-negative"),
        ({"shape": (2, 3), "stride": (1,)}, ValueError, "stride has 1 entries but shape has 2 dims"),
        ({"shape": (2,), "offset": -1}, ValueError, "offset is -1"),
        ({"shape": (2,), "storage_size": -1}, ValueError, "storage_size is -1"),
        ({"shape": (3, 4), "storage_size": 11}, ValueError, "a stride pointing outside storage"),
        ({"shape": (2,), "stride": (5,), "storage_size": 5}, ValueError, "reach storage position 5"),
        ({"shape": (), "offset": 3, "storage_size": 3}, ValueError, "pointing outside storage"),
    ],
)
def test_constructor_validation(kwargs, error, match):
    with pytest.raises(error, match=match):
        View(**kwargs)


def test_empty_views_may_point_anywhere():
    # torch checks storage bounds only when there are elements.
    assert View((0, 4), (4, 1), offset=100, storage_size=12).offset == 100
    assert X[5:].offset == 12 == tensor_like(X)[5:].storage_offset()


def test_value_semantics():
    a = View((2, 3)).t()
    b = View((3, 2), (1, 3), 0, 6)
    assert a == b and hash(a) == hash(b)
    assert a != View((3, 2), (1, 3), 0, 7)
    assert len({a, b, View((3, 2))}) == 2
    assert (a == (3, 2)) is False
    with pytest.raises(AttributeError):
        a.shape = (1,)
    with pytest.raises(AttributeError):
        a._shape = (1,)
    with pytest.raises(AttributeError):
        del a._offset


def test_repr_is_deterministic_and_round_trips():
    assert repr(View((3, 4))) == "View(shape=(3, 4), stride=(4, 1), offset=0)"
    assert repr(View((4,))[1:3]) == "View(shape=(2,), stride=(1,), offset=1, storage_size=4)"
    assert repr(View(())) == "View(shape=(), stride=(), offset=0)"
    for view in (X.t(), X[1:, ::2], S, E, View((4,))[1:3], X[5:]):
        assert eval(repr(view)) == view


def test_to_dict_is_json():
    view = X[:, 1:].t()
    data = view.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data == {"shape": [3, 3], "stride": [1, 4], "offset": 1, "storage_size": 12}
    assert View(**data) == view


def test_of_reads_real_tensors():
    base = torch.arange(24, dtype=torch.float32)
    y = base.view(2, 3, 4)[:, 1:, ::2].transpose(0, 2)
    assert View.of(y) == View((2, 2, 2), (2, 4, 12), 4, 24)
    assert View.of(torch.tensor(3.0)) == View(())
    assert View.of(torch.zeros(2, 3, dtype=torch.uint8).t()).stride == (1, 3)
    assert View.of(torch.zeros(4).expand(3, 4)).has_overlap()


@pytest.mark.parametrize("value", [[1, 2], 3, None, (2, 3)], ids=repr)
def test_of_rejects_non_tensors(value):
    with pytest.raises(TypeError, match="tensor must be a torch.Tensor"):
        View.of(value)


def test_of_rejects_sparse_tensors():
    with pytest.raises(ValueError, match="strided"):
        View.of(torch.eye(2).to_sparse())


def test_module_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, tensorlens.layout, tensorlens.broadcast; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- queries ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "view",
    [X, X.t(), X[1:, ::2], S, E, CUBE.permute(2, 0, 1), View((3, 1)).expand(2, 3, 4)],
    ids=repr,
)
def test_index_to_storage_matches_torch(view):
    tensor = tensor_like(view)
    for idx in itertools.product(*(range(-n, n) for n in view.shape)):
        assert view.index_to_storage(idx) == tensor[idx].item()


def test_index_to_storage_errors():
    with pytest.raises(ViewIndexError, match="index 4 is out of bounds for dim 1 with size 4"):
        X.index_to_storage((0, 4))
    with pytest.raises(IndexError, match="index -4 is out of bounds for dim 0 with size 3"):
        X.index_to_storage([-4, 0])
    with pytest.raises(ViewIndexError, match="idx has 1 indices but the view has 2 dims"):
        X.index_to_storage((0,))
    with pytest.raises(TypeError, match=r"idx\[1\] must be an int"):
        X.index_to_storage((0, None))
    assert S.index_to_storage(()) == 0


@pytest.mark.parametrize(
    "view, contiguous",
    [
        (View((3, 4)), True),
        (View((3, 4)).t(), False),
        (View((3, 1), (1, 7)), True),
        (View((1, 1), (9, 9)), True),
        (View((0, 3), (5, 5)), True),
        (View((2, 0), (0, 0)), True),
        (View(()), True),
        (View((4,), (2,)), False),
        (View((3,)).expand(2, 3), False),
        (View((1, 3)).expand(1, 3), True),
    ],
    ids=repr,
)
def test_is_contiguous_follows_torch(view, contiguous):
    assert view.is_contiguous() is contiguous
    assert tensor_like(view).is_contiguous() is contiguous


@pytest.mark.parametrize(
    "view, overlap",
    [
        (View((3, 4)), False),
        (View((3, 4)).t(), False),
        (View((3,)).expand(2, 3), True),
        (View((1,)).expand(1), False),
        (View((0, 3), (0, 0)), False),
        (View((8,)).unfold(0, 3, 2), True),
        (View((8,)).unfold(0, 2, 2), False),
        (View((3, 2), (2, 3)), False),  # positions 0,3,2,5,4,7: distinct, strides interleave
        (View((3, 3), (2, 3)), False),  # 0,3,6 / 2,5,8 / 4,7,10
        (View((4, 3), (2, 3)), True),  # [3, 0] and [0, 2] both land on 6
        (View((2, 2), (1, 1)), True),
        (View((2, 2, 2), (1, 2, 4)), False),
        (View((2, 2, 2), (3, 5, 7)), False),
        (View((3, 2, 2), (2, 3, 5)), True),
        (View(()), False),
    ],
    ids=repr,
)
def test_has_overlap_is_exact(view, overlap):
    assert view.has_overlap() is overlap
    assert brute_force_overlap(view) is overlap


def test_has_overlap_is_cheap_for_large_views():
    big = View((1000, 1000)).t()
    assert big.has_overlap() is False
    assert View((1000, 1000), (1, 1000)).has_overlap() is False
    assert View((1000, 1000), (1, 999), storage_size=10**6).has_overlap() is True
    # Interleaved strides far apart: exact without a bit per storage position.
    assert View((3, 2), (10**9, 10**9 + 1)).has_overlap() is False
    assert View((3, 2), (10**9, 2 * 10**9)).has_overlap() is True
    assert View((40, 30), (2 * 10**9, 3 * 10**9)).has_overlap() is True


def test_storage_indices_of_scalar_and_empty():
    assert View((), offset=5, storage_size=9).storage_indices() == [5]
    assert View((2, 0, 3)).storage_indices() == []


def test_docstring_examples():
    assert doctest.testmod(tensorlens.layout).failed == 0


# -- property tests: random views, random chains of operations -------------------------------------------

SIZES = st.integers(0, 4)
OPS = [
    "transpose", "permute", "t", "unsqueeze", "squeeze", "expand", "narrow", "select",
    "getitem", "view", "diagonal", "unfold", "as_strided",
]


@st.composite
def start_views(draw):
    """A contiguous view, a permuted-contiguous one, or an arbitrary strided one with slack."""
    shape = tuple(draw(st.lists(SIZES, max_size=5)))
    kind = draw(st.sampled_from(["contiguous", "permuted", "strided"]))
    if kind == "contiguous":
        return View(shape)
    if kind == "permuted":
        order = draw(st.permutations(range(len(shape))))
        base = View(tuple(shape[d] for d in order))
        inverse = sorted(range(len(shape)), key=order.__getitem__)
        return base.permute(*inverse) if shape else base
    stride = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3, 4, 5, 6, 12]), min_size=len(shape), max_size=len(shape))))
    offset = draw(st.integers(0, 3))
    minimal = View(shape, stride, offset).storage_size
    return View(shape, stride, offset, minimal + draw(st.integers(0, 3)))


def dim_arg(draw, ndim, wild):
    """A dim for a view with ``ndim`` dims: valid, or (when ``wild``) possibly out of range."""
    span = max(ndim, 1)
    return draw(st.integers(-span - 2, span + 1) if wild else st.integers(-span, span - 1))


def dim_size(view, dim):
    """Size of ``dim`` if it is a valid dim, else a plausible number."""
    if -view.ndim <= dim < view.ndim:
        return view.shape[dim]
    return 2


def regroup(draw, shape):
    """A new shape that often keeps a view possible: split dims into factors, merge runs of
    neighbours, sprinkle 1s, maybe replace one size by -1."""
    groups = []
    for n in shape:
        if groups and draw(st.booleans()):
            groups[-1] *= n
        else:
            groups.append(n)
    new = []
    for n in groups:
        factors = [f for f in range(2, n) if n % f == 0]
        if factors and draw(st.booleans()):
            f = draw(st.sampled_from(factors))
            new += [f, n // f]
        else:
            new.append(n)
        if draw(st.integers(0, 4)) == 0:
            new.append(1)
    if new and draw(st.booleans()):
        new[draw(st.integers(0, len(new) - 1))] = -1
    return tuple(new)


def draw_index_item(draw, n, wild):
    kind = draw(st.sampled_from(["int", "slice", "slice", "none", "ellipsis"]))
    if kind == "int":
        return draw(st.integers(-n - 1, n) if wild or n == 0 else st.integers(-n, n - 1))
    if kind == "none":
        return None
    if kind == "ellipsis":
        return Ellipsis
    bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
    step = st.one_of(st.none(), st.integers(1, 3))
    if wild:
        step = st.one_of(step, st.sampled_from([0, -1]))
    return slice(draw(bound), draw(bound), draw(step))


def sizes_arg(draw, sizes):
    """Variadic sizes as torch takes them: ``f(2, 3)`` or ``f((2, 3))``."""
    return (sizes,) if draw(st.booleans()) or not sizes else sizes


@st.composite
def operations(draw, view):
    """One operation with arguments for ``view``: valid ones mostly, and a quarter of the
    time "wild" ones drawn from wider ranges, which torch often rejects."""
    op = draw(st.sampled_from(OPS))
    ndim = view.ndim
    wild = draw(st.integers(0, 3)) == 0
    if op == "transpose":
        return op, (dim_arg(draw, ndim, wild), dim_arg(draw, ndim, wild))
    if op == "permute":
        if wild:
            dims = draw(st.lists(st.integers(-ndim - 1, ndim), max_size=ndim + 1))
        else:
            dims = [d - ndim if draw(st.booleans()) else d for d in draw(st.permutations(range(ndim)))]
        return op, sizes_arg(draw, tuple(dims))
    if op == "t":
        return op, ()
    if op == "unsqueeze":
        low, high = (-ndim - 3, ndim + 2) if wild else (-ndim - 1, ndim)
        return op, (draw(st.integers(low, high)),)
    if op == "squeeze":
        form = draw(st.sampled_from(["all", "int", "tuple"]))
        if form == "all":
            return op, ()
        if form == "int":
            return op, (dim_arg(draw, ndim, wild),)
        return op, (tuple(dim_arg(draw, ndim, wild) for _ in range(draw(st.integers(0, 3)))),)
    if op == "expand":
        sizes = []
        for n in view.shape:
            choices = [-1, n, n] + ([draw(SIZES), draw(SIZES)] if n == 1 else [])
            sizes.append(draw(st.sampled_from(choices + [draw(SIZES)] if wild else choices)))
        lead = [draw(st.sampled_from([1, 2, 3, 0] + ([-1, -2] if wild else []))) for _ in range(draw(st.integers(0, 2)))]
        sizes = lead + sizes
        if sizes and wild and draw(st.booleans()):
            sizes = sizes[1:]
        return op, sizes_arg(draw, tuple(sizes))
    if op == "narrow":
        dim = dim_arg(draw, ndim, wild)
        n = dim_size(view, dim)
        if wild:
            return op, (dim, draw(st.integers(-n - 1, n + 1)), draw(st.integers(-1, n + 1)))
        start = draw(st.integers(-n, n))
        return op, (dim, start, draw(st.integers(0, n - start % max(n, 1) if start else n)))
    if op == "select":
        dim = dim_arg(draw, ndim, wild)
        n = dim_size(view, dim)
        return op, (dim, draw(st.integers(-n - 1, n) if wild else st.integers(-n, max(n - 1, -n))))
    if op == "getitem":
        items = []
        for d in range(draw(st.integers(0, ndim + 1 if wild else ndim))):
            items.append(draw_index_item(draw, view.shape[d] if d < ndim else 1, wild))
        key = tuple(items)
        if len(key) == 1 and draw(st.booleans()):
            key = key[0]
        return op, (key,)
    if op == "view":
        if wild:
            shape = tuple(draw(st.lists(st.integers(-2, 6), max_size=4)))
        else:
            shape = regroup(draw, view.shape)
        return op, sizes_arg(draw, shape)
    if op == "diagonal":
        if wild or ndim < 2:
            return op, (draw(st.integers(-4, 4)), dim_arg(draw, ndim, True), dim_arg(draw, ndim, True))
        d1, d2 = draw(st.permutations(range(ndim)))[:2]
        return op, (draw(st.integers(-3, 3)), d1 - ndim * draw(st.integers(0, 1)), d2)
    if op == "unfold":
        dim = dim_arg(draw, ndim, wild)
        n = dim_size(view, dim) if ndim else 1
        if wild:
            return op, (dim, draw(st.integers(-1, n + 1)), draw(st.integers(0, 3)))
        return op, (dim, draw(st.integers(0, n)), draw(st.integers(1, 3)))
    # as_strided: anywhere in the storage, sometimes past its end or with a negative entry.
    k = draw(st.integers(0, 3))
    low = -1 if wild else 0
    size = tuple(draw(st.lists(st.integers(low, 3), min_size=k, max_size=k)))
    stride = tuple(draw(st.lists(st.integers(low, 4), min_size=k, max_size=k)))
    if wild and draw(st.booleans()):
        stride = stride + (1,)
    offset = draw(st.one_of(st.none(), st.integers(low, view.storage_size + (1 if wild else 0))))
    return op, (size, stride) if offset is None else (size, stride, offset)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_chains_agree_with_torch(data):
    view = data.draw(start_views(), label="start")
    assert_same_view(view, tensor_like(view))
    for _ in range(data.draw(st.integers(1, 5), label="length")):
        op, args = data.draw(operations(view), label="op")
        view = assert_op_agrees(view, op, args)


@st.composite
def strided_views(draw):
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=ndim, max_size=ndim)))
    stride = tuple(draw(st.lists(st.integers(0, 13), min_size=ndim, max_size=ndim)))
    return View(shape, stride, draw(st.integers(0, 2)))


@settings(max_examples=300)
@given(strided_views())
def test_random_views_agree_with_torch_and_brute_force(view):
    assert_same_view(view, tensor_like(view))
    assert view.numel == math.prod(view.shape)


@st.composite
def spread_views(draw):
    """Views whose strides are small numbers times a large scale, plus a little: they
    interleave, so ``has_overlap`` needs its exact path, over a large span."""
    ndim = draw(st.integers(1, 4))
    scale = draw(st.sampled_from([1, 7, 1000, 10**6]))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=ndim, max_size=ndim)))
    stride = tuple(
        draw(st.integers(0, 6)) * scale + draw(st.integers(0, 2)) for _ in range(ndim)
    )
    return View(shape, stride)


@settings(max_examples=300)
@given(spread_views())
def test_has_overlap_matches_brute_force_on_spread_views(view):
    assert view.has_overlap() == brute_force_overlap(view)
