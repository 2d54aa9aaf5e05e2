"""``python -m unosim.bench`` (``make bench``): the performance figures the issues set targets for.

Measured, in this order:

0. first-run CPU of the CLI (``unosim run classic --games 1000``, all seats
   random, and the same with an ``ismcts`` seat): a child with an empty
   ``NUMBA_CACHE_DIR`` in a temp dir, CPU seconds from
   ``getrusage(RUSAGE_CHILDREN)`` (the command and its workers); the same
   command once cached (without its report, as the first run) gives the
   difference that is the compile CPU; the cached-start CPU is the median of
   five cached runs with their report (the default). The suite's wall time is read from the file ``make test``
   writes (``--suite-time``; timing the suite here would take its minutes).
   ``--only first-run,cached,suite`` measures these alone;
1. (``compile_time``, not run by default: step 0 measures the CLI's first run)
   a child process with an empty ``NUMBA_CACHE_DIR`` imports the engine and
   simulates one game;
2. cached start: a child process (warm cache) importing and simulating one game;
3. kernel rounds/s on one core (``simulate`` in this process, after warm-up,
   at least ``--seconds`` of work) for configs/classic.yaml and configs/chaos.yaml,
   and classic under each shipped edition (Flip and No Mercy included) in rounds/s
   and turns/s per CPU-second, its cost per turn against classic's
   (``--only editions`` measures these alone);
4. ``unosim run configs/classic.yaml --games 1000000`` end to end with
   ``--jobs 1`` and ``--jobs 2``: wall time, parallel speed-up, and the
   runner's overhead against the kernel (throughput inside the run, i.e.
   without interpreter start-up, vs the kernel's own);
5. peak RSS (largest process, from ``getrusage`` of a child) of runs of
   1,000,000 and 10,000,000 rounds (``--quick`` skips the 10M run);
6. report write: summary.json's figures, report.md/html and the charts of a
   finished 1,000,000-round run, imports included, in a fresh interpreter.

Children are used wherever start-up or memory is measured, so this process's
own imports and allocations do not leak into the figures. The machine's load
average is printed too: on a shared machine it explains noisy figures.
Results go to stdout as a table and to ``reports/bench.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CLASSIC = ROOT / "configs" / "classic.yaml"
CHAOS = ROOT / "configs" / "chaos.yaml"

_START = """
import time
t = time.perf_counter()
from unosim.rules.config import load_config
from unosim.engine.kernel.state import compile_config
from unosim.engine.kernel.batch import simulate
simulate(compile_config(load_config({cfg!r})), 1, 0, 1)
print(time.perf_counter() - t)
"""

_RSS = """
import json, resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
wall = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": rc, "wall": wall, "maxrss_kb": ru.ru_maxrss,
                  "cpu": ru.ru_utime + ru.ru_stime}))
