"""``unosim view TRACE.jsonl``: a self-contained HTML page that replays the trace.

The trace is read with the bounds of `unosim.engine.trace.read_events` (its
size, each line's length, JSON nesting, every event's fields) and at most
`MAX_VIEW_EVENTS` events, so a wrong file is one error line, not a long wait:
``unosim play CONFIG --seed S --game G --trace-format jsonl`` writes the input.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from unosim.cli.console import CliError, Command, compile_notice, info
from unosim.rules.limits import MAX_PLAYERS


def read_trace(path: Path, max_events: int | None = None) -> list[dict[str, Any]]:
    """The events of a JSONL trace (docs/trace.md), read within the bounds of
    `unosim.engine.trace.read_events`; any problem is one `CliError` line."""
    from unosim.engine.trace import TraceError, read_events

    try:
        return read_events(path, max_events)
    except TraceError as exc:
        raise CliError(exc) from None
    except OSError as exc:
        raise CliError(f"{path}: {exc.strerror or exc}") from None


@click.command("view", cls=Command)
@click.argument("trace", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The HTML file to write (default: the trace's name with .html).")
@click.option("--seat", type=click.IntRange(0, MAX_PLAYERS - 1), default=None,
              help="Open the page from this seat's view (the other hands face down).")
@click.option("--title", default=None, help="The page's title.")
@click.option("--quiet", is_flag=True, help="Do not say where the page was written.")
def view_cmd(trace: Path, out: Path | None, seat: int | None, title: str | None,
             quiet: bool) -> None:
    """Write a page that replays a trace event by event (offline, one HTML file).

    Step with the buttons or the keyboard (arrows, Home, End); show every hand
    face up or one seat's view. The engine rebuilds the table at every event."""
    from unosim.engine.replay import TraceReplayError
    from unosim.engine.trace import MAX_VIEW_EVENTS
    from unosim.report.viewer import write_viewer

    if out is None and trace.exists() and not trace.is_file():  # no /dev/stdin.html
        raise CliError(f"{trace} is not a regular file: name the page with --out")
    events = read_trace(trace, MAX_VIEW_EVENTS)
    players = events[0].get("players")
    if seat is not None and isinstance(players, int) and seat >= players:
        raise CliError(f"--seat {seat}: the game has seats 0-{players - 1}")
    target = out if out is not None else trace.with_suffix(".html")
    if target.resolve() == trace.resolve():
        raise CliError(f"--out {target}: that is the trace itself")
    compile_notice(quiet)
    try:
        write_viewer(events, target, title=title or f"{trace.name}: replay", seat=seat)
    except (TraceReplayError, ValueError) as exc:
        raise CliError(f"{trace}: {exc}") from None
    except OSError as exc:
        raise CliError(f"{target}: {exc.strerror or exc}") from None
    info(quiet, f"wrote {target}")
