"""Every error a user can cause, rendered with place, caret, expectation and suggestion.

One hierarchy: GdlError, with GdlSyntaxError, CheckError, OptionError, MoveError and
RuleError below it.  The CLI prints `str(error)` and exits 2; nothing here raises a bare
Python exception at a user.
"""
from __future__ import annotations

import difflib
from bisect import bisect_left
from typing import Iterable, List, Optional, Sequence

from .span import Span


#: Candidates difflib compares a word with, at most (about 30 us each): a larger pool
#: (every move of an action over a range of thousands) is first cut to those sharing the
#: longest start any of them shares with the word.
SUGGESTION_POOL = 2_000


def did_you_mean(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> Optional[str]:
    """Returns the candidate nearest to `word`, if any is near enough (never `word`
    itself: a word out of place, such as a keyword, is not its own suggestion)."""
    pool = sorted(set(c for c in candidates if c and c != word))
    lowered = word.lower()
    same = next((c for c in pool if c.lower() == lowered), None)
    if same is not None:            # `beats` for `BEATS`: before any nearer spelling
        return same
    close = difflib.get_close_matches(
        word, pool if len(pool) <= SUGGESTION_POOL else _sharing_start(word, pool),
        n=1, cutoff=cutoff)
    return close[0] if close else None


def _sharing_start(word: str, pool: list) -> list:
    """The candidates of a sorted pool that share the longest start with `word` that
    any shares, if few enough for difflib; else none (no suggestion is worth the
    wait)."""
    for n in range(len(word), 0, -1):
        start = word[:n]
        lo = bisect_left(pool, start)
        hi = bisect_left(pool, start + "\U0010ffff", lo)
        if hi > lo:
            return pool[lo:hi] if hi - lo <= SUGGESTION_POOL else []
    return []


#: Source text of every file parsed in this process, so an error in a base ruleset shows
#: the right line even when it is reported through a variant.
SOURCES: dict = {}


def source_lines(text: str) -> List[str]:
    """The lines of a source as the parser numbers them: split at "\n" only (a form feed
    or a Unicode line separator in a comment starts no line for the parser)."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def excerpt(source: str, line: int, col: int) -> str:
    """Returns the source line (tabs expanded) with a caret under `col`, or ''."""
    lines = source_lines(source)
    if not (1 <= line <= len(lines)):
        return ""
    text = lines[line - 1]
    prefix = text[: max(col - 1, 0)].expandtabs(4)
    text = text.expandtabs(4)
    return f"    {text}\n    {' ' * len(prefix)}^"


#: what a MemoryError means to a user: the rules, not gdl (a run-time range `1..n`, a text
#: doubled in a loop), as a one-line message instead of an internal error
OUT_OF_MEMORY = ("error: the rules need more memory than there is: a value, a range or a "
                 "list they build grows too large (a range `1..n` of a huge n, a text or a "
                 "number doubled in a loop)")


#: what Python's ValueError for writing out a huge number means to a user (a number grown
#: by sums in a loop: a product that large is a rule error where it is made)
TOO_LONG_NUMBER = ("error: a number in the game grew too long to write out (Python writes "
                   "at most 4,300 digits): a sum doubled in a loop?")


def too_long_number(err: BaseException) -> bool:
    """Whether an exception is Python's refusal to write out a huge number."""
    return isinstance(err, ValueError) and "integer string conversion" in str(err)


#: digits a number a user types (a step count, a seed, a text's number) may have
MOST_DIGITS = 30


def whole_number(text: str) -> Optional[int]:
    """The whole number `text` is (ASCII digits after an optional `-`, spaces around), or
    None: `str.isdigit` takes `²`, which `int` refuses, and `int` refuses more than 4,300
    digits (an internal error either way)."""
    t = text.strip()
    digits = t[1:] if t[:1] == "-" else t
    if digits.isascii() and digits.isdigit() and len(digits) <= MOST_DIGITS:
        return int(t)
    return None


def natural(text: str) -> bool:
    """Whether `text` is a number of ASCII digits that `int` takes (see `whole_number`)."""
    return text.isascii() and text.isdigit() and len(text) <= MOST_DIGITS


def listed(items, limit: int) -> str:
    """Returns the first `limit` items joined by commas, and how many more there are, so
    that a cut list never reads as the whole of it."""
    items = list(items)
    more = len(items) - limit
    return ", ".join(items[:limit]) + (f", ... ({more} more)" if more > 0 else "")


def counted(n: int, word: str) -> str:
    """Returns `1 argument`, `2 arguments`."""
    return f"{n} {word}{'' if n == 1 else 's'}"


class GdlError(Exception):
    """An error in something the user wrote: ruleset text, options, move text or a trace."""

    kind = "error"

    def __init__(self, message: str, span: Optional[Span] = None, *, source: str = "",
                 expected: Sequence[str] = (), suggestion: Optional[str] = None,
                 notes: Sequence[str] = ()):
        super().__init__(message)
        self.message = message
        self.span = span
        self.source = source
        self.expected = tuple(expected)
        self.suggestion = suggestion
        self.notes = tuple(notes)

    def __reduce__(self):
        # Exception's own pickling keeps only the message: an error met in a worker
        # process would reach the parent without its place, expectation or notes
        return (_restore, (type(self), self.args, self.__dict__))

    def with_source(self, source: str) -> "GdlError":
        if not self.source:
            self.source = source
        return self

    def __str__(self) -> str:
        where = f"{self.span}: " if self.span and self.span.line else ""
        parts = [f"{where}{self.kind}: {self.message}"]
        source = SOURCES.get(self.span.file, self.source) if self.span else ""
        if self.span and source:
            shown = excerpt(source, self.span.line, self.span.col)
            if shown:
                parts.append(shown)
        if self.expected:
            parts.append(f"  expected: {listed(self.expected, 12)}")
        if self.suggestion:
            parts.append(f"  did you mean {self.suggestion!r}?")
        parts.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(parts)


def _restore(cls, args, fields):
    """Unpickles a GdlError of any kind with all its fields."""
    err = cls.__new__(cls)
    Exception.__init__(err, *args)
    err.__dict__.update(fields)
    return err


class GdlSyntaxError(GdlError):
    kind = "syntax error"


class CheckError(GdlError):
    """One or more problems the checker found; `problems` holds each as a GdlError."""

    kind = "check error"

    def __init__(self, problems: Sequence[GdlError]):
        self.problems = list(problems)
        first = self.problems[0]
        super().__init__(first.message, first.span, source=first.source,
                         expected=first.expected, suggestion=first.suggestion)

    def __str__(self) -> str:
        body = "\n".join(str(p) for p in self.problems)
        n = len(self.problems)
        return body + (f"\n{n} problems found." if n > 1 else "")


class OptionError(GdlError):
    kind = "option error"


class MoveError(GdlError):
    kind = "move error"


class TraceError(GdlError):
    kind = "trace error"
    #: as `RuleError.seats_notes`, for a step the rules failed on
    seats_notes = None


def hide_notes(err: GdlError, viewer: Optional[str]) -> GdlError:
    """Leaves out of `err`'s notes those a seat's own (`seats_notes`) where `viewer`, a
    seat's name (None: the all-seeing view), is another seat; returns `err`."""
    private = getattr(err, "seats_notes", None)
    if viewer is not None and private is not None and private[0] != viewer:
        err.notes = tuple(n for n in err.notes if n not in private[1])
    return err


class RuleError(GdlError):
    """The rules could not be carried out: no case matched, a deadlock, a broken bound."""

    kind = "rule error"
    #: (a seat's name, notes only that seat may read): a deadlock's why names its cards
    seats_notes = None

    def __init__(self, message: str, span: Optional[Span] = None, *, rule: str = "",
                 trace: Sequence[str] = (), **kw):
        super().__init__(message, span, **kw)
        self.rule = rule
        self.trace = tuple(trace)

    @property
    def rule_line(self) -> str:
        """Where the rules failed: `in rule: deal`, or `in def value` for a def's or a
        table's line (`rule` is then `def value`, `table points`)."""
        return f"in {self.rule}" if self.rule.startswith(("def ", "table ")) else \
            f"in rule: {self.rule}"

    def __str__(self) -> str:
        text = super().__str__()
        if self.rule:
            text += f"\n  {self.rule_line}"
        if self.trace:
            tail = list(self.trace[-12:])
            more = len(self.trace) - len(tail)
            text += "\n  trace: " + ("... " if more else "") + " ; ".join(tail)
        return text
