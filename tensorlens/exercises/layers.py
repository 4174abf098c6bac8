"""Exercises for chapter 11, tensors through layers.

- ``layers.class_targets``: labels read from a file arrive as a float ``(N, 1)`` column;
  ``cross_entropy`` wants ``int64`` class indices of shape ``(N,)``. ``squeeze()`` without a
  dim would turn a batch of one into a 0-d tensor.
- ``layers.multilabel_loss``: tags given as padded lists of numbers become the float multi-hot
  target ``BCEWithLogitsLoss`` reads (a scatter, chapter 2), the ``-1`` padding kept out.
- ``layers.segmentation_loss`` (the silent bug): logits in channels-last order ``(N, H, W, C)``;
  ``view(N, C, H, W)`` runs and scrambles classes with pixels (chapter 3: a view keeps the
  order of the elements), ``permute`` moves the class dim where the loss reads it.
- ``layers.unregistered``: every tensor a module holds that neither ``parameters()`` nor
  ``buffers()`` lists, with its element count: plain tensor attributes, and the tensors of layers
  kept in plain Python lists or tuples, at any depth.
"""

import torch
import torch.nn.functional as F
from torch import nn

from . import rules
from ._core import exercise
from .strategies import st

# ---------------------------------------------------------------- class_targets


def _class_targets_solution(labels):
    return labels.reshape(-1).to(torch.int64)


def _column(values, dtype=torch.float32):
    return torch.tensor(values, dtype=dtype).reshape(-1, 1)


@st.composite
def _label_columns(draw):
    n = draw(st.integers(0, 6))
    classes = draw(st.integers(1, 5))
    values = draw(st.lists(st.integers(0, classes - 1), min_size=n, max_size=n))
    dtype = draw(st.sampled_from((torch.float32, torch.float64)))
    return (_column(values, dtype),)


@exercise(
    "layers.class_targets",
    title="Targets the classification loss accepts",
    statement="A CSV loader gives the labels of a batch as `labels`, a float tensor of shape "
              "`(N, 1)` holding whole class numbers. Write `class_targets(labels)` that returns "
              "them as `F.cross_entropy` wants class indices: `int64`, shape `(N,)`. `N` may be "
              "1, or 0 for an empty batch.",
    inputs=_label_columns(),
    edge_cases=[
        (_column([]),),
        (_column([2.0]),),
        (_column([0.0, 2.0, 1.0]),),
        (_column([3.0, 0.0], torch.float64),),
    ],
    hint="Two things are wrong: the dtype (`expected target dtype to be Long`) and the trailing "
         "dim (`multi-target not supported`). `squeeze()` with no dim also removes `N` when it "
         "is 1: name the dim, or reshape to one dim.",
    solution=_class_targets_solution,
    wrong=[("the dtype only", lambda labels: labels.long()),
           ("squeeze() without a dim", lambda labels: labels.squeeze().long()),
           ("the shape only", lambda labels: labels.reshape(-1))],
)
def class_targets(labels):
    """The labels as int64 class indices of shape (N,) (the specification)."""
    out = torch.empty(labels.shape[0], dtype=torch.int64)
    for i in range(labels.shape[0]):
        out[i] = int(labels[i, 0].item())
    return out


# ---------------------------------------------------------------- multilabel_loss


def _multilabel_solution(logits, labels):
    n, c = logits.shape
    index = labels.masked_fill(labels < 0, c)
    target = torch.zeros(n, c + 1, dtype=logits.dtype).scatter(1, index, 1.0)[:, :c]
    return F.binary_cross_entropy_with_logits(logits, target)


def _tagged(logits, rows):
    width = max((len(r) for r in rows), default=0)
    labels = torch.tensor([r + [-1] * (width - len(r)) for r in rows],
                          dtype=torch.int64).reshape(len(rows), width)
    return logits, labels


@st.composite
def _tag_batches(draw):
    n, c = draw(st.integers(1, 4)), draw(st.integers(1, 5))
    rows = [sorted(draw(st.sets(st.integers(0, c - 1), max_size=c))) for _ in range(n)]
    g = torch.Generator().manual_seed(draw(st.integers(0, 100)))
    return _tagged(torch.randn(n, c, generator=g) * 2, rows)


