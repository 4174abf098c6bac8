"""Tests for tensorlens.shape_flow: the shapes it records are torch's, and its hooks go away."""

import pytest
import torch
from torch import nn

import tensorlens as tl
from tensorlens.shape_flow import ShapeTable, describe, shape_table


def small_cnn():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(1, 4, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(4 * 14 * 14, 10))


def hook_counts(module):
    return [(len(m._forward_hooks), len(m._forward_pre_hooks)) for m in module.modules()]


def test_rows_follow_call_order_and_match_torch_shapes():
    net = small_cnn()
    x = torch.randn(2, 1, 28, 28)
    table = shape_table(net, x)
    assert [r.name for r in table] == ["", "0", "1", "2", "3", "4"]
    assert [r.kind for r in table] == ["Sequential", "Conv2d", "ReLU", "MaxPool2d", "Flatten",
                                       "Linear"]
    # torch is the oracle: run the layers one by one
    expected_out, h = [], x
    for layer in net:
        h = layer(h)
        expected_out.append(h.shape)
    assert [r.output for r in table][1:] == expected_out
    assert table[0].output == torch.Size([2, 10])
    assert table[0].inputs == (x.shape,)
    assert [r.depth for r in table] == [0, 1, 1, 1, 1, 1]
    assert all(r.finished for r in table)


def test_params_are_torchs_counts_with_children_included():
    net = small_cnn()
    table = shape_table(net, torch.randn(1, 1, 28, 28))
    assert table.row("").params == sum(p.numel() for p in net.parameters())
    assert table.row("0").params == 4 * 1 * 3 * 3 + 4
    assert table.row("1").params == 0


def test_nested_names_depth_and_max_depth():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Sequential(nn.Linear(3, 5), nn.Tanh()), nn.Linear(5, 2))
    table = shape_table(net, torch.randn(4, 3))
    assert [(r.name, r.depth) for r in table] == [("", 0), ("0", 1), ("0.0", 2), ("0.1", 2),
                                                  ("1", 1)]
    assert [r.name for r in shape_table(net, torch.randn(4, 3), max_depth=1)] == ["", "0", "1"]
    assert [r.name for r in shape_table(net, torch.randn(4, 3), max_depth=0)] == [""]
    assert "    0" in str(table) and "Tanh" in str(table)


def test_linear_acts_on_the_last_dim():
    lin = nn.Linear(8, 3)
    table = shape_table(lin, torch.randn(2, 5, 7, 8))
    assert table[0].output == lin(torch.randn(2, 5, 7, 8)).shape == torch.Size([2, 5, 7, 3])


def test_a_module_called_twice_gives_two_rows():
    class Twice(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            return self.lin(self.lin(x)[:, :4])

    table = shape_table(Twice(), torch.randn(3, 4))
    assert [r.name for r in table] == ["", "lin", "lin"]
    assert all(r.output == torch.Size([3, 4]) for r in table)


def test_tuple_outputs_dtypes_and_kwargs():
    torch.manual_seed(0)
    lstm = nn.LSTM(input_size=6, hidden_size=5, batch_first=True)
    table = shape_table(lstm, torch.randn(2, 7, 6))
    out, (h, c) = lstm(torch.randn(2, 7, 6))
    assert table[0].output == (out.shape, (h.shape, c.shape))
    assert table[0].output_text == "([2, 7, 5], ([1, 2, 5], [1, 2, 5]))"
    emb = nn.Embedding(10, 3)
    row = shape_table(emb, torch.tensor([[1, 2], [3, 4]]))[0]
    assert row.inputs_text == "[2, 2] int64" and row.output_text == "[2, 2, 3]"
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    q = torch.randn(2, 5, 8)
    row = shape_table(mha, q, q, q, need_weights=False)[0]
    assert row.inputs == (q.shape,) * 3 and row.output == (q.shape, None)
    assert describe({"a": torch.zeros(1), "b": 3}) == {"a": torch.Size([1]), "b": "int"}


def test_the_table_text_is_aligned():
    text = str(shape_table(small_cnn(), torch.randn(2, 1, 28, 28)))
    lines = text.splitlines()
    assert lines[0].split() == ["module", "type", "input", "output", "params"]
    assert set(lines[1]) <= {"-", " "}
    assert "[2, 4, 28, 28]" in text and "[2, 784]" in text and "7,850" in text
    assert repr(shape_table(small_cnn(), torch.randn(2, 1, 28, 28))) == text


def test_hooks_are_removed_after_a_pass_and_after_an_error():
    net = small_cnn()
    before = hook_counts(net)
    shape_table(net, torch.randn(1, 1, 28, 28))
    assert hook_counts(net) == before
    x = torch.randn(2, 1, 32, 32)   # 32x32 makes 4*16*16 features, Linear wants 4*14*14
    with pytest.raises(RuntimeError) as info:
        shape_table(net, x)
    with pytest.raises(RuntimeError) as plain:
        net(x)
    assert str(info.value) == str(plain.value)
    assert "mat1 and mat2 shapes cannot be multiplied (2x1024 and 784x10)" in str(info.value)
    assert hook_counts(net) == before
    notes = getattr(info.value, "__notes__", [])
    assert notes == ["shape_table: raised inside '4' (Linear), given [2, 1024]"]
    partial = info.value.shape_table
    assert isinstance(partial, ShapeTable)
    assert [r.finished for r in partial] == [False, True, True, True, True, False]
    assert "(did not finish)" in str(partial)


def test_the_module_keeps_its_mode():
    bn = nn.BatchNorm1d(3)
    bn.eval()
    shape_table(bn, torch.randn(4, 3))
    assert not bn.training and bn.num_batches_tracked.item() == 0
    bn.train()
    shape_table(bn, torch.randn(4, 3))
    assert bn.training and bn.num_batches_tracked.item() == 1


@pytest.mark.parametrize("args, kwargs, error, word", [
    (("not a module", torch.zeros(1)), {}, TypeError, "module"),
    ((nn.Linear(2, 2),), {}, TypeError, "inputs"),
    ((nn.Linear(2, 2), torch.zeros(1, 2)), {"max_depth": 1.5}, TypeError, "max_depth"),
    ((nn.Linear(2, 2), torch.zeros(1, 2)), {"max_depth": True}, TypeError, "max_depth"),
    ((nn.Linear(2, 2), torch.zeros(1, 2)), {"max_depth": -1}, ValueError, "max_depth"),
])
def test_bad_arguments_name_the_argument(args, kwargs, error, word):
    with pytest.raises(error, match=word):
        shape_table(*args, **kwargs)


def test_row_lookup_and_export():
    table = tl.shape_table(nn.Linear(2, 3), torch.zeros(1, 2))
    assert table.row("").kind == "Linear"
    with pytest.raises(KeyError, match="nope"):
        table.row("nope")
    with pytest.raises(TypeError, match="name"):
        table.row(0)
    assert tl.ShapeTable is ShapeTable


def test_docstring_examples_run():
    import doctest

    import tensorlens.shape_flow
    assert doctest.testmod(tensorlens.shape_flow).failed == 0


def test_lazy_modules_count_once_initialised():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Flatten(), nn.LazyLinear(5))
    table = shape_table(net, torch.randn(2, 3, 4))
    assert table.row("1").params == 12 * 5 + 5 == table.row("").params
    assert net[1].in_features == 12
