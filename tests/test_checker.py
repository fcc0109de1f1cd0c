"""The static checker (gdl/checker): rejected rulesets with the message for each, and
small complete games it must accept.

Each bad case is (gdl text, substrings of the rendered problem, line, column).  Every case
is written to contain exactly one mistake, so the tests also check that a mistake is
reported once and does not cascade into others.
"""
from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lark.indenter import DedentError

from gdl.checker import CheckedInfo, EnumT, ListT, OptT, Prim, ZoneT, check
from gdl.errors import CheckError, GdlError
from gdl.parser import parse_text

PATH = "bad.gdl"


def _text(src: str) -> str:
    return textwrap.dedent(src).lstrip("\n")


def _problems(src: str) -> list:
    with pytest.raises(CheckError) as info:
        check(parse_text(_text(src), PATH))
    return info.value.problems


def _assert_rendered(problem: GdlError, substrings, line: int, col: int) -> None:
    """The rendering shows `file:line:col`, the line with a caret under col, and the text."""
    text = str(problem)
    assert text.startswith(f"{PATH}:{line}:{col}: check error: "), text
    carets = [l for l in text.splitlines() if l.strip() == "^"]
    assert carets, f"no caret line in:\n{text}"
    assert carets[0].index("^") == 4 + col - 1, f"caret not under column {col}:\n{text}"
    for s in substrings:
        assert s in text, f"{s!r} not in:\n{text}"


