"""What ``tl.check`` says, in Chinese: the catalog (``tensorlens/exercises/zh_CN.json``) has every
template, label, title, statement and hint; a Chinese report is the English one's facts in Chinese
words; ``tl.set_language`` picks the language and refuses what tensorlens does not speak."""

import json
from collections import Counter
import re
import string
from pathlib import Path

import pytest
import yaml

import tensorlens as tl
from tensorlens.exercises import EXERCISES, CheckResult, _messages, _render
from tensorlens.exercises._messages import NESTED, TEMPLATES, Untranslated, placeholders, translate

ROOT = Path(__file__).resolve().parents[1]
ZH = _messages.catalog("zh_CN")
CJK = re.compile(r"[\u4e00-\u9fff]")
CODE = re.compile(r"`[^`]*`")
#: Latin words a Chinese report may keep outside code: names and abbreviations, not English
LATIN_KEPT = {"dtype", "Python", "PyTorch", "tensorlens", "py", "NumPy", "ReLU", "L1", "bug",
              "True", "logits", "channels", "last", "id", "view", "unfold", "expand", "scatter",
              "clamp", "reshape", "float16", "float32", "safetensors", "torch", "inf", "nan",
              "lambda", "gather", "token"}


def _latin_words(text: str) -> set:
    """The Latin words of ``text`` outside code spans and quoted strings (single letters and
    shapes such as (N, C, H, W) aside)."""
    text = CODE.sub("", text)
    text = re.sub(r"'[^']*'", "", text)
    return set(re.findall(r"[A-Za-z][A-Za-z0-9_]+", text))


@pytest.fixture
def chinese():
    tl.set_language("zh_CN")
    try:
        yield
    finally:
        tl.set_language("en")


# ---------------------------------------------------------------- the catalog is complete


#: more Latin a statement keeps: names of formats and types, and the page's query and key
STATEMENT_KEPT = LATIN_KEPT | {"CPU", "CSV", "JSON", "PIL", "NaN", "bool", "int", "int64",
                               "query", "key"}


def _code_block(text: str) -> list:
    """The lines of ``text``'s indented code blocks."""
    return [line for line in text.split("\n") if line.startswith("    ")]


def test_every_exercise_has_a_chinese_title_statement_and_hint():
    assert set(ZH["exercises"]) == set(EXERCISES)
    for exercise_id, ex in EXERCISES.items():
        words = ZH["exercises"][exercise_id]
        assert set(words) == {"title", "statement", "hint"}, exercise_id
        for field in ("title", "statement", "hint"):
            assert CJK.search(words[field]), f"{exercise_id}: its {field} is not Chinese"
            # code stays code: the same spans, the same number of times
            assert sorted(CODE.findall(words[field])) == sorted(CODE.findall(getattr(ex, field))), \
                f"{exercise_id}: its Chinese {field} does not keep the English one's code spans"
            prose = "\n".join(line for line in words[field].split("\n")
                              if not line.startswith("    "))
            kept = STATEMENT_KEPT if field == "statement" else LATIN_KEPT
            assert not _latin_words(prose) - kept, (exercise_id, field)
        # its code blocks (the version to fix, the loop to vectorise) are the English ones
        assert _code_block(words["statement"]) == _code_block(ex.statement), exercise_id


def test_an_exercise_is_named_in_its_report_as_its_page_heads_it():
    """The Chinese report's title is the Chinese heading of the exercise on its page (the page's
    catalog message whose English is the exercise's title), so the two read the same."""
    import polib

    headings = {}
    for path in (ROOT / "locales" / "zh_CN" / "LC_MESSAGES" / "notebooks").glob("*.po"):
        for entry in polib.pofile(str(path), wrapwidth=0):
            headings.setdefault(entry.msgid, set()).add(entry.msgstr)
    on_pages = {name: ex.title for name, ex in EXERCISES.items() if ex.title in headings}
    assert len(on_pages) > len(EXERCISES) // 2, "the exercises' titles are no longer the pages' headings"
    differ = {name: (ZH["exercises"][name]["title"], headings[title]) for name, title in on_pages.items()
              if headings[title] != {ZH["exercises"][name]["title"]}}
    assert differ == {}


def test_every_template_has_chinese_with_the_same_placeholders():
    assert set(ZH["templates"]) == set(TEMPLATES)
    for key, (_, english) in TEMPLATES.items():
        assert sorted(placeholders(ZH["templates"][key])) == sorted(placeholders(english)), key
        # its code spans are kept (the Chinese may write more words as code)
        assert not Counter(CODE.findall(english)) - Counter(CODE.findall(ZH["templates"][key])), key


