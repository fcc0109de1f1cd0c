"""Times two checkouts' random playouts of one ruleset against each other: a worker
process per checkout, taking turns of a quarter of a second each on one core, so that
whatever else the machine does falls on both alike; prints each one's playouts per CPU
second and the median of the paired ratios (the tree's over the base's).

    .venv/bin/python benchmarks/turns.py RULESET --base DIR [--tree DIR] [--seconds S]
                                         [--hash-seed N ...] [--core C] [-o NAME=VALUE]

Why not `run.py` twice: on these shared machines two runs of one commit differ by more
than most changes do.  Two things move a run: the machine's load, which turns shared
between the workers and CPU time (not wall time) take out, and the hash seed, which lays
out every dict and set of a process differently: two workers of one commit with random
hash seeds were 3% apart, so each run here gives both workers the same fixed seed, and
`--hash-seed 0 1 2` runs once per seed.  A change worth keeping shows on every seed.
`RULESET` is a path, or a name under each checkout's `rulesets/`; the playouts are
seeded as `run.py`'s are (random agents, `random.Random(0)`, 20 warm-up playouts).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: a turn's length, in seconds of wall time
TURN = 0.25


def worker(tree: str, ruleset: str, options: dict, core) -> None:
    """Plays a turn of random playouts for each line read (its length in seconds) and
    writes back how many it played and the CPU seconds they took."""
    import random
    if core is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {core})
    sys.path.insert(0, tree)
    from gdl.errors import GdlError
    from interpreter.agents import AGENTS, play_out
    from interpreter.game import load

    try:
        game = load(ruleset, options)
    except GdlError as err:             # the message, not a traceback: said by the parent
        print(f"turns.py: {err}", file=sys.stderr, flush=True)
        raise SystemExit(2)
    compile_now = getattr(game, "compile_now", None)    # older trees have none
    if compile_now is not None:
        compile_now()
    agents = [AGENTS["random"]] * game.num_players
    rng = random.Random(0)
    for _ in range(20):
        play_out(game.new_state(), agents, rng)
    print("ready", flush=True)
    for line in sys.stdin:
        n, end, cpu = 0, time.perf_counter() + float(line), time.process_time()
        while True:
            play_out(game.new_state(), agents, rng)
            n += 1
            if time.perf_counter() >= end:
                break
        print(n, time.process_time() - cpu, flush=True)


def _ruleset_in(tree: Path, ruleset: str) -> str:
    path = Path(ruleset)
    if path.is_file():
        return str(path.resolve())
    inside = tree / "rulesets" / ruleset
    if not inside.is_file():
        raise SystemExit(f"turns.py: no ruleset {ruleset} (neither a file nor under "
                         f"{tree / 'rulesets'})")
    return str(inside)


def compare(ruleset: str, base: Path, tree: Path, seconds: float, seed: int, core,
            options: dict) -> tuple:
    """(base's, tree's playouts per CPU second, the median paired ratio) of one run."""
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    env.pop("PYTHONPATH", None)
    workers = []
    try:
        for root in (base, tree):
            args = [sys.executable, __file__, "--worker", str(root),
                    _ruleset_in(root, ruleset), "--core", "" if core is None else str(core)]
            for name, value in options.items():
                args += ["-o", f"{name}={value}"]
            workers.append(subprocess.Popen(args, stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, text=True, env=env,
                                            cwd=str(root)))
        for w in workers:
            if not w.stdout.readline().startswith("ready"):
                raise SystemExit(f"turns.py: a worker failed to start ({w.args[3]})")
        rates: list = [[], []]
        for _ in range(max(1, int(seconds / (2 * TURN)))):
            for w, got in zip(workers, rates):
                w.stdin.write(f"{TURN}\n")
                w.stdin.flush()
                n, cpu = w.stdout.readline().split()
                got.append(int(n) / max(float(cpu), 1e-9))
    finally:
        for w in workers:
            if w.stdin:
                w.stdin.close()
            w.wait()
    ratios = [t / b for b, t in zip(*rates)]
    return statistics.median(rates[0]), statistics.median(rates[1]), statistics.median(ratios)


def _option(text: str):
    name, eq, value = text.partition("=")
    if not eq or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    return name, value


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--worker"]:
        wp = argparse.ArgumentParser(prog="turns.py --worker")
        wp.add_argument("tree")
        wp.add_argument("ruleset")
        wp.add_argument("--core", default="")
        wp.add_argument("-o", dest="option", action="append", default=[], type=_option)
        w = wp.parse_args(argv[1:])
        worker(w.tree, w.ruleset, dict(w.option), int(w.core) if w.core else None)
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ruleset", help="a ruleset file, or its path under rulesets/")
    ap.add_argument("--base", type=Path, required=True, help="the checkout compared with")
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout timed (default: "
                                                             "this one)")
    ap.add_argument("--seconds", type=float, default=30.0,
                    help="seconds of turns per hash seed, both workers together (30)")
    ap.add_argument("--hash-seed", type=int, nargs="+", default=[0], metavar="N",
                    help="the PYTHONHASHSEED of both workers, one run per seed (0)")
    ap.add_argument("--core", type=int, default=None,
                    help="the core both workers run on (default: where they are put)")
    ap.add_argument("-o", dest="option", action="append", default=[], type=_option,
                    metavar="NAME=VALUE", help="an option of the ruleset (repeatable)")
    args = ap.parse_args(argv)
    base, tree = args.base.resolve(), args.tree.resolve()
    for root in (base, tree):
        if not (root / "interpreter").is_dir():
            ap.error(f"{root} is not a checkout of gdl (it has no interpreter/)")
    for seed in args.hash_seed:
        b, t, ratio = compare(args.ruleset, base, tree, args.seconds, seed, args.core,
                              dict(args.option))
        print(f"hash seed {seed}: base {b:,.1f} playouts/s, tree {t:,.1f}; "
              f"tree/base {ratio:.3f} (median of paired turns)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
