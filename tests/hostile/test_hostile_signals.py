"""Issue 20, "Signals and bounds": interrupts land, inputs are bounded, special files stay.

Each case is named after the defect it guards against. Commands that must be
interrupted mid-computation run through `hostile.harness` (their own process
group); the signal goes out once the command has burnt a few seconds of CPU
(read from /proc, an event, not a clock), which is past start-up and inside
compiled work that, before the fix, held the signal for minutes. Bad inputs
run in process where that is enough (one error line, exit 2).
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from hostile.harness import (
    MAX_RSS,
    Proc,
    Result,
    chunks,
    error_line,
    expect_error,
    expect_ok,
    wait_for,
)
from hostile.special_files import (
    device_node_is_written_not_replaced,
    full_device_is_one_line_and_stays,
    one_line_error,
)
from unosim.cli import main

pytestmark = pytest.mark.slow  # CLI children signalled mid-run

ROOT = Path(__file__).resolve().parents[2]
SEARCH = "{policy: ismcts, params: {iterations: 10000}}"
SEARCH_SEATS = "seats=[" + ", ".join([SEARCH] * 4) + "]"  # seconds per decision
BUSY_CPU = 3.0  # CPU seconds a command has used once it is past start-up
LANDS_WITHIN = 15.0  # seconds from a signal to the exit, on a loaded machine (was minutes)
WAIT = 240.0  # seconds a case may take in all on a machine shared by eight


# --- helpers -------------------------------------------------------------------------------
def _cpu(pid: int) -> float:
    """CPU seconds (user + system, all threads) process ``pid`` has used."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _interrupt_when_busy(proc: Proc, sig: int, group: bool = True) -> tuple[Result, float]:
    """Signal ``proc`` once it is busy computing; its result and seconds from signal to exit."""
    wait_for(f"{BUSY_CPU} s of CPU", lambda: _cpu(proc.pid) >= BUSY_CPU, proc, limit=WAIT)
    sent = time.monotonic()
    proc.signal(sig, group=group)
    r = proc.wait(WAIT)
    return r, r.seconds - (sent - proc.t0)


def _expect_stopped(r: Result, took: float, status: int, *words: str) -> str:
    """Exit 128 + signal within `LANDS_WITHIN` of the signal, one line, no traceback."""
    assert not r.timed_out, str(r)
    assert "Traceback" not in r.stdout + r.stderr, str(r)
    assert r.rc == status, str(r)
    assert took < LANDS_WITHIN, f"the signal took {took:.1f} s to land: {r}"
    assert r.peak_rss < MAX_RSS, str(r)
    assert not r.lingering, str(r)
    return error_line(r, "interrupted", *words)


def _invoke(*args: str, input: str | bytes | None = None):  # noqa: ANN202 - click's Result
    return CliRunner().invoke(main, list(args), input=input)




