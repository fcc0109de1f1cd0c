"""Double Down: the rule text's own example (seed-notes 3.4 A) from a stacked deck, every edge
case of 3.4 B, each gap's option (DD1-DD16), and more than a thousand random games at every
player count 2..7 checked against a plain-Python reading of the chip rule.

Seats sit clockwise: next(p) is on p's left, so Ashley, Nathan, Alexa are p1, p2, p3.
Decks are stacked with `outcome_from_data`: the deal gives the top card to the first seat
still in, the next to the second, ... five times round; the draw pile follows, top first.
"""
from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from conftest import RULESETS, load_game
from gdl.errors import RuleError

DD = RULESETS / "double_down.gdl"
SPECIAL = ("x2", "reverse")


# ---------------------------------------------------------------- helpers
def var(state, name, seat=None):
    """The value of a ruleset variable (seat: the index of chips[p], status[p])."""
    prog = state.prog
    if seat is None:
        value = state.vars[prog.var_slots[name]]
    else:
        base, table = prog.var_index[name]
        value = state.vars[table[(state.game.seat(seat),)]]
    return getattr(value, "name", value)


def chips(state):
    return tuple(var(state, "chips", s.name) for s in state.game.seats)


def faces(state, zone):
    return [c.text for c in state.cards_in(zone)]


def stacked(state, hands, draw=()):
    """A shuffle outcome (card ids bottom to top) that deals `hands` (one list of faces per
    seat still in, seat order) and puts `draw` (top first) on top of the draw pile."""
    order = [h[k] for k in range(len(hands[0])) for h in hands] + list(draw)
    pool = sorted(state.cards_in("draw_pile"), key=lambda c: c.id)
    chosen = []
    for face in order:
        card = next(c for c in pool if c.text == face)
        pool.remove(card)
        chosen.append(card)
    return tuple(c.id for c in reversed(chosen + pool))


def deal(state, hands, draw=()):
    state.apply(state.outcome_from_data("shuffle", stacked(state, hands, draw)))
    return state


def start(hands, draw=(), **options):
    """A new game whose first deal is stacked."""
    game = load_game(DD, players=len(hands), **options)
    return deal(game.new_state(0), hands, draw)


def play(state, *cards):
    """The player to move plays these cards, one move each."""
    for face in cards:
        state.apply(f"play {face}")


def mover(state):
    return state.to_move()[0].name


def moves(state):
    return [m.text for m in state.legal_moves()]


FILL = ["1", "1", "1", "1"]


# ---------------------------------------------------------------- DD1: the deck option
def test_default_deck_is_the_invented_55_cards():
    game = load_game(DD)
    state = game.new_state(0)
    counts = Counter(faces(state, "draw_pile"))
    assert sum(counts.values()) == 55 == game.evaluate("deck_cards()", state)
    assert all(counts[str(v)] == 4 for v in range(1, 11))
    assert (counts["-10"], counts["x2"], counts["reverse"]) == (3, 4, 4)
    assert (counts["11"], counts["15"], counts["20"], counts["22"]) == (1, 1, 1, 1)
    assert len(game.prog.cards) == 55


def test_deck_option_is_parsed_in_language():
    game = load_game(DD, players=2, deck="7:3 -4:2 x2:5 reverse:1")
    state = game.new_state(0)
    assert Counter(faces(state, "draw_pile")) == {"7": 3, "-4": 2, "x2": 5, "reverse": 1}
    state = deal(state, [["7", "-4", "x2", "x2", "x2"], ["7", "-4", "x2", "x2", "reverse"]])
    play(state, "-4")                                   # any number card adds its value
    assert var(state, "total") == -4


@pytest.mark.parametrize("options, message", [
    (dict(players=7, hand_size=8), "56 are needed"),           # 7 x 8 = 56 > 55 cards
    (dict(players=2, deck="1:10"), "more than 10 are needed"),
    (dict(players=3, first_player="by_age", ages="30 40"), "one age per seat (3)"),
])
def test_impossible_setups_fail_with_a_message(options, message):
    with pytest.raises(RuleError) as info:
        load_game(DD, **options).new_state(0)
    assert message in str(info.value)


