"""Pescetti pseudo-duplimate dealing: the examples of seed-notes 2.4 (A-E), the checks on the
inputs, a thousand random boards, and the inverse generator (rulesets/pescetti_inverse.gdl).

Positions count from the top of the face-down deck.  Cards are written as the ruleset names
them: rank then suit, ranks A K Q J T 9 .. 2 (AS, TH, 2C).  Deal values are PBN `Deal` tags.
"""
from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from conftest import RULESETS, random_playout
from gdl.errors import RuleError
from interpreter import Game, load_ruleset, replay

PESCETTI = RULESETS / "pescetti.gdl"
INVERSE = RULESETS / "pescetti_inverse.gdl"
SEATS = ("north", "east", "south", "west")
SUITS = "SHDC"
RANKS = "AKQJT98765432"
BLOCKS = "".join(str(d) * 13 for d in range(1, 5))      # 1 x13, 2 x13, 3 x13, 4 x13
ROBIN = "1234" * 13
DEAL_B = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
DEAL_C = "N:AT62.J73.Q84.K95 K95.AT62.J73.Q84 Q84.K95.AT62.J73 J73.Q84.K95.AT62"
DEAL_D = "N:AT62.K95.Q84.J73 J73.AT62.K95.Q84 Q84.J73.AT62.K95 K95.Q84.J73.AT62"
PBN_EXAMPLE = "N:.63.AKQ987.A9732 A8654.KQ5.T.QJT6 J973.J98742.3.K4 KQT2.AT.J6542.85"

_CHECKED = {}


def game_of(path, **options):
    """The game of a ruleset with these options; each file is parsed and checked once."""
    key = str(path)
    if key not in _CHECKED:
        _CHECKED[key] = load_ruleset(key)
    return Game(_CHECKED[key], {k: str(v).lower() if isinstance(v, bool) else str(v)
                                for k, v in options.items()})


def stop_early(tmp_path, steps, **options):
    """A variant of pescetti.gdl whose flow runs only `steps`, then ends: to look at the deck
    and the piles part-way through the procedure."""
    f = tmp_path / "partial.gdl"
    f.write_text(f'variant of "{PESCETTI}"\nflow:\n' +
                 "".join(f"    {s}\n" for s in steps) + "    draw\n")
    return Game(load_ruleset(str(f)), options)


def texts(state, zone):
    return [c.text for c in state.cards_in(zone)]


def value(game, state, name):
    return game.evaluate(name, state)


def hands_of(state):
    return {p: frozenset(texts(state, f"hand[{p}]")) for p in SEATS}


def parse_pbn(deal):
    """{seat: set of card texts} of a PBN Deal value, hands clockwise from its first seat."""
    first, hands = deal.split(":")
    start = "NESW".index(first)
    out = {}
    for j, hand in enumerate(hands.split()):
        suits = hand.split(".")
        assert len(suits) == 4
        out[SEATS[(start + j) % 4]] = frozenset(r + s for s, held in zip(SUITS, suits)
                                                for r in held)
    return out


def pbn_of(hands, first="N"):
    """The PBN Deal value of {seat: card texts}, starting with seat `first`."""
    start = "NESW".index(first)
    shown = []
    for j in range(4):
        hand = hands[SEATS[(start + j) % 4]]
        shown.append(".".join("".join(r for r in RANKS if r + s in hand) for s in SUITS))
    return first + ":" + " ".join(shown)


def python_deal(order, row1, row2):
    """The 2.2 closed form, written out independently of the ruleset: {seat: cards}."""
    deck = [r + s for s in order for r in RANKS]
    piles = {d: [] for d in "1234"}
    for card, d in zip(deck, row1):
        piles[d].append(card)
    deck = [c for d in "1234" for c in reversed(piles[d])]
    return {p: frozenset(c for c, d in zip(deck, row2) if d == str(i))
            for i, p in enumerate(SEATS, 1)}


def draw(state, values):
    """Forces the next random choices: one value each (the outcome `random <value>`)."""
    for v in values:
        assert state.is_chance()
        outcomes = state.chance_outcomes()
        state.apply(next(o for o, _ in outcomes if o.text == f"random {v}"))


# ---------------------------------------------------------------- deck setup (P3, P4)
def test_sorted_deck_has_the_ace_of_the_first_suit_on_top(tmp_path):
    game = stop_early(tmp_path, ["do read_inputs", "do sort_deck"])
    deck = texts(game.new_state(), "deck")
    assert deck == [r + s for s in "SHDC" for r in RANKS]
    game = stop_early(tmp_path, ["do read_inputs", "do sort_deck"], suit_order="C D H S")
    deck = texts(game.new_state(), "deck")
    assert deck[:3] == ["AC", "KC", "QC"] and deck[13] == "AD" and deck[-1] == "2S"
    assert texts(game.new_state(), "pack") == []


