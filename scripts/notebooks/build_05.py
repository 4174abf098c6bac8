"""Write notebooks/05-expand-and-repeat.ipynb (cell sources and tags only; execute it afterwards).

Run from the repository root:

    .venv/bin/python scripts/notebooks/build_05.py
    cd notebooks && ../.venv/bin/jupyter execute --inplace 05-expand-and-repeat.ipynb

The chapter mirrors sections 1-4 and 6 of seeds/000 and sections 2 and 5 of seeds/002: every
snippet of theirs about expand / expand_as / repeat is run as written (punctuation restored) and
judged by torch.
"""

import nbbuild

cells = nbbuild.Cells()
md, code = cells.md, cells.code


md(r"""
# `expand`, `expand_as` and `repeat`

A tensor can *look* much bigger than the memory behind it. `expand` makes a view in which many
elements read the same storage cell: the trick is a stride of 0. `repeat` and its relatives make
a real copy. This chapter shows exactly when each one applies, what it costs, and what goes wrong
when you write into, or take gradients through, a tensor that repeats itself for free.

You will be able to:

- read a stride of 0 and predict the shape, strides and storage of any `expand` / `expand_as`;
- state the precise rule for which sizes `expand` accepts, and check claims about it against torch;
- choose between `expand`, `broadcast_to`, `repeat`, `tile` and `repeat_interleave` by measured
  memory and time;
- tell which in-place operations on an expanded tensor raise and which silently write to the source;
- explain why a hand-rolled `as_strided` "smart expand" is dangerous;
- predict the gradient that flows back through `expand` (a sum over the expanded dimensions).
""")

code('''
import itertools
import textwrap
import warnings

import matplotlib.pyplot as plt
from tensorlens.measure import (cost_sweep, plot_sweep, shares_storage,
                                storage_bytes, time_call)
''')

# ---------------------------------------------------------------------------------------------
md(r"""
## Stride 0: many elements, one storage cell

The first source article opens with a column of three weights stretched to four columns. Here is
its code as written:
""")

code('''
weights = torch.tensor([[0.1], [0.2], [0.3]])  # shape [3, 1]
expanded = weights.expand(3, 4)                 # target shape [3, 4]
print(expanded)
''')

md(r"""
The printout matches the article. What the printout cannot show is where those twelve numbers
live. Ask torch:
""")

code('''
print("shape", tuple(expanded.shape), " stride", expanded.stride())
print("elements:", expanded.numel(),
      "  storage bytes:", storage_bytes(expanded),
      "  (the source's storage:", storage_bytes(weights), "bytes)")
assert expanded.stride() == (1, 0)
assert shares_storage(expanded, weights)
# three float32s, not twelve
assert storage_bytes(expanded) == storage_bytes(weights) == 3 * 4
''')

md(r"""
Stride 0 along dimension 1 means: stepping to the next column moves **zero** elements in memory.
All four columns of row `i` read the single cell that holds `weights[i, 0]`. Nothing was copied;
`expand` only wrote a new shape and new strides. In the explorer below, pick an element of the
logical view (top) and see which storage cell (bottom) it reads; the four elements of a row all
land on one cell.
""")

code('''
tl.StrideExplorer(expanded)
''')

# ---------------------------------------------------------------------------------------------
md(r"""
## `-1` and new leading dimensions

`expand` accepts two more things than "1 becomes N":

- `-1` means "keep this dimension's size";
- extra sizes on the **left** create new leading dimensions, of any size, also with stride 0.
""")

code('''
row = torch.arange(3.0)       # shape [3], stride (1,)
a = row.expand(2, 3)          # one new leading dimension
b = row.expand(4, 2, -1)      # two new leading dimensions; -1 keeps the 3
print(tuple(a.shape), a.stride())
print(tuple(b.shape), b.stride())
assert a.stride() == (0, 1) and b.stride() == (0, 0, 1)
assert shares_storage(a, row) and shares_storage(b, row)
''')

md(r"""
A new dimension has no size to keep, so `-1` is refused there:
""")

code('''
row.expand(-1, 3)
''', "raises-exception")

md(r"""
The article's bias example (stretch a per-channel bias `[C, 1, 1]` to `[N, C, H, W]`) combines
both moves at once: one new leading dimension and two stretched ones. It works, and it is still
only the bias's own storage:
""")

code('''
N, C, H, W = 8, 4, 5, 5
bias = torch.randn(C, 1, 1)
big_bias = bias.expand(N, C, H, W)
print(tuple(big_bias.shape), big_bias.stride(),
      "storage bytes:", storage_bytes(big_bias))
assert shares_storage(big_bias, bias) and storage_bytes(big_bias) == C * 4
''')

