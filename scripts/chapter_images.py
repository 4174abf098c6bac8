"""Write the chapter openers' pictures, book/chapters/img/NN-*.png, all of them or the ones named.

Run from the repository root:

    .venv/bin/python scripts/chapter_images.py                   # every picture
    .venv/bin/python scripts/chapter_images.py 03-memory-layout  # one of them
    .venv/bin/python scripts/chapter_images.py --out /tmp/img    # elsewhere, to compare

Two kinds of picture:

- *taken from a page*: the picture an executed notebook already shows (found by a piece of its
  cell's source), copied byte for byte, so the landing page and the page never disagree. Run
  ``make sync`` first. 09's is a timing, so it changes whenever 09-2 is re-executed.
- *drawn here*: a tensorlens figure (or, for chapter 3, a small drawing) on a fixed input, so
  the PNG changes only when the drawing code does.
"""

from __future__ import annotations

import argparse
import base64
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
IMG = ROOT / "book" / "chapters" / "img"

# picture name -> (notebook, a piece of the source of the cell that draws it)
FROM_PAGES = {
    "01-tensor-basics": ("01-2-arithmetic-and-reductions", "def draw_grid(ax, grid"),
    "06-masks": ("06-2-attention-masks", '"causal & padding"'),
    "07-graph": ("07-1-graph-and-backward", 'title="backward graph of y = x**3 - 2*x"'),
    "08-devices-and-precision": ("08-2-floating-point-formats", "bit_layout_figure(-6.25)"),
    "09-performance": ("09-2-vectorising", "Python loop vs one tensor call"),
}


def from_page(notebook: str, marker: str) -> bytes:
    """The one PNG output of the cell of ``notebooks/<notebook>.ipynb`` whose source holds
    ``marker``."""
    path = ROOT / "notebooks" / f"{notebook}.ipynb"
    cells = [cell for cell in json.loads(path.read_text())["cells"]
             if cell["cell_type"] == "code" and marker in "".join(cell["source"])]
    if len(cells) != 1:
        raise SystemExit(f"expected one cell with {marker!r} in {path.name}, found {len(cells)}")
    pngs = [output["data"]["image/png"] for output in cells[0].get("outputs", [])
            if "image/png" in output.get("data", {})]
    if len(pngs) != 1:
        raise SystemExit(f"expected one picture in that cell of {path.name}, found {len(pngs)}"
                         " (run make sync first)")
    return base64.b64decode(pngs[0])


def draw_02(out: Path) -> None:
    """What a slice picks (a view) next to what two index lists pick (a copy)."""
    from tensorlens.figures import picks_figure

    x = torch.arange(24).reshape(4, 6)
    fig = picks_figure(x, "x[1:, ::2]", "x[[0, 2, 3], [1, 3, 5]]")
    fig.axes[0].set_title("x[1:, ::2]: a slice, a view (shape (3, 3))", fontsize=11)
    fig.axes[1].set_title("x[[0, 2, 3], [1, 3, 5]]: index lists, a copy (shape (3,))",
                          fontsize=11)
    fig.savefig(out, dpi=80, metadata={"Software": None})
    plt.close(fig)


def _cells(ax, values, x0, y0, title, note):
    """A grid of storage positions, each cell coloured by the storage cell it reads."""
    colors = plt.get_cmap("tab20").colors
    rows, cols = values.shape
    for i in range(rows):
        for j in range(cols):
            v = int(values[i, j])
            ax.add_patch(plt.Rectangle((x0 + j, y0 - i), 0.95, 0.95, color=colors[v]))
            r, g, b = colors[v]
            ink = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
            ax.text(x0 + j + 0.47, y0 - i + 0.47, str(v), ha="center", va="center", fontsize=11,
                    color=ink)
    ax.text(x0, y0 + 1.55, title, fontsize=12, fontweight="bold")
    ax.text(x0, y0 + 1.12, note, fontsize=9.5)


def draw_03(out: Path) -> None:
    """One storage, two views (x and x.t())."""
    x = torch.arange(12).view(3, 4)
    fig, ax = plt.subplots(figsize=(9, 4.2), dpi=110)
    _cells(ax, x, 0, 3, "x = torch.arange(12).view(3, 4)", "shape (3, 4), stride (4, 1)")
    _cells(ax, x.t(), 8, 3, "x.t()", "shape (4, 3), stride (1, 4): no number moved")
    storage = x.flatten().view(1, 12)
    _cells(ax, storage, 0, -2.6, "storage: 12 int64 cells, 96 bytes, shared by both",
           "element [i, j] lives at offset + i·stride[0] + j·stride[1]")
    ax.set_xlim(-0.2, 12.2)
    ax.set_ylim(-2.8, 4.9)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.savefig(out, bbox_inches="tight", facecolor="white")
    plt.close(fig)


def draw_04(out: Path) -> None:
    """A (3, 1) column plus a (1, 5) row."""
    from tensorlens.figures import broadcast_figure

    fig = broadcast_figure(torch.tensor([[0], [10], [20]]), torch.tensor([[1, 2, 3, 4, 5]]), "+")
    fig.savefig(out, dpi=72, metadata={"Software": None})
    plt.close(fig)


def draw_05(out: Path) -> None:
    """The copy orders of repeat and repeat_interleave."""
    from tensorlens.figures import copy_order_figure

    fig = copy_order_figure(torch.tensor([1, 2, 3]), 2)
    fig.savefig(out, dpi=72, metadata={"Software": None})
    plt.close(fig)


def draw_10(out: Path) -> None:
    """The checkpoint dict chapter 10 saves: a model, SGD with momentum and a StepLR scheduler
    after three epochs, plus the RNG state (the same figure function as page 10-3)."""
    from tensorlens.figures.checkpoint import checkpoint_figure

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
    fig.savefig(out, dpi=80, bbox_inches="tight")
    plt.close(fig)


DRAWN = {"02-indexing": draw_02, "03-memory-layout": draw_03, "04-broadcasting": draw_04,
         "05-expand-and-repeat": draw_05, "10-saving-and-loading": draw_10}
PICTURES = sorted({**FROM_PAGES, **DRAWN})


def write(name: str, folder: Path) -> Path:
    """Write picture ``name`` (for example ``"03-memory-layout"``) as ``folder/name.png``."""
    out = folder / f"{name}.png"
    if name in FROM_PAGES:
        out.write_bytes(from_page(*FROM_PAGES[name]))
    elif name in DRAWN:
        DRAWN[name](out)
    else:
        raise SystemExit(f"no picture {name!r}; known: {', '.join(PICTURES)}")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help=f"pictures to write (default all: {PICTURES})")
    parser.add_argument("--out", type=Path, default=IMG, help="folder (default %(default)s)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.names or PICTURES:
        print("wrote", write(name, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
