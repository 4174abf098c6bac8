"""Generate tests/js/fixtures/views.json: view-op cases with torch's answers, for the JS tests.

Each case starts from a base view over ``torch.arange(storage_size)`` (so a view's values *are*
its storage positions) and applies a chain of view operations with torch. The fixture records
what torch produced (shape, stride, offset, contiguity, exact overlap, storage positions) or, when
torch raised, the error type, torch's message and the message of the Python model
(``tensorlens.layout.View``), which ``view_math.js`` must reproduce. It stops with an error
when the model and torch disagree, so the fixtures never encode a disagreement.

Run from the repository root and commit the output::

    .venv/bin/python scripts/make_js_fixtures.py

The output is deterministic (seeded), so re-running it only changes the file when torch or the
model changes.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import torch

from tensorlens.layout import View

OUT = Path(__file__).resolve().parent.parent / "tests" / "js" / "fixtures" / "views.json"
SEED = 20240611
N_RANDOM = 320
MAX_NUMEL = 256  # keep the JSON small: expected storage positions are listed per case


def apply_torch(t: torch.Tensor, op: str, args: list):
    """Apply one op, spelled as in the fixture, to a torch tensor."""
    if op == "slice":
        dim, start, stop, step = args
        return t[(slice(None),) * dim + (slice(start, stop, step),)]
    if op == "squeeze" and not args:
        return t.squeeze()
    if op in ("permute", "expand", "view"):
        return getattr(t, op)(args[0])  # a list, so that an empty one is valid
    return getattr(t, op)(*args)


def apply_model(v, op: str, args: list):
    """The same op on tensorlens' View model."""
    if op == "slice":
        dim, start, stop, step = args
        return v[(slice(None),) * dim + (slice(start, stop, step),)]
    if op == "squeeze" and not args:
        return v.squeeze()
    if op in ("permute", "expand", "view"):
        return getattr(v, op)(tuple(args[0]))
    return getattr(v, op)(*args)


def random_shape(rng: random.Random, max_rank: int = 4) -> list[int]:
    rank = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4][: max_rank * 2 + 1])
    shape = [rng.choice([1, 2, 2, 3, 3, 4, 5]) for _ in range(rank)]
    if rng.random() < 0.05 and shape:
        shape[rng.randrange(len(shape))] = 0
    while len(shape) > 1 and torch.Size(shape).numel() > 64:
        shape.pop()
    return shape


def random_base(rng: random.Random) -> dict:
    """A contiguous base, or (1 in 4) a strided window into a larger storage."""
    shape = random_shape(rng)
    stride = list(torch.empty(shape).stride())
    offset = 0
    if rng.random() < 0.25 and shape:
        stride = [s * rng.choice([1, 1, 2]) for s in stride]
        offset = rng.choice([0, 1, 3])
    numel = torch.Size(shape).numel()
    reach = offset + (sum((n - 1) * s for n, s in zip(shape, stride)) + 1 if numel else 0)
    return {"shape": shape, "stride": stride, "offset": offset,
            "storage_size": reach + rng.choice([0, 0, 2])}


def factor_shape(rng: random.Random, n: int) -> list[int]:
    """A random shape with numel n, sometimes with a size-1 dim or one -1."""
    if n == 0:
        return rng.choice([[0], [0, 3], [2, 0], [-1, 0]])
    sizes, rest = [], n
    for p in (2, 3, 5, 7):
        while rest % p == 0 and rng.random() < 0.6:
            sizes.append(p)
            rest //= p
    sizes.append(rest)
    rng.shuffle(sizes)
    merged = []
    for s in sizes:
        if merged and rng.random() < 0.4:
            merged[-1] *= s
        else:
            merged.append(s)
    if rng.random() < 0.2:
        merged.insert(rng.randrange(len(merged) + 1), 1)
    if rng.random() < 0.3:
        merged[rng.randrange(len(merged))] = -1
    return merged


