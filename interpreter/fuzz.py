"""`gdl fuzz`: find the ambiguities and holes in any ruleset.

`fuzz(path)` explores a game within a time budget and returns a `FuzzReport` of findings:

- **deadlock**: a seat must move but has no legal move;
- **order dependence**: triggers of equal priority fire together and their order changes
  the result;
- **uncovered case**: a table, list or zone has no case for a value that occurs;
- **endless play**: a state comes back (the game can go round for ever), comes back but for
  a counter that only a limit stops, or no end comes within `max_steps`;
- **invariant violation**: a declared `invariant`, or a law of `gdl.laws`, fails;
- **rule error** (any other error the rules raise) and **internal error** (a bug in gdl);
- **option clash**: a configuration that cannot be set up;
- **dead rule**: a rule, branch or (with `sweep`) option value that never makes a
  difference in the whole run.

The exploration mixes a bounded breadth-first walk (shortest traces; exhaustive where a
small variant allows), random and coverage-guided playthroughs, and lockstep play under
every order of equal-priority triggers.  Every finding with a trace is shrunk, written as
a trace file and opens in `gdl play FILE --trace T`.  Work runs in `jobs` processes.
"""
from __future__ import annotations

import json
import re
import tempfile
import time
import uuid
from pathlib import Path
from typing import Callable, Dict, List, Optional

import attrs

from ._fuzz_common import DEAD, ENDLESS, HOLES, KINDS, declarations
from ._fuzz_diff import DiffResult, diff
from ._fuzz_report import coverage_rows, dead_findings, report_json, report_text
from ._fuzz_sweep import changed_option, player_configs, sweep_configs, value_text
from ._workers import LOST_WORKER, check_main_guard, stop_now, worker_pool
from .fuzz_limits import DEFAULT_BUDGET, DEFAULT_MAX_STATES, DEFAULT_MAX_STEPS
from .serial import TRACE_FORMAT

#: Seeded playthroughs (at most, and their step limit) that compare a swept value with
#: the base; at least PROBE_LEAST of them must have run for a value to be called dead.
PROBE_RUNS, PROBE_LIMIT, PROBE_LEAST = 12, 300, 3
#: Share of the budget spent exploring; the rest shrinks the findings.
EXPLORE_SHARE = 0.7
#: the share of the exploring time left that the round of tasks with the walks may take
WALK_ROUND = 0.5
#: with `--sweep-options`, the share of the first exploring time the main configurations
#: take; the swept ones are explored (walk, trigger orders, playthroughs) in the rest
MAIN_SHARE = 0.6


@attrs.define
class Finding:
    """One hole: its kind, what happened, the rules involved (name, file, line), the
    options in force, the steps that lead to it (None for dead rules) and more lines."""
    kind: str
    message: str
    rules: List[tuple] = attrs.Factory(list)
    options: Dict[str, str] = attrs.Factory(dict)
    steps: Optional[list] = None
    detail: List[str] = attrs.Factory(list)
    subkind: str = ""
    shrunk: bool = False
    shrunk_from: Optional[int] = None
    count: int = 1
    configs: List[dict] = attrs.Factory(list)
    trace_path: Optional[str] = None

    @property
    def at(self) -> Optional[int]:
        """Returns the number of steps before the finding shows (None: no trace)."""
        return None if self.steps is None else len(self.steps)

    def to_json(self) -> dict:
        data = attrs.asdict(self, recurse=False)
        data["rules"] = [{"name": n, "file": f, "line": l} for n, f, l in self.rules]
        data["at"] = self.at
        return data


