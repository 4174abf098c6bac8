"""Generate notebooks/07-autograd.ipynb (unexecuted). Run, then execute the notebook in place.

Mirrors 004_a60420c1d86141b2.txt sections 5, 8.2 and 10 and the gradient parts of
000_c31b1528404d0f01.txt sections 4 and 6; every article snippet is run as written first.
"""

import torch

from nbbuild import code, describe_figure, md, write


def _check_quiz():
    """The quiz answers below are what torch does (so the book never teaches a wrong answer)."""
    x = torch.tensor(3.0, requires_grad=True)
    for _ in range(2):
        (x * x).backward()
    assert repr(x.grad) == "tensor(12.)"
    a = torch.ones(3, 1, requires_grad=True)
    a.expand(3, 5).sum().backward()
    assert torch.equal(a.grad, torch.full((3, 1), 5.0))
    w = torch.zeros(2, requires_grad=True)
    try:
        w += 1
    except RuntimeError as err:
        assert "a leaf Variable that requires grad is being used in an in-place operation" in str(err)
    else:
        raise AssertionError("in-place on a leaf should raise")
    with torch.no_grad():
        assert (w * 2).requires_grad is False

cells = [
    md("""
    # Autograd: how gradients flow through tensors

    A tensor that requires grad records every operation done to it, and `backward()` walks that
    record in reverse. This chapter opens the record, looks at what it keeps in memory, and runs
    the mistakes people make with it, each with the error PyTorch really prints.

    You will be able to:

    - tell a leaf from a computed tensor, and read a tensor's graph through `grad_fn` and
      `next_functions`;
    - predict when `.grad` is filled, when it accumulates and how to reset it;
    - stop recording with `detach`, `torch.no_grad` and `torch.inference_mode`, and say which to use;
    - write a training loop by hand and explain why the update goes inside `no_grad`;
    - recognise the common autograd errors from their messages (no `grad_fn`, in-place on a leaf,
      in-place on a saved value) and fix them;
    - compute the gradient that flows back through broadcasting and `expand`;
    - write a custom `torch.autograd.Function` and verify it with `gradcheck`.
    """),
    code("""
    import warnings

    import matplotlib.pyplot as plt
    from tensorlens.graph import autograd_graph, draw_graph, saved_tensor_bytes
    """),
    md("""
    ## Leaves, `requires_grad` and `.grad`

    A **leaf** is a tensor you created yourself rather than computed from other tensors that
    require grad. When a leaf has `requires_grad=True`, every result computed from it gets a
    `grad_fn`: the node that knows how to send a gradient back. After `backward()`, the gradient
    lands in the leaf's `.grad`.

    The article's first example, with the punctuation the extraction lost put back:
    """),
    code("""
    x = torch.tensor(2.0, requires_grad=True)
    y = x ** 2 + 3 * x + 1
    y.backward()
    print(x.grad)  # dy/dx = 2x + 3 = 7
    """),
    md("""
    **Verdict: correct.** $\\frac{d}{dx}(x^2 + 3x + 1) = 2x + 3$, which is 7 at $x = 2$. Checked,
    together with what each tensor is:
    """),
    code("""
    assert x.grad.item() == 2 * 2.0 + 3
    print("x: is_leaf", x.is_leaf, "| requires_grad", x.requires_grad,
          "| grad_fn", x.grad_fn)
    print("y: is_leaf", y.is_leaf, "| requires_grad", y.requires_grad,
          "| grad_fn", type(y.grad_fn).__name__)
    """),
    md("""
    ## The graph: `grad_fn` and `next_functions`

    `y.grad_fn` is the last operation that produced `y`. Each node lists, in `next_functions`, the
    nodes that produced its inputs, so following `next_functions` from `y.grad_fn` visits every
    operation back to the leaves. A leaf is reached through an `AccumulateGrad` node: the node
    that adds the arriving gradient into `.grad`.
    """),
    code("""
    x = torch.tensor(2.0, requires_grad=True)
    y = x ** 2 + 3 * x + 1
    node = y.grad_fn
    print(type(node).__name__, "->",
          [type(fn).__name__ for fn, _ in node.next_functions])
    inner = node.next_functions[0][0]
    print(type(inner).__name__, "->",
          [type(fn).__name__ for fn, _ in inner.next_functions])
    """),
    md("""
    The outer `AddBackward0` is `+ 1`; the second entry of its `next_functions` is `None`,
    because the constant `1` needs no gradient. `tensorlens.graph.autograd_graph` does this walk for every node and
    lists each node once; `draw_graph` draws it.

    The figure below shows the backward graph of `y = x**2 + 3*x + 1`: `AddBackward0` at the top
    feeds a second `AddBackward0`, which splits into `PowBackward0` (for `x**2`) and
    `MulBackward0` (for `3*x`); both arrows end at the single orange leaf box `x`, so the two
    gradient contributions meet in `x.grad`.
    """),
    code("""
    graph = autograd_graph(y, names={"x": x})
    print(graph)
    fig = draw_graph(graph, title="backward graph of y = x**2 + 3*x + 1")
    plt.show()
    plt.close(fig)
    """),
    md("""
    The graph also holds memory: the tensors each node needs for its backward formula
    (`PowBackward0` keeps `x`, a matrix product keeps the other matrix). `saved_tensor_bytes`
    adds up those storages. `backward()` frees them once it has used them, which is why a second
    `backward()` through the same graph fails (shown below).
    """),
    code("""
    torch.manual_seed(0)
    w = torch.randn(3, 1, requires_grad=True)
    data = torch.randn(100, 3)
    loss = ((data @ w - torch.randn(100, 1)) ** 2).mean()
    print("bytes held by the graph before backward:", saved_tensor_bytes(loss))
    print("  data:", data.nbytes, "+ residual (100 x 1 floats):", 100 * 4)
    assert saved_tensor_bytes(loss) == data.nbytes + 100 * 4
    loss.backward()
    print("bytes held by the graph after backward: ", saved_tensor_bytes(loss))
    assert saved_tensor_bytes(loss) == 0
    """),
    md("""
    ## `backward` accumulates: zero the gradient between steps

    `backward()` *adds* into `.grad`; it never overwrites. Two backward passes on two fresh
    graphs give twice the gradient:
    """),
    code("""
    x = torch.tensor(2.0, requires_grad=True)
    for _ in range(2):
        y = x ** 2 + 3 * x + 1  # a fresh graph each time
        y.backward()
    print(x.grad)
    assert x.grad.item() == 2 * 7.0
    """),
    md("""
    This is on purpose (gradients of a sum of losses, or of several micro-batches, add up), and it
    is why every training step resets the gradient: `x.grad.zero_()` keeps the tensor and fills it
    with zeros; `x.grad = None` drops it, and the next `backward()` allocates a fresh one.
    Dropping it is what `optimizer.zero_grad()` does by default (last line below).
    """),
    code("""
    x.grad.zero_()
    print("after zero_():", x.grad)
    x.grad = None
    (x ** 2 + 3 * x + 1).backward()
    print("after grad = None and one backward:", x.grad)
    torch.optim.SGD([x], lr=0.1).zero_grad()
    print("after optimizer.zero_grad():", x.grad)
    assert x.grad is None
    """),
    md("""
    Calling `backward()` twice on the *same* graph is a different matter: the saved tensors were
    freed by the first call.
    """),
    code("""
    y = x.exp() * x
    y.backward()
    y.backward()
    """, "raises-exception"),
    md("""
    Pass `retain_graph=True` to the first call when you really need two passes (for instance two
    losses that share a trunk and are backpropagated separately):
    """),
    code("""
    x.grad = None
    y = x.exp() * x
    y.backward(retain_graph=True)
    y.backward()
    # d/dx (x e^x) = e^x (1 + x), twice
    expected = 2 * (x.exp() * (1 + x)).detach()
    assert torch.allclose(x.grad, expected)
    print(x.grad)
    """),
    md("""
    ## Gradients of intermediate tensors: `retain_grad`

    Only leaves keep `.grad`. Reading `.grad` of a computed tensor gives `None` and a warning;
    one of the debugging tips in the `expand` article is to call `retain_grad()` on the
    intermediate you want to inspect, before `backward()`.
    """),
    code("""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.sum().backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        print("h.grad:", h.grad)
    print("warning:", str(caught[0].message).split(". ")[0] + ".")
    """),
    code("""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.retain_grad()
    (h ** 2).sum().backward()
    print("h.grad:", h.grad, "| x.grad:", x.grad)
    assert torch.equal(h.grad, 2 * h.detach())      # d/dh sum(h^2) = 2h
    assert torch.equal(x.grad, 3 * h.grad)          # chain rule through h = 3x
    """),
    md("""
    ## Stopping the recording: `detach`, `no_grad`, `inference_mode`

    Three tools, three scopes:

    - `t.detach()` returns a tensor that shares `t`'s storage but is cut from the graph (no
      `grad_fn`, `requires_grad=False`). Writing into it writes into `t`.
    - `with torch.no_grad():` nothing computed inside is recorded. Use it for parameter updates
      and evaluation.
    - `with torch.inference_mode():` the same, plus tensors created inside are marked as
      inference tensors that autograd refuses to record later. It skips more bookkeeping than
      `no_grad`, so it is the choice for pure inference.
    """),
    code("""
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    d = w.detach()
    print("detach: requires_grad", d.requires_grad, "| grad_fn", d.grad_fn,
          "| same storage",
          d.untyped_storage().data_ptr() == w.untyped_storage().data_ptr())
    assert d.untyped_storage().data_ptr() == w.untyped_storage().data_ptr()

    with torch.no_grad():
        z = w * 2
    print("no_grad: requires_grad", z.requires_grad, "| grad_fn", z.grad_fn)

    with torch.inference_mode():
        r = w * 2
    print("inference_mode: requires_grad", r.requires_grad,
          "| is_inference", r.is_inference())
    """),
    md("""
    An inference tensor cannot enter a graph later, for example as a saved input of a product
    with a tensor that requires grad:
    """),
    code("""
    (r * w).sum()
    """, "raises-exception"),
    md("""
    The message names both ways out: `r.clone()` gives a normal tensor, or use `no_grad` where
    the results will meet autograd again.
    """),
    code("""
    print((r.clone() * w).sum())
    """),
    md("""
    ## The hand-written training loop

    The article fits a linear model by hand (the `@` operator was lost in extraction):
    """),
    code("""
    torch.manual_seed(0)
    # a simple linear regression
    weights = torch.randn(3, 1, requires_grad=True)
    data = torch.randn(100, 3)
    target = torch.randn(100, 1)

    losses = []
    for _ in range(100):
        pred = data @ weights
        loss = ((pred - target) ** 2).mean()
        loss.backward()
        # update by hand (an optimizer does this in practice)
        with torch.no_grad():
            weights -= 0.01 * weights.grad
        weights.grad.zero_()
        losses.append(loss.item())
    print(f"loss: first {losses[0]:.4f}, last {losses[-1]:.4f}")
    print("weights still a leaf:", weights.is_leaf)
    """),
    md("""
    **Verdict: correct, and slow to converge.** The loop works; the loss falls every step.
    The targets here are pure noise, so the best possible fit is the least-squares solution;
    comparing with it shows how far 100 steps at learning rate 0.01 get:
    """),
    code("""
    best = torch.linalg.lstsq(data, target).solution
    best_loss = ((data @ best - target) ** 2).mean().item()
    print(f"least-squares loss {best_loss:.4f}; "
          f"gap after 100 steps {losses[-1] - best_loss:.4f}")
    # decreases at every step
    assert all(b < a for a, b in zip(losses, losses[1:]))
    assert losses[-1] > best_loss
    """),
    md("""
    The figure plots the loss of the hand-written loop over its 100 steps, a curve falling
    steadily from about 8.5 to about 1.03, against a dashed horizontal line at the least-squares
    minimum (about 0.94); the curve is still above the line at the last step.
    """),
    code("""
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.plot(losses, label="gradient descent, lr = 0.01")
    ax.axhline(best_loss, ls="--", color="gray", label="least-squares minimum")
    ax.set_xlabel("step")
    ax.set_ylabel("mean squared error")
    ax.legend()
    plt.show()
    plt.close(fig)
    """),
    md("""
    ## What really happens without `no_grad`

    The article warns that updating outside `torch.no_grad()` makes PyTorch track the update and
    "leak memory". Run it and see. The two natural ways to write the update without `no_grad`
    behave differently, and neither leaks.

    **1. The in-place update** `weights -= ...` fails at once, on the first step:
    """),
    code("""
    torch.manual_seed(0)
    weights = torch.randn(3, 1, requires_grad=True)
    loss = ((data @ weights - target) ** 2).mean()
    loss.backward()
    weights -= 0.01 * weights.grad
    """, "raises-exception"),
    md("""
    A leaf that requires grad may not be changed in place while recording: autograd could not
    tell which value a gradient belongs to.

    **2. Rebinding** `weights = weights - ...` runs, but the new `weights` is a computed tensor,
    not a leaf, so it gets no `.grad`, and the very next line of the loop fails:
    """),
    code("""
    torch.manual_seed(0)
    weights = torch.randn(3, 1, requires_grad=True)
    loss = ((data @ weights - target) ** 2).mean()
    loss.backward()
    weights = weights - 0.01 * weights.grad
    print("is_leaf:", weights.is_leaf,
          "| grad_fn:", type(weights.grad_fn).__name__)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the non-leaf .grad warning shown earlier
        weights.grad.zero_()
    """, "raises-exception"),
    md("""
    So forgetting `no_grad` in this loop gives an error, not a leak. The memory problem the
    article remembers is real, but it comes from somewhere else: **keeping results computed under
    grad mode**. Every such result keeps its whole graph alive, saved tensors included, until it
    is dropped or `backward()` frees them. The classic case is an evaluation loop that adds up
    losses without `no_grad` and without `.item()`. Measured with `saved_tensor_bytes`:
    """),
    code("""
    def evaluate(weights, batches, grad_mode):
        total = 0.0
        with torch.set_grad_enabled(grad_mode):
            for _ in range(batches):
                batch, wanted = torch.randn(100, 3), torch.randn(100, 1)
                total = total + ((batch @ weights - wanted) ** 2).mean()
        return total

    torch.manual_seed(0)
    weights = torch.randn(3, 1, requires_grad=True)
    print("batches | graph nodes | bytes kept by the graph")
    for batches in (1, 10, 50):
        total = evaluate(weights, batches, grad_mode=True)
        print(f"{batches:7d} | {len(autograd_graph(total)):11d} | "
              f"{saved_tensor_bytes(total):8d}")
    kept = saved_tensor_bytes(evaluate(weights, 50, grad_mode=True))
    # every batch and every residual stays alive
    assert kept == 50 * (100 * 3 * 4 + 100 * 4)
    total = evaluate(weights, 50, grad_mode=False)
    print("under no_grad: grad_fn", total.grad_fn,
          "| requires_grad", total.requires_grad)
    """),
    md("""
    Growth is linear: each batch adds its input (1200 bytes) and its residual (400 bytes) to what
    the running total keeps alive. With real activations that is megabytes per batch. Two fixes,
    both standard: evaluate under `torch.no_grad()` (or `inference_mode`), and accumulate Python
    numbers with `loss.item()` instead of tensors.

    ## The usual errors and their real messages

    ### `backward()` on something that does not require grad

    The article's troubleshooting example:
    """),
    code("""
    # wrong
    x = torch.tensor([1.0, 2.0])
    y = x * 2
    y.sum().backward()  # fails: x has requires_grad=False
    """, "raises-exception"),
    md("""
    **Verdict: correct.** The message says the tensor has no `grad_fn`: nothing upstream asked
    for gradients. Both of the article's fixes work:
    """),
    code("""
    # right
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    print(x.grad)
    # or
    x2 = torch.tensor([1.0, 2.0]).requires_grad_()
    (x2 * 2).sum().backward()
    assert torch.equal(x.grad, x2.grad)
    assert torch.equal(x.grad, torch.tensor([2.0, 2.0]))
    """),
    md("""
    ### In-place on a leaf

    The same rule as in the training loop above: a leaf that requires grad cannot be modified in
    place while autograd records. Modify it under `no_grad` (that is what optimizers do).
    """),
    code("""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    a.add_(1)
    """, "raises-exception"),
    code("""
    with torch.no_grad():
        a.add_(1)
    print(a, a.is_leaf)
    """),
    md("""
    ### In-place on a value saved for backward, and version counters

    Every tensor carries a version counter, `t._version`, that each in-place operation
    increments. A node that saved a tensor remembers its version; at backward time a changed
    version means the saved value is gone, and autograd refuses rather than return a wrong
    gradient. `sigmoid` saves its *output* (its derivative is $s(1-s)$):
    """),
    code("""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    s = a.sigmoid()
    print("version before:", s._version)
    s.mul_(2)
    print("version after mul_:", s._version)
    s.sum().backward()
    """, "raises-exception"),
    md("""
    A view shares the counter of its base, so writing through a slice counts too. The fix is an
    out-of-place operation: `s = s * 2` makes a new tensor and leaves the saved one intact.
    """),
    code("""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    s = a.sigmoid()
    s[:1].mul_(1.0)  # through a view, even multiplying by one
    print("base version after writing through a view:", s._version)
    assert s._version == 1

    s = a.sigmoid()
    s = s * 2  # out of place: the saved output is untouched
    s.sum().backward()
    sig = torch.sigmoid(a.detach())
    assert torch.allclose(a.grad, 2 * sig * (1 - sig))
    print(a.grad)
    """),
    md("""
    ### In-place on an expanded tensor

    The `expand` article's first pitfall, run as written:
    """),
    code("""
    x = torch.tensor([[1.0], [2.0]], requires_grad=True)
    y = x.expand(2, 3)
    y += 1  # fails, "because y is a view"
    """, "raises-exception"),
    md("""
    **Verdict: the error is real; the reason is half of the story.** Here the view is of a leaf
    that requires grad, so the leaf rule fires. Without `requires_grad` the same line still fails,
    for a different reason: the three columns of `y` are one memory location each (stride 0), and
    PyTorch refuses to write several results into one location.
    """),
    code("""
    x = torch.tensor([[1.0], [2.0]])
    y = x.expand(2, 3)
    y += 1
    """, "raises-exception"),
    md("""
    The article's fix, `y = y.clone() + 1`, works. The `clone()` is not needed: any
    out-of-place `y + 1` allocates a result of its own, as the second half of the cell shows.
    Either way the gradient flows back through the expand (next section):
    """),
    code("""
    x = torch.tensor([[1.0], [2.0]], requires_grad=True)
    y = x.expand(2, 3)
    y = y.clone() + 1
    y.sum().backward()
    print(x.grad)
    assert torch.equal(x.grad, torch.full((2, 1), 3.0))

    x.grad = None
    y = x.expand(2, 3) + 1  # no clone: the sum gets a storage of its own
    y.sum().backward()
    print("without clone:", y.untyped_storage().nbytes(), "bytes for",
          y.numel(), "floats")
    assert y.untyped_storage().nbytes() == y.numel() * 4
    assert torch.equal(x.grad, torch.full((2, 1), 3.0))
    """),
    md("""
    ## Gradients through broadcasting and `expand`

    `expand` and broadcasting reuse one element in many output positions. In backward, every
    position sends its gradient back to the one element it came from, so the gradient of the
    small tensor is the **sum over the stretched dimensions**. By hand, for
    `c = a + b` with `a` of shape `(3, 1)`, `b` of shape `(1, 4)` and `loss = (c * g).sum()`:
    $\\partial loss / \\partial a_i = \\sum_j g_{ij}$ and
    $\\partial loss / \\partial b_j = \\sum_i g_{ij}$.
    """),
    code("""
    torch.manual_seed(0)
    a = torch.randn(3, 1, requires_grad=True)
    b = torch.randn(1, 4, requires_grad=True)
    g = torch.randn(3, 4)
    ((a + b) * g).sum().backward()

    by_hand_a = torch.stack([sum(g[i, j] for j in range(4))
                             for i in range(3)]).reshape(3, 1)
    by_hand_b = torch.stack([sum(g[i, j] for i in range(3))
                             for j in range(4)]).reshape(1, 4)
    print("a.grad", a.grad.flatten(), "\\nb.grad", b.grad.flatten())
    assert a.grad.shape == a.shape and b.grad.shape == b.shape
    assert torch.allclose(a.grad, by_hand_a) and torch.allclose(b.grad, by_hand_b)
    """),
    md("""
    The `expand` article's "shared memory" tip expands a `(1, 256)` parameter to 32 rows, makes it
    contiguous, builds an Adam optimizer for `base` and backpropagates a sum:
    """),
    code("""
    base = torch.randn(1, 256, requires_grad=True)
    # safe expansion
    expanded = base.expand(32, -1).contiguous()  # explicitly contiguous
    optimizer = torch.optim.Adam([base], lr=1e-3)
    loss = expanded.sum()
    loss.backward()  # the gradient propagates correctly
    print("base.grad: every entry", base.grad.unique().tolist())
    assert torch.equal(base.grad, torch.full((1, 256), 32.0))
    print("bytes: base", base.untyped_storage().nbytes(),
          "| expand view", base.expand(32, -1).untyped_storage().nbytes(),
          "| after contiguous()", expanded.untyped_storage().nbytes())
    """),
    md("""
    **Verdict: the gradient is right (32 = one per row), but the tip works against its title.**
    `contiguous()` turns the free stride-0 view into a real copy: 32 KiB instead of 1 KiB. Without
    it, the expanded tensor is a view of `base`'s 1 KiB and `base.expand(32, -1).sum()` gives the
    same gradient:
    """),
    code("""
    base.grad = None
    view = base.expand(32, -1)
    shared = view.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    view.sum().backward()
    print("view shares base's storage:", shared, "| base.grad: every entry",
          base.grad.unique().tolist())
    assert shared
    assert torch.equal(base.grad, torch.full((1, 256), 32.0))
    """),
    md("""
    Make the expanded tensor contiguous only when a later operation needs it.

    The article's last tip builds expansion out of `as_strided`, for a quantization scale:
    """),
    code("""
    def smart_expand(x, target_shape):
        strides = list(x.stride())
        for i in range(len(strides)):
            if x.size(i) == 1 and target_shape[i] != 1:
                strides[i] = 0  # mark as a broadcast dim
        return torch.as_strided(x, size=target_shape, stride=strides)

    scale = torch.tensor([0.1], requires_grad=True)  # trainable scale
    activations = torch.randn(32, 3, 224, 224)
    scaled = activations * smart_expand(scale, [1, 3, 1, 1])
    """, "raises-exception"),
    md("""
    **Verdict: wrong.** `scale` has one dimension and the target has four; the loop only visits
    the dimensions `scale` has, so `as_strided` receives four sizes and one stride. Broadcasting
    already does what the helper wants, and its gradient is the sum over every stretched
    position, so $\\partial \\,\\mathrm{sum}(\\text{activations} \\cdot s) / \\partial s =
    \\mathrm{sum}(\\text{activations})$:
    """),
    code("""
    scaled = activations * scale.view(1, 1, 1, 1)  # or just `activations * scale`
    scaled.sum().backward()
    print("scale.grad", scale.grad, "| sum of activations", activations.sum())
    assert torch.allclose(scale.grad, activations.sum().reshape(1), rtol=1e-4)
    """),
    md("""
    ## A custom `torch.autograd.Function`

    When you need your own backward rule, subclass `torch.autograd.Function` with two static
    methods. The article's ReLU, with the lost `@`, `=` and `<` restored:
    """),
    code("""
    class MyReLU(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return input.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            grad_input = grad_output.clone()
            grad_input[input < 0] = 0
            return grad_input

    # usage
    torch.manual_seed(0)
    x = torch.randn(5, requires_grad=True)
    y = MyReLU.apply(x)
    y.backward(torch.ones_like(y))
    print(x.grad)
    assert torch.equal(x.grad, (x > 0).float())
    """),
    md("""
    `apply` puts a node of its own in the graph, named after the class, whose backward is the
    method above:
    """),
    code("""
    print(autograd_graph(MyReLU.apply(x).sum(), names={"x": x}))
    """),
    md("""
    **Verdict: correct for every input except exactly 0.** `torch.autograd.gradcheck` compares
    the backward formula with finite differences. It needs double precision: in `float32` the
    finite differences are too coarse, and it says so.
    """),
    code("""
    x64 = torch.randn(5, dtype=torch.double, requires_grad=True)
    print("gradcheck, float64:", torch.autograd.gradcheck(MyReLU.apply, (x64,)))

    x32 = torch.randn(5, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ok = torch.autograd.gradcheck(MyReLU.apply, (x32,), raise_exception=False)
    print("gradcheck, float32:", ok)
    print("warning:", str(caught[0].message).strip())
    """),
    md("""
    At exactly 0, ReLU has no derivative, so any value is a convention. The article's rule
    zeroes only `input < 0`, so at 0 it passes the gradient through (slope 1); `torch.relu`
    uses slope 0 there:
    """),
    code("""
    points = torch.tensor([-1.0, 0.0, 2.0])
    mine = points.clone().requires_grad_()
    MyReLU.apply(mine).sum().backward()
    builtin = points.clone().requires_grad_()
    torch.relu(builtin).sum().backward()
    print("at  ", points.tolist())
    print("MyReLU    ", mine.grad.tolist())
    print("torch.relu", builtin.grad.tolist())
    assert mine.grad[1] == 1.0 and builtin.grad[1] == 0.0
    # i.e. zero where points <= 0
    assert torch.equal(builtin.grad, (points > 0).float())
    """),
    md("""
    `gradcheck` fails for both at 0: the central difference $(f(h) - f(-h)) / 2h$ is 0.5, the
    average of the two slopes, and neither formula returns that. This is a property of the kink,
    not a bug in either implementation. Use `input <= 0` to match PyTorch exactly.
    """),
    code("""
    zero = torch.zeros(1, dtype=torch.double, requires_grad=True)
    print("MyReLU at 0:",
          torch.autograd.gradcheck(MyReLU.apply, (zero,), raise_exception=False))
    print("relu at 0:  ",
          torch.autograd.gradcheck(torch.relu, (zero,), raise_exception=False))
    torch.autograd.gradcheck(MyReLU.apply, (zero,))
    """, "raises-exception"),
    md("""
    Two more rules for custom Functions: `backward` returns one gradient per input of `forward`
    (`None` for inputs that need none), and tensors needed in backward go through
    `ctx.save_for_backward`, so the version-counter check above protects them too.

    ## Check yourself
    """),
    code("""
    tl.Quiz([
        {"question": "`x = torch.tensor(3.0, requires_grad=True)`, then `(x * x).backward()` "
                     "is run twice, each time on a freshly computed `x * x`. What is `x.grad`?",
         "answer": "tensor(12.)", "accept": ["12", "12.0", "tensor(12)"],
         "explain": "Each backward adds 2x = 6 into `.grad`; nothing resets it in between."},
        {"question": "`a = torch.ones(3, 1, requires_grad=True)`; "
                     "`a.expand(3, 5).sum().backward()`. What is `a.grad`?",
         "choices": ["a (3, 1) tensor of ones", "a (3, 1) tensor of fives",
                     "a (3, 5) tensor of ones", "an error: expand is not differentiable"],
         "answer": 1,
         "explain": "Each element of `a` is used 5 times; the gradients of the 5 uses are summed."},
        {"question": "`w = torch.zeros(2, requires_grad=True)`; `w += 1` outside `no_grad`. "
                     "What happens?",
         "choices": ["w becomes [1., 1.] and stays a leaf", "w becomes a non-leaf",
                     "RuntimeError: a leaf Variable that requires grad is being used in an "
                     "in-place operation", "memory slowly leaks"],
         "answer": 2,
         "explain": "In-place changes to a leaf that requires grad are refused while recording."},
        {"question": "Inside `with torch.no_grad():`, `z = w * 2` for a `w` that requires grad. "
                     "What is `z.requires_grad`?",
         "answer": "False",
         "explain": "Nothing computed under no_grad is recorded, so z has no grad_fn."},
    ], title="Predict the result")
    """, "remove-input"),
]


