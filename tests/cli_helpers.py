"""What CLI tests in every folder share: the checkout's root, the classic config, an
in-process ``unosim`` call and the one-line-error check."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from unosim.cli import main

ROOT = Path(__file__).resolve().parent.parent
CLASSIC = str(ROOT / "configs" / "classic.yaml")


def invoke(*args: str) -> Result:
    """``unosim ARGS`` in this process, stdout and stderr kept apart."""
    return CliRunner().invoke(main, list(args))


def assert_one_line_error(result: Result, *words: str) -> None:
    """Exit 2, one ``unosim: error:`` line naming every word, no traceback."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("unosim: error: "), result.stderr
    assert "Traceback" not in result.output
    for w in words:
        assert w in lines[0], lines[0]
