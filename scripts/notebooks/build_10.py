"""Write notebooks/10-saving-and-loading.ipynb (chapter 10: saving and loading) from the cells below.

The notebook is generated so its source stays reviewable as plain Python; outputs are added by
executing it afterwards:

    .venv/bin/python scripts/notebooks/build_10.py
    .venv/bin/jupyter execute --inplace notebooks/10-saving-and-loading.ipynb

Every file the notebook writes goes to one temporary directory, removed in its last section, and
only names relative to it are printed.
"""

import nbbuild

RAISES = "raises-exception"

cells = nbbuild.Cells()
md, code = cells.md, cells.code


md("""
# Saving and loading: what goes into the file

Saving a tensor looks like one line, and it is, but the file holds more than the numbers: the
storage behind the tensor, the Python objects around it, and, with plain pickle, instructions that
run when the file is loaded. This chapter opens the files and looks.

You will be able to:

- save and load tensors, dicts, `state_dict`s and full training checkpoints (model, optimizer,
  epoch), and resume training exactly where it stopped;
- predict the size of a saved view, and shrink it with `clone()`;
- load a checkpoint written on a GPU machine with `map_location`;
- explain why `torch.load` defaults to `weights_only=True`, what it blocks, and how to allow a
  trusted custom type with `add_safe_globals` / `safe_globals`;
- use the `safetensors` format, and handle what it refuses (shared and non-contiguous tensors).
""")

code('''
import dataclasses
import json
import pathlib
import pickle
import tempfile
import zipfile
from unittest import mock

from torch import nn
from safetensors.torch import load_file, load_model, save_file, save_model
from safetensors import safe_open

from tensorlens import measure

# Everything this chapter writes lives here; the last section deletes it.
workdir = tempfile.TemporaryDirectory()
root = pathlib.Path(workdir.name)

def file_size(name):
    """Bytes on disk of a file in the chapter's temporary directory."""
    return (root / name).stat().st_size

def storage_bytes_in(name):
    """Bytes of raw tensor storage inside a torch.save archive.

    Counts its data/ entries.
    """
    with zipfile.ZipFile(root / name) as archive:
        return sum(info.file_size for info in archive.infolist()
                   if info.filename.split("/")[1] == "data")
''')

md("""
## `torch.save` and `torch.load`

The source article's example saves a tensor and a dict holding a model's weights and its
configuration, then loads both, the second "forced to the CPU" with `map_location`. Here it is with
the names it leaves undefined filled in (`model_weights` is a `state_dict`, `model_config` a plain
dict), and with the files put in the temporary directory rather than the working directory:
""")

code('''
tensor = torch.arange(6.).reshape(2, 3)
model = nn.Linear(3, 2)
model_weights = model.state_dict()
model_config = {"in_features": 3, "out_features": 2, "bias": True}

# save a single tensor
torch.save(tensor, root / "tensor.pt")
# save a dict (the common case)
state = {"weights": model_weights, "config": model_config}
torch.save(state, root / "model_state.pt")

# load
loaded = torch.load(root / "tensor.pt")
# storages to the CPU
state = torch.load(root / "model_state.pt", map_location="cpu")

assert torch.equal(loaded, tensor)
assert state["config"] == model_config
assert all(torch.equal(state["weights"][k], v)
           for k, v in model.state_dict().items())
print(sorted(state["weights"]), state["config"])
# the dict needs nothing outside weights_only's allowlist (see below)
assert torch.serialization.get_unsafe_globals_in_checkpoint(
    root / "model_state.pt") == []
''')

md("""
The snippet runs as written on this version of PyTorch, and it is safe, for a reason the article
does not mention: since PyTorch 2.6, `torch.load` defaults to `weights_only=True`, which refuses
to run anything but a small set of known constructors while unpickling (section "weights_only"
below).
Everything in these files (tensors, an `OrderedDict`, strings, ints, bools) is on that list, as
the last line of the cell checks.

What is in a `.pt` file? It is a zip archive: a pickle (`data.pkl`) describing the Python objects,
and one raw file per storage under `data/`.
""")

code('''
with zipfile.ZipFile(root / "tensor.pt") as archive:
    for info in archive.infolist():
        print(f"{info.filename:<36} {info.file_size:>6} bytes")
''')