# ---------------------------------------------------------------- 2.4 A: the group 4233
@pytest.mark.parametrize("pile_order, pile3", [("last_on_top", ["JS", "QS"]),
                                               ("first_on_top", ["QS", "JS"])])
def test_example_a_first_group_4233(tmp_path, pile_order, pile3):
    game = stop_early(tmp_path, ["do read_inputs", "do sort_deck",
                                 'do deal_row(join(sublist(chars(permutation_1), 0, 4), ""))'],
                      row1="4233" + "1234" * 12, pile_order=pile_order)
    state = game.new_state()
    assert texts(state, "pile[4]") == ["AS"]
    assert texts(state, "pile[2]") == ["KS"]
    assert texts(state, "pile[3]") == pile3           # P1: the 4th card lands on the 3rd
    assert texts(state, "pile[1]") == []
    assert texts(state, "deck")[0] == "TS"


# ---------------------------------------------------------------- 2.4 C: the deck after row 1
def test_example_c_deck_after_the_first_permutation(tmp_path):
    game = stop_early(tmp_path, ["do read_inputs", "do sort_deck", "do deal_row(permutation_1)",
                                 "do stack_piles"])
    state = game.new_state()
    # the four piles of row 1 = 1234 x13, each read from its top (the last card dealt)
    pile1 = "5C 9C KC 4D 8D QD 3H 7H JH 2S 6S TS AS".split()
    pile2 = "4C 8C QC 3D 7D JD 2H 6H TH AH 5S 9S KS".split()
    pile3 = "3C 7C JC 2D 6D TD AD 5H 9H KH 4S 8S QS".split()
    pile4 = "2C 6C TC AC 5D 9D KD 4H 8H QH 3S 7S JS".split()
    assert texts(state, "deck") == pile1 + pile2 + pile3 + pile4     # P2: pile 1 on top
    assert all(texts(state, f"pile[{k}]") == [] for k in range(1, 5))


# ---------------------------------------------------------------- 2.4 B, C, D: whole deals
@pytest.mark.parametrize("row1, row2, pile_order, deal", [
    (BLOCKS, BLOCKS, "last_on_top", DEAL_B),
    (ROBIN, BLOCKS, "last_on_top", DEAL_C),
    (BLOCKS, ROBIN, "last_on_top", DEAL_D),
    (BLOCKS, BLOCKS, "first_on_top", DEAL_B),
    (BLOCKS, ROBIN, "first_on_top", DEAL_C),     # P1: the appending model gets D wrong
])
def test_examples_b_c_d(row1, row2, pile_order, deal):
    game = game_of(PESCETTI, row1=row1, row2=row2, pile_order=pile_order)
    state = game.new_state()
    assert state.is_terminal() and state.returns() == (0.0, 0.0, 0.0, 0.0)
    assert value(game, state, "deal_pbn") == deal
    assert hands_of(state) == parse_pbn(deal)
    assert state.failed_invariants() == []


def test_defaults_are_example_c_with_its_sheets():
    game = game_of(PESCETTI, board=7)
    state = game.new_state()
    assert value(game, state, "deal_pbn") == DEAL_C
    assert value(game, state, "sheet_1") == (
        "board 7, permutation 1, suits S H D C\n"
        "1234 1234 1234 1234 1234\n1234 1234 1234 1234 1234\n1234 1234 1234")
    assert value(game, state, "sheet_2") == (
        "board 7, permutation 2\n"
        "1111 1111 1111 1222 2222\n2222 2233 3333 3333 3334\n4444 4444 4444")


def test_spaces_in_rows_do_not_matter():
    game = game_of(PESCETTI, row1="12 34" * 13, row2=" ".join(BLOCKS))
    assert value(game, game.new_state(), "deal_pbn") == DEAL_C


@pytest.mark.parametrize("order, row1, row2, deal", [
    ("CDHS", BLOCKS, BLOCKS, "N:...AKQJT98765432 ..AKQJT98765432. .AKQJT98765432.. "
                             "AKQJT98765432..."),
    # example C with hearts dealt first, then spades, clubs, diamonds: the suits are renamed
    ("HSCD", ROBIN, BLOCKS, "N:J73.AT62.K95.Q84 AT62.K95.Q84.J73 K95.Q84.J73.AT62 "
                            "Q84.J73.AT62.K95"),
])
def test_suit_order(order, row1, row2, deal):
    game = game_of(PESCETTI, suit_order=order, row1=row1, row2=row2)
    assert value(game, game.new_state(), "deal_pbn") == deal


