"""Evil Deal: the hand-computed examples of seed-notes 4.4 (A-C), every trump collision of
ED7, the options, and invariants over a thousand random whole games.

In the first deal p1 deals, so p1 is the dealer D and p2 the non-dealer N of the notes.
Deals are stacked with `outcome_from_data`: the ruleset deals 12 cards round robin to each
player's left stack, then 12 to each right stack, then 2 indicators each, from the top.
"""
from __future__ import annotations

import random

import pytest

from conftest import RULESETS, load_game

EVIL = RULESETS / "evil_deal.gdl"
RANKS = "2 3 4 5 6 7 8 9 10 J Q K A".split()
SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
DECK = [r + s for s in "CDHS" for r in RANKS]
SEATS = ("p1", "p2")
OTHER = {"p1": "p2", "p2": "p1"}
# seed-notes 4.2: points by tricks out of 8
DEALER_POINTS = [0, 0, 0, 0, 0, 66, 111, 222, 333]
NON_DEALER_POINTS = [0, 0, 0, 0, 66, 111, 222, 333, 666]


# ---------------------------------------------------------------- helpers
def cards(spec):
    """`"2-7D AS"` -> ["2D", ..., "7D", "AS"]."""
    out = []
    for part in spec.split():
        suit, ranks = part[-1], part[:-1]
        lo, hi = ranks.split("-") if "-" in ranks else (ranks, ranks)
        out += [r + suit for r in RANKS[RANKS.index(lo):RANKS.index(hi) + 1]]
    return out


def rank(text):
    return RANKS.index(text[:-1])


def stack_deal(game, state, p1_first=(), p2_first=(), p1_shown=(), p2_shown=(),
               p1_second=(), p2_second=()):
    """Resolves the deal's shuffle so that each player's left stack, right stack and
    indicators hold these cards (missing ones filled from the rest of the deck)."""
    piles = [list(p1_first), list(p2_first), list(p1_second), list(p2_second),
             list(p1_shown), list(p2_shown)]
    used = {c for pile in piles for c in pile}
    rest = [c for c in DECK if c not in used]
    for pile, size in zip(piles, (12, 12, 12, 12, 2, 2)):
        while len(pile) < size:
            pile.append(rest.pop(0))
    a1, a2, b1, b2, s1, s2 = piles
    top = [c for pair in zip(a1, a2) for c in pair] + [c for pair in zip(b1, b2) for c in pair]
    top += [s1[0], s2[0], s1[1], s2[1]]
    assert sorted(top) == sorted(DECK)
    state.apply(state.outcome_from_data("shuffle", tuple(game.card(c).id for c in reversed(top))))


def take_left(state):
    """Both players choose their left stack for the first half (ED8)."""
    assert state.is_simultaneous()
    state.apply("take left", "p1")
    state.apply("take left", "p2")


def value(game, state, expr):
    v = game.evaluate(expr, state)
    return getattr(v, "name", v)


def texts(state, zone):
    return sorted(c.text for c in state.cards_in(zone))


def move_texts(state, seat=None):
    return [m.text for m in state.legal_moves(seat)]


def play_by_policy(state, discards):
    """Plays to the end of the deal: a round's leader plays his highest card, the follower
    his lowest legal card; `discards[p]` is p's discard in the exchange."""
    while not state.is_terminal() and not state.is_chance():
        for seat in state.to_move():
            moves = move_texts(state, seat)
            kind = moves[0].split()[0]
            if kind == "exchange":
                state.apply("exchange " + discards[seat.name], seat)
                continue
            pick = max if kind == "lead" else min
            state.apply(pick(moves, key=lambda m: rank(m.split()[1])), seat)


def with_vars(game, state, **values):
    """Returns a copy of the state with variables set, e.g. `score_p1=400` (a test position
    edited outside the rules, like `state.place`)."""
    data = state.to_json()
    names = game.prog.var_names
    for key, v in values.items():
        name, _, seat = key.partition("_p")
        data["vars"][names.index(f"{name}[p{seat}]" if seat else name)] = v
    return game.state_from_json(data)


