"""tensorlens.figures.layers: sizes and groups are torch's own, and the figures build."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

from tensorlens.figures.layers import (conv_output_sizes, conv_size_figure,  # noqa: E402
                                       norm_groups, norm_groups_figure, shape_flow_figure)
from tensorlens.shape_flow import shape_table  # noqa: E402


def formula(h, k, s=1, p=0, d=1):
    out = (h + 2 * p - d * (k - 1) - 1) // s + 1
    return out if out >= 1 else None


@pytest.mark.parametrize("k, s, p, d", [(3, 1, 0, 1), (3, 2, 1, 1), (4, 2, 1, 1), (3, 1, 0, 2),
                                        (5, 3, 2, 1), (1, 1, 0, 1)])
def test_conv_output_sizes_follow_the_formula_and_conv2d(k, s, p, d):
    sizes = list(range(1, 20))
    got = conv_output_sizes(sizes, kernel_size=k, stride=s, padding=p, dilation=d)
    assert got == [formula(h, k, s, p, d) for h in sizes]
    conv = nn.Conv2d(1, 1, k, stride=s, padding=p, dilation=d)
    for h, out in zip(sizes, got):
        if out is not None:
            assert conv(torch.zeros(1, 1, h, 5 + 2 * d * k)).shape[-2] == out


def test_same_padding_keeps_the_size_and_refuses_a_stride():
    assert conv_output_sizes(range(1, 9), kernel_size=4, padding="same") == list(range(1, 9))
    assert conv_output_sizes([5, 6], kernel_size=3, stride=2, padding="same") == [None, None]
    assert conv_output_sizes([2, 3], kernel_size=3, padding="valid") == [None, 1]


@pytest.mark.parametrize("kwargs, error, word", [
    ({"kernel_size": 0}, ValueError, "kernel_size"),
    ({"stride": 1.0}, TypeError, "stride"),
    ({"dilation": True}, TypeError, "dilation"),
    ({"padding": "full"}, TypeError, "padding"),
    ({"padding": -1}, ValueError, "padding"),
])
def test_conv_output_sizes_name_bad_arguments(kwargs, error, word):
    with pytest.raises(error, match=word):
        conv_output_sizes([4], **kwargs)


def test_conv_output_sizes_name_bad_sizes():
    with pytest.raises(ValueError, match="sizes"):
        conv_output_sizes([0])
    with pytest.raises(TypeError, match="sizes"):
        conv_output_sizes([2.5])
    with pytest.raises(TypeError, match="sizes"):
        conv_output_sizes(3)


def test_norm_groups_are_the_cells_sharing_statistics():
    bn = nn.BatchNorm1d(4)
    before = bn.running_mean.clone()
    assert norm_groups(bn, 3, 4).tolist() == [[True, False, False, False]] * 3
    assert torch.equal(bn.running_mean, before) and bn.weight.dtype == torch.float32
    assert norm_groups(nn.LayerNorm([4, 3]), 2, 4).tolist() == [[True] * 4, [False] * 4]
    assert norm_groups(nn.GroupNorm(2, 4), 2, 4).tolist() == [[True, True, False, False],
                                                             [False] * 4]
    # in eval mode BatchNorm uses its running statistics: nothing else is read
    assert norm_groups(nn.BatchNorm1d(4).eval(), 3, 4).sum().item() == 1
    with pytest.raises(TypeError, match="layer"):
        norm_groups("bn", 2, 2)


def test_figures_build_and_show_the_failing_layer():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Flatten(), nn.Linear(12, 3))
    fig = shape_flow_figure(shape_table(net, torch.zeros(2, 3, 4)), title="t")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "input [2, 3, 4]" in texts and "[2, 12]" in texts and "[2, 3]" in texts
    plt.close(fig)
    with pytest.raises(RuntimeError) as info:
        shape_table(net, torch.zeros(2, 4, 4))
    fig = shape_flow_figure(info.value.shape_table)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "raised here, given [2, 16]" in texts
    plt.close(fig)
    fig = conv_size_figure(range(1, 10), {"k=3": {"kernel_size": 3},
                                          "k=3, s=2": {"kernel_size": 3, "stride": 2}})
    assert len(fig.axes[0].get_legend().get_texts()) == 3
    plt.close(fig)
    fig = norm_groups_figure(3, 4, 2)
    assert len(fig.axes) == 3
    plt.close(fig)


@pytest.mark.parametrize("call, error, word", [
    (lambda: shape_flow_figure("table"), TypeError, "table"),
    (lambda: shape_flow_figure(shape_table(nn.ReLU(), torch.zeros(1)), title=3), TypeError,
     "title"),
    (lambda: conv_size_figure([], {"a": {}}), ValueError, "sizes"),
    (lambda: conv_size_figure([3], {}), ValueError, "configs"),
    (lambda: conv_size_figure([3], {"a": 3}), TypeError, "configs"),
    (lambda: norm_groups_figure(4, 6, 4), ValueError, "groups"),
    (lambda: norm_groups_figure(1, 6, 2), ValueError, "n"),
    (lambda: norm_groups_figure(4, 20, 2), ValueError, "c"),
])
def test_figures_name_bad_arguments(call, error, word):
    with pytest.raises(error, match=word):
        call()
    plt.close("all")


def test_docstring_examples_run():
    import doctest

    import tensorlens.figures.layers
    assert doctest.testmod(tensorlens.figures.layers).failed == 0
    plt.close("all")