def test_row_1_counts_are_free_unless_strict():
    # P5: all 52 cards onto pile 1 reverses the deck; row 2 = 1234 x13 then deals it round
    game = game_of(PESCETTI, row1="1" * 52, row2=ROBIN)
    state = game.new_state()
    # the deck reversed, 2C 3C .. AC 2D .. AS: north gets places 1, 5, 9 ..: 2C 6C TC AC 5D ..
    assert value(game, state, "deal_pbn") == \
        "N:J73.Q84.K95.AT62 Q84.K95.AT62.J73 K95.AT62.J73.Q84 AT62.J73.Q84.K95"
    with pytest.raises(RuleError) as info:
        game_of(PESCETTI, row1="1" * 52, strict_row1_counts=True).new_state()
    assert "row 1 deals 52 cards to pile 1, not 13 (strict_row1_counts)" in str(info.value)


@pytest.mark.parametrize("options, message", [
    (dict(row2="1234"), "row 2 has 4 digits, not 52"),
    (dict(row1=ROBIN + "1"), "row 1 has 53 digits, not 52"),
    (dict(row1=ROBIN[:6] + "5" + ROBIN[7:]), "row 1 has '5' at place 7: the digits are 1, 2, 3 and 4"),
    (dict(row2="0" + BLOCKS[1:]), "row 2 has '0' at place 1"),
    (dict(row2="2" + BLOCKS[1:]),
     "row 2 deals 12 cards to pile 1, not 13: it cannot make a bridge deal"),
    (dict(row2=BLOCKS[:51] + "3"), "row 2 deals 14 cards to pile 3, not 13"),
    (dict(suit_order="SHDX"), "the suit order 'SHDX' must name each of the suits S, H, D and C once"),
    (dict(suit_order="SHD"), "the suit order 'SHD' must name"),
    (dict(suit_order="SHDCS"), "the suit order 'SHDCS' must name"),
])
def test_bad_inputs_are_clear_rule_errors(options, message):
    with pytest.raises(RuleError) as info:
        game_of(PESCETTI, **options).new_state()
    assert message in str(info.value)
    assert "pescetti.gdl" in str(info.value)


# ---------------------------------------------------------------- what each seat sees
def test_each_seat_sees_its_own_pocket_and_not_the_dealers_sheets():
    # P8: the rows, the sheets and the record (which tells every pocket) were public
    game = game_of(PESCETTI)
    state = game.new_state()
    north = state.view("north")
    assert "hand[north] (13): 2S 3H 4D 5C 6S 7H 8D 9C AS JH KC QD TS" in north
    assert "hand[east] (13): " + " ".join(["?"] * 13) in north
    for var in ("order", "permutation_1", "permutation_2", "sheet_1", "sheet_2", "deal_pbn"):
        assert f"{var} = ?" in north
    assert "deal_pbn = " + DEAL_C in state.view(None)
    assert game.evaluate("deal_pbn", state) == DEAL_C          # for the PBN files
    assert "hand[east] (13): 2H 3D 4C 5S" in state.view("east")
    drawn = game_of(PESCETTI, mode="random").new_state(0)
    while drawn.is_chance():
        drawn.apply(drawn.sample_chance(random.Random(1)))
    log = drawn.observation_log("south")
    assert log and all(line == "random ?" for line in log if line.startswith("random"))


def test_cards_stay_face_down_while_the_board_is_drawn():
    game = game_of(PESCETTI, mode="random")
    state = game.new_state(0)
    assert state.is_chance()
    assert "pack (52): " + " ".join(["?"] * 52) in state.view("south")


