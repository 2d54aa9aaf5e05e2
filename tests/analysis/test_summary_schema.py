"""summary.json has a JSON Schema (draft 2020-12), and every summary the project writes meets it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from unosim.analysis.summary import (
    SCHEMA_PATH,
    SCHEMA_VERSION,
    Matches,
    Mercy,
    SpecialWild,
    Summary,
    summarize_run,
)
from unosim.engine.kernel import state as L
from unosim.rules.config import load_config
from unosim.run import run_simulation

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def errors(validator: Draft202012Validator, summary: dict) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(summary)]


def test_schema_names_the_current_version_and_causes(validator):
    props = validator.schema["properties"]
    assert props["schema_version"] == {"const": SCHEMA_VERSION}
    assert tuple(props["draws_by_cause"]["required"]) == L.CAUSES


def test_the_typed_summary_has_the_schemas_fields(validator):
    """`Summary` (and its nested documents) name the schema's properties, no more, no
    fewer: the type the readers are checked against is the contract they read."""
    props = validator.schema["properties"]
    assert list(Summary.__annotations__) == list(props)
    assert set(Matches.__annotations__) == set(props["matches"]["properties"])
    assert set(SpecialWild.__annotations__) == set(props["special"]["properties"])
    assert set(Mercy.__annotations__) == set(props["mercy"]["properties"])


@pytest.mark.parametrize(("config", "overrides", "games"), [
    ("classic", [], 300),
    ("classic", [], 1),  # one round: no spread, so null statistics
    ("match", ["target=200"], 30),
    ("match", ["scoring=lowest", "target=200"], 30),
    ("match", ["scoring=elimination", "target=200"], 30),
    ("match", ["scoring=partners", "target=300"], 30),
    ("encanto", [], 200),  # a special wild
    ("disney_wish", [], 200),
    ("encanto", ["players=3", "seats=[strategic,random,strategic]"], 200),  # mixed seats
    ("chaos", ["players=6", "policy=strategic"], 200),
], ids=["round", "one-round", "match", "lowest", "elimination", "partners", "encanto",
        "disney_wish", "mixed-seats", "chaos-strategic"])
def test_every_kind_of_run_validates(validator, config, overrides, games):
    cfg = load_config(config, overrides)
    summary = summarize_run(run_simulation(cfg, games=games, seed=5, jobs=1, progress=False))
    assert errors(validator, summary) == []


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.stem)
def test_golden_summaries_validate(validator, path):
    assert errors(validator, json.loads(path.read_text())) == []


FLAWS = {
    "a key missing": lambda s: s.pop("turns"),
    "another schema version": lambda s: s.update(schema_version=2),
    "an unknown key": lambda s: s.update(surprise=1),
    "a rate above 1": lambda s: s["stalemates"].update(rate=1.5),
    "a win count missing": lambda s: s["win_rate_by_seat"][0].pop("wins"),
    "an unknown key in a win rate": lambda s: s["win_rate_by_seat"][0].update(extra=0),
    "a statistic as text": lambda s: s["turns"].update(mean="long"),
    "a draw cause missing": lambda s: s["draws_by_cause"].pop("wd4"),
    "an unknown mode": lambda s: s["config"].update(mode="tournament"),
    "a short config hash": lambda s: s.update(config_hash="abc"),
}


@pytest.mark.parametrize("flaw", FLAWS)
def test_an_invalid_summary_fails(validator, flaw):
    summary = json.loads((GOLDEN / "classic.json").read_text())
    FLAWS[flaw](summary)
    assert errors(validator, summary)