def random_op(rng: random.Random, shape: list[int]) -> tuple[str, list]:
    """A plausible op for this shape; about one in eight is deliberately out of range."""
    nd = len(shape)
    bad = rng.random() < 0.12
    span = max(nd, 1)

    def dim() -> int:
        if bad:
            return rng.choice([span, -span - 1, span + 1])
        return rng.randrange(-span, span)

    def size_of(d: int) -> int:
        return shape[d] if nd else 1

    ops = ["transpose", "t", "permute", "unsqueeze", "squeeze", "expand", "narrow",
           "select", "slice", "diagonal", "unfold", "view"]
    op = rng.choice(ops)
    # Mostly ops that fit the rank, so chains get long; misfits still come up via `bad`.
    while not bad and ((op == "diagonal" and nd < 2) or (op == "t" and nd > 2)):
        op = rng.choice(ops)
    if op == "transpose":
        return op, [dim(), dim()]
    if op == "t":
        return op, []
    if op == "permute":
        dims = list(range(nd))
        rng.shuffle(dims)
        dims = [d - nd if rng.random() < 0.2 else d for d in dims]
        if bad and nd:
            dims[0] = dims[-1] if nd > 1 else 5
        return op, [dims]
    if op == "unsqueeze":
        return op, [rng.randrange(-nd - 1, nd + 1) if not bad else nd + 2]
    if op == "squeeze":
        return op, [] if rng.random() < 0.5 else [dim()]
    if op == "expand":
        sizes = [s if s != 1 else rng.choice([1, 2, 3]) for s in shape]
        sizes = [-1 if rng.random() < 0.2 else s for s in sizes]
        sizes = [rng.choice([1, 2]) for _ in range(rng.choice([0, 0, 1]))] + sizes
        if bad:
            sizes = sizes[1:] if sizes and rng.random() < 0.5 else [s + 1 for s in sizes] or [-1]
        return op, [sizes]
    if op in ("narrow", "select", "slice", "unfold") and nd == 0 and op != "unfold":
        return op, [0, 0, 1] if op == "narrow" else [0, 0] if op == "select" else [0, None, None, 1]
    if op == "narrow":
        d = dim()
        n = size_of(d) if -span <= d < span else 1
        start = rng.randrange(-n, n + 1)
        first = start + n if start < 0 else start
        return op, [d, start, rng.randrange(0, n - first + 1) + (1 if bad else 0)]
    if op == "select":
        d = dim()
        n = size_of(d) if -span <= d < span else 1
        return op, [d, rng.randrange(-n, n) if n and not bad else n]
    if op == "slice":
        d = rng.randrange(nd) if nd else 0
        n = shape[d] if nd else 1
        start = rng.choice([None, 0, 1, -1, n + 1, -n - 2])
        stop = rng.choice([None, None, n, 2, -1, n + 3])
        step = rng.choice([1, 1, 2, 3]) if not bad else rng.choice([0, -1])
        return op, [d, start, stop, step]
    if op == "diagonal":
        dims = rng.sample(range(-nd, nd), 2) if nd >= 2 and not bad else [dim(), dim()]
        return op, [rng.choice([0, 0, 1, -1, 2, -3])] + dims
    if op == "unfold":
        d = dim()
        n = size_of(d) if -span <= d < span else 1
        size = rng.randrange(0, n + 1) if not bad else n + 1
        return op, [d, size, rng.choice([1, 1, 2, 3]) if rng.random() > 0.05 else 0]
    total = torch.Size(shape).numel()
    sizes = factor_shape(rng, total)
    if bad:
        sizes = sizes + [2] if rng.random() < 0.5 else [-1, -1]
    return op, [sizes]


def outcome(base: dict, ops: list) -> dict:
    """Run the chain with torch; the expected result or the error it raised."""
    storage = torch.arange(base["storage_size"])
    t = storage.as_strided(base["shape"], base["stride"], base["offset"])
    for step, (op, args) in enumerate(ops):
        try:
            t = apply_torch(t, op, args)
        except (RuntimeError, IndexError, ValueError, TypeError) as exc:
            return {"error": type(exc).__name__, "error_at": step,
                    "torch_message": str(exc).splitlines()[0],
                    "message": model_message(base, ops[: step + 1])}
    assert t.untyped_storage().data_ptr() == storage.untyped_storage().data_ptr()
    positions = t.flatten().tolist() if t.dim() else [t.item()]
    model = run_model(base, ops)
    if model.to_dict() != {"shape": list(t.shape), "stride": list(t.stride()),
                           "offset": t.storage_offset(), "storage_size": base["storage_size"]}:
        raise SystemExit(f"tensorlens.layout disagrees with torch on {base} {ops}: {model}")
    return {"shape": list(t.shape), "stride": list(t.stride()), "offset": t.storage_offset(),
            "contiguous": t.is_contiguous(), "overlap": len(set(positions)) < len(positions),
            "storage_indices": positions}


def run_model(base: dict, ops: list) -> View:
    v = View(base["shape"], base["stride"], base["offset"], base["storage_size"])
    for op, args in ops:
        v = apply_model(v, op, args)
    return v


def model_message(base: dict, ops: list) -> str:
    """The Python model's message for a chain whose last op makes torch raise."""
    try:
        run_model(base, ops)
    except (ValueError, IndexError, TypeError) as exc:
        return str(exc)
    raise SystemExit(f"torch raises but tensorlens.layout does not on {base} {ops}")


