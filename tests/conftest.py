"""Shared fixtures: paths to rulesets and a loader with option overrides."""
from __future__ import annotations

import random
from pathlib import Path

import pytest


def ctrl_c(argv, ready=None, wait: float = 3.0, timeout: float = 60.0, sig=None):
    """Runs `argv` in a process group of its own, presses Ctrl-C (SIGINT to the group) once
    `wait` seconds have passed and `ready(pid)` holds (up to `timeout` more), and returns
    (exit status, stdout, stderr) as texts.  The child starts with SIGINT's default
    action: a test run started as a shell's background job has SIGINT ignored, which its
    children (Python among them) would keep, and Ctrl-C would do nothing.  The group is
    killed if anything is left of it.  `sig`: another signal to send (SIGTERM, say)."""
    import os
    import signal
    import subprocess
    import time

    def default_sigint():
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=default_sigint)
    try:
        time.sleep(wait)
        deadline = time.monotonic() + timeout
        while ready is not None and not ready(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGINT if sig is None else sig)
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out.decode(), err.decode()
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:              # all gone, as it should be
            pass


ROOT = Path(__file__).resolve().parent.parent
RULESETS = ROOT / "rulesets"
GERRY = RULESETS / "gerry.gdl"
DDS = RULESETS / "double_dealing_shuffle.gdl"

#: two seats holding the cards 1 to 4 each, and a pile (the head of the tests' games)
FOUR_EACH = '''game "t"
players a, b
card n: 1..4
cards into hand[p]: card(n: k) for p in player for k in 1..4
zone hand[player]: stack
zone pile: stack
'''


#: a game that deals three cards to four `take` moves: a rule error (deadlock) in every
#: game, at 13:13 (docs/language.md's example of a rule error)
DEADLOCK = """game "t"
players p1, p2
card n: 1..3
cards into deck: card(n: k) for k in 1..3
zone deck: stack
zone hand[player]: stack
action take(c: deck) "Take any card of the deck":
    move c to hand[me]
flow:
    shuffle deck
    repeat 2:
        for p in players:
            choose p: take
    draw
"""


def load_game(path, **options):
    """Returns the game of a ruleset with option overrides given as keywords."""
    from interpreter import load
    return load(str(path), {k: str(v).lower() if isinstance(v, bool) else str(v)
                            for k, v in options.items()})


def fused_and_plain(monkeypatch, text: str, play) -> list:
    """`[play(game)]` of a ruleset's text loaded with generated code, then with the plain
    closures alone (`interpreter._fuse.ENABLED`): a shape of generated code must give
    what the closures give."""
    from interpreter import _fuse, load_text
    got = []
    for enabled in (True, False):
        monkeypatch.setattr(_fuse, "ENABLED", enabled)
        got.append(play(load_text(text)))
    return got


def random_playout(state, rng: random.Random, max_steps: int = 20_000):
    """Plays a state to the end with uniformly random moves; returns it."""
    steps = 0
    while not state.is_terminal() and steps < max_steps:
        steps += 1
        if state.is_chance():
            state.apply(state.sample_chance(rng))
        else:
            for seat in state.to_move():
                moves = state.legal_moves(seat)
                state.apply(moves[rng.randrange(len(moves))], seat)
    return state


def out_and_lines(game, seed: int) -> tuple:
    """A game of random agents played from one seed: its variable `out` and its history's
    (seat, text) lines, or ("error", the first line of the rule error that ended it)."""
    from gdl.errors import RuleError
    from interpreter.agents import AGENTS, play_out
    state = game.new_state()
    try:
        play_out(state, [AGENTS["random"]] * game.num_players, random.Random(seed))
    except RuleError as err:
        return "error", str(err).splitlines()[0]
    return (dict(zip(game.prog.var_names, state.vars))["out"],
            [tuple(h[:2]) for h in state.history])


def joint_and_applied(game, seed: int) -> tuple:
    """The game played from one seed twice to its end: by generated joint steps
    (`random_joint_step`) and by `random_move` and `apply` for each seat, which draw
    alike; returns both states, for a test to compare."""
    fast, slow = game.new_state(), game.new_state()
    rf, rs = random.Random(seed), random.Random(seed)
    while not fast.is_terminal():
        fast.random_joint_step(rf)
        for seat in slow.to_move():
            slow.apply(slow.random_move(rs, seat), seat)
    return fast, slow


@pytest.fixture(autouse=True, scope="session")
def _temporary_files_under_pytests_folder(tmp_path_factory):
    """`gdl fuzz` and `gdl diff` write their traces to a new temporary folder unless told
    where: a test run's go under pytest's own folder (it keeps the last three runs), not
    into /tmp for ever (600 folders had gathered there), in this process and in the
    commands tests start."""
    import os
    import tempfile
    folder = str(tmp_path_factory.mktemp("tempfiles"))
    old_dir, old_env = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir, os.environ["TMPDIR"] = folder, folder
    yield
    tempfile.tempdir = old_dir
    if old_env is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = old_env


@pytest.fixture
def gerry():
    return load_game(GERRY)


@pytest.fixture
def dds():
    return load_game(DDS)
