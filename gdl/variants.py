"""Variant files: `variant of "base.gdl"` plus declarations that replace the base's.

A variant changes a rule without copying the game: each named declaration (option, enum,
zone, var, def, table, rule, action, trigger, invariant) replaces the base's declaration of
the same name in place; new names are added, before the first replacing declaration
that names them (else at the end); a `game`, `players`, `card`, `flow` or `returns`
declaration replaces the base's; any `cards` declaration replaces all of the base's.  A
variant declares each once.  Variants may stack (a variant of a variant), up to a fixed
depth.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from . import ast as A
from .errors import GdlError, did_you_mean

_SINGLE = (A.GameDecl, A.PlayersDecl, A.CardDecl, A.FlowDecl, A.ReturnsDecl)
MAX_DEPTH = 8


def _key(decl):
    if isinstance(decl, _SINGLE):
        return type(decl).__name__
    return getattr(decl, "name", None)


def merge_variant(ruleset: A.Ruleset, parse_file, depth: int = 0,
                  chain: tuple = ()) -> A.Ruleset:
    """Returns `ruleset` with its base merged in, or unchanged if it is not a variant.
    `chain` holds the files of the variants above it, to name a cycle."""
    headers = [d for d in ruleset.decls if isinstance(d, A.VariantOf)]
    if not headers:
        return ruleset
    header = headers[0]
    if len(headers) > 1:
        raise GdlError(f"a ruleset is a variant of one base, and this one names a second "
                       f"({headers[1].path!r} after {header.path!r})", headers[1].span,
                       source=ruleset.source)
    here = Path(ruleset.path).resolve()
    if here in chain:
        names = [str(Path(p).name) for p in chain[chain.index(here):]] + [here.name]
        raise GdlError(f"variants form a cycle: {' -> '.join(names)} (each a variant of "
                       f"the next)", header.span, source=ruleset.source)
    if depth >= MAX_DEPTH:
        names = [str(Path(p).name) for p in chain] + [here.name, Path(header.path).name]
        raise GdlError(f"variants nest deeper than {MAX_DEPTH} levels: "
                       f"{' -> '.join(names)} (each a variant of the next)", header.span,
                       source=ruleset.source)
    base_path = Path(ruleset.path).parent / header.path
    # a base that is no ruleset file: an untrusted variant of any file had its lines shown
    if base_path.suffix != ".gdl":
        raise GdlError(f"the base of a variant is a ruleset file ending in .gdl, not "
                       f"{header.path!r}", header.span, source=ruleset.source)
    try:
        found, is_file = base_path.exists(), base_path.is_file()
    except (OSError, ValueError) as err:    # a name too long, a NUL
        raise GdlError(f"the base ruleset {header.path!r} of this variant cannot be read: "
                       f"{getattr(err, 'strerror', None) or err}", header.span,
                       source=ruleset.source) from None
    if not found:
        near = did_you_mean(base_path.name, _rulesets_in(base_path.parent))
        near = near and str(Path(header.path).parent / near)
        notes = ()
        if not near and not Path(header.path).is_absolute() and Path(header.path).is_file():
            # written from the folder gdl runs in: a base is named from the variant's own
            near = os.path.relpath(Path(header.path).resolve(), here.parent)
            notes = (f"a base is named from the variant's folder ({here.parent}); "
                     f"{header.path!r} is there from the folder gdl runs in",)
        raise GdlError(f"the base ruleset {header.path!r} of this variant does not exist "
                       f"(looked for {base_path})", header.span, source=ruleset.source,
                       suggestion=near, notes=notes)
    if not is_file:                         # a folder, or a device such as /dev/zero
        raise GdlError(f"the base ruleset {header.path!r} of this variant is not a file "
                       f"({base_path})", header.span, source=ruleset.source)
    base = merge_variant(parse_file(base_path), parse_file, depth + 1, chain + (here,))
    overrides = [d for d in ruleset.decls if not isinstance(d, A.VariantOf)]
    _refuse_twice(overrides, ruleset.source)
    base_keys = {_key(d) for d in base.decls} - {None}
    replacing = {_key(d): d for d in overrides if _key(d) in base_keys}
    added = [d for d in overrides if _key(d) not in base_keys]
    # a new declaration goes just before the first replacing declaration that names it
    # (an option's range may name a new option; a zone's index, a new enum), directly or
    # through other new ones, the rest at the end, in the variant's order; any `cards`
    # declaration replaces all of the base's
    order = {_key(d): i for i, d in enumerate(base.decls)}
    at = _placed(added, [(order[k], d) for k, d in replacing.items()], len(base.decls))
    new_cards = any(isinstance(d, A.CardsDecl) for d in overrides)
    merged = []
    for i, d in enumerate(base.decls):
        if isinstance(d, A.CardsDecl) and new_cards:
            continue
        merged.extend(a for a in added if at[id(a)] == i)
        merged.append(replacing.get(_key(d), d))
    merged.extend(a for a in added if at[id(a)] == len(base.decls))
    return A.Ruleset(tuple(merged), path=ruleset.path, source=ruleset.source)


def note_base_problems(err, merged: A.Ruleset) -> None:
    """Adds to each problem a variant's check found on a line of its base (or a base's
    base) the declarations the variant makes: the base's lines were not changed, so one
    of those is what they now fail with (a rule given other parameters, an option made
    an enum)."""
    own = [d for d in merged.decls if getattr(d, "span", None) is not None
           and d.span.file == merged.path]
    if not own:
        return
    named = [f"{_label(d)} (line {d.span.line})" for d in own[:6]]
    said = (f"this line is of a base of the variant {Path(merged.path).name}, which "
            f"declares {', '.join(named)}{', ...' if len(own) > 6 else ''}")
    for problem in err.problems:
        if problem.span is not None and problem.span.file != merged.path:
            problem.notes += (said,)


def _word(kind: type) -> str:
    """What a declaration of this class is called: `rule`, `def`, `returns`..."""
    return _WORDS.get(kind.__name__) or kind.__name__[:-4].lower()


def _label(decl) -> str:
    word = _word(type(decl))
    return word if _key(decl) in _WORDS or isinstance(decl, A.CardsDecl) else \
        f"{word} {decl.name}"


def _placed(added: list, replacing: list, end: int) -> dict:
    """id(new declaration) -> the index of the base declaration it goes before (`end`:
    after all): the first that a replacing declaration naming it, or a new declaration
    naming it (placed already), stands at."""
    from .checker._walk import walk
    names = {id(d): _names_in(d, walk) for d in added}
    users = [(i, _names_in(d, walk)) for i, d in replacing]
    at = {}
    for d in reversed(added):           # a new one named by a later new one goes with it
        k = _key(d)
        spots = [i for i, used in users if k in used]
        spots += [at[id(e)] for e in added if e is not d and id(e) in at and k in names[id(e)]]
        at[id(d)] = min(spots, default=end)
    return at


def _names_in(decl, walk) -> set:
    """The names a declaration reads: values, types and domains."""
    return {n.id if isinstance(n, A.Name) else n.name for n in walk(decl)
            if isinstance(n, (A.Name, A.NamedType))}


def _rulesets_in(folder: Path) -> list:
    """The names of the .gdl files in `folder` (none if it cannot be read)."""
    try:
        return [p.name for p in folder.iterdir() if p.suffix == ".gdl"]
    except OSError:
        return []


_HEADER = re.compile(r'^variant\s+of\s+"([^"\n]*)"', re.MULTILINE)


def variant_files(path) -> list:
    """The file and the bases it is a variant of, as its header lines name them (read
    without parsing, so that a file being edited still names them), at most `MAX_DEPTH`
    bases; a file that cannot be read, or a base that is no .gdl file, ends the list."""
    from .parser import MOST_RULESET_BYTES
    files = [Path(path)]
    while len(files) <= MAX_DEPTH:
        try:
            if files[-1].stat().st_size > MOST_RULESET_BYTES:
                break
            found = _HEADER.search(files[-1].read_text(encoding="utf-8", errors="replace"))
        except OSError:
            break
        if found is None or not found.group(1).endswith(".gdl"):
            break
        files.append(files[-1].parent / found.group(1))
    return files


def variant_summary(path, parse_file) -> "str | None":
    """What a variant file replaces and adds (None for a ruleset that is no variant), for
    `gdl check`: a misspelt name adds a declaration and leaves the base's as it was, which
    no check can tell from a new one."""
    ruleset = parse_file(path)
    header = next((d for d in ruleset.decls if isinstance(d, A.VariantOf)), None)
    if header is None:
        return None
    base = merge_variant(parse_file(Path(ruleset.path).parent / header.path), parse_file)
    kinds = {_key(d): type(d) for d in base.decls}
    keys, mine = set(kinds), {_key(d) for d in ruleset.decls}
    replaced, added = [], []
    for d in ruleset.decls:
        if isinstance(d, A.VariantOf):
            continue
        label = _label(d)
        if isinstance(d, A.CardsDecl):
            if not any(r.startswith(label) for r in replaced):     # all of them, once
                replaced.append(label + _cards_dropped(base, ruleset))
        elif _key(d) in keys:
            was = kinds[_key(d)]
            replaced.append(label if was is type(d) else
                            f"{_word(was)} {d.name} with a {_word(type(d))}")
        elif _key(d) in _WORDS:     # a declaration the base does not have, such as returns
            added.append(label)
        else:                       # a name this variant replaces is not a misspelling
            near = did_you_mean(d.name, [b.name for b in base.decls
                                         if type(b) is type(d) and _key(b) not in mine])
            added.append(label + (f" (the base's {near} stays as it was)" if near else ""))
    return (f"variant of {header.path}: replaces {', '.join(replaced) or 'nothing'}; "
            f"adds {', '.join(added) or 'nothing'}")


def _cards_dropped(base, variant) -> str:
    """The zones whose cards the base's `cards into` gave and the variant's give none
    (its `cards` replace all of the base's): told, or a deal from one fails in play."""
    def zones(ruleset):
        out = []
        for d in ruleset.decls:
            if isinstance(d, A.CardsDecl):
                z = d.zone.obj if isinstance(d.zone, A.Index) else d.zone
                if isinstance(z, A.Name) and z.id not in out:
                    out.append(z.id)
        return out
    dropped = [z for z in zones(base) if z not in zones(variant)]
    return (f" (all of the base's: {', '.join(dropped)} "
            f"{'gets' if len(dropped) == 1 else 'get'} none now)" if dropped else "")


_WORDS = {"GameDecl": "game", "PlayersDecl": "players", "CardDecl": "card",
          "FlowDecl": "flow", "ReturnsDecl": "returns", "CardsDecl": "cards"}


def _refuse_twice(decls, source) -> None:
    """A variant names each declaration once: the second of two would replace the first
    unseen (two identical ones fell together)."""
    first = {}
    for d in decls:
        k = _key(d)
        if k is None:
            continue
        if k in first:
            raise GdlError(f"this variant declares {_WORDS.get(k, k)} twice (first at line "
                           f"{first[k].span.line}): a variant replaces or adds each "
                           f"declaration once", d.span, source=source)
        first[k] = d
