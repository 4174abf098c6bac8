"""Write notebooks/09-performance.ipynb (chapter 9: performance) from the cells below.

The notebook is generated so its source stays reviewable as plain Python; outputs are added by
executing it afterwards:

    .venv/bin/python scripts/notebooks/build_09.py
    .venv/bin/jupyter execute --inplace notebooks/09-performance.ipynb

Cells that print timings are tagged ``nbval-ignore-output``; everything else is deterministic.
"""

import nbbuild

IGNORE = "nbval-ignore-output"

cells = nbbuild.Cells()
md, code = cells.md, cells.code


md("""
# Performance: measure first, then make it fast

Speed advice for PyTorch is easy to repeat and easy to get wrong. This chapter measures every tip
it gives, on the machine that runs the notebook, and shows the measurement next to the advice.
Timings differ from machine to machine and from run to run, so read the numbers as *this run's*
numbers; the facts that do not vary (byte counts, strides, whether two tensors share memory) are
asserted.

You will be able to:

- time an operation with `torch.utils.benchmark` and say why one `time.time()` sample is not a
  measurement;
- replace a Python loop over elements by one tensor operation, and predict how the gap grows with
  the size;
- tell when in-place operations and preallocated outputs (`out=`) save time, and check it;
- use `torch.compile`, read what it captured, and recognise `torch.jit.script` as deprecated;
- reason about memory traffic: `expand` vs `repeat`, what `contiguous()` costs, and channels-last
  as nothing more than a different set of strides.
""")

code('''
import os
import time
import warnings

import matplotlib.pyplot as plt
from torch.utils import benchmark

from tensorlens import measure
''')

md("""
## Measuring: one stopwatch reading is not a measurement

The tempting way to time an operation is to read the clock before and after it. Try it five times
on the same tiny addition:
""")

code('''
a = torch.randn(1000)
b = torch.randn(1000)

samples = []
for _ in range(5):
    start = time.time()
    a + b
    samples.append(time.time() - start)
print("five time.time() samples of a + b, in microseconds:",
      [round(s * 1e6, 2) for s in samples])
''', IGNORE)

md("""
Compare the readings above with each other. They usually disagree, and the first is often the
largest: the first call can pay for one-time work (allocator warm-up, lazy initialisation). An
addition of a thousand floats is also so short that a single reading is at the mercy of whatever
else the machine is doing at that moment: another process, an interrupt, a cold cache.

`torch.utils.benchmark.Timer` fixes each of these problems:

- `blocked_autorange` starts with a **warm-up** period, which also picks how many runs to put in
  one **block** so that the clock overhead is small against the block; then it repeats blocks
  until `min_run_time` seconds have passed, and reports the **median** and the **interquartile
  range** (IQR) over blocks, which are robust to the odd slow run;
- it sets the number of **threads** torch may use while measuring (`num_threads`, 1 unless you
  say otherwise), so that numbers taken on machines with different core counts can be compared.
""")

code('''
timer = benchmark.Timer(stmt="a + b", globals={"a": a, "b": b},
                        label="a + b", sub_label="1,000 floats")
m = timer.blocked_autorange(min_run_time=0.1)
print(f"median {m.median * 1e6:.2f} µs, IQR {m.iqr * 1e6:.2f} µs "
      f"({len(m.times)} blocks of {m.number_per_run} runs)")
''', IGNORE)

md("""
The thread count is part of the measurement. The Timer uses one thread unless told otherwise,
whatever `torch.get_num_threads()` says for the rest of your program (by default, one per CPU
core). The measurement records it, so this is visible without reading any timing:
""")

code('''
assert m.task_spec.num_threads == 1          # what the Timer used
print("Timer threads:", m.task_spec.num_threads)
''')

md("""
To measure what your program actually gets, pass `num_threads=torch.get_num_threads()`.
`benchmark.Compare` lines up several measurements in one table. Here one matrix product, on one
thread and on all of this machine's threads. More threads help only when the cores are free: on a
small machine shared with other programs, the extra thread can gain little or even lose.
""")

