"""The same summary on every machine: no BLAS kernel decides a digit.

OpenBLAS picks its kernel from the CPU (SkylakeX on an AVX-512 machine,
Haswell on an AVX2 one), and float dot products round differently in each.
Every statistic comes from exact integer sums, so forcing each kernel with
``OPENBLAS_CORETYPE`` must give byte-identical summaries, equal to the goldens.
One subprocess per kernel runs every golden case (the engine loads once each).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_golden import GOLDEN, ROOT, cases

pytestmark = pytest.mark.slow  # one child per OpenBLAS kernel runs every golden case

# kernel -> CPU flags it needs (a forced kernel the CPU lacks would not run)
KERNELS = {"Haswell": {"avx2", "fma"},
           "SkylakeX": {"avx512f", "avx512dq", "avx512bw", "avx512vl", "avx512cd"},
           "Sandybridge": {"avx"}}
# With the Sandybridge kernel numpy's own loops lose their AVX2/AVX-512 paths too (names
# of numpy 1.26 and 2.x; unknown names are ignored), as on an old machine.
OLD_NUMPY = {"Sandybridge": "AVX2 FMA3 AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL "
                            "AVX512_ICL AVX512_SPR X86_V3 X86_V4"}

# Runs every case given as JSON on stdin through the CLI in this one process; prints
# which OpenBLAS kernel numpy's bundled library ended up with (None if it has none).
CHILD = r"""
import json, sys
sys.path.insert(0, "tests/run")
from unosim.cli import main
from test_same_everywhere import probe
todo = json.load(sys.stdin)
for name, cfg, extra, out in todo:
    try:
        main.main(["run", cfg, "--seed", "7", "--out", out, "--no-report", "--quiet",
                   "--jobs", "1", *extra], prog_name="unosim", standalone_mode=False)
    except SystemExit as e:
        if e.code:
            raise
import ctypes, glob, os, numpy
arch = None
for lib in glob.glob(os.path.join(os.path.dirname(numpy.__file__) + ".libs", "*openblas*")):
    for sym in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                "openblas_get_corename64_", "openblas_get_corename"):
        f = getattr(ctypes.CDLL(lib), sym, None)
        if f is not None:
            f.restype = ctypes.c_char_p
            arch = f().decode()
