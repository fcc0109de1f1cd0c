"""A bounded breadth-first walk for `gdl fuzz`: the shortest way to each hole.

The walk expands states in order of distance from the setup, merging equal states
(`State.key()`), so the first time it meets a deadlock, a rule error or a broken invariant,
the steps that led there are as few as any line of play allows.  A chance event whose
outcomes cannot be listed (a large shuffle) is sampled instead, and a simultaneous
decision with too many joint moves is sampled too; the walk then says it is not
exhaustive.  After the walk, a loop in the graph of states it found is a line of play that
can go on for ever: the report shows the shortest way into the loop and round it.
"""
from __future__ import annotations

import itertools
import random
import time
from collections import deque
from typing import List, Optional

from ._fuzz_common import ENDLESS, chance_step, move_step, raw_finding, rule_ref
from ._fuzz_play import Explorer, _loop_lines

#: Outcomes drawn at a chance event whose outcomes cannot be listed.
SAMPLED_OUTCOMES = 2
#: Joint moves tried at a simultaneous decision (sampled beyond this).
JOINT_LIMIT = 64


class Walk:
    """The explored graph: per state id, its parent, the steps from the parent, its
    depth and its edges (child id, steps)."""

    def __init__(self, explorer: Explorer, max_states: int, deadline: float):
        self.x = explorer
        self.game = explorer.game
        self.rng = random.Random(explorer.seed)
        self.max_states, self.deadline = max_states, deadline
        self.ids = {}
        self.parent: List[Optional[int]] = []
        self.via: List[tuple] = []
        self.depth: List[int] = []
        self.edges: List[Optional[list]] = []
        self.exhaustive = True
        self.complete = False

    def path(self, sid: int) -> list:
        """Returns the steps from the setup to a state."""
        out = []
        while sid is not None and self.parent[sid] is not None:
            out[:0] = self.via[sid]
            sid = self.parent[sid]
        return out

    def add(self, state, parent, via) -> int:
        sid = len(self.parent)
        self.ids[state.key()] = sid
        self.parent.append(parent)
        self.via.append(tuple(via))
        self.depth.append(0 if parent is None else self.depth[parent] + 1)
        self.edges.append(None)
        return sid

    def run(self):
        root = self.game.new_state(self.x.seed)
        queue = deque([(self.add(root, None, ()), root)])
        while queue:
            # the first state is always seen: a deadline passed before the walk began (a
            # worker's first task compiles the rules) made a game of one state "partial"
            if len(self.parent) >= self.max_states or \
                    time.monotonic() > self.deadline and len(self.parent) > 1:
                return
            sid, state = queue.popleft()
            if state.is_terminal():
                self.edges[sid] = []
                continue
            children = self.children(sid, state)
            if children is None:
                self.edges[sid] = []
                continue
            edges = []
            for via, child in children:
                key = child.key()
                cid = self.ids.get(key)
                if cid is None:
                    cid = self.add(child, sid, via)
                    steps = self.path(cid)
                    if self.x.after_step(child, steps):
                        queue.append((cid, child))
                    else:
                        self.edges[cid] = []
                edges.append((cid, tuple(via)))
            self.edges[sid] = edges
        self.complete = True

    def children(self, sid, state) -> Optional[list]:
        """Returns [(steps, child state)] for every way on from a state (sampled where
        there are too many), or None after recording the hole the state is."""
        steps = None
        if state.is_chance():
            outcomes = state.chance_outcomes()
            if outcomes is None:
                self.exhaustive = False
                drawn = {}
                for _ in range(SAMPLED_OUTCOMES):
                    o = state.sample_chance(self.rng)
                    drawn[(o.kind, o.data)] = o
                outcomes = [(o, None) for o in drawn.values()]
            joints = [[chance_step(o)] for o, _ in outcomes]
        else:
            steps = self.path(sid)
            options = []
            for seat in state.to_move():
                moves = self.x.decision_moves(state, seat, steps)
                if moves is None:
                    return None
                options.append([move_step(seat, m) for m in moves])
            joints = self.joints(options)
        out = []
        for joint in joints:
            child = state.clone()
            if not self.apply(child, joint, sid, steps):
                continue
            out.append((joint, child))
        return out

    def joints(self, options) -> list:
        total = 1
        for moves in options:
            total *= len(moves)
        if total <= JOINT_LIMIT:
            return [list(j) for j in itertools.product(*options)]
        self.exhaustive = False
        return [[self.rng.choice(moves) for moves in options] for _ in range(JOINT_LIMIT)]

    def apply(self, child, joint, sid, steps) -> bool:
        from ._fuzz_common import apply_step
        try:
            for step in joint:
                apply_step(child, step)
        except Exception as err:  # noqa: BLE001 - the rules failed on this step
            self.x.error(err, (steps if steps is not None else self.path(sid)) + joint)
            return False
        return True

    # ------------------------------------------------------------------ loops
    def loop(self) -> Optional[tuple]:
        """Returns (entry state id, steps round the loop) for the loop entered nearest
        the setup, or None if the explored graph has none."""
        best = None
        for comp in _components(self.edges):
            if self.chance_leaves(comp):
                continue                # gone round for ever with probability 0
            entry = min(comp, key=lambda s: self.depth[s])
            if best is not None and self.depth[entry] >= self.depth[best[0]]:
                continue
            ring = self.shortest_ring(entry, set(comp))
            if ring is not None:
                best = (entry, ring)
        return best

    def chance_leaves(self, comp) -> bool:
        """Whether every state of a loop is a chance node and one of them has an outcome
        that leads out of it (a misdeal dealt again): chance then leaves the loop with
        probability 1.  The outcomes seen are real ones, sampled or not."""
        members = set(comp)
        out = False
        for sid in comp:
            for v, via in self.edges[sid] or ():
                if "chance" not in via[0]:
                    return False
                out = out or v not in members
        return out

    def shortest_ring(self, entry, members) -> Optional[list]:
        back = {entry: None}
        queue = deque([entry])
        while queue:
            u = queue.popleft()
            for v, via in self.edges[u] or ():
                if v == entry:
                    ring = list(via)
                    while u != entry:
                        u, step = back[u]
                        ring[:0] = step
                    return ring
                if v in members and v not in back:
                    back[v] = (u, list(via))
                    queue.append(v)
        return None


