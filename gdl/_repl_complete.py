"""Tab completion of `gdl play` input on a terminal (see gdl._repl_input): apart, so that
piped input never imports prompt_toolkit."""
from __future__ import annotations

from typing import Iterable, List

from prompt_toolkit.completion import Completer, Completion, PathCompleter
from prompt_toolkit.document import Document

from ._repl_input import ALIASES, COMMANDS
from .errors import GdlError

_SEAT_ARG = {"view", "log", "as", "moves"}
_MOVE_ARG = {"why", "play"}


class ReplCompleter(Completer):
    """Completes a `Repl`'s input line (what completes where: `gdl._repl_input`'s
    docstring)."""

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
        elif word in _MOVE_ARG:     # the line a move of an action of the command's name,
            whole = list(self._moves(text, "move"))     # else the command and a move
            yield from whole or self._moves(rest, "move")
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
