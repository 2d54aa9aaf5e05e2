"""Where chunks run: in process, a loky process pool, threads, or a dask cluster.

Every backend maps chunk tasks to finished chunks in completion order; which
one runs a chunk never changes its result. Workers import this module to run
`chunk_task`, so it imports no config layer (pydantic) or statistics (scipy).
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import re
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, NamedTuple, ParamSpec, TypedDict, TypeVar

import numpy as np

from unosim.engine.kernel.batch import NGF, simulate
from unosim.run.errors import BackendError, RunError

if TYPE_CHECKING:
    from unosim.engine.kernel.state import KernelArrays, State

__all__ = ["BACKENDS", "DASK_CONNECT_TIMEOUT", "ChunkResult", "Executor", "Foreground", "Task",
           "chunk_task", "executor", "foreground", "pair_moments"]

BACKENDS = ("loky", "threads", "dask")
DASK_CONNECT_TIMEOUT = 5  # seconds

Task = tuple[int, int, int]  # index, start, count


class ChunkResult(NamedTuple):
    """One chunk of every config: aggregates, records and the pairs' moments."""

    idx: int  # the chunk's index in the plan
    aggs: list[dict[str, np.ndarray]]
    recs: list[np.ndarray | None]
    pair_sums: np.ndarray  # (pairs, 2 * NGF): sums of (features of a, features of b)
    pair_moments: np.ndarray  # (pairs, 2 * NGF, 2 * NGF): their sums of products


Executor = Callable[[list[Task]], Generator[ChunkResult, None, None]]
R = TypeVar("R")
P = ParamSpec("P")
_POLL = 0.1  # seconds: how often a waiting main thread looks again (signals also wake it)


class Foreground:
    """Calls that the main thread makes wait for in a daemon thread, so signals land.

    A signal handler runs only between Python bytecodes of the main thread, and a
    compiled call does not return to Python until it is done: a single chunk of
    search seats, or a million advice playouts, would hold Ctrl-C and SIGTERM
    for minutes. `call` runs the work in one long-lived daemon thread (compiled
    code releases the GIL; that thread keeps the per-thread kernel state across
    chunks) while the main thread waits on an event, which a signal's handler
    interrupts at once. An interrupted call is abandoned: its result is dropped,
    and the process exits without waiting for it. Off the main thread, where no
    signal is ever handled, `call` simply calls.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def call(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """``fn(*args, **kwargs)``, its exception re-raised here."""
        if threading.current_thread() is not threading.main_thread():
            return fn(*args, **kwargs)
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, args=(self._jobs,),
                                            name="unosim-foreground", daemon=True)
            self._thread.start()
        done = threading.Event()
        box: list[R] = []
        failed: list[BaseException] = []
        self._jobs.put((fn, args, kwargs, done, box, failed))
        while not done.wait(_POLL):
            pass
        if failed:
            raise failed.pop()
        return box.pop()

    @staticmethod
    def _serve(jobs: queue.SimpleQueue[Any]) -> None:
        while (job := jobs.get()) is not None:
            fn, args, kwargs, done, box, failed = job
            try:
                box.append(fn(*args, **kwargs))
            except BaseException as exc:  # the caller re-raises it
                failed.append(exc)
            finally:
                done.set()
            del job, fn, args, kwargs, done, box, failed  # an abandoned result is not kept alive

    def close(self) -> None:
        """Let the thread end once its current call (if abandoned, still running) returns."""
        if self._thread is not None:
            self._jobs.put(None)
            self._thread = None


@contextlib.contextmanager
def foreground() -> Iterator[Foreground]:
    """A `Foreground` for the block, closed on the way out."""
    fg = Foreground()
    try:
        yield fg
    finally:
        fg.close()


class _WorkerState(threading.local):
    """Per thread: the kernel releases the GIL, so threads of one process (the
    threads backend, a multi-threaded dask worker) must never share state."""

    states: dict[str, State]
    quiet: bool = False

    def __init__(self) -> None:
        self.states = {}


_WORKER = _WorkerState()
_MAX_STATES = 64  # configs whose state arrays a worker keeps (a sweep's cells)


def _state(cc: KernelArrays, key: str) -> State:
    """The worker's state arrays for config ``key`` (kept across chunks)."""
    states = _WORKER.states
    if key not in states:
        from unosim.engine.kernel.state import alloc_state

        if len(states) >= _MAX_STATES:
            states.pop(next(iter(states)))
        states[key] = alloc_state(cc, trace=False)
    return states[key]


