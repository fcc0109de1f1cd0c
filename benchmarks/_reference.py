"""The hand-written playouts of `shared/bench-reference`, loaded by file path (they are
never installed or imported by name), for `run.py`'s timings and `counts.py`'s bytecodes.
Nothing here imports the engine, so `counts.py --tree` can still choose which engine
to import."""
from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: where the hand-written playouts are when the project's `shared/` folder sits beside
#: the checkout, as in CI (run.py's `--reference` and counts.py's `--reference-dir` name
#: another)
REFERENCE = ROOT.parent / "shared" / "bench-reference"
#: our own plain playouts of games that are not seed games (a sixth game's yardstick),
#: written as the references are
PLAIN = ROOT / "benchmarks" / "plain"


def reference_playout(name: str, folder=REFERENCE):
    """Returns the hand-written `playout(rng) -> (result, decisions)` of the game `name`
    (a seed game's ruleset stem), with the arguments the benchmark plays it with, or None
    where `folder` has no module of that name."""
    path = Path(folder) / f"{name}.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"_bench_reference_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if name == "double_down":       # the ruleset's default table: four players
        return functools.partial(module.playout, n_players=4)   # no bytecode of its own
    return module.playout
