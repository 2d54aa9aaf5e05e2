"""Shared options: declared once, help and completion from the layers that own them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import CLASSIC, invoke
from click.testing import CliRunner

import unosim.engine
from unosim.cli import console, main, options
from unosim.cli.console import COMPILE_NOTICE
from unosim.engine.kernel import jit
from unosim.rules.settings import setting_label, settings
from unosim.run import BACKENDS


def test_backend_choices_are_the_runners():
    assert options.BACKENDS == BACKENDS


@pytest.mark.parametrize("command", ["play", "run", "compare", "sweep"])
def test_set_help_lists_every_setting(command):
    r = invoke(command, "--help")
    assert r.exit_code == 0
    text = " ".join(r.stdout.split())
    for s in settings():
        if command == "play" and s.key in ("games", "seed"):  # one round: not play's
            assert f"{s.key}={s.values}" not in text, s.key
        else:
            assert f"{s.key}={s.values}" in text, s.key


def test_shared_options_read_the_same_everywhere():
    def help_of(command: str, flag: str) -> str:
        ctx = main.make_context("unosim", [command, "--help"], resilient_parsing=True)
        param = next(p for p in main.commands[command].params if flag in p.opts)
        record = param.get_help_record(ctx)
        assert record is not None
        return record[1]

    for flag in ("--games", "--seed", "--jobs", "--backend", "--quiet", "--set"):
        assert len({help_of(c, flag) for c in ("run", "compare", "sweep")}) == 1, flag


def _complete(words: str) -> list[str]:
    env = {"_UNOSIM_COMPLETE": "bash_complete", "COMP_WORDS": words,
           "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1))}
    r = CliRunner().invoke(main, [], prog_name="unosim", env=env)
    return [line.split(",", 1)[1] for line in r.stdout.splitlines()]


def test_shell_completion():
    """`eval "$(_UNOSIM_COMPLETE=bash_source unosim)"`, as the README says."""
    unosim = Path(sys.executable).with_name("unosim")  # the installed console script
    script = subprocess.run([str(unosim)], env={"_UNOSIM_COMPLETE": "bash_source"},
                            capture_output=True, text=True, check=True).stdout
    assert "_UNOSIM_COMPLETE=bash_complete" in script
    assert _complete("unosim ru") == ["rulings", "run"]
    assert _complete("unosim run classic --back") == ["--backend"]
    assert _complete("unosim run classic --set house_rules.ju") == ["house_rules.jump_in="]


def test_compile_notice_before_a_cold_engine(monkeypatch, tmp_path):
    monkeypatch.setattr(unosim.engine, "is_compiled", lambda *_: False, raising=False)
    monkeypatch.setattr(jit, "is_compiled", lambda *_: False)  # play: the façade
    r = invoke("run", CLASSIC, "--games", "20", "--out", str(tmp_path / "a"), "--no-report")
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines()[0] == COMPILE_NOTICE
    r = invoke("run", CLASSIC, "--games", "20", "--out", str(tmp_path / "b"), "-q")
    assert r.exit_code == 0 and r.stderr == ""  # --quiet: not even the notice
    r = invoke("play", CLASSIC)
    assert r.exit_code == 0 and r.stderr == COMPILE_NOTICE + "\n"
    monkeypatch.setattr(unosim.engine, "is_compiled", lambda *_: True)
    r = invoke("run", CLASSIC, "--games", "20", "--out", str(tmp_path / "c"), "--no-report")
    assert r.exit_code == 0 and COMPILE_NOTICE not in r.stderr
    r = invoke("play", CLASSIC)
    assert r.exit_code == 0 and r.stderr == COMPILE_NOTICE + "\n"  # play asks about the façade
    monkeypatch.setattr(jit, "is_compiled", lambda *_: True)
    r = invoke("play", CLASSIC)
    assert r.exit_code == 0 and r.stderr == ""


@pytest.mark.parametrize("args", [
    ["compare", CLASSIC, "seven_o"],
    ["sweep", CLASSIC, "--vary", "players=2,3"],
    ["league", "random", "strategic", "--players", "3"],
], ids=["compare", "sweep", "league"])
def test_studies_compile_every_engine_in_the_parent_first(monkeypatch, tmp_path, args):
    """Each variant a study runs is loaded (compiled if need be) by the command
    itself before any worker pool starts, so workers never compile at once."""
    from unosim.run import runner

    seen: list[object] = []
    loaded: list[str] = []
    monkeypatch.setattr(console, "compile_engine",
                        lambda cc, quiet=False: loaded.append(_variant(cc)) or 0.0)
    start = runner.executor

    def executor(ccs, *rest, **kw):
        seen.append(list(loaded))
        assert {_variant(cc) for cc in ccs} <= set(loaded)
        return start(ccs, *rest, **kw)

    monkeypatch.setattr(runner, "executor", executor)
    r = invoke(*args, "--games", "20", "--jobs", "1", "--out", str(tmp_path / "s"))
    assert r.exit_code == 0, r.output
    assert seen and all(seen)


def _variant(cc: object) -> str:
    """The engine variant a compiled config runs: its record types."""
    from numba import typeof

    from unosim.engine.kernel.batch import alloc_state, config_tuple

    return repr((typeof(alloc_state(cc, trace=False)), typeof(config_tuple(cc))))


def test_editions_name_house_rules_by_their_labels():
    r = invoke("editions")
    row = next(line for line in r.stdout.splitlines() if line.startswith("classic_1992"))
    assert setting_label("house_rules.two_player_reverse") in row


def test_compile_progress_without_a_terminal(monkeypatch, capsys):
    """Stderr not a terminal (a log, make demo under CI): a line every LOG_EVERY
    seconds while numba compiles, then how many functions in how long."""
    from numba.core import event

    monkeypatch.setattr(console, "LOG_EVERY", 0.0)
    monkeypatch.setattr(console, "_PROGRESS", [])
    console._show_compile_progress()
    try:
        with event.trigger_event("numba:compile"), event.trigger_event("numba:compile"):
            pass
    finally:
        event.unregister("numba:compile", console._PROGRESS[0])
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("  compiling: 2 functions, ")
    assert err[-1].startswith("  compiled 2 functions in ") and "\r" not in "".join(err)