def _padding_as_class_0(logits, labels):
    c = logits.shape[1]
    target = F.one_hot(labels.clamp(min=0), c).sum(dim=1).clamp(max=1).to(logits.dtype)
    return F.binary_cross_entropy_with_logits(logits, target)


def _softmax_cross_entropy(logits, labels):
    n, c = logits.shape
    index = labels.masked_fill(labels < 0, c)
    target = torch.zeros(n, c + 1).scatter(1, index, 1.0)[:, :c]
    return F.cross_entropy(logits, target)


@exercise(
    "layers.multilabel_loss",
    title="A multi-label loss from lists of tags",
    statement="Each of `N` photos may carry any number of `C` tags. The model returns `logits` "
              "(float32, `(N, C)`), one independent yes/no score per tag. The data gives each "
              "photo's tags as a row of `labels` (`int64`, `(N, K)`): distinct tag numbers "
              "`0 ... C-1`, padded at the end with `-1` to the longest row (`K` may be 0). "
              "Write `multilabel_loss(logits, labels)` that returns the mean binary "
              "cross-entropy over all `N * C` scores, the target of a score being 1 when the "
              "photo has that tag and 0 otherwise, without a Python loop.",
    inputs=_tag_batches(),
    edge_cases=[
        _tagged(torch.tensor([[0.5, -1.0]]), [[]]),
        _tagged(torch.tensor([[2.0, -1.0, 0.0]]), [[0, 2]]),
        _tagged(torch.tensor([[1.0, 0.0], [-2.0, 3.0]]), [[1], [0, 1]]),
        _tagged(torch.tensor([[1.0, 2.0, -1.0], [0.0, 0.5, 4.0]]), [[], [2]]),
    ],
    hint="`BCEWithLogitsLoss` wants a float target of the logits' own shape, `(N, C)`: build a "
         "multi-hot tensor from the tag numbers with `scatter` (chapter 2), and keep the `-1` "
         "padding out of it (send it to a spare column that you drop, or mask it). "
         "`cross_entropy` would treat the tags of a photo as one distribution over classes.",
    rules=[rules.no_loops()],
    solution=_multilabel_solution,
    wrong=[("padding counted as tag 0", _padding_as_class_0),
           ("cross_entropy with the multi-hot target", _softmax_cross_entropy)],
)
def multilabel_loss(logits, labels):
    """mean over n, c of -(t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))), t = 1 for the tags."""
    n, c = logits.shape
    target = torch.zeros(n, c)
    for i in range(n):
        for tag in labels[i].tolist():
            if tag >= 0:
                target[i, tag] = 1.0
    total = torch.zeros(())
    for i in range(n):
        for j in range(c):
            x, t = logits[i, j], target[i, j]
            total = total - (t * F.logsigmoid(x) + (1 - t) * F.logsigmoid(-x))
    return total / (n * c)


# ---------------------------------------------------------------- segmentation_loss


def _segmentation_solution(logits, target):
    return F.cross_entropy(logits.permute(0, 3, 1, 2), target)


def _seg_case(n, h, w, c, seed=0):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(n, h, w, c, generator=g) * 3
    target = torch.randint(0, c, (n, h, w), generator=g)
    return logits, target


@st.composite
def _seg_inputs(draw):
    n, h, w = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    c = draw(st.integers(2, 4))
    return _seg_case(n, h, w, c, draw(st.integers(0, 100)))


def _viewed(logits, target):
    n, h, w, c = logits.shape
    return F.cross_entropy(logits.view(n, c, h, w), target)


