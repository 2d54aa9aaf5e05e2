"""``python -m unosim``: the same entry point as the ``unosim`` command."""

from unosim.cli import main

main(prog_name="unosim")
