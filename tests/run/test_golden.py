"""Golden summaries: the restructure (and any refactor) changes no result.

Each case of ``tests/golden/cases.txt`` is run through the CLI at seed 7 and
its ``summary.json`` must equal, byte for byte, the file recorded under
``tests/golden/`` before the code was restructured. A change that is meant to
alter results regenerates them with ``python tests/run/test_golden.py --write``
and says so in its commit message.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"


def cases() -> list[tuple[str, str, list[str]]]:
    out = []
    for line in (GOLDEN / "cases.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, cfg, extra = (part.strip() for part in line.split("|"))
        out.append((name, cfg, extra.split()))
    return out


def case_args(cfg: str, extra: list[str], out: Path) -> list[str]:
    """``unosim`` arguments of one case."""
    return ["run", str(ROOT / "configs" / cfg), "--seed", "7", "--out", str(out), "--no-report",
            "--quiet", "--jobs", "1", *extra]


def run_case(cfg: str, extra: list[str], out: Path) -> bytes:
    """summary.json of one case, run as a user would: ``python -m unosim`` in a child."""
    cmd = [sys.executable, "-m", "unosim", *case_args(cfg, extra, out)]
    subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
    return (out / "summary.json").read_bytes()


def run_case_in_process(cfg: str, extra: list[str], out: Path) -> bytes:
    """summary.json of one case through the same CLI, in this process: the cases are
    small, so a child's start-up (about 1.5 s of CPU each) was most of their cost."""
    from click.testing import CliRunner

    from unosim.cli import main

    r = CliRunner().invoke(main, case_args(cfg, extra, out))
    assert r.exit_code == 0, r.output
    return (out / "summary.json").read_bytes()


@pytest.mark.parametrize(("name", "cfg", "extra"), cases(), ids=[c[0] for c in cases()])
def test_summary_is_byte_identical(name: str, cfg: str, extra: list[str], tmp_path: Path) -> None:
    got = run_case_in_process(cfg, extra, tmp_path / name)
    assert got == (GOLDEN / f"{name}.json").read_bytes()


@pytest.mark.slow
def test_a_child_process_writes_the_same_summary(tmp_path: Path) -> None:
    """One case also through ``python -m unosim``, as the cases were recorded."""
    name, cfg, extra = next(c for c in cases() if c[0] == "match_partners")
    assert run_case(cfg, extra, tmp_path / name) == (GOLDEN / f"{name}.json").read_bytes()


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for name, cfg, extra in cases():
            (GOLDEN / f"{name}.json").write_bytes(run_case(cfg, extra, Path(tmp) / name))
            print("wrote", name)