code('''
x = torch.randn(256, 256)
results = []
for threads in sorted({1, torch.get_num_threads()}):
    t = benchmark.Timer(stmt="x @ x", globals={"x": x}, num_threads=threads,
                        label="256 x 256 matmul", sub_label="x @ x",
                        description=f"{threads} thread(s)")
    results.append(t.blocked_autorange(min_run_time=0.05))
benchmark.Compare(results).print()
''', IGNORE)

md("""
## Vectorization: one call instead of a Python loop

The source article's first tip, run as written (it assumes two tensors `a` and `b` of 1,000
elements):
""")

code('''
a = torch.randn(1000)
b = torch.randn(1000)

# the article's "bad" version
result = torch.zeros(1000)
for i in range(1000):
    result[i] = a[i] + b[i]

# the article's "good" version
good = a + b
assert torch.equal(result, good)   # identical values, element for element
''')

md("""
The advice is right, and the two versions compute exactly the same floats. What the article does
not say is *how much* it matters and why. Every loop iteration makes four torch calls: `a[i]` and
`b[i]` each create a 0-d tensor, the addition creates a third, and `result[i] = ...` writes it
into place. Each call is a full trip through torch's dispatcher. `a + b` makes one trip and then
runs a tight compiled loop over the elements. So the loop costs roughly a fixed amount *per
element*, while the vectorized call costs roughly a fixed amount *per call* until the data gets
large.

The sweep below times both for sizes from 1 to 4,096 elements. Inputs are built before timing, so
only the loop and the addition are measured.
""")

code('''
def loop_add(a, b):
    """The article's loop, as a function of the inputs."""
    result = torch.zeros(a.shape[0])
    for i in range(a.shape[0]):
        result[i] = a[i] + b[i]
    return result

sizes = [1, 4, 16, 64, 256, 1024, 4096]
pairs = {n: (torch.randn(n), torch.randn(n)) for n in sizes}
for n, (x, y) in pairs.items():
    assert torch.equal(loop_add(x, y), x + y)

sweep = measure.cost_sweep(
    {"Python loop": lambda src, n: loop_add(*pairs[n]),
     "vectorized a + b": lambda src, n: torch.add(*pairs[n])},
    source=torch.empty(0), sizes=sizes, time=True, min_run_time=0.05)
print(sweep.table("seconds"))
loop_s, vec_s = sweep.seconds["Python loop"], sweep.seconds["vectorized a + b"]
ratios = [lp / vec for lp, vec in zip(loop_s, vec_s)]
print("loop / vectorized:", " ".join(f"{r:,.0f}x" for r in ratios))
''', IGNORE)

md("""
The figure plots both timings (median microseconds per call) against the number of elements,
both axes logarithmic. Once the sizes are large enough for the per-element work to dominate, the
loop's line climbs about as steeply as the size itself (many times the elements, about as many
times the time); the vectorized line stays nearly flat. The vertical gap between the two lines is
the speed-up.
""")

code('''
fig = measure.plot_sweep(
    sweep, "seconds", xlabel="number of elements n",
    title="Element-wise addition: Python loop vs one tensor call")
plt.show()
plt.close(fig)
''', IGNORE)

md("""
Two things to take from the measurement rather than from a slogan:

- The gap is smallest at the smallest sizes and grows with the size, because the loop pays per
  element. Vectorizing a loop that runs three times saves microseconds; vectorizing one that runs
  over every pixel of an image is the difference between usable and unusable.
- The vectorized time hardly grows across this range (its ups and downs are noise): at these
  sizes it is dominated by the fixed cost of one call, not by arithmetic. That is why batching
  many small operations into one large one helps even when each is already "vectorized".

## In-place operations and preallocated outputs

The article's troubleshooting section recommends `torch.empty()` to preallocate memory and
`tensor.add_(1)` instead of `tensor = tensor + 1`. First the facts that do not depend on the
machine: which versions allocate new storage.
""")

