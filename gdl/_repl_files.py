"""The `gdl play` commands that change the rules, the options and the files: `reload`,
`set`, `options`, `restart`, `save`, `load`, plus `eval` and `symbols`.  A mixin of `Repl`
(gdl/repl.py), kept apart so each module stays small.
"""
from __future__ import annotations

import re
import shlex
from typing import Optional

from ._repl_input import command
from ._repl_render import columns
from ._repl_session import Halted, ReplError
from .errors import GdlError, counted, whole_number


class FileCommands:
    """Commands on the ruleset file, options and traces (needs `Repl`'s session and say)."""

    @command("reload", "re-read the ruleset file and replay the game so far on it",
             "If a recorded step is no longer legal, the replay stops just before it and\n"
             "says which step, which move and which rule forbids it; the steps from there\n"
             "on wait in `redo`.  A ruleset that no longer loads is reported and the old\n"
             "rules stay.  An option set with `set` that the file no longer has, or whose\n"
             "value it no longer takes, is dropped (the file's default applies), with a note.")
    def cmd_reload(self, arg: str) -> None:
        s = self.session
        try:
            replayed, total, stopped, dropped = s.reload()
        except GdlError as err:
            self.say(self.paint.error(str(err)))
            self.say(self.paint.error(f"{s.path} does not load; keeping the old rules"))
            return
        self.say_dropped(dropped, "the option setting")
        self.say(f"reloaded {s.path}: replayed {replayed} of {counted(total, 'step')}")
        self._warn_clashes()
        self.say_notes()
        if stopped:
            self.say(self.paint.error(self.stopped_text(stopped)))
            self.say(self.paint.note("the steps from there on wait in `redo`"))
        self._played_on()

    def say_dropped(self, dropped, what: str) -> None:
        """Notes each option setting the rules no longer take, dropped (`_taken`)."""
        for name, value, why in dropped:
            self.say(self.paint.note(f"dropped {what} {name}={value}: {why}; the file's "
                                     f"default applies"))

    def _played_on(self) -> None:
        """After new rules or a loaded trace: where no undone step waits, chance and the
        agents act until you must, as after a move; then the state is said."""
        shown = [] if self.session.redo_steps else self.session.advance()
        self.show_steps(shown)
        if not self.session.state.is_terminal() or not shown:
            self.say(self.paint.status(self.status_line()))

    @command("set NAME=VALUE ...", "restart the game with changed options",
             "The new game starts from the beginning with the same seed, on the rules as\n"
             "last read (`reload` re-reads the file).  `NAME=` with no value goes back to\n"
             "the file's default; a value with spaces is quoted or simply written out\n"
             "(`set ages=8 35 41 70`).  `set` alone lists the options (as `options` does).")
    def cmd_set(self, arg: str) -> None:
        if not arg:
            self.cmd_options("")
            return
        changes = _set_items(arg)
        done = ", ".join(f"{k}={v}" if v else f"{k} at its default"
                         for k, v in changes.items())
        try:
            shown = self.session.set_options(changes)
        except Halted:
            self.say(f"restarted with {done} (seed {self.session.seed})")
            self.say_notes()
            raise
        self.say(f"restarted with {done} (seed {self.session.seed})")
        self.say_notes()
        changed = self.session.file_changed()
        if changed:
            self.say(self.paint.note(f"note: {changed} has changed since it was read; "
                                     f"these are the rules as last read (`reload` reads "
                                     f"it)"))
        self.show_steps(shown)

    @command("options", "list the options, their values and documentation")
    def cmd_options(self, arg: str) -> None:
        from interpreter.options import option_decls, type_text
        from interpreter.values import text_of
        s = self.session
        decls = option_decls(s.game.ruleset)
        if not decls:
            self.say(f"{s.game.title} has no options")
        for name, value, doc in s.game.option_docs():
            mark = " (set)" if name in s.overrides else ""
            kind = type_text(decls[name].type)
            self.say(f"  {self.paint(name, 'bold')} = {text_of(value)}{mark}   "
                     + self.paint(kind, "dim"))
            if doc:
                self.say(self.paint.note(columns([doc], indent=6)))

    @command("restart [SEED]", "start a new game (same seed, or this one)")
    def cmd_restart(self, arg: str) -> None:
        seed = whole_number(arg)
        if arg and seed is None:
            raise ReplError(f"restart takes a whole-number seed, not {arg!r}")
        shown = self.session.restart(seed)
        self.say(f"new game, seed {self.session.seed}")
        self.show_steps(shown)

    @command("save FILE", "write the game so far as a JSON trace",
             "The trace format of `gdl run --trace`: options, seed and every step.  `load`,\n"
             "`gdl play --trace` and `gdl replay` read it.")
    def cmd_save(self, arg: str) -> None:
        arg = _path(arg)
        if not arg:
            raise ReplError("save where? give a file name, e.g. `save game.json`")
        n = self.session.save(arg)
        self.say(f"saved {counted(n, 'step')} to {arg}")

    @command("load FILE", "open a saved trace (options, seed) and replay it")
    def cmd_load(self, arg: str, extra: Optional[dict] = None) -> None:
        arg = _path(arg)
        if not arg:
            raise ReplError("load what? give a trace file, e.g. `load game.json`")
        self.loaded(arg, self.session.load_trace(arg, extra))

    def loaded(self, path: str, done) -> None:
        """Says what loading a trace did (`Session.load_trace`'s Replayed), then plays
        on as after a move."""
        replayed, total, stopped, dropped = done
        self.say_dropped(dropped, "the trace's option")
        self.say(f"loaded {path}: replayed {replayed} of {counted(total, 'step')}")
        self.say_notes()
        if stopped:
            self.say(self.paint.error(self.stopped_text(stopped)))
        self._played_on()

    @command("eval EXPR", "evaluate a gdl expression in the current state",
             "E.g. `eval count(deck[p1])`.  The expression is gdl, never Python; it sees the\n"
             "variables, zones, options and defs of the ruleset.")
    def cmd_eval(self, arg: str) -> None:
        if not arg:
            raise ReplError("eval what? give a gdl expression")
        s = self.session
        value = s.game.evaluate(arg, s.state)
        self.say(self._value_text(value))

    def _value_text(self, value) -> str:
        from interpreter.values import ZoneRef, text_of
        if isinstance(value, ZoneRef):
            cards = self.session.state.cards_in(value)
            return f"{value.text} ({len(cards)}): " + " ".join(
                c.symbol if self.symbols else c.text for c in cards)
        return text_of(value)

    @command("symbols [on|off]", "show cards with their symbols or their plain text")
    def cmd_symbols(self, arg: str) -> None:
        if arg.lower() in ("on", "off"):
            self.symbols = arg.lower() == "on"
        elif arg:
            raise ReplError(f"symbols takes on or off, not {arg!r}")
        self.say(f"symbols {'on' if self.symbols else 'off'}")


def _path(arg: str) -> str:
    """A file name as typed, or quoted as `set` takes a value (`save "my game.json"`
    wrote a file named with the quotes)."""
    arg = arg.strip()
    if arg[:1] in ("'", '"'):
        try:
            words = shlex.split(arg)
        except ValueError:              # an unclosed quote: the name as typed
            return arg
        if len(words) == 1:
            return words[0]
    return arg


def _set_items(arg: str) -> dict:
    """Returns {name: value text} from `set`'s words: NAME=VALUE, a value quoted or
    written out over several words (a word without `=` goes on the value before it)."""
    try:
        words = shlex.split(re.sub(r"\s*=\s*", "=", arg))
    except ValueError as err:                   # an unclosed quote
        raise ReplError(f"set cannot read {arg!r}: {err}") from None
    out: dict = {}
    last = None
    for word in words:
        name, sep, value = word.partition("=")
        if sep and name:
            out[name] = value
            last = name
        elif last is not None:
            out[last] = f"{out[last]} {word}"
        else:
            raise ReplError(f"set takes NAME=VALUE, not {word!r}")
    return out


