"""Exercises for chapter 8, devices and precision: the limits of 16-bit floating point, and
the memory a list of tensors keeps alive (``bytes_kept``).

References are written from the format's definition (finfo and frexp); the idiomatic solutions
use torch's own casts and ``nextafter``, and the strictness tests check that both agree.
"""

import torch

from ._core import exercise
from .strategies import st

_HALF_TYPES = (torch.float16, torch.bfloat16)

# Values around both formats' limits: the largest finite values, the rounding thresholds just
# above them (65520 for float16, 2**127 * (2 - 2**-8) for bfloat16), infinities and NaN.
_BF16_MAX = torch.finfo(torch.bfloat16).max
_BF16_LIMIT = 2.0 ** 127 * (2 - 2.0 ** -8)
_SPECIAL = [0.0, 1.0, -1.0, 2048.0, 65504.0, 65519.0, 65520.0, -65520.0, 70000.0, 1e9, -1e30,
            _BF16_MAX, _BF16_LIMIT, -_BF16_LIMIT, 3.4e38, float("inf"), float("-inf"), float("nan")]


@st.composite
def _values_and_dtype(draw):
    values = draw(st.lists(st.one_of(st.sampled_from(_SPECIAL), st.integers(-9, 9).map(float)),
                           min_size=0, max_size=8))
    dtype = draw(st.sampled_from(_HALF_TYPES))
    return torch.tensor(values, dtype=torch.float32), dtype


def _overflows_solution(x, dtype):
    return torch.isfinite(x) & torch.isinf(x.to(dtype))


def _overflows_naive(x, dtype):
    # ignores rounding: values between max and max + half a gap round down, not to inf
    return x.abs() > torch.finfo(dtype).max


@exercise(
    "precision.overflows",
    title="Which values overflow?",
    statement="Write `overflows(x, dtype)` for a 1-D `float32` tensor `x` and `dtype` "
              "`torch.float16` or `torch.bfloat16`. Return a bool tensor of the same shape, True "
              "where `x[i]` is finite but becomes infinite when cast to `dtype`. Values a little "
              "above `torch.finfo(dtype).max` may still round down to it; NaN and infinities are "
              "not overflows.",
    inputs=_values_and_dtype(),
    edge_cases=[
        (torch.tensor([65504.0, 65519.0, 65520.0, 70000.0]), torch.float16),
        (torch.tensor([70000.0, 3.4e38]), torch.bfloat16),
        (torch.tensor([float("inf"), float("nan"), -1e9]), torch.float16),
        (torch.tensor([_BF16_MAX, _BF16_LIMIT]), torch.bfloat16),
        (torch.zeros(0), torch.float16),
    ],
    hint="Casting is the oracle: `x.to(dtype)` rounds to nearest, so compare `torch.isinf` of "
         "the cast with `torch.isfinite(x)`. A threshold on `finfo(dtype).max` alone is wrong "
         "for values just above it.",
    solution=_overflows_solution,
    wrong=[("compares with finfo.max, ignoring rounding", _overflows_naive)],
)
def overflows(x, dtype):
    """Threshold form: finite values at or beyond max + half a gap round to infinity."""
    info = torch.finfo(dtype)
    # the gap between the largest two finite values is 2 ** (emax - mantissa_bits)
    _, exponent = torch.frexp(torch.tensor(info.max, dtype=torch.float64))
    half_gap = 2.0 ** (exponent.item() - 1) * info.eps / 2
    limit = info.max + half_gap  # a tie at the limit rounds to even: infinity
    return torch.isfinite(x) & (x.double().abs() >= limit)


@st.composite
def _positive_values(draw):
    dtype = draw(st.sampled_from((torch.float32, torch.float16, torch.bfloat16)))
    mantissas = draw(st.lists(st.integers(1, 50), min_size=0, max_size=6))
    exponents = draw(st.lists(st.integers(-6, 6), min_size=len(mantissas), max_size=len(mantissas)))
    values = [m * 2.0 ** e for m, e in zip(mantissas, exponents)]
    return torch.tensor(values, dtype=dtype)


def _spacing_solution(x):
    return torch.nextafter(x, torch.full_like(x, float("inf"))) - x


def _spacing_eps_times_x(x):
    # right only for powers of two: the gap is constant between powers of two, not proportional
    return torch.finfo(x.dtype).eps * x


@exercise(
    "precision.spacing",
    title="The gap to the next value",
    statement="Write `spacing(x)` for a tensor `x` of positive normal floating-point values "
              "(`float32`, `float16` or `bfloat16`) that returns, in `x`'s dtype, the distance "
              "from each value to the next larger value representable in that dtype.",
    inputs=_positive_values(),
    edge_cases=[
        torch.tensor([1.0]),
        torch.tensor([1.0, 2048.0], dtype=torch.float16),
        torch.tensor([256.0, 3.0], dtype=torch.bfloat16),
        torch.tensor([1000.0, 0.1]),
    ],
    hint="`torch.nextafter(x, inf) - x` does it directly. By hand: the gap is "
         "`finfo(dtype).eps` times the power of two at or below x (see `torch.frexp`).",
    solution=_spacing_solution,
    wrong=[("eps * x (proportional, not a staircase)", _spacing_eps_times_x)],
)
def spacing(x):
    """From the format: x = m * 2**e with 0.5 <= m < 1, and the gap is eps * 2**(e - 1)."""
    _, exponent = torch.frexp(x.double())
    return (torch.finfo(x.dtype).eps * torch.pow(2.0, exponent.double() - 1)).to(x.dtype)