"""


SUITE_TIME = ROOT / "reports" / "suite-time.json"  # written by `make test`
# the CLI commands whose first and cached runs are measured
CLI_TABLES = {
    "random": ["run", "classic", "--games", "1000"],
    "ismcts": ["run", "classic", "--games", "20", "--set",
               "seats=[{policy: ismcts, params: {iterations: 200}}, random, random, random]"],
}


def cli_cpu(args: list[str], env: dict[str, str] | None = None,
            report: bool = False) -> dict[str, float]:
    """CPU and wall seconds of ``unosim ARGS`` (``--seed 1 --jobs 1 -q``, ``--no-report``
    unless ``report``, into a temp out dir), the command and every process it reaped,
    measured by a wrapper child (so nothing this process ran before counts)."""
    with tempfile.TemporaryDirectory(prefix="unosim-bench-cli-") as tmp:
        cmd = [*_unosim(), *args, "--seed", "1", "--jobs", "1",
               *([] if report else ["--no-report"]), "-q", "--out", str(Path(tmp) / "out")]
        res = subprocess.run([sys.executable, "-c", _RSS, *cmd], check=True,
                             capture_output=True, text=True, cwd=tmp,
                             env={**os.environ, **(env or {})})
    m = json.loads(res.stdout.strip().splitlines()[-1])
    if m["rc"] != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed with exit code {m['rc']}")
    return {"cpu_s": round(m["cpu"], 2), "wall_s": round(m["wall"], 2)}


def first_run(table: str) -> dict[str, float]:
    """``unosim run`` of ``table`` from an empty compile cache, then cached (best of
    three): compile CPU = first-run CPU - cached CPU."""
    args = CLI_TABLES[table]
    with tempfile.TemporaryDirectory(prefix="unosim-numba-") as cache:
        first = cli_cpu(args, {"NUMBA_CACHE_DIR": cache})
        cached = min((cli_cpu(args, {"NUMBA_CACHE_DIR": cache}) for _ in range(3)),
                     key=lambda m: m["cpu_s"])
    return {"first_cpu_s": first["cpu_s"], "first_wall_s": first["wall_s"],
            "cached_cpu_s": cached["cpu_s"], "cached_wall_s": cached["wall_s"],
            "compile_cpu_s": round(first["cpu_s"] - cached["cpu_s"], 2)}


def cached_cli_start(runs: int = 5) -> dict[str, float]:
    """``unosim run classic --games 1000`` with its report (the default), the default
    (warm) cache: the median of ``runs`` runs."""
    cli_cpu(CLI_TABLES["random"])  # warms the default cache if it is not
    ms = sorted((cli_cpu(CLI_TABLES["random"], report=True) for _ in range(runs)),
                key=lambda m: m["cpu_s"])
    return ms[len(ms) // 2]


def suite_time(path: Path = SUITE_TIME) -> dict[str, Any] | None:
    """The last ``make test``'s wall time, counts and load (None if it never wrote one)."""
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data


def _child(code: str, env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall time of the whole child, the time it reports) for a Python snippet."""
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, **(env or {})},
                         check=True, capture_output=True, text=True)
    return time.perf_counter() - t, float(out.stdout.strip().splitlines()[-1])


def compile_time() -> dict[str, float]:
    """Import + first game with an empty numba cache (everything compiles)."""
    with tempfile.TemporaryDirectory(prefix="unosim-numba-") as cache:
        wall, inner = _child(_START.format(cfg=str(CLASSIC)), {"NUMBA_CACHE_DIR": cache})
    return {"wall_s": wall, "import_and_first_game_s": inner}


def cached_start() -> dict[str, float]:
    """Import + first game with the warm cache, in a fresh interpreter."""
    _child(_START.format(cfg=str(CLASSIC)))  # make sure the default cache is warm
    walls, inners = zip(*(_child(_START.format(cfg=str(CLASSIC))) for _ in range(3)),
                        strict=True)
    return {"wall_s": min(walls), "import_and_first_game_s": min(inners)}


def kernel_rate(cfg_path: Path, seconds: float, overrides: list[str] | None = None
                ) -> dict[str, float]:
    """Single-core ``simulate`` throughput after warm-up, in chunks like the runner's."""
    from unosim.engine.kernel.batch import simulate
    from unosim.engine.kernel.state import R_TURNS, alloc_state, compile_config
    from unosim.rules.config import load_config

    cc = compile_config(load_config(cfg_path, overrides or []))
    state = alloc_state(cc, trace=False)
    simulate(cc, 1, 0, 2000, state=state)  # warm-up: load the compiled code, touch memory
    rounds = games = turns = 0
    chunk = 20_000
    t, c = time.perf_counter(), time.process_time()
    while (elapsed := time.perf_counter() - t) < seconds:
        agg, _ = simulate(cc, 2, games, chunk, state=state)
        games += chunk
        rounds += int(agg["counts"][1])
        turns += int(agg["sums"][R_TURNS])
    cpu = time.process_time() - c
    # CPU time too: on a shared machine rounds per CPU-second is the steadier figure
    return {"rounds": rounds, "turns": turns, "seconds": elapsed, "cpu_s": cpu,
            "rounds_per_s": rounds / elapsed, "rounds_per_cpu_s": rounds / cpu,
            "turns_per_s": turns / elapsed, "turns_per_cpu_s": turns / cpu}


