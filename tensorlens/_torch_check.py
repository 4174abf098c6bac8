"""The one check ``import tensorlens`` makes: PyTorch is installed and new enough.

tensorlens does not list torch among its pip dependencies, so installing it never downloads,
upgrades or replaces the torch a kernel already has (Colab's CUDA build, a CPU wheel, a conda
package). Instead, importing it reads torch's installed version, without importing torch, and
stops with a message that says what to run when torch is missing or older than ``MIN_TORCH``
(in the language ``tensorlens.language`` names: the Chinese notebooks set it before the import).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re

from .language import get_language, validate

# The oldest PyTorch the book is tested with: the Colab stage's (tests/colab/stack.txt).
MIN_TORCH = (2, 11)
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


class TorchMissingError(ImportError):
    """PyTorch is not installed, or is older than tensorlens needs."""


#: the message, by language (tensorlens.language): placeholders need, version, cpu_index
MESSAGES = {
    "en": {
        "restart": "then restart the kernel (in Colab: Runtime > Restart session)",
        "missing": "tensorlens needs PyTorch {need} or later, and this Python has none; install it "
                   "with `pip install torch` (on Linux without a GPU, the CPU build is enough and "
                   "much smaller: `pip install torch --index-url {cpu_index}`), {restart}",
        "old": "tensorlens needs PyTorch {need} or later, and this Python has {version}; upgrade "
               "it with `pip install --upgrade torch` (on Linux without a GPU: `pip install "
               "--upgrade torch --index-url {cpu_index}`), {restart}",
    },
    "zh_CN": {
        "restart": "然后重启内核（在 Colab 中：代码执行程序 > 重启会话）",
        "missing": "tensorlens 需要 PyTorch {need} 或更高版本，而这个 Python 环境里没有安装 "
                   "PyTorch；请用 `pip install torch` 安装（在没有 GPU 的 Linux 上，CPU 版本就够"
                   "了，而且小得多：`pip install torch --index-url {cpu_index}`），{restart}",
        "old": "tensorlens 需要 PyTorch {need} 或更高版本，而这个 Python 环境里是 {version}；请用 "
               "`pip install --upgrade torch` 升级（在没有 GPU 的 Linux 上：`pip install "
               "--upgrade torch --index-url {cpu_index}`），{restart}",
    },
}


def torch_problem(version: str | None, language: str | None = None) -> str | None:
    """What is wrong with an installed torch ``version`` (``None``: not installed), or ``None``;
    in ``language`` (None: :func:`tensorlens.language.get_language`).

    Examples
    --------
    >>> torch_problem("2.13.0+cpu") is None
    True
    >>> torch_problem("2.5.1", "en").split(";")[0]
    'tensorlens needs PyTorch 2.11 or later, and this Python has 2.5.1'
    """
    words = MESSAGES[validate(language, "torch_problem") if language is not None else get_language()]
    facts = {"need": ".".join(map(str, MIN_TORCH)), "version": version, "cpu_index": CPU_INDEX,
             "restart": words["restart"]}
    if version is None:
        return words["missing"].format(**facts)
    match = re.match(r"(\d+)\.(\d+)", version)
    if match and tuple(map(int, match.groups())) < MIN_TORCH:
        return words["old"].format(**facts)
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
