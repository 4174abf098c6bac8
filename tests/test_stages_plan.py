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
STAGES = [stage for step in test_stages.STEPS for lane in step for stage in lane]


def _step_of(stage):
    return next(i for i, step in enumerate(test_stages.STEPS) if any(stage in lane for lane in step))


def test_every_stage_is_a_make_target_run_once():
    assert set(STAGES) <= TARGETS, set(STAGES) - TARGETS
    assert len(STAGES) == len(set(STAGES))
    assert {"unit", "notebooks", "book-strict", "test-colab", "browser", "js"} <= set(STAGES)


def test_the_build_beside_nbval_and_the_colab_stage_does_not_rewrite_the_notebooks_they_read():
    step = _step_of("book-strict")
    assert _step_of("test-colab") == step and _step_of("notebooks") == step
    # the unit stage, whose test_sources and test_zh_notebooks fail on any notebook `make sync`
    # would write, has passed before: the build is told not to sync
    assert _step_of("unit") < step
    assert test_stages.MAKE_ARGS["book-strict"] == ["-o", "sync"]


def test_unit_runs_alone_and_what_needs_the_book_follows_the_build_in_its_lane():
    assert test_stages.STEPS[_step_of("unit")] == [["unit"]]
    lane = next(lane for lane in test_stages.STEPS[_step_of("book-strict")] if "book-strict" in lane)
    assert lane.index("book-strict") < lane.index("zip-book") < lane.index("browser")


def test_a_lane_stops_at_its_first_failing_stage_and_the_other_lane_runs_on(monkeypatch):
    run, ran = test_stages.Run(), []

    def stage(name):
        ran.append(name)
        if name == "b":
            run.failed.append(name)

    monkeypatch.setattr(run, "stage", stage)
    run.step([["a", "b", "c"], ["d", "e"]])
    assert sorted(ran) == ["a", "b", "d", "e"] and run.failed == ["b"]
    assert run.steps[0]["lanes"] == [["a", "b", "c"], ["d", "e"]]


@pytest.mark.skipif(test_stages.busy_core_seconds() is None, reason="no /proc/stat")
def test_busy_core_seconds_count_a_busy_loop():
    before, start = test_stages.busy_core_seconds(), time.process_time()
    while time.process_time() - start < 0.3:
        pass
    assert test_stages.busy_core_seconds() - before >= 0.25


def test_a_step_of_two_lanes_is_shown_with_the_seconds_of_each_stage_and_of_the_step():
    step = {"lanes": [["notebooks", "test-colab"], ["book-strict", "browser"]], "seconds": 480.2,
            "busy": 1.87}
    seconds = {"notebooks": 75.2, "test-colab": 150.4, "book-strict": 90.0, "browser": 388.1}
    assert test_stages._step_line(step, seconds) == \
        "notebooks 75 > test-colab 150 | book-strict 90 > browser 388: 480 (1.9)"
    assert test_stages._step_line({"lanes": [["js"]], "seconds": 2, "busy": None}, {"js": 2.3}) == "js 2"
    # a lane that stopped at a failure shows the stages that ran
    assert test_stages._step_line({"lanes": [["a", "b"]], "seconds": 5, "busy": None}, {"a": 5}) == "a 5"


def test_the_first_step_installs_everything_side_by_side():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert test_stages.STEPS[0] == [["prepare"]] and test_stages.MAKE_ARGS["prepare"] == ["-j4"]
    assert re.search(r"^prepare: setup chromium colab-runtime$", makefile, re.M)
    # under -j a recipe that runs the venv's Python must wait for the venv
    for target in ("$(VENDOR)", "$(LAB_SETTINGS)"):
        rule = re.search(rf"^{re.escape(target)}:(.*)$", makefile, re.M)
        assert rule and "$(STAMP)" in rule.group(1), target
    # Colab's runtime needs uv only, and starts while the venv's pins install
    assert re.search(r"^colab-runtime: \| \$\(UV_STAMP\)\n\t\$\(PY\) tests/colab/colab_runtime.py$",
                     makefile, re.M)
    assert re.search(r"^\$\(STAMP\):.*\| \$\(UV_STAMP\)$", makefile, re.M)
    # make test itself starts on the system's Python: the venv does not exist yet
    assert re.search(r"^test:\n\t\$\(PYTHON\) scripts/test_stages.py$", makefile, re.M)


def test_ci_runs_the_test_command_and_nothing_else():
    commands = [line for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
                if line.strip() and not line.startswith("#")]
    assert commands[-1] == "make test"
    assert not any("apt-get" in line for line in commands)