@st.composite
def _half_values(draw):
    values = draw(st.lists(st.one_of(st.integers(-300, 300).map(float),
                                     st.sampled_from([0.5, 10.0, 1000.0, 30000.0, 65504.0])),
                           min_size=1, max_size=6))
    copies = draw(st.sampled_from([1, 10, 1000, 5000]))
    return torch.tensor(values, dtype=torch.float16).repeat(copies)


def _half_mean_solution(x):
    return x.float().mean().half()


def _half_mean_in_float16(x):
    # the silent bug: the float16 sum saturates at inf once it passes 65504
    return x.sum() / x.numel()


@exercise(
    "precision.half_mean",
    title="Find the silent bug: a float16 mean",
    statement="`half_mean(x)` should return the mean of a non-empty 1-D `float16` tensor `x` "
              "as a 0-d `float16` tensor. The version `return x.sum() / x.numel()` runs and is "
              "right on small inputs, but returns `inf` for ten thousand 10s. Write a version "
              "that is right whenever the mean itself fits in `float16`.",
    inputs=_half_values(),
    edge_cases=[
        torch.tensor([1.0, 2.0], dtype=torch.float16),
        torch.full((10_000,), 10.0, dtype=torch.float16),
        torch.tensor([65504.0, 65504.0], dtype=torch.float16),
        torch.tensor([65504.0, -65504.0], dtype=torch.float16),
    ],
    hint="The result fits in `float16`; the running sum does not. Accumulate in `float32` "
         "(`x.float()` or `sum(dtype=torch.float32)`) and convert only the mean back.",
    solution=_half_mean_solution,
    wrong=[("sums in float16, which saturates at inf", _half_mean_in_float16)],
)
def half_mean(x):
    """The mean in exact Python arithmetic, rounded to float16 once at the end."""
    total = 0.0
    for value in x.tolist():
        total += value
    return torch.tensor(total / len(x), dtype=torch.float16)


# ---------------------------------------------------------------- bytes_kept (memory)

_DERIVED = (
    ("x", lambda b: b),
    ("x[:1]", lambda b: b[:1]),
    ("x[1:]", lambda b: b[1:]),
    ("x.t()", lambda b: b.t()),
    ("x[:, :1].expand(-1, 3)", lambda b: b[:, :1].expand(-1, 3)),
    ("x[:1].clone()", lambda b: b[:1].clone()),
    ("x.half()", lambda b: b.half()),
    ("x.to(torch.float32)", lambda b: b.to(torch.float32)),
)


@st.composite
def _tensor_lists(draw):
    bases = [torch.zeros(draw(st.integers(1, 4)), draw(st.integers(1, 4)),
                         dtype=draw(st.sampled_from((torch.float32, torch.float16,
                                                     torch.int64))))
             for _ in range(draw(st.integers(1, 3)))]
    picks = draw(st.lists(st.tuples(st.integers(0, len(bases) - 1),
                                    st.integers(0, len(_DERIVED) - 1)), min_size=1, max_size=5))
    return ([_DERIVED[j][1](bases[i]) for i, j in picks],)


def _bytes_kept_solution(tensors):
    storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in tensors}
    return sum(storages.values())


@exercise(
    "precision.bytes_kept",
    title="How much memory do these tensors keep alive?",
    statement="Write `bytes_kept(tensors)` for a non-empty list of tensors (slices, transposes, "
              "expanded views, copies, other dtypes, some sharing storage) that returns, as an "
              "int, how many bytes of storage the list keeps alive: what would be freed if the "
              "list were the last reference to every one of them. A storage shared by several "
              "tensors counts once.",
    inputs=_tensor_lists(),
    edge_cases=[
        ([torch.zeros(1000)[:10]],),
        ([torch.zeros(2, 3), torch.zeros(2, 3)],),
        ([torch.zeros(4, 1).expand(4, 1000)],),
        ([torch.zeros(3, 3), torch.zeros(3, 3).t()],),
    ],
    hint="A view keeps its base's whole storage alive, whatever part of it the view shows: "
         "`t.untyped_storage().nbytes()`, not `t.nbytes`. Two tensors share a storage when "
         "`untyped_storage().data_ptr()` is the same: count each storage once.",
    solution=_bytes_kept_solution,
    wrong=[("the elements shown, not the storage", lambda ts: sum(t.nbytes for t in ts)),
           ("a shared storage counted once per tensor",
            lambda ts: sum(t.untyped_storage().nbytes() for t in ts))],
)
def bytes_kept(tensors):
    """Sum of the storage bytes of the distinct storages behind the tensors."""
    seen = []
    total = 0
    for t in tensors:
        storage = t.untyped_storage()
        if storage.data_ptr() not in seen:
            seen.append(storage.data_ptr())
            total += storage.nbytes()
    return total
