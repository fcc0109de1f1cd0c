"""Double Dealing Shuffle: the hand-computed examples of seed-notes 1.4 (A-E), each option's
effect, and invariants over a thousand random games.

p1 is player A of the notes, p2 is player B.  Positions count from the top (1 = top).
Rounds are driven through the real API: both seats commit every simultaneous decision.
"""
from __future__ import annotations

import itertools
import random

import pytest

from conftest import DDS, load_game, random_playout

SEATS = ("p1", "p2")
OTHER = {"p1": "p2", "p2": "p1"}
FLIP = {"upper": "lower", "lower": "upper"}

# Example A's shuffles: they take the red card from position 9 to 9, 4 and 2.
EXAMPLE_A = [(3, 3), (5, 4), (2, 3)]


# ---------------------------------------------------------------- helpers
def texts(state, zone):
    return [c.text for c in state.cards_in(zone)]


def red_position(state, p):
    """The red card's position in p's deck, 1 = top."""
    return texts(state, f"deck[{p}]").index("R") + 1


def red_pile(state, p):
    """The pile of p's that holds p's red card (after the cut)."""
    return "upper" if "R" in texts(state, f"pile[{p},upper]") else "lower"


def deck_sizes(state):
    return tuple(len(state.cards_in(f"deck[{p}]")) for p in SEATS)


def var(game, state, name):
    value = game.evaluate(name, state)
    return getattr(value, "name", value)


def both(state, move1, move2, first="p1"):
    """Both seats commit at a simultaneous decision (`first` commits first)."""
    assert state.is_simultaneous() and [s.name for s in state.to_move()] == list(SEATS)
    moves = {"p1": move1, "p2": move2}
    state.apply(moves[first], first)
    assert [s.name for s in state.to_move()] == [OTHER[first]]
    state.apply(moves[OTHER[first]], OTHER[first])


def shuffle_and_cut(state, shuffles1=EXAMPLE_A, shuffles2=EXAMPLE_A, cut1=3, cut2=3):
    for (k1, d1), (k2, d2) in zip(shuffles1, shuffles2, strict=True):
        both(state, f"shuffle_packet {k1} {d1}", f"shuffle_packet {k2} {d2}")
    both(state, f"cut {cut1}", f"cut {cut2}")


def guess_and_check(state, guess1, guess2, check1, check2):
    both(state, f"guess {guess1}", f"guess {guess2}")
    both(state, f"check {check1}", f"check {check2}")


def play_round(state, a_guess_right, b_guess_right, a_check_right, b_check_right, **plan):
    """Plays one round (shuffles and cuts: `plan`, by default Example A's and 3 / 3); each
    hand then points at the pile holding the red card or at the other one."""
    shuffle_and_cut(state, **plan)
    red = {p: red_pile(state, p) for p in SEATS}
    pick = lambda right, pile: pile if right else FLIP[pile]   # noqa: E731
    guess_and_check(state, pick(a_guess_right, red["p2"]), pick(b_guess_right, red["p1"]),
                    pick(a_check_right, red["p1"]), pick(b_check_right, red["p2"]))
    return red


def hands(game, state):
    return var(game, state, "hands[p1]"), var(game, state, "hands[p2]")


def seen_moves(state, seat):
    """The moves in `seat`'s observation log as (mover, text) pairs, in order (a line may
    hold the several moves of one simultaneous decision, separated by ' ; ')."""
    pairs = []
    for line in state.observation_log(seat):
        for part in line.split(" ; "):
            who, sep, text = part.partition(": ")
            if sep and who in SEATS:
                pairs.append((who, text))
    return pairs


def top_packet(order, k, d):
    """Plain-Python top-packet shuffle of a top-first list."""
    packet, rest = order[:k], order[k:]
    return rest[:d] + packet + rest[d:]


