"""Shared pytest configuration: the hypothesis profiles, and the long tests first.

``ci`` (loaded when the environment variable ``CI`` is set) is derandomized and keeps no
example database, so a CI run is reproducible and writes nothing. ``dev`` (the default) draws
fresh examples on every run and remembers failing ones in ``.hypothesis/`` (git-ignored).
Neither has a deadline: the machines are shared, so timings vary. Tests that want more examples
than the default say so with their own ``@settings(max_examples=...)``.

The modules marked ``grading`` (kernels and ``otter run``: minutes each, mostly waiting) are
collected first, so that under ``-n 2 --dist loadfile`` (``make unit``) each starts at once on a
worker of its own and the other tests fill in around them, instead of one of them starting last.
The tests marked ``long`` (a live JupyterLab, a page drawn cell by cell: half a minute or so) go
first for the same reason, under the browser stage's ``-n 3`` (which deals tests out one by one).
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_collection_modifyitems(items):
    # stable: files keep their order
    items.sort(key=lambda item: not (item.get_closest_marker("grading") or item.get_closest_marker("long")))