md("""
`tensor/data/0` is the storage: 6 float32 values, 24 bytes. The pickle refers to it by key and
says how to rebuild the tensor on top of it (shape, strides, offset). That design has a
consequence for views.

## A view is saved with its whole storage

`torch.save` writes storages, not the elements a tensor shows. Save the first ten elements of a
million-element tensor and the whole million comes along:
""")

code('''
big = torch.arange(1_000_000, dtype=torch.float32)
# a view: 10 elements on a 4,000,000-byte storage
first_ten = big[:10]
print("storage behind the view:",
      f"{measure.storage_bytes(first_ten):,}", "bytes")

torch.save(first_ten, root / "view.pt")
# a fresh storage of exactly 10 floats
torch.save(first_ten.clone(), root / "clone.pt")
for name in ["view.pt", "clone.pt"]:
    print(f"{name:<9} {file_size(name):>9,} bytes on disk, "
          f"{storage_bytes_in(name):>9,} of them storage")
assert storage_bytes_in("view.pt") == 4_000_000
assert storage_bytes_in("clone.pt") == 40
''')

md("""
The loaded view is still a view of ten elements into a million-element storage, so the waste
follows the tensor into memory too:
""")

code('''
reloaded = torch.load(root / "view.pt")
print(tuple(reloaded.shape), f"{measure.storage_bytes(reloaded):,}",
      "bytes of storage")
assert torch.equal(reloaded, first_ten)
assert measure.storage_bytes(reloaded) == 4_000_000
''')

md("""
`clone()` is the fix. `contiguous()` is not: a slice from the front of a tensor is already
contiguous, so `contiguous()` returns it unchanged, big storage and all.
""")

code('''
assert first_ten.is_contiguous() and first_ten.contiguous() is first_ten
torch.save(first_ten.contiguous(), root / "contiguous.pt")
print("contiguous.pt", f"{storage_bytes_in('contiguous.pt'):,}",
      "bytes of storage")
assert storage_bytes_in("contiguous.pt") == 4_000_000
''')

md("""
The same rule has a good side: tensors that share a storage are written once and come back
sharing it. A dict with a tensor and a view of it costs one storage on disk, and the loaded pair
is still linked: writing through one changes the other.
""")

code('''
pair = {"full": big, "head": big[:10]}
torch.save(pair, root / "pair.pt")
print("pair.pt", f"{storage_bytes_in('pair.pt'):,}",
      "bytes of storage (one storage, not two)")
assert storage_bytes_in("pair.pt") == 4_000_000

back = torch.load(root / "pair.pt")
assert measure.shares_storage(back["full"], back["head"])
back["head"][0] = -1.0
print("back['full'][0] after writing back['head'][0]:", back["full"][0].item())
assert back["full"][0].item() == -1.0
''')

md("""
## Checkpoints: model, optimizer and epoch

A `state_dict` maps parameter and buffer names to tensors. To resume training you need more than
the model's: optimizers keep state too (momentum buffers for SGD with momentum, two moving averages
per parameter for Adam), and the loop needs to know where it was. The usual checkpoint is a dict of
all three.

The experiment: train for three epochs, save a checkpoint, train two more. Then start from a fresh
model and optimizer, load the checkpoint, train the same two epochs, and compare.
""")

code('''
torch.manual_seed(0)
inputs, targets = torch.randn(64, 3), torch.randn(64, 1)

def make_model_and_optimizer(seed):
    # a different seed gives different starting weights
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
    return model, torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

def train_epoch(model, optimizer):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss.item()

model, optimizer = make_model_and_optimizer(seed=1)
for epoch in range(3):
    train_epoch(model, optimizer)
torch.save({"epoch": 3, "model": model.state_dict(),
            "optimizer": optimizer.state_dict()},
           root / "checkpoint.pt")
for epoch in range(3, 5):
    train_epoch(model, optimizer)
uninterrupted = {k: v.clone() for k, v in model.state_dict().items()}
print("optimizer state per parameter:",
      sorted(optimizer.state_dict()["state"][0]))
''')

