"""The quizzes in Chinese (scripts/quiz_messages.py): which words are translated, and a
translated quiz that still checks the same answers.

Every quiz page's catalog holding exactly its quizzes' messages is tests/test_i18n.py's
out-of-date test; the Chinese quiz in the built page is tests/browser/test_widgets_in_book.py's.
"""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import quiz_messages  # noqa: E402

QUIZ_PAGES = sorted(nb for nb in (ROOT / "notebooks").glob("*.ipynb")
                    if quiz_messages.page_messages(nb))


@pytest.mark.parametrize("choice, words", [
    ("yes", True),
    ("neither", True),
    ("returns a view", True),
    ("float16 only", True),
    ("a RuntimeError", True),
    ("shape (2, 3)", True),
    ("`D.eval()`, then `D(G(z))`", True),
    ("save `float(losses.mean())`", True),
    ("cpu", False),
    ("inf", False),
    ("None", False),
    ("torch.float16", False),
    ("tensor([3, 4])", False),
    ("(1, H, W)", False),
    ("`x.t()`", False),
    ("lambda i: None", False),
    ("y (the result)", True),
    ("tensor(inf, dtype=torch.float16)", False),
    ("Self CPU", False),
    ("mha(x, x, x, key_padding_mask=~keep)", False),
])
def test_a_choice_in_words_is_translated_and_code_is_not(choice, words):
    assert quiz_messages.in_words(choice) is words


def _state(title, questions):
    quiz = {"_anywidget_id": "tensorlens.widgets.quiz.Quiz", "title": title, "questions": questions}
    return {quiz_messages.WIDGET_STATE: {"state": {"m1": {"state": quiz}}}}


QUESTION = {"question": "Is `x` a view?", "choices": ["yes", "no", "torch.float16"], "answer": 1,
            "accept": [], "explain": "It owns its storage."}
TYPED = {"question": "What is `x.shape`?", "choices": None, "answer": "(2, 3)",
         "accept": ["(2, 3)", "2, 3"], "explain": "Two rows."}
TABLE = {"Is `x` a view?": "`x` 是视图吗？", "yes": "是", "no": "否", "It owns its storage.": "它有自己的存储。",
         "What is `x.shape`?": "`x.shape` 是什么？", "My quiz": "我的测验"}


def test_a_translated_quiz_keeps_its_answers_and_its_code():
    state = _state("My quiz", [QUESTION, TYPED])
    before = json.dumps(state)
    translated, missing = quiz_messages.translate_state(state, TABLE)
    assert json.dumps(state) == before, "the notebook's own state is left alone"
    quiz = quiz_messages.quiz_models(translated)[0]
    assert quiz["title"] == "我的测验"
    choice, typed = quiz["questions"]
    assert choice["question"] == "`x` 是视图吗？" and choice["choices"] == ["是", "否", "torch.float16"]
    assert choice["answer"] == 1 and choice["explain"] == "它有自己的存储。"
    assert typed["answer"] == "(2, 3)" and typed["accept"] == ["(2, 3)", "2, 3"]
    assert missing == ["Two rows."], "a message the table lacks is reported, and stays English"
    assert typed["explain"] == "Two rows."


def test_the_titles_the_quiz_translates_itself_are_no_messages():
    state = _state("Check yourself", [QUESTION])
    assert "Check yourself" not in quiz_messages.messages(quiz_messages.quiz_models(state)[0])
    translated, missing = quiz_messages.translate_state(state, TABLE)
    assert quiz_messages.quiz_models(translated)[0]["title"] == "Check yourself"
    assert missing == []


def test_a_message_met_twice_is_one_message(tmp_path):
    state = _state("", [QUESTION, {**QUESTION, "answer": 0}])
    path = tmp_path / "twice.ipynb"
    path.write_text(json.dumps({"metadata": {"widgets": state}}), encoding="utf-8")
    assert quiz_messages.page_messages(path) == ["Is `x` a view?", "yes", "no", "It owns its storage."]


@pytest.mark.parametrize("notebook", QUIZ_PAGES, ids=lambda p: p.stem)
def test_every_quiz_reads_in_chinese_with_the_same_answers(notebook):
    state = json.loads(notebook.read_text(encoding="utf-8"))["metadata"]["widgets"]
    translated, missing = quiz_messages.translate_state(
        state, quiz_messages.translations(notebook.stem))
    assert missing == []
    for before, after in zip(quiz_messages.quiz_models(state), quiz_messages.quiz_models(translated)):
        for q, t in zip(before["questions"], after["questions"]):
            assert (t["answer"], t.get("accept")) == (q["answer"], q.get("accept"))
            assert any("\u4e00" <= ch <= "\u9fff" for ch in t["question"] + t["explain"])


def test_the_package_holds_the_catalogs_translations():
    """tensorlens/widgets/zh_CN_quizzes.json is what the catalogs say (make i18n writes it)."""
    assert quiz_messages.PACKAGE_TABLE.read_text(encoding="utf-8") == quiz_messages.package_table()


@pytest.mark.parametrize("notebook", QUIZ_PAGES, ids=lambda p: p.stem)
def test_a_quiz_made_in_a_chinese_kernel_is_the_chinese_books(notebook):
    """tl.Quiz built from a page's questions after set_language("zh_CN") holds what the Chinese
    book draws for that page (translate_state over the stored widget state); in English, what
    the English notebook stores."""
    import tensorlens as tl

    state = json.loads(notebook.read_text(encoding="utf-8"))["metadata"]["widgets"]
    translated, _ = quiz_messages.translate_state(state, quiz_messages.translations(notebook.stem))
    for english, chinese in zip(quiz_messages.quiz_models(state),
                                quiz_messages.quiz_models(translated)):
        given = [{k: v for k, v in q.items() if v is not None} for q in english["questions"]]
        en = tl.Quiz(given, title=english["title"])
        tl.set_language("zh_CN")
        try:
            zh = tl.Quiz(given, title=english["title"])
        finally:
            tl.set_language("en")

        def shown(questions):  # the accepted spellings, normalized once more, aside
            return [{k: v for k, v in q.items() if k != "accept"} for q in questions]

        assert (shown(en.questions), en.title) == (shown(english["questions"]), english["title"])
        assert (shown(zh.questions), zh.title) == (shown(chinese["questions"]), chinese["title"])
        assert [q["accept"] for q in zh.questions] == [q["accept"] for q in en.questions]
        # its own words: Chinese wherever it is drawn, or the page's language (i18n.js)
        assert (zh.language, en.language) == ("zh", "")
