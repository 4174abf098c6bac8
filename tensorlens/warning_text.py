"""How warnings read in the book's notebooks.

Jupyter prints a warning as ``/tmp/ipykernel_1234/5678.py:1: UserWarning: message``, then the
line that raised it. The path changes with every run, so a stored output would show the build
machine's path and differ from a rerun. After :func:`plain_warnings` a warning prints as
``UserWarning: message``: what the learner's own run says, without the path.

    import tensorlens as tl
    tl.plain_warnings()
"""

from __future__ import annotations

import warnings

__all__ = ["plain_warnings"]


def _plain(message, category, filename, lineno, line=None) -> str:
    return f"{category.__name__}: {message}\n"


def plain_warnings() -> None:
    """Print every later warning as ``Category: message`` (no file, line number or source)."""
    warnings.formatwarning = _plain
