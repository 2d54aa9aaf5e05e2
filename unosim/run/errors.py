"""The run layer's errors: typed, and ``str()`` is one line the CLI prints as is."""

from __future__ import annotations

__all__ = [
    "BackendError",
    "BadOptionError",
    "OutDirBusyError",
    "OutDirError",
    "ResumeMismatchError",
    "RunError",
    "RunInterrupted",
]


class RunError(Exception):
    """A run that cannot start or finish."""


class BadOptionError(RunError):
    """An option value that makes no sense (games <= 0, jobs 0, ...)."""


class OutDirError(RunError):
    """The out dir is unusable: unwritable, not empty, or not a run directory."""


class OutDirBusyError(OutDirError):
    """Another process holds the out dir's lock."""


class ResumeMismatchError(OutDirError):
    """``--resume`` on a directory holding a different run."""


class BackendError(RunError):
    """The parallel backend is missing or unreachable."""


class RunInterrupted(RunError):
    """Ctrl-C: finished chunks are kept; ``--resume`` completes the run."""
