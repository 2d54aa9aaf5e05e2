"""Train a 2-player seat with MaskablePPO (sb3-contrib) against ``random``, and export it.

    pip install torch==2.13.0            # the CPU wheel; never let pip pick a CUDA build
    pip install -e '.[train]'
    python examples/rl/train.py --steps 300000 --out examples/rl/ppo_uno_2p.npz

The learner is seat 0 of configs/two_player.yaml in `unosim.env.single.UnoEnv`,
masked by its ``action_masks()``; the policy network (sb3's default MLP: two
tanh layers of 64) is written as plain numpy arrays, which
``examples/rl/ppo_seat.py`` plays as a plug-in seat with numpy alone.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

from unosim.env.single import UnoEnv


def export(model: MaskablePPO, out: Path, meta: dict) -> None:
    """The policy's layers (torch Linear: y = W x + b), tanh between them, logits last."""
    pol = model.policy
    linears = [m for m in pol.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linears.append(pol.action_net)
    arrays = {}
    for i, lin in enumerate(linears):
        arrays[f"w{i}"] = lin.weight.detach().cpu().numpy().astype(np.float32)
        arrays[f"b{i}"] = lin.bias.detach().cpu().numpy().astype(np.float32)
    np.savez_compressed(out, layers=np.array(len(linears)), meta=np.array(json.dumps(meta)),
                        **arrays)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=300_000, help="learner decisions to train on")
    ap.add_argument("--envs", type=int, default=8, help="tables stepped together")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("ppo_uno_2p.npz"))
    args = ap.parse_args()
    torch.set_num_threads(1)

    def make(i: int):
        def build() -> UnoEnv:
            env = UnoEnv("two_player", opponents=[args.opponent])
            env.reset(seed=args.seed * 1000 + i)
            return env
        return build

    venv = DummyVecEnv([make(i) for i in range(args.envs)])
    venv.seed(args.seed)
    model = MaskablePPO("MlpPolicy", venv, n_steps=256, batch_size=512, n_epochs=4,
                        learning_rate=3e-4, gamma=0.995, ent_coef=0.01, seed=args.seed,
                        device="cpu", verbose=1)
    t = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    took = time.perf_counter() - t
    meta = {"config": "two_player", "opponent": args.opponent, "steps": args.steps,
            "envs": args.envs, "seed": args.seed, "train_seconds": round(took, 1),
            "torch": torch.__version__}
    export(model, args.out, meta)
    print(json.dumps(meta))


if __name__ == "__main__":
    main()
