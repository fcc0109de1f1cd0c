"""The units of work of `gdl fuzz`, run in the main process or in worker processes.

Each task is a plain dict and so is its result, so that both pickle under the `spawn`
start method; `run_task` is a module-level function a worker can import.  A task plays
the game its process keeps for its options (`_load`), with coverage counted from 0, so
nothing passes between tasks but what the results carry back: findings, coverage counts,
new start points and statistics.
"""
from __future__ import annotations

import random
import time

from gdl.errors import GdlError

from ._fuzz_common import (CLASH, INTERNAL, chance_step, classify, declarations,
                           error_place, error_text, internal_where, option_texts,
                           raw_finding, rule_ref)
from ._fuzz_play import Explorer, fingerprint_runs

#: Steps a start point may have to be passed on to other workers.
CORPUS_STEPS = 2000
#: Deals tried before a configuration's failure before its first decision is called an
#: option clash (the game cannot be set up) rather than one deal's error.
CLASH_DEALS = 8
#: Playthroughs after a breadth-first walk that saw every state.
EXHAUSTED_PLAYTHROUGHS = 50


def run_task(task: dict) -> dict:
    """Runs one task: `probe`, `explore` or `shrink`; returns its result.  A crash is
    returned as an internal-error finding, so one bad configuration does not stop the
    run."""
    kind = task["type"]
    try:
        if kind == "probe":
            return _probe(task)
        if kind == "explore":
            return _explore(task)
        return _shrink(task)
    except GdlError as err:          # a swept configuration the engine refuses late
        if kind == "shrink":
            return _result(task, finding=task["finding"])
        return _result(task, findings=[_clash(task, err)], setup=False)
    except Exception as err:  # noqa: BLE001 - a bug in gdl: report it, keep going
        finding = raw_finding(
            INTERNAL, f"{kind} of {task['overrides'] or 'the defaults'} crashed: "
            f"{error_text(err)}", option_texts(task["overrides"]),
            detail=[f"a bug in gdl: {type(err).__name__} at {internal_where(err)}"],
            sig=("task", type(err).__name__, internal_where(err)))
        out = _result(task, findings=[finding])
        if kind == "shrink":
            out["finding"] = task["finding"]
        return out


#: the checked ruleset of the run whose tasks this process runs: a run's tasks (hundreds of
#: short ones in a long run, two games per trigger order) share it
_RULESET: dict = {}
#: the run's games this process has loaded, by their options, each task's coverage counts
#: set back to 0 (a game's compiling, at load and at each run's first use, was 4-7% of a
#: run when each task loaded its own); the most recently loaded few are kept
_GAMES: dict = {}
GAMES_KEPT = 8


def share_ruleset(run: str, path: str, ruleset):
    """Gives this process a run's checked ruleset, the one the run loaded: its tasks do not
    read the file again (the designer may be editing it)."""
    forget_run()
    _RULESET[(run, path)] = ruleset


def forget_run():
    """Lets go of the run's ruleset and games (a run in this process has ended)."""
    _RULESET.clear()
    _GAMES.clear()


def sources_of(ruleset) -> dict:
    """The texts of the files a ruleset's declarations come from (a variant's and its
    base's), as this process read them."""
    from gdl.errors import SOURCES
    files = {d.span.file for d in ruleset.decls if getattr(d, "span", None) is not None}
    return {f: SOURCES[f] for f in files if f in SOURCES}


def start_worker(run: str, path: str, ruleset, sources: Optional[dict] = None):
    """A worker process's first step: the run's ruleset, and the texts of its files
    (a rule's line quoted in a worker, as a deadlock's why does, is read from them);
    Ctrl-C left to the parent."""
    from gdl.errors import SOURCES
    from ._workers import ignore_interrupts
    ignore_interrupts()
    SOURCES.update(sources or {})
    share_ruleset(run, path, ruleset)


def _load(task, order=None, fresh: bool = False):
    """The task's game, with coverage counted from 0: the one this process keeps for its
    options, or a game of its own when `fresh` or under a trigger `order` (which is set
    on the game itself)."""
    from .game import Game, load_ruleset
    key = (task.get("run"), task["path"])
    ruleset = _RULESET.get(key)
    if ruleset is None:
        share_ruleset(*key, load_ruleset(task["path"]))
        ruleset = _RULESET[key]
    if fresh or order is not None:
        return Game(ruleset, task["overrides"], coverage=True, trigger_order=order)
    options = tuple(sorted(task["overrides"].items()))
    game = _GAMES.pop(options, None)
    if game is None:
        game = Game(ruleset, task["overrides"], coverage=True)
        while len(_GAMES) >= GAMES_KEPT:
            del _GAMES[next(iter(_GAMES))]
    else:
        coverage = game.coverage
        for statement in coverage:
            coverage[statement] = 0
    _GAMES[options] = game                      # the most recent last
    return game


