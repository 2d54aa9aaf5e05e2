"""Checkpoints in a run's out dir: atomic, checksummed, verifiable on resume.

Layout: ``chunks/chunk-000123.npz`` (one chunk's aggregates, its metadata and a
sha256 of them) and ``records/part-000123.parquet`` (with ``records``: one row
per round); the manifest ``run.json`` and the merged ``aggregates.npz`` are
`unosim.run.manifest`'s. Every file is written to a temp file and renamed
(`unosim.run.files.atomic_write`), so a reader never sees half a file; a chunk
that does not verify is recomputed, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import zipfile
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypedDict

import numpy as np

from unosim.engine.kernel import batch as K
from unosim.engine.kernel import state as L
from unosim.engine.kernel.batch import AGG_KEYS
from unosim.run.errors import OutDirError
from unosim.run.files import atomic_write

if TYPE_CHECKING:
    import pyarrow as pa

    from unosim.rules.config import GameConfig

__all__ = [
    "CHECKPOINT_FILES",
    "ForeignChunk",
    "array_digests",
    "PAIR_KEYS",
    "load_aggregates",
    "load_chunk",
    "load_pair_chunk",
    "npz_writer",
    "read_arrays",
    "save_chunk",
    "save_pair_chunk",
]

# The files a run writes into each checkpoint folder (``--force`` removes these only).
CHECKPOINT_FILES = {"chunks": re.compile(r"(chunk|pairs)-\d{6,}\.npz"),
                    "records": re.compile(r"part-\d{6,}\.parquet")}

Chunk = tuple[int, int, int]  # index, start, count (see `chunk_plan`)


def npz_writer(arrays: dict[str, Any]) -> Callable[[BinaryIO], None]:
    """A writer of ``arrays`` as one ``.npz`` file, for `atomic_write`."""
    return lambda f: np.savez(f, **arrays)


PAIR_KEYS = ("pair_sums", "pair_moments")


def _digest(agg: Mapping[str, np.ndarray], keys: Collection[str] = AGG_KEYS) -> str:
    h = hashlib.sha256()
    for k in keys:
        h.update(np.ascontiguousarray(agg[k], dtype=np.int64).tobytes())
    return h.hexdigest()


def array_digests(arrays: Mapping[str, np.ndarray]) -> dict[str, str]:
    """sha256 of each array (as int64), by name: what ``run.json`` vouches for.

    One digest per array, so an older file that lacks an optional array still
    checks against the arrays it has.
    """
    return {k: _digest(arrays, (k,)) for k in sorted(arrays)}


def _chunk_path(out: Path, index: int) -> Path:
    return out / "chunks" / f"chunk-{index:06d}.npz"


def _records_path(out: Path, index: int) -> Path:
    return out / "records" / f"part-{index:06d}.parquet"


def load_aggregates(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Merged aggregates saved by a run (``aggregates.npz`` or a chunk file)."""
    with np.load(path, allow_pickle=False) as z:
        return {k: np.array(z[k]) for k in AGG_KEYS}


class ForeignChunk(ValueError):
    """A whole checkpoint of another comparison (``--reuse`` or ``--force`` into a study
    that paired other configs): not corrupt, just not this run's."""


class _Invalid(ValueError):
    """A readable file whose arrays are not what they must be."""


