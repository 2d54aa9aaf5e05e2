"""unosim: a UNO rules-variant simulator and statistics toolkit.

``import unosim`` stays light: the engine's worker processes import this
package, so nothing heavy (pydantic, numba, pandas) may load here. The Python
API (``unosim.run``, ``unosim.config``, ``unosim.Result``; see
``docs/python.md``) lives in ``unosim.api`` and is imported on first use.

``unosim.run`` is also the name of the run layer's package, and importing a
subpackage sets it as an attribute of its parent. So rather than a function
that the first ``import unosim.run...`` would replace, ``unosim.run`` is that
package made callable: ``unosim.run("classic")`` calls `unosim.api.run`, and
``unosim.run.run_simulation`` is still the runner. A module is callable only
through its class, and the import system sets ``unosim.run`` without asking
``__getattr__``, so this package's class catches that assignment; the run layer
itself knows nothing of the API above it. ``__version__`` lives in the leaf
`unosim._version`, which the layers import instead of this package.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

from unosim._version import __version__

# Names of unosim.api offered at the top level, imported when first asked for (by
# importlib: the CLI imports this package, and import-linter keeps cli and api apart).
_API = ("Interval", "Result", "compare", "config", "league", "screen", "sweep")

__all__ = ["Interval", "Result", "__version__", "compare", "config", "league", "run", "screen",
           "sweep"]


class _RunPackage(types.ModuleType):
    """The run layer's package, callable as the API's ``run``."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """``unosim.run(config, games=None, seed=1, ...)``: see `unosim.api.run`."""
        return importlib.import_module("unosim.api").run(*args, **kwargs)


class _Package(types.ModuleType):
    """This package: makes the ``run`` subpackage callable as the import system sets it."""

    def __setattr__(self, name: str, value: object) -> None:
        if name == "run" and type(value) is types.ModuleType:
            value.__class__ = _RunPackage
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    """``unosim.run`` and the rest of the API on first use."""
    if name == "run":
        return importlib.import_module("unosim.run")
    if name in _API:
        value = getattr(importlib.import_module("unosim.api"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'unosim' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The API and the loaded subpackages: what a notebook's ``unosim.<TAB>`` offers (not
    this module's own imports, such as ``sys`` or ``importlib``)."""
    subpackages = {n for n, v in globals().items()
                   if isinstance(v, types.ModuleType) and not n.startswith("_")
                   and v.__name__.startswith(f"{__name__}.")}
    return sorted({*__all__, *subpackages})
