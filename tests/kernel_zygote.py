"""Fresh kernels without paying for ``import torch`` each time: a zygote forks them.

Every notebook the tests run needs a fresh kernel, and on this project's 2-core machine a fresh
kernel spends about 4 CPU-seconds importing torch and ipykernel before its first cell. A zygote
is a process that imports them once (never calling into them) and forks a kernel per request;
the child gets the requester's standard streams, working folder and environment, and starts
ipykernel exactly as
``python -m ipykernel_launcher -f CONNECTION_FILE`` does. Its namespace is empty, as in any fresh
kernel: a notebook that forgets ``import torch`` still fails.

    python tests/kernel_zygote.py run -- CMD ...    # CMD's kernels named python3 are forked

``run`` starts a zygote on the Python running it, writes a ``python3`` kernelspec whose argv is
this file's ``connect`` command into a temporary ``JUPYTER_PATH`` folder, and runs CMD there.
``connect`` is the process the kernel manager sees: it hands its streams to the zygote, passes
SIGINT and SIGTERM on to the kernel, and exits with the kernel's status (or its signal). Where forking could
differ from a fresh start (an environment variable that torch, OpenMP or Python read at import
differs from the zygote's), or when no zygote answers, ``connect`` becomes a plain
``ipykernel_launcher`` instead.

Only the standard library is imported before the fork, besides ``PRELOAD``; the file runs under
any Python with ipykernel (the Colab stage runs it on Colab's Python).
"""

import contextlib
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

# What the zygote imports before forking. Importing runs no torch operator, so no thread pool
# (OpenMP's included) exists yet when a kernel is forked. Each kernel gets generators of its own:
# Python's random reseeds itself in a forked child, and each child seeds numpy.random from the OS.
# torch._dynamo loads on a notebook's first optimizer or torch.compile (about 3.5 CPU-seconds
# here, in a dozen chapters); loading it runs no operator and starts no thread either. It also
# sets TORCHINDUCTOR_CACHE_DIR in the environment to its default, which Inductor sets again when
# it first needs the folder and which a kernel's environment, given whole, does not keep.
PRELOAD = ("torch", "numpy", "ipykernel.kernelapp", "matplotlib.pyplot", "torch._dynamo")
SOCKET_ENV = "TENSOR_VIEWS_KERNEL_ZYGOTE"
# Variables that native code may read while PRELOAD loads (OpenMP, allocators, the loader,
# Python's start-up), which os.environ can't see being read
_NATIVE_PREFIXES = ("OMP_", "GOMP_", "KMP_", "MKL_", "OPENBLAS_", "TORCH", "PYTORCH_", "CUDA_",
                    "NVIDIA_", "LD_", "MALLOC_", "PYTHON", "VIRTUAL_ENV")
# ipykernel reads these two into its traits' defaults at import; each kernel gets its own
_PER_KERNEL = {"JPY_PARENT_PID": "parent_handle", "JPY_INTERRUPT_EVENT": "interrupt"}
# matplotlib reads its backend when it loads, which in a plain kernel is after ipykernel chose
# this one (unless the environment names another): the zygote loads it with the same choice
_KERNEL_DEFAULTS = {"MPLBACKEND": "module://matplotlib_inline.backend_inline"}


def _preload() -> set[str]:
    """Import PRELOAD; the names of the environment variables Python code read meanwhile."""
    import importlib
    read, get = set(), os._Environ.__getitem__

    def recording(environ, key):
        read.add(key)
        return get(environ, key)

    os._Environ.__getitem__ = recording
    try:
        for name in PRELOAD:
            importlib.import_module(name)
    finally:
        os._Environ.__getitem__ = get
    return read - set(_PER_KERNEL)


def _import_time_env(env: dict, read: set[str]) -> dict:
    """The part of ``env`` that importing PRELOAD depends on, as a plain kernel sees it."""
    env = {**_KERNEL_DEFAULTS, **env}
    return {k: v for k, v in env.items() if k in read or k.startswith(_NATIVE_PREFIXES)}


def _launch_plain(arguments: list[str]):
    """Become the kernel ``python -m ipykernel_launcher ARGUMENTS`` would start."""
    os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *arguments])


# --- the zygote -------------------------------------------------------------------------------

