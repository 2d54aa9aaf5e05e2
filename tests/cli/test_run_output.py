"""`unosim run`: variant names from --set, --format json, --precision, ties and policy rates."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import assert_one_line_error, invoke
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from unosim.analysis.summary import (
    SCHEMA_PATH,
    build_summary,
    format_text,
    match_win_shares,
)
from unosim.cli import main
from unosim.engine.kernel.batch import empty_aggregates
from unosim.engine.kernel.state import compile_config
from unosim.report.labels import difference_labels, variant_name
from unosim.rules.config import load_config, name_slug


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))


# --- names ------------------------------------------------------------------------
def test_variant_names_are_slugs_and_distinct():
    names = {variant_name("classic", o) for o in (
        [], ["house_rules.jump_in=true"], ["house_rules.jump_in=false"], ["players=6"],
        ["players=6", "house_rules.jump_in=true"], ["behaviour.uno_forget_rate=0.25"],
        ["house_rules.stacking.wd4_on_wd4=true"])}
    assert len(names) == 7
    assert all(name_slug(n) == n for n in names)


def test_variant_name_ignores_order_spelling_and_run_keys():
    a = variant_name("classic", ["players=6", "house_rules.jump_in=true"])
    assert a == variant_name("classic", ["house_rules.jump_in= true", "players=5", "players=6"])
    assert a == variant_name("classic", {"house_rules": {"jump_in": True}, "players": 6,
                                         "games": 10})
    assert variant_name("x" * 90, ["players=6"]) != variant_name("x" * 90, ["players=7"])


def test_difference_labels_name_what_differs():
    cfgs = [load_config("classic"), load_config("classic", ["players=6"]),
            load_config("jump_in")]
    assert difference_labels(cfgs) == ["classic", "6 players", "jump-in"]
    assert difference_labels([]) == []


def test_set_names_the_run_and_its_out_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["run", "classic", "--set", "house_rules.jump_in=true",
                                  "--games", "60", "--jobs", "1", "-q", "--no-report"])
    assert r.exit_code == 0, r.output
    (out,) = (tmp_path / "runs").glob("classic+jump_in-seed1-*")
    s = json.loads((out / "summary.json").read_text())
    assert s["config_name"] == "classic+jump_in" and s["config"]["house_rules"]["jump_in"]
    assert "classic+jump_in: 60 rounds" in r.stdout
    plain = CliRunner().invoke(main, ["run", "classic", "--games", "60", "--jobs", "1", "-q",
                                      "--no-report"])
    assert plain.exit_code == 0 and len(list((tmp_path / "runs").glob("classic-seed1-*"))) == 1


# --- --format json ----------------------------------------------------------------
def test_format_json_prints_only_json(tmp_path, validator):
    out = tmp_path / "run"
    r = invoke("run", "classic", "--games", "80", "--seed", "3", "--out", str(out),
               "--jobs", "1", "--format", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["out"] == str(out) and doc["report"] == str(out / "report.html")
    assert doc["elapsed"] >= 0 and doc["rounds_run"] == 80
    assert doc["summary"] == json.loads((out / "summary.json").read_text())
    assert list(validator.iter_errors(doc["summary"])) == []


def test_precision_options_exclude_games():
    assert_one_line_error(invoke("run", "classic", "--precision", "1", "--games", "9"),
                          "--games or --precision")
    assert_one_line_error(invoke("run", "classic", "--max-games", "9"), "--max-games")
    assert_one_line_error(invoke("run", "classic", "--precision", "-1"), "--precision")


def test_precision_stops_the_run(tmp_path, validator):
    out = tmp_path / "run"
    r = invoke("run", "classic", "--precision", "4", "--max-games", "20000", "--jobs", "1",
               "--out", str(out), "--no-report", "-q")
    assert r.exit_code == 0, r.output
    s = json.loads((out / "summary.json").read_text())
    stop = s["stop"]
    assert stop["precision"] == 4 and stop["max_games"] == 20000 and stop["met"]
    assert stop["half_width"] <= 4 and s["games"] < 20000
    assert f"stopped at {s['games']:,} rounds" in r.stdout
    assert list(validator.iter_errors(s)) == []



def test_precision_run_report_states_its_stopping_rule(tmp_path):
    """A precision run's report says the rule and where it stopped, from summary.json
    alone (which keeps the target, cap and outcome, not the rule's words)."""
    out = tmp_path / "run"
    r = invoke("run", "classic", "--precision", "4", "--max-games", "20000", "--jobs", "1",
               "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    games = json.loads((out / "summary.json").read_text())["games"]
    text = (out / "report.md").read_text()
    assert "**Stopping rule:** stop at the first chunk boundary where the 95% half-width " \
           "of mean turns per round is at most 4, at most 20,000 games." in text
    assert f"It was met after {games:,} games" in text

# --- match ties and policy rates --------------------------------------------------
def _lowest_match_aggregates():
    """Three matches of 3 seats: seat 0 alone, seats 0+1 tied, all three tied."""
    cfg = load_config("match", ["scoring=lowest", "players=3"])
    agg = empty_aggregates(compile_config(cfg))
    agg["counts"][:] = [3, 9, 0, 0]
    agg["turns_hist"][30] = 9
    agg["match_rounds_hist"][3] = 3
    agg["margin_hist"][5] = 3
    agg["match_wins_seat"][:] = [3, 2, 1]  # every sharing seat counted in full
    agg["match_wins_k"][:] = [[1, 1, 1], [0, 1, 1], [0, 0, 1]]
    return cfg, agg


def test_a_tie_shared_by_k_seats_counts_one_kth(validator):
    cfg, agg = _lowest_match_aggregates()
    shares, ties, split = match_win_shares(agg, "lowest")
    assert shares.tolist() == pytest.approx([1 + 1 / 2 + 1 / 3, 1 / 2 + 1 / 3, 1 / 3])
    assert ties == 2 and split
    s = build_summary(agg, cfg, seed=1, games=3)
    m = s["matches"]
    assert sum(r["rate"] for r in m["win_share_by_seat"]) == pytest.approx(1.0)
    assert sum(r["rate"] for r in m["win_rate_by_seat"]) == pytest.approx(2.0)  # full wins
    assert m["ties"]["count"] == 2 and m["win_share_convention"] == "split"
    assert m["win_share_by_policy"]["random"]["rate"] == pytest.approx(1.0)
    assert list(validator.iter_errors(s)) == []
    text = format_text(s)
    assert "a win shared by k seats counts 1/k" in text and "tied matches      2" in text


def test_partners_teams_are_not_ties():
    shares, ties, split = match_win_shares({"match_wins_k": np.array([[0, 4], [0, 4]])},
                                           "partners")
    assert shares.tolist() == [2.0, 2.0] and ties == 0 and split


def test_older_aggregates_keep_full_wins_and_say_so(validator):
    cfg, agg = _lowest_match_aggregates()
    del agg["match_wins_k"]
    s = build_summary(agg, cfg, seed=1, games=3)
    m = s["matches"]
    assert m["ties"] is None and m["win_share_convention"] == "full"
    assert [r["wins"] for r in m["win_share_by_seat"]] == [3, 2, 1]
    assert list(validator.iter_errors(s)) == []
    assert "full win: older aggregates" in format_text(s)


def test_text_names_every_policys_win_rate_when_seats_differ():
    cfg = load_config("classic", ["seats=[strategic,random,random,random]"])
    agg = empty_aggregates(compile_config(cfg))
    agg["counts"][:] = [100, 100, 0, 0]
    agg["turns_hist"][30] = 100
    agg["wins_seat"][:] = [40, 20, 20, 20]
    agg["wins_pos"][:] = [25, 25, 25, 25]
    text = format_text(build_summary(agg, cfg, seed=1, games=100))
    assert "strategic wins    40.0% (95% CI" in text and "(1 seat; fair share 25.0%)" in text
    assert "random wins       60.0% (95% CI" in text and "(3 seats; fair share 75.0%)" in text
    one = load_config("classic")
    assert "random wins" not in format_text(build_summary(agg, one, seed=1, games=100))


def test_a_mercy_edition_prints_its_knock_out_share(tmp_path):
    """`unosim run no_mercy` answers "how often does the mercy rule knock someone out"
    with the share of rounds and its interval, at the terminal and in its report;
    classic prints no such line."""
    out = tmp_path / "nm"
    r = invoke("run", "no_mercy", "--games", "400", "--jobs", "1", "--out", str(out), "-q")
    assert r.exit_code == 0, r.output
    assert "The mercy rule (25 cards) knocked someone out in " in (out / "report.md").read_text()
    s = json.loads((out / "summary.json").read_text())
    share = 100 * s["mercy"]["rounds_with_an_out"]
    line = next(x for x in r.stdout.splitlines() if x.startswith("  mercy knock-outs"))
    shown = float(line.split(" in ")[1].split("%")[0])
    assert abs(shown - share) < 0.06 and "% (95% CI " in line and "25 cards" in line
    plain = invoke("run", "classic", "--games", "50", "--jobs", "1", "--out",
                   str(tmp_path / "c"), "--no-report", "-q")
    assert "knock-out" not in plain.stdout
