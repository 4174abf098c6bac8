"""Finding and killing the processes a graded run leaves behind, read from Linux's /proc.

Where there is no /proc (macOS, say) nothing is found, and only the grader's process-group kills
apply. Used by ``tensorlens.classroom.grade`` (processes marked with a run's token) and by
``tensorlens.classroom._grade_run`` (its own descendants).
"""

from __future__ import annotations

import os
import signal
import time
from typing import Callable, Iterator


def _proc_files(name: str) -> Iterator[tuple[int, bytes]]:
    """(pid, contents of /proc/PID/<name>) for every process that can be read."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/{name}", "rb") as fh:
                yield int(entry), fh.read()
        except OSError:
            continue


def marked(needle: bytes) -> list[int]:
    """Processes whose environment holds the entry ``needle``, this one excluded."""
    return [pid for pid, environ in _proc_files("environ")
            if needle in environ.split(b"\0") and pid != os.getpid()]


def descendants(root: int) -> list[int]:
    """Live (non-zombie) descendants of ``root``."""
    children: dict[int, list[int]] = {}
    for pid, stat in _proc_files("stat"):
        # the command name, in parentheses, may hold spaces: the fields follow its last ")"
        fields = stat.rsplit(b")", 1)[-1].split()
        if len(fields) > 1 and fields[0] != b"Z":
            children.setdefault(int(fields[1]), []).append(pid)
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_until_gone(find: Callable[[], list[int]], rounds: int = 100,
                    reap: bool = False) -> bool:
    """SIGKILL every process ``find()`` lists until it lists none; True when none is left.

    ``reap`` also collects the zombies of processes that became this process's children.
    """
    for _ in range(rounds):
        left = find()
        if not left:
            return True
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.02)
        while reap:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
    return not find()
