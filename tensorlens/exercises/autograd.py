"""Exercises for chapter 7, autograd.

Two exercises compute a gradient by hand (``relu_backward``, ``mse_grad``): each reference asks
autograd itself (a leaf, a forward pass, ``backward``), so torch is the oracle, and the learner
must get the same gradient without ``backward`` or ``torch.autograd``. Two use autograd:
``penalty_grad`` (the "find the silent bug" exercise: ``retain_graph`` where a gradient penalty
needs ``create_graph``) and ``straight_through_clamp`` (a custom backward rule, checked by a call rule that runs
backward through the learner's result).
"""

import torch

from . import rules
from ._core import exercise
from ._messages import say
from .strategies import make_tensor, st, tensors

_NO_AUTOGRAD = rules.banned(*rules.AUTOGRAD_NAMES,
                            reason="compute the gradient yourself; autograd is the reference")


@st.composite
def _input_and_grad(draw):
    x = draw(tensors(dtypes=(torch.float32,), min_dims=0, max_dims=3, min_side=0, max_side=4,
                     low=-3, high=3))
    grad_output = draw(tensors(shape=tuple(x.shape), dtypes=(torch.float32,)))
    return x, grad_output


def _relu_backward_solution(x, grad_output):
    return torch.where(x > 0, grad_output, torch.zeros_like(grad_output))


def _relu_backward_article(x, grad_output):
    # the article's MyReLU rule: only input < 0 is zeroed, so slope 1 at exactly 0
    grad_input = grad_output.clone()
    grad_input[x < 0] = 0
    return grad_input


@exercise(
    "autograd.relu_backward",
    title="ReLU's backward, the PyTorch way",
    statement="Write `relu_backward(x, grad_output)` that returns the gradient `torch.relu` sends "
              "back to its input `x` when the gradient `grad_output` arrives at its output: "
              "`grad_output` where `x > 0`, and 0 everywhere else, including where `x` is "
              "exactly 0. Do not call autograd.",
    inputs=_input_and_grad(),
    edge_cases=[
        (torch.tensor([-1.0, 0.0, 2.0]), torch.tensor([5.0, 5.0, 5.0])),
        (torch.tensor(0.0), torch.tensor(3.0)),
        (torch.zeros(0), torch.zeros(0)),
        (make_tensor([0, -1, 2, 3, 0, -4], (2, 3), torch.float32, "transposed"),
         torch.arange(6.0).reshape(2, 3)),
    ],
    hint="The slope is 1 where `x > 0` and 0 elsewhere: `torch.where(x > 0, grad_output, 0)`, "
         "or `grad_output * (x > 0)`. Watch the point x == 0.",
    rules=[_NO_AUTOGRAD],
    solution=_relu_backward_solution,
    wrong=[("the article's rule (slope 1 at 0)", _relu_backward_article)],
)
def relu_backward(x, grad_output):
    """Ask autograd: relu of a leaf copy of x, backpropagate grad_output."""
    leaf = x.detach().clone().requires_grad_()
    torch.relu(leaf).backward(grad_output)
    return leaf.grad


@st.composite
def _regression_problem(draw):
    n = draw(st.integers(1, 5))
    k = draw(st.integers(1, 4))
    data = draw(tensors(shape=(n, k), dtypes=(torch.float32,), low=-3, high=3))
    w = draw(tensors(shape=(k, 1), dtypes=(torch.float32,), low=-3, high=3))
    target = draw(tensors(shape=(n, 1), dtypes=(torch.float32,), low=-3, high=3))
    return data, w, target


def _mse_grad_solution(data, w, target):
    residual = data @ w - target
    return 2.0 / residual.numel() * data.T @ residual


def _mse_grad_sum(data, w, target):
    # forgets the 1/N of the mean
    return 2.0 * data.T @ (data @ w - target)


