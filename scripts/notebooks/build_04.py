"""Generate notebooks/04-broadcasting.ipynb (chapter 4: broadcasting).

Run: .venv/bin/python scripts/notebooks/build_04.py, then
cd notebooks && ../.venv/bin/jupyter execute --inplace 04-broadcasting.ipynb.
The quiz answers below are checked against torch before the notebook is written.
"""

import torch

from nbbuild import code, md, write

# (question, expression whose result the answer states, answer) for the free-text quiz items.
QUIZ_SHAPES = [
    ("torch.zeros(3, 1) + torch.zeros(1, 5)", "(3, 5)"),
    ("torch.zeros(8) * torch.zeros(8, 1)", "(8, 8)"),
    ("torch.zeros(5, 1, 4) - torch.zeros(3, 1)", "(5, 3, 4)"),
    ("torch.zeros(2, 1, 3, 4) @ torch.zeros(5, 4, 6)", "(2, 5, 3, 6)"),
]
QUIZ_STRIDE = ("torch.broadcast_to(torch.zeros(3), (2, 3)).stride()", "(0, 1)")


def _check_quiz():
    """Every quiz answer is what torch computes (so the book never teaches a wrong answer)."""
    for expression, answer in QUIZ_SHAPES:
        assert str(tuple(eval(expression).shape)) == answer, expression  # noqa: S307
    expression, answer = QUIZ_STRIDE
    assert str(eval(expression)) == answer, expression  # noqa: S307
    try:
        torch.zeros(2, 3) + torch.zeros(3, 2)
    except RuntimeError:
        pass
    else:
        raise AssertionError("(2, 3) + (3, 2) should raise")
    x = torch.zeros(3, 1)
    try:
        x += torch.ones(3, 4)
    except RuntimeError:
        pass
    else:
        raise AssertionError("in-place growth should raise")


def _shape_question(expression, answer, explain):
    return (f'        {{"question": "Shape of `{expression}`?",\n'
            f'         "answer": "{answer}",\n'
            f'         "explain": "{explain}"}},\n')


_check_quiz()

QUIZ = (
    "tl.Quiz([\n"
    + _shape_question(*QUIZ_SHAPES[0], "Both size-1 dims stretch: 3 rows from the left operand, "
                      "5 columns from the right one.")
    + _shape_question(*QUIZ_SHAPES[1], "`(8,)` is read as `(1, 8)`; against `(8, 1)` both dims "
                      "stretch. The silent `[B] * [B, 1]` trap.")
    + _shape_question(*QUIZ_SHAPES[2], "Right-aligned: `(5, 1, 4)` and `(_, 3, 1)`. Each column "
                      "has one size that is not 1, or equal sizes.")
    + '''        {"question": "What does `torch.zeros(2, 3) + torch.zeros(3, 2)` give?",
         "choices": ["shape (2, 3)", "shape (3, 2)", "shape (3, 3)", "a RuntimeError"],
         "answer": 3,
         "explain": "The last dims are 3 and 2: different, and neither is 1."},
        {"question": "`x = torch.zeros(3, 1)`, then `x += torch.ones(3, 4)`. What happens?",
         "choices": ["x becomes shape (3, 4)", "a RuntimeError", "x stays (3, 1) and holds row sums"],
         "answer": 1,
         "explain": "An in-place op writes into x, whose shape cannot grow to the broadcast shape."},
'''
    + _shape_question(*QUIZ_SHAPES[3], "Only the batch dims broadcast: `(2, 1)` with `(5,)` "
                      "gives `(2, 5)`; then `(3, 4) @ (4, 6)` gives `(3, 6)`.")
    + f'''        {{"question": "What is `{QUIZ_STRIDE[0]}`?",
         "answer": "{QUIZ_STRIDE[1]}",
         "explain": "The new leading dim reuses the same 3 numbers: stride 0. Nothing is copied."}},
    ])'''
)

