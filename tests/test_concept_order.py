"""Nothing before its home: book-plan.md's principle 2, tested against book/concepts.yml.

book/concepts.yml records each concept's home page and the code patterns that count as using
it. Walking _toc.yml's chapters in reading order, a page fails when its code cells (visible or
hidden), its fenced code blocks or the inline `code` of its prose use a concept whose home
comes later. A chapter's landing page counts as coming after its own pages (it may name what
they teach). Text inside a {doc}, {ref} or {term} role is a link, and linking ahead is allowed.
The front matter (intro, setup, teachers), the appendix and the glossary are reference pages,
not part of the teaching order, and are not walked.

`allowed` in the data file lists known violations, each with its page and concept and a reason.
An allowed entry that no longer occurs fails too, so the list can only shrink.
"""

from __future__ import annotations

import pathlib
import re
from dataclasses import dataclass

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONCEPTS = ROOT / "book" / "concepts.yml"
TOC = ROOT / "_toc.yml"

ROLE = re.compile(r"\{(?:doc|ref|term|numref|download|eq)\}`[^`]*`")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*(.*)$")
CODE_DIRECTIVES = ("{code-cell}", "{code-block}", "{code}", "{sourcecode}")


@dataclass(frozen=True)
class Use:
    page: str
    concept: str
    home: str
    line: int
    text: str

    def __str__(self) -> str:
        return (f"{self.page}:{self.line} uses {self.concept!r} before its home "
                f"{self.home}: {self.text.strip()[:100]}")


def code_lines(text: str) -> list[tuple[int, str]]:
    """The parts of a MyST page that are code, as (line number, text) pairs.

    Lines inside a code cell or a fenced code block count whole; in prose (and inside other
    directives such as admonitions), only inline code spans count, with {doc}/{ref}/{term}
    roles removed first. YAML front matter is skipped.
    """
    lines = text.split("\n")
    out: list[tuple[int, str]] = []
    i = 0
    if lines and lines[0].strip() == "---":  # front matter
        i = 1
        while i < len(lines) and lines[i].strip() != "---":
            i += 1
        i += 1
    fence_stack: list[tuple[str, bool]] = []  # (fence string, is code)
    for number in range(i, len(lines)):
        line = lines[number]
        in_code = bool(fence_stack) and fence_stack[-1][1]
        match = FENCE.match(line)
        if match:
            fence, info = match.groups()
            if fence_stack and not info and fence[0] == fence_stack[-1][0][0] \
                    and len(fence) >= len(fence_stack[-1][0]):
                fence_stack.pop()
                continue
            if not in_code:
                is_code = not info.startswith("{") or info.startswith(CODE_DIRECTIVES)
                fence_stack.append((fence, is_code))
                if not is_code:  # a directive's title line is prose
                    out.extend((number + 1, m.group(2))
                               for m in INLINE_CODE.finditer(ROLE.sub("", info)))
                continue
        if in_code:
            out.append((number + 1, line))
        else:
            out.extend((number + 1, m.group(2)) for m in INLINE_CODE.finditer(ROLE.sub("", line)))
    return out


def load_concepts(data: dict) -> dict[str, tuple[str, list[re.Pattern]]]:
    return {name: (spec["home"], [re.compile(p) for p in spec["patterns"]])
            for name, spec in data["concepts"].items()}


def reading_order(toc: dict) -> list[tuple[str, float]]:
    """The chapters' pages as (page, position): pages 0, 1, 2, ...; a landing page after its
    chapter's last page."""
    order: list[tuple[str, float]] = []
    position = 0
    for part in toc.get("parts", []):
        for chapter in part.get("chapters", []):
            sections = chapter.get("sections")
            if not sections:
                continue
            for section in sections:
                order.append((section["file"], position))
                position += 1
            order.append((chapter["file"], position - 0.5))
    return order


def find_uses(pages: list[tuple[str, float, str]], concepts) -> list[Use]:
    """Every use of a concept on a page before its home. pages: (page, position, text)."""
    positions = {page: position for page, position, _ in pages}
    uses = []
    for page, position, text in pages:
        lines = code_lines(text)
        for concept, (home, patterns) in concepts.items():
            if positions[home] <= position:
                continue
            for number, line in lines:
                if any(p.search(line) for p in patterns):
                    uses.append(Use(page, concept, home, number, line))
                    break  # the first use on the page is enough to name it
    return uses


def check(pages, data) -> list[str]:
    """The problems the test reports: uses not allowed, and allowed entries that no longer
    occur."""
    concepts = load_concepts(data)
    uses = find_uses(pages, concepts)
    allowed = {(a["page"], a["concept"]) for a in data.get("allowed") or []}
    problems = [str(u) for u in uses if (u.page, u.concept) not in allowed]
    found = {(u.page, u.concept) for u in uses}
    problems += [f"allowed entry no longer occurs, remove it from book/concepts.yml: "
                 f"{page} / {concept}" for page, concept in sorted(allowed - found)]
    return problems


