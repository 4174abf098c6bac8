"""The Chinese edition's catalogs: one gettext ``.po`` file per page under ``locales/zh_CN/``.

    python scripts/i18n.py update          # catalogs follow the English sources (make i18n),
                                           # and the Chinese notebooks the catalogs
    python scripts/i18n.py stat [--strict] # untranslated and fuzzy messages, page by page
    python scripts/i18n.py todo PO         # a page's messages that need a translation, numbered
    python scripts/i18n.py fill PO FILE    # put the translations in FILE into PO, checked
    python scripts/i18n.py lint [PO ...]   # every translation keeps its message's markup
    python scripts/i18n.py outdated        # exit 1 if a catalog does not match its page
    python scripts/i18n.py build           # the Chinese book, -W, into _build/html/zh (make book)
    python scripts/i18n.py place           # the book built with build --no-place, into place

The quizzes' questions, kept in code cells, have catalogs of their own, one per quiz page in
``locales/zh_CN/quizzes/`` (scripts/quiz_messages.py); every command above covers them too.

The messages are the English pages' text as Sphinx's gettext builder extracts it (markdown
cells, headings, admonitions and prose pages; never code or outputs), written in MyST: a
translation keeps every inline code span, role target, link target and formula of its message,
and uses the term table (``locales/zh_CN/terms.yml``). A message of a few words with nothing
to translate (a name such as ``DataLoader``, or a display formula) may be its own translation. ``update`` removes messages whose
English is gone; a message whose English changed turns fuzzy and its page shows the English
until it is translated again.

``todo`` prints blocks a translator fills in and gives back to ``fill``::

    @@ 12
    The English message ...

Each ``@@ N`` line names a message by its number in the page's catalog; the text up to the next
``@@`` line (blank lines at its ends dropped) is that message's translation.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import fcntl
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import yaml

import quiz_messages
import zh_notebooks

ROOT = Path(__file__).resolve().parents[1]
LOCALES = ROOT / "locales"
LANGUAGE = "zh_CN"
CATALOGS = LOCALES / LANGUAGE / "LC_MESSAGES"
TERMS = LOCALES / LANGUAGE / "terms.yml"
BUILD = ROOT / "_build" / "i18n"
POT = BUILD / "pot"
BIN = Path(sys.executable).parent

ROLE = re.compile(r"\{([a-z][\w:-]*)\}`([^`]*)`")
CODE = re.compile(r"(`+)(.+?)\1", re.S)
MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)")
FOOTNOTE = re.compile(r"\[\^[\w-]+\]")
CJK = re.compile(r"[\u4e00-\u9fff]")
WORD = re.compile(r"[A-Za-z]{2,}")
LATEX = re.compile(r"\\[A-Za-z]+")
PROSE = re.compile(r"(?<![\\A-Za-z])[a-z]{2,} [a-z]{2,} [a-z]{2,}")


@contextlib.contextmanager
def sphinx_conf():
    """conf.py for sphinx-build, generated from _config.yml at the book's root while the block
    runs (one such block at a time: a lock file serialises builds that run side by side).
    ``jupyter-book config`` names the local extensions but leaves out their folder (``_ext``)."""
    BUILD.mkdir(parents=True, exist_ok=True)
    conf = ROOT / "conf.py"
    with open(BUILD / "conf.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            subprocess.run([BIN / "jupyter-book", "config", "sphinx", str(ROOT)], check=True,
                           capture_output=True)
            conf.write_text("import sys\nsys.path.insert(0, '_ext')\n"
                            + conf.read_text(encoding="utf-8"), encoding="utf-8")
            yield conf
        finally:
            conf.unlink(missing_ok=True)


def extract(out: Path) -> None:
    """The English messages, one ``.pot`` per page, into ``out``."""
    with sphinx_conf():
        subprocess.run([BIN / "sphinx-build", "-q", "-E", "-b", "gettext",
                        "-d", str(BUILD / "doctrees-gettext"),
                        "-D", "gettext_compact=0", "-D", "gettext_location=0",
                        "-D", "gettext_uuid=0", "-D", "gettext_last_translator=",
                        str(ROOT), str(out)], check=True, cwd=ROOT)


ZH_OUT = BUILD / "html-zh"


def build(place_it: bool = True) -> int:
    """The Chinese book from the English one's sources and stored outputs, warnings as errors,
    built in its own folder (a build straight into the English book's folder would clutter it
    with its own ``_sources`` and doctrees) and then, unless ``place_it`` is false, placed."""
    out = ZH_OUT
    with sphinx_conf():
        run = subprocess.run([BIN / "sphinx-build", "-q", "-W", "--keep-going", "-b", "html",
                              "-d", str(BUILD / "doctrees-zh"), "-D", f"language={LANGUAGE}",
                              str(ROOT), str(out)], cwd=ROOT)
    if run.returncode:
        return run.returncode
    return place() if place_it else 0


def place() -> int:
    """The built Chinese book into the English one, at ``_build/html/zh``."""
    site = ROOT / "_build" / "html" / "zh"
    if not (ZH_OUT / "index.html").exists():
        print("the Chinese book is not built: scripts/i18n.py build")
        return 1
    shutil.rmtree(site, ignore_errors=True)
    shutil.copytree(ZH_OUT, site, ignore=shutil.ignore_patterns(".buildinfo", ".doctrees"))
    print(f"The Chinese book is at {site / 'index.html'}")
    return 0


def catalogs() -> list[Path]:
    """The pages' catalogs (Sphinx's messages)."""
    return sorted(CATALOGS.rglob("*.po"))


def quiz_catalogs() -> list[Path]:
    """The quizzes' catalogs (scripts/quiz_messages.py)."""
    return sorted(quiz_messages.QUIZ_CATALOGS.glob("*.po"))


