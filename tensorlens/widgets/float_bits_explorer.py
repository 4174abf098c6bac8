"""``FloatBitsExplorer``: a number's sign, exponent and mantissa bits in a float format.

Contract
--------
* ``FloatBitsExplorer(value=-6.25, dtype="float16")``: ``value`` a Python number (or a
  one-element tensor), ``dtype`` one of :data:`tensorlens.float_bits.FORMATS` or the matching
  ``torch.dtype``. Bad arguments raise ``TypeError`` / ``ValueError`` naming the argument.
* All state is in synced traits: ``dtype`` (the format's name), ``text`` (the number as the
  reader typed it, or the value of bits they clicked) and ``bits`` (the stored pattern). The
  JavaScript (``static/float_bits_explorer.js`` with ``static/float_bits.js``) encodes and
  decodes itself, so the bits and the input work in the static book with no kernel.
* Python is the source of truth in notebooks and tests: ``decoded()`` is
  :func:`tensorlens.float_bits.decode` of the bits, ``value`` the stored value, and ``repr`` is
  deterministic text: ``FloatBitsExplorer(float16: 0.1 -> 0 01011 1001100110 =
  0.0999755859375, normal)``.
"""

from __future__ import annotations

import anywidget
import traitlets

from ._esm import frame_css, load_css, load_esm
from ..float_bits import FORMATS, bit_string, decode, encode, parse_number

__all__ = ["FloatBitsExplorer"]


def _format_name(dtype):
    name = str(dtype).replace("torch.", "") if not isinstance(dtype, str) else dtype
    if name not in FORMATS:
        raise ValueError(f"dtype must be one of {', '.join(FORMATS)}, got {dtype!r}")
    return name


def _text_of(value):
    if hasattr(value, "item") and hasattr(value, "numel"):    # a tensor
        if value.numel() != 1:
            raise ValueError(f"value must be a number or a one-element tensor, got {value.numel()} elements")
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"value must be a number, not {type(value).__name__}")
    return repr(float(value))


class FloatBitsExplorer(anywidget.AnyWidget):
    """One button per bit, coloured by field; the stored value, rounding error and spacing.

    Parameters
    ----------
    value : float, int or one-element tensor
        The number to store (rounded as ``torch.tensor(value).to(dtype)`` does).
    dtype : str or torch.dtype
        ``float32``, ``float16``, ``bfloat16``, ``float8_e4m3fn`` or ``float8_e5m2``.

    Examples
    --------
    >>> FloatBitsExplorer(0.1, "float16")
    FloatBitsExplorer(float16: 0.1 -> 0 01011 1001100110 = 0.0999755859375, normal)
    """

    _esm = load_esm("float_bits_explorer.js")
    _css = frame_css(".tl-fb") + "\n" + load_css("float_bits_explorer.css")

    dtype = traitlets.Unicode("float16").tag(sync=True)
    text = traitlets.Unicode("").tag(sync=True)
    bits = traitlets.Int(0).tag(sync=True)

    def __init__(self, value=-6.25, dtype="float16", **kwargs):
        name = _format_name(dtype)
        text = _text_of(value)
        super().__init__(dtype=name, text=text, bits=encode(float(text), name), **kwargs)

    def decoded(self):
        """:func:`tensorlens.float_bits.decode` of the current bits."""
        return decode(self.bits, _format_name(self.dtype))

    @property
    def value(self):
        """The stored value (a float: every value of these formats is a float64)."""
        return self.decoded().value

    def __repr__(self):
        try:
            name = _format_name(self.dtype)
            d = decode(self.bits, name)
        except (TypeError, ValueError) as error:
            return f"FloatBitsExplorer(invalid: {error})"
        try:
            parse_number(self.text)
            typed = self.text.strip()
        except ValueError:
            typed = f"{self.text.strip()!r} (not a number)"
        return f"FloatBitsExplorer({name}: {typed} -> {bit_string(self.bits, name)} = {d.value!r}, {d.kind})"
