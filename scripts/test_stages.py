"""make test's stages, step by step, with each stage's log and seconds.

    python3 scripts/test_stages.py           # what `make test` runs (the standard library only)

The first step, ``prepare``, installs what the others need (the venv, npm's packages, Debian's
Chromium, Colab's runtime) with ``make -j4``: on a fresh machine they wait on the network and the
disk, so side by side they take about as long as Colab's runtime alone (its 3 GB download).
The steps run one after the other (``STEPS``); a step runs its lanes side by side, and a lane
runs its stages (make targets) one after the other. Unit runs alone: beside other stages it was
measured slower, and the grading tests' time limits failed under the doubled load. The rest is
one step of two lanes, nbval then the Colab stage, and the build, the zip, the browser and the
JS tests: every stage after unit keeps the cores busy only most of the time (a kernel waits on
its client, a page on its requests), so the two lanes fill each other's gaps (measured below).
The build does not sync the notebooks (``make -o sync``): the unit stage has passed only if every
notebook is current (``tests/test_sources.py``, ``tests/test_zh_notebooks.py`` compare them as
``make sync`` does), so there is nothing to write while nbval and the Colab stage read them.

Each stage's output goes to ``_build/test-logs/<stage>.log`` and, line by line with the stage's
name in front, to the terminal. A failing stage ends the run after its step, and its log tail is
printed. The seconds of every stage, and of every step the cores were busy (from
``/proc/stat``, all processes: ``busy`` 2.0 is both cores busy all the step long), go to
``_build/test-stages.json`` and into the last lines printed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "_build" / "test-logs"
TIMES = ROOT / "_build" / "test-stages.json"
#: each step's lanes, side by side; a lane's stages run one after the other, and a step ends when
#: all its lanes have
STEPS = [[["prepare"]], [["unit"]],
         [["notebooks", "test-colab"], ["book-strict", "zip-book", "browser", "js"]]]
#: what a stage's make is told besides its target: ``prepare`` installs the venv, npm's packages,
#: Chromium and Colab's runtime side by side; the build leaves the notebooks as they are (the unit
#: stage proved them current) while nbval and the Colab stage read them
MAKE_ARGS = {"prepare": ["-j4"], "book-strict": ["-o", "sync"]}


def busy_core_seconds() -> float | None:
    """The CPU-seconds every core of this machine has spent busy since boot (user, nice, system,
    interrupts; not idle, waiting on the disk or stolen by the hypervisor), or None without
    ``/proc/stat``."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq = (int(f) for f in fields[:7])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


class Run:
    def __init__(self):
        self.failed: list[str] = []
        self.seconds: dict[str, float] = {}
        self.steps: list[dict] = []
        self.lock = threading.Lock()

    def stage(self, stage: str) -> None:
        start = time.monotonic()
        log = LOGS / f"{stage}.log"
        with log.open("w", encoding="utf-8") as out:
            command = ["make", "--no-print-directory", *MAKE_ARGS.get(stage, []), stage]
            proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, bufsize=1)
            for line in proc.stdout:
                out.write(line)
                with self.lock:
                    print(f"[{stage}] {line}", end="", flush=True)
            code = proc.wait()
        with self.lock:
            self.seconds[stage] = round(time.monotonic() - start, 1)
            print(f"[{stage}] finished in {self.seconds[stage]:.0f} s"
                  f"{'' if code == 0 else f' and FAILED (exit {code})'}", flush=True)
            if code:
                self.failed.append(stage)

    def lane(self, stages: list[str]) -> None:
        """``stages`` one after the other, up to the first that fails."""
        for stage in stages:
            self.stage(stage)
            if stage in self.failed:
                return

    def step(self, lanes: list[list[str]]) -> None:
        start, busy = time.monotonic(), busy_core_seconds()
        threads = [threading.Thread(target=self.lane, args=(lane,)) for lane in lanes]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        seconds = time.monotonic() - start
        cores = None if busy is None else round((busy_core_seconds() - busy) / seconds, 2)
        self.steps.append({"lanes": lanes, "seconds": round(seconds, 1), "busy": cores})


def _step_line(step: dict, seconds: dict[str, float]) -> str:
    """``unit 206 (1.8)``, or ``notebooks 75 > test-colab 150 | book-strict 90 > ...: 480 (1.9)``
    for a step of two lanes (a stage that did not run is left out)."""
    lanes = [" > ".join(f"{stage} {seconds[stage]:.0f}" for stage in lane if stage in seconds)
             for lane in step["lanes"]]
    whole = f": {step['seconds']:.0f}" if len(lanes) > 1 or len(lanes[0].split(" > ")) > 1 else ""
    busy = "" if step["busy"] is None else f" ({step['busy']:.1f})"
    return " | ".join(lanes) + whole + busy


def main() -> int:
    LOGS.mkdir(parents=True, exist_ok=True)
    run = Run()
    start = time.monotonic()
    for lanes in STEPS:
        run.step(lanes)
        if run.failed:
            break
    total = round(time.monotonic() - start, 1)
    TIMES.write_text(json.dumps({"stages": run.seconds, "steps": run.steps, "total": total},
                                indent=1) + "\n", encoding="utf-8")
    for stage in run.failed:
        tail = (LOGS / f"{stage}.log").read_text(encoding="utf-8").splitlines()[-60:]
        print(f"\n===== {stage} failed; the end of _build/test-logs/{stage}.log:\n" + "\n".join(tail))
    print("\nseconds (cores busy): " + ", ".join(_step_line(step, run.seconds) for step in run.steps)
          + f"; {total:.0f} s in all")
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main())