def page(po: Path) -> str:
    """A catalog's name: its page's (``notebooks/03-2-view-or-copy``), or ``quizzes/<page>``."""
    if po.is_relative_to(quiz_messages.QUIZ_CATALOGS):
        return f"quizzes/{po.stem}"
    return po.relative_to(CATALOGS).with_suffix("").as_posix()


def update() -> None:
    """Catalogs follow the sources: new pages and messages added, gone ones removed."""
    shutil.rmtree(POT, ignore_errors=True)
    extract(POT)
    pages = {p.relative_to(POT).with_suffix("").as_posix() for p in POT.rglob("*.pot")}
    for po in catalogs():
        if page(po) not in pages:
            print(f"removed {po.relative_to(ROOT)}: its page is gone")
            po.unlink()
    subprocess.run([BIN / "sphinx-intl", "update", "-p", str(POT), "-d", str(LOCALES),
                    "-l", LANGUAGE, "-w", "0", "--no-obsolete"], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)
    for po in catalogs():  # no dates or tool names that change on every run
        catalog = polib.pofile(str(po), wrapwidth=0)
        catalog.metadata.pop("POT-Creation-Date", None)
        catalog.metadata.pop("Generated-By", None)
        catalog.metadata["Language"] = LANGUAGE
        catalog.header = ""
        catalog.save()
    for line in quiz_messages.update():
        print(line)


def out_of_date() -> list[str]:
    """Pages whose catalog is missing, gone or holds other messages than the source gives."""
    fresh = BUILD / "pot-check"
    shutil.rmtree(fresh, ignore_errors=True)
    extract(fresh)
    problems = []
    pots = {p.relative_to(fresh).with_suffix("").as_posix(): p for p in fresh.rglob("*.pot")}
    pos = {page(p): p for p in catalogs()}
    for name in sorted(pots.keys() - pos.keys()):
        problems.append(f"{name}: no catalog (run make i18n)")
    for name in sorted(pos.keys() - pots.keys()):
        problems.append(f"{name}: a catalog for a page that is gone (run make i18n)")
    for name in sorted(pots.keys() & pos.keys()):
        # an empty message (an image without alt text) is no message: gettext reserves "" for
        # the catalog's header
        want = {(e.msgctxt, e.msgid) for e in polib.pofile(str(pots[name])) if e.msgid}
        have = {(e.msgctxt, e.msgid) for e in polib.pofile(str(pos[name])) if not e.obsolete}
        if want != have:
            problems.append(f"{name}: {len(want - have)} messages missing, {len(have - want)} "
                            "not in the source (run make i18n)")
    return problems + quiz_messages.out_of_date()