code('''
# a "new process"
resumed_model, resumed_optimizer = make_model_and_optimizer(seed=2)
# weights_only=True is enough
checkpoint = torch.load(root / "checkpoint.pt")
resumed_model.load_state_dict(checkpoint["model"])
resumed_optimizer.load_state_dict(checkpoint["optimizer"])
for epoch in range(checkpoint["epoch"], 5):
    train_epoch(resumed_model, resumed_optimizer)

same = all(torch.equal(resumed_model.state_dict()[k], v)
           for k, v in uninterrupted.items())
print("resumed run identical to the uninterrupted run:", same)
assert same
''')

md("""
Bit for bit the same. Leave the optimizer out of the checkpoint and the momentum restarts from
zero, so the two runs part ways:
""")

code('''
weights_only_model, fresh_optimizer = make_model_and_optimizer(seed=2)
weights_only_model.load_state_dict(checkpoint["model"])
for epoch in range(checkpoint["epoch"], 5):
    train_epoch(weights_only_model, fresh_optimizer)

identical = all(torch.equal(weights_only_model.state_dict()[k], v)
                for k, v in uninterrupted.items())
print("identical without the optimizer state:", identical)
assert not identical
''')

md("""
A trap on the way: `state_dict()` does not copy. Its tensors share storage with the live
parameters, so a `state_dict` kept in memory as a "snapshot" keeps changing while training goes on.
`torch.save` (or `copy.deepcopy`) takes the actual snapshot.
""")

code('''
snapshot = model.state_dict()
before = snapshot["0.weight"].clone()
train_epoch(model, optimizer)
print("the 'snapshot' changed with training:",
      not torch.equal(snapshot["0.weight"], before))
assert measure.shares_storage(snapshot["0.weight"], model[0].weight)
''')

md("""
## `map_location`: checkpoints from another device

Every storage in the pickle carries a location string: `'cpu'`, `'cuda:0'`, `'mps'`. By default
`torch.load` puts each storage back where the string says. The article recalls loading a
GPU-saved model on a CPU machine and crashing the Jupyter kernel. What current PyTorch does is
raise a clear error, and `map_location` is the fix.

This machine may have no GPU, so the next cell writes a checkpoint whose storages are labelled
`cuda:0`, exactly as a GPU machine labels them, by swapping the function `torch.save` asks for the
label. The rest of the file is what any `torch.save` writes.
""")

code('''
with mock.patch("torch.serialization.location_tag", lambda storage: "cuda:0"):
    torch.save({"weight": torch.ones(2, 2)}, root / "from_gpu.pt")

with zipfile.ZipFile(root / "from_gpu.pt") as archive:
    print(b"cuda:0" in archive.read("from_gpu/data.pkl"))
''')

code('''
torch.load(root / "from_gpu.pt")
''', RAISES)

md("""
On a machine without CUDA the plain load is refused with that message; on a machine with a GPU it
would succeed and put the tensor on the GPU. `map_location` rewrites the locations while loading.
It takes a device, a string, a dict from saved location to new location, or a function:
""")

code('''
for where in ["cpu", torch.device("cpu"), {"cuda:0": "cpu"},
              lambda storage, location: storage]:
    weight = torch.load(root / "from_gpu.pt", map_location=where)["weight"]
    print(f"{type(where).__name__:<9} -> {weight.device}")
    assert weight.device.type == "cpu"
    assert torch.equal(weight, torch.ones(2, 2))
''')

md("""
For modules, `model.load_state_dict(torch.load(path, map_location="cpu"))` loads the tensors to
the CPU first, then copies them into the model's parameters wherever those live.
[Chapter 8](08-devices-and-precision.ipynb) covers devices in general.

## `weights_only`: a pickle can run code

`torch.save` uses Python's `pickle`, and a pickle is a small program: to rebuild an object it may
call any importable function with any arguments. An object chooses that function through its
`__reduce__` method. The class below is harmless, but it shows the mechanism: its pickle, when
loaded, writes a file.
""")

code('''
marker = root / "written-by-the-pickle.txt"

class Payload:
    """Loading a pickle of this calls Path.write_text.

    A stand-in for any code at all.
    """
    def __reduce__(self):
        message = "this file was written by loading a checkpoint"
        return (pathlib.Path.write_text, (marker, message))

torch.save({"weights": torch.ones(3), "extra": Payload()},
           root / "untrusted.pt")
print("marker exists after saving:", marker.exists())
unsafe = torch.serialization.get_unsafe_globals_in_checkpoint(
    root / "untrusted.pt")
print("globals the file needs:", sorted(unsafe))
''')

