"""Text to AST: the lark parser with an indentation post-lexer, and friendly syntax errors."""
from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Optional

from lark import (Lark, Tree, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput,
                  UnexpectedToken)
from lark.exceptions import VisitError
from lark.indenter import DedentError
from lark.indenter import Indenter

from . import ast as A
from .errors import SOURCES, GdlError, GdlSyntaxError, did_you_mean, source_lines
from .span import Span
from .transform import ToAst

from .keywords import KEYWORDS, STATEMENT_WORDS

# Readable names for lark's terminal names in "expected" lists.
_TERMINAL_TEXT = {
    "NAME": "a name", "INT": "a number", "STRING": "a quoted string", "_NL": "end of line",
    "_INDENT": "an indented block", "_DEDENT": "end of the indented block", "COLON": "':'",
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "LBRACE": "'{'",
    "RBRACE": "'}'", "COMMA": "','", "EQUAL": "'='", "COMPOP": "a comparison",
    "ADDOP": "'+' or '-'", "MULOP": "'*', '/' or '%'", "DOT": "'.'", "AUGOP": "'+=' or '-='",
"OPTIONAL": "'?'", "__ANON_0": "'..'", "$END": "end of file",
}


class _GdlIndenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4
    # NAME is tried in every parser state, so a word such as `too` is lexed whole (and
    # reported as an unexpected name) instead of as the keyword `to` followed by `o`.
    always_accept = ("_NL", "NAME")


@functools.lru_cache(maxsize=1)
def _lark() -> Lark:
    grammar = (Path(__file__).with_name("grammar.lark")).read_text(encoding="utf-8")
    # cache=True keeps the built parse tables in the temp directory, keyed by the grammar,
    # so each `gdl` command starts in milliseconds instead of rebuilding them.
    return Lark(grammar, parser="lalr", postlex=_GdlIndenter(), propagate_positions=True,
                maybe_placeholders=True, start=["start", "expr"], cache=True)


def _expected_text(lark: Lark, names) -> list:
    out = []
    for name in sorted(names):
        if name in _TERMINAL_TEXT:
            out.append(_TERMINAL_TEXT[name])
            continue
        try:
            pattern = lark.get_terminal(name).pattern
        except KeyError:
            out.append(name)
            continue
        value = getattr(pattern, "value", name)
        out.append(repr(value) if pattern.type == "str" else name.lower())
    return sorted(set(out))


#: words of other languages' statements, read as a name to assign, and what gdl does
_NO_SUCH_STATEMENT = {
    "break": "end the loop with its condition (`while not done:`, a flag set inside)",
    "continue": "put the rest of the loop's body under an `if`",
    "return": "a rule ends at its last statement; `end game` ends the game",
}


_STATEMENT_LIST = ", ".join(sorted(STATEMENT_WORDS))

#: the words a line of a condition starts with (`=` there is a comparison gone wrong)
_CONDITION_WORDS = frozenset({"if", "elif", "while", "require", "invariant"})
#: an `=` that is no part of `==`, `!=`, `<=` or `>=`
_LONE_EQUALS = re.compile(r"(?<![=!<>])=(?!=)")


