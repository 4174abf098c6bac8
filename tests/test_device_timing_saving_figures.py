"""tensorlens.figures.devices, .timing and .saving: the records are torch's own, the figures
build, and bad arguments are named."""

import dataclasses
import pathlib

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from torch.utils import benchmark  # noqa: E402

from tensorlens.figures.devices import ToOutcome, to_figure, trace_to  # noqa: E402
from tensorlens.figures.saving import (LoadOutcome, allowlist_figure,  # noqa: E402
                                       memory_steps_figure, state_dict_figure,
                                       state_dict_rows, weights_only_outcomes)
from tensorlens.figures.timing import timing_figure  # noqa: E402


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_trace_to_records_tensor_and_module_moves():
    x = torch.ones(3)
    moved = trace_to("y = x.to('meta')", x, "meta", result="y")
    assert (moved.before, moved.after, moved.original_after) == ("cpu", "meta", "cpu")
    assert not moved.same_object and moved.result == "y"
    same = trace_to("x.to('cpu')", x, "cpu")
    assert same.same_object and same.after == "cpu"
    model = torch.nn.Linear(3, 2)
    dtype = trace_to("model.to(torch.float64)", model, torch.float64)
    assert dtype.same_object and dtype.same_parameters and dtype.after == "cpu"
    meta = trace_to("model.to('meta')", model, "meta")
    assert meta.same_object and meta.after == "meta"
    assert not meta.same_parameters      # meta tensors get new Parameter objects
    fig = to_figure([moved, same, dtype, meta])
    texts = _texts(fig)
    assert "returns x itself: no copy" in texts
    assert "converted in place, same Parameter; returns the module" in texts
    assert "moved in place, new Parameter objects; returns the module" in texts
    plt.close(fig)


def test_trace_to_and_to_figure_name_bad_arguments():
    with pytest.raises(TypeError, match="obj"):
        trace_to("[1].to('cpu')", [1], "cpu")
    with pytest.raises(ValueError, match="obj"):
        trace_to("relu.to('cpu')", torch.nn.ReLU(), "cpu")
    with pytest.raises(ValueError, match="code"):
        trace_to("", torch.ones(1), "cpu")
    with pytest.raises(ValueError, match="outcomes"):
        to_figure([])
    with pytest.raises(TypeError, match="outcomes"):
        to_figure(["x.to('cpu')"])
    two = [ToOutcome("a", "tensor", "x", "y", "cpu", "meta", "cpu", False, True),
           ToOutcome("b", "tensor", "x", "y", "cpu", "cuda:0", "cpu", False, True)]
    with pytest.raises(ValueError, match="outcomes"):
        to_figure(two)


def test_timing_figure_draws_readings_and_blocks():
    m = benchmark.Timer("1 + 1").blocked_autorange(min_run_time=0.01)
    fig = timing_figure([2e-3, 5e-5, 4e-5], m)
    assert any(t.startswith("first call: 2,000") for t in _texts(fig))
    labels = fig.axes[1].get_legend_handles_labels()[1]
    assert any(label.startswith("median") for label in labels)
    assert any(label.startswith("IQR") for label in labels)
    plt.close(fig)
    with pytest.raises(ValueError, match="readings"):
        timing_figure([], m)
    with pytest.raises(ValueError, match="readings"):
        timing_figure([0.0], m)
    with pytest.raises(TypeError, match="measurement"):
        timing_figure([1e-3], [1e-3])
    with pytest.raises(ValueError, match="unit"):
        timing_figure([1e-3], m, unit="s")


class _Cached(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)
        self.register_buffer("scale", torch.ones(2))
        self.register_buffer("table", torch.zeros(2), persistent=False)


def test_state_dict_rows_mark_parameters_buffers_and_left_out():
    rows = state_dict_rows(_Cached())
    kinds = {r.key: r.kind for r in rows if r.kind != "module"}
    assert kinds == {"scale": "buffer", "table": "not saved", "lin.weight": "parameter",
                     "lin.bias": "parameter"}
    saved = {k for k, kind in kinds.items() if kind != "not saved"}
    assert saved == set(_Cached().state_dict())
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
    rows = state_dict_rows(net)
    assert [r.summary for r in rows if r.label == "1 ReLU"] == ["no state"]
    fig = state_dict_figure(net)
    assert '"0.weight"' in _texts(fig)
    plt.close(fig)
    with pytest.raises(TypeError, match="module"):
        state_dict_rows({"w": torch.ones(1)})


@dataclasses.dataclass
class _Config:
    lr: float


class _Payload:
    def __reduce__(self):
        return (pathlib.Path.write_text, (pathlib.Path("never-written.txt"), "x"))


def test_weights_only_outcomes_are_real_loads_and_run_no_payload(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    outcomes = weights_only_outcomes({"tensor": torch.ones(2), "float": 0.5,
                                      "np": np.float64(0.5), "config": _Config(0.1),
                                      "payload": _Payload()})
    loaded = {o.label: o.loaded for o in outcomes}
    assert loaded == {"tensor": True, "float": True, "np": False, "config": False,
                      "payload": False}
    assert [o.detail for o in outcomes if o.label == "config"] == [f"{__name__}._Config"]
    assert not (tmp_path / "never-written.txt").exists()
    fig = allowlist_figure(outcomes)
    assert "let through (2): loaded as" in _texts(fig)
    assert "refused (3): the global named" in _texts(fig)
    plt.close(fig)
    with pytest.raises(ValueError, match="values"):
        weights_only_outcomes({})
    with pytest.raises(ValueError, match="outcomes"):
        allowlist_figure([])
    with pytest.raises(TypeError, match="outcomes"):
        allowlist_figure([("tensor", True)])
    assert LoadOutcome("a", True, "Tensor").loaded


def test_memory_steps_figure_builds_and_checks_steps():
    fig = memory_steps_figure([("mmap load", 0.5, 0.0), ("touched", 0.5, 64.0),
                               ("plain load", 64.0, 0.0)], size_mb=64)
    assert len(fig.axes[0].patches) == 6
    plt.close(fig)
    with pytest.raises(ValueError, match="steps"):
        memory_steps_figure([])
    with pytest.raises(ValueError, match="steps"):
        memory_steps_figure([("a", "1 MB", 0)])
    with pytest.raises(ValueError, match="size_mb"):
        memory_steps_figure([("a", 1, 0)], size_mb=0)
