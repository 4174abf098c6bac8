"""Draw the picture on chapter 2's landing page: what a slice picks (a view) next to what two
index lists pick (a copy). Run from the repository root:

    python scripts/make_02_opener_image.py

It writes book/chapters/img/02-indexing.png (a fixed input, so the PNG only changes when
tensorlens.figures.picks_figure does).
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402

from tensorlens.figures import picks_figure  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "book" / "chapters" / "img" / "02-indexing.png"


def main() -> None:
    x = torch.arange(24).reshape(4, 6)
    fig = picks_figure(x, "x[1:, ::2]", "x[[0, 2, 3], [1, 3, 5]]")
    fig.axes[0].set_title("x[1:, ::2]: a slice, a view (shape (3, 3))", fontsize=11)
    fig.axes[1].set_title("x[[0, 2, 3], [1, 3, 5]]: index lists, a copy (shape (3,))",
                          fontsize=11)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT, dpi=80, metadata={"Software": None})
    plt.close(fig)
    print(f"wrote {OUT.relative_to(OUT.parents[3])}")


if __name__ == "__main__":
    main()
