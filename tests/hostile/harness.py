"""Run ``python -m unosim`` as a user would, and check what a careful user expects.

A command runs in a process group of its own with its address space capped
(a runaway fails fast instead of taking the machine down); `Proc.wait` reaps
it with ``wait4`` for its peak memory and CPU time and reports any process of
its group still alive shortly after it ended. The ``expect_*`` checks hold
every command to the CLI's contract: exit 2 and one ``unosim: error:`` line
for errors, 0 for success, 130 for Ctrl-C, never a traceback, memory and work
bounded.

Work is bounded in CPU seconds (the command's own and its reaped workers'),
which a busy machine does not stretch; wall-clock limits are loose safety
nets (`SLACK` times the CPU bound, `WALL` before a command is killed), so the
battery passes beside other busy processes. A test that interrupts waits for
an event (`wait_for`: a chunk file, a line) and signals right after it, while
most of the command's work is still to do.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["QUICK", "SLACK", "TIMEOUT", "WALL", "Proc", "Result", "Snapshot", "assert_same", "chunks", "cli",
           "error_line", "expect_error", "expect_interrupted", "expect_ok", "expect_ok_or_error",
           "expect_sane", "snapshot", "stamps", "wait_for"]

MAX_RSS = 1536 * 2**20  # bytes: peak resident memory of a command and its workers
ADDRESS_SPACE = 4 * 2**30  # RLIMIT_AS of each command, about 5x what a normal run maps
TIMEOUT = 45.0  # CPU seconds a command may spend (its workers included)
QUICK = 15.0  # CPU seconds an error may take, start-up included
SLACK = 4.0  # wall-clock bound = SLACK x the CPU bound: a safety net a busy machine meets
WALL = 600.0  # seconds before a command is killed (and its case fails): a safety net
LINGER = 5.0  # seconds a command's workers may outlive it (they are killed then)

# Sets the limits, then becomes `python -m unosim ARGS` (same pid, so signals,
# lock holders and wait4's peak memory are the command's own).
_LAUNCHER = """\
import os, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), resource.RLIM_INFINITY))
if int(sys.argv[2]) >= 0:
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), resource.RLIM_INFINITY))
os.execv(sys.executable, [sys.executable, "-m", "unosim", *sys.argv[3:]])
"""


# --- running one command -----------------------------------------------------------
@dataclass(repr=False)
class Result:
    """How one finished command went."""

    args: tuple[str, ...]
    rc: int
    stdout: str
    stderr: str
    seconds: float
    peak_rss: int  # bytes, the command and the children it reaped
    lingering: list[int]  # processes of its group still alive LINGER s after it exited
    timed_out: bool
    cpu: float = 0.0  # CPU seconds (user + system), the command and the children it reaped
    after_signal: float | None = None  # seconds from the first signal sent to the exit

    def __repr__(self) -> str:
        return f"<unosim {' '.join(self.args)[:60]}: rc {self.rc}>"

    def __str__(self) -> str:
        return (f"`unosim {' '.join(self.args)}` -> rc {self.rc} in {self.seconds:.1f} s "
                f"({self.cpu:.1f} s CPU), peak {self.peak_rss / 2**20:.0f} MB\n--- stderr:\n{self.stderr[-3000:]}"
                f"\n--- stdout:\n{self.stdout[-1500:]}")


def _group_alive(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that still run (zombies waiting for a reaper do not)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[0] != "Z" and int(fields[2]) == pgid:
                alive.append(int(stat.parent.name))
    return alive


class Proc:
    """One ``unosim`` command running in a process group of its own."""

    def __init__(self, cwd: Path, args: tuple[str, ...], fsize: int = -1) -> None:
        self.args = args
        self.t0 = time.monotonic()
        self.popen = subprocess.Popen(
            [sys.executable, "-c", _LAUNCHER, str(ADDRESS_SPACE), str(fsize), *args],
            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        self.pid = self.popen.pid
        self._out: dict[str, bytes] = {}
        self._readers = [threading.Thread(target=self._read, args=(name, pipe), daemon=True)
                         for name, pipe in (("stdout", self.popen.stdout),
                                            ("stderr", self.popen.stderr))]
        for reader in self._readers:
            reader.start()
        self.result: Result | None = None
        self.signalled: float | None = None  # when the first signal was sent
        # Linux carries the forking process's high-water mark into the command's
        # ru_maxrss across exec. When this (pytest) process is already past the memory
        # bound, wait4's figure says nothing about the command: sample the group's own
        # VmHWM instead (`peak`).
        self.baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        self.sampled = 0
        self.sampling = self.baseline >= MAX_RSS
        if self.sampling:
            threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self) -> None:
        """The largest VmHWM of the command's group, read until it is reaped (a
        measurement, not a wait: nothing waits on it)."""
        while self.result is None:
            for pid in [self.pid, *_group_alive(self.pid)]:
                with contextlib.suppress(OSError, StopIteration, ValueError):
                    with open(f"/proc/{pid}/status") as f:
                        kb = next(line.split()[1] for line in f if line.startswith("VmHWM"))
                    self.sampled = max(self.sampled, int(kb) * 1024)
            time.sleep(0.05)

    def peak(self, ru_maxrss: int) -> int:
        """The command's peak memory: wait4's, unless it can be the carried figure."""
        return self.sampled if self.sampling and ru_maxrss <= self.baseline else ru_maxrss

    def _read(self, name: str, pipe: object) -> None:
        self._out[name] = pipe.read()  # type: ignore[attr-defined]

    def running(self) -> bool:
        """Whether the command still runs (asked without reaping it: `wait` does that)."""
        return self.result is None and os.waitid(
            os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None

    def signal(self, sig: int, group: bool = True) -> None:
        """``sig`` to the whole group (as a terminal sends Ctrl-C) or to the command only."""
        if self.signalled is None:
            self.signalled = time.monotonic()
        (os.killpg if group else os.kill)(self.pid, sig)

    def wait(self, timeout: float = WALL) -> Result:
        """Wait for the command (killing its group ``timeout`` s after it started) and
        describe it."""
        if self.result is not None:
            return self.result
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGKILL)

        timer = threading.Timer(max(0.0, timeout - (time.monotonic() - self.t0)), kill)
        timer.start()
        try:
            _, status, usage = os.wait4(self.pid, 0)
        finally:
            timer.cancel()
        ended = time.monotonic()
        seconds = ended - self.t0
        self.popen.returncode = os.waitstatus_to_exitcode(status)
        deadline = time.monotonic() + LINGER
        while (lingering := _group_alive(self.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in lingering:  # only processes this command started
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for reader in self._readers:
            reader.join()
        self.result = Result(self.args, self.popen.returncode,
                             self._out.get("stdout", b"").decode(errors="replace"),
                             self._out.get("stderr", b"").decode(errors="replace"),
                             seconds, self.peak(usage.ru_maxrss * 1024), lingering, killed.is_set(),
                             usage.ru_utime + usage.ru_stime,
                             None if self.signalled is None else ended - self.signalled)
        return self.result

    def stop(self) -> None:
        """End a command a case no longer needs (whatever it was doing)."""
        if self.result is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGKILL)
            self.wait()


def cli(cwd: Path, *args: str, fsize: int = -1, timeout: float = WALL) -> Result:
    """Run ``unosim ARGS`` in ``cwd`` to the end (``fsize``: RLIMIT_FSIZE in bytes)."""
    return Proc(cwd, args, fsize).wait(timeout)


def wait_for(what: str, ready: Callable[[], bool], *procs: Proc, limit: float = WALL) -> None:
    """Poll until ``ready()``; fail if a command in ``procs`` ends first.

    The event, not the clock, decides: ``limit`` only stops a test whose event
    never comes (a busy machine may take minutes to get there)."""
    deadline = time.monotonic() + limit
    while not ready():
        for p in procs:
            if not p.running():
                raise AssertionError(f"ended before {what}: {p.wait()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {limit} s")
        time.sleep(0.005)


def chunks(out: Path) -> list[Path]:
    """The finished chunk files of a run dir, or of every run under a study dir."""
    return sorted([*out.glob("chunks/chunk-*.npz"), *out.glob("runs/*/chunks/chunk-*.npz")])


# --- what every command must and must not do ----------------------------------------
def expect_sane(r: Result, seconds: float) -> None:
    """Not killed, no traceback, within ``seconds`` of CPU and MAX_RSS, no process left
    behind; in wall-clock time, within SLACK x ``seconds`` of the signal for a command
    that was signalled, of its start for one that was not (it catches a command that
    waits on something, say a network timeout, yet a busy machine meets it)."""
    assert not r.timed_out, f"killed at its wall-clock limit ({r.seconds:.0f} s): {r}"
    assert "Traceback" not in r.stdout + r.stderr, str(r)
    assert r.cpu < seconds, f"took {r.cpu:.1f} s of CPU, more than {seconds} s: {r}"
    if r.after_signal is not None:
        assert r.after_signal < SLACK * seconds, (
            f"ran {r.after_signal:.1f} s after the signal, more than {SLACK * seconds} s: {r}")
    else:
        assert r.seconds < SLACK * seconds, (
            f"took {r.seconds:.1f} s, more than {SLACK * seconds} s: {r}")
    assert r.peak_rss < MAX_RSS, f"peak memory {r.peak_rss / 2**20:.0f} MB: {r}"
    assert not r.lingering, f"processes {r.lingering} outlived the command by {LINGER} s: {r}"


def error_line(r: Result, *words: str) -> str:
    """The one printable ``unosim: error:`` line of stderr, naming ``words``."""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("unosim: error: "), str(r)
    assert lines[0].isprintable(), f"control characters in the message: {lines[0]!r}"
    for word in words:
        assert word in lines[0], f"{word!r} not in the message: {r}"
    return lines[0]


def expect_error(r: Result, *words: str, seconds: float = QUICK) -> str:
    """Exit 2 and one `error_line` naming ``words``, within ``seconds``; returns it."""
    expect_sane(r, seconds)
    assert r.rc == 2, str(r)
    return error_line(r, *words)


def expect_ok(r: Result, warning: str | None = None, seconds: float = TIMEOUT) -> None:
    """Exit 0; stderr silent (``-q``), or only warnings, one of them naming ``warning``."""
    expect_sane(r, seconds)
    assert r.rc == 0, str(r)
    lines = r.stderr.splitlines()
    if warning is None:
        assert not lines, str(r)
    else:
        assert lines and all(line.startswith("unosim: warning: ") for line in lines), str(r)
        assert any(warning in line for line in lines), f"no warning about {warning!r}: {r}"


def expect_ok_or_error(r: Result, *words: str, warning: str | None = None) -> bool:
    """Either a success (see `expect_ok`) or a one-line error; True if it succeeded."""
    if r.rc == 0:
        expect_ok(r, warning)
        return True
    expect_error(r, *words)
    return False


def expect_interrupted(r: Result, *words: str) -> None:
    """Ctrl-C: exit 130 (the shell's convention) and one ``unosim: error:`` line."""
    expect_sane(r, TIMEOUT)
    assert r.rc == 130, str(r)
    error_line(r, "interrupted", *words)


Snapshot = dict[str, tuple[int, int] | None]


def snapshot(root: Path, *skip: Path) -> Snapshot:
    """Every path under ``root`` but ``skip``: files with (mtime, size), folders with None."""
    seen: Snapshot = {}
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = [d for d in dirs if here / d not in skip]
        seen[str(here.relative_to(root))] = None
        for name in files:
            if here / name not in skip:
                st = (here / name).stat(follow_symlinks=False)
                seen[str((here / name).relative_to(root))] = (st.st_mtime_ns, st.st_size)
    return seen


def stamps(paths: Iterable[Path]) -> dict[Path, tuple[int, int] | None]:
    """(mtime, size) of each file, None if it is gone."""
    return {p: (p.stat().st_mtime_ns, p.stat().st_size) if p.exists() else None for p in paths}


def assert_same(before: Snapshot, after: Snapshot, where: str) -> None:
    """Fail naming the paths added, removed or rewritten between two snapshots."""
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k, 0) != after.get(k, 0))
    assert not changed, f"changed in {where}: {changed[:12]}"
