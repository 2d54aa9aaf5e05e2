"""``unosim rulings``: every house rule and ruling, with its label, default and source."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from unosim.cli.console import Command
from unosim.cli.options import format_option


def _word(v: object) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def rulings_json() -> list[dict[str, object]]:
    """Each switch of docs/rules.md §6 and §12 as its declaration says it."""
    from unosim.rules.settings import switches

    return [asdict(s) for s in switches()]


def rulings_table() -> str:
    """One block per switch: key, values and default, then label and source.

    >>> "house_rules.deflect" in rulings_table()
    True
    """
    from unosim.rules.settings import switches

    out = []
    for section, title in ((6, "House rules (docs/rules.md section 6)"),
                           (12, "Rulings people argue about (docs/rules.md section 12)")):
        out.append(title)
        for s in switches():
            if s.section == section:
                out.append(f"  {s.key}: {s.values} (default {_word(s.default)})")
                out.append(f"      {s.label}; {s.source}")
        out.append("")
    return "\n".join(out)


@click.command("rulings", cls=Command)
@format_option
def rulings_cmd(fmt: str) -> None:
    """List every house rule and ruling: its key, values, default, label and source.

    Set one in a config's house_rules, or with --set house_rules.KEY=VALUE."""
    if fmt == "json":
        click.echo(json.dumps(rulings_json(), indent=2))
    else:
        click.echo(rulings_table(), nl=False)