cells += [
    md("""
    ### Exercises

    Each exercise gives a task, a function to complete (the solution is hidden behind a toggle),
    and a check that runs your function on many inputs against autograd itself.

    **1. Reduce a broadcast gradient.** When a tensor of shape `shape` is broadcast to the shape
    of `grad`, autograd sums the incoming gradient back to `shape`: over the leading dims that
    broadcasting added, and over every dim where `shape` has size 1. Write
    `unbroadcast(grad, shape)` that returns that sum (shape exactly `shape`), without calling
    autograd.
    """),
    code('''
    def unbroadcast(grad, shape):
        """Sum `grad` over the dims that broadcasting stretched.

        Gives a tensor of `shape`.
        """
        extra = grad.dim() - len(shape)
        out = grad.sum(dim=tuple(range(extra))) if extra else grad
        stretched = tuple(i for i, n in enumerate(shape)
                          if n == 1 and out.shape[i] != 1)
        return out.sum(dim=stretched, keepdim=True) if stretched else out.clone()
    ''', "solution", "hide-input"),
    code("""
    tl.check("autograd.unbroadcast", unbroadcast)
    """),
    md("""
    **2. ReLU's backward, the PyTorch way.** Write `relu_backward(x, grad_output)` that returns
    the gradient `torch.relu` sends to its input: `grad_output` where `x > 0`, and 0 elsewhere
    (including exactly at 0), without calling autograd.
    """),
    code('''
    def relu_backward(x, grad_output):
        """Gradient of relu at x, times grad_output.

        Slope 0 at x == 0, like torch.relu.
        """
        return torch.where(x > 0, grad_output, torch.zeros_like(grad_output))
    ''', "solution", "hide-input"),
    code("""
    tl.check("autograd.relu_backward", relu_backward)
    """),
    md("""
    **3. The training loop's gradient by hand.** For `loss = ((data @ w - target) ** 2).mean()`
    with `data` of shape `(N, K)`, `w` of shape `(K, 1)` and `target` of shape `(N, 1)`, write
    `mse_grad(data, w, target)` returning `d loss / d w` (shape `(K, 1)`, what `w.grad` holds
    after `loss.backward()`), without `backward` or `torch.autograd`.
    """),
    code('''
    def mse_grad(data, w, target):
        """d loss / d w for loss = mean((data @ w - target) ** 2).

        The result has the shape of w.
        """
        residual = data @ w - target
        return 2.0 / residual.numel() * data.T @ residual
    ''', "solution", "hide-input"),
    code("""
    tl.check("autograd.mse_grad", mse_grad)
    """),
    md("""
    ## Summary

    - A leaf with `requires_grad=True` is where gradients land; everything computed from it has a
      `grad_fn`, and `next_functions` links the nodes back to the leaves.
    - `backward()` adds into `.grad`: reset it each step (`zero_()` or `= None`). It also frees
      the graph's saved tensors, so a second pass needs `retain_graph=True`.
    - Only leaves keep `.grad`; use `retain_grad()` to inspect an intermediate.
    - Update parameters under `torch.no_grad()`. Without it the in-place update raises; the real
      memory trap is keeping tensors computed under grad mode (accumulate `loss.item()`, evaluate
      under `no_grad` / `inference_mode`).
    - In-place changes are checked with version counters: changing a value a node saved raises
      at backward time.
    - Through broadcasting and `expand`, the gradient is summed over the stretched dimensions.
    - Verify a custom `autograd.Function` with `gradcheck` in double precision, away from kinks;
      at a kink, choose the convention on purpose (`torch.relu` uses 0 at 0).
    """),
]


if __name__ == "__main__":
    _check_quiz()
    describe_figure(cells, 'draw_graph(graph',
                    'Backward graph of y = x**2 + 3*x + 1: AddBackward0 feeds a second '
                    'AddBackward0, which splits into PowBackward0 and MulBackward0; both lead to '
                    'the leaf x.')
    describe_figure(cells, 'ax.plot(losses',
                    'Loss of the hand-written training loop over 100 steps, falling from about '
                    '8.5 to about 1.03, above a dashed line at the least-squares minimum of about'
                    ' 0.94.')
    print(write("07-autograd.ipynb", cells))
