"""Tests of tensorlens.widgets.broadcast_explorer: the widget's Python side, its bundled JS in Chromium, and
the shared fixtures (tests/js/fixtures/broadcast.json) that tie the JS rule to torch."""

import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

from tensorlens.broadcast import BroadcastError, explain_broadcast
from tensorlens.widgets.broadcast_explorer import MAX_OPERANDS, BroadcastExplorer, parse_shape
from tensorlens.layout import View

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "js" / "fixtures" / "broadcast.json"
CHROMIUM = "/usr/bin/chromium"


def _fixtures():
    return json.loads(FIXTURES.read_text())


def _load_fixture_script():
    spec = importlib.util.spec_from_file_location(
        "make_broadcast_fixtures", ROOT / "scripts" / "make_broadcast_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the shared fixtures -------------------------------------------------------------------


def test_fixtures_are_up_to_date():
    script = _load_fixture_script()
    assert FIXTURES.read_text() == script.render(script.build()), (
        "run: python scripts/make_broadcast_fixtures.py")


def test_explain_broadcast_agrees_with_the_fixtures():
    for case in _fixtures()["cases"]:
        shapes = [tuple(s) for s in case["shapes"]]
        if not case["ok"]:
            with pytest.raises(BroadcastError) as info:
                explain_broadcast(*shapes)
            if len(shapes) == 2:  # with more operands torch and the plan may name another dim
                assert info.value.dim_from_right == case["conflict"]["dim"], shapes
                assert sorted(info.value.sizes) == sorted(
                    [case["conflict"]["size"], case["conflict"]["other"]]), shapes
            continue
        plan = explain_broadcast(*shapes)
        assert list(plan.result) == case["result"], shapes
        for i, shape in enumerate(shapes):
            # Marks as the JS draws them: prepended, else stretched iff the size changes.
            for d, stride in enumerate(case["strides"][i]):
                if d < len(plan.result) - len(shape):
                    assert d in plan.prepended[i]
                elif plan.padded[i][d] != plan.result[d]:
                    assert d in plan.stretched[i] and stride == 0
                else:
                    assert d not in plan.stretched[i]


@pytest.mark.parametrize("entry", _fixtures()["parse"], ids=lambda e: repr(e["text"]))
def test_parse_shape_matches_the_js_grammar(entry):
    if entry["shape"] is None:
        with pytest.raises(ValueError):
            parse_shape(entry["text"])
    else:
        assert parse_shape(entry["text"]) == tuple(entry["shape"])


def test_parse_shape_messages():
    with pytest.raises(ValueError, match="negative"):
        parse_shape("3, -1")
    with pytest.raises(ValueError, match=r"write \(\) for a 0-d tensor"):
        parse_shape("  ")
    with pytest.raises(TypeError, match="text must be a string"):
        parse_shape((3, 1))
    assert parse_shape(str(torch.zeros(2, 0, 3).shape)) == (2, 0, 3)


# --- the widget in Python ------------------------------------------------------------------


def test_shapes_and_repr():
    w = BroadcastExplorer((3, 1), [1, 5])
    assert w.operands == [
        {"name": "A", "text": "3, 1", "strides": None},
        {"name": "B", "text": "1, 5", "strides": None},
    ]
    assert w.shapes == ((3, 1), (1, 5))
    assert w.explain().result == (3, 5)
    assert repr(w) == "BroadcastExplorer(A=[3, 1], B=[1, 5]) -> [3, 5]"
    assert repr(w) == repr(BroadcastExplorer((3, 1), [1, 5]))


def test_tensors_give_shape_and_strides():
    x = torch.zeros(4, 3).T
    w = BroadcastExplorer(x, torch.zeros(()), torch.Size([2, 1, 1]), names=["x", "s", "t"])
    assert w.operands[0] == {"name": "x", "text": "3, 4", "strides": [1, 3]}
    assert w.operands[1] == {"name": "s", "text": "()", "strides": []}
    assert w.operands[2]["strides"] is None
    assert repr(w) == "BroadcastExplorer(x=[3, 4], s=[], t=[2, 1, 1]) -> [2, 3, 4]"
    assert w.explain().result == tuple(torch.broadcast_shapes((3, 4), (), (2, 1, 1)))


def test_a_view_gives_its_strides():
    view = View((3, 4)).transpose(0, 1)
    w = BroadcastExplorer(view, (2, 1, 1))
    assert w.operands[0] == {"name": "A", "text": "4, 3", "strides": list(view.stride)}
    assert repr(w) == "BroadcastExplorer(A=[4, 3], B=[2, 1, 1]) -> [2, 4, 3]"


def test_a_malformed_trait_gives_a_message_not_a_crash():
    w = BroadcastExplorer((3,))
    w.operands = [{"text": "3"}, {"name": "B"}]
    assert repr(w) == ("BroadcastExplorer(A='3', B='') -> invalid: "
                       "B: empty: write () for a 0-d tensor")


def test_conflict_and_invalid_text_show_in_the_repr():
    w = BroadcastExplorer((3, 4), (4, 5), names=["a", "b"])
    assert repr(w) == ("BroadcastExplorer(a=[3, 4], b=[4, 5]) -> cannot broadcast: "
                       "at dim -1 the sizes are 4 and 5")
    with pytest.raises(BroadcastError):
        w.explain()
    # What the browser writes when the reader types: the repr follows the trait.
    w.operands = [{**w.operands[0], "text": "3, x"}, w.operands[1]]
    assert repr(w) == (
        "BroadcastExplorer(a='3, x', b='4, 5') -> invalid: a: \"x\" is not a size")
    with pytest.raises(ValueError, match='a: "x" is not a size'):
        w.shapes
    w.operands = [{**w.operands[0], "text": "[4, 1]"}, w.operands[1]]
    assert repr(w) == "BroadcastExplorer(a=[4, 1], b=[4, 5]) -> [4, 5]"


@pytest.mark.parametrize("args, kwargs, error, match", [
    ((), {}, ValueError, r"shapes_or_tensors: give at least one"),
    (((1,),) * (MAX_OPERANDS + 1), {}, ValueError, r"shapes_or_tensors: at most 6"),
    ((3,), {}, TypeError, r"shapes_or_tensors\[0\] must be a tensor or a shape"),
    (((3, 1), "3, 1"), {}, TypeError, r"shapes_or_tensors\[1\] must be a tensor or a shape"),
    (((3, -1),), {}, ValueError, r"shapes_or_tensors\[0\]\[1\] is -1"),
    (((3, 1.5),), {}, TypeError, r"shapes_or_tensors\[0\]\[1\] must be an int, not float"),
    (((True,),), {}, TypeError, r"shapes_or_tensors\[0\]\[0\] must be an int, not bool"),
    (((3,), (3,)), {"names": "ab"}, TypeError, r"names must be a list"),
    (((3,), (3,)), {"names": ["a"]}, ValueError, r"names has 1 entries for 2 operands"),
    (((3,), (3,)), {"names": ["a", "a"]}, ValueError, r"names must be distinct"),
    (((3,),), {"names": [""]}, ValueError, r"names\[0\] must be a non-empty string"),
])
def test_bad_arguments_name_the_argument(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        BroadcastExplorer(*args, **kwargs)


def test_widget_payload():
    w = BroadcastExplorer((3, 1), (1, 5))
    bundle = w._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    assert "application/vnd.jupyter.widget-view+json" in data
    assert data["text/plain"] == repr(w)
    assert "operands" in w.keys
    # The ES module is self-contained: the rule is inlined, no import is left for the page.
    assert "function parseShape" in w._esm
    assert 'from "./' not in w._esm
    assert not any(line.lstrip().startswith("import ") for line in w._esm.splitlines())
    assert ".tl-bx-cell" in w._css


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_bundled_module_loads_in_node(tmp_path):
    module = tmp_path / "widget.mjs"
    module.write_text(BroadcastExplorer((1,))._esm)
    out = subprocess.run(
        ["node", "--input-type=module", "-e",
         f"const m = await import({json.dumps(module.as_uri())});"
         "console.log(typeof m.default.render);"],
        capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "function"


# --- the bundled widget in Chromium ----------------------------------------------------------

PAGE = """<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><style>{css}</style></head>
<body><div id="w"></div><script type="module">
const source = {esm};
const widget = (await import(URL.createObjectURL(
  new Blob([source], {{type: "text/javascript"}})))).default;
const state = {{operands: {operands}}};
const handlers = {{}};
window.saves = 0;
window.model = {{
  get: (key) => state[key],
  set: (key, value) => {{ state[key] = value; (handlers["change:" + key] || []).forEach((f) => f()); }},
  on: (event, f) => {{ (handlers[event] = handlers[event] || []).push(f); }},
  off: (event, f) => {{ handlers[event] = (handlers[event] || []).filter((g) => g !== f); }},
  save_changes: () => {{ window.saves += 1; }},
}};
widget.render({{model: window.model, el: document.getElementById("w")}});
window.ready = true;
</script></body></html>"""


@pytest.fixture(scope="module")
def page():
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed (make test installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=["--no-sandbox", "--disable-gpu"])
        yield browser.new_page()
        browser.close()


def _open(page, tmp_path, widget, lang="en"):
    html = tmp_path / "page.html"
    # widget._esm is the bundled module (load_esm): broadcast_rule.js and i18n.js are inlined.
    html.write_text(PAGE.format(css=widget._css, esm=json.dumps(widget._esm),
                                operands=json.dumps(widget.operands), lang=lang), encoding="utf-8")
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(html.as_uri())
    page.wait_for_function("window.ready === true")
    return errors


def test_browser_draws_marks_strides_and_result(page, tmp_path):
    errors = _open(page, tmp_path, BroadcastExplorer(torch.zeros(3, 1), (1, 5)))
    assert page.locator(".tl-bx").get_attribute("data-state") == "ok"
    assert page.locator(".tl-bx-result").text_content() == "[3, 5]"
    marks = {(c.get_attribute("data-operand"), c.get_attribute("data-dim")):
             (c.get_attribute("data-mark"), c.locator(".tl-bx-stride").text_content())
             for c in page.locator(".tl-bx-cell").all()}
    views = torch.broadcast_tensors(torch.zeros(3, 1), torch.zeros(1, 5))
    assert marks == {
        ("0", "0"): ("kept", f"stride {views[0].stride(0)}"),
        ("0", "1"): ("stretched", f"stride {views[0].stride(1)}"),
        ("1", "0"): ("stretched", f"stride {views[1].stride(0)}"),
        ("1", "1"): ("kept", f"stride {views[1].stride(1)}"),
    }
    assert errors == []


def test_browser_editing_adding_removing(page, tmp_path):
    errors = _open(page, tmp_path, BroadcastExplorer((3, 1), (1, 5)))
    second = page.locator('input.tl-bx-input[data-operand="1"]')
    second.fill("2, 1, 5")
    assert page.locator(".tl-bx-result").text_content() == "[2, 3, 5]"
    assert page.locator('.tl-bx-cell[data-operand="0"][data-dim="0"]').get_attribute(
        "data-mark") == "prepended"
    state = page.evaluate("window.model.get('operands')")
    assert state[1] == {"name": "B", "text": "2, 1, 5", "strides": None}
    assert page.evaluate("window.saves") >= 1
    # Typing keeps the focus in the input (inputs persist across redraws).
    second.press("End")
    second.type("0")
    assert page.evaluate("document.activeElement.dataset.operand") == "1"
    assert page.locator(".tl-bx-result").text_content() == "[2, 3, 50]"
    second.fill("2, 5")
    assert page.locator(".tl-bx").get_attribute("data-state") == "conflict"
    assert page.locator(".tl-bx-error").text_content() == (
        "cannot broadcast: at dim -2 (dim 0 of the result) B has size 2 but A has size 3; "
        "sizes must be equal, or one of them 1")
    assert page.locator(".tl-bx-result").text_content() == ""
    assert page.locator('.tl-bx-result-cell[data-dim="0"]').get_attribute("data-mark") == "conflict"
    assert page.locator('.tl-bx-cell[data-operand="1"][data-dim="0"]').get_attribute(
        "data-mark") == "conflict"
    assert page.locator('.tl-bx-cell[data-operand="0"][data-dim="1"]').get_attribute(
        "data-mark") == "unresolved"
    second.fill("5")
    page.locator(".tl-bx-add").click()
    assert page.evaluate("window.model.get('operands').length") == 3
    page.locator('input.tl-bx-input[data-operand="2"]').fill("4, 1, 1")
    assert page.locator(".tl-bx-result").text_content() == "[4, 3, 5]"
    page.locator('input.tl-bx-input[data-operand="2"]').fill("4, -1")
    assert page.locator(".tl-bx").get_attribute("data-state") == "invalid"
    assert page.locator(".tl-bx-error").text_content() == 'C: "-1" is not a size (sizes cannot be negative)'
    assert page.locator('input.tl-bx-input[data-operand="2"]').get_attribute("aria-invalid") == "true"
    page.locator('.tl-bx-remove[data-operand="2"]').click()
    assert page.evaluate("window.model.get('operands').length") == 2
    assert page.locator(".tl-bx-result").text_content() == "[3, 5]"
    page.locator('.tl-bx-remove[data-operand="1"]').click()
    assert page.locator(".tl-bx-remove").first.is_disabled()
    assert errors == []


#: the explorer's own words, by the language of the page: the Chinese book declares lang="zh-CN"
WORDS = {
    "en": {
        "title": "Broadcasting: shapes aligned from the right",
        "shape": "shape",
        "dims": ["dim -2", "dim -1"],
        "stride": "stride 0",
        "tooltip": "dim 1 (-1): stretched: size 1 repeated, stride 0",
        "cell": "B, dim -2: 1 stretched to 3, stride 0",
        "input": "shape of B",
        "remove": "remove B",
        "grid": "operand shapes, aligned from the right",
        "legend": ["kept", "stretched: size 1 repeated, stride 0", "prepended: a new dim on the left"],
        "live": "A [3, 1], B [1, 5] broadcast to [3, 5]",
        "conflict": ("cannot broadcast: at dim -2 (dim 0 of the result) B has size 4 but A has "
                     "size 3; sizes must be equal, or one of them 1"),
        "clash": "clash",
        "invalid": 'B: "-1" is not a size (sizes cannot be negative)',
    },
    "zh-CN": {
        "title": "广播：形状右对齐",
        "shape": "形状",
        "dims": ["维度 -2", "维度 -1"],
        "stride": "步幅 0",
        "tooltip": "维度 1（-1）：拉伸：大小为 1 的维度被重复使用，步幅为 0",
        "cell": "B，维度 -2：1 拉伸为 3，步幅 0",
        "input": "B 的形状",
        "remove": "移除 B",
        "grid": "操作数的形状，右对齐",
        "legend": ["保留", "拉伸：大小为 1 的维度被重复使用，步幅为 0", "补上：在左边新增的维度"],
        "live": "A [3, 1]，B [1, 5] 广播为 [3, 5]",
        "conflict": ("无法广播：在维度 -2（结果的维度 0）上，B 的大小为 4，而 A 的大小为 3；"
                     "各大小必须相等，或者其中一个为 1"),
        "clash": "冲突",
        "invalid": '操作数 B："-1" 不是合法的大小（大小不能为负数）',
    },
}

# Every word the widget draws or says: its text, its aria-labels and its tooltips.
ALL_WORDS = """(() => {
  const root = document.querySelector(".tl-bx");
  const out = [root.innerText];
  for (const node of root.querySelectorAll("*")) {
    for (const attr of ["aria-label", "title"]) if (node.hasAttribute(attr)) out.push(node.getAttribute(attr));
    if (node.classList.contains("tl-sr-only")) out.push(node.textContent);
  }
  return out.join("\\n");
})()"""


@pytest.mark.parametrize("lang", WORDS)
def test_browser_speaks_the_language_of_the_page(page, tmp_path, lang):
    words = WORDS[lang]
    errors = _open(page, tmp_path, BroadcastExplorer((3, 1), (1, 5)), lang=lang)
    assert page.locator(".tl-bx-title").text_content() == words["title"]
    assert page.locator(".tl-bx-head-line .tl-bx-colhead").first.text_content() == words["shape"]
    assert [c.text_content() for c in page.locator(".tl-bx-header .tl-bx-colhead").all()] == words["dims"]
    assert page.locator(".tl-bx-grid").get_attribute("aria-label") == words["grid"]
    assert [k.text_content() for k in page.locator(".tl-bx-key").all()] == words["legend"]
    stretched = page.locator('.tl-bx-cell[data-operand="0"][data-dim="1"]')
    assert stretched.locator(".tl-bx-stride").text_content() == words["stride"]
    assert stretched.get_attribute("title") == words["tooltip"]
    assert page.locator('.tl-bx-cell[data-operand="1"][data-dim="0"]').get_attribute(
        "aria-label") == words["cell"]
    second = page.locator('input.tl-bx-input[data-operand="1"]')
    assert second.get_attribute("aria-label") == words["input"]
    assert page.locator('.tl-bx-remove[data-operand="1"]').get_attribute("aria-label") == words["remove"]
    assert page.locator(".tl-bx-live").text_content() == words["live"]
    # The button keeps its name (the Chinese page quotes it as `+ operand`), shapes stay as typed.
    assert page.locator(".tl-bx-add").text_content() == "+ operand"
    assert page.locator(".tl-bx-result").text_content() == "[3, 5]"
    if lang == "zh-CN":
        # Nothing English is left but the button's name and the operands' one-letter names.
        said = page.evaluate(ALL_WORDS).replace("+ operand", "")
        assert not re.search(r"[A-Za-z]{2,}", said), said

    second.fill("4, 5")
    assert page.locator(".tl-bx").get_attribute("data-state") == "conflict"
    assert page.locator(".tl-bx-error").text_content() == words["conflict"]
    assert page.locator(".tl-bx-live").text_content() == words["conflict"]
    assert page.locator('.tl-bx-cell[data-operand="1"][data-dim="0"] .tl-bx-stride').text_content() == words["clash"]
    if lang == "zh-CN":
        said = page.evaluate(ALL_WORDS).replace("+ operand", "")
        assert not re.search(r"[A-Za-z]{2,}", said), said
    second.fill("3, -1")
    assert page.locator(".tl-bx").get_attribute("data-state") == "invalid"
    assert page.locator(".tl-bx-error").text_content() == words["invalid"]
    if lang == "zh-CN":
        said = page.evaluate(ALL_WORDS).replace("+ operand", "")
        assert not re.search(r"[A-Za-z]{2,}", said), said
    assert errors == []