def test_a_deck_with_a_bad_face_fails_at_setup():
    with pytest.raises(RuleError):
        load_game(DD, players=2, deck="1:20 joker:2").new_state(0)


# ---------------------------------------------------------------- 3.4 A: the rules' own sequence
def test_the_rule_texts_example_step_by_step():
    ashley = ["5", "3", "1", "1", "1"]
    nathan = ["22", "x2", "1", "2", "2"]
    alexa = ["6", "reverse", "x2", "2", "2"]
    state = start([ashley, nathan, alexa], draw=["7", "8", "9", "4", "4", "10", "10"])
    assert faces(state, "hand[p1]") == ["1", "1", "1", "3", "5"]      # a set, in card order
    assert len(faces(state, "draw_pile")) == 55 - 15

    def check(total, to_move, chip_counts=(3, 3, 3)):
        assert var(state, "total") == total
        assert mover(state) == to_move
        assert chips(state) == chip_counts
        assert all(len(faces(state, f"hand[p{i}]")) == 5 for i in (1, 2, 3) if f"p{i}" != to_move)

    check(0, "p1")
    play(state, "5")                # 1. Ashley starts the discard pile, "5"
    check(5, "p2")
    assert "7" in faces(state, "hand[p1]")             # she drew the top of the draw pile
    play(state, "22")               # 2. Nathan, on Ashley's left: "27"
    check(27, "p3")
    play(state, "6")                # 3. Alexa: "33", a double: she gives up a chip
    check(33, "p1", (3, 3, 2))
    play(state, "3")                # 4. Ashley: "36"
    check(36, "p2", (3, 3, 2))
    play(state, "x2")               # 5. Nathan: x2, "36"; Alexa must play two cards
    check(36, "p3", (3, 3, 2))
    assert var(state, "owed") == 2
    assert "play x2" not in moves(state) and "play reverse" in moves(state)
    assert "must play a card before playing another" in state.why_illegal("play x2")
    play(state, "reverse")          # 6a. Alexa: change direction, "36"
    check(36, "p3", (3, 3, 2))
    assert var(state, "direction") == "rightward"
    assert len(faces(state, "hand[p3]")) == 4           # no draw before the second card
    assert "play x2" in moves(state)                    # allowed: not her first card
    play(state, "x2")               # 6b. Alexa: x2, "36"; she draws two
    check(36, "p2", (3, 3, 2))                          # 7. Nathan, on her right, plays two
    assert sorted(faces(state, "hand[p3]")) == ["10", "10", "2", "2", "9"]
    assert var(state, "owed") == 2
    play(state, "1")
    check(37, "p2", (3, 3, 2))
    play(state, "2")
    check(39, "p1", (3, 3, 2))                          # then Ashley, to Nathan's right
    assert len(faces(state, "hand[p2]")) == 5
    assert faces(state, "discard")[:3] == ["2", "1", "x2"]
    assert len(faces(state, "discard")) + len(faces(state, "draw_pile")) == 55 - 15
    assert state.failed_invariants() == []


