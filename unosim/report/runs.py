"""A finished run, as a report reads it: simulated now, or read back from a run directory.

A finished run directory is read through its ``summary.json`` (the resolved
config, seed and config hash) and ``aggregates.npz`` (the merged aggregates),
never through the runner's checkpoints: every interval a report prints comes
from the aggregates alone. Both files are checked before they are trusted
(`load_run`). Running them is the study layer's (`unosim.study.runs`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np

from unosim.analysis.estimates import n_rounds
from unosim.engine.kernel.batch import empty_aggregates
from unosim.engine.kernel.state import compile_config
from unosim.rules.config import GameConfig, config_hash, validate_config
from unosim.run import OutDirError, read_arrays
from unosim.run.checkpoints import array_digests
from unosim.run.documents import Manifest
from unosim.run.manifest import read_manifest, rules_hash, why_changed

if TYPE_CHECKING:
    from unosim.analysis.summary import Summary

__all__ = ["Run", "load_run"]

# Aggregates an older unosim wrote lack these; their estimates then carry no interval.
OPTIONAL_KEYS = ("sums_sq",)
MAX_SUMMARY = 1 << 20  # bytes; a summary.json is a few KB


@dataclass
class Run:
    """One config's merged aggregates and where they came from."""

    cfg: GameConfig
    aggregates: dict[str, np.ndarray]
    seed: int
    games: int
    out: Path | None = None
    summary: Summary | None = None
    reused: bool = False

    @property
    def rounds(self) -> int:
        return n_rounds(self.aggregates)


def load_run(run_dir: str | Path) -> Run:
    """A finished run directory (``aggregates.npz`` + ``summary.json``) as a ``Run``.

    Raises ``ValueError`` (or ``ConfigError`` for a bad resolved config) with a
    one-line reason when the directory is not a whole run. The summary's
    config, seed and games and the aggregates must be the ones the run's
    manifest (``run.json``) vouches for: a hand-edited summary would otherwise
    be compared as the rule set it claims, not the one that was played.
    """
    d = Path(run_dir)
    npz, sj = d / "aggregates.npz", d / "summary.json"
    if not npz.is_file() or not sj.is_file():
        raise ValueError(f"{d} is not a finished run directory (needs aggregates.npz and "
                         "summary.json)")
    try:
        if sj.stat().st_size > MAX_SUMMARY:
            raise ValueError(f"larger than {MAX_SUMMARY:,} bytes")
        summary = json.loads(sj.read_bytes())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{sj} is unreadable ({getattr(exc, 'strerror', None) or exc})"
                         ) from None
    if not isinstance(summary, dict):
        raise ValueError(f"{sj} is not a run summary (not a JSON object)")
    if not isinstance(summary.get("config"), dict):
        raise ValueError(f"{sj} holds no resolved config")
    cfg = validate_config(summary["config"], sj)
    seed = summary.get("seed", cfg.seed)
    if type(seed) is not int or seed < 0:
        raise ValueError(f"{sj}: seed {str(seed)[:40]!r} is not a whole number >= 0")
    shapes = {k: v.shape for k, v in empty_aggregates(compile_config(cfg)).items()}
    try:
        agg = read_arrays(npz, shapes, optional=OPTIONAL_KEYS)
    except ValueError as exc:
        raise ValueError(f"{npz} does not hold this run's aggregates: {exc}") from None
    if any((a < 0).any() for a in agg.values()) or agg["counts"][0] < 1:
        raise ValueError(f"{npz} does not hold this run's aggregates: impossible counts")
    _vouched(d, summary, cfg, seed, agg)
    # a JSON object whose config, seed and hashes are checked: the rest is as written
    return Run(cfg, agg, seed, int(agg["counts"][0]), d, cast("Summary", summary), reused=True)


def _config_problem(summary: Mapping[str, object], cfg: GameConfig, manifest: Manifest) -> str:
    """Why the config no longer matches: a plug-in edited since the run (summary and
    manifest still agree), or else a summary edited by hand."""
    from unosim.rules.plugins import plugin_digests

    if summary.get("config_hash") == manifest.get("config_hash"):
        why = why_changed(manifest, {"plugins": plugin_digests(cfg.seat_policies)})
        if why != "config changed":
            return f"{why} since it ran"
    return "the config in summary.json is not the one that was run"


def _vouched(d: Path, summary: Mapping[str, object], cfg: GameConfig, seed: int,
             agg: dict[str, np.ndarray]) -> None:
    """Refuse a run dir whose summary or aggregates are not what its ``run.json`` recorded."""
    try:
        manifest = read_manifest(d)
    except OutDirError as exc:
        raise ValueError(f"{d} cannot be checked against its manifest: {exc}") from None
    games = int(agg["counts"][0])
    recorded = manifest.get("games_used", manifest["games"])
    digests = manifest.get("aggregates_sha256")  # None: written by an older unosim
    problems = []
    if manifest["status"] != "complete":
        problems.append(f"its run is {str(manifest['status'])[:20]!r}, not complete")
    if summary.get("config_hash") != config_hash(cfg) or rules_hash(cfg) != manifest["rules_hash"]:
        problems.append(_config_problem(summary, cfg, manifest))
    if seed != manifest["seed"] or cfg.seed != seed:
        problems.append(f"summary.json says seed {seed}, the run used {manifest['seed']}")
    if games != recorded or cfg.games != games:
        problems.append(f"aggregates.npz holds {games:,} games, the run played {recorded!r}")
    if digests is not None and (not isinstance(digests, dict) or any(
            digests.get(k) != v for k, v in array_digests(agg).items())):
        problems.append("aggregates.npz is not the one the run wrote")
    if problems:
        raise ValueError(f"{d} does not match its run.json ({'; '.join(problems)}); "
                         "rerun it or compare another run dir")