# ---------------------------------------------------------------- 1.4 A: shuffle tracking
def test_example_a_shuffle_tracking(dds):
    state = dds.new_state(0)
    assert not state.is_chance() and state.is_simultaneous()
    assert texts(state, "deck[p1]") == ["B"] * 8 + ["R"]       # red at the bottom (rule 2)
    label = {c.id: i for i, c in enumerate(state.cards_in("deck[p1]"), 1)}
    labels = lambda: [label[c.id] for c in state.cards_in("deck[p1]")]   # noqa: E731
    expected = [[4, 5, 6, 1, 2, 3, 7, 8, 9], [3, 7, 8, 9, 4, 5, 6, 1, 2],
                [8, 9, 4, 3, 7, 5, 6, 1, 2]]
    for (k, d), order, red_at in zip(EXAMPLE_A, expected, (9, 4, 2)):
        both(state, f"shuffle_packet {k} {d}", "shuffle_packet 1 1")
        assert labels() == order
        assert red_position(state, "p1") == red_at
    both(state, "cut 3", "cut 3")
    assert [label[c.id] for c in state.cards_in("pile[p1,upper]")] == [8, 9, 4]
    assert [label[c.id] for c in state.cards_in("pile[p1,lower]")] == [3, 7, 5, 6, 1, 2]
    assert red_pile(state, "p1") == "upper"
    assert state.cards_in("deck[p1]") == []


# ---------------------------------------------------------------- 1.4 B: literal scoring
def example_b(state, **kw):
    # A guesses B's red pile; B guesses A's non-red pile; A checks A's red pile; B checks
    # B's red pile (the pile A's guess is on).
    return play_round(state, a_guess_right=True, b_guess_right=False, a_check_right=True,
                      b_check_right=True, **kw)


def test_example_b_literal_scoring(dds):
    state = dds.new_state(0)
    red = example_b(state)
    assert red == {"p1": "upper", "p2": "upper"}
    assert [m for _, m, _ in state.history[-4:]] == ["guess upper", "guess lower",
                                                    "check upper", "check upper"]
    assert hands(dds, state) == (1, 0)             # only A's check stays
    assert deck_sizes(state) == (8, 10)            # A gives one blue card
    assert texts(state, "deck[p1]").count("R") == texts(state, "deck[p2]").count("R") == 1
    assert not state.is_terminal()
    assert var(dds, state, "rounds") == 2 and var(dds, state, "caller") == "p2"   # S12


# ---------------------------------------------------------------- 1.4 C: two-hand win
def test_example_c_two_hands_then_a_one_hand_round_wins_the_game(dds):
    state = dds.new_state(0)
    # A guesses right; B checks B's non-red pile; B guesses wrong; A checks right.
    play_round(state, a_guess_right=True, b_guess_right=False, a_check_right=True,
               b_check_right=False)
    assert hands(dds, state) == (2, 0)
    assert deck_sizes(state) == (7, 11)
    assert not state.is_terminal() and state.returns() == (0.0, 0.0)
    assert red_position(state, "p1") == 7 and red_position(state, "p2") == 11   # rule 2
    example_b(state, shuffles1=[(1, 1)] * 3, shuffles2=[(4, 7)] * 3)   # a later 1-hand round
    assert hands(dds, state) == (1, 0)
    assert state.is_terminal()
    assert deck_sizes(state) == (6, 12)
    assert state.returns() == (1.0, -1.0)


# ---------------------------------------------------------------- 1.4 D: full visibility
def red_from_log(pairs, seat, n=9):
    """Where `seat`'s red card is, worked out from another seat's observation log alone."""
    order = list(range(1, n + 1))                 # the red card is card n, at the bottom
    for who, move in pairs:
        words = move.split()
        if who == seat and words[0] == "shuffle_packet":
            order = top_packet(order, int(words[1]), int(words[2]))
        if who == seat and words[0] == "cut":
            return "upper" if order.index(n) < int(words[1]) else "lower"
    raise AssertionError("no cut in the log")


def test_example_d_full_visibility_ties_every_round():
    game = load_game(DDS, shuffle_visibility="full")
    state = game.new_state(0)
    shuffle_and_cut(state, shuffles2=[(1, 4), (6, 2), (2, 5)], cut2=4)
    # Each player works out the other's red pile from their own log: both know everything.
    a_knows = red_from_log(seen_moves(state, "p1"), "p2")
    b_knows = red_from_log(seen_moves(state, "p2"), "p1")
    assert (a_knows, b_knows) == (red_pile(state, "p2"), red_pile(state, "p1"))
    before = state.clone()
    # Both guess the opponent's red pile, both check their own red pile: all four hands go.
    guess_and_check(state, a_knows, b_knows, b_knows, a_knows)
    assert hands(game, state) == (0, 0)
    assert deck_sizes(state) == (9, 9)
    assert var(game, state, "caller") == "p1" and not state.is_terminal()
    # Checking the other pile instead loses the round: the check is dominated.
    guess_and_check(before, a_knows, b_knows, FLIP[b_knows], a_knows)
    assert hands(game, before) == (0, 1)


