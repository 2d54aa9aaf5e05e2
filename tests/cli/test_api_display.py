"""What a notebook shows of the API's results: short reprs, HTML, figures, labelled tables.

One small run, comparison, sweep and league are shared by the tests (500
games each, one process): the checks are about what is shown, not the numbers.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

import unosim
from unosim.analysis.estimates import METRIC_BY_KEY
from unosim.report.format import fmt_diff, fmt_metric

GAMES = 500
MARKDOWN = re.compile(r"\*|`|__|\[[^]]*\]\(")  # emphasis, code, links


@pytest.fixture(scope="module")
def results():
    return {
        "run": unosim.run("classic", games=GAMES, jobs=1),
        "compare": unosim.compare(["classic", "stacking"], games=GAMES, jobs=1),
        "sweep": unosim.sweep("classic", vary={"players": [2, 3],
                                               "house_rules.jump_in": [False, True]},
                              games=GAMES, jobs=1),
        "league": unosim.league(["random", "greedy"], "classic", players=3, games=GAMES,
                                jobs=1),
    }


def _objects(results):
    ls = results["league"]
    return {"Result": results["run"], "Comparison": results["compare"],
            "Sweep": results["sweep"], "League": ls.leagues[0], "LeagueSet": ls}


def test_reprs_are_short_and_carry_the_headline_figures(results):
    objs = _objects(results)
    for name, obj in objs.items():
        text = repr(obj)
        assert len(text) < 800, (name, len(text))
        assert "array(" not in text and "Run(" not in text, name
    c = results["compare"]
    text = repr(c)
    m = METRIC_BY_KEY["turns_mean"]
    assert all(lab in text for lab in c.labels)
    assert fmt_metric(c.values["turns_mean"][1], m) in text
    assert fmt_diff(c.diffs["turns_mean"][1], m)[1].split(" to ")[0] in text
    assert str(c.runs[0].games) in text and "paired" in text
    s = results["sweep"]
    assert all(a in repr(s) for a in s.answers()) and "4 cells" in repr(s)
    lg = results["league"].leagues[0]
    assert all(f"{n}:" in repr(lg) for n in lg.names) and "Elo (95% CI" in repr(lg)


def test_repr_html_is_well_formed_with_the_numbers_and_their_intervals(results):
    for name, obj in _objects(results).items():
        page = obj._repr_html_()
        ET.fromstring(page)  # well formed: every tag closed, every & escaped
        assert "95% CI" in page, name
    c = results["compare"]
    page = c._repr_html_()
    m = METRIC_BY_KEY["turns_mean"]
    for i in range(2):
        assert fmt_metric(c.values["turns_mean"][i], m) in page
    diff, ci, _ = fmt_diff(c.diffs["turns_mean"][1], m)
    assert f"{diff} (95% CI {ci})" in page
    assert c.verdicts[0][0].replace("'", "&#x27;") in page
    r = results["run"]
    assert str(r.turns) in r._repr_html_()
    s = results["sweep"]
    cells = ET.fromstring(s._repr_html_()).findall(".//tbody/tr")
    assert len(cells) == len(s.cells)


def test_plot_returns_a_figure_that_displays_itself(results):
    objs = _objects(results)
    for name in ("Result", "Comparison", "Sweep", "LeagueSet"):
        fig = objs[name].plot()
        assert isinstance(fig, Figure) and fig.axes, name
        assert fig._repr_png_().startswith(b"\x89PNG"), name
    sweep = results["sweep"]
    assert isinstance(sweep.plot("first_player_win_rate"), Figure)
    with pytest.raises(ValueError, match="no effect"):
        sweep.plot("drawn_mean")


def test_the_comparison_plot_is_the_paired_difference_with_its_interval(results):
    c = results["compare"]
    fig = c.plot()
    ax = fig.axes[0]
    assert "change in mean turns" in ax.get_xlabel()
    d = c.diffs["turns_mean"][1]
    scale = 100 / c.values["turns_mean"][0].value
    assert f"{scale * d.diff:+.1f}" in [t.get_text() for t in ax.texts]  # the point, labelled
    left, right = ax.get_xlim()
    assert left <= scale * d.low < scale * d.high <= right  # the whole interval is drawn


def test_league_matrix_is_a_labelled_frame(results):
    lg = results["league"].leagues[0]
    m = lg.matrix()
    assert results["league"].matrix().equals(m)  # the LeagueSet of one rule set: its matrix
    assert isinstance(m, pd.DataFrame)
    assert m.index.name == "policy" and m.columns.names == ["measure", "opponent"]
    assert list(m.columns.get_level_values(0).unique()) == ["rate", "low", "high", "games"]
    rate = m["rate"]
    assert list(rate.index) == lg.names and list(rate.columns) == lg.names
    assert rate.loc["greedy", "random"] + rate.loc["random", "greedy"] == pytest.approx(
        1.0, abs=0.02)  # stalemates aside
    assert pd.isna(rate.loc["greedy", "greedy"])
    inside = ((m["low"] <= rate) & (rate <= m["high"])).to_numpy()
    assert inside[~np.eye(len(lg.names), dtype=bool)].all()
    assert str(m["games"].dtypes.iloc[0]) == "Int64"
    assert int(m["games"].loc["greedy", "random"]) == 2 * GAMES  # both 2-player seatings


def test_api_verdicts_carry_no_markdown(results):
    ls = results["league"]
    sentences = ([v for vs in results["compare"].verdicts for v in vs]
                 + results["sweep"].answers()
                 + [v for vs in ls.verdicts() for v in vs]
                 + [v for lg in ls.to_json()["leagues"] for v in lg["verdicts"]]
                 + ls.moves)
    assert sentences
    for v in sentences:
        assert not MARKDOWN.search(v), v
    lg = ls.leagues[0]
    # the page keeps its emphasis; both come from the same decisions
    assert "**greedy**" in lg.sentences[0]
    assert lg.verdicts() == [s.replace("**", "") for s in lg.sentences]


def test_table_columns_have_their_types(results):
    t = results["league"].table()
    assert str(t["n"].dtype) == "int64" and str(t["players"].dtype) == "int64"
    assert t["rule"].isna().all()  # no --vary: there is no rule set to name
    assert t.loc[t.measure.isin(["rating", "win_rate_per_seat"]), "opponent"].isna().all()
    assert (t.loc[t.measure == "head_to_head", "players"] == 2).all()
    assert (t.loc[t.measure == "rating", "players"] == 3).all()
    assert str(results["run"].frame()["n"].dtype) == "int64"
    for col in ("games", "rounds", "seed"):
        assert str(results["compare"].table()[col].dtype) == "int64", col


def test_leagues_of_several_rule_sets_name_them():
    ls = unosim.league(["random", "greedy"], players=3, games=300, jobs=1,
                       vary={"house_rules.jump_in": [False, True]})
    text = repr(ls)
    assert "jump-in off: League" in text and "jump-in on: League" in text
    ET.fromstring(ls._repr_html_())
    assert isinstance(ls.plot(), Figure)
    t = ls.table()
    assert list(t["rule"].unique()) == ["off", "on"] and str(t["n"].dtype) == "int64"
    m = ls.matrix()
    assert m.index.names == ["rule", "policy"] and m.loc["on"].equals(ls.leagues[1].matrix())


def test_dir_offers_the_api_not_the_package_s_own_imports():
    names = dir(unosim)
    assert set(unosim.__all__) <= set(names)
    assert not {"sys", "types", "importlib", "Any", "annotations"} & set(names)
