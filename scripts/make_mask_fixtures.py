"""Write tests/js/fixtures/masks.json: attention masks built by torch.

The JS (tensorlens/widgets/static/mask_rule.js) is tested against this file and the Python
model (tensorlens/masks.py) against torch directly (tests/test_masks.py). Every expected mask
here comes from torch: the padding mask from ``torch.arange(L) < lengths[:, None]`` (or ``>=``
for ``nn.MultiheadAttention``'s True = ignored), the causal one from ``tril`` (or ``triu(1)``),
the combination by running the code line the explorer prints, the keys per row and the fully
masked rows from a softmax of ``masked_fill(-inf)`` over equal scores (NaN rows). ``parse``:
text a reader may type and the lengths it means (or null: rejected).

Run ``python scripts/make_mask_fixtures.py`` after changing the cases; the test
``tests/test_masks.py`` fails when the file is out of date.
"""

import json
import random
from pathlib import Path

import torch

OUT = Path(__file__).resolve().parents[1] / "tests" / "js" / "fixtures" / "masks.json"

HAND_PICKED = [
    ([4, 2, 3], 4), ([4, 0, 3], 4), ([10, 7, 4, 1], 10), ([1], 1), ([0], 1), ([0, 0], 3),
    ([5], 8), ([3, 3, 3], 3), ([12, 1, 6, 0, 2, 9], 12),
]

PARSE_CASES = [
    ("4, 2, 3", [4, 2, 3]), ("4 2 3", [4, 2, 3]), ("[4, 2, 3]", [4, 2, 3]), ("(4,)", [4]),
    ("torch.tensor([10, 7, 4, 1])", [10, 7, 4, 1]), ("  0 ", [0]), ("3,", [3]),
    ("", None), ("4,,2", None), ("4, -1", None), ("4, x", None), ("2.5", None), ("[4, 2", None),
    ("torch.tensor(4)", None),
]


def torch_masks(lengths, L, causal, convention):
    """The masks, computed by torch, and the code line evaluated."""
    t = torch.tensor(lengths)
    keep_pad = torch.arange(L) < t[:, None]                     # True = real
    keep_tri = torch.ones(L, L, dtype=torch.bool).tril()
    if convention == "sdpa":
        padding = keep_pad
        tri = keep_tri
        code = f"(torch.arange({L}) < lengths[:, None])[:, None, None, :]"
        code += f" & torch.ones({L}, {L}, dtype=torch.bool).tril()" if causal else ""
    else:
        padding = torch.arange(L) >= t[:, None]                 # True = ignored
        tri = torch.ones(L, L, dtype=torch.bool).triu(1)
        code = f"(torch.arange({L}) >= lengths[:, None])[:, None, None, :]"
        code += f" | torch.ones({L}, {L}, dtype=torch.bool).triu(1)" if causal else ""
    scope = {"torch": torch, "lengths": t}
    exec("mask = " + code, scope)  # noqa: S102 - the line the explorer prints
    combined = scope["mask"]
    keep = combined if convention == "sdpa" else ~combined
    scores = torch.zeros(len(lengths), 1, L if causal else 1, L)
    weights = scores.masked_fill(~keep, float("-inf")).softmax(dim=-1)
    nan_rows = weights.isnan().all(dim=-1)[:, 0]                # [N, rows]
    allowed = keep.sum(dim=-1)[:, 0]
    assert torch.equal(weights.isnan().any(dim=-1)[:, 0], nan_rows)
    ok = ~nan_rows[..., None]
    expected = torch.where(keep[:, 0], 1.0 / allowed.clamp(min=1)[..., None], 0.0)
    assert torch.allclose(weights[:, 0][ok.expand_as(weights[:, 0])],
                          expected[ok.expand_as(expected)])
    return {
        "lengths": lengths, "L": L, "causal": causal, "convention": convention,
        "padding": padding.tolist(), "causal_mask": tri.tolist() if causal else None,
        "combined": combined.tolist(), "shape": list(combined.shape),
        "allowed": allowed.tolist(),
        "fully_masked": [list(ix) for ix in nan_rows.nonzero().tolist()],
        "code": "mask = " + code,
    }


def build():
    rng = random.Random(20261202)
    sizes = list(HAND_PICKED)
    for _ in range(20):
        L = rng.randint(1, 12)
        sizes.append(([rng.randint(0, L) for _ in range(rng.randint(1, 6))], L))
    cases = [torch_masks(lengths, L, causal, convention)
             for lengths, L in sizes for causal in (True, False) for convention in ("sdpa", "mha")]
    return {
        "about": "Made by scripts/make_mask_fixtures.py from torch "
                 f"{torch.__version__.split('+')[0]}; do not edit by hand.",
        "cases": cases,
        "parse": [{"text": t, "lengths": v} for t, v in PARSE_CASES],
    }


def render(data):
    """JSON with one case per line: small diffs, readable in review."""
    lines = ["{", f' "about": {json.dumps(data["about"])},']
    for key in ("cases", "parse"):
        lines.append(f' "{key}": [')
        lines.append(",\n".join(f"  {json.dumps(item)}" for item in data[key]))
        lines.append(" ]," if key == "cases" else " ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(render(build()))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
