"""run layer: many games in parallel chunks, checkpointed and resumable.

The public surface; the modules split it by topic (chunks, checkpoints,
manifest, lock, files, backends, runner, errors).
"""

from unosim.run.backends import BACKENDS
from unosim.run.checkpoints import load_aggregates, read_arrays
from unosim.run.chunks import chunk_plan, default_chunk_size
from unosim.run.errors import (
    BackendError,
    BadOptionError,
    OutDirBusyError,
    OutDirError,
    ResumeMismatchError,
    RunError,
    RunInterrupted,
)
from unosim.run.files import atomic_write
from unosim.run.lock import lock_out_dir
from unosim.run.manifest import record_outputs
from unosim.run.runner import RunResult, check_run_dir, run_simulation

__all__ = [
    "BACKENDS",
    "BackendError",
    "BadOptionError",
    "OutDirBusyError",
    "OutDirError",
    "ResumeMismatchError",
    "RunError",
    "RunInterrupted",
    "RunResult",
    "atomic_write",
    "check_run_dir",
    "chunk_plan",
    "default_chunk_size",
    "load_aggregates",
    "lock_out_dir",
    "read_arrays",
    "record_outputs",
    "run_simulation",
]
