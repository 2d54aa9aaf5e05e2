"""``unosim configs`` and ``unosim report``: what ships with unosim, and a run's report again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypedDict

import click

from unosim.cli import options
from unosim.cli.console import Command, warn


class ConfigRow(TypedDict):
    """A built-in config as ``unosim configs`` lists it."""

    name: str
    edition: str
    players: int
    about: str


def config_rows() -> list[ConfigRow]:
    """One row per built-in config: its name, edition title, players and question.

    The question is the config file's opening comment (each one asks what it
    answers), so the list says why to pick it, not only what it sets.
    """
    from unosim.rules.config import load_config
    from unosim.rules.yamlio import list_shipped, shipped_file

    rows: list[ConfigRow] = []
    for name in list_shipped():
        cfg = load_config(name)
        path = shipped_file(name)
        rows.append({"name": name, "edition": cfg.edition_spec.title, "players": cfg.players,
                     "about": _opening_comment(path) if path else ""})
    return rows


def _opening_comment(path: Path) -> str:
    """The comment lines a YAML file opens with, joined into one line."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    text = " ".join(part for part in lines if part)
    return first_sentence(text)


def first_sentence(text: str, limit: int = 100) -> str:
    """The first sentence of ``text`` (to its first '?' or '. '), cut at ``limit`` characters.

    >>> first_sentence("How long is a round? Every other config extends this one.")
    'How long is a round?'
    >>> first_sentence("x" * 120)[-4:], len(first_sentence("x" * 120))
    ('xxx…', 100)
    """
    ends = [i + 1 for i in (text.find("? "), text.find(". ")) if i >= 0]
    head = text[:min(ends)] if ends else text
    return head if len(head) <= limit else head[:limit - 1].rstrip() + "…"


@click.command("configs", cls=Command)
@options.format_option
def configs_cmd(fmt: str) -> None:
    """List the built-in configs (name them without a path: unosim run stacking)."""
    rows = config_rows()
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    width = max(len(r["name"]) for r in rows)
    ed_width = max(len(r["edition"]) for r in rows)
    for r in rows:
        click.echo(f"{r['name']:<{width}}  {r['edition']:<{ed_width}}  {r['players']:>2}p  "
                   f"{r['about']}".rstrip())


@click.command("report", cls=Command)
@click.argument("run_dir", type=click.Path(file_okay=False))
def report_cmd(run_dir: str) -> None:
    """Write RUN_DIR's report (report.md, report.html, charts) again from its aggregates.

    RUN_DIR is a finished run (its summary.json and aggregates.npz, checked
    against its run.json); nothing is simulated. Use it after upgrading unosim,
    or for a run made with --no-report.
    """
    from unosim.study.simulate import report_run

    page = report_run(Path(run_dir), on_warning=warn)
    click.echo(f"report written to {page} (and report.md, charts)")