# ---------------------------------------------------------------------------------------------
md(r"""
## The precise rule, and the articles' versions of it

For a tensor of shape `s` (with `k` dimensions) and target sizes `t` (with `m` entries),
`x.expand(*t)`:

1. needs `m >= k`: the target may add dimensions but never drop one;
2. aligns `t` with `s` **from the right**; the first `m - k` entries are new leading dimensions,
   which may have any size `>= 0` (zero included) but not `-1`: there is no size to keep;
3. for each existing dimension: `-1` or the same size keeps it; a size-1 dimension may become any
   size `>= 0`; anything else raises;
4. returns a view: new and stretched dimensions get stride 0, the others keep their strides.

`expand_as(other)` is `expand(other.size())`. Here is the rule written as a function, checked
against torch on every shape with up to 2 dimensions of sizes 0-3 and every target with up to 3
entries from `-1` to `3`:
""")

code('''
def expand_rule(shape, sizes):
    """torch.empty(shape).expand(sizes).shape by the rule above;
    None where torch raises."""
    if len(sizes) < len(shape):
        return None
    new = len(sizes) - len(shape)
    out = []
    for i, t in enumerate(sizes):
        if i < new:                              # a new leading dimension
            if t < 0:
                return None
            out.append(t)
            continue
        s = shape[i - new]
        if t == -1 or t == s:
            out.append(s)
        elif s == 1 and t >= 0:
            out.append(t)
        else:
            return None
    return tuple(out)


def torch_expand(shape, sizes):
    try:
        return tuple(torch.empty(shape).expand(sizes).shape)
    except RuntimeError:
        return None


cases = [(s, t)
         for k in range(3) for s in itertools.product(range(4), repeat=k)
         for m in range(4) for t in itertools.product(range(-1, 4), repeat=m)]
disagree = [(s, t) for s, t in cases
            if expand_rule(s, t) != torch_expand(s, t)]
raising = sum(torch_expand(s, t) is None for s, t in cases)
print(len(cases), "cases,", raising, "of them raise;", len(disagree),
      "disagreements with torch, for example:")
for s, t in disagree[:3]:
    print(f"  torch.empty({s}).expand({t})"
          f" -> torch.Size({list(torch_expand(s, t))})")
# every disagreement: a 0-d tensor, a 0 among the sizes, and torch hands
# back a size of -1
assert all(s == () and 0 in t and min(torch_expand(s, t)) < 0
           for s, t in disagree)
''')

md(r"""
The rule and torch agree on every case but one family, and there torch is the one that is wrong:
for a 0-d tensor, `-1` in a new dimension is not rejected when another requested size is 0; torch
returns a tensor whose shape contains `-1`. Nothing in `expand` checks for it; such a tensor fails
later, far from the cause. Never pass `-1` for a dimension that does not exist yet.
""")

md(r"""
The two articles state this rule in several places, not always correctly. Each statement below is
turned into an experiment; torch gives the verdict. (`attempt` runs a snippet and reports the
shape it produced or the first line of torch's error.)
""")

code('''
def attempt(fn):
    try:
        return "shape " + str(list(fn().shape))
    except RuntimeError as err:
        return "RuntimeError: " + str(err).splitlines()[0]


ones = torch.ones
# (article and section, its claim, a snippet that tests it,
#  what the claim predicts, verdict)
claims = [
    ("000 §1", "expand can only go from size 1 to size N",
     "ones(3).expand(2, 3)", "raises",
     "INCOMPLETE: new leading dimensions appear from nothing, with any size"),
    ("000 §3", "expand can only expand a single dimension",
     "ones(1, 1, 1).expand(2, 3, 4)", "raises",
     "WRONG: every size-1 dimension can stretch in one call"),
    ("000 §2", "the reference of expand_as must have the same number of dims",
     "ones(10, 20).expand_as(ones(2, 4, 10, 20))", "raises",
     "WRONG: a reference with more dims is fine "
     "(the article's own mask example)"),
    ("000 §2", "(same claim, the other direction)",
     "ones(1, 10, 20).expand_as(ones(10, 20))", "raises",
     "RIGHT in this direction: fewer dims raise, "
     "even when the extra one has size 1"),
    ("000 §2", "non-singleton dims must match exactly",
     "ones(3, 2).expand_as(ones(3, 4))", "raises", "RIGHT"),
    ("000 §2", "[K, 1].expand_as([K, 256, 14, 14]) gives [K, 256, 14, 14]",
     "ones(10, 1).expand_as(ones(10, 256, 14, 14))", "works",
     "WRONG: shapes align from the right, so 10 meets 14"),
    ("000 §4", "[3, 1, 1].expand(3, 4, -1) works",
     "ones(3, 1, 1).expand(3, 4, -1)", "works", "RIGHT"),
    ("000 §4", "[3, 1, 1].expand(4, 3, -1) fails: dim 0 is not 1",
     "ones(3, 1, 1).expand(4, 3, -1)", "raises", "RIGHT"),
    ("002 §3", "expand_as takes weights [B, 1] to the loss's [B]",
     "ones(8, 1).expand_as(ones(8))", "works",
     "WRONG: the target has fewer dims (chapter 6 has the whole story)"),
    ("002 §5.1", "dims being expanded must be 1, the others must match",
     "ones(3, 2).expand_as(ones(3, 4))", "raises",
     "RIGHT for existing dims; silent about new leading ones"),
]
for source, claim, snippet, claimed, verdict in claims:
    # the snippet's text is exactly what runs
    got = attempt(lambda: eval(snippet))
    actually = "raises" if got.startswith("RuntimeError") else "works"
    print(f"[{source}] {claim}\\n    {snippet}")
    print(textwrap.fill(f"claim says: {claimed:6}  torch: {got}", width=92,
                        initial_indent="    ", subsequent_indent="        "))
    print(f"    -> {verdict}")
    assert (actually == claimed) == verdict.startswith("RIGHT")
''')