@exercise(
    "autograd.mse_grad",
    title="The training loop's gradient by hand",
    statement="For `loss = ((data @ w - target) ** 2).mean()` with `data` of shape `(N, K)`, `w` "
              "of shape `(K, 1)` and `target` of shape `(N, 1)`, write `mse_grad(data, w, target)` "
              "that returns `d loss / d w` (shape `(K, 1)`), the value `w.grad` would hold after "
              "`loss.backward()`. Do not call autograd.",
    inputs=_regression_problem(),
    edge_cases=[
        (torch.ones(1, 1), torch.ones(1, 1), torch.zeros(1, 1)),
        (torch.arange(6.0).reshape(3, 2), torch.tensor([[1.0], [-1.0]]), torch.ones(3, 1)),
        (make_tensor([1, 2, 3, 4, 5, 6], (3, 2), torch.float32, "transposed"),
         torch.tensor([[0.5], [2.0]]), torch.tensor([[1.0], [0.0], [-1.0]])),
    ],
    hint="The residual is `r = data @ w - target`; the loss is the mean of `r**2`, so "
         "`d loss / d w = 2 / N * data.T @ r`.",
    rules=[_NO_AUTOGRAD],
    solution=_mse_grad_solution,
    wrong=[("forgets the 1/N of the mean", _mse_grad_sum)],
)
def mse_grad(data, w, target):
    """Ask autograd: w as a leaf, the article's loss, backward."""
    leaf = w.detach().clone().requires_grad_()
    ((data @ leaf - target) ** 2).mean().backward()
    return leaf.grad


# ---------------------------------------------------------------- the silent bug: a penalty


@st.composite
def _penalty_problem(draw):
    n = draw(st.integers(1, 4))
    k = draw(st.integers(1, 3))
    dtype = draw(st.sampled_from((torch.float32, torch.float64)))
    w = draw(tensors(shape=(k, 1), dtypes=(dtype,), low=-2, high=2))
    x = draw(tensors(shape=(n, k), dtypes=(dtype,), low=-2, high=2))
    lam = draw(st.sampled_from([0.0, 0.1, 0.5, 2.0]))
    return w, x, lam


def _penalty_retain_graph(w, x, lam):
    # the silent bug: retain_graph keeps the graph, but the gradient itself is not recorded,
    # so the penalty's gradient with respect to w is missing
    w = w.detach().requires_grad_()
    x = x.detach().requires_grad_()
    f = torch.tanh(x @ w).sum()
    (gx,) = torch.autograd.grad(f, x, retain_graph=True)
    (gw,) = torch.autograd.grad(f + lam * (gx ** 2).sum(), w)
    return gw


def _penalty_solution(w, x, lam):
    w = w.detach().requires_grad_()
    x = x.detach().requires_grad_()
    f = torch.tanh(x @ w).sum()
    (gx,) = torch.autograd.grad(f, x, create_graph=True)
    (gw,) = torch.autograd.grad(f + lam * (gx ** 2).sum(), w)
    return gw


def _penalty_only_f(w, x, lam):
    return x.T @ (1 - torch.tanh(x @ w) ** 2)


@exercise(
    "autograd.penalty_grad",
    title="Find the silent bug: a gradient penalty that does nothing",
    statement="For `f(w, x) = torch.tanh(x @ w).sum()` (`x` is `[N, K]`, `w` is `[K, 1]`), "
              "`penalty_grad(w, x, lam)` should return the gradient with respect to `w` of "
              "`f + lam * (df/dx ** 2).sum()`: a loss with a penalty on its gradient with "
              "respect to the input, as in gradient-penalty training. This version runs "
              "without an error or a warning, and is right when `lam == 0`, but the penalty "
              "changes nothing:\n\n"
              "    def penalty_grad(w, x, lam):\n"
              "        w = w.detach().requires_grad_()\n"
              "        x = x.detach().requires_grad_()\n"
              "        f = torch.tanh(x @ w).sum()\n"
              "        (gx,) = torch.autograd.grad(f, x, retain_graph=True)\n"
              "        (gw,) = torch.autograd.grad(f + lam * (gx ** 2).sum(), w)\n"
              "        return gw\n\n"
              "Write the fixed `penalty_grad(w, x, lam)`, of the shape of `w`.",
    inputs=_penalty_problem(),
    edge_cases=[
        (torch.ones(1, 1), torch.ones(1, 1), 1.0),
        (torch.tensor([[0.5], [-1.0]]), torch.tensor([[1.0, 2.0], [0.0, -1.0]]), 0.5),
        (torch.tensor([[1.0]]), torch.zeros(3, 1), 2.0),
    ],
    hint="`retain_graph=True` keeps the forward graph for a second pass; it does not record "
         "the backward pass. Which argument of `torch.autograd.grad` makes the returned "
         "gradient itself differentiable?",
    solution=_penalty_solution,
    wrong=[("the silent bug: retain_graph instead of create_graph", _penalty_retain_graph),
           ("the gradient of f alone", _penalty_only_f)],
    max_examples=30,
    atol=1e-4,
    rtol=1e-4,
)
def penalty_grad(w, x, lam):
    """The specification, by hand. With t = tanh(x @ w), s = 1 - t**2 ([N, 1]):
    df/dx = s @ w.T, so the penalty is lam * |w|^2 * sum(s**2), and
    d/dw = x.T @ s + lam * (2 * sum(s**2) * w + |w|^2 * x.T @ (-4 * t * s**2)).
    """
    t = torch.tanh(x @ w)
    s = 1 - t ** 2
    norm2 = (w ** 2).sum()
    grad_f = x.T @ s
    grad_penalty = 2 * (s ** 2).sum() * w + norm2 * (x.T @ (-4 * t * s ** 2))
    return grad_f + lam * grad_penalty


