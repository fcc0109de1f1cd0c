"""`benchmarks/counts.py`: bytecodes run are a measure two commits can be compared by, so
they must count what runs, and be the same from run to run."""
from __future__ import annotations

import importlib.util

import pytest
from conftest import ROOT

def _bench_module(name: str):
    """Loads `benchmarks/NAME.py` by path (the folder is not a package)."""
    spec = importlib.util.spec_from_file_location(f"_bench_{name}",
                                                  ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


counts = _bench_module("counts")


def _loop(n):
    total = 0
    for i in range(n):
        total += i
    return total


def test_bytecodes_grow_by_the_same_amount_for_each_round_of_a_loop():
    c = [counts.bytecodes(lambda n=n: _loop(n)) for n in (10, 20, 30)]
    assert c[1] - c[0] == c[2] - c[1] > 0
    assert counts.bytecodes(lambda: None) < c[0]


def test_a_playouts_count_is_the_same_from_run_to_run_and_grows_with_the_game():
    kuhn = ROOT / "rulesets" / "classics" / "kuhn_poker.gdl"
    leduc = ROOT / "rulesets" / "classics" / "leduc_poker.gdl"
    first = counts.per_playout(kuhn, 50)
    assert first == counts.per_playout(kuhn, 50)
    assert 0 < first < counts.per_playout(leduc, 50)


def test_the_parts_add_up_to_the_count_and_name_generated_code_by_what_it_is_for(capsys):
    kuhn = ROOT / "rulesets" / "classics" / "kuhn_poker.gdl"
    parts = {}
    codes, decisions = counts.playout_counts(kuhn, 30, None, parts)
    assert (codes, decisions) == counts.playout_counts(kuhn, 30)
    assert sum(parts.values()) == codes
    assert parts["generated: a seat's move drawn (and run)"] > 0
    assert parts["state.random_run"] > 0
    assert not any(label.startswith("<") for label in parts)    # no file name of its own
    lines = counts.parts_lines({"a": 30, "b": 10, "c": 5, "d": 5}, 10, 2, top=2)
    assert lines == ["         3.0 a decision  60.0%  a", "         1.0 a decision  20.0%  b",
                     "         1.0 a decision  20.0%  the other 2 parts"]
    assert counts.parts_lines({"a": 4}, 0, 2)[0].startswith("         2.0 a playout")
    counts.main(["classics/kuhn_poker.gdl:10", "--parts"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("classics/kuhn_poker.gdl: ") and "% " in out[1]


def test_the_command_line_names_each_ruleset_with_its_count(capsys):
    counts.main(["classics/kuhn_poker.gdl:10"])
    out = capsys.readouterr().out
    assert out.startswith("classics/kuhn_poker.gdl: ") and "bytecodes per playout (10 playouts)" in out


def test_a_bad_option_or_count_is_a_message_not_a_traceback(capsys):
    with pytest.raises(SystemExit) as bad_value:
        counts.main(["pescetti.gdl:1", "-o", "mode=bogus"])
    assert "option mode" in str(bad_value.value.code) and "not 'bogus'" in str(bad_value.value.code)
    for argv, says in ((["-o", "mode"], "is not NAME=VALUE"),
                       (["pescetti.gdl:x"], "is a number of playouts")):
        with pytest.raises(SystemExit):
            counts.main(argv)
        assert says in capsys.readouterr().err


def test_the_benchmarks_fuzz_row_plays_the_fuzzers_playthroughs():
    run = _bench_module("run")
    playthroughs, steps = run.fuzz_rates(ROOT / "rulesets" / "classics" / "kuhn_poker.gdl", 0.3)
    # a Kuhn playthrough is at most a deal and three decisions (less from a start point
    # of the corpus, half the time)
    assert playthroughs > 10 and 1 <= steps / playthroughs <= 4


def _bench_run(monkeypatch):
    run = _bench_module("run")
    monkeypatch.setattr(run, "pin_to_one_core", lambda: None)   # not the test process
    return run


def test_the_benchmark_finds_the_references_beside_the_checkout(monkeypatch):
    # CI and a fresh clone have `shared/` beside the checkout, wherever that is
    run = _bench_run(monkeypatch)
    assert run.REFERENCE == ROOT.parent / "shared" / "bench-reference"


def test_the_benchmark_runs_the_rows_asked_for_against_the_reference_named(
        monkeypatch, capsys, tmp_path):
    run = _bench_run(monkeypatch)
    (tmp_path / "gerry.py").write_text(
        "def playout(rng):\n    return None, 3\n")     # a yardstick that takes no time
    assert run.main(["--games", "gerry", "--seconds", "0.1", "--no-fuzz", "--no-enumerate",
                     "--reference", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "---" not in line]
    assert [r.split(" | ")[0] for r in rows] == ["| game", "| gerry"]
    assert "reference yes" in out
    reference_rate = rows[1].split(" | ")[3]
    assert reference_rate != "-" and float(reference_rate.replace(",", "")) > 0


def test_the_benchmark_says_when_the_references_are_missing(monkeypatch, capsys, tmp_path):
    run = _bench_run(monkeypatch)
    missing = tmp_path / "nowhere"
    assert run.main(["--games", "kuhn_poker", "--seconds", "0.05", "--no-fuzz",
                     "--no-enumerate", "--reference", str(missing)]) == 0
    out = capsys.readouterr().out
    assert f"reference no ({missing} is missing)" in out
    assert "| kuhn_poker |" in out and "| gerry |" not in out


@pytest.mark.parametrize("argv, says", [
    (["--games", "gery"], "no row 'gery': the rows are gerry,"),
    (["--seconds", "0"], "--seconds must be more than 0"),
])
def test_the_benchmarks_arguments_are_checked(monkeypatch, capsys, argv, says):
    run = _bench_run(monkeypatch)
    with pytest.raises(SystemExit) as exit_:
        run.main(argv)
    assert exit_.value.code == 2 and says in capsys.readouterr().err


def test_the_reference_is_counted_over_as_many_games_and_compared_per_decision(
        capsys, tmp_path):
    # a yardstick of a known size: each game two decisions and a loop of 40 rounds
    (tmp_path / "kuhn_poker.py").write_text(
        "def playout(rng):\n"
        "    total = 0\n"
        "    for i in range(40):\n"
        "        total += i\n"
        "    return total, 2\n")
    small = counts.reference_counts("kuhn_poker", 10, tmp_path)
    assert small == counts.reference_counts("kuhn_poker", 10, tmp_path)
    assert small[1] == 20 and counts.reference_counts("kuhn_poker", 20, tmp_path)[1] == 40
    assert counts.reference_counts("leduc_poker", 10, tmp_path) is None
    counts.main(["classics/kuhn_poker.gdl:30", "--reference", "--reference-dir",
                 str(tmp_path)])
    gdl_line, ref_line = capsys.readouterr().out.splitlines()
    # Kuhn takes two or three decisions a game: about as many as the yardstick's two
    per_decision = int(gdl_line.rsplit(", ", 1)[1].split()[0].replace(",", ""))
    r_codes = int(ref_line.split("reference: ")[1].split()[0].replace(",", ""))
    ratio = float(ref_line.split("reference / gdl ")[1].split()[0])
    assert ref_line.endswith("(per decision)") and ", 0 per decision" not in ref_line
    assert ratio == pytest.approx(r_codes / 2 / per_decision, rel=0.02)


def test_reference_counts_need_the_folder_of_the_references(capsys, tmp_path):
    with pytest.raises(SystemExit):
        counts.main(["classics/kuhn_poker.gdl:1", "--reference", "--reference-dir",
                     str(tmp_path / "nowhere")])
    assert "nowhere is missing" in capsys.readouterr().err


def test_a_game_whose_decisions_are_counted_otherwise_is_compared_per_playout():
    # gerry's yardstick counts a turn as one decision, gdl a select and a move as two
    line = counts.reference_line((2000, 40), (1000, 20), 10)
    assert line.endswith("reference / gdl 0.500 (per playout)")
    assert "100 bytecodes per playout, 50 per decision" in line
    assert counts.reference_line((2000, 0), (500, 0), 10).endswith("0.250 (per playout)")
    assert counts.reference_line((2000, 40), (1000, 45), 10).endswith(
        f"{(1000 / 45) / (2000 / 40):.3f} (per decision)")


def test_a_game_played_with_other_options_than_its_references_is_not_compared(
        capsys, tmp_path):
    (tmp_path / "double_down.py").write_text("def playout(rng, n_players=4):\n"
                                             "    return None, 1\n")
    counts.main(["double_down.gdl:1", "-o", "players=2", "--reference", "--reference-dir",
                 str(tmp_path)])
    out = capsys.readouterr().out
    assert "reference: not compared (the benchmark times it with no option)" in out
    assert "reference / gdl" not in out


def test_the_floor_game_answers_as_the_cpp_game_it_replays():
    # the floor under a Python game in OpenSpiel's loop is only a floor if it asks and
    # answers what the real game would, node for node, along the real game's playouts
    pyspiel = pytest.importorskip("pyspiel")
    floor = _bench_module("_floor")
    for name in ("kuhn_poker", "leduc_poker"):
        real, game = pyspiel.load_game(name), floor.floor_game(pyspiel, name)
        shapes = floor._shapes(pyspiel, real, floor.SHAPES)
        lengths = set()
        for shape in shapes[:50]:
            ours, theirs = game.new_initial_state(), real.new_initial_state()
            for *_, action in shape[:-1]:
                assert ours.current_player() == theirs.current_player()
                assert not ours.is_terminal() and not theirs.is_terminal()
                assert ours.is_chance_node() == theirs.is_chance_node()
                if theirs.is_chance_node():
                    assert ours.chance_outcomes() == theirs.chance_outcomes()
                else:
                    assert ours.legal_actions() == theirs.legal_actions()
                ours.apply_action(action)
                theirs.apply_action(action)
            assert ours.is_terminal() and theirs.is_terminal()
            assert ours.returns() == theirs.returns()
            lengths.add(len(shape))
        assert len(lengths) > 1             # the playouts differ, as the real game's do


def test_the_bare_walk_visits_the_states_the_enumeration_counts():
    # the floor under the walk is a floor only if it makes every state the walk makes:
    # as many in a tree (Leduc), and as many distinct ones where lines meet (a small
    # Double Dealing Shuffle, whose simultaneous decisions it steps jointly)
    floor = _bench_module("_floor")
    from interpreter import load
    from interpreter.enumerate import enumerate_states
    leduc = load(ROOT / "rulesets" / "classics" / "leduc_poker.gdl")
    assert floor.bare_walk(leduc) == floor.bare_walk(leduc, keyed=True) == 9457
    small = load(ROOT / "rulesets" / "double_dealing_shuffle.gdl",
                 {"deck_size": "3", "shuffles": "1", "max_rounds": "2", "win_size": "2"})
    assert floor.bare_walk(small, keyed=True) == enumerate_states(small).states == 2030
    assert floor.bare_walk(small) > 2030            # without keys, met states again


def test_turns_times_a_tree_against_a_base_in_paired_turns(capsys):
    # the same checkout against itself, twice with one hash seed: about even, and the
    # option and hash seeds reach the workers (Pescetti refuses an unknown mode)
    turns = _bench_module("turns")
    assert turns.main(["classics/kuhn_poker.gdl", "--base", str(ROOT), "--seconds", "1",
                       "--hash-seed", "0", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["hash seed 0", "hash seed 3"]
    for line in lines:
        ratio = float(line.rsplit("tree/base ", 1)[1].split()[0])
        assert 0.5 < ratio < 2.0
    with pytest.raises(SystemExit, match="a worker failed to start"):
        turns.main(["pescetti.gdl", "--base", str(ROOT), "--seconds", "0.5",
                    "-o", "mode=nosuch"])
