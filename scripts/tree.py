"""The package tree with line counts: each folder's total, then its modules.

    python scripts/tree.py            # unosim/
    python scripts/tree.py tests      # any folders, relative to the checkout

Lines are physical lines of ``.py`` files (blank lines, comments and docstrings
included), so two trees compare like for like. The largest module is named at the end.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def folder_total(folder: Path) -> int:
    return sum(lines(p) for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def tree(folder: Path, depth: int = 0) -> list[str]:
    """``folder``'s line, then its modules and subfolders, indented."""
    pad = "  " * depth
    out = [f"{pad}{folder.name}/  {folder_total(folder):,} lines"]
    for p in sorted(folder.iterdir()):
        if p.is_dir() and p.name != "__pycache__" and any(p.rglob("*.py")):
            out += tree(p, depth + 1)
        elif p.suffix == ".py":
            out.append(f"{pad}  {p.name:<24} {lines(p):>6,}")
    return out


def largest(folders: list[Path]) -> tuple[int, Path]:
    return max((lines(p), p) for f in folders for p in f.rglob("*.py")
               if "__pycache__" not in p.parts)


def main(argv: list[str]) -> int:
    folders = [ROOT / a for a in (argv or ["unosim"])]
    for folder in folders:
        if not folder.is_dir():
            print(f"tree: error: no folder {folder}", file=sys.stderr)
            return 2
        print("\n".join(tree(folder)))
    n, path = largest(folders)
    print(f"largest module: {path.relative_to(ROOT)} ({n:,} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