md(r"""
The article's ROI example wanted each region's class score `[K, 1]` spread over a `[K, 256, 14, 14]`
feature map. Because shapes align from the right, the score needs two trailing size-1 dimensions
first; then `expand_as` does what the article hoped:
""")

code('''
roi_features = torch.randn(10, 256, 14, 14)   # [K, C, H, W]
class_pred = torch.randn(10, 1)               # [K, 1]
# [K,1,1,1] -> [K,C,H,W]
class_mask = class_pred[:, :, None, None].expand_as(roi_features)
print(tuple(class_mask.shape), class_mask.stride())
assert torch.equal(class_mask[3], class_pred[3].expand(256, 14, 14))
assert shares_storage(class_mask, class_pred)
''')

# ---------------------------------------------------------------------------------------------
md(r"""
## `expand_as`: a reference with more dimensions, or fewer

`expand_as(other)` reads nothing from `other` but its shape. The article's attention example
expands a `[seq_len_q, seq_len_k]` mask to the `[batch, heads, seq_len_q, seq_len_k]` scores. Run
with small sizes:
""")

code('''
query = torch.randn(2, 4, 10, 8)   # [batch, heads, seq_len_q, depth]
key = torch.randn(2, 4, 20, 8)     # [batch, heads, seq_len_k, depth]
attention_scores = torch.matmul(query, key.transpose(-2, -1))
mask = torch.ones(10, 20)          # [seq_len_q, seq_len_k]
mask = mask.expand_as(attention_scores)
print(tuple(mask.shape), mask.stride())
assert mask.stride() == (0, 0, 20, 1) and storage_bytes(mask) == 10 * 20 * 4
''')

md(r"""
It works, with a reference of **more** dimensions, which contradicts the rule of thumb stated in
the same section. A reference with **fewer** dimensions always fails, even when the extra dimension
has size 1 (use `squeeze` or `view` first):
""")

code('''
torch.ones(1, 10, 20).expand_as(torch.ones(10, 20))
''', "raises-exception")

md(r"""
The second article's shape-error example (section 5.1), as written, catches and prints the error:
""")

code('''
a = torch.randn(3, 2)  # no dimension of size 1
b = torch.randn(3, 4)
try:
    a.expand_as(b)  # raises RuntimeError
except RuntimeError as e:
    print(f"Error: {e}")
''')

md(r"""
And its claim that `expand_as(other)` is the same as `expand(other.size())` holds: same values,
same strides, same storage.
""")

code('''
w = torch.tensor([[0.5], [1.0], [0.8], [1.2]])
output = torch.randn(4, 2)
by_shape, by_tensor = w.expand((4, 2)), w.expand_as(output)
assert torch.equal(by_shape, by_tensor)
assert by_shape.stride() == by_tensor.stride() == (1, 0)
assert shares_storage(by_shape, w) and shares_storage(by_tensor, w)
print("expand((4, 2)) and expand_as(output): same view")
''')

# ---------------------------------------------------------------------------------------------
md(r"""
## Five ways to make a tensor bigger

Two of them are views (`expand`, `torch.broadcast_to`); three copy (`repeat`, `tile`,
`repeat_interleave`), and the copies do not even agree on the order of the elements:
""")

code('''
v = torch.tensor([1, 2, 3])
print("v.expand(2, 3)           ", v.expand(2, 3).tolist())
print("torch.broadcast_to(v, ..)", torch.broadcast_to(v, (2, 3)).tolist())
print("v.repeat(2)              ", v.repeat(2).tolist())
print("v.tile((2,))             ", v.tile((2,)).tolist())
print("v.repeat_interleave(2)   ", v.repeat_interleave(2).tolist())
print("v.repeat(2, 1)           ", v.repeat(2, 1).tolist())
''')

