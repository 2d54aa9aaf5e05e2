"""``league``'s runs: policies in balanced seatings on duplicate deals, then rated.

Every seating is one config (the base config with ``seats`` set) and all of
them play the same games of one seed in lockstep (duplicate deals); beside
them the 2-player head-to-head and the strongest policy against ``random``
players. The design is `unosim.analysis.seating`'s, the ratings
`unosim.analysis.ratings`', the page `unosim.report.league`'s.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from unosim.analysis.paired import PairMoments
from unosim.analysis.ratings import Table, Z, rate_policies
from unosim.analysis.seating import seatings
from unosim.analysis.summary import match_win_shares
from unosim.report.grid import Axis, build_cells
from unosim.report.league import (
    PILOT_GAMES,
    ROUND_TO,
    League,
    LeagueSet,
    decide,
    design_text,
)
from unosim.report.runs import Run
from unosim.rules.config import (
    ConfigError,
    GameConfig,
    config_to_dict,
    load_config,
    name_slug,
    validate_config,
)
from unosim.run.documents import PilotStop
from unosim.study.options import StudyError, StudyOptions
from unosim.study.runs import Identity, cell_dirs, run_paired, study_dir, study_identity

# A POLICY argument: a name, or a mapping ``{policy: NAME, params: {...}}``.
Seat = str | Mapping[str, object]

__all__ = ["LeagueError", "Seat", "check_options", "identity", "league", "refuse_seat_keys",
           "run_league", "table_configs", "with_seats"]


class LeagueError(StudyError):
    """A league that cannot be played as asked (the message is one line)."""


def _label(seat: object) -> str:
    return str(seat)


def with_seats(base: GameConfig, policies: Sequence[Seat], seats: Sequence[int],
               players: int, tag: str) -> GameConfig:
    """``base`` with ``policies`` in ``seats`` (indices into ``policies``) at ``players``."""
    data = config_to_dict(base)
    data.update(players=players, seats=[policies[i] for i in seats],
                name=f"{base.name}-{tag}"[:60])
    return validate_config(data)


def _table(run: Run, seats: tuple[int, ...]) -> Table:
    """A run's wins by seat: rounds (matches in match mode, a shared win split)."""
    agg = run.aggregates
    if run.cfg.mode == "match":
        wins = match_win_shares(agg, run.cfg.scoring)[0]
        games = int(agg["counts"][0])
    else:
        wins, games = agg["wins_seat"], run.rounds
    return Table(seats, tuple(float(w) for w in wins), games)


def refuse_seat_keys(keys: Sequence[str], what: str) -> None:
    """The seatings set ``seats``: a key that sets them too would be silently overridden."""
    for key in keys:
        if key.split(".")[0] in ("seats", "policy"):
            raise LeagueError(f"{what} {key}: a league seats the policies itself (name them "
                              "as POLICY arguments instead)")


def check_options(players: object, overrides: Sequence[str], vary: Axis | None) -> None:
    """Refuse what a league would silently override: a table size that is not one, a
    ``--set`` or ``--vary`` of the seats, ``--players`` beside ``--vary players``."""
    if players is not None and (isinstance(players, bool) or not isinstance(players, int)
                                or players < 2):
        raise LeagueError(f"players must be a whole number of at least 2, got {players!r}")
    refuse_seat_keys([o.split("=", 1)[0].strip() for o in overrides], "--set")
    if vary is not None:
        refuse_seat_keys([vary.key], "--vary")
        if vary.key == "players" and players is not None:
            raise LeagueError("give the table size once: --players or --vary players=..., "
                              "not both")


