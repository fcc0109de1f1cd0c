"""Option values: defaults from the ruleset, overrides from `--set name=value` text."""
from __future__ import annotations

from typing import Dict, Mapping

from gdl import ast as A
from gdl.errors import MOST_DIGITS, OptionError, did_you_mean, whole_number


def option_decls(ruleset: A.Ruleset) -> Dict[str, A.OptionDecl]:
    """Returns the options a ruleset declares, including the implicit `players` range."""
    out = {d.name: d for d in ruleset.decls if isinstance(d, A.OptionDecl)}
    for d in ruleset.decls:
        if isinstance(d, A.PlayersDecl) and d.lo != d.hi:
            out["players"] = A.OptionDecl(
                "players", A.RangeType(A.IntLit(d.lo), A.IntLit(d.hi)), A.IntLit(d.default),
                "the number of players", span=d.span)
    return out


def _const_int(node, known: Mapping[str, object]):
    if isinstance(node, A.IntLit):
        return node.value
    if isinstance(node, A.Name) and isinstance(known.get(node.id), int):
        return known[node.id]
    if isinstance(node, A.BinOp) and node.op in "+-*":
        a, b = _const_int(node.left, known), _const_int(node.right, known)
        if a is not None and b is not None:
            return a + b if node.op == "+" else a - b if node.op == "-" else a * b
    return None


def _named_values(ruleset, type_name):
    """The member names of an enum, or the seat names for `player`; None for other types."""
    for d in ruleset.decls if ruleset is not None else ():
        if isinstance(d, A.EnumDecl) and d.name == type_name:
            return tuple(m.name for m in d.members)
        if type_name == "player" and isinstance(d, A.PlayersDecl):
            return d.names or tuple(f"p{i + 1}" for i in range(d.hi))
    return None


def parse_option_value(decl: A.OptionDecl, text: str, known: Mapping[str, object] = {},
                       ruleset: A.Ruleset = None):
    """Returns the option's value read from text, or raises OptionError."""
    t = decl.type
    where = f"option {decl.name} ({decl.span})" if decl.span.line else f"option {decl.name}"
    names = _named_values(ruleset, t.name) if isinstance(t, A.NamedType) else None
    if names is not None:
        if text in names:
            return text
        raise OptionError(f"{where} is one of {', '.join(names)}, not {text!r}",
                          expected=names, suggestion=did_you_mean(text, names))
    if isinstance(t, A.ChoiceType):
        if text in t.names:
            return text
        raise OptionError(f"{where} is one of {', '.join(t.names)}, not {text!r}",
                          expected=t.names, suggestion=did_you_mean(text, t.names))
    if isinstance(t, A.NamedType) and t.name == "text":
        return text
    if isinstance(t, A.NamedType) and t.name == "bool":
        if text.lower() in ("true", "yes", "on", "1"):
            return True
        if text.lower() in ("false", "no", "off", "0"):
            return False
        raise OptionError(f"{where} is true or false, not {text!r}",
                          expected=("true", "false"))
    value = whole_number(text)          # int() also takes 3_0 and other scripts' digits
    if value is None:
        digits = text.strip().removeprefix("-")
        if digits.isascii() and digits.isdigit():        # a whole number, but too long
            raise OptionError(f"{where} takes a whole number of at most {MOST_DIGITS} "
                              f"digits, not one of {len(digits)}")
        raise OptionError(f"{where} takes a whole number, not {text!r}")
    if isinstance(t, A.RangeType):
        lo, hi = _const_int(t.lo, known), _const_int(t.hi, known)
        if lo is not None and hi is not None and not lo <= value <= hi:
            raise OptionError(f"{where} must be between {lo} and {hi}, not {value}")
    return value


def resolve_overrides(ruleset: A.Ruleset, overrides: Mapping[str, object]) -> Dict[str, object]:
    """Returns checked override values by option name; text values are parsed by type."""
    decls = option_decls(ruleset)
    if not isinstance(overrides, Mapping):
        raise OptionError(f"options are given as a mapping of names to values, not a "
                          f"{type(overrides).__name__}")
    out: Dict[str, object] = {}
    for name, value in overrides.items():
        if name not in decls:
            raise OptionError(
                f"{ruleset.path} has no option {name!r}" +
                (f"; its options are {', '.join(sorted(decls))}" if decls else
                 "; it declares no options"),
                suggestion=did_you_mean(name, decls), expected=sorted(decls))
        text = value if isinstance(value, str) else _text(value)
        out[name] = parse_option_value(decls[name], text, out, ruleset)
    _check_bounds(decls, out)
    return out


def _check_bounds(decls, out) -> None:
    """Raises OptionError where an option's number, set or by default, lies outside its
    range once every option has its value: bounds that name other options (`hi:
    lo..20`) are known only then."""
    values: Dict[str, object] = {}
    for name, d in decls.items():
        values[name] = out[name] if name in out else \
            _const_int(d.default, values) if d.default is not None else None
    for name, d in decls.items():
        v, t = values[name], d.type
        if not isinstance(t, A.RangeType) or type(v) is not int:
            continue
        lo, hi = _const_int(t.lo, values), _const_int(t.hi, values)
        if lo is not None and hi is not None and not lo <= v <= hi:
            where = f"option {name} ({d.span})" if d.span.line else f"option {name}"
            raise OptionError(f"{where} must be between {lo} and {hi}, not {v}"
                              + ("" if name in out else " (its default)"))


def parse_set_args(items) -> Dict[str, str]:
    """Returns {name: text} from `name=value` strings."""
    out = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise OptionError(f"--set takes name=value, not {item!r}")
        out[name.strip()] = value.strip()
    return out


def _text(value) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def type_text(t) -> str:
    """An option's type as `gdl check --options` and the REPL's `options` show it:
    `1..10`, `{majority, plurality}`, `bool`, `text`."""
    if isinstance(t, A.ChoiceType):
        return "{" + ", ".join(t.names) + "}"
    if isinstance(t, A.RangeType):
        lo, hi = (getattr(x, "value", getattr(x, "id", "?")) for x in (t.lo, t.hi))
        return f"{lo}..{hi}"
    return getattr(t, "name", "")
