"""Run one submitted notebook in a fresh kernel: the child process of ``tensorlens.classroom.grade``.

Usage: ``python -m tensorlens.classroom._grade_run NOTEBOOK TIMEOUT_S KERNEL``, started by the grader in the
submission's own temporary folder (the kernel's working directory), with ``TENSORLENS_RESULTS``
set so that every ``check`` appends its verdict to a file that only this run knows.

Contract
--------
- The whole notebook gets ``TIMEOUT_S`` seconds from its first cell (each cell gets what is left;
  starting the kernel does not count); errors in cells do not stop the run (later checks still
  count). Always shuts the kernel down before exiting.
- Reports on its stdout only, which the kernel cannot reach: the runner moves that pipe to a
  descriptor the kernel does not inherit and gives the kernel ``/dev/null`` as its stdout. The
  first line is ``kernel <process group>`` as soon as the kernel starts (so the grader can kill
  the kernel even if this process itself is killed), the last line is one JSON object:
  ``{"report": {status: ok | timeout | crashed, message, cell_errors, stopped_at},
  "executed": <the executed notebook as nbformat JSON>}``. Nothing is written to disk.
- On Linux the runner makes itself a child subreaper, so any process the notebook leaves behind
  (even one started in a new session, with a clean environment, by a double fork) becomes its
  child; before exiting it kills every descendant it still has.
"""

from __future__ import annotations

import ctypes
import json
import os
import pathlib
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from ._processes import descendants, kill_until_gone
from .kernels import AsyncUnixSocketKernelManager

_PR_SET_CHILD_SUBREAPER = 36


def _become_subreaper() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the grader's own kills still apply
        pass


def kill_descendants() -> bool:
    """SIGKILL every descendant of this process until none is left; True when none is."""
    return kill_until_gone(lambda: descendants(os.getpid()), reap=True)


def run(notebook: pathlib.Path, timeout: float, kernel: str, say) -> tuple[dict, str]:
    nb = nbformat.read(notebook, as_version=4)
    # the clock starts with the first cell, so a slow kernel start (busy machine) costs no time;
    # nbclient's own startup timeout bounds the start
    deadline = []
    report = {"status": "ok", "message": "", "cell_errors": [], "running": None}

    def on_start(**_):
        provisioner = getattr(client.km, "provisioner", None)
        pid = getattr(provisioner, "pgid", None) or getattr(provisioner, "pid", None)
        if pid:
            say(f"kernel {int(pid)}")

    def on_cell(cell_index, **_):
        report["running"] = cell_index
        if not deadline:
            deadline.append(time.monotonic() + timeout)

    def time_left(cell):
        end = deadline[0] if deadline else time.monotonic() + timeout
        return max(1, int(end - time.monotonic()))

    client = NotebookClient(
        nb, kernel_name=kernel, allow_errors=True, record_timing=False, timeout_func=time_left,
        kernel_manager_class=AsyncUnixSocketKernelManager,
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
    return report, nbformat.writes(nb)


def main(argv) -> int:
    notebook, timeout, kernel = argv
    # the report pipe moves to a descriptor that is not inherited (os.dup gives non-inheritable
    # ones); fd 1, which the kernel inherits, becomes /dev/null
    sys.stdout.flush()
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    _become_subreaper()

    def say(line: str) -> None:
        channel.write(line + "\n")
        channel.flush()

    try:
        report, executed = run(pathlib.Path(notebook), float(timeout), kernel, say)
    finally:
        clean = kill_descendants()
    if not clean:
        report["message"] = (report["message"] + "; " if report["message"] else "") + \
            "processes it started could not all be killed"
    say(json.dumps({"report": report, "executed": executed}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