# Constructed deals.  In each half every suit is split evenly between the players, so the
# follower can always follow suit; where one player holds all the high cards of a suit he
# wins every round of it whatever is played.
def n_no_trump_six(game, state, n_lay="beside AC KC"):
    """N (p2) holds the club pair AC KC; first half: N holds the high diamonds and spades
    and takes all 4 tricks; second half (D leads): D holds the high hearts, N the high
    clubs, so with leaders playing high D takes 2 tricks, then N 2: N 6, D 2."""
    stack_deal(game, state, p1_first=cards("2-7D 2-7S"), p2_first=cards("8-KD 8-KS"),
               p1_second=cards("2-7C 8-KH"), p2_second=cards("8-QC AD 2-7H"),
               p1_shown=["AH", "AS"], p2_shown=["AC", "KC"])
    take_left(state)
    state.apply(n_lay)
    state.apply("cross AH AS")


def d_no_trump_seven(game, state):
    """D (p1) holds the club pair AC KC and lays it side by side; D takes the first half;
    in the second half D leads clubs and diamonds high and loses only the last round, ♦2
    against ♦8: D 7, N 1."""
    stack_deal(game, state, p1_first=cards("8-KS 8-KH"), p2_first=cards("2-7S 2-7H"),
               p1_second=cards("8-QC 9-KD 2D AD"), p2_second=cards("2-7C 3-8D"),
               p1_shown=["AC", "KC"], p2_shown=["AH", "AS"])
    take_left(state)
    state.apply("cross AH AS")
    state.apply("beside AC KC")


def split_four_four(game, state):
    """N takes the whole first half and D the whole second half, whatever is played."""
    stack_deal(game, state, p1_first=cards("2-7D 2-7S"), p2_first=cards("8-KD 8-KS"),
               p1_second=cards("8-KC 8-KH"), p2_second=cards("2-7C 2-7H"),
               p1_shown=["AH", "AS"], p2_shown=["AC", "AD"])
    take_left(state)
    state.apply("cross AC AD")
    state.apply("cross AH AS")


def n_takes_all(game, state):
    """N holds every high card of both halves: N takes all 8 tricks, whatever is played."""
    stack_deal(game, state, p1_first=cards("2-7D 2-7S"), p2_first=cards("8-KD 8-KS"),
               p1_second=cards("2-7C 2-7H"), p2_second=cards("8-KC 8-KH"),
               p1_shown=["AH", "AS"], p2_shown=["AC", "AD"])
    take_left(state)
    state.apply("cross AC AD")
    state.apply("cross AH AS")


def random_to_deal_end(state, rng, discards):
    """Plays the rest of the deal with random cards (the exchange as given)."""
    while not state.is_terminal() and not state.is_chance():
        for seat in state.to_move():
            moves = move_texts(state, seat)
            if moves[0].startswith("exchange"):
                state.apply("exchange " + discards[seat.name], seat)
            else:
                state.apply(rng.choice(moves), seat)


@pytest.fixture(scope="module")
def game():
    return load_game(EVIL)


@pytest.fixture
def dealt(game):
    """A state at the first deal's stack choice, from a random shuffle."""
    state = game.new_state(7)
    state.apply(state.sample_chance(random.Random(7)))
    return state


# ---------------------------------------------------------------- 4.2: the score table
@pytest.mark.parametrize("tricks", range(9))
def test_score_table(game, dealt, tricks):
    assert game.evaluate(f"points({tricks}, as_dealer)", dealt) == DEALER_POINTS[tricks]
    assert game.evaluate(f"points({tricks}, as_non_dealer)", dealt) == NON_DEALER_POINTS[tricks]