md("""
`get_unsafe_globals_in_checkpoint` lists, without loading anything, the functions and classes the
pickle would call that are not on `weights_only`'s allowlist. The pickle itself can be read without
running it, with the standard library's `pickletools`: its `GLOBAL` instructions name every
function or class it imports, the tensor's own rebuild functions included.
""")

code('''
import pickletools

with zipfile.ZipFile(root / "untrusted.pt") as archive:
    program = archive.read("untrusted/data.pkl")
for opcode, argument, position in pickletools.genops(program):
    if opcode.name == "GLOBAL":
        print(argument)
''')

md("""
`torch._utils _rebuild_tensor_v2`, `torch FloatStorage` and `collections OrderedDict` rebuild the
tensor; `__builtin__ getattr`,
`pathlib Path` and `pathlib PosixPath` are the payload: with the pickle protocol `torch.save`
uses, `Path.write_text` is reached as `getattr(Path, "write_text")`. With the default
`weights_only=True`, `torch.load` refuses the file at the first global that is not allowed:
""")

code('''
torch.load(root / "untrusted.pt")
''', RAISES)

code('''
assert not marker.exists()
print("marker exists after the refused load:", marker.exists())
''')

md("""
The error names the global it refused and the two ways out. The first, `weights_only=False`, is
what loading a pickle did by default before PyTorch 2.6, and it runs the code:
""")

code('''
# only for files you trust
obj = torch.load(root / "untrusted.pt", weights_only=False)
print("marker exists after weights_only=False:", marker.exists())
print("it says:", marker.read_text())
assert marker.exists()
''')

md("""
A real attacker's `__reduce__` would call `os.system` or download something instead. Hence the
rule: **never load a pickle-based checkpoint from an untrusted source with `weights_only=False`**,
and keep the default for everything else.

## Trusted custom types: `safe_globals` and `add_safe_globals`

The allowlist also stops your own harmless classes. A checkpoint holding a dataclass for the
training configuration:
""")

code('''
@dataclasses.dataclass
class TrainConfig:
    lr: float
    epochs: int

torch.save({"config": TrainConfig(lr=0.05, epochs=5),
            "model": model.state_dict()},
           root / "with_config.pt")
print(torch.serialization.get_unsafe_globals_in_checkpoint(
    root / "with_config.pt"))
''')

code('''
torch.load(root / "with_config.pt")
''', RAISES)

md("""
If you trust the class, allow it. The context manager `torch.serialization.safe_globals` allows it
for one block; `torch.serialization.add_safe_globals` allows it for the rest of the process. Only
the listed class is allowed: every other global is still refused, as the last lines show with the
malicious file from above.
""")

code('''
with torch.serialization.safe_globals([TrainConfig]):
    restored = torch.load(root / "with_config.pt")
print(restored["config"])
assert restored["config"] == TrainConfig(lr=0.05, epochs=5)

# from now on, for this process
torch.serialization.add_safe_globals([TrainConfig])
assert torch.load(root / "with_config.pt")["config"].epochs == 5
# undo, to keep the chapter tidy
torch.serialization.clear_safe_globals()

# allowing one class allows no other
with torch.serialization.safe_globals([TrainConfig]):
    try:
        torch.load(root / "untrusted.pt")
        refused = False
    except pickle.UnpicklingError:
        refused = True
print("untrusted.pt still refused with TrainConfig allowed:", refused)
assert refused
''')

md("""
Often the simplest fix is to avoid custom types in checkpoints: store
`dataclasses.asdict(config)`, a plain dict, and rebuild the dataclass after loading.

## `safetensors`: a format that cannot run code

`safetensors` (a separate package, `pip install safetensors`) stores only tensors: an 8-byte
header length, a JSON header (names, dtypes, shapes, byte offsets, optional string metadata), then
the raw bytes. Loading it parses JSON and copies bytes; there is nothing to execute, which makes it
the usual choice for sharing weights.
""")

