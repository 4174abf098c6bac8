"""tensorlens: the helper package of the Tensor Views book.

- ``tensorlens.layout``: a pure model of strided views (``View``) that agrees with torch.
- ``tensorlens.broadcast``: the broadcasting rule, explained (``explain_broadcast``).
- Widgets that draw them in the browser (``StrideExplorer``).
"""
