"""Tests for tensorlens.figures.sweeps: one line per operation, log axes, bad arguments named."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from tensorlens.figures import plot_sweep
from tensorlens.measure import cost_sweep

OPS = {
    "expand": lambda x, n: x.expand(n, -1),
    "repeat": lambda x, n: x.repeat(n, 1),
    "expand+contiguous": lambda x, n: x.expand(n, -1).contiguous(),
}


def test_plot_sweep_draws_one_line_per_op():
    sweep = cost_sweep(OPS, torch.zeros(1, 4), [1, 2, 4], time=True, min_run_time=0.01)
    for metric in ("bytes", "seconds"):
        fig = plot_sweep(sweep, metric, title="t")
        ax = fig.axes[0]
        assert [line.get_label() for line in ax.get_lines()] == list(OPS)
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
        plt.close(fig)
    ys = plot_sweep(sweep).axes[0].get_lines()[1].get_ydata()
    assert list(ys) == [16, 32, 64]
    plt.close("all")


def test_plot_sweep_rejects_bad_arguments():
    untimed = cost_sweep(OPS, torch.zeros(1, 4), [1])
    with pytest.raises(ValueError, match="time=True"):
        plot_sweep(untimed, "seconds")
    with pytest.raises(ValueError, match="metric"):
        plot_sweep(untimed, "watts")
    with pytest.raises(TypeError, match="sweep"):
        plot_sweep({"bytes": {}})
