"""How a learner gets tensorlens: the setup cell, its package source, the torch check, the extras.

The setup cell is README's (every chapter starts with a copy; ``tests/test_sources.py``). It
names the package source once, and README, ``_config.yml`` (the repository the launch buttons
and the repository button point at) and ``book/setup.md`` name the same. The Colab stage
(``tests/colab``) runs the cell for real, offline and installing; these checks are the fast ones.
"""

import ast
import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from IPython.core.inputtransformer2 import TransformerManager

from tensorlens import _torch_check

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SETUP = re.search(r"The setup cell, identical in every notebook:\n\n```python\n(.*?)```",
                  README, re.S).group(1)
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
STACK = (ROOT / "tests" / "colab" / "stack.txt").read_text(encoding="utf-8")


def _load_script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _package_source(text):
    return re.findall(r'tensorlens @ git\+https://[^\s"\'`]+', text)


def test_the_setup_cell_names_the_repository_of_config_once():
    sources = _package_source(SETUP)
    assert len(sources) == 1, "the setup cell names its package source once (PACKAGE)"
    assert sources[0] == f"tensorlens @ git+{CONFIG['repository']['url']}"
    assert SETUP.count("git+") == 1


@pytest.mark.parametrize("page", ["README.md", "book/setup.md"])
def test_the_docs_name_the_same_package_source(page):
    found = set(_package_source((ROOT / page).read_text(encoding="utf-8")))
    assert found == set(_package_source(SETUP)), f"{page} names {found or 'no package source'}"


def test_the_setup_cell_is_short_readable_and_uses_pip_magic():
    lines = SETUP.splitlines()
    assert all(len(line) <= 79 for line in lines)
    assert len(lines) <= 15
    assert re.search(r'^    %pip install -q "\{PACKAGE\}"$', SETUP, re.M), \
        "%pip installs into the running kernel's environment"
    assert "subprocess" not in SETUP and "check=True" not in SETUP
    # it is valid IPython, and valid Python once the magic is transformed
    ast.parse(TransformerManager().transform_cell(SETUP))
    # tensorlens is imported before torch, so a missing torch gets tensorlens's message
    assert SETUP.index("import tensorlens") < SETUP.index("import torch")


def test_the_setup_cell_does_nothing_when_tensorlens_is_importable():
    """Run as plain Python with a get_ipython that fails if called: the install never runs."""
    code = TransformerManager().transform_cell(SETUP)
    script = ("def get_ipython():\n    raise AssertionError('pip ran')\n" + code
              + "\nprint(tl.__name__, torch.initial_seed())\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["tensorlens", "0"]


def test_every_source_has_readmes_setup_cell():
    script = _load_script("set_setup_cell")
    assert script.setup_cell() == SETUP
    assert script.main(["--check"]) == 0


def test_the_rewrite_script_replaces_only_the_first_cell():
    script = _load_script("set_setup_cell")
    source = ("---\nkernelspec: {}\n---\n\n```{code-cell} ipython3\n:tags: [hide-input]\n\n"
              "old = 1\n```\n\n# Title\n\n```{code-cell} ipython3\nx = 2\n```\n")
    new = script.with_setup_cell(source, "new = 1\n")
    assert new == source.replace("old = 1\n", "new = 1\n")
    assert script.with_setup_cell(new, "new = 1\n") == new
    with pytest.raises(ValueError):
        script.with_setup_cell("# no code\n", "x")


# --- the torch check -----------------------------------------------------------------------------

def test_min_torch_is_the_colab_stages_torch():
    colab = re.search(r"^torch==(\d+)\.(\d+)", STACK, re.M).groups()
    assert _torch_check.MIN_TORCH == tuple(map(int, colab)), \
        "MIN_TORCH is the oldest torch the book is tested with: the Colab stage's"


@pytest.mark.parametrize("version, words", [
    (None, ["needs PyTorch 2.11 or later", "has none", "pip install torch --index-url "
            "https://download.pytorch.org/whl/cpu", "restart the kernel"]),
    ("2.5.1", ["has 2.5.1", "pip install --upgrade torch", "restart the kernel"]),
    ("1.13.0+cu117", ["has 1.13.0+cu117"]),
])
def test_a_missing_or_old_torch_is_named_with_what_to_run(version, words):
    problem = _torch_check.torch_problem(version)
    for word in words:
        assert word in problem


@pytest.mark.parametrize("version", ["2.11.0", "2.13.0+cpu", "2.14.1", "3.0.0", "2.12.0.dev20260801", ""])
def test_a_recent_torch_passes(version):
    assert _torch_check.torch_problem(version) is None


def _import_tensorlens(*paths):
    """``import tensorlens`` in a Python that sees only the standard library and ``paths``."""
    code = "import sys; sys.path[:0] = sys.argv[1:]; import tensorlens"
    return subprocess.run([sys.executable, "-I", "-S", "-c", code, str(ROOT), *map(str, paths)],
                          capture_output=True, text=True)


def _fake_torch(tmp_path, version):
    """A folder whose only content is torch's metadata, saying ``version``."""
    info = tmp_path / "fake" / f"torch-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n")
    return info.parent


def test_importing_with_an_old_torch_stops_with_the_message(tmp_path):
    run = _import_tensorlens(_fake_torch(tmp_path, "2.0.1"))
    assert run.returncode == 1
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("tensorlens._torch_check.TorchMissingError: tensorlens needs PyTorch 2.11")
    assert "has 2.0.1" in last


def test_importing_without_torch_stops_with_the_message():
    run = _import_tensorlens()
    assert run.returncode == 1
    assert "TorchMissingError: tensorlens needs PyTorch 2.11 or later, and this Python has none" \
        in run.stderr


def test_importing_with_a_recent_torch_works(tmp_path):
    run = _import_tensorlens(_fake_torch(tmp_path, "2.11.0"))
    assert run.returncode == 0, run.stderr


# --- what pip installs -----------------------------------------------------------------------------

def _names(requirements):
    return {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in requirements}


def test_the_learners_dependencies_are_what_the_chapters_import():
    deps = _names(PROJECT["dependencies"])
    assert not deps & {"torch", "ipykernel", "nbclient", "nbformat", "ipywidgets", "pytest"}
    for dep in PROJECT["dependencies"]:
        assert "==" not in dep and "<" not in dep, f"{dep}: no upper pin on a learner's kernel"
    assert {"nbformat", "nbclient", "ipykernel"} <= _names(PROJECT["optional-dependencies"]["grade"])
    assert "pytest" in _names(PROJECT["optional-dependencies"]["test"])
