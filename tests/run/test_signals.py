"""Ctrl-C and SIGTERM stop a command alike: chunks kept, workers stopped, exit 128 + signal.

The real runs go through `hostile.harness` (a process group of its own, so
any worker that outlives the command is caught); the exit-code mapping is
checked in process with a stand-in command.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from cli_helpers import ROOT, invoke
from click.testing import CliRunner
from hostile.harness import TIMEOUT, Proc, chunks, expect_sane, wait_for

from unosim.cli.console import Command, Group
from unosim.run import RunInterrupted

# Matches (about ten rounds each) keep the run busy for a second or two after
# the first chunks land, so the signal always arrives mid-run.
GAMES = ("--games", "60000", "--seed", "5")
RUN = (str(ROOT / "configs" / "match.yaml"), *GAMES, "--no-report")


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """summary.json of the run in one go (chunk size never changes the result)."""
    out = tmp_path_factory.mktemp("fresh") / "run"
    r = invoke("run", *RUN, "--chunk-size", "60000", "--out", str(out), "--jobs", "1", "-q")
    assert r.exit_code == 0, r.output
    return (out / "summary.json").read_bytes()


def _interrupt_then_resume(tmp_path: Path, sig: int, group: bool, status: int,
                           uninterrupted: bytes) -> None:
    """Signal a two-worker run after two chunks; check how it stops, then resume it."""
    out = tmp_path / "run"
    proc = Proc(tmp_path, ("run", *RUN, "--chunk-size", "600", "--out", str(out),
                           "--jobs", "2"))
    wait_for("two chunks", lambda: len(chunks(out)) >= 2, proc)
    proc.signal(sig, group=group)
    r = proc.wait()
    expect_sane(r, TIMEOUT)  # among others: no process of the run alive 5 s later
    assert r.rc == status, str(r)
    assert r.stdout == ""
    # (stderr is a pipe: progress lines, then the one error line)
    (line,) = [x for x in r.stderr.splitlines() if not x.startswith("progress: ")]
    assert line.startswith("unosim: error: interrupted: ") and "--resume" in line, line
    saved = len(chunks(out))
    assert 2 <= saved < 100 and f"{saved} of 100 chunks saved" in line, line
    assert not (out / "summary.json").exists()
    r2 = invoke("run", *RUN, "--chunk-size", "600", "--out", str(out), "--jobs", "1",
                "--resume", "-q")
    assert r2.exit_code == 0, r2.output
    assert f"{saved} of 100 chunks reused" in r2.stdout
    assert (out / "summary.json").read_bytes() == uninterrupted


@pytest.mark.slow
def test_ctrl_c_exits_130_and_resumes(tmp_path: Path, uninterrupted: bytes) -> None:
    """Ctrl-C: the terminal signals the whole group (the workers ignore it)."""
    _interrupt_then_resume(tmp_path, signal.SIGINT, True, 130, uninterrupted)


@pytest.mark.slow
def test_sigterm_stops_workers_exits_143_and_resumes(tmp_path: Path,
                                                     uninterrupted: bytes) -> None:
    """``kill PID``: only the command hears it, so it must stop its busy workers itself."""
    _interrupt_then_resume(tmp_path, signal.SIGTERM, False, 143, uninterrupted)


def _group_running(body: Callable[[], None]) -> click.Group:
    """A ``unosim``-like group whose one command runs ``body``."""

    @click.group(cls=Group)
    def group() -> None:
        pass

    @group.command(cls=Command)
    def cmd() -> None:
        body()

    return group


def _deliver(signum: int) -> None:
    """Call the handler a command installed for ``signum``, as the signal would."""
    handler = signal.getsignal(signum)
    assert callable(handler), f"no handler for {signal.Signals(signum).name}: {handler!r}"
    handler(signum, None)


@pytest.mark.parametrize("signum,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
                         ids=["sigint_130", "sigterm_143"])
def test_signal_exit_status_is_128_plus_signal(signum: int, status: int) -> None:
    before = signal.getsignal(signum)
    result = CliRunner().invoke(_group_running(lambda: _deliver(signum)), ["cmd"])
    assert result.exit_code == status and result.stderr == "unosim: error: interrupted\n"
    assert signal.getsignal(signum) == before  # restored once the command ends


def test_run_interrupted_keeps_its_message_and_the_signal_status() -> None:
    message = "interrupted: 2 of 9 chunks saved in o; rerun with --resume to finish"

    def body() -> None:
        try:
            _deliver(signal.SIGTERM)
        except KeyboardInterrupt:  # as the runner turns it into RunInterrupted
            raise RunInterrupted(message) from None

    result = CliRunner().invoke(_group_running(body), ["cmd"])
    assert result.exit_code == 143 and result.stderr == f"unosim: error: {message}\n"
    result = CliRunner().invoke(_group_running(lambda: _raise(RunInterrupted(message))),
                                ["cmd"])
    assert result.exit_code == 130  # no signal caught: a Ctrl-C by convention


def _raise(exc: BaseException) -> None:
    raise exc


def test_ctrl_c_outside_a_run_exits_130() -> None:
    result = CliRunner().invoke(_group_running(lambda: _raise(KeyboardInterrupt())), ["cmd"])
    assert result.exit_code == 130 and result.stderr == "unosim: error: interrupted\n"


def test_an_ignored_sigterm_stays_ignored() -> None:
    """Started under ``nohup`` or as a background job: the command keeps the choice."""
    seen = []
    old = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        result = CliRunner().invoke(
            _group_running(lambda: seen.append(signal.getsignal(signal.SIGTERM))), ["cmd"])
    finally:
        signal.signal(signal.SIGTERM, old)
    assert result.exit_code == 0 and seen == [signal.SIG_IGN]
