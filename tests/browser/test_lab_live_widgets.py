"""The explorers work in a live JupyterLab: a click redraws them and reaches the kernel.

JupyterLab starts from the venv (``jupyter lab --no-browser`` on a free port, with every other
host blocked) on a copy of the chapter notebooks that show a StrideExplorer and a
BroadcastExplorer, found by looking at the sources, the smallest first. Their stored outputs are
cleared and a probe cell is appended that prints, as JSON, what the kernel's explorers hold.
The test runs all cells from JupyterLab's Run menu, clicks ``transpose`` in a StrideExplorer
and ``+ operand`` in a BroadcastExplorer, checks each widget redrew (shape and stride swapped; a
third operand row), runs the probe again and checks the Python side saw exactly those changes in
the widgets' traits. The page must log no error to the console. The server is stopped by its own
process group (``running_lab``).
"""

import json
import re
import time
from pathlib import Path

import nbformat
import pytest

from .test_lab_sources import TOKEN, running_lab

pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parents[2]
PROBE = """\
import json
from ipywidgets.widgets.widget import _instances
print("PROBE " + json.dumps({
    "run": get_ipython().execution_count,
    "stride": [w.ops for w in list(_instances.values())
               if isinstance(w, tl.StrideExplorer)],
    "broadcast": [[o.get("text") for o in w.operands] for w in list(_instances.values())
                  if isinstance(w, tl.BroadcastExplorer)],
}))
"""
# Open every cell to the DOM: JupyterLab otherwise draws only the cells near the viewport.
SETTINGS = {"@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
            # no "get notified about Jupyter news?" pop-up over the page
            "@jupyterlab/apputils-extension:notification": {"fetchNews": "false"}}


def _chapters_showing(*calls):
    """The smallest notebooks that, together, show every one of ``calls``."""
    chosen = []
    for call in calls:
        if any(call in path.read_text(encoding="utf-8") for path in chosen):
            continue
        having = [p for p in sorted((ROOT / "notebooks").glob("*.ipynb")) if call in
                  "".join(c.source for c in nbformat.read(p, as_version=4).cells
                          if c.cell_type == "code")]
        assert having, f"no notebook shows {call}"
        chosen.append(min(having, key=lambda p: (len(nbformat.read(p, as_version=4).cells), p.name)))
    return chosen


def _copy_with_probe(path, workdir):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    nbformat.write(nb, workdir / path.name)


def _probe(page, after=None):
    """Run the probe cell (the last one) and return what it printed."""
    probe = page.locator(".jp-NotebookPanel:visible .jp-CodeCell").last
    if after is not None:
        probe.locator(".cm-content").click()
        page.keyboard.press("Control+Enter")  # run it, staying on it (no new cell below)
    output = probe.locator(".jp-OutputArea-output", has_text="PROBE ")
    deadline = time.monotonic() + 180
    while True:
        if output.count() and output.first.inner_text() != after:
            text = output.first.inner_text()
            return text, json.loads(text.split("PROBE ", 1)[1])
        assert time.monotonic() < deadline, "the probe cell printed nothing"
        time.sleep(0.5)


def _run_all(page):
    """Run > Run All Cells, once the kernel is idle; again if the first cell did not start
    (a command given while the kernel connects can be lost)."""
    first = page.locator(".jp-NotebookPanel:visible .jp-CodeCell .jp-InputPrompt").first
    # JupyterLab may ask which kernel to start (the notebook's own is preselected)
    select = page.locator(".jp-Dialog button", has_text=re.compile(r"^Select$"))
    for _ in range(3):
        page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\| Idle")).first.wait_for(
            timeout=120_000)
        if select.count():
            select.first.click()
            continue
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if re.search(r"\[(\*|\d+)\]", first.inner_text()):
                return
            time.sleep(0.5)
    raise AssertionError("Run All Cells did not start the notebook")


def test_explorers_respond_to_clicks_in_a_live_jupyterlab(tmp_path, browser, screenshots):
    workdir = tmp_path / "work"
    workdir.mkdir()
    chapters = _chapters_showing("tl.StrideExplorer(", "tl.BroadcastExplorer(")
    for path in chapters:
        _copy_with_probe(path, workdir)

    clicked = {}
    with running_lab(tmp_path, workdir, SETTINGS) as url:
        for path in chapters:
            page = browser.new_page()
            errors = []
            page.on("pageerror", lambda err: errors.append(f"page error: {err}"))
            page.on("console", lambda msg: msg.type == "error" and errors.append(
                f"console: {msg.text}"))
            try:
                page.goto(f"{url}/lab/tree/{path.name}?reset&token={TOKEN}")
                _run_all(page)
                before_text, before = _probe(page)
                source = path.read_text(encoding="utf-8")
                if "tl.StrideExplorer(" in source and "stride" not in clicked:
                    assert before["stride"] and all(ops == [] for ops in before["stride"])
                    transpose = "button[data-op='transpose']:enabled"
                    explorer = page.locator(".tl-se", has=page.locator(transpose)).first
                    explorer.scroll_into_view_if_needed()
                    button = explorer.locator(transpose)
                    shape, stride = explorer.locator(".tl-shape"), explorer.locator(".tl-stride")
                    old = (shape.inner_text(), stride.inner_text())
                    button.click()
                    assert shape.inner_text() == _swap(old[0])
                    assert stride.inner_text() == _swap(old[1])
                    explorer.screenshot(path=str(screenshots / "jupyterlab-live-stride-explorer.png"))
                    clicked["stride"] = True
                if "tl.BroadcastExplorer(" in source and "broadcast" not in clicked:
                    explorer = page.locator(".tl-bx").first
                    explorer.scroll_into_view_if_needed()
                    rows = explorer.locator("input.tl-bx-input")
                    count = rows.count()
                    explorer.locator("button.tl-bx-add").click()
                    assert rows.count() == count + 1
                    explorer.screenshot(path=str(screenshots / "jupyterlab-live-broadcast-explorer.png"))
                    clicked["broadcast"] = count
                _, after = _probe(page, before_text)
                if clicked.get("stride") is True:
                    changed = [ops for ops in after["stride"] if ops]
                    assert changed == [[["transpose", [0, 1]]]], after["stride"]
                    assert len(after["stride"]) == len(before["stride"])
                    clicked["stride"] = "checked"
                if isinstance(clicked.get("broadcast"), int):
                    grown = [i for i, (a, b) in enumerate(zip(before["broadcast"], after["broadcast"]))
                             if a != b]
                    assert len(grown) == 1, (before["broadcast"], after["broadcast"])
                    i = grown[0]
                    assert len(after["broadcast"][i]) == len(before["broadcast"][i]) + 1
                    assert after["broadcast"][i][:-1] == before["broadcast"][i]
                    assert len(before["broadcast"][i]) == clicked["broadcast"]
                    clicked["broadcast"] = "checked"
            except Exception:
                page.screenshot(path=str(screenshots / "jupyterlab-live-failed.png"))
                raise
            finally:
                page.close()
            assert not errors, errors
    assert clicked == {"stride": "checked", "broadcast": "checked"}


def _swap(tuple_text):
    items = [s.strip() for s in tuple_text.strip("()").split(",") if s.strip()]
    items[0], items[1] = items[1], items[0]
    return "(" + ", ".join(items) + ")"