# --- Ctrl-C and SIGTERM while compiled work runs in the CLI's own process ---------------------
def test_ctrl_c_lands_in_a_single_chunk_run_of_search_seats(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = Proc(tmp_path, ("run", "classic", "--games", "1000", "--jobs", "1", "--set",
                           SEARCH_SEATS, "--out", str(out), "--no-report", "-q"))
    r, took = _interrupt_when_busy(proc, signal.SIGINT)
    line = _expect_stopped(r, took, 130, "0 of 1 chunks saved", "--resume")
    assert str(out) in line and not chunks(out) and r.stdout == ""


def test_sigterm_lands_in_a_single_chunk_run_of_search_seats(tmp_path: Path) -> None:
    """``kill PID``: the command alone hears it."""
    proc = Proc(tmp_path, ("run", "classic", "--games", "1000", "--jobs", "1", "--set",
                           SEARCH_SEATS, "--out", "run", "--no-report", "-q"))
    r, took = _interrupt_when_busy(proc, signal.SIGTERM, group=False)
    _expect_stopped(r, took, 143, "--resume")


@pytest.mark.parametrize("command", [
    ("compare", "classic", "stacking", "--set", SEARCH_SEATS),
    ("sweep", "classic", "--vary", "hand_size=6,7", "--set", SEARCH_SEATS),
    ("league", SEARCH, "random", "--no-head-to-head"),
], ids=["compare", "sweep", "league"])
def test_ctrl_c_lands_in_a_study_at_jobs_1(tmp_path: Path, command: tuple[str, ...]) -> None:
    proc = Proc(tmp_path, (*command, "--games", "500", "--jobs", "1", "--out", "study", "-q"))
    r, took = _interrupt_when_busy(proc, signal.SIGINT)
    _expect_stopped(r, took, 130)


def test_ctrl_c_lands_in_advise_with_ten_million_playouts(tmp_path: Path) -> None:
    pos = tmp_path / "position.yaml"
    pos.write_text("hand: [B7, R2, G5, W]\ntop: B3\nhands: [4, 5, 6, 7]\n")
    proc = Proc(tmp_path, ("advise", str(pos), "--playouts", "10000000"))
    r, took = _interrupt_when_busy(proc, signal.SIGINT)
    _expect_stopped(r, took, 130)
    assert r.stdout == ""


def test_ctrl_c_lands_in_play_with_search_seats_and_keeps_the_trace(tmp_path: Path) -> None:
    out = tmp_path / "game.jsonl"
    proc = Proc(tmp_path, ("play", "match", "--set", "target=2000", "--set", SEARCH_SEATS,
                           "--trace-format", "jsonl", "--out", str(out)))
    r, took = _interrupt_when_busy(proc, signal.SIGINT)
    line = _expect_stopped(r, took, 130, str(out))
    events = [json.loads(x) for x in out.read_text().splitlines()]
    assert events[0]["e"] == "deal" and f"the {len(events)} events" in line


def test_sigterm_during_the_first_compile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    """A cold compiled-code cache: SIGTERM once numba has written its first function."""
    cache = tmp_path / "numba"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
    proc = Proc(tmp_path, ("run", "classic", "--games", "100", "--jobs", "1", "-q",
                           "--no-report", "--out", "run"))
    wait_for("a first compiled function", lambda: any(cache.rglob("*.nbi")), proc, limit=WAIT)
    sent = time.monotonic()
    proc.signal(signal.SIGTERM, group=False)
    r = proc.wait(WAIT)
    _expect_stopped(r, r.seconds - (sent - proc.t0), 143)


# --- Ctrl-C during start-up imports --------------------------------------------------------
class _InterruptImport:
    """A meta path finder that raises KeyboardInterrupt when ``unosim.cli`` is imported."""

    def find_spec(self, name: str, *_args: object) -> None:
        if name == "unosim.cli":
            raise KeyboardInterrupt


def test_ctrl_c_during_start_up_imports(capsys: pytest.CaptureFixture[str]) -> None:
    import unosim.__main__ as entry

    saved = {k: v for k, v in sys.modules.items() if k.startswith("unosim.cli")}
    for k in saved:
        del sys.modules[k]
    finder = _InterruptImport()
    sys.meta_path.insert(0, finder)
    try:
        with pytest.raises(SystemExit) as stop:
            entry.main()
    finally:
        sys.meta_path.remove(finder)
        sys.modules.update(saved)
    assert stop.value.code == 130
    assert capsys.readouterr().err == "unosim: error: interrupted\n"


# --- the human seat ------------------------------------------------------------------------
# ``python -m unosim`` that writes its own peak memory (VmHWM) to $HWM_FILE as it exits:
# wait4's ru_maxrss carries the forking pytest worker's size (hundreds of MB) across exec.
_WITH_HWM = """
import atexit, os, runpy, sys
def _hwm():
    with open("/proc/self/status") as f:
        kb = next(line.split()[1] for line in f if line.startswith("VmHWM"))
    with open(os.environ["HWM_FILE"], "w") as out:
        out.write(kb)
atexit.register(_hwm)
sys.argv[0] = "unosim"
runpy.run_module("unosim", run_name="__main__", alter_sys=True)
"""


class _Player:
    """``unosim play --human 0`` fed through a pipe, its stdout read as it comes."""

    def __init__(self, cwd: Path, *args: str, hwm: Path | None = None) -> None:
        self.t0 = time.monotonic()
        launch = ["-c", _WITH_HWM] if hwm is not None else ["-m", "unosim"]
        self.popen = subprocess.Popen(
            [sys.executable, *launch, "play", "classic", "--human", "0", *args],
            env={**os.environ, "HWM_FILE": str(hwm)} if hwm is not None else None,
            cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True)
        self.stdout = b""
        self.stderr = b""
        self._readers = [threading.Thread(target=self._read, args=(name,), daemon=True)
                         for name in ("stdout", "stderr")]
        for t in self._readers:
            t.start()

    def _read(self, name: str) -> None:
        pipe = getattr(self.popen, name)
        while chunk := os.read(pipe.fileno(), 65536):
            setattr(self, name, getattr(self, name) + chunk)

    def prompts(self) -> int:
        return self.stdout.count(b"choose 1-")

    def finish(self) -> tuple[int, int, str, str]:
        """(exit status, peak memory in bytes, stdout, stderr) once it ends."""
        _, status, usage = os.wait4(self.popen.pid, 0)
        self.popen.returncode = os.waitstatus_to_exitcode(status)
        for t in self._readers:
            t.join()
        return (self.popen.returncode, usage.ru_maxrss * 1024,
                self.stdout.decode(errors="replace"), self.stderr.decode(errors="replace"))


def _answer_then_interrupt(player: _Player, answers: int) -> tuple[int, str, str]:
    """Give ``answers`` answers, wait for the next question, press Ctrl-C."""
    try:
        assert player.popen.stdin is not None
        player.popen.stdin.write(b"1\n" * answers)
        player.popen.stdin.flush()
        # the answers taken and the next one asked for: the game waits on the player
        wait_for("the next decision", lambda: player.prompts() > answers,
                 limit=WAIT)  # type: ignore[arg-type]
        os.killpg(player.popen.pid, signal.SIGINT)
        rc, _, stdout, stderr = player.finish()
    finally:
        if player.popen.returncode is None:
            os.killpg(player.popen.pid, signal.SIGKILL)
            player.popen.wait()
    assert rc == 130 and "Traceback" not in stdout + stderr, stderr
    return rc, stdout, stderr


def test_human_seat_ctrl_c_keeps_the_partial_trace(tmp_path: Path) -> None:
    out = tmp_path / "game.jsonl"
    player = _Player(tmp_path, "--seed", "3", "--trace-format", "jsonl", "--out", str(out))
    _, _, stderr = _answer_then_interrupt(player, 6)
    (line,) = stderr.splitlines()
    assert line.startswith("unosim: error: interrupted: the ") and str(out) in line, line
    events = [json.loads(x) for x in out.read_text().splitlines()]
    assert events[0]["e"] == "deal" and events[-1]["e"] != "end"
    assert sum(e["e"] == "turn" and e["p"] == 0 for e in events) >= 6


def test_human_seat_ctrl_c_without_out_keeps_the_partial_trace_in_a_file(
        tmp_path: Path) -> None:
    _, stdout, stderr = _answer_then_interrupt(_Player(tmp_path, "--seed", "3"), 3)
    (line,) = stderr.splitlines()
    assert line.startswith("unosim: error: interrupted: the ")
    assert line.endswith("are written to play-classic-seed3-game0.txt"), line
    trace = (tmp_path / "play-classic-seed3-game0.txt").read_text()
    assert "== Round 1: " in trace and "P0 (you): " in trace and "?" not in trace
    assert "== Round 1: " not in stdout.rsplit("choose 1-", 1)[1]  # not reprinted


def test_human_seat_reads_a_50_mb_line_in_bounded_memory(tmp_path: Path) -> None:
    hwm = tmp_path / "hwm"
    player = _Player(tmp_path, "--seed", "3", hwm=hwm)
    assert player.popen.stdin is not None
    try:
        player.popen.stdin.write(b"7" * (50 * 2**20) + b"\n")
        player.popen.stdin.close()  # then the input ends: one error line
    except BrokenPipeError:
        pass
    rc, peak, stdout, stderr = player.finish()
    assert rc == 2 and "Traceback" not in stdout + stderr, stderr
    assert stderr.startswith("unosim: error: input ended") and stderr.count("\n") == 1
    assert "not a legal choice: '7777" in stdout and "52,428,801 bytes" in stdout
    peak = int(hwm.read_text()) * 1024  # the child's own high-water mark
    assert peak < 400 * 2**20, f"peak memory {peak / 2**20:.0f} MB"


def test_human_seat_5000_digit_line_is_refused_in_one_line() -> None:
    res = _invoke("play", "classic", "--seed", "3", "--human", "0", input="9" * 5000 + "\n")
    assert res.exit_code == 2 and "Traceback" not in res.output, res.output
    assert "not a legal choice: '9999" in res.stdout and "5,001 bytes" in res.stdout
    assert res.stderr.count("\n") == 1 and "input ended" in res.stderr


def test_human_seat_unicode_digit_is_not_a_number() -> None:
    res = _invoke("play", "classic", "--seed", "3", "--human", "0", input="²\n")
    assert res.exit_code == 2 and "not a legal choice: '²'" in res.stdout, res.output


# --- play --out: special files are written, never replaced ------------------------------------
def _play_out(target: str | Path) -> object:
    return _invoke("play", "classic", "--seed", "4", "--trace-format", "jsonl",
                   "--out", str(target))


def test_play_out_fifo_is_written_as_a_stream(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    res = _play_out(fifo)
    reader.join(WAIT)
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    events = [json.loads(x) for x in got[0].decode().splitlines()]
    assert events[0]["e"] == "deal" and events[-1]["e"] == "end"


def test_play_out_symlink_keeps_the_link(tmp_path: Path) -> None:
    target = tmp_path / "real.jsonl"
    target.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    res = _play_out(link)
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    assert link.is_symlink() and target.read_text().startswith('{"e":"deal"')


def test_play_out_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.jsonl"
    link.symlink_to(tmp_path / "new.jsonl")
    assert _play_out(link).exit_code == 0  # type: ignore[attr-defined]
    assert link.is_symlink() and (tmp_path / "new.jsonl").read_text().startswith('{"e"')


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a device node needs root")
def test_play_out_device_node_is_written_not_replaced(tmp_path: Path) -> None:
    """A private copy of /dev/null's node (char 1:3), made inside the temp dir."""
    device_node_is_written_not_replaced(tmp_path, _play_out)


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a device node needs root")
def test_play_out_full_device_is_one_line_and_stays(tmp_path: Path) -> None:
    """A private copy of /dev/full's node (char 1:7): writing fails, nothing is replaced."""
    full_device_is_one_line_and_stays(tmp_path, _play_out)


def test_play_out_dev_stdout_streams(tmp_path: Path) -> None:
    proc = Proc(tmp_path, ("play", "classic", "--seed", "4", "--trace-format", "jsonl",
                           "--out", "/dev/stdout"))
    r = proc.wait(WAIT)
    expect_ok(r, seconds=WAIT)
    assert r.stdout.startswith('{"e":"deal"') and r.stdout.endswith("}\n")


def test_play_out_empty_isone_line_error() -> None:
    one_line_error(_invoke("play", "classic", "--out", ""), "--out", "empty")


def test_play_out_directory_isone_line_error(tmp_path: Path) -> None:
    one_line_error(_play_out(tmp_path), "directory")


# --- advise: impossible positions and malformed traces ---------------------------------------
BASE = "hand: [B7, R2]\nhands: [2, 3, 4]\n"


@pytest.mark.parametrize(("text", "words"), [
    (BASE + "top: B3\ndirection: 0\n", ("direction", "got 0")),
    (BASE + "top: B3\ndirection: [1]\n", ("direction",)),
    (BASE + "top: B3\ndirection: null\n", ("direction",)),
    (BASE + "top: B3\ndirection: true\n", ("direction",)),
    (BASE + "top: W\n", ("color", "wild")),
    (BASE + "top: WD4\ncolor: Z\n", ("color", "one of R, Y, G, B", "'Z'")),
    (BASE + "top: B3\ncolor: R\n", ("color", "B3")),
    (BASE + "top: B3\ncolor: 7\n", ("color",)),
    ("hand: [B7, R2]\nhands: [2, 0, 4]\ntop: B3\n", ("seat 1 holds no card", "over")),
    (BASE + "top: B3\nset: 5\n", ("set", "KEY=VALUE")),
    (BASE + "top: B3\nset: [5]\n", ("set",)),
    (BASE + "top: B3\nconfig: [classic]\n", ("config",)),
    (BASE + "top: B3\nseat: true\n", ("seat",)),
    ("hand: [B7, R2]\nhands: [2, true, 4]\ntop: B3\n", ("hands",)),
    ("hand: [B7]\nhands: [1]\ntop: B3\n", ("hands", "seats")),
    ("hand: [B7, R2]\nhands: [2, 200, 4]\ntop: B3\n", ("hands", "left")),
    (BASE + "top: B3\ndraw: true\n", ("draw",)),
    (BASE + "top: B3\nknown: {true: [R1]}\n", ("known",)),
], ids=["direction_0", "direction_list", "direction_null", "direction_bool",
        "wild_top_without_color", "color_Z", "color_not_the_top_cards", "color_number",
        "round_already_won", "set_5", "set_not_strings", "config_list", "seat_bool",
        "hand_size_bool", "one_seat", "more_cards_than_the_deck", "draw_bool", "known_bool"])
def test_advise_refuses_impossible_positions(tmp_path: Path, text: str,
                                             words: tuple[str, ...]) -> None:
    pos = tmp_path / "position.yaml"
    pos.write_text(text)
    one_line_error(_invoke("advise", str(pos), "--playouts", "10"), *words)


def test_advise_wild_top_with_its_color_is_advised(tmp_path: Path) -> None:
    pos = tmp_path / "position.yaml"
    pos.write_text(BASE + "top: W\ncolor: b\n")
    res = _invoke("advise", str(pos), "--playouts", "20", "--format", "json")
    assert res.exit_code == 0, res.output
    assert {a["action"] for a in json.loads(res.stdout)["actions"]} == {"B7", "draw"}


@pytest.mark.parametrize(("args", "words"), [
    (("--seed", "-1"), ("--seed",)),
    (("--seed", str(10**23)), ("--seed",)),
    (("--precision", "nan"), ("--precision",)),
    (("--precision", "inf"), ("--precision",)),
], ids=["seed_minus_1", "seed_10_23", "precision_nan", "precision_inf"])
def test_advise_bad_options_are_one_line(tmp_path: Path, args: tuple[str, ...],
                                         words: tuple[str, ...]) -> None:
    pos = tmp_path / "position.yaml"
    pos.write_text(BASE + "top: B3\n")
    one_line_error(_invoke("advise", str(pos), *args), *words)


@pytest.fixture(scope="module")
def trace_lines() -> list[str]:
    res = _invoke("play", "classic", "--seed", "7", "--trace-format", "jsonl")
    assert res.exit_code == 0, res.output
    return res.stdout.splitlines()


def _advise_trace(tmp_path: Path, lines: list[str], event: int = 5) -> object:
    path = tmp_path / "t.jsonl"
    path.write_text("".join(x + "\n" for x in lines))
    return _invoke("advise", "--trace", str(path), "--event", str(event), "--playouts", "10")


def _with_deal(lines: list[str], **change: object) -> list[str]:
    deal = json.loads(lines[0])
    for k, v in change.items():
        if v is None:
            deal.pop(k)
        else:
            deal[k] = v
    return [json.dumps(deal), *lines[1:]]


def test_advise_trace_with_eleven_wd4s_is_refused(tmp_path: Path,
                                                  trace_lines: list[str]) -> None:
    deal = json.loads(trace_lines[0])
    draw = list(deal["draw"])
    swapped = [i for i, t in enumerate(draw) if t != "WD4"][:7]
    for i in swapped:
        draw[i] = "WD4"
    lines = _with_deal(trace_lines, draw=draw)
    one_line_error(_advise_trace(tmp_path, lines), "WD4", "deck")


@pytest.mark.parametrize("change", [
    {"players": None}, {"dealer": None}, {"hands": None}, {"draw": None}, {"rules": None},
    {"players": "4"}, {"players": 4.5}, {"players": True}, {"dealer": 9}, {"dealer": -1},
    {"hands": [["R1"]]}, {"hands": "R1"}, {"hands": [[1, 2], [], [], []]},
    {"draw": [None]}, {"draw": ["ZZ"]}, {"rules": []}, {"edition": 5}, {"active": [0, "x"]},
    {"players": 3},
], ids=lambda c: "-".join(f"{k}={v!r}" for k, v in c.items()))
def test_advise_trace_malformed_deal_is_one_line(tmp_path: Path, trace_lines: list[str],
                                                 change: dict[str, object]) -> None:
    one_line_error(_advise_trace(tmp_path, _with_deal(trace_lines, **change)), "deal")


@pytest.mark.parametrize("bad", [
    '{"e":"turn","round":0,"p":"x"}', '{"e":"play","round":0,"p":1,"card":7}',
    '{"e":"reshuffle","round":0,"draw":5}', '{"e":"nope"}', '[1, 2]',
    '{"e":"turn","p":' + "1" * 5000 + "}", '{"e":{"a":1}}',
], ids=["seat_string", "card_number", "draw_number", "unknown_event", "not_an_object",
        "5000_digit_int", "name_a_mapping"])
def test_advise_trace_malformed_event_is_one_line(tmp_path: Path, trace_lines: list[str],
                                                  bad: str) -> None:
    one_line_error(_advise_trace(tmp_path, [*trace_lines[:3], bad, *trace_lines[3:]]),
                    "line 4")


@pytest.mark.parametrize("depth", [20, 100_000], ids=["nested_20", "nested_100000"])
def test_advise_trace_deeply_nested_json_is_one_line(tmp_path: Path, trace_lines: list[str],
                                                     depth: int) -> None:
    bad = '{"e":"turn","x":' + "[" * depth + "]" * depth + "}"
    one_line_error(_advise_trace(tmp_path, [trace_lines[0], bad]), "nests")


def test_advise_trace_dev_zero_is_bounded(tmp_path: Path) -> None:
    r = Proc(tmp_path, ("advise", "--trace", "/dev/zero", "--event", "3")).wait(WAIT)
    expect_error(r, "/dev/zero", seconds=WAIT)


def test_advise_trace_line_too_long_is_bounded(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b" " * (2**20 + 10))
    one_line_error(_invoke("advise", "--trace", str(path), "--event", "0"), "longer")


def test_advise_trace_from_a_fifo_is_read_as_a_stream(tmp_path: Path,
                                                      trace_lines: list[str]) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(
        "".join(x + "\n" for x in trace_lines)), daemon=True)
    writer.start()
    res = _invoke("advise", "--trace", str(fifo), "--event", "5", "--playouts", "10")
    writer.join(WAIT)
    assert res.exit_code == 0, res.output


# --- the foreground worker itself ----------------------------------------------------------
class _Stop(Exception):
    pass


@pytest.fixture
def usr1_raises() -> Iterator[None]:
    def stop(_signum: int, _frame: object) -> None:
        raise _Stop

    old = signal.signal(signal.SIGUSR1, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGUSR1, old)


def test_foreground_call_returns_and_reraises() -> None:
    from unosim.run.backends import foreground

    with foreground() as fg:
        assert fg.call(sum, [1, 2, 3]) == 6
        assert fg.call(threading.current_thread) is not threading.main_thread()
        with pytest.raises(ZeroDivisionError):
            fg.call(lambda: 1 // 0)
        with pytest.raises(SystemExit):  # a plug-in's sys.exit() reaches the caller
            fg.call(sys.exit, 3)


def test_foreground_wait_is_interrupted_by_a_signal(usr1_raises: None) -> None:
    """The call never returns; a signal to the main thread still stops the wait."""
    from unosim.run.backends import foreground

    started, release = threading.Event(), threading.Event()

    def work() -> None:
        started.set()
        release.wait()

    def signal_main() -> None:
        started.wait()
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGUSR1)

    helper = threading.Thread(target=signal_main, daemon=True)
    helper.start()
    try:
        with foreground() as fg, pytest.raises(_Stop):
            fg.call(work)
    finally:
        release.set()
        helper.join()


def test_foreground_off_the_main_thread_calls_directly() -> None:
    from unosim.run.backends import foreground

    seen: list[threading.Thread] = []
    with foreground() as fg:
        t = threading.Thread(target=lambda: seen.append(fg.call(threading.current_thread)))
        t.start()
        t.join()
    assert seen == [t]