# ---------------------------------------------------------------- the deal and the views
def test_the_deal_and_what_each_player_sees(game, dealt):
    for p in SEATS:
        for side in ("left", "right"):
            assert len(dealt.cards_in(f"pack[{p},{side}]")) == 12
        assert len(dealt.cards_in(f"shown[{p}]")) == 2
    assert dealt.cards_in("stock") == []
    view1 = dealt.view("p1")
    # the indicators lie face up; both stacks are face down, unseen even by their owner (ED8)
    assert "shown[p2] (2): " + " ".join(texts(dealt, "shown[p2]")) in view1
    assert "pack[p1,*]: " + " ".join(["?"] * 12) + " | " + " ".join(["?"] * 12) in view1
    assert sorted(move_texts(dealt, "p1")) == ["take left", "take right"]
    dealt.apply("take right", "p1")
    dealt.apply("take left", "p2")
    mine = texts(dealt, "hand[p1]")
    assert len(mine) == 12 and f"hand[p1] (12): {' '.join(mine)}" in dealt.view("p1")
    assert "hand[p1] (12): " + " ".join(["?"] * 12) in dealt.view("p2")
    assert "pack[p1,*]: " + " ".join(["?"] * 12) + " | -" in dealt.view("p1")
    # N chooses his trumps first, then D
    assert [s.name for s in dealt.to_move()] == ["p2"]


# ---------------------------------------------------------------- 4.4 A: a trick
EXAMPLE_A = dict(
    p1_first=["AC", "QC", "5D", "3S"] + cards("2-4D 6-10D"),         # D
    p2_first=cards("KC 2-3C 2-5H AS 9S 2S 4-5S"),                    # N, void in diamonds
    p1_shown=["KS", "JD"], p2_shown=["KH", "JC"])


def example_a(game, **options):
    g = load_game(EVIL, **options) if options else game
    state = g.new_state(0)
    stack_deal(g, state, **EXAMPLE_A)
    take_left(state)
    assert move_texts(state) == ["cross JC KH", "cross KH JC"]      # N first
    state.apply("cross KH JC")                                       # N: hearts, then clubs
    state.apply("cross KS JD")                                       # D: spades, then diamonds
    assert [s.name for s in state.to_move()] == ["p2"]               # N leads the first trick
    return g, state


def test_example_a_a_trick_of_three_rounds(game):
    g, state = example_a(game)
    assert value(g, state, "active") == "hearts"                     # N started: N's trump
    state.apply("lead KC")
    assert "trick (1): KC" in state.view("p1")                       # played face up
    assert move_texts(state) == ["follow QC", "follow AC"]           # D must follow clubs
    state.apply("follow AC")
    assert [s.name for s in state.to_move()] == ["p1"]               # D won round 1, leads
    assert value(g, state, "active") == "hearts"                     # still N's trump (ED6)
    state.apply("lead 5D")
    assert len(move_texts(state)) == 11                              # N void: anything (ED5)
    state.apply("follow 2H")                                         # the active trump
    assert [s.name for s in state.to_move()] == ["p2"]
    state.apply("lead AS")
    assert move_texts(state) == ["follow 3S"]                        # D must follow spades
    state.apply("follow 3S")
    assert value(g, state, "tricks[p2]") == 1 and value(g, state, "tricks[p1]") == 0
    assert [s.name for s in state.to_move()] == ["p2"]               # N leads the next trick
    assert state.cards_in("trick") == [] and len(state.cards_in("won[p2]")) == 6


def test_example_a_variant_the_other_players_trump_is_not_active(game):
    g, state = example_a(game)
    for move in ("lead KC", "follow AC", "lead 5D", "follow 9S"):   # ♠9: D's trump, not active
        state.apply(move)
    assert [s.name for s in state.to_move()] == ["p1"]               # D's ♦5 won round 2
    state.apply("lead 3S")
    assert move_texts(state) == ["follow 2S", "follow 4S", "follow 5S", "follow AS"]
    state.apply("follow AS")
    assert value(g, state, "tricks[p2]") == 1                        # round 3 takes the trick


