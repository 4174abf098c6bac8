"""Every chapter notebook has the book's shape and is stored executed and clean.

nbval (``make notebooks``) re-runs the notebooks and compares outputs; these checks cover what
nbval does not: the shared setup cell, the chapter shape, the table of contents, tags that
match what the cells really do, and stored outputs free of addresses.
"""

import ast
import builtins
import copy
import importlib
import json
import re
from pathlib import Path

import pytest

from book_pages import (chapters, checked_notebooks, classify, notebooks, pictures, proof_lines,
                        reading_minutes, toc_entries, visible_code_lines)

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = notebooks()
CHECKED = checked_notebooks()  # the per-page tests' pages: all, or those make check names
README = (ROOT / "README.md").read_text(encoding="utf-8")
SETUP = re.search(r"The setup cell, identical in every notebook:\n\n```python\n(.*?)```", README, re.S).group(1)


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def _source(cell):
    return "".join(cell["source"])


ids = [path.name for path in CHECKED]


def test_every_notebook_is_in_the_table_of_contents():
    listed = {entry["file"] for entry in toc_entries()}
    assert NOTEBOOKS, "no chapter notebooks"
    for path in NOTEBOOKS:
        assert f"notebooks/{path.stem}" in listed, f"{path.name} is missing from _toc.yml"


SPLIT_CHAPTERS = {chapter: pages for chapter, pages in chapters().items()
                  if pages[0].kind != "first-edition"}


@pytest.mark.parametrize("chapter", sorted(SPLIT_CHAPTERS))
def test_a_chapter_is_its_landing_page_with_its_pages_in_order(chapter):
    pages = SPLIT_CHAPTERS[chapter]
    assert [p.number for p in pages] == list(range(1, len(pages) + 1)), \
        f"chapter {chapter}'s pages are not numbered 1, 2, ...: {[p.name for p in pages]}"
    landings = [e for e in toc_entries() if e["file"].startswith(f"book/chapters/{chapter}-")]
    assert len(landings) == 1, f"chapter {chapter} needs one landing page book/chapters/{chapter}-*"
    assert (ROOT / f"{landings[0]['file']}.md").exists()
    sections = [s["file"] for s in landings[0].get("sections", [])]
    assert sections == [f"notebooks/{p.name}" for p in pages], \
        f"_toc.yml must list chapter {chapter}'s pages, in order, as its landing page's sections"
    assert [p.kind for p in pages].count("exercises") == 1 and pages[-1].kind == "exercises", \
        f"chapter {chapter} ends with one exercises page, NN-K-exercises"


def test_the_teachers_plan_gives_each_chapters_measured_reading_time():
    """book/teachers.md's reading column is the chapter's pages by reading_minutes, to 5 min."""
    table = dict(re.findall(r"^\| (\d+) [^|]*\| (\d+) min \|", (ROOT / "book/teachers.md")
                            .read_text(encoding="utf-8"), re.M))
    assert sorted(map(int, table)) == sorted(map(int, SPLIT_CHAPTERS)), table
    wrong = {}
    for chapter, pages in SPLIT_CHAPTERS.items():
        minutes = sum(reading_minutes(ROOT / "notebooks" / f"{p.name}.ipynb")
                      for p in pages if p.kind != "exercises")
        if int(table[str(int(chapter))]) != 5 * round(minutes / 5):
            wrong[chapter] = (table[str(int(chapter))], minutes)
    assert not wrong, f"teachers.md says (min), measured: {wrong}"


def test_the_records_are_sections_of_the_appendix():
    records = [f"notebooks/{p.stem}" for p in NOTEBOOKS if classify(p.stem).kind == "record"]
    appendix = [e for e in toc_entries() if e["file"] == "book/articles-checked"]
    assert len(appendix) == 1
    assert sorted(s["file"] for s in appendix[0].get("sections", [])) == sorted(records)


@pytest.mark.parametrize("path", CHECKED, ids=ids)
def test_starts_with_the_shared_setup_cell(path):
    first = _load(path)["cells"][0]
    assert first["cell_type"] == "code"
    assert _source(first).strip() == SETUP.strip(), "the first cell must be README's setup cell"
    assert "hide-input" in first["metadata"].get("tags", [])


