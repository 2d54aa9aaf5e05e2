"""One writer per out dir: an exclusive lock held for a whole command.

The lock is ``fcntl.flock`` on ``OUT/.unosim.lock``, a file naming its holder
(pid and host). The file appears with its content already in it (written to
a temp file, locked, then hard-linked into place), so a second command that
finds the lock taken can always say who holds it, and fails at once. The
kernel drops a flock when its process dies, so a lock file whose flock is
free was left by a process that ended without cleaning up: when it names a
dead pid of this host it is taken over with a warning; otherwise (a live pid,
another host) it is refused, since that cannot be told apart from a lock on a
filesystem that does not share flocks.

Within one process the lock is re-entrant for the thread holding it, so
``unosim run`` can hold it across the runner, the summary and the report.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypedDict

from unosim.run.errors import OutDirBusyError, OutDirError

__all__ = ["LOCK_NAME", "is_lock_file", "lock_out_dir"]

LOCK_NAME = ".unosim.lock"

_held: dict[Path, tuple[int, int]] = {}  # resolved out dir -> (thread id, depth)
_guard = threading.Lock()


def is_lock_file(name: str) -> bool:
    """Whether a file name in an out dir is the lock (or its temp file), not content."""
    return name == LOCK_NAME or name.startswith(LOCK_NAME + ".tmp-")


@contextlib.contextmanager
def lock_out_dir(out: str | os.PathLike[str],
                 warn: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the exclusive lock of ``out`` (created if missing) for the ``with`` block.

    Raises `OutDirBusyError` naming the holder when another process holds it.
    Directories created only to hold the lock are removed again if nothing
    was written into them.
    """
    out = Path(out)
    key = out.resolve()
    me = threading.get_ident()
    with _guard:
        owner, depth = _held.get(key, (me, 0))
        if owner != me:
            raise OutDirBusyError(f"out dir {out} is in use by another thread of this process")
        _held[key] = (me, depth + 1)
    created: list[Path] = []
    fd = -1
    try:
        if depth == 0:
            created = _make_dirs(out)
            fd = _acquire(out, warn or (lambda _msg: None))
        yield
    finally:
        with _guard:
            if depth == 0:
                del _held[key]
            else:
                _held[key] = (me, depth)
        if fd >= 0:
            _release(fd, out / LOCK_NAME)
        for d in reversed(created):
            with contextlib.suppress(OSError):  # not empty: the run wrote into it
                d.rmdir()


def _make_dirs(out: Path) -> list[Path]:
    """``mkdir -p out``; returns the directories it created, outermost first."""
    missing = [p for p in (out, *out.parents) if not p.exists()][::-1]
    if out.is_symlink() and not out.exists():  # mkdir would say "File exists"
        raise OutDirError(f"out dir {out} is a symlink to nothing: use another --out")
    if out.exists() and not out.is_dir():  # a file, a FIFO, a device
        raise OutDirError(f"out dir {out} exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutDirError(f"cannot write to out dir {out}: {exc.strerror or exc}") from None
    if not out.is_dir():
        raise OutDirError(f"out dir {out} exists and is not a directory")
    return missing


class _Holder(TypedDict):
    """Who holds a lock, as its lock file says (JSON)."""

    pid: int
    host: str


def _holder() -> _Holder:
    return {"pid": os.getpid(), "host": socket.gethostname()}


def _acquire(out: Path, warn: Callable[[str], None]) -> int:
    """Lock ``out``: the fd holding the flock of the file now named ``out/LOCK_NAME``."""
    path = out / LOCK_NAME
    tmp = out / f"{LOCK_NAME}.tmp-{os.getpid()}"
    try:
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, json.dumps(_holder()).encode())
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a fresh file: never contended
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise OutDirError(f"cannot lock out dir {out}: {exc.strerror or exc}") from None
    try:
        for _ in range(100):  # each retry means another process changed the lock meanwhile
            if _claim(out, path, tmp, warn):
                return fd
        raise OutDirError(f"cannot lock out dir {out}: its lock file keeps changing")
    except BaseException:
        os.close(fd)
        raise
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _claim(out: Path, path: Path, tmp: Path, warn: Callable[[str], None]) -> bool:
    """One attempt to put our (locked) ``tmp`` at ``path``; False means try again."""
    try:
        os.link(tmp, path)  # appears whole, already locked by us
        return True
    except FileExistsError:
        pass
    except OSError as exc:
        raise OutDirError(f"cannot lock out dir {out}: {exc.strerror or exc}") from None
    try:
        old = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False  # released meanwhile
    try:
        try:
            fcntl.flock(old, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutDirBusyError(f"out dir {out} is in use by {_describe(_read(old))}; "
                                  "wait for it to finish or use another --out") from None
        if not _same_file(old, path):
            return False  # replaced or released meanwhile
        holder = _read(old)
        if holder is not None and (holder["host"] != socket.gethostname()
                                   or (holder["pid"] != os.getpid() and _alive(holder["pid"]))):
            raise OutDirBusyError(
                f"out dir {out} has a lock file naming {_describe(holder)} whose lock is "
                f"free; if no unosim runs there any more, delete {path}")
        warn(f"taking over the lock of {out} left by {_describe(holder)}, which has ended")
        os.replace(tmp, path)
        return True
    finally:
        os.close(old)


def _release(fd: int, path: Path) -> None:
    """Remove the lock file (if still ours), then drop the flock."""
    try:
        if _same_file(fd, path):
            path.unlink()
    except OSError:
        pass  # an unremovable lock file is taken over as stale by the next run
    finally:
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


def _read(fd: int) -> _Holder | None:
    """The holder a lock file names, or None when it names none."""
    try:
        data = json.loads(os.pread(fd, 4096, 0))
    except (OSError, ValueError):
        return None
    if (isinstance(data, dict) and isinstance(data.get("host"), str)
            and type(data.get("pid")) is int and data["pid"] > 0):
        return {"pid": data["pid"], "host": data["host"]}
    return None


def _describe(holder: _Holder | None) -> str:
    if holder is None:
        return "an unknown process"
    return f"pid {holder['pid']} on {holder['host']}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    except OverflowError:
        return False
    return True
