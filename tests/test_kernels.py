"""Kernels on unix sockets (tensorlens/classroom/kernels.py) start, run and clean up after
themselves, in any working folder; nbval's kernels are such kernels under the plugin that
``make notebooks`` and ``make check`` load (tests/nbval_unix_sockets.py)."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import zmq

from tensorlens.classroom.kernels import UnixSocketKernelManager

ROOT = Path(__file__).resolve().parents[1]
TRANSPORT = """\
import json, ipykernel.connect
print(json.loads(ipykernel.connect.get_connection_info())["transport"])"""


def test_a_kernel_listens_on_its_own_sockets_and_removes_them(tmp_path):
    assert zmq.has("ipc"), "this machine's zmq has no IPC transport"
    manager = UnixSocketKernelManager(kernel_name="python3")
    manager.start_kernel(cwd=str(tmp_path))  # not the manager's folder: the paths are absolute
    client = manager.client()
    try:
        client.start_channels()
        client.wait_for_ready(timeout=60)
        reply = client.execute_interactive("print(6 * 7)", timeout=30)
        assert reply["content"]["status"] == "ok"
        info = json.loads(Path(manager.connection_file).read_text())
        assert info["transport"] == "ipc"
        assert Path(info["ip"]).parent == Path(tempfile.gettempdir())
        sockets = [Path(f"{info['ip']}-{info[name]}") for name in
                   ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")]
        assert len(set(sockets)) == 5 and all(s.is_socket() for s in sockets)
        assert len(str(sockets[0]).encode()) < 100, "a unix socket's name is limited in length"
    finally:
        client.stop_channels()
        manager.shutdown_kernel()
    assert not any(s.exists() for s in sockets)
    assert UnixSocketKernelManager().ip != UnixSocketKernelManager().ip


def test_the_nbval_plugin_gives_each_notebook_a_unix_socket_kernel(tmp_path):
    cell = nbformat.v4.new_code_cell(TRANSPORT, execution_count=1, outputs=[
        nbformat.v4.new_output("stream", name="stdout", text="ipc\n")])
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), tmp_path / "transport.ipynb")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "tests.nbval_unix_sockets", "--nbval", "--rootdir", str(tmp_path),
                          str(tmp_path / "transport.ipynb")],
                         cwd=ROOT, capture_output=True, text=True, timeout=240,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stdout[-3000:]
    assert "1 passed" in run.stdout