def runner_rate(games: int, jobs: int, work: Path) -> dict[str, float]:
    """Steady-state `run_simulation` throughput: imports, compiled code and worker
    pool already warm, so what is left is chunking, aggregation, IPC and chunk files."""
    from unosim.rules.config import load_config
    from unosim.run import run_simulation

    cfg = load_config(CLASSIC)
    run_simulation(cfg, games=min(games, 200_000), seed=3, jobs=jobs, out=work / "warm",
                   force=True, progress=False)
    r = run_simulation(cfg, games=games, seed=1, jobs=jobs, out=work / f"steady-j{jobs}",
                       force=True, progress=False)
    return {"games": games, "jobs": jobs, "elapsed_s": r.elapsed, "chunks": r.chunks_total,
            "rounds_per_s": r.rounds_per_s}


def _unosim() -> list[str]:
    script = Path(sys.executable).parent / "unosim"
    return [str(script)] if script.exists() else [sys.executable, "-m", "unosim"]


def run_cli(games: int, jobs: int, work: Path, backend: str = "loky") -> dict[str, Any]:
    """``unosim run`` end to end in a child; wall time, in-run throughput, peak RSS."""
    out = work / f"run-{games}-j{jobs}-{backend}"
    cmd = [*_unosim(), "run", str(CLASSIC), "--games", str(games), "--seed", "1",
           "--jobs", str(jobs), "--out", str(out), "--force", "--quiet", "--no-report",
           "--backend", backend]
    res = subprocess.run([sys.executable, "-c", _RSS, *cmd], check=True, capture_output=True,
                         text=True)
    m = json.loads(res.stdout.strip().splitlines()[-1])
    if m["rc"] != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed with exit code {m['rc']}")
    manifest = json.loads((out / "run.json").read_text())
    shutil.rmtree(out, ignore_errors=True)
    return {"games": games, "jobs": jobs, "wall_s": m["wall"], "cpu_s": m["cpu"],
            "rounds": manifest["rounds_run"],
            "in_run_s": manifest["elapsed_s"], "in_run_rounds_per_s": manifest["rounds_per_s"],
            "peak_rss_mb": m["maxrss_kb"] / 1024}


_REPORT = """
import json, sys, time
from pathlib import Path
import numpy as np
import unosim.run  # noqa: F401  (imported, with the engine and numba, before the games)
from unosim.rules.config import validate_config
run, out = Path(sys.argv[1]), Path(sys.argv[2])
sj = json.loads((run / "summary.json").read_text())
cfg = validate_config(sj["config"], run / "summary.json")
with np.load(run / "aggregates.npz") as z:
    agg = {k: z[k] for k in z.files}
t = time.perf_counter()  # what `unosim run` does once the games are done
from unosim.analysis.summary import build_summary
summary = build_summary(agg, cfg, seed=sj["seed"], games=sj["games"])
from unosim.report.run_report import write_report
write_report(out, cfg, agg, summary)
print(time.perf_counter() - t)
"""


def report_write(games: int, work: Path) -> dict[str, float]:
    """Summary + report.md/html + charts of a finished run, in a fresh interpreter.

    Timed from the loaded aggregates, imports included (``unosim run`` imports
    scipy and matplotlib only after the games): the wait a user sees after
    the simulation. Best of three.
    """
    run = work / "report-run"
    subprocess.run([*_unosim(), "run", str(CLASSIC), "--games", str(games), "--seed", "1",
                    "--out", str(run), "--force", "--quiet", "--no-report"],
                   check=True, capture_output=True)
    times = [_child_report(run, work / f"report-{i}") for i in range(3)]
    shutil.rmtree(run, ignore_errors=True)
    return {"games": games, "seconds": min(times), "all_s": times}