@attrs.define
class FuzzReport:
    """What a fuzz run found, with the coverage of every rule and what it explored."""
    path: str
    title: str
    options: Dict[str, str]
    findings: List[Finding]
    coverage: List[dict]
    configs: List[dict]
    stats: Dict[str, object]
    seconds: float
    budget: float
    jobs: int
    seed: int
    trace_dir: Optional[str] = None
    interrupted: bool = False      # ended early by Ctrl-C (`fuzz(stop_on_interrupt=True)`)
    unswept: bool = False          # the game has options whose other values were not tried

    def holes(self) -> List[Finding]:
        """Returns the findings that are holes (all but dead rules)."""
        return [f for f in self.findings if f.kind in HOLES]

    def by_kind(self, kind: str) -> List[Finding]:
        return [f for f in self.findings if f.kind == kind]

    def text(self) -> str:
        return report_text(self)

    def to_json(self) -> dict:
        return report_json(self)


# ---------------------------------------------------------------------------- running work
class _Runner:
    """Runs tasks in this process (jobs = 1) or in a pool of spawned workers, all given
    the run's checked ruleset (see `_workers` for the pool)."""

    def __init__(self, run: "_Run", ruleset):
        from ._fuzz_tasks import share_ruleset, sources_of, start_worker
        self.pool = None
        if run.jobs == 1:
            share_ruleset(run.token, run.path, ruleset)
        else:
            self.pool = worker_pool(run.jobs, start_worker, (run.token, run.path, ruleset,
                                                             sources_of(ruleset)))

    def map(self, tasks, on_result):
        """Calls `on_result` with each task's result, in the order they finish."""
        from ._fuzz_tasks import run_task
        if self.pool is None:
            for t in tasks:
                on_result(run_task(t))
            return
        from concurrent.futures import as_completed
        from concurrent.futures.process import BrokenProcessPool
        try:
            for done in as_completed([self.pool.submit(run_task, t) for t in tasks]):
                on_result(done.result())
        except BrokenProcessPool:
            raise BrokenProcessPool(LOST_WORKER) from None

    def close(self, ok: bool):
        """Lets the workers finish (`ok`) or stops them at once (an error, Ctrl-C: a
        task runs for seconds, and the user is waiting)."""
        if self.pool is None:
            from ._fuzz_tasks import forget_run
            forget_run()                            # its games: this process goes on
        elif ok:
            self.pool.shutdown()
        else:
            stop_now(self.pool)


def _key(config: dict) -> tuple:
    return tuple(sorted(config.items()))


class _Run:
    """The state of one fuzz run: configurations, merged results and the clock."""

    def __init__(self, path, base, *, budget, seed, jobs, max_steps, max_states, progress):
        self.path, self.base = str(path), base
        self.budget, self.seed, self.jobs = budget, seed, jobs
        self.max_steps, self.max_states = max_steps, max_states
        self.progress = progress
        self.start = time.monotonic()
        self.token = uuid.uuid4().hex             # tells a worker's tasks of this run apart
        self.findings: Dict[tuple, dict] = {}
        self.coverage: Dict[tuple, int] = {}
        self.corpus: Dict[tuple, list] = {}
        self.digests: Dict[tuple, list] = {}
        self.alive: Dict[tuple, bool] = {}
        self.stats = {"playthroughs": 0, "steps": 0, "ended": 0, "walk_states": 0,
                      "walk_complete": None, "trigger_orders": 0, "shrink_replays": 0}
        self.task_no = 0
        self.walked: set = set()                 # configurations walked breadth first
        self.exhausted: set = set()              # ... whose walk saw every state

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def tick(self, note: str = ""):
        if self.progress is not None:
            self.progress(min(self.elapsed(), self.budget), note)

    def task(self, kind: str, config: dict, **fields) -> dict:
        self.task_no += 1
        return {"type": kind, "path": self.path, "run": self.token,
                "overrides": config, "config": _key(config),
                "seed": self.seed * 100_003 + self.task_no, "max_steps": self.max_steps,
                "max_states": self.max_states, **fields}

    def absorb(self, result: dict):
        config = result["config"]
        for k, v in result["coverage"].items():
            self.coverage[k] = self.coverage.get(k, 0) + v
        for f in result["findings"]:
            self.merge(f)
        self.corpus.setdefault(config, []).extend(result["corpus"])
        del self.corpus[config][:-60]
        for name in ("playthroughs", "steps", "ended"):
            self.stats[name] += result["stats"].get(name, 0)
        if "digests" in result:
            self.digests[config] = result["digests"]
        if "setup" in result:
            self.alive[config] = result["setup"]
        if "walk" in result:
            w = result["walk"]
            self.stats["walk_states"] += w["states"]
            done = w["complete"] and w["exhaustive"]
            if done and not result.get("orders"):
                self.exhausted.add(config)
            self.stats["walk_complete"] = done if self.stats["walk_complete"] is None \
                else self.stats["walk_complete"] and done
        self.stats["trigger_orders"] = max(self.stats["trigger_orders"], result.get("orders", 0))
        self.stats["shrink_replays"] += result.get("tries", 0)
        self.tick(f"{len(self.findings)} findings")

    def merge(self, f: dict):
        """Keeps one finding per signature (the shortest), counting where it showed."""
        old = self.findings.get(f["sig"])
        configs = [f["options"]]
        if old is not None:
            configs = old["configs"] + [c for c in configs if c not in old["configs"]]
            count = old["count"] + 1
            if self.rank(old) <= self.rank(f):
                old["configs"], old["count"] = configs, count
                return
            f = {**f, "configs": configs, "count": count}
        else:
            f = {**f, "configs": configs, "count": 1}
        self.findings[f["sig"]] = f

    def rank(self, f) -> tuple:
        """Findings under the base options come first, then shorter traces."""
        return (f["options"] != self.base, len(f["steps"]) if f["steps"] is not None else 0)


