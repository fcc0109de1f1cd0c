"""PBN: boards dealt by rulesets/pescetti.gdl go to a PBN file that endplay reads back
hand for hand; target deals read from PBN go through pescetti_inverse.gdl, whose sheets
dealt by pescetti.gdl give back the same hands; and `gdl pbn` does both.

The PBN writer and reader need no package; the endplay checks skip without `endplay`."""
from __future__ import annotations

import argparse
import random
import re

import pytest

from conftest import RULESETS, load_game
from gdl.errors import OptionError
from interpreter.integrations.pbn import (PbnError, board_dealer, board_vulnerable,
                                          normal_deal, parse_deal, pbn_text, read_pbn_deals,
                                          read_pbn_tags, write_pbn)

PESCETTI = RULESETS / "pescetti.gdl"
INVERSE = RULESETS / "pescetti_inverse.gdl"
SEATS = ("north", "east", "south", "west")
PBN_EXAMPLE = "N:.63.AKQ987.A9732 A8654.KQ5.T.QJT6 J973.J98742.3.K4 KQT2.AT.J6542.85"


def finish(state, seed: int):
    """Plays a game without decisions to its end, chance drawn from `seed`."""
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply(state.sample_chance(rng))
    return state


def holdings(state, seat: str) -> list:
    """Returns the seat's hand in the state as [spades, hearts, diamonds, clubs] sets."""
    cards = [c.text for c in state.cards_in(f"hand[{seat}]")]
    return [{c[0] for c in cards if c[1] == suit} for suit in "SHDC"]


def endplay_holdings(hand) -> list:
    return [set(h) for h in hand.to_pbn().split(".")]


@pytest.fixture(scope="module")
def random_boards():
    game = load_game(PESCETTI, mode="random")
    return [finish(game.new_state(seed), seed) for seed in range(6)]


def test_random_boards_read_back_with_endplay(random_boards, tmp_path):
    """Every hand of every board, as endplay reads the file, is the hand the ruleset
    dealt to that seat; board numbers, dealers and vulnerability follow the cycle."""
    endplay_pbn = pytest.importorskip("endplay.parsers.pbn")
    from endplay.types import Player, Vul
    path = tmp_path / "boards.pbn"
    assert write_pbn(random_boards, path) == 6
    with open(path, encoding="utf-8") as f:
        boards = endplay_pbn.load(f)
    assert len(boards) == 6
    players = (Player.north, Player.east, Player.south, Player.west)
    vul = {"None": Vul.none, "NS": Vul.ns, "EW": Vul.ew, "All": Vul.both}
    for number, (state, board) in enumerate(zip(random_boards, boards), 1):
        assert board.board_num == number
        assert board.dealer == players["NESW".index(board_dealer(number))]
        assert board.vul == vul[board_vulnerable(number)]
        for seat, player in zip(SEATS, players):
            assert endplay_holdings(board.deal[player]) == holdings(state, seat)


def test_boards_differ_and_read_back(random_boards, tmp_path):
    path = tmp_path / "boards.pbn"
    write_pbn(random_boards, path, first_board=5)
    deals = read_pbn_deals(path)
    assert deals == [s.game.evaluate("deal_pbn", s) for s in random_boards]
    assert len(set(deals)) == 6
    assert [t["Board"] for t in read_pbn_tags(path)] == ["5", "6", "7", "8", "9", "10"]


def targets():
    """Target deals: the PBN standard's example, and the same hands given from East."""
    hands = parse_deal(PBN_EXAMPLE)
    from_east = "E:" + " ".join(".".join(hands[s]) for s in "ESWN")
    return [PBN_EXAMPLE, from_east]


