"""Exercises for chapter 8, devices and precision: the limits of 16-bit floating point, the
memory a list of tensors keeps alive (``bytes_kept``), and the dtypes CPU autocast gives a chain
of operations (``autocast_dtypes``, whose reference runs them under autocast).

References are written from the format's definition (finfo and frexp); the idiomatic solutions
use torch's own casts and ``nextafter``, and the strictness tests check that both agree.
"""

import torch

from . import rules
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


# ---------------------------------------------------------------- autocast_dtypes (mixed precision)

# The CPU's autocast lists for the ops of the exercise (see 08-3): the lower-precision list casts
# every floating input but float64 to the autocast dtype; the float32 list casts them to float32.
_LOWER_LIST = ("matmul", "linear")
_FLOAT32_LIST = ("mse_loss", "prod")
_AUTOCAST_OPS = {
    "matmul": lambda a, b: a @ b,
    "linear": lambda a, b: torch.nn.functional.linear(a, b),
    "mse_loss": lambda a, b: torch.nn.functional.mse_loss(a, b),
    "add": lambda a, b: a + b,
    "prod": lambda a: a.prod(),
    "sum": lambda a: a.sum(),
    "cumsum": lambda a: a.cumsum(0),
    "softmax": lambda a: a.softmax(0),
    "float": lambda a: a.float(),
}
_FLOATS = (torch.float32, torch.float64, torch.bfloat16, torch.float16)


def _promoted(dtypes):
    out = dtypes[0]
    for d in dtypes[1:]:
        out = torch.promote_types(out, d)
    return out


def _step_dtype(op, dtypes):
    """The dtype autocast('cpu', bfloat16) gives op on inputs of these dtypes (no float64 mix
    in the lower-precision list: that raises)."""
    if op == "float":
        return torch.float32
    if op in _LOWER_LIST:
        return torch.float64 if torch.float64 in dtypes else torch.bfloat16
    if op in _FLOAT32_LIST:
        dtypes = [d if d == torch.float64 else torch.float32 for d in dtypes]
    return _promoted(dtypes)


@st.composite
def _autocast_steps(draw):
    steps, known = [], []
    for _ in range(draw(st.integers(1, 5))):
        op = draw(st.sampled_from(list(_AUTOCAST_OPS)))
        arity = _AUTOCAST_OPS[op].__code__.co_argcount
        candidates = list(_FLOATS) + list(range(len(known)))
        operands = []
        for _ in range(arity):
            if op in _LOWER_LIST and operands:
                # a float64 operand next to another dtype makes the product raise
                first = known[operands[0]] if isinstance(operands[0], int) else operands[0]
                wide = first == torch.float64
                candidates = [c for c in candidates
                              if ((known[c] if isinstance(c, int) else c) == torch.float64) == wide]
            operands.append(draw(st.sampled_from(candidates)))
        steps.append((op, *operands))
        known.append(_step_dtype(op, [known[a] if isinstance(a, int) else a for a in operands]))
    return steps


def _autocast_dtypes_solution(steps):
    results = []
    for op, *operands in steps:
        dtypes = [results[a] if isinstance(a, int) else a for a in operands]
        if op == "float":
            results.append(torch.float32)
        elif op in ("matmul", "linear"):
            wide = torch.float64 in dtypes
            results.append(torch.float64 if wide else torch.bfloat16)
        else:
            if op in ("mse_loss", "prod"):
                dtypes = [d if d == torch.float64 else torch.float32 for d in dtypes]
            out = dtypes[0]
            for d in dtypes[1:]:
                out = torch.promote_types(out, d)
            results.append(out)
    return results


def _chained(rule):
    """The steps -> dtypes function that gives each step ``rule(op, dtypes of its operands)``,
    an int operand standing for the dtype ``rule`` gave that earlier step."""
    def predict(steps):
        results = []
        for op, *operands in steps:
            results.append(rule(op, [results[a] if isinstance(a, int) else a for a in operands]))
        return results
    return predict


# plain type promotion: as if the block were not there
_autocast_without_autocast = _chained(
    lambda op, dtypes: torch.float32 if op == "float" else _promoted(dtypes))
# forgets that autocast leaves float64 alone
_autocast_casts_float64_too = _chained(
    lambda op, dtypes: torch.bfloat16 if op in _LOWER_LIST
    else torch.float32 if op in _FLOAT32_LIST else _step_dtype(op, dtypes))
