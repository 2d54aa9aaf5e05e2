"""The package version, in a leaf module that imports nothing.

Every layer that stamps a version (summaries, manifests, reports, ``--version``)
imports it from here rather than from ``unosim/__init__.py``, so no module points
up at the package root; ``pyproject.toml`` reads it too (setuptools' dynamic
``version``), so there is one place to bump it.
"""

__version__ = "0.1.0"