def _result(task, explorer=None, **extra) -> dict:
    out = {"type": task["type"], "config": task["config"], "findings": [],
           "coverage": {}, "corpus": [], "stats": {}}
    if explorer is not None:
        out["findings"] = list(explorer.findings.values())
        out["coverage"] = dict(explorer.game.coverage or {})
        out["corpus"] = [s for s in explorer.new_corpus if len(s) <= CORPUS_STEPS][-50:]
        out["stats"] = {"playthroughs": explorer.playthroughs, "steps": explorer.steps,
                        "ended": explorer.ended}
    out.update(extra)
    return out


# ---------------------------------------------------------------------------- probe
def _clash(task, err, steps=None, decls=None) -> dict:
    rule, file, line = error_place(err)
    rules = [rule_ref(decls or {}, rule, line, file)] if rule or line else []
    what = ", ".join(f"{k}={v}" for k, v in task["overrides"].items()) or "the defaults"
    kind = classify(err)
    detail = [f"a bug in gdl: {error_text(err)}"] if kind == INTERNAL else []
    return raw_finding(CLASH, f"the game cannot be set up with {what}: {error_text(err)}",
                       option_texts(task["overrides"]), rules=rules, steps=steps or [],
                       detail=detail, sig=(tuple(sorted(task["overrides"].items())),))


def _probe(task) -> dict:
    """Loads a configuration and plays it to its first decision (an option clash if that
    fails), then plays seeded playthroughs whose digests tell a dead option value."""
    try:
        game = _load(task)
    except GdlError as err:
        return _result(task, findings=[_clash(task, err)], setup=False)
    decls = declarations(game.ruleset)
    try:
        game.new_state(task["seed"])
    except Exception as err:  # noqa: BLE001 - the setup fails: an option clash
        return _result(task, findings=[_clash(task, err, [], decls)], setup=False,
                       coverage=dict(game.coverage or {}))
    # A failure after a chance step is that deal's (play finds and reports it as the
    # rules' error): a clash only where no deal of a few gets past the chance steps.
    # The steps are bounded: a game of chance alone can go on for ever.
    failed = None
    for attempt in range(CLASH_DEALS):
        steps = []
        rng = random.Random(task["seed"] + attempt)
        try:
            state = game.new_state(task["seed"] + attempt)
            while state.is_chance() and len(steps) < task["max_steps"]:
                outcome = state.sample_chance(rng)
                steps.append(chance_step(outcome))
                state.apply_chance(outcome)
            failed = None
            break
        except Exception as err:  # noqa: BLE001 - this deal fails
            if failed is None:
                failed = (err, steps)
    if failed is not None:
        return _result(task, findings=[_clash(task, failed[0], failed[1], decls)],
                       setup=False, coverage=dict(game.coverage or {}))
    x = Explorer(game, decls, task["fp_seed"], task["max_steps"], law_every=0)
    digests = fingerprint_runs(x, task["runs"], time.monotonic() + task["seconds"],
                               task["limit"])
    return _result(task, x, setup=True, digests=digests)


# ---------------------------------------------------------------------------- explore
def _explore(task) -> dict:
    """Explores a configuration for `seconds`: a breadth-first walk and the trigger-order
    check when asked, then random and coverage-guided playthroughs."""
    from ._fuzz_order import OrderExplorer, trigger_groups
    from ._fuzz_walk import walk
    start = time.monotonic()
    end = start + task["seconds"]
    game = _load(task)
    x = Explorer(game, declarations(game.ruleset), task["seed"], task["max_steps"])
    extra = {}
    if task.get("walk"):                # 40% of what loading the game left
        now = time.monotonic()
        extra["walk"] = walk(x, task["max_states"], now + (end - now) * 0.4)
    if task.get("orders") and trigger_groups(game):
        share = (end - time.monotonic()) / 2
        ox = OrderExplorer(lambda: _load(task, fresh=True), x)
        ox.run(time.monotonic() + share)
        extra["orders"] = len(ox.orders)
    w = extra.get("walk")
    # After a walk that saw every state, playthroughs can only find loops that a counter
    # breaks (which the walk cannot tell): a few are enough.
    done = w is not None and w["complete"] and w["exhaustive"]
    x.few = done
    x.run(end, task.get("starts", ()), max_playthroughs=EXHAUSTED_PLAYTHROUGHS if done else None)
    return _result(task, x, **extra)


# ---------------------------------------------------------------------------- shrink
def _shrink(task) -> dict:
    """Shrinks one finding's trace for at most `seconds`."""
    from ._fuzz_shrink import make_probe, replay, shrink
    raw = dict(task["finding"])
    order = None
    if raw["probe"] and raw["probe"]["type"] == "order":
        order = raw["probe"]["orders"][0]
    game = _load(task, order)
    probe = make_probe(raw, game, lambda o: _load(task, o), task["seed"])
    if probe is None or raw["steps"] is None:
        return _result(task, finding=raw)
    before = len(raw["steps"])
    steps, tries = shrink(game, raw["steps"], probe, task["seed"],
                          time.monotonic() + task["seconds"])
    if replay(game, steps, probe, task["seed"]) is not None:
        raw.update(probe.describe(steps))
        raw["steps"] = steps
        raw["shrunk"] = True
    raw["shrunk_from"] = before
    return _result(task, finding=raw, tries=tries)