def _source(page: str) -> pathlib.Path:
    return ROOT / f"{page}.md"


def _book_pages():
    toc = yaml.safe_load(TOC.read_text(encoding="utf-8"))
    return [(page, position, _source(page).read_text(encoding="utf-8"))
            for page, position in reading_order(toc)]


@pytest.fixture(scope="module")
def data():
    return yaml.safe_load(CONCEPTS.read_text(encoding="utf-8"))


def test_nothing_is_used_before_its_home(data):
    problems = check(_book_pages(), data)
    assert not problems, "\n".join(problems)


def test_each_home_is_a_page_of_the_book_and_uses_its_concept(data):
    """A home that is not in _toc.yml, or whose page matches none of the concept's patterns,
    is a typo in the data file: the test above would check nothing for that concept."""
    pages = {page: text for page, _, text in _book_pages()}
    for concept, (home, patterns) in load_concepts(data).items():
        assert home in pages, f"{concept}: home {home} is not a page of _toc.yml's chapters"
        lines = code_lines(pages[home])
        assert any(p.search(line) for _, line in lines for p in patterns), (
            f"{concept}: none of its patterns appears on its home page {home}")


def test_allowed_entries_name_a_page_a_concept_and_a_reason(data):
    pages = {page for page, _, _ in _book_pages()}
    for entry in data.get("allowed") or []:
        assert entry["page"] in pages, entry
        assert entry["concept"] in data["concepts"], entry
        assert entry.get("why", "").strip(), entry


# --- the checker itself, on synthetic pages -------------------------------------------------

SYNTHETIC = {
    "concepts": {
        "stride": {"home": "p/03-1", "patterns": [r"\.stride\(", r"\bStrideExplorer\b"]},
        "expand": {"home": "p/05-1", "patterns": [r"\.expand\("]},
    },
    "allowed": [],
}


def _pages(*texts):
    names = ["p/01-1", "p/03-1", "p/05-1"]
    return [(name, float(i), text) for i, (name, text) in enumerate(zip(names, texts))]


CELL = "```{code-cell} ipython3\n%s\n```\n"


def test_a_code_cell_before_the_home_fails_naming_page_and_concept():
    problems = check(_pages(CELL % "x.stride()", "", ""), SYNTHETIC)
    assert len(problems) == 1
    assert problems[0].startswith("p/01-1:2 uses 'stride' before its home p/03-1")


def test_hidden_cells_and_inline_code_count():
    hidden = "```{code-cell} ipython3\n---\ntags: [remove-cell]\n---\nassert y.stride() == (1,)\n```"
    assert check(_pages(hidden, "", ""), SYNTHETIC)
    assert check(_pages("Its `tl.StrideExplorer(x)` shows it.", "", ""), SYNTHETIC)


def test_uses_on_or_after_the_home_pass():
    assert check(_pages("", CELL % "x.stride()", CELL % "x.expand(3, 4).stride()"),
                 SYNTHETIC) == []


def test_links_ahead_and_plain_words_pass():
    prose = ("How {doc}`x.stride() <03-1>` works comes later; the stride is "
             "{term}`stride`. Plain words: stride, expand.")
    assert check(_pages(prose, "", ""), SYNTHETIC) == []


def test_prose_inside_a_directive_counts_only_its_inline_code():
    box = "```{admonition} Note\nThe word stride, then `x.expand(2)`.\n```"
    problems = check(_pages(box, "", ""), SYNTHETIC)
    assert len(problems) == 1 and "'expand'" in problems[0]


def test_the_allow_list_silences_a_use_and_fails_when_stale():
    data = dict(SYNTHETIC, allowed=[{"page": "p/01-1", "concept": "stride", "why": "test"}])
    assert check(_pages(CELL % "x.stride()", "", ""), data) == []
    stale = check(_pages("", "", ""), data)
    assert stale == ["allowed entry no longer occurs, remove it from book/concepts.yml: "
                     "p/01-1 / stride"]


def test_a_landing_page_comes_after_its_own_pages():
    toc = {"parts": [{"chapters": [
        {"file": "book/chapters/01", "sections": [{"file": "n/01-1"}, {"file": "n/01-2"}]},
        {"file": "book/chapters/02", "sections": [{"file": "n/02-1"}]}]}]}
    assert reading_order(toc) == [("n/01-1", 0), ("n/01-2", 1), ("book/chapters/01", 1.5),
                                  ("n/02-1", 2), ("book/chapters/02", 2.5)]
