"""Exercises for chapter 10, saving and loading.

- ``saving.compact_for_saving``: ``torch.save`` writes a tensor's whole storage, so a small view of
  a big tensor makes a big file. The rule below judges what would be written: the result may hold
  no more storage bytes than its elements need, and it may copy only when the input holds more.
- ``saving.strip_module_prefix`` (the silent bug): names saved from ``DataParallel``/DDP start
  with ``module.``; ``k.lstrip("module.")`` strips characters, not a prefix, and with
  ``strict=False`` the damage loads silently. Rename the keys correctly, for wrappers that stack
  (``module.`` and ``torch.compile``'s ``_orig_mod.``, in any order and number), which one call
  of ``consume_prefix_in_state_dict_if_present`` does not do.
- ``saving.snapshot``: a checkpoint round trip in memory: copies that share no memory with the
  inputs, yet share it among themselves exactly where the inputs did (as ``torch.load`` does).
  The inputs include a parameter and slices of it, which ``copy.deepcopy`` refuses (they are
  not graph leaves) until they are detached.
- ``saving.safetensors_tensor``: a ``.safetensors`` file is an 8-byte length, a JSON header and raw
  bytes; reading one tensor by hand (offsets from the data's start, the bytes reinterpreted with
  ``view(dtype)`` from chapter 3) shows why loading one cannot run code.

Needs the ``safetensors`` package (the inputs of the last exercise are real files' bytes).
"""

import copy
import io
import json
from collections import OrderedDict

import torch
from safetensors.torch import save as safetensors_save
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

from . import rules
from ._core import exercise
from ._messages import say
from .strategies import make_tensor, st, tensors

# ---------------------------------------------------------------- compact_for_saving


def _needed_bytes(t):
    return t.numel() * t.element_size()


def _is_compact(t):
    """True when the storage behind t holds no more bytes than t's elements need."""
    return t.untyped_storage().nbytes() <= _needed_bytes(t)


def _check_compact(call):
    (t,), result = call.args, call.result
    if not isinstance(result, torch.Tensor):
        return None  # the value comparison has already said what is wrong
    held = result.untyped_storage().nbytes()
    if held > _needed_bytes(result):
        return say("storage_too_big", held=held, needed=_needed_bytes(result))
    copied = result.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()
    if _is_compact(t) and held > 0 and copied:
        return say("needless_copy", n=t.untyped_storage().nbytes())
    return None


_COMPACT = rules.Rule(
    "the result holds no more storage than its elements need, and is a copy only when the input "
    "holds more",
    check_call=_check_compact,
    wrong_variants=lambda solution, arg_names: [("always a copy", lambda t: t.clone()),
                                                ("never a copy", lambda t: t)],
)


def _compact_solution(t):
    return t if t.untyped_storage().nbytes() <= t.numel() * t.element_size() else t.clone()


@st.composite
def _tensors_and_slices(draw):
    t = draw(tensors(dtypes=(torch.float32, torch.int64), max_dims=3))
    if t.dim() == 0 or t.shape[0] == 0 or not draw(st.booleans()):
        return (t,)
    start = draw(st.integers(0, t.shape[0] - 1))
    stop = draw(st.integers(start, t.shape[0]))
    return (t[start:stop],)  # a view of part of t's storage


@exercise(
    "saving.compact_for_saving",
    title="Save the view, not the whole storage",
    statement="Write `compact_for_saving(t)` that returns a tensor equal to `t` which "
              "`torch.save` can write without extra bytes: the storage behind the result may "
              "hold at most `t.numel() * t.element_size()` bytes. Copy only when that is needed: "
              "if `t`'s own storage is already no bigger, return `t` itself.",
    inputs=_tensors_and_slices(),
    edge_cases=[
        torch.arange(10.)[:3],
        torch.arange(10)[2:5],
        torch.arange(6.).reshape(2, 3),
        torch.arange(6.).reshape(2, 3).t(),
        torch.tensor([1., 2.]).expand(3, 2),
        torch.zeros(0),
        make_tensor([1, 2, 3], (3,), torch.float32, "sliced"),
    ],
    hint="Compare `t.untyped_storage().nbytes()` with `t.numel() * t.element_size()`; `clone()` "
         "gives a fresh storage of exactly the elements. `contiguous()` is not enough: a "
         "contiguous slice of a big tensor is returned as it is, big storage included.",
    rules=[_COMPACT],
    solution=_compact_solution,
    wrong=[("contiguous() instead of clone()", lambda t: t.contiguous())],
    show_storage=True,
)
def compact_for_saving(t):
    """t itself if its storage holds only t's bytes, else a fresh copy (the specification)."""
    storage_bytes = t.untyped_storage().nbytes()
    element_bytes = t.numel() * t.element_size()
    if storage_bytes <= element_bytes:
        return t
    return t.clone()


