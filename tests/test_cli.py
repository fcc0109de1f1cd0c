"""The gdl command as a user runs it: exit codes, summaries, traces, no tracebacks."""
from __future__ import annotations

import json
import os
import re
import shutil
import sys

import pytest

from conftest import DDS, DEADLOCK, GERRY, RULESETS, ctrl_c
from gdl.cli import main


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_check_prints_a_profile(capsys):
    code, out, err = run(capsys, "check", GERRY, DDS)
    assert code == 0, err
    assert "ok  " in out and "Gerry" in out and "simultaneous moves" in out


def test_check_reports_errors_without_traceback(tmp_path, capsys):
    bad = tmp_path / "bad.gdl"
    bad.write_text('game "x"\nplayers 2\nzone stock: stack\nflow:\n    shuffle stok\n    draw\n')
    code, out, err = run(capsys, "check", bad)
    assert code == 2
    assert f"{bad}:5:13" in err and "^" in err and "stock" in err
    assert "Traceback" not in err


def test_check_goes_on_past_a_file_that_fails(tmp_path, capsys):
    # every file is checked and reported, not only those before the first that fails
    bad = tmp_path / "bad.gdl"
    bad.write_text('game "x"\nplayers 2\nzone stock: stack\nflow:\n    shuffle stok\n    draw\n')
    code, out, err = run(capsys, "check", GERRY, bad, tmp_path / "none.gdl", DDS)
    assert code == 2
    assert out.count("ok  ") == 2 and "Double Dealing" in out
    assert f"{bad}:5:13" in err and "cannot read" in err and "2 of 4 files failed" in err


EARLY = '''game "early"
players a, b
card n: 1..4
cards into deck: card(n: k) for k in 1..4
zone deck: stack
zone hand[player]: stack
trigger empty when count(hand[a]) == 0 "a's hand is empty: a wins":
    win a
action play(c: hand[me]) "play":
    move c to deck
flow:
    shuffle deck
    deal 2 from deck to hand[p] for p in players
    while true:
        choose a: play
        choose b: play
'''


def test_check_warns_of_a_game_that_ends_before_anyone_decides(tmp_path, capsys):
    # a trigger true before the deal won every game at its first check: check said ok
    early = tmp_path / "early.gdl"
    early.write_text(EARLY)
    code, out, err = run(capsys, "check", early)
    assert code == 0, err
    assert "warning: every game ended before its first decision (20 seeded deals); on " \
        f"the way the trigger `empty` ({early}:7) fired" in " ".join(out.split())
    early.write_text(EARLY.replace("== 0", "== 0 and count(deck) == 0"))   # after the
    code, out, err = run(capsys, "check", early)                          # deal: fine
    assert code == 0 and "warning" not in out, out
    code, out, err = run(capsys, "check", *sorted(RULESETS.glob("**/*.gdl")))
    assert code == 0 and "warning" not in out, out


def test_check_fails_a_game_whose_setup_fails(tmp_path, capsys):
    crash = tmp_path / "crash.gdl"
    crash.write_text('game "crash"\nplayers a, b\nvar d: int = 0\nvar e: int = 0\n'
                     'action go() "go":\n    win a\nflow:\n    e = 10 / d\n    choose a: go\n')
    code, out, err = run(capsys, "check", crash)
    assert code == 2 and "ok  " not in out
    assert f"{crash}:8:9: rule error: division by zero" in err
    assert "note: in the seeded deal 0 that gdl check plays up to the first decision: " \
        "the game cannot start" in err


