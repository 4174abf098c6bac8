"""Figures for chapter 8's floating-point page: bit layouts and the spacing staircase.

Both return a matplotlib ``Figure`` (the caller displays and closes it). They read everything
they draw from torch (``finfo``, the bits of real values), so the pictures cannot drift from
what the formats do.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import torch
from matplotlib.patches import Rectangle

# (dtype, exponent bits, mantissa bits); the sign is one bit in each
_LAYOUTS = ((torch.float32, 8, 23), (torch.float16, 5, 10), (torch.bfloat16, 8, 7))
_COLORS = {"sign": "#e4572e", "exponent": "#4c9be8", "mantissa": "#8cc084"}
_INT_OF = {4: torch.int32, 2: torch.int16}


def bits_of(value: float, dtype: torch.dtype) -> str:
    """The bits of ``value`` stored as ``dtype``, most significant first, as a '0'/'1' string."""
    t = torch.tensor([value], dtype=dtype)
    n = t.element_size() * 8
    raw = t.view(_INT_OF[t.element_size()]).item() & ((1 << n) - 1)
    return format(raw, f"0{n}b")


def bit_layout_figure(value: float = -6.25):
    """One row per format (float32, float16, bfloat16): a box per bit, coloured by field
    (sign, exponent, mantissa), each box holding the bit of ``value`` in that format."""
    fig, ax = plt.subplots(figsize=(10, 2.9))
    for row, (dtype, exp_bits, man_bits) in enumerate(_LAYOUTS):
        y = 2 - row
        bits = bits_of(value, dtype)
        fields = ["sign"] + ["exponent"] * exp_bits + ["mantissa"] * man_bits
        for i, (bit, field) in enumerate(zip(bits, fields)):
            ax.add_patch(Rectangle((i, y), 1, 0.8, facecolor=_COLORS[field],
                                   edgecolor="white"))
            ax.text(i + 0.5, y + 0.4, bit, ha="center", va="center", fontsize=8)
        name = str(dtype).replace("torch.", "")
        ax.text(-0.5, y + 0.4, name, ha="right", va="center", fontsize=10)
        ax.text(len(bits) + 0.5, y + 0.4, f"1 + {exp_bits} + {man_bits} bits",
                ha="left", va="center", fontsize=9)
    for k, (field, color) in enumerate(_COLORS.items()):
        ax.add_patch(Rectangle((k * 8, -0.9), 0.8, 0.5, facecolor=color))
        ax.text(k * 8 + 1.1, -0.65, field, va="center", fontsize=9)
    ax.set_title(f"{value} in three formats", fontsize=10)
    ax.set_xlim(-7, 40)
    ax.set_ylim(-1.1, 3)
    ax.axis("off")
    return fig


def spacing_figure():
    """Gap to the next representable value against the value, log-log, for bfloat16, float16
    and float32: three staircases. A dashed line marks float16's maximum, a dotted one a gap
    of 2 (from there on, adding 1 is no longer exact)."""
    values = torch.logspace(-3, 6, 400, dtype=torch.float64)
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for dtype in (torch.bfloat16, torch.float16, torch.float32):
        v = values[values <= torch.finfo(dtype).max].to(dtype)
        up = torch.nextafter(v, torch.tensor(float("inf"), dtype=dtype))
        ax.loglog(v.double(), (up - v).double(), drawstyle="steps-post",
                  label=str(dtype).replace("torch.", ""))
    f16_max = torch.finfo(torch.float16).max
    ax.axhline(2.0, ls=":", color="gray")
    ax.axvline(f16_max, ls="--", color="gray", lw=0.8)
    ax.text(f16_max * 0.8, 1e-9, "float16 max", ha="right", fontsize=8)
    ax.set_xlabel("value")
    ax.set_ylabel("gap to the next representable value")
    ax.legend()
    return fig
