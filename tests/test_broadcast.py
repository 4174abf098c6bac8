"""Tests for tensorlens.broadcast: torch.broadcast_shapes is the oracle."""

import doctest
import json

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlens.broadcast
from tensorlens.broadcast import BroadcastError, BroadcastPlan, explain_broadcast


def torch_broadcast(*shapes):
    """torch's answer: the result shape, or None when it refuses."""
    try:
        return tuple(torch.broadcast_shapes(*shapes))
    except RuntimeError:
        return None


def assert_agrees_with_torch(*shapes):
    expected = torch_broadcast(*shapes)
    if expected is None:
        with pytest.raises(BroadcastError):
            explain_broadcast(*shapes)
        return None
    plan = explain_broadcast(*shapes)
    assert plan.result == expected
    return plan


def assert_plan_consistent(plan):
    """The plan's parts describe the rule: pad on the left, then stretch only 1s."""
    ndim = len(plan.result)
    for shape, padded, prepended, stretched in zip(
        plan.shapes, plan.padded, plan.prepended, plan.stretched
    ):
        assert len(padded) == ndim
        assert padded[ndim - len(shape) :] == shape
        assert prepended == tuple(range(ndim - len(shape)))
        assert all(padded[d] == 1 for d in prepended)
        assert not set(prepended) & set(stretched)
        for d in range(ndim):
            if d in stretched:
                assert padded[d] == 1 and plan.result[d] != 1
            elif d not in prepended:
                assert padded[d] == plan.result[d]


@pytest.mark.parametrize(
    "shapes",
    [
        (),
        ((),),
        ((), ()),
        ((3,),),
        ((3, 1), (4,)),
        ((4,), (3, 1)),
        ((2, 1, 3), (4, 1), (1,)),
        ((5, 1, 4, 1), (3, 1, 1)),
        ((0,), (1,)),
        ((1,), (0,)),
        ((0, 1), (1, 3)),
        ((0,), ()),
        ((1, 1), ()),
        ((2, 3), (3, 3)),
        ((3, 4), (5,)),
        ((0,), (2,)),
        ((2,), (0,)),
        ((2, 3), (3, 2)),
        ((1, 2), (3, 1), (4, 1)),
    ],
)
def test_table_against_torch(shapes):
    plan = assert_agrees_with_torch(*shapes)
    if plan is not None:
        assert_plan_consistent(plan)


def test_prepended_and_stretched_are_recorded_per_input():
    plan = explain_broadcast((3, 1), (4,))
    assert plan.padded == ((3, 1), (1, 4))
    assert plan.prepended == ((), (0,))
    assert plan.stretched == ((1,), ())


def test_size_one_stretches_to_zero_like_torch():
    plan = explain_broadcast((0, 3), (1, 1))
    assert plan.result == (0, 3) == tuple(torch.broadcast_shapes((0, 3), (1, 1)))
    assert plan.stretched == ((), (0, 1))


def test_no_shapes_and_scalars_give_rank_0():
    assert explain_broadcast().result == ()
    assert explain_broadcast((), ()).result == ()
    assert explain_broadcast((), (2,)).prepended == ((0,), ())


def test_error_names_dims_and_sizes():
    with pytest.raises(BroadcastError) as info:
        explain_broadcast((3, 4), (5,))
    assert str(info.value) == (
        "shapes (3, 4) and (5,) cannot broadcast: at dim 1 (dim -1 from the right) "
        "the sizes are 4 and 5; sizes must be equal or one of them 1"
    )
    assert (info.value.dim, info.value.dim_from_right, info.value.sizes) == (1, -1, (4, 5))
    assert info.value.shapes == ((3, 4), (5,))
    assert isinstance(info.value, ValueError)


def test_error_reports_the_rightmost_conflict_between_the_right_inputs():
    with pytest.raises(BroadcastError) as info:
        explain_broadcast((2, 1, 3), (1, 5, 1), (7, 1, 4))
    assert (info.value.dim, info.value.sizes, info.value.shapes) == (2, (3, 4), ((2, 1, 3), (7, 1, 4)))
    assert "dim 2 (dim -1 from the right)" in str(info.value)


def test_zero_against_n_conflicts():
    with pytest.raises(BroadcastError, match="sizes are 0 and 2"):
        explain_broadcast((0,), (2,))


def test_accepts_lists_sizes_and_objects_with_shape():
    x = torch.zeros(3, 1)
    plan = explain_broadcast(x, [4], torch.Size([1, 1, 4]))
    assert plan.shapes == ((3, 1), (4,), (1, 1, 4))
    assert plan.result == (1, 3, 4)
    assert all(type(n) is int for n in plan.result)


@pytest.mark.parametrize(
    "bad, match",
    [
        (3, r"shapes\[1\] must be a shape"),
        ("34", r"shapes\[1\] must be a shape"),
        (None, r"shapes\[1\] must be a shape"),
        ((2, 1.0), r"shapes\[1\]\[1\] must be an int, not float"),
        ((True,), r"shapes\[1\]\[0\] must be an int, not bool"),
    ],
)
def test_type_errors_name_the_argument(bad, match):
    with pytest.raises(TypeError, match=match):
        explain_broadcast((2,), bad)


def test_negative_sizes_are_rejected():
    with pytest.raises(ValueError, match=r"shapes\[0\]\[1\] is -1"):
        explain_broadcast((2, -1), (2, 1))


def test_plan_is_frozen_and_json_able():
    plan = explain_broadcast((2, 1), (3,))
    assert isinstance(plan, BroadcastPlan)
    with pytest.raises(AttributeError):
        plan.result = (1,)
    assert json.loads(json.dumps(plan.__dict__))["result"] == [2, 3]


def test_str_table():
    assert str(explain_broadcast((2, 1, 3), (4, 1), (1,))) == "\n".join(
        [
            "            dim 0   dim 1  dim 2",
            "(2, 1, 3)       2    1->4      3",
            "(4, 1)     (1)->2       4   1->3",
            "(1,)       (1)->2  (1)->4   1->3",
            "result          2       4      3",
        ]
    )
    assert str(explain_broadcast()) == "result"
    assert str(explain_broadcast((), ())) == "()\n()\nresult"


def test_docstring_examples():
    assert doctest.testmod(tensorlens.broadcast).failed == 0


shapes_strategy = st.lists(st.integers(0, 4), max_size=5).map(tuple)


@st.composite
def related_shapes(draw):
    """Shapes that often broadcast: derived from one result by dropping leading dims and
    replacing sizes by 1 (or by a clash now and then)."""
    base = draw(st.lists(st.integers(0, 4), max_size=5))
    shapes = []
    for _ in range(draw(st.integers(0, 4))):
        keep = draw(st.integers(0, len(base)))
        shape = []
        for n in base[len(base) - keep :]:
            shape.append(draw(st.sampled_from([n, n, 1, draw(st.integers(0, 4))])))
        shapes.append(tuple(shape))
    return shapes


@settings(max_examples=300)
@given(st.one_of(related_shapes(), st.lists(shapes_strategy, max_size=4)))
def test_random_shapes_against_torch(shapes):
    plan = assert_agrees_with_torch(*shapes)
    if plan is not None:
        assert_plan_consistent(plan)
        header = 1 if plan.result else 0
        assert len(str(plan).splitlines()) == header + len(shapes) + 1
