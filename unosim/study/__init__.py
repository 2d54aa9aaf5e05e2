"""study layer: every run a command asks for, between the commands and the pages.

``cli/`` and ``api.py`` parse their arguments into one frozen `StudyOptions`
and call a study here; the study runs the simulations (`unosim.run`), builds
the result objects (`unosim.report`'s ``Comparison``, ``Sweep``,
``LeagueSet``) and hands them back to be printed or written. ``report/``
itself only renders results, so a run option is threaded in one place.
"""

from unosim.study.options import StudyOptions

__all__ = ["StudyOptions"]