def test_the_report_words_have_the_same_keys_and_placeholders():
    assert set(ZH["words"]) == set(_render.WORDS)
    for key, english in _render.WORDS.items():
        assert placeholders(ZH["words"][key]) == placeholders(english), key


def test_the_chinese_uses_the_term_table():
    avoid = [w for term in yaml.safe_load((ROOT / "locales/zh_CN/terms.yml").read_text("utf-8"))
             for w in term.get("avoid", [])]
    text = json.dumps(ZH, ensure_ascii=False)
    assert [w for w in avoid if w in text] == []


# ---------------------------------------------------------------- translation, template by template

#: an English sample of each nested kind, and what it must become
SAMPLES = {
    "where": ("item 2 of the result", "结果的第 2 项"),
    "type": ("tensor", "张量"),
    "arg": ("`x`", "`x`"),
    "rule": ("do not use `repeat` (write the rule yourself)", "不要使用 `repeat`（自己写出这条规则）"),
    "found": ("a `for` loop (line 3 of the function)", "一个 `for` 循环（函数第 3 行）"),
    "cause": ("the source of `f` could not be parsed", "`f` 的源代码无法解析"),
    "phrase": ("write the rule yourself", "自己写出这条规则"),
    "tried": ("3 edge cases and 40 generated inputs", "3 个边界情况和 40 个生成的输入"),
}


@pytest.mark.parametrize("key", sorted(TEMPLATES))
def test_each_template_translates_with_its_placeholders_kept(key):
    kind, english = TEMPLATES[key]
    values, expected = {}, {}
    for i, name in enumerate(placeholders(english)):
        if name in NESTED:
            values[name], expected[name] = SAMPLES[NESTED[name]]
        else:  # a verbatim value: code, numbers, torch's words
            values[name] = expected[name] = f"<v{i}>"
    chinese = translate(english.format(**values), "zh_CN", kind, strict=True)
    assert chinese == _messages._CJK_SPACE.sub("", ZH["templates"][key].format(**expected))
    if key != "arg_name":
        assert CJK.search(chinese)
    rest = chinese
    for value in expected.values():
        rest = rest.replace(value, "")
    assert not _latin_words(rest) - LATIN_KEPT, chinese


def test_nested_texts_are_found_however_they_are_spelled():
    english = ("uses `bs`, which is `functools.reduce` (a Python loop in disguise) (line 2 of the "
               "function) (in helper `inner`): no Python loops allowed here")
    assert translate(english, "zh_CN", strict=True) == (
        "用了 `bs`，它就是 `functools.reduce`（一个换了写法的 Python 循环）（函数第 2 行）"
        "（在辅助函数 `inner` 中）：这里不允许使用 Python 循环")
    assert translate("item 0 of item 1 of the result should be a tensor, got a int", "zh_CN",
                     strict=True) == "结果的第 1 项的第 0 项应当是张量，实际得到的是 int"


def test_an_untranslated_text_fails_strictly_and_stays_english_otherwise():
    with pytest.raises(Untranslated, match="a message no template knows"):
        translate("a message no template knows", "zh_CN", strict=True)
    assert translate("a message no template knows", "zh_CN") == "a message no template knows"
    result = CheckResult("basics.tiles", "fail", "a message no template knows",
                         EXERCISES["basics.tiles"].title)
    assert "a message no template knows" in _render.text(result, "zh_CN")
    with pytest.raises(Untranslated):
        _render.html(result, "zh_CN", strict=True)
    with pytest.raises(Untranslated, match="title"):
        _render.text(CheckResult("basics.nothing", "fail", "passed", "A title"), "zh_CN", strict=True)


# ---------------------------------------------------------------- whole reports

def _stored_reports():
    """Each check report stored in an English notebook: (page, output data)."""
    found = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text("utf-8"))["cells"]:
            for output in cell.get("outputs", []):
                if 'class="tl-check' in "".join(output.get("data", {}).get("text/html", "")):
                    found.append((path.stem, output["data"]))
    return found


STORED = _stored_reports()
ENGLISH_PIECES = sorted({piece.strip(" :;,.()") for kind, english in TEMPLATES.values()
                         if kind in ("message", "line", "tried")
                         for piece in _messages._pieces(english)[::2]
                         if len(piece.strip(" :;,.()")) >= 8}
                        | {"not yet", "input:", "expected:", "got:", "hint:", "passed on"})


def test_the_notebooks_store_failing_reports():
    assert sum(data["text/plain"][0].startswith("\u2717") for _, data in STORED) >= 12


