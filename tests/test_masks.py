"""tensorlens.masks (the model) against torch, the fixtures the JS is tested on, and the
MaskExplorer widget's Python side."""

import importlib.util
import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from tensorlens.masks import MAX_BATCH, MAX_LEN, build_masks, parse_lengths
from tensorlens.widgets._esm import load_esm
from tensorlens.widgets.mask_explorer import MaskExplorer
from widget_page import needs_chromium, widget_page

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "js" / "fixtures" / "masks.json"


def _script():
    spec = importlib.util.spec_from_file_location("make_mask_fixtures",
                                                  ROOT / "scripts" / "make_mask_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fixtures_are_up_to_date():
    script = _script()
    assert FIXTURES.read_text() == script.render(script.build()), (
        "run: python scripts/make_mask_fixtures.py")


@pytest.mark.parametrize("case", json.loads(FIXTURES.read_text())["cases"],
                         ids=lambda c: f"{c['lengths']}-L{c['L']}-{c['causal']}-{c['convention']}")
def test_the_model_agrees_with_torch(case):
    m = build_masks(case["lengths"], case["L"], case["causal"], case["convention"])
    assert m.padding == case["padding"]
    assert m.causal == case["causal_mask"]
    assert m.combined == case["combined"]
    assert list(m.shapes["combined"]) == case["shape"]
    assert m.allowed == case["allowed"]
    assert [list(r) for r in m.fully_masked] == case["fully_masked"]
    assert m.code == case["code"]


def test_sdpa_and_multihead_attention_take_the_masks_as_drawn():
    """The sdpa mask gives sdpa the manual result; the mha masks give MultiheadAttention zero
    weight on every masked key and NaN exactly on the fully masked rows."""
    torch.manual_seed(0)
    lengths, L, d = [4, 0, 3], 4, 8
    q = torch.randn(3, L, d)
    keep = torch.tensor(build_masks(lengths, L, True, "sdpa").combined)      # [3, 1, 4, 4]
    scores = (q @ q.mT / math.sqrt(d))[:, None]
    manual = scores.masked_fill(~keep, float("-inf")).softmax(dim=-1)
    rows = {(b, i) for b, i in build_masks(lengths, L, True, "sdpa").fully_masked}
    assert {(b, i) for b, _, i in manual.isnan().all(dim=-1).nonzero().tolist()} == rows
    sdpa = F.scaled_dot_product_attention(q[:, None], q[:, None], q[:, None], attn_mask=keep)
    ok = torch.tensor(lengths) > 0
    assert torch.allclose(sdpa[ok], (manual @ q[:, None])[ok], atol=1e-6)
    m = build_masks(lengths, L, True, "mha")
    mha = nn.MultiheadAttention(d, 1, batch_first=True)
    _, w = mha(q, q, q, key_padding_mask=torch.tensor(m.padding),
               attn_mask=torch.tensor(m.causal))
    ignored = torch.tensor(m.combined)[:, 0]
    assert {tuple(ix) for ix in w.isnan().all(dim=-1).nonzero().tolist()} == rows
    assert torch.all(w[~w.isnan()][ignored[~w.isnan()]] == 0)


def test_no_causal_mask_broadcasts_over_the_queries():
    m = build_masks([2, 1], 3, causal=False)
    assert m.shapes == {"padding": (2, 3), "causal": None, "combined": (2, 1, 1, 3)}
    scores = torch.zeros(2, 1, 3, 3)
    assert scores.masked_fill(~torch.tensor(m.combined), 0.0).shape == (2, 1, 3, 3)


@pytest.mark.parametrize("entry", json.loads(FIXTURES.read_text())["parse"],
                         ids=lambda e: repr(e["text"]))
def test_parse_lengths(entry):
    if entry["lengths"] is None:
        with pytest.raises(ValueError):
            parse_lengths(entry["text"])
    else:
        assert parse_lengths(entry["text"]) == tuple(entry["lengths"])
        if entry["text"].startswith("torch.tensor"):
            assert eval(entry["text"]).tolist() == entry["lengths"]  # noqa: S307


@pytest.mark.parametrize("args, kwargs, error, match", [
    (("4, 2",), {}, TypeError, r"lengths must be a list"),
    (([4, 2.0],), {}, TypeError, r"lengths\[1\] must be an int, not float"),
    (([4, -1],), {}, ValueError, r"lengths\[1\] is -1"),
    (([5, 2], 4), {}, ValueError, r"lengths\[0\] is 5, longer than L = 4"),
    (([],), {}, ValueError, r"lengths: give 1 to 6"),
    (([1] * (MAX_BATCH + 1),), {}, ValueError, r"give 1 to 6 sequences, got 7"),
    (([1], MAX_LEN + 1), {}, ValueError, r"L must be between 1 and 12"),
    (([1], 2.5), {}, TypeError, r"L must be an int"),
    (([1],), {"causal": 1}, TypeError, r"causal must be True or False"),
    (([1],), {"convention": "torch"}, ValueError, r"convention must be 'sdpa' or 'mha'"),
    ((torch.tensor([[1]]),), {}, ValueError, r"lengths must be 1-d"),
    ((torch.tensor([1.0]),), {}, TypeError, r"lengths must hold integers"),
])
def test_bad_arguments_name_the_argument(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        MaskExplorer(*args, **kwargs)


def test_widget_state_repr_and_edits():
    w = MaskExplorer(torch.tensor([4, 2, 3]))
    assert (w.lengths, w.seq_len, w.causal, w.convention) == ("4, 2, 3", "4", True, "sdpa")
    assert repr(w) == ("MaskExplorer(lengths=[4, 2, 3], L=4, causal, sdpa: True = takes part) "
                       "-> (3, 1, 4, 4), no fully masked row")
    # What the browser writes when the reader edits: the repr and masks() follow the traits.
    w.lengths = "4, 0, 3"
    assert w.masks().fully_masked == [(1, i) for i in range(4)]
    assert repr(w).endswith("-> (3, 1, 4, 4), 4 fully masked rows (NaN)")
    w.causal, w.convention = False, "mha"
    assert repr(w) == ("MaskExplorer(lengths=[4, 0, 3], L=4, not causal, mha: True = ignored) "
                       "-> (3, 1, 1, 4), 1 fully masked row (NaN)")
    w.lengths = "4, x"
    assert repr(w) == ("MaskExplorer(lengths='4, x', L='4', not causal, mha: True = ignored) "
                       "-> invalid: lengths: \"x\" is not a length")
    w.lengths, w.seq_len = "4, 2", "3"
    with pytest.raises(ValueError, match="lengths\\[0\\] is 4, longer than L = 3"):
        w.masks()
    w.seq_len = "three"
    assert repr(w).endswith("invalid: L: \"three\" is not a whole number (the padded length)")


def test_widget_payload_is_self_contained():
    w = MaskExplorer([2, 1])
    bundle = w._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    assert data["text/plain"] == repr(w)
    assert {"lengths", "seq_len", "causal", "convention"} <= set(w.keys)
    assert "function buildMasks" in w._esm and 'from "./' not in w._esm
    assert ".tl-mx-cell" in w._css and ".tl-mx" in w._css.split("/* mask_explorer.css")[0]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_bundled_modules_load_in_node(tmp_path):
    from tensorlens.widgets.float_bits_explorer import FloatBitsExplorer

    for i, widget in enumerate((MaskExplorer([1]), FloatBitsExplorer())):
        (tmp_path / f"w{i}.mjs").write_text(widget._esm)
    out = subprocess.run(
        ["node", "--input-type=module", "-e",
         "for (const f of ['w0.mjs', 'w1.mjs']) {"
         f" const m = await import({json.dumps((tmp_path).as_uri())} + '/' + f);"
         " console.log(typeof m.default.render); }"],
        capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["function", "function"]


def test_the_new_explorers_take_their_colours_from_frame_css():
    """frame_css rewrites frame.css's widget selectors only: every colour and rule stays."""
    from tensorlens.widgets._esm import STATIC, _FRAME_SELECTORS, frame_css

    text = (STATIC / "frame.css").read_text()
    colours = [line for line in text.splitlines() if line.strip().startswith("--tl-")]
    for root in (".tl-mx", ".tl-fb"):
        out = frame_css(root)
        assert out.count(root) == len(_FRAME_SELECTORS.findall(text)) >= 6
        assert [line for line in out.splitlines() if line.strip().startswith("--tl-")] == colours
    with pytest.raises(ValueError, match="root must be a class selector"):
        frame_css("tl-mx")



#: the explorer's own words, by the language of the page: the Chinese book declares lang="zh-CN".
#: The argument names on the controls, the torch code, True/False and key/query stay as written.
WORDS = {
    "en": {"title": "Attention masks from sequence lengths", "padding": "key-padding mask",
           "weight": "weight each", "sdpa": "sdpa: True = takes part",
           "cell": "sequence 1, query 1, key 1: False, masked",
           "input": "lengths, one per sequence, up to 6",
           "nan": "Fully masked: sequence 1 (4 rows with no key).",
           "live": "(3, 1, 4, 4) mask for lengths 4, 0, 3, causal, True = takes part; 4 fully masked rows give NaN",
           "too_long": "lengths[1] is 5, longer than L = 4", "not_length": 'lengths: "x" is not a length',
           "not_whole": 'L: "x" is not a whole number (the padded length)'},
    "zh-CN": {"title": "由序列长度构造注意力掩码", "padding": "key 填充掩码",
              "weight": "每个 key 的权重", "sdpa": "sdpa: True = 参与",
              "cell": "序列 1，query 1，key 1：False，被遮住",
              "input": "lengths：每个序列一个长度，最多 6 个",
              "nan": "完全被遮住：序列 1（4 行没有任何 key）。",
              "live": "长度为 4, 0, 3 的 (3, 1, 4, 4) 掩码，含因果掩码，True = 参与；4 个完全被遮住的行得到 NaN",
              "too_long": "lengths[1] 为 5，超过了 L = 4", "not_length": "lengths 有误：“x” 不是长度",
              "not_whole": "L 有误：“x” 不是整数（L 是填充后的长度）"},
}
CJK = re.compile(r"[\u4e00-\u9fff]")


@needs_chromium
@pytest.mark.parametrize("lang", WORDS)
def test_the_explorer_speaks_the_language_of_the_page(lang):
    """Drawn in a page with lang="zh-CN" its own words are Chinese; anywhere else English."""
    words = WORDS[lang]
    w = MaskExplorer([4, 0, 3])
    state = {key: getattr(w, key) for key in ("lengths", "seq_len", "causal", "convention")}
    with widget_page(load_esm("mask_explorer.js"), [state], lang) as (page, errors):
        x = page.locator(".tl-mx")
        assert x.get_attribute("data-state") == "ok"
        assert page.inner_text(".tl-mx-title") == words["title"]
        heading = page.inner_text(".tl-mx-section[data-grid='padding'] .tl-mx-heading")
        assert heading.startswith(words["padding"] + " (3, 4)"), heading
        assert page.locator(".tl-mx-wcol").first.inner_text() == words["weight"]
        assert page.locator(".tl-mx-means label").first.inner_text() == words["sdpa"]
        cell = ".tl-mx-cell[data-grid='combined'][data-b='1'][data-i='1'][data-j='1']"
        assert page.get_attribute(cell, "aria-label") == words["cell"]
        assert page.inner_text(cell) == "F"
        assert page.get_attribute("input.tl-mx-lengths", "aria-label") == words["input"]
        assert page.inner_text(".tl-mx-nan").startswith(words["nan"])
        assert page.text_content(".tl-mx-live") == words["live"]
        # not translated: the argument names on the controls and the torch code
        assert page.inner_text("label[for$='-causal']") == "causal"
        assert page.inner_text(".tl-mx-code").startswith("lengths = torch.tensor([4, 0, 3])\nmask = (torch.arange(4)")
        # only English on an English page; no English sentence left on a Chinese one
        text = page.inner_text(".tl-mx") + " ".join(
            page.eval_on_selector_all("[aria-label]", "els => els.map((e) => e.getAttribute('aria-label'))"))
        if lang == "en":
            assert not CJK.search(text), CJK.search(text)
        else:
            for english in ("sequence", "is masked", "takes part", "weight", "Fully", "broadcast", "row"):
                assert english not in text, english
        # its messages, in the page's language
        page.fill("input.tl-mx-lengths", "4, 5, 3")
        assert x.get_attribute("data-state") == "invalid"
        assert page.inner_text(".tl-mx-error") == words["too_long"]
        assert page.text_content(".tl-mx-live") == words["too_long"]
        assert page.get_attribute("input.tl-mx-lengths", "aria-invalid") == "true"
        page.fill("input.tl-mx-lengths", "4, x")
        assert page.inner_text(".tl-mx-error") == words["not_length"]
        page.fill("input.tl-mx-lengths", "4, 2")
        page.fill("input.tl-mx-len", "x")
        assert page.inner_text(".tl-mx-error") == words["not_whole"]
        assert page.get_attribute("input.tl-mx-len", "aria-invalid") == "true"
        assert page.get_attribute("input.tl-mx-lengths", "aria-invalid") == "false"
        assert errors == []
