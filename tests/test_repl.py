"""`gdl play`, the REPL: the real program driven through a pseudo-terminal (pexpect) and
through piped input, plus the session behind it (undo to your last decision, replays that
stop at the first step the new rules forbid)."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import DDS, GERRY, ROOT, RULESETS
from gdl.cli import main
from gdl.errors import GdlError

pexpect = pytest.importorskip("pexpect")

GDL = Path(sys.executable).with_name("gdl")
TIMEOUT = 30


def line_of(path, text: str) -> int:
    """Returns the number of the first line of a file that contains `text`."""
    lines = Path(path).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


#: The two requires of the grid game's `select` that the tests break or name.
NOT_OPPONENTS = "require c != selected[opponent(me)]"
NOT_LONE = "require count(c) > 1 or"


def spawn(tmp_path, *args, term="dumb", colour=False, preexec_fn=None):
    """Starts `gdl play ARGS` on a pseudo-terminal."""
    env = dict(os.environ, TERM=term, GDL_HISTORY=str(tmp_path / "history"),
               PROMPT_TOOLKIT_NO_CPR="1")
    env.pop("NO_COLOR", None)
    if not colour:
        env["NO_COLOR"] = "1"
    return pexpect.spawn(str(GDL), ["play", *map(str, args)], env=env, cwd=str(ROOT),
                         timeout=TIMEOUT, encoding="utf-8", dimensions=(50, 120),
                         preexec_fn=preexec_fn)


def say(child, line, *expected):
    """Sends a line and waits for each expected text in turn."""
    child.sendline(line)
    for text in expected:
        child.expect_exact(text)


def finish(child):
    say(child, "quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in (child.before or "")


def piped(*args, script: str, cwd=ROOT):
    """Runs `gdl play ARGS` with the script as its (non-tty) stdin; returns stdout."""
    env = dict(os.environ, NO_COLOR="1")
    done = subprocess.run([str(GDL), "play", *map(str, args)], input=script, text=True,
                          capture_output=True, env=env, cwd=str(cwd), timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "internal error" not in done.stdout
    return done.stdout


def replies(transcript: str, prompt: str):
    """Returns [(input line, [output lines])] from a piped transcript."""
    out = []
    for line in transcript.splitlines():
        match = re.match(rf"^{re.escape(prompt)} \d+ [^>]*> (.*)$", line)
        if match:
            out.append((match[1], []))
        elif out:
            out[-1][1].append(line)
    return out


# ---------------------------------------------------------------------- on a terminal
def test_a_session_of_the_grid_game(tmp_path):
    child = spawn(tmp_path, GERRY, "--seed", "1")
    child.expect_exact("gerry 2 p2> ")
    say(child, "view p1", "as p1 sees it", "role[p1] (1):", "?", "gerry 2 p2> ")
    say(child, "view all", "all-seeing view", "cell[5,*]:", "gerry 2 p2> ")
    say(child, "moves", "25 legal moves", "1. select cell[1,1]", "gerry 2 p2> ")
    say(child, "3", "3. p2: select cell[1,3]", "gerry 3 p2> ")
    say(child, "look", "4. p2: look", "gerry 4 p2> ")
    say(child, "1", "5. p2: move_face_down", "gerry 5 p1> ")
    line = line_of(GERRY, NOT_OPPONENTS)
    say(child, "select cell[1,3]", f"is not a legal move: rule select, line {line}",
        "gerry 5 p1> ")
    say(child, "why select cell[1,3]", f"rule select, line {line}: {NOT_OPPONENTS}",
        "gerry 5 p1> ")
    say(child, "undo", "took back 1 step; now at step 4", "gerry 4 p2> ")
    say(child, "auto", "game over", "over> ")
    finish(child)


def test_a_session_with_simultaneous_moves(tmp_path):
    child = spawn(tmp_path, DDS, "--seed", "1", "--set", "max_rounds=2")
    child.expect_exact("double_dealing_shuffle 0 p1 (simultaneous)> ")
    say(child, "moves", "36 legal moves", "1. shuffle_packet 1 1", "(simultaneous)> ")
    say(child, "shuffle_packet 1 0", "is not a legal move", "(simultaneous)> ")
    say(child, "why shuffle_packet 1 0", "rule shuffle_packet, line",
        "the packet must move", "(simultaneous)> ")
    say(child, "2", "committed, hidden until every seat has chosen (waiting for p2)",
        "double_dealing_shuffle 1 p2 (simultaneous)> ")
    say(child, "view p2", "as p2 sees it", "(committed: p1)", "p2 (simultaneous)> ")
    say(child, "log", "1. p1: (committed, hidden until every seat has chosen)",
        "p2 (simultaneous)> ")
    say(child, "shuffle_packet 2 1", "1. p1: shuffle_packet 1 2", "2. p2: shuffle_packet 2 1",
        "double_dealing_shuffle 2 p1 (simultaneous)> ")
    say(child, "log p2", "1. p1: shuffle_packet ? ?", "2. p2: shuffle_packet 2 1", "> ")
    say(child, "undo", "took back 1 step", "double_dealing_shuffle 1 p2 (simultaneous)> ")
    say(child, "auto", "game over", "over> ")
    finish(child)


def test_reload_applies_an_edited_option_default(tmp_path):
    rules = tmp_path / "rules.gdl"
    shutil.copy(GERRY, rules)
    child = spawn(tmp_path, rules, "--seed", "1")
    child.expect_exact("rules 2 p2> ")
    say(child, "1", "3. p2: select cell[1,1]", "rules 3 p2> ")
    text = rules.read_text()
    assert "option turns_each: 1..10 = 10" in text
    rules.write_text(text.replace("option turns_each: 1..10 = 10",
                                  "option turns_each: 1..10 = 2"))
    say(child, "reload", "replayed 3 of 3 steps", "rules 3 p2> ")
    say(child, "options", "turns_each = 2", "rules 3 p2> ")
    say(child, "auto", "game over", "over> ")
    say(child, f"save {tmp_path / 'game.json'}", "saved", "over> ")
    finish(child)
    steps = json.loads((tmp_path / "game.json").read_text())["steps"]
    selects = [s for s in steps if s.get("move", "").startswith("select")]
    assert len(selects) == 4                    # two turns each, then the end


def test_reload_stops_before_a_step_the_new_rules_forbid(tmp_path):
    rules = tmp_path / "rules.gdl"
    shutil.copy(GERRY, rules)
    original = rules.read_text()
    child = spawn(tmp_path, rules, "--seed", "1")
    child.expect_exact("rules 2 p2> ")
    say(child, "select cell[1,1]", "3. p2: select cell[1,1]", "rules 3 p2> ")
    rules.write_text(original.replace(NOT_LONE, "require count(c) > 5 or"))
    say(child, "reload", "replayed 2 of 3 steps",
        f"stopped before step 3 of 3 (p2: select cell[1,1]): rule select, line "
        f"{line_of(GERRY, NOT_LONE)}: require count(c) > 5", "rules 2 p2> ")
    say(child, "moves", "rule error: deadlock: p2 must move", "rules 2 p2> ")
    rules.write_text(original + "\naction broken(:\n")
    say(child, "reload", "syntax error", "does not load; keeping the old rules", "rules 2 p2> ")
    rules.write_text(original)
    say(child, "reload", "replayed 2 of 2 steps", "rules 2 p2> ")
    say(child, "redo", "3. p2: select cell[1,1]", "rules 3 p2> ")
    finish(child)


def test_tab_completion_history_search_and_colour(tmp_path):
    P2 = r"p2(?:\x1b\[[0-9;]*m)*>"                   # the prompt, coloured
    child = spawn(tmp_path, GERRY, "--seed", "1", term="xterm", colour=True)
    child.expect(P2)
    time.sleep(0.3)
    child.send("selec\t")                        # completes the common part of the moves
    time.sleep(0.8)
    child.send("2,3]\r")
    child.expect(r"p2:(?:\x1b\[[0-9;]*m)* select cell\[2,3\]")
    child.expect(P2)
    time.sleep(0.3)
    child.send("vi\t")                           # completes the command
    time.sleep(0.8)
    child.send(" all\r")
    child.expect_exact("all-seeing view")
    child.expect_exact("\x1b[36mcell")          # zone names coloured on a colour terminal
    child.expect(P2)
    time.sleep(0.3)
    child.send("\x12view")                       # Ctrl-R finds `view all` in the history
    time.sleep(0.8)
    child.send("\r")
    time.sleep(0.3)
    child.send("\r")
    child.expect_exact("all-seeing view")
    child.expect(P2)
    child.send("quit\r")
    child.expect(pexpect.EOF)


def test_tab_completes_a_move_whose_action_has_a_commands_name(tmp_path):
    # `play 7<Tab>` offered nothing in a game whose action is `play`
    from types import SimpleNamespace
    from prompt_toolkit.document import Document
    from gdl._repl_complete import ReplCompleter
    from gdl._repl_session import Session
    rules = tmp_path / "p.gdl"
    rules.write_text('game "p"\nplayers 2\ncard n: 1..3\n'
                     'cards into deck: card(n: k) for k in 1..3\nzone deck: stack\n'
                     'action play(c: deck):\n    pass\nflow:\n    choose p1: play\n'
                     '    draw\n')
    completer = ReplCompleter(SimpleNamespace(session=Session(str(rules), {}, seed=1)))
    got = [c.text for c in completer.get_completions(Document("play 2"), None)]
    assert got == ["play 2"]
    got = [(c.text, c.start_position) for c in
           completer.get_completions(Document("play "), None)]   # each move once
    assert got == [(f"play {k}", -5) for k in (3, 2, 1)]
    got = [c.text for c in completer.get_completions(Document("play play 3"), None)]
    assert got == ["play 3"]


# ---------------------------------------------------------------------- piped input
def test_piped_input_is_a_transcript_and_bad_input_is_one_line():
    bad = ["foo bar", "vew", "undo x", "back-to 999", "chance 99", "eval 1 +", "eval (",
           "eval nosuch", "eval 1 + true", "eval count(5)", "eval cards(top(stock, 2))",
           "eval me", "view p9", "view 7", "set siz=3", "set size=99",
           "load /nonexistent/trace.json", "save /nonexistent/dir/x.json", "why", "play",
           "moves p1", "agents p1=smart", "help nosuch", "42", ":nosuch", "redo",
           "select cell[9,9]", "p3: look", "restart x", "symbols maybe"]
    script = "\n".join(["# a comment", ""] + bad + ["quit"]) + "\n"
    out = piped(GERRY, "--seed", "1", script=script)
    got = dict(replies(out, "gerry"))
    for line in bad:
        assert len(got[line]) == 1, (line, got[line])
        assert "error" in got[line][0], (line, got[line])
    assert "did you mean 'view'" in got["vew"][0]
    # an expression is checked as the ruleset's own are, not run into a Python error
    assert "check error" in got["eval 1 + true"][0] and "int + bool" in got["eval 1 + true"][0]
    assert "argument 1 of count must be a zone or a list" in got["eval count(5)"][0]
    assert "must be a zone, not list[card]" in got["eval cards(top(stock, 2))"][0]
    assert "me is not defined" in got["eval me"][0]
    assert "did you mean 'size'" in got["set siz=3"][0]


def answers(got, command):
    """Returns the output lines of every run of `command` in a transcript, in order."""
    return [lines for cmd, lines in got if cmd == command]


def test_piped_input_does_without_prompt_toolkit():
    """prompt_toolkit is a tenth of a second to import; a script that pipes its commands
    in never uses it."""
    code = ("import io, sys; sys.stdin = io.StringIO('moves\\nquit\\n'); import gdl.cli; "
            f"gdl.cli.main(['play', {str(GERRY)!r}]); "
            "print(sorted(m for m in sys.modules if m.startswith('prompt_toolkit')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "25 legal moves" in out.stdout, out.stdout + out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_piped_commands(tmp_path):
    trace = tmp_path / "t.json"
    script = "\n".join([
        "help", "help reload", "options", "eval count(cell[1, 1])", "eval cell[1,1]",
        "1", "log", "as p1", "log", "as all", "back-to 2", "redo", "undo 1",
        "agents p1=first", "select cell[2,2]", "1", "agents", f"save {trace}",
        "set line_rule=plurality", "options", "restart 5", "exit"]) + "\n"
    got = replies(piped(GERRY, "--seed", "1", script=script), "gerry")
    text = dict(got)
    assert any("reload" in line and "re-read" in line for line in text["help"])
    assert "replay stops just before it" in " ".join(text["help reload"])
    assert text["eval count(cell[1, 1])"] == ["2"]
    assert text["eval cell[1,1]"][0].startswith("cell[1,1] (2): ")
    first, second = answers(got, "1")
    assert first == ["   3. p2: select cell[1,1]"]
    # p2's second decision, then the agent plays both of p1's decisions by itself
    assert [line.split(":")[0].split()[-1] for line in second] == ["p2", "p1", "p1"]
    all_seeing, as_p1 = answers(got, "log")
    assert "chance: shuffle stock: " in all_seeing[0]      # all-seeing: the whole order
    assert as_p1[0].endswith("chance: shuffle stock")      # as p1: what p1 saw
    assert "at step 2" in text["back-to 2"][0]
    assert text["redo"] == ["   3. p2: select cell[1,1]"]
    assert "took back 1 step" in text["undo 1"][0]
    assert "  p1: first" in text["agents"] and "  p2: you" in text["agents"]
    assert "restarted with line_rule=plurality" in text["set line_rule=plurality"][0]
    before, after = answers(got, "options")
    assert any(line.startswith("  line_rule = majority   {") for line in before)
    assert any("line_rule = plurality (set)" in line for line in after)
    assert "new game, seed 5" in text["restart 5"][0]
    saved = json.loads(trace.read_text())
    assert saved["format"] == "gdl-trace-2" and saved["seed"] == 1
    assert len(saved["steps"]) == 6
    out = piped(GERRY, "--trace", trace, script="log\n")
    assert "replayed 6 of 6 steps" in out and "6. p1: move_face_up" in out


def test_piped_manual_chance():
    script = "chance manual\nrestart\nchance\n1\nchance draw\nchance\n2\nmoves\n"
    got = replies(piped(GERRY, "--seed", "1", script=script), "gerry")
    big, small = answers(got, "chance")
    assert "too many outcomes to list; `chance draw` draws one" in big[0]
    assert "too many" in answers(got, "1")[0][0]
    assert "1. chance: shuffle stock: " in answers(got, "chance draw")[0][0]
    assert "2 outcomes" in small[0] and "1/2" in small[1] and "1/2" in small[2]
    assert "2. chance: shuffle kings" in answers(got, "2")[0][0]
    assert "25 legal moves" in answers(got, "moves")[0][0]


def test_agents_play_their_seats_and_undo_goes_back_to_your_move():
    script = "select cell[1,1]\n1\nundo\nlog\n"
    out = piped(DDS, "--seed", "2", "--agents", "p2=random", "--set", "max_rounds=1",
                script=script)
    assert "p2 (random)" not in out                # p2 never waits at the prompt
    out = piped(GERRY, "--seed", "1", "--agents", "p1=first", script=script)
    got = dict(replies(out, "gerry"))
    assert "took back 3 steps" in got["undo"][0]    # p1's two agent moves and yours
    assert got["log"][-1].strip().startswith("3. p2: select cell[1,1]")


def test_a_seats_log_numbers_simultaneous_moves_as_the_trace_does():
    # p2's agent commits before you: step 1 is p2's in every log, as `back-to` counts
    out = piped(DDS, "--seed", "2", "--agents", "p2=random", "--as", "p1", "--set",
                "max_rounds=1", script="1\nlog\nlog all\n")
    got = dict(replies(out, "double_dealing_shuffle"))
    assert [line.split()[:2] for line in got["1"]][:2] == [["1.", "p2:"], ["2.", "p1:"]]
    assert [line.split()[:2] for line in got["log"]] == \
        [line.split()[:2] for line in got["log all"]]
    assert got["log"][0].endswith("p2: shuffle_packet ? ?")


def test_session_undo_redo_and_back_to():
    from gdl._repl_session import Session
    s = Session(str(GERRY), {}, seed=1)
    assert s.step_count() == 2 and not s.state.is_chance()
    s.play("1")
    s.play("look")
    assert s.step_count() == 4
    assert s.undo() == 1 and s.step_count() == 3
    s.redo()
    assert s.step_count() == 4
    s.back_to(2)
    assert s.step_count() == 2 and len(s.redo_steps) == 2
    s.back_to(4)
    assert s.step_count() == 4 and s.redo_steps == []
    with pytest.raises(Exception, match="nothing to undo"):
        s.back_to(2)
        s.undo()


def test_session_replay_names_the_forbidding_rule(tmp_path):
    from gdl._repl_session import Session
    rules = tmp_path / "r.gdl"
    rules.write_text(GERRY.read_text())
    s = Session(str(rules), {}, seed=1)
    s.play("select cell[2,2]")
    rules.write_text(GERRY.read_text().replace(NOT_OPPONENTS, "require c != cell[2,2]"))
    replayed, total, stopped, dropped = s.reload()
    assert (replayed, total) == (2, 3)
    assert stopped.number == 3 and stopped.step["move"] == "select cell[2,2]"
    line = line_of(GERRY, NOT_OPPONENTS)
    assert f"rule select, line {line}: require c != cell[2,2]" in stopped.reason


def test_small_wording_a_seat_options_arguments_and_a_loaded_traces_banner(tmp_path):
    script = "view p9\noptions\nwhy select\nwhy select cell[9,9]\n"
    got = dict(replies(piped(GERRY, "--seed", "1", script=script), "gerry"))
    assert got["view p9"] == ["error: no player 'p9'; the players are p1, p2"]  # not a move
    assert got["why select"] == ["'select' is illegal: select takes 1 argument: c"]
    assert got["why select cell[9,9]"][0].endswith(", ... (15 more))")
    kuhn = RULESETS / "classics" / "kuhn_poker.gdl"
    assert dict(replies(piped(kuhn, "--seed", "1", script="options\n"), "kuhn_poker"))[
        "options"] == ["Kuhn poker has no options"]
    from gdl._repl_session import Session
    s = Session(str(GERRY), {"size": "3"}, seed=5)
    s.play("1")
    s.save(str(tmp_path / "t.json"))
    out = piped(GERRY, "--trace", tmp_path / "t.json", script="")
    assert out.splitlines()[0].endswith("seed 5, options size=3")   # the trace's, not a new one


def test_redo_keeps_only_steps_that_go_on_from_the_game(tmp_path):
    from gdl._repl_session import ReplError, Session
    s = Session(str(GERRY), {}, seed=7)
    for move in ("select cell[3,3]", "look", "1", "select cell[1,1]"):
        s.play(move)
    s.undo()
    assert [step["move"] for step in s.redo_steps] == ["select cell[1,1]"]
    s.agents = {0: "first"}                 # p1's agent moves afresh: p1's undone move
    assert s.advance() and s.redo_steps == []   # no longer goes on from the game
    with pytest.raises(ReplError, match="nothing to redo"):
        s.redo()
    # an automatic step that is the undone one keeps the rest waiting
    s.back_to(4)
    waiting = list(s.redo_steps)
    s._apply(waiting[0])
    assert s.redo_steps == waiting[1:]


def test_an_auto_that_fails_keeps_the_undone_steps(tmp_path):
    from gdl._repl_session import Session
    rules = tmp_path / "g.gdl"
    rules.write_text(GERRY.read_text())
    s = Session(str(rules), {}, seed=7)
    s.play("select cell[1,1]")
    rules.write_text(GERRY.read_text().replace("players p1, p2", "players p1, p2, p3"))
    assert s.reload().stopped.number == 2      # three hands: the kings run out
    with pytest.raises(GdlError, match="source zone is empty"):
        s.auto(3)
    rules.write_text(GERRY.read_text())
    s.reload()
    s.redo(2)
    assert s.step_count() == 3 and s.steps()[2]["move"] == "select cell[1,1]"


def test_reload_drops_an_option_setting_the_file_no_longer_takes(tmp_path):
    from gdl._repl_session import Session
    rules = tmp_path / "g.gdl"
    rules.write_text(GERRY.read_text())
    s = Session(str(rules), {"turns_each": "7"}, seed=7)
    s.set_options({"size": "4"})
    rules.write_text(GERRY.read_text().replace("turns_each", "rounds_each")
                     .replace("option size: 2..5 = 5", "option size: 2..3 = 3"))
    done = s.reload()
    assert [(name, value) for name, value, _ in done.dropped] == \
        [("turns_each", "7"), ("size", "4")]
    assert "no such option" in done.dropped[0][2] and "between 2 and 3" in done.dropped[1][2]
    assert s.overrides == {} and s.game.options["size"] == 3
    s.set_options({"rounds_each": "3"})     # the renamed option, and back to its default
    assert s.game.options["rounds_each"] == 3
    s.set_options({"rounds_each": ""})
    assert s.overrides == {} and s.game.options["rounds_each"] == 10


def test_set_keeps_the_rules_as_last_read(tmp_path):
    import io
    from gdl._repl_session import Session
    from gdl.repl import Repl
    rules = tmp_path / "g.gdl"
    rules.write_text(GERRY.read_text())
    s = Session(str(rules), {}, seed=7)
    rules.write_text(GERRY.read_text().replace("turns_each", "rounds_each") +
                     "\naction broken(: pass\n")
    s.set_options({"turns_each": "2"})      # the file no longer parses: set never reads it
    assert s.game.options["turns_each"] == 2 and s.file_changed()
    with pytest.raises(GdlError, match=f"and {rules} has changed since"):
        s.set_options({"rounds_each": "2"})
    out = io.StringIO()
    Repl(s, colour=False, symbols=False, out=out).handle("set size=4")
    assert "restarted with size=4 (seed 7)\nnote: " in out.getvalue()
    assert "has changed since it was read" in out.getvalue()


def test_a_variant_notices_an_edit_of_its_base(tmp_path):
    # only the variant file's own time was kept: its base edited went unnoticed
    import os
    from gdl._repl_session import Session
    (tmp_path / "base.gdl").write_text(GERRY.read_text())
    (tmp_path / "v.gdl").write_text('variant of "base.gdl"\ngame "v"\n')
    s = Session(str(tmp_path / "v.gdl"), {}, seed=7)
    assert not s.file_changed()
    os.utime(tmp_path / "base.gdl", ns=(1, 1))
    assert s.file_changed() == str(tmp_path / "base.gdl")    # the base, not v.gdl, named


def test_a_trace_of_another_game_leaves_the_session_as_it_was(tmp_path):
    from gdl._repl_session import Session
    other = Session(str(DDS), {}, seed=4)
    other.play("1")
    other.save(str(tmp_path / "dds.json"))
    s = Session(str(GERRY), {}, seed=7)
    s.play("select cell[1,1]")
    with pytest.raises(GdlError, match="is a trace of .*double_dealing_shuffle.gdl.*: "
                                       "nothing was loaded"):
        s.load_trace(str(tmp_path / "dds.json"))
    assert s.step_count() == 3 and s.seed == 7


def test_a_trace_whose_chance_text_and_data_disagree_is_not_loaded(tmp_path):
    # the REPL replayed the data and showed the stale text; `replay` refuses such a trace
    import json
    from gdl._repl_session import Session
    s = Session(str(GERRY), {}, seed=7)
    s.save(str(tmp_path / "g.json"))
    trace = json.loads((tmp_path / "g.json").read_text())
    data = trace["steps"][0]["data"]
    data[0], data[1] = data[1], data[0]
    (tmp_path / "g.json").write_text(json.dumps(trace))
    with pytest.raises(GdlError, match="step 1 of the trace says .* but its data gives .*; "
                                       "nothing was loaded"):
        Session(str(GERRY), {}, seed=1).load_trace(str(tmp_path / "g.json"))


def test_undo_past_the_first_decision_goes_back_to_it():
    # "nothing to undo before the first decision (chance and agents made every step so
    # far)", with moves made by hand
    from gdl._repl_session import Session
    s = Session(str(GERRY), {}, seed=7)
    start = s.step_count()                  # the deal: chance's steps before any decision
    s.play("1")
    s.play("1")
    assert s.undo(s.step_count()) == 2 and s.step_count() == start


def test_an_unknown_agent_in_the_agents_command_is_no_option_error():
    got = dict(replies(piped(RULESETS / "classics" / "kuhn_poker.gdl", "--seed", "1",
                             script="agents p1=smart\n"), "kuhn_poker"))
    assert got["agents p1=smart"] == ["error: unknown agent 'smart'; the agents are random, "
                                      "first, last"]


def test_a_reload_stopped_by_a_rule_error_says_where(tmp_path):
    # "stopped before step 2 ...: top() of an empty zone", no rule, no line
    from gdl._repl_session import Session
    rules = tmp_path / "g.gdl"
    text = ('game "g"\nplayers 2\nzone deck: stack\nvar n: int = 0\naction go():\n'
            '    n += 1\nflow:\n    repeat 3:\n        choose p1: go\n    draw\n')
    rules.write_text(text)
    s = Session(str(rules), {}, seed=1)
    s.play("go")
    s.play("go")
    rules.write_text(text.replace("    n += 1\n", "    n += 1\n    if n == 2:\n"
                                                 "        move top(deck) to deck\n"))
    stopped = s.reload().stopped
    assert stopped.number == 2 and stopped.reason == \
        f"{rules}:8:14: top() of an empty zone, deck (in go)"


DOUBLE_DOWN = RULESETS / "double_down.gdl"
#: Adds until the total passes 9, which the rules refuse.
TOO_BIG = """game "Inv"
players p1, p2
var total: int = 0
action add(n: 1..3):
    total += n
    if total > 9:
        fail "too big"
