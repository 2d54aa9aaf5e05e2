"""A run's manifest (``run.json``) and the rules for touching an out dir.

The manifest says what is being run (everything a resume must find
unchanged), then how it finished, and lists the other files written into the
run dir (the report), so that ``--force`` can remove exactly the files a run
wrote and nothing else. An out dir is one of:

- missing or empty (a lock file aside): any run may start there;
- a run dir (a valid ``run.json``): ``--resume`` continues the same run,
  ``--force`` clears the run's own files (keeping anything else), and without
  either the run is refused;
- anything else (no or a broken ``run.json``): refused whatever the options,
  and never changed.

`check_out` only reads; `prepare_out` then writes, under the out dir's lock
(`unosim.run.lock`).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np

from unosim._version import __version__
from unosim.run.checkpoints import CHECKPOINT_FILES, array_digests, npz_writer
from unosim.run.chunks import chunk_plan, growing_plan
from unosim.run.documents import Manifest
from unosim.run.errors import OutDirError, ResumeMismatchError
from unosim.run.files import atomic_write, write_json
from unosim.run.lock import is_lock_file

if TYPE_CHECKING:
    from unosim.rules.config import GameConfig

__all__ = [
    "MANIFEST",
    "MANIFEST_VERSION",
    "check_out",
    "discard_run",
    "make_manifest",
    "prepare_out",
    "read_checked",
    "read_manifest",
    "record_outputs",
    "rules_hash",
    "save_results",
]

MANIFEST = "run.json"
MANIFEST_VERSION = 1
MAX_MANIFEST = 1 << 20  # bytes; a manifest is about 1 KB
# The files every run owns, run.json last: a clear that stops half way leaves a run dir.
RUN_FILES = ("aggregates.npz", "summary.json", "report.md", "report.html", MANIFEST)
_FIELDS: dict[str, type] = {
    "manifest_version": int, "config_name": str, "config_hash": str, "rules_hash": str,
    "seed": int, "games": int, "chunk_size": int, "records": bool, "chunks": int,
    "unosim_version": str, "status": str}
_TEMP = re.compile(r"\.(?P<name>.+)\.tmp-\d+")  # `atomic_write`'s temp file of `name`


def rules_hash(cfg: GameConfig) -> str:
    """The config's hash without its games and seed: the rules a run plays.

    A resume compares it to say which of config, games and seed changed, and a
    finished run dir's ``summary.json`` is checked against it when read back.
    """
    from unosim.rules.config import config_hash

    return config_hash(cfg.model_copy(update={"games": 1, "seed": 0}))


def make_manifest(cfg: GameConfig, key: str, seed: int, games: int, chunk_size: int, *,
                  records: bool, precision: float | None = None) -> Manifest:
    """``run.json``'s first content: everything a resume must find unchanged.

    With ``precision`` the run stops once precise enough: ``games`` is its cap
    and its chunks grow (`unosim.run.chunks.growing_plan`)."""
    from unosim.rules.plugins import plugin_digests

    manifest: Manifest = {"manifest_version": MANIFEST_VERSION, "config_name": cfg.name,
                "config_hash": key, "rules_hash": rules_hash(cfg),
                "seed": seed, "games": games, "chunk_size": chunk_size, "records": records,
                "chunks": len(growing_plan(games, chunk_size) if precision is not None
                              else chunk_plan(games, chunk_size)),
                "precision": precision, "unosim_version": __version__}
    plugins = plugin_digests(cfg.seat_policies)
    if plugins:  # (also in rules_hash) so a resume can name the plug-in that changed
        manifest["plugins"] = plugins
    return manifest


def why_changed(old: Manifest, new: Manifest) -> str:
    """Why two rules hashes differ, in words: a plug-in's source, or the config."""
    was, now = old.get("plugins"), new.get("plugins") or {}
    if isinstance(was, dict) and was.keys() == now.keys() and was != now:
        names = [p for p in now if was[p] != now[p]]
        return f"the source of plug-in {', '.join(names)} changed"
    return "config changed"


