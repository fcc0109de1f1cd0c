"""Order dependence for `gdl fuzz`: do triggers of equal priority give one result?

The engine runs triggers whose conditions hold from the highest priority down and, within
one priority, in file order.  A rule text seldom says which of two "whenever" rules comes
first, so a ruleset that leaves them at one priority should not depend on that order.
The check loads the game once per order of each group of equal-priority triggers
(`Game.set_trigger_order`), plays random games in lockstep on all of them, and reports
the first step after which two orders give different states (or one order fails).
Triggers with distinct priorities are never reordered: the ruleset has said which comes
first.
"""
from __future__ import annotations

import difflib
import itertools
import random
import time
from typing import List

from ._fuzz_common import (ORDER, apply_step, error_place, error_text, option_texts,
                           raw_finding, rule_ref, step_text)
from ._fuzz_report import rule_text
from ._fuzz_play import Explorer

#: At most this many trigger orders are played side by side.
MAX_ORDERS = 24


def trigger_groups(game) -> List[List[str]]:
    """Returns the groups of two or more triggers that share a priority, in check order."""
    from gdl import ast as A
    priority = {d.name: d.priority for d in game.ruleset.decls if isinstance(d, A.TriggerDecl)}
    groups = []
    for _, names in itertools.groupby(game.trigger_names(), key=lambda n: priority.get(n)):
        names = list(names)
        if len(names) > 1:
            groups.append(names)
    return groups


def trigger_orders(game, rng: random.Random) -> List[List[str]]:
    """Returns orders of all the triggers that differ only within equal-priority groups:
    the file order first, then every other (or, when there are too many, a sample)."""
    base = game.trigger_names()
    groups = trigger_groups(game)
    if not groups:
        return [base]
    per_group = [list(itertools.permutations(g)) for g in groups]
    total = 1
    for perms in per_group:
        total *= len(perms)
    if total <= MAX_ORDERS:
        choices = list(itertools.product(*per_group))
    else:
        choices = [tuple(tuple(reversed(g)) for g in groups)]
        choices += [tuple(tuple(rng.sample(g, len(g))) for g in groups)
                    for _ in range(MAX_ORDERS - 2)]
    orders = [base]
    for choice in choices:
        order = _reorder(base, groups, choice)
        if order not in orders:
            orders.append(order)
    return orders


def _reorder(base, groups, choice):
    out = list(base)
    for group, perm in zip(groups, choice):
        slots = sorted(out.index(n) for n in group)
        for slot, name in zip(slots, perm):
            out[slot] = name
    return out


class OrderExplorer:
    """Random games played in lockstep under every trigger order."""

    def __init__(self, load, explorer: Explorer):
        self.x = explorer
        self.rng = random.Random(explorer.seed)
        self.orders = trigger_orders(explorer.game, self.rng)
        self.games = [explorer.game]
        for order in self.orders[1:]:
            g = load()
            g.set_trigger_order(order)
            self.games.append(g)
        self.triggers = {n for g in trigger_groups(explorer.game) for n in g}

    def run(self, deadline: float):
        if len(self.games) < 2:
            return
        while time.monotonic() < deadline:
            self.x.playthroughs += 1
            if self.lockstep(deadline):
                return

    def lockstep(self, deadline) -> bool:
        """Plays one game on every order at once; returns True after a finding."""
        x = self.x
        states = [g.new_state(x.seed) for g in self.games]
        steps: list = []
        self.failed = {}                # order number -> the error its step raised
        if self.parted(states, steps, set(self.triggers)):
            return True
        while not states[0].is_terminal() and len(steps) < x.max_steps:
            if time.monotonic() > deadline:
                return False
            base = states[0]
            before = self.fired_counts()
            step = self.random_step(base)
            if step is None:
                return False
            steps.append(step)
            try:
                apply_step(base, step)
            except Exception:  # noqa: BLE001 - a hole of another kind: the explorer's job
                return False
            x.steps += 1
            fired = self.fired(before)
            for n, s in enumerate(states[1:], 1):
                try:
                    apply_step(s, step)
                except Exception as err:  # noqa: BLE001 - this order fails where the
                    self.failed[n] = err              # first does not
            if self.parted(states, steps, fired):
                return True
        if states[0].is_terminal():     # counted as the explorer counts its games: the
            x.ended += 1                # report's "(k to the end)" left these out
        return False

    def random_step(self, state):
        """A random step as a trace step, or None at a deadlock (the explorer reports
        it).  A move is drawn without listing them: `random_move` gives the one the list
        holds at `rng.randrange` of its length."""
        try:
            if state.is_chance():
                from ._fuzz_common import chance_step
                return chance_step(state.sample_chance(self.rng))
            seat = state.to_move()[0]
            move = state.random_move(self.rng, seat)
        except Exception:  # noqa: BLE001 - a deadlock: the explorer reports it
            return None
        return {"player": seat.name, "move": move.text}

    def fired_counts(self):
        cov = self.x.game.coverage or {}
        return {k: v for k, v in cov.items() if k[0] in self.triggers}

    def fired(self, before) -> set:
        now = self.fired_counts()
        return {k[0] for k, v in now.items() if v != before.get(k, 0)}

    def parted(self, states, steps, fired) -> bool:
        base = states[0]
        key = base.key()
        for n, (order, s) in enumerate(zip(self.orders[1:], states[1:]), 1):
            failed = self.failed.get(n)
            if failed is None and s.key() == key:
                continue
            self.report(steps, self.orders[0], order, base, s, fired, failed)
            return True
        return False

    def report(self, steps, first, other, a, b, fired, failed=None):
        x = self.x
        # the triggers that fired in the first order, and those the two orders put in
        # other places (one that ended the game first kept the other from firing)
        involved = [n for n in first if n in fired or n in other and
                    first.index(n) != other.index(n)] or \
            [n for n in first if n in self.triggers]
        where = f"at step {len(steps)} ({step_text(steps[-1])})" if steps else "at the setup"
        detail = [f"order 1: {', '.join(first)}", f"order 2: {', '.join(other)}"]
        if failed is not None:
            rule, file, line = error_place(failed)
            at = f", in {rule_text((rule, file, line), x.game.ruleset.path)}" if line else ""
            detail.append(f"in order 2 the step raises: {error_text(failed)}{at}")
        else:
            diff = difflib.unified_diff(a.view(None).splitlines(), b.view(None).splitlines(),
                                        "order 1", "order 2", lineterm="", n=0)
            detail += list(diff)[2:14]
        x.add(raw_finding(
            ORDER, f"triggers {', '.join(involved)} fire together {where}, and the order "
            f"they run in changes the result", option_texts(x.game.overrides),
            rules=[rule_ref(x.decls, n) for n in involved], steps=steps, detail=detail,
            sig=tuple(sorted(involved)),
            probe={"type": "order", "orders": [first, other], "names": involved}))
