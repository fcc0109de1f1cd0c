"""The names the language predefines: builtin functions, aggregates and domain names.

Both the checker (to type and name-check) and the interpreter's compiler (to run) read
these tables, so a builtin is declared exactly once.  The signature strings are the
checker's contract; `docs/language.md` lists the same functions.
"""
from __future__ import annotations

# Type words used in signatures: int, bool, player, card, zone (a zone reference of any
# family), enum (any enum member), list[T] (a finite collection), any, T (same as another
# argument), and `cards` = a zone reference or a list[card] (a zone stands for its cards).
FUNCTIONS = {
    # name: (parameter types, result type, one-line doc)
    "count": (("cards|list",), "int", "number of cards in a zone, or items in a list"),
    "cards": (("zone",), "list[card]",
              "the cards of a zone, top first (a set's: in card order, the top last)"),
    "top": (("zone", "int?"), "card|list[card]",
            "the top card of a zone; top(z, n): the top n cards, top first"),
    "bottom": (("zone", "int?"), "card|list[card]",
               "the bottom card of a zone; bottom(z, n): the bottom n cards, top first"),
    "faceup": (("card",), "bool", "whether a card lies face up"),
    "facedown": (("card",), "bool", "whether a card lies face down"),
    "zone_of": (("card",), "zone", "the zone a card is in"),
    "owner": (("zone",), "player?",
              "the player a zone belongs to (its first index), none if that is no player"),
    "knows": (("player", "card"), "bool", "whether a card lies face up or was revealed to a player"),
    "next": (("player",), "player", "the next active player after it in seat order (it may be out)"),
    "prev": (("player",), "player", "the previous active player before it in seat order (it may be out)"),
    "opponent": (("player",), "player", "the other active player (two active players only)"),
    "active": (("player",), "bool", "whether a player is still in the game"),
    "seat": (("player",), "int", "a player's seat number, from 1"),
    "adjacent": (("zone", "zone"), "bool",
                 "two zones of one family whose integer indices differ by 1 in exactly one "
                 "place, their other indices the same"),
    "index": (("zone", "int"), "index",
              "the i-th index (from 1) of a zone reference, of that index's type"),
    "ord": (("enum",), "int", "the position of an enum member, from 0"),
    "abs": (("int",), "int", "absolute value"),
    "min": (("int", "int"), "int", "the smaller of two numbers (or the least item: aggregate)"),
    "max": (("int", "int"), "int", "the larger of two numbers (or the greatest item: aggregate)"),
    "changed": (("var",), "bool",
                "in a trigger condition: the variable was assigned since the last check"),
    "card": (("keywords",), "card", "the first card with these attribute values"),
    "text": (("any",), "text", "the canonical text of any value: `KH`, `cell[1,2]`, `p1`, `7`"),
    "join": (("list", "text"), "text", "join(xs, sep): the texts of a list joined by sep"),
    "split": (("text", "text"), "list[text]", "split(s, sep): the pieces of s between seps"),
    "chars": (("text",), "list[text]", "the characters of a text, one text each"),
    "number": (("text",), "int", "the whole number a text spells (a rule error if none)"),
    "card_named": (("text",), "card?", "the first card whose text is this, or none"),
    "sublist": (("list", "int", "int"), "list",
                "sublist(xs, i, n): the n items of a list from position i (from 0)"),
    "subsets": (("cards|list",), "lists",
                "every choice of items of a list (a zone: its cards), each in the list's "
                "order, the fewest items first, from the empty list: 2 ** n lists"),
    "combinations": (("cards|list", "int"), "lists",
                     "combinations(xs, k): every choice of k items of a list, each in the "
                     "list's order"),
}

# `f(expr for x in xs if cond)`: the aggregate functions.
AGGREGATES = {
    "sum": "int: the sum of the items",
    "count": "int: how many items there are (that satisfy the condition)",
    "any": "bool: whether some item is true",
    "all": "bool: whether every item is true",
    "min": "the least item (a rule error if there is none)",
    "max": "the greatest item (a rule error if there is none)",
    "first": "the first item, or none",
}

# Names that stand for a value or a domain without being declared.
NAMES = {
    "players": "list[player]: the active players in seat order",
    "all_players": "list[player]: every seat, active or not",
    "player": "the domain of all seats (a type name)",
    "num_players": "int: the number of seats",
    "me": "player: in an action, the player who makes it",
    "bool": "the domain {false, true} (a type name)",
    "int": "the type of integers (not a finite domain)",
    "text": "the type of texts (not a finite domain)",
    "card": "the type of cards; as a domain, every card of the game",
}

TYPE_NAMES = ("int", "bool", "player", "card", "text")
