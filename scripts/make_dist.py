"""Zip the built book so it can be read offline: ``make dist``.

Usage: ``python scripts/make_dist.py _build/html dist/tensor-views-html.zip``. Every file of the
built site goes under one top folder, ``tensor-views/``: unzip it anywhere and open
``tensor-views/index.html`` (the widgets' JavaScript is served by the book itself, so nothing
is fetched from the network). ``tests/browser/test_dist.py`` opens the pages from the unzipped
copy.
"""

from __future__ import annotations

import pathlib
import sys
import zipfile

TOP = "tensor-views"


def make_zip(site: pathlib.Path, target: pathlib.Path) -> int:
    """Write ``target`` holding every file under ``site``; return how many files it holds."""
    if not (site / "index.html").exists():
        raise SystemExit(f"{site} holds no built book (run `make book`)")
    target.parent.mkdir(parents=True, exist_ok=True)
    files = sorted(p for p in site.rglob("*") if p.is_file())
    partial = target.with_suffix(".partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in files:
            zf.write(path, f"{TOP}/{path.relative_to(site).as_posix()}")
    partial.replace(target)
    return len(files)


def main(argv=None) -> int:
    site, target = map(pathlib.Path, (argv or sys.argv[1:]))
    count = make_zip(site, target)
    print(f"{target}: {count} files; unzip it and open {TOP}/index.html")
    return 0


if __name__ == "__main__":
    sys.exit(main())
