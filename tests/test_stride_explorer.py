"""StrideExplorer without a kernel or a browser: traits, repr, mime bundle, errors, bundling.

The drawing itself is tested in the browser (tests/browser, scripts/bench_stride_explorer.py)
and the view arithmetic of its JS by tests/js/view_math.test.mjs; its own words, English or
Chinese by the page's lang, in headless Chromium here (test_the_widget_speaks_the_pages_language).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pytest
import torch
import traitlets

from tensorlens import StrideExplorer, View
from tensorlens.widgets._esm import load_esm
from widget_page import needs_chromium, widget_page
from tensorlens.widgets.stride_explorer import (
    DEFAULT_MAX_ELEMENTS, ExplorerArgumentError, cap_notice, python_expression, storage_window,
)

WIDGET_KEYS = {"shape", "stride", "offset", "storage_size", "storage", "label", "dtype",
               "max_elements", "notice", "ops", "expression", "error"}


def synced(widget):
    return widget.get_state(key=sorted(WIDGET_KEYS))


# ---- traits ----------------------------------------------------------------------------------


def test_tensor_traits_mirror_torch():
    x = torch.arange(12.0).view(3, 4)
    w = StrideExplorer(x)
    state = synced(w)
    assert state["shape"] == [3, 4] and state["stride"] == [4, 1]
    assert state["offset"] == 0 and state["storage_size"] == 12
    assert state["storage"] == list(range(12))
    assert state["label"] == "x" and state["expression"] == "x"
    assert state["dtype"] == "float32"
    assert state["max_elements"] == DEFAULT_MAX_ELEMENTS == 262_144
    assert state["notice"] == "" and state["error"] == "" and state["ops"] == []
    json.dumps(state)  # everything the browser gets is JSON


@pytest.mark.parametrize(
    "make, label",
    [
        (lambda: torch.arange(12).view(3, 4).t(), "x.t()"),
        (lambda: torch.arange(3.0).expand(4, 3), "a.expand(4, 3)"),  # stride 0
        (lambda: torch.arange(24).view(2, 3, 4).permute(2, 0, 1), "y"),  # 3-D
        (lambda: torch.arange(24).view(2, 3, 4)[1, :, ::2], "y[1, :, ::2]"),  # offset, step
        (lambda: torch.tensor(5.0), "s"),  # rank 0
        (lambda: torch.zeros(0, 3), "e"),  # empty
        (lambda: torch.arange(10)[2:5], "x[2:5]"),  # storage larger than the view
    ],
)
def test_views_of_tensors_agree_with_torch(make, label):
    t = make()
    w = StrideExplorer(t, label=label)
    assert w.shape == list(t.shape)
    assert w.stride == list(t.stride())
    assert w.offset == t.storage_offset()
    assert w.storage_size == t.untyped_storage().nbytes() // t.element_size()
    assert w.label == label
    # Storage values are the storage, in storage order: reading them through the strides
    # gives back the tensor.
    storage = torch.tensor(w.storage, dtype=torch.float64)
    assert torch.equal(storage.as_strided(t.shape, t.stride(), t.storage_offset()), t.double())
    assert repr(w) == (
        f"StrideExplorer({label}: shape={tuple(t.shape)}, stride={t.stride()}, "
        f"offset={t.storage_offset()}, contiguous={t.is_contiguous()}, "
        f"overlap={View.of(t).has_overlap()})"
    )


def test_view_input_has_no_values_and_no_dtype():
    v = View((2, 3), stride=(1, 4), offset=1, storage_size=12)
    w = StrideExplorer(v, label="v")
    assert (w.shape, w.stride, w.offset, w.storage_size) == ([2, 3], [1, 4], 1, 12)
    assert w.storage is None and w.dtype == ""
    assert w.base_view == v == w.current_view()


def test_storage_values_are_compact_and_json_safe():
    t = torch.tensor([1 / 3, -2.5, float("nan"), float("inf"), -float("inf"), 1e-8, 3.0])
    assert StrideExplorer(t).storage == [0.333333, -2.5, "nan", "inf", "-inf", 1e-08, 3]
    assert StrideExplorer(torch.tensor([True, False])).storage == [1, 0]
    assert StrideExplorer(torch.zeros(2, dtype=torch.complex64)).storage is None
    bf = StrideExplorer(torch.tensor([0.1], dtype=torch.bfloat16))
    assert bf.dtype == "bfloat16" and bf.storage == [0.100098]


def test_tensor_requiring_grad_is_read_not_touched():
    t = torch.ones(2, 2, requires_grad=True)
    assert StrideExplorer(t).storage == [1, 1, 1, 1]
    assert t.grad is None


# ---- repr and mime bundle --------------------------------------------------------------------


def test_repr_is_deterministic_and_is_the_mimebundle_text():
    w1 = StrideExplorer(torch.arange(12).view(3, 4))
    w2 = StrideExplorer(torch.arange(12).view(3, 4))
    text = "StrideExplorer(x: shape=(3, 4), stride=(4, 1), offset=0, contiguous=True, overlap=False)"
    assert repr(w1) == repr(w2) == text
    data, _metadata = w1._repr_mimebundle_()
    assert data["text/plain"] == text
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == w1.model_id
    # No address anywhere (nbval compares text/plain).
    assert "0x" not in data["text/plain"]


def test_long_repr_is_not_truncated_in_the_bundle():
    w = StrideExplorer(torch.zeros(2, 3, 4, 5), label="a_rather_long_name_for_a_tensor")
    w.apply("permute", (3, 2, 1, 0)).apply("unsqueeze", 0).apply("slice", 4, None, None, 2)
    data, _ = w._repr_mimebundle_()
    assert len(repr(w)) > 110 and data["text/plain"] == repr(w)


# ---- operations from Python ------------------------------------------------------------------


def test_apply_records_ops_and_expression_like_the_browser():
    x = torch.arange(24.0).view(4, 6)
    w = StrideExplorer(x)
    w.apply("t").apply("unsqueeze", 0).apply("slice", -1, None, None, 2)
    assert w.ops == [["t", []], ["unsqueeze", [0]], ["slice", [2, None, None, 2]]]
    assert w.expression == "x.t().unsqueeze(0)[:, :, ::2]"
    # The expression is real Python: torch agrees with the model on its result.
    y = eval(w.expression, {"x": x})
    v = w.current_view()
    assert (v.shape, v.stride, v.offset) == (tuple(y.shape), y.stride(), y.storage_offset())
    assert repr(w).startswith("StrideExplorer(x.t().unsqueeze(0)[:, :, ::2]: shape=(1, 6, 2)")


@pytest.mark.parametrize(
    "ops, expected",
    [
        ([], "x"),
        ([["transpose", [0, 1]]], "x.transpose(0, 1)"),
        ([["permute", [[1, 0]]], ["squeeze", []], ["squeeze", [0]]],
         "x.permute(1, 0).squeeze().squeeze(0)"),
        ([["expand", [[2, 3, 4]]], ["view", [[-1]]], ["view", [[]]]],
         "x.expand(2, 3, 4).view(-1).view(())"),
        ([["slice", [0, 1, 3, 1]], ["slice", [1, None, -1, 2]], ["slice", [0, None, None, 1]]],
         "x[1:3][:, :-1:2][:]"),
        ([["diagonal", [0, 0, 1]], ["diagonal", [1, 0, 1]], ["diagonal", [0, 1, 2]]],
         "x.diagonal().diagonal(1).diagonal(0, 1, 2)"),
        ([["narrow", [0, 1, 2]], ["select", [1, -1]], ["unfold", [0, 2, 1]]],
         "x.narrow(0, 1, 2).select(1, -1).unfold(0, 2, 1)"),
    ],
)
def test_python_expression(ops, expected):
    assert python_expression("x", ops) == expected


@pytest.mark.parametrize(
    "op, args, exc, message",
    [
        ("t", (), ValueError, "t() expects a view with <= 2 dims, but this one has 3"),
        ("transpose", (0, 3), IndexError, "dim1 3 is out of range for a view with 3 dims"),
        ("view", ((5, -1),), ValueError, "shape (5, -1) is invalid for a view of 24 elements"),
        ("expand", ((2, 4, 4),), ValueError, "expand size 4 at dim 1 must match the existing size 3"),
        ("slice", (0, None, None, 0), ValueError, "slice step is 0"),
        ("slice", (-4, None, None, 2), ValueError, "dim -4 is out of range for a view with 3 dims"),
        ("slice", (3, None, None, 2), ValueError,
         "dim 3 is out of range for a view with 3 dims (expected a dim in [-3, 2])"),
        ("slice", (3, None, None, 2), IndexError, "dim 3 is out of range"),
        ("reshape", ((24,),), ValueError, "op must be one of"),
        ("permute", (2, 0, 1), TypeError, "permute takes one sequence of ints"),
        ("slice", (0, 2), TypeError, "slice takes dim, start, stop, step"),
        ("select", (0, "1"), TypeError, "index must be an int, not str"),
    ],
)
def test_apply_rejects_what_the_model_rejects(op, args, exc, message):
    w = StrideExplorer(View((2, 3, 4)))
    with pytest.raises(exc, match=re.escape(message)):
        w.apply(op, *args)
    assert w.ops == [] and w.expression == "x"


def test_ops_written_to_the_trait_are_checked_against_the_model():
    w = StrideExplorer(View((3, 4)))
    w.ops = [["t", []], ["slice", [0, None, None, 2]]]  # as the browser writes them
    assert repr(w).startswith("StrideExplorer(x.t()[::2]: shape=(2, 3), stride=(2, 4)")
    for bad in ([["reshape", [[12]]]], [["t", []], ["view", [[12]]]], [["t"]]):
        with pytest.raises(traitlets.TraitError, match=re.escape("ops[")):
            w.ops = bad
    assert w.ops == [["t", []], ["slice", [0, None, None, 2]]]


# ---- argument validation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "obj, kwargs, exc, message",
    [
        (torch.zeros(2), {"label": 3}, ValueError, "label must be a str, not int"),
        (torch.zeros(2), {"max_elements": 1.5}, ValueError, "max_elements must be an int, not float"),
        (torch.zeros(2), {"max_elements": 0}, ValueError, "max_elements is 0: it must be at least 1"),
        (torch.zeros(2).to_sparse(), {}, ValueError, "tensor must be strided"),
    ],
)
def test_bad_arguments_raise_naming_them(obj, kwargs, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        StrideExplorer(obj, **kwargs)


@pytest.mark.parametrize(
    "obj, name",
    [([[1, 2], [3, 4]], "list"), (np.arange(6).reshape(2, 3), "ndarray"), (None, "NoneType")],
)
def test_a_non_tensor_raises_a_value_error_naming_the_argument(obj, name):
    message = f"tensor_or_view must be a torch.Tensor or a tensorlens View, not {name}"
    with pytest.raises(ValueError, match=re.escape(message)):
        StrideExplorer(obj)
    # Still a TypeError too, for code written against earlier versions.
    with pytest.raises(TypeError, match=re.escape(message)) as info:
        StrideExplorer(obj)
    assert isinstance(info.value, ExplorerArgumentError)


def test_slice_dim_past_the_last_gets_the_range_message():
    w = StrideExplorer(torch.ones(2, 3))
    with pytest.raises(ValueError) as info:
        w.apply("slice", 5, None, None, 2)
    assert str(info.value) == "dim 5 is out of range for a view with 2 dims (expected a dim in [-2, 1])"
    assert w.ops == []
    assert w.apply("slice", 1, None, None, 2).ops == [["slice", [1, None, None, 2]]]


@pytest.mark.parametrize(
    "args, message",
    [
        (((2, -1),), "shape[1] is -1: sizes must be non-negative"),
        (((3, 4), (4, 1), 0, 11), "a stride pointing outside storage"),
        (((3,), (-1,)), "stride[0] is -1: strides must be non-negative"),
    ],
)
def test_invalid_views_are_rejected_by_views_own_validation(args, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        StrideExplorer(View(*args))


# ---- the size cap ----------------------------------------------------------------------------


def test_above_the_cap_a_notice_and_no_values():
    w = StrideExplorer(torch.zeros(600, 600))
    assert w.notice == (
        "This view has 360,000 elements, more than this explorer draws "
        "(max_elements=262,144). Narrow, select or slice it to see it drawn."
    )
    assert w.storage is None  # never ship a huge list into the notebook
    assert repr(w).startswith("StrideExplorer(x: shape=(600, 600)")
    # The advice works: narrowing it (as the button does) gives a view that is drawn.
    narrowed = w.current_view().narrow(0, 0, 2)
    assert cap_notice(narrowed, DEFAULT_MAX_ELEMENTS) == ""


@pytest.mark.parametrize(
    "make, window",
    [
        (lambda: torch.arange(300_000)[:4], (0, 4)),  # the audit's example
        (lambda: torch.arange(300_000)[299_996:], (299_996, 300_000)),  # at the far end
        (lambda: torch.arange(1_000_000).view(1000, 1000)[3], (3000, 4000)),  # a row
        (lambda: torch.arange(1_000_000).view(1000, 1000)[2:4, 5:7], (2005, 3007)),  # with gaps
        (lambda: torch.arange(400_000).view(2, 200_000)[:, 7], (7, 200_008)),  # 2 cells apart
        (lambda: torch.arange(300_000)[:0], (0, 0)),  # nothing read
    ],
)
def test_a_small_view_of_a_big_storage_draws_the_span_it_reads(make, window):
    t = make()
    w = StrideExplorer(t)
    assert w.storage_size == t.untyped_storage().nbytes() // t.element_size() > DEFAULT_MAX_ELEMENTS
    assert storage_window(w.base_view, w.max_elements) == window
    assert w.notice == ""
    # The values are those of storage cells window[0] .. window[1] - 1: for an arange, the
    # positions themselves, and reading them through the strides gives back the tensor.
    assert w.storage == list(range(*window))
    positions = torch.tensor(w.base_view.storage_indices(), dtype=torch.long)
    values = torch.tensor(w.storage, dtype=torch.long)
    assert torch.equal(values[positions - window[0]], t.flatten())
    assert repr(w) == (
        f"StrideExplorer(x: shape={tuple(t.shape)}, stride={t.stride()}, "
        f"offset={t.storage_offset()}, contiguous={t.is_contiguous()}, overlap=False)"
    )


def test_the_learners_example_is_drawn():
    torch.manual_seed(0)
    x = torch.randn(1000, 1000)
    w = StrideExplorer(x[0])
    assert w.notice == "" and len(w.storage) == 1000
    assert w.storage[:3] == [float(f"{v:.6g}") for v in x[0, :3].tolist()]


def test_a_span_over_the_cap_says_so_and_narrowing_draws_it():
    column = torch.zeros(1000, 1000)[:, 0]  # 1,000 elements 1,000 cells apart
    w = StrideExplorer(column)
    assert w.notice == (
        "This view reads storage cells 0 to 999,000 of 1,000,000, a span of 999,001 cells, "
        "more than this explorer draws (max_elements=262,144). Narrow, select or slice it to "
        "see it drawn."
    )
    assert w.storage is None
    assert cap_notice(w.current_view().narrow(0, 0, 100), w.max_elements) == ""
    # A bigger cap draws the whole storage again, with the cells the view skips.
    assert StrideExplorer(column, max_elements=2_000_000).notice == ""
    assert storage_window(w.base_view, 2_000_000) == (0, 1_000_000)
    assert StrideExplorer(torch.zeros(65_536)).notice == ""


def test_a_small_storage_is_drawn_whole_gaps_and_all():
    w = StrideExplorer(torch.arange(10)[2:5])
    assert storage_window(w.base_view, w.max_elements) == (0, 10)
    assert w.storage == list(range(10))


# ---- the ES module -----------------------------------------------------------------------------


def test_esm_is_one_self_contained_module():
    esm = StrideExplorer._esm
    assert isinstance(esm, str)
    assert not re.search(r"^\s*import[\s{*]", esm, re.M), "an import statement survived"
    assert 'from "./' not in esm
    assert "export function storageIndices" in esm  # view_math.js was spliced in
    assert "export default { render }" in esm
    assert ".tl-se" in StrideExplorer._css


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_esm_parses_as_a_module(tmp_path):
    bundle = tmp_path / "stride_explorer.mjs"
    bundle.write_text(StrideExplorer._esm)
    subprocess.run(["node", "--check", str(bundle)], check=True, capture_output=True)


def test_load_esm_inlines_relative_imports(tmp_path):
    (tmp_path / "math.js").write_text("export function add(a, b) { return a + b; }\n"
                                      "export const two = 2;\n")
    (tmp_path / "util.js").write_text('import { two } from "./math.js";\nexport const four = two * 2;\n')
    (tmp_path / "widget.js").write_text(
        'import { add, two as TWO } from "./math.js";\n'
        "import {\n  four,\n} from './util.js';\n"
        "export default { render() { return add(TWO, four); } };\n"
    )
    out = load_esm("widget.js", tmp_path)
    assert "import" not in out
    assert out.count("export function add") == 1  # math.js inlined once, though imported twice
    assert "const TWO = two;" in out
    assert out.index("export function add") < out.index("export const four") < out.index("export default")


def test_load_esm_rejects_imports_it_cannot_inline(tmp_path):
    (tmp_path / "w.js").write_text('import confetti from "https://esm.sh/canvas-confetti";\n')
    with pytest.raises(ValueError, match="only `import"):
        load_esm("w.js", tmp_path)
    (tmp_path / "v.js").write_text('import * as m from "./w.js";\n')
    with pytest.raises(ValueError, match="only `import"):
        load_esm("v.js", tmp_path)


def test_max_elements_is_fixed_at_construction():
    # the storage values sent belong to the window for this cap: a new cap needs a new explorer
    w = StrideExplorer(torch.arange(10)[6:8], max_elements=5)
    assert w.max_elements == 5
    with pytest.raises(traitlets.TraitError, match="read-only"):
        w.max_elements = 100


# ---- the page's language ---------------------------------------------------------------------


#: the widget's own words, by the language of the page: the Chinese book declares lang="zh-CN".
#: The names of operations and arguments, Python and torch's own text stay as they are.
PAGE_WORDS = {
    "en": {
        "chips": ["shape", "stride", "offset", "contiguous", "overlap"],
        "logical": "logical view (3, 4): 12 elements",
        "storage": "storage: 12 cells, 12 read by this view",
        "tip": "swap the two dims of a 2-D view",
        "arg": "unsqueeze dim",
        "no": "no",
        "live": "x.t(): shape (4, 3), stride (1, 4), offset 0",
        "element": "element [0, 1], storage 4",
        "reads": "x.t()[0, 1] reads storage[4]",
        "error": "view: view size is not compatible with input tensor's size and stride: shape (4, 3) "
                 "with stride (1, 4) cannot be viewed as (12,) because at least one new dim spans two "
                 "separately laid out blocks; use reshape (which copies) instead",
        "typed": "unsqueeze: dim must be an int, not 'x'",
        "cap": "This view has 12 elements, more than this explorer draws (max_elements=4). "
               "Narrow, select or slice it to see it drawn.",
        "keys": "Keyboard: Tab to a drawing, then the arrow keys (Home, End) move between its cells.",
    },
    "zh-CN": {
        "chips": ["形状", "步幅", "偏移", "连续", "重叠"],
        "logical": "逻辑视图 (3, 4)：12 个元素",
        "storage": "存储：12 个单元，其中 12 个被这个视图读取",
        "tip": "交换二维视图的两个维度",
        "arg": "unsqueeze 的参数 dim",
        "no": "否",
        "live": "x.t()：形状 (4, 3)，步幅 (1, 4)，偏移 0",
        "element": "元素 [0, 1]，存储位置 4",
        "reads": "x.t()[0, 1] 读取存储位置 4",
        "error": "view: view size is not compatible with input tensor's size and stride：形状 (4, 3)、"
                 "步幅 (1, 4) 无法以视图变为 (12,)，因为至少有一个新维度跨越了两块分开存放的区域；"
                 "请改用 reshape（它会复制）",
        "typed": "unsqueeze: dim 必须是整数，而不是 'x'",
        "cap": "这个视图有 12 个元素，超过了这个探索器能绘制的数量（max_elements=4）。"
               "用 narrow、select 或切片把它缩小，就能看到它的图。",
        "keys": "键盘：用 Tab 移到一幅图上，再用方向键（以及 Home、End）在它的单元之间移动。",
    },
}


@needs_chromium
@pytest.mark.parametrize("lang", PAGE_WORDS)
def test_the_widget_speaks_the_pages_language(lang):
    words = PAGE_WORDS[lang]
    x = torch.arange(12).view(3, 4)
    capped = StrideExplorer(x, max_elements=4)
    if lang == "en":
        assert capped.notice == words["cap"]  # the JS says what Python says
    states = [synced(StrideExplorer(x)), synced(capped)]
    a, b = "#w0 .tl-se", "#w1 .tl-se"
    with widget_page(load_esm("stride_explorer.js"), states, lang) as (page, errors):
        # the readouts' labels, the headings, a tooltip, an aria-label and the keyboard help
        assert page.locator(f"{a} .tl-chip .tl-k").all_inner_texts()[:5] == words["chips"]
        assert page.inner_text(f"{a} .tl-section >> nth=0") == words["logical"]
        assert page.inner_text(f"{a} .tl-section >> nth=1") == words["storage"]
        assert page.get_attribute(f"{a} canvas.tl-logical", "aria-label") == words["logical"]
        assert page.get_attribute(f"{a} [data-op-group='t']", "title") == words["tip"]
        assert page.get_attribute(f"{a} input[data-arg='dim'] >> nth=0", "aria-label") == words["arg"]
        assert page.inner_text(f"{a} .tl-keys") == words["keys"]
        # the buttons keep their names; the live region says what .t() made
        assert page.inner_text(f"{a} button[data-op='t']") == ".t()"
        assert page.inner_text(f"{a} button[data-op='reset']") == "reset"
        page.click(f"{a} button[data-op='t']")
        assert page.inner_text(f"{a} .tl-contiguous") == words["no"]
        assert page.text_content(f"{a} .tl-live") == words["live"]
        # the keyboard's cell: its name and the readout it explains
        page.focus(f"{a} .tl-cursor[data-kind='logical']")
        page.keyboard.press("ArrowRight")
        assert page.get_attribute(f"{a} .tl-cursor[data-kind='logical']", "aria-label") == words["element"]
        assert page.inner_text(f"{a} .tl-where") == words["reads"]
        assert page.get_attribute(f"{a} .tl-formula", "data-position") == "4"
        # a refused view: torch's own words stay, the explanation is the page's language
        page.fill(f"{a} input[data-arg='shape']", "-1")
        page.click(f"{a} button[data-op='view']")
        assert page.inner_text(f"{a} .tl-error") == words["error"]
        page.fill(f"{a} [data-op-group='unsqueeze'] input[data-arg='dim']", "x")
        page.click(f"{a} button[data-op='unsqueeze']")
        assert page.inner_text(f"{a} .tl-error") == words["typed"]
        # the second explorer is over its cap: the notice says so
        assert page.inner_text(f"{b} .tl-cap") == words["cap"]
        assert errors == []
