"""``Quiz``: predict-the-result questions checked in the browser (no kernel needed).

Contract: the widget holds the questions in the synced trait ``questions`` and its JavaScript
(``tensorlens/widgets/static/quiz.js``) checks every answer itself, so it works in the static book.
Questions are validated here (ValueError/TypeError naming the question and key); the normalized
form of free-text answers is computed by :func:`normalize_answer` in Python and by the same rule in
JS (the tests compare the two). ``repr`` is deterministic: ``Quiz(3 questions)``. In a Chinese
kernel (``tensorlens.set_language("zh_CN")`` or ``TENSORLENS_LANGUAGE``) the book's quizzes ask
their questions in Chinese (``zh_CN_quizzes.json``, exported from the quiz catalogs by
``scripts/quiz_messages.py``); the answers stay the same.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import anywidget
import traitlets

from ..language import get_language
from ._esm import load_css, load_esm

__all__ = ["Quiz", "normalize_answer"]

_KEYS = {"question", "choices", "answer", "accept", "explain"}

_SIZE = re.compile(r"^(?:torch\.)?size\((.*)\)$")


def normalize_answer(text: str) -> str:
    """The canonical form of a free-text answer, so equivalent spellings compare equal.

    Lower case; backticks, quotes and a final full stop dropped. A tensor answer (starting with
    ``tensor(``) only loses its whitespace, so ``tensor(6)`` and ``tensor([6])`` stay different.
    Anything else is read as a tuple: a ``torch.Size(...)`` wrapper, brackets and parentheses are
    removed and commas and whitespace collapse to single commas. So ``"(3, 4)"``, ``"3,4"``,
    ``"[3, 4]"`` and ``"torch.Size([3, 4])"`` all become ``"3,4"``, ``"(3,)"`` becomes ``"3"`` and
    ``"torch.Size([])"`` becomes ``"()"``.

    Raises
    ------
    TypeError
        If ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"normalize_answer: text must be a string, got {type(text).__name__}")
    s = re.sub(r"[`'\"]", "", text.strip().lower()).strip()
    s = re.sub(r"\.$", "", s).strip()
    if s.startswith("tensor("):
        return re.sub(r"\s+", "", s)
    match = _SIZE.match(re.sub(r"\s+", "", s))
    if match:
        s = match.group(1)
    had_brackets = bool(re.search(r"[()\[\]]", s))
    s = re.sub(r"[()\[\]]", " ", s)
    s = re.sub(r"[\s,]+", ",", s).strip(",")
    # the empty tuple (a 0-d tensor's shape or strides) keeps a visible form
    return "()" if not s and had_brackets else s


def _validate(questions) -> list[dict]:
    if not isinstance(questions, (list, tuple)) or not questions:
        raise ValueError("Quiz: questions must be a non-empty list of dicts")
    out = []
    for i, q in enumerate(questions, start=1):
        where = f"Quiz: question {i}"
        if not isinstance(q, dict):
            raise TypeError(f"{where} must be a dict, got {type(q).__name__}")
        unknown = set(q) - _KEYS
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: {sorted(_KEYS)}")
        for key in ("question", "answer", "explain"):
            if key not in q:
                raise ValueError(f"{where}: missing key {key!r}")
        for key in ("question", "explain"):
            if not isinstance(q[key], str) or not q[key].strip():
                raise ValueError(f"{where}: {key!r} must be a non-empty string")
        choices = q.get("choices")
        answer = q["answer"]
        accept = q.get("accept", [])
        if choices is not None:
            if (not isinstance(choices, (list, tuple)) or len(choices) < 2
                    or not all(isinstance(c, str) and c.strip() for c in choices)):
                raise ValueError(f"{where}: 'choices' must be a list of at least 2 non-empty strings")
            if len(set(choices)) != len(choices):
                raise ValueError(f"{where}: 'choices' has duplicates")
            if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(choices):
                raise ValueError(f"{where}: 'answer' must be the index of the right choice "
                                 f"(0..{len(choices) - 1}), got {answer!r}")
            if accept:
                raise ValueError(f"{where}: 'accept' is only for free-text questions")
            out.append({"question": q["question"], "choices": list(choices), "answer": answer,
                        "accept": [], "explain": q["explain"]})
            continue
        if not isinstance(answer, str) or not normalize_answer(answer):
            raise ValueError(f"{where}: 'answer' of a free-text question must be a non-empty string "
                             f"(or give 'choices' and an index), got {answer!r}")
        if not isinstance(accept, (list, tuple)) or not all(isinstance(a, str) and normalize_answer(a)
                                                            for a in accept):
            raise ValueError(f"{where}: 'accept' must be a list of non-empty strings")
        forms = []
        for a in [answer, *accept]:
            if normalize_answer(a) not in forms:
                forms.append(normalize_answer(a))
        out.append({"question": q["question"], "choices": None, "answer": answer, "accept": forms,
                    "explain": q["explain"]})
    return out