def test_rank_only_reading_ignores_suits(game):
    g, state = example_a(game, round_rule="rank_only")
    for move in ("lead KC", "follow AC", "lead 5D", "follow 2H"):
        state.apply(move)
    assert [s.name for s in state.to_move()] == ["p1"]               # 5 beats 2, trump or not
    # equal ranks: the round's leader keeps the lead
    assert g.evaluate("beats(card(rank: five, suit: hearts), card(rank: five, suit: clubs))",
                      state) is False


def test_compulsory_trumping_option(game):
    g, state = example_a(game, trumping="compulsory")
    for move in ("lead KC", "follow AC", "lead 5D"):
        state.apply(move)
    assert move_texts(state) == ["follow 2H", "follow 3H", "follow 4H", "follow 5H"]
    assert "ED5" in state.why_illegal("follow 9S")


# ---------------------------------------------------------------- ED7: the trump protocol
def trumps(g, state):
    return tuple(value(g, state, f"trump[{p},{h}]") for p in ("p2", "p1")
                 for h in ("first_half", "second_half"))


def bonuses(g, state):
    return value(g, state, "bonus[p2]"), value(g, state, "bonus[p1]")


H, S, C, NT = "hearts", "spades", "clubs", None

# (N's indicators, N's lay, D's indicators, D's lay, trumps (N 1st, N 2nd, D 1st, D 2nd) under
#  both_no_trump, the same under later_loses, bonus (N, D))
COLLISIONS = {
    "same suit in both halves": (["2H", "4S"], "cross 2H 4S", ["3H", "5S"], "cross 3H 5S",
                                 (NT, NT, NT, NT), (H, S, NT, NT), (False, False)),
    "crossed suits": (["2H", "4S"], "cross 2H 4S", ["3H", "5S"], "cross 5S 3H",
                      (H, S, S, H), (H, S, S, H), (False, False)),
    "same suit in one half": (["2H", "4S"], "cross 2H 4S", ["3H", "5C"], "cross 3H 5C",
                              (NT, S, NT, C), (H, S, NT, C), (False, False)),
    "D's pair in a cross meets N's heart": (["2H", "4S"], "cross 2H 4S", ["3H", "KH"],
                                            "cross KH 3H", (NT, S, NT, H), (H, S, NT, H),
                                            (False, False)),
    "N's pair in a cross meets D's heart": (["2H", "3H"], "cross 2H 3H", ["4S", "KH"],
                                            "cross 4S KH", (H, NT, S, NT), (H, H, S, NT),
                                            (False, False)),
    "N's pair side by side: D keeps both trumps": (["2H", "3H"], "beside 2H 3H", ["4S", "KH"],
                                                   "cross 4S KH", (NT, NT, S, H),
                                                   (NT, NT, S, H), (True, False)),
    "pairs of one suit: no trump, no bonus": (["2H", "3H"], "beside 2H 3H", ["4H", "QH"],
                                              "cross 4H QH", (NT, NT, NT, NT),
                                              (NT, NT, NT, NT), (False, False)),
    "pairs of one suit, both side by side": (["2H", "3H"], "beside 3H 2H", ["4H", "QH"],
                                             "beside QH 4H", (NT, NT, NT, NT),
                                             (NT, NT, NT, NT), (False, False)),
    "pairs of two suits, one side by side": (["2H", "3H"], "beside 2H 3H", ["4S", "5S"],
                                             "cross 4S 5S", (NT, NT, S, S), (NT, NT, S, S),
                                             (True, False)),
    "pairs of two suits in crosses": (["2H", "3H"], "cross 2H 3H", ["4S", "5S"], "cross 5S 4S",
                                      (H, H, S, S), (H, H, S, S), (False, False)),
}


