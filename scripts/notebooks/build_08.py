"""Generate notebooks/08-devices-and-precision.ipynb (unexecuted); then execute it in place.

Mirrors 004_a60420c1d86141b2.txt sections 6, 8.3 and 9.3 (and the map_location advice of
section 7). The book is built on a CPU-only machine: every cell's output is stable there, and the
GPU-only behaviour is either simulated with documented tools (the meta device, FakeTensorMode, a
storage location tag) or guarded by `torch.cuda.is_available()`. scripts/gpu_check.py runs the
real GPU demonstrations on a machine that has one.
"""

import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from nbbuild import code, describe_figure, md, write


def _check_quiz():
    """The quiz answers below are what torch does (so the book never teaches a wrong answer)."""
    x = torch.ones(3)
    x.to(torch.float64)
    assert x.dtype == torch.float32
    m = torch.nn.Linear(2, 2)
    m.to(torch.float64)
    assert m.weight.dtype == torch.float64
    assert repr(torch.tensor(2048.0, dtype=torch.float16) + 1) == "tensor(2048., dtype=torch.float16)"
    assert torch.zeros(1000, 1000, dtype=torch.bfloat16).nbytes == 2000000
    with FakeTensorMode():
        try:
            torch.rand(3, device="cuda") + torch.rand(3)
        except RuntimeError as err:
            assert str(err).startswith("Expected all tensors to be on the same device")
        else:
            raise AssertionError("mixing devices should raise")

