"""The language's keywords, and which of them a name may not take.

Keywords are contextual: the parser reads `pass` as a name wherever a name is expected, so
an action may be called `pass` and a rule `deal`.  Two places are not contextual: a
statement may start with an assignment, so a variable that can be assigned may not be
named after a statement keyword; and an expression may start with `if`, `not`, `none`,
`true` or `false`, so no value's name may be one of those.
"""

KEYWORDS = frozenset((
    "game variant players option enum card cards zone var def table rule action trigger "
    "invariant flow returns require secret if elif else repeat while for let move deal "
    "shuffle flip reveal choose simultaneously random win draw end eliminate fail do pass "
    "top bottom of to at depth face up down seen by into when priority then and or not in "
    "none true false").split())

#: Words that start a statement: not for names that are assigned (var, let).
STATEMENT_WORDS = frozenset((
    "if repeat while for let move deal shuffle flip reveal choose simultaneously random "
    "win draw end eliminate fail do pass secret require").split())

#: Words that start an expression: not for any name used as a value.
EXPRESSION_WORDS = frozenset("if not none true false".split())


def reserved_for(name: str, kind: str):
    """Returns why `name` cannot name a `kind` (var, let local, action, ...), or None."""
    if name in EXPRESSION_WORDS and kind not in ("action", "rule"):
        return f"{name} starts an expression"
    if name in STATEMENT_WORDS and kind in ("var", "let local"):
        return f"{name} starts a statement, so a variable by that name could not be assigned"
    return None
