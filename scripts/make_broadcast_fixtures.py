"""Write tests/js/fixtures/broadcast.json: broadcasting cases answered by torch.

The JS rule (tensorlens/widgets/static/broadcast_rule.js) and the widget's Python side are tested against
this file, so every expected value in it comes from torch itself:

- ``result`` from ``torch.broadcast_shapes``;
- ``strides`` from the views ``torch.broadcast_tensors`` returns, for inputs that are contiguous or
  strided (transposed, sliced, already expanded);
- a conflict's dim, operand and sizes parsed from torch's own error message;
- ``parse`` cases: text a reader may type and the shape it means (or that it is rejected), checked
  here against ``torch.Size`` where Python can read the text.

Run ``python scripts/make_broadcast_fixtures.py`` after changing the cases; the test
``tests/test_broadcast_explorer.py`` fails when the file is out of date.
"""

import json
import random
import re
from pathlib import Path

import torch

OUT = Path(__file__).resolve().parents[1] / "tests" / "js" / "fixtures" / "broadcast.json"

# torch 2.13: "Attempting to broadcast a dimension of length 5 at -1! Mismatching argument at
# index 1 had (4, 5); but expected shape should be broadcastable to [3, 4]"
CONFLICT = re.compile(
    r"dimension of length (\d+) at (-\d+)! Mismatching argument at index (\d+) had .*"
    r"broadcastable to \[([\d, ]*)\]"
)

HAND_PICKED = [
    [[3, 1], [1, 5]],
    [[3, 4], [4, 5]],
    [[3, 1, 4], [1, 4, 5]],
    [[3, 4], [4]],
    [[8], [8, 1]],
    [[2, 3], [3, 2]],
    [[], [2, 3]],
    [[2, 3], []],
    [[], []],
    [[1], [0]],
    [[0], [1]],
    [[0], [2]],
    [[2], [0]],
    [[2, 0], [1]],
    [[1, 1], [1]],
    [[1], [1, 1, 1]],
    [[5, 1, 3], [4, 1]],
    [[2, 3, 1], [5, 3, 4]],
    [[2, 3], [1, 3], [4, 1]],
    [[2, 1], [1, 3], [2, 3], [4, 1]],
    [[3], [1], [4]],
    [[64, 3, 1, 1], [3, 224, 224]],
    [[32, 1, 1, 1], [1, 3, 224, 224]],
    [[7]],
    [[1, 7, 1]],
]

# (text, shape or None): None means the text must be rejected.
PARSE_CASES = [
    ("3, 1", [3, 1]),
    ("3,1", [3, 1]),
    ("3 1", [3, 1]),
    ("[3, 1]", [3, 1]),
    ("(3, 1)", [3, 1]),
    ("(3,)", [3]),
    ("  ( 4 , 5 ) ", [4, 5]),
    ("torch.Size([2, 3])", [2, 3]),
    ("torch.Size([])", []),
    ("()", []),
    ("[]", []),
    ("7", [7]),
    ("0", [0]),
    ("3,", [3]),
    ("", None),
    ("   ", None),
    ("3,,1", None),
    ("(,)", None),
    ("-1, 3", None),
    ("3, x", None),
    ("2.5", None),
    ("[3, 1", None),
    ("((3))", None),
]


def _strided(shape, kind, rng):
    """A tensor of ``shape`` whose strides are not always the contiguous ones."""
    if kind == "contiguous" or len(shape) < 2:
        return torch.empty(shape)
    if kind == "transposed":
        return torch.empty(list(reversed(shape))).permute(*reversed(range(len(shape))))
    if kind == "sliced":
        big = torch.empty([size * 2 for size in shape])
        return big[tuple(slice(None, None, 2) for _ in shape)]
    # "expanded": an input that already has a stride-0 dim where its size is > 1.
    dim = rng.randrange(len(shape))
    base_shape = list(shape)
    base_shape[dim] = 1
    return torch.empty(base_shape).expand(shape)


def case(shapes, kind="contiguous", rng=None):
    rng = rng or random.Random(0)
    tensors = [_strided(shape, kind, rng) for shape in shapes]
    entry = {
        "shapes": shapes,
        "input_strides": [list(t.stride()) for t in tensors],
    }
    try:
        result = list(torch.broadcast_shapes(*[tuple(s) for s in shapes]))
    except RuntimeError as error:
        match = CONFLICT.search(str(error))
        if match is None:
            raise
        size, dim, operand, expected = match.groups()
        expected = [int(x) for x in expected.split(",") if x.strip()]
        dim = int(dim)
        entry.update(
            ok=False,
            conflict={"dim": dim, "operand": int(operand), "size": int(size),
                      "other": expected[dim]},
            torch_message=str(error),
        )
        # torch.broadcast_tensors must fail too (it raises a different message).
        try:
            torch.broadcast_tensors(*tensors)
        except RuntimeError:
            pass
        else:
            raise AssertionError(f"broadcast_tensors accepted {shapes}")
        return entry
    views = torch.broadcast_tensors(*tensors)
    for view, tensor in zip(views, tensors):
        assert view.untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr()
    entry.update(ok=True, result=result, strides=[list(v.stride()) for v in views])
    return entry


def random_shapes(rng):
    """Shapes that broadcast often but not always: mostly 1s and a few shared sizes."""
    count = rng.choice([1, 2, 2, 2, 3, 3, 4])
    rank = rng.randint(0, 4)
    target = [rng.choice([1, 2, 3, 4, 0]) if rng.random() < 0.1 else rng.choice([2, 3, 4, 5])
              for _ in range(rank)]
    shapes = []
    for _ in range(count):
        own_rank = rng.randint(0, rank)
        shape = []
        for size in target[rank - own_rank:]:
            roll = rng.random()
            shape.append(1 if roll < 0.35 else size if roll < 0.9 else rng.choice([0, 2, 3, 6]))
        shapes.append(shape)
    return shapes


def _check_parse_case(text, shape):
    """Where Python can read the text as a literal, it must mean the same shape."""
    literal = text.strip()
    if shape is None or not literal.startswith(("(", "[", "torch.Size")):
        return
    value = eval(literal, {"torch": torch})  # noqa: S307 - fixed literals written above
    assert list(torch.Size(value)) == shape, (text, shape)


def build():
    rng = random.Random(20240604)
    cases = [case(shapes) for shapes in HAND_PICKED]
    cases += [case(shapes, kind, rng) for shapes in HAND_PICKED
              for kind in ("transposed", "sliced", "expanded")]
    cases += [case(random_shapes(rng), rng.choice(["contiguous", "transposed", "sliced",
                                                    "expanded"]), rng) for _ in range(300)]
    for text, shape in PARSE_CASES:
        _check_parse_case(text, shape)
    return {
        "about": "Made by scripts/make_broadcast_fixtures.py from torch "
                 f"{torch.__version__.split('+')[0]}; do not edit by hand.",
        "cases": cases,
        "parse": [{"text": text, "shape": shape} for text, shape in PARSE_CASES],
    }


def render(data):
    """JSON with one case per line: small diffs, readable in review."""
    lines = ["{", f' "about": {json.dumps(data["about"])},']
    for key in ("cases", "parse"):
        items = [json.dumps(item) for item in data[key]]
        lines.append(f' "{key}": [')
        lines.append(",\n".join(f"  {item}" for item in items))
        lines.append(" ]," if key == "cases" else " ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(render(build()))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
