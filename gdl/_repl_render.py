"""How `gdl play` shows things: colours where the terminal allows, plain text where not.

Colour is generic, never tied to a game: the status line is bold, zone and variable names
are coloured, face-up cards bold, hidden cards (`?`) and face-down cards (lower case in
the all-seeing view) dim.  Colour is off when NO_COLOR is set, TERM is `dumb`, or stdout
is not a terminal.
"""
from __future__ import annotations

import os
import re
import shutil
import sys
from typing import Iterable, List, Sequence

from .errors import SOURCES, CheckError, GdlError, RuleError, excerpt

_CODES = {"bold": "1", "dim": "2", "italic": "3", "red": "31", "green": "32",
          "yellow": "33", "blue": "34", "magenta": "35", "cyan": "36"}

#: `zone (n): cards` or `family[i,*]: cells | cells` (a grid row) in a view.
_ZONE_LINE = re.compile(r"^(?P<name>[^\s:(=]+)(?P<count> \(\d+\))?:(?P<rest>.*)$")
_VAR_LINE = re.compile(r"^(?P<name>[^\s=]+) = (?P<rest>.*)$")


def terminal_allows_colour(stream=None) -> bool:
    """Returns whether to colour output written to `stream` (default stdout)."""
    stream = stream or sys.stdout
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def terminal_allows_symbols(stream=None) -> bool:
    """Returns whether suit symbols and other non-ASCII card texts can be shown."""
    stream = stream or sys.stdout
    encoding = (getattr(stream, "encoding", "") or "").lower().replace("-", "")
    return terminal_allows_colour(stream) and encoding.startswith("utf")


class Painter:
    """Wraps text in ANSI styles when colour is on; returns it unchanged when off."""

    def __init__(self, on: bool):
        self.on = on

    def __call__(self, text: str, *styles: str) -> str:
        if not self.on or not styles or not text:
            return text
        codes = ";".join(_CODES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"

    # ------------------------------------------------------------------ views
    def view(self, text: str, plain: str = "") -> str:
        """Returns a view (see interpreter/observe.py) with its parts coloured.  `plain` is
        the same all-seeing view without symbols, whose lower case marks the face-down
        cards (a symbol text such as `10` plus a suit sign has no case to lower)."""
        lines = text.splitlines()
        if not self.on or not lines:
            return text
        plain_lines = plain.splitlines()
        if len(plain_lines) != len(lines):
            plain_lines = [None] * len(lines)
        out = [self.status(lines[0])]
        for line, plain_line in zip(lines[1:], plain_lines[1:]):
            out.append(self._view_line(line, plain_line))
        return "\n".join(out)

    def status(self, line: str) -> str:
        if line.startswith("game over"):
            return self(line, "bold", "yellow")
        if line.startswith("chance"):
            return self(line, "bold", "magenta")
        return self(line, "bold", "green")

    def _view_line(self, line: str, plain) -> str:
        if line.startswith("out: "):
            return self("out:", "yellow") + line[4:]
        var = _VAR_LINE.match(line)
        if var:
            return self(var["name"], "blue") + " = " + var["rest"]
        zone = _ZONE_LINE.match(line)
        if zone:
            tokens = zone["rest"].split(" ")
            marks = _ZONE_LINE.match(plain)["rest"].split(" ") if plain and \
                _ZONE_LINE.match(plain) else []
            if len(marks) != len(tokens):
                marks = [None] * len(tokens)
            cards = " ".join(self._card(t, m) for t, m in zip(tokens, marks))
            return self(zone["name"], "cyan") + self(zone["count"] or "", "dim") + ":" + cards
        return line

    def _card(self, token: str, plain) -> str:
        if token in ("?", "|", "-"):
            return self(token, "dim")
        if not token:
            return token
        if plain and (plain == plain.lower() and plain != plain.upper() or
                      plain.startswith("(")):
            return self(token, "dim")              # face down, shown to the all-seeing view
        return self(token, "bold")

    # ------------------------------------------------------------------ lists
    def numbered(self, items: Sequence[str], width: int = 0) -> List[str]:
        """Returns `n. item` lines, in as many columns as the terminal width allows
        (numbered down the columns, as `ls` does)."""
        if not items:
            return []
        width = width or shutil.get_terminal_size((80, 24)).columns
        digits = len(str(len(items)))
        cells = [f"{str(i).rjust(digits)}. {text}" for i, text in enumerate(items, 1)]
        cell_width = max(len(c) for c in cells) + 3
        cols = max(1, min(len(cells), (width - 2) // cell_width))
        rows = -(-len(cells) // cols)
        out = []
        for r in range(rows):
            row = [cells[c * rows + r] for c in range(cols) if c * rows + r < len(cells)]
            shown = [self._numbered_cell(cell, digits) for cell in row]
            pads = [" " * (cell_width - len(cell)) for cell in row]
            out.append("  " + "".join(s + p for s, p in zip(shown, pads)).rstrip())
        return out

    def _numbered_cell(self, cell: str, digits: int) -> str:
        number, _, text = cell.partition(". ")
        action, sep, args = text.partition(" ")
        return self(number + ".", "dim") + " " + self(action, "bold") + sep + args

    def step(self, number: int, who: str, text: str, width: int = 0) -> str:
        """Returns one step of the game as `  n. who: text`, cut to the terminal width."""
        width = width or shutil.get_terminal_size((80, 24)).columns
        head = f"{number:>4}. {who}: "
        room = max(20, width - len(head) - 1)
        if len(text) > room:
            text = text[: room - 3] + "..."
        style = ("magenta",) if who == "chance" else ("bold",)
        return self(f"{number:>4}.", "dim") + " " + self(who + ":", *style) + " " + text

    def error(self, text: str) -> str:
        return self(text, "red")

    def note(self, text: str) -> str:
        return self(text, "dim")


def one_line(err: GdlError) -> str:
    """Returns a user error as one line: kind, place, message and the did-you-mean."""
    if isinstance(err, CheckError) and err.problems:
        first = err.problems[0]
        more = len(err.problems) - 1
        return one_line(first) + (f" (and {more} more problems)" if more > 0 else "")
    span = err.span
    if span is not None and getattr(span, "line", 0) and span.file == "<expression>":
        text = f"{err.kind} at column {span.col}: {err.message}"
    elif span is not None and getattr(span, "line", 0):
        text = f"{span}: {err.kind}: {err.message}"
    else:
        text = f"{err.kind}: {err.message}"
    if err.suggestion:
        text += f"; did you mean {err.suggestion!r}?"
    return " ".join(text.split("\n"))


def rule_line(err: GdlError) -> str:
    """The rules' line a rule error stopped at, with a caret (as `gdl run` shows it), or
    '': the one line names the place, which a designer reads beside the rule."""
    span = err.span
    if not isinstance(err, RuleError) or span is None or not getattr(span, "line", 0):
        return ""
    source = SOURCES.get(span.file, err.source)
    return excerpt(source, span.line, span.col) if source else ""


def columns(words: Iterable[str], width: int = 0, indent: int = 2) -> str:
    """Returns words joined with commas, wrapped to the terminal width and indented."""
    import textwrap
    width = width or shutil.get_terminal_size((80, 24)).columns
    return textwrap.fill(", ".join(words), width=max(40, width - 2),
                         initial_indent=" " * indent, subsequent_indent=" " * indent)
