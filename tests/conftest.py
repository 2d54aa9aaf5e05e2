"""Suite-wide set-up: helpers on sys.path, the engine compiled before any timed test,
the slow tier, and the suite's wall time on request.

The engine is compiled (or loaded from numba's cache) once, in a child process,
before the first test: from an empty cache that costs a minute or more of CPU,
which must never land inside a subprocess that a test bounds in time. Under
pytest-xdist only the controller does it, before the workers start.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

_T0 = time.monotonic()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--suite-time", metavar="PATH", default=None,
                     help="write the session's wall time, test counts and load to PATH "
                          "(JSON; read by scripts/bench.py)")
    parser.addoption("--no-warm", action="store_true",
                     help="do not compile the engine before the first test")


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def warm_engine() -> float:
    """Compile every engine entry point into the cache (a no-op load once cached),
    in a child so this process keeps no compiled code it does not use; its CPU seconds."""
    before = os.times()
    subprocess.run([sys.executable, "-m", "unosim.engine.warmup"], check=True)
    after = os.times()
    return (after.children_user - before.children_user
            + after.children_system - before.children_system)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Warm the engine before any test (and, under xdist, before any worker starts)."""
    config = session.config
    if _is_worker(config) or config.getoption("--no-warm") or config.getoption("collectonly"):
        return
    config.stash[_WARM_CPU] = warm_engine()


_WARM_CPU = pytest.StashKey[float]()


# Fixtures that make a test `slow` wherever it is: a hostile battery runs dozens of CLI
# children, a browser starts headless Chromium.
SLOW_FIXTURES = frozenset({"battery", "browser"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests using a fixture of ``SLOW_FIXTURES`` are `slow` (the rest are marked in
    their modules: docs/architecture.md, "Tests")."""
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """``--suite-time PATH``: the whole session's wall time (collection and warm-up
    included), the machine's load and the counts, for `make bench`."""
    config = session.config
    path = config.getoption("--suite-time")
    if not path or _is_worker(config):
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    counts = {k: len(v) for k, v in getattr(reporter, "stats", {}).items() if k}
    data = {"wall_s": round(time.monotonic() - _T0, 1), "exit_status": int(exitstatus),
            "tests": session.testscollected, "counts": counts,
            "workers": getattr(config.option, "numprocesses", None),
            "warm_cpu_s": round(config.stash.get(_WARM_CPU, 0.0), 1),
            "loadavg_end": [round(x, 2) for x in os.getloadavg()],
            "cpus": os.cpu_count(), "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                               time.gmtime())}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data, indent=2) + "\n")
