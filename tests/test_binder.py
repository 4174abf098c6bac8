"""Binder's environment (``binder/``) is lean, CPU-only and pinned as the project pins it.

mybinder.org cannot be reached from the test machine, so Binder's build is not run here; these
checks hold what it installs to the project's tested pins: ``binder/requirements.txt`` pins torch
to the CPU build of requirements.txt's version (from PyTorch's CPU index), pins every package
tensorlens needs and JupyterLab's widget stack exactly as requirements.txt does, and holds no test
or grading tool; ``binder/postBuild`` installs tensorlens from the checkout (so the setup cell
finds it and installs nothing); ``binder/runtime.txt`` names the Python the pins are for.
"""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"


def _name(text):
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.-]+", text).group(0)).lower()


def _pins(path):
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            name, version = line.split("==")
            pins[_name(name)] = version
    return pins


PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
BINDER_PINS = _pins(BINDER / "requirements.txt")
PINS = _pins(ROOT / "requirements.txt")


def test_torch_is_the_cpu_build_of_the_pinned_version():
    text = (BINDER / "requirements.txt").read_text(encoding="utf-8")
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in text.splitlines()
    assert BINDER_PINS["torch"] == PINS["torch"].split("+")[0] + "+cpu"


def test_everything_else_is_pinned_as_requirements_txt_pins_it():
    for name, version in BINDER_PINS.items():
        if name != "torch":
            assert PINS.get(name) == version, f"binder pins {name}=={version}, requirements.txt {PINS.get(name)}"


def test_it_holds_what_the_chapters_need_and_no_test_tools():
    needed = {_name(d) for d in PROJECT["dependencies"]} | {"torch", "jupyterlab", "ipywidgets", "jupytext"}
    assert needed <= set(BINDER_PINS), needed - set(BINDER_PINS)
    tools = {"pytest", "nbval", "playwright", "jupyter-book", "otter-grader", "pytest-xdist"}
    assert not tools & set(BINDER_PINS)


def test_postbuild_installs_the_checkout_and_opens_sources_as_notebooks():
    script = (BINDER / "postBuild").read_text(encoding="utf-8")
    assert script.startswith("#!/bin/bash\n") and "set -euo pipefail" in script
    assert "python -m pip install --no-cache-dir --no-deps ." in script
    assert "scripts/lab-overrides.json" in script and (ROOT / "scripts" / "lab-overrides.json").exists()
    assert (BINDER / "postBuild").stat().st_mode & 0o111, "postBuild is executable"


def test_runtime_is_the_python_the_pins_are_for():
    python = (BINDER / "runtime.txt").read_text(encoding="utf-8").strip()
    assert python == "python-3.11"
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert config["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert config["launch_buttons"]["notebook_interface"] == "jupyterlab"