def handpicked() -> list[tuple[str, dict, list]]:
    def base(shape, stride=None, offset=0, storage_size=None):
        stride = stride or list(torch.empty(shape).stride())
        numel = torch.Size(shape).numel()
        reach = offset + (sum((n - 1) * s for n, s in zip(shape, stride)) + 1 if numel else 0)
        return {"shape": shape, "stride": stride, "offset": offset,
                "storage_size": storage_size or reach}

    return [
        ("transpose then view fails", base([3, 4]), [["t", []], ["view", [[12]]]]),
        ("transpose then flat view via -1 fails", base([3, 4]), [["transpose", [0, 1]], ["view", [[-1]]]]),
        ("view splits a contiguous chunk", base([3, 4]), [["t", []], ["view", [[2, 2, 3]]]]),
        ("expand gives stride 0", base([3]), [["unsqueeze", [0]], ["expand", [[4, 3]]]]),
        ("expand a new leading dim of size 1", base([3]), [["expand", [[1, 3]]]]),
        ("expand non-singleton fails", base([2, 3]), [["expand", [[2, 4]]]]),
        ("unfold overlapping windows", base([8]), [["unfold", [0, 3, 1]]]),
        ("unfold disjoint windows", base([8]), [["unfold", [0, 2, 2]]]),
        ("slice with a step", base([4, 6]), [["slice", [1, None, None, 2]]]),
        ("narrow keeps strides", base([4, 6]), [["narrow", [1, 2, 3]]]),
        ("select drops a dim", base([2, 3, 4]), [["select", [1, 2]]]),
        ("diagonal of a square", base([4, 4]), [["diagonal", [0, 0, 1]]]),
        ("diagonal above", base([3, 5]), [["diagonal", [2, 0, 1]]]),
        ("diagonal below", base([4, 3]), [["diagonal", [-1, 0, 1]]]),
        ("permute of 3-D", base([2, 3, 4]), [["permute", [[2, 0, 1]]]]),
        ("t of 3-D fails", base([2, 3, 4]), [["t", []]]),
        ("rank 0 unsqueeze", base([]), [["unsqueeze", [0]]]),
        ("rank 0 view", base([]), [["view", [[1, 1]]]]),
        ("rank 0 select fails", base([]), [["select", [0, 0]]]),
        ("empty view", base([0, 3]), [["t", []], ["view", [[3, 0]]]]),
        ("squeeze all", base([1, 3, 1, 2]), [["squeeze", []]]),
        ("squeeze a non-1 dim is a no-op", base([2, 3]), [["squeeze", [0]]]),
        ("view with two -1 fails", base([2, 3]), [["view", [[-1, -1]]]]),
        ("view with the wrong size fails", base([2, 3]), [["view", [[5, -1]]]]),
        ("offset window", base([2, 3], [6, 2], 1, 12), [["t", []], ["narrow", [0, 1, 2]]]),
        ("slice past the end is empty", base([3, 4]), [["slice", [1, 5, 2, 1]]]),
        ("expand then unfold", base([1, 4]), [["expand", [[3, 4]]], ["unfold", [1, 2, 2]]]),
    ]


def main() -> None:
    rng = random.Random(SEED)
    torch.manual_seed(SEED)
    cases = []
    for name, base, ops in handpicked():
        cases.append({"name": name, "base": base, "ops": ops, "expect": outcome(base, ops)})
    attempts = 0
    while len(cases) < N_RANDOM + len(handpicked()):
        attempts += 1
        base = random_base(rng)
        ops, shape = [], list(base["shape"])
        expect = outcome(base, ops)
        for _ in range(rng.randint(1, 4)):
            ops.append(list(random_op(rng, shape)))
            expect = outcome(base, ops)
            if "error" in expect:
                break
            shape = expect["shape"]
        if "error" not in expect and len(expect["storage_indices"]) > MAX_NUMEL:
            continue
        cases.append({"name": f"random {attempts}", "base": base, "ops": ops, "expect": expect})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    payload = {"generated_by": "scripts/make_js_fixtures.py", "torch": torch.__version__.split("+")[0],
               "seed": SEED, "cases": cases}
    # One case per line: small diffs when torch or the generator changes.
    head = json.dumps({k: v for k, v in payload.items() if k != "cases"})[:-1]
    lines = ",\n".join(json.dumps(c, separators=(",", ":")) for c in cases)
    OUT.write_text(f'{head}, "cases": [\n{lines}\n]}}\n')
    n_err = sum("error" in c["expect"] for c in cases)
    print(f"wrote {len(cases)} cases ({n_err} raising) to {OUT.relative_to(Path.cwd())}")


if __name__ == "__main__":
    main()
