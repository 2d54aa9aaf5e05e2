"""Every documented command and snippet runs as written (with small --games).

The ``sh`` and ``console`` blocks of README.md and docs/*.md are run in order,
one folder per document (so ``play ... > round.jsonl`` then ``advise --trace
round.jsonl`` works), with the game counts made small; the non-doctest
``python`` blocks are executed. docs/python.md's doctests run with the
doctest glob (pyproject.toml), not here.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from unosim.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```(sh|console|python)\n(.*?)```", re.S)
SMALL = "300"
# Lines that set up a machine or a cluster, or wait for a person (jupyter lab: a server;
# tests/docs/test_notebook.py runs the notebook itself): not run here.
NOT_RUN = ("make ", "pip ", "dask ", "eval ", "_UNOSIM_COMPLETE", "jupyter ")


def _blocks(doc: Path, lang: str) -> list[str]:
    return [body for kind, body in BLOCK.findall(doc.read_text(encoding="utf-8"))
            if kind == lang]


def _commands(doc: Path) -> list[str]:
    """The ``unosim`` command lines of a document's sh and console blocks."""
    lines: list[str] = []
    for kind in ("sh", "console"):
        for body in _blocks(doc, kind):
            text = body.replace("\\\n", " ")
            for line in text.splitlines():
                if kind == "console":
                    if not line.startswith("$ "):
                        continue
                    line = line[2:]
                if (line.strip() and not line.lstrip().startswith(NOT_RUN)
                        and "tcp://HEAD" not in line):  # a cluster's placeholder address
                    lines.append(line.strip())
    return lines


def _small(args: list[str]) -> list[str]:
    """The command with few games: --games made small, --precision capped, no human seat."""
    out: list[str] = []
    it = iter(args)
    for a in it:
        if a in ("--games", "--playouts"):
            out += [a, SMALL if a == "--games" else "200"]
            next(it)
        elif a == "--precision":
            out += [a, next(it), "--max-games", "1000"]
        else:
            out.append(a)
    if (out[:1] in (["sweep"], ["league"], ["screen"]) and "--games" not in out
            and "--precision" not in out):
        out += ["--games", SMALL]
    if out[:1] in (["run"], ["compare"]) and "--games" not in out and "--precision" not in out:
        out += ["--games", SMALL]
    return out


def _run(line: str, cwd: Path) -> None:
    words = shlex.split(line, comments=True)
    assert words[0] == "unosim", line
    target = None
    if ">" in words:
        at = words.index(">")
        words, target = words[:at], words[at + 1]
    args = _small(words[1:])
    if "--human" in args:
        return  # waits for a person at the keyboard (tests/cli/test_human_seat.py drives it)
    result = CliRunner().invoke(main, [*args, "--quiet"] if args[0] in (
        "run", "compare", "sweep", "league", "screen") else args)
    assert result.exit_code == 0, f"{line}\n-> {' '.join(args)}\n{result.output}"
    if target is not None:
        (cwd / target).write_text(result.stdout)


@pytest.mark.slow  # up to 10 s a page: every documented command
@pytest.mark.parametrize("doc", [d for d in DOCS if _commands(d)], ids=lambda d: d.name)
def test_documented_commands_run(doc, tmp_path, monkeypatch):
    for name in ("configs", "examples"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    for line in _commands(doc):
        _run(line, tmp_path)


def test_documented_commands_are_found():
    """The parser sees the README's commands (an empty list would pass anything)."""
    readme = _commands(ROOT / "README.md")
    assert any(c.startswith("unosim compare classic stacking --precision") for c in readme)
    assert not any(c.startswith(("make", "dask")) for c in readme)
    assert _small(["league", "a", "b", "--precision", "0.1"])[-2:] == ["--max-games", "1000"]


SNIPPETS = [(d, i, body) for d in DOCS for i, body in enumerate(_blocks(d, "python"))
            if not body.lstrip().startswith(">>>")]


@pytest.mark.parametrize("doc,i,body", SNIPPETS, ids=[f"{d.name}-{i}" for d, i, _ in SNIPPETS])
def test_documented_python_snippets_run(doc, i, body, monkeypatch):
    monkeypatch.chdir(ROOT)  # snippets name files as the docs do: from the checkout
    code = re.sub(r"\bgames=\d[\d_]*", f"games={SMALL}", body)
    code = re.sub(r"\bcount=\d[\d_]*", "count=100", code)
    namespace: dict[str, object] = {"__name__": f"snippet_{doc.stem}_{i}"}
    exec(compile(code, f"{doc.name}[{i}]", "exec"), namespace)  # noqa: S102


def test_ismcts_position_example_fits_its_hand(tmp_path, monkeypatch):
    """docs/ismcts.md's POSITION.yamls (classic, UNO Flip) are positions advise accepts
    as written."""
    text = (ROOT / "docs" / "ismcts.md").read_text(encoding="utf-8")
    bodies = re.findall(r"```yaml\n(config:.*?)```", text, re.S)
    assert len(bodies) == 2
    monkeypatch.chdir(tmp_path)
    for body in bodies:
        (tmp_path / "POSITION.yaml").write_text(body)
        r = CliRunner().invoke(main, ["advise", "POSITION.yaml", "--playouts", "100",
                                      "--format", "json"])
        assert r.exit_code == 0, r.output
        assert json.loads(r.stdout)
