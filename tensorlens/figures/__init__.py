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
- ``layers``: ``shape_flow_figure``, ``conv_size_figure``, ``conv_output_sizes``,
  ``norm_groups_figure``, ``norm_groups`` (chapter 11: shapes through layers, convolution
  sizes, which cells a normalisation averages over).
- ``layers_seq``: ``embedding_lookup_figure``, ``rnn_shapes_figure``,
  ``mask_conventions_figure`` (chapter 11: embeddings, recurrent layers, attention masks).
- ``losses``: ``softmax_first_figure`` (cross-entropy given logits against given softmax
  outputs); ``modules``: ``module_tensors``, ``module_tensors_figure`` (what a module
  registers, and what it holds without registering).
- ``data``: ``image_row_figure``, ``collate_figure``, ``worker_timeline_figure`` (chapter 12:
  image layouts, samples collated into a batch, what each worker drew).
- ``sweeps``: ``plot_sweep`` (a :class:`tensorlens.measure.Sweep`, cost against size).
- ``batches``: ``copy_path_figure`` (host-to-device copies, pageable or pinned),
  ``growth_bytes`` and ``growth_figure`` (the bytes a growing tensor writes; chapter 12).

Figures import the model and measurement, never the widgets or the classroom tools.
"""

from .batches import copy_path_figure, growth_bytes, growth_figure
from .checkpoint import checkpoint_figure
from .data import collate_figure, image_row_figure, worker_timeline_figure
from .devices import to_figure, trace_to
from .floats import bit_layout_figure, bits_of, spacing_figure
from .graph import Graph, GraphNode, autograd_graph, draw_graph, saved_tensor_bytes
from .grids import (broadcast_figure, expand_grad_figure, gather_figure, paired_vs_grid_figure,
                    scatter_figure)
from .indexing import picks_figure, repeated_index_figure, where_figure
from .layers import (conv_output_sizes, conv_size_figure, norm_groups, norm_groups_figure,
                     shape_flow_figure)
from .layers_seq import embedding_lookup_figure, mask_conventions_figure, rnn_shapes_figure
from .losses import softmax_first_figure
from .modules import module_tensors, module_tensors_figure
from .shapes import (copy_order_figure, mask_grid_figure, matmul_dims_figure,
                     pairwise_block_figure)
from .saving import (allowlist_figure, memory_steps_figure, state_dict_figure,
                     weights_only_outcomes)
from .sweeps import plot_sweep
from .timing import timing_figure

__all__ = ["allowlist_figure", "autograd_graph", "bit_layout_figure", "bits_of",
           "broadcast_figure", "checkpoint_figure", "collate_figure", "conv_output_sizes",
           "conv_size_figure", "copy_order_figure", "copy_path_figure", "draw_graph",
           "embedding_lookup_figure", "expand_grad_figure", "gather_figure", "Graph",
           "GraphNode", "growth_bytes", "growth_figure", "image_row_figure",
           "mask_conventions_figure", "mask_grid_figure", "matmul_dims_figure",
           "memory_steps_figure", "module_tensors", "module_tensors_figure", "norm_groups",
           "norm_groups_figure", "paired_vs_grid_figure", "pairwise_block_figure",
           "picks_figure", "plot_sweep", "repeated_index_figure", "rnn_shapes_figure",
           "saved_tensor_bytes", "scatter_figure", "shape_flow_figure", "softmax_first_figure",
           "spacing_figure", "state_dict_figure", "timing_figure", "to_figure", "trace_to",
           "weights_only_outcomes", "where_figure", "worker_timeline_figure"]
