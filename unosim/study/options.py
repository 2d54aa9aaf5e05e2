"""The run options of every study, as one frozen value instead of threaded keywords."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from unosim.rules.limits import DEFAULT_MAX_GAMES

if TYPE_CHECKING:
    from unosim.analysis.paired import Margin

__all__ = ["GamesError", "StudyError", "StudyOptions", "games_and_cap"]


class StudyError(ValueError):
    """A study that cannot run as asked: its message is one line (the CLI prints it)."""


class GamesError(StudyError):
    """``games`` and ``precision`` (or ``max_games``) given together: a one-line reason."""


def games_and_cap(games: int | None, precision: float | None, max_games: int | None,
                  spell: Callable[[str], str] = str) -> tuple[int | None, int | None]:
    """(games, cap): ``games`` and ``precision`` exclude each other, and ``max_games``
    only caps a precision target (default `DEFAULT_MAX_GAMES`).

    The one games-or-precision rule of the CLI and the API; ``spell`` names a
    parameter in the message (the CLI's ``--max-games``, the API's ``max_games``).

    >>> games_and_cap(300, None, None)
    (300, None)
    >>> games_and_cap(None, 0.1, None) == (None, DEFAULT_MAX_GAMES)
    True
    >>> try:
    ...     games_and_cap(300, 0.1, None, spell=lambda n: "--" + n.replace("_", "-"))
    ... except GamesError as exc:
    ...     print(exc)
    give --games or --precision, not both (--max-games caps a precision run)
    """
    if precision is None:
        if max_games is not None:
            raise GamesError(f"{spell('max_games')} caps {spell('precision')}; use "
                             f"{spell('games')} for a fixed count")
        return games, None
    if games is not None:
        raise GamesError(f"give {spell('games')} or {spell('precision')}, not both "
                         f"({spell('max_games')} caps a precision run)")
    if not 0 < precision < math.inf:
        raise GamesError(f"{spell('precision')} must be a number above 0, not {precision!r}")
    return None, DEFAULT_MAX_GAMES if max_games is None else max_games


def _no_margins() -> Mapping[str, Margin]:
    return MappingProxyType({})


@dataclass(frozen=True)
class StudyOptions:
    """How a study runs: everything but what it runs (configs, axes, policies, seed).

    ``games`` or ``precision`` (then ``max_games`` caps it) size the runs;
    ``jobs``, ``backend``, ``scheduler``, ``chunk_size`` and ``progress`` go
    to the runner; ``resume``, ``force`` and ``reuse`` decide what a study's
    out dir may hold (`unosim.study.runs.check_study`); ``margins`` are the
    practical margins of the decisions, by metric key; ``on_warning`` hears
    the runner's warnings.

    >>> o = StudyOptions(games=300, jobs=2)
    >>> o.games_for(default=1000), o.with_(precision=0.1, games=None).games_for(1000)
    (300, 10000000)
    """

    games: int | None = None
    precision: float | None = None
    max_games: int | None = None
    jobs: int | None = None
    backend: str = "loky"
    scheduler: str | None = None
    chunk_size: int | None = None
    resume: bool = False
    force: bool = False
    reuse: bool = False
    progress: bool = False
    margins: Mapping[str, Margin] = field(default_factory=_no_margins)
    on_warning: Callable[[str], None] | None = None

    def __post_init__(self) -> None:
        games_and_cap(self.games, self.precision, self.max_games)  # refuse both at once
        object.__setattr__(self, "margins", MappingProxyType(dict(self.margins)))

    @property
    def cap(self) -> int | None:
        """The most games a precision target may run (None: no target)."""
        return games_and_cap(self.games, self.precision, self.max_games)[1]

    def games_for(self, default: int) -> int:
        """The games to run: ``games`` (``default`` if unset) or a precision run's cap."""
        cap = self.cap
        return cap if cap is not None else default if self.games is None else self.games

    def with_(self, **changes: Any) -> StudyOptions:
        """A copy with ``changes`` (dataclasses.replace, checked again)."""
        return replace(self, **changes)

    def runner_only(self) -> StudyOptions:
        """These options without games, targets, margins or out-dir rules: a run kept in
        memory that continues nothing (a league's pilot)."""
        return StudyOptions(**self.runner())

    def runner(self) -> dict[str, Any]:
        """The keywords the runner (`unosim.run.run_simulation`, `run_lockstep`) takes
        from these options."""
        return {"jobs": self.jobs, "backend": self.backend, "scheduler": self.scheduler,
                "chunk_size": self.chunk_size, "progress": self.progress,
                "on_warning": self.on_warning}
