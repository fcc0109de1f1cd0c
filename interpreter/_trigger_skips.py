"""Which triggers a check may leave out, after which statements.

The rules check every trigger's condition after every effect statement.  Some conditions
are false as every check ends: `changed(v) and ...` (the marks are cleared as the check
ends) and `not g and ...` for a trigger whose body sets `g = true` once, at its top level
(it runs whenever its condition holds, and then the condition is false), provided no
other trigger's body writes what the condition reads (its body could run after this one
in the same check) and, for `not g`, the condition is false before the rules start.  Such
a condition stays false until a statement writes something it reads: a check after a
statement that writes none of it does not test it (`skipped`), with the same outcome,
since a condition changes nothing and would have been false.  A check is where these
pay: `any(c.suit == hearts for q in players for c in trick[q])` after every statement
of a trick.

The rest, where their conditions pass over items or call a def (`calm_reads`), are left
out where a check may tell them false without a test: after a statement that writes
nothing their conditions read, when the last check found no condition true (`State.calm`;
`unread`).  Between two checks the state changes only by statements, each checked after,
and by what no condition reads (a move's parameters, a random's local, the pause), so
the mark holds across a decision or a draw (a shuffle is a statement that writes the
cards).  A check in which a body ran sets it off, as do the changes made outside a
statement that a condition may read: what a move took unseen forgotten
(`State.settle_picks`), a position changed outside the rules (`State.change_outside`, a
law's swap); a state made anew (a replay, a snapshot read) starts without it.

What a statement writes and a condition reads are named coarsely: a variable by its name
(any element of an indexed one), every zone, card facing and seat's knowledge as `ZONES`,
the seats still in as `SEATS`, and anything unforeseen as `ANY`, which meets everything.
"""
from __future__ import annotations

from collections import Counter
from typing import Optional

from gdl import ast as A
from gdl.checker._walk import walk

ZONES, SEATS, ANY = "<zones>", "<seats>", "<any>"

#: builtins that read the cards where they lie (their zones, facings, who knows them)
_READ_CARDS = frozenset({"count", "cards", "top", "bottom", "faceup", "facedown", "zone_of",
                         "knows"})
#: builtins that read which seats are still in
_READ_SEATS = frozenset({"next", "prev", "opponent", "active"})


def reads(node, prog, seen=None) -> frozenset:
    """What an expression reads of the state: variable names, `ZONES`, `SEATS` (a def
    called adds its body's reads, a table its rows' values'; a variable, a card field
    or a table's row holding a zone reads its cards too, whatever is done with it)."""
    seen = set() if seen is None else seen
    out: set = set()
    zone_vars, zone_fields = prog.helper(_zone_vars), prog.helper(_zone_fields)
    for n in walk(node):
        if isinstance(n, A.Name):
            if n.id in prog.var_slots or n.id in prog.var_index:
                out.add(n.id)
                if n.id in zone_vars:
                    out.add(ZONES)
            elif n.id in prog.zone_plain or n.id in prog.families:
                out.add(ZONES)
            elif n.id == "players":
                out.add(SEATS)
        elif isinstance(n, A.Attr):
            if n.name in zone_fields:           # a card's zone: what is done with it
                out.add(ZONES)                  # may read its cards
        elif isinstance(n, A.Call):
            if n.func in _READ_CARDS:
                out.add(ZONES)
            elif n.func in _READ_SEATS:
                out.add(SEATS)
            elif n.func in prog.defs and n.func not in seen:
                seen.add(n.func)
                out |= reads(prog.defs[n.func].body, prog, seen)
            elif n.func in prog.tables and n.func not in seen:
                seen.add(n.func)                # its rows' values: a zone among them
                table = prog.tables[n.func]     # may have its cards read
                for value in (*(r.value for r in table.rows), table.default):
                    if value is not None:
                        out |= reads(value, prog, seen)
    return frozenset(out)


def _zone_fields(prog) -> set:
    """The card fields declared to hold a zone (`card n: 1..2, home: spot`)."""
    found = set()
    for d in prog.compiler.ruleset.decls:
        if isinstance(d, A.CardDecl):
            for f in d.fields:
                t = f.type.inner if isinstance(f.type, A.OptionalType) else f.type
                if isinstance(t, A.NamedType) and (t.name in prog.families
                                                   or t.name in prog.zone_plain):
                    found.add(f.name)
    return found


def watched_names(cond) -> set:
    """The variables a trigger's condition asks `changed(v)` of."""
    return {n.args[0].id for n in walk(cond)
            if isinstance(n, A.Call) and n.func == "changed" and len(n.args) == 1
            and isinstance(n.args[0], A.Name)}


def _zone_vars(prog) -> set:
    """The variables declared to hold a zone (`var sel: cell?`)."""
    found = set()
    for d in prog.compiler.ruleset.decls:
        if isinstance(d, A.VarDecl):
            t = d.type.inner if isinstance(d.type, A.OptionalType) else d.type
            if isinstance(t, A.NamedType) and t.name in prog.families:
                found.add(d.name)
    return found


def written(stmt, scope) -> frozenset:
    """What one effect statement writes (the check after it follows it): the variable it
    assigns (nothing for a local), `ZONES` for the statements that move, turn, shuffle or
    show cards, `SEATS` for `eliminate`, nothing for `random` (a local)."""
    if isinstance(stmt, (A.Assign, A.AugAssign)):
        return frozenset() if scope.lookup(stmt.target.name) is not None else \
            frozenset({stmt.target.name})
    if isinstance(stmt, (A.Move, A.Deal, A.Flip, A.Reveal, A.Shuffle)):
        return frozenset({ZONES})
    if isinstance(stmt, A.Eliminate):
        return frozenset({SEATS})
    if isinstance(stmt, A.RandomChoice):
        return frozenset()
    return frozenset({ANY})