def read_arrays(path: str | os.PathLike[str], shapes: Mapping[str, tuple[int, ...]],
                optional: Collection[str] = ()) -> dict[str, np.ndarray]:
    """The integer arrays ``shapes`` names in an ``.npz`` file, as int64.

    Each array's header is checked against its expected shape before its data
    is read, so a damaged or hostile file can neither crash a report nor make
    it allocate more than a good one. Arrays in ``optional`` may be missing.
    Raises ``ValueError`` saying what is wrong.
    """
    try:
        with zipfile.ZipFile(path) as zf:
            members = set(zf.namelist())
            arrays = {}
            for key, shape in shapes.items():
                if f"{key}.npy" not in members:
                    if key in optional:
                        continue
                    raise _Invalid(f"{key} is missing")
                with zf.open(f"{key}.npy") as f:
                    if np.lib.format.read_magic(f) != (1, 0):
                        raise _Invalid(f"{key} has an unsupported format")
                    got, _, dtype = np.lib.format.read_array_header_1_0(f)
                    if dtype.kind not in "iu" or got != tuple(shape):
                        raise _Invalid(f"{key} is {dtype} of shape {got}, expected integers "
                                       f"of shape {tuple(shape)}")
                with zf.open(f"{key}.npy") as f:
                    data = np.lib.format.read_array(f, allow_pickle=False)
                arrays[key] = np.asarray(data, dtype=np.int64)
            return arrays
    except _Invalid:
        raise
    except Exception as exc:  # zipfile, EOF, OSError, a truncated array: all mean unreadable
        raise ValueError(f"unreadable ({type(exc).__name__}: {exc})") from None


# --- chunk files ---------------------------------------------------------------------
class _ChunkId(TypedDict):
    """What a chunk file's metadata must say to be this run's chunk."""

    index: int
    start: int
    count: int
    seed: int
    config_hash: str


def _load_chunk(out: Path, expect: _ChunkId, shapes: dict[str, tuple[int, ...]],
                records: bool) -> dict[str, np.ndarray]:
    """A chunk's aggregates if its file verifies; raises ValueError saying why not."""
    path = _chunk_path(out, expect["index"])
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
    except Exception as exc:  # zipfile, EOF, OSError, KeyError, JSON: all mean unreadable
        raise ValueError(f"unreadable ({type(exc).__name__}: {exc})") from None
    if not isinstance(meta, dict):
        raise ValueError("its metadata is not an object")
    for k, v in expect.items():
        if meta.get(k) != v:
            if k in ("start", "count", "config_hash"):  # whole, of another plan or run
                raise ForeignChunk(f"{k} is {meta.get(k)!r}, expected {v!r}")
            raise ValueError(f"{k} is {meta.get(k)!r}, expected {v!r}")
    agg = read_arrays(path, shapes)
    if meta.get("digest") != _digest(agg):
        raise ValueError("checksum mismatch")
    if int(agg["counts"][0]) != expect["count"]:
        raise ValueError("game count mismatch")
    if records:
        rp = _records_path(out, expect["index"])
        try:
            import pyarrow.parquet as pq

            rows = pq.read_metadata(rp).num_rows
        except Exception as exc:
            raise ValueError(f"records shard unreadable ({type(exc).__name__})") from None
        if rows != meta.get("n_records"):
            raise ValueError(f"records shard has {rows} rows, expected {meta.get('n_records')}")
    return agg


def load_chunk(out: Path, chunk: Chunk, seed: int, key: str,
               shapes: dict[str, tuple[int, ...]], records: bool) -> dict[str, np.ndarray]:
    """The aggregates of ``chunk`` saved in ``out``; ValueError saying why they don't verify."""
    index, start, count = chunk
    expect: _ChunkId = {"index": index, "start": start, "count": count, "seed": seed, "config_hash": key}
    if not _chunk_path(out, index).exists():
        raise FileNotFoundError(index)
    return _load_chunk(out, expect, shapes, records)


def _pair_path(out: Path, index: int) -> Path:
    return out / "chunks" / f"pairs-{index:06d}.npz"


def save_pair_chunk(out: Path, chunk: Chunk, seed: int, keys: list[str],
                    pairs: list[list[int]], arrays: dict[str, np.ndarray]) -> None:
    """A chunk's paired moments (``PAIR_KEYS``), checksummed like a chunk file."""
    index, start, count = chunk
    meta = {"index": index, "start": start, "count": count, "seed": seed, "config_hashes": keys,
            "pairs": pairs, "digest": _digest(arrays, PAIR_KEYS)}
    try:
        atomic_write(_pair_path(out, index),
                     npz_writer({"meta": np.array(json.dumps(meta, sort_keys=True)), **arrays}))
    except OSError as exc:
        raise OutDirError(f"cannot write paired chunk {index} to {out}: "
                          f"{exc.strerror or exc}") from None


