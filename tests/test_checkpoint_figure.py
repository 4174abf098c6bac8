"""tensorlens.figures.checkpoint: the entries are the checkpoint's own, and the figure builds."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from tensorlens.figures.checkpoint import (ROUTINE, checkpoint_entries,  # noqa: E402
                                           checkpoint_figure)


def test_entries_flatten_dicts_and_lists_and_summarise_tensors():
    optimizer = torch.optim.SGD([torch.zeros(2, requires_grad=True)], lr=0.5, momentum=0.9)
    entries = dict(checkpoint_entries({"epoch": 3, "opt": optimizer.state_dict(),
                                       "w": torch.zeros(2, 3, dtype=torch.int64)}))
    assert entries["epoch"] == "3"
    assert entries["opt.param_groups.0.lr"] == "0.5"
    assert entries["opt.param_groups.0.params.0"] == "0"
    assert entries["w"] == "tensor (2, 3) int64"
    assert checkpoint_entries({}) == [("", "{}")]
    assert checkpoint_entries(torch.Size([2]), "s") == [("s", "torch.Size([2])")]


def test_figure_builds_with_notes_and_truncation():
    net = torch.nn.Linear(3, 2)
    fig = checkpoint_figure({"epoch": 1, "model": net.state_dict(), "rng": torch.get_rng_state()},
                            notes={"model": "model.load_state_dict(...)"}, max_lines=1)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "... and 1 more" in texts and "model.load_state_dict(...)" in texts
    plt.close(fig)


def test_skip_matches_any_part_of_a_path():
    """A list entry's last part is its index: ``base_lrs`` must skip ``base_lrs.0`` too."""
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    fig = checkpoint_figure({"optimizer": optimizer.state_dict(),
                             "scheduler": scheduler.state_dict()}, max_lines=10, skip=ROUTINE)
    texts = [t.get_text() for t in fig.axes[0].texts]
    plt.close(fig)
    assert "param_groups.0.lr: 0.5" in texts and "_last_lr.0: 0.5" in texts
    assert not [t for t in texts if t.startswith(("base_lrs", "param_groups.0.params",
                                                  "param_groups.0.initial_lr"))]


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="checkpoint"):
        checkpoint_figure([])
    with pytest.raises(ValueError, match="max_lines"):
        checkpoint_figure({"a": 1}, max_lines=0)
