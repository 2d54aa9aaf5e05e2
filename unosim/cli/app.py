"""The ``unosim`` command group: one command (or family) per module.

Shell completion is click's: ``eval "$(_UNOSIM_COMPLETE=bash_source unosim)"``
(``zsh_source``, ``fish_source`` for those shells).

A stdout that cannot be written (a full disk, ``> /dev/full``, a closed
pipe) fails no command half way (`unosim.cli.streams`): the command does its
work, then one line says the output was lost and the exit code is 2.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import click

from unosim._version import __version__
from unosim.cli.advise import advise_cmd
from unosim.cli.compare import compare_cmd
from unosim.cli.configs import configs_cmd, report_cmd
from unosim.cli.console import EXIT_ERROR, Group, one_line
from unosim.cli.editions import editions_cmd
from unosim.cli.league import league_cmd
from unosim.cli.play import play_cmd
from unosim.cli.rulings import rulings_cmd
from unosim.cli.run import run_cmd
from unosim.cli.screen import screen_cmd
from unosim.cli.sweep import sweep_cmd
from unosim.cli.view import view_cmd

__all__ = ["main"]


class _Main(Group):
    """The group, run with a guarded stdout (see the module's docstring)."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        from unosim.cli.streams import guarded_stdout

        code: str | int | None = 0
        with guarded_stdout() as lost:
            try:
                super().main(args, prog_name, complete_var, standalone_mode, **extra)
            except SystemExit as exc:
                code = exc.code
        error = lost()
        if error is not None and code in (0, None):  # a failed command said why already
            click.echo(f"unosim: error: cannot write to standard output "
                       f"({one_line(error.strerror or error)}); the output was lost", err=True)
            code = EXIT_ERROR
        sys.exit(code)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="unosim")
def main() -> None:
    """UNO rules-variant simulator: play one game, run millions, compare rule sets."""


for _command in (play_cmd, run_cmd, configs_cmd, editions_cmd, compare_cmd, sweep_cmd,
                 screen_cmd, league_cmd, advise_cmd, view_cmd, report_cmd, rulings_cmd):
    main.add_command(_command)
