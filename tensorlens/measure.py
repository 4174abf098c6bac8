"""Measuring what a tensor operation costs: the bytes behind its result and the time it takes.

Contract
--------
- Byte counts are read from torch (``untyped_storage().nbytes()``), never worked out from
  ``numel() * element_size()``: a view made by ``expand`` has many elements and a small storage,
  and the point of measuring is to see exactly that.
- ``shares_storage(a, b)`` is True when both tensors sit on the same storage (compared by the
  storage's data pointer; the pointer itself is never returned or printed).
- ``allocated_bytes(fn)`` runs ``fn()`` under ``torch.profiler`` with memory profiling and returns
  the CPU bytes each ATen operator allocated (deterministic for a given build; the profiler's own
  start/stop lines on the process's stderr are kept out of the notebook).
- ``time_call`` uses ``torch.utils.benchmark`` on one thread and returns the median in seconds.
  Timings vary from run to run: notebooks tag the cells that show them ``nbval-ignore-output``.
- ``cost_sweep`` runs every operation at every size and returns a :class:`Sweep`: storage bytes
  (deterministic) and, when asked, median seconds. ``Sweep.table("bytes")`` is deterministic text.
- Bad arguments raise ``TypeError`` / ``ValueError`` naming the argument.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import torch
from torch.utils import benchmark

__all__ = ["storage_bytes", "shares_storage", "allocated_bytes", "quiet_stderr", "time_call", "Sweep", "cost_sweep"]

METRICS = ("bytes", "seconds")


def _check_tensor(name: str, t) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")


def storage_bytes(t: torch.Tensor) -> int:
    """Bytes of the storage behind ``t`` (all of it, even the parts ``t`` does not show).

    Parameters
    ----------
    t : torch.Tensor

    Returns
    -------
    int
        ``t.untyped_storage().nbytes()``.

    Raises
    ------
    TypeError
        If ``t`` is not a tensor.

    Examples
    --------
    >>> storage_bytes(torch.zeros(3, dtype=torch.float32))
    12
    >>> storage_bytes(torch.zeros(1, 3).expand(1000, 3))  # 3000 elements, 3 floats of storage
    12
    """
    _check_tensor("t", t)
    return t.untyped_storage().nbytes()


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    """True when ``a`` and ``b`` read the same storage (one is a view of the other, or both of one).

    Two tensors with empty storages share it only when it is the same storage object: their
    ``data_ptr()`` is 0 whether or not they are related.

    Parameters
    ----------
    a, b : torch.Tensor

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``a`` or ``b`` is not a tensor.

    Examples
    --------
    >>> x = torch.zeros(1, 3)
    >>> shares_storage(x, x.expand(4, 3)), shares_storage(x, x.repeat(4, 1))
    (True, False)
    """
    _check_tensor("a", a)
    _check_tensor("b", b)
    storage_a, storage_b = a.untyped_storage(), b.untyped_storage()
    if storage_a.nbytes() == 0 or storage_b.nbytes() == 0:
        # An empty storage has no memory: every one has data_ptr() 0. Only the same storage counts.
        return storage_a._cdata == storage_b._cdata
    return storage_a.data_ptr() == storage_b.data_ptr()


@contextlib.contextmanager
def _quiet_stderr():
    """Send what C++ code writes to file descriptor 2 to /dev/null for the duration."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def allocated_bytes(fn: Callable[[], object]) -> dict[str, int]:
    """CPU bytes each ATen operator allocated while ``fn()`` ran, by ``torch.profiler``.

    An operator's count includes what the operators it called allocated (``aten::clone`` counts
    the ``aten::empty_like`` that holds the copy). Operators that allocated nothing are left out.

    Parameters
    ----------
    fn : callable
        Called once, with no arguments, on the CPU.

    Returns
    -------
    dict
        ``{"aten::clone": 9437184, ...}``, in the order the profiler lists the operators.

    Raises
    ------
    TypeError
        If ``fn`` is not callable.

    Examples
    --------
    >>> x = torch.zeros(1, 3)
    >>> allocated_bytes(lambda: x.expand(1000, 3))  # a view: nothing allocated
    {}
    >>> allocated_bytes(lambda: torch.zeros(1000))["aten::zeros"]
    4000
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    # The profiler prints start/stop lines (and allocator notes) from C++; keep them out of
    # notebook outputs, where they would carry timestamps.
    with _quiet_stderr(), torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    return {event.key: event.cpu_memory_usage for event in prof.key_averages()
            if event.cpu_memory_usage > 0}


def time_call(fn: Callable[[], object], *, min_run_time: float = 0.05) -> float:
    """Median time of one call of ``fn()``, in seconds, measured by ``torch.utils.benchmark``.

    One thread, so numbers are comparable between operations on a shared machine;
    ``blocked_autorange`` repeats the call in blocks for at least ``min_run_time`` seconds.

    Parameters
    ----------
    fn : callable
        Called with no arguments.
    min_run_time : float, optional
        Seconds to spend measuring (keep it small in notebooks: 0.05-0.1).

    Returns
    -------
    float
        Median seconds per call. Varies between runs: never compare it in tests of outputs.

    Raises
    ------
    TypeError
        If ``fn`` is not callable or ``min_run_time`` is not a number.
    ValueError
        If ``min_run_time`` is not positive.
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    if isinstance(min_run_time, bool) or not isinstance(min_run_time, (int, float)):
        raise TypeError(f"min_run_time must be a number, got {type(min_run_time).__name__}")
    if not min_run_time > 0:
        raise ValueError(f"min_run_time must be positive, got {min_run_time}")
    timer = benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=1)
    return timer.blocked_autorange(min_run_time=min_run_time).median


