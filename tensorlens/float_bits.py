"""The model of floating-point bit patterns: encode a number into a format's bits, decode bits.

Pure Python (no torch), and the same arithmetic as ``widgets/static/float_bits.js``; both agree
with torch on every case of ``tests/test_float_bits.py`` and ``tests/js/fixtures/float_bits.json``.

Contract
--------
* ``FORMATS``: ``float32``, ``float16``, ``bfloat16``, ``float8_e4m3fn``, ``float8_e5m2``, each
  a :class:`Format` (exponent and mantissa widths, bias, whether it has ``inf``).
* ``encode(x, fmt)`` returns the bit pattern (an ``int``) that ``torch.tensor(x).to(dtype)``
  stores, on the CPU with torch 2.13: ``x`` (a Python float) is first rounded to ``float32``
  (``torch.tensor(x)``), then to the format, each time to the nearest value, ties to even. Past
  the largest finite value an IEEE-style format gives ``inf``; ``float8_e4m3fn`` has no ``inf``
  and saturates to +-448 (torch 2.13; older versions gave NaN). NaN becomes the pattern torch's
  scalar conversion gives (``QUIET_NAN``), with the sign of ``x``.
* ``decode(bits, fmt)`` returns a :class:`Decoded`: the three fields, the kind (``zero``,
  ``subnormal``, ``normal``, ``inf``, ``nan``), the value as a Python float (exact: every value
  of these formats is a float64) and ``spacing``, the gap to the next value of larger magnitude
  (``2 ** (exponent - mantissa_bits)``; at the largest finite value, the gap the next step
  would have; ``None`` for ``inf`` and NaN).
* ``parse_number(text)`` reads what a reader types: a decimal (``-6.25``, ``1e-8``, ``.5``),
  ``inf``/``infinity``/``nan`` with an optional sign, or a power of two ``2**-24`` (``-2**k``);
  anything else raises ``ValueError`` with the message the widget shows.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ["Format", "FORMATS", "QUIET_NAN", "Decoded", "encode", "decode", "parse_number",
           "bit_string", "explain"]


@dataclass(frozen=True)
class Format:
    name: str
    exponent_bits: int
    mantissa_bits: int
    has_inf: bool   # False: float8_e4m3fn, whose all-ones exponent holds numbers (and one NaN)

    @property
    def bits(self):
        return 1 + self.exponent_bits + self.mantissa_bits

    @property
    def bias(self):
        return 2 ** (self.exponent_bits - 1) - 1


FORMATS = {f.name: f for f in (
    Format("float32", 8, 23, True),
    Format("float16", 5, 10, True),
    Format("bfloat16", 8, 7, True),
    Format("float8_e4m3fn", 4, 3, False),
    Format("float8_e5m2", 5, 2, True),
)}

#: the bits torch 2.13 stores for ``torch.tensor(float("nan")).to(dtype)`` (CPU)
QUIET_NAN = {"float32": 0x7FC00000, "float16": 0x7E00, "bfloat16": 0x7FC0,
             "float8_e4m3fn": 0x7F, "float8_e5m2": 0x7F}


def _format(fmt):
    if isinstance(fmt, Format):
        return fmt
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(FORMATS)}, got {fmt!r}")
    return FORMATS[fmt]


def _max_finite(f):
    """(exponent field, mantissa field) of the largest finite value."""
    top = 2 ** f.exponent_bits - 1
    if f.has_inf:
        return top - 1, 2 ** f.mantissa_bits - 1
    return top, 2 ** f.mantissa_bits - 2          # e4m3fn: S.1111.111 is NaN


def _round(x, f):
    """Bits of the float ``x`` rounded straight to ``f`` (nearest, ties to even)."""
    sign = 1 if math.copysign(1.0, x) < 0 else 0
    top = sign << (f.bits - 1)
    m = f.mantissa_bits
    if math.isnan(x):
        return QUIET_NAN[f.name] | top
    max_exp, max_man = _max_finite(f)
    saturated = top | (max_exp << m) | max_man
    inf = top | ((2 ** f.exponent_bits - 1) << m)
    if math.isinf(x):
        return inf if f.has_inf else saturated
    a = abs(x)
    if a == 0:
        return top
    frac, e = math.frexp(a)                 # a = frac * 2**e, 0.5 <= frac < 1
    big, low = int(frac * 2 ** 53), e - 53  # a = big * 2**low, exactly
    emin = 1 - f.bias
    q = max(e - 1, emin) - m                # the quantum (value of one mantissa unit)
    if low >= q:
        n = big << (low - q)
    else:
        shift = q - low
        n, rest = big >> shift, big & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if rest > half or (rest == half and n & 1):
            n += 1
    if n == 0:
        return top
    if n < 2 ** m:                          # subnormal
        return top | n
    exp = q + m
    if n == 2 ** (m + 1):                   # rounded up into the next binade
        n, exp = 2 ** m, exp + 1
    field = exp + f.bias
    man = n - 2 ** m
    if field > max_exp or (field == max_exp and man > max_man):
        return inf if f.has_inf else saturated
    return top | (field << m) | man


def encode(x, fmt):
    """The bits ``torch.tensor(x).to(dtype)`` stores for ``x`` (see the module docstring).

    Parameters
    ----------
    x : float or int
    fmt : str or Format
        One of ``FORMATS``.

    Returns
    -------
    int
        The pattern, ``0 <= bits < 2 ** fmt.bits``.

    Examples
    --------
    >>> bit_string(encode(-6.25, "float16"), "float16")
    '1 10001 1001000000'
    >>> decode(encode(70000.0, "float8_e4m3fn"), "float8_e4m3fn").value
    448.0
    """
    f = _format(fmt)
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"x must be a float, not {type(x).__name__}")
    x = float(x)
    as_float32 = _decode_value(_round(x, FORMATS["float32"]), FORMATS["float32"])
    return _round(as_float32, f)


@dataclass(frozen=True)
class Decoded:
    sign: int
    exponent: int           # the stored field
    mantissa: int           # the stored field
    kind: str               # "zero", "subnormal", "normal", "inf" or "nan"
    value: float
    spacing: float | None   # gap to the next value of larger magnitude


def _decode_value(bits, f):
    m = f.mantissa_bits
    sign = -1.0 if bits >> (f.bits - 1) & 1 else 1.0
    exp = bits >> m & (2 ** f.exponent_bits - 1)
    man = bits & (2 ** m - 1)
    top = 2 ** f.exponent_bits - 1
    if exp == top and (f.has_inf or man == 2 ** m - 1):
        return math.copysign(math.inf if man == 0 and f.has_inf else math.nan, sign)
    if exp == 0:
        return sign * math.ldexp(man, 1 - f.bias - m)
    return sign * math.ldexp(2 ** m + man, exp - f.bias - m)


def decode(bits, fmt):
    """The fields, kind, value and spacing of the pattern ``bits`` in ``fmt``.

    Examples
    --------
    >>> d = decode(0b0_00000_0000000001, "float16")
    >>> d.kind, d.value == 2 ** -24, d.spacing == 2 ** -24
    ('subnormal', True, True)
    """
    f = _format(fmt)
    if isinstance(bits, bool) or not isinstance(bits, int):
        raise TypeError(f"bits must be an int, not {type(bits).__name__}")
    if not 0 <= bits < 2 ** f.bits:
        raise ValueError(f"bits must be in [0, 2**{f.bits}) for {f.name}, got {bits}")
    m = f.mantissa_bits
    sign = bits >> (f.bits - 1) & 1
    exp = bits >> m & (2 ** f.exponent_bits - 1)
    man = bits & (2 ** m - 1)
    value = _decode_value(bits, f)
    if math.isnan(value):
        kind = "nan"
    elif math.isinf(value):
        kind = "inf"
    elif exp == 0:
        kind = "zero" if man == 0 else "subnormal"
    else:
        kind = "normal"
    spacing = None if kind in ("nan", "inf") else math.ldexp(1.0, max(exp, 1) - f.bias - m)
    return Decoded(sign, exp, man, kind, value, spacing)


def bit_string(bits, fmt):
    """``'1 10001 1001000000'``: sign, exponent and mantissa fields, space-separated."""
    f = _format(fmt)
    text = format(bits, f"0{f.bits}b")
    return f"{text[0]} {text[1:1 + f.exponent_bits]} {text[1 + f.exponent_bits:]}"


_DECIMAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_POWER = re.compile(r"^([+-]?)2\s*\*\*\s*\(?\s*([+-]?\d+)\s*\)?$")
_SPECIAL = re.compile(r"^([+-]?)(inf|infinity|nan)$", re.I)


def parse_number(text):
    """A number as a reader types it (see the module docstring); ``parseNumber`` in the JS.

    Examples
    --------
    >>> parse_number(" -6.25 "), parse_number("2**-24") == 2 ** -24, parse_number("-inf")
    (-6.25, True, -inf)
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, not {type(text).__name__}")
    body = text.strip().replace("_", "")
    if not body:
        raise ValueError("empty: type a number such as 0.1, -6.25, 1e-8, 2**-24 or inf")
    if _DECIMAL.match(body):
        return float(body)
    if match := _POWER.match(body):
        k = int(match[2])
        value = math.inf if k >= 1024 else math.ldexp(1.0, k) if k > -1075 else 0.0
        return -value if match[1] == "-" else value
    if match := _SPECIAL.match(body):
        value = math.nan if match[2].lower() == "nan" else math.inf
        return -value if match[1] == "-" else value
    raise ValueError(f'"{text.strip()}" is not a number: try 0.1, -6.25, 1e-8, 2**-24 or inf')


def explain(x, fmt):
    """What the explorer shows for ``x`` stored in ``fmt``: a dict with ``bits``, ``kind``,
    ``value``, ``spacing``, ``error`` (``stored - x``; ``None`` unless both are finite) and
    ``overflow`` (``x`` lies past the largest finite value by half a step or more, so the format
    stores ``inf`` or, with no ``inf``, saturates; also for an infinite ``x`` in
    ``float8_e4m3fn``)."""
    f = _format(fmt)
    bits = encode(x, f)
    d = decode(bits, f)
    x = float(x)
    finite = math.isfinite(x) and math.isfinite(d.value)
    max_exp, max_man = _max_finite(f)
    biggest = decode((max_exp << f.mantissa_bits) | max_man, f)
    x32 = _decode_value(_round(x, FORMATS["float32"]), FORMATS["float32"])
    overflow = (not math.isnan(x)
                and abs(x32) >= biggest.value + biggest.spacing / 2
                and not (f.has_inf and math.isinf(x)))
    return {"bits": bits, "kind": d.kind, "value": d.value, "spacing": d.spacing,
            "error": d.value - x if finite else None, "overflow": overflow}
