"""`gdl play`: the REPL a designer lives in while writing rules.

Look at the table as any seat sees it, list and make moves (by number or text, with tab
completion, history and Ctrl-R search), ask why a move is illegal, take moves back, let
agents play, pick chance outcomes, edit the ruleset and `reload` it onto the game so far.
On a terminal it reads lines with prompt_toolkit; with piped input it reads plain lines
and echoes each after its prompt, so a script's output reads as a transcript.

The game itself lives in `_repl_session.Session`; colours and layout in `_repl_render`;
the command registry, completion and line readers in `_repl_input`; the commands on
files and options in `_repl_files`.  Every user error is one line and the prompt comes
back.
"""
from __future__ import annotations

import os
import re
import signal
import sys
import traceback
from pathlib import Path
from typing import Callable, List

from ._repl_files import FileCommands
from ._repl_input import ALIASES, COMMANDS, Quit, command, piped_reader, plain_reader, \
    prompt_toolkit_reader
from ._repl_render import (Painter, one_line, rule_line, terminal_allows_colour,
                           terminal_allows_symbols)
from . import _repl_session
from ._repl_session import Halted, ReplError, Session, Shown, parse_agent_spec, seat_of, \
    step_text, trace_overrides
from .errors import (OUT_OF_MEMORY, TOO_LONG_NUMBER, GdlError, MoveError, OptionError,
                     RuleError, counted, did_you_mean, hide_notes, natural,
                     too_long_number)

#: Steps announced at once beyond this many are shortened to their first and last ones.
MAX_SHOWN_STEPS = 40
#: Chance outcomes listed at most; the rest are still picked by number.
MAX_LISTED_OUTCOMES = 60


#: The order of `help`: playing, going back and forth, then rules, options and files.
HELP_ORDER = ("help view moves play why undo redo back-to auto chance agents as log reload "
              "set options restart save load eval symbols quit").split()


