"""make check: the contributor's loop. The tests that a change can break, for the pages it touched.

    make check                                  # the pages changed since main (committed or not)
    make check PAGES="03-2-view-or-copy intro"  # these pages (notebook, landing or prose stems)

What runs, in order (each step's time is printed; the first failing step stops it):

1. ``sync``: the changed pages' notebooks are regenerated from their ``.md`` and executed, and
   their Chinese notebooks (``sync zh``: notebooks/zh, from the catalogs) follow.
2. ``unit``: the unit tests, with the per-page tests limited to the checked pages (the
   ``TENSOR_VIEWS_PAGES`` variable, read by ``tests/book_pages.py``). Tests that compare pages
   with each other still read every page. The end-to-end grading tests (marked ``grading``:
   kernels and ``otter run``) run only when the exercises, the classroom tools or their tests
   changed, the exercise checkers' tests (marked ``checkers``) only when tensorlens or they
   changed, and the kernel zygote's tests only when it changed.
3. ``nbval``: the checked notebooks re-run in fresh kernels, outputs compared.
4. ``build``: the book, ``-W``, on its last build: Sphinx reads again only the pages whose
   notebook or text changed (seconds for one page; about two minutes here when there is no
   build yet), then the Chinese book (``build zh``: likewise, the pages whose source or catalog
   changed). A warning that a change causes on a page it did not touch (a reference to a label
   it removed) is make test's to find: its build reads every page.
5. ``browser``: the checked pages in headless Chromium (console, requests, height, axe in both
   themes). The widget tests (keyboard, JupyterLab, the offline zip) run when the widgets, the
   book's configuration or the browser tests changed.
6. ``js``: the widgets' JS tests, when their JS changed.

``make test`` stays the full gate: every page, every test, the Colab stage.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
PYTEST = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
# nbval's kernels forked from one that has imported torch (tests/kernel_zygote.py)
FORKED_KERNELS = [PY, "tests/kernel_zygote.py", "run", "--"]
BASE = "main"
#: changes under these paths make the grading tests run
GRADING_PATHS = ("tensorlens/exercises/", "tensorlens/classroom/", "tests/test_grade.py",
                 "tests/test_otter.py", "tests/otter_samples.py", "tests/submissions/",
                 "tests/accept_solutions.py")
#: changes under these paths make the exercise checkers' tests (marked ``checkers``, a minute) run:
#: they read tensorlens and their own files, no page
CHECKER_PATHS = ("tensorlens/", "tests/test_exercises.py", "tests/test_exercises_accept.py",
                 "tests/accept_solutions.py", "tests/conftest.py", "requirements.txt", "pyproject.toml")
#: changes under these paths make the kernel zygote's tests (kernels started and killed) run
ZYGOTE_PATHS = ("tests/kernel_zygote.py", "tests/test_kernel_zygote.py")
#: changes under these paths make every browser test run
WIDGET_PATHS = ("tensorlens/widgets/", "tests/browser/", "_config.yml", "_static/", "_ext/", "scripts/vendor",
                "package.json", "package-lock.json", "scripts/make_dist.py")
PAGE_BROWSER_TESTS = ["tests/browser/test_accessibility.py", "tests/browser/test_book.py",
                      "tests/browser/test_launch_buttons.py", "tests/browser/test_zh_book.py"]


def git(*args) -> list[str]:
    run = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    return run.stdout.split("\n") if run.returncode == 0 else []


def changed_files() -> list[str]:
    """Files changed since the merge base with main, committed, staged, unstaged or untracked."""
    base = (git("merge-base", BASE, "HEAD") or [""])[0].strip()
    files = set(git("diff", "--name-only", base)) if base else set()
    files |= set(git("diff", "--name-only", "HEAD"))
    files |= set(git("ls-files", "--others", "--exclude-standard"))
    return sorted(f for f in files if f)


def page_of(path: str) -> str | None:
    """The page a changed file belongs to: a notebook's, a landing page's or a prose page's stem."""
    p = Path(path)
    if p.parts[:1] == ("notebooks",) and p.suffix in (".md", ".ipynb") and len(p.parts) == 2:
        return p.stem
    if p.parts[:1] == ("book",) and p.suffix == ".md":
        return p.stem
    if p.parts[:3] == ("locales", "zh_CN", "LC_MESSAGES") and p.suffix == ".po":
        return p.stem  # a page's Chinese catalog
    return None


