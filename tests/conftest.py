"""Shared pytest configuration: the hypothesis profiles.

``ci`` (loaded when the environment variable ``CI`` is set) is derandomized and keeps no
example database, so a CI run is reproducible and writes nothing. ``dev`` (the default) draws
fresh examples on every run and remembers failing ones in ``.hypothesis/`` (git-ignored).
Neither has a deadline: the machines are shared, so timings vary. Tests that want more examples
than the default say so with their own ``@settings(max_examples=...)``.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
