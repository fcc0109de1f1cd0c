"""Reading `gdl play` input: the command registry, Tab completion and the line readers.

Commands register themselves with `@command(usage, summary, details)`.  The first word of
a line completes to a command or to the text of a legal move of the seat to move (the
whole move, so the first letters of an action offer each of its moves); after a command,
its argument completes: seats for `view`, moves for `why`, option names and values for
`set`, paths for `save` and `load` (gdl._repl_complete).  On a terminal lines are read
with prompt_toolkit; with piped input they are read plainly and echoed after the prompt,
and prompt_toolkit (a tenth of a second to import) is not loaded.
"""
from __future__ import annotations

import os
import sys
from typing import Callable, Dict, NamedTuple


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


def prompt_toolkit_reader(repl) -> Callable[[], str]:
    """Reads lines on a terminal: history (kept in $GDL_HISTORY, default ~/.gdl_history;
    empty: none), Tab completion, Ctrl-R search, up/down prefix search, suggestions."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
    from prompt_toolkit.formatted_text import ANSI
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    from ._repl_complete import ReplCompleter
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
