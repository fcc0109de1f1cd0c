"""Whist, one hand: a plain Python random playout of `rulesets/classics/whist_hand.gdl`'s
rules, written as `shared/bench-reference`'s are (cards as (suit, rank) pairs, no
history, no views), so that `benchmarks/run.py` has a yardstick for a sixth game that
none of the engine's speed work was tuned for.

playout(rng) -> (0 if north and south take 7 tricks or more else 1, decisions)
"""

DECK = [(suit, rank) for suit in range(4) for rank in range(13)]    # rank 12: the ace


def playout(rng):
    deck = DECK[:]
    rng.shuffle(deck)                       # deck[-1] is the top card, deck[0] the bottom
    trumps = deck[0][0]                     # the last card dealt, the dealer's, turned up
    hands = [[] for _ in range(4)]          # north, east, south, west
    for i in range(52):                     # one at a time from the top, north first
        hands[i % 4].append(deck[51 - i])
    randrange = rng.randrange
    leader = 0
    tricks = [0, 0, 0, 0]
    for _ in range(13):
        hand = hands[leader]
        best = hand.pop(randrange(len(hand)))      # the lead: any card
        led = best[0]
        taker = leader
        seat = leader
        for _ in range(3):
            seat = (seat + 1) % 4
            hand = hands[seat]
            legal = [c for c in hand if c[0] == led] or hand    # follow suit if you can
            card = legal[randrange(len(legal))]
            hand.remove(card)
            if (card[0] == best[0] and card[1] > best[1]) or (
                    card[0] == trumps and best[0] != trumps):
                best = card
                taker = seat
        tricks[taker] += 1
        leader = taker
    return (0 if tricks[0] + tricks[2] >= 7 else 1), 52


def check(n=2000):
    """Plays `n` hands: each is 52 decisions, and each side wins a fair share of them (the
    dealer's side about 55%, as in the ruleset's games)."""
    import random
    rng = random.Random(5)
    wins = [0, 0]
    for _ in range(n):
        result, decisions = playout(rng)
        assert decisions == 52 and result in (0, 1)
        wins[result] += 1
    assert min(wins) > n // 4                   # neither side wins nearly every hand
    return f"whist_hand: {n} hands, north-south {wins[0]}, east-west {wins[1]}"


if __name__ == "__main__":
    print(check())
