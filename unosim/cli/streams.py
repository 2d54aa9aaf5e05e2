"""A standard output that cannot fail a command half way.

A full disk behind ``> file``, ``> /dev/full`` or a reader that went away
makes every write to stdout raise. Raised where the command prints (``run``
prints its summary before it writes its report), that would lose work and
end in a traceback. Instead, while a command runs, stdout is a stream whose
failed writes are kept aside: the command finishes its work (its files are
written whole), and the CLI then says once, on one line, that its output was
lost, with a non-zero exit.
"""

from __future__ import annotations

import contextlib
import io
import os
import select
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["guarded_stdout"]


class _Sink(io.RawIOBase):
    """Writes to file descriptor ``fd``; the first error is kept, later bytes dropped."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd
        self.error: OSError | None = None

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return self.fd >= 0 and os.isatty(self.fd)

    def write(self, data: ReadableBuffer, /) -> int:  # any buffer of bytes
        view = memoryview(data).cast("B")
        size = len(view)
        while self.error is None and view:
            try:
                view = view[os.write(self.fd, view):]
            except BlockingIOError:  # a non-blocking stdout: wait until it takes more
                select.select([], [self.fd], [])
            except OSError as exc:
                self.error = exc
        return size


@contextlib.contextmanager
def guarded_stdout() -> Iterator[Callable[[], OSError | None]]:
    """Make ``sys.stdout`` a stream whose write errors wait; yields what returns the first.

    Only a stdout with a file descriptor is replaced (a test runner's capture
    is left alone). A closed one (``>&-``: Python's ``sys.stdout`` is None)
    fails at its first write, never writing to descriptor 1, which may be a
    file this process opened since. The old stream is back after the block.
    """
    old = sys.stdout
    try:
        fd = old.fileno() if old is not None else -1  # -1: every write fails (EBADF)
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        yield lambda: None
        return
    if old is not None:
        with contextlib.suppress(OSError, ValueError):
            old.flush()
    sink = _Sink(fd)
    stream = io.TextIOWrapper(io.BufferedWriter(sink),
                              encoding=old.encoding if old is not None else "utf-8",
                              errors=old.errors if old is not None else "replace",
                              line_buffering=bool(old is not None and old.line_buffering))
    sys.stdout = stream
    try:
        yield lambda: sink.error
    finally:
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
        sys.stdout = old
