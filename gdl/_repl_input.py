"""Reading `gdl play` input: the command registry, Tab completion and the line readers.

Commands register themselves with `@command(usage, summary, details)`.  The first word of
a line completes to a command or to the text of a legal move of the seat to move (the
whole move, so the first letters of an action offer each of its moves); after a command,
its argument completes: seats for `view`, moves for `why`, option names and values for
`set`, paths for `save` and `load`.  On a terminal lines are read with prompt_toolkit; with
piped input they are read plainly and echoed after the prompt.
"""
from __future__ import annotations

import os
import sys
from typing import Callable, Dict, Iterable, List, NamedTuple

from prompt_toolkit.completion import Completer, Completion, PathCompleter
from prompt_toolkit.document import Document

from .errors import GdlError


class Command(NamedTuple):
    """A REPL command: its name, method, usage line, one-line summary and details."""

    name: str
    run: Callable
    usage: str
    summary: str
    details: str


COMMANDS: Dict[str, Command] = {}
ALIASES = {"exit": "quit", "?": "help", "q": "quit", "ls": "moves", "history": "log"}


def command(usage: str, summary: str, details: str = ""):
    """Registers a `Repl` method as the command named by the usage's first word."""
    def register(fn):
        name = usage.split()[0]
        COMMANDS[name] = Command(name, fn, usage, summary, details)
        return fn
    return register


class Quit(Exception):
    """Raised by `quit` to leave the loop."""


_SEAT_ARG = {"view", "log", "as", "moves"}
_MOVE_ARG = {"why", "play"}


class ReplCompleter(Completer):
    """Completes a `Repl`'s input line (see the module docstring)."""

    def __init__(self, repl):
        self.repl = repl
        self.paths = PathCompleter(expanduser=True)
        self._cache = (None, [])

    def move_texts(self) -> List[str]:
        s = self.repl.session
        key = s.state                  # never changed in place: each step makes a new one
        if self._cache[0] is not key:
            try:
                texts = [m.text for m in s.legal_moves()]
            except GdlError:
                texts = []
            self._cache = (key, texts)
        return self._cache[1]

    def get_completions(self, document: Document, complete_event) -> Iterable[Completion]:
        text = document.text_before_cursor.lstrip()
        if " " not in text:
            for name in list(COMMANDS):
                if name.startswith(text.lstrip(":")):
                    yield Completion(name, -len(text.lstrip(":")),
                                     display_meta=COMMANDS[name].summary[:40])
            yield from self._moves(text, "move")
            return
        word, _, rest = text.partition(" ")
        word = ALIASES.get(word.lstrip(":").lower(), word.lstrip(":").lower())
        rest = rest.lstrip()
        if word in _SEAT_ARG:
            yield from _words(rest, [p.name for p in self.repl.session.game.seats] + ["all"])
        elif word in _MOVE_ARG:
            yield from self._moves(rest, "move")
        elif word == "help":
            yield from _words(rest, list(COMMANDS))
        elif word == "chance":
            yield from _words(rest, ["draw", "manual", "auto"])
        elif word == "symbols":
            yield from _words(rest, ["on", "off"])
        elif word == "set":
            yield from self._options(rest)
        elif word == "agents":
            yield from self._agents(rest)
        elif word in ("save", "load"):
            yield from self.paths.get_completions(Document(rest), complete_event)
        elif word not in COMMANDS:
            yield from self._moves(text, "move")

    def _moves(self, typed: str, meta: str) -> Iterable[Completion]:
        wanted = " ".join(typed.split()) + (" " if typed.endswith(" ") else "")
        for m in self.move_texts():
            if m.startswith(wanted):
                yield Completion(m, -len(typed), display_meta=meta)

    def _options(self, rest: str) -> Iterable[Completion]:
        from interpreter.options import option_decls
        from gdl import ast as A
        word = rest.split(" ")[-1]
        decls = option_decls(self.repl.session.game.ruleset)
        name, eq, value = word.partition("=")
        if not eq:
            yield from _words(word, [n + "=" for n in decls])
            return
        decl = decls.get(name)
        if decl is None:
            return
        if isinstance(decl.type, A.ChoiceType):
            choices = list(decl.type.names)
        elif getattr(decl.type, "name", "") == "bool":
            choices = ["true", "false"]
        else:
            return
        yield from _words(value, choices)

    def _agents(self, rest: str) -> Iterable[Completion]:
        from interpreter.agents import AGENTS
        word = rest.split(",")[-1].split(" ")[-1]
        who, eq, name = word.partition("=")
        if not eq:
            seats = [p.name + "=" for p in self.repl.session.game.seats] + ["all="]
            yield from _words(word, seats)
        else:
            yield from _words(name, list(AGENTS) + ["you"])


def _words(typed: str, candidates: List[str]) -> Iterable[Completion]:
    for c in candidates:
        if c.startswith(typed):
            yield Completion(c, -len(typed))


def prompt_toolkit_reader(repl) -> Callable[[], str]:
    """Reads lines on a terminal: history (kept in $GDL_HISTORY, default ~/.gdl_history;
    empty: none), Tab completion, Ctrl-R search, up/down prefix search, suggestions."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
    from prompt_toolkit.formatted_text import ANSI
    from prompt_toolkit.history import FileHistory, InMemoryHistory
    path = os.environ.get("GDL_HISTORY", os.path.join(os.path.expanduser("~"),
                                                      ".gdl_history"))
    try:
        history = FileHistory(path) if path else InMemoryHistory()
        if path:
            open(path, "a", encoding="utf-8").close()
    except OSError:
        history = InMemoryHistory()
    session = PromptSession(history=history, completer=ReplCompleter(repl),
                            auto_suggest=AutoSuggestFromHistory(),
                            complete_while_typing=False, enable_history_search=True)

    def read() -> str:
        return session.prompt(ANSI(repl.coloured_prompt()))
    return read


def piped_reader(repl) -> Callable[[], str]:
    """Reads lines from a non-terminal stdin, echoing each after its prompt."""
    def read() -> str:
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        repl.say(repl.prompt() + line.rstrip("\n"))
        return line
    return read


def plain_reader(repl) -> Callable[[], str]:
    """Reads lines from a terminal when stdout is not one (no prompt_toolkit)."""
    def read() -> str:
        return input(repl.prompt())
    return read