code('''
x = torch.zeros(4)
before = x

y = x + 1                     # out of place: a new tensor with new storage
assert not measure.shares_storage(y, before)

x.add_(1)                     # in place: same tensor, same storage
assert x is before

# preallocated; its initial contents are garbage, never read them
buf = torch.empty(4)
r = torch.add(x, 1, out=buf)  # writes the result into buf
assert r is buf
print(buf)
''')

md("""
Whether this saves *time* is a separate question. Allocation in torch goes through a caching
allocator on GPUs and through the system allocator on CPUs; small blocks are cheap to get, very
large blocks may come fresh from the operating system and must be touched page by page. So the
answer depends on the size. Measure both sizes:
""")

code('''
results = []
for n in (1_000, 1_000_000):
    x = torch.randn(n)
    buf = torch.empty(n)
    for label, stmt in [("y = x + 1", "y = x + 1"),
                        ("x.add_(1)", "x.add_(1)"),
                        ("add(out=buf)", "torch.add(x, 1, out=buf)")]:
        t = benchmark.Timer(stmt=stmt,
                            globals={"x": x, "buf": buf, "torch": torch},
                            label="add one to every element", sub_label=label,
                            description=f"{n:,} floats")
        results.append(t.blocked_autorange(min_run_time=0.05))
benchmark.Compare(results).print()
''', IGNORE)

md("""
Read the table column by column. With a thousand floats the rows differ by a small factor at
most: each is mostly the fixed cost of a call (plus, for `y = x + 1`, creating a new tensor), and
allocating 4 KB is cheap. With a million floats (4 MB per result) the out-of-place version
also has to obtain a fresh 4 MB block on every call and write into memory it has not touched
yet; the other two do the same arithmetic into memory that is already there. So if the
`y = x + 1` row of that column stands out, allocation is what it pays for; how much depends on the
allocator and the size. Measure on your machine before rewriting code for it.

In-place updates also have costs that no timer shows. Torch refuses them where they would corrupt
something: on a tensor that autograd saved for the backward pass, `backward()` raises
([chapter 7](07-autograd.ipynb)); on an `expand`ed tensor whose elements share memory, the write
itself raises ([chapter 5](05-expand-and-repeat.ipynb)). And writing into a view also writes into
its base ([chapter 3](03-memory-layout.ipynb)). Use them for buffers you own, such as running sums
and preallocated outputs, not as a general habit.

## Compilers: `torch.jit.script` is deprecated, `torch.compile` is the path

The article's second tip compiles a function with TorchScript. Run as written, the decorator still
works in this version of PyTorch, but it emits a `DeprecationWarning` (Jupyter hides deprecation
warnings raised inside libraries, so this cell records them and prints them):
""")

code('''
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")

    @torch.jit.script
    def fast_function(x, y):
        return (x ** 2 + y ** 2).sqrt()

for w in caught:
    print(f"{w.category.__name__}: {w.message}")
assert any(issubclass(w.category, DeprecationWarning) for w in caught)

x, y = torch.randn(5), torch.randn(5)
assert torch.allclose(fast_function(x, y), torch.hypot(x, y))
''')

md("""
The warning names two replacements: `torch.compile`, for speed inside Python, and `torch.export`,
for deployment. `torch.compile` works differently from TorchScript: when the function is first
called, *TorchDynamo* reads the Python bytecode, records the tensor operations into a graph (an FX
graph), and hands that graph to a *backend* that turns it into faster code. The default backend,
*Inductor*, fuses element-wise operations into generated C++ (on CPU) or Triton (on GPU) kernels.

A backend is only a function that receives the graph. Passing one that prints the graph shows
exactly what was captured, at almost no cost:
""")

