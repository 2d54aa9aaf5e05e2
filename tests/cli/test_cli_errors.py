"""One error path: every expected failure is one ``unosim: error:`` line and exit 2."""

from __future__ import annotations

import click
import pytest
from cli_helpers import CLASSIC, assert_one_line_error, invoke
from click.testing import CliRunner

from unosim.cli.console import Command, Group
from unosim.report.sweep import VaryError
from unosim.rules.cards import CardError
from unosim.rules.config import ConfigError
from unosim.run import BackendError, OutDirError


def _group_raising(exc: BaseException) -> click.Group:
    """A ``unosim``-like group whose one command raises ``exc``."""

    @click.group(cls=Group)
    def group() -> None:
        pass

    @group.command(cls=Command)
    def boom() -> None:
        raise exc

    return group


@pytest.mark.parametrize("exc", [
    ConfigError("x.yaml", "players", "must be at least 2"),
    CardError("unknown card token 'Z9'"),
    OutDirError("out dir o is not empty"),
    BackendError("cannot reach scheduler tcp://x:1"),
    VaryError("--vary players: empty"),
    FileNotFoundError(2, "No such file or directory", "missing.yaml"),
], ids=lambda e: type(e).__name__)
def test_expected_errors_are_one_line(exc):
    """(Interrupts exit 128 + signal instead: tests/run/test_signals.py.)"""
    result = CliRunner().invoke(_group_raising(exc), ["boom"])
    expected = str(exc) if not isinstance(exc, OSError) else None
    assert_one_line_error(result, *([expected] if expected else []))
    if isinstance(exc, OSError):
        assert "missing.yaml: No such file or directory" in result.stderr


@pytest.mark.parametrize("exc", [RuntimeError("a bug"), ValueError("a bug"),
                                 OSError(5, "I/O error")])  # an OSError naming no path
def test_unexpected_errors_keep_their_traceback(exc):
    result = CliRunner().invoke(_group_raising(exc), ["boom"])
    assert result.exception is exc and result.exit_code == 1


def test_usage_errors_are_one_line():
    assert_one_line_error(invoke("run"), "CONFIG")
    assert_one_line_error(invoke("run", CLASSIC, "--no-such-option"), "--no-such-option")
    assert_one_line_error(invoke("compare", "classic", "-q"), "at least two configs")
    assert_one_line_error(invoke("sweep", "classic", "--vary", "bogus=1,2", "-q"), "bogus")
    assert_one_line_error(invoke("play", CLASSIC, "--game", "-1"), "--game")


def test_an_unwritable_path_is_one_line(tmp_path):
    target = tmp_path / "no" / "such" / "dir" / "trace.txt"
    assert_one_line_error(invoke("play", CLASSIC, "--out", str(target)), str(target))


def test_no_arguments_prints_help_and_version_works():
    r = invoke()
    assert r.exit_code == 0 and "Commands:" in r.stdout
    r = invoke("--version")
    assert r.exit_code == 0 and "unosim" in r.stdout