# ---------------------------------------------------------------- 3.4 B and DD5: 99 and over
@pytest.mark.parametrize("exactly_99, last, chip_counts", [
    ("one_chip", "4", (3, 3, 2)),       # 95 + 4 = 99: one chip (DD5 literal), round over
    ("two_chips", "4", (3, 3, 1)),      # DD5 two_chips: a double and 99 or more
    ("one_chip", "9", (3, 3, 2)),       # 95 + 9 = 104: "99 or higher", one chip
    ("two_chips", "9", (3, 3, 2)),
])
def test_reaching_99_costs_a_chip_and_ends_the_round(exactly_99, last, chip_counts):
    state = start([["50"] + FILL, ["45"] + FILL, ["4", "9", "1", "1", "1"]],
                  deck="50:1 45:1 4:1 9:1 1:40", exactly_99=exactly_99)
    play(state, "50", "45")
    assert var(state, "total") == 95
    play(state, last)
    assert chips(state) == chip_counts
    assert state.is_chance() and var(state, "rounds") == 2 and var(state, "total") == 0
    assert state.failed_invariants() == []
    state = deal(state, [FILL + ["1"]] * 3)
    # 3.4 B: Ashley (p1) started round 1, so Nathan (p2) starts round 2.
    assert mover(state) == "p2" and chips(state) == chip_counts
    assert all(len(faces(state, f"hand[p{i}]")) == 5 for i in (1, 2, 3))
    assert faces(state, "discard") == [] and len(faces(state, "draw_pile")) == 44 - 15


def test_minus_ten_onto_a_double_costs_a_chip():
    # 3.4 B: total 43, play -10 -> 33: one chip.
    state = start([["10", "10", "1", "1", "1"], ["10", "3", "2", "2", "2"],
                   ["10", "-10", "4", "4", "4"]])
    play(state, "10", "10", "10", "10", "3")
    assert var(state, "total") == 43 and chips(state) == (3, 3, 3)
    play(state, "-10")
    assert var(state, "total") == 33 and chips(state) == (3, 3, 2)


@pytest.mark.parametrize("negative_doubles, chip_counts", [(False, (3, 3, 3)),
                                                           (True, (3, 3, 2))])
def test_totals_below_zero(negative_doubles, chip_counts):
    # 3.4 B: total 7, play -10 -> -3: nothing.  DD4: -11 is a double only under the option.
    state = start([["7", "-10", "1", "1", "1"], ["-10", "9", "2", "2", "2"],
                   ["-10", "3", "3", "3", "3"]], negative_doubles=negative_doubles)
    play(state, "7", "-10")
    assert var(state, "total") == -3 and chips(state) == (3, 3, 3)
    state = start([["-10", "1", "1", "1", "1"], ["9", "2", "2", "2", "2"],
                   ["-10", "10", "3", "3", "3"]], negative_doubles=negative_doubles)
    play(state, "-10", "9", "-10")                     # -10, -1, -11
    assert var(state, "total") == -11 and chips(state) == chip_counts
    state = start([["10", "1", "1", "1", "1"], ["-10", "2", "2", "2", "2"],
                   ["3", "3", "3", "3", "4"]], negative_doubles=negative_doubles)
    play(state, "10", "-10")                           # 0 is never a double
    assert var(state, "total") == 0 and chips(state) == (3, 3, 3)


def test_two_cards_under_x2_are_checked_one_by_one():
    # 3.4 B: total 20, under x2: play 2 -> 22 (one chip), then 4 -> 26: one chip in all.
    state = start([["20", "1", "1", "1", "1"], ["x2", "5", "5", "5", "5"],
                   ["2", "4", "3", "3", "3"]], draw=["6", "7", "8", "9"])
    play(state, "20", "x2")
    assert mover(state) == "p3" and var(state, "owed") == 2
    play(state, "2")
    assert var(state, "total") == 22 and chips(state) == (3, 3, 2) and mover(state) == "p3"
    play(state, "4")
    assert var(state, "total") == 26 and chips(state) == (3, 3, 2)
    assert mover(state) == "p1" and var(state, "owed") == 1
    assert sorted(faces(state, "hand[p3]")) == ["3", "3", "3", "8", "9"]   # drew two


def test_two_doubles_in_one_turn_cost_two_chips():
    # DD7: each card of a two-card turn has its own announcement and its own chip check.
    state = start([["2", "1", "1", "1", "1"], ["x2", "5", "5", "5", "5"],
                   ["9", "11", "3", "3", "3"]])
    play(state, "2", "x2", "9")
    assert var(state, "total") == 11 and chips(state) == (3, 3, 2) and mover(state) == "p3"
    play(state, "11")
    assert var(state, "total") == 22 and chips(state) == (3, 3, 1) and mover(state) == "p1"


