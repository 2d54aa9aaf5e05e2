"""``python -m unosim``: the same entry point as the ``unosim`` command.

The command's modules are imported here, inside a guard: Ctrl-C while they
load (a second or so on a cold disk) is one ``unosim: error: interrupted``
line and exit 130, as it is once a command runs, never an import traceback.
"""

import sys


def main() -> None:
    """Import the command group, then run it."""
    try:
        from unosim.cli import main as group
    except KeyboardInterrupt:
        sys.stderr.write("unosim: error: interrupted\n")
        raise SystemExit(130) from None
    group(prog_name="unosim")


if __name__ == "__main__":
    main()
