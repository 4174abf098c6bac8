"""Write book/chapters/img/11-tensors-through-layers.png: one batch of images through layers.

    .venv/bin/python scripts/chapter_image_11.py

A row of boxes, left to right: an (N, H, W, C) batch of bytes, the permute that makes it
NCHW, then a convolution, batch norm, pooling, flatten and a linear layer. Every shape under an
arrow is recorded by tensorlens.shape_table on the real layers, so the picture cannot drift
from what torch returns.
"""

import pathlib

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402
from torch import nn  # noqa: E402

from tensorlens.shape_flow import shape_table  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parents[1] / "book" / "chapters" / "img"


def main():
    torch.manual_seed(0)
    images = torch.randint(0, 256, (4, 32, 32, 3), dtype=torch.uint8)   # N, H, W, C
    x = images.permute(0, 3, 1, 2).float().div(255)
    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8),
                        nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8 * 16 * 16, 10))
    table = shape_table(net, x)
    labels = ["images\nuint8", "permute\n.float()"] + [f"{r.kind}" for r in table[1:]]
    shapes = ["[4, 32, 32, 3]", "[4, 3, 32, 32]"] + [r.output_text for r in table[1:]]
    fig, ax = plt.subplots(figsize=(12, 1.9))
    width, gap = 1.55, 0.5
    for i, (label, shape) in enumerate(zip(labels, shapes)):
        left = i * (width + gap)
        color = "#ffd27f" if i < 2 else "#a6c8ff"
        ax.add_patch(FancyBboxPatch((left, 0.35), width, 0.6, boxstyle="round,pad=0.04",
                                    facecolor=color, edgecolor="#555555", linewidth=0.8))
        ax.text(left + width / 2, 0.65, label, ha="center", va="center", fontsize=9.5,
                fontweight="bold")
        ax.text(left + width / 2, 0.1, shape, ha="center", va="center", fontsize=8.5,
                family="monospace")
        if i:
            ax.annotate("", xy=(left - 0.05, 0.65), xytext=(left - gap + 0.05, 0.65),
                        arrowprops={"arrowstyle": "->", "color": "#555555"})
    ax.set_xlim(-0.1, len(labels) * (width + gap))
    ax.set_ylim(-0.1, 1.05)
    ax.axis("off")
    OUT.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT / "11-tensors-through-layers.png", dpi=80, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    main()
