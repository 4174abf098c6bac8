"""Tests for tensorlens.figures: the pictures say what torch computes, and bad input is refused."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from tensorlens.figures.grids import (MAX_SIDE, broadcast_figure, expand_grad_figure, gather_figure,
                               paired_vs_grid_figure, scatter_figure)


def _panel_texts(ax):
    """Map (row, col) -> list of strings drawn in that cell of a panel."""
    cells = {}
    for t in ax.texts:
        x, y = t.get_position()
        cells.setdefault((int(y), int(x)), []).append(t.get_text())
    return cells


@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_gather_output_panel_matches_torch_and_names_sources(dim):
    x = torch.arange(12).reshape(3, 4) * 10
    index = torch.tensor([[2, 0], [1, 1], [0, 2]])
    fig = gather_figure(x, index, dim)
    try:
        assert len(fig.axes) == 3
        out = torch.gather(x, dim, index)
        cells = _panel_texts(fig.axes[2])
        for i in range(3):
            for j in range(2):
                k = int(index[i, j])
                src = (k, j) if dim % 2 == 0 else (i, k)
                # Independent reference: the documented rule, written out by hand.
                assert int(x[src]) == int(out[i, j])
                assert cells[(i, j)] == [str(int(out[i, j])), f"from [{src[0]}, {src[1]}]"]
    finally:
        plt.close(fig)


def test_gather_marks_an_input_cell_read_twice():
    x = torch.arange(6).reshape(2, 3)
    fig = gather_figure(x, torch.tensor([[1, 1], [0, 2]]), 1)
    try:
        cells = _panel_texts(fig.axes[0])
        assert cells[(0, 1)] == ["1", "read 2 times"]
        assert cells[(1, 0)] == ["3"]
    finally:
        plt.close(fig)


def test_scatter_output_panel_matches_torch_and_flags_collisions():
    src = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    index = torch.tensor([[0, 2, 2], [1, 0, 0]])
    fig = scatter_figure(src, index, 1, (2, 4))
    try:
        out = torch.zeros(2, 4).scatter(1, index, src)
        cells = _panel_texts(fig.axes[2])
        assert cells[(0, 0)] == ["1", "from src[0, 0]"]
        assert cells[(1, 1)] == ["4", "from src[1, 0]"]
        assert cells[(0, 2)][1] == "2 writers"
        assert cells[(1, 0)][1] == "2 writers"
        assert cells[(0, 3)] == ["0"] and cells[(1, 3)] == ["0"]
        for (i, j), texts in cells.items():
            assert texts[0] == f"{out[i, j].item():g}"
    finally:
        plt.close(fig)


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: gather_figure([[1, 2]], torch.tensor([[0]]), 1), TypeError, "input"),
        (lambda: gather_figure(torch.zeros(2, 2, 2), torch.zeros(2, 2, 2, dtype=torch.long), 1), ValueError, "input"),
        (lambda: gather_figure(torch.zeros(2, 2), torch.zeros(2, 2), 1), TypeError, "index"),
        (lambda: gather_figure(torch.zeros(2, 2), torch.zeros(2, 2, dtype=torch.long), 2), ValueError, "dim"),
        (lambda: gather_figure(torch.zeros(2, 2), torch.zeros(2, 2, dtype=torch.long), 1.0), TypeError, "dim"),
        (lambda: gather_figure(torch.zeros(2, 2), torch.tensor([[5, 0]]), 1), ValueError, "out of bounds"),
        (lambda: gather_figure(torch.zeros(2, MAX_SIDE + 1), torch.zeros(1, 1, dtype=torch.long), 1), ValueError, "input"),
        (lambda: scatter_figure(torch.ones(1, 2), torch.tensor([[0, 1]]), 1, (1, 0)), ValueError, "size"),
        (lambda: scatter_figure(torch.ones(1, 2), torch.tensor([[0, 3]]), 1, (1, 2)), ValueError, "index"),
    ],
)
def test_bad_arguments_are_refused_with_the_argument_named(call, exc, words):
    with pytest.raises(exc, match=words):
        call()


def _texts_and_faces(ax):
    texts = {}
    for t in ax.texts:
        x, y = t.get_position()
        texts[(int(y), int(x))] = t.get_text()
    faces = {(int(p.get_y()), int(p.get_x())): p.get_facecolor() for p in ax.patches}
    return texts, faces


@pytest.mark.parametrize("a, b, op", [
    (torch.tensor([[1], [2], [3]]), torch.tensor([10, 20, 30, 40]), "+"),
    (torch.tensor([0.5, 1.0, 2.0, 4.0]), torch.tensor([[1.0], [0.0], [1.0], [2.0]]), "*"),
    (torch.tensor(5), torch.arange(6).reshape(2, 3), "-"),
])
def test_broadcast_figure_draws_torchs_stretched_operands_and_result(a, b, op):
    fig = broadcast_figure(a, b, op)
    try:
        shape = torch.broadcast_shapes(a.shape, b.shape)
        grid = (1,) * (2 - len(shape)) + tuple(shape)
        out = {"+": a + b, "-": a - b, "*": a * b}[op].reshape(grid)
        for ax, t in zip(fig.axes, (a, b)):
            texts, faces = _texts_and_faces(ax)
            stored = (1,) * (2 - t.dim()) + tuple(t.shape)
            seen = torch.broadcast_to(t.reshape(stored), grid)
            solid = {face for (i, j), face in faces.items() if i < stored[0] and j < stored[1]}
            faded = {face for (i, j), face in faces.items() if not (i < stored[0] and j < stored[1])}
            assert len(solid) == 1 and not solid & faded   # stored and stretched look different
            for (i, j), text in texts.items():
                assert text == f"{seen[i, j].item():g}"
        texts, _ = _texts_and_faces(fig.axes[2])
        assert {k: v for k, v in texts.items()} == {
            (i, j): f"{out[i, j].item():g}" for i in range(grid[0]) for j in range(grid[1])}
    finally:
        plt.close(fig)


@pytest.mark.parametrize("a, b, op, error, words", [
    ([1, 2], torch.ones(2), "+", TypeError, "a must be a torch.Tensor"),
    (torch.ones(2, 2, 2), torch.ones(2), "+", ValueError, "at most 2 dims"),
    (torch.ones(3), torch.ones(4), "+", ValueError, "do not broadcast"),
    (torch.ones(MAX_SIDE + 1), torch.ones(1), "+", ValueError, "at most"),
    (torch.ones(2), torch.ones(2), "/", ValueError, "op must be one of"),
])
def test_broadcast_figure_refuses_bad_input_by_name(a, b, op, error, words):
    with pytest.raises(error, match=words):
        broadcast_figure(a, b, op)


def test_broadcast_figure_names_its_operands():
    fig = broadcast_figure(torch.ones(2, 1), torch.ones(3), "*", names=("pred", "target"))
    try:
        assert [ax.get_title() for ax in fig.axes] == [
            "pred (2, 1) stretched to (2, 3)", "target (3,) stretched to (2, 3)", "pred * target (2, 3)"]
    finally:
        plt.close(fig)
    with pytest.raises(TypeError, match="names must be two"):
        broadcast_figure(torch.ones(2), torch.ones(2), names=("only one",))


def test_paired_vs_grid_figure_labels_what_torch_picks():
    x = torch.arange(12).reshape(3, 4) * 10
    rows, cols = torch.tensor([0, 2]), torch.tensor([1, 3])
    fig = paired_vs_grid_figure(x, rows, cols)
    try:
        paired, grid = _panel_texts(fig.axes[0]), _panel_texts(fig.axes[1])
        for k, (r, c) in enumerate([(0, 1), (2, 3)]):
            assert paired[(r, c)] == [str(int(x[rows, cols][k])), f"out[{k}]"]
        for i, r in enumerate([0, 2]):
            for j, c in enumerate([1, 3]):
                assert grid[(r, c)] == [str(int(x[rows[:, None], cols][i, j])), f"out[{i}, {j}]"]
        assert sum(len(v) == 2 for v in paired.values()) == 2
        assert sum(len(v) == 2 for v in grid.values()) == 4
    finally:
        plt.close(fig)


@pytest.mark.parametrize("rows, cols, error, words", [
    ([0], torch.tensor([1]), TypeError, "rows must be a torch.Tensor"),
    (torch.tensor([0, 1]), torch.tensor([1]), ValueError, "same length"),
    (torch.tensor([0.0]), torch.tensor([1]), ValueError, "rows must be a 1-D int64"),
    (torch.tensor([5]), torch.tensor([1]), ValueError, "torch refused the index"),
])
def test_paired_vs_grid_figure_refuses_bad_input_by_name(rows, cols, error, words):
    with pytest.raises(error, match=words):
        paired_vs_grid_figure(torch.zeros(3, 4), rows, cols)


@pytest.mark.parametrize("x, grad", [
    (torch.tensor([[1.0], [2.0], [3.0]]), torch.arange(12.).reshape(3, 4)),
    (torch.ones(4), torch.arange(20.).reshape(5, 4)),
    (torch.tensor(2.0, dtype=torch.float64), torch.ones(2, 3)),
])
def test_expand_grad_figure_shows_autograds_sums(x, grad):
    fig = expand_grad_figure(x, grad)
    try:
        leaf = x.clone().requires_grad_()
        leaf.expand(grad.shape).backward(grad.to(x.dtype))
        stored = (1,) * (2 - x.dim()) + tuple(x.shape)
        drawn = _panel_texts(fig.axes[1])
        expected = leaf.grad.reshape(stored)
        for r in range(stored[0]):
            for c in range(stored[1]):
                copies = grad.numel() // x.numel()
                assert drawn[(r, c)] == [f"{expected[r, c].item():g}", f"sum of {copies}"]
        incoming = _panel_texts(fig.axes[0])
        assert len(incoming) == grad.numel()
    finally:
        plt.close(fig)


@pytest.mark.parametrize("x, grad, error, words", [
    ("x", torch.ones(2, 2), TypeError, "x must be a torch.Tensor"),
    (torch.ones(2, dtype=torch.int64), torch.ones(2, 2), TypeError, "floating-point"),
    (torch.ones(1, 1, 1), torch.ones(2, 2), ValueError, "at most 2 dims"),
    (torch.ones(3), torch.ones(2, 2), ValueError, "cannot be expanded"),
])
def test_expand_grad_figure_refuses_bad_input_by_name(x, grad, error, words):
    with pytest.raises(error, match=words):
        expand_grad_figure(x, grad)