def _plain_name(name: object) -> bool:
    """A file name directly inside the run dir (never a path, never the lock)."""
    return (isinstance(name, str) and name not in ("", ".", "..") and "/" not in name
            and "\0" not in name and not is_lock_file(name))


def _problem(data: object) -> str | None:
    """What makes ``data`` no manifest of this unosim, or None."""
    if not isinstance(data, dict):
        return "not a JSON object"
    for field, kind in _FIELDS.items():
        value = data.get(field)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return f"{field!r} is missing or not {kind.__name__}"
        if isinstance(value, int) and value < 0:
            return f"{field!r} is negative"
    if data["manifest_version"] != MANIFEST_VERSION:
        return f"manifest version {data['manifest_version']}, this unosim reads {MANIFEST_VERSION}"
    outputs = data.get("outputs", [])
    if not isinstance(outputs, list) or not all(_plain_name(n) for n in outputs):
        return "'outputs' is not a list of file names"
    return None


def read_checked(path: Path, what: str, problem: Callable[[object], str | None],
                 limit: int = MAX_MANIFEST) -> object:
    """The JSON in ``path`` if ``problem`` finds none in it; else `OutDirError` (one line).

    A manifest is small: a larger file is refused before it is read.
    """
    try:
        if path.stat().st_size > limit:
            raise ValueError(f"larger than {limit:,} bytes")
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        found: str | None = f"unreadable: {getattr(exc, 'strerror', None) or exc}"
    else:
        found = problem(data)
    if found is not None:
        raise OutDirError(f"{path} is not a unosim {what} ({found}); nothing was "
                          "changed: fix or remove it, or use another --out")
    return data


def read_manifest(out: Path) -> Manifest:
    """The validated ``run.json`` of ``out``; `OutDirError` (one line) when it is not one."""
    # `_problem` checked the scalar fields the readers rely on
    return cast("Manifest", read_checked(out / MANIFEST, "run manifest", _problem))


def _contents(out: Path) -> list[Path]:
    """What ``out`` holds, its lock aside."""
    return [p for p in out.iterdir() if not is_lock_file(p.name)]


def check_out(out: Path, manifest: Manifest, resume: bool, force: bool,
              warn: Callable[[str], None]) -> Manifest | None:
    """Refuse an out dir that must not be touched; the old manifest when it holds a run.

    Reads only. None means ``out`` is missing or empty.
    """
    if out.exists() and not out.is_dir():
        raise OutDirError(f"out dir {out} exists and is not a directory")
    if not out.is_dir() or not _contents(out):
        return None
    if not (out / MANIFEST).is_file():
        what = f"cannot resume: {out}" if resume else f"out dir {out} is not empty and"
        raise OutDirError(f"{what} holds no unosim run (no {MANIFEST}); --force only clears a "
                          "run dir: use another --out")
    old = read_manifest(out)
    if resume:
        # more games extend a run of fixed games: its chunks are the longer run's first ones
        grows = (old.get("precision") is None and manifest.get("precision") is None
                 and old["games"] < manifest["games"])
        diffs = [why_changed(old, manifest)] if old["rules_hash"] != manifest["rules_hash"] else []
        diffs += [f"{k} {old.get(k)!r} -> {manifest.get(k)!r}"
                  for k in ("seed", "games", "chunk_size", "records", "precision")
                  if old.get(k) != manifest.get(k) and not (k == "games" and grows)]
        if diffs:
            what = "; ".join(diffs)
            raise ResumeMismatchError(f"cannot resume {out}: it holds a different run ({what}); "
                                      "use the original options, another --out, or --force")
        if old["unosim_version"] != __version__:
            warn(f"resuming a run started by unosim {old['unosim_version']} with {__version__}")
    elif not force:
        raise OutDirError(f"out dir {out} is not empty (it holds a run): use --resume to "
                          "continue it, --force to overwrite it, or another --out")
    return old