def _markdown(cells):
    return "\n".join(_source(c) for c in cells if c["cell_type"] == "markdown")


def _code(cells):
    return "\n".join(_source(c) for c in cells if c["cell_type"] == "code")


def _exercise_ids(cells):
    return {match for cell in cells if cell["cell_type"] == "code"
            for match in re.findall(r'tl\.check\("([\w.]+)", \w+\)', _source(cell))}


@pytest.mark.parametrize("path", CHECKED, ids=ids)
def test_has_the_shape_of_its_kind(path):
    """Teaching pages: goals, sections, a quiz under "Check yourself", the summary last, and no
    exercises. Exercises pages: 3-5 exercises, one of them a silent bug. Records: the appendix's
    snippets with their verdicts. A first-edition chapter: the one-page shape."""
    kind = classify(path.stem).kind
    cells = _load(path)["cells"]
    markdown, code = _markdown(cells), _code(cells)
    headings = re.findall(r"^(#{1,2}) (.+)$", markdown, re.M)
    titles = [text.strip() for level, text in headings if level == "##"]
    assert headings[0][0] == "#", "the first heading is the page's title"
    if kind == "record":
        assert headings[0][1].startswith("Appendix"), "a record's title starts with 'Appendix'"
        assert "**Verdict:" in markdown, "a record gives each snippet's verdict"
        return
    assert titles[-1] == "Summary", "the page ends with its summary"
    if kind == "exercises":
        assert headings[0][1].startswith("Exercises"), "an exercises page is titled 'Exercises: ...'"
        assert 3 <= len(_exercise_ids(cells)) <= 5, "a chapter has 3-5 exercises"
        assert any("Find the silent bug" in title for title in titles), \
            "one exercise is headed 'Find the silent bug'"
        assert not [title for title in titles if re.match(r"\d+\. ", title)], \
            "the book numbers the exercises' sections; a number in the heading repeats it"
        return
    assert "You will be able to" in markdown, "goals near the top"
    assert "Check yourself" in titles
    assert "tl.Quiz(" in code, "a quiz under Check yourself"
    if kind == "teaching":
        assert "tl.check(" not in code, "exercises live on the chapter's exercises page"
    else:
        assert "tl.check(" in code, "checked exercises"


AUDIT_WORDS = re.compile(r"\bthe (source )?articles?\b|\bas written\b|\bverdicts?\b", re.I)


@pytest.mark.parametrize("path", [p for p in CHECKED if classify(p.stem).kind in
                                  ("teaching", "exercises")], ids=lambda p: p.name)
def test_pages_teach_and_leave_the_audit_to_the_appendix(path):
    """A chapter page teaches: the articles' bookkeeping lives in the appendix's records, and a
    page links there from a "Common mistake" admonition."""
    cells = _load(path)["cells"][1:]
    # a "Common mistake" admonition may name the source article it links to
    prose = re.sub(r"(```|:::+)\{admonition\}.*?\n\1", "", _markdown(cells), flags=re.S)
    text = prose + "\n" + "\n".join(
        line for line in _code(cells).splitlines() if line.lstrip().startswith("#"))
    found = AUDIT_WORDS.findall(text)
    assert not found, f"audit bookkeeping in the page ({found[0]}): move it to the record"


@pytest.mark.parametrize("path", CHECKED, ids=ids)
def test_stored_outputs_are_executed_and_honest(path):
    for cell in _load(path)["cells"]:
        if cell["cell_type"] != "code" or not _source(cell).strip():
            continue
        tags = cell["metadata"].get("tags", [])
        label = _source(cell)[:60]
        assert cell["execution_count"] is not None, f"never executed: {label!r}"
        errors = [o for o in cell["outputs"] if o["output_type"] == "error"]
        if "raises-exception" in tags:
            assert errors, f"tagged raises-exception but raised nothing: {label!r}"
        else:
            assert not errors, f"an error without the raises-exception tag: {label!r}"
        if "nbval-ignore-output" not in tags:
            assert not re.search(r"0x[0-9a-f]{8,}", json.dumps(cell["outputs"])), \
                f"a memory address in the output: {label!r}"
        assert "NBVAL_IGNORE_OUTPUT" not in _source(cell), "use the nbval-ignore-output tag"
        printed = json.dumps([o for o in cell["outputs"] if o["output_type"] != "error"])
        assert not re.search(r"/tmp/|ipykernel_\d+|\.venv/", printed), \
            f"a path of the machine that ran it, in the output (readers see it): {label!r}"


