"""The explorers read well in JupyterLab's dark theme, live (a kernel runs the cell).

JupyterLab starts from the venv with its theme set to "JupyterLab Dark" in its user settings, on
a notebook whose one cell shows each explorer (stride, broadcast, mask, float bits). The test runs the cell
with Shift+Enter, then checks that each widget took the dark colours (light text on a dark
surface, contrast at least 4.5:1), that the StrideExplorer drew its cells for a dark page, and
that axe-core finds no serious or critical WCAG 2 A/AA violation inside the widgets. Screenshots
go to ``_build/screenshots/jupyterlab-dark-*.png``.
"""

import re

import nbformat
import pytest

from .test_accessibility import AXE, BLOCKING, TAGS, _report
from .test_lab_sources import TOKEN, running_lab

pytestmark = pytest.mark.long

CELL = """\
import torch
import tensorlens as tl
from IPython.display import display
display(tl.StrideExplorer(torch.arange(12).view(3, 4)))
display(tl.BroadcastExplorer((3, 1), (1, 5)))
display(tl.MaskExplorer([4, 0, 3]))
display(tl.FloatBitsExplorer(0.1, "float16"))
"""

COLOURS = """el => {
    const rgb = (text) => (text.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
    const lum = ([r, g, b]) => {
        const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const s = getComputedStyle(el);
    const bg = lum(rgb(s.backgroundColor));
    const fg = lum(rgb(s.color));
    return { bg, fg, ratio: (Math.max(bg, fg) + 0.05) / (Math.min(bg, fg) + 0.05) };
}"""

AXE_IN_WIDGETS = """
async (tags) => {
  const result = await axe.run({ include: [[".tl-se"], [".tl-bx"], [".tl-mx"], [".tl-fb"]] }, {
    runOnly: { type: "tag", values: tags },
    resultTypes: ["violations"],
  });
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
  }));
}
"""


def test_explorers_in_jupyterlab_dark_theme(tmp_path, browser, screenshots):
    workdir = tmp_path / "work"
    workdir.mkdir()
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(CELL)]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, workdir / "dark.ipynb")
    settings = {"@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"}}

    with running_lab(tmp_path, workdir, settings) as url:
        page = browser.new_page()
        errors = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        try:
            page.goto(f"{url}/lab/tree/dark.ipynb?token={TOKEN}")
            cell = page.locator(".jp-NotebookPanel:visible .jp-CodeCell").first
            # Run the cell only once the kernel is up: a key pressed while it starts can be lost.
            page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\| Idle")).first.wait_for(
                timeout=120_000)
            cell.locator(".cm-content").click(timeout=90_000)
            page.keyboard.press("Shift+Enter")
            try:
                page.wait_for_selector(".tl-se .tl-stride", timeout=120_000)
            except Exception:
                page.screenshot(path=str(screenshots / "jupyterlab-dark-failed.png"))
                raise
            page.wait_for_selector(".tl-bx .tl-bx-result", timeout=30_000)
            page.wait_for_selector(".tl-fb .tl-fb-bit", timeout=30_000)
            assert page.evaluate("document.body.dataset.jpThemeLight") == "false"
            for selector in (".tl-se", ".tl-bx", ".tl-mx", ".tl-fb"):
                widget = page.locator(selector).first
                widget.scroll_into_view_if_needed()
                colours = widget.evaluate(COLOURS)
                assert colours["bg"] < 0.05 and colours["fg"] > 0.5, (selector, colours)
                assert colours["ratio"] >= 4.5, (selector, colours)
                widget.screenshot(path=str(screenshots / f"jupyterlab-dark-{selector[1:]}.png"))
            assert page.locator(".tl-se").first.get_attribute("data-theme") == "dark"
            page.add_script_tag(path=str(AXE))
            blocking = [v for v in page.evaluate(AXE_IN_WIDGETS, TAGS) if v["impact"] in BLOCKING]
            assert not blocking, _report(blocking)
        finally:
            page.close()
    assert not errors, errors