def test_target_round_trip(tmp_path):
    """target PBN -> read -> pescetti_inverse (suit order and row 1 random) -> its sheets
    dealt by pescetti.gdl (mode given) -> the target's hands, seat by seat."""
    path = tmp_path / "targets.pbn"
    write_pbn(targets(), path)
    for seed, target in enumerate(read_pbn_deals(path)):
        inverse = finish(load_game(INVERSE, target=target).new_state(seed), seed)
        rows = {v: inverse.game.evaluate(v, inverse)
                for v in ("order", "permutation_1", "permutation_2")}
        dealt = finish(load_game(PESCETTI, suit_order=rows["order"], row1=rows["permutation_1"],
                                 row2=rows["permutation_2"]).new_state(0), 0)
        want = parse_deal(target)
        for seat, letter in zip(SEATS, "NESW"):
            assert holdings(dealt, seat) == [set(h) for h in want[letter]]
        assert normal_deal(dealt.game.evaluate("deal_pbn", dealt)) == normal_deal(target)


def test_reader_follows_the_standard(tmp_path):
    """`#` repeats the previous game's value; comments and non-tag lines are skipped."""
    path = tmp_path / "odd.pbn"
    path.write_text('% PBN 2.1\n[Event "x"] ; a comment\n{ a brace\ncomment }\n'
                    f'[Board "1"]\n[Deal "{PBN_EXAMPLE}"]\n1S Pass\n\n'
                    '[Event "#"]\n[Board "2"]\n[Deal "#"]\n\n[Board "3"]\n', encoding="utf-8")
    tags = read_pbn_tags(path)
    assert [t.get("Event") for t in tags] == ["x", "x", None]
    assert read_pbn_deals(path) == [PBN_EXAMPLE, PBN_EXAMPLE]


def test_a_file_in_the_standards_latin_1_is_read(tmp_path):
    # the PBN standard's character set: 'é' as one byte was an internal UnicodeDecodeError
    path = tmp_path / "old.pbn"
    path.write_bytes(f'[Event "Coupe d\xe9partementale"]\n[Board "1"]\n[Deal "{PBN_EXAMPLE}"]'
                     f'\n'.encode("latin-1"))
    assert read_pbn_tags(path)[0]["Event"] == "Coupe départementale"


@pytest.mark.parametrize("deal,message", [
    ("X:" + PBN_EXAMPLE[2:], "must start with"),
    (PBN_EXAMPLE.rsplit(" ", 1)[0], "3 hands"),
    (PBN_EXAMPLE.replace(".63.", ".63X."), "not a rank"),
    (PBN_EXAMPLE.replace("A9732", "A9733"), "twice"),
    (PBN_EXAMPLE.replace(".AT.", ".A."), "51 cards"),
])
def test_bad_deals_are_refused(deal, message):
    with pytest.raises(PbnError, match=message):
        pbn_text([deal])


def gdl_pbn(*argv) -> int:
    """Runs `gdl pbn ...` through the command's own parser (as gdl/cli.py registers it)."""
    from gdl.pbn_cmd import add_pbn_parser
    parser = argparse.ArgumentParser(prog="gdl")
    add_pbn_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["pbn", *argv])
    return args.func(args)


def test_cli_deal_then_target(tmp_path, capsys):
    boards, dealt = tmp_path / "boards.pbn", tmp_path / "dealt.pbn"
    assert gdl_pbn("deal", str(PESCETTI), "-n", "3", "--seed", "4", "--set", "mode=random",
                   "-o", str(boards)) == 0
    assert gdl_pbn("target", str(INVERSE), str(boards), "-o", str(dealt)) == 0
    out = capsys.readouterr().out
    assert out.count("--- board") == 3 and "board 3, permutation 2" in out
    assert [normal_deal(d) for d in read_pbn_deals(dealt)] == \
        [normal_deal(d) for d in read_pbn_deals(boards)]


def test_the_reader_takes_the_import_format_as_the_standard_writes_it(tmp_path):
    # a repeated tag was the last copy, a tag over two lines and escapes were not read,
    # a `{` in a `;` comment or in a value swallowed the rest of the file
    other = normal_deal("E" + PBN_EXAMPLE[1:])
    path = tmp_path / "import.pbn"
    path.write_text(f'[Event "A \\"B\\" C:\\\\d {{not a comment"]\n'
                    f'[Board "1"] ; see {{note\n[Deal "{PBN_EXAMPLE}"]\n[Deal "{other}"]\n\n'
                    f'[Board\n  "2"]\n[Deal\n"{other}"]\n{{ a comment\n\nover lines }}\n'
                    f'[Event "#"]\n', encoding="utf-8")
    tags = read_pbn_tags(path)
    assert [t["Board"] for t in tags] == ["1", "2"]
    assert tags[0]["Event"] == 'A "B" C:\\d {not a comment' == tags[1]["Event"]
    assert read_pbn_deals(path) == [PBN_EXAMPLE, other]


