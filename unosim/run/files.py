"""How unosim writes files and names directories: atomically, and never from a raw name.

Every file the project writes goes through `atomic_write` (a temp file in the
same directory, then ``os.replace``), so a reader, a crash, a full disk or a
file-size limit never leaves half a file behind: the old file stays whole or
the new one is complete. Directory names derived from user text (a config's
``name``, a sweep cell's values) go through `unosim.rules.config.name_slug`, so no name is ever a path.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

__all__ = ["atomic_write", "write_json", "write_output", "write_text"]

def atomic_write(path: str | os.PathLike[str], write: Callable[[BinaryIO], object]) -> None:
    """Call ``write`` on a binary temp file next to ``path``, then rename it to ``path``.

    A failed write (full disk, file-size limit) removes the temp file, leaves
    any old ``path`` intact and raises ``OSError`` naming ``path``. No fsync:
    it would cost more than the aggregation itself, and the one case it guards
    against (an OS crash leaving a renamed but empty file) is caught by the
    chunk checksum on resume anyway.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except Exception as exc:
        if isinstance(exc.__context__, KeyboardInterrupt):
            # Ctrl-C mid-write, turned into another error by a writer's cleanup (zipfile's
            # close raises ValueError): give the interrupt back, so the run stops cleanly
            raise KeyboardInterrupt from None
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
        raise
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """``text`` as UTF-8, written atomically."""
    data = text.encode("utf-8")
    atomic_write(path, lambda f: f.write(data))


def write_json(path: str | os.PathLike[str], data: object) -> None:
    """``data`` as indented JSON, written atomically."""
    write_text(path, json.dumps(data, indent=2) + "\n")


def write_output(path: str | os.PathLike[str], text: str) -> None:
    """``text`` to a file the user named: replace a regular file, stream to anything else.

    Only a regular file (or a new one) is replaced atomically, through a
    symlink to its target. A FIFO, a terminal, a device or a name of an open
    file (``/dev/stdout``, ``/proc/self/fd/N``) is opened and written as a
    stream, never replaced: renaming over it would give a reader nothing and
    turn a device node into a text file. The same file as stdout is written
    through ``sys.stdout``, so ``/dev/stdout`` appends where the shell said.
    Raises ``OSError`` naming ``path`` (a directory is ``EISDIR``).
    """
    name = os.fspath(path)
    try:
        st: os.stat_result | None = os.stat(name)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(21, "is a directory", name)
    kernel_name = os.path.abspath(name).startswith(("/dev/", "/proc/"))
    if st is None or (stat.S_ISREG(st.st_mode) and not kernel_name):
        write_text(os.path.realpath(name), text)
        return
    data = text.encode("utf-8")
    try:
        if _is_stdout(st):
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
            return
        with open(name, "wb") as f:
            f.write(data)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), name) from None


def _is_stdout(st: os.stat_result) -> bool:
    """Whether ``st`` is the file this process's stdout writes to."""
    try:
        return os.path.samestat(st, os.fstat(sys.stdout.fileno()))
    except (AttributeError, OSError, ValueError):  # no real stdout (a test's capture)
        return False
