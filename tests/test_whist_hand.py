"""The sixth game, a hand of whist (rulesets/classics/whist_hand.gdl): a stacked deal
worked out by hand, every decision and every trick of random hands held to the rules as
read again here, and the plain playout the benchmark races it against
(benchmarks/plain/whist_hand.py) playing the same game."""
from __future__ import annotations

import importlib.util
import random

from conftest import ROOT, RULESETS, load_game

WHIST = RULESETS / "classics" / "whist_hand.gdl"
RANKS = "2 3 4 5 6 7 8 9 10 J Q K A".split()
SEATS = ("north", "east", "south", "west")


def rank(card) -> int:
    return RANKS.index(card.text[:-1])


def suit(card) -> str:
    return card.text[-1]


def stack(game, state, hands):
    """Resolves the shuffle so that seat i is dealt `hands[i]` (13 card texts each, in the
    order dealt): the deal goes one card at a time from the top, north first, so the last
    card of west's list is the bottom card, the one turned up."""
    top = [hands[i % 4][i // 4] for i in range(52)]
    state.apply(state.outcome_from_data(
        "shuffle", tuple(game.card(c).id for c in reversed(top))))


def test_a_stacked_deal_west_holding_every_spade_takes_every_trick():
    game = load_game(WHIST)
    state = game.new_state()
    clubs, diamonds, hearts = ([r + s for r in RANKS] for s in "CDH")
    spades = [r + "S" for r in RANKS if r != "Q"] + ["QS"]       # QS dealt last: turned up
    stack(game, state, [clubs, diamonds, hearts, spades])
    assert game.evaluate("trumps", state).name == "spades"
    queen = game.card("QS")
    assert queen in state.cards_in("hand[west]")
    assert all(state.sees(game.seat(s), queen) for s in SEATS)     # turned up: all know it
    assert not state.sees(game.seat("north"), game.card("2S"))
    # north leads any club; nobody else holds one, so each may play any card; west trumps
    assert len(state.legal_moves("north")) == 13
    state.apply("play 2C", "north")
    assert len(state.legal_moves("east")) == 13
    state.apply("play AD", "east")
    state.apply("play AH", "south")
    state.apply("play 2S", "west")
    assert game.evaluate("tricks[west]", state) == 1
    assert game.evaluate("leader", state).name == "west"
    # west leads a spade each trick after, which nobody can follow: all 13 tricks
    while not state.is_terminal():
        seat = state.to_move()[0]
        state.apply(state.legal_moves(seat)[0], seat)
    assert game.evaluate("tricks[west]", state) == 13
    assert state.returns() == (-1, 1, -1, 1)


def test_random_hands_follow_suit_and_give_each_trick_to_its_taker():
    game = load_game(WHIST)
    rng = random.Random(11)
    for _ in range(40):
        state = game.new_state()
        state.apply(state.sample_chance(rng))
        trumps = game.evaluate("trumps", state).name[0].upper()
        tricks = dict.fromkeys(SEATS, 0)
        leader = "north"
        while not state.is_terminal():
            played = []
            for i in range(4):
                seat = SEATS[(SEATS.index(leader) + i) % 4]
                assert [s.name for s in state.to_move()] == [seat]
                hand = state.cards_in(f"hand[{seat}]")
                led = [c for c in hand if played and suit(c) == suit(played[0])]
                want = sorted(c.text for c in (led or hand))
                moves = state.legal_moves(seat)
                assert sorted(m.text.split()[1] for m in moves) == want
                move = moves[rng.randrange(len(moves))]
                played.append(game.card(move.text.split()[1]))
                state.apply(move, seat)
            trumped = [c for c in played if suit(c) == trumps]
            best = max(trumped or [c for c in played if suit(c) == suit(played[0])], key=rank)
            leader = SEATS[(SEATS.index(leader) + played.index(best)) % 4]
            tricks[leader] += 1
            assert {s: game.evaluate(f"tricks[{s}]", state) for s in SEATS} == tricks
        ours = tricks["north"] + tricks["south"] >= 7
        assert state.returns() == ((1, -1, 1, -1) if ours else (-1, 1, -1, 1))


def test_the_plain_playout_plays_the_same_game():
    """The benchmark's yardstick is only one if it plays these rules: 52 decisions a hand,
    and over 2,000 seeded hands each, north and south win about as often (45.6% of the
    ruleset's hands, 43.0% of the plain playout's; the dealer's side, holding the turned
    trump and leading second, wins more)."""
    spec = importlib.util.spec_from_file_location(
        "_plain_whist", ROOT / "benchmarks" / "plain" / "whist_hand.py")
    plain = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plain)
    rng = random.Random(3)
    plain_wins = [plain.playout(rng) for _ in range(2000)]
    assert {d for _, d in plain_wins} == {52}
    from interpreter.agents import AGENTS, play_out
    game = load_game(WHIST)
    agents = [AGENTS["random"]] * 4
    rng = random.Random(3)
    ours = []
    for _ in range(2000):
        state = game.new_state()
        assert play_out(state, agents, rng) == 52
        ours.append(state.returns()[0] > 0)
    share = sum(ours) / 2000
    plain_share = sum(r == 0 for r, _ in plain_wins) / 2000
    assert abs(share - plain_share) < 0.04, (share, plain_share)