def body_writes(body, prog, seen=None) -> list:
    """Every write a block may make, one entry per statement that makes it, as
    (statement, what it writes), the rules it runs included (their assignments to a
    name count as writes of that name, a local's too: so they err on the safe side)."""
    seen = set() if seen is None else seen
    out = []
    for s in body:
        if isinstance(s, (A.Assign, A.AugAssign)):
            out.append((s, frozenset({s.target.name})))
        elif isinstance(s, (A.Move, A.Deal, A.Flip, A.Reveal, A.Shuffle, A.Eliminate)):
            out.append((s, written(s, None)))
        elif isinstance(s, A.If):
            for _, branch in s.branches:
                out += body_writes(branch, prog, seen)
            out += body_writes(s.else_body, prog, seen)
        elif isinstance(s, (A.Repeat, A.While, A.For)):
            out += body_writes(s.body, prog, seen)
        elif isinstance(s, A.CallRule):
            rule = prog.rules.get(s.name)
            if rule is None or s.name in seen:
                out.append((s, frozenset({ANY})))
            else:
                seen.add(s.name)
                out += body_writes(rule.body, prog, seen)
        elif not isinstance(s, (A.Let, A.Pass, A.Win, A.Draw, A.EndGame, A.Fail)):
            out.append((s, frozenset({ANY})))
    return out


def candidates(prog) -> dict:
    """The triggers whose conditions are false as every check ends, by name, each with
    what its condition reads: (`changed` or `flag`, reads).  A `flag` one holds only if its
    condition is also false before the rules start (`skippable` checks that)."""
    decls = [t[4] for t in prog.triggers]
    writes = {d.name: body_writes(d.body, prog) for d in decls}
    own = {name: set().union(*(w for _, w in ws)) for name, ws in writes.items()}
    writers = Counter(x for w in own.values() for x in w)    # how many triggers write x
    out = {}
    for d in decls:
        found = _guard(d, prog, writes[d.name])
        if found is None:
            continue
        kind, read = found
        mine = own[d.name]              # what the other triggers write: not only this one
        if any(writers[x] > (x in mine) for x in (ANY, *read)):
            continue
        out[d.name] = (kind, read)
    return out


def _guard(d, prog, writes) -> Optional[tuple]:
    """(`changed`, {v}) for a condition `changed(v) and ...`; (`flag`, its reads) for
    `not g and ...` whose trigger's body sets `g = true` at its top level and writes `g`
    nowhere else; else None."""
    terms = d.cond.items if isinstance(d.cond, A.And) else (d.cond,)
    for t in terms:
        if isinstance(t, A.Call) and t.func == "changed" and len(t.args) == 1 and \
                isinstance(t.args[0], A.Name):
            return "changed", frozenset({t.args[0].id})
    for t in terms:
        if not (isinstance(t, A.Not) and isinstance(t.operand, A.Name)
                and t.operand.id in prog.var_slots):
            continue
        g = t.operand.id
        sets = [s for s, w in writes if g in w or ANY in w]
        if len(sets) == 1 and any(sets[0] is s for s in d.body) and \
                isinstance(sets[0], A.Assign) and \
                not sets[0].target.indices and isinstance(sets[0].value, A.BoolLit) and \
                sets[0].value.value is True:
            return "flag", reads(d.cond, prog)
    return None


def skippable(prog, blank) -> dict:
    """`candidates`, less the `flag` ones whose condition holds (or fails) in `blank`, the
    state before the rules start: name -> what its condition reads."""
    out = {}
    conds = {t[1]: t[2] for t in prog.triggers}
    for name, (kind, read) in candidates(prog).items():
        if kind == "flag":
            try:
                if conds[name](blank):
                    continue
            except Exception:      # a condition that fails here is tested as before
                continue
        out[name] = read
    return out


def calm_reads(prog) -> Optional[dict]:
    """What each trigger a calm run may leave out reads, by name: those a check may not
    leave out already (`trigger_skips`) whose conditions pass over items or call a def
    (a cheaper one is tested sooner than the run's calm is); None if there are none, so
    that no check keeps `State.calm`."""
    found = {t[1]: reads(t[4].cond, prog) for t in prog.triggers
             if t[1] not in prog.trigger_skips and _loops(t[4].cond, prog)}
    return found or None


def _loops(cond, prog) -> bool:
    """Whether a condition passes over items (an aggregate, a list built) or calls a
    def."""
    return any(isinstance(n, (A.Aggregate, A.ListComp))
               or isinstance(n, A.Call) and n.func in prog.defs for n in walk(cond))


def unread(prog, writes: frozenset) -> frozenset:
    """The triggers whose conditions read nothing a statement writing `writes` writes:
    a check after it in a calm run may leave them out (none if the reads are not known)."""
    if ANY in writes or prog.calm_reads is None:
        return frozenset()
    return frozenset(name for name, read in prog.calm_reads.items()
                     if not read & writes)


def skipped(prog, writes: frozenset) -> frozenset:
    """The triggers a check after a statement writing `writes` leaves out."""
    if ANY in writes:
        return frozenset()
    return frozenset(name for name, read in prog.trigger_skips.items()
                     if not read & writes)

