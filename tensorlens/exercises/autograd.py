"""Exercises for chapter 7, autograd: gradients computed by hand, checked against autograd.

Each reference asks autograd itself (a leaf, a forward pass, ``backward``), so torch is the
oracle; the learner must get the same gradient without ``backward`` or ``torch.autograd``.
"""

import torch

from . import rules
from ._core import exercise
from .strategies import make_tensor, st, tensors

_NO_AUTOGRAD = rules.banned(*rules.AUTOGRAD_NAMES,
                            reason="compute the gradient yourself; autograd is the reference")


@st.composite
def _grad_and_shape(draw):
    """A target shape and a gradient of a shape it broadcasts to (maybe with extra leading dims)."""
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=3)))
    extra = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)))
    stretched = tuple(draw(st.integers(1, 3)) if n == 1 else n for n in shape)
    grad = draw(tensors(shape=extra + stretched, dtypes=(torch.float32,)))
    return grad, shape


def _unbroadcast_solution(grad, shape):
    extra = grad.dim() - len(shape)
    out = grad.sum(dim=tuple(range(extra))) if extra else grad
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and out.shape[i] != 1)
    return out.sum(dim=stretched, keepdim=True) if stretched else out.clone()


def _unbroadcast_no_keepdim(grad, shape):
    # drops the size-1 dims instead of keeping them
    extra = grad.dim() - len(shape)
    out = grad.sum(dim=tuple(range(extra))) if extra else grad
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and out.shape[i] != 1)
    return out.sum(dim=stretched) if stretched else out.clone()


@exercise(
    "autograd.unbroadcast",
    title="Reduce a broadcast gradient",
    statement="A tensor of shape `shape` was broadcast (or expanded) to `grad.shape`. Write "
              "`unbroadcast(grad, shape)` that returns the gradient autograd accumulates into the "
              "original tensor: `grad` summed over the added leading dims and over every dim "
              "where `shape` has size 1, with result shape exactly `shape`. Do not call autograd.",
    inputs=_grad_and_shape(),
    edge_cases=[
        (torch.arange(12.).reshape(3, 4), (3, 1)),
        (torch.arange(12.).reshape(3, 4), (1, 4)),
        (torch.arange(12.).reshape(3, 4), (4,)),
        (torch.arange(6.).reshape(2, 3), ()),
        (torch.arange(24.).reshape(2, 3, 4), (3, 1)),
        (make_tensor(list(range(6)), (2, 3), torch.float32, "transposed"), (2, 3)),
    ],
    hint="First sum away the `grad.dim() - len(shape)` leading dims, then sum with "
         "`keepdim=True` over each dim where `shape` has a 1 but `grad` does not.",
    rules=[_NO_AUTOGRAD],
    solution=_unbroadcast_solution,
    wrong=[("forgets keepdim=True", _unbroadcast_no_keepdim)],
)
def unbroadcast(grad, shape):
    """What backward does: a leaf of `shape`, expanded to grad.shape, receives grad."""
    leaf = torch.zeros(shape, dtype=grad.dtype, requires_grad=True)
    leaf.expand(grad.shape).backward(grad)
    return leaf.grad


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