#: the titles quiz.js translates by itself
_OWN_TITLES = {"Check yourself", "Predict the result"}


@functools.cache
def _chinese() -> dict:
    """The book's quiz messages in Chinese, page by page (``zh_CN_quizzes.json``, from the quiz
    catalogs)."""
    path = Path(__file__).with_name("zh_CN_quizzes.json")
    return json.loads(path.read_text(encoding="utf-8"))["pages"]


def _in_chinese(questions: list, title: str) -> tuple[list, str]:
    """The questions and title in Chinese as the page of the book that asks them has them (the
    page whose catalog holds every question; a quiz the book does not have stays as written).
    Answers, accepted spellings and the choices that are code stay as they are, so the same
    answers are right."""
    table = next((t for t in _chinese().values() if all(q["question"] in t for q in questions)),
                 {})
    out = [{**q, "question": table.get(q["question"], q["question"]),
            "explain": table.get(q["explain"], q["explain"]),
            "choices": None if q["choices"] is None else [table.get(c, c) for c in q["choices"]]}
           for q in questions]
    return out, title if title in _OWN_TITLES else table.get(title, title)


class Quiz(anywidget.AnyWidget):
    """Predict-the-result questions, answered and checked in the browser.

    Parameters
    ----------
    questions : list of dict
        Each dict has ``"question"`` (text; code in backticks, fenced blocks with ```),
        ``"answer"`` (the index of the right choice, or the expected text), ``"explain"`` (shown
        once answered) and optionally ``"choices"`` (a list of strings: multiple choice) or
        ``"accept"`` (other accepted spellings of a free-text answer). Free-text answers are
        compared after :func:`normalize_answer`.
    title : str
        A heading shown above the questions.

    Raises
    ------
    ValueError, TypeError
        Naming the question (1-based) and the key that is wrong.

    Examples
    --------
    >>> Quiz([{"question": "Shape of `torch.zeros(3, 4).T`?", "answer": "(4, 3)",
    ...        "explain": "`.T` swaps the two dims."}])
    Quiz(1 question)
    """

    _esm = load_esm("quiz.js")
    _css = load_css("frame.css", "quiz.css")

    questions = traitlets.List(traitlets.Dict()).tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    #: "zh" in a Chinese kernel: the quiz's own words (buttons, feedback) in Chinese wherever it
    #: is drawn; "" follows the page's language (the Chinese book's pages are Chinese)
    language = traitlets.Unicode("").tag(sync=True)

    def __init__(self, questions, title: str = "Check yourself", **kwargs):
        if not isinstance(title, str):
            raise TypeError(f"Quiz: title must be a string, got {type(title).__name__}")
        questions = _validate(questions)
        chinese = get_language() == "zh_CN"
        if chinese:
            questions, title = _in_chinese(questions, title)
        super().__init__(questions=questions, title=title, language="zh" if chinese else "",
                         **kwargs)

    def __repr__(self) -> str:
        n = len(self.questions)
        return f"Quiz({n} question{'s' if n != 1 else ''})"