def _components(edges) -> List[list]:
    """Returns the strongly connected components that hold a loop (iterative Tarjan)."""
    n = len(edges)
    index, low, on = [None] * n, [0] * n, [False] * n
    stack, out, counter = [], [], 0
    for root in range(n):
        if index[root] is not None:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on[v] = True
            succ = [c for c, _ in edges[v] or ()]
            if i < len(succ):
                work.append((v, i + 1))
                w = succ[i]
                if index[w] is None:
                    work.append((w, 0))
                elif on[w]:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on[w] = False
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or any(c == v for c, _ in edges[v] or ()):
                    out.append(comp)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return out


def walk(explorer: Explorer, max_states: int, deadline: float) -> dict:
    """Walks the game breadth first; records its holes in the explorer and returns what
    the walk covered."""
    w = Walk(explorer, max_states, deadline)
    explorer.shortest = True
    try:
        w.run()
    finally:
        explorer.shortest = False
    found = w.loop()
    if found is not None:
        entry, ring = found
        into = w.path(entry)
        i, j = len(into), len(into) + len(ring)
        detail = _loop_lines(ring, i)
        if w.complete and w.exhaustive:
            detail.append(_never_ends(explorer.game, len(w.parent)))
        explorer.add(raw_finding(
            ENDLESS, f"the state after step {i} comes back after step {j}: play can go "
            f"round this loop of {j - i} steps for ever", explorer.options,
            rules=explorer.loop_rules(ring) or [rule_ref(explorer.decls, "flow")],
            steps=into + ring, subkind="cycle", detail=detail, probe={"type": "cycle"},
            shrunk=True))
    return {"states": len(w.parent), "complete": w.complete, "exhaustive": w.exhaustive}


def _never_ends(game, states: int) -> str:
    """Returns how likely uniformly random play is never to end (interpreter.enumerate)."""
    from .enumerate import enumerate_states
    try:
        report = enumerate_states(game, max_states=states + 16, infosets=False)
    except Exception as err:  # noqa: BLE001 - the figure is a nicety
        return f"(no exact figure: {err})"
    return (f"exhaustive walk: {report.states} states; uniformly random play never ends "
            f"with probability {report.never_ends}")
