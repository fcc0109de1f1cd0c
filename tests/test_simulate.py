"""interpreter.simulate.play_games: many games, the same in one process as in workers."""
from __future__ import annotations

import json
import pickle
import random
import sys
from collections import Counter

import pytest

from conftest import DEADLOCK, GERRY, RULESETS, load_game
from gdl.errors import CheckError, GdlError, OptionError, RuleError
from interpreter import load_text, simulate
from interpreter.agents import first_agent, play_out, random_agent
from interpreter.simulate import PlayedGame, Tally, play_games, tally_games

DOUBLE_DOWN = RULESETS / "double_down.gdl"


def test_each_game_is_the_one_its_seed_plays():
    games = list(play_games(str(DOUBLE_DOWN), 5, seed=11, options={"players": "3"}))
    game = load_game(DOUBLE_DOWN, players=3)
    assert [g.seed for g in games] == [11, 12, 13, 14, 15]
    for played in games:
        state = game.new_state(played.seed)
        play_out(state, [random_agent] * 3, random.Random(played.seed))
        assert played.returns == tuple(state.returns()) and played.finished
        assert played.steps == len(state.history) and played.trace is None


def test_workers_give_the_games_of_one_process():
    kw = dict(seed=7, agents="random,first", traces=True, tables=True)
    alone = list(play_games(str(GERRY), 9, jobs=1, **kw))
    in_workers = list(play_games(str(GERRY), 9, jobs=2, **kw))
    assert in_workers == alone        # records again, though blocks cross as tuples
    assert all(type(g) is PlayedGame for g in in_workers + alone)
    assert [json.loads(g.trace)["seed"] for g in alone] == list(range(7, 16))
    assert all("game over" in g.table for g in alone)


def test_agents_may_be_functions_a_worker_imports():
    by_name = list(play_games(str(GERRY), 4, seed=2, agents="first,random"))
    assert list(play_games(str(GERRY), 4, seed=2, agents=[first_agent, random_agent],
                           jobs=2)) == by_name


def test_a_rule_error_comes_after_the_games_before_it_whole(tmp_path):
    path = tmp_path / "deadlock.gdl"
    path.write_text(DEADLOCK)
    for jobs in (1, 2):
        run = play_games(str(path), 3, seed=1, jobs=jobs)
        with pytest.raises(RuleError) as info:
            next(run)
        assert info.value.rule == "flow" and info.value.span.line == 13
        assert "deadlock: p2 must move" in str(info.value) and "choose p: take" in str(info.value)


def test_user_errors_are_raised_at_the_call(tmp_path):
    with pytest.raises(OptionError, match="1 or more"):
        play_games(str(GERRY), 0)
    with pytest.raises(OptionError, match="did you mean 'random'"):
        play_games(str(GERRY), 3, agents="randm")
    with pytest.raises(OptionError, match="3 agents for 2 seats"):
        play_games(str(GERRY), 3, agents=[random_agent] * 3)
    with pytest.raises(OptionError, match="between 2 and 5"):
        play_games(str(GERRY), 3, options={"size": "9"})


def test_closing_a_run_early_stops_its_workers():
    run = play_games(str(DOUBLE_DOWN), 5000, seed=1, jobs=2)
    first = next(run)
    run.close()
    assert first.seed == 1
    with pytest.raises(StopIteration):
        next(run)


def _tally_of(games, seats):
    """The summary's figures of played games, worked out here the plain way."""
    from fractions import Fraction
    outcomes = Counter(simulate.outcome_label(g.finished, g.returns) for g in games)
    means = [float(sum(Fraction(g.returns[k]) for g in games) / len(games))
             for k in range(seats)]
    return (len(games), sum(g.steps for g in games), max(g.steps for g in games),
            outcomes, means)


def _figures(tally):
    return tally.games, tally.steps, tally.longest, tally.outcomes(), tally.mean_returns()


@pytest.mark.parametrize("path, options", [(GERRY, {}), (DOUBLE_DOWN, {"players": "3"}),
                                           (RULESETS / "evil_deal.gdl", {})])
