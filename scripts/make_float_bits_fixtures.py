"""Write tests/js/fixtures/float_bits.json: float bit patterns answered by torch.

The JS (tensorlens/widgets/static/float_bits.js) is tested against this file and the Python
model (tensorlens/float_bits.py) against torch directly (tests/test_float_bits.py), so every
expected value here comes from torch itself:

- ``encode``: a number (as Python's repr), the bits ``torch.tensor(x).to(dtype)`` stores
  (read with ``.view`` as an integer dtype) and the value they hold, for boundaries (0, -0,
  subnormals, the largest finite value, overflow, ties, inf, NaN) and seeded random numbers;
- ``decode``: a pattern, the value torch reads from it, its kind and the gap to its neighbour
  of larger magnitude (all 256 float8 patterns, boundaries and random patterns of the others);
- ``parse``: text a reader may type and the number it means (or null: rejected).

Run ``python scripts/make_float_bits_fixtures.py`` after changing the cases; the test
``tests/test_float_bits.py`` fails when the file is out of date.
"""

import json
import math
import random
from pathlib import Path

import torch

OUT = Path(__file__).resolve().parents[1] / "tests" / "js" / "fixtures" / "float_bits.json"

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "float8_e4m3fn": torch.float8_e4m3fn, "float8_e5m2": torch.float8_e5m2}
INT_OF = {4: torch.int32, 2: torch.int16, 1: torch.uint8}

PARSE_CASES = [
    ("0.1", 0.1), ("-6.25", -6.25), ("  1e-8 ", 1e-8), (".5", 0.5), ("5.", 5.0), ("+3", 3.0),
    ("1E3", 1000.0), ("65_504", 65504.0), ("-0", -0.0), ("inf", math.inf), ("-Infinity", -math.inf),
    ("nan", math.nan), ("NaN", math.nan), ("2**-24", 2.0 ** -24), ("2 ** 10", 1024.0),
    ("-2**(-14)", -(2.0 ** -14)), ("2**1024", math.inf), ("2**-1075", 0.0), ("1e400", math.inf),
    ("", None), ("   ", None), ("abc", None), ("1,5", None), ("0x10", None), ("1e", None),
    ("--1", None), ("3**2", None), ("1/3", None), ("2**", None),
]


def bits_of(values, dtype):
    """torch's bits for ``torch.tensor(values).to(dtype)`` (values rounded to float32 first)."""
    t = torch.tensor(values).to(dtype)
    size = t.element_size()
    return [b & ((1 << 8 * size) - 1) for b in t.view(INT_OF[size]).tolist()]


def value_of(patterns, dtype):
    """The values torch reads from bit patterns of ``dtype``, as Python floats."""
    size = torch.empty((), dtype=dtype).element_size()
    signed = [p - (1 << 8 * size) if size > 1 and p >= 1 << (8 * size - 1) else p for p in patterns]
    return torch.tensor(signed, dtype=INT_OF[size]).view(dtype).double().tolist()


def interesting_values(name, rng):
    dtype = DTYPES[name]
    info = torch.finfo(dtype)
    tiny_sub = info.smallest_normal * info.eps     # 2**(emin - mantissa bits)
    values = [0.0, -0.0, 1.0, -1.0, 0.1, -6.25, 1 / 3, math.pi, 2048.0, 2049.0, 256.0, 257.0,
              65504.0, 65519.0, 65520.0, 70000.0, 448.0, 464.0, 465.0, 480.0, 57344.0, 61439.0,
              61440.0, 1e-8, 3e-8, 4e-8, 1e-40, 1e-45, 1e39, 3.4028235e38, 3.5e38,
              1 + 2 ** -11 + 2 ** -30, 1 + 2 ** -8 + 2 ** -20, math.inf, -math.inf, math.nan,
              info.max, -info.max, info.smallest_normal, tiny_sub, tiny_sub / 2, tiny_sub * 0.75,
              tiny_sub * 1.5, tiny_sub * 2.5, info.smallest_normal - tiny_sub,
              info.max * (1 + info.eps / 2), info.max * (1 + info.eps / 4), 1 + info.eps / 2,
              1 + info.eps * 1.5]
    patterns = [rng.randrange(2 ** (8 * torch.empty((), dtype=dtype).element_size()))
                for _ in range(40)]
    finite = [v for v in value_of(patterns, dtype) if math.isfinite(v)]
    values += finite
    # Midpoints between neighbours: the ties, rounded to even.
    for p in patterns[:20]:
        a, b = value_of([p, p + 1 if p + 1 < 2 ** (8 * torch.empty((), dtype=dtype).element_size()) else p], dtype)
        if math.isfinite(a) and math.isfinite(b):
            values.append((a + b) / 2)
    values += [math.copysign(10 ** rng.uniform(-46, 40), rng.choice([1, -1])) for _ in range(30)]
    return values


