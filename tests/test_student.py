"""python -m tensorlens.classroom.student: stubs in solution cells, outputs cleared, the rest unchanged.

Runs over every chapter notebook that exists, so a chapter whose solution cells break the
contract (something other than functions in a solution cell) fails here.
"""

import ast
import pathlib
import textwrap

import nbformat
import pytest
import torch

from tensorlens.exercises import EXERCISES
from tensorlens.exercises._core import run_check
from tensorlens.classroom.student import STUB, main, make_student_copies, stub_source

ROOT = pathlib.Path(__file__).parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_stub_keeps_signature_docstring_and_decorators():
    source = textwrap.dedent('''\
        import torch

        @staticmethod
        def view_of(x: torch.Tensor, k: int = 2) -> torch.Tensor:
            """Docstring stays.

            Even on several lines.
            """
            # a comment that gives the answer away
            return x.unfold(0, k, 1)
            # and a trailing one

        def one_liner(a, *, b=1): return a + b

        def no_doc(x,
                   y):
            return x + y  # answer
        ''')
    assert stub_source(source) == textwrap.dedent(f'''\
        import torch

        @staticmethod
        def view_of(x: torch.Tensor, k: int = 2) -> torch.Tensor:
            """Docstring stays.

            Even on several lines.
            """
            {STUB}

        def one_liner(a, *, b=1):
            {STUB}

        def no_doc(x,
                   y):
            {STUB}
        ''')


@pytest.mark.parametrize("source, message", [
    ("x = 1\ndef f():\n    return x\n", "line 1 holds a Assign"),
    ("def f(:\n", "does not parse"),
    ("print(f())\n", "holds a Expr"),
])
def test_solution_cells_may_only_define_functions(source, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        stub_source(source)


def _toy_notebook(path):
    cells = [
        nbformat.v4.new_markdown_cell("# Toy"),
        nbformat.v4.new_code_cell("def transpose_view(x):\n    \"\"\"Doc.\"\"\"\n    return x.T",
                                  metadata={"tags": ["solution", "hide-input"]}),
        nbformat.v4.new_code_cell('tl.check("memory_layout.transpose_view", transpose_view)',
                                  execution_count=3,
                                  outputs=[nbformat.v4.new_output("execute_result", {"text/plain": "ok"},
                                                                  execution_count=3)]),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    nbformat.write(nb, path)


def test_cli_writes_student_copies(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    _toy_notebook(src / "toy.ipynb")
    original = (src / "toy.ipynb").read_text()
    assert main([str(src), str(tmp_path / "dist")]) == 0
    assert "toy.ipynb: 1 solution function stubbed" in capsys.readouterr().out
    assert (src / "toy.ipynb").read_text() == original
    copy = nbformat.read(tmp_path / "dist" / "toy.ipynb", as_version=4)
    assert copy.cells[0].source == "# Toy"
    assert copy.cells[1].source == f'def transpose_view(x):\n    """Doc."""\n    {STUB}'
    assert copy.cells[1].metadata["tags"] == ["solution", "hide-input"]
    assert copy.cells[2].source == 'tl.check("memory_layout.transpose_view", transpose_view)'
    assert copy.cells[2].outputs == [] and copy.cells[2].execution_count is None
    assert "widgets" not in copy.metadata
    assert main([str(tmp_path / "empty"), str(tmp_path / "x")]) == 1


@pytest.mark.skipif(not NOTEBOOKS, reason="no chapter notebooks yet")
def test_every_chapter_notebook_becomes_a_working_student_copy(tmp_path):
    counts = make_student_copies(ROOT / "notebooks", tmp_path)
    assert sorted(counts) == [p.name for p in NOTEBOOKS]
    for path in NOTEBOOKS:
        original = nbformat.read(path, as_version=4)
        copy = nbformat.read(tmp_path / path.name, as_version=4)
        assert len(copy.cells) == len(original.cells)
        namespace = {"torch": torch}
        for before, after in zip(original.cells, copy.cells):
            assert after.cell_type == before.cell_type
            if after.cell_type != "code":
                assert after.source == before.source
                continue
            assert after.outputs == [] and after.execution_count is None
            if "solution" not in after.metadata.get("tags", []):
                assert after.source == before.source
                continue
            exec(compile(after.source, path.name, "exec"), namespace)
        # every check in the student copy runs against a stub: "not implemented yet", never a crash
        for cell in copy.cells:
            if cell.cell_type != "code":
                continue
            try:
                tree = ast.parse(cell.source)
            except SyntaxError:
                continue  # cells with IPython magics hold no checks
            # a worked example (a wrong attempt and its failing report) defines what it checks
            defined_here = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
            for node in ast.walk(tree):
                if (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "check"
                        and len(node.args) == 2 and isinstance(node.args[1], ast.Name)
                        and node.args[1].id not in defined_here):
                    exercise_id, fn_name = node.args[0].value, node.args[1].id
                    assert exercise_id in EXERCISES, f"{path.name}: unknown exercise {exercise_id}"
                    assert fn_name in namespace, f"{path.name}: {fn_name} is not defined in a solution cell"
                    result = run_check(exercise_id, namespace[fn_name])
                    assert result.status == "not_implemented", (path.name, repr(result))