flow:
    repeat 10:
        choose p1: add
        choose p2: add
    end game
returns(p) = 0
"""


def test_options_that_fail_the_setup_keep_the_old_game():
    from gdl._repl_session import Session
    s = Session(str(DOUBLE_DOWN), {}, seed=2)
    s.play("1")
    with pytest.raises(GdlError, match="the deck has 1 cards"):
        s.set_options({"deck": "1:1"})      # a text option the setup cannot deal from
    assert s.overrides == {} and s.step_count() == 2
    assert s.undo() == 1                    # the session goes on, not stuck on the error


def test_the_as_seat_and_agents_follow_the_seats_a_change_of_rules_leaves():
    from gdl._repl_session import Session
    s = Session(str(DOUBLE_DOWN), {}, seed=2, agents="p4=random", as_player="p4")
    s.set_options({"players": "3"})
    assert s.observer is None and s.agents == {}
    assert s.take_notes() == ["the rules have no seat p4 now: viewing as all",
                              "the rules have 3 seats now: the agent of seat 4 is let go"]
    s.play("1")                             # the game goes on, viewed by all
    s.set_options({"players": "4"})
    assert s.agents == {} and s.take_notes() == []


def test_a_step_not_made_is_told_as_the_as_seat_may_know_it():
    from gdl._repl_session import Stopped, step_text
    from interpreter import load
    p1 = load(str(GERRY)).seats[0]
    shuffle = {"chance": "shuffle stock: " + "10C " * 40, "kind": "shuffle", "data": []}
    assert step_text(shuffle, p1) == "chance: shuffle stock"
    assert step_text({"chance": "random Q", "kind": "random", "data": 1}, p1) == \
        "chance: random ?"
    assert step_text({"player": "p2", "move": "shuffle_packet 3 1"}, p1) == \
        "p2: shuffle_packet ..."
    assert step_text({"player": "p1", "move": "select cell[1,1]"}, p1) == \
        "p1: select cell[1,1]"
    told = Stopped(4, shuffle, "no such card").describe(9)     # all-seeing, cut short
    assert told.startswith("stopped before step 4 of 9 (chance: shuffle stock: 10C 10C")
    assert "...): no such card" in told and len(told) < 120
    # the reason a hidden step failed names what p1 may not know ('QH', p2's 9S)
    lay = {"player": "p2", "move": "lay QH"}
    why = "'QH' is not a possible c here (legal: 9S)"
    assert Stopped(4, lay, why).describe(6, p1) == (
        "stopped before step 4 of 6 (p2: lay ...): it cannot be made now (why is hidden "
        "from p1; after `as all`, `redo` says why)")
    assert Stopped(4, lay, why).describe(6).endswith(f"(p2: lay QH): {why}")
    assert Stopped(4, {"player": "p1", "move": "lay QH"}, why).describe(6, p1).endswith(why)


def test_steps_made_before_a_rule_error_are_shown_with_it(tmp_path):
    (tmp_path / "inv.gdl").write_text(TOO_BIG, encoding="utf-8")
    got = dict(replies(piped(tmp_path / "inv.gdl", "--seed", "1", script="auto\n",
                             cwd=tmp_path), "inv"))
    assert got["auto"][-3].endswith("inv.gdl:7:9: rule error: too big")
    assert got["auto"][-1].strip() == "^"           # under the rules' line, as gdl run
    assert [line.split(".")[0].strip() for line in got["auto"][:-3]] == \
        ["1", "2", "3", "4", "5"]


def test_auto_counts_a_commit_as_a_step():
    got = dict(replies(piped(DDS, "--seed", "4", "--set", "max_rounds=1",
                             script="auto 1\nauto 3\nlog all\n"), "double_dealing_shuffle"))
    assert got["auto 1"] == ["1 move committed, hidden until every seat has chosen "
                             "(waiting for p2)"]
    assert len(got["log all"]) == 4           # p2's commit, then p1's and p2's: 1 + 3


def test_auto_that_ends_at_a_chance_event_draws_it_unless_chance_is_manual(tmp_path):
    # the prompt was left at the shuffle, chance drawn automatically by default
    (tmp_path / "ac.gdl").write_text('game "ac"\nplayers 1\ncard n: 1..3\n'
                                     'cards into deck: card(n: i) for i in 1..3\n'
                                     'zone deck: stack\naction go():\n    pass\nflow:\n'
                                     '    repeat 3:\n        choose p1: go\n'
                                     '        shuffle deck\n    end game\n')
    out = piped(tmp_path / "ac.gdl", "--seed", "1", script="auto 1\nchance manual\n"
                "auto 1\n", cwd=tmp_path)
    assert "ac.gdl): 1 player (p1), seed 1" in out      # "1 players"
    got = replies(out, "ac")
    assert [line.split(":")[0] for line in got[0][1]] == ["   1. p1", "   2. chance"]
    assert [line.split(":")[0] for line in got[2][1]] == ["   3. p1"]


def test_auto_that_ends_at_an_agents_seat_plays_on_to_the_users_turn():
    # the prompt was left at p2 (random): `moves` listed p2's hand and a number played it
    got = dict(replies(piped(DOUBLE_DOWN, "--seed", "2", "--agents", "p1=random,p2=random",
                             script="auto 3\n"), "double_down"))
    steps = [line.split(":")[0].split(". ")[1] for line in got["auto 3"]]
    assert steps[:3] == ["p3", "p4", "p3"] and steps[3:4] == ["p2"]
    assert steps[-1] in ("p1", "p2") and all(s in ("p1", "p2") for s in steps[3:])
    prompts = re.findall(r"double_down \d+ (\S+)", piped(
        DOUBLE_DOWN, "--seed", "2", "--agents", "p1=random,p2=random", script="auto 3\n"))
    assert prompts[-1] in ("p3>", "p4>")


def test_set_takes_a_value_with_spaces_and_plays_on_after_reload(tmp_path):
    import io
    from gdl._repl_session import Session
    from gdl.repl import Repl
    got = dict(replies(piped(DOUBLE_DOWN, "--seed", "4", script="set ages=8 35 41 70 "
                             "first_player=by_age\n"), "double_down"))
    assert got["set ages=8 35 41 70 first_player=by_age"][0].startswith(
        "restarted with ages=8 35 41 70, first_player=by_age")
    rules = tmp_path / "g.gdl"
    rules.write_text(GERRY.read_text().replace("1..10 = 10", "1..10 = 1"), encoding="utf-8")
    s = Session(str(rules), {}, seed=7, agents="p2=random")
    s.play("1")
    s.play("1")
    assert s.state.is_terminal()
    rules.write_text(GERRY.read_text().replace("1..10 = 10", "1..10 = 2"), encoding="utf-8")
    out = io.StringIO()
    Repl(s, colour=False, symbols=False, out=out).handle("reload")
    assert "   7. p2: " in out.getvalue() and s.current_seat().name == "p1"


def test_more_small_wording():
    script = ("p1: 4\nwhy 99\nreload x\nundo 9\neval 1 +\nhistory\tall\n"
              "select cell[1,1]\n")
    got = dict(replies(piped(GERRY, "--seed", "1", script=script), "gerry"))
    assert got["p1: 4"] == ["move error: p1 is not to move now (to move: p2)"]
    assert got["why 99"] == ["error: there is no move 99: p2 has 25 moves (`moves` lists "
                             "them)"]
    assert got["reload x"] == ["error: reload takes nothing after it, not 'x'"]
    assert got["undo 9"] == ["error: nothing to undo before the first decision (chance "
                             "and agents made every step so far); `back-to 0` goes to the "
                             "very start"]     # (it said "cannot undo 9 steps: 2 were made")
    assert "the expression ends in the middle" in got["eval 1 +"][0]
    assert got["history\tall"][0].startswith("   1. chance: shuffle stock")


def test_ctrl_c_during_auto_stops_between_two_steps(tmp_path, monkeypatch):
    # Ctrl-C arrives inside step 3 and inside a finalizer-like spot that would swallow
    # a KeyboardInterrupt: the run still stops, and step 3 is kept whole.
    from gdl._repl_session import Session
    rules = tmp_path / "clash.gdl"
    rules.write_text(CLASH)
    s = Session(str(rules), {}, seed=1)
    made = s._auto_step

    def step(everyone):
        out = made(everyone)
        if s.step_count() == 3:
            try:
                os.kill(os.getpid(), signal.SIGINT)
            except KeyboardInterrupt:       # what a finalizer does with it
                pass
        return out

    monkeypatch.setattr(s, "_auto_step", step)
    # Python's own handler, as a run of the tests from a terminal has it (a run started as
    # a shell's background job has SIGINT ignored: the REPL then leaves it so, tested below)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        shown = s.auto(50)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)
    assert s.interrupted and [x.number for x in shown] == [1, 2, 3]
    assert s.step_count() == 3


def test_plain_output_has_no_escapes():
    from gdl._repl_render import Painter, one_line
    from gdl.errors import MoveError
    p = Painter(False)
    assert p.view("to move: p1\nz (1): A", "") == "to move: p1\nz (1): A"
    assert one_line(MoveError("bad\nthing", suggestion="x")) == \
        "move error: bad thing; did you mean 'x'?"


CLASH = '''game "Clash"
players 2
var n: int = 0
action log(k: 1..2) "an action with the name of a command":
    n += k
flow:
    while n < 1000000:
        choose p1: log
    draw
'''


def test_an_action_named_like_a_command(tmp_path):
    rules = tmp_path / "clash.gdl"
    rules.write_text(CLASH)
    got = replies(piped(rules, "--seed", "1", script="log 2\n:log\nlog\neval n\n"), "clash")
    text = dict(got)
    assert text["log 2"] == ["   1. p1: log 2"]               # exactly a legal move: played
    assert text[":log"] == ["   1. p1: log 2"]                # the command
    assert text["eval n"] == ["2"]


def test_the_note_on_an_action_named_like_a_command_comes_once(tmp_path):
    # a reload told it again each time; it tells only of a clash an edit has made
    rules = tmp_path / "clash.gdl"
    rules.write_text(CLASH)
    out = piped(rules, "--seed", "1", script="reload\nreload\n")
    assert out.count("the action 'log' has the name of a command") == 1


def test_a_word_that_begins_one_action_only_is_taken_for_it(tmp_path):
    # `pass` for pass_turn suggested the command `as`
    rules = tmp_path / "clash.gdl"
    rules.write_text(CLASH.replace("log", "pass_turn"))
    got = dict(replies(piped(rules, "--seed", "1", script="pass 2\n"), "clash"))
    assert got["pass 2"][-1].endswith("did you mean 'pass_turn'?")


STUCK = '''game "Stuck"
players 2
card n: 1..4
cards into deck: card(n: i) for i in 1..4
zone deck: stack
zone hand[player]: set, seen by owner
zone pile: stack, face up
action lay(c: hand[me]):
    require count(pile) == 0 or c.n > top(pile).n "higher than the pile's top card"
    move c to pile
action pass_on():
    require count(hand[me]) == 0 "only with no cards"
flow:
    move bottom(deck) to pile
    move top(deck) to pile
    deal 1 from deck to hand[p] for p in players
    choose p2: lay, pass_on
    draw
'''


@pytest.mark.parametrize("view, told", [([], True), (["--as", "p2"], True),
                                        (["--as", "p1"], False)])
def test_a_deadlock_says_why_each_action_has_no_move_to_whom_may_know(tmp_path, view, told):
    # it said only that p2 had no legal move; the why names p2's card, hidden from p1
    rules = tmp_path / "stuck.gdl"
    rules.write_text(STUCK)
    got = dict(replies(piped(rules, "--seed", "1", *view, script="moves\n"), "stuck"))
    lines = got["moves"]
    assert "deadlock: p2 must move but has no legal move (lay, pass_on)" in lines[0]
    why = ["  lay, e.g. lay 2: rule lay, line 9: require count(pile) == 0 or c.n > "
           "top(pile).n \"higher than the pile's top card\"",
           "  pass_on: rule pass_on, line 12: require count(hand[me]) == 0 \"only with no "
           "cards\""]
    assert (lines[1:3] == why) if told else all("rule lay" not in x for x in lines)


def test_an_action_named_play_that_is_not_legal_says_why(tmp_path):
    # `play x` with an action named play: the line is that action's move (the command
    # would read `x` as a move and call it neither a command nor an action)
    rules = tmp_path / "clash.gdl"
    rules.write_text(CLASH.replace("log", "play"))
    got = replies(piped(rules, "--seed", "1", script="play x\nplay 2\n"), "clash")
    text = dict(got)
    assert len(text["play x"]) == 1
    assert text["play x"][0].startswith("move error: ") and "neither" not in text["play x"][0]
    assert text["play 2"] == ["   1. p1: play 2"]


# Each step of this game spins a loop, so `auto` cannot finish before Ctrl-C arrives.
SLOW = CLASH.replace("    n += k\n", "    n += k\n    repeat 3000:\n        pass\n")


@pytest.mark.parametrize("ignored", [False, True])
def test_ctrl_c_stops_a_long_auto(tmp_path, ignored):
    # `ignored`: started with SIGINT ignored, as a child of a process inside system() is
    rules = tmp_path / "clash.gdl"
    rules.write_text(SLOW)
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignored else None
    child = spawn(tmp_path, rules, "--seed", "1", preexec_fn=ignore)
    child.expect_exact("clash 0 p1> ")
    child.sendline("auto")
    time.sleep(1.5)                    # well inside a run of 100,000 slow steps
    child.sendintr()
    child.expect(r"interrupted at step \d+")
    child.expect_exact("p1> ")
    say(child, "eval n > 0", "true", "p1> ")
    finish(child)


def test_auto_without_a_count_says_when_it_stops_before_the_end(tmp_path, monkeypatch):
    # a game that never ends: `auto` stops at the cap and says so (it stopped silently)
    import io
    from gdl import _repl_session
    from gdl._repl_session import Session
    from gdl.repl import Repl
    monkeypatch.setattr(_repl_session, "MAX_AUTO_STEPS", 30)
    rules = tmp_path / "clash.gdl"
    rules.write_text(CLASH)
    out = io.StringIO()
    repl = Repl(Session(str(rules), {}, seed=1, agents="p1=random"), False, False, out)
    repl.handle("auto")
    assert "stopped after 30 steps, and the game is not over" in out.getvalue()
    out.truncate(0)
    repl.handle("auto 5")
    assert "stopped after" not in out.getvalue()


def test_numbers_int_refuses_are_refused_as_numbers():
    # `str.isdigit` takes '²' and 4,301 digits, which int() refuses: internal errors
    big = "9" * 4301
    script = "".join(f"{line}\n" for line in (
        "²", "why ²", "undo ²", "back-to ²", "auto ²", "chance ²", "restart ²", "p1: ²",
        big, f"undo {big}", f"back-to {big}", f"restart {big}", "log"))
    out = piped(RULESETS / "classics" / "kuhn_poker.gdl", "--seed", 1, script=script)
    assert out.count("error") == 11 and "illegal" in out and "chance: random" in out


def test_a_first_chance_step_that_fails_opens_the_session_before_it(tmp_path):
    from gdl._repl_session import Session
    # `gdl play` exited with the error (and so did the fuzzer's "open:" command for a
    # trace of it, where the session's own first game drew such a deal)
    (tmp_path / "s.gdl").write_text('''game "t"
players p1, p2
var n: int = 0
flow:
    random k in 1..2
    if k == 2:
        fail "two"
    draw
''', encoding="utf-8")
    sessions = [Session(str(tmp_path / "s.gdl"), {}, seed) for seed in range(8)]
    failing, session = next((seed, s) for seed, s in enumerate(sessions)
                            if s.opening_error is not None)
    assert session.state.is_chance() and session.opening == []
    assert "rule error: two" in str(session.opening_error)
    out = piped("s.gdl", "--seed", str(failing), script="chance\n", cwd=tmp_path)
    assert "s.gdl:7:9: rule error: two" in out and "random choice: 2 outcomes" in out


def test_a_setup_that_fails_before_the_first_step_is_told_without_opening(tmp_path):
    # the session was opened with no game: 'Session' object has no attribute 'state'
    (tmp_path / "s.gdl").write_text('game "t"\nplayers p1, p2\nvar n: int = 0\nflow:\n'
                                    '    n = 1 / n\n    draw\n', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "gdl.cli", "play", "s.gdl"], cwd=tmp_path,
                          input="view\n", capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("s.gdl:5:9: rule error: division by zero")


def test_agents_whose_rules_fail_at_the_start_show_their_steps_and_the_error(tmp_path):
    # the session was made by a constructor that raised: an internal error
    (tmp_path / "s.gdl").write_text('''game "t"
players p1, p2
var n: int = 0
action a():
    n += 1
    if n > 2:
        fail "too many"
flow:
    repeat 5:
        choose p1: a
    draw
''', encoding="utf-8")
    out = piped("s.gdl", "--agents", "p1=random", script="log\n", cwd=tmp_path)
    assert out.splitlines()[2:6] == ["   1. p1: a", "   2. p1: a",
                                     "s.gdl:7:9: rule error: too many", "s 2 p1 (random)> log"]


def test_a_move_that_fails_half_way_leaves_the_game_as_it_was(tmp_path):
    # steps are made on the session's state itself (a copy a step made a long session
    # quadratic): one whose rules fail after changing it has the state made again
    from gdl._repl_session import Session
    (tmp_path / "s.gdl").write_text('''game "t"
players p1, p2
var n: int = 0
action add(k: 1..3):
    n += k
    if n > 5:
        fail "too far"
flow:
    repeat 5:
        choose p1: add
    draw
''', encoding="utf-8")
    s = Session(str(tmp_path / "s.gdl"), {}, seed=1)
    s.play("add 2")
    s.play("add 2")
    before = (s.state.key(), s.step_count(), s.steps())
    with pytest.raises(GdlError, match="too far"):
        s.play("add 3")
    assert (s.state.key(), s.step_count(), s.steps()) == before
    assert s.state.game.evaluate("n", s.state) == 4
    s.play("add 1")
    assert s.step_count() == 3 and s.state.game.evaluate("n", s.state) == 5


def test_a_move_interrupted_half_way_leaves_the_game_as_it_was(tmp_path, monkeypatch):
    # made on the session's state itself, a Ctrl-C in the middle left it half changed
    # (its node None: the next command failed in Python)
    from gdl._repl_session import Session
    from interpreter.state import State
    s = Session(str(GERRY), {}, seed=3)
    before = (s.state.key(), s.step_count())
    made = State._decided

    def interrupted(self, *args, **kwargs):
        made(self, *args, **kwargs)
        self.node = None
        raise KeyboardInterrupt
    monkeypatch.setattr(State, "_decided", interrupted)
    with pytest.raises(KeyboardInterrupt):
        s.play(s.legal_moves()[0].text)
    monkeypatch.undo()
    assert (s.state.key(), s.step_count()) == before
    s.play(s.legal_moves()[0].text)
    assert s.step_count() == before[1] + 1


def _doc_sessions(text: str):
    """The transcripts in a docs page made from a file in the repository (their banner
    names `rulesets/...`), as (argv, input lines, the transcript)."""
    banner = re.compile(r"^.+ \((rulesets/\S+\.gdl)\): .*?, seed (\d+)(?:, options (.*?))?"
                        r"(?:, viewing as (\w+))?(?:, agents (\S+))?$")
    for block in re.findall(r"^```\n(.*?)^```", text, re.S | re.M):
        first = block.splitlines()[0]
        match = banner.match(first)
        if not match:
            continue
        path, seed, options, seat, agents = match.groups()
        argv = [path, "--seed", seed]
        for item in (options or "").split(", ") if options else ():
            argv += ["--set", item]
        argv += ["--as", seat] if seat else []
        argv += ["--agents", agents] if agents else []
        inputs = [m[1] for m in re.finditer(r"^\w+ \d+ [^>\n]*> (.*)$", block, re.M)]
        yield argv, inputs, block


def test_the_repl_pages_transcripts_of_repository_files_are_what_it_prints():
    # the page's Double Dealing Shuffle session had drifted from the log's order of commit
    text = (ROOT / "docs" / "repl.md").read_text(encoding="utf-8")
    sessions = list(_doc_sessions(text))
    assert sessions
    for argv, inputs, block in sessions:
        env = dict(os.environ, NO_COLOR="1", COLUMNS="92")
        done = subprocess.run([str(GDL), "play", *argv], input="\n".join(inputs) + "\n",
                              text=True, capture_output=True, env=env, cwd=str(ROOT),
                              timeout=TIMEOUT)
        assert done.stdout == block, argv


def test_a_seat_prefix_naming_no_seat_and_why_alone_say_what_is_wrong():
    # `p3: ...` in a game of two said "'p3:' is neither a command nor an action"; `why`
    # alone suggested `why look ...`, though look takes nothing
    from gdl._repl_session import ReplError, Session
    from gdl.repl import Repl
    repl = Repl(Session(str(GERRY), {}, seed=1), colour=False, symbols=False)
    with pytest.raises(ReplError, match="no player 'p3': the players are p1, p2"):
        repl.cmd_play("p3: select cell[1,1]")
    with pytest.raises(ReplError, match="did you mean"):
        repl.cmd_play("pp1: look")
    with pytest.raises(ReplError, match=r"e.g. `why move_face_down ...`"):
        repl.cmd_why("")
    kuhn = Repl(Session(str(RULESETS / "classics" / "kuhn_poker.gdl"), {}, seed=1),
                colour=False, symbols=False)
    with pytest.raises(ReplError, match=r"e.g. `why bet`"):
        kuhn.cmd_why("")


def test_a_trace_opens_with_its_own_seats_seed_and_the_options_the_file_still_takes(
        tmp_path):
    # --as p5 of a trace made with players=5 was refused (checked against the file's
    # default of 4 seats); --seed was ignored without a word; a trace with an option the
    # file has since renamed could not be opened at all (reload drops such an option)
    dd = RULESETS / "double_down.gdl"
    trace = tmp_path / "t.json"
    assert main(["run", str(dd), "-n", "1", "--seed", "1", "--set", "players=5",
                 "--trace", str(trace)]) == 0
    out = piped(dd, "--trace", trace, "--as", "p5", "--agents", "p5=random",
                "--seed", "5", script="")
    assert "5 players (p1, p2, p3, p4, p5), seed 5" in out and "viewing as p5" in out
    renamed = tmp_path / "g.gdl"
    renamed.write_text(GERRY.read_text().replace("turns_each", "turns_count"))
    gerry_trace = tmp_path / "g.json"
    assert main(["run", str(renamed), "-n", "1", "--seed", "1", "--trace",
                 str(gerry_trace)]) == 0
    data = json.loads(gerry_trace.read_text().splitlines()[0])
    data["options"] = {"turns_each": 5, "size": 3.0}
    gerry_trace.write_text(json.dumps(data))
    out = piped(renamed, "--trace", gerry_trace, script="")
    assert "dropped the trace's option turns_each=5: the file has no such option now; " \
        "the file's default applies" in out
    assert "dropped the trace's option size=3.0: " in out
    got = dict(replies(piped(renamed, "--seed", "1", script=f"load {gerry_trace}\n"), "g"))
    assert got[f"load {gerry_trace}"][0].startswith("dropped the trace's option turns_each")


def test_play_refuses_more_agents_than_seats_and_undo_says_when_agents_play_every_seat():
    done = subprocess.run([str(GDL), "play", str(GERRY), "--agents", "random,first,last"],
                          input="", text=True, capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 2 and "3 agents named for a game of 2 seats" in done.stderr
    script = "select cell[1,1]\nundo 5\nagents all=random\nundo\n"
    got = dict(replies(piped(GERRY, "--seed", "3", script=script), "gerry"))
    assert got["undo 5"][0].startswith("took back 1 step")    # "cannot undo 5 steps: 3
    assert got["undo"][0].startswith("error: every seat is played by an agent now")  # were


def test_save_and_load_take_a_quoted_file_name(tmp_path):
    # `save "q q.json"` wrote a file named with the quotes
    script = 'save "my game.json"\nload "my game.json"\n'
    got = dict(replies(piped(GERRY, "--seed", "1", script=script, cwd=tmp_path), "gerry"))
    assert got['save "my game.json"'] == ["saved 2 steps to my game.json"]
    assert (tmp_path / "my game.json").exists()
    assert got['load "my game.json"'][0] == "loaded my game.json: replayed 2 of 2 steps"


def test_a_traces_options_that_bound_one_another_are_taken_together(tmp_path):
    # hi=3 was dropped: checked alone, with lo at its default of 5 (its floor)
    from gdl._repl_session import Session
    rules = tmp_path / "b.gdl"
    rules.write_text('game "bounds"\nplayers 2\noption lo: 1..10 = 5\n    "low"\n'
                     'option hi: lo..10 = 8\n    "high"\naction go() "go":\n    win p1\n'
                     'flow:\n    choose p1: go\n')
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps({"format": "gdl-trace-2", "game": str(rules),
                                 "options": {"hi": 3, "lo": 2}, "seed": 1, "steps": []}))
    s = Session(str(rules), {}, seed=1)
    done = s.load_trace(str(trace))
    assert done.dropped == () and s.overrides == {"hi": "3", "lo": "2"}
