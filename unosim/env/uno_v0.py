"""PettingZoo's module convention: ``from unosim.env import uno_v0; uno_v0.env(config=...)``."""

from unosim.env.multi import env, raw_env

__all__ = ["env", "raw_env"]