def _syntax_error(err: UnexpectedInput, path: str, text: str,
                  whole: str = "file") -> GdlSyntaxError:
    """The error of lark's `err` in `text`; `whole` names what ended too soon."""
    lark = _lark()
    line, col = getattr(err, "line", 0) or 0, getattr(err, "column", 0) or 0
    if isinstance(err, UnexpectedEOF) or (isinstance(err, UnexpectedToken)
                                          and err.token.type == "$END"):
        line = max(1, text.count("\n") + (0 if text.endswith("\n") else 1))
        lines = source_lines(text)
        col = len(lines[-1]) + 1 if lines else 1
        expected = _expected_text(lark, getattr(err, "expected", ()) or ())
        return GdlSyntaxError(f"the {whole} ends in the middle of a construct",
                              Span(path, line, col), source=text, expected=expected)
    if isinstance(err, UnexpectedCharacters):
        ch = text[err.pos_in_stream] if err.pos_in_stream < len(text) else "?"
        hint = ""
        if ch == '"':
            rest = text[err.pos_in_stream:].split("\n", 1)[0]
            hint = (": `\\\"` inside a string is a quote, not its end (`\\\\` writes a "
                    "backslash)" if '\\"' in rest else
                    ": a string ends on the line it starts (`\\n` writes a line break)")
        return GdlSyntaxError(f"unexpected character {ch!r}{hint}", Span(path, line, col),
                              source=text, expected=_expected_text(lark, err.allowed or ()))
    tok = err.token
    expected_names = set(err.expected)
    expected = _expected_text(lark, expected_names)
    shown = {"_NL": "end of line", "_INDENT": "an indented line",
             "_DEDENT": "end of the indented block"}.get(tok.type, repr(str(tok)))
    suggestion = None
    if tok.type == "NAME":
        words = [e.strip("'") for e in expected if e.startswith("'")]
        suggestion = did_you_mean(str(tok), [w for w in words if w.isidentifier()])
        if suggestion is None and "NAME" not in expected_names and len(str(tok)) > 2:
            # ("p" is as near "up" as difflib's cutoff: a name that short is no misspelling;
            # any keyword, wanted here or not, only if near: `oops` is no `choose`)
            suggestion = did_you_mean(str(tok), KEYWORDS, cutoff=0.75)
    msg = f"unexpected {shown}"
    lines = source_lines(text)
    line_text = lines[(tok.line or 1) - 1] if len(lines) >= (tok.line or 1) else ""
    before = line_text[: max((tok.column or 1) - 1, 0)].split()
    if str(tok) in ("=", "+=", "-=") and before and before[-1] in STATEMENT_WORDS:
        msg += (f": {before[-1]} starts a statement here, so it cannot be assigned; "
                f"rename the variable")
    around = line_text[max((tok.column or 1) - 2, 0):(tok.column or 1)]
    prefix = line_text[:max((tok.column or 1) - 1, 0)]
    if str(tok) == "=" and "'='" not in expected and "==" not in around and before and (
            before[0] in _CONDITION_WORDS or "when" in before or "if" in before
            or _LONE_EQUALS.search(prefix)):       # `let ok = n = 3`: the second is a test
        msg += ": `=` assigns, in a statement of its own; a comparison is written `==`"
        suggestion = "=="
    if str(tok) == "if" and before and "then" not in before:
        msg += ": a value chosen by a condition is written `if COND then A else B`"
        suggestion = None
    if str(tok) == "elif" and "then" in before:
        msg += ": an if ... then ... else value has no elif; write `else if ... then ...`"
        suggestion = None
    if str(tok) == "for" and "if" in before and "for" in before[:before.index("if")]:
        msg += (": a comprehension's `if` comes after all its `for`s (`... for a in A "
                "for b in B if ...`)")
    if (tok.type == "NAME" and len(before) == 1 and before[0].isidentifier()
            and before[0] not in STATEMENT_WORDS and "'='" in expected
            and whole != "expression"):          # (an expression is no statement)
        # `ask p: ...`: an unknown first word was read as a variable being assigned
        msg += (f": a line starting with {before[0]!r} can only assign it (`{before[0]} = "
                f"...`); a statement starts with a statement word ({_STATEMENT_LIST})")
        suggestion = did_you_mean(before[0], STATEMENT_WORDS)
    if len(before) == 1 and before[0] in _NO_SUCH_STATEMENT and tok.type == "_NL":
        msg += f": gdl has no {before[0]} statement; {_NO_SUCH_STATEMENT[before[0]]}"
    at = Span(path, tok.line or line, tok.column or col)
    if tok.type == "_INDENT":
        msg = "unexpected indentation (a block may only start after a line ending in ':')"
        at = _indented_line(lines, tok.line or line, path) or at
        tabbed = _tab_indented(lines, at.line)
        if tabbed:
            msg += (f"; line {tabbed} is indented with a tab, which counts as 4 columns: "
                    f"indent with spaces")
    return GdlSyntaxError(msg, at, source=text, expected=expected, suggestion=suggestion)


def _indented_line(lines, after: int, path: str) -> Optional[Span]:
    """Where the indentation lark found at the end of line `after` is: the first line of
    text from there on (lark's _INDENT token sits at the line break before it, or at a
    comment above it)."""
    for number in range(after + 1, len(lines) + 1):
        stripped = lines[number - 1].lstrip(" \t")
        if stripped and not stripped.startswith("#"):
            return Span(path, number, len(lines[number - 1]) - len(stripped) + 1)
    return None


def _tab_indented(lines, number: int) -> Optional[int]:
    """Line `number` or the line of text above it, if its indentation holds a tab."""
    for n in range(number, 0, -1):
        text = lines[n - 1] if n <= len(lines) else ""
        stripped = text.lstrip(" \t")
        if n < number and (not stripped or stripped.startswith("#")):
            continue
        if "\t" in text[: len(text) - len(stripped)]:
            return n
        if n < number:
            return None
    return None


def _dedent_error(text: str, path: str) -> GdlSyntaxError:
    """Finds the first line whose indentation matches no enclosing block."""
    stack = [0]
    for number, line in enumerate(source_lines(text), 1):
        stripped = line.lstrip(" \t")
        if not stripped or stripped.startswith("#"):
            continue
        width = len(line[: len(line) - len(stripped)].expandtabs(4))
        if width > stack[-1]:
            stack.append(width)
            continue
        while width < stack[-1]:
            stack.pop()
        if width != stack[-1]:
            return GdlSyntaxError(
                "this line's indentation matches no enclosing block", Span(path, number, width + 1),
                source=text, expected=[f"indentation of {w} spaces" for w in stack[-2:]])
    return GdlSyntaxError("inconsistent indentation", Span(path, 1, 1), source=text)


