"""Enter the trained seat in a 2-player league with ``random`` and ``cautious``; write results.md.

    python examples/rl/evaluate.py --games 1000 --seed 1

The same as ``unosim league random cautious examples/rl/ppo_seat.py:PPOSeat
--config two_player --games 1000 --seed 1``: every seating on duplicate deals;
the head-to-head win rates come with their 95% Wilson intervals.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

import unosim

SEAT = "examples/rl/ppo_seat.py:PPOSeat"
HERE = Path(__file__).parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=HERE / "results.md")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    t = time.perf_counter()
    ls = unosim.league(["random", "cautious", SEAT], "two_player", players=2, games=args.games,
                       seed=args.seed, jobs=1)
    took = time.perf_counter() - t
    lg = ls.leagues[0]
    m = lg.matrix()
    meta = json.loads(str(np.load(HERE / "ppo_uno_2p.npz")["meta"]))
    names = list(m.index)
    lines = [
        "# The trained seat in a 2-player league",
        "",
        f"Network: `ppo_uno_2p.npz`, trained by `python examples/rl/train.py "
        f"--steps {meta['steps']} --envs {meta['envs']} --seed {meta['seed']}` "
        f"against `{meta['opponent']}` on `{meta['config']}` in {meta['train_seconds']:.0f} s "
        f"of training (torch {meta['torch']}, CPU).",
        "",
        f"League: `python examples/rl/evaluate.py --games {args.games} --seed {args.seed}` "
        f"({took:.0f} s, load average {load:.1f} at the start): every 2-player seating of "
        f"the three policies on the same {args.games} deals of seed {args.seed}.",
        "",
        "Head to head: the row's win rate against the column, 95% Wilson interval, games.",
        "",
        "| policy | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for p in names:
        cells = []
        for q in names:
            if p == q:
                cells.append("")
                continue
            r, lo, hi = m["rate"].loc[p, q], m["low"].loc[p, q], m["high"].loc[p, q]
            cells.append(f"{100 * r:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] "
                         f"({int(m['games'].loc[p, q])})")
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    rt = lg.ratings
    lines += ["", "Ratings (Elo scale, 95% interval):", ""]
    for name, r, lo, hi in zip(lg.names, rt.rating, rt.low, rt.high, strict=True):
        lines.append(f"- {name}: {r:.0f} [{lo:.0f}, {hi:.0f}]")
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
