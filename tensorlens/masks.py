"""The model of attention masks built from sequence lengths: padding, causal, and both.

Pure Python (no torch), and the same rules as ``widgets/static/mask_rule.js``; both agree with
torch on every case of ``tests/test_masks.py`` and ``tests/js/fixtures/masks.json``.

Contract
--------
* Two conventions (``CONVENTIONS``): ``"sdpa"``, the bool ``attn_mask`` of
  ``F.scaled_dot_product_attention`` (True = the key takes part), and ``"mha"``, the
  ``key_padding_mask`` and bool ``attn_mask`` of ``nn.MultiheadAttention`` (True = ignored).
* ``build_masks(lengths, L, causal=True, convention="sdpa")`` returns a :class:`Masks`: the
  key-padding mask ``(N, L)``, the causal mask ``(L, L)`` (``None`` when ``causal`` is off), their
  broadcast combination (``(N, 1, L, L)``, or ``(N, 1, 1, L)`` without the causal mask), as
  nested lists of bools in the chosen convention; ``allowed[b][i]``, how many keys query ``i``
  of sample ``b`` may attend to; ``fully_masked``, the ``(b, i)`` rows with none (their softmax
  after ``masked_fill(..., -inf)`` is NaN); and ``code``, the torch line that builds the
  combination (``lengths`` a tensor).
* ``parse_lengths(text)`` reads what a reader types (``"4, 2, 3"``, ``"[4 2 3]"``,
  ``"torch.tensor([4, 2, 3])"``); ``ValueError`` with the widget's message otherwise.
* Limits, so the grids stay readable: ``1 <= N <= MAX_BATCH``, ``1 <= L <= MAX_LEN``, every
  length in ``0 ... L``; outside them ``ValueError`` names the argument.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CONVENTIONS", "MAX_BATCH", "MAX_LEN", "Masks", "build_masks", "parse_lengths",
           "check_sizes"]

MAX_BATCH = 6
MAX_LEN = 12

CONVENTIONS = {
    "sdpa": "F.scaled_dot_product_attention(attn_mask=...): True = takes part",
    "mha": "nn.MultiheadAttention(key_padding_mask=..., attn_mask=...): True = ignored",
}

_WRAPPERS = (
    re.compile(r"^torch\.tensor\(\s*\[(.*)\]\s*\)$", re.S),
    re.compile(r"^\[(.*)\]$", re.S),
    re.compile(r"^\((.*)\)$", re.S),
)


def parse_lengths(text):
    """The lengths in ``text``: whole numbers separated by commas and/or spaces, optionally
    wrapped in ``[...]``, ``(...)`` or ``torch.tensor([...])``; ``parseLengths`` in the JS.

    Examples
    --------
    >>> parse_lengths("torch.tensor([4, 2, 3])")
    (4, 2, 3)
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, not {type(text).__name__}")
    body = text.strip()
    for wrapper in _WRAPPERS:
        if match := wrapper.match(body):
            body = match[1]
            break
    if re.search(r",\s*,", body) or re.match(r"^\s*,", body):
        raise ValueError("two commas with no length between them")
    parts = [p for p in re.split(r"[\s,]+", body) if p]
    if not parts:
        raise ValueError("no lengths: type one per sequence, such as 4, 2, 3")
    lengths = []
    for part in parts:
        if not re.fullmatch(r"\d+", part):
            hint = " (a length cannot be negative)" if re.fullmatch(r"-\d+", part) else ""
            raise ValueError(f'"{part}" is not a length{hint}')
        lengths.append(int(part))
    return tuple(lengths)


def check_sizes(lengths, L):
    """Raise ``ValueError`` (the widget's message) unless ``lengths`` and ``L`` are in range."""
    if not 1 <= len(lengths) <= MAX_BATCH:
        raise ValueError(f"lengths: give 1 to {MAX_BATCH} sequences, got {len(lengths)}")
    if not 1 <= L <= MAX_LEN:
        raise ValueError(f"L must be between 1 and {MAX_LEN}, got {L}")
    for b, n in enumerate(lengths):
        if n > L:
            raise ValueError(f"lengths[{b}] is {n}, longer than L = {L}")


@dataclass(frozen=True)
class Masks:
    lengths: tuple
    L: int
    causal_on: bool
    convention: str
    padding: list           # (N, L)
    causal: list | None     # (L, L)
    combined: list          # (N, 1, L, L) or (N, 1, 1, L)
    allowed: list           # (N, rows): keys each query row may attend to
    fully_masked: list      # [(b, i)]

    @property
    def shapes(self):
        n, L = len(self.lengths), self.L
        return {"padding": (n, L), "causal": (L, L) if self.causal_on else None,
                "combined": (n, 1, L if self.causal_on else 1, L)}

    @property
    def code(self):
        return torch_code(self.lengths, self.L, self.causal_on, self.convention)


def torch_code(lengths, L, causal, convention):
    """The torch expression of the combined mask; ``lengths`` is a tensor of the lengths."""
    if convention == "sdpa":
        pad = f"(torch.arange({L}) < lengths[:, None])[:, None, None, :]"
        tri = f" & torch.ones({L}, {L}, dtype=torch.bool).tril()"
    else:
        pad = f"(torch.arange({L}) >= lengths[:, None])[:, None, None, :]"
        tri = f" | torch.ones({L}, {L}, dtype=torch.bool).triu(1)"
    return "mask = " + pad + (tri if causal else "")


def build_masks(lengths, L=None, causal=True, convention="sdpa"):
    """The padding, causal and combined masks for sequences of ``lengths`` padded to ``L``.

    Parameters
    ----------
    lengths : sequence of int
        One length per sequence, each in ``0 ... L``.
    L : int, optional
        The padded length (default: the longest length, at least 1).
    causal : bool
        Whether query ``i`` may see only keys ``0 ... i``.
    convention : {"sdpa", "mha"}
        What True means (see ``CONVENTIONS``).

    Examples
    --------
    >>> m = build_masks([3, 0], causal=False)
    >>> m.padding, m.fully_masked
    ([[True, True, True], [False, False, False]], [(1, 0)])
    """
    if isinstance(lengths, (str, bytes)) or not hasattr(lengths, "__iter__"):
        raise TypeError(f"lengths must be a sequence of ints, not {type(lengths).__name__}")
    lengths = tuple(lengths)
    for b, n in enumerate(lengths):
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"lengths[{b}] must be an int, not {type(n).__name__}")
        if n < 0:
            raise ValueError(f"lengths[{b}] is {n}: a length cannot be negative")
    if L is None:
        L = max(max(lengths, default=0), 1)
    if isinstance(L, bool) or not isinstance(L, int):
        raise TypeError(f"L must be an int, not {type(L).__name__}")
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be True or False, not {type(causal).__name__}")
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be 'sdpa' or 'mha', got {convention!r}")
    check_sizes(lengths, L)
    keep = convention == "sdpa"   # the bool that means "takes part"
    padding = [[(j < n) == keep for j in range(L)] for n in lengths]
    tri = [[(j <= i) == keep for j in range(L)] for i in range(L)] if causal else None
    rows = L if causal else 1
    combined, allowed, fully = [], [], []
    for b, n in enumerate(lengths):
        grid, counts = [], []
        for i in range(rows):
            ok = [j < n and (not causal or j <= i) for j in range(L)]
            grid.append([v == keep for v in ok])
            counts.append(sum(ok))
            if not any(ok):
                fully.append((b, i))
        combined.append([grid])
        allowed.append(counts)
    return Masks(lengths, L, causal, convention, padding, tri, combined, allowed, fully)