@pytest.mark.parametrize("collision", ["both_no_trump", "later_loses"])
@pytest.mark.parametrize("case", list(COLLISIONS))
def test_trump_collisions(case, collision):
    n_shown, n_lay, d_shown, d_lay, literal, later, bonus = COLLISIONS[case]
    g = load_game(EVIL, collision=collision)
    state = g.new_state(0)
    stack_deal(g, state, p1_shown=d_shown, p2_shown=n_shown)
    take_left(state)
    state.apply(n_lay)
    state.apply(d_lay)
    assert trumps(g, state) == (literal if collision == "both_no_trump" else later)
    assert bonuses(g, state) == bonus


def test_same_pairs_bonus_option():
    g = load_game(EVIL, same_pairs_bonus=True)
    state = g.new_state(0)
    stack_deal(g, state, p1_shown=["4H", "QH"], p2_shown=["2H", "3H"])
    take_left(state)
    state.apply("beside 2H 3H")
    state.apply("cross 4H QH")
    assert trumps(g, state) == (NT, NT, NT, NT) and bonuses(g, state) == (True, False)


def test_only_a_pair_may_lie_side_by_side(game):
    state = game.new_state(0)
    stack_deal(game, state, p1_shown=["4H", "QH"], p2_shown=["2H", "3S"])
    take_left(state)
    assert move_texts(state) == ["cross 2H 3S", "cross 3S 2H"]
    assert "same suit" in state.why_illegal("beside 2H 3S")
    state.apply("cross 3S 2H")
    # a pair: two crosses and two side-by-side layouts (which card is the first-half one)
    assert sorted(move_texts(state)) == ["beside 4H QH", "beside QH 4H", "cross 4H QH",
                                         "cross QH 4H"]


# ---------------------------------------------------------------- leads and the exchange
def test_second_half_is_led_by_the_dealer_after_the_exchange(game):
    state = game.new_state(0)
    n_no_trump_six(game, state)
    rng = random.Random(1)
    while not state.is_simultaneous():                     # N takes all of the first half
        state.apply(rng.choice(move_texts(state)))
    assert value(game, state, "tricks[p2]") == 4 and value(game, state, "round_leader") == "p2"
    # each player picked up his first-half indicator: 12 new cards + 1
    assert len(state.cards_in("hand[p2]")) == len(state.cards_in("hand[p1]")) == 13
    assert "AC" in texts(state, "hand[p2]") and "AH" in texts(state, "hand[p1]")
    assert texts(state, "laid[p2,second_half]") == ["KC"]           # left face up, not used
    assert "laid[p2,*]: - | KC" in state.view("p1")
    # ED9 (literal): any card, the indicator too; the discard is hidden from the opponent
    assert "exchange AC" in move_texts(state, "p2")
    state.apply("exchange AD", "p2")
    state.apply("exchange AH", "p1")
    assert texts(state, "discard[p2]") == ["AD"]
    assert "discard[p2] (1): ?" in state.view("p1")
    assert "discard[p2] (1): AD" in state.view("p2")
    assert "p2: exchange ?" in state.observation_log("p1")
    assert "p2: exchange AD" in state.observation_log("p2")
    assert [s.name for s in state.to_move()] == ["p1"]               # D leads, though N won
    assert value(game, state, "active") == "spades"                  # D's second-half trump


def test_keep_indicator_option():
    g = load_game(EVIL, keep_indicator=True)
    state = g.new_state(0)
    n_no_trump_six(g, state)
    rng = random.Random(1)
    while not state.is_simultaneous():
        state.apply(rng.choice(move_texts(state)))
    assert "exchange AC" not in move_texts(state, "p2")
    assert "keep_indicator" in state.why_illegal("exchange AC", "p2")
    assert len(move_texts(state, "p2")) == 12


# ---------------------------------------------------------------- 4.4 B: scores
def finish(game, state, build, discards):
    build(game, state)
    play_by_policy(state, discards)
    return {p: value(game, state, f"tricks[{p}]") for p in SEATS}, \
        {p: value(game, state, f"gain[{p}]") for p in SEATS}


