"""The gdl command as a user runs it: exit codes, summaries, traces, no tracebacks."""
from __future__ import annotations

import json

import pytest

from conftest import DDS, GERRY
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


def test_run_one_game_shows_the_final_table(capsys):
    code, out, err = run(capsys, "run", DDS, "--seed", 1, "--set", "max_rounds=3")
    assert code == 0, err
    assert "final table" in out and "deck[p1]" in out and "max_rounds=3" in out


@pytest.mark.parametrize("argv, message", [
    (["run", GERRY, "--set", "line_rul=plurality"], "did you mean 'line_rule'"),
    (["run", GERRY, "--set", "line_rule=plural"], "did you mean 'plurality'"),
    (["run", GERRY, "--set", "size=9"], "between 2 and 5"),
    (["run", GERRY, "--set", "size"], "name=value"),
    (["run", GERRY, "--agents", "randm"], "did you mean 'random'"),
    (["replay", "no-such-trace.jsonl"], "cannot read"),
    (["check", "no-such-file.gdl"], "cannot read"),
])
def test_user_errors_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert message in err and "Traceback" not in err


def test_bench_reports_rates(capsys):
    code, out, err = run(capsys, "bench", GERRY, "--seconds", "0.3")
    assert code == 0, err
    assert "playouts/s" in out and "decisions/s" in out
