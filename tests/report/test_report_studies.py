"""The committed studies answer from their own commands' verdicts, and the index repeats them.

Each study's README opens with the answer that ``scripts/studies.py`` builds
from the JSON results its commands saved (``reports/**/*.result.json``);
``reports/README.md`` repeats exactly that paragraph under the study's title.
Changing a saved verdict changes the answer, so the words come from the
verdicts, not from a sentence written once. ``--rewrite`` works from what is
committed, and says in one line what it needs when a result is missing.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cli_helpers import ROOT


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("studies_script", ROOT / "scripts" / "studies.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up by name
    spec.loader.exec_module(mod)
    return mod


S = _load_script()
NAMES = list(S.studies())


@pytest.fixture(autouse=True)
def no_chart_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building an answer must not rewrite a committed chart (the yardstick draws one)."""
    monkeypatch.setattr("unosim.report.dots.dots_chart",
                        lambda series, path, *a, **k: Path(path))


def _study(name: str) -> Any:
    """The study with its saved results loaded (every study's results are committed, so a
    missing one is a failure, not a skip)."""
    study = S.studies()[name]
    S.load_results(name, study)
    return study


def _headline(study: Any) -> str:
    return str(study.answer(study.steps)).split("\n\n")[0]


@pytest.mark.parametrize("name", NAMES)
def test_readme_and_index_open_with_the_answer_built_from_the_saved_verdicts(name: str):
    study = _study(name)
    first = _headline(study)
    assert S.answer_of(name) == first  # the README is what the saved results say
    index = (S.REPORTS / "README.md").read_text(encoding="utf-8")
    entry = index.split(f"## [{study.title}]({name}/README.md)\n\n", 1)[1].split("\n\n")[0]
    assert entry == first  # and the index repeats the study's own answer


def _turns_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in result["table"] if r["metric"] == "turns_mean" and r["verdict"]]


@pytest.mark.parametrize("name", ["house_rules", "editions"])
def test_a_compare_study_answers_from_its_decisions(name: str):
    study = _study(name)
    before = _headline(study)
    row = max(_turns_rows(study.steps[0].result), key=lambda r: abs(r["diff"]))
    name = S._name(row)
    verb = "lengthens" if row["verdict"] == "longer" else "shortens"
    assert f"{name} {verb} rounds by {S._pct(row)}" in before  # named with its size
    row["verdict"] = "not decided"
    after = _headline(study)
    assert f"{name} has no decided effect on round length" in after
    assert f"{name} {verb} rounds by" not in after


def test_the_stacking_answer_counts_the_cells_by_their_verdicts():
    study = _study("stacking")
    rows = [r for s in study.steps for r in _turns_rows(s.result)]
    longer = sum(r["verdict"] == "longer" for r in rows)
    before = _headline(study)
    assert f"of the {len(rows)} cells run" in before or "none of the" in before
    assert "defender`) are the ones" not in before  # no claim beyond the cells run
    first = _turns_rows(study.steps[0].result)
    n = longer - sum(r["verdict"] == "longer" for r in first) + len(first)
    for r in first:
        r["verdict"] = "longer"
    assert f"longer in {n} of the {len(rows)} cells run" in _headline(study)


def test_the_first_player_answer_counts_the_sizes_whose_interval_clears_one():
    study = _study("first_player")
    rows = [r for r in study.steps[0].result["table"] if r["metric"] == "first_player_vs_fair"]
    above = sum(r["low"] > 1 for r in rows)
    assert f"at {above} of the {len(rows)} table sizes" in _headline(study)
    next(r for r in rows if r["low"] > 1)["low"] = 0.99
    assert f"at {above - 1} of the {len(rows)} table sizes" in _headline(study)


def test_the_first_player_answer_calls_a_size_largest_only_when_its_interval_clears():
    study = _study("first_player")
    rows = [r for r in study.steps[0].result["table"] if r["metric"] == "first_player_vs_fair"]
    top = max(rows, key=lambda r: r["value"])
    others = [r for r in rows if r is not top]
    clears = all(r["high"] < top["low"] for r in others)
    head = _headline(study)
    assert (f"the edge is largest at {top['players']} players" in head) == clears
    runner = max(others, key=lambda r: r["value"])
    runner["high"] = top["low"]  # the intervals now touch: no ranking is established
    head = _headline(study)
    assert "the edge is largest" not in head
    assert (f"the largest estimate is at {top['players']} players, not told apart by the "
            f"intervals from") in head and str(runner["players"]) in head


