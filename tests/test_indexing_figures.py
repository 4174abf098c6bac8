"""Tests for tensorlens.figures.indexing: each picture draws what torch computes."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from tensorlens.figures.indexing import picks_figure, repeated_index_figure, where_figure


def _texts(ax):
    cells = {}
    for t in ax.texts:
        x, y = t.get_position()
        cells.setdefault((int(y), int(x)), []).append(t.get_text())
    return cells


@pytest.mark.parametrize("expression, picked", [
    ("x[1:, ::2]", {(1, 0): "out[0, 0]", (1, 2): "out[0, 1]", (2, 0): "out[1, 0]",
                    (2, 2): "out[1, 1]"}),
    ("x[:, 1]", {(0, 1): "out[0]", (1, 1): "out[1]", (2, 1): "out[2]"}),
    ("x[[2, 0], -1]", {(2, 3): "out[0]", (0, 3): "out[1]"}),
    ("x[torch.tensor([0, 0]), 1]", {(0, 1): "out[0]+out[1]"}),
    ("x[1, 2]", {(1, 2): "out"}),
])
def test_picks_are_labelled_with_their_place_in_the_result(expression, picked):
    x = torch.arange(12).reshape(3, 4)
    fig = picks_figure(x, expression)
    try:
        cells = _texts(fig.axes[0])
        labelled = {cell: t[1] for cell, t in cells.items() if len(t) == 2}
        assert labelled == picked
        assert cells[(2, 3)][0] == "11"
        assert expression in fig.axes[0].get_title()
    finally:
        plt.close(fig)


def test_picks_figure_draws_one_panel_per_expression_and_1d_tensors():
    fig = picks_figure(torch.arange(5.), "x[::2]", "x[-1]")
    try:
        assert len(fig.axes) == 2
        assert "shape (3,)" in fig.axes[0].get_title()
    finally:
        plt.close(fig)


@pytest.mark.parametrize("args, error", [
    (([1, 2], "x[0]"), TypeError),
    ((torch.zeros(2, 2, 2), "x[0]"), ValueError),
    ((torch.zeros(9, 2), "x[0]"), ValueError),
    ((torch.zeros(2, 2),), ValueError),
    ((torch.zeros(2, 2), "x(0)"), ValueError),
    ((torch.zeros(2, 2), "x[open('f')]"), ValueError),
    ((torch.zeros(2, 2), "x[5]"), ValueError),
    ((torch.zeros(2, 2), "x[0, 0, 0]"), ValueError),
])
def test_picks_figure_refuses_what_it_cannot_draw(args, error):
    with pytest.raises(error):
        picks_figure(*args)


def test_repeated_index_figure_shows_the_lost_and_the_accumulated_counts():
    fig = repeated_index_figure(torch.tensor([0, 2, 2, 2]), 4)
    try:
        idx_ax, once_ax, added_ax = fig.axes
        assert [t[0] for _, t in sorted(_texts(idx_ax).items())] == ["0", "2", "2", "2"]
        once = {cell: t for cell, t in _texts(once_ax).items()}
        added = {cell: t for cell, t in _texts(added_ax).items()}
        assert once[(0, 2)] == ["1", "3 in idx"] and added[(0, 2)] == ["3", "3 in idx"]
        assert added[(0, 1)] == ["0", "0 in idx"]
    finally:
        plt.close(fig)


@pytest.mark.parametrize("idx, size", [
    (torch.tensor([0, 4]), 4), (torch.tensor([-1]), 2), (torch.tensor([0.0]), 2),
    (torch.tensor([[0]]), 2), (torch.tensor([0]), 0), (torch.tensor([0]), True),
])
def test_repeated_index_figure_refuses_bad_input(idx, size):
    with pytest.raises(ValueError):
        repeated_index_figure(idx, size)


def test_where_figure_replaces_keeps_the_shape_and_takes_flat():
    x = torch.tensor([[1, -2, 3], [-4, 5, -6]])
    fig = where_figure(x, x < 0, cond_label="x < 0")
    try:
        _, replaced_ax, taken_ax = fig.axes
        replaced = _texts(replaced_ax)
        assert replaced[(0, 1)] == ["0", "replaced"] and replaced[(0, 0)] == ["1", "kept"]
        taken = _texts(taken_ax)
        assert [taken[(0, k)] for k in range(3)] == [["-2", "(0, 1)"], ["-4", "(1, 0)"],
                                                      ["-6", "(1, 2)"]]
        assert "shape (3,)" in taken_ax.get_title()
    finally:
        plt.close(fig)


@pytest.mark.parametrize("cond", [torch.zeros(2, 3, dtype=torch.bool), torch.ones(2, 3),
                                  torch.ones(3, 2, dtype=torch.bool)])
def test_where_figure_refuses_bad_conditions(cond):
    with pytest.raises(ValueError):
        where_figure(torch.zeros(2, 3), cond)
