"""Compile-time name binding: where each name's value lives at run time."""
from __future__ import annotations

from typing import Optional

import attrs


@attrs.frozen
class Local:
    """A local in the state's frame (kept across decisions) or in scratch (expression-only)."""
    where: str  # "frame" or "scratch"
    slot: int
    assignable: bool = False
    zone: bool = False  # always a zone: it takes its values from a zone family
    card: bool = False  # always a card: it takes its values from a zone's cards
    among: Optional[tuple] = None   # always one of these: drawn from a list of them


class Scope:
    """A chain of local bindings; lookups fall back to the parent, then to globals."""

    def __init__(self, parent: Optional["Scope"] = None, me: Optional[Local] = None):
        self.parent = parent
        self.names: dict = {}
        self.me = me if me is not None else (parent.me if parent else None)

    def child(self) -> "Scope":
        return Scope(self)

    def bind(self, name: str, local: Local) -> Local:
        self.names[name] = local
        return local

    def lookup(self, name: str) -> Optional[Local]:
        scope = self
        while scope is not None:
            found = scope.names.get(name)
            if found is not None:
                return found
            scope = scope.parent
        return None