def test_the_yardstick_answer_follows_the_intervals():
    study = _study("yardstick")
    table = [s for s in study.steps if s.what == "table: three random, classic"][0]
    rate = table.result["summary"]["win_rate_by_policy"]["ismcts"]
    words = ("wins more than" if rate["low"] > 0.25 else "wins less than"
             if rate["high"] < 0.25 else "is not told apart from")
    head = _headline(study)
    assert f"{words} the fair 25% against " in head and "three random at classic" in head
    rate["low"], rate["high"] = 0.2, 0.3
    assert "is not told apart from the fair 25% against three random at classic" in \
        _headline(study)


def test_rewrite_says_in_one_line_what_a_missing_result_needs(tmp_path: Path, monkeypatch,
                                                              capsys):
    monkeypatch.setattr(S, "REPORTS", tmp_path / "reports")
    assert S.main(["--rewrite", "first_player"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(
        "studies.py: error: --rewrite first_player: no saved result "
        "reports/first_player/sweep.result.json")
    assert "python scripts/studies.py first_player" in err[0]
    (tmp_path / "reports" / "yardstick").mkdir(parents=True)
    assert S.main(["--rewrite", "yardstick", "first_player"]) == 2  # checked before writing
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert not (tmp_path / "reports" / "yardstick" / "README.md").exists()
    assert not (tmp_path / "reports" / "README.md").exists()


def test_a_study_reruns_over_pages_committed_without_a_manifest(tmp_path: Path, monkeypatch):
    """A folder of pages written before study folders carried study.json is the script's
    own: it is cleared so the command's --force does not refuse it; a folder with a
    manifest is left for --force (or --reuse) to handle."""
    import subprocess

    monkeypatch.setattr(S, "REPORTS", tmp_path / "reports")
    old = tmp_path / "reports" / "stacking" / "random"
    old.mkdir(parents=True)
    (old / "sweep.md").write_text("old page")
    kept = tmp_path / "reports" / "stacking" / "strategic"
    kept.mkdir(parents=True)
    (kept / "study.json").write_text("{}")
    seen: list[bool] = []

    def fake_run(cmd, **kw):
        out = tmp_path / cmd[cmd.index("--out") + 1]
        seen.append(out.exists())
        return subprocess.CompletedProcess(cmd, 0, "{}", "")

    monkeypatch.setattr(S.subprocess, "run", fake_run)
    monkeypatch.chdir(tmp_path)
    steps = {s.part: s for s in S.studies()["stacking"].steps}
    S.run_step(steps["stacking/random"], 1.0, lambda m: None)
    S.run_step(steps["stacking/strategic"], 1.0, lambda m: None)
    assert seen == [False, True]
    assert (kept / "study.json").is_file()


def test_the_skill_answer_names_every_rule_set_it_asks_about():
    """The title asks about stacking and each other rule set: the first sentence answers
    for each of them, including those it does not call either way."""
    study = _study("skill")
    first = _headline(study).split(". ")[0]
    for rs in S.RULE_SETS:
        if rs != "classic":
            assert rs in first, rs


def test_the_flip_answer_counts_the_tables_by_their_verdicts():
    study = _study("flip")
    compares = [s for s in study.steps if s.args[0] == "compare"]
    rows = [r for s in compares for r in _turns_rows(s.result)]
    longer = sum(r["verdict"] == "longer" for r in rows)
    assert f"longer than classic at {longer} of the {len(rows)} tables run" in \
        _headline(study)
    for r in rows:
        r["verdict"] = "longer"
    assert _headline(study).startswith(
        f"**Yes: UNO Flip makes rounds longer than classic at {len(rows)} of the "
        f"{len(rows)} tables run;")


def test_the_dark_share_is_a_ratio_of_sums_with_an_interval_around_it():
    share, low, high = S._dark_share(S._aggregate(
        [[10, 10, 5, 1, 1], [20, 20, 0, 0, 0], [30, 30, 15, 2, 1]]))
    assert share == pytest.approx(20 / 60) and low < share < high
    assert S._dark_share(S._aggregate([[10, 10, 5, 1, 1], [20, 20, 10, 1, 1]]))[1:] == \
        pytest.approx((0.5, 0.5))  # every round half dark: no spread


def test_traced_flip_counts_agree_with_the_rounds_own_turn_counts():
    """The traced step counts each game's round: its `turn` events are its turns (as its
    `end` event counts them; a mismatch stops the study), the dark ones among them, its
    flips. 30 games of four random seats flip at least once."""
    step = next(s for s in S.flip_steps() if s.traced and "4 players, random" in s.what)
    step.games = 30
    counts = S.trace_counts(step, 1.0)
    assert counts["games"] == counts["rounds"] == 30
    assert sum(counts["turns_with_flip"]) + sum(counts["turns_without_flip"]) == 30
    assert sum(counts["flips"]) == 30 and sum(counts["turns_with_flip"]) > 0
    assert 0 < counts["sums"]["dark"] < counts["sums"]["turns"]
    assert counts["ends_dark"] <= sum(counts["turns_with_flip"])
