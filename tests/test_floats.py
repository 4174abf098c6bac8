"""tensorlens.figures.floats: the bits it draws are torch's, and both figures build."""

import struct

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from tensorlens.figures.floats import bit_layout_figure, bits_of, spacing_figure  # noqa: E402


@pytest.mark.parametrize("value", [-6.25, 1.0, 0.1, 65504.0, 3.0e-5])
def test_bits_match_the_ieee_encoding(value):
    assert bits_of(value, torch.float32) == format(struct.unpack(">I", struct.pack(">f", value))[0], "032b")
    assert bits_of(value, torch.float16) == format(struct.unpack(">H", struct.pack(">e", value))[0], "016b")


def test_bfloat16_keeps_float32s_sign_and_exponent():
    for value in (-6.25, 1.0, 3.0e38, 1e-30):
        assert bits_of(value, torch.bfloat16)[:9] == bits_of(value, torch.float32)[:9]


def test_figures_build():
    for fig in (bit_layout_figure(), spacing_figure()):
        assert fig.axes
        plt.close(fig)
