"""A chapter's text source opens, edits and saves as a notebook in a real JupyterLab.

JupyterLab runs from the project's venv (as `make lab` starts it) on a copy of one chapter source,
with every other host blocked. The test opens the `.md` with a double click on its name, checks it
is shown as a notebook (rendered headings, code cells), types a line into a code cell, saves with
Ctrl+S and reads the file back: that cell changed, every other cell and the front matter did not,
and no `.ipynb` was written beside it (the generated notebook comes from `make sync` only).
"""

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import sync_notebooks  # noqa: E402

CHAPTER = "03-1-storage-and-strides"
TOKEN = "tensor-views-test"
ADDED = "# added in JupyterLab"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_lab(tmp_path, workdir, settings=None):
    """JupyterLab from the venv on ``workdir``, with its own config, settings and workspaces.

    ``settings`` maps a plugin id (``@jupyterlab/apputils-extension:themes``) to the user settings
    JupyterLab should start with. Yields the server's URL; stops the server afterwards.
    """
    settings_dir = tmp_path / "settings"
    for plugin, values in (settings or {}).items():
        package, name = plugin.rsplit(":", 1)
        target = settings_dir / package / f"{name}.jupyterlab-settings"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(values), encoding="utf-8")
    port = _free_port()
    # kernels on unix sockets named after their connection files (no TCP port for another process
    # to take first: tensorlens/classroom/kernels.py), in a folder whose path is short enough
    runtime = tempfile.mkdtemp(prefix="lab-")
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTER_RUNTIME_DIR=runtime,
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
               JUPYTERLAB_SETTINGS_DIR=str(settings_dir))
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser",
         f"--port={port}", "--ip=127.0.0.1", f"--IdentityProvider.token={TOKEN}",
         f"--ServerApp.root_dir={workdir}", "--KernelManager.transport=ipc",
         *(["--allow-root"] if os.geteuid() == 0 else [])],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2)
            break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail(f"JupyterLab did not start: {server.stderr.read().decode()[-2000:]}")
            time.sleep(0.5)
    try:
        yield url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture()
def lab(tmp_path):
    workdir = tmp_path / "work"
    workdir.mkdir()
    shutil.copy(ROOT / "notebooks" / f"{CHAPTER}.md", workdir)
    with running_lab(tmp_path, workdir) as url:
        yield url, workdir


@pytest.mark.long
def test_a_source_opens_edits_and_saves_as_a_notebook(lab, browser, screenshots):
    url, workdir = lab
    source = workdir / f"{CHAPTER}.md"
    before = sync_notebooks.notebook_from_source(source)
    front_matter = source.read_text(encoding="utf-8").split("\n---\n", 1)[0]

    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(f"{url}/lab?token={TOKEN}")
        page.locator(".jp-DirListing-item", has_text=f"{CHAPTER}.md").dblclick(timeout=60_000)
        notebook = page.locator(".jp-NotebookPanel:visible .jp-Notebook")
        title = next(c.source for c in before.cells
                     if c.cell_type == "markdown" and c.source.startswith("# ")).splitlines()[0][2:]
        heading = notebook.locator(".jp-MarkdownCell h1").first
        heading.wait_for(timeout=60_000)
        assert title in heading.inner_text()
        # JupyterLab draws only the cells near the viewport, so the first few are enough here.
        code_cells = notebook.locator(".jp-CodeCell")

        # The second code cell (the first is the setup cell).
        editor = code_cells.nth(1).locator(".cm-content")
        editor.click()
        page.keyboard.press("Control+End")
        page.keyboard.type("\n" + ADDED)
        page.keyboard.press("Control+s")
        deadline = time.monotonic() + 30
        while ADDED not in source.read_text(encoding="utf-8"):
            assert time.monotonic() < deadline, "Ctrl+S did not write the .md source"
            time.sleep(0.5)
        page.screenshot(path=str(screenshots / "jupyterlab-source-as-notebook.png"))
    finally:
        page.close()

    after = sync_notebooks.notebook_from_source(source)
    assert source.read_text(encoding="utf-8").split("\n---\n", 1)[0] == front_matter
    changed = [i for i, (a, b) in enumerate(zip(before.cells, after.cells))
               if (a.cell_type, a.source, a.metadata) != (b.cell_type, b.source, b.metadata)]
    second_code = [i for i, c in enumerate(before.cells) if c.cell_type == "code"][1]
    assert len(after.cells) == len(before.cells)
    assert changed == [second_code], f"cells changed by the save: {changed}"
    assert after.cells[second_code].source == before.cells[second_code].source + "\n" + ADDED
    assert list(workdir.glob("*.ipynb")) == [], "saving a source must not write a notebook beside it"
    assert not errors, errors