def test_the_writer_escapes_values_in_latin_1(tmp_path):
    # a quote in the event made a malformed tag; the file was UTF-8, not the standard's
    path = tmp_path / "out.pbn"
    write_pbn([PBN_EXAMPLE], path, event='Coupe "d\u00e9p" C:\\x')
    assert '[Event "Coupe \\"d\xe9p\\" C:\\\\x"]' in path.read_bytes().decode("latin-1")
    assert read_pbn_tags(path)[0]["Event"] == 'Coupe "d\u00e9p" C:\\x'
    for bad in ("line\nbreak", "\u2665 hearts"):
        with pytest.raises(PbnError, match="Latin-1"):
            pbn_text([PBN_EXAMPLE], event=bad)


def test_a_deal_that_leaves_a_hand_out_is_named(tmp_path):
    # "N's hand '-' has 1 suits, not 4", and no word of which game
    path = tmp_path / "partial.pbn"
    path.write_text(f'[Board "7"]\n[Deal "{PBN_EXAMPLE}"]\n\n[Board "8"]\n'
                    '[Deal "W:KQT2.AT.J6542.85 - A8654.KQ5.T.QJT6 -"]\n', encoding="utf-8")
    with pytest.raises(PbnError, match=r"game 2, Board 8: .* leaves N's hand out \('-'\)"):
        read_pbn_deals(path)


def test_a_value_of_a_hash_alone_is_refused():
    # written as it was, it read back as the previous game's value
    with pytest.raises(PbnError, match="'#' alone"):
        pbn_text([PBN_EXAMPLE], event="#")


# ------------------------------------------------------------------ a club director's files
def _board(number, deal=PBN_EXAMPLE, dealer=None, vulnerable=None) -> str:
    tags = [f'[Board "{number}"]'] if number is not None else []
    tags += [f'[Dealer "{dealer}"]'] if dealer else []
    tags += [f'[Vulnerable "{vulnerable}"]'] if vulnerable else []
    tags += [f'[Deal "{deal}"]'] if deal is not None else []
    return "\n".join(tags) + "\n\n"


def test_target_keeps_the_files_board_numbers_dealers_and_vulnerability(tmp_path, capsys):
    # boards were numbered from 1 in the order read: board 3 written (and its sheets
    # labelled) as board 1, a target's Dealer W and Vulnerable All written as N and None
    other = normal_deal("E" + PBN_EXAMPLE[1:])
    path, out = tmp_path / "t.pbn", tmp_path / "dealt.pbn"
    path.write_text(_board(19, other, "W", "All") + _board(3), encoding="utf-8")
    assert gdl_pbn("target", str(INVERSE), str(path), "--seed", "1", "-o", str(out)) == 0
    shown = capsys.readouterr().out
    assert shown.index("--- board 19") < shown.index("--- board 3")
    assert "board 19, permutation 1" in shown and "board 3, permutation 2" in shown
    tags = read_pbn_tags(out)
    assert [(t["Board"], t["Dealer"], t["Vulnerable"]) for t in tags] == [
        ("19", "W", "All"), ("3", "S", "EW")]
    assert [t["Deal"] for t in tags] == [normal_deal(other), PBN_EXAMPLE]