def run_league(
    config: str | Path,
    policies: Sequence[Seat],
    opts: StudyOptions,
    *,
    players: int | None = None,
    overrides: Sequence[str] = (),
    vary: Axis | None = None,
    seed: int | None = None,
    head_to_head: bool = True,
    out: str | Path | None = None,
    on_stage: Callable[[str], None] | None = None,
) -> LeagueSet:
    """Play the league of ``policies`` under ``config`` (per value of ``vary``) and rate them.

    ``policies`` are seat specs (a name, or ``{policy, params}``), in any
    order: they are sorted by label first. ``players`` is the table size
    (``None``: the config's; with ``vary`` over ``players``, each value's).
    ``opts.precision`` X: a pilot of `PILOT_GAMES` games sizes the run so
    that every policy's win rate per seat has a 95% half-width of about X
    (capped by ``opts.max_games``). Raises ``ConfigError`` or `LeagueError`
    (one line) on bad input.
    """
    check_options(players, overrides, vary)
    if len(policies) < 2:
        raise LeagueError("a league needs at least two policies")
    base_cfgs = ([c.cfg for c in build_cells(config, [vary], overrides)] if vary is not None
                 else [load_config(config, overrides)])
    rules = vary.labels if vary is not None else [""]
    sizes = [players or c.players for c in base_cfgs]
    labels = [_label((with_seats(base_cfgs[0], policies, [i] * sizes[0], sizes[0], "probe")
                      .seats or [""])[0]) for i in range(len(policies))]
    if len(set(labels)) != len(labels):
        raise LeagueError(f"each policy may enter the league once (got {', '.join(labels)})")
    order = sorted(range(len(policies)), key=lambda i: labels[i])
    policies = [policies[i] for i in order]
    names = [labels[i] for i in order]
    seed = base_cfgs[0].seed if seed is None else seed
    designs = {n: seatings(len(names), n, seed) for n in sorted(set(sizes))}
    games = opts.games_for(base_cfgs[0].games)
    stop = None
    if opts.precision is not None:
        n0 = sizes[0]
        games, stop = _games_for(base_cfgs[0], policies, designs[n0], n0,
                                 precision=opts.precision, cap=games, seed=seed,
                                 on_stage=on_stage, opts=opts)
    leagues: list[League] = []
    for rule, base, n in zip(rules, base_cfgs, sizes, strict=True):
        root = None if out is None else Path(out) / "runs"
        if root is not None and vary is not None:
            root = root / name_slug(f"{vary.key.split('.')[-1]}-{vary.texts[len(leagues)]}")
        lg = _one_league(rule, base, policies, names, designs[n], n=n, games=games,
                         seed=seed, head_to_head=head_to_head, root=root,
                         on_stage=on_stage, opts=opts)
        lg.design = design_text(names, n, designs[n], seed)
        leagues.append(lg)
    ls = LeagueSet(leagues, vary, stop)
    decide(ls)
    return ls


def _games_for(base: GameConfig, policies: Sequence[Seat], rows: list[tuple[int, ...]], n: int,
               *, precision: float, cap: int, seed: int, on_stage: Callable[[str], None] | None,
               opts: StudyOptions) -> tuple[int, PilotStop]:
    """The games a precision target needs, from a pilot of the league's seatings."""
    pilot = min(PILOT_GAMES, cap)
    if on_stage:
        on_stage(f"pilot: {pilot:,} games per seating to size the run")
    cfgs = [with_seats(base, policies, s, n, f"s{i}") for i, s in enumerate(rows)]
    # the pilot keeps nothing on disk and continues nothing: only the runner's options
    runs, _, _ = run_paired(cfgs, opts.runner_only(), games=pilot, seed=seed)
    tables = [_table(r, s) for r, s in zip(runs, rows, strict=True)]
    need = 0.0
    for p in sorted({q for s in rows for q in s}):
        wins = math.fsum(t.wins[j] for t in tables for j, q in enumerate(t.seats) if q == p)
        trials = sum(t.games for t in tables for q in t.seats if q == p)
        rate = min(max(wins / trials, 1 / trials), 1 - 1 / trials)
        need = max(need, Z * Z * rate * (1 - rate) / precision**2 / (trials / pilot))
    games = int(min(cap, max(pilot, math.ceil(need / ROUND_TO) * ROUND_TO)))
    return games, {"precision": precision, "pilot": pilot, "max_games": cap, "games": games,
                   "met": need <= cap}


def _swap(row: Sequence[int], a: int, b: int) -> tuple[int, ...]:
    return tuple(b if p == a else a if p == b else p for p in row)


