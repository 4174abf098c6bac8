"""tensorlens.figures.graph: the walked graph must be the graph torch builds, and its text form stable."""

import matplotlib
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tensorlens.figures.graph import Graph, autograd_graph, draw_graph, saved_tensor_bytes

matplotlib.use("Agg")


def boxes(ax):
    """Node boxes are plain Text artists; the arrows are Annotations (a Text subclass)."""
    return [t.get_text() for t in ax.texts if not isinstance(t, matplotlib.text.Annotation)]


def leaf(*values):
    return torch.tensor(values, requires_grad=True)


def test_polynomial_structure_and_text():
    x = torch.tensor(2.0, requires_grad=True)
    y = x**2 + 3 * x + 1
    g = autograd_graph(y, names={"x": x})
    assert g.kinds() == ["AddBackward0", "AddBackward0", "PowBackward0", "MulBackward0",
                         "AccumulateGrad"]
    assert set(g.edges) == {(0, 1), (1, 2), (1, 3), (2, 4), (3, 4)}
    assert [n.depth for n in g.nodes] == [0, 1, 2, 2, 3]
    assert str(g) == "\n".join([
        "backward graph: 5 nodes, 5 edges",
        "[0] AddBackward0 -> [1]",
        "[1] AddBackward0 -> [2], [3]",
        "[2] PowBackward0 -> [4]",
        "[3] MulBackward0 -> [4]",
        "[4] x ()",
    ])
    assert repr(g) == "Graph(nodes=5, edges=5, root=AddBackward0)"


def test_nodes_are_torch_nodes():
    # Oracle: the kinds seen by walking next_functions by hand, in breadth-first order.
    x, w = leaf(1.0, 2.0), leaf(3.0, 4.0)
    out = (x * w).exp().sum()
    fn = out.grad_fn
    expected = [type(fn).__name__]
    level = [fn]
    while level:
        nxt = [p for node in level for p, _ in node.next_functions if p is not None]
        expected += [type(p).__name__ for p in nxt]
        level = nxt
    assert autograd_graph(out).kinds() == expected


def test_shared_node_appears_once_with_two_edges():
    x = leaf(1.0, 2.0)
    a = x + 1
    g = autograd_graph(a * a)
    assert g.kinds() == ["MulBackward0", "AddBackward0", "AccumulateGrad"]
    assert g.edges == ((0, 1), (0, 1), (1, 2))


def test_inputs_without_grad_are_not_nodes():
    x = leaf(1.0, 2.0)
    c = torch.tensor([5.0, 6.0])
    g = autograd_graph(x * c)
    assert g.kinds() == ["MulBackward0", "AccumulateGrad"]
    assert g.nodes[1].leaf_shape == (2,)
    assert g.nodes[1].leaf_name is None and g.nodes[1].label == "leaf (2,)"


def test_leaf_names_match_by_identity_not_value():
    x, y = leaf(1.0), leaf(1.0)  # equal values, different tensors
    g = autograd_graph(x * y, names={"x": x, "y": y})
    assert [n.leaf_name for n in g.nodes if n.is_leaf] == ["x", "y"]


def test_text_is_deterministic():
    def build():
        x = leaf(1.0, 2.0, 3.0)
        return str(autograd_graph((x.sin() * x).sum(), names={"x": x}))
    assert build() == build()


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(["exp", "sin", "neg", "sigmoid"]), min_size=1, max_size=8))
def test_chain_of_unary_ops(ops):
    x = leaf(0.5, 0.25)
    y = x
    for op in ops:
        y = getattr(y, op)()
    g = autograd_graph(y)
    assert len(g) == len(ops) + 1
    assert g.nodes[-1].is_leaf and g.nodes[-1].depth == len(ops)
    assert len(g.edges) == len(ops)


def test_errors_name_the_problem():
    with pytest.raises(TypeError, match="tensor must be a torch.Tensor"):
        autograd_graph([1.0])
    with pytest.raises(ValueError, match="does not require grad"):
        autograd_graph(torch.ones(2) * 2)
    with pytest.raises(ValueError, match="it is a leaf"):
        autograd_graph(leaf(1.0))
    x = leaf(1.0)
    with pytest.raises(TypeError, match="names"):
        autograd_graph(x * 2, names={"x": [1.0]})
    with pytest.raises(TypeError, match="graph must be"):
        draw_graph("x * 2")


def test_saved_bytes_counts_each_storage_once_and_in_full():
    x = torch.ones(10, requires_grad=True)
    w = torch.ones(4, requires_grad=True)
    # x * w[:1] saves x and the view w[:1]; the view keeps all of w's storage.
    y = x * w[:1]
    assert saved_tensor_bytes(y) == x.untyped_storage().nbytes() + w.untyped_storage().nbytes()
    # x * x saves x twice: counted once.
    assert saved_tensor_bytes(x * x) == 40


def test_saved_bytes_drop_to_zero_after_backward():
    x = torch.ones(1000, requires_grad=True)
    loss = (x.exp() * x).sum()
    assert saved_tensor_bytes(loss) == 2 * 4000  # x and exp(x)
    loss.backward()
    assert saved_tensor_bytes(loss) == 0


def test_draw_one_box_per_node():
    x = leaf(1.0, 2.0)
    fig = draw_graph((x * 2 + x).sum(), names={"x": x}, title="t")
    ax = fig.axes[0]
    labels = sorted(boxes(ax))
    assert labels == sorted(["SumBackward0", "AddBackward0", "MulBackward0", "x (2,)"])
    assert ax.get_title() == "t"
    matplotlib.pyplot.close(fig)


def test_draw_accepts_graph():
    x = leaf(1.0)
    g = autograd_graph(x.exp())
    assert isinstance(g, Graph)
    fig = draw_graph(g)
    assert sorted(boxes(fig.axes[0])) == ["ExpBackward0", "leaf (1,)"]
    matplotlib.pyplot.close(fig)


def test_draw_parallel_edges_as_separate_arrows():
    # h * h: MulBackward0 reaches h's node twice; the drawing must show two arrows there.
    w = leaf(1.0, 2.0)
    h = w * 3
    fig = draw_graph((h * h).sum(), names={"w": w})
    arrows = [t for t in fig.axes[0].texts if isinstance(t, matplotlib.text.Annotation)]
    assert len(arrows) == 4  # Sum -> Mul, Mul -> Mul twice, Mul -> w
    bends = sorted(a.arrow_patch.get_connectionstyle().rad for a in arrows)
    assert bends[0] < 0 < bends[-1]
    matplotlib.pyplot.close(fig)
    fig = draw_graph((h * h.detach()).sum(), names={"w": w})
    arrows = [t for t in fig.axes[0].texts if isinstance(t, matplotlib.text.Annotation)]
    assert len(arrows) == 3
    matplotlib.pyplot.close(fig)
