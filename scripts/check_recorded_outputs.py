"""Re-run what the book shows as a recorded output instead of running it in every build, and
check that what the prose draws from the recording still holds (``make recorded``; minutes).

- 09-4, Inductor on the CPU: compiling takes minutes on a small machine, far beyond a page's
  budget, so the page prints the run recorded with ``TENSORLENS_RUN_INDUCTOR=1``. This runs the
  page with that variable set and checks the direction the prose relies on: the compiled
  ``hypot`` gives eager's values (the cell asserts it) and is faster per call than eager.

Exit status 1, with the reason, when a page fails or a claim no longer holds.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "notebooks" / "09-4-torch-compile.ipynb"
PER_CALL = re.compile(r"per call: eager ([\d.]+) ms, compiled ([\d.]+) ms")


def _stdout(notebook) -> str:
    return "".join(output.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
                   for output in cell.get("outputs", []) if output.get("name") == "stdout")


def main() -> int:
    notebook = nbformat.read(PAGE, as_version=4)
    os.environ["TENSORLENS_RUN_INDUCTOR"] = "1"  # the kernel inherits it
    NotebookClient(notebook, timeout=1200, kernel_name="python3",
                   resources={"metadata": {"path": str(PAGE.parent)}}).execute()
    text = _stdout(notebook)
    match = PER_CALL.search(text)
    if match is None:
        print(f"{PAGE.name}: the Inductor cell printed no timing:\n{text[-2000:]}")
        return 1
    eager, compiled = map(float, match.groups())
    print(f"{PAGE.name}: Inductor per call {compiled} ms against eager {eager} ms")
    if compiled >= eager:
        print("the prose says the compiled hypot is faster per call: it no longer is")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
