"""Load a widget's ES module from ``tensorlens/widgets/static`` as one self-contained string.

Contract: ``load_esm(name)`` returns the text of ``static/<name>`` with every line
``import {a, b as c} from "./other.js";`` replaced by the text of ``other.js`` (itself inlined
the same way, each file at most once) plus ``const c = b;`` for renamed imports. The static book
has no module server, so a widget's ``_esm`` cannot import anything; only relative named imports
are allowed, and any other ``import`` raises ``ValueError``. ``load_css(*names)`` reads
stylesheets and joins them (the widgets' shared ``frame.css`` first). ``frame_css(root)`` is
``frame.css`` with its widget selectors (``.tl-se``, ``.tl-bx``, ``.tl-quiz``) replaced by
``root`` (``".tl-mx"``): a newer widget gets the same colours and frame from the one file,
without changing the text of the CSS that notebooks executed earlier store in their widget state.
"""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).parent / "static"
_IMPORT = re.compile(r"""^import\s*\{([^}]*)\}\s*from\s*["'](\.{1,2}/[^"']+)["'];?[ \t]*$""", re.M)


def load_esm(name: str, static_dir: Path = STATIC, _seen: set | None = None) -> str:
    """Return ``static_dir/name`` with its relative named imports inlined (see module docstring)."""
    seen = set() if _seen is None else _seen
    path = (Path(static_dir) / name).resolve()
    seen.add(path)

    def inline(match: re.Match) -> str:
        target = (path.parent / match[2]).resolve()
        text = "" if target in seen else load_esm(target.name, target.parent, seen)
        pairs = [part.split(" as ") for part in match[1].replace("\n", " ").split(",") if part.strip()]
        aliases = "".join(f"const {p[1].strip()} = {p[0].strip()};\n" for p in pairs if len(p) == 2)
        return f"// --- inlined from {match[2]} ---\n{text}\n{aliases}// --- end of {match[2]} ---"

    bundled = _IMPORT.sub(inline, path.read_text(encoding="utf-8"))
    if re.search(r"^\s*import[\s{*'\"]", bundled, re.M):
        raise ValueError(f"{name}: only `import {{...}} from \"./file.js\"` lines can be inlined")
    return bundled


def load_css(*names: str, static_dir: Path = STATIC) -> str:
    """Return the text of the stylesheets ``static_dir/name``, one after the other."""
    return "\n".join((Path(static_dir) / name).read_text(encoding="utf-8") for name in names)


# The selector lists of frame.css: ".tl-se, .tl-bx, .tl-quiz" and ".tl-se, .tl-bx".
_FRAME_SELECTORS = re.compile(r"\.tl-se, \.tl-bx(?:, \.tl-quiz)?")


def frame_css(root: str, static_dir: Path = STATIC) -> str:
    """``frame.css`` for a widget whose root element has the class ``root`` (see module docstring)."""
    if not re.fullmatch(r"\.tl-[a-z]+", root):
        raise ValueError(f"root must be a class selector such as '.tl-mx', got {root!r}")
    text = (Path(static_dir) / "frame.css").read_text(encoding="utf-8")
    return _FRAME_SELECTORS.sub(root, text)