def _child_report(run: Path, out: Path) -> float:
    res = subprocess.run([sys.executable, "-c", _REPORT, str(run), str(out)], check=True,
                         capture_output=True, text=True)
    shutil.rmtree(out, ignore_errors=True)
    return float(res.stdout.strip().splitlines()[-1])


def plugin_speed(seconds: float) -> dict[str, float]:
    """Rounds/s of the plug-in path (Python game loop, façade, public views) with each
    example player at seat 0 of configs/classic.yaml, the other seats compiled."""
    from unosim.engine.kernel.state import compile_config
    from unosim.engine.plugins import play_games
    from unosim.rules.config import load_config

    cc = compile_config(load_config(CLASSIC))
    out: dict[str, float] = {}
    for name in ("first_legal.py:FirstLegal", "colour_keeper.py:ColourKeeper"):
        spec = str(ROOT / "examples" / "policies" / name)
        play_games(cc, 1, 0, 20, plugins={0: spec})  # warm-up
        rounds = 0
        t = time.perf_counter()
        while (elapsed := time.perf_counter() - t) < seconds:
            rounds += int(play_games(cc, 2, rounds, 50, plugins={0: spec})["counts"][1])
        out[name.split(":")[1]] = rounds / elapsed
    return out


YARDSTICK = "{policy: ismcts, params: {iterations: 1000, playout: cautious, prior_weight: 0.2}}"


def _search_speed(seat: str, seconds: float) -> tuple[float, float]:
    """(decisions/s, rounds/s) of ``seat`` at seat 0 of classic 4p, the others random."""
    from unosim.engine.game import Round
    from unosim.engine.kernel.state import compile_config
    from unosim.rules.config import load_config

    cc = compile_config(load_config(CLASSIC, [f"seats=[{seat}, random, random, random]"]))
    Round.new(cc, seed=0, game=0, trace=False).play_out()  # warm-up
    decisions = rounds = 0
    t = time.perf_counter()
    while (elapsed := time.perf_counter() - t) < seconds:
        r = Round.new(cc, seed=1, game=rounds, trace=False)
        while not r.is_over:
            decisions += r.current_player == 0 and len(r.legal_actions()) > 1
            r.step()
        rounds += 1
    return decisions / elapsed, rounds / elapsed


