"""Tests for tensorlens.measure: byte counts agree with torch, sweeps are well-formed."""

import pytest
import torch

from tensorlens.measure import (Sweep, allocated_bytes, cost_sweep, shares_storage, storage_bytes,
                                time_call)

OPS = {
    "expand": lambda x, n: x.expand(n, -1),
    "repeat": lambda x, n: x.repeat(n, 1),
    "expand+contiguous": lambda x, n: x.expand(n, -1).contiguous(),
}


@pytest.mark.parametrize("dtype, size", [(torch.float32, 4), (torch.float64, 8), (torch.int8, 1),
                                         (torch.bool, 1)])
def test_storage_bytes_is_element_size_times_storage_length(dtype, size):
    assert storage_bytes(torch.zeros(5, dtype=dtype)) == 5 * size
    assert storage_bytes(torch.zeros(0, dtype=dtype)) == 0


def test_storage_bytes_counts_the_whole_storage_not_the_view():
    x = torch.zeros(10)
    assert storage_bytes(x[2:4]) == 40          # a slice still sits on all 10 floats
    assert storage_bytes(x[:1].expand(1000)) == 40
    assert storage_bytes(x[2:4].clone()) == 8   # a clone owns only what it shows


def test_shares_storage_tells_views_from_copies():
    x = torch.arange(6.0).reshape(2, 3)
    for view in (x.t(), x[1:], x[:1].expand(4, 3), x.view(6), torch.broadcast_to(x, (2, 2, 3))):
        assert shares_storage(view, x) and shares_storage(x, view)
    for copy in (x.clone(), x.repeat(2, 1), x.t().contiguous(), x.tile((2,)), x + 0):
        assert not shares_storage(copy, x)


def test_empty_tensors_share_storage_only_when_one_is_a_view_of_the_other():
    empty = torch.empty(0)
    assert empty.untyped_storage().data_ptr() == torch.empty(0).untyped_storage().data_ptr() == 0
    assert not shares_storage(empty, torch.empty(0))
    assert not shares_storage(empty, empty.clone())
    assert not shares_storage(empty, torch.zeros(3))
    assert shares_storage(empty, empty.view(0, 5)) and shares_storage(empty.view(0, 5), empty)
    x = torch.arange(4.0)
    assert shares_storage(x[:0], x) and not shares_storage(x[:0].clone(), x)


def test_allocated_bytes_counts_copies_and_not_views(capfd):
    x = torch.zeros(4, 1)
    assert allocated_bytes(lambda: x.expand(4, 5)) == {}
    assert allocated_bytes(lambda: x.expand(4, 5).contiguous())["aten::contiguous"] == 4 * 5 * 4
    # batch dims (32, 1) against (8,): matmul copies both operands to the full (32, 8) batch
    left, right = torch.zeros(32, 1, 16, 8), torch.zeros(8, 8, 2)
    counts = allocated_bytes(lambda: left @ right)
    assert counts["aten::clone"] == 32 * 8 * (16 * 8 + 8 * 2) * 4
    assert counts["aten::bmm"] == 32 * 8 * 16 * 2 * 4
    assert "profiler" not in capfd.readouterr().err   # the profiler's own lines are not shown


def test_argument_errors_name_the_argument():
    with pytest.raises(TypeError, match="t must be"):
        storage_bytes([1, 2])
    with pytest.raises(TypeError, match="b must be"):
        shares_storage(torch.zeros(1), 3)
    with pytest.raises(TypeError, match="fn must be callable"):
        time_call(3)
    with pytest.raises(TypeError, match="fn must be callable"):
        allocated_bytes("x + 1")
    with pytest.raises(ValueError, match="min_run_time"):
        time_call(lambda: None, min_run_time=0)
    with pytest.raises(TypeError, match="min_run_time"):
        time_call(lambda: None, min_run_time="fast")


def test_time_call_returns_a_positive_median():
    t = time_call(lambda: torch.zeros(4) + 1, min_run_time=0.01)
    assert isinstance(t, float) and 0 < t < 1


def test_cost_sweep_bytes_match_direct_measurement():
    row = torch.zeros(1, 8)
    sizes = [1, 3, 16]
    sweep = cost_sweep(OPS, row, sizes)
    assert sweep.sizes == (1, 3, 16) and sweep.seconds is None
    for label, op in OPS.items():
        assert sweep.bytes[label] == tuple(storage_bytes(op(row, n)) for n in sizes)
    assert sweep.bytes["expand"] == (32, 32, 32)
    assert sweep.bytes["repeat"] == (32, 96, 512)
    assert sweep.shared["expand"] == (True, True, True)
    assert sweep.shared["repeat"] == (False, False, False)
    # contiguous() on a [1, 8] -> [1, 8] expand has nothing to copy: it returns the same tensor
    assert sweep.shared["expand+contiguous"] == (True, False, False)


def test_cost_sweep_timing_and_tables():
    sweep = cost_sweep(OPS, torch.zeros(1, 4), [2, 4], time=True, min_run_time=0.01)
    assert set(sweep.seconds) == set(OPS)
    assert all(len(v) == 2 and all(s > 0 for s in v) for v in sweep.seconds.values())
    text = sweep.table("bytes")
    assert text.splitlines()[2].split() == ["expand", "16*", "16*"]
    assert text.splitlines()[3].split() == ["repeat", "32", "64"]
    assert "microseconds" in sweep.table("seconds")


@pytest.mark.parametrize("bad_ops", [{}, [], {"x": 3}])
def test_cost_sweep_rejects_bad_ops(bad_ops):
    with pytest.raises(TypeError, match="ops"):
        cost_sweep(bad_ops, torch.zeros(1, 2), [1])


@pytest.mark.parametrize("bad_sizes", [[], [0], [2, -1], [1.5], [True]])
def test_cost_sweep_rejects_bad_sizes(bad_sizes):
    with pytest.raises(ValueError, match="sizes"):
        cost_sweep(OPS, torch.zeros(1, 2), bad_sizes)


def test_cost_sweep_rejects_non_tensor_results_and_sources():
    with pytest.raises(TypeError, match="source"):
        cost_sweep(OPS, [1.0], [1])
    with pytest.raises(TypeError, match="must return a tensor"):
        cost_sweep({"list": lambda x, n: [x] * n}, torch.zeros(1), [2])


def test_an_untimed_sweep_has_no_seconds_table():
    with pytest.raises(ValueError, match="time=True"):
        cost_sweep(OPS, torch.zeros(1, 4), [1]).table("seconds")