# ---------------------------------------------------------------------------- bad inputs
BAD = [
    pytest.param("""
        players a, b
        zone deck: stack
        flow:
            shuffle dek
            win a
        """, ["unknown name dek", "did you mean 'deck'?"], 4, 13, id="unknown-zone"),
    pytest.param("""
        players a, b
        zone deck: stack
        zone hand[player]: set
        flow:
            move top(deck) to hnd[a]
            win a
        """, ["unknown zone or variable hnd", "did you mean 'hand'?"], 5, 23,
        id="unknown-indexed-zone"),
    pytest.param("""
        players a, b
        card rank: 1..13, suit: 1..4
        def high(c: card) = c.rnk > 10
        flow:
            win a
        """, ["cards have no attribute rnk", "expected: rank, suit",
              "did you mean 'rank'?"], 3, 23, id="unknown-card-attribute"),
    pytest.param("""
        players a, b
        var n: int = 0
        flow:
            n = 1 + true
            win a
        """, ["cannot compute int + bool"], 4, 9, id="int-plus-bool"),
    pytest.param("""
        players a, b
        card rank: 1..13
        zone deck: stack
        var n: int = 0
        flow:
            n = top(deck)
            win a
        """, ["cannot assign card to n, which holds int"], 6, 9, id="card-into-int-var"),
    pytest.param("""
        players a, b
        var n: int = 0
        action pick(k: int):
            n = k
        flow:
            choose a: pick
            win a
        """, ["the domain of parameter k is not finite: int has no bounds",
              "give a range such as 1..10"], 3, 16, id="param-not-finite"),
    pytest.param("""
        players a, b
        var n: int = 0
        flow:
            n += 1
        """, ["the game never ends", "add a win, draw or end game statement, or a returns(p)"],
        3, 1, id="no-end-condition"),
    pytest.param("""
        players a, b
        zone deck: stack
        var deck: int = 0
        flow:
            win a
        """, ["duplicate name deck: already declared as the zone deck at line 2"], 3, 5,
        id="duplicate-name"),
    pytest.param("""
        players a, b
        var n: int = 0
        def double(x: 1..9) = 2 * x
        flow:
            n = double(1, 2)
            win a
        """, ["def double takes 1 argument, not 2"], 5, 9, id="wrong-arity"),
    pytest.param("""
        players a, b
        action play():
            pass
        flow:
            choose a: pley
            win a
        """, ["unknown action pley", "expected: play", "did you mean 'play'?"], 5, 15,
        id="unknown-action-in-choose"),
    pytest.param("""
        players a, b
        var n: int = 0
        flow:
            if changed(n):
                win a
            draw
        """, ["changed(...) is only allowed in the condition of a trigger"], 4, 8,
        id="changed-outside-trigger"),
    pytest.param("""
        players a, b
        def f(x: 1..3) = g(x) + 1
        def g(x: 1..3) = f(x) - 1
        flow:
            win a
        """, ["def f is recursive (f -> g -> f)"], 2, 18, id="recursive-defs"),
    pytest.param("""
        players a, b
        rule turn:
            choose a: play
        action play():
            do turn
        flow:
            do turn
            win a
        """, ["rule turn is recursive (turn -> play -> turn)"], 3, 5,
        id="recursive-rule-through-action"),
    pytest.param("""
        players a, b
        table points(tricks: 0..4):
            0 => 5
            1..2 => 3
        flow:
            win a
        """, ["table points has no case for tricks=3; tricks=4", "else =>"], 2, 1,
        id="table-uncovered"),
    pytest.param("""
        players a, b
        table points(tricks: 0..4):
            0..2 => 5
            2 => 3
            3..4 => 1
        flow:
            win a
        """, ["rows at lines 3 and 4 both match tricks=2"], 4, 5, id="table-overlap"),
    pytest.param("""
        players a, b
        zone deck: stack
        action guess():
            shuffle deck
        flow:
            simultaneously p in players: guess
            win a
        """, ["action guess is played simultaneously (line 6), so it cannot contain shuffle"],
        4, 5, id="pause-in-simultaneous-action"),
    pytest.param("""
        players a, b
        var n: int = 0
        rule pick:
            random k in 1..3
            n = k
        trigger big when n > 3:
            do pick
        flow:
            win a
        """, ["trigger big cannot contain random (through rule pick)"], 4, 5,
        id="pause-in-trigger-via-rule"),
    pytest.param("""
        players red, black
        enum colour = red, black
        flow:
            win red
        """, ["ambiguous name red", "expected: player.red, colour.red"], 4, 9,
        id="ambiguous-member"),
    pytest.param("""
        players a, b
        enum rank = four, five
        var five[1..2]: int = 0
        flow:
            five[1] = 3
            win if five[1] > 2 then a else b
        """, ["the var five has the name of a member of rank", "only the member can be "
              "written out (rank.five); rename the var"], 3, 5, id="var-named-like-a-member"),
    pytest.param("""
        players a, b
        card n: 1..3
        zone pile: stack
        def size(c: pile) = c.n
        flow:
            win if size(pile) > 1 then a else b
        """, ["argument 1 of def size must be card, not pile: the parameter ranges over the "
              "cards of a zone"], 6, 17, id="zone-given-for-a-card-parameter"),
    pytest.param("""
        players a, b
        zone deck: stack
        action go():
            reveal cards(deck) to others
        flow:
            choose a: go
            win a
        """, ["unknown name others", "note: `others` is a word of `seen by` only; the "
              "other seats are `[q for q in players if q != me]`"], 4, 27,
        id="others-as-a-value"),
    pytest.param("""
        players a, b
        card n: 1..4
        cards into deck: card(n: i) for i in 1..4
        zone deck: set
        flow:
            shuffle deck
            win a
        """, ["deck is a set zone, whose cards have no order, so shuffling it would change "
              "nothing", "declare it a stack to shuffle it"], 6, 5,
        id="shuffled-set"),
    pytest.param("""
        players a, b
        var n: int = 0
        flow:
            n = count(lst + [1])
            win a
        """, ["unknown name lst"], 4, 15,
        id="join-of-unknown-said-once"),   # + then said "cannot compute unknown + ..."
    pytest.param("""
        players a, b
        var n: int = 0
        flow:
            n = count(-[1] + [2])
            win a
        """, ["the operand of - must be int, not list[int]"], 4, 16,
        id="join-of-negated-said-once"),   # then "write the item as a list of one, [-[1]]"
    pytest.param("""
        players a, b
        def f(xs: lst[card]) = 1
        flow:
            win a
        """, ["unknown name lst: a list type is written list[card]", "did you mean 'list'?"],
        2, 11, id="misspelt-list-type"),   # "unknown zone or variable", then "must have a type"
    pytest.param("""
        players a, b
        def f(xs: list[card, card]) = 1
        flow:
            win a
        """, ["list[...] takes the type of its items, one: list[card]"], 2, 11,
        id="list-type-of-two"),            # "a type only of a def's parameter", in a def's
    pytest.param("""
        players a, b
        table tb(k: [1] + [2]):
            1 => 10
        flow:
            win a
        """, ["table tb has no case for k=2"], 2, 1, id="joined-table-domain"),
    pytest.param("""
        players a, b
        option bonus: bool = yes
        flow:
            win a
        """, ["unknown name yes", "did you mean 'true'?"], 2, 22, id="yes-for-true"),
    pytest.param("""
        players a, b
        var n: int = 0
        flow:
            n = count([1] + 2)
            win a
        """, ["cannot compute list[int] + int"], 4, 15, id="bad-sum-said-once"),
    pytest.param("""
        players a, b
        option rounds: integer = 3
        flow:
            win a
        """, ["unknown type integer", "expected: int, bool, player, card",
              "did you mean 'int'?"], 2, 16, id="unknown-option-type"),
    pytest.param("""
        players a, b
        option size: 1..5 = 3
        var n: int = 0
        flow:
            for size in 1..3:
                n += size
            win a
        """, ["local size hides the option size"], 5, 9, id="local-hides-option"),
    pytest.param("""
        players a, b
        def mine() = me
        flow:
            win a
        """, ["me is not defined in def mine", "exists only in actions and in the rules "
              "they do"], 2, 14, id="me-in-def"),
    pytest.param("""
        players a, b
        var n: int = 0
        trigger t when n > 1:
            n = seat(me)
        flow:
            win a
        """, ["me is not defined in trigger t"], 4, 14, id="me-in-trigger"),
    pytest.param("""
        players a, b
        option size: 1..5 = 9
        flow:
            win a
        """, ["the default 9 of option size is outside 1..5"], 2, 21,
        id="option-default-out-of-range"),
    pytest.param("""
        players a, b
        option fast: bool = 3
        flow:
            win a
        """, ["the default of option fast must be bool, not int"], 2, 21,
        id="option-default-type"),
    pytest.param("""
        players a, b
        action pick(k: 1..3):
            k = 2
        flow:
            choose a: pick
            win a
        """, ["cannot assign to the parameter k"], 3, 5, id="assign-to-parameter"),
    pytest.param("""
        players a, b
        zone deck: stack
        var n: int = 0
        flow:
            n = cout(deck)
            win a
        """, ["unknown function cout", "did you mean 'count'?"], 5, 9,
        id="unknown-function"),
    pytest.param("""
        players a, b
        zone deck: stack
        var n: int = 0
        flow:
            n = sum([1, 2])
            win a
        """, ["sum is written sum(item for x in xs if cond)", "not with a list"], 5, 9,
        id="aggregate-given-a-list"),
    pytest.param("""
        players a, b
        var n: int = 0
        flow:
            n = max([1, 2])
            win a
        """, ["max takes 2 arguments or more", "the greatest of a list is max(x for x in"],
        4, 9, id="max-of-one-list"),
    pytest.param("""
        players a, b
        action pick(k: 1..3):
            secret j
            pass
        flow:
            choose a: pick
            win a
        """, ["secret j: j is not a parameter of action pick", "expected: k"], 3, 12,
        id="secret-not-a-param"),
    pytest.param("""
        players a, b
        zone hand: set, seen by owner
        flow:
            win a
        """, ["zone hand is seen by owner, so its first index must be player"], 2, 1,
        id="seen-by-owner-without-player"),
    pytest.param("""
        players a, b
        zone hand[player]: stack
        flow:
            shuffle hand[a, 1]
            win a
        """, ["zone hand takes 1 index, not 2"], 4, 13, id="index-count"),
    pytest.param("""
        players a, b
        zone pile[players]: stack
        flow:
            win a
        """, ["index 1 of zone pile must be fixed when the game starts"], 2, 11,
        id="index-domain-not-fixed"),
    pytest.param("""
        players a, b
        var n: int = 0
        rule add(k: 1..3):
            n += k
        flow:
            do add(true)
            win a
        """, ["argument 1 of rule add must be int, not bool"], 6, 12, id="rule-argument-type"),
    pytest.param("""
        players a, b
        enum colour = reds, blacks
        var c: colour = reds
        flow:
            c = colour.purple
            win a
        """, ["enum colour has no member purple", "expected: reds, blacks"], 5, 16,
        id="unknown-qualified-member"),
    pytest.param("""
        players a, b
        flow:
            win 3
        """, ["the winner must be a player or a list of players, not int"], 3, 9,
        id="win-needs-player"),
    pytest.param("""
        players a, b
        table t(x: 1..2):
            1 => 5
            2 => true
        flow:
            win a
        """, ["table t gives int in earlier rows but bool here"], 4, 10,
        id="table-value-types"),
    pytest.param("""
        players a, b
        var n: int = 0
        flow:
            win a
        flow:
            draw
        """, ["a ruleset has only one flow declaration; the first is at line 3"], 5, 1,
        id="second-flow"),
    pytest.param("""
        zone deck: stack
        flow:
            draw
        """, ["the ruleset has no players declaration"], 1, 1, id="no-players"),
    pytest.param("""
        players a, b
        card rank: 1..13
        zone deck: stack
        cards into deck: card(rnk: r) for r in 1..13
        flow:
            win a
        """, ["cards have no field rnk", "did you mean 'rank'?"], 4, 23,
        id="unknown-card-field-in-card-call"),
    pytest.param("""
        players a, b
        zone deck: stack
        trigger t when changed(deck):
            pass
        flow:
            win a
        """, ["changed takes the name of a variable (var), and deck is not one"], 3, 24,
        id="changed-of-a-zone"),
    pytest.param("""
        players a, b
        action act():
            pass
        flow:
            do act
            win a
        """, ["act is an action, not a rule"], 5, 8, id="do-an-action"),
    pytest.param("""
        players a, b
        card rank: 1..13
        zone deck: stack
        flow:
            if top(deck) < 3:
                win a
            draw
        """, ["cannot compare card < int: ordering works on int only"], 5, 8,
        id="ordering-a-card"),
    pytest.param("""
        players a, b
        enum rank = low, high
        var r: rank = low
        flow:
            if r > low:
                win a
            draw
        """, ["cannot compare rank > rank: ordering works on int only; an enum's members "
              "compare by their place in its declaration with ord(): ord(a) > ord(b)"], 5, 8,
        id="ordering-enum-members"),
    pytest.param("""
        players a, b
        zone deck: stack
        flow:
            move 3 to deck
            win a
        """, ["move needs a card, a list of cards or a zone, not int"], 4, 10,
        id="move-a-number"),
    pytest.param("""
        players a, b
        var n: int = 0
        action act():
            let x = 1
            let x = 2
            n = x
        flow:
            choose a: act
            win a
        """, ["x is already a let local here (line 4)"], 5, 9, id="let-twice"),
    pytest.param("""
        players a, b
        var n[player]: int = 0
        flow:
            n = 3
            win a
        """, ["var n takes 1 index, not 0"], 4, 5, id="indexed-var-without-index"),
    pytest.param("""
        players 2..1000000000 = 2
        flow:
            draw
        """, ["a game of up to 1,000,000,000 players: gdl takes at most 1,000"], 1, 1,
        id="players-without-end"),        # it hung naming the seats, then ran out of memory
    pytest.param("""
        players 2
        action lay(cs: list[card]):
            pass
        flow:
            draw
        """, ["list[...] is a type only of a def's or rule's parameter (`def "
              "melds(xs: list[card])`): an action's parameter ranges over a domain"], 2, 16,
        id="list-type"),                  # "unknown zone or variable list"
    # a `none` written among a list's cards was taken with the list of card? items, and
    # ran into the engine as an internal AttributeError
    pytest.param("""
        players 2
        zone deck: stack
        zone pile: stack
        flow:
            move [top(deck), none] to pile
            draw
        """, ["move needs a card, a list of cards or a zone, not list[card?]"], 5, 10,
        id="none-among-written-out-cards"),
    # index(...) was of any type: a seat stored in an int ran into arithmetic unchecked
    pytest.param("""
        players 2
        zone side[1..9, player]: stack
        var n: int = 0
        flow:
            n = index(side[2, p1], 2)
            draw
        """, ["cannot assign player to n, which holds int"], 5, 9, id="index-typed"),
    pytest.param("""
        players 2
        zone side[1..9, player]: stack
        var n: int = 0
        flow:
            n = index(side[2, p1], 3)
            draw
        """, ["there is no index 3: side has 2 indices, counted from 1"], 5, 28,
        id="index-past-the-indices"),
    pytest.param("""
        players 2
        zone side[1..9, player]: stack
        var n: int = 0
        action look(i: 1..2):
            n = index(side[2, p1], i)
        flow:
            choose p1: look
            draw
        """, ["index(...) here could be any of int (of side), player (of side): give it "
              "the position as a number"], 5, 9,
        id="index-of-two-types"),
    pytest.param("""
        players 2
        zone side[1..9, player]: stack
        zone hand[player]: set
        var n: int = 0
        flow:
            n = index(zone_of(top(side[1, p1])), 1)
            draw
        """, ["could be any of player (of hand), int (of side): give it a zone whose "
              "family the checker knows"], 6, 9,
        id="index-of-any-family"),
]