@pytest.mark.parametrize("repeat_double_costs, chip_counts", [(False, (2, 3, 3)),
                                                              (True, (2, 2, 3))])
@pytest.mark.parametrize("special", SPECIAL)
def test_repeating_a_double_total(repeat_double_costs, chip_counts, special):
    # 3.4 B / DD3: total 33, play x2 (or change direction) -> 33 again.
    state = start([["10", "3", "1", "1", "1"], ["10", special, "2", "2", "2"],
                   ["10", "4", "4", "4", "4"]], repeat_double_costs=repeat_double_costs)
    play(state, "10", "10", "10", "3")
    assert var(state, "total") == 33 and chips(state) == (2, 3, 3)
    play(state, special)
    assert var(state, "total") == 33 and chips(state) == chip_counts


# ---------------------------------------------------------------- free ride and going out
@pytest.mark.parametrize("eliminated_hand", ["set_aside", "discarded"])
def test_free_ride_then_out_then_the_last_player_wins(eliminated_hand):
    # 3.4 B: a player at 1 chip loses -> 0 chips, free ride, still in; next loss -> out.
    state = start([["11", "1", "2", "2", "2"], ["1", "10", "10", "3", "3"],
                   ["9", "1", "1", "4", "4"]], draw=["5", "5", "5", "5", "6", "6"],
                  chips_each=1, eliminated_hand=eliminated_hand)
    play(state, "11")
    assert chips(state) == (0, 1, 1) and var(state, "status", "p1") == "free_ride"
    assert mover(state) == "p2"
    play(state, "1", "9")                              # 12, 21
    assert mover(state) == "p1"
    play(state, "1")                                   # 22: out on a free ride
    assert var(state, "status", "p1") == "out" and var(state, "total") == 22
    assert faces(state, "hand[p1]") == []
    hand = ["2", "2", "2", "5"]                        # the four cards p1 still held
    if eliminated_hand == "set_aside":
        assert sorted(faces(state, "aside")) == hand
        assert faces(state, "discard")[0] == "1"
    else:
        assert faces(state, "aside") == [] and sorted(faces(state, "discard")[-4:]) == hand
        assert faces(state, "discard")[0] == "1"       # the top card does not change
    assert mover(state) == "p2"
    play(state, "10")                                  # 32
    assert mover(state) == "p3"                        # p3's left is p1: out, skipped
    play(state, "1")                                   # 33: p3 rides free
    assert chips(state) == (0, 1, 0) and mover(state) == "p2"
    assert state.failed_invariants() == []
    play(state, "10", "1")                             # 43, 44: p3 out, one player left
    assert state.is_terminal()
    assert state.returns() == (-0.5, 1.0, -0.5)       # DD15: at once, mid-round


def test_going_out_on_the_first_of_two_cards_lapses_the_second():
    # DD7: the first card eliminates the player, so the obligation lapses.
    state = start([["1", "1", "2", "2", "2"], ["1", "x2", "3", "3", "3"],
                   ["9", "10", "4", "4", "4"]], chips_each=1)
    play(state, "1", "1", "9")                         # 1, 2, 11: p3 rides free
    play(state, "1", "x2")                             # 12, x2: p3 must play two
    assert mover(state) == "p3" and var(state, "owed") == 2
    play(state, "10")                                  # 22: p3 out
    assert var(state, "status", "p3") == "out"
    assert mover(state) == "p1" and var(state, "owed") == 1
    play(state, "2")
    assert mover(state) == "p2"


