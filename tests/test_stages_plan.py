"""make test's plan (scripts/test_stages.py): every stage once, a real make target, and the
notebooks proved current before the build and the Colab stage read them side by side."""

import re
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import test_stages  # noqa: E402

TARGETS = set(re.findall(r"^([a-z][a-z-]*):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M))
STAGES = [stage for step in test_stages.STEPS for stage in step]


def test_every_stage_is_a_make_target_run_once():
    assert set(STAGES) <= TARGETS, set(STAGES) - TARGETS
    assert len(STAGES) == len(set(STAGES))
    assert {"unit", "notebooks", "book-strict", "test-colab", "browser", "js"} <= set(STAGES)


def test_the_build_beside_the_colab_stage_does_not_rewrite_the_notebooks_it_reads():
    step = next(i for i, stages in enumerate(test_stages.STEPS) if "book-strict" in stages)
    assert "test-colab" in test_stages.STEPS[step]
    # the unit stage, whose test_sources and test_zh_notebooks fail on any notebook `make sync`
    # would write, has passed before: the build is told not to sync
    assert any("unit" in stages for stages in test_stages.STEPS[:step])
    assert test_stages.MAKE_ARGS["book-strict"] == ["-o", "sync"]


@pytest.mark.skipif(test_stages.busy_core_seconds() is None, reason="no /proc/stat")
def test_busy_core_seconds_count_a_busy_loop():
    before, start = test_stages.busy_core_seconds(), time.process_time()
    while time.process_time() - start < 0.3:
        pass
    assert test_stages.busy_core_seconds() - before >= 0.25


def test_a_step_of_two_is_shown_with_the_seconds_of_each_and_of_the_step():
    step = {"stages": ["book-strict", "test-colab"], "seconds": 208.2, "busy": 1.87}
    assert test_stages._step_line(step, {"book-strict": 159.6, "test-colab": 208.2}) == \
        "book-strict 160 | test-colab 208: 208 (1.9)"
    assert test_stages._step_line({"stages": ["js"], "seconds": 2, "busy": None}, {"js": 2.3}) == "js 2"


def test_the_first_step_installs_everything_side_by_side():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert test_stages.STEPS[0] == ["prepare"] and test_stages.MAKE_ARGS["prepare"] == ["-j4"]
    assert re.search(r"^prepare: setup chromium colab-runtime$", makefile, re.M)
    # under -j a recipe that runs the venv's Python must wait for the venv
    for target in ("$(VENDOR)", "colab-runtime", "$(LAB_SETTINGS)"):
        rule = re.search(rf"^{re.escape(target)}:(.*)$", makefile, re.M)
        assert rule and "$(STAMP)" in rule.group(1), target
    # make test itself starts on the system's Python: the venv does not exist yet
    assert re.search(r"^test:\n\t\$\(PYTHON\) scripts/test_stages.py$", makefile, re.M)


def test_ci_runs_the_test_command_and_nothing_else():
    commands = [line for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
                if line.strip() and not line.startswith("#")]
    assert commands[-1] == "make test"
    assert not any("apt-get" in line for line in commands)