@pytest.mark.parametrize("src, substrings, line, col", BAD)
def test_bad_ruleset_is_reported(src, substrings, line, col):
    problems = _problems(src)
    assert len(problems) == 1, "\n".join(str(p) for p in problems)
    assert problems[0].source, "a problem must carry the source for its excerpt"
    _assert_rendered(problems[0], substrings, line, col)


@pytest.mark.parametrize("decl, what", [
    ("zone z[1..1000000, 1..1000000]: stack", "z would be a family of 1,000,000,000,000 "
                                                "zones"),
    ("var v[1..1000000, 1..1000]: int = 0", "v would be a family of 1,000,000,000 variables"),
])
def test_a_family_of_more_than_a_million_is_refused_where_it_is_declared(decl, what):
    # each index was within the million a range may hold, and their product ran out of
    # memory (with a raw traceback for the zones)
    from gdl.errors import CheckError
    from interpreter import load_text
    with pytest.raises(CheckError) as info:
        load_text(f"players 2\n{decl}\nflow:\n    draw\n", path="big.gdl")
    assert f"big.gdl:2:1: check error: {what}: gdl takes at most 1,000,000" in str(info.value)


def test_check_error_renders_every_problem():
    problems_src = """
        players a, b
        zone deck: stack
        var n: int = 0
        flow:
            shuffle dek
            n = true
            choose a: nothing
        """
    with pytest.raises(CheckError) as info:
        check(parse_text(_text(problems_src), PATH))
    err = info.value
    assert [(p.span.line, p.span.col) for p in err.problems] == [(4, 1), (5, 13), (6, 9),
                                                                (7, 15)]
    text = str(err)
    for where in ("bad.gdl:4:1", "bad.gdl:5:13", "bad.gdl:6:9", "bad.gdl:7:15"):
        assert where in text
    assert "the game never ends" in text and "unknown action nothing" in text
    assert text.endswith("4 problems found.")


