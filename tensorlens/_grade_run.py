"""Run one submitted notebook in a fresh kernel: the child process of ``tensorlens.grade``.

Usage: ``python -m tensorlens._grade_run NOTEBOOK REPORT_DIR TIMEOUT_S KERNEL``, started by the
grader in the submission's own temporary folder (the kernel's working directory), with
``TENSORLENS_RESULTS`` set so that every ``check`` appends its verdict to a file.

Contract: the whole notebook gets ``TIMEOUT_S`` seconds from its first cell (each cell gets what
is left; starting the kernel does not count); errors in
cells do not stop the run (later checks still count). Writes to REPORT_DIR: ``kernel.pid`` (the
kernel's process group, so the grader can kill it if this process itself is killed),
``run.json`` (``status``: ok, timeout or crashed; the cells that raised) and ``executed.ipynb``.
Always shuts the kernel down before exiting.
"""

from __future__ import annotations

import json
import pathlib
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError


def run(notebook: pathlib.Path, report_dir: pathlib.Path, timeout: float, kernel: str) -> dict:
    nb = nbformat.read(notebook, as_version=4)
    # the clock starts with the first cell, so a slow kernel start (busy machine) costs no time;
    # nbclient's own startup timeout bounds the start
    deadline = []
    report = {"status": "ok", "message": "", "cell_errors": [], "running": None}

    def on_start(**_):
        provisioner = getattr(client.km, "provisioner", None)
        pid = getattr(provisioner, "pgid", None) or getattr(provisioner, "pid", None)
        if pid:
            (report_dir / "kernel.pid").write_text(str(pid))

    def on_cell(cell_index, **_):
        report["running"] = cell_index
        if not deadline:
            deadline.append(time.monotonic() + timeout)

    def time_left(cell):
        end = deadline[0] if deadline else time.monotonic() + timeout
        return max(1, int(end - time.monotonic()))

    client = NotebookClient(
        nb, kernel_name=kernel, allow_errors=True, record_timing=False, timeout_func=time_left,
        resources={"metadata": {"path": str(notebook.parent)}},
        on_notebook_start=on_start, on_cell_execute=on_cell,
    )
    try:
        client.execute()
    except CellTimeoutError:
        report["status"] = "timeout"
        report["message"] = f"the notebook did not finish within {timeout:g} s"
    except DeadKernelError:
        report["status"] = "crashed"
        report["message"] = "the kernel died (the notebook crashed or exited)"
    except Exception as err:  # e.g. the kernel could not start; recorded, never fatal
        report["status"] = "crashed"
        report["message"] = f"{type(err).__name__}: {err}"
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                report["cell_errors"].append({"cell": index, "ename": out.get("ename", ""),
                                              "evalue": str(out.get("evalue", ""))[:300]})
    # the cell that was running when the run stopped (None when it finished)
    report["stopped_at"] = report.pop("running") if report["status"] != "ok" else None
    nbformat.write(nb, report_dir / "executed.ipynb")
    return report


def main(argv) -> int:
    notebook, report_dir, timeout, kernel = argv
    report_dir = pathlib.Path(report_dir)
    report = run(pathlib.Path(notebook), report_dir, float(timeout), kernel)
    (report_dir / "run.json").write_text(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
