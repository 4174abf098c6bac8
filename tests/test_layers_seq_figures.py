"""The chapter 11 pictures of tensorlens.figures.layers_seq: they draw torch's numbers, and
refuse bad input naming the argument."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from tensorlens.figures import (embedding_lookup_figure, mask_conventions_figure,  # noqa: E402
                                rnn_shapes_figure)


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts] + \
        [ax.get_title() for ax in fig.axes] + [t.get_text() for t in fig.texts]


@pytest.mark.parametrize("make", [
    lambda: embedding_lookup_figure(torch.tensor([[3, 1, 4], [1, 0, 2]]), torch.randn(6, 4)),
    lambda: embedding_lookup_figure(torch.tensor([0]), torch.randn(1, 1)),
    lambda: embedding_lookup_figure(torch.tensor([2, 2], dtype=torch.int32), torch.randn(3, 2)),
    lambda: rnn_shapes_figure(4, 2, True, True),
    lambda: rnn_shapes_figure(1, 1, False, False),
    lambda: mask_conventions_figure([5, 3, 1], 5),
    lambda: mask_conventions_figure(torch.tensor([0]), 1),
])
def test_figures_draw(make):
    fig = make()
    assert fig.axes
    plt.close(fig)


def test_embedding_output_rows_are_the_picked_rows():
    weight = torch.arange(12.0).reshape(4, 3)
    fig = embedding_lookup_figure(torch.tensor([[3, 0]]), weight)
    texts = _texts(fig)
    assert "[0, 0] = row 3" in texts and "[0, 1] = row 0" in texts
    assert any("(1, 2, 3)" in t for t in texts)            # torch's output shape
    plt.close(fig)


def test_rnn_figure_labels_h_n_by_layer_and_direction():
    fig = rnn_shapes_figure(3, 2, bidirectional=True, batch_first=True)
    texts = " ".join(_texts(fig))
    for k in range(4):
        assert f"h_n[{k}]" in texts
    assert "(4, 2, 5)" in texts                              # h_n: D*num_layers first
    assert "(2, 3, 10)" in texts                             # output: batch first, D*H_out
    plt.close(fig)
    fig = rnn_shapes_figure(3, 1, bidirectional=False, batch_first=False)
    texts = " ".join(_texts(fig))
    assert "(3, 2, 3)" in texts and "(1, 2, 5)" in texts     # input (L, N, H_in); h_n
    plt.close(fig)


def test_mask_figure_shows_opposite_letters():
    fig = mask_conventions_figure([2], 3)
    left, right = ([t.get_text() for t in ax.texts if t.get_text() in "TF"] for ax in fig.axes)
    assert left == ["T", "T", "F"] and right == ["F", "F", "T"]
    plt.close(fig)


@pytest.mark.parametrize("call, error, word", [
    (lambda: embedding_lookup_figure(torch.tensor([1.0]), torch.randn(3, 2)), TypeError, "ids"),
    (lambda: embedding_lookup_figure(torch.tensor([3]), torch.randn(3, 2)), ValueError, "ids"),
    (lambda: embedding_lookup_figure(torch.tensor([-1]), torch.randn(3, 2)), ValueError, "ids"),
    (lambda: embedding_lookup_figure(torch.zeros(9, dtype=torch.long), torch.randn(3, 2)),
     ValueError, "ids"),
    (lambda: embedding_lookup_figure(torch.tensor([0]), torch.randn(3)), ValueError, "weight"),
    (lambda: embedding_lookup_figure(torch.tensor([0]), torch.ones(3, 2, dtype=torch.long)),
     TypeError, "weight"),
    (lambda: rnn_shapes_figure(0), ValueError, "seq_len"),
    (lambda: rnn_shapes_figure(2, 4), ValueError, "num_layers"),
    (lambda: rnn_shapes_figure(2.0), TypeError, "seq_len"),
    (lambda: rnn_shapes_figure(2, 1, 1), TypeError, "bidirectional"),
    (lambda: rnn_shapes_figure(2, 1, False, "yes"), TypeError, "batch_first"),
    (lambda: mask_conventions_figure([6], 5), ValueError, "lengths"),
    (lambda: mask_conventions_figure([], 5), ValueError, "lengths"),
    (lambda: mask_conventions_figure([1.5], 5), TypeError, "lengths"),
    (lambda: mask_conventions_figure(torch.tensor([1.0]), 5), TypeError, "lengths"),
    (lambda: mask_conventions_figure([1], 11), ValueError, "num_keys"),
])
def test_bad_arguments_are_refused(call, error, word):
    with pytest.raises(error, match=word):
        call()
