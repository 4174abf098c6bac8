"""tensorlens.float_bits (the model) against torch (the oracle: bit patterns read with
``.view`` as integers, for every format, at every boundary), the fixtures the JS is tested on,
and the FloatBitsExplorer widget's Python side."""

import importlib.util
import json
import math
import random
from pathlib import Path

import pytest
import torch

from tensorlens.float_bits import FORMATS, QUIET_NAN, bit_string, decode, encode, explain, parse_number
from tensorlens.widgets.float_bits_explorer import FloatBitsExplorer

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "js" / "fixtures" / "float_bits.json"
DTYPES = {name: getattr(torch, name) for name in FORMATS}
INT_OF = {4: torch.int32, 2: torch.int16, 1: torch.uint8}


def _script():
    spec = importlib.util.spec_from_file_location("make_float_bits_fixtures",
                                                  ROOT / "scripts" / "make_float_bits_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _same(a, b):
    """Equal floats, NaN equal to NaN, and -0.0 apart from 0.0."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def test_fixtures_are_up_to_date():
    script = _script()
    assert FIXTURES.read_text() == script.render(script.build()), (
        "run: python scripts/make_float_bits_fixtures.py")


def test_the_formats_match_torch_finfo():
    for name, dtype in DTYPES.items():
        f, info = FORMATS[name], torch.finfo(dtype)
        assert f.bits == info.bits
        one = decode(encode(1.0, name), name)
        assert one.value == 1.0 and one.spacing == info.eps
        assert decode(encode(info.max, name), name).value == info.max
        assert decode(encode(info.smallest_normal, name), name).kind == "normal"
        assert decode(1, name).value == info.smallest_normal * info.eps    # smallest subnormal
        assert decode(1, name).kind == "subnormal"


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2"])
def test_decode_agrees_with_torch_on_every_pattern(name):
    dtype = DTYPES[name]
    n = 8 * dtype.itemsize
    patterns = torch.arange(2 ** n, dtype=torch.int64)
    if n == 16:
        patterns = patterns.to(torch.int32).to(torch.int16)    # wraps to the signed patterns
    values = patterns.to(INT_OF[dtype.itemsize]).view(dtype).double().tolist()
    smallest_normal = torch.finfo(dtype).smallest_normal
    for p, v in enumerate(values):
        d = decode(p, name)
        assert _same(d.value, v), (name, p)
        kind = ("nan" if math.isnan(v) else "inf" if math.isinf(v) else "zero" if v == 0
                else "subnormal" if abs(v) < smallest_normal else "normal")
        assert d.kind == kind, (name, p)


def test_decode_float32_boundaries_and_random_patterns():
    rng = random.Random(0)
    patterns = [0, 1, 2, 0x007FFFFF, 0x00800000, 0x3F800000, 0x7F7FFFFF, 0x7F800000,
                0x7F800001, 0x7FC00000, 0x7FFFFFFF, 0x80000000, 0xFF800000, 0xFFFFFFFF]
    patterns += [rng.randrange(2 ** 32) for _ in range(5000)]
    signed = torch.tensor([p - 2 ** 32 if p >= 2 ** 31 else p for p in patterns], dtype=torch.int32)
    for p, v in zip(patterns, signed.view(torch.float32).double().tolist()):
        assert _same(decode(p, "float32").value, v), hex(p)


def _torch_bits(values, dtype):
    t = torch.tensor(values).to(dtype)
    size = t.element_size()
    return [b & ((1 << 8 * size) - 1) for b in t.view(INT_OF[size]).tolist()]


@pytest.mark.parametrize("name", list(FORMATS))
def test_encode_agrees_with_torch_at_the_boundaries(name):
    """0, -0, subnormals and their halves, the smallest normal, max, the overflow threshold, ties
    between neighbours (rounded to even), inf and NaN, and random numbers of every magnitude."""
    dtype = DTYPES[name]
    info = torch.finfo(dtype)
    sub = info.smallest_normal * info.eps
    values = [0.0, -0.0, sub, -sub, sub / 2, sub * 0.5000001, sub * 0.75, sub * 1.5, sub * 2.5,
              info.smallest_normal, info.smallest_normal - sub, info.max, -info.max,
              info.max * (1 + info.eps / 2), info.max * (1 + info.eps / 2.0001),
              info.max * (1 + info.eps / 4), info.max * 2, 3.5e38, 1e39, math.inf, -math.inf]
    rng = random.Random(1)
    n = 8 * dtype.itemsize
    patterns = [rng.randrange(2 ** (n - 1) - 2) for _ in range(300)]
    neighbours = [decode(p, name).value for p in patterns] + [decode(p + 1, name).value for p in patterns]
    values += [(a + b) / 2 for a, b in zip(neighbours[:300], neighbours[300:])
               if math.isfinite(a) and math.isfinite(b)]
    values += [math.copysign(10 ** rng.uniform(-46, 39), rng.choice([1, -1])) for _ in range(2000)]
    for x, expected in zip(values, _torch_bits(values, dtype)):
        assert encode(x, name) == expected, (name, x)
    # NaN: the scalar conversion's pattern, and the sign of x
    nan = torch.tensor(math.nan).to(dtype).view(INT_OF[dtype.itemsize]).item() & ((1 << n) - 1)
    assert encode(math.nan, name) == QUIET_NAN[name] == nan
    assert decode(encode(-math.nan, name), name).kind == "nan"


def test_encode_rounds_to_float32_first_as_torch_tensor_does():
    x = 1 + 2 ** -11 + 2 ** -30        # above float16's midpoint, but a tie once in float32
    assert torch.tensor(x).to(torch.float16).item() == 1.0
    assert encode(x, "float16") == encode(1.0, "float16")


def test_overflow_and_saturation():
    assert explain(65520.0, "float16")["overflow"] and explain(65520.0, "float16")["value"] == math.inf
    assert not explain(65519.0, "float16")["overflow"]
    e4 = explain(70000.0, "float8_e4m3fn")
    assert e4["overflow"] and e4["value"] == 448.0 == torch.tensor(70000.0).to(torch.float8_e4m3fn).item()
    assert explain(-math.inf, "float8_e4m3fn")["value"] == -448.0
    assert not explain(math.inf, "float16")["overflow"]
    assert explain(0.1, "float16")["error"] == torch.tensor(0.1).half().item() - 0.1


def test_spacing_is_the_gap_to_the_next_value():
    for name, dtype in DTYPES.items():
        n = 8 * dtype.itemsize
        for p in [0, 1, 5, 2 ** (n - 2), 2 ** (n - 1) + 7]:
            here, up = decode(p, name), decode(p + 1, name)
            assert up.value - here.value == math.copysign(here.spacing, here.value or 1.0)
    # ... and what torch.nextafter says, where it works
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        x = torch.tensor([1.0, 3.0, 1000.0, 1e-6], dtype=dtype)
        gaps = (torch.nextafter(x, torch.full_like(x, math.inf)) - x).double().tolist()
        name = str(dtype).split(".")[1]
        assert gaps == [decode(encode(v, name), name).spacing for v in x.double().tolist()]


@pytest.mark.parametrize("entry", json.loads(FIXTURES.read_text())["parse"], ids=lambda e: repr(e["text"]))
def test_parse_number(entry):
    if entry["value"] is None:
        with pytest.raises(ValueError):
            parse_number(entry["text"])
    else:
        assert _same(parse_number(entry["text"]), float(entry["value"]))


def test_the_fixtures_agree_with_the_model():
    data = json.loads(FIXTURES.read_text())
    for case in data["encode"]:
        assert encode(float(case["x"]), case["format"]) == case["bits"], case
    for case in data["decode"]:
        d = decode(case["bits"], case["format"])
        assert _same(d.value, float(case["value"])) and d.kind == case["kind"], case
        assert d.spacing == (None if case["spacing"] is None else float(case["spacing"])), case


def test_widget_state_and_repr():
    w = FloatBitsExplorer(0.1, torch.float16)
    assert (w.dtype, w.text, w.bits) == ("float16", "0.1", 0b0_01011_1001100110)
    assert repr(w) == "FloatBitsExplorer(float16: 0.1 -> 0 01011 1001100110 = 0.0999755859375, normal)"
    assert w.value == torch.tensor(0.1).half().item()
    # What the browser writes when the reader clicks the lowest exponent bit:
    w.bits, w.text = w.bits ^ (1 << 10), "0.0499877929688"
    assert w.decoded().exponent == 10
    w.text = "oops"
    assert repr(w).startswith("FloatBitsExplorer(float16: 'oops' (not a number) -> ")
    assert bit_string(encode(-6.25, "bfloat16"), "bfloat16") == "1 10000001 1001000"
    assert repr(FloatBitsExplorer(torch.tensor(70000.0), "float8_e4m3fn")) == (
        "FloatBitsExplorer(float8_e4m3fn: 70000.0 -> 0 1111 110 = 448.0, normal)")


@pytest.mark.parametrize("args, error, match", [
    (("x",), TypeError, "value must be a number"),
    ((True,), TypeError, "value must be a number"),
    ((torch.ones(2),), ValueError, "one-element tensor"),
    ((1.0, "float64"), ValueError, "dtype must be one of float32, float16"),
    ((1.0, torch.int8), ValueError, "dtype must be one of"),
])
def test_bad_arguments_name_the_argument(args, error, match):
    with pytest.raises(error, match=match):
        FloatBitsExplorer(*args)


def test_widget_payload_is_self_contained():
    w = FloatBitsExplorer()
    assert {"dtype", "text", "bits"} <= set(w.keys)
    assert "function parseNumber" in w._esm and 'from "./' not in w._esm
    assert ".tl-fb-bit" in w._css