md(r"""
`repeat(2)` lays copies of the whole tensor end to end; `repeat_interleave(2)` repeats each element
in place. `tile` is `repeat` with one difference: given fewer repetition counts than the tensor
has dimensions, `tile` pads the counts with 1s on the left, while `repeat` refuses:
""")

code('''
m = torch.arange(6).reshape(2, 3)
print("m.tile((2,)) ->", tuple(m.tile((2,)).shape), "(read as (1, 2))")
print("m.repeat(2)  ->", attempt(lambda: m.repeat(2)))
''')

md(r"""
### Memory: the article's experiment, measured

The first article compares `expand` and `repeat` on a `[1, 3, 224, 224]` image batch and checks
the storage pointer with `tensor.storage()`, which is deprecated in current PyTorch (it warns).
Run as written, with the warning caught so its text is shown:
""")

code('''
base = torch.randn(1, 3, 224, 224)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    expanded = base.expand(32, -1, -1, -1)  # only the batch dimension grows
    print(expanded.storage().data_ptr() == base.storage().data_ptr())  # True
    repeated = base.repeat(32, 1, 1, 1)
    print(repeated.storage().data_ptr() == base.storage().data_ptr())  # False
print(caught[0].category.__name__ + ":", str(caught[0].message).split(".")[0])
''')

md(r"""
The verdicts (`True`, `False`) are right; the modern spelling is `untyped_storage()`. More useful
than a pointer comparison is the number of bytes each result really holds:
""")

code('''
ops = {
    "expand": lambda x: x.expand(32, -1, -1, -1),
    "broadcast_to": lambda x: torch.broadcast_to(x, (32, 3, 224, 224)),
    "repeat": lambda x: x.repeat(32, 1, 1, 1),
    "tile": lambda x: x.tile((32, 1, 1, 1)),
    "repeat_interleave": lambda x: x.repeat_interleave(32, dim=0),
    "expand().contiguous()": lambda x: x.expand(32, -1, -1, -1).contiguous(),
}
print(f"source: {storage_bytes(base):>12,} bytes")
for name, op in ops.items():
    out = op(base)
    assert out.shape == (32, 3, 224, 224)
    shared = shares_storage(out, base)
    print(f"{name:22} {storage_bytes(out):>12,} bytes   "
          f"view of the source: {shared}")
assert storage_bytes(ops["repeat"](base)) == 32 * storage_bytes(base)
''')

md(r"""
The views cost nothing beyond the source's 588 KiB; each copy costs 32 times that, 18.4 MiB. The
time follows the bytes. (Timings depend on the machine; the numbers below were measured when this
page was built, on one CPU thread.)
""")

code('''
for name, op in ops.items():
    seconds = time_call(lambda: op(base), min_run_time=0.05)
    print(f"{name:22} {seconds * 1e6:10.1f} µs")
''', "nbval-ignore-output")

md(r"""
### How the cost grows with size

A sweep: one row of 256 float32s (1 KiB) made into `n` rows, for `n` from 1 to 16384 (16 MiB),
by each method. First the bytes, which are exact and the same on every machine (`*` marks a view of the
source):
""")

code('''
source = torch.randn(1, 256)
grow = {
    "expand": lambda x, n: x.expand(n, -1),
    "broadcast_to": lambda x, n: torch.broadcast_to(x, (n, x.shape[1])),
    "repeat": lambda x, n: x.repeat(n, 1),
    "tile": lambda x, n: x.tile((n, 1)),
    "repeat_interleave": lambda x, n: x.repeat_interleave(n, dim=0),
    "expand().contiguous()": lambda x, n: x.expand(n, -1).contiguous(),
}
sizes = [1, 8, 64, 512, 4096, 16384]
sweep = cost_sweep(grow, source, sizes, time=True, min_run_time=0.05)
print(sweep.table("bytes"))
assert (sweep.bytes["expand"] == sweep.bytes["broadcast_to"]
        == (1024,) * len(sizes))
# n = 1: already contiguous, returned as is
assert sweep.shared["expand().contiguous()"][0]
assert all(sweep.bytes[k] == tuple(1024 * n for n in sizes)
           for k in ("repeat", "tile", "repeat_interleave"))
''')

md(r"""
At `n = 1` the expanded tensor is already contiguous, so `contiguous()` returns it unchanged (the
`*`). The figure below plots those storage bytes against the number of rows, both axes logarithmic:
`expand` and `broadcast_to` stay flat at 1 KiB (the source), while `repeat`, `tile`,
`repeat_interleave` and `expand().contiguous()` climb together on one straight line of slope 1
(their four lines coincide), reaching 16 MiB at 16384 rows.
""")

code('''
fig = plot_sweep(sweep, "bytes", xlabel="rows n (each row: 256 float32)",
                 title="Storage behind a [1, 256] row made into [n, 256]")
display(fig)
plt.close(fig)
''')

