"""A kernel forked by the zygote (tests/kernel_zygote.py) is a fresh kernel as nbval needs it:
the same paths, folder, environment and empty namespace as ``python -m ipykernel_launcher``,
its own random state, interrupts and kills that reach it, and a plain start where forking could
differ."""

import json
import os
import signal
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tensorlens.classroom.kernels import AsyncUnixSocketKernelManager, UnixSocketKernelManager

sys.path.insert(0, str(Path(__file__).parent))
import kernel_zygote  # noqa: E402

PROBE = """\
import json, os, sys, random
import numpy
print(json.dumps({
    "path": sys.path, "cwd": os.getcwd(), "argv0": sys.argv[0], "name": __name__,
    "env": {k: v for k, v in os.environ.items() if k not in ("JPY_PARENT_PID",)},
    "user_names": sorted(n for n in globals() if not n.startswith("_")),
    "random": random.random(), "numpy": numpy.random.rand(),
    "backend": __import__("matplotlib").get_backend(),
    "forked": "torch" in sys.modules, "parent_poller": type(getattr(
        __import__("ipykernel.kernelapp").kernelapp.IPKernelApp.instance(), "poller", None)).__name__,
}))
"""


@pytest.fixture(scope="module")
def zygote():
    with kernel_zygote.Zygote() as running:
        yield running


def _kernels(tmp_path: Path, zygote, extra_env: dict | None = None) -> Path:
    folder = tmp_path / "jupyter"
    kernel_zygote.kernelspec(folder, sys.executable, {**zygote.env, **(extra_env or {})},
                             name="forked")
    (folder / "kernels" / "plain").mkdir(parents=True)
    (folder / "kernels" / "plain" / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "plain", "language": "python"}))
    return folder


def _probe(kernel: str, cwd: Path, monkeypatch, folder: Path) -> dict:
    monkeypatch.setenv("JUPYTER_PATH", str(folder))
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(PROBE)])
    NotebookClient(nb, kernel_name=kernel, timeout=60, kernel_manager_class=AsyncUnixSocketKernelManager,
                   resources={"metadata": {"path": str(cwd)}}).execute()
    lines = [o["text"] for o in nb.cells[0].outputs if o.get("name") == "stdout"]
    return json.loads("".join(lines))


def test_a_forked_kernel_starts_as_a_plain_one(zygote, tmp_path, monkeypatch):
    folder = _kernels(tmp_path, zygote)
    (tmp_path / "work").mkdir()
    plain = _probe("plain", tmp_path / "work", monkeypatch, folder)
    forked = _probe("forked", tmp_path / "work", monkeypatch, folder)
    assert forked["forked"] and not plain["forked"], "the forked kernel was not forked"
    for key in ("path", "cwd", "argv0", "name", "user_names", "parent_poller", "backend"):
        assert forked[key] == plain[key], key
    assert plain["parent_poller"] == "ParentPollerUnix"
    forked["env"].pop(kernel_zygote.SOCKET_ENV)
    assert forked["env"] == plain["env"]


def test_the_zygote_counts_the_kernels_it_forked(tmp_path, monkeypatch):
    with kernel_zygote.Zygote() as zygote:
        folder = _kernels(tmp_path, zygote)
        assert _probe("forked", tmp_path, monkeypatch, folder)["forked"]
        assert not _probe("plain", tmp_path, monkeypatch, folder)["forked"]
    assert zygote.forked == 1


def test_each_forked_kernel_seeds_its_generators_afresh(zygote, tmp_path, monkeypatch):
    folder = _kernels(tmp_path, zygote)
    first = _probe("forked", tmp_path, monkeypatch, folder)
    second = _probe("forked", tmp_path, monkeypatch, folder)
    assert first["forked"] and second["forked"]
    assert first["random"] != second["random"] and first["numpy"] != second["numpy"]


def test_an_environment_that_import_reads_starts_a_plain_kernel(zygote, tmp_path, monkeypatch):
    # OpenMP reads OMP_NUM_THREADS when torch loads it: a forked kernel would ignore the change
    folder = _kernels(tmp_path, zygote, {"OMP_NUM_THREADS": "1"})
    probe = _probe("forked", tmp_path, monkeypatch, folder)
    assert not probe["forked"] and probe["env"]["OMP_NUM_THREADS"] == "1"


def test_without_a_zygote_the_kernel_starts_plain(tmp_path, monkeypatch):
    folder = tmp_path / "jupyter"
    kernel_zygote.kernelspec(folder, sys.executable, {kernel_zygote.SOCKET_ENV: str(tmp_path / "none")},
                             name="forked")
    assert not _probe("forked", tmp_path, monkeypatch, folder)["forked"]


def _started(zygote, tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_PATH", str(_kernels(tmp_path, zygote)))
    manager = UnixSocketKernelManager(kernel_name="forked")
    manager.start_kernel(cwd=str(tmp_path))
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=60)
    outputs = []
    client.execute_interactive("import os; print(os.getpid())", timeout=30,
                               output_hook=outputs.append)
    pid = int(next(m["content"]["text"] for m in outputs if m["msg_type"] == "stream"))
    assert pid != manager.provisioner.process.pid, "the kernel was not forked"
    return manager, client, pid


def test_an_interrupt_reaches_the_forked_kernel(zygote, tmp_path, monkeypatch):
    manager, client, pid = _started(zygote, tmp_path, monkeypatch)
    try:
        msg_id = client.execute("import time; time.sleep(60)")
        time.sleep(1)
        manager.interrupt_kernel()
        reply = client.get_shell_msg(timeout=20)
        assert reply["parent_header"]["msg_id"] == msg_id
        assert reply["content"]["ename"] == "KeyboardInterrupt"
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=False)
    assert not manager.is_alive()
    with pytest.raises(ProcessLookupError):
        _wait_gone(pid)


def _wait_gone(pid: int):
    for _ in range(100):
        os.kill(pid, 0)  # ProcessLookupError once it is gone
        time.sleep(0.1)


def test_a_killed_kernel_process_takes_the_forked_kernel_with_it(zygote, tmp_path, monkeypatch):
    manager, client, pid = _started(zygote, tmp_path, monkeypatch)
    client.stop_channels()
    os.kill(manager.provisioner.process.pid, signal.SIGKILL)  # what shutdown does last
    with pytest.raises(ProcessLookupError):
        _wait_gone(pid)
    manager.cleanup_resources()


def test_a_terminated_kernel_process_ends_the_forked_kernel_as_a_plain_one_ends(zygote, tmp_path,
                                                                               monkeypatch):
    manager, client, pid = _started(zygote, tmp_path, monkeypatch)
    client.stop_channels()
    manager.provisioner.process.terminate()  # what shutdown sends before it kills
    with pytest.raises(ProcessLookupError):
        _wait_gone(pid)
    assert manager.provisioner.process.wait(timeout=10) == -signal.SIGTERM
    manager.cleanup_resources()


def test_the_command_line_refuses_what_it_does_not_know(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["kernel_zygote.py", "fork"])
    with pytest.raises(SystemExit) as exit_:
        exec(compile(Path(kernel_zygote.__file__).read_text(), kernel_zygote.__file__, "exec"),
             {"__name__": "__main__", "__file__": kernel_zygote.__file__})
    assert "run -- CMD" in str(exit_.value)