def _start_kernel(request: dict, fds: list[int]):
    """In the forked child: become the kernel ``python -m ipykernel_launcher ARGUMENTS`` starts."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the zygote's own handler: a kernel just ends
    os.environ.clear()
    os.environ.update(request["env"])
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:  # torch._dynamo loads it: seeded from the OS, as a fresh import is
        numpy_random.seed()
    import ipykernel_launcher
    sys.argv = [ipykernel_launcher.__file__, *request["arguments"]]
    code = 0
    try:
        from ipykernel import kernelapp
        kernelapp.launch_new_instance(**{trait: int(request["env"].get(variable) or 0)
                                         for variable, trait in _PER_KERNEL.items()})
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except BaseException:  # noqa: BLE001 - a kernel that crashed: say so, as a plain one would
        import traceback
        traceback.print_exc()
        code = 1
    finally:
        import atexit
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - a closed stream at exit
                pass
        os._exit(code)


def serve(socket_path: str):
    """Import PRELOAD, then fork a kernel for each request on ``socket_path`` until SIGTERM."""
    if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        del sys.path[0]  # this file's folder: ipykernel_launcher's kernels don't have it
    for variable, value in _KERNEL_DEFAULTS.items():
        os.environ.setdefault(variable, value)
    before = dict(os.environ)  # torch._dynamo's import sets TORCHINDUCTOR_CACHE_DIR, a memo
    read = _preload()
    zygote_env = _import_time_env(before, read)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(64)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    children: dict[int, socket.socket] = {}  # kernel pid -> its connect process's socket
    forked = 0
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    print("ready", flush=True)
    while not stopping:
        for key, _ in selector.select(timeout=0.05):
            if key.fileobj is listener:
                conn, _ = listener.accept()
                message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
                while not message.endswith(b"\n"):
                    message += conn.recv(1 << 20)
                request = json.loads(message)
                if _import_time_env(request["env"], read) != zygote_env or len(fds) != 3:
                    for fd in fds:
                        os.close(fd)
                    conn.sendall(b'{"pid": null}\n')
                    conn.close()
                    continue
                pid = os.fork()
                if pid == 0:
                    listener.close()
                    for other in children.values():
                        other.close()
                    conn.close()
                    _start_kernel(request, fds)
                for fd in fds:
                    os.close(fd)
                conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
                forked += 1
                children[pid] = conn
                selector.register(conn, selectors.EVENT_READ)
            else:  # the connect process went away (killed): its kernel goes too
                pid = next(p for p, c in children.items() if c is key.fileobj)
                os.kill(pid, signal.SIGKILL)
                selector.unregister(key.fileobj)
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = children.pop(pid, None)
            if conn is not None:
                try:
                    selector.unregister(conn)
                except KeyError:
                    pass
                try:
                    conn.sendall(json.dumps({"status": os.waitstatus_to_exitcode(status)}).encode()
                                 + b"\n")
                except OSError:
                    pass
                conn.close()
    for pid in children:
        os.kill(pid, signal.SIGKILL)
    print(f"forked {forked}", flush=True)


# --- the kernel manager's side ----------------------------------------------------------------

def connect(arguments: list[str]):
    """Ask the zygote for a kernel started with ``arguments`` (ipykernel's), stand in for it,
    and exit with its status."""
    socket_path = os.environ.get(SOCKET_ENV)
    if not socket_path:
        _launch_plain(arguments)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(socket_path)
    except OSError:
        _launch_plain(arguments)
    request = {"arguments": arguments, "cwd": os.getcwd(), "env": dict(os.environ)}
    socket.send_fds(conn, [json.dumps(request).encode() + b"\n"], [0, 1, 2])
    reader = conn.makefile("rb")
    pid = json.loads(reader.readline())["pid"]
    if pid is None:
        conn.close()
        _launch_plain(arguments)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda number, _: os.kill(pid, number))
    line = reader.readline()
    status = json.loads(line)["status"] if line else 1
    if status < 0:  # the kernel was killed by a signal: so is this process, as a plain kernel is
        with contextlib.suppress(OSError, ValueError):  # SIGKILL and SIGSTOP have no handler
            signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    sys.exit(status)


def kernelspec(folder: Path, python: str, env: dict | None = None, name: str = "python3"):
    """Write kernelspec ``name`` under ``folder/kernels`` whose kernels ``connect`` forks."""
    spec = folder / "kernels" / name
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [python, os.path.abspath(__file__), "connect", "-f", "{connection_file}"],
        "display_name": f"{name} (forked)", "language": "python", "env": env or {}}),
        encoding="utf-8")


class Zygote:
    """A zygote on ``python`` with ``env`` (a context manager): its ``env`` entry for kernels;
    ``forked`` after it stopped."""

    def __init__(self, python: str = sys.executable, env: dict | None = None):
        self.python, self.base_env = python, dict(os.environ if env is None else env)

    def __enter__(self):
        self._folder = tempfile.TemporaryDirectory(prefix="zygote-")
        self.socket_path = os.path.join(self._folder.name, "socket")
        self.process = subprocess.Popen([self.python, os.path.abspath(__file__), "serve",
                                         self.socket_path], env=self.base_env,
                                        stdout=subprocess.PIPE, text=True)
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the kernel zygote on {self.python} did not start")
        return self

    @property
    def env(self) -> dict:
        """What a kernel's environment needs to be forked by this zygote."""
        return {SOCKET_ENV: self.socket_path}

    def __exit__(self, *exc):
        self.process.terminate()
        last = self.process.stdout.read().split()
        self.process.wait(timeout=30)
        self._folder.cleanup()
        #: how many kernels it forked (the others started plain)
        self.forked = int(last[-1]) if last[-2:-1] == ["forked"] else None


def run(command: list[str]) -> int:
    """Run ``command`` with its ``python3`` kernels forked by a zygote on this Python."""
    with Zygote() as zygote, tempfile.TemporaryDirectory(prefix="jupyter-") as folder:
        kernelspec(Path(folder), sys.executable)
        paths = [folder] + [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
        env = {**os.environ, **zygote.env, "JUPYTER_PATH": os.pathsep.join(paths)}
        code = subprocess.call(command, env=env)
    print(f"kernel_zygote: {zygote.forked} kernels forked", file=sys.stderr)
    return code


if __name__ == "__main__":
    match sys.argv[1:]:
        case ["serve", socket_path]:
            serve(socket_path)
        case ["connect", *arguments] if arguments:
            connect(arguments)
        case ["run", "--", *command] if command:
            sys.exit(run(command))
        case _:
            sys.exit(__doc__)
