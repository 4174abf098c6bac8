"""make test's stages, one after the other, with each stage's log and seconds.

    python scripts/test_stages.py            # what `make test` runs after `setup` and `chromium`

A lane runs its stages (make targets) one after the other; lanes would run side by side. There
is one lane: two lanes on two cores (unit and notebooks beside the runtime, the build and the
browser) were measured slower in all (19 min against about 17), and the grading tests' time
limits failed under the doubled load. Each stage's output goes to
``_build/test-logs/<stage>.log`` and, line by line with the stage's name in front, to the
terminal. A failing stage stops the run and its log tail is printed. The seconds of every stage,
and the CPU-seconds its processes used (a stage that keeps both cores busy uses twice its
seconds), go to ``_build/test-stages.json`` and into the last lines printed.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "_build" / "test-logs"
TIMES = ROOT / "_build" / "test-stages.json"
LANES = [
    ["colab-runtime", "unit", "notebooks", "book-strict", "test-colab", "zip-book", "browser", "js"],
]


def _children_cpu() -> float:
    """The CPU-seconds (user and system) of the ended processes this one has waited for, and of
    theirs: a stage's CPU-seconds over its seconds is how many cores it kept busy."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Run:
    def __init__(self):
        self.failed: list[str] = []
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.lock = threading.Lock()

    def lane(self, stages: list[str]) -> None:
        for stage in stages:
            if self.failed:
                return
            start = time.monotonic()
            used = _children_cpu()
            log = LOGS / f"{stage}.log"
            with log.open("w", encoding="utf-8") as out:
                proc = subprocess.Popen(["make", "--no-print-directory", stage], cwd=ROOT,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        bufsize=1)
                for line in proc.stdout:
                    out.write(line)
                    with self.lock:
                        print(f"[{stage}] {line}", end="", flush=True)
                code = proc.wait()
            with self.lock:
                self.seconds[stage] = round(time.monotonic() - start, 1)
                self.cpu[stage] = round(_children_cpu() - used, 1)
                print(f"[{stage}] finished in {self.seconds[stage]:.0f} s"
                      f" ({self.cpu[stage]:.0f} CPU-s)"
                      f"{'' if code == 0 else f' and FAILED (exit {code})'}", flush=True)
                if code:
                    self.failed.append(stage)


def main() -> int:
    LOGS.mkdir(parents=True, exist_ok=True)
    run = Run()
    start = time.monotonic()
    threads = [threading.Thread(target=run.lane, args=(lane,)) for lane in LANES]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    total = round(time.monotonic() - start, 1)
    TIMES.write_text(json.dumps({"stages": run.seconds, "cpu_seconds": run.cpu, "total": total}, indent=1) + "\n",
                     encoding="utf-8")
    for stage in run.failed:
        tail = (LOGS / f"{stage}.log").read_text(encoding="utf-8").splitlines()[-60:]
        print(f"\n===== {stage} failed; the end of _build/test-logs/{stage}.log:\n" + "\n".join(tail))
    print("\nstage seconds (CPU-seconds): "
          + ", ".join(f"{k} {v:.0f} ({run.cpu[k]:.0f})" for k, v in run.seconds.items())
          + f"; {total:.0f} s in all")
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main())
