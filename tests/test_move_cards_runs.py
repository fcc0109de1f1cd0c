"""`State.move_cards` of several cards lying together in one zone below its top (a filter
of a zone, in the zone's order; a sublist of `cards(z)`, in the reverse): cut out at
once, not each searched for by `list.remove`.  Each test fails without the cut or its
guard."""
from __future__ import annotations

import pytest

from gdl.ast import PlaceKind
from interpreter import load_text
from gdl.errors import RuleError

_GAME = '''game "t"
players a, b
enum rank = r1, r2, r3, r4, r5, r6
card rank: rank
cards into deck: card(rank: r) for r in rank
cards into spare: card(rank: r) for r in rank
zone deck: stack
zone spare: stack
zone pile: stack
flow:
    draw
'''


class _Counted(list):
    """A zone's list counting the cards searched for and removed one by one."""
    removes = 0

    def remove(self, card):
        self.removes += 1
        super().remove(card)


def _moved(pick, kind=PlaceKind.BOTTOM):
    """Moves `pick(deck's cards bottom first, spare's)` to pile: the zones' texts after,
    and how many cards were searched for in deck."""
    game = load_text(_GAME)
    state = game.new_state()
    deck, spare, pile = (game.prog.zone_plain[z].slot for z in ("deck", "spare", "pile"))
    state.zones[deck] = _Counted(state.zones[deck])
    state.move_cards(tuple(pick(list(state.zones[deck]), state.zones[spare])), pile, kind,
                     None, False, None)
    for slot, cards in enumerate(state.zones):
        assert all(state.loc[c.id] == slot for c in cards)
    texts = [[c.text for c in state.zones[z]] for z in (deck, spare, pile)]
    return texts, state.zones[deck].removes


def test_cards_lying_together_in_the_zones_order_are_cut_out_at_once():
    assert _moved(lambda d, s: d[1:4]) == ([["r1", "r5", "r6"], ["r1", "r2", "r3", "r4",
                                            "r5", "r6"], ["r4", "r3", "r2"]], 0)


def test_cards_lying_together_top_first_are_cut_out_at_once():
    assert _moved(lambda d, s: d[3:0:-1]) == ([["r1", "r5", "r6"], ["r1", "r2", "r3", "r4",
                                              "r5", "r6"], ["r2", "r3", "r4"]], 0)


def test_a_run_cut_short_by_the_zones_top_is_not_taken_for_the_cards():
    # the zone's top, then a card below it: the slice from the top holds one card only
    assert _moved(lambda d, s: [d[5], d[2]]) == ([["r1", "r2", "r4", "r5"], [
        "r1", "r2", "r3", "r4", "r5", "r6"], ["r3", "r6"]], 1)


def test_a_run_cut_short_by_the_zones_bottom_is_not_taken_for_the_cards():
    assert _moved(lambda d, s: [d[0], d[4]]) == ([["r2", "r3", "r4", "r6"], [
        "r1", "r2", "r3", "r4", "r5", "r6"], ["r5", "r1"]], 2)


def test_scattered_cards_and_cards_of_two_zones_are_taken_one_by_one():
    assert _moved(lambda d, s: [d[1], d[3], d[2]]) == ([["r1", "r5", "r6"], [
        "r1", "r2", "r3", "r4", "r5", "r6"], ["r3", "r4", "r2"]], 3)
    assert _moved(lambda d, s: [d[1], s[2]]) == ([["r1", "r3", "r4", "r5", "r6"], [
        "r1", "r2", "r4", "r5", "r6"], ["r3", "r2"]], 1)


def test_a_card_named_twice_is_still_an_error():
    with pytest.raises(RuleError, match="name r2 twice"):
        _moved(lambda d, s: [d[1], d[1]])