def _probe_pairs(rows: Sequence[tuple[int, ...]], k: int) -> dict[tuple[int, int], tuple[int, int]]:
    """For each pair of policies, one seating and the seating with the two swapped, to be
    compared game by game (each second seating used once: the moments are keyed by it)."""
    index = {r: i for i, r in enumerate(rows)}
    used: set[int] = set()
    out: dict[tuple[int, int], tuple[int, int]] = {}
    for a, b in itertools.combinations(range(k), 2):
        for i, row in enumerate(rows):
            j = index.get(_swap(row, a, b))
            if j is not None and j != i and j not in used and i not in used:
                out[(a, b)] = (i, j)
                used.add(j)
                break
    return out


def _same_games(x: Run, y: Run) -> bool:
    """Whether two runs' totals agree exactly (every aggregate, every bin)."""
    return x.aggregates.keys() == y.aggregates.keys() and all(
        np.array_equal(x.aggregates[key], y.aggregates[key]) for key in x.aggregates)


def _identical(rows: Sequence[tuple[int, ...]], runs: Sequence[Run], k: int,
               probes: dict[tuple[int, int], tuple[int, int]], moments: dict[int, PairMoments],
               ) -> list[tuple[int, int]]:
    """Pairs of policies that played alike: game by game in their probe pair of seatings,
    and in every seating's totals against the seating with the two swapped."""
    from unosim.engine.kernel.batch import NGF

    index = {r: i for i, r in enumerate(rows)}
    out = []
    for (a, b), (_, j) in probes.items():
        if not moments[j].identical(range(NGF)):
            continue
        if all(_same_games(runs[i], runs[index[_swap(row, a, b)]])
               for i, row in enumerate(rows) if _swap(row, a, b) in index):
            out.append((a, b))
    return out


def _one_league(rule: str, base: GameConfig, policies: Sequence[Seat], names: list[str],
                rows: list[tuple[int, ...]], *, n: int, games: int, seed: int, head_to_head: bool,
                root: Path | None, on_stage: Callable[[str], None] | None,
                opts: StudyOptions) -> League:
    """Run one rule set's league (+ head-to-head) in lockstep, then the vs-random stage."""
    k = len(names)

    def tag(s: Sequence[int], p: int) -> str:
        return f"{p}p-" + "-".join(names[i] for i in s)

    jobs = [(with_seats(base, policies, s, n, tag(s, n)), s, "league") for s in rows]
    note = ""
    if head_to_head and n != 2:
        try:
            jobs += [(with_seats(base, policies, s, 2, tag(s, 2)), s, "h2h")
                     for s in seatings(k, 2)]
        except ConfigError as exc:
            note = f"No head-to-head: this rule set cannot seat 2 players ({exc.message})."
    elif not head_to_head:
        note = "Head-to-head not run (--no-head-to-head)."
    probes = _probe_pairs(rows, k)
    if on_stage:
        on_stage(f"{rule + ': ' if rule else ''}{len(jobs)} seatings, {games:,} games each")
    runs, moments = _run(jobs, games, seed, root, opts, pairs=list(probes.values()))
    tables = [_table(r, s) for r, (_, s, g) in zip(runs, jobs, strict=True) if g == "league"]
    h2h = [_table(r, s) for r, (_, s, g) in zip(runs, jobs, strict=True) if g == "h2h"]
    if n == 2:
        h2h = tables
    same = _identical(rows, runs, k, probes, moments)
    groups = _tie_groups(same, k)
    ratings = rate_policies(names, tables, tied=groups)
    lg = League(rule, base, names, n, runs[0].games, seed, tables, ratings, h2h, note,
                runs=runs, identical=same)
    if same:
        lg.identical_how = (
            "Checked from the games: game by game (each game's turns, cards drawn, points "
            "and winning seat) in one seating against the seating with the two swapped, and "
            f"by the exact totals of every one of the {len(rows):,} seatings against its swap.")
    best = ratings.order()[0]
    if "random" in names and names[best] != "random":
        rnd = names.index("random")
        vs = [tuple(best if j == r else rnd for j in range(n)) for r in range(n)]
        vjobs = [(with_seats(base, policies, s, n, "vs-random-" + tag(s, n)), s, "vs")
                 for s in vs]
        if on_stage:
            on_stage(f"{rule + ': ' if rule else ''}{names[best]} against {n - 1} random "
                     f"players, {n} seatings")
        vruns, _ = _run(vjobs, games, seed, root, opts)
        lg.vs_random = [_table(r, s) for r, s in zip(vruns, vs, strict=True)]
        lg.best = best
        lg.runs += vruns
    return lg