# ---------------------------------------------------------------- strip_module_prefix

_WRAPPERS = ("module.", "_orig_mod.")  # DataParallel / DDP, torch.compile
# no name starts with a submodule called "module" or "_orig_mod": the statement promises none
_KEY_NAMES = ("layer1.0.weight", "embed.weight", "fc.bias", "modules.0.weight", "out.weight",
              "submodule.linear.weight", "decoder.module.weight", "bn.running_mean",
              "decoder._orig_mod.weight")


def _strip_solution(items):
    renamed = []
    for name, value in items:
        while name.startswith(_WRAPPERS):
            name = name.split(".", 1)[1]
        renamed.append((name, value))
    return renamed


def _pairs(names):
    return [(name, torch.full((2,), float(i))) for i, name in enumerate(names)]


@st.composite
def _state_items(draw):
    names = draw(st.lists(st.sampled_from(_KEY_NAMES), max_size=5, unique=True))
    stack = draw(st.lists(st.sampled_from(_WRAPPERS), max_size=2))  # the wrappers, outside in
    mixed = draw(st.booleans())  # some names without the prefixes, as a hand-edited dict has
    return (_pairs(["".join(stack) + n if not mixed or draw(st.booleans()) else n
                    for n in names]),)


def _renamed(rename):
    return lambda items: [(rename(name), value) for name, value in items]


def _only_module(name):
    while name.startswith("module."):
        name = name.removeprefix("module.")
    return name


def _one_each(name):
    return name.removeprefix("module.").removeprefix("_orig_mod.")


def _consume_each(items):
    """torch's own function, once per prefix: it moves every renamed key to the end of the dict,
    and strips ``module.`` only where it comes first."""
    state = OrderedDict(items)
    for prefix in _WRAPPERS:
        consume_prefix_in_state_dict_if_present(state, prefix)
    return list(state.items())


@exercise(
    "saving.strip_module_prefix",
    title="Find the silent bug: the wrapper's prefix",
    statement="`items` is `list(state.items())` for a state dict `state` saved from a wrapped "
              "model: a list of `(name, tensor)` pairs whose names may start with the wrappers' "
              "prefixes, `module.` (`DataParallel`, `DDP`) and `_orig_mod.` (`torch.compile`). "
              "Wrappers stack, in either order: `DDP(torch.compile(model))` saves "
              "`'module._orig_mod.fc.weight'`. Write `strip_module_prefix(items)` that returns "
              "the pairs in the same order with the same tensors, each name with all the "
              "wrappers' prefixes at its start removed and every other character kept: "
              "`'module._orig_mod.fc.weight'` and `'_orig_mod.module.fc.weight'` become "
              "`'fc.weight'`, `'submodule.linear.weight'` and `'decoder.module.weight'` stay as "
              "they are. The model has no submodule named `module` or `_orig_mod`.",
    inputs=_state_items(),
    edge_cases=[
        ([],),
        (_pairs(["module.layer1.0.weight", "module.embed.weight"]),),
        (_pairs(["module.modules.0.weight", "submodule.linear.weight"]),),
        (_pairs(["module._orig_mod.fc.bias", "_orig_mod.module.out.weight"]),),
        (_pairs(["_orig_mod.decoder.module.weight", "module.embed.weight"]),),
        (_pairs(["fc.bias", "module._orig_mod.out.weight"]),),
    ],
    hint="`str.lstrip('module.')` removes any of the characters m, o, d, u, l, e and `.` from "
         "the left, not the word; `str.replace` removes `module.` everywhere. Test "
         "`name.startswith(...)` and slice, or use `str.removeprefix`, and repeat while the "
         "name still starts with a wrapper's prefix.",
    solution=_strip_solution,
    wrong=[("the silent bug: lstrip", _renamed(lambda name: name.lstrip("module."))),
           ("replace everywhere", _renamed(
               lambda name: name.replace("module.", "").replace("_orig_mod.", ""))),
           ("only module.", _renamed(_only_module)),
           ("each prefix once, in one order", _renamed(_one_each)),
           ("consume_prefix_in_state_dict_if_present per prefix", _consume_each)],
)
def strip_module_prefix(items):
    """The pairs with every leading wrapper prefix removed from each name (the specification)."""
    renamed = []
    for name, value in items:
        found = True
        while found:
            found = False
            for prefix in ("module.", "_orig_mod."):
                if name.startswith(prefix):
                    name = name[len(prefix):]
                    found = True
        renamed.append((name, value))
    return renamed