def test_ending_the_round_on_the_first_of_two_cards_skips_the_second():
    state = start([["90", "1", "1", "1", "1"], ["x2", "2", "2", "2", "2"],
                   ["9", "3", "3", "3", "3"]], deck="90:1 x2:1 9:1 1:20 2:20 3:20")
    play(state, "90", "x2", "9")
    assert chips(state) == (3, 3, 2) and state.is_chance() and var(state, "rounds") == 2
    state = deal(state, [["1"] * 5, ["2"] * 5, ["3"] * 5])
    assert mover(state) == "p2" and var(state, "owed") == 1


def test_an_eliminated_starter_is_skipped_in_the_next_round():
    # DD12: the next remaining player to the left of the previous starter.
    state = start([["1", "1", "2", "2", "2"], ["10", "9", "2", "2", "2"],
                   ["1", "77", "2", "2", "2"]], deck="1:20 10:2 9:2 77:2 2:30", chips_each=1)
    play(state, "1", "10", "1", "1", "9")              # 1, 11 (p2 rides free), 12, 13, 22
    assert var(state, "status", "p2") == "out"
    play(state, "77")                                  # 99: p3 rides free, round over
    assert chips(state) == (1, 0, 0) and state.is_chance()
    state = deal(state, [["1"] * 5, ["2"] * 5])
    assert mover(state) == "p3"                        # left of p1 is p2 (out): p3
    assert faces(state, "hand[p2]") == [] and len(faces(state, "hand[p3]")) == 5
    play(state, "2")
    assert mover(state) == "p1"


# ---------------------------------------------------------------- starters and direction
def test_each_round_starts_left_of_the_last_starter_whatever_the_direction():
    deck = "reverse:4 90:4 9:4 1:40"
    state = start([["reverse", "1", "1", "1", "1"], ["9", "1", "1", "1", "1"],
                   ["90", "1", "1", "1", "1"]], deck=deck)
    play(state, "reverse")                             # DD6: total stays 0, now to the right
    assert var(state, "total") == 0 and mover(state) == "p3"
    play(state, "90", "9")                             # p3, then p2 on p3's right: 99
    assert chips(state) == (3, 2, 3)
    state = deal(state, [["9", "1", "1", "1", "1"], ["1"] * 5, ["90", "1", "1", "1", "1"]])
    assert mover(state) == "p2" and var(state, "direction") == "leftward"    # DD12
    play(state, "1")
    assert mover(state) == "p3"
    play(state, "90", "9")                             # 91, then p1 on p3's left: 100
    assert chips(state) == (2, 2, 3)
    state = deal(state, [["1"] * 5] * 3)
    assert mover(state) == "p3" and var(state, "rounds") == 3


def test_a_round_may_open_with_x2():
    # DD6: the total stays 0 and the next player plays two.
    state = start([["x2", "1", "1", "1", "1"], ["2", "3", "2", "2", "2"],
                   ["4", "4", "4", "4", "5"]])
    play(state, "x2")
    assert var(state, "total") == 0 and mover(state) == "p2" and var(state, "owed") == 2
    play(state, "2", "3")
    assert var(state, "total") == 5 and mover(state) == "p3"


@pytest.mark.parametrize("two_player_reverse, after", [("flip", "p2"), ("skip", "p1")])
def test_change_direction_with_two_players(two_player_reverse, after):
    # DD11: flip (literal) changes nothing with two players; skip makes p1 go again.
    state = start([["reverse", "1", "1", "1", "1"], ["2", "2", "2", "2", "3"]],
                  two_player_reverse=two_player_reverse)
    play(state, "reverse")
    assert mover(state) == after
    state = start([["reverse", "1", "1", "1", "1"], ["2", "2", "2", "2", "3"],
                   ["4", "4", "4", "4", "5"]], two_player_reverse=two_player_reverse)
    play(state, "reverse")
    assert mover(state) == "p3"                        # three players: it flips


# ---------------------------------------------------------------- DD8: x2 after x2
X2_DECK = "x2:10 1:30 2:20"


