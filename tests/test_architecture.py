"""tensorlens's rooms import one way: model <- figures, widgets, exercises <- classroom.

Every ``import`` in every module (at the top or inside a function) is read with ``ast`` and
resolved to the room it names; an import into a room its own room may not use fails, naming
both files. A second check imports each room in a fresh interpreter and lists which heavy
libraries it pulled in, so a room can't reach the UI or the grading stack through a third-party
package either.
"""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tensorlens"

#: the rooms, and the rooms each may import (besides itself)
ALLOWED = {
    "model": set(),
    "figures": {"model"},
    "widgets": {"model"},
    "exercises": {"model"},
    "classroom": {"model", "exercises"},
}
#: third-party packages a room must not load (directly or through another module)
FORBIDDEN_LIBRARIES = {
    "model": {"matplotlib", "anywidget", "ipywidgets", "traitlets", "nbformat", "nbclient"},
    "figures": {"anywidget", "ipywidgets", "nbformat", "nbclient"},
    "widgets": {"matplotlib", "nbformat", "nbclient"},
    "exercises": {"anywidget", "ipywidgets", "nbformat", "nbclient"},
}


def room_of(module: str) -> str:
    """The room of a dotted module name inside the package (``tensorlens.widgets.quiz``)."""
    parts = module.split(".")
    assert parts[0] == "tensorlens", module
    if len(parts) > 1 and parts[1] in ALLOWED and parts[1] != "model":
        return parts[1]
    return "model"


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, module: str, is_package: bool) -> set[str]:
    """The ``tensorlens`` modules that ``source`` (the text of ``module``) imports."""
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            # `from tensorlens import widgets` names a room too
            found |= {f"{target}.{alias.name}" for alias in node.names}
    return {name for name in found if name == "tensorlens" or name.startswith("tensorlens.")}


def violations(modules: dict[str, tuple[str, bool]]) -> list[str]:
    """Each import of ``{module: (source, is_package)}`` that goes against ALLOWED."""
    problems = []
    for module, (source, is_package) in sorted(modules.items()):
        if module == "tensorlens":
            continue  # the facade: it names every room's public objects, lazily
        room = room_of(module)
        reported = set()
        for target in sorted(imported_modules(source, module, is_package), key=len):
            other = room_of(target)
            if target != "tensorlens" and other != room and other not in ALLOWED[room] \
                    and other not in reported:
                reported.add(other)  # once per room: `from .widgets import X` names two modules
                problems.append(f"{module} ({room}) imports {target} ({other})")
    return problems


def package_modules() -> dict[str, tuple[str, bool]]:
    return {module_name(path): (path.read_text(encoding="utf-8"), path.name == "__init__.py")
            for path in PACKAGE.rglob("*.py")}


def test_every_room_exists():
    rooms = {room_of(name) for name in package_modules()}
    assert rooms == set(ALLOWED)


def test_imports_go_one_way():
    assert violations(package_modules()) == []


def test_a_wrong_way_import_is_caught():
    fake = {
        "tensorlens.layout": ("from .widgets import StrideExplorer\n", False),
        "tensorlens.widgets.quiz": ("def f():\n    from ..classroom import grade\n", False),
        "tensorlens.figures.graph": ("import tensorlens.exercises.basics\n", False),
        "tensorlens.classroom.grade": ("from ..exercises import check\nfrom .. import measure\n",
                                       False),
        "tensorlens.exercises": ("from tensorlens import widgets\n", True),
    }
    assert violations(fake) == [
        "tensorlens.exercises (exercises) imports tensorlens.widgets (widgets)",
        "tensorlens.figures.graph (figures) imports tensorlens.exercises.basics (exercises)",
        "tensorlens.layout (model) imports tensorlens.widgets (widgets)",
        "tensorlens.widgets.quiz (widgets) imports tensorlens.classroom (classroom)",
    ]


ROOM_MODULES = {
    "model": ["tensorlens.layout", "tensorlens.broadcast", "tensorlens.measure"],
    "figures": ["tensorlens.figures"],
    "widgets": ["tensorlens.widgets"],
    "exercises": ["tensorlens.exercises"],
}


@pytest.mark.parametrize("room", sorted(ROOM_MODULES))
def test_a_room_loads_no_library_it_must_not(room):
    code = ("import json, sys\n"
            + "".join(f"import {m}\n" for m in ROOM_MODULES[room])
            + "print(json.dumps(sorted(sys.modules)))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(run.stdout))
    libraries = {name.split(".")[0] for name in loaded}
    assert not libraries & FORBIDDEN_LIBRARIES[room], sorted(libraries & FORBIDDEN_LIBRARIES[room])
    assert not {name for name in loaded if name.startswith("tensorlens.classroom")}