# ---------------------------------------------------------------- 1.4 E: hidden shuffles
@pytest.mark.parametrize("a_right, b_right", list(itertools.product([True, False], repeat=2)))
def test_example_e_best_play_by_the_owner(dds, a_right, b_right):
    # Each owner, seeing the guesses, checks own red pile (best play): guess hands never
    # survive; a player wins exactly when they guessed right and the opponent wrong, by 1.
    state = dds.new_state(0)
    play_round(state, a_right, b_right, a_check_right=True, b_check_right=True,
               shuffles2=[(2, 6), (4, 1), (1, 7)], cut2=5)
    a, b = hands(dds, state)
    assert a <= 1 and b <= 1                       # only check hands can be left
    if a_right and not b_right:
        assert (a, b) == (1, 0) and deck_sizes(state) == (8, 10)
    elif b_right and not a_right:
        assert (a, b) == (0, 1) and deck_sizes(state) == (10, 8)
    else:
        assert a == b and deck_sizes(state) == (9, 9)


def test_example_e_the_guesser_cannot_tell_where_the_red_card_went(dds):
    # Two games in which B's secret shuffles put B's red card in different piles look the
    # same to A at A's guess; B's own record tells them apart.
    states = []
    for shuffles2 in ([(3, 3), (5, 4), (2, 3)], [(1, 1), (2, 2), (3, 3)]):
        state = dds.new_state(0)
        shuffle_and_cut(state, shuffles2=shuffles2, cut2=3)
        states.append(state)
    x, y = states
    assert red_pile(x, "p2") != red_pile(y, "p2")
    assert x.infoset_key("p1") == y.infoset_key("p1")
    assert x.view("p1") == y.view("p1")
    assert x.infoset_key("p2") != y.infoset_key("p2")
    assert seen_moves(x, "p2")[1] == ("p2", "shuffle_packet 3 3")
    assert seen_moves(x, "p1")[1] == ("p2", "shuffle_packet ? ?")


# ---------------------------------------------------------------- options
def test_transfer_difference_and_squared_on_example_c():
    for transfer, sizes, over in (("hands_left", (7, 11), False), ("difference", (7, 11), False),
                                  ("squared", (5, 13), True)):
        game = load_game(DDS, transfer=transfer)
        state = game.new_state(0)
        play_round(state, True, False, True, False)
        assert hands(game, state) == (2, 0)
        assert deck_sizes(state) == sizes, transfer
        assert state.is_terminal() == over, transfer   # squared: 4 cards, 5 left, a win
        assert state.returns() == ((1.0, -1.0) if over else (0.0, 0.0))


def test_transfer_squared_of_one_hand_is_one_card():
    game = load_game(DDS, transfer="squared")
    state = game.new_state(0)
    example_b(state)
    assert deck_sizes(state) == (8, 10)


def test_transfer_difference_equals_hands_left_in_every_scoring_case():
    # A finding about S10 (b): whenever a player keeps both hands the other keeps none
    # (a guess that stays means the owner's check missed, and a check that stays means
    # the other guess missed), so "difference" always gives what "hands_left" gives.
    for same_pile in ("both_go", "guess_goes"):
        results = {}
        for transfer in ("hands_left", "difference"):
            game = load_game(DDS, transfer=transfer, same_pile=same_pile)
            for case in itertools.product([True, False], repeat=4):
                state = game.new_state(0)
                play_round(state, *case)
                results.setdefault(case, []).append((hands(game, state), deck_sizes(state)))
        assert all(a == b for a, b in results.values()), same_pile
        assert {h for (h, _), _ in results.values()} >= {(2, 0), (1, 0), (0, 1), (1, 1)}