MAX_SHOWN_LINE = 79  # what the book's code box shows without scrolling (see _static/tensor-views.css)


@pytest.mark.parametrize("path", CHECKED, ids=ids)
def test_code_shown_in_the_book_fits_the_page(path):
    too_long = [
        line
        for cell in _load(path)["cells"]
        if cell["cell_type"] == "code"
        and not {"remove-input", "remove-cell"} & set(cell["metadata"].get("tags", []))
        for line in _source(cell).splitlines()
        if len(line) > MAX_SHOWN_LINE
    ]
    assert not too_long, (
        f"{len(too_long)} code lines longer than {MAX_SHOWN_LINE} characters scroll sideways in "
        f"the book; the first: {too_long[0]!r}"
    )


@pytest.mark.parametrize("path", CHECKED, ids=ids)
def test_every_figure_has_alt_text(path):
    for cell in _load(path)["cells"]:
        if any("image/png" in o.get("data", {}) for o in cell.get("outputs", [])):
            alt = cell["metadata"].get("mystnb", {}).get("image", {}).get("alt", "")
            assert len(alt) > 20, f"a figure without alt text: {_source(cell)[:60]!r}"


@pytest.mark.parametrize("path", CHECKED, ids=ids)
def test_quiz_answer_keys_are_not_shown_in_the_book(path):
    for cell in _load(path)["cells"]:
        if cell["cell_type"] == "code" and "tl.Quiz(" in _source(cell):
            assert "remove-input" in cell["metadata"].get("tags", []), "the quiz source is its answer key"


#: the chapters whose quizzes label their transfer question "New case:" (新情况： in Chinese)
TRANSFER_CHAPTERS = {f"{n:02d}" for n in range(6, 13)}
NEW_CASE, NEW_CASE_ZH = "New case:", "新情况："


def _quiz_questions(path):
    """The questions of a notebook's quizzes, as its stored widget state holds them."""
    models = _load(path)["metadata"].get("widgets", {}).get(
        "application/vnd.jupyter.widget-state+json", {}).get("state", {})
    return [q["question"] for m in models.values()
            if str(m.get("state", {}).get("_anywidget_id", "")).endswith(".Quiz")
            for q in m["state"]["questions"]]


@pytest.mark.parametrize("path", [p for p in CHECKED if classify(p.stem).kind == "teaching"
                                  and classify(p.stem).chapter in TRANSFER_CHAPTERS],
                         ids=lambda p: p.name)
def test_quiz_has_a_transfer_question_labelled_new_case(path):
    """Each quiz of chapters 6-12 asks at least one question about a situation the page did not
    show, and says so at its start: "New case:" in English (one form, not "A new case:"), and
    新情况： in the quiz catalog's Chinese."""
    import polib

    questions = _quiz_questions(path)
    assert questions, "a quiz under Check yourself"
    assert not [q for q in questions if q.startswith("A new case")], \
        'write "New case:", not "A new case:"'
    labelled = [q for q in questions if q.startswith(NEW_CASE)]
    assert labelled, 'no question starts with "New case:" (a transfer question)'
    catalog = ROOT / "locales" / "zh_CN" / "quizzes" / f"{path.stem}.po"
    zh = {e.msgid: e.msgstr for e in polib.pofile(str(catalog))}
    for question in labelled:
        assert zh.get(question, "").startswith(NEW_CASE_ZH), \
            f"its Chinese must start with {NEW_CASE_ZH}: {question[:60]!r}"