def encode_cases(rng):
    cases = []
    for name, dtype in DTYPES.items():
        values = interesting_values(name, rng)
        bits = bits_of(values, dtype)
        nan = bits_of([math.nan], dtype)[0]
        scalar_nan = torch.tensor(math.nan).to(dtype).view(INT_OF[dtype.itemsize]).item()
        for x, b in zip(values, bits):
            if math.isnan(x):
                # the vector path may differ from the scalar one (bfloat16); use the scalar one
                b = scalar_nan & ((1 << 8 * dtype.itemsize) - 1)
            cases.append({"format": name, "x": repr(x), "bits": b,
                          "value": repr(value_of([b], dtype)[0])})
        assert nan is not None
    return cases


def decode_cases(rng):
    cases = []
    for name, dtype in DTYPES.items():
        size = dtype.itemsize
        n = 8 * size
        if size == 1:
            patterns = list(range(256))
        else:
            info = torch.finfo(dtype)
            special = bits_of([0.0, -0.0, 1.0, info.max, -info.max, info.smallest_normal,
                               info.smallest_normal * info.eps, math.inf, -math.inf], dtype)
            patterns = special + [rng.randrange(2 ** n) for _ in range(150)]
            patterns += [(1 << (n - 1)) - 1, (1 << n) - 1]          # NaNs with all ones
        half = 1 << (n - 1)
        values = value_of(patterns, dtype)
        for p, v in zip(patterns, values):
            magnitude = p % half
            if math.isnan(v):
                kind, spacing = "nan", None
            elif math.isinf(v):
                kind, spacing = "inf", None
            else:
                kind = ("zero" if v == 0 else
                        "subnormal" if abs(v) < torch.finfo(dtype).smallest_normal else "normal")
                up = value_of([magnitude + 1], dtype)[0] if magnitude + 1 < half else math.nan
                if math.isfinite(up):
                    spacing = up - abs(v)
                else:                                       # the largest finite value
                    spacing = abs(v) - value_of([magnitude - 1], dtype)[0]
            cases.append({"format": name, "bits": p, "value": repr(v), "kind": kind,
                          "spacing": None if spacing is None else repr(spacing)})
    return cases


def build():
    rng = random.Random(20261201)
    for text, value in PARSE_CASES:           # where Python reads the text, it agrees
        if value is not None and "**" not in text and "_" not in text:
            assert math.isnan(value) or float(text) == value, text
    return {
        "about": "Made by scripts/make_float_bits_fixtures.py from torch "
                 f"{torch.__version__.split('+')[0]}; do not edit by hand.",
        "encode": encode_cases(rng),
        "decode": decode_cases(rng),
        "parse": [{"text": t, "value": None if v is None else repr(v)} for t, v in PARSE_CASES],
    }


def render(data):
    """JSON with one case per line: small diffs, readable in review."""
    lines = ["{", f' "about": {json.dumps(data["about"])},']
    keys = ["encode", "decode", "parse"]
    for key in keys:
        lines.append(f' "{key}": [')
        lines.append(",\n".join(f"  {json.dumps(item)}" for item in data[key]))
        lines.append(" ]," if key != keys[-1] else " ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(render(build()))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