# ---------------------------------------------------------------------------- the phases
def _probe_phase(run: _Run, runner: _Runner, configs: List[dict]):
    seconds = min(1.5, max(0.2, 0.15 * run.budget * run.jobs / max(1, len(configs))))
    tasks = [run.task("probe", c, runs=PROBE_RUNS, limit=PROBE_LIMIT, seconds=seconds,
                      fp_seed=run.seed) for c in configs]
    runner.map(tasks, run.absorb)


def _explore_phase(run: _Run, runner: _Runner, mains: List[dict], end: float):
    """Explores the main configurations until `end` seconds into the run: first a
    breadth-first walk of each, then rounds of playthroughs that pass on start points."""
    alive = [c for c in mains if run.alive.get(_key(c)) and _key(c) not in run.exhausted]
    while alive and run.elapsed() < end - 0.1:
        left = end - run.elapsed()
        count = max(run.jobs, len(alive))
        waves = -(-count // run.jobs)            # rounds of tasks one worker runs in turn
        seconds = max(0.2, (min(2.0, left / 2) if left > 0.6 else left) / waves)
        if any(_key(c) not in run.walked for c in alive):
            # the round that walks: a longer budget walks further (the walk, 40% of a
            # task, had at most 0.8 s whatever the budget), every task as long, so that
            # no worker waits idle for the walking one
            seconds = max(seconds, left * WALK_ROUND / waves)
        tasks = []
        for n in range(count):
            c = alive[n % len(alive)]
            fresh = _key(c) not in run.walked
            run.walked.add(_key(c))
            tasks.append(run.task("explore", c, seconds=seconds, walk=fresh, orders=True,
                                  starts=run.corpus.get(_key(c), [])[-30:]))
        runner.map(tasks, run.absorb)
        alive = [c for c in alive if _key(c) not in run.exhausted]


def _shrink_phase(run: _Run, runner: _Runner):
    todo = [f for f in run.findings.values()
            if not f["shrunk"] and f["probe"] and f["steps"]]
    if not todo:
        return
    left = max(0.5, run.budget - run.elapsed())
    waves = -(-len(todo) // run.jobs)
    seconds = max(0.3, left / waves)
    tasks = [run.task("shrink", f["options"], finding=f, seconds=seconds) for f in todo]

    def done(result):
        for other in result["findings"]:
            run.merge(other)
        f = result["finding"]
        old = run.findings[f["sig"]]
        f["configs"], f["count"] = old["configs"], old["count"]
        run.findings[f["sig"]] = f
        run.stats["shrink_replays"] += result.get("tries", 0)
        run.tick("shrinking")
    runner.map(tasks, done)


# ---------------------------------------------------------------------------- the API
def fuzz(path, overrides: Optional[Dict[str, str]] = None, *, budget: float = DEFAULT_BUDGET,
         seed: int = 0, players: Optional[List[int]] = None, sweep: bool = False,
         jobs: int = 1, max_steps: int = DEFAULT_MAX_STEPS,
         max_states: int = DEFAULT_MAX_STATES, out_dir: Optional[str] = None,
         write_traces: bool = True,
         progress: Optional[Callable[[float, str], None]] = None,
         stop_on_interrupt: bool = False) -> FuzzReport:
    """Returns the report of fuzzing a ruleset file for about `budget` seconds.

    `overrides` are option texts (as `--set` takes them); `players` lists player counts to
    try; `sweep` also tries every other value of each option, one at a time; `jobs`
    worker processes share the work; `max_steps` bounds a playthrough and `max_states`
    the breadth-first walk.  Traces go to `out_dir` (default: a new temporary directory).
    `progress(seconds, note)` is called as work completes.  With `stop_on_interrupt`, a
    Ctrl-C (KeyboardInterrupt) ends the run early with the report of what the finished
    work found (`interrupted` set; the task under way is lost, a few seconds at most, and
    dead rules and option values are not judged); without, it propagates.  Errors in the
    ruleset itself or in `overrides` raise GdlError, as `load` does."""
    from .game import load
    if jobs > 1:
        check_main_guard("fuzz")
    base = {k: v if isinstance(v, str) else value_text(v) for k, v in (overrides or {}).items()}
    base_game = load(path, base)
    mains = (player_configs(base_game.ruleset, base, players, base_game.num_players)
             if players else [base])
    sweeps = sweep_configs(base_game.ruleset, base, base_game.options) if sweep else []
    run = _Run(path, base, budget=budget, seed=seed, jobs=max(1, jobs),
               max_steps=max_steps, max_states=max_states, progress=progress)
    configs = _unique([base] + mains + sweeps)
    runner = _Runner(run, base_game.ruleset)
    ok = interrupted = False
    try:
        _probe_phase(run, runner, configs)
        swept = [c for c in sweeps if c not in mains]
        first = budget * EXPLORE_SHARE
        _explore_phase(run, runner, mains, first * MAIN_SHARE if swept else first)
        if swept:
            _explore_phase(run, runner, swept, first)
        _shrink_phase(run, runner)
        if budget - run.elapsed() > 0.8:          # time left: explore on, then shrink
            _explore_phase(run, runner, mains, budget - 0.5)
            _shrink_phase(run, runner)
        ok = True
    except KeyboardInterrupt:
        if not stop_on_interrupt:
            raise
        interrupted = True                        # the workers are stopped at once below
    finally:
        runner.close(ok)
    report = _report(run, base_game, configs, sweeps, interrupted)
    if write_traces:
        report.trace_dir = write_trace_files(report, out_dir)
    return report


def _proven_finite(run: _Run, f: dict, cyclic: set) -> bool:
    """Whether a counter finding ("only a limit on X ends this line") is refuted: in every
    configuration it showed in, the breadth-first walk saw every state and no cycle (the
    configurations in `cyclic` had one); a bound the rules do set, such as an action's
    range, stops the counter."""
    if f["kind"] != ENDLESS or f["subkind"] != "counter":
        return False
    return all(_key(c) in run.exhausted and _key(c) not in cyclic for c in f["configs"])


def _unique(configs: List[dict]) -> List[dict]:
    out, seen = [], set()
    for c in configs:
        if _key(c) not in seen:
            seen.add(_key(c))
            out.append(c)
    return out


def _report(run: _Run, base_game, configs, sweeps, interrupted: bool = False) -> FuzzReport:
    """Returns the report: the merged findings, the dead rules and option values (not
    after an interruption: a rule the cut-short run did not reach is not dead for that),
    and the coverage of every rule."""
    ruleset = base_game.ruleset
    decls = declarations(ruleset)
    cyclic = {_key(c) for g in run.findings.values()
              if g["kind"] == ENDLESS and g["subkind"] == "cycle" for c in g["configs"]}
    findings = [_finding(f) for f in run.findings.values()
                if not _proven_finite(run, f, cyclic)]
    if not interrupted:
        findings += [Finding(**f)
                     for f in dead_findings(ruleset, decls, run.coverage, run.base)]
        findings += _dead_options(run, run.base, sweeps)
    findings.sort(key=lambda f: (KINDS.index(f.kind), f.subkind, f.at or 0, f.message))
    return FuzzReport(
        path=run.path, title=base_game.title, options=run.base, findings=findings,
        coverage=coverage_rows(ruleset, decls, run.coverage), configs=configs,
        stats=run.stats, seconds=run.elapsed(), budget=run.budget, jobs=run.jobs,
        seed=run.seed, interrupted=interrupted,
        unswept=not sweeps and bool(sweep_configs(ruleset, run.base, base_game.options)))


def _finding(raw: dict) -> Finding:
    return Finding(kind=raw["kind"], message=raw["message"],
                   rules=[tuple(r) for r in raw["rules"]], options=raw["options"],
                   steps=raw["steps"], detail=raw["detail"], subkind=raw["subkind"],
                   shrunk=raw["shrunk"], shrunk_from=raw.get("shrunk_from"),
                   count=raw.get("count", 1), configs=raw.get("configs", []))


def _dead_options(run: _Run, base: dict, sweeps: List[dict]) -> List[Finding]:
    """Returns a candidate dead option value for each swept configuration that played
    exactly like the base."""
    ref = run.digests.get(_key(base))
    if not ref:
        return []
    out = []
    for config in sweeps:
        got = run.digests.get(_key(config)) or []
        n = min(len(ref), len(got))
        if n < PROBE_LEAST or got[:n] != ref[:n]:
            continue
        name, value = changed_option(config, base)
        out.append(Finding(
            kind=DEAD, subkind="option value", options=config,
            message=f"option value {name}={value} changes nothing in {n} seeded "
                    f"playthroughs of up to {PROBE_LIMIT} steps (candidate dead option value)",
            detail=["the same moves were offered, and the table, the returns and what each "
                    "seat saw were the same at every step as with the base options"]))
    return out


#: the names `write_trace_files` gives its traces: `NN-kind.json`
TRACE_NAME = re.compile(r"[0-9]{2,}-[a-z-]+\.json")


def write_trace_files(report: FuzzReport, out_dir: Optional[str] = None) -> Optional[str]:
    """Writes each finding's trace as JSON to `out_dir` (default: a new temporary
    directory, made only where some finding has a trace: every run left one, mostly
    empty); returns the directory, None where none was made."""
    if not out_dir and all(f.steps is None for f in report.findings):
        return None
    folder = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="gdl-fuzz-"))
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.json"):       # an earlier fuzz's traces, mixed in with
        if TRACE_NAME.fullmatch(old.name):  # these, were read as this run's findings
            old.unlink()
    n = 0
    for f in report.findings:
        if f.steps is None:
            continue
        n += 1
        name = f"{n:02d}-{re.sub(r'[^a-z]+', '-', f.kind)}.json"
        trace = {"format": TRACE_FORMAT, "game": report.path, "options": f.options,
                 "seed": report.seed, "steps": f.steps}
        path = folder / name
        path.write_text(json.dumps(trace) + "\n", encoding="utf-8")
        f.trace_path = str(path)
    return str(folder)


__all__ = ["fuzz", "diff", "DiffResult", "Finding", "FuzzReport", "KINDS", "HOLES",
           "DEFAULT_BUDGET", "DEFAULT_MAX_STEPS", "DEFAULT_MAX_STATES", "write_trace_files"]
