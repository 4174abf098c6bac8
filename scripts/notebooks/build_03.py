"""Generate notebooks/03-memory-layout.ipynb (chapter 3: storage, strides, views and copies).

Run: .venv/bin/python scripts/notebooks/build_03.py && make execute (or jupyter execute --inplace).
"""

import torch

from nbbuild import code, md, write


def _check_quiz():
    """The quiz's answers below are what torch computes (so the book never teaches a wrong one)."""
    a = torch.zeros(2, 3, 4)
    assert a.stride() == (12, 4, 1) and a.transpose(0, 2).stride() == (1, 4, 12)
    assert torch.arange(10)[2::3].storage_offset() == 2
    x = torch.arange(12).view(3, 4)
    choices = [x.t(), x[:, ::2], x[[0, 1]], x.unsqueeze(1)]
    shared = [c.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() for c in choices]
    assert shared == [True, True, False, True]
    c = x.t()
    raised = []
    for call in (lambda: c.reshape(12), lambda: c.view(12), lambda: c.contiguous().view(12),
                 lambda: c.view(4, 3, 1)):
        try:
            call()
            raised.append(False)
        except RuntimeError:
            raised.append(True)
    assert raised == [False, True, False, False]


_check_quiz()

cells = [
    md("""
    # Memory layout: storage, strides and views

    A tensor is not a grid of numbers. It is a flat block of memory, the **storage**, plus three
    pieces of bookkeeping that say how to read it as a grid: a **shape**, a **stride** for every
    dimension and an **offset**. Most "reshaping" operations only rewrite that bookkeeping; a few
    copy the data. This chapter makes the difference visible and proves it with assertions.

    **You will be able to**

    - compute where any element of a tensor lives in its storage, from its shape, stride and offset;
    - tell whether an operation returns a *view* (shared storage) or a *copy*, and prove it in code;
    - explain what `is_contiguous()` means, when `view` works on a non-contiguous tensor, and what
      `reshape` and `contiguous()` do instead;
    - recognise stride 0 and overlapping windows, and why writing into them in place is refused or,
      worse, silently wrong.
    """),
    md("""
    ## Storage, shape, stride, offset

    Start with twelve numbers laid out as a 3×4 grid. `untyped_storage()` is the block of bytes
    underneath: 12 elements of 8 bytes (`int64`) each.
    """),
    code("""
    x = torch.arange(12).view(3, 4)
    print(x)
    print("shape  ", tuple(x.shape))
    print("stride ", x.stride())
    print("offset ", x.storage_offset())
    print("storage bytes", x.untyped_storage().nbytes(), "=",
          x.numel(), "elements x", x.element_size(), "bytes")
    """),
    md("""
    The stride says how many storage elements to skip to move one step along a dimension: one step
    down a column skips a whole row (4 elements), one step along a row skips 1. So element `[i, j]`
    lives at storage position `offset + i·stride[0] + j·stride[1]`. Let's check that rule on every
    element, reading the storage directly (`x.flatten()` of a contiguous tensor is its storage order).
    """),
    code("""
    # x is contiguous with offset 0: this is its storage, in order
    storage = x.flatten()
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            position = x.storage_offset() + i * x.stride(0) + j * x.stride(1)
            assert x[i, j] == storage[position]
    print("offset + Σ index·stride finds every element")
    """),
    md("""
    The **stride explorer** draws exactly this: the logical tensor above, its storage below, in the
    same colours. Point at an element to see the arithmetic that finds its storage cell; point at a
    storage cell to see which elements read it. The buttons apply view operations right here in the
    page (no Python needed) and show the expression you built: try `transpose`, then a step slice.
    """),
    code("""
    tl.StrideExplorer(x, label="x")
    """),
    md("""
    `tensorlens.View` is a pure model of the same bookkeeping, with torch's own operation names.
    It agrees with torch (the test suite checks it on hundreds of random chains of operations),
    so you can reason about layouts without allocating anything:
    """),
    code("""
    model = tl.View((3, 4))
    print(model)
    print(model.t())
    print(model.t().storage_indices())
    # x holds 0..11, so its values are its storage positions:
    assert model.t().storage_indices() == x.t().flatten().tolist()
    """),
    md("""
    ## Views share storage

    A **view** is a new tensor object with its own shape, stride and offset, reading the *same*
    storage. The proof is the storage's address: `untyped_storage().data_ptr()` is where the storage
    begins, so two tensors with equal storage addresses share memory. The book's helper
    `shares_storage(a, b)` is exactly that comparison,
    `a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()`. We print only `True` or
    `False`: the addresses themselves change on every run.
    """),
    code("""
    from tensorlens.measure import shares_storage

    views = {
        "x.t()": x.t(),
        "x.transpose(0, 1)": x.transpose(0, 1),
        "x[1]": x[1],
        "x[:, 1]": x[:, 1],
        "x[:, ::2]": x[:, ::2],
        "x.narrow(1, 1, 2)": x.narrow(1, 1, 2),
        "x.unsqueeze(0)": x.unsqueeze(0),
        "x.view(2, 6)": x.view(2, 6),
        "x.diagonal()": x.diagonal(),
        "x[0].expand(3, 4)": x[0].expand(3, 4),
    }
    for name, v in views.items():
        assert shares_storage(v, x), name
        shape, stride = str(tuple(v.shape)), str(v.stride())
        print(f"{name:20} shape={shape:9} stride={stride:8} "
              f"offset={v.storage_offset()}")
    """),
    md("""
    Every one of them reads the original storage; only shape, stride and offset differ. Writing
    through a view therefore changes the original:
    """),
    code("""
    y = x.clone()           # a private copy to play with
    column = y[:, 1]        # a view: stride (4,), offset 1
    column.fill_(-1)
    print(y)
    assert (y[:, 1] == -1).all() and shares_storage(column, y)
    """),
    md("""
    Copies, on the other hand, get storage of their own. Advanced indexing (a list or a mask),
    `clone()`, `contiguous()` on a non-contiguous tensor and arithmetic all allocate:
    """),
    code("""
    copies = {
        "x[[0, 2]]": x[[0, 2]],
        "x[x > 5]": x[x > 5],
        "x.clone()": x.clone(),
        "x.t().contiguous()": x.t().contiguous(),
        "x + 0": x + 0,
    }
    for name, c in copies.items():
        assert not shares_storage(c, x), name
        print(f"{name:20} owns {c.untyped_storage().nbytes()} "
              "bytes of new storage")
    """),
    md("""
    ## The offset

    Slicing off the first row and column does not move any data: it moves the starting point.
    The tensor's own `data_ptr()` is the storage address plus `offset × element_size`.
    """),
    code("""
    corner = x[1:, 2:]
    print(corner)
    print("stride", corner.stride(), "offset", corner.storage_offset())
    assert corner.storage_offset() == 1 * 4 + 2 * 1
    start = x.untyped_storage().data_ptr()          # where the storage begins
    assert corner.data_ptr() == start + corner.storage_offset() * x.element_size()
    tl.StrideExplorer(corner, label="x[1:, 2:]")
    """),
    md("""
    The small view keeps the whole storage alive: `corner` has 4 elements but its storage still
    holds all 12. That matters when you keep a slice of a large tensor, or save one (the chapter on
    saving shows the file size). `clone()` gives the slice storage of its own size.
    """),
    code("""
    print("corner reads", corner.numel() * corner.element_size(),
          "bytes but keeps", corner.untyped_storage().nbytes(), "bytes alive")
    print("corner.clone() keeps", corner.clone().untyped_storage().nbytes(),
          "bytes")
    assert (corner.clone().untyped_storage().nbytes()
            == corner.numel() * corner.element_size())
    """),
    md("""
    ## Contiguous, and what `contiguous()` does

    A tensor is **contiguous** when reading its elements in row-major order walks its storage
    one element at a time: the last stride is 1 and every other stride is the product of the sizes
    to its right (dimensions of size 1 don't matter). A transpose swaps the strides, so it is not:
    """),
    code("""
    xt = x.t()
    print("x.t() stride", xt.stride(), "contiguous:", xt.is_contiguous())
    print("a contiguous", tuple(xt.shape), "tensor has strides",
          torch.empty(xt.shape).stride())
    assert not xt.is_contiguous() and x.is_contiguous()
    """),
    md("""
    `contiguous()` returns the tensor itself when it is already contiguous, and otherwise a **copy**
    laid out in row-major order:
    """),
    code("""
    assert x.contiguous() is x    # nothing to do: the very same object
    xt_c = xt.contiguous()
    assert not shares_storage(xt_c, xt) and xt_c.is_contiguous()
    assert torch.equal(xt_c, xt)  # same values, new layout
    print("x.t().contiguous() stride:", xt_c.stride())
    tl.StrideExplorer(xt, label="x.t()")
    """),
    md("""
    ## `view` versus `reshape`

    `view` never copies: it only computes new strides, and refuses when no strides could describe
    the new shape over the existing storage. Flattening a transpose is the classic case.
    """),
    code("""
    xt.view(12)
    """, "raises-exception"),
    md("""
    "Not contiguous" is not the rule, though. `view` works on a non-contiguous tensor whenever the
    dimensions it merges are laid out back to back, or it only splits dimensions. Take the left
    four columns of a 4×6 tensor: its rows are not adjacent in memory (stride 6 but only 4 used),
    yet splitting each row into 2×2 is fine, while merging rows is not:
    """),
    code("""
    wide = torch.arange(24).view(4, 6)
    left = wide[:, :4]
    print("left: shape", tuple(left.shape), "stride", left.stride(),
          "contiguous:", left.is_contiguous())
    split = left.view(4, 2, 2)
    assert shares_storage(split, wide)
    print("left.view(4, 2, 2) works: stride", split.stride())
    # the model explains the same decision without touching memory:
    print(tl.View.of(left).view(4, 2, 2))
    """),
    code("""
    left.view(16)
    """, "raises-exception"),
    md("""
    `reshape` returns a view when one exists and a copy otherwise. That is convenient, and also the
    catch: after `reshape` you don't know whether writing to the result changes the original.
    """),
    code("""
    r_view = left.reshape(4, 2, 2)
    r_copy = left.reshape(16)
    print("left.reshape(4, 2, 2) shares storage:", shares_storage(r_view, left))
    print("left.reshape(16)      shares storage:", shares_storage(r_copy, left))
    assert shares_storage(r_view, left) and not shares_storage(r_copy, left)
    """),
    md("""
    ### Checking the source article

    The tensor-API article that this book grew from lists these shape operations on a
    `torch.rand(4, 3, 2)`, with a comment on each: `view` changes the shape (the element count must
    stay the same), `transpose(1, 2)` swaps dims 1 and 2, `squeeze()` removes every size-1 dim,
    `unsqueeze(0)` adds a dim in front. It then says that `view` and `reshape` are alike, except
    that `view` needs contiguous memory and raises otherwise, so to be safe you can call
    `contiguous()` first. Run as written:
    """),
    code("""
    tensor = torch.rand(4, 3, 2)
    reshaped = tensor.view(2, 3, 4)
    transposed = tensor.transpose(1, 2)
    squeezed = tensor.squeeze()
    unsqueezed = tensor.unsqueeze(0)
    results = {"reshaped": reshaped, "transposed": transposed,
               "squeezed": squeezed, "unsqueezed": unsqueezed}
    for name, t in results.items():
        print(f"{name:11} {str(tuple(t.shape)):13} stride={t.stride()}")
    """),
    md("""
    Verdict on the four comments: **all right**, and all four results are views of `tensor`.

    - `view(2, 3, 4)` keeps the 24 elements and re-reads the same storage in the new shape. It
      does not move any axis: `permute(2, 1, 0)` has the same shape and different values.
    - `transpose(1, 2)` swaps the sizes and the strides of dims 1 and 2; no data moves.
    - `squeeze()` would remove every size-1 dim, but this tensor has none, so nothing changes.
      Prefer `squeeze(dim)`, which says which dim you expect to be 1.
    - `unsqueeze(0)` puts a size-1 dim in front.
    """),
    code("""
    assert all(shares_storage(t, tensor) for t in results.values())
    assert transposed.shape == (4, 2, 3) and transposed.stride() == (6, 1, 2)
    assert squeezed.shape == tensor.shape and unsqueezed.shape == (1, 4, 3, 2)
    print("view(2, 3, 4) equals permute(2, 1, 0):",
          torch.equal(reshaped, tensor.permute(2, 1, 0)))
    assert not torch.equal(reshaped, tensor.permute(2, 1, 0))
    """),
    md("""
    The caution about `view` is **half right**. Flattening the last two dims of `transposed`
    does raise:
    """),
    code("""
    transposed.view(4, 6)
    """, "raises-exception"),
    md("""
    But "contiguous or error" is not the rule: we saw `left.view(4, 2, 2)` succeed on a
    non-contiguous tensor. And the advice to call `contiguous()` first works, by **always copying**
    a non-contiguous tensor, even when a view was possible; the result no longer shares memory
    with the original. `reshape` copies only when it has to:
    """),
    code("""
    safe = transposed.contiguous().view(4, 6)      # the article's advice: a copy
    assert torch.equal(safe, transposed.reshape(4, 6))
    assert not shares_storage(safe, tensor)
    # on `left` from above a view exists, yet contiguous() still copies;
    # reshape does not
    print("left.contiguous().view(4, 2, 2) shares storage:",
          shares_storage(left.contiguous().view(4, 2, 2), left))
    print("left.reshape(4, 2, 2) shares storage:          ",
          shares_storage(left.reshape(4, 2, 2), left))
    assert shares_storage(left.reshape(4, 2, 2), left)
    assert not shares_storage(left.contiguous().view(4, 2, 2), left)
    """),
    md("""
    The `expand`/`repeat` article checks "view or copy?" with `tensor.storage().data_ptr()`.
    Written that way on current PyTorch, it still works but warns that `TypedStorage` is deprecated
    (the article's lines are unchanged below; the `with` block only collects the warning so it can
    be printed readably):
    """),
    code("""
    import textwrap
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        base = torch.randn(1, 3, 224, 224)
        expanded = base.expand(32, -1, -1, -1)
        print(expanded.storage().data_ptr() == base.storage().data_ptr())
        repeated = base.repeat(32, 1, 1, 1)
        print(repeated.storage().data_ptr() == base.storage().data_ptr())
    print(textwrap.fill(f"{caught[0].category.__name__}: {caught[0].message}", 90))
    """),
    md("""
    The conclusions are right (`expand` is a view, `repeat` a copy); the current spelling is
    `untyped_storage()`, and the byte counts tell the memory story:
    """),
    code("""
    assert shares_storage(expanded, base) and not shares_storage(repeated, base)
    for name, t in [("base", base), ("expanded", expanded),
                    ("repeated", repeated)]:
        nbytes = t.untyped_storage().nbytes()
        print(f"{name:9} shape={str(tuple(t.shape)):17} "
              f"storage={nbytes:>10,} bytes")
    assert expanded.untyped_storage().nbytes() == base.untyped_storage().nbytes()
    assert (repeated.untyped_storage().nbytes()
            == 32 * base.untyped_storage().nbytes())
    """),
    md("""
    Comparing storage addresses answers "same storage?". Comparing `x.data_ptr()` (the address of
    the *first element*) answers a different question and can mislead: a view with an offset has a
    different `data_ptr()` yet shares storage.
    """),
    code("""
    print("x[1].data_ptr() == x.data_ptr():", x[1].data_ptr() == x.data_ptr())
    print("same storage:", shares_storage(x[1], x))
    """),
    md("""
    ## Stride 0 and overlapping views

    `expand` makes a size-1 dimension longer by giving it stride 0: every position along it reads
    the same element. Point at a storage cell in the explorer below: three elements read each cell.
    """),
    code("""
    row = torch.tensor([10, 20, 30, 40])
    tiled = row.expand(3, 4)
    print("stride", tiled.stride(), "storage elements",
          tiled.untyped_storage().nbytes() // tiled.element_size())
    print("overlap (model):", tl.View.of(tiled).has_overlap())
    assert tiled.stride() == (0, 1) and shares_storage(tiled, row)
    tl.StrideExplorer(tiled, label="row.expand(3, 4)")
    """),
    md("""
    `unfold` makes sliding windows the same way: windows of 4 with step 2 over 10 numbers share
    the elements where they overlap, at no memory cost.
    """),
    code("""
    signal = torch.arange(10.)
    windows = signal.unfold(0, 4, 2)
    print(windows)
    print("stride", windows.stride(),
          "overlap:", tl.View.of(windows).has_overlap())
    assert shares_storage(windows, signal)
    tl.StrideExplorer(windows, label="signal.unfold(0, 4, 2)")
    """),
    md("""
    When several elements share one memory cell, an in-place write has no single right answer:
    one cell would have to hold several results. For stride 0 PyTorch sees this cheaply and
    refuses:
    """),
    code("""
    tiled.add_(1)
    """, "raises-exception"),
    md("""
    Other overlapping views, such as the `unfold` windows, are **not** detected, and the write goes
    through. Here each shared cell was updated once for
    every window that reads it: the middle cells got +2, not +1, and no error or warning said so.
    """),
    code("""
    signal_copy = signal.clone()
    signal_copy.unfold(0, 4, 2).add_(1)        # no error
    print(signal_copy)
    # windows reading each cell
    readers = torch.tensor([1, 1, 2, 2, 2, 2, 2, 2, 1, 1])
    assert torch.equal(signal_copy, signal + readers)
    """),
    md("""
    So never write in place into an overlapping view; `clone()` it first, or compute out of place.
    """),
    md("""
    `as_strided` is the general tool behind all of these: you give the shape, strides and offset
    yourself. PyTorch checks only that the view stays inside the storage, not that it means what
    you intended, so prefer the named operations (`unfold`, `expand`, `diagonal`) and check an
    `as_strided` view against one of them:
    """),
    code("""
    by_hand = signal.as_strided(size=(4, 4), stride=(2, 1))
    assert torch.equal(by_hand, windows) and shares_storage(by_hand, signal)
    print(tl.View((10,)).as_strided((4, 4), (2, 1)) == tl.View.of(windows))
    # a typo: accepted, but not windows
    swapped = signal.as_strided(size=(4, 4), stride=(1, 2))
    assert not torch.equal(swapped, windows)
    """),
    md("""
    The one thing checked is the storage bound: strides `(3, 1)` would reach position
    3·3 + 3·1 = 12, past the end of a 10-element storage (torch's message counts in bytes:
    13 elements of 4 bytes needed, 40 bytes there).
    """),
    code("""
    signal.as_strided(size=(4, 4), stride=(3, 1))
    """, "raises-exception"),
    md("""
    ## Check yourself

    Predict first, then check your answers (they are checked in the page; no Python needed).
    """),
    code("""
    tl.Quiz([
        {"question": "`a = torch.zeros(2, 3, 4)`. What is `a.stride()`?",
         "answer": "(12, 4, 1)",
         "explain": "Contiguous strides: each is the product of the sizes to its right: 3·4, 4, 1."},
        {"question": "What is `a.transpose(0, 2).stride()`?",
         "answer": "(1, 4, 12)",
         "explain": "transpose swaps the sizes and the strides of the two dims; no data moves."},
        {"question": "`b = torch.arange(10)[2::3]`. What is `b.storage_offset()`?",
         "answer": "2",
         "explain": "The slice starts at element 2; the step becomes the stride (3)."},
        {"question": "With `x = torch.arange(12).view(3, 4)`, which of these returns a copy?",
         "choices": ["x.t()", "x[:, ::2]", "x[[0, 1]]", "x.unsqueeze(1)"],
         "answer": 2,
         "explain": "Indexing with a list (advanced indexing) gathers elements into new storage."},
        {"question": "`c = torch.arange(12).view(3, 4).t()`. Which call raises?",
         "choices": ["c.reshape(12)", "c.view(12)", "c.contiguous().view(12)", "c.view(4, 3, 1)"],
         "answer": 1,
         "explain": "Merging the two dims of a transpose needs a copy; view never copies, so it raises."},
    ])
    """),
    md("""
    Now write code. Each function below is checked against many generated inputs (empty and
    size-1 dimensions, non-contiguous inputs, several dtypes), strictly: the shape, dtype and values
    must match exactly, and where the task says "view", your result must share storage with the input.
    """),
    md("""
    **1. Transpose without copying.** Return the transpose of a 2-D tensor `x` as a view of `x`.
    """),
    code('''
    def transpose_view(x):
        """Return x transposed (x[i, j] becomes out[j, i]), sharing x's storage."""
        return x.t()
    ''', "solution", "hide-input"),
    code("""
    tl.check("memory_layout.transpose_view", transpose_view)
    """),
    md("""
    **2. Sliding windows without copies.** Write `sliding_windows(x, k)` that returns every window
    of `k` consecutive elements of the 1-D tensor `x`, one per row: shape `(len(x) - k + 1, k)` with
    `out[i, j] == x[i + j]`. It must be a view of `x`, and may not use Python loops.
    """),
    code('''
    def sliding_windows(x, k):
        """Every window of k consecutive elements of x, one per row, as a view
        of x."""
        return x.unfold(0, k, 1)
    ''', "solution", "hide-input"),
    code("""
    tl.check("memory_layout.sliding_windows", sliding_windows)
    """),
    md("""
    **3. A column, for free.** Write `as_column(x)` that turns the 1-D tensor `x` of length `n`
    into a column of shape `(n, 1)`, so that `matrix - as_column(x)` subtracts `x[i]` from row `i`
    (chapter 4 explains why the column shape matters). It must be a view of `x`.
    """),
    code('''
    def as_column(x):
        """x as an (n, 1) column that shares x's storage."""
        return x[:, None]
    ''', "solution", "hide-input"),
    code("""
    tl.check("memory_layout.as_column", as_column)
    """),
    md("""
    **4. Where does an element live?** Write `storage_position(x, index)` that returns, as an `int`,
    the storage position of `x[index]` (one int per dimension; negative indices count from the end),
    computed from the offset and strides of `x`, without touching its storage.
    """),
    code('''
    def storage_position(x, index):
        """The storage position of x[index]: offset + sum of index * stride."""
        wrapped = [i % size for i, size in zip(index, x.shape)]
        return x.storage_offset() + sum(i * s for i, s in zip(wrapped, x.stride()))
    ''', "solution", "hide-input"),
    code("""
    tl.check("memory_layout.storage_position", storage_position)
    """),
    md("""
    ## Summary

    - A tensor = storage + shape + stride + offset. Element `i` lives at `offset + Σ i[d]·stride[d]`.
    - Views (transpose, basic slicing, `narrow`, `select`, `unsqueeze`, `expand`, `diagonal`,
      `unfold`, successful `view`) share storage; prove it with
      `a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()`, not with `tensor.storage()`
      (deprecated) or `data_ptr()` (the first element's address, which moves with the offset).
    - Advanced indexing, `clone()`, arithmetic and `contiguous()` of a non-contiguous tensor copy.
    - `view` never copies and raises when it would have to; `reshape` copies only when it must;
      `contiguous().view()` always copies a non-contiguous tensor.
    - A small view keeps its whole storage alive; `clone()` it to let the rest go.
    - Stride 0 (`expand`) and overlapping windows (`unfold`) let many elements share one cell: free in
      memory, but never write into them in place. Stride 0 is refused; other overlaps are not
      checked, and the write silently updates shared cells several times.
    """),
]

if __name__ == "__main__":
    print(write("03-memory-layout.ipynb", cells))
