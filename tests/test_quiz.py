"""tl.Quiz: validation, deterministic repr, synced state, and JS/Python agreement on answers."""

import base64
import json
import shutil
import subprocess

import pytest

import tensorlens as tl
from tensorlens.widgets.quiz import normalize_answer
from tensorlens.widgets._esm import load_esm
from widget_page import needs_chromium, widget_page

# quiz.js with its imports inlined, as the widget loads it (a data: URL module can import nothing)
QUIZ_JS = load_esm("quiz.js").encode()

SHAPE = {"question": "Shape of `torch.zeros(3, 4).T`?", "answer": "(4, 3)",
         "explain": "`.T` swaps the two dims."}
CHOICE = {"question": "Which call copies?", "choices": ["`x.T`", "`x.contiguous()` on `x.T`"],
          "answer": 1, "explain": "A transposed tensor is not contiguous."}

# (typed answer, canonical form): every equivalent spelling maps to the same form
NORMALIZE_TABLE = [
    ("(3, 4)", "3,4"), ("3,4", "3,4"), ("[3, 4]", "3,4"), ("torch.Size([3, 4])", "3,4"),
    ("  ( 3 ,4 ) ", "3,4"), ("3 4", "3,4"), ("`(3, 4)`", "3,4"), ("(3,)", "3"), ("3", "3"),
    ("torch.Size([])", "()"), ("()", "()"), ("tensor(6)", "tensor(6)"),
    ("tensor([6])", "tensor([6])"), ("tensor([[6]])", "tensor([[6]])"), (" True ", "true"),
    ("RuntimeError.", "runtimeerror"), ("torch.float32", "torch.float32"), ("'4'", "4"),
    ("Size([2, 1])", "2,1"), ("(12, 4, 1)", "12,4,1"),
]


@pytest.mark.parametrize("text, canonical", NORMALIZE_TABLE)
def test_normalize_answer(text, canonical):
    assert normalize_answer(text) == canonical


def test_scalar_and_tensor_answers_stay_distinct():
    forms = {normalize_answer(t) for t in ("tensor(6)", "tensor([6])", "tensor([[6]])")}
    assert len(forms) == 3


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_js_normalization_and_checking_agree_with_python():
    source = base64.b64encode(QUIZ_JS).decode()
    texts = [t for t, _ in NORMALIZE_TABLE]
    script = f"""
        const m = await import("data:text/javascript;base64,{source}");
        const texts = {json.dumps(texts)};
        const q = {json.dumps(tl.Quiz([SHAPE]).questions[0])};
        const c = {json.dumps(tl.Quiz([CHOICE]).questions[0])};
        console.log(JSON.stringify({{
          normalized: texts.map(m.normalizeAnswer),
          shape: ["(4, 3)", "torch.Size([4, 3])", "4,3", "(3, 4)", ""].map((a) => m.isCorrect(q, a)),
          choice: [0, 1].map((a) => m.isCorrect(c, a)),
          segments: m.segments("a `b` c\\n```\\nx = 1\\n```"),
          valid: [m.validateQuestions([q, c]), m.validateQuestions([]),
                  m.validateQuestions([{{question: "x", choices: ["a", "b"], answer: 5}}])],
        }}));
    """
    out = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["normalized"] == [normalize_answer(t) for t in texts]
    assert got["shape"] == [True, True, True, False, False]
    assert got["choice"] == [False, True]
    assert got["segments"] == [{"kind": "text", "text": "a "}, {"kind": "code", "text": "b"},
                               {"kind": "text", "text": " c\n"}, {"kind": "block", "text": "x = 1"}]
    assert got["valid"][0] is None
    assert "no questions" in got["valid"][1] and "Question 1" in got["valid"][2]


def test_quiz_state_and_repr():
    quiz = tl.Quiz([SHAPE, {**CHOICE}, {**SHAPE, "accept": ["4 by 3"]}])
    assert repr(quiz) == "Quiz(3 questions)"
    assert repr(tl.Quiz([SHAPE])) == "Quiz(1 question)"
    assert quiz.questions[0] == {**SHAPE, "choices": None, "accept": ["4,3"]}
    assert quiz.questions[1]["choices"] == CHOICE["choices"] and quiz.questions[1]["answer"] == 1
    assert quiz.questions[2]["accept"] == ["4,3", "4,by,3"]
    bundle = quiz._repr_mimebundle_()
    bundle = bundle[0] if isinstance(bundle, tuple) else bundle
    assert bundle["text/plain"] == "Quiz(3 questions)"
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "export default" in quiz._esm and ".tl-quiz" in quiz._css
    assert quiz.trait_metadata("questions", "sync") and quiz.trait_metadata("title", "sync")