code('''
weights = {"weight": torch.arange(6.).reshape(2, 3), "bias": torch.zeros(2)}
save_file(weights, root / "weights.safetensors", metadata={"epoch": "3"})
back = load_file(root / "weights.safetensors")
assert all(torch.equal(back[k], v) for k, v in weights.items())

raw = (root / "weights.safetensors").read_bytes()
header_length = int.from_bytes(raw[:8], "little")
header = json.loads(raw[8:8 + header_length])
for name, entry in sorted(header.items()):
    print(f"{name:<13}", json.dumps(entry, sort_keys=True))
data_length = len(raw) - 8 - header_length
print(f"file size: {len(raw)} = 8 + {header_length} (header)"
      f" + {data_length} (data) bytes")
assert data_length == (6 + 2) * 4
''')

md("""
The data part is exactly 6 + 2 floats, 32 bytes. Unlike `torch.save`, safetensors writes the
elements a tensor shows, not its storage, so the million-element view from earlier costs 40 bytes
of data here:
""")

code('''
save_file({"first_ten": first_ten}, root / "view.safetensors")
raw = (root / "view.safetensors").read_bytes()
data_length = len(raw) - 8 - int.from_bytes(raw[:8], "little")
print(f"view.safetensors: {len(raw)} bytes, {data_length} of them data")
assert data_length == 10 * 4
''')

md("""
Files can be opened lazily: `safe_open` reads the header, and `get_slice` reads just the bytes of
the rows you ask for.
""")

code('''
with safe_open(root / "weights.safetensors", framework="pt") as f:
    print(sorted(f.keys()), f.metadata())
    print(f.get_slice("weight")[1:])
''')

md("""
### What safetensors refuses

Because it writes plain bytes per name, safetensors has no notion of two names sharing memory,
and no notion of strides. It refuses both, with messages that say what to do. First, tensors
that share storage, the normal situation for a model with *tied* weights (here a decoder that reuses
the embedding matrix):
""")

code('''
class TiedModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.decode = nn.Linear(4, 10, bias=False)
        self.decode.weight = self.embed.weight  # one parameter, two names

torch.manual_seed(0)
tied = TiedModel()
tied_state = tied.state_dict()
assert measure.shares_storage(tied_state["embed.weight"],
                              tied_state["decode.weight"])
''')

code('''
save_file(tied.state_dict(), root / "tied.safetensors")
''', RAISES)

md("""
The fix it suggests, `save_model`, writes the shared tensor once under one name and `load_model`
restores it into a model built the same way, so the tie survives:
""")

code('''
save_model(tied, root / "tied.safetensors")
with safe_open(root / "tied.safetensors", framework="pt") as f:
    print("names in the file:", sorted(f.keys()))

torch.manual_seed(1)
tied_again = TiedModel()
load_model(tied_again, root / "tied.safetensors")
assert torch.equal(tied_again.embed.weight, tied.embed.weight)
assert tied_again.decode.weight is tied_again.embed.weight
''')

md("""
Second, non-contiguous tensors, such as a transpose:
""")

code('''
save_file({"weight_t": weights["weight"].t()}, root / "transposed.safetensors")
''', RAISES)

code('''
save_file({"weight_t": weights["weight"].t().contiguous()},
          root / "transposed.safetensors")
assert torch.equal(load_file(root / "transposed.safetensors")["weight_t"],
                   weights["weight"].t())
''')

md("""
And only tensors go in: a configuration belongs in the string-to-string `metadata`, for example as
JSON text.

## The article's snippets, checked

| snippet (source article) | verdict on PyTorch 2.13 |
| --- | --- |
| `torch.save(tensor, 'tensor.pt')` | works; writes a zip of a pickle plus the tensor's **whole** storage |
| `torch.save({'weights': ..., 'config': ...}, 'model_state.pt')` | works |
| `torch.load('tensor.pt')` | works and is safe: `weights_only=True` is the default since 2.6 |
| `torch.load(..., map_location='cpu')` | works; the fix for GPU checkpoints on CPU machines |
| "loading a GPU model on a CPU machine crashed the kernel" | not what happens now: a `RuntimeError` that names the fix |

All the files of this chapter go away with the temporary directory:
""")

code('''
print(sorted(p.name for p in root.iterdir()))
workdir.cleanup()
assert not root.exists()
''')

md("""
## Check yourself

### Predict the result
""")

