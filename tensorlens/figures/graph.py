"""The autograd graph of a tensor: walked, described as text, measured and drawn.

Contract
--------
- ``autograd_graph(t)`` walks ``t.grad_fn`` and every ``next_functions`` entry below it, exactly
  the structure ``backward()`` will traverse, and returns a frozen :class:`Graph`. Nothing is
  copied or modified; the walk only reads torch's own node objects.
- Node order is deterministic for a given expression: breadth-first from the root, following
  ``next_functions`` in their order. Each node appears once, even when it is reached twice (a
  tensor used twice gives one node with two incoming edges).
- ``Graph.__str__`` is a stable text form (no addresses), so notebooks can print it and nbval can
  compare it.
- ``saved_tensor_bytes(t)`` sums the bytes of the distinct storages that the graph's nodes hold
  for backward: the memory a live graph keeps alive.
- ``draw_graph`` draws the graph with matplotlib (root at the top, leaves at the bottom, arrows in
  the direction the gradient flows, one arrow per edge: an input used twice gets two).

torch is imported here on purpose: this module reads real graphs; it has no pure model.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass

import torch

__all__ = ["GraphNode", "Graph", "autograd_graph", "saved_tensor_bytes", "draw_graph"]

# Colours shared with the book's other drawings: leaves are the "storage" orange, the root is
# highlighted, every other operation node is the neutral blue.
_LEAF_COLOUR = "#f4a261"
_ROOT_COLOUR = "#8ecae6"
_NODE_COLOUR = "#dbe9f6"


@dataclass(frozen=True)
class GraphNode:
    """One node of the backward graph.

    Attributes
    ----------
    index : int
        Position in the deterministic breadth-first order (the root is 0).
    kind : str
        The node's class name, e.g. ``"MulBackward0"`` or ``"AccumulateGrad"``.
    leaf_name : str or None
        For an ``AccumulateGrad`` node, the name given for its leaf tensor in ``names``.
    leaf_shape : tuple of int or None
        For an ``AccumulateGrad`` node, the shape of the leaf it accumulates into.
    depth : int
        Length of the longest path from the root (used for the drawing's rows).
    """

    index: int
    kind: str
    leaf_name: str | None
    leaf_shape: tuple | None
    depth: int

    @property
    def is_leaf(self) -> bool:
        """True for the ``AccumulateGrad`` nodes that write ``.grad`` of a leaf."""
        return self.kind == "AccumulateGrad"

    @property
    def label(self) -> str:
        """Short text used in the drawing and in ``Graph.__str__``."""
        if not self.is_leaf:
            return self.kind
        name = self.leaf_name if self.leaf_name is not None else "leaf"
        return f"{name} {tuple(self.leaf_shape)}"


@dataclass(frozen=True)
class Graph:
    """A backward graph: nodes in breadth-first order and the edges between them.

    Attributes
    ----------
    nodes : tuple of GraphNode
    edges : tuple of (int, int)
        ``(consumer, producer)`` pairs: the gradient flows from ``nodes[consumer]`` to
        ``nodes[producer]`` (``producer`` is in ``consumer``'s ``next_functions``).
    """

    nodes: tuple
    edges: tuple

    def __len__(self) -> int:
        return len(self.nodes)

    def kinds(self) -> list:
        """Node class names in breadth-first order."""
        return [node.kind for node in self.nodes]

    def __str__(self) -> str:
        lines = [f"backward graph: {len(self.nodes)} nodes, {len(self.edges)} edges"]
        for node in self.nodes:
            targets = [producer for consumer, producer in self.edges if consumer == node.index]
            arrow = " -> " + ", ".join(f"[{t}]" for t in targets) if targets else ""
            lines.append(f"[{node.index}] {node.label}{arrow}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        root = self.nodes[0].kind if self.nodes else "empty"
        return f"Graph(nodes={len(self.nodes)}, edges={len(self.edges)}, root={root})"


def _check_tensor(tensor) -> None:
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"tensor must be a torch.Tensor, got {type(tensor).__name__}")
    if tensor.grad_fn is None:
        why = "it is a leaf" if tensor.requires_grad else "it does not require grad"
        raise ValueError(f"tensor has no grad_fn ({why}), so there is no graph to walk")


def _walk(tensor):
    """Breadth-first list of torch nodes and (consumer, producer) index pairs."""
    root = tensor.grad_fn
    # Keyed by id() while the node objects are held in `order`, so ids cannot be reused.
    index = {id(root): 0}
    order = [root]
    edges = []
    queue = deque([root])
    while queue:
        node = queue.popleft()
        for producer, _ in node.next_functions:
            if producer is None:  # that input did not require grad: no gradient goes there
                continue
            if id(producer) not in index:
                index[id(producer)] = len(order)
                order.append(producer)
                queue.append(producer)
            edges.append((index[id(node)], index[id(producer)]))
    return order, edges


def _depths(count: int, edges: list) -> list:
    """Longest distance from the root for every node of a DAG (Kahn's topological order)."""
    indegree = [0] * count
    children = [[] for _ in range(count)]
    for consumer, producer in edges:
        indegree[producer] += 1
        children[consumer].append(producer)
    depth = [0] * count
    ready = deque(i for i in range(count) if indegree[i] == 0)
    while ready:
        i = ready.popleft()
        for child in children[i]:
            depth[child] = max(depth[child], depth[i] + 1)
            indegree[child] -= 1
            if indegree[child] == 0:
                ready.append(child)
    return depth


def autograd_graph(tensor, names=None) -> Graph:
    """Walk the backward graph that ``tensor.backward()`` would traverse.

    Parameters
    ----------
    tensor : torch.Tensor
        A tensor with a ``grad_fn`` (the result of operations on tensors that require grad).
    names : dict of str to torch.Tensor, optional
        Names for leaf tensors, e.g. ``{"x": x, "w": w}``; an ``AccumulateGrad`` node whose
        ``variable`` is one of them is labelled with that name.

    Returns
    -------
    Graph
        Nodes in breadth-first order from ``tensor.grad_fn`` and their edges.

    Raises
    ------
    TypeError
        If ``tensor`` is not a tensor, or ``names`` is not a dict of tensors.
    ValueError
        If ``tensor.grad_fn`` is None (a leaf, or a tensor that does not require grad).

    Examples
    --------
    >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> print(autograd_graph((x * x).sum(), names={"x": x}))
    backward graph: 3 nodes, 3 edges
    [0] SumBackward0 -> [1]
    [1] MulBackward0 -> [2], [2]
    [2] x (2,)
    """
    _check_tensor(tensor)
    names = {} if names is None else names
    if not isinstance(names, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in names.items()
    ):
        raise TypeError("names must be a dict mapping str to torch.Tensor")
    order, edges = _walk(tensor)
    depth = _depths(len(order), edges)
    nodes = []
    for i, fn in enumerate(order):
        kind = type(fn).__name__
        leaf_name = leaf_shape = None
        if kind == "AccumulateGrad":
            leaf_shape = tuple(fn.variable.shape)
            leaf_name = next((k for k, v in names.items() if v is fn.variable), None)
        nodes.append(GraphNode(i, kind, leaf_name, leaf_shape, depth[i]))
    return Graph(tuple(nodes), tuple(edges))


def _saved_tensors(fn):
    """Tensors a node holds for backward; empty once backward has freed them."""
    found = []
    for attr in dir(fn):
        if not attr.startswith("_saved_"):
            continue
        try:
            value = getattr(fn, attr)
        except RuntimeError:  # "... after they have already been freed": nothing is held
            continue
        values = value if isinstance(value, (tuple, list)) else (value,)
        found.extend(v for v in values if isinstance(v, torch.Tensor))
    return found


def saved_tensor_bytes(tensor) -> int:
    """Bytes of the distinct storages that ``tensor``'s backward graph keeps for backward.

    Each storage is counted once, in full (a saved view keeps its whole storage alive).
    Tensors freed by an earlier ``backward()`` count as zero. Custom
    ``torch.autograd.Function`` nodes are not inspected (their saved tensors are private).

    Parameters
    ----------
    tensor : torch.Tensor
        A tensor with a ``grad_fn``.

    Returns
    -------
    int
        Total ``untyped_storage().nbytes()`` over distinct saved storages.

    Raises
    ------
    TypeError, ValueError
        As :func:`autograd_graph`.
    """
    _check_tensor(tensor)
    order, _ = _walk(tensor)
    storages = {}
    for fn in order:
        for saved in _saved_tensors(fn):
            storage = saved.untyped_storage()
            # data_ptr identifies the storage here; it is used as a key, never shown.
            storages[(saved.device, storage.data_ptr())] = storage.nbytes()
    return sum(storages.values())


def draw_graph(graph, names=None, ax=None, title=None):
    """Draw a backward graph with matplotlib.

    Rows are depths (root at the top), leaves are orange boxes labelled with their name and
    shape, arrows point the way the gradient flows during ``backward()``. Parallel edges (an
    input used twice, as in ``h * h``) are drawn as separate arrows, bent apart.

    Parameters
    ----------
    graph : Graph or torch.Tensor
        A graph from :func:`autograd_graph`, or a tensor to walk.
    names : dict of str to torch.Tensor, optional
        Leaf names, used only when ``graph`` is a tensor.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made when omitted.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on (the caller shows and closes it).

    Raises
    ------
    TypeError
        If ``graph`` is neither a Graph nor a tensor.
    """
    import matplotlib.pyplot as plt  # drawing is optional: keep matplotlib off the import path

    if isinstance(graph, torch.Tensor):
        graph = autograd_graph(graph, names=names)
    elif not isinstance(graph, Graph):
        raise TypeError(f"graph must be a Graph or a torch.Tensor, got {type(graph).__name__}")

    rows = {}
    for node in graph.nodes:
        rows.setdefault(node.depth, []).append(node)
    width = max(len(r) for r in rows.values())
    height = len(rows)
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4.0, 2.4 * width), 1.1 * height + 0.6))
    pos = {}
    for depth, row in rows.items():
        for k, node in enumerate(row):
            pos[node.index] = ((k + 0.5) * width / len(row), -depth)

    # A node that uses one input twice (h * h) has two parallel edges: draw each as its own
    # arrow, bent apart, so that the reader can count them.
    counts = Counter(graph.edges)
    for (consumer, producer), count in sorted(counts.items()):
        for k in range(count):
            bend = 0.0 if count == 1 else 1.2 * (k / (count - 1) - 0.5)
            ax.annotate(
                "", xy=pos[producer], xytext=pos[consumer],
                arrowprops=dict(arrowstyle="-|>", color="#555555", shrinkA=14, shrinkB=14,
                                lw=1.2, connectionstyle=f"arc3,rad={bend}"),
            )
    for node in graph.nodes:
        colour = _LEAF_COLOUR if node.is_leaf else _ROOT_COLOUR if node.index == 0 else _NODE_COLOUR
        ax.text(*pos[node.index], node.label, ha="center", va="center", fontsize=10,
                bbox=dict(boxstyle="round,pad=0.4", fc=colour, ec="#333333"))
    ax.set_xlim(0, width)
    ax.set_ylim(-height + 0.5, 0.5)
    ax.axis("off")
    if title:
        ax.set_title(title)
    return ax.figure