# CUDA's float32 list also holds sum, cumsum and softmax; the CPU's does not
_autocast_cuda_lists = _chained(
    lambda op, dtypes: _step_dtype("prod" if op in ("sum", "cumsum", "softmax") else op, dtypes))
# bfloat16 with float16 promotes to float32, not to bfloat16
_autocast_16_bit_stays_16_bit = _chained(
    lambda op, dtypes: torch.bfloat16 if op == "add" and set(dtypes) == {torch.bfloat16,
                                                                        torch.float16}
    else _step_dtype(op, dtypes))


def _autocast_results_as_float32(steps):
    # takes an earlier step's result to be float32 again, as if autocast cast it back
    return [_step_dtype(op, [torch.float32 if isinstance(a, int) else a for a in operands])
            for op, *operands in steps]


_F32, _F64, _BF16, _F16 = _FLOATS


@exercise(
    "precision.autocast_dtypes",
    title="Predict the dtypes of mixed precision",
    statement="Write `autocast_dtypes(steps)` that returns, as a list with one dtype per step, "
              "the dtype of each step's result inside "
              "`torch.autocast(\"cpu\", dtype=torch.bfloat16)`, predicted without running "
              "`autocast`. `steps` is a list of tuples `(op, *operands)`. An operand is a dtype "
              "(`torch.float32`, `float64`, `bfloat16` or `float16`: a new tensor of that "
              "dtype) or an int `i` (the result of the earlier step `i`). `op` is `\"matmul\"` "
              "(`a @ b`), `\"linear\"` (`F.linear(a, b)`), `\"mse_loss\"` "
              "(`F.mse_loss(a, b)`), `\"add\"` (`a + b`), `\"prod\"`, `\"sum\"` (`a.prod()`, "
              "`a.sum()`), `\"cumsum\"`, `\"softmax\"` (`a.cumsum(0)`, `a.softmax(0)`) or "
              "`\"float\"` (`a.float()`). Shapes always fit, and `\"matmul\"` and `\"linear\"` "
              "never get a `float64` operand together with one of another dtype.",
    inputs=_autocast_steps(),
    edge_cases=[
        [],
        [("matmul", _F32, _F32), ("sum", 0)],
        [("matmul", _F64, _F64), ("linear", _F16, _BF16)],
        [("prod", _BF16), ("mse_loss", _F16, _BF16), ("mse_loss", _F64, _F32)],
        [("add", _BF16, _F16), ("softmax", _BF16), ("cumsum", _F16)],
        [("linear", _F32, _F32), ("add", 0, _F32), ("softmax", 1)],
        [("matmul", _F32, _F32), ("float", 0), ("matmul", 1, _F32), ("add", 2, 1)],
    ],
    hint="For `\"cpu\"` the ops fall into three groups. `matmul` and `linear` cast every input "
         "except `float64` to `bfloat16`; `mse_loss` and `prod` cast every input except "
         "`float64` to `float32`; the rest, `.float()` included, follow their inputs with the "
         "usual promotion (`torch.promote_types`: `bfloat16` with `float16` gives `float32`). "
         "A step's result goes into later steps in its own dtype.",
    rules=[rules.banned("autocast", "amp", "set_autocast_enabled", "set_autocast_dtype",
                        reason="predict the dtypes; the check runs `autocast` to compare")],
    solution=_autocast_dtypes_solution,
    wrong=[("plain type promotion, as if autocast were off", _autocast_without_autocast),
           ("casts float64 down too", _autocast_casts_float64_too),
           ("CUDA's lists: sum, cumsum and softmax in float32", _autocast_cuda_lists),
           ("an earlier result taken as float32 again", _autocast_results_as_float32),
           ("bfloat16 with float16 stays bfloat16", _autocast_16_bit_stays_16_bit)],
)
def autocast_dtypes(steps):
    """Runs the steps on 2 x 2 tensors inside autocast and reads each result's dtype (a 0-d
    result is expanded to 2 x 2 where a later step uses it: the shape does not change a dtype).
    """
    results = []
    with torch.autocast("cpu", dtype=torch.bfloat16):
        for op, *operands in steps:
            args = [results[a].expand(2, 2) if isinstance(a, int)
                    else torch.ones(2, 2, dtype=a) for a in operands]
            results.append(_AUTOCAST_OPS[op](*args))
    return [r.dtype for r in results]