def test_problems_from_every_pass_are_collected_at_once():
    src = """
        players a, b
        zone deck: stack
        zone deck: set
        option n: 1..3 = 2
        table t(x: 0..1):
            0 => 1
        action pick(k: int):
            pass
        flow:
            n = 3
            choose a: pick
            win a
        """
    messages = [p.message for p in _problems(src)]
    assert any(m.startswith("duplicate name deck") for m in messages)          # scope
    assert any(m.startswith("cannot assign to the option n") for m in messages)  # names
    assert any("domain of parameter k is not finite" in m for m in messages)    # domains
    assert any(m.startswith("table t has no case for x=1") for m in messages)   # tables
    assert len(messages) == 4


# ---------------------------------------------------------------------------- good games
HIGH_CARD = """
    game "High card"
    players north, south
    option rounds: 1..10 = 3 "How many rounds are played."
    enum suit = clubs "C", diamonds "D", hearts "H", spades "S"
    enum rank = two "2", three "3", four "4", five "5", six "6", seven "7", eight "8", \
        nine "9", ten "T", jack "J", queen "Q", king "K", ace "A"
    card rank: rank, suit: suit
    cards into stock: card(rank: r, suit: s) for s in suit for r in rank
    zone stock: stack
    zone hand[player]: set, seen by owner
    zone pile[player]: stack, face up
    var score[player]: int = 0
    def value(c: card) = ord(c.rank) + 2
    action play(c: cards(hand[me])) "Each player lays one card face up.":
        move c to pile[me] face up
    rule score_round "The higher card wins the round.":
        let a = top(pile[north])
        let b = top(pile[south])
        if value(a) > value(b):
            score[north] += 1
        elif value(b) > value(a):
            score[south] += 1
    flow:
        shuffle stock
        deal rounds from stock to hand[p] for p in players
        repeat rounds:
            for p in players:
                choose p: play
            do score_round
        if score[north] > score[south]:
            win north
        elif score[south] > score[north]:
            win south
        else:
            draw
    """

