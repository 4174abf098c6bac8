"""``MaskExplorer``: padding and causal attention masks built from sequence lengths, editable.

Contract
--------
* ``MaskExplorer(lengths, L=None, *, causal=True, convention="sdpa")``: ``lengths`` one per
  sequence (a list, tuple or 1-d integer tensor), ``L`` the padded length (default: the longest),
  ``convention`` what True means (:data:`tensorlens.masks.CONVENTIONS`: ``"sdpa"``, True = takes
  part; ``"mha"``, True = ignored). Bad arguments raise ``TypeError`` / ``ValueError`` naming
  the argument.
* All state is in synced traits: ``lengths`` (the text the reader edits, ``"4, 2, 3"``),
  ``seq_len`` (the text of L), ``causal`` and ``convention``. The JavaScript
  (``static/mask_explorer.js`` with ``static/mask_rule.js``) computes the masks itself, so the
  controls work in the static book with no kernel.
* Python is the source of truth in notebooks and tests: ``masks()`` returns
  :func:`tensorlens.masks.build_masks` of the current state (``ValueError`` with the widget's
  message when the text is not valid), and ``repr`` is deterministic text:
  ``MaskExplorer(lengths=[4, 2, 3], L=4, causal, sdpa: True = takes part) -> (3, 1, 4, 4), no
  fully masked row``.
"""

from __future__ import annotations

import anywidget
import traitlets

from ._esm import frame_css, load_css, load_esm
from ..masks import CONVENTIONS, build_masks, check_sizes, parse_lengths

__all__ = ["MaskExplorer"]

_MEANS = {"sdpa": "True = takes part", "mha": "True = ignored"}


def _lengths_of(lengths):
    if hasattr(lengths, "tolist") and hasattr(lengths, "dim"):   # a torch tensor
        if lengths.dim() != 1:
            raise ValueError(f"lengths must be 1-d, got a tensor of shape {tuple(lengths.shape)}")
        if lengths.is_floating_point() or lengths.is_complex():
            raise TypeError(f"lengths must hold integers, not {lengths.dtype}")
        lengths = lengths.tolist()
    if isinstance(lengths, (str, bytes)) or not isinstance(lengths, (list, tuple)):
        raise TypeError(f"lengths must be a list of ints or a 1-d tensor, not {type(lengths).__name__}")
    return lengths


class MaskExplorer(anywidget.AnyWidget):
    """The key-padding mask, the causal mask and their broadcast combination, as grids.

    Parameters
    ----------
    lengths : list, tuple or 1-d integer tensor
        The real length of each sequence (1 to 6 of them).
    L : int, optional
        The padded length (1 to 12; default the longest length).
    causal : bool
        Whether query ``i`` sees only keys ``0 ... i``.
    convention : {"sdpa", "mha"}
        What True means in the drawn masks.

    Examples
    --------
    >>> MaskExplorer([4, 2, 3])
    MaskExplorer(lengths=[4, 2, 3], L=4, causal, sdpa: True = takes part) -> (3, 1, 4, 4), no fully masked row
    >>> MaskExplorer([3, 0], causal=False, convention="mha")
    MaskExplorer(lengths=[3, 0], L=3, not causal, mha: True = ignored) -> (2, 1, 1, 3), 1 fully masked row (NaN)
    """

    _esm = load_esm("mask_explorer.js")
    _css = frame_css(".tl-mx") + "\n" + load_css("mask_explorer.css")

    lengths = traitlets.Unicode("").tag(sync=True)
    seq_len = traitlets.Unicode("").tag(sync=True)
    causal = traitlets.Bool(True).tag(sync=True)
    convention = traitlets.Unicode("sdpa").tag(sync=True)

    def __init__(self, lengths, L=None, *, causal=True, convention="sdpa", **kwargs):
        # build_masks validates everything and names the argument.
        masks = build_masks(_lengths_of(lengths), L, causal, convention)
        super().__init__(lengths=", ".join(str(n) for n in masks.lengths), seq_len=str(masks.L),
                         causal=causal, convention=convention, **kwargs)

    def masks(self):
        """The masks of the current state (:func:`tensorlens.masks.build_masks`).

        Raises
        ------
        ValueError
            When the text of the lengths or of L is not valid (the widget's message).
        """
        try:
            lengths = parse_lengths(self.lengths)
        except ValueError as error:
            raise ValueError(f"lengths: {error}") from None
        text = self.seq_len.strip()
        if not text.isdigit() or not text.isascii():
            raise ValueError(f'L: "{text}" is not a whole number (the padded length)')
        check_sizes(lengths, int(text))
        convention = self.convention if self.convention in CONVENTIONS else "sdpa"
        return build_masks(lengths, int(text), bool(self.causal), convention)

    def __repr__(self):
        convention = self.convention if self.convention in CONVENTIONS else "sdpa"
        head = f"{'causal' if self.causal else 'not causal'}, {convention}: {_MEANS[convention]}"
        try:
            m = self.masks()
        except ValueError as error:
            return f"MaskExplorer(lengths={self.lengths!r}, L={self.seq_len!r}, {head}) -> invalid: {error}"
        rows = len(m.fully_masked)
        tail = ("no fully masked row" if rows == 0
                else f"{rows} fully masked row{'s' if rows > 1 else ''} (NaN)")
        shape = "(" + ", ".join(str(n) for n in m.shapes["combined"]) + ")"
        return (f"MaskExplorer(lengths={list(m.lengths)}, L={m.L}, {head}) -> {shape}, {tail}")