def test_tallies_sum_up_the_games_play_games_plays_in_one_process_or_in_workers(
        path, options):
    games = list(play_games(str(path), 60, seed=4, options=options, agents="random,first"))
    want = _tally_of(games, len(games[0].returns))
    for jobs in (1, 2):
        run = tally_games(str(path), 60, seed=4, options=options, agents="random,first",
                          jobs=jobs)
        total = Tally(run.game.num_players)
        blocks = list(run)
        for block in blocks:
            total.merge(block)
        assert _figures(total) == want
        assert jobs == 2 or [b.games for b in blocks] == [60]   # one block of 250 at most
    # the draws, the wins of several seats and the unfinished games are told apart
    assert simulate.outcome_label(True, (1.0, 1.0)) == "draw"
    assert simulate.outcome_label(True, (2.0, -1.0, 2.0)) == "win 0+2"
    assert simulate.outcome_label(False, (1.0, -1.0)) == "unfinished"


def test_a_tallys_mean_returns_are_exact_however_the_games_are_split():
    # thirds do not add up exactly as floats: summed in another order, or in blocks, the
    # float totals differ in their last bits; a tally's do not
    ends = [(True, (1 / 3, -1 / 3), 5), (True, (-0.1, 0.1), 7), (False, (0.7, 0.2), 9)]
    games = [ends[i % 3] for i in range(1000)] + [ends[0]] * 7
    alone = Tally(2)
    for game in games:
        alone.add(*game)
    for cut in (1, 10, 333, 500):
        first, second = Tally(2), Tally(2)
        for game in games[:cut]:
            first.add(*game)
        for game in games[cut:]:
            second.add(*game)
        second.merge(first)                 # the other order, too
        assert _figures(second) == _figures(alone)
        assert pickle.loads(pickle.dumps(second)).mean_returns() == alone.mean_returns()
    from fractions import Fraction
    exact = sum(Fraction(g[1][0]) for g in games) / len(games)
    assert alone.mean_returns()[0] == float(exact)
    assert alone.outcomes() == Counter({"win 0": 334 + 7, "win 1": 333, "unfinished": 333})


def test_a_tally_of_many_kinds_of_end_keeps_only_a_few_unfolded():
    tally = Tally(2)
    for i in range(10_000):
        tally.add(True, (float(i), -float(i)), 1)
    assert len(tally._ends) < Tally.PENDING
    assert tally.mean_returns() == [4999.5, -4999.5] and tally.games == 10_000
    assert tally.outcomes() == Counter({"win 0": 9999, "draw": 1})


def test_a_rule_error_ends_a_tally_run_where_its_block_would_come(tmp_path):
    import multiprocessing
    path = tmp_path / "deadlock.gdl"
    path.write_text(DEADLOCK)
    before = {p.pid for p in multiprocessing.active_children()}
    for call in (tally_games, play_games):
        for jobs in (1, 2):
            run = call(str(path), 3, seed=1, jobs=jobs)
            with pytest.raises(RuleError, match="deadlock: p2 must move"):
                next(run)
            # the workers are stopped with the error, not when it is collected
            assert {p.pid for p in multiprocessing.active_children()} <= before
    with pytest.raises(OptionError, match="1 or more"):
        tally_games(str(GERRY), 0)


def _sigint_state():
    import signal
    blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())
    return blocked, signal.getsignal(signal.SIGINT)


@pytest.mark.skipif(not hasattr(__import__("signal"), "pthread_sigmask"), reason="no masks")
def test_workers_are_born_deaf_to_ctrl_c_and_the_parent_keeps_its_handler():
    """A Ctrl-C while a worker starts up (before the pool's initializer runs) must not
    print its traceback: it is born with SIGINT blocked; the initializer ignores it."""
    import signal
    from interpreter._workers import ignore_interrupts, worker_pool
    before = _sigint_state()
    for initializer, born in ((None, (True, signal.default_int_handler)),
                              (ignore_interrupts, (False, signal.SIG_IGN))):
        pool = worker_pool(1, initializer, ())
        try:
            assert pool.submit(_sigint_state).result(timeout=60) == born
        finally:
            pool.shutdown()
        assert _sigint_state() == before


@pytest.mark.skipif(not hasattr(__import__("signal"), "pthread_sigmask"), reason="no masks")
def test_a_ctrl_c_while_a_worker_starts_waits_for_the_start_and_the_worker_is_stopped(
        monkeypatch):
    """The parent's Ctrl-C during a start is raised once the worker is running, and the
    worker, which the pool never recorded, is stopped with the rest (it printed a
    traceback when the parent left under it)."""
    import os
    import signal
    from multiprocessing.context import SpawnProcess
    from interpreter._workers import ignore_interrupts, stop_now, worker_pool
    real_start = SpawnProcess.start

    def ctrl_c_then_start(self):
        os.kill(os.getpid(), signal.SIGINT)     # pressed as the start begins
        real_start(self)
    monkeypatch.setattr(SpawnProcess, "start", ctrl_c_then_start)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    pool = worker_pool(1, ignore_interrupts, ())
    try:
        with pytest.raises(KeyboardInterrupt):
            pool.submit(_sigint_state)
        (worker,) = pool._mp_context.started
        assert worker.pid is not None and worker.is_alive()
        assert worker not in pool._processes.values()
    finally:
        stop_now(pool)
        signal.signal(signal.SIGINT, previous)
    assert worker.exitcode is not None