code('''
graphs_seen = 0

def print_graph(gm, example_inputs):
    """A torch.compile backend that shows the captured graph.

    It runs the graph unchanged.
    """
    global graphs_seen
    graphs_seen += 1
    print(f"--- graph {graphs_seen} ---")
    print(gm.code.strip())
    return gm.forward

def hypot(x, y):
    return (x ** 2 + y ** 2).sqrt()

compiled = torch.compile(hypot, backend=print_graph)
x, y = torch.randn(4), torch.randn(4)
assert torch.equal(compiled(x, y), hypot(x, y))
''')

md("""
The graph is the function's four tensor operations, with the Python around them gone. Calling
again with inputs of the same kind reuses it: the *guards* Dynamo recorded (dtype, shape, device,
...) still hold, so nothing is printed. A new shape breaks a guard and triggers a recompile; on the
second distinct shape Dynamo marks the size dynamic (the `SymInt` argument) so that later sizes
reuse that graph:
""")

code('''
# same shapes: no new graph
compiled(x, y)
# new shape: recompiled with a symbolic size
compiled(torch.randn(8), torch.randn(8))
# covered by the dynamic graph: nothing new
compiled(torch.randn(16), torch.randn(16))
assert graphs_seen == 2
''')

md("""
Python control flow that depends on tensor *values* cannot go into a graph: Dynamo splits the
function there (a *graph break*), runs the branch in Python and captures the rest separately. Each
piece is optimised on its own and nothing is fused across the break, so graph breaks in hot code
give away part of what compiling was for.
""")

code('''
graphs_seen = 0

def branchy(x):
    y = x * 2
    if y.sum() > 0:        # needs the value of y: Python must decide
        return y + 1
    return y - 1

compiled_branchy = torch.compile(branchy, backend=print_graph)
assert torch.equal(compiled_branchy(torch.ones(3)), branchy(torch.ones(3)))
# one graph before the branch, one for the branch taken
assert graphs_seen == 2
''')

md("""
The article says the first call compiles and later calls are faster. The first half is easy to
measure, even with a backend that returns the graph unchanged: the first call of a new compiled
function pays for tracing, while the second finds the cached graph.
""")

code('''
def scaled(x):
    return x * 3 + 1

quiet = torch.compile(scaled, backend=lambda gm, inputs: gm.forward)
x = torch.randn(1000)
start = time.perf_counter(); quiet(x); first = time.perf_counter() - start
start = time.perf_counter(); quiet(x); second = time.perf_counter() - start
print(f"first call {first * 1e3:.1f} ms (traces), "
      f"second call {second * 1e6:.1f} µs (cached)")
''', IGNORE)

md("""
The second half, "later calls are faster", is the backend's job. With a backend that does not
optimise, as above, there is nothing to gain. With Inductor the first call also generates and
compiles C++ code, which can take tens of seconds on a small CPU and would blow this page's time
budget.
The next cell therefore runs only when you ask for it by setting the environment variable
`TENSORLENS_RUN_INDUCTOR=1` before starting Jupyter; otherwise it says that it skipped.
""")

code('''
if os.environ.get("TENSORLENS_RUN_INDUCTOR") == "1":
    fused = torch.compile(hypot)                    # default backend: Inductor
    x, y = torch.randn(1_000_000), torch.randn(1_000_000)
    start = time.perf_counter()
    fused(x, y)
    compile_s = time.perf_counter() - start
    assert torch.allclose(fused(x, y), hypot(x, y))
    names = dict(hypot=hypot, fused=fused, x=x, y=y)
    eager_m = (benchmark.Timer("hypot(x, y)", globals=names)
               .blocked_autorange(min_run_time=0.2))
    fused_m = (benchmark.Timer("fused(x, y)", globals=names)
               .blocked_autorange(min_run_time=0.2))
    print(f"first call (compiles): {compile_s:.1f} s")
    print(f"per call: eager {eager_m.median * 1e3:.2f} ms, "
          f"compiled {fused_m.median * 1e3:.2f} ms")
else:
    print("Skipped: set TENSORLENS_RUN_INDUCTOR=1 to compile with Inductor "
          "and time it.")
''', IGNORE)