def _tie_groups(pairs: Sequence[tuple[int, int]], k: int) -> list[list[int]]:
    """Policies joined by identical play, as groups of two or more."""
    parent = list(range(k))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for a, b in pairs:
        parent[max(root(a), root(b))] = min(root(a), root(b))
    groups: dict[int, list[int]] = {}
    for i in range(k):
        groups.setdefault(root(i), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def _run(jobs: list[tuple[GameConfig, tuple[int, ...], str]], games: int, seed: int,
         root: Path | None, opts: StudyOptions, pairs: Sequence[tuple[int, int]] = (),
         ) -> tuple[list[Run], dict[int, PairMoments]]:
    dirs = (cell_dirs(root, [c.name for c, _, _ in jobs]) if root is not None else None)
    # the probe pairs' per-game moments are checkpointed too, so --resume reuses their chunks
    runs, moments, _ = run_paired([c for c, _, _ in jobs], opts, games=games, seed=seed,
                                  dirs=dirs, pairs=pairs,
                                  pair_out=None if root is None else root / "paired")
    return runs, moments


def table_configs(config: str | Path, policies: Sequence[Seat], *, players: int | None = None,
                  overrides: Sequence[str] = (), vary: Axis | None = None,
                  head_to_head: bool = True) -> list[GameConfig]:
    """A config per seating of the league's tables (and head-to-head pairs): the engine
    variants it runs (a variant depends on which policies sit, not where)."""
    bases = ([c.cfg for c in build_cells(config, [vary], overrides)] if vary is not None
             else [load_config(config, overrides)])
    cfgs = []
    for base in bases:
        for n in dict.fromkeys([players or base.players, *([2] if head_to_head else [])]):
            try:
                cfgs += [with_seats(base, policies, row, n, "compile")
                         for row in seatings(len(policies), n, base.seed)]
            except ConfigError:  # the league says why (e.g. no 2-player table)
                continue
    return cfgs


def identity(base: GameConfig, policies: Sequence[Seat], opts: StudyOptions, *,
             players: int | None = None, vary: Axis | None = None, head_to_head: bool = True,
             seed: int | None = None) -> Identity:
    """The league's `study_identity`: rules, policies, table size, axis, games, seed."""
    return study_identity("league", config=base, policies=list(policies), players=players,
                          vary=[vary] if vary else [], head_to_head=head_to_head,
                          games=opts.games_for(base.games),
                          seed=base.seed if seed is None else seed, precision=opts.precision)


def league(
    config: str | Path,
    policies: Sequence[Seat],
    opts: StudyOptions,
    *,
    players: int | None = None,
    overrides: Sequence[str] = (),
    vary: Axis | None = None,
    seed: int | None = None,
    head_to_head: bool = True,
    out: Path | None = None,
    on_stage: Callable[[str], None] | None = None,
    prepare: Callable[[list[GameConfig]], object] | None = None,
    command: str | None = None,
    study: Identity | None = None,
) -> tuple[LeagueSet, list[Path]]:
    """The whole ``league``: options checked, the out dir checked and locked, the runs,
    then the page's files (without ``out``, none: no paths).

    ``study`` is the identity (default: `identity`); ``prepare`` gets every
    table's config once the out dir is held, before anything runs.
    """
    from unosim.report.league import write_league

    check_options(players, overrides, vary)  # before the out dir is touched
    with contextlib.ExitStack() as held:
        if out is not None:
            ident = study or identity(load_config(config, overrides), policies, opts,
                                      players=players, vary=vary, head_to_head=head_to_head,
                                      seed=seed)
            held.enter_context(study_dir(out, ident, opts))
        if prepare is not None:
            prepare(table_configs(config, policies, players=players, overrides=overrides,
                                  vary=vary, head_to_head=head_to_head))
        ls = run_league(config, policies, opts, players=players, overrides=overrides,
                        vary=vary, seed=seed, head_to_head=head_to_head, out=out,
                        on_stage=on_stage)
        paths = write_league(ls, out, command=command) if out is not None else []
    return ls, paths