# ---------------------------------------------------------------- snapshot


def _groups(tensors):
    """For each tensor, the index of the first tensor on the same storage (by data pointer)."""
    firsts = {}
    return [firsts.setdefault(t.untyped_storage().data_ptr(), i) for i, t in enumerate(tensors)]


def _check_snapshot(call):
    (inputs,), result = call.args, call.result
    if not isinstance(result, list) or len(result) != len(inputs) or \
            not all(isinstance(t, torch.Tensor) for t in result):
        return None  # the value comparison has already said what is wrong
    inside = {t.untyped_storage().data_ptr() for t in inputs}
    for i, t in enumerate(result):
        if t.untyped_storage().data_ptr() in inside:
            return say("snapshot_shares", i=i)
    if _groups(result) != _groups(inputs):
        return say("snapshot_links", inputs=_groups(inputs), result=_groups(result))
    return None


_SNAPSHOT = rules.Rule(
    "the result shares no memory with the inputs, and its items share memory with each other "
    "exactly where the inputs' items do",
    check_call=_check_snapshot,
    wrong_variants=lambda solution, arg_names: [("the inputs themselves", lambda ts: ts),
                                                ("a clone each", lambda ts: [t.clone() for t in ts])],
)


def _snapshot_solution(tensors):
    return copy.deepcopy([t.detach() for t in tensors])


def _parameter_and_slices():
    """A parameter, a slice of it kept for logging, and a tied use of it: the slice is not a
    graph leaf, so ``copy.deepcopy`` refuses the list."""
    weight = torch.nn.Parameter(torch.arange(6.))
    return ([weight, weight[:2], weight],)


@st.composite
def _related_tensors(draw):
    base = draw(tensors(dtypes=(torch.float32, torch.int64), max_dims=2))
    if base.numel() == 0:
        base = torch.arange(4.)
    flat = base.reshape(-1)
    items = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(("base", "slice", "other")))
        if kind == "base":
            items.append(base)
        elif kind == "slice":
            start = draw(st.integers(0, flat.numel() - 1))
            items.append(flat[start:])
        else:
            items.append(flat.clone())
    return (items,)


@exercise(
    "saving.snapshot",
    title="Snapshot tensors, links between views kept",
    statement="Write `snapshot(tensors)`: `tensors` is a list of tensors, some of them views of "
              "others; some are parameters, or slices of a parameter. Return a list of tensors "
              "equal to them that shares no memory with the "
              "inputs (training can go on without changing it), while two items of the result "
              "share memory exactly when the two inputs at the same positions do, as after "
              "`torch.save` followed by `torch.load`.",
    inputs=_related_tensors(),
    edge_cases=[
        ([],),
        ([torch.arange(4.)],),
        ([torch.arange(6.), torch.arange(6.)[2:]],),
        ([torch.arange(6.).reshape(2, 3), torch.ones(2)],),
        _parameter_and_slices(),
    ],
    hint="`[t.clone() for t in tensors]` gives every item its own storage, so views lose their "
         "link. `torch.save` to an `io.BytesIO` and `torch.load` from it keeps the links; so "
         "does `copy.deepcopy`, which copies each storage once, but it refuses a tensor that "
         "autograd recorded (a slice of a parameter): `detach()` each tensor first.",
    rules=[_SNAPSHOT],
    solution=_snapshot_solution,
    wrong=[("copy.deepcopy without detach()", copy.deepcopy)],
)
def snapshot(tensors):
    """An in-memory checkpoint round trip (the specification)."""
    buffer = io.BytesIO()
    torch.save(tensors, buffer)
    buffer.seek(0)
    return torch.load(buffer)


# ---------------------------------------------------------------- safetensors_tensor

# the dtype codes of the files the checker writes (safetensors has more: F64, I32, BF16, ...)
DTYPE_CODES = {"F32": torch.float32, "F16": torch.float16, "I64": torch.int64,
               "U8": torch.uint8, "BOOL": torch.bool}


def _tensor_solution(data, name):
    n = int.from_bytes(data[:8], "little")
    info = json.loads(data[8:8 + n])[name]
    start, stop = info["data_offsets"]
    raw = torch.tensor(list(data[8 + n + start:8 + n + stop]), dtype=torch.uint8)
    return raw.view(DTYPE_CODES[info["dtype"]]).reshape(info["shape"])