md(r"""
The timing of the same sweep, measured with `torch.utils.benchmark` on one thread. In the figure
below (median microseconds per call against rows, log-log) the two views stay flat at a few
microseconds whatever the size: they only compute a new shape and strides. The copies cost more
from the start (they allocate and write; only `expand().contiguous()` at one row is as cheap as a
view, having nothing to copy) and climb steeply at the large sizes, where the time goes into
writing the bytes and the line tends to a slope of 1: time proportional to size.
""")

code('''
print(sweep.table("seconds"))
fig = plot_sweep(sweep, "seconds", xlabel="rows n (each row: 256 float32)",
                 title="Time to make a [1, 256] row into [n, 256]")
display(fig)
plt.close(fig)
''', "nbval-ignore-output")

# ---------------------------------------------------------------------------------------------
md(r"""
## Writing into an expanded tensor

In an expanded tensor several elements are one memory cell. Writing to one of them writes to all
of them, and to the source. Torch refuses most in-place operations there, but not all.

The first article's "trap 1", as written:
""")

code('''
x = torch.tensor([[1.0], [2.0]], requires_grad=True)
y = x.expand(2, 3)
y += 1  # the article: "this raises because y is a view"
''', "raises-exception")

md(r"""
It raises, but not because `y` is a view: in-place operations on ordinary views are normal, and
the write shows in the tensor the view came from:
""")

code('''
plain = torch.tensor([[1.0], [2.0]])
first_row = plain[0]          # a view
first_row += 1                # in place, through the view: allowed
assert plain.tolist() == [[2.0], [2.0]]
''')

md(r"""
The error above is autograd's: `x` is a leaf that requires grad, and in-place writes into a view
of such a leaf are refused. Without `requires_grad` the write is refused for the real reason, the
overlap created by stride 0:
""")

code('''
x = torch.tensor([[1.0], [2.0]])
y = x.expand(2, 3)
y.add_(1)
''', "raises-exception")

md(r"""
Which writes are refused and which go through? Each line starts from a fresh `x = [[1.], [2.]]`
and `y = x.expand(2, 3)`:
""")

code('''
writes = {
    "y.add_(1)": lambda y: y.add_(1),
    "y.mul_(2)": lambda y: y.mul_(2),
    "y.clamp_(0, 1)": lambda y: y.clamp_(0, 1),
    "y.copy_(torch.zeros(2, 3))": lambda y: y.copy_(torch.zeros(2, 3)),
    "y[0] = torch.tensor([7., 8., 9.])":
        lambda y: y.__setitem__(0, torch.tensor([7., 8, 9])),
    "y.fill_(5)": lambda y: y.fill_(5),
    "y.zero_()": lambda y: y.zero_(),
    "y[0, 0] = 5": lambda y: y.__setitem__((0, 0), 5),
    "y[:, 1] = 7": lambda y: y.__setitem__((slice(None), 1), 7),
}
for text, write in writes.items():
    x = torch.tensor([[1.0], [2.0]])
    y = x.expand(2, 3)
    try:
        write(y)
        print(f"{text:34} went through: x is now {x.flatten().tolist()},",
              f"y row 0 is {y[0].tolist()}")
    except RuntimeError as err:
        print(f"{text:34} raises: {str(err).split(':')[0]}")
''')

md(r"""
Torch checks the tensor being written to: when several of its elements share a cell (internal
overlap), it refuses arithmetic in place (`add_`, `mul_`, `clamp_`) and copies of many values
(`copy_`, assigning a whole row), whose result would in general depend on how often and in which
order the shared cell is written. Writing one constant everywhere (`fill_`, `zero_`) is let
through, since the order cannot matter. And a part of the view in which each cell appears once
(`y[0, 0]`, the column `y[:, 1]`) has no overlap at all, so any write into it goes through. All of
these silently change the source, and with it every other element that reads the same cell:
`y[0, 0] = 5` changed all of row 0. The second article's warning (section 5.2), that in-place
changes to an expanded tensor can reach the original, is right; the first article's belief that
such writes always raise is not.

Writes to the source show through the view, too:
""")

code('''
x = torch.tensor([[1.0], [2.0]])
y = x.expand(2, 3)
x.mul_(10)
print(y)
assert torch.equal(y, torch.tensor([[10.0] * 3, [20.0] * 3]))
''')

md(r"""
Two more in-place operations, `masked_fill_` and `index_fill_`, still work on expanded tensors
but warn that this is deprecated:
""")

code('''
fills = {
    "masked_fill_":
        lambda y: y.masked_fill_(torch.ones(2, 3, dtype=torch.bool), 9.0),
    "index_fill_": lambda y: y.index_fill_(1, torch.tensor([0]), 9.0),
}
for name, write in fills.items():
    x = torch.tensor([[1.0], [2.0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        write(x.expand(2, 3))
    print(caught[0].category.__name__ + ":",
          str(caught[0].message).split(".")[0])
    print("    x is now", x.flatten().tolist())
    assert x.tolist() == [[9.0], [9.0]]
''')

