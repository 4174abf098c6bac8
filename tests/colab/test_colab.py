"""Every chapter runs top to bottom on Colab's stack, installed the way a learner installs it.

The stage (``make test-colab``) rebuilds Colab's runtime from ``tests/colab/stack.txt`` (its
Python, torch, ipywidgets and anywidget) and then does what a learner's first cell does:

1. **The runtime** (``colab_runtime.py``): a venv with the stack, built once per version of
   ``stack.txt`` and kept in ``~/.cache/tensor-views/colab/`` (``TENSOR_VIEWS_CACHE`` moves it)
   with the wheels it was built from (torch's CUDA build from PyPI, about 3 GB), so a fresh clone reuses it. It plays
   Colab's preinstalled packages and is never written to after it is built.
2. **The learner's kernel**: a fresh venv per run whose ``.pth`` file puts the runtime's packages
   behind its own, as Colab's ``/usr/local`` sits behind what ``%pip`` installs. Its kernel is the
   runtime's ipykernel, started by the stage's nbclient (nbclient is never installed there).
3. **No network**: README's setup cell, run in that kernel with every connection refused, stops
   with its own message and leaves the kernel's packages exactly as they were; the Chinese
   notebooks' setup cell stops with the same message in Chinese.
4. **The install**: tensorlens is built from the checkout into a wheel (``pip wheel``, as pip
   builds it from the git address) and README's setup cell runs with only its package source
   swapped for that wheel, so ``%pip`` installs it into the running kernel. No package the
   runtime had changes version (torch, numpy, ipykernel above all); the grading tools are not
   installed.
5. **The chapters**: every chapter's Chinese notebook (``notebooks/zh/*.ipynb``) runs top to
   bottom in its own fresh kernel and folder, two at a time (kernels forked from one that
   imported Colab's torch once: ``tests/kernel_zygote.py``); only cells tagged
   ``raises-exception`` may raise. Its code cells are its English notebook's, byte for byte but
   for the setup cell's stated lines (the language, pip's failure in Chinese:
   ``tests/test_zh_notebooks.py``), so this one run covers both editions' code on Colab.
   Outputs are not compared (error texts differ between torch versions; nbval compares the
   English notebooks' on the pinned stack).

Dependencies come from the wheel cache with the index switched off, so a run after the first
reaches no network. Any wheel missing there is fetched once with ``pip download``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from tensorlens.classroom.kernels import AsyncUnixSocketKernelManager

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import kernel_zygote  # noqa: E402
from colab_runtime import WHEELS, BuildError, clean_env as _clean_env, stack  # noqa: E402
from colab_runtime import python_of as _python, run as run_command, runtime  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SETUP = re.search(r"The setup cell, identical in every notebook:\n\n```python\n(.*?)```",
                  README, re.S).group(1)
PACKAGE_LINE = re.compile(r'^PACKAGE = "(tensorlens @ [^"]+)"$', re.M)
WORKERS = 2
TIMINGS = ROOT / "_build" / "test-colab-timings.json"
NOTEBOOK_TIMEOUT_S = 300
# Every connection refused: what pip and git meet on a runtime without network.
NO_NETWORK = {name: "http://127.0.0.1:9" for name in
              ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy")}
NO_NETWORK.update(no_proxy="", NO_PROXY="", GIT_TERMINAL_PROMPT="0")
# pip reads only the stage's wheel cache (and this machine's pip.conf, which holds local paths).
OFFLINE_PIP = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(WHEELS),
               "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


_timings: dict[str, float] = {}


@contextlib.contextmanager
def _timed(step):
    """Add the seconds the block takes to ``step`` in _build/test-colab-timings.json."""
    start = time.monotonic()
    try:
        yield
    finally:
        _timings[step] = round(_timings.get(step, 0) + time.monotonic() - start, 1)
        TIMINGS.parent.mkdir(parents=True, exist_ok=True)
        TIMINGS.write_text(json.dumps(_timings, indent=1) + "\n", encoding="utf-8")


def _run(args, env=None):
    """colab_runtime.run, failing the test with the command's output when it fails."""
    try:
        return run_command(args, env)
    except BuildError as error:
        pytest.fail(str(error))


def _pip(python, *args, fetch=()):
    """``python -m pip ARGS`` from the wheel cache alone; on a miss, ``fetch`` is downloaded into
    the cache (from the package index, once) and pip runs again."""
    args = [python, "-m", "pip", *args]
    first = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                           env=_clean_env(**OFFLINE_PIP))
    if first.returncode == 0 or not fetch:
        return _run(args, env=_clean_env(**OFFLINE_PIP))
    _run([python, "-m", "pip", "download", "-q", "-d", WHEELS, *fetch])
    for stale in WHEELS.glob("tensorlens-*"):  # the checkout's own wheel is built every run
        stale.unlink()
    return _run(args, env=_clean_env(**OFFLINE_PIP))


