"""Option sweeps for `gdl fuzz --sweep-options` and `--players`.

Each swept configuration changes one option of the base configuration to another value:
every member of a choice, the other truth value, and the two ends of a bounded range
(text and unbounded options are left alone: no value can be guessed for them).  A
configuration that cannot be set up is an option clash.  One that plays exactly like the
base in the same seeded playthroughs (same moves offered, same table, same returns at
every step) is a candidate dead option value: either it never matters, or it matters only
in positions those playthroughs did not reach.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from gdl import ast as A

from .options import option_decls


def value_text(value) -> str:
    """Returns an option value as `--set` writes it."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    return getattr(value, "name", None) or str(value)


def _bound(expr, current: Dict[str, object]) -> Optional[int]:
    if isinstance(expr, A.IntLit):
        return expr.value
    if isinstance(expr, A.Name) and isinstance(current.get(expr.id), int):
        return current[expr.id]
    return None


def option_values(ruleset, current: Dict[str, object]) -> List[Tuple[str, List[str]]]:
    """Returns (option, the values a sweep tries) for every option a sweep can vary."""
    out = []
    for name, decl in option_decls(ruleset).items():
        t = decl.type
        if isinstance(t, A.ChoiceType):
            values = list(t.names)
        elif isinstance(t, A.NamedType) and t.name == "bool":
            values = ["false", "true"]
        elif isinstance(t, A.RangeType):
            lo, hi = _bound(t.lo, current), _bound(t.hi, current)
            values = [str(v) for v in dict.fromkeys((lo, hi)) if v is not None]
        else:
            continue
        out.append((name, values))
    return out


def sweep_configs(ruleset, base: Dict[str, str], current: Dict[str, object]
                  ) -> List[Dict[str, str]]:
    """Returns the configurations that change one option of `base` to another value."""
    configs = []
    for name, values in option_values(ruleset, current):
        now = value_text(current.get(name))
        for v in values:
            if v != now:
                configs.append({**base, name: v})
    return configs


def player_configs(ruleset, base: Dict[str, str], counts,
                   default: int) -> List[Dict[str, str]]:
    """Returns one configuration per player count, or raises OptionError naming the
    counts the game does not take (a usage error, not a finding of the game's): a game of
    a fixed number of seats takes that number alone, as it is.  The count `base` plays
    (`default`) is `base` itself, not a second configuration of the same game."""
    from gdl.errors import OptionError
    decl = next(d for d in ruleset.decls if isinstance(d, A.PlayersDecl))
    wrong = [n for n in counts if not decl.lo <= n <= decl.hi]
    if wrong:
        takes = f"{decl.lo}" if decl.lo == decl.hi else f"{decl.lo} to {decl.hi}"
        raise OptionError(f"--players: this game takes {takes} players, not "
                          f"{', '.join(map(str, wrong))}")
    if decl.lo == decl.hi:
        return [dict(base)]
    return [dict(base) if n == default else {**base, "players": str(n)}
            for n in dict.fromkeys(counts)]


def parse_players(text: str) -> List[int]:
    """Returns the player counts `--players` names: `4`, `2..7` or `2,3,5`."""
    from gdl.errors import OptionError
    try:
        if ".." in text:
            lo, hi = (int(x) for x in text.split("..", 1))
            counts = list(range(lo, hi + 1))
        else:
            counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise OptionError(f"--players takes a count, a range such as 2..7 or a list such "
                          f"as 2,3,5, not {text!r}") from None
    if not counts or min(counts) < 1:
        raise OptionError(f"--players names no player count ({text!r})")
    return counts


def changed_option(config: Dict[str, str], base: Dict[str, str]) -> Optional[tuple]:
    """Returns (name, value) of the one option a swept configuration changes."""
    for k, v in config.items():
        if base.get(k) != v:
            return k, v
    return None
