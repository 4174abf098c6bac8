"""tensorlens.figures.data: chapter 12's figures draw what they are given and name bad arguments."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from tensorlens.figures import (collate_figure, image_row_figure,  # noqa: E402
                                worker_timeline_figure)


def test_image_row_draws_uint8_float_and_single_channel_images():
    rgb = np.zeros((4, 5, 3), dtype=np.uint8)
    unscaled = rgb.astype(np.float32) + 200.0          # clipped to 1.0 for display
    plane = torch.rand(4, 5)
    fig = image_row_figure([rgb, unscaled, plane], ["a", "b", "c"], cmaps=[None, None, "R"])
    axes = fig.axes
    assert [ax.get_title() for ax in axes] == ["a", "b", "c"]
    assert axes[1].images[0].get_array().max() == 1.0
    assert axes[2].images[0].get_cmap().name == "Reds"
    plt.close(fig)


def test_image_row_names_bad_arguments():
    with pytest.raises(ValueError, match="images"):
        image_row_figure([], [])
    with pytest.raises(ValueError, match="titles"):
        image_row_figure([np.zeros((2, 2))], ["a", "b"])
    with pytest.raises(ValueError, match=r"images\[0\]"):
        image_row_figure([np.zeros((3, 2, 2))], ["a"])
    with pytest.raises(TypeError, match=r"images\[0\]"):
        image_row_figure([[1, 2]], ["a"])
    with pytest.raises(ValueError, match="cmaps"):
        image_row_figure([np.zeros((2, 2))], ["a"], cmaps=[])


def test_collate_figure_greys_the_padding():
    samples = [torch.tensor([1, 2]), torch.tensor([3, 4, 5])]
    batch = torch.tensor([[1, 2, 0], [3, 4, 5]])
    mask = torch.tensor([[True, True, False], [True, True, True]])
    fig = collate_figure(samples, batch, mask)
    ax = fig.axes[0]
    hatched = [p for p in ax.patches if p.get_hatch() == "//"]
    assert len(hatched) == 1                            # the one padding cell
    assert "batch [2, 3]" in [t.get_text() for t in ax.texts]
    plt.close(fig)


def test_collate_figure_names_bad_arguments():
    one = [torch.tensor([1, 2])]
    with pytest.raises(ValueError, match="samples"):
        collate_figure([], torch.zeros(0, 2))
    with pytest.raises(ValueError, match="samples"):
        collate_figure([torch.zeros(2, 2)], torch.zeros(1, 2))
    with pytest.raises(ValueError, match="batch"):
        collate_figure(one, torch.zeros(2, 2))
    with pytest.raises(ValueError, match="mask"):
        collate_figure(one, torch.zeros(1, 2), torch.ones(1, 3, dtype=torch.bool))


def test_worker_timeline_outlines_repeated_numbers():
    fig = worker_timeline_figure({"self.rng": [(0, 7), (1, 7), (0, 3)],
                                  "np.random": [(0, 1), (1, 2), (0, 3)]})
    red = [p for p in fig.axes[0].patches if p.get_linewidth() == 2.5]
    assert len(red) == 2                                # the two 7s
    plt.close(fig)


def test_worker_timeline_names_bad_arguments():
    with pytest.raises(ValueError, match="draws"):
        worker_timeline_figure({})
    with pytest.raises(ValueError, match="draws"):
        worker_timeline_figure({"a": [(0, 1, 2)]})
