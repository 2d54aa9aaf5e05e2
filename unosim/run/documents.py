"""The JSON documents a run writes and reads back, typed once.

A run's ``run.json`` (its manifest) and the stopping rule's record travel from
the runner to the summary, the studies and the reports: one declaration of
their fields lets each reader be checked against the writer.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["Manifest", "PilotStop", "Stop"]


class Stop(TypedDict):
    """How a run with a stopping rule ended: the rule in words, the target, the cap,
    the games it stopped at, the half-width reached (None: not finite) and whether
    it met the target (`unosim.run.runner.run_lockstep`). A summary keeps a part
    of it (`unosim.analysis.summary.SummaryStop`)."""

    rule: str
    precision: float
    max_games: int
    games: int
    half_width: float | None
    met: bool


class PilotStop(TypedDict):
    """How a league sized its games from a pilot: the target half-width, the pilot's
    games, the cap, the games chosen and whether the target is met within the cap."""

    precision: float
    pilot: int
    max_games: int
    games: int
    met: bool


class Manifest(TypedDict, total=False):
    """``run.json``: what a resume must find unchanged, then how the run finished.

    Read back only after its scalar fields are checked (`read_manifest`); the
    fields after ``status`` are written when the run completes or lists files.
    """

    manifest_version: int
    config_name: str
    config_hash: str
    rules_hash: str
    seed: int
    games: int
    chunk_size: int
    records: bool
    chunks: int
    precision: float | None
    unosim_version: str
    plugins: dict[str, str]
    outputs: list[str]
    status: str
    games_used: int
    aggregates_sha256: dict[str, str]
