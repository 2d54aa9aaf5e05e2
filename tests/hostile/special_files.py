"""Checks shared by every command that writes a user-named output (``play --out``,
``view --out``): a special file is written as a stream, never replaced."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

Write = Callable[[Path], Any]  # runs the command with ``--out PATH``; click's Result


def one_line_error(res: Any, *words: str) -> str:
    """Exit 2, no traceback, one ``unosim: error:`` line holding ``words``."""
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("unosim: error: "), res.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def device_node_is_written_not_replaced(tmp_path: Path, write: Write) -> None:
    """A private copy of /dev/null's node (char 1:3), made inside the temp dir."""
    node = tmp_path / "null"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    res = write(node)
    if res.exit_code != 0:  # a temp dir mounted nodev refuses to open it: still one line
        one_line_error(res, str(node))
    assert stat.S_ISCHR(node.lstat().st_mode)


def full_device_is_one_line_and_stays(tmp_path: Path, write: Write) -> None:
    """A private copy of /dev/full's node (char 1:7): writing fails, nothing is replaced."""
    node = tmp_path / "full"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    one_line_error(write(node), str(node))
    assert stat.S_ISCHR(node.lstat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["full"]  # no temp file left either