_NAMES = ("weight", "bias", "embed.weight", "head.bias", "running_mean")
_DTYPES = tuple(DTYPE_CODES.values())


@st.composite
def _safetensors_files(draw):
    names = draw(st.lists(st.sampled_from(_NAMES), min_size=1, max_size=3, unique=True))
    tensors_by_name = {name: draw(tensors(dtypes=_DTYPES, max_dims=3)).contiguous() for name in names}
    metadata = draw(st.sampled_from((None, {"format": "pt"}, {"epoch": "3", "note": "demo"})))
    return (safetensors_save(tensors_by_name, metadata=metadata), draw(st.sampled_from(names)))


def _file(tensors_by_name, metadata=None):
    return safetensors_save(tensors_by_name, metadata=metadata)


_TWO = {"weight": torch.arange(6.).reshape(3, 2), "bias": torch.tensor([0.5, -1.0, 2.0])}


def _flat(data, name):
    return _tensor_solution(data, name).reshape(-1)


def _offsets_from_file_start(data, name):
    n = int.from_bytes(data[:8], "little")
    info = json.loads(data[8:8 + n])[name]
    start, stop = info["data_offsets"]
    raw = torch.tensor(list(data[start:stop]), dtype=torch.uint8)
    return raw.view(DTYPE_CODES[info["dtype"]]).reshape(info["shape"])


def _always_float32(data, name):
    n = int.from_bytes(data[:8], "little")
    info = json.loads(data[8:8 + n])[name]
    start, stop = info["data_offsets"]
    raw = torch.tensor(list(data[8 + n + start:8 + n + stop]), dtype=torch.uint8)
    return raw.view(torch.float32).reshape(info["shape"])


@exercise(
    "saving.safetensors_tensor",
    title="Read one tensor from a safetensors file",
    statement="`data` holds the bytes of a `.safetensors` file: 8 bytes giving the header's "
              "length `n` (little-endian), `n` bytes of JSON, then the data. The JSON maps each "
              "tensor's name to its `dtype` (a code such as `'F32'`), `shape` and `data_offsets` "
              "`[begin, end]`, counted in bytes from the start of the data, and may hold a "
              "`__metadata__` entry. Write `safetensors_tensor(data, name)` that returns the "
              "tensor stored under `name`, with its dtype, shape and values, without any loading "
              "library. The codes used are `F32`, `F16`, `I64`, `U8` and `BOOL` "
              "(`tensorlens.exercises.saving.DTYPE_CODES` maps them to torch dtypes); a tensor "
              "may be 0-d or empty.",
    inputs=_safetensors_files(),
    edge_cases=[
        (_file(_TWO), "weight"),
        (_file(_TWO, metadata={"format": "pt"}), "bias"),
        (_file({"step": torch.tensor(7), "flags": torch.tensor([True, False, True])}), "step"),
        (_file({"step": torch.tensor(7), "flags": torch.tensor([True, False, True])}), "flags"),
        (_file({"none": torch.zeros(0, 3), "half": torch.tensor([1.5, -2.0], dtype=torch.float16)}),
         "none"),
        (_file({"none": torch.zeros(0, 3), "half": torch.tensor([1.5, -2.0], dtype=torch.float16)}),
         "half"),
    ],
    hint="The data starts at byte `8 + n`, and each tensor's `data_offsets` count from there. "
         "Make a `uint8` tensor of its bytes, reinterpret them with `view(dtype)` (chapter 3: "
         "the same bytes read as another type), then `reshape` to the shape. "
         "`torch.frombuffer` refuses an empty buffer: `torch.tensor(list(chunk), "
         "dtype=torch.uint8)` does not.",
    rules=[rules.banned("safetensors", "safe_open", "load_file", "deserialize",
                        reason="read the bytes yourself")],
    solution=_tensor_solution,
    wrong=[("the shape ignored", _flat),
           ("offsets counted from the start of the file", _offsets_from_file_start),
           ("the dtype code ignored: always float32", _always_float32)],
)
def safetensors_tensor(data, name):
    """The tensor stored under ``name`` in the safetensors bytes ``data`` (the specification)."""
    header_length = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + header_length])
    info = header[name]
    begin, end = info["data_offsets"]
    first = 8 + header_length
    chunk = data[first + begin:first + end]
    as_bytes = torch.tensor(list(chunk), dtype=torch.uint8)
    return as_bytes.view(DTYPE_CODES[info["dtype"]]).reshape(tuple(info["shape"]))
