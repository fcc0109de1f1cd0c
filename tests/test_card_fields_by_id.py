"""A card's field read in generated code (`c.suit`, `text(c.suit)` of a card drawn from a
zone) is a subscript of the field's values, or their texts, by the card's id: a card's
fields never change.  The reads give what the plain closures give, and the test of the
generated code fails without the shape."""
from __future__ import annotations

import re

from conftest import fused_and_plain
from interpreter import load_text
from test_fuse import _generated_sources

FIELDS = '''
game "fields"
players a, b
enum suit = spades "S", hearts "H", clubs "C"
card rank: 1..4, suit: suit
cards into deck: card(rank: k, suit: s) for s in suit for k in 1..4
zone deck: stack
zone hand[player]: set
var hearts_ranks: text = ""
var high: int = 0
var letters: text = ""
def holding(p: player, s: suit) = join([text(c.rank) for c in hand[p] if c.suit == s], "")
rule sort_out:
    for c in deck:
        if c.rank > high:
            high = c.rank
    for letter in chars("HS"):
        move [c for c in deck if text(c.suit) == letter] to hand[b]
    hearts_ranks = holding(b, hearts) + "/" + holding(b, spades)
    letters = join([text(c.suit) for c in hand[b] if c.rank == 2], "")
flow:
    do sort_out
    draw
'''


def _values(game):
    state = game.new_state()
    names = game.prog.var_names
    zones = [[c.text for c in z] for z in state.zones]
    return [state.vars[names.index(n)] for n in ("hearts_ranks", "high", "letters")], zones


def test_card_fields_read_by_id_give_what_the_closures_give(monkeypatch):
    fused, plain = fused_and_plain(monkeypatch, FIELDS, _values)
    assert fused == plain
    assert fused[0] == ["1234/1234", 4, "SH"]


def test_generated_code_reads_card_fields_by_id(monkeypatch):
    from interpreter import _fuse
    monkeypatch.setattr(_fuse, "ENABLED", True)
    lines = "".join(_generated_sources(load_text(FIELDS))).splitlines()
    assert not any(".attrs[" in line for line in lines)
    assert any(re.search(r"if \(K\d+\[_t\d+\.id\] == ", line) for line in lines)
    assert any(re.search(r"K\d+\[_t\d+\.id\] == st\.frame", line) for line in lines)
