"""Issue 25, the newcomer's path: what a first session with unosim runs into.

Default out dirs that do not collide, a run extended with --resume, --force
on a study, keys checked before the out dir, the new commands (configs,
editions --format json, report), "did you mean", completion, progress
without a terminal, readable labels and help.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from unosim.cli.app import main
from unosim.cli.options import _complete_setting, complete_config, complete_policy
from unosim.report.labels import difference_labels, variant_name
from unosim.rules.config import ConfigError, load_config
from unosim.rules.yamlio import EDITIONS_DIR

FAST = ("-q", "--jobs", "1")


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def ok(*args: str):
    r = invoke(*args)
    assert r.exit_code == 0, r.output
    return r


def error_line(r) -> str:
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("unosim: error: "), r.stderr
    return lines[0]


# --- default out dirs -----------------------------------------------------------------
def test_readme_sequence_default_out_dirs_do_not_collide(tmp_path, monkeypatch):
    """compare --games then --precision, two sweeps, run 1000 then 2000: each its own dir."""
    monkeypatch.chdir(tmp_path)
    ok("compare", "classic", "stacking", "--games", "300", *FAST)
    ok("compare", "classic", "stacking", "--precision", "0.05", "--max-games", "1000", *FAST)
    ok("sweep", "classic", "--vary", "players=2,3", "--games", "300", *FAST)
    ok("sweep", "classic", "--vary", "players=2,4", "--games", "300", *FAST)
    ok("run", "classic", "--games", "300", *FAST, "--no-report")
    ok("run", "classic", "--games", "600", *FAST, "--no-report")
    made = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert len(made) == 6 and len(set(made)) == 6, made
    assert sum(n.startswith("compare-classic-vs-stacking-") for n in made) == 2
    assert sum(n.startswith("sweep-classic-") for n in made) == 2
    assert sum(n.startswith("classic-seed1-") for n in made) == 2
    # the same command again lands on its own folder, which it may then resume
    again = invoke("run", "classic", "--games", "300", *FAST, "--no-report")
    assert "not empty" in error_line(again)
    ok("run", "classic", "--games", "300", *FAST, "--no-report", "--resume")


# --- --resume to more games -----------------------------------------------------------
def test_resume_extends_a_finished_run_to_the_same_result_as_a_fresh_run(tmp_path):
    short, fresh = tmp_path / "short", tmp_path / "fresh"
    ok("run", "classic", "--games", "1500", "--chunk-size", "1000", "--out", str(short),
       *FAST, "--no-report")
    r = ok("run", "classic", "--games", "3000", "--out", str(short), "--resume", *FAST,
           "--no-report", "--format", "json")
    # chunk 0 (games 0..999) is reused; chunk 1 held 500 games, the longer run's holds 1000
    assert json.loads(r.stdout)["chunks_reused"] == 1
    ok("run", "classic", "--games", "3000", "--out", str(fresh), *FAST, "--no-report")
    assert (short / "summary.json").read_bytes() == (fresh / "summary.json").read_bytes()
    assert (short / "aggregates.npz").is_file()
    assert json.loads((short / "run.json").read_text())["games"] == 3000


def test_resume_to_fewer_games_is_still_refused(tmp_path):
    out = tmp_path / "r"
    ok("run", "classic", "--games", "600", "--out", str(out), *FAST, "--no-report")
    assert "games 600 -> 300" in error_line(invoke(
        "run", "classic", "--games", "300", "--out", str(out), "--resume", *FAST))


# --- --force on a study ---------------------------------------------------------------
def test_force_on_compare_removes_the_previous_studys_cells(tmp_path):
    out = tmp_path / "C"
    keep = tmp_path / "keep"
    ok("run", "classic", "--games", "300", "--out", str(keep), *FAST, "--no-report")
    ok("compare", "classic", "stacking", "--games", "300", "--out", str(out), *FAST)
    (out / "notes.txt").write_text("mine")
    r = ok("compare", str(keep), "chaos", "--games", "300", "--out", str(out), *FAST,
           "--force")
    assert "corrupt" not in r.stderr and "warning" not in r.stderr, r.stderr
    cells = sorted(p.name for p in (out / "runs").iterdir())
    assert "stacking" not in cells and "classic" not in cells, cells
    assert (out / "notes.txt").read_text() == "mine"  # not a file a run wrote
    assert (keep / "summary.json").is_file()  # an input run dir is never cleared


def test_force_on_a_sweep_clears_its_paired_checkpoints(tmp_path):
    out = tmp_path / "S"
    ok("sweep", "classic", "--vary", "players=2,3", "--games", "300", "--out", str(out), *FAST)
    old_cells = {p.name for p in (out / "runs").iterdir()}
    r = ok("sweep", "classic", "--vary", "players=2,4", "--games", "300", "--out", str(out),
           *FAST, "--force")
    assert "warning" not in r.stderr, r.stderr
    new_cells = {p.name for p in (out / "runs").iterdir()}
    assert "players-3" in old_cells and "players-3" not in new_cells


def test_force_never_clears_a_folder_without_a_study(tmp_path):
    out = tmp_path / "mine"
    (out / "runs" / "x").mkdir(parents=True)
    (out / "runs" / "x" / "data.csv").write_text("1")
    line = error_line(invoke("compare", "classic", "stacking", "--games", "300",
                             "--out", str(out), *FAST, "--force"))
    assert "holds no unosim study" in line
    assert (out / "runs" / "x" / "data.csv").read_text() == "1"


# --- keys before the out dir ----------------------------------------------------------
def test_vary_and_set_keys_are_checked_before_the_out_dir(tmp_path):
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "file").write_text("x")
    line = error_line(invoke("sweep", "classic", "--vary", "playrs=2,3", "--out", str(busy)))
    assert "--vary playrs=2" in line and "did you mean 'players'" in line
    assert "--set" not in line and "not empty" not in line
    line = error_line(invoke("sweep", "classic", "--vary", "players=2,3", "--set",
                             "house_rules.jump_inn=true", "--out", str(busy)))
    assert "--set house_rules.jump_inn" in line and "not empty" not in line
    line = error_line(invoke("sweep", "classic", "--vary", "players=2,99", "--out", str(busy)))
    assert "--vary players=99" in line


# --- new commands ---------------------------------------------------------------------
def test_configs_lists_every_built_in_config_one_line_each():
    r = ok("configs")
    lines = r.stdout.splitlines()
    names = [line.split()[0] for line in lines]
    assert "classic" in names and "stacking" in names and len(names) == len(set(names))
    stacking = lines[names.index("stacking")]
    assert "4p" in stacking and "UNO (classic" in stacking and "stacked" in stacking
    rows = json.loads(ok("configs", "--format", "json").stdout)
    assert {r["name"] for r in rows} == set(names)
    assert next(r for r in rows if r["name"] == "two_player")["players"] == 2


def test_editions_format_json():
    rows = json.loads(ok("editions", "--format", "json").stdout)
    by = {r["name"]: r for r in rows}
    assert by["classic"]["cards"] == 108 and by["classic"]["title"].startswith("UNO")
    assert set(by) >= {"classic", "disney100", "encanto"}


def test_report_rerenders_a_run_from_its_aggregates(tmp_path):
    out = tmp_path / "r"
    ok("run", "classic", "--games", "300", "--out", str(out), *FAST, "--no-report")
    assert not (out / "report.html").exists()
    r = ok("report", str(out))
    assert "report.html" in r.stdout and (out / "report.html").is_file()
    assert "report.html" in json.loads((out / "run.json").read_text())["outputs"]
    assert "not a finished run" in error_line(invoke("report", str(tmp_path / "nothing")))
    assert not (tmp_path / "nothing").exists()
    (tmp_path / "notes").mkdir()  # a folder, but no run: one line, and nothing written
    assert "needs aggregates.npz" in error_line(invoke("report", str(tmp_path / "notes")))
    assert list((tmp_path / "notes").iterdir()) == []


def test_did_you_mean_for_config_and_policy_names():
    line = error_line(invoke("run", "clasic"))
    assert "did you mean 'classic'" in line
    line = error_line(invoke("league", "strategc", "random", "--games", "100"))
    assert "did you mean 'strategic'" in line
    with pytest.raises(ConfigError, match="did you mean 'greedy'"):
        load_config("classic", ["seats=[greedyy, random, random, random]"])


def test_completion_of_configs_policies_and_set_values():
    names = [c.value for c in complete_config(None, None, "sta")]  # type: ignore[arg-type]
    assert names[:2] == ["stacking", "stacking_full"]
    assert [c.value for c in complete_policy(None, None, "st")][0] == "strategic"  # type: ignore[arg-type]
    keys = [c.value for c in _complete_setting(None, None, "house_rules.ju")]  # type: ignore[arg-type]
    assert keys == ["house_rules.jump_in="]
    values = [c.value for c in _complete_setting(None, None, "house_rules.jump_in=")]  # type: ignore[arg-type]
    assert values == ["house_rules.jump_in=true", "house_rules.jump_in=false",
                      "house_rules.jump_in=same_number"]  # a ruling (docs/rules.md §12)
    assert "mode=match" in [c.value for c in _complete_setting(None, None, "mode=")]  # type: ignore[arg-type]
    r = CliRunner().invoke(main, [], prog_name="unosim", env={
        "_UNOSIM_COMPLETE": "bash_complete", "COMP_WORDS": "unosim run clas", "COMP_CWORD": "2"})
    assert "classic" in r.stdout


def _complete(words: str) -> list[str]:
    r = CliRunner().invoke(main, [], prog_name="unosim", env={
        "_UNOSIM_COMPLETE": "bash_complete", "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - 1)})
    return [line.partition(",")[2] for line in r.stdout.splitlines() if line]


def test_completion_of_vary_keys_and_value_lists():
    assert _complete("unosim sweep classic --vary pla") == ["players="]
    assert "house_rules.jump_in=false,true" in _complete(
        "unosim sweep classic --vary house_rules.jump_in=")
    assert _complete("unosim league random greedy --vary house_rules.seven_o=f") == [
        "house_rules.seven_o=false,true"]
    assert "seats=" in _complete("unosim sweep classic --vary s")
    assert "seats=" not in _complete("unosim league random greedy --vary s")  # refused there
    assert _complete("unosim sweep classic --vary gam") == []  # every cell plays the same games


# --- progress without a terminal ------------------------------------------------------
@pytest.mark.slow  # about 9 s
def test_progress_lines_when_stderr_is_not_a_terminal(tmp_path, monkeypatch):
    """A plug-in run (about 100 rounds/s) says how far it is on a stderr that is a file."""
    monkeypatch.chdir(Path(__file__).resolve().parents[2])  # examples/ as the README names it
    seats = "[examples/policies/first_legal.py:FirstLegal, random, random, random]"
    r = invoke("run", "classic", "--set", f"seats={seats}", "--games", "2000",
               "--chunk-size", "1000", "--jobs", "1", "--out", str(tmp_path / "p"),
               "--no-report")
    assert r.exit_code == 0, r.output
    lines = [x for x in r.stderr.splitlines() if x.startswith("progress:")]
    assert len(lines) == 2, r.stderr
    assert "1,000 of 2,000 (50%) games" in lines[0] and "2,000 of 2,000 (100%)" in lines[1]
    quiet = invoke("run", "classic", "--games", "300", "--out", str(tmp_path / "q"), *FAST)
    assert "progress" not in quiet.stderr


def test_the_readme_plugin_example_shows_progress_every_tenth(tmp_path, monkeypatch):
    """Plug-in seats make smaller chunks by default (50 games, about half a second), so the
    README's 500-game plug-in run moves its progress ten times, not once at the end."""
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    seats = "[examples/policies/first_legal.py:FirstLegal, random, random, random]"
    r = invoke("run", "classic", "--set", f"seats={seats}", "--games", "500", "--jobs", "1",
               "--out", str(tmp_path / "p"), "--no-report")
    assert r.exit_code == 0, r.output
    lines = [x for x in r.stderr.splitlines() if x.startswith("progress:")]
    assert [x.split(" games")[0] for x in lines if not x.startswith("progress: 0 ")] == [
        f"progress: {n} of 500 ({n // 5}%)" for n in range(50, 501, 50)], r.stderr


