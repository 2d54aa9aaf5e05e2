"""The hostile harness bounds work in CPU seconds and wall time only loosely, so a busy
machine passes what an idle one passes, while a command that hangs still fails.

Real commands measured this way run in the battery (tests/hostile/test_hostile_inputs.py);
here the verdicts are checked on made-up results."""

from __future__ import annotations

import pytest

from hostile.harness import QUICK, SLACK, Result, expect_error, expect_sane


def _result(seconds: float, cpu: float, after_signal: float | None = None) -> Result:
    return Result(("run",), 2, "", "unosim: error: bad\n", seconds, 2**20, [], False, cpu,
                  after_signal)


def test_a_slow_wall_clock_with_little_cpu_passes() -> None:
    """Start-up at a fifth of a core: many wall seconds, few CPU seconds."""
    expect_error(_result(seconds=3 * QUICK, cpu=2.0))


def test_too_much_cpu_fails_however_quick_the_wall_clock() -> None:
    with pytest.raises(AssertionError, match="of CPU"):
        expect_error(_result(seconds=1.0, cpu=QUICK + 1))


def test_a_command_that_waits_past_the_slack_fails() -> None:
    """Idle on a socket for minutes: no CPU, but the wall-clock net catches it."""
    with pytest.raises(AssertionError, match="more than"):
        expect_sane(_result(seconds=SLACK * QUICK + 1, cpu=0.5), QUICK)


def test_a_signalled_command_is_timed_from_the_signal() -> None:
    """A lock holder that ran for minutes before its Ctrl-C is judged by its exit after it."""
    expect_sane(_result(seconds=10 * QUICK, cpu=1.0, after_signal=2.0), QUICK)
    with pytest.raises(AssertionError, match="after the signal"):
        expect_sane(_result(seconds=10 * QUICK, cpu=1.0, after_signal=SLACK * QUICK + 1), QUICK)