TRIGGERS_AND_TABLES = """
    game "Chips"
    players 2..4 = 3
    option target: 5..30 = 12 "Points needed to end the game."
    enum colour = red, black
    card colour: colour, value: 1..6
    cards into deck: card(colour: c, value: v) for c in colour for v in 1..6
    zone deck: stack
    zone discard: stack, face up
    var score[player]: int = 0
    var last: card? = none
    table bonus(v: 1..6) "The bonus printed on the score card.":
        1..2 => 0
        3..4 => 1
        5 => 2
        6 => 4
    table colour_points(c: colour, high: bool):
        red, true => 2
        red, false => 1
        else => 0
    action draw_card() "Draw the top card and score it.":
        require count(deck) > 0 "The deck must not be empty."
        let c = top(deck)
        move c to discard face up
        last = c
        score[me] += c.value + bonus(c.value) + colour_points(c.colour, c.value > 3)
    action stop() "Stop drawing.":
        pass
    trigger reached when changed(score) and any(score[p] >= target for p in players) priority 1:
        end game
    invariant no_negative: all(score[p] >= 0 for p in all_players)
    flow:
        shuffle deck
        while count(deck) > 0:
            for p in players:
                if count(deck) > 0 and last != none:
                    choose p: draw_card, stop
        end game
    returns(p) = score[p]
    """