def _packages(python) -> dict[str, str]:
    listed = _run([python, "-m", "pip", "list", "--format=json"]).stdout
    return {re.sub(r"[-_.]+", "-", p["name"]).lower(): p["version"] for p in json.loads(listed)}


def _site_packages(venv: Path) -> Path:
    return next(venv.glob("lib/python*/site-packages"))


def _kernelspec(kernels: Path, name: str, python: Path, env: dict):
    spec = kernels / name
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": name, "language": "python", "env": env}), encoding="utf-8")


def _run_cell(source: str, kernel: str, cwd: Path):
    """Run one cell in a fresh ``kernel``; its outputs, and the error it raised (or None)."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    client = NotebookClient(nb, kernel_name=kernel, timeout=NOTEBOOK_TIMEOUT_S,
                            kernel_manager_class=AsyncUnixSocketKernelManager,
                            resources={"metadata": {"path": str(cwd)}})
    try:
        client.execute()
        error = None
    except CellExecutionError as err:
        error = err
    return nb.cells[0].outputs, error


def zh_setup_source() -> str:
    """The setup cell of the first Chinese notebook, as a learner of the zh edition runs it."""
    nb = nbformat.read(sorted((ROOT / "notebooks" / "zh").glob("*.ipynb"))[0], as_version=4)
    source = next(cell.source for cell in nb.cells if cell.cell_type == "code")
    assert "TENSORLENS_LANGUAGE" in source and source != SETUP, "not the Chinese setup cell"
    return source


def _text(outputs) -> str:
    parts = []
    for out in outputs:
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type == "error":
            parts.append(f"{out.ename}: {out.evalue}")
        elif "text/plain" in out.get("data", {}):
            parts.append(out.data["text/plain"])
    return "\n".join(parts)


@pytest.fixture(scope="module")
def learner(tmp_path_factory):
    """The learner's kernel on Colab's stack, before and after the setup cell installed tensorlens."""
    version, pins = stack()
    try:
        with _timed("runtime (cached after the first run)"):
            base = runtime()
        python_of_version = _python(version)
    except BuildError as error:
        pytest.fail(str(error))
    tmp = tmp_path_factory.mktemp("colab")
    venv = tmp / "learner"
    with _timed("learner venv"):
        # no pip of its own: the runtime's pip (as on Colab) installs into the running Python
        _run([python_of_version, "-m", "venv", "--without-pip", venv])
        (_site_packages(venv) / "colab_runtime.pth").write_text(f"{_site_packages(base)}\n")
    python = venv / "bin" / "python"

    kernels = tmp / "jupyter" / "kernels"
    # the kernels see none of this project's venv (PYTHONPATH may point at this checkout)
    unset = {"PYTHONPATH": "", "VIRTUAL_ENV": str(venv)}
    _kernelspec(kernels, "colab", python, {**unset, **OFFLINE_PIP})
    _kernelspec(kernels, "colab-no-network", python, {**unset, **NO_NETWORK})
    colab_env = {**unset, **OFFLINE_PIP}
    old_path = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = str(tmp / "jupyter")

    with _timed("wheel of the checkout"):
        # what pip would build from the git address, built from the working tree
        wheel_dir = tmp / "wheel"
        _pip(python, "wheel", "-q", "--no-deps", "-w", wheel_dir, ROOT, fetch=["hatchling"])
        wheel = next(wheel_dir.glob("tensorlens-*.whl"))
        # tensorlens's dependencies in the cache (resolved against the runtime, as %pip does)
        _pip(python, "install", "-q", "--dry-run", wheel, fetch=[wheel])

    before = _packages(python)
    with _timed("setup cell without network"):
        offline_outputs, offline_error = _run_cell(SETUP, "colab-no-network", tmp)
    with _timed("Chinese setup cell without network"):
        zh_offline_outputs, zh_offline_error = _run_cell(zh_setup_source(), "colab-no-network", tmp)
    after_offline = _packages(python)

    source = PACKAGE_LINE.sub(f'PACKAGE = "tensorlens @ {wheel.as_uri()}"', SETUP)
    with _timed("setup cell installing the wheel"):
        outputs, error = _run_cell(source, "colab", tmp)
    after = _packages(python)
    yield dict(python=python, pins=pins, before=before, after_offline=after_offline,
               offline_outputs=offline_outputs, offline_error=offline_error, source=source,
               zh_offline_outputs=zh_offline_outputs, zh_offline_error=zh_offline_error,
               outputs=outputs, error=error, after=after, tmp=tmp, env=colab_env)
    if old_path is None:
        os.environ.pop("JUPYTER_PATH", None)
    else:
        os.environ["JUPYTER_PATH"] = old_path


def test_the_runtime_is_colabs_stack(learner):
    installed = learner["before"]
    for pin in learner["pins"]:
        name, version = pin.split("==")
        assert installed.get(name.lower()) == version, f"the runtime has {name} {installed.get(name.lower())}"
    assert "tensorlens" not in installed
    version, _ = stack()
    run = _run([learner["python"], "-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
    assert run.stdout.strip() == version


def test_without_network_the_setup_cell_says_what_to_do_and_installs_nothing(learner):
    error, text = learner["offline_error"], _text(learner["offline_outputs"])
    assert error is not None, "the setup cell must stop when pip cannot install tensorlens"
    assert "RuntimeError: pip could not install tensorlens" in text, text[-2000:]
    assert "Check the network and run this cell again" in text
    assert "CalledProcessError" not in text
    assert learner["after_offline"] == learner["before"], "a failed install left packages behind"


def test_without_network_the_chinese_setup_cell_says_it_in_chinese(learner):
    error, text = learner["zh_offline_error"], _text(learner["zh_offline_outputs"])
    assert error is not None, "the Chinese setup cell must stop when pip cannot install tensorlens"
    assert "RuntimeError: pip 没能安装 tensorlens" in text, text[-2000:]
    assert "请检查网络后重新运行本单元格" in text
    assert "CalledProcessError" not in text and "Check the network" not in text


def test_the_setup_cell_installs_the_wheel_and_replaces_nothing(learner):
    assert learner["source"].count(".whl") == 1, "the setup cell names its package source once"
    assert learner["error"] is None, _text(learner["outputs"])[-3000:]
    before, after = learner["before"], learner["after"]
    changed = {name: (version, after.get(name)) for name, version in before.items()
               if after.get(name) != version}
    assert not changed, f"installing tensorlens changed the runtime's packages: {changed}"
    assert "tensorlens" in after


def test_the_learners_install_is_lean(learner):
    added = set(learner["after"]) - set(learner["before"])
    for tool in ("nbclient", "nbval", "pytest", "jupyter-book", "otter-grader", "torch"):
        assert tool not in added, f"the learner's install pulled in {tool}"
    run = _run([learner["python"], "-c",
                "import importlib.metadata as m; print('\\n'.join(m.requires('tensorlens')))"])
    plain = [r for r in run.stdout.splitlines() if "extra ==" not in r]
    names = {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in plain}
    assert not names & {"torch", "ipykernel", "nbclient", "nbformat"}, plain


async def _execute(path: Path, workdir: Path, limit: asyncio.Semaphore):
    async with limit:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs = []
        client = NotebookClient(nb, kernel_name="colab-forked", timeout=NOTEBOOK_TIMEOUT_S,
                                kernel_manager_class=AsyncUnixSocketKernelManager,
                                resources={"metadata": {"path": str(workdir)}})
        try:
            await client.async_execute()
        except CellExecutionError as err:
            return f"{path.name}: {str(err)[-2500:]}"
        except Exception as err:  # a kernel that died or timed out
            return f"{path.name}: {type(err).__name__}: {err}"
        return None


def test_every_chapter_runs_top_to_bottom(learner):
    notebooks = sorted((ROOT / "notebooks" / "zh").glob("*.ipynb"))  # the English code too (above)
    assert len(notebooks) == len(list((ROOT / "notebooks").glob("*.ipynb"))), \
        "notebooks/zh does not match notebooks/ (make sync)"
    assert learner["error"] is None, "tensorlens did not install"

    async def run_all():
        limit = asyncio.Semaphore(WORKERS)
        jobs = []
        for path in notebooks:
            workdir = learner["tmp"] / "runs" / path.stem
            workdir.mkdir(parents=True)
            jobs.append(_execute(path, workdir, limit))
        return await asyncio.gather(*jobs)

    # each chapter in a fresh kernel on the learner's Python, forked from one that has imported
    # Colab's torch after tensorlens was installed (tests/kernel_zygote.py)
    with kernel_zygote.Zygote(str(learner["python"]), {**os.environ, **learner["env"]}) as zygote, \
            _timed(f"{len(notebooks)} notebooks, {WORKERS} at a time"):
        kernel_zygote.kernelspec(Path(os.environ["JUPYTER_PATH"]), str(learner["python"]),
                                 {**learner["env"], **zygote.env}, name="colab-forked")
        failures = [f for f in asyncio.run(run_all()) if f]
    assert not failures, "\n\n".join(failures)
    assert zygote.forked == len(notebooks), "kernels started plain: the stage got slower"