@pytest.mark.parametrize("page, data", STORED, ids=[f"{p}-{i}" for i, (p, _) in enumerate(STORED)])
def test_a_stored_report_reads_back_and_renders_in_chinese(page, data):
    english = "".join(data["text/plain"])
    chinese = _render.translate_bundle(data, "zh_CN")  # it checks the English renders as stored
    for form in ("text/plain", "text/html"):
        assert CJK.search(chinese[form])
        left = [piece for piece in ENGLISH_PIECES if piece in chinese[form]]
        assert left == [], f"{page}: English left in the Chinese {form}: {left}"
    # the same facts: every line of torch's output (the values) is there, unchanged
    values = [line.strip() for line in english.split("\n")[2:] if line.strip().startswith("tensor(")]
    assert all(v in chinese["text/plain"] for v in values)
    result = _render.parse_text(english)
    assert chinese["text/plain"].count("\n") == english.count("\n")
    assert result.exercise_id in chinese["text/plain"]


def test_a_report_in_another_form_is_refused():
    data = STORED[0][1]
    with pytest.raises(ValueError, match="not a check report"):
        _render.translate_bundle({**data, "text/plain": "hello"}, "zh_CN")
    html = "".join(data["text/html"]).replace("tl-check-head", "tl-check-top")
    with pytest.raises(ValueError, match="HTML"):
        _render.translate_bundle({**data, "text/html": html}, "zh_CN")


# ---------------------------------------------------------------- an exercise's card

def _english_card(ex) -> str:
    """The card ``describe`` always wrote in English, built from the exercise's fields."""
    lines = [f"{ex.id}: {ex.title}", "", ex.statement]
    if ex.rules:
        lines += ["", "Rules:"] + [f"- {r.description}" for r in ex.rules]
    if ex.hint:
        lines += ["", f"Hint: {ex.hint}"]
    return "\n".join(lines)


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_an_exercise_card_in_english_is_what_it_was(exercise_id):
    ex = EXERCISES[exercise_id]
    assert tl.get_language() == "en"
    assert ex.describe() == ex.describe("en", strict=True) == _english_card(ex)


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_an_exercise_card_is_chinese_in_a_chinese_kernel(exercise_id, chinese):
    ex, words = EXERCISES[exercise_id], ZH["exercises"][exercise_id]
    card = ex.describe("zh_CN", strict=True)
    assert ex.describe() == card  # set_language("zh_CN") (the fixture) picks it
    rules = [translate(r.description, "zh_CN", "rule", strict=True) for r in ex.rules]
    assert all(CJK.search(rule) for rule in rules)
    expected = [f"{exercise_id}：{words['title']}", "", words["statement"]]
    if ex.rules:
        expected += ["", "规则："] + [f"- {rule}" for rule in rules]
    if ex.hint:
        expected += ["", f"提示：{words['hint']}"]
    assert card == "\n".join(expected)
    for english in (ex.title, ex.statement, ex.hint, "Rules:", "Hint:",
                    *(r.description for r in ex.rules)):
        assert english not in card


def test_a_card_with_an_untranslated_text_fails_strictly_and_stays_english_otherwise(monkeypatch):
    import dataclasses

    from tensorlens.exercises.rules import Rule

    ex = EXERCISES["basics.tiles"]
    words = {k: v for k, v in ZH["exercises"][ex.id].items() if k != "statement"}
    monkeypatch.setitem(ZH["exercises"], ex.id, words)
    with pytest.raises(Untranslated, match="statement for exercise 'basics.tiles'"):
        ex.describe("zh_CN", strict=True)
    assert ex.statement in ex.describe("zh_CN") and words["title"] in ex.describe("zh_CN")
    monkeypatch.undo()
    odd_rule = dataclasses.replace(ex, rules=(Rule("a rule no catalog knows"),))
    with pytest.raises(Untranslated, match="a rule no catalog knows"):
        odd_rule.describe("zh_CN", strict=True)
    assert "- a rule no catalog knows" in odd_rule.describe("zh_CN")
    unknown = dataclasses.replace(ex, id="basics.nothing")  # not in the catalog at all
    with pytest.raises(Untranslated, match="title for exercise 'basics.nothing'"):
        unknown.describe("zh_CN", strict=True)
    assert unknown.describe("en", strict=True) == _english_card(unknown)


@pytest.mark.parametrize("bad, error", [("fr", ValueError), ("zh", ValueError), ("", ValueError),
                                        ("EN", ValueError), (3, TypeError)])