@pytest.mark.parametrize("x2_only_hand", ["lapse", "single"])
def test_a_hand_of_only_x2_cards_after_an_x2(x2_only_hand):
    state = start([["x2", "1", "1", "1", "1"], ["x2"] * 5, ["x2", "2", "2", "2", "2"]],
                  draw=["1", "1", "1"], deck=X2_DECK, x2_only_hand=x2_only_hand)
    play(state, "x2")
    assert mover(state) == "p2" and moves(state) == ["play x2"]
    play(state, "x2")
    if x2_only_hand == "lapse":
        assert mover(state) == "p2"                    # the second card: another x2
        play(state, "x2")
        assert sorted(faces(state, "hand[p2]")) == ["1", "1", "x2", "x2", "x2"]
    else:
        assert sorted(faces(state, "hand[p2]")) == ["1", "x2", "x2", "x2", "x2"]
    # Either way the next player plays two, never more (DD8: x2 does not stack) ...
    assert mover(state) == "p3" and var(state, "owed") == 2
    assert moves(state) == ["play 2"]                  # ... and may not open with x2
    play(state, "2", "x2")
    assert mover(state) == "p1" and var(state, "owed") == 2


# ---------------------------------------------------------------- DD13: refilling
def test_the_discard_pile_but_its_top_card_becomes_the_draw_pile():
    state = start([["1", "1", "1", "1", "1"], ["2", "2", "2", "2", "2"]], deck="1:6 2:6")
    assert len(faces(state, "draw_pile")) == 2
    play(state, "1", "2")                              # both draw: the pile is empty
    assert faces(state, "draw_pile") == [] and faces(state, "discard") == ["2", "1"]
    play(state, "1")                                   # p1 must draw: a chance shuffle
    assert state.is_chance() and faces(state, "discard") == ["1"]
    assert sorted(faces(state, "draw_pile")) == ["1", "2"]
    outcomes = state.chance_outcomes()
    assert [p for _, p in outcomes] == [Fraction(1, 2)] * 2
    top_two = next(o for o, _ in outcomes
                   if state.prog.cards[o.data[-1]].text == "2")
    state.apply(top_two)
    assert faces(state, "draw_pile") == ["1"] and "2" in faces(state, "hand[p1]")
    assert var(state, "total") == 4 and mover(state) == "p2"
    assert state.failed_invariants() == []


def test_refill_as_soon_as_the_draw_pile_empties():
    state = start([["1", "1", "1", "1", "1"], ["2", "2", "2", "2", "2"]], deck="1:6 2:6",
                  refill_when="emptied")
    play(state, "1", "2")                              # p2's draw empties it: refill now
    assert faces(state, "discard") == ["2"] and faces(state, "draw_pile") == ["1"]


# ---------------------------------------------------------------- DD2: the first player
def test_first_player_by_age():
    game = load_game(DD, first_player="by_age", ages="8 35 41 70")  # distances 3 2 3 4
    assert game.evaluate("starter", game.new_state(0)).name == "p2"
    game = load_game(DD, players=3, first_player="by_age", ages="30 10 12")   # 3 1 1: ties
    assert game.evaluate("starter", game.new_state(0)).name == "p2"
    state = game.new_state(0)
    assert [game.evaluate(f"age_distance({a})", state) for a in (0, 11, 16, 17, 70, 104)] \
        == [11, 0, 5, 5, 4, 5]


def test_first_player_by_chance_is_uniform():
    state = load_game(DD, players=5, first_player="by_chance").new_state(0)
    outcomes = state.chance_outcomes()
    assert [p for _, p in outcomes] == [Fraction(1, 5)] * 5
    state.apply(outcomes[3][0])
    state.apply(state.sample_chance(random.Random(0)))
    assert mover(state) == "p4"


