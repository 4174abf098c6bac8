"""The widgets: explorers and the quiz, drawn in the browser by plain ES modules in ``static/``.

- ``StrideExplorer`` (``stride_explorer``): a tensor's logical view above its storage.
- ``BroadcastExplorer`` (``broadcast_explorer``): the broadcasting rule, dim by dim.
- ``MaskExplorer`` (``mask_explorer``): padding and causal attention masks from lengths.
- ``FloatBitsExplorer`` (``float_bits_explorer``): a number's bits in a float format.
- ``Quiz`` (``quiz``): predict-the-result questions checked in the browser.

Each widget holds its state in synced traits and computes in its own JS, so it keeps working in
the static book with no kernel. Widgets import the model (``tensorlens.layout``,
``tensorlens.broadcast``, ``tensorlens.masks``, ``tensorlens.float_bits``), never the classroom tools.
"""

from .broadcast_explorer import BroadcastExplorer
from .float_bits_explorer import FloatBitsExplorer
from .mask_explorer import MaskExplorer
from .quiz import Quiz
from .stride_explorer import StrideExplorer

__all__ = ["BroadcastExplorer", "FloatBitsExplorer", "MaskExplorer", "Quiz", "StrideExplorer"]