md("""
What a fused kernel saves is **memory traffic**: eager mode runs `x ** 2`, `y ** 2`, `+` and
`sqrt` as four passes, each reading and writing a full array; the fused kernel reads `x` and `y`
once and writes the result once. Element-wise chains on large tensors are limited by memory
bandwidth, not arithmetic, which is the theme of the last section.

## The article's third tip: half precision

The article's last performance tip converts to `float16` to save memory and says the precision
lost is negligible. The memory half is exact; the precision half depends on the values, and
[chapter 8](08-devices-and-precision.ipynb) measures where `float16` overflows and loses
increments. Run as written:
""")

code('''
# ours: the printed error must not depend on the cells above
torch.manual_seed(0)
tensor = torch.rand(10)         # torch.float32
half_tensor = tensor.half()     # torch.float16
print(tensor.dtype, measure.storage_bytes(tensor), "bytes ->",
      half_tensor.dtype, measure.storage_bytes(half_tensor), "bytes")
assert measure.storage_bytes(half_tensor) * 2 == measure.storage_bytes(tensor)

# all in float16's normal range, where the bound below holds
assert tensor.min() >= 2 ** -14
relative_error = ((half_tensor.float() - tensor).abs() / tensor).max().item()
print(f"largest relative rounding error: {relative_error:.2e} "
      f"(float16 keeps 11 significant bits: at most {2 ** -11:.2e})")
assert 0 < relative_error <= 2 ** -11
''')

md("""
## Memory traffic: what gets copied, and how it is laid out

### `expand` vs `repeat`

The broadcasting article compares the two on a batch of images, checking sharing with the
deprecated `storage().data_ptr()`; [chapter 5](05-expand-and-repeat.ipynb) runs it as written,
with the warning it prints. Here the same experiment uses the current `untyped_storage()`, which
`tensorlens.measure.shares_storage` and `storage_bytes` wrap. The bytes behind each result make
the difference concrete:
""")

code('''
base = torch.randn(1, 3, 224, 224)
expanded = base.expand(32, -1, -1, -1)
repeated = base.repeat(32, 1, 1, 1)
assert (measure.shares_storage(expanded, base)
        and not measure.shares_storage(repeated, base))
print(f"base     {measure.storage_bytes(base):>12,} bytes")
print(f"expanded {measure.storage_bytes(expanded):>12,} bytes  "
      f"(shape {tuple(expanded.shape)}, stride {expanded.stride()})")
print(f"repeated {measure.storage_bytes(repeated):>12,} bytes")
assert measure.storage_bytes(expanded) == measure.storage_bytes(base)
assert measure.storage_bytes(repeated) == 32 * measure.storage_bytes(base)
''')

md("""
`expand` only writes new sizes and strides (stride 0 along the batch), so its cost does not depend
on the batch size; `repeat` copies the image once per batch element, so its memory grows in exact
proportion to the batch and its time grows with it too. Bytes first (deterministic), then time
(on a busy machine a single point can be off, so read the trend, not each number):
""")

code('''
copies = measure.cost_sweep(
    {"expand": lambda t, n: t.expand(n, -1, -1, -1),
     "repeat": lambda t, n: t.repeat(n, 1, 1, 1)},
    source=base, sizes=[1, 4, 16, 32])
print(copies.table("bytes"))
''')

code('''
timed = measure.cost_sweep(
    {"expand": lambda t, n: t.expand(n, -1, -1, -1),
     "repeat": lambda t, n: t.repeat(n, 1, 1, 1)},
    source=base, sizes=[1, 4, 16, 32], time=True, min_run_time=0.05)
print(timed.table("seconds"))
''', IGNORE)

md("""
The article's "efficient" data-augmentation example expands the noise before adding it. The
expand does avoid copying the noise, but the sum still allocates the full result, and plain
broadcasting gives the same result without the `expand` call:
""")