# ---------------------------------------------------------------- DD16: what each seat sees
def test_hands_are_private_and_the_table_is_public():
    state = start([["5", "1", "1", "1", "1"], ["22", "2", "2", "2", "2"],
                   ["6", "3", "3", "3", "3"]])
    play(state, "5")
    game = state.game
    p1, p2 = game.seat("p1"), game.seat("p2")
    view = state.view(p2)
    assert "hand[p1] (5): ? ? ? ? ?" in view and "hand[p2] (5): 2 2 2 2 22" in view
    assert "discard (1): 5" in view and "total = 5" in view
    assert "chips = {p1: 3, p2: 3, p3: 3}" in view and "status = {p1: in" in view
    drawn = state.cards_in("hand[p1]")
    assert all(state.sees(p1, c) for c in drawn) and not any(state.sees(p2, c) for c in drawn)
    assert not any(state.sees(p1, c) for c in state.cards_in("draw_pile"))
    assert all(state.sees(p2, c) for c in state.cards_in("discard"))
    # p2's record: the shuffle without its order, then the card p1 played face up.
    assert state.observation_log(p2) == ["shuffle draw_pile", "p1: play 5"]
    assert "discard (1): 5" in state.infoset_key(p2).split("p1: play 5")[-1]


def test_move_texts_name_each_face_once():
    state = start([["5", "5", "-10", "x2", "reverse"], ["1", "1", "1", "1", "2"],
                   ["2", "2", "2", "3", "3"]])
    assert moves(state) == ["play 5", "play -10", "play x2", "play reverse"]


# ---------------------------------------------------------------- random games, every count
def loses(total, options):
    """The chip rule read straight from the text (plain Python), for one announcement."""
    double = total != 0 and total % 11 == 0 and total <= 99 and (
        total > 0 or options.get("negative_doubles", False))
    if total >= 99:
        return 2 if double and options.get("exactly_99") == "two_chips" else 1
    return 1 if double else 0


class Turns:
    """Who should move next, followed in plain Python from the rule text and the options."""

    def __init__(self, n, options):
        self.n, self.options = n, options
        self.starter = None
        self.new_round()

    def new_round(self):
        self.step, self.owed, self.played, self.x2, self.reverses = 1, 1, 0, False, 0

    def first_of_round(self, active, starter):
        if self.starter is None:
            self.starter = starter                     # DD2: as the options chose
        else:                                          # DD12: next seat still in, leftwards
            self.starter = next((self.starter + k) % self.n for k in range(1, self.n + 1)
                                if (self.starter + k) % self.n in active)
        self.new_round()
        return self.starter

    def after_play(self, i, face, out, active):
        """The seat to move after seat i played `face` (the round goes on)."""
        self.played += 1
        if face == "x2":
            self.x2 = True
        elif face == "reverse":
            self.step, self.reverses = -self.step, self.reverses + 1
        single = (self.options.get("x2_only_hand") == "single" and face == "x2"
                  and self.owed == 2 and self.played == 1)
        if not out and self.played < self.owed and not single:
            return i                                   # the second card of an x2 turn
        skip = (self.options.get("two_player_reverse") == "skip" and len(active) == 2
                and self.reverses % 2 == 1 and not out)
        nxt = i if skip else next((i + k * self.step) % self.n for k in range(1, self.n + 1)
                                  if (i + k * self.step) % self.n in active)
        self.owed, self.played, self.x2, self.reverses = 2 if self.x2 else 1, 0, False, 0
        return nxt


