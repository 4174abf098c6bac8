"""tensorlens.figures.losses and .modules: the loss curves are torch's, and the module grid sees what torch sees."""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

from tensorlens.figures.losses import softmax_first_figure, softmax_first_floor  # noqa: E402
from tensorlens.figures.modules import module_tensors, module_tensors_figure  # noqa: E402


def test_floor_is_the_one_hot_loss():
    for classes in (2, 3, 10):
        one_hot = torch.zeros(1, classes)
        one_hot[0, 0] = 1.0
        loss = F.cross_entropy(one_hot, torch.tensor([0])).item()
        assert math.isclose(softmax_first_floor(classes), loss, rel_tol=1e-6)


def test_softmax_first_figure_draws_torchs_curves():
    fig = softmax_first_figure(10, max_margin=12)
    right, wrong = fig.axes[0].lines[:2]
    assert right.get_ydata()[-1] < 1e-4            # the right loss goes to zero
    assert min(wrong.get_ydata()) >= softmax_first_floor(10) - 1e-6
    plt.close(fig)


class _Mixed(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.fc.bias.requires_grad_(False)
        self.register_buffer("mean", torch.zeros(2))
        self.register_buffer("cache", torch.zeros(4), persistent=False)
        self.scale = torch.ones(2)
        self.blocks = [nn.Linear(2, 2)]
        self.held = nn.ModuleList([nn.Linear(2, 1)])


def test_module_tensors_sees_registered_and_unregistered():
    rows = {r.name: r for r in module_tensors(_Mixed())}
    assert set(rows) == {"fc.weight", "fc.bias", "held.0.weight", "held.0.bias", "mean", "cache",
                         "scale", "blocks.0.weight", "blocks.0.bias"}
    assert rows["fc.bias"].kind == "frozen parameter" and rows["fc.bias"].in_parameters
    assert rows["cache"].in_buffers and not rows["cache"].in_state_dict
    assert rows["mean"].in_state_dict and rows["mean"].moves_with_to
    for name in ("scale", "blocks.0.weight"):
        assert not (rows[name].in_parameters or rows[name].in_buffers or rows[name].moves_with_to)
    moved = _Mixed().to(torch.float64)
    assert moved.mean.dtype == torch.float64 and moved.scale.dtype == torch.float32
    assert moved.blocks[0].weight.dtype == torch.float32
    fig = module_tensors_figure(_Mixed(), title="mixed")
    assert fig.axes
    plt.close(fig)


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="num_classes"):
        softmax_first_figure(2.5)
    with pytest.raises(ValueError, match="num_classes"):
        softmax_first_figure(1)
    with pytest.raises(ValueError, match="max_margin"):
        softmax_first_figure(3, max_margin=0)
    with pytest.raises(TypeError, match="module"):
        module_tensors(torch.zeros(2))
    with pytest.raises(ValueError, match="module"):
        module_tensors_figure(nn.ReLU())
