"""How many files a reader opens to answer three questions about unosim.

Each path below was followed by hand: from the file where a reader starts (the
command, the policy dispatcher, the card's effect) to every file holding logic or
a constant the answer needs, in the order a reader meets them. The script checks
that the path still holds (each file defines the names it is opened for, and each
is reached from an earlier one, by an import or a ``unosim.x.y`` reference in its
text), then prints the count. When code moves, it says which name is no longer
where the path claims, and the path is updated by hand: the count stays a
reader's count, not a tool's.

    python scripts/reader_paths.py
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Step:
    path: str  # under unosim/
    names: tuple[str, ...]  # what the reader reads there
    why: str


# question -> the files opened, in order
PATHS: dict[str, list[Step]] = {
    "what does a Draw Two do?": [
        Step("engine/kernel/rules.py", ("after_choices", "can_stack", "goto_pending", "accept"),
             "the effect: a pending draw, stacking on it, taking it"),
        Step("rules/effects.py", ("FX_DRAW", "ACT_DRAW", "action_codes"),
             "a draw effect as a column of the kind table, and a play's action code"),
        Step("engine/kernel/state.py", ("S_PEND", "S_CHAIN", "S_PEND_KIND", "C_STACK_D2_D2",
                                 "CAUSE_DRAW2", "config_tuple"),
             "the pending-draw fields, the stacking house rules, the tables in the config"),
        Step("rules/editions.py", ("STANDARD_EFFECTS", "kind_table", "effects_by_kind"),
             "which kind is a Draw Two: its edition's card list (draw 2)"),
        Step("rules/cards.py", ("KindTable",), "the edition's kinds: ids, colors, symbols"),
        Step("engine/kernel/table.py", ("draw_n",), "the draw itself"),
        Step("engine/kernel/deal.py", ("first_flip",), "a Draw Two turned up as the first card"),
    ],
    "how does `strategic` decide?": [
        Step("engine/kernel/policies.py", ("policy_action",), "the dispatcher: a seat's policy kind"),
        Step("engine/kernel/habits.py", ("habit_action", "turn_card", "name_color", "stack_card"),
             "the habits and how they pick"),
        Step("engine/kernel/state.py", ("P_KIND",), "the parameter columns the habits read"),
        Step("rules/models.py", ("POLICY_DEFAULTS", "HabitParams"),
             "which habits strategic switches on, and their defaults"),
    ],
    "how does `compare` pair two configs?": [
        Step("cli/compare.py", ("compare_cmd",), "the command"),
        Step("study/compare.py", ("run_comparison",), "the configs, run together"),
        Step("study/runs.py", ("run_paired",), "the study's run, with pairs"),
        Step("run/runner.py", ("run_lockstep",), "every config on the same games, chunk by chunk"),
        Step("run/backends.py", ("chunk_task", "pair_moments"),
             "one chunk of each config, and the pair's sums of products"),
        Step("engine/kernel/batch.py", ("simulate",), "a chunk's games and per-game features"),
        Step("engine/kernel/rng.py", ("seed_game",), "game g's random stream: same seed, same game"),
        Step("report/comparison.py", ("compare_runs",), "the paired differences, per metric"),
        Step("analysis/paired.py", ("PairMoments", "paired_diff"),
             "a difference, its interval and test from the moments"),
    ],
}


def defined(tree: ast.Module) -> set[str]:
    """Top-level names a module defines (functions, classes, assignments)."""
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                out.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
    return out


def reached(tree: ast.Module, text: str) -> set[str]:
    """Modules a file leads to: its imports and the ``unosim.x.y`` names in its text."""
    out = set(re.findall(r"\bunosim(?:\.\w+)+", text))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def module(step: Step) -> str:
    return "unosim." + step.path.removesuffix(".py").replace("/", ".")


def check(steps: list[Step]) -> list[str]:
    """What no longer holds of a path (empty when it holds)."""
    problems: list[str] = []
    seen: set[str] = set()
    for i, step in enumerate(steps):
        file = ROOT / "unosim" / step.path
        if not file.is_file():
            problems.append(f"{step.path}: no such file")
            continue
        text = file.read_text(encoding="utf-8")
        tree = ast.parse(text)
        missing = [n for n in step.names if n not in defined(tree)]
        if missing:
            problems.append(f"{step.path}: does not define {', '.join(missing)}")
        if i and module(step) not in seen:
            problems.append(f"{step.path}: not reached from the files before it")
        seen |= reached(tree, text)
    return problems


def main() -> int:
    failed = False
    for question, steps in PATHS.items():
        print(f"{question}  {len(steps)} files")
        for step in steps:
            print(f"  unosim/{step.path:<22} {step.why}")
        for problem in check(steps):
            failed = True
            print(f"  ! {problem}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