@pytest.mark.parametrize("path", CHECKED, ids=ids)
def test_solution_cells_hold_only_functions_and_are_hidden(path):
    for cell in _load(path)["cells"]:
        tags = cell["metadata"].get("tags", [])
        if "solution" not in tags:
            continue
        body = ast.parse(_source(cell)).body
        assert body and all(isinstance(node, ast.FunctionDef) for node in body), \
            "a solution cell holds only function definitions (make student stubs their bodies)"
        assert "hide-input" in tags, "solutions sit behind a toggle in the book"


@pytest.mark.parametrize("path", CHECKED, ids=ids)
def test_stored_widgets_carry_the_current_javascript(path):
    """The book draws widgets from the state stored in each notebook, JS and CSS included: a
    notebook executed before a widget changed would publish the old widget (`make execute`)."""
    state = _load(path)["metadata"].get("widgets", {})
    models = state.get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    for model in models.values():
        widget_id = model["state"].get("_anywidget_id")
        if widget_id is None:
            continue
        module_name, class_name = widget_id.rsplit(".", 1)
        widget_class = getattr(importlib.import_module(module_name), class_name)
        assert model["state"]["_esm"] == widget_class._esm, f"stale {class_name} JavaScript"
        assert model["state"]["_css"] == widget_class._css, f"stale {class_name} CSS"


def _solution_functions(cells):
    """Names of the functions the chapter's solution cells define."""
    return {node.name for cell in cells if "solution" in cell["metadata"].get("tags", [])
            for node in ast.parse(_source(cell)).body if isinstance(node, ast.FunctionDef)}


def _checked_function(cell):
    """The function name passed to the cell's tl.check call, or None."""
    call = re.search(r'tl\.check\("[\w.]+", (\w+)\)', _source(cell))
    return call.group(1) if cell["cell_type"] == "code" and call else None


@pytest.mark.parametrize("path", CHECKED, ids=ids)
def test_solutions_sit_behind_a_toggle_labelled_solution(path):
    for cell in _load(path)["cells"]:
        if "solution" in cell["metadata"].get("tags", []):
            prompt = cell["metadata"].get("mystnb", {}).get("code_prompt_show")
            assert prompt == "Solution", f"solution toggle labelled {prompt!r}: {_source(cell)[:50]!r}"


@pytest.mark.parametrize("path", CHECKED, ids=ids)
def test_the_page_shows_a_failing_check_and_never_a_pass_for_its_own_solution(path):
    cells = _load(path)["cells"]
    solutions = _solution_functions(cells)
    shown_failures = 0
    for cell in cells:
        name = _checked_function(cell)
        if name is None:
            continue
        tags = cell["metadata"].get("tags", [])
        report = json.dumps(cell["outputs"])
        if name in solutions:
            assert "remove-output" in tags, \
                f"the book's solution {name} would show a pass as if the reader had solved it"
            assert "tl-check-pass" in report, f"the book's solution {name} does not pass"
        elif "remove-output" not in tags and ("tl-check-fail" in report or "tl-check-error" in report):
            shown_failures += 1
    if _exercise_ids(cells):
        assert shown_failures >= 1, "show the reader what a failing check looks like"
    shown = json.dumps([c.get("outputs", []) for c in cells
                        if "remove-output" not in c["metadata"].get("tags", [])])
    assert "tl-check-hint" not in shown, "a hint shown in the page gives an exercise's answer away"


def _normalized(text):
    return re.sub(r"\s+|`", "", text)


def _book_text():
    """Every cell of every notebook, and the prose pages, with each cell's notebook."""
    for path in NOTEBOOKS:
        for cell in _load(path)["cells"]:
            yield path, cell
    for prose in sorted((ROOT / "book").rglob("*.md")):
        yield prose, {"cell_type": "markdown", "source": prose.read_text(encoding="utf-8"),
                      "metadata": {}}


_FENCE = re.compile(r"```(?:python|ipython3)?\n(.*?)```", re.S)
_SPAN = re.compile(r"`([^`\n]+)`")
# names that are not variables: renaming them would be a different program
_KEPT_NAMES = set(dir(builtins)) | {"torch", "tl", "np", "F", "nn", "math", "measure"}
_OPERATIONS = (ast.Call, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Subscript,
               ast.Attribute, ast.comprehension)