# ---------------------------------------------------------------- a custom backward rule


@st.composite
def _clamp_problem(draw):
    x = draw(tensors(dtypes=(torch.float32,), min_dims=1, max_dims=2, min_side=1, max_side=4,
                     low=-4, high=4))
    low = draw(st.sampled_from([-2.0, -1.0, 0.0]))
    high = draw(st.sampled_from([0.5, 1.0, 2.0]))
    return x.requires_grad_(), low, high


def _straight_through_holds(call):
    """The gradient through the result must be grad_output itself, everywhere."""
    x, result = call.args[0], call.result
    if not isinstance(result, torch.Tensor) or result.grad_fn is None:
        return say("no_grad_fn")
    grad_output = torch.arange(1.0, result.numel() + 1).reshape(result.shape)
    (grad,) = torch.autograd.grad(result, x, grad_output, allow_unused=True)
    if grad is None:
        return say("no_gradient")
    if grad.shape != x.shape or not torch.allclose(grad, grad_output):
        return say("not_straight_through")
    return None


_STRAIGHT_THROUGH = rules.Rule(
    description="backward passes the incoming gradient to `x` unchanged, everywhere",
    check_call=_straight_through_holds)


def _clamp_function_solution(x, low, high):
    class ClampStraightThrough(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clamp(low, high)

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output

    return ClampStraightThrough.apply(x)


def _clamp_plain(x, low, high):
    # autograd's own clamp: gradient 0 outside [low, high]
    return x.clamp(low, high)


def _clamp_detached(x, low, high):
    return x.detach().clamp(low, high)


@exercise(
    "autograd.straight_through_clamp",
    title="A clamp with a straight-through gradient",
    statement="Write `clamp_st(x, low, high)` that returns `x` clamped to `[low, high]` in the "
              "forward pass, but whose backward passes the incoming gradient to `x` unchanged, "
              "also where the clamp cut the value off (a straight-through estimator, as used "
              "to train through rounding or quantization). `x` is a float tensor that requires "
              "grad; use a `torch.autograd.Function`. The check compares the values and then "
              "runs backward through your result.",
    inputs=_clamp_problem(),
    edge_cases=[
        (torch.tensor([-3.0, 0.0, 3.0]).requires_grad_(), -1.0, 1.0),
        (torch.tensor([[5.0, -5.0], [0.5, 1.0]]).requires_grad_(), 0.0, 1.0),
    ],
    hint="In `backward(ctx, grad_output)`, return `grad_output` itself; the forward is "
         "`x.clamp(low, high)`. Define the class inside your function so it can use `low` and "
         "`high`, or save them on `ctx`.",
    rules=[_STRAIGHT_THROUGH],
    solution=_clamp_function_solution,
    wrong=[("autograd's own clamp (gradient 0 outside the range)", _clamp_plain),
           ("cut from the graph", _clamp_detached)],
)
def straight_through_clamp(x, low, high):
    """The forward values only; the straight-through backward is checked by the rule."""
    return x.clamp(low, high)