@dataclass(frozen=True)
class Sweep:
    """What :func:`cost_sweep` measured.

    Attributes
    ----------
    sizes : tuple of int
        The size argument given to every operation.
    bytes : dict of str to tuple of int
        Storage bytes behind each operation's result, one per size.
    shared : dict of str to tuple of bool
        Whether that result shares the source's storage (a view), one per size.
    seconds : dict of str to tuple of float, or None
        Median seconds per call, one per size; None when timing was not asked for.
    """

    sizes: tuple[int, ...]
    bytes: dict[str, tuple[int, ...]]
    shared: dict[str, tuple[bool, ...]]
    seconds: dict[str, tuple[float, ...]] | None

    def table(self, metric: str = "bytes") -> str:
        """A plain-text table, one row per operation, one column per size.

        ``"bytes"`` is deterministic (a trailing ``*`` marks a view of the source);
        ``"seconds"`` shows microseconds and changes from run to run.
        """
        values = self._metric(metric)
        labels = list(values)
        width = max(len("size"), *(len(k) for k in labels))
        if metric == "bytes":
            cells = {k: [f"{b:,}{'*' if s else ''}" for b, s in zip(values[k], self.shared[k])]
                     for k in labels}
        else:
            cells = {k: [f"{v * 1e6:.1f}" for v in values[k]] for k in labels}
        col = max(len(str(n)) for n in self.sizes)
        col = max(col, *(len(c) for row in cells.values() for c in row))
        unit = "storage bytes (* = view of the source)" if metric == "bytes" else "median microseconds"
        lines = [unit, "size".ljust(width) + "".join(str(n).rjust(col + 2) for n in self.sizes)]
        lines += [k.ljust(width) + "".join(c.rjust(col + 2) for c in cells[k]) for k in labels]
        return "\n".join(lines)

    def _metric(self, metric: str):
        if metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
        if metric == "seconds" and self.seconds is None:
            raise ValueError("metric='seconds' needs a sweep run with time=True")
        return self.bytes if metric == "bytes" else self.seconds


def cost_sweep(
    ops: Mapping[str, Callable[[torch.Tensor, int], torch.Tensor]],
    source: torch.Tensor,
    sizes: Sequence[int],
    *,
    time: bool = False,
    min_run_time: float = 0.05,
) -> Sweep:
    """Run ``op(source, n)`` for every operation and size; record storage bytes (and time).

    Parameters
    ----------
    ops : mapping of str to callable
        ``{"label": op}``; ``op(source, n)`` returns a tensor built from ``source`` at size ``n``.
    source : torch.Tensor
        The tensor every operation starts from.
    sizes : sequence of int
        Positive sizes, each passed to every operation.
    time : bool, optional
        Also measure the median time of each call with :func:`time_call`.
    min_run_time : float, optional
        Passed to :func:`time_call`; the sweep takes about
        ``len(ops) * len(sizes) * min_run_time`` seconds.

    Returns
    -------
    Sweep

    Raises
    ------
    TypeError
        If ``ops`` is not a non-empty mapping of callables, ``source`` is not a tensor, or an
        operation does not return a tensor.
    ValueError
        If ``sizes`` is empty or holds a non-positive size.

    Examples
    --------
    >>> row = torch.zeros(1, 4)
    >>> s = cost_sweep({"expand": lambda x, n: x.expand(n, -1),
    ...                 "repeat": lambda x, n: x.repeat(n, 1)}, row, [1, 10])
    >>> s.bytes
    {'expand': (16, 16), 'repeat': (16, 160)}
    """
    if not isinstance(ops, Mapping) or not ops:
        raise TypeError("ops must be a non-empty mapping of label -> callable(source, n)")
    for label, op in ops.items():
        if not callable(op):
            raise TypeError(f"ops[{label!r}] must be callable, got {type(op).__name__}")
    _check_tensor("source", source)
    sizes = tuple(sizes)
    if not sizes:
        raise ValueError("sizes must not be empty")
    for n in sizes:
        if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
            raise ValueError(f"sizes must be positive ints, got {n!r}")

    nbytes, shared, seconds = {}, {}, {} if time else None
    for label, op in ops.items():
        results = [op(source, n) for n in sizes]
        for r in results:
            if not isinstance(r, torch.Tensor):
                raise TypeError(f"ops[{label!r}] must return a tensor, got {type(r).__name__}")
        nbytes[label] = tuple(storage_bytes(r) for r in results)
        shared[label] = tuple(shares_storage(r, source) for r in results)
        if time:
            seconds[label] = tuple(
                time_call(lambda op=op, n=n: op(source, n), min_run_time=min_run_time) for n in sizes)
    return Sweep(sizes=sizes, bytes=nbytes, shared=shared, seconds=seconds)


def quiet_stderr():
    """A context manager that hides what C++ code writes to standard error while it is active.

    ``torch.profiler`` logs a ``profiler_start`` and a ``profiler_stop`` line with a timestamp on
    every run; a notebook cell that profiles inside ``with quiet_stderr():`` prints only its own
    output.

    Examples
    --------
    >>> from torch.profiler import profile
    >>> with quiet_stderr(), profile() as prof:
    ...     _ = torch.ones(3) + 1
    """
    return _quiet_stderr()
