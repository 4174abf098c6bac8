"""tensorlens: the helper package of the Tensor Views book.

The rooms, in the one direction imports may go (a room imports only those above it):

- the model and measurement, at the top: ``layout`` (``View``, a pure model of strided views that
  agrees with torch), ``broadcast`` (``explain_broadcast``, the rule step by step), ``masks``
  (attention masks from lengths), ``float_bits`` (float formats bit by bit), ``measure``
  (storage bytes, shared storage, allocations, timing) and ``shape_flow`` (``shape_table``:
  each submodule's input and output shapes in one forward pass);
- ``figures/``: matplotlib pictures (grids of values, the autograd graph, float formats, sweeps);
- ``widgets/``: the explorers and the quiz, with their JS and CSS in ``widgets/static/``;
- ``exercises/``: ``check`` and the ``EXERCISES`` registry, one module per chapter;
- ``classroom/``: what teachers run (student copies, grading, Otter); a learner never needs it.

``tests/test_architecture.py`` enforces the direction.

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
    "shape_table": "shape_flow",
    "ShapeTable": "shape_flow",
    "StrideExplorer": "widgets.stride_explorer",
    "BroadcastExplorer": "widgets.broadcast_explorer",
    "MaskExplorer": "widgets.mask_explorer",
    "FloatBitsExplorer": "widgets.float_bits_explorer",
    "Quiz": "widgets.quiz",
    "check": "exercises",
    "EXERCISES": "exercises",
    "set_language": "language",
    "get_language": "language",
    "plain_warnings": "warning_text",
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