@exercise(
    "layers.segmentation_loss",
    title="Find the silent bug: the channels-last loss",
    statement="A segmentation model ported from another framework returns `logits` in "
              "channels-last order, `(N, H, W, C)`: a score per class for every pixel. "
              "`target` (`int64`, `(N, H, W)`) holds each pixel's class. Write "
              "`segmentation_loss(logits, target)` that returns the mean cross-entropy over all "
              "pixels, as `F.cross_entropy` computes it for logits in its own layout.",
    inputs=_seg_inputs(),
    edge_cases=[
        _seg_case(1, 1, 1, 2),
        _seg_case(1, 2, 3, 2, seed=1),
        _seg_case(2, 3, 3, 3, seed=2),
    ],
    hint="`cross_entropy` reads the classes from dim 1. `view` and `reshape` to `(N, C, H, W)` "
         "keep the elements in memory order, so each 'class' row mixes pixels and classes "
         "(chapter 3); move the class dim with `permute`, or flatten the pixels into rows of "
         "`C` scores.",
    solution=_segmentation_solution,
    wrong=[("the silent bug: view(N, C, H, W)", _viewed),
           ("softmax first", lambda logits, target: F.cross_entropy(
               logits.softmax(dim=-1).permute(0, 3, 1, 2), target))],
)
def segmentation_loss(logits, target):
    """The mean over all pixels of -log softmax(logits[n, i, j])[target[n, i, j]]."""
    total, count = torch.zeros(()), 0
    n, h, w, _ = logits.shape
    for a in range(n):
        for i in range(h):
            for j in range(w):
                log_p = logits[a, i, j].log_softmax(dim=0)
                total = total - log_p[target[a, i, j]]
                count += 1
    return total / count


# ---------------------------------------------------------------- unregistered


class _Inner(nn.Module):
    """A registered submodule that keeps one tensor as a plain attribute."""

    def __init__(self, n):
        super().__init__()
        self.proj = nn.Linear(n, n)
        self.cache = torch.zeros(n)


_PARTS = {
    "fc": ("fc = nn.Linear(3, 2)", lambda m: nn.Linear(3, 2)),
    "blocks": ("blocks = [nn.Linear(2, 2), nn.Linear(2, 1)]",
               lambda m: [nn.Linear(2, 2), nn.Linear(2, 1)]),
    "held": ("held = nn.ModuleList([nn.Linear(2, 2)])", lambda m: nn.ModuleList([nn.Linear(2, 2)])),
    "scale": ("scale = torch.ones(4)", lambda m: torch.ones(4)),
    "gain": ("gain = nn.Parameter(torch.ones(3))", lambda m: nn.Parameter(torch.ones(3))),
    "inner": ("inner = Inner(2)", lambda m: _Inner(2)),
    "pair": ("pair = (torch.zeros(2, 2), nn.Linear(1, 1))",
             lambda m: (torch.zeros(2, 2), nn.Linear(1, 1))),
    "nested": ("nested = [Inner(3)]", lambda m: [_Inner(3)]),
    "_hidden": ("_hidden = torch.zeros(5)", lambda m: torch.zeros(5)),
}
_BUFFERS = {"mean": ("register_buffer('mean', torch.zeros(3))", dict()),
            "table": ("register_buffer('table', torch.zeros(6), persistent=False)",
                      {"persistent": False})}


class _Model(nn.Module):
    """A model assembled from named parts; its repr is the code that built it."""

    def __init__(self, parts, buffers=(), alias=False):
        super().__init__()
        lines = []
        for name in parts:
            code, make = _PARTS[name]
            setattr(self, name, make(self))
            lines.append("self." + code)
        for name in buffers:
            code, kwargs = _BUFFERS[name]
            self.register_buffer(name, torch.zeros(3 if name == "mean" else 6), **kwargs)
            lines.append("self." + code)
        if alias and "mean" in buffers:
            self.stats = self.mean          # a plain attribute holding a registered buffer
            lines.append("self.stats = self.mean")
        self._code = lines

    def __repr__(self):
        text = "Model: " + "; ".join(self._code)
        if "Inner(" in text:
            text += " (Inner(n) holds self.proj = nn.Linear(n, n), self.cache = torch.zeros(n))"
        return text


@st.composite
def _models(draw):
    parts = draw(st.lists(st.sampled_from(sorted(_PARTS)), max_size=5, unique=True))
    buffers = draw(st.lists(st.sampled_from(sorted(_BUFFERS)), max_size=2, unique=True))
    return (_Model(parts, buffers, alias=draw(st.booleans())),)