def test_same_pile_guess_goes_makes_example_b_a_tie():
    # Under guess_goes only the guessing hand leaves when A's guess and B's check meet on
    # B's red pile: B's check now stays, so B keeps 1 hand as A does (A's check): a tie.
    game = load_game(DDS, same_pile="guess_goes")
    state = game.new_state(0)
    example_b(state)
    assert hands(game, state) == (1, 1)
    assert deck_sizes(state) == (9, 9)
    assert var(game, state, "caller") == "p1"


@pytest.mark.parametrize("allow, count", [(False, 36), (True, 44)])
def test_identity_shuffle_option(allow, count):
    game = load_game(DDS, allow_identity_shuffle=allow)
    state = game.new_state(0)
    moves = [m.text for m in state.legal_moves("p1")]
    assert len(moves) == len(set(moves)) == count
    assert ("shuffle_packet 4 0" in moves) == allow
    if allow:
        before = [c.id for c in state.cards_in("deck[p1]")]
        both(state, "shuffle_packet 4 0", "shuffle_packet 8 0")
        assert [c.id for c in state.cards_in("deck[p1]")] == before
    else:
        assert "allow_identity_shuffle" in state.why_illegal("shuffle_packet 4 0", "p1")


def test_legal_shuffles_on_nine_cards_are_the_distinct_top_packet_moves(dds):
    state = dds.new_state(0)
    got = {tuple(map(int, m.text.split()[1:])) for m in state.legal_moves("p2")}
    want = {(k, d) for k in range(1, 9) for d in range(1, 10 - k)}
    assert got == want
    # and they are distinct permutations (the addendum's resolution)
    perms = {tuple(top_packet(list(range(9)), k, d)) for k, d in want}
    assert len(perms) == 36


def test_block_shuffles_replace_the_top_packet():
    game = load_game(DDS, shuffle_kind="block")
    state = game.new_state(0)
    moves = [m.text for m in state.legal_moves("p1")]
    assert moves and all(m.startswith("shuffle_block ") for m in moves)
    assert "block" in state.why_illegal("shuffle_packet 3 3", "p1")
    assert "shuffle_block 3 3 3" not in moves          # identity: the run would not move
    label = {c.id: i for i, c in enumerate(state.cards_in("deck[p1]"), 1)}
    # The run of the 3 bottom cards (from position 7, the red card last) slides in below 2.
    both(state, "shuffle_block 6 3 2", "shuffle_block 0 1 1")
    assert [label[c.id] for c in state.cards_in("deck[p1]")] == [1, 2, 7, 8, 9, 3, 4, 5, 6]
    assert red_position(state, "p1") == 5
    assert red_position(state, "p2") == 9


def test_hidden_shuffles_show_only_that_a_shuffle_happened(dds):
    state = dds.new_state(0)
    both(state, "shuffle_packet 3 3", "shuffle_packet 5 2")
    assert seen_moves(state, "p1") == [("p1", "shuffle_packet 3 3"), ("p2", "shuffle_packet ? ?")]
    assert seen_moves(state, "p2") == [("p1", "shuffle_packet ? ?"), ("p2", "shuffle_packet 5 2")]
    both(state, "shuffle_packet 1 1", "shuffle_packet 1 1")
    both(state, "shuffle_packet 1 1", "shuffle_packet 1 1")
    both(state, "cut 4", "cut 2")
    assert seen_moves(state, "p2")[-2:] == [("p1", "cut 4"), ("p2", "cut 2")]   # sizes are public


def test_full_visibility_shows_every_shuffle():
    game = load_game(DDS, shuffle_visibility="full")
    state = game.new_state(0)
    both(state, "shuffle_packet 3 3", "shuffle_packet 5 2")
    want = [("p1", "shuffle_packet 3 3"), ("p2", "shuffle_packet 5 2")]
    assert seen_moves(state, "p1") == seen_moves(state, "p2") == want


def test_max_rounds_one_ends_in_a_draw_after_a_tied_round():
    game = load_game(DDS, max_rounds=1)
    state = game.new_state(0)
    play_round(state, True, True, True, True)          # 1.4 D's all-go round
    assert hands(game, state) == (0, 0)
    assert state.is_terminal()
    assert state.returns() == (0.0, 0.0)
    assert len(state.history) == 12


def test_max_rounds_one_still_lets_a_round_winner_fall_short():
    game = load_game(DDS, max_rounds=1)
    state = game.new_state(0)
    example_b(state)                                   # A wins the round but keeps 8 cards
    assert state.is_terminal() and state.returns() == (0.0, 0.0)
    assert deck_sizes(state) == (8, 10)