code('''
tl.Quiz([
    {"question": "`big = torch.zeros(1_000_000)` (float32). About how large is the file written "
                 "by `torch.save(big[:10], path)`?",
     "choices": ["about 1 KB", "about 40 KB", "about 4 MB"], "answer": 2,
     "explain": "`torch.save` writes the whole storage behind the view: a million floats, 4 MB."},
    {"question": "And `torch.save(big[:10].contiguous(), path)`?",
     "choices": ["about 1 KB", "about 4 MB"], "answer": 1,
     "explain": "The slice is already contiguous, so `contiguous()` returns it unchanged, storage "
                "included. `clone()` is what makes a fresh 40-byte storage."},
    {"question": "`x = torch.arange(4.)`; `torch.save({'a': x, 'b': x[1:]}, path)`; "
                 "`d = torch.load(path)`. Do `d['a']` and `d['b']` share storage?",
     "choices": ["yes", "no"], "answer": 0,
     "explain": "torch.save writes each storage once and records which tensors use it; loading "
                "rebuilds the views on one storage."},
    {"question": "In PyTorch 2.13, what does `weights_only` default to in `torch.load`?",
     "answer": "True", "accept": ["weights_only=True"],
     "explain": "Since 2.6 the default is `True`: only tensors, containers and a short allowlist "
                "of types can be unpickled."},
    {"question": "Which of these does `safetensors.torch.save_file` refuse?",
     "choices": ["a contiguous float16 tensor", "a transposed (non-contiguous) tensor",
                 "a 0-d tensor"], "answer": 1,
     "explain": "safetensors stores plain row-major bytes, so non-contiguous tensors must be "
                "made contiguous first; tensors sharing memory are refused too."},
], title="Saving and loading: predict the result")
''')

md("""
### Exercises

**1. Save the view, not the whole storage.** Write `compact_for_saving(t)` that returns a tensor
equal to `t` whose storage holds no more bytes than its elements need, so `torch.save` writes no
extra bytes. Copy only when that is needed: if `t`'s storage is already no bigger, return `t`.
""")

code('''
def compact_for_saving(t):
    """t itself if its storage holds no more than t's bytes.

    Otherwise a fresh compact copy.
    """
    if t.untyped_storage().nbytes() <= t.numel() * t.element_size():
        return t
    return t.clone()
''', "solution", "hide-input")

code('tl.check("saving.compact_for_saving", compact_for_saving)')

md("""
**2. Read a safetensors header by hand.** `data` holds the bytes of a `.safetensors` file. Write
`safetensors_header(data)` that returns the list of `(name, dtype, shape)` of its tensors, sorted by
name, with each shape a tuple, e.g. `[('bias', 'F32', (3,)), ('weight', 'F32', (3, 2))]`.
Skip the `__metadata__` entry; use no loading library, only `int.from_bytes` and `json`.
""")

code('''
def safetensors_header(data):
    """(name, dtype, shape) of every tensor in a safetensors file's header.

    Sorted by name.
    """
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    return sorted((name, info["dtype"], tuple(info["shape"]))
                  for name, info in header.items() if name != "__metadata__")
''', "solution", "hide-input")

code('tl.check("saving.safetensors_header", safetensors_header)')

md("""
## Summary

- `torch.save` writes a zip: a pickle of the objects plus each storage once. Views bring their
  whole storage along (`clone()` before saving a small piece of a big tensor); tensors that share
  storage stay shared after loading.
- A checkpoint for resuming is `{"epoch", "model": state_dict, "optimizer": state_dict}`; with the
  optimizer state, a resumed run matches an uninterrupted one exactly. `state_dict()` itself is
  not a snapshot.
- `map_location="cpu"` loads GPU checkpoints on machines without a GPU.
- `torch.load` defaults to `weights_only=True`: a pickle can run arbitrary code, and the allowlist
  blocks it. Allow trusted classes with `safe_globals` / `add_safe_globals`; use
  `weights_only=False` only for files you trust completely.
- `safetensors` stores tensors only (a JSON header and bytes), so loading cannot run code. It saves
  exactly the elements, refuses shared and non-contiguous tensors, and `save_model` /
  `load_model` handle tied weights.
""")


if __name__ == "__main__":
    print(nbbuild.write("10-saving-and-loading.ipynb", cells))
