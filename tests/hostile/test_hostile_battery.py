"""Issue 20's battery, second pass: variations of each class beyond the listed cases.

Each case is named after the variation it guards against. Commands run in
process (`click.testing.CliRunner`) where one error line and an exit code are
all there is to check.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

import unosim
from hostile.harness import cli, error_line
from hostile.special_files import (
    device_node_is_written_not_replaced,
    full_device_is_one_line_and_stays,
    one_line_error,
)
from unosim.cli import main
from unosim.rules.errors import ConfigError

pytestmark = pytest.mark.slow  # the battery's second pass: CLI runs on fifos, devices, edited plug-ins

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT / "examples" / "traces" / "seven_o_seed12.jsonl"
WAIT = 240.0  # seconds a reader may wait on a machine shared by eight


def _invoke(*args: str, input: str | bytes | None = None):  # noqa: ANN202 - click's Result
    return CliRunner().invoke(main, list(args), input=input)




# --- view --out: special files are written, never replaced (as play --out) -------------------
def _view_out(target: Path):  # noqa: ANN202 - click's Result
    return _invoke("view", str(TRACE), "--out", str(target), "--quiet")


def test_view_out_fifo_is_written_as_a_stream(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    res = _view_out(fifo)
    reader.join(WAIT)
    assert res.exit_code == 0, res.output
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert got and got[0].startswith(b"<!") and got[0].rstrip().endswith(b"</html>")


def test_view_out_symlink_to_a_fifo_keeps_both(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    link = tmp_path / "page.html"
    link.symlink_to(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    res = _view_out(link)
    reader.join(WAIT)
    assert res.exit_code == 0, res.output
    assert link.is_symlink() and stat.S_ISFIFO(fifo.lstat().st_mode) and got and got[0]


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a device node needs root")
def test_view_out_device_node_is_written_not_replaced(tmp_path: Path) -> None:
    """A private copy of /dev/null's node (char 1:3), made inside the temp dir."""
    device_node_is_written_not_replaced(tmp_path, _view_out)


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a device node needs root")
def test_view_out_full_device_is_one_line_and_stays(tmp_path: Path) -> None:
    """A private copy of /dev/full's node (char 1:7): writing fails, nothing is replaced."""
    full_device_is_one_line_and_stays(tmp_path, _view_out)


def test_view_out_regular_file_is_still_replaced_whole(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("old\n")
    assert _view_out(page).exit_code == 0
    assert page.read_text().startswith("<!") and [p.name for p in tmp_path.iterdir()] == [
        "page.html"]


# --- messages that mislead: a mapping's error names the mapping, not a temporary file --------
@pytest.mark.parametrize("make", [
    lambda: unosim.run({"players": 0}, games=10),
    lambda: unosim.config({"players": 3}, set={"players": 99}),
    lambda: unosim.config(unosim.config("classic"), set={"players": 99}),
], ids=["run-dict", "config-dict-set", "config-object-set"])
def test_api_mapping_config_error_names_the_mapping_not_a_temp_file(make) -> None:  # noqa: ANN001
    with pytest.raises(ConfigError) as err:
        make()
    assert "(a mapping)" in str(err.value) and "unosim-config-" not in str(err.value)


# --- view judges a trace as strictly as advise --trace (one reader) --------------------------
def _tampered(tmp_path: Path, line: int, old: str, new: str) -> Path:
    lines = TRACE.read_text().splitlines()
    assert old in lines[line]
    lines[line] = lines[line].replace(old, new, 1)
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(("line", "old", "new", "words"), [
    (2, '"p":1', '"p":77', ("line 3", "p must be a seat number")),
    (0, '"players":4', '"players":100', ("line 1", "players must be 2..40")),
    (0, '"draw":["RR"', '"draw":[1', ("line 1", "draw: expected a card token")),
], ids=["turn-seat-77", "deal-100-players", "deal-draw-ints"])
def test_view_malformed_event_names_its_line_as_advise_does(tmp_path: Path, line: int,
                                                             old: str, new: str,
                                                             words: tuple[str, ...]) -> None:
    path = _tampered(tmp_path, line, old, new)
    view = one_line_error(_invoke("view", str(path), "--quiet"), *words)
    advise = one_line_error(_invoke("advise", "--trace", str(path), "--event", "2"), *words)
    assert view == advise
    assert not (tmp_path / "t.html").exists()


# --- messages that mislead: a plug-in edited since a study is not a "hand-edited summary" ----
def test_compare_reuse_after_a_plugin_edit_names_the_plugin_not_the_summary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    plugin = tmp_path / "pl.py"
    plugin.write_text("class P:\n    def choose(self, view, legal):\n        return legal[0]\n")
    args = ["compare", "classic", "stacking", "--games", "200", "--out", "C", "-q", "--jobs",
            "1", "--set", "seats=[pl.py:P, random, random, random]"]
    assert _invoke(*args).exit_code == 0
    plugin.write_text(plugin.read_text() + "# edited\n")
    res = _invoke(*args, "--reuse")
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "plug-in pl.py:P changed" in res.stderr, res.stderr
    assert "summary.json is not the one" not in res.stderr


# --- messages that mislead: an --out that cannot be a directory says why, not "File exists" --
@pytest.mark.parametrize("kind", ["fifo", "dangling-symlink"])
@pytest.mark.parametrize("command", [
    ("run", "classic"), ("league", "random", "greedy"),
], ids=["run", "league"])
def test_out_dir_that_is_a_fifo_or_a_dangling_link_says_why(tmp_path: Path, kind: str,
                                                            command: tuple[str, ...]) -> None:
    out = tmp_path / "out"
    if kind == "fifo":
        os.mkfifo(out)
    else:
        out.symlink_to(tmp_path / "missing" / "dir")
    line = one_line_error(_invoke(*command, "--games", "10", "--out", str(out), "-q"),
                           str(out))
    assert "File exists" not in line
    assert "not a directory" in line if kind == "fifo" else "symlink to nothing" in line
    assert out.is_symlink() if kind != "fifo" else stat.S_ISFIFO(out.lstat().st_mode)


# --- tracebacks where one line belongs: a worker process that dies --------------------------
@pytest.mark.parametrize("command", ["run", "compare"])
def test_worker_process_ended_by_plugin_os_exit_is_one_line(tmp_path: Path,
                                                             command: str) -> None:
    """A plug-in that calls ``os._exit(0)`` in a loky worker: was loky's page-long
    TerminatedWorkerError traceback with exit 1."""
    (tmp_path / "ex.py").write_text("import os\nclass P:\n    def choose(self, view, legal):\n"
                                    "        os._exit(0)\n")
    configs = ("classic",) if command == "run" else ("classic", "stacking")
    r = cli(tmp_path, command, *configs, "--games", "40000", "--jobs", "2", "--out", "o",
            "-q", "--set", "seats=[ex.py:P, random, random, random]")
    assert r.rc == 2 and "Traceback" not in r.stdout + r.stderr, str(r)
    error_line(r, "worker process ended", "os._exit")


# --- writes outside the out dir: a trace read from a stream has no name to put a page next to -
def test_view_of_a_fifo_without_out_writes_nothing_next_to_it(tmp_path: Path) -> None:
    """``view /dev/stdin`` would have written /dev/stdin.html; a FIFO stands in for it."""
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    one_line_error(_invoke("view", str(fifo)), str(fifo), "--out")
    assert [p.name for p in tmp_path.iterdir()] == ["f"]