def _parsed(source):
    """The module of a piece of book code, or None (IPython magics blanked first)."""
    lines = ["" if line.lstrip().startswith(("%", "!")) else line
             for line in source.splitlines()]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def _code_of(cell):
    """The parsed code a cell shows: a code cell, or a markdown cell's blocks and code spans."""
    source = _source(cell)
    pieces = [source] if cell["cell_type"] == "code" else \
        _FENCE.findall(source) + _SPAN.findall(source)
    return [tree for tree in map(_parsed, pieces) if tree is not None]


class _Renamed(ast.NodeTransformer):
    """Every variable name the same placeholder: attributes, keywords and constants stay."""

    def visit_Name(self, node):
        return ast.Name(id=node.id if node.id in _KEPT_NAMES else "_", ctx=ast.Load())


def _shape(expr):
    return ast.dump(_Renamed().visit(copy.deepcopy(expr)))


def _size(expr):
    return sum(isinstance(node, (ast.expr, ast.keyword)) for node in ast.walk(expr))


def _sections(cells):
    """Each cell with the number of the section (heading) it sits in."""
    section = 0
    for path, cell in cells:
        if cell["cell_type"] == "markdown" and re.search(r"^#{1,4} ", _source(cell), re.M):
            section += 1
        yield section, path, cell


def _answer_steps(fn):
    """What a solution computes: its returned and assigned expressions, with whether the
    expression is the whole body (a docstring aside)."""
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and
                                       isinstance(s.value, ast.Constant))]
    for node in ast.walk(fn):
        if isinstance(node, (ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign)) \
                and node.value is not None:
            yield node.value, body == [node]


def _renamed_copies():
    """(notebook, function, answer step, the book code it renames) for every solution step
    whose expression, variable names aside, is an expression of the book's other code. A step
    counts when it is big (10 nodes or more) or is the whole one-line answer (7 or more, two
    operations at least): `x.T`, `x.sum(dim=0)` or `a[:, None] - b` are too common to count.
    The exercise's own section is left out: a find-the-bug statement shows the steps its fix
    keeps."""
    cells = list(_sections(_book_text()))
    book = {}
    for section, path, cell in cells:
        if "solution" in cell["metadata"].get("tags", []):
            continue
        for tree in _code_of(cell):
            for node in ast.walk(tree):
                if isinstance(node, ast.expr):
                    book.setdefault(_shape(node), []).append(
                        (section, f"{path.name}'s `{ast.unparse(node)}`"))
    for section, path, cell in cells:
        if "solution" not in cell["metadata"].get("tags", []):
            continue
        for fn in ast.parse(_source(cell)).body:
            for expr, whole in _answer_steps(fn):
                big = _size(expr) >= 10 or whole and _size(expr) >= 7 and \
                    sum(isinstance(n, _OPERATIONS) for n in ast.walk(expr)) >= 2
                seen = [code for where, code in book.get(_shape(expr), []) if where != section]
                if big and seen:
                    yield path.name, fn.name, ast.unparse(expr), seen[0]


def test_no_solution_can_be_copied_from_the_book():
    """What a solution returns appears nowhere else in the book, code or prose, so an exercise
    is practice, not copying (short expressions such as `x.T` are too common to count)."""
    cells = list(_book_text())
    elsewhere = _normalized("\n".join(_source(c) for _, c in cells
                                      if "solution" not in c["metadata"].get("tags", [])))
    for path, cell in cells:
        if "solution" not in cell["metadata"].get("tags", []):
            continue
        for fn in ast.parse(_source(cell)).body:
            for node in ast.walk(fn):
                if isinstance(node, ast.Return) and node.value is not None:
                    answer = ast.unparse(node.value)
                    assert len(_normalized(answer)) < 12 or _normalized(answer) not in elsewhere, \
                        f"{path.name}: {fn.name}'s answer `{answer}` appears elsewhere in the book"
    copies = [f"{name}: {fn}'s step `{step}` is {code} renamed"
              for name, fn, step, code in _renamed_copies()]
    assert not copies, "solutions that rename the book's code:\n" + "\n".join(copies)


