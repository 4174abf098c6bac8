"""The chapter 4-5 pictures of tensorlens.figures.shapes: they draw, and refuse bad input."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from tensorlens.figures import (copy_order_figure, mask_grid_figure,  # noqa: E402
                                matmul_dims_figure, pairwise_block_figure)


@pytest.mark.parametrize("make", [
    lambda: pairwise_block_figure(4, 3, 5),
    lambda: pairwise_block_figure(1, 1, 1),
    lambda: matmul_dims_figure((2, 1, 3, 4), (5, 4, 6)),
    lambda: matmul_dims_figure((3, 4), (4, 5)),
    lambda: mask_grid_figure(torch.tensor([True, False]), torch.tensor([True, True, False])),
    lambda: copy_order_figure(torch.tensor([1, 2, 3]), 2),
    lambda: copy_order_figure(torch.tensor([7.5]), 1),
])
def test_figures_draw(make):
    fig = make()
    assert fig.axes
    plt.close(fig)


def test_matmul_figure_keeps_torchs_refusal():
    with pytest.raises(ValueError, match="torch refuses"):
        matmul_dims_figure((3, 4), (5, 6))
    with pytest.raises(ValueError, match="2 to 6 dims"):
        matmul_dims_figure((4,), (4, 5))
    with pytest.raises(TypeError):
        matmul_dims_figure("34", (4, 5))


@pytest.mark.parametrize("call", [
    lambda: pairwise_block_figure(0, 3, 5),
    lambda: pairwise_block_figure(2, 3, 9),
    lambda: mask_grid_figure(torch.tensor([1, 0]), torch.tensor([True])),
    lambda: copy_order_figure(torch.zeros(2, 2), 2),
    lambda: copy_order_figure(torch.tensor([1, 2]), 5),
])
def test_bad_arguments_are_refused(call):
    with pytest.raises(ValueError):
        call()


def test_wrong_types_are_refused():
    with pytest.raises(TypeError):
        pairwise_block_figure(2.0, 3, 4)
    with pytest.raises(TypeError):
        copy_order_figure([1, 2], 2)
    with pytest.raises(TypeError):
        mask_grid_figure([True], torch.tensor([True]))
