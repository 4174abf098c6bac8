"""Grade each chapter's own notebook with its autograder through ``otter run`` and measure it.

Usage (after ``make assignments``)::

    .venv/bin/python scripts/measure_autograders.py [notebooks] [dist/assignments]

For every chapter prints the score, the wall time, the CPU seconds (user + system, every process
of the run) and the peak memory of the whole process tree (the sum of each process's unique set
size, polled every 0.1 s), to compare with Gradescope's default limits (about 768 MB, half a CPU:
a run needs about twice its CPU seconds there). The chapter's notebook is the heaviest submission
there is: the student's copy runs the same cells.
"""

from __future__ import annotations

import json
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import psutil


def measure(notebook: pathlib.Path, autograder: pathlib.Path) -> dict:
    work = pathlib.Path(tempfile.mkdtemp(prefix="tl-measure-"))
    try:
        shutil.copyfile(notebook, work / notebook.name)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "otter", "run", "-a", str(autograder), "-o",
                                 str(work), "--no-logo", notebook.name], cwd=work,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        root, peak = psutil.Process(proc.pid), 0
        while proc.poll() is None:
            total = 0
            try:
                for p in [root, *root.children(recursive=True)]:
                    try:
                        total += p.memory_full_info().uss
                    except psutil.Error:
                        pass
            except psutil.Error:
                pass
            peak = max(peak, total)
            time.sleep(0.1)
        wall = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        tests = json.loads((work / "results.json").read_text())["tests"]
        score = sum(t.get("score") or 0 for t in tests)
        possible = sum(t.get("max_score") or 0 for t in tests)
        return {"score": f"{score:g}/{possible:g}", "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
                "peak_mib": round(peak / 2**20)}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv) -> int:
    notebooks = pathlib.Path(argv[0] if argv else "notebooks")
    assignments = pathlib.Path(argv[1] if len(argv) > 1 else "dist/assignments")
    for notebook in sorted(notebooks.glob("*.ipynb")):
        autograder = assignments / notebook.stem / "autograder.zip"
        if not autograder.exists():
            print(f"{notebook.stem}: no autograder (run make assignments)")
            continue
        m = measure(notebook, autograder.resolve())
        print(f"{notebook.stem}: {m['score']}, {m['wall_s']} s wall, {m['cpu_s']} s CPU, "
              f"peak {m['peak_mib']} MiB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