def test_a_pool_stopped_before_its_thread_started_is_stopped_quietly():
    # Ctrl-C as the workers start (`gdl fuzz -j 2`) came between the pool's thread being
    # made and started: joining it was "RuntimeError: cannot join thread before it is
    # started", an internal error
    import threading
    from interpreter._workers import ignore_interrupts, stop_now, worker_pool
    pool = worker_pool(1, ignore_interrupts, ())
    pool._executor_manager_thread = threading.Thread(target=lambda: None)
    stop_now(pool)


def _large_result(size: int) -> bytes:
    """A result that takes a while to go through the pool's pipe."""
    return b"x" * size


def _reading_a_message(thread) -> bool:
    """Whether `thread` is part-way through receiving a message."""
    frame = sys._current_frames().get(thread.ident)
    while frame is not None:
        if frame.f_code.co_name == "_recv_bytes":
            return True
        frame = frame.f_back
    return False


def test_a_worker_stopped_while_it_sends_a_result_leaves_no_thread_waiting():
    """Ctrl-C while a worker sends a block of games back: `stop_now` ends the worker in
    the middle of the message, and the pool's thread, which was reading it, must stop
    too (Python's exit joins that thread: `gdl run -j 2` hung after its summary)."""
    import time
    from interpreter._workers import ignore_interrupts, stop_now, worker_pool
    pool = worker_pool(1, ignore_interrupts, ())
    try:
        done = pool.submit(_large_result, 300 << 20)
        thread = pool._executor_manager_thread
        deadline = time.monotonic() + 60
        while not _reading_a_message(thread) and time.monotonic() < deadline:
            time.sleep(0.001)
        assert _reading_a_message(thread) and not done.done()
    finally:
        stop_now(pool)
    thread.join(timeout=20)
    assert not thread.is_alive()

def test_a_stopped_pool_has_closed_its_wake_up_pipe_before_stop_now_returns():
    """Python's exit writes to each pool's wake-up pipe without the lock the pool's thread
    closes it under: where that thread was still closing it, a Ctrl-C's exit printed
    "Exception ignored ... handle is closed".  `stop_now` waits for the thread."""
    import time
    from interpreter._workers import ignore_interrupts, stop_now, worker_pool
    pool = worker_pool(2, ignore_interrupts, ())
    try:
        for _ in range(4):
            pool.submit(time.sleep, 30)
        thread, wakeup = pool._executor_manager_thread, pool._executor_manager_thread_wakeup
        time.sleep(0.3)                             # the workers are sleeping
    finally:
        stop_now(pool)
    assert not thread.is_alive() and wakeup._closed



def test_errors_pickle_with_all_their_fields(tmp_path):
    """Workers send errors to the parent pickled: the text it prints must survive."""
    state = load_text(DEADLOCK, path="deadlock.gdl").new_state(1)
    with pytest.raises(RuleError) as info:
        play_out(state, [random_agent] * 2, random.Random(1))
    with pytest.raises(CheckError) as bad:
        load_text('game "x"\nplayers 2\nzone stock: stack\nflow:\n    shuffle stok\n',
                  path="bad.gdl")
    for err in (info.value, bad.value, OptionError("no", suggestion="yes", notes=("n",))):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and isinstance(back, GdlError)
        assert str(back) == str(err) and back.__dict__.keys() == err.__dict__.keys()


def test_workers_play_the_game_the_call_loaded_even_if_the_file_changes(tmp_path):
    """The workers are given the checked rules, not the file's path: an edit made while
    the games run (a designer at work) cannot give the workers another game."""
    path = tmp_path / "game.gdl"
    path.write_text((RULESETS / "gerry.gdl").read_text())
    want = [g.returns for g in play_games(str(path), 40, seed=3)]
    run = play_games(str(path), 40, seed=3, jobs=2)
    path.write_text("this is not a ruleset")
    assert [g.returns for g in run] == want


