"""The wheel is a complete install: built from the package alone, installed (not
editable) into a fresh venv, ``unosim`` runs the built-in configs from an empty
folder, so nothing is found through the checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

import unosim

SOURCE = Path(unosim.__file__).resolve().parent
ROOT = SOURCE.parent
CACHES = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc")
pytestmark = pytest.mark.slow  # a wheel build and a venv: tens of seconds


def package_files() -> set[str]:
    """Every file of the package as the wheel should hold it (``unosim/...``)."""
    return {
        p.relative_to(ROOT).as_posix()
        for p in SOURCE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".nbi", ".nbc")
    }


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run a command; its output is the failure message when it fails."""
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, f"{' '.join(map(str, args))}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a copy of the project: a build must not touch the checkout."""
    tmp = tmp_path_factory.mktemp("build")
    src = tmp / "src"
    shutil.copytree(SOURCE, src / "unosim", ignore=CACHES)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp / "dist", src,
        cwd=tmp)
    (found,) = (tmp / "dist").glob("unosim-*.whl")
    return found


def test_wheel_holds_every_package_file(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    missing = sorted(package_files() - names)
    assert not missing, f"not in the wheel: {missing}"
    for folder in ("configs", "configs/editions"):
        assert any(n.startswith(f"unosim/rules/{folder}/") and n.endswith(".yaml")
                   for n in names)


def test_installed_wheel_runs_builtin_configs(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python, bin_dir = venv / "bin" / "python", venv / "bin"
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
        "-q", wheel, cwd=tmp_path)
    # The dependencies come from this venv's site-packages, appended after the
    # new venv's own: its editable-install hook (a .pth inside it) is not run.
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                    cwd=tmp_path).strip())
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    # What this proves is the package (entry point, package data); the compiled engine
    # is the rest of the suite's. Compiling it again at the wheel's new path took about
    # 90 s of CI, so the wheel's engine runs as plain Python here.
    env["NUMBA_DISABLE_JIT"] = "1"

    where = run(python, "-c", "import unosim; print(unosim.__file__)", cwd=empty, env=env)
    assert Path(where.strip()).is_relative_to(venv), where
    listing = run(bin_dir / "unosim", "editions", cwd=empty, env=env)
    assert listing.split()[:2] == ["name", "title"] and "disney_wish" in listing
    for config in ("classic", "stacking"):
        out = empty / config
        # 20 games: the engine runs as plain Python here, and what is tested is the package
        run(bin_dir / "unosim", "run", config, "--games", "20", "--no-report", "--quiet",
            "--out", out, cwd=empty, env=env)
        assert (out / "summary.json").is_file()
    assert sorted(p.name for p in empty.iterdir()) == ["classic", "stacking"]
