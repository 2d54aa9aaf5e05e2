"""``unosim editions``: the shipped editions and how each differs from classic."""

from __future__ import annotations

import json

import click

from unosim.cli.console import Command
from unosim.cli.options import format_option


def editions_table() -> str:
    """One row per shipped edition, naming where it differs from classic.

    House rules and behaviour rates read as the settings' declarations word them.
    """
    from unosim.rules.editions import deck_counts, list_editions, load_edition
    from unosim.rules.settings import rules_on, setting_phrase

    base = load_edition("classic")
    rows = [("name", "title", "cards", "special card", "differs from classic")]
    for name in list_editions():
        ed = load_edition(name)
        diffs = [f"{k} {getattr(ed, k)}".replace("True", "yes").replace("False", "no")
                 for k in ("first_flip", "wd4_wilds_block", "uno_penalty")
                 if getattr(ed, k) != getattr(base, k)]
        on = rules_on(ed)
        if on:
            diffs.append("house rules on: " + ", ".join(on))
        if ed.behaviour != base.behaviour:
            diffs.append(", ".join(setting_phrase(f"behaviour.{k}", v)
                                   for k, v in ed.behaviour.model_dump().items()))
        special = ed.special.name if ed.special else "-"
        rows.append((name, ed.title, str(int(deck_counts(ed).sum())), special,
                     "; ".join(diffs) if diffs else "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r[:-1], widths, strict=True)) + "  " + r[-1]
             for r in rows]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def editions_json() -> list[dict[str, object]]:
    """Each shipped edition as its validated data, with its name and deck size
    (``cards``: the edition file's list of card kinds is given as ``kinds``)."""
    from unosim.rules.editions import deck_counts, list_editions, load_edition

    out = []
    for name in list_editions():
        ed = load_edition(name)
        data = ed.model_dump(mode="json")
        kinds = data.pop("cards", None)
        out.append({"name": name, "cards": int(deck_counts(ed).sum()), **data,
                    **({"kinds": kinds} if kinds is not None else {})})
    return out


@click.command("editions", cls=Command)
@format_option
def editions_cmd(fmt: str) -> None:
    """List the shipped editions and how each differs from classic."""
    if fmt == "json":
        click.echo(json.dumps(editions_json(), indent=2))
    else:
        click.echo(editions_table(), nl=False)
