"""A fixed-size numeric encoding of what a seat sees, for tensors and gymnasium spaces.

A seat's view (`state.view(seat)`) is text; learning code wants a vector of one size for
every state.  The encoding is a hashed set of tokens ("feature hashing"): each fact of the
view becomes a short token, and the token sets position `crc32(token) % size` to 1.

- a zone line `hand[p1] (3): 2H ? KS` gives `hand[p1]#3` (its size), and for each card
  shown its place from the top, `hand[p1]/0@0=2H`, and its presence, `hand[p1]/0:2H`; a
  grid row `cell[1,*]: 8H ? | 10H` does the same per cell (`cell[1,*]/1@0=10H`);
- a variable line `points = {p1: 3, p2: 0}` gives `points[p1]=3` and `points[p2]=0`;
  `mover = p2` gives `mover=p2`;
- the status line (`to move: p2`) and the seat itself (`seat=p1`) are tokens too.

Only what the view shows is encoded, so the vector hides exactly what the view hides.
Distinct tokens can share a position (a collision); with the default 4096 positions and
the few hundred tokens of a seed game's view, few do.  The mapping is stable across runs
and machines (crc32, not Python's salted `hash`).
"""
from __future__ import annotations

import functools
import zlib
from typing import Iterator, List

DEFAULT_SIZE = 4096


def view_tokens(view: str) -> Iterator[str]:
    """Yields the tokens of a view's text (see the module docstring)."""
    for line in view.splitlines():
        yield from _line_tokens(line)


def _line_tokens(line: str) -> Iterator[str]:
    if " = " in line and ":" not in line.split(" = ", 1)[0]:
        yield from _var_tokens(*line.split(" = ", 1))
    elif ":" in line:
        head, _, body = line.partition(":")
        yield from _zone_tokens(head.strip(), body)
    else:
        yield line


@functools.lru_cache(maxsize=1 << 16)
def _line_positions(line: str, size: int) -> frozenset:
    """The positions one line of a view sets: a step changes few lines of a view, so
    most are the previous view's (an observation each step hashed every token again)."""
    return frozenset(zlib.crc32(t.encode("utf-8")) % size for t in _line_tokens(line))


def _var_tokens(name: str, value: str) -> Iterator[str]:
    if value.startswith("{") and value.endswith("}"):
        for item in value[1:-1].split(", "):
            key, _, v = item.partition(": ")
            yield f"{name}[{key}]={v}"
    else:
        yield f"{name}={value}"


def _zone_tokens(head: str, body: str) -> Iterator[str]:
    name, _, count = head.partition(" (")
    if count:
        yield f"{name}#{count.rstrip(')')}"
    for j, cell in enumerate(body.split(" | ")):
        words = cell.split()
        yield f"{name}/{j}#{len(words)}"
        for k, w in enumerate(words):
            yield f"{name}/{j}@{k}={w}"
            yield f"{name}/{j}:{w}"


def token_positions(view: str, seat_name: str, size: int = DEFAULT_SIZE) -> List[int]:
    """Returns the sorted positions set by a seat's view."""
    positions = set(_line_positions(f"seat={seat_name}", size))
    for line in view.splitlines():
        positions |= _line_positions(line, size)
    return sorted(positions)


def encode_view(state, seat, size: int = DEFAULT_SIZE, out=None):
    """Returns (or fills `out` with) the 0/1 float32 vector of the seat's current view
    (seat None: the all-seeing view)."""
    import numpy as np
    if out is None:
        out = np.zeros(size, dtype=np.float32)
    else:
        out.fill(0)
    seat = None if seat is None else state.game.seat(seat)
    name = "all" if seat is None else seat.name
    out[token_positions(state.view(seat), name, len(out))] = 1.0
    return out