def test_example_b_non_dealer_no_trump_six_tricks(game):
    tricks, gain = finish(game, game.new_state(0), n_no_trump_six, {"p1": "AH", "p2": "AD"})
    assert tricks == {"p1": 2, "p2": 6}
    assert gain == {"p1": 0, "p2": 222 + 2 * 66}                     # 354


def test_example_b_dealer_two_non_dealer_six_without_bonus(game):
    build = lambda g, s: n_no_trump_six(g, s, n_lay="cross AC KC")   # noqa: E731
    tricks, gain = finish(game, game.new_state(0), build, {"p1": "AH", "p2": "AD"})
    assert tricks == {"p1": 2, "p2": 6} and gain == {"p1": 0, "p2": 222}


def test_example_b_dealer_no_trump_seven_tricks(game):
    tricks, gain = finish(game, game.new_state(0), d_no_trump_seven, {"p1": "AD", "p2": "AH"})
    assert tricks == {"p1": 7, "p2": 1}
    assert gain == {"p1": 222 + 3 * 66, "p2": 0}                     # 420


def test_example_b_four_four_gives_the_non_dealer_66(game):
    for seed in range(5):                                            # whatever is played
        state = game.new_state(0)
        split_four_four(game, state)
        random_to_deal_end(state, random.Random(seed), {"p1": "AH", "p2": "AC"})
        assert value(game, state, "tricks[p1]") == value(game, state, "tricks[p2]") == 4
        assert value(game, state, "score[p2]") == 66 and value(game, state, "score[p1]") == 0


def test_example_b_eight_tricks_win_from_zero(game):
    for seed in range(5):
        state = game.new_state(0)
        n_takes_all(game, state)
        random_to_deal_end(state, random.Random(seed), {"p1": "AH", "p2": "AC"})
        assert state.is_terminal()                                   # one deal: 666 reached
        assert value(game, state, "score[p2]") == 666
        assert state.returns() == (-666.0, 666.0)


@pytest.mark.parametrize("n_discard, n_tricks, n_gain", [
    ("AC", 4, 66),              # 4 tricks: table 66, no trick above 4, no bonus
    ("AD", 5, 111 + 66),        # keeping ♣A wins the last round: 5 tricks, one bonus trick
])
def test_no_trump_bonus_counts_tricks_above_four(game, n_discard, n_tricks, n_gain):
    """N lays the club pair side by side and takes the first half; in the second half D
    leads his hearts, then his clubs ♣Q..♣7 against N's ♣2..♣6 and, unless N discarded it,
    the ♣A N picked up."""
    state = game.new_state(0)
    stack_deal(game, state, p1_first=cards("2-7D 2-7S"), p2_first=cards("8-KD 8-KS"),
               p1_second=cards("7-QC 8-KH"), p2_second=cards("2-6C AD 2-7H"),
               p1_shown=["AH", "AS"], p2_shown=["AC", "KC"])
    take_left(state)
    state.apply("beside AC KC")
    state.apply("cross AH AS")
    play_by_policy(state, {"p1": "AH", "p2": n_discard})
    assert value(game, state, "tricks[p2]") == n_tricks
    assert value(game, state, "gain[p2]") == n_gain and value(game, state, "gain[p1]") == 0


# ---------------------------------------------------------------- 4.4 C: the margin
def test_example_c_margin(game):
    state = game.new_state(0)
    state = with_vars(game, state, score_p1=400, score_p2=624)
    split_four_four(game, state)                                     # N (p2) scores 66
    random_to_deal_end(state, random.Random(3), {"p1": "AH", "p2": "AC"})
    assert state.is_terminal()
    assert (value(game, state, "score[p1]"), value(game, state, "score[p2]")) == (400, 690)
    assert state.returns() == (-290.0, 290.0)


