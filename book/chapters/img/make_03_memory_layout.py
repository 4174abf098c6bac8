"""Draw the chapter 3 opener's picture: one storage, two views (x and x.t()).

Run from the repository root:  .venv/bin/python book/chapters/img/make_03_memory_layout.py
It writes book/chapters/img/03-memory-layout.png (deterministic: no randomness).
"""

import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402

OUT = pathlib.Path(__file__).with_name("03-memory-layout.png")
COLORS = plt.get_cmap("tab20").colors


def cells(ax, values, x0, y0, title, note):
    """A grid of storage positions, each cell coloured by the storage cell it reads."""
    rows, cols = values.shape
    for i in range(rows):
        for j in range(cols):
            v = int(values[i, j])
            ax.add_patch(plt.Rectangle((x0 + j, y0 - i), 0.95, 0.95, color=COLORS[v]))
            r, g, b = COLORS[v]
            ink = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
            ax.text(x0 + j + 0.47, y0 - i + 0.47, str(v), ha="center", va="center", fontsize=11,
                    color=ink)
    ax.text(x0, y0 + 1.55, title, fontsize=12, fontweight="bold")
    ax.text(x0, y0 + 1.12, note, fontsize=9.5)


def main():
    x = torch.arange(12).view(3, 4)
    fig, ax = plt.subplots(figsize=(9, 4.2), dpi=110)
    cells(ax, x, 0, 3, "x = torch.arange(12).view(3, 4)", "shape (3, 4), stride (4, 1)")
    cells(ax, x.t(), 8, 3, "x.t()", "shape (4, 3), stride (1, 4): no number moved")
    storage = x.flatten().view(1, 12)
    cells(ax, storage, 0, -2.6, "storage: 12 int64 cells, 96 bytes, shared by both",
          "element [i, j] lives at offset + i·stride[0] + j·stride[1]")
    ax.set_xlim(-0.2, 12.2)
    ax.set_ylim(-2.8, 4.9)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.savefig(OUT, bbox_inches="tight", facecolor="white")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
