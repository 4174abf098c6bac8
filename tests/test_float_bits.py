"""tensorlens.float_bits (the model) against torch (the oracle: bit patterns read with
``.view`` as integers, for every format, at every boundary), the fixtures the JS is tested on,
and the FloatBitsExplorer widget's Python side."""

import importlib.util
import json
import math
import random
import re
from pathlib import Path

import pytest
import torch

from tensorlens.float_bits import FORMATS, QUIET_NAN, bit_string, decode, encode, explain, parse_number
from tensorlens.widgets._esm import load_esm
from tensorlens.widgets.float_bits_explorer import FloatBitsExplorer
from widget_page import needs_chromium, widget_page

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


#: the explorer with its imports inlined, as the widget loads it (a data: URL module can import nothing)
EXPLORER_JS = load_esm("float_bits_explorer.js")

#: the explorer's own words, by the language of the page: the Chinese book declares lang="zh-CN"
FB_WORDS = {
    "en": {
        "title": "Float bits: sign, exponent, mantissa", "labels": ["format", "number"],
        "rows": ["layout", "stored", "formula", "rounding error", "spacing", "torch"],
        "groups": ["s", "exponent", "mantissa"], "kind": "(normal)",
        "layout": "1 sign + 5 exponent (bias 15) + 10 mantissa bits",
        "rounding": "0: the number is stored exactly",
        "spacing": "2**-8 = 0.00390625 to the next float16 of larger magnitude",
        "toolbar": "bits, sign first; arrows move, Space flips",
        "sign": "sign bit, 1 = negative: 1",
        "exponent": "exponent bit 1 of 5, worth 2**4 in the field: 1",
        "live": "float16 1 10001 1001000000 = -6.25, normal",
        "overflow": "Overflow: 65520 is past float16's largest finite value, 65504 (by half a step or more), "
                    "so it is stored as inf.",
        "saturates": "1000 is past float8_e4m3fn's largest value, 448: it has no inf, and torch 2.13 "
                     "saturates to 448 (older versions give NaN).",
        "subnormal": "(subnormal (exponent field 0: no leading 1, fixed spacing))",
        "error": 'number: "abc" is not a number: try 0.1, -6.25, 1e-8, 2**-24 or inf',
    },
    "zh-CN": {
        "title": "浮点位：符号位、指数、尾数", "labels": ["格式", "数值"],
        "rows": ["布局", "存储值", "公式", "舍入误差", "间隔", "torch"],
        "groups": ["符", "指数", "尾数"], "kind": "（正规数）",
        "layout": "1 位符号位 + 5 位指数（偏置 15）+ 10 位尾数",
        "rounding": "0：该数被精确存储",
        "spacing": "2**-8 = 0.00390625（到下一个绝对值更大的 float16 值）",
        "toolbar": "比特，符号位在前；方向键移动，空格键翻转",
        "sign": "符号位，1 表示负数，当前为 1",
        "exponent": "第 1 个指数位（共 5 个），在指数字段中的权重为 2**4，当前为 1",
        "live": "float16 1 10001 1001000000 = -6.25，是正规数",
        "overflow": "溢出：65520 超出了 float16 的最大有限值 65504（超出半个间隔或更多），所以存储为 inf。",
        "saturates": "1000 超出了 float8_e4m3fn 的最大值 448：这种格式没有 inf，"
                     "torch 2.13 会饱和到 448（更早的版本给出 NaN）。",
        "subnormal": "（次正规数：指数字段为 0，没有前导 1，间隔固定）",
        "error": "数值：“abc”不是一个数：试试 0.1、-6.25、1e-8、2**-24 或 inf",
    },
}

#: the widget's English words: none may show (as text or as a label) on a Chinese page (the torch
#: code, `.to(torch.float16)`, is the same on both)
ENGLISH = re.compile(r"\b(sign|exponent|mantissa|bits?|layout|stored|formula|rounding|spacing|number|"
                     r"normal|subnormal|zero|infinity|overflow|none|worth|negative|the|is|of)\b", re.I)

