"""The canonical key of a state: equal keys mean the same position, whichever of several
identical cards is where (enumeration merges states by it; `State.__hash__` uses it)."""
from __future__ import annotations

from ._compiler import CHANCE, DECIDE, SIMUL
from .values import canon

#: values that `canon` returns as they are (checked inline, a call fewer each)
_PLAIN = frozenset({int, str, bool, type(None)})


def state_key(st):
    """Returns the canonical, hashable form of a state."""
    node = st.node
    kind = node[0] if node is not None else 0
    if kind in (DECIDE, SIMUL):
        nk = (kind, node[1].id, tuple(p.index for p in node[2]))
        if kind == SIMUL:
            nk += (tuple(sorted((p.index, m.text) for p, m in node[3].items())),)
    elif kind == CHANCE:
        nk = (kind,) + tuple(canon(x) for x in node[1:])
    else:
        nk = (kind, st.result)
    up, known = st.up, st.known
    # who knows each card, transposed once for all cards (one tuple per card id)
    # rather than built by a generator per card in each zone
    bits = list(zip(*[[k >> i & 1 for i in range(len(up))] for k in known])) \
        if any(known) else None
    zones = []
    for z, is_set in zip(st.zones, st.prog.is_set):
        if not z:
            zones.append(())
            continue
        if bits is not None:
            items = [(c.kind, up[c.id], bits[c.id]) for c in z]
        else:
            items = [(c.kind, up[c.id]) for c in z]
        if is_set:
            items.sort()
        zones.append(tuple(items))
    return (st.pc, nk, st.out,
            tuple([v if type(v) in _PLAIN else canon(v) for v in st.vars]),
            tuple([v if type(v) in _PLAIN else canon(v) for v in st.frame]),
            tuple(zones))