md(r"""
The article's fix, `y = y.clone() + 1`, gives the right values, but the `clone()` is a wasted
copy: `y + 1` is out of place and already allocates a fresh, ordinary tensor.
""")

code('''
x = torch.tensor([[1.0], [2.0]])
y = x.expand(2, 3)
fixed_article, fixed = y.clone() + 1, y + 1
assert torch.equal(fixed_article, fixed) and not shares_storage(fixed, x)
print(fixed.stride(), storage_bytes(fixed),
      "bytes: a new, ordinary tensor either way")
''')

# ---------------------------------------------------------------------------------------------
md(r"""
## `contiguous()` and `clone()` after `expand`

A tensor that `expand` really stretched is not contiguous. `contiguous()` (and `clone()`) turn it
into an ordinary tensor by writing out every element: that is exactly the copy `expand`
avoided.
""")

code('''
row = torch.randn(1, 256)
e = row.expand(32, -1)
c, k = e.contiguous(), e.clone()
for name, t in [("expand", e), ("contiguous()", c), ("clone()", k)]:
    print(f"{name:13} contiguous={t.is_contiguous()!s:5} stride={t.stride()}  "
          f"storage bytes={storage_bytes(t):6}  "
          f"shares the row: {shares_storage(t, row)}")
assert not e.is_contiguous() and c.is_contiguous()
assert storage_bytes(c) == storage_bytes(k) == 32 * storage_bytes(row)
''')

md(r"""
Two tips of the first article, checked:

- *"call `contiguous()` before `expand` when needed"*: `expand` works on any layout, so there is
  nothing to prepare (below, a column sliced out of a wider tensor, not contiguous); and once it
  stretches a dimension its result is not contiguous anyway.
- *"memory sharing mode: `base.expand(32, -1).contiguous()` is the safe way"*: the `contiguous()`
  is a 32-fold copy, the opposite of sharing. The gradient is the same with or without it.
  (The article's snippet also builds an `Adam` optimizer that never takes a step; it has no part
  in the gradient, so it is left out here.)
""")

code('''
column = torch.arange(6.0).reshape(3, 2)[:, :1]    # [3, 1] with strides (2, 1)
wide = column.expand(3, 4)
print("column", column.stride(), column.is_contiguous(),
      "-> expanded", wide.stride(), wide.is_contiguous())
assert not column.is_contiguous() and shares_storage(wide, column)
assert wide.tolist() == [[0.0] * 4, [2.0] * 4, [4.0] * 4]

base = torch.randn(1, 256, requires_grad=True)
expanded = base.expand(32, -1).contiguous()   # the article's "safe expansion"
loss = expanded.sum()
loss.backward()
grad_with_copy = base.grad.clone()
base.grad = None
base.expand(32, -1).sum().backward()          # no copy
assert torch.equal(base.grad, grad_with_copy) and torch.all(base.grad == 32)
print("storage bytes: base", storage_bytes(base), "  expanded+contiguous",
      storage_bytes(expanded), "  shares:", shares_storage(expanded, base))
''')

# ---------------------------------------------------------------------------------------------
md(r"""
## `as_strided`, and the article's `smart_expand`

`torch.as_strided(x, size, stride)` builds a view from raw sizes and strides over `x`'s storage,
with no checks beyond "stays inside the storage". The first article builds a "smart expand" on it:
""")

code('''
def smart_expand(x, target_shape):
    strides = list(x.stride())
    for i in range(len(strides)):
        if x.size(i) == 1 and target_shape[i] != 1:
            strides[i] = 0  # mark as broadcastable
    return torch.as_strided(x, size=target_shape, stride=strides)
''')

md(r"""
Its own use case, a quantization scale of shape `[1]` spread to `[1, 3, 1, 1]`, fails: the loop
only visits the tensor's dimensions, so four sizes arrive with one stride.
""")

code('''
scale = torch.tensor([0.1], requires_grad=True)
activations = torch.randn(32, 3, 224, 224)
scaled = activations * smart_expand(scale, [1, 3, 1, 1])
''', "raises-exception")

md(r"""
Worse are the cases where it does **not** fail. It never checks that the dimensions it keeps
match, so it reads memory that is not part of `x` at all, or silently drops data:
""")

code('''
storage_owner = torch.arange(12.0).reshape(6, 2)
# [[0.], [2.]]: a view into a bigger storage
x = storage_owner[:2, :1]
print("x =", x.flatten().tolist())
print("smart_expand(x, [3, 4]) =\\n", smart_expand(x, [3, 4]))
print("x.expand(3, 4):", attempt(lambda: x.expand(3, 4)))

tall = torch.arange(4.0).reshape(4, 1)   # four rows
print("smart_expand(tall, [2, 3]) =", smart_expand(tall, [2, 3]).tolist(),
      "(rows 2 and 3 dropped)")
print("tall.expand(2, 3):", attempt(lambda: tall.expand(2, 3)))
''')