code('''
original = torch.randn(1, 3, 224, 224)
noise_values = torch.randn(8, 1, 1, 1)
noise = noise_values.expand(-1, 3, 224, 224)
augmented = original + noise

# broadcasting does the same
assert torch.equal(augmented, original + noise_values)
print(f"noise (expanded)  {measure.storage_bytes(noise):>10,} bytes")
print(f"augmented result  {measure.storage_bytes(augmented):>10,} bytes  "
      f"shape {tuple(augmented.shape)}")
assert (measure.storage_bytes(augmented)
        == augmented.numel() * augmented.element_size())
''')

md("""
Saving memory with `expand` pays when the expanded tensor is *read*, not materialised: as an
operand of broadcasting arithmetic, a matmul, or a mask. [Chapter 5](05-expand-and-repeat.ipynb)
has the full story, including why writing into an expanded tensor is refused.

### What `contiguous()` costs

`contiguous()` returns the tensor itself when it is already contiguous, and copies otherwise. So
calling it "to be safe" is free on a contiguous tensor and a full copy on a transposed one:
""")

code('''
x = torch.randn(1024, 1024)
assert x.contiguous() is x                     # nothing to do: the same object
xt = x.t()
assert not xt.is_contiguous()
xt_c = xt.contiguous()                         # a real copy, 4 MB
assert not measure.shares_storage(xt_c, x) and torch.equal(xt_c, xt)
print(measure.storage_bytes(xt_c), "bytes copied")
''')

code('''
results = []
for label, stmt in [("x.contiguous()", "x.contiguous()"),
                    ("x.t().contiguous()", "x.t().contiguous()"),
                    ("x.sum(dim=1)", "x.sum(dim=1)"),
                    ("x.t().sum(dim=1)", "x.t().sum(dim=1)")]:
    t = benchmark.Timer(stmt=stmt, globals={"x": x},
                        label="1024 x 1024 floats", sub_label=label,
                        description="time")
    results.append(t.blocked_autorange(min_run_time=0.05))
benchmark.Compare(results).print()
''', IGNORE)

md("""
Compare the first two rows: the no-op `contiguous()` only checks the layout and returns the same
object, while the transposed one moves 4 MB through memory, which costs orders of magnitude more.
The last two rows show the other side. Each row of `x.t()` is a column of `x`, its elements 1,024
floats apart in memory; torch's reduction kernels reorder their loops to soften that, so how much
the strided sum loses varies with the machine and the operation. Which layout is cheaper overall
depends on how often the tensor is read: copy once with `contiguous()` if you will read it in the
"wrong" direction many times; skip the copy for a single pass.

### Channels-last is a stride story

Image tensors are indexed `(N, C, H, W)`: batch, channel, height, width. By default the last
index, `W`, varies fastest in memory. *Channels-last* keeps the same shape and the same indexing
but stores the `C` values of one pixel next to each other. In the terms of
[chapter 3](03-memory-layout.ipynb): only the strides change.
""")

code('''
x = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5)
cl = x.contiguous(memory_format=torch.channels_last)

print("shape        ", tuple(x.shape), tuple(cl.shape))
print("NCHW strides ", x.stride())
print("NHWC strides ", cl.stride())
assert x.stride() == (60, 20, 5, 1)
assert cl.stride() == (60, 1, 15, 3)
# same values at the same indices
assert torch.equal(x, cl)
assert (not cl.is_contiguous()
        and cl.is_contiguous(memory_format=torch.channels_last))
# same bytes...
assert measure.storage_bytes(cl) == measure.storage_bytes(x)
# ...in a new order: a copy
assert not measure.shares_storage(cl, x)
''')

md("""
Stride 1 now belongs to `C`, then `W` (stride 3 = C), then `H` (15 = W·C). Reading the storage in
memory order shows the consequence: the first three numbers stored are the three channels of pixel
`(0, 0)` of the first image.
""")

code('''
in_memory_order = torch.as_strided(cl, (cl.numel(),), (1,))
print(in_memory_order[:6])
assert torch.equal(in_memory_order[:3], x[0, :, 0, 0])
''')

