"""Draw the pictures of the chapter 4 and 5 landing pages into book/chapters/img/.

Run from the repository root: ``python scripts/chapter_images_04_05.py``. The figures are the
ones the chapters' pages draw (tensorlens.figures), saved as PNG at a fixed size.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402

from tensorlens.figures import broadcast_figure, copy_order_figure  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "book" / "chapters" / "img"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    a = torch.tensor([[0], [10], [20]])
    b = torch.tensor([[1, 2, 3, 4, 5]])
    for name, fig in [("04-broadcasting.png", broadcast_figure(a, b, "+")),
                      ("05-expand-and-repeat.png", copy_order_figure(torch.tensor([1, 2, 3]), 2))]:
        fig.savefig(OUT / name, dpi=72, metadata={"Software": None})
        plt.close(fig)
        print("wrote", OUT / name)


if __name__ == "__main__":
    main()
