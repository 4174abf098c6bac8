"""Publishing: the GitHub Actions workflow runs `make test`, then deploys `_build/html` to Pages.

The workflow cannot run here; these checks keep it the thin wrapper it is meant to be: one
`make test` step (so CI is what a developer runs), the Colab stage's Python and cache, and a
Pages deployment of exactly the tested build, from main only.
"""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text(encoding="utf-8"))
STACK = (ROOT / "tests" / "colab" / "stack.txt").read_text(encoding="utf-8")


def _steps(job):
    return WORKFLOW["jobs"][job]["steps"]


def test_ci_runs_make_test_and_nothing_else_that_tests():
    runs = [step["run"] for step in _steps("test") if "run" in step]
    assert [r for r in runs if r.startswith("make ")] == ["make test PYTHON=python3.11"]
    assert not [r for r in runs if "pytest" in r or "jupyter-book" in r]


def test_ci_has_the_colab_stages_python_and_cache():
    pythons = [s["with"]["python-version"] for s in _steps("test")
               if s.get("uses", "").startswith("actions/setup-python")]
    colab_python = next(line.split("==")[1] for line in STACK.splitlines()
                        if line.startswith("# python=="))
    assert colab_python in pythons and "3.11" in pythons
    cache = next(s for s in _steps("test") if s.get("uses", "").startswith("actions/cache"))
    assert cache["with"]["path"] == "~/.cache/tensor-views"
    assert "hashFiles('tests/colab/stack.txt')" in cache["with"]["key"]


def test_pages_get_the_tested_build_from_main_only():
    upload = next(s for s in _steps("test") if s.get("uses", "").startswith("actions/upload-pages-artifact"))
    assert upload["with"]["path"] == "_build/html"
    deploy = WORKFLOW["jobs"]["deploy"]
    assert deploy["needs"] == "test"
    assert "refs/heads/main" in deploy["if"] and "push" in deploy["if"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]
    # `on: push` is parsed by YAML 1.1 as True
    triggers = WORKFLOW.get("on", WORKFLOW.get(True))
    assert triggers["push"]["branches"] == ["main"]


def test_ci_takes_torchs_cpu_build_the_way_uv_reads_it():
    env = WORKFLOW["jobs"]["test"]["env"]
    assert env.get("UV_TORCH_BACKEND") == "cpu"
    # the Makefile installs with uv, which ignores pip's variables
    assert not [name for name in env if name.startswith("PIP_") and "INDEX" in name]


def test_the_recorded_outputs_are_rechecked_weekly_in_their_own_job():
    recorded = yaml.safe_load((ROOT / ".github" / "workflows" / "recorded.yml")
                              .read_text(encoding="utf-8"))
    triggers = recorded.get("on", recorded.get(True))
    assert triggers["schedule"] and "workflow_dispatch" in triggers
    job = recorded["jobs"]["recorded"]
    assert job["env"]["UV_TORCH_BACKEND"] == "cpu"
    assert [s["run"] for s in job["steps"] if "run" in s] == ["make recorded PYTHON=python3.11"]