@pytest.mark.parametrize("questions, message", [
    ([], "non-empty list"),
    ("what?", "non-empty list"),
    ([42], "question 1 must be a dict"),
    ([SHAPE, {"question": "q", "answer": "1"}], "question 2: missing key 'explain'"),
    ([{**SHAPE, "explain": " "}], "question 1: 'explain' must be a non-empty string"),
    ([{**SHAPE, "hint": "x"}], "unknown key(s) ['hint']"),
    ([{**CHOICE, "answer": 2}], "'answer' must be the index of the right choice (0..1), got 2"),
    ([{**CHOICE, "answer": "1"}], "'answer' must be the index"),
    ([{**CHOICE, "answer": True}], "'answer' must be the index"),
    ([{**CHOICE, "choices": ["only one"]}], "at least 2"),
    ([{**CHOICE, "choices": ["a", "a"]}], "duplicates"),
    ([{**SHAPE, "answer": 3}], "free-text question must be a non-empty string"),
    ([{**SHAPE, "answer": " , "}], "free-text question must be a non-empty string"),
    ([{**SHAPE, "accept": "4x3"}], "'accept' must be a list"),
    ([{**CHOICE, "accept": ["x"]}], "only for free-text"),
])
def test_validation_names_question_and_key(questions, message):
    with pytest.raises((ValueError, TypeError)) as err:
        tl.Quiz(questions)
    assert message in str(err.value)


def test_title_must_be_text():
    with pytest.raises(TypeError, match="title"):
        tl.Quiz([SHAPE], title=3)
    with pytest.raises(TypeError, match="text must be a string"):
        normalize_answer(3)


#: the quiz's own words, by the language of the page: the Chinese book declares lang="zh-CN"
WORDS = {
    "en": {"title": "Check yourself", "number": "Question 1", "wrong": "Not quite: try again.",
           "answer": "Answer: (4, 3)", "score": "2 of 2 answered correctly"},
    "zh-CN": {"title": "自测", "number": "第 1 题", "wrong": "不太对，再试一次。",
              "answer": "答案：(4, 3)", "score": "答对 2 题，共 2 题"},
}


@needs_chromium
@pytest.mark.parametrize("lang, kernel, words", [
    ("en", "en", WORDS["en"]),
    ("zh-CN", "en", WORDS["zh-CN"]),  # the Chinese book's page
    ("en", "zh_CN", WORDS["zh-CN"]),  # a Chinese kernel's quiz in Jupyter or Colab (English pages)
], ids=["en", "zh-CN", "zh-kernel"])
def test_quiz_answers_are_checked_in_the_browser(lang, kernel, words):
    before = tl.get_language()
    tl.set_language(kernel)
    try:
        quiz = tl.Quiz([{**SHAPE, "question": SHAPE["question"] + "\n```\nx = torch.zeros(3, 4)\n```"},
                        CHOICE])
    finally:
        tl.set_language(before)
    state = {"questions": quiz.questions, "title": quiz.title, "language": quiz.language}
    q0, q1 = ".tl-quiz-question[data-index='0']", ".tl-quiz-question[data-index='1']"
    with widget_page(load_esm("quiz.js"), [state], lang) as (page, errors):
        assert page.inner_text(".tl-quiz-title") == words["title"]
        assert page.inner_text(f"{q0} .tl-quiz-number") == words["number"]
        assert page.inner_html(f"{q0} .tl-quiz-text").endswith("<pre><code>x = torch.zeros(3, 4)</code></pre>")
        assert not page.is_visible(f"{q0} .tl-quiz-explain")
        page.fill(f"{q0} input.tl-quiz-input", "(3, 4)")
        page.click(f"{q0} .tl-quiz-submit")
        assert page.get_attribute(q0, "data-state") == "wrong"
        assert page.inner_text(f"{q0} .tl-quiz-feedback") == words["wrong"]
        page.click(f"{q0} .tl-quiz-reveal")
        assert page.get_attribute(q0, "data-state") == "revealed"
        assert page.inner_text(f"{q0} .tl-quiz-feedback") == words["answer"]
        assert page.is_visible(f"{q0} .tl-quiz-explain")
        page.fill(f"{q0} input.tl-quiz-input", "torch.Size([4, 3])")  # try again, with Enter
        page.press(f"{q0} input.tl-quiz-input", "Enter")
        page.click(f"{q1} .tl-quiz-choice[data-choice='0']")
        assert page.get_attribute(q1, "data-state") == "wrong"
        page.click(f"{q1} .tl-quiz-choice[data-choice='1']")
        assert [page.get_attribute(q, "data-state") for q in (q0, q1)] == ["correct", "correct"]
        assert page.inner_text(".tl-quiz-score") == words["score"]
        assert errors == []