def ismcts_speed(seconds: float) -> dict[str, float]:
    """``ismcts`` at 1,000 iterations at seat 0 of classic 4p (the others random), with
    its defaults and as the yardstick (cautious playouts): searched decisions/s (one
    with a single legal action is not searched), search iterations/s (each one a
    determinization, a walk down the tree and a playout to the round's end) and
    rounds/s; and `unosim advise` on a typical position with 10,000 playouts in all
    (split over its legal actions), in seconds."""
    from unosim.cli.advise import advise, build_round

    out: dict[str, float] = {}
    for name, seat in (("", "{policy: ismcts, params: {iterations: 1000}}"),
                       ("yardstick_", YARDSTICK)):
        dps, rps = _search_speed(seat, seconds)
        out |= {f"{name}decisions_per_s": dps, f"{name}iterations_per_s": 1000 * dps,
                f"{name}rounds_per_s": rps}
    pos = {"hand": ["BD2", "B5", "R9", "G7", "W"], "top": "B3", "hands": [5, 2, 6, 6]}
    r = build_round(pos, 0)
    advise(r, 10, None, "random")  # warm-up
    n = len(r.legal_actions())
    t0 = time.perf_counter()
    advise(r, 10_000 // n, None, "random")
    return out | {"advise_10k_s": time.perf_counter() - t0}


def env_speed(seconds: float) -> dict[str, float]:
    """Steps/s of the learning environments (docs/env.md) on one core, two_player with
    the learner against ``random``, random legal actions: the vector env (one compiled
    call per step of N tables; a step is one learner decision and the opponent's moves
    up to its next one) at N = 1 and N = 1024, and the single Gymnasium env (the Python
    façade) for scale. Only the env's ``step`` calls are timed (choosing the actions in
    numpy is not), per wall second and per CPU second of this single-threaded process:
    on a shared machine the second is the one core's rate. Needs the ``rl`` extra."""
    import numpy as np

    from unosim.env.single import UnoEnv
    from unosim.env.vector import UnoVectorEnv

    out: dict[str, float] = {}
    rng = np.random.default_rng(0)

    def timed(name: str, step: Any, choose: Any) -> None:
        steps, wall, cpu = 0, 0.0, 0.0
        while wall < seconds:
            acts = choose()
            t, c = time.perf_counter(), time.process_time()
            steps += step(acts)
            wall += time.perf_counter() - t
            cpu += time.process_time() - c
        out[f"{name}_steps_per_s"] = steps / wall
        out[f"{name}_steps_per_cpu_s"] = steps / cpu

    for n in (1, 1024):
        env = UnoVectorEnv(n, config="two_player", opponents=["random"], copy=False)
        _, info = env.reset(seed=0)
        box = [info["action_mask"]]

        def choose(box: list = box, n: int = n) -> Any:
            # a random legal action per table (ties go to the first: near enough)
            noise = rng.integers(1, 256, size=box[0].shape, dtype=np.uint8)
            return (box[0] * noise).argmax(1)

        def step(acts: Any, env: UnoVectorEnv = env, box: list = box, n: int = n) -> int:
            box[0] = env.step(acts)[4]["action_mask"]
            return n

        step(choose())  # warm-up
        timed(f"vector_{n}", step, choose)
    single = UnoEnv("two_player", opponents=["random"])
    single.reset(seed=0)

    def single_step(a: int) -> int:
        _, _, term, trunc, _ = single.step(a)
        if term or trunc:
            single.reset()
        return 1

    timed("single", single_step,
          lambda: int(rng.choice(np.flatnonzero(single.action_masks()))))
    return out


def env_lines(res: dict[str, float]) -> list[str]:
    def rate(name: str) -> str:
        return (f"{res[f'{name}_steps_per_s']:,.0f} steps/s "
                f"({res[f'{name}_steps_per_cpu_s']:,.0f}/CPU-s)")

    return [
        _row("env: vector, 2p vs random, N = 1, 1 core", rate("vector_1")),
        _row("env: vector, 2p vs random, N = 1024, 1 core", rate("vector_1024"), ">= 1,000,000"),
        _row("env: single Gymnasium env (Python façade), 2p", rate("single")),
    ]


def _row(label: str, value: str, target: str = "") -> str:
    return f"{label:<52} {value:>16}  {target}"


def edition_figures(seconds: float, say: Any) -> dict[str, Any]:
    """Kernel throughput of configs/classic.yaml under each shipped edition (classic's
    rows are the baseline of the cost per turn), 4 players, every seat random."""
    from unosim.rules.editions import list_editions

    res: dict[str, Any] = {}
    for edition in list_editions():
        say(f"kernel throughput, edition {edition}...")
        res[f"kernel_edition_{edition}"] = kernel_rate(CLASSIC, seconds, [f"edition={edition}"])
    return res


def edition_lines(res: dict[str, Any]) -> list[str]:
    """Table rows of `edition_figures`: rounds/s and turns/s per CPU-second, and each
    edition's cost per turn against classic's."""
    base = res["kernel_edition_classic"]["turns_per_cpu_s"]
    return [_row(f"kernel, edition {e} 4p random, per CPU-s: rounds/s, turns/s (cost per "
                 "turn vs classic)",
                 f"{r['rounds_per_cpu_s']:,.0f}, {r['turns_per_cpu_s']:,.0f} "
                 f"({base / r['turns_per_cpu_s']:.2f}x)", "<= 2x")
            for e, r in ((k.removeprefix("kernel_edition_"), v) for k, v in res.items()
                         if k.startswith("kernel_edition_"))]


def startup_figures(which: list[str], say: Any) -> dict[str, Any]:
    """The first-run, cached-start and suite figures named in ``which``."""
    res: dict[str, Any] = {}
    if "first-run" in which:
        for table in CLI_TABLES:
            say(f"unosim run, {table} seats, from an empty compile cache (minutes of CPU)...")
            res[f"first_run_{table}"] = first_run(table)
    if "cached" in which:
        say("unosim run classic --games 1000, cached...")
        res["cached_cli_start"] = cached_cli_start()
    if "suite" in which:
        res["suite"] = suite_time()
    return res


def startup_lines(res: dict[str, Any]) -> list[str]:
    """Table rows of `startup_figures` (a header first)."""
    lines = [_row("measurement", "value", "target")]
    for table in CLI_TABLES:
        if (m := res.get(f"first_run_{table}")) is not None:
            lines += [
                _row(f"first run, {table} seats: CPU (wall)",
                     f"{m['first_cpu_s']:.1f} s ({m['first_wall_s']:.0f} s)"),
                _row(f"first run, {table} seats: compile CPU (first - cached)",
                     f"{m['compile_cpu_s']:.1f} s", "<= 20 s" if table == "random" else ""),
                _row(f"  the same run cached, {table} seats, --no-report: CPU",
                     f"{m['cached_cpu_s']:.2f} s"),
            ]
    if (m := res.get("cached_cli_start")) is not None:
        lines.append(_row("cached start: run classic --games 1000 (report), CPU",
                          f"{m['cpu_s']:.2f} s", "<= 1 s"))
    if "suite" in res:
        st = res["suite"]
        lines.append(_row("test suite wall time (last make test)",
                          "not recorded" if st is None else
                          f"{st['wall_s'] / 60:.1f} min", "< 10 min"))
        if st is not None:
            lines.append(_row("  its tests, workers, load at its end, finished",
                              f"{st['tests']}, {st['workers']}, {st['loadavg_end'][0]:.1f}",
                              st["finished"]))
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table, write the JSON."""
    ap = argparse.ArgumentParser(prog="python -m unosim.bench", description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="skip the 10M-round memory run")
    ap.add_argument("--no-compile", action="store_true",
                    help="skip the slow first-run compile measurement")
    ap.add_argument("--seconds", type=float, default=3.0,
                    help="kernel work per config (default 3 s, at least 2)")
    ap.add_argument("--games", type=int, default=1_000_000, help="games for the end-to-end runs")
    ap.add_argument("--json", type=Path, default=Path("reports") / "bench.json",
                    help="where to write the figures (default reports/bench.json)")
    ap.add_argument("--only", type=lambda v: v.split(","), default=None,
                    metavar="first-run,cached,suite,env,editions",
                    help="measure only these (comma-separated) and print them; "
                         "first-run takes minutes of CPU per table; editions: the kernel "
                         "under each shipped edition against classic")
    args = ap.parse_args(argv)
    seconds = max(2.0, args.seconds)

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    res: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(), "loadavg_start": os.getloadavg()},
    }
    if args.only is not None:
        unknown = set(args.only) - {"first-run", "cached", "suite", "env", "editions"}
        if unknown:
            ap.error(f"--only: unknown measurement {', '.join(sorted(unknown))}")
        res |= startup_figures([w for w in args.only if w not in ("env", "editions")], say)
        if "editions" in args.only:
            res |= edition_figures(seconds, say)
        if "env" in args.only:
            res["env"] = env_speed(seconds)
        res["machine"]["loadavg_end"] = os.getloadavg()
        print("\n".join([*startup_lines(res),
                         *(edition_lines(res) if "editions" in args.only else []),
                         *(env_lines(res["env"]) if "env" in res else [])]))
        la, lb = res["machine"]["loadavg_start"], res["machine"]["loadavg_end"]
        print(_row("load average at start / end (1 min)", f"{la[0]:.2f} / {lb[0]:.2f}"))
        return 0
    res |= startup_figures(["first-run", "cached", "suite"] if not args.no_compile
                           else ["cached", "suite"], say)
    say("cached start...")
    res["cached_start"] = cached_start()
    say("kernel throughput...")
    res["kernel_classic"] = kernel_rate(CLASSIC, seconds)
    res["kernel_chaos"] = kernel_rate(CHAOS, seconds)
    res |= edition_figures(seconds, say)
    for policy in ("strategic", "defender"):
        say(f"kernel throughput, every seat {policy}...")
        res[f"kernel_classic_{policy}"] = kernel_rate(CLASSIC, seconds, [f"policy={policy}"])
    say("plug-in path throughput...")
    res["plugin_speed"] = plugin_speed(seconds)
    say("ismcts and advise...")
    res["ismcts"] = ismcts_speed(seconds)
    say("learning environments (vector N = 1, 1024; single)...")
    res["env"] = env_speed(seconds)
    with tempfile.TemporaryDirectory(prefix="unosim-bench-") as tmp:
        work = Path(tmp)
        for jobs in (1, 2):
            say(f"run_simulation in-process, warm, --jobs {jobs}...")
            res[f"steady_jobs{jobs}"] = runner_rate(args.games, jobs, work)
        for jobs in (1, 2):
            say(f"unosim run --games {args.games:,} --jobs {jobs}...")
            res[f"run_jobs{jobs}"] = run_cli(args.games, jobs, work)
        say(f"unosim run --games {args.games:,} --jobs 2 --backend threads...")
        res["run_jobs2_threads"] = run_cli(args.games, 2, work, backend="threads")
        say(f"report write after a run of {args.games:,} rounds...")
        res["report_write"] = report_write(args.games, work)
        if not args.quick:
            say(f"unosim run --games {10 * args.games:,} --jobs 2 (memory)...")
            res["run_10x"] = run_cli(10 * args.games, 2, work)
    res["machine"]["loadavg_end"] = os.getloadavg()

    k = res["kernel_classic"]["rounds_per_s"]
    kc = res["kernel_classic"]["rounds_per_cpu_s"]
    r1, r2 = res["run_jobs1"], res["run_jobs2"]
    s1, s2 = res["steady_jobs1"]["rounds_per_s"], res["steady_jobs2"]["rounds_per_s"]
    res["derived"] = {
        "speedup_2_jobs_wall": r1["wall_s"] / r2["wall_s"],
        "speedup_2_threads_wall": r1["wall_s"] / res["run_jobs2_threads"]["wall_s"],
        "speedup_2_jobs_steady": s2 / s1,
        "overhead_1_job": 1 - s1 / k,
        "overhead_2_jobs": 1 - s2 / (2 * k),
        # everything the CLI runs spent (interpreters, imports, workers, I/O) vs the kernel
        "cpu_overhead_1_job": r1["cpu_s"] / (r1["rounds"] / kc) - 1,
        "cpu_overhead_2_jobs": r2["cpu_s"] / (r2["rounds"] / kc) - 1,
    }
    if "run_10x" in res:
        res["derived"]["rss_ratio_10x"] = res["run_10x"]["peak_rss_mb"] / r2["peak_rss_mb"]
    d = res["derived"]
    g = f"{args.games:,}"
    lines = [
        *startup_lines(res),
        _row("cached start (fresh interpreter, import + 1 game)",
             f"{res['cached_start']['wall_s']:.2f} s", "< 2 s"),
        _row("kernel, classic 4p, 1 core", f"{k:,.0f} rounds/s", ">= 200,000"),
        _row("kernel, classic 4p, per CPU-second", f"{kc:,.0f} rounds/s"),
        _row("kernel, chaos 4p, 1 core", f"{res['kernel_chaos']['rounds_per_s']:,.0f} rounds/s"),
        *edition_lines(res),
        *[_row(f"kernel, classic 4p, every seat {p} (per CPU-s; slowdown vs random)",
               f"{res[f'kernel_classic_{p}']['rounds_per_cpu_s']:,.0f} rounds/s; "
               f"{kc / res[f'kernel_classic_{p}']['rounds_per_cpu_s']:.2f}x", "<= 2x")
          for p in ("strategic", "defender")],
        _row("plug-in path, classic 4p, FirstLegal / ColourKeeper at seat 0",
             " / ".join(f"{v:,.0f}" for v in res["plugin_speed"].values()) + " rounds/s"),
        *[_row(f"ismcts 1,000 it. at seat 0{label}: decisions/s, iterations/s, rounds/s",
               f"{res['ismcts'][f'{k}decisions_per_s']:,.0f}/s, "
               f"{res['ismcts'][f'{k}iterations_per_s']:,.0f}/s, "
               f"{res['ismcts'][f'{k}rounds_per_s']:,.1f}/s")
          for k, label in (("", ""), ("yardstick_", ", yardstick"))],
        _row("advise, 10,000 playouts", f"{res['ismcts']['advise_10k_s']:.2f} s", "< 2 s"),
        *env_lines(res["env"]),
        _row(f"runner, warm, {g} games, 1 job", f"{s1:,.0f} rounds/s"),
        _row(f"runner, warm, {g} games, 2 jobs", f"{s2:,.0f} rounds/s"),
        _row("speed-up of 2 jobs (warm runner)", f"{d['speedup_2_jobs_steady']:.2f}x",
             ">= 1.8x"),
        _row("runner overhead vs kernel, 1 job", f"{100 * d['overhead_1_job']:.1f} %", "<= 10 %"),
        _row("runner overhead vs 2 x kernel, 2 jobs (incl. IPC)",
             f"{100 * d['overhead_2_jobs']:.1f} %", "<= 10 %"),
        _row(f"unosim run classic --games {g} --jobs 1", f"{r1['wall_s']:.1f} s"),
        _row(f"unosim run classic --games {g} --jobs 2", f"{r2['wall_s']:.1f} s",
             "<= 15 s"),
        _row("speed-up of 2 jobs, end to end (start-up included)",
             f"{d['speedup_2_jobs_wall']:.2f}x"),
        _row(f"unosim run classic --games {g} --jobs 2 --backend threads",
             f"{res['run_jobs2_threads']['wall_s']:.1f} s"),
        _row("speed-up of 2 threads, end to end (start-up included)",
             f"{d['speedup_2_threads_wall']:.2f}x", ">= 1.8x"),
        _row("CPU spent beyond the kernel's, end to end, 1 / 2 jobs",
             f"{100 * d['cpu_overhead_1_job']:.0f} / {100 * d['cpu_overhead_2_jobs']:.0f} %"),
        _row(f"peak RSS, {g} rounds (largest process)", f"{r2['peak_rss_mb']:.0f} MB"),
        _row(f"report write, {g} rounds (summary, pages, charts)",
             f"{res['report_write']['seconds']:.2f} s", "<= 1.5 s"),
    ]
    if "run_10x" in res:
        lines += [
            _row(f"peak RSS, {10 * args.games:,} rounds", f"{res['run_10x']['peak_rss_mb']:.0f} MB"),
            _row("RSS ratio 10x / 1x", f"{d['rss_ratio_10x']:.2f}", "<= 1.2"),
            _row(f"unosim run --games {10 * args.games:,} --jobs 2",
                 f"{res['run_10x']['wall_s']:.1f} s"),
        ]
    la, lb = res["machine"]["loadavg_start"], res["machine"]["loadavg_end"]
    lines.append(_row("load average at start / end (1 min)", f"{la[0]:.2f} / {lb[0]:.2f}",
                      f"{res['machine']['cpus']} cpus"))
    print("\n".join(lines))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(res, indent=2) + "\n")
    print(f"written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