def test_no_code_cell_is_repeated_across_notebooks():
    """One home per concept: a cell of three or more lines lives in one chapter only (the shared
    setup cell aside); other chapters link to it."""
    homes = {}
    for path in NOTEBOOKS:
        for cell in _load(path)["cells"][1:]:
            lines = [line.rstrip() for line in _source(cell).strip().splitlines() if line.strip()]
            if cell["cell_type"] == "code" and len(lines) >= 3:
                homes.setdefault("\n".join(lines), set()).add(path.name)
    repeated = {code: sorted(names) for code, names in homes.items() if len(names) > 1}
    assert not repeated, f"{len(repeated)} code cells appear in several notebooks, e.g. " \
                         f"{next(iter(repeated.values()))}: {next(iter(repeated))[:80]!r}"


@pytest.mark.parametrize("path", CHECKED, ids=ids)
def test_a_worked_failing_check_comes_before_the_exercises_own_check(path):
    """Graders count the last check of an exercise in a notebook, so a worked example (a wrong
    attempt defined in the check's own cell) must come before the check students complete."""
    cells = [c for c in _load(path)["cells"] if c["cell_type"] == "code"]
    solutions = _solution_functions(cells)
    last_check = {}
    for position, cell in enumerate(cells):
        name = _checked_function(cell)
        if name is not None:
            exercise_id = re.search(r'tl\.check\("([\w.]+)"', _source(cell)).group(1)
            last_check[exercise_id] = (position, name)
    for exercise_id, (_, name) in last_check.items():
        assert name in solutions, f"the last check of {exercise_id} is a worked example ({name})"


MAX_VISIBLE_ASSERT_SHARE = 0.05


@pytest.mark.parametrize("chapter", sorted(chapters()))
def test_at_most_5_percent_of_a_chapters_visible_code_is_asserts(chapter):
    """Lesson code and proof code (book-plan, third edition): a check that only proves the prose
    folds away; a visible assert is where the assert is the lesson."""
    pages = [NOTEBOOKS[0].parent / f"{page.name}.ipynb" for page in chapters()[chapter]]
    lines = [line for path in pages for line in visible_code_lines(path)]
    asserts = proof_lines(lines)
    assert lines, f"chapter {chapter} shows no code"
    assert len(asserts) <= MAX_VISIBLE_ASSERT_SHARE * len(lines), (
        f"chapter {chapter}: {len(asserts)} of its {len(lines)} visible code lines are asserts; "
        f"fold the proofs (tags: [hide-input]) and print one line instead: {asserts[:3]}")


@pytest.mark.parametrize("path", [p for p in CHECKED if classify(p.stem).kind == "teaching"],
                         ids=lambda p: p.name)
def test_every_teaching_page_has_a_picture_or_an_explorer(path):
    """A figure the page draws (a PNG among its stored outputs) or one of the explorers."""
    assert pictures(path), f"{path.name} has no picture and no explorer"


_HEADING = re.compile(r"#{2,4} (.+)")
_CHECK_CALL = re.compile(r'tl\.check\(\s*"([a-z_]+\.\w+)"')


def test_every_check_sits_under_the_heading_its_report_names():
    """A report names its exercise by title: the heading above its check, code marks aside (an
    exercises page's first check, before any heading, only shows what a report looks like)."""
    from tensorlens.exercises import EXERCISES

    differ, checked = {}, 0
    for page in sorted((ROOT / "notebooks").glob("*.md")):
        heading = None
        for line in page.read_text(encoding="utf-8").splitlines():
            if match := _HEADING.fullmatch(line):
                heading = match.group(1).replace("`", "").strip()
            for exercise_id in _CHECK_CALL.findall(line):
                if heading is not None:
                    checked += 1
                    if heading != EXERCISES[exercise_id].title:
                        differ[f"{page.stem} {exercise_id}"] = (heading, EXERCISES[exercise_id].title)
    assert checked > len(EXERCISES) // 2, "the checks are no longer found under their headings"
    assert differ == {}
