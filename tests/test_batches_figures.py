"""tensorlens.figures.batches: the byte counts agree with torch, and the figures build."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from tensorlens.figures.batches import (STRATEGIES, copy_path_figure, growth_bytes,  # noqa: E402
                                        growth_figure)


def _written_by_cat_loop(rows, width):
    out, written = torch.empty(0, width), 0
    for _ in range(rows):
        out = torch.cat([out, torch.ones(1, width)])
        written += out.nbytes  # each cat writes a whole new tensor
    return written


@pytest.mark.parametrize("rows", [0, 1, 2, 7, 30])
def test_counts_agree_with_what_torch_writes(rows):
    width = 5
    row_bytes = width * 4
    assert growth_bytes(rows, row_bytes, "cat") == _written_by_cat_loop(rows, width)
    stacked = torch.cat([torch.ones(1, width) for _ in range(rows)] or [torch.empty(0, width)])
    assert growth_bytes(rows, row_bytes, "list") == stacked.nbytes
    assert growth_bytes(rows, row_bytes, "prealloc") == torch.empty(rows, width).nbytes


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="strategy"):
        growth_bytes(3, 4, "append")
    with pytest.raises(ValueError, match="rows"):
        growth_bytes(-1, 4, "cat")
    with pytest.raises(TypeError, match="row_bytes"):
        growth_bytes(3, 4.0, "cat")
    with pytest.raises(TypeError, match="rows"):
        growth_bytes(True, 4, "cat")
    with pytest.raises(ValueError, match="max_rows"):
        growth_figure(0, 4)
    with pytest.raises(ValueError, match="points"):
        growth_figure(10, 4, points=1)
    with pytest.raises(ValueError, match="highlight"):
        copy_path_figure("paged")


def test_growth_figure_draws_one_line_per_strategy():
    fig = growth_figure(100, 256)
    ax = fig.axes[0]
    assert len(ax.lines) == len(STRATEGIES)
    assert ax.lines[0].get_ydata()[-1] == pytest.approx(growth_bytes(100, 256, "cat") / 2**20)
    assert any("50×" in t.get_text() for t in ax.texts)  # 101 / 2 rounds to 50
    plt.close(fig)


@pytest.mark.parametrize("highlight", [None, "pageable", "pinned"])
def test_copy_path_figure_builds_and_fades_the_other_route(highlight):
    fig = copy_path_figure(highlight)
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("GPU memory") == 2 and "DMA" in texts
    faded = [p for p in ax.patches if p.get_alpha() is not None]
    assert bool(faded) == (highlight is not None)
    plt.close(fig)