def notebook_stems() -> set[str]:
    return {p.stem for p in (ROOT / "notebooks").glob("*.md")}


def step(name: str, command: list[str], env: dict, times: list) -> None:
    print(f"\n== make check: {name}: {' '.join(command[2:] if command[0] == PY else command)}",
          flush=True)
    start = time.monotonic()
    run = subprocess.run(command, cwd=ROOT, env=env)
    times.append((name, time.monotonic() - start))
    if run.returncode not in (0, 5):  # 5: pytest collected nothing (no page of that kind)
        summary(times)
        print(f"make check: {name} failed", flush=True)
        sys.exit(run.returncode)


def summary(times) -> None:
    print("\nmake check, seconds per step: "
          + ", ".join(f"{name} {seconds:.0f}" for name, seconds in times)
          + f"; {sum(s for _, s in times):.0f} in all", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="make check", description=__doc__.split("\n")[0])
    parser.add_argument("pages", nargs="*", help="page stems (default: the pages changed since main)")
    args = parser.parse_args(argv)
    files = changed_files()
    named = [name.removesuffix(".md").removesuffix(".ipynb").split("/")[-1] for name in args.pages]
    pages = sorted(set(named) if named else {p for p in map(page_of, files) if p})
    unknown = [p for p in pages if p not in notebook_stems()
               and not list((ROOT / "book").rglob(f"{p}.md"))]
    if unknown:
        print(f"make check: no such page: {', '.join(unknown)} (give notebook, landing or prose "
              "page stems such as 03-2-view-or-copy, 03-memory-layout or intro)")
        return 2
    notebooks = [p for p in pages if p in notebook_stems()]
    print(f"make check: {len(files)} changed files; pages: {', '.join(pages) or 'none'}")

    env = {**os.environ, "TENSOR_VIEWS_PAGES": ",".join(pages)}
    times: list = []
    if notebooks:
        step("sync", [PY, "scripts/sync_notebooks.py", *notebooks], env, times)
        step("sync zh", [PY, "scripts/zh_notebooks.py"], env, times)
    unit = [*PYTEST, "-n", "2", "--dist", "loadfile", "--ignore=tests/browser", "--ignore=tests/colab", "tests"]
    skipped = [marker for marker, paths in (("grading", GRADING_PATHS), ("checkers", CHECKER_PATHS))
               if not any(f.startswith(paths) for f in files)]
    if skipped:
        unit += ["-m", " and ".join(f"not {marker}" for marker in skipped)]
    if not any(f.startswith(ZYGOTE_PATHS) for f in files):
        unit += ["--ignore=tests/test_kernel_zygote.py"]
    step("unit", unit, env, times)
    if notebooks:
        step("nbval", [*FORKED_KERNELS, *PYTEST, "--nbval", "-p", "tests.nbval_unix_sockets",
                       *[f"notebooks/{n}.ipynb" for n in notebooks],
                       "--nbval-sanitize-with", "tests/nbval_sanitize.cfg", "-n", "2",
                       "--dist", "loadfile"], env, times)
    step("build", [str(Path(PY).parent / "jupyter-book"), "build", "-W", "--keep-going", "-q", "."],
         env, times)
    # the Chinese book, built on its last build (only the changed pages are read again)
    step("build zh", [PY, "scripts/i18n.py", "build"], env, times)
    widgets = any(f.startswith(WIDGET_PATHS) for f in files)
    if widgets:
        # the offline zip's tests read dist/, made from this build
        step("zip", [PY, "scripts/make_dist.py", "_build/html", "dist/tensor-views-html.zip"], env, times)
        step("browser", [*PYTEST, "-n", "2", "tests/browser"], env, times)
    elif pages:
        step("browser", [*PYTEST, "-n", "2", *PAGE_BROWSER_TESTS], env, times)
    if any(f.startswith(("tensorlens/widgets/static/", "tests/js/")) for f in files):
        step("js", ["node", "--test", "tests/js/"], env, times)
    summary(times)
    print("make check: passed (make test is the full gate)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