def pair_moments(features: Sequence[np.ndarray | None], pairs: tuple[tuple[int, int], ...]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Sums and sums of products of each pair's per-game features, side by side.

    Differences, correlations and paired tests of any feature (or ratio of
    features) follow from these integers, so pairing keeps no per-game data.
    """
    sums = np.zeros((len(pairs), 2 * NGF), np.int64)
    moments = np.zeros((len(pairs), 2 * NGF, 2 * NGF), np.int64)
    for p, (a, b) in enumerate(pairs):
        fa, fb = features[a], features[b]
        assert fa is not None and fb is not None
        x = np.concatenate([fa, fb], axis=1)
        sums[p] = x.sum(axis=0)
        moments[p] = x.T @ x
    return sums, moments


def chunk_task(ccs: tuple[Any, ...], keys: tuple[str, ...], seed: int, index: int,
               start: int, count: int, *, records: bool, parent: int,
               pairs: tuple[tuple[int, int], ...] = (),
               plugins: tuple[dict[int, str], ...] = ()) -> ChunkResult:
    """Simulate one chunk of every config (game ``g`` of each from the same stream).

    ``parent`` is the pid of the process that runs the run. ``plugins[i]``
    names config ``i``'s plug-in seats: its games go through the façade, the
    plug-ins deciding in Python (`unosim.engine.plugins`).
    """
    if not _WORKER.quiet and os.getpid() != parent:
        # Ctrl-C reaches the whole process group: the parent decides what happens
        # (it kills the pool), so worker processes must not die noisily first. The
        # parent keeps its handler, also when joblib runs a lone task in it.
        with contextlib.suppress(ValueError):  # not the main thread (dask)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        _WORKER.quiet = True
    paired = {i for pair in pairs for i in pair}
    aggs, recs, feats = [], [], []
    for i, (cc, key) in enumerate(zip(ccs, keys, strict=True)):
        f = np.zeros((count, NGF), np.int64) if i in paired else None
        if i < len(plugins) and plugins[i]:
            from unosim.engine.plugins import simulate_plugins

            agg, rec = simulate_plugins(cc, seed, start, count, plugins[i], features=f)
        else:
            agg, rec = simulate(cc, seed, start, count, records, state=_state(cc, key),
                                features=f)
        aggs.append(agg)
        recs.append(rec)
        feats.append(f)
    sums, moments = pair_moments(feats, pairs)
    return ChunkResult(index, aggs, recs, sums, moments)


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ignore SIGINT while child processes are spawned (they keep ignoring it)."""
    try:
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing to protect
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _probe(scheduler: str) -> None:
    """Check ``scheduler``'s address, then connect and shake hands, all within the timeout.

    ``Client(timeout=...)`` bounds only the TCP connect: a server that accepts
    but never answers the dask handshake (an HTTP server) would hang it for
    good, one that answers garbage makes it allocate what the garbage says,
    and a malformed address leaves a half-built client whose ``__del__``
    blocks the exit. Probing first avoids all three; the probe runs its own
    event loop in a thread, so it works under a running loop too (Jupyter).
    An unreachable address raises OSError, as ``Client`` would.
    """
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from distributed.comm import (
        CommClosedError,
        connect,
        get_address_host_port,
        parse_address,
    )

    try:
        if parse_address(scheduler)[0] != "inproc":  # in this process: no host, no port
            port = get_address_host_port(scheduler)[1]
            if not 0 < port < 2**16:
                raise ValueError(f"port {port} out of range")
    except ValueError as exc:
        raise BackendError(f"bad scheduler address {scheduler!r} ({_one_line(exc)}); "
                           "expected tcp://HOST:PORT") from None

    async def shake_hands() -> None:
        comm = await asyncio.wait_for(connect(scheduler, timeout=DASK_CONNECT_TIMEOUT),
                                      DASK_CONNECT_TIMEOUT)
        await comm.close()

    try:
        with ThreadPoolExecutor(1) as thread:
            thread.submit(asyncio.run, shake_hands()).result()
    except OSError as exc:
        if not isinstance(exc, (TimeoutError, CommClosedError)):
            raise  # unreachable: the caller says so
        raise _not_dask(scheduler, exc) from None  # connected, then silence or a hang-up
    except Exception as exc:  # bytes that are no dask message (a frame size, msgpack)
        raise _not_dask(scheduler, exc) from None


def _not_dask(scheduler: str, exc: Exception) -> BackendError:
    why = "" if isinstance(exc, TimeoutError) else f" ({_one_line(exc)})"
    return BackendError(f"scheduler {scheduler} did not answer as a dask scheduler within "
                        f"{DASK_CONNECT_TIMEOUT} s{why}")


def _one_line(exc: BaseException) -> str:
    """An exception's message on one line, cut short (dask's can span lines)."""
    return (" ".join(str(exc).split()) or type(exc).__name__)[:200]


def _quiet_client_teardown() -> None:
    """A dask client collected after its event loop closed (on a busy machine, when
    a run stops on an error) says so with a traceback from ``__del__``: the run has
    already ended and said why, so that one is dropped; any other is printed."""
    previous = sys.unraisablehook
    if getattr(previous, "unosim_dask", False):
        return

    def hook(u: sys.UnraisableHookArgs) -> None:
        obj = getattr(u, "object", None)
        if (isinstance(u.exc_value, RuntimeError) and "IOLoop is closed" in str(u.exc_value)
                and getattr(obj, "__qualname__", "") == "Client.__del__"):
            return
        previous(u)

    hook.unosim_dask = True  # type: ignore[attr-defined]
    sys.unraisablehook = hook


@contextlib.contextmanager
def _dask(scheduler: str | None, jobs: int | None) -> Iterator[int]:
    """A joblib dask backend on ``scheduler`` or a LocalCluster; yields n_jobs."""
    try:
        import joblib
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise BackendError("the dask backend needs dask.distributed: "
                           "pip install 'unosim[dask]'") from None
    for name in ("distributed", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    _quiet_client_teardown()
    cluster = None
    try:
        if scheduler:
            _probe(scheduler)
            client = Client(scheduler, timeout=DASK_CONNECT_TIMEOUT, set_as_default=False)
        else:
            with _sigint_ignored(), warnings.catch_warnings():
                # Ctrl-C is ours (the workers inherit SIG_IGN); the scheduler's HTTP
                # server moving off a busy port 8787 is not the user's concern.
                warnings.filterwarnings("ignore", message="Port .* is already in use")
                cluster = LocalCluster(n_workers=jobs or joblib.cpu_count(),
                                       threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.CRITICAL)
            client = Client(cluster, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        if cluster is not None:
            cluster.close()
        where = f"scheduler {scheduler}" if scheduler else "a local dask cluster"
        raise BackendError(f"cannot reach {where} within {DASK_CONNECT_TIMEOUT} s: "
                           f"{_one_line(exc)}") from None
    # the workers' own clients (joblib's, in a task) meet the same closed loop at shutdown
    with contextlib.suppress(Exception):
        client.run(_quiet_client_teardown)
    try:
        with joblib.parallel_config(backend="dask", client=client,
                                    wait_for_workers_timeout=DASK_CONNECT_TIMEOUT):
            yield jobs or -1
    finally:
        with contextlib.suppress(Exception):
            client.close(timeout=DASK_CONNECT_TIMEOUT)
        # A close that timed out on a busy machine leaves the client "closing", and its
        # __del__ would try again after the loop is gone and print a traceback at exit.
        client.status = "closed"
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close(timeout=DASK_CONNECT_TIMEOUT)


_TRACKER_WARNING = "ignore:resource_tracker:UserWarning"


def _died(exc: BaseException) -> str:
    """One line for a worker process that ended without an answer (loky says it in a page)."""
    codes = re.search(r"exit codes of the workers are \{([^}]*)\}", str(exc))
    how = f" ({codes.group(1)})" if codes else ""
    return (f"a worker process ended without finishing its chunk{how}: plug-in code that "
            "exits the process (os._exit), a crash, or the OS stopping it for memory")


def _quiet_resource_tracker() -> None:
    """Keep loky's resource tracker from warning about workers a stopped run killed.

    The tracker is a child process started with this environment; after Ctrl-C
    or SIGTERM kills workers mid-chunk it warns about their semaphores, which is
    expected and would bury the one-line "interrupted" message under its lines.
    """
    current = [w for w in os.environ.get("PYTHONWARNINGS", "").split(",") if w]
    if _TRACKER_WARNING not in current:
        os.environ["PYTHONWARNINGS"] = ",".join([*current, _TRACKER_WARNING])


class _TaskKeywords(TypedDict):
    """The keywords of every `chunk_task` of one run."""

    records: bool
    parent: int
    pairs: tuple[tuple[int, int], ...]
    plugins: tuple[dict[int, str], ...]


@contextlib.contextmanager
def executor(ccs: tuple[Any, ...], keys: tuple[str, ...], seed: int, *, records: bool,
             jobs: int, backend: str, scheduler: str | None,
             pairs: tuple[tuple[int, int], ...] = (),
             plugins: tuple[dict[int, str], ...] = ()) -> Iterator[Executor]:
    """A function mapping chunk tasks to finished chunks in completion order.

    Entered before the out dir is touched, so an unreachable cluster leaves no trace.
    """
    parent = os.getpid()
    args = (ccs, keys, seed)
    task: _TaskKeywords = {"records": records, "parent": parent, "pairs": pairs, "plugins": plugins}
    fg = Foreground()

    def local(tasks: list[Task]) -> Generator[ChunkResult, None, None]:
        for index, start, count in tasks:  # in-process: no pool to start; signals still land
            yield fg.call(chunk_task, *args, index, start, count, **task)

    def pool(n_jobs: int, **kw: str) -> Executor:
        def go(tasks: list[Task]) -> Generator[ChunkResult, None, None]:
            from joblib import Parallel, delayed

            if not tasks:
                return
            if kw.get("backend") == "loky":
                _quiet_resource_tracker()
            calls = (delayed(chunk_task)(*args, i, s, c, **task) for i, s, c in tasks)
            n = min(n_jobs, len(tasks)) if n_jobs > 0 else n_jobs
            try:
                yield from Parallel(n_jobs=n, batch_size=1, return_as="generator_unordered",
                                    **kw)(calls)
            except BrokenProcessPool as exc:  # loky's TerminatedWorkerError is one
                raise RunError(_died(exc)) from None
        return go

    try:
        if backend in ("loky", "threads"):
            if jobs == 1:
                yield local
            else:
                # threads share the loaded kernel (it runs without the GIL): no
                # worker start-up, which dominates runs of a few seconds
                run_pool = pool(jobs, backend="loky" if backend == "loky" else "threading")
                yield lambda tasks: local(tasks) if len(tasks) == 1 else run_pool(tasks)
            return
        with _dask(scheduler, None if scheduler else jobs) as n_jobs:
            yield pool(n_jobs)
    finally:
        fg.close()