cells = [
    md("""
    # Broadcasting

    Add a column of 3 numbers to a row of 5 and PyTorch hands you a 3×5 table, without being told
    how. That is **broadcasting**: a fixed rule that lets operands of different shapes meet, by
    pretending size-1 dims are repeated and that missing dims on the left are there with size 1.
    No memory is spent on the pretend copies. The rule is short, but it applies silently, so a
    wrong shape can produce a wrong result instead of an error. This chapter teaches the rule, shows
    where it applies, and shows the bugs it lets through.

    **You will be able to**

    - predict the result shape of any element-wise operation, or the exact dim where it fails;
    - explain why broadcasting costs no memory (stride 0) and use `broadcast_shapes`,
      `broadcast_to` and `broadcast_tensors`;
    - say which operations broadcast (arithmetic, comparisons, `where`, in-place ops with a limit,
      the batch dims of `matmul`);
    - spot and prevent the silent bugs, such as `[B] * [B, 1]` becoming `[B, B]`.
    """),
    md("""
    ## The rule, built up from `[3, 1] + [1, 5]`

    Take a column `a` of shape `(3, 1)` and a row `b` of shape `(1, 5)`.
    """),
    code("""
    a = torch.tensor([[0], [10], [20]])        # shape (3, 1)
    b = torch.tensor([[1, 2, 3, 4, 5]])        # shape (1, 5)
    c = a + b
    print(c)
    print(tuple(c.shape))
    """),
    md("""
    Every `c[i, j]` is `a[i, 0] + b[0, j]`: the single column of `a` was used for all 5 columns,
    and the single row of `b` for all 3 rows. Spelled out with explicit copies, the same sum reads:
    """),
    code("""
    a_tiled = a.repeat(1, 5)      # (3, 5): the column copied 5 times
    b_tiled = b.repeat(3, 1)      # (3, 5): the row copied 3 times
    assert torch.equal(c, a_tiled + b_tiled)
    for i in range(3):
        for j in range(5):
            assert c[i, j] == a[i, 0] + b[0, j]
    print("a + b == a.repeat(1, 5) + b.repeat(3, 1), element by element")
    """),
    md("""
    So broadcasting behaves as if the size-1 dims were repeated. (This is the example the
    broadcasting article behind chapters 4-6 opens with; its claim that `[3, 1]` plus `[1, 5]` gives
    `[3, 5]` is right, as the assertions show.) The rule, for any number of operands:

    1. **Align the shapes from the right.** The last dims are compared with each other, then the
       ones before them, and so on.
    2. **Prepend missing dims as size 1.** A shorter shape is padded on the left: `(5,)` against
       `(3, 5)` is treated as `(1, 5)`.
    3. **In each position the sizes must be equal, or one of them must be 1.** A 1 **stretches** to
       the other size (even to 0). Anything else is an error.

    The result has, in each position, the size that is not 1 (or 1 if all are). `tl.explain_broadcast`
    applies the rule step by step and prints it as a table: `1->5` is a stretched dim, `(1)->3` a
    prepended one.
    """),
    code("""
    print(tl.explain_broadcast(a.shape, b.shape))
    print()
    print(tl.explain_broadcast((3, 4), (4,)))
    """),
    md("""
    The **broadcast explorer** draws the same thing. Each operand is a row, right-aligned, one
    column per dim of the result: blue cells are **kept**, amber striped cells **stretched** (a
    size 1 used for every index, stride 0), dashed violet cells **prepended** (a dim the operand does
    not have). Under each cell is the stride the operand's broadcast view has in that dim.

    Edit the shapes in the boxes (try `3, 4` and `4`, then `4, 5`), add a third operand, or remove
    one: the widget applies the rule in your browser, with no Python running, and says exactly
    which dim and sizes clash when the shapes do not broadcast.
    """),
    code("""
    tl.BroadcastExplorer(a, b, names=["a", "b"])
    """),
    md("""
    Two sizes meet only when they are equal or one of them is 1. Two different sizes, neither of
    them 1, can never meet (a 0 against a 2 fails too). That is the only way broadcasting fails:
    """),
    code("""
    torch.zeros(3, 4) + torch.zeros(4, 5)
    """, "raises-exception"),
    md("""
    torch counts the dim in its message from the left of the *result* (dim 1 of a 2-D result is the
    last one). The explorer names both numberings. The same pair of shapes in the widget:
    """),
    code("""
    tl.BroadcastExplorer((3, 4), (4, 5))
    """),
    md("""
    A few consequences of the rule that are easy to get wrong, each checked against
    `torch.broadcast_shapes` (which applies the rule to shapes alone, without making tensors):

    - a 0-d tensor (a scalar) broadcasts with anything;
    - a size-1 dim stretches to size 0 (the result is empty), but a size-2 dim cannot shrink to 0;
    - the rule never looks at which operand is "bigger": both can stretch, in different dims.
    """),
    code("""
    assert torch.broadcast_shapes((), (2, 3)) == (2, 3)
    assert torch.broadcast_shapes((1,), (0,)) == (0,)
    assert torch.broadcast_shapes((5, 1, 3), (4, 1)) == (5, 4, 3)
    assert torch.broadcast_shapes((2, 1), (1, 3), (1, 1, 1)) == (1, 2, 3)
    for shapes in [((), (2, 3)), ((1,), (0,)), ((5, 1, 3), (4, 1)),
                   ((2, 1), (1, 3), (1, 1, 1))]:
        assert (tl.explain_broadcast(*shapes).result
                == torch.broadcast_shapes(*shapes))
    print("the rule, tensorlens and torch agree")
    """),
    code("""
    torch.broadcast_shapes((2,), (0,))
    """, "raises-exception"),
    md("""
    ## Stretching costs nothing: stride 0

    Broadcasting never materializes the repeated copies. `torch.broadcast_to(t, shape)` shows what
    an operand *looks like* after stretching, and it is a view: the same storage, with **stride 0**
    in every stretched or prepended dim. Moving along such a dim does not move in memory, so every
    index along it reads the same element.
    """),
    code("""
    col = torch.tensor([[0.1], [0.2], [0.3]])       # (3, 1)
    # prepend a dim of 2, stretch 1 -> 4
    wide = torch.broadcast_to(col, (2, 3, 4))
    print(wide.shape, wide.stride())
    # a view
    assert (wide.untyped_storage().data_ptr()
            == col.untyped_storage().data_ptr())
    # the prepended and stretched dims
    assert wide.stride(0) == 0 and wide.stride(2) == 0
    print("storage bytes:", wide.untyped_storage().nbytes(),
          "for", wide.numel(), "elements of", wide.element_size(), "bytes")
    """),
    md("""
    The stride explorer from chapter 3 draws that view: 24 logical elements above, the 3 numbers
    of storage below. Point at a storage cell to see the 8 elements that all read it.
    """),
    code("""
    tl.StrideExplorer(wide, label="wide")
    """),
    md("""
    `torch.broadcast_tensors(*tensors)` stretches several tensors to their common shape at once;
    each result is a view of its input. Adding the two stretched views gives exactly `a + b`:
    this is the picture to keep in mind for any element-wise operation.
    """),
    code("""
    a_view, b_view = torch.broadcast_tensors(a, b)
    print(a_view.shape, a_view.stride(), "|", b_view.shape, b_view.stride())
    assert a_view.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
    assert b_view.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    assert a_view.stride() == (1, 0) and b_view.stride() == (0, 1)
    assert torch.equal(a_view + b_view, a + b)
    """),
    md("""
    That article follows its opening example with the explicit form, `expand` (the topic of
    chapter 5). Run as written (the extracted text lost its `=`), it is
    right: `expand(3, 4)` stretches the size-1 column to 4, as broadcasting would, and copies nothing.
    """),
    code("""
    weights = torch.tensor([[0.1], [0.2], [0.3]])  # shape [3,1]
    expanded = weights.expand(3, 4)  # target shape [3,4]
    print(expanded)
    """),
    code("""
    assert torch.equal(expanded, torch.broadcast_to(weights, (3, 4)))
    assert expanded.stride() == (1, 0)
    assert (expanded.untyped_storage().data_ptr()
            == weights.untyped_storage().data_ptr())
    """),
    md("""
    It also says a convolution bias of shape `[C, 1, 1]` can be expanded to `[N, C, H, W]`. True,
    and broadcasting does it without asking: `C` lines up with the channel dim, the two 1s stretch
    over height and width, and `N` is prepended.
    """),
    code("""
    N, C, H, W = 2, 3, 4, 5
    images = torch.arange(N * C * H * W, dtype=torch.float32).reshape(N, C, H, W)
    bias = torch.tensor([100., 200., 300.]).reshape(C, 1, 1)
    print(tl.explain_broadcast(images.shape, bias.shape))
    out = images + bias
    assert torch.equal(out, images + bias.expand(N, C, H, W))
    # channel 1: +200
    assert torch.equal(out[:, 1] - images[:, 1], torch.full((N, H, W), 200.))
    """),
    md("""
    A broadcast view is for reading. Writing into it would have to store several different values
    in one memory cell, so in-place operations on it are refused:
    """),
    code("""
    torch.broadcast_to(torch.tensor([1., 2., 3.]), (2, 3)).add_(1)
    """, "raises-exception"),
    md("""
    ## Where broadcasting applies

    Every element-wise operation with two or more tensor operands broadcasts: arithmetic (`+ - * /
    ** %`), comparisons (`< <= == != > >=`), logical and bitwise ops, `torch.maximum` /
    `torch.minimum`, `torch.where`, and many more. A Python number is a 0-d operand. A few of them,
    each given a `(2, 1)` and a `(3,)` operand:
    """),
    code("""
    # (2, 1) and (3,)
    col2, row3 = torch.tensor([[1], [2]]), torch.tensor([0, 1, 2])
    results = {"col2 % (row3 + 1)": col2 % (row3 + 1),
               "col2 & row3": col2 & row3,
               "torch.maximum(col2, row3)": torch.maximum(col2, row3),
               "torch.logical_and(col2, row3)": torch.logical_and(col2, row3)}
    for name, r in results.items():
        print(f"{name:30} -> {tuple(r.shape)}")
        assert r.shape == (2, 3)
    # the number acts as a 0-d operand: no new dims
    assert (col2 * 10).shape == (2, 1)
    """),
    md("""
    **Comparisons** give a bool tensor of the broadcast shape. Comparing each row of `scores` with
    its own threshold needs the thresholds as a column:
    """),
    code("""
    scores = torch.tensor([[0.1, 0.7, 0.4],
                           [0.9, 0.2, 0.6]])            # (2, 3)
    thresholds = torch.tensor([0.5, 0.3])               # one per row: (2,)
    above = scores > thresholds[:, None]                # (2, 3) vs (2, 1)
    print(above)
    assert above.dtype == torch.bool and above.shape == (2, 3)
    """),
    md("""
    **`torch.where(cond, x, y)`** broadcasts all three arguments together. Here a per-row mask
    `(2, 1)`, a per-column value `(3,)` and the scalar 0 meet in a `(2, 3)` result:
    """),
    code("""
    keep_row = torch.tensor([[True], [False]])          # (2, 1)
    col_value = torch.tensor([1., 2., 3.])              # (3,)
    picked = torch.where(keep_row, col_value, 0.)
    print(picked)
    print(tl.explain_broadcast(keep_row.shape, col_value.shape, ()))
    """),
    md("""
    ## In-place operations: the left side cannot grow

    `x += y`, `x.add_(y)`, `x.mul_(y)`, ... write the result into `x`. The right side may broadcast
    to the shape of `x`, but the result must *be* the shape of `x`: `x` has no room to grow.
    """),
    code("""
    x = torch.zeros(3, 5)
    x += torch.tensor([1., 2., 3., 4., 5.])      # (5,) stretches to (3, 5): fine
    x.mul_(torch.tensor([[1.], [10.], [100.]]))  # (3, 1) stretches to (3, 5): fine
    print(x)
    """),
    code("""
    x = torch.zeros(3, 1)
    x += torch.ones(1, 5)        # the broadcast shape is (3, 5), but x is (3, 1)
    """, "raises-exception"),
    md("""
    The out-of-place form builds a new tensor of the broadcast shape, so it works (and `x = x + y`
    rebinds the name to that new tensor):
    """),
    code("""
    x = torch.zeros(3, 1)
    y = x + torch.ones(1, 5)
    print(tuple(x.shape), "->", tuple(y.shape))
    """),
    md("""
    ## The silent bugs

    Broadcasting raises only when two sizes differ and neither is 1. When shapes are merely *not
    what you meant*, it often succeeds, and the bug shows up later as a wrong number, if at all.

    **`[B]` with `[B, 1]` gives `[B, B]`.** A model's output often has shape `(B, 1)` (a linear
    layer with one output), while the targets have shape `(B,)`. Their difference is a `(B, B)`
    table of every prediction minus every target, and its mean is a perfectly finite, wrong loss:
    """),
    code("""
    B = 4
    # (B, 1), e.g. from nn.Linear(d, 1)
    pred = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
    # (B,): the predictions are perfect
    target = torch.tensor([1.0, 2.0, 3.0, 4.0])
    diff = pred - target
    print("diff shape:", tuple(diff.shape))
    print("loss with the bug:", (diff ** 2).mean().item())
    print("loss, shapes fixed:", ((pred.squeeze(1) - target) ** 2).mean().item())
    """),
    md("""
    The explorer shows where the extra dim comes from: `(4,)` is read as `(1, 4)`, so each operand
    stretches in the dim the other one owns.
    """),
    code("""
    tl.BroadcastExplorer(pred, target, names=["pred", "target"])
    """),
    md("""
    `torch.nn.functional.mse_loss` notices this particular case and warns, but still returns the
    wrong value. The loss computed by hand above gave no warning at all:
    """),
    code("""
    import textwrap
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loss = torch.nn.functional.mse_loss(pred, target)
    print(loss.item())
    print(textwrap.fill(f"{caught[0].category.__name__}: {caught[0].message}", 90))
    """),
    md("""
    **A reduction that drops a dim.** `x.mean(dim=1)` has shape `(n,)`, which lines up with the
    *columns* of an `(n, m)` matrix, not its rows. For a square matrix nothing fails:
    """),
    code("""
    m = torch.tensor([[1., 2., 3.],
                      [4., 6., 8.],
                      [0., 0., 9.]])
    # (3, 3) - (3,): subtracts row means from columns
    wrong = m - m.mean(dim=1)
    right = m - m.mean(dim=1, keepdim=True)   # (3, 3) - (3, 1): one mean per row
    print(wrong.sum(dim=1))                   # centred rows would sum to 0
    print(right.sum(dim=1))
    assert torch.allclose(right.sum(dim=1), torch.zeros(3))
    assert not torch.allclose(wrong.sum(dim=1), torch.zeros(3))
    """),
    md("""
    **How to catch them.** Broadcasting is a feature, so the safeguard is to state the shapes you
    expect where they matter, and let a check fail loudly:

    - assert shapes at the boundaries of your functions (`assert pred.shape == target.shape`);
    - reduce with `keepdim=True` when the result will be combined with the input;
    - add dims explicitly (`t[:, None]`, `unsqueeze`) rather than relying on prepending, so the
      alignment is visible in the code;
    - where a result shape is known in advance, check it with `torch.broadcast_shapes` before
      computing.
    """),
    code('''
    def mse(pred, target):
        """Mean squared error; refuses operands of different shapes
        instead of broadcasting."""
        assert pred.shape == target.shape, (
            f"pred {tuple(pred.shape)} vs target {tuple(target.shape)}")
        return ((pred - target) ** 2).mean()

    print(mse(pred.squeeze(1), target).item())
    '''),
    code("""
    mse(pred, target)
    """, "raises-exception"),
    md("""
    ## `matmul` broadcasts its batch dims only

    `a @ b` (`torch.matmul`) treats the **last two** dims of each operand as matrices, `(n, k) @ (k,
    m) -> (n, m)`, and the dims before them as a **batch**. Only the batch dims broadcast, with the
    same rule as above; the matrix dims follow the matrix rule (inner sizes equal), not the
    broadcasting rule.
    """),
    code("""
    left = torch.zeros(2, 1, 3, 4)     # batch (2, 1), matrices 3x4
    right = torch.zeros(5, 4, 6)       # batch (5,),   matrices 4x6
    batch = torch.broadcast_shapes(left.shape[:-2], right.shape[:-2])
    out = left @ right
    print(tuple(batch), "+", (3, 6), "->", tuple(out.shape))
    assert out.shape == batch + (3, 6)
    """),
    md("""
    Element-wise operations and `matmul` disagree about the same two shapes. `(3, 4)` and `(4, 5)`
    cannot be added, but they are a valid matrix product; `(3, 4)` and `(3, 4)` can be added, but
    not multiplied as matrices:
    """),
    code("""
    p, q = torch.ones(3, 4), torch.ones(4, 5)
    print("p @ q:", tuple((p @ q).shape))
    print("p * p:", tuple((p * p).shape))
    """),
    code("""
    p @ p
    """, "raises-exception"),
    md("""
    Batch dims that clash raise the broadcasting error, counted over the batch dims:
    """),
    code("""
    torch.zeros(2, 3, 4) @ torch.zeros(3, 4, 6)
    """, "raises-exception"),
    md("""
    A 1-D operand is the exception: `matmul` prepends a dim to a 1-D left operand (or appends one
    to a 1-D right operand), multiplies, then removes that dim again.
    """),
    code("""
    v = torch.ones(4)
    # (4,) -> (1, 4); (2, 1, 5) -> (2, 5)
    print(tuple((v @ torch.ones(2, 4, 5)).shape))
    # (4,) -> (4, 1); (2, 3, 1) -> (2, 3)
    print(tuple((torch.ones(2, 3, 4) @ v).shape))
    """),
    md("""
    ## An article's "shape mismatch" fix, run as written

    The tensor tutorial that chapter 1 follows has a troubleshooting section on shape mismatches.
    Its example, with the operator lost in extraction, is `a = torch.rand(3, 4)`, `b = torch.rand(4,
    5)`, `c = a ? b` "raises"; the suggested fix is `a = a.unsqueeze(1)` ("becomes (3,1,4)"),
    `b = b.unsqueeze(0)` ("becomes (1,4,5)"), after which `c = a ? b` "can now broadcast to
    (3,4,5)". The missing operator is most likely `+` or `*`: an element-wise operator, since the
    comment says the first line raises (`*` behaves exactly like `+` here). Run as written with `+`:
    """),
    code("""
    # wrong example
    a = torch.rand(3, 4)
    b = torch.rand(4, 5)
    c = a + b  # raises
    """, "raises-exception"),
    md("""
    That much is right. Now the fix, as written:
    """),
    code("""
    # fix: broadcasting or an explicit reshape
    a = a.unsqueeze(1)  # becomes (3,1,4)
    b = b.unsqueeze(0)  # becomes (1,4,5)
    c = a + b  # "can now broadcast to (3,4,5)"
    """, "raises-exception"),
    md("""
    **Verdict: the fix is wrong.** The comments about the new shapes are right, but aligned from
    the right, `(3, 1, 4)` and `(1, 4, 5)` still put 4 against 5 in the last dim. The explorer shows
    the clash:
    """),
    code("""
    tl.BroadcastExplorer(a, b, names=["a", "b"])
    """),
    md("""
    If the operator was `@`, the example fails the other way: `(3, 4) @ (4, 5)` is a valid matrix
    product and does not raise at all, and after the two `unsqueeze` calls the batch dims `(3,)`
    and `(1,)` broadcast to `(3,)`, giving `(3, 1, 5)`, not `(3, 4, 5)`:
    """),
    code("""
    a = torch.rand(3, 4)
    b = torch.rand(4, 5)
    print("a @ b:", tuple((a @ b).shape))
    print("a.unsqueeze(1) @ b.unsqueeze(0):",
          tuple((a.unsqueeze(1) @ b.unsqueeze(0)).shape))
    """),
    md("""
    **The fix that gives `(3, 4, 5)`.** A `(3, 4, 5)` result pairs every `a[i, j]` with every
    `b[j, k]`: the shared size 4 must sit in the *same* position, so `a` gets its new dim on the
    right, `(3, 4, 1)`, and `b` on the left, `(1, 4, 5)`. Summing that product over the middle dim
    is exactly the matrix product, which is a good check that the alignment is right (and a
    reminder that `a @ b` does the same without the `(3, 4, 5)` intermediate):
    """),
    code("""
    products = a[:, :, None] * b[None, :, :]     # (3, 4, 1) * (1, 4, 5)
    print(tuple(products.shape))
    assert products.shape == (3, 4, 5)
    assert torch.allclose(products.sum(dim=1), a @ b)
    """),
    md("""
    ## Check yourself

    Predict first, then check your answers (they are checked in the page; no Python needed).
    """),
    code(QUIZ),
    md("""
    Now write code. Each function is checked against many generated inputs (empty dims, square
    shapes where a mis-aligned answer still fits, non-contiguous inputs), strictly: shape, dtype and
    values must match exactly.

    **1. Every pair, added.** Write `outer_sum(a, b)` for 1-D tensors `a` (length n) and `b`
    (length m) that returns the `(n, m)` table `out[i, j] == a[i] + b[j]`, using broadcasting: no
    Python loops, and no copies made with `repeat` or `tile`.
    """),
    code('''
    def outer_sum(a, b):
        """The (n, m) table a[i] + b[j], by broadcasting a column against a row."""
        return a[:, None] + b
    ''', "solution", "hide-input"),
    code("""
    tl.check("broadcasting.outer_sum", outer_sum)
    """),
    md("""
    **2. Drop rows with a mask.** Write `zero_rows(x, keep)` for a 2-D tensor `x` of shape
    `(n, m)` and a bool tensor `keep` of shape `(n,)`: row `i` of the result is row `i` of `x` when
    `keep[i]` is True, and all zeros otherwise. Leave `x` unchanged; no Python loops.
    """),
    code('''
    def zero_rows(x, keep):
        """x with the rows where keep is False set to zero
        (keep as a column, so it spans rows)."""
        return torch.where(keep[:, None], x, 0)
    ''', "solution", "hide-input"),
    code("""
    tl.check("broadcasting.zero_rows", zero_rows)
    """),
    md("""
    **3. All squared distances at once.** Write `pairwise_sq_dists(x, y)` for point sets `x` of
    shape `(n, d)` and `y` of shape `(m, d)` returning the `(n, m)` tensor
    `out[i, j] == ((x[i] - y[j]) ** 2).sum()`: broadcast the difference to `(n, m, d)`, then reduce.
    """),
    code('''
    def pairwise_sq_dists(x, y):
        """Squared distance between every point of x and every point of y,
        shape (n, m)."""
        return ((x[:, None, :] - y[None, :, :]) ** 2).sum(dim=-1)
    ''', "solution", "hide-input"),
    code("""
    tl.check("broadcasting.pairwise_sq_dists", pairwise_sq_dists)
    """),
    md("""
    **4. The rule, by hand.** Write `broadcast_shape(a, b)` that takes two shapes (tuples of ints)
    and returns the shape they broadcast to, or `None` when they cannot broadcast. No torch: write
    the rule yourself.
    """),
    code('''
    def broadcast_shape(a, b):
        """The broadcast shape of the shapes a and b, or None if they conflict."""
        ndim = max(len(a), len(b))
        a = (1,) * (ndim - len(a)) + tuple(a)
        b = (1,) * (ndim - len(b)) + tuple(b)
        result = []
        for p, q in zip(a, b):
            if p != q and p != 1 and q != 1:
                return None
            result.append(q if p == 1 else p)
        return tuple(result)
    ''', "solution", "hide-input"),
    code("""
    tl.check("broadcasting.broadcast_shape", broadcast_shape)
    """),
    md("""
    ## Summary

    - Shapes are **aligned from the right**; a shorter shape gets **size-1 dims prepended**; in
      each position the sizes must be **equal, or one of them 1**, and the 1 stretches (even to 0).
    - Stretching is free: a broadcast operand is a **view with stride 0** in the stretched and
      prepended dims (`broadcast_to`, `broadcast_tensors`), so never write into one.
    - Arithmetic, comparisons and `where` broadcast all their operands. An **in-place** op can only
      broadcast its right side: the left side cannot grow.
    - `matmul` broadcasts only the **batch dims**; the last two dims follow the matrix rule.
    - Broadcasting fails loudly only when two sizes differ and neither is 1. `[B]` against `[B, 1]` gives
      `[B, B]` silently: **assert shapes**, use `keepdim=True`, and add dims explicitly.
    """),
]

if __name__ == "__main__":
    print(write("04-broadcasting.ipynb", cells))