def _multiset(pattern, text, group=0):
    return collections.Counter(m.group(group) for m in pattern.finditer(text))


def _roles(text):
    """(role, target) of every role: ``{doc}`text <target>``` or ``{term}`target```."""
    found = collections.Counter()
    for role, body in ROLE.findall(text):
        target = re.search(r"<([^<>]+)>\s*$", body)
        found[(role, (target.group(1) if target else body).strip())] += 1
    return found


def nothing_to_translate(msgid: str) -> bool:
    """A name of a few words (``DataLoader``) or a display formula (``\\frac{a}{b}``)."""
    return len(WORD.findall(msgid)) <= 3 or (bool(LATEX.search(msgid)) and not PROSE.search(msgid))


def load_terms() -> list[dict]:
    return yaml.safe_load(TERMS.read_text(encoding="utf-8"))


def lint_entry(msgid: str, msgstr: str, terms: list[dict]) -> list[str]:
    """What a translation lost of its message's markup, or got wrong of the term table."""
    problems = []
    if _roles(msgid) != _roles(msgstr):
        problems.append(f"roles differ: {sorted(_roles(msgid).elements())} vs "
                        f"{sorted(_roles(msgstr).elements())}")
    bare_id, bare_str = ROLE.sub("", msgid), ROLE.sub("", msgstr)
    if _multiset(CODE, bare_id) != _multiset(CODE, bare_str):
        lost = _multiset(CODE, bare_id) - _multiset(CODE, bare_str)
        added = _multiset(CODE, bare_str) - _multiset(CODE, bare_id)
        problems.append(f"code spans differ: lost {sorted(lost)} added {sorted(added)}")
    plain_id, plain_str = CODE.sub("", bare_id), CODE.sub("", bare_str)
    if _multiset(MATH, plain_id) != _multiset(MATH, plain_str):
        problems.append("formulas ($...$) differ")
    if _multiset(LINK, msgid, 1) != _multiset(LINK, msgstr, 1):
        problems.append("link targets differ")
    if _multiset(FOOTNOTE, msgid) != _multiset(FOOTNOTE, msgstr):
        problems.append("footnote references ([^label]) differ")
    words = WORD.findall(MATH.sub("", LINK.sub("", plain_id)))
    if words and not CJK.search(msgstr) and not (msgstr == msgid and nothing_to_translate(msgid)):
        problems.append("no Chinese in the translation")
    for term in terms:
        for avoid in term.get("avoid", []):
            if avoid in msgstr:
                problems.append(f"{avoid!r}: the term table writes {term['en']!r} as {term['zh']!r}")
        for role, body in ROLE.findall(msgstr):
            target = re.search(r"<([^<>]+)>\s*$", body)
            if role == "term" and target and target.group(1).strip() == term["en"] \
                    and term["zh"] not in body[:target.start()]:
                problems.append(f"{{term}} {term['en']!r} is written without {term['zh']!r}")
    return problems


def lint(paths: list[Path]) -> int:
    terms = load_terms()
    bad = 0
    for po in paths:
        for number, entry in enumerate(polib.pofile(str(po))):
            if entry.msgstr and not entry.obsolete:
                for problem in lint_entry(entry.msgid, entry.msgstr, terms):
                    bad += 1
                    print(f"{po.relative_to(ROOT)} @@ {number}: {problem}")
    return 1 if bad else 0


