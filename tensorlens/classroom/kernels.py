"""Kernel managers whose kernels listen on unix sockets, so that no two kernels race for a port.

jupyter_client gives a kernel five TCP ports by binding port 0 and closing the socket; the kernel
binds them a moment later. In between, any process on the machine may take one: another
manager's probe, or any outgoing connection (a browser, another kernel's client). A kernel that
then can't bind its iopub port neither dies nor replies, and its manager waits out the whole
startup timeout ("Kernel didn't respond in 60 seconds"). That is rare with one kernel, and it
does happen when tests or a grader start hundreds of them beside other work.

The managers here give each kernel ``transport="ipc"``: its sockets are files named
``<temporary folder>/kernel-<random>-ipc-1`` to ``-5``, which only this kernel uses, removed
at shutdown. Where zmq has no IPC transport (Windows builds), they keep TCP.

    NotebookClient(nb, kernel_manager_class=AsyncUnixSocketKernelManager)
"""

from __future__ import annotations

import os
import tempfile
import uuid

import zmq
from jupyter_client.manager import AsyncKernelManager, KernelManager
from traitlets import HasTraits, default


class _UnixSockets(HasTraits):
    @default("transport")
    def _transport_default(self) -> str:
        return "ipc" if zmq.has("ipc") else "tcp"

    def _ip_default(self) -> str:
        if self.transport != "ipc":
            return super()._ip_default()
        # a short absolute path: a socket's name is limited to about 100 bytes, and the kernel
        # resolves a relative one in its own working folder, not the manager's
        return os.path.join(tempfile.gettempdir(), f"kernel-{uuid.uuid4().hex[:16]}-ipc")


class UnixSocketKernelManager(_UnixSockets, KernelManager):
    """``jupyter_client.KernelManager`` with IPC sockets (for nbval and other blocking clients)."""


class AsyncUnixSocketKernelManager(_UnixSockets, AsyncKernelManager):
    """``jupyter_client.AsyncKernelManager`` with IPC sockets (nbclient's default kind)."""