md(r"""
The third row `[4, 4, 4, 4]` is `storage_owner[2, 0]`, an element that `x` does not contain. No
error, no warning. `expand` (or `torch.broadcast_to`) does the same job with every check in place;
there is no reason to rebuild it.

`as_strided` earns its place where no checked view exists, for example overlapping windows. Done
right, its strides are read from the input (they are in storage elements, not in positions of the
view), the storage offset is kept, and the result is checked against a safe equivalent
(`unfold`):
""")

code('''
signal = torch.arange(20.0)[3:13]            # a slice: storage offset 3
n, size = signal.numel(), 4
windows = torch.as_strided(signal, size=(n - size + 1, size),
                           stride=(signal.stride(0), signal.stride(0)),
                           storage_offset=signal.storage_offset())
print(windows[:3])
assert torch.equal(windows, signal.unfold(0, size, 1))
assert shares_storage(windows, signal)
''')

# ---------------------------------------------------------------------------------------------
md(r"""
## Gradients through `expand`

Every element of an expanded tensor is a use of one source element, so in the backward pass the
source element collects the gradients of all its copies: the gradient of `expand` is a **sum over
the expanded dimensions**. Checked against the sum computed by hand:
""")

code('''
x = torch.tensor([[1.0], [2.0], [3.0]], requires_grad=True)   # [3, 1]
w = torch.randn(3, 4)
y = x.expand(3, 4)
# keep the gradient of the non-leaf y to look at it
y.retain_grad()
(y * w).sum().backward()
print("y.grad == w:", torch.equal(y.grad, w))
print("x.grad:", [round(v, 4) for v in x.grad.flatten().tolist()])
assert torch.allclose(x.grad, w.sum(dim=1, keepdim=True))
''')

md(r"""
New leading dimensions are summed the same way, and `repeat` / `repeat_interleave` give the same
sums (over the copies they made), at the price of the copy:
""")

code('''
b = torch.randn(4, requires_grad=True)
g = torch.randn(5, 4)
(b.expand(5, 4) * g).sum().backward()
assert torch.allclose(b.grad, g.sum(dim=0))

r = torch.randn(3, requires_grad=True)
g6 = torch.randn(6)
(r.repeat(2) * g6).sum().backward()
# copies end to end
assert torch.allclose(r.grad, g6[:3] + g6[3:])
r.grad = None
(r.repeat_interleave(2) * g6).sum().backward()
# copies side by side
assert torch.allclose(r.grad, g6.reshape(3, 2).sum(dim=1))
print("expand, repeat and repeat_interleave:",
      "gradients are the sums over the copies")
''')

# ---------------------------------------------------------------------------------------------
md(r"""
## Check yourself

Each exercise: read the task, write the function (the solution is hidden behind the toggle), and
run the check below it. `tl.check` tries your function on many generated inputs, including
non-contiguous ones, and shows the smallest input it gets wrong.

**1. Per-sample values, shaped like the batch.** Write `match_to(w, x)`: `w` holds one value per
sample (shape `[B]`), `x` is a batch of shape `[B, ...]` with any number of dimensions. Return a
view of `w` shaped like `x`, with `out[b, ...] == w[b]`.
""")

code('''
def match_to(w, x):
    """w: [B], x: [B, ...] -> a stride-0 view of w with x's shape;
    out[b, ...] == w[b]."""
    return w[(...,) + (None,) * (x.dim() - 1)].expand_as(x)
''', "solution", "hide-input")

code('''
tl.check("expand.match_to", match_to)
''')

md(r"""
**2. Each row `k` times, side by side.** Write `repeat_rows(x, k)` that returns what
`x.repeat_interleave(k, dim=0)` returns for a 2-D `x`, built from a stride-0 view and one reshape
(no `repeat`, `repeat_interleave` or `tile`, no loops).
""")

code('''
def repeat_rows(x, k):
    """x: [n, d] -> [n * k, d]: row 0 k times, then row 1 k times, ..."""
    n, d = x.shape
    return x[:, None, :].expand(n, k, d).reshape(n * k, d)
''', "solution", "hide-input")

code('''
tl.check("expand.repeat_rows", repeat_rows)
''')

md(r"""
**3. The gradient through `expand`, by hand.** `s` of shape `shape` was expanded to `g.shape`,
and `g` is the gradient arriving at the expanded tensor. Write `source_grad(g, shape)`, the
gradient that reaches `s`, without autograd and without `sum_to_size`.
""")

