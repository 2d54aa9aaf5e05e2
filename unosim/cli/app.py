"""The ``unosim`` command group: one command (or family) per module.

Shell completion is click's: ``eval "$(_UNOSIM_COMPLETE=bash_source unosim)"``
(``zsh_source``, ``fish_source`` for those shells).
"""

from __future__ import annotations

import click

from unosim import __version__
from unosim.cli.advise import advise_cmd
from unosim.cli.compare import compare_cmd
from unosim.cli.console import Group
from unosim.cli.editions import editions_cmd
from unosim.cli.league import league_cmd
from unosim.cli.play import play_cmd
from unosim.cli.run import run_cmd
from unosim.cli.sweep import sweep_cmd
from unosim.cli.view import view_cmd

__all__ = ["main"]


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="unosim")
def main() -> None:
    """UNO rules-variant simulator: play one game, run millions, compare rule sets."""


for _command in (play_cmd, run_cmd, editions_cmd, compare_cmd, sweep_cmd, league_cmd,
                 advise_cmd, view_cmd):
    main.add_command(_command)