SIMULTANEOUS = """
    game "Odd or even"
    players odd, even
    option rounds: 1..9 = 5
    option tie_rule: {replay, odd_wins} = replay "Who wins a tied match."
    enum side = heads, tails
    enum word = show, settle
    var picked[player]: side? = none
    var wins[player]: int = 0
    action show(s: side) "Each player shows a side, unseen by the other.":
        secret s when tie_rule == replay
        picked[me] = s
    rule settle "Odd wins when the sides differ.":
        if picked[odd] == picked[even]:
            wins[even] += 1
        else:
            wins[odd] += 1
    flow:
        repeat rounds:
            simultaneously p in players: show
            do settle
        if wins[odd] > wins[even] or tie_rule == odd_wins:
            win odd
        else:
            win even
    """


@pytest.mark.parametrize("src", [HIGH_CARD, TRIGGERS_AND_TABLES, SIMULTANEOUS],
                         ids=["high-card", "triggers-and-tables", "simultaneous"])
def test_valid_game_passes(src):
    info = check(parse_text(_text(src), "good.gdl"))
    assert isinstance(info, CheckedInfo)


def test_checked_info_records_types():
    info = check(parse_text(_text(TRIGGERS_AND_TABLES), "good.gdl"))
    assert info.option_types["target"] == Prim("int")
    assert info.option_types["players"] == Prim("int")
    assert info.var_types["last"] == OptT(Prim("card"))
    assert info.card_fields == {"colour": EnumT("colour"), "value": Prim("int")}
    assert info.result_types["bonus"] == Prim("int")
    assert info.symbols["deck"].kind == "zone"
    assert info.enums["colour"] == ("red", "black")


def test_choice_option_declares_an_enum():
    info = check(parse_text(_text(SIMULTANEOUS), "good.gdl"))
    assert info.enums["tie_rule"] == ("replay", "odd_wins")
    assert info.option_types["tie_rule"] == EnumT("tie_rule")
    assert info.seats == ("odd", "even")


def test_unnamed_seats_are_p1_to_pn():
    src = """
        players 3
        var n[player]: int = 0
        flow:
            n[p3] += 1
            win p1
        """
    info = check(parse_text(_text(src), "good.gdl"))
    assert info.seats == ("p1", "p2", "p3")


