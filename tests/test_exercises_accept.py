"""The flip side of strictness: correct answers written in other reasonable ways are accepted.

``tests/accept_solutions.py`` holds several correct solutions per exercise (other torch APIs,
method or function spelling, keyword arguments, helpers, local imports, annotations, loops where
the rules allow them). Every one must pass ``run_check`` as a module function, and the rules that
read its source when it is defined the way Jupyter defines it (a cell's source run in
``__main__``, read back through ``linecache``).
"""

import builtins
import linecache
from pathlib import Path

import pytest

import accept_solutions
from tensorlens.exercises import EXERCISES, rules
from tensorlens.exercises._core import _borrowed, run_check

pytestmark = pytest.mark.checkers

CASES = [pytest.param(ex_id, name, id=f"{ex_id}-{name}")
         for ex_id, names in sorted(accept_solutions.ALTERNATIVES.items()) for name in names]


def notebook_cell(source: str, cell: int = 1) -> dict:
    """Run ``source`` as Jupyter runs a cell: in ``__main__``, its lines served by linecache."""
    filename = f"/tmp/ipykernel_4242/{cell}.py"  # how ipykernel names a cell's code
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def notebook():
    return notebook_cell(Path(accept_solutions.__file__).read_text(encoding="utf-8"))


def test_every_exercise_has_alternatives():
    assert set(accept_solutions.ALTERNATIVES) == set(EXERCISES)
    for ex_id, names in accept_solutions.ALTERNATIVES.items():
        assert len(names) >= 2, ex_id
        assert len(set(names)) == len(names), ex_id


@pytest.mark.parametrize("exercise_id, name", CASES)
def test_alternative_is_accepted(exercise_id, name):
    fn = getattr(accept_solutions, name)
    assert _borrowed(exercise_id, fn) is None  # tl.check does not take it for the book's own
    result = run_check(exercise_id, fn)
    assert result.passed, repr(result)


@pytest.mark.parametrize("exercise_id, name", CASES)
def test_alternative_from_a_notebook_cell_passes_the_source_rules(exercise_id, name, notebook):
    """Defined as Jupyter defines it, the alternative passes every rule that reads its source.
    Where a function is defined changes only how its source is found (``linecache`` for a cell),
    not what it computes, so the value checks are test_alternative_is_accepted's."""
    fn = notebook[name]
    assert fn.__module__ == "__main__"
    assert _borrowed(exercise_id, fn) is None
    problems = [rule.check_source(fn) for rule in EXERCISES[exercise_id].rules
                if rule.check_source is not None]
    assert not any(problems), problems


def test_a_source_rule_reads_a_notebook_cell():
    """The notebook path can fail: a loop written in a cell is found through linecache."""
    cell = notebook_cell("def f(x):\n    return sum(row for row in x)\n", 7)
    assert rules.no_loops().check_source(cell["f"])


# ---------------------------------------------------------------- false positives that were fixed


def test_json_load_is_not_a_loading_library_but_safetensors_is():
    ok = notebook_cell(
        "import io, json, torch\n"
        "from tensorlens.exercises.saving import DTYPE_CODES\n"
        "def read(data, name):\n"
        "    n = int.from_bytes(data[:8], 'little')\n"
        "    info = json.load(io.BytesIO(data[8:8 + n]))[name]\n"
        "    b, e = (8 + n + o for o in info['data_offsets'])\n"
        "    raw = torch.tensor(list(data[b:e]), dtype=torch.uint8)\n"
        "    return raw.view(DTYPE_CODES[info['dtype']]).reshape(info['shape'])\n", 2)
    assert run_check("saving.safetensors_tensor", ok["read"]).passed
    # right values, so only the rule can refuse them
    cheats = notebook_cell(
        "from safetensors.torch import load as read\n"
        "import safetensors.torch\n"
        "def imported(data, name):\n"
        "    return read(data)[name]\n"
        "def qualified(data, name):\n"
        "    return safetensors.torch.load(data)[name]\n"
        "def local(data, name):\n"
        "    from safetensors.torch import load\n"
        "    return load(data)[name]\n", 3)
    for name in ("imported", "qualified", "local"):
        result = run_check("saving.safetensors_tensor", cheats[name])
        assert result.status == "fail" and "safetensors" in result.message, (name, result)


def test_grad_mode_switches_are_not_autograd():
    ok = notebook_cell(
        "import torch\n"
        "def mse_grad(data, w, target):\n"
        "    with torch.no_grad():\n"
        "        r = data @ w - target\n"
        "        return 2 * data.T @ r / len(data)\n"
        "@torch.inference_mode()\n"
        "def relu_backward(x, grad_output):\n"
        "    return grad_output * (x > 0)\n", 4)
    assert run_check("autograd.mse_grad", ok["mse_grad"]).passed
    assert run_check("autograd.relu_backward", ok["relu_backward"]).passed
    cheats = notebook_cell(
        "import torch\n"
        "def mse_grad(data, w, target):\n"
        "    with torch.enable_grad():\n"
        "        w = w.clone().requires_grad_()\n"
        "        loss = ((data @ w - target) ** 2).mean()\n"
        "        return torch.autograd.grad(loss, w)[0]\n", 5)
    result = run_check("autograd.mse_grad", cheats["mse_grad"])
    assert result.status == "fail" and "requires_grad_" in result.message


def test_line_numbers_count_from_the_decorator():
    cell = notebook_cell(
        "import functools\n"
        "@functools.lru_cache\n"
        "def scale_rows(x):\n"
        "    return (x - x.amin(1, keepdim=True)) / sum(\n"
        "        s + (s == 0) for s in [x.amax(1, keepdim=True) - x.amin(1, keepdim=True)])\n", 6)
    result = run_check("basics.scale_rows", cell["scale_rows"].__wrapped__)
    assert result.status == "fail"
    assert "a generator expression (line 3 of the function)" in result.message
