"""Collects the problems every pass finds, so the user sees all of them at once."""
from __future__ import annotations

import re
from typing import Iterable, Optional, Sequence

from ..ast import Ruleset
from ..errors import CheckError, GdlError, source_lines
from ..span import Span


class CheckProblem(GdlError):
    """One problem the checker found; `CheckError.problems` holds a list of them."""

    kind = "check error"


class Report:
    """The problems found so far in one ruleset, each tied to its source text."""

    def __init__(self, ruleset: Ruleset):
        self.source = ruleset.source
        self.path = ruleset.path
        self.problems: list = []
        self._lines = None              # the source's lines, once `word_span` needs them

    def error(self, message: str, span: Optional[Span], *, expected: Sequence[str] = (),
              suggestion: Optional[str] = None, notes: Sequence[str] = ()) -> None:
        """Records a problem; a span the parser left empty points at the top of the file."""
        if span is None or not span.line:
            span = self.start()
        # A merged variant holds declarations of two files; show only this file's lines.
        source = self.source if span.file == self.path else ""
        self.problems.append(CheckProblem(message, span, source=source,
                                          expected=expected, suggestion=suggestion,
                                          notes=notes))

    def start(self) -> Span:
        return Span(self.path, 1, 1)

    def lines(self) -> list:
        """The source's lines, split once (a declaration's name is looked for each time)."""
        if self._lines is None:
            self._lines = source_lines(self.source)
        return self._lines

    def word_span(self, span: Span, word: str) -> Span:
        """The span of the first whole `word` inside `span`, or `span` itself.

        Names inside statements (`choose p: look`, `do score`) are strings in the AST, with
        no span of their own; this finds them so the caret lands under the name.
        """
        if not span.line:
            return span
        lines = self.lines()
        last = min(span.end_line or span.line, len(lines))
        pattern = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])")
        for line in range(span.line, last + 1):
            text = lines[line - 1]
            start = span.col - 1 if line == span.line else 0
            found = pattern.search(text, start)
            if found:
                return Span(span.file, line, found.start() + 1)
        return span

    def finish(self) -> None:
        """Raises CheckError with every distinct problem in source order, if there are any."""
        unique, seen = [], set()
        for p in self.problems:
            key = (p.message, p.span.line, p.span.col)
            if key not in seen:
                seen.add(key)
                unique.append(p)
        if unique:
            unique.sort(key=lambda p: (p.span.line, p.span.col))
            raise CheckError(unique)


def listing(names: Iterable[str]) -> list:
    """A sorted list of names for an `expected` line."""
    return sorted(set(names))


def attr_span(node) -> Span:
    """The span of the name after the dot in `x.name` (where an unknown name is)."""
    span = node.span
    if not span.end_line or span.end_col <= len(node.name):
        return span
    return Span(span.file, span.end_line, span.end_col - len(node.name))


def article(word: str) -> str:
    """`an action`, `a rule`: a kind or type with its indefinite article."""
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"