print(json.dumps([arch, probe()]))
"""


def probe() -> str:
    """Every statistic outside the summaries (paired, trend, Welch, Mann-Whitney,
    bootstrap, per-round) on fixed integer data, as one string to compare."""
    from unosim.analysis import estimates, paired, stats, trend

    rng = np.random.default_rng(2024)
    fa = rng.integers(1, 400, size=(3000, paired.NGF))
    fb = np.maximum(fa + rng.integers(-30, 40, size=fa.shape), 1)
    fa[:, 3] %= 2  # a 0/1 feature (a win) for the paired rate
    fb[:, 3] = (fa[:, 3] + (rng.integers(0, 10, len(fa)) == 0)) % 2
    pm = paired.PairMoments.from_features(fa, fb)
    h1 = np.bincount(rng.integers(0, 300, 5000))
    h2 = np.bincount(rng.integers(5, 320, 4000))
    xs = list(range(2, 12))
    ys = [int(v) / 997 for v in rng.integers(0, 10_000, len(xs))]
    ses = [int(v) / 991 for v in rng.integers(100, 900, len(xs))]
    sums = fa.sum(axis=0)
    agg = {"counts": np.array([3000, 3000, 0, 0]), "sums": sums,
           "sums_sq": (fa * fa).sum(axis=0)}
    out = [pm.mean_diff(0), pm.mean_diff(1, 2), pm.rate_diff(3),
           trend.linear_trend(xs, ys, ses), stats.summarize_hist(h1),
           stats.diff_of_means_hist(h1, h2), stats.mann_whitney_hist(h1, h2),
           stats.bootstrap_diff_hist(h1, h2, "mean", n_boot=200, seed=3),
           stats.chi_square_uniform(h1[:8]), estimates.per_round_se(agg, 4)]
    return repr(out)



def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {f for line in text.splitlines() if line.startswith("flags")
            for f in line.split(":", 1)[1].split()}


def _kernels() -> list[str]:
    flags = _cpu_flags()
    return [k for k, need in KERNELS.items() if need <= flags]


def _run_all(kernel: str, out: Path) -> tuple[dict[str, bytes], object]:
    todo = [(name, str(ROOT / "configs" / cfg), extra, str(out / name))
            for name, cfg, extra in cases()]
    env = {**os.environ, "OPENBLAS_CORETYPE": kernel, "OPENBLAS_VERBOSE": "0"}
    if kernel in OLD_NUMPY:
        env["NPY_DISABLE_CPU_FEATURES"] = OLD_NUMPY[kernel]
    done = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(todo), env=env,
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    arch, numbers = json.loads(done.stdout.strip().splitlines()[-1])
    summaries = {name: (out / name / "summary.json").read_bytes() for name, _, _ in cases()}
    return summaries, arch, numbers


@pytest.mark.skipif(len(_kernels()) < 2, reason="this CPU runs fewer than two OpenBLAS kernels")
def test_every_blas_kernel_gives_the_golden_bytes(tmp_path: Path) -> None:
    golden = {name: (GOLDEN / f"{name}.json").read_bytes() for name, _, _ in cases()}
    got, numbers = {}, {}
    for kernel in _kernels():
        got[kernel], arch, numbers[kernel] = _run_all(kernel, tmp_path / kernel)
        assert arch in (None, kernel), f"asked for the {kernel} kernel, OpenBLAS ran {arch}"
    first, *others = got
    for kernel in others:
        differ = [name for name in golden if got[kernel][name] != got[first][name]]
        assert not differ, f"{first} and {kernel} kernels give different summaries: {differ}"
        assert numbers[kernel] == numbers[first], f"{first} and {kernel}: statistics differ"
    differ = [name for name in golden if got[first][name] != golden[name]]
    assert not differ, f"every kernel agrees, but not with the goldens: {differ}"


# Modules whose numbers are printed or written, and the calls that would let a BLAS
# kernel, a SIMD reduction order or a CPU-dispatched transcendental decide a digit.
NUMERIC_MODULES = [p for p in sorted((ROOT / "unosim" / "analysis").glob("*.py"))
                   if p.name != "ratings.py"] + [
    ROOT / "unosim" / "report" / name for name in ("format.py", "verdicts.py", "run_report.py")]
FORBIDDEN = {"dot", "vdot", "inner", "matmul", "einsum", "tensordot", "linalg", "mean",
             "average", "std", "var", "nanmean", "nansum", "exp", "expm1", "log", "log1p",
             "log2", "log10", "power", "sin", "cos", "tan", "tanh", "arctan", "erf"}
# integer matrix products (numpy's own loop, exact, never BLAS)
INTEGER_MATMUL = {("stats.py", "_stat_rows"), ("paired.py", "from_features"),
                  ("factorial.py", "from_features")}


def test_no_float_reduction_decides_a_digit() -> None:
    """No ``@``, ``np.dot``, ``np.linalg``, numpy mean/std or numpy transcendental in
    the numeric modules (integer matrix products listed above excepted)."""
    import ast

    found = []
    for path in NUMERIC_MODULES:
        tree = ast.parse(path.read_text())
        owner = {}  # node -> name of the innermost function holding it
        for func in ast.walk(tree):
            if isinstance(func, ast.FunctionDef):
                owner.update((id(node), func.name) for node in ast.walk(func))
        for node in ast.walk(tree):
            if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult)
                    and (path.name, owner.get(id(node))) not in INTEGER_MATMUL):
                found.append(f"{path.name}:{node.lineno} @")
            if (isinstance(node, ast.Attribute) and node.attr in FORBIDDEN
                    and isinstance(node.value, ast.Name) and node.value.id in ("np", "numpy")):
                found.append(f"{path.name}:{node.lineno} np.{node.attr}")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in {"mean", "std", "var", "dot"}):
                found.append(f"{path.name}:{node.lineno} .{node.func.attr}()")
    assert not found, found