def load_pair_chunk(out: Path, chunk: Chunk, seed: int, keys: list[str],
                    pairs: list[list[int]], shapes: dict[str, tuple[int, ...]]
                    ) -> dict[str, np.ndarray]:
    """The paired moments of ``chunk`` saved in ``out``; ValueError when they don't verify."""
    index, start, count = chunk
    path = _pair_path(out, index)
    if not path.exists():
        raise FileNotFoundError(index)
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
    except Exception as exc:
        raise ValueError(f"unreadable ({type(exc).__name__}: {exc})") from None
    expect = {"index": index, "start": start, "count": count, "seed": seed,
              "config_hashes": keys, "pairs": pairs}
    if not isinstance(meta, dict):
        raise ValueError("its metadata is not an object")
    if any(meta.get(k) != v for k, v in expect.items()):
        raise ForeignChunk("it belongs to another comparison")
    arrays = read_arrays(path, shapes)
    if meta.get("digest") != _digest(arrays, PAIR_KEYS):
        raise ValueError("checksum mismatch")
    return arrays


def _records_table(rec: np.ndarray, cfg: GameConfig, seed: int, chunk: int) -> pa.Table:
    """One row per round as an Arrow table (the per-round facts of docs/rules.md §8)."""
    import pyarrow as pa

    n = cfg.players
    w = rec[:, K.REC_WINNER]
    won = w >= 0
    st = rec[:, K.REC_STATS:K.REC_STATS + L.NR]
    policies = np.array(cfg.seat_policies + [""], dtype=object)
    cols: dict[str, pa.Array] = {
        "config": pa.DictionaryArray.from_arrays(
            pa.array(np.zeros(len(rec), np.int32)), pa.array([cfg.name])),
        "seed": pa.array(np.full(len(rec), seed, np.int64)),
        "chunk": pa.array(np.full(len(rec), chunk, np.int32)),
        "game": pa.array(rec[:, K.REC_GAME]),
        "round": pa.array(rec[:, K.REC_ROUND].astype(np.int32)),
        "dealer": pa.array(rec[:, K.REC_DEALER].astype(np.int8)),
        "winner_seat": pa.array(w.astype(np.int8), mask=~won),
        "winner_position": pa.array(rec[:, K.REC_WINNER_POS].astype(np.int8), mask=~won),
        "winner_policy": pa.array(policies[w], mask=~won, type=pa.string()),
    }
    for c in L.COUNTERS:
        cols[c.column] = pa.array(st[:, c.slot].astype(np.int32))
    for i, cause in enumerate(L.CAUSES):
        cols[f"drawn_{cause}"] = pa.array(st[:, L.R_DRAW_BY_CAUSE + i].astype(np.int32))
    cols["stalemate"] = pa.array(~won)
    for q in range(n):
        cols[f"points_left_seat{q}"] = pa.array(rec[:, K.REC_SEAT_POINTS + q].astype(np.int32))
    return pa.table(cols)


def save_chunk(out: Path, cfg: GameConfig, seed: int, key: str, chunk: Chunk,
               agg: dict[str, np.ndarray], *, rec: np.ndarray | None) -> None:
    """One finished chunk: its records shard (if any) first, then its checksummed file.

    The chunk file is written last, so its presence means the chunk is whole.
    """
    index, start, count = chunk
    meta = {"index": index, "start": start, "count": count, "seed": seed, "config_hash": key,
            "n_records": int(len(rec)) if rec is not None else None, "digest": _digest(agg)}
    try:
        if rec is not None:
            import pyarrow.parquet as pq

            table = _records_table(rec, cfg, seed, index)
            atomic_write(_records_path(out, index), lambda f: pq.write_table(table, f))
        atomic_write(_chunk_path(out, index),
                     npz_writer({"meta": np.array(json.dumps(meta, sort_keys=True)), **agg}))
    except OSError as exc:
        raise OutDirError(f"cannot write chunk {index} to {out}: "
                          f"{exc.strerror or exc}") from None