# ---------------------------------------------------------------- random boards
def test_random_mode_chance_nodes_and_probabilities():
    game = game_of(PESCETTI, mode="random")
    state = game.new_state()
    outcomes = state.chance_outcomes()
    assert [o.text for o, _ in outcomes] == ["random S", "random H", "random D", "random C"]
    assert all(p == Fraction(1, 4) for _, p in outcomes)
    draw(state, "SH")
    assert [o.text for o, _ in state.chance_outcomes()] == ["random D", "random C"]
    draw(state, "D")                        # the last suit is forced: a chance event
    assert [(o.text, p) for o, p in state.chance_outcomes()] == [("random C", 1)]
    draw(state, "C")                        # of one outcome (no seat sees how many)
    outcomes = state.chance_outcomes()      # row 1, place 1: any digit
    assert [(o.text, p) for o, p in outcomes] == [(f"random {d}", Fraction(1, 4))
                                                  for d in range(1, 5)]
    draw(state, ROBIN)
    outcomes = state.chance_outcomes()      # row 2, place 1: 13 of each digit left
    assert len(outcomes) == 52
    assert sum(p for o, p in outcomes if o.text == "random 1") == Fraction(1, 4)
    draw(state, "1" * 13)                   # no digit 1 is left for row 2
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 39 and not any(o.text == "random 1" for o, _ in outcomes)
    draw(state, BLOCKS[13:51])
    assert [(o.text, p) for o, p in state.chance_outcomes()] == [("random 4", 1)]
    draw(state, "4")                        # the 52nd digit is forced: one outcome
    assert state.is_terminal()
    assert value(game, state, "order") == "SHDC"
    assert value(game, state, "deal_pbn") == DEAL_C
    assert len(state.history) == 4 + 52 + 52


def test_random_row_1_is_balanced_under_strict_row1_counts():
    game = game_of(PESCETTI, mode="random", strict_row1_counts=True)
    state = game.new_state()
    draw(state, "CDHS")                     # the last suit a chance event of one outcome
    draw(state, "4" * 13)
    assert not any(o.text == "random 4" for o, _ in state.chance_outcomes())
    state = random_playout(state, random.Random(3))
    assert Counter(value(game, state, "permutation_1")) == {d: 13 for d in "1234"}


def test_a_thousand_random_boards_are_valid_deals():
    game = game_of(PESCETTI, mode="random")
    firsts, digits, place_one = Counter(), Counter(), Counter()
    for seed in range(1000):
        rng = random.Random(seed)
        state = game.new_state(seed)
        steps = 0
        while state.is_chance():
            state.apply(state.sample_chance(rng))
            steps += 1
            if steps % 25 == 0:
                assert state.failed_invariants() == [], seed
        assert state.is_terminal() and steps == 108
        assert state.failed_invariants() == [], seed
        order = value(game, state, "order")
        row1 = value(game, state, "permutation_1")
        row2 = value(game, state, "permutation_2")
        assert sorted(order) == sorted(SUITS) and len(row1) == 52 and set(row1) <= set("1234")
        assert Counter(row2) == {d: 13 for d in "1234"}
        hands = hands_of(state)
        assert all(len(h) == 13 for h in hands.values())
        assert len(frozenset().union(*hands.values())) == 52
        deal = value(game, state, "deal_pbn")
        assert parse_pbn(deal) == hands and pbn_of(hands) == deal
        assert python_deal(order, row1, row2) == hands
        firsts[order[0]] += 1
        digits.update(row1)
        place_one[row2[0]] += 1
    # uniform choices: within 4 standard deviations (the seeds are fixed)
    assert all(abs(firsts[s] - 250) < 55 for s in SUITS)
    assert all(abs(digits[d] - 13000) < 400 for d in "1234")
    assert all(abs(place_one[d] - 250) < 55 for d in "1234")


def test_a_random_board_replays_from_its_trace():
    game = game_of(PESCETTI, mode="random")
    state = random_playout(game.new_state(11), random.Random(11))
    again = replay(game, state.trace())
    assert value(game, again, "deal_pbn") == value(game, state, "deal_pbn")
    assert value(game, again, "sheet_1") == value(game, state, "sheet_1")


def test_the_invariants_catch_a_broken_deal():
    game = game_of(PESCETTI)
    state = game.new_state()
    state.place(["AS"], "hand[east]", face="down")     # north's ace moves to east
    assert set(state.failed_invariants()) == {"thirteen_each", "pbn_round_trip"}


# ---------------------------------------------------------------- the inverse (2.4 E)
@pytest.mark.parametrize("row1, target, row2", [
    (ROBIN, DEAL_C, BLOCKS),
    (BLOCKS, DEAL_D, ROBIN),
    (BLOCKS, DEAL_B, BLOCKS),
])
def test_inverse_of_the_examples(row1, target, row2):
    game = game_of(INVERSE, mode="given", row1=row1, target=target)
    state = game.new_state()
    assert value(game, state, "permutation_2") == row2
    assert value(game, state, "deal_pbn") == target
    assert state.failed_invariants() == []