md("""
Convolution kernels that read all channels of a neighbourhood at once benefit from that order, and
on CPUs oneDNN has channels-last kernels. Whether it is faster is, again, a measurement. Convert
both the input and the module, check that the results agree, then time them:
""")

code('''
torch.manual_seed(0)
conv = torch.nn.Conv2d(16, 16, kernel_size=3, padding=1)
conv_cl = torch.nn.Conv2d(16, 16, kernel_size=3, padding=1)
conv_cl = conv_cl.to(memory_format=torch.channels_last)
conv_cl.load_state_dict(conv.state_dict())
images = torch.randn(4, 16, 32, 32)
images_cl = images.contiguous(memory_format=torch.channels_last)

with torch.no_grad():
    out, out_cl = conv(images), conv_cl(images_cl)
assert torch.allclose(out, out_cl, atol=1e-5)
print("output stays channels-last:",
      out_cl.is_contiguous(memory_format=torch.channels_last))
''')

code('''
results = []
with torch.no_grad():
    for label, module, inp in [("NCHW", conv, images),
                               ("channels_last", conv_cl, images_cl)]:
        t = benchmark.Timer("module(inp)",
                            globals={"module": module, "inp": inp},
                            label="3x3 conv, 16 channels, 4 x 32 x 32",
                            sub_label=label, description="time")
        results.append(t.blocked_autorange(min_run_time=0.05))
benchmark.Compare(results).print()
''', IGNORE)

md("""
## The articles' snippets, checked

| snippet (source article) | verdict on PyTorch 2.13, from the cells above |
| --- | --- |
| loop `result[i] = a[i] + b[i]` vs `result = a + b` | right advice, identical values; the gap grows with the size (measured) |
| `@torch.jit.script` on `fast_function` | still runs, with a `DeprecationWarning`: use `torch.compile` |
| "the first call compiles, later calls are faster" | the first-call cost is real (measured); any speed-up comes from the backend (Inductor, opt-in here) |
| `tensor.half()` "halves memory, negligible loss" | bytes halve exactly; each value is rounded (relative error up to 2^-11 in float16's normal range): measure before calling it negligible |
| preallocate with `torch.empty`, use `add_(1)` | no new allocation (asserted); the time saved depends on size and allocator (measured) |
| `expand` vs `repeat` via `storage().data_ptr()` | right booleans, deprecated call (run in chapter 5): use `untyped_storage()`; 602,112 vs 19,267,584 bytes |
| noise `expand`ed before adding | right result; saves only the copy of the noise, and plain broadcasting does the same |

## Check yourself

### Predict the result
""")

code('''
tl.Quiz([
    {"question": "`x = torch.zeros(1, 1000)` (float32). How many bytes of storage are behind "
                 "`x.expand(64, -1)`?",
     "answer": "4000", "accept": ["4,000", "4000 bytes"],
     "explain": "`expand` makes a view with stride 0 along the new rows: the storage is still "
                "the 1,000 floats of `x`, 4 bytes each."},
    {"question": "`x = torch.randn(3, 4)`. Does `x.t().contiguous()` share storage with `x`?",
     "choices": ["yes, it is a view", "no, it is a copy"], "answer": 1,
     "explain": "`x.t()` is not contiguous, so `contiguous()` has to copy the elements into "
                "row-major order in a new storage."},
    {"question": "`y = torch.randn(8, 8)`. What is `y.contiguous() is y`?",
     "choices": ["True", "False"], "answer": 0,
     "explain": "On a tensor that is already contiguous, `contiguous()` returns the tensor "
                "itself: no copy, no new object."},
    {"question": "What is `torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride()`?",
     "answer": "(60, 1, 15, 3)",
     "explain": "C varies fastest (stride 1), then W (stride C = 3), then H (W * C = 15), then "
                "N (H * W * C = 60). The shape stays (2, 3, 4, 5)."},
    {"question": "A `benchmark.Timer` created without `num_threads`: how many threads does torch "
                 "use while it measures?",
     "answer": "1",
     "explain": "The Timer defaults to one thread so that measurements are comparable across "
                "machines; pass `num_threads=torch.get_num_threads()` to measure what your "
                "program gets."},
    {"question": "On a tensor of 1,000 floats, which is guaranteed to be faster: `x.add_(1)` or "
                 "`x = x + 1`?",
     "choices": ["`x.add_(1)`", "`x = x + 1`", "neither is guaranteed: measure it"], "answer": 2,
     "explain": "At this size the fixed cost of a call dominates and allocating 4 KB is cheap, "
                "so the difference is small and depends on the machine and its load. In-place "
                "wins clearly only when allocating the result is expensive."},
], title="Performance: predict the result")
''')