#: the deepest a parse tree may nest: the seed games reach 23 levels, and every stage
#: after the parser (the transformer, the checker, the compiler) recurses, some by two
#: frames a level, within Python's limit of 1,000 (a sum of 480 terms or 200 calls one
#: inside the other failed with no place named)
MAX_NESTING = 300


def _check_nesting(tree, text: str, path: str) -> None:
    """Raises GdlSyntaxError at the declaration (or statement, or expression) that nests
    deeper than MAX_NESTING."""
    stack = [(tree, 1, tree)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth, top = pop()
        if depth > MAX_NESTING:
            meta = top.meta
            line, column = (meta.line, meta.column) if not meta.empty else (1, 1)
            raise GdlSyntaxError(
                f"this nests more than {MAX_NESTING} levels deep (expressions or blocks "
                f"inside one another)", Span(path, line, column), source=text,
                notes=("write it in smaller pieces: a def for part of an expression, a "
                       "rule for part of a block",))
        for child in node.children:
            if type(child) is Tree:
                push((child, depth + 1, child if depth == 1 else top))


#: how many texts' ASTs `parse_text` keeps (see `_parse`)
PARSED_KEPT = 16


def parse_text(text: str, path: str = "<string>") -> A.Ruleset:
    """Returns the AST of a ruleset's text, or raises GdlSyntaxError."""
    if "\r" in text:           # CRLF, or a lone CR (old Mac files), as one line break
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.endswith("\n"):
        text += "\n"
    SOURCES[path] = text
    return _parse(text, path)


@functools.lru_cache(maxsize=PARSED_KEPT)
def _parse(text: str, path: str) -> A.Ruleset:
    """`parse_text`'s work, kept for the last texts by text and path: a ruleset loaded
    again in one process (another option value or player count, the fuzzer's sweeps, a
    variant's base, a reload that left the file as it was) is not parsed again.  An AST
    is frozen, so one serves every load; the path is part of the key, as spans name it;
    a text that fails to parse is not kept."""
    try:
        tree = _lark().parse(text, start="start")
    except UnexpectedInput as err:
        raise _syntax_error(err, path, text) from None
    except DedentError:
        raise _dedent_error(text, path) from None
    _check_nesting(tree, text, path)
    try:
        decls = ToAst(path).transform(tree)
    except VisitError as err:
        orig = err.orig_exc
        if isinstance(orig, GdlError):
            raise orig.with_source(text) from None
        raise
    return A.Ruleset(decls, path=path, source=text)


def parse_expression(text: str, path: str = "<expression>"):
    """Returns the AST of one expression (for the REPL and tests), or raises GdlSyntaxError."""
    SOURCES[path] = text
    try:
        tree = _lark().parse(text.strip(), start="expr")
    except UnexpectedInput as err:
        raise _syntax_error(err, path, text, "expression") from None
    _check_nesting(tree, text, path)
    try:
        return ToAst(path).transform(tree)
    except VisitError as err:
        if isinstance(err.orig_exc, GdlError):
            raise err.orig_exc.with_source(text) from None
        raise


#: the largest ruleset file read (the seed games are 10 to 30 KB): a path to a device
#: such as /dev/zero was read until memory ran out
MOST_RULESET_BYTES = 10 << 20


def parse_file(path) -> A.Ruleset:
    """Returns the AST of a ruleset file."""
    p = Path(path)
    try:
        if p.exists() and not p.is_file():
            raise GdlError(f"cannot read {p}: it is not a file")
        if p.exists() and p.stat().st_size > MOST_RULESET_BYTES:
            raise GdlError(f"cannot read {p}: it is larger than a ruleset may be "
                           f"({MOST_RULESET_BYTES >> 20} MB)")
        data = p.read_bytes()       # (`read(n)` would set aside n bytes first)
        if b"\r" in data:           # lines as `parse_text` counts them, for the place of
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")     # a bad byte
    except OSError as err:
        raise GdlError(f"cannot read {p}: {err.strerror}") from None
    except ValueError:              # a NUL in the path (a trace's "game", say)
        raise GdlError(f"cannot read {str(p)!r}: a path cannot hold a NUL character") \
            from None
    try:
        text = data.decode("utf-8-sig")          # a byte-order mark is not text
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        SOURCES.pop(str(path), None)    # the text read before is no excerpt of this one
        raise GdlError(f"{p} is not UTF-8 text (byte {data[err.start]:#04x} here)",
                       Span(str(path), line, col)) from None
    return parse_text(text, str(path))
