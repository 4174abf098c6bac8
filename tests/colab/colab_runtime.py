"""Colab's runtime, built into the cache: a venv with the stack that ``stack.txt`` states.

    python tests/colab/colab_runtime.py      # make colab-runtime: build it (once per stack.txt)

It needs only the standard library, a Python of the stack's version and ``uv`` beside the Python
that runs it, so ``make prepare`` starts it as soon as the project's venv holds uv, while the rest
of the venv installs (its 3 GB download waits on the network, not on the venv). The Colab stage
(``test_colab.py``) reads the same cache.
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

STACK = Path(__file__).with_name("stack.txt")
CACHE = Path(os.environ.get("TENSOR_VIEWS_CACHE", Path.home() / ".cache" / "tensor-views")) / "colab"
WHEELS = CACHE / "wheels"
UV = Path(sys.executable).parent / "uv"  # from the Makefile (pinned), in the project's venv


class BuildError(RuntimeError):
    """A command that building the runtime needs failed, or a Python is missing."""


def stack() -> tuple[str, list[str]]:
    """(Python version, the package pins) that ``stack.txt`` states."""
    text = STACK.read_text(encoding="utf-8")
    python = re.search(r"^# python==(\d+\.\d+)$", text, re.M).group(1)
    pins = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return python, pins


def python_of(version: str) -> str:
    """An interpreter of ``version``: on PATH, or one pyenv or uv installed."""
    candidates = [shutil.which(f"python{version}")]
    candidates += sorted(glob.glob(str(Path.home() / f".pyenv/versions/{version}*/bin/python{version}")))
    candidates += sorted(glob.glob(str(Path.home() / f".local/share/uv/python/*-{version}.*/bin/python{version}")))
    for candidate in filter(None, candidates):
        run = subprocess.run([candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True)
        if run.returncode == 0 and run.stdout.strip() == version:
            return candidate
    raise BuildError(f"Python {version} (tests/colab/stack.txt) is not installed: install it "
                     f"(pyenv install {version}, uv python install {version}, or apt) and rerun")


def clean_env(**extra) -> dict:
    """The environment for the learner's Python: nothing of this project's venv leaks in."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "JUPYTER_PATH")}
    env.update({"PIP_DISABLE_PIP_VERSION_CHECK": "1", **extra})
    return env


def run(args, env=None) -> subprocess.CompletedProcess:
    """Run ``args``; :class:`BuildError` with the end of its output when it fails."""
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          env=env or clean_env())
    if done.returncode:
        raise BuildError(f"{' '.join(map(str, args))} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return done


def install_pins(python: Path, pins: list[str]) -> None:
    """Install ``pins`` into ``python``'s venv from the wheel cache (fetched there once).

    uv installs them: it unpacks each wheel once into its own cache (``~/.cache/uv``, a package
    manager's cache as pip's is) and links the files into the venv, compiling bytecode on every
    core. pip would unpack and compile the 7 GB of torch's CUDA build one file at a time on each
    rebuild. The venv keeps its own pip, which ``%pip`` in the learner's kernel uses, as on Colab.
    """
    install = [UV, "pip", "install", "-q", "--python", python, "--no-index", "--find-links",
               WHEELS, "--compile-bytecode", *pins]
    if subprocess.run([str(a) for a in install], capture_output=True, env=clean_env()).returncode:
        run([python, "-m", "pip", "download", "-q", "-d", WHEELS, *pins])
        run(install)


def runtime() -> Path:
    """The cached venv holding Colab's stack, built (once per stack.txt) if missing."""
    version, pins = stack()
    key = hashlib.sha256(STACK.read_bytes()).hexdigest()[:12]
    target = CACHE / f"runtime-{key}"
    if not (target / ".complete").exists():
        WHEELS.mkdir(parents=True, exist_ok=True)
        for stale in CACHE.glob("runtime-*.building-*"):  # left by an interrupted build
            shutil.rmtree(stale, ignore_errors=True)
        building = CACHE / f"runtime-{key}.building-{os.getpid()}"
        run([python_of(version), "-m", "venv", building])
        install_pins(building / "bin" / "python", pins)
        # venv scripts name their folder; the runtime only ever runs as `python -m ...`
        shutil.rmtree(target, ignore_errors=True)
        building.rename(target)
        (target / ".complete").write_text(STACK.read_text(encoding="utf-8"), encoding="utf-8")
    return target


if __name__ == "__main__":
    if sys.argv[1:]:
        sys.exit("usage: python tests/colab/colab_runtime.py")
    try:
        print(f"Colab's runtime: {runtime()}")
    except BuildError as error:
        sys.exit(str(error))