class Repl(FileCommands):
    """Reads commands and moves, and shows what they do to the session's game."""

    def __init__(self, session: Session, colour: bool, symbols: bool, out=None):
        self.session = session
        self.paint = Painter(colour)
        self.symbols = symbols
        self.stream = out or sys.stdout
        self._actions_of = (None, ())
        self._clashes_told: set = set()

    # ------------------------------------------------------------------ output
    def say(self, text: str = "") -> None:
        print(text, file=self.stream, flush=True)

    def show_steps(self, shown: List[Shown]) -> None:
        """Prints steps just made (the middle of a long run elided), then a note on moves
        committed at a simultaneous decision, or the result if the game ended."""
        self._show_steps(shown)
        pending = self.session.step_count() - len(self.session.state.history)
        if pending > 0:
            waiting = ", ".join(p.name for p in self.session.state.to_move())
            self.say(self.paint.note(f"{pending} move{'s' if pending > 1 else ''} committed, "
                                     f"hidden until every seat has chosen (waiting for "
                                     f"{waiting})"))

    def _show_steps(self, shown: List[Shown]) -> None:
        if len(shown) > MAX_SHOWN_STEPS:
            head, tail = shown[:MAX_SHOWN_STEPS // 2], shown[-MAX_SHOWN_STEPS // 2:]
            skipped = len(shown) - len(head) - len(tail)
            shown = head + [None] + tail
        for item in shown:
            if item is None:
                self.say(self.paint.note(f"      ... {counted(skipped, 'more step')} "
                                         f"(`log` shows all)"))
            else:
                self.say(self.paint.step(*item))
        if shown and self.session.state.is_terminal():
            self.say(self.paint.status(self.status_line()))

    def status_line(self) -> str:
        from interpreter.observe import status_line
        return status_line(self.session.state)

    def prompt(self) -> str:
        """Returns the prompt: file, step number, and whose turn it is."""
        s = self.session
        state = s.state
        stem = Path(s.path).stem
        if state.is_terminal():
            who = "over"
        elif state.is_chance():
            who = "chance"
        else:
            seat = s.current_seat()
            who = seat.name
            if seat.index in s.agents:
                who += f" ({s.agents[seat.index]})"
            if state.is_simultaneous():
                who += " (simultaneous)"
        return f"{stem} {s.step_count()} {who}> "

    def coloured_prompt(self) -> str:
        text = self.prompt()
        stem, number, rest = text.split(" ", 2)
        return self.paint(stem, "cyan") + " " + self.paint(number, "dim") + " " + \
            self.paint(rest[:-2], "bold") + "> "

    def banner(self) -> None:
        s = self.session
        game = s.game
        options = ", ".join(f"{k}={v}" for k, v in s.overrides.items())
        extra = [f"options {options}"] if options else []
        extra += [f"viewing as {s.observer.name}"] if s.observer is not None else []
        extra += [f"agents {', '.join(f'{game.seats[i].name}={a}' for i, a in s.agents.items())}"
                  ] if s.agents else []
        self.say(self.paint(f"{game.title}", "bold") + f" ({s.path}): "
                 f"{counted(len(game.seats), 'player')} "
                 f"({', '.join(p.name for p in game.seats)}), "
                 f"seed {s.seed}" + "".join(", " + e for e in extra))
        self.say(self.paint.note("`help` lists the commands, `moves` the legal moves; type "
                                 "a move or its number to play it"))
        self._warn_clashes()

    def _warn_clashes(self) -> None:
        """Notes each action named like a command once a session: a reload tells only of
        a clash the edit made."""
        clashes = set(self.action_names()) & (set(COMMANDS) | set(ALIASES))
        for name in sorted(clashes - self._clashes_told):
            self._clashes_told.add(name)
            self.say(self.paint.note(f"note: the action {name!r} has the name of a command: "
                                     f"a line that is exactly a legal move plays it, "
                                     f"`:{name}` is the command"))

    def action_names(self):
        game = self.session.game
        if self._actions_of[0] is not game:
            self._actions_of = (game, tuple(game.profile()["actions"]))
        return self._actions_of[1]

    # ------------------------------------------------------------------ input
    def handle(self, line: str) -> None:
        """Runs one line: a command, a move (text or number), or `SEAT: move`.  User errors
        print one line; raises Quit to leave."""
        self.guarded(self._dispatch, line)

    def guarded(self, fn, *args) -> None:
        """Runs `fn(*args)`, saying any user error in one line (Quit passes through)."""
        try:
            fn(*args)
        except Quit:
            raise
        except Halted as halted:                # steps made, then one failed: both shown
            self.show_steps(halted.shown)
            self.say(self.paint.error(one_line(halted.error)))
            if rule_line(halted.error):
                self.say(rule_line(halted.error))
        except GdlError as err:
            self.say(self.paint.error(one_line(err)))
            if isinstance(err, RuleError):  # a deadlock's why, to whom may read it
                observer = self.session.observer
                for note in hide_notes(err, observer and observer.name).notes:
                    self.say(self.paint.note(f"  {note}"))
            if rule_line(err):
                self.say(rule_line(err))
        except KeyboardInterrupt:
            self.say(self.paint.error("interrupted"))
        except RecursionError:
            self.say(self.paint.error("error: the expression or rules nest too deeply"))
        except MemoryError:
            self.say(self.paint.error(OUT_OF_MEMORY))
        except Exception as err:  # noqa: BLE001 - a bug in gdl: say so and carry on
            if too_long_number(err):
                self.say(self.paint.error(TOO_LONG_NUMBER))
                return
            if os.environ.get("GDL_DEBUG"):
                traceback.print_exc()
            self.say(self.paint.error(f"internal error: {type(err).__name__}: {err} "
                                      f"(set GDL_DEBUG=1 for the traceback)"))

    def _dispatch(self, line: str) -> None:
        line = line.strip()
        if not line or line.startswith("#"):
            return
        word, rest = (line.split(None, 1) + [""])[:2]
        forced = word.startswith(":")
        name = ALIASES.get(word.lstrip(":").lower(), word.lstrip(":").lower())
        actions = self.action_names()
        if name in COMMANDS and not (word in actions and self._is_move(line)):
            after = rest.split()
            if name == "play" and word in actions and not forced and after and \
                    after[0] not in actions and not self._move_number(rest):
                # `play 10D` (or `play 22`, no move's number) where `play` is an action:
                # the command would read it as a move; it is that action's move, not
                # legal now: say why
                self.cmd_play(line)
                return
            if rest and " " not in COMMANDS[name].usage:
                raise ReplError(f"{name} takes nothing after it, not {rest.strip()!r}")
            COMMANDS[name].run(self, rest.strip())
            return
        if forced:
            raise ReplError(f"there is no command {word!r}",
                            suggestion=did_you_mean(name, list(COMMANDS)))
        self.cmd_play(line)

    # ------------------------------------------------------------------ commands
    @command("help [COMMAND]", "list the commands, or explain one")
    def cmd_help(self, arg: str) -> None:
        if arg:
            name = ALIASES.get(arg.lower().lstrip(":"), arg.lower().lstrip(":"))
            if name not in COMMANDS:
                raise ReplError(f"there is no command {arg!r}",
                                suggestion=did_you_mean(arg, list(COMMANDS)))
            c = COMMANDS[name]
            self.say(self.paint(c.usage, "bold") + "  " + c.summary)
            if c.details:
                self.say("\n".join("  " + line for line in c.details.splitlines()))
            return
        ordered = sorted(COMMANDS.values(), key=lambda c: (
            HELP_ORDER.index(c.name) if c.name in HELP_ORDER else len(HELP_ORDER), c.name))
        width = max(len(c.usage) for c in ordered)
        for c in ordered:
            self.say("  " + self.paint(c.usage.ljust(width), "bold") + "  " + c.summary)
        self.say(self.paint.note(
            "  A line that is not a command is a move: its text as `moves` shows it, its "
            "number\n  in `moves`, or `SEAT: move` for a given seat.  Tab completes "
            "commands and moves;\n  up/down and Ctrl-R search the history; Ctrl-D leaves."))

    @command("view [SEAT|all]", "show the table as a seat sees it (default: `as`)",
             "A seat is its name or its number from 1.  `all` is the all-seeing view, where\n"
             "face-down cards show in lower case (`(7)` for a text with no capital).  `?`\n"
             "is a card the seat cannot see.")
    def cmd_view(self, arg: str) -> None:
        seat = self._seat_or_all(arg) if arg else self.session.observer
        title = f"as {seat.name} sees it" if seat is not None else "all-seeing view"
        self.say(self.paint.note(f"-- {title} (step {self.session.step_count()})"))
        state = self.session.state
        text = state.view(seat, symbols=self.symbols)
        plain = state.view(None) if seat is None and self.paint.on else ""
        self.say(self.paint.view(text, plain))

    @command("moves [SEAT]", "list the legal moves of the seat to move, numbered")
    def cmd_moves(self, arg: str) -> None:
        s = self.session
        state = s.state
        if state.is_terminal():
            self.say(self.paint.status(self.status_line()))
            return
        if state.is_chance():
            self.say("chance acts now (" + self.status_line()[len("chance: "):] + "): "
                     "`chance` lists the outcomes, `chance draw` draws one")
            return
        seat = seat_of(s.game, arg) if arg else s.current_seat()
        if seat not in state.to_move():
            raise MoveError(f"{seat.name} is not to move now (to move: "
                            f"{', '.join(p.name for p in state.to_move())})")
        moves = state.legal_moves(seat)
        kind = " (simultaneous: the others do not see it)" if state.is_simultaneous() else ""
        self.say(f"{seat.name} to move{kind}: {len(moves)} legal move"
                 f"{'s' if len(moves) != 1 else ''}")
        for line in self.paint.numbered([m.text for m in moves]):
            self.say(line)

    @command("play MOVE", "make a move by text or number (plain `MOVE` works too)",
             "`SEAT: MOVE` makes the move for that seat (at a simultaneous decision).\n"
             "A line that is exactly a legal move is played even when its action has the\n"
             "name of a command; `:COMMAND` (a leading colon) always means the command.")
    def cmd_play(self, arg: str) -> None:
        s = self.session
        if not arg:
            raise ReplError("play what? `moves` lists the legal moves")
        seat, text = self._seat_prefix(arg)
        if natural(text) and s.state.is_chance() and seat is None:
            self.show_steps(s.pick_chance(int(text)))
            return
        if seat is None and not s.state.is_terminal() and not s.state.is_chance():
            self._check_word(text)
        self.show_steps(s.play(text, seat))

    def _move_number(self, text: str) -> bool:
        """Returns whether `text` is the number of a legal move of the seat to move."""
        text = text.strip()
        seat = self.session.current_seat()
        return natural(text) and seat is not None and \
            1 <= int(text) <= len(self.session.legal_moves(seat))

    def _is_move(self, line: str) -> bool:
        """Returns whether a line is exactly a legal move of the seat to move (such a line
        is played even when its action has the name of a command)."""
        seat = self.session.current_seat()
        text = " ".join(line.split())
        return seat is not None and any(m.text == text for m in self.session.legal_moves(seat))

    def _check_word(self, text: str) -> None:
        """Raises a did-you-mean error for a first word that is neither a command nor an
        action (a mistyped command, say), instead of an illegal-move message."""
        word = text.split()[0]
        if natural(text) or word in self.action_names():
            return
        begun = [a for a in self.action_names() if a.startswith(word)]   # pass: pass_turn
        raise ReplError(f"{word!r} is neither a command nor an action "
                        f"(`help` lists the commands, `moves` the moves)",
                        suggestion=begun[0] if len(begun) == 1 else
                        did_you_mean(word, list(COMMANDS) + list(self.action_names())))

    def _seat_prefix(self, text: str):
        match = re.match(r"^([^\s:]+):\s*(.+)$", text)
        if match:
            names = [p.name for p in self.session.game.seats]
            if match[1] in names or natural(match[1]):
                return seat_of(self.session.game, match[1]), match[2].strip()
            if match[1] not in self.action_names():     # `p3: ...` in a game of two
                raise ReplError(f"no player {match[1]!r}: the players are "
                                f"{', '.join(names)}", suggestion=did_you_mean(match[1], names))
        return None, text

    @command("why MOVE", "say why a move is illegal: the failing rule and its line")
    def cmd_why(self, arg: str) -> None:
        s = self.session
        state = s.state
        if not arg:
            actions = s.game.prog.actions
            named = next((a for a in self.action_names() if actions[a].params), None)
            example = f"{named} ..." if named else (self.action_names() or ("move",))[0]
            raise ReplError(f"why what? give a move's text, e.g. `why {example}`")
        seat, text = self._seat_prefix(arg)
        seat = seat or s.current_seat()
        if seat is None:
            self.say("nobody is deciding now: " + self.status_line())
            return
        if seat not in state.to_move():
            self.say(f"{seat.name} is not to move now")
            return
        if natural(text):
            moves = s.legal_moves(seat)
            if not 1 <= int(text) <= len(moves):
                raise ReplError(f"there is no move {text}: {seat.name} has "
                                f"{counted(len(moves), 'move')} (`moves` lists them)")
            text = moves[int(text) - 1].text
        reason = state.why_illegal(" ".join(text.split()), seat)
        if reason is None:
            self.say(f"{text!r} is legal for {seat.name}")
        else:
            self.say(f"{text!r} is illegal: {reason}")

    @command("undo [N]", "take back your last move (or N steps)",
             "Goes back N steps, then on past the steps chance and the agents made, to the\n"
             "last point where you had to act.  Undone steps can be redone.")
    def cmd_undo(self, arg: str) -> None:
        n = _count(arg, 1)
        taken = self.session.undo(n)
        self.say(f"took back {taken} step{'s' if taken != 1 else ''}; now at step "
                 f"{self.session.step_count()} ({self.status_line()})")

    @command("redo [N]", "replay the last undone move (or N of them)")
    def cmd_redo(self, arg: str) -> None:
        self.show_steps(self.session.redo(_count(arg, 1)))

    @command("back-to STEP", "go to the game after STEP steps (0: the start)",
             "Steps are numbered as in `log`.  Going forward is possible into undone steps.")
    def cmd_back_to(self, arg: str) -> None:
        if not natural(arg.strip()):
            raise ReplError("back-to takes a step number (as `log` numbers them; 0 is the start)")
        stopped = self.session.back_to(int(arg))
        if stopped:
            self.say(self.paint.error(self.stopped_text(stopped)))
        self.say(f"at step {self.session.step_count()} ({self.status_line()}); "
                 f"`redo` goes forward")

    @command("auto [N]", "let the agents play N steps, or to the end",
             "Seats without an agent (see `agents`) play at random; chance is drawn.\n"
             "After N steps the seats with agents play on to your turn, as after a move.\n"
             "Ctrl-C stops a long run.")
    def cmd_auto(self, arg: str) -> None:
        limit = _count(arg, None)
        shown = self.session.auto(limit)
        self.show_steps(shown)
        if self.session.interrupted:
            self.say(self.paint.error(f"interrupted at step {self.session.step_count()}"))
        elif not self.session.made:
            self.say("nothing to play: " + self.status_line())
        elif limit is None and self.session.made >= _repl_session.MAX_AUTO_STEPS and \
                not self.session.state.is_terminal():
            self.say(f"stopped after {self.session.made:,} steps, and the game is not over "
                     f"(a game that may never end?): `auto` again goes on")

    @command("chance [N|draw|manual|auto]", "list, pick or draw chance outcomes; manual/auto",
             "By default chance is drawn automatically with the seeded random generator.\n"
             "`chance manual` stops at every chance event: `chance` lists its outcomes with\n"
             "their probabilities, `chance N` (or just N) picks one, `chance draw` draws one.\n"
             "A big shuffle has too many outcomes to list: draw it.  `chance auto` goes back.")
    def cmd_chance(self, arg: str) -> None:
        s = self.session
        word = arg.lower()
        if word in ("manual", "on", "auto", "off"):
            s.chance_manual = word in ("manual", "on")
            self.say("chance is " + ("manual: you pick or draw every outcome"
                                     if s.chance_manual else "drawn automatically"))
            if not s.chance_manual and s.state.is_chance():
                self.show_steps(s.advance())
            return
        if word == "draw":
            self.show_steps(s.pick_chance(None))
        elif natural(word):
            self.show_steps(s.pick_chance(int(word)))
        elif word:
            raise ReplError(f"chance takes a number, draw, manual or auto, not {arg!r}")
        elif not s.state.is_chance():
            self.say("no chance event is pending; chance is " +
                     ("manual" if s.chance_manual else "drawn automatically (`chance manual`"
                      " to pick outcomes yourself)"))
        else:
            self._list_outcomes()

    def _list_outcomes(self) -> None:
        outcomes = self.session.chance_outcomes()
        what = self.status_line()
        if outcomes is None:
            self.say(f"{what}: too many outcomes to list; `chance draw` draws one")
            return
        self.say(f"{what}: {len(outcomes)} outcome{'s' if len(outcomes) != 1 else ''}")
        width = len(str(len(outcomes)))
        for i, (outcome, p) in enumerate(outcomes[:MAX_LISTED_OUTCOMES], 1):
            self.say(f"  {self.paint(str(i).rjust(width) + '.', 'dim')} "
                     f"{self.paint(str(p), 'magenta'):>6}  {outcome.text}")
        if len(outcomes) > MAX_LISTED_OUTCOMES:
            self.say(self.paint.note(f"  ... and {len(outcomes) - MAX_LISTED_OUTCOMES} more"))
        self.say(self.paint.note("  `chance N` picks one, `chance draw` draws one"))

    @command("agents [SEAT=AGENT,...]", "show or set the agent playing each seat",
             "A seat with an agent plays by itself whenever it is to move.  `p2=you` gives\n"
             "the seat back to you; `all=random` sets every seat.")
    def cmd_agents(self, arg: str) -> None:
        s = self.session
        if arg:
            spec = re.sub(r"\s*=\s*", "=", arg).replace(" ", ",")
            yours = [item for item in spec.split(",") if item.endswith(("=you", "=human"))]
            others = [item for item in spec.split(",") if item and item not in yours]
            agents = dict(s.agents)
            try:
                agents.update(parse_agent_spec(",".join(others), s.game))
            except OptionError as err:      # a command's word here, not an option
                raise ReplError(err.message, suggestion=err.suggestion) from None
            for item in yours:
                who = item.rpartition("=")[0]
                seats = s.game.seats if who in ("all", "*") else [seat_of(s.game, who)]
                for seat in seats:
                    agents.pop(seat.index, None)
            s.agents = agents
        for seat in s.game.seats:
            self.say(f"  {seat.name}: {s.agents.get(seat.index, 'you')}")
        if arg:
            self.show_steps(s.advance())

    @command("as SEAT|all", "choose the seat whose eyes `view`, `log` and steps use")
    def cmd_as(self, arg: str) -> None:
        if arg:
            self.session.observer = self._seat_or_all(arg)
        seat = self.session.observer
        self.say(f"viewing as {seat.name if seat is not None else 'all'}")

    @command("log [SEAT|all]", "the game so far, one numbered step a line")
    def cmd_log(self, arg: str) -> None:
        s = self.session
        seat = self._seat_or_all(arg) if arg else s.observer
        state = s.state
        steps = s.steps()
        done = len(state.history)
        if seat is None:
            lines = [step_text(step) for step in steps[:done]]
        else:
            names = {p.name for p in s.game.seats}
            lines = [line if line.partition(": ")[0] in names else f"chance: {line}"
                     for line in state.observation_log(seat.name)]
        # commits at an unresolved simultaneous decision stay hidden from everyone
        lines += [f"{step['player']}: (committed, hidden until every seat has chosen)"
                  for step in steps[done:]]
        if not lines:
            self.say("no steps yet")
        for i, line in enumerate(lines, 1):
            who, _, text = line.partition(": ")
            self.say(self.paint.step(i, who, text))

    @command("quit", "leave (also `exit` or Ctrl-D)")
    def cmd_quit(self, arg: str) -> None:
        raise Quit()

    # ------------------------------------------------------------------ helpers
    def stopped_text(self, stopped) -> str:
        """Where and why a replay stopped, the step as the `as` seat may know it, of the
        steps made and waiting in `redo`."""
        s = self.session
        return stopped.describe(s.step_count() + len(s.redo_steps), s.observer)

    def say_notes(self) -> None:
        """Says what a change of rules did to the `as` seat and the agents."""
        for note in self.session.take_notes():
            self.say(self.paint.note("note: " + note))

    def _seat_or_all(self, text: str):
        return None if text.strip().lower() in ("all", "*") else seat_of(self.session.game,
                                                                            text.strip())

    # ------------------------------------------------------------------ the loop
    def loop(self, read_line: Callable[[], str]) -> int:
        """Reads and runs lines until quit or end of input; returns the exit code."""
        while True:
            try:
                line = read_line()
            except EOFError:
                return 0
            except KeyboardInterrupt:
                continue
            try:
                self.handle(line)
            except Quit:
                return 0


def _count(arg: str, default):
    arg = arg.strip()
    if not arg:
        return default
    if not natural(arg) or int(arg) < 1:
        raise ReplError(f"expected a positive number of steps, not {arg!r}")
    return int(arg)


def run_repl(args) -> int:
    """The `gdl play` command: returns the exit code."""
    from interpreter.options import parse_set_args
    overrides = parse_set_args(args.set)
    trace = getattr(args, "trace", None)
    opening = overrides
    if trace:                           # the seats of `--as` and `--agents` are the
        from interpreter import read_trace            # trace's game's (its options)
        from interpreter.game import load_ruleset
        opening, _ = trace_overrides(load_ruleset(args.file), read_trace(trace), overrides)
    session = Session(args.file, opening, args.seed, args.agents, args.as_player)
    colour = terminal_allows_colour()
    repl = Repl(session, colour, terminal_allows_symbols())
    if trace:
        done = session.load_trace(trace, overrides, args.seed)
        repl.banner()                       # with the trace's seed and options
        repl.guarded(repl.loaded, args.trace, done)
    else:
        repl.banner()
        repl.show_steps(session.opening)
        if session.opening_error is not None:
            repl.say(repl.paint.error(one_line(session.opening_error)))
    if sys.stdin.isatty():
        # Ctrl-C stops a long `auto`: a process started with SIGINT ignored (a parent
        # inside system(), some launchers) would otherwise run it to the end
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if sys.stdin.isatty() and sys.stdout.isatty():
        reader = prompt_toolkit_reader(repl)
    elif sys.stdin.isatty():
        reader = plain_reader(repl)
    else:
        reader = piped_reader(repl)
    return repl.loop(reader)