def check_random_game(game, seed, options, tally):
    n = game.num_players
    state = game.new_state(seed)
    rng = random.Random(seed)
    out = set()
    turns = Turns(n, options)
    expect = None                                      # the seat to move, or "new round"
    while not state.is_terminal():
        if state.is_chance():
            if not var(state, "dealing"):
                tally["refills"] += 1
            state.apply(state.sample_chance(rng))
            continue
        seat = state.to_move()[0]
        i = seat.index
        active = {j for j in range(n) if game.seats[j].name not in out}
        if expect is None:
            first_round = turns.starter is None
            expect = turns.first_of_round(active, game.seat(var(state, "starter")).index)
            assert turns.starter == 0 or not first_round or "first_player" in options
        assert i == expect and seat.name not in out    # the eliminated never move again
        hand = faces(state, f"hand[{seat.name}]")
        legal = state.legal_moves()
        banned = turns.owed == 2 and turns.played == 0 and any(f != "x2" for f in hand)
        assert sorted(m.text for m in legal) == sorted(f"play {f}" for f in set(hand)
                                                       if not (banned and f == "x2"))
        before_total, before_chips, before_round = var(state, "total"), chips(state), \
            var(state, "rounds")
        move = legal[rng.randrange(len(legal))]
        state.apply(move)
        face = move.text.split()[1]
        tally["x2 turns"] += face == "x2"
        after = chips(state)
        ended = state.is_terminal() or var(state, "rounds") != before_round
        if face in SPECIAL:
            lost = loses(before_total, options) if options.get("repeat_double_costs") else 0
            assert not ended or state.is_terminal()
            if not state.is_terminal():
                assert var(state, "total") == before_total
        else:
            new_total = before_total + int(face)
            lost = loses(new_total, options)
            assert ended == (new_total >= 99) or state.is_terminal()
            if not ended:
                assert var(state, "total") == new_total
        assert all(after[j] == before_chips[j] for j in range(n) if j != i)
        assert after[i] == max(0, before_chips[i] - lost)
        if lost > before_chips[i]:
            out.add(seat.name)
            tally["eliminations"] += 1
        active = {j for j in range(n) if game.seats[j].name not in out}
        expect = None if ended else turns.after_play(i, face, lost > before_chips[i], active)
        assert state.failed_invariants() == []
        assert sum(map(len, state.zones)) == 55 or "deck" in options
    returns = state.returns()
    winners = [s for s in game.seats if returns[s.index] == 1.0]
    assert len(winners) == 1 and len(out) == n - 1 and winners[0].name not in out
    assert all(returns[s.index] == -1 / (n - 1) for s in game.seats if s is not winners[0])
    assert var(state, "chips_returned") == sum(game.options["chips_each"] - c
                                               for c in chips(state))
    tally["games"] += 1


@pytest.mark.parametrize("players", range(2, 8))
def test_random_games_at_every_player_count(players):
    # 6 x 170 = 1,020 games with the default options: every step is checked.
    game = load_game(DD, players=players)
    tally = Counter()
    for seed in range(170):
        check_random_game(game, 1000 * players + seed, {}, tally)
    assert tally["games"] == 170 and tally["eliminations"] == 170 * (players - 1)
    assert tally["x2 turns"] > 0
    if players >= 5:
        assert tally["refills"] > 0


@pytest.mark.parametrize("options", [
    dict(repeat_double_costs=True, negative_doubles=True, exactly_99="two_chips"),
    dict(x2_only_hand="single", two_player_reverse="skip", eliminated_hand="discarded",
         refill_when="emptied", first_player="by_chance"),
    dict(deck="x2:12 reverse:8 -10:8 5:10 6:10 1:12", chips_each=2),
])
def test_random_games_under_other_options(options):
    for players in range(2, 8):
        game = load_game(DD, players=players, **options)
        tally = Counter()
        for seed in range(12):
            check_random_game(game, seed, options, tally)
        assert tally["games"] == 12


@pytest.mark.parametrize("deck, entry", [("1:4  2:4", ""), ("5=30 x2:4", "5=30"),
                                         ("1:4 x2", "x2"), ("1:4 2:-3", "2:-3")])
def test_a_deck_entry_that_is_no_face_count_pair_is_named(deck, entry):
    # a double space, a pair without its colon, or a count that is no whole number: the
    # game stops with the entry named (it failed in the def `part`, as "sublist(...)")
    with pytest.raises(RuleError, match=f"the deck option is pairs face:count separated "
                                        f"by single spaces.*'{entry}' is not"):
        load_game(DD, deck=deck).new_state()