def _unregistered_solution(model):
    seen = {id(t) for t in model.parameters()} | {id(t) for t in model.buffers()}
    missed = []

    def visit(module, prefix):
        for attr, value in vars(module).items():
            if attr.startswith("_"):
                continue
            items = list(enumerate(value)) if isinstance(value, (list, tuple)) else [(None, value)]
            for i, item in items:
                name = prefix + attr + ("" if i is None else f".{i}")
                if isinstance(item, torch.Tensor) and id(item) not in seen:
                    missed.append((name, item.numel()))
                elif isinstance(item, nn.Module) and i is not None:
                    held = list(item.named_parameters(prefix=name))
                    held += list(item.named_buffers(prefix=name))
                    missed.extend((n, t.numel()) for n, t in held if id(t) not in seen)
                    visit(item, name + ".")
        for child_name, child in module.named_children():
            visit(child, prefix + child_name + ".")

    visit(model, "")
    return sorted(missed)


def _by_name_only(model):
    """Wrong: compares names, so a registered tensor held under a second name counts as missed."""
    names = {n for n, _ in model.named_parameters()} | {n for n, _ in model.named_buffers()}
    extra = [(n, t.numel()) for n, t in _every_attribute_tensor(model) if n not in names]
    return sorted(set(_unregistered_solution(model)) | set(extra))


def _every_attribute_tensor(module, prefix=""):
    for attr, value in vars(module).items():
        if not attr.startswith("_") and isinstance(value, torch.Tensor):
            yield prefix + attr, value
    for child_name, child in module.named_children():
        yield from _every_attribute_tensor(child, prefix + child_name + ".")


def _plain_tensors_only(model):
    """Wrong: finds tensor attributes but forgets the layers kept in Python lists."""
    seen = {id(t) for t in model.parameters()} | {id(t) for t in model.buffers()}
    return sorted((n, t.numel()) for n, t in _every_attribute_tensor(model) if id(t) not in seen)


@exercise(
    "layers.unregistered",
    title="Find what the optimizer never sees",
    statement="Write `unregistered(model)` that finds every tensor `model` holds which neither "
              "`model.parameters()` nor `model.buffers()` lists, so that no optimizer trains it "
              "and `.to()` leaves it behind. Look at the public attributes (names not starting "
              "with `_`) of the model and of each of its submodules: a tensor held there, or "
              "inside a plain list or tuple there, and every parameter and buffer of a layer "
              "held inside a plain list or tuple (and what that layer holds the same way). A "
              "tensor that `parameters()` or `buffers()` lists under another name is not "
              "missed. Return `(name, number_of_elements)` pairs sorted by name, with dotted "
              "names as `state_dict` writes them: `'scale'`, `'inner.cache'`, "
              "`'blocks.0.weight'`, `'pair.0'`.",
    inputs=_models(),
    edge_cases=[
        (_Model([]),),
        (_Model(["fc", "scale"]),),
        (_Model(["blocks", "held"], ["mean"]),),
        (_Model(["inner", "pair", "_hidden"], ["table"]),),
        (_Model(["fc", "nested"], ["mean"], alias=True),),
    ],
    hint="Collect the registered tensors by identity first: `{id(t) for t in "
         "model.parameters()}`, and the same for `buffers()`. Then walk `vars(module)` for "
         "`module` in `model.named_modules()`: a tensor whose id is not registered is missed; "
         "for a list or tuple, look at each item, and for a layer found there use its "
         "`named_parameters(prefix=...)` and `named_buffers(prefix=...)`.",
    solution=_unregistered_solution,
    wrong=[("plain tensor attributes only", _plain_tensors_only),
           ("compared by name, not identity", _by_name_only)],
    max_examples=30,
)
def unregistered(model):
    """Every (name, numel) the module holds outside parameters() and buffers(), sorted."""
    registered = [id(t) for t in model.parameters()] + [id(t) for t in model.buffers()]
    found = []

    def look(value, name):
        if isinstance(value, torch.Tensor):
            if id(value) not in registered:
                found.append((name, value.numel()))
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                look(item, f"{name}.{i}")
                if isinstance(item, nn.Module):
                    for n, t in list(item.named_parameters()) + list(item.named_buffers()):
                        if id(t) not in registered:
                            found.append((f"{name}.{i}.{n}", t.numel()))
                    walk(item, f"{name}.{i}.")

    def walk(module, prefix):
        for attr in vars(module):
            if not attr.startswith("_"):
                look(vars(module)[attr], prefix + attr)
        for child, sub in module.named_children():
            walk(sub, prefix + child + ".")

    walk(model, "")
    return sorted(found)
