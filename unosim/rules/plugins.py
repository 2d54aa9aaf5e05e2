"""Which seat policy names are plug-ins, and which source code each one runs.

A plug-in is written ``package.module:Class`` (an importable module) or
``path/to/file.py:Class`` (a Python file, relative to the working directory).
Only the form is checked to validate a config, so a config validates without
importing user code; `unosim.engine.plugins` loads the class when a game needs it.

A plug-in's code decides games, so it is part of a run's identity: `source_digest`
hashes the file a name runs (the ``.py`` file, or the module's file, found
without running any code) and `unosim.rules.config.config_hash` includes it.

>>> is_plugin_name("examples/policies/first_legal.py:FirstLegal")
True
>>> is_plugin_name("mypackage.players:Keeper"), is_plugin_name("random")
(True, False)
>>> source_digest("no/such/file.py:P")
'unreadable: no such file'
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import re
import stat
import sys

__all__ = ["MAX_PLUGIN_BYTES", "PLUGIN_PATTERN", "PluginSourceError", "file_digest", "is_plugin_name",
           "module_file", "plugin_digests", "read_source", "source_digest", "split_name"]

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
# module path (dotted identifiers) or a file path ending in .py (no colon, no spaces),
# then ":" and the class name
PLUGIN_PATTERN = re.compile(rf"^(?:{_IDENT}(?:\.{_IDENT})*|[^:\s]+\.py):{_IDENT}$")
# A plug-in is a page or two of Python; a bigger "source" is a mistake (or /dev/zero
# behind a symlink) and is refused before it costs memory.
MAX_PLUGIN_BYTES = 4_000_000


class PluginSourceError(ValueError):
    """A plug-in's source that cannot be read: missing, not a regular file, too big."""


def is_plugin_name(text: object) -> bool:
    """Whether ``text`` names a plug-in policy (``module:Class`` or ``file.py:Class``)."""
    # printable: the name is quoted in one-line errors and reports
    return (isinstance(text, str) and PLUGIN_PATTERN.fullmatch(text) is not None
            and text.isprintable())


def split_name(name: str) -> tuple[str, str, bool]:
    """``(target, class name, is a file)`` of a plug-in name.

    >>> split_name("a/b.py:P"), split_name("pkg.mod:P")
    (('a/b.py', 'P', True), ('pkg.mod', 'P', False))
    """
    target, cls_name = name.rsplit(":", 1)
    return target, cls_name, target.endswith(".py")


def read_source(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a plug-in file, read once and bounded.

    Only a regular file is read (a FIFO or a device would block or never end);
    `PluginSourceError` says why not, in a few words.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise PluginSourceError(_why(exc)) from None
    try:
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise PluginSourceError("not a regular file")
            data = f.read(MAX_PLUGIN_BYTES + 1)
    except OSError as exc:
        raise PluginSourceError(_why(exc)) from None
    if len(data) > MAX_PLUGIN_BYTES:
        raise PluginSourceError(f"larger than {MAX_PLUGIN_BYTES:,} bytes")
    return data


def _why(exc: OSError) -> str:
    return "no such file" if isinstance(exc, FileNotFoundError) else (
        exc.strerror or type(exc).__name__).lower()


def module_file(module: str) -> str | None:
    """The file ``import module`` would run (or has run), found without running any code.

    ``importlib.util.find_spec("a.b")`` would import ``a``; this walks the
    finders one package at a time instead. None when the module has no file
    (built in, a namespace package) or cannot be found.
    """
    loaded = sys.modules.get(module)
    if loaded is not None:
        file = getattr(loaded, "__file__", None)
        return file if isinstance(file, str) else None
    parts = module.split(".")
    try:
        spec = importlib.util.find_spec(parts[0])
        for i in range(1, len(parts)):
            if spec is None or spec.submodule_search_locations is None:
                return None
            spec = importlib.machinery.PathFinder.find_spec(
                ".".join(parts[:i + 1]), list(spec.submodule_search_locations))
    except (ImportError, ValueError, OSError):
        return None
    if spec is None or not spec.has_location or not isinstance(spec.origin, str):
        return None
    return spec.origin


def source_digest(name: str) -> str:
    """sha256 of the source a plug-in name runs; a short reason when there is none.

    The digest is of the bytes, not the path or the time stamp, so a moved
    checkout keeps its runs and an edited plug-in does not.
    """
    target, _, is_file = split_name(name)
    return file_digest(target if is_file else module_file(target))


def file_digest(file: str | os.PathLike[str] | None) -> str:
    """sha256 of a plug-in file's bytes (`read_source`), or why there is none."""
    if file is None:
        return "no source file"
    try:
        return hashlib.sha256(read_source(file)).hexdigest()
    except PluginSourceError as exc:
        return f"unreadable: {exc}"


def plugin_digests(policies: list[str]) -> dict[str, str]:
    """`source_digest` of each distinct plug-in among ``policies`` (built-ins are left out)."""
    out: dict[str, str] = {}
    for p in policies:
        if is_plugin_name(p) and p not in out:
            out[p] = source_digest(p)
    return out
