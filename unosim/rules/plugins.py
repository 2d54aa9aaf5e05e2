"""Which seat policy names are plug-ins rather than built-in policies.

A plug-in is written ``package.module:Class`` (an importable module) or
``path/to/file.py:Class`` (a Python file, relative to the working directory).
Only the form is checked here, so a config validates without importing user
code; `unosim.engine.plugins` loads the class when a game needs it.

>>> is_plugin_name("examples/policies/first_legal.py:FirstLegal")
True
>>> is_plugin_name("mypackage.players:Keeper"), is_plugin_name("random")
(True, False)
"""

from __future__ import annotations

import re

__all__ = ["PLUGIN_PATTERN", "is_plugin_name"]

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
# module path (dotted identifiers) or a file path ending in .py (no colon, no spaces),
# then ":" and the class name
PLUGIN_PATTERN = re.compile(rf"^(?:{_IDENT}(?:\.{_IDENT})*|[^:\s]+\.py):{_IDENT}$")


def is_plugin_name(text: object) -> bool:
    """Whether ``text`` names a plug-in policy (``module:Class`` or ``file.py:Class``)."""
    return isinstance(text, str) and PLUGIN_PATTERN.fullmatch(text) is not None