def stat(strict: bool) -> int:
    totals = collections.Counter()
    for po in catalogs() + quiz_catalogs():
        catalog = polib.pofile(str(po))
        entries = [e for e in catalog if not e.obsolete]
        untranslated = sum(1 for e in entries if not e.msgstr)
        fuzzy = sum(1 for e in entries if "fuzzy" in e.flags)
        words = sum(len(e.msgid.split()) for e in entries if not e.msgstr or "fuzzy" in e.flags)
        totals.update(messages=len(entries), untranslated=untranslated, fuzzy=fuzzy, words=words)
        if untranslated or fuzzy:
            print(f"{page(po)}: {untranslated} untranslated, {fuzzy} fuzzy ({words} words) "
                  f"of {len(entries)}")
    print(f"{totals['messages']} messages in {len(catalogs() + quiz_catalogs())} catalogs: "
          f"{totals['untranslated']} untranslated, {totals['fuzzy']} fuzzy "
          f"({totals['words']} English words to translate)")
    return 1 if strict and (totals["untranslated"] or totals["fuzzy"]) else 0


def todo(po: Path, everything: bool) -> None:
    for number, entry in enumerate(polib.pofile(str(po))):
        if everything or not entry.msgstr or "fuzzy" in entry.flags:
            print(f"@@ {number}\n{entry.msgid}\n")
            if everything and entry.msgstr:
                print(f"=> {entry.msgstr}\n")


def fill(po: Path, translations: Path) -> int:
    catalog = polib.pofile(str(po), wrapwidth=0)
    entries = list(catalog)
    terms = load_terms()
    blocks = re.split(r"^@@ (\d+)[ \t]*\n", translations.read_text(encoding="utf-8"), flags=re.M)
    bad = 0
    for number, text in zip(blocks[1::2], blocks[2::2]):
        entry = entries[int(number)]
        text = text.strip("\n")
        problems = lint_entry(entry.msgid, text, terms)
        if problems:
            bad += 1
            print(f"@@ {number} not filled: " + "; ".join(problems))
            continue
        entry.msgstr = text
        if "fuzzy" in entry.flags:
            entry.flags.remove("fuzzy")
        entry.previous_msgid = None
    catalog.save()
    if po.resolve().is_relative_to(quiz_messages.QUIZ_CATALOGS):
        for line in quiz_messages.export():
            print(line)
    left = sum(1 for e in catalog if not e.msgstr or "fuzzy" in e.flags)
    print(f"{po.relative_to(ROOT)}: {len(blocks) // 2 - bad} filled, {bad} refused, {left} left")
    return 1 if bad else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="i18n", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("update")
    s = sub.add_parser("stat")
    s.add_argument("--strict", action="store_true", help="exit 1 if anything needs translating")
    t = sub.add_parser("todo")
    t.add_argument("po", type=Path)
    t.add_argument("--all", action="store_true", help="every message, with its translation")
    f = sub.add_parser("fill")
    f.add_argument("po", type=Path)
    f.add_argument("translations", type=Path)
    li = sub.add_parser("lint")
    li.add_argument("po", nargs="*", type=Path)
    sub.add_parser("outdated")
    b = sub.add_parser("build")
    b.add_argument("--no-place", action="store_true",
                   help="leave it in _build/i18n/html-zh (make book builds both languages at once)")
    sub.add_parser("place")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    if args.command == "update":
        update()
        zh_notebooks.write()
        return stat(strict=False)
    if args.command == "stat":
        return stat(args.strict)
    if args.command == "todo":
        todo(args.po.resolve(), args.all)
        return 0
    if args.command == "fill":
        filled = fill(args.po.resolve(), args.translations)
        zh_notebooks.write()
        return filled
    if args.command == "lint":
        return lint([p.resolve() for p in args.po] or catalogs() + quiz_catalogs())
    if args.command == "build":
        return build(place_it=not args.no_place)
    if args.command == "place":
        return place()
    problems = out_of_date()
    print("\n".join(problems) or "every catalog holds its page's messages")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