def test_a_damaged_trace_or_a_path_that_cannot_be_written_is_a_clear_error(tmp_path,
                                                                             capsys):
    # each was an internal error (exit 3): a Python error from deep in the tools
    good = tmp_path / "t.json"
    assert run(capsys, "run", GERRY, "-n", 1, "--trace", good)[0] == 0
    trace = json.loads(good.read_text(encoding="utf-8").splitlines()[0])
    damaged = {
        "steps null": dict(trace, steps=None), "options a list": dict(trace, options=[1]),
        "no game": {k: v for k, v in trace.items() if k != "game"},
        "a move a number": dict(trace, steps=[dict(trace["steps"][0], move=42)]
                                if "move" in trace["steps"][0] else [{"player": 0, "move": 4}]),
        "a step a number": dict(trace, steps=[7]),
    }
    says = {"steps null": '"steps" must be a list', "options a list": '"options" must be',
            "no game": "names no ruleset", "a move a number": 'a "player" and a "move"',
            "a step a number": "step 1 of the trace is malformed: it must be an object"}
    for name, data in damaged.items():
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        code, out, err = run(capsys, "replay", path)
        assert code == 2 and says[name] in err and "internal" not in err, (name, err)
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00junk")
    code, out, err = run(capsys, "replay", tmp_path / "bin.json")
    assert code == 2 and "is not UTF-8 text" in err
    (tmp_path / "file").write_text("x")
    for argv in (["run", GERRY, "-n", 1, "--trace", tmp_path / "no" / "dir" / "t.jsonl"],
                 ["fuzz", GERRY, "--budget", "0.5", "--out", tmp_path / "file"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and err.startswith(("error: ", "option error: --out")) and \
            "internal" not in err, err


def test_run_summary_and_trace_replay(tmp_path, capsys):
    trace = tmp_path / "games.jsonl"
    code, out, err = run(capsys, "run", GERRY, "-n", 5, "--seed", 3, "--agents", "random,first",
                         "--trace", trace)
    assert code == 0, err
    assert "5 game(s)" in out and "mean return" in out and "draws:" in out
    lines = trace.read_text().splitlines()
    assert len(lines) == 5 and json.loads(lines[0])["seed"] == 3
    code, out, err = run(capsys, "replay", trace)
    assert code == 0, err
    assert "game over" in out


def test_a_trace_replayed_from_another_folder_says_how_to_find_its_rules(
        tmp_path, capsys, monkeypatch):
    trace = tmp_path / "t.json"
    monkeypatch.chdir(GERRY.parent.parent)
    assert run(capsys, "run", "rulesets/gerry.gdl", "--seed", 3, "--trace", trace)[0] == 0
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "replay", trace)
    assert code == 2 and "cannot read rulesets/gerry.gdl" in err
    assert "relative to the folder gdl ran in" in err and "--file" in err
    code, out, err = run(capsys, "replay", trace, "--file", GERRY)
    assert code == 0 and "game over" in out, err


def test_a_replay_under_changed_options_says_the_steps_were_made_under_others(
        tmp_path, capsys):
    trace = tmp_path / "t.json"
    assert run(capsys, "run", GERRY, "--seed", 1, "--trace", trace)[0] == 0
    code, out, err = run(capsys, "replay", trace, "--set", "size=3", "--set", "turns_each=10")
    assert code == 2 and "cannot be replayed" in err
    assert "--set changed what the trace was made with (size=3): its steps" in err
    code, out, err = run(capsys, "replay", trace, "--set", "size=5")     # the default
    assert code == 0, err
    # an option the trace records: --set overrides it too ("recorded with
    # max_rounds=3, but this game has max_rounds=4" for every one)
    assert run(capsys, "run", DDS, "--seed", 1, "--set", "max_rounds=3", "--trace", trace,
               "--set", "allow_identity_shuffle=true")[0] == 0
    code, out, err = run(capsys, "replay", trace, "--set", "max_rounds=4", "--step", 12)
    assert code == 0 and "after 12 steps" in out, err
    code, out, err = run(capsys, "replay", trace, "--set", "allow_identity_shuffle=false")
    assert code in (0, 2) and "recorded with" not in err


def test_run_one_game_shows_the_final_table(capsys):
    code, out, err = run(capsys, "run", DDS, "--seed", 1, "--set", "max_rounds=3")
    assert code == 0, err
    assert "final table" in out and "deck[p1]" in out and "max_rounds=3" in out


def test_run_in_workers_prints_and_writes_what_one_process_does(tmp_path, capsys):
    outputs = []
    for jobs in (1, 2):
        trace = tmp_path / f"games{jobs}.jsonl"
        code, out, err = run(capsys, "run", GERRY, "-n", 12, "--seed", 3, "--agents",
                             "random,first", "--trace", trace, "--show", "-j", jobs)
        assert code == 0, err
        outputs.append((out, trace.read_text()))
    assert outputs[0] == outputs[1]
    out, traces = outputs[0]
    assert out.count("final table") == 12 and "(seed 14)" in out
    assert [json.loads(line)["seed"] for line in traces.splitlines()] == list(range(3, 15))


@pytest.mark.parametrize("terms", [290, 350])
def test_rules_run_in_workers_as_in_one_process(tmp_path, capsys, terms):
    # sending the checked rules to a worker pickles them, several levels for each of the
    # tree's: a def of 350 terms ran in one process, and -j 2 said it nested too deeply
    # (rules nested that deep are a syntax error now, with -j 1 as with -j 2)
    deep = tmp_path / "deep.gdl"
    deep.write_text('game "deep"\nplayers 2\nvar x: int = 1\ndef big() = '
                    + " + ".join(["x"] * terms) + '\nflow:\n    if big() > 3:\n'
                    '        win [p1]\n    draw\n')
    outputs = [run(capsys, "run", deep, "-n", 4, "--seed", 1, "-j", jobs) for jobs in (1, 2)]
    assert outputs[0] == outputs[1]
    code, out, err = outputs[0]
    if terms < 300:
        assert code == 0 and "p1: won     4" in out, err
    else:
        assert code == 2 and "nests more than 300 levels deep" in err


def test_run_sums_up_from_tallies_what_it_sums_up_from_the_games(tmp_path, capsys):
    # without --trace or --show, gdl run has blocks' tallies played, not the games
    outputs = set()
    for more in ([], ["-j", 2], ["--trace", tmp_path / "t.jsonl"],
                 ["--trace", tmp_path / "t2.jsonl", "-j", 2]):
        code, out, err = run(capsys, "run", RULESETS / "double_down.gdl", "-n", 30, "--seed",
                             3, "--set", "players=3", "--agents", "random,first", *more)
        assert code == 0, err
        outputs.add(out)
    assert len(outputs) == 1
    assert "Double Down: 30 game(s)" in out and "mean return" in out


def test_run_reports_a_rule_error_met_in_a_worker_as_in_one_process(tmp_path, capsys):
    bad = tmp_path / "bad_runtime.gdl"
    bad.write_text(DEADLOCK)
    errors = []
    for jobs in (1, 2):
        code, out, err = run(capsys, "run", bad, "-n", 4, "--seed", 1, "-j", jobs)
        assert code == 2 and "Traceback" not in err
        errors.append(err)
    assert errors[0] == errors[1]
    assert "bad_runtime.gdl:13:13: rule error: deadlock: p2 must move" in errors[0]


@pytest.mark.parametrize("command", [["run", "-n", "100000", "--seed", "1"],
                                     ["fuzz", "--budget", "60"]])
def test_ctrl_c_stops_the_workers_without_their_tracebacks(command, tmp_path):
    """Ctrl-C reaches the whole process group: the parent stops the pool and exits 130;
    the workers leave it to the parent instead of each printing a KeyboardInterrupt."""
    import sys
    trace = tmp_path / "games.jsonl"
    traced = ["--trace", str(trace)] if command[0] == "run" else []
    argv = [sys.executable, "-m", "gdl.cli", command[0], str(RULESETS / "evil_deal.gdl"),
            *command[1:], *traced, "-j", "2"]
    # the workers have started and are playing, and, for run, games have come back
    code, out, err = ctrl_c(argv, ready=(lambda pid: _has_lines(trace)) if traced else None,
                            wait=4)
    assert code == 130, err
    assert "Process Spawn" not in err and "Traceback" not in err
    if traced:                          # the summary of the games played before it
        assert "interrupted (Ctrl-C) after" in out and "game(s)" in out, (out, err)
    else:                               # the report of what the finished work found
        assert "INTERRUPTED (Ctrl-C)" in out and "summary:" in out


def _a_worker_is_starting(pid) -> bool:
    return any(b"spawn_main" in _command_line(child) for child in _children(pid))


@pytest.mark.parametrize("command", [["run", "-n", "100000"], ["fuzz", "--budget", "60"]])
def test_ctrl_c_as_the_workers_start_is_quiet(command):
    """Ctrl-C the moment the first worker appears: the parent is starting workers, and
    they are starting up (a second or more each, before they can ignore Ctrl-C)."""
    import sys
    code, out, err = ctrl_c([sys.executable, "-m", "gdl.cli", command[0],
                             str(RULESETS / "evil_deal.gdl"), *command[1:], "-j", "2"],
                            ready=_a_worker_is_starting, wait=0)
    assert code == 130 and err == "", err


def test_ctrl_c_during_fuzz_prints_the_report_so_far():
    import sys
    code, out, err = ctrl_c([sys.executable, "-m", "gdl.cli", "fuzz",
                             str(RULESETS / "evil_deal.gdl"), "--budget", "600"], wait=4)
    assert code == 130 and "Traceback" not in err
    assert "INTERRUPTED (Ctrl-C)" in out and "summary:" in out and "coverage" in out


def test_ctrl_c_while_gdl_starts_is_a_quiet_130(capsys, monkeypatch):
    import gdl.cli

    def importing(*args, **kwargs):             # building the parser imports the engine
        raise KeyboardInterrupt
    monkeypatch.setattr(gdl.cli, "build_parser", importing)
    code, out, err = run(capsys, "run", GERRY)
    assert code == 130 and out == err == ""


def test_ctrl_c_while_python_imports_gdl_is_a_quiet_130(capsys, monkeypatch):
    # The `gdl` command's entry point imports the rest of gdl inside its own Ctrl-C
    # handling: a Ctrl-C while `gdl.cli` is imported ends the command with 130, no trace.
    import importlib.abc
    import gdl._entry

    class Interrupting(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "gdl.cli":
                raise KeyboardInterrupt
            return None
    monkeypatch.delitem(sys.modules, "gdl.cli")
    monkeypatch.setattr(sys, "meta_path", [Interrupting(), *sys.meta_path])
    assert gdl._entry.main() == 130
    out, err = capsys.readouterr()
    assert out == err == ""


@pytest.mark.parametrize("call, more", [("tally_games", []), ("play_games", ["--show"])])
def test_ctrl_c_before_any_game_ended_says_so(capsys, monkeypatch, call, more):
    # the summary alone comes from blocks' tallies, the games shown from the games
    from interpreter import simulate
    real = getattr(simulate, call)

    def interrupted_at_once(*args, **kwargs):
        games = real(*args, **kwargs)

        class FirstGameInterrupted:
            game = games.game

            def __iter__(self):
                return self

            def __next__(self):
                raise KeyboardInterrupt
        return FirstGameInterrupted()
    monkeypatch.setattr(simulate, call, interrupted_at_once)
    code, out, err = run(capsys, "run", GERRY, "-n", 50, "--seed", 1, *more)
    assert code == 130 and not err
    assert out == "Gerry: interrupted (Ctrl-C) before the first of 50 games ended\n"


def _has_lines(path) -> bool:
    return path.exists() and path.stat().st_size > 0


def test_ctrl_c_prints_the_summary_of_the_games_played(tmp_path):
    import sys
    trace = tmp_path / "games.jsonl"
    argv = [sys.executable, "-m", "gdl.cli", "run", str(RULESETS / "evil_deal.gdl"),
            "-n", "1000000", "--trace", str(trace)]
    code, out, err = ctrl_c(argv, ready=lambda pid: _has_lines(trace))
    assert code == 130 and "Traceback" not in err
    played = int(out.split("Evil Deal")[1].split(": ")[1].split(" game(s)")[0])
    assert 0 < played < 1000000
    assert f"interrupted (Ctrl-C) after {played} of 1000000 games" in out
    assert len(trace.read_text().splitlines()) == played   # every game played is kept
    seed = json.loads(trace.read_text().splitlines()[0])["seed"]    # drawn: and named
    assert f"no --seed given: the games had seed{'s' if played > 1 else ''} {seed} " in out


def _children(pid: int) -> list:
    """The ids of a process's children, from /proc (Linux)."""
    from pathlib import Path
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:                 # a process that ended meanwhile
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _command_line(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:                     # it ended meanwhile
        return b""


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the workers in /proc")
@pytest.mark.parametrize("command", [["run", "-n", "100000", "--seed", "1"],
                                     ["fuzz", "--budget", "60"]])
def test_a_killed_worker_is_a_one_line_error_with_status_4(command):
    """Out of memory, say: the command says so and stops, instead of waiting for ever."""
    import signal
    import subprocess
    import sys
    import time
    argv = [sys.executable, "-m", "gdl.cli", command[0], str(RULESETS / "evil_deal.gdl"),
            *command[1:], "-j", "2"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline, workers = time.monotonic() + 60, []
    while not workers and time.monotonic() < deadline:
        time.sleep(0.5)
        workers = [pid for pid in _children(proc.pid)
                   if b"resource_tracker" not in _command_line(pid)]
    time.sleep(3)                       # the workers have loaded the game and are playing
    os.kill(workers[0], signal.SIGKILL)
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 4, err
    assert "a worker process stopped" in err.decode() and "Traceback" not in err.decode()


@pytest.mark.parametrize("argv, message", [
    (["run", GERRY, "--set", "line_rul=plurality"], "did you mean 'line_rule'"),
    (["run", GERRY, "--set", "line_rule=plural"], "did you mean 'plurality'"),
    (["run", GERRY, "--set", "size=9"], "between 2 and 5"),
    (["run", GERRY, "--set", "size"], "name=value"),
    (["run", GERRY, "--agents", "randm"], "did you mean 'random'"),
    (["run", GERRY, "--agents", "random,first,last"],       # the third was dropped
     "--agents names 3 agents for a game of 2 seats"),
    (["run", GERRY, "--agents", ""], "--agents takes agent names separated by commas"),
    (["run", GERRY, "--agents", "first,,last"], "not 'first,,last'"),   # both were taken
    (["run", GERRY, "--jobs", "-1"], "--jobs must be 0 (one per core) or more"),
    (["run", GERRY, "-n", "0"], "-n must be 1 or more"),
    (["bench", GERRY, "--seconds", "0"], "--seconds must be more than 0, not 0"),
    (["bench", GERRY, "--seconds", "-1"], "--seconds must be more than 0, not -1"),
    (["replay", "no-such-trace.jsonl"], "cannot read"),
    (["replay", "no-such-trace.jsonl", "--step", "-1"], "--step must be 0 or more"),
    (["run", GERRY, "--seed", "-3"], "--seed must be 0 or more, not -3"),   # plays seed 3
    (["bench", GERRY, "--seconds", "inf"], "not inf (it would run for ever)"),
    (["fuzz", GERRY, "--budget", "1", "--out", "/proc/no/such"],    # known only after
     "the traces could not be written there"),                      # the budget was spent
    (["check", "no-such-file.gdl"], "cannot read"),
])
def test_user_errors_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert message in err and "Traceback" not in err


def test_a_run_without_a_seed_names_the_seeds_it_drew(capsys):
    # the summary could not be had again: nothing said which games were played
    code, out, err = run(capsys, "run", GERRY, "-n", 7, "--agents", "random,first")
    assert code == 0, err
    first = int(re.search(r"no --seed given: the games had seeds (\d+) to (\d+)", out)[1])
    assert f"to {first + 6} (`--seed {first}` plays them again)" in out
    code, again, err = run(capsys, "run", GERRY, "-n", 7, "--agents", "random,first",
                           "--seed", first)
    assert code == 0 and "no --seed" not in again and again in out


def test_rules_that_run_out_of_memory_are_said_so_not_an_internal_error(capsys,
                                                                         monkeypatch):
    from interpreter import simulate

    def huge(*args, **kwargs):                  # a range 1..n of a huge n, say
        raise MemoryError
    monkeypatch.setattr(simulate, "tally_games", huge)
    code, out, err = run(capsys, "run", GERRY, "-n", 5)
    assert code == 2 and err.startswith("error: the rules need more memory than there is")


def test_a_ruleset_path_that_is_no_file_or_no_text_is_said_with_its_place(tmp_path,
                                                                          capsys):
    # a variant of "/dev/zero" read until memory ran out; of a folder, and a file that
    # is not UTF-8, the errors named no place
    variant = tmp_path / "v.gdl"
    (tmp_path / "folder.gdl").mkdir()
    variant.write_text(f'variant of "{(tmp_path / "folder.gdl").as_posix()}"\n')
    code, out, err = run(capsys, "check", variant)
    assert code == 2 and err.startswith(f"{variant}:1:1: error: the base ruleset")
    assert "is not a file" in err
    # any other file's lines were shown by its syntax error (`variant of "/etc/passwd"`),
    # and a name too long for the system was said without a place
    for base, says in (("/etc/passwd", "a ruleset file ending in .gdl, not '/etc/passwd'"),
                       ("x" * 300 + ".gdl", "cannot be read: File name too long")):
        variant.write_text(f'variant of "{base}"\n')
        code, out, err = run(capsys, "check", variant)
        assert code == 2 and err.startswith(f"{variant}:1:1: error: ") and says in err, err
        assert "root:" not in err
    # the REPL's watch on a variant's bases read the base without the check
    from gdl.variants import variant_files
    variant.write_text('variant of "/etc/passwd"\n')
    assert variant_files(variant) == [variant]
    trace = tmp_path / "t.json"          # a NUL in a trace's game: an internal error
    trace.write_text('{"format": "gdl-trace-1", "game": "\\u0000", "options": {}, '
                     '"seed": 1, "steps": []}')
    code, out, err = run(capsys, "replay", trace)
    assert code == 2 and "a path cannot hold a NUL character" in err
    code, out, err = run(capsys, "check", tmp_path)
    assert code == 2 and f"cannot read {tmp_path}: it is not a file" in err
    bad = tmp_path / "bad.gdl"
    bad.write_bytes(b'game "t"\nplayers 2 # caf\xe9\n')
    code, out, err = run(capsys, "check", bad)
    assert code == 2 and f"{bad}:2:16: error:" in err and "(byte 0xe9 here)" in err


def test_a_one_seat_game_is_summed_up_by_its_returns_not_as_draws(tmp_path, capsys):
    # "won 0 ... draws: 50" for a game whose returns ranged from 1 to 3
    solo = tmp_path / "solo.gdl"
    solo.write_text('game "solo"\nplayers 1\nvar n: int = 0\naction up(k: 1..3):\n'
                    '    n += k\nflow:\n    choose p1: up\n    end game\nreturns(p) = n\n')
    code, out, err = run(capsys, "run", solo, "-n", 50, "--seed", 1)
    assert code == 0, err
    assert "p1: mean return +2.020 (one seat: no wins or draws)" in out
    assert "draws" not in out.replace("no wins or draws", "") and "unfinished: 0" in out


def test_a_byte_order_mark_is_not_text(tmp_path, capsys):
    # editors on Windows start UTF-8 files with one: it was a syntax error at 1:1
    marked = tmp_path / "marked.gdl"
    marked.write_text("\ufeff" + GERRY.read_text(encoding="utf-8"), encoding="utf-8")
    trace = tmp_path / "t.json"
    assert run(capsys, "run", marked, "--seed", 3, "--trace", trace)[0] == 0
    trace.write_text("\ufeff" + trace.read_text(encoding="utf-8"), encoding="utf-8")
    code, out, err = run(capsys, "replay", trace, "--step", 4)
    assert code == 0 and "after 4 steps" in out, err


def test_variants_that_are_variants_of_each_other_are_named_as_a_cycle(tmp_path, capsys):
    (tmp_path / "a.gdl").write_text('variant of "b.gdl"\ngame "A"\n')
    (tmp_path / "b.gdl").write_text('variant of "a.gdl"\ngame "B"\n')
    code, out, err = run(capsys, "check", tmp_path / "a.gdl")
    assert code == 2 and "variants form a cycle: a.gdl -> b.gdl -> a.gdl" in err
    assert "a.gdl:1:1" in err and "nest deeper" not in err


def test_a_trace_nested_too_deeply_or_a_seat_to_view_that_is_not_one(tmp_path, capsys):
    # each was labelled wrongly: the ruleset nesting too deeply, a move error
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    code, out, err = run(capsys, "replay", deep)
    assert code == 2 and "deep.json nests too deeply to be a trace" in err
    trace = tmp_path / "t.json"
    assert run(capsys, "run", GERRY, "--seed", 3, "--trace", trace)[0] == 0
    code, out, err = run(capsys, "replay", trace, "--view", "p9")
    assert code == 2 and err.startswith("option error: --view: no player 'p9'")


def test_bench_reports_rates(capsys):
    code, out, err = run(capsys, "bench", GERRY, "--seconds", "0.3")
    assert code == 0, err
    assert "playouts/s" in out and "decisions/s" in out


def test_the_command_line_starts_without_the_worker_pools_modules():
    """`multiprocessing` and `concurrent.futures` cost ~10 ms to import: only a command
    that starts workers pays for them."""
    import subprocess
    import sys
    code = ("import sys, gdl.cli; gdl.cli.build_parser(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('multiprocessing', 'concurrent')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def _engine_modules_after(code: str) -> str:
    """The engine's modules that a fresh Python has imported after running `code`, as
    the last line of what it prints."""
    import subprocess
    import sys
    code += ("; import sys; print(sorted(m for m in sys.modules "
             "if m.startswith('interpreter.') and m != 'interpreter.fuzz_limits'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip(), out.stderr
    return out.stdout.strip().splitlines()[-1]


def test_help_starts_without_the_engine():
    """`gdl --help` and every command's help, fuzz's defaults included, need no engine
    (importing it is about 0.15 s of a 0.3 s start)."""
    assert _engine_modules_after(
        "import gdl.cli; gdl.cli.build_parser().format_help()") == "[]"


def test_check_reports_a_files_errors_before_loading_the_engine(tmp_path):
    bad = tmp_path / "bad.gdl"
    bad.write_text('game "x"\nplayers 2\nflow:\n    win p3\n')
    found = _engine_modules_after(
        f"import gdl.cli; print(gdl.cli.main(['check', {str(bad)!r}]))")
    assert found == "[]"
    found = _engine_modules_after(
        f"import gdl.cli; print(gdl.cli.main(['check', {str(GERRY)!r}]))")
    assert "interpreter._compiler" in found        # a good file is compiled as well

def test_run_keeps_running_figures_not_a_list_of_every_game(capsys):
    """`gdl run -n 10000000`: the summary's memory does not grow with the games."""
    import argparse
    import tracemalloc
    from gdl.run_cmd import _run
    from interpreter import load
    from interpreter.simulate import PlayedGame

    class Run:                          # what play_games returns, with made-up games
        game = load(str(GERRY))

        def __iter__(self):
            return (PlayedGame(i, (1.0, -1.0), True, 1000 + i) for i in range(100_000))
    args = argparse.Namespace(n=100_000, trace=None)
    tracemalloc.start()
    try:
        _run(args, Run(), show=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000, peak
    assert "length in steps: mean 50999.5, max 100999" in capsys.readouterr().out


@pytest.mark.parametrize("kept", [0, 1, 4096])
def test_run_counts_each_end_by_its_label_however_many_labels_it_remembers(
        capsys, monkeypatch, kept):
    import argparse

    from gdl import run_cmd
    from interpreter import load, simulate
    from interpreter.simulate import PlayedGame
    monkeypatch.setattr(simulate, "LABELS_KEPT", kept)
    monkeypatch.setattr(simulate, "_LABELS", {})
    ends = [((1.0, -1.0), True), ((-1.0, 1.0), True), ((0.0, 0.0), True),
            ((2.0, -2.0), True), ((0.0, 0.0), False)]

    class Run:                          # what play_games returns, with made-up games
        game = load(str(GERRY))

        def __iter__(self):
            return (PlayedGame(i, *ends[i % 5], 10) for i in range(100))
    run_cmd._run(argparse.Namespace(n=100, trace=None), Run(), show=False)
    out = capsys.readouterr().out
    assert re.search(r"p1: won +40 ", out) and re.search(r"p2: won +20 ", out)
    assert "draws: 20   unfinished: 20" in out


@pytest.mark.parametrize("argv, near", [
    (["enumarate", "x.gdl"], "enumerate"),
    (["benchmark", "x.gdl"], "bench"),
    (["pbn", "dael", "x.gdl"], "deal"),
])
def test_a_mistyped_command_gets_a_did_you_mean(capsys, argv, near):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"invalid choice: '{argv[-2]}'" in err and err.rstrip().endswith(
        f"did you mean '{near}'?")


def test_a_command_nothing_is_near_gets_the_list_alone(capsys):
    with pytest.raises(SystemExit):
        main(["zzzz"])
    err = capsys.readouterr().err
    assert "invalid choice: 'zzzz'" in err and "did you mean" not in err


def test_repl_is_another_name_for_play(monkeypatch):
    from gdl import cli
    seen = []
    monkeypatch.setattr(cli, "cmd_play", lambda args: seen.append(args.file) or 0)
    parser = cli.build_parser()
    for name in ("play", "repl"):
        args = parser.parse_args([name, str(GERRY), "--seed", "1"])
        assert args.func(args) == 0
    assert seen == [str(GERRY), str(GERRY)]


def test_every_argument_of_every_command_says_what_it_is():
    # `gdl CMD --help` is where a user looks first: no argument may be listed bare.
    import argparse

    from gdl.cli import build_parser

    def parsers(parser):
        yield parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in set(action.choices.values()):
                    yield from parsers(sub)

    bare = [f"{p.prog} {a.dest}" for p in parsers(build_parser()) for a in p._actions
            if not a.help and not isinstance(a, argparse._SubParsersAction)]
    assert not bare, bare


def test_bench_says_when_the_game_is_over_before_anything_is_played(capsys, tmp_path):
    fixed = tmp_path / "fixed.gdl"
    fixed.write_text('game "fixed"\nplayers 2\nflow:\n    draw\n')
    code, out, err = run(capsys, "bench", fixed, "--seconds", "0.1")
    assert code == 0, err
    assert "every playout is a copy of one finished game" in out
    code, out, err = run(capsys, "bench", GERRY, "--seconds", "0.1")
    assert code == 0 and "note:" not in out


def test_ctrl_c_during_bench_before_a_playout_ended_says_so(capsys, monkeypatch):
    from interpreter import agents

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(agents, "play_out", interrupted)
    code, out, err = run(capsys, "bench", GERRY, "--seconds", "5")
    assert code == 130 and not err
    assert out == "Gerry: interrupted (Ctrl-C) before the first playout ended\n"


def test_ctrl_c_during_bench_prints_the_figures_so_far():
    import sys
    code, out, err = ctrl_c([sys.executable, "-m", "gdl.cli", "bench", str(GERRY),
                             "--seconds", "600"])
    assert code == 130 and "Traceback" not in err
    assert "playouts/s" in out and ", interrupted)" in out


@pytest.mark.parametrize("traced", [True, False], ids=["games", "tallies"])
def test_ctrl_c_in_a_run_of_one_process_keeps_the_games_it_finished(tmp_path, traced):
    # the games of the block under way (up to 250) were lost: "before the first of 100"
    rules = tmp_path / "long.gdl"
    rules.write_text('game "long"\nplayers 2\nvar n: int = 0\naction a():\n    n += 1\n'
                     'flow:\n    repeat 60000:\n        choose p1: a\n    draw\n')
    trace = tmp_path / "t.jsonl"
    # 1000 games of 60,000 steps: 100 took under 3 s on an idle machine (20 ms a game)
    argv = [sys.executable, "-m", "gdl.cli", "run", str(rules), "-n", "1000", "--seed", "1"]
    code, out, err = ctrl_c(argv + (["--trace", str(trace)] if traced else []), wait=3.0)
    assert code == 130, err
    done = int(re.search(r"interrupted \(Ctrl-C\) after (\d+) of 1000 games", out)[1])
    assert 1 <= done < 1000 and f"long: {done} game(s)" in out
    if traced:
        assert len(trace.read_text().splitlines()) == done


@pytest.mark.parametrize("extra", [[], ["--trace", "t.jsonl"], ["-j", "2"]],
                         ids=["tallies", "games", "workers"])
def test_a_rule_error_in_game_k_of_a_run_names_the_game_and_its_seed(tmp_path, capsys,
                                                                      extra):
    # it named neither, and the games before it were not summed up
    rules = tmp_path / "f.gdl"
    rules.write_text('game "t"\nplayers 2\noption word: text = "x"\nvar n: int = 0\n'
                     'action a(k: 1..3):\n    n += k\nflow:\n    choose p1: a\n    if n == 3:\n'
                     '        random r in 1..2\n        if r == 2:\n'
                     '            fail "three and two"\n    draw\n')
    extra = [str(tmp_path / x) if x.endswith(".jsonl") else x for x in extra]
    code, out, err = run(capsys, "run", rules, "-n", 50, "--seed", 1, "--set", "word=a b",
                         *extra)
    assert code == 2 and "rule error: three and two" in err
    # the options too: without them the game played alone is another game
    # the file's path, to copy and paste (it said FILE)
    assert (f"note: in game 5 of 50 (seed 5): `gdl run {rules} --seed 5 --set 'word=a b'` "
            "plays it alone") in err
    assert "t: 4 game(s)" in out
    alone = run(capsys, "run", rules, "--seed", 5)[2]
    assert "three and two" in alone and "note:" not in alone    # one game, seed given
    for _ in range(100):            # one game, seed drawn: the note gives it (5/6 pass)
        code, out, err = run(capsys, "run", rules, "--set", "word=a b")
        if code:
            drawn = re.search(rf"note: the game had seed (\d+): `gdl run {re.escape(str(rules))}"
                              r" --seed (\d+) --set 'word=a b'` plays it again", err)
            assert drawn and drawn[1] == drawn[2]
            assert "three and two" in run(capsys, "run", rules, "--seed", drawn[1])[2]
            break
    else:
        pytest.fail("no drawn game failed")


def test_check_of_a_variant_says_what_it_replaces_and_adds(tmp_path, capsys):
    # a misspelt name adds a declaration and leaves the base's as it was, unseen
    (tmp_path / "v.gdl").write_text(f'variant of "{GERRY}"\ngame "g2"\n'
                                    'option turns_each: 1..10 = 2\nrule mark_cels:\n    pass\n')
    code, out, err = run(capsys, "check", tmp_path / "v.gdl")
    assert code == 0, err
    assert out.splitlines()[1] == (f"    variant of {GERRY}: replaces game, option turns_each; "
                                   "adds rule mark_cels (the base's mark_cells stays as it was)")
    code, out, err = run(capsys, "check", GERRY)
    assert code == 0 and len(out.splitlines()) == 1
    # a declaration of another kind under the same name is said so ("replaces table ...")
    (tmp_path / "b.gdl").write_text('game "b"\nplayers 2\nvar n: int = 0\n'
                                    'def points(k: 1..3) = k\nflow:\n    n = points(2)\n'
                                    '    draw\n')
    (tmp_path / "v2.gdl").write_text('variant of "b.gdl"\ntable points(k: 1..3):\n'
                                     '    1 => 5\n    else => 0\n')
    code, out, err = run(capsys, "check", tmp_path / "v2.gdl")
    assert code == 0 and "replaces def points with a table; adds nothing" in out, err
    # a `returns` the base has not was an internal error ('ReturnsDecl' has no name)
    (tmp_path / "v3.gdl").write_text('variant of "b.gdl"\nreturns(p) = n\n')
    code, out, err = run(capsys, "check", tmp_path / "v3.gdl")
    assert code == 0 and "replaces nothing; adds returns" in out, err
    # a variant's `cards into` replaces every one of the base's: a zone that had cards
    # and gets none now is named (a deal from it failed in play, unexplained)
    (tmp_path / "v4.gdl").write_text(f'variant of "{GERRY}"\n'
                                     'cards into stock: card(rank: r, suit: s) for s in suit '
                                     'for r in rank if r != king\n')
    code, out, err = run(capsys, "check", tmp_path / "v4.gdl")    # the deal from kings
    assert code == 2 and "top() of an empty zone" in err            # fails: told with it
    assert "note: variant of" in err and "replaces cards (all of the base's: kings gets " \
        "none now); adds nothing" in err, err
    with open(tmp_path / "v4.gdl", "a") as f:      # two cards lines: told once
        f.write('cards into stock: card(rank: king, suit: hearts)\n')
    code, out, err = run(capsys, "check", tmp_path / "v4.gdl")
    assert err.count("kings gets none now") == 1, err


def test_check_lists_the_options_on_request(capsys):
    # a game's options were listed only by the REPL (or a misspelt --set)
    code, out, err = run(capsys, "check", GERRY, "--options")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1:3] == ["    size = 5   2..5",
                          "        Side of the grid. The rule text's grid is 5 by 5 (the literal "
                          "reading); a"]
    assert "    line_rule = majority   {majority, plurality}" in lines
    assert "    look_must_move = true   bool" in lines
    code, out, err = run(capsys, "check", GERRY)
    assert len(out.splitlines()) == 1


def test_a_base_named_from_the_folder_gdl_runs_in_gets_the_path_from_the_variants(
        tmp_path, capsys, monkeypatch):
    # `variant of "gerry.gdl"` in sub/v.gdl, run from the folder holding gerry.gdl: no
    # hint where a misspelt name got one
    shutil.copy(GERRY, tmp_path / "gerry.gdl")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "v.gdl").write_text('variant of "gerry.gdl"\ngame "x"\n')
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "check", "sub/v.gdl")
    assert code == 2 and "does not exist (looked for sub/gerry.gdl)" in err
    assert "did you mean '../gerry.gdl'?" in err
    assert "is there from the folder gdl runs in" in err


def test_check_counts_in_the_singular_where_there_is_one(tmp_path, capsys):
    # "1 players ... 1 actions, 1 options"
    (tmp_path / "solo.gdl").write_text('game "solo"\nplayers 1\nvar n: int = 0\naction a():\n'
                                       '    n += 1\noption k: 1..2 = 1\nflow:\n'
                                       '    choose p1: a\n    draw\n')
    code, out, err = run(capsys, "check", tmp_path / "solo.gdl")
    assert code == 0 and out.endswith("solo - 1 player, perfect information; 0 cards, 0 zones, "
                                      "1 action, 1 option\n"), out


def test_what_a_rules_editor_meets_with_variants_and_traces_is_said_plainly(tmp_path, capsys):
    # a summary's misspelling hint named a declaration the same variant replaces
    (tmp_path / "o.gdl").write_text(f'variant of "{DDS}"\n'
                                    'option max_rounds: lo_rounds..1000 = lo_rounds * 2\n'
                                    'option lo_rounds: 1..20 = 3\n')
    code, out, err = run(capsys, "check", tmp_path / "o.gdl")
    assert code == 0 and out.splitlines()[1].endswith(
        "replaces option max_rounds; adds option lo_rounds"), out
    # variants nested too deep blamed the last file read, with no chain
    (tmp_path / "d1.gdl").write_text(f'variant of "{GERRY}"\n')
    for i in range(2, 10):
        (tmp_path / f"d{i}.gdl").write_text(f'variant of "d{i - 1}.gdl"\n')
    code, out, err = run(capsys, "check", tmp_path / "d9.gdl")
    assert code == 2 and "nest deeper than 8 levels: d9.gdl -> d8.gdl" in err
    assert "d1.gdl -> gerry.gdl (each a variant of the next)" in err
    # an option the trace recorded, unknown to the ruleset replayed, was said as if given
    (tmp_path / "m.gdl").write_text(f'variant of "{DDS}"\noption min_cut: 1..4 = 1\n')
    code, out, err = run(capsys, "run", tmp_path / "m.gdl", "-n", "1", "--seed", "2",
                         "--set", "min_cut=3", "--trace", tmp_path / "m.json")
    assert code == 0, err
    code, out, err = run(capsys, "replay", tmp_path / "m.json", "--file", DDS)
    assert code == 2 and "has no option 'min_cut'" in err
    assert "the trace records the options it was made with (min_cut=3)" in err
    # a shuffle recorded where the game is over did not say where the game was
    trace = json.loads((tmp_path / "m.json").read_text())
    trace["steps"].append({"chance": "shuffle deck[p1]: B", "kind": "shuffle", "data": [0]})
    (tmp_path / "over.json").write_text(json.dumps(trace))
    code, out, err = run(capsys, "replay", tmp_path / "over.json")
    assert code == 2 and "where the game is not at one (the game is over)" in err, err


def test_a_check_error_a_variant_causes_on_its_base_names_the_variant(tmp_path, capsys):
    # the error pointed only at the base's line, which the rules editor did not change
    (tmp_path / "v.gdl").write_text(f'variant of "{GERRY}"\n'
                                    'rule turn(p: player, q: player):\n    pass\n')
    code, out, err = run(capsys, "check", tmp_path / "v.gdl")
    assert code == 2 and "gerry.gdl:" in err and "rule turn takes 2 arguments, not 1" in err
    assert "note: this line is of a base of the variant v.gdl, which declares rule turn " \
           "(line 2)" in err


@pytest.mark.parametrize("view, told", [(None, True), ("p2", True), ("p1", False)])
def test_a_replay_stopped_by_a_deadlock_tells_its_why_to_whom_may_read_it(tmp_path, capsys,
                                                                          view, told):
    # the why names the stuck seat's card (`lay 2`): `--view p1` printed it (the review)
    rules = tmp_path / "stuck.gdl"
    rules.write_text('game "Stuck"\nplayers 2\ncard n: 1..4\n'
                     'cards into deck: card(n: i) for i in 1..4\nzone deck: stack\n'
                     'zone hand[player]: set, seen by owner\nzone pile: stack, face up\n'
                     'action lay(c: hand[me]):\n    require count(pile) == 0 or c.n > '
                     'top(pile).n\n    move c to pile\nflow:\n    move bottom(deck) to pile\n'
                     '    move top(deck) to pile\n    deal 1 from deck to hand[p] for p in '
                     'players\n    choose p2: lay\n    draw\n')
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps({"format": "gdl-trace-1", "game": str(rules), "seed": 0,
                                 "steps": [{"player": "p2", "move": "lay 4"}]}))
    code, out, err = run(capsys, "replay", trace, *(["--view", view] if view else []))
    assert code == 2 and "deadlock: p2 must move" in err
    assert ("note: lay, e.g. lay 2: rule lay, line 9" in err) == told, err


def test_replay_of_a_trace_with_an_option_value_of_no_option_type_is_an_error(tmp_path,
                                                                               capsys):
    # a value of 3.0 or a list, edited into a trace, was an internal error (exit 3)
    trace = tmp_path / "t.json"
    assert main(["run", str(GERRY), "-n", "1", "--seed", "1", "--trace", str(trace)]) == 0
    data = json.loads(trace.read_text().splitlines()[0])
    for value, shown in ((3.0, "turns_each=3.0"), (["x"], 'turns_each=["x"]')):
        data["options"] = {"turns_each": value}
        trace.write_text(json.dumps(data))
        code, out, err = run(capsys, "replay", trace)
        assert code == 2 and f"the trace records the options it was made with ({shown})" \
            in err, err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_trace_file_that_cannot_be_written_is_told_with_its_name(capsys):
    # "error: No space left on device", with no file named and no summary
    code, out, err = run(capsys, "run", GERRY, "-n", "2", "--seed", "1", "--trace",
                         "/dev/full")
    assert code == 2 and "2 game(s)" in out
    assert "--trace /dev/full: No space left on device: the traces could not be " \
        "written" in err