# --- labels and help ------------------------------------------------------------------
def test_plugin_seats_give_readable_run_names():
    name = variant_name("classic", [
        "seats=[examples/policies/first_legal.py:FirstLegal, random, random, random]"])
    assert name == "classic+seats-FirstLegal-random-random-random"
    seats = ["seats=[examples/policies/first_legal.py:FirstLegal, random, random, random]",
             "seats=[{policy: strategic, params: {bluff_rate: 0.2}}, random, random, random]"]
    labels = difference_labels([load_config("classic"), *(load_config("classic", [s])
                                                          for s in seats)])
    assert labels[1:] == ["seats FirstLegal, random, random, random",
                          "seats strategic (bluff_rate 0.2), random, random, random"]


def test_a_copied_edition_is_labelled_by_its_config_name(tmp_path):
    shutil.copy(EDITIONS_DIR / "classic.yaml", tmp_path / "my_edition.yaml")
    text = (tmp_path / "my_edition.yaml").read_text()
    assert "uno_penalty: 2" in text
    (tmp_path / "my_edition.yaml").write_text(text.replace("uno_penalty: 2", "uno_penalty: 4"))
    (tmp_path / "house.yaml").write_text("extends: classic\nedition: my_edition.yaml\n")
    cfgs = [load_config("classic"), load_config(tmp_path / "house.yaml")]
    assert difference_labels(cfgs) == ["classic", "house"]


def test_help_texts_are_readable():
    run_help = ok("run", "--help").stdout
    assert "seats=[SEAT, ...]|null" in run_help and "or text or text" not in run_help
    games_help = run_help.split("--games", 1)[1].split("--precision", 1)[0]
    assert "compare" not in games_help
    play_help = ok("play", "--help").stdout
    assert "games=" not in play_help and "seed=" not in play_help
    assert "players=" in play_help


def test_readme_plugin_example_is_small():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    line = next(x for x in readme.splitlines() if "first_legal.py:FirstLegal" in x)
    assert "--games" in line and int(line.split("--games")[1].split()[0]) <= 2000


def test_force_on_a_league_with_vary_clears_its_nested_cells(tmp_path):
    out = tmp_path / "L"
    common = ("--no-head-to-head", "--players", "2", "--games", "200", "--out", str(out), *FAST)
    ok("league", "random", "greedy", "--vary", "house_rules.jump_in=false,true", *common)
    assert list((out / "runs").glob("*/*/run.json"))
    ok("league", "random", "cautious", *common, "--force")
    assert not list((out / "runs").glob("*/*/run.json"))  # the --vary league's cells are gone
    assert list((out / "runs").glob("*/run.json"))