@pytest.mark.parametrize("text, message", [
    ("", "holds no board with a Deal"),
    ("\x00\x01binary\xff" * 40, "holds no board with a Deal"),
    (_board(1) + _board(2, deal=None) + _board(3), "game 2, Board 2: the board has no Deal"),
    (_board(1) + _board(1, normal_deal("E" + PBN_EXAMPLE[1:])), "game 1 is Board 1 too"),
    (_board(1).rstrip("\n") + "\n" + _board(2), "holds Board 1 and Board 2: an empty line"),
    (_board(0), "a board's number is a whole number from 1"),
    (_board(7, PBN_EXAMPLE.replace(" A8654", "6 A8654").replace("QJT6", "QJT")),
     "Board 7: the Deal .* gives N 14 cards, not 13"),
    (_board(None) + _board(1), "boards 1 and 2 are both Board 1"),
])
def test_target_refuses_what_it_cannot_deal_by_board(tmp_path, text, message):
    # an empty, binary or numberless file "wrote 0 board(s)"; a board without a Deal was
    # skipped and the next took its number; two boards without an empty line were one
    path = tmp_path / "t.pbn"
    path.write_text(text, encoding="latin-1")
    with pytest.raises(PbnError, match=message):
        gdl_pbn("target", str(INVERSE), str(path), "--seed", "1")


def test_target_reads_deals_as_other_software_writes_them(tmp_path, capsys):
    # lower-case letters and tabs reached the ruleset as written: its own errors, no board
    lower = PBN_EXAMPLE.lower().replace(" ", "\t")
    path = tmp_path / "t.pbn"
    path.write_text(_board(4, lower), encoding="utf-16")         # with its byte order mark
    assert gdl_pbn("target", str(INVERSE), str(path), "--seed", "1") == 0
    assert "board 4, permutation 2" in capsys.readouterr().out


def test_a_boards_seed_is_made_from_the_runs_seed_and_its_number(tmp_path, capsys):
    # board i had seed S + i: seed 2's boards 1-2 were seed 1's boards 2-3; without
    # --seed every run had seed 0, so every event's first sheet was the same
    def dealt(*extra):
        out = tmp_path / "b.pbn"
        gdl_pbn("deal", str(PESCETTI), "-n", "3", "--set", "mode=random", "-o", str(out),
                *extra)
        return read_pbn_deals(out), capsys.readouterr().err
    one, _ = dealt("--seed", "1")
    two, _ = dealt("--seed", "2")
    assert one == dealt("--seed", "1")[0] and not set(one) & set(two)
    drawn, told = dealt()
    seed = re.search(r"seed (\d+) \(drawn\): `--seed \1` deals these boards again", told)[1]
    assert dealt("--seed", seed)[0] == drawn


def test_boards_that_are_all_one_deal_are_noted_and_board_0_is_refused(tmp_path, capsys):
    assert gdl_pbn("deal", str(PESCETTI), "-n", "2", "--seed", "1") == 0
    assert "note: the 2 boards are all the same deal" in capsys.readouterr().err
    with pytest.raises(OptionError, match="--first-board is a board number from 1, not 0"):
        gdl_pbn("deal", str(PESCETTI), "--first-board", "0")
    with pytest.raises(PbnError, match="board numbers start at 1, not -5"):
        pbn_text([{"deal": PBN_EXAMPLE, "board": -5}])


def test_a_deal_is_written_from_north_in_order_in_capitals():
    # a Deal in lower case, unsorted, from East, was written as the ruleset had it
    east = "e:" + " ".join(".".join(s[::-1] for s in h.split(".")) for h in
                           PBN_EXAMPLE[2:].lower().split())
    assert f'[Deal "{normal_deal("E" + PBN_EXAMPLE[1:])}"]' in pbn_text([east])


def test_a_drawn_seed_is_told_before_a_board_fails(tmp_path, capsys):
    # told after the last board only: a failing board's run could not be played again
    rules = tmp_path / "fixed.gdl"
    rules.write_text('game "fixed deal"\nplayers north, east, south, west\n'
                     'option target: text = "N:AKQJT98765432... .AKQJT98765432.. '
                     '..AKQJT98765432.2 ...AKQJT9876543"\nvar deal_pbn: text = ""\n'
                     'flow:\n    deal_pbn = target\n    draw\n')
    with pytest.raises(PbnError, match="gives S 14 cards, not 13"):
        gdl_pbn("deal", str(rules), "-n", "2")
    assert re.search(r"seed \d+ \(drawn\)", capsys.readouterr().err)
