"""tensorlens: the helper package of the Tensor Views book.

- ``layout``: ``View``, a pure model of strided views that agrees with torch.
- ``broadcast``: ``explain_broadcast``, the broadcasting rule step by step.
- ``stride_explorer`` / ``broadcast_explorer``: widgets that draw them in the browser.
- ``exercises``: ``check`` and the ``EXERCISES`` registry; ``quiz``: predict-the-result questions.

Names are imported on first use, so the pure model loads without importing torch or the widget
stack. Importing tensorlens checks that PyTorch is installed and recent enough (``_torch_check``:
pip never installs or replaces torch for tensorlens) and otherwise says what to run.
"""

from importlib import import_module

from ._torch_check import TorchMissingError, require_torch

require_torch()

_EXPORTS = {
    "View": "layout",
    "explain_broadcast": "broadcast",
    "BroadcastError": "broadcast",
    "BroadcastPlan": "broadcast",
    "StrideExplorer": "stride_explorer",
    "BroadcastExplorer": "broadcast_explorer",
    "check": "exercises",
    "EXERCISES": "exercises",
    "Quiz": "quiz",
}

__all__ = sorted([*_EXPORTS, "TorchMissingError"])


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'tensorlens' has no attribute {name!r}")
    value = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + __all__)
