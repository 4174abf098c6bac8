"""Copy the JavaScript the static book serves into ``_extra/_static/vendor/``.

The book must work offline, so require.js, ``@jupyter-widgets/html-manager`` (with its font
files), anywidget's front end and MathJax come from ``node_modules`` (installed by ``npm ci`` from
``package-lock.json``), never from a CDN. ``_extra`` is Sphinx's
``html_extra_path``: copied into the built book verbatim, and not scanned for pages.
"""

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = ROOT / "node_modules"
VENDOR = ROOT / "_extra" / "_static" / "vendor"

# (source inside node_modules or scripts/vendor, destination inside VENDOR)
FILES = [
    (MODULES / "requirejs" / "require.js", "require.js"),
    (MODULES / "anywidget" / "dist" / "index.js", "anywidget/index.js"),
    (MODULES / "@jupyter-widgets" / "html-manager" / "dist" / "embed-amd.js", "html-manager/embed-amd.js"),
    (ROOT / "scripts" / "vendor" / "widgets-config.js", "widgets-config.js"),
]
FONT_SUFFIXES = {".woff", ".woff2", ".ttf", ".eot", ".svg"}
# MathJax's combined TeX/MathML/CHTML build loads its fonts and extensions from folders beside it.
MATHJAX = MODULES / "mathjax" / "es5"
MATHJAX_PARTS = ["tex-mml-chtml.js", "input", "output/chtml", "a11y", "sre", "ui", "adaptors"]


def main() -> int:
    if not MODULES.is_dir():
        print("node_modules is missing: run `npm ci` first", file=sys.stderr)
        return 1
    if VENDOR.exists():
        shutil.rmtree(VENDOR)
    for source, target in FILES:
        destination = VENDOR / target
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, destination)
    fonts = MODULES / "@jupyter-widgets" / "html-manager" / "dist"
    for font in fonts.iterdir():
        if font.suffix in FONT_SUFFIXES:
            shutil.copyfile(font, VENDOR / "html-manager" / font.name)
    for part in MATHJAX_PARTS:
        source, destination = MATHJAX / part, VENDOR / "mathjax" / part
        destination.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, destination)
        else:
            shutil.copyfile(source, destination)
    print(f"vendored widget JavaScript and MathJax into {VENDOR.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
