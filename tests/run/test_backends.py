"""The dask backend's address checks: a bad or wrong scheduler fails in seconds, one line.

Only loopback addresses; every server a test starts, it stops.
"""

from __future__ import annotations

import contextlib
import http.server
import signal
import socket
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hostile.harness import cli, expect_error

from unosim.rules.config import load_config
from unosim.run import BackendError, run_simulation
from unosim.run.backends import DASK_CONNECT_TIMEOUT

RUN = ("run", "classic", "--games", "200", "--out", "D", "-q", "--no-report",
       "--backend", "dask")
STARTUP = 10  # seconds the CLI may take to start and import dask on a busy machine


def test_dask_scheduler_bad_address_is_one_line(tmp_path: Path) -> None:
    """``foo:bar`` used to leave a half-built client whose ``__del__`` blocked the exit."""
    r = cli(tmp_path, *RUN, "--scheduler", "foo:bar")
    expect_error(r, "bad scheduler address", "foo:bar", seconds=STARTUP)
    assert not (tmp_path / "D").exists()


class _QuietHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        """Not on the test's stderr."""


@contextlib.contextmanager
def _http_server() -> Iterator[str]:
    """A plain HTTP server on a free loopback port, as ``tcp://127.0.0.1:PORT``."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.slow  # waits for the handshake's timeout
def test_dask_scheduler_not_dask_times_out(tmp_path: Path) -> None:
    """An address that answers but is no dask scheduler: the handshake is bounded too."""
    with _http_server() as address:
        r = cli(tmp_path, *RUN, "--scheduler", address)
    expect_error(r, address, "did not answer as a dask scheduler",
                 seconds=STARTUP + DASK_CONNECT_TIMEOUT)
    assert not (tmp_path / "D").exists()


@pytest.mark.slow  # waits for the handshake's timeout
def test_dask_scheduler_silent_times_out(tmp_path: Path, monkeypatch) -> None:
    """A server that accepts the connection and never answers: the handshake's timeout."""
    import unosim.run.backends as backends

    monkeypatch.setattr(backends, "DASK_CONNECT_TIMEOUT", 1)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # the kernel accepts connections; nobody ever reads or writes
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        t0 = time.monotonic()
        with pytest.raises(BackendError, match="did not answer as a dask scheduler within 1 s"):
            run_simulation(load_config("classic"), games=10, seed=1, backend="dask",
                           scheduler=address, out=tmp_path / "never", progress=False)
    assert time.monotonic() - t0 < 300  # the message proves the 1 s timeout; this stops a hang
    assert not (tmp_path / "never").exists()


@pytest.mark.slow  # starts a dask scheduler
def test_dask_real_scheduler_passes_the_handshake() -> None:
    """The probe must not refuse a real scheduler: same aggregates as in process."""
    from dask.distributed import LocalCluster

    cfg = load_config("classic")
    local = run_simulation(cfg, games=2000, seed=3, jobs=1, progress=False)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster:
        remote = run_simulation(cfg, games=2000, seed=3, chunk_size=1000, backend="dask",
                                scheduler=cluster.scheduler_address, progress=False)
    assert remote.chunks_run == 2
    for k, v in local.aggregates.items():
        assert np.array_equal(v, remote.aggregates[k]), k


@pytest.mark.slow  # starts a local dask cluster
def test_dask_local_cluster_keeps_ctrl_c_and_is_quiet_about_port_8787() -> None:
    """One chunk runs in this process (joblib does not ship a lone task): it must not
    leave Ctrl-C ignored here. Another cluster on the dashboard's port is no warning."""
    before = signal.getsignal(signal.SIGINT)
    with contextlib.ExitStack() as stack:
        busy = stack.enter_context(socket.socket())
        with contextlib.suppress(OSError):  # already taken: the case under test anyway
            busy.bind(("", 8787))
            busy.listen()
        caught = stack.enter_context(warnings.catch_warnings(record=True))
        warnings.simplefilter("always")
        run_simulation(load_config("classic"), games=200, seed=1, jobs=1, backend="dask",
                       progress=False)
    assert signal.getsignal(signal.SIGINT) == before
    assert not [w for w in caught if "already in use" in str(w.message)]


@pytest.mark.parametrize("address", ["nonsense", "foo://x:1", "tcp://127.0.0.1:bar",
                                     "tcp://127.0.0.1:99999"])
def test_dask_scheduler_malformed_addresses(address: str, tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="bad scheduler address"):
        run_simulation(load_config("classic"), games=10, seed=1, backend="dask",
                       scheduler=address, out=tmp_path / "never", progress=False)
    assert not (tmp_path / "never").exists()