def test_inverse_sheets_and_a_target_given_from_another_seat():
    hands = parse_pbn(DEAL_C)
    game = game_of(INVERSE, mode="given", row1=ROBIN, suit_order="SHDC", board=12,
                   target=pbn_of(hands, "E"))
    state = game.new_state()
    assert value(game, state, "deal_pbn") == DEAL_C
    assert value(game, state, "sheet_1") == (
        "board 12, permutation 1, suits S H D C\n"
        "1234 1234 1234 1234 1234\n1234 1234 1234 1234 1234\n1234 1234 1234")
    assert value(game, state, "sheet_2") == (
        "board 12, permutation 2\n"
        "1111 1111 1111 1222 2222\n2222 2233 3333 3333 3334\n4444 4444 4444")


def test_inverse_random_boards_hit_the_target():
    game = game_of(INVERSE)                       # mode random, the PBN standard's example
    for seed in range(200):
        state = random_playout(game.new_state(seed), random.Random(seed))
        assert state.is_terminal() and state.failed_invariants() == [], seed
        assert value(game, state, "deal_pbn") == PBN_EXAMPLE
        row2 = value(game, state, "permutation_2")
        assert Counter(row2) == {d: 13 for d in "1234"}
        order, row1 = value(game, state, "order"), value(game, state, "permutation_1")
        assert python_deal(order, row1, row2) == parse_pbn(PBN_EXAMPLE)


@pytest.mark.parametrize("target, message", [
    ("X:AKQ", "the target deal 'X:AKQ' must start with N:, E:, S: or W:"),
    (PBN_EXAMPLE[2:], "must start with N:, E:, S: or W:"),
    (PBN_EXAMPLE.rsplit(" ", 1)[0], "the target deal has 3 hands, not 4"),
    (PBN_EXAMPLE + " -", "the target deal has 5 hands, not 4"),
    (PBN_EXAMPLE.replace("J973.J98742.3.K4", "J973.J98742.3K4"),
     "the target deal gives south 'J973.J98742.3K4' with 3 suits, not 4"),
    (PBN_EXAMPLE.replace(".85", ".8X"), "gives west 'KQT2.AT.J6542.8X' holding 'X'"),
    (PBN_EXAMPLE.replace(".85", ".8"), "the target deal gives west 12 cards, not 13"),
    (PBN_EXAMPLE.replace(".85", ".88"), "the target deal names 8C 2 times, not once"),
])
def test_inverse_rejects_a_bad_target(target, message):
    with pytest.raises(RuleError) as info:
        game_of(INVERSE, target=target).new_state()
    assert message in str(info.value)


@settings(max_examples=60, deadline=None)
@given(order=st.permutations(SUITS), row1=st.lists(st.sampled_from("1234"), min_size=52,
                                                  max_size=52),
       cards=st.permutations(range(52)), first=st.sampled_from("NESW"))
def test_property_e_the_inverse_row_2_deals_the_target(order, row1, cards, first):
    names = [RANKS[c % 13] + SUITS[c // 13] for c in cards]
    target = {p: frozenset(names[13 * i:13 * i + 13]) for i, p in enumerate(SEATS)}
    order, row1 = "".join(order), "".join(row1)
    inverse = game_of(INVERSE, mode="given", suit_order=order, row1=row1,
                      target=pbn_of(target, first))
    state = inverse.new_state()
    row2 = value(inverse, state, "permutation_2")
    assert Counter(row2) == {d: 13 for d in "1234"}
    assert hands_of(state) == target and state.failed_invariants() == []
    # the sheets, dealt by the procedure of pescetti.gdl, give back the target
    dealt = game_of(PESCETTI, suit_order=order, row1=row1, row2=row2)
    assert value(dealt, dealt.new_state(), "deal_pbn") == pbn_of(target)


def test_a_board_traced_before_forced_draws_were_steps_replays_to_its_deal():
    # the last round's traces (gdl-trace-1) have no fourth suit nor 52nd row-2 digit:
    # replayed, each is taken where the trace leaves it; a board whose first row-1 digit
    # is 1 was read as recording the fourth suit (a random of data 0 after the third)
    game = game_of(PESCETTI, mode="random")
    for seed in range(40):
        state = game.new_state(seed)
        rng = random.Random(seed)
        while state.is_chance():
            state.apply(state.sample_chance(rng))
        steps = state.trace()["steps"]
        if steps[4]["chance"] == "random 1":
            break
    assert [s["chance"] for s in steps[3:5]] == [f"random {value(game, state, 'order')[3]}",
                                                  "random 1"]
    old = dict(state.trace(), format="gdl-trace-1", steps=steps[:3] + steps[4:-1])
    again = replay(game, old)
    assert again.is_terminal() and value(game, again, "deal_pbn") == \
        value(game, state, "deal_pbn")