def test_qualified_members_resolve_an_ambiguity():
    src = """
        players red, black
        enum colour = red, black
        var c: colour = colour.red
        flow:
            if c == colour.black:
                win player.red
            else:
                win [player.black, player.red]
        """
    check(parse_text(_text(src), "good.gdl"))


def test_variant_header_is_ignored():
    src = 'variant of "base.gdl"\n' + _text(SIMULTANEOUS)
    assert isinstance(check(parse_text(src, "good.gdl")), CheckedInfo)


def test_zone_values_and_families():
    src = """
        players a, b
        card rank: 1..3
        zone cell[1..2, 1..2]: stack, face up
        var sel: cell? = none
        def full(z: cell) = count(z) > 0
        action pick(z: cell, c: cards(z)):
            require full(z) and z != sel
            sel = z
            move c to top of cell[1, 1]
        flow:
            choose a: pick
            if any(full(z) for z in cell):
                win a
            draw
        """
    info = check(parse_text(_text(src), "good.gdl"))
    assert info.var_types["sel"] == OptT(ZoneT("cell"))
    assert info.result_types["full"] == Prim("bool")


def test_list_types():
    src = """
        players a, b
        card rank: 1..3
        zone deck: stack
        def low() = [c for c in cards(deck) if c.rank < 2]
        flow:
            win a
        """
    info = check(parse_text(_text(src), "good.gdl"))
    assert info.result_types["low"] == ListT(Prim("card"))


# ---------------------------------------------------------------------------- robustness
_GOOD = [_text(g) for g in (HIGH_CARD, TRIGGERS_AND_TABLES, SIMULTANEOUS)]
_WORDS = sorted({w for g in _GOOD for w in g.split()})


@st.composite
def _mutants(draw):
    """A valid game with a few words replaced, dropped or duplicated."""
    lines = draw(st.sampled_from(_GOOD)).splitlines()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.sampled_from([k for k, line in enumerate(lines) if line.strip()]))
        words = lines[i].split(" ")
        j = draw(st.sampled_from([k for k, w in enumerate(words) if w]))
        words[j] = draw(st.sampled_from(["", words[j] + " " + words[j]] + _WORDS))
        lines[i] = " ".join(words)
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None)
@given(_mutants())
def test_checker_never_crashes_and_always_gives_a_place(src):
    """Whatever parses is either accepted or rejected with located, rendered problems."""
    try:
        ruleset = parse_text(src, PATH)
    except (GdlError, DedentError):     # DedentError: a parser bug, see test_syntax_errors
        return
    try:
        check(ruleset)
    except CheckError as err:
        for p in err.problems:
            assert p.span.line >= 1 and p.source == ruleset.source
            assert str(p).startswith(f"{PATH}:{p.span.line}:{p.span.col}: ")


@pytest.mark.parametrize("text, message", [
    ('game "t"\nplayers 2\nvar none: int = 0\nflow:\n    draw\n', "none cannot name a var"),
    ('game "t"\nplayers 2\nflow:\n    let move = 1\n    draw\n', "move cannot name a let local"),
])
def test_names_that_cannot_be_read_back_are_refused(text, message):
    from gdl.checker import check
    with pytest.raises(CheckError) as info:
        check(parse_text(text, "k.gdl"))
    assert message in str(info.value)


def test_keywords_may_name_actions_and_rules():
    from gdl.checker import check
    check(parse_text('game "t"\nplayers 2\naction pass():\n    win me\nrule deal:\n'
                     '    choose p1: pass\nflow:\n    do deal\n', "k.gdl"))


def test_me_in_a_rule_the_flow_does_names_the_rule_and_the_flow():
    # `me` in a rule is the player whose action did it: done from the flow, where nobody
    # is making a move, the game does not load, and the error says which rule and why;
    # done from an action, it loads
    from interpreter import load_text
    text = _text("""
        players a, b
        var n[player]: int = 0
        rule bump:
            n[me] += 1
        action go():
            do bump
        flow:
            CALL
            end game
        """)
    load_text(text.replace("CALL", "choose a: go"))
    with pytest.raises(CheckError) as info:
        load_text(text.replace("CALL", "do bump"))
    assert str(info.value).startswith("<string>:4:7: check error: ")
    assert "me is not defined in rule bump when the flow does it" in str(info.value)