def _owned(name: str, names: Iterable[str]) -> bool:
    """Whether ``name`` is one of ``names`` or `atomic_write`'s temp file of one."""
    m = _TEMP.fullmatch(name)
    return name in names or (m is not None and m["name"] in names)


def _clear(out: Path, old: Manifest, names: tuple[str, ...] = RUN_FILES) -> None:
    """Remove the files the run of manifest ``old`` wrote into ``out``, and only those.

    ``names``: the files every run owns (none for a folder of paired checkpoints).
    """
    for folder, pattern in CHECKPOINT_FILES.items():
        d = out / folder
        if d.is_symlink() or not d.is_dir():
            continue
        for p in d.iterdir():
            if (pattern.fullmatch(p.name) or _TEMP.fullmatch(p.name)) and not p.is_dir():
                p.unlink()
        if not any(d.iterdir()):
            d.rmdir()
    owned = (*old.get("outputs", []), *names)
    for p in sorted(_contents(out), key=lambda p: p.name == MANIFEST):
        if _owned(p.name, owned) and (p.is_symlink() or not p.is_dir()):
            p.unlink()


def discard_run(out: Path) -> None:
    """Remove the run in ``out``: the files its manifest says it wrote, then ``out`` if empty.

    A study's ``--force`` discards the previous study's cells this way, so no
    stale cell or checkpoint of another study is left behind. A folder without
    a valid manifest raises `OutDirError` and is left as it is; so are files the
    run did not write.
    """
    _clear(out, read_manifest(out))
    with contextlib.suppress(OSError):  # something else (a lock, a user's file) stays
        out.rmdir()


def discard_checkpoints(out: Path) -> None:
    """Remove the chunk files (paired moments) in ``out/chunks``, and ``out`` if then empty."""
    _clear(out, {"outputs": []}, names=())
    with contextlib.suppress(OSError):
        out.rmdir()


def prepare_out(out: Path, manifest: Manifest, old: Manifest | None,
                wipe: bool) -> Manifest:
    """Make a checked ``out`` ready and write its manifest; returns the manifest written.

    ``wipe`` (``--force``) first removes the files of the run ``old`` describes;
    otherwise (a resume) the report files ``old`` lists stay listed.
    """
    outputs = [] if wipe or old is None else old.get("outputs", [])
    manifest = {**manifest, "outputs": outputs}
    try:
        if wipe and old is not None:
            _clear(out, old)
        (out / "chunks").mkdir(parents=True, exist_ok=True)
        if manifest["records"]:
            (out / "records").mkdir(exist_ok=True)
        for d in CHECKPOINT_FILES:  # temp files of an interrupted write
            for tmp in (out / d).glob(".*.tmp-*") if (out / d).is_dir() else ():
                tmp.unlink()
        write_json(out / MANIFEST, {**manifest, "status": "running"})
    except OSError as exc:
        raise OutDirError(f"cannot write to out dir {out}: {exc.strerror or exc}") from None
    return manifest


def save_results(out: Path, total: dict[str, np.ndarray], manifest: Manifest,
                 **finished: object) -> None:
    """The merged ``aggregates.npz``, then ``run.json`` marked complete with ``finished``
    and the digests of the aggregates (so a run dir read back is checked whole)."""
    try:
        atomic_write(out / "aggregates.npz", npz_writer(total))
        write_json(out / MANIFEST, {**manifest, "status": "complete", **finished,
                                    "aggregates_sha256": array_digests(total)})
    except OSError as exc:
        raise OutDirError(f"cannot write results to {out}: {exc.strerror or exc}") from None


def record_outputs(out: str | Path, paths: Iterable[str | Path]) -> None:
    """List files written into the run dir ``out`` (its report) in its manifest.

    ``--force`` then removes them with the run, so no stale report outlives it.
    """
    out = Path(out)
    old = read_manifest(out)
    here = out.resolve()
    names = {Path(p).name for p in paths if Path(p).resolve().parent == here}
    write_json(out / MANIFEST, {**old, "outputs": sorted({*old.get("outputs", []), *names})})