cells = [
    md("""
    # Devices and precision

    Every tensor lives on a device (CPU memory, a CUDA GPU, Apple's MPS) and stores numbers in a
    dtype. Both decide what an operation costs and whether it is allowed at all. This chapter
    moves tensors and models between devices, runs into the errors that mixing devices causes,
    and measures what `float16` and `bfloat16` save and what they lose.

    You will be able to:

    - pick a device with a fallback that runs on any machine, and create tensors directly on it;
    - predict what `.to(...)` returns for a tensor and for a module;
    - recognise the mixed-device error and load a GPU checkpoint on a CPU-only machine;
    - measure the memory of a tensor in each floating dtype and name the limits of `float16` and
      `bfloat16` (largest value, spacing, lost increments);
    - use `torch.autocast`, and read the CUDA memory counters without being fooled by the cache.

    This book is executed on a machine without a GPU. Cells whose behaviour depends on the
    hardware say what they print here and what a GPU machine prints instead.
    """),
    code("""
    import os
    import tempfile
    import weakref

    import matplotlib.pyplot as plt
    """),
    md("""
    ## Choosing a device

    The article's one-liner picks CUDA when it is there and the CPU otherwise:
    """),
    code("""
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print(device)
    """),
    md("""
    **Verdict: correct, and incomplete on a Mac.** Apple-silicon GPUs are reached through the
    `mps` backend. A fallback that covers all three, and that prints `cpu` on this machine:
    """),
    code('''
    def pick_device():
        """The best available device: CUDA, then Apple's MPS, then the CPU."""
        if torch.cuda.is_available():
            return torch.device("cuda")
        if torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")

    device = pick_device()
    print("cuda:", torch.cuda.is_available(),
          "| mps:", torch.backends.mps.is_available(),
          "| chosen:", device)
    '''),
    md("""
    ## `device=` at creation, and what `.to` returns

    The article's other two lines: move an existing tensor, or create one directly on the device.
    Creating in place avoids building the tensor on the CPU and copying it over.
    """),
    code("""
    torch.manual_seed(0)
    tensor = torch.rand(3)
    # move a tensor to the device
    tensor = tensor.to(device)
    # create it directly on the device
    gpu_tensor = torch.rand(1000, 1000, device=device)
    print(tensor.device, gpu_tensor.device, gpu_tensor.shape)
    """),
    md("""
    `.to` behaves differently for tensors and modules, which is why the article reassigns the
    tensor but could skip reassigning the model:

    - `tensor.to(...)` **returns** a tensor and leaves the original as it was. When nothing has to
      change it returns the very same object, no copy.
    - `module.to(...)` converts the module's parameters and buffers **in place** and returns the
      module itself.

    This machine has one device, so the cell shows the rule with a dtype change, which follows the
    same rule as a device change:
    """),
    code("""
    x = torch.ones(3)
    y = x.to(torch.float64)
    print("tensor: original", x.dtype, "| returned", y.dtype,
          "| same object:", y is x)
    print("nothing to change -> same object:",
          x.to("cpu") is x, x.to(torch.float32) is x)

    model = torch.nn.Linear(3, 2)
    returned = model.to(torch.float64)
    print("module: returned is model:", returned is model,
          "| weight now", model.weight.dtype)
    assert y is not x and x.dtype == torch.float32
    assert returned is model and model.weight.dtype == torch.float64
    """),
    md("""
    So `x.to(device)` on a line of its own does nothing useful: the moved tensor is thrown away.
    The article's training pattern reassigns every tensor, which is right. It runs here unchanged
    on a tiny model and two batches:
    """),
    code('''
    def train(model, data_loader):
        model = model.to(device)
        for batch in data_loader:
            inputs, labels = batch
            inputs = inputs.to(device)
            labels = labels.to(device)
            # ... training logic ...
            loss = torch.nn.functional.mse_loss(model(inputs), labels)
            print("batch on", inputs.device, "| loss", round(loss.item(), 4))

    torch.manual_seed(0)
    train(torch.nn.Linear(4, 1),
          [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(2)])
    '''),
    md("""
    ## Mixing devices

    The article's comment says that operations across devices "are converted automatically, but
    it is better to keep them on one device", and then that the line "will raise". Only the second
    half is true: PyTorch never moves a tensor to another device behind your back. On a CPU-only
    machine the article's snippet cannot show anything, because `device` is the CPU and both
    tensors live there:
    """),
    code("""
    cpu_tensor = torch.rand(1000, 1000)
    # this raises on a GPU machine (caught, so that the chapter runs on to the
    # end there too)
    try:
        result = gpu_tensor + cpu_tensor
        print("no error here: both operands are on", gpu_tensor.device,
              "and", cpu_tensor.device)
    except RuntimeError as error:
        print("RuntimeError:", error)
    """),
    md("""
    Two tools show the real behaviour without a GPU. The **meta** device is a real device that
    stores shapes and dtypes but no data; mixing it with the CPU fails the same way a GPU does:
    """),
    code("""
    meta_tensor = torch.rand(1000, 1000, device="meta")
    print(meta_tensor.device, meta_tensor.shape, meta_tensor.dtype)
    meta_tensor + cpu_tensor
    """, "raises-exception"),
    md("""
    And `FakeTensorMode` (from `torch._subclasses`, a private module that `torch.compile` uses to
    trace programs without running them) creates tensors that *claim* to be on `cuda:0` without
    any GPU. Its device check raises the same message as the check in PyTorch's CUDA kernels:
    """),
    code("""
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        on_gpu = torch.rand(1000, 1000, device="cuda")
        print("fake tensor on", on_gpu.device)
        on_gpu + torch.rand(1000, 1000)
    """, "raises-exception"),
    md("""
    On a machine with a GPU, `gpu_tensor + cpu_tensor` raises

    ```text
    RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
    ```

    (This machine has no GPU; the message above is the same text, raised by the fake tensors'
    device check. `scripts/gpu_check.py` prints the real one on a GPU machine.) The most common way
    to meet the error is a model on one device and its input on another:
    """),
    code("""
    with FakeTensorMode():
        layer = torch.nn.Linear(1000, 10)  # parameters on the CPU
        layer(torch.rand(4, 1000, device="cuda"))
    """, "raises-exception"),
    md("""
    On a real GPU, operations whose device check is generated per operator (matrix products
    inside `Linear`, for example) word the same error differently, naming the argument and the
    kernel, in the form `Expected all tensors to be on the same device, but got <argument> is on
    cpu, different from other tensors on cuda:0 (when checking argument in method <kernel>)`.
    Both forms start with the same words.

    One exception is allowed on purpose: a zero-dimensional CPU tensor (a scalar) may be combined
    with a tensor on any device, like a Python number.
    """),
    code("""
    with FakeTensorMode():
        on_gpu = torch.rand(3, device="cuda")
        print("cuda + 0-d cpu tensor ->", (on_gpu + torch.tensor(2.0)).device)
    """),
    md("""
    The fix is always explicit: move one operand, `gpu_tensor + cpu_tensor.to(gpu_tensor.device)`,
    or better, create the tensor on the right device in the first place.

    ## Loading a GPU checkpoint on a CPU-only machine

    `torch.save` records, for every storage, the device it was on. A checkpoint written on a GPU
    says `cuda:0`, and loading it asks for that device. To make such a file here without a GPU,
    the cell registers a location tag with `torch.serialization.register_package` (the documented
    hook that device backends use) that labels the storages `cuda:0` while `fake_gpu_save` runs;
    the file then holds the same location string a GPU save writes.
    """),
    code("""
    workdir = tempfile.TemporaryDirectory()
    checkpoint = os.path.join(workdir.name, "model_state.pt")
    _label_as_gpu = False

    def _gpu_tag(storage):
        # None: let PyTorch tag it normally
        return "cuda:0" if _label_as_gpu else None

    torch.serialization.register_package(0, _gpu_tag,
                                         lambda storage, location: None)

    def fake_gpu_save(obj, path):
        global _label_as_gpu
        _label_as_gpu = True
        try:
            torch.save(obj, path)
        finally:
            _label_as_gpu = False

    fake_gpu_save({"weights": torch.nn.Linear(2, 2).state_dict(),
                   "config": {"hidden": 2}},
                  checkpoint)
    """),
    md("""
    The article's two loads (`torch.load("tensor.pt")` and the one with `map_location="cpu"`), on
    this file. Without `map_location`:
    """),
    code("""
    state = torch.load(checkpoint)
    """, "raises-exception"),
    md("""
    **Verdict on the article's story** (that loading a GPU model on a CPU machine "crashed the
    whole Jupyter kernel"): not what PyTorch does. It raises a clear `RuntimeError` that names the
    fix, and the kernel survives. The fix, as in the article:
    """),
    code("""
    # force loading onto the CPU
    state = torch.load(checkpoint, map_location="cpu")
    print({name: (t.device, tuple(t.shape))
           for name, t in state["weights"].items()},
          state["config"])
    # map_location also takes a torch.device or a {saved: wanted} dict
    remapped = torch.load(checkpoint, map_location={"cuda:0": "cpu"})
    assert all(t.device.type == "cpu" for t in remapped["weights"].values())
    workdir.cleanup()
    """),
    md("""
    Saving and loading in general (`weights_only`, views saved with their whole storage,
    `safetensors`) is the subject of the saving-and-loading chapter.

    ## Memory: `empty`, `del`, `empty_cache` and in-place operations

    The article's advice for running out of memory: pre-allocate with `torch.empty()`, free
    tensors with `del tensor; torch.cuda.empty_cache()`, and use in-place operations such as
    `tensor.add_(1)` instead of `tensor = tensor + 1`. Each, measured:

    **`torch.empty`** allocates exactly as much as `torch.zeros`; it only skips writing zeros, so
    its contents are whatever was in memory (never read them before writing).
    """),
    code("""
    print("bytes: empty", torch.empty(1000, 1000).untyped_storage().nbytes(),
          "| zeros", torch.zeros(1000, 1000).untyped_storage().nbytes())
    """),
    md("""
    **`del`** removes a name, not the memory. The memory goes when the last reference goes, and a
    view, a list or an autograd graph is a reference. A weak reference shows when the tensor
    really disappears:
    """),
    code("""
    big = torch.ones(1_000_000)
    alive = weakref.ref(big)
    # a view: it keeps `big` (and all 4 MB of its storage) alive
    first_ten = big[:10]
    del big
    print("after del big:      still alive?", alive() is not None,
          "| the view's storage bytes:", first_ten.untyped_storage().nbytes())
    del first_ten
    print("after del the view: still alive?", alive() is not None)
    """),
    md("""
    **In-place operations** write into the existing storage; the out-of-place form allocates a
    new tensor first, so for a moment both exist:
    """),
    code("""
    t = torch.zeros(1000, 1000)
    before = t.untyped_storage().data_ptr()
    t.add_(1)
    print("add_ keeps the storage:   ", t.untyped_storage().data_ptr() == before)
    t = t + 1
    print("t + 1 gets a new storage: ", t.untyped_storage().data_ptr() != before)
    """),
    md("""
    In-place has a price shown in the autograd chapter: it is refused on leaves that require grad
    and on values saved for backward.

    **`torch.cuda.empty_cache()`**, and what the CUDA counters show. PyTorch's CUDA allocator
    keeps freed blocks in a cache to reuse them without asking the driver again. So after
    `del`, `torch.cuda.memory_allocated()` (bytes in live tensors) drops, but
    `torch.cuda.memory_reserved()` (everything the allocator holds from the driver: live tensors
    plus its cache) does not. `nvidia-smi` shows the reserved memory plus the fixed cost of the
    CUDA context. `empty_cache()` hands the unused cached blocks back to the driver:
    `memory_reserved` drops, `nvidia-smi` shows less, other processes can use it. It frees nothing that a tensor
    still uses and gives PyTorch itself no extra room, since the cache was already available to it.
    `max_memory_allocated()` is the peak since the last `reset_peak_memory_stats()`.

    The next cell runs that sequence when a GPU is present; on this machine it prints why it does
    not. `scripts/gpu_check.py` prints the same counters on a GPU machine.
    """),
    code("""
    if torch.cuda.is_available():
        mib = 2 ** 20
        torch.cuda.reset_peak_memory_stats()
        a = torch.empty(256 * mib // 4, device="cuda")  # 256 MiB of float32
        print("MiB allocated", torch.cuda.memory_allocated() // mib,
              "| reserved", torch.cuda.memory_reserved() // mib)
        del a
        print("after del: allocated", torch.cuda.memory_allocated() // mib,
              "| reserved", torch.cuda.memory_reserved() // mib)
        torch.cuda.empty_cache()
        print("after empty_cache: reserved", torch.cuda.memory_reserved() // mib,
              "| peak allocated", torch.cuda.max_memory_allocated() // mib)
    else:
        # the article's call: safe without CUDA, and it does nothing
        torch.cuda.empty_cache()
        assert torch.cuda.memory_allocated() == 0
        assert torch.cuda.memory_reserved() == 0
        print("CUDA is not available here: empty_cache() ran and released",
              "nothing; the counters stay at", torch.cuda.memory_allocated())
    """),
    md("""
    ## Precision: what `float16` and `bfloat16` save

    The article lowers precision with `.half()`:
    """),
    code("""
    # the default is 32-bit floating point
    tensor = torch.rand(10)  # torch.float32
    # lower the precision to save memory
    half_tensor = tensor.half()  # torch.float16
    print(tensor.dtype, tensor.nbytes, "bytes |",
          half_tensor.dtype, half_tensor.nbytes, "bytes")
    """),
    md("""
    The storage is exactly half, for any size; measured on a million elements:
    """),
    code("""
    print("dtype            bytes per element   bytes for 1000 x 1000")
    for dtype in (torch.float64, torch.float32, torch.float16, torch.bfloat16):
        t = torch.zeros(1000, 1000, dtype=dtype)
        print(f"{str(dtype):16s} {t.element_size():17d}   {t.nbytes:21,d}")
        assert (t.nbytes == t.numel() * t.element_size()
                == t.untyped_storage().nbytes())
    """),
    md("""
    The article's claim is about the whole GPU: "nearly half the memory, with negligible loss of
    accuracy". Tensor storage halves, as measured. A whole training run does not simply halve
    (optimizer state and master weights are often kept in `float32`, and the CUDA context has a
    fixed cost), and this CPU-only book cannot measure that, so the claim is not repeated here.
    The accuracy half of the claim can be measured, and depends on what you do.

    ## Precision: what they lose

    Both 16-bit formats spend their bits differently: `float16` keeps 10 bits of mantissa and 5 of
    exponent, `bfloat16` keeps the 8 exponent bits of `float32` and only 7 of mantissa.
    `torch.finfo` lists the consequences:
    """),
    code("""
    print(f"{'dtype':15s} {'bits':>4s} {'eps':>10s} {'max':>11s}"
          f" {'smallest normal':>16s}")
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        f = torch.finfo(dtype)
        print(f"{str(dtype):15s} {f.bits:4d} {f.eps:10.3g} {f.max:11.4g}"
              f" {f.tiny:16.4g}")
    # eps = 2 ** -(mantissa bits): 23 for float32, 10 for float16, 7 for bfloat16
    eps = [torch.finfo(d).eps
           for d in (torch.float32, torch.float16, torch.bfloat16)]
    assert eps == [2.0 ** -23, 2.0 ** -10, 2.0 ** -7]
    """),
    md("""
    `eps` is the gap between 1 and the next representable number. The gap grows with the
    magnitude: it doubles at every power of two. The figure plots that gap (the spacing to the
    next representable number) against the value itself, on logarithmic axes, for the three
    dtypes: three parallel staircases, `bfloat16` highest (coarsest), `float16` in the middle and
    ending at its maximum 65504 (dashed vertical line), `float32` lowest; a dotted horizontal
    line marks a gap of 2, from where adding 1 is no longer exact.
    """),
    code("""
    values = torch.logspace(-3, 6, 400, dtype=torch.float64)
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for dtype in (torch.bfloat16, torch.float16, torch.float32):
        v = values[values <= torch.finfo(dtype).max].to(dtype)
        gap = torch.nextafter(v, torch.tensor(float("inf"), dtype=dtype)) - v
        ax.loglog(v.double(), gap.double(), label=str(dtype).replace("torch.", ""),
                  drawstyle="steps-post")
    ax.axhline(2.0, ls=":", color="gray")
    ax.axvline(torch.finfo(torch.float16).max, ls="--", color="gray", lw=0.8)
    ax.text(torch.finfo(torch.float16).max * 0.8, 1e-9, "float16 max",
            ha="right", fontsize=8)
    ax.set_xlabel("value")
    ax.set_ylabel("gap to the next representable value")
    ax.legend()
    plt.show()
    plt.close(fig)
    """),
    md("""
    Where the gap is 2, `v + 1` lies exactly halfway between two representable values and
    rounding goes to the one with an even last bit; where the gap is 4 or more, `+ 1` is always
    lost. For `float16` the gap reaches 2 at 2048, for `bfloat16` already at 256, and both
    starting points round back down, so a counter that adds 1 at a time stops there:
    """),
    code("""
    f16 = torch.tensor(2048.0, dtype=torch.float16)
    bf16 = torch.tensor(256.0, dtype=torch.bfloat16)
    print(f16 + 1, bf16 + 1)
    assert (f16 + 1).item() == 2048 and (bf16 + 1).item() == 256
    counter = torch.tensor(0.0, dtype=torch.float16)
    for _ in range(3000):
        counter = counter + 1
    print("counting to 3000 in float16 one step at a time:", counter)
    assert counter.item() == 2048
    """),
    md("""
    Past the largest value, the result is `inf` (`float16` stops at 65504: a product of two
    numbers around 300 already overflows). Below the smallest normal value the numbers lose
    precision and then flush to 0, which is what happens to small gradients in `float16`
    (mixed-precision training scales the loss up with `torch.amp.GradScaler` for this reason).
    `bfloat16` has the range of `float32` and does neither:
    """),
    code("""
    three = torch.tensor(300.0)
    cases = {
        "300 * 300": (three.half() * three.half(),
                      three.bfloat16() * three.bfloat16()),
        "70000": (torch.tensor(70000.0).half(), torch.tensor(70000.0).bfloat16()),
        "1e-8": (torch.tensor(1e-8).half(), torch.tensor(1e-8).bfloat16()),
    }
    for label, (f16, bf16) in cases.items():
        print(f"{label:10s} float16: {f16.item():<5} | bfloat16: {bf16.item()}")
    assert cases["300 * 300"][0].isinf() and cases["70000"][0].isinf()
    assert cases["1e-8"][0] == 0
    assert all(bf16.isfinite() and bf16 != 0 for _, bf16 in cases.values())
    """),
    md("""
    And the plain rounding error of storing values in 16 bits, the "negligible loss" of the
    article, measured on its own example (`torch.rand(10)`) and on a matrix product computed in
    each dtype, against a `float64` reference:
    """),
    code("""
    torch.manual_seed(0)
    x = torch.rand(10)
    for dtype in (torch.float16, torch.bfloat16):
        rel = ((x.to(dtype).float() - x).abs() / x).max().item()
        unit = torch.finfo(dtype).eps / 2  # the largest relative rounding error
        print(f"storing rand(10) as {str(dtype):15s}: max relative error {rel:.1e}"
              f" (eps / 2 = {unit:.1e})")
        assert rel <= unit

    a, b = torch.randn(256, 256), torch.randn(256, 256)
    exact = a.double() @ b.double()
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        product = (a.to(dtype) @ b.to(dtype)).double()
        err = ((product - exact).abs().max() / exact.abs().max()).item()
        print(f"256 x 256 matmul in {str(dtype):15s}:"
              f" max error / max value {err:.1e}")
    """),
    md("""
    So: a value stored in 16 bits keeps about three significant decimal digits (`float16`) or
    two (`bfloat16`), against about seven in `float32`. That is often harmless for activations
    and weights in a network trained for it, and far from harmless for sums of many terms,
    counters, large or tiny values. "Negligible" is a
    property of the model and the operation, to be measured, not assumed.

    ## `torch.autocast`: lower precision where it is safe

    Rather than converting everything with `.half()`, `torch.autocast` keeps two lists of
    operations: one runs in the lower dtype (matrix products, convolutions, linear layers), one is
    cast up to `float32` (losses such as `mse_loss` and `cross_entropy`, on the CPU). Every other
    operation runs in the dtype of its inputs, with the usual type promotion. On the CPU autocast
    supports `bfloat16`, so it runs here:
    """),
    code("""
    torch.manual_seed(0)
    a, b = torch.randn(256, 256), torch.randn(256, 256)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        # lower-precision list
        product = a @ b
        # float32 list
        loss = torch.nn.functional.mse_loss(product, b)
        # neither: follows its input
        summed = product.sum()
        # neither: bfloat16 + float32 promotes
        mixed = product + a
    for name, t in [("a @ b", product), ("mse_loss", loss),
                    ("product.sum()", summed), ("product + a", mixed)]:
        print(f"{name:14s} -> {t.dtype}")
    print("inputs keep their dtype:", a.dtype)
    assert product.dtype == torch.bfloat16 and loss.dtype == torch.float32
    assert summed.dtype == torch.bfloat16 and mixed.dtype == torch.float32
    """),
    md("""
    The inputs are untouched; autocast casts copies inside each listed operation. Note the third
    line: a reduction over a `bfloat16` result stays in `bfloat16` unless you cast it. On a GPU the
    usual form is `torch.autocast(device_type="cuda", dtype=torch.float16)` together with
    `torch.amp.GradScaler("cuda")` for the small-gradient problem above, or `bfloat16` without a
    scaler on GPUs that support it (`scripts/gpu_check.py` runs the CUDA version).

    ## Check yourself
    """),
    code("""
    tl.Quiz([
        {"question": "`x = torch.ones(3)`; `x.to(torch.float64)` on a line of its own. "
                     "What is `x.dtype` afterwards?",
         "answer": "torch.float32", "accept": ["float32"],
         "explain": "`Tensor.to` returns a new tensor; the result was thrown away."},
        {"question": "`m = torch.nn.Linear(2, 2)`; `m.to(torch.float64)` on a line of its own. "
                     "What is `m.weight.dtype`?",
         "answer": "torch.float64", "accept": ["float64"],
         "explain": "`Module.to` converts parameters in place (and returns the module itself)."},
        {"question": "What does `torch.tensor(2048.0, dtype=torch.float16) + 1` give?",
         "choices": ["tensor(2049., dtype=torch.float16)", "tensor(2048., dtype=torch.float16)",
                     "tensor(inf, dtype=torch.float16)", "an overflow error"],
         "answer": 1,
         "explain": "Between 2048 and 4096 float16 values are 2 apart; 2049 rounds back to 2048."},
        {"question": "How many bytes does `torch.zeros(1000, 1000, dtype=torch.bfloat16)` store?",
         "answer": "2000000", "accept": ["2,000,000", "2e6"],
         "explain": "2 bytes per element times one million elements."},
        {"question": "A tensor on `cuda:0` plus a tensor of shape (3,) on the CPU:",
         "choices": ["the CPU tensor is copied to the GPU automatically",
                     "RuntimeError: Expected all tensors to be on the same device ...",
                     "the result is on the CPU"],
         "answer": 1,
         "explain": "PyTorch never moves tensors implicitly (only 0-d CPU tensors may be mixed in)."},
    ], title="Predict the result")
    """, "remove-input"),
    md("""
    ### Exercises

    **1. Which values overflow?** Write `overflows(x, dtype)` that returns a bool tensor, True
    where the finite `float32` value `x[i]` becomes infinite when cast to `dtype` (`float16` or
    `bfloat16`). Careful near the maximum: a value slightly above `finfo(dtype).max` can still
    round down to it.
    """),
    code('''
    def overflows(x, dtype):
        """Bool tensor: True where the finite value x[i] overflows when cast
        to dtype.
        """
        return torch.isfinite(x) & torch.isinf(x.to(dtype))
    ''', "solution", "hide-input"),
    code("""
    tl.check("precision.overflows", overflows)
    """),
    md("""
    **2. The gap to the next value.** Write `spacing(x)` that returns, for a tensor `x` of
    positive normal floating-point values, the distance from each value to the next larger
    representable value in `x`'s own dtype (the quantity plotted above), in that dtype.
    """),
    code('''
    def spacing(x):
        """Distance from x to the next representable value above it, in x's
        dtype.
        """
        return torch.nextafter(x, torch.full_like(x, float("inf"))) - x
    ''', "solution", "hide-input"),
    code("""
    tl.check("precision.spacing", spacing)
    """),
    md("""
    ## Summary

    - Pick the device once (CUDA, then MPS, then CPU) and create tensors on it with `device=`.
    - `tensor.to(...)` returns a new tensor (or the same one if nothing changes): reassign it.
      `module.to(...)` works in place.
    - PyTorch never moves data between devices implicitly: mixing them raises
      "Expected all tensors to be on the same device" (0-d CPU tensors excepted).
    - A GPU checkpoint records `cuda:0`; on a CPU-only machine load it with
      `map_location="cpu"`. The failure is a clear error, not a crash.
    - `del` frees memory only when the last reference (views, lists, graphs) is gone;
      `empty_cache()` returns cached GPU memory to the driver, it frees no live tensor.
    - `float16` and `bfloat16` halve storage exactly. `float16` overflows above 65504 and loses
      `+1` from 2048; `bfloat16` keeps the range but loses `+1` from 256. Measure the accuracy of
      your own computation; prefer `torch.autocast` over converting everything.
    """),
]


if __name__ == "__main__":
    _check_quiz()
    describe_figure(cells, 'torch.logspace(-3, 6, 400',
                    'Gap to the next representable number against the value, log-log, for '
                    'bfloat16, float16 and float32: three parallel staircases with bfloat16 '
                    'coarsest; float16 ends at 65504; a dotted line marks a gap of 2.')
    print(write("08-devices-and-precision.ipynb", cells))