@pytest.mark.parametrize("caller_first", [True, False])
def test_a_long_chain_of_defs_loads_and_runs(caller_first):
    # written caller first, 200 defs each calling the next were checked and compiled by
    # recursion as deep as the chain: "the ruleset nests too deeply", with no place
    from interpreter import load_text
    defs = [f"def f{i}() = f{i + 1}() + 1" for i in range(200)] + ["def f200() = 1"]
    if not caller_first:
        defs.reverse()
    game = load_text("players 2\nvar x: int = 0\n" + "\n".join(defs) +
                     "\nflow:\n    x = f0()\n    end game\n")
    state = game.new_state(seed=0)
    assert game.evaluate("x", state) == 201


def test_a_chain_of_options_too_long_to_follow_is_an_error_at_a_declaration():
    lines = ["players 2", "option o0: int = 1"] + \
        [f"option o{i}: int = o{i - 1} + 1" for i in range(1, 400)] + ["flow:", "    draw"]
    with pytest.raises(CheckError) as info:
        check(parse_text("\n".join(lines) + "\n"))
    problem = info.value.problems[0]
    assert "a chain of declarations" in problem.message and problem.span.line > 1


@pytest.mark.parametrize("lines, says", [
    (["card n: 1..1000", "cards into d: card(n: i) for i in 1..1000 for j in 1..1000",
      "zone d: stack"], "more than 100,000 cards"),           # 34 s, then out of memory
    (["zone a[1..1000, 1..600]: stack", "zone b[1..1000, 1..600]: stack"],
     "with b the game would have 1,200,000 zones and variables"),    # 42 s, 1.6 GB for 4
])
def test_games_too_large_to_lay_out_are_refused_at_once(lines, says):
    import time
    from interpreter import load_text
    began = time.monotonic()
    with pytest.raises(GdlError, match=says):
        load_text("\n".join(["players 2"] + lines + ["flow:", "    draw"]) + "\n")
    assert time.monotonic() - began < 20


def test_a_def_nothing_calls_is_not_compiled_into_an_error():
    # compiling defs callees first compiled one that nothing calls, whose constant range
    # is too large: a ruleset that loaded failed
    from interpreter import load_text
    text = "players 2\ndef unused() = count(1..2000000)\nflow:\n    draw\n"
    assert load_text(text).new_state(seed=0).is_terminal()
    with pytest.raises(GdlError, match="holds 2,000,000 values"):
        load_text(text.replace("    draw", "    let n = unused()\n    draw"))
    # a def that failed inside another's compiling was left half made: "inner calls itself"
    nested = text.replace("def unused()", "def inner()") + "def outer() = inner() + 1\n"
    with pytest.raises(GdlError, match="holds 2,000,000 values"):
        load_text(nested.replace("    draw", "    let n = outer()\n    draw"))


def test_a_new_card_missing_a_field_is_a_check_error_among_the_others():
    # it was raised when the game was compiled, after the checker: one at a time, and
    # only once every other problem was mended
    problems = _problems("""
        game "t"
        players 2
        card n: 1..3, big: bool
        cards into deck: card(n: 1)
        cards into deck: card(n: 2, big: true)
        cards into pile: card(big: false)
        zone deck: stack
        zone pile: stack
        var x: int = true
        flow:
            draw
    """)
    texts = [(p.span.line, str(p).splitlines()[0].split("check error: ")[1]) for p in problems]
    assert texts == [(4, "card(...) must give every field; missing: big"),
                     (6, "card(...) must give every field; missing: n"),
                     (9, "var x holds int, so it cannot start as bool")]


def test_a_card_of_positional_arguments_is_told_that_alone():
    # the missing-field error came too, beside "card(...) takes field: value arguments"
    problems = _problems("""
        game "t"
        players 2
        card n: 1..3, big: bool
        cards into deck: card(1, true)
        zone deck: stack
        flow:
            draw
    """)
    assert {str(p).splitlines()[0].split("check error: ")[1] for p in problems} == {
        "card(...) takes field: value arguments, as in card(rank: 3)"}