# ---------------------------------------------------------------- ED10: who deals next
@pytest.mark.parametrize("rule, after_four_four, after_dealer_wins", [
    ("alternate", "p2", "p2"),
    ("loser", "p1", "p2"),       # 4-4: N (p2) scored, p1 deals again; D won: p2 deals
    ("fixed", "p1", "p1"),
])
def test_dealer_rotation(rule, after_four_four, after_dealer_wins):
    g = load_game(EVIL, dealer=rule)
    for build, discards, want in ((split_four_four, {"p1": "AH", "p2": "AC"}, after_four_four),
                                  (d_no_trump_seven, {"p1": "AD", "p2": "AH"},
                                   after_dealer_wins)):
        state = g.new_state(0)
        build(g, state)
        play_by_policy(state, discards)
        assert state.is_chance() and value(g, state, "dealer_seat") == want
        stack_deal(g, state)
        take_left(state)
        assert [s.name for s in state.to_move()] == [OTHER[want]]     # the non-dealer first


# ---------------------------------------------------------------- random whole games
def python_trumps(laid, lays):
    """seed-notes ED7 in plain Python: {(p, half): suit letter or None}, bonus by player."""
    suit = {k: c[-1] for k, c in laid.items()}
    pair = {p: suit[p, 1] == suit[p, 2] for p in SEATS}
    same_pairs = pair["p1"] and pair["p2"] and suit["p1", 1] == suit["p2", 1]
    out = {}
    for h in (1, 2):
        t = {p: None if same_pairs or lays[p] == "beside" else suit[p, h] for p in SEATS}
        if t["p1"] is not None and t["p1"] == t["p2"]:
            t = {"p1": None, "p2": None}
        out.update({(p, h): t[p] for p in SEATS})
    return out, {p: lays[p] == "beside" and not same_pairs for p in SEATS}


def wins(reply, led, trump):
    if reply[-1] == led[-1]:
        return rank(reply) > rank(led)
    return reply[-1] == trump


class Checker:
    """Follows a game with plain-Python bookkeeping and checks the ruleset against it: the
    trumps of every deal (ED7), the scores and the cards of every deal, and with `rounds`
    also every round's legal replies, active trump and winner (ED2-ED6)."""

    def __init__(self, game, rounds):
        self.game = game
        self.check_rounds = rounds
        self.slot = {name: i for i, name in enumerate(game.prog.var_names)}
        self.scores = {"p1": 0, "p2": 0}
        self.deals = 0

    def var(self, state, name):
        v = state.vars[self.slot[name]]
        return getattr(v, "name", getattr(v, "text", v))

    def new_deal(self, state):
        self.dealer = self.var(state, "dealer_seat")
        self.rounds = 0
        self.tricks = {"p1": 0, "p2": 0}
        self.lays = {}

    def trumps_chosen(self, state):
        laid = {(p, h): state.cards_in(f"laid[{p},{half}]")[0].text for p in SEATS
                for h, half in ((1, "first_half"), (2, "second_half"))}
        self.trump, bonus = python_trumps(laid, self.lays)
        for (p, h), t in self.trump.items():
            got = self.var(state, f"trump[{p},{'first_half' if h == 1 else 'second_half'}]")
            assert got == (SUITS[t] if t else None)
        assert {p: self.var(state, f"bonus[{p}]") for p in SEATS} == bonus
        self.bonus = bonus
        self.starter = OTHER[self.dealer]                            # N leads the first half

    def follow(self, state, seat, moves, move):
        winner = self.round_winner(state, seat, moves, move) if self.check_rounds else None
        state.apply(move, seat)
        if winner is None:
            winner = self.var(state, "round_leader")
        assert self.var(state, "round_leader") == winner              # ED2
        self.rounds += 1
        if self.rounds % 3 == 0:
            self.tricks[winner] += 1
            self.starter = winner
        if self.rounds == 24:
            self.end_of_deal(state)

    def round_winner(self, state, seat, moves, move):
        led = self.var(state, "led")
        hand = [c.text for c in state.cards_in(f"hand[{seat}]")]
        same = [c for c in hand if c[-1] == led[-1]]
        assert sorted(m.text for m in moves) == sorted("follow " + c for c in (same or hand))
        half = 1 if self.rounds < 12 else 2
        if self.rounds == 12:
            self.starter = self.dealer                               # D leads the second half
        trump = self.trump[self.starter, half]
        assert self.var(state, "active") == (SUITS[trump] if trump else None)   # ED6
        leader = self.var(state, "round_leader")
        return seat if wins(move.text.split()[1], led, trump) else leader

    def end_of_deal(self, state):
        tricks = {p: self.var(state, f"tricks[{p}]") for p in SEATS}
        assert tricks == self.tricks and sum(tricks.values()) == 8
        gains = {}
        for p in SEATS:
            table = DEALER_POINTS if p == self.dealer else NON_DEALER_POINTS
            gains[p] = table[tricks[p]] + (66 * (tricks[p] - 4) if self.bonus[p] and tricks[p] > 4
                                           else 0)
        assert {p: self.var(state, f"gain[{p}]") for p in SEATS} == gains
        assert sum(1 for g in gains.values() if g > 0) == 1          # exactly one scores
        for p in SEATS:
            new = self.var(state, f"score[{p}]")
            assert new == self.scores[p] + gains[p] >= self.scores[p]   # scores only grow
            self.scores[p] = new
        assert sorted(c.id for z in state.zones for c in z) == list(range(52))
        assert state.failed_invariants() == []
        self.deals += 1


