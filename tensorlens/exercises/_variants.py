"""Wrong solutions derived from a correct one: the strictness tests require each to fail.

Contract: ``wrong_variants(ex)`` returns ``(label, fn)`` pairs built from the exercise's solution
(or reference). Each breaks one thing a lenient checker would let through: values off by one, an
extra size-1 dimension, a different dtype, raising; plus one variant per rule (a copy where a view
is required, a loop where loops are banned, a banned name, too much memory) and the exercise's own
hand-written ``wrong`` list. A value the mutation cannot apply to is returned unchanged, so a
variant is only "wrong" on inputs where the mutation applies; every exercise has such inputs.
"""

from __future__ import annotations

import torch

from ._core import Exercise

__all__ = ["wrong_variants"]


def _map(out, tensor_fn, scalar_fn, dtype_fn):
    if isinstance(out, torch.Tensor):
        return tensor_fn(out)
    if isinstance(out, (tuple, list)):
        return type(out)(_map(v, tensor_fn, scalar_fn, dtype_fn) for v in out)
    if isinstance(out, (bool, int, float)):
        return scalar_fn(out)
    if isinstance(out, torch.dtype):
        return dtype_fn(out)
    return out


def _off_by_one(t):
    return t.logical_not() if t.dtype == torch.bool else t + 1


def _other_dtype(t):
    swap = {torch.float32: torch.float64, torch.float64: torch.float32, torch.int64: torch.int32,
            torch.bool: torch.uint8}
    return t.to(swap.get(t.dtype, torch.int64 if t.dtype != torch.int64 else torch.float32))


def _scalar_off(v):
    return (not v) if isinstance(v, bool) else v + 1


def _scalar_type(v):
    return float(v) if isinstance(v, (bool, int)) else int(v)


def _swap_dtype(d):
    # a dtype as a result (a prediction): the neighbouring one is wrong in every way that counts
    return torch.float32 if d != torch.float32 else torch.bfloat16


def _wrap(solution, tensor_fn, scalar_fn, dtype_fn=_swap_dtype):
    def variant(*args):
        return _map(solution(*args), tensor_fn, scalar_fn, dtype_fn)
    return variant


def _raises(*args):
    raise ValueError("deliberately wrong")


def wrong_variants(ex: Exercise) -> list:
    """All wrong variants of exercise ``ex`` (see the module docstring)."""
    solution = ex.solution or ex.reference
    variants = [
        ("values off by one", _wrap(solution, _off_by_one, _scalar_off)),
        ("an extra size-1 dim", _wrap(solution, lambda t: t.unsqueeze(0), lambda v: torch.tensor([v]),
                                      lambda d: (d,))),
        ("a wrong dtype", _wrap(solution, _other_dtype, _scalar_type)),
        ("raises", _raises),
    ]
    for rule in ex.rules:
        variants.extend(rule.wrong_variants(solution, ex.arg_names))
    variants.extend(ex.wrong)
    return variants
