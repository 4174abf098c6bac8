"""The quizzes' words in Chinese: one catalog per quiz page, ``locales/zh_CN/quizzes/<page>.po``.

A quiz's questions live in its code cell (``tl.Quiz([...])``), which Sphinx's gettext builder does
not read, and reach the book as the widget state stored in the executed notebook. So the
messages are taken from that state: each question, its explanation, every choice written in words
(a choice that is code or a value, such as ``torch.float16`` or ``tensor([3, 4])``, reads the same
in both books) and a title other than the two the quiz translates itself. The Chinese book puts
the translations into the state it draws (``_ext/bilingual.py``); the answers, the accepted
spellings and the code spans of every message stay as written, so a quiz checks the same answers
in both languages. ``scripts/i18n.py`` keeps these catalogs with the pages' (update, stat,
todo, fill, outdated). Their translations also go into the package, ``PACKAGE_TABLE`` (written
by ``update`` and ``fill``, or ``python scripts/quiz_messages.py``): ``tensorlens.Quiz`` in a
Chinese kernel (``TENSORLENS_LANGUAGE``, as the Chinese notebooks' setup cell sets it) asks its
questions in Chinese from it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
QUIZ_CATALOGS = ROOT / "locales" / "zh_CN" / "quizzes"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
#: the titles quiz.js translates by itself (its WORDS table)
OWN_TITLES = {"Check yourself", "Predict the result"}
_CODE = re.compile(r"`[^`]*`")
_WORD = re.compile(r"a|[a-z]{2,}")
#: lowercase words that are code when they stand alone (a device, a value, a type, a keyword)
CODE_WORDS = {"cpu", "cuda", "inf", "nan", "int", "float", "bool", "lambda"}


def in_words(text: str) -> bool:
    """Whether a choice is written in words (outside its code spans), not as code or a value:
    it has a plain lowercase word ("yes", "raises", "float16 only", "y (the result)") that is
    not code such as ``cpu`` or ``inf``. A token with a dot, an inner bracket or an operator
    (``tensor(inf,``, ``dtype=torch.float16)``) is code; so is a capitalised name ("Self CPU")."""
    for token in _CODE.sub(" ", text).replace(",", " ").split():
        word = token.strip("()[];:?!'\"")
        if _WORD.fullmatch(word) and word not in CODE_WORDS:
            return True
    return False


def quiz_models(state: dict) -> list[dict]:
    """The Quiz models' states in a notebook's widget state (the metadata's ``widgets`` entry)."""
    models = state.get(WIDGET_STATE, {}).get("state", {})
    return [m["state"] for m in models.values()
            if str(m.get("state", {}).get("_anywidget_id", "")).endswith(".Quiz")]


def messages(quiz: dict) -> list[str]:
    """One quiz's messages, in the order a reader meets them."""
    found = [] if quiz.get("title", "") in OWN_TITLES | {""} else [quiz["title"]]
    for q in quiz["questions"]:
        found.append(q["question"])
        found += [c for c in q.get("choices") or [] if in_words(c)]
        found.append(q["explain"])
    return found


def page_messages(notebook: Path) -> list[str]:
    """Every quiz message of an executed notebook, each once."""
    state = json.loads(notebook.read_text(encoding="utf-8"))["metadata"].get("widgets", {})
    seen = []
    for quiz in quiz_models(state):
        for message in messages(quiz):
            if message not in seen:
                seen.append(message)
    return seen


def catalog_path(page: str) -> Path:
    return QUIZ_CATALOGS / f"{page}.po"


def translations(page: str) -> dict[str, str]:
    """A page's translated quiz messages (none for a page without a quiz catalog)."""
    po = catalog_path(page)
    if not po.exists():
        return {}
    return {e.msgid: e.msgstr for e in polib.pofile(str(po))
            if e.msgstr and not e.obsolete and "fuzzy" not in e.flags}


def translate_state(state: dict, table: dict[str, str]) -> tuple[dict, list[str]]:
    """A copy of a notebook's widget state whose quizzes read ``table``'s translations, and the
    messages the table lacks (they stay English). Answers and accepted spellings are kept."""
    state = json.loads(json.dumps(state))
    missing = []

    def said(text):
        if text not in table:
            missing.append(text)
        return table.get(text, text)

    for quiz in quiz_models(state):
        if quiz.get("title", "") not in OWN_TITLES | {""}:
            quiz["title"] = said(quiz["title"])
        for q in quiz["questions"]:
            q["question"] = said(q["question"])
            q["explain"] = said(q["explain"])
            if q.get("choices"):
                q["choices"] = [said(c) if in_words(c) else c for c in q["choices"]]
    return state, missing


#: the quizzes' Chinese words as tensorlens ships them, for a Chinese kernel (tensorlens.Quiz)
PACKAGE_TABLE = ROOT / "tensorlens" / "widgets" / "zh_CN_quizzes.json"


def package_table() -> str:
    """Every quiz catalog's translated messages, page by page (a word such as "both" may read
    differently on two pages), as the text of ``PACKAGE_TABLE``."""
    pages = {po.stem: translations(po.stem) for po in sorted(QUIZ_CATALOGS.glob("*.po"))}
    return json.dumps({"about": "The quizzes' Chinese words, page by page, from "
                                "locales/zh_CN/quizzes/*.po (written by scripts/quiz_messages.py; "
                                "do not edit): tensorlens.Quiz reads them in a Chinese kernel.",
                       "pages": {page: dict(sorted(t.items())) for page, t in pages.items() if t}},
                      ensure_ascii=False, indent=0) + "\n"


def export() -> list[str]:
    """Write ``PACKAGE_TABLE`` when the catalogs changed it."""
    text = package_table()
    if PACKAGE_TABLE.exists() and PACKAGE_TABLE.read_text(encoding="utf-8") == text:
        return []
    PACKAGE_TABLE.write_text(text, encoding="utf-8")
    return [f"wrote {PACKAGE_TABLE.relative_to(ROOT)}"]


def update() -> list[str]:
    """Catalogs follow the notebooks: one per page with a quiz, its messages those of the page's
    quizzes; a kept message keeps its translation, a new or changed one waits for its own."""
    QUIZ_CATALOGS.mkdir(parents=True, exist_ok=True)
    done = []
    pages = {}
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
        found = page_messages(notebook)
        if found:
            pages[notebook.stem] = found
    for po in QUIZ_CATALOGS.glob("*.po"):
        if po.stem not in pages:
            po.unlink()
            done.append(f"removed {po.relative_to(ROOT)}: its page has no quiz")
    for page, found in pages.items():
        old = translations(page)
        catalog = polib.POFile(wrapwidth=0)
        catalog.metadata = {"Language": "zh_CN", "MIME-Version": "1.0",
                            "Content-Type": "text/plain; charset=UTF-8",
                            "Content-Transfer-Encoding": "8bit"}
        for msgid in found:
            catalog.append(polib.POEntry(msgid=msgid, msgstr=old.get(msgid, "")))
        text = str(catalog)
        po = catalog_path(page)
        if not po.exists() or po.read_text(encoding="utf-8") != text:
            po.write_text(text, encoding="utf-8")
            done.append(f"wrote {po.relative_to(ROOT)}")
    return done + export()


def out_of_date() -> list[str]:
    """Pages whose quiz catalog is missing, gone or holds other messages than the quizzes give."""
    problems = []
    pages = {nb.stem: page_messages(nb) for nb in sorted(NOTEBOOKS.glob("*.ipynb"))}
    for page, found in pages.items():
        po = catalog_path(page)
        if found and not po.exists():
            problems.append(f"{page}: no quiz catalog (run make i18n)")
        elif po.exists():
            have = [e.msgid for e in polib.pofile(str(po)) if not e.obsolete]
            if have != found:
                problems.append(f"{page}: its quiz catalog holds other messages than its quizzes "
                                "(run make i18n)")
    for po in QUIZ_CATALOGS.glob("*.po"):
        if po.stem not in pages:
            problems.append(f"{po.stem}: a quiz catalog for a page that is gone (run make i18n)")
    if not PACKAGE_TABLE.exists() or PACKAGE_TABLE.read_text(encoding="utf-8") != package_table():
        problems.append(f"{PACKAGE_TABLE.relative_to(ROOT)} is not the catalogs' translations "
                        "(run make i18n, or python scripts/quiz_messages.py)")
    return problems


if __name__ == "__main__":
    print("\n".join(export()) or f"{PACKAGE_TABLE.relative_to(ROOT)} is current")