def checked_random_game(game, seed, rng, rounds=False):
    state = game.new_state(seed)
    check = Checker(game, rounds)
    target = game.options["target"]
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng))
            check.new_deal(state)
            continue
        for seat in state.to_move():
            moves = state.legal_moves(seat)
            move = moves[rng.randrange(len(moves))]
            kind = move.action.name
            if kind == "follow":
                check.follow(state, seat.name, moves, move)
                continue
            if kind in ("cross", "beside"):
                check.lays[seat.name] = kind
            state.apply(move, seat)
            if kind in ("cross", "beside") and len(check.lays) == 2:
                check.trumps_chosen(state)
    final = check.scores
    winners = [p for p in SEATS if final[p] >= target]
    assert len(winners) == 1                                         # exactly one winner
    w = winners[0]
    margin = final[w] - final[OTHER[w]]
    assert state.returns()[SEATS.index(w)] == margin > 0              # 4.4 C
    assert sum(state.returns()) == 0
    assert check.deals == game.evaluate("deals", state)
    return check.deals


def test_a_thousand_random_whole_games(game):
    # every 8th game is also checked round by round against plain Python
    rng = random.Random(666)
    deals = [checked_random_game(game, i, rng, rounds=i % 8 == 0) for i in range(1000)]
    assert min(deals) >= 1 and sum(deals) > 5000


@pytest.mark.parametrize("options", [
    dict(collision="later_loses", trumping="compulsory"),
    dict(round_rule="rank_only", keep_indicator=True),
    dict(dealer="loser", same_pairs_bonus=True),
    dict(dealer="fixed"),
])
def test_single_deals_under_other_options(options):
    g = load_game(EVIL, target=1, **options)
    rng = random.Random(5)
    for i in range(60):
        state = g.new_state(i)
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng))
                continue
            for seat in state.to_move():
                moves = state.legal_moves(seat)
                state.apply(moves[rng.randrange(len(moves))], seat)
        assert state.failed_invariants() == []
        assert g.evaluate("deals", state) == 1                       # target 1: one deal
        assert g.evaluate("tricks[p1] + tricks[p2]", state) == 8
        scores = sorted([g.evaluate("score[p1]", state), g.evaluate("score[p2]", state)])
        assert scores[0] == 0 < scores[1]