def test_caller_is_the_last_loser_and_stays_after_a_tie(dds):
    state = dds.new_state(0)
    assert var(dds, state, "caller") == "p1"           # first round: p1 (S12)
    example_b(state)                                   # A wins: B calls
    assert var(dds, state, "caller") == "p2"
    small = {"shuffles1": [(1, 1), (2, 5), (7, 1)], "shuffles2": [(9, 1), (2, 2), (3, 3)]}
    play_round(state, True, True, True, True, **small)     # a tie: unchanged
    assert hands(dds, state) == (0, 0) and var(dds, state, "caller") == "p2"
    play_round(state, False, True, True, True, **small)    # B wins: A calls
    assert hands(dds, state) == (0, 1) and var(dds, state, "caller") == "p1"
    assert deck_sizes(state) == (9, 9)


def test_a_squared_transfer_on_a_small_deck_gives_the_blue_cards_there_are():
    game = load_game(DDS, deck_size=3, transfer="squared")
    state = game.new_state(0)
    shuffles = [(1, 1)] * 3
    play_round(state, True, False, True, False, shuffles1=shuffles, shuffles2=shuffles,
               cut1=1, cut2=1)
    assert state.is_terminal() and state.returns() == (1.0, -1.0)
    assert deck_sizes(state) == (1, 5)
    assert texts(state, "deck[p1]") == ["R"]


def test_a_two_hand_win_at_two_cards_with_win_size_one():
    game = load_game(DDS, win_size=1)
    state = game.new_state(0)
    state.place(state.cards_in("deck[p1]")[:7], "deck[p2]", face="down")
    assert deck_sizes(state) == (2, 16) and state.failed_invariants() == []
    shuffles = [(1, 1)] * 3
    play_round(state, True, False, True, False, shuffles1=shuffles, shuffles2=shuffles,
               cut1=1, cut2=1)
    assert state.is_terminal() and state.returns() == (1.0, -1.0)
    assert deck_sizes(state) == (1, 17)


# ---------------------------------------------------------------- random games
def test_a_thousand_random_games_keep_the_invariants(dds):
    rng = random.Random(1_234)
    max_rounds = dds.options["max_rounds"]
    outcomes = set()
    for i in range(1000):
        state = dds.new_state(i)
        steps = 0
        while not state.is_terminal():
            assert not state.is_chance()             # DDS has no chance events
            for seat in state.to_move():
                moves = state.legal_moves(seat)
                state.apply(moves[rng.randrange(len(moves))], seat)
            steps += 1
            if i % 20 == 0:
                assert state.failed_invariants() == []
                cards = [c for z in state.zones for c in z]
                assert len(cards) == len({c.id for c in cards}) == 18
            assert steps <= 6 * max_rounds
        assert state.failed_invariants() == []
        rounds = var(dds, state, "rounds")
        assert 1 <= rounds <= max_rounds
        assert len(state.history) == 12 * rounds     # 3 shuffles, cut, guess, check; 2 seats
        sizes = deck_sizes(state)
        assert sum(sizes) == 18
        for p in SEATS:
            assert texts(state, f"deck[{p}]").count("R") == 1
        returns = state.returns()
        outcomes.add(returns)
        if returns == (0.0, 0.0):
            assert rounds == max_rounds               # a draw only at the round limit
        else:
            assert sorted(returns) == [-1.0, 1.0]
            winner = returns.index(1.0)
            assert sizes[winner] <= 6 < sizes[1 - winner]
            assert var(dds, state, "caller") == SEATS[1 - winner]
    assert {(1.0, -1.0), (-1.0, 1.0)} <= outcomes     # both seats win some games


@pytest.mark.parametrize("shuffles", [0, 1, 2])
def test_decisions_per_round_follow_the_shuffle_count(shuffles):
    game = load_game(DDS, shuffles=shuffles, max_rounds=4)
    rng = random.Random(shuffles)
    for i in range(30):
        state = random_playout(game.new_state(i), rng)
        assert state.is_terminal()
        assert len(state.history) == 2 * (shuffles + 3) * var(game, state, "rounds")