def test_a_card_refuses_a_language_as_a_report_does(bad, error):
    with pytest.raises(error) as report:
        _render.text(CheckResult("basics.tiles", "pass", "passed"), bad)
    with pytest.raises(error) as card:
        EXERCISES["basics.tiles"].describe(bad)
    assert repr(bad) in str(card.value)
    assert str(card.value) == str(report.value).replace("render:", "describe:", 1)


# ---------------------------------------------------------------- the switch

def test_english_is_the_default_and_set_language_switches(chinese):
    result = CheckResult("basics.tiles", "fail", "the result", EXERCISES["basics.tiles"].title)
    assert tl.get_language() == "zh_CN"
    assert "还不对" in repr(result) and "还不对" in result._repr_html_()
    tl.set_language("en")
    assert "not yet" in repr(result) and "not yet" in result._repr_html_()
    assert result.message == "the result"  # the result itself is the same in every language


@pytest.mark.parametrize("bad, error", [("fr", ValueError), ("zh", ValueError), ("", ValueError),
                                        (None, TypeError), (3, TypeError)])
def test_set_language_refuses_what_it_does_not_speak(bad, error):
    with pytest.raises(error, match=re.escape(repr(bad))):
        tl.set_language(bad)
    assert tl.get_language() == "en"
    if bad is not None:  # None renders in the current language
        with pytest.raises(error):
            _render.text(CheckResult("basics.tiles", "pass", "passed"), bad)


def test_the_environment_names_the_language_until_set_language_does(monkeypatch):
    from tensorlens import language

    monkeypatch.setattr(language, "_chosen", None)
    monkeypatch.setenv(language.LANGUAGE_ENV, "zh_CN")
    assert tl.get_language() == "zh_CN"
    monkeypatch.setenv(language.LANGUAGE_ENV, "klingon")  # not spoken: English
    assert tl.get_language() == "en"
    monkeypatch.setenv(language.LANGUAGE_ENV, "zh_CN")
    tl.set_language("en")
    assert tl.get_language() == "en"


# ---------------------------------------------------------------- the torch check on import

@pytest.mark.parametrize("version", [None, "2.5.1"])
def test_the_torch_check_speaks_chinese_with_the_same_commands(version):
    from tensorlens import _torch_check

    english = _torch_check.torch_problem(version, "en")
    chinese = _torch_check.torch_problem(version, "zh_CN")
    assert CJK.search(chinese) and not CJK.search(english)
    assert CODE.findall(chinese) == CODE.findall(english)  # the same commands to run
    assert not _latin_words(chinese) - LATIN_KEPT - {"Colab", "GPU", "CPU", "Linux"}
    for words in _torch_check.MESSAGES.values():
        assert set(words) == set(_torch_check.MESSAGES["en"])
        for key, text in words.items():
            assert placeholders(text) == placeholders(_torch_check.MESSAGES["en"][key]), key


def test_importing_without_torch_says_it_in_the_language_the_environment_names():
    import os
    import subprocess
    import sys

    code = "import sys; sys.path[:0] = sys.argv[1:]; import tensorlens"
    run = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(ROOT)], capture_output=True,
                         text=True, env={**os.environ, "TENSORLENS_LANGUAGE": "zh_CN"})
    assert run.returncode == 1
    assert "TorchMissingError: tensorlens 需要 PyTorch 2.11 或更高版本" in run.stderr


@pytest.mark.parametrize("result", [
    CheckResult("basics.tiles", "fail", "the result has the right shape and dtype but wrong values",
                EXERCISES["basics.tiles"].title,
                (("input", "x = shape (2,), dtype torch.int64, stride (1,), storage offset 0\n"
                           "    tensor([1, 2])"), ("expected", "int: 3"), ("got", "int: 4")),
                EXERCISES["basics.tiles"].hint),
    CheckResult("basics.tiles", "pass", "passed", EXERCISES["basics.tiles"].title,
                tried="3 edge cases and 40 generated inputs"),
    CheckResult("basics.tiles", "error", "your function raised ValueError: boom (x: 1)",
                EXERCISES["basics.tiles"].title, hint=EXERCISES["basics.tiles"].hint),
    CheckResult("basics.tilez", "unknown", "there is no exercise 'basics.tilez'. Did you mean: "
                "basics.tiles?"),
], ids=["fail-with-hint", "pass", "error", "unknown"])
def test_a_report_reads_back_from_its_text(result):
    assert _render.parse_text(_render.text(result, "en")) == result
    assert CJK.search(_render.text(result, "zh_CN", strict=True))
