"""tensorlens.figures.flows: the figures of chapters 8-9 build, and their helpers read torch."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402

from tensorlens.figures.flows import (allocator_figure, compile_pipeline_figure,  # noqa: E402
                                      dtype_flow_figure, graph_ops, trace_figure, trace_rows)


def test_dtype_flow_figure_builds_with_a_legend_per_dtype():
    nodes = {"x": (0, 0, "x", torch.float32), "mm": (2, 0, "a @ b", torch.bfloat16),
             "w": (2, 1, "weight", None)}
    fig = dtype_flow_figure(nodes, [("x", "mm", "cast"), ("w", "mm", "copy", True)], "t")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "float32" in texts and "bfloat16" in texts and "a @ b\nbfloat16" in texts
    plt.close(fig)


def test_allocator_figure_draws_two_bars_per_step():
    fig = allocator_figure([("a", 2 ** 20, 2 ** 21), ("b", 0, 2 ** 21), ("c", 0, 0)])
    assert len(fig.axes[0].patches) == 6
    # each step's values are written above it, so an all-zero step still reads as one
    assert [t.get_text() for t in fig.axes[0].texts] == ["1 / 2", "0 / 2", "0 / 0"]
    plt.close(fig)


def test_graph_ops_and_pipeline_figure():
    captured = []

    def backend(gm, example_inputs):
        captured.append(graph_ops(gm))
        return gm.forward

    def f(x):
        y = x * 2
        if y.sum() > 0:
            return y + 1
        return y - 1

    torch.compile(f, backend=backend)(torch.ones(3))
    assert len(captured) == 2 and "mul" in captured[0][0]
    pieces = [("graph", captured[0]), ("python", "if y.sum() > 0"), ("graph", captured[1])]
    fig = compile_pipeline_figure(pieces)
    assert any("1 graph break" in t.get_text() for t in fig.axes[0].texts)
    plt.close(fig)


def test_trace_rows_nest_callees_below_callers():
    a = torch.randn(16, 16)
    with torch.profiler.profile() as prof:
        a @ a
    rows = trace_rows(prof.events(), names={"aten::matmul", "aten::mm"})
    depth = {name: d for name, _, _, d in rows}
    assert depth["aten::matmul"] == 0 and depth["aten::mm"] == 1
    assert min(start for _, start, _, _ in rows) == 0
    fig = trace_figure(rows)
    assert len(fig.axes[0].patches) == len(rows)
    plt.close(fig)
    assert trace_rows(prof.events(), names={"nothing"}) == []
