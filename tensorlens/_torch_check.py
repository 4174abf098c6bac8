"""The one check ``import tensorlens`` makes: PyTorch is installed and new enough.

tensorlens does not list torch among its pip dependencies, so installing it never downloads,
upgrades or replaces the torch a kernel already has (Colab's CUDA build, a CPU wheel, a conda
package). Instead, importing it reads torch's installed version, without importing torch, and
stops with a message that says what to run when torch is missing or older than ``MIN_TORCH``.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re

# The oldest PyTorch the book is tested with: the Colab stage's (tests/colab/stack.txt).
MIN_TORCH = (2, 11)
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


class TorchMissingError(ImportError):
    """PyTorch is not installed, or is older than tensorlens needs."""


def torch_problem(version: str | None) -> str | None:
    """What is wrong with an installed torch ``version`` (``None``: not installed), or ``None``.

    Examples
    --------
    >>> torch_problem("2.13.0+cpu") is None
    True
    >>> torch_problem("2.5.1").split(";")[0]
    'tensorlens needs PyTorch 2.11 or later, and this Python has 2.5.1'
    """
    need = ".".join(map(str, MIN_TORCH))
    restart = "then restart the kernel (in Colab: Runtime > Restart session)"
    if version is None:
        return (f"tensorlens needs PyTorch {need} or later, and this Python has none; install "
                f"it with `pip install torch` (on Linux without a GPU, the CPU build is enough "
                f"and much smaller: `pip install torch --index-url {CPU_INDEX}`), {restart}")
    match = re.match(r"(\d+)\.(\d+)", version)
    if match and tuple(map(int, match.groups())) < MIN_TORCH:
        return (f"tensorlens needs PyTorch {need} or later, and this Python has {version}; "
                f"upgrade it with `pip install --upgrade torch` (on Linux without a GPU: "
                f"`pip install --upgrade torch --index-url {CPU_INDEX}`), {restart}")
    return None


def installed_torch() -> str | None:
    """torch's installed version, read from its metadata; ``None`` when it is not installed."""
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        # A torch without metadata (built from source into the path) is taken as it is.
        return "" if importlib.util.find_spec("torch") is not None else None


def require_torch() -> None:
    """Raise :class:`TorchMissingError`, saying what to run, unless a recent torch is installed."""
    problem = torch_problem(installed_torch())
    if problem:
        raise TorchMissingError(problem)