code('''
def source_grad(g, shape):
    """g: the gradient at s.expand(g.shape); shape: the shape of s
    -> the gradient at s."""
    lead = g.dim() - len(shape)
    if lead:
        g = g.sum(dim=tuple(range(lead)))
    stretched = tuple(d for d, n in enumerate(shape) if n == 1)
    if stretched:
        g = g.sum(dim=stretched, keepdim=True)
    return g
''', "solution", "hide-input")

code('''
tl.check("expand.source_grad", source_grad)
''')

md(r"""
**Predict the result.** Answer in the boxes; each answer is checked in your browser.
""")

code('''
tl.Quiz([
    {"question": "`torch.zeros(3, 1).expand(2, 3, 4).stride()` is ...",
     "answer": "(0, 1, 0)",
     "explain": "The new leading dim and the stretched last dim both get stride 0; the 3 keeps "
                "its stride 1."},
    {"question": "`torch.zeros(1, 1000).expand(1000, 1000).untyped_storage().nbytes()` is ...",
     "answer": "4000",
     "explain": "A million elements, but the storage is still the 1000 float32s of the source."},
    {"question": "`x = torch.zeros(2, 1)`, then `x.expand(2, 3).fill_(5)`. What happens?",
     "choices": ["RuntimeError: more than one element refers to a single memory location",
                 "x becomes [[5.], [5.]]",
                 "x is unchanged; only the expanded view holds 5s"],
     "answer": 1,
     "explain": "Writing one value into every element is allowed even with overlap, and the view "
                "writes into x's storage. `add_` would raise."},
    {"question": "`torch.ones(2, 3).expand(3)`: the result's shape, or 'error'?",
     "answer": "error",
     "explain": "expand may add dims on the left but never drop one: 1 size for 2 dims raises."},
    {"question": "`torch.tensor([1, 2]).repeat_interleave(2)` is ...",
     "answer": "tensor([1, 1, 2, 2])",
     "explain": "repeat_interleave repeats each element in place; `repeat(2)` would give "
                "`tensor([1, 2, 1, 2])`."},
    {"question": "`x = torch.ones(1, 3, requires_grad=True)`; `x.expand(4, 3).sum().backward()`; "
                 "`x.grad` is ...",
     "answer": "tensor([[4., 4., 4.]])",
     "explain": "Each element of x appears 4 times in the expanded tensor; its gradient is the sum "
                "of the 4 ones."},
])
''')

code('''
# The quiz answers, checked against torch (hidden in the book).
assert torch.zeros(3, 1).expand(2, 3, 4).stride() == (0, 1, 0)
assert torch.zeros(1, 1000).expand(1000, 1000).untyped_storage().nbytes() == 4000
_x = torch.zeros(2, 1)
_x.expand(2, 3).fill_(5)
assert torch.equal(_x, torch.full((2, 1), 5.0))
assert attempt(lambda: torch.ones(2, 3).expand(3)).startswith("RuntimeError")
assert str(torch.tensor([1, 2]).repeat_interleave(2)) == "tensor([1, 1, 2, 2])"
_x = torch.ones(1, 3, requires_grad=True)
_x.expand(4, 3).sum().backward()
assert str(_x.grad) == "tensor([[4., 4., 4.]])"
''', "remove-input")

md(r"""
## Summary

- `expand` is a view: stretched and new leading dimensions get **stride 0**, so many elements read
  one storage cell. It costs no memory and next to no time, whatever the size.
- The rule: align from the right; a size-1 dimension can become any size (0 included); `-1` keeps a
  size but cannot create a dimension; new dimensions only on the left; never fewer dimensions.
  `expand_as(o)` is `expand(o.size())`.
- `repeat` / `tile` (whole tensor end to end) and `repeat_interleave` (each element in place) copy:
  their memory and time grow with the output. `contiguous()` or `clone()` after `expand` copy too.
- Don't write into an expanded tensor: most in-place ops raise, but `fill_`, `zero_` and writes
  into a part with no repeated cell (`y[0, 0] = 5`) silently change the source. Use an out-of-place op (`y + 1`), not `clone()` then `+`.
- Prefer `expand` / `broadcast_to` to hand-made `as_strided`: `as_strided` checks nothing but
  storage bounds.
- The gradient of `expand` is the sum of the incoming gradient over the expanded dimensions.
""")

nbbuild.describe_figure(cells, 'plot_sweep(sweep, "bytes"',
                        'Storage bytes against the number of rows, log-log: expand and '
                        'broadcast_to stay flat at 1 KiB, while repeat, tile, repeat_interleave '
                        'and expand().contiguous() rise together with slope 1 to 16 MiB.')
nbbuild.describe_figure(cells, 'plot_sweep(sweep, "seconds"',
                        'Time to make the tensor against the number of rows, log-log: the two '
                        'views stay flat at a few microseconds, the four copies climb steeply at '
                        'large sizes.')
print("wrote", nbbuild.write("05-expand-and-repeat.ipynb", cells).relative_to(nbbuild.ROOT))
