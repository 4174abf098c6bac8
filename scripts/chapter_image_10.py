"""Write book/chapters/img/10-saving-and-loading.png: the checkpoint dict that chapter 10 saves.

    .venv/bin/python scripts/chapter_image_10.py

The same figure function as page 10-3 (tensorlens.figures.checkpoint), on the same small run:
a model, SGD with momentum and a StepLR scheduler after three epochs, plus the RNG state.
"""

import pathlib

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

from tensorlens.figures.checkpoint import checkpoint_figure  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parents[1] / "book" / "chapters" / "img"


def main():
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    inputs, targets = torch.randn(64, 3), torch.randn(64, 1)
    for _ in range(3):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(inputs), targets).backward()
        optimizer.step()
        scheduler.step()
    checkpoint = {"epoch": 3, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                  "scheduler": scheduler.state_dict(), "rng": torch.get_rng_state()}
    fig = checkpoint_figure(
        checkpoint, max_lines=2,
        skip=("params", "dampening", "weight_decay", "nesterov", "maximize", "foreach",
              "differentiable", "fused", "base_lrs", "_step_count", "_is_initial",
              "_get_lr_called_within_step", "verbose", "step_size", "gamma"),
        notes={"epoch": "the loop", "model": "model.load_state_dict",
               "optimizer": "optimizer.load_state_dict",
               "scheduler": "scheduler.load_state_dict", "rng": "torch.set_rng_state"})
    OUT.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT / "10-saving-and-loading.png", dpi=80, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    main()
