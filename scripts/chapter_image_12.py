"""Write book/chapters/img/12-from-data-to-batches.png: samples of different lengths padded
into one batch, the picture of chapter 12.

    .venv/bin/python scripts/chapter_image_12.py

The same figure function as page 12-2 (tensorlens.figures.data.collate_figure), on four token
sequences padded with pad_sequence; the mask comes from their lengths.
"""

import pathlib

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402
from torch.nn.utils.rnn import pad_sequence  # noqa: E402

from tensorlens.figures.data import collate_figure  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parents[1] / "book" / "chapters" / "img"


def main():
    samples = [torch.tensor([7, 3, 9]), torch.tensor([4, 8, 1, 6, 2]), torch.tensor([5]),
               torch.tensor([2, 2, 7, 3])]
    lengths = torch.tensor([len(s) for s in samples])
    batch = pad_sequence(samples, batch_first=True)
    mask = torch.arange(batch.size(1)) < lengths[:, None]
    fig = collate_figure(samples, batch, mask)
    OUT.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT / "12-from-data-to-batches.png", dpi=80, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    main()
