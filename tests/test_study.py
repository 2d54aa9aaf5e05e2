"""The study layer: one frozen options value, one games-or-precision rule."""

from __future__ import annotations

import dataclasses

import pytest

from unosim.rules.limits import DEFAULT_MAX_GAMES
from unosim.study import StudyOptions
from unosim.study.options import GamesError, games_and_cap


def test_options_are_frozen_and_hold_their_margins_read_only():
    margins = {"turns_mean": object()}
    o = StudyOptions(games=300, margins=margins)  # type: ignore[dict-item]
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.games = 10  # type: ignore[misc]
    margins.clear()  # the caller's dict is copied
    assert list(o.margins) == ["turns_mean"]
    with pytest.raises(TypeError):
        o.margins["x"] = 1  # type: ignore[index]


def test_games_or_precision_is_one_rule():
    assert StudyOptions().games_for(1000) == 1000
    assert StudyOptions(games=5).games_for(1000) == 5
    assert StudyOptions(precision=0.1).games_for(1000) == DEFAULT_MAX_GAMES
    assert StudyOptions(precision=0.1, max_games=700).games_for(1000) == 700
    with pytest.raises(GamesError, match="not both"):
        StudyOptions(games=5, precision=0.1)
    with pytest.raises(GamesError, match="max_games caps precision"):
        games_and_cap(None, None, 10)
    with pytest.raises(GamesError, match="above 0"):
        StudyOptions(precision=0.0)


def test_runner_keywords_come_from_the_options():
    o = StudyOptions(jobs=2, backend="serial", chunk_size=50, progress=True)
    assert o.runner() == {"jobs": 2, "backend": "serial", "scheduler": None, "chunk_size": 50,
                          "progress": True, "on_warning": None}
    assert o.with_(jobs=1).jobs == 1 and o.jobs == 2


def test_config_of_a_mapping_leaves_no_temporary_folder(tmp_path, monkeypatch):
    """The mapping is read from a temporary YAML file; its folder goes when the call
    returns, and when it fails."""
    import tempfile

    import unosim
    from unosim.rules.errors import ConfigError

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert unosim.config({"extends": "classic", "name": "six", "players": 6}).players == 6
    assert unosim.config(unosim.config("classic"), set={"players": 3}).players == 3
    with pytest.raises(ConfigError, match="a mapping"):
        unosim.config({"extends": "classic", "players": 1})
    assert list(scratch.iterdir()) == []
