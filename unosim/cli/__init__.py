"""cli layer: the only code that prints to the terminal or exits."""

from unosim.cli.app import main

__all__ = ["main"]
