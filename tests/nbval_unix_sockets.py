"""A pytest plugin (``-p tests.nbval_unix_sockets``): nbval's kernels listen on unix sockets.

nbval starts each notebook's kernel with a plain ``jupyter_client.KernelManager``, on TCP ports
that another process can take before the kernel binds them; a kernel that loses its iopub port
hangs, and nbval then fails every cell of that notebook with "Kernel didn't respond in 60
seconds" (``tensorlens/classroom/kernels.py`` has the mechanism).
"""

import nbval.kernel

from tensorlens.classroom.kernels import UnixSocketKernelManager


def pytest_configure(config):
    if config.getoption("nbval", False) or config.getoption("nbval_lax", False):
        nbval.kernel.KernelManager = UnixSocketKernelManager
