"""`make typecheck` holds rules/, analysis/ and study/ to every flag of ``mypy --strict``.

mypy cannot take ``strict = true`` per module (it turns strict mode on for the
whole package), so pyproject.toml lists the flags; this keeps that list equal
to what the installed mypy's --strict means.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from mypy.main import define_options

import unosim

STRICT_MODULES = {"unosim.rules", "unosim.rules.*", "unosim.analysis", "unosim.analysis.*",
                  "unosim.study", "unosim.study.*"}


def test_strict_modules_get_every_strict_flag() -> None:
    pyproject = Path(unosim.__file__).parents[1] / "pyproject.toml"
    mypy = tomllib.loads(pyproject.read_text())["tool"]["mypy"]
    block = next(o for o in mypy["overrides"] if STRICT_MODULES <= set(o["module"]))
    _, _, strict_flags = define_options()
    missing = [(flag, value) for flag, value in strict_flags
               if block.get(flag, mypy.get(flag)) != value]
    assert not missing, f"add to the strict override in pyproject.toml: {missing}"