md("""
### Exercises

**1. A moving average in one call.** Write `moving_average(x, k)` that returns the averages of
every window of `k` consecutive elements of the 1-D float tensor `x` (`1 <= k <= len(x)`):
`out[i] = x[i:i + k].mean()`, `len(x) - k + 1` of them, with the dtype of `x`. No Python loops.
""")

code('''
def moving_average(x, k):
    """Mean of every window of k consecutive elements of the 1-D tensor x."""
    return x.unfold(0, k, 1).mean(dim=1)
''', "solution", "hide-input")

code('tl.check("performance.moving_average", moving_average)')

md("""
**2. Write into a preallocated buffer.** Write `add_into(a, b, out)` that stores `a + b` in the
existing tensor `out` (same shape and dtype as `a` and `b`, any strides, stale values) and returns
`out` itself, without allocating any tensor along the way (not even a temporary `a + b`) and
without changing `a` or `b`.
""")

code('''
def add_into(a, b, out):
    """Store a + b in the preallocated tensor out and return out."""
    return torch.add(a, b, out=out)
''', "solution", "hide-input")

code('tl.check("performance.add_into", add_into)')

md("""
**3. Channels-last strides by hand.** Write `channels_last_strides(shape)` that returns, as a tuple
of ints, the strides (in elements) of a channels-last tensor of the 4-D `shape = (N, C, H, W)`,
without asking torch to build one.
""")

code('''
def channels_last_strides(shape):
    """Strides of a channels-last (N, C, H, W) tensor.

    C fastest, then W, then H, then N.
    """
    n, c, h, w = shape
    return (h * w * c, 1, w * c, c)
''', "solution", "hide-input")

code('tl.check("performance.channels_last_strides", channels_last_strides)')

md("""
## Summary

- Time with `torch.utils.benchmark.Timer(...).blocked_autorange()`: warm-up, blocks, median and
  IQR, and an explicit thread count (one by default). A single `time.time()` difference is noise.
- A Python loop over elements pays the cost of a torch call per element; one tensor operation pays
  it once. The speed-up grows with the size, so vectorize the loops that run over data.
- `add_`, `out=` and preallocated buffers avoid allocating results; whether that saves time depends
  on size and allocator, so measure it. Torch refuses in-place writes where they would break
  autograd or an expanded tensor.
- `torch.jit.script` is deprecated; `torch.compile` captures graphs (watch for graph breaks and
  recompiles), and its default backend fuses element-wise chains to cut memory traffic.
- `half()` halves the bytes exactly and rounds every value (relative error up to 2^-11); whether
  that is negligible is a measurement, not a given (chapter 8).
- `expand` allocates nothing and its cost does not grow with the size; `repeat` copies.
  `contiguous()` is free on a contiguous tensor and a full copy otherwise. Channels-last changes
  strides, not shapes.
""")


if __name__ == "__main__":
    nbbuild.describe_figure(cells, 'title="Element-wise addition: Python loop',
                            'Median time per call against the number of elements, log-log: the '
                            'Python loop climbs with the size while the single tensor operation '
                            'stays nearly flat.')
    print(nbbuild.write("09-performance.ipynb", cells))
