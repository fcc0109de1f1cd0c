"""Source positions carried by every AST node and every error."""
from __future__ import annotations

import attrs


@attrs.frozen
class Span:
    """Where a construct sits in its source file (1-based line and column)."""

    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NOWHERE = Span("<builtin>", 0, 0)


def span_field():
    """An attrs field for a node's span, left out of equality and hashing."""
    return attrs.field(default=NOWHERE, eq=False, repr=False, kw_only=True)
