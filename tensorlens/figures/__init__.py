"""The pictures: matplotlib figures drawn from what torch computes (each returns a ``Figure``).

- ``grids``: ``gather_figure``, ``scatter_figure``, ``broadcast_figure``,
  ``paired_vs_grid_figure``, ``expand_grad_figure`` (tensors drawn as grids of values).
- ``indexing``: ``picks_figure``, ``repeated_index_figure``, ``where_figure`` (what an index
  picks; writes through repeated positions; replacing against taking).
- ``graph``: ``autograd_graph`` (a text form of a tensor's autograd graph), ``draw_graph``,
  ``saved_tensor_bytes``.
- ``checkpoint``: ``checkpoint_figure`` (what a training checkpoint holds).
- ``devices``: ``trace_to``, ``to_figure`` (where a tensor lives and what ``.to()`` moves).
- ``timing``: ``timing_figure`` (single clock readings against a Timer's blocks).
- ``saving``: ``state_dict_figure``, ``weights_only_outcomes``, ``allowlist_figure``,
  ``memory_steps_figure`` (chapter 10: state dicts, safe loading, ``mmap``).
- ``floats``: ``bits_of``, ``bit_layout_figure``, ``spacing_figure`` (floating-point formats).
- ``shapes``: ``pairwise_block_figure``, ``matmul_dims_figure``, ``mask_grid_figure``,
  ``copy_order_figure`` (chapters 4-5: shapes and copy orders).
- ``sweeps``: ``plot_sweep`` (a :class:`tensorlens.measure.Sweep`, cost against size).

Figures import the model and measurement, never the widgets or the classroom tools.
"""

from .checkpoint import checkpoint_figure
from .devices import to_figure, trace_to
from .floats import bit_layout_figure, bits_of, spacing_figure
from .graph import Graph, GraphNode, autograd_graph, draw_graph, saved_tensor_bytes
from .grids import (broadcast_figure, expand_grad_figure, gather_figure, paired_vs_grid_figure,
                    scatter_figure)
from .indexing import picks_figure, repeated_index_figure, where_figure
from .shapes import (copy_order_figure, mask_grid_figure, matmul_dims_figure,
                     pairwise_block_figure)
from .saving import (allowlist_figure, memory_steps_figure, state_dict_figure,
                     weights_only_outcomes)
from .sweeps import plot_sweep
from .timing import timing_figure

__all__ = ["Graph", "GraphNode", "allowlist_figure", "autograd_graph", "bit_layout_figure",
           "bits_of", "broadcast_figure", "checkpoint_figure", "copy_order_figure",
           "draw_graph", "expand_grad_figure", "gather_figure", "mask_grid_figure",
           "matmul_dims_figure", "memory_steps_figure", "paired_vs_grid_figure",
           "pairwise_block_figure", "picks_figure", "plot_sweep", "repeated_index_figure",
           "saved_tensor_bytes", "scatter_figure", "spacing_figure", "state_dict_figure",
           "timing_figure", "to_figure", "trace_to", "weights_only_outcomes", "where_figure"]