#: everything the widget says, shown or read out: its text, its labels and its live region
SAID = """root => [root.innerText, root.querySelector(".tl-fb-live").textContent,
    ...[...root.querySelectorAll("[aria-label]")].map((e) => e.getAttribute("aria-label"))].join("\\n")"""


@needs_chromium
@pytest.mark.parametrize("lang", FB_WORDS)
def test_float_bits_explorer_speaks_the_language_of_the_page(lang):
    words = FB_WORDS[lang]
    state = {"dtype": "float16", "text": "-6.25", "bits": encode(-6.25, "float16")}
    with widget_page(EXPLORER_JS, [state], lang, css=FloatBitsExplorer()._css) as (page, errors):
        root = page.locator(".tl-fb")
        text = root.locator("input.tl-fb-input")
        said = []      # everything the widget said, at every step

        def look():
            said.append(root.evaluate(SAID))

        assert root.locator(".tl-fb-title").inner_text() == words["title"]
        assert root.locator(".tl-fb-controls label").all_inner_texts() == words["labels"]
        assert root.locator(".tl-fb-readout dt").all_inner_texts() == words["rows"]
        assert root.locator(".tl-fb-group").all_inner_texts() == words["groups"]
        assert root.locator(".tl-fb-value").inner_text() == "-6.25"
        assert root.locator(".tl-fb-kind").inner_text() == words["kind"]
        assert root.locator(".tl-fb-layout").inner_text() == words["layout"]
        assert root.locator(".tl-fb-rounding").inner_text() == words["rounding"]
        assert root.locator(".tl-fb-spacing").inner_text() == words["spacing"]
        # the formula and the torch code are the same on both pages
        assert root.locator(".tl-fb-formula").inner_text() == "(-1)**1 × 2**(17 - 15) × (1 + 576/1024)"
        assert root.locator(".tl-fb-code").inner_text() == "torch.tensor(-6.25).to(torch.float16)"
        assert root.locator(".tl-fb-bits").get_attribute("aria-label") == words["toolbar"]
        assert root.locator("button.tl-fb-bit[data-index='0']").get_attribute("aria-label") == words["sign"]
        assert root.locator("button.tl-fb-bit[data-index='1']").get_attribute("aria-label") == words["exponent"]
        assert root.locator(".tl-fb-live").text_content() == words["live"]
        look()
        text.fill("65520")
        assert root.get_attribute("data-kind") == "inf"
        assert root.locator(".tl-fb-note").inner_text() == words["overflow"]
        look()
        text.fill("2**-24")
        assert root.locator(".tl-fb-kind").inner_text() == words["subnormal"]
        look()
        text.fill("nan")
        look()
        text.fill("-0")
        look()
        root.locator("select.tl-fb-format").select_option("float8_e4m3fn")
        text.fill("1000")
        assert root.locator(".tl-fb-value").inner_text() == "448"
        assert root.locator(".tl-fb-note").inner_text() == words["saturates"]
        look()
        root.locator("button.tl-fb-bit[data-index='7']").click()     # the pattern above 448: NaN
        assert root.get_attribute("data-kind") == "nan"
        look()
        root.locator("select.tl-fb-format").select_option("float8_e5m2")
        look()
        text.fill("abc")
        assert root.get_attribute("data-state") == "invalid"
        assert root.locator(".tl-fb-error").inner_text() == words["error"]
        assert root.locator(".tl-fb-live").text_content() == words["error"]
        look()
        if lang == "en":
            assert root.locator(".tl-fb-group").all_inner_texts() == ["s", "exponent", "man"]  # 2 bits: short
        else:
            assert root.locator(".tl-fb-group").all_inner_texts() == words["groups"]
            # the Chinese labels fit above their bits, even the two mantissa bits of e5m2
            assert root.locator(".tl-fb-group span").evaluate_all(
                "spans => spans.filter((s) => s.parentElement.scrollWidth > s.parentElement.clientWidth + 1)"
                ".map((s) => s.textContent)") == []
            stray = sorted({w.lower() for step in said for w in ENGLISH.findall(step)})
            assert stray == [], stray
        assert errors == []