def test_a_script_that_stops_reading_early_does_not_wait_for_every_game(tmp_path):
    """Python waits at exit for the work handed to a pool: only a few blocks at a time are
    handed out, so a script that takes one game of a million and ends, ends."""
    import os
    import signal
    import subprocess
    import sys
    import time
    script = tmp_path / "early.py"
    script.write_text(
        "from interpreter.simulate import play_games\n"
        "if __name__ == '__main__':\n"
        f"    run = play_games({str(GERRY)!r}, 1_000_000, jobs=2)\n"
        "    print(next(run).seed)\n")
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=60)
    finally:                            # the workers too, if it failed
        if proc.poll() is None or time.monotonic() - start >= 20:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:  # all gone already
                pass
    assert proc.returncode == 0 and out.strip() == "0", err
    assert time.monotonic() - start < 20


def test_a_worker_killed_from_outside_ends_the_run_instead_of_a_wait():
    import multiprocessing
    import os
    import signal
    import threading
    from concurrent.futures.process import BrokenProcessPool
    before = {p.pid for p in multiprocessing.active_children()}
    run = play_games(str(RULESETS / "evil_deal.gdl"), 100_000, seed=1, jobs=2)
    next(run)
    workers = [p for p in multiprocessing.active_children()       # this run's own
               if "resource" not in p.name and p.pid not in before]
    os.kill(workers[0].pid, signal.SIGKILL)
    raised = []

    def drain():
        try:
            for _ in run:
                pass
        except BrokenProcessPool as err:
            raised.append(err)
    waiting = threading.Thread(target=drain, daemon=True)
    waiting.start()
    waiting.join(60)
    assert raised and not waiting.is_alive()


def test_one_worker_per_core_counts_the_cores_this_process_may_use(monkeypatch):
    """`-j 0` under `taskset` or in a container: the cores allowed, not the machine's."""
    import os
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert simulate.usable_cores() == 1
    monkeypatch.setattr(simulate, "_in_workers", None)      # one core: no worker
    assert [g.seed for g in play_games(str(GERRY), 5, jobs=0)] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("call", [
    "play_games(RULES, 50, jobs=2)",
    "fuzz(RULES, budget=1, jobs=2, write_traces=False)",
])
def test_a_script_without_the_main_guard_is_told_to_add_it(tmp_path, call):
    """Spawned workers import the script again; instead of multiprocessing's page-long
    RuntimeError, each says what to do and the script's call says what happened."""
    import subprocess
    import sys
    script = tmp_path / "script.py"
    script.write_text(
        "from interpreter.fuzz import fuzz\n"
        "from interpreter.simulate import play_games\n"
        f"RULES = {str(GERRY)!r}\n"
        f"result = {call}\n"
        "list(result) if not hasattr(result, 'findings') else None\n")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0
    assert 'under `if __name__ == "__main__":`' in proc.stderr
    assert "OptionError" in proc.stderr and "RuntimeError" not in proc.stderr
    assert proc.stderr.rstrip().splitlines()[-1].startswith(
        "concurrent.futures.process.BrokenProcessPool: a worker process stopped")


def test_the_documented_example_runs_as_a_script(tmp_path):
    """docs/language.md's `play_games` example, with fewer games, saved as a script."""
    import ast
    import subprocess
    import sys
    from pathlib import Path
    docs = (Path(__file__).parent.parent / "docs" / "language.md").read_text()
    start = docs.index("```python\nfrom interpreter.simulate import play_games") + 10
    code = docs[start:docs.index("```", start)].replace("100_000", "300")
    script = tmp_path / "example.py"
    script.write_text(code)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, cwd=Path(__file__).parent.parent)
    assert proc.returncode == 0, proc.stderr
    wins = ast.literal_eval(proc.stdout)      # the script prints a list of three counts
    assert len(wins) == 3 and sum(wins) == 300


def test_games_counted_and_tallied_leave_their_shuffles_lines_unmade(monkeypatch):
    # a shuffle's line (every card named) is made only when the history is read; a
    # game's record and tally need its length alone
    from interpreter.state import State

    def made(state):
        raise AssertionError("a history line was made")
    monkeypatch.setattr(State, "_make_lines", made)
    games = list(play_games(str(DOUBLE_DOWN), 3, seed=2))
    assert all(g.finished and g.steps > 100 for g in games)
    (tally,) = list(tally_games(str(DOUBLE_DOWN), 3, seed=2))
    assert tally.games == 3 and tally.steps == sum(g.steps for g in games)
